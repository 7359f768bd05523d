"""Run untrusted generated Python in a separate, limited worker process (reused across programs).

The sandbox knows nothing of suites, items or models: it runs a program's ``entry`` function
with JSON arguments, forwards the program's tool calls to a callback, and returns an
``Outcome``. The worker (``worker.py``) compiles with RestrictedPython and applies the process
limits; this side enforces the wall-clock timeout (program time only: the clock stops while a
tool call is served here), kills and respawns a worker that overran or broke a limit, and never
blocks without a deadline.

A program's own failures (compile, raise, timeout) are outcomes; only a worker that cannot
start or dies for another reason raises ``SandboxCrashed`` (an infrastructure failure).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whatifbench.errors import WhatifError

HEADER = struct.Struct(">I")
EXIT_CPU = 86
"""The worker's exit status when its program used up the CPU seconds (``worker.EXIT_CPU``)."""
WORKER = Path(__file__).with_name("worker.py")
STARTUP_SECONDS = 30.0
"""Longest wait for a new worker to report ready."""
MAX_SOURCE = 100_000
"""Longest program accepted (characters)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of each program."""

    timeout: float = 10.0
    """Wall-clock seconds a program may run (time spent serving its tool calls not counted)."""
    cpu_seconds: float = 5.0
    """CPU seconds a program may use."""
    memory_mb: int = 512
    """Address space of the worker process, in MiB."""
    output_bytes: int = 65_536
    """Largest result, printed text or tool-call message, in bytes."""
    recursion: int = 200
    """Deepest call nesting."""
    tool_calls: int = 200
    """Most tool calls per program."""

    def to_json(self) -> dict[str, Any]:
        """For run specs and cache keys."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Outcome:
    """What running one program gave."""

    status: str
    """``ok``, or the failure: ``compile`` (refused or not valid Python), ``raise`` (an
    exception, a memory, recursion, output or tool-call limit), ``timeout`` (wall clock or CPU
    seconds)."""
    value: Any = None
    """The returned value in JSON form (``ok`` only)."""
    reason: str | None = None
    """Why it failed, one sentence."""
    limit: str | None = None
    """The limit that stopped it: ``wall``, ``cpu``, ``memory``, ``recursion``, ``output``,
    ``tool-calls``, or ``None``."""
    printed: str = ""
    """What the program printed."""
    seconds: float = 0.0
    """Wall-clock time of the program (tool calls excluded)."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Every tool call: ``{"tool", "args", "result"}`` or ``{"tool", "args", "error"}``."""

    @property
    def ok(self) -> bool:
        """True when the program returned a value."""
        return self.status == "ok"


class ToolFailure(Exception):
    """Raised by a tool callback: the program sees a ``ToolError`` with this message."""


class ToolAbort(Exception):
    """Raised by a tool callback on an infrastructure failure (a model unreachable): the
    program is stopped and ``run`` raises ``SandboxCrashed`` with this message."""


class SandboxCrashed(Exception):
    """The worker could not start or died for a reason other than the program's limits."""


class _Deadline(Exception):
    pass


class _Closed(Exception):
    pass


ToolHandler = Callable[[str, list[Any]], Any]
"""``(tool name, JSON arguments) → JSON result``; raises ``ToolFailure`` or ``ToolAbort``."""


def require_restricted_python() -> None:
    """Fail with the install line when RestrictedPython is missing."""
    import importlib.util

    if importlib.util.find_spec("RestrictedPython") is None:
        raise WhatifError('The program backends need RestrictedPython, which is not installed. '
                          'Install with: pip install "whatifbench[program]"')


