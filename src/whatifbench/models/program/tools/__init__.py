"""The tools programs call: perception (oracle or detector), VQA, LLM, depth."""
