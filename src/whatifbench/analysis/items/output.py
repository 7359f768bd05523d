"""What ``whatif items`` writes and prints: the report as JSON and CSV, the table of suspects,
and the item bank fitted from the same runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from whatifbench.analysis.items.bank import Bank, fit_bank
from whatifbench.analysis.items.report import MIN_IRT, IrtFit
from whatifbench.analysis.items.responses import Deals, Respondent
from whatifbench.core.csvtext import csv_text
from whatifbench.core.dataset import Dataset
from whatifbench.core.suite import suite_for
from whatifbench.core.table import Table
from whatifbench.errors import WhatifError

CSV_COLUMNS = ("id", "suspect", "reasons", "unit", "group", "role", "kind", "key", "runs",
               "share_right", "difficulty", "discrimination", "irt_a", "irt_b", "humans",
               "human_right", "human_majority", "human_agreement", "key_doubt", "likely_answer",
               "likely_systematic",
               "blind_solvable", "image_insensitive", "parse_failures", "replies",
               "parser_disagreement", "judge_failures", "judge_disagreement")
"""The columns of ``--csv``."""


def report_json(report: dict[str, Any]) -> str:
    """The ``--json`` text."""
    return json.dumps(report, indent=1, ensure_ascii=False) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    return str(value)


def report_csv(report: dict[str, Any]) -> str:
    """The ``--csv`` text: one row per item, in the report's order (suspects first)."""
    rows: list[list[str]] = [list(CSV_COLUMNS)]
    for item in report["items"]:
        irt = item.get("irt") or {}
        flat = {**item, "irt_a": irt.get("a"), "irt_b": irt.get("b")}
        rows.append([_cell(flat.get(c)) for c in CSV_COLUMNS])
    return csv_text(rows, spreadsheet=True)


def suspects_table(report: dict[str, Any], top: int) -> Table:
    """The ``top`` suspects, most serious first."""
    shown = [i for i in report["items"] if i["suspect"]][:top]
    rows = tuple((i["id"], ", ".join(i["codes"]), _num(i["share_right"]),
                  _num(i["key_doubt"]), _text(i["key"]),
                  _text(i["likely_answer"]) + (" †" if i.get("likely_systematic") else ""),
                  _text(i["human_majority"])) for i in shown)
    summary = report["summary"]
    notes = [f"{summary['suspect']} of {summary['items']} items are suspect"
             + (f" ({', '.join(f'{k}: {n}' for k, n in summary['by_reason'].items())})"
                if summary["by_reason"] else "") + (
                 f"; the first {len(shown)} are shown (--top)." if len(shown) <
                 summary["suspect"] else "."),
             ("share right = of the model runs with images; key doubt = probability that the "
              "key is wrong; † = the likely answer is a systematic distractor (e.g. the "
              "original question's answer); --json or --csv hold every item with its reasons.")]
    return Table(f"Suspect items: {report['dataset']['name']}",
                 ("item", "flags", "share right", "key doubt", "key", "likely answer",
                  "humans' majority"), rows, notes=tuple(notes + report["notes"]))


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _text(value: str | None, width: int = 24) -> str:
    if value is None:
        return "–"
    return value if len(value) <= width else value[:width - 1] + "…"


def enough_for_bank(respondents: Sequence[Respondent]) -> None:
    """Refuse a bank with a sentence when fewer than ``MIN_IRT`` runs answered the items
    (called before any other work)."""
    n = sum(r.votes for r in respondents)
    if n < MIN_IRT:
        raise WhatifError(
            f"An item bank needs at least {MIN_IRT} runs that answered the items (models with "
            f"their images, and people; not majorities or ablated runs) to fit its 2PL model; "
            f"{n} {'was' if n == 1 else 'were'} given. Add runs of more models (or people), "
            "or use 'whatif items' without --bank for the classical statistics.")


def bank_of(dataset: Dataset, irt: IrtFit) -> Bank:
    """The item bank of ``dataset``'s scoring units from the report's 2PL fit."""
    suite = suite_for(dataset.suite)
    if irt.fit is None or irt.matrix is None:
        raise WhatifError(f"No item bank: {irt.reason}.")
    deals = Deals(dataset)
    units = [(u, *deals.of(u)) for u in irt.matrix.units]
    info = {"name": dataset.card.name, "suite": dataset.suite, "version": dataset.card.version,
            "items_sha256": dataset.items_sha256}
    return fit_bank(irt.matrix.right, irt.matrix.observed, units, info, suite.scoring_unit,
                    suite.headline_metric, irt.fit)


def bank_json(bank: Bank) -> str:
    """The bank file's text."""
    return json.dumps(bank.to_json(), indent=1, ensure_ascii=False) + "\n"
