"""``diffusers:PATH`` image backend: a local diffusers text-to-image pipeline folder.

Optional extra (``pip install "whatifbench[diffusers]"``); diffusers and torch are imported only
when the first picture is drawn, and nothing is downloaded (``local_files_only``). Each picture
is seeded from ``-I seed`` and the request's ``item_id`` (the candidate's name), so candidate
``k`` of a description is the same picture on every machine and run.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from whatifbench.core.registry import register
from whatifbench.core.requests import Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.imagegen.base import ImageBackend, picture_response
from whatifbench.models.shared_args import reject_unknown

INSTALL = 'pip install "whatifbench[diffusers]"'
DEFAULTS: dict[str, Any] = {"steps": 30, "guidance": 7.5, "size": None, "seed": 0,
                            "device": "auto", "dtype": "auto", "negative_prompt": None}
"""``-I`` arguments and their defaults (``size``: ``WIDTHxHEIGHT``, ``None``: the pipeline's)."""
DTYPES = ("auto", "float32", "float16", "bfloat16")


def require_diffusers() -> Any:
    """The ``diffusers`` module, or one message saying how to install it."""
    try:
        import diffusers
        import torch  # noqa: F401
    except ImportError:
        raise WhatifError(f"The diffusers image backend needs the diffusers and torch packages: "
                          f"{INSTALL}.") from None
    return diffusers


def candidate_seed(seed: int, item_id: str) -> int:
    """The generator seed of one candidate picture."""
    return int(hashlib.sha256(f"{seed}:{item_id}".encode()).hexdigest()[:8], 16)


@register("image-backend", "diffusers", "a local diffusers pipeline folder: diffusers:PATH")
class DiffusersBackend(ImageBackend):
    """Draws pictures with a diffusers pipeline loaded from a folder."""

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        reject_unknown(spec, args, DEFAULTS, flag="-I")
        super().__init__(spec, args)
        self.folder = Path(spec.split(":", 1)[1]).expanduser()
        if not (self.folder / "model_index.json").is_file():
            raise WhatifError(f"{spec}: {self.folder} is not a diffusers pipeline folder (it has "
                              "no model_index.json); pass the folder saved by "
                              "save_pretrained or downloaded from the hub.")
        self.opts = {**DEFAULTS, **args}
        for name in ("steps", "seed"):
            if not isinstance(self.opts[name], int) or self.opts[name] < 0:
                raise WhatifError(f"-I {name} must be a whole number >= 0, got "
                                  f"{self.opts[name]!r}.")
        if self.opts["dtype"] not in DTYPES:
            raise WhatifError(f"-I dtype must be one of {', '.join(DTYPES)}.")
        self.size = self._size(self.opts["size"])
        self._pipe: Any = None
        self._version: str | None = None

    @staticmethod
    def _size(value: Any) -> tuple[int, int] | None:
        if value is None:
            return None
        width, sep, height = str(value).partition("x")
        if not sep or not width.isdigit() or not height.isdigit():
            raise WhatifError(f"-I size must look like 512x512, got {value!r}.")
        return int(width), int(height)

    @property
    def version(self) -> str:
        """The folder's fingerprint (configs and weights) and the diffusers version."""
        if self._version is None:
            from whatifbench.models.hf.fingerprint import folder_fingerprint

            diffusers = require_diffusers()
            fingerprint = folder_fingerprint(self.folder)[:16]
            self._version = f"{fingerprint}/diffusers-{diffusers.__version__}"
        return self._version

    def _load(self) -> Any:
        if self._pipe is None:
            import torch

            diffusers = require_diffusers()
            device = self.opts["device"]
            if device == "auto":
                device = "cuda" if torch.cuda.is_available() else "cpu"
            dtype = self.opts["dtype"]
            if dtype == "auto":
                dtype = "float16" if device.startswith("cuda") else "float32"
            pipe = diffusers.AutoPipelineForText2Image.from_pretrained(
                str(self.folder), torch_dtype=getattr(torch, dtype), local_files_only=True)
            pipe.set_progress_bar_config(disable=True)
            self._pipe = pipe.to(device)
        return self._pipe

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """One seeded picture per request, in order."""
        if not requests:
            return
        import torch

        pipe = self._load()
        for i, request in enumerate(requests):
            generator = torch.Generator("cpu").manual_seed(
                candidate_seed(int(self.opts["seed"]), request.item_id))
            extra: dict[str, Any] = {}
            if self.size is not None:
                extra["width"], extra["height"] = self.size
            if self.opts["negative_prompt"]:
                extra["negative_prompt"] = str(self.opts["negative_prompt"])
            image = pipe(request.prompt, num_inference_steps=int(self.opts["steps"]),
                         guidance_scale=float(self.opts["guidance"]), generator=generator,
                         **extra).images[0]
            buf = io.BytesIO()
            image.save(buf, format="PNG", compress_level=6)
            yield i, picture_response(buf.getvalue(), {"seed": candidate_seed(
                int(self.opts["seed"]), request.item_id)})
