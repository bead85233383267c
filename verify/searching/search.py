"""Counterexample search: ``python -m verify search CLAIM``.

Hypothesis draws targets, proposals, budgets, steps, iterations and test functions
(finite state spaces, Gaussian pairs, random SPD matrices), evaluates the claim
*exactly* on each draw, steers towards the largest empirical/bound ratio with
``hypothesis.target`` and, once a violation is found, shrinks it to a minimal
counterexample.  The search is reproducible from ``--seed`` (no example database).

Each :class:`SearchSpec` gives a strategy over instances and an ``evaluate(instance)``
returning ``(label, empirical, bound, relation, error)`` tuples: ``empirical`` and ``bound``
are numbers or :class:`bounds.enclosure.Enclosure` objects, ``error`` a proved bound on the
empirical value's absolute error (numbers are otherwise exact up to float64 rounding).  A row
is a violation only when the enclosures prove it (:func:`bounds.enclosure.relation_verdict`);
the search steers by the log-ratio, so a violation at 1e-200 is as visible as one at 0.5.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed as hseed, settings, strategies as st, target

import bounds

#: the absolute error of exact finite computations on probabilities (sums of a few hundred
#: terms, each at most 1 in magnitude): float64 rounding gamma_n * sum |terms| stays below this
TOL = 1e-10


from ..registry import bound_value as _b  # noqa: E402,F401
from .spaces import SPECS, SearchSpec, spec  # noqa: E402,F401  (claims declare their spaces there)


# ----------------------------------------------------------------------------- strategies
def prob_vector(M, lo=0.02):
    return st.lists(st.floats(lo, 1.0), min_size=M, max_size=M).map(lambda v: np.array(v) / sum(v))


@st.composite
def finite_pair(draw, M_max=4, M_min=2):
    M = draw(st.integers(M_min, M_max))
    return draw(prob_vector(M)), draw(prob_vector(M))


@st.composite
def scores(draw, M, L=1.0):
    return np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=M, max_size=M))) * L


def _unit_score(s, M):
    """The first M entries scaled so that max |s| = 1 (= L); a constant 1 if they vanish."""
    s = np.asarray(s[:M], float)
    mx = np.abs(s).max()
    return (s / mx if mx > 0 else np.ones(M))[:, None]


def _sides(emp, b, tol, rel=None):
    """The enclosures of a row's two sides.

    A bound from :func:`verify.registry.bound_value` is enclosed from its formula (exactly where
    its parameters are rational and its powers small, else in balls); with ``rel`` given, the
    ball precision is raised (:data:`bounds.enclosure.PRECISIONS`) until the relation is decided
    or the cap is reached, as :func:`verify.decide.decide` does."""
    from bounds.enclosure import PRECISIONS, Enclosure, relation_verdict

    lhs = emp if isinstance(emp, Enclosure) else Enclosure.of(emp).widen(tol or 0)
    ref = getattr(b, "ref", None)
    if isinstance(b, Enclosure) or ref is None:
        return lhs, b if isinstance(b, Enclosure) else Enclosure.of(b)
    from ..registry import bound_enclosure

    for bits in PRECISIONS:
        rhs = bound_enclosure(ref, bits)
        if rel is None or relation_verdict(lhs, rhs, rel) is not None:
            break
    return lhs, rhs


def _violated(emp, b, rel, tol) -> bool:
    """Whether the row's enclosures prove ``emp REL b`` false."""
    from bounds.enclosure import relation_verdict

    lhs, rhs = _sides(emp, b, tol, rel)
    return relation_verdict(lhs, rhs, rel) == "violated"


def _log_ratio(emp, b, rel, tol=0.0) -> float:
    """log10 of the row's ratio, oriented so that above 0 means violated; at any magnitude.

    ``<=``: log10(emp / b); ``>=``: log10(b / emp); ``=``: log10(1 + |emp - b| / |b|).
    -inf when the empirical side is resolved as 0 below a positive bound.
    """
    from bounds.enclosure import log10_ratio

    lhs, rhs = _sides(emp, b, tol, rel)
    if rel == "=":
        d, m = abs(lhs.mid - rhs.mid), max(abs(rhs.mid), 1e-300)
        return math.log10(1 + d / m) if math.isfinite(d) else math.inf
    a, c = (lhs, rhs) if rel in ("<=", "<") else (rhs, lhs)
    lr = log10_ratio(a, c)
    if lr is not None:
        return lr
    if c.sign() == 1:
        return -math.inf if a.sign() in (0, -1) or a.sign() is None else math.inf
    return math.inf if a.sign() == 1 else -math.inf


