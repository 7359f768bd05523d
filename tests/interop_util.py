"""Small datasets of every suite kind for the integration tests (choice, number + yes/no,
multi-image MuCR, CELLO, CFMM), built once per session with the real generators/importers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cello_fixtures import write_input
from cvqa_real_helpers import sample_csv, sample_images

from whatifbench.core.registry import lookup


def _generated(name: str, **params: object) -> Callable[[Path, Path], Path]:
    def build(out: Path, shared: Path) -> Path:
        lookup("generator", name).obj.generate(out, seed=0, **params)
        return out
    return build


def _cvqa_real(out: Path, shared: Path) -> Path:
    from whatifbench.suites.cvqa.real.importer import import_release

    sample_images(shared, out.parent / "coco")
    import_release(sample_csv(shared), out.parent / "coco", out)
    return out


def _cello(out: Path, shared: Path) -> Path:
    from whatifbench.suites.cello.build import build_cello

    sg, data, images = write_input(out.parent / "cello-in")
    build_cello(sg, images, out, image_data=data, per_task=1, seed=0,
                design="paper")
    return out


BUILDERS: dict[str, Callable[[Path, Path], Path]] = {
    "choice": _generated("cvqa-synthetic", per_template=1),
    "number-yes-no": _cvqa_real,
    "multi-image": _generated("mucr-synthetic", groups=1),
    "cello": _cello,
    "cfmm": _generated("cfmm-synthetic", per_category=1),
}
"""Suite kind → builder of a small dataset of that kind."""


class Datasets:
    """Builds each kind once per session."""

    def __init__(self, root: Path, shared: Path) -> None:
        self.root = root
        self.shared = shared
        self._built: dict[str, Path] = {}

    def __call__(self, kind: str) -> Path:
        if kind not in self._built:
            folder = self.root / kind
            folder.mkdir()
            self._built[kind] = BUILDERS[kind](folder / "ds", self.shared)
        return self._built[kind]


@pytest.fixture(scope="session")
def kind_datasets(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Datasets:
    """``kind_datasets("choice")`` → the folder of a small dataset of that kind."""
    return Datasets(tmp_path_factory.mktemp("kinds"), shared_dir)
