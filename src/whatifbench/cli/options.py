"""Command-line options shared by several commands and plugins (generators' ``--executor``,
``-M``; ``--design`` and ``--secret-file`` are expanded by ``core.params``)."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from whatifbench.errors import WhatifError
from whatifbench.models.make import merge_values, parse_model_args
from whatifbench.runner.executors.config import EXECUTORS, ExecutorConfig, JobMap, Resources
from whatifbench.runner.executors.local import open_job_map, stderr


def generator_jobs(args: argparse.Namespace) -> contextlib.AbstractContextManager[JobMap | None]:
    """``open_job_map`` for a generator's parsed options (``--executor``, ``--ray-*``)."""
    if getattr(args, "workers", None) is not None and getattr(args, "executor", None) == "ray":
        raise WhatifError("--workers sets local processes; with --executor ray use --ray-tasks.")
    return open_job_map(executor_config(args), log=stderr)


def add_executor_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """``--executor`` and the ``--ray-*`` options (``command``: ``run`` or ``generate``)."""
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="where the work runs: this machine (default) or a Ray cluster "
                             '(pip install "whatifbench[ray]")')
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="Ray cluster to use (auto, HOST:PORT, ray://HOST:10001; default: "
                             "$RAY_ADDRESS, else a running cluster, else a local Ray)")
    if command == "run":
        parser.add_argument("--ray-actors", type=int, metavar="N",
                            help="Ray actors, each holding one model instance (default: as "
                                 "many as the cluster's resources allow)")
        parser.add_argument("--ray-actor-resources", metavar="SPEC", default="",
                            help="what each actor reserves, e.g. gpu=1,cpu=4,memory=16G "
                                 "(default cpu=1, plus gpu=1 for hf: models on GPU clusters)")
    else:
        parser.add_argument("--ray-tasks", type=int, metavar="N",
                            help="most Ray tasks in flight (default: twice the cluster's CPUs; "
                                 "the output does not change)")


def executor_config(args: argparse.Namespace) -> ExecutorConfig:
    """The ``ExecutorConfig`` of parsed options; ``--ray-*`` options need ``--executor ray``."""
    kind = getattr(args, "executor", None) or "local"
    given = {name: getattr(args, dest, None) for name, dest in (
        ("--ray-address", "ray_address"), ("--ray-actors", "ray_actors"),
        ("--ray-actor-resources", "ray_actor_resources"), ("--ray-tasks", "ray_tasks"))}
    if kind != "ray":
        used = [name for name, value in given.items() if value]
        if used:
            raise WhatifError(f"{', '.join(used)} only apply with --executor ray.")
        return ExecutorConfig()
    for name in ("--ray-actors", "--ray-tasks"):
        value = given[name]
        if value is not None and value < 1:
            raise WhatifError(f"{name} must be at least 1, got {value}.")
    return ExecutorConfig(kind="ray", address=given["--ray-address"] or None,
                          actors=given["--ray-actors"],
                          resources=Resources.parse(given["--ray-actor-resources"] or ""),
                          tasks=given["--ray-tasks"])


def add_model_arguments(parser: argparse.ArgumentParser, *, required: bool, help: str,
                        option: str = "model", short: str = "-M",
                        base_url: str = "--base-url") -> None:
    """``--model SPEC``, ``-M KEY=VALUE`` (repeatable) and ``--base-url URL`` for a tool that
    calls one model (construction pipelines); a tool that calls several gives each its own
    ``option`` name, short flag and base-URL flag (e.g. ``--llm``, ``-L``, ``--llm-base-url``)."""
    dest = option.replace("-", "_")
    parser.add_argument(f"--{option}", required=required, metavar="SPEC", help=help)
    parser.add_argument(short, dest=f"{dest}_args", action="append", default=[],
                        metavar="KEY=VALUE",
                        help=f"argument of the --{option} backend (repeatable)")
    parser.add_argument(base_url, dest=_base_url_dest(dest), metavar="URL", action="append",
                        help=f"OpenAI-compatible server URL of --{option} (sets "
                             f"{short} base_url=...; repeat it to spread calls over several "
                             "servers)")


def _base_url_dest(dest: str) -> str:
    return "base_url" if dest == "model" else f"{dest}_base_url"


def model_args_from(args: argparse.Namespace, option: str = "model") -> dict[str, Any]:
    """The backend arguments of ``--<option>`` given by its short flag and base-URL flag."""
    dest = option.replace("-", "_")
    model_args = parse_model_args(getattr(args, f"{dest}_args", []) or [])
    urls = getattr(args, _base_url_dest(dest), None)
    if urls:
        merged = merge_values(model_args.get("base_url", []), urls)
        model_args["base_url"] = merged[0] if len(merged) == 1 else merged
    return model_args
