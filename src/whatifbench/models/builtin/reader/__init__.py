"""The scene reader's parts: ``perceive`` (pixels → ``scenes.Scene``) and ``questions`` (text →
program + interventions). ``builtin:scene-reader`` joins them; other scene families (CFMM
shapes, MuCR pairs) extend it by adding a detector to ``perceive`` and a parser to
``questions.PARSERS``.
"""
