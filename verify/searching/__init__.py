"""Adversarial search: the search spaces documents declare, the Hypothesis-driven search for a
counterexample and its helpers. May import verify's model, decide and registry, and the lower
packages.
"""
