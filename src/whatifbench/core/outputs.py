"""Every folder or file a command writes goes through here: checked, staged, published whole.

Three rules, one place:

* **Inputs are never touched.** An output must not equal, contain or lie inside any input (or
  the folder you are working in): ``check_output``.
* **``--overwrite`` only replaces what we wrote, of the same kind.** A folder is ours when it
  holds our marker file ``.whatifbench`` (written into every folder we publish), or, for
  folders written before markers existed, a ``card.json`` of ours (a dataset) or a
  ``results.json`` of ours (a run). Anything else is refused with the reason.
* **Outputs appear complete or not at all.** ``staged_dir`` builds the output in a hidden
  sibling folder ``.NAME.XXXX.partial`` and publishes it with one atomic rename that never
  replaces what another process published meanwhile (``core.rename``); ``--overwrite`` swaps
  the folders atomically. Partial folders whose writer died (``kill -9``) are removed on the
  next write to the same place: a live writer holds an ``flock`` on the partial folder's marker,
  which the kernel releases when the process ends, however it ends.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from whatifbench.core.fsutil import disk_full, ensure_dir, umask, write_bytes_atomic
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import special_kind
from whatifbench.core.rename import rename_exchange, rename_noreplace
from whatifbench.errors import WhatifError

MARKER = ".whatifbench"
"""Marker file of every folder we publish: ``{"written_by": "whatifbench", "kind": ...}``."""
KINDS = ("dataset", "run", "export", "analysis", "plots")
"""What a published folder holds (``--overwrite`` replaces a folder of the same kind only)."""
PARTIAL = ".partial"
MARKERLESS_STALE_SECONDS = 60.0
"""A partial folder without a marker (its writer died within microseconds of creating it, or an
older version wrote it) is stale once untouched this long."""

PathLike = str | os.PathLike[str]


def folder_kind(folder: Path) -> str | None:
    """The kind of output we wrote at ``folder`` (``None``: not a folder of ours)."""
    marker = _read_json(folder / MARKER)
    if isinstance(marker, dict) and marker.get("written_by") == "whatifbench":
        return str(marker.get("kind"))
    card = _read_json(folder / "card.json")
    if isinstance(card, dict) and "card_version" in card and "suite" in card:
        return "dataset"
    results = _read_json(folder / "results.json")
    if isinstance(results, dict) and isinstance(results.get("runs"), list):
        return "run"
    return None


def _read_json(path: Path) -> object:
    try:
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 1 << 24:
            return loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    return None


def _real(path: PathLike) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _inside(inner: Path, outer: Path) -> bool:
    return inner != outer and inner.is_relative_to(outer)


def check_output(out: PathLike, inputs: Iterable[PathLike] = (), overwrite: bool = False,
                 kind: str = "dataset", file: bool = False) -> Path:
    """Refuse an output that would touch an input or replace what is not ours; return its real
    absolute path. Nothing is created.

    ``out`` must not equal or contain an input or the working folder, nor lie inside an input
    folder. An existing non-empty folder (a file when ``file``) is replaced only with
    ``overwrite``, and a folder only when we wrote it as ``kind``.
    """
    real = check_inputs(out, inputs)
    shown = os.fspath(out)
    if file:
        _check_file(real, shown, overwrite)
    elif os.path.lexists(real):
        _check_folder(real, shown, overwrite, kind)
    _check_parent_writable(real, shown)
    return real


def _check_file(real: Path, shown: str, overwrite: bool) -> None:
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return  # a new file
    if stat.S_ISDIR(mode):
        raise WhatifError(f"{shown} is a folder; this output is a file: pass a file path.")
    if not stat.S_ISREG(mode):
        raise WhatifError(
            f"{shown} is {special_kind(mode)}, not a regular file: outputs are new or regular "
            "files and are never written over anything else, even with --overwrite; pass the "
            "path of a file.")
    if not overwrite:
        raise WhatifError(f"{shown} already exists; choose another name or pass --overwrite.")


def _check_folder(real: Path, shown: str, overwrite: bool, kind: str) -> None:
    if not real.is_dir():
        raise WhatifError(f"The output path {shown} exists and is not a folder; choose another "
                          "path.")
    if not any(real.iterdir()):
        return
    if not overwrite:
        raise WhatifError(f"The output folder {shown} already exists and is not empty; choose a "
                          "new folder or pass --overwrite to replace it.")
    found = folder_kind(real)
    if found is None:
        raise WhatifError(
            f"--overwrite will not replace {shown}: whatifbench did not write it (it has no "
            f"{MARKER} marker, card.json or results.json of ours), so it may hold files of "
            "yours. Choose a new folder, or move the folder away yourself.")
    if found != kind:
        raise WhatifError(
            f"--overwrite will not replace {shown}: it holds a {found} written by whatifbench, "
            f"and this command writes a {kind}. Choose another folder.")


def _check_parent_writable(real: Path, shown: str) -> None:
    """Fail before any work when nothing can be created where ``real`` goes."""
    ancestor = real.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise WhatifError(f"Cannot create the folder {real.parent}: {ancestor} is a file, not a "
                          "folder you can write to. Choose an output location you can write to.")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise WhatifError(f"Cannot write {shown}: {ancestor} is not a folder you can write to. "
                          "Choose an output location you can write to.")


def check_distinct(named: Iterable[tuple[str, PathLike]]) -> None:
    """Refuse two outputs of one command on one path (``named``: option and path), before any
    work: the second would replace the first."""
    seen: dict[Path, str] = {}
    for option, path in named:
        real = _real(path)
        if real in seen:
            raise WhatifError(f"{seen[real]} and {option} both name {os.fspath(path)}; the second "
                              "would replace the first. Give each output its own file.")
        seen[real] = option


def check_inputs(out: PathLike, inputs: Iterable[PathLike] = ()) -> Path:
    """Refuse an output that equals or contains an input or the working folder, or lies inside
    an input folder; return its real absolute path."""
    real = _real(out)
    shown = os.fspath(out)
    cwd = _real(os.getcwd())
    if real == cwd or _inside(cwd, real):
        raise WhatifError(
            f"The output {shown} is (or contains) the folder you are working in ({cwd}); "
            "writing there could replace your files. Name a new folder, e.g. --out runs/NAME.")
    for given in inputs:
        source = _real(given)
        if real == source or _inside(source, real):
            why = "is" if real == source else "contains"
            raise WhatifError(
                f"The output {shown} {why} the input {os.fspath(given)}; writing there would "
                "replace it. Choose an output outside every input.")
        if _inside(real, source) and source.is_dir():
            raise WhatifError(
                f"The output {shown} lies inside the input folder {os.fspath(given)}; outputs "
                "are never written into inputs. Choose an output outside every input.")
    return real


def marker_json(kind: str) -> str:
    """The marker file's text (fixed, so outputs stay byte-identical)."""
    if kind not in KINDS:
        raise ValueError(f"unknown output kind {kind!r}")
    return json.dumps({"written_by": "whatifbench", "kind": kind}) + "\n"


