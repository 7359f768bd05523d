"""A drawn question pair before checking (``Draw``), its candidate premises (``Premise``), and
the checks a pair must pass to be kept (``pair_problems``).

Templates (``tpl_*`` modules) return a ``Draw``: a scene, the basic question as a program, the
counterfactual question's program and wording, and one or more candidate premises. The sampler
(``synth.sample``) executes the programs — the basic one on the scene, the counterfactual one on
the scene changed by a premise's interventions — and keeps the first premise whose answer
changes (or not) as the pair asks and that passes every check.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from whatifbench.models.builtin.text_prior import tokens
from whatifbench.scenes.filters import scene_problems
from whatifbench.scenes.interventions import Intervention, apply_all
from whatifbench.scenes.model import Scene
from whatifbench.scenes.programs import Program


@dataclass(frozen=True)
class Premise:
    """One candidate counterfactual change."""

    text: str
    """The ``if`` clause without "If" ("the square and the circle swapped colors")."""
    interventions: tuple[Intervention, ...]
    """What it does to the scene, applied in order."""
    explanation: str
    """A reasoning for the counterfactual answer: a format string with ``{b}`` (the basic
    answer) and ``{c}`` (the counterfactual answer)."""
    about_subject: bool = False
    """The premise changes the object the question asks about (the question may say "it")."""
    readings: tuple[tuple[Intervention, ...], ...] = ()
    """Other reasonable readings of the text ("twice as big": in area rather than in width);
    each must give the same answer, or the pair is rejected."""
    kind: str = ""
    """Short name for the card's statistics (``add``, ``mirror`` ...)."""


@dataclass(frozen=True)
class Draw:
    """A scene with its basic question and candidate counterfactual premises."""

    template: str
    """Template name (``count-shapes`` ...)."""
    scene: Scene
    """The scene shown in the image."""
    basic: str
    """The basic question."""
    basic_program: Program
    """Computes the basic answer on ``scene``."""
    basic_explanation: str
    """A reasoning for the basic answer (format string with ``{b}``)."""
    counterfactual: str
    """The counterfactual question: a format string with ``{premise}`` and ``{subject}``."""
    subject: str
    """What ``{subject}`` becomes, unless the premise is about it (then "it")."""
    cf_program: Program
    """Computes the counterfactual answer on the intervened scene."""
    premises: tuple[Premise, ...]
    """Candidates, tried in a random order."""
    distractor: str
    """The second option when the premise does not change the answer (when it does, the
    options are the basic and the counterfactual answer)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Template parameters for provenance."""
    checks: Callable[[Scene], list[str]] | None = None
    """Further near-tie checks, run on the scene and on the intervened scene."""
    pair: tuple[str, ...] = ()
    """A fixed pair of options (yes/no, left/right ...) for both questions."""
    steps: tuple[int, ...] = ()
    """Counts: each question's second option is its answer plus or minus one of these steps (a
    coin says which; never below zero), drawn for each question on its own (for the
    counterfactual one never twice the change of the answer)."""
    offered: tuple[tuple[str, str], tuple[str, str]] | None = None
    """The shortcut-free design: (answer, other option) of the basic and the counterfactual
    question, planned before the scene (``scenes.options``); the programs must give these
    answers."""

    def options(self, basic: str, cf: str, rng: random.Random
                ) -> tuple[tuple[str, str], tuple[str, str]] | None:
        """(answer, other option) of the basic and the counterfactual question; ``None`` when
        the answers do not fit the options this draw allows.

        Without ``pair`` or ``steps`` both questions offer the basic and the counterfactual
        answer, or, when the answer does not change, the basic answer and ``distractor``.
        """
        if self.offered is not None:
            planned = self.offered[0][0], self.offered[1][0]
            return self.offered if planned == (basic, cf) else None
        if self.steps:
            # A step of twice the change would put the second option as near to the basic
            # count as the answer: a model ignoring the premise would gain from the tie.
            change = abs(int(cf) - int(basic))
            cf_steps = [s for s in self.steps if s != 2 * change] or list(self.steps)
            return ((basic, _near(int(basic), rng.choice(self.steps), rng)),
                    (cf, _near(int(cf), rng.choice(cf_steps), rng)))
        if self.pair:
            if basic not in self.pair or cf not in self.pair:
                return None
            other = next(o for o in self.pair if o != basic)
        else:
            other = cf if cf != basic else self.distractor
        if not other or other == basic:
            return None
        return (basic, other), (cf, basic if cf != basic else other)

    def question(self, premise: Premise) -> str:
        """The counterfactual question with this premise."""
        subject = "it" if premise.about_subject else self.subject
        text = self.counterfactual.format(premise=premise.text, subject=subject)
        return text[0].upper() + text[1:]


def two_way(planned: bool, changed: bool, now: tuple[str, str]
            ) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """``Draw.offered`` of a planned pair whose two options are the same for both questions:
    ``now`` is (basic answer, other option); the counterfactual answer is the other option
    when the premise ``changed`` the answer. ``None`` without a plan."""
    if not planned:
        return None
    return now, (now[::-1] if changed else now)


def _near(value: int, step: int, rng: random.Random) -> str:
    """``value`` plus or minus ``step`` (never below zero)."""
    up = rng.random() < 0.5 or value - step < 0
    return str(value + step if up else value - step)


def mentioned(text: str, options: Sequence[str]) -> list[str]:
    """The options whose words all occur in ``text`` (number words count as digits, plural
    ``s`` is ignored: the text-prior model's reading)."""
    words = set(tokens(text))
    return [o for o in options if tokens(o) and set(tokens(o)) <= words]


def singles_out(text: str, options: Sequence[str]) -> bool:
    """Does the text name some options but not all (so text alone could favour one)?"""
    found = mentioned(text, options)
    return 0 < len(found) < len(options)


def _steps_problems(scene: Scene, interventions: Sequence[Intervention]) -> list[str]:
    found: list[str] = []
    for intervention in interventions:
        found += intervention.ambiguities(scene)
        scene = intervention.apply(scene)
    return found


def pair_problems(draw: Draw, premise: Premise, after: Scene, answers: tuple[str, str],
                  options: tuple[tuple[str, str], tuple[str, str]]) -> list[str]:
    """Every reason to reject the pair: hidden or touching objects in either scene, near-ties
    in the questions and the premise's selections, readings of the premise that disagree, an
    option singled out by a question's or the premise's words."""
    problems = scene_problems(after) + draw.cf_program.ambiguities(after)
    problems += _steps_problems(draw.scene, premise.interventions)
    if draw.checks is not None:
        problems += draw.checks(after)
    for reading in premise.readings:
        other = apply_all(draw.scene, reading)
        if str(draw.cf_program.execute(other)) != answers[1] or draw.cf_program.ambiguities(
                other) or (draw.checks is not None and draw.checks(other)):
            problems.append("another reading of the premise gives another answer")
    for text, offered in ((draw.basic, options[0]), (draw.question(premise), options[1]),
                          (premise.text, options[1])):
        # a planned pair's answers are dealt whatever the words name (each option named as
        # often right as wrong): naming one of them gives nothing away
        if draw.offered is None and singles_out(text, offered):
            problems.append(f"{text!r} names one of the options {offered}")
    return problems


def scene_ok(draw: Draw) -> bool:
    """The drawn scene itself passes: nothing hidden or touching, no near-tie in the basic
    question."""
    return not (scene_problems(draw.scene) or draw.basic_program.ambiguities(draw.scene)
                or (draw.checks is not None and draw.checks(draw.scene)))
