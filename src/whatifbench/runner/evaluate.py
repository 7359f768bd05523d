"""The evaluation loop: items → requests → (store | backend) → extraction → scores → metrics."""

from __future__ import annotations

import functools
import subprocess
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whatifbench import __version__, secrets
from whatifbench.core.dataset import Dataset
from whatifbench.core.decoding import applies_decoding
from whatifbench.core.fsutil import finite_json
from whatifbench.core.item import Item
from whatifbench.core.protocol import BACKEND_DECODING, Protocol
from whatifbench.core.records.schema import parse
from whatifbench.core.records.spec import BackendRef, DatasetRef, JudgeRef, RunSpec, Selection
from whatifbench.core.requests import Request, Response
from whatifbench.core.suite import Sample, Suite, suite_for
from whatifbench.errors import WhatifError
from whatifbench.metrics.program import program_metrics
from whatifbench.models.base import Backend
from whatifbench.runner.ablation import ImageAblation, ablate
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.judge import JudgeRuntime
from whatifbench.runner.requests import (
    RequestBuilder,
    answer_mode_for,
    choose_demos,
    limit_groups,
    select_items,
)
from whatifbench.runner.results import Execution, RunResult
from whatifbench.runner.store import RunStore

if TYPE_CHECKING:
    from whatifbench.runner.budget import Budget


@dataclass(frozen=True)
class RunOptions:
    """Which items to evaluate and how to report progress."""

    limit: int | None = None
    """Evaluate about N items: whole pairs spread evenly over the groups."""
    subset: float | str | None = None
    """Evaluate a seeded random share of pairs (e.g. 0.1), or the suite's named subset
    (e.g. ``paper``: the release's own sampling, see ``Suite.select``)."""
    seed: int = 0
    """Seed for ``subset`` and demonstration choice."""
    progress: bool = True
    """Show a progress bar on stderr."""
    judge: str | None = None
    """Judge backend spec for free-text answers (``None``: the suite's default judge)."""
    judge_args: dict[str, Any] = field(default_factory=dict)
    """Arguments of the judge backend (``--judge-arg key=value``)."""
    image_ablation: str | None = None
    """Replace the questions' images: ``blank`` (mid-grey, same size), ``shuffled`` (another
    pair's, seeded by ``seed``) or ``none`` (no image sent); see ``runner.ablation``."""
    budget: Budget | None = None
    """Evaluate about N items chosen from an item bank and estimate the full-suite score
    (``whatif run --budget N --bank FILE``; ``api.run_all`` hands such runs to
    ``analysis.items.budget.run_budget``, which calls ``evaluate`` without it)."""


def get_suite(name: str) -> Suite:
    """The registered suite instance for a dataset's ``card.suite`` (``core.suite.suite_for``)."""
    return suite_for(name)


@functools.cache
def git_revision() -> str | None:
    """The git commit of the installed package source, when it is a checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def resolve_protocol(suite: Suite, protocol: Protocol, backend: Backend) -> Protocol:
    """The protocol as a run of ``suite`` with ``backend`` uses it: bound to the backend (e.g.
    its paper family), the suite's defaults filled in, checked."""
    asked = protocol.decoding
    protocol = suite.bind(protocol, backend).resolved(
        suite.default_answer_mode, suite.default_score_by, suite.default_max_new_tokens)
    suite.check_protocol(protocol)
    if protocol.answer_mode == "rank":  # candidates are scored: nothing is decoded
        if asked == "release":
            raise WhatifError("--decoding release repeats a release script's generation call; "
                              "with --answer-mode rank the candidates are scored and nothing "
                              "is generated: leave --decoding out, or use --answer-mode "
                              "generate.")
        return replace(protocol, decoding=None)
    if not applies_decoding(backend.spec):  # no decoding record reaches it: say so
        protocol = replace(protocol, decoding=BACKEND_DECODING)
    return protocol


