"""Items, datasets, cards, hashing and the one registry."""
