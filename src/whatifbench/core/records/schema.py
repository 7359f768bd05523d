"""Typed records read from JSON: one validator for every file we read, and the JSON Schema of
the same types.

A record type is a frozen dataclass (fields typed, a docstring under each) or, for data whose
keys a suite chooses (metrics), a ``TypedDict``. ``parse(tp, value)`` checks a JSON value
against ``tp`` and returns it built: dataclasses from objects, tuples from arrays; strings,
numbers and the objects of ``dict``/``TypedDict`` types are kept as read. Types understood:
``str``, ``int`` (never ``bool``), ``float`` (finite; an integer is a number), ``bool``,
``None``, unions, ``Literal``, ``list[T]``, ``tuple[T, ...]``, ``tuple[A, B]``,
``dict[str, T]``, ``Mapping[str, T]``, ``Any`` (any JSON value), dataclasses, ``TypedDict``s, and
``Annotated[T, Range(...)]``, ``Annotated[T, ORDERED]`` or ``Annotated[T, NON_EMPTY]`` for
bounds. A wrong value is a
``SchemaError`` naming its path (``runs[2].spec.protocol.max_new_tokens``), what was expected and
what was found; readers turn it into one ``WhatifError`` naming the file and line
(``core.records.read``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

Path = tuple[str | int, ...]
"""Where a value sits in a document: keys and indexes."""


@dataclass(frozen=True)
class Range:
    """Bounds of a number (``Annotated[float, Range(0, 100)]``), inclusive; ``None``: open."""

    low: float | None = None
    """The smallest value allowed."""
    high: float | None = None
    """The largest value allowed."""


ORDERED = "ordered"
"""``Annotated[tuple[float, float], ORDERED]``: an interval, its low end not above its high."""
NON_EMPTY = "non-empty"
"""``Annotated[list[T], NON_EMPTY]``: an array of at least one value."""


class SchemaError(ValueError):
    """A value that is not of its record type: where, what was expected, what was found."""

    def __init__(self, path: Path, expected: str, found: Any, missing: bool = False) -> None:
        self.path = path
        self.expected = expected
        self.found = found
        self.missing = missing
        super().__init__(self.sentence())

    def under(self, prefix: Path) -> SchemaError:
        """The same fault seen from ``prefix`` above."""
        return SchemaError((*prefix, *self.path), self.expected, self.found, self.missing)

    def field(self) -> str:
        """The path as ``runs[2].spec.protocol`` (``(top)`` for the document itself)."""
        return dotted(self.path)

    def sentence(self) -> str:
        """``field runs[2].n_items is "7", not a whole number ≥ 0``."""
        if self.missing:
            return f"field {self.field()} is missing ({self.expected})"
        return f"field {self.field()} is {shown(self.found)}, not {self.expected}"


def dotted(path: Path) -> str:
    """``("runs", 2, "spec")`` as ``runs[2].spec``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "(top)"


def shown(value: Any) -> str:
    """A found value in words, short."""
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    if isinstance(value, list):
        if value and len(value) <= 4 and all(isinstance(v, (int, float, str)) for v in value):
            return "[" + ", ".join(shown(v) for v in value) + "]"
        return "an array" if value else "an empty array"
    if value is None:
        return "null"
    text = repr(value) if not isinstance(value, str) else '"' + value.replace('"', '\\"') + '"'
    return text if len(text) <= 60 else text[:57] + "…"


MISSING: Any = dataclasses.MISSING


# -- compiling a type into a converter -------------------------------------------------------
# A converter takes a value and returns it built; a SchemaError it raises carries the path below
# that value, and each container adds its own key on the way out (no path is built on success).
def parse(tp: Any, value: Any, path: Path = ()) -> Any:
    """``value`` checked against ``tp`` and built (see the module docstring); ``path``: where
    ``value`` sits, for the error."""
    try:
        return converter(tp)(value)
    except SchemaError as exc:
        if not path:
            raise
        raise exc.under(path) from None


@functools.cache
def converter(tp: Any) -> Callable[[Any], Any]:
    """The function that checks and builds a value of ``tp`` (made once per type)."""
    return _compile(tp)


@functools.cache
def on_sight(tp: Any) -> frozenset[type]:
    """The Python types whose values pass as ``tp`` without a further look (``plain_types``,
    unbounded integers, and null for an optional type)."""
    found = plain_types(tp)
    if found:
        return found
    if tp is int:
        return frozenset({int})
    if typing.get_origin(tp) in (Union, types.UnionType):
        return frozenset().union(*(on_sight(a) for a in typing.get_args(tp)))
    return frozenset()


