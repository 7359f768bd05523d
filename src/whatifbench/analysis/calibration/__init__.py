"""Simulated populations of models and the measured behaviour of every statistic we print
(intervals, paired tests, key flags, budget estimates): ``bench/bench_calibration.py`` prints the
full figures (docs/statistics.md), ``tests/test_calibration.py`` a reduced version."""
