"""Which VG predicates are causal, and in which direction.

A causal edge points from the supporting object to the supported one (``horse ON beach`` →
``beach → horse``; ``woman holding balloon`` → ``woman → balloon``): the supported object's
stability depends on its supporter. Predicates are normalised before lookup (case, whitespace,
punctuation, leading ``is``/``are``, articles) and the first word's inflection is folded
(``holds``/``holding`` → ``hold``, ``riding`` → ``ride``, ``parked`` → ``park``, ``carries`` →
``carry``). Predicates not in ``TABLE`` are ignored and counted
(``whatif stats scene_graphs.json``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUPPORTED_BY = "object->subject"
"""``S pred O`` means O supports S: the edge is ``O → S`` (``horse ON beach``)."""
SUPPORTS = "subject->object"
"""``S pred O`` means S supports O: the edge is ``S → O`` (``woman holding balloon``)."""


@dataclass(frozen=True)
class PredicateRule:
    """How one normalised predicate becomes a causal edge."""

    canonical: str
    """The normalised base form (``hang from``)."""
    direction: str
    """``SUPPORTED_BY`` or ``SUPPORTS``."""


_SUPPORTED_BY = (
    # resting on a surface
    "on", "on top of", "on top", "atop", "upon", "onto", "sit on", "sit atop", "sit in",
    "stand on", "lie on", "lying on", "lie in", "lying in", "lay on", "rest on", "perch on",
    "park on", "walk on", "place on", "set on", "built on", "grow on",
    # leaning, hanging, fastened
    "lean on", "lean against", "hang from", "hang on", "hung from", "hung on", "mount on",
    "mount to", "attach to", "fix to", "fix on", "tie to", "glue to", "fasten to", "strap to",
    "chain to", "stick to", "stick on", "stuck to", "stuck on",
    # carried, held, pulled by something
    "ride", "ride on", "ride in", "held by", "carried by", "supported by", "pulled by",
    "towed by", "held up by",
)
_SUPPORTS = (
    "support", "hold", "hold up", "carry", "pull", "tow", "push", "wear", "lift",
)

TABLE: dict[str, PredicateRule] = {
    **{p: PredicateRule(p, SUPPORTED_BY) for p in _SUPPORTED_BY},
    **{p: PredicateRule(p, SUPPORTS) for p in _SUPPORTS},
}
"""Normalised base form → rule. Extend it when ``whatif stats`` shows frequent unmapped ones."""

_AUX = {"is", "are", "was", "were", "be", "being", "been"}
_ARTICLES = {"a", "an", "the"}


def normalise(predicate: str) -> str:
    """Lower-case, punctuation to spaces, collapsed whitespace, no auxiliaries or articles."""
    words = re.sub(r"[^a-z0-9 ]+", " ", predicate.lower()).split()
    while words and words[0] in _AUX:
        words = words[1:]
    return " ".join(w for w in words if w not in _ARTICLES)


def _word_forms(word: str) -> list[str]:
    """The word and its candidate base forms (plural/3rd person, -ing, -ed), most literal first."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        forms.append(word[:-1])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            forms += [stem, stem + "e"]
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])
    if word.endswith("ied") and len(word) > 4:
        forms.append(word[:-3] + "y")
    return forms


def lookup(predicate: str) -> PredicateRule | None:
    """The rule for a predicate as written in VG, or ``None`` when it is not causal."""
    norm = normalise(predicate)
    if not norm:
        return None
    if norm in TABLE:
        return TABLE[norm]
    first, _, rest = norm.partition(" ")
    for form in _word_forms(first):
        key = f"{form} {rest}".strip()
        if key in TABLE:
            return TABLE[key]
    return None


def causal_edge(subject_id: int, object_id: int, predicate: str) -> tuple[int, int] | None:
    """``(cause, effect)`` for a relationship, or ``None`` when its predicate is not causal."""
    rule = lookup(predicate)
    if rule is None:
        return None
    return (object_id, subject_id) if rule.direction == SUPPORTED_BY else (subject_id, object_id)
