"""A. El hanchi, "Stochastic gradient MCMC algorithms and their applications" (report, 2018):
the VAR(1) analysis of SGFS (stationary covariance, exact-process noise, admissible k,
convergence rate, autocovariance, the noise bounds (13), (15)-(16), criterion (17)).

``checks`` the verifications, readings and search spaces; ``proofs`` the proof audit.
The formulas are in :mod:`bounds.sgmcmc`.
"""

from . import checks, proofs  # noqa: F401  (registers the claims, spaces and steps)
