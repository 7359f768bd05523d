"""The credentials this process holds, and their removal from everything we store or write.

Backends that take a credential (an API key, a password or token in a URL) ``remember`` it
when they are created. ``redact`` then replaces every remembered value (also in its JSON- and
HTML-escaped forms) by ``***``; it is applied where responses enter the run store
(``runner.store.RunStore.put``), where run outputs are written (``report.render``) and where the
command line prints an error, so a server that echoes the key inside a reply cannot get it into
the store, the samples, the results, the reports or a message.

``redact`` also cleans every URL in the text, whoever wrote it (a logged config of another
tool, a model argument, a reply): the user information (``http://user:password@host`` becomes
``http://***@host``) and the values of query parameters whose names look like credentials
(``?token=…``, ``access_token``, ``api_key``, ``sig``, ``X-Amz-Signature`` … become ``***``).
Otherwise only exact values are replaced: model replies are data, and patterns such as
``Bearer …`` are left to the places that show server error bodies
(``models.openai_compat.options.Redactor``).
"""

from __future__ import annotations

import html
import json
import re
import threading
from typing import Any

MIN_LENGTH = 4
"""Shorter values are not treated as secrets (replacing them would mangle ordinary text)."""
PLACEHOLDERS = frozenset({"empty", "none", "null", "dummy", "no-key", "nokey"})
"""Key values that servers without authentication accept (vLLM's docs use ``EMPTY``): sent, but
not secret."""
MASK = "***"
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "bearer", "credential",
                "signature", "cookie")
"""A backend argument whose name holds one of these is a credential (``models.base.is_secret``)."""
QUERY_WORDS = (*SECRET_WORDS, "session")
"""A URL query parameter whose name holds one of these has its value masked."""
QUERY_NAMES = frozenset({"sig", "pwd", "pass", "code"})
"""Query parameter names masked although they hold none of ``QUERY_WORDS``."""

# A URL as it appears in text, JSON (``&`` possibly escaped as \u0026) or HTML (``&amp;``).
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]{0,31}://(?:[^\s\"'<>\\]|\\u0026)+")
_USERINFO = re.compile(r"^([^:]+://)[^/?#@]+@")
_QUERY = re.compile(r"((?:[?&;]|\\u0026)([^=&;?#\\]+)=)([^&;#\\]+)")

_lock = threading.Lock()
_known: dict[str, tuple[str, ...]] = {}


def is_placeholder(value: str) -> bool:
    """True for stand-in keys such as ``EMPTY`` that protect nothing."""
    return value.strip().lower() in PLACEHOLDERS


def remember(*values: str | None) -> None:
    """Add credentials to the set ``redact`` removes (short values and placeholders are
    ignored)."""
    with _lock:
        for value in values:
            if not value or len(value) < MIN_LENGTH or is_placeholder(value):
                continue
            forms = {value, json.dumps(value)[1:-1], html.escape(value),
                     html.escape(value, quote=False)}
            _known[value] = tuple(sorted(forms, key=len, reverse=True))


def forget_all() -> None:
    """Drop every remembered value (for tests)."""
    with _lock:
        _known.clear()


def redact(text: str) -> str:
    """``text`` with every remembered credential replaced by ``***``, and every URL in it
    without user information or credential-like query values (``redact_url``)."""
    with _lock:
        forms = sorted({f for fs in _known.values() for f in fs}, key=len, reverse=True)
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group()), text)
    return text


def _secret_name(name: str) -> bool:
    name = name.lower()
    return name in QUERY_NAMES or any(word in name for word in QUERY_WORDS)


def redact_url(url: str) -> str:
    """``url`` with its user information and the values of its credential-like query
    parameters replaced by ``***`` (the rest kept, so the URL still says where it points)."""
    url = _USERINFO.sub(rf"\1{MASK}@", url)
    if "=" not in url:
        return url
    return _QUERY.sub(lambda m: m.group(1) + MASK if _secret_name(m.group(2)) else m.group(),
                      url)


def redact_value(obj: Any) -> Any:
    """``obj`` (JSON-like: dicts, lists, tuples, strings) with ``redact`` applied to every
    string in it, keys included; other values are returned unchanged."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {redact_value(k): redact_value(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(redact_value(v) for v in obj)
    return obj
