"""CELLO causal layer: VG reading, predicate mapping, causal graphs, positions, templates."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from cello_fixtures import BEACH, SCENES, SHELF, TABLE, obj, rel, scene

from whatifbench.errors import WhatifError
from whatifbench.suites.cello.causal.entities import Entity, mentions
from whatifbench.suites.cello.causal.graph import build_causal_graph, position
from whatifbench.suites.cello.causal.predicates import causal_edge, lookup
from whatifbench.suites.cello.causal.scene_graph import load_image_sizes, load_scene_graphs
from whatifbench.suites.cello.causal.templates import GRAPH_TYPES, find_matches

CASES = json.loads((Path(__file__).parent / "cases" / "cello_predicates.json").read_text())


def _load(tmp_path: Path, scenes: list[dict]) -> list:
    path = tmp_path / "scene_graphs.json"
    path.write_text(json.dumps(scenes), encoding="utf-8")
    return load_scene_graphs(path)


def _graph(edges: list[tuple[int, int]]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return g


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: repr(c["predicate"]))
def test_predicate_mapping(case: dict) -> None:
    rule = lookup(case["predicate"])
    if case["canonical"] is None:
        assert rule is None
    else:
        assert rule is not None
        assert (rule.canonical, rule.direction) == (case["canonical"], case["direction"])


def test_edge_points_from_supporter_to_supported() -> None:
    assert causal_edge(2, 1, "ON") == (1, 2)            # horse ON beach: beach -> horse
    assert causal_edge(3, 2, "riding") == (2, 3)        # women riding horse: horse -> women
    assert causal_edge(22, 23, "holding") == (22, 23)   # hand holding cup: hand -> cup
    assert causal_edge(1, 2, "next to") is None


def test_scene_graphs_load_with_name_variants(tmp_path: Path) -> None:
    record = scene(7, [{"object_id": 1, "name": "dog", "x": 0, "y": 0, "w": 5.0, "h": 5},
                       obj(2, "sofa", (0, 0, 9, 9))], [rel(1, "on", 2)])
    (graph,) = _load(tmp_path, [record])
    assert graph.image_id == 7
    dog = graph.by_id()[1]
    assert (dog.name, dog.synsets, dog.box) == ("dog", (), (0, 0, 5, 5))
    assert isinstance(dog.box[2], int)


@pytest.mark.parametrize(("record", "expected"), [
    ({"objects": [], "relationships": []}, "record 1 has no integer 'image_id'"),
    (scene(9, [{"object_id": 1, "x": 0, "y": 0, "w": 1, "h": 1}], []),
     "record 1 (image_id 9): object 1 needs 'names'"),
    (scene(9, [obj(1, "a", (0, 0, -1, 1))], []), "object 1 needs numeric 'x', 'y', 'w', 'h'"),
    (scene(9, [obj(1, "a", (0, 0, 1, 1))], [{"predicate": "on", "subject_id": "1",
                                             "object_id": 1}]),
     "a relationship needs a string 'predicate'"),
    (scene(9, [obj(1, "a", (0, 0, 1, 1)), obj(1, "b", (0, 0, 1, 1))], []),
     "duplicate object_id(s) [1]"),
    (scene(1001, [], []), "record 1 repeats image_id 1001 (first in record 0)"),
])
def test_scene_graph_problems_name_file_and_record(tmp_path: Path, record: dict,
                                                   expected: str) -> None:
    with pytest.raises(WhatifError) as err:
        _load(tmp_path, [BEACH, record])
    message = str(err.value)
    assert "scene_graphs.json" in message and expected in message


def test_scene_graphs_not_json(tmp_path: Path) -> None:
    path = tmp_path / "scene_graphs.json"
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(WhatifError, match="is not valid JSON"):
        load_scene_graphs(path)
    with pytest.raises(WhatifError, match="does not exist"):
        load_scene_graphs(tmp_path / "missing.json")


def test_image_sizes(tmp_path: Path) -> None:
    path = tmp_path / "image_data.json"
    path.write_text(json.dumps([{"image_id": 1, "width": 500, "height": 375},
                                {"id": 2, "width": 800, "height": 600}]))
    assert load_image_sizes(path) == {1: (500, 375), 2: (800, 600)}
    path.write_text(json.dumps([{"image_id": 1, "width": 0, "height": 375}]))
    with pytest.raises(WhatifError, match="record 0 needs integer"):
        load_image_sizes(path)


def test_causal_graph_of_the_example_scene(tmp_path: Path) -> None:
    (beach,) = _load(tmp_path, [BEACH])
    cg = build_causal_graph(beach)
    assert sorted(cg.graph.edges) == [(1, 2), (1, 3), (2, 3)]
    assert cg.graph.edges[2, 3]["relation"] == "riding"
    assert cg.graph.edges[1, 2]["relation"] == "ON"
    assert set(cg.graph) == {1, 2, 3}                      # sky and cloud take no causal part
    assert cg.unmapped == {"in": 1}
    assert cg.mapped == {"on": 2, "ride": 1}


def test_contradictory_dangling_and_repeated_relations(tmp_path: Path) -> None:
    record = scene(5, [obj(1, "box", (0, 0, 1, 1)), obj(2, "crate", (0, 0, 1, 1)),
                       obj(3, "cat", (0, 0, 1, 1)), obj(4, "mat", (0, 0, 1, 1))],
                   [rel(1, "on", 2), rel(2, "on", 1), rel(3, "on", 99), rel(3, "on", 3),
                    rel(3, "sitting on", 4), rel(3, "on", 4)])
    cg = build_causal_graph(_load(tmp_path, [record])[0])
    assert list(cg.graph.edges(data="relation")) == [(4, 3, "sitting on")]
    assert cg.dropped == {"contradictory": 2, "dangling": 1, "self": 1}


def test_positions_follow_the_example_record(shared_dir: Path) -> None:
    record = json.loads((shared_dir / "data" / "cello" / "example_record.json").read_text())
    for _, attrs in record["graph"]["nodes"]:
        boxes = attrs["boxes"]
        box = boxes[0] if isinstance(boxes[0], list) else boxes    # nested or flat
        assert position(tuple(box), (500, 375)) == attrs["position"]


def test_position_quadrants_and_ties() -> None:
    assert position((0, 0, 10, 10), (100, 100)) == "left_upper"
    assert position((90, 0, 10, 10), (100, 100)) == "right_upper"
    assert position((0, 90, 10, 10), (100, 100)) == "left_down"
    assert position((45, 45, 10, 10), (100, 100)) == "right_down"   # centre on the centre


@pytest.mark.parametrize(("edges", "found"), [
    ([(1, 2)], {"direct"}),
    ([(1, 2), (2, 3)], {"direct", "chain"}),
    ([(1, 2), (1, 3), (2, 3)], {"direct", "confounding"}),
    ([(1, 3), (2, 3)], {"direct", "collision"}),
    ([(1, 2), (3, 4)], {"direct"}),
    ([(1, 2), (2, 1)], set()),
])
def test_each_graph_type_is_detected_only_where_present(edges: list, found: set) -> None:
    matches = find_matches(_graph(edges))
    assert {m.graph_type for m in matches} == found


def test_matches_hold_exactly_the_template_and_come_once() -> None:
    g = _graph([(10, 20), (10, 30), (20, 30), (40, 30)])
    by_type: dict[str, list] = {}
    for m in find_matches(g):
        by_type.setdefault(m.graph_type, []).append(m)
    (conf,) = by_type["confounding"]
    assert conf.role == {"Z": 10, "X": 20, "Y": 30}
    assert conf.edges == ((10, 20), (10, 30), (20, 30))
    assert sorted(m.nodes for m in by_type["collision"]) == [(10, 40, 30), (20, 40, 30)]
    assert len(by_type["direct"]) == 4
    assert "chain" not in by_type                 # 10 -> 20 -> 30 has the shortcut 10 -> 30


def test_fixture_scenes_cover_all_graph_types(tmp_path: Path) -> None:
    found = set()
    for graph in _load(tmp_path, SCENES):
        found |= {m.graph_type for m in find_matches(build_causal_graph(graph).graph)}
    assert found == set(GRAPH_TYPES)
    shelf = build_causal_graph(_load(tmp_path, [SHELF])[0]).graph
    assert [m.graph_type for m in find_matches(shelf)].count("chain") == 1
    table = build_causal_graph(_load(tmp_path, [TABLE])[0]).graph
    assert {m.graph_type for m in find_matches(table)} == {"direct", "collision"}


def test_entity_grammar_and_forms() -> None:
    women = Entity("women", ("woman.n.01",))
    horses = Entity("horses", ("horse.n.01",))
    glass = Entity("glass", ("glass.n.02",))
    assert (women.plural, horses.plural, glass.plural) == (True, True, False)
    assert (women.possessive, horses.possessive, glass.possessive) == (
        "the women's", "the horses'", "the glass's")
    assert women.verb("is", "are") == "are"
    assert mentions("Would the woman fall?", women)
    assert mentions("Is the HORSE steady?", horses)
    assert not mentions("Is the horseshoe steady?", horses)
    assert mentions("Are the tennis rackets dry?", Entity("tennis racket"))
