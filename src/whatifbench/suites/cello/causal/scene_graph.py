"""Visual Genome input: ``scene_graphs.json`` records and image sizes, validated at the boundary.

``scene_graphs.json`` is a JSON list with one record per image: ``image_id``, ``objects`` (each
with ``object_id``, ``names`` (or a single ``name``), ``synsets``, ``x``, ``y``, ``w``, ``h``) and
``relationships`` (each with ``predicate``, ``subject_id``, ``object_id``). Image sizes come from
VG's ``image_data.json`` (``image_id`` or ``id``, ``width``, ``height``) or from the image files.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whatifbench.core.dataset import problems_message
from whatifbench.core.images import open_image
from whatifbench.core.jsonfile import loads
from whatifbench.core.readfile import read_text
from whatifbench.errors import WhatifError

Number = int | float


@dataclass(frozen=True)
class SceneObject:
    """One annotated object of an image."""

    object_id: int
    """VG object id (unique within the image)."""
    name: str
    """The object's first name, stripped (``obj_name`` in CELLO records)."""
    synsets: tuple[str, ...]
    """WordNet synsets such as ``horse.n.01`` (may be empty)."""
    box: tuple[Number, Number, Number, Number]
    """``(x, y, w, h)`` in pixels, top-left origin, as in VG."""


@dataclass(frozen=True)
class Relationship:
    """One ``subject predicate object`` triple."""

    predicate: str
    """The predicate verbatim (``ON``, ``riding`` ...)."""
    subject_id: int
    """Object id of the subject."""
    object_id: int
    """Object id of the object."""


@dataclass(frozen=True)
class SceneGraph:
    """The scene graph of one image."""

    image_id: int
    """VG image id (images are ``<image_id>.jpg``)."""
    objects: tuple[SceneObject, ...]
    """Objects in file order."""
    relationships: tuple[Relationship, ...]
    """Relationships in file order."""

    def by_id(self) -> dict[int, SceneObject]:
        """Objects keyed by id."""
        return {o.object_id: o for o in self.objects}


def _read_json(path: Path, what: str) -> Any:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise WhatifError(f"The {what} file {path} does not exist; check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WhatifError(f"Cannot read the {what} file {path} ({exc}).") from None
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise WhatifError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            f"pass the {what} file as released by Visual Genome."
        ) from None


def _int(value: Any) -> int | None:
    """``value`` when it is an integer (not a bool), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> Number | None:
    """``value`` as a finite number (integral floats become ints), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value.is_integer() else value
    return value


def _object(raw: Any, where: str, problems: list[str]) -> SceneObject | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: an object is not a JSON object ({raw!r:.60})")
        return None
    oid = _int(raw.get("object_id", raw.get("id")))
    if oid is None:
        problems.append(f"{where}: an object has no integer 'object_id' ({raw!r:.80})")
        return None
    names = raw.get("names", [raw["name"]] if isinstance(raw.get("name"), str) else None)
    if (not isinstance(names, list) or not names
            or not all(isinstance(n, str) for n in names) or not names[0].strip()):
        problems.append(f"{where}: object {oid} needs 'names', a non-empty list of strings")
        return None
    synsets = raw.get("synsets", [])
    if not isinstance(synsets, list) or not all(isinstance(s, str) for s in synsets):
        problems.append(f"{where}: object {oid} has 'synsets' that are not a list of strings")
        return None
    x, y, w, h = (_number(raw.get(k)) for k in ("x", "y", "w", "h"))
    if x is None or y is None or w is None or h is None or w < 0 or h < 0:
        box = [raw.get(k) for k in ("x", "y", "w", "h")]
        problems.append(f"{where}: object {oid} needs numeric 'x', 'y', 'w', 'h' (w, h >= 0), "
                        f"got {box}")
        return None
    return SceneObject(oid, " ".join(names[0].split()), tuple(synsets), (x, y, w, h))


