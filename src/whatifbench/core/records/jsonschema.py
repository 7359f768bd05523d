"""JSON Schema (2020-12) of the record types (``core.records.schema``'s types: dataclasses,
TypedDicts, ``Annotated`` bounds), for the published schemas (``core.records.publish``)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING
from typing import Annotated, Any, ClassVar, Literal, Union

from whatifbench.core.records.schema import NON_EMPTY, Range, hints


class SchemaWriter:
    """The JSON Schema (2020-12) of record types, named types under ``$defs``."""

    DIALECT: ClassVar[str] = "https://json-schema.org/draft/2020-12/schema"

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, tp: Any) -> dict[str, Any]:
        """The schema of ``tp`` (dataclasses and TypedDicts by reference)."""
        if tp is Any or tp is object:
            return {}
        if tp is None or tp is type(None):
            return {"type": "null"}
        simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
        if tp in simple:
            return {"type": simple[tp]}
        origin = typing.get_origin(tp)
        if origin is Annotated:
            base, *extra = typing.get_args(tp)
            out = dict(self.of(base))
            bounds = next((e for e in extra if isinstance(e, Range)), None)
            if bounds is not None and bounds.low is not None:
                out["minimum"] = bounds.low
            if bounds is not None and bounds.high is not None:
                out["maximum"] = bounds.high
            if NON_EMPTY in extra:
                out["minItems"] = 1
            return out
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.of(a) for a in typing.get_args(tp)]}
        if origin is Literal:
            return {"enum": list(typing.get_args(tp))}
        if origin is list or tp is list:
            args = typing.get_args(tp)
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin is tuple:
            args = typing.get_args(tp)
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0])}
            return {"type": "array", "prefixItems": [self.of(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        if origin in (dict, Mapping) or tp in (dict, Mapping):
            args = typing.get_args(tp)
            return {"type": "object", "additionalProperties": self.of(args[1]) if args else {}}
        if (dataclasses.is_dataclass(tp) and isinstance(tp, type)) or typing.is_typeddict(tp):
            return self._named(tp)
        raise TypeError(f"no JSON Schema for {tp!r}")

    def _named(self, tp: type) -> dict[str, Any]:
        name = tp.__name__
        ref = {"$ref": f"#/$defs/{name}"}
        if name in self.defs:
            return ref
        self.defs[name] = {}  # a placeholder first: types may refer to themselves
        types_ = hints(tp)
        if typing.is_typeddict(tp):
            required = sorted(tp.__required_keys__)  # type: ignore[attr-defined]
            props = {k: self.of(t) for k, t in types_.items()}
        else:
            extra = getattr(tp, "EXTRA_FIELD", None)
            fields = [f for f in dataclasses.fields(tp) if f.init and f.name != extra]
            props = {f.name: self.of(types_[f.name]) for f in fields}
            required = [f.name for f in fields
                        if f.default is MISSING and f.default_factory is MISSING]
        body: dict[str, Any] = {"type": "object", "properties": props}
        doc = (tp.__doc__ or "").strip().split("\n\n")[0]
        if doc:
            body = {"description": " ".join(doc.split()), **body}
        if required:
            body["required"] = required
        self.defs[name] = body
        return ref
