"""The claims of the three source documents, one package per document (built-in claims).

Each package holds, for its document, every claim's verification (readings, grid,
empirical side, plot), its search space and its proof steps; the formulas are in one
module of :mod:`bounds` per document.  They are registered through the entry-point
group ``mcsa_verify.claims`` (:mod:`verify.registry`), exactly as a user's claims are.

``kim2022``
    Kim, Oh, Gardner, Dieng & Kim, "Markov Chain Score Ascent", NeurIPS 2022.
``cis_imh``
    The CIS-as-IMH draft (an earlier draft section on CIS as independent Metropolis-Hastings).
``elhanchi2018``
    A. El hanchi, "Stochastic gradient MCMC algorithms and their applications" (2018).
"""
