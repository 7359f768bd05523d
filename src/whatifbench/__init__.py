"""whatifbench: build, run and analyse counterfactual and causal reasoning benchmarks for VLMs."""

__version__ = "0.1.0"
