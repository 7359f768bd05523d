"""What the ViperGPT- and VisProg-style backends share: the code LLM, the tools, the arguments,
the answer mapping and the trace.

For each item the code LLM gets our API description, our in-context examples and the item's
question (``prompts``); its reply becomes a program (``codegen``), which runs over the item's
tools; the returned value is the answer (for choice items mapped to the option's letter when
it equals an option, else left to the suite's extraction). A program that fails to compile,
raises or times out is the item's answer, scored wrong and flagged (``trace["failure"]``);
only an unreachable model, a dead sandbox worker or a tool that broke with an exception of its
own ends the item as an error (never the run).
"""

from __future__ import annotations

import traceback
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from whatifbench import __version__
from whatifbench.answers.letters import extract_choice, letter_for
from whatifbench.core.fsutil import finite_json
from whatifbench.core.item import Item
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend, public_args, scene_generators_reason
from whatifbench.models.program.codegen import Program
from whatifbench.models.program.sandbox import Outcome, SandboxCrashed
from whatifbench.models.program.tools.answerers import Depth, DepthModel, Llm, Vqa
from whatifbench.models.program.tools.base import ItemContext, Perception, ToolOutage
from whatifbench.models.program.tools.calls import ModelCalls
from whatifbench.models.program.tools.detector import DetectorPerception, detector_args
from whatifbench.models.program.tools.oracle import OraclePerception
from whatifbench.models.program.tools.server import Toolbox, ToolServer
from whatifbench.models.shared_args import own_args, reject_unknown

TOOL_ARGS = frozenset({"detector", "detector_threshold", "vqa", "llm_query", "depth",
                       "code_max_tokens"})
"""``-M`` arguments of both program backends."""
ROUTED = ("code.", "vqa.", "llm.")
"""``-M code.KEY=…`` goes to the code LLM only, ``vqa.KEY`` to the VQA model, ``llm.KEY`` to
the ``llm_query`` model; other arguments not ours go to all of them."""


def split_args(cls: type, spec: str, args: Mapping[str, Any]
               ) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
    """(our arguments, arguments shared with the inner models, per-model arguments)."""
    routed: dict[str, dict[str, Any]] = {p[:-1]: {} for p in ROUTED}
    rest: dict[str, Any] = {}
    for key, value in args.items():
        prefix = next((p for p in ROUTED if key.startswith(p)), None)
        if prefix:
            routed[prefix[:-1]][key[len(prefix):]] = value
        else:
            rest[key] = value
    own = own_args(cls, rest)
    reject_unknown(spec, own, getattr(cls, "arg_names", frozenset()))
    shared = {k: v for k, v in rest.items() if k not in own}
    return own, shared, routed


