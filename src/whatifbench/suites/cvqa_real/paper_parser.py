"""The C-VQA release's answer parser (``format_response``), reproduced rule for rule.

Numeric types: lower-case; tokens are ``\\b\\w+\\b`` with each comma kept as an empty token; no
tokens → fail; if the first token is ``if``, keep only the tokens after the first comma (no
comma → fail); otherwise, if ``if`` occurs, keep the tokens before the first ``if``; return the
first all-digit token, else the first of {no, zero, none → 0; one … ten → 1 … 10}, else fail.
Boolean type: any of no/false/not → ``no``; else any of yes/true/be/is/are → ``yes``; else fail.
Nothing else is done (no ``<think>`` stripping): the point is to score as the paper did.
"""

from __future__ import annotations

import re

from whatifbench.answers.extraction import Extraction

_TOKEN = re.compile(r"\b\w+\b|,")
NUMBER_WORDS = {"no": "0", "zero": "0", "none": "0", "one": "1", "two": "2", "three": "3",
                "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
                "ten": "10"}
NO_WORDS = ("no", "false", "not")
YES_WORDS = ("yes", "true", "be", "is", "are")
COMMA = ""
"""How a comma appears in the token list."""


def tokens(reply: str) -> list[str]:
    """The release's tokens: lower-cased ``\\b\\w+\\b`` words, each comma as an empty token."""
    return [COMMA if t == "," else t for t in _TOKEN.findall(reply.lower())]


def paper_number(reply: str) -> Extraction:
    """The release's parse of a reply to a numeric (direct or indirect) question."""
    toks = tokens(reply)
    if not toks:
        return Extraction(None, "no-tokens")
    if toks[0] == "if":
        if COMMA not in toks:
            return Extraction(None, "if-without-comma")
        toks = toks[toks.index(COMMA) + 1:]
    elif "if" in toks:
        toks = toks[:toks.index("if")]
    for tok in toks:
        if tok.isdigit():
            return Extraction(tok)
    for tok in toks:
        if tok in NUMBER_WORDS:
            return Extraction(NUMBER_WORDS[tok])
    return Extraction(None, "no-number")


def paper_boolean(reply: str) -> Extraction:
    """The release's parse of a reply to a boolean question."""
    toks = tokens(reply)
    if not toks:
        return Extraction(None, "no-tokens")
    if any(tok in NO_WORDS for tok in toks):
        return Extraction("no")
    if any(tok in YES_WORDS for tok in toks):
        return Extraction("yes")
    return Extraction(None, "no-yes-no")
