"""Options of the ``openai:`` backend, and keeping credentials out of everything we write."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from whatifbench import secrets
from whatifbench.errors import WhatifError
from whatifbench.models.base import is_secret
from whatifbench.models.shared_args import reject_unknown

DEFAULT_BASE_URL = "https://api.openai.com/v1"
TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")


@dataclass(frozen=True)
class OpenAIOptions:
    """The ``-M`` arguments of ``openai:MODEL``."""

    base_url: str = DEFAULT_BASE_URL
    """Server URL up to ``/v1`` (``--base-url``, ``-M base_url=`` or ``$OPENAI_BASE_URL``); the
    first one when several are given."""
    base_urls: tuple[str, ...] = (DEFAULT_BASE_URL,)
    """Every server (``--base-url`` or ``-M base_url=`` repeated): calls are spread over them
    by least outstanding requests, and a failing one is backed off. Several servers are taken
    to serve the same model: they are recorded in the run spec but left out of cache keys, so
    a run resumes on any subset of them; a single server's URL is part of the key."""
    api_key: str | None = field(default=None, repr=False)
    """Bearer key (``-M api_key=`` or ``$OPENAI_API_KEY``); never recorded anywhere."""
    max_connections: int = 16
    """Requests in flight at once, per server."""
    timeout: float = 120.0
    """Seconds to wait for one response before retrying."""
    max_retries: int = 6
    """Retries of a failed call (429, 5xx, timeouts, dropped connections, malformed replies)."""
    backoff: float = 1.0
    """First retry delay in seconds; doubled on every retry, with jitter."""
    backoff_max: float = 60.0
    """Longest delay between retries (a server's ``Retry-After`` is honoured up to 10 min)."""
    temperature: float | None = 0.0
    """Sampling temperature (0: greedy; ``None``: not sent, for models that only accept their
    default)."""
    max_reply_mb: float = 8.0
    """Largest reply body read, in MB (10**6 bytes); a larger reply is that call's error, read
    no further (a server answering with hundreds of MB cannot take the machine's memory)."""
    max_tokens_param: str = "max_tokens"
    """Name of the token budget field (``max_completion_tokens`` for OpenAI reasoning models)."""

    @classmethod
    def from_args(cls, spec: str, args: Mapping[str, Any]) -> OpenAIOptions:
        """Validate ``-M`` arguments and read the environment."""
        reject_unknown(spec, args, set(cls.__dataclass_fields__) - {"base_urls"})
        given = args.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        urls = [str(u).rstrip("/") for u in (given if isinstance(given, (list, tuple))
                                            else [given])]
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise WhatifError(f"The base URL {sanitize_url(url)!r} is not an http(s) URL; "
                                  "pass e.g. --base-url http://localhost:8000/v1.")
        if len(set(urls)) != len(urls):
            raise WhatifError("The same base URL is given twice; give each server once.")
        key = args.get("api_key") or os.environ.get("OPENAI_API_KEY") or None
        values: dict[str, Any] = {}
        for name, kind, low in (("max_connections", int, 1), ("max_retries", int, 0),
                                ("timeout", float, 1e-3), ("backoff", float, 0.0),
                                ("backoff_max", float, 0.0), ("temperature", float, 0.0)):
            if name not in args or (name == "temperature" and args[name] is None):
                continue
            value = args[name]
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value)
            if not ok or (kind is int and not isinstance(value, int)) or value < low:
                raise WhatifError(f"-M {name} must be a {'whole ' if kind is int else ''}number "
                                  f">= {low}, got {value!r}.")
            values[name] = kind(value)
        token_param = str(args.get("max_tokens_param", "max_tokens"))
        if token_param not in TOKEN_PARAMS:
            raise WhatifError(f"-M max_tokens_param must be one of {', '.join(TOKEN_PARAMS)}.")
        if "max_reply_mb" in args:
            value = args["max_reply_mb"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not 0 < value < math.inf:
                raise WhatifError(f"-M max_reply_mb must be a number > 0 (the largest reply "
                                  f"read, in MB), got {value!r}.")
            values["max_reply_mb"] = float(value)
        if "temperature" in args and args["temperature"] is None:
            values["temperature"] = None
        return cls(base_url=urls[0], base_urls=tuple(urls),
                   api_key=None if key is None else str(key), max_tokens_param=token_param,
                   **values)

    @property
    def max_reply_bytes(self) -> int:
        """``max_reply_mb`` in bytes."""
        return int(self.max_reply_mb * 1_000_000)

    def public_servers(self) -> str | list[str]:
        """The server URL(s) as recorded in run specs and cache keys: without credentials,
        one URL as text, several as a sorted list (the order they were given in does not
        matter)."""
        if len(self.base_urls) == 1:
            return sanitize_url(self.base_url)
        return sorted(sanitize_url(url) for url in self.base_urls)

    def secrets(self) -> list[str]:
        """The key and the credentials in every server URL (for the redactor)."""
        return [self.api_key or "", *(s for url in self.base_urls for s in url_secrets(url))]


def sanitize_url(url: str) -> str:
    """``url`` without user:password and without any query value (parameter names are kept,
    values shown as ``***``: a key may hide in a parameter of any name), safe to record and to
    print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    query = "&".join(f"{quote(k, safe='-_.~')}=***"
                     for k, _ in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


LOOPBACK = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def is_loopback(url: str) -> bool:
    """True when ``url`` points at this machine."""
    host = (urlsplit(url).hostname or "").lower()
    return host in LOOPBACK or host.startswith("127.") or host.endswith(".localhost")


def require_key(options: OpenAIOptions, spec: str, flag: str = "-M") -> None:
    """Refuse, before any call, a server on another machine without an API key."""
    remote = [url for url in options.base_urls if not is_loopback(url)]
    if options.api_key or not remote:
        return
    raise WhatifError(
        f"No API key is set for {spec} at {sanitize_url(remote[0])}, a server on "
        f"another machine: set OPENAI_API_KEY or pass {flag} api_key=... . If that server "
        f"needs no key, say so with any placeholder, e.g. OPENAI_API_KEY=EMPTY (vLLM's "
        "convention)."
    )


class Redactor:
    """Removes a key, bearer tokens and URL credentials from text before it is shown or stored."""

    def __init__(self, values: list[str]) -> None:
        self.secrets = sorted({s for s in values if s and len(s) >= secrets.MIN_LENGTH
                               and not secrets.is_placeholder(s)}, key=len, reverse=True)
        secrets.remember(*self.secrets)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        text = re.sub(r"(?i)(bearer\s+)[^\s\"',;)\]}]+", r"\1***", text)
        text = re.sub(r"(?i)(api[-_]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]+", r"\1***", text)
        return re.sub(r"(https?://)[^/\s@]+@", r"\1", text)


def url_secrets(url: str) -> list[str]:
    """Credentials a URL may carry: the password, the values of credential-like query
    parameters, and any other query value of 8 characters or more (``?sig=...``). (A user name
    is not secret; ``sanitize_url`` leaves it out of what is recorded.)"""
    parts = urlsplit(url)
    found = [parts.password or ""]
    found += [v for k, v in parse_qsl(parts.query) if is_secret(k) or len(v) >= 8]
    return [s for s in found if s]
