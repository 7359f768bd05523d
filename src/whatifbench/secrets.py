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
A query-like fragment (``#token=…``, as OAuth redirects carry) is cleaned the same way.
Otherwise only exact values are replaced: model replies are data, and patterns such as
``Bearer …`` are left to the places that show server error bodies
(``models.openai_compat.options.Redactor``).

Arguments that another tool logged (``whatif import-results``: lmms-eval's ``model_args``, a
string ``k=v,k=v`` or a dict) are data we did not choose to hold a secret, so ``public_value``
cleans them harder: besides URLs, a scheme-less ``user:password@host``, token-shaped values
(``hf_…``, ``sk-…``, ``ghp_…``, a JWT) and whatever follows a credential-named field
(``Authorization: …``, ``api_key=…``) are masked; ``public_arguments`` also drops arguments
whose names say they are credentials, at any depth.
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
_QUERY = re.compile(r"((?:[?&;#]|\\u0026)([^=&;?#\\]+)=)([^&;#\\]+)")
# Logged arguments only (``public_value``):
_BARE_USERINFO = re.compile(r"(?<![^\s=,;'\"(\[{])[^\s:/@'\"]+:[^\s/@'\"]+@(?=[\w.\-\[])")
_TOKEN_SHAPE = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}|eyJ[\w\-]{8,}\.[\w\-]{8,}\.[\w\-]+)")
_NAMED = re.compile(r"(?i)([\w\-]*(?:" + "|".join(SECRET_WORDS) + r")[\w\-]*\s*[:=]\s*)"
                    r"[^,;&#\n}\]]+")

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


def secret_name(name: str) -> bool:
    """True for argument names that hold credentials (``models.base.is_secret``)."""
    return any(word in name.lower() for word in SECRET_WORDS)


def public_value(value: Any) -> Any:
    """A value another tool logged (an argument), with every credential we can recognise masked
    (see the module): ``redact``, then scheme-less user information, token-shaped strings and
    the values of credential-named fields; dicts and lists are cleaned inside, keys named like
    credentials dropped (``public_arguments``)."""
    if isinstance(value, dict):
        return public_arguments(value)
    if isinstance(value, (list, tuple)):
        return [public_value(v) for v in value]
    if not isinstance(value, str):
        return value
    text = redact(value)
    if "@" in text:
        text = _BARE_USERINFO.sub(f"{MASK}@", text)
    text = _TOKEN_SHAPE.sub(MASK, text)
    return _NAMED.sub(lambda m: m.group(1) + MASK, text)


def public_arguments(args: Any) -> dict[str, Any]:
    """Logged arguments (a dict, or lmms-eval's ``k=v,k=v`` string) as a dict without
    credentials: names that say they are one are dropped, other values cleaned by
    ``public_value``."""
    if isinstance(args, dict):
        pairs = [(str(k), v) for k, v in args.items()]
    else:
        pairs = []
        for part in str(args or "").split(","):
            key, _, value = part.partition("=")
            pairs.append((key.strip(), value.strip()))
    return {key: public_value(value) for key, value in pairs
            if key and not secret_name(key)}


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
