"""Backends declare which suites they can answer and which -M arguments they take (issue 11
items 5 and 9b): ``whatif run`` without --model runs only the built-in models that apply, an
explicit pairing that cannot work is refused with the reason before any work, and an argument no
model of the run takes is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cello_fixtures import write_input
from mucr_util import write_release
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.registry import entries, load_plugins
from whatifbench.runner.backends import make_backend
from whatifbench.runner.store import RunStore
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.mucr.importer import import_mucr

SUITES = ("cvqa-synthetic", "cvqa-real", "cfmm", "mucr", "cello")


@pytest.fixture(scope="module")
def cello(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cello")
    sg, data, images = write_input(root / "in")
    build_cello(sg, images, root / "ds", image_data=data, per_task=2, seed=0,
                design="paper")
    return root / "ds"


@pytest.fixture(scope="module")
def mucr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mucr")
    release = write_release(root / "release")
    import_mucr(release.jsonl, release.images, root / "ds")
    return root / "ds"


def _stored(home: Path) -> int:
    path = home / "store.sqlite"
    if not path.exists():
        return 0
    store = RunStore(path)
    try:
        return store.count()
    finally:
        store.close()


def test_declarations() -> None:
    reads = make_backend("builtin:scene-reader", {}).applies_to
    assert reads("cvqa-synthetic", "cvqa-synthetic") and reads("cfmm", "cfmm-synthetic")
    assert reads("mucr", "mucr-synthetic") and reads("mucr")
    for suite, generator in (("cello", "cello-build"), ("cvqa-real", "import:cvqa-real"),
                             ("cfmm", "import:cfmm"), ("mucr", "mucr-import"),
                             ("cvqa-synthetic", "import:cvqa-synthetic"), ("cello", None)):
        assert not reads(suite, generator)
    ignores = make_backend("builtin:ignore-premise", {})
    assert [s for s in SUITES if ignores.applies_to(s)] == ["cvqa-synthetic", "cvqa-real", "cfmm"]
    oracle = make_backend("viper:builtin:constant", {"detector": "oracle"})
    assert oracle.applies_to("cfmm", "cfmm-synthetic") and not oracle.applies_to("cfmm", "x")
    assert "with -M detector=oracle it reads only pictures" in str(oracle.inapplicable("cello"))


def test_every_shipped_backend_declares_its_arguments() -> None:
    load_plugins()
    for entry in entries("backend"):
        if entry.obj.__module__.startswith("whatifbench."):  # not the ad-hoc ones of tests
            assert entry.obj.arg_names is not None, entry.name
    for name in ("random", "constant", "ignore-premise", "scene-reader", "text-prior"):
        backend = make_backend(f"builtin:{name}", {})
        for suite in SUITES:
            why = backend.inapplicable(suite)
            assert why is None or (isinstance(why, str) and why), (name, suite)


def test_without_model_only_the_applicable_builtins_run(
        cello: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", str(cello), "--out", str(tmp_path / "out"),
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "builtin:ignore-premise is left out on cello" in err
    assert "builtin:scene-reader is left out on cello" in err
    assert "reads only pictures drawn by whatifbench's scene generators" in err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["model"] for r in results["runs"]] == ["builtin:random", "builtin:constant"]


@pytest.mark.parametrize(("model", "dataset", "reason"), [
    ("builtin:scene-reader", "cello", ("it reads only pictures drawn by whatifbench's scene "
                                      "generators (cfmm-synthetic, cvqa-synthetic, "
                                      "mucr-synthetic), and this cello dataset was made by "
                                      "cello-build")),
    ("builtin:ignore-premise", "mucr", ("it answers only suites of original (or basic) and "
                                       "counterfactual pairs, and mucr items come in no such "
                                       "pairs")),
    ("builtin:ignore-premise", "cello", "and cello items come in no such pairs"),
    ("builtin:scene-reader", "handmade", "was made by hand"),
    ("embedding:all-MiniLM-L6-v2", "handmade", "use it as a judge (--judge)"),
])
def test_an_inapplicable_pairing_is_refused_before_any_work(
        model: str, dataset: str, reason: str, cello: Path, mucr: Path, tmp_path: Path,
        whatif_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    handmade = make_choice_dataset(tmp_path / "hand")
    chosen = {"cello": cello, "mucr": mucr, "handmade": handmade}[dataset]
    # Where the model applies to the first dataset, it is still not evaluated: every pairing
    # is checked before any work.
    first = [handmade] if dataset != "handmade" and model == "builtin:ignore-premise" else []
    suites = [arg for ds in (*first, chosen) for arg in ("--suite", str(ds))]
    code = main(["run", *suites, "--model", model, "--out", str(tmp_path / "out"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"The model {model} does not apply to the dataset {chosen}" in err and reason in err
    assert err.count("whatif: error:") == 1 and "Traceback" not in err
    assert _stored(whatif_home) == 0
    assert not (tmp_path / "out" / "results.json").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "builtin:random", "-M", "bearer=sk-live-0123456789"],
     "Unknown argument(s) bearer for builtin:random; it takes delay, seed"),
    (["--model", "builtin:constant", "-M", "batch_size=4"],
     "Unknown argument(s) batch_size for builtin:constant; it takes delay"),
    (["--model", "builtin:constant", "--model", "builtin:ignore-premise", "-M", "seed=3"],
     ("No model of this run takes the argument(s) seed (builtin:constant takes delay; "
     "builtin:ignore-premise takes delay)")),
    (["--model", "builtin:constant", "--model", "builtin:random", "-M", "max_conections=2"],
     "No model of this run takes the argument(s) max_conections"),
])
def test_unknown_model_arguments_are_refused_for_every_backend(
        args: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    code = main(["run", "--suite", str(ds), *args, "--out", str(tmp_path / "out"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert "sk-live-0123456789" not in err


def test_arguments_shared_by_the_models_of_a_run_reach_the_one_that_takes_them(
        tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--model",
                 "builtin:random", "-M", "seed=3", "--out", str(tmp_path / "out"),
                 "--no-progress"]) == 0
    runs = json.loads((tmp_path / "out" / "results.json").read_text())["runs"]
    assert [r["spec"]["backend"]["args"] for r in runs] == [{}, {"seed": 3}]
