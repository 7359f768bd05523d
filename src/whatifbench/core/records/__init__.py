"""Typed records at the bottom of ``core``: the run spec, scores, samples and run results, and
the schema every file we read is parsed through (``schema``, ``read``)."""
