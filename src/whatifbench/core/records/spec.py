"""The run spec: everything needed to reproduce a run, as typed records (``results.json`` →
``runs[i].spec``). Every field whatifbench has written since run folders existed is here and
typed; fields of a spec that no version wrote (another tool's, a hand edit's) are not read.

Records that describe something whose facts are open (a backend's own description, a judge's
grading facts, the people of a human run) keep the facts beyond their typed fields in
``details``, written back at the same level (``EXTRA_FIELD``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Annotated, Any, ClassVar

from whatifbench.core.protocol import Protocol
from whatifbench.core.records.schema import ORDERED, Range, parse, to_json

Count = Annotated[int, Range(0, None)]
"""A count (≥ 0)."""
Percent = Annotated[float, Range(0, 100)]
"""A percentage."""
PercentInterval = Annotated[tuple[Percent, Percent], ORDERED]
"""A 95 % interval of a percentage."""


@dataclass(frozen=True)
class DatasetRef:
    """The dataset a run evaluated, as its card and files were when it ran."""

    name: str | None = None
    """The card's name."""
    path: str | None = None
    """The dataset folder (absolute, on the machine that ran it)."""
    version: str | None = None
    """The card's version (of the generator or importer that wrote it)."""
    items_sha256: str | None = None
    """sha256 of its ``items.jsonl``: reports find and check the dataset by it."""
    images_sha256: str | None = None
    """The card's hash of its images."""
    hashes_verified: bool | None = None
    """The files were checked against the card's hashes before the run."""
    generator: dict[str, Any] | None = None
    """The card's generator record (``{"name", "params"}``)."""
    seed: int | None = None
    """The card's seed (``None`` for imports)."""


@dataclass(frozen=True)
class BackendRef:
    """A backend as it describes itself (``Backend.describe``; no credentials)."""

    EXTRA_FIELD: ClassVar[str] = "details"

    spec: str
    """The backend spec (``hf:PATH``, ``openai:MODEL``, ``builtin:random`` …)."""
    args: dict[str, Any] = field(default_factory=dict)
    """Its public arguments (``-M``)."""
    version: str | None = None
    """The backend's version (weights, API model, reference model)."""
    details: dict[str, Any] = field(default_factory=dict)
    """Everything else it describes (a program backend's code LLM, tools and limits, the
    package version …)."""


@dataclass(frozen=True)
class Selection:
    """Which of the dataset's items were evaluated."""

    limit: Count | None = None
    """``--limit N``."""
    subset: float | str | None = None
    """``--subset``: a share of pairs, or a suite's named subset."""
    seed: int | None = None
    """The run's ``--seed``."""
    groups: dict[str, Count] | None = None
    """With ``--limit``: the items taken from each group."""
    budget: Count | None = None
    """``--budget N``: the items a budgeted run could ask."""
    items: Count | None = None
    """Replayed runs (``import-results``, human answers): the items that had a reply."""
    of: Count | None = None
    """… of the dataset's items."""


@dataclass(frozen=True)
class AblationRef:
    """``--image-ablation``: what was done to the questions' images."""

    kind: str
    """``blank``, ``shuffled`` or ``none``."""
    checked: bool = False
    """The backend and the suite were asked whether the ablation takes the image away (runs of
    older versions were not, and reports draw no conclusion from them)."""
    seed: int | None = None
    """The seed of the ``shuffled`` permutation."""

    OMIT_DEFAULTS: ClassVar[frozenset[str]] = frozenset({"seed"})


@dataclass(frozen=True)
class JudgeRef:
    """The judge that graded free-text answers."""

    EXTRA_FIELD: ClassVar[str] = "details"
    OMIT_DEFAULTS: ClassVar[frozenset[str]] = frozenset({"backend", "spec", "unavailable"})

    backend: BackendRef | None = None
    """The judge backend as it describes itself (``None`` when it could not be used)."""
    spec: str | None = None
    """The suite's default judge that could not be used."""
    unavailable: str | None = None
    """Why it could not be used (the judged metric is then reported as not judged)."""
    details: dict[str, Any] = field(default_factory=dict)
    """The suite's facts about the grading (method, prompt, weights, score mapping)."""

    @property
    def shown(self) -> str | None:
        """The judge backend's spec, as tables name it."""
        return self.backend.spec if self.backend is not None else None


@dataclass(frozen=True)
class HumanRef:
    """A human baseline's run (``whatif human``): whose answers, imported from where."""

    EXTRA_FIELD: ClassVar[str] = "details"
    OMIT_DEFAULTS: ClassVar[frozenset[str]] = frozenset({"annotators"})

    annotator: str
    """The annotator's name, or ``majority`` for the majority answer of several."""
    annotators: tuple[str, ...] | None = None
    """The majority run: the annotators it is the majority of."""
    details: dict[str, Any] = field(default_factory=dict)
    """Where the answers came from (the tool, the file, the plan)."""

    @property
    def majority(self) -> bool:
        """The run is the majority answer of several people."""
        return self.annotator == "majority"


