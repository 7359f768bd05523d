"""Read and validate MuCR release records (``record_template.json`` format).

A record is one cause/effect image pair: ``id``, ``caption_0``/``caption_1`` (cause/effect
captions), ``link_id`` (the other three pairs of its group of four, as a list or as the string
``"[a,b,c]"``), ``cue``, ``false_cue`` (three phrases), ``style``, ``label`` (category),
``causal_reason`` (the human explanations, read as ``reasons.py`` says) and ``image_0`` /
``image_1`` (cause / effect image files). The release's quirks are tolerated: misspelt keys
(``flase_cue``), false cues given as ``false_cue1``…``flase_cue3`` keys, plural or capitalised
labels and styles, numeric ids. A ``label`` or ``style`` outside the paper's sets (the README
template's own ``"label"``/``"style"`` placeholders, a new category) is kept as given and
becomes its own category. The file may hold one record per line (JSONL), pretty-printed
records one after another, a JSON array, or one record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from whatifbench.suites.mucr.reasons import DEFAULT_READING, read_causal_reason

CATEGORIES = ("human", "animal", "plant", "character", "mixture")
STYLES = ("photograph", "comic")
GROUP_SIZE = 4

CATEGORY_ALIASES = {"humans": "human", "people": "human", "person": "human",
                    "animals": "animal", "plants": "plant", "characters": "character",
                    "mixtures": "mixture", "mixed": "mixture", "mix": "mixture"}
STYLE_ALIASES = {"photo": "photograph", "photos": "photograph", "photographs": "photograph",
                 "photographic": "photograph", "photography": "photograph",
                 "realistic": "photograph", "comics": "comic", "cartoon": "comic",
                 "cartoons": "comic"}
_FALSE_CUE_KEYS = ("false_cue", "flase_cue", "false_cues", "flase_cues")
_RAW_ID = re.compile(r'"id"\s*:\s*"?([^",}\s]+)')


def raw_id(text: str) -> str | None:
    """The ``id`` written in the text of a record that is not valid JSON, when visible."""
    match = _RAW_ID.search(text)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Record:
    """One validated release record: a cause/effect pair and its annotations."""

    id: str
    """The record's id as text (numeric ids become their decimal string)."""
    line: int
    """Line of the input file where the record starts."""
    cause_caption: str
    """``caption_0``: the caption of the cause image."""
    effect_caption: str
    """``caption_1``: the caption of the effect image."""
    links: tuple[str, ...]
    """Ids of the other pairs of its group of four (``link_id``)."""
    cue: str
    """The cue phrase that explains the causal link."""
    false_cues: tuple[str, ...]
    """Three striking but non-causal phrases."""
    style: str
    """One of ``STYLES``, or the record's own value (kept as given)."""
    category: str
    """One of ``CATEGORIES`` (the release's ``label``), or the record's own value."""
    explanations: tuple[tuple[str, ...], ...]
    """Human references for (cause image, effect image, causal link); each one or more texts."""
    cause_image: str
    """``image_0`` as written in the record (relative to the images folder)."""
    effect_image: str
    """``image_1`` as written in the record."""
    reading: str = "parts"
    """How ``causal_reason`` was read into ``explanations`` (``annotators`` or ``parts``)."""


