"""C-VQA-Real end to end: statistics, `whatif run` with the paper protocol, both parsers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images, sample_rows
from util import run_outputs

from whatifbench.cli.main import main
from whatifbench.core.card import Card
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.datastats import words
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.models.builtin.program import ProgramBackend
from whatifbench.suites.cvqa.real.importer import import_release
from whatifbench.suites.cvqa.real.stats import group_counts, real_stats, yes_no_table


class VerboseBackend(ProgramBackend):
    """Right answers wrapped in sentences the two parsers read differently."""

    def answer(self, item: Item, request: Request) -> str | None:
        return item.target

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            item = self._item(request)
            if item.kind == "number":
                # Premise echoed first: the release parser drops everything (no comma).
                text = f"If 1 more were added there would be {item.target}"
            else:
                text = "Yes." if item.target == "yes" else "It would not."
            yield i, Response(text=text)


register("backend", "test:verbose")(VerboseBackend)


@pytest.fixture()
def sample_ds(tmp_path: Path, shared_dir: Path) -> Path:
    sample_images(shared_dir, tmp_path / "coco")
    import_release(sample_csv(shared_dir), tmp_path / "coco", tmp_path / "ds")
    return tmp_path / "ds"


def test_stats_on_the_sample(tmp_path: Path, sample_ds: Path, shared_dir: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    ds = load_dataset(sample_ds)
    assert group_counts(ds.items) == {"direct": 12, "indirect": 12, "boolean": 12,
                                      "numerical": 24, "total": 36}
    fake = ("fake", lambda qs: [[(w, "NOUN" if w.lower() in {"cows", "cars", "sinks"} else
                                  "VERB" if w.lower() in {"were", "was"} else "X")
                                 for w in words(q)] for q in qs])
    tables = {t.title.split(": ", 1)[-1]: t for t in real_stats(ds, tmp_path / "plots",
                                                               tagger=fake)}
    lengths = {r[0]: r[1:] for r in tables["mean question length (words)"].rows}
    rows = sample_rows(shared_dir)
    cf_words = [len(words(r["new query"])) for r in rows if r["type"] == "indirect"]
    assert lengths["indirect"][1] == f"{sum(cf_words) / len(cf_words):.2f}"
    every = [len(words(r["query"])) for r in rows]
    assert lengths["all"][0] == f"{sum(every) / len(every):.2f}"
    lexicon = dict(tables["lexicon (C-VQA Fig. 8)"].rows)
    assert "noun types / noun tokens" in lexicon and "verb types / all types" in lexicon
    assert float(lexicon["noun types / noun tokens"]) == pytest.approx(
        len({"cows", "cars", "sinks"}) / sum(w.lower() in {"cows", "cars", "sinks"}
                                             for i in ds.items for w in words(i.question)),
        abs=1e-4)
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        "answers_boolean.png", "answers_direct.png", "answers_indirect.png"]
    assert main(["stats", str(sample_ds)]) == 0
    out = capsys.readouterr().out
    assert "questions per group" in out and "numerical" in out and "type-token ratio" in out


def test_counts_and_yes_no_share_reproduce_the_paper() -> None:
    """With the release's documented shape, the tables give the paper's §3.4 figures."""
    items: list[Item] = []

    def pair(k: int, group: str, a: str, b: str) -> None:
        kind = "yes-no" if group == "boolean" else "number"
        items.extend([Item(f"{k}-o", ("images/x.jpg",), "q", kind, a, pair_id=str(k),
                           role="original", group=group),
                      Item(f"{k}-c", ("images/x.jpg",), "q if", kind, b, pair_id=str(k),
                           role="counterfactual", group=group)])

    k = 0
    for group, n in (("direct", 1150), ("indirect", 864)):
        for _ in range(n):
            k += 1
            pair(k, group, "2", "3")
    for a, b, n in (("yes", "no", 616), ("no", "yes", 488), ("yes", "yes", 19), ("no", "no", 7)):
        for _ in range(n):
            k += 1
            pair(k, "boolean", a, b)
    counts = group_counts(items)
    assert (counts["total"], counts["numerical"], counts["direct"], counts["indirect"],
            counts["boolean"]) == (3144, 2014, 1150, 864, 1130)
    full = Dataset(Path("."), Card("full", "cvqa-real", "1", {}, None), tuple(items), "")
    table = yes_no_table(full)
    cf = next(r for r in table.rows if r[0] == "counterfactual")
    assert cf[3] == "55.13"  # C-VQA §3.4: "The percentage of 'no' is 55.13%"


def test_run_paper_protocol_table3_layout(tmp_path: Path, sample_ds: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # the header line whole
    out = tmp_path / "run"
    code = main(["run", "--suite", str(sample_ds), "--model", "builtin:random", "--prompt",
                 "paper", "--out", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0
    assert "C-VQA-Real: cvqa-real (Table 3 layout)" in text
    header = text.splitlines()[text.splitlines().index(
        "C-VQA-Real: cvqa-real (Table 3 layout)") + 1]
    assert header.index("Numerical Direct") < header.index("Numerical Indirect") < \
        header.index("Boolean")
    assert "answer parsers compared" in text
    run = json.loads((out / "results.json").read_text())["runs"][0]
    m = run["metrics"]
    assert set(m["by_group"]) == {"direct", "indirect", "boolean"}
    assert m["n_pairs"] == 36 and set(m["parsers"]) == {"default", "paper"}
    assert "parser_disagreement" in m and "ci95" in m
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert samples[0]["prompt"].endswith(" Answer the question using a single word or phrase.")
    assert all(s["meta"]["image"].startswith("COCO_val2014_") for s in samples)


def test_both_parsers_reported_and_disagreement(tmp_path: Path, sample_ds: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", "--suite", str(sample_ds), "--model", "test:verbose", "--out",
                 str(out), "--no-progress"]) == 0
    m = json.loads((out / "results.json").read_text())["runs"][0]["metrics"]
    # Ours reads every reply right; the release's parser fails on every numeric reply
    # ("If ..." without a comma) and reads "It would not." as no, "Yes." as yes.
    assert m["parsers"]["default"]["original_accuracy"] == 100.0
    assert m["parsers"]["default"]["counterfactual_accuracy"] == 100.0
    assert m["parsers"]["paper"]["by_group"]["direct"]["original_accuracy"] == 0.0
    assert m["parsers"]["paper"]["by_group"]["direct"]["unparsed"] == 100.0
    assert m["parsers"]["paper"]["by_group"]["boolean"]["original_accuracy"] == 100.0
    assert m["parser_disagreement"] == pytest.approx(100 * 48 / 72, abs=0.01)
    assert m["n_parser_disagreements"] == 48
    assert m["parser_disagreement_by_group"] == {"boolean": 0.0, "direct": 100.0,
                                                 "indirect": 100.0}
    assert m["original_accuracy"] == 100.0  # the scored parser is ours by default
    assert main(["run", "--suite", str(sample_ds), "--model", "test:verbose", "--parser",
                 "paper", "--out", str(tmp_path / "paper"), "--no-progress"]) == 0
    paper = json.loads((tmp_path / "paper" / "results.json").read_text())["runs"][0]["metrics"]
    assert paper["original_accuracy"] == pytest.approx(100 * 12 / 36, abs=0.01)


def test_cot_strategy_and_seeded_subset(tmp_path: Path, sample_ds: Path) -> None:
    out = tmp_path / "cot"
    assert main(["run", "--suite", str(sample_ds), "--model", "builtin:constant", "--prompt",
                 "paper", "--strategy", "cot", "--subset", "0.25", "--seed", "5", "--out",
                 str(out), "--no-progress"]) == 0
    run = json.loads((out / "results.json").read_text())["runs"][0]
    assert run["spec"]["protocol"]["strategy"] == "cot"
    assert run["metrics"]["n_pairs"] == 9 and run["n_items"] == 18
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert all(s["prompt"].endswith("single word or phrase.\nLet's think step by step:")
               for s in samples)
    again = tmp_path / "cot2"
    assert main(["run", "--suite", str(sample_ds), "--model", "builtin:constant", "--prompt",
                 "paper", "--strategy", "cot", "--subset", "0.25", "--seed", "5", "--out",
                 str(again), "--no-progress"]) == 0
    assert run_outputs(again)[0] == run_outputs(out)[0]  # identical but for the run_id
