"""Exp scoring (MuCR Eq. 5–9): each of the three explanations is compared with the human
references by a judge scoring 0–10, and ``Exp = 0.25·S_cause + 0.25·S_effect + 0.5·S_link``.

Two kinds of judge, chosen by what the ``--judge`` backend can do:

- a backend that writes text (``openai:MODEL`` as in the paper's GPT-4, ``hf:PATH``) is asked
  ``JUDGE_PROMPT`` once per part and its reply's number (0–10) is the part's score;
- a backend that only scores texts (``embedding:all-MiniLM-L6-v2``, offline) gives the cosine
  similarity of the part to each reference; the highest is mapped linearly to 0–10 between
  ``SIM_FLOOR`` (unrelated sentences, → 0) and ``SIM_CEIL`` (paraphrases, → 10), clipped.

A part the model did not write scores 0 without a judge call; a judge call that fails or whose
reply holds no number scores 0 and is counted (``n_judge_failures``; failed calls are retried on
the next run). All judge calls go through the run store. When the default (offline) judge cannot
be used because its extra is not installed and no ``--judge`` was given, Exp is not judged:
its samples keep ``score`` ``None`` with the reason in ``judgement["not_judged"]``, and the other
three metrics are computed as usual. Exp samples are never right or wrong (``correct`` is
``None``): their grade is ``score``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from whatifbench.answers.think import strip_think
from whatifbench.core.item import Item
from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError
from whatifbench.models.embedding import INSTALL
from whatifbench.runner.judge import JudgeRuntime
from whatifbench.suites.mucr.explanations import PARTS, Explanations, split_explanations

WEIGHTS = (0.25, 0.25, 0.5)
"""λ1, λ2, λ3 of MuCR Eq. 9 (cause image, effect image, causal link)."""
SIM_FLOOR = 0.1
"""Cosine similarity mapped to 0 (typical of unrelated sentences with all-MiniLM-L6-v2)."""
SIM_CEIL = 0.8
"""Cosine similarity mapped to 10 (typical of close paraphrases with all-MiniLM-L6-v2)."""
JUDGE_TOKENS = 32
"""Generation budget of a text judge's reply (a number)."""

WHAT = {
    "cause": "a description of the cause image",
    "effect": "a description of the effect image",
    "link": "an explanation of how the cause leads to the effect",
}

JUDGE_PROMPT = (
    "You are grading an answer of a vision-language model. The model was shown a cause image "
    "and its effect image and wrote {what}.\n\n"
    "Human reference:\n{references}\n\n"
    "Model's answer:\n{candidate}\n\n"
    "How similar in meaning is the model's answer to the human reference? Judge the content, "
    "not the wording or the length. Score from 0 (unrelated, wrong or contradictory) to 10 (the "
    "same meaning, nothing important missing). Reply with the score only: a whole number from "
    "0 to 10."
)
"""The text judge's prompt (one call per explanation part; recorded in the run spec)."""

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)")


def not_judged_hint(why: str) -> str:
    """The one line shown where Exp is not judged: why, and the two ways to judge it."""
    install = "" if INSTALL in why else f" Install the offline judge with {INSTALL}."
    return (f"Exp not judged: {why.rstrip('.')}.{install} Or pass --judge SPEC to use another "
            "judge (e.g. --judge openai:gpt-4o).")


def similarity_score(cosine: float) -> float:
    """Cosine similarity → 0–10: linear between ``SIM_FLOOR`` and ``SIM_CEIL``, clipped."""
    share = (cosine - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR)
    return round(10.0 * min(1.0, max(0.0, share)), 4)


def reply_score(reply: str | None) -> float | None:
    """The 0–10 score a text judge wrote (its first number), or ``None``."""
    text, cut = strip_think(reply or "")
    match = _NUMBER.search(text) if not cut else None
    if match is None:
        return None
    value = float(match.group(1))
    return value if 0.0 <= value <= 10.0 else None


