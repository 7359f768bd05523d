"""Plugins from outside the package are first-class (issue 39, items 4 and 5): a suite and its
generator installed by another distribution (``tests/outside_plugin.py`` writes it as pip would,
with its ``*.dist-info``) are listed, chosen and run like built-ins through every command; a
plugin claiming a name already taken is refused naming both packages; an error raised in a
plugin's code is reported as that plugin's, and its ``sys.exit`` never ends whatif silently.

Each command runs as a real ``whatif`` process with the plugin's folder on ``PYTHONPATH``."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from outside_plugin import ACME, TAKEN_BACKEND, TAKEN_GENERATOR, install
from util import SRC

from whatifbench.errors import EXIT_INTERNAL, EXIT_USER


def whatif(args: list[str], site: Path, home: Path, timeout: float = 300
           ) -> subprocess.CompletedProcess[str]:
    """``python -m whatifbench ARGS`` with ``site`` (the plugin's install) on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, str(site)]),
           "WHATIF_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "whatifbench", *args], env=env, text=True,
                          capture_output=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("outside")
    return {"site": install(root / "site", "acme-whatif", "acme_whatif.suite", ACME),
            "home": root / "home", "root": root}


def ok(found: subprocess.CompletedProcess[str]) -> str:
    assert found.returncode == 0, found.stderr
    assert "internal error" not in found.stderr
    return found.stdout


def test_an_outside_suite_goes_through_every_command(acme: dict[str, Path]) -> None:
    site, home, root = acme["site"], acme["home"], acme["root"]
    found = whatif(["suites"], site, home)
    listed = ok(found)
    assert "acme-parity" in listed and "[plugin: acme-whatif]" in listed
    # today's API keeps working, and its author is told the new way, once
    assert found.stderr.count("WhatifDeprecationWarning") == 1, found.stderr
    assert "acme_whatif.suite.AcmeSuite sets pair_roles" in found.stderr
    assert "facts = SuiteFacts(pair_roles=...)" in found.stderr
    assert "acme-parity-gen" in listed
    assert "acme-parity-gen" in ok(whatif(["generate", "--help"], site, home))
    ds = root / "ds"
    made = whatif(["generate", "acme-parity-gen", "--out", str(ds), "--pairs", "8"], site, home)
    ok(made)  # the generator's add_arguments and run still work; its author is told the new way
    assert "acme_whatif.suite.AcmeGenerator declares its options with add_arguments and run" \
        in made.stderr and "typed signature of its generate" in made.stderr, made.stderr
    # the new way: options, help and checks from the generator's typed signature
    assert "pairs to draw (default 6)" in ok(whatif(["generate", "acme-parity-typed", "--help"],
                                                     site, home))
    typed = whatif(["generate", "acme-parity-typed", "--out", str(root / "typed"), "--pairs",
                    "8", "--seed", "3"], site, home)
    assert "Wrote 16 items (8 pairs)" in ok(typed) and "declares its options" not in typed.stderr
    zero = whatif(["generate", "acme-parity-typed", "--out", str(root / "zero"), "--pairs", "0"],
                  site, home)
    assert zero.returncode == EXIT_USER and "--pairs must be at least 1, got 0." in zero.stderr
    assert not (root / "zero").exists()
    run = root / "run"
    ok(whatif(["run", "--suite", str(ds), "--model", "builtin:random", "--model",
               "builtin:constant", "--out", str(run), "--no-progress"], site, home))
    report = ok(whatif(["report", str(run), "--out", str(root / "rep")], site, home))
    assert "Acme parity" in report and "chance (guessing)" in report
    ok(whatif(["audit", str(ds)], site, home))
    assert "Acme parity" in ok(whatif(["report", str(run), "--out", str(root / "rep2")], site,
                                      home))
    ok(whatif(["audit", "--generator", "acme-parity-gen", "--seeds", "1,2", "-p", "pairs=6"],
              site, home))
    ok(whatif(["items", str(ds), str(run), "--json", str(root / "items.json")], site, home))
    sheet = root / "sheet.csv"
    with sheet.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["item_id", "annotator", "answer"])
        for k in range(8):
            for who in ("ada", "bo", "cy"):
                for role, answer in (("o", "yes"), ("c", "no")):
                    out.writerow([f"p{k}-{role}", who, answer])
    ok(whatif(["human", "import", str(ds), str(sheet), "--out", str(root / "people")], site,
              home))
    for fmt in ("hf", "lmms-eval", "vlmevalkit"):
        found = whatif(["export", str(ds), "--format", fmt, "--out", str(root / fmt)], site, home)
        # an export that does not apply says so in a sentence; none fails
        assert found.returncode in (0, EXIT_USER) and "internal error" not in found.stderr, \
            (fmt, found.stderr)
    assert (root / "hf").is_dir()


