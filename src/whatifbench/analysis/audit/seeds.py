"""``whatif audit --generator NAME --seeds 7,8,9 [-p key=value ...]``: a generator's leaks, and
whether they replicate.

Each seed is generated into a temporary folder (the generator's own options parsed by its own
parser: ``-p per_template=100`` is ``--per-template 100``; a flag is ``-p balanced_values``),
audited as a dataset (each audit cached by its items' sha256) and deleted. The audits are then
pooled: per figure (the whole set, each slice, each probe and probe slice, matched by key and
value) the hits, items and chances of every seed are added and tested again, Holm within each
guesser's figures as for one dataset, and a figure is flagged only when it also replicates:
above chance in more than half of the seeds that have it (``flags.is_flagged``).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from whatifbench.analysis.audit.flags import apply_flags, pooled_entry
from whatifbench.analysis.audit.pairs import RULES, rule_shares
from whatifbench.core.params import add_options, entry_or_warn, values_from
from whatifbench.errors import WhatifError
from whatifbench.metrics.stats import percent, wilson_ci

RESERVED = ("out", "seed", "overwrite")
"""Generator options ``--seeds`` sets itself."""
OWN = ("out", "overwrite")
"""The entry's parameters the audit gives itself (a temporary folder)."""
MAX_SEEDS = 1000
"""Most seeds one audit takes: each is a dataset generated and audited (seconds each), and the
list is built before any work, so ``--seeds 0-999999999`` must be refused, not expanded."""


def parse_seeds(text: str) -> list[int]:
    """``7,8,9`` (or ``7-9``) as distinct seeds, in order; a sentence for anything else."""
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        try:
            if "-" in part.lstrip("-"):
                low, high = (int(x) for x in part.split("-", 1))
                if high - low + 1 > MAX_SEEDS - len(seeds):
                    raise WhatifError(
                        f"--seeds {text!r} names {max(0, high - low + 1) + len(seeds):,} seeds "
                        f"(the range {part} alone {max(0, high - low + 1):,}); an audit takes at "
                        f"most {MAX_SEEDS:,}, each generated and audited in turn. Give fewer, "
                        "e.g. --seeds 0-49.")
                seeds += list(range(low, high + 1))
            else:
                seeds.append(int(part))
            if len(seeds) > MAX_SEEDS:
                raise WhatifError(f"--seeds {text!r} names more than {MAX_SEEDS:,} seeds; an "
                                  f"audit takes at most {MAX_SEEDS:,}. Give fewer.")
        except ValueError:
            raise WhatifError(f"--seeds {text!r}: {part!r} is not a seed; give whole numbers "
                              "separated by commas, e.g. --seeds 7,8,9 (or a range: 7-9).") \
                from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise WhatifError(f"--seeds {text!r} must name at least one seed, each once, e.g. "
                          "--seeds 7,8,9.")
    return seeds


class _Parser(argparse.ArgumentParser):
    """A generator's parser whose mistakes are one ``WhatifError``."""

    def error(self, message: str) -> NoReturn:
        raise WhatifError(f"The generator's options (-p) were not accepted: {message}. "
                          f"'whatif generate {self.prog.split()[-1]} --help' lists them; pass "
                          "each as -p name=value.")


@dataclass(frozen=True)
class GeneratorCall:
    """A registered generator, its entry function (``None`` for a plugin's earlier
    ``add_arguments``/``run``) and a parser of its own options (plus ``--out``)."""

    tool: Any
    fn: Callable[..., Any] | None
    parser: argparse.ArgumentParser

    def check(self, seed: int, words: Sequence[str]) -> None:
        """Check the options for one seed (their types and bounds) without generating."""
        parsed = self._parse("-", seed, words)
        if self.fn is not None:
            values_from(parsed, self.fn, skip=OWN)

    def generate(self, out: Path, seed: int, words: Sequence[str]) -> None:
        """Generate into ``out`` with ``seed`` and the generator's command-line ``words``."""
        parsed = self._parse(str(out), seed, words)
        if self.fn is None:
            self.tool.run(parsed)
        else:
            self.fn(out=parsed.out, overwrite=parsed.overwrite,
                    **values_from(parsed, self.fn, skip=OWN))

    def _parse(self, out: str, seed: int, words: Sequence[str]) -> argparse.Namespace:
        return self.parser.parse_args(["--out", out, "--seed", str(seed), *words])


