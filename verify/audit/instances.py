"""Steps checked on exact instances.

:func:`instance_check` and :func:`first_failing` decide a relation on rows
``(params, lhs, rhs)``; :func:`searchable` marks the instances that the search
(:mod:`verify.audit.search`) may replace with drawn ones.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from . import adversary
from .adversary import oriented_ratio, row_score
from .outcome import EXACT, LOOSE, VALID, WRONG, Outcome


def _bad(a: float, b: float, relation: str, tol: float, magnitude: float = 1.0) -> bool:
    """Whether ``a RELATION b`` fails beyond ``tol`` relative to max(1, |a|, |b|, magnitude)."""
    scale = tol * max(1.0, abs(a), abs(b), abs(magnitude))
    if relation == "=":
        return abs(a - b) > scale
    if relation == "<=":
        return a > b + scale
    if relation == ">=":
        return a < b - scale
    if relation == "<":  # strictness must be resolved beyond the numerical error
        return a >= b - scale
    return a <= b + scale


def searchable(kind: str, fixed: list) -> list:
    """Return the instances a step is checked on, and mark the step as searched.

    Normally ``fixed``; while the engine searches, one drawn instance of the same kind
    (Hypothesis draws, :data:`verify.audit.search.STRATEGIES`, then the optimiser,
    :data:`verify.audit.adversary.KINDS`).

    Parameters
    ----------
    kind : str
        The kind of instance: ``"pairs"`` (finite pi, q), ``"discrete"``, ``"products"``,
        ``"spd"``, or a kind a document registers (``register_kind``).
    fixed : list
        The instances of an ordinary run, the documented one first.

    Returns
    -------
    list
        The instances to check.
    """
    return adversary.searchable(kind, fixed)


def finite_pairs(fixed: list) -> list:
    """Return finite (pi, q) pairs to check a step on: ``searchable("pairs", fixed)``."""
    return searchable("pairs", fixed)


def instance_check(rows: Sequence | Callable[[], Sequence], relation: str, tol: float = 1e-10,
                   printed: str | None = None, describe: str = "",
                   complete: bool = False) -> Outcome:
    """Decide ``lhs RELATION rhs`` on exact instances: it must hold on every row.

    Steps whose instances come from :func:`searchable` or :func:`verify.audit.adversary.free`
    are also searched (:func:`verify.audit.search.searched_run`); the outcome carries the row
    that came closest to failing.

    Parameters
    ----------
    rows : sequence or callable
        ``[(params, lhs, rhs)]``, or ``(params, lhs, rhs, scale)`` where a residual is relative
        to ``scale``; or a function returning them.
    relation : str
        ``"="``, ``"<="``, ``"<"``, ``">="`` or ``">"``.
    tol : float
        Relative tolerance: a residual counts relative to ``max(1, abs(lhs), abs(rhs), scale)``.
    printed : str, optional
        The relation as printed (default ``relation``): a printed ``"="`` that only holds as
        ``relation`` on the rows, with a strict gap somewhere, is ``loose``.
    describe : str
        What the rows are, for the detail line.
    complete : bool
        The rows exhaust a finite class: the status is then a proof.

    Returns
    -------
    Outcome
        ``wrong`` at the row that fails by most, else ``exact``/``valid``/``loose``.
    """
    printed = printed or relation
    rows = list(rows() if callable(rows) else rows)
    worst = None
    gaps = []
    best = (-math.inf, None)  # the largest row score and its row
    top = (None, None)  # the largest oriented ratio among rows above the resolution, and its row
    for row in rows:
        params, a, b = row[:3]
        scale = float(row[3]) if len(row) > 3 else 1.0  # the magnitude a residual is relative to
        a, b = float(a), float(b)
        if (_bad(a, b, relation, tol,
                 scale) and (worst is None or abs(a - b) > abs(worst[1] - worst[2]))):
            worst = (params, a, b, scale)
        gaps.append(abs(a - b))
        res = tol * max(1.0, abs(a), abs(b), abs(scale))
        sc = row_score(a, b, relation, res)
        if sc > best[0] or best[1] is None:
            best = (sc, (params, a, b))
        ratio = oriented_ratio(a, b, relation) if min(abs(a), abs(b)) > 1e4 * res else None
        if ratio is not None and (top[0] is None or ratio > top[0]):
            top = (ratio, (params, a, b))
    best = (best[0], top[1] if top[1] is not None else best[1], top[0])
    if worst is not None:
        p, a, b, scale = worst
        ce = {"at": p, "lhs": a, "rhs": b}
        if scale != 1.0:
            ce["scale"] = scale
        return Outcome(
            WRONG, f"fails on an exact instance{': ' + describe if describe else ''} (lhs {a:.6g}, "
                   f"rhs {b:.6g})",
            counterexample=ce, method="instances", instances=len(rows),
            established_by="counterexample")
    closest = ({"at": best[1][0], "lhs": best[1][1],
                "rhs": best[1][2]} if best[1] is not None else None)
    if printed == "=" and relation != "=" and max(gaps, default=0) > tol:
        return Outcome(LOOSE, f"only '{relation}' holds on {len(rows)} exact instances; largest "
                              f"gap |lhs - rhs| {max(gaps):.4g}",
                       gap=f"{max(gaps):.4g}", method="instances", instances=len(rows),
                       score=best[0],
                       best_ratio=best[2], closest=closest)
    status = EXACT if relation == "=" else VALID
    return Outcome(
        status, f"holds on {len(rows)} exact instances{' (' + describe + ')' if describe else ''}"
                           f"{' (a complete finite class)' if complete else ''}",
        method="instances", instances=len(rows),
        established_by="proof" if complete else "",
        score=best[0], best_ratio=best[2], closest=closest)


def first_failing(rows, relation, tol, describe="", printed=None, why="", correction=None):
    """Decide a relation on rows like :func:`instance_check`, showing the first failing row.

    Rows are ordered so that the documented instance comes first; the counterexample shown is
    the first row that fails, and the detail says how many fail.

    Parameters
    ----------
    rows : iterable
        ``(params, lhs, rhs)`` rows, as for :func:`instance_check`.
    relation, tol, describe, printed
        As for :func:`instance_check`.
    why, correction : optional
        Given to a ``wrong`` outcome by :func:`explain`.

    Returns
    -------
    Outcome
        The outcome; ``why`` and ``correction`` apply only when it is ``wrong``.
    """
    rows = list(rows)
    o = instance_check(rows, relation, tol, printed=printed, describe=describe)
    if o.status != WRONG:
        return o
    bad = [r for r in rows if instance_check([r], relation, tol).status == WRONG]
    one = instance_check(bad[:1], relation, tol, describe=describe)
    one.detail += f"; {len(bad)} of {len(rows)} rows fail"
    one.instances = len(rows)
    return explain(one, why=why, correction=correction)


def explain(o: Outcome, why="", correction=None, status=WRONG) -> Outcome:
    """Give an outcome of ``status`` the reason its printed step fails and the correction.

    Parameters
    ----------
    o : Outcome
        A check's outcome; returned unchanged unless its status is ``status``.
    why : str or callable
        The reason, ending with its own separator (e.g. ``": "``); put before the detail.  A
        function of the outcome may name its counterexample.
    correction : str or callable, optional
        The corrected relation, or a function of the outcome giving it; ``None`` keeps the
        outcome's own.
    status : StepStatus or str
        The status the reason explains: ``wrong``, or ``loose`` for a printed '=' that holds
        only as an inequality.

    Returns
    -------
    Outcome
        ``o`` itself.
    """
    if o.status == status:
        o.detail = (why(o) if callable(why) else why) + o.detail
        if correction is not None:
            o.correction = correction(o) if callable(correction) else correction
    return o
