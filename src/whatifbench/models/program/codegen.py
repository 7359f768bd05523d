"""Programs out of a code LLM's reply: fenced or not, a whole function or a bare body.

``python_program`` accepts the four shapes of a ViperGPT-style reply — a complete
``def execute_command(...)`` or a bare body, each inside a Markdown fence or not — and returns
a module that defines the entry function. ``step_program`` takes the fenced or plain lines of a
VisProg-style reply. Neither runs anything; a reply without code gives a ``Program`` whose
``problem`` says so (recorded as the item's compile failure).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from whatifbench.answers.think import strip_think

ENTRY = "execute_command"
SIGNATURE = f"def {ENTRY}(image, options, images, question):"
"""How a bare body is wrapped (the parameters every program receives)."""
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_START = ("def ", "async def ", "class ", "import ", "from ", "@", "#")


@dataclass(frozen=True)
class Program:
    """Code taken from a reply."""

    code: str
    """The program as it will run (empty when there is none)."""
    problem: str | None = None
    """Why the reply holds no runnable program (``None`` when it does)."""
    wrapped: bool = False
    """True when a bare body was wrapped in ``SIGNATURE``."""


def fenced_blocks(text: str) -> list[str]:
    """The contents of the reply's Markdown code fences, in order."""
    return [m.group(2) for m in _FENCE.finditer(text)]


def _reply_text(reply: str | None) -> str:
    text, _cut = strip_think(reply or "")
    return text.strip("\n")


def python_program(reply: str | None) -> Program:
    """The program in a ViperGPT-style reply."""
    text = _reply_text(reply)
    if not text.strip():
        return Program("", "the code LLM's reply is empty")
    blocks = fenced_blocks(text)
    fenced = bool(blocks)
    if fenced:
        with_entry = [b for b in blocks if f"def {ENTRY}" in b]
        code = with_entry[0] if with_entry else max(blocks, key=len)
    else:
        code = _unfenced_code(text)
    code = textwrap.dedent(code).strip("\n")
    if not code.strip():
        return Program("", "the code LLM's reply holds no code")
    if re.search(rf"^\s*def\s+{ENTRY}\s*\(", code, re.MULTILINE):
        return Program(code + "\n")
    if not fenced and not _parses_as_body(code):
        return Program("", "the code LLM's reply holds no Python code (no execute_command "
                       "function and no statements)")
    body = textwrap.indent(code, "    ")
    return Program(f"{SIGNATURE}\n{body}\n", wrapped=True)


def _unfenced_code(text: str) -> str:
    """Unfenced replies: from the function (or the first code-looking line) on, without prose
    lines after the code ends."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if re.match(rf"\s*def\s+{ENTRY}\s*\(", line)), None)
    if start is None:
        return text
    while start > 0 and lines[start - 1].lstrip().startswith(("import ", "from ", "@", "#")):
        start -= 1
    kept: list[str] = []
    for line in lines[start:]:
        if line and not line[0].isspace() and not line.startswith(_CODE_START) and kept \
                and not _is_statement(line):
            break
        kept.append(line)
    return "\n".join(kept)


def _is_statement(line: str) -> bool:
    try:
        ast.parse(line)
    except SyntaxError:
        return False
    return True


def _parses_as_body(code: str) -> bool:
    """True when ``code`` is Python statements (a ``return`` outside a function allowed)."""
    try:
        ast.parse(f"{SIGNATURE}\n{textwrap.indent(code, '    ')}\n")
    except SyntaxError:
        return False
    return True


def step_program(reply: str | None) -> Program:
    """The step lines of a VisProg-style reply (fenced or not)."""
    text = _reply_text(reply)
    blocks = fenced_blocks(text)
    code = blocks[0] if blocks else text
    lines = [line.strip() for line in code.splitlines()]
    steps = [line for line in lines if re.match(r"[A-Za-z_][A-Za-z0-9_]*\s*=", line)]
    if not steps:
        return Program("", "the code LLM's reply holds no program steps (lines such as "
                       "BOX0=LOC(image=IMAGE,object='dog'))")
    kept = [line for line in lines if line and not line.startswith("#")] if blocks else steps
    return Program("\n".join(kept) + "\n")
