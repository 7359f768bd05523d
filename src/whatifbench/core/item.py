"""The Item record: one question to pose to a model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("number", "yes-no", "choice", "text")
"""Answer kinds: a count, yes/no, one of ``choices``, or free text."""

ROLES = ("original", "counterfactual", "basic", "c2e", "e2c", "cue", "exp", "contrast")
"""Roles within a pair: C-VQA uses original/counterfactual, CFMM basic/counterfactual, MuCR
poses four questions about each cause/effect pair (c2e, e2c, cue, exp); the members of a
contrast set (CELLO ``shortcut-free``: one question about two or four images, answered
differently) are each ``contrast``."""
CONTRAST_ROLE = "contrast"
"""The role of every member of a contrast set (its ``pair_id`` names the set)."""
REPEATABLE_ROLES = (CONTRAST_ROLE,)
"""Roles that several items of one pair may share."""

FIELDS = ("id", "images", "question", "kind", "choices", "target", "pair_id", "role", "group",
          "meta", "provenance")


@dataclass(frozen=True)
class Item:
    """One question about one or more images, with its correct answer."""

    id: str
    """Unique id within the dataset."""
    images: tuple[str, ...]
    """Image paths relative to the dataset folder, in the order they are shown."""
    question: str
    """The question text, verbatim as it is posed (release wording kept, typos included)."""
    kind: str
    """One of ``KINDS``."""
    target: str
    """The correct answer; for ``choice`` items it is one of ``choices``."""
    choices: tuple[str, ...] = ()
    """Candidate answers for ``choice`` items (empty otherwise)."""
    pair_id: str | None = None
    """Items asked about the same image(s) as a pair share this id."""
    role: str | None = None
    """One of ``ROLES`` for paired items."""
    group: str | None = None
    """The suite's grouping (C-VQA type, CFMM category, CELLO task ...)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Suite-specific metadata (JSON values)."""
    provenance: dict[str, Any] = field(default_factory=dict)
    """How the item was made: seed, the program and parameters that computed the answer."""

    @property
    def unit(self) -> str:
        """The unit items are selected, dealt, shuffled and resampled by: the item's pair, or
        the item itself."""
        return self.pair_id if self.pair_id is not None else f"item:{self.id}"

    @property
    def target_index(self) -> int:
        """Position of ``target`` in ``choices`` (choice items only)."""
        return self.choices.index(self.target)

    def to_json(self) -> dict[str, Any]:
        """The item as a JSON object with keys in a fixed order."""
        return {
            "id": self.id,
            "images": list(self.images),
            "question": self.question,
            "kind": self.kind,
            "choices": list(self.choices),
            "target": self.target,
            "pair_id": self.pair_id,
            "role": self.role,
            "group": self.group,
            "meta": self.meta,
            "provenance": self.provenance,
        }


def item_from_json(obj: Any) -> tuple[Item | None, list[str]]:
    """Build an item from a parsed JSON line; return it or the list of problems found."""
    if not isinstance(obj, dict):
        return None, ["the line is not a JSON object"]
    problems: list[str] = []
    unknown = sorted(set(obj) - set(FIELDS))
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}")

    def text(name: str, required: bool = True) -> str | None:
        value = obj.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value):
            problems.append(f"field '{name}' must be a non-empty string, got {value!r}")
            return None
        return value

    def strings(name: str) -> tuple[str, ...]:
        value = obj.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(f"field '{name}' must be a list of strings, got {value!r}")
            return ()
        return tuple(value)

    def mapping(name: str) -> dict[str, Any]:
        value = obj.get(name, {})
        if not isinstance(value, dict):
            problems.append(f"field '{name}' must be an object, got {value!r}")
            return {}
        return value

    item_id = text("id")
    question = text("question")
    kind = text("kind")
    target = obj.get("target")
    if not isinstance(target, str):
        problems.append(f"field 'target' must be a string, got {target!r}")
    images = strings("images")
    choices = strings("choices")
    pair_id = text("pair_id", required=False)
    role = text("role", required=False)
    group = text("group", required=False)
    meta = mapping("meta")
    provenance = mapping("provenance")
    if kind is not None and kind not in KINDS:
        problems.append(f"field 'kind' is {kind!r}; use one of {', '.join(KINDS)}")
    if role is not None and role not in ROLES:
        problems.append(f"field 'role' is {role!r}; use one of {', '.join(ROLES)}")
    if (role is None) != (pair_id is None):
        problems.append("fields 'pair_id' and 'role' must be given together")
    for path in images:
        if path.startswith("/") or ".." in path.split("/"):
            problems.append(f"image path {path!r} must be relative to the dataset folder")
    if kind == "choice":
        if len(choices) < 2:
            problems.append("a choice item needs at least two 'choices'")
        elif len(set(choices)) != len(choices):
            problems.append(f"'choices' {list(choices)} contain duplicates")
        elif isinstance(target, str) and target not in choices:
            problems.append(f"'target' {target!r} is not one of the choices {list(choices)}")
    if problems:
        return None, problems
    assert item_id and question and kind and isinstance(target, str)
    return Item(item_id, images, question, kind, target, choices, pair_id, role, group, meta,
                provenance), []
