"""Validity round 4 (issue 41, part A): what policies short of reasoning score on the
shortcut-free designs, per template, on fresh seeds.

For every shortcut-free generator and seed (default 41-45, seeds never used in development):

- paired suites (cvqa-synthetic, cfmm-synthetic): ``builtin:ignore-premise`` (believes its
  eyes) and ``builtin:flip-eyes`` (flips what it sees) on the counterfactual questions and on
  acc+ / pair accuracy (they answer every original right, so their pair accuracy is their
  counterfactual accuracy; its chance is the counterfactual's, 1/K);
- the audit's pair-aware blind guesser (``joint guess``: both texts of a pair, or all members
  of a contrast set, guessed at once, out of fold) beside the joint chance, and the chance of
  guessing each member alone;
- mucr-synthetic: ``builtin:pixel-match`` (the candidate picture most like the question's) on
  C2E and E2C, chance 25 %; also at a quarter of the resolution (a blurrier similarity);
- ``builtin:scene-reader`` on every choice question it reads (it must stay at 100 %).

Figures are pooled over the seeds (hits / n per template). A ``*`` marks a figure outside
chance ± 5 (for the joint guesser: above its joint chance + 5).

    PYTHONPATH=src python bench/bench_round4.py [--seeds 41-45] [--only cvqa,cfmm,mucr,cello]
        [--per-template 100] [--per-category 200] [--groups 25] [--no-reader]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from whatifbench.analysis.audit.audit import audit_items  # noqa: E402
from whatifbench.analysis.audit.seeds import parse_seeds  # noqa: E402
from whatifbench.core.dataset import load_dataset  # noqa: E402
from whatifbench.core.item import Item  # noqa: E402
from whatifbench.core.requests import Part, Request, Turn  # noqa: E402
from whatifbench.runner.backends import make_backend  # noqa: E402

KEYS = ("template", "task", "task_type", "group")
"""Audit slice keys reported per template (CELLO: its task types)."""
Tally = dict[str, list[float]]
"""Per row label: [hits, n, chance sum]."""


def add(tally: Tally, key: str, hit: bool, chance: float) -> None:
    row = tally.setdefault(key, [0.0, 0.0, 0.0])
    row[0] += hit
    row[1] += 1
    row[2] += chance


def request(item: Item, root: Path) -> Request:
    parts = tuple(Part(image=str(root / p)) for p in item.images) + (Part(text=item.question),)
    return Request(item.id, (Turn("user", parts),), item=item)


def template(item: Item) -> str:
    found = item.meta.get("template", item.meta.get("task", item.group))
    return str(found)


def paired(items: Sequence[Item], tallies: dict[str, Tally]) -> None:
    """Believe-your-eyes and flip references per template (counterfactual questions)."""
    eyes = make_backend("builtin:ignore-premise", {})
    flip = make_backend("builtin:flip-eyes", {})
    eyes.prepare(items)
    flip.prepare(items)
    for item in items:
        if item.role != "counterfactual":
            continue
        k = 1.0 / len(item.choices)
        for name, backend in (("eyes", eyes), ("flip", flip)):
            said = backend.answer(item, Request(item.id, ()))
            add(tallies[name], template(item), said == item.target, k)


def joint(items: Sequence[Item], tallies: dict[str, Tally]) -> None:
    """The audit's blind guessers: one question at a time, and pairs at once."""
    result = audit_items(items)
    for entry in [result["blind"], *result["slices"]]:
        key = entry.get("value") if "value" in entry else "all"
        if "value" in entry and entry["key"] not in KEYS:
            continue
        row = tallies["blind"].setdefault(str(key), [0.0, 0.0, 0.0])
        row[0] += entry["hits"]
        row[1] += entry["n"]
        row[2] += entry["chance"] / 100 * entry["n"]
    probe = next(p for p in result["probes"] if p["name"] == "joint guess")
    for entry in [probe, *probe["slices"]]:
        if "value" in entry and entry["key"] not in KEYS:
            continue
        key = str(entry.get("value", "all"))
        if not entry["n"]:
            continue
        row = tallies["joint"].setdefault(key, [0.0, 0.0, 0.0])
        row[0] += entry["hits"]
        row[1] += entry["n"]
        row[2] += entry["chance"] / 100 * entry["n"]
        if "value" not in entry:
            ind = tallies["independent"].setdefault(key, [0.0, 0.0, 0.0])
            ind[1] += entry["n"]
            ind[2] += (entry.get("chance_independent") or 0) / 100 * entry["n"]


