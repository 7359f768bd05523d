"""The one exception type for user mistakes and unusable inputs."""

from __future__ import annotations


class WhatifError(Exception):
    """A problem the user can fix.

    The message is one or more full sentences that name the file, line or value at fault and
    say how to fix it. The CLI prints it without a traceback and exits non-zero.
    """


class BackendError(Exception):
    """A model call that failed after all retries; the runner records it as an item error."""
