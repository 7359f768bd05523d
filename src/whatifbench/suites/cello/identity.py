"""The name CELLO datasets built by ``whatif build cello`` record as their generator (light)."""

BUILDER = "cello-build"
"""``card.generator["name"]`` of a built CELLO."""
