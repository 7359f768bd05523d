"""An asynchronous JSON client with bounded concurrency, timeouts and retries.

Retried: HTTP 408, 409, 429 and 5xx, timeouts, dropped or refused connections and malformed
replies, with exponential backoff and jitter, honouring ``Retry-After`` (and
``retry-after-ms``). The timeout bounds each attempt as a whole (connect to last byte). Bodies
are streamed and read up to ``max_reply_mb``; a longer reply is retried on another server when
there are several, else fails the call at once, as do other 4xx answers and replies without
content; 401/403/404 stop the whole run
because no request can succeed, and so does a server that none of the first attempts reached.
Calls are spread over several servers by ``balancer.Balancer``; over several, a call much slower
than the fleet's usual one is sent to another server too (``hedge``), and a redirect (3xx) is
a failure of that server, retried elsewhere. Every message is passed through the redactor first.
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
from urllib.parse import urlsplit

import httpx

from whatifbench.errors import WhatifError
from whatifbench.models.openai_compat.balancer import (
    FAILED,
    NEUTRAL,
    OK,
    Balancer,
    Lease,
    open_server,
)
from whatifbench.models.openai_compat.hedge import Track, hedged
from whatifbench.models.openai_compat.options import OpenAIOptions, Redactor, sanitize_url
from whatifbench.models.openai_compat.payloads import EmptyReply, MalformedReply

RETRY_STATUS = frozenset({408, 409, 429})
RETRY_AFTER_LIMIT = 600.0
UNREACHED_LIMIT = 20
"""The run stops when this many first attempts all failed to get any answer from the server."""


@functools.cache
def ssl_context(verified: bool) -> ssl.SSLContext:
    """One TLS context per process (loading the CA bundle takes tens of milliseconds); plain
    http needs none, so it gets an empty one that is never used."""
    if verified:
        return httpx.create_ssl_context()
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class CallFailed(Exception):
    """A call that still failed after all retries (its message is already redacted)."""


class ReplyTooLarge(Exception):
    """A reply body longer than the limit (``read_capped``); the rest was not read."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit

    def message(self, flag: str = "-M") -> str:
        """Why the call failed, and the argument that raises the limit."""
        mb = f"{self.limit / 1_000_000:g}"
        return (f"the server's reply is larger than {mb} MB, the most read of one reply; the "
                f"rest was not read. Pass {flag} max_reply_mb=N (MB) if replies this large are "
                "expected")


