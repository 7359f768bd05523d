"""The ``hf:PATH`` backend: a local transformers image-text-to-text checkpoint."""

from __future__ import annotations

import gc
import importlib.metadata
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.models.base import Backend
from whatifbench.models.hf.fingerprint import folder_fingerprint
from whatifbench.models.hf.loading import (
    DEFAULT_BATCH,
    SINGLE_IMAGE_TYPES,
    HFOptions,
    Loaded,
    checkpoint_folder,
    is_text_only,
    load,
    require_hf,
)


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


IMAGE_REQUIRED_TYPES = frozenset({"paligemma", "blip-2", "instructblip"})
"""Model types whose generation needs pixel values: ``--image-ablation none`` is refused."""


@register("backend", "hf", "a local transformers vision-language checkpoint (or a text-only "
          "causal LM, e.g. a code LLM): hf:PATH")
class HFBackend(Backend):
    """A local transformers checkpoint (``hf:PATH``), loaded on first use: an image-text-to-text
    model, or a text-only causal language model (``...ForCausalLM`` without vision config)."""

    name_arg_required = True
    arg_names = frozenset(HFOptions.__dataclass_fields__)
    execution_args = frozenset({"prefetch"})
    uses_gpu = True

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        super().__init__(spec, args)
        require_hf()
        self.options = HFOptions.from_args(spec, self.args)
        self.folder, config = checkpoint_folder(spec)
        self.model_type = str(config.get("model_type", ""))
        self.text_only = is_text_only(config)
        text_config = config.get("text_config")
        self.text_model_type = str(text_config.get("model_type", "")
                                   if isinstance(text_config, dict) else "")
        multi = self.options.multi_image
        if multi is None:
            multi = self.model_type not in SINGLE_IMAGE_TYPES and not self.text_only
        self.capabilities = Capabilities(generate=True, rank=True, multi_image=multi)
        self._version = "-".join([
            folder_fingerprint(self.folder)[:20],
            f"transformers{_package_version('transformers')}",
            f"torch{_package_version('torch')}",
        ])
        self._loaded: Loaded | None = None
        self._streams: weakref.WeakSet[Iterator[tuple[int, Response]]] = weakref.WeakSet()

    def needs_image(self) -> str | None:
        """PaliGemma and the BLIP-2 family compute every answer from image features."""
        if self.model_type in IMAGE_REQUIRED_TYPES:
            return (f"a {self.model_type} checkpoint computes every answer from image "
                    "features and cannot be asked without an image")
        return None

    @property
    def version(self) -> str:
        """Checkpoint fingerprint (config, tokenizer, template, weights) + library versions."""
        return self._version

    @property
    def loaded(self) -> Loaded:
        """The model and processor, loaded on first use."""
        if self._loaded is None:
            self._loaded = load(self.spec, self.folder, self.model_type, self.options,
                                self.text_only)
        return self._loaded

    def load(self) -> None:
        """Read the weights now (before the runner's progress bar starts)."""
        self.loaded  # noqa: B018  (the property loads them)

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Replies decoded as each request's decoding record says (greedy without one), batched
        (``-M batch_size``) with left padding, the next batches' inputs prepared while the model
        runs (``-M prefetch``), from a static KV cache where ``-M fast_decode`` says; a sampled
        request is generated alone, from its own seed."""
        from whatifbench.models.hf.fast_decode import auto_batch_size, decoder, fast_mode
        from whatifbench.models.hf.generation import (
            GREEDY,
            batches,
            generate_batch,
            prepare_batch,
        )
        from whatifbench.models.hf.inputs import build_prompt
        from whatifbench.models.hf.pipeline import pipelined

        if not requests:
            return
        loaded = self.loaded
        prompts = [build_prompt(loaded, r, self.spec) for r in requests]
        budgets = [r.max_new_tokens for r in requests]
        decodings = [r.decoding or GREEDY for r in requests]
        mode = fast_mode(loaded, self.options, self.spec)
        fast = decoder(loaded, mode == "compiled") if mode is not None else None
        size = self.options.batch_size
        if size is None:
            size = DEFAULT_BATCH
            if fast is not None and loaded.device.type == "cuda":
                longest = max(range(len(prompts)), key=lambda i: len(prompts[i].text))
                tokens = int(prepare_batch(loaded, [prompts[longest]])["input_ids"].shape[1])
                size = auto_batch_size(loaded, tokens, max(budgets))

        def run(members: list[int], ready: dict[str, Any]) -> list[tuple[int, Response]]:
            replies = generate_batch(loaded, [prompts[i] for i in members], budgets[members[0]],
                                     decodings[members[0]], ready, fast)
            return list(zip(members, replies, strict=True))

        def prepare(members: list[int]) -> dict[str, Any]:  # in the prefetching thread
            return prepare_batch(loaded, [prompts[i] for i in members])

        jobs = list(batches(prompts, budgets, size, decodings))
        yield from self._track(pipelined(jobs, prepare, run, self.options.prefetch))

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Summed and mean log-probabilities of each request's candidates; ``-M batch_size``
        items are ranked together (``rank_method=cache``), the next batches' inputs prepared
        while the model runs (``-M prefetch``)."""
        from whatifbench.models.hf.inputs import build_prompt
        from whatifbench.models.hf.pipeline import pipelined
        from whatifbench.models.hf.ranking import (
            Prepared,
            prepare_scores,
            rank_batches,
            score_batch,
            score_separately,
        )

        if not requests:
            return
        loaded = self.loaded
        prompts = [build_prompt(loaded, r, self.spec, self.options.candidate_space)
                   for r in requests]
        if self.options.rank_method == "separate":
            for i, request in enumerate(requests):
                yield i, score_separately(loaded, prompts[i], request)
            return

        def prepare(members: list[int]) -> Prepared:  # in the prefetching thread
            return prepare_scores(loaded, [prompts[i] for i in members],
                                  [requests[i] for i in members])

        def run(members: list[int], ready: Prepared) -> list[tuple[int, Response]]:
            responses = score_batch(loaded, [prompts[i] for i in members],
                                    [requests[i] for i in members], ready)
            return list(zip(members, responses, strict=True))

        jobs = list(rank_batches(loaded, prompts, self.options.batch_size or DEFAULT_BATCH))
        yield from self._track(pipelined(jobs, prepare, run, self.options.prefetch))

    def _track(self, stream: Iterator[tuple[int, Response]]) -> Iterator[tuple[int, Response]]:
        """``stream``, closed by ``close()`` if it is still open then (its thread ends)."""
        self._streams.add(stream)
        return stream

    def close(self) -> None:
        """Stop unfinished generations (their prefetching threads end), drop the model, its
        static caches and free accelerator memory."""
        for stream in list(self._streams):
            stream.close()  # type: ignore[attr-defined]
        self._streams.clear()
        if self._loaded is None:
            return
        from whatifbench.models.hf.fast_decode import release

        device = self._loaded.device
        release(self._loaded)
        self._loaded = None
        gc.collect()
        if getattr(device, "type", "") == "cuda":
            import torch

            torch.cuda.empty_cache()
