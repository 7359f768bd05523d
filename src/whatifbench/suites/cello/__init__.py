"""CELLO: suite, builder (scene graphs → dataset), release importer and exporter."""

from whatifbench.suites.cello import build, exporter, importer, suite  # noqa: F401  (registers)
