"""Human review of built datasets: export a sheet (CSV or self-contained HTML), import decisions.

Which sheet a dataset gets is a hook: the reviewer registered (``@register("reviewer", name)``)
under ``card.extra["review"]`` if the card names one, else under ``card.suite``.
"""
