"""A. El hanchi, "Stochastic gradient MCMC algorithms and their applications" (report, 2018):
the VAR(1) analysis of SGFS (stationary covariance, exact-process noise, admissible k,
convergence rate, autocovariance, the noise bounds (13), (15)-(16), criterion (17)), the
recipe of §2.1, the mixed models of §3.3 and the Conclusion.

``checks`` the verifications, readings and search spaces; ``proofs`` (with ``proofs_text``,
``proofs_lmm``, ``proofs_conclusion``) the proof audit; ``_kit`` its instance kinds and rounding
scales.  The formulas are in :mod:`bounds.sgmcmc`.
"""


def register(registry) -> None:
    """The plugin hook (entry point ``mcsa_verify.claims``:
    ``elhanchi2018 = "verify.documents.elhanchi2018:register"``);
    the submodules register this document's claims, search spaces and proof steps, in this order."""
    registry.include(".checks", ".proofs", ".proofs_conclusion", ".proofs_lmm", ".proofs_text")
