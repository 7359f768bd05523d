"""The demo (`whatif run` with no arguments) shows what a reader without the picture scores
(issue 41, item 8): it audits its default suite once (cached) and every table gets the blind
rows, with the core install's dependencies (scikit-learn is one of them); every generator's
default design is shortcut-free, and says so in its --help."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from whatifbench import api
from whatifbench.analysis.audit.store import load_audit
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.design import DEFAULT_DESIGN, SHORTCUT_FREE
from whatifbench.core.registry import listing, lookup
from whatifbench.report.policies import EYES, FLIP, JOINT
from whatifbench.report.reference import BLIND


def test_the_demo_table_has_its_blind_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "DEFAULT_SUITE",
                        (api.DEFAULT_SUITE[0], {**api.DEFAULT_SUITE[1], "per_template": 3}, 0))
    assert main(["run", "--no-progress", "--out", str(tmp_path / "a")]) == 0
    captured = capsys.readouterr()
    for label in (BLIND, EYES, FLIP, JOINT):
        assert label in captured.out, label
    assert "Auditing" in captured.err
    dataset = load_dataset(api.default_suite())
    assert dataset.card.generator["params"]["design"] == SHORTCUT_FREE
    assert load_audit(dataset.items_sha256) is not None
    assert main(["run", "--no-progress", "--out", str(tmp_path / "b")]) == 0  # cached audit
    again = capsys.readouterr()
    assert BLIND in again.out and "Auditing" not in again.err


def test_every_generator_defaults_to_shortcut_free_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert DEFAULT_DESIGN == SHORTCUT_FREE
    names = [e.name for e in listing("generator") if e.module.startswith("whatifbench.")]
    assert {"cvqa-synthetic", "cfmm-synthetic", "mucr-synthetic"} <= set(names)
    for name in names:
        with pytest.raises(SystemExit):
            main(["generate", name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "shortcut-free (the default of every generator)" in text, name
        generate = lookup("generator", name).obj.generate
        assert inspect.signature(generate).parameters["design"].default == SHORTCUT_FREE, name
    with pytest.raises(SystemExit):
        main(["build", "cello", "--help"])
    assert "shortcut-free (the default of every generator)" in " ".join(
        capsys.readouterr().out.split())
