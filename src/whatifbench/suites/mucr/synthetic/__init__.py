"""MuCR-synthetic: procedural cause → effect pairs whose consequences the scene engine computes."""
