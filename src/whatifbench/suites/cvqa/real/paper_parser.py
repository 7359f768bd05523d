"""The C-VQA release's answer parser (``scripts/format_response.py``), reproduced rule for rule.

Numeric types: lower-case; tokens are ``\\b\\w+\\b`` with each comma kept as an empty token; no
tokens → fail; if the first token is ``if``, keep only the tokens after the first comma (no
comma → fail); otherwise, if ``if`` occurs, keep the tokens before the first ``if``. Then **one
pass** over the tokens: the first token that is either all digits (``str.isdigit``) or one of
{no, zero, none → 0; one … ten → 1 … 10} decides; digits are converted with ``int`` (so ``03``
→ ``3``, and Unicode decimal digits such as ``٣`` → ``3``); no such token → fail.
Boolean type: any of no/false/not → ``no``; else any of yes/true/be/is/are → ``yes``; else fail.

Where the release crashes we record the reply as unparsed (flag ``release-crash``): a token that
``str.isdigit`` accepts but ``int`` rejects (superscripts ``²``, subscripts, circled digits
``①``; the release's script stops with ``ValueError`` there) or an integer longer than Python's
``int`` limit. ``calc_acc.py`` then compares the formatted value with the release's answer as
text, so a failed or crashed reply is simply wrong. Nothing else is done (no ``<think>``
stripping): the point is to score as the paper did.
"""

from __future__ import annotations

import re

from whatifbench.answers.extraction import RELEASE_CRASH as CRASH
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


def numeric_tokens(reply: str) -> list[str] | None:
    """The tokens the release searches for a count (``None``: it gives up before searching)."""
    toks = tokens(reply)
    if not toks:
        return None
    if toks[0] == "if":
        return toks[toks.index(COMMA) + 1:] if COMMA in toks else None
    return toks[:toks.index("if")] if "if" in toks else toks


def paper_number(reply: str) -> Extraction:
    """The release's parse of a reply to a numeric (direct or indirect) question."""
    toks = numeric_tokens(reply)
    if toks is None:
        return Extraction(None, "no-tokens" if not tokens(reply) else "if-without-comma")
    for tok in toks:
        if tok.isdigit():
            try:
                return Extraction(str(int(tok)))
            except ValueError:  # '²'.isdigit() is True but int('²') raises: the release stops
                return Extraction(None, CRASH)
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
