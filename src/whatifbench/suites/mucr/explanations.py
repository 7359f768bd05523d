"""Split a model's Exp reply into its three explanations (cause image, effect image, link).

Accepted, in this order: numbered parts (``1.``, ``2)``, ``(3)``, ``**1.**`` at line starts);
labelled parts (``Cause:``, ``Effect image:``, ``Causal link:`` / ``Explanation:``); all three
numbers inline on one line (``1. … 2. … 3. …``); otherwise
sentences — the first describes the cause, the second the effect, the rest the link (with fewer
than three sentences the whole reply counts as the link). A missing part scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from whatifbench.answers.think import strip_think
from whatifbench.core.item import Item

PARTS = ("cause", "effect", "link")

_NUMBERED = re.compile(r"(?m)^[ \t>*#_-]*\(?\**([123])\**\s*[.):]\**[ \t]*")
_INLINE = re.compile(r"(?:^|(?<=\s))\(?([123])[.)]\s+")
_LABELLED = re.compile(
    r"(?im)^[ \t>*#_-]*\**(cause(?:\s+image)?|effect(?:\s+image)?|(?:causal\s+)?link|"
    r"causality|explanation)\**\s*:\**[ \t]*")
_LEADING_LABEL = re.compile(
    r"(?i)^\**(?:the\s+)?(?:cause(?:\s+image)?|effect(?:\s+image)?|(?:causal\s+)?link|"
    r"causality|explanation)\**\s*:\**\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


@dataclass(frozen=True)
class Explanations:
    """The three parts found in a reply (``None`` where missing)."""

    parts: tuple[str | None, str | None, str | None]
    """Cause-image description, effect-image description, causal-link explanation."""
    flag: str | None = None
    """How they were found when not cleanly numbered/labelled: ``sentences``, ``incomplete``,
    ``empty``, ``truncated-think``."""


def split_explanations(reply: str) -> Explanations:
    """The three explanations of a reply (see the module docstring for the accepted forms)."""
    text, cut = strip_think(reply)
    if cut:
        return Explanations((None, None, None), "truncated-think")
    text = text.strip()
    if not text:
        return Explanations((None, None, None), "empty")
    found = _by_markers(text, _NUMBERED, lambda m: int(m.group(1)) - 1)
    if found is None:
        found = _by_markers(text, _LABELLED, _label_index)
    if found is None:
        inline = _by_markers(text, _INLINE, lambda m: int(m.group(1)) - 1)
        found = inline if inline is not None and all(inline) else None
    if found is not None:
        parts = tuple(_clean(p) for p in found)
        flag = None if all(parts) else "incomplete"
        return Explanations((parts[0], parts[1], parts[2]), flag)
    sentences = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    if len(sentences) >= 3:
        return Explanations((_clean(sentences[0]), _clean(sentences[1]),
                             _clean(" ".join(sentences[2:]))), "sentences")
    return Explanations((None, None, _clean(text)), "sentences")


def _label_index(match: re.Match[str]) -> int:
    word = match.group(1).lower()
    if word.startswith("cause"):
        return 0
    return 1 if word.startswith("effect") else 2


def _by_markers(text: str, pattern: re.Pattern[str],
                index: Callable[[re.Match[str]], int]) -> list[str | None] | None:
    """Parts between markers in order of appearance (each part taken at its first marker);
    ``None`` when fewer than two distinct parts are marked."""
    marks: list[tuple[int, int, int]] = []  # (part, marker start, text start)
    seen: set[int] = set()
    for m in pattern.finditer(text):
        k = index(m)
        if k in seen or (marks and k < marks[-1][0]):
            continue
        seen.add(k)
        marks.append((k, m.start(), m.end()))
    if len(marks) < 2:
        return None
    out: list[str | None] = [None, None, None]
    for j, (k, _start, begin) in enumerate(marks):
        end = marks[j + 1][1] if j + 1 < len(marks) else len(text)
        out[k] = text[begin:end]
    return out


def _clean(part: str | None) -> str | None:
    if part is None:
        return None
    text = _LEADING_LABEL.sub("", " ".join(part.replace("**", "").split())).strip()
    return text or None


def add_references(item: Item, replies: Sequence[str]) -> tuple[Item, int]:
    """An Exp item with people's explanations (``replies``) added part by part (cause, effect,
    link) to its judge references (``meta["references"]``), and how many were added; other
    items unchanged."""
    refs = item.meta.get("references")
    if item.kind != "text" or not isinstance(refs, list) or len(refs) != len(PARTS):
        return item, 0
    merged = [list(r) for r in refs]
    added = 0
    for reply in replies:
        for k, text in enumerate(split_explanations(reply).parts):
            if text and text not in merged[k]:
                merged[k].append(text)
                added += 1
    return replace(item, meta={**item.meta, "references": merged}), added
