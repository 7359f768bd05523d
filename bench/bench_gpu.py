"""Throughput at real size on an accelerator: whatif vs a bare transformers loop vs lmms-eval.

One command. It builds random-weight models at real size from configurations written in code
(``gpu_models.py``: LLaVA-1.5-7B and Qwen2-VL-7B, bf16, nothing from a hub), generates a
C-VQA-Synthetic suite (``--pairs``, default 500) and takes ``--limit`` of its items (whole pairs
from every template; default 256 items, so that the whole command stays within about 8 minutes
on one H100; ``--limit 0`` takes them all), written as their own dataset so that every tool sees
the same items. Then, per model, answer mode (rank, generate) and batch size (``--batches``,
default 1, 8, 32), on those items:

- **whatif**: the model phase of ``whatif run`` (``runner.evaluate``: requests, the run store,
  batching, extraction, scoring, metrics) with ``-M batch_size=B``, a fresh store each time so
  that nothing comes from a cache;
- **bare**: a bare transformers loop doing the same forward passes on the same batches (the
  processor's tensors, one forward pass per batch reading each option letter's log-probability
  in rank mode, ``model.generate`` and a decode in generate mode): the floor;
- **lmms-eval** (LLaVA, generate; ``--lmms-eval``, when lmms_eval is importable): our exported
  task (``whatif export --format lmms-eval``) run in-process by ``lmms_eval.evaluator`` with its
  ``llava_hf`` model at each batch size it accepts (its generation takes batch 1 only), timed
  without its model loading. Its rank path is not compared: our task is a generation task, and
  lmms-eval's ``loglikelihood`` builds its own context, so its scores are not of our prompts.

It prints items/s per run, whatif / bare per batch size, batch 32 / batch 1 in generate, whatif /
lmms-eval, the peak GPU memory of each run, and whether the outputs (chosen options; generated
text) are identical across batch sizes and tools (how many items differ where not). ``--json``
writes every figure. Each model is timed after a warm-up pass; a ``--budget`` (seconds) skips
what would run past it and says so.

Run on a CUDA machine:  python bench/bench_gpu.py [--models llava,qwen2_vl] [--json FILE]
Run here (tiny models): python bench/bench_gpu.py --device cpu --tiny
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_models

MODES = ("rank", "generate")


@dataclass
class Timing:
    """One timed run."""

    model: str
    """``llava`` or ``qwen2_vl``."""
    tool: str
    """``whatif``, ``bare`` or ``lmms-eval``."""
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

    def left(self) -> float:
        return self.opts.budget - (time.monotonic() - self.started)

    def timed(self, key: tuple[str, str, str, int], n: int,
              work: Callable[[], dict[str, Any]]) -> None:
        """Run ``work`` (returning item id -> output), timed, unless the budget is spent."""
        if self.left() <= 0:
            self.skipped.append("/".join(map(str, key)))
            return
        import torch

        cuda = self.opts.device.startswith("cuda")
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        out = work()
        if cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else None
        self.timings.append(Timing(*key, n, seconds, peak))
        self.outputs[key] = out
        print(f"  {key[1]:9s} {key[2]:8s} batch {key[3]:3d}: {n / seconds:8.2f} items/s "
              f"({seconds:.1f} s{'' if peak is None else f', peak {peak:.1f} GiB'})", flush=True)


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


def ours(loaded: Any, data: Any, mode: str, batch: int, tokens: int,
         store: Path) -> dict[str, Any]:
    """The model phase of ``whatif run``: item id -> chosen option's index (rank) or reply."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.runner.evaluate import RunOptions, evaluate
    from whatifbench.runner.store import RunStore

    backend = HFBackend(f"hf:{loaded.folder}", {"batch_size": batch})
    backend._loaded = loaded
    result = evaluate(data, backend, Protocol(answer_mode=mode, max_new_tokens=tokens),
                      RunStore(store), RunOptions(progress=False))
    if mode == "rank":
        return {s.item_id: None if s.scores is None else s.scores.index(max(s.scores))
                for s in result.samples}
    return {s.item_id: s.response for s in result.samples}


