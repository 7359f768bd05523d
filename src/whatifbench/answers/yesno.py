"""Read yes or no out of a free-text reply (our default parser for yes/no questions).

In order: a leading ``yes``/``no``/``true``/``false`` (``No, it would not`` → no); a keyed
answer (``the answer is yes``); an abstention (``I cannot tell``) is unparsed; otherwise the
first sentence, conditional clauses removed, is read as a statement: a negation (``not``,
``n't``, ``no``, ``never`` …) → no, an affirmative verb (``it would be``, ``there are``) → yes.
``<think>`` blocks are dropped. Anything else is unparsed, never guessed.
"""

from __future__ import annotations

import re

from whatifbench.answers.extraction import Extraction
from whatifbench.answers.numbers import drop_if_clauses
from whatifbench.answers.think import strip_think

_VALUES = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
_LEAD = re.compile(r"\W*(yes|no|true|false)\b")
_KEYED = re.compile(r"\banswer\s*(?:is|would be|will be|:)?\s*:?\s*[\"'(]*\s*(yes|no|true|false)\b")
_ABSTAIN = re.compile(r"\b(?:cannot|can't|can not|unable to|impossible to) (?:tell|determine|say|"
                      r"know|see)\b|\b(?:i don't know|unclear|not sure|unknown|uncertain)\b")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|false)\b|n't\b")
_AFFIRM = re.compile(r"\b(?:would|will|is|are|was|were|be|does|do|did|can|could|has|have|had|"
                     r"there|true|yes|definitely|certainly)\b")
_MARKUP = re.compile(r"[*_`#]+")
_SENTENCE_END = re.compile(r"[.!?\n]")


def extract_yes_no(reply: str) -> Extraction:
    """Return ``yes`` or ``no`` for a reply, or an unparsed extraction."""
    text, cut = strip_think(reply)
    if cut:
        return Extraction(None, "truncated-think")
    text = _MARKUP.sub(" ", text).lower().replace("’", "'").strip()
    if not text:
        return Extraction(None, "empty")
    lead = _LEAD.match(text)
    if lead:
        return Extraction(_VALUES[lead.group(1)])
    keyed = _KEYED.findall(text)
    if keyed:
        return Extraction(_VALUES[keyed[-1]])
    if _ABSTAIN.search(text):
        return Extraction(None, "no-answer")
    first = _SENTENCE_END.split(text, maxsplit=1)[0]
    statement = drop_if_clauses(first)
    if _NEGATION.search(statement):
        return Extraction("no")
    if _AFFIRM.search(statement):
        return Extraction("yes")
    return Extraction(None, "no-answer")
