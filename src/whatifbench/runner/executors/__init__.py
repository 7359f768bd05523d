"""Executors decide *where* a run's requests and a generator's jobs are computed, never *what*.

``local`` (the default) computes in this process (generators: in its worker processes); ``ray``
sends batches of requests to Ray actors that each hold one backend instance, and generator
jobs to Ray tasks (``runner.executors.ray``). Either way the driver alone writes the run store
and the output folder, so resuming, caching and byte-identical outputs hold for both.
"""
