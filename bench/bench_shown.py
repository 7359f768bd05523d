"""What a harness can show besides the question, on seeds never used in development (issue 41,
items 4-7): names, ids, metadata, provenance, every export's columns, the image files.

For each generator (cvqa-synthetic, cfmm-synthetic, mucr-synthetic; with ``--only cello`` also
``whatif build cello`` on the test world of Visual Genome-like scene graphs), design and seed
(default 41-45, shortcut-free; the paper designs on the first seed):
  1. ``whatif audit``'s metadata probes (file names and ids, read through what public facts
     decode them to; group decode; member order; letters; the fields of the items' public view;
     the columns of the hf/lmms-eval, VLMEvalKit and inspect exports; the file structure): per
     probe its accuracy beside chance and control on the whole scope, its worst slice of
     n >= 60 (accuracy minus chance) and the Holm-adjusted p of that slice; the flags;
  2. the decode attack with every public fact (card.json, the Hugging Face card and columns,
     the VLMEvalKit TSV; record numbers 0-10,000 with generator name and seed, sha256 and HMAC
     keyed by public facts): names decoded out of names tried, and the same attack on the names
     the earlier (unkeyed) scheme gave the same images;
  3. cfmm-synthetic's shape-name: the asked object's ink share by answer (square/circle vs
     rectangle/oval) and the best threshold on it;
  4. an EXIF-turned JPEG (200x100 stored, orientation 6) written through the dataset writer:
     the size every reader then sees;
  5. ``builtin:scene-reader`` on the first seed's shortcut-free suites (``--no-reader`` skips).

    PYTHONPATH=src python bench/bench_shown.py [--seeds 41-45] [--per-template 60]
        [--per-category 120] [--groups 25] [--per-task 100] [--only cvqa,cfmm,mucr,cello]
        [--no-reader] [--no-paper]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean
from typing import Any

from whatifbench import api
from whatifbench.analysis.audit.audit import audit_dataset, flag_labels
from whatifbench.analysis.audit.decode import decode, facts_of
from whatifbench.analysis.audit.flags import MIN_N
from whatifbench.analysis.audit.seeds import parse_seeds
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.private import read_private
from whatifbench.core.public import public_item
from whatifbench.core.registry import lookup
from whatifbench.core.suite import suite_for
from whatifbench.runner.evaluate import RunOptions

GENERATORS = {"cvqa": "cvqa-synthetic", "cfmm": "cfmm-synthetic", "mucr": "mucr-synthetic",
              "cello": "cello"}
"""``--only`` keys → generators (``cello``: ``whatif build cello`` on the Visual Genome-like test
world of ``tests/cello_world.py``, 1,500 scene graphs per seed)."""
WORD = re.compile(r"[A-Za-z0-9_.-]+")


def make(name: str, root: Path, seed: int, design: str, args: argparse.Namespace) -> None:
    """Generate (or, for CELLO, build) one suite."""
    if name != "cello":
        lookup("generator", name).obj.generate(root, seed=seed, design=design, overwrite=True,
                                               **params(name, args))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from cello_world import write_world

    from whatifbench.suites.cello.build import build_cello

    graphs, data, images = write_world(root.with_name(root.name + "-input"), 1500, seed=seed)
    build_cello(graphs, images, root, image_data=data, per_task=args.per_task, seed=seed,
                design=design, overwrite=True)


def params(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """The generator's size arguments."""
    return {"cvqa-synthetic": {"per_template": args.per_template, "workers": 2},
            "cfmm-synthetic": {"per_category": args.per_category, "workers": 2},
            "mucr-synthetic": {"groups": args.groups}}[name]


