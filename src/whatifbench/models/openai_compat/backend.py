"""The ``openai:MODEL`` backend: chat completions on any OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend, is_secret
from whatifbench.models.openai_compat.aio import as_completed
from whatifbench.models.openai_compat.client import CallFailed, RetryingClient
from whatifbench.models.openai_compat.options import (
    OpenAIOptions,
    Redactor,
    require_key,
    sanitize_url,
)
from whatifbench.models.openai_compat.payloads import (
    MalformedReply,
    RankingUnsupported,
    candidate_scores,
    generation_body,
    prompt_logprobs,
    prompt_tokens,
    ranking_bodies,
    recorded_generation_input,
    recorded_ranking_input,
    reply_text,
)

CHAT = "/chat/completions"
RANKING_PARAMS = ("prompt_logprobs", "continue_final_message", "add_generation_prompt")


@register("backend", "openai", "an OpenAI-compatible server (vLLM, SGLang, OpenAI ...): "
          "openai:MODEL --base-url URL")
class OpenAIBackend(Backend):
    """Chat completions with images as data URLs; many requests in flight, retried on failure."""

    name_arg_required = True
    capabilities = Capabilities(generate=True, rank=True, multi_image=True)
    execution_args = frozenset({"max_connections", "timeout", "max_retries", "backoff",
                                "backoff_max", "max_reply_mb"})
    arg_names = frozenset(OpenAIOptions.__dataclass_fields__)

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        self.options = OpenAIOptions.from_args(spec, args)
        require_key(self.options, spec)
        super().__init__(spec, {k: v for k, v in args.items() if not is_secret(k)})
        self.model = spec.split(":", 1)[1]
        if len(self.options.base_urls) > 1:  # a fleet serves one model: any subset answers
            self.execution_args = self.execution_args | {"base_url"}
        self.redact = Redactor(self.options.secrets())

    def describe(self) -> dict[str, Any]:
        """Spec, public arguments and the server URL without credentials."""
        described = super().describe()
        described["args"]["base_url"] = self.options.public_servers()
        return described

    def _run(self, requests: Sequence[Request], work: Any) -> Iterator[tuple[int, Response]]:
        if not requests:
            return
        if any(r.plain for r in requests):
            raise WhatifError(
                f"{self.spec}: these requests are the raw input text of a local model (a paper "
                "protocol with its own template), which a chat server would wrap in its own; use "
                "an hf: checkpoint, or a prompt for API models (e.g. --prompt paper:api)."
            )
        client = RetryingClient(self.options, self.redact)
        # At most twice as many items in preparation as connections: request bodies (with
        # their base64 images) are built only shortly before they can be sent.
        gate = asyncio.Semaphore(2 * self.options.max_connections * len(self.options.base_urls))

        async def one(i: int) -> Response:
            async with gate:
                try:
                    response: Response = await work(client, requests[i])
                    return response
                except CallFailed as exc:
                    return Response(error=str(exc))

        yield from as_completed(len(requests), one, client.aclose)
        client.check_reached()

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """One chat completion per request."""

        async def work(client: RetryingClient, request: Request) -> Response:
            body = generation_body(self.model, request, self.options)
            (text, meta), attempts = await client.post(CHAT, body, reply_text)
            return Response(text=text, meta={**meta, "attempts": attempts,
                                             "model_input": recorded_generation_input(request)})

        yield from self._run(requests, work)

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Candidates scored through the server's prompt log-probabilities (vLLM)."""

        async def work(client: RetryingClient, request: Request) -> Response:
            first, *rest = ranking_bodies(self.model, request)
            calls = [client.post(CHAT, first, prompt_tokens),
                     *(client.post(CHAT, body, prompt_logprobs) for body in rest)]
            answers: list[tuple[Any, int]] = []
            for result in await asyncio.gather(*calls, return_exceptions=True):
                if isinstance(result, BaseException):
                    raise self._ranking_failure(result)
                answers.append(result)
            start = int(answers[0][0])
            try:
                sums, counts = candidate_scores(start, [values for values, _ in answers[1:]])
            except MalformedReply as exc:
                return Response(error=self.redact(f"malformed ranking reply: {exc}"))
            return Response(scores=tuple(sums),
                            mean_scores=tuple(s / n for s, n in zip(sums, counts, strict=True)),
                            meta={"prompt_tokens": start, "candidate_tokens": counts,
                                  "attempts": sum(n for _, n in answers),
                                  "model_input": recorded_ranking_input(request)})

        yield from self._run(requests, work)

    def _ranking_failure(self, exc: BaseException) -> BaseException:
        """The error to raise for a failed ranking call: servers without vLLM's extensions
        (no prompt log-probabilities, or a 400 naming one of its parameters) stop the run with
        one message; other failures are the item's own."""
        why = str(exc)
        unsupported = isinstance(exc, RankingUnsupported) or (
            isinstance(exc, CallFailed) and why.startswith("HTTP 400")
            and any(p in why for p in RANKING_PARAMS))
        if not unsupported:
            return exc
        return WhatifError(
            f"The server at {sanitize_url(self.options.base_url)} does not return prompt "
            f"log-probabilities ({self.redact(why)[:200]}), so {self.spec} can only generate text "
            "(ranking needs vLLM's prompt_logprobs); use --answer-mode generate."
        )