def evaluate(dataset: Dataset, backend: Backend, protocol: Protocol, store: RunStore,
             options: RunOptions = RunOptions()) -> RunResult:
    """Evaluate ``dataset`` with ``backend``; every response is stored as it arrives."""
    started = time.monotonic()
    suite = get_suite(dataset.suite)
    ablation = (ImageAblation(options.image_ablation, options.seed)
                if options.image_ablation else None)
    if ablation is not None:
        refused = backend.ablation_refusal(ablation.kind)
        if refused:
            raise WhatifError(f"--image-ablation {ablation.kind} cannot be used with the model "
                              f"{backend.spec}: {refused}.")
    protocol = resolve_protocol(suite, protocol, backend)
    mode = protocol.answer_mode or suite.default_answer_mode
    if mode == "rank" and not backend.capabilities.rank:
        backend.score([])  # raises the backend's own explanation
    if isinstance(options.subset, str):
        named = suite.select(dataset.items, options.subset, options.seed)
        items = select_items(named, options.limit, None, options.seed)
    else:
        items = select_items(dataset.items, options.limit, options.subset, options.seed)
    if ablation is not None:
        refused = suite.ablation_refusal(ablation.kind, items)
        if refused:
            raise WhatifError(f"--image-ablation {ablation.kind} cannot be applied to "
                              f"{dataset.root}: {refused}.")
    if not items:
        raise WhatifError(f"No items of {dataset.root} were selected; check --limit/--subset.")
    demos = (choose_demos(dataset, items, options.seed, suite)
             if protocol.strategy in ("one-shot", "one-shot-cot") else {})
    builder = RequestBuilder(suite, protocol, dataset, demos, options.seed)
    backend.use_store(store)
    counts = {"from_store": 0, "computed": 0, "errors": 0}
    judge_counts = {"from_store": 0, "computed": 0, "errors": 0}  # kept apart in Execution
    judge = JudgeRuntime(
        options.judge or suite.default_judge, options.judge_args,
        lambda b, m, reqs: _fetch(b, m, reqs, store, judge_counts, options, f"judge {b.spec}"),
        chosen=options.judge is not None)
    if any(item.kind == "text" for item in items):
        judge.preflight()  # before any model call: a missing judge stops here, not at the end
    backend.prepare(items)

    descriptions: dict[str, str | None] = {}
    found: dict[int, Response] = {}
    if protocol.strategy == "ccot":
        first = [builder.describe_request(item) for item in items]
        if ablation is not None:
            first = ablate(first, ablation)
        answers = _fetch(backend, "generate", first, store, counts, options,
                         f"describe {dataset.card.name}")
        descriptions = {item.id: answers[i].text for i, item in enumerate(items)}
        # An item whose description failed ended in that error; its question is not asked.
        found = {i: Response(error=f"the scene description failed: {a.error}")
                 for i, a in enumerate(answers) if a.error is not None}

    requests = [builder.build(item, descriptions.get(item.id)) for item in items]
    if ablation is not None:
        requests = ablate(requests, ablation)
    _check_images(backend, requests, protocol)
    modes = [answer_mode_for(mode, item) for item in items]
    for m in sorted(set(modes)):  # free-text items are generated even in rank mode
        chosen = [i for i, x in enumerate(modes) if x == m and i not in found]
        got = _fetch(backend, m, [requests[i] for i in chosen], store, counts, options,
                     f"{dataset.card.name} × {backend.spec}")
        found.update(zip(chosen, got, strict=True))
    responses = [found[i] for i in range(len(items))]
    samples = [score_item(suite, protocol, item, req, responses[i], modes[i])
               for i, (item, req) in enumerate(zip(items, requests, strict=True))]
    try:
        samples = suite.judge(samples, items, judge)
    finally:
        judge.close()
    metrics = suite.metrics(samples, items)
    if any(s.trace is not None for s in samples):
        metrics["program"] = program_metrics(samples)
    described = judge.describe()
    spec = RunSpec(
        suite=suite.name,
        dataset=DatasetRef(
            name=dataset.card.name, path=str(Path(dataset.root).resolve()),
            version=dataset.card.version, items_sha256=dataset.items_sha256,
            images_sha256=dataset.card.hashes.get("images_sha256"),
            hashes_verified=dataset.verified, generator=dataset.card.generator,
            seed=dataset.card.seed),
        backend=parse(BackendRef, backend.describe()),
        protocol=protocol,
        selection=Selection(limit=options.limit, subset=options.subset, seed=options.seed,
                            groups=dict(Counter(limit_groups(items).values()))
                            if options.limit is not None else None),
        demonstrations={k: v.id for k, v in sorted(demos.items())} or None,
        whatifbench=__version__,
        git_revision=git_revision(),
        image_ablation=ablation.record() if ablation is not None else None,
        judge=parse(JudgeRef, described) if described is not None else None,
        request=suite.describe_request(protocol),
    )
    execution = Execution(counts["from_store"], counts["computed"], counts["errors"],
                          round(time.monotonic() - started, 3), judge_counts["from_store"],
                          judge_counts["computed"], judge_counts["errors"])
    # What is recorded of the backend (its spec, arguments, another tool's logged config)
    # may hold URLs with credentials: they never reach a result (``secrets.redact``).
    return RunResult(suite.name, dataset.card.name, secrets.redact(backend.spec), len(items),
                     metrics, RunSpec.from_json(secrets.redact_value(spec.to_json())), samples,
                     execution)


