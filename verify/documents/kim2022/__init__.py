"""Kim, Oh, Gardner, Dieng & Kim, "Markov Chain Score Ascent: A Unifying Framework of
Variational Inference with Markovian Gradients", NeurIPS 2022.

``lemmas``   Propositions 1-2, Lemmas 1-7, Tables 1-2 (§3-§5, App. A-C).
``theorems`` Theorems 1-4 (§4.1-§5.1, App. D-E): verifications, readings, search spaces.
``figures``  Figures 1-2 (§6.2): the paper's simulations with each theorem's bound.
``proofs``   the proof audit: every displayed step of the appendix proofs (Eqs. (1)-(7),
             Propositions 1-2, Lemmas 1-3, Theorem 1, and the instances and helpers the other
             ``proofs_*`` modules share), continued in ``proofs_theorem2``, ``proofs_lemmas``
             (Lemmas 4-7), ``proofs_theorem3``, ``proofs_theorem4`` and ``proofs_hunt`` (the
             independent hunt's findings outside the proofs).
``statements`` the other checkable sentences, displays, tables and algorithm boxes, as audit steps.

The formulas are in :mod:`bounds.paper` and :mod:`bounds.experiments`.
"""


def register(registry) -> None:
    """The plugin hook (entry point ``mcsa_verify.claims``:
    ``kim2022 = "verify.documents.kim2022:register"``);
    the submodules register this document's claims, search spaces and proof steps, in this order."""
    registry.include(".lemmas", ".theorems", ".figures", ".proofs", ".proofs_theorem2",
                     ".proofs_lemmas", ".proofs_theorem3", ".proofs_theorem4", ".proofs_hunt",
                     ".statements")
