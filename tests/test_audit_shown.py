"""The audit reads what a harness can show (issue 41, items 5 and 6): item metadata and
provenance, every export's columns, names decoded with public facts, the image files'
structure. Each probe catches a planted or real leak and stays quiet on shortcut-free suites."""

from __future__ import annotations

import hashlib
import hmac
import io
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from whatifbench.analysis.audit.audit import audit_dataset, audit_items, flag_labels
from whatifbench.core.card import Card
from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator


def probe(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in result["probes"] if p["name"] == name)


def c2e(n_pairs: int, name: Any) -> list[Item]:
    """C2E-like items in groups of four pairs; ``name(kind, k)`` names image ``k``'s file."""
    items = []
    for k in range(n_pairs):
        group = [4 * (k // 4) + m for m in range(4)]
        random.Random(k).shuffle(group)
        letter = "ABCD"[group.index(k)]
        items.append(Item(
            id=name("item", k), images=(f"images/{name('cause', k)}.png",
                                        *(f"images/{name('effect', m)}.png" for m in group)),
            question="Which of the four images labelled A, B, C and D shows the effect?",
            kind="choice", choices=("A", "B", "C", "D"), target=letter,
            pair_id=name("pair", k), role="c2e", group="c2e",
            meta={"image_labels": ["Cause", "A", "B", "C", "D"]}))
    return items


@pytest.fixture(scope="module")
def mucr(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mucr")
    for design in ("paper", "shortcut-free"):
        MucrSyntheticGenerator.generate(root / design, groups=15, seed=2, design=design)
    return {design: root / design for design in ("paper", "shortcut-free")}


SHOWN = ("fields", "export hf/lmms-eval", "export vlmevalkit", "export inspect",
         "file structure", "file names", "ids")
"""The probes of what a harness shows (a paper design's names leak: not these two last)."""


def test_the_fields_probe_reads_what_exports_would_show(mucr: dict[str, Path]) -> None:
    paper = load_dataset(mucr["paper"])
    # Read whole (as if meta.candidates and meta.record were shown): the paper design's C2E/E2C
    # answer, every time.
    everything = audit_items(paper.items)
    fields = probe(everything, "fields")
    assert fields["flagged"]
    for group in ("c2e", "e2c"):  # candidates[answer] == record
        cut = next(s for s in fields["slices"] if (s["key"], s["value"]) == ("group", group))
        assert cut["flagged"] and cut["accuracy"] > 90 and cut["control"] < 40
    assert "export hf/lmms-eval" in flag_labels(everything)
    # As the suite's exports write them (its private meta left out): no field to read.
    shown = flag_labels(audit_items(paper.items, paper.card, paper.root))
    assert not [label for label in shown if label.split(":")[0] == "fields"], shown
    # The shortcut-free design (candidates drawn in the question's own scene, opaque names):
    # its meta names no candidate's pair, and nothing a harness shows is read, whole or public.
    free = load_dataset(mucr["shortcut-free"])
    assert not any("candidates" in i.meta for i in free.items)
    assert not probe(audit_items(free.items), "fields")["flagged"]
    shown = flag_labels(audit_items(free.items, free.card, free.root))
    assert not [label for label in shown if label.split(":")[0] in SHOWN], shown


def test_a_planted_metadata_field_is_caught_and_its_absence_is_quiet() -> None:
    items = c2e(160, lambda kind, k: hashlib.sha256(f"x{kind}{k}".encode()).hexdigest()[:16])
    planted = [replace(i, meta={**i.meta, "slot": 1 + "ABCD".index(i.target) % 4})
               for i in items]
    assert probe(audit_items(planted), "fields")["flagged"]
    quiet = [replace(i, meta={**i.meta, "slot": k % 3}) for k, i in enumerate(items)]
    assert not probe(audit_items(quiet), "fields")["flagged"]


def test_names_hashed_from_public_facts_are_decoded_and_read() -> None:
    card = Card(name="mucr-synthetic", suite="mucr", version="1",
                generator={"name": "mucr-synthetic", "params": {"seed": 3}}, seed=3)
    old_names = {"cause": "cause", "effect": "effect", "item": "c2e", "pair": "pair"}

    def public(kind: str, k: int) -> str:  # what earlier versions did
        text = f"mucr-synthetic:3:image:{k + 1}:{old_names[kind]}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def keyed(kind: str, k: int) -> str:  # what this version does
        text = f"mucr-synthetic:3:image:{k + 1}:{old_names[kind]}".encode()
        return hmac.new(b"\x07" * 32, text, hashlib.sha256).hexdigest()[:16]

    decoded = audit_items(c2e(120, public), card)
    assert probe(decoded, "file names")["flagged"]
    assert probe(decoded, "file names")["accuracy"] == 100.0
    assert not probe(audit_items(c2e(120, keyed), card), "file names")["flagged"]


@pytest.mark.parametrize("design", ["paper", "shortcut-free"])
def test_the_file_structure_probe_reads_palettes_in_drawing_order(design: str,
                                                                  tmp_path: Path) -> None:
    """The paper design writes the asked-about object's colour first in the palette:
    "the option colour that comes first" answers color-swap and color-match; the
    shortcut-free design writes the colours in RGB order."""
    CfmmSyntheticGenerator.generate(tmp_path / "ds", per_category=120, seed=43, workers=2,
                                    design=design)
    result = audit_dataset(tmp_path / "ds")
    flagged = {label for label in flag_labels(result) if label.startswith("file structure")}
    if design == "paper":  # color-swap and color-match basic questions: 100 % each
        assert flagged & {"file structure: template=color-swap",
                          "file structure: template=color-match"}, flagged
    else:
        assert not flagged, flagged


def test_a_text_chunk_that_names_the_answer_is_caught(tmp_path: Path) -> None:
    """A PNG whose text chunk says the answer: the file holds more than its pixels."""
    from PIL import Image, PngImagePlugin

    from whatifbench.core.dataset import DatasetWriter

    def picture(note: str) -> bytes:
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", note)
        buffer = io.BytesIO()
        Image.new("P", (8, 8)).save(buffer, format="PNG", pnginfo=info)
        return buffer.getvalue()

    rng = random.Random(5)
    for planted in (True, False):
        out = tmp_path / f"planted-{planted}"
        with DatasetWriter(out) as writer:
            for k in range(160):
                answer = rng.choice(("left", "right"))
                note = f"drawn {answer}" if planted else f"drawn {rng.choice(('left', 'right'))}"
                rel = writer.add_image(f"{k:03d}.png", picture(note))
                writer.add_item(Item(f"q{k}", (rel,), "Is the dot left or right?", "choice",
                                     answer, ("left", "right"), group="g"))
            writer.finish(name="t", suite="cfmm", version="1", generator={}, seed=None)
        found = probe(audit_dataset(out), "file structure")
        assert found["flagged"] == planted, found