def _ratio(emp, b, rel, tol=0.0):
    """The row's ratio (oriented, above 1 is violated) as a double; see :func:`_log_ratio`."""
    lr = _log_ratio(emp, b, rel, tol)
    if lr == -math.inf:
        return 0.0
    return 10.0 ** lr if lr < 308 else math.inf


def search(claim: str, seed: int = 0, max_examples: int = 200):
    """Search ``claim``'s space for a violation; returns a JSON-able dict with the outcome.

    Parameters
    ----------
    claim : str or verify.searching.spaces.SearchSpec
        A claim id with a search space (declared with :func:`verify.searching.spaces.spec`), or a
        search space itself.
    seed : int
        Hypothesis seed; the same seed gives the same examples.
    max_examples : int
        Exact evaluations at most.

    Returns
    -------
    dict or None
        ``found``, ``examples``, ``space``, and the shrunk ``counterexample`` or the
        ``closest`` instance (largest empirical/bound ratio); None without a search space.
    """
    if isinstance(claim, SearchSpec):  # a space not registered (verify.quick.QuickClaim.search)
        sp_, claim = claim, claim.claim
    else:
        from ..registry import load

        load()
        if claim not in SPECS:
            return None
        sp_ = SPECS[claim]
    found = []
    best: dict[str, Any] = {"ratio": -math.inf}
    n = {"examples": 0}

    class Violation(Exception):
        pass

    @settings(max_examples=max_examples, database=None, derandomize=False, deadline=None,
              print_blob=False,
              suppress_health_check=list(HealthCheck),
              phases=[Phase.generate, Phase.target, Phase.shrink])
    @hseed(seed)
    @given(sp_.strategy)
    def probe(inst):
        n["examples"] += 1
        rows = sp_.evaluate(inst)
        if not rows:
            return
        logs = [_log_ratio(e, b, rel, tol) for _, e, b, rel, tol in rows]
        j = int(np.argmax(logs))
        r = logs[j] if math.isfinite(logs[j]) else (1e300 if logs[j] > 0 else -1e300)
        target(float(r), label="log10 empirical/bound")
        if r > best["ratio"]:
            best.update(ratio=r, row=rows[j], inst=inst)
        for row in rows:
            if _violated(row[1], row[2], row[3], row[4]):
                found.append((inst, row))
                raise Violation()

    from .hypothesis_tools import hypothesis_without_local_constants

    t0 = time.perf_counter()
    try:
        with hypothesis_without_local_constants():  # same examples for a seed, whatever is imported
            probe()
    except Violation:
        pass
    elapsed = time.perf_counter() - t0
    if found:
        inst, (label, emp, b, rel, tol) = found[-1]  # the last failure is the shrunk one
        lr = _log_ratio(emp, b, rel, tol)
        return {"claim": claim, "found": True, "seed": seed, "examples": n["examples"],
                "elapsed_s": elapsed,
                "space": sp_.space, "counterexample": _show(inst), "check": label,
                "empirical": _num(emp), "bound": _num(b), "relation": rel,
                "ratio": _ratio(emp, b, rel, tol), "log10_ratio": lr if math.isfinite(lr) else None}
    out = {"claim": claim, "found": False, "seed": seed, "examples": n["examples"],
           "elapsed_s": elapsed,
           "space": sp_.space}
    if "row" in best:
        label, emp, b, rel, tol = best["row"]
        lr = best["ratio"]
        out.update(closest={"instance": _show(best["inst"]), "check": label,
                            "empirical": _num(emp), "bound": _num(b),
                            "ratio": _ratio(emp, b, rel, tol),
                            "log10_ratio": lr if abs(lr) < 1e300 else None})
    return out


