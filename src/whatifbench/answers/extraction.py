"""The result of parsing one reply."""

from __future__ import annotations

from dataclasses import dataclass

RELEASE_CRASH = "release-crash"
"""Flag of a reply on which a benchmark release's own scoring script raises instead of scoring
(paper parsers record it as unparsed)."""


@dataclass(frozen=True)
class Extraction:
    """What a parser found in a reply."""

    value: str | None
    """The answer in the item's terms (a choice, a digit string, ``yes``/``no``); ``None`` when
    nothing could be extracted (scored as wrong and flagged, never guessed)."""
    flag: str | None = None
    """Why the reply was unparsed, or a note (``truncated-think``, ``ambiguous``, ``no-answer``)."""

    @property
    def parsed(self) -> bool:
        """True when an answer was found."""
        return self.value is not None
