"""The validity audit of every generated suite and every released sample we import: the figures
of docs/validity.md, regenerated.

Generated (default sizes; ``--seeds``, default 0): cvqa-synthetic (and with --balanced-values),
cfmm-synthetic, mucr-synthetic, CELLO built by ``whatif build cello`` from Visual Genome-format
scene graphs (synthetic graphs: the bench_cello_pipeline generator with everyday object names;
the seed draws the graphs and the build) and from the photo-like test world of
``tests/cello_world.py`` (1,000 scenes). Imported from ``../shared/data`` (stand-in images; the
audit never reads images), once whatever the seeds: the C-VQA-Real sample, the C-VQA-Synthetic
release sample, the CELLO example record and the MuCR record template.

``--design paper|shortcut-free`` is passed to every generator that takes a ``design`` argument;
a generator without one is audited as it is under ``paper`` (its only design) and skipped under
any other design. With several seeds each seed is generated and audited on its own and the
audits are pooled as ``whatif audit --generator NAME --seeds`` pools them (``analysis.audit.
seeds.pool``: a figure is flagged when it replicates). Prints per dataset the audit (blind
baselines, slices, metadata probes, pair rules) and the audit's time, then two summary tables
(text baselines; metadata probes); ``--markdown`` prints Markdown tables (for the docs).

    PYTHONPATH=src python bench/audit_suites.py [--design paper] [--seeds 7,8,9] [--only NAME]
                                                [--markdown] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_cello_pipeline import synthetic
from PIL import Image

from whatifbench.analysis.audit.audit import audit_dataset, flag_labels
from whatifbench.analysis.audit.probe_results import PROBES
from whatifbench.analysis.audit.seeds import parse_seeds, pool
from whatifbench.analysis.audit.tables import headline, seeds_headline, tables
from whatifbench.cli.main import main as whatif
from whatifbench.core.registry import lookup
from whatifbench.errors import WhatifError
from whatifbench.report.table import Table, fmt
from whatifbench.suites.cello.build import build_cello

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
OBJECTS = ("man", "woman", "table", "shelf", "horse", "beach", "cup", "plate", "chair", "wall",
           "floor", "book", "lamp", "car", "street", "tree", "dog", "cat", "bed", "pillow", "bag",
           "hat", "shirt", "girl", "boy", "bottle", "bench", "grass", "building", "window",
           "sign", "pole", "bike", "bowl", "box", "laptop", "phone", "tray", "desk", "rug")
"""Everyday Visual Genome object names given to the synthetic scene graphs' objects."""
CELLO_SCENES = 1000
Maker = Callable[[Path, str, int], str | None]
"""Makes a dataset at ``out`` for a design and a seed; returns ``None`` or why it skipped."""


def generated(name: str, **params: Any) -> Maker:
    """Generate suite ``name`` into a folder; ``None`` or why it was skipped."""
    def make(out: Path, design: str, seed: int) -> str | None:
        generator = lookup("generator", name).obj
        takes = inspect.signature(generator.generate).parameters
        if "design" in takes:
            params["design"] = design
        elif design != "paper":
            return f"the {name} generator has no design option (yet): skipped"
        generator.generate(out, seed=seed, **params)
        return None
    return make


def vg_graphs(folder: Path, n: int = CELLO_SCENES, seed: int = 0) -> tuple[Path, Path, Path]:
    """``scene_graphs.json``, ``image_data.json`` and small stand-in images for ``n`` synthetic
    Visual Genome-format scene graphs."""
    rng = random.Random(seed)
    scenes = synthetic(n, seed)
    for scene in scenes:
        for obj in scene["objects"]:
            obj["names"] = [rng.choice(OBJECTS)]
    folder.mkdir(parents=True)
    graphs = folder / "scene_graphs.json"
    graphs.write_text(json.dumps(scenes), encoding="utf-8")
    data = folder / "image_data.json"
    data.write_text(json.dumps([{"image_id": s["image_id"], "width": 500, "height": 333}
                                for s in scenes]), encoding="utf-8")
    images = folder / "images"
    images.mkdir()
    for scene in scenes:
        Image.new("RGB", (50, 33), (90, 120, 200)).save(images / f"{scene['image_id']}.jpg")
    return graphs, data, images


