"""``--design paper|shortcut-free`` of ``generate mucr-synthetic`` and ``build cello``: ``paper``
is the earlier output byte for byte; ``shortcut-free`` suites pass ``whatif audit`` and the
independent text-only classifiers of ``blind_check_mucr_cello`` (every slice of ≥ 60 items
within chance + 5 points) while ``paper`` ones fail both; the contrast sets and the cue phrases
are what the docs say."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from blind_check_mucr_cello import MIN_N, blind_check, flagged
from cello_fixtures import SCENES, write_input
from cello_world import write_world

from whatifbench.analysis.audit.audit import audit_dataset, flagged_slices
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.item import Item
from whatifbench.core.registry import register
from whatifbench.core.requests import Response
from whatifbench.models.base import Backend
from whatifbench.runner.evaluate import get_suite
from whatifbench.scenes.bodies import World
from whatifbench.scenes.mechanics import consequence
from whatifbench.scenes.narrate import NOUNS, phrase
from whatifbench.suites.cello.build import build_cello
from whatifbench.suites.cello.causal.entities import Entity, same_thing
from whatifbench.suites.cello.causal.tasks import TASKS
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator

WORLD_SCENES = 1000
"""Scene graphs of the CELLO test world: enough for 60 questions of every task."""
SMALL_WORLD = 400
"""Scene graphs of the smaller world, where several tasks need near contrast sets."""
SMALL_PER_TASK = 40
"""Questions per task asked of the smaller world."""


def digest(folder: Path) -> str:
    """sha256 of ``items.jsonl`` and of the card without its design and content hashes (the
    figures below were computed from main before the design existed)."""
    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    card["generator"]["params"].pop("design", None)
    card.pop("hashes")
    h = hashlib.sha256((folder / "items.jsonl").read_bytes())
    h.update(json.dumps(card, sort_keys=True).encode())
    return h.hexdigest()


def audit_flags(path: Path, by: tuple[str, ...]) -> list[str]:
    """``whatif audit``'s flagged slices (and the whole set, when flagged) of a dataset."""
    result = audit_dataset(path, by=by)
    assert any(s["n"] >= MIN_N for s in result["slices"])
    return ([f"{s['key']}={s['value']}" for s in flagged_slices(result)]
            + (["all"] if result["blind"]["flagged"] else []))


def _no_flags(items: list[Item]) -> None:
    results = blind_check(items)
    assert results and not flagged(results), "\n".join(r.line() for r in flagged(results))
    assert any(r.n >= MIN_N and r.slice != "all" for r in results)


# -- paper: today's output --------------------------------------------------------------------
@pytest.mark.parametrize(("groups", "seed", "expected"), [
    (3, 0, "fa62c0c9fc439bdc447357f06f0378fe253376bb31973f12c378fb4f424cbd59"),
    (6, 1, "61379019982e153d74a42e32525ce204e58982f224c323b8904f5ca80f20c41e"),
])
def test_mucr_paper_design_is_the_earlier_output(tmp_path: Path, groups: int, seed: int,
                                                 expected: str) -> None:
    card = MucrSyntheticGenerator.generate(tmp_path / "ds", groups=groups, seed=seed,
                                           design="paper")
    assert card.generator["params"]["design"] == "paper"
    assert digest(tmp_path / "ds") == expected


@pytest.mark.parametrize(("world", "seed", "expected"), [
    (False, 0, "f006f1a8fb61b46ab8ccbc58ad0e4a18b218d04eebfc19b6684d2f4517b1be11"),
    (False, 5, "09575d6c435ee963462fdbf9484a04fa4dda4bcd6d3fa22047f9cb67437c5faa"),
    (True, 0, "a6456af3dbf95271a0564260a7f943e4d386f2c96818698fa089820f93a6112b"),
    (True, 3, "5151a1033879ae6658205b15c36325d53c104f9403294e206ba8593b6e49e245"),
])
def test_cello_paper_design_is_the_earlier_output(tmp_path: Path, world: bool, seed: int,
                                                  expected: str) -> None:
    sg, data, images = (write_world(tmp_path / "in", 300) if world
                        else write_input(tmp_path / "in"))
    card = build_cello(sg, images, tmp_path / "ds", image_data=data,
                       per_task=20 if world else 3, seed=seed, design="paper")
    assert card.generator["params"]["design"] == "paper"
    assert digest(tmp_path / "ds") == expected


