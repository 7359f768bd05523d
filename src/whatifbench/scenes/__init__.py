"""The counterfactual scene engine: objects on a canvas, rendering, interventions, programs.

- ``model``: ``Scene`` and ``SceneObject`` records; ``shapes`` and ``palette``: what they look
  like; ``geometry``: outlines, containment, overlap; ``render``: deterministic PNGs.
- ``selectors`` and ``programs``: questions as programs (``execute(scene)``);
  ``interventions``: pure Scene → Scene changes that record themselves.
- ``filters``: validity checks (near-ties, hidden objects, leakage).

Generators (C-VQA-Synthetic, later CFMM and MuCR) sample a scene, pick a program and an
intervention, and compute the counterfactual answer as ``program.execute(apply_all(scene,
interventions))``; see ``docs/scenes.md``.
"""

from whatifbench.scenes.interventions import (
                                              Add,
                                              Intervention,
                                              Mirror,
                                              Move,
                                              Recolor,
                                              Remove,
                                              Resize,
                                              Rotate,
                                              Stretch,
                                              SwapColors,
                                              SwapPositions,
                                              apply_all,
)
from whatifbench.scenes.model import Scene, SceneError, SceneObject
from whatifbench.scenes.programs import (
                                              Attribute,
                                              Count,
                                              Larger,
                                              MaxContents,
                                              MoreThan,
                                              Program,
                                              Relation,
                                              WiderThanTall,
)
from whatifbench.scenes.selectors import (
                                              All,
                                              Ids,
                                              MostContents,
                                              Ranked,
                                              Selector,
                                              Take,
                                              Union,
                                              Where,
)

__all__ = [
    "Add", "All", "Attribute", "Count", "Ids", "Intervention", "Larger", "MaxContents", "Mirror",
    "MoreThan", "MostContents", "Move", "Program", "Ranked", "Recolor", "Relation", "Remove",
    "Resize", "Rotate", "Scene", "SceneError", "SceneObject", "Selector", "Stretch",
    "SwapColors", "SwapPositions", "Take", "Union", "Where", "WiderThanTall", "apply_all",
]
