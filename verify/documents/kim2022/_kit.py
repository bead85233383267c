"""A piece shared by the kim2022 checks: the search spaces of ``python -m verify search`` and the
tightness checks."""

from __future__ import annotations


def pair_space(**params):
    """A dict strategy: a finite pair (pi, q) on 2-4 states under ``"pq"``
    (:func:`verify.searching.search.finite_pair`), then the strategies ``params`` in their order."""
    from hypothesis import strategies as st

    from verify.searching.search import finite_pair

    return st.fixed_dictionaries({"pq": finite_pair(), **params})