@functools.cache
def plain_types(tp: Any) -> frozenset[type] | None:
    """The Python types a value of ``tp`` may have when checking its type is all there is to
    check (strings, booleans, null, objects and arrays of anything), else ``None``."""
    simple: dict[Any, frozenset[type]] = {
        str: frozenset({str}), bool: frozenset({bool}), type(None): frozenset({type(None)}),
        None: frozenset({type(None)}), Any: frozenset(), dict: frozenset({dict}),
        list: frozenset({list})}
    if tp in simple:
        return simple[tp]
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (dict, Mapping) and (not args or args[1] is Any):
        return frozenset({dict})
    if origin is list and (not args or args[0] is Any):
        return frozenset({list})
    if origin in (Union, types.UnionType):
        parts = [plain_types(a) for a in args]
        if all(p for p in parts):
            return frozenset().union(*parts)  # type: ignore[arg-type]
    return None


def _compile(tp: Any) -> Callable[[Any], Any]:
    if tp is Any or tp is object:
        return _any
    allowed = plain_types(tp)
    if allowed:
        return _exact(allowed, _expected(tp))
    if tp is int:
        return _integer(None)
    if tp is float:
        return _number(None)
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extra = typing.get_args(tp)
        return _annotated(base, tuple(extra))
    if origin in (Union, types.UnionType):
        return _union(typing.get_args(tp))
    if origin is Literal:
        return _literal(typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp)
        return _list(converter(item), _expected(item, plural=True))
    if origin is tuple:
        return _tuple(typing.get_args(tp))
    if origin in (dict, Mapping):
        item = typing.get_args(tp)[1]
        return _dict(converter(item), plain_types(item))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass(tp)
    if typing.is_typeddict(tp):
        return _typeddict(tp)
    raise TypeError(f"core.records.schema cannot read the type {tp!r}")


def _any(value: Any) -> Any:
    return value