def requests_for(loaded: Any, data: Any, mode: str, tokens: int) -> list[Any]:
    """Our requests for every item (the prompts both loops send), as ``ours`` builds them."""
    from whatifbench.core.protocol import Protocol
    from whatifbench.models.hf.backend import HFBackend
    from whatifbench.runner.evaluate import get_suite, resolve_protocol
    from whatifbench.runner.requests import RequestBuilder

    suite = get_suite(data.suite)
    backend = HFBackend(f"hf:{loaded.folder}", {})
    backend._loaded = loaded
    protocol = resolve_protocol(suite, Protocol(answer_mode=mode, max_new_tokens=tokens),
                                backend)
    builder = RequestBuilder(suite, protocol, data)
    return [builder.build(item) for item in data.items]


def bare(loaded: Any, data: Any, mode: str, batch: int, requests: Sequence[Any]) -> dict[str, Any]:
    """The floor: the same forward passes on the same batches, nothing else."""
    import torch

    from whatifbench.models.hf.generation import batches
    from whatifbench.models.hf.inputs import build_prompt, encode
    from whatifbench.models.hf.positions import Positions, family
    from whatifbench.models.hf.ranking import candidate_ids, rank_batches

    spec = f"hf:{loaded.folder}"
    prompts = [build_prompt(loaded, r, spec) for r in requests]
    model, out = loaded.model, {}
    if mode == "rank":
        ids = [[c[0] for c in candidate_ids(loaded, p, r)] for p, r in zip(prompts, requests,
                                                                              strict=True)]
        name = family(loaded.model_type, model.config) or "zero"
        with torch.inference_mode():
            for group in rank_batches(loaded, prompts, batch):
                inputs = encode(loaded, [prompts[i] for i in group])
                pos = Positions.of(name, inputs).prompt(inputs["attention_mask"])
                logits = model(**inputs, **pos, logits_to_keep=1).logits[:, -1].float()
                for row, i in enumerate(group):
                    scores = logits[row].log_softmax(-1)[ids[i]]
                    out[data.items[i].id] = int(scores.argmax())
        return out
    budgets = [r.max_new_tokens for r in requests]
    pad = loaded.tokenizer.pad_token_id
    eos = model.generation_config.eos_token_id
    stops = set(eos if isinstance(eos, list) else [eos])
    with torch.inference_mode():
        for group in batches(prompts, budgets, batch):
            inputs = encode(loaded, [prompts[i] for i in group])
            new = model.generate(**inputs, max_new_tokens=budgets[group[0]], do_sample=False,
                                 pad_token_id=pad)[:, inputs["input_ids"].shape[1]:].tolist()
            for row, i in zip(new, group, strict=True):
                cut = next((k for k, t in enumerate(row) if t in stops), len(row))
                out[data.items[i].id] = loaded.tokenizer.decode(
                    row[:cut], skip_special_tokens=True).strip()
    return out


def lmms_runs(bench: Bench, loaded: Any, items: Path, n: int, tokens: int) -> None:
    """lmms-eval's llava_hf on our exported task, in-process, at each batch size it takes."""
    from lmms_eval import evaluator
    from lmms_eval.models import get_model
    from lmms_eval.tasks import TaskManager

    from whatifbench.integrations.lmms.export import export_lmms_eval

    task = export_lmms_eval(items, bench.root / "lmms-task")
    folder = gpu_models.save_weights(loaded)
    manager = TaskManager(include_path=str(task.folder))
    for size in bench.opts.batches:
        if bench.left() <= 0:
            bench.skipped.append(f"llava/lmms-eval/generate/{size}")
            continue
        try:
            lm = get_model("llava_hf").create_from_arg_string(
                f"pretrained={folder},device={bench.opts.device},device_map={bench.opts.device},"
                f"dtype={bench.opts.dtype}", {"batch_size": size})
        except (AssertionError, ValueError, TypeError) as exc:
            print(f"  lmms-eval  batch {size}: not accepted ({exc})")
            continue

        def work(lm: Any = lm, size: int = size) -> dict[str, Any]:
            done = evaluator.simple_evaluate(
                model=lm, tasks=[task.task], task_manager=manager, batch_size=size,
                gen_kwargs=f"max_new_tokens={tokens}", log_samples=True, verbosity="ERROR")
            replies: dict[str, Any] = {}
            for sample in (done or {}).get("samples", {}).get(task.task, []):
                record = sample.get("accuracy") or {}
                reply = sample.get("filtered_resps") or sample.get("resps") or [""]
                while isinstance(reply, list):
                    reply = reply[0] if reply else ""
                replies[str(record.get("id"))] = str(reply).strip()
            return replies

        try:
            bench.timed(("llava", "lmms-eval", "generate", size), n, work)
        except AssertionError as exc:  # "Do not support batch_size_per_gpu > 1"
            print(f"  lmms-eval  batch {size}: not accepted ({exc})")
        del lm
        gc.collect()


