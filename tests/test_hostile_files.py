"""Issue 40, items 2, 3 and 8: device nodes, FIFOs and sockets where files are read or written,
and two outputs of one command on one path.

Outputs are new or regular files (``--overwrite`` never replaces a device, a FIFO or a socket);
every file we read is opened as a regular file only and read bounded by its size (a FIFO never
makes a command wait, a character device is never read without end); ``whatif items`` refuses
``--json X --bank X`` before any work."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from util import make_choice_dataset, whatif

from whatifbench.cli.main import main
from whatifbench.core.outputs import write_output_file
from whatifbench.errors import WhatifError

pytestmark = pytest.mark.timeout(300)


def _char_device(path: Path) -> Path:
    """A character device like ``/dev/null`` (1, 3) at ``path`` (root only: skipped else)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    return path


@pytest.fixture()
def specials(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """A FIFO, a UNIX socket, a character device (when root) and a link to ``/dev/zero``."""
    found = {"fifo": tmp_path / "fifo", "socket": tmp_path / "sock",
             "zero": tmp_path / "zero"}
    os.mkfifo(found["fifo"])
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(found["socket"]))
    found["zero"].symlink_to("/dev/zero")
    try:
        found["device"] = _char_device(tmp_path / "null")
    except pytest.skip.Exception:
        pass
    yield found
    sock.close()


def _run(tmp_path: Path) -> tuple[Path, Path]:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    return ds, tmp_path / "run"


# -- item 2: outputs ---------------------------------------------------------------------------
def test_overwrite_never_replaces_a_device_a_fifo_or_a_socket(
        tmp_path: Path, specials: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    ds, run = _run(tmp_path)
    for name, path in specials.items():
        before = os.lstat(path)
        capsys.readouterr()
        assert main(["items", str(ds), str(run), "--json", str(path), "--overwrite"]) == 2, name
        err = capsys.readouterr().err
        assert "not a regular file" in err and "even with --overwrite" in err, err
        assert "Traceback" not in err
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino, after.st_rdev) == \
            (before.st_mode, before.st_ino, before.st_rdev), name
        with pytest.raises(WhatifError, match="is a (FIFO|socket|character device)"):
            write_output_file(path, b"{}", overwrite=True)
    assert os.readlink(specials["zero"]) == "/dev/zero"
    out = tmp_path / "plain.json"  # a regular file is still replaced with --overwrite
    out.write_text("old")
    assert main(["items", str(ds), str(run), "--json", str(out), "--overwrite"]) == 0
    assert out.read_text().startswith("{")


# -- item 3: inputs ----------------------------------------------------------------------------
def test_reads_refuse_special_files_without_waiting(specials: dict[str, Path],
                                                   tmp_path: Path) -> None:
    from whatifbench.core.fsutil import sha256_file
    from whatifbench.core.images import inspect_image, open_image
    from whatifbench.core.readfile import NotRegularFile, read_bytes

    def image(path: Path) -> object:
        with open_image(path) as img:
            return img.size

    for name, path in specials.items():
        for read in (read_bytes, sha256_file, image):
            with pytest.raises(NotRegularFile, match="not a regular file"):
                read(path)
        why, digest = inspect_image(path, want_hash=True)
        assert why is not None and "not a regular file" in why and digest is None, name
    from whatifbench.integrations.hf_datasets import _parquet_files

    shard = tmp_path / "hf" / "data" / "test-00000-of-00001.parquet"  # read by pyarrow, not us
    shard.parent.mkdir(parents=True)
    os.mkfifo(shard)
    for given in (shard, tmp_path / "hf"):
        with pytest.raises(NotRegularFile, match="is a FIFO"):
            _parquet_files(given)
    grows = tmp_path / "grows.bin"
    grows.write_bytes(b"x" * 10)
    assert read_bytes(grows) == b"x" * 10 and len(sha256_file(grows)) == 64


def test_a_fifo_or_a_device_as_an_image_is_refused_not_waited_on(tmp_path: Path) -> None:
    """A real process with a time limit: before, ``whatif run`` waited forever for a writer."""
    ds = make_choice_dataset(tmp_path / "ds")
    image = ds / "images" / "img_001.png"
    image.unlink()
    os.mkfifo(image)
    for extra in ([], ["--no-verify"]):
        done = whatif(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                       str(tmp_path / "run"), "--no-progress", *extra], timeout=120)
        assert done.returncode == 2, done.stderr
        why = "cannot be read (it is a FIFO (named pipe), not a regular file)"
        assert f"images/img_001.png {why}" in done.stderr and "Traceback" not in done.stderr
    assert stat.S_ISFIFO(os.lstat(image).st_mode) and not (tmp_path / "run").exists()
    image.unlink()
    _char_device(image)  # a tar unpacked as root can hold one: never read without end
    done = whatif(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                   str(tmp_path / "run"), "--no-progress", "--no-verify"], timeout=120)
    assert done.returncode == 2 and "it is a character device" in done.stderr, done.stderr


def test_a_bank_or_a_sheet_that_is_a_fifo_or_dev_zero(
        tmp_path: Path, specials: dict[str, Path]) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    for name in ("fifo", "zero"):
        done = whatif(["run", "--suite", str(ds), "--model", "builtin:random", "--budget", "4",
                       "--bank", str(specials[name]), "--out", str(tmp_path / "run"),
                       "--no-progress"], timeout=120)
        assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
        assert f"The item bank {specials[name]} is a" in done.stderr
        done = whatif(["review", "import", str(ds), str(specials[name]), "--sheet", "keys",
                       "--out", str(tmp_path / "reviewed")], timeout=120)
        assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists() and not (tmp_path / "reviewed").exists()


# -- item 8: two outputs on one path -----------------------------------------------------------
@pytest.mark.parametrize("other", ["--bank", "--csv"])
def test_two_outputs_on_one_path_are_refused_before_any_work(
        tmp_path: Path, other: str, capsys: pytest.CaptureFixture[str]) -> None:
    ds, run = _run(tmp_path)
    out = tmp_path / "x.json"
    capsys.readouterr()
    assert main(["items", str(ds), str(run), "--json", str(out), other,
                 str(tmp_path / "." / "x.json")]) == 2
    captured = capsys.readouterr()
    assert f"--json and {other} both name" in captured.err
    assert "already exists" not in captured.err and captured.out == ""  # no work done
    assert not out.exists()