class Sandbox:
    """One worker process running programs against one runtime module (the API they see)."""

    def __init__(self, runtime: Path, limits: Limits | None = None) -> None:
        require_restricted_python()
        self.runtime = Path(runtime).resolve()
        self.limits = limits or Limits()
        self._proc: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None
        self._buffer = b""
        self.spawned = 0
        """Workers started so far (1 + respawns after kills)."""

    # -- lifecycle ---------------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[bytes]:
        self._folder = tempfile.mkdtemp(prefix="whatif-sandbox-")
        os.chmod(self._folder, 0o500)
        env = {"PATH": os.defpath, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONHASHSEED": "0"}
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(WORKER), str(self.runtime),
                 str(self.limits.memory_mb)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                cwd=self._folder, env=env, close_fds=True, start_new_session=True)
        except OSError as exc:
            self._remove_folder()
            raise SandboxCrashed(f"the sandbox worker cannot start ({exc})") from None
        assert proc.stdin is not None and proc.stdout is not None
        for stream in (proc.stdin, proc.stdout):
            fd = stream.fileno()
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._proc = proc
        self._buffer = b""
        self.spawned += 1
        try:
            message = self._receive(time.monotonic() + STARTUP_SECONDS)
        except (_Deadline, _Closed):
            self._kill()
            raise SandboxCrashed("the sandbox worker did not start") from None
        if message.get("op") != "ready":
            self._kill()
            raise SandboxCrashed(f"the sandbox worker failed to start: {message.get('reason')}")
        return proc

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._kill()
            return self._spawn()
        return self._proc

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._remove_folder()

    def _remove_folder(self) -> None:
        folder, self._folder = self._folder, None
        if folder is not None:
            with contextlib.suppress(OSError):
                os.chmod(folder, 0o700)
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Stop the worker."""
        self._kill()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """Process id of the current worker (``None`` before the first program)."""
        return self._proc.pid if self._proc is not None else None

    # -- framing -----------------------------------------------------------------------------
    def _send(self, message: dict[str, Any], deadline: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        body = json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
        data = HEADER.pack(len(body)) + body
        fd = self._proc.stdin.fileno()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Deadline
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                continue
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise _Closed from None

    def _read(self, n: int, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while len(self._buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Deadline
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, max(65536, n - len(self._buffer)))
            except BlockingIOError:
                continue
            except OSError:
                raise _Closed from None
            if not chunk:
                raise _Closed
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _receive(self, deadline: float) -> dict[str, Any]:
        (size,) = HEADER.unpack(self._read(HEADER.size, deadline))
        if size > self.limits.output_bytes + 65_536:
            raise _TooLarge(size)
        try:
            message = json.loads(self._read(size, deadline))
        except ValueError:
            raise _Closed from None
        if not isinstance(message, dict):
            raise _Closed
        return message

    # -- running -----------------------------------------------------------------------------
    def run(self, code: str, args: dict[str, Any], on_call: ToolHandler,
            entry: str = "execute_command") -> Outcome:
        """Run ``entry`` of ``code`` with ``args``; tool calls go to ``on_call``."""
        if len(code) > MAX_SOURCE:
            return Outcome("compile", reason=f"the program is longer than {MAX_SOURCE} "
                           "characters")
        limits = self.limits
        calls: list[dict[str, Any]] = []
        used = 0.0
        self._worker()
        started = time.monotonic()
        deadline = started + limits.timeout
        restart = True  # unless the worker finishes the program in a clean state
        try:
            self._send({"op": "run", "code": code, "entry": entry, "args": args,
                        "limits": limits.to_json()}, deadline)
            while True:
                message = self._receive(deadline)
                if message.get("op") == "call":
                    paused = time.monotonic()
                    used += paused - started
                    reply = self._serve(message, on_call, calls)
                    started = time.monotonic()
                    deadline = started + max(0.0, limits.timeout - used)
                    self._send(reply, deadline)
                    continue
                if message.get("op") != "done":
                    raise _Closed
                status = str(message.get("status"))
                if status not in ("ok", "compile", "raise", "timeout"):
                    raise _Closed
                limit = message.get("limit")
                restart = limit in ("memory", "recursion")
                return Outcome(status, message.get("value"), message.get("reason"), limit,
                               str(message.get("printed") or ""),
                               round(used + time.monotonic() - started, 6), calls)
        except _Deadline:
            restart = True
            return Outcome("timeout", reason=f"the program ran longer than {limits.timeout:g} s "
                           "(wall clock) and was stopped", limit="wall",
                           seconds=round(used + time.monotonic() - started, 6), calls=calls)
        except _TooLarge as exc:
            restart = True
            return Outcome("raise", reason=f"the program produced more than "
                           f"{limits.output_bytes} bytes of output ({exc.size} bytes)",
                           limit="output", calls=calls)
        except _Closed:
            restart = True
            exit_code = self._exit_status()
            if exit_code == EXIT_CPU:
                return Outcome("timeout", reason=f"the program used more than "
                               f"{limits.cpu_seconds:g} CPU seconds and was stopped",
                               limit="cpu", seconds=round(used + time.monotonic() - started, 6),
                               calls=calls)
            raise SandboxCrashed(f"the sandbox worker died while running a program "
                                 f"({_describe(exit_code)})") from None
        except ToolAbort as exc:
            restart = True
            raise SandboxCrashed(str(exc)) from None
        finally:
            if restart:
                self._kill()

    def _serve(self, message: dict[str, Any], on_call: ToolHandler,
               calls: list[dict[str, Any]]) -> dict[str, Any]:
        name = str(message.get("name"))
        args = message.get("args")
        args = args if isinstance(args, list) else []
        try:
            value = on_call(name, args)
        except ToolFailure as exc:
            calls.append({"tool": name, "args": args, "error": str(exc)})
            return {"op": "error", "message": str(exc)}
        calls.append({"tool": name, "args": args, "result": value})
        return {"op": "result", "value": value}

    def _exit_status(self) -> int | None:
        proc = self._proc
        if proc is None:
            return None
        try:
            return proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None


class _TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _describe(status: int | None) -> str:
    if status is None:
        return "no exit status"
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"
