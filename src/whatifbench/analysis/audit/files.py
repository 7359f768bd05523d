"""The file structure probe: what an image file says besides its pixels.

A model is shown decoded pixels, but anyone holding the files (an agent with a shell, a
harness that passes paths) reads their structure: the order of a PNG's palette (a renderer that
fills it in drawing order puts the asked-about object's colour first), text chunks, the chunk
list, the file's size. Per item and option the features are

- for an option that names a colour: that colour's rank in the question image's palette among
  the colours the options name, where the palette is in an order of its own (a palette of the
  colours used in RGB order says which colours the pixels have, nothing more);
- for an option that is an image: whether its palette lists the colours it shares with the
  question image's in another order, and whether its chunk list differs (which colours two
  pictures share is a pixel similarity, not read here);
- the question image's chunk list, its size beyond its pixels (against the same pixels
  written the canonical way: a file's size itself follows its pixels) and every word of its
  text chunks, each crossed with the option's position and its text.

The guesser and its control (the files moved between items laid out alike) are those of the
file name probe. Only PNG files are parsed (the chunk list of other formats is their markers'
kinds); files that cannot be read are skipped.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from whatifbench.analysis.audit.baselines import SEED
from whatifbench.analysis.audit.metadata import MetaView, shuffled
from whatifbench.analysis.audit.probes import ProbeOutcome, image_layout, row_probe
from whatifbench.analysis.audit.text import normal, tokens
from whatifbench.scenes.palette import RGB

PNG = b"\x89PNG\r\n\x1a\n"
TEXT_CHUNKS = {b"tEXt", b"zTXt", b"iTXt", b"eXIf"}
MAX_TEXT = 2000
"""Characters of text chunks read per file."""
OPTION_CHARS = 32
"""Options this short are crossed with file features by their text too."""


@dataclass(frozen=True)
class FileFacts:
    """What one image file's structure says."""

    size: int
    """Bytes."""
    chunks: str
    """Chunk types in order (PNG), or the first bytes' kind (``jpeg``, ``other``)."""
    palette: tuple[RGB, ...]
    """PNG palette entries in file order (empty without one)."""
    words: tuple[str, ...]
    """Words of the text chunks."""
    drawn: bool = False
    """A palette in an order of its own (not the canonical one: each colour once, in RGB
    order). Only such a palette's order says anything beyond the pixels: which colours a file
    lists is which colours its pixels have."""
    excess: int | None = None
    """A palette PNG: its size against its pixels written the canonical way (the colours they
    use in RGB order, ``scenes.render.encode_png``): ``0`` when it is exactly that, else the
    sign and log2 bucket of the difference; ``None`` for other files. A file's size follows its
    pixels (more flowers, more bytes: a pixel reader may count them), its excess only what the
    file holds besides."""


def file_facts(path: Path) -> FileFacts | None:
    """The structure of the file at ``path`` (``None`` when it cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(PNG):
        kind = "jpeg" if data.startswith(b"\xff\xd8") else "other"
        return FileFacts(len(data), kind, (), ())
    chunks: list[str] = []
    palette: tuple[RGB, ...] = ()
    text: list[str] = []
    at = len(PNG)
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        chunks.append(kind.decode("latin-1"))
        if kind == b"PLTE":
            palette = tuple((body[k], body[k + 1], body[k + 2])
                            for k in range(0, len(body) - 2, 3))
        elif kind in TEXT_CHUNKS:
            if kind == b"zTXt":  # keyword, 0, method, compressed text (read up to MAX_TEXT)
                keyword, _, packed = body.partition(b"\0")
                try:
                    body = keyword + b" " + zlib.decompressobj().decompress(packed[1:],
                                                                            MAX_TEXT)
                except zlib.error:
                    body = keyword
            text.append(body[:MAX_TEXT].decode("latin-1").replace("\0", " "))
        at += 12 + length
        if kind == b"IEND":
            break
    return FileFacts(len(data), " ".join(chunks), palette,
                     tuple(sorted(set(tokens(" ".join(text))))),
                     bool(palette) and list(palette) != sorted(set(palette)),
                     _excess(data) if palette else None)


def _excess(data: bytes) -> int | None:
    """See ``FileFacts.excess``."""
    import io

    from PIL import Image

    from whatifbench.scenes.render import encode_png

    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.mode != "P" or img.info.get("transparency") is not None:
                return None
            img.load()
            canonical = len(encode_png(img))
    except Exception:  # noqa: BLE001  (a file PIL cannot read: no excess known)
        return None
    diff = len(data) - canonical
    return 0 if diff == 0 else (1 if diff > 0 else -1) * (1 + int(abs(diff)).bit_length())


def _disagree(one: tuple[RGB, ...], two: tuple[RGB, ...]) -> bool:
    """Two palettes list the colours they share in different orders."""
    shared = set(one) & set(two)
    return [c for c in one if c in shared] != [c for c in two if c in shared]


class Files:
    """The files of one dataset, each parsed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: dict[str, FileFacts | None] = {}

    def __call__(self, rel: str) -> FileFacts | None:
        """The structure of ``root/rel``."""
        if rel not in self._seen:
            self._seen[rel] = file_facts(self.root / rel)
        return self._seen[rel]


def file_features(view: MetaView, files: Files) -> list[list[list[str]]]:
    """Per item and option the file structure features (see the module docstring)."""
    from whatifbench.scenes.palette import COLORS as colors

    first = [files(q[0]) if q else None for q in view.question_images]
    out: list[list[list[str]]] = []
    for i in range(view.n):
        q = first[i]
        named = [[c for c in colors if c in set(tokens(choice))] for choice in view.choices[i]]
        said = [colors[n[0]] for n in named if len(n) == 1]
        order = [c for c in (q.palette if q is not None else ()) if c in said]
        rows: list[list[str]] = []
        for j, choice in enumerate(view.choices[i]):
            feats: list[str] = []
            related: list[str] = []
            if q is not None:
                shown = [f"chunks {q.chunks}", f"size beyond the pixels {q.excess}",
                         *(f"text word {w}" for w in q.words)]
                feats += [f"{s} | option {j}" for s in shown]
                option = normal(choice)
                if len(option) <= OPTION_CHARS:
                    feats += [f"{s} | text {option}" for s in shown]
                if len(named[j]) == 1 and colors[named[j][0]] in order and q.drawn:
                    related.append(f"option colour palette rank "
                                   f"{order.index(colors[named[j][0]])} of {len(order)}")
            image = view.option_images[i][j]
            other = files(image) if image is not None else None
            if other is not None and q is not None:
                if _disagree(q.palette, other.palette):
                    related.append("option image's palette orders shared colours otherwise")
                if other.chunks != q.chunks:
                    related.append("option image's chunks differ from the question image's")
            # a relation may hold for one kind of question only: also learnt per type
            rows.append([*feats, *related, *(f"{r} | {view.types[i]}" for r in related)])
        out.append(rows)
    return out


def file_probe(view: MetaView, root: Path, folds: np.ndarray) -> ProbeOutcome:
    """The file structure probe and its control (the files moved between items laid out
    alike)."""
    files = Files(root)
    control = shuffled(view, ("option_images", "question_images"), SEED + 20,
                       within=image_layout(view))
    return row_probe(view, "file structure",
                     "image files' palette order, chunks, text chunks and size",
                     file_features(view, files), file_features(control, files), folds)
