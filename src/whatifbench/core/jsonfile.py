"""Read a file of JSON records in any of the shapes releases use: one record per line (JSON
Lines), pretty-printed records one after another, a JSON array of records, or one record; and
``loads``, the JSON parser for every file a user gives us (deep nesting refused).

JSON Lines are split at ``\n`` only (``jsonl_lines``), never with ``str.splitlines``, which also
breaks at U+2028, U+2029, U+0085 and other characters that JSON strings may hold raw; the JSON we
write escapes those three (``escape_separators``), so other tools' line readers keep a record
whole too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError

_RECORD_START = re.compile(r"\n[ \t]*\{")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
"""Characters that ``str.splitlines`` (and JavaScript, for the first two) treat as line ends, but
JSON allows raw inside strings; we write them escaped."""
MAX_DEPTH = 100
"""Deepest nesting of arrays and objects we read. Python's parser fails with a RecursionError
near 1000 levels, and writing or walking a value recurses too; our own files nest a few levels."""


def escape_separators(text: str) -> str:
    """JSON ``text`` with U+2028, U+2029 and U+0085 written as ``\\u`` escapes: the same JSON
    value, on one line for every line reader. (These characters can only occur inside JSON
    strings, where the escape means the same character.)"""
    for raw, escaped in SEPARATORS.items():
        if raw in text:
            text = text.replace(raw, escaped)
    return text


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of each line of JSON Lines ``text``, split at ``\n`` only (a
    ``\r`` before it is dropped); blank lines are left out but counted."""
    for lineno, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield lineno, line.removesuffix("\r")


def too_deep(text: str) -> int | None:
    """The offset in ``text`` where JSON nesting passes ``MAX_DEPTH`` (``None`` when it does
    not); brackets inside strings do not count. Cheap for text with few brackets."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    plain = _STRING.sub(lambda m: " " * len(m.group()), text)
    depth = 0
    for m in _BRACKET.finditer(plain):
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return m.start()
    return None


def nested_error(text: str, at: int) -> json.JSONDecodeError:
    """The parse error for nesting deeper than ``MAX_DEPTH`` at offset ``at``."""
    return json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, at)


def loads(text: str) -> Any:
    """``json.loads`` for user files: nesting deeper than ``MAX_DEPTH`` is a
    ``json.JSONDecodeError`` (a ``ValueError``) like any other invalid JSON, never a
    ``RecursionError``, so callers' messages name the file and line."""
    at = too_deep(text)
    if at is not None:
        raise nested_error(text, at)
    try:
        return json.loads(text)
    except RecursionError:
        raise nested_error(text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer of more than 4300 digits
        raise json.JSONDecodeError(str(exc), text, 0) from None


def lone_surrogate(line: str, obj: Any) -> str | None:
    """Why a parsed JSON line cannot be stored as UTF-8 (a lone surrogate escape such as
    ``\\ud800``), or ``None``. Only lines holding a surrogate escape are examined."""
    if "\\u" not in line or not _SURROGATE_ESCAPE.search(line):
        return None
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"holds a lone surrogate {exc.object[exc.start:exc.end]!r} (an escape such as "
                "\\ud800 without its pair), which is not text; remove or fix it")
    return None


def iter_objects(path: Path, what: str = "the release's JSONL file"
                 ) -> list[tuple[int, Any, str | None]]:
    """``(line, object, None)`` for each JSON value of the file, or ``(line, first line's text,
    error)`` for a value that does not parse or holds a lone surrogate (reading resumes at the
    next line starting with ``{``). ``what`` names the expected file in the errors for a
    missing or unreadable file."""
    try:
        text = read_text(path, "utf-8-sig")
    except FileNotFoundError:
        raise WhatifError(f"The file {path} does not exist; pass {what}.") from None
    except IsADirectoryError:
        raise WhatifError(f"{path} is a folder; pass {what}.") from None
    except UnicodeDecodeError as exc:
        raise WhatifError(f"{path} is not UTF-8 text ({exc}).") from None
    decoder = json.JSONDecoder()
    out: list[tuple[int, Any, str | None]] = []
    n = len(text)
    array = text.lstrip().startswith("[")
    pos = text.index("[") + 1 if array else 0
    while True:
        while pos < n and (text[pos].isspace() or (array and text[pos] in ",]")):
            pos += 1
        if pos >= n:
            return out
        line = text.count("\n", 0, pos) + 1
        try:
            start = pos
            try:
                obj, pos = decoder.raw_decode(text, pos)
            except RecursionError:
                raise nested_error(text, start) from None
            if too_deep(text[start:pos]) is not None:
                first = text.find("\n", start)
                out.append((line, text[start:first if first >= 0 else n],
                            f"not valid JSON (nested more than {MAX_DEPTH} levels deep)"))
                continue
            bad = lone_surrogate(text[start:pos], obj)
            out.append((line, text[start:pos] if bad else obj, bad))
        except json.JSONDecodeError as exc:
            why = f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            end = text.find("\n", pos)
            out.append((line, text[pos:end if end >= 0 else n], why))
            nxt = _RECORD_START.search(text, end) if end >= 0 else None
            pos = nxt.start() + 1 if nxt else n
