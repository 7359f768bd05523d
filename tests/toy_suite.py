"""A toy suite defined outside the package with its public API only (``register``, ``Suite``,
``DatasetWriter``, the shared metrics and tables): the conformance matrix runs it like the
shipped suites, so a new benchmark needs nothing outside its own folder.

"Parity": a picture of N dots; the original question asks whether N is even, the counterfactual
whether it would be even with one more dot (always the other answer), as yes/no items; plus a
multiple-choice question per picture on the count, unpaired. Also a test backend that answers by
hashing the pixels it is sent, so that image ablations change its answers.
"""

from __future__ import annotations

import hashlib
import io
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.facts import SuiteFacts
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Request
from whatifbench.core.suite import Sample, Suite
from whatifbench.core.table import Cell, Table
from whatifbench.metrics.paired import paired_metrics
from whatifbench.models.builtin.program import ProgramBackend
from whatifbench.report.labels import labeller
from whatifbench.runner.results import RunResult

NAME = "toy-parity"


def _dots(n: int, rng: random.Random) -> bytes:
    image = Image.new("RGB", (32, 32), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    cells = [(x, y) for x in range(4) for y in range(4)]
    rng.shuffle(cells)
    for x, y in cells[:n]:
        draw.ellipse((8 * x + 1, 8 * y + 1, 8 * x + 6, 8 * y + 6), fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@register("suite", NAME)
class ToyParitySuite(Suite):
    """Toy: is the number of dots even, and would it be with one more?"""

    name = NAME
    facts = SuiteFacts(pair_roles=("original", "counterfactual"),
                       headline="counterfactual_accuracy",
                       headline_name="counterfactual accuracy (%)")

    def extract(self, item: Item, reply: str, protocol: Any) -> dict[str, Any]:
        """Yes/no items read yes or no; choice items their letter."""
        if item.kind == "yes-no":
            from whatifbench.answers.yesno import extract_yes_no

            return {"default": extract_yes_no(reply)}
        return super().extract(item, reply, protocol)

    def metrics(self, samples: Sequence[Sample], items: Sequence[Item]) -> dict[str, Any]:
        """The paired metrics of the yes/no pairs, and the count questions' accuracy."""
        out = paired_metrics([s for s in samples if s.pair_id is not None])
        counted = [s for s in samples if s.pair_id is None and s.correct is not None]
        out["count_accuracy"] = (round(100 * sum(bool(s.correct) for s in counted)
                                       / len(counted), 2) if counted else None)
        out["n_count"] = len(counted)
        return out

    def tables(self, runs: Sequence[RunResult]) -> list[Table]:
        """One row per run: original, counterfactual, pair accuracy, count accuracy."""
        rows = []
        label = labeller(runs)  # tells apart runs of one model (ablations, protocols)
        for run in runs:
            m = run.metrics
            by_role = m.get("n_by_role") or {}
            rows.append((label(run),
                         Cell(m.get("original_accuracy"), n=by_role.get("original")),
                         Cell(m.get("counterfactual_accuracy"), n=by_role.get("counterfactual")),
                         Cell(m.get("pair_accuracy"), n=m.get("n_pairs")),
                         Cell(m.get("count_accuracy"), n=m.get("n_count"))))
        return [Table(f"Toy parity: {runs[0].dataset if runs else ''}",
                      ("model", "orig", "cf", "pair acc", "count acc"), tuple(rows),
                      unit="pairs")]

    def example(self, out: Path, seed: int = 0) -> None:
        """Twelve pictures: a yes/no pair and a count question each."""
        rng = random.Random(f"{NAME}:{seed}")
        with DatasetWriter(out) as writer:
            for k in range(12):
                n = rng.randint(1, 9)
                image = writer.add_image(f"p{k}.png", _dots(n, rng))
                even = "yes" if n % 2 == 0 else "no"
                odd = "no" if even == "yes" else "yes"
                writer.add_items([
                    Item(f"p{k}-o", (image,), "Is the number of dots even?", "yes-no", even,
                         pair_id=f"p{k}", role="original", group="parity"),
                    Item(f"p{k}-c", (image,), "If one more dot were drawn, would the number "
                         "of dots be even?", "yes-no", odd, pair_id=f"p{k}",
                         role="counterfactual", group="parity"),
                    Item(f"p{k}-n", (image,), "How many dots are there?", "choice", str(n),
                         tuple(str(v) for v in sorted({n, n % 9 + 1, (n + 3) % 9 + 1})),
                         group="count")])
            writer.finish(name=NAME, suite=NAME, version="1",
                          generator={"name": "example:toy", "params": {}}, seed=seed)


@register("backend", "test:pixels")
class PixelHashBackend(ProgramBackend):
    """Answers by a hash of the image bytes it is sent (so an ablation changes its answers)."""

    arg_names = frozenset({"delay"})

    def answer(self, item: Item, request: Request) -> str | None:
        digest = hashlib.sha256()
        for path in request.images:
            digest.update(Path(path).read_bytes())
        value = int.from_bytes(digest.digest()[:4], "big") + len(item.id)
        if item.kind == "choice":
            return item.choices[value % len(item.choices)]
        if item.kind == "yes-no":
            return ("yes", "no")[value % 2]
        if item.kind == "number":
            return str(value % 10)
        return None