def generator_call(name: str) -> GeneratorCall:
    """The registered generator ``name``, ready to be called with command-line words."""
    from whatifbench.core.registry import lookup

    tool = lookup("generator", name).obj  # an unknown name: one message listing the generators
    parser = _Parser(prog=f"whatif generate {name}", add_help=False)
    parser.add_argument("--out", required=True)
    parser.add_argument("--overwrite", action="store_true")
    fn = entry_or_warn(tool, "generator")
    if fn is None:
        tool.add_arguments(parser)
    else:  # its declared options; an executor or a model stays at its default (local)
        add_options(parser, fn, skip=OWN)
    if "--seed" not in parser._option_string_actions:
        raise WhatifError(f"The generator {name!r} has no --seed option, so --seeds cannot "
                          "vary it; audit its datasets one by one (whatif audit DATASET).")
    return GeneratorCall(tool, fn, parser)


def param_tokens(parser: argparse.ArgumentParser, params: Sequence[str]) -> list[str]:
    """``-p key=value`` as the generator's command-line words (``--key value``)."""
    options = parser._option_string_actions
    words: list[str] = []
    given: dict[str, str] = {}
    for param in params:
        key, has_value, value = param.partition("=")
        option = "--" + key.strip().replace("_", "-")
        if option in given:
            raise WhatifError(f"-p {option[2:].replace('-', '_')} is given twice (-p "
                              f"{given[option]} and -p {param}); give each generator option "
                              "once.")
        given[option] = param
        action = options.get(option)
        if key.strip().replace("-", "_") in RESERVED:
            raise WhatifError(f"-p {param}: --seeds sets the generator's {key} itself; leave it "
                              "out.")
        if action is None:
            known = sorted(o[2:].replace("-", "_") for o in options
                           if o.startswith("--") and o[2:].replace("-", "_") not in RESERVED)
            raise WhatifError(f"-p {param}: the generator has no option {option}; it takes: "
                              f"{', '.join(known)}.")
        if action.nargs == 0:
            if value.strip().lower() in ("", "1", "true", "yes", "on") or not has_value:
                words.append(option)
            elif value.strip().lower() not in ("0", "false", "no", "off"):
                raise WhatifError(f"-p {param}: {option} is a switch; give -p {key} (on) or "
                                  f"-p {key}=false (off).")
        elif not has_value:
            raise WhatifError(f"-p {param}: {option} takes a value; give -p {key}=VALUE.")
        else:
            words += [option, value]
    return words


