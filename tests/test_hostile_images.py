"""Issue 40, item 5: images that do not decode. Seeded mutations of small PNG, JPEG, GIF, BMP and
WebP files through the image check, the thumbnails and the models' reader never let PIL's own
exceptions escape (``SyntaxError: broken PNG file`` did); a report of a run whose image was
damaged afterwards is written; an image damaged while a run goes on is named in one sentence,
not called a bug."""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path

import pytest
from PIL import Image
from util import make_choice_dataset

from whatifbench import api
from whatifbench.cli.main import main
from whatifbench.core.dataset import Dataset, load_dataset
from whatifbench.core.images import inspect_image
from whatifbench.errors import WhatifError
from whatifbench.report.images import thumbnail_bytes

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(autouse=True)
def pil_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """PIL as it starts: a library imported by an earlier test in this process (lmms-eval) sets
    ``ImageFile.LOAD_TRUNCATED_IMAGES``, which changes what damaged files raise."""
    from PIL import ImageFile

    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", False)

FORMATS = ("PNG", "JPEG", "GIF", "BMP", "WEBP")


def _original(fmt: str) -> bytes:
    img = Image.new("RGB", (40, 30), (10, 200, 30))
    for x in range(40):
        img.putpixel((x, x % 30), (x * 5, 0, 255 - x * 5))
    buf = io.BytesIO()
    img.save(buf, format=fmt)
    return buf.getvalue()


def mutations(n: int, seed: int = 0) -> list[tuple[str, bytes]]:
    """``n`` seeded mutations (bytes changed, cut out or inserted) of small images."""
    originals = {fmt: _original(fmt) for fmt in FORMATS}
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        fmt = rng.choice(FORMATS)
        data = bytearray(originals[fmt])
        for _ in range(rng.randint(1, 6)):
            op, i = rng.random(), rng.randrange(len(data))
            if op < 0.5:
                data[i] = rng.randrange(256)
            elif op < 0.75:
                del data[i:i + rng.randint(1, 20)]
            else:
                data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 10)))
        out.append((fmt.lower(), bytes(data)))
    return out


def _pil_raises(data: bytes) -> type[BaseException] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as img:
                img.convert("RGB")
    except Exception as exc:  # noqa: BLE001
        return type(exc)
    return None


def broken_png() -> bytes:
    """The first mutation on which PIL itself raises ``SyntaxError`` ("broken PNG file")."""
    return next(data for _, data in mutations(3000) if _pil_raises(data) is SyntaxError)


def test_three_thousand_mutated_images_never_escape(tmp_path: Path) -> None:
    from whatifbench.core.images import UnreadableImage, open_image

    raised: set[type[BaseException]] = set()
    for k, (ext, data) in enumerate(mutations(3000)):
        path = tmp_path / f"m{k}.{ext}"
        path.write_bytes(data)
        kind = _pil_raises(data)
        if kind is not None:
            raised.add(kind)
        why, _ = inspect_image(path)  # never raises: a reason or None (header and verify)
        assert why is None or isinstance(why, str)
        thumb = thumbnail_bytes(path)  # never raises: JPEG bytes or None
        assert thumb is None or thumb.startswith(b"\xff\xd8")
        try:
            with open_image(path) as img:
                img.convert("RGB")
        except UnreadableImage as exc:
            assert f"The image {path} cannot be read ({kind.__name__ if kind else ''}" \
                in str(exc), (path, exc)
        else:
            assert kind is None, path
        path.unlink()
    assert SyntaxError in raised and len(raised) >= 3  # the mutations reach PIL's odd errors


def test_a_report_after_an_image_was_damaged(tmp_path: Path) -> None:
    ds = make_choice_dataset(tmp_path / "ds")
    assert main(["run", "--suite", str(ds), "--model", "builtin:random", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    (ds / "images" / "img_001.png").write_bytes(broken_png())
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "report.html").is_file()


def _damaged_during_a_run(tmp_path: Path) -> tuple[Dataset, Path]:
    """A generated dataset, loaded and checked, whose first image breaks afterwards (as in the
    middle of a long run)."""
    assert main(["generate", "cvqa-synthetic", "--per-template", "1", "--out",
                 str(tmp_path / "ds")]) == 0
    ds = load_dataset(tmp_path / "ds", verify=True)
    image = ds.root / ds.items[0].images[0]
    image.write_bytes(broken_png())
    return ds, image


def test_an_image_damaged_during_an_hf_run_is_named(tmp_path: Path, tiny_llava: Path) -> None:
    """One ``WhatifError`` naming the file, not an internal error."""
    ds, image = _damaged_during_a_run(tmp_path)
    with pytest.raises(WhatifError) as info:
        api.run_all([ds], [f"hf:{tiny_llava}"])
    message = str(info.value)
    assert f"The image {image} cannot be read (SyntaxError: broken PNG file" in message
    assert "Restore it" in message


def test_the_scene_reader_abstains_on_a_damaged_image(tmp_path: Path) -> None:
    """The reader abstains on a picture it cannot read (as on a missing one), also when PIL
    raises ``SyntaxError`` for it."""
    ds, _ = _damaged_during_a_run(tmp_path)
    (run,) = api.run_all([ds], ["builtin:scene-reader"])
    first = next(s for s in run.samples if s.item_id == ds.items[0].id)
    assert first.prediction is None and first.unparsed and not first.correct
