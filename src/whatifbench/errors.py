"""The one exception type for user mistakes and unusable inputs."""

from __future__ import annotations

EXIT_OK = 0
"""The command did what was asked."""
EXIT_INTERNAL = 1
"""A bug in whatifbench (an internal error)."""
EXIT_USER = 2
"""A ``WhatifError``: bad input or an unusable environment, said in one message."""
EXIT_BACKEND_ERRORS = 3
"""``whatif run`` finished and wrote its outputs, but some items ended in a backend error (the
outputs show them; running the same command again retries exactly those)."""
EXIT_FLAGGED = 4
"""``whatif audit --strict``: the audit ran, and the dataset or one of its slices is flagged
(answerable without the image)."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C); what was received is in the run store."""
EXIT_TERMINATED = 143
"""Stopped by SIGTERM (128 + 15), after the same clean-up as Ctrl-C."""


class WhatifError(Exception):
    """A problem the user can fix.

    The message is one or more full sentences that name the file, line or value at fault and
    say how to fix it. The CLI prints it without a traceback and exits non-zero.
    """


class WhatifDeprecationWarning(DeprecationWarning):
    """A plugin (or a caller) uses the API of an earlier version that still works: the message
    names the new way. ``whatif`` shows each once (Python hides other deprecation warnings)."""


class BackendError(Exception):
    """A model call that failed after all retries; the runner records it as an item error."""