def probe_lines(result: dict[str, Any]) -> list[str]:
    """One line per probe: scope, accuracy, chance, control, the worst slice of n >= MIN_N."""
    lines = []
    for p in result["probes"]:
        if not p["n"]:
            lines.append(f"    {p['name']:21s} nothing to read")
            continue
        slices = [s for s in p["slices"] if s["n"] >= MIN_N and s["accuracy"] is not None]
        worst = max(slices, key=lambda s: s["accuracy"] - max(s["chance"], s.get("control")
                                                              or 0), default=None)
        tail = "" if worst is None else (
            f"  worst slice {worst['key']}={worst['value']} (n={worst['n']}) "
            f"{worst['accuracy']:.1f} vs chance {worst['chance']:.1f} control "
            f"{worst.get('control') or 0:.1f} p_holm "
            f"{1.0 if worst.get('p_holm') is None else worst['p_holm']:.3f}"
            + (" FLAGGED" if worst["flagged"] else ""))
        lines.append(f"    {p['name']:21s} n={p['n']:5d} {p['accuracy']:5.1f} % vs chance "
                     f"{p['chance']:5.1f} control {p.get('control') or 0:5.1f}"
                     + (" FLAGGED" if p["flagged"] else "") + tail)
    return lines


def public_words(root: Path, exports: Path) -> set[str]:
    """Every word of card.json, of the items' public view and of the exports."""
    data = load_dataset(root)
    private = suite_for(data.suite).private_meta
    texts = [(root / "card.json").read_text(encoding="utf-8")]
    texts += [json.dumps(public_item(i, private).to_json()) for i in data.items]
    for path in exports.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".json", ".yaml"):
            texts.append(path.read_text(encoding="utf-8"))
        elif path.suffix == ".tsv":
            texts += [c for line in path.read_text(encoding="utf-8").splitlines()
                      for c in line.split("\t") if len(c) < 200]
    return {w for t in texts for w in WORD.findall(t) if len(w) <= 40}


def earlier(name: str, seed: int, telling: str) -> str | None:
    """What the earlier, unkeyed scheme hashed for an image of this telling name."""
    stem = telling.removesuffix(".png")
    if "/" in stem:
        return None
    if name == "mucr-synthetic":  # 12-cause.png (12-c2e-q-cause.png ...: the candidates drawn
        number, *key = stem.split("-")  # in the question's own scene came after that scheme)
        return f"{name}:{seed}:image:{number}:{key[0]}" if len(key) == 1 else None
    if name == "cfmm-synthetic":
        category, index = stem.split("_")
        return f"{name}:{seed}:image:{category}:{int(index) - 1}"
    return f"{name}:{seed}:image:{int(stem[-6:])}"


