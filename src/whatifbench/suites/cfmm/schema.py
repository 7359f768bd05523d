"""The CFMM pair record and its file schema (one basic/counterfactual pair per JSONL line or
CSV row), with validation that collects every problem of a record.

Fields (JSONL keys = CSV columns):

- required: ``image``, ``category``, ``basic_question``, ``basic_option_a``,
  ``basic_option_b``, ``basic_answer``, ``counterfactual_question``,
  ``counterfactual_option_a``, ``counterfactual_option_b``, ``counterfactual_answer``;
- optional: ``id`` (default ``line<N>``), ``basic_explanation`` and ``explanation`` (a short
  reasoning for the basic and the counterfactual question, used by ``--strategy one-shot-cot``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

CATEGORIES = ("count", "color", "size", "shape", "direction", "common")
"""The paper's six categories, in its table order."""

ROLES = ("basic", "counterfactual")
"""Roles of the two questions of a pair."""

REQUIRED = ("image", "category",
            "basic_question", "basic_option_a", "basic_option_b", "basic_answer",
            "counterfactual_question", "counterfactual_option_a", "counterfactual_option_b",
            "counterfactual_answer")
"""Fields every record must have (non-empty)."""

OPTIONAL = ("id", "basic_explanation", "explanation")
"""Fields a record may have (empty values count as absent)."""

FIELDS = ("id", *REQUIRED, "basic_explanation", "explanation")
"""All fields in the order of the CSV header the exporter writes."""

EXPLANATION_FIELD = {"basic": "basic_explanation", "counterfactual": "explanation"}
"""Which field holds the reasoning of each role."""


@dataclass(frozen=True)
class Question:
    """One of the two questions of a pair."""

    text: str
    """The question, verbatim."""
    options: tuple[str, str]
    """The two candidate answers in file order (option A, option B)."""
    answer: str
    """The correct option (one of ``options``)."""
    explanation: str | None
    """A short reasoning for one-shot-CoT demonstrations, when given."""


@dataclass(frozen=True)
class PairRecord:
    """One validated line of a CFMM file."""

    id: str
    """The pair id (``pair_id`` of both items)."""
    image: str
    """Image path relative to the images folder (POSIX separators)."""
    category: str
    """One of ``CATEGORIES``."""
    basic: Question
    """The basic question."""
    counterfactual: Question
    """The counterfactual question."""
    line: int
    """Line of the record in its file (for provenance)."""

    def question(self, role: str) -> Question:
        """The question of a role (``basic`` or ``counterfactual``)."""
        return self.basic if role == "basic" else self.counterfactual


def parse_record(obj: Any, line: int) -> tuple[PairRecord | None, list[str]]:
    """Validate one record (a JSON object or a CSV row as a dict); return it or its problems.

    Problems are phrases without the file/line prefix; the caller adds it.
    """
    if not isinstance(obj, dict):
        return None, [f"expected a JSON object with the CFMM fields, got {type(obj).__name__}"]
    problems: list[str] = []
    unknown = sorted(str(k) for k in obj if k not in FIELDS)
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}; the fields are "
                        f"{', '.join(FIELDS)}")
    values: dict[str, str | None] = {}
    for name in FIELDS:
        raw = obj.get(name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            values[name] = None
        elif isinstance(raw, str):
            values[name] = raw.strip()
        elif isinstance(raw, int) and not isinstance(raw, bool):
            values[name] = str(raw)  # JSON numbers as ids, options or answers
        else:
            problems.append(f"field '{name}' must be a string, got {raw!r}")
            values[name] = None
    missing = [n for n in REQUIRED if values[n] is None and n not in obj]
    empty = [n for n in REQUIRED if values[n] is None and n in obj]
    if missing:
        problems.append(f"missing field(s) {', '.join(missing)}")
    if empty:
        problems.append(f"empty field(s) {', '.join(empty)}")
    category = (values["category"] or "").lower()
    if values["category"] is not None and category not in CATEGORIES:
        problems.append(f"unknown category {values['category']!r}; use one of "
                        f"{', '.join(CATEGORIES)}")
    image = values["image"]
    if image is not None:
        rel = relative_image(image)
        if rel is None:
            problems.append(f"image {image!r} must be a path relative to --images (no leading "
                            "'/', no '..')")
        image = rel
    questions = {role: _question(role, values, problems) for role in ROLES}
    if problems:
        return None, problems
    basic, counterfactual = questions["basic"], questions["counterfactual"]
    assert image is not None and basic is not None and counterfactual is not None
    return PairRecord(values["id"] or f"line{line}", image, category, basic, counterfactual,
                      line), []


def relative_image(value: object) -> str | None:
    """An ``image`` value as a normalised POSIX path inside the images folder, else ``None``."""
    if not isinstance(value, str) or not value.strip():
        return None
    rel = PurePosixPath(value.strip().replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or ":" in rel.parts[0]:
        return None
    return rel.as_posix()


def _question(role: str, values: dict[str, str | None], problems: list[str]) -> Question | None:
    text = values[f"{role}_question"]
    a, b = values[f"{role}_option_a"], values[f"{role}_option_b"]
    answer = values[f"{role}_answer"]
    if text is None or a is None or b is None or answer is None:
        return None
    if a.lower() == b.lower():
        problems.append(f"the two {role} options are the same ({a!r}); give two different "
                        "answers")
        return None
    if answer not in (a, b):
        hint = ""
        if answer.upper() in ("A", "B"):
            hint = " (write the option's text, not its letter)"
        elif answer.lower() in (a.lower(), b.lower()):
            hint = " (it differs only in letter case; copy the option exactly)"
        problems.append(f"{role}_answer {answer!r} is not one of the {role} options "
                        f"{a!r}, {b!r}{hint}")
        return None
    return Question(text, (a, b), answer, values[EXPLANATION_FIELD[role]])


def record_to_row(record: PairRecord) -> dict[str, str]:
    """The record in file form (for exporters), empty strings for absent optional fields."""
    row = {"id": record.id, "image": record.image, "category": record.category}
    for role in ROLES:
        q = record.question(role)
        row[f"{role}_question"] = q.text
        row[f"{role}_option_a"], row[f"{role}_option_b"] = q.options
        row[f"{role}_answer"] = q.answer
        row[EXPLANATION_FIELD[role]] = q.explanation or ""
    return {name: row[name] for name in FIELDS}
