"""The sandbox worker: runs untrusted generated programs in its own limited process.

Started by ``sandbox.Sandbox`` as ``python -I worker.py RUNTIME.py``; it imports nothing from
whatifbench (only the standard library and RestrictedPython), so it starts fast and shares no
state with the parent. Messages are JSON objects framed by a 4-byte big-endian length, on
stdin (from the parent) and stdout (to the parent).

Protection, in layers:

- **Before running**: the program is compiled with RestrictedPython (no names or attributes
  starting with ``_``, no frame/code introspection attributes, ``print`` collected) and its
  imports are checked against the allow-list; a program that fails either is never run.
- **While running**: builtins are a small safe set (no ``open``, ``exec``, ``eval``,
  ``compile``, ``getattr``, ``globals``, ``type`` ...), ``__import__`` only serves the
  allow-list, attribute reads go through ``safer_getattr`` (no ``str.format``), writes through
  RestrictedPython's write guard.
- **Process limits** (``resource``): address space, CPU seconds per program (the soft limit is
  moved before each program; exceeding it ends the worker with ``EXIT_CPU``), no file writes
  (file size 0), no new processes, few file descriptors, no core dumps, a recursion limit; the
  working folder is an empty folder the parent made. The parent adds the wall-clock timeout and
  kills the worker when it passes.
- **After running**: whatever the program left behind (a suspended generator whose
  ``finally:`` still has work) is finalized before the program's ``done``, under its limits,
  so a reused worker starts each program clean.

Tool calls are proxied: the runtime module's objects send ``{"op": "call"}`` and block until the
parent answers with ``result`` or ``error``.
"""

from __future__ import annotations

import ast
import builtins
import ctypes
import gc
import hashlib
import importlib.util
import inspect
import json
import math
import operator
import os
import resource
import signal
import struct
import sys
from collections.abc import Callable
from typing import Any

EXIT_CPU = 86
"""Exit status of a worker whose program used up its CPU seconds."""
HEADER = struct.Struct(">I")
PROGRAM = "<program>"
ALLOWED_IMPORTS = {"math": math}
"""Modules a program may import (pre-imported before the limits apply)."""

SAFE_BUILTIN_NAMES = (
    "None", "False", "True", "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod",
    "enumerate", "filter", "float", "frozenset", "hash", "int", "isinstance", "len", "list",
    "map", "max", "min", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "str", "sum", "tuple", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError",
    "KeyError", "LookupError", "NameError", "NotImplementedError", "OverflowError",
    "RuntimeError", "StopIteration", "TypeError", "ValueError", "ZeroDivisionError",
)
"""Builtins a program can use; ``open``, ``exec``, ``eval``, ``compile``, ``getattr``,
``setattr``, ``vars``, ``globals``, ``locals``, ``dir``, ``type``, ``input`` are absent."""

INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
           "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
           "**=": operator.ipow, "<<=": operator.ilshift, ">>=": operator.irshift,
           "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor}


