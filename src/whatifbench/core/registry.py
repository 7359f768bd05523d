"""The one registry: suites, backends, generators, importers, exporters, builders, commands,
reviewers, image backends.

Generators, importers, exporters, builders and commands are classes with two static methods:
``add_arguments(parser)`` declares their command-line options and ``run(args)`` calls the public
Python API with them; the CLI builds its sub-commands from these entries.

A reviewer (``whatif review``) is the review-sheet hook of a kind of dataset: a class with
``columns``, ``rows(dataset)`` and ``apply(...)`` (see ``whatifbench.review.base``). An
image backend renders pictures from text for construction pipelines (MuCR's; see
``whatifbench.models.imagegen``).

Every plugin is named in ``MANIFEST`` (kind, name, module, summary) and registers itself with
the ``register`` decorator when its module is imported. Listings (``whatif suites``, ``whatif
models``, the CLI's help) read the manifest and import nothing; ``lookup`` imports the one
module that holds the named plugin, on first use. A test imports every module of the plugin
packages and checks that the decorators and the manifest agree, so a plugin cannot be left out.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from whatifbench.errors import WhatifError

KINDS = ("suite", "backend", "generator", "importer", "exporter", "builder", "command",
         "reviewer", "image-backend")
PLUGIN_PACKAGES = ("whatifbench.suites", "whatifbench.models", "whatifbench.review",
                   "whatifbench.analysis", "whatifbench.human")
"""Packages whose modules may register plugins (the manifest test imports all of them)."""

T = TypeVar("T")

MANIFEST: tuple[tuple[str, str, str, str], ...] = (
    # (kind, name, module that registers it with @register, summary: the one-line description
    # the decorator gives, i.e. its ``summary`` argument or the first line of the docstring).
    ("suite", "cello", "whatifbench.suites.cello.suite",
     "CELLO: causal questions over the four rungs of the ladder, grounded in scene graphs."),
    ("suite", "cfmm", "whatifbench.suites.cfmm.suite",
     "CFMM: basic/counterfactual two-option pairs in six categories, ranked by likelihood."),
    ("suite", "cvqa-real", "whatifbench.suites.cvqa_real.suite",
     "C-VQA-Real (C-VQA §3.1–3.2): VQAv2 questions with counterfactual presuppositions."),
    ("suite", "cvqa-synthetic", "whatifbench.suites.cvqa_synthetic.suite",
     "C-VQA-Synthetic (C-VQA §3.3): flower and dot counting with counterfactual premises."),
    ("suite", "mucr", "whatifbench.suites.mucr.suite",
     "MuCR: choose the effect (C2E), the cause (E2C), the cue phrase (Cue); explain (Exp)."),
    ("backend", "builtin:constant", "whatifbench.models.builtin.reference",
     "Always the first option (``yes`` for yes/no, ``1`` for counts)."),
    ("backend", "builtin:ignore-premise", "whatifbench.models.builtin.reference",
     "Answers originals correctly and each counterfactual with its original's answer."),
    ("backend", "builtin:random", "whatifbench.models.builtin.reference",
     "Uniformly random answers, seeded per item (-M seed=N, default 0)."),
    ("backend", "builtin:scene-reader", "whatifbench.models.builtin.scene_reader",
     "Reads the image and the question, executes the question as a program (no metadata)."),
    ("backend", "builtin:text-prior", "whatifbench.models.builtin.text_prior",
     "Answers from the question text alone: leaked option, else the most frequent option."),
    ("backend", "embedding", "whatifbench.models.embedding",
     "Sentence embeddings: cosine similarity of texts (an offline judge; -M device=cpu)."),
    ("backend", "hf", "whatifbench.models.hf.backend",
     ("a local transformers vision-language checkpoint (or a text-only causal LM, e.g. a code "
     "LLM): hf:PATH")),
    ("backend", "openai", "whatifbench.models.openai_compat.backend",
     "an OpenAI-compatible server (vLLM, SGLang, OpenAI ...): openai:MODEL --base-url URL"),
    ("backend", "viper", "whatifbench.models.program.viper",
     ("ViperGPT-style: a code LLM writes Python over an image API, run sandboxed: "
     "viper:CODE_LLM_SPEC -M detector=oracle|PATH")),
    ("backend", "visprog", "whatifbench.models.program.visprog",
     ("VisProg-style: a code LLM writes a step program, interpreted over vision tools: "
     "visprog:CODE_LLM_SPEC -M detector=oracle|PATH")),
    ("generator", "cfmm-synthetic", "whatifbench.suites.cfmm.generate",
     "CFMM-Synthetic: basic/counterfactual two-option pairs on procedural scenes."),
    ("generator", "cvqa-synthetic", "whatifbench.suites.cvqa_synthetic.generate",
     "C-VQA-Synthetic (C-VQA §3.3): flower and dot counting with counterfactual premises."),
    ("generator", "mucr-synthetic", "whatifbench.suites.mucr_synthetic.generate",
     "MuCR-style cause → effect pairs drawn by the scene engine, consequences computed."),
    ("importer", "cello", "whatifbench.suites.cello.importer",
     "CELLO release: cello_data.jsonl + Visual Genome images."),
    ("importer", "cfmm", "whatifbench.suites.cfmm.importer",
     "CFMM pairs from your JSONL or CSV file (one basic/counterfactual pair per line)."),
    ("importer", "cvqa-real", "whatifbench.suites.cvqa_real.importer",
     "Import the C-VQA-Real release table (img_path,query,…,type) with its COCO images."),
    ("importer", "cvqa-synthetic", "whatifbench.suites.cvqa_synthetic.io_import",
     "C-VQA-Synthetic release (questions CSV + images folder) → dataset."),
    ("importer", "hf", "whatifbench.suites.interop",
     "A Hugging Face datasets folder (or Parquet file) written by 'whatif export --format hf'."),
    ("importer", "mucr", "whatifbench.suites.mucr.importer",
     "MuCR release records (JSONL) + images → four items per pair (C2E, E2C, Cue, Exp)."),
    ("exporter", "cello-jsonl", "whatifbench.suites.cello.exporter",
     "CELLO release JSONL (cello_data.jsonl records)."),
    ("exporter", "cfmm-csv", "whatifbench.suites.cfmm.exporter",
     "CFMM pairs as CSV in the import schema (one pair per row)."),
    ("exporter", "cfmm-jsonl", "whatifbench.suites.cfmm.exporter",
     "CFMM pairs as JSONL in the import schema (one pair per line)."),
    ("exporter", "cvqa-csv", "whatifbench.suites.cvqa_csv",
     "C-VQA release format: questions.csv (one row per pair) + images/ (Real or Synthetic)."),
    ("exporter", "hf", "whatifbench.suites.interop",
     "Hugging Face datasets folder: Parquet shards with Image features + dataset card."),
    ("exporter", "lmms-eval", "whatifbench.suites.interop",
     "lmms-eval task folder: task YAML, plain utils.py, the data as a Hugging Face folder."),
    ("exporter", "vlmevalkit", "whatifbench.suites.interop",
     "VLMEvalKit custom multiple-choice TSV (base64 images, options A-D, pair columns)."),
    ("builder", "cello", "whatifbench.suites.cello.build",
     "CELLO: twelve causal tasks over four rungs from Visual Genome scene graphs."),
    ("builder", "cvqa-real", "whatifbench.suites.cvqa_real.build",
     "Rewrite VQAv2 questions with counterfactual premises by LLM (C-VQA Appendix B)."),
    ("builder", "mucr", "whatifbench.suites.mucr_build.build",
     "MuCR construction: caption pairs → LLM descriptions → candidate pictures → sheet."),
    ("command", "analyze", "whatifbench.analysis.command",
     "Analyses of run results: 'bias' (accuracy drop by image subgroup, C-VQA §4.3)."),
    ("command", "audit", "whatifbench.analysis.audit.command",
     "Validity audit: blind baselines per slice and pair rules (can it be passed blind?)."),
    ("command", "export-replies", "whatifbench.suites.cvqa_real.replies",
     "Write a C-VQA-Real run's replies as the release's response CSV (and our paper parse)."),
    ("command", "human", "whatifbench.human.command",
     "Human baselines: annotate in a local web app, import a crowd sheet, export the answers."),
    ("command", "import-results", "whatifbench.suites.interop",
     "Turn another tool's logged replies into a whatifbench run folder (results, report)."),
    ("command", "review", "whatifbench.review.command",
     "Human review: export a sheet (CSV/HTML) of a dataset, import the decisions."),
    ("reviewer", "cvqa-real", "whatifbench.suites.cvqa_real.review",
     "Review C-VQA-Real pairs (built by the pipeline or imported)."),
    ("reviewer", "mucr-build", "whatifbench.suites.mucr_build.review",
     "Selection sheet of a ``whatif build mucr`` draft."),
    ("image-backend", "diffusers", "whatifbench.models.imagegen.diffusers_local",
     "a local diffusers pipeline folder: diffusers:PATH"),
    ("image-backend", "openai", "whatifbench.models.imagegen.openai_images",
     "an OpenAI-compatible images endpoint: openai:MODEL"),
)
"""Every plugin, importable by name without importing the others. To add a plugin: register
it with ``@register(kind, name)`` in a light module (heavy imports inside functions) and add
its row here, keeping the rows sorted by kind (in ``KINDS`` order) and name."""


@dataclass(frozen=True)
class Listed:
    """A plugin as the manifest names it (nothing imported)."""

    kind: str
    """One of ``KINDS``."""
    name: str
    """Its public name."""
    module: str
    """The module whose import registers it."""
    summary: str
    """One line for listings and help."""


@dataclass(frozen=True)
class Entry:
    """One registered thing."""

    kind: str
    """One of ``KINDS``."""
    name: str
    """Its public name (``cvqa-synthetic``, ``builtin:random``, ``hf`` ...)."""
    obj: Any
    """The class or function."""
    summary: str
    """One line for ``whatif suites`` / ``whatif models``."""


_ENTRIES: dict[str, dict[str, Entry]] = {kind: {} for kind in KINDS}
_LISTED: dict[str, dict[str, Listed]] = {kind: {} for kind in KINDS}
for _row in MANIFEST:
    _LISTED[_row[0]][_row[1]] = Listed(*_row)


def register(kind: str, name: str, summary: str | None = None) -> Callable[[T], T]:
    """Decorator: register ``obj`` under ``kind``/``name`` (each name once)."""
    if kind not in KINDS:
        raise ValueError(f"unknown registry kind {kind!r}")

    def deco(obj: T) -> T:
        doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
        text = summary or (doc[0] if doc else "")
        old = _ENTRIES[kind].get(name)
        if old is not None and old.obj is not obj:
            raise ValueError(f"{kind} {name!r} is registered twice")
        _ENTRIES[kind][name] = Entry(kind, name, obj, text)
        return obj

    return deco


def listing(kind: str) -> list[Listed]:
    """The manifest's plugins of a kind, sorted by name (nothing is imported)."""
    return sorted(_LISTED[kind].values(), key=lambda e: e.name)


