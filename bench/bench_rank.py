"""Cost of likelihood ranking with the hf: backend, relative to one forward pass of the prompt.

Builds a random-weight LLaVA (CLIP vision + Llama text, about 54M parameters) offline, poses one
item whose prompt is over 400 tokens (256 image tokens + text) and times, on the same inputs:

- one forward pass over image + prompt (the baseline),
- ranking 4 multi-token candidates from one encoding of the prompt (``rank_method=cache``),
- the naive way, one full forward pass per candidate (``rank_method=separate``).

The three are timed in interleaved rounds and each is represented by its fastest round, so that
other processes on a shared machine disturb the ratios as little as possible. Prints the times
and the two ratios (target: ranking <= 1.6x the forward pass).
Run: PYTHONPATH=src python bench/bench_rank.py [--rounds N]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

QUESTION = (
    "Look carefully at every part of the picture before answering. The image shows a garden "
    "scene with several groups of flowers of different colours, some small dots scattered "
    "across the background and a few polygons near the edges. Count only the red flowers that "
    "are fully visible, ignoring flowers that are cut off by the border of the image, dots, "
    "polygons and any flowers of another colour. If two of the red flowers were removed from "
    "the garden, how many red flowers would remain in the image? A: 3 B: 4 C: 5 D: 6"
)
CANDIDATES = ("three red flowers remain", "four red flowers remain",
              "five red flowers remain", "six red flowers remain")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    opts = parser.parse_args()

    import torch
    from PIL import Image
    from tiny_models import build_bench_llava

    from whatifbench.core.requests import Part, Request, Turn
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.models.hf.inputs import build_prompt, encode
    from whatifbench.models.hf.ranking import candidate_ids, score_cached, score_separately

    with tempfile.TemporaryDirectory() as tmp:
        folder = build_bench_llava(Path(tmp) / "llava")
        image = Path(tmp) / "scene.png"
        buf = io.BytesIO()
        Image.effect_mandelbrot((320, 240), (-2.0, -1.2, 1.0, 1.2), 60).convert("RGB").save(
            buf, format="PNG")
        image.write_bytes(buf.getvalue())
        backend = HFBackend(f"hf:{folder}", {"device": "cpu"})
        loaded = backend.loaded
        request = Request("bench", (Turn("user", (Part(image=str(image)),
                                                  Part(text=QUESTION))),),
                          candidates=CANDIDATES)
        prompt = build_prompt(loaded, request, backend.spec)
        inputs = encode(loaded, [prompt])
        params = sum(p.numel() for p in loaded.model.parameters())
        lengths = [len(t) for t in candidate_ids(loaded, prompt, request)]

        def forward() -> None:
            with torch.inference_mode():
                loaded.model(**inputs, use_cache=False)

        methods: dict[str, Callable[[], object]] = {
            "forward": forward,
            "cached": lambda: score_cached(loaded, prompt, request),
            "naive": lambda: score_separately(loaded, prompt, request),
        }
        cached = score_cached(loaded, prompt, request)  # also the warm-up
        separate = score_separately(loaded, prompt, request)
        assert cached.scores is not None and separate.scores is not None
        gap = max(abs(a - b) for a, b in zip(cached.scores, separate.scores, strict=True))
        times: dict[str, list[float]] = {name: [] for name in methods}
        for _ in range(opts.rounds):
            for name, fn in methods.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        t_forward, t_cached, t_naive = (min(times[n]) for n in ("forward", "cached", "naive"))
        spread = statistics.median(times["forward"]) / t_forward

    print(f"model: random LLaVA, {params / 1e6:.1f}M parameters, torch "
          f"{torch.__version__}, {torch.get_num_threads()} threads")
    print(f"prompt: {inputs['input_ids'].shape[1]} tokens (256 image tokens); "
          f"4 candidates of {lengths} tokens; max |cached - separate| = {gap:.2e}")
    print(f"fastest of {opts.rounds} interleaved rounds (median/fastest forward: {spread:.2f})")
    print(f"one forward pass of the prompt:       {t_forward * 1000:8.1f} ms  (1.00x)")
    print(f"ranking, shared prompt encoding:      {t_cached * 1000:8.1f} ms  "
          f"({t_cached / t_forward:.2f}x)  target <= 1.6x: "
          f"{'met' if t_cached / t_forward <= 1.6 else 'MISSED'}")
    print(f"ranking, one forward per candidate:   {t_naive * 1000:8.1f} ms  "
          f"({t_naive / t_forward:.2f}x)")


if __name__ == "__main__":
    main()
