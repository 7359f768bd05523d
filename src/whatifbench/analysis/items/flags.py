"""Suspect flags of one item: each a code, a sentence (the reason) and a severity that ranks the
suspects. docs/item-quality.md says what each means and how to act on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from whatifbench.analysis.items.keys import KEY, KeyDoubt
from whatifbench.analysis.items.stats import Counts, shown_answer
from whatifbench.core.item import Item

KEY_DOUBT = 0.5
"""An item is flagged ``key`` when its key is more likely wrong than right."""
MIN_DISCRIMINATION = 10
"""Runs needed before a negative point-biserial is flagged."""
NEGATIVE = -0.2
"""The point-biserial at or below which discrimination is flagged negative..."""
NEGATIVE_P = 0.01
"""... when it is also below zero at this one-sided significance (a t test over the runs)."""
MIN_PARSED = 2
"""Replies needed before 'never parsed' is flagged."""
SEVERITY = {"never-parsed": 0.9, "negative-discrimination": 0.6, "answerable-blind": 0.3}
"""How serious each flag is (``key``: its posterior probability)."""


@dataclass(frozen=True)
class Evidence:
    """Everything known about one item."""

    item: Item
    """The item."""
    counts: Counts
    """Its classical statistics."""
    pbis: tuple[float | None, int]
    """Point-biserial discrimination and the runs it is over."""
    doubt: KeyDoubt | None
    """What the answers say about its key (``None``: free text)."""
    irt: tuple[float, float] | None
    """(a, d) of its scoring unit, when fitted."""
    irt_unit: str | None
    """That scoring unit."""
    strong: list[tuple[str, str | None]] = field(default_factory=list)
    """Each strong run's label and answer value."""
    blind: list[dict[str, Any]] = field(default_factory=list)
    """The audit's slices (``whatif audit``'s cache: key, value, blind, chance, flagged)."""
    key_flags: bool = True
    """Whether key flags are shown for the number of runs at hand (``precision``)."""


def _quote(value: str | None) -> str:
    return "no answer" if value is None else repr(value)


def _blind(evidence: Evidence) -> dict[str, Any] | None:
    """When every audit slice the item falls in is flagged (blind guessing clearly beats
    chance there, however the items are sliced), the smallest of them; else ``None``."""
    from whatifbench.analysis.audit.slices import slice_value

    found = [s for s in evidence.blind if slice_value(evidence.item, str(s.get("key"))) ==
             s.get("value")]
    if not found or not all(s.get("flagged") for s in found):
        return None
    return min(found, key=lambda s: (int(s.get("n") or 0), str(s.get("key"))))


def _below_zero(r: float, n: int) -> float:
    """One-sided p-value of a correlation ``r`` over ``n`` pairs being negative by chance."""
    from scipy.special import stdtr

    if r <= -1.0:
        return 0.0
    t = r * ((n - 2) / (1.0 - r * r)) ** 0.5
    return float(stdtr(n - 2, t))


def flag_item(e: Evidence) -> dict[str, Any]:
    """The item's row: statistics, ``suspect``, ``reasons`` (sentences), ``codes``, ranked by
    ``severity``."""
    item, c = e.item, e.counts
    reasons: list[str] = []
    codes: list[str] = []
    severity = 0.0
    doubt = e.doubt
    likely = None  # the most probable answer, the key included
    systematic = None  # why that answer attracts mistakes, when it is a declared distractor
    if doubt is not None:
        other = doubt.p_likely > 1.0 - doubt.p_wrong
        likely = shown_answer(doubt.likely, item) if other else item.target
        systematic = doubt.systematic if other else None
    majority = shown_answer(c.majority, item)
    if doubt is not None and doubt.p_wrong >= KEY_DOUBT and e.key_flags:
        codes.append("key")
        severity = max(severity, doubt.p_wrong)
        known = (f", a systematic distractor ({systematic}): check that the key is not the "
                 "one right here" if systematic else "")
        reasons.append(f"the answer key {item.target!r} is likely wrong (p = {doubt.p_wrong:.2f}"
                       f"; most likely answer {_quote(likely)}{known}; weighing each run and "
                       "person by their accuracy, mistakes many runs share not counted)")
        if c.majority is not None and c.majority != KEY:
            reasons.append(f"humans' majority disagrees with the key ({c.majority_votes} of "
                           f"{c.humans} answer {majority!r})")
        answered = [(label, v) for label, v in e.strong if v is not None]
        if answered and all(v != KEY for _, v in answered):
            said = ", ".join(f"{label}: {shown_answer(v, item)!r}" for label, v in answered)
            reasons.append(f"every strong run disagrees with the key ({said})")
    if c.replies >= MIN_PARSED and c.unparsed == c.replies:
        codes.append("never-parsed")
        severity = max(severity, SEVERITY["never-parsed"])
        reasons.append(f"never parsed (none of {c.replies} replies held an answer the suite's "
                       "parser could read: the question or its answer format may be broken)")
    r, n = e.pbis
    irt_negative = e.irt is not None and e.irt[0] < 0
    if r is not None and n >= MIN_DISCRIMINATION and r <= NEGATIVE and (
            e.irt is None or irt_negative) and _below_zero(r, n) < NEGATIVE_P:
        codes.append("negative-discrimination")
        severity = max(severity, SEVERITY["negative-discrimination"])
        reasons.append(f"negative discrimination (point-biserial {r:+.2f} over {n} runs, "
                       f"p = {_below_zero(r, n):.3f}: the runs that do better elsewhere get it "
                       "wrong more often)")
    found = _blind(e)
    if found is not None:
        codes.append("answerable-blind")
        severity = max(severity, SEVERITY["answerable-blind"])
        reasons.append(f"answerable blind (every audit slice it is in is guessed above chance "
                       f"from the text alone; {found.get('key')}={found.get('value')}: "
                       f"{found.get('blind')} % right, chance {found.get('chance')} %)")
    a, b = (e.irt[0], -e.irt[1] / e.irt[0] if abs(e.irt[0]) >= 0.05 else None) if e.irt else (
        None, None)
    return {
        "id": item.id, "suspect": bool(codes), "reasons": reasons, "codes": codes,
        "severity": round(severity, 4), "unit": item.unit, "group": item.group,
        "role": item.role, "kind": item.kind, "key": item.target,
        "runs": c.runs, "share_right": c.share_right,
        "difficulty": None if c.share_right is None else round(1.0 - c.share_right, 4),
        "discrimination": None if r is None else round(r, 4), "discrimination_runs": n,
        "irt": None if a is None else {"unit": e.irt_unit, "a": round(a, 4),
                                       "b": None if b is None else round(b, 4)},
        "humans": c.humans, "human_right": c.human_right, "human_majority": majority,
        "human_agreement": c.agreement,
        "key_doubt": None if doubt is None else round(doubt.p_wrong, 4),
        "likely_answer": likely, "likely_systematic": systematic,
        "blind_solvable": found is not None,
        "image_insensitive": (c.same_without_image == c.ablation_pairs
                              if c.ablation_pairs else None),
        "ablation_pairs": c.ablation_pairs, "same_without_image": c.same_without_image,
        "parse_failures": c.unparsed, "replies": c.replies,
        "parser_disagreement": c.parser_disagreement,
        "judge_failures": c.judge_failures, "judge_disagreement": c.judge_spread,
    }
