"""Small pieces shared by the kim2022 checks: the search spaces of ``python -m verify search`` and
the tightness checks, and the explanation a failing proof step carries."""

from __future__ import annotations

from verify.audit.outcome import WRONG, Outcome


def pair_space(**params):
    """A dict strategy: a finite pair (pi, q) on 2-4 states under ``"pq"``
    (:func:`verify.search.finite_pair`), then the strategies ``params`` in their order."""
    from hypothesis import strategies as st

    from verify.search import finite_pair

    return st.fixed_dictionaries({"pq": finite_pair(), **params})


def explain(o: Outcome, why: str = "", correction: str | None = None,
            status: str = WRONG) -> Outcome:
    """``o``, given the reason its printed step fails and its correction when its status is
    ``status`` (``loose`` for a printed '=' that holds only as an inequality).

    ``why`` ends with its own separator (e.g. ``": "``) and goes before the detail, as in
    :func:`verify.audit.engine.first_failing`; the correction is kept as computed when ``None``.
    """
    if o.status == status:
        o.detail = why + o.detail
        if correction is not None:
            o.correction = correction
    return o