def load_plugins(kind: str | None = None) -> None:
    """Import the modules of every plugin in the manifest (of one kind, if given)."""
    for listed in MANIFEST:
        if kind is None or listed[0] == kind:
            importlib.import_module(listed[2])


def entries(kind: str) -> list[Entry]:
    """All entries of a kind, sorted by name (imports their modules)."""
    load_plugins(kind)
    return sorted(_ENTRIES[kind].values(), key=lambda e: e.name)


def lookup(kind: str, name: str) -> Entry:
    """The entry registered under ``name`` (importing its module on first use); a
    ``WhatifError`` listing the choices otherwise. Backend specs match their family
    (``hf:PATH`` → ``hf``)."""
    for key in (name, name.split(":", 1)[0] if kind in ("backend", "image-backend") else None):
        if key is None:
            continue
        if key not in _ENTRIES[kind] and key in _LISTED[kind]:
            importlib.import_module(_LISTED[kind][key].module)
            if key not in _ENTRIES[kind]:
                raise RuntimeError(f"{_LISTED[kind][key].module} does not register {kind} "
                                   f"{key!r} as the manifest says")
        if key in _ENTRIES[kind]:
            return _ENTRIES[kind][key]
    names = sorted({*_LISTED[kind], *_ENTRIES[kind]})
    available = ", ".join(n + ":..." if kind == "backend" and ":" not in n else n
                          for n in names) or "none"
    hint = {"backend": " (see 'whatif models')", "suite": " (see 'whatif suites')"}.get(kind, "")
    raise WhatifError(f"Unknown {kind} {name!r}.{_suggestion(kind, name, names)} "
                      f"Available: {available}{hint}.")


def _suggestion(kind: str, name: str, names: list[str]) -> str:
    """`` Did you mean builtin:random?`` for a mistyped name; a backend family is matched on
    its own (``opnai:gpt-4o`` → ``openai:gpt-4o``)."""
    from whatifbench.core.suggest import closest

    found = closest(name, names)
    family, colon, rest = name.partition(":")
    if found is None and colon and kind in ("backend", "image-backend"):
        near = closest(family, [n for n in names if ":" not in n])
        found = f"{near}:{rest}" if near else None
    return f" Did you mean {found}?" if found else ""
