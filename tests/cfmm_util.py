"""Small CFMM input files (JSONL / CSV) and images for importer and run tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from PIL import Image

from whatifbench.suites.cfmm.schema import FIELDS

QUESTIONS = {
    "count": ("How many cups are on the table?", ("2", "3"),
              "If one more cup were put on the table, how many cups would there be?", ("2", "3")),
    "color": ("What colour is the bus?", ("red", "blue"),
              "If the bus were painted like the sky, what colour would it be?", ("red", "blue")),
    "size": ("Is the dog bigger than the cat?", ("yes", "no"),
             "If the cat were ten times as big, would the dog be bigger than the cat?",
             ("yes", "no")),
    "shape": ("What shape is the clock?", ("round", "square"),
              "If the clock were pressed flat from top and bottom, what shape would it be?",
              ("round", "oval")),
    "direction": ("Is the lamp left or right of the sofa?", ("left", "right"),
                  "If the picture were mirrored, would the lamp be left or right of the sofa?",
                  ("left", "right")),
    "common": ("Is the road wet?", ("yes", "no"),
               "If it had not rained for a month, would the road be wet?", ("yes", "no")),
}


def good_records(pairs_per_category: int = 2) -> list[dict[str, Any]]:
    """Valid records: every counterfactual answer differs from the basic one, which is always
    one of the counterfactual's options; the correct option alternates between A and B."""
    records = []
    k = 0
    for cat, (bq, bopts, cq, copts) in QUESTIONS.items():
        for j in range(pairs_per_category):
            flip = k % 2 == 1
            b_opts = bopts[::-1] if flip else bopts
            c_opts = copts[::-1] if flip else copts
            basic = bopts[0]
            cf = copts[1] if copts[0] == basic else copts[0]
            if cf == basic:
                cf = copts[1]
            record = {
                "id": f"{cat}-{j}", "image": f"sub/{cat}_{j}.png" if j else f"{cat}.png",
                "category": cat, "basic_question": bq, "basic_option_a": b_opts[0],
                "basic_option_b": b_opts[1], "basic_answer": basic,
                "counterfactual_question": cq, "counterfactual_option_a": c_opts[0],
                "counterfactual_option_b": c_opts[1], "counterfactual_answer": cf,
                "explanation": f"The premise changes the {cat}, so the answer becomes {cf}.",
            }
            if j == 0:
                record["basic_explanation"] = f"The image shows {basic}."
            records.append(record)
            k += 1
    return records


def write_images(folder: Path, records: list[dict[str, Any]]) -> Path:
    """A small distinct PNG for each record's image."""
    for n, name in enumerate(sorted({r["image"] for r in records if "image" in r})):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (16, 12), (n * 40 % 256, 90, 200 - n * 10)).save(path)
    return folder


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """One record per line (non-dict entries are written verbatim as raw lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_csv(path: Path, records: list[dict[str, Any]]) -> Path:
    """The records as CSV; the header holds every field any record has (schema order first)."""
    keys = {k for r in records for k in r}
    header = [f for f in FIELDS if f in keys or not keys] + sorted(keys - set(FIELDS))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for r in records:
            writer.writerow(["" if r.get(h) is None else r[h] for h in header])
    return path
