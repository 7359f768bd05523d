"""Image backends: text → picture, for construction pipelines (registry kind ``image-backend``).

``openai:MODEL`` calls an OpenAI-compatible ``/images/generations`` endpoint; ``diffusers:PATH``
runs a local diffusers pipeline (optional extra). See ``base.ImageBackend``.
"""
