"""Names that carry nothing (issue 41, item 4): opaque names are keyed by the naming secret
(``core.namekey``), which no released file holds; hashing every public fact of a dataset (its
card, the Hugging Face card and columns, the VLMEvalKit TSV, record numbers 0-10,000 with the
generator's name and seed, as the issue inverted the earlier names) decodes none of them, while
the same attack decodes every name of the earlier, unkeyed scheme. The same seed, arguments and
secret give the same bytes; another secret other names and the same content."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import stat
from pathlib import Path

import pytest

from whatifbench.analysis.audit.decode import decode, facts_of
from whatifbench.cli.main import main
from whatifbench.core.dataset import load_dataset
from whatifbench.core.namekey import ENV, HOME_FILE, name_key
from whatifbench.core.private import read_private
from whatifbench.core.public import public_item
from whatifbench.suites.cfmm.generate import CfmmSyntheticGenerator
from whatifbench.suites.cvqa.synthetic.generate import CvqaSyntheticGenerator
from whatifbench.suites.mucr.synthetic.generate import MucrSyntheticGenerator

WORD = re.compile(r"[A-Za-z0-9_.-]+")
GENERATORS = {
    "cvqa-synthetic": lambda out, **kw: CvqaSyntheticGenerator.generate(
        out, per_template=4, seed=21, workers=1, design="shortcut-free", intervened=True, **kw),
    "cfmm-synthetic": lambda out, **kw: CfmmSyntheticGenerator.generate(
        out, per_category=6, seed=21, workers=1, **kw),
    "mucr-synthetic": lambda out, **kw: MucrSyntheticGenerator.generate(
        out, groups=5, seed=21, **kw),
}


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def public_words(folder: Path, exports: Path) -> set[str]:
    """Every word of every public file: card.json, the items' public view, the exports."""
    data = load_dataset(folder)
    from whatifbench.core.suite import suite_for

    private = suite_for(data.suite).private_meta
    texts = [(folder / "card.json").read_text(encoding="utf-8")]
    texts += [json.dumps(public_item(i, private).to_json()) for i in data.items]
    for path in exports.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".tsv", ".json", ".yaml"):
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".tsv":  # leave the base64 images out
                csv.field_size_limit(1 << 30)
                rows = list(csv.reader(text.splitlines(), delimiter="\t"))
                text = " ".join(c for row in rows for c in row if len(c) < 200)
            texts.append(text)
    return {w for t in texts for w in WORD.findall(t) if len(w) <= 40}


def attack(folder: Path, words: set[str], hmac_keys: bool) -> dict[str, str]:
    """Decode the dataset's image names, item ids and pair ids with every public fact."""
    data = load_dataset(folder)
    names = {Path(p).stem for i in data.items for p in i.images}
    names |= {p.stem for p in (folder / "images").rglob("*.png")}
    names |= {i.id for i in data.items} | {i.pair_id for i in data.items if i.pair_id}
    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    facts = facts_of(card, words, 10_000, tokens=names, hmac_keys=hmac_keys, small=200)
    return decode(names, facts, budget=4_000_000 if not hmac_keys else 300_000)


