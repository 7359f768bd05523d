"""Per-item statistics from the runs: share right, point-biserial discrimination, people's
majority and agreement, parse failures, parser and judge disagreement, and image
insensitivity (the same answer with and without the image)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from whatifbench.analysis.items.keys import KEY, answer_value
from whatifbench.analysis.items.responses import Respondent
from whatifbench.core.item import Item
from whatifbench.core.records.schema import to_json
from whatifbench.core.suite import Sample


@dataclass(frozen=True)
class Counts:
    """The classical statistics of one item."""

    runs: int
    """Model runs (with images) that scored it."""
    share_right: float | None
    """Their share right."""
    humans: int
    """People who answered it."""
    human_right: float | None
    """Their share right."""
    majority: str | None
    """People's most frequent answer (``KEY`` for the key; ``None``: a tie or none)."""
    majority_votes: int
    """How many people gave it."""
    agreement: float | None
    """Share of people's answers that are the most frequent one."""
    unparsed: int
    """Replies of model runs (ablated too) that held no readable answer."""
    replies: int
    """Replies of model runs that could have been read (no backend error)."""
    parser_disagreement: float | None
    """Share of replies that the suite's parsers read differently (runs with several)."""
    judge_failures: int
    """Judged replies whose judge call failed or could not be read."""
    judge_spread: float | None
    """Largest difference between judges' scores of one model's reply (runs of one model
    and protocol judged by different judges)."""
    ablation_pairs: int
    """Models with a run with images and an ablated run that both answered it."""
    same_without_image: int
    """Of those, how many gave the same answer without the image."""


def point_biserial(respondents: Sequence[Respondent], items: Sequence[Item]
                   ) -> dict[str, tuple[float | None, int]]:
    """Per item: the correlation between being right on it and the respondent's share right on
    every other item (its rest score), over the voting respondents that scored it; ``None``
    when fewer than three did or either side does not vary."""
    voters = [r for r in respondents if r.votes]
    index = {item.id: k for k, item in enumerate(items)}
    x = np.zeros((len(voters), len(items)))
    seen = np.zeros((len(voters), len(items)), dtype=bool)
    for row, r in enumerate(voters):
        for s in r.run.samples:
            k = index.get(s.item_id)
            if k is not None and s.correct is not None:
                x[row, k] = float(s.correct)
                seen[row, k] = True
    totals = (x * seen).sum(axis=1, keepdims=True)
    counts = seen.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = np.where(counts - seen > 0, (totals - x * seen) / (counts - seen), np.nan)
    out: dict[str, tuple[float | None, int]] = {}
    for item, k in index.items():
        mask = seen[:, k] & ~np.isnan(rest[:, k])
        n = int(mask.sum())
        xs, ss = x[mask, k], rest[mask, k]
        if n < 3 or xs.std() == 0 or ss.std() == 0:
            out[item] = (None, n)
        else:
            out[item] = (float(np.corrcoef(xs, ss)[0, 1]), n)
    return out


def _protocol_key(r: Respondent, judge: bool = True) -> str:
    spec = r.run.spec
    parts = [r.run.model, str(to_json(spec.protocol)), str(spec.backend_args)]
    if judge:
        parts.append(str(to_json(spec.judge)))
    return "\n".join(parts)


def _judge_parts(sample: Sample) -> list[dict[str, object]]:
    parts = sample.judgement.get("parts") if isinstance(sample.judgement, dict) else None
    return [p for p in parts.values() if isinstance(p, dict)] if isinstance(parts, dict) else []


def item_counts(items: Sequence[Item], respondents: Sequence[Respondent]) -> dict[str, Counts]:
    """The ``Counts`` of every item."""
    by = {r.label: r.samples() for r in respondents}
    models = [r for r in respondents if r.kind == "model"]
    humans = [r for r in respondents if r.kind == "human"]
    machine = [r for r in respondents if r.kind in ("model", "ablated")]
    full = {_protocol_key(r): r for r in models}
    ablated = [(r, full.get(_protocol_key(r))) for r in respondents if r.kind == "ablated"]
    judged: dict[str, list[Respondent]] = {}
    for r in models:
        judged.setdefault(_protocol_key(r, judge=False), []).append(r)
    out: dict[str, Counts] = {}
    for item in items:
        scored = [s for r in models if (s := by[r.label].get(item.id)) is not None
                  and s.correct is not None]
        answers = [v for r in humans if (s := by[r.label].get(item.id)) is not None
                   and (v := answer_value(s)) is not None]
        tally = Counter(answers).most_common(2)
        tie = len(tally) == 2 and tally[0][1] == tally[1][1]
        replies = [s for r in machine if (s := by[r.label].get(item.id)) is not None
                   and s.error is None]
        several = [s for s in replies if len(s.parses) > 1]
        pairs = same = 0
        for abl, base in ablated:
            a = by[abl.label].get(item.id)
            b = by[base.label].get(item.id) if base is not None else None
            va, vb = (answer_value(a) if a else None), (answer_value(b) if b else None)
            if va is not None and vb is not None:
                pairs += 1
                same += va == vb
        spread = None
        for group in judged.values():
            scores = [s.score for r in group if (s := by[r.label].get(item.id)) is not None
                      and s.score is not None]
            if len(group) > 1 and len(scores) > 1:
                spread = max(spread or 0.0, max(scores) - min(scores))
        out[item.id] = Counts(
            runs=len(scored),
            share_right=_share(sum(bool(s.correct) for s in scored), len(scored)),
            humans=len(answers),
            human_right=_share(sum(v == KEY for v in answers), len(answers)),
            majority=None if not tally or tie else tally[0][0],
            majority_votes=tally[0][1] if tally and not tie else 0,
            agreement=_share(tally[0][1], len(answers)) if tally else None,
            unparsed=sum(s.unparsed for s in replies), replies=len(replies),
            parser_disagreement=_share(sum(len(set(s.parses.values())) > 1 for s in several),
                                       len(several)),
            judge_failures=sum(any(str(p.get("failure", "")).startswith("judge")
                                   for p in _judge_parts(s)) for s in replies),
            judge_spread=None if spread is None else round(spread, 4),
            ablation_pairs=pairs, same_without_image=same)
    return out


def _share(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def run_accuracy(respondent: Respondent) -> float | None:
    """A run's share right over the items it scored."""
    scored = [s for s in respondent.run.samples if s.correct is not None]
    return _share(sum(bool(s.correct) for s in scored), len(scored))


def shown_answer(value: str | None, item: Item) -> str | None:
    """An answer value as people read it (the key's own text for ``KEY``)."""
    if value is None:
        return None
    return item.target if value == KEY else value

