"""The ``mucr-build`` review sheet: pick the best cause and effect pictures among the
candidates and write the cue phrases and explanations (MuCR "Creating Images and
Annotations"); importing the sheet writes the final MuCR dataset.

One row per pair, with every candidate picture shown (HTML sheet). Editable cells:
``cause_pick``/``effect_pick`` (candidate numbers), ``cue``, ``false_cues`` (three phrases
separated by ``|``), ``explain_cause``, ``explain_effect``, ``explain_link`` (several
references of one part on separate lines). Decisions: ``accept`` keeps the row as exported,
``edit`` applies its cells, ``reject`` leaves the pair out — and then its whole group must be
rejected, since C2E/E2C show the group's four pairs. ``new`` rows cannot be added here (a new
pair needs pictures: add it to the captions file and build again).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, DatasetWriter, problems_message
from whatifbench.core.item import Item
from whatifbench.core.namekey import name_key
from whatifbench.core.private import read_private
from whatifbench.core.registry import register
from whatifbench.errors import WhatifError
from whatifbench.review.base import Column, Reviewer, ReviewRow, Sheet
from whatifbench.scenes.opaque import Namer, Telling
from whatifbench.suites.mucr.items import make_items
from whatifbench.suites.mucr.pipeline.build import CANDIDATES
from whatifbench.suites.mucr.prompts import CHOICE_METRICS
from whatifbench.suites.mucr.records import Record

EDITABLE = ("cause_pick", "effect_pick", "cue", "false_cues", "explain_cause", "explain_effect",
            "explain_link")
SEPARATOR = "|"


def _pairs(dataset: Dataset) -> dict[str, dict[str, Item]]:
    """Items by pair id and metric, in dataset order."""
    out: dict[str, dict[str, Item]] = {}
    for item in dataset.items:
        if item.pair_id is not None and item.group is not None:
            out.setdefault(item.pair_id, {})[item.group] = item
    return out


def _values(items: dict[str, Item]) -> dict[str, str]:
    cue, exp = items["cue"], items["exp"]
    build = exp.provenance["build"]
    refs = exp.meta["references"]
    return {"group": str(build["group"]), "category": str(exp.meta["category"]),
            "style": str(exp.meta["style"]), "cause_caption": exp.meta["captions"][0],
            "effect_caption": exp.meta["captions"][1],
            "cause_description": build["descriptions"][0],
            "effect_description": build["descriptions"][1],
            "cause_pick": str(build["pick"]["cause"]), "effect_pick": str(build["pick"]["effect"]),
            "cue": cue.target,
            "false_cues": f" {SEPARATOR} ".join(c for c in cue.choices if c != cue.target),
            "explain_cause": "\n".join(refs[0]), "explain_effect": "\n".join(refs[1]),
            "explain_link": "\n".join(refs[2])}


@register("reviewer", "mucr-build")
class MucrBuildReviewer(Reviewer):
    """Selection sheet of a ``whatif build mucr`` draft."""

    columns = (
        Column("group", False, "the pair's group of four"),
        Column("category", False),
        Column("style", False),
        Column("cause_caption", False, "core caption of the cause"),
        Column("effect_caption", False, "core caption of the effect"),
        Column("cause_description", False, "the LLM's description of the cause picture"),
        Column("effect_description", False, "the LLM's description of the effect picture"),
        Column("cause_pick", True, "number of the best cause candidate"),
        Column("effect_pick", True, "number of the best effect candidate"),
        Column("cue", True, "the phrase that links cause and effect"),
        Column("false_cues", True, "three striking phrases that are not the cue, separated by |"),
        Column("explain_cause", True, "what the cause picture shows (one reference per line)"),
        Column("explain_effect", True, "what the effect picture shows (one reference per line)"),
        Column("explain_link", True, "how the cause leads to the effect through the cue"),
    )

    def rows(self, dataset: Dataset) -> list[ReviewRow]:
        """One row per pair with its candidates (from the private file) as the gallery."""
        out = []
        candidates = _candidates(dataset)
        for pid, items in _pairs(dataset).items():
            build = items["exp"].provenance.get("build")
            if build is None or pid not in candidates:
                raise WhatifError(f"{dataset.root} is not a 'whatif build mucr' draft (pair {pid} "
                                  "has no build record or no candidates in its private file).")
            gallery = tuple((f"{side} {k}", path) for side in ("cause", "effect")
                            for k, path in enumerate(candidates[pid][side], start=1))
            out.append(ReviewRow(pid, None, _values(items), "accept", gallery))
        return out

    def apply(self, dataset: Dataset, sheet: Sheet, out: Path, overwrite: bool) -> Card:
        """Check every row, then write the final dataset (picked pictures only)."""
        pairs = _pairs(dataset)
        candidates = _candidates(dataset)
        exported = {row.key: row.values for row in self.rows(dataset)}
        problems: list[str] = []
        records: list[tuple[Record, dict[str, Any]]] = []
        decisions: Counter[str] = Counter()
        by_key = {row.key: row for row in sheet.rows}
        for row in sheet.rows:
            where = f"line {row.line}"
            decisions[row.decision] += 1
            if row.decision == "new":
                problems.append(f"{where}: new pairs cannot be added in this sheet (they need "
                                "pictures); add them to the captions file and build again")
                continue
            if row.decision == "reject":
                continue
            old = exported[row.key]
            changed = {c: [old[c], row.values[c]] for c in EDITABLE
                       if row.values[c].strip() != old[c].strip()}
            if row.decision == "accept" and changed:
                problems.append(f"{where}: pair {row.key}: {', '.join(changed)} changed under "
                                "'accept'; set the decision to 'edit'")
                continue
            values = old if row.decision == "accept" else row.values
            made = _record(pairs[row.key], candidates[row.key], values, where, problems)
            if made is not None:
                records.append((made, {"decision": row.decision, "comment": row.comment,
                                       "changed": changed}))
        kept = {row.key for row in sheet.rows if row.decision in ("accept", "edit")}
        checked: set[tuple[str, ...]] = set()
        for pid in pairs:
            group = tuple(pairs[pid]["exp"].meta["group_of_four"])
            if group in checked or not kept & set(group) or set(group) <= kept:
                continue
            checked.add(group)
            lost = [g for g in group if g not in kept]
            first = min(by_key[g].line for g in group if g in kept)
            problems.append(f"line {first}: pairs {', '.join(g for g in group if g in kept)} are "
                            f"kept but {', '.join(lost)} of their group is rejected; keep all four "
                            "pairs of a group or reject all four")
        if problems:
            raise WhatifError(problems_message(
                f"The review sheet {sheet.path}", problems,
                "Fix these rows and import again; nothing was written."))
        if not records:
            raise WhatifError(f"The review sheet {sheet.path} rejects every pair; there is "
                              "nothing to write.")
        return _write(dataset, candidates, records, sheet, decisions, out, overwrite)


def _candidates(dataset: Dataset) -> dict[str, dict[str, list[str]]]:
    """Per pair and side its candidate pictures (the draft's private file)."""
    return read_private(dataset.root, CANDIDATES)[CANDIDATES]


def _record(items: dict[str, Item], candidates: dict[str, list[str]], values: dict[str, str],
            where: str, problems: list[str]) -> Record | None:
    """The final record of a pair from its cells (problems are appended)."""
    exp = items["exp"]
    errs: list[str] = []
    picks: dict[str, str] = {}
    for side in ("cause", "effect"):
        text = values[f"{side}_pick"].strip()
        options = candidates[side]
        if not text.isdigit() or not 1 <= int(text) <= len(options):
            errs.append(f"{side}_pick {text!r} is not a candidate number 1-{len(options)}")
        else:
            picks[side] = options[int(text) - 1]
    cue = " ".join(values["cue"].split())
    false_cues = [" ".join(c.split()) for c in values["false_cues"].split(SEPARATOR)]
    if not cue:
        errs.append("the cue is empty")
    if len(false_cues) != 3 or not all(false_cues):
        errs.append(f"false_cues must be three phrases separated by {SEPARATOR!r}, got "
                    f"{values['false_cues']!r}")
    elif len({c.lower() for c in [cue, *false_cues]}) != 4:
        errs.append("the cue and the three false cues must be four different phrases")
    refs = []
    for part in ("explain_cause", "explain_effect", "explain_link"):
        lines = tuple(t.strip() for t in values[part].splitlines() if t.strip())
        if not lines:
            errs.append(f"{part} is empty")
        refs.append(lines)
    problems += [f"{where}: pair {exp.pair_id}: {e}" for e in errs]
    if errs:
        return None
    links = tuple(g for g in exp.meta["group_of_four"] if g != exp.pair_id)
    line = int(exp.provenance["source"]["line"])
    return Record(str(exp.pair_id), line, exp.meta["captions"][0], exp.meta["captions"][1],
                  links, cue, tuple(false_cues), exp.meta["style"], exp.meta["category"],
                  tuple(refs), picks["cause"], picks["effect"])


def _write(dataset: Dataset, candidates: dict[str, dict[str, list[str]]],
           records: list[tuple[Record, dict[str, Any]]], sheet: Sheet,
           decisions: Counter[str], out: Path, overwrite: bool) -> Card:
    pairs = _pairs(dataset)
    seed = int(dataset.card.seed or 0)
    key = name_key()  # $WHATIF_SECRET_FILE, else the home secret (core.namekey)
    namer, telling = Namer(key, ("mucr-review", seed)), Telling(key)
    with DatasetWriter(out, overwrite) as writer:
        files: dict[str, str] = {}
        final: list[Record] = []
        for record, _ in records:
            names = {}
            for side, path in (("cause", record.cause_image), ("effect", record.effect_image)):
                # opaque (scenes.opaque): "<pair>-cause.png" would give C2E/E2C answers away
                name = namer.file(record.id, side, suffix=Path(path).suffix)
                files[name] = writer.add_image(name, dataset.image_path(path).read_bytes())
                telling.add("images", files[name], f"{record.id}-{side}")
                names[side] = name
            final.append(replace(record, cause_image=names["cause"],
                                 effect_image=names["effect"]))
        source = str(dataset.card.generator.get("params", {}).get("captions", sheet.path.name))
        items = make_items(final, files, seed, source)
        review = {r.id: decision for r, decision in records}
        picked = {r.id: (r.cause_image, r.effect_image) for r, _ in records}
        out_items = []
        for item in items:
            draft = pairs[str(item.pair_id)]["exp"].provenance["build"]
            cands = candidates[str(item.pair_id)]
            cause_path, effect_path = picked[str(item.pair_id)]
            build = {**draft, "annotations": "reviewed",
                     "pick": {"cause": cands["cause"].index(cause_path) + 1,
                              "effect": cands["effect"].index(effect_path) + 1}}
            out_items.append(replace(item, provenance={
                **item.provenance, "build": build,
                "review": {**review[str(item.pair_id)], "sheet_sha256": sheet.sha256}}))
        writer.add_items(out_items)
        for pid in picked:
            telling.add(CANDIDATES, pid, candidates[pid])
        writer.private = telling.private()
        return writer.finish(
            name=dataset.card.name, suite="mucr", version=dataset.card.version,
            generator={"name": "review:mucr-build", "params": {
                "draft": dataset.card.generator, "draft_items_sha256": dataset.items_sha256,
                "sheet": sheet.path.name, "sheet_sha256": sheet.sha256}},
            seed=seed,
            counts={"review": dict(sorted(decisions.items()))},
            extra={"status": "reviewed", "answer_positions": {
                m: dict(sorted(Counter(i.provenance["position"] for i in items
                                       if i.group == m).items())) for m in CHOICE_METRICS}})
