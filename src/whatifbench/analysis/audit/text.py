"""What a blind guesser can read: questions without their option listings, tokens, the numbers a
question names, and the question's wording with numbers and object names masked."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from whatifbench.core.item import Item

TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:\.\d+)?|[^\sa-z\d]")
NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
NUMBER_WORDS = {w: k for k, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
"""Number words a question may use instead of digits ("if three more planes were added")."""
KEEP = frozenset("a an the of and or in on at to is are be was were would will yes no not "
                 "it its this that there with from by for as".split())
"""Words never masked as object names, even when an option contains them."""
DETERMINERS = frozenset("the a an this that these those".split())
"""The word after one of these is taken as an object name (or its colour) and masked."""
NUMBER_MASK = "<num>"
NAME_MASK = "<name>"
LISTING = re.compile(r"(?:\(?\b[A-H]\s*[:.)]\s*[^\s()]+(?:\s+|$)){2,}")
"""An inline option listing such as ``A:10  B:18  C:11  D:15`` or ``(A) red (B) blue``."""
YES_NO = ("yes", "no")


def strip_listing(question: str, choices: Sequence[str]) -> str:
    """The question without an inline listing of its options (C-VQA-Synthetic writes "Select the
    correct answer:A:10  B:18 ..."), so that the option values are not read as question numbers;
    unchanged when it lists no options."""
    if not choices:
        return question
    return LISTING.sub(" ", question).strip()


def tokens(text: str) -> list[str]:
    """Lower-cased word, number and punctuation tokens."""
    return TOKEN.findall(text.lower())


def number_of(token: str) -> float | None:
    """The value of a digit or number-word token, else ``None``."""
    if NUMBER.match(token):
        return float(token)
    value = NUMBER_WORDS.get(token)
    return None if value is None else float(value)


def question_numbers(question_tokens: Sequence[str]) -> list[float]:
    """The numbers a question names (digits and number words), in order."""
    return [v for v in (number_of(t) for t in question_tokens) if v is not None]


def answer_number(text: str) -> float | None:
    """An answer or option read as a number (``"3"``, ``"three"``), else ``None``."""
    words = tokens(text.strip())
    return number_of(words[0]) if len(words) == 1 else None


def normal(text: str) -> str:
    """An answer compared across items: stripped and lower-cased."""
    return text.strip().lower()


def closed_choices(item: Item) -> tuple[str, ...]:
    """The options a guesser picks from: the item's choices, or yes/no for a yes/no item;
    empty for an open item (a number or free text without options)."""
    if item.choices:
        return item.choices
    if item.kind == "yes-no":
        return YES_NO
    return ()


def name_words(items: Sequence[Item]) -> frozenset[str]:
    """Words taken as object names: every word of an option (colours, shapes, objects), and words
    that occur in too few questions to be part of a template's wording. Options are inputs, not
    answers, so reading them across the dataset leaks nothing."""
    names: set[str] = set()
    for item in items:
        for choice in item.choices:
            names.update(t for t in tokens(choice) if t.isalpha() and len(t) > 1)
    counts: Counter[str] = Counter()
    for item in items:
        counts.update(set(tokens(item.question)))
    rare = max(3, len(items) // 200)
    names.update(t for t, c in counts.items() if c < rare and t.isalpha())
    return frozenset(names - KEEP)


def wording(question_tokens: Sequence[str], names: frozenset[str]) -> str:
    """A question's wording with numbers and object names masked: the key under which the
    wording baseline counts answers. Object names are the ``name_words`` and any word right
    after an article or demonstrative ("the horse", "a cup")."""
    out = []
    previous = ""
    for token in question_tokens:
        if number_of(token) is not None:
            out.append(NUMBER_MASK)
        elif token in names or (previous in DETERMINERS and token.isalpha()
                                and token not in KEEP):
            out.append(NAME_MASK)
        else:
            out.append(token)
        previous = token
    return " ".join(out)
