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

from dataclasses import dataclass, field
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from ..core import hypothesis_without_local_constants

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
    search_examples: int | None = None  # Hypothesis examples when searched (default SEARCH_EXAMPLES)
    _outcome: Outcome | None = field(default=None, repr=False)

    def run(self) -> Outcome:
        if self._outcome is None:
            self._outcome = searched_run(self.check, self.search_examples)
        return self._outcome


# ----------------------------------------------------------------------------- checkers
#: Hypothesis examples that also test a relation sympy has proved (a guard against
#: assumptions on the symbols that the domain does not satisfy)
PROOF_EXAMPLES = 30


def _hyp_points(syms, domain, default, n, score):
    """Hypothesis search over points of ``domain`` (callables drawing each symbol from a
    Random instance that Hypothesis controls: derandomized, shrinkable).  ``score(pt)``
    returns ``(value, bad)``; the search steers towards large values and stops at (and
    shrinks) the first bad point.  Returns ``(worst value, its point, points tried, bad point)``."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import strategies as st

    best = {"v": None, "pt": None}
    bad, count = [], [0]

    class _Bad(Exception):
        pass

    @settings(max_examples=n, database=None, derandomize=True, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target, Phase.shrink])
    @given(st.randoms(use_true_random=False))
    def probe(rng):
        count[0] += 1
        pt = {s: (domain[s](rng) if domain and s in domain else default(rng)) for s in syms}
        with mpmath.workdps(50):
            try:
                v, is_bad = score(pt)
            except (ZeroDivisionError, ValueError, TypeError):  # a pole of the printed expression: off the domain
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


def sym_equal(lhs: sp.Expr, rhs: sp.Expr, symbols=None, domain=None, n: int = 200, seed: int = 0,
              rel_tol: float = 1e-30) -> Outcome:
    """Equality: simplify lhs - rhs (a proof when it gives 0, then also tested at
    PROOF_EXAMPLES points); otherwise a Hypothesis search over ``n`` points at 50 digits
    for the worst relative discrepancy (derandomized; ``seed`` is kept for the call sites)."""
    diff = sp.simplify(sp.expand(lhs - rhs))
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name) if symbols is None else list(symbols)
    fl = sp.lambdify(syms, lhs, "mpmath")
    fr = sp.lambdify(syms, rhs, "mpmath")

    def score(pt):
        a, b = fl(*[pt[s] for s in syms]), fr(*[pt[s] for s in syms])
        d = abs(a - b) / max(abs(a), abs(b), mpmath.mpf(1e-300))
        return d, d > rel_tol

    default = lambda rng: mpmath.mpf(rng.uniform(0.1, 5))  # noqa: E731
    proved = diff == 0
    worst, at, count, bad = _hyp_points(syms, domain, default, PROOF_EXAMPLES if proved else n, score)
    if bad is not None:
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
        return Outcome(WRONG, f"differs{' (although sympy simplified the difference to 0)' if proved else ''}: "
                              f"relative discrepancy {float(abs(a - b) / max(abs(a), abs(b))):.3g} at a point "
                              f"Hypothesis found and shrank",
                       counterexample={"at": {str(k): float(v) for k, v in bad.items()}, "lhs": float(a), "rhs": float(b)},
                       method="hypothesis", instances=count)
    if proved:
        return Outcome(EXACT, f"sympy simplifies the difference to 0; equal at {count} Hypothesis points to 50 digits",
                       method="symbolic+hypothesis", instances=count)
    return Outcome(EXACT, f"equal at {count} Hypothesis points to 50 digits (worst relative discrepancy "
                          f"{float(worst or 0):.1e}); sympy left {sp.sstr(diff)[:60]}", method="hypothesis",
                   instances=count)


def sym_le(lhs: sp.Expr, rhs: sp.Expr, assumptions_subs=None, symbols=None, domain=None, n: int = 400,
           seed: int = 0, printed: str = "<=") -> Outcome:
    """Inequality lhs <= rhs: symbolic proof if sympy decides the sign of rhs - lhs (then
    also tested at PROOF_EXAMPLES points), else a Hypothesis search over ``n`` points of
    ``domain`` at 50 digits, steered to the smallest rhs - lhs, shrinking a violation."""
    d = sp.simplify(rhs - lhs)
    if printed == "=":
        eq = sym_equal(lhs, rhs, symbols, domain, n=min(n, 200), seed=seed)
        if eq.status == EXACT:
            return eq
    syms = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name) if symbols is None else list(symbols)
    f = sp.lambdify(syms, d, "mpmath")
    proved = bool(d.is_nonnegative)

    def score(pt):
        v = f(*[pt[s] for s in syms])
        return -v, v < -mpmath.mpf(10) ** -30

    default = lambda rng: mpmath.mpf(rng.uniform(0.01, 10))  # noqa: E731
    worst, at, count, bad = _hyp_points(syms, domain, default, PROOF_EXAMPLES if proved else n, score)
    if bad is not None:
        fl, fr = sp.lambdify(syms, lhs, "mpmath"), sp.lambdify(syms, rhs, "mpmath")
        with mpmath.workdps(50):
            a, b = fl(*[bad[s] for s in syms]), fr(*[bad[s] for s in syms])
            v = f(*[bad[s] for s in syms])
        return Outcome(WRONG, f"violated: rhs - lhs = {float(v):.4g} at a point Hypothesis found and shrank"
                              f"{' (although sympy proved rhs - lhs >= 0)' if proved else ''}",
                       counterexample={"at": {str(k): float(v) for k, v in bad.items()}, "lhs": float(a), "rhs": float(b)},
                       method="hypothesis", instances=count)
    status = VALID if printed != "=" else LOOSE
    if proved:
        return Outcome(status, f"sympy proves rhs - lhs >= 0 on the domain; no violation at {count} Hypothesis points",
                       gap=sp.sstr(d), method="symbolic+hypothesis", instances=count)
    return Outcome(status, f"no violation in {count} Hypothesis points at 50 digits (min of rhs - lhs = "
                           f"{float(-worst) if worst is not None else float('nan'):.3g})",
                   gap=None, method="hypothesis", instances=count)


def _bad(a: float, b: float, relation: str, tol: float) -> bool:
    scale = tol * max(1.0, abs(a), abs(b))
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
_SEARCH = {"override": None, "kind": None}


def searchable(kind: str, fixed: list) -> list:
    """The instances a step is checked on: ``fixed`` normally; one Hypothesis-drawn
    instance of the same kind (:data:`STRATEGIES`) while :func:`searched_run` searches.
    A step whose instances come from here is searched automatically."""
    _SEARCH["kind"] = kind
    ov = _SEARCH["override"]
    return [ov[1]] if ov is not None and ov[0] == kind else fixed


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

    return st.lists(st.floats(0.01, 1.0), min_size=M, max_size=M).map(lambda v: np.asarray(v) / np.sum(v))


def random_discrete():
    """A random discrete law of a random vector: (params, p, values, mu) with 2..6 atoms in R^1..3."""
    from hypothesis import strategies as st

    def build(K, d):
        return st.tuples(_prob(K), st.lists(st.floats(-5, 5), min_size=K * d, max_size=K * d),
                         st.lists(st.floats(-3, 3), min_size=d, max_size=d)).map(
            lambda t: ({"case": "hypothesis", "d": d}, t[0], np.reshape(t[1], (K, d)), np.asarray(t[2])))
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
        return st.tuples(st.lists(st.floats(-3, 3), min_size=d * d, max_size=d * d), st.integers(0, 2 ** 16)).map(
            lambda t: (np.reshape(t[0], (d, d)) @ np.reshape(t[0], (d, d)).T + d * np.eye(d),
                       np.random.default_rng(t[1])))
    return st.integers(1, 5).flatmap(build)


STRATEGIES = {"pairs": random_pair, "discrete": random_discrete, "products": random_products, "spd": random_spd}
KIND_TEXT = {"pairs": "finite pi, q on 2..5 states", "discrete": "discrete laws with 2..6 atoms in R^1..3",
             "products": "two families of 2..4 laws on 2..4 points",
             "spd": "SPD matrices A A^T + d I, d = 1..5"}


def _describe(kind, inst):
    def r(v):
        return np.round(np.asarray(v, float), 6).tolist()
    if kind == "pairs":
        return {"pi": r(inst[0]), "q": r(inst[1])}
    if kind == "discrete":
        return {"p": r(inst[1]), "values": r(inst[2]), "mu": r(inst[3])}
    if kind == "spd":
        return {"H": r(inst[0])}
    return {"p_n": [r(x) for x in inst[2]], "q_n": [r(x) for x in inst[3]]}


def _search_pairs(check, max_examples, kind="pairs"):
    """Re-run a step's ``check`` on Hypothesis-drawn random finite pairs (derandomized,
    shrinking on failure): (instances checked, the shrunk failing Outcome or None)."""
    from hypothesis import HealthCheck, Phase, given, settings

    found, n = [], [0]

    class _Found(Exception):
        pass

    @settings(max_examples=max_examples, database=None, derandomize=True, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    @given(STRATEGIES[kind]())
    def probe(inst):
        _SEARCH["override"] = (kind, inst)
        try:
            o = check()
        finally:
            _SEARCH["override"] = None
        n[0] += o.instances or 1
        if o.status == WRONG:
            if o.counterexample is not None:
                o.counterexample = {**o.counterexample, "at": {**o.counterexample.get("at", {}), **_describe(kind, inst)}}
            found.append(o)
            raise _Found()

    try:
        with hypothesis_without_local_constants():
            probe()
    except _Found:
        pass
    return n[0], (found[-1] if found else None)  # the last failure is the shrunk one


def searched_run(check: Callable[[], Outcome], max_examples: int | None = None) -> Outcome:
    """Run a step's check; if its instances come from :func:`finite_pairs`, search for a
    counterexample on random finite pairs before accepting an exact/valid/loose status."""
    _SEARCH["kind"] = None
    o = check()
    kind = _SEARCH["kind"]
    if kind is None or o.status not in (EXACT, VALID, LOOSE):
        return o
    m = max_examples or SEARCH_EXAMPLES
    n_more, bad = _search_pairs(check, m, kind)
    base = o.instances or 0
    if bad is not None:
        bad.detail = f"Hypothesis found (and shrank) a counterexample on a random instance ({kind}): " + bad.detail
        bad.method = "instances+hypothesis"
        bad.instances = base + n_more
        return bad
    o.detail += f"; no counterexample in {m} Hypothesis-drawn random instances ({KIND_TEXT[kind]}, derandomized)"
    o.method = (o.method or "instances") + "+hypothesis"
    o.instances = base + n_more
    return o


def instance_check(fn: Callable[[], list], relation: str, tol: float = 1e-10, printed: str | None = None,
                   describe: str = "") -> Outcome:
    """Exact instances: ``fn`` returns [(params, lhs, rhs)]; the relation must hold on all.

    ``printed`` is the relation as printed (defaults to ``relation``): a printed '=' that
    only holds as '<=' on the instances (with a strict gap somewhere) is ``loose``.
    Steps whose instances come from :func:`finite_pairs` are also searched (see
    :func:`searched_run`).
    """
    printed = printed or relation
    rows = fn()
    worst = None
    gaps = []
    for params, a, b in rows:
        a, b = float(a), float(b)
        if _bad(a, b, relation, tol) and (worst is None or abs(a - b) > abs(worst[1] - worst[2])):
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
         statement=False, reading="", search_examples=None) -> Step:
    s = Step(id, claim, seed, location, relation, lhs, rhs, justification, check, tuple(depends), expect, statement,
             reading, search_examples)
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


def first_failing(rows, relation, tol, describe="", printed=None):
    """:func:`instance_check` over ``rows``; when it fails, the counterexample shown is the first failing row
    (rows are ordered so that the documented instance comes first)."""
    o = instance_check(lambda: rows, relation, tol, printed=printed, describe=describe)
    if o.status != WRONG:
        return o
    bad = [r for r in rows if instance_check(lambda r=r: [r], relation, tol).status == WRONG]
    one = instance_check(lambda: bad[:1], relation, tol, describe=describe)
    one.detail += f"; {len(bad)} of {len(rows)} rows fail"
    one.instances = len(rows)
    return one
