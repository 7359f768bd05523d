"""The dataset card (``README.md``) of a Hugging Face export: YAML metadata the hub reads
(license, task categories, size, configs) plus a ``whatifbench`` section holding our card
(generator, parameters, seed, counts, hashes) that ``whatif import hf`` restores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import Dataset
from whatifbench.errors import WhatifError
from whatifbench.integrations.common import require

CARD_KEY = "whatifbench"
"""YAML key of our card inside the metadata."""

FIELDS = (
    ("id", "the item's id (unique)"),
    ("image / images", "the image (or the list of images, in the order they are shown)"),
    ("image_paths", "each image's path inside the whatifbench dataset folder"),
    ("question", "the question, verbatim"),
    ("kind", "answer kind: choice, number, yes-no or text"),
    ("choices", "the options of a choice item (empty otherwise)"),
    ("target", "the correct answer (for choice items, one of `choices`)"),
    ("pair_id", "items asked about the same image(s) share it (the unit of the paired metrics)"),
    ("role", "its role in the pair: original/basic or counterfactual (MuCR: c2e, e2c, cue, exp)"),
    ("group", "the suite's grouping (template, category, task ...)"),
    ("meta", ("suite metadata, a JSON string (without the keys only whatifbench needs, unless "
              "exported with answers)")),
    ("provenance", ("how the item was made, a JSON string: the generator and what the question "
                    "shows (the whole record, seeds, programs and answers included, when "
                    "exported with answers)")),
    ("prompt", "the prompt whatifbench poses after the image(s) (default, generated answers)"),
)


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def how_answers(suite: str, generator: str) -> str:
    """One sentence on where the answers come from (the suite's words for its own generators:
    ``Suite.how_answers``)."""
    from whatifbench.core.suite import suite_for

    said = suite_for(suite).how_answers(generator)
    if said is not None:
        return said
    if "import" in generator:
        return "imported from the benchmark's public release: the answers are the release's own"
    if generator.startswith(("build:", "review:")):
        return ("built by whatifbench's construction pipeline; each row's `provenance` records "
                "the prompts, models and checks that made it")
    return "see each row's `provenance` column"


def metadata(data: Dataset, single: bool, license: str, data_glob: str,
             extra_glob: str | None, with_answers: bool = False) -> dict[str, Any]:
    """The YAML front matter."""
    card = data.card
    has_choice = any(item.kind == "choice" for item in data.items)
    hashes = {k: v for k, v in card.hashes.items() if k != "images"}
    hashes["items_sha256"] = data.items_sha256
    return {
        "license": license,
        "pretty_name": f"{card.name} (whatifbench {card.suite})",
        "language": ["en"],
        "task_categories": ["visual-question-answering",
                            *(["multiple-choice"] if has_choice else [])],
        "tags": ["whatifbench", "counterfactual-reasoning", "causal-reasoning", card.suite],
        "size_categories": [_size_category(len(data.items))],
        "configs": [{"config_name": "default",
                     "data_files": [{"split": "test", "path": data_glob}]},
                    *([{"config_name": "extra_images",
                        "data_files": [{"split": "test", "path": extra_glob}]}]
                      if extra_glob else [])],
        CARD_KEY: {**card.to_json(), "hashes": hashes,
                   "image_column": "image" if single else "images",
                   "with_answers": with_answers},
    }


def card_markdown(data: Dataset, single: bool, license: str, data_glob: str,
                  extra_glob: str | None = None, with_answers: bool = False) -> str:
    """README.md: the YAML metadata, then a description a reader of the hub page needs
    (``extra_glob``: shards of the images no item shows, a second configuration)."""
    yaml = require("yaml")
    card = data.card
    meta = metadata(data, single, license, data_glob, extra_glob, with_answers)
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)
    generator = str(card.generator.get("name", ""))
    counts = card.counts
    lines = [
        "---", front.rstrip("\n"), "---", "",
        f"# {meta['pretty_name']}", "",
        (f"{len(data.items)} questions ({counts.get('pairs', 0)} pairs) of the whatifbench suite "
         f"`{card.suite}`, a benchmark of counterfactual and causal reasoning for "
         "vision-language models."), "",
        "## How the answers were computed", "",
        f"The items were {how_answers(data.suite, generator)}.", "",
        f"- generator: `{generator}` (version {card.version or 'unrecorded'})",
        f"- seed: {card.seed if card.seed is not None else 'none (imported)'}",
        f"- parameters: `{json.dumps(card.generator.get('params', {}), ensure_ascii=False)}`",
        "",
        "## Counts", "", "| group | items |", "|---|---|",
        *(f"| {g or '(none)'} | {n} |" for g, n in counts.get("by_group", {}).items()),
        "", "| role | items |", "|---|---|",
        *(f"| {r or '(none)'} | {n} |" for r, n in counts.get("by_role", {}).items()),
        "", "## Fields", "", "| column | meaning |", "|---|---|",
        *(f"| `{(meta[CARD_KEY]['image_column'] if name == 'image / images' else name)}` "
          f"| {text} |" for name, text in FIELDS),
        *(["", ("The configuration `extra_images` (`path`, `image`) holds the dataset's images "
                "that no item shows (such as the intervened scenes of counterfactual pairs).")]
          if extra_glob else []),
        "", "## Use", "", "```python", "from datasets import load_dataset",
        'ds = load_dataset("PATH_OR_HUB_ID", split="test")', "```", "",
        ("Score the pairs, not only the items: report original accuracy, counterfactual "
         "accuracy, their drop and pair accuracy (both questions of a pair right). whatifbench "
         "does this for you:"), "",
        "```bash", "whatif import hf --path PATH --out my-dataset",
        "whatif run --suite my-dataset --model hf:/path/to/model", "```", "",
    ]
    return "\n".join(lines)


def read_card_yaml(readme: Path) -> dict[str, Any]:
    """The YAML front matter of a README.md (empty when it has none)."""
    yaml = require("yaml")
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise WhatifError(f"{readme}: the YAML metadata block is not closed by a '---' line.")
    try:
        found = yaml.safe_load(text[3:end])
    except yaml.YAMLError as exc:
        raise WhatifError(f"{readme}: the YAML metadata cannot be read ({exc}).") from None
    return found if isinstance(found, dict) else {}
