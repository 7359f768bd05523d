"""``--executor ray`` on a local Ray (2 CPUs, started once for this module): same results and
samples as the local executor, an actor killed mid-run, generators byte for byte."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_helpers import outputs, stored
from util import make_choice_dataset, run_outputs

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.protocol import Protocol
from whatifbench.core.requests import Part, Request, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.family import ModelHint, model_hint
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.executors.config import ExecutorConfig
from whatifbench.runner.executors.local import open_executor
from whatifbench.runner.executors.ray import pool as ray_pool
from whatifbench.runner.executors.ray.executor import RayBackend
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

ray = pytest.importorskip("ray")
QUIET = RunOptions(progress=False)
IGNORE = ("delay",)
"""Simulated latency: an execution argument that changes no answer, left out of comparisons."""


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local Ray for the module (actors get their own ``$WHATIF_HOME``). It declares one
    GPU that does not exist, to show what hf: actors reserve on a GPU cluster (torch finds no
    CUDA in the actor and runs on the CPU)."""
    home = tmp_path_factory.mktemp("ray_home")
    ray.init(address="local", num_cpus=2, num_gpus=1, include_dashboard=False,
             logging_level=logging.WARNING, runtime_env={"env_vars": {"WHATIF_HOME": str(home)}})
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cvqa") / "suite"
    CvqaSyntheticGenerator.generate(out, per_template=3, seed=4, workers=1)
    return out


RAY = ExecutorConfig(kind="ray", actors=2)


def test_builtin_models_give_the_local_results(local_ray: Any, synthetic: Path,
                                               tmp_path: Path) -> None:
    ds = load_dataset(synthetic)
    args = {"seed": 3}
    protocols = (Protocol(), Protocol(answer_mode="rank"))
    # ignore-premise learns from all items in prepare(): both actors must have them
    for spec, actors in (("builtin:scene-reader", 2), ("builtin:ignore-premise", 2)):
        local = [evaluate(ds, make_backend(spec, args, shared=True), p,
                          RunStore(tmp_path / "l.sqlite"), QUIET) for p in protocols]
        store = RunStore(tmp_path / f"{spec}.sqlite")
        with open_executor(ExecutorConfig(kind="ray", actors=actors)) as executor:
            backend = executor.make_backend(spec, args, shared=True)
            try:
                assert backend.pool.needs_text == "cpu=1"  # no GPU for programs
                remote = [evaluate(ds, backend, p, store, QUIET) for p in protocols]
                again = [evaluate(ds, backend, p, store, QUIET) for p in protocols]
            finally:
                backend.close()
        assert outputs(tmp_path / "a", local) == outputs(tmp_path / "b", remote)
        assert outputs(tmp_path / "a", local) == outputs(tmp_path / "c", again)
        assert all(r.execution.computed == r.n_items for r in remote)
        assert all(r.execution.from_store == r.n_items for r in again)  # nothing recomputed
    assert ray.is_initialized()  # the caller's Ray is left running


def test_cli_run_on_ray(local_ray: Any, synthetic: Path, tmp_path: Path) -> None:
    base = ["run", "--suite", str(synthetic), "--model", "builtin:scene-reader",
            "--no-progress", "--limit", "10"]
    assert main([*base, "--out", str(tmp_path / "local")]) == 0
    assert main([*base, "--out", str(tmp_path / "ray"), "--store", str(tmp_path / "s.sqlite"),
                 "--executor", "ray", "--ray-actors", "1"]) == 0
    assert run_outputs(tmp_path / "local") == run_outputs(tmp_path / "ray")


