"""MuCR: cause/effect image pairs (C2E, E2C, Cue, Exp), release import, judges."""

from whatifbench.suites.mucr import importer, suite  # noqa: F401  (register importer and suite)