def attack(name: str, seed: int, root: Path, work: Path) -> str:
    """The decode attack (item 2 of the module docstring), as one line."""
    exports = work / "exports"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["export", str(root), "--format", "hf", "--out", str(exports / "hf"),
                     "--overwrite"]) == 0
        assert main(["export", str(root), "--format", "vlmevalkit", "--choice-only", "--out",
                     str(exports / "data.tsv"), "--overwrite"]) == 0
    words = public_words(root, exports)
    data = load_dataset(root)
    names = {Path(p).stem for i in data.items for p in i.images}
    names |= {p.stem for p in (root / "images").rglob("*.png")}
    names |= {i.id for i in data.items} | {i.pair_id for i in data.items if i.pair_id}
    card = json.loads((root / "card.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    found = decode(names, facts_of(card, words, 10_000, tokens=names, small=200))
    found |= decode(names, facts_of(card, words, 10_000, tokens=names, hmac_keys=True,
                                    small=200), budget=300_000)
    spent = time.perf_counter() - start
    old = {hashlib.sha256(text.encode()).hexdigest()[:16]
           for telling in read_private(root)["images"].values()
           if (text := earlier(name, seed, str(telling))) is not None}
    decoded_old = decode(old, facts_of(card, words, 10_000, small=200))
    return (f"    decode attack: {len(found)} of {len(names)} names decoded ({spent:.0f} s, "
            f"{len(words)} public words, numbers 0-10,000); the earlier scheme's names of the "
            f"same images: {len(decoded_old)} of {len(old)} decoded")


def ink_line(root: Path) -> str:
    """cfmm-synthetic shape-name: the asked object's ink share by answer, per family (squares
    and rectangles, circles and ovals), and how well ink tells the answers apart (the area
    under the ROC curve: 0.5 = not at all, 1 = always)."""
    import numpy as np
    from PIL import Image

    from whatifbench.scenes.palette import COLORS

    data = load_dataset(root)
    inks: dict[tuple[str, bool], list[float]] = {}
    for item in data.items:
        if item.meta.get("template") == "shape-name" and item.role == "basic":
            with Image.open(root / item.images[0]) as img:
                pixels = np.asarray(img.convert("RGB"))
            color = np.array(COLORS[item.question.split()[-2]], dtype=np.uint8)
            family = "box" if set(item.choices) == {"square", "rectangle"} else "round"
            inks.setdefault((family, item.target in ("square", "circle")), []).append(
                float((pixels == color).all(axis=2).mean()))
    parts = []
    for family in ("box", "round"):
        unequal, equal = inks.get((family, False), []), inks.get((family, True), [])
        if not unequal or not equal:
            continue
        auc = mean((u > e) + 0.5 * (u == e) for u in unequal for e in equal)
        parts.append(f"{family} {mean(unequal):.4f} vs {mean(equal):.4f} (n={len(unequal)}/"
                     f"{len(equal)}, AUC {auc:.2f})")
    return "    shape-name ink share, unequal vs equal sides: " + "; ".join(parts)


def exif_line(work: Path) -> str:
    """An EXIF-turned JPEG written by the dataset writer: what readers see."""
    from PIL import Image

    from whatifbench.core.dataset import DatasetWriter
    from whatifbench.core.images import ORIENTATION
    from whatifbench.core.item import Item

    img = Image.new("RGB", (200, 100), (220, 30, 40))
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    buffer = io.BytesIO()
    img.save(buffer, format="JPEG", exif=exif.tobytes())
    with DatasetWriter(work / "exif", overwrite=True) as writer:
        rel = writer.add_image("photo.jpg", buffer.getvalue())
        writer.add_item(Item("q", (rel,), "Is it red?", "yes-no", "yes"))
        writer.finish(name="exif", suite="cfmm", version="1", generator={}, seed=None)
    with Image.open(work / "exif" / rel) as stored:
        size, tag = stored.size, stored.getexif().get(ORIENTATION)
    return (f"EXIF orientation 6, stored 200x100: the dataset holds {size[0]}x{size[1]} "
            f"(orientation tag {tag}); browsers and PIL readers see the same size and bytes")


def reader_line(root: Path) -> str:
    """The scene reader's accuracy on a suite."""
    [run] = api.run_all([root], ["builtin:scene-reader"], options=RunOptions(progress=False))
    hits = [bool(s.correct) for s in run.samples if s.correct is not None]
    return f"    builtin:scene-reader: {100 * sum(hits) / len(hits):.2f} % of {len(hits)}"


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="41-45")
    parser.add_argument("--per-template", type=int, default=60)
    parser.add_argument("--per-category", type=int, default=120)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--per-task", type=int, default=100)
    parser.add_argument("--only", default="cvqa,cfmm,mucr")
    parser.add_argument("--no-reader", action="store_true")
    parser.add_argument("--no-paper", action="store_true")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    with tempfile.TemporaryDirectory(prefix="bench-shown-") as tmp:
        work = Path(tmp)
        print(exif_line(work))
        for key in args.only.split(","):
            name = GENERATORS[key]
            runs = [("shortcut-free", s) for s in seeds]
            runs += [] if args.no_paper else [("paper", seeds[0])]
            for design, seed in runs:
                root = work / f"{name}-{design}-{seed}"
                start = time.perf_counter()
                make(name, root, seed, design, args)
                made = time.perf_counter() - start
                start = time.perf_counter()
                result = audit_dataset(root, refresh=True)
                spent = time.perf_counter() - start
                items = result["dataset"]["items"]
                probes = [f for f in flag_labels(result) if ":" in f
                          or f in {p["name"] for p in result["probes"]}]
                print(f"{name} {design} seed {seed}: {items} items (generated in {made:.1f} s, "
                      f"audited in {spent:.1f} s); probe flags: {probes or 'none'}")
                for line in probe_lines(result):
                    print(line)
                if design == "shortcut-free" and name != "cello":  # CELLO: no opaque names
                    print(attack(name, seed, root, work))
                if name == "cfmm-synthetic":
                    print(ink_line(root))
                if design == "shortcut-free" and seed == seeds[0] and not args.no_reader \
                        and name != "cello":
                    print(reader_line(root))
                sys.stdout.flush()


if __name__ == "__main__":
    main_bench()
