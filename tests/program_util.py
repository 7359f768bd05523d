"""Hand-written programs for the program backends' tests and bench.

``oracle_program(item)`` is a correct ViperGPT-style program for each C-VQA-Synthetic template
and role (constants from the item's provenance, as a code LLM would copy them from the
question); ``oracle_steps(item)`` the VisProg-style program for the templates the step language
can express (1–4). ``program_rules`` turns them into reply rules of the fake OpenAI server.
``ScriptedCoder`` is an in-process code LLM answering from such a table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.requests import Request, Response
from whatifbench.models.base import Backend

INSIDE = "len([f for f in flowers if any(p.contains(f) for p in polygons)])"
OUTSIDE = "len([f for f in flowers if not any(p.contains(f) for p in polygons)])"


def _colored(color: str) -> str:
    return f'[p for p in image.find("polygon") if p.verify_property("polygon", "{color}")]'


def _body(item: Item) -> str:
    p = item.provenance
    template, params, cf = int(p["template"]), p["params"], item.role == "counterfactual"
    color = params.get("color")
    if template == 1:
        polygons = 'image.find("polygon")' if cf else _colored(color)
        return f'polygons = {polygons}\nflowers = image.find("flower")\nreturn {OUTSIDE}'
    if template == 2:
        less = f" - {params['n']}" if cf else ""
        return (f'polygons = {_colored(color)}\nflowers = image.find("flower")\n'
                f"return {INSIDE}{less}")
    if template == 3:
        lines = f'polygons = {_colored(color)}\nflowers = image.find("flower")\n'
        if cf:
            lines += (f'gone = {_colored(params["removed_color"])}\n'
                      "flowers = [f for f in flowers if not any(g.contains(f) for g in gone)]\n")
        return lines + f"return {INSIDE}"
    if template == 4:
        less = f" - {params['n']}" if cf else ""
        return ('circles = image.find("circle")\n'
                'dots = [d for d in image.find("dot") if any(c.contains(d) for c in circles)]\n'
                f"return len(dots){less}")
    if template == 5:
        lines = 'circles = image.find("circle")\n'
        if cf:
            lines += ("right = sorted(circles, key=lambda c: c.horizontal_center, "
                      "reverse=True)[:2]\ncircles = [c for c in circles if c not in right]\n")
        return lines + ("top = sorted(circles, key=lambda c: c.vertical_center, reverse=True)[:3]\n"
                        "dots = image.find('dot')\n"
                        "return sum(len([d for d in dots if c.contains(d)]) for c in top)")
    lines = ('dots = image.find("dot")\n'
             'counts = sorted([len([d for d in dots if c.contains(d)]) '
             'for c in image.find("circle")], reverse=True)\n')
    return lines + ("return counts[1]" if cf else "return counts[0]")


def oracle_program(item: Item) -> str:
    """A correct program for a C-VQA-Synthetic item (as a fenced reply)."""
    body = "\n".join("    " + line for line in _body(item).splitlines())
    return f"```python\ndef execute_command(image, options):\n{body}\n```"


def oracle_steps(item: Item) -> str | None:
    """A correct step program for templates 1–4 (``None`` for 5 and 6: they need loops)."""
    p = item.provenance
    template, params, cf = int(p["template"]), p["params"], item.role == "counterfactual"
    color = params.get("color")
    if template == 4:
        lines = ["BOX0=LOC(image=IMAGE,object='circle')", "BOX1=LOC(image=IMAGE,object='dot')",
                 "BOX2=INSIDE(box=BOX1,region=BOX0)", "ANSWER0=COUNT(box=BOX2)"]
        if cf:
            lines.append(f'ANSWER1=EVAL(expr="{{ANSWER0}} - {params["n"]}")')
        lines.append(f"FINAL=RESULT(var={'ANSWER1' if cf else 'ANSWER0'})")
        return "\n".join(lines)
    if template > 4:
        return None
    lines = ["BOX0=LOC(image=IMAGE,object='polygon')",
             f"BOX1=FILTER(box=BOX0,object='polygon',property='{color}')",
             "BOX2=LOC(image=IMAGE,object='flower')"]
    if template == 1:
        lines.append(f"BOX3=OUTSIDE(box=BOX2,region={'BOX0' if cf else 'BOX1'})")
    elif template == 3 and cf:
        lines += [f"BOX4=FILTER(box=BOX0,object='polygon',property='{params['removed_color']}')",
                  "BOX5=OUTSIDE(box=BOX2,region=BOX4)", "BOX3=INSIDE(box=BOX5,region=BOX1)"]
    else:
        lines.append("BOX3=INSIDE(box=BOX2,region=BOX1)")
    lines.append("ANSWER0=COUNT(box=BOX3)")
    if template == 2 and cf:
        lines += [f'ANSWER1=EVAL(expr="{{ANSWER0}} - {params["n"]}")', "FINAL=RESULT(var=ANSWER1)"]
    else:
        lines.append("FINAL=RESULT(var=ANSWER0)")
    return "```\n" + "\n".join(lines) + "\n```"


def program_rules(items: Sequence[Item], write: Callable[[Item], str | None]
                  ) -> list[dict[str, str]]:
    """Fake-server rules: the item's question (with its options) → the program."""
    rules = []
    for item in items:
        reply = write(item)
        if reply is not None:
            options = json.dumps(list(item.choices), ensure_ascii=False)
            rules.append({"contains": f"Question: {item.question}\nOptions: {options}",
                          "reply": reply})
    return rules


class ScriptedCoder(Backend):
    """An in-process code LLM: replies ``write(item)`` for each request's item."""

    def __init__(self, write: Callable[[Item], str | None]) -> None:
        super().__init__("scripted-coder", {})
        self.write = write
        self.requests = 0

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        for i, request in enumerate(requests):
            self.requests += 1
            item = request.item
            reply = self.write(item) if item is not None else None
            yield i, Response(text=reply or "")

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "args": {}, "version": "1"}
