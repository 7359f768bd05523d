"""Program-writing neuro-symbolic backends (``viper:``, ``visprog:``) and their sandbox.

This package stays light: torch and transformers are imported only when a detector or depth
model is loaded, RestrictedPython only by the sandbox worker.
"""

from whatifbench.models.program import viper, visprog  # noqa: F401  (register the backends)
