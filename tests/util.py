"""Small hand-built datasets for tests of the core (no generator needed), and helpers to run
``whatif`` as a real process and compare folders."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from PIL import Image

from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item


def png(color: tuple[int, int, int], size: int = 24) -> bytes:
    """A small solid PNG."""
    buf = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buf, format="PNG")
    return buf.getvalue()


def make_choice_dataset(out: Path, n_pairs: int = 6, seed: int = 0,
                        suite: str = "cvqa-synthetic") -> Path:
    """``n_pairs`` original/counterfactual 4-option pairs over distinct images, in two groups."""
    rng = random.Random(seed)
    with DatasetWriter(out) as writer:
        for k in range(n_pairs):
            rel = writer.add_image(f"img_{k:03d}.png", png((k * 37 % 256, 80, 160)))
            group = f"abs_counting_{1 + k % 2}"
            for role in ("original", "counterfactual"):
                values = rng.sample(range(30), 4)
                target = values[rng.randrange(4)]
                options = "  ".join(f"{'ABCD'[i]}:{v}" for i, v in enumerate(values))
                question = f"How many dots ({role})? Select the correct answer:{options}"
                writer.add_item(Item(
                    id=f"p{k}-{role[0]}", images=(rel,), question=question, kind="choice",
                    target=str(target), choices=tuple(str(v) for v in values), pair_id=f"p{k}",
                    role=role, group=group, meta={"image": f"img_{k:03d}.png"},
                    provenance={"explanation": f"There are {target} dots."}))
        writer.finish(name="handmade", suite=suite, version="test", generator={"name": "hand"},
                      seed=seed)
    return out


def page_data(page: str) -> dict:
    """The JSON data block of a report page (``report.html``)."""
    found = re.search(r"<script type='application/json' id='whatif-data'>(.*?)</script>", page,
                      re.S)
    assert found, "the page has no data block"
    return json.loads(found.group(1))


def run_outputs(folder: Path) -> tuple[object, list[object]]:
    """``results.json`` and ``samples.jsonl`` of a run folder, parsed, without the random
    ``run_id`` (the one part that differs between otherwise identical runs) and without the
    digest of the run entries (``runs_sha256``: the entries themselves are compared, and tests
    leave out parts of them, such as an execution argument)."""
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    results.pop("run_id")
    results.pop("runs_sha256", None)
    samples = [json.loads(line) for line in
               (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    for sample in samples:
        sample.pop("run_id")
    return results, samples


SRC = str(Path(__file__).resolve().parents[1] / "src")


def whatif_env(home: Path | None = None) -> dict[str, str]:
    """The environment for a ``whatif`` subprocess running this checkout's source."""
    env = {**os.environ, "PYTHONPATH": SRC}
    if home is not None:
        env["WHATIF_HOME"] = str(home)
    return env


def whatif(args: list[str], cwd: Path | None = None, home: Path | None = None,
           timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``python -m whatifbench ARGS`` as a real process; return it finished."""
    return subprocess.run([sys.executable, "-m", "whatifbench", *args], cwd=cwd,
                          env=whatif_env(home), text=True, capture_output=True, timeout=timeout,
                          check=False)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path → bytes), hidden ones included."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}