@dataclass(frozen=True)
class EstimateRef:
    """A budgeted run's estimate (``whatif run --budget``): the full-suite score estimated from
    the items asked, and how."""

    EXTRA_FIELD: ClassVar[str] = "details"
    OMIT_DEFAULTS: ClassVar[frozenset[str]] = frozenset({
        "value", "interval", "items", "dataset_items", "method", "metric", "scoring_unit",
        "bank", "interval_method"})

    kind: str
    """``estimate``."""
    value: Percent | None = None
    """The estimated full-suite score (percent)."""
    interval: PercentInterval | None = None
    """Its 95 % interval."""
    items: Count | None = None
    """Items evaluated."""
    dataset_items: Count | None = None
    """Items of the whole dataset (what the estimate is of)."""
    method: str | None = None
    """How the items were drawn (``stratified``, ``random``)."""
    metric: str | None = None
    """The metric estimated (the suite's headline)."""
    scoring_unit: str | None = None
    """What the score's units are (``pairs``, ``questions``)."""
    bank: str | None = None
    """The item bank's file name."""
    interval_method: str | None = None
    """How the interval was made (``design-based (stratified t)``)."""
    details: dict[str, Any] = field(default_factory=dict)
    """Every other figure (standard errors, the bank's prediction, misfit, units …)."""

    def problem(self) -> tuple[str, str] | None:
        """A record that says it is something other than an estimate."""
        return ("kind", '"estimate"') if self.kind != "estimate" else None

    @property
    def label(self) -> str:
        """``estimate: 100 of 600 items``."""
        return f"estimate: {self.items} of {self.dataset_items} items"


SPEC_FIELDS = ("suite", "dataset", "backend", "protocol", "selection", "demonstrations",
               "whatifbench", "git_revision", "image_ablation", "judge", "request",
               "model_name", "human", "source", "estimate", "budget")
"""The fields of a run spec that whatifbench writes, in their order."""


@dataclass(frozen=True)
class RunSpec:
    """Everything needed to reproduce a run: suite, data hashes, backend, protocol, versions."""

    OMIT_DEFAULTS: ClassVar[frozenset[str]] = frozenset({
        "image_ablation", "judge", "request", "model_name", "human", "source", "estimate",
        "budget"})

    suite: str | None = None
    """The suite (protocol and metrics)."""
    dataset: DatasetRef | None = None
    """The dataset evaluated."""
    backend: BackendRef | None = None
    """The model's backend."""
    protocol: Protocol | None = None
    """How items were posed (resolved: the suite's defaults filled in)."""
    selection: Selection | None = None
    """Which items were evaluated."""
    demonstrations: dict[str, str] | None = None
    """One-shot strategies: each item's demonstration."""
    whatifbench: str | None = None
    """The package version."""
    git_revision: str | None = None
    """The git commit of the package source, when it was a checkout."""
    image_ablation: AblationRef | None = None
    """``--image-ablation``."""
    judge: JudgeRef | None = None
    """The judge of free-text answers."""
    request: dict[str, Any] | None = None
    """What the requests were, as the suite describes them (a paper protocol's release script,
    template, prompt and generation settings: ``Suite.describe_request``)."""
    model_name: str | None = None
    """The name the model is shown under (``--model NAME=SPEC``)."""
    human: HumanRef | None = None
    """A human baseline's run."""
    source: dict[str, Any] | None = None
    """Replayed runs: where the replies were logged (the tool, file, task, model)."""
    estimate: EstimateRef | None = None
    """A budgeted run's estimate of the full-suite score."""
    budget: dict[str, Any] | None = None
    """Earlier versions' record of a budgeted run (now in ``estimate`` and ``selection``)."""

    @classmethod
    def from_json(cls, data: Any) -> RunSpec:
        """A spec read from JSON (fields of no version left out; ``SchemaError`` when a field
        is of the wrong type)."""
        if isinstance(data, dict) and not data.keys() <= set(SPEC_FIELDS):
            data = {k: v for k, v in data.items() if k in SPEC_FIELDS}
        built: RunSpec = parse(RunSpec, data)
        return built

    def to_json(self) -> dict[str, Any]:
        """The spec as ``results.json`` holds it."""
        out: dict[str, Any] = to_json(self)
        return out

    def with_(self, **changes: Any) -> RunSpec:
        """The spec with fields replaced."""
        return replace(self, **changes)

    @property
    def shown_name(self) -> str | None:
        """The name the model is shown under, if the run gave one."""
        return self.model_name or None

    @property
    def items_sha256(self) -> str | None:
        """The dataset's items hash, if recorded."""
        return self.dataset.items_sha256 if self.dataset is not None else None

    @property
    def dataset_path(self) -> str | None:
        """The dataset folder, if recorded."""
        return self.dataset.path if self.dataset is not None else None

    @property
    def backend_args(self) -> dict[str, Any]:
        """The backend's public arguments."""
        return self.backend.args if self.backend is not None else {}

    @property
    def is_estimate(self) -> bool:
        """A budgeted run whose headline is an estimate of the full-suite score."""
        return self.estimate is not None

    # -- read access by key, as before the spec was typed (plugins' table code) ------------
    def __getitem__(self, key: str) -> Any:
        return self._json_for(key)[key]

    def get(self, key: str, default: Any = None) -> Any:
        """``spec.get(key)`` as on the JSON object (deprecated: use the field)."""
        return self._json_for(key).get(key, default)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.to_json()

    def keys(self) -> Iterator[str]:
        """The JSON object's keys."""
        return iter(self.to_json())

    def _json_for(self, key: str) -> dict[str, Any]:
        attribute = key if key in {f.name for f in fields(self)} else None
        warnings.warn(
            f"Reading a run spec by key (spec[{key!r}] / spec.get({key!r})) is deprecated: "
            f"the spec is a typed record, core.records.spec.RunSpec; read "
            f"run.spec.{attribute or 'FIELD'} instead.", DeprecationWarning, stacklevel=3)
        return self.to_json()