def _exact(kinds: frozenset[type], expected: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if type(value) not in kinds:
            raise SchemaError((), expected, value)
        return value
    return check


def _integer(bounds: Range | None) -> Callable[[Any], Any]:
    expected = "a whole number" + _bounds_words(bounds)

    def check(value: Any) -> Any:
        if type(value) is not int or not _within(value, bounds):
            raise SchemaError((), expected, value)
        return value
    return check


def _number(bounds: Range | None) -> Callable[[Any], Any]:
    expected = "a number" + _bounds_words(bounds)

    def check(value: Any) -> Any:
        kind = type(value)
        if (kind is not float and kind is not int) or not math.isfinite(value) \
                or not _within(value, bounds):
            raise SchemaError((), expected, value)
        return value
    return check


def _within(value: float, bounds: Range | None) -> bool:
    return bounds is None or ((bounds.low is None or value >= bounds.low)
                              and (bounds.high is None or value <= bounds.high))


def _bounds_words(bounds: Range | None) -> str:
    if bounds is None:
        return ""
    if bounds.low is not None and bounds.high is not None:
        return f" from {bounds.low:g} to {bounds.high:g}"
    if bounds.low is not None:
        return f" ≥ {bounds.low:g}"
    return f" ≤ {bounds.high:g}" if bounds.high is not None else ""


def _annotated(base: Any, extra: tuple[Any, ...]) -> Callable[[Any], Any]:
    bounds = next((e for e in extra if isinstance(e, Range)), None)
    if bounds is not None and base is int:
        return _integer(bounds)
    if bounds is not None and base is float:
        return _number(bounds)
    inner = converter(base)
    if NON_EMPTY in extra:
        def non_empty(value: Any) -> Any:
            built = inner(value)
            if not built:
                raise SchemaError((), "an array of at least one value", value)
            return built
        return non_empty
    if ORDERED in extra:
        def ordered(value: Any) -> Any:
            built = inner(value)
            if built[0] > built[1]:
                raise SchemaError((), "an interval [low, high] with low ≤ high", value)
            return built
        return ordered
    return inner


def _union(options: tuple[Any, ...]) -> Callable[[Any], Any]:
    nullable = type(None) in options
    rest = [o for o in options if o is not type(None)]
    if nullable and len(rest) == 1:
        inner = converter(rest[0])

        def optional(value: Any) -> Any:
            if value is None:
                return None
            try:
                return inner(value)
            except SchemaError as exc:
                if exc.path:  # deeper: the inner value's own fault
                    raise
                raise SchemaError((), f"{exc.expected} or null", value) from None
        return optional
    inners = [converter(o) for o in options]
    expected = " or ".join(_expected(o) for o in options)

    def either(value: Any) -> Any:
        deepest: SchemaError | None = None
        for inner in inners:
            try:
                return inner(value)
            except SchemaError as exc:
                if exc.path and (deepest is None or len(exc.path) > len(deepest.path)):
                    deepest = exc
        raise deepest or SchemaError((), expected, value)
    return either


def _literal(values: tuple[Any, ...]) -> Callable[[Any], Any]:
    expected = "one of " + ", ".join(shown(v) for v in values)
    kinds = {type(v) for v in values}

    def check(value: Any) -> Any:
        if type(value) not in kinds or value not in values:
            raise SchemaError((), expected, value)
        return value
    return check


def _list(item: Callable[[Any], Any], what: str) -> Callable[[Any], Any]:
    expected = f"an array of {what}"

    def check(value: Any) -> Any:
        if type(value) is not list:
            raise SchemaError((), expected, value)
        k = 0
        try:
            built = []
            for k, v in enumerate(value):  # noqa: B007 - k names the fault
                built.append(item(v))
        except SchemaError as exc:
            raise exc.under((k,)) from None
        return value if all(a is b for a, b in zip(built, value, strict=True)) else built
    return check


def _tuple(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        item = converter(args[0])
        expected = f"an array of {_expected(args[0], plural=True)}"

        def many(value: Any) -> Any:
            if type(value) is not list and type(value) is not tuple:
                raise SchemaError((), expected, value)
            return tuple(_at(item, v, k) for k, v in enumerate(value))
        return many
    parts = [converter(a) for a in args]
    expected = f"an array of {len(args)} values ({', '.join(_expected(a) for a in args)})"

    def fixed(value: Any) -> Any:
        if (type(value) is not list and type(value) is not tuple) or len(value) != len(parts):
            raise SchemaError((), expected, value)
        return tuple(_at(p, v, k) for k, (p, v) in enumerate(zip(parts, value, strict=True)))
    return fixed


def _at(convert: Callable[[Any], Any], value: Any, key: str | int) -> Any:
    try:
        return convert(value)
    except SchemaError as exc:
        raise exc.under((key,)) from None


def _dict(item: Callable[[Any], Any], kinds: frozenset[type] | None) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if type(value) is not dict:
            raise SchemaError((), "an object", value)
        if kinds is not None:
            for v in value.values():
                if type(v) not in kinds:
                    break
            else:
                return value
        built = {k: _at(item, v, k) for k, v in value.items()}
        return value if all(built[k] is v for k, v in value.items()) else built
    return check


def hints(tp: type) -> dict[str, Any]:
    """The field types of a dataclass or ``TypedDict`` (``Annotated`` kept)."""
    return typing.get_type_hints(tp, include_extras=True)


def _dataclass(cls: type) -> Callable[[Any], Any]:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    extra: str | None = getattr(cls, "EXTRA_FIELD", None)
    # plain records (no __post_init__, no problem()) are built without __init__: a frozen
    # dataclass's __init__ sets each field through object.__setattr__, several times slower
    plain = not hasattr(cls, "__post_init__") and not hasattr(cls, "problem") and extra is None
    made: list[Callable[[Any], Any]] = []

    def check(value: Any) -> Any:  # compiled on first use: the field types may refer ahead
        if not made:
            made.append(_record_reader(cls, [f for f in fields if f.name != extra], plain,
                                       extra))
        return made[0](value)
    return check


def _slow_field(tp: Any, name: str, default: Any, factory: Any) -> Callable[[Any], Any]:
    """A field's value that did not pass on sight: missing (its default), or converted."""
    convert = converter(tp)

    def slow(found: Any) -> Any:
        if found is MISSING:
            if default is not MISSING:
                return default
            if factory is not MISSING:
                return factory()
            raise SchemaError((name,), _expected(tp), None, missing=True)
        return _at(convert, found, name)
    return slow


def _record_reader(cls: type, fields: list[dataclasses.Field[Any]], plain: bool,
                   extra: str | None) -> Callable[[Any], Any]:
    """The reader of one record type, written out field by field (as ``dataclasses`` writes
    ``__init__``): a field whose value passes on sight costs one ``dict.get`` and one type
    test."""
    types_ = hints(cls)
    env: dict[str, Any] = {"MISSING": MISSING, "SchemaError": SchemaError, "cls": cls,
                           "new": object.__new__, "expected": f"an object ({_name(cls)})"}
    lines = ["def read(value):",
             "    if type(value) is not dict:",
             "        raise SchemaError((), expected, value)",
             "    get = value.get"]
    for k, f in enumerate(fields):
        tp = types_[f.name]
        env[f"slow{k}"] = _slow_field(tp, f.name, f.default, f.default_factory)
        kinds = on_sight(tp)
        lines.append(f"    v{k} = get({f.name!r}, MISSING)")
        if len(kinds) == 1:
            env[f"t{k}"] = next(iter(kinds))
            lines.append(f"    if type(v{k}) is not t{k}:")
        elif kinds:
            env[f"t{k}"] = kinds
            lines.append(f"    if type(v{k}) not in t{k}:")
        else:
            lines.append("    if True:")
        lines.append(f"        v{k} = slow{k}(v{k})")
    args = ", ".join(f"{f.name!r}: v{k}" for k, f in enumerate(fields))
    if plain:
        lines += ["    built = new(cls)", f"    built.__dict__.update({{{args}}})",
                  "    return built"]
    else:
        env["finish"] = _finisher(cls, {f.name for f in fields}, extra)
        lines.append(f"    return finish(value, {{{args}}})")
    scope: dict[str, Any] = {}
    exec("\n".join(lines), env, scope)  # the code written above from field names
    reader: Callable[[Any], Any] = scope["read"]
    return reader


def _finisher(cls: type, known: set[str], extra: str | None
              ) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    """Builds a record through its ``__init__`` (and ``problem()``), with its extra facts."""
    def finish(value: dict[str, Any], args: dict[str, Any]) -> Any:
        if extra is not None:
            args[extra] = {k: v for k, v in value.items() if k not in known}
        built = cls(**args)
        problem = getattr(built, "problem", None)
        said = problem() if problem is not None else None
        if said is not None:
            where, expected = said
            raise SchemaError((where,) if where else (), expected,
                              value.get(where) if where else value)
        return built
    return finish


def _typeddict(cls: type) -> Callable[[Any], Any]:
    types_ = hints(cls)
    required: frozenset[str] = cls.__required_keys__  # type: ignore[attr-defined]
    plan: list[tuple[str, Callable[[Any], Any]]] = []

    def check(value: Any) -> Any:
        if not plan:
            plan.extend((k, converter(t)) for k, t in types_.items())
        if type(value) is not dict:
            raise SchemaError((), f"an object ({_name(cls)})", value)
        for name, convert in plan:
            found = value.get(name, MISSING)
            if found is MISSING:
                if name in required:
                    raise SchemaError((name,), _expected(types_[name]), None, missing=True)
                continue
            _at(convert, found, name)
        return value
    return check


def _name(tp: Any) -> str:
    return str(getattr(tp, "__name__", tp))


def _expected(tp: Any, plural: bool = False) -> str:
    """A type in words (for messages)."""
    names = {str: ("a string", "strings"), int: ("a whole number", "whole numbers"),
             float: ("a number", "numbers"), bool: ("true or false", "true/false values"),
             type(None): ("null", "nulls")}
    if tp in names:
        return names[tp][plural]
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extra = typing.get_args(tp)
        bounds = next((e for e in extra if isinstance(e, Range)), None)
        return _expected(base, plural) + _bounds_words(bounds)
    if origin in (Union, types.UnionType):
        return " or ".join(_expected(a) for a in typing.get_args(tp))
    if origin in (list, tuple):
        return "arrays" if plural else "an array"
    if origin in (dict, Mapping) or dataclasses.is_dataclass(tp) or typing.is_typeddict(tp):
        return "objects" if plural else "an object"
    if origin is Literal:
        return "one of " + ", ".join(shown(v) for v in typing.get_args(tp))
    return "values" if plural else "a JSON value"


# -- records back to JSON --------------------------------------------------------------------
def to_json(value: Any) -> Any:
    """A record (or anything holding records) as JSON values: dataclasses as objects (a
    record's ``EXTRA_FIELD`` merged into it, fields whose value is their default and marked
    ``OMIT_DEFAULTS`` left out), tuples as arrays."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        extra = getattr(cls, "EXTRA_FIELD", None)
        omit: frozenset[str] = getattr(cls, "OMIT_DEFAULTS", frozenset())
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name == extra:
                out.update({k: to_json(x) for k, x in v.items()})
            elif f.name in omit and v == _default(f):
                continue
            else:
                out[f.name] = to_json(v)
        return out
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def _default(f: dataclasses.Field[Any]) -> Any:
    """A field's default value (``MISSING`` when it has none)."""
    if f.default is not MISSING:
        return f.default
    factory: Any = f.default_factory
    return factory() if factory is not MISSING else MISSING
