"""Issue 40, item 7: the disk memo's keys are digests of a canonical encoding, so two different
outcome sets (or item id lists) never share an entry, whatever characters item ids hold."""

from __future__ import annotations

from whatifbench.report.comparisons import Layout, _outcomes_digest


def test_ids_holding_the_old_separators_do_not_collide() -> None:
    """Joined as ``id \\x1f outcome \\x1e``, the outcomes {x: right, y: wrong} and {"x\\x1f1\\x1ey":
    wrong} were the same text: the second set was answered from the first one's entry."""
    ids = ["x", "y", "x\x1f1\x1ey"]
    layout = Layout({i: "pair" for i in ids}, {i: [("group", "g")] for i in ids})
    two = {"x": True, "y": False}
    one = {"x\x1f1\x1ey": False}
    assert _outcomes_digest(layout, [two]) != _outcomes_digest(layout, [one])
    units = Layout({"a": "u\x1f[]\x1eb", "b": "u"}, {"a": [], "b": []})
    merged = Layout({"a\x1fu\x1f[]\x1eb": "u\x1f[]\x1eb", "b": "u"},
                    {"a\x1fu\x1f[]\x1eb": [], "b": []})
    assert _outcomes_digest(units, []) != _outcomes_digest(merged, [])
    assert _outcomes_digest(layout, [two]) == _outcomes_digest(layout, [dict(two)])


def test_reference_rows_key_item_ids_unambiguously() -> None:
    from whatifbench.report.memo import digest_of

    assert digest_of(["a\nb"]) != digest_of(["a", "b"])
    assert digest_of(["a", "b"]) == digest_of(["a", "b"])
