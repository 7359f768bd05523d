"""Validity beyond the question text (issue 31): what file names, ids, letters and member order
give away, per generator and design, on fresh seeds at full size.

For each generator (cvqa-synthetic 500 per template, cfmm-synthetic 200 per category,
mucr-synthetic 25 groups, CELLO on a Visual-Genome-format world of 600 scenes and on the
1,000-scene test world of ``tests/cello_world.py``), each design and each seed it generates a
suite and prints:

- **names**: the share of images, item ids and pair ids that are opaque (16 hex digits), and
  the file-name rule of the issue (MuCR C2E/E2C: the candidate whose name shares the shown
  image's leading token; chance 25 %);
- **same letter**: per template (group for MuCR), the share of pairs whose two answers stand at
  the same letter (independent dealing: 1/K, i.e. 50 % for CFMM, 25 % for C-VQA);
- **member order**: CELLO, per Yes/No task, the share of contrast pairs whose first-written
  (lower-id) member is the Yes one (dealt: 50 %);
- **audit**: ``whatif audit``'s blind accuracy against chance, its flagged slices, the worst
  slice, and every metadata probe (accuracy, chance, control, flag);
- **scene reader** (first seed, ``--reader``): ``builtin:scene-reader`` accuracy;
- **CELLO**: questions per task (and how many in near sets), the world-prior reader
  (``causal.prior``) against chance, per wording of the sets.

    PYTHONPATH=src python bench/bench_metadata.py [--seeds 41,42,43] [--only mucr,cello]
        [--designs paper,shortcut-free] [--reader] [--small]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cello_world import write_world  # noqa: E402

from whatifbench import api  # noqa: E402
from whatifbench.analysis.audit.audit import audit_dataset  # noqa: E402
from whatifbench.core.dataset import load_dataset  # noqa: E402
from whatifbench.core.item import Item  # noqa: E402
from whatifbench.runner.evaluate import RunOptions  # noqa: E402
from whatifbench.suites.cello.build import build_cello  # noqa: E402
from whatifbench.suites.cello.causal.graph import build_causal_graph  # noqa: E402
from whatifbench.suites.cello.causal.prior import SupportPrior  # noqa: E402
from whatifbench.suites.cello.causal.scene_graph import load_scene_graphs  # noqa: E402
from whatifbench.suites.cello.causal.tasks import TASKS  # noqa: E402
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator  # noqa: E402
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator  # noqa: E402
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator  # noqa: E402

HEX = re.compile(r"[0-9a-f]{16}")
FIRST_ROLES = ("original", "basic")


def _generators(small: bool) -> dict[str, Callable[[Path, str, int], None]]:
    size = 0.1 if small else 1.0
    return {
        "cvqa-synthetic": lambda out, design, seed: CvqaSyntheticGenerator.generate(
            out, per_template=max(4, int(500 * size)), seed=seed, design=design, workers=2),
        "cfmm-synthetic": lambda out, design, seed: CfmmSyntheticGenerator.generate(
            out, per_category=max(4, int(200 * size)), seed=seed, design=design, workers=2),
        "mucr-synthetic": lambda out, design, seed: MucrSyntheticGenerator.generate(
            out, groups=max(3, int(25 * size)), seed=seed, design=design),
    }


def opaque_share(items: list[Item]) -> float:
    """Percent of images, item ids and pair ids that are opaque."""
    names = [Path(p).stem for i in items for p in i.images] + [i.id for i in items] + \
        [i.pair_id for i in items if i.pair_id]
    return 100 * sum(bool(HEX.fullmatch(n)) for n in names) / len(names)


def name_rule(items: list[Item]) -> float | None:
    """Percent of MuCR C2E/E2C items whose answer is the candidate sharing the shown image's
    leading name token (``None`` without such items)."""
    right = total = 0
    for item in items:
        if item.group not in ("c2e", "e2c"):
            continue
        stems = [Path(p).stem for p in item.images]
        key = re.split(r"[-_]", stems[0])[0]
        hits = [k for k, s in enumerate(stems[1:]) if re.split(r"[-_]", s)[0] == key]
        right += hits == [item.target_index]
        total += 1
    return 100 * right / total if total else None


def same_letter(items: list[Item]) -> dict[str, tuple[int, float]]:
    """Per template (else group): pairs, and the percent whose first and second members'
    answers stand at the same letter (MuCR: C2E vs E2C of a pair)."""
    by_pair: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        if item.pair_id and item.choices and item.kind == "choice":
            by_pair[item.pair_id].append(item)
    counts: dict[str, Counter[bool]] = defaultdict(Counter)
    for members in by_pair.values():
        first = next((m for m in members if m.role in FIRST_ROLES or m.role == "c2e"), None)
        other = next((m for m in members if m is not first and m.role != "cue"), None)
        if first is None or other is None:
            continue
        key = str(first.meta.get("template", first.group))
        counts[key][first.target_index == other.target_index] += 1
    return {k: (sum(c.values()), 100 * c[True] / sum(c.values()))
            for k, c in sorted(counts.items())}


def gap_rule(items: list[Item]) -> dict[str, tuple[int, float]]:
    """CFMM count templates: per template and gap between the two options, items and the
    percent whose smaller option is right (the issue's rule: gap 1 → smaller, gap 2 → larger;
    no rule: 50 %)."""
    counts: dict[str, Counter[bool]] = defaultdict(Counter)
    for item in items:
        template = str(item.meta.get("template", ""))
        if template.startswith("count") and len(item.choices) == 2:
            a, b = (int(c) for c in item.choices)
            counts[f"{template} gap {abs(a - b)}"][int(item.target) == min(a, b)] += 1
    return {k: (sum(c.values()), 100 * c[True] / sum(c.values()))
            for k, c in sorted(counts.items())}


def yes_first(items: list[Item]) -> dict[str, tuple[int, float]]:
    """CELLO: per Yes/No task, contrast pairs and the percent whose first member is Yes."""
    sets: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        if item.pair_id and item.choices == ("Yes", "No"):
            sets[item.pair_id].append(item)
    counts: dict[str, Counter[bool]] = defaultdict(Counter)
    for members in sets.values():
        members.sort(key=lambda m: int(m.id.rsplit("-", 1)[1]))
        counts[members[0].group or ""][members[0].target == "Yes"] += 1
    return {k: (sum(c.values()), 100 * c[True] / sum(c.values()))
            for k, c in sorted(counts.items())}


def audit_lines(path: Path) -> list[str]:
    """``whatif audit``: blind vs chance, flagged and worst slices, every metadata probe."""
    r = audit_dataset(path, refresh=True)
    blind = r["blind"]
    flagged = [f"{s['key']}={s['value']} {s['blind']:.1f}" for s in r["slices"] if s["flagged"]]
    worst = max(r["slices"], key=lambda s: s["blind"] - s["chance"], default=None)
    lines = [f"  audit blind {blind['accuracy']:.1f} % vs chance {blind['chance']:.1f} % "
             f"(n {blind['n']}){' FLAGGED' if blind['flagged'] else ''}; flagged slices: "
             f"{', '.join(flagged) or 'none'}"
             + (f"; worst slice {worst['key']}={worst['value']} {worst['blind']:.1f} vs "
                f"{worst['chance']:.1f}" if worst else "")]
    for probe in r.get("probes", []):
        if not probe["n"]:
            lines.append(f"  probe {probe['name']:<16} nothing to read")
            continue
        bad = [f"{s['key']}={s['value']}" for s in probe.get("slices", []) if s["flagged"]]
        lines.append(f"  probe {probe['name']:<16} n {probe['n']:>5}  {probe['accuracy']:5.1f}"
                     f" % vs chance {probe['chance']:5.1f}, control {probe['control']:5.1f}"
                     f"{'  FLAGGED' if probe['flagged'] else ''}"
                     + (f"  flagged slices: {', '.join(bad)}" if bad else ""))
    return lines


def reader(path: Path) -> str:
    """``builtin:scene-reader`` accuracy overall and per group."""
    [run] = api.run_all([path], ["builtin:scene-reader"], options=RunOptions(progress=False))
    groups: dict[str, list[bool]] = defaultdict(list)
    for s in run.samples:
        if s.correct is not None:
            groups[s.group or ""].append(bool(s.correct))
    hits = [h for g in groups.values() for h in g]
    return (f"  scene reader {100 * sum(hits) / len(hits):.2f} % of {len(hits)} ("
            + ", ".join(f"{g} {100 * sum(h) / len(h):.1f}" for g, h in sorted(groups.items()))
            + ")")


def prior_lines(items: list[Item], scene_graphs: Path) -> list[str]:
    """The world-prior reader (``causal.prior``) per wording of the sets: no guess scores
    chance."""
    prior = SupportPrior(build_causal_graph(s) for s in load_scene_graphs(scene_graphs))
    cells: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0])
    for item in items:
        names = {node: attrs["obj_name"] for node, attrs in item.meta["graph"]["nodes"]}
        slots = [(s, names[o]) for s, o in item.provenance["slots"].items()]
        k = len(item.choices)
        if TASKS[item.group or ""].binary:
            guess = prior.guess(item.group or "", slots)
            right = None if guess is None else guess == str(item.provenance["outcome"])
        else:
            guess = prior.guess(item.group or "", slots, item.choices)
            right = None if guess is None else guess == item.target
        for key in ("all", f"wording {item.meta.get('contrast')}"):
            c = cells[key]
            c[0] += 1
            c[1] += 1 / k if right is None else float(right)
            c[2] += 1 / k
            c[3] += right is not None
    return [f"  world-prior reader, {key}: {100 * h / n:.1f} % vs chance {100 * ch / n:.1f} % "
            f"(n {int(n)}, {int(g)} guessed)" for key, (n, h, ch, g) in sorted(cells.items())]


def run_generator(name: str, make: Callable[[Path, str, int], None], designs: list[str],
                  seeds: list[int], tmp: Path, with_reader: bool) -> None:
    for design in designs:
        pooled: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        for seed in seeds:
            out = tmp / f"{name}-{design}-{seed}"
            t0 = time.perf_counter()
            make(out, design, seed)
            items = list(load_dataset(out, check_images=False).items)
            rule = name_rule(items)
            print(f"\n== {name} --design {design} --seed {seed}: {len(items)} items "
                  f"({time.perf_counter() - t0:.1f} s); opaque names {opaque_share(items):.1f} %"
                  + ("" if rule is None else f"; file-name rule {rule:.1f} % (chance 25)"))
            letters = same_letter(items)
            print("  same letter: " + ", ".join(f"{k} {v:.1f} % of {n}"
                                                for k, (n, v) in letters.items()))
            for k, (n, v) in letters.items():
                pooled[k][0] += n
                pooled[k][1] += n * v / 100
            gaps = gap_rule(items)
            if gaps:
                print("  smaller option right: " + ", ".join(
                    f"{k} {v:.1f} % of {n}" for k, (n, v) in gaps.items()))
            for line in audit_lines(out):
                print(line)
            if with_reader and seed == seeds[0]:
                print(reader(out))
            shutil.rmtree(out)
        print(f"-- {name} --design {design}, seeds {seeds}: same letter pooled: " + ", ".join(
            f"{k} {100 * h / n:.1f} % of {int(n)}" for k, (n, h) in sorted(pooled.items())))


def run_cello(designs: list[str], seeds: list[int], tmp: Path, small: bool) -> None:
    worlds = [(600 if not small else 200, seed) for seed in seeds] + [(1000, 0)]
    for scenes, world_seed in worlds:
        root = tmp / f"world-{scenes}-{world_seed}"
        sg, data, images = write_world(root / "in", scenes, world_seed)
        for design in designs:
            out = root / design
            t0 = time.perf_counter()
            per_task = 60 if scenes == 1000 else 100
            card = build_cello(sg, images, out, image_data=data, per_task=per_task,
                               seed=world_seed, design=design)
            items = list(load_dataset(out, check_images=False).items)
            print(f"\n== cello --design {design}, world of {scenes} scenes (seed {world_seed}), "
                  f"--per-task {per_task}: {len(items)} items ({time.perf_counter() - t0:.1f} s)")
            near = {t: c.get("near_items", 0) for t, c in (card.extra.get("contrast") or {}
                                                             ).items()}
            print("  per task: " + ", ".join(
                f"{t} {n}" + (f" ({near[t]} near)" if near.get(t) else "")
                for t, n in card.counts["by_task"].items()))
            if design != "paper":
                print("  Yes member first: " + ", ".join(
                    f"{t} {v:.1f} % of {n}" for t, (n, v) in yes_first(items).items()))
            for line in audit_lines(out) + prior_lines(items, sg):
                print(line)
        shutil.rmtree(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="41,42,43",
                        type=lambda v: [int(x) for x in v.split(",")])
    parser.add_argument("--only", default="cvqa,cfmm,mucr,cello",
                        type=lambda v: [x for x in v.split(",") if x])
    parser.add_argument("--designs", default="shortcut-free,paper",
                        type=lambda v: [x for x in v.split(",") if x])
    parser.add_argument("--reader", action="store_true", help="run the scene reader (seed 1)")
    parser.add_argument("--small", action="store_true", help="a tenth of the full sizes")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; seeds {args.seeds}")
    with tempfile.TemporaryDirectory(prefix=".bench-metadata-") as tmp:
        os.environ["WHATIF_HOME"] = str(Path(tmp) / "home")
        for name, make in _generators(args.small).items():
            if name.split("-")[0] in args.only:
                run_generator(name, make, args.designs, args.seeds, Path(tmp), args.reader)
        if "cello" in args.only:
            run_cello(args.designs, args.seeds, Path(tmp), args.small)


if __name__ == "__main__":
    main()
