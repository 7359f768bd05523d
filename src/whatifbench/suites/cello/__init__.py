"""CELLO: suite, builder (scene graphs → dataset), release importer and exporter."""
