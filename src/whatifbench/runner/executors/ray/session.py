"""Connecting to Ray: an existing cluster, or a local Ray started for one command."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from whatifbench.errors import WhatifError

INSTALL = 'pip install "whatifbench[ray]"'


def require_ray() -> ModuleType:
    """The ``ray`` module, or one ``WhatifError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise WhatifError(
            "--executor ray needs Ray, which is not installed here. Install it with "
            f"{INSTALL} (on this machine and on every node of the cluster), or leave out "
            "--executor ray to run locally."
        ) from None
    return ray


@dataclass(frozen=True)
class RaySession:
    """This process's connection to Ray."""

    owned: bool
    """True when this command called ``ray.init`` (it disconnects, and stops a local Ray it
    started, at the end); False when the caller had connected already."""
    started_local: bool
    """True when no cluster was found and a local Ray was started for this command."""
    node_id: str
    """The driver's Ray node (actors on it read images from the driver's paths)."""
    client: bool
    """Connected through Ray Client (``ray://``): the driver is on no Ray node."""

    def describe(self) -> str:
        """One line for the log: where the work goes."""
        import ray

        nodes = [n for n in ray.nodes() if n.get("Alive")]
        total = ray.cluster_resources()
        kind = "a local Ray started for this command" if self.started_local else "Ray"
        return (f"{kind}: {len(nodes)} node{'s' if len(nodes) != 1 else ''}, "
                f"{total.get('CPU', 0):g} CPUs, {total.get('GPU', 0):g} GPUs")


def connect(address: str | None) -> RaySession:
    """Connect to ``address`` (``None``: ``$RAY_ADDRESS``, else a running cluster, else a new
    local Ray without dashboard); reuse the connection when Ray is already initialised."""
    ray = require_ray()
    if ray.is_initialized():
        return RaySession(owned=False, started_local=False, node_id=_node_id(ray),
                          client=_is_client(ray))
    chosen = address or os.environ.get("RAY_ADDRESS") or None
    options: dict[str, Any] = {"logging_level": logging.WARNING}
    started_local = False
    if chosen is None:
        try:
            ray.init(address="auto", **options)
        except ConnectionError:
            _start_local(ray, options)
            started_local = True
    else:
        try:
            if chosen == "local":
                _start_local(ray, options)
            else:
                ray.init(address=chosen, **options)
        except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
            raise WhatifError(
                f"Cannot connect to the Ray cluster at {chosen!r} ({str(exc)[:300]}). Start one "
                "with 'ray start --head', pass its address (e.g. --ray-address 10.0.0.1:6379 "
                "or ray://10.0.0.1:10001), or leave out --ray-address to run on a local Ray."
            ) from None
        started_local = chosen == "local"
    return RaySession(owned=True, started_local=started_local, node_id=_node_id(ray),
                      client=_is_client(ray))


def _start_local(ray: ModuleType, options: dict[str, Any]) -> None:
    """Start a Ray for this command alone, reachable from this machine only: its node address
    is the loopback one, so the GCS, the raylet, the workers and the agents listen on
    127.0.0.1, not on every interface. (Ray asks for this with its single-machine mode, which
    it uses on macOS and Windows; passing ``_node_ip_address="127.0.0.1"`` is not enough, Ray
    swaps it for the machine's address.)"""
    from ray._private import ray_constants

    cluster = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(address="local", include_dashboard=False, **options)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = cluster


def disconnect(session: RaySession) -> None:
    """Undo ``connect``: disconnect (and stop a local Ray) if this command connected."""
    if session.owned:
        import ray

        ray.shutdown()


def _node_id(ray: ModuleType) -> str:
    try:
        return str(ray.get_runtime_context().get_node_id())
    except Exception:  # noqa: BLE001  (Ray Client drivers are on no node)
        return ""


def _is_client(ray: ModuleType) -> bool:
    try:
        from ray.util.client import ray as client

        return bool(client.is_connected())
    except ImportError:
        return False


def alive_nodes() -> list[dict[str, float]]:
    """The total resources of each alive node."""
    import ray

    return [dict(n.get("Resources") or {}) for n in ray.nodes() if n.get("Alive")]


def fitting(need: Mapping[str, float], nodes: list[dict[str, float]]) -> int:
    """How many actors needing ``need`` the nodes hold at once (each on one node)."""
    total = 0
    for node in nodes:
        counts = [math.floor(node.get(name, 0.0) / amount + 1e-9)
                  for name, amount in need.items() if amount > 0]
        total += min(counts) if counts else 0
    return total


def cluster_gpus(nodes: list[dict[str, float]]) -> float:
    """GPUs in the cluster."""
    return sum(node.get("GPU", 0.0) for node in nodes)
