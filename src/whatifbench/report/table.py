"""Tables of numbers (``Table``, ``Cell``) and their text, Markdown and HTML: the records live in
``core.table`` (a suite's ``tables`` returns them, and core imports nothing from report); this
module keeps their name for plugins' table code."""

from whatifbench.core.table import *  # noqa: F403
