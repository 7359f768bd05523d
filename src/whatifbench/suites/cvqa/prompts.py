"""C-VQA's paper protocol (``--prompt paper[:FAMILY]``): the release's request per model family.

``bind`` chooses the family from the backend (an ``hf:`` BLIP-2, InstructBLIP or Qwen2-VL
checkpoint gets its own, every other model LLaVA's) unless ``--prompt paper:FAMILY`` names it,
then fixes what the run sends (``families``): the family's prompt text; for a local checkpoint of
that family, the conversation the script writes itself (``templates``: LLaVA's ``llava_v1``
unless ``-M conv=`` or the checkpoint's name says otherwise, Qwen-VL's ChatML, LAVIS's bare
prompt) as the model's whole input; and the script's generation call (``--decoding release``,
the default: sampled where the script samples, seeded per item; ``--decoding greedy``: the same
request searched greedily). API models get the prompt text and the decoding's sampling settings
through their own chat template; built-in and program backends decode their own way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePath
from typing import Any

from whatifbench.core.contract import PAIRED_METRICS
from whatifbench.core.decoding import Decoding
from whatifbench.core.facts import SuiteFacts
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol, paper_family
from whatifbench.core.requests import Part, Turn
from whatifbench.core.suite import Suite
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.family import ModelHint, model_hint
from whatifbench.suites.cvqa.families import DEFAULT_FAMILY, FAMILIES, MODEL_TYPES, Family
from whatifbench.suites.cvqa.templates import IMAGE, Template, llava_conv, template

COT_SUFFIX = "Let's think step by step:"
"""C-VQA Table 4: the chain-of-thought cue post-pended to the questions (with its colon)."""
RELEASE = "Letian2003/C-VQA scripts/"


def family_of(prompt: str) -> Family:
    """The family a ``paper[:family]`` prompt names; a ``WhatifError`` for an unknown one."""
    name = prompt.split(":", 1)[1] if ":" in prompt else DEFAULT_FAMILY
    if name not in FAMILIES:
        raise WhatifError(
            f"Unknown paper prompt family {name!r}; use one of {', '.join(sorted(FAMILIES))} "
            "(e.g. --prompt paper:blip2)."
        )
    return FAMILIES[name]


def paper_prompt(question: str, prompt: str) -> str:
    """The release's prompt text for ``--prompt paper`` or ``--prompt paper:<family>``."""
    return family_of(prompt).prompt.format(q=question)


def _conv(backend: Backend) -> str | None:
    value = (getattr(backend, "args", None) or {}).get("conv")
    return None if value is None else str(value)


def _template(family: Family, hint: ModelHint, named: bool, conv: str | None) -> str | None:
    """The template of a request to this backend: a local checkpoint of the family (or any
    local checkpoint the family is forced on) gets the script's own; others none."""
    if conv is not None and family.template != "llava":
        raise WhatifError(f"-M conv={conv} chooses LLaVA's conversation template, but the "
                          f"paper family here is {family.name}; use --prompt paper:llava or "
                          "leave -M conv out.")
    if hint.kind != "hf" or family.template is None:
        return None
    if not named and MODEL_TYPES.get(hint.model_type) != family.name and conv is None:
        return None  # a model the release never ran: its own chat template
    if family.template == "llava":
        return llava_conv(PurePath(hint.name.rstrip("/")).name, conv)
    return family.template


def bind_family(protocol: Protocol, backend: Backend) -> Protocol:
    """``--prompt paper`` → the family of the backend, its template, decoding and budget
    (recorded in the run spec); ``--prompt paper:FAMILY`` is checked and kept; other prompts
    keep greedy decoding."""
    paper, named = paper_family(protocol.prompt)
    conv = _conv(backend)
    if not paper:
        if protocol.decoding == "release":
            raise WhatifError("--decoding release repeats a release script's generation call, "
                              "which belongs to its request: use it with --prompt paper.")
        if conv is not None:
            raise WhatifError(f"-M conv={conv} chooses the conversation template of C-VQA's "
                              "paper protocol; add --prompt paper or leave -M conv out.")
        return protocol
    hint = model_hint(backend)
    family = family_of(protocol.prompt) if named is not None else \
        FAMILIES[MODEL_TYPES.get(hint.model_type, DEFAULT_FAMILY) if hint.kind == "hf"
                 else DEFAULT_FAMILY]
    chosen = _template(family, hint, named is not None, conv)
    if chosen is not None and protocol.strategy in ("one-shot", "one-shot-cot"):
        raise WhatifError(
            f"The release's {family.script} asks each question on its own ({chosen} "
            f"conversation), so --strategy {protocol.strategy} has no release request; use "
            "--strategy zero-shot or cot, or --prompt default.")
    decoding = protocol.decoding or ("release" if family.decoding is not None else "greedy")
    if decoding == "release" and family.decoding is None:
        raise WhatifError(
            f"The release's {family.script} decodes inside the model's own chat code, which "
            "whatifbench does not reproduce; use --decoding greedy.")
    return replace(protocol, prompt=f"paper:{family.name}", family=family.name,
                   decoding=decoding, template=chosen,
                   max_new_tokens=protocol.max_new_tokens or family.max_new_tokens)


