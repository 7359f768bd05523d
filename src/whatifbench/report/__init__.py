"""Tables (terminal, Markdown, CSV, LaTeX), figures and the results explorer (report.html).

Only constants live here, so that the command line can name them without importing the
report modules (which load PIL and matplotlib) before a command runs."""

MAX_IMAGES = 300
"""Thumbnails a self-contained report embeds by default (``--max-images``)."""
REPLY_CHARS = 32_768
"""Most characters ``samples.jsonl`` keeps of one reply (the ``response``, and each text of a
``trace`` or ``judgement``) unless ``--full-replies``; the run store keeps every reply whole."""
