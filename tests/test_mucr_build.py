"""``whatif build mucr`` end to end against the local fake OpenAI server (chat + images), the
selection sheet (HTML and CSV), ``whatif review import``, resumption after failed calls, bad
captions and the image backends' own checks."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from PIL import Image

from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.private import read_private
from whatifbench.errors import WhatifError
from whatifbench.models.imagegen.base import image_request, make_image_backend, picture_bytes
from whatifbench.suites.mucr.pipeline.build import Style
from whatifbench.suites.mucr.pipeline.prompts import parse_reply
from whatifbench.suites.mucr.records import STYLES

KEY = "sk-test-never-logged-4242"
CAPTIONS = """cause,effect,group,category,style
He found dark <b>clouds</b> in the sky,He was caught in a heavy rainstorm,g1,human,photograph
A cat knocked a glass off the table,The floor is covered with broken glass,g1,animals,
The gardener forgot to water the plant,The plant has wilted,g1,plant,comic
A child dropped an ice cream cone,The child is crying,g1,human,
A volcano erupted,The village is covered with ash,g2,mixture,
A dog chewed the cable,The lamp went dark,g2,animal,
Snow fell all night,The road is blocked,g2,mixture,
The wind blew hard,The kite flew away,g2,character,
"""


def _draft(cause: str) -> str:
    word = cause.split()[1]
    return "```json\n" + json.dumps({
        "cause_description": f"A scene where {cause.lower()}, warm evening light.",
        "effect_description": f"The same scene a moment later: {word} changed.",
        "cue": f"the {word}", "false_cues": ["a red door", "a tall tree", "a blue car"],
        "explanations": [f"{cause}.", "Then it changed.", f"Because of the {word}."]}) + "\n```"


RULES = [
    # a second attempt (stricter prompt) of the ice-cream pair succeeds; the volcano never does
    {"regex": r"(?s)^(?!.*volcano).*JSON object alone", "reply": _draft("A second try")},
    {"contains": "ice cream", "reply": "Sure! Here are the descriptions you asked for."},
    {"contains": "volcano", "reply": "{not json"},
    *({"contains": line.split(",")[0].replace("<b>", "").split()[-1], "reply": _draft(
        line.split(",")[0])} for line in CAPTIONS.splitlines()[1:]),
]


def _argv(tmp_path: Path, url: str, out: str = "draft", *extra: str) -> list[str]:
    captions = tmp_path / "captions.csv"
    if not captions.exists():
        captions.write_text(CAPTIONS, encoding="utf-8")
    return ["build", "mucr", "--captions", str(captions), "--out", str(tmp_path / out),
            "--llm", "openai:fake-llm", "--llm-base-url", url, "--images-backend",
            "openai:fake-img", "--images-base-url", url, "-I", "size=48x40", "--candidates", "2",
            "--store", str(tmp_path / "store.sqlite"), "--no-progress", *extra]


def _calls(server: Any) -> dict[str, int]:
    seen = [r for r in server.requests() if r["fault"] in (None, "ok")]
    return {"chat": sum(r["path"].endswith("/chat/completions") for r in seen),
            "images": sum(r["path"].endswith("/images/generations") for r in seen)}


@pytest.fixture
def built(tmp_path: Path, fake_openai: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Any]:
    server = fake_openai({"rules": RULES, "api_key": KEY})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert main(_argv(tmp_path, server.url)) == 0
    return tmp_path, server


def test_build_drafts_a_dataset_and_repeats_from_the_store(built: tuple[Path, Any],
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    tmp_path, server = built
    draft = load_dataset(tmp_path / "draft")
    assert draft.card.extra["review"] == "mucr-build" and draft.card.suite == "mucr"
    assert draft.card.counts["dropped_groups"] == ["g2"] and draft.card.counts["pairs"] == 4
    assert len(draft.items) == 16
    # 8 first attempts + second attempts of the two unreadable pairs; 4 pairs × 2 sides × 2
    assert _calls(server) == {"chat": 10, "images": 16}
    log = [json.loads(line) for line in (tmp_path / "draft" / "pipeline.jsonl").open()]
    status = {entry["id"]: entry["status"] for entry in log}
    assert status == {"1": "drafted", "2": "drafted", "3": "drafted", "4": "drafted",
                      "5": "unreadable", "6": "group dropped", "7": "group dropped",
                      "8": "group dropped"}
    assert [len(entry["replies"]) for entry in log][3:5] == [2, 2]
    exp = next(i for i in draft.items if i.id == "1-exp")
    build = exp.provenance["build"]
    candidates = read_private(tmp_path / "draft")["candidates"]["1"]  # never in items.jsonl
    assert "candidates" not in build
    assert len(candidates["cause"]) == 2 and build["pick"] == {"cause": 1, "effect": 1}
    assert exp.meta["style"] == "photograph" and exp.meta["category"] == "human"
    with Image.open(tmp_path / "draft" / candidates["effect"][1]) as img:
        assert img.size == (48, 40)  # -I size reached the endpoint
    # a draft evaluated before review gives nothing away by its names (issue 41, item 9)
    stored = sorted(p.relative_to(tmp_path / "draft" / "images").as_posix()
                    for p in (tmp_path / "draft" / "images").rglob("*") if p.is_file())
    assert len(stored) == 16 and all(re.fullmatch(r"[0-9a-f]{16}\.png", n) for n in stored)
    assert all(re.fullmatch(r"images/[0-9a-f]{16}\.png", p) for i in draft.items
               for p in i.images)
    assert next(i for i in draft.items if i.id == "3-exp").meta["style"] == "comic"
    capsys.readouterr()
    before = _calls(server)
    assert main(_argv(tmp_path, server.url, "again")) == 0
    assert _calls(server) == before  # everything from the run store
    assert "0 computed" in capsys.readouterr().err
    for path in [*tmp_path.rglob("*"), *(tmp_path / "store.sqlite").parent.glob("*")]:
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def _sheet_rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def _write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def test_selection_sheet_and_review_import(built: tuple[Path, Any],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path, _server = built
    draft = tmp_path / "draft"
    assert main(["review", "export", str(draft), "--out", str(tmp_path / "sheet.html")]) == 0
    page = (tmp_path / "sheet.html").read_text(encoding="utf-8")
    assert page.count("<figure>") == 16 and "cause 2" in page and "effect 1" in page
    assert "<b>clouds</b>" not in page and "&lt;b&gt;clouds&lt;/b&gt;" in page
    assert "http" not in page.replace("http-equiv", "")  # nothing loaded from the network
    sheet = tmp_path / "sheet.csv"
    assert main(["review", "export", str(draft), "--out", str(sheet)]) == 0
    rows = _sheet_rows(sheet)
    assert [r["key"] for r in rows] == ["1", "2", "3", "4"]
    rows[0].update(decision="edit", cause_pick="2", cue="the dark sky",
                   false_cues="an umbrella | a street | a coat",
                   explain_link="The clouds bring rain.\nRain follows dark clouds.")
    rows[1]["comment"] = "fine"
    _write_rows(sheet, rows)
    out = tmp_path / "final"
    assert main(["review", "import", str(draft), str(sheet), "--out", str(out)]) == 0
    final = load_dataset(out)
    assert final.card.extra["status"] == "reviewed" and final.card.counts["pairs"] == 4
    assert final.card.counts["review"] == {"accept": 3, "edit": 1}
    cue = next(i for i in final.items if i.id == "1-cue")
    assert cue.target == "the dark sky" and set(cue.choices) == {
        "the dark sky", "an umbrella", "a street", "a coat"}
    exp = next(i for i in final.items if i.id == "1-exp")
    assert exp.meta["references"][2] == ["The clouds bring rain.", "Rain follows dark clouds."]
    assert exp.provenance["build"]["pick"] == {"cause": 2, "effect": 1}
    assert exp.provenance["review"]["decision"] == "edit"
    picked = draft / read_private(draft)["candidates"]["1"]["cause"][1]
    assert (out / exp.images[0]).read_bytes() == picked.read_bytes()
    stored = sorted(p.name for p in (out / "images").iterdir())  # opaque: no "1-cause.png"
    assert len(stored) == 8 and all(re.fullmatch(r"[0-9a-f]{16}\.png", n) for n in stored)
    c2e = next(i for i in final.items if i.id == "2-c2e")
    assert len(c2e.images) == 5 and c2e.meta["image_labels"] == ["Cause", "A", "B", "C", "D"]
    assert next(i for i in final.items if i.id == "2-cue").provenance["review"]["comment"] == \
        "fine"


def test_bad_sheets_are_refused_whole(built: tuple[Path, Any],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path, _server = built
    draft, sheet = tmp_path / "draft", tmp_path / "sheet.csv"
    assert main(["review", "export", str(draft), "--out", str(sheet)]) == 0
    rows = _sheet_rows(sheet)
    rows[0]["decision"] = "reject"  # the rest of group g1 is kept
    rows[1]["cue"] = "changed"  # under accept
    rows[2].update(decision="edit", effect_pick="3", false_cues="only | two")
    rows[3].update(decision="edit", cue="a red door")  # equals a false cue
    _write_rows(sheet, rows)
    capsys.readouterr()
    assert main(["review", "import", str(draft), str(sheet), "--out",
                 str(tmp_path / "final")]) == 2
    err = capsys.readouterr().err
    assert "changed under 'accept'" in err
    assert "effect_pick '3' is not a candidate number 1-2" in err
    assert "false_cues must be three phrases" in err
    assert "four different phrases" in err
    assert "keep all four pairs of a group or reject all four" in err
    assert not (tmp_path / "final").exists()


def test_failed_picture_calls_are_retried_by_the_next_run(tmp_path: Path, fake_openai: Any,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    server = fake_openai({"rules": RULES, "schedule": {"14": "500", "17": "400"}})
    argv = _argv(tmp_path, server.url, "draft", "-I", "max_retries=0")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "2 of 16 picture calls" in err and "run the same command again" in err
    assert not (tmp_path / "draft").exists()
    first = _calls(server)
    assert main(argv) == 0
    after = _calls(server)
    assert after["chat"] == first["chat"] and after["images"] == first["images"] + 2


@pytest.mark.parametrize(("text", "needle"), [
    ("cause,effect,group\na,b,g\n", "lacks the column(s) category"),
    ("cause,effect,group,category\na,b,g,human\n,b,g,robot\na,b,g,plant\n",
     "the cause caption is empty"),
    ("cause,effect,group,category\na,b,g,human\nc,d,g,robots\n", "'robots' is not one of"),
    ("cause,effect,group,category\na,b,g,human\nc,d,g,plant\n", "group 'g' has 2 pair(s)"),
    ("cause,effect,group,category,id\na,b,g,human,1\nc,d,g,plant,1\n", "id '1' already used"),
    ("cause,effect,group,category,id\na,b,g,human,../x\n", "may hold only letters"),
])
def test_bad_captions(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                      needle: str) -> None:
    (tmp_path / "captions.csv").write_text(text, encoding="utf-8")
    argv = _argv(tmp_path, "http://127.0.0.1:9/v1")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "captions.csv:" in err and "Traceback" not in err
    assert not (tmp_path / "draft").exists()


@pytest.mark.parametrize(("reply", "why"), [
    ("no json here", "holds no JSON object"),
    ('{"cause_description": "x"}', "lacks usable effect_description, cue, false_cues"),
    (json.dumps({"cause_description": "a", "effect_description": "b", "cue": "x",
                 "false_cues": ["x", "y", "z"], "explanations": ["1", "2", "3"]}),
     "four different phrases"),
])
def test_unreadable_replies(reply: str, why: str) -> None:
    drafted, problem = parse_reply(reply)
    assert drafted is None and problem is not None and why in problem


def test_images_endpoint_urls_and_argument_checks(fake_openai: Any) -> None:
    server = fake_openai({})
    backend = make_image_backend("openai:fake-img", {"base_url": server.url, "size": "32x24",
                                                     "response_format": "url"})
    [(_, response)] = list(backend.generate([image_request("x:cause:1", "a red ball")]))
    data, ext = picture_bytes(response)
    with Image.open(io.BytesIO(data)) as img:
        assert img.size == (32, 24) and ext == "png"
    assert backend.describe()["args"]["size"] == "32x24"
    with pytest.raises(WhatifError, match="Unknown argument"):
        make_image_backend("openai:m", {"steps": 3})
    with pytest.raises(WhatifError, match="Unknown image-backend"):
        make_image_backend("dalle:x", {})
    with pytest.raises(WhatifError, match="not a diffusers pipeline folder"):
        make_image_backend("diffusers:/nonexistent", {})


def test_diffusers_missing_gives_the_install_line(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model_index.json").write_text("{}", encoding="utf-8")
    backend = make_image_backend(f"diffusers:{tmp_path}", {"steps": 2})
    monkeypatch.setitem(sys.modules, "diffusers", None)  # as if it were not installed
    with pytest.raises(WhatifError, match=re.escape('pip install "whatifbench[diffusers]"')):
        list(backend.generate([image_request("x", "a cat")]))
    with pytest.raises(WhatifError, match="-I size must look like"):
        make_image_backend(f"diffusers:{tmp_path}", {"size": "big"})


def test_a_local_diffusers_pipeline_draws_seeded_candidates(tmp_path: Path, fake_openai: Any,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    pytest.importorskip("diffusers")
    from tiny_diffusion import build_tiny_pipeline

    folder = build_tiny_pipeline(tmp_path / "tiny-sd")
    args = {"steps": 2, "size": "16x16", "seed": 3}
    backend = make_image_backend(f"diffusers:{folder}", args)
    requests = [image_request("p:cause:1", "a red ball"), image_request("p:cause:2", "a red ball")]
    first = [picture_bytes(r)[0] for _, r in backend.generate(requests)]
    again = [picture_bytes(r)[0] for _, r in make_image_backend(
        f"diffusers:{folder}", args).generate(requests)]
    assert first == again and first[0] != first[1]  # seeded per candidate
    with Image.open(io.BytesIO(first[0])) as img:
        assert img.size == (16, 16)
    assert backend.version.endswith(f"diffusers-{__import__('diffusers').__version__}")
    server = fake_openai({"rules": RULES})
    argv = _argv(tmp_path, server.url)
    at = argv.index("--images-backend")
    argv[at + 1:at + 6] = [f"diffusers:{folder}", "-I", "steps=2", "-I", "size=16x16"]
    assert main(argv) == 0, capsys.readouterr().err
    draft = load_dataset(tmp_path / "draft")
    build = next(i for i in draft.items if i.id == "2-exp").provenance["build"]
    assert build["images"]["spec"] == f"diffusers:{folder}"
    cause = read_private(tmp_path / "draft")["candidates"]["2"]["cause"][0]
    with Image.open(tmp_path / "draft" / cause) as img:
        assert img.size == (16, 16)


def test_the_declared_styles_are_the_styles() -> None:
    """``--style``'s choices (the entry's signature) are the records' styles."""
    assert get_args(Style) == STYLES
