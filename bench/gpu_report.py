"""What ``bench_gpu.py`` prints and writes: ratios, output checks, decode rates, failures."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

import gpu_decode

MODES = ("rank", "generate")


def differ(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, int]:
    """(items compared, items whose outputs differ)."""
    common = sorted(set(a) & set(b))
    return len(common), sum(a[k] != b[k] for k in common)


def _pairs(bench: Any, model: str, by: dict[tuple[str, str, str, int], Any],
           lines: list[str], checks: list[tuple[str, tuple[int, int]]],
           ratios: dict[str, float]) -> None:
    """whatif vs bare per mode and batch size, and each batch size vs the smallest."""
    sizes = bench.opts.batches
    for mode in MODES:
        base = by.get((model, "whatif", mode, sizes[0]))
        for size in sizes:
            w, b = by.get((model, "whatif", mode, size)), by.get((model, "bare", mode, size))
            if w and b:
                ratios[f"{model}/{mode}/whatif_vs_bare/b{size}"] = w.rate / b.rate
                lines.append(f"{model} {mode} batch {size}: whatif {w.rate:.2f} items/s, "
                             f"bare {b.rate:.2f} items/s, whatif/bare {w.rate / b.rate:.2f}x")
                checks.append((f"{model} {mode} batch {size}: whatif vs bare",
                               differ(bench.outputs[w.key], bench.outputs[b.key])))
            if w and base and size != base.batch:
                ratios[f"{model}/{mode}/batch{size}_vs_batch{base.batch}"] = w.rate / base.rate
                lines.append(f"{model} {mode}: whatif batch {size} / batch {base.batch} "
                             f"{w.rate / base.rate:.2f}x")
                checks.append((f"{model} {mode}: whatif batch {size} vs {base.batch}",
                               differ(bench.outputs[w.key], bench.outputs[base.key])))


def _lmms(bench: Any, model: str, by: dict[tuple[str, str, str, int], Any],
          lines: list[str], checks: list[tuple[str, tuple[int, int]]],
          ratios: dict[str, float]) -> None:
    """whatif vs lmms-eval: best against best, and at each batch size lmms-eval took."""
    lmms = [t for t in bench.timings if t.model == model and t.tool == "lmms-eval"]
    if not lmms:
        return
    best = max(lmms, key=lambda t: t.rate)
    mine = max((t for t in bench.timings if (t.model, t.tool, t.mode) ==
                (model, "whatif", "generate")), key=lambda t: t.rate, default=None)
    if mine:
        ratios[f"{model}/generate/whatif_vs_lmms"] = mine.rate / best.rate
        lines.append(f"{model} generate: whatif best {mine.rate:.2f} items/s (batch "
                     f"{mine.batch}) vs lmms-eval best {best.rate:.2f} items/s (batch "
                     f"{best.batch}): {mine.rate / best.rate:.2f}x")
        checks.append((f"{model} generate: whatif batch {mine.batch} vs lmms-eval",
                       differ(bench.outputs[mine.key], bench.outputs[best.key])))
    for t in lmms:
        same = by.get((model, "whatif", "generate", t.batch))
        if same:
            ratios[f"{model}/generate/whatif_vs_lmms/b{t.batch}"] = same.rate / t.rate
            lines.append(f"{model} generate batch {t.batch}: whatif {same.rate:.2f} items/s vs "
                         f"lmms-eval {t.rate:.2f} items/s: {same.rate / t.rate:.2f}x")


def _fast(bench: Any, model: str, by: dict[tuple[str, str, str, int], Any],
          lines: list[str], checks: list[tuple[str, tuple[int, int]]],
          ratios: dict[str, float]) -> None:
    """The fast decoding path vs eager generate at the largest batch; the release decoding."""
    size = bench.opts.batches[-1]
    eager = by.get((model, "whatif-eager", "generate", size))
    fast = by.get((model, "whatif-fast", "generate", size)) or (
        by.get((model, "whatif", "generate", size)) if bench.whatif_is_fast else None)
    if eager and fast:
        ratios[f"{model}/generate/fast_vs_eager/b{size}"] = fast.rate / eager.rate
        lines.append(f"{model} generate batch {size}: fast decoding {fast.rate:.2f} items/s vs "
                     f"eager {eager.rate:.2f} items/s: {fast.rate / eager.rate:.2f}x")
        checks.append((f"{model} generate batch {size}: fast decoding vs eager",
                       differ(bench.outputs[fast.key], bench.outputs[eager.key])))
    for t in bench.timings:
        if (t.model, t.tool) == (model, "whatif-release"):
            per_s = "" if t.tokens is None else f", {t.tokens / t.seconds:,.0f} new tokens/s"
            lines.append(f"{model} release decoding ({bench.release_names.get(model, '?')}): "
                         f"{t.rate:.3f} items/s{per_s} ({t.items} items, {t.tokens} new "
                         f"tokens)")
            ratios[f"{model}/release/items_per_s"] = t.rate


def report(bench: Any) -> dict[str, Any]:
    """Print the ratios, output checks and decode rates; every figure as a JSON object."""
    by = {t.key: t for t in bench.timings}
    lines: list[str] = []
    checks: list[tuple[str, tuple[int, int]]] = []
    ratios: dict[str, float] = {}
    for model in bench.opts.models:
        _pairs(bench, model, by, lines, checks, ratios)
        _lmms(bench, model, by, lines, checks, ratios)
        _fast(bench, model, by, lines, checks, ratios)
    print("\n" + "\n".join(lines))
    for model, rates in bench.decode.items():
        print("\n" + gpu_decode.describe(model, rates))
    print("\nOutputs (items compared, items that differ):")
    for name, (n, bad) in checks:
        print(f"  {name}: {n} compared, {bad} differ" + ("" if bad else " (identical)"))
    if bench.failed:
        print("\nFailed runs:\n" + "\n".join(f"  {k}: {why}" for k, why in bench.failed))
    if bench.skipped:
        print(f"\nSkipped (time budget of {bench.opts.budget:.0f} s, shared by the models, "
              "spent): "
              f"{', '.join(bench.skipped)}")
    print(f"\nTotal {time.monotonic() - bench.started:.0f} s")
    return {"timings": [{**asdict(t), "items_per_s": t.rate} for t in bench.timings],
            "ratios": ratios, "outputs": {name: {"compared": n, "differ": bad}
                                          for name, (n, bad) in checks},
            "decode": bench.decode, "release_decoding": bench.release_names,
            "failed": [{"run": k, "error": why} for k, why in bench.failed],
            "skipped": bench.skipped, "seconds": time.monotonic() - bench.started}
