"""Entity names in questions: number agreement, possessives, and the word forms that count as a
mention (used by the leakage checks and by distractor de-duplication)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

IRREGULAR = {"man": "men", "woman": "women", "person": "people", "child": "children",
             "foot": "feet", "tooth": "teeth", "goose": "geese", "mouse": "mice"}
"""Singular → plural for the irregular nouns common in Visual Genome."""
_SINGULAR = {plural: singular for singular, plural in IRREGULAR.items()}


@dataclass(frozen=True)
class Entity:
    """An object as a question names it."""

    name: str
    """The VG name (``women``, ``tennis racket``)."""
    synsets: tuple[str, ...] = ()
    """Its WordNet synsets (``woman.n.01``), used for lemmas and number."""

    @property
    def lemmas(self) -> tuple[str, ...]:
        """Synset lemmas in words (``woman.n.01`` → ``woman``)."""
        return tuple(s.split(".")[0].replace("_", " ").lower() for s in self.synsets if s)

    @property
    def plural(self) -> bool:
        """True when the name is a plural noun (``women``, ``horses``, ``jeans``)."""
        last = self.name.lower().split()[-1]
        if last in _SINGULAR:
            return True
        if not last.endswith("s") or last.endswith(("ss", "us", "is")):
            return False
        lemma_last = [lemma.split()[-1] for lemma in self.lemmas if lemma]
        return not lemma_last or last not in lemma_last

    @property
    def the(self) -> str:
        """``the horse``."""
        return f"the {self.name}"

    @property
    def possessive(self) -> str:
        """``the horse's`` / ``the horses'`` / ``the women's``."""
        return f"the {self.name}'" if self.plural and self.name.endswith("s") else \
            f"the {self.name}'s"

    def verb(self, singular: str, plural: str) -> str:
        """The verb form agreeing with the name (``is``/``are``)."""
        return plural if self.plural else singular

    def forms(self) -> set[str]:
        """Lower-case phrases that count as mentioning the entity: the name, its singular and
        plural, and its synset lemmas with their plurals."""
        return set(_forms(self.name, self.lemmas))


@functools.lru_cache(maxsize=1 << 16)
def _forms(name: str, lemmas: tuple[str, ...]) -> frozenset[str]:
    """``Entity.forms`` (memoised: the contrast checks ask for the same names many times)."""
    out: set[str] = set()
    for base in (name.lower(), *lemmas):
        if not base:
            continue
        head, _, last = base.rpartition(" ")
        prefix = f"{head} " if head else ""
        for word in _inflections(last):
            out.add(prefix + word)
    return frozenset(out)


def _inflections(word: str) -> set[str]:
    forms = {word}
    if word in IRREGULAR:
        forms.add(IRREGULAR[word])
    if word in _SINGULAR:
        forms.add(_SINGULAR[word])
    forms |= {word + "s", word + "es"}
    if word.endswith("y") and len(word) > 2:
        forms.add(word[:-1] + "ies")
    if word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.add(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        forms.add(word[:-1])
    return forms


def _pattern(forms: Iterable[str]) -> re.Pattern[str] | None:
    alternatives = sorted((re.escape(f) for f in forms if f), key=len, reverse=True)
    if not alternatives:
        return None
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?![a-z0-9])")


def mentions(text: str, entity: Entity) -> bool:
    """True when ``text`` mentions the entity in any of its forms (whole words, any case)."""
    pattern = _pattern(entity.forms())
    return bool(pattern and pattern.search(text.lower()))


def mask(text: str, entities: Iterable[Entity]) -> str:
    """``text`` lower-cased with every mention of ``entities`` blanked out."""
    lowered = text.lower()
    forms: set[str] = set()
    for entity in entities:
        forms |= entity.forms()
    pattern = _pattern(forms)
    return pattern.sub(" ", lowered) if pattern else lowered


@functools.lru_cache(maxsize=1 << 18)
def same_thing(a: Entity, b: Entity) -> bool:
    """True when two entities would read as the same thing (shared form or synset; memoised:
    the contrast checks compare the same names many times)."""
    return (not _forms(a.name, a.lemmas).isdisjoint(_forms(b.name, b.lemmas))
            or not set(a.synsets).isdisjoint(b.synsets))
