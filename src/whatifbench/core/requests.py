"""The request types: what a backend is asked (``Request``: turns of text and image ``Part``s)
and what it answers (``Response``), and what a backend can do (``Capabilities``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from whatifbench.core.decoding import Decoding
from whatifbench.core.item import Item


@dataclass(frozen=True)
class Part:
    """A piece of a message: text, or an image given by its absolute path."""

    text: str | None = None
    """The text, for text parts."""
    image: str | None = None
    """Absolute image path, for image parts."""

    @property
    def is_image(self) -> bool:
        """True for image parts."""
        return self.image is not None


@dataclass(frozen=True)
class Turn:
    """One message of a conversation."""

    role: str
    """``user`` or ``assistant``."""
    parts: tuple[Part, ...]
    """Text and images in the order they are shown."""

    @property
    def text(self) -> str:
        """All text parts joined with newlines."""
        return "\n".join(p.text for p in self.parts if p.text is not None)

    @property
    def images(self) -> tuple[str, ...]:
        """Image paths in order."""
        return tuple(p.image for p in self.parts if p.image is not None)


@dataclass(frozen=True)
class Request:
    """What a backend is asked for one item."""

    item_id: str
    """Id of the item this request poses."""
    turns: tuple[Turn, ...]
    """The conversation; the last turn is the user's question (demonstrations come first)."""
    candidates: tuple[str, ...] = ()
    """Rank mode: the continuations to score after the prompt."""
    answer_prefix: str = ""
    """Text the assistant's reply is forced to start with (e.g. ``The best answer is: (``)."""
    max_new_tokens: int = 64
    """Generation budget."""
    plain: bool = False
    """The parts of the turns are the model's whole input, in order: text sent as is, without
    a chat template, each image part standing for the model's image placeholder (a paper
    protocol that wrote its own template, e.g. CELLO's LLaVA path). Only local models honour it."""
    decoding: Decoding | None = None
    """How the reply is generated and read back (a release script's sampling, beams, stop
    string, special tokens); ``None``: the backend's default, greedy (``models.decoding``)."""
    item: Item | None = field(default=None, compare=False)
    """The item itself, for program backends that read the question (not part of the cache key)."""

    @property
    def images(self) -> tuple[str, ...]:
        """All images of the request, demonstrations included, in order."""
        return tuple(img for turn in self.turns for img in turn.images)

    @property
    def prompt(self) -> str:
        """Text of the final user turn."""
        return self.turns[-1].text


@dataclass(frozen=True)
class Response:
    """A backend's answer to one request."""

    text: str | None = None
    """Generated text (generate mode)."""
    scores: tuple[float, ...] | None = None
    """Rank mode: summed token log-probability of each candidate."""
    mean_scores: tuple[float, ...] | None = None
    """Rank mode: per-token mean log-probability of each candidate."""
    error: str | None = None
    """Why the call failed after all retries (the item is counted as an error and retried on
    the next run)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Backend facts worth keeping (token counts, finish reason, latency)."""

    def to_json(self) -> dict[str, Any]:
        """JSON form stored in the run store."""
        return {"text": self.text, "scores": self.scores, "mean_scores": self.mean_scores,
                "error": self.error, "meta": self.meta}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Response:
        """Inverse of ``to_json``."""
        scores = obj.get("scores")
        means = obj.get("mean_scores")
        return cls(text=obj.get("text"), scores=tuple(scores) if scores is not None else None,
                   mean_scores=tuple(means) if means is not None else None,
                   error=obj.get("error"), meta=dict(obj.get("meta") or {}))


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do."""

    generate: bool = True
    """Produces text."""
    rank: bool = False
    """Scores candidate continuations by likelihood."""
    multi_image: bool = False
    """Accepts several images in one request."""