class ProgramError(Exception):
    """The program cannot run (compile-time policy) or failed at run time."""

    def __init__(self, status: str, reason: str, limit: str | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.limit = limit


# -- framing -----------------------------------------------------------------------------------
def _read_exact(n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(0, n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive() -> dict[str, Any]:
    """The next message from the parent."""
    (size,) = HEADER.unpack(_read_exact(HEADER.size))
    message: dict[str, Any] = json.loads(_read_exact(size))
    return message


def send_bytes(body: bytes) -> None:
    """Send one framed message."""
    data = HEADER.pack(len(body)) + body
    while data:
        written = os.write(1, data)
        data = data[written:]


class Channel:
    """The worker's side of the pipe, with the output cap of the current program."""

    def __init__(self) -> None:
        self.cap = 1 << 20
        self.calls = 0
        self.max_calls = 200

    def send(self, message: dict[str, Any]) -> None:
        """Send a message; a program message larger than the cap becomes an error."""
        body = json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
        if len(body) > self.cap + 4096:
            raise ProgramError("raise", f"the program produced more than {self.cap} bytes of "
                               "output", "output")
        send_bytes(body)

    def call(self, name: str, *args: Any) -> Any:
        """Ask the parent to run a tool; its error becomes a ``ToolError`` in the program."""
        self.calls += 1
        if self.calls > self.max_calls:
            raise ProgramError("raise", f"the program made more than {self.max_calls} tool "
                               "calls", "tool-calls")
        self.send({"op": "call", "name": name, "args": list(args)})
        reply = receive()
        if reply.get("op") == "result":
            return reply.get("value")
        raise ToolError(str(reply.get("message", "the tool failed")))


class ToolError(Exception):
    """A tool refused a call (unknown object, missing model, bad argument)."""


class Printed:
    """Collects what a program prints (every function of it), up to the output cap; stands in
    for RestrictedPython's per-function ``PrintCollector`` (``_print_``)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0

    def __call__(self, _getattr: Any = None) -> Printed:
        return self

    def _call_print(self, *objects: Any, **kwargs: Any) -> None:
        sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
        text = str(sep if sep is not None else " ").join(str(o) for o in objects) + \
            str(end if end is not None else "\n")
        if self.size < self.cap:
            self.parts.append(text)
            self.size += len(text)

    def text(self) -> str:
        """Everything printed (cut at the cap)."""
        return "".join(self.parts)[:self.cap]


CHANNEL = Channel()


# -- the restricted environment -----------------------------------------------------------------
def _guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                    level: int = 0) -> Any:
    module = ALLOWED_IMPORTS.get(name)
    if module is None or level:
        raise ImportError(f"import of {name!r} is not allowed (allowed: "
                          f"{', '.join(sorted(ALLOWED_IMPORTS))})")
    return module


def _inplacevar(op: str, x: Any, y: Any) -> Any:
    fn = INPLACE.get(op)
    if fn is None:
        raise SyntaxError(f"the operator {op} is not supported")
    return fn(x, y)


def _apply(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """RestrictedPython's hook for calls with ``*args`` or ``**kwargs``: a plain call (the
    callee is already reachable only through the guards)."""
    return func(*args, **kwargs)


def restricted_globals(extra: dict[str, Any], printed: Printed) -> dict[str, Any]:
    """Fresh globals for one program: safe builtins, RestrictedPython's guards, runtime names."""
    from RestrictedPython.Guards import (
        full_write_guard,
        guarded_iter_unpack_sequence,
        guarded_unpack_sequence,
        safer_getattr_raise,
    )

    safe = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
    safe["__import__"] = _guarded_import
    safe["__build_class__"] = builtins.__build_class__
    safe["ToolError"] = ToolError
    return {
        "__builtins__": safe, "__name__": "program", "__metaclass__": type,
        "_getattr_": safer_getattr_raise, "_getitem_": operator.getitem, "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence, "_write_": full_write_guard,
        "_inplacevar_": _inplacevar, "_print_": printed, "_apply_": _apply, **extra,
    }


def check_imports(tree: ast.AST) -> None:
    """Refuse imports outside the allow-list before anything runs."""
    for node in ast.walk(tree):
        names: list[str] = []
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [("." * node.level) + (node.module or "")]
        for name in names:
            if name.split(".")[0] not in ALLOWED_IMPORTS or name.startswith("."):
                raise ProgramError("compile", f"line {line}: import of {name!r} is not "
                                   f"allowed (allowed: {', '.join(sorted(ALLOWED_IMPORTS))})")


_COMPILED: dict[str, Any] = {}


def compile_program(source: str) -> Any:
    """RestrictedPython byte code of ``source`` (remembered by content)."""
    from RestrictedPython import compile_restricted_exec

    key = hashlib.sha256(source.encode("utf-8")).hexdigest()
    code = _COMPILED.get(key)
    if code is not None:
        return code
    try:
        tree = ast.parse(source, PROGRAM)
    except SyntaxError as exc:
        raise ProgramError("compile", f"line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ProgramError("compile", f"the program cannot be parsed ({type(exc).__name__})") \
            from None
    check_imports(tree)
    result = compile_restricted_exec(source, PROGRAM)
    if result.errors:
        raise ProgramError("compile", "; ".join(result.errors))
    if len(_COMPILED) > 256:
        _COMPILED.clear()
    _COMPILED[key] = result.code
    return result.code


def bind(func: Callable[..., Any], available: dict[str, Any],
         aliases: dict[str, str]) -> dict[str, Any]:
    """Keyword arguments for ``func``: each parameter gets the value of its name (or alias);
    parameters we cannot fill keep their default, or get ``None``."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return {}
    kwargs: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        key = aliases.get(p.name, p.name)
        if key in available:
            kwargs[p.name] = available[key]
        elif p.default is p.empty:
            kwargs[p.name] = None
    return kwargs


def error_line(exc: BaseException) -> int | None:
    """The program line where ``exc`` was raised (innermost program frame)."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# -- limits --------------------------------------------------------------------------------------
def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _set_cpu(seconds: float | None) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if seconds is None:
        soft = hard
    else:
        soft = math.ceil(_cpu_used() + seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _on_cpu_limit(signum: int, frame: Any) -> None:
    os._exit(EXIT_CPU)


def apply_limits(memory_mb: int) -> None:
    """Process-wide limits, set once after start-up."""
    signal.signal(signal.SIGXCPU, _on_cpu_limit)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the size limit fails instead
    try:  # die with the parent (Linux)
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    memory = memory_mb << 20
    for name, value in (("RLIMIT_AS", memory), ("RLIMIT_FSIZE", 0), ("RLIMIT_CORE", 0),
                        ("RLIMIT_NPROC", 0), ("RLIMIT_NOFILE", 16)):
        limit = getattr(resource, name, None)
        if limit is None:
            continue
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            soft, hard = resource.getrlimit(limit)
            if hard == resource.RLIM_INFINITY or value <= hard:
                resource.setrlimit(limit, (value, hard))


# -- running ------------------------------------------------------------------------------------
def run(message: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Compile and run one program; the ``done`` message."""
    limits = message.get("limits", {})
    CHANNEL.cap = int(limits.get("output_bytes", 1 << 20))
    CHANNEL.calls = 0
    CHANNEL.max_calls = int(limits.get("tool_calls", 200))
    code = compile_program(str(message["code"]))
    depth = 0
    frame: Any = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 40 + int(limits.get("recursion", 200)))
    _set_cpu(float(limits.get("cpu_seconds", 5)))
    try:
        reply = _execute(code, message, runtime)
        # What the program left behind (a generator's ``finally:`` runs when it goes) ends
        # now, under this program's limits and clock, so the reused worker starts the next
        # program clean: its objects all died with ``_execute`` but for cycles (its
        # functions and their globals), which the collector finalizes, globals intact.
        gc.collect()
    finally:
        _set_cpu(None)
        sys.setrecursionlimit(old_limit)
    return reply


def _execute(code: Any, message: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Run the program's entry function; the ``done`` message (a failure's too). Everything
    the program can reach is made here, so it is gone (or garbage) when this returns."""
    printed = Printed(CHANNEL.cap)
    glb = restricted_globals(runtime.names(CHANNEL.call), printed)
    available = runtime.arguments(message.get("args", {}), CHANNEL.call)
    name = str(message.get("entry", "execute_command"))
    try:
        exec(code, glb)
        entry = glb.get(name)
        if not callable(entry):
            raise ProgramError("compile", f"the program defines no function {name}()")
        value = entry(**bind(entry, available, getattr(runtime, "ALIASES", {})))
        return {"op": "done", "status": "ok", "value": runtime.to_json(value),
                "printed": printed.text()}
    except EOFError:
        raise
    except BaseException as exc:  # noqa: BLE001  (every program failure is reported)
        return failure(exc)


def failure(exc: BaseException) -> dict[str, Any]:
    """The ``done`` message of a program that raised."""
    if isinstance(exc, ProgramError):
        return {"op": "done", "status": exc.status, "reason": exc.reason, "limit": exc.limit}
    line = error_line(exc)
    where = f" (line {line})" if line else ""
    limit = "memory" if isinstance(exc, MemoryError) else \
        "recursion" if isinstance(exc, RecursionError) else None
    try:
        text = str(exc)[:500]
    except Exception as inner:  # noqa: BLE001  (e.g. ValueError(10**5000): no text)
        text = f"(its message cannot be shown: {type(inner).__name__})"
    if isinstance(exc, MemoryError):
        text = "the program ran out of its memory limit"
    elif isinstance(exc, RecursionError):
        text = "the program exceeded the recursion limit"
    return {"op": "done", "status": "raise", "reason": f"{type(exc).__name__}: {text}{where}",
            "limit": limit, "line": line}


def load_runtime(path: str) -> Any:
    """The runtime module (the API objects programs see), loaded from its file."""
    spec = importlib.util.spec_from_file_location("program_runtime", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the runtime {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Set up, report ready, then serve ``run`` messages until the pipe closes."""
    runtime_path, memory_mb = sys.argv[1], int(sys.argv[2])
    try:
        import RestrictedPython  # noqa: F401  (import before the limits apply)

        runtime = load_runtime(runtime_path)
        compile_program("def _warm():\n    return 1\n".replace("_warm", "warm"))
        devnull = open(os.devnull, "w")
        sys.stdout = sys.stderr = devnull
        apply_limits(memory_mb)
        gc.collect()
        gc.freeze()  # the collection after each program then looks at that program's objects
    except BaseException as exc:  # noqa: BLE001  (reported to the parent)
        send_bytes(json.dumps({"op": "failed", "reason": f"{type(exc).__name__}: {exc}"})
                   .encode())
        return
    send_bytes(json.dumps({"op": "ready", "pid": os.getpid()}).encode())
    while True:
        try:
            message = receive()
        except EOFError:
            return
        try:
            reply = run(message, runtime)
        except BaseException as exc:  # noqa: BLE001  (every program failure is reported)
            if isinstance(exc, EOFError):
                return
            reply = failure(exc)
        try:
            CHANNEL.send(reply)
        except ProgramError as exc:
            CHANNEL.send(failure(exc))
        except (TypeError, ValueError) as exc:
            CHANNEL.send({"op": "done", "status": "raise",
                          "reason": f"the program's value cannot be sent back ({exc})"})


if __name__ == "__main__":
    main()
