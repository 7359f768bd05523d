"""inspect_ai tasks for whatifbench suites (``pip install "whatifbench[inspect]"``).

One task per registered suite — ``cvqa_synthetic``, ``cvqa_real``, ``cfmm``, ``mucr``, ``cello``
and any suite a plugin registers (``tasks.task_for``) — posing our prompts (images and text as
whatifbench sends them) and scored by whatifbench's own parsers, judges and paired metrics.
Registered with inspect through the package's ``inspect_ai`` entry point, so ``inspect eval
whatifbench/cvqa_synthetic -T dataset=DIR --model ...`` works; from Python,
``inspect_ai.eval(task_for("cvqa-synthetic")(dataset="DIR"), model=...)`` (or import the task by
its name from ``whatifbench.integrations.inspect.tasks``).

Importing this module imports inspect_ai.
"""

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    tasks = importlib.import_module("whatifbench.integrations.inspect.tasks")
    if hasattr(tasks, name):
        return getattr(tasks, name)
    raise AttributeError(name)
