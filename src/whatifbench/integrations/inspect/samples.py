"""A whatifbench dataset as inspect ``Sample``s: the conversation our request builder makes (the
item's images, labelled where the suite labels them, then our prompt; demonstrations first for
one-shot strategies) and what the scorer needs to find the item.

A solver reads its ``TaskState``: the sample's metadata and its target. Neither holds an answer
(the target is empty, the metadata names the suite, the dataset and the prompt); the scorer
reads the items from the dataset folder itself (``scorer.whatif_answer``). ``with_answers``
puts the target and the whole item back (for other scorers; a solver can then read them)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
)

from whatifbench.core.dataset import Dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Turn
from whatifbench.errors import WhatifError
from whatifbench.integrations.views import inspect_fields
from whatifbench.runner.evaluate import get_suite, resolve_protocol
from whatifbench.runner.requests import RequestBuilder, choose_demos

if TYPE_CHECKING:
    from whatifbench.models.base import Backend


class _InspectModel:
    """What ``Suite.bind`` is told about the model: an inspect model is a chat API, so paper
    protocols that differ per model family take the release's API path (as for ``openai:``)."""

    spec = "openai:inspect"


def message(turn: Turn) -> ChatMessage:
    """One turn as an inspect chat message (images by absolute path)."""
    if turn.role == "assistant":
        return ChatMessageAssistant(content=turn.text)
    if turn.role == "system":
        return ChatMessageSystem(content=turn.text)
    content: list[Content] = [ContentImage(image=part.image) if part.image is not None
                              else ContentText(text=part.text or "") for part in turn.parts]
    return ChatMessageUser(content=content)


def resolved(dataset: Dataset, protocol: Protocol) -> Protocol:
    """The protocol with the suite's defaults, generated answers, bound to a chat API model
    (``prompt=paper`` follows the release's API path), checked for inspect."""
    protocol = resolve_protocol(get_suite(dataset.suite), replace(protocol, answer_mode="generate"),
                                cast("Backend", _InspectModel()))
    if protocol.strategy == "ccot":
        raise WhatifError("The ccot strategy asks the model twice per item; inspect tasks pose "
                          "each item once. Use zero-shot, cot, one-shot or one-shot-cot.")
    return protocol


def inspect_samples(dataset: Dataset, protocol: Protocol,
                    with_answers: bool = False) -> list[Sample]:
    """One inspect sample per item, in file order (see the module docstring)."""
    suite = get_suite(dataset.suite)
    demos = (choose_demos(dataset, dataset.items, 0, suite)
             if protocol.strategy in ("one-shot", "one-shot-cot") else {})
    builder = RequestBuilder(suite, protocol, dataset, demos)
    samples = []
    for item in dataset.items:
        request = builder.build(item)
        if request.answer_prefix:
            raise WhatifError(
                f"The prompt {protocol.prompt!r} of {suite.name} makes the reply start with "
                f"{request.answer_prefix!r}, which inspect tasks cannot impose; use "
                "prompt=default.")
        fields = inspect_fields(item, suite.name, request.prompt, dataset.card.name,
                                dataset.items_sha256, with_answers)
        samples.append(Sample(input=[message(turn) for turn in request.turns],
                              target=fields["target"], id=fields["id"],
                              metadata=fields["metadata"]))
    return samples
