"""The audit as tables (terminal text, Markdown for docs): blind baselines, slices, pair rules."""

from __future__ import annotations

from typing import Any

from whatifbench.analysis.audit.pairs import RULES
from whatifbench.analysis.audit.slices import MARGIN, MIN_N
from whatifbench.report.table import Table, fmt

FLAG_NOTE = (f"flagged: n ≥ {MIN_N}, blind accuracy more than {MARGIN:g} points above chance and "
             "the 95 % interval's lower end above chance: this part can be passed without the "
             "image.")

PAIR_NOTE = ("Reported, not flagged: where a rule holds, a model that perceives the original and "
             "applies the rule needs no counterfactual reasoning.")


def _interval(values: Any) -> str:
    """``[lo, hi]`` with one decimal."""
    return f"[{fmt(values[0])}, {fmt(values[1])}]"


def headline(result: dict[str, Any]) -> str:
    """One paragraph: what was audited and the blind accuracy beside chance."""
    ds, blind = result["dataset"], result["blind"]
    left = ds.get("left_out_free_text", 0)
    lines = [f"Audit of {ds['path']} ({ds['name']}, suite {ds['suite']}): {ds['audited']} of "
             f"{ds['items']} items" + (f" ({left} free-text items left out)" if left else "")
             + f"; items sha256 {ds['items_sha256'][:12]}.",
             f"Blind accuracy {fmt(blind['accuracy'])} % {_interval(blind['interval'])} vs chance "
             f"{fmt(blind['chance'])} % over {blind['n']} items"
             + (": FLAGGED, answerable without the image." if blind.get("flagged") else ".")]
    return "\n".join(lines)


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


def slice_table(result: dict[str, Any]) -> Table:
    """n, blind accuracy, interval, chance and flag per slice."""
    rows = tuple((s["key"], s["value"], str(s["n"]), fmt(s["blind"]), _interval(s["interval"]),
                  fmt(s["chance"]), "FLAGGED" if s["flagged"] else "")
                 for s in result["slices"])
    return Table(title="Slices (percent)",
                 columns=("key", "value", "n", "blind", "95 % interval", "chance", "flag"),
                 rows=rows, notes=(FLAG_NOTE,))


def pair_table(result: dict[str, Any]) -> Table | None:
    """Per group, the share of pairs whose counterfactual answer follows by each rule."""
    pairs = result["pairs"]
    if not pairs["pairs"]:
        return None
    groups = [*pairs["by_group"], {"group": "all", "pairs": pairs["pairs"],
                                   "rules": pairs["rules"]}]
    rows = tuple((g["group"] or "(none)", str(g["pairs"]),
                  *(fmt(g["rules"][r]["percent"]) for r in RULES),
                  g["rules"]["best"]["rule"] or "–") for g in groups)
    return Table(title="Pairs: the counterfactual answer follows from the original's (% of pairs)",
                 columns=("group", "pairs", *RULES, "best rule"), rows=rows,
                 notes=(PAIR_NOTE,))


def tables(result: dict[str, Any]) -> list[Table]:
    """Every table of an audit result, in the order printed."""
    out = [baseline_table(result), slice_table(result)]
    pairs = pair_table(result)
    return out + ([pairs] if pairs else [])
