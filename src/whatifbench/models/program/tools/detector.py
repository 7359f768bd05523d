"""Detector perception (``-M detector=PATH``): any transformers zero-shot object detector.

The checkpoint folder is loaded with ``AutoProcessor`` and
``AutoModelForZeroShotObjectDetection`` (OWL-ViT, OWLv2, Grounding DINO ...). ``find`` runs
the detector on the patch with the object name as the text query and keeps the boxes scoring at
least ``-M detector_threshold`` (default 0.1), after non-maximum suppression; ``exists`` is a
non-empty ``find``; ``verify_property`` finds ``"<attribute> <name>"``; ``best_text_match`` is
the option the detector scores highest anywhere in the patch (OWL-ViT/OWLv2: the best box score
of each text query); ``contains`` compares boxes (a
detector gives no outlines). Detector calls are model calls: cached in the run store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.hf.fingerprint import folder_fingerprint
from whatifbench.models.hf.loading import require_hf
from whatifbench.models.program.tools.base import (
    ItemContext,
    Perception,
    ToolOutage,
    ToolProblem,
    View,
    as_path,
)
from whatifbench.models.program.tools.calls import ModelCalls

NMS_IOU = 0.5
"""Boxes overlapping a better one by more than this are dropped."""


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def suppress(boxes: list[tuple[float, float, float, float, float]]
             ) -> list[tuple[float, float, float, float, float]]:
    """Non-maximum suppression of ``(x0, y0, x1, y1, score)`` boxes, best first."""
    kept: list[tuple[float, float, float, float, float]] = []
    for box in sorted(boxes, key=lambda b: -b[4]):
        if all(_iou(box, k) <= NMS_IOU for k in kept):
            kept.append(box)
    return kept


class DetectorModel(Backend):
    """A zero-shot detector as a cacheable model: a request is one image and a JSON list of
    text queries; the response's ``meta["detections"]`` lists ``[x0, y0, x1, y1, score,
    query index]`` in the image's pixels."""

    def __init__(self, path: str) -> None:
        require_hf()
        folder = as_path(path)
        if not (folder / "config.json").is_file():
            raise WhatifError(
                f"-M detector={path}: there is no checkpoint folder with a config.json there. "
                "Pass 'oracle' or the folder of a zero-shot object detector (OWL-ViT, OWLv2, "
                "Grounding DINO).")
        super().__init__(f"detector:{folder}", {})
        self.folder = folder
        self._version = folder_fingerprint(folder)[:20]
        self._model: Any = None
        self._processor: Any = None

    @property
    def version(self) -> str:
        """The checkpoint's fingerprint."""
        return self._version

    def load(self) -> None:
        """Load the checkpoint (once); a folder that is not a detector gets one message."""
        if self._model is not None:
            return
        from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor
        from transformers.utils import logging as hf_logging

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        try:
            processor = AutoProcessor.from_pretrained(self.folder, local_files_only=True)
            model = AutoModelForZeroShotObjectDetection.from_pretrained(
                self.folder, local_files_only=True)
        except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise WhatifError(
                f"-M detector={self.folder}: this checkpoint is not a zero-shot object detector "
                f"({first}). Pass a folder that AutoModelForZeroShotObjectDetection loads "
                "(OWL-ViT, OWLv2, Grounding DINO), or 'oracle'.") from None
        finally:
            hf_logging.set_verbosity(verbosity)
        self._processor, self._model = processor, model.eval()

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Detections for each request."""
        self.load()
        for i, request in enumerate(requests):
            try:
                detections, per_query = self._detect(request)
                yield i, Response(meta={"detections": detections, "query_scores": per_query})
            except (RuntimeError, ValueError) as exc:
                yield i, Response(error=f"the detector failed: {exc}")

    def _detect(self, request: Request) -> tuple[list[list[float]], list[float] | None]:
        """Boxes ``[x0, y0, x1, y1, score, query]`` above no threshold, and (OWL-ViT, OWLv2)
        each query's best score over all boxes."""
        import inspect

        import torch

        from whatifbench.core.images import open_image

        queries = json.loads(request.prompt)
        with open_image(request.images[0]) as img:
            image = img.convert("RGB")
        processor, model = self._processor, self._model
        text = getattr(model.config, "text_config", None)
        longest = getattr(text, "max_position_embeddings", None)  # OWL-ViT: 16 tokens
        extra = {"max_length": longest} if isinstance(longest, int) else {}
        inputs = processor(text=[queries], images=image, return_tensors="pt", padding=True,
                           truncation=True, **extra)
        with torch.inference_mode():
            outputs = model(**inputs)
        post = processor.post_process_grounded_object_detection
        params = inspect.signature(post).parameters
        kwargs: dict[str, Any] = {"target_sizes": [(image.height, image.width)]}
        if "text_labels" in params:
            kwargs["text_labels"] = [queries]
        if "input_ids" in params:
            kwargs["input_ids"] = inputs["input_ids"]
        if "threshold" in params:
            kwargs["threshold"] = 0.0
        if "text_threshold" in params:
            kwargs["text_threshold"] = 0.0
        result = post(outputs, **kwargs)[0]
        per_query = None
        logits = getattr(outputs, "logits", None)
        if logits is not None and logits.shape[-1] == len(queries):
            per_query = [round(float(v), 4) for v in logits[0].sigmoid().max(dim=0).values]
        labels = result.get("labels")
        texts = result.get("text_labels")
        out = []
        for k, (box, score) in enumerate(zip(result["boxes"].tolist(),
                                             result["scores"].tolist(), strict=True)):
            if labels is not None and hasattr(labels, "tolist"):
                index = int(labels.tolist()[k])
            elif texts is not None and texts[k] in queries:
                index = queries.index(texts[k])
            else:
                index = 0
            out.append([round(float(v), 2) for v in box] + [round(float(score), 4), index])
        return out, per_query


