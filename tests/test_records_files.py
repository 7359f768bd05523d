"""Every other file whatif reads, parsed through its schema (issue 39, item 1): item banks,
report memo entries, the audit cache and ``--suspects`` files. Each field given a value of the
wrong type (or out of range, or nested 100,000 deep) is one sentence naming the file, the line
and the field, exit 2, never an internal error; an edited memo entry or audit (a number changed,
types intact) is refused by its seal instead of shown."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_records_fuzz import get, leaves, pattern, put, wrong
from util import make_choice_dataset

from whatifbench.analysis.audit.store import AUDIT_VERSION, load_audit, save_audit
from whatifbench.analysis.items.bank import fit_bank, load_bank
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.records.schema import dotted
from whatifbench.errors import WhatifError
from whatifbench.report import memo
from whatifbench.report.memo import COMPARED, GAINS
from whatifbench.report.reference import ReferencesJSON
from whatifbench.review.suspects import read_suspects

DEEP = "[" * 100_000 + "]" * 100_000


def each_field(data: Any, free: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """One position of each shape of ``data`` (the free-form ones left out)."""
    seen: dict[str, tuple[Any, ...]] = {}
    for path in leaves(data):
        shape = pattern(path)
        if not any(re.fullmatch(f, shape) for f in free):
            seen.setdefault(shape, path)
    yield from seen.items()


def refused(read: Any, path: Path, data: Any, position: tuple[Any, ...]) -> str:
    """The message reading ``data`` (written to ``path``) with ``position`` damaged gives."""
    bad = copy.deepcopy(data)
    put(bad, position, wrong(get(bad, position)))
    path.write_text(json.dumps(bad, indent=1))
    with pytest.raises(WhatifError) as caught:
        read(path)
    return str(caught.value)


def test_every_field_of_an_item_bank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    y = (rng.random((24, 12)) < 0.5).astype(float)
    units = [(f"u{k}", f"p{k // 2}", (f"p{k // 2}-a", f"p{k // 2}-b")) for k in range(12)]
    bank = fit_bank(y, np.ones_like(y, dtype=bool), units,
                    {"name": "sim", "suite": "cvqa-synthetic", "items_sha256": "abc"},
                    "questions", "accuracy").to_json()
    path = tmp_path / "bank.json"
    problems = []
    for shape, position in each_field(bank, free=(r"fit\..*",)):
        said = refused(load_bank, path, bank, position)
        expected = (r"not a whatifbench item bank" if shape == "format" else
                    r"has version" if shape == "version" else
                    rf"bank\.json:\d+: field {re.escape(dotted(position))} ")
        if not re.search(expected, said):
            problems.append(f"{shape}: {said}")
    assert problems == []
    for change, field in ((lambda b: b["units"][3].update(a=float("nan")), r"units\[3\]\.a"),
                          (lambda b: b["units"][3].update(items=[]), r"units\[3\]\.items"),
                          (lambda b: b.update(respondents=0), r"respondents"),
                          (lambda b: b["units"][0].update(share_right=1.5), r"units\[0\]"),
                          (lambda b: b.update(units=[]), r"units")):
        bad = copy.deepcopy(bank)
        change(bad)
        path.write_text(json.dumps(bad, indent=1))
        with pytest.raises(WhatifError, match=rf"bank\.json:\d+: field {field}"):
            load_bank(path)
    path.write_text('{"format": "whatifbench-item-bank", "fit": ' + DEEP + "}")
    with pytest.raises(WhatifError, match=r"bank\.json:1: not valid JSON \(nested more than"):
        load_bank(path)
    # end to end: whatif run --budget with the broken bank exits 2 before any model call
    ds = make_choice_dataset(tmp_path / "ds")
    bad = copy.deepcopy(bank)
    bad["units"][5]["d"] = "low"
    path.write_text(json.dumps(bad, indent=1))
    capsys.readouterr()
    assert main(["run", "--suite", str(ds), "--model", "builtin:constant", "--budget", "4",
                 "--bank", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert re.search(r'bank\.json:\d+: field units\[5\]\.d is "low", not a number', err), err
    assert "internal error" not in err and not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def remembered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A run folder of two models (comparisons and reference rows) and the memo entries
    ``whatif run`` left."""
    tmp = tmp_path_factory.mktemp("memo")
    home = tmp / "home"
    patch = pytest.MonkeyPatch()
    patch.setenv("WHATIF_HOME", str(home))
    ds = make_choice_dataset(tmp / "ds", n_pairs=6)
    run = tmp / "run"
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
                 "builtin:constant", "--no-progress", "--out", str(run)]) == 0
    entries = {p.name.split("-")[0]: p for p in memo.folder().glob("*.json")}
    yield {"run": run, "entries": entries, "tmp": tmp, "home": home}
    patch.undo()


