"""Symbolic steps.

:func:`sym_equal` and :func:`sym_le` decide a printed relation between two sympy expressions:
by proof where sympy can, else by a Hypothesis search at 50 digits and the adversarial search
over the step's domain.  The search steers by the log-ratio of the two sides at 50 digits (no
absolute floor: a relation between numbers of 1e-200 is searched like one between numbers of
0.5); a point where the 50-digit values break the relation is a counterexample only when ball
arithmetic (:func:`bounds.enclosure.enclose_expr`, 64 bits and up to :data:`CONFIRM_BITS` plus
the bits the inputs' magnitudes span) proves it: the enclosures of the two sides are disjoint
(``=``) or ``lo(lhs) > hi(rhs)`` (``<=``).  A point they cannot decide is counted as undecided
and never makes a step wrong; an equality that sympy does not prove is *not refuted*, not
proved (``established_by``).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import sympy as sp

from ..searching.hypothesis_tools import hypothesis_without_local_constants
from . import adversary
from .adversary import Real, free
from .outcome import EXACT, LOOSE, VALID, WRONG, Outcome
from .search import _CONTEXT, SYM_BUDGET, _attach_search

#: Hypothesis examples that also test a relation sympy has proved (a guard against
#: assumptions on the symbols that the domain does not satisfy)
PROOF_EXAMPLES = 30


def _hyp_points(syms, domain, default, n, score):
    """Search points of ``domain`` with Hypothesis (derandomized, shrinking).

    ``domain`` holds callables drawing each symbol from a Random instance that Hypothesis
    controls.  ``score(pt)`` returns ``(value, bad)``; the search steers towards large values
    and stops at (and shrinks) the first bad point (``bad`` True: proved in ball arithmetic);
    ``bad == "undecided"`` is counted.  Returns ``(worst value, its point, points tried, bad
    point, undecided points)``.
    """
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st, target

    best: dict[str, Any] = {"v": None, "pt": None}
    bad, count, undecided = [], [0], [0]

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
        if is_bad == "undecided":
            undecided[0] += 1
        elif is_bad:
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
    return best["v"], best["pt"], count[0], (bad[-1] if bad else None), undecided[0]


#: the working precisions (bits) at which a point the 50-digit search flags is decided in ball
#: arithmetic, each raised by the bits the inputs' magnitudes span (a sum of terms 10^200 apart
#: needs 665 more bits to cancel exactly); undecided at the last: counted, never a finding
CONFIRM_BITS = (64, 256, 1024)


def _extra_bits(values) -> int:
    """Count the bits the magnitudes of the point's coordinates span.

    0 for a point of moderate numbers; capped so that a confirmation costs at most a few
    thousand bits.
    """
    mags = [int(mpmath.mag(mpmath.mpf(v))) for v in values
            if v is not None and mpmath.mpf(v) != 0]
    if not mags:
        return 0
    return int(min(12000, (max(mags) - min(mags)) + 2 * max(abs(m) for m in mags)))


def _rigorous(lhs, rhs, pt: dict, relation: str) -> str | None:
    """Decide ``lhs RELATION rhs`` at the point ``pt`` ({Symbol: value}) in ball arithmetic.

    Returns ``"holds"``, ``"violated"`` or None (undecided at the cap, or a formula without a
    rigorous evaluation).
    """
    from bounds.enclosure import UnsupportedExpression, enclose_expr, relation_verdict

    vals = {str(k): v for k, v in pt.items()}
    extra = _extra_bits(pt.values())
    for bits in CONFIRM_BITS:
        try:
            L = enclose_expr(lhs, vals, bits + extra)
            R = enclose_expr(rhs, vals, bits + extra)
        except (UnsupportedExpression, ZeroDivisionError, ValueError):
            return None
        v = relation_verdict(L, R, relation)
        if v is not None:
            return v
    return None


def _mp_score(a, b, relation: str) -> float:
    """Score how close ``a RELATION b`` (50-digit values) comes to failing.

    > 0 when the sides are in the wrong order: ln(lhs/rhs) when both are positive (any
    magnitude), else (lhs - rhs) / max(|lhs|, |rhs|); for '=' the larger of both orientations.
    """
    if relation == "=":
        return max(_mp_score(a, b, "<="), _mp_score(b, a, "<="))
    lhs, rhs = (b, a) if relation in (">=", ">") else (a, b)
    if lhs > 0 and rhs > 0:
        return float(mpmath.log(lhs / rhs))
    if lhs == rhs:
        return 0.0
    return float((lhs - rhs) / max(abs(lhs), abs(rhs)))


def _mp_ratio(a, b, relation: str) -> float | None:
    """lhs/rhs oriented so that > 1 breaks the relation (None unless both sides are positive)."""
    if relation == "=":
        r1, r2 = _mp_ratio(a, b, "<="), _mp_ratio(b, a, "<=")
        return None if r1 is None or r2 is None else max(r1, r2)  # (both None, or neither)
    lhs, rhs = (b, a) if relation in (">=", ">") else (a, b)
    if not (lhs > 0 and rhs > 0):
        return None
    r = lhs / rhs
    return float(r) if r < mpmath.mpf(1e300) else math.inf


def _flagged(a, b, relation: str) -> bool:
    """Tell whether the 50-digit values look like a violation worth deciding rigorously.

    For '<=' the sides in the wrong order; for '=' a relative discrepancy beyond what 50 digits
    of arithmetic leave (1e-40; an equality is never *proved* by numbers, only refuted).
    """
    if relation == "=":
        return a != b and abs(a - b) > mpmath.mpf(10) ** -40 * max(abs(a), abs(b))
    lhs, rhs = (b, a) if relation in (">=", ">") else (a, b)
    return lhs > rhs


def _sym_search(syms, domain, default_box, evaluate, relation, exprs: tuple[Any, Any]):
    """Search a symbolic relation adversarially: ``evaluate(point) -> (lhs, rhs)`` at 50 digits.

    The search runs over the boxes of the symbols (``domain`` entries as :class:`Real` or
    :class:`Int`, or legacy draw functions whose box is inferred; ``default_box`` for the
    others).  ``exprs`` = (lhs, rhs) as sympy expressions, for the rigorous decision of a
    flagged point (:func:`_rigorous`).
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
        with mpmath.workdps(50):
            sc = _mp_score(a, b, relation)
            ratio = _mp_ratio(a, b, relation)
        bad: bool | str = False
        if _flagged(a, b, relation):
            v = _rigorous(*exprs, pt, relation)
            bad = True if v == "violated" else "undecided" if v is None else False
            if bad == "undecided":
                sc = min(sc, 0.0)
        row = ({str(k): float(v) for k, v in pt.items()}, float(a), float(b))
        return sc, (ratio if not bad else None), row, bad

    budget = _CONTEXT["budget"] or SYM_BUDGET
    res = adversary.search(probe, variables, budget, _CONTEXT["key"] or "sym", score_of)
    return res, boxes


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


