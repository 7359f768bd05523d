"""Answer extraction from free text, and likelihood-ranking helpers."""
