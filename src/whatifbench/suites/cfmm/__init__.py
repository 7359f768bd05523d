"""CFMM ("Eyes Can Deceive"): the paired basic/counterfactual protocol with answer ranking, the
importer for your own CFMM-style files and the exporters back to them."""

from whatifbench.suites.cfmm import (  # noqa: F401  (registrations)
    exporter,
    generate,
    importer,
    suite,
)
