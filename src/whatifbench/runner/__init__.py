"""The evaluation loop, the run store (SQLite) and run results."""
