"""Reading users' files: regular files only, bounded by their size.

A FIFO given as an image or a bank would make a reader wait for a writer forever, and a
character device (``/dev/zero``, or a node a tar unpacked as root created) never ends: every
file whatifbench reads from a user (datasets' files, images, banks, sheets, run folders) is
opened without blocking and checked on the open descriptor, then read no further than the size
it had when opened.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from whatifbench.errors import WhatifError


class NotRegularFile(OSError, WhatifError):
    """A path we were to read is a FIFO, a device node, a socket or a folder: never opened for
    reading (a FIFO would wait for a writer forever, ``/dev/zero`` never ends). An ``OSError``,
    so readers that say "cannot be read (...)" say it with ``strerror``, and a ``WhatifError``
    (a full sentence) where nothing catches it."""

    def __init__(self, path: str | os.PathLike[str], what: str) -> None:
        super().__init__(f"{os.fspath(path)} is {what}, not a regular file; whatifbench reads "
                         "regular files only. Put the file itself there.")
        self.strerror = f"it is {what}, not a regular file"
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return str(self.args[0])


def special_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    return ("a folder" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a FIFO (named pipe)"
            if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file for reading in binary, a regular file only: opened without blocking (a FIFO
    with no writer does not wait), then checked on the open descriptor (no race with a swap); a
    folder raises ``IsADirectoryError`` as ``open`` does, anything else ``NotRegularFile``.
    Read it bounded by ``os.fstat(...).st_size``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:  # a socket cannot be opened at all (ENXIO): say what it is
        try:
            mode = os.stat(path).st_mode
        except OSError:
            raise exc from None
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            raise
        raise NotRegularFile(path, special_kind(mode)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):  # as open() says it
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, special_kind(mode))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def regular_file(path: str) -> str:
    """``path`` when it is a regular file (links followed), for files another library reads
    (Parquet); ``NotRegularFile`` for a FIFO, a device or a socket (they would block or never
    end there)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, special_kind(mode))
    return path


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """A regular file's bytes (``open_regular``), at most as many as it had when opened."""
    with open_regular(path) as handle:
        return handle.read(os.fstat(handle.fileno()).st_size)


def read_text(path: str | os.PathLike[str], encoding: str = "utf-8") -> str:
    """``read_bytes`` decoded (``UnicodeDecodeError`` as ``Path.read_text`` raises it)."""
    return read_bytes(path).decode(encoding)
