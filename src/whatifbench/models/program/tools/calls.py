"""Model calls of program backends (code generation, VQA, LLM, detector, depth), through the run
store when the runner attached one: a repeated call is served from the store, a new one is
stored as it arrives (resume, free reruns, and shared tool answers across code LLMs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend


class ModelCalls:
    """Generate through the run store (when attached) or directly."""

    def __init__(self) -> None:
        self.store: Any = None
        """The run store (``runner.store.RunStore``), or ``None``: calls are not cached."""
        self.from_store = 0
        """Calls served by the store."""
        self.computed = 0
        """Calls made."""

    def generate(self, backend: Backend, requests: Sequence[Request]) -> list[Response]:
        """One response per request, in order."""
        if not requests:
            return []
        if self.store is not None:
            from whatifbench.runner.cached import generate_cached

            got = generate_cached(backend, requests, self.store, label=f"{backend.spec} calls")
            self.from_store += got.from_store
            self.computed += got.computed
            return list(got.responses)
        out: list[Response | None] = [None] * len(requests)
        for i, response in backend.generate(requests):
            out[i] = response
        self.computed += len(requests)
        return [r if r is not None else Response(error=f"{backend.spec} gave no response")
                for r in out]

    def __getstate__(self) -> dict[str, Any]:
        """Copies sent to other processes (remote executors) leave the store behind: only the
        driver writes it."""
        return {**self.__dict__, "store": None}

    def one(self, backend: Backend, request: Request) -> Response:
        """The response to one request."""
        return self.generate(backend, [request])[0]
