"""The VisProg-style step language: a real parser and a step-by-step interpreter (no ``eval``).

A program is lines ``NAME=STEP(arg=value, ...)``; values are quoted strings, numbers or names of
earlier results (``IMAGE`` is the input image, ``IMAGE0``, ``IMAGE1`` ... with several). The
parser checks every step name and argument before anything runs (a failure is the program's
``compile`` outcome); the interpreter runs the steps over a ``ToolServer``, ``EVAL`` through the
safe expression reader ``answers.arith.evaluate_expression``. The program's answer is its
``RESULT`` (else its last step's value). Programs have no loops, so they always end.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from whatifbench.answers.arith import ArithmeticProblem, evaluate_expression
from whatifbench.models.program.sandbox import Outcome
from whatifbench.models.program.tools.base import ToolProblem, View
from whatifbench.models.program.tools.server import ToolServer

MAX_STEPS = 100
STEPS: dict[str, tuple[str, ...]] = {
    "LOC": ("image", "object"),
    "COUNT": ("box",),
    "CROP": ("image", "box"),
    "CROP_LEFTOF": ("image", "box"),
    "CROP_RIGHTOF": ("image", "box"),
    "CROP_ABOVE": ("image", "box"),
    "CROP_BELOW": ("image", "box"),
    "FILTER": ("box", "object", "property"),
    "INSIDE": ("box", "region"),
    "OUTSIDE": ("box", "region"),
    "VQA": ("image", "question"),
    "EVAL": ("expr",),
    "RESULT": ("var",),
}
"""Each step's argument names (all required)."""
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$")
_ARG = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*")
_VALUE = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|(-?\d+(?:\.\d+)?)"
                    r"|([A-Za-z_][A-Za-z0-9_]*)")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ParseError(Exception):
    """The program is not valid step language (line number in the message)."""


class StepFailure(Exception):
    """A step could not run (the program's ``raise`` outcome)."""


@dataclass(frozen=True)
class Arg:
    """One argument value."""

    kind: str
    """``str``, ``num`` or ``var``."""
    value: str
    """The text (unescaped string, number text, or variable name)."""


@dataclass(frozen=True)
class Step:
    """One line of the program."""

    line: int
    """1-based line number."""
    target: str
    """Name the result is stored under."""
    name: str
    """The step (a key of ``STEPS``)."""
    args: dict[str, Arg]
    """Its arguments."""


def _args(text: str, line: int) -> dict[str, Arg]:
    args: dict[str, Arg] = {}
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _ARG.match(text, pos)
        if not match:
            raise ParseError(f"line {line}: expected name=value at {text[pos:pos + 20]!r}")
        name = match.group(1)
        value = _VALUE.match(text, match.end())
        if not value:
            raise ParseError(f"line {line}: argument {name} has no value")
        if value.group(1) is not None or value.group(2) is not None:
            raw = value.group(1) if value.group(1) is not None else value.group(2)
            args[name] = Arg("str", re.sub(r"\\(.)", r"\1", raw))
        elif value.group(3) is not None:
            args[name] = Arg("num", value.group(3))
        else:
            args[name] = Arg("var", value.group(4))
        pos = value.end()
        rest = text[pos:].lstrip()
        if rest.startswith(","):
            pos = len(text) - len(rest) + 1
        elif rest:
            raise ParseError(f"line {line}: expected ',' or ')' at {rest[:20]!r}")
        else:
            break
    return args


def parse(code: str) -> list[Step]:
    """The steps of a program; ``ParseError`` names the first bad line."""
    steps = []
    for number, raw in enumerate(code.splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        match = _LINE.match(text)
        if not match:
            raise ParseError(f"line {number}: {text[:60]!r} is not NAME=STEP(arg=value, ...)")
        target, name, inner = match.groups()
        if name not in STEPS:
            raise ParseError(f"line {number}: unknown step {name} (the steps are "
                             f"{', '.join(STEPS)})")
        args = _args(inner, number)
        expected = STEPS[name]
        unknown = sorted(set(args) - set(expected))
        missing = [a for a in expected if a not in args]
        if unknown or missing:
            raise ParseError(f"line {number}: {name} takes {', '.join(expected)}"
                             + (f"; unknown {', '.join(unknown)}" if unknown else "")
                             + (f"; missing {', '.join(missing)}" if missing else ""))
        steps.append(Step(number, target, name, args))
        if len(steps) > MAX_STEPS:
            raise ParseError(f"the program has more than {MAX_STEPS} steps")
    if not steps:
        raise ParseError("the program has no steps")
    return steps


def to_json(value: Any) -> Any:
    """A step value in JSON form (images and boxes as their regions)."""
    if isinstance(value, View):
        return {"image": value.image, "box": [round(v, 2) for v in value.box]}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, Fraction):
        return _number(value)
    return value


def _number(value: Fraction) -> int | float:
    """A whole number stays exact; any other a float (``StepFailure`` when too large for
    one)."""
    if value.denominator == 1:
        return int(value)
    try:
        return float(value)
    except OverflowError:
        raise StepFailure("the value is too large for a number (more than 1.8e308)") from None


