"""The backend interface: requests in, responses out, optional likelihood ranking."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from whatifbench.core.item import Item
from whatifbench.errors import WhatifError
from whatifbench.models.decoding import Decoding
from whatifbench.secrets import SECRET_WORDS


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


SCENE_GENERATORS = {"cvqa-synthetic": "cvqa-synthetic", "cfmm-synthetic": "cfmm",
                    "mucr-synthetic": "mucr"}
"""The generators whose pictures whatifbench's scene engine draws (with ground-truth scenes in
their items), and the suite of each: what scene readers and oracle perception can see."""


def scene_generators_reason(suite: str, generator: str | None) -> str | None:
    """``None`` when a dataset of ``suite`` made by ``generator`` was drawn by our scene engine
    (an unknown ``generator`` is judged by the suite alone); else why not."""
    if generator is None and suite in SCENE_GENERATORS.values():
        return None
    if generator is not None and SCENE_GENERATORS.get(generator) == suite:
        return None
    made = f"was made by {generator or 'an unnamed generator'}" if generator is not None \
        else "is not one of them"
    return (f"it reads only pictures drawn by whatifbench's scene generators "
            f"({', '.join(SCENE_GENERATORS)}), and this {suite} dataset {made}")


def is_secret(name: str) -> bool:
    """True for backend argument names that hold credentials."""
    return any(word in name.lower() for word in SECRET_WORDS)


def public_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """Backend arguments with credentials left out, for run specs and cache keys."""
    return {k: v for k, v in sorted(args.items()) if not is_secret(k)}


class Backend(ABC):
    """A model. Subclasses register with ``@register("backend", name)``.

    ``generate`` and ``score`` yield ``(index, Response)`` as responses complete (in any order),
    so the runner can store each one as it arrives.
    """

    capabilities = Capabilities()
    name_arg_required = False
    """True for families such as ``hf:PATH`` that need the part after the colon."""
    execution_args: frozenset[str] = frozenset()
    """Argument names that change how requests are executed but never what the model answers
    (concurrency, timeouts, retries): recorded in run specs, left out of cache keys."""
    arg_names: frozenset[str] | None = None
    """The ``-M`` argument names this backend takes; any other is refused before any work.
    Every shipped backend declares them (``None``: not checked, for ad-hoc test backends)."""
    forwards_args = False
    """True for backends that pass arguments on to inner backends (``viper:openai:MODEL``): they
    receive every ``-M`` argument and check them themselves."""
    suites: frozenset[str] | None = None
    """The suites whose items this backend can answer (``None``: every suite); see
    ``inapplicable``."""
    uses_gpu = False
    """True for backends that run a network on their own machine (``hf:``): with
    ``--executor ray`` each actor then reserves a GPU when the cluster has GPUs."""
    reads_images = True
    """False for reference models whose answers never depend on the image (``builtin:random``,
    ``builtin:constant`` …): an image ablation of them would measure nothing and is refused."""

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        self.spec = spec
        self.args = dict(args)

    @property
    def version(self) -> str:
        """Identifies the model's behaviour for the cache key (weights hash, program version)."""
        return "1"

    def prepare(self, items: Sequence[Item]) -> None:  # noqa: B027  (optional hook)
        """Hook called once with the evaluated items before requests are sent."""

    def load(self) -> object:
        """Hook called before the first request is computed and before the progress bar
        starts (never when every answer comes from the run store): a backend that reads weights
        does it here, so its own loading messages do not cut across the progress bar. What it
        returns is not used."""
        return None

    def use_store(self, store: Any) -> None:  # noqa: B027  (optional hook)
        """Hook: the run store (``runner.store.RunStore``), for backends whose answers come
        from inner model calls that they cache themselves (program backends)."""

    @abstractmethod
    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Generate a reply for each request."""

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Score each request's candidates; backends that cannot rank say so."""
        raise WhatifError(
            f"The backend {self.spec} can only generate text, not rank answers by likelihood; "
            "use --answer-mode generate."
        )

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release resources."""

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """Why this backend cannot answer the items of a dataset of ``suite`` made by
        ``generator`` (the card's generator name), as the end of a sentence; ``None`` when it
        can. ``whatif run`` refuses such a pairing before any work, and leaves such default
        models out. The default reads ``suites``; backends refine it (the dataset's generator,
        their own arguments)."""
        suites = type(self).suites
        if suites is None or suite in suites:
            return None
        if not suites:
            return "it answers no benchmark's questions"
        return f"it answers only {', '.join(sorted(suites))} items, not {suite} ones"

    def needs_image(self) -> str | None:
        """Why this backend cannot answer a question sent without its image
        (``--image-ablation none``), as the end of a sentence; ``None`` when it can (the
        default: the question's text alone is a valid request)."""
        return None

    def ablation_refusal(self, kind: str) -> str | None:
        """Why ``--image-ablation KIND`` cannot be run with this backend, as the end of a
        sentence; ``None`` when it can. ``whatif run`` refuses such a pairing before any work
        (and leaves such default models out)."""
        if not type(self).reads_images:
            return ("its answers never depend on the image, so an image ablation would measure "
                    "nothing")
        return self.needs_image() if kind == "none" else None

    def applies_to(self, suite: str, generator: str | None = None) -> bool:
        """True when this backend can answer the items of ``suite`` (see ``inapplicable``)."""
        return self.inapplicable(suite, generator) is None

    def describe(self) -> dict[str, Any]:
        """Public description recorded in the run spec (no credentials)."""
        return {"spec": self.spec, "args": public_args(self.args), "version": self.version}

    def cache_identity(self) -> dict[str, Any]:
        """What identifies this backend's answers in cache keys: ``describe()`` without the
        ``execution_args``."""
        described = self.describe()
        args = {k: v for k, v in described.get("args", {}).items()
                if k not in self.execution_args}
        return {**described, "args": args}
