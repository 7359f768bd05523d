"""Image and text distractors (the graph distractor comes from the task's rule).

* **image distractor**: an object of the image that takes part in no causal relationship (it is
  not a node of the image's causal graph) and reads as none of the graph's objects;
* **text distractor**: an object in neither the image nor the graph, induced by the question's
  wording: the object name most associated with the question's entities across the other scene
  graphs of the input, scored ``c² / f`` where ``c`` counts the scene graphs it shares with
  them and ``f`` the scene graphs it occurs in (shared often, and specific to them; ties: larger
  ``c``, then alphabetical); when no name co-occurs, the most frequent name absent from the
  image.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import networkx as nx

from whatifbench.suites.cello.causal.entities import Entity, same_thing
from whatifbench.suites.cello.causal.scene_graph import SceneGraph, SceneObject


def entity(obj: SceneObject) -> Entity:
    """The entity an object is named as."""
    return Entity(obj.name, obj.synsets)


class NameIndex:
    """Object names over all input scene graphs: image frequency and co-occurrence."""

    def __init__(self, scenes: Sequence[SceneGraph]) -> None:
        self._scenes_with: dict[str, list[int]] = {}
        self._names: list[tuple[str, ...]] = []
        spellings: dict[str, Counter[str]] = {}
        synsets: dict[str, Counter[tuple[str, ...]]] = {}
        for index, scene in enumerate(scenes):
            names = set()
            for obj in scene.objects:
                key = obj.name.lower()
                names.add(key)
                spellings.setdefault(key, Counter())[obj.name] += 1
                synsets.setdefault(key, Counter())[obj.synsets] += 1
            self._names.append(tuple(sorted(names)))
            for key in names:
                self._scenes_with.setdefault(key, []).append(index)
        self.frequency = Counter({k: len(v) for k, v in self._scenes_with.items()})
        """Name → number of scene graphs that contain it."""
        self._entities = {
            key: Entity(min(spellings[key], key=lambda s: (-spellings[key][s], s)),
                        min(synsets[key], key=lambda s: (-synsets[key][s], s)))
            for key in spellings
        }
        self._by_frequency = sorted(self.frequency, key=lambda k: (-self.frequency[k], k))
        self._cooccurring: dict[str, Counter[str]] = {}

    def cooccurring(self, name: str) -> Counter[str]:
        """Other names → number of scene graphs they share with ``name`` (cached)."""
        key = name.lower()
        if key not in self._cooccurring:
            counts: Counter[str] = Counter()
            for index in self._scenes_with.get(key, ()):
                counts.update(n for n in self._names[index] if n != key)
            self._cooccurring[key] = counts
        return self._cooccurring[key]

    def text_distractor(self, named: Sequence[Entity],
                        exclude: Sequence[Entity]) -> tuple[Entity, dict[str, Any]] | None:
        """The text distractor for a question naming ``named``; ``exclude``: every object of the
        image and every other option. Returns the entity and how it was chosen."""
        forms: set[str] = set()
        synsets: set[str] = set()
        for e in exclude:
            forms |= e.forms()
            synsets |= set(e.synsets)

        def usable(key: str) -> bool:
            candidate = self._entities[key]
            return not (candidate.forms() & forms) and not (set(candidate.synsets) & synsets)

        shared: Counter[str] = Counter()
        for e in named:
            shared.update(self.cooccurring(e.name))
        score = {k: c * c / self.frequency[k] for k, c in shared.items()}
        for key in sorted(score, key=lambda k: (-score[k], -shared[k], k)):
            if usable(key):
                return self._entities[key], {
                    "rule": "co-occurrence", "shared": shared[key],
                    "frequency": self.frequency[key], "with": [e.name for e in named]}
        for key in self._by_frequency:
            if usable(key):
                return self._entities[key], {"rule": "frequency", "images": self.frequency[key]}
        return None


def image_distractor(scene: SceneGraph, graph: nx.DiGraph, avoid: Sequence[Entity],
                     rng: random.Random) -> SceneObject | None:
    """A seeded choice among the image's objects outside the causal graph that read as none of
    the graph's objects nor of ``avoid``."""
    in_graph = [entity(graph.nodes[n]["obj"]) for n in graph]
    taken = [*in_graph, *avoid]
    seen: set[str] = set()
    candidates: list[SceneObject] = []
    for obj in sorted(scene.objects, key=lambda o: (o.name.lower(), o.object_id)):
        key = obj.name.lower()
        if obj.object_id in graph or key in seen:
            continue
        seen.add(key)
        if not any(same_thing(entity(obj), t) for t in taken):
            candidates.append(obj)
    return rng.choice(candidates) if candidates else None
