"""Validity filters: reject scenes and questions whose answer could be read two ways.

- near-ties: sizes within ``SIZE_TIE`` (relative), positions within ``POSITION_TIE`` pixels,
  equal counts where a comparison is asked (selectors and programs report these through their
  ``ambiguities(scene)``, built on the helpers here);
- hidden objects: solid objects overlapping each other, objects touching a container's line or
  leaving the canvas (``scene_problems``);
- leakage: the premise text states the answer (``leaks``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from whatifbench.scenes.geometry import containment, footprint, object_bbox, overlaps
from whatifbench.scenes.model import Scene, SceneObject

SIZE_TIE = 0.15
"""Two sizes (areas) closer than this share of the larger are a near-tie."""
POSITION_TIE = 6.0
"""Two positions closer than this many pixels are a near-tie."""
GAP = 2.0
"""Solid objects closer than this many pixels count as overlapping."""

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty")


def size_tie(a: float, b: float, rel: float = SIZE_TIE) -> bool:
    """Are two sizes within ``rel`` of the larger one?"""
    return abs(a - b) < rel * max(abs(a), abs(b))


def position_tie(a: float, b: float, px: float = POSITION_TIE) -> bool:
    """Are two coordinates within ``px`` pixels?"""
    return abs(a - b) < px


def crossing_pairs(scene: Scene, objects: Sequence[SceneObject],
                   containers: Sequence[SceneObject], margin: float = 0.0) -> list[tuple[str, str]]:
    """(object, container) id pairs of ``scene`` where the object comes within ``margin`` pixels
    of the container's line."""
    containers = [c for c in containers if c.is_container]
    if not objects or not containers:
        return []
    table = containment(scene)
    rows = [table.rows[o.id] for o in objects]
    cols = [table.cols[c.id] for c in containers]
    near = table.clearance.take(rows, axis=0).take(cols, axis=1) < margin
    return [(objects[i].id, containers[j].id) for i, j in zip(*np.nonzero(near), strict=True)
            if objects[i].id != containers[j].id]


def overlapping_pairs(objects: Sequence[SceneObject], gap: float = GAP) -> list[tuple[str, str]]:
    """Pairs of objects whose shapes overlap or come closer than ``gap`` pixels."""
    if len(objects) < 2:
        return []
    xs = np.array([o.x for o in objects])
    ys = np.array([o.y for o in objects])
    reach = np.array([footprint(o) for o in objects])
    dist = np.hypot(xs[:, None] - xs[None, :], ys[:, None] - ys[None, :])
    near = np.triu(dist < reach[:, None] + reach[None, :] + gap, k=1)
    return [(objects[i].id, objects[j].id) for i, j in zip(*np.nonzero(near), strict=True)
            if overlaps(objects[i], objects[j], gap)]


def scene_problems(scene: Scene, gap: float = GAP) -> list[str]:
    """Why objects could be hidden or misread: off the canvas, overlapping, on a line."""
    table = containment(scene)
    objects = scene.objects
    problems = []
    solid = []
    for i, o in enumerate(objects):
        if not o.is_container:
            solid.append(i)
            continue
        x0, y0, x1, y1 = object_bbox(o)
        if x0 < 0 or y0 < 0 or x1 > scene.width - 1 or y1 > scene.height - 1:
            problems.append(f"{o.id} leaves the canvas")
    if solid:
        xs, ys, reach = table.xs[solid], table.ys[solid], table.reach[solid]
        out = (xs - reach < 0) | (ys - reach < 0) | (xs + reach > scene.width - 1) | (
            ys + reach > scene.height - 1)
        if out.any():
            problems += [f"{objects[solid[i]].id} leaves the canvas"
                         for i in np.flatnonzero(out).tolist()]
        dist = np.hypot(xs[:, None] - xs[None, :], ys[:, None] - ys[None, :])
        first, second = np.nonzero(dist < reach[:, None] + reach[None, :] + gap)
        pair = first < second
        if pair.any():
            for i, j in zip(first[pair].tolist(), second[pair].tolist(), strict=True):
                a, b = objects[solid[i]], objects[solid[j]]
                if overlaps(a, b, gap):
                    problems.append(f"{a.id} overlaps {b.id}")
        if table.cols:
            near = table.clearance[solid] < gap
            if near.any():
                names = list(table.cols)
                problems += [f"{objects[solid[i]].id} touches the line of {names[j]}"
                             for i, j in zip(*np.nonzero(near), strict=True)]
    return problems


def answer_words(answer: object) -> set[str]:
    """The ways an answer can be written in a sentence (digits and number words for counts)."""
    if isinstance(answer, bool):
        return {"yes" if answer else "no"}
    words = {str(answer).lower()}
    if isinstance(answer, int) and 0 <= answer < len(NUMBER_WORDS):
        words.add(NUMBER_WORDS[answer])
    return words


def leaks(premise: str, answer: object) -> bool:
    """Does the premise text contain the answer as a word (``2``, ``two``, ``red`` ...)?"""
    tokens = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", premise.lower()))
    return bool(tokens & answer_words(answer))
