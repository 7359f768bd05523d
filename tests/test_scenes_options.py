"""``scenes.options``: candidates first, then the answer; balanced deals."""

from __future__ import annotations

import random
from collections import Counter

from whatifbench.scenes.options import (
    arrange,
    candidates,
    deal,
    deal_by,
    deal_pairs,
    matched,
    near_values,
)


def test_near_values_stay_in_range_apart_and_off_the_excluded() -> None:
    rng = random.Random(0)
    starts = Counter()
    for _ in range(2000):
        values = near_values(rng, 3, 23, 4, exclude=(10,))
        assert values is not None and len(set(values)) == 4 and list(values) == sorted(values)
        assert 3 <= values[0] and values[-1] <= 23 and 10 not in values
        assert all(1 <= b - a <= 3 for a, b in zip(values, values[1:], strict=False))
        starts[values[0]] += 1
    assert min(starts) == 3 and max(starts) >= 18  # shifted over the whole range
    assert near_values(rng, 4, 8, 4) is not None  # only spans up to 4 fit
    assert near_values(rng, 4, 6, 4) is None  # nothing fits


def test_matched_rows_keep_the_first_column_and_obey_the_rule() -> None:
    rng = random.Random(1)
    pairings = Counter()
    for _ in range(500):
        rows = matched(rng, (5, 6, 7, 8), (2, 3, 4, 5), lambda o, c: c < o)
        assert rows is not None and [r[0] for r in rows] == [5, 6, 7, 8]
        assert sorted(r[1] for r in rows) == [2, 3, 4, 5] and all(c < o for o, c in rows)
        pairings[tuple(rows)] += 1
    assert len(pairings) > 5  # drawn among the valid pairings, not always the sorted one
    assert matched(rng, (1, 2), (5, 6), lambda o, c: c < o) is None


def test_the_right_candidate_is_uniform_or_dealt() -> None:
    rng = random.Random(2)
    seen = Counter(candidates(rng, lambda r: (1, 2, 3, 4)).answer  # type: ignore[union-attr]
                   for _ in range(4000))
    assert all(900 <= seen[i] <= 1100 for i in range(4))
    found = candidates(rng, lambda r: ("a", "b"), answer=1)
    assert found is not None and found.right == "b" and found.others() == ("a",)
    assert candidates(rng, lambda r: None, tries=3) is None


def test_deals_are_balanced_overall_and_per_key() -> None:
    rng = random.Random(3)
    assert Counter(deal(rng, (0, 1, 2, 3), 10)) == {0: 3, 1: 3, 2: 2, 3: 2}
    keys = [i % 3 for i in range(30)]  # three groups of ten: leftovers must not pile up
    values = deal_by(rng, range(4), keys)
    assert sorted(Counter(values).values()) == [7, 7, 8, 8]
    for key in range(3):
        group = Counter(v for v, k in zip(values, keys, strict=True) if k == key)
        assert sorted(group.values()) == [2, 2, 3, 3]
    pairs = deal_pairs(rng, ("red", "blue", "green"), 30)
    assert all(a != b for a, b in pairs)
    assert Counter(a for a, _ in pairs) == Counter(b for _, b in pairs) == {
        "red": 10, "blue": 10, "green": 10}


def test_arrange_puts_the_answer_at_its_position() -> None:
    rng = random.Random(4)
    for position in range(4):
        options = arrange(7, (5, 6, 8), position, rng)
        assert options[position] == 7 and sorted(options) == [5, 6, 7, 8]

