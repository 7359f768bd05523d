"""Speed of the CELLO pipeline on synthetic Visual Genome-like scene graphs.

Prints, for N scene graphs (default 3000, about 21 objects and 18 relationships each), the time
of each stage and its ratio to a baseline measured in the same run (``json.loads`` of the file),
plus the extrapolation to Visual Genome's 108,077 images (the ``paper`` design's pipeline;
``bench_blind_mucr_cello.py`` times ``shortcut-free`` against it).

    PYTHONPATH=src python bench/bench_cello_pipeline.py [N]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from whatifbench.suites.cello.causal.coverage import coverage
from whatifbench.suites.cello.causal.pipeline import run_pipeline
from whatifbench.suites.cello.causal.scene_graph import load_scene_graphs

VG_IMAGES = 108_077
MAPPED = ["on", "ON", "sitting on", "holding", "riding", "attached to", "hanging from",
          "standing on", "wearing", "parked on", "carrying", "on top of"]
UNMAPPED = ["near", "in", "behind", "has", "of", "next to", "above", "by", "with", "under"]
NAMES = [f"thing{k}" for k in range(150)] + ["man", "woman", "table", "shelf", "horse", "beach"]


def synthetic(n: int, seed: int = 0) -> list[dict]:
    """``n`` scene-graph records with random objects and relationships (40 % causal)."""
    rng = random.Random(seed)
    scenes = []
    for image_id in range(1, n + 1):
        objects = [{"object_id": image_id * 100 + k, "names": [rng.choice(NAMES)],
                    "synsets": [], "x": rng.randrange(400), "y": rng.randrange(300),
                    "w": rng.randrange(1, 100), "h": rng.randrange(1, 100)}
                   for k in range(rng.randrange(12, 30))]
        rels = []
        for _ in range(rng.randrange(8, 28)):
            a, b = rng.sample(objects, 2)
            pred = rng.choice(MAPPED) if rng.random() < 0.4 else rng.choice(UNMAPPED)
            rels.append({"predicate": pred, "subject_id": a["object_id"],
                         "object_id": b["object_id"]})
        scenes.append({"image_id": image_id, "objects": objects, "relationships": rels})
    return scenes


def timed(label: str, baseline: float | None, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    ratio = f"{seconds / baseline:8.1f}x" if baseline else "   1.0x (baseline)"
    print(f"{label:<44} {seconds:8.3f} s  {ratio}")
    return out, seconds


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scene_graphs.json"
        path.write_text(json.dumps(synthetic(n)), encoding="utf-8")
        print(f"{n} synthetic scene graphs, {path.stat().st_size / 1e6:.1f} MB")
        _, base = timed("json.loads (baseline)", None,
                        lambda: json.loads(path.read_text(encoding="utf-8")))
        scenes, load = timed("load_scene_graphs (parse + validate)", base,
                             lambda: load_scene_graphs(path))
        cov, cover = timed("coverage (causal graphs + matching, all)", base,
                           lambda: coverage(scenes))
        result, build = timed("run_pipeline per_task=100 (all 12 tasks, paper)", base,
                              lambda: run_pipeline(scenes, per_task=100, seed=0,
                                                   design="paper"))
    print(f"matches: {dict(cov.matches)}; questions: {len(result.questions)}; "
          f"scenes visited: {result.scenes.get('visited')}")
    per_scene = (load + cover) / n
    print(f"extrapolated 'whatif stats scene_graphs.json' on Visual Genome ({VG_IMAGES} images): "
          f"{per_scene * VG_IMAGES / 60:.1f} min")


if __name__ == "__main__":
    main()
