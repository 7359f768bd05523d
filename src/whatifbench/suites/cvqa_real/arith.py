"""A safe arithmetic reader for the pipeline's ``Step2`` lines (never ``eval``).

Grammar: ``expr := term (("+"|"-") term)*``, ``term := factor (("*"|"/") factor)*``,
``factor := NUMBER | "(" expr ")" | "-" factor``; ``×``/``x`` between numbers mean ``*`` and
``÷`` means ``/``. Values are exact fractions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

MAX_LENGTH = 200
"""Longer expressions are refused (a Step2 line holds a short sum)."""
_TOKEN = re.compile(r"\s*(\d+(?:\.\d+)?|[-+*/()])")
_EQUATION = re.compile(r"([\d\s.+\-*/()]*\d[\d\s.+\-*/()]*)=\s*(-?\d+(?:\.\d+)?)")


class ArithmeticProblem(ValueError):
    """The text is not an arithmetic expression this reader accepts."""


@dataclass(frozen=True)
class Equation:
    """``left = right`` found in a line of text."""

    left: str
    """The expression left of the last ``=`` (normalised: ``*`` and ``/`` operators)."""
    right: Fraction
    """The number right of it."""
    value: Fraction
    """What ``left`` evaluates to."""
    first: Fraction
    """The expression's first number (the starting count)."""


def normalise(text: str) -> str:
    """``×``/``x`` between numbers → ``*``, ``÷`` → ``/``, en/em dash and minus sign → ``-``."""
    text = text.replace("÷", "/").replace("−", "-").replace("–", "-").replace("—", "-")
    return re.sub(r"(?<=[\d)])\s*[x×X]\s*(?=[\d(])", "*", text)


def evaluate(expression: str) -> Fraction:
    """The exact value of an arithmetic expression; ``ArithmeticProblem`` if it is not one."""
    text = normalise(expression).strip()
    if not text or len(text) > MAX_LENGTH:
        raise ArithmeticProblem(f"not a short arithmetic expression: {expression!r}")
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ArithmeticProblem(f"unexpected {text[pos:pos + 10]!r} in {expression!r}")
        tokens.append(match.group(1))
        pos = match.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    parser = _Parser(tokens, expression)
    value = parser.expr()
    if parser.pos != len(tokens):
        raise ArithmeticProblem(f"unexpected {tokens[parser.pos]!r} in {expression!r}")
    return value


def find_equation(text: str) -> Equation | None:
    """The last ``expression = number`` in ``text`` with its evaluation, or ``None``."""
    found = list(_EQUATION.finditer(normalise(text)))
    for match in reversed(found):
        left = match.group(1).strip()
        try:
            value = evaluate(left)
        except (ArithmeticProblem, ZeroDivisionError):
            continue
        first = Fraction(re.search(r"\d+(?:\.\d+)?", left).group(0))  # type: ignore[union-attr]
        return Equation(left, Fraction(match.group(2)), value, first)
    return None


class _Parser:
    def __init__(self, tokens: list[str], source: str) -> None:
        self.tokens = tokens
        self.source = source
        self.pos = 0
        self.depth = 0

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> str:
        tok = self._peek()
        if tok is None:
            raise ArithmeticProblem(f"{self.source!r} ends too early")
        self.pos += 1
        return tok

    def expr(self) -> Fraction:
        value = self.term()
        while self._peek() in ("+", "-"):
            op = self._take()
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> Fraction:
        value = self.factor()
        while self._peek() in ("*", "/"):
            op = self._take()
            rhs = self.factor()
            if op == "/" and rhs == 0:
                raise ZeroDivisionError(f"division by zero in {self.source!r}")
            value = value * rhs if op == "*" else value / rhs
        return value

    def factor(self) -> Fraction:
        tok = self._take()
        if tok == "-":
            return -self.factor()
        if tok == "(":
            self.depth += 1
            if self.depth > 20:
                raise ArithmeticProblem(f"{self.source!r} nests too deeply")
            value = self.expr()
            if self._take() != ")":
                raise ArithmeticProblem(f"unbalanced parentheses in {self.source!r}")
            self.depth -= 1
            return value
        if tok[0].isdigit():
            return Fraction(tok)
        raise ArithmeticProblem(f"unexpected {tok!r} in {self.source!r}")
