"""mucr-synthetic: generation speed, and how well ``builtin:scene-reader`` reads the pairs.

Measures, in one run:
  1. generating ``--groups`` groups of four pairs through the public API (sampling, computing
     every consequence, validity filters, rendering, writing);
  2. baseline "render": rendering and PNG-encoding the very same cause and effect worlds (read
     back from the items' provenance) in this process; the bytes must equal the files;
  3. ``builtin:scene-reader`` on the dataset in both image layouts (multi and composite),
     with the default offline Exp judge: accuracy on C2E, E2C, Cue (the bar is 95 %), Exp, and
     the time per item.
Prints the times, the ratio generation / render (how much the drawing-free work costs on top of
drawing the pictures) and the reader's metrics.

    PYTHONPATH=src python bench/bench_mucr_synthetic.py [--groups 25] [--seed 0] [--dir DIR]
        [--design shortcut-free|paper]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from whatifbench import api
from whatifbench.core.dataset import load_dataset
from whatifbench.core.design import DESIGNS, SHORTCUT_FREE
from whatifbench.runner.evaluate import RunOptions
from whatifbench.runner.store import RunStore
from whatifbench.scenes.bodies import World, to_scene
from whatifbench.scenes.render import render_png
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--design", choices=DESIGNS, default=SHORTCUT_FREE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.dir or Path(tmp)
        out = root / "mucr-synthetic"
        t0, c0 = time.perf_counter(), time.process_time()
        MucrSyntheticGenerator.generate(out, groups=args.groups, seed=args.seed,
                                        design=args.design, overwrite=True)
        gen_wall, gen_cpu = time.perf_counter() - t0, time.process_time() - c0
        data = load_dataset(out)
        cue_items = [i for i in data.items if i.group == "cue"]
        t0, c0 = time.perf_counter(), time.process_time()
        for item in cue_items:
            scene, style = item.provenance["scene"], item.meta["style"]
            for key, rel in zip(("cause", "effect"), item.images, strict=True):
                png = render_png(to_scene(World.from_json(scene[key]), style))
                assert png == (out / rel).read_bytes(), rel
        ren_wall, ren_cpu = time.perf_counter() - t0, time.process_time() - c0
        images = 2 * len(cue_items)
        print(f"generation: {args.groups} groups, {len(cue_items)} pairs, {images} images, "
              f"{len(data.items)} items: {gen_wall:.2f} s wall ({gen_cpu:.2f} s CPU), "
              f"{images / gen_wall:.0f} images/s")
        print(f"baseline render+encode of the same images: {ren_wall:.2f} s wall "
              f"({ren_cpu:.2f} s CPU); ratio generation/render = {gen_wall / ren_wall:.2f} "
              f"(CPU {gen_cpu / ren_cpu:.2f})")
        for layout in ("multi", "composite"):
            store = RunStore(root / f"store-{layout}.sqlite")
            t0 = time.perf_counter()
            try:
                [run] = api.run_all([out], ["builtin:scene-reader"], store=store,
                                    protocol=api.Protocol(image_layout=layout),
                                    options=RunOptions(progress=False))
            finally:
                store.close()
            wall = time.perf_counter() - t0
            m = run.metrics
            print(f"scene-reader, {layout}: C2E {m['c2e']:.1f} %, E2C {m['e2c']:.1f} %, "
                  f"Cue {m['cue']:.1f} %, Exp {m['exp']:.2f}/10 over {m['n_pairs']} pairs; "
                  f"{wall:.1f} s ({1000 * wall / len(data.items):.0f} ms per item, judge "
                  "included)")


if __name__ == "__main__":
    main()
