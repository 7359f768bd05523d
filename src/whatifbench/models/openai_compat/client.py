"""An asynchronous JSON client with bounded concurrency, timeouts and retries.

Retried: HTTP 408, 409, 429 and 5xx, timeouts, dropped or refused connections and malformed
replies, with exponential backoff and jitter, honouring ``Retry-After`` (and
``retry-after-ms``). Other 4xx answers fail the call at once; 401/403/404 stop the whole run
because no request can succeed. Every message is passed through the redactor first.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import random
import ssl
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.options import OpenAIOptions, Redactor, sanitize_url
from whatifbench.models.openai_compat.payloads import MalformedReply

RETRY_STATUS = frozenset({408, 409, 429})
RETRY_AFTER_LIMIT = 600.0


@functools.cache
def ssl_context(verified: bool) -> ssl.SSLContext:
    """One TLS context per process (loading the CA bundle takes tens of milliseconds); plain
    http needs none, so it gets an empty one that is never used."""
    if verified:
        return httpx.create_ssl_context()
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class CallFailed(Exception):
    """A call that still failed after all retries (its message is already redacted)."""


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds a server asks us to wait (``retry-after-ms``, or ``Retry-After`` in seconds or
    as an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class RetryingClient:
    """POSTs JSON bodies to ``base_url + path`` with at most ``max_connections`` in flight."""

    def __init__(self, options: OpenAIOptions, redact: Redactor) -> None:
        self.options = options
        self.redact = redact
        self.rng = random.Random()
        parts = urlsplit(options.base_url)
        auth = None
        if parts.username or parts.password:
            auth = httpx.BasicAuth(parts.username or "", parts.password or "")
        netloc = parts.hostname or ""
        if parts.port:
            netloc = f"{netloc}:{parts.port}"
        self.base_url = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        self.params = parts.query
        self.public_url = sanitize_url(options.base_url)
        headers = {"Authorization": f"Bearer {options.api_key}"} if options.api_key else {}
        timeout = httpx.Timeout(options.timeout, connect=min(options.timeout, 30.0))
        # One single-connection client per slot: httpcore scans every connection of a pool on
        # each request, which costs more CPU than the request itself at 16+ connections.
        verify = ssl_context(parts.scheme == "https")
        self.clients = [httpx.AsyncClient(headers=headers, auth=auth, timeout=timeout,
                                          verify=verify,
                                          limits=httpx.Limits(max_connections=1,
                                                              max_keepalive_connections=1))
                        for _ in range(options.max_connections)]
        self.idle: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
        for client in self.clients:
            self.idle.put_nowait(client)

    def _url(self, path: str) -> str:
        url = self.base_url + path
        return f"{url}?{self.params}" if self.params else url

    def _delay(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, RETRY_AFTER_LIMIT) + self.rng.uniform(0, 0.1 * min(asked, 10.0))
        ceiling = min(self.options.backoff_max, self.options.backoff * 2**attempt)
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)

    async def post(self, path: str, body: dict[str, Any],
                   parse: Callable[[Any], Any] = lambda answer: answer) -> tuple[Any, int]:
        """``parse`` of the decoded JSON answer, and the number of attempts it took.

        A 200 answer that is not JSON or that ``parse`` rejects with ``MalformedReply`` is
        retried. Raises ``CallFailed`` after the last retry, ``WhatifError`` when the server
        refuses the key or does not know the model or endpoint.
        """
        attempts = self.options.max_retries + 1
        problem = "no attempt was made"
        for attempt in range(attempts):
            asked: float | None = None
            try:
                client = await self.idle.get()
                try:
                    response = await client.post(self._url(path), json=body)
                    raw = await response.aread()
                finally:
                    self.idle.put_nowait(client)
            except httpx.TimeoutException:
                problem = f"no response within {self.options.timeout:g} s"
            except httpx.TransportError as exc:
                problem = f"connection error ({type(exc).__name__})"
            else:
                status = response.status_code
                if status == 200:
                    try:
                        return parse(json.loads(raw)), attempt + 1
                    except (ValueError, UnicodeDecodeError):
                        problem = "the server sent a reply that is not JSON"
                    except MalformedReply as exc:
                        problem = f"malformed reply: {exc}"
                else:
                    detail = self.redact(raw.decode("utf-8", "replace"))[:300].strip()
                    self._check_fatal(status, detail)
                    problem = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
                    if status not in RETRY_STATUS and status < 500:
                        raise CallFailed(self.redact(problem))
                    asked = retry_after(response.headers)
            if attempt + 1 < attempts:
                await asyncio.sleep(self._delay(attempt, asked))
        raise CallFailed(self.redact(f"{problem} (after {attempts} attempt"
                                     f"{'s' if attempts != 1 else ''})"))

    def _check_fatal(self, status: int, detail: str) -> None:
        where = self.public_url
        if status in (401, 403):
            raise WhatifError(
                f"The server at {where} refused the request (HTTP {status}: {detail[:200]}). "
                "Check the API key: set OPENAI_API_KEY or pass -M api_key=..."
            )
        if status == 404:
            raise WhatifError(
                f"The server at {where} answered HTTP 404 ({detail[:200]}): the model name or "
                "the base URL is wrong. The base URL ends with /v1, e.g. "
                "--base-url http://localhost:8000/v1."
            )

    async def aclose(self) -> None:
        """Close the connections."""
        for client in self.clients:
            await client.aclose()
