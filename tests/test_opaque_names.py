"""Opaque names (issues 31, 41): the ``shortcut-free`` generators name every image, item and pair
by an HMAC under the naming secret (``scenes.opaque``, ``core.namekey``) and keep the telling
names in the private file (``core.private``); MuCR-Synthetic deals its pairs in a seeded order,
each item carrying the worlds of every image it shows; the ``paper`` designs keep their telling
names (their leak is the release's, and the audit must still catch it)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.core.namekey import NameKey
from whatifbench.core.private import read_private
from whatifbench.scenes.bodies import World, to_scene
from whatifbench.scenes.opaque import Namer, Unique
from whatifbench.scenes.render import render_png
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator
from whatifbench.suites.mucr.synthetic.scenes import MucrSyntheticScenes

HEX = re.compile(r"[0-9a-f]{16}")
IMAGE = re.compile(r"images/(intervened/)?[0-9a-f]{16}\.png")
GROUPS = 6
"""MuCR-Synthetic groups of the module's suites (24 pairs, 96 items)."""


@pytest.fixture(scope="module")
def mucr(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mucr-names")
    for design in ("shortcut-free", "paper"):
        MucrSyntheticGenerator.generate(root / design, groups=GROUPS, seed=11, design=design)
    return {d: root / d for d in ("shortcut-free", "paper")}


def _candidates(item: Item) -> tuple[str, list[str]]:
    """A C2E/E2C item's shown image name and its candidates' names (file stems)."""
    names = [Path(p).stem for p in item.images]
    return names[0], names[1:]


def _name_rule(items: list[Item]) -> float:
    """Share of C2E/E2C items answered by "the candidate whose name shares the shown image's
    leading token" (``1-cause`` → ``1-effect``)."""
    right = total = 0
    for item in items:
        if item.group not in ("c2e", "e2c"):
            continue
        shown, options = _candidates(item)
        key = re.split(r"[-_]", shown)[0]
        hits = [k for k, name in enumerate(options) if re.split(r"[-_]", name)[0] == key]
        right += hits == [item.target_index]
        total += 1
    return right / total


def test_mucr_names_say_nothing(mucr: dict[str, Path]) -> None:
    free = load_dataset(mucr["shortcut-free"]).items
    paper = load_dataset(mucr["paper"]).items
    assert _name_rule(paper) == 1.0  # the rule the issue found: every answer by its name
    assert _name_rule(free) == 0.0  # no two opaque names share a leading token
    private = read_private(mucr["shortcut-free"])
    for item in free:
        assert HEX.fullmatch(item.id) and HEX.fullmatch(item.pair_id or "")
        assert all(IMAGE.fullmatch(p) for p in item.images), item.images
        assert all(HEX.fullmatch(g) for g in item.meta["group_of_four"])
        shown = item.provenance["images"]
        assert [e["part"] for e in shown] == (
            ["cause", *["effect"] * 4] if item.group == "c2e" else
            ["effect", *["cause"] * 4] if item.group == "e2c" else ["cause", "effect"])
        for path, entry in zip(item.images, shown, strict=True):
            assert set(entry) <= {"pair", "part", "world"}  # no telling name in items.jsonl
            old = private["images"][path]  # the old-style name, pair and group: private only
            group = private["pairs"][entry["pair"]]["group"]
            assert re.fullmatch(rf"\d+-(?:[a-z0-9]+-[a-z0-9]+-)?{entry['part']}\.png", old)
            assert int(old.split("-")[0]) in range(4 * group + 1, 4 * group + 5)
        # the candidates are ways of the question's own scene (issue 41), all of its pair
        assert {e["pair"] for e in shown} == {item.pair_id}


def test_mucr_groups_are_not_read_from_the_order(mucr: dict[str, Path]) -> None:
    def adjacent_same_group(items: list[Item]) -> float:
        pairs = list(dict.fromkeys(i.pair_id for i in items))
        group = {i.pair_id: tuple(i.meta["group_of_four"]) for i in items}
        adjacent = zip(pairs, pairs[1:], strict=False)
        return sum(group[a] == group[b] for a, b in adjacent) / (len(pairs) - 1)

    assert adjacent_same_group(load_dataset(mucr["paper"]).items) == pytest.approx(18 / 23)
    assert adjacent_same_group(load_dataset(mucr["shortcut-free"]).items) < 0.4


def test_mucr_cue_items_of_a_group_offer_the_same_colours(mucr: dict[str, Path]) -> None:
    """Read together, a group's four Cue items tell nothing: they offer the same four phrases,
    each the answer of one of them."""
    groups: dict[tuple[str, ...], list[Item]] = defaultdict(list)
    for item in load_dataset(mucr["shortcut-free"]).items:
        if item.group == "cue":
            groups[tuple(item.meta["group_of_four"])].append(item)
    assert len(groups) == GROUPS
    for members in groups.values():
        assert len({frozenset(m.choices) for m in members}) == 1
        assert sorted(m.target for m in members) == sorted(members[0].choices)


def test_mucr_items_carry_every_world_they_show(mucr: dict[str, Path]) -> None:
    """Each image's world, from the item alone, draws the image's very bytes; the oracle's
    scene source reads a single item without the rest of its group."""
    path = mucr["shortcut-free"]
    for item in load_dataset(path).items[::5]:
        source = MucrSyntheticScenes()
        worlds = source.scenes(item)  # nothing learnt
        for world, image in zip(worlds, item.images, strict=True):
            assert render_png(to_scene(world, item.meta["style"])) == (path / image).read_bytes()
        own = item.provenance["scene"]  # the Cue/Exp scene; every item draws its own scene
        for world, entry in zip(worlds, item.provenance["images"], strict=True):
            assert world == World.from_json(entry["world"])
            if item.group in ("cue", "exp"):
                assert world == World.from_json(own[entry["part"]])


def test_mucr_paper_items_keep_their_names(mucr: dict[str, Path]) -> None:
    items = load_dataset(mucr["paper"]).items
    assert items[0].id == "1-c2e" and items[0].images[0] == "images/1-cause.png"
    assert all("images" not in i.provenance for i in items)


def test_cvqa_and_cfmm_shortcut_free_names(tmp_path: Path) -> None:
    CvqaSyntheticGenerator.generate(tmp_path / "cvqa", per_template=4, seed=3, workers=1,
                                    design="shortcut-free", intervened=True)
    CfmmSyntheticGenerator.generate(tmp_path / "cfmm", per_category=4, seed=3, workers=1)
    for name in ("cvqa", "cfmm"):
        items = load_dataset(tmp_path / name).items
        private = read_private(tmp_path / name)
        olds: Counter[str] = Counter()
        for item in items:
            assert HEX.fullmatch(item.id) and HEX.fullmatch(item.pair_id or "")
            assert all(IMAGE.fullmatch(p) for p in item.images), item.images
            intervened = item.provenance.get("intervened_image")
            assert intervened is None or IMAGE.fullmatch(intervened), intervened
            assert not {"old_name", "release_name", "index", "number"} & set(item.provenance)
            old = private["images"][item.images[0]]
            assert "_0000" in old and old.startswith(private["pairs"][item.pair_id or ""][:4])
            olds[old] += 1
            assert private["items"][item.id].endswith(
                ("original", "counterfactual", "-b", "-c"))
        assert set(olds.values()) == {2}  # one old name per pair, on both of its items
        assert [i.id for i in items] == sorted(i.id for i in items)  # written by id
        files = {p.relative_to(tmp_path / name).as_posix()
                 for p in (tmp_path / name / "images").rglob("*.png")}
        assert files == ({i.images[0] for i in items}
                         | {i.provenance["intervened_image"] for i in items
                            if "intervened_image" in i.provenance})


def test_opaque_names_are_keyed_and_checked() -> None:
    one, two = (Namer(NameKey(bytes([k]) * 32, "file"), ("g", 0)) for k in (1, 2))
    assert one.name("image", 1) == one.name("image", 1) != two.name("image", 1)
    assert len({Namer(one.key, ("g", s)).name("image", k)
                for s in range(3) for k in range(100)}) == 300
    assert one.file(suffix=".jpg").endswith(".jpg")
    assert "\\x01" not in repr(one) and "\\x01" not in repr(one.key)  # the secret is never shown
    unique = Unique("images")
    assert unique.check("a", 1) == "a" and unique.check("a", 1) == "a"
    with pytest.raises(RuntimeError, match="would both be named 'a'"):
        unique.check("a", 2)
