"""Several OpenAI-compatible servers behind one backend: least outstanding requests first.

Each server has ``max_connections`` single-connection clients. A call goes to the server with
the fewest requests in flight (ties: the one chosen longest ago). A server whose call fails for
a server-side reason (connection refused or dropped, timeout, 429, 5xx, malformed reply) rests
for a backoff that doubles with each consecutive failure (or for its ``Retry-After``) while the
others take the load; after the rest it gets one request at a time until one succeeds. With a
single server nothing rests: the caller's own per-call backoff applies, as before. The balancer
also keeps the durations of recent successful calls, from which ``hedge.hedged`` decides when a
call has been slow for long enough to be sent to another server as well.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import httpx

from whatifbench.models.openai_compat.options import sanitize_url

OK, FAILED, NEUTRAL = "ok", "failed", "neutral"
"""Outcomes of a call for its server: answered, failed on the server's side, or the request's
own fault (e.g. HTTP 400), which says nothing about the server."""
HEDGE_FACTOR = 4.0
"""A call is sent to another server as well once it has taken this many times the median of
recent successful calls ..."""
HEDGE_MIN = 1.0
"""... and at least this many seconds."""
HEDGE_SAMPLES = 3
"""Successful calls needed before any call is hedged (no usual duration to compare with)."""


@dataclass
class Server:
    """One server's connections and health."""

    base_url: str
    """URL up to ``/v1`` without credentials or query."""
    params: str
    """Query string appended to every call (e.g. ``api-version=...``)."""
    public: str
    """The URL as it may be shown (no credentials)."""
    clients: list[httpx.AsyncClient]
    """Idle single-connection clients."""
    every: list[httpx.AsyncClient] = field(default_factory=list)
    """All its clients (to close them)."""
    outstanding: int = 0
    """Calls in flight."""
    failures: int = 0
    """Consecutive server-side failures."""
    resting_until: float = 0.0
    """``time.monotonic()`` before which it gets no calls (several servers only)."""
    picked: int = 0
    """When it was last chosen (a counter), for ties."""
    answered: int = 0
    """Calls it answered."""
    failed: int = 0
    """Calls that failed on its side."""

    def url(self, path: str) -> str:
        """The full URL of an endpoint."""
        url = self.base_url + path
        return f"{url}?{self.params}" if self.params else url


def open_server(url: str, headers: dict[str, str], timeout: httpx.Timeout, verify: object,
                connections: int) -> Server:
    """A ``Server`` with ``connections`` clients; user:password in the URL becomes basic
    authentication."""
    parts = urlsplit(url)
    auth = None
    if parts.username or parts.password:
        auth = httpx.BasicAuth(parts.username or "", parts.password or "")
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    # One single-connection client per slot: httpcore scans every connection of a pool on
    # each request, which costs more CPU than the request itself at 16+ connections.
    clients = [httpx.AsyncClient(headers=headers, auth=auth, timeout=timeout,
                                 verify=verify,  # type: ignore[arg-type]
                                 limits=httpx.Limits(max_connections=1,
                                                     max_keepalive_connections=1))
               for _ in range(connections)]
    return Server(urlunsplit((parts.scheme, netloc, parts.path, "", "")), parts.query,
                  sanitize_url(url), list(clients), list(clients))


@dataclass
class Lease:
    """One connection of one server, held for one call."""

    server: Server
    """The chosen server."""
    client: httpx.AsyncClient
    """Its connection."""


class Balancer:
    """Hands out connections across servers (see the module docstring)."""

    def __init__(self, servers: list[Server], backoff: float, backoff_max: float) -> None:
        self.servers = servers
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.rng = random.Random()
        self.changed = asyncio.Event()
        self.picks = 0
        self.durations: deque[float] = deque(maxlen=64)
        """Seconds taken by recent successful calls (all servers)."""

    @property
    def several(self) -> bool:
        """More than one server."""
        return len(self.servers) > 1

    def _open(self, server: Server, now: float) -> bool:
        """Whether ``server`` may take one more call now."""
        if not server.clients:
            return False
        if not self.several:
            return True
        if server.resting_until > now:
            return False
        return server.failures == 0 or server.outstanding == 0  # one probe after a rest

    async def acquire(self, avoid: Server | None = None) -> Lease:
        """A connection of the least busy open server, other than ``avoid`` when another is
        open (waits while none is open)."""
        while True:
            now = time.monotonic()
            open_ = [s for s in self.servers if self._open(s, now)]
            open_ = [s for s in open_ if s is not avoid] or open_
            if open_:
                server = min(open_, key=lambda s: (s.outstanding, s.picked))
                self.picks += 1
                server.picked = self.picks
                server.outstanding += 1
                return Lease(server, server.clients.pop())
            wake = [s.resting_until - now for s in self.servers
                    if s.resting_until > now and s.clients]
            self.changed.clear()  # no await since the check: no release can be missed
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=min(wake) if wake else None)
            except TimeoutError:
                pass

    def release(self, lease: Lease, outcome: str, asked: float | None = None) -> None:
        """Give the connection back; ``outcome`` updates the server's health (``asked``: the
        server's ``Retry-After`` in seconds)."""
        server = lease.server
        server.outstanding -= 1
        server.clients.append(lease.client)
        if outcome == OK:
            server.failures = 0
            server.answered += 1
        elif outcome == FAILED:
            self.count_failure(server, asked)
        self.changed.set()

    def count_failure(self, server: Server, asked: float | None = None) -> None:
        """Count a server-side failure of ``server``: with several servers it rests."""
        server.failures += 1
        server.failed += 1
        if self.several:
            server.resting_until = time.monotonic() + self.rest(server.failures, asked)

    def record(self, seconds: float) -> None:
        """Remember how long a successful call took."""
        self.durations.append(seconds)

    def hedge_after(self) -> float | None:
        """Seconds after which a call is slow enough to be sent to another server too
        (``None``: a single server, or too few calls seen yet)."""
        if not self.several or len(self.durations) < HEDGE_SAMPLES:
            return None
        return max(HEDGE_MIN, HEDGE_FACTOR * statistics.median(self.durations))

    def other_open(self, server: Server | None) -> bool:
        """Whether a server other than ``server`` may take a call now."""
        now = time.monotonic()
        return any(s is not server and self._open(s, now) for s in self.servers)

    def rest(self, failures: int, asked: float | None) -> float:
        """Seconds a failing server rests: its ``Retry-After``, else the backoff doubled per
        consecutive failure (with jitter), at most ``backoff_max``."""
        if asked is not None:
            return asked
        ceiling = min(self.backoff_max, self.backoff * 2 ** (failures - 1))
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)

    def elsewhere(self) -> bool:
        """True when a healthy server is not resting (a failed call then retries there without
        waiting out its own backoff)."""
        now = time.monotonic()
        return self.several and any(s.failures == 0 and s.resting_until <= now
                                    for s in self.servers)

    async def aclose(self) -> None:
        """Close every connection."""
        for server in self.servers:
            for client in server.every:
                await client.aclose()