def parse_record(obj: Any, reading: str = DEFAULT_READING) -> tuple[Record | None, list[str]]:
    """A record from one parsed JSON object, or the problems found in it (line filled later);
    ``reading`` says how ``causal_reason`` is read (``reasons.READINGS``)."""
    if not isinstance(obj, dict):
        return None, ["the record is not a JSON object"]
    problems: list[str] = []
    rid = obj.get("id")
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or str(rid).strip() == "":
        problems.append(f"'id' must be a non-empty string or number, got {rid!r}")
    rid_text = str(rid).strip() if isinstance(rid, (str, int)) else ""

    def text(key: str) -> str:
        value = obj.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"'{key}' must be a non-empty string, got {value!r}")
            return ""
        return value.strip()

    captions = (text("caption_0"), text("caption_1"))
    cue = text("cue")
    images = (text("image_0"), text("image_1"))
    links = _links(obj.get("link_id"), problems)
    false_cues = _false_cues(obj, problems)
    style = _choice(obj.get("style"), "style", STYLES, STYLE_ALIASES, problems)
    category = _choice(obj.get("label"), "label", CATEGORIES, CATEGORY_ALIASES, problems)
    explanations = read_causal_reason(obj.get("causal_reason"), reading, problems)
    if cue and len(false_cues) == 3:
        phrases = [cue.lower(), *(c.lower() for c in false_cues)]
        if len(set(phrases)) != len(phrases):
            problems.append(f"the cue {cue!r} and false cues {list(false_cues)} must be four "
                            "different phrases")
    if rid_text and rid_text in links:
        problems.append(f"'link_id' lists the record's own id {rid_text!r}")
    if problems:
        return None, problems
    return Record(rid_text, 0, captions[0], captions[1], links, cue, false_cues, style, category,
                  explanations, images[0], images[1], reading), []


def _links(value: Any, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        parts = [p.strip().strip("'\"").strip() for p in value.strip().strip("[]").split(",")]
        ids = [p for p in parts if p]
    elif isinstance(value, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool)
                                         for v in value):
        ids = [str(v).strip() for v in value]
    else:
        problems.append(f"'link_id' must be a list of ids or a string like \"[a,b,c]\", got "
                        f"{value!r}")
        return ()
    if len(ids) != GROUP_SIZE - 1 or len(set(ids)) != len(ids) or "" in ids:
        problems.append(f"'link_id' must name the {GROUP_SIZE - 1} other pairs of the group, got "
                        f"{value!r}")
        return ()
    return tuple(ids)


def _false_cues(obj: dict[str, Any], problems: list[str]) -> tuple[str, ...]:
    key = next((k for k in _FALSE_CUE_KEYS if k in obj), None)
    if key is not None:
        value = obj[key]
    else:
        numbered = sorted(k for k in obj if re.fullmatch(r"(false|flase)_?cue_?\d", k))
        value = [obj[k] for k in numbered] if numbered else None
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, str) and v.strip() for v in value)):
        problems.append(f"'false_cue' must be a list of three non-empty phrases, got {value!r}")
        return ()
    return tuple(v.strip() for v in value)


def _choice(value: Any, key: str, allowed: tuple[str, ...], aliases: dict[str, str],
            problems: list[str]) -> str:
    """A known value (case and the aliases normalised), or any other non-empty text as given."""
    if not isinstance(value, str) or not value.strip():
        problems.append(f"'{key}' must be a non-empty text such as {allowed[0]!r}, got {value!r}")
        return ""
    norm = value.strip().lower()
    norm = aliases.get(norm, norm)
    return norm if norm in allowed else value.strip()


def group_problems(records: list[Record], broken: set[str]) -> list[tuple[int, str]]:
    """``(line, problem)`` for links to missing pairs and inconsistent groups of four
    (``broken``: ids of records reported as invalid, whose groups are not checked)."""
    by_id = {r.id: r for r in records}
    problems: list[tuple[int, str]] = []
    for r in records:
        if broken & set(r.links):
            continue
        missing = [link for link in r.links if link not in by_id]
        if missing:
            names = ", ".join(map(repr, missing))
            why = f"pair {r.id!r} links to {names}, which the file does not contain"
            problems.append((r.line, why))
            continue
        group = {r.id, *r.links}
        for link in r.links:
            other = by_id[link]
            if {other.id, *other.links} != group:
                theirs = sorted({other.id, *other.links})
                why = (f"pair {r.id!r} forms the group {sorted(group)} but its linked pair "
                       f"{link!r} (line {other.line}) forms {theirs}")
                problems.append((r.line, why))
                break
    return problems
