"""Lexical statistics (C-VQA Fig. 8): type-token ratio and, with a POS tagger, noun/verb ratios.

The tagger is optional: spaCy with an installed ``en_core_web_sm`` pipeline, else NLTK with its
perceptron tagger data already on disk. Nothing is downloaded; without either the noun/verb
rows are left out and a note says how to enable them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from whatifbench.core.datastats import words

Tagger = Callable[[Sequence[str]], list[list[tuple[str, str]]]]
"""Questions → per question a list of (token, coarse tag), tags ``NOUN``, ``VERB`` or ``X``."""


@dataclass(frozen=True)
class PosRatios:
    """Noun and verb type/token ratios over a set of questions."""

    tagger: str
    """Which tagger produced the tags."""
    noun_types_per_noun_token: float
    """Distinct nouns / noun tokens."""
    noun_types_per_type: float
    """Distinct nouns / distinct words."""
    verb_types_per_verb_token: float
    """Distinct verbs / verb tokens."""
    verb_types_per_type: float
    """Distinct verbs / distinct words."""


def type_token_ratio(questions: Sequence[str]) -> float:
    """Distinct lower-cased words / words, over all the questions."""
    tokens = [w.lower() for q in questions for w in words(q)]
    return len(set(tokens)) / len(tokens) if tokens else 0.0


def pos_ratios(questions: Sequence[str], tagger: Tagger, name: str) -> PosRatios:
    """Noun and verb ratios from the tagger's coarse tags (lower-cased tokens)."""
    tagged = [(tok.lower(), tag) for sent in tagger(questions) for tok, tag in sent
              if any(c.isalnum() for c in tok)]
    types = {tok for tok, _ in tagged}

    def ratios(wanted: str) -> tuple[float, float]:
        toks = [tok for tok, tag in tagged if tag == wanted]
        kinds = set(toks)
        return (len(kinds) / len(toks) if toks else 0.0,
                len(kinds) / len(types) if types else 0.0)

    nouns, verbs = ratios("NOUN"), ratios("VERB")
    return PosRatios(name, round(nouns[0], 4), round(nouns[1], 4), round(verbs[0], 4),
                     round(verbs[1], 4))


def find_tagger() -> tuple[str, Tagger] | None:
    """An installed offline tagger (spaCy ``en_core_web_sm``, else NLTK's), or ``None``."""
    return _spacy() or _nltk()


def _spacy() -> tuple[str, Tagger] | None:
    try:
        import spacy
        nlp = spacy.load("en_core_web_sm", exclude=["parser", "ner", "lemmatizer"])
    except (ImportError, OSError, ValueError):  # not installed, or no en_core_web_sm
        return None

    def tag(questions: Sequence[str]) -> list[list[tuple[str, str]]]:
        coarse = {"NOUN": "NOUN", "PROPN": "NOUN", "VERB": "VERB"}
        return [[(t.text, coarse.get(t.pos_, "X")) for t in doc] for doc in nlp.pipe(questions)]

    return "spacy:en_core_web_sm", tag


def _nltk() -> tuple[str, Tagger] | None:
    try:
        import nltk
        nltk.pos_tag(["test"])
    except (ImportError, LookupError):  # not installed, or its tagger data is not on disk
        return None

    def tag(questions: Sequence[str]) -> list[list[tuple[str, str]]]:
        out = []
        for q in questions:
            pairs = nltk.pos_tag(words(q))
            out.append([(w, "NOUN" if t.startswith("NN") else "VERB" if t.startswith("VB")
                         else "X") for w, t in pairs])
        return out

    return "nltk:averaged_perceptron_tagger", tag
