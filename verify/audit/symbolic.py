"""Symbolic steps.

:func:`sym_equal` and :func:`sym_le` decide a printed relation between two sympy expressions:
by proof where sympy can, else by a Hypothesis search at 50 digits and the adversarial search
over the step's domain.
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp

from ..hypothesis_tools import hypothesis_without_local_constants
from . import adversary
from .adversary import Real, free, oriented_ratio, row_score
from .outcome import EXACT, LOOSE, VALID, WRONG, Outcome
from .search import _CONTEXT, SYM_BUDGET, _attach_search

#: Hypothesis examples that also test a relation sympy has proved (a guard against
#: assumptions on the symbols that the domain does not satisfy)
PROOF_EXAMPLES = 30


def _hyp_points(syms, domain, default, n, score):
    """Search points of ``domain`` with Hypothesis (derandomized, shrinking).

    ``domain`` holds callables drawing each symbol from a Random instance that Hypothesis
    controls.  ``score(pt)`` returns ``(value, bad)``; the search steers towards large values
    and stops at (and shrinks) the first bad point.  Returns ``(worst value, its point, points
    tried, bad point)``.
    """
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st, target

    best = {"v": None, "pt": None}
    bad, count = [], [0]

    class _Bad(Exception):
        pass

    @settings(max_examples=n, database=None, derandomize=True, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck),
              phases=[Phase.generate, Phase.target, Phase.shrink])
    @given(st.randoms(use_true_random=False))
    def probe(rng):
        count[0] += 1
        pt = {s: (domain[s](rng) if domain and s in domain else default(rng)) for s in syms}
        # 1/N at 50 digits, not float64
        pt = {s: (mpmath.mpf(v) if isinstance(v, int) else v) for s, v in pt.items()}
        with mpmath.workdps(50):
            try:
                v, is_bad = score(pt)
            # a pole of the printed expression: off the domain
            except (ZeroDivisionError, ValueError, TypeError):
                return
        if is_bad:
            bad.append(pt)
            raise _Bad()
        if not mpmath.isfinite(v):
            return  # off the domain (a pole, or both sides overflow): nothing to compare
        target(max(min(float(v), 1e300), -1e300), label="discrepancy")
        if best["v"] is None or v > best["v"]:
            best.update(v=v, pt=pt)

    try:
        with hypothesis_without_local_constants():
            probe()
    except _Bad:
        pass
    return best["v"], best["pt"], count[0], (bad[-1] if bad else None)


#: a symbolic relation evaluated at 50 digits: a violation found by the search counts when its
#: relative margin exceeds this (cancellation at the extremes can eat 30 digits)
SYM_DECISIVE = 1e-20
#: a symbolic violation found at 50 digits is confirmed at CONFIRM_DPS digits plus the span of the
#: inputs' magnitudes (a sum of terms 10^200 apart needs 200 more digits to cancel exactly)
CONFIRM_DPS = 150


def _confirm_dps(values) -> int:
    mags = [int(mpmath.mag(mpmath.mpf(v))) for v in values if v is not None and mpmath.mpf(v) != 0]
    span = (max(mags) - min(mags)) if mags else 0
    return int(min(4000, CONFIRM_DPS + 0.31 * span + 2 * max((abs(m) for m in mags),
                                                             default=0) * 0.31))


def _sym_search(syms, domain, default_box, evaluate, relation, tol_of):
    """Search a symbolic relation adversarially: ``evaluate(point) -> (lhs, rhs)`` at 50 digits.

    The search runs over the boxes of the symbols (``domain`` entries as :class:`Real` or
    :class:`Int`, or legacy draw functions whose box is inferred; ``default_box`` for the
    others).
    """
    boxes = {s: adversary.box_of(domain[s], s.name) if domain and s in domain else default_box
             for s in syms}
    variables = {s.name: ("free", boxes[s]) for s in syms}

    def probe():
        pt = {s: free(s.name, [None], boxes[s])[0] for s in syms}
        with mpmath.workdps(50):
            # an Int's value as mpf: 1/N, N**2/2 stay at 50 digits
            vals = {s: mpmath.mpf(v) for s, v in pt.items()}
            a, b = evaluate(vals)
        return pt, a, b

    def score_of(res):
        pt, a, b = res
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            return -math.inf, None, None, False
        tol = tol_of(a, b)
        fa, fb = float(a), float(b)
        sc = row_score(fa, fb, relation, float(tol)) if abs(a - b) <= 1e300 else -math.inf
        bad = _bad_mp(a, b, relation, tol)
        if bad:  # confirmed at higher precision: cancellation of 50-digit terms is not a violation
            with mpmath.workdps(_confirm_dps(pt.values())):
                vals = {sy: mpmath.mpf(v) for sy, v in pt.items()}
                a2, b2 = evaluate({sy: vals[sy] for sy in syms})
                bad = _bad_mp(a2, b2, relation, tol_of(a2, b2))
        if bad and not adversary.decisive(fa, fb, 0.0, SYM_DECISIVE):
            bad = "unresolved"  # within what 50 digits resolve after cancellation
        ratio = oriented_ratio(fa, fb, relation) if min(abs(fa), abs(fb)) > 1e-25 else None
        return sc, ratio, ({str(k): float(v) for k, v in pt.items()}, fa, fb), bad

    budget = _CONTEXT["budget"] or SYM_BUDGET
    res = adversary.search(probe, variables, budget, _CONTEXT["key"] or "sym", score_of)
    return res, boxes


def _bad_mp(a, b, relation, tol) -> bool:
    if relation == "=":
        return abs(a - b) > tol
    if relation in ("<=", "<"):
        return a - b > tol if relation == "<=" else a >= b - tol
    return b - a > tol if relation == ">=" else b >= a - tol


def _search_found(res, boxes, count: int, what) -> Outcome:
    """Return ``wrong`` at the adversarial search's first counterexample (pt, lhs, rhs).

    ``what(lhs, rhs)`` opens the message; the Hypothesis points ``count`` are added to the
    search's evaluations.
    """
    pt, a, b = res.found[0]
    return _attach_search(Outcome(WRONG, f"{what(a, b)} at a point the adversarial search found",
                                  counterexample={"at": {str(k): float(v) for k, v in pt.items()},
                                                  "lhs": float(a), "rhs": float(b)},
                                  method="search", instances=count + res.evaluations,
                                  established_by="counterexample"), res, boxes)


def sym_equal(lhs: sp.Expr, rhs: sp.Expr, symbols=None, domain=None, n: int = 200, seed: int = 0,
              rel_tol: float = 1e-30) -> Outcome:
    """Decide ``lhs = rhs`` between two sympy expressions.

    sympy simplifies lhs - rhs: 0 is a proof (then also tested at :data:`PROOF_EXAMPLES`
    points).  Otherwise a Hypothesis search over ``n`` points at 50 digits looks for the worst
    relative discrepancy, then the adversarial search over the domain's boxes.  Derandomized.

    Parameters
    ----------
    lhs, rhs : sympy.Expr
        Both sides.
    symbols : sequence of sympy.Symbol, optional
        The free symbols, in order (default: all, by name).
    domain : dict, optional
        ``{symbol: Real(...) or Int(...)}`` (:mod:`verify.audit.adversary`); default
        ``Real(0.1, 5)`` for each symbol.
    n : int
        Hypothesis points when sympy does not decide.
    seed : int
        Kept for the call sites; the searches are derandomized.
    rel_tol : float
        The relative discrepancy that counts as a difference.

    Returns
    -------
    Outcome
        ``exact`` (by proof or by search) or ``wrong`` with the point found.
    """
    diff = sp.simplify(sp.expand(lhs - rhs))
    syms = sorted(lhs.free_symbols | rhs.free_symbols,
                  key=lambda s: s.name) if symbols is None else list(symbols)
    fl = sp.lambdify(syms, lhs, "mpmath")
    fr = sp.lambdify(syms, rhs, "mpmath")

    def discrepancy(pt):
        a, b = fl(*[pt[s] for s in syms]), fr(*[pt[s] for s in syms])
        return abs(a - b) / max(abs(a), abs(b), mpmath.mpf(1e-300))

    def score(pt):
        d = discrepancy(pt)
        # confirmed at higher precision: cancellation of 50-digit terms is not a discrepancy
        if d > rel_tol:
            with mpmath.workdps(_confirm_dps(pt.values())):
                d = discrepancy(pt)
        return d, d > rel_tol

    default = lambda rng: mpmath.mpf(rng.uniform(0.1, 5))  # noqa: E731
    proved = diff == 0
    worst, at, count, bad = _hyp_points(syms, domain, default, PROOF_EXAMPLES if proved else n,
                                        score)
    if bad is not None:
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
        simplified = " (although sympy simplified the difference to 0)" if proved else ""
        return Outcome(
            WRONG, f"differs{simplified}: relative discrepancy "
                   f"{float(abs(a - b) / max(abs(a), abs(b))):.3g} at a point Hypothesis found and "
                   f"shrank",
            counterexample={"at": {str(k): float(v) for k, v in bad.items()},
                            "lhs": float(a),
                            "rhs": float(b)},
            method="hypothesis", instances=count, established_by="counterexample")
    if proved:
        return Outcome(
            EXACT, f"sympy simplifies the difference to 0; equal at {count} Hypothesis points to "
                   f"50 digits",
            method="symbolic+hypothesis", instances=count, established_by="proof")
    if not syms:
        return Outcome(
            EXACT, f"equal to 50 digits (no free symbol; sympy left {sp.sstr(diff)[:60]})",
            method="numeric", instances=1, established_by="proof")
    res, boxes = _sym_search(syms, domain, Real(0.1, 5.0),
                             lambda v: (fl(*[v[s] for s in syms]), fr(*[v[s] for s in syms])), "=",
                             lambda a, b: rel_tol * max(abs(a), abs(b), mpmath.mpf(1e-300)))
    if res.found is not None:
        return _search_found(res, boxes, count, lambda a, b: f"differs: relative discrepancy "
                             f"{float(abs(a - b) / max(abs(a), abs(b))):.3g}")
    o = Outcome(
        EXACT, f"equal at {count} Hypothesis points to 50 digits (worst relative discrepancy "
               f"{float(worst or 0):.1e}); sympy left {sp.sstr(diff)[:60]}",
        method="hypothesis+search",
        instances=count + res.evaluations, established_by="search")
    return _attach_search(o, res, boxes)


def sym_le(lhs: sp.Expr, rhs: sp.Expr, *, symbols=None, domain=None, n: int = 400, seed: int = 0,
           printed: str = "<=") -> Outcome:
    """Decide ``lhs <= rhs`` between two sympy expressions.

    A proof when sympy decides the sign of rhs - lhs (then also tested at
    :data:`PROOF_EXAMPLES` points); else a Hypothesis search over ``n`` points of ``domain`` at
    50 digits (steered to the smallest rhs - lhs, shrinking a violation), then the adversarial
    search over the domain's boxes.

    Parameters
    ----------
    lhs, rhs : sympy.Expr
        Both sides.
    symbols, domain, n, seed
        As for :func:`sym_equal` (default box ``Real(0.01, 10)``).
    printed : str
        The relation as printed: with ``"="``, an equality that holds is ``exact`` and an
        inequality that holds is ``loose``.

    Returns
    -------
    Outcome
        ``valid``, ``loose``, ``exact`` or ``wrong`` with the point found.
    """
    d = sp.simplify(rhs - lhs)
    if printed == "=":
        eq = sym_equal(lhs, rhs, symbols, domain, n=min(n, 200), seed=seed)
        if eq.status == EXACT:
            return eq
    syms = sorted(lhs.free_symbols | rhs.free_symbols,
                  key=lambda s: s.name) if symbols is None else list(symbols)
    f = sp.lambdify(syms, d, "mpmath")
    proved = bool(d.is_nonnegative)

    def score(pt):
        v = f(*[pt[s] for s in syms])
        # confirmed at higher precision (cancellation of 50-digit terms)
        if v < -mpmath.mpf(10) ** -30:
            with mpmath.workdps(_confirm_dps(pt.values())):
                v = f(*[pt[s] for s in syms])
        return -v, v < -mpmath.mpf(10) ** -30

    default = lambda rng: mpmath.mpf(rng.uniform(0.01, 10))  # noqa: E731
    worst, at, count, bad = _hyp_points(syms, domain, default, PROOF_EXAMPLES if proved else n,
                                        score)
    fl, fr = sp.lambdify(syms, lhs, "mpmath"), sp.lambdify(syms, rhs, "mpmath")
    if bad is not None:
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
            v = f(*[bad[s] for s in syms])
        return Outcome(
            WRONG, f"violated: rhs - lhs = {float(v):.4g} at a point Hypothesis found and "
                   f"shrank{' (although sympy proved rhs - lhs >= 0)' if proved else ''}",
            counterexample={"at": {str(k): float(v) for k, v in bad.items()},
                            "lhs": float(a),
                            "rhs": float(b)},
            method="hypothesis", instances=count, established_by="counterexample")
    status = VALID if printed != "=" else LOOSE
    if proved:
        return Outcome(
            status, f"sympy proves rhs - lhs >= 0 on the domain; no violation at {count} "
                    f"Hypothesis points",
            gap=sp.sstr(d), method="symbolic+hypothesis", instances=count,
            established_by="proof")
    res, boxes = _sym_search(syms, domain, Real(0.01, 10.0),
                             lambda v: (fl(*[v[s] for s in syms]), fr(*[v[s] for s in syms])), "<=",
                             lambda a, b: mpmath.mpf(10) ** -30)
    if res.found is not None:
        return _search_found(res, boxes, count, lambda a,
                             b: f"violated: rhs - lhs = {float(b - a):.4g}")
    o = Outcome(
        status, f"no violation in {count} Hypothesis points at 50 digits (min of rhs - lhs = "
                f"{float(-worst) if worst is not None else float('nan'):.3g})",
        gap=None, method="hypothesis+search", instances=count + res.evaluations,
        established_by="search" if status == VALID else "counterexample")
    return _attach_search(o, res, boxes)
