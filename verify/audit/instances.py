"""Steps checked on exact instances.

:func:`instance_check` and :func:`first_failing` decide a relation on rows
``(params, lhs, rhs)`` or ``(params, lhs, rhs, scale)``; :func:`searchable` marks the instances
that the search (:mod:`verify.audit.search`) may replace with drawn ones.

Each side of a row is an **enclosure** (:class:`bounds.enclosure.Enclosure`), never a value
compared within a tolerance:

* an ``int``, a :class:`fractions.Fraction` or a python-flint ``fmpq``/``fmpz`` is exact;
* an :class:`~bounds.enclosure.Enclosure`, a python-flint ``arb`` or an mpmath ``mpf`` is taken
  as it is (an ``mpf`` with its working precision, widened like a double below);
* a double ``v`` is enclosed in ``[v - e, v + e]`` (plus 4 ulps of ``v``) with the proved error
  bound ``e = tol * max(|v|, scale)``: ``tol`` is the step's relative error bound of its float
  computation and ``scale`` the magnitude of the terms it cancelled (a row's 4th element, 0 when
  not given: a value computed without cancellation carries an error relative to itself).  There
  is no absolute floor: a row at 1e-200 is judged as carefully as one at 0.5.

A row is decided by :func:`bounds.enclosure.relation_verdict`: the step is ``wrong`` only when
the enclosures prove the relation false on some row (``lo(lhs) > hi(rhs)`` for ``<=``).  A row
they cannot decide is recomputed by the check's ``refine`` (exactly, or at 64, 256 and 1024
bits) when it has one, and otherwise, or at the cap, counted as **undecided** and named in the
detail: it never makes a step wrong, and an ``=`` with such rows is *not refuted*, not proved
(``established_by`` says ``not refuted``).  Equal exact sides (rationals) establish an ``=`` row
exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Sequence

from bounds.enclosure import PRECISIONS, Enclosure, relation_verdict

from . import adversary
from .adversary import oriented_ratio, row_score
from .outcome import EXACT, LOOSE, VALID, WRONG, Outcome


def enclose(v, tol: float = 0.0, scale: float = 0.0) -> Enclosure:
    """Enclose one side of a row (see the module docstring).

    Parameters
    ----------
    v : number or Enclosure
        The side: exact (int, Fraction, fmpq, fmpz), an enclosure (Enclosure, arb), or a
        double / mpf computed with relative error at most ``tol`` of ``max(|v|, scale)``.
    tol : float
        The proved relative error bound of a computed (float or mpf) side.
    scale : float
        The magnitude of the terms cancelled in computing the side (0: no cancellation).

    Returns
    -------
    Enclosure
    """
    if isinstance(v, Enclosure):
        return v
    if isinstance(v, bool):
        raise TypeError("a row's side is a number, not a bool")
    if isinstance(v, (int, Fraction)):
        return Enclosure.point(v)
    mod = type(v).__module__.split(".")[0]
    if mod == "flint":
        name = type(v).__name__
        if name in ("fmpq", "fmpz"):
            return Enclosure.point(Fraction(int(v.p), int(v.q)) if name == "fmpq" else int(v))
        if name == "arb":
            return Enclosure.from_arb(v)
    if mod == "numpy" and hasattr(v, "dtype") and v.dtype.kind in "iu":
        return Enclosure.point(int(v))
    if mod == "mpmath" and hasattr(v, "_mpf_"):
        e = Enclosure.from_mpf(v)
        err = tol * max(abs(float(v)), abs(float(scale)))
        return e.widen(math.nextafter(err, math.inf)) if err else e
    x = float(v)
    if not math.isfinite(x):
        return Enclosure.f64(x)
    err = tol * max(abs(x), abs(float(scale)))
    # [x - err, x + err] widened by 4 ulps of x (the value's own rounding, relative to it) and 2
    # ulps of err (err is itself computed in doubles); the pad also covers the rounding of the two
    # operations, each at most half an ulp of a result no larger than 2 max(|x|, err) + pad
    pad = 4 * math.ulp(x) + 2 * math.ulp(err) if x or err else 4 * math.ulp(0.0)
    return Enclosure(x - err - pad, x + err + pad, "float64")


def _num(e: Enclosure) -> float:
    """Show a side as a double: its midpoint (exact sides exactly, as far as a double can)."""
    if type(e.lo) is float and type(e.hi) is float and e.lo == e.hi:
        return e.lo
    return e.mid


def _decide_row(row, relation, tol, refine):
    """Decide one row on its enclosures.

    Returns ``(verdict, lhs, rhs, how)``: the verdict (``"holds"``, ``"violated"`` or None), the
    enclosures it was reached on, and how (``"exact"``, ``"float64"``, ``"arb-<bits>"``, or
    ``"undecided"``).
    """
    params, a, b = row[:3]
    scale = row[3] if len(row) > 3 and row[3] is not None else 0.0
    own = row[4] if len(row) > 4 else None  # the row's own refine(bits)
    L, R = enclose(a, tol, scale), enclose(b, tol, scale)
    v = relation_verdict(L, R, relation)
    if v is None and (own is not None or refine is not None):
        for bits in PRECISIONS:
            ra, rb = own(bits) if own is not None else refine(params, bits)
            L2, R2 = enclose(ra), enclose(rb)
            v = relation_verdict(L2, R2, relation)
            exact = L2.is_point and R2.is_point
            if v is not None or exact:
                L, R = L2, R2
                break
    if v is None:
        return None, L, R, "undecided"
    how = "exact" if L.is_point and R.is_point and L.how == R.how == "exact" else (
        L.how if L.how != "exact" else R.how)
    return v, L, R, how


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
                   complete: bool = False, refine: Callable | None = None,
                   estimated: bool = False) -> Outcome:
    """Decide ``lhs RELATION rhs`` on exact instances: it must hold on every row.

    Each side is enclosed (:func:`enclose`) and each row decided on the enclosures; the step is
    ``wrong`` only at a row whose enclosures prove the relation false.  Steps whose instances come
    from :func:`searchable` or :func:`verify.audit.adversary.free` are also searched
    (:func:`verify.audit.search.searched_run`); the outcome carries the row that came closest to
    failing.

    Parameters
    ----------
    rows : sequence or callable
        ``[(params, lhs, rhs)]``, or ``(params, lhs, rhs, scale)`` where a side was computed with
        cancellation of terms of magnitude ``scale``, or ``(params, lhs, rhs, scale, again)``
        where ``again(bits) -> (lhs, rhs)`` recomputes the row exactly or in ball arithmetic at
        ``bits`` (used only when the doubles' enclosures cannot decide it); or a function
        returning them.  A side is a double, an exact number (int, Fraction, fmpq) or an
        enclosure (Enclosure, arb).
    relation : str
        ``"="``, ``"<="``, ``"<"``, ``">="`` or ``">"``.
    tol : float
        The proved relative error bound of a double side: its error is at most
        ``tol * max(|side|, scale)`` (no absolute floor).  Exact sides ignore it.
    printed : str, optional
        The relation as printed (default ``relation``): a printed ``"="`` that only holds as
        ``relation`` on the rows, with a strict gap (proved on the enclosures) somewhere, is
        ``loose``.
    describe : str
        What the rows are, for the detail line.
    complete : bool
        The rows exhaust a finite class: the status is then a proof (when every row is decided).
    refine : callable, optional
        ``refine(params, bits) -> (lhs, rhs)``: a row recomputed exactly (Fractions, fmpq) or in
        ball arithmetic at ``bits``, for the rows the double enclosures cannot decide.
    estimated : bool
        The rows' error bounds (``tol``, ``scale``) are *estimates*, not proofs (a finite
        difference's extrapolation error, a first-order condition-number bound): their
        enclosures can hold a step, never refute it -- a row outside them (not refined) is
        counted as undecided, "beyond the estimated error", and named in the detail.

    Returns
    -------
    Outcome
        ``wrong`` at the row that fails by most, else ``exact``/``valid``/``loose``; the rows by
        how they were settled in ``settled_by``, the undecided ones counted in ``undecided``.
    """
    printed = printed or relation
    rows = list(rows() if callable(rows) else rows)
    worst: tuple | None = None  # (score, params, L, R, scale) of the row that fails by most
    settled: dict = {}
    undecided = []
    beyond = []  # rows outside their *estimated* error bounds (``estimated``)
    strict_gap = []  # |lhs - rhs| of the rows whose sides differ provably (a printed '=')
    best: tuple = (-math.inf, None)  # the largest row score and its row
    # the largest oriented ratio among the decided rows, and its row
    top: tuple[float | None, tuple | None] = (None, None)
    for row in rows:
        params = row[0]
        scale = row[3] if len(row) > 3 and row[3] is not None else 0.0
        v, L, R, how = _decide_row(row, relation, tol, refine)
        if estimated and v == "violated" and how == "float64":
            v, how = None, "undecided"  # beyond an estimated error: not a proof of a violation
            beyond.append(params)
        settled[how] = settled.get(how, 0) + 1
        a, b = _num(L), _num(R)
        if type(L.lo) is float and type(R.lo) is float and type(L.hi) is float \
                and type(R.hi) is float and math.isfinite(a) and math.isfinite(b) \
                and (a == 0 or abs(a) > 1e-290) and (b == 0 or abs(b) > 1e-290):
            L_, R_ = a, b  # the fast path: the midpoints as doubles carry the scores exactly enough
        else:
            L_, R_ = L, R
        if v == "violated":
            raw = row_score(L_, R_, relation, "holds")
            if worst is None or raw > worst[0]:
                worst = (raw, params, a, b, scale)
            continue
        if v is None:
            undecided.append((params, a, b))
        if printed == "=" and relation != "=" and relation_verdict(L, R, "=") == "violated":
            strict_gap.append(abs(a - b))
        sc = row_score(L_, R_, relation, v)
        if sc > best[0] or best[1] is None:
            best = (sc, (params, a, b))
        ratio = oriented_ratio(L_, R_, relation) if v == "holds" else None
        if ratio is not None and (top[0] is None or ratio > top[0]):
            top = (ratio, (params, a, b))
    best = (best[0], top[1] if top[1] is not None else best[1], top[0])
    common: dict[str, Any] = dict(method="instances", instances=len(rows), settled_by=settled,
                  undecided=len(undecided))
    if worst is not None:
        _, p, a, b, scale = worst
        ce = {"at": p, "lhs": a, "rhs": b}
        if scale:
            ce["scale"] = float(scale)
        return Outcome(
            WRONG, f"fails on an exact instance{': ' + describe if describe else ''} (lhs {a:.6g}, "
                   f"rhs {b:.6g}; the enclosures exclude the relation)",
            counterexample=ce, established_by="counterexample", **common)
    closest = ({"at": best[1][0], "lhs": best[1][1],
                "rhs": best[1][2]} if best[1] is not None else None)
    und = _undecided_text(undecided, len(rows))
    if beyond:
        und += (f"; {len(beyond)} of them beyond the estimated error bound (an estimate, not a "
                f"proof: first at {beyond[0]})")
    if strict_gap:
        return Outcome(LOOSE, f"only '{relation}' holds on {len(rows)} exact instances; largest "
                              f"gap |lhs - rhs| {max(strict_gap):.4g}{und}",
                       gap=f"{max(strict_gap):.4g}", score=best[0],
                       best_ratio=best[2], closest=closest, **common)
    status = EXACT if relation == "=" else VALID
    if complete:
        by = "not refuted" if undecided else "proof"
    else:
        by = ""
    lead = "not refuted: " if status == EXACT and undecided else ""
    return Outcome(
        status, f"{lead}holds on {len(rows)} exact instances"
                f"{' (' + describe + ')' if describe else ''}"
                f"{' (a complete finite class)' if complete else ''}{und}",
        established_by=by, score=best[0], best_ratio=best[2], closest=closest, **common)


def _undecided_text(undecided, n) -> str:
    """Name the rows the enclosures could not decide, for the detail (empty when none)."""
    if not undecided:
        return ""
    p, a, b = undecided[0]
    at = f" at {p}" if p not in (None, {}, "") else ""
    return (f"; {len(undecided)} of {n} rows undecided on their enclosures (the sides agree "
            f"within their proved error; first{at}: lhs {a:.6g}, rhs {b:.6g}) -- not a "
            f"counterexample, and not a proof")


def first_failing(rows, relation, tol, describe="", printed=None, why="", correction=None,
                  refine=None):
    """Decide a relation on rows like :func:`instance_check`, showing the first failing row.

    Rows are ordered so that the documented instance comes first; the counterexample shown is
    the first row that fails, and the detail says how many fail.

    Parameters
    ----------
    rows : iterable
        ``(params, lhs, rhs)`` rows, as for :func:`instance_check`.
    relation, tol, describe, printed, refine
        As for :func:`instance_check`.
    why, correction : optional
        Given to a ``wrong`` outcome by :func:`explain`.

    Returns
    -------
    Outcome
        The outcome; ``why`` and ``correction`` apply only when it is ``wrong``.
    """
    rows = list(rows)
    o = instance_check(rows, relation, tol, printed=printed, describe=describe, refine=refine)
    if o.status != WRONG:
        return o
    bad = [r for r in rows if instance_check([r], relation, tol, refine=refine).status == WRONG]
    one = instance_check(bad[:1], relation, tol, describe=describe, refine=refine)
    one.detail += f"; {len(bad)} of {len(rows)} rows fail"
    one.instances = len(rows)
    one.settled_by, one.undecided = o.settled_by, o.undecided
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
