"""Atomic renames that never clobber: "rename only if the target does not exist" and "swap".

Why ``renameat2`` (and not an exclusive-create lock file): the question "does the target exist?"
and the rename must be one step, or two writers that both saw no target both succeed and the
later silently replaces the earlier. Linux answers both in the kernel: ``renameat2`` with
``RENAME_NOREPLACE`` fails with ``EEXIST`` when the target exists, and ``RENAME_EXCHANGE`` swaps
two folders atomically (an ``--overwrite`` that never leaves a moment with no output at all). A
lock file would need every writer, including older versions and other tools, to honour it, and
a writer killed with ``kill -9`` would leave the lock behind. ``renameat2`` needs nothing left
on disk.

Where the call is missing (not Linux, or a file system that rejects the flags, e.g. some network
file systems) we fall back to steps with the same guarantee for our use: a folder is renamed
with ``rename(2)``, which POSIX makes fail on a non-empty target (our staged folders are never
empty: they hold the marker file), and a file is published with ``link(2)``, which fails when
the target exists.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

AT_FDCWD = -100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276, "riscv64": 276, "ppc64le": 357, "s390x": 347}
"""``renameat2`` syscall numbers, used when the C library lacks the wrapper (glibc < 2.28)."""
_UNSUPPORTED = (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP)


@functools.cache
def _renameat2() -> Callable[[bytes, bytes, int], int] | None:
    """A callable ``(src, dst, flags) -> 0 | -1`` (errno set), or ``None`` off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    wrapper = getattr(libc, "renameat2", None)
    if wrapper is not None:
        wrapper.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                            ctypes.c_uint]
        wrapper.restype = ctypes.c_int
        return lambda src, dst, flags: int(wrapper(AT_FDCWD, src, AT_FDCWD, dst, flags))
    number = _SYS_RENAMEAT2.get(os.uname().machine)
    if number is None:
        return None
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    return lambda src, dst, flags: int(syscall(
        ctypes.c_long(number), ctypes.c_int(AT_FDCWD), ctypes.c_char_p(src),
        ctypes.c_int(AT_FDCWD), ctypes.c_char_p(dst), ctypes.c_uint(flags)))


def _call(src: Path, dst: Path, flags: int) -> bool:
    """Try ``renameat2``; ``True`` when done, ``False`` when unsupported; raise ``OSError``."""
    fn = _renameat2()
    if fn is None:
        return False
    if fn(os.fsencode(src), os.fsencode(dst), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(dst))


def rename_noreplace(src: str | Path, dst: str | Path) -> None:
    """Rename ``src`` to ``dst`` in one step that fails with ``FileExistsError`` when ``dst``
    exists (a file, or a folder: empty or not). ``src`` and ``dst`` share a file system."""
    src, dst = Path(src), Path(dst)
    if _call(src, dst, RENAME_NOREPLACE):
        return
    if src.is_dir() and not src.is_symlink():
        if os.path.lexists(dst) and not dst.is_dir():
            raise FileExistsError(errno.EEXIST, "File exists", str(dst))
        try:
            os.rename(src, dst)  # fails on a non-empty folder; staged folders are never empty
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise FileExistsError(errno.EEXIST, "File exists", str(dst)) from None
            raise
        return
    os.link(src, dst)  # FileExistsError when dst exists
    os.unlink(src)


def rename_exchange(a: str | Path, b: str | Path) -> bool:
    """Swap two existing paths atomically; ``False`` when the system cannot (then the caller
    replaces in two renames)."""
    return _call(Path(a), Path(b), RENAME_EXCHANGE)
