"""The MuCR-Synthetic generator's name and version (light: the suite and the default run read
them without importing the scene engine)."""

GENERATOR = "mucr-synthetic"
"""The registered generator."""
VERSION = "1"
"""Its version (recorded in provenance; the oracle rebuilds scenes of this version)."""
