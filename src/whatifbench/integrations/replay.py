"""Score replies that another tool collected with whatifbench's own pipeline.

``ReplayBackend`` answers each request with the reply logged for its item, so ``evaluate`` runs
unchanged: our prompts are rebuilt (and checked against what the tool sent), our parsers and
judges score the replies, and the suite's metrics, intervals and reports follow.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench import secrets
from whatifbench.core.dataset import Dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.records.spec import Selection
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import GENERATE
from whatifbench.models.base import Backend
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.results import RunResult
from whatifbench.runner.store import RunStore


class ReplayBackend(Backend):
    """Replies recorded elsewhere, by item id (a request for another item is a bug)."""

    capabilities = Capabilities(generate=True, rank=False, multi_image=True)

    def __init__(self, spec: str, args: Mapping[str, Any], replies: Mapping[str, str],
                 version: str) -> None:
        super().__init__(spec, args)
        self.replies = dict(replies)
        self._version = version

    @property
    def version(self) -> str:
        """The recorded file's sha256: other recordings never share cache entries."""
        return self._version

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """The recorded reply of each request's item."""
        for i, request in enumerate(requests):
            yield i, Response(text=self.replies[request.item_id])


def replay(dataset: Dataset, backend: ReplayBackend, source: dict[str, Any],
           store: str | Path | RunStore | None = None, max_new_tokens: int | None = None,
           protocol: Protocol | None = None) -> RunResult:
    """Evaluate the dataset's recorded items with ``backend``; ``source`` (the tool, file, task,
    model ...) is added to the run spec. Replies and judge calls (MuCR's explanations) go
    through the run store as in ``whatif run`` (``store``, default ``$WHATIF_HOME``'s), so a
    repeated import makes no judge calls; an open ``RunStore`` is used and left open (many
    replays in a row). ``protocol`` is how the replies were asked for (default: ``GENERATE``
    with ``max_new_tokens``)."""
    chosen = tuple(item for item in dataset.items if item.id in backend.replies)
    if not chosen:
        raise WhatifError(f"None of the recorded replies belong to items of {dataset.root}.")
    subset = replace(dataset, items=chosen)
    protocol = protocol or replace(GENERATE, max_new_tokens=max_new_tokens)
    run_store = store if isinstance(store, RunStore) else RunStore(store)
    try:
        result = evaluate(subset, backend, protocol, run_store, RunOptions(progress=False))
    finally:
        if run_store is not store:
            run_store.close()
    selection = replace(result.spec.selection or Selection(), items=len(chosen),
                        of=len(dataset.items))
    return replace(result, spec=replace(result.spec, source=secrets.redact_value(source),
                                        selection=selection))
