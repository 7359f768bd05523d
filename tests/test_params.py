"""Parameters declared once (issue 39, item 3): a tool's typed signature gives its command-line
options, their help, the checks of every call (command line and Python alike) and the card's
params; tools written with ``add_arguments`` and ``run`` still work, told the new way."""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

import pytest

from whatifbench.cli.main import main
from whatifbench.core.params import (
    SECRET,
    Design,
    Executor,
    Param,
    add_options,
    card_params,
    declared,
    declared_params,
    entry_of,
    entry_or_warn,
    values_from,
)
from whatifbench.core.registry import listing, lookup
from whatifbench.errors import WhatifDeprecationWarning, WhatifError


@declared
def make(out: str | Path, *,
         count: Annotated[int, Param("things to make", metavar="N", low=1, high=50)] = 10,
         share: Annotated[float | None, Param("a share (default: by design)", low=0, high=100,
                                              card="share_percent")] = None,
         style: Annotated[Literal["plain", "fancy"], Param("how it looks")] = "plain",
         groups: Annotated[Sequence[str], Param("groups, comma-separated")] = ("a", "b"),
         source: Annotated[str | Path | None, Param("a file", flag="--from")] = None,
         progress: Annotated[bool, Param("show progress", cli_default=True,
                                         card=False)] = False,
         strict: Annotated[bool, Param("refuse doubtful things")] = False,
         design: Annotated[str, Design("the text says nothing")] = "shortcut-free",
         executor: Annotated[object | None, Executor()] = None,
         secret_file: Annotated[str | Path | None, SECRET] = None,
         overwrite: bool = False) -> dict[str, object]:
    """A made-up tool."""
    return card_params(make, locals())


def parser_of(fn: object) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="t", exit_on_error=False)
    left = add_options(parser, fn, skip=("out", "overwrite"))  # type: ignore[arg-type]
    assert [d.name for d in left] == ["executor"]  # the CLI's to expand
    return parser


def test_the_signature_declares_names_types_and_defaults() -> None:
    found = {d.name: d for d in declared_params(make)}
    assert found["count"].kind is int and found["count"].default == 10
    assert found["share"].optional and found["share"].kind is float
    assert found["source"].kind is str and found["source"].flag == "--from"
    assert found["overwrite"].marker is None


def test_options_come_from_the_signature() -> None:
    parser = parser_of(make)
    helps = parser.format_help()
    assert "things to make (default 10)" in helps and "--count N" in helps
    assert "(default: by design)" in helps and "(default a,b)" in helps
    assert "--no-progress" in helps and "--strict" in helps and "--from" in helps
    assert "--design {paper,shortcut-free}" in helps and "--secret-file FILE" in helps
    args = parser.parse_args(["--count", "3", "--groups", "x, y", "--no-progress", "--from",
                              "f.csv", "--style", "fancy"])
    values = values_from(args, make, skip=("out", "overwrite"))
    assert values == {"count": 3, "share": None, "style": "fancy", "groups": ["x", "y"],
                      "source": "f.csv", "progress": False, "strict": False,
                      "design": "shortcut-free", "secret_file": None}
    assert values_from(parser.parse_args([]), make, skip=("out",))["progress"] is True
    repeated = parser.parse_args(["--groups", "x,y", "--groups", "z"])
    assert values_from(repeated, make)["groups"] == ["x", "y", "z"]  # the default replaced
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["--style", "loud"])


def test_bounds_are_checked_on_the_command_line_and_in_python_alike() -> None:
    parser = parser_of(make)
    with pytest.raises(WhatifError, match=r"^--count must be at least 1, got 0\.$"):
        values_from(parser.parse_args(["--count", "0"]), make)
    with pytest.raises(WhatifError, match=r"^--share must be at most 100, got 120\.$"):
        make("x", share=120)
    with pytest.raises(WhatifError, match=r"^--style must be one of plain, fancy"):
        make("x", style="loud")  # type: ignore[arg-type]
    with pytest.raises(WhatifError, match="--design must be one of"):
        make("x", design="neither")
    with pytest.raises(WhatifError, match=r"^--share must be a finite number, got nan\.$"):
        values_from(parser.parse_args(["--share", "nan"]), make)
    assert make("x", count=50, share=0)["count"] == 50


def test_the_card_records_what_the_signature_marks() -> None:
    card = make(Path("out"), count=4, share=12.5, groups=("g",), source=Path("/a/b/rows.csv"))
    assert card == {"count": 4, "share_percent": 12.5, "style": "plain", "groups": ["g"],
                    "source": "rows.csv", "strict": False, "design": "shortcut-free"}
    assert list(card) == ["count", "share_percent", "style", "groups", "source", "strict",
                          "design"]  # the signature's order


class OldTool:
    """A tool written against the API before issue 39."""

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--n", type=int, default=1)

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        return 0


class NewTool:
    """The same, declared."""

    entry = staticmethod(make)


def test_an_old_style_tool_still_works_and_is_told_the_new_way() -> None:
    with pytest.warns(WhatifDeprecationWarning, match="declares its options with add_arguments "
                      "and run.*typed signature of its generate"):
        assert entry_or_warn(OldTool, "generator") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert entry_or_warn(NewTool, "importer") is make


def test_every_built_in_tool_declares_its_parameters() -> None:
    """No generator, importer, builder or exporter of the suites keeps ``add_arguments``: each
    has an entry whose options all have help (a parameter without ``Param`` is the Python
    API's only, as a builder's ``store`` object). The other tools' formats (``cli/interop``:
    hf, lmms-eval, vlmevalkit, which share export options) are the CLI's own."""
    for kind in ("generator", "importer", "builder", "exporter"):
        for listed in listing(kind):
            if listed.package != "whatifbench" or listed.module.startswith("whatifbench.cli"):
                continue
            fn = entry_of(lookup(kind, listed.name).obj, kind)
            assert fn is not None, (kind, listed.name)
            params = [d.marker for d in declared_params(fn) if isinstance(d.marker, Param)]
            assert all(p.help.strip() for p in params), (kind, listed.name)


def test_the_cli_refuses_an_out_of_range_value_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d"
    assert main(["generate", "cfmm-synthetic", "--out", str(out), "--answer-changed",
                 "-1"]) == 2
    assert "--answer-changed must be at least 0, got -1." in capsys.readouterr().err
    assert not out.exists()
    assert main(["audit", "--generator", "cfmm-synthetic", "--seeds", "1", "-p",
                 "per_category=0"]) == 2
    err = capsys.readouterr().err
    assert "--per-category must be at least 1, got 0." in err and "generating" not in err
