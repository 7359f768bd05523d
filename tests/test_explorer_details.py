"""Details of the results explorer a new user trips over (in Chromium at 1400 px): large
integers shown digit for digit, MuCR's candidate images labelled A–D, tables that fit the
window, model labels of merged runs, "pair acc" defined on the page; and the colours of the
``whatif stats`` plots, which follow the report's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from browser_util import needs_chromium, open_page
from util import make_choice_dataset, page_data, png

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import DatasetWriter, load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import lookup
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.store import RunStore

SEED = 2**64 + 7
"""An image seed a browser's JSON parser would round (it keeps 53 bits)."""
MODELS = ("a-rather-long-model-display-name-one=builtin:random",
          "another-long-model-display-name-two=builtin:constant",
          "eyes-believer-three=builtin:ignore-premise", "builtin:text-prior",
          "builtin:scene-reader")


def _write_run(datasets: Sequence[Path], models: Sequence[str], out: Path, store: Path) -> Path:
    runs_store = RunStore(store)
    runs = api.run_all(list(datasets), list(models), store=runs_store,
                       options=RunOptions(progress=False))
    runs_store.close()
    api.write_outputs(out, runs)
    return out / "report.html"


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated C-VQA-Synthetic (six templates) answered by five models."""
    base = tmp_path_factory.mktemp("wide")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WHATIF_HOME", str(base / "home"))
        lookup("generator", "cvqa-synthetic").obj.generate(base / "ds", seed=0, per_template=2,
                                                           workers=1)
        return _write_run([base / "ds"], MODELS, base / "run", base / "store.sqlite")


@needs_chromium
def test_large_integers_keep_every_digit(page: Any, tmp_path: Path) -> None:
    with DatasetWriter(tmp_path / "ds") as writer:
        rel = writer.add_image("a.png", png((10, 20, 30)))
        for role in ("original", "counterfactual"):
            writer.add_item(Item(id=f"p0-{role[0]}", images=(rel,), question=f"How many? {role}",
                                 kind="choice", target="2", choices=("1", "2", "3", "4"),
                                 pair_id="p0", role=role, group="g",
                                 provenance={"image_seed": SEED, "small": 7}))
        writer.finish(name="seeds", suite="cvqa-synthetic", version="test",
                      generator={"name": "hand"}, seed=0)
    report = _write_run([tmp_path / "ds"], ["builtin:random"], tmp_path / "run",
                        tmp_path / "store.sqlite")
    open_page(page, report.as_uri(), "view=items&unit=p0")
    provenance = page.locator("#pair-view details", has_text="provenance").first
    provenance.locator("summary").click()
    shown = provenance.inner_text()
    assert str(SEED) in shown and '"small": 7' in shown, shown
    assert page.problems == []


@needs_chromium
def test_mucr_candidate_images_show_their_letters(page: Any, tmp_path: Path) -> None:
    lookup("generator", "mucr-synthetic").obj.generate(tmp_path / "ds", groups=1, seed=0)
    data = load_dataset(tmp_path / "ds")
    c2e = next(i for i in data.items if i.role == "c2e")
    report = _write_run([tmp_path / "ds"], ["builtin:random"], tmp_path / "run",
                        tmp_path / "store.sqlite")
    open_page(page, report.as_uri(), f"view=items&unit={c2e.pair_id}")
    captions = page.locator(".images figcaption, .images .noimg").all_inner_texts()
    for k, label in enumerate(c2e.meta["image_labels"]):
        wanted = f"c2e {label}"
        found = [c for c in captions if c2e.images[k] in c]
        assert found and wanted in found[0], (wanted, captions)
    assert {f"c2e {x}" for x in "ABCD"} <= {part.split(":")[0].removeprefix("image ")
                                           for c in captions for part in c.split(" · ")}
    assert page.problems == []


def _overflow(page: Any) -> list[str]:
    """Tables (or the page) wider than the window, or cut off by their scroll box."""
    return page.evaluate("""() => {
      const out = [];
      if (document.documentElement.scrollWidth > window.innerWidth) out.push("page");
      for (const t of document.querySelectorAll("main table")) {
        const box = t.parentElement.getBoundingClientRect();
        if (t.getBoundingClientRect().right > Math.min(box.right, window.innerWidth) + 0.5) {
          out.push((t.className || "table") + " " + (t.caption ? t.caption.textContent : ""));
        }
      }
      return out;
    }""")


@needs_chromium
def test_overview_and_items_tables_fit_at_1400_px(page: Any, synthetic_report: Path,
                                                  tmp_path: Path) -> None:
    assert page.viewport_size["width"] == 1400
    for view in ("overview", "items"):
        open_page(page, synthetic_report.as_uri(), f"view={view}")
        page.screenshot(path=str(tmp_path / f"{view}.png"), full_page=True)
        assert _overflow(page) == [], view
    assert page.problems == []


@needs_chromium
def test_pair_accuracy_is_defined_on_the_page(page: Any, synthetic_report: Path) -> None:
    open_page(page, synthetic_report.as_uri(), "view=overview")
    header = page.locator("table.results th", has_text="pair acc").first
    assert "both answered right" in (header.get_attribute("title") or "")
    assert "pair acc = pairs with both questions" in page.inner_text("main")
    assert "pair acc = pairs with both questions" in \
        (synthetic_report.parent / "report.md").read_text()


def test_merged_runs_without_a_seed_are_labelled_plainly(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    for name, extra in (("a", ["-M", "seed=3"]), ("b", [])):
        assert main(["run", "--suite", str(ds), "--model", "builtin:random", *extra, "--out",
                     str(tmp_path / name), "--no-progress"]) == 0
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                 str(tmp_path / "m")]) == 0
    labels = [r["label"] for r in page_data((tmp_path / "m" / "report.html").read_text())["runs"]]
    assert labels == ["builtin:random [-M seed=3]", "builtin:random [no -M seed]"]
    md = (tmp_path / "m" / "report.md").read_text()
    assert "seed=none" not in md and "no -M seed" in md


def test_stats_plots_colour_roles_as_the_report_does(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes
    from matplotlib.colors import to_hex

    from whatifbench.report import draw
    from whatifbench.report.figures import figures_for
    from whatifbench.report.plots import answer_histograms

    drawn: list[tuple[str, str]] = []
    bar = Axes.bar

    def recording(self: Axes, *args: Any, **kwargs: Any) -> Any:
        bars = bar(self, *args, **kwargs)
        drawn.append((str(kwargs.get("label")), to_hex(bars.patches[0].get_facecolor())))
        return bars

    monkeypatch.setattr(Axes, "bar", recording)
    ds = make_choice_dataset(tmp_path / "ds")
    answer_histograms(load_dataset(ds).items, tmp_path / "plots", "handmade")
    stats = dict(drawn)
    drawn.clear()
    runs = api.run_all([ds], ["builtin:random"], options=RunOptions(progress=False))
    draw.svg(figures_for(runs)[0], cache=tmp_path / "figures")
    report = dict(drawn)
    assert set(stats) == {"original", "counterfactual"}
    assert {role: stats[role] for role in stats} == {role: report[role] for role in stats}
