"""The thin command-line interface (``whatif``)."""
