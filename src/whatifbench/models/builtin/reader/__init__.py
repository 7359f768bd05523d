"""The scene reader's parts: ``perceive`` (pixels → ``scenes.Scene``) and ``questions`` (text →
program + interventions). ``builtin:scene-reader`` joins them; other scene families extend it
by adding a detector to ``perceive`` and a parser to ``questions.PARSERS``. Questions about
several pictures (MuCR cause/effect pairs) have their own parts: ``see_bodies`` (pixels → a
side-view ``scenes.bodies.World``) and ``pairs`` (the question → the scene engine's mechanics).
"""