def _spec(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise WhatifError(f"-M {name} must be a backend spec such as openai:MODEL or hf:PATH, "
                          f"got {value!r}.")
    return value.strip()


def answer_text(item: Item, value: Any) -> str:
    """The reply text for a program's value: the option's letter when the value equals an
    option, ``yes``/``no`` for booleans, whole numbers without ``.0``, else the value as text."""
    if value is None or isinstance(value, dict):
        return ""
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = str(value).strip()
    if item.kind == "choice":
        wanted = _canonical(text)
        for k, choice in enumerate(item.choices):
            if _canonical(choice) == wanted:
                return letter_for(k)
    return text


def _canonical(text: str) -> str:
    text = text.strip().strip(".").strip().lower()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else str(number)


def broken_tool(exc: Exception) -> str:
    """The item's error when running its program raised an exception of ours (a tool that
    broke on what the program asked, not the program's own failure)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = next((f"{f.name}() in {Path(f.filename).name}" for f in reversed(frames)
                  if "whatifbench" in f.filename), "the program's tools")
    return f"running the program failed in {where} ({type(exc).__name__}: {str(exc)[:300]})"


class CodeBackend(Backend):
    """Base of the program backends: ``FAMILY:CODE_LLM_SPEC`` with ``-M`` tool arguments."""

    family = "program"
    prompt_version = ""
    capabilities = Capabilities(generate=True, rank=True, multi_image=True)
    name_arg_required = True
    arg_names: frozenset[str] = TOOL_ARGS
    forwards_args = True

    def __init__(self, spec: str, args: Mapping[str, Any],
                 code_llm: Backend | None = None) -> None:
        from whatifbench.models.make import backend_class, make_backend

        own, shared, routed = split_args(type(self), spec, args)

        def inner(inner_spec: str, role: str) -> Backend:
            """An inner model with the shared arguments it takes and those routed to it."""
            mine = own_args(backend_class(inner_spec), shared)
            return make_backend(inner_spec, {**mine, **routed[role]})

        super().__init__(spec, {**own, **{f"{p}.{k}": v for p, kv in routed.items()
                                          for k, v in kv.items()}})
        self.code_spec = spec.split(":", 1)[1] if ":" in spec else ""
        if self.code_spec.split(":", 1)[0] in ("viper", "visprog"):
            raise WhatifError(f"{spec}: the code LLM cannot itself be a program backend; use "
                              f"{self.family}:openai:MODEL or {self.family}:hf:PATH.")
        tokens = own.get("code_max_tokens", 512)
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
            raise WhatifError(f"-M code_max_tokens must be a positive integer, got {tokens!r}.")
        self.code_max_tokens = tokens
        self.calls = ModelCalls()
        self._owned: list[Backend] = []
        if code_llm is None:
            code_llm = inner(self.code_spec, "code")
            self._owned.append(code_llm)
        self.code_llm = code_llm
        self.toolbox = Toolbox(self._perception(own))
        if own.get("vqa") is not None:
            vqa = inner(_spec(own["vqa"], "vqa"), "vqa")
            self._owned.append(vqa)
            self.toolbox.vqa = Vqa(vqa, self.calls)
        llm_spec = own.get("llm_query")
        if llm_spec in (None, "code"):
            self.toolbox.llm = Llm(self.code_llm, self.calls)
        elif llm_spec != "none":
            llm = inner(_spec(llm_spec, "llm_query"), "llm")
            self._owned.append(llm)
            self.toolbox.llm = Llm(llm, self.calls)
        if own.get("depth") is not None:
            self.toolbox.depth = Depth(DepthModel(str(own["depth"])), self.calls)

    def _perception(self, own: Mapping[str, Any]) -> Perception:
        detector = own.get("detector")
        if detector is None:
            raise WhatifError(
                f"{self.spec} needs its eyes: pass -M detector=oracle (the ground-truth scenes "
                "of generated suites) or -M detector=PATH (a zero-shot object detector "
                "checkpoint such as OWL-ViT).")
        if not isinstance(detector, str) or not detector.strip():
            raise WhatifError(f"-M detector must be 'oracle' or a checkpoint folder, got "
                              f"{detector!r}.")
        if detector.strip() == "oracle":
            return OraclePerception()
        return DetectorPerception(detector.strip(), self.calls, detector_args(own))

    # -- identity ----------------------------------------------------------------------------
    @property
    def version(self) -> str:
        """The prompt version (the code LLM and tools are described beside it)."""
        return self.prompt_version

    def describe(self) -> dict[str, Any]:
        """Spec, arguments, code LLM, tools, prompt version, limits, package version."""
        return {"spec": self.spec, "args": public_args(self.args), "version": self.version,
                "family": self.family, "code_llm": self.code_llm.describe(),
                "tools": self.toolbox.describe(), "prompt_version": self.prompt_version,
                "limits": self.limits_json(), "whatifbench": __version__}

    def cache_identity(self) -> dict[str, Any]:
        """``describe()`` with the code LLM's own cache identity (its execution arguments such
        as ``max_connections`` do not change the programs)."""
        return {**self.describe(), "code_llm": self.code_llm.cache_identity()}

    def limits_json(self) -> dict[str, Any] | None:
        """The execution limits (the sandbox's, for Python programs)."""
        return None

    def needs_image(self) -> str | None:
        """Its programs call perception tools on the picture."""
        return "its programs call perception tools on the picture and need one in every request"

    def ablation_refusal(self, kind: str) -> str | None:
        """With oracle perception the tools read the scene from the items' provenance, not the
        pixels: no image ablation can take the picture away from it."""
        if isinstance(self.toolbox.perception, OraclePerception):
            return ("with -M detector=oracle its tools read each scene from the items' "
                    "provenance, not from the pixels, so taking the image away changes nothing "
                    "(use -M detector=PATH to ablate a detector-based run)")
        return super().ablation_refusal(kind)

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """Any suite with a detector; oracle perception only the generated suites."""
        if isinstance(self.toolbox.perception, OraclePerception):
            why = scene_generators_reason(suite, generator)
            return None if why is None else f"with -M detector=oracle {why} (use a detector)"
        return None

    # -- running -----------------------------------------------------------------------------
    def use_store(self, store: Any) -> None:
        """Cache code generations and tool calls in the run store."""
        self.calls.store = store

    def prepare(self, items: Sequence[Item]) -> None:
        """Check the tools can serve every item (oracle scenes, detector checkpoint)."""
        self.toolbox.prepare(items)
        if isinstance(self.toolbox.perception, DetectorPerception):
            self.toolbox.perception.model.load()

    @abstractmethod
    def code_request(self, item: Item) -> Request:
        """The code LLM request for one item."""

    @abstractmethod
    def extract(self, reply: str | None) -> Program:
        """The program in a reply."""

    @abstractmethod
    def execute(self, program: str, server: ToolServer) -> Outcome:
        """Run a program over the item's tools (``SandboxCrashed``/``ToolOutage`` for
        infrastructure failures)."""

    def _item(self, request: Request) -> Item:
        if request.item is None:
            raise WhatifError(f"The backend {self.spec} needs the item with each request.")
        return request.item

    def _programs(self, requests: Sequence[Request]) -> Iterator[tuple[int, Item, Response]]:
        items = [self._item(r) for r in requests]
        replies = self.calls.generate(self.code_llm, [self.code_request(i) for i in items])
        for i, (item, request, reply) in enumerate(zip(items, requests, replies, strict=True)):
            yield i, item, self.respond(item, request, reply)

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Write each item's program, run it, answer with its value."""
        for i, _item, response in self._programs(requests):
            yield i, response

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Rank mode: the option the program's value names scores 0, the others −1."""
        for i, item, response in self._programs(requests):
            if response.error is not None or (response.meta.get("trace") or {}).get("failure"):
                yield i, response
                continue
            chosen = extract_choice(response.text or "", item.choices).value \
                if item.kind == "choice" else None
            scores = None if chosen is None else \
                tuple(0.0 if c == chosen else -1.0 for c in item.choices)
            yield i, Response(text=response.text, scores=scores, mean_scores=scores,
                              meta=response.meta)

    def respond(self, item: Item, request: Request, reply: Response) -> Response:
        """The response for one item, given the code LLM's reply."""
        if reply.error is not None:
            return Response(error=f"the code LLM {self.code_llm.spec} failed: {reply.error}")
        program = self.extract(reply.text)
        if program.problem is not None:
            outcome = Outcome("compile", reason=program.problem)
        else:
            shown = request.turns[-1].images if request.turns else ()
            if len(shown) != len(item.images) and isinstance(self.toolbox.perception,
                                                             OraclePerception):
                raise WhatifError(f"Oracle perception reads each image's own scene; item "
                                  f"{item.id} shows {len(shown)} image(s) for its "
                                  f"{len(item.images)}: use --image-layout multi.")
            server = ToolServer(self.toolbox, ItemContext(item, shown))
            try:
                outcome = self.execute(program.code, server)
            except (SandboxCrashed, ToolOutage) as exc:
                return Response(error=str(exc), meta={"program": program.code})
            except WhatifError:
                raise
            except Exception as exc:  # noqa: BLE001  (a tool broke on this program: the item's)
                return Response(error=broken_tool(exc), meta={"program": program.code})
        failure = None if outcome.ok else {"kind": outcome.status, "reason": outcome.reason,
                                           "limit": outcome.limit}
        trace = finite_json({
            "backend": self.family, "prompt_version": self.prompt_version, "reply": reply.text,
            "program": program.code, "calls": outcome.calls, "value": outcome.value,
            "printed": outcome.printed, "seconds": outcome.seconds, "failure": failure})
        text = answer_text(item, outcome.value) if outcome.ok else ""
        return Response(text=text, meta={"trace": trace, "code_llm": reply.meta})

    def close(self) -> None:
        """Close the models this backend opened."""
        for backend in self._owned:
            backend.close()
