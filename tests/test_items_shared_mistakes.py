"""Key flags through the CLI on runs like real models': a generated C-VQA-Synthetic suite whose
30 keys were changed by ``whatif review import`` (so they are no longer the programs'),
answered by 30 runs that believe their eyes on counterfactual questions (the original
question's answer, or the option nearest to it) and otherwise know or guess. The old model
flagged 49 right keys in such a suite, 41 of them counterfactual; the believe-your-eyes answer
is not evidence against a key."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path

import pytest
from test_items_inputs import replayed

from whatifbench.cli.main import main
from whatifbench.core.csvtext import csv_text
from whatifbench.core.dataset import load_dataset
from whatifbench.core.registry import lookup

PLANTED = 30
RUNS = 30


def plant(tmp: Path) -> tuple[Path, dict[str, str], set[str]]:
    """The suite with ``PLANTED`` keys changed in review; the true keys and the changed ids."""
    lookup("generator", "cvqa-synthetic").obj.generate(tmp / "clean", seed=5, per_template=50)
    clean = load_dataset(tmp / "clean")
    sheet = tmp / "sheet.csv"
    assert main(["review", "export", str(tmp / "clean"), "--sheet", "keys", "--out",
                 str(sheet)]) == 0
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))
    rng = random.Random(3)
    changed = set(rng.sample([i.id for i in clean.items], PLANTED))
    by_id = {i.id: i for i in clean.items}
    for row in rows:
        if row["key"] in changed:
            item = by_id[row["key"]]
            row.update(decision="edit",
                       answer_key=rng.choice([c for c in item.choices if c != item.target]))
    sheet.write_text(csv_text([list(rows[0]), *[list(r.values()) for r in rows]]),
                     encoding="utf-8")
    assert main(["review", "import", str(tmp / "clean"), str(sheet), "--out",
                 str(tmp / "planted")]) == 0
    return tmp / "planted", {i.id: i.target for i in clean.items}, changed


def believer_replies(dataset: Path, truth: dict[str, str], seed: int) -> dict[str, str]:
    """One run's letters: on a counterfactual question it says what it sees (the original's
    answer, or the nearest option) with its susceptibility; else it knows the true answer with
    a 2PL probability, or guesses."""
    rng = random.Random(seed)
    items = load_dataset(dataset).items
    first = {i.pair_id: truth[i.id] for i in items if i.role == "original"}
    theta, susceptible = rng.gauss(0, 1), rng.betavariate(2, 3)
    replies = {}
    for item in items:
        item_rng = random.Random(item.id)  # the item's own difficulty, the same for every run
        b = item_rng.gauss(0, 1)
        if item.role == "counterfactual" and rng.random() < susceptible:
            seen = float(first[item.pair_id])
            answer = min(item.choices, key=lambda c: (abs(float(c) - seen), c))
        elif rng.random() < 1 / (1 + math.exp(-(theta - b))):
            answer = truth[item.id]
        else:
            answer = rng.choice(item.choices)
        replies[item.id] = "ABCD"[item.choices.index(answer)]
    return replies


@pytest.mark.slow
def test_believe_your_eyes_runs_do_not_flag_right_keys(tmp_path: Path) -> None:
    dataset, truth, changed = plant(tmp_path)
    runs = [replayed(dataset, tmp_path / f"run{k}", believer_replies(dataset, truth, k),
                     f"m{k}") for k in range(RUNS)]
    out = tmp_path / "items.json"
    assert main(["items", str(dataset), *map(str, runs), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    flagged = {i["id"] for i in report["items"] if "key" in i["codes"]}
    assert len(flagged - changed) <= 6, sorted(flagged - changed)
    # 19 of the 30 are found: on a counterfactual counting question the nearest count to what
    # a run sees is often the right answer too, so believers' votes carry little evidence
    assert len(flagged & changed) >= 15, sorted(changed - flagged)
    assert any("triage list" in note for note in report["notes"])
