"""Proof-audit engine: each displayed step of a derivation as a checked relation.

A :class:`Step` records the relation printed between the expression before it and the
expression after it (``=``, ``<=``, ``<``, ``>=``), its justification as printed, and a
``check`` that decides one status:

``exact``      the printed relation holds as printed;
``valid``      an inequality that holds;
``loose``      printed as ``=``, but only ``<=`` (or ``>=``) holds — the gap is given;
``wrong``      a counterexample exists — given, with the corrected relation where one exists;
``unchecked``  not decidable here — the reason is given.

How steps are checked
---------------------
* Equalities: sympy simplifies the difference to 0 (``exact``); when simplification is
  inconclusive, both sides are evaluated at many random points at 50 digits with mpmath
  and the worst relative discrepancy is reported.
* Inequalities: proved symbolically where sympy can (e.g. a difference that is a sum of
  non-negative terms on the domain), otherwise searched for a violation with Hypothesis
  over the step's parameter domain, or checked on exact finite-state / Gaussian instances
  where the step is about distributions.
* Definitions used downstream are checked against independent computations (e.g.
  Smith-Tierney's n-step kernel against exact matrix powers).

A step that depends on a ``wrong`` step is marked ``affected``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import sympy as sp

EXACT, VALID, LOOSE, WRONG, UNCHECKED = "exact", "valid", "loose", "wrong", "unchecked"
STATUSES = (EXACT, VALID, LOOSE, WRONG, UNCHECKED)
SEVERITY = {EXACT: 0, VALID: 0, UNCHECKED: 1, LOOSE: 2, WRONG: 3}


@dataclass
class Outcome:
    """What a check found: status, one-line detail, and the evidence."""

    status: str
    detail: str
    counterexample: dict | None = None  # e.g. {"at": {...}, "lhs": x, "rhs": y}
    correction: str | None = None
    gap: str | None = None
    method: str = ""
    instances: int | None = None  # how many instances (points, exact cases, examples) the check survived or tried


@dataclass
class Step:
    """One displayed step: ``lhs RELATION rhs`` with its printed justification."""

    id: str  # unique, e.g. "theorem3.var.6"
    claim: str  # claim or definition it belongs to
    seed: str
    location: str
    relation: str
    lhs: str  # as printed (human-readable)
    rhs: str
    justification: str
    check: Callable[[], Outcome]
    depends: tuple[str, ...] = ()
    expect: str = ""  # the audit's recorded status (tests pin it)
    statement: bool = False  # the claim's final statement
    reading: str = ""  # the reading option (verify.core.Reading.name) the statement is read under; "" = all
    _outcome: Outcome | None = field(default=None, repr=False)

    def run(self) -> Outcome:
        if self._outcome is None:
            self._outcome = self.check()
        return self._outcome


# ----------------------------------------------------------------------------- checkers
def sym_equal(lhs: sp.Expr, rhs: sp.Expr, symbols=None, domain=None, n: int = 200, seed: int = 0,
              rel_tol: float = 1e-30) -> Outcome:
    """Equality: simplify lhs - rhs; if inconclusive, 50-digit evaluation at random points."""
    diff = sp.simplify(sp.expand(lhs - rhs))
    if diff == 0:
        return Outcome(EXACT, "sympy simplifies the difference to 0", method="symbolic")
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name) if symbols is None else list(symbols)
    worst, at = 0.0, None
    rng = random.Random(seed)
    fl = sp.lambdify(syms, lhs, "mpmath")
    fr = sp.lambdify(syms, rhs, "mpmath")
    with mpmath.workdps(50):
        for _ in range(n):
            pt = {s: (domain[s](rng) if domain and s in domain else mpmath.mpf(rng.uniform(0.1, 5))) for s in syms}
            a, b = fl(*[pt[s] for s in syms]), fr(*[pt[s] for s in syms])
            scale = max(abs(a), abs(b), mpmath.mpf(1e-300))
            d = abs(a - b) / scale
            if d > worst:
                worst, at = d, (pt, a, b)
    if worst <= rel_tol:
        return Outcome(EXACT, f"equal at {n} random points to 50 digits (worst relative discrepancy {float(worst):.1e}); "
                              f"sympy left {sp.sstr(diff)[:60]}", method="numeric", instances=n)
    pt, a, b = at
    return Outcome(WRONG, f"differs: worst relative discrepancy {float(worst):.3g}",
                   counterexample={"at": {str(k): float(v) for k, v in pt.items()}, "lhs": float(a), "rhs": float(b)},
                   method="numeric", instances=n)


def sym_le(lhs: sp.Expr, rhs: sp.Expr, assumptions_subs=None, symbols=None, domain=None, n: int = 400,
           seed: int = 0, printed: str = "<=") -> Outcome:
    """Inequality lhs <= rhs: symbolic proof if sympy decides the sign of rhs - lhs, else
    a random search at 50 digits over ``domain`` (callables drawing each symbol)."""
    d = sp.simplify(rhs - lhs)
    if printed == "=":
        eq = sym_equal(lhs, rhs, symbols, domain, n=min(n, 200), seed=seed)
        if eq.status == EXACT:
            return eq
    nonneg = d.is_nonnegative
    if nonneg:
        status = VALID if printed != "=" else LOOSE
        return Outcome(status, "sympy proves rhs - lhs >= 0 on the domain", gap=sp.sstr(d), method="symbolic")
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name) if symbols is None else list(symbols)
    f = sp.lambdify(syms, d, "mpmath")
    rng = random.Random(seed)
    worst, at = mpmath.inf, None
    with mpmath.workdps(50):
        for _ in range(n):
            pt = {s: (domain[s](rng) if domain and s in domain else mpmath.mpf(rng.uniform(0.01, 10))) for s in syms}
            v = f(*[pt[s] for s in syms])
            if v < worst:
                worst, at = v, pt
    if worst < -mpmath.mpf(10) ** -30:
        fl, fr = sp.lambdify(syms, lhs, "mpmath"), sp.lambdify(syms, rhs, "mpmath")
        with mpmath.workdps(50):
            a, b = fl(*[at[s] for s in syms]), fr(*[at[s] for s in syms])
        return Outcome(WRONG, f"violated: rhs - lhs = {float(worst):.4g} at a searched point",
                       counterexample={"at": {str(k): float(v) for k, v in at.items()}, "lhs": float(a), "rhs": float(b)},
                       method="search", instances=n)
    status = VALID if printed != "=" else LOOSE
    return Outcome(status, f"no violation in {n} random points at 50 digits (min of rhs - lhs = {float(worst):.3g})",
                   gap=None, method="search", instances=n)


def instance_check(fn: Callable[[], list], relation: str, tol: float = 1e-10, printed: str | None = None,
                   describe: str = "") -> Outcome:
    """Exact instances: ``fn`` returns [(params, lhs, rhs)]; the relation must hold on all.

    ``printed`` is the relation as printed (defaults to ``relation``): a printed '=' that
    only holds as '<=' on the instances (with a strict gap somewhere) is ``loose``.
    """
    printed = printed or relation
    rows = fn()
    worst = None
    gaps = []
    for params, a, b in rows:
        a, b = float(a), float(b)
        scale = tol * max(1.0, abs(a), abs(b))
        if relation == "=":
            bad = abs(a - b) > scale
        elif relation == "<=":
            bad = a > b + scale
        elif relation == ">=":
            bad = a < b - scale
        elif relation == "<":  # strictness must be resolved beyond the numerical error
            bad = a >= b - scale
        else:
            bad = a <= b + scale
        if bad and (worst is None or abs(a - b) > abs(worst[1] - worst[2])):
            worst = (params, a, b)
        gaps.append(abs(a - b))
    if worst is not None:
        p, a, b = worst
        return Outcome(WRONG, f"fails on an exact instance{': ' + describe if describe else ''} (lhs {a:.6g}, rhs {b:.6g})",
                       counterexample={"at": p, "lhs": a, "rhs": b}, method="instances", instances=len(rows))
    if printed == "=" and relation != "=" and max(gaps, default=0) > tol:
        return Outcome(LOOSE, f"only '{relation}' holds on {len(rows)} exact instances; largest gap {max(gaps):.4g}",
                       gap=f"{max(gaps):.4g}", method="instances", instances=len(rows))
    status = EXACT if relation == "=" else VALID
    return Outcome(status, f"holds on {len(rows)} exact instances{' (' + describe + ')' if describe else ''}",
                   method="instances", instances=len(rows))


def unchecked(reason: str) -> Callable[[], Outcome]:
    return lambda: Outcome(UNCHECKED, reason, method="none")


def fixed(status: str, detail: str, **kw) -> Callable[[], Outcome]:
    """For steps settled by reading alone (a definition, a substitution, a cited result whose
    consequence another step checks): recorded with method 'reading', so the tables show
    which statuses were not computed."""
    kw.setdefault("method", "reading")
    return lambda: Outcome(status, detail, **kw)


STEPS: dict[str, Step] = {}


def step(id, claim, seed, location, relation, lhs, rhs, justification, check, depends=(), expect="",
         statement=False, reading="") -> Step:
    s = Step(id, claim, seed, location, relation, lhs, rhs, justification, check, tuple(depends), expect, statement,
             reading)
    if id in STEPS:
        raise ValueError(f"duplicate step {id}")
    STEPS[id] = s
    return s


def status_with_affected(s: Step) -> tuple[str, bool]:
    """(status, affected): affected if any dependency (transitively) is wrong."""
    seen = set()

    def wrong_upstream(sid):
        for d in STEPS[sid].depends:
            if d in seen:
                continue
            seen.add(d)
            if STEPS[d].run().status == WRONG or wrong_upstream(d):
                return True
        return False

    return s.run().status, wrong_upstream(s.id)
