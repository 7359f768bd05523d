"""The model-backed tools besides perception: VQA (``simple_query``), the LLM (``llm_query``)
and depth (``compute_depth``). Each call is a request to a backend, cached in the run store."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.hf.fingerprint import folder_fingerprint
from whatifbench.models.hf.loading import require_hf
from whatifbench.models.program.tools.base import ItemContext, ToolOutage, View, as_path
from whatifbench.models.program.tools.calls import ModelCalls

VQA_TOKENS = 32
LLM_TOKENS = 64
LLM_LONG_TOKENS = 256


class Vqa:
    """``simple_query``: a VLM backend asked about a patch (the crop is the image it sees)."""

    def __init__(self, backend: Backend, calls: ModelCalls) -> None:
        self.backend = backend
        self.calls = calls

    def ask(self, ctx: ItemContext, view: View, question: str) -> str:
        """The backend's short answer."""
        text = f"{question.strip()}\nAnswer with a single word or phrase."
        request = Request(item_id=f"{ctx.item.id}#vqa", turns=(Turn("user", (
            Part(image=ctx.crop_path(view)), Part(text=text))),), max_new_tokens=VQA_TOKENS,
            item=ctx.item)
        response = self.calls.one(self.backend, request)
        if response.error is not None:
            raise ToolOutage(f"the VQA model {self.backend.spec} failed: {response.error}")
        return (response.text or "").strip()


class Llm:
    """``llm_query``: a text-only question to a language model backend."""

    def __init__(self, backend: Backend, calls: ModelCalls) -> None:
        self.backend = backend
        self.calls = calls

    def ask(self, ctx: ItemContext, question: str, long_answer: bool) -> str:
        """The model's answer."""
        text = question.strip() if long_answer else \
            f"{question.strip()}\nAnswer with a single word or phrase."
        request = Request(item_id=f"{ctx.item.id}#llm", turns=(Turn("user", (Part(text=text),)),),
                          max_new_tokens=LLM_LONG_TOKENS if long_answer else LLM_TOKENS,
                          item=ctx.item)
        response = self.calls.one(self.backend, request)
        if response.error is not None:
            raise ToolOutage(f"the LLM {self.backend.spec} failed: {response.error}")
        return (response.text or "").strip()


class DepthModel(Backend):
    """A transformers depth-estimation checkpoint as a cacheable model: the response's
    ``meta["depth"]`` is the median predicted depth of the request's image."""

    def __init__(self, path: str) -> None:
        require_hf()
        folder = as_path(path)
        if not (folder / "config.json").is_file():
            raise WhatifError(f"-M depth={path}: there is no checkpoint folder with a "
                              "config.json there; pass the folder of a depth-estimation model "
                              "(DPT, Depth Anything ...).")
        super().__init__(f"depth:{folder}", {})
        self.folder = folder
        self._version = folder_fingerprint(folder)[:20]
        self._loaded: tuple[Any, Any] | None = None

    @property
    def version(self) -> str:
        """The checkpoint's fingerprint."""
        return self._version

    def load(self) -> tuple[Any, Any]:
        """Processor and model (loaded once); a folder that is not a depth model gets one
        message."""
        if self._loaded is None:
            from transformers import AutoImageProcessor, AutoModelForDepthEstimation

            try:
                processor = AutoImageProcessor.from_pretrained(self.folder, local_files_only=True)
                model = AutoModelForDepthEstimation.from_pretrained(self.folder,
                                                                    local_files_only=True)
            except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
                raise WhatifError(
                    f"-M depth={self.folder}: this checkpoint is not a depth-estimation model "
                    f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}).") \
                    from None
            self._loaded = (processor, model.eval())
        return self._loaded

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """The median depth of each request's image."""
        import torch

        from whatifbench.core.images import open_image

        processor, model = self.load()
        for i, request in enumerate(requests):
            with open_image(request.images[0]) as img:
                image = img.convert("RGB")
            inputs = processor(images=image, return_tensors="pt")
            with torch.inference_mode():
                outputs = model(**inputs)
            depth = processor.post_process_depth_estimation(
                outputs, target_sizes=[(image.height, image.width)])[0]["predicted_depth"]
            yield i, Response(meta={"depth": round(float(depth.median()), 6)})


class Depth:
    """``compute_depth``: the median depth of a patch."""

    def __init__(self, model: DepthModel, calls: ModelCalls) -> None:
        self.model = model
        self.calls = calls

    def median(self, ctx: ItemContext, view: View) -> float:
        """The median predicted depth over the patch."""
        request = Request(item_id=f"{ctx.item.id}#depth", turns=(Turn("user", (
            Part(image=ctx.crop_path(view)),)),), item=ctx.item)
        response = self.calls.one(self.model, request)
        if response.error is not None:
            raise ToolOutage(f"the depth model failed: {response.error}")
        return float(response.meta["depth"])
