"""What the command line says to a new user: bare ``whatif`` announces the demo, mistypes get a
"did you mean", the CFMM importer names the fields it expects, an unreachable server leaves no
asyncio warning, C-VQA-Synthetic groups have one name, and a model's own loading bar does not
cut across ours."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from util import make_choice_dataset, page_data, whatif

from whatifbench.cli.main import main
from whatifbench.suites.cfmm.schema import OPTIONAL, REQUIRED


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


def _exit_code(argv: list[str]) -> int:
    """``main``'s exit status (argparse's own errors exit through ``SystemExit``)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_bare_whatif_says_it_runs_the_demo_and_where_it_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    err = _err(capsys)
    first = err.splitlines()[0]
    assert "no command given" in first and "demo" in first, err
    found = re.search(r"written into (\S+) ", err)
    assert found, err
    folder = tmp_path / found.group(1)
    assert (folder / "results.json").is_file() and (folder / "report.html").is_file()
    assert "whatif --help" in err


@pytest.mark.parametrize(("argv", "wanted"), [
    (["rnu"], "did you mean 'run'?"),
    (["genrate", "cvqa-synthetic"], "did you mean 'generate'?"),
    (["generate", "cvqa-synthetc", "--out", "x"], "did you mean 'cvqa-synthetic'?"),
    (["import", "cfm", "--out", "x"], "did you mean 'cfmm'?"),
    (["export", "DS", "--format", "lmms", "--out", "x"], "did you mean 'lmms-eval'?"),
    (["run", "--suite", "DS", "--stratgy", "cot"], "did you mean --strategy?"),
    (["run", "--suite", "DS", "--model", "builtin:randon"], "Did you mean builtin:random?"),
    (["run", "--suite", "DS", "--model", "opnai:gpt-4o"], "Did you mean openai:gpt-4o?"),
    (["run", "--suite", "DS/../cvqa-sn"], "Did you mean DS/../cvqa-syn?"),
    (["run", "--suite", "cvqa-synthetc"], "whatif generate cvqa-synthetic --out DIR"),
])
def test_mistypes_get_a_did_you_mean(argv: list[str], wanted: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    make_choice_dataset(tmp_path / "DS")
    (tmp_path / "cvqa-syn").mkdir()
    assert _exit_code([*argv, "--no-progress"] if argv[0] == "run" else argv) == 2
    err = _err(capsys)
    assert wanted in err, err
    assert not (tmp_path / "x").exists()


def test_cfmm_importer_names_the_fields_it_expects(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    (tmp_path / "imgs").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "imgs" / "a.png")
    (tmp_path / "p.csv").write_text("image,category,basic_question\na.png,count,How many?\n")
    (tmp_path / "p.jsonl").write_text('{"image": "a.png", "category": "count"}\n')
    for flag, name in (("--csv", "p.csv"), ("--jsonl", "p.jsonl")):
        assert main(["import", "cfmm", "--images", str(tmp_path / "imgs"), flag,
                     str(tmp_path / name), "--out", str(tmp_path / "ds")]) == 2
        err = _err(capsys)
        assert "has 1 problem:" in err, err
        assert f"needs the fields {', '.join(REQUIRED)}" in err, err
        assert f"may also have {', '.join(OPTIONAL)}" in err, err
        assert not (tmp_path / "ds").exists()


def test_an_unreachable_server_leaves_no_asyncio_warning(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds", n_pairs=12)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    for connections in ("1", "2", "4"):
        done = whatif(["run", "--suite", str(ds), "--model", "openai:x", "--base-url", url,
                       "-M", f"max_connections={connections}", "--no-progress", "--out",
                       str(tmp_path / f"out{connections}")], home=tmp_path / "home")
        assert done.returncode == 2, done.stderr
        assert "could not be reached" in done.stderr
        assert "never awaited" not in done.stderr and "RuntimeWarning" not in done.stderr, \
            done.stderr


def test_cvqa_synthetic_groups_have_one_name(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")  # groups abs_counting_1, abs_counting_2
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    data = page_data((tmp_path / "run" / "report.html").read_text())
    [dataset] = data["datasets"]
    groups = {data["strings"][k] for k in dataset["items"]["group"]}
    assert groups == {"abs_counting_1", "abs_counting_2"}
    spans = {label.split(" (n=")[0] for label, _ in dataset["tables"][0]["groups"]} - {"", "all"}
    assert spans == groups
    md = (tmp_path / "run" / "report.md").read_text()
    assert "T1" not in md and "abs_counting_1 (n=3)" in md
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert set(results["runs"][0]["metrics"]["by_group"]) == groups


def test_the_model_loads_before_our_progress_bar_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_llava: Path) -> None:
    import tqdm

    from whatifbench.core.requests import Part, Request, Turn
    from whatifbench.models.hf import backend as hf_backend
    from whatifbench.runner.cached import generate_cached
    from whatifbench.runner.store import RunStore

    events: list[str] = []
    real_load, real_init = hf_backend.load, tqdm.tqdm.__init__

    def load(*args: Any, **kwargs: Any) -> Any:
        events.append("model loaded")
        return real_load(*args, **kwargs)

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        events.append(f"bar {kwargs.get('desc')}")
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(hf_backend, "load", load)
    monkeypatch.setattr(tqdm.tqdm, "__init__", init)
    backend = hf_backend.HFBackend(f"hf:{tiny_llava}", {})
    requests = [Request(f"q{k}", (Turn("user", (Part(text=f"Question {k}?"),)),))
                for k in range(2)]
    store = RunStore(tmp_path / "store.sqlite")
    generate_cached(backend, requests, store, progress=True, label="answers")
    ours = events.index("bar answers")
    assert "model loaded" in events[:ours], events
    events.clear()
    generate_cached(backend, requests, store, progress=True)  # all stored: nothing to load
    assert events == []
    store.close()
