"""Pictures whose files hold only the pixels (issue 41, item 5): shortcut-free PNGs list the
colours they use once each, in RGB order, with no chunk besides IHDR, PLTE, IDAT and IEND (the
renderer fills its palette in drawing order, the asked-about object's colour first, which the
paper design keeps byte for byte); CFMM's shape-name rectangles and ovals carry as much ink as
its squares and circles."""

from __future__ import annotations

import io
import random
from pathlib import Path
from statistics import mean

import numpy as np
import pytest
from PIL import Image

from whatifbench.analysis.audit.files import file_facts
from whatifbench.scenes.model import Scene, SceneObject
from whatifbench.scenes.palette import COLORS
from whatifbench.scenes.render import encode_png, render, render_png
from whatifbench.suites.cfmm.free import draw_free_plan, name_free
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cfmm.tpl_shape import shape_name
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def _pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGB"))


def test_a_canonical_png_is_a_function_of_its_pixels() -> None:
    scene = Scene(64, 64, (SceneObject("a", "circle", "red", 20, 20, 8),
                           SceneObject("b", "square", "blue", 40, 40, 8, style="tinted"),
                           SceneObject("c", "square", "green", 40, 40, 8, style="tinted")))
    drawn, canonical = render_png(scene, canonical=False), render_png(scene)
    assert np.array_equal(_pixels(drawn), _pixels(canonical))
    facts = file_facts_of(canonical)
    assert list(facts.palette) == sorted(set(facts.palette))  # each colour once, in RGB order
    used = {tuple(p) for p in _pixels(canonical).reshape(-1, 3)}
    assert set(facts.palette) == used  # no entry no pixel uses (the tints' combinations)
    assert facts.chunks == "IHDR PLTE IDAT IEND"
    assert file_facts_of(drawn).palette[:2] == ((255, 255, 255), (188, 206, 244))  # as drawn
    assert encode_png(render(scene)) == canonical
    # the same pixels drawn in another order: another file as drawn, the same one canonically
    apart = (SceneObject("a", "circle", "red", 15, 15, 8),
             SceneObject("b", "square", "blue", 48, 48, 8))
    one, two = Scene(64, 64, apart), Scene(64, 64, apart[::-1])
    assert np.array_equal(_pixels(render_png(one)), _pixels(render_png(two)))
    assert render_png(one, canonical=False) != render_png(two, canonical=False)
    assert render_png(one) == render_png(two)


def file_facts_of(data: bytes) -> object:
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".png") as handle:
        handle.write(data)
        handle.flush()
        found = file_facts(Path(handle.name))
    assert found is not None
    return found


@pytest.mark.parametrize("make", [
    lambda out: CvqaSyntheticGenerator.generate(out, per_template=3, seed=5, workers=1,
                                                design="shortcut-free", intervened=True),
    lambda out: CfmmSyntheticGenerator.generate(out, per_category=4, seed=5, workers=1),
    lambda out: MucrSyntheticGenerator.generate(out, groups=2, seed=5),
])
def test_every_shortcut_free_picture_is_written_canonically(make: object, tmp_path: Path
                                                            ) -> None:
    make(tmp_path / "ds")  # type: ignore[operator]
    pictures = sorted((tmp_path / "ds" / "images").rglob("*.png"))
    assert pictures
    for path in pictures:
        facts = file_facts(path)
        assert facts is not None and facts.chunks == "IHDR PLTE IDAT IEND", path
        assert list(facts.palette) == sorted(set(facts.palette)), path
        assert facts.excess == 0, path  # exactly its pixels written the canonical way


def _inks(design: str, draws: int = 600) -> dict[tuple[str, bool], list[float]]:
    """Share of the canvas in the asked-about object's colour, per family and answer (equal
    sides or not), over ``draws`` shape-name scenes of ``design``."""
    rng = random.Random(44)
    out: dict[tuple[str, bool], list[float]] = {}
    while sum(len(v) for v in out.values()) < draws:
        if design == "shortcut-free":  # cfmm.free: "as wide and as tall as the blue one"
            changed = rng.random() < 0.5
            plan = draw_free_plan("shape-name", changed, rng, rng.randrange(2), ("", ""))
            draw = name_free(rng, changed, plan)
        else:
            draw = shape_name(rng, False)
        if draw is None:
            continue
        family, equal = draw.params["family"], draw.params["equal_sides"]
        color = COLORS[draw.basic.split()[-2]]  # "What shape is the red object?"
        pixels = np.asarray(render(draw.scene).convert("RGB"))
        out.setdefault((family, equal), []).append(
            float((pixels == np.array(color, dtype=np.uint8)).all(axis=2).mean()))
    return out


@pytest.mark.parametrize("design", ["shortcut-free", "paper"])
def test_shape_names_carry_no_ink_difference(design: str) -> None:
    """The paper design stretches one side to twice the square's (the issue: 0.034 vs 0.023
    of the canvas, ink share answering 82-83 %); the shortcut-free one keeps the area."""
    inks = _inks(design)
    for family in ("box", "round"):
        unequal, equal = inks[family, False], inks[family, True]
        gap = mean(unequal) / mean(equal)
        ranked = sorted([(v, False) for v in unequal] + [(v, True) for v in equal])
        best = max(max(sum((v > cut) != eq for v, eq in ranked),
                       sum((v <= cut) != eq for v, eq in ranked))
                   for cut, _ in ranked) / len(ranked)  # the best threshold on ink
        if design == "paper":
            assert gap > 1.6 and best > 0.75, (family, gap, best)
        else:
            assert 0.95 < gap < 1.05 and best < 0.6, (family, gap, best)
