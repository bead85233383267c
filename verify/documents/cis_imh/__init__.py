"""The CIS-as-IMH draft: conditional importance sampling as independent Metropolis-Hastings,
its acceptance ratio and rate bounds, the variance of CIS with N, parallel IMH chains.

``checks`` the verifications, readings and search spaces; ``proofs`` the proof audit.
The formulas are in :mod:`bounds.cis_imh`.
"""

from . import checks, proofs  # noqa: F401  (registers the claims, spaces and steps)