# -- mucr-synthetic -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mucr_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mucr-designs")
    for design in ("paper", "shortcut-free"):
        assert main(["generate", "mucr-synthetic", "--out", str(root / design), "--groups",
                     "15", "--seed", "2", "--design", design]) == 0
    return {design: root / design for design in ("paper", "shortcut-free")}


@pytest.fixture(scope="module")
def mucr(mucr_dirs: dict[str, Path]) -> dict[str, list[Item]]:
    return {design: list(load_dataset(path).items) for design, path in mucr_dirs.items()}


def test_mucr_cue_phrases_differ_only_in_colour(mucr: dict[str, list[Item]]) -> None:
    for item in (i for i in mucr["shortcut-free"] if i.group == "cue"):
        scene = item.provenance["scene"]
        cause = World.from_json(scene["cause"])
        agent = cause.get(scene["agent"])
        assert item.target == phrase(agent)
        named = []
        for choice in item.choices:
            bodies = [b for b in cause.bodies if b.kind in NOUNS and phrase(b) == choice]
            assert len(bodies) == 1, (item.id, choice)  # in the picture, named unambiguously
            named.append(bodies[0])
        assert {b.kind for b in named} == {agent.kind}
        assert len({b.color for b in named}) == 4
        for body in named:
            if body.id != agent.id:  # the other three are idle
                assert consequence(cause, body.id)[0] == cause


def test_mucr_shortcut_free_passes_the_text_only_check(mucr: dict[str, list[Item]]) -> None:
    _no_flags(mucr["shortcut-free"])
    leaks = {r.slice for r in flagged(blind_check(mucr["paper"]))}
    assert "group=cue" in leaks  # the check can fail: the paper design's cue is the agent


def test_mucr_shortcut_free_passes_the_audit(mucr_dirs: dict[str, Path]) -> None:
    by = ("style",)
    assert audit_flags(mucr_dirs["shortcut-free"], by) == []
    assert "group=cue" in audit_flags(mucr_dirs["paper"], by)


