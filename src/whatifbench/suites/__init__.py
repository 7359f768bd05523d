"""One package per benchmark; each registers its suite, generators, importers and exporters."""