def test_an_error_in_a_plugin_is_that_plugin_s(acme: dict[str, Path]) -> None:
    site, home, root = acme["site"], acme["home"], acme["root"]
    found = whatif(["generate", "acme-broken", "--out", str(root / "b")], site, home)
    assert found.returncode == EXIT_INTERNAL
    assert "error in the plugin package acme-whatif (module acme_whatif.suite)" in found.stderr
    assert "KeyError" in found.stderr and "not in whatifbench" in found.stderr
    assert "bug in whatifbench" not in found.stderr
    found = whatif(["generate", "acme-broken", "--how", "exit", "--out", str(root / "b")], site,
                   home)
    assert found.returncode == EXIT_INTERNAL  # never the plugin's 3 (backend errors)
    assert "called sys.exit(3)" in found.stderr and "acme-whatif" in found.stderr


@pytest.mark.parametrize("package, module, source, kind, name, theirs", [
    ("evil-backend", "evil_backend.plug", TAKEN_BACKEND, "backend", "builtin:constant",
     "whatifbench.models.builtin.reference"),
    ("evil-generator", "evil_generator.plug", TAKEN_GENERATOR, "generator", "cvqa-synthetic",
     "whatifbench.suites.cvqa.synthetic"),
])
def test_a_plugin_claiming_a_taken_name_is_refused_naming_both(
        tmp_path: Path, package: str, module: str, source: str, kind: str, name: str,
        theirs: str) -> None:
    site = install(tmp_path / "site", package, module, source)
    for args in (["models"], ["suites"], ["run", "--help"]):
        found = whatif(args, site, tmp_path / "home")
        assert found.returncode == EXIT_USER, found.stderr
        said = found.stderr
        assert f"The {kind} name {name!r} is taken" in said, said
        assert f"the package {package} (module {module})" in said
        assert f"the package whatifbench (module {theirs}" in said
        assert "internal error" not in said


def test_two_plugins_claiming_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    site = install(tmp_path / "site", "acme-whatif", "acme_whatif.suite", ACME)
    install(site, "copycat-whatif", "copycat.suite", ACME.replace(
        '"acme-parity-gen"', '"acme-parity-gen-2"').replace('"acme-broken"', '"acme-broken-2"'))
    found = whatif(["suites"], site, tmp_path / "home")
    assert found.returncode == EXIT_USER
    assert "The suite name 'acme-parity' is taken" in found.stderr
    assert "acme-whatif" in found.stderr and "copycat-whatif" in found.stderr


def test_found_plugins_are_remembered_until_a_path_folder_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``outside.found`` keeps its scan under ``$WHATIF_HOME/cache`` keyed by the ``sys.path``
    folders' stamps: installing or removing a distribution is seen at once, and a home that
    cannot keep the cache scans every time."""
    import shutil

    from whatifbench.core import outside

    site = install(tmp_path / "site", "acme-whatif", "acme_whatif.suite", ACME)
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    monkeypatch.setenv("WHATIF_HOME", str(tmp_path / "home"))
    names = lambda: [o.package for o in outside.found()]  # noqa: E731
    assert "acme-whatif" in names()
    assert (tmp_path / "home" / "cache" / "plugins-found.json").is_file()
    assert "acme-whatif" in names()  # from the cache
    shutil.rmtree(site / "acme_whatif-0.1.dist-info")  # uninstalled: the folder changed
    assert "acme-whatif" not in names()
    install(tmp_path / "site", "acme-whatif", "acme_whatif.suite", ACME)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the home should be")
    monkeypatch.setenv("WHATIF_HOME", str(blocked))
    assert "acme-whatif" in names()  # scanned, not kept
