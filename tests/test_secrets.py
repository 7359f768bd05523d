"""Keys never written (issue 11 item 9): a key hidden in a query parameter of any name, and a
server that echoes the Authorization header inside successful replies, leave no trace in the
run store, samples, results, reports or messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from photos import make_photo_dataset

from whatifbench import secrets
from whatifbench.cli.main import main
from whatifbench.core.requests import Response
from whatifbench.runner.store import RunStore

KEY = "sk-echo-7c1e5b9a3d2f"
SIG = "Zm9vYmFyLXNpZ25hdHVyZS0xMjM0"


def _everything(*folders: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for folder in folders
                     for p in sorted(folder.rglob("*")) if p.is_file())


def test_a_key_in_any_query_parameter_is_never_recorded(
        fake_openai: Any, tmp_path: Path, whatif_home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    ds = make_photo_dataset(tmp_path / "ds", n_pairs=2)
    server = fake_openai()
    code = main(["run", "--suite", str(ds), "--model", "openai:fake-vlm", "--base-url",
                 f"{server.url}?sig={SIG}&region=eu", "--out", str(tmp_path / "out"),
                 "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {r["query"] for r in server.requests()} == {f"sig={SIG}&region=eu"}  # still sent
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["runs"][0]["spec"]["backend"]["args"]["base_url"] == \
        f"{server.url}?sig=***&region=***"
    assert SIG not in _everything(tmp_path / "out", whatif_home) + out + err


def test_a_key_echoed_in_successful_replies_is_redacted_everywhere(
        fake_openai: Any, tmp_path: Path, whatif_home: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    ds = make_photo_dataset(tmp_path / "ds", n_pairs=2)
    server = fake_openai({"api_key": KEY, "echo_auth_in_replies": True})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    args = ["run", "--suite", str(ds), "--model", "openai:fake-vlm", "--base-url", server.url,
            "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    samples = [json.loads(line) for line in
               (tmp_path / "a" / "samples.jsonl").read_text().splitlines()]
    assert all(s["response"].startswith("You sent Bearer ***. ") for s in samples)
    # The rerun is answered from the store, which holds only the redacted replies.
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    out, err = capsys.readouterr()
    assert "4 from the store, 0 computed" in err
    written = _everything(tmp_path / "a", tmp_path / "b", whatif_home) + out + err
    assert KEY not in written and "Bearer ***" in written


def test_one_redaction_covers_the_store_and_every_escaped_form(tmp_path: Path) -> None:
    key = 'k3y"with<odd>&chars'
    secrets.remember(key, "EMPTY", "abc")  # placeholders and short values are not secrets
    store = RunStore(tmp_path / "s.sqlite")
    try:
        stored = store.put("k", "b", "i", Response(text=f"echo {key}", meta={"auth": key}))
        assert stored.text == "echo ***" and stored.meta == {"auth": "***"}
        assert store.get_many(["k"])["k"] == stored
    finally:
        store.close()
    for form in (json.dumps(key)[1:-1], 'k3y"with&lt;odd&gt;&amp;chars',
                 "k3y&quot;with&lt;odd&gt;&amp;chars"):
        assert secrets.redact(f"[{form}]") == "[***]"
    assert secrets.redact("EMPTY abc") == "EMPTY abc"


@pytest.mark.parametrize(("text", "expected"), [
    ("see http://alice:pw-1234@host:8000/v1?token=abc&region=eu.",
     "see http://***@host:8000/v1?token=***&region=eu."),
    ('{"url": "https://h/p?a=1\\u0026X-Amz-Signature=abc\\u0026b=2"}',
     '{"url": "https://h/p?a=1\\u0026X-Amz-Signature=***\\u0026b=2"}'),
    ('<a href="https://h/p?a=1&amp;api_key=SECRET&amp;b=2">',
     '<a href="https://h/p?a=1&amp;api_key=***&amp;b=2">'),
    ("s3://bucket/x?sig=zz#part ftp://u@files/y", "s3://bucket/x?sig=***#part ftp://***@files/y"),
    ("https://hf.co/m?download=true&revision=main", "https://hf.co/m?download=true&revision=main"),
    ("no URL ?token=x, an email a@b.c", "no URL ?token=x, an email a@b.c"),
])
def test_every_url_loses_its_credentials(text: str, expected: str) -> None:
    assert secrets.redact(text) == expected
    assert secrets.redact_value({"k": [text]}) == {"k": [expected]}
