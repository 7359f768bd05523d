"""An outside plugin package, written to a folder as pip would install it: the package and its
``*.dist-info`` (``METADATA``, ``entry_points.txt`` declaring a ``whatifbench.plugins`` module).
Put the folder on ``PYTHONPATH`` and whatif finds it as it finds an installed distribution.

``ACME`` is a suite and its generator written against the API documented before issue 39
(docs/adding-a-suite.md of that time): a ``Suite`` subclass with ``metrics`` and ``tables``, a
generator class with ``generate``, ``add_arguments`` and ``run``. Other sources make plugins
that misbehave (a name already taken, an error or ``sys.exit`` in their own code)."""

from __future__ import annotations

import textwrap
from pathlib import Path

ACME = '''
"""Acme parity: is the number of dots even, and would it be with one more?"""

from __future__ import annotations

import argparse
from typing import Annotated
import io
import random
from pathlib import Path

from PIL import Image, ImageDraw

from whatifbench.core.dataset import DatasetWriter
from whatifbench.core.item import Item
from whatifbench.core.params import Param, declared
from whatifbench.core.registry import register
from whatifbench.core.suite import Suite
from whatifbench.metrics.paired import paired_metrics
from whatifbench.report.labels import labeller
from whatifbench.report.table import Cell, Table


def _dots(n, rng):
    image = Image.new("RGB", (32, 32), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    cells = [(x, y) for x in range(4) for y in range(4)]
    rng.shuffle(cells)
    for x, y in cells[:n]:
        draw.ellipse((8 * x + 1, 8 * y + 1, 8 * x + 6, 8 * y + 6), fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@register("suite", "acme-parity")
class AcmeSuite(Suite):
    """Acme parity: even dots, and with one more?"""

    name = "acme-parity"
    pair_roles = ("original", "counterfactual")

    def extract(self, item, reply, protocol):
        from whatifbench.answers.yesno import extract_yes_no

        return {"default": extract_yes_no(reply)}

    def metrics(self, samples, items):
        out = paired_metrics(samples)
        right = [s for s in samples if s.correct is not None]
        out["accuracy"] = (round(100 * sum(bool(s.correct) for s in right) / len(right), 2)
                           if right else None)
        return out

    def tables(self, runs):
        label = labeller(runs)
        rows = [(label(r), Cell(r.metrics.get("original_accuracy")),
                 Cell(r.metrics.get("counterfactual_accuracy")),
                 Cell(r.metrics.get("pair_accuracy"))) for r in runs]
        return [Table(f"Acme parity: {runs[0].dataset}", ("model", "orig", "cf", "pair acc"),
                      tuple(rows), unit="pairs")]


@register("generator", "acme-parity-gen")
class AcmeGenerator:
    """Acme parity pictures and their two questions."""

    version = "1"
    suite = "acme-parity"

    @staticmethod
    def generate(out, *, pairs=6, seed=0, overwrite=False):
        rng = random.Random(f"acme:{seed}")
        with DatasetWriter(out, overwrite=overwrite) as writer:
            for k in range(pairs):
                n = rng.randint(1, 9)
                image = writer.add_image(f"p{k}.png", _dots(n, rng))
                even = "yes" if n % 2 == 0 else "no"
                odd = "no" if even == "yes" else "yes"
                writer.add_items([
                    Item(f"p{k}-o", (image,), "Is the number of dots even?", "yes-no", even,
                         pair_id=f"p{k}", role="original", group="parity"),
                    Item(f"p{k}-c", (image,), "If one more dot were drawn, would the number "
                         "of dots be even?", "yes-no", odd, pair_id=f"p{k}",
                         role="counterfactual", group="parity")])
            writer.finish(name="acme-parity", suite="acme-parity", version="1",
                          generator={"name": "acme-parity-gen", "params": {"pairs": pairs}},
                          seed=seed)

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--pairs", type=int, default=6, help="pairs to draw")
        parser.add_argument("--seed", type=int, default=0, help="random seed")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        AcmeGenerator.generate(args.out, pairs=args.pairs, seed=args.seed,
                               overwrite=args.overwrite)
        return 0


@register("generator", "acme-parity-typed")
class AcmeTypedGenerator:
    """Acme parity pairs, written against the API of issue 39: one typed signature."""

    version = "1"
    suite = "acme-parity"

    @staticmethod
    @declared
    def generate(out, *, pairs: Annotated[int, Param("pairs to draw", low=1)] = 6,
                 seed: Annotated[int, Param("random seed")] = 0,
                 overwrite: bool = False):
        AcmeGenerator.generate(out, pairs=pairs, seed=seed, overwrite=overwrite)


@register("generator", "acme-broken")
class AcmeBroken:
    """A generator whose own code fails (or exits), as plugins' code may."""

    version = "1"
    suite = "acme-parity"

    @staticmethod
    def add_arguments(parser):
        parser.add_argument("--how", choices=("raise", "exit"), default="raise")

    @staticmethod
    def run(args):
        if args.how == "exit":
            raise SystemExit(3)
        return {"pairs": 1}["triples"]
'''

TAKEN_BACKEND = '''
from whatifbench.core.registry import register
from whatifbench.models.builtin.reference import ConstantBackend


@register("backend", "builtin:constant")
class NotConstant(ConstantBackend):
    """A backend claiming a built-in name."""
'''

TAKEN_GENERATOR = '''
from whatifbench.core.registry import register


@register("generator", "cvqa-synthetic")
class Imposter:
    """A generator claiming a built-in name."""
'''


def install(root: Path, package: str, module: str, source: str) -> Path:
    """``package`` (a distribution) with one plugin module ``module`` holding ``source``,
    written under ``root`` as a ``site-packages`` folder holds it."""
    top = module.split(".")[0]
    (root / top).mkdir(parents=True, exist_ok=True)
    (root / top / "__init__.py").write_text("")
    (root / (module.replace(".", "/") + ".py")).write_text(textwrap.dedent(source))
    info = root / f"{package.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n\n")
    (info / "entry_points.txt").write_text(f"[whatifbench.plugins]\n{top} = {module}\n")
    return root