def test_several_models_take_the_cluster_in_turn(local_ray: Any, synthetic: Path,
                                                 tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each model's actors take every CPU (no --ray-actors): the next model's actors start
    only after the previous model's have ended, so the run finishes, as locally."""
    monkeypatch.setattr(ray_pool, "NOTICE_SECONDS", 2.0)
    monkeypatch.setattr(ray_pool, "STALL_SECONDS", 20.0)  # a stalled pool fails fast
    base = ["run", "--suite", str(synthetic), "--model", "builtin:random", "--model",
            "builtin:constant", "--model", "builtin:scene-reader", "--no-progress",
            "--limit", "12"]
    assert main([*base, "--out", str(tmp_path / "local")]) == 0
    assert main([*base, "--out", str(tmp_path / "ray"), "--store", str(tmp_path / "s.sqlite"),
                 "--executor", "ray"]) == 0
    assert run_outputs(tmp_path / "local") == run_outputs(tmp_path / "ray")


def test_tiny_hf_model_gives_the_local_results(local_ray: Any, tiny_llava: Path,
                                               tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=3)
    spec = f"hf:{tiny_llava}"
    args = {"batch_size": 2}
    local = api.run_all([ds], [spec], args, Protocol(max_new_tokens=4), QUIET,
                        RunStore(tmp_path / "l.sqlite"))
    with open_executor(ExecutorConfig(kind="ray", actors=1)) as executor:
        backend = executor.make_backend(spec, args)
        assert isinstance(backend, RayBackend)
        try:
            assert backend.pool.needs_text == "cpu=1,gpu=1"  # a GPU per hf: actor
            remote = [evaluate(load_dataset(ds, verify=True), backend, Protocol(max_new_tokens=4),
                               RunStore(tmp_path / "r.sqlite"), QUIET)]
            ranked = evaluate(load_dataset(ds), backend, Protocol(answer_mode="rank"),
                              RunStore(tmp_path / "r.sqlite"), QUIET)
        finally:
            backend.close()
    assert outputs(tmp_path / "a", local) == outputs(tmp_path / "b", remote)
    assert remote[0].spec.backend.version == local[0].spec.backend.version
    assert all(s.scores is not None and len(s.scores) == 4 for s in ranked.samples)


def test_the_actors_model_family_and_refusals_reach_the_driver(local_ray: Any,
                                                               tiny_paligemma: Path) -> None:
    """The driver's stand-in answers as the actor's backend would: the model family that picks
    a paper protocol (read by the actor, not from a folder the driver may not have) and the
    image ablations the checkpoint refuses."""
    spec = f"hf:{tiny_paligemma}"
    with open_executor(ExecutorConfig(kind="ray", actors=1)) as executor:
        backend = executor.make_backend(spec, {})
        assert isinstance(backend, RayBackend)
        try:
            assert model_hint(backend) == ModelHint("hf", spec[3:].lower(), "paligemma",
                                                    "gemma")
            assert "computes every answer from image features" in str(
                backend.ablation_refusal("none"))
            assert backend.ablation_refusal("blank") is None
        finally:
            backend.close()


def _kill_when_stored(store_path: Path, backend: RayBackend, rows: int,
                      killed: list[int]) -> threading.Thread:
    """Kill the first actor's process with SIGKILL once ``rows`` responses are stored."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while stored(store_path) < rows and time.monotonic() < deadline:
            time.sleep(0.02)
        slot = max(backend.pool.slots, key=lambda s: (s.busy, s.pid))
        os.kill(slot.pid, signal.SIGKILL)
        killed.append(slot.pid)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_actor_killed_mid_run_loses_nothing(local_ray: Any, tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=40))
    args = {"delay": 0.05}  # simulated latency: answers are those of no delay
    expected = evaluate(ds, make_backend("builtin:random", {}), Protocol(),
                        RunStore(tmp_path / "l.sqlite"), QUIET)
    killed: list[int] = []
    with open_executor(RAY) as executor:
        backend = executor.make_backend("builtin:random", args)
        assert isinstance(backend, RayBackend)
        try:
            watcher = _kill_when_stored(tmp_path / "r.sqlite", backend, 10, killed)
            got = evaluate(ds, backend, Protocol(), RunStore(tmp_path / "r.sqlite"), QUIET)
            watcher.join(timeout=10)
            assert killed and backend.pool.redispatched >= 1
            assert got.execution.errors == 0 and got.execution.computed == 80
            # a run stopped early (Ctrl-C) leaves no actor counted busy; closing does not wait
            stream = backend.generate([Request(i.id, (Turn("user", (Part(text="?"),)),),
                                               item=i) for i in ds.items])
            next(stream)
            stream.close()
            assert backend.pool.interrupted and all(s.busy == 0 for s in backend.pool.slots)
            start = time.monotonic()
        finally:
            backend.close()
    assert time.monotonic() - start < 5
    assert outputs(tmp_path / "a", [expected], IGNORE) == outputs(tmp_path / "b", [got], IGNORE)


def test_user_mistakes_come_back_as_one_message(local_ray: Any, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=2)
    base = ["run", "--suite", str(ds), "--executor", "ray", "--no-progress",
            "--out", str(tmp_path / "out")]
    assert main([*base, "--model", "openai:m", "-M", "max_connections=0",
                 "--ray-actors", "1"]) == 2
    err = capsys.readouterr().err
    assert "max_connections must be a whole number >= 1" in err and "Traceback" not in err
    deadline = time.monotonic() + 60  # the refusing actor was ended: its CPU is free again
    while ray.available_resources().get("CPU", 0) < 2:
        assert time.monotonic() < deadline, ray.available_resources()
        time.sleep(0.1)
    assert main([*base, "--model", "builtin:random", "--ray-actor-resources", "gpu=2"]) == 2
    err = capsys.readouterr().err
    assert "No node of the Ray cluster has" in err and "gpu=2" in err and "GPU=1" in err
    assert not (tmp_path / "out" / "results.json").exists()
    with pytest.raises(WhatifError, match="Unknown backend"):
        with open_executor(RAY) as executor:
            executor.make_backend("builtin:nonsense", {})


def files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p)
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name,size", [("cvqa-synthetic", ["--per-template", "3"]),
                                       ("cfmm-synthetic", ["--per-category", "2"]),
                                       ("mucr-synthetic", ["--groups", "5"])])
def test_generate_on_ray_is_byte_identical(local_ray: Any, tmp_path: Path, name: str,
                                           size: list[str]) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    assert main(["generate", name, *size, "--seed", "2", "--out", str(local)]) == 0
    assert main(["generate", name, *size, "--seed", "2", "--out", str(remote),
                 "--executor", "ray", "--ray-tasks", "3"]) == 0
    assert files(local) == files(remote)


def test_program_backend_runs_in_an_actor(local_ray: Any, synthetic: Path, tmp_path: Path,
                                          fake_openai: Any) -> None:
    """A ViperGPT-style backend (code LLM on a server, programs in a sandbox process inside
    the actor) answers as locally; only the trace's wall-clock seconds differ."""
    from program_util import oracle_program, program_rules

    server = fake_openai({"rules": program_rules(list(load_dataset(synthetic).items),
                                                 oracle_program)})
    base = ["run", "--suite", str(synthetic), "--model", "viper:openai:coder", "-M",
            "detector=oracle", "--base-url", server.url, "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "local")]) == 0
    assert main([*base, "--out", str(tmp_path / "ray"), "--store", str(tmp_path / "r.sqlite"),
                 "--executor", "ray", "--ray-actors", "1"]) == 0
    (results, local), (results_ray, remote) = (run_outputs(tmp_path / name)
                                               for name in ("local", "ray"))
    for sample in (*local, *remote):
        sample["trace"].pop("seconds")  # type: ignore[index]
    assert local == remote and len(local) == 36
    for data in (results, results_ray):  # the digest of samples.jsonl (the seconds differ)
        data.pop("samples_sha256")  # type: ignore[attr-defined]
    assert results == results_ray


def test_failed_items_are_recorded_and_retried_next_run(local_ray: Any, tmp_path: Path,
                                                        fake_openai: Any,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    server = fake_openai({"schedule": {"3": "400"}})  # a 400 fails its item at once
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=4)
    base = ["run", "--suite", str(ds), "--model", "openai:fake-vlm", "--base-url", server.url,
            "--no-progress", "--executor", "ray", "--ray-actors", "1"]
    assert main([*base, "--out", str(tmp_path / "a")]) in (0, 3)
    assert "0 from the store, 8 computed, 1 errors" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "b")]) == 0
    assert "7 from the store, 1 computed, 0 errors" in capsys.readouterr().err


def test_applicability_is_the_real_backends_on_ray(local_ray: Any, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A model that does not apply is refused on Ray as locally (its actors are asked)."""
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=2)  # made by hand: no scene to read
    assert main(["run", "--suite", str(ds), "--model", "builtin:scene-reader", "--no-progress",
                 "--out", str(tmp_path / "out"), "--executor", "ray", "--ray-actors", "1"]) == 2
    assert "does not apply to the dataset" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
