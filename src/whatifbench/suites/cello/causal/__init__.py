"""Scene graph → causal graph → templates → rung tasks → questions (CELLO)."""