def readers(items: Sequence[Item], root: Path, tallies: dict[str, Tally], pixel: bool,
            reader: bool) -> None:
    """The scene reader on every choice item; pixel similarity on picture options."""
    from PIL import Image

    from whatifbench.models.builtin.pixel_match import closest, option_pictures

    scene = make_backend("builtin:scene-reader", {}) if reader else None
    for item in items:
        if item.kind != "choice":
            continue
        req = request(item, root)
        if scene is not None:
            add(tallies["reader"], template(item), scene.answer(item, req) == item.target,
                1.0 / len(item.choices))
        if pixel:
            found = option_pictures(item, req.turns[-1].images)
            if found is None:
                continue
            q, options = found
            k = 1.0 / len(item.choices)
            add(tallies["pixel"], template(item), item.choices[closest(q, options)] ==
                item.target, k)

            def small(a: Any) -> Any:
                import numpy as np
                img = Image.fromarray(np.asarray(a).astype("uint8"))
                return np.asarray(img.resize((img.width // 4, img.height // 4),
                                             Image.Resampling.BOX), dtype=np.float32)

            add(tallies["pixel/4"], template(item),
                item.choices[closest(small(q), [small(o) for o in options])] == item.target, k)


def make(name: str, out: Path, seed: int, args: argparse.Namespace) -> None:
    from whatifbench.core.registry import lookup

    if name == "cello":
        sys.path.insert(0, str(ROOT / "tests"))
        from cello_world import write_world

        from whatifbench.suites.cello.build import build_cello

        graphs, data, images = write_world(out.parent / f"world{seed}", 1000, seed)
        build_cello(graphs, images, out, image_data=data, seed=seed, design="shortcut-free")
        return
    generator = lookup("generator", f"{name}-synthetic").obj
    params: dict[str, Any] = {"design": "shortcut-free"}
    if name == "cvqa":
        params["per_template"] = args.per_template
    elif name == "cfmm":
        params["per_category"] = args.per_category
    else:
        params["groups"] = args.groups
    generator.generate(out, seed=seed, **params)


def show(title: str, tallies: dict[str, Tally], margin: float = 5.0) -> None:
    print(f"\n## {title}")
    for name, tally in tallies.items():
        if not tally:
            continue
        print(f"{name}:")
        for key in sorted(tally, key=lambda k: (k != "all", k)):
            hits, n, chance = tally[key]
            if not n:
                continue
            if name == "independent":
                print(f"  {key:<22} n {int(n):>5}  chance of guessing each member alone "
                      f"{100 * chance / n:5.1f}")
                continue
            acc, ch = 100 * hits / n, 100 * chance / n
            above = acc > ch + margin if name in ("joint", "blind") else abs(acc - ch) > margin
            mark = "*" if above and name != "reader" else " "
            print(f"  {key:<22} n {int(n):>5}  {acc:5.1f}{mark} chance {ch:5.1f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="41-45")
    parser.add_argument("--only", default="cvqa,cfmm,mucr,cello")
    parser.add_argument("--per-template", type=int, default=100)
    parser.add_argument("--per-category", type=int, default=200)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--no-reader", action="store_true")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    for name in args.only.split(","):
        tallies: dict[str, Tally] = defaultdict(dict)
        start = time.perf_counter()
        for seed in seeds:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "ds"
                make(name, out, seed, args)
                ds = load_dataset(out, check_images=False)
                items = ds.items
                if name in ("cvqa", "cfmm"):
                    paired(items, tallies)
                joint(items, tallies)
                readers(items, ds.root, tallies, pixel=name == "mucr",
                        reader=not args.no_reader and name != "cello")
        show(f"{name}-synthetic shortcut-free, seeds {args.seeds} "
             f"({time.perf_counter() - start:.0f} s)", tallies)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
