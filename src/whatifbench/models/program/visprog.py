"""``visprog:CODE_LLM_SPEC``: a code LLM writes a line-by-line visual program in a small step
language, which is parsed and interpreted step by step (VisProg-style; no Python runs).

``-M`` arguments: ``detector``, ``vqa``, ``llm_query``, ``depth``, ``detector_threshold``,
``code_max_tokens`` (see ``viper``).
"""

from __future__ import annotations

from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.models.program.backend import CodeBackend
from whatifbench.models.program.codegen import Program, step_program
from whatifbench.models.program.prompts import (
    VISPROG_API,
    VISPROG_EXAMPLES,
    VISPROG_PROMPT_VERSION,
    code_request,
)
from whatifbench.models.program.sandbox import Outcome
from whatifbench.models.program.tools.server import ToolServer
from whatifbench.models.program.visprog_lang import Interpreter


@register("backend", "visprog", "VisProg-style: a code LLM writes a step program, interpreted "
          "over vision tools: visprog:CODE_LLM_SPEC -M detector=oracle|PATH")
class VisProgBackend(CodeBackend):
    """A code LLM's step program, parsed and interpreted."""

    family = "visprog"
    prompt_version = VISPROG_PROMPT_VERSION

    def code_request(self, item: Item) -> Request:
        """Step-language description, examples, question."""
        return code_request(item, VISPROG_API, VISPROG_EXAMPLES, "", self.code_max_tokens)

    def extract(self, reply: str | None) -> Program:
        """The step lines, fenced or not."""
        return step_program(reply)

    def execute(self, program: str, server: ToolServer) -> Outcome:
        """Parse, then run step by step."""
        return Interpreter(server).run(program)
