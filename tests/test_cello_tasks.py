"""CELLO tasks: each rule on each template, consistency with the whole graph, questions built from
scene graphs (answers, distractor kinds, leakage, balance)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from cello_fixtures import SCENES, obj, rel, scene

from whatifbench.suites.cello.causal.assemble import Question
from whatifbench.suites.cello.causal.distractors import entity
from whatifbench.suites.cello.causal.entities import Entity, mentions
from whatifbench.suites.cello.causal.graph import build_causal_graph
from whatifbench.suites.cello.causal.leakage import question_problems
from whatifbench.suites.cello.causal.pipeline import run_pipeline
from whatifbench.suites.cello.causal.questions import render, slot_values
from whatifbench.suites.cello.causal.scene_graph import load_scene_graphs
from whatifbench.suites.cello.causal.tasks import RUNGS, TASKS, BinaryTask, MultipleChoiceTask
from whatifbench.suites.cello.causal.templates import TEMPLATES, find_matches

ROLES = {"direct": "AB", "chain": "ABC", "confounding": "ZXY", "collision": "ABC"}

# Hand-derived from each task's rule (stability needs every support; see docs/cello.md).
# Multiple choice: (slots, correct, graph distractor); Yes/No: (slots, the change happens).
EXPECTED: dict[str, dict[str, list]] = {
    "causality_identification": {
        "chain": [("Y=B", "A", "C")], "confounding": [("Y=X", "Z", "Y")]},
    "causal_attribution": {"chain": [("O=C", "A", "B")]},
    "abstract_reasoning": {"chain": [("X=A", "C", "B")]},
    "collider_bias": {"collision": [("A=A C=C", "B", "C"), ("A=B C=C", "A", "C")]},
    "confounder_identification": {"confounding": [("Y=Y", "Z", "X")]},
    "backdoor_adjustment_set": {"confounding": [("X=X Y=Y", "Z", "ZY")]},
    "controlled_direct_effect": {
        "chain": [("T=A M=B O=C", False), ("T=B M=A O=C", True)],
        "confounding": [("T=Z M=X O=Y", True), ("T=X M=Z O=Y", True)],
        "collision": [("T=A M=B O=C", True), ("T=B M=A O=C", True)]},
    "counterfactual_reasoning": {
        "direct": [("X=B O=A", False)],
        "chain": [("X=B O=A", False), ("X=B O=C", True), ("X=C O=A", False),
                  ("X=C O=B", False)],
        "confounding": [("X=X O=Z", False), ("X=X O=Y", True), ("X=Y O=Z", False),
                        ("X=Y O=X", False)],
        "collision": [("X=C O=A", False), ("X=C O=B", False)]},
    "natural_direct_effect": {
        "chain": [("T=A M=B O=C", False)], "confounding": [("T=Z M=X O=Y", True)]},
    "natural_indirect_effect": {
        "chain": [("T=A M=B O=C", True), ("T=B M=A O=C", False)],
        "confounding": [("T=Z M=X O=Y", True), ("T=X M=Z O=Y", False)],
        "collision": [("T=A M=B O=C", False), ("T=B M=A O=C", False)]},
    "sufficient_cause": {
        "direct": [("X=A O=B", True)],
        "chain": [("X=A O=B", True), ("X=A O=C", True)],
        "confounding": [("X=Z O=X", True), ("X=Z O=Y", True)],
        "collision": [("X=A O=B", False), ("X=A O=C", True), ("X=B O=A", False),
                      ("X=B O=C", True)]},
    "necessary_cause": {
        "direct": [("O=B X=A", True)],
        "chain": [("O=B X=A", True), ("O=C X=A", False), ("O=C X=B", True)],
        "confounding": [("O=X X=Z", True), ("O=Y X=Z", False), ("O=Y X=X", True)],
        "collision": [("O=C X=A", False), ("O=C X=B", False)]},
}


def _template(graph_type: str) -> tuple[nx.DiGraph, dict[int, str]]:
    roles, edges = TEMPLATES[graph_type]
    ids = {r: k + 1 for k, r in enumerate(roles)}
    g = nx.DiGraph()
    g.add_nodes_from(ids.values())
    g.add_edges_from((ids[a], ids[b]) for a, b in edges)
    return g, {v: k for k, v in ids.items()}


def _frames(task_name: str, graph_type: str) -> list:
    g, name = _template(graph_type)
    (match,) = [m for m in find_matches(g) if m.graph_type == graph_type]
    out = []
    for f in TASKS[task_name].frames(match, g):
        slots = " ".join(f"{s}={name[n]}" for s, n in f.slots)
        if f.outcome is None:
            out.append((slots, "".join(name[n] for n in f.answer),
                        "".join(name[n] for n in f.graph_distractor)))
        else:
            out.append((slots, f.outcome))
    return out


def test_twelve_tasks_over_four_rungs() -> None:
    assert len(TASKS) == 12
    assert Counter(t.rung for t in TASKS.values()) == {
        "discovery": 3, "association": 1, "intervention": 3, "counterfactual": 5}
    assert [t.rung for t in TASKS.values()] == sorted(
        (t.rung for t in TASKS.values()), key=RUNGS.index)
    binary = {n for n, t in TASKS.items() if t.binary}
    assert binary == {"controlled_direct_effect", "counterfactual_reasoning",
                      "natural_direct_effect", "natural_indirect_effect", "sufficient_cause",
                      "necessary_cause"}


@pytest.mark.parametrize("task_name", list(TASKS))
def test_rule_on_every_template(task_name: str) -> None:
    task = TASKS[task_name]
    for graph_type in ROLES:
        found = _frames(task_name, graph_type)
        assert found == EXPECTED[task_name].get(graph_type, []), (task_name, graph_type)
    assert set(task.graph_types) == set(EXPECTED[task_name])


def test_rules_are_checked_against_the_whole_graph() -> None:
    # A collision A=1 -> C=3 <- B=2 inside a graph where A also supports B through D=4.
    g = nx.DiGraph([(1, 3), (2, 3), (1, 4), (4, 2)])
    (match,) = [m for m in find_matches(g) if m.graph_type == "collision"]
    sc = {f.slot["X"]: f.outcome for f in TASKS["sufficient_cause"].frames(match, g)
          if f.slot["O"] != 3}
    assert sc == {2: False}                   # "if A gave way, would B drop?" is no longer "No"
    assert TASKS["collider_bias"].frames(match, g) == []   # A and B are not independent here
    # Given C fell, B must have fallen in the whole graph (every support of C reaches B), while
    # the bare collision says it need not: that frame is dropped, A's is kept.
    nc = TASKS["necessary_cause"].frames(match, g)
    assert [(f.slot["X"], f.outcome) for f in nc] == [(1, False)]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Question], dict]:
    path = tmp_path_factory.mktemp("sg") / "scene_graphs.json"
    path.write_text(json.dumps(SCENES), encoding="utf-8")
    scenes = load_scene_graphs(path)
    result = run_pipeline(scenes, per_task=6, seed=0, design="paper")
    return list(result.questions), {s.image_id: s for s in scenes}


def test_every_task_yields_questions_whose_answer_follows_the_rule(built: tuple) -> None:
    questions, scenes = built
    assert {q.task_type for q in questions} == set(TASKS)
    for q in questions:
        task = TASKS[q.task_type]
        graph = build_causal_graph(scenes[q.image_id]).graph
        slots = q.frame.slot
        if isinstance(task, BinaryTask):
            polarity = q.provenance["polarity"]
            assert q.text == render(task.templates[polarity], _values(q))
            assert q.options == ("Yes", "No")
            assert q.options[q.answer_index] == task.answer(task.affected(graph, slots), polarity)
        else:
            assert isinstance(task, MultipleChoiceTask)
            answer = q.options[q.answer_index]
            assert answer == " and ".join(graph.nodes[n]["obj"].name for n in q.frame.answer)
            assert task.holds(graph, slots, q.frame.answer)
            assert not task.holds(graph, slots, q.frame.graph_distractor)


def _values(q: Question) -> dict[str, str]:
    objects = {o.object_id: o for o in q.objects}
    return slot_values(q.frame.slot, lambda n: entity(objects[n]))


def test_three_distractor_kinds(built: tuple) -> None:
    questions, scenes = built
    mc = [q for q in questions if not TASKS[q.task_type].binary]
    assert mc
    for q in mc:
        assert sorted(q.option_kinds) == ["correct", "graph", "image", "text"]
        assert q.option_kinds[q.answer_index] == "correct"
        sc = scenes[q.image_id]
        causal = build_causal_graph(sc).graph
        option = dict(zip(q.option_kinds, q.options, strict=True))
        in_image = [o for o in sc.objects if o.name == option["image"]]
        assert in_image and all(o.object_id not in causal for o in in_image)
        graph_names = {o.name for o in q.objects}
        assert set(option["graph"].split(" and ")) <= graph_names
        text = Entity(option["text"])
        assert not any(mentions(o.name, text) for o in sc.objects)
        assert option["text"] not in graph_names


def test_text_distractor_is_induced_by_the_question(built: tuple) -> None:
    questions, _ = built
    about_books = [q for q in questions if q.task_type == "causal_attribution"
                   and "books" in q.text]
    assert about_books
    for q in about_books:
        text = q.options[q.option_kinds.index("text")]
        assert text == "bookend"                # shares a scene with books, absent from this one
        assert q.provenance["distractors"]["text"]["rule"] == "co-occurrence"


def test_no_question_leaks_its_answer(built: tuple) -> None:
    questions, _ = built
    for q in questions:
        assert question_problems(q.text, q.required, q.forbidden) == []
        if not TASKS[q.task_type].binary:
            for k, option in zip(q.option_kinds, q.options, strict=True):
                if k in ("correct", "image", "text"):
                    assert not mentions(q.text, Entity(option)), (q.text, option)


def test_leakage_check() -> None:
    horse, beach = Entity("horse", ("horse.n.01",)), Entity("beach")
    racket = Entity("racket")
    assert question_problems("What supports the horse?", [horse], [beach]) == []
    assert question_problems("Does the beach hold the horse?", [horse], [beach]) == [
        "it names the beach, which would leak the answer"]
    assert question_problems("What holds the horses up?", [beach], [horse])[:1] == [
        "it does not mention the beach"]
    assert "it names the horse, which would leak the answer" in question_problems(
        "What holds the horses up?", [beach], [horse])
    assert question_problems("Who holds the tennis racket?", [Entity("tennis racket")],
                             [racket]) == []
    assert question_problems("The horse stands.", [horse], []) == [
        "it does not end with a question mark"]
    assert question_problems("Why? What supports the horse?", [horse], []) == [
        "it asks more than one question"]


def test_answers_and_positions_are_balanced(built: tuple) -> None:
    questions, _ = built
    for name, task in TASKS.items():
        positions = Counter(q.answer_index for q in questions if q.task_type == name)
        size = 2 if task.binary else 4
        counts = [positions[i] for i in range(size)]
        assert max(counts) - min(counts) <= 1, (name, counts)


def test_selection_is_deterministic_and_seeded(tmp_path: Path) -> None:
    scenes = []
    for k in range(8):
        for base in SCENES:
            offset = 1000 * (k + 1)
            scenes.append(scene(base["image_id"] + 10 * offset,
                                [obj(o["object_id"] + offset, o["names"][0],
                                     (o["x"], o["y"], o["w"], o["h"]), o["synsets"][0])
                                 for o in base["objects"]],
                                [rel(r["subject_id"] + offset, r["predicate"],
                                     r["object_id"] + offset) for r in base["relationships"]]))
    path = tmp_path / "sg.json"
    path.write_text(json.dumps(scenes))
    loaded = load_scene_graphs(path)

    def signature(seed: int) -> list:
        return [(q.task_type, q.image_id, q.text, q.options, q.answer_index)
                for q in run_pipeline(loaded, per_task=4, seed=seed,
                                       design="paper").questions]

    assert signature(3) == signature(3)
    assert signature(3) != signature(4)
