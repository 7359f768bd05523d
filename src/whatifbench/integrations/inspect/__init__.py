"""inspect_ai tasks for whatifbench suites (``pip install "whatifbench[inspect]"``).

One task per suite — ``cvqa_synthetic``, ``cvqa_real``, ``cfmm``, ``mucr``, ``cello`` — posing our
prompts (images and text as whatifbench sends them) and scored by whatifbench's own parsers,
judges and paired metrics. Registered with inspect through the package's ``inspect_ai`` entry
point, so ``inspect eval whatifbench/cvqa_synthetic -T dataset=DIR --model ...`` works; from
Python, ``inspect_ai.eval(cvqa_synthetic(dataset="DIR"), model=...)``.

Importing this module imports inspect_ai.
"""

from whatifbench.integrations.inspect.tasks import cello, cfmm, cvqa_real, cvqa_synthetic, mucr

__all__ = ["cello", "cfmm", "cvqa_real", "cvqa_synthetic", "mucr"]
