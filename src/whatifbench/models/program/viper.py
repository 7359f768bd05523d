"""``viper:CODE_LLM_SPEC``: a code LLM writes a Python function over an ``ImagePatch`` API, which
runs in the sandbox (ViperGPT-style).

``-M`` arguments: ``detector`` (``oracle`` or a zero-shot detector checkpoint), ``vqa`` (a VLM
backend spec for ``simple_query``), ``llm_query`` (``code``, ``none`` or a spec), ``depth`` (a
depth-estimation checkpoint), ``detector_threshold``, ``code_max_tokens``, and the sandbox limits
``sandbox_timeout``, ``sandbox_cpu_seconds``, ``sandbox_memory_mb``, ``sandbox_output_bytes``,
``sandbox_recursion``, ``sandbox_tool_calls``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.program.backend import TOOL_ARGS, CodeBackend
from whatifbench.models.program.codegen import ENTRY, Program, python_program
from whatifbench.models.program.prompts import (
    VIPER_API,
    VIPER_EXAMPLES,
    VIPER_PROMPT_VERSION,
    code_request,
)
from whatifbench.models.program.sandbox import (
    Limits,
    Outcome,
    Sandbox,
    require_restricted_python,
)
from whatifbench.models.program.tools.server import ToolServer

RUNTIME = Path(__file__).with_name("viper_runtime.py")
LIMIT_ARGS = {"sandbox_timeout": ("timeout", float), "sandbox_cpu_seconds": ("cpu_seconds", float),
              "sandbox_memory_mb": ("memory_mb", int),
              "sandbox_output_bytes": ("output_bytes", int),
              "sandbox_recursion": ("recursion", int), "sandbox_tool_calls": ("tool_calls", int)}
"""``-M`` names of the sandbox limits → ``Limits`` fields."""


def limits_from(args: Mapping[str, Any]) -> Limits:
    """The sandbox limits from ``-M sandbox_*`` arguments (defaults otherwise)."""
    values: dict[str, Any] = {}
    for name, (field, kind) in LIMIT_ARGS.items():
        if name not in args:
            continue
        value = args[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 \
                or (kind is int and not isinstance(value, int)):
            what = "a positive whole number" if kind is int else "a positive number"
            raise WhatifError(f"-M {name} must be {what}, got {value!r}.")
        values[field] = kind(value)
    return Limits(**values)


@register("backend", "viper", "ViperGPT-style: a code LLM writes Python over an image API, run "
          "sandboxed: viper:CODE_LLM_SPEC -M detector=oracle|PATH")
class ViperBackend(CodeBackend):
    """A code LLM's Python program over ``ImagePatch``, run in the sandbox."""

    family = "viper"
    prompt_version = VIPER_PROMPT_VERSION
    arg_names = TOOL_ARGS | frozenset(LIMIT_ARGS)

    def __init__(self, spec: str, args: Mapping[str, Any],
                 code_llm: Backend | None = None) -> None:
        require_restricted_python()
        self.limits = limits_from(args)
        super().__init__(spec, args, code_llm)
        self._sandbox: Sandbox | None = None

    @property
    def sandbox(self) -> Sandbox:
        """The worker process (started on first use, reused for every item)."""
        if self._sandbox is None:
            self._sandbox = Sandbox(RUNTIME, self.limits)
        return self._sandbox

    def __getstate__(self) -> dict[str, Any]:
        """A copy for another process starts its own sandbox worker."""
        return {**self.__dict__, "_sandbox": None}

    def limits_json(self) -> dict[str, Any]:
        """The sandbox limits."""
        return self.limits.to_json()

    def code_request(self, item: Item) -> Request:
        """API description, examples, question."""
        return code_request(item, VIPER_API, VIPER_EXAMPLES, "python", self.code_max_tokens)

    def extract(self, reply: str | None) -> Program:
        """A function or a bare body, fenced or not."""
        return python_program(reply)

    def execute(self, program: str, server: ToolServer) -> Outcome:
        """``execute_command(image, options, images, question)`` in the sandbox."""
        images = server.whole()
        item = server.ctx.item
        args = {"image": images[0] if images else None, "images": images,
                "options": list(item.choices), "question": item.question}
        return self.sandbox.run(program, args, server.handle, ENTRY)

    def close(self) -> None:
        """Stop the sandbox worker and close the models."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
        super().close()