def audit_generator(name: str, seeds: Sequence[int], params: Sequence[str] = (),
                    by: Sequence[str] = (), refresh: bool = False,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate ``name`` with each seed into a temporary folder, audit each and pool them."""
    from whatifbench.analysis.audit.audit import audit_dataset

    generator = generator_call(name)
    words = param_tokens(generator.parser, params)
    for seed in seeds:  # every value checked before any work
        generator.check(seed, words)
    results = []
    root = Path(tempfile.mkdtemp(prefix="whatif-audit-seeds-"))
    try:
        for seed in seeds:
            folder = root / f"seed-{seed}"
            if progress:
                progress(f"generating {name} with seed {seed} into a temporary folder")
            generator.generate(folder, seed, words)
            results.append(audit_dataset(folder, by=by, refresh=refresh))
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    pooled = pool(results, seeds)
    pooled["generator"] = {"name": name, "params": list(params), "seeds": list(seeds)}
    return pooled


def _runs(results: Sequence[dict[str, Any]], seeds: Sequence[int]) -> list[dict[str, Any]]:
    """One line per seed: its dataset, blind figure and what its own audit flagged."""
    from whatifbench.analysis.audit.audit import flag_labels

    return [{"seed": seed, "items_sha256": r["dataset"]["items_sha256"],
             "items": r["dataset"]["items"], "audited": r["dataset"]["audited"],
             "blind": {k: r["blind"][k] for k in ("accuracy", "chance", "n")},
             "flagged": flag_labels(r)} for seed, r in zip(seeds, results, strict=True)]


def _pool_list(lists: Sequence[Sequence[dict[str, Any]]], key: Callable[[dict[str, Any]], Any],
               value: str, keep: Sequence[str]) -> list[dict[str, Any]]:
    """Entries matched by ``key`` across seeds (first-seen order), each pooled."""
    found: dict[Any, list[dict[str, Any]]] = {}
    for entries in lists:
        for entry in entries:
            found.setdefault(key(entry), []).append(entry)
    return [{**{k: parts[0][k] for k in keep if k in parts[0]}, **pooled_entry(parts, value),
             "flagged": False} for parts in found.values()]


def _pool_blind(blinds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The whole set pooled, with each baseline's pooled figure and choices added up."""
    entry = pooled_entry(blinds)
    baselines = {}
    for name in blinds[0]["baselines"]:
        hits = sum(round(b["baselines"][name]["accuracy"] * b["n"] / 100) for b in blinds)
        baselines[name] = {"accuracy": percent(hits, entry["n"]),
                           "interval": list(wilson_ci(hits, entry["n"]))}
    chosen: dict[str, Counter[str]] = {}
    for b in blinds:
        for group, counts in b["chosen"].items():
            chosen.setdefault(group, Counter()).update(counts)
    method = (f"{blinds[0]['method']}; each of {len(blinds)} seeds audited on its own, the "
              "figures pooled")
    return {**entry, "flagged": False, "method": method, "folds": blinds[0]["folds"],
            "baselines": baselines,
            "chosen": {g: dict(sorted(c.items())) for g, c in sorted(chosen.items())}}


def _pool_pairs(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Pair rules and same-letter shares added up over seeds."""
    def counts(rules: dict[str, Any]) -> Counter[str]:
        return Counter({r: int(rules[r]["pairs"]) for r in RULES})

    total = sum(int(p["pairs"]) for p in parts)
    overall = sum((counts(p["rules"]) for p in parts), Counter())
    sizes: Counter[str] = Counter()
    groups: dict[str, Counter[str]] = {}
    for p in parts:
        for g in p["by_group"]:
            sizes[g["group"]] += int(g["pairs"])
            groups.setdefault(g["group"], Counter()).update(counts(g["rules"]))
    letters = _pool_letters([p.get("letters") or {} for p in parts])
    return {"pairs": total, "rules": rule_shares(overall, total),
            "by_group": [{"group": g, "pairs": sizes[g],
                          "rules": rule_shares(groups[g], sizes[g])} for g in sorted(groups)],
            "letters": letters}


def _pool_letters(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Same-letter shares added up over seeds (``expected`` weighted by pairs)."""
    def add(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        pairs = sum(int(r.get("pairs") or 0) for r in rows)
        same = sum(int(r.get("same") or 0) for r in rows)
        expected = sum(float(r["expected"]) * int(r["pairs"]) for r in rows
                       if r.get("expected") is not None)
        return {"pairs": pairs, "same": same, "percent": percent(same, pairs) if pairs else None,
                "expected": round(expected / pairs, 2) if pairs else None}

    by: dict[str, list[dict[str, Any]]] = {}
    for p in parts:
        for g in p.get("by_group") or []:
            by.setdefault(g["group"], []).append(g)
    return {**add(parts), "by_group": [{"group": g, **add(by[g])} for g in sorted(by)]}


def pool(results: Sequence[dict[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """Audits of one generator's seeds pooled into one result, flagged (with replication)."""
    probes = []
    names = list(dict.fromkeys(p["name"] for r in results for p in r.get("probes") or []))
    for name in names:
        parts = [p for r in results for p in r.get("probes") or [] if p["name"] == name]
        probes.append({"name": name, "reads": parts[0]["reads"], "unit": parts[0]["unit"],
                       **pooled_entry(parts), "flagged": False,
                       "slices": _pool_list([p["slices"] for p in parts],
                                            lambda s: (s["key"], s["value"]), "accuracy",
                                            ("key", "value"))})
    return apply_flags({
        "runs": _runs(results, seeds),
        "blind": _pool_blind([r["blind"] for r in results]),
        "slices": _pool_list([r["slices"] for r in results], lambda s: (s["key"], s["value"]),
                             "blind", ("key", "value")),
        "pairs": _pool_pairs([r["pairs"] for r in results]),
        "probes": probes,
    })
