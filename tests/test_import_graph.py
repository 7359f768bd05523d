"""The package's shape: no import cycle between its modules (imports inside functions and under
``if TYPE_CHECKING:`` count: a type-only import ties the modules as much as another), core
imports nothing of the layers above it, at most three imports run from a lower layer to a
higher one (``LAYERS``), and no suite is named outside ``suites/`` (shared layers ask the
suite: docs/adding-a-suite.md)."""

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


def imported(path: Path, known: set[str], type_only: bool = True) -> set[str]:
    """The package's modules that ``path`` imports anywhere in it (under ``if TYPE_CHECKING:``
    too, unless ``type_only`` is false)."""
    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if _type_checking(node.test) and not type_only:
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


LAYERS = (
    ("errors", "secrets", ""),
    ("answers",),
    ("core",),
    ("metrics", "scenes"),
    ("models",),
    ("runner",),
    ("integrations", "report"),
    ("human", "review"),
    ("analysis",),
    ("suites",),
    ("api",),
    ("cli", "integrations.inspect", "__main__"),
)
"""The layers from the bottom up, by package (the longest prefix decides: the inspect tasks
are a front end, as the CLI is). Data flow one way: a module imports its own layer and those
below it."""
UPWARD = 3
"""Imports allowed from a lower layer to a higher one."""
def layer(module: str) -> int:
    """The layer of a module of the package."""
    rest = module.split(".", 1)[1] if "." in module else ""
    best = max((p for names in LAYERS for p in names
                if rest == p or rest.startswith(f"{p}.") or p == ""), key=len)
    return next(k for k, names in enumerate(LAYERS) if best in names)


def graph() -> dict[str, set[str]]:
    """Every module's imports of the package's modules (type-only ones included)."""
    found = modules()
    return {name: imported(path, set(found)) - {name} for name, path in found.items()}


def test_no_module_cycle_type_only_imports_included() -> None:
    assert cycles(graph()) == []


def test_core_imports_nothing_above_it() -> None:
    above = ("models", "runner", "report", "analysis")
    found = sorted((a, b) for a, imports in graph().items() if a.startswith("whatifbench.core")
                   for b in imports if b.split(".")[1:2] and b.split(".")[1] in above)
    assert found == []


def test_imports_run_down_the_layers() -> None:
    upward = sorted((a, b) for a, imports in graph().items() for b in imports
                    if layer(b) > layer(a))
    assert len(upward) <= UPWARD, upward


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


def test_suites_declare_parameters_and_never_parse_them() -> None:
    """Issue 39: no ``argparse`` in ``suites/`` and no import of the CLI there: a tool's
    options come from its entry's typed signature (``core.params``)."""
    found = []
    for path in (PACKAGE / "suites").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(PACKAGE)}: {n}" for n in names
                      if n == "argparse" or n.startswith("whatifbench.cli")]
    assert found == []


def _spec_reads(tree: ast.AST) -> int:
    """``spec[...]`` and ``spec.get(...)`` (any ``….spec`` too) with a string key."""
    def is_spec(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "spec") or (
            isinstance(node, ast.Attribute) and node.attr == "spec")

    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_spec(node.value) and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            count += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "get" and is_spec(node.func.value) and node.args and \
                isinstance(node.args[0], ast.Constant):
            count += 1
    return count


def test_the_run_spec_is_read_by_field_not_by_string_key() -> None:
    """Issue 39: outside the records module, a run's spec is read by string key at most 3
    times (44 before the typed ``RunSpec``)."""
    reads = {str(path.relative_to(PACKAGE)): n for path in PACKAGE.rglob("*.py")
             if path.relative_to(PACKAGE).parts[:2] != ("core", "records")
             and (n := _spec_reads(ast.parse(path.read_text(encoding="utf-8"))))}
    assert sum(reads.values()) <= 3, reads
    assert _spec_reads(ast.parse("a = run.spec['model_name']; b = spec.get('x')")) == 2
