"""MuCR: cause/effect image pairs (C2E, E2C, Cue, Exp), release import, judges."""
