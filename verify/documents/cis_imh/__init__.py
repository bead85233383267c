"""The CIS-as-IMH draft: conditional importance sampling as independent Metropolis-Hastings,
its acceptance ratio and rate bounds, the variance of CIS with N, parallel IMH chains.

``checks`` the verifications, readings and search spaces; ``proofs`` the proof audit (its instances
and exact computations in ``kit``).  The formulas are in :mod:`bounds.cis_imh`.
"""

from . import checks, kit, proofs  # noqa: F401  (registers the claims, spaces, instance kinds and steps)
