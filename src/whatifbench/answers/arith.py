"""A safe arithmetic reader (never ``eval``): C-VQA-Real's ``Step2`` lines and the VisProg
backend's ``EVAL`` steps.

Grammar of ``evaluate``: ``expr := term (("+"|"-") term)*``, ``term := factor (("*"|"/")
factor)*``, ``factor := NUMBER | "(" expr ")" | "-" factor``; ``×``/``x`` between numbers mean
``*`` and ``÷`` means ``/``. Values are exact fractions.

``evaluate_expression`` reads a superset for program steps: comparisons (``== != < <= > >=``,
chained), ``and``/``or``/``not``, conditionals ``A if C else B``, ``//`` and ``%``, string
literals in quotes and ``True``/``False``; values are fractions, booleans or strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

MAX_LENGTH = 200
"""Longer expressions are refused (a Step2 line holds a short sum)."""
MAX_EXPRESSION = 1000
"""Longest ``evaluate_expression`` input."""
_TOKEN = re.compile(r"\s*(\d+(?:\.\d+)?|[-+*/()])")
_EXT_TOKEN = re.compile(
    r"\s*(\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\"|[A-Za-z]+|==|!=|<=|>=|//|[-+*/%()<>])")
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")
Value = Fraction | bool | str
"""A value of ``evaluate_expression``."""
T = TypeVar("T")
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
    parser = _Parser(_tokens(text, _TOKEN, expression), expression)
    value = parser.expr()
    if parser.pos != len(parser.tokens):
        raise ArithmeticProblem(f"unexpected {parser.tokens[parser.pos]!r} in {expression!r}")
    return value


def evaluate_expression(expression: str) -> Value:
    """The value of an arithmetic, comparison or conditional expression (see the module
    docstring); ``ArithmeticProblem`` if it is not one, ``ZeroDivisionError`` on ``/ 0``."""
    text = normalise(expression).strip()
    if not text or len(text) > MAX_EXPRESSION:
        raise ArithmeticProblem(f"not a short expression: {expression[:80]!r}")
    parser = _ExtendedParser(_tokens(text, _EXT_TOKEN, expression), expression)
    value = parser.condition()
    if parser.pos != len(parser.tokens):
        raise ArithmeticProblem(f"unexpected {parser.tokens[parser.pos]!r} in {expression!r}")
    return value


def _tokens(text: str, pattern: re.Pattern[str], expression: str) -> list[str]:
    """The tokens of ``text``; ``ArithmeticProblem`` at the first character no token starts
    with."""
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        match = pattern.match(text, pos)
        if not match:
            raise ArithmeticProblem(f"unexpected {text[pos:pos + 10]!r} in {expression!r}")
        tokens.append(match.group(1))
        pos = match.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tokens


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
            return self.group(self.expr)
        if tok[0].isdigit():
            return Fraction(tok)
        raise ArithmeticProblem(f"unexpected {tok!r} in {self.source!r}")

    def group(self, inner: Callable[[], T]) -> T:
        """What ``inner`` reads after an opening parenthesis, up to its closing one."""
        self.depth += 1
        if self.depth > 20:
            raise ArithmeticProblem(f"{self.source!r} nests too deeply")
        value = inner()
        if self._take() != ")":
            raise ArithmeticProblem(f"unbalanced parentheses in {self.source!r}")
        self.depth -= 1
        return value


def _number(value: Value, source: str) -> Fraction:
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    raise ArithmeticProblem(f"{value!r} is not a number in {source!r}")


class _ExtendedParser(_Parser):
    """``evaluate``'s parser with comparisons, booleans, conditionals and strings on top."""

    def condition(self) -> Value:
        value = self.either()
        if self._peek() == "if":
            self._take()
            test = self.either()
            if self._peek() != "else":
                raise ArithmeticProblem(f"'if' without 'else' in {self.source!r}")
            self._take()
            other = self.condition()
            return value if _truth(test) else other
        return value

    def either(self) -> Value:
        value = self.both()
        while self._peek() == "or":
            self._take()
            rhs = self.both()
            value = value if _truth(value) else rhs
        return value

    def both(self) -> Value:
        value = self.negation()
        while self._peek() == "and":
            self._take()
            rhs = self.negation()
            value = rhs if _truth(value) else value
        return value

    def negation(self) -> Value:
        if self._peek() == "not":
            self._take()
            return not _truth(self.negation())
        return self.comparison()

    def comparison(self) -> Value:
        left = self.expr_value()
        result: bool | None = None
        while self._peek() in _COMPARE:
            op = self._take()
            right = self.expr_value()
            ok = _compare(op, left, right, self.source)
            result = ok if result is None else result and ok
            left = right
        return left if result is None else result

    def expr_value(self) -> Value:
        value = self.term_value()
        while self._peek() in ("+", "-"):
            op = self._take()
            rhs = self.term_value()
            if op == "+" and isinstance(value, str) and isinstance(rhs, str):
                value = value + rhs
            elif op == "+":
                value = _number(value, self.source) + _number(rhs, self.source)
            else:
                value = _number(value, self.source) - _number(rhs, self.source)
        return value

    def term_value(self) -> Value:
        value = self.atom()
        while self._peek() in ("*", "/", "//", "%"):
            op = self._take()
            a, b = _number(value, self.source), _number(self.atom(), self.source)
            if op != "*" and b == 0:
                raise ZeroDivisionError(f"division by zero in {self.source!r}")
            value = {"*": a * b, "/": a / b, "//": Fraction(a // b), "%": a % b}[op]
        return value

    def atom(self) -> Value:
        tok = self._take()
        if tok == "-":
            return -_number(self.atom(), self.source)
        if tok == "(":
            return self.group(self.condition)
        if tok[0].isdigit():
            return Fraction(tok)
        if tok[0] in "'\"":
            return tok[1:-1]
        if tok in ("True", "False", "true", "false"):
            return tok in ("True", "true")
        raise ArithmeticProblem(f"unexpected {tok!r} in {self.source!r}")


def _truth(value: Value) -> bool:
    return bool(value)


def _compare(op: str, left: Value, right: Value, source: str) -> bool:
    if op in ("==", "!="):
        if isinstance(left, str) != isinstance(right, str):
            same = False
        elif isinstance(left, str):
            same = left == right
        else:
            same = _number(left, source) == _number(right, source)
        return same if op == "==" else not same
    if isinstance(left, str) and isinstance(right, str):
        a: Fraction | str = left
        b: Fraction | str = right
    else:
        a, b = _number(left, source), _number(right, source)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]  # type: ignore[operator]
