"""The audit as tables (terminal text, Markdown for docs): blind baselines, slices, metadata
probes, pair rules and letters, and for ``--seeds`` one line per seed."""

from __future__ import annotations

from typing import Any

from whatifbench.analysis.audit.flags import rule_text
from whatifbench.analysis.audit.pairs import RULES
from whatifbench.core.table import Table, fmt, fmt_p

FLAG_NOTE = (f"{rule_text()}: this part can be passed without the image.")

PAIR_NOTE = ("Reported, not flagged: where a rule holds, a model that perceives the original and "
             "applies the rule needs no counterfactual reasoning. same letter: the two answers "
             "sit at the same position (letter), beside independent dealing (1/K); the probes "
             "'letter relation' and 'constant letter' test it.")

PROBE_NOTE = ("Metadata probes read what a harness could show besides the question text (file "
              "names and ids, also as public facts decode them; groups, member order, letters; "
              "the items' public metadata and provenance; every export's columns; the image "
              "files' structure), scored out of fold (folds grouped by pair and shared image); "
              "n = items (pairs for 'constant letter' and 'joint guess', whose chance is the "
              "joint chance: 1 / the pair's answers that keep every relation its group's pairs "
              "all keep) they could read anything on; control = the same probe with that "
              "metadata moved to other items of the same type (what it says about the dataset, "
              "not about an item's answer). 'other items' reads what only a reader of the whole "
              "dataset sees (other questions, pictures, lines): flagged, it leaves --strict "
              "alone. Flagged slices are listed under the table.")


def _interval(values: Any) -> str:
    """``[lo, hi]`` with one decimal (``–`` when there is none)."""
    return "–" if not values else f"[{fmt(values[0])}, {fmt(values[1])}]"


def _p(value: Any) -> str:
    """A p-value for a table, as the run tables print it (``report.table.fmt_p``)."""
    return fmt_p(None if value is None else float(value))


def headline(result: dict[str, Any]) -> str:
    """One paragraph: what was audited and the blind accuracy beside chance."""
    ds, blind = result["dataset"], result["blind"]
    left = ds.get("left_out_free_text", 0)
    lines = [f"Audit of {ds['path']} ({ds['name']}, suite {ds['suite']}): {ds['audited']} of "
             f"{ds['items']} items" + (f" ({left} free-text items left out)" if left else "")
             + f"; items sha256 {ds['items_sha256'][:12]}.",
             _blind_line(blind)]
    return "\n".join(lines)


def _blind_line(blind: dict[str, Any]) -> str:
    """The blind accuracy beside chance, and whether it is flagged."""
    return (f"Blind accuracy {fmt(blind['accuracy'])} % {_interval(blind['interval'])} vs chance "
            f"{fmt(blind['chance'])} % over {blind['n']} items"
            + (": FLAGGED, answerable without the image." if blind.get("flagged") else "."))


def seeds_headline(result: dict[str, Any]) -> str:
    """What was generated and audited, and the pooled blind accuracy."""
    gen = result["generator"]
    params = " ".join(f"-p {p}" for p in gen["params"])
    return (f"Audit of generator {gen['name']}{' ' + params if params else ''} over seeds "
            f"{', '.join(str(s) for s in gen['seeds'])} (each generated into a temporary "
            "folder, audited, and the figures pooled).\nPooled: " + _blind_line(result["blind"]))


def baseline_table(result: dict[str, Any]) -> Table:
    """Each baseline's own out-of-fold accuracy, and the combination."""
    blind = result["blind"]
    rows: list[tuple[str, ...]] = [
        (name, fmt(b["accuracy"]), _interval(b["interval"]))
        for name, b in blind["baselines"].items()]
    rows.append(("combined", fmt(blind["accuracy"]), _interval(blind["interval"])))
    chosen = "; ".join(f"{g or '(all)'}: " + ", ".join(f"{b} ×{k}" for b, k in c.items())
                       for g, c in blind["chosen"].items())
    return Table(title="Blind baselines (question and options only; accuracy %)",
                 columns=("baseline", "accuracy", "95 % interval"), rows=tuple(rows),
                 notes=(f"{blind['method']}.", f"chosen per group (test folds): {chosen}."))


def _seeds_cell(entry: dict[str, Any]) -> tuple[str, ...]:
    """``above/seeds`` for a pooled entry, nothing for one dataset."""
    if "seeds" not in entry:
        return ()
    return (f"{entry.get('seeds_above', 0)}/{entry['seeds']}" if entry.get("n") else "–",)


