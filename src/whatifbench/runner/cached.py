"""Generate with caching: any pipeline's model calls go through the run store.

Construction pipelines (C-VQA-Real question rewriting, CELLO rewriting, MuCR) call
``generate_cached`` instead of ``backend.generate``: stored successful responses are served from
the store, the rest are computed and stored one by one as they arrive, so an interrupted
pipeline resumes where it stopped and a repeat costs no model calls. Keys are the evaluation
runner's (``runner.requests.request_key``), so the same request shares one cache entry.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend
from whatifbench.runner.requests import ImageHasher, request_key
from whatifbench.runner.store import RunStore


@dataclass(frozen=True)
class Cached:
    """The responses to a list of requests, and where they came from."""

    responses: tuple[Response, ...]
    """One response per request, in request order (failed calls carry ``error``)."""
    from_store: int
    """Responses served by the run store."""
    computed: int
    """Responses computed by the backend in this call."""
    errors: int
    """Requests whose call failed after the backend's retries (not cached; retried next time)."""


def generate_cached(backend: Backend, requests: Sequence[Request], store: RunStore, *,
                    mode: str = "generate", progress: bool = False,
                    label: str = "generate") -> Cached:
    """Responses for ``requests`` (``mode`` ``generate`` or ``rank``), stored as they arrive."""
    hasher = ImageHasher()
    keys = [request_key(backend, mode, r, hasher) for r in requests]
    stored = store.get_many(keys)
    out: list[Response | None] = [stored.get(k) for k in keys]
    pending = [i for i, r in enumerate(out) if r is None]
    computed = errors = 0
    if pending:
        backend.load()  # weights first: a model's own loading bar never cuts across ours
        from tqdm import tqdm  # imported only when there is work to show

        bar = tqdm(total=len(requests), initial=len(requests) - len(pending), desc=label,
                   unit="call", disable=not progress or None, file=sys.stderr, leave=False)
        try:
            todo = [requests[i] for i in pending]
            stream = backend.score(todo) if mode == "rank" else backend.generate(todo)
            try:
                for j, response in stream:
                    i = pending[j]
                    # As stored: credentials removed, an empty reply made a failed call.
                    out[i] = response = store.put(keys[i], backend.spec, requests[i].item_id,
                                                  response)
                    computed += 1
                    errors += response.error is not None
                    bar.update(1)
            finally:
                _close(stream)  # at once (also on Ctrl-C): backends release connections
        finally:
            bar.close()
    missing = [requests[i].item_id for i, r in enumerate(out) if r is None]
    if missing:
        raise RuntimeError(f"backend {backend.spec} returned no response for {missing[:5]}")
    return Cached(tuple(r for r in out if r is not None), len(requests) - len(pending),
                  computed, errors)


def _close(stream: Iterator[tuple[int, Response]]) -> None:
    close = getattr(stream, "close", None)
    if close is not None:
        close()
