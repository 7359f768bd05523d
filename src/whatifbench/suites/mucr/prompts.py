"""MuCR question wording: the four questions posed about each cause/effect pair.

Images are labelled (``Cause``, ``Effect``, ``A``…``D``): the request builder writes each label
before its image in the multi-image layout and draws it on its tile in the composite layout
(MuCR Fig. 7a), so the questions refer to images by label in both layouts.
"""

from __future__ import annotations

METRICS = ("c2e", "e2c", "cue", "exp")
"""The four metrics, in item order within a pair (also the items' ``group`` and ``role``)."""
CHOICE_METRICS = ("c2e", "e2c", "cue")
LETTERS = ("A", "B", "C", "D")

QUESTIONS = {
    "c2e": ('The image labelled "Cause" shows a situation. Which of the four images labelled '
            "A, B, C and D shows its most likely effect?"),
    "e2c": ('The image labelled "Effect" shows the outcome of a situation. Which of the four '
            "images labelled A, B, C and D shows its most likely cause?"),
    "cue": ('The image labelled "Cause" shows a cause and the image labelled "Effect" shows its '
            "effect. Which phrase is the visual cue that links the cause to the effect?"),
    "exp": ('The image labelled "Cause" shows a cause and the image labelled "Effect" shows its '
            'effect; the cue that links them is "{cue}". Write exactly three numbered '
            "sentences:\n1. Describe the cause image.\n2. Describe the effect image.\n"
            "3. Explain how the cause leads to the effect, using the cue."),
}
"""``Item.question`` per metric (``exp`` is formatted with the pair's cue)."""

IMAGE_INSTRUCTION = "Answer with the letter of the image (A, B, C or D) directly."
"""Appended to C2E/E2C questions (the images are the options)."""

IMAGE_LABELS = {
    "c2e": ("Cause", *LETTERS),
    "e2c": ("Effect", *LETTERS),
    "cue": ("Cause", "Effect"),
    "exp": ("Cause", "Effect"),
}
"""``meta["image_labels"]`` per metric, one per image in order."""


def image_option(letter: str) -> str:
    """How a reply may name an image option in words (``image B``), for answer extraction."""
    return f"image {letter}"


def exp_answer(references: tuple[str, str, str]) -> str:
    """The three explanations written as the question asks (targets and demonstrations)."""
    return "\n".join(f"{k}. {text}" for k, text in enumerate(references, start=1))
