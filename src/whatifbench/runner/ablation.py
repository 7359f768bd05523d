"""Image ablation (``whatif run --image-ablation``): a transform of built requests, the same for
every backend, so that no backend learns what "blank" or "shuffled" means.

- ``blank``: each image of the question is replaced by a mid-grey image of the same size;
- ``shuffled``: each item gets, in place of its own, the images of an item of another pair (the
  same role where the other pair has one), by a seeded permutation of the pairs that show images
  that leaves none in place and never gives a pair images it already shows (a question without
  an image keeps none);
- ``none``: the question is sent without its images.

Only the question's own turn (the last) is changed: a one-shot demonstration keeps its image
and its answer. The image bytes enter the cache key (``requests.request_key``), so ablated
answers never mix with unablated ones in the run store.
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from whatifbench.core.protocol import ABLATIONS
from whatifbench.core.records.spec import AblationRef, RunSpec
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError

GREY = (128, 128, 128)
"""The colour of a blank image (mid-grey RGB)."""


@dataclass(frozen=True)
class ImageAblation:
    """Which ablation a run applies to the images of its questions."""

    kind: str
    """One of ``ABLATIONS``."""
    seed: int = 0
    """Seed of the ``shuffled`` permutation (the run's ``--seed``)."""

    def __post_init__(self) -> None:
        if self.kind not in ABLATIONS:
            raise WhatifError(f"Unknown image ablation {self.kind!r}; use one of "
                              f"{', '.join(ABLATIONS)}.")

    def record(self) -> AblationRef:
        """The record in the run spec (``spec.image_ablation``); the seed only where it
        matters. ``checked``: the backend and the suite were asked whether the ablation can
        take the image away (runs of older versions lack it, and reports draw no conclusion
        from them)."""
        return AblationRef(self.kind, True, self.seed if self.kind == "shuffled" else None)


def ablation_of(spec: RunSpec) -> str | None:
    """The ablation kind a run spec records (``None``: the images were sent as they are)."""
    return spec.image_ablation.kind if spec.image_ablation is not None else None


def ablation_checked(spec: RunSpec) -> bool:
    """Whether a run's ablation was checked to apply to its model and items before it ran
    (runs of older versions were not: an oracle, for one, ignored it)."""
    return spec.image_ablation is not None and spec.image_ablation.checked


def ablate(requests: Sequence[Request], ablation: ImageAblation) -> list[Request]:
    """The requests with the images of their question turn ablated (see the module docstring).
    The requests must carry their items (``Request.item``), as ``RequestBuilder`` makes them."""
    if ablation.kind == "none":
        return [_with_images(r, None) for r in requests]
    if ablation.kind == "blank":
        return [_with_images(r, [blank_image(p) for p in r.turns[-1].images]) for r in requests]
    shown = [r for r in requests if r.turns[-1].images]  # a text-only question has none to swap
    donors = shuffle_donors([unit_of(r) for r in shown],
                            [frozenset(r.turns[-1].images) for r in shown], ablation.seed)
    by_unit: dict[str, list[Request]] = {}
    for r in shown:
        by_unit.setdefault(unit_of(r), []).append(r)
    out = []
    for r in requests:
        if not r.turns[-1].images:
            out.append(r)
            continue
        candidates = by_unit[donors[unit_of(r)]]
        role = r.item.role if r.item is not None else None
        donor = next((c for c in candidates if c.item is not None and c.item.role == role),
                     candidates[0])
        out.append(_with_images(r, list(donor.turns[-1].images)))
    return out


def unit_of(request: Request) -> str:
    """The unit whose images are shuffled together: the item's pair, or the item itself."""
    item = request.item
    if item is None:
        raise ValueError("ablate() needs requests that carry their items")
    return item.unit


def shuffle_donors(units: Sequence[str], images: Sequence[frozenset[str]],
                   seed: int) -> dict[str, str]:
    """For each unit (in first-seen order), the unit whose images it gets: a seeded cyclic
    permutation (Sattolo's algorithm, so no unit keeps its own), then repaired by swaps so that
    no unit gets an image it already shows (two pairs about one photograph). ``images``: the
    images of each entry of ``units``."""
    order = list(dict.fromkeys(units))
    shown: dict[str, set[str]] = {}
    for unit, found in zip(units, images, strict=True):
        shown.setdefault(unit, set()).update(found)
    if len(order) < 2:
        raise WhatifError("--image-ablation shuffled needs at least two pairs (or unpaired "
                          "items) to exchange images between; evaluate more items.")
    rng = random.Random(f"image-ablation:{seed}")
    perm = list(range(len(order)))
    for i in range(len(perm) - 1, 0, -1):  # Sattolo: a single cycle, no fixed point
        j = rng.randrange(i)
        perm[i], perm[j] = perm[j], perm[i]

    def clash(i: int, j: int) -> bool:
        return i == j or bool(shown[order[i]] & shown[order[j]])

    for i in range(len(order)):
        if not clash(i, perm[i]):
            continue
        for j in range(len(order)):
            if not clash(i, perm[j]) and not clash(j, perm[i]):
                perm[i], perm[j] = perm[j], perm[i]
                break
        else:
            raise WhatifError(
                f"--image-ablation shuffled found no other pair whose images differ from those "
                f"of {order[i]}; the evaluated items show too few distinct images.")
    return {order[i]: order[perm[i]] for i in range(len(order))}


def _with_images(request: Request, images: list[str] | None) -> Request:
    """``request`` with the image parts of its last turn replaced in order by ``images``
    (cycled when it holds fewer), or removed (``None``)."""
    last = request.turns[-1]
    parts: list[Part] = []
    k = 0
    for part in last.parts:
        if not part.is_image:
            parts.append(part)
        elif images:
            parts.append(Part(image=images[k % len(images)]))
            k += 1
    turns = (*request.turns[:-1], Turn(last.role, tuple(parts)))
    return replace(request, turns=turns)


def blank_image(path: str) -> str:
    """The path of a mid-grey PNG of the size of the image at ``path``."""
    from whatifbench.core.images import open_image

    try:
        with open_image(path) as img:
            width, height = img.size
    except OSError as exc:
        raise WhatifError(f"Cannot read the image {path} to blank it ({exc.strerror or exc})."
                          ) from None
    return grey_file(width, height)


def grey_file(width: int, height: int) -> str:
    """A mid-grey PNG of this size, written once under ``$WHATIF_HOME/ablation`` (named by its
    size; the same bytes on every machine)."""
    from PIL import Image

    from whatifbench.core.fsutil import cached_file
    from whatifbench.runner.store import whatif_home

    def grey() -> bytes:
        buffer = io.BytesIO()
        Image.new("RGB", (width, height), GREY).save(buffer, format="PNG", optimize=False)
        return buffer.getvalue()

    return str(cached_file(whatif_home() / "ablation" / f"grey-{width}x{height}.png", grey))
