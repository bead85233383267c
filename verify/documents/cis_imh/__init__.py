"""The CIS-as-IMH draft: conditional importance sampling as independent Metropolis-Hastings,
its acceptance ratio and rate bounds, the variance of CIS with N, parallel IMH chains.

``checks`` the verifications, readings and search spaces; ``proofs`` the proof audit (its instances
and exact computations in ``kit``).  The formulas are in :mod:`bounds.cis_imh`.
"""


def register(registry) -> None:
    """The plugin hook (entry point ``mcsa_verify.claims``:
    ``cis_imh = "verify.documents.cis_imh:register"``);
    the submodules register this document's claims, search spaces and proof steps, in this order."""
    registry.include(".checks", ".kit", ".proofs")
