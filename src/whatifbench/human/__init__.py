"""Human baselines: a local annotation app, its SQLite store, the crowd-sheet importer, and the
turning of people's answers into the same run results a model produces (``whatif human``)."""