class DetectorPerception(Perception):
    """Perception by a zero-shot detector."""

    name = "detector"

    def __init__(self, path: str, calls: ModelCalls, threshold: float = 0.1) -> None:
        self.model = DetectorModel(path)
        self.calls = calls
        self.threshold = threshold

    def _call(self, ctx: ItemContext, view: View, queries: list[str]) -> Response:
        request = Request(item_id=f"{ctx.item.id}#detect", turns=(Turn("user", (
            Part(image=ctx.crop_path(view)), Part(text=json.dumps(queries)))),), item=ctx.item)
        response = self.calls.one(self.model, request)
        if response.error is not None:
            raise ToolOutage(response.error)
        return response

    def _detect(self, ctx: ItemContext, view: View, queries: list[str]) -> list[list[float]]:
        x0, y0 = view.box[0], view.box[1]
        return [[d[0] + x0, d[1] + y0, d[2] + x0, d[3] + y0, d[4], d[5]]
                for d in self._call(ctx, view, queries).meta.get("detections", [])]

    def find(self, ctx: ItemContext, view: View, name: str) -> list[View]:
        """Detections of ``name`` in the view (score ≥ threshold, suppressed overlaps)."""
        if not name.strip():
            raise ToolProblem("find() needs an object name")
        found = [(d[0], d[1], d[2], d[3], d[4]) for d in self._detect(ctx, view, [name])
                 if d[4] >= self.threshold]
        width, height = ctx.size(view.image)
        out = []
        for k, (a, b, c, d, _score) in enumerate(suppress(found)):
            box = (max(0.0, a), max(0.0, b), min(float(width), c), min(float(height), d))
            out.append(View(view.image, box, f"det-{name}-{k}-{box}", name))
        return out

    def verify_property(self, ctx: ItemContext, view: View, name: str, attribute: str) -> bool:
        """True when ``"<attribute> <name>"`` is detected in the view."""
        return bool(self.find(ctx, view, f"{attribute} {name}"))

    def best_text_match(self, ctx: ItemContext, view: View, options: Sequence[str]) -> str:
        """The option with the highest detection score in the view."""
        if not options:
            raise ToolProblem("best_text_match() needs a non-empty list of options")
        response = self._call(ctx, view, list(options))
        best = response.meta.get("query_scores")
        if not isinstance(best, list) or len(best) != len(options):
            best = [0.0] * len(options)
            for d in response.meta.get("detections", []):
                index = int(d[5])
                if 0 <= index < len(best):
                    best[index] = max(best[index], d[4])
        return options[max(range(len(options)), key=lambda i: (best[i], -i))]

    def describe(self) -> dict[str, Any]:
        """The checkpoint and threshold."""
        return {"name": "detector", "path": str(self.model.folder),
                "version": self.model.version, "threshold": self.threshold}


def detector_args(args: Mapping[str, Any]) -> float:
    """The detection threshold from ``-M detector_threshold``."""
    value = args.get("detector_threshold", 0.1)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        raise WhatifError(f"-M detector_threshold must be a number from 0 to 1, got {value!r}.")
    return float(value)
