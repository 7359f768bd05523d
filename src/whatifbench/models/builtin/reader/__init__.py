"""The scene reader's parts: perception (pixels → ``scenes.Scene``: ``perceive`` for flowers,
polygons, dots and circles, ``shapes`` for solid shapes) and question parsing (text → program +
interventions: ``questions`` for C-VQA-Synthetic, ``shape_questions`` for CFMM-Synthetic).
``builtin:scene-reader`` joins them: the parsed question names the kind of scene, which picks
the perception (``scene_reader.PERCEIVERS``). Other scene families extend it by adding a
perception module and a parser to ``questions.PARSERS``. Questions about several pictures
(MuCR cause/effect pairs) have their own parts: ``see_bodies`` (pixels → a side-view
``scenes.bodies.World``) and ``pairs`` (the question → the scene engine's mechanics).
"""

from whatifbench.models.builtin.reader import shape_questions  # noqa: F401  (adds its parser)
