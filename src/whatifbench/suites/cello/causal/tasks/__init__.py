"""The twelve CELLO task types over four rungs, in the paper's order."""

from __future__ import annotations

from whatifbench.suites.cello.causal.tasks.association import ColliderBias
from whatifbench.suites.cello.causal.tasks.base import (
    RUNGS,
    BinaryTask,
    Frame,
    MultipleChoiceTask,
    TaskType,
)
from whatifbench.suites.cello.causal.tasks.counterfactual import (
    CounterfactualReasoning,
    NaturalDirectEffect,
    NaturalIndirectEffect,
    NecessaryCause,
    SufficientCause,
)
from whatifbench.suites.cello.causal.tasks.discovery import (
    AbstractReasoning,
    CausalAttribution,
    CausalityIdentification,
)
from whatifbench.suites.cello.causal.tasks.intervention import (
    BackdoorAdjustmentSet,
    ConfounderIdentification,
    ControlledDirectEffect,
)

TASKS: dict[str, TaskType] = {t.name: t for t in (
    CausalityIdentification(), CausalAttribution(), AbstractReasoning(), ColliderBias(),
    ConfounderIdentification(), BackdoorAdjustmentSet(), ControlledDirectEffect(),
    CounterfactualReasoning(), NaturalDirectEffect(), NaturalIndirectEffect(), SufficientCause(),
    NecessaryCause(),
)}
"""Task name (as spelled in the release) → task type."""

RUNG_OF = {name: task.rung for name, task in TASKS.items()}
"""Task name → rung name."""

__all__ = ["RUNGS", "RUNG_OF", "TASKS", "BinaryTask", "Frame", "MultipleChoiceTask", "TaskType"]
