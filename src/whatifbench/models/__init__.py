"""Backends: the interface, built-in reference models and real model backends."""
