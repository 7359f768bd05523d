"""CFMM ("Eyes Can Deceive"): the paired basic/counterfactual protocol with answer ranking, and
the importer for your own CFMM-style files."""

from whatifbench.suites.cfmm import importer, suite  # noqa: F401  (register the suite, importer)