def _check_images(backend: Backend, requests: Sequence[Request], protocol: Protocol) -> None:
    """Single-image backends get one image per request; say which option makes that so."""
    most = max((len(r.images) for r in requests), default=0)
    if most <= 1 or backend.capabilities.multi_image:
        return
    own = max((len(r.turns[-1].images) for r in requests), default=0)
    hints = []
    if own > 1 and protocol.image_layout == "multi":
        hints.append("--image-layout composite (one image made of the item's images)")
    if protocol.strategy.startswith("one-shot"):
        hints.append("--strategy zero-shot or cot (a demonstration adds its own image)")
    raise WhatifError(
        f"The backend {backend.spec} takes one image per request, but these requests carry up "
        f"to {most} images; use {' and '.join(hints)}, or a backend that accepts several images."
    )


def _fetch(backend: Backend, mode: str, requests: Sequence[Request], store: RunStore,
           counts: dict[str, int], options: RunOptions, label: str) -> list[Response]:
    """Responses for all requests through the store; tallies where they came from."""
    got = generate_cached(backend, requests, store, mode=mode, progress=options.progress,
                          label=label)
    counts["from_store"] += got.from_store
    counts["computed"] += got.computed
    counts["errors"] += got.errors
    return list(got.responses)


def score_item(suite: Suite, protocol: Protocol, item: Item, request: Request,
               response: Response, mode: str) -> Sample:
    """Extract and score one response."""
    parses: dict[str, str | None] = {}
    flag: str | None = None
    prediction: str | None = None
    chosen: tuple[float, ...] | None = None
    trace = response.meta.get("trace") if response.error is None else None
    failure = trace.get("failure") if isinstance(trace, dict) else None
    if response.error is not None:
        flag = "error"
    elif failure:  # a program that failed to compile, raised or timed out: wrong, flagged
        flag = f"program-{failure.get('kind')}"
    elif mode == "rank":
        chosen = response.mean_scores if protocol.score_by == "mean" else response.scores
        if chosen is None or len(chosen) != len(request.candidates):
            flag = "no-scores"
        else:
            prediction = suite.from_rank(item, protocol, chosen)
            parses["rank"] = prediction
    else:
        found = suite.extract(item, response.text or "", protocol)
        parses = {name: e.value for name, e in found.items()}
        primary = found.get(protocol.parser) or next(iter(found.values()))
        prediction, flag = primary.value, primary.flag
    unparsed = response.error is None and prediction is None and not failure
    return Sample(
        item_id=item.id, pair_id=item.pair_id, role=item.role, group=item.group,
        question=item.question, prompt=request.prompt, target=item.target,
        response=response.text, scores=list(chosen) if chosen is not None else None,
        prediction=prediction, correct=suite.is_correct(item, prediction), unparsed=unparsed,
        flag=flag, error=response.error, parses=parses, meta=dict(item.meta),
        trace=finite_json(trace) if isinstance(trace, dict) else None,
        model_input=response.meta.get("model_input"),
        generation=generation_settings(request) if mode == "generate" else None,
    )


def generation_settings(request: Request) -> dict[str, Any] | None:
    """The generation settings a request asked for (``Sample.generation``)."""
    if request.decoding is None:
        return None
    return {**request.decoding.to_json(), "max_new_tokens": request.max_new_tokens}


def spec_summary(result: RunResult) -> dict[str, Any]:
    """Short execution summary for logs."""
    e = result.execution
    return {"model": result.model, "dataset": result.dataset, "from_store": e.from_store,
            "computed": e.computed, "errors": e.errors, "seconds": e.seconds}