def judge_prompt(part: str, candidate: str, references: Sequence[str]) -> str:
    """The text judge's prompt for one part."""
    refs = "\n".join(f"- {r}" for r in references)
    return JUDGE_PROMPT.format(what=WHAT[part], references=refs, candidate=candidate)


def grade(samples: Sequence[Sample], items: Sequence[Item], judge: JudgeRuntime) -> list[Sample]:
    """Fill ``score`` and ``judgement`` of the Exp samples; other samples are unchanged."""
    out = list(samples)
    todo = [k for k, item in enumerate(items) if item.group == "exp"]
    if not todo:
        return out
    if judge.unavailable is not None:  # the default judge's extra is not installed
        reason = not_judged_hint(judge.unavailable)
        for k in todo:
            out[k] = dataclasses.replace(out[k], correct=None, score=None,
                                         judgement={"not_judged": reason})
        return out
    backend = judge.backend
    if backend.capabilities.generate:
        method = "text"
    elif backend.capabilities.rank:
        method = "similarity"
    else:
        raise WhatifError(f"The judge {judge.spec} can neither write nor score texts.")
    tasks: list[tuple[int, int, str, tuple[str, ...]]] = []  # (sample, part, text, refs)
    found: dict[int, Explanations | None] = {}
    for k in todo:
        sample, item = out[k], items[k]
        found[k] = split_explanations(sample.response or "") if sample.error is None else None
        refs = [tuple(r) for r in item.meta.get("references", [])]
        if len(refs) != len(PARTS):
            raise WhatifError(f"Item {item.id} has no three reference explanations in "
                              "meta['references']; re-import the dataset.")
        explained = found[k]
        for p, text in enumerate(explained.parts if explained else (None, None, None)):
            if text:
                tasks.append((k, p, text, refs[p]))
    requests = [_request(items[k], p, text, refs, method) for k, p, text, refs in tasks]
    responses = judge.ask(requests, "generate" if method == "text" else "rank")
    scores: dict[tuple[int, int], tuple[float | None, Response]] = {}
    for (k, p, _text, _refs), response in zip(tasks, responses, strict=True):
        scores[(k, p)] = (_verdict(response, method), response)
    judge.record(method=method, weights=list(WEIGHTS), **(
        {"prompt": JUDGE_PROMPT} if method == "text"
        else {"mapping": f"10 * clip((max cosine - {SIM_FLOOR}) / ({SIM_CEIL} - {SIM_FLOOR}), "
                         "0, 1)"}))
    for k in todo:
        parts: dict[str, Any] = {}
        failures = 0
        total = 0.0
        explained = found[k]
        for p, name in enumerate(PARTS):
            text = explained.parts[p] if explained else None
            entry: dict[str, Any] = {"text": text, "score": 0.0}
            if (k, p) in scores:
                value, response = scores[(k, p)]
                if method == "text":
                    entry["reply"] = response.text
                else:
                    entry["similarities"] = list(response.scores or ())
                if value is None:
                    failures += 1
                    entry["failure"] = "judge-error" if response.error else "judge-unparsed"
                else:
                    entry["score"] = value
            total += WEIGHTS[p] * entry["score"]
            parts[name] = entry
        out[k] = dataclasses.replace(out[k], correct=None, score=round(total, 4), judgement={
            "parts": parts, "flag": explained.flag if explained else "error",
            "judge_failures": failures})
    return out


def _request(item: Item, part: int, text: str, refs: tuple[str, ...], method: str) -> Request:
    name = PARTS[part]
    if method == "text":
        prompt = judge_prompt(name, text, refs)
        return Request(item_id=f"{item.id}#judge-{name}",
                       turns=(Turn("user", (Part(text=prompt),)),), max_new_tokens=JUDGE_TOKENS)
    return Request(item_id=f"{item.id}#judge-{name}", turns=(Turn("user", (Part(text=text),)),),
                   candidates=refs)


def _verdict(response: Response, method: str) -> float | None:
    if response.error is not None:
        return None
    if method == "text":
        return reply_score(response.text)
    if not response.scores:
        return None
    return similarity_score(max(response.scores))
