"""Pieces shared by the integrations: optional imports, the prompt we pose, image labels."""

from __future__ import annotations

import importlib
from types import ModuleType

from whatifbench.core.dataset import Dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.errors import WhatifError

EXTRAS = {"datasets": "datasets", "inspect_ai": "inspect", "yaml": "datasets"}
"""Optional module → the whatifbench extra that installs it."""

GENERATE = Protocol(answer_mode="generate")
"""The protocol whose prompts the integrations reproduce: our default prompt, zero-shot,
generated answers (rank-mode suites such as CFMM are posed with their lettered options)."""


def require(module: str) -> ModuleType:
    """Import an optional library or raise the ``pip install`` line that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRAS.get(module, module)
        raise WhatifError(
            f"This needs the optional library '{module}'; install it with "
            f'pip install "whatifbench[{extra}]".'
        ) from None


def prompts(dataset: Dataset) -> dict[str, str]:
    """Per item id: the prompt text whatifbench poses (``GENERATE`` protocol), exactly as
    ``whatif run --answer-mode generate`` sends it after the item's images."""
    from whatifbench.runner.evaluate import get_suite
    from whatifbench.runner.requests import RequestBuilder

    suite = get_suite(dataset.suite)
    protocol = GENERATE.resolved(suite.default_answer_mode, suite.default_score_by,
                                 suite.default_max_new_tokens)
    builder = RequestBuilder(suite, protocol, dataset)
    return {item.id: builder.text(item) for item in dataset.items}


def max_new_tokens(dataset: Dataset) -> int:
    """The generation budget of the ``GENERATE`` protocol for the dataset's suite."""
    from whatifbench.runner.evaluate import get_suite

    return get_suite(dataset.suite).default_max_new_tokens


def image_labels(item: Item) -> list[str]:
    """The label written before each image (MuCR's ``Cause``, ``A`` …), or none."""
    labels = item.meta.get("image_labels")
    if isinstance(labels, list) and len(labels) == len(item.images):
        return [str(label) for label in labels]
    return []
