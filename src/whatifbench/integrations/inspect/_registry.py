"""The module inspect_ai loads through the ``inspect_ai`` entry point: importing the tasks
module registers ``whatifbench/<task>`` with inspect for every registered suite."""

import whatifbench.integrations.inspect.tasks  # noqa: F401
