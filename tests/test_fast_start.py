"""Fast start: the registry's generated index agrees with the decorators, and the CLI imports only
what a command uses (checked on ``sys.modules`` of fresh processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from util import run_outputs

from whatifbench.core import registry
from whatifbench.metrics.stats import mcnemar_exact

HEAVY = ("scipy", "networkx", "matplotlib", "torch", "transformers", "httpx", "tqdm",
         "sentence_transformers", "diffusers", "skimage", "sklearn")
"""Packages a command that does not need them must not import."""
PLUGIN_MODULES = {listed.module for kind in registry.KINDS for listed in registry.listing(kind)}


def test_the_index_is_what_the_decorators_register() -> None:
    """plugins.json is generated: regenerating it from the decorators gives the committed file
    (run 'python -m whatifbench.core.registry' after adding or renaming a plugin)."""
    rows = registry.build_index()
    assert registry.index_text(rows) == registry.INDEX.read_text(encoding="utf-8"), (
        "src/whatifbench/core/plugins.json is out of date: run "
        "'python -m whatifbench.core.registry' and commit the file")
    assert len({(r["kind"], r["name"]) for r in rows}) == len(rows)


def test_lookup_imports_only_the_named_plugin_and_lists_the_choices() -> None:
    code = ("import sys, json\n"
            "from whatifbench.core.registry import lookup\n"
            "cls = lookup('backend', 'hf:/models/x').obj\n"
            "print(json.dumps([cls.__name__, sorted(sys.modules)]))\n")
    name, modules = json.loads(_python(code))
    assert name == "HFBackend"
    assert PLUGIN_MODULES & set(modules) == {"whatifbench.models.hf.backend"}
    with pytest.raises(registry.WhatifError) as info:
        registry.lookup("suite", "cvqa-fake")
    assert "cvqa-synthetic" in str(info.value) and "whatif suites" in str(info.value)


def _python(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _cli_modules(args: list[str], env: dict[str, str] | None = None,
                 prelude: str = "") -> tuple[int, list[str]]:
    """Exit code and ``sys.modules`` after ``whatif ARGS`` in a fresh process."""
    code = (f"import sys, json, io, contextlib\n{prelude}"
            "from whatifbench.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        code = main({args!r})\n"
            "    except SystemExit as exc:\n        code = exc.code\n"
            "print(json.dumps([code, sorted(sys.modules)]))\n")
    code_, modules = json.loads(_python(code, env))
    return code_, modules


def _heavy(modules: list[str]) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


@pytest.mark.parametrize("args", [["--help"], ["suites"], ["models"], ["generate", "--help"]])
def test_help_and_listings_import_no_plugin(args: list[str]) -> None:
    code, modules = _cli_modules(args)
    assert code == 0
    assert not PLUGIN_MODULES & set(modules)
    assert _heavy(modules) == []
    assert "numpy" not in modules and "PIL" not in modules


@pytest.mark.parametrize(("args", "module"), [
    (["generate", "cfmm-synthetic", "--help"], "whatifbench.suites.cfmm.generate"),
    (["import", "cello", "--help"], "whatifbench.suites.cello.importer"),
    (["review", "--help"], "whatifbench.cli.review"),
    (["audit", "--help"], "whatifbench.cli.audit")])
def test_a_tool_s_help_imports_only_that_tool(args: list[str], module: str) -> None:
    code, modules = _cli_modules(args)
    assert code == 0
    alone = json.loads(_python(f"import sys, json, {module}\n"
                               "print(json.dumps(sorted(sys.modules)))"))
    assert module in modules
    assert PLUGIN_MODULES & set(modules) == PLUGIN_MODULES & set(alone)


def test_a_fully_cached_default_run_makes_no_heavy_import(tmp_path: Path) -> None:
    """The default run (a smaller default suite, so that the test is quick), once to fill the
    store, then again in a fresh process: answered from the store without importing the
    generator, scipy, networkx, matplotlib, torch, httpx or tqdm."""
    prelude = ("import whatifbench.api as api\n"
               "api.DEFAULT_SUITE = ('cvqa-synthetic', {'per_template': 2}, 0)\n")
    env = {"WHATIF_HOME": str(tmp_path / "home")}
    code, _ = _cli_modules(["run", "--no-progress", "--out", str(tmp_path / "a")], env, prelude)
    assert code == 0
    code, modules = _cli_modules(["run", "--no-progress", "--out", str(tmp_path / "b")], env,
                                 prelude)
    assert code == 0
    assert _heavy(modules) == []
    assert "whatifbench.suites.cvqa.synthetic.generate" not in modules
    assert run_outputs(tmp_path / "a") == run_outputs(tmp_path / "b")


def test_the_default_suite_version_is_the_generator_s() -> None:
    from whatifbench import api
    from whatifbench.suites.cvqa.synthetic.identity import VERSION

    assert registry.lookup("generator", api.DEFAULT_SUITE[0]).obj.version == VERSION


def test_exact_mcnemar_equals_scipy_binomtest() -> None:
    from scipy import stats

    for a in range(40):
        for b in range(40):
            if a + b:
                expected = min(1.0, stats.binomtest(a, a + b, 0.5).pvalue)
                assert mcnemar_exact(a, b) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(900, 1300) == pytest.approx(stats.binomtest(900, 2200).pvalue,
                                                     rel=1e-9)
