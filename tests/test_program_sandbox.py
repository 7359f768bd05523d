"""The sandbox for generated Python: each hostile program is contained, recorded with a clear
reason, leaves nothing on disk, and the next program still runs; the parent never hangs."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from whatifbench.models.program.sandbox import (
    Limits,
    Outcome,
    Sandbox,
    SandboxCrashed,
    ToolAbort,
    ToolFailure,
)
from whatifbench.models.program.viper import RUNTIME

pytestmark = pytest.mark.timeout(120)

IMAGE = {"ref": 0, "left": 0, "lower": 0, "right": 64, "upper": 48}
LIMITS = Limits(timeout=5.0, cpu_seconds=1.0, memory_mb=256, output_bytes=16_384,
                recursion=100, tool_calls=20)


def no_tools(name: str, args: list[Any]) -> Any:
    raise ToolFailure(f"no tool {name}")


def snapshot(*folders: Path) -> dict[str, tuple[int, float]]:
    """Every file under the folders with its size and modification time."""
    found = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                stat = path.stat()
                found[str(path)] = (stat.st_size, stat.st_mtime)
    return found


@pytest.fixture()
def box(tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox(RUNTIME, LIMITS)
    yield sandbox
    sandbox.close()


def run(box: Sandbox, body: str, on_call: Any = no_tools) -> Outcome:
    code = "def execute_command(image):\n" + "\n".join(
        "    " + line for line in body.strip("\n").splitlines()) + "\n"
    return box.run(code, {"image": IMAGE}, on_call)


def contained(box: Sandbox, watched: Path, before: dict[str, tuple[int, float]]) -> None:
    """Nothing changed on disk, and the sandbox still runs the next program."""
    assert snapshot(watched) == before
    after = run(box, "return 6 * 7")
    assert after.ok and after.value == 42


# -- each hostile program of the issue, one test each --------------------------------------------
def test_import_os_system_is_refused_before_running(box: Sandbox, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    before = snapshot(tmp_path)
    code = (f"import os\ndef execute_command(image):\n    os.system('touch {marker}')\n"
            "    return 1\n")
    outcome = box.run(code, {"image": IMAGE}, no_tools)
    assert outcome.status == "compile"
    assert "import of 'os' is not allowed (allowed: math)" in (outcome.reason or "")
    assert not marker.exists()
    contained(box, tmp_path, before)


def test_open_etc_passwd_has_no_open(box: Sandbox, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    outcome = run(box, "return open('/etc/passwd').read()")
    assert outcome.status == "raise"
    assert outcome.reason == "NameError: name 'open' is not defined (line 2)"
    contained(box, tmp_path, before)


def test_subclasses_walk_is_refused_at_compile_time(box: Sandbox, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    outcome = run(box, "return ().__class__.__bases__[0].__subclasses__()")
    assert outcome.status == "compile"
    assert '"__class__" is an invalid attribute name because it starts with "_"' in \
        (outcome.reason or "")
    contained(box, tmp_path, before)


def test_infinite_loop_stops_at_the_cpu_limit(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    # A wall clock far away: on a busy machine CPU seconds pass much slower than real ones.
    with Sandbox(RUNTIME, Limits(timeout=300, cpu_seconds=1)) as box:
        assert run(box, "return 0").ok
        first = box.pid
        outcome = run(box, "while True:\n    pass")
        assert outcome.status == "timeout" and outcome.limit == "cpu"
        assert outcome.reason == "the program used more than 1 CPU seconds and was stopped"
        contained(box, tmp_path, before)
        assert box.pid != first  # a fresh worker took over


def test_infinite_loop_stops_at_the_wall_clock(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    with Sandbox(RUNTIME, Limits(timeout=0.5, cpu_seconds=60)) as box:
        outcome = run(box, "n = 0\nwhile True:\n    n += 1")
        assert outcome.status == "timeout" and outcome.limit == "wall"
        assert outcome.reason == "the program ran longer than 0.5 s (wall clock) and was stopped"
        assert 0.5 <= outcome.seconds < 5
        contained(box, tmp_path, before)


def test_busy_loop_inside_c_code_stops_at_the_wall_clock(tmp_path: Path) -> None:
    # No Python bytecode runs while sum() iterates, so only the parent's kill can stop it.
    with Sandbox(RUNTIME, Limits(timeout=0.5, cpu_seconds=60)) as box:
        outcome = run(box, "return sum(range(10 ** 15))")
        assert outcome.status == "timeout" and outcome.limit == "wall"
        assert run(box, "return 5").value == 5


def test_memory_bomb_hits_the_memory_limit(box: Sandbox, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    outcome = run(box, "x = [0] * (10 ** 9)\nreturn len(x)")
    assert outcome.status == "raise" and outcome.limit == "memory"
    assert outcome.reason == "MemoryError: the program ran out of its memory limit (line 2)"
    contained(box, tmp_path, before)


def test_deep_recursion_hits_the_recursion_limit(box: Sandbox, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    outcome = run(box, "def down(n):\n    return down(n + 1)\nreturn down(0)")
    assert outcome.status == "raise" and outcome.limit == "recursion"
    assert outcome.reason == ("RecursionError: the program exceeded the recursion limit "
                              "(line 3)")
    contained(box, tmp_path, before)


def test_one_gigabyte_string_is_stopped(box: Sandbox, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    outcome = run(box, "return 'a' * (1 << 30)")
    assert outcome.status == "raise" and outcome.limit == "memory"
    contained(box, tmp_path, before)


def test_writing_files_is_impossible(box: Sandbox, tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    before = snapshot(tmp_path)
    outcome = run(box, f"f = open({str(target)!r}, 'w')\nf.write('x')\nreturn 1")
    assert outcome.status == "raise"
    assert outcome.reason == "NameError: name 'open' is not defined (line 2)"
    assert not target.exists()
    contained(box, tmp_path, before)


# -- more escape attempts and limits -------------------------------------------------------------
@pytest.mark.parametrize(("body", "status", "reason"), [
    ("return getattr(image, 'find')", "raise", "NameError: name 'getattr' is not defined"),
    ("return eval('1 + 1')", "compile", "Line 2: Eval calls are not allowed."),
    ("exec('x = 1')\nreturn 1", "compile", "Line 2: Exec calls are not allowed."),
    ("return compile('1', 'f', 'eval')", "raise", "NameError: name 'compile' is not defined"),
    ("return __import__('os')", "compile", '"__import__" is an invalid variable name'),
    ("return image.find.__globals__", "compile", '"__globals__" is an invalid attribute name'),
    ("return '{0.__class__}'.format(image)", "raise", "format*() methods of `str` is not safe"),
    ("return type(image)", "raise", "NameError: name 'type' is not defined"),
    ("return image.segment('dog')", "raise",
     "AttributeError: 'ImagePatch' object has no attribute 'segment' (line 2)"),
    ("from math import sqrt\nimport json\nreturn 1", "compile", "import of 'json'"),
    ("g = (x for x in [1])\nreturn g.gi_frame", "compile", '"gi_frame" is a restricted name'),
])
def test_escape_attempts_are_refused(box: Sandbox, body: str, status: str, reason: str) -> None:
    outcome = run(box, body)
    assert outcome.status == status
    assert reason in (outcome.reason or ""), outcome.reason


def test_output_larger_than_the_cap_is_refused(box: Sandbox) -> None:
    outcome = run(box, "return 'a' * 100000")
    assert outcome.status == "raise" and outcome.limit == "output"
    assert outcome.reason == "the program produced more than 16384 bytes of output"


def test_syntax_error_is_a_compile_failure(box: Sandbox) -> None:
    outcome = box.run("def execute_command(image):\n    return (\n", {"image": IMAGE}, no_tools)
    assert outcome.status == "compile" and (outcome.reason or "").startswith("line ")


def test_calls_with_star_args_and_keyword_unpacking_run(box: Sandbox) -> None:
    def tools(name: str, args: list[Any]) -> Any:
        assert name == "crop" and args == [0, 0, 0, 8, 4]
        return {"ref": 1, "left": 0, "lower": 0, "right": 8, "upper": 4}

    outcome = run(box, "def area(w, h, scale=1):\n    return w * h * scale\n"
                  "size = [image.width, image.height]\nopts = {'scale': 2}\n"
                  "box = (0, 0, 8, 4)\npart = image.crop(*box)\n"
                  "return [area(*size), area(*size, **opts), area(**{'w': 2, 'h': 3}), "
                  "max(*size), part.width, bool_to_yesno(*[False])]", tools)
    assert outcome.ok, outcome.reason
    assert outcome.value == [64 * 48, 2 * 64 * 48, 6, 64, 8, "no"]


def test_allowed_code_runs_with_math_print_and_helpers(box: Sandbox) -> None:
    outcome = run(box, "import math\nprint('seen', image.width)\n"
                  "total = 0\nfor k in range(4):\n    total += k\n"
                  "return [math.floor(2.5), total, sorted([3, 1]), bool_to_yesno(True), "
                  "image.vertical_center]")
    assert outcome.ok, outcome.reason
    assert outcome.value == [2, 6, [1, 3], "yes", 24.0]
    assert outcome.printed == "seen 64\n"


def test_exception_whose_message_cannot_be_written_is_the_programs_failure(
        box: Sandbox) -> None:
    outcome = run(box, "raise ValueError(10**5000)")  # str() of the argument raises
    assert outcome.status == "raise" and (outcome.reason or "").startswith("ValueError: (its")
    assert box.spawned == 1 and run(box, "return 5").value == 5


LEFTOVER = """
KEEP = []
def leftover():
    try:
        yield 1
    finally:
        {cleanup}
