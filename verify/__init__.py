"""mcsa-verify verifier: holds every bound of :mod:`bounds` against :mod:`simulate`.

``python -m verify list`` shows the coverage table; ``python -m verify CLAIM`` runs one
claim's checks; see :mod:`verify.core` for how verdicts are decided.

Docstrings cite the documents by number: 001 is Kim et al., "Markov Chain Score Ascent"
(NeurIPS 2022); 003 the CIS-as-IMH draft; 002 El hanchi (2018); see docs/references.md
(:mod:`bounds.references` turns the numbers into citations for everything a user sees).
"""
