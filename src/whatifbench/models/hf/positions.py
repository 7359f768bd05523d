"""Position ids for left-padded batches, per architecture.

A forward pass without ``position_ids`` numbers the tokens of every row 0, 1, ... from the first
column, which is wrong for the rows of a left-padded batch. Batched ranking therefore gives each
row its own positions, counted from its first real token, the way each architecture numbers
them:

- ``zero``: rotary positions from 0 (LLaVA, LLaVA-NeXT, Idefics3: Llama/Mistral language models);
- ``one``: PaliGemma numbers its tokens from 1;
- ``mrope``: Qwen2-VL's and Qwen2.5-VL's multimodal rotary positions (temporal, height, width)
  for the prompt, which the model derives from the attention mask itself; the tokens after the
  prompt continue from its largest position (``rope_deltas``);
- ``mask``: BLIP-2 with an OPT language model, whose learned positions come from the attention
  mask (nothing to pass).

Architectures not listed rank one item at a time (``family`` returns ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FAMILIES = {"llava": "zero", "llava_next": "zero", "idefics3": "zero", "paligemma": "one",
            "qwen2_vl": "mrope", "qwen2_5_vl": "mrope"}
"""Model types whose items are ranked in batches, and how they number positions."""


def family(model_type: str, config: Any) -> str | None:
    """The position family of a checkpoint, or ``None`` when it is not batched."""
    if model_type == "blip-2":
        text = getattr(config, "text_config", None)
        return "mask" if getattr(text, "model_type", None) == "opt" else None
    return FAMILIES.get(model_type)


@dataclass(frozen=True)
class Positions:
    """How one batch's rows are numbered."""

    family: str
    """``zero``, ``one``, ``mrope`` or ``mask`` (see the module docstring)."""

    @classmethod
    def of(cls, name: str, inputs: dict[str, Any]) -> Positions:
        """The family for a batch: Qwen prompts without images are plain text (``zero``)."""
        if name == "mrope" and "image_grid_thw" not in inputs:
            return cls("zero")
        return cls(name)

    def prompt(self, mask: Any) -> dict[str, Any]:
        """Keyword arguments giving the positions of a left-padded prompt batch."""
        if self.family == "zero":
            return {"position_ids": (mask.long().cumsum(-1) - 1).clamp(min=0)}
        if self.family == "one":
            return {"position_ids": mask.long().cumsum(-1).clamp(min=1)}
        return {}

    def following(self, model: Any, mask: Any, rows: Any, width: int) -> dict[str, Any]:
        """Keyword arguments giving the positions of ``width`` tokens that follow the prompts
        of the batch rows ``rows`` (one output row per entry; entries may repeat)."""
        import torch

        start = mask.long().sum(-1).index_select(0, rows)  # real tokens of each prompt
        if self.family == "mask":
            return {}
        if self.family == "one":
            start = start + 1
        if self.family == "mrope":
            deltas = getattr(getattr(model, "model", model), "rope_deltas", None)
            if deltas is None:
                raise RuntimeError(f"{type(model).__name__} kept no rope_deltas after encoding "
                                   "the prompts")
            start = start + deltas.to(start.device).reshape(-1).index_select(0, rows)
        positions = start[:, None] + torch.arange(width, device=start.device)[None, :]
        if self.family == "mrope":
            positions = positions[None].expand(3, -1, -1)
        return {"position_ids": positions}