async def read_capped(client: httpx.AsyncClient, method: str, url: str, limit: int,
                      **kwargs: Any) -> tuple[httpx.Response, bytes]:
    """The response and its body, streamed and read only up to ``limit`` bytes (after
    decompression); ``ReplyTooLarge`` past it, or at once when ``Content-Length`` says so."""
    async with client.stream(method, url, **kwargs) as response:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise ReplyTooLarge(limit)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise ReplyTooLarge(limit)
            chunks.append(chunk)
    return response, b"".join(chunks)


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
    """POSTs JSON bodies to ``base_url + path`` with at most ``max_connections`` in flight per
    server."""

    def __init__(self, options: OpenAIOptions, redact: Redactor, flag: str = "-M") -> None:
        self.options = options
        self.redact = redact
        self.flag = flag
        """How the user passes our arguments (``-M``; ``-I`` for image backends)."""
        self.rng = random.Random()
        headers = {"Authorization": f"Bearer {options.api_key}"} if options.api_key else {}
        timeout = httpx.Timeout(options.timeout, connect=min(options.timeout, 30.0))
        verify = ssl_context(any(urlsplit(url).scheme == "https" for url in options.base_urls))
        self.balancer = Balancer(
            [open_server(url, headers, timeout, verify, options.max_connections)
             for url in options.base_urls], options.backoff, options.backoff_max)
        self.answered = False
        """Whether any attempt got an HTTP answer (of any status) from any server."""
        self.unreached = 0
        """Attempts that got no answer at all (refused, unresolvable, dropped)."""
        self.last_unreached = ""

    def _delay(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, RETRY_AFTER_LIMIT) + self.rng.uniform(0, 0.1 * min(asked, 10.0))
        ceiling = min(self.options.backoff_max, self.options.backoff * 2**attempt)
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)

    async def post(self, path: str, body: dict[str, Any],
                   parse: Callable[[Any], Any] = lambda answer: answer) -> tuple[Any, int]:
        """``parse`` of the decoded JSON answer, and the number of attempts it took.

        A 200 answer that is not JSON or that ``parse`` rejects with ``MalformedReply`` is
        retried (on another server when one is healthy). Raises ``CallFailed`` after the last
        retry or for an answer without content, ``WhatifError`` when the server refuses the
        key, does not know the model or endpoint, or cannot be reached at all. Over several
        servers a slow call is hedged (``hedge.hedged``).
        """
        def attempts(track: Track) -> Any:
            return self._post(path, body, parse, track)

        if not self.balancer.several:
            return await attempts(Track())
        return await hedged(attempts, self.balancer, CallFailed)

    async def _post(self, path: str, body: dict[str, Any], parse: Callable[[Any], Any],
                    track: Track) -> tuple[Any, int]:
        """``post``'s attempts and retries, one after another (progress kept in ``track``)."""
        attempts = self.options.max_retries + 1
        problem = "no attempt was made"
        for attempt in range(attempts):
            asked: float | None = None
            lease = await self.balancer.acquire(track.avoid)
            track.begin(lease.server)
            outcome = FAILED
            try:
                # The timeout bounds the whole call, from connecting to the last byte: httpx's
                # own timeouts bound each read, which a server sending a byte now and then
                # never exceeds.
                async with asyncio.timeout(self.options.timeout):
                    response, raw = await read_capped(
                        lease.client, "POST", lease.server.url(path),
                        self.options.max_reply_bytes, json=body)
            except ReplyTooLarge as exc:
                self.answered = True
                problem = exc.message(self.flag)
                if not self.balancer.several:  # the same request would get the same reply
                    self.balancer.release(lease, FAILED)
                    raise CallFailed(self.redact(problem)) from None
            except (TimeoutError, httpx.TimeoutException) as exc:
                problem = f"no complete response within {self.options.timeout:g} s"
                if isinstance(exc, httpx.ConnectTimeout):
                    self._unreached(f"{problem} (connecting)", lease)
            except httpx.TransportError as exc:
                problem = f"connection error ({type(exc).__name__})"
                self._unreached(f"{type(exc).__name__}: {exc}", lease)
            except BaseException:
                self.balancer.release(lease, NEUTRAL)  # cancelled: not the server's fault
                raise
            else:
                self.answered = True
                status = response.status_code
                if status == 200:
                    try:
                        value = parse(json.loads(raw))
                        outcome = OK
                        self.balancer.record(time.monotonic() - track.started)
                    except (ValueError, UnicodeDecodeError, RecursionError):  # nested too deep
                        problem = "the server sent a reply that is not JSON"
                    except MalformedReply as exc:
                        problem = f"malformed reply: {exc}"
                    except EmptyReply as exc:
                        self.balancer.release(lease, NEUTRAL)
                        raise CallFailed(self.redact(self._at(f"empty reply: {exc}", lease))
                                         ) from None
                else:
                    detail = self.redact(raw.decode("utf-8", "replace"))[:300].strip()
                    problem = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
                    asked = retry_after(response.headers)
                    if 300 <= status < 400:  # another server may answer; this one would not
                        problem = self._redirected(status, response.headers)
                        if not self.balancer.several:
                            self.balancer.release(lease, NEUTRAL)
                            raise CallFailed(self.redact(problem))
                    elif status not in RETRY_STATUS and status < 500:
                        self.balancer.release(lease, NEUTRAL)
                        self._check_fatal(status, detail, lease.server.public)
                        raise CallFailed(self.redact(self._at(problem, lease)))
            self.balancer.release(lease, outcome, asked)
            if outcome == OK:
                return value, attempt + 1
            problem = self._at(problem, lease)
            if attempt + 1 < attempts and not self.balancer.elsewhere():
                await asyncio.sleep(self._delay(attempt, asked))
        raise CallFailed(self.redact(f"{problem} (after {attempts} attempt"
                                     f"{'s' if attempts != 1 else ''})"))

    @staticmethod
    def _redirected(status: int, headers: httpx.Headers) -> str:
        """The problem of a redirect (not followed: the request would carry the key to a
        place nobody chose)."""
        where = sanitize_url(headers.get("location") or "") or "(no Location)"
        return (f"HTTP {status}: the server redirects to {where}; give the address it "
                "redirects to as --base-url")

    def _at(self, problem: str, lease: Lease) -> str:
        """Name the server in a problem when there are several."""
        return f"{problem} [{lease.server.public}]" if self.balancer.several else problem

    def _unreached(self, why: str, lease: Lease) -> None:
        """Count an attempt that got no answer at all; stop the run when the first
        ``UNREACHED_LIMIT`` attempts all did (the lease is given back first)."""
        self.unreached += 1
        self.last_unreached = self._at(why, lease)
        if not self.answered and self.unreached >= UNREACHED_LIMIT:
            self.balancer.release(lease, FAILED)
            raise self.unreachable()

    def unreachable(self) -> WhatifError:
        """The message for servers that never answered."""
        urls = [s.public for s in self.balancer.servers]
        where = (f"The server at {urls[0]} could not" if len(urls) == 1 else
                 f"None of the servers ({', '.join(urls)}) could")
        return WhatifError(
            f"{where} be reached: none of the first {self.unreached} "
            f"attempt{'s' if self.unreached != 1 else ''} got an answer (last: "
            f"{self.redact(self.last_unreached)}). Check that the server is running and that "
            "--base-url is right (it ends with /v1, e.g. --base-url http://localhost:8000/v1); "
            "nothing was scored."
        )

    def check_reached(self) -> None:
        """After a batch: raise ``unreachable()`` when no attempt ever got an answer (a run too
        small to reach ``UNREACHED_LIMIT`` attempts, every call failed to connect)."""
        if not self.answered and self.unreached:
            raise self.unreachable()

    def _check_fatal(self, status: int, detail: str, where: str) -> None:
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
        await self.balancer.aclose()
