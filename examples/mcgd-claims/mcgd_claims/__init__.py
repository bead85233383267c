"""mcgd-claims: an example of a user's claim package for mcsa-verify.

One claim, ``mcgd_average_bias``: the bias of the time average of f along a finite Markov
chain started at x is at most ``2 max|f| / (n (1 - delta))``, delta being Dobrushin's
contraction coefficient (Levin & Peres, *Markov Chains and Mixing Times*, 2nd ed., 2017,
§4.4).  Four modules:

``formulas``  the bound as sympy formulas (entry point ``mcsa_verify.bounds``);
``checks``    its verification and search space;
``proofs``    the derivation's steps (the package's README, "Derivation"), audited;
``chains``    the exact finite-chain computations they use.

and the data files of a document package, beside them: ``coverage.json`` and
``coverage_sections.json`` (the coverage inventory), ``severity.json`` (errata) and
``references.json`` (the references of the documents it cites, bounds.references).

The entry point ``mcsa_verify.claims`` names :func:`register`; importing the package
imports nothing heavy and registers nothing.
"""

__version__ = "0.1.0"


def register(registry) -> None:
    """The plugin hook mcsa-verify calls once (entry point ``mcgd_claims =
    "mcgd_claims:register"``).
    """
    from . import checks

    registry.add(checks.VERIFICATION)
    registry.search_space(checks.CLAIM, checks.SPACE, checks.search_space)
    registry.include(".proofs")  # its step(...) records: the audited derivation