def slice_table(result: dict[str, Any]) -> Table:
    """n, blind accuracy, interval, chance, Holm-adjusted p and flag per slice."""
    pooled = "runs" in result
    rows = tuple((s["key"], s["value"], str(s["n"]), fmt(s["blind"]), _interval(s["interval"]),
                  fmt(s["chance"]), _p(s.get("p_holm")), *_seeds_cell(s),
                  "FLAGGED" if s["flagged"] else "")
                 for s in result["slices"])
    return Table(title="Slices (percent)" + (", pooled over seeds" if pooled else ""),
                 columns=("key", "value", "n", "blind", "95 % interval", "chance", "p (Holm)",
                          *(("seeds above chance",) if pooled else ()), "flag"),
                 rows=rows, notes=(FLAG_NOTE,))


def probe_table(result: dict[str, Any]) -> Table | None:
    """Per metadata probe: n, accuracy beside chance, Holm-adjusted p, flag, flagged slices."""
    probes = result.get("probes") or []
    if not probes:
        return None
    pooled = "runs" in result
    rows = []
    flagged_notes = []
    for p in probes:
        slices = [s for s in p.get("slices") or [] if s.get("flagged")]
        rows.append((p["name"], str(p["n"]), fmt(p["accuracy"]), _interval(p["interval"]),
                     fmt(p["chance"]), fmt(p.get("control")), _p(p.get("p_holm")),
                     *_seeds_cell(p),
                     ("FLAGGED" + (" (whole-dataset reader)" if p.get("harness") else ""))
                     if p.get("flagged") else
                     (f"{len(slices)} slice(s)" if slices else "")))
        if slices:
            flagged_notes.append(f"{p['name']} flagged on: " + "; ".join(
                f"{s['key']}={s['value']} {fmt(s['accuracy'])} vs {fmt(s['chance'])} "
                f"(n={s['n']})" for s in slices) + ".")
    reads = "; ".join(f"{p['name']}: {p['reads']}" for p in probes)
    return Table(title="Metadata probes (percent)" + (", pooled over seeds" if pooled else ""),
                 columns=("probe", "n", "accuracy", "95 % interval", "chance", "control",
                          "p (Holm)",
                          *(("seeds above chance",) if pooled else ()), "flag"),
                 rows=tuple(rows),
                 notes=(PROBE_NOTE, f"Reads: {reads}.", *flagged_notes, FLAG_NOTE))


def pair_table(result: dict[str, Any]) -> Table | None:
    """Per group, the share of pairs whose counterfactual answer follows by each rule, and the
    share answered at the same letter."""
    pairs = result["pairs"]
    if not pairs["pairs"]:
        return None
    letters = pairs.get("letters") or {}
    by_letter = {g["group"]: g for g in letters.get("by_group") or []}
    groups = [*pairs["by_group"], {"group": "all", "pairs": pairs["pairs"],
                                   "rules": pairs["rules"]}]
    by_letter["all"] = letters

    def same(group: str) -> str:
        found = by_letter.get(group) or {}
        if found.get("percent") is None:
            return "–"
        return f"{fmt(found['percent'])} ({fmt(found['expected'])})"

    rows = tuple((g["group"] or "(none)", str(g["pairs"]),
                  *(fmt(g["rules"][r]["percent"]) for r in RULES),
                  g["rules"]["best"]["rule"] or "–", same(g["group"])) for g in groups)
    return Table(title="Pairs: the counterfactual answer follows from the original's (% of pairs)",
                 columns=("group", "pairs", *RULES, "best rule", "same letter (1/K)"),
                 rows=rows, notes=(PAIR_NOTE,))


def seeds_table(result: dict[str, Any]) -> Table | None:
    """One line per seed of a ``--seeds`` audit: its items, blind figure and own flags."""
    runs = result.get("runs")
    if not runs:
        return None
    rows = tuple((str(r["seed"]), str(r["audited"]), fmt(r["blind"]["accuracy"]),
                  fmt(r["blind"]["chance"]), "; ".join(r["flagged"]) or "none",
                  r["items_sha256"][:12]) for r in runs)
    return Table(title="Seeds (each audited on its own; percent)",
                 columns=("seed", "audited items", "blind", "chance", "flagged on its own",
                          "items sha256"), rows=rows,
                 notes=(("A pooled figure is flagged only when it also replicates: above chance "
                         "(and its control) in more than half of the seeds that have it."),))


def tables(result: dict[str, Any]) -> list[Table]:
    """Every table of an audit result, in the order printed."""
    out = [t for t in (seeds_table(result), baseline_table(result), slice_table(result),
                       probe_table(result), pair_table(result)) if t is not None]
    return out
