"""The Sample record: one scored item of a run (a line of ``samples.jsonl``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One scored item: what was asked, what came back, what was extracted, and whether right."""

    item_id: str
    """The item's id."""
    pair_id: str | None
    """Its pair."""
    role: str | None
    """Its role in the pair."""
    group: str | None
    """Its group."""
    question: str
    """The item's question."""
    prompt: str
    """The final prompt text sent to the model."""
    target: str
    """The correct answer."""
    response: str | None
    """The raw reply (generate mode)."""
    scores: list[float] | None
    """Rank mode: the score of each candidate that decided the prediction (summed or per-token
    mean log-probability, as ``--score-by`` chose), in candidate order."""
    prediction: str | None
    """The extracted (or ranked) answer; ``None`` when unparsed or failed."""
    correct: bool | None
    """Prediction equals the target; ``None`` for a free-text answer, which is graded by
    ``score`` (or not judged: ``judgement["not_judged"]``), never right or wrong."""
    unparsed: bool
    """The reply held no extractable answer (scored wrong)."""
    flag: str | None
    """Parser note (``truncated-think``, ``ambiguous`` ...)."""
    error: str | None
    """Backend failure after retries (scored wrong, counted, retried next run)."""
    parses: dict[str, str | None] = field(default_factory=dict)
    """The value each available parser extracted (for agreement statistics)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """The item's metadata (category, style, task ... used by suite metrics)."""
    score: float | None = None
    """Graded score of a free-text answer (e.g. a judge's 0–10); ``None`` when not graded."""
    judgement: dict[str, Any] = field(default_factory=dict)
    """How ``score`` was reached: per-part scores, judge replies, failures."""
    trace: dict[str, Any] | None = None
    """Program backends: the generated program, every tool call with its result, the final
    value and the failure (``{"kind": compile|raise|timeout, "reason", "limit"}``) if any."""
    model_input: str | None = None
    """The exact input text the model received, as its backend recorded it (``hf:`` the chat
    template applied, image placeholders unexpanded, then the answer prefix; ``openai:`` the
    messages as JSON with image placeholders instead of base64); ``None`` when not recorded."""
    generation: dict[str, Any] | None = None
    """The generation settings the request asked for (its decoding record and
    ``max_new_tokens``, e.g. ``{"do_sample": true, "temperature": 0.2, "max_new_tokens": 512,
    "seed": …}``); ``None`` when it carried none (the backend's greedy default)."""

    def to_json(self) -> dict[str, Any]:
        """One line of ``samples.jsonl``."""
        return dict(self.__dict__)


def backend_failed(sample: Sample) -> bool:
    """The item's model call failed, or a judge call grading it did (a judged suite marks those
    parts ``"failure": "judge-error"`` in ``judgement["parts"]``)."""
    if sample.error is not None:
        return True
    if not sample.judgement:
        return False
    parts = sample.judgement.get("parts") if isinstance(sample.judgement, dict) else None
    return isinstance(parts, dict) and any(
        isinstance(p, dict) and p.get("failure") == "judge-error" for p in parts.values())
