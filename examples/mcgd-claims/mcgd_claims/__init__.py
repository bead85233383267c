"""mcgd-claims: an example of a user's claim package for mcsa-verify.

One claim, ``mcgd_average_bias``: the bias of the time average of f along a finite Markov
chain started at x is at most ``2 max|f| / (n (1 - delta))``, delta being Dobrushin's
contraction coefficient (Levin & Peres, *Markov Chains and Mixing Times*, 2nd ed., 2017,
§4.4).  Three modules:

``formulas``  the bound as sympy formulas (entry point ``mcsa_verify.bounds``);
``checks``    its verification and search space (entry point ``mcsa_verify.claims``);
``chains``    the exact finite-chain computations both use.

Importing the package imports nothing heavy; mcsa-verify imports the two entry points.
"""

__version__ = "0.1.0"