def _at(pt) -> dict:
    return {str(k): float(v) for k, v in pt.items()}


def sym_equal(lhs: sp.Expr, rhs: sp.Expr, symbols=None, domain=None, n: int = 200, seed: int = 0,
              rel_tol: float | None = None) -> Outcome:
    """Decide ``lhs = rhs`` between two sympy expressions.

    sympy simplifies lhs - rhs: 0 is a proof (then also tested at :data:`PROOF_EXAMPLES`
    points).  Otherwise a Hypothesis search over ``n`` points at 50 digits looks for the worst
    relative discrepancy, then the adversarial search over the domain's boxes; a point is a
    counterexample when ball arithmetic proves the sides differ there (:func:`_rigorous`).  An
    equality that survives is *not refuted* (``established_by``), not proved.  Derandomized.

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
    rel_tol : None
        Kept for the call sites and ignored: a discrepancy is decided in ball arithmetic, not
        against a tolerance.

    Returns
    -------
    Outcome
        ``exact`` (by proof, or not refuted) or ``wrong`` with the point found.
    """
    diff = sp.simplify(sp.expand(lhs - rhs))
    syms = sorted(lhs.free_symbols | rhs.free_symbols,
                  key=lambda s: s.name) if symbols is None else list(symbols)
    fl = sp.lambdify(syms, lhs, "mpmath")
    fr = sp.lambdify(syms, rhs, "mpmath")

    def score(pt):
        a, b = fl(*[pt[s] for s in syms]), fr(*[pt[s] for s in syms])
        d = mpmath.mpf(0) if a == b else abs(a - b) / max(abs(a), abs(b))
        if not _flagged(a, b, "="):
            return d, False
        v = _rigorous(lhs, rhs, pt, "=")
        return d, (True if v == "violated" else "undecided" if v is None else False)

    default = lambda rng: mpmath.mpf(rng.uniform(0.1, 5))  # noqa: E731
    proved = diff == 0
    worst, at, count, bad, und = _hyp_points(syms, domain, default,
                                             PROOF_EXAMPLES if proved else n, score)
    if bad is not None:
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
        simplified = " (although sympy simplified the difference to 0)" if proved else ""
        return Outcome(
            WRONG, f"differs{simplified}: relative discrepancy "
                   f"{float(abs(a - b) / max(abs(a), abs(b))):.3g} at a point Hypothesis found and "
                   f"shrank (the sides' enclosures in ball arithmetic are disjoint)",
            counterexample={"at": _at(bad), "lhs": float(a), "rhs": float(b)},
            method="hypothesis", instances=count, established_by="counterexample")
    if proved:
        return Outcome(
            EXACT, f"sympy simplifies the difference to 0; equal at {count} Hypothesis points to "
                   f"50 digits",
            method="symbolic+hypothesis", instances=count, established_by="proof")
    if not syms:
        v = _rigorous(lhs, rhs, {}, "=")
        if v == "violated":
            with mpmath.workdps(50):
                a, b = fl(), fr()
            return Outcome(WRONG, f"differs: {float(a):.17g} vs {float(b):.17g} (disjoint "
                                  f"enclosures in ball arithmetic)",
                           counterexample={"at": {}, "lhs": float(a), "rhs": float(b)},
                           method="numeric", instances=1, established_by="counterexample")
        if v == "holds":
            return Outcome(EXACT, "both sides are the same exact number (no free symbol)",
                           method="numeric", instances=1, established_by="proof")
        return Outcome(
            EXACT, f"not refuted: the sides agree to {CONFIRM_BITS[-1]} bits in ball arithmetic "
                   f"(no free symbol; sympy left {sp.sstr(diff)[:60]}); not a proof",
            method="numeric", instances=1, established_by="not refuted", undecided=1)
    res, boxes = _sym_search(syms, domain, Real(0.1, 5.0),
                             lambda v: (fl(*[v[s] for s in syms]), fr(*[v[s] for s in syms])), "=",
                             (lhs, rhs))
    if res.found is not None:
        return _search_found(res, boxes, count, lambda a, b: f"differs: relative discrepancy "
                             f"{float(abs(a - b) / max(abs(a), abs(b))):.3g} (disjoint enclosures "
                             f"in ball arithmetic)")
    o = Outcome(
        EXACT, f"not refuted: equal at {count} Hypothesis points to 50 digits (worst relative "
               f"discrepancy {float(worst or 0):.1e}); sympy left {sp.sstr(diff)[:60]}; agreement "
               f"of numbers is not a proof",
        method="hypothesis+search",
        instances=count + res.evaluations, established_by="not refuted",
        undecided=count + res.evaluations)
    return _attach_search(o, res, boxes)


