"""The two readings of a MuCR record's ``causal_reason`` (its human explanations).

The release README's template writes ``"causal_reason": ["Explanation_1", "Explanation_2",
"Explanation_3"]`` (a later README: one string, ``"Explanation_1"``) without saying what the
three entries are. Two readings:

- ``annotators`` (default): three volunteers' explanations of the pair, each structured as the
  paper asks (the cause image, then the effect image, then the causal link). This is the reading
  best supported by the paper: its annotation section says "three volunteers independently
  annotate each pair", and Eq. 6–8 compare each part of the model's explanation with three
  human annotations of that part, ``S_1 = f_sim(E(I_C), A_1(I_C), A_2(I_C), A_3(I_C))`` — three
  annotations per part, which only this reading provides (the entries are also named like the
  three false cues, alternatives of one kind, and the later README's single string can only be
  one whole explanation). Each entry is split into its three parts as a model's reply is
  (numbered or labelled parts, else sentences: first = cause, second = effect, rest = link); an
  entry that does not split into three parts is the reference of every part. An entry may also
  be a list of three texts (that annotator's parts).
- ``parts``: exactly three entries — the cause-image, effect-image and causal-link explanation
  (each a text or a list of alternative texts); the reading this importer used at first.

``whatif import mucr --causal-reason annotators|parts`` chooses; the card and every Exp item
record it (``meta.reference_reading``), and Exp's references per part follow from it.
"""

from __future__ import annotations

from typing import Any

from whatifbench.suites.mucr.explanations import split_explanations

READINGS = ("annotators", "parts")
DEFAULT_READING = "annotators"

Parts = tuple[tuple[str, ...], ...]
"""References per part: (cause image texts, effect image texts, causal link texts)."""


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def annotation_parts(text: str) -> tuple[str, str, str]:
    """One annotator's explanation split into (cause, effect, link); the whole text for each
    part when it does not split into three."""
    found = split_explanations(text).parts
    if found[0] and found[1] and found[2]:
        return found[0], found[1], found[2]
    return text, text, text


def _unique(texts: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(texts))


def read_causal_reason(value: Any, reading: str, problems: list[str]) -> Parts:
    """The references per part under ``reading``; problems are appended to ``problems``."""
    if reading == "parts":
        return _as_parts(value, problems)
    entries = [value] if isinstance(value, str) else value
    annotators: list[tuple[str, str, str]] = []
    if isinstance(entries, list) and entries:
        for entry in entries:
            if _text(entry) is not None:
                annotators.append(annotation_parts(str(_text(entry))))
            elif (isinstance(entry, list) and len(entry) == 3
                  and all(_text(x) is not None for x in entry)):
                parts = [str(_text(x)) for x in entry]
                annotators.append((parts[0], parts[1], parts[2]))
            else:
                annotators = []
                break
    if not annotators:
        problems.append("'causal_reason' must hold the annotators' explanations: a text or a list "
                        "of texts (each may be a list of three texts: cause image, effect image, "
                        f"causal link); got {value!r}")
        return ()
    return tuple(_unique([a[p] for a in annotators]) for p in range(3))


def _as_parts(value: Any, problems: list[str]) -> Parts:
    def refs(v: Any) -> tuple[str, ...] | None:
        if _text(v) is not None:
            return (str(_text(v)),)
        if isinstance(v, list) and v and all(_text(x) is not None for x in v):
            return tuple(str(_text(x)) for x in v)
        return None

    parts = [refs(v) for v in value] if isinstance(value, list) and len(value) == 3 else [None]
    if any(p is None for p in parts):
        problems.append("'causal_reason' must hold three explanations (cause image, effect "
                        f"image, causal link), each a text or a list of texts; got {value!r} "
                        "(or import with --causal-reason annotators)")
        return ()
    return tuple(p for p in parts if p is not None)
