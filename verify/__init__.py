"""mcsa-verify verifier: holds every bound of :mod:`bounds` against :mod:`simulate`.

``python -m verify list`` shows the coverage table; ``python -m verify CLAIM`` runs one
claim's checks; see :mod:`verify.core` for how verdicts are decided.
"""