def differ(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, int]:
    """(items compared, items whose outputs differ)."""
    common = sorted(set(a) & set(b))
    return len(common), sum(a[k] != b[k] for k in common)


def report(bench: Bench) -> dict[str, Any]:
    """Print the ratios and output checks; the figures as a JSON object."""
    by = {(t.model, t.tool, t.mode, t.batch): t for t in bench.timings}
    lines, checks, ratios = [], [], {}
    for model in bench.opts.models:
        for mode in MODES:
            base = by.get((model, "whatif", mode, bench.opts.batches[0]))
            for size in bench.opts.batches:
                w, b = by.get((model, "whatif", mode, size)), by.get((model, "bare", mode, size))
                if w and b:
                    ratios[f"{model}/{mode}/whatif_vs_bare/b{size}"] = w.rate / b.rate
                    lines.append(f"{model} {mode} batch {size}: whatif {w.rate:.2f} items/s, "
                                 f"bare {b.rate:.2f} items/s, whatif/bare {w.rate / b.rate:.2f}x")
                    checks.append((f"{model} {mode} batch {size}: whatif vs bare",
                                   differ(bench.outputs[(model, 'whatif', mode, size)],
                                          bench.outputs[(model, 'bare', mode, size)])))
                if w and base and size != base.batch:
                    ratios[f"{model}/{mode}/batch{size}_vs_batch{base.batch}"] = w.rate / base.rate
                    checks.append((f"{model} {mode}: whatif batch {size} vs {base.batch}",
                                   differ(bench.outputs[(model, 'whatif', mode, size)],
                                          bench.outputs[(model, 'whatif', mode, base.batch)])))
        lmms = [t for t in bench.timings if t.model == model and t.tool == "lmms-eval"]
        if lmms:
            best = max(lmms, key=lambda t: t.rate)
            mine = max((t for t in bench.timings if (t.model, t.tool, t.mode) ==
                        (model, "whatif", "generate")), key=lambda t: t.rate, default=None)
            if mine:
                ratios[f"{model}/generate/whatif_vs_lmms"] = mine.rate / best.rate
                lines.append(f"{model} generate: whatif best {mine.rate:.2f} items/s (batch "
                             f"{mine.batch}) vs lmms-eval best {best.rate:.2f} items/s (batch "
                             f"{best.batch}): {mine.rate / best.rate:.2f}x")
                checks.append((f"{model} generate: whatif batch {mine.batch} vs lmms-eval",
                               differ(bench.outputs[(model, 'whatif', 'generate', mine.batch)],
                                      bench.outputs[(model, 'lmms-eval', 'generate',
                                                     best.batch)])))
    print("\n" + "\n".join(lines))
    print("\nOutputs (items compared, items that differ):")
    for name, (n, bad) in checks:
        print(f"  {name}: {n} compared, {bad} differ" + ("" if bad else " (identical)"))
    if bench.skipped:
        print(f"\nSkipped (time budget of {bench.opts.budget:.0f} s spent): "
              f"{', '.join(bench.skipped)}")
    print(f"\nTotal {time.monotonic() - bench.started:.0f} s")
    return {"timings": [{**asdict(t), "items_per_s": t.rate} for t in bench.timings],
            "ratios": ratios, "outputs": {name: {"compared": n, "differ": bad}
                                          for name, (n, bad) in checks},
            "skipped": bench.skipped, "seconds": time.monotonic() - bench.started}


