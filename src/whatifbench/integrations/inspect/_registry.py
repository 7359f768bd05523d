"""The module inspect_ai loads through the ``inspect_ai`` entry point: importing the tasks
registers ``whatifbench/<task>`` with inspect."""

from whatifbench.integrations.inspect.tasks import (  # noqa: F401
    cello,
    cfmm,
    cvqa_real,
    cvqa_synthetic,
    mucr,
)