def execute_command(image):
    work = leftover()
    for started in work:
        break
    KEEP.append(work)  # alive after the return: its finally runs when the globals go
    return 1
"""
BUSY = "rows = [[k] for k in range(20000)]\nreturn len(rows)"


def test_work_a_program_leaves_behind_runs_in_its_own_time() -> None:
    """A generator's ``finally:`` loop left by one program runs before that program is done
    (and stops it), never during the next program on the reused worker."""
    with Sandbox(RUNTIME, Limits(timeout=2.0, cpu_seconds=1.0)) as box:
        code = LEFTOVER.format(cleanup="while True:\n            pass")
        first = box.run(code, {"image": IMAGE}, no_tools)
        assert first.status == "timeout" and first.limit in ("cpu", "wall")
        for _ in range(5):
            after = run(box, BUSY)
            assert after.ok and after.value == 20000, after.reason


def test_tool_calls_a_program_leaves_behind_are_its_own(box: Sandbox) -> None:
    seen: list[str] = []

    def tools(name: str, args: list[Any]) -> Any:
        seen.append(name)
        return []

    code = LEFTOVER.format(cleanup="image = ImagePatch({'ref': 0, 'left': 0, 'lower': 0, "
                           "'right': 1, 'upper': 1})\n        image.find('late')")
    first = box.run(code, {"image": IMAGE}, tools)
    assert first.ok and [c["tool"] for c in first.calls] == ["find"]
    pid = box.pid
    for _ in range(5):
        after = run(box, BUSY, tools)
        assert after.ok and after.calls == []
    assert seen == ["find"] and box.pid == pid  # a clean program keeps its worker


def test_worker_is_reused_between_programs(box: Sandbox) -> None:
    assert run(box, "return 1").ok
    pid = box.pid
    for _ in range(5):
        assert run(box, "return 2").value == 2
    assert box.pid == pid and box.spawned == 1


# -- tool calls ----------------------------------------------------------------------------------
def test_tool_calls_are_proxied_and_recorded(box: Sandbox) -> None:
    def tools(name: str, args: list[Any]) -> Any:
        if name == "find":
            return [{"ref": 1, "left": 1, "lower": 2, "right": 5, "upper": 6}]
        if name == "exists":
            raise ToolFailure("no such object")
        return None

    outcome = run(box, "dogs = image.find('dog')\ntry:\n    image.exists('cat')\n"
                  "except ToolError as exc:\n    return [len(dogs), dogs[0].width, str(exc)]",
                  tools)
    assert outcome.ok and outcome.value == [1, 4, "no such object"]
    assert outcome.calls[0] == {"tool": "find", "args": [0, "dog"], "result": [
        {"ref": 1, "left": 1, "lower": 2, "right": 5, "upper": 6}]}
    assert outcome.calls[1] == {"tool": "exists", "args": [0, "cat"], "error": "no such object"}
    uncaught = run(box, "return image.exists('cat')", tools)
    assert uncaught.status == "raise" and uncaught.reason == "ToolError: no such object (line 2)"


def test_tool_call_limit(box: Sandbox) -> None:
    outcome = run(box, "while True:\n    image.find('dog')", lambda name, args: [])
    assert outcome.status == "raise" and outcome.limit == "tool-calls"
    assert len(outcome.calls) == LIMITS.tool_calls


def test_tool_outage_is_an_infrastructure_failure(box: Sandbox) -> None:
    def down(name: str, args: list[Any]) -> Any:
        raise ToolAbort("the VQA model is unreachable")

    with pytest.raises(SandboxCrashed, match="the VQA model is unreachable"):
        run(box, "return image.simple_query('what?')", down)
    assert run(box, "return 3").value == 3


def test_worker_killed_from_outside_is_an_infrastructure_failure(box: Sandbox) -> None:
    def kill(name: str, args: list[Any]) -> Any:
        assert box.pid is not None
        os.kill(box.pid, signal.SIGKILL)
        return []

    with pytest.raises(SandboxCrashed, match="died while running a program"):
        run(box, "image.find('x')\nreturn 1", kill)
    assert run(box, "return 4").value == 4


def test_worker_that_cannot_start_is_reported(tmp_path: Path) -> None:
    with Sandbox(tmp_path / "missing_runtime.py") as box, \
            pytest.raises(SandboxCrashed, match="failed to start"):
        run(box, "return 1")


def test_close_removes_the_working_folder(tmp_path: Path) -> None:
    box = Sandbox(RUNTIME, LIMITS)
    assert run(box, "return 1").ok
    folder = box._folder
    assert folder is not None and Path(folder).is_dir() and not os.listdir(folder)
    box.close()
    assert not Path(folder).exists() and box.pid is None
