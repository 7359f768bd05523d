"""``--executor ray`` on a two-node Ray cluster on this machine (``ray.cluster_utils.Cluster``,
one CPU per node): images shipped to the other node, the driver killed with SIGKILL and
resumed, a generate across nodes, a node lost mid-run."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_helpers import outputs, stored, written
from util import make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.fsutil import sha256_file
from whatifbench.core.protocol import Protocol
from whatifbench.runner.backends import make_backend
from whatifbench.runner.evaluate import RunOptions, evaluate
from whatifbench.runner.executors.config import ExecutorConfig
from whatifbench.runner.executors.local import open_executor
from whatifbench.runner.executors.ray.executor import RayBackend
from whatifbench.runner.store import RunStore
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")
QUIET = RunOptions(progress=False)
IGNORE = ("delay",)
"""Simulated latency: an execution argument that changes no answer, left out of comparisons."""
SRC = str(Path(__file__).resolve().parents[1] / "src")
TWO = ExecutorConfig(kind="ray", actors=2)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A head node and a worker node of one CPU each; this process is a driver on the head."""
    home = tmp_path_factory.mktemp("cluster_home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WHATIF_HOME", str(home))  # what the nodes' workers inherit
        found = cluster_utils.Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "include_dashboard": False})
        found.add_node(num_cpus=1)
        found.wait_for_nodes()
        ray.init(address=found.address, logging_level=logging.WARNING)
        try:
            yield found
        finally:
            ray.shutdown()
            found.shutdown()


def test_two_nodes_give_the_local_results(cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "suite"
    CvqaSyntheticGenerator.generate(out, per_template=2, seed=9, workers=1)
    ds = load_dataset(out)
    local = evaluate(ds, make_backend("builtin:scene-reader", {}), Protocol(),
                     RunStore(tmp_path / "l.sqlite"), QUIET)
    with open_executor(TWO) as executor:
        backend = executor.make_backend("builtin:scene-reader", {})
        assert isinstance(backend, RayBackend)
        try:
            ray.get([slot.handle.identity.remote() for slot in backend.pool.slots])  # both up
            remote = evaluate(ds, backend, Protocol(), RunStore(tmp_path / "r.sqlite"), QUIET)
            nodes = {slot.node for slot in backend.pool.slots}
            shipped = backend.pool.shipped
        finally:
            backend.close()
    assert len(nodes) == 2  # one actor per node
    images = sum(p.stat().st_size for p in (out / "images").iterdir())
    assert 0 < shipped <= images  # the other node got image bytes, each image at most once
    assert outputs(tmp_path / "a", [local]) == outputs(tmp_path / "b", [remote])


def test_tiny_hf_model_on_two_nodes(cluster: Any, tiny_llava: Path, tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=3))
    spec, args, protocol = f"hf:{tiny_llava}", {"batch_size": 2}, Protocol(max_new_tokens=4)
    local = evaluate(ds, make_backend(spec, args), protocol, RunStore(tmp_path / "l.sqlite"),
                     QUIET)
    with open_executor(TWO) as executor:
        backend = executor.make_backend(spec, args)
        assert isinstance(backend, RayBackend)
        try:
            ray.get([slot.handle.identity.remote() for slot in backend.pool.slots])
            remote = evaluate(ds, backend, protocol, RunStore(tmp_path / "r.sqlite"), QUIET)
            assert len({slot.node for slot in backend.pool.slots}) == 2
            assert backend.pool.shipped > 0  # the other node read the images from bytes
        finally:
            backend.close()
    assert outputs(tmp_path / "a", [local]) == outputs(tmp_path / "b", [remote])


def _cli(args: list[str], home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "WHATIF_HOME": str(home), "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-m", "whatifbench", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_killed_driver_resumes_from_the_store(cluster: Any, tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=30)
    args = ["run", "--suite", str(ds), "--model", "builtin:random", "-M", "delay=0.1",
            "--no-progress", "--out", str(tmp_path / "out")]
    ray_args = ["--executor", "ray", "--ray-address", cluster.address, "--ray-actors", "1"]
    home = tmp_path / "home"
    proc = _cli([*args, *ray_args], home)
    deadline = time.monotonic() + 180
    while stored(home / "store.sqlite") < 8:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run stored nothing in 180 s"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    done = stored(home / "store.sqlite")
    assert 8 <= done < 60 and not (tmp_path / "out" / "results.json").exists()

    resumed = _cli([*args, *ray_args], home)
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{done} from the store, {60 - done} computed, 0 errors" in err
    local = ["run", "--suite", str(ds), "--model", "builtin:random", "--no-progress",
             "--out", str(tmp_path / "local"), "--store", str(tmp_path / "local.sqlite")]
    assert main(local) == 0  # no simulated latency: the same answers
    assert written(tmp_path / "out", IGNORE) == written(tmp_path / "local", IGNORE)
    deadline = time.monotonic() + 60  # the killed driver's actors were ended with its job
    while ray.available_resources().get("CPU", 0) < 2:
        assert time.monotonic() < deadline, ray.available_resources()
        time.sleep(0.2)


def test_generate_across_nodes_is_byte_identical(cluster: Any, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    size = ["--per-category", "2", "--seed", "5"]
    assert main(["generate", "cfmm-synthetic", *size, "--out", str(local)]) == 0
    assert main(["generate", "cfmm-synthetic", *size, "--out", str(remote),
                 "--executor", "ray"]) == 0
    files = [{p.relative_to(f).as_posix(): sha256_file(p) for p in sorted(f.rglob("*"))
              if p.is_file()} for f in (local, remote)]
    assert files[0] == files[1]


def test_node_lost_mid_run(cluster: Any, tmp_path: Path) -> None:
    """Runs last: the worker node is removed while its actor answers; a new node joins after."""
    ds = load_dataset(make_choice_dataset(tmp_path / "ds", n_pairs=30))
    expected = evaluate(ds, make_backend("builtin:random", {}), Protocol(),
                        RunStore(tmp_path / "l.sqlite"), QUIET)
    worker = next(n for n in cluster.worker_nodes)
    removed: list[bool] = []

    def remove() -> None:
        deadline = time.monotonic() + 120
        while stored(tmp_path / "r.sqlite") < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        cluster.remove_node(worker, allow_graceful=False)
        removed.append(True)

    with open_executor(TWO) as executor:
        backend = executor.make_backend("builtin:random", {"delay": 0.1})
        assert isinstance(backend, RayBackend)
        try:
            assert len({slot.node for slot in backend.pool.slots}) == 2
            thread = threading.Thread(target=remove, daemon=True)
            thread.start()
            got = evaluate(ds, backend, Protocol(), RunStore(tmp_path / "r.sqlite"), QUIET)
            thread.join(timeout=30)
            assert removed and backend.pool.redispatched >= 1
        finally:
            backend.close()
    assert got.execution.errors == 0 and got.execution.computed == 60
    assert outputs(tmp_path / "a", [expected], IGNORE) == outputs(tmp_path / "b", [got], IGNORE)
    cluster.add_node(num_cpus=1)
