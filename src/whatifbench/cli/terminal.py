"""Terminal output without control sequences from data.

Dataset text (card names, groups, questions, file names) reaches the terminal in tables, logs,
progress bars and messages. An escape sequence in it could recolour, hide or rewrite what the
user reads (or, on some terminals, set the window title or answer queries), so everything the
CLI prints goes through ``SafeStream``: ANSI/VT escape sequences, other C0/C1 control characters
and bidirectional overrides are removed; newlines and tabs stay, and a carriage return only at
the start of a write (how progress bars redraw their line). Lone surrogates become U+FFFD.
Credentials (remembered keys, URL user information and token-like query values) are redacted.
Files we write (results, reports, exports) keep the data verbatim.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from whatifbench.secrets import redact

_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"            # CSI: colours, cursor moves, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window title, hyperlinks, clipboard
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"       # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"                     # two-character and charset escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"               # 8-bit CSI
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def terminal_safe(text: str) -> str:
    """``text`` without escape sequences and control characters (see the module)."""
    lead = "\r" if text.startswith("\r") else ""
    text = _ESCAPE.sub("", text)
    text = _CONTROL.sub(lambda m: "\ufffd" if "\ud800" <= m.group() <= "\udfff" else "", text)
    return lead + text


class SafeStream:
    """A text stream that writes ``terminal_safe`` text to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write the cleaned text (credentials redacted too: ``secrets.redact``); report the
        length given (as callers expect)."""
        self._stream.write(terminal_safe(redact(text)))
        return len(text)

    def write_unredacted(self, text: str) -> None:
        """Write cleaned text whose credentials are the user's to see (an access link printed to
        their own terminal: ``print_to_terminal``)."""
        self._stream.write(terminal_safe(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def to_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` (or the stream a ``SafeStream`` wraps) is a terminal."""
    inner = stream._stream if isinstance(stream, SafeStream) else stream
    try:
        return bool(inner.isatty())
    except (AttributeError, ValueError):
        return False


def print_to_terminal(text: str, stream: TextIO) -> None:
    """Print ``text`` (a line holding a secret meant for the user, such as an access link)
    without redaction, cleaned of control sequences; the caller checks ``to_terminal`` first,
    so the secret reaches no log file or pipe."""
    if isinstance(stream, SafeStream):
        stream.write_unredacted(text + "\n")
    else:
        stream.write(terminal_safe(text) + "\n")
    stream.flush()


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through ``SafeStream`` for the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