@contextlib.contextmanager
def staged_dir(out: PathLike, overwrite: bool = False, inputs: Iterable[PathLike] = (),
               kind: str = "dataset") -> Iterator[Path]:
    """Yield a staging folder that becomes ``out`` when the block succeeds (see the module).

    On any error the staging folder is removed and ``out`` is left as it was; a full disk
    becomes one ``WhatifError``.
    """
    target = check_output(out, inputs, overwrite, kind)
    ensure_dir(target.parent)
    remove_stale_partials(target)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=PARTIAL,
                                      dir=target.parent))
        os.chmod(stage, 0o777 & ~umask())  # mkdtemp makes 0700
    except OSError as exc:
        raise WhatifError(f"Cannot write into {target.parent}: {exc.strerror or exc}. Choose an "
                          "output location you can write to.") from None
    lock: IO[str] | None = None
    try:
        # Lock first, then give the file its name: a cleaner never sees an unlocked marker.
        lock = open(stage / ".lock", "w", encoding="utf-8")  # held to the end
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write(marker_json(kind))
        lock.flush()
        os.rename(stage / ".lock", stage / MARKER)
        yield stage
        _publish(stage, target, os.fspath(out), overwrite, kind)
    except BaseException as exc:
        shutil.rmtree(stage, ignore_errors=True)
        if isinstance(exc, OSError) and disk_full(exc):
            raise WhatifError(
                f"The disk holding {target.parent} is full ({exc.strerror}); nothing was "
                f"written to {out} and the partial output was removed. Free some space or "
                "choose an output on another disk.") from None
        raise
    finally:
        if lock is not None:
            lock.close()


def _publish(stage: Path, target: Path, shown: str, overwrite: bool, kind: str) -> None:
    """Rename ``stage`` to ``target`` in one step; never replace what another writer made."""
    if target.is_dir() and not target.is_symlink():
        with contextlib.suppress(OSError):
            target.rmdir()  # an empty folder (ours to fill); fails when not empty
    if os.path.lexists(target):
        if overwrite and target.is_dir() and folder_kind(target) == kind:
            if not rename_exchange(stage, target):
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=PARTIAL,
                                            dir=target.parent))
                os.replace(target, old / "old")
                os.replace(stage, target)
                stage = old
            shutil.rmtree(stage, ignore_errors=True)  # now holds the replaced output
            return
        raise _appeared(shown)
    try:
        rename_noreplace(stage, target)
    except FileExistsError:
        raise _appeared(shown) from None


def _appeared(shown: str) -> WhatifError:
    return WhatifError(
        f"{shown} was written by another process while this one was working; nothing was "
        "replaced and this output was discarded. Run again with another output name (answers "
        "already computed are kept in the run store).")


def remove_stale_partials(target: Path) -> list[Path]:
    """Remove ``.NAME.*.partial`` siblings of ``target`` whose writer process is gone."""
    removed = []
    for entry in target.parent.glob(f".{target.name}.*{PARTIAL}"):
        with contextlib.suppress(OSError):  # e.g. removed meanwhile by another cleaner
            if entry.is_dir() and not entry.is_symlink() and _stale(entry):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed


def _stale(partial: Path) -> bool:
    """True when no live process holds the partial folder's marker lock."""
    try:
        fd = os.open(partial / MARKER, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return time.time() - partial.stat().st_mtime > MARKERLESS_STALE_SECONDS
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True  # the writer is gone; nobody locks this folder again
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        raise
    finally:
        os.close(fd)


def write_output_file(out: PathLike, data: bytes, overwrite: bool = False,
                      inputs: Iterable[PathLike] = ()) -> Path:
    """Write a single-file output: checked like a folder, written through a temporary file,
    published with ``rename_noreplace`` (or replaced with ``overwrite``)."""
    target = check_output(out, inputs, overwrite, file=True)
    try:
        write_bytes_atomic(target, data, replace=overwrite)
    except FileExistsError:
        raise _appeared(os.fspath(out)) from None
    return target
