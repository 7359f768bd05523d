"""The fields probes: every field a harness can show a model besides the question, read as a
blind guesser would.

An item's public view (``core.public``: its meta without the suite's private keys, the public
part of its provenance) and every column of each export (``exports``: the Hugging Face and
lmms-eval rows, the VLMEvalKit TSV, the inspect samples) are flattened to fields
(``meta.candidates[2]``, ``provenance.premise_kind``, ``hint`` …). Per item and option the
features are

- the field's value crossed with the option's position and with the option's text (a value
  that comes with one answer: ``answer_index=2`` → the third option, ``wide=true`` → "no");
- the option named by a field (its text equals the value, or is contained in it), the option's
  image named by a field, the option's position equal to a numeric field;
- for a list field as long as the options, its element at the option's position equal to
  another field (``meta.candidates[j] == meta.record``: the answer's position read off two
  fields).

The guesser and its control (the fields moved to other items of the same type) are those of
the other metadata probes (``learners.row_guesses``); a probe is flagged under the same rule.
Long texts (the question, the prompt) are the text baselines' business and are only searched
for an option's name, never taken as values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from whatifbench.analysis.audit.baselines import SEED
from whatifbench.analysis.audit.metadata import MetaView
from whatifbench.analysis.audit.probes import ProbeOutcome, row_probe
from whatifbench.analysis.audit.text import normal

VALUE_CHARS = 48
"""Values up to this long are features themselves (longer ones are only searched)."""
SEARCH_CHARS = 4000
"""Values up to this long are searched for an option's name."""
MAX_LEAVES = 400
"""Most fields taken from one item's view (a scene graph is not read whole)."""
MAX_DEPTH = 5
"""Nesting read at most."""
OPTION_CHARS = 32
"""Option texts up to this long are crossed with field values."""

Fields = dict[str, str]
"""A flattened view: field path → value as text (lists also as a whole, ``path[]``)."""


def flatten(value: Any, path: str = "", out: Fields | None = None,
            lists: dict[str, list[str]] | None = None, depth: int = 0
            ) -> tuple[Fields, dict[str, list[str]]]:
    """The scalar leaves of a JSON value (``a.b[2]`` → text) and its lists of scalars."""
    out = {} if out is None else out
    lists = {} if lists is None else lists
    if len(out) >= MAX_LEAVES or depth > MAX_DEPTH:
        return out, lists
    if isinstance(value, dict):
        for key, inner in value.items():
            flatten(inner, f"{path}.{key}" if path else str(key), out, lists, depth + 1)
    elif isinstance(value, (list, tuple)):
        scalars = [v for v in value if not isinstance(v, (dict, list, tuple))]
        if scalars and len(scalars) == len(value):
            lists[path] = [_text(v) for v in value]
        for k, inner in enumerate(value[:MAX_LEAVES]):
            flatten(inner, f"{path}[{k}]", out, lists, depth + 1)
    elif value is not None:
        out[path] = _text(value)
    return out, lists


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def field_features(view: MetaView, rows: Sequence[Mapping[str, Any]]) -> list[list[list[str]]]:
    """Per item and option the features of ``rows[i]`` (the item's shown fields, a JSON
    object), as the module docstring lists them."""
    out: list[list[list[str]]] = []
    for i in range(view.n):
        leaves, lists = flatten(dict(rows[i]))
        scalars = {p: normal(v) for p, v in leaves.items() if len(v) <= SEARCH_CHARS}
        short = {p: v for p, v in scalars.items() if len(v) <= VALUE_CHARS}
        numbers = {p: int(v) for p, v in short.items() if v.isdigit() and len(v) <= 3}
        k = len(view.choices[i])
        rows_i: list[list[str]] = []
        for j, choice in enumerate(view.choices[i]):
            option = normal(choice)
            image = view.option_images[i][j]
            feats = [f"{p}={v} | option {j}" for p, v in short.items()]
            if len(option) <= OPTION_CHARS:
                feats += [f"{p}={v} | text {option}" for p, v in short.items()]
            for p, v in scalars.items():
                if option and v == option:
                    feats.append(f"option equals {p}")
                elif len(option) > 1 and f" {option} " in f" {v} ":
                    feats.append(f"option named in {p}")
                if image is not None and (v == normal(image) or v.endswith(
                        "/" + normal(image).rsplit("/", 1)[-1])):
                    feats.append(f"option image is {p}")
            feats += [f"{p} is the option's position" for p, n in numbers.items() if n == j]
            for p, values in lists.items():
                if len(values) != k:
                    continue
                mine = normal(values[j])
                feats += [f"{p}[option] equals {q}" for q, v in short.items()
                          if v == mine and not q.startswith(p + "[")]
            rows_i.append(feats)
        out.append(rows_i)
    return out


def shuffled_rows(view: MetaView, rows: Sequence[Mapping[str, Any]], seed: int
                  ) -> list[Mapping[str, Any]]:
    """The control: each item's fields moved to another item of the same type (one seeded
    permutation per type)."""
    rng = np.random.default_rng(seed)
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(view.types):
        groups.setdefault(t, []).append(i)
    moved = list(rows)
    for members in groups.values():
        order = rng.permutation(len(members))
        for at, source in zip(members, order, strict=True):
            moved[at] = rows[members[int(source)]]
    return moved


def field_probes(view: MetaView, views: Mapping[str, tuple[str, Sequence[Mapping[str, Any]]]],
                 folds: np.ndarray) -> list[ProbeOutcome]:
    """One probe per view (name → what it reads, per item of ``view`` its fields), each with
    its control (the fields moved between items of the same type)."""
    out = []
    for k, (name, (reads, rows)) in enumerate(views.items()):
        out.append(row_probe(view, name, reads, field_features(view, rows),
                             field_features(view, shuffled_rows(view, rows, SEED + 30 + k)),
                             folds))
    return out