def environment(opts: argparse.Namespace) -> dict[str, Any]:
    """The card and library versions the figures hold for."""
    import torch
    import transformers

    card = torch.cuda.get_device_name(0) if opts.device.startswith("cuda") else platform.processor()
    return {"device": card or "cpu", "torch": torch.__version__,
            "transformers": transformers.__version__, "python": platform.python_version(),
            "size": "tiny" if opts.tiny else "real", "dtype": opts.dtype}


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--tiny", action="store_true", help="tiny models (for a CPU check)")
    parser.add_argument("--models", default=",".join(gpu_models.ARCHS),
                        help="comma-separated: llava, qwen2_vl")
    parser.add_argument("--pairs", type=int, default=500, help="pairs generated (default 500)")
    parser.add_argument("--limit", type=int, default=256,
                        help="items evaluated, whole pairs from every template (0: all)")
    parser.add_argument("--batches", default="1,8,32", help="batch sizes (default 1,8,32)")
    parser.add_argument("--max-new-tokens", type=int, default=16,
                        help="generation budget per item (default 16)")
    parser.add_argument("--dtype", default=None, help="bfloat16 on CUDA, float32 on a CPU")
    parser.add_argument("--lmms-eval", dest="lmms", action=argparse.BooleanOptionalAction,
                        default=True, help="also run lmms-eval when it is importable")
    parser.add_argument("--budget", type=float, default=480.0,
                        help="seconds; runs that would start after it are skipped (default 480)")
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
    return opts


def main(argv: Sequence[str] | None = None) -> int:
    opts = parse(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import importlib.util

    import torch

    from whatifbench.core.dataset import load_dataset

    if opts.device.startswith("cuda") and not torch.cuda.is_available():
        print("No CUDA device here; run with --device cpu --tiny for a CPU check.",
              file=sys.stderr)
        return 2
    env = environment(opts)
    print(" | ".join(f"{k} {v}" for k, v in env.items()), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as tmp:
        # lmms-eval loads our export through datasets, whose cache can serve rows of an earlier
        # export with the same file names: a cache of this run's own.
        os.environ["HF_DATASETS_CACHE"] = str(Path(tmp) / "hf-datasets")
        bench = Bench(opts, Path(tmp))
        items = make_items(bench.root, opts.pairs, opts.limit)
        data = load_dataset(items)
        print(f"{len(data.items)} items ({opts.pairs} pairs generated)", flush=True)
        for arch in opts.models:
            loaded = gpu_models.build(arch, bench.root / arch, "tiny" if opts.tiny else "real",
                                      opts.device, opts.dtype)
            print(f"\n{arch}: {gpu_models.parameters(loaded) / 1e6:,.1f}M parameters", flush=True)
            for mode in MODES:
                requests = requests_for(loaded, data, mode, opts.max_new_tokens)
                ours(loaded, load_dataset(items), mode, max(opts.batches), opts.max_new_tokens,
                     bench.root / f"warm-{arch}-{mode}.sqlite")  # warm-up
                for size in opts.batches:
                    store = bench.root / f"store-{arch}-{mode}-{size}.sqlite"
                    bench.timed((arch, "whatif", mode, size), len(data.items), partial(
                        ours, loaded, data, mode, size, opts.max_new_tokens, store))
                    bench.timed((arch, "bare", mode, size), len(data.items),
                                partial(bare, loaded, data, mode, size, requests))
            if arch == "llava" and opts.lmms:
                if importlib.util.find_spec("lmms_eval") is None:
                    print("  lmms-eval is not installed here: its runs are left out.")
                else:
                    lmms_runs(bench, loaded, items, len(data.items), opts.max_new_tokens)
            del loaded
            gc.collect()
            if opts.device.startswith("cuda"):
                torch.cuda.empty_cache()
        figures = report(bench)
    if opts.json:
        opts.json.write_text(json.dumps({"environment": env, **figures}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
