"""Release records (``cello_data.jsonl``) ↔ items, with validation of every field.

Release record: ``img_id, question, graph_type, task_type, graph{nodes, edges}, objs, options,
answer_index, data_id``. The item keeps the graph verbatim in ``meta`` (``boxes`` flat
``[x, y, w, h]`` or nested ``[[x, y, w, h], ...]`` alike), so an export reproduces the record.
"""

from __future__ import annotations

from typing import Any

from whatifbench.core.item import CONTRAST_ROLE, Item
from whatifbench.errors import WhatifError
from whatifbench.suites.cello.causal.tasks import RUNG_OF, TASKS
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES

CONTRAST_KEY = "contrast_set"
"""A record key of ours (the release has none): the contrast set a ``shortcut-free`` item
belongs to, so that an export imports back with its sets."""
RELEASE_KEYS = ("img_id", "question", "graph_type", "task_type", "graph", "objs", "options",
                "answer_index", "data_id")
"""Keys of a release record, in the release's order."""
KINDS = ("correct", "image", "graph", "text", "unknown")
"""Option kinds recorded in ``meta["option_kinds"]`` (``unknown``: an imported distractor that
names no graph object, so image and text distractors cannot be told apart)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _box_ok(box: Any) -> bool:
    return (isinstance(box, list) and len(box) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box))


def graph_problems(graph: Any) -> list[str]:
    """Why a record's ``graph`` is not
    ``{"nodes": [[id, attrs], ...], "edges": [[u, v, attrs], ...]}``."""
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list) \
            or not isinstance(graph.get("edges"), list):
        return ["'graph' must be an object with lists 'nodes' and 'edges'"]
    problems: list[str] = []
    ids: set[int] = set()
    for node in graph["nodes"]:
        if not (isinstance(node, list) and len(node) == 2 and _is_int(node[0])
                and isinstance(node[1], dict)):
            problems.append(f"graph node {node!r:.60} is not [id, {{attributes}}]")
            continue
        ids.add(node[0])
        attrs = node[1]
        if not isinstance(attrs.get("obj_name"), str):
            problems.append(f"graph node {node[0]} has no string 'obj_name'")
        boxes = attrs.get("boxes")
        if boxes is not None and not (_box_ok(boxes) or (
                isinstance(boxes, list) and boxes and all(_box_ok(b) for b in boxes))):
            problems.append(f"graph node {node[0]} has 'boxes' {boxes!r:.60}; expected "
                            "[x, y, w, h] or [[x, y, w, h], ...]")
    for edge in graph["edges"]:
        if not (isinstance(edge, list) and len(edge) == 3 and edge[0] in ids and edge[1] in ids
                and isinstance(edge[2], dict)):
            problems.append(f"graph edge {edge!r:.60} is not [node id, node id, {{attributes}}]")
    return problems


def record_problems(rec: Any) -> list[str]:
    """Every problem of one release record (empty when valid)."""
    if not isinstance(rec, dict):
        return ["the record is not a JSON object"]
    missing = [k for k in RELEASE_KEYS if k not in rec]
    if missing:
        return [f"missing field(s) {', '.join(missing)}"]
    problems: list[str] = []
    if rec["task_type"] not in TASKS:
        problems.append(f"unknown task_type {rec['task_type']!r}; the release uses "
                        f"{', '.join(TASKS)}")
    if rec["graph_type"] not in GRAPH_TYPES:
        problems.append(f"unknown graph_type {rec['graph_type']!r}; use one of "
                        f"{', '.join(GRAPH_TYPES)}")
    for key in ("img_id", "data_id"):
        if not _is_int(rec[key]):
            problems.append(f"'{key}' must be an integer, got {rec[key]!r}")
    if not isinstance(rec["question"], str) or not rec["question"].strip():
        problems.append("'question' must be a non-empty string")
    options = rec["options"]
    if (not isinstance(options, list) or len(options) < 2
            or not all(isinstance(o, str) and o for o in options)):
        problems.append(f"'options' must be a list of at least two non-empty strings, "
                        f"got {options!r:.80}")
    elif len(set(options)) != len(options):
        problems.append(f"'options' {options} repeat an option")
    elif not _is_int(rec["answer_index"]) or not 0 <= rec["answer_index"] < len(options):
        problems.append(f"'answer_index' {rec['answer_index']!r} is not an index into the "
                        f"{len(options)} options")
    problems += graph_problems(rec["graph"])
    objs = rec["objs"]
    if not isinstance(objs, list) or not all(_is_int(o) for o in objs):
        problems.append(f"'objs' must be a list of object ids, got {objs!r:.60}")
    return problems


def infer_kinds(rec: dict[str, Any]) -> list[str]:
    """Option kinds of an imported multiple-choice record (``[]`` for Yes/No): the answer is
    ``correct``; an option naming graph objects is the ``graph`` distractor; others ``unknown``."""
    options: list[str] = rec["options"]
    if len(options) == 2:
        return []
    names = {str(n[1].get("obj_name", "")).lower() for n in rec["graph"]["nodes"]}
    kinds = []
    for i, option in enumerate(options):
        parts = {p.strip().lower() for p in option.split(" and ")}
        kinds.append("correct" if i == rec["answer_index"]
                     else "graph" if parts <= names else "unknown")
    return kinds


def item_from_record(rec: dict[str, Any], item_id: str, image: str,
                     option_kinds: list[str], provenance: dict[str, Any]) -> Item:
    """The item of a (valid) release record; unknown keys are kept in ``meta["extra"]``."""
    options = tuple(rec["options"])
    meta: dict[str, Any] = {
        "rung": RUNG_OF[rec["task_type"]], "task_type": rec["task_type"],
        "graph_type": rec["graph_type"], "format": "binary" if len(options) == 2
        else "multiple_choice", "img_id": rec["img_id"], "data_id": rec["data_id"],
        "answer_index": rec["answer_index"], "option_kinds": option_kinds or None,
        "graph": rec["graph"], "objs": rec["objs"],
    }
    extra = {k: v for k, v in rec.items() if k not in (*RELEASE_KEYS, CONTRAST_KEY)}
    if extra:
        meta["extra"] = extra
    contrast = rec.get(CONTRAST_KEY)
    pair = str(contrast) if isinstance(contrast, (str, int)) and contrast != "" else None
    return Item(id=item_id, images=(image,), question=rec["question"], kind="choice",
                target=options[rec["answer_index"]], choices=options,
                pair_id=pair, role=CONTRAST_ROLE if pair is not None else None,
                group=rec["task_type"], meta=meta, provenance=provenance)


def record_from_item(item: Item) -> dict[str, Any]:
    """The release record of an item (keys in the release's order, then any kept extras)."""
    meta = item.meta
    missing = [k for k in ("img_id", "graph_type", "task_type", "graph", "objs", "data_id")
               if k not in meta]
    if missing or item.kind != "choice":
        raise WhatifError(
            f"Item {item.id} is not a CELLO item (its meta lacks {', '.join(missing) or 'nothing'}"
            f", kind {item.kind!r}); export datasets built by 'whatif build cello' or imported "
            "by 'whatif import cello'.")
    record = {"img_id": meta["img_id"], "question": item.question,
              "graph_type": meta["graph_type"], "task_type": meta["task_type"],
              "graph": meta["graph"], "objs": meta["objs"], "options": list(item.choices),
              "answer_index": item.target_index, "data_id": meta["data_id"]}
    record.update(meta.get("extra") or {})
    if item.role == CONTRAST_ROLE and item.pair_id is not None:
        record[CONTRAST_KEY] = item.pair_id  # beyond the release's keys: kept on re-import
    return record
