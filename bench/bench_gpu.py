"""Throughput at real size on an accelerator: whatif vs a bare transformers loop vs lmms-eval,
the fast decoding path vs eager generate, and decode speed against the memory bandwidth.

One command. It builds random-weight models at real size from configurations written in code
(``gpu_models.py``: LLaVA-1.5-7B and Qwen2-VL-7B, bf16, nothing from a hub), generates a
C-VQA-Synthetic suite (``--pairs``, default 200) and takes ``--limit`` of its items (whole pairs
from every template; default 128; ``--limit 0`` takes them all), written as their own dataset so
that every tool sees the same items. Then, per model, in this order (a ``--budget`` in seconds
skips the runs that would start after it, and says so):

- per answer mode (rank, generate) and batch size (``--batches``, default 1, 8, 32):
  **whatif**, the model phase of ``whatif run`` (``runner.evaluate``: requests, the run store,
  batching, prefetching, extraction, scoring, metrics) with ``-M batch_size=B`` and a fresh store
  each time; and **bare**, a bare transformers loop doing the same forward passes on the same
  batches serially (the processor's tensors, one forward pass per batch reading each option
  letter's log-probability in rank mode, eager ``model.generate`` and a decode in generate mode),
  in ``--rounds`` interleaved rounds each represented by its fastest (default 1; 5 with
  ``--tiny``, whose runs last a second or two on a CPU shared with other work);
- **fast vs eager** at the largest batch: whatif's generation with ``-M fast_decode=false`` and
  with the fast path (on CUDA the whatif run itself; on a CPU ``fast_decode=true``, or
  ``--fast-decode compile``), outputs compared;
- **decode rate** (``gpu_decode.py``, ``--decode-tokens``): new tokens/s of the decode steps of
  one batch, eager and fast, against the bound the memory bandwidth sets;
- **release decoding**: C-VQA's paper protocol (``--prompt paper``: the release's prompt, 512 new
  tokens sampled per item from its own seed; LLaVA: temperature 0.2) on ``--release-items``
  items, in items/s and new tokens/s;
- **lmms-eval** (LLaVA, generate; when lmms_eval is importable): our exported task
  (``whatif export --format lmms-eval``) run in-process by ``lmms_eval.evaluator`` with its
  ``llava_hf`` model at each batch size it accepts (its generation takes batch 1 only), timed
  without its model loading. Its rank path is not compared: lmms-eval's ``loglikelihood``
  builds its own context, so its scores are not of our prompts.

It prints items/s per run with its peak GPU memory, the ratios, and whether the outputs (chosen
options; generated text) are identical across batch sizes, tools and decoding paths (how many
items differ where not). ``--json`` writes every figure with the card and library versions. A
run that fails is reported and the rest go on. Each model is warmed up first (every generate
batch size once, so compilation is not timed).

Run on a CUDA machine:  python bench/bench_gpu.py [--models llava,qwen2_vl] [--json FILE]
Run here (tiny models): python bench/bench_gpu.py --device cpu --tiny
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_decode
import gpu_models
import gpu_report
from gpu_loops import bare, lmms_runs, ours, release_name, requests_for

MODES = gpu_report.MODES


@dataclass
class Timing:
    """One timed run."""

    model: str
    """``llava`` or ``qwen2_vl``."""
    tool: str
    """``whatif``, ``bare``, ``lmms-eval``, ``whatif-eager``, ``whatif-fast`` or
    ``whatif-release``."""
    mode: str
    """``rank`` or ``generate``."""
    batch: int
    """Batch size."""
    items: int
    """Items answered."""
    seconds: float
    """Wall-clock time of the model phase."""
    peak_gb: float | None
    """Peak accelerator memory during the run (None on a CPU)."""
    tokens: int | None = None
    """New tokens generated (whatif generation runs)."""

    @property
    def key(self) -> tuple[str, str, str, int]:
        """(model, tool, mode, batch)."""
        return self.model, self.tool, self.mode, self.batch

    @property
    def rate(self) -> float:
        """Items per second."""
        return self.items / self.seconds if self.seconds else math.inf


class Bench:
    """The runs of one invocation, their outputs and the time budget."""

    def __init__(self, opts: argparse.Namespace, root: Path) -> None:
        self.opts = opts
        self.root = root
        self.started = time.monotonic()
        self.timings: list[Timing] = []
        self.outputs: dict[tuple[str, str, str, int], dict[str, Any]] = {}
        self.skipped: list[str] = []
        self.failed: list[tuple[str, str]] = []
        self.decode: dict[str, dict[str, Any]] = {}
        self.release_names: dict[str, str] = {}
        self.deadline = self.started + opts.budget
        self.cuda = opts.device.startswith("cuda")
        self.whatif_args = {} if opts.fast_decode == "auto" else {"fast_decode": opts.fast_decode}
        if opts.prefetch is not None:
            self.whatif_args["prefetch"] = opts.prefetch
        self.fast_args = {**self.whatif_args, "fast_decode": opts.fast_decode
                          if opts.fast_decode != "auto" else ("auto" if self.cuda else "true")}
        self.whatif_is_fast = self.cuda and opts.fast_decode in ("auto", "true", "compile")
        """The whatif runs decode on the fast path (then they are its side of fast vs eager)."""

    def left(self) -> float:
        """Seconds left to the current model (each model gets an equal share of the budget,
        plus what the models before it left)."""
        return self.deadline - time.monotonic()

    def timed(self, key: tuple[str, str, str, int], n: int | None,
              work: Callable[[], dict[str, Any]], tokens: list[int] | None = None,
              refusals: tuple[type[Exception], ...] = ()) -> None:
        """Run ``work`` (returning item id -> output), timed, unless the budget is spent; ``n``
        items (``None``: as many as ``work`` answers); ``tokens`` collects new-token counts.
        A failed run is reported and the bench goes on; ``refusals`` are raised to the caller
        (a tool that does not take a setting)."""
        name = "/".join(map(str, key))
        if self.left() <= 0:
            self.skipped.append(name)
            return
        import torch

        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        try:
            out = work()
        except refusals:
            raise
        except Exception as exc:  # noqa: BLE001  (reported; the other runs go on)
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            self.failed.append((name, why))
            print(f"  {key[1]:14s} {key[2]:8s} batch {key[3]:3d}: FAILED ({why})", flush=True)
            return
        if self.cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        peak = torch.cuda.max_memory_allocated() / 2**30 if self.cuda else None
        count = len(out) if n is None else n
        timing = Timing(*key, count, seconds, peak, sum(tokens) if tokens is not None else None)
        print(f"  {key[1]:14s} {key[2]:8s} batch {key[3]:3d}: {count / seconds:8.2f} items/s "
              f"({seconds:.1f} s{'' if peak is None else f', peak {peak:.1f} GiB'})", flush=True)
        earlier = next((t for t in self.timings if t.key == key), None)
        if earlier is None:
            self.timings.append(timing)
            self.outputs[key] = out
            return
        # Another round of the same run: its fastest round stands for it (other processes on a
        # shared machine disturb that one least); its outputs must not change.
        if out != self.outputs[key]:
            self.failed.append((name, "the outputs differ between rounds"))
        if seconds < earlier.seconds:
            earlier.seconds, earlier.tokens = seconds, timing.tokens
        if peak is not None:
            earlier.peak_gb = max(peak, earlier.peak_gb or 0.0)


def make_items(root: Path, pairs: int, limit: int) -> Path:
    """A C-VQA-Synthetic suite of ``pairs`` pairs, and the dataset of the items evaluated."""
    from whatifbench.core.dataset import DatasetWriter, load_dataset
    from whatifbench.core.registry import lookup
    from whatifbench.runner.requests import select_items

    full = root / "suite"
    lookup("generator", "cvqa-synthetic").obj.generate(full, seed=0,
                                                       per_template=math.ceil(pairs / 6))
    dataset = load_dataset(full)
    items = select_items(dataset.items, limit or None, None, 0)
    out = root / "items"
    with DatasetWriter(out) as writer:
        for rel in sorted({path for item in items for path in item.images}):
            writer.add_image(rel.split("/", 1)[1], dataset.image_path(rel).read_bytes())
        writer.add_items(items)
        card = dataset.card
        writer.finish(name=card.name, suite=card.suite, version=card.version,
                      generator={**card.generator, "bench_selection": len(items)},
                      seed=card.seed)
    return out


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def environment(opts: argparse.Namespace) -> dict[str, Any]:
    """The card and library versions the figures hold for."""
    import torch
    import transformers

    cuda = opts.device.startswith("cuda")
    return {"device": torch.cuda.get_device_name(0) if cuda else "cpu", "cpu": cpu_model(),
            "cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "torch": torch.__version__, "transformers": transformers.__version__,
            "python": platform.python_version(), "size": "tiny" if opts.tiny else "real",
            "dtype": opts.dtype, "fast_decode": opts.fast_decode, "rounds": opts.rounds}


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--tiny", action="store_true", help="tiny models (for a CPU check)")
    parser.add_argument("--models", default=",".join(gpu_models.ARCHS),
                        help="comma-separated: llava, qwen2_vl")
    parser.add_argument("--pairs", type=int, default=200, help="pairs generated (default 200)")
    parser.add_argument("--limit", type=int, default=128,
                        help="items evaluated, whole pairs from every template (default 128; "
                             "0: all)")
    parser.add_argument("--batches", default="1,8,32", help="batch sizes (default 1,8,32)")
    parser.add_argument("--max-new-tokens", type=int, default=16,
                        help="generation budget per item (default 16)")
    parser.add_argument("--dtype", default=None, help="bfloat16 on CUDA, float32 on a CPU")
    parser.add_argument("--fast-decode", choices=("auto", "true", "false", "compile"),
                        default="auto", help="-M fast_decode of the whatif runs (default auto: "
                        "on CUDA); the fast-vs-eager comparison forces it on a CPU")
    parser.add_argument("--prefetch", type=int, default=None,
                        help="-M prefetch of the whatif runs (default: the backend's)")
    parser.add_argument("--decode-tokens", type=int, default=64,
                        help="new tokens of the decode-rate measurement (default 64; 0 skips "
                             "it)")
    parser.add_argument("--release-items", type=int, default=4,
                        help="items generated with C-VQA's release decoding (default 4; 0 "
                             "skips it)")
    parser.add_argument("--release-tokens", type=int, default=None,
                        help="new tokens of the release decoding (default: the release's 512)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="interleaved rounds of each whatif/bare pair, the fastest kept "
                             "(default 1; 5 with --tiny, whose runs last a second or two)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: "
                        "torch's own; 1 with --tiny on a CPU, where intra-op threads gain "
                        "nothing and make a shared machine's figures swing)")
    parser.add_argument("--lmms-eval", dest="lmms", action=argparse.BooleanOptionalAction,
                        default=True, help="also run lmms-eval when it is importable")
    parser.add_argument("--budget", type=float, default=480.0,
                        help="seconds; runs that would start after it are skipped (default "
                             "480), shared equally by the models")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    opts = parser.parse_args(argv)
    opts.models = [m.strip() for m in opts.models.split(",") if m.strip()]
    unknown = sorted(set(opts.models) - set(gpu_models.ARCHS))
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; use {', '.join(gpu_models.ARCHS)}")
    opts.batches = sorted({int(b) for b in opts.batches.split(",")})
    if opts.batches[0] < 1:
        parser.error("--batches takes positive integers")
    opts.dtype = opts.dtype or ("float32" if opts.device == "cpu" else "bfloat16")
    if opts.threads is None and opts.tiny and opts.device == "cpu":
        opts.threads = 1
    opts.rounds = max(1, opts.rounds or (5 if opts.tiny else 1))
    return opts


def run_model(bench: Bench, arch: str, items: Path, data: Any) -> None:
    """Every run of one model, in order of importance (the budget cuts the last ones)."""
    import torch

    from whatifbench.core.dataset import load_dataset
    from whatifbench.models.hf.inputs import build_prompt

    opts, root = bench.opts, bench.root
    loaded = gpu_models.build(arch, root / arch, "tiny" if opts.tiny else "real", opts.device,
                              opts.dtype)
    print(f"\n{arch}: {gpu_models.parameters(loaded) / 1e6:,.1f}M parameters", flush=True)
    n, tokens, top = len(data.items), opts.max_new_tokens, opts.batches[-1]
    store = iter(root / f"store-{arch}-{k}.sqlite" for k in range(10**6))
    for mode in MODES:
        requests = requests_for(loaded, data, mode, tokens)
        # Warm-up: every batch size of generation once (the fast path compiles its step per
        # shape family), the largest of ranking.
        for size in (opts.batches if mode == "generate" else [top]):
            if bench.left() > 0:
                try:
                    ours(loaded, load_dataset(items), mode, size, tokens, next(store),
                         bench.whatif_args, limit=max(2, size) if mode == "generate" else None)
                except Exception as exc:  # noqa: BLE001  (reported; the timed run says more)
                    bench.failed.append((f"{arch}/warm-up/{mode}/{size}",
                                         f"{type(exc).__name__}: {exc}"))
        for size in opts.batches:
            for _ in range(opts.rounds):  # interleaved: both see the same machine
                bench.timed((arch, "whatif", mode, size), n, partial(
                    ours, loaded, data, mode, size, tokens, next(store), bench.whatif_args))
                bench.timed((arch, "bare", mode, size), n,
                            partial(bare, loaded, data, mode, size, requests))
    bench.timed((arch, "whatif-eager", "generate", top), n, partial(
        ours, loaded, data, "generate", top, tokens, next(store),
        {**bench.whatif_args, "fast_decode": False}))
    if not bench.whatif_is_fast:
        bench.timed((arch, "whatif-fast", "generate", top), n, partial(
            ours, loaded, data, "generate", top, tokens, next(store), bench.fast_args))
    if opts.decode_tokens and bench.left() > 0:
        prompts = [build_prompt(loaded, r, f"hf:{loaded.folder}")
                   for r in requests_for(loaded, data, "generate", tokens)[:top]]
        compiled = bench.cuda or opts.fast_decode == "compile"
        try:
            bench.decode[arch] = gpu_decode.decode_rates(
                loaded, prompts, opts.decode_tokens, "compiled" if compiled else "static",
                environment(opts)["device"], opts.device)
            print("  " + gpu_decode.describe(arch, bench.decode[arch]), flush=True)
        except Exception as exc:  # noqa: BLE001  (reported; the other runs go on)
            bench.failed.append((f"{arch}/decode-rate", f"{type(exc).__name__}: {exc}"))
    if opts.release_items:
        bench.release_names[arch] = release_name(loaded, data, opts.release_tokens)
        counts: list[int] = []
        bench.timed((arch, "whatif-release", "generate", 1), None, partial(
            ours, loaded, data, "generate", 1, opts.release_tokens, next(store),
            bench.whatif_args, "paper", opts.release_items, counts), counts)
    if arch == "llava" and opts.lmms:
        if importlib.util.find_spec("lmms_eval") is None:
            print("  lmms-eval is not installed here: its runs are left out.")
        else:
            lmms_runs(bench, loaded, items, n, tokens)
    from whatifbench.models.hf.fast_decode import release

    release(loaded)
    del loaded
    gc.collect()
    if bench.cuda:
        torch.cuda.empty_cache()


def main(argv: Sequence[str] | None = None) -> int:
    opts = parse(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    from whatifbench.core.dataset import load_dataset

    if opts.device.startswith("cuda") and not torch.cuda.is_available():
        print("No CUDA device here; run with --device cpu --tiny for a CPU check.",
              file=sys.stderr)
        return 2
    threads = torch.get_num_threads()
    if opts.threads:
        torch.set_num_threads(opts.threads)
    try:
        env = environment(opts)
        print(" | ".join(f"{k} {v}" for k, v in env.items()), flush=True)
        with tempfile.TemporaryDirectory(prefix="bench-gpu-") as tmp:
            # lmms-eval loads our export through datasets, whose cache can serve rows of an
            # earlier export with the same file names: a cache of this run's own.
            os.environ["HF_DATASETS_CACHE"] = str(Path(tmp) / "hf-datasets")
            bench = Bench(opts, Path(tmp))
            items = make_items(bench.root, opts.pairs, opts.limit)
            data = load_dataset(items)
            print(f"{len(data.items)} items ({opts.pairs} pairs generated)", flush=True)
            for k, arch in enumerate(opts.models):
                bench.deadline = bench.started + opts.budget * (k + 1) / len(opts.models)
                run_model(bench, arch, items, data)
            figures = gpu_report.report(bench)
    finally:
        torch.set_num_threads(threads)  # main() may run inside another program (a test)
    if opts.json:
        opts.json.write_text(json.dumps({"environment": env, **figures}, indent=1))
    return 0

if __name__ == "__main__":
    sys.exit(main())
