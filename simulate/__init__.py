"""Simulate the MCSA schemes and the exact kernels the bounds are held against.

mcsa-verify simulators: Gaussian targets with known w*, the four MCSA schemes (MSC,
MSC-RB, JSA, pMCSA), exact finite-state and weight-line kernels, and sweeps.

Docstrings cite the documents by number: 001 is Kim et al., "Markov Chain Score Ascent"
(NeurIPS 2022); 003 the CIS-as-IMH draft; 002 El hanchi (2018); see docs/references.md.
"""

#: public names imported lazily (``import simulate`` stays light): the schemes, their cost counters
#: and the seeded random streams
PUBLIC = {"Scheme": "schemes", "SCHEMES": "schemes", "COUNT_KEYS": "schemes",
          "kl_inclusive_meanfield": "schemes",
          "Streams": "rng"}


def __getattr__(name):
    """``from simulate import Scheme, Streams`` (PEP 562: the module is imported on first use)."""
    if name in PUBLIC:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
