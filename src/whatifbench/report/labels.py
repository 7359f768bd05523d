"""Row labels that say what a row is: the model's display name plus the protocol facts that
differ between the runs shown together (strategy, prompt, parser, layout, answer mode, judge,
selection, backend arguments), and always the image ablation of an ablated run."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from whatifbench.core.protocol import Protocol
from whatifbench.core.records.run import RunResult

PROTOCOL_FACTS = ("prompt", "strategy", "answer_mode", "image_layout", "parser", "score_by",
                  "max_new_tokens", "template", "decoding")
"""Protocol fields, in the order they are named in a label."""


def dataset_key(run: RunResult) -> tuple[str, str, str]:
    """Runs with the same key are shown together: suite, dataset name and items hash."""
    return (run.suite, run.dataset, str(run.spec.items_sha256))


def shown_together(runs: Sequence[RunResult]) -> list[list[RunResult]]:
    """The runs grouped by dataset (``dataset_key``), groups and runs in first-seen order."""
    groups: dict[tuple[str, str, str], list[RunResult]] = {}
    for run in runs:
        groups.setdefault(dataset_key(run), []).append(run)
    return list(groups.values())


def distinct_datasets(runs: Sequence[RunResult]) -> list[RunResult]:
    """The runs as reports show them: where datasets of one name hold different items, each
    one's name carries the short hash of its items (``handmade (sha256 3fa2c1d9e0b4)``), so
    tables, figures and the page tell them apart. Other runs are returned as they are."""
    hashes: dict[str, set[str]] = {}
    for run in runs:
        hashes.setdefault(run.dataset, set()).add(dataset_key(run)[2])
    out = []
    for run in runs:
        digest = dataset_key(run)[2]
        if len(hashes[run.dataset]) > 1:
            short = digest[:12] if digest != "None" else "not recorded"
            run = replace(run, dataset=f"{run.dataset} (sha256 {short})")
        out.append(run)
    return out


def model_name(run: RunResult) -> str:
    """The model's display name (``--model NAME=SPEC``), else its backend spec."""
    return run.shown_name


def is_human(run: RunResult) -> bool:
    """A run of people's answers (``whatif human``; see ``report.human``)."""
    return run.spec.human is not None


OPTIONAL_FACTS = frozenset({"decoding"})
"""Facts some runs do not have (a ranking run decodes nothing): compared among the runs that
have them only."""


def _judge(run: RunResult) -> Any:
    return run.spec.judge.shown if run.spec.judge is not None else None


def _facts(run: RunResult) -> dict[str, Any]:
    """Every fact a label may name, keyed by its label name."""
    protocol, selection = run.spec.protocol or Protocol(), run.spec.selection
    facts: dict[str, Any] = {k: getattr(protocol, k) for k in PROTOCOL_FACTS}
    if protocol.answer_mode == "rank":
        del facts["decoding"]  # nothing is decoded: the answer mode tells the runs apart
    facts["judge"] = _judge(run)
    facts.update({k: getattr(selection, k, None) for k in ("limit", "subset", "seed")})
    for key, value in sorted(run.spec.backend_args.items()):
        facts[f"-M {key}"] = value
    if run.spec.model_name:
        facts["spec"] = run.model
    return facts


def _show(value: Any) -> str:
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value)


def _fact(name: str, facts: dict[str, Any]) -> str:
    """``name=value``; a backend argument the run did not pass is ``no -M name`` (the
    backend's default), not ``-M name=none``."""
    if name.startswith("-M ") and name not in facts:
        return f"no {name}"
    return f"{name}={_show(facts.get(name))}"


def differing(runs: Sequence[RunResult]) -> list[str]:
    """Fact names whose values differ between ``runs`` (in label order). Backend arguments
    (``-M name``) are compared among runs of one model only: backends take different arguments
    (``-M seed=3`` reaches builtin:random, not builtin:constant), and their names already tell
    runs of different models apart."""
    facts = [_facts(r) for r in runs]
    names = list(dict.fromkeys(k for f in facts for k in f))
    per_model = _model_args_differing(runs)
    return [k for k in names if (any(k in found for found in per_model.values())
                                 if k.startswith("-M ") else _differs(k, facts))]


def _differs(name: str, among: Sequence[dict[str, Any]]) -> bool:
    return len({_show(f.get(name)) for f in among
                if name in f or name not in OPTIONAL_FACTS}) > 1


def _model_args_differing(runs: Sequence[RunResult]) -> dict[str, set[str]]:
    """Per model spec: the ``-M`` facts that differ among that model's runs."""
    by_model: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).append(_facts(run))
    return {model: {k for f in group for k in f if k.startswith("-M ") and _differs(k, group)}
            for model, group in by_model.items()}


def run_labels(runs: Sequence[RunResult], skip: Sequence[str] = ()) -> list[str]:
    """One label per run: ``name [strategy=cot, parser=paper]``, an image-ablated run always
    ``name [image: blank]``; runs that no fact tells apart get ``#1``, ``#2`` … ``skip`` names
    facts the table shows in a column of its own."""
    models = [r for r in runs if not is_human(r)]
    every = differing(models)
    own_args = _model_args_differing(models)  # -M facts are shown on runs of that model only
    names = [k for k in every if k not in skip]
    distinct_names = len({model_name(r) for r in runs}) == len(runs)
    labels: list[str] = []
    keys: list[tuple[str, ...]] = []
    for run in runs:
        if is_human(run):  # people are told apart by name; models' protocol facts are not theirs
            labels.append(model_name(run))
            keys.append((model_name(run),))
            continue
        facts = _facts(run)
        ablated = run.spec.image_ablation.kind if run.spec.image_ablation else None
        shown = [_fact(k, facts) for k in names if not (k == "spec" and distinct_names)
                 and (not k.startswith("-M ") or k in own_args.get(run.model, ()))]
        if ablated:  # always named, even when every run shown is ablated
            shown.insert(0, f"image: {ablated}")
        # always named: a budgeted run's estimate
        estimated = run.spec.estimate.label if run.spec.estimate is not None else None
        if estimated:
            shown.insert(0, estimated)
        name = model_name(run)
        labels.append(f"{name} [{', '.join(shown)}]" if shown else name)
        keys.append((name, str(ablated), str(estimated),
                     *(_show(facts.get(k)) for k in every)))
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for label, key in zip(labels, keys, strict=True):
        seen[key] = seen.get(key, 0) + 1
        out.append(label if keys.count(key) == 1 else f"{label} #{seen[key]}")
    return out


def labeller(runs: Sequence[RunResult], skip: Sequence[str] = ()) -> Callable[[RunResult], str]:
    """``label(run)`` for the runs of one table (looked up by identity)."""
    labels = run_labels(runs, skip)
    by_id = {id(r): label for r, label in zip(runs, labels, strict=True)}
    return lambda run: by_id.get(id(run), model_name(run))
