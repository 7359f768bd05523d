"""Tables for program backends: how often programs failed, and runs labelled by code LLM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from whatifbench.core.table import Table, fmt
from whatifbench.runner.results import RunResult

FAMILIES = {"viper": "ViperGPT", "visprog": "VisProg"}


def program_failure_table(runs: Sequence[RunResult]) -> list[Table]:
    """Per run and role: the share of items whose program failed to compile, raised or timed
    out (empty when no run used a program backend)."""
    traced = [r for r in runs if "program" in r.metrics]
    if not traced:
        return []
    roles: list[str] = []
    for run in traced:
        for role in run.metrics["program"].get("by_role", {}):
            if role not in roles:
                roles.append(role)
    columns = ["model"]
    spans: list[tuple[str, int]] = [("", 1)]
    for role in roles:
        columns += ["failed %", "compile", "raise", "timeout"]
        spans.append((role or "all", 4))
    rows = []
    for run in traced:
        row = [run.model]
        for role in roles:
            m = run.metrics["program"]["by_role"].get(role)
            row += ["–"] * 4 if m is None else [fmt(m["failed"]), fmt(m["compile"]),
                                                fmt(m["raise"]), fmt(m["timeout"])]
        rows.append(tuple(row))
    note = ("Share of items (%) whose generated program failed to compile (or was refused), "
            "raised (memory, recursion and output limits included) or timed out; they are "
            "scored wrong. Items whose model call failed are not counted.")
    return [Table(f"Program outcomes: {traced[0].dataset}", tuple(columns), tuple(rows),
                  tuple(spans), (note,))]


def code_llm_label(run: RunResult, others: Sequence[RunResult]) -> str:
    """The run's code LLM, with its perception when the compared runs differ in tools."""
    backend = _details(run)
    label = str((backend.get("code_llm") or {}).get("spec", run.model))
    tools = [_details(r).get("tools") for r in others]
    if any(t != tools[0] for t in tools):
        perception = (backend.get("tools") or {}).get("perception") or {}
        label += f" ({perception.get('path') or perception.get('name', '?')})"
    return label


def by_code_llm(runs: Sequence[RunResult]) -> list[tuple[str, list[RunResult]]]:
    """Runs of each program family, relabelled by their code LLM (ViperGPT first)."""
    out = []
    for family, name in FAMILIES.items():
        chosen = [r for r in runs if _details(r).get("family") == family]
        if chosen:
            out.append((name, [replace(r, model=code_llm_label(r, chosen)) for r in chosen]))
    return out


def _details(run: RunResult) -> dict[str, Any]:
    """What a program backend describes of itself beyond its spec (code LLM, tools, family)."""
    return run.spec.backend.details if run.spec.backend is not None else {}
