"""The validity audit: what a score on a dataset can mean (blind baselines, slices, pair rules).

It reads datasets, never models; its result is cached by dataset (``store``) and reports only
read that cache."""
