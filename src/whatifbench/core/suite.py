"""The Suite base class: how a benchmark's items are posed, parsed, scored and tabulated."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.letters import extract_choice, letter_for
from whatifbench.core.contract import SuiteContract
from whatifbench.core.decoding import Decoding
from whatifbench.core.item import Item
from whatifbench.core.protocol import COT_SUFFIX, Protocol
from whatifbench.core.records.sample import Sample
from whatifbench.core.requests import Part, Turn
from whatifbench.errors import WhatifError

if TYPE_CHECKING:
    from pathlib import Path

    from whatifbench.core.dataset import Dataset
    from whatifbench.core.records.run import RunResult
    from whatifbench.core.table import Table


class Suite(SuiteContract, ABC):
    """Base class of a benchmark's protocol; subclasses register with ``@register("suite", …)``.

    The defaults handle multiple-choice items whose options are listed as letters; suites
    override what differs (prompts, parsers, metrics, tables, and the contract's hooks:
    ``core.contract.SuiteContract``).
    """

    name = "suite"
    default_answer_mode = "generate"
    default_score_by = "sum"
    """Rank mode default: ``sum`` or per-token ``mean`` log-probability of a candidate."""
    parsers: tuple[str, ...] = ("default",)
    """Parsers available for ``--parser`` (and all reported)."""
    prompts: tuple[str, ...] = ("default",)
    """Prompt variants available for ``--prompt``."""
    cot_suffix = COT_SUFFIX
    """Appended to the question by ``--strategy cot``."""
    subsets: tuple[str, ...] = ()
    """Named selections for ``--subset NAME`` (e.g. ``paper``: the release's sampling)."""
    default_max_new_tokens = 64
    """Generation budget without reasoning strategies (suites with free-text items raise it)."""
    default_judge: str | None = None
    """Judge backend spec used for free-text answers when the run names none (``--judge``)."""
    release_decoding = False
    """True for suites whose paper protocol repeats a release script's decoding
    (``--decoding release``, see ``decoding``)."""

    def check_protocol(self, protocol: Protocol) -> None:
        """Reject prompt or parser names this suite does not offer."""
        family = protocol.prompt.split(":", 1)[0]
        if protocol.prompt not in self.prompts and family not in self.prompts:
            raise WhatifError(
                f"The suite {self.name} has no prompt {protocol.prompt!r}; use one of "
                f"{', '.join(self.prompts)}."
            )
        if protocol.decoding == "release" and not self.release_decoding:
            raise WhatifError(
                f"The suite {self.name} has no release decoding to repeat (its paper protocol, "
                "if any, decodes greedily); leave --decoding out or use --decoding greedy."
            )
        if protocol.parser not in self.parsers:
            raise WhatifError(
                f"The suite {self.name} has no parser {protocol.parser!r}; use one of "
                f"{', '.join(self.parsers)}."
            )

    def bind(self, protocol: Protocol, backend: Any) -> Protocol:
        """The protocol for this backend (a ``models.base.Backend``), before anything is
        asked: suites whose paper protocol differs per model family fill ``Protocol.family``
        from the backend (or check the one ``--prompt paper:FAMILY`` names). The default keeps
        the protocol as given."""
        return protocol

    def select(self, items: Sequence[Item], name: str, seed: int) -> list[Item]:
        """The items of the named subset ``name`` (``--subset NAME``); suites that offer one
        list it in ``subsets`` and override this."""
        offered = f"; this suite offers {', '.join(self.subsets)}" if self.subsets else ""
        raise WhatifError(
            f"The suite {self.name} has no subset named {name!r}{offered}. Pass --subset as a "
            "fraction such as 0.1, or a named subset the suite offers."
        )

    # -- posing ------------------------------------------------------------------------------
    def prompt_text(self, item: Item, protocol: Protocol) -> str:
        """The question as the model reads it."""
        if item.kind == "choice" and not _lists_options(item):
            options = "\n".join(f"{letter_for(i)}. {c}" for i, c in enumerate(item.choices))
            text = f"{item.question}\n{options}"
        else:
            text = item.question
        if item.kind == "choice":
            text += "\nAnswer with the option's letter from the given choices directly."
        return text

    def user_turns(self, item: Item, protocol: Protocol, images: tuple[Part, ...],
                   text: str) -> tuple[Turn, ...]:
        """The turns that pose the final question: by default one user turn, the images first
        and then ``text``. Paper protocols that differ (a system message, the text before the
        image, a template of their own) override this."""
        return (Turn("user", (*images, Part(text=text))),)

    def plain_prompt(self, protocol: Protocol) -> bool:
        """Whether the requests' text is the model's whole input, sent without a chat template
        (``Request.plain``)."""
        return False

    def decoding(self, protocol: Protocol) -> Decoding | None:
        """The decoding record of the requests (``Request.decoding``; the request builder seeds
        sampled ones per item); ``None``: the backend's default, greedy."""
        return None

    def describe_request(self, protocol: Protocol) -> dict[str, Any] | None:
        """What the requests of a run are, recorded once in ``results.json`` (``spec.request``):
        a paper protocol's release script, template, prompt and generation settings."""
        return None

    def answer_text(self, item: Item) -> str:
        """How the correct answer is written in a one-shot demonstration."""
        if item.kind == "choice":
            return f"{letter_for(item.target_index)}"
        return item.target

    def may_demonstrate(self, demo: Item, item: Item) -> bool:
        """Whether ``demo`` may be the one-shot demonstration of ``item``: never an item of
        its own pair or set, nor one that shows any of its pictures (another question about
        the same scene, whose answer may tell the item's); suites add their own
        exclusions."""
        return demo.id != item.id and (demo.pair_id is None or demo.pair_id != item.pair_id) \
            and not set(demo.images) & set(item.images)

    def explain(self, item: Item) -> str | None:
        """A short reasoning for one-shot-CoT demonstrations, or ``None`` if unknown."""
        return item.provenance.get("explanation")

    def candidates(self, item: Item, protocol: Protocol) -> tuple[str, ...]:
        """Rank mode: the continuations to score (by default the options' letters)."""
        if item.kind != "choice":
            raise WhatifError(
                f"Item {item.id} is a {item.kind} question; only multiple-choice items can be "
                "ranked. Use --answer-mode generate."
            )
        return tuple(letter_for(i) for i in range(len(item.choices)))

    def answer_prefix(self, item: Item, protocol: Protocol) -> str:
        """Text the reply is forced to start with (rank mode scores what follows it)."""
        return ""

    # -- scoring -----------------------------------------------------------------------------
    def extract(self, item: Item, reply: str, protocol: Protocol) -> dict[str, Extraction]:
        """Run every parser on a reply; keys are parser names."""
        if item.kind == "choice":
            return {"default": extract_choice(reply, item.choices)}
        raise WhatifError(f"The suite {self.name} cannot parse {item.kind} answers.")

    def from_rank(self, item: Item, protocol: Protocol, scores: Sequence[float]) -> str:
        """The answer a ranking picks: the choice whose candidate scored highest."""
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return item.choices[best]

    def is_correct(self, item: Item, value: str | None) -> bool:
        """Exact match of the extracted value with the target."""
        return value is not None and value == item.target

    def judge(self, samples: Sequence[Sample], items: Sequence[Item],
              judge: Any) -> list[Sample]:
        """Grade free-text answers (fill ``Sample.score``) through cached judge calls (``judge``:
        a ``runner.judge.JudgeRuntime``); suites without free-text items keep the samples as
        they are."""
        return list(samples)

    # -- results -----------------------------------------------------------------------------
    @abstractmethod
    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """The run's metrics (``results.json`` → ``runs[i].metrics``)."""

    def tables(self, runs: Sequence[RunResult]) -> list[Table] | None:
        """Tables in the paper's layout, one row per run; ``None`` (the default): the tables
        that follow from the facts (``report.default_tables``: a row per run, a column per
        reported metric with its interval)."""
        return None

    def stats(self, dataset: Dataset, plots: Path | None = None) -> list[Table]:
        """Dataset statistics for ``whatif stats`` (suites add their own; ``plots``: where
        ``whatif stats --plots`` draws, the answer histograms added by the command)."""
        from whatifbench.core.datastats import basic_stats

        return basic_stats(dataset)


def _lists_options(item: Item) -> bool:
    """True when the question text already lists lettered options (C-VQA-Synthetic style)."""
    return all(f"{letter_for(i)}:" in item.question or f"({letter_for(i)})" in item.question
               for i in range(len(item.choices)))


def suite_for(name: str) -> Suite:
    """The registered suite named ``name`` (a dataset's ``card.suite``), one instance each."""
    found = _SUITES.get(name)
    if found is None:
        from whatifbench.core.registry import lookup

        found = _SUITES[name] = lookup("suite", name).obj()
    return found


_SUITES: dict[str, Suite] = {}
