"""Analyses of run results (bias by image subgroup, C-VQA §4.3)."""
