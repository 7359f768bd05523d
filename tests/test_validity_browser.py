"""The explorer in Chromium shows what a score means: the chance row set apart in every results
table, the image-ablated run as its own row with its multimodal gain, the note in the pair view
saying what the ablated run saw, and the paired comparison of the two models chosen in the
model-vs-model view."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from browser_util import needs_chromium, open_page
from PIL import Image
from util import make_choice_dataset

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend
from whatifbench.report.policies import EYES, FLIP
from whatifbench.report.reference import CHANCE
from whatifbench.runner.ablation import GREY
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.store import RunStore

pytestmark = needs_chromium


class Looker(Backend):
    """Right when its picture is not mid-grey (option A otherwise): a model that needs its eyes."""

    capabilities = Capabilities(generate=True)

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            assert request.item is not None
            with Image.open(request.images[0]) as img:
                grey = img.convert("RGB").getpixel((0, 0)) == GREY
            letter = "ABCD"[0 if grey else request.item.target_index]
            yield i, Response(text=f"The answer is {letter}.")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("validity")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WHATIF_HOME", str(base / "home"))
        ds = load_dataset(make_choice_dataset(base / "ds", n_pairs=30))
        store = RunStore(base / "store.sqlite")
        runs = [evaluate(ds, Looker("test:looker", {}), Protocol(), store,
                         RunOptions(progress=False, image_ablation=ablation))
                for ablation in (None, "blank")]
        store.close()
        runs += api.run_all([ds], ["builtin:random"], options=RunOptions(progress=False))
        api.write_outputs(base / "run", runs)
    return base / "run"


def test_reference_rows_gain_and_comparisons_in_the_page(page: Any, run_dir: Path,
                                                        tmp_path: Path) -> None:
    results = json.loads((run_dir / "results.json").read_text())
    open_page(page, (run_dir / "report.html").as_uri())
    page.screenshot(path=str(tmp_path / "overview.png"), full_page=True)
    first = page.locator("table.results").first
    assert first.locator("tbody tr:not(.ref)").count() == 3
    ref = first.locator("tbody tr.ref")  # chance, and a paired suite's eyes references
    assert ref.locator("td:first-child").all_inner_texts() == [CHANCE, EYES, FLIP]
    ref = ref.first
    assert "italic" in ref.locator("td").first.evaluate("e => getComputedStyle(e).fontStyle")
    ranked = page.locator("table.ranking tbody tr.ref td").all_inner_texts()
    assert ranked[1:3] == [CHANCE, "25.0"]  # chance on the ranking's metric
    labels = first.locator("tbody tr:not(.ref) td:first-child").all_inner_texts()
    assert labels == ["test:looker", "test:looker [image: blank]", "builtin:random"]
    body = page.inner_text("main")
    assert "chance = the expected score of guessing" in body
    assert "Multimodal gain: handmade (full − ablated)" in body
    (gain,) = [c for c in results["comparisons"] if c["kind"] == "multimodal-gain"]
    gain_row = page.locator("table.results", has_text="Multimodal gain").locator("tbody tr")
    assert gain_row.locator("td").first.inner_text() == "test:looker"
    assert f"{gain['difference']:.1f}" in gain_row.inner_text()

    # model vs model: the recorded comparison of the chosen runs, A − B
    page.click("nav button[data-view=compare]")
    page.select_option("#c-a", "2")
    page.select_option("#c-b", "0")
    stats = page.locator("#paired-stats")
    (entry,) = [c for c in results["comparisons"] if c["kind"] == "models"
                and (c["a"], c["b"]) == (0, 2)]
    cells = stats.locator("tbody tr").first.locator("td").all_inner_texts()
    assert cells[0] == "all" and cells[1] == str(entry["n_items"])
    assert cells[4] == f"{-entry['difference']:+.1f}"  # B vs A as recorded, shown as A − B
    lo, hi = entry["ci95"]
    assert cells[5] == f"{-hi:+.1f} to {-lo:+.1f}"
    slices = stats.locator("tbody tr td:first-child").all_inner_texts()[1:]
    assert slices == [f"{s['key']}: {s['value']}" for s in entry["by_slice"]]

    # the pair view says what the ablated run saw
    page.click("nav button[data-view=items]")
    page.locator("#unit-list tbody tr").first.click()
    headers = page.locator("#pair-view tr.model th").all_inner_texts()
    assert "saw a mid-grey image of the same size" in headers[1]
    assert "saw" not in headers[0]
    assert page.problems == []
