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
  non-negative terms on the domain), otherwise searched for a violation over the step's
  parameter domain, or checked on exact finite-state / Gaussian instances where the step
  is about distributions.
* Definitions used downstream are checked against independent computations (e.g.
  Smith-Tierney's n-step kernel against exact matrix powers).

Every computed relation that no proof settles is **attacked**: an optimiser maximises its
violation (lhs/rhs, or the difference where a side can vanish) over the step's whole
domain and its extreme regimes (:mod:`verify.audit.adversary`), after a derandomized
Hypothesis search whose failures shrink.  Each outcome says how it was established
(``established_by``):

``proof``           sympy decides the relation on the domain, or exact over a complete finite class;
``search``          survived the adversarial search: ``evaluations``, ``best_ratio`` (the largest
                    lhs/rhs reached, sides oriented so that > 1 breaks the relation) and the
                    ``regimes`` covered are recorded;
``counterexample``  wrong or loose on an exact instance (given);
``definition``      the line restates a definition: nothing to establish;
``reading``         settled by reading the text (a substitution, a cited consequence);
``instances``       held on fixed instances only: never enough for ``valid`` or ``exact``
                    (the test suite refuses such a step).

A step may carry a check of its **correction** (``corrected``): it is searched the same
way, and a correction that the search breaks is withdrawn, not published.

A step that depends on a ``wrong`` step is marked ``affected``.  Outcomes are cached under a
digest of the code they depend on (:mod:`verify.audit.cache`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from ..hypothesis_tools import hypothesis_without_local_constants
from ..model import TextEnum
from . import adversary

# re-exported for the proofs
from .adversary import Int, Real, free, oriented_ratio, row_score  # noqa: F401


class StepStatus(TextEnum):
    """The audit's status of one step: exact, valid, loose (printed '=' but only an inequality
    holds), wrong (with a counterexample and the correction) or unchecked."""

    EXACT = "exact"
    VALID = "valid"
    LOOSE = "loose"
    WRONG = "wrong"
    UNCHECKED = "unchecked"


EXACT, VALID, LOOSE, WRONG, UNCHECKED = StepStatus
STATUSES = tuple(StepStatus)
SEVERITY = {EXACT: 0, VALID: 0, UNCHECKED: 1, LOOSE: 2, WRONG: 3}


@dataclass
class Outcome:
    """What a check found: status, one-line detail, and the evidence."""

    status: StepStatus | str
    detail: str
    counterexample: dict | None = None  # e.g. {"at": {...}, "lhs": x, "rhs": y}
    correction: str | None = None
    gap: str | None = None
    method: str = ""
    # how many instances (points, exact cases, examples) the check survived or tried
    instances: int | None = None
    # proof | search | counterexample | definition | reading | instances | "" (unchecked)
    established_by: str = ""
    evaluations: int | None = None  # adversarial search: evaluations of the relation
    # the largest oriented lhs/rhs reached (> 1 breaks the relation)
    best_ratio: float | None = None
    # adversarial search: [{"regime", "evaluations", "best_ratio", "violated"}]
    regimes: list | None = None
    closest: dict | None = None  # where the search came closest: {"at", "lhs", "rhs"}
    # the correction's own check: "survived search ..." / "withdrawn ..."
    correction_status: str | None = None
    # largest row score (transient)
    score: float | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        """The outcome as strict JSON (floats exact, non-finite floats as strings)."""
        import json

        from mcsa_cli import dumps

        d = asdict(self)
        d.pop("score", None)
        # keys sorted at every level: a fresh outcome and one read back from JSON print alike
        return json.loads(dumps(d, sort_keys=True))

    @classmethod
    def from_json(cls, d: dict) -> "Outcome":
        names = {f for f in cls.__dataclass_fields__ if f != "score"}
        return cls(**{k: v for k, v in d.items() if k in names})


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
    # the reading option (verify.model.Reading.name) the statement is read under; "" = all
    reading: str = ""
    # Hypothesis examples when searched (default SEARCH_EXAMPLES)
    search_examples: int | None = None
    search_budget: int | None = None  # adversarial evaluations (default SEARCH_BUDGET / SYM_BUDGET)
    # a check of the correction, searched like the step
    corrected: Callable[[], Outcome] | None = None
    _outcome: Outcome | None = field(default=None, repr=False)
    _digest: str | None = field(default=None, repr=False)

    @property
    def digest(self) -> str:
        """Digest of the code this step's outcome depends on
        (:func:`verify.audit.cache.step_digest`).
        """
        if self._digest is None:
            from .cache import step_digest

            self._digest = step_digest(self)
        return self._digest

    def compute(self) -> Outcome:
        """Run the check and its searches now (no cache)."""
        o = searched_run(self.check, self.search_examples, self.search_budget, key=self.id)
        if self.corrected is not None and o.correction is not None:
            c = searched_run(self.corrected, self.search_examples, self.search_budget,
                             key=self.id + "/corrected")
            o = _judge_correction(o, c)
        return Outcome.from_json(o.to_json())  # what the cache gives back, to the last bit

    def run(self) -> Outcome:
        """The outcome: from the cache when the stored digest matches, else computed (and
        cached).
        """
        if self._outcome is None:
            from . import cache

            stored = cache.lookup(self.id, self.digest) if CACHE["read"] else None
            if stored is not None:
                self._outcome = Outcome.from_json(stored)
            else:
                self._outcome = self.compute()
                if CACHE["write"]:
                    cache.remember(self.id, self.digest, self._outcome.to_json())
        return self._outcome


#: whether Step.run reads stored outcomes and writes computed ones (``--no-cache`` clears both)
CACHE = {"read": True, "write": True}


def _judge_correction(o: Outcome, c: Outcome) -> Outcome:
    """Attach the correction's check to the step's outcome; withdraw a correction the search
    breaks.
    """
    if c.status in (EXACT, VALID, LOOSE):
        how = {"proof": "proved", "search": "survived the adversarial search"}.get(
            c.established_by, f"holds ({c.established_by})")
        extra = ""
        if c.established_by == "search":
            extra = f" ({c.evaluations} evaluations, largest lhs/rhs {_fmt(c.best_ratio)})"
        o.correction_status = f"{how}{extra}: {c.detail}"
        return o
    if c.status == WRONG:
        o.correction_status = f"withdrawn: our correction fails too: {c.detail}"
        o.correction = None
        return o
    o.correction_status = f"not checked: {c.detail}"
    return o


def _fmt(x) -> str:
    from mcsa_cli import number_text

    return number_text(x, ".6g", none="n/a")


# ----------------------------------------------------------------------------- checkers
#: Hypothesis examples that also test a relation sympy has proved (a guard against
#: assumptions on the symbols that the domain does not satisfy)
PROOF_EXAMPLES = 30


def _hyp_points(syms, domain, default, n, score):
    """Hypothesis search over points of ``domain`` (callables drawing each symbol from a
    Random instance that Hypothesis controls: derandomized, shrinkable).  ``score(pt)``
    returns ``(value, bad)``; the search steers towards large values and stops at (and
    shrinks) the first bad point.  Returns ``(worst value, its point, points tried, bad point)``."""
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


#: adversarial evaluations per step (instance steps; a symbolic step's search is cheaper per
#evaluation)
SEARCH_BUDGET = 1200
SYM_BUDGET = 2000
_CONTEXT = {"budget": None, "key": ""}
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
    """Adversarial search of a symbolic relation: ``evaluate(point) -> (lhs, rhs)`` at 50 digits
    over the boxes of the symbols (``domain`` entries as :class:`Real`/:class:`Int`, or legacy
    draw functions whose box is inferred; ``default_box`` for the others)."""
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


def _search_text(res, boxes=None) -> str:
    regs = "; ".join(f"{r['regime']}" for r in res.regimes)
    dom = ""
    if boxes:
        dom = " over " + ", ".join(f"{k} in {v.text()}" for k, v in boxes.items())
    if res.best_ratio is not None:
        best = f"largest lhs/rhs {res.best_ratio:.6g}"
    elif res.best_row is not None:
        best = (f"no row with both sides above the resolution; closest lhs = "
                f"{res.best_row[1]:.6g}, rhs = {res.best_row[2]:.6g}")
    else:
        best = "no evaluation on the domain"
    unres = ""
    if res.unresolved:
        row = res.unresolved_at[0] if res.unresolved_at else None
        at = f" (first: lhs {row[1]:.6g}, rhs {row[2]:.6g})" if row and row[1] is not None else ""
        unres = (
            f"; {res.unresolved} apparent violations within the numerical resolution (relative "
            f"margin below {adversary.DECISIVE:g}) passed over{at}")
    return (f"adversarial search{dom}: {res.evaluations} evaluations in {len(res.regimes)} runs "
            f"(differential evolution + Nelder-Mead; regimes: {regs}); {best}{unres}")


def _search_found(res, boxes, count: int, what) -> Outcome:
    """WRONG at the adversarial search's first counterexample (pt, lhs, rhs); ``what(lhs, rhs)``
    opens the message, the Hypothesis points ``count`` are added to the search's evaluations."""
    pt, a, b = res.found[0]
    return _attach_search(Outcome(WRONG, f"{what(a, b)} at a point the adversarial search found",
                                  counterexample={"at": {str(k): float(v) for k, v in pt.items()},
                                                  "lhs": float(a), "rhs": float(b)},
                                  method="search", instances=count + res.evaluations,
                                  established_by="counterexample"), res, boxes)


def _attach_search(o: Outcome, res, boxes=None) -> Outcome:
    o.evaluations = res.evaluations
    o.best_ratio = res.best_ratio
    o.regimes = res.regimes
    if res.best_row is not None:
        params, a, b = res.best_row
        o.closest = {"at": params, "lhs": a, "rhs": b}
    o.detail += "; " + _search_text(res, boxes)
    return o


def sym_equal(lhs: sp.Expr, rhs: sp.Expr, symbols=None, domain=None, n: int = 200, seed: int = 0,
              rel_tol: float = 1e-30) -> Outcome:
    """Equality: simplify lhs - rhs (a proof when it gives 0, then also tested at
    PROOF_EXAMPLES points); otherwise a Hypothesis search over ``n`` points at 50 digits
    for the worst relative discrepancy, then the adversarial search (:func:`_sym_search`)
    over the domain's boxes (``domain``: :class:`Real`/:class:`Int` per symbol, default
    [0.1, 5]); derandomized (``seed`` is kept for the call sites)."""
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


def sym_le(lhs: sp.Expr, rhs: sp.Expr, assumptions_subs=None, symbols=None, domain=None,
           n: int = 400,
           seed: int = 0, printed: str = "<=") -> Outcome:
    """Inequality lhs <= rhs: symbolic proof if sympy decides the sign of rhs - lhs (then
    also tested at PROOF_EXAMPLES points), else a Hypothesis search over ``n`` points of
    ``domain`` at 50 digits (steered to the smallest rhs - lhs, shrinking a violation),
    then the adversarial search over the domain's boxes (default [0.01, 10])."""
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


#: Hypothesis examples per searched step (random finite pairs; derandomized)
SEARCH_EXAMPLES = 25


def searchable(kind: str, fixed: list) -> list:
    """The instances a step is checked on: ``fixed`` normally; one searched instance of the
    same kind while the engine searches (Hypothesis draws, :data:`STRATEGIES`, then the
    optimiser, :data:`verify.audit.adversary.KINDS`).  A step whose instances come from here
    is searched automatically."""
    return adversary.searchable(kind, fixed)


def finite_pairs(fixed: list) -> list:
    """Finite (pi, q) pairs (see :func:`searchable`)."""
    return searchable("pairs", fixed)


def random_pair():
    """Hypothesis strategy: a random finite pair (pi, q) on M = 2..5 states with no product
    or symmetric structure (independent positive entries, normalised)."""
    from hypothesis import strategies as st

    def norm(v):
        v = np.asarray(v, float)
        return v / v.sum()

    return st.integers(2, 5).flatmap(lambda M: st.tuples(
        st.lists(st.floats(0.01, 1.0), min_size=M, max_size=M).map(norm),
        st.lists(st.floats(0.01, 1.0), min_size=M, max_size=M).map(norm)))


def _prob(M):
    from hypothesis import strategies as st

    return st.lists(st.floats(0.01, 1.0), min_size=M,
                    max_size=M).map(lambda v: np.asarray(v) / np.sum(v))


def random_discrete():
    """A random discrete law of a random vector: (params, p, values, mu) with 2..6 atoms in
    R^1..3.
    """
    from hypothesis import strategies as st

    def build(K, d):
        return st.tuples(_prob(K), st.lists(st.floats(-5, 5), min_size=K * d, max_size=K * d),
                         st.lists(st.floats(-3, 3), min_size=d, max_size=d)).map(
            lambda t: ({"case": "hypothesis", "d": d}, t[0], np.reshape(t[1], (K, d)),
                       np.asarray(t[2])))
    return st.tuples(st.integers(2, 6), st.integers(1, 3)).flatmap(lambda kd: build(*kd))


def random_products():
    """Random families of N laws on M points, two of them: (M, N, [p_n], [q_n])."""
    from hypothesis import strategies as st

    return st.tuples(st.integers(2, 4), st.integers(2, 4)).flatmap(lambda mn: st.tuples(
        st.just(mn[0]), st.just(mn[1]), st.lists(_prob(mn[0]), min_size=mn[1], max_size=mn[1]),
        st.lists(_prob(mn[0]), min_size=mn[1], max_size=mn[1])))


def random_spd():
    """A random SPD matrix H = A A^T + d I (d = 1..5, entries of A in [-3, 3]) with a numpy
    Generator for the step's further draws: (H, generator)."""
    from hypothesis import strategies as st

    def build(d):
        return st.tuples(st.lists(st.floats(-3, 3), min_size=d * d, max_size=d * d),
                         st.integers(0, 2 ** 16)).map(
            lambda t: (np.reshape(t[0], (d, d)) @ np.reshape(t[0], (d, d)).T + d * np.eye(d),
                       np.random.default_rng(t[1])))
    return st.integers(1, 5).flatmap(build)


STRATEGIES = {"pairs": random_pair, "discrete": random_discrete, "products": random_products,
              "spd": random_spd}
KIND_TEXT = {"pairs": "finite pi, q on 2..5 states",
             "discrete": "discrete laws with 2..6 atoms in R^1..3",
             "products": "two families of 2..4 laws on 2..4 points",
             "spd": "SPD matrices A A^T + d I, d = 1..5"}


def _describe(kind, inst):
    k = adversary.KINDS.get(kind)
    return k.describe(inst) if k is not None else {}


def _search_pairs(check, max_examples, kind="pairs"):
    """Re-run a step's ``check`` on Hypothesis-drawn random instances of ``kind`` (derandomized,
    shrinking on failure): (instances checked, the shrunk failing Outcome or None)."""
    from hypothesis import HealthCheck, Phase, given, settings

    found, n = [], [0]

    class _Found(Exception):
        pass

    @settings(max_examples=max_examples, database=None, derandomize=True, deadline=None,
              print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    @given(STRATEGIES[kind]())
    def probe(inst):
        with adversary.overriding({kind: inst}):
            o = check()
        n[0] += o.instances or 1
        if o.status == WRONG:
            if o.counterexample is not None:
                o.counterexample = {**o.counterexample,
                                    "at": {**o.counterexample.get("at", {}),
                                           **_describe(kind, inst)}}
            found.append(o)
            raise _Found()

    try:
        with hypothesis_without_local_constants():
            probe()
    except _Found:
        pass
    return n[0], (found[-1] if found else None)  # the last failure is the shrunk one


def _outcome_score(o: Outcome):
    """(score, oriented ratio, closest row, failed) of one evaluation in the adversarial search;
    a violation within the numerical resolution (:data:`verify.audit.adversary.DECISIVE`) is
    ``"unresolved"``."""
    if o.status == WRONG:
        ce = o.counterexample or {}
        a, b = ce.get("lhs"), ce.get("rhs")
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                not adversary.decisive(float(a), float(b), float(ce.get("scale", 0.0))):
            return 0.0, None, (ce.get("at"), a, b), "unresolved"
        return math.inf, o.best_ratio, None, True
    if o.score is None:
        return -math.inf, None, None, False
    c = o.closest or {}
    return o.score, o.best_ratio, (c.get("at"), c.get("lhs"), c.get("rhs")), False


def searched_run(check: Callable[[], Outcome], max_examples: int | None = None,
                 budget: int | None = None,
                 key: str = "") -> Outcome:
    """Run a step's check, then attack it: if its instances come from :func:`searchable` or
    :func:`free`, a Hypothesis search (shrinking) and the adversarial search
    (:func:`verify.audit.adversary.search`, ``budget`` evaluations, seeded from ``key``)
    look for a counterexample before an exact/valid/loose status is accepted.  Symbolic
    checks (:func:`sym_equal`, :func:`sym_le`) run their own search with the same budget."""
    prev = dict(_CONTEXT)
    _CONTEXT.update(budget=budget, key=key)
    try:
        with adversary.recording() as requested:
            o = check()
    finally:
        _CONTEXT.update(prev)
    variables = dict(requested)
    if o.status in (WRONG, LOOSE) and not o.established_by:
        o.established_by = "counterexample" if o.counterexample is not None or o.gap else "reading"
    if o.status not in (EXACT, VALID,
                        LOOSE) or o.established_by in ("proof", "search", "definition", "reading") \
            or not variables:
        if not o.established_by:
            o.established_by = "instances" if o.status in (EXACT, VALID) else ""
        return o
    base = o.instances or 0
    m = max_examples or SEARCH_EXAMPLES
    n_hyp = 0
    for kind in [v for v, (typ, _) in variables.items() if typ == "kind" and v in STRATEGIES]:
        n_more, bad = _search_pairs(check, m, kind)
        n_hyp += n_more
        if bad is not None:
            bad.detail = (
                f"Hypothesis found (and shrank) a counterexample on a random instance ({kind}): "
                + bad.detail)
            bad.method = "instances+hypothesis"
            bad.instances = base + n_hyp
            bad.established_by = "counterexample"
            return bad
    res = adversary.search(check, variables, budget or SEARCH_BUDGET, key or "step", _outcome_score)
    if res.found is not None:
        bad, point = res.found
        at = adversary.describe_point(variables, point)
        if bad.counterexample is not None:
            bad.counterexample = {**bad.counterexample,
                                  "at": {**bad.counterexample.get("at", {}), **at}}
        else:
            bad.counterexample = {"at": at}
        bad.detail = "the adversarial search found a counterexample: " + bad.detail
        bad.method = "instances+search"
        bad.instances = base + n_hyp + res.evaluations
        bad.established_by = "counterexample"
        return _attach_search(bad, res)
    if n_hyp:
        o.detail += (f"; no counterexample in {n_hyp} Hypothesis-drawn random instances "
                     f"(derandomized)")
    o.method = (o.method or "instances") + "+search"
    o.instances = base + n_hyp + res.evaluations
    o.established_by = "search" if o.status in (EXACT, VALID) else "counterexample"
    if res.best_point is not None and res.best_row is not None:
        params, a, b = res.best_row
        res.best_row = ({**(params or {}), **adversary.describe_point(variables, res.best_point)},
                        a, b)
    return _attach_search(o, res)


def instance_check(fn: Callable[[], list], relation: str, tol: float = 1e-10,
                   printed: str | None = None,
                   describe: str = "", complete: bool = False) -> Outcome:
    """Exact instances: ``fn`` returns [(params, lhs, rhs)]; the relation must hold on all.

    ``printed`` is the relation as printed (defaults to ``relation``): a printed '=' that
    only holds as '<=' on the instances (with a strict gap somewhere) is ``loose``.
    ``complete``: the rows exhaust a finite class (the status is then a proof).
    Steps whose instances come from :func:`searchable` / :func:`free` are also searched
    (see :func:`searched_run`); the outcome carries the row that came closest to failing.
    """
    printed = printed or relation
    rows = fn()
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


def unchecked(reason: str) -> Callable[[], Outcome]:
    return lambda: Outcome(UNCHECKED, reason, method="none")


def fixed(status: str, detail: str, **kw) -> Callable[[], Outcome]:
    """For steps settled by reading alone (a substitution, a cited result whose consequence
    another step checks): recorded with method 'reading', so the tables show which statuses
    were not computed."""
    kw.setdefault("method", "reading")
    kw.setdefault("established_by", "reading")
    return lambda: Outcome(status, detail, **kw)


def definition(detail: str) -> Callable[[], Outcome]:
    """A line that restates a definition (nothing to establish): exact, established by
    definition.
    """
    return lambda: Outcome(EXACT, detail, method="reading", established_by="definition")


STEPS: dict[str, Step] = {}


def step(id, *, claim, seed, location, relation, lhs, rhs, justification, check, depends=(),
         expect="",
         statement=False, reading="", search_examples=None, search_budget=None,
         corrected=None) -> Step:
    """Declare one displayed step (see :class:`Step`); ``corrected`` checks the correction.  Every
    argument
    after ``id`` is a keyword."""
    s = Step(id, claim, seed, location, relation, lhs, rhs, justification, check, tuple(depends),
             expect, statement,
             reading, search_examples, search_budget, corrected)
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


def first_failing(rows, relation, tol, describe="", printed=None, why="", correction=None):
    """:func:`instance_check` over ``rows``; when it fails, the counterexample shown is the first
    failing row (rows are ordered so that the documented instance comes first).

    When the outcome is ``wrong``, ``why`` (the reason the printed step fails, ending with its own
    separator, e.g. ``": "``) is put before the detail and ``correction`` becomes the outcome's
    correction; either may be
    a function of the outcome (e.g. to name its counterexample).  Other outcomes are returned as
    computed."""
    o = instance_check(lambda: rows, relation, tol, printed=printed, describe=describe)
    if o.status != WRONG:
        return o
    bad = [r for r in rows if instance_check(lambda r=r: [r], relation, tol).status == WRONG]
    one = instance_check(lambda: bad[:1], relation, tol, describe=describe)
    one.detail += f"; {len(bad)} of {len(rows)} rows fail"
    one.instances = len(rows)
    if one.status == WRONG:
        one.detail = (why(one) if callable(why) else why) + one.detail
        if correction is not None:
            one.correction = correction(one) if callable(correction) else correction
    return one
