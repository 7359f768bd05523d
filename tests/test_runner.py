"""The evaluation loop: store, resume after a real kill, cache hits, selection, strategies."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from util import make_choice_dataset, run_outputs

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.core.protocol import Protocol
from whatifbench.errors import WhatifError
from whatifbench.runner.backends import make_backend, parse_model_args
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.requests import RequestBuilder, choose_demos, limit_groups, select_items
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.synthetic.suite import CvqaSyntheticSuite

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _cli(args: list[str], home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "WHATIF_HOME": str(home), "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-m", "whatifbench", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _stored(home: Path) -> int:
    path = home / "store.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _wait_for_rows(home: Path, proc: subprocess.Popen[str], rows: int) -> None:
    deadline = time.monotonic() + 60
    while _stored(home) < rows:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run stored nothing in 60 s"
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_killed_run_resumes_with_identical_results(tmp_path: Path, how: str) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=20)
    args = ["run", "--suite", str(ds), "--model", "builtin:random", "-M", "delay=0.03",
            "--no-progress"]
    killed_home, clean_home = tmp_path / "home1", tmp_path / "home2"
    out1, out2 = tmp_path / "out1", tmp_path / "out2"

    proc = _cli([*args, "--out", str(out1)], killed_home)
    _wait_for_rows(killed_home, proc, 8)
    proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    done_before = _stored(killed_home)
    assert 8 <= done_before < 40
    assert not (out1 / "results.json").exists()
    if how == "interrupt":
        assert proc.returncode == 130 and "run the same command again" in err

    resumed = _cli([*args, "--out", str(out1)], killed_home)
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert f"{done_before} from the store, {40 - done_before} computed" in err

    clean = _cli([*args, "--out", str(out2)], clean_home)
    _, err2 = clean.communicate(timeout=120)
    assert clean.returncode == 0, err2
    assert run_outputs(out1) == run_outputs(out2)  # identical but for the random run_id


def test_second_run_is_served_from_the_store(tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds"))
    store = RunStore(tmp_path / "s.sqlite")
    backend = make_backend("builtin:random", {})
    first = evaluate(ds, backend, Protocol(), store, RunOptions(progress=False))
    again = evaluate(ds, backend, Protocol(), store, RunOptions(progress=False))
    assert (first.execution.computed, first.execution.from_store) == (12, 0)
    assert (again.execution.computed, again.execution.from_store) == (0, 12)
    assert first.metrics == again.metrics
    other = evaluate(ds, make_backend("builtin:random", {"seed": 1}), Protocol(), store,
                     RunOptions(progress=False))
    assert other.execution.computed == 12  # backend args are part of the key


def test_ignore_premise_and_rank_mode(tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=8))
    store = RunStore(tmp_path / "s.sqlite")
    gen = evaluate(ds, make_backend("builtin:ignore-premise", {}), Protocol(), store,
                   RunOptions(progress=False))
    rank = evaluate(ds, make_backend("builtin:ignore-premise", {}), Protocol(answer_mode="rank"),
                    store, RunOptions(progress=False))
    assert gen.metrics["original_accuracy"] == 100.0
    assert rank.metrics["original_accuracy"] == 100.0
    assert gen.metrics["counterfactual_accuracy"] == rank.metrics["counterfactual_accuracy"]
    assert rank.samples[0].scores is not None and rank.samples[0].response is None


def test_limit_keeps_pairs_whole_and_subset_is_seeded(tmp_path: Path) -> None:
    items = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=10)).items
    assert [i.id for i in select_items(items, 3, None, 0)] == ["p0-o", "p0-c", "p1-o", "p1-c"]
    a = select_items(items, None, 0.3, seed=5)
    assert a == select_items(items, None, 0.3, seed=5)
    assert len(a) == 6 and len({i.pair_id for i in a}) == 3
    assert a != select_items(items, None, 0.3, seed=6)
    with pytest.raises(WhatifError, match="--subset"):
        select_items(items, None, 1.5, 0)


def _pairs(groups: list[str], per_pair_group: bool = True) -> list[Item]:
    items = []
    for k, g in enumerate(groups):
        for role in ("original", "counterfactual"):
            items.append(Item(f"p{k}-{role[0]}", ("images/x.png",), "q", "number", "1",
                              pair_id=f"p{k}", role=role,
                              group=g if per_pair_group else role, meta={"category": g}))
    return items


def test_limit_spreads_whole_pairs_over_the_groups() -> None:
    items = _pairs(["a"] * 5 + ["b"] * 5 + ["c"] * 5)  # groups in blocks, as in the releases
    chosen = select_items(items, 12, None, 0)
    assert [i.pair_id for i in chosen][::2] == ["p0", "p1", "p5", "p6", "p10", "p11"]
    assert [i.id for i in chosen] == [i.id for i in items if i in chosen]  # file order kept
    assert select_items(items, 12, None, 0) == chosen  # deterministic
    odd = select_items(items, 5, None, 0)  # never half a pair: rounded up to whole pairs
    assert len(odd) == 6 and {i.group for i in odd} == {"a", "b", "c"}
    assert len(select_items(items, 1000, None, 0)) == 30
    mixed = _pairs(["x"] * 4 + ["y"] * 4, per_pair_group=False)  # MuCR-like: by category
    assert {i.meta["category"] for i in select_items(mixed, 4, None, 0)} == {"x", "y"}
    assert limit_groups(mixed) == {f"p{k}": "x" if k < 4 else "y" for k in range(8)}
    with pytest.raises(WhatifError, match="--limit must be a positive"):
        select_items(items, 0, None, 0)


def test_the_run_spec_records_the_groups_a_limit_covered(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=10)
    run = api.run_all([load_dataset(ds)], ["builtin:random"], {}, Protocol(),
                      RunOptions(limit=6, progress=False), RunStore(tmp_path / "s.sqlite"))[0]
    assert run.spec.selection.limit == 6
    assert run.spec.selection.groups == {"abs_counting_1": 2, "abs_counting_2": 1}


def test_one_shot_demonstrations_come_from_outside_the_evaluated_set(tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=8))
    evaluated = select_items(ds.items, 4, None, 0)
    demos = choose_demos(ds, evaluated, seed=0, suite=CvqaSyntheticSuite())
    outside = {i.id for i in ds.items} - {i.id for i in evaluated}
    assert all(d.id in outside for d in demos.values())
    assert all(d.group == i.group and d.role == i.role for i in evaluated
               for d in [demos[i.id]])
    builder = RequestBuilder(CvqaSyntheticSuite(), Protocol(strategy="one-shot-cot")
                             .resolved("generate"), ds, demos)
    req = builder.build(evaluated[0])
    assert [t.role for t in req.turns] == ["user", "assistant", "user"]
    assert len(req.images) == 2
    assert req.turns[1].text.startswith("There are ") and "So the answer is" in req.turns[1].text
    full = choose_demos(ds, ds.items, seed=0, suite=CvqaSyntheticSuite())  # leave-pair-out
    assert all(full[i.id].pair_id != i.pair_id for i in ds.items)


def test_cot_appends_the_papers_suffix_and_rejects_rank(tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=2))
    builder = RequestBuilder(CvqaSyntheticSuite(), Protocol(strategy="cot").resolved("generate"),
                             ds)
    assert builder.build(ds.items[0]).prompt.endswith("Let's think step by step:")
    with pytest.raises(WhatifError, match="cannot be combined"):
        Protocol(strategy="cot", answer_mode="rank").validate()


def test_model_args_are_literals_never_code() -> None:
    args = parse_model_args(["batch_size=8", "t=0.5", "flag=true", "name=__import__('os')"])
    assert args == {"batch_size": 8, "t": 0.5, "flag": True, "name": "__import__('os')"}
    with pytest.raises(WhatifError, match="key=value"):
        parse_model_args(["oops"])


def test_api_run_all_and_outputs(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    runs = api.run_all([ds], ["builtin:constant", "builtin:ignore-premise"],
                       options=RunOptions(progress=False))
    paths = api.write_outputs(tmp_path / "out", runs)
    data = json.loads(paths["results.json"].read_text())
    assert [r["model"] for r in data["runs"]] == ["builtin:constant", "builtin:ignore-premise"]
    m = data["runs"][1]["metrics"]
    assert set(m) >= {"original_accuracy", "counterfactual_accuracy", "drop", "pair_accuracy",
                      "unparsed", "by_group"}
    assert set(m["by_group"]["abs_counting_1"]) >= {"original_accuracy", "n_pairs"}
    lines = paths["samples.jsonl"].read_text().splitlines()
    assert len(lines) == 24 and {"question", "response", "prediction", "correct"} <= set(
        json.loads(lines[0]))


def test_image_labels_interleave_or_composite(tmp_path: Path) -> None:
    from util import png

    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.core.item import Item

    with DatasetWriter(tmp_path / "ds") as w:
        rels = [w.add_image(f"{k}.png", png((k * 60, 0, 0), size=40)) for k in range(3)]
        w.add_item(Item("x", tuple(rels), "Which image is the effect?", "choice", "B",
                        ("A", "B"), meta={"image_labels": ["Cause", "A", "B"]}))
        w.finish(name="m", suite="cvqa-synthetic", version="t", generator={}, seed=None)
    ds = load_dataset(tmp_path / "ds")
    multi = RequestBuilder(CvqaSyntheticSuite(), Protocol().resolved("generate"), ds)
    parts = multi.build(ds.items[0]).turns[-1].parts
    assert [p.text for p in parts[:2]] == ["Cause:", None] and parts[1].image
    assert len(multi.build(ds.items[0]).images) == 3
    comp = RequestBuilder(CvqaSyntheticSuite(),
                          Protocol(image_layout="composite").resolved("generate"), ds)
    req = comp.build(ds.items[0])
    assert len(req.images) == 1 and Path(req.images[0]).is_file()
    assert comp.build(ds.items[0]).images == req.images  # cached, deterministic


def test_single_image_backend_gets_the_right_hint(tmp_path: Path) -> None:
    from util import png

    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.core.item import Item
    from whatifbench.core.requests import Capabilities
    from whatifbench.models.builtin.reference import ConstantBackend

    class OneImage(ConstantBackend):
        capabilities = Capabilities(generate=True, rank=True, multi_image=False)

    with DatasetWriter(tmp_path / "ds") as w:  # two pictures each (a demonstration never
        rels = [w.add_image(f"{k}.png", png((k * 60, 0, 0))) for k in range(4)]  # shows one
        w.add_item(Item("x", tuple(rels[:2]), "Which?", "choice", "A", ("A", "B")))  # of the
        w.add_item(Item("y", tuple(rels[2:]), "Which?", "choice", "B", ("A", "B")))  # item's)
        w.finish(name="m", suite="cvqa-synthetic", version="t", generator={}, seed=None)
    ds = load_dataset(tmp_path / "ds")
    store = RunStore(tmp_path / "s.sqlite")
    backend = OneImage("test:one-image", {})
    with pytest.raises(WhatifError, match="--image-layout composite") as err:
        evaluate(ds, backend, Protocol(), store, RunOptions(progress=False))
    assert "zero-shot" not in str(err.value)
    with pytest.raises(WhatifError, match="composite .* and --strategy zero-shot or cot"):
        evaluate(ds, backend, Protocol(strategy="one-shot"), store, RunOptions(progress=False))
    with pytest.raises(WhatifError, match="--strategy zero-shot or cot") as err:
        evaluate(ds, backend, Protocol(strategy="one-shot", image_layout="composite"), store,
                 RunOptions(progress=False))
    ok = evaluate(ds, backend, Protocol(image_layout="composite"), store,
                  RunOptions(progress=False))
    assert ok.n_items == 2


def test_samples_keep_the_scores_that_decided(tmp_path: Path) -> None:
    from whatifbench.core.item import Item
    from whatifbench.core.requests import Part, Request, Response, Turn
    from whatifbench.runner.evaluate import score_item

    item = Item("i", (), "q", "choice", "long", ("short", "long"))
    request = Request("i", (Turn("user", (Part(text="q"),)),), candidates=("short", "long"))
    response = Response(scores=(-2.0, -3.0), mean_scores=(-2.0, -1.0))
    suite = CvqaSyntheticSuite()
    by_mean = score_item(suite, Protocol(score_by="mean"), item, request, response, "rank")
    by_sum = score_item(suite, Protocol(score_by="sum"), item, request, response, "rank")
    assert (by_mean.prediction, by_mean.scores, by_mean.correct) == ("long", [-2.0, -1.0], True)
    assert (by_sum.prediction, by_sum.scores, by_sum.correct) == ("short", [-2.0, -3.0], False)
