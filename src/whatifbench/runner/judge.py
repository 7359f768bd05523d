"""Cached access to a judge backend while a suite grades free-text answers (MuCR Exp).

A judge is any registered backend (``openai:MODEL``, ``hf:PATH``, ``embedding:NAME`` ...). Its
calls go through the run store exactly like the model's: keyed by the judge's spec, public
arguments, version and the request content, so a repeated run makes no judge calls and a changed
judge never hits stale entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.make import make_backend

Fetch = Callable[[Backend, str, Sequence[Request]], list[Response]]
"""``(backend, mode, requests) → responses`` through the run store (the runner's cache)."""


class JudgeRuntime:
    """The judge of one run, created on first use; ``describe`` is ``None`` when unused."""

    def __init__(self, spec: str | None, args: Mapping[str, Any], fetch: Fetch,
                 chosen: bool = True) -> None:
        self.spec = spec
        self.args = dict(args)
        self._fetch = fetch
        self._backend: Backend | None = None
        self._facts: dict[str, Any] = {}
        self.chosen = chosen
        """The user named this judge (``--judge``); else it is the suite's default."""
        self.unavailable: str | None = None
        """Why the suite's default judge cannot be used (set by ``preflight``); the suite then
        reports its judged metric as not judged instead of failing the run."""

    def preflight(self) -> None:
        """Create the judge now, before any model call. A judge the user chose must work (its
        error stops the run); the suite's default judge that cannot be created (an optional
        extra is not installed) is recorded in ``unavailable``."""
        if self.unavailable is not None or not self.spec:
            return  # no judge named: a suite that needs one says so when it asks
        try:
            _ = self.backend  # created (and checked) now
        except WhatifError as exc:
            if self.chosen:
                raise
            self.unavailable = str(exc)

    @property
    def backend(self) -> Backend:
        """The judge backend (instantiated once)."""
        if self._backend is None:
            if not self.spec:
                raise WhatifError(
                    "This suite grades free-text answers with a judge, and none was chosen; "
                    "pass --judge SPEC (e.g. --judge openai:gpt-4o)."
                )
            self._backend = make_backend(self.spec, self.args)
        return self._backend

    def ask(self, requests: Sequence[Request], mode: str = "generate") -> list[Response]:
        """The judge's responses (``generate`` or ``rank``), from the store when cached."""
        if not requests:
            return []
        return self._fetch(self.backend, mode, requests)

    def record(self, **facts: Any) -> None:
        """Facts about the grading (prompt, weights, score mapping) kept in the run spec."""
        self._facts.update(facts)

    def describe(self) -> dict[str, Any] | None:
        """``{"backend": ..., **facts}`` for the run spec, or ``None`` when no judge was used
        (``{"unavailable": ...}`` when the default judge could not be used)."""
        if self.unavailable is not None:
            return {"spec": self.spec, "unavailable": self.unavailable}
        if self._backend is None:
            return None
        return {"backend": self._backend.describe(), **self._facts}

    def close(self) -> None:
        """Release the judge backend."""
        if self._backend is not None:
            self._backend.close()
