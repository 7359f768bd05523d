"""An item as an annotator sees it: the request a model gets (the same images, MuCR's composite,
the same question and options), and the answer form; nothing of the answer key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from whatifbench.answers.letters import letter_for
from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.core.suite import Suite
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.requests import RequestBuilder

PROTOCOL = Protocol(answer_mode="generate", image_layout="composite")
"""How items are posed to people (and recorded in their runs): our default prompt, generated
answers, several images as one labelled composite (MuCR Fig. 7a)."""
EXPLAIN_PARTS = ("Describe the cause image.", "Describe the effect image.",
                 "Explain how the cause leads to the effect, using the cue.")
"""The three fields of an explanation item (MuCR Exp), written as a numbered reply."""


@dataclass(frozen=True)
class Shown:
    """What the page shows for one item."""

    text: str
    """The prompt text exactly as a model reads it after the images."""
    images: tuple[str, ...]
    """Image files, in order (a composite file for multi-image items)."""
    form: str
    """``choice``, ``yes-no``, ``number``, ``explain`` (three fields) or ``text``."""
    options: tuple[tuple[str, str], ...] = ()
    """Choice items: (letter, option text) per option; the letter is the reply."""

    def to_json(self, image_url: Any) -> dict[str, Any]:
        """The page's item (``image_url(path)`` names each image's address)."""
        return {"text": self.text, "images": [image_url(p) for p in self.images],
                "form": self.form, "options": [list(o) for o in self.options],
                "parts": list(EXPLAIN_PARTS) if self.form == "explain" else []}


class Presenter:
    """Builds what annotators see for the items of one dataset."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.suite: Suite = get_suite(dataset.suite)
        self.protocol = PROTOCOL.resolved(self.suite.default_answer_mode,
                                          self.suite.default_score_by,
                                          self.suite.default_max_new_tokens)
        self.builder = RequestBuilder(self.suite, self.protocol, dataset)
        self.items = {item.id: item for item in dataset.items}

    def show(self, item_id: str) -> Shown:
        """The item as posed (the final user turn of its request)."""
        item = self.items[item_id]
        request = self.builder.build(item)
        parts = request.turns[-1].parts
        text = "\n".join(p.text for p in parts if p.text)
        images = tuple(str(p.image) for p in parts if p.image)
        return Shown(text, images, form_of(item), options_of(item))

    def readable(self, item_id: str, reply: str) -> bool:
        """Whether the suite's own parser finds an answer in ``reply``."""
        item = self.items[item_id]
        found = self.suite.extract(item, reply, self.protocol)
        primary = found.get(self.protocol.parser) or next(iter(found.values()))
        return primary.value is not None


def form_of(item: Item) -> str:
    """The answer form of an item."""
    if item.kind == "text":
        refs = item.meta.get("references")
        return "explain" if isinstance(refs, list) and len(refs) == 3 else "text"
    return item.kind


def options_of(item: Item) -> tuple[tuple[str, str], ...]:
    """(letter, text) per option of a choice item; image options (MuCR's C2E/E2C, whose
    choices are the letters) read ``image A`` …"""
    if item.kind != "choice":
        return ()
    letters = [letter_for(i) for i in range(len(item.choices))]
    if list(item.choices) == letters:
        return tuple((x, f"image {x}") for x in letters)
    return tuple(zip(letters, item.choices, strict=True))


def explanation_reply(parts: list[str]) -> str:
    """Three explanation fields as the numbered reply the question asks for."""
    return "\n".join(f"{k}. {' '.join(p.split())}" for k, p in enumerate(parts, start=1))
