"""Shared fixtures: every test gets its own WHATIF_HOME and no hub access."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_util import browser, page  # noqa: F401  (fixtures: headless Chromium, one page)
from fake_openai_server import fake_openai  # noqa: F401  (fixture: a local OpenAI-style server)
from tiny_models import (  # noqa: F401  (session fixtures: tiny real-architecture models)
    tiny_idefics3,
    tiny_llava,
    tiny_models,
    tiny_paligemma,
    tiny_qwen2_vl,
)
from tiny_program_models import (  # noqa: F401  (session fixtures: detector, depth, code LLM)
    tiny_causal_lm,
    tiny_dpt,
    tiny_owlvit,
)

from whatifbench import secrets

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

TEST_SECRET = Path(tempfile.mkdtemp(prefix="whatif-test-secret-")) / "naming-secret"
"""One naming secret for the whole session (``$WHATIF_SECRET_FILE``), so that datasets made by
module fixtures and by single tests carry the same opaque names, and no test writes a secret
into the user's home; tests of the home secret unset the variable."""
TEST_SECRET.write_text("5e" * 32 + "\n", encoding="ascii")
os.environ["WHATIF_SECRET_FILE"] = str(TEST_SECRET)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""``../shared`` beside the project root (papers and released data samples)."""


@pytest.fixture(autouse=True)
def whatif_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private ``$WHATIF_HOME`` (run store, cached suites, composites) per test."""
    home = tmp_path_factory.mktemp("whatif_home")
    monkeypatch.setenv("WHATIF_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def forget_secrets() -> Iterator[None]:
    """Credentials remembered by one test's backends (``whatifbench.secrets``) are not
    redacted from the next test's outputs."""
    yield
    secrets.forget_all()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder (released data samples), which must sit beside the checkout."""
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: clone the project next to its 'shared' folder.")
    return SHARED