def _num(x) -> float:
    """A row's side as a double (an enclosure by its midpoint)."""
    from bounds.enclosure import Enclosure

    return x.mid if isinstance(x, Enclosure) else float(x)


def _show(inst):
    def conv(v):
        if isinstance(v, np.ndarray):
            return [float(x) for x in v]
        if isinstance(v, tuple):
            return [conv(x) for x in v]
        if isinstance(v, (list,)):
            return [conv(x) for x in v]
        if isinstance(v, (np.floating, np.integer)):
            return v.item()
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        return v
    return conv(inst)


#: the largest --max-examples (each example is an exact evaluation; 10,000 take minutes)
MAX_EXAMPLES = 10_000


def cmd_search(argv):
    from mcsa_cli import Parser, UsageError, add_wide, number, wrap

    from ..registry import load

    load()

    ap = Parser(prog="python -m verify search", description=(
        "Hypothesis search over a claim's parameter space (targets, proposals, N, k, t, test "
        "functions) for a violation, evaluated exactly; prints the shrunk counterexample, then the "
        "proof audit's adversarial search of the claim's statement (differential evolution over "
        "its whole domain and extreme regimes). Reproducible from --seed."),
        epilog="Exit status: 0 no violation found, 1 counterexample found, 2 bad input (one line "
               "on stderr, before any work), 70 internal error (rerun with --debug for the "
               "traceback), 74 an output cannot be written (a full disk), 130 interrupted.")
    ap.add_argument("claim", help=f"a claim with a search space: {', '.join(SPECS)}")
    ap.add_argument("--seed", default="0", help="integer >= 0 (default 0)")
    ap.add_argument("--max-examples", default="200",
                    help=f"integer from 1 to {MAX_EXAMPLES} (default 200)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (strict RFC 8259)")
    add_wide(ap)
    a = ap.parse_args(argv)
    seed = number("--seed", a.seed, integer=True, lo=0)

    def say(text=""):  # human-readable lines fit the terminal (--wide: full width)
        print(wrap(str(text), wide=a.wide))
    M = number("--max-examples", a.max_examples, integer=True, lo=1, hi=MAX_EXAMPLES)
    try:
        bounds.get(a.claim)
    except bounds.UnknownClaim as e:
        raise UsageError(str(e)) from None
    if a.claim not in SPECS:
        raise UsageError(
            f"no search space is defined for {a.claim} (searchable: {', '.join(SPECS)})")
    from mcsa_cli import dumps

    res = search(a.claim, seed, M)
    res["statement_steps"] = statement_search(a.claim)
    if a.json:
        print(dumps(res))  # strict JSON, never wrapped
    else:
        say(f"search {a.claim} over {res['space']}: {res['examples']} examples, seed {seed}, "
            f"{res['elapsed_s']:.1f} s")
        if res["found"]:
            say(f"COUNTEREXAMPLE ({res['check']}): empirical {res['empirical']:.6g} vs bound "
                f"{res['bound']:.6g} (relation {res['relation']})\n  at "
                f"{dumps(res['counterexample'])}")
        else:
            say("no violation found")
            if "closest" in res:
                c = res["closest"]
                say(f"closest: {c['check']} empirical {c['empirical']:.6g} vs bound "
                    f"{c['bound']:.6g} (ratio {c['ratio']:.4g}) at {dumps(c['instance'])}")
        for r in res["statement_steps"]:
            how = r["established_by"] or "unchecked"
            if r["evaluations"]:
                how += f", {r['evaluations']} evaluations, closest lhs/rhs " + (
                    f"{r['best_ratio']:.6g}" if r["best_ratio"] is not None else "n/a")
            say(f"audit, statement step {r['id']}: {r['status']} ({how})")
    return 1 if res["found"] else 0


def statement_search(claim: str) -> list[dict]:
    """The proof audit's verdicts on ``claim``'s statement steps, each attacked by the audit's
    adversarial search (verify.audit.adversary): id, status, how it was established, evaluations
    and the closest lhs/rhs.  Read from the audit's cache when the code is unchanged."""
    from .. import audit

    return [{k: r[k] for k in ("id", "status", "established_by", "evaluations", "best_ratio")}
            for r in audit.rows(claim) if r["statement"]]