def _bound(protocol: Protocol) -> Family | None:
    return FAMILIES[protocol.family] if protocol.prompt.startswith("paper") and \
        protocol.family in FAMILIES else None


def paper_turns(protocol: Protocol, images: tuple[Part, ...], text: str) -> tuple[Turn, ...]:
    """The user turn of a templated paper request: the template around the family's message,
    the image where the script puts its placeholder (``Request.plain``)."""
    family = _bound(protocol)
    if family is None or protocol.template is None:
        raise ValueError("paper_turns needs a bound, templated paper protocol")
    rendered = template(protocol.template).render(family.message(text))
    before, _, after = rendered.partition(IMAGE)
    parts = (Part(text=before), *images, Part(text=after))
    return (Turn("user", tuple(p for p in parts if p.image is not None or p.text)),)


def paper_decoding(protocol: Protocol) -> Decoding | None:
    """The decoding record of a bound paper protocol (``None`` for other protocols and for
    backends that decode their own way)."""
    family = _bound(protocol)
    if family is None or protocol.decoding not in ("release", "greedy"):
        return None
    chosen: Template | None = template(protocol.template) if protocol.template else None
    decoding = family.release_decoding(chosen) or Decoding()
    return decoding if protocol.decoding == "release" else decoding.greedy()


def describe_paper(protocol: Protocol) -> dict[str, Any] | None:
    """``spec.request`` of a paper run: the script, template, the prompt with ``<image>`` and
    ``{question}`` placeholders, and the generation settings (seeded per item when sampled)."""
    family = _bound(protocol)
    if family is None:
        return None
    text = family.prompt.format(q="{question}")
    if protocol.template is not None:
        text = template(protocol.template).render(family.message(text))
    decoding = paper_decoding(protocol)
    return {"family": family.name, "release": RELEASE + family.script,
            "template": protocol.template, "prompt": text.replace(IMAGE, "<image>"),
            "decoding": protocol.decoding,
            "generation": None if decoding is None else
            {**decoding.to_json(), "max_new_tokens": protocol.max_new_tokens,
             **({"seed": "per item, from --seed"} if decoding.do_sample else {})}}


class PaperSuite(Suite):
    """The paper-protocol hooks and the contract both C-VQA suites share."""

    release_decoding = True
    cot_suffix = COT_SUFFIX
    facts = SuiteFacts(
        headline="counterfactual_accuracy", headline_name="counterfactual accuracy (%)",
        unit="counterfactual questions", pair_roles=("original", "counterfactual"),
        scored_roles=("counterfactual",), reported_metrics=(*PAIRED_METRICS, "unparsed"))
    """The counterfactual questions are what the papers score; the paired metrics and the
    unparsed share are reported by other tools."""

    def bind(self, protocol: Protocol, backend: Backend) -> Protocol:
        """``--prompt paper``: the release's request for the backend's model family."""
        return bind_family(protocol, backend)

    def user_turns(self, item: Item, protocol: Protocol, images: tuple[Part, ...],
                   text: str) -> tuple[Turn, ...]:
        """A templated paper request is the template's text around the image; others are one
        user turn, images first."""
        if _bound(protocol) is not None and protocol.template is not None:
            return paper_turns(protocol, images, text)
        return super().user_turns(item, protocol, images, text)

    def plain_prompt(self, protocol: Protocol) -> bool:
        """Templated paper requests are the model's whole input."""
        return _bound(protocol) is not None and protocol.template is not None

    def decoding(self, protocol: Protocol) -> Decoding | None:
        """The release script's generation call (or its greedy form)."""
        return paper_decoding(protocol)

    def describe_request(self, protocol: Protocol) -> dict[str, Any] | None:
        """The paper request, recorded once per run."""
        return describe_paper(protocol)