SCHEMAS = {"compared": COMPARED, "gains": GAINS, "references": ReferencesJSON}


def test_every_field_of_a_memo_entry(remembered: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WHATIF_HOME", str(remembered["home"]))
    assert {"compared", "references"} <= set(remembered["entries"])
    problems = []
    for kind, path in remembered["entries"].items():
        original = path.read_text()
        stored = json.loads(original)
        for shape, position in each_field(stored):
            if position[0] == "kind":
                continue  # another kind's entry: not this one, computed again
            bad = copy.deepcopy(stored)
            put(bad, position, wrong(get(bad, position)))
            path.write_text(json.dumps(bad, indent=1))
            try:
                memo._stored(path, kind, SCHEMAS[kind])
                problems.append(f"{kind} {shape}: read")
            except WhatifError as exc:
                said = str(exc)
                named = re.search(rf"{path.name}:\d+: field {re.escape(dotted(position))}", said)
                if not named and "was changed after it was written" not in said:
                    problems.append(f"{kind} {shape}: {said}")
        path.write_text(original)
    assert problems == []
    # an edited number, types intact: the seal refuses it (issue 39: it was shown)
    path = remembered["entries"]["compared"]
    original = path.read_text()
    stored = json.loads(original)
    stored["value"][0][2]["difference"] = 99.0
    path.write_text(json.dumps(stored))
    capsys.readouterr()
    out = remembered["tmp"] / "rep"
    assert main(["report", str(remembered["run"]), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "was changed after it was written" in err and "remove it" in err, err
    # wrong types end to end: exit 2 naming the entry, line and field
    stored = json.loads(original)
    stored["value"][0][2]["a_only"] = "three"
    path.write_text(json.dumps(stored, indent=1))
    assert main(["report", str(remembered["run"]), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf'{path.name}:\d+: field value\[0\]\[2\]\.a_only is "three"', err), err
    path.write_text('{"kind": "compared", "value": ' + DEEP + "}")
    assert main(["report", str(remembered["run"]), "--out", str(out)]) == 0  # computed again
    assert "internal error" not in capsys.readouterr().err
    path.write_text(original)


def test_an_audit_cache_of_the_wrong_shape_or_edited(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    sha = "a" * 64
    audit = {"dataset": {"items": 12}, "blind": {"accuracy": 50.0, "chance": 50.0, "n": 12,
                                                 "interval": [25.0, 75.0], "flagged": False},
             "slices": [{"key": "group", "value": "g1", "n": 6, "blind": 50.0,
                         "interval": [20.0, 80.0], "p_holm": 1.0}],
             "per_item": {"ids": ["a", "b"], "blind": [1, 0]}, "probes": {"x": 1}}
    assert save_audit(sha, audit)
    path = tmp_path / "home" / "audit" / f"{sha}.v{AUDIT_VERSION}.json"
    assert load_audit(sha) == audit
    sealed = json.loads(path.read_text())
    problems = []
    for shape, position in each_field(sealed, free=(r"probes\..*", r"dataset\..*")):
        if position == ("blind",):
            continue  # no blind figures: not an audit of this version, computed again
        said = refused(lambda _: load_audit(sha), path, sealed, position)
        if not re.search(rf"{path.name}:\d+: field {re.escape(dotted(position))}", said) \
                and "was changed after" not in said:
            problems.append(f"{shape}: {said}")
    assert problems == []
    edited = copy.deepcopy(sealed)
    edited["blind"]["accuracy"] = 95.0
    path.write_text(json.dumps(edited))
    with pytest.raises(WhatifError, match="was changed after 'whatif audit' wrote it"):
        load_audit(sha)
    path.write_text('{"blind": ' + DEEP + "}")
    assert load_audit(sha) is None  # not JSON we can read: computed again


def test_every_field_of_a_suspects_file(tmp_path: Path) -> None:
    ds = load_dataset(make_choice_dataset(tmp_path / "ds"))
    data = {"dataset": {"items_sha256": ds.items_sha256, "name": "x"},
            "items": [{"id": ds.items[0].id, "suspect": True, "reasons": ["key looks wrong"]},
                      {"id": ds.items[1].id, "suspect": False, "reasons": []}]}
    path = tmp_path / "items.json"
    path.write_text(json.dumps(data))
    assert read_suspects(path, ds) == {ds.items[0].id: (0, "key looks wrong")}
    problems = []
    for shape, position in each_field(data, free=(r"dataset\.name",)):
        said = refused(lambda p: read_suspects(p, ds), path, data, position)
        if not re.search(rf"items\.json:\d+: field {re.escape(dotted(position))}", said):
            problems.append(f"{shape}: {said}")
    assert problems == []
    path.write_text('{"items": ' + DEEP + "}")
    with pytest.raises(WhatifError, match=r"items\.json:1: not valid JSON \(nested more than"):
        read_suspects(path, ds)
