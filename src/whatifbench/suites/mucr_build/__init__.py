"""``whatif build mucr``: the MuCR construction pipeline and its selection sheet."""

from whatifbench.suites.mucr_build import build, review  # noqa: F401  (register)
