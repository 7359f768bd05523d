"""MuCR questions about cause/effect pictures of side-view worlds (``mucr-synthetic``).

The question text says which task it is; the pictures come as separate images (``Cause``/
``Effect`` first, then ``A``–``D``) or as one composite of labelled tiles. Each picture is read
back into a world (``see_bodies``) and the scene engine's own mechanics predicts what follows:

- C2E: the effect the cause leads to is predicted; the candidate that looks most like it wins.
- E2C: each candidate cause's effect is predicted; the one most like the given effect wins.
- Cue: each phrase names an object of the cause picture; an agent among them is made to act,
  and the phrase whose consequence looks most like the effect picture wins.
- Exp: the cue's object acts on the perceived cause, and the three sentences are written from
  what happened (``scenes.narrate``).

Nothing but the question, the option texts and the pixels is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from whatifbench.scenes.bodies import AGENTS, Body, World, world_distance
from whatifbench.scenes.mechanics import consequence
from whatifbench.scenes.narrate import NOUNS, explain

TASKS = (
    ("c2e", re.compile(r'labelled "Cause" shows a situation\. Which of the four images labelled '
                       r"A, B, C and D shows its most likely effect", re.IGNORECASE)),
    ("e2c", re.compile(r'labelled "Effect" shows the outcome of a situation\. Which of the four '
                       r"images labelled A, B, C and D shows its most likely cause",
                       re.IGNORECASE)),
    ("cue", re.compile(r"Which phrase is the visual cue that links the cause to the effect",
                       re.IGNORECASE)),
    ("exp", re.compile(r'the cue that links them is "([^"]+)"', re.IGNORECASE)),
)
"""How each MuCR question is recognised (its wording in ``suites.mucr.prompts``)."""
LETTERS = ("A", "B", "C", "D")
PICTURES = {"c2e": 5, "e2c": 5, "cue": 2, "exp": 2}
_KINDS = {noun: kind for kind, noun in NOUNS.items()}
_PHRASE = re.compile(r"^\s*the (\w+) (.+?)\s*$", re.IGNORECASE)


def task_of(question: str) -> tuple[str, str | None] | None:
    """``(task, cue)`` of a MuCR question (``cue`` for Exp questions), else ``None``."""
    for task, pattern in TASKS:
        found = pattern.search(question)
        if found:
            return task, (found.group(1) if task == "exp" else None)
    return None


def referent(phrase: str, world: World) -> Body | None:
    """The one body a phrase such as ``the red ball`` names (``None``: none or several)."""
    found = _PHRASE.match(phrase)
    if not found:
        return None
    color, noun = found.group(1).lower(), found.group(2).lower()
    kind = _KINDS.get(noun)
    matches = [b for b in world.bodies if b.kind == kind and b.color == color]
    return matches[0] if len(matches) == 1 else None


def predict(world: World) -> World:
    """The world after every agent in it has acted (inert agents change nothing)."""
    for agent in [b.id for b in world.bodies if b.kind in AGENTS]:
        world, _ = consequence(world, agent)
    return world


def _closest(target: World, candidates: Sequence[World]) -> int:
    scores = [world_distance(target, c) for c in candidates]
    return min(range(len(scores)), key=lambda k: scores[k])


def solve(task: str, cue: str | None, worlds: Sequence[World],
          choices: Sequence[str]) -> str | None:
    """The chosen option (C2E/E2C: a letter; Cue: a phrase) or the Exp answer text."""
    if task == "c2e":
        return LETTERS[_closest(predict(worlds[0]), worlds[1:])]
    if task == "e2c":
        return LETTERS[_closest(worlds[0], [predict(w) for w in worlds[1:]])]
    cause, effect = worlds
    if task == "cue":
        scored = []
        for option in choices:
            body = referent(option, cause)
            if body is not None and body.kind in AGENTS:
                scored.append((world_distance(consequence(cause, body.id)[0], effect), option))
        return min(scored)[1] if scored else None
    body = referent(cue or "", cause)
    if body is None:
        return None
    after, events = consequence(cause, body.id)
    parts = explain(cause, body.id, after, events)
    return "\n".join(f"{k}. {text}" for k, text in enumerate(parts, start=1))


def read_pair(question: str, images: Sequence[str], choices: Sequence[str]) -> str | None:
    """Answer a MuCR question from its pictures (``None``: abstain)."""
    from whatifbench.models.builtin.reader.see_bodies import perceive_files

    found = task_of(question)
    if found is None:
        return None
    task, cue = found
    try:
        worlds = perceive_files(tuple(images), PICTURES[task])
    except (OSError, ValueError):
        return None
    if any(w.ground is None for w in worlds):
        return None
    return solve(task, cue, worlds, choices)
