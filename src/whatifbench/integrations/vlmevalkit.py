"""``whatif export DATASET --format vlmevalkit --out NAME.tsv``: VLMEvalKit's custom
multiple-choice TSV.

VLMEvalKit treats ``$LMUData/NAME.tsv`` with ``A`` and ``B`` columns as a custom MCQ dataset
(``python run.py --data NAME --model MODEL``). Columns: ``index``, ``image`` (base64 of the image
file's bytes; a list of them for multi-image items), ``question`` (verbatim), ``A``…``D`` (more
letters when an item has more options), ``answer`` (the letter), ``category`` (the group),
``hint`` (for labelled images: their order), and ours: ``item_id``, ``pair_id``, ``role`` — kept
in VLMEvalKit's prediction files, so pairs can be scored from them.
"""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Sequence
from pathlib import Path

from whatifbench.answers.letters import letter_for
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.outputs import check_output, write_output_file
from whatifbench.errors import WhatifError
from whatifbench.integrations.views import VLMEVALKIT_OURS, vlmevalkit_columns

OURS = VLMEVALKIT_OURS


def _refuse_free_text(data: Dataset, choice_only: bool) -> list[Item]:
    """The multiple-choice items; other kinds are refused unless ``choice_only`` drops them."""
    chosen = [item for item in data.items if item.kind == "choice"]
    other = sorted({item.kind for item in data.items if item.kind != "choice"})
    if not chosen:
        raise WhatifError(
            f"The dataset {data.root} (suite {data.suite}) has no multiple-choice items (its "
            f"items are {', '.join(other)} questions), and VLMEvalKit's TSV format holds "
            "multiple-choice questions only. Export it with --format hf or --format lmms-eval.")
    if other and not choice_only:
        raise WhatifError(
            f"{len(data.items) - len(chosen)} of the {len(data.items)} items of {data.root} are "
            f"free-text ({', '.join(other)}) questions, which VLMEvalKit's multiple-choice TSV "
            f"cannot hold. Pass --choice-only to export the {len(chosen)} multiple-choice items "
            "without them, or use --format hf / lmms-eval for every item.")
    return chosen


def _image_cell(data: Dataset, item: Item) -> str:
    encoded = [base64.b64encode(data.image_path(rel).read_bytes()).decode("ascii")
               for rel in item.images]
    return encoded[0] if len(encoded) == 1 else repr(encoded)


def rows(data: Dataset, items: Sequence[Item]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the TSV."""
    width = max(len(item.choices) for item in items)
    letters = [letter_for(i) for i in range(width)]
    header = ["index", "image", "question", *letters, "answer", "category", "hint", *OURS]
    out = []
    for index, item in enumerate(items):
        cells = {**vlmevalkit_columns(item, index, letters), "image": _image_cell(data, item)}
        out.append([cells[column] for column in header])
    return header, out


def export_vlmevalkit(dataset: str | Path | Dataset, out: str | Path, overwrite: bool = False,
                     choice_only: bool = False) -> int:
    """Write the TSV (atomically); return the number of rows."""
    roots = () if isinstance(dataset, Dataset) else (dataset,)
    check_output(out, roots, overwrite, file=True)  # before reading the dataset
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    items = _refuse_free_text(data, choice_only)
    header, body = rows(data, items)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    write_output_file(out, buffer.getvalue().encode("utf-8"), overwrite, inputs=(data.root,))
    return len(body)


def read_vlmevalkit(path: str | Path) -> list[Item]:
    """The rows of a TSV written by ``export_vlmevalkit`` as items (question, options, the
    answer letter's option, group and our pair columns; images are left out): what a
    VLMEvalKit run of it poses, for checking an export or reading one back."""
    csv.field_size_limit(1 << 30)  # base64 images
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        letters = [c for c in reader.fieldnames or () if len(c) == 1 and c.isupper()]
        items = []
        for line, row in enumerate(reader, start=2):
            choices = tuple(row[x] for x in letters if row.get(x))
            answer = row.get("answer", "")
            if answer not in letters[:len(choices)]:
                raise WhatifError(f"{path}:{line}: the answer {answer!r} names no option; the "
                                  "file is not a TSV written by 'whatif export --format "
                                  "vlmevalkit'.")
            items.append(Item(row["item_id"], (), row["question"], "choice",
                              choices[letters.index(answer)], choices,
                              row.get("pair_id") or None, row.get("role") or None,
                              row.get("category") or None))
    return items