class Interpreter:
    """Runs parsed steps over one item's tools."""

    def __init__(self, server: ToolServer) -> None:
        self.server = server
        self.state: dict[str, Any] = {}
        for i in range(len(server.ctx.paths)):
            self.state[f"IMAGE{i}"] = server.ctx.full(i)
        self.state["IMAGE"] = self.state["IMAGE0"]

    def run(self, code: str) -> Outcome:
        """The program's outcome; every step is recorded with its value."""
        started = time.monotonic()
        calls: list[dict[str, Any]] = []
        try:
            steps = parse(code)
        except ParseError as exc:
            return Outcome("compile", reason=str(exc))
        final: Any = None
        for step in steps:
            args = {k: _show(v) for k, v in step.args.items()}
            try:
                value = self._step(step)
                shown = to_json(value)
            except (StepFailure, ToolProblem, ArithmeticProblem, ArithmeticError) as exc:
                calls.append({"tool": step.name, "line": step.line, "args": args,
                              "error": str(exc)})
                return Outcome("raise", reason=f"line {step.line} ({step.name}): {exc}",
                               seconds=round(time.monotonic() - started, 6), calls=calls)
            self.state[step.target] = value
            calls.append({"tool": step.name, "line": step.line, "args": args,
                          "result": shown})
            final = shown
            if step.name == "RESULT":
                break
        return Outcome("ok", final, seconds=round(time.monotonic() - started, 6), calls=calls)

    # -- steps -------------------------------------------------------------------------------
    def _get(self, step: Step, name: str) -> Any:
        arg = step.args[name]
        if arg.kind == "str":
            return arg.value
        if arg.kind == "num":
            return Fraction(arg.value)
        if arg.value not in self.state:
            raise StepFailure(f"{arg.value} is not defined before this line")
        return self.state[arg.value]

    def _image(self, step: Step) -> View:
        value = self._get(step, "image")
        if not isinstance(value, View):
            raise StepFailure(f"image= must be an image, got {_kind(value)}")
        return value

    def _boxes(self, step: Step, name: str = "box") -> list[View]:
        value = self._get(step, name)
        if isinstance(value, View):
            return [value]
        if not isinstance(value, list):
            raise StepFailure(f"{name}= must be boxes from LOC, got {_kind(value)}")
        return value

    def _text(self, step: Step, name: str) -> str:
        value = self._get(step, name)
        if not isinstance(value, str):
            raise StepFailure(f"{name}= must be text, got {_kind(value)}")
        return value

    def _step(self, step: Step) -> Any:
        s = self.server
        name = step.name
        if name == "LOC":
            return s.find(self._image(step), self._text(step, "object"))
        if name == "COUNT":
            return len(self._boxes(step))
        if name.startswith("CROP"):
            return self._crop(step)
        if name == "FILTER":
            obj, prop = self._text(step, "object"), self._text(step, "property")
            return [b for b in self._boxes(step) if s.verify_property(b, obj, prop)]
        if name in ("INSIDE", "OUTSIDE"):
            regions = self._boxes(step, "region")
            inside = [any(s.contains(r, b) for r in regions) for b in self._boxes(step)]
            return [b for b, flag in zip(self._boxes(step), inside, strict=True)
                    if flag == (name == "INSIDE")]
        if name == "VQA":
            return s.simple_query(self._image(step), self._text(step, "question"))
        if name == "EVAL":
            return self._eval(step)
        return self._get(step, "var")  # RESULT

    def _crop(self, step: Step) -> View:
        image, boxes = self._image(step), self._boxes(step)
        if not boxes:
            return image
        x0, y0, x1, y1 = image.box
        bx0, by0, bx1, by1 = boxes[0].box
        cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
        region = {"CROP": (bx0, by0, bx1, by1), "CROP_LEFTOF": (x0, y0, cx, y1),
                  "CROP_RIGHTOF": (cx, y0, x1, y1), "CROP_ABOVE": (x0, y0, x1, cy),
                  "CROP_BELOW": (x0, cy, x1, y1)}[step.name]
        if region[2] - region[0] < 1 or region[3] - region[1] < 1:
            raise StepFailure("the crop is empty")
        return View(image.image, region)

    def _eval(self, step: Step) -> Any:
        expr = self._text(step, "expr")

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in self.state:
                raise StepFailure(f"{{{name}}} is not defined before this line")
            return _literal(self.state[name])

        value = evaluate_expression(_PLACEHOLDER.sub(fill, expr))
        return _number(value) if isinstance(value, Fraction) else value


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, Fraction)):
        return str(value) if not isinstance(value, Fraction) or value.denominator == 1 \
            else f"({value.numerator} / {value.denominator})"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "") + "'"
    if isinstance(value, list):
        return str(len(value))
    raise StepFailure("an image cannot be used in EVAL")


def _kind(value: Any) -> str:
    return {True: "boxes"}.get(isinstance(value, list), type(value).__name__)


def _show(arg: Arg) -> Any:
    return arg.value if arg.kind != "num" else float(arg.value)
