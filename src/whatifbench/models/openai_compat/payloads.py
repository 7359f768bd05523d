"""Requests → OpenAI chat-completion bodies (images as base64 data URLs), and replies → values.

Ranking uses vLLM's ``prompt_logprobs`` extension of chat completions: the conversation is sent
once with the generation prompt (its token count marks where the answer starts) and once per
candidate with the candidate as the start of the assistant's reply
(``continue_final_message``); the candidate's score is the sum of the log-probabilities the
server reports for the prompt tokens after that mark.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.readfile import read_bytes
from whatifbench.core.requests import Request, Turn
from whatifbench.models.openai_compat.options import OpenAIOptions


class MalformedReply(Exception):
    """A 200 response without the expected fields (retried like a transient failure)."""


class EmptyReply(Exception):
    """A well-formed 200 reply that holds no answer (``content: null``): the call failed, and
    is not repeated at once, since the same request would get the same reply."""


class RankingUnsupported(Exception):
    """The server answered but gave no prompt log-probabilities."""


def data_url(path: str) -> str:
    """An image file as a base64 data URL."""
    mime = mimetypes.guess_type(path)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(read_bytes(path)).decode('ascii')}"


def placeholder(path: str) -> str:
    """What stands for an image in the recorded model input: ``<image NAME>``."""
    return f"<image {Path(path).name}>"


def _content(turn: Turn, image_url: Callable[[str], str]) -> list[dict[str, Any]]:
    return [{"type": "image_url", "image_url": {"url": image_url(p.image)}}
            if p.image is not None else {"type": "text", "text": p.text or ""}
            for p in turn.parts]


def chat_messages(request: Request, answer_prefix: bool = True,
                  image_url: Callable[[str], str] = data_url) -> list[dict[str, Any]]:
    """The conversation in OpenAI's format. A server cannot be made to start its reply with the
    answer prefix, so (as in the CELLO release) the prefix ends the final user message.
    ``image_url`` gives each image's URL (a base64 data URL; ``placeholder`` for the record)."""
    messages: list[dict[str, Any]] = []
    for k, turn in enumerate(request.turns):
        content = _content(turn, image_url)
        if answer_prefix and request.answer_prefix and k == len(request.turns) - 1:
            content.append({"type": "text", "text": request.answer_prefix})
        if turn.role == "assistant":
            messages.append({"role": "assistant", "content": turn.text})
        else:
            messages.append({"role": turn.role, "content": content})
    return messages


def generation_body(model: str, request: Request, options: OpenAIOptions) -> dict[str, Any]:
    """Body of a generation call. A request whose decoding record samples is sent with its
    temperature (1.0 when unset), ``top_p`` and seed; the server's chat template ends the reply
    and reads its tokens (the record's stop strings and special-token handling are a local
    model's). Otherwise ``-M temperature`` (default 0)."""
    body: dict[str, Any] = {"model": model, "messages": chat_messages(request)}
    decoding = request.decoding
    if decoding is not None and decoding.do_sample:
        body["temperature"] = 1.0 if decoding.temperature is None else decoding.temperature
        if decoding.top_p is not None:
            body["top_p"] = decoding.top_p
        if decoding.seed is not None:
            body["seed"] = decoding.seed
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    body[options.max_tokens_param] = request.max_new_tokens
    return body


def recorded_generation_input(request: Request) -> str:
    """The messages of a generation call as JSON, images replaced by placeholders."""
    return json.dumps(chat_messages(request, image_url=placeholder), ensure_ascii=False,
                      indent=1)


def recorded_ranking_input(request: Request) -> str:
    """The messages of a ranking call's prompt (the answer prefix as the start of the
    assistant's reply) as JSON, images replaced by placeholders; each candidate follows it."""
    return json.dumps(_ranking_messages(request, chat_messages(request, False, placeholder)),
                      ensure_ascii=False, indent=1)


def _ranking_messages(request: Request, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if request.answer_prefix:
        return [*messages, {"role": "assistant", "content": request.answer_prefix}]
    return messages


def ranking_bodies(model: str, request: Request) -> list[dict[str, Any]]:
    """Bodies of a ranking call: the prompt alone, then prompt + each candidate."""
    messages = chat_messages(request, answer_prefix=False)
    common = {"model": model, "temperature": 0.0, "max_tokens": 1, "prompt_logprobs": 0}
    prefix = request.answer_prefix
    if prefix:
        first = {**common, "messages": _ranking_messages(request, messages),
                 "add_generation_prompt": False, "continue_final_message": True}
    else:
        first = {**common, "messages": messages, "add_generation_prompt": True}
    bodies = [first]
    for cand in request.candidates:
        bodies.append({**common, "add_generation_prompt": False, "continue_final_message": True,
                       "messages": [*messages, {"role": "assistant", "content": prefix + cand}]})
    return bodies


def reply_text(body: Any) -> tuple[str, dict[str, Any]]:
    """Text and meta (finish reason, token usage) of a chat-completion response."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise MalformedReply("the response has no choices[0].message") from None
    if not isinstance(message, dict):
        raise MalformedReply("choices[0].message is not an object")
    text = message.get("content")
    if text is None:
        raise EmptyReply(f"choices[0].message.content is null (finish_reason "
                         f"{choice.get('finish_reason')!r})")
    if not isinstance(text, str):
        raise MalformedReply("choices[0].message.content is not text")
    meta: dict[str, Any] = {"finish_reason": choice.get("finish_reason")}
    usage = body.get("usage") if isinstance(body, dict) else None
    if isinstance(usage, dict):
        meta["usage"] = {k: usage[k] for k in ("prompt_tokens", "completion_tokens")
                         if isinstance(usage.get(k), int)}
    return text, meta


def prompt_tokens(body: Any) -> int:
    """``usage.prompt_tokens`` of a response."""
    try:
        count = body["usage"]["prompt_tokens"]
    except (KeyError, TypeError):
        raise RankingUnsupported("the response has no usage.prompt_tokens") from None
    if not isinstance(count, int):
        raise MalformedReply("usage.prompt_tokens is not a number")
    return count


def prompt_logprobs(body: Any) -> list[float | None]:
    """The log-probability of each prompt token (``None`` for the first), from vLLM's
    ``prompt_logprobs``: per position a map token id → {logprob, rank}, holding the actual token
    and any top alternatives; the actual token is the entry of largest rank."""
    entries = body.get("prompt_logprobs") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise RankingUnsupported("the response has no prompt_logprobs")
    out: list[float | None] = []
    for entry in entries:
        if entry is None:
            out.append(None)
            continue
        try:
            best = max(entry.values(), key=lambda e: e.get("rank") or 0)
            out.append(float(best["logprob"]))
        except (AttributeError, KeyError, TypeError, ValueError):
            raise MalformedReply("prompt_logprobs has an unreadable entry") from None
    return out


def candidate_scores(start: int, logprobs: Sequence[Sequence[float | None]]
                     ) -> tuple[list[float], list[int]]:
    """Summed log-probability and token count of each candidate: the prompt tokens after
    position ``start`` (the token count of the conversation without the candidate)."""
    sums, counts = [], []
    for values in logprobs:
        tail = list(values[start:])
        if not tail or any(v is None for v in tail):
            raise MalformedReply(f"a candidate has no scored tokens after position {start}")
        sums.append(sum(v for v in tail if v is not None))
        counts.append(len(tail))
    return sums, counts
