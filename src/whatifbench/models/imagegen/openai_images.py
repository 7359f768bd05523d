"""``openai:MODEL`` image backend: an OpenAI-compatible ``/images/generations`` endpoint.

The transport is the ``openai:`` chat backend's (``RetryingClient``: bounded concurrency,
retries with backoff, ``Retry-After``, redacted errors, credentials never recorded). Each request
asks for one picture (``n=1``). Pictures come back as base64 (``response_format=b64_json``,
the default) or as a URL, which is then fetched without the API key.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.models.base import is_secret
from whatifbench.models.imagegen.base import ImageBackend, picture_response
from whatifbench.models.openai_compat.aio import as_completed
from whatifbench.models.openai_compat.client import (
    CallFailed,
    ReplyTooLarge,
    RetryingClient,
    read_capped,
)
from whatifbench.models.openai_compat.options import (
    OpenAIOptions,
    Redactor,
    require_key,
)
from whatifbench.models.openai_compat.payloads import MalformedReply
from whatifbench.models.shared_args import reject_unknown

PATH = "/images/generations"
IMAGE_ARGS = {"size": "1024x1024", "quality": None, "response_format": "b64_json",
              "style": None}
"""Image parameters (``-I key=value``) and their defaults (``None``: not sent)."""
TRANSPORT = ("base_url", "api_key", "max_connections", "timeout", "max_retries", "backoff",
             "backoff_max", "max_reply_mb")
PICTURE_MB = 32.0
"""Default ``max_reply_mb`` of an images call (a picture in base64 is a few MB)."""


def _first_picture(answer: Any) -> dict[str, Any]:
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        raise MalformedReply("no 'data' list in the images reply")
    first = data[0]
    if not isinstance(first.get("b64_json"), str) and not isinstance(first.get("url"), str):
        raise MalformedReply("the images reply has neither 'b64_json' nor 'url'")
    return first


@register("image-backend", "openai", "an OpenAI-compatible images endpoint: openai:MODEL")
class OpenAIImagesBackend(ImageBackend):
    """One ``/images/generations`` call per picture."""

    execution_args = frozenset({"max_connections", "timeout", "max_retries", "backoff",
                                "backoff_max", "max_reply_mb"})

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        reject_unknown(spec, args, (*IMAGE_ARGS, *TRANSPORT), flag="-I")
        transport = {"max_reply_mb": PICTURE_MB,
                     **{k: v for k, v in args.items() if k in TRANSPORT}}
        self.options = OpenAIOptions.from_args(spec, transport)
        require_key(self.options, spec, flag="-I")
        self.params = {k: args.get(k, default) for k, default in IMAGE_ARGS.items()}
        super().__init__(spec, {k: v for k, v in args.items() if not is_secret(k)})
        self.model = spec.split(":", 1)[1]
        if len(self.options.base_urls) > 1:  # a fleet serves one model: any subset answers
            self.execution_args = self.execution_args | {"base_url"}
        self.redact = Redactor(self.options.secrets())

    def describe(self) -> dict[str, Any]:
        """Spec, public arguments (image parameters with their defaults), server URL."""
        described = super().describe()
        described["args"] = {**{k: v for k, v in self.params.items() if v is not None},
                             **described["args"],
                             "base_url": self.options.public_servers()}
        return described

    def body(self, request: Request) -> dict[str, Any]:
        """The JSON body of one call."""
        body: dict[str, Any] = {"model": self.model, "prompt": request.prompt, "n": 1}
        body.update({k: v for k, v in self.params.items() if v is not None})
        return body

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """One picture per request, many calls in flight."""
        if not requests:
            return
        client = RetryingClient(self.options, self.redact, flag="-I")
        fetcher = httpx.AsyncClient(timeout=self.options.timeout)  # no credentials

        async def one(i: int) -> Response:
            try:
                first, attempts = await client.post(PATH, self.body(requests[i]), _first_picture)
                if isinstance(first.get("b64_json"), str):
                    data = base64.b64decode(first["b64_json"])
                else:
                    reply, data = await read_capped(fetcher, "GET", first["url"],
                                                    self.options.max_reply_bytes)
                    if reply.status_code != 200:
                        return Response(error=f"fetching the picture failed: HTTP "
                                              f"{reply.status_code}")
            except CallFailed as exc:
                return Response(error=str(exc))
            except ReplyTooLarge as exc:
                return Response(error=f"fetching the picture failed: {exc.message('-I')}")
            except (httpx.HTTPError, ValueError) as exc:
                return Response(error=self.redact(f"fetching the picture failed: "
                                                  f"{type(exc).__name__}"))
            meta = {"attempts": attempts}
            if isinstance(first.get("revised_prompt"), str):
                meta["revised_prompt"] = first["revised_prompt"]
            return picture_response(data, meta)

        async def close() -> None:
            await asyncio.gather(client.aclose(), fetcher.aclose())

        yield from as_completed(len(requests), one, close)
        client.check_reached()
