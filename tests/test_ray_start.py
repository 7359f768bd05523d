"""``--executor ray`` with no cluster running and no ``--ray-address``: the command starts a
local Ray for itself (as many actors as its CPUs allow) and stops it at the end."""

from __future__ import annotations

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
