"""``--executor ray`` with no cluster running and no ``--ray-address``: the command starts a
local Ray for itself (as many actors as its CPUs allow) and stops it at the end."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from util import make_choice_dataset, run_outputs

from whatifbench.cli.main import main

pytest.importorskip("ray")
SRC = str(Path(__file__).resolve().parents[1] / "src")


def _python(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(WHATIF_HOME=str(home), PYTHONPATH=SRC)
    return subprocess.run([sys.executable, *args], env=env, text=True, capture_output=True,
                          timeout=600, check=False)


def test_a_local_ray_is_started_for_the_command_and_stopped(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=6)
    run = ["run", "--suite", str(ds), "--model", "builtin:ignore-premise", "--no-progress"]
    done = _python(["-m", "whatifbench", *run, "--out", str(tmp_path / "ray"),
                    "--executor", "ray"], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "a local Ray started for this command" in done.stderr
    found = re.search(r"Ray: (\d+) actors? of builtin:ignore-premise \(cpu=1 each\)", done.stderr)
    assert found and int(found.group(1)) >= 1  # as many as the local CPUs allow
    assert main([*run, "--out", str(tmp_path / "local")]) == 0
    assert run_outputs(tmp_path / "ray") == run_outputs(tmp_path / "local")
    probe = _python(["-c", "import ray; ray.init(address='auto')"], tmp_path / "home")
    assert probe.returncode != 0 and "Could not find any running Ray instance" in probe.stderr


LISTENERS = """
import json, psutil
from whatifbench.runner.executors.ray.session import connect, disconnect
session = connect(ADDRESS)
import ray
ray.get(ray.remote(lambda: 1).remote())  # a worker process is up too
found = []
for proc in psutil.Process().children(recursive=True):
    try:
        found += [(proc.name(), c.laddr.ip) for c in proc.net_connections(kind="inet")
                  if c.status == psutil.CONN_LISTEN]
    except psutil.Error:
        pass
print(json.dumps({"local": session.started_local, "listeners": found}))
disconnect(session)
"""


def test_a_local_ray_listens_on_the_loopback_interface_only(tmp_path: Path) -> None:
    done = _python(["-c", LISTENERS.replace("ADDRESS", repr("local"))], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    names = {name for name, _ in report["listeners"]}
    assert report["local"] and "gcs_server" in names and "raylet" in names, report
    exposed = [(name, ip) for name, ip in report["listeners"]
               if ip not in ("127.0.0.1", "::ffff:127.0.0.1", "::1")]
    assert exposed == [], exposed


def test_no_cluster_found_starts_the_same_loopback_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --ray-address and with no cluster running, ``connect`` starts its own Ray the
    way ``--ray-address local`` does (Ray's single-machine mode while ``ray.init`` runs)."""
    import types

    from whatifbench.runner.executors.ray import session as ray_session

    constants = types.SimpleNamespace(ENABLE_RAY_CLUSTER=True)
    calls: list[tuple[str | None, bool]] = []

    def init(address: str | None = None, **kwargs: object) -> None:
        calls.append((address, constants.ENABLE_RAY_CLUSTER))
        if address == "auto":
            raise ConnectionError("no cluster")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init,
                                 get_runtime_context=lambda: None)
    monkeypatch.setattr(ray_session, "require_ray", lambda: fake)
    monkeypatch.setitem(sys.modules, "ray._private", types.SimpleNamespace(
        ray_constants=constants))
    monkeypatch.setattr(ray_session, "_is_client", lambda ray: False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    session = ray_session.connect(None)
    assert calls == [("auto", True), ("local", False)] and session.started_local
    assert constants.ENABLE_RAY_CLUSTER is True  # restored
