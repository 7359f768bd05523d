"""VQAv2 inputs of the construction pipeline: load, validate, pick unambiguous questions.

Selection rule (documented in ``docs/cvqa-real.md``): a question qualifies when at least
``min_agreement`` of its annotators (VQAv2 has 10) gave the same answer after normalisation
(lower case, outer spaces and a final full stop removed, number words zero–twenty → digits).
``How many`` questions whose consensus is a whole number go to the ``direct`` group;
questions whose consensus is ``yes`` or ``no`` go to the ``boolean`` group.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.answers.numbers import WORD_VALUES
from whatifbench.core.dataset import problems_message
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError

DEFAULT_MIN_AGREEMENT = 8


@dataclass(frozen=True)
class VqaQuestion:
    """A VQAv2 question with an unambiguous answer, ready to be rewritten."""

    question_id: int
    """VQAv2 ``question_id``."""
    image_id: int
    """COCO image id."""
    image: str
    """COCO file name (``COCO_val2014_000000219916.jpg``)."""
    question: str
    """The question text, verbatim."""
    answer: str
    """The consensus answer (digits, or ``yes``/``no``)."""
    agreement: int
    """How many annotators gave the consensus answer."""
    annotators: int
    """How many answers the question has."""
    group: str
    """``direct`` (how many) or ``boolean``."""


def normalise_answer(answer: str) -> str:
    """Lower case, spaces collapsed, final full stop removed, number words → digits."""
    text = re.sub(r"\s+", " ", answer.strip().lower()).rstrip(".").strip()
    return str(WORD_VALUES[text]) if text in WORD_VALUES else text


def _read_json(path: Path, what: str) -> Any:
    try:
        return loads(read_text(path))
    except FileNotFoundError:
        raise WhatifError(f"The {what} file {path} does not exist; check the path.") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WhatifError(f"{path} is not a JSON file ({exc}); pass the VQAv2 {what} "
                          "JSON.") from None


def load_questions(path: Path) -> tuple[list[dict[str, Any]], str]:
    """The ``questions`` list of a VQAv2 questions file, and its ``data_subtype``."""
    data = _read_json(path, "questions")
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise WhatifError(f"{path} has no 'questions' list; pass a VQAv2 questions file "
                          "(v2_OpenEnded_mscoco_val2014_questions.json).")
    problems = []
    for k, q in enumerate(data["questions"]):
        if not (isinstance(q, dict) and isinstance(q.get("question_id"), int)
                and isinstance(q.get("image_id"), int) and isinstance(q.get("question"), str)):
            problems.append(f"questions[{k}] needs an integer question_id and image_id and a "
                            f"question text, got {str(q)[:80]}")
    if problems:
        raise WhatifError(problems_message(f"The VQAv2 questions file {path}", problems,
                                           "Pass the file as released by VQAv2."))
    return data["questions"], str(data.get("data_subtype") or "val2014")


def load_annotations(path: Path) -> dict[int, dict[str, Any]]:
    """VQAv2 annotations by ``question_id``."""
    data = _read_json(path, "annotations")
    if not isinstance(data, dict) or not isinstance(data.get("annotations"), list):
        raise WhatifError(f"{path} has no 'annotations' list; pass a VQAv2 annotations file "
                          "(v2_mscoco_val2014_annotations.json).")
    out: dict[int, dict[str, Any]] = {}
    problems = []
    for k, a in enumerate(data["annotations"]):
        answers = a.get("answers") if isinstance(a, dict) else None
        if (not isinstance(a, dict) or not isinstance(a.get("question_id"), int)
                or not isinstance(answers, list)
                or not all(isinstance(x, dict) and isinstance(x.get("answer"), str)
                           for x in answers)):
            problems.append(f"annotations[{k}] needs an integer question_id and a list of "
                            f"answers with an 'answer' text, got {str(a)[:80]}")
            continue
        out[a["question_id"]] = a
    if problems:
        raise WhatifError(problems_message(f"The VQAv2 annotations file {path}", problems,
                                           "Pass the file as released by VQAv2."))
    return out


def consensus(answers: Sequence[str]) -> tuple[str, int]:
    """The most common normalised answer and how many gave it (ties: alphabetical first)."""
    counts = Counter(normalise_answer(a) for a in answers)
    if not counts:
        return "", 0
    best = min(counts, key=lambda a: (-counts[a], a))
    return best, counts[best]


def qualify(question: dict[str, Any], annotation: dict[str, Any], subtype: str,
            min_agreement: int) -> VqaQuestion | None:
    """The question as a pipeline candidate, or ``None`` when it does not qualify."""
    answers = [a["answer"] for a in annotation["answers"]]
    answer, agreement = consensus(answers)
    if agreement < min_agreement:
        return None
    text = question["question"]
    if text.strip().lower().startswith("how many") and re.fullmatch(r"[0-9]+", answer):
        group = "direct"
    elif answer in ("yes", "no"):
        group = "boolean"
    else:
        return None
    image_id = question["image_id"]
    return VqaQuestion(question["question_id"], image_id,
                       f"COCO_{subtype}_{image_id:012d}.jpg", text, answer, agreement,
                       len(answers), group)


def select(questions: list[dict[str, Any]], annotations: dict[int, dict[str, Any]],
           subtype: str, min_agreement: int, groups: Sequence[str]) -> list[VqaQuestion]:
    """Every qualifying question of the wanted groups, by question id."""
    out = []
    for q in questions:
        ann = annotations.get(q["question_id"])
        if ann is None:
            continue
        cand = qualify(q, ann, subtype, min_agreement)
        if cand is not None and cand.group in groups:
            out.append(cand)
    return sorted(out, key=lambda c: c.question_id)


def sample(candidates: list[VqaQuestion], per_group: int | None, seed: int) -> list[VqaQuestion]:
    """A seeded random ``per_group`` questions of each group (all when ``None``), by id."""
    if per_group is None:
        return list(candidates)
    rng = random.Random(seed)
    chosen: list[VqaQuestion] = []
    for group in sorted({c.group for c in candidates}):
        members = [c for c in candidates if c.group == group]
        chosen += rng.sample(members, min(per_group, len(members)))
    return sorted(chosen, key=lambda c: c.question_id)
