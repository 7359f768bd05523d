"""Executor pieces that need no Ray cluster: options, batches, image shipping, messages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.cli.options import add_executor_arguments, executor_config
from whatifbench.core.dataset import load_dataset
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import get_suite
from whatifbench.runner.executors.config import Resources
from whatifbench.runner.executors.ray.pool import MAX_BATCH, plan_batches
from whatifbench.runner.executors.ray.session import fitting
from whatifbench.runner.executors.ray.worker import Answered, BackendWorker, Batch, Missing, ship
from whatifbench.runner.requests import ImageHasher, RequestBuilder


def test_resources_parse_names_amounts_and_units() -> None:
    r = Resources.parse("gpu=1, cpu=4,memory=16G,accelerator_type:A100=0.5")
    assert (r.cpu, r.gpu, r.memory) == (4.0, 1.0, 16 * 1024**3)
    assert r.custom == (("accelerator_type:A100", 0.5),)
    assert r.needs(0) == {"CPU": 4.0, "GPU": 1.0, "memory": 16.0 * 1024**3,
                          "accelerator_type:A100": 0.5}
    default = Resources.parse("")
    assert default.needs(0) == {"CPU": 1.0} and default.needs(1) == {"CPU": 1.0, "GPU": 1.0}
    assert Resources.parse("gpu=0").needs(1) == {"CPU": 1.0}  # an explicit 0 wins
    assert default.text(1) == "cpu=1,gpu=1"
    for bad, words in (("gpu", "NAME=AMOUNT"), ("cpu=four", "NAME=AMOUNT"),
                       ("cpu=2G", "only memory"), ("cpu=1,cpu=2", "twice"),
                       ("1x=2", "NAME=AMOUNT")):
        with pytest.raises(WhatifError, match=words):
            Resources.parse(bad)


def _parse(command: str, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_executor_arguments(parser, command)
    return parser.parse_args(argv)


def test_executor_options_are_checked() -> None:
    config = executor_config(_parse("run", ["--executor", "ray", "--ray-actors", "3",
                                            "--ray-actor-resources", "cpu=2",
                                            "--ray-address", "10.0.0.1:6379"]))
    assert (config.kind, config.actors, config.address, config.resources.cpu) == (
        "ray", 3, "10.0.0.1:6379", 2.0)
    assert executor_config(_parse("run", [])).kind == "local"
    with pytest.raises(WhatifError, match="--ray-actors only apply with --executor ray"):
        executor_config(_parse("run", ["--ray-actors", "2"]))
    with pytest.raises(WhatifError, match="--ray-tasks must be at least 1"):
        executor_config(_parse("generate", ["--executor", "ray", "--ray-tasks", "0"]))


def test_cli_says_how_to_install_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray → ImportError
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=2)
    code = main(["run", "--suite", str(ds), "--model", "builtin:random", "--executor", "ray",
                 "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and 'pip install "whatifbench[ray]"' in err and "Traceback" not in err
    assert not (tmp_path / "out" / "results.json").exists()
    code = main(["generate", "cfmm-synthetic", "--per-category", "1", "--executor", "ray",
                 "--out", str(tmp_path / "gen")])
    assert code == 2 and 'pip install "whatifbench[ray]"' in capsys.readouterr().err
    assert not (tmp_path / "gen").exists()
    code = main(["generate", "cfmm-synthetic", "--per-category", "1", "--workers", "2",
                 "--executor", "ray", "--out", str(tmp_path / "gen")])
    assert code == 2 and "--ray-tasks" in capsys.readouterr().err


def _requests(images: list[str]) -> list[Request]:
    return [Request(f"q{k}", (Turn("user", (Part(image=p), Part(text=f"q{k}"))),))
            for k, p in enumerate(images)]


def test_batches_cover_everything_in_order_and_keep_shared_images_together() -> None:
    images = [f"/d/img{k // 2}.png" for k in range(1000)]  # pairs share an image
    for actors in (1, 2, 3, 7):
        batches = plan_batches(_requests(images), actors)
        assert [i for b in batches for i in b] == list(range(1000))
        assert all(len(b) <= MAX_BATCH + 1 for b in batches)
        assert len(batches) >= 4 * actors
        assert all(b[0] % 2 == 0 for b in batches)  # no pair is cut
        assert len(batches[-1]) < len(batches[0])  # small ones at the end
    assert plan_batches(_requests(["/a.png"] * 5), 2) == [[0, 1, 2, 3, 4]]
    assert plan_batches([], 2) == []


def test_fitting_counts_actors_per_node() -> None:
    nodes = [{"CPU": 8.0, "GPU": 2.0}, {"CPU": 3.0}, {"CPU": 16.0, "GPU": 1.0}]
    assert fitting({"CPU": 1.0}, nodes) == 27
    assert fitting({"CPU": 4.0, "GPU": 1.0}, nodes) == 3
    assert fitting({"CPU": 1.0, "special": 1.0}, nodes) == 0


def test_images_travel_as_bytes_to_a_worker(tmp_path: Path) -> None:
    """What an actor on another node does, in this process: content names in, same answers."""
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=4))
    suite = get_suite(ds.suite)
    builder = RequestBuilder(suite, Protocol().resolved("generate", "sum", 64), ds)
    requests = [builder.build(item) for item in ds.items]
    local = dict(make_backend("builtin:scene-reader", {}).generate(requests))

    sent: set[str] = set()
    shipped, images = ship(requests, ImageHasher(), sent)
    assert len(images) == 4 and sent == set(images)  # each image once
    assert all(not Path(p).is_absolute() for r in shipped for p in r.images)
    worker = BackendWorker("builtin:scene-reader", {})
    try:
        lacking = worker.run(Batch("generate", shipped, {}))
        assert isinstance(lacking, Missing) and set(lacking.names) == set(images)
        answered = worker.run(Batch("generate", shipped, images))
        assert isinstance(answered, Answered)
        assert dict(answered.results) == local
        again, more = ship(requests, ImageHasher(), sent)  # already sent: names only
        assert more == {} and again == shipped
        assert dict(worker.run(Batch("generate", again, {})).results) == local  # type: ignore[union-attr]
        folder = worker.folder
        assert sorted(p.name for p in folder.iterdir()) == sorted(images)
    finally:
        worker.close()
    assert not folder.exists()
    refused = BackendWorker("openai:m", {"max_connections": 0})
    assert refused.refusal and "max_connections" in refused.refusal
    result = refused.run(Batch("generate", tuple(requests[:1]), {}))
    assert getattr(result, "message", "") == refused.refusal
