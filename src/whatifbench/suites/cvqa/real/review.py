"""The C-VQA-Real review sheet: one row per pair (image, original and new Q/A, check flags).

Decisions: ``accept`` keeps a pair, ``edit`` applies its changed cells, ``reject`` drops it,
``new`` adds a hand-written pair about an image already in the dataset (the paper writes the
numerical indirect group by hand). Rows the automatic checks flagged are exported as
``reject``, so an untouched sheet keeps exactly the auto-verified pairs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, DatasetWriter, problems_message
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.review.base import Column, Reviewer, ReviewRow, Sheet, SheetRow
from whatifbench.suites.cvqa.real.exporter import image_name
from whatifbench.suites.cvqa.real.release import KIND, answer_problem, pair_items
from whatifbench.suites.cvqa.real.verify import check_pair

FIELDS = ("group", "question", "answer", "new_question", "new_answer")
"""Editable cells that define a pair (besides its image)."""


@register("reviewer", "cvqa-real")
class CvqaRealReviewer(Reviewer):
    """Review C-VQA-Real pairs (built by the pipeline or imported)."""

    columns = (
        Column("flags", False, "automatic checks that failed (code: reason)"),
        Column("llm_steps", False, "the LLM's Step1/Step2 (built pairs)"),
        Column("image", True, "COCO file name; for new rows, an image already in the dataset"),
        Column("group", True, "direct, indirect or boolean"),
        Column("question", True, "original question"),
        Column("answer", True, "original answer (digits, or yes/no)"),
        Column("new_question", True, "counterfactual question with an 'if' premise"),
        Column("new_answer", True, "counterfactual answer"),
    )

    def rows(self, dataset: Dataset) -> list[ReviewRow]:
        """One row per pair, flagged pairs pre-set to ``reject``."""
        out = []
        for pair_id, (ori, cf) in _pairs(dataset).items():
            out.append(ReviewRow(pair_id, ori.images[0], {
                "flags": " | ".join(f"{f['code']}: {f['message']}" for f in _flags(ori, cf)),
                "llm_steps": _steps(cf),
                **_values(ori, cf)}, "reject" if cf.meta.get("status") == "flagged" else "accept"))
        return out

    def apply(self, dataset: Dataset, sheet: Sheet, out: Path, overwrite: bool) -> Card:
        """Write the reviewed pairs (sheet order for new rows, after the dataset's pairs)."""
        pairs = _pairs(dataset)
        images = {image_name(ori): ori.images[0] for ori, _ in pairs.values()}
        by_key = {row.key: row for row in sheet.rows if row.decision != "new"}
        problems: list[str] = []
        kept: list[Item] = []
        decisions: Counter[str] = Counter()
        review = {"sheet": sheet.path.name, "sheet_sha256": sheet.sha256}
        for pair_id, (ori, cf) in pairs.items():
            row = by_key[pair_id]
            decisions[row.decision] += 1
            if row.decision == "reject":
                continue
            before = _values(ori, cf)
            changed = [k for k in ("image", *FIELDS) if row.values[k] != before[k]]
            if "image" in changed:
                problems.append(f"line {row.line}: the image of pair {pair_id} cannot change; "
                                "add a 'new' row for another image")
            elif row.decision == "accept" and changed:
                problems.append(f"line {row.line}: changes {', '.join(changed)} but its decision "
                                "is 'accept'; write 'edit' to apply the change")
            elif row.decision == "edit" and changed:
                errs = _cell_problems(row)
                problems += [f"line {row.line}: {e}" for e in errs]
                if not errs:
                    kept += self._pair(pair_id, ori.images[0], row, ori, "edit",
                                       {k: [before[k], row.values[k]] for k in changed}, review)
            else:
                kept += [_reviewed(i, row, row.decision, review) for i in (ori, cf)]
        hand = 0
        for row in sheet.rows:
            if row.decision != "new":
                continue
            decisions["new"] += 1
            errs = _cell_problems(row)
            if row.values["image"] not in images:
                errs.append(f"image {row.values['image']!r} is not in the dataset (new rows ask "
                            "about an image the dataset already has)")
            problems += [f"line {row.line}: {e}" for e in errs]
            if not errs:
                hand += 1
                kept += self._pair(f"hand-{hand:04d}", images[row.values["image"]], row, None,
                                   "new", {}, review)
        if problems:
            raise WhatifError(problems_message(f"The review sheet {sheet.path}", problems,
                                               "Fix these rows and import again."))
        if not kept:
            raise WhatifError(f"The review sheet {sheet.path} rejects every pair; nothing to "
                              "write.")
        with DatasetWriter(out, overwrite) as writer:
            for rel in dict.fromkeys(i.images[0] for i in kept):
                writer.copy_file(rel, dataset.image_path(rel).read_bytes())
            writer.add_items(kept)
            card = dataset.card
            return writer.finish(
                name=card.name, suite=card.suite, version=card.version,
                generator={"name": "review:cvqa-real",
                           "params": {"from": card.generator, **review}},
                seed=card.seed, counts={"review": dict(sorted(decisions.items()))},
                extra=card.extra)

    @staticmethod
    def _pair(pair_id: str, image_rel: str, row: SheetRow, ori: Item | None, decision: str,
              changed: dict[str, list[str]], review: dict[str, str]) -> list[Item]:
        v = row.values
        findings = check_pair(v["group"], v["answer"], v["new_question"], v["new_answer"])
        meta: dict[str, Any] = dict(ori.meta) if ori else {"image": v["image"]}
        meta.update(flags=[f.code for f in findings], status="reviewed",
                    review={"decision": decision, "line": row.line, "comment": row.comment})
        provenance: dict[str, Any] = dict(ori.provenance) if ori else {
            "source": "hand-annotated in a review sheet"}
        provenance["review"] = {**review, "decision": decision, "line": row.line,
                                "changed": changed, "checks": [f.to_json() for f in findings]}
        return list(pair_items(pair_id, image_rel, v["group"], v["question"], v["answer"],
                               v["new_question"], v["new_answer"], meta, provenance))


def _pairs(dataset: Dataset) -> dict[str, tuple[Item, Item]]:
    out = {}
    for pair_id, items in dataset.pairs().items():
        roles = {i.role: i for i in items}
        if "original" in roles and "counterfactual" in roles and roles["original"].images:
            out[pair_id] = (roles["original"], roles["counterfactual"])
    return out


def _values(ori: Item, cf: Item) -> dict[str, str]:
    return {"image": image_name(ori), "group": ori.group or "", "question": ori.question,
            "answer": ori.target, "new_question": cf.question, "new_answer": cf.target}


def _flags(ori: Item, cf: Item) -> list[dict[str, str]]:
    checks = cf.provenance.get("checks")
    if isinstance(checks, list):
        return [c for c in checks if isinstance(c, dict)]
    return [f.to_json() for f in check_pair(ori.group or "", ori.target, cf.question, cf.target)]


def _steps(cf: Item) -> str:
    parsed = cf.provenance.get("parsed")
    if not isinstance(parsed, dict):
        return ""
    return f"Step1: {parsed.get('step1', '')} | Step2: {parsed.get('step2', '')}"


def _cell_problems(row: SheetRow) -> list[str]:
    v = row.values
    errs = [f"'{k}' is empty" for k in ("question", "new_question") if not v[k].strip()]
    if v["group"] not in KIND:
        errs.append(f"group {v['group']!r} is not one of {', '.join(KIND)}")
    else:
        for k in ("answer", "new_answer"):
            why = answer_problem(v["group"], v[k])
            if why:
                errs.append(f"'{k}': {why}")
    return errs


def _reviewed(item: Item, row: SheetRow, decision: str, review: dict[str, str]) -> Item:
    meta = {**item.meta, "status": "reviewed",
            "review": {"decision": decision, "line": row.line, "comment": row.comment}}
    return replace(item, meta=meta, provenance={**item.provenance,
                                                "review": {**review, "decision": decision}})
