"""Item quality and estimates from fewer items (``whatif items``, ``whatif run --budget``).

Reads datasets and run results, never models: per-item statistics and suspect flags
(``report``), a two-parameter IRT item bank fitted from stored runs (``irt``, ``bank``), and the
selection and estimate of a budgeted run (``budget``, ``estimate``). docs/item-quality.md
explains every flag and the estimate's validity.
"""
