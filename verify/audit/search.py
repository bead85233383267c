"""The search that attacks a step's check before its status is accepted (:func:`searched_run`).

A check whose instances come from :func:`verify.audit.instances.searchable` or
:func:`verify.audit.adversary.free` is run again on Hypothesis-drawn instances
(derandomized, shrinking, :data:`STRATEGIES`) and then by the adversarial optimiser
(:func:`verify.audit.adversary.search`).  The symbolic checks
(:mod:`verify.audit.symbolic`) read the budget and the seed key set here.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..searching.hypothesis_tools import hypothesis_without_local_constants
from . import adversary
from .outcome import EXACT, LOOSE, VALID, WRONG, Outcome

#: adversarial evaluations per step (instance steps; a symbolic step's search is cheaper per
#: evaluation)
SEARCH_BUDGET = 1200
SYM_BUDGET = 2000
#: the fewest adversarial evaluations any searched step gets, whatever its table says: a step's
#: status rests on a proof or on at least this many (the search restarts its runs until spent)
MIN_EVALUATIONS = 1000
_CONTEXT: dict[str, Any] = {"budget": None, "key": ""}

#: Hypothesis examples per searched step (random finite pairs; derandomized)
SEARCH_EXAMPLES = 25


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
    if res.undecided:
        row = res.undecided_at[0] if res.undecided_at else None
        at = (f" (first: lhs {row[1]:.6g}, rhs {row[2]:.6g})"
              if row and isinstance(row[1], (int, float)) and isinstance(row[2], (int, float))
              else "")
        unres = (
            f"; {res.undecided} evaluations had a row the enclosures could not decide (the sides "
            f"agree within their proved error: not a counterexample){at}")
    return (f"adversarial search{dom}: {res.evaluations} evaluations in {len(res.regimes)} runs "
            f"(differential evolution + Nelder-Mead; regimes: {regs}); {best}{unres}")


def _attach_search(o: Outcome, res, boxes=None) -> Outcome:
    o.evaluations = res.evaluations
    o.best_ratio = res.best_ratio
    o.regimes = res.regimes
    if res.best_row is not None:
        params, a, b = res.best_row
        o.closest = {"at": params, "lhs": a, "rhs": b}
    o.detail += "; " + _search_text(res, boxes)
    return o


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
    shrinking on failure): (instances checked, the shrunk failing Outcome or None, rows the
    enclosures could not decide)."""
    from hypothesis import HealthCheck, Phase, given, settings

    found, n, und = [], [0], [0]

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
        und[0] += o.undecided or 0
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
    return n[0], (found[-1] if found else None), und[0]  # the last failure is the shrunk one


def _outcome_score(o: Outcome):
    """(score, oriented ratio, closest row, failed) of one evaluation in the adversarial search.

    ``failed`` is True for a ``wrong`` outcome (a row whose enclosures exclude the relation: a
    counterexample at any magnitude), ``"undecided"`` when a row could not be decided (counted,
    never a finding), else False."""
    if o.status == WRONG:
        return math.inf, o.best_ratio, None, True
    c = o.closest or {}
    row = (c.get("at"), c.get("lhs"), c.get("rhs"))
    failed = "undecided" if o.undecided else False
    if o.score is None:
        return -math.inf, None, row if failed else None, failed
    return o.score, o.best_ratio, row, failed


def searched_run(check: Callable[[], Outcome], max_examples: int | None = None,
                 budget: int | None = None,
                 key: str = "") -> Outcome:
    """Run a step's check, then attack it: if its instances come from :func:`searchable` or
    :func:`free`, a Hypothesis search (shrinking) and the adversarial search
    (:func:`verify.audit.adversary.search`, ``budget`` evaluations, seeded from ``key``)
    look for a counterexample before an exact/valid/loose status is accepted.  Symbolic
    checks (:func:`sym_equal`, :func:`sym_le`) run their own search with the same budget."""
    prev = dict(_CONTEXT)
    budget = max(budget, MIN_EVALUATIONS) if budget else None
    _CONTEXT.update(budget=budget, key=key)
    try:
        with adversary.recording() as requested:
            o = check()
    finally:
        _CONTEXT.update(prev)
    variables = dict(requested)
    if o.status in (WRONG, LOOSE) and not o.established_by:
        o.established_by = "counterexample" if o.counterexample is not None or o.gap else "reading"
    if o.status not in (EXACT, VALID, LOOSE) or o.established_by in (
            "proof", "search", "definition", "reading", "not refuted") or not variables:
        if not o.established_by:
            o.established_by = ("not refuted" if o.status == EXACT and o.undecided else
                                "instances" if o.status in (EXACT, VALID) else "")
        return o
    base = o.instances or 0
    m = max_examples or SEARCH_EXAMPLES
    n_hyp, n_und = 0, [0]
    for kind in [v for v, (typ, _) in variables.items() if typ == "kind" and v in STRATEGIES]:
        n_more, bad, und = _search_pairs(check, m, kind)
        n_hyp += n_more
        n_und[0] += und
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
    o.undecided = (o.undecided or 0) + res.undecided + n_und[0] if (
        o.undecided is not None or res.undecided or n_und[0]) else None
    if o.status == EXACT and o.undecided:
        # an '=' whose rows agree only within their enclosures: no disproof was found, which is
        # not a proof of the equality
        o.established_by = "not refuted"
        if not o.detail.startswith("not refuted"):
            o.detail = "not refuted: " + o.detail
    else:
        o.established_by = "search" if o.status in (EXACT, VALID) else "counterexample"
    if res.best_point is not None and res.best_row is not None:
        params, a, b = res.best_row
        res.best_row = ({**(params or {}), **adversary.describe_point(variables, res.best_point)},
                        a, b)
    return _attach_search(o, res)