def sym_le(lhs: sp.Expr, rhs: sp.Expr, *, symbols=None, domain=None, n: int = 400, seed: int = 0,
           printed: str = "<=") -> Outcome:
    """Decide ``lhs <= rhs`` between two sympy expressions.

    A proof when sympy decides the sign of rhs - lhs (then also tested at
    :data:`PROOF_EXAMPLES` points); else a Hypothesis search over ``n`` points of ``domain`` at
    50 digits (steered by the log-ratio of the sides, shrinking a violation), then the
    adversarial search over the domain's boxes.  A point is a counterexample when ball arithmetic
    proves ``lo(lhs) > hi(rhs)`` there; a point it cannot decide is counted, never a finding.

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
    proved = bool(d.is_nonnegative)
    fl, fr = sp.lambdify(syms, lhs, "mpmath"), sp.lambdify(syms, rhs, "mpmath")

    def score(pt):
        a, b = fl(*[pt[s] for s in syms]), fr(*[pt[s] for s in syms])
        sc = mpmath.mpf(_mp_score(a, b, "<="))
        if not _flagged(a, b, "<="):
            return sc, False
        v = _rigorous(lhs, rhs, pt, "<=")
        return sc, (True if v == "violated" else "undecided" if v is None else False)

    default = lambda rng: mpmath.mpf(rng.uniform(0.01, 10))  # noqa: E731
    worst, at, count, bad, und = _hyp_points(syms, domain, default,
                                             PROOF_EXAMPLES if proved else n, score)
    if bad is not None:
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
        return Outcome(
            WRONG, f"violated: rhs - lhs = {float(b - a):.4g} (lhs {float(a):.6g}, rhs "
                   f"{float(b):.6g}; lo(lhs) > hi(rhs) in ball arithmetic) at a point Hypothesis "
                   f"found and shrank{' (although sympy proved rhs - lhs >= 0)' if proved else ''}",
            counterexample={"at": _at(bad), "lhs": float(a), "rhs": float(b)},
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
                             (lhs, rhs))
    if res.found is not None:
        return _search_found(res, boxes, count, lambda a,
                             b: f"violated: rhs - lhs = {float(b - a):.4g} (lo(lhs) > hi(rhs) in "
                                f"ball arithmetic)")
    n_und = und + res.undecided
    o = Outcome(
        status, f"no violation in {count} Hypothesis points at 50 digits (largest ln(lhs/rhs) "
                f"{float(worst) if worst is not None else float('nan'):.3g})"
                + (f"; {n_und} points where the sides touch within their enclosures (undecided, "
                   f"not a counterexample)" if n_und else ""),
        gap=None, method="hypothesis+search", instances=count + res.evaluations,
        established_by="search" if status == VALID else "counterexample",
        undecided=n_und or None)
    return _attach_search(o, res, boxes)