@pytest.mark.parametrize("generator", sorted(GENERATORS))
def test_no_public_fact_decodes_a_name(generator: str, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    GENERATORS[generator](out)
    exports = tmp_path / "exports"
    assert main(["export", str(out), "--format", "hf", "--out", str(exports / "hf")]) == 0
    assert main(["export", str(out), "--format", "vlmevalkit", "--choice-only", "--out",
                 str(exports / "data.tsv")]) == 0
    words = public_words(out, exports)
    assert "21" in words and generator in words  # the seed and the generator are public
    assert attack(out, words, hmac_keys=False) == {}
    assert attack(out, words, hmac_keys=True) == {}
    # The same attack decodes the earlier names: sha256 of generator, seed and what it is.
    old = {hashlib.sha256(f"{generator}:21:{what}".encode()).hexdigest()[:16]: what
           for what in _earlier_keys(out, generator)}
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    found = decode(old, facts_of(card, words, 10_000, tokens=[], small=200))
    assert len(found) == len(old) > 10
    # Nothing secret in any public file: not the secret, not the telling names.
    secret = Path(os.environ[ENV]).read_text().strip()
    telling = {str(v) for section in ("images", "items") for v in
               read_private(out).get(section, {}).values()}
    for path in [*(out / "images").rglob("*"), out / "card.json", out / "items.jsonl",
                 *exports.rglob("*")]:
        if path.is_file():
            body = path.read_bytes()
            assert secret.encode() not in body, path
            if path.suffix in (".jsonl", ".json", ".md", ".tsv", ".parquet"):
                assert not any(t.encode() in body for t in telling if len(t) > 8), path


def _earlier_keys(out: Path, generator: str) -> list[str]:
    """What the earlier scheme hashed (after generator and seed) for each image, from the
    private file's telling names."""
    private = read_private(out)
    keys = []
    for telling in private["images"].values():
        if generator == "mucr-synthetic":  # 12-cause.png (12-c2e-q-cause.png ...: new since
            number, *key = str(telling).removesuffix(".png").split("-")  # the scheme was keyed)
            if len(key) == 1:
                keys.append(f"image:{number}:{key[0]}")
        elif generator == "cfmm-synthetic":  # count_000003.png
            category, index = str(telling).split("/")[-1].removesuffix(".png").split("_")
            keys.append(f"image:{category}:{int(index) - 1}")
        elif "/" not in str(telling):  # abs_counting_000003.png
            keys.append(f"image:{int(str(telling)[-10:-4])}")
    return keys


def test_the_same_secret_gives_the_same_bytes_and_another_other_names(tmp_path: Path) -> None:
    run = GENERATORS["mucr-synthetic"]
    run(tmp_path / "one")
    run(tmp_path / "two")
    assert files(tmp_path / "one") == files(tmp_path / "two")
    other = tmp_path / "other.key"
    other.write_text("ab" * 32 + "\n")
    run(tmp_path / "three", secret_file=other)
    one, three = load_dataset(tmp_path / "one"), load_dataset(tmp_path / "three")
    assert not {i.id for i in one.items} & {i.id for i in three.items}
    # the content does not depend on the secret: the same questions, options and answers,
    # and the same pictures (by bytes)
    def content(data: object, root: Path) -> list[tuple[object, ...]]:
        return sorted((i.question, i.choices, i.target, i.role,
                       tuple(hashlib.sha256((root / p).read_bytes()).hexdigest()
                             for p in i.images)) for i in data.items)  # type: ignore[attr-defined]
    assert content(one, tmp_path / "one") == content(three, tmp_path / "three")
    assert read_private(tmp_path / "one")["secret"] != read_private(tmp_path / "three")["secret"]
    # the CLI's --secret-file reproduces a dataset byte for byte
    assert main(["generate", "mucr-synthetic", "--groups", "5", "--seed", "21", "--secret-file",
                 str(other), "--out", str(tmp_path / "four")]) == 0
    assert files(tmp_path / "four") == files(tmp_path / "three")


def test_the_home_secret_is_drawn_once_and_kept_private(
        tmp_path: Path, whatif_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV)
    first = name_key()
    path = whatif_home / HOME_FILE
    assert path.is_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert name_key() == first and first.origin == "home"
    assert len(bytes.fromhex(path.read_text().strip())) == 32
    assert path.read_text().strip() not in repr(first)
    GENERATORS["cfmm-synthetic"](tmp_path / "ds")
    assert read_private(tmp_path / "ds")["secret"] == {"fingerprint": first.fingerprint(),
                                                       "origin": "home"}


@pytest.mark.parametrize("text", ["", "not hex at all", "ab" * 8, "abc" * 11])
def test_a_bad_secret_file_is_one_sentence_and_nothing_is_written(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key"
    key.write_text(text)
    assert main(["generate", "cfmm-synthetic", "--per-category", "2", "--secret-file", str(key),
                 "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err
    assert str(key) in err and "hex digits" in err and "Traceback" not in err
    assert not (tmp_path / "ds").exists()
    assert main(["generate", "cfmm-synthetic", "--per-category", "2", "--secret-file",
                 str(tmp_path / "missing"), "--out", str(tmp_path / "ds")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_paper_design_needs_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          whatif_home: Path) -> None:
    monkeypatch.delenv(ENV)
    CfmmSyntheticGenerator.generate(tmp_path / "ds", per_category=2, seed=1, workers=1,
                                    design="paper")
    assert not (whatif_home / HOME_FILE).exists() and not (tmp_path / "ds" / "private").exists()
