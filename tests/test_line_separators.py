"""U+2028, U+2029 and U+0085 (what a cp1252 "…" becomes when read as Latin-1) in questions,
options, replies and answers: every file the tool writes keeps them, and reads back through the
tool's own readers.

``str.splitlines`` breaks a line at each of them although JSON allows them raw inside strings,
so a reader built on it takes one JSON Lines record for two. The test writes a dataset whose
questions and options hold all three, runs a model whose reply holds all three (through the run
store), collects answers holding them in the annotation app and from crowd sheets (CSV, JSONL),
fills in a review sheet, exports the dataset in every format of its suite, and reads each file
back: ``load_dataset``,
``whatif report`` and the explorer's payload (``view``), ``human export``/``import``, the
importers of the exports (hf, cvqa-synthetic, cfmm, cello, ``import-results lmms-eval``), and
VLMEvalKit's own reader (pandas) for its TSV. Every JSON Lines file written is also read line by
line with ``str.splitlines``, as another tool might: each line must be one whole record.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from interop_util import kind_datasets  # noqa: F401  (session fixture)
from test_integrations_lmms import docs, task_code
from util import make_choice_dataset, whatif

from whatifbench.core.dataset import Dataset, DatasetWriter, load_dataset
from whatifbench.human import api
from whatifbench.human.records import Settings
from whatifbench.human.server import start
from whatifbench.report.payload import Options
from whatifbench.report.render import explorer_payload
from whatifbench.report.sources import load_sources
from whatifbench.runner.store import RunStore

SEP = "\u2028\u2029\u0085"
"""The three characters, together."""
REPLY = f"The answer is (B).{SEP}Because\u2028the\u2029dots\u0085agree."


def infect(text: str) -> str:
    """``text`` with the three characters after its first word."""
    head, space, rest = text.partition(" ")
    return f"{head}{space}{SEP}{rest}" if space else f"{text}{SEP}"


def infected_copy(source: Path, out: Path, options: bool = True) -> Dataset:
    """A copy of a dataset whose questions (and, with ``options``, text options) hold the three
    characters; images and card copied."""
    data = load_dataset(source)
    items = []
    for item in data.items:
        choices = item.choices
        if options and item.kind == "choice" and not all(len(c) == 1 for c in choices):
            choices = tuple(f"{c}{SEP}" if k == 0 else c for k, c in enumerate(choices))
        target = choices[item.choices.index(item.target)] if item.target in item.choices \
            else item.target
        items.append(replace(item, question=infect(item.question), choices=choices,
                             target=target))
    card = data.card
    with DatasetWriter(out) as writer:
        for rel in sorted({p for i in items for p in i.images}):
            (writer.stage / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data.image_path(rel), writer.stage / rel)
        writer.add_items(items)
        writer.finish(name=card.name, suite=card.suite, version=card.version,
                      generator=card.generator, seed=card.seed, extra=card.extra)
    return load_dataset(out)


def jsonl_whole(path: Path) -> list[Any]:
    """The records of a JSON Lines file read with ``str.splitlines`` (another tool's reader):
    each line must be a whole record."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def ok(args: list[str], home: Path) -> str:
    done = whatif(args, home=home)
    assert done.returncode == 0, done.stderr
    return done.stdout


def shown_replies(folder: Path) -> set[str]:
    """The replies ``whatif view`` shows for a run folder (its explorer payload)."""
    payload = explorer_payload(load_sources([str(folder)], []), Options(images="serve"))
    strings = payload["strings"]
    return {strings[k] for run in payload["runs"] for k in run["samples"]["response"] or ()}


def test_every_file_keeps_line_separators(tmp_path: Path, whatif_home: Path, fake_openai: Any,
                                          kind_datasets: Any) -> None:  # noqa: F811
    # -- the dataset (items.jsonl) ----------------------------------------------------------------
    data = infected_copy(make_choice_dataset(tmp_path / "plain", n_pairs=4), tmp_path / "ds")
    assert all(SEP in i.question for i in data.items) and SEP in data.items[0].choices[0]
    assert [r["question"] for r in jsonl_whole(data.root / "items.jsonl")] == \
        [i.question for i in data.items]

    # -- a run: run store, samples.jsonl, results.json, report ---------------------------------
    server = fake_openai({"rules": [{"regex": ".", "reply": REPLY}]})
    ok(["run", "--suite", str(data.root), "--model", "openai:fake", "--base-url", server.url,
        "--out", str(tmp_path / "run"), "--no-progress"], whatif_home)
    samples = jsonl_whole(tmp_path / "run" / "samples.jsonl")
    assert len(samples) == len(data.items) and {s["response"] for s in samples} == {REPLY}
    assert all(SEP in s["question"] for s in samples)
    store = RunStore(whatif_home / "store.sqlite")  # its JSON text column, read back
    try:
        keys = [k for (k,) in store.db.execute("SELECT key FROM responses")]
        assert {r.text for r in store.get_many(keys).values()} == {REPLY}
    finally:
        store.close()
    ok(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")], whatif_home)
    assert {s["response"] for s in jsonl_whole(tmp_path / "report" / "samples.jsonl")} == {REPLY}
    assert shown_replies(tmp_path / "run") == {REPLY}

    # -- the annotation app: store, export ---------------------------------------------------------
    app = api.serve(data, Settings())
    start(app)
    try:
        for _ in range(3):
            state = app.state("a1")
            code, _ = app.submit("a1", {"position": state["position"], "reply": f"(B).{SEP}x"})
            assert code == 200
        code, _ = app.submit("a1", {"position": 0, "reply": f"(C).{SEP}mis-keyed", "revise": True})
        assert code == 200
    finally:
        app.shutdown()
        app.server_close()
    given = api.stored_answers(data)
    assert [a.reply for a in given] == [f"(C).{SEP}mis-keyed", f"(B).{SEP}x", f"(B).{SEP}x"]
    ok(["human", "export", str(data.root), "--out", str(tmp_path / "app")], whatif_home)
    replies = {s["response"] for s in jsonl_whole(tmp_path / "app" / "samples.jsonl")}
    assert replies == {f"(C).{SEP}mis-keyed", f"(B).{SEP}x"}
    ok(["report", str(tmp_path / "app"), "--out", str(tmp_path / "app-report")], whatif_home)

    # -- crowd sheets: CSV and JSONL ---------------------------------------------------------------
    rows = [{"item_id": i.id, "annotator": who, "answer": f"(A).{SEP}sure", "seconds": "3",
             "note": f"ignored{SEP}column"} for who in ("w1", "w2") for i in data.items]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (tmp_path / "sheet.csv").write_text(buffer.getvalue(), encoding="utf-8")
    (tmp_path / "sheet.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    for name in ("sheet.csv", "sheet.jsonl"):
        out = tmp_path / f"crowd-{name}"
        ok(["human", "import", str(data.root), str(tmp_path / name), "--out", str(out)],
           whatif_home)
        assert {s["response"] for s in jsonl_whole(out / "samples.jsonl")} >= {f"(A).{SEP}sure"}
        ok(["report", str(out), "--out", str(tmp_path / f"report-{name}")], whatif_home)

    # -- a review sheet (keys: one row per item), filled in and imported ------------------------
    # (options and keys hold the characters too)
    ok(["review", "export", str(data.root), "--out", str(tmp_path / "keys.csv"), "--sheet",
        "keys"], whatif_home)
    with (tmp_path / "keys.csv").open(encoding="utf-8", newline="") as handle:
        assert sorted(r["question"] for r in csv.DictReader(handle)) == \
            sorted(i.question for i in data.items)
    ok(["review", "import", str(data.root), str(tmp_path / "keys.csv"), "--out",
        str(tmp_path / "reviewed"), "--sheet", "keys"], whatif_home)
    assert [i.question for i in load_dataset(tmp_path / "reviewed").items] == \
        [i.question for i in data.items]

    # -- exports and their importers --------------------------------------------------------------
    questions = sorted(i.question for i in data.items)
    ok(["export", str(data.root), "--format", "hf", "--out", str(tmp_path / "hf")], whatif_home)
    ok(["import", "hf", "--path", str(tmp_path / "hf"), "--out", str(tmp_path / "from-hf")],
       whatif_home)
    assert sorted(i.question for i in load_dataset(tmp_path / "from-hf").items) == questions

    ok(["export", str(data.root), "--format", "vlmevalkit", "--out", str(tmp_path / "v.tsv")],
       whatif_home)
    pandas = pytest.importorskip("pandas")
    table = pandas.read_csv(tmp_path / "v.tsv", sep="\t")  # VLMEvalKit's own reader
    assert sorted(table["question"]) == questions and len(table) == len(data.items)

    stems = infected_copy(tmp_path / "plain", tmp_path / "stems", options=False)
    ok(["export", str(stems.root), "--format", "cvqa-csv", "--out", str(tmp_path / "cvqa")],
       whatif_home)  # (stems: this format has the options in the question text only)
    csv_file = next((tmp_path / "cvqa").glob("*.csv"))
    ok(["import", "cvqa-synthetic", "--csv", str(csv_file), "--images",
        str(tmp_path / "cvqa" / "images"), "--out", str(tmp_path / "from-cvqa")], whatif_home)
    assert sorted(i.question for i in load_dataset(tmp_path / "from-cvqa").items) == \
        sorted(i.question for i in stems.items)

    ok(["export", str(data.root), "--format", "lmms-eval", "--out", str(tmp_path / "task")],
       whatif_home)
    utils = task_code(tmp_path / "task")
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = []
    for doc_id, doc in enumerate(docs(tmp_path / "task", tmp_path / "cache")):
        assert SEP in doc["question"]
        line = {"doc_id": doc_id, "filtered_resps": REPLY, "input": utils.doc_to_text(doc),
                **utils.process_results(doc, [REPLY])}
        lines.append(json.dumps(line, ensure_ascii=False))  # raw, as a tool may write them
    task = next((tmp_path / "task").glob("*.yaml")).stem
    samples_file = logs / f"20260101_000000_samples_{task}.jsonl"
    samples_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok(["import-results", "lmms-eval", str(samples_file), "--dataset", str(data.root), "--out",
        str(tmp_path / "imported")], whatif_home)
    assert {s["response"] for s in jsonl_whole(tmp_path / "imported" / "samples.jsonl")} == \
        {REPLY}

    cfmm = infected_copy(kind_datasets("cfmm"), tmp_path / "cfmm")
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"cfmm.{fmt}"
        ok(["export", str(cfmm.root), "--format", f"cfmm-{fmt}", "--out", str(out)],
           whatif_home)
        if fmt == "jsonl":
            assert len(jsonl_whole(out)) == len(cfmm.items) // 2
        ok(["import", "cfmm", f"--{fmt}", str(out), "--images", str(cfmm.root / "images"),
            "--out", str(tmp_path / f"from-cfmm-{fmt}")], whatif_home)
        back = load_dataset(tmp_path / f"from-cfmm-{fmt}")
        assert sorted(i.question for i in back.items) == sorted(i.question for i in cfmm.items)

    cello = infected_copy(kind_datasets("cello"), tmp_path / "cello", options=False)
    ok(["export", str(cello.root), "--format", "cello-jsonl", "--out",
        str(tmp_path / "cello.jsonl")], whatif_home)
    assert len(jsonl_whole(tmp_path / "cello.jsonl")) == len(cello.items)
    vg = tmp_path / "vg"
    vg.mkdir()
    for item in cello.items:
        for rel in item.images:
            shutil.copyfile(cello.image_path(rel), vg / Path(rel).name)
    ok(["import", "cello", "--jsonl", str(tmp_path / "cello.jsonl"), "--images", str(vg),
        "--out", str(tmp_path / "from-cello")], whatif_home)
    back = load_dataset(tmp_path / "from-cello")
    assert sorted(i.question for i in back.items) == sorted(i.question for i in cello.items)

    # -- export-replies: a C-VQA-Real run's replies as the release's response CSV ------------------
    real = infected_copy(kind_datasets("number-yes-no"), tmp_path / "real")
    ok(["run", "--suite", str(real.root), "--model", "openai:fake", "--base-url", server.url,
        "--out", str(tmp_path / "real-run"), "--no-progress"], whatif_home)
    ok(["export-replies", str(tmp_path / "real-run"), "--out", str(tmp_path / "replies")],
       whatif_home)
    raw = next((tmp_path / "replies").glob("*_responses.csv"))
    with raw.open(encoding="utf-8", newline="") as handle:
        table_rows = list(csv.DictReader(handle))
    assert table_rows and {r["response"] for r in table_rows} == {REPLY}
    assert all(SEP in r["query"] for r in table_rows)


def unescape(path: Path) -> str:
    """Rewrite a JSON Lines file with the three characters raw (as an older version, or another
    tool, writes them); the new text."""
    text = path.read_text(encoding="utf-8")
    for c in SEP:
        text = text.replace(json.dumps(c), json.dumps(c, ensure_ascii=False))
        text = text.replace(json.dumps(c)[1:-1], c)
    path.write_text(text, encoding="utf-8")
    return text


def test_files_holding_them_raw_are_read(tmp_path: Path, whatif_home: Path) -> None:
    """``items.jsonl`` and ``samples.jsonl`` holding the three characters raw (written by an
    older version or by hand) still read: their readers split at ``\\n`` only."""
    from whatifbench.integrations.replay import ReplayBackend, replay
    from whatifbench.report.render import write_outputs
    from whatifbench.runner.results import samples_digest

    data = infected_copy(make_choice_dataset(tmp_path / "plain", n_pairs=2), tmp_path / "ds")
    assert any(c in unescape(data.root / "items.jsonl") for c in SEP)
    again = load_dataset(data.root)
    assert [i.question for i in again.items] == [i.question for i in data.items]
    run = replay(again, ReplayBackend("replayed", {}, {i.id: REPLY for i in again.items}, "1"),
                 {"tool": "test"})
    write_outputs(tmp_path / "run", [run])
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    text = unescape(tmp_path / "run" / "samples.jsonl")
    assert any(c in text for c in SEP)
    results["samples_sha256"] = samples_digest(text, results["run_id"])
    (tmp_path / "run" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert shown_replies(tmp_path / "run") == {REPLY}
    ok(["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")], whatif_home)


def test_json_we_write_escapes_the_three_characters() -> None:
    """The JSON writer of every file (``fsutil.dumps``) escapes them: one line for every line
    reader, the same value for every JSON parser; JSON Lines readers split at ``\\n`` only."""
    from whatifbench.core.fsutil import dumps
    from whatifbench.core.jsonfile import jsonl_lines

    text = dumps({"reply": REPLY, "k": [SEP]})
    assert not any(c in text for c in SEP) and len(text.splitlines()) == 1
    assert json.loads(text) == {"reply": REPLY, "k": [SEP]}
    raw = json.dumps({"a": REPLY}, ensure_ascii=False)
    assert [json.loads(line) for _, line in jsonl_lines(f"{raw}\r\n\n{raw}\n")] == \
        [{"a": REPLY}] * 2
