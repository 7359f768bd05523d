"""Shared metrics and statistics: accuracy, paired accuracy, drops, bootstrap CIs, tests."""
