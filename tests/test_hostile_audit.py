"""Issue 40, items 4, 6 and 11: ``whatif audit --generator`` with a huge ``--seeds`` range, a
SIGTERM in the middle, and generator values that are wrong or given twice."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from util import whatif_env

from whatifbench.cli.main import main

pytestmark = pytest.mark.timeout(300)


def _limit_memory() -> None:
    """At most 4 GB of address space, so a list of 10^9 seeds fails fast instead of taking
    the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("seeds", ["0-999999999", "5,0-999", "1-600,601-1200"])
def test_a_huge_seed_range_is_refused_with_a_sentence(tmp_path: Path, seeds: str) -> None:
    done = subprocess.run([sys.executable, "-m", "whatifbench", "audit", "--generator",
                           "cvqa-synthetic", "--seeds", seeds], env=whatif_env(tmp_path / "h"),
                          capture_output=True, text=True, timeout=120, preexec_fn=_limit_memory,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert "an audit takes at most 1,000" in done.stderr and "generating" not in done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr


def test_sigterm_removes_the_temporary_datasets(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**whatif_env(tmp_path / "home"), "TMPDIR": str(temp)}
    proc = subprocess.Popen([sys.executable, "-m", "whatifbench", "audit", "--generator",
                             "cvqa-synthetic", "--seeds", "1-3", "-p", "per_template=40"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 120
        while not list(temp.glob("whatif-audit-seeds-*/seed-*/**/*.png")):
            assert proc.poll() is None and time.monotonic() < deadline, "no dataset appeared"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err  # errors.EXIT_TERMINATED
    assert "terminated (SIGTERM)" in err and "Traceback" not in err
    assert list(temp.iterdir()) == []  # the seeds' datasets are gone


def test_a_generator_value_is_checked_before_anything_is_generated(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--generator", "cvqa-synthetic", "--seeds", "1",
                 "-p", "per_template=abc"]) == 2
    err = capsys.readouterr().err
    assert "invalid int value: 'abc'" in err and "generating" not in err


def test_a_generator_option_given_twice_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--generator", "cvqa-synthetic", "--seeds", "1",
                 "-p", "per_template=3", "-p", "per-template=4"]) == 2
    err = capsys.readouterr().err
    assert "-p per_template is given twice (-p per_template=3 and -p per-template=4)" in err
    assert "generating" not in err
