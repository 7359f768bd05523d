"""The ViperGPT-style API as programs see it inside the sandbox worker.

Loaded by ``worker.py`` from its file (it imports nothing from whatifbench). Every perception
method is a tool call proxied to the parent process, which holds the image and the models;
``ImagePatch`` objects here only carry a reference and the box. Coordinates are pixels with the
origin at the bottom-left corner of the image (``lower`` < ``upper``), as in ViperGPT.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]
ALIASES = {"possible_answers": "options", "choices": "options", "query": "question",
           "image_list": "images", "image_dict": "images"}
"""Other parameter names of ``execute_command`` that receive our arguments."""


def names(call: Call) -> dict[str, Any]:
    """The names a program can use."""

    class ImagePatch:
        """A region of the image: ``left``, ``lower``, ``right``, ``upper``, ``width``,
        ``height``, ``horizontal_center``, ``vertical_center``."""

        def __init__(self, image: Any, left: Any = None, lower: Any = None, right: Any = None,
                     upper: Any = None) -> None:
            if isinstance(image, dict):
                self._load(image)
                return
            if not isinstance(image, ImagePatch):
                raise TypeError("ImagePatch(image, left, lower, right, upper) takes an "
                                "ImagePatch as its first argument")
            if left is None and lower is None and right is None and upper is None:
                self._load(image._desc)
            else:
                self._load(call("crop", image._ref, left, lower, right, upper))

        def _load(self, desc: dict[str, Any]) -> None:
            self._desc = desc
            self._ref = desc["ref"]
            self.left = desc["left"]
            self.lower = desc["lower"]
            self.right = desc["right"]
            self.upper = desc["upper"]
            self.width = self.right - self.left
            self.height = self.upper - self.lower
            self.horizontal_center = (self.left + self.right) / 2
            self.vertical_center = (self.lower + self.upper) / 2

        def __eq__(self, other: object) -> bool:
            return isinstance(other, ImagePatch) and other._ref == self._ref

        def __hash__(self) -> int:
            return hash(self._ref)

        def __repr__(self) -> str:
            return (f"ImagePatch(left={self.left}, lower={self.lower}, right={self.right}, "
                    f"upper={self.upper})")

        def find(self, object_name: str) -> list[Any]:
            """Patches of every ``object_name`` found in this patch."""
            return [ImagePatch(d) for d in call("find", self._ref, str(object_name))]

        def exists(self, object_name: str) -> bool:
            """True when ``object_name`` is in this patch."""
            return bool(call("exists", self._ref, str(object_name)))

        def verify_property(self, object_name: str, attribute: str) -> bool:
            """True when the ``object_name`` in this patch has ``attribute``."""
            return bool(call("verify_property", self._ref, str(object_name), str(attribute)))

        def best_text_match(self, option_list: list[str]) -> str:
            """The option that best describes this patch."""
            return str(call("best_text_match", self._ref, [str(o) for o in option_list]))

        def simple_query(self, question: str) -> str:
            """A visual question answering model's short answer about this patch."""
            return str(call("simple_query", self._ref, str(question)))

        def compute_depth(self) -> float:
            """Median depth of this patch (larger is farther)."""
            return float(call("compute_depth", self._ref))

        def crop(self, left: float, lower: float, right: float, upper: float) -> Any:
            """A new patch (coordinates relative to the whole image)."""
            return ImagePatch(call("crop", self._ref, left, lower, right, upper))

        def overlaps_with(self, left: float, lower: float, right: float, upper: float) -> bool:
            """True when this patch overlaps the box."""
            return (self.left <= right and self.right >= left and self.lower <= upper
                    and self.upper >= lower)

        def contains(self, patch: Any) -> bool:
            """True when ``patch`` lies inside this one (inside an outlined region such as a
            polygon or circle, as far as the perception tools can tell)."""
            if not isinstance(patch, ImagePatch):
                raise TypeError("contains() takes an ImagePatch")
            return bool(call("contains", self._ref, patch._ref))

    def llm_query(question: str, long_answer: bool = False) -> str:
        """A language model's answer to a question that needs world knowledge, not the image."""
        return str(call("llm_query", str(question), bool(long_answer)))

    def distance(patch_a: Any, patch_b: Any) -> float:
        """Distance between the boxes of two patches (0 when they overlap)."""
        dx = max(patch_b.left - patch_a.right, patch_a.left - patch_b.right, 0)
        dy = max(patch_b.lower - patch_a.upper, patch_a.lower - patch_b.upper, 0)
        return math.hypot(dx, dy)

    def bool_to_yesno(value: Any) -> str:
        """``yes`` or ``no``."""
        return "yes" if value else "no"

    def coerce_to_numeric(text: Any) -> float | None:
        """The first number in ``text`` (``None`` when there is none)."""
        if isinstance(text, (int, float)):
            return text
        found = re.search(r"-?\d+(?:\.\d+)?", str(text))
        return float(found.group(0)) if found else None

    names.patch_class = ImagePatch  # type: ignore[attr-defined]
    return {"ImagePatch": ImagePatch, "llm_query": llm_query, "distance": distance,
            "bool_to_yesno": bool_to_yesno, "coerce_to_numeric": coerce_to_numeric}


def arguments(args: dict[str, Any], call: Call) -> dict[str, Any]:
    """The arguments of ``execute_command``: patches for the image(s), the rest as given."""
    patch = names.patch_class  # type: ignore[attr-defined]
    out = dict(args)
    if isinstance(args.get("image"), dict):
        out["image"] = patch(args["image"])
    if isinstance(args.get("images"), list):
        out["images"] = [patch(d) for d in args["images"]]
    return out


def to_json(value: Any, depth: int = 0) -> Any:
    """The program's value in JSON form (patches become their boxes)."""
    if depth > 20:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v, depth + 1) for k, v in value.items()}
    patch = getattr(names, "patch_class", None)
    if patch is not None and isinstance(value, patch):
        return {"patch": [value.left, value.lower, value.right, value.upper]}
    return str(value)
