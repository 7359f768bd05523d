"""The backend interface: requests in, responses out, optional likelihood ranking."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.secrets import SECRET_WORDS


def scene_generators_reason(suite: str, generator: str | None) -> str | None:
    """``None`` when a dataset of ``suite`` made by ``generator`` shows pictures drawn by our
    scene engine (the suite's ``drawn_by``; with no generator recorded, any dataset of
    a suite that has them); else why not."""
    from whatifbench.core.registry import listing
    from whatifbench.core.suite import suite_for

    drawn = suite_for(suite).drawn_by()
    if drawn and (generator is None or generator in drawn):
        return None
    every = sorted({g.name for g in listing("generator") if g.scenes})
    made = f"was made by {generator or 'an unnamed generator'}" if generator is not None \
        else "is not one of them"
    return (f"it reads only pictures drawn by whatifbench's scene generators "
            f"({', '.join(every)}), and this {suite} dataset {made}")


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