def _relationship(raw: Any, where: str, problems: list[str]) -> Relationship | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: a relationship is not a JSON object ({raw!r:.60})")
        return None
    pred, sid, oid = raw.get("predicate"), _int(raw.get("subject_id")), _int(raw.get("object_id"))
    if not isinstance(pred, str) or sid is None or oid is None:
        problems.append(f"{where}: a relationship needs a string 'predicate' and integer "
                        f"'subject_id' and 'object_id' ({raw!r:.100})")
        return None
    return Relationship(pred, sid, oid)


def _record(raw: Any, index: int, path: Path, problems: list[str]) -> SceneGraph | None:
    where = f"{path}: record {index}"
    if not isinstance(raw, dict):
        problems.append(f"{where} is not a JSON object")
        return None
    image_id = _int(raw.get("image_id"))
    if image_id is None:
        problems.append(f"{where} has no integer 'image_id' (got {image_id!r})")
        return None
    where = f"{where} (image_id {image_id})"
    objects_raw, rels_raw = raw.get("objects"), raw.get("relationships", [])
    if not isinstance(objects_raw, list) or not isinstance(rels_raw, list):
        problems.append(f"{where}: 'objects' and 'relationships' must be lists")
        return None
    before = len(problems)
    objects = [o for o in (_object(r, where, problems) for r in objects_raw) if o is not None]
    ids = [o.object_id for o in objects]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        problems.append(f"{where}: duplicate object_id(s) {dupes[:5]}")
    rels = [r for r in (_relationship(r, where, problems) for r in rels_raw) if r is not None]
    if len(problems) > before:
        return None
    return SceneGraph(image_id, tuple(objects), tuple(rels))


def load_scene_graphs(path: str | Path) -> list[SceneGraph]:
    """Read and validate ``scene_graphs.json``; one ``WhatifError`` lists every problem."""
    path = Path(path)
    data = _read_json(path, "scene graphs")
    if isinstance(data, dict):  # a single record is accepted for convenience
        data = [data]
    if not isinstance(data, list):
        raise WhatifError(f"{path} must hold a JSON list of scene-graph records (one per image).")
    problems: list[str] = []
    graphs: list[SceneGraph] = []
    seen: dict[int, int] = {}
    for index, raw in enumerate(data):
        graph = _record(raw, index, path, problems)
        if graph is None:
            continue
        if graph.image_id in seen:
            problems.append(f"{path}: record {index} repeats image_id {graph.image_id} "
                            f"(first in record {seen[graph.image_id]})")
            continue
        seen[graph.image_id] = index
        graphs.append(graph)
    if not graphs and not problems:
        problems.append(f"{path} holds no scene-graph records")
    if problems:
        raise WhatifError(problems_message(
            f"The scene graphs {path}", problems,
            "Fix these records (Visual Genome scene_graphs.json format) and run again."))
    return graphs


def load_image_sizes(path: str | Path) -> dict[int, tuple[int, int]]:
    """``image_id → (width, height)`` from VG's ``image_data.json``."""
    path = Path(path)
    data = _read_json(path, "image data")
    if not isinstance(data, list):
        raise WhatifError(f"{path} must hold a JSON list of image records "
                          "(Visual Genome image_data.json).")
    problems: list[str] = []
    sizes: dict[int, tuple[int, int]] = {}
    for index, raw in enumerate(data):
        rec = raw if isinstance(raw, dict) else {}
        image_id = _int(rec.get("image_id", rec.get("id")))
        width, height = _int(rec.get("width")), _int(rec.get("height"))
        if image_id is None or width is None or height is None or width <= 0 or height <= 0:
            problems.append(f"{path}: record {index} needs integer 'image_id' (or 'id'), "
                            f"'width' > 0 and 'height' > 0 ({raw!r:.100})")
            continue
        sizes[image_id] = (width, height)
    if problems:
        raise WhatifError(problems_message(f"The image data {path}", problems,
                                           "Fix these records and run again."))
    return sizes


def image_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` read from an image file's header, or ``None`` if unreadable."""
    try:
        with open_image(path) as img:
            return img.size
    except (OSError, ValueError):
        return None