def cello(world: bool) -> Maker:
    """CELLO built from synthetic VG-format scene graphs, or from the photo-like test world
    (default 100 questions per task)."""
    def make(out: Path, design: str, seed: int) -> str | None:
        takes = inspect.signature(build_cello).parameters
        if "design" not in takes and design != "paper":
            return "the CELLO builder has no design option (yet): skipped"
        if world:
            sys.path.insert(0, str(ROOT / "tests"))
            from cello_world import write_world

            graphs, data, images = write_world(out.parent / "world", CELLO_SCENES, seed)
        else:
            graphs, data, images = vg_graphs(out.parent / "vg", seed=seed)
        try:
            build_cello(graphs, images, out, image_data=data, seed=seed,
                        **({"design": design} if "design" in takes else {}))
        except WhatifError as exc:
            return f"not built: {exc}"
        return None
    return make


def _stand_ins(folder: Path, names: list[str]) -> Path:
    """Small images under the names a release file refers to."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in dict.fromkeys(names):
        Image.new("RGB", (32, 32), (120, 120, 120)).save(folder / name, format="PNG")
    return folder


def imported(tool: str, source: str) -> Maker:
    """Import a released sample from ``../shared/data`` with stand-in images (the same for
    every seed: audited once)."""
    def make(out: Path, design: str, seed: int) -> str | None:
        path = SHARED / source
        if not path.is_file():
            return f"{path} is not there: skipped"
        images = out.parent / "images"
        if tool in ("cvqa-real", "cvqa-synthetic"):
            with open(path, encoding="utf-8", newline="") as handle:
                _stand_ins(images, [row["img_path"] for row in csv.DictReader(handle)])
            args = ["--csv", str(path)]
        elif tool == "cello":
            record = json.loads(path.read_text(encoding="utf-8"))
            _stand_ins(images, [f"{record['img_id']}.jpg"])
            args = ["--jsonl", str(path)]
        else:  # mucr: the README's template as a group of four linked records
            template = json.loads(path.read_text(encoding="utf-8"))
            ids = ["ID", "a", "b", "c"]
            records = [{**template, "id": rid,
                        "link_id": "[" + ",".join(i for i in ids if i != rid) + "]"}
                       for rid in ids]
            jsonl = out.parent / "records.jsonl"
            jsonl.parent.mkdir(parents=True, exist_ok=True)
            jsonl.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
            _stand_ins(images, [template["image_0"], template["image_1"]])
            args = ["--jsonl", str(jsonl)]
        code = whatif(["import", tool, *args, "--images", str(images), "--out", str(out)])
        return None if code == 0 else f"'whatif import {tool}' failed (exit {code})"
    return make


DATASETS: dict[str, Maker] = {
    "cvqa-synthetic": generated("cvqa-synthetic"),
    "cvqa-synthetic --balanced-values": generated("cvqa-synthetic", balanced_values=True),
    "cfmm-synthetic": generated("cfmm-synthetic"),
    "mucr-synthetic": generated("mucr-synthetic"),
    "cello (VG-format graphs)": cello(world=False),
    "cello (photo-like world)": cello(world=True),
    "C-VQA-Real sample": imported("cvqa-real", "cvqa/C-VQA-Real_questions_sample.csv"),
    "C-VQA-Synthetic release sample": imported("cvqa-synthetic",
                                               "cvqa/C-VQA-Synthetic_questions_sample.csv"),
    "CELLO example record": imported("cello", "cello/example_record.json"),
    "MuCR record template": imported("mucr", "mucr/record_template.json"),
}


SEEDLESS = frozenset(name for name in DATASETS if "sample" in name or "record" in name)
"""Released samples: the same dataset for every seed, audited once."""


def show(table: Table, markdown: bool) -> None:
    """Print a table as text or Markdown."""
    print(table.to_markdown() if markdown else table.to_text())
    print()


def audit_seeds(name: str, make: Maker, folder: Path, design: str,
                seeds: list[int]) -> tuple[dict[str, Any] | None, str | None, list[int]]:
    """Make and audit ``name`` for each seed (once for a released sample) and pool the audits;
    ``(result, why not, seeds used)``."""
    used = seeds[:1] if name in SEEDLESS else seeds
    results = []
    for seed in used:
        out = folder / f"seed-{seed}"
        skipped = make(out / "dataset", design, seed)
        if skipped:
            return None, skipped, used
        results.append(audit_dataset(out / "dataset", refresh=True))
    if len(results) == 1:
        return results[0], None, used
    return pool(results, used), None, used


def probe_cell(result: dict[str, Any], name: str) -> str:
    """``accuracy / chance / control (n)`` of a probe, FLAGGED when it or a slice is."""
    found = next((p for p in result.get("probes") or [] if p["name"] == name), None)
    if found is None or not found["n"]:
        return "–"
    slices = sum(1 for s in found.get("slices") or [] if s.get("flagged"))
    mark = " FLAGGED" if found.get("flagged") else (f" {slices} slice(s) FLAGGED" if slices
                                                      else "")
    return (f"{fmt(found['accuracy'])} / {fmt(found['chance'])} / {fmt(found.get('control'))} "
            f"(n={found['n']}){mark}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", default="paper", help="paper (default) or shortcut-free")
    parser.add_argument("--seeds", default="0", help="seeds to generate and pool (default 0)")
    parser.add_argument("--only", action="append", choices=sorted(DATASETS), metavar="NAME",
                        help=f"audit only these (repeatable): {', '.join(DATASETS)}")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--keep", type=Path, help="keep the datasets in this new folder")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    root = Path(tempfile.mkdtemp()) if args.keep is None else args.keep
    root.mkdir(parents=True, exist_ok=args.keep is None)
    rows: list[tuple[str, ...]] = []
    probe_rows: list[tuple[str, ...]] = []
    try:
        for name, make in DATASETS.items():
            if args.only and name not in args.only:
                continue
            folder = root / name.replace(" ", "_").replace("(", "").replace(")", "")
            print(f"## {name} (design {args.design})\n", flush=True)
            start = time.perf_counter()
            try:
                result, skipped, used = audit_seeds(name, make, folder, args.design, seeds)
            except WhatifError as exc:
                print(f"not audited: {exc}\n")
                rows.append((name, "–", "–", "–", "–", "–", str(exc).split(";")[0]))
                continue
            if result is None:
                print(f"{skipped}\n")
                continue
            seconds = time.perf_counter() - start
            head = seeds_headline if "runs" in result else headline
            if "runs" in result:
                result["generator"] = {"name": name, "params": [f"design={args.design}"],
                                       "seeds": used}
            print(head(result) + f"\n(make and audit: {seconds:.1f} s)\n")
            for table in tables(result):
                show(table, args.markdown)
            blind = result["blind"]
            text = [f for f in flag_labels(result) if ":" not in f and f not in PROBES]
            seed_text = ",".join(str(s) for s in used)
            rows.append((name, seed_text, str(blind["n"]), fmt(blind["accuracy"]),
                         fmt(blind["chance"]),
                         f"[{fmt(blind['interval'][0])}, {fmt(blind['interval'][1])}]",
                         "; ".join(text) or "none"))
            probe_rows.append((name, seed_text, *(probe_cell(result, p) for p in PROBES)))
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    show(Table(title=f"Summary (design {args.design}; percent; pooled over the seeds)",
               columns=("dataset", "seeds", "n", "blind", "chance", "95 % interval",
                        "flagged (text)"), rows=tuple(rows)), args.markdown)
    show(Table(title=f"Metadata probes (design {args.design}; accuracy / chance / control, "
                     "percent)", columns=("dataset", "seeds", *PROBES),
               rows=tuple(probe_rows)), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
