"""Issue 11, item 10 (the parts not about the run store): a full disk, control sequences in
dataset text, and other cases that used to end in "internal error"."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cvqa_real_helpers import sample_csv, sample_images
from util import SRC, make_choice_dataset

from whatifbench.cli.main import main
from whatifbench.cli.terminal import terminal_safe


def _disk_full_after(monkeypatch: pytest.MonkeyPatch, method: str, calls: int) -> None:
    """``Path.<method>`` fails with ENOSPC from its ``calls``-th call on (a full disk)."""
    original = getattr(Path, method)
    count = {"n": 0}

    def write(self: Path, *args: object, **kwargs: object) -> object:
        count["n"] += 1
        if count["n"] >= calls:
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, method, write)


def test_disk_full_during_import_and_run_outputs(
        tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    sample_images(shared_dir, tmp_path / "coco")
    ds = make_choice_dataset(tmp_path / "ds")
    with monkeypatch.context() as patch:
        _disk_full_after(patch, "write_bytes", 5)  # the importer copies images
        assert main(["import", "cvqa-real", "--csv", str(sample_csv(shared_dir)), "--images",
                     str(tmp_path / "coco"), "--out", str(tmp_path / "real")]) == 2
    with monkeypatch.context() as patch:
        _disk_full_after(patch, "write_text", 2)  # the run writes samples, then the reports
        assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--out",
                     str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("is full (No space left on device)") == 2 and "internal error" not in err
    assert "the partial output was removed" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["coco", "ds"]  # nothing half-written


ON_TINY_DISK = r"""
import json, sys
from whatifbench.cli.main import main
print(json.dumps([main(args) for args in json.loads(sys.argv[1])]))
"""


def _can_mount_tmpfs(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs tmpfs {tmp_path}"],
                           capture_output=True, timeout=30, check=False)
    return probe.returncode == 0


def test_a_real_full_disk(tmp_path: Path) -> None:
    """The same on a real 16 KB tmpfs, mounted in a private mount namespace (nothing to clean
    up): generate, run and export meet ENOSPC for real, and leave the disk empty."""
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("cannot mount a tmpfs here (needs unprivileged user namespaces)")
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=30)
    disk = tmp_path / "disk"
    disk.mkdir()
    cases = [["generate", "cvqa-synthetic", "--per-template", "5", "--out", f"{disk}/gen"],
             ["run", "--suite", str(ds), "--model", "builtin:constant", "--no-progress",
              "--out", f"{disk}/run"],
             ["export", str(ds), "--format", "cvqa-csv", "--out", f"{disk}/x"]]
    script = (f'mount -t tmpfs -o size=16k tmpfs "{disk}" && "$@"; code=$?; '
              f'echo "LEFT:$(ls -A "{disk}")" >&2; exit $code')
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", sys.executable, "-c", ON_TINY_DISK,
         json.dumps(cases)],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": SRC, "WHATIF_HOME": str(tmp_path / "home"),
             "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1]) == [2, 2, 2], done
    assert done.stderr.count("is full (No space left on device)") == 3, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith("LEFT:")  # no partial folder, no temporary file


def test_control_sequences_from_datasets_never_reach_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    card = json.loads((ds / "card.json").read_text())
    card["name"] = "evil\x1b]0;pwned\x07\x1b[2J\x1b[31mname\u202e\r\x9b1m"
    (ds / "card.json").write_text(json.dumps(card))
    text = (ds / "items.jsonl").read_text().replace("abs_counting_1", "grp\\u001b[5mblink")
    (ds / "items.jsonl").write_text(text)
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--out",
                 str(tmp_path / "out"), "--no-verify"]) == 0
    done = capsys.readouterr()
    for stream in (done.out, done.err):
        assert not any(c in stream for c in "\x1b\x07\x9b\u202e"), repr(stream)
    assert "evilname" in done.err and "C-VQA-Synthetic: evilname" in done.out
    # the data itself is kept verbatim in what we write
    samples = (tmp_path / "out" / "samples.jsonl").read_text().splitlines()
    assert "grp\x1b[5mblink" in {json.loads(line)["group"] for line in samples}


@pytest.mark.parametrize("raw, shown", [
    ("plain text\nnext\tcol", "plain text\nnext\tcol"),
    ("\x1b[1;31mred\x1b[0m", "red"),
    ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),
    ("\rprogress 50%", "\rprogress 50%"),
    ("over\rwrite", "overwrite"),
    ("bell\x07 null\x00 del\x7f", "bell null del"),
    ("lone \ud800 surrogate", "lone \ufffd surrogate"),
])
def test_terminal_safe(raw: str, shown: str) -> None:
    assert terminal_safe(raw) == shown
