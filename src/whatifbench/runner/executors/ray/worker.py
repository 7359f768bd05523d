"""What a Ray actor does: hold one backend, answer batches of requests, keep shipped images.

Images travel as bytes: the driver replaces an image path by a content name
(``<sha256><suffix>``) and sends the bytes the actor has not had yet; the actor writes them into
its own temporary folder once and answers with paths there. Actors on the driver's own node
receive the paths unchanged. This module is imported on the workers; it needs Ray only for
``ray.get`` of the prepared items.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from whatifbench import __version__
from whatifbench.core.protocol import ABLATIONS
from whatifbench.core.readfile import read_bytes
from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.errors import WhatifError

CONTENT_NAME = re.compile(r"[0-9a-f]{64}(\.[A-Za-z0-9]{1,8})?")


@dataclass(frozen=True)
class Batch:
    """One piece of work for an actor."""

    mode: str
    """``generate`` or ``rank``."""
    requests: tuple[Request, ...]
    """The requests; image parts hold paths, or content names for actors on other nodes."""
    images: Mapping[str, bytes]
    """Bytes of content names the actor may not have yet."""
    prepared: tuple[int, list[Any]] | None = None
    """``(token, [object ref of the items])`` given to ``Backend.prepare``; an actor that has
    not prepared ``token`` yet (a new or restarted one) does so first."""


@dataclass(frozen=True)
class Answered:
    """The responses of a batch, as ``(index in the batch, response)``."""

    results: list[tuple[int, Response]]
    """All of the batch's requests, in the order the backend finished them."""


@dataclass(frozen=True)
class Missing:
    """The actor lacks these images (it was restarted since they were sent): send again."""

    names: tuple[str, ...]
    """Content names without a file on the actor."""


@dataclass(frozen=True)
class Refused:
    """The backend raised ``WhatifError`` (a user mistake): the driver stops with it."""

    message: str
    """The error's text."""


def content_name(digest: str, path: str) -> str:
    """The name an image travels under: its sha256 and its suffix (backends may read the
    format from it)."""
    suffix = Path(path).suffix.lower()
    return digest + (suffix if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) else "")


def map_images(request: Request, rename: Mapping[str, str]) -> Request:
    """``request`` with each image path replaced by ``rename[path]``."""
    turns = tuple(
        Turn(t.role, tuple(Part(image=rename[p.image]) if p.image is not None else p
                           for p in t.parts))
        for t in request.turns)
    return replace(request, turns=turns)


class BackendWorker:
    """The actor: one backend instance built from the spec and the ``-M`` arguments."""

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        from whatifbench.models.make import make_backend

        self.folder = Path(tempfile.mkdtemp(prefix="whatif-ray-images-"))
        self.prepared: int | None = None
        self.refusal: str | None = None
        self.backend = None
        try:
            self.backend = make_backend(spec, args)
        except WhatifError as exc:
            self.refusal = str(exc)

    def identity(self) -> dict[str, Any]:
        """What the driver needs to know: the backend's public description, cache identity,
        capabilities, and where this actor runs."""
        import ray

        out: dict[str, Any] = {"refusal": self.refusal, "pid": os.getpid(),
                               "node": ray.get_runtime_context().get_node_id(),
                               "whatifbench": __version__}
        if self.backend is not None:
            out.update(describe=self.backend.describe(),
                       cache_identity=self.backend.cache_identity(),
                       capabilities=asdict(self.backend.capabilities),
                       execution_args=sorted(self.backend.execution_args),
                       ablation_refusals={kind: self.backend.ablation_refusal(kind)
                                          for kind in ABLATIONS},
                       model_type=getattr(self.backend, "model_type", ""),
                       text_model_type=getattr(self.backend, "text_model_type", ""))
        return out

    def run(self, batch: Batch) -> Answered | Missing | Refused:
        """Answer a batch (``WhatifError`` comes back as ``Refused``; other exceptions are
        bugs and reach the driver as Ray task errors)."""
        if self.backend is None:
            return Refused(self.refusal or "the backend could not be created")
        rename: dict[str, str] = {}
        lacking: list[str] = []
        for request in batch.requests:
            for name in request.images:
                if name in rename:
                    continue
                if os.path.isabs(name):  # on the driver's node: its own path
                    rename[name] = name
                    continue
                if not CONTENT_NAME.fullmatch(name):
                    raise ValueError(f"not a content name: {name!r}")
                path = self.folder / name
                if not path.exists():
                    data = batch.images.get(name)
                    if data is None:
                        lacking.append(name)
                        continue
                    tmp = path.with_name(f".{name}.tmp")
                    tmp.write_bytes(data)
                    tmp.replace(path)
                rename[name] = str(path)
        if lacking:
            return Missing(tuple(lacking))
        requests = [map_images(r, rename) if rename else r for r in batch.requests]
        try:
            self._prepare(batch.prepared)
            stream = (self.backend.score(requests) if batch.mode == "rank"
                      else self.backend.generate(requests))
            return Answered(list(stream))
        except WhatifError as exc:
            return Refused(str(exc))

    def _prepare(self, prepared: tuple[int, list[Any]] | None) -> None:
        if prepared is None or prepared[0] == self.prepared or self.backend is None:
            return
        import ray

        self.backend.prepare(ray.get(prepared[1][0]))
        self.prepared = prepared[0]

    def explain(self, mode: str) -> str | None:
        """The backend's own message when it cannot answer in ``mode`` at all."""
        if self.backend is None:
            return self.refusal
        try:
            list(self.backend.score([]) if mode == "rank" else self.backend.generate([]))
        except WhatifError as exc:
            return str(exc)
        return None

    def inapplicable(self, suite: str, generator: str | None) -> str | None:
        """The backend's reason for not answering items of ``suite`` (``Backend.inapplicable``;
        a backend that could not be created answers nothing, and says why when asked to)."""
        if self.backend is None:
            return None
        return self.backend.inapplicable(suite, generator)

    def close(self) -> None:
        """Release the backend and the image folder."""
        if self.backend is not None:
            self.backend.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def ship(requests: Sequence[Request], digest: Any, sent: set[str],
         ) -> tuple[tuple[Request, ...], dict[str, bytes]]:
    """Requests for an actor on another node: image paths become content names; the bytes of
    names not in ``sent`` are read (and added to ``sent``). ``digest(path)`` is the file's
    sha256."""
    rename: dict[str, str] = {}
    images: dict[str, bytes] = {}
    for request in requests:
        for path in request.images:
            if path in rename:
                continue
            name = content_name(digest(path), path)
            rename[path] = name
            if name not in sent:
                images[name] = read_bytes(path)
                sent.add(name)
    shipped = tuple(map_images(r, rename) if r.images else r for r in requests)
    return shipped, images
