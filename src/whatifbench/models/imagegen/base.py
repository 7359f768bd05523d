"""The image-backend interface: a ``Backend`` whose replies are pictures.

An image backend answers a request (its text is the picture's description) with one picture:
``Response.text`` holds the image file's bytes in base64 and ``Response.meta["format"]`` its
format (``png``, ``jpeg`` …). Because it is a ``Backend``, pipelines call it through
``runner.cached.generate_cached``: pictures are stored in the run store as they arrive, keyed by
the backend's identity and the request (the request's ``item_id`` names the candidate, so the
N candidates of one description are N entries), and a repeated build makes no calls.
Undecodable data is returned as an error, so it is never stored as a success.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from typing import Any

from PIL import Image

from whatifbench.core.registry import lookup
from whatifbench.core.requests import Capabilities, Part, Request, Response, Turn
from whatifbench.models.base import Backend


class ImageBackend(Backend):
    """A backend that draws one picture per request."""

    capabilities = Capabilities(generate=True, rank=False, multi_image=False)


def image_request(item_id: str, prompt: str) -> Request:
    """The request for one picture of ``prompt`` (``item_id`` names the candidate)."""
    return Request(item_id=item_id, turns=(Turn("user", (Part(text=prompt),)),),
                   max_new_tokens=0)


def picture_response(data: bytes, meta: Mapping[str, Any] | None = None) -> Response:
    """A response holding ``data``, or an error when ``data`` is not a picture."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = (img.format or "png").lower()
            img.load()
    except Exception as exc:  # noqa: BLE001  (PIL raises many types for bad data)
        return Response(error=f"the backend returned data that is not an image "
                              f"({type(exc).__name__})")
    return Response(text=base64.b64encode(data).decode("ascii"),
                    meta={**dict(meta or {}), "format": "jpg" if fmt == "jpeg" else fmt,
                          "bytes": len(data)})


def picture_bytes(response: Response) -> tuple[bytes, str]:
    """The picture of a successful response and its file extension."""
    if response.text is None:
        raise ValueError("the response holds no picture")
    return base64.b64decode(response.text), str(response.meta.get("format", "png"))


def make_image_backend(spec: str, args: Mapping[str, Any]) -> ImageBackend:
    """The image backend for ``spec`` (``openai:MODEL``, ``diffusers:PATH``)."""
    family = spec.split(":", 1)[0]
    entry = lookup("image-backend", family)
    if ":" not in spec or not spec.split(":", 1)[1]:
        from whatifbench.errors import WhatifError

        raise WhatifError(f"The image backend {spec!r} needs a model after the colon, e.g. "
                          f"{family}:MODEL.")
    backend: ImageBackend = entry.obj(spec, dict(args))
    return backend