def test_mucr_design_on_the_card_and_the_command_line(mucr: dict[str, list[Item]],
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    card = MucrSyntheticGenerator.generate(tmp_path / "ds", groups=1)
    assert card.generator["params"]["design"] == "shortcut-free"
    with pytest.raises(SystemExit) as stop:
        main(["generate", "mucr-synthetic", "--out", str(tmp_path / "x"), "--design", "clevr"])
    assert stop.value.code == 2 and "invalid choice: 'clevr'" in capsys.readouterr().err


# -- CELLO ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cello(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cello-designs")
    sg, data, images = write_world(root / "in", WORLD_SCENES)
    for design in ("paper", "shortcut-free"):
        build_cello(sg, images, root / design, image_data=data, per_task=60, seed=0,
                    design=design)
    return {"paper": root / "paper", "shortcut-free": root / "shortcut-free", "input": sg}


def _sets(items: list[Item]) -> dict[str, list[Item]]:
    sets: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        assert item.pair_id is not None and item.role == "contrast"
        sets[item.pair_id].append(item)
    return sets


def test_cello_contrast_sets(cello: dict[str, Path]) -> None:
    ds = load_dataset(cello["shortcut-free"])
    assert ds.card.generator["params"]["design"] == "shortcut-free"
    assert all(n >= 60 for n in ds.card.counts["by_task"].values())
    assert len(ds.card.counts["by_task"]) == 12
    sets = _sets(ds.items)
    polarity: dict[str, list[bool]] = defaultdict(list)
    streams: dict[str, set[tuple]] = defaultdict(set)
    for members in sets.values():
        first = members[0]
        assert {m.meta["contrast"] for m in members} == {"same"}  # enough exact sets here
        assert {(m.question, m.choices, m.group) for m in members} == \
            {(first.question, first.choices, first.group)}
        assert len({m.meta["img_id"] for m in members}) == len(members)  # other images
        assert sorted(m.target for m in members) == sorted(first.choices)  # one answer each
        if first.meta["format"] == "binary":
            polarity[first.group].append("drop" in first.question or "given way too" in
                                         first.question)
            streams[first.group].add(tuple(sorted((m.meta["graph_type"],
                                                   m.provenance["outcome"]) for m in members)))
            continue
        assert len(members) in (2, 3, 4)
        for m in members:  # the other options fail the rule where they are in the picture
            assert m.meta["option_kinds"][m.target_index] == "correct"
            kinds = [k for k in m.meta["option_kinds"] if k != "correct"]
            assert set(kinds) <= {"graph", "image", "text"}
            assert m.provenance["options_answer_images"][m.target_index] == m.meta["img_id"]
    for task, falls in polarity.items():  # the polarity is balanced per kind of pair
        assert abs(2 * sum(falls) - len(falls)) <= len(streams[task]), task
    kinds = [k for i in ds.items for k in i.meta["option_kinds"] or () if k != "correct"]
    assert kinds.count("graph") + kinds.count("image") >= 0.25 * len(kinds)


def _slot_names(item: Item) -> tuple[str, ...]:
    names = {node: attrs["obj_name"] for node, attrs in item.meta["graph"]["nodes"]}
    return tuple(names[node] for node in item.provenance["slots"].values())


@pytest.fixture(scope="module")
def cello_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A shortcut-free CELLO built from a few hundred scene graphs (near sets needed)."""
    root = tmp_path_factory.mktemp("cello-small")
    sg, data, images = write_world(root / "in", SMALL_WORLD, seed=5)
    build_cello(sg, images, root / "ds", image_data=data, per_task=SMALL_PER_TASK, seed=1)
    return root / "ds", sg


def test_cello_covers_every_task_on_a_few_hundred_scene_graphs(
        cello_small: tuple[Path, Path]) -> None:
    from whatifbench.suites.cello.causal.graph import build_causal_graph
    from whatifbench.suites.cello.causal.prior import SupportPrior
    from whatifbench.suites.cello.causal.scene_graph import load_scene_graphs

    ds = load_dataset(cello_small[0])
    assert len(ds.card.counts["by_task"]) == 12
    assert all(n >= SMALL_PER_TASK for n in ds.card.counts["by_task"].values()), \
        ds.card.counts["by_task"]
    contrast = ds.card.extra["contrast"]
    assert sum(c["near_items"] for c in contrast.values()) > 0
    assert all(c["items"] == ds.card.counts["by_task"][t] for t, c in contrast.items())
    prior = SupportPrior(build_causal_graph(s) for s in load_scene_graphs(cello_small[1]))
    near = [m for m in _sets(ds.items).values() if m[0].meta["contrast"] != "same"]
    assert near
    for members in near:
        first = members[0]
        assert {m.meta["contrast"] for m in members} == {"one object differs"}
        assert {(m.choices, m.group) for m in members} == {(first.choices, first.group)}
        assert len({m.question for m in members}) == len(members)
        assert len({m.meta["img_id"] for m in members}) == len(members)
        assert sorted(m.target for m in members) == sorted(first.choices)  # one answer each
        names = [_slot_names(m) for m in members]
        differ = [k for k in range(len(names[0])) if len({n[k] for n in names}) > 1]
        assert len(differ) == 1, names  # the same objects but in one slot
        options = () if first.meta["format"] == "binary" else first.choices
        guesses = {prior.guess(m.group or "", list(zip(m.provenance["slots"], _slot_names(m),
                                                       strict=True)), options)
                   for m in members}
        assert len(guesses) == 1  # going by the names is right on exactly one member


def test_cello_yes_member_stands_first_in_half_of_the_pairs(
        cello: dict[str, Path], cello_small: tuple[Path, Path]) -> None:
    for path in (cello["shortcut-free"], cello_small[0]):
        items = load_dataset(path).items
        first: dict[str, list[bool]] = defaultdict(list)
        for members in _sets(items).values():
            if members[0].meta["format"] == "binary":
                first[members[0].group or ""].append(members[0].target == "Yes")
                assert int(members[0].id.split("-")[1]) < int(members[1].id.split("-")[1])
        assert set(first) == {t for t, task in TASKS.items() if task.binary}
        for task, yes in first.items():  # dealt: Yes first in exactly every other pair
            assert abs(2 * sum(yes) - len(yes)) <= 1, (task, sum(yes), len(yes))


def test_cello_shortcut_free_passes_the_text_only_check(cello: dict[str, Path]) -> None:
    _no_flags(load_dataset(cello["shortcut-free"]).items)
    leaks = {r.slice for r in flagged(blind_check(load_dataset(cello["paper"]).items))}
    assert {"group=sufficient_cause", "group=causality_identification"} <= leaks


def test_cello_shortcut_free_passes_the_audit(cello: dict[str, Path]) -> None:
    by = ("rung", "format", "graph_type")
    assert audit_flags(cello["shortcut-free"], by) == []
    leaks = audit_flags(cello["paper"], by)
    assert {"task_type=sufficient_cause", "task_type=causality_identification"} <= set(leaks)


def test_cello_distractors_fail_the_rule_in_each_image(cello: dict[str, Path]) -> None:
    from whatifbench.suites.cello.causal.graph import build_causal_graph
    from whatifbench.suites.cello.causal.scene_graph import load_scene_graphs
    from whatifbench.suites.cello.causal.tasks import MultipleChoiceTask

    scenes = {s.image_id: s for s in load_scene_graphs(cello["input"])}
    for item in load_dataset(cello["shortcut-free"]).items[::7]:
        task = TASKS[item.group or ""]
        if not isinstance(task, MultipleChoiceTask):
            continue
        cg = build_causal_graph(scenes[item.meta["img_id"]])
        slots = item.provenance["slots"]
        for k, option in enumerate(item.choices):
            holding = [o for o in cg.scene.objects if same_thing(Entity(o.name, o.synsets),
                                                                   Entity(option))
                       and task.holds(cg.graph, slots, (o.object_id,))]
            assert bool(holding) == (k == item.target_index), (item.id, option)


def test_cello_shortcut_free_is_byte_identical(tmp_path: Path) -> None:
    sg, data, images = write_world(tmp_path / "in", 300)
    src = Path(__file__).resolve().parents[1] / "src"
    for k, hash_seed in enumerate(("1", "2")):
        subprocess.run(
            [sys.executable, "-m", "whatifbench", "build", "cello", "--scene-graphs", str(sg),
             "--images", str(images), "--image-data", str(data), "--out", str(tmp_path / str(k)),
             "--per-task", "30"],
            env={**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": hash_seed},
            check=True, capture_output=True)
    for name in ("items.jsonl", "card.json"):
        assert (tmp_path / "0" / name).read_bytes() == (tmp_path / "1" / name).read_bytes()
    contrast = load_dataset(tmp_path / "0").card.extra["contrast"]
    assert sum(c["near_items"] for c in contrast.values()) > 0  # near sets are made alike too


def test_cello_shortcut_free_needs_contrasting_images(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    sg, data, images = write_input(tmp_path / "one", SCENES[:1])
    code = main(["build", "cello", "--scene-graphs", str(sg), "--images", str(images),
                 "--out", str(tmp_path / "ds")])
    err = capsys.readouterr().err
    assert code == 2 and "No contrast set could be built" in err and "--design paper" in err
    assert not (tmp_path / "ds").exists()
    # five images share no question with another answer: near sets only (one object differs)
    sg, data, images = write_input(tmp_path / "five")
    assert main(["build", "cello", "--scene-graphs", str(sg), "--images", str(images),
                 "--out", str(tmp_path / "ds")]) == 0
    err = capsys.readouterr().err  # the builder's summary
    items = load_dataset(tmp_path / "ds").items
    assert items and {i.meta["contrast"] for i in items} == {"one object differs"}
    assert "Questions per task:" in err and "in near sets)" in err


def test_cello_short_of_contrasts_says_so(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    sg, data, images = write_world(tmp_path / "in", 300)
    assert main(["build", "cello", "--scene-graphs", str(sg), "--images", str(images),
                 "--image-data", str(data), "--out", str(tmp_path / "ds"), "--per-task", "400",
                 "--task", "backdoor_adjustment_set", "--task", "sufficient_cause"]) == 0
    captured = capsys.readouterr()
    card = load_dataset(tmp_path / "ds").card
    short = [t for t in ("backdoor_adjustment_set", "sufficient_cause")
             if card.counts["by_task"].get(t, 0) < 400]
    assert short and all(t in captured.err for t in short) and "extra.contrast" in captured.err
    assert set(card.extra["contrast"]) == {"backdoor_adjustment_set", "sufficient_cause"}
    for task, n in card.counts["by_task"].items():  # the build summary: every task's count
        assert re.search(rf"^  {task} +{n}\b", captured.err, re.MULTILINE), captured.err


@register("backend", "test:text-hash")
class TextHash(Backend):
    """Answers from the request's text alone: a letter chosen by the text's sha256."""

    def generate(self, requests):  # type: ignore[no-untyped-def]
        for i, request in enumerate(requests):
            letters = [line[0] for line in request.prompt.splitlines()
                       if len(line) > 2 and line[1:3] == ". " and line[0].isupper()]
            digest = int(hashlib.sha256(request.prompt.encode()).hexdigest(), 16)
            yield i, Response(text=letters[digest % len(letters)])


def test_a_text_only_model_is_at_chance_and_never_right_on_a_whole_set(
        cello: dict[str, Path], tmp_path: Path) -> None:
    from whatifbench import api
    from whatifbench.analysis.audit.chance import chance_accuracy
    from whatifbench.runner.evaluate import RunOptions
    from whatifbench.runner.store import RunStore

    ds = load_dataset(cello["shortcut-free"])
    store = RunStore(tmp_path / "store.sqlite")
    try:
        [run] = api.run_all([ds], ["test:text-hash"], store=store,
                            options=RunOptions(progress=False))
    finally:
        store.close()
    m = run.metrics
    assert m["unparsed"] == 0.0
    assert m["accuracy"] == pytest.approx(100 * chance_accuracy(ds.items), abs=0.01)
    assert m["contrast_sets"]["all_right"] == 0.0
    assert m["contrast_sets"]["sets"] == len({i.pair_id for i in ds.items})
    titles = [t.title for t in get_suite("cello").tables([run])]
    assert "CELLO: contrast sets with every member right (%)" in titles


@register("backend", "test:cello-set-rewriter")
class SetRewriter(Backend):
    """Rewrites every prompt into a polite question, remembering the prompts it saw."""

    prompts: list[str] = []

    def generate(self, requests):  # type: ignore[no-untyped-def]
        for i, request in enumerate(requests):
            SetRewriter.prompts.append(request.prompt)
            template = request.prompt.split('Keep exactly the meaning of: "', 1)[1].split('"')[0]
            yield i, Response(text="Looking at the picture: " + template[0].lower()
                              + template[1:])


def test_cello_rewrite_keeps_one_text_per_set(tmp_path: Path) -> None:
    sg, data, images = write_world(tmp_path / "in", 300)
    SetRewriter.prompts.clear()
    build_cello(sg, images, tmp_path / "ds", image_data=data, per_task=4, seed=0,
                rewriter=SetRewriter("test:cello-set-rewriter", {}),
                tasks=["sufficient_cause", "causal_attribution"])
    sets = _sets(load_dataset(tmp_path / "ds").items)
    assert len(SetRewriter.prompts) == len(sets)  # one call per set
    assert not any("Causal graph" in p or "Relevant descriptions" in p
                   for p in SetRewriter.prompts)  # no one image's graph in the wording
    for members in sets.values():
        assert len({m.question for m in members}) == 1
        assert members[0].question.startswith("Looking at the picture")
        assert all(m.provenance["rewrite"]["accepted"] for m in members)

