"""The package's shape: no import cycle between its modules (imports inside functions count;
those under ``if TYPE_CHECKING:`` do not), and no suite named outside ``suites/`` (shared layers
ask the suite: docs/adding-a-suite.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import whatifbench
from whatifbench.core.registry import listing

PACKAGE = Path(whatifbench.__file__).resolve().parent


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("whatifbench", *path.relative_to(PACKAGE).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported(path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports at run time (anywhere in it)."""
    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if _type_checking(node.test):
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            found.update(a.name for a in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            if node.module:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found & known


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_cycle_but_type_only_ones() -> None:
    found = modules()
    graph = {name: imported(path, set(found)) - {name} for name, path in found.items()}
    assert cycles(graph) == []


def test_a_planted_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_suite_is_named_outside_suites() -> None:
    """String literals naming a registered suite or generator, outside ``suites/`` (docstrings
    and comments aside); at most the demo's default suite, named once."""
    names = {e.name for e in listing("suite")} | {e.name for e in listing("generator")}
    hits = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "suites":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                        ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and node.value in names
                    and id(node) not in docstrings):
                hits.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert len(hits) <= 1, hits
