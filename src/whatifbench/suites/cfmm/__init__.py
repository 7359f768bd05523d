"""CFMM ("Eyes Can Deceive"): the paired basic/counterfactual protocol with answer ranking, the
importer for your own CFMM-style files and the exporters back to them."""
