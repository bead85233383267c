"""Counterexample search: ``python -m verify search CLAIM``.

Hypothesis draws targets, proposals, budgets, steps, iterations and test functions
(finite state spaces, Gaussian pairs, random SPD matrices), evaluates the claim
*exactly* on each draw, steers towards the largest empirical/bound ratio with
``hypothesis.target`` and, once a violation is found, shrinks it to a minimal
counterexample.  The search is reproducible from ``--seed`` (no example database).

Each :class:`SearchSpec` gives a strategy over instances and an ``evaluate(instance)``
returning ``(label, empirical, bound, relation, tolerance)`` tuples.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hseed
from hypothesis import strategies as st

import bounds
from simulate import finite as F

TOL = 1e-10  # exact finite computations: float64 rounding on sums of a few hundred terms


from .core import bound_value as _b  # noqa: E402


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


def _violated(emp, b, rel, tol):
    if rel in ("<=", "<"):
        return emp > b + tol
    if rel in (">=", ">"):
        return emp < b - tol
    return abs(emp - b) > tol


def _ratio(emp, b, rel, tol=0.0):
    if max(abs(emp), abs(b)) <= tol:
        return 0.0  # both below the numerical resolution
    if rel in (">=", ">"):
        return b / emp if emp > 0 else (math.inf if b > 0 else 0.0)
    if rel == "=":
        return 1 + abs(emp - b) / max(abs(b), 1e-300)
    return emp / b if b > 0 else (math.inf if emp > 0 else 0.0)


@dataclass
class SearchSpec:
    claim: str
    space: str
    strategy: st.SearchStrategy
    evaluate: Callable[[dict], list]


SPECS: dict[str, SearchSpec] = {}


def spec(claim, space):
    def deco(fn):
        strategy, evaluate = fn()
        SPECS[claim] = SearchSpec(claim, space, strategy, evaluate)
        return fn
    return deco


# ----------------------------------------------------------------------------- paper
@spec("theorem1", "finite pi, q (2-4 states), N in 2..12, k in 1..30, every start")
def _t1():
    strat = st.fixed_dictionaries({"pq": finite_pair(), "N": st.integers(2, 12), "k": st.integers(1, 30)})

    def ev(d):
        pi, q = d["pq"]
        K = F.cis_matrix(pi, q, d["N"])
        tv = F.tv_curve(K, pi, d["k"])[-1].max()
        w = float((pi / q).max())
        return [("mixing (explicit)", float(tv), _b("theorem1", "mixing", "explicit", N=d["N"], w_star=w, k=d["k"]), "<=", 1e-9)]
    return strat, ev


@spec("theorem2", "finite pi, q, a score with max |s| = L = 1, N in 2..8, t in 1..300, any state")
def _t2():
    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(2, 8), "t": st.integers(1, 300),
                                   "x": st.integers(0, 2), "s": scores(3)})

    def ev(d):
        pi, q = d["pq"]
        x = d["x"] % pi.size
        s = _unit_score(d["s"], pi.size)
        m = F.moments_msc_rb(pi, q, s, x, d["N"])
        w = float((pi / q).max())
        chi2 = min(float((pi ** 2 / q).sum() - 1), w - 1)  # 1 + chi2 = E_pi w <= w* (clip rounding)
        kw = dict(N=d["N"], w_star=w, t=d["t"], L=1.0, mu_norm=min(1.0, float(abs(pi @ s[:, 0]))), chi2=max(chi2, 0.0))
        return [("second_moment (explicit)", m.second, _b("theorem2", "second_moment", "explicit", **kw), "<=", 1e-8 + m.error)]
    return strat, ev


@spec("theorem3", "finite pi, q; JSA joint law (N in 1..4, k in 1..8) and conditional moments (t in 1..300)")
def _t3():
    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(1, 4), "k": st.integers(1, 8),
                                   "t": st.integers(1, 300), "x": st.integers(0, 2), "s": scores(3)})

    def ev(d):
        pi, q = d["pq"]
        N, k, x = d["N"], d["k"], d["x"] % pi.size
        K = F.imh_matrix(pi, q)
        w = float((pi / q).max())
        tv = F.tv_joint(F.jsa_joint_law(K, x, N, k), F.product_law([pi] * N))
        s = _unit_score(d["s"], pi.size)
        m = F.moments_jsa(K, s, x, N)
        mu = min(1.0, float(abs(pi @ s[:, 0])))  # |E_pi s| <= max |s| = L (clip rounding)
        return [("mixing (explicit)", tv, _b("theorem3", "mixing", "explicit", N=N, w_star=w, k=k), "<=", TOL),
                ("second_moment (explicit)", m.second, _b("theorem3", "second_moment", "explicit", N=N, w_star=w,
                                                          t=d["t"], L=1.0, mu_norm=mu, D=1, c_cov=m.c_cov), "<=", TOL),
                ("variance (explicit)", m.variance, _b("theorem3", "variance", "explicit", N=N, w_star=w, L=1.0,
                                                       c_cov=m.c_cov), "<=", TOL)]
    return strat, ev


@spec("theorem4", "finite pi, q; N independent IMH chains at any states; t in 1..300")
def _t4():
    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(1, 6), "k": st.integers(1, 20),
                                   "t": st.integers(1, 300), "xs": st.lists(st.integers(0, 2), min_size=6, max_size=6),
                                   "s": scores(3)})

    def ev(d):
        pi, q = d["pq"]
        N = d["N"]
        xs = np.array(d["xs"][:N]) % pi.size
        K = F.imh_matrix(pi, q)
        w = float((pi / q).max())
        s = _unit_score(d["s"], pi.size)
        m = F.moments_pmcsa(K, s, xs)
        mu = min(1.0, float(abs(pi @ s[:, 0])))
        out = [("second_moment (explicit)", m.second, _b("theorem4", "second_moment", "explicit", N=N, w_star=w,
                                                         t=d["t"], L=1.0, mu_norm=mu, D=1), "<=", TOL)]
        if pi.size ** N <= 729:
            Kk = np.linalg.matrix_power(K, d["k"])
            tv = F.tv_joint(F.product_law([Kk[x] for x in xs]), F.product_law([pi] * N))
            out.append(("mixing (explicit)", tv, _b("theorem4", "mixing", "explicit", N=N, w_star=w, k=d["k"]), "<=", TOL))
        return out
    return strat, ev


@spec("lemma5", "finite pi, q; n in 1..10; the weight of any state")
def _l5():
    strat = st.fixed_dictionaries({"pq": finite_pair(), "n": st.integers(1, 10), "x": st.integers(0, 3)})

    def ev(d):
        pi, q = d["pq"]
        w = pi / q
        x = d["x"] % pi.size
        T = F.imh_T(pi, q, d["n"], float(w[x]))
        return [("T_n (stated)", T, _b("lemma5", "T_n", "stated", n=d["n"], w=float(w[x]), w_star=float(w.max())), "<=", TOL)]
    return strat, ev


@spec("lemma6", "finite pi, q; n in 1..10; any start; f >= 0")
def _l6():
    strat = st.fixed_dictionaries({"pq": finite_pair(), "n": st.integers(1, 10), "x": st.integers(0, 3),
                                   "f": st.lists(st.floats(0, 1), min_size=4, max_size=4)})

    def ev(d):
        pi, q = d["pq"]
        x = d["x"] % pi.size
        f = np.array(d["f"][: pi.size])
        emp = float(np.linalg.matrix_power(F.imh_matrix(pi, q), d["n"])[x] @ f)
        w = float((pi / q).max())
        return [("expectation (stated)", emp, _b("lemma6", "expectation", "stated", n=d["n"], w_star=w,
                                                 eq_f=float(q @ f), f_z=float(f[x])), "<=", TOL)]
    return strat, ev


@spec("lemma4", "finite pi, q; any state; lambda against q (the rejection probability)")
def _l4():
    strat = st.fixed_dictionaries({"pq": finite_pair(), "x": st.integers(0, 3)})

    def ev(d):
        pi, q = d["pq"]
        w = pi / q
        x = d["x"] % pi.size
        lam = F.imh_lambda(pi, q, float(w[x]), "q")
        ws = float(w.max())
        return [("lambda_lower", lam, _b("lemma4", "lambda_lower", "stated", w=float(w[x]), w_star=ws), ">=", TOL),
                ("lambda_upper", lam, _b("lemma4", "lambda_upper", "stated", w=float(w[x]), w_star=ws), "<=", TOL)]
    return strat, ev


@spec("lemma7", "finite pi, q; IMH; vector g with ||g|| = L in D = 1..4 dimensions; n in 1..20")
def _l7():
    strat = st.fixed_dictionaries({"pq": finite_pair(), "n": st.integers(1, 20), "D": st.integers(1, 4),
                                   "g": st.lists(st.floats(-1, 1), min_size=16, max_size=16)})

    def ev(d):
        pi, q = d["pq"]
        M, D = pi.size, d["D"]
        g = np.array(d["g"][: M * D]).reshape(M, D) + 1e-3
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        K = F.imh_matrix(pi, q)
        r = 1 - 1 / float((pi / q).max())
        bias = float(np.max(np.linalg.norm(np.linalg.matrix_power(K, d["n"]) @ g - pi @ g, axis=1)))
        return [("bias", bias, _b("lemma7", "bias", "stated", D=D, L=1.0, C=1.0, rho=r, n=d["n"]), "<=", TOL)]
    return strat, ev


@spec("lemma1", "two distributions on 2-3 states and their N-fold products, N in 1..5")
def _l1():
    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(1, 5)})

    def ev(d):
        p, q = d["pq"]
        tv = 0.5 * float(np.abs(p - q).sum())
        emp = F.tv_joint(F.product_law([p] * d["N"]), F.product_law([q] * d["N"]))
        return [("product_tv", emp, _b("lemma1", "product_tv", "stated", N=d["N"], tv=tv), "<=", TOL)]
    return strat, ev


@spec("lemma2", "discrete random vectors in R^1..R^3 and any mu")
def _l2():
    strat = st.fixed_dictionaries({"p": prob_vector(4), "v": st.lists(st.floats(-5, 5), min_size=12, max_size=12),
                                   "mu": st.lists(st.floats(-5, 5), min_size=3, max_size=3), "d": st.integers(1, 3)})

    def ev(d):
        dim = d["d"]
        vals = np.array(d["v"]).reshape(4, 3)[:, :dim]
        mu = np.array(d["mu"][:dim])
        p = d["p"]
        mean = p @ vals
        second = float(p @ (vals ** 2).sum(1))
        V = float(p @ ((vals - mean) ** 2).sum(1))
        bias = float(p @ np.linalg.norm(vals - mu, axis=1))
        mse = float(p @ ((vals - mu) ** 2).sum(1))
        mn = float(np.linalg.norm(mu))
        return [("second_moment_variance", second, _b("lemma2", "second_moment_variance", "stated", variance=V, bias=bias, mu_norm=mn), "<=", TOL),
                ("second_moment_mse", second, _b("lemma2", "second_moment_mse", "stated", mse=mse, bias=bias, mu_norm=mn), "<=", TOL)]
    return strat, ev


@spec("proposition2", "finite pi, q on 2-6 states")
def _p2():
    strat = finite_pair(6)

    def ev(pq):
        pi, q = pq
        w = pi / q
        kl = float(pi @ np.log(w))
        return [("w_star_lower", float(w.max()), _b("proposition2", "w_star_lower", "stated", kl=kl), ">=", TOL)]
    return strat, ev


@spec("cis_acceptance_bound", "finite pi, q; N proposals in 1..10; any current state")
def _cab():
    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(1, 10), "x": st.integers(0, 2)})

    def ev(d):
        pi, q = d["pq"]
        x = d["x"] % pi.size
        w = pi / q
        # acceptance = E_q[S/(w_x + S)], S = sum of N proposal weights: enumerate the multiset
        acc = 0.0
        from math import factorial
        for c in F._compositions(d["N"], pi.size):
            p = factorial(d["N"])
            for ci in c:
                p //= factorial(ci)
            p = p * np.prod([qq ** ci for qq, ci in zip(q, c)])
            S = sum(ci * wi for ci, wi in zip(c, w))
            acc += p * S / (w[x] + S)
        return [("acceptance_rate", float(acc), _b("cis_acceptance_bound", "acceptance_rate", "stated", N=d["N"], w=float(w[x])), "<=", TOL)]
    return strat, ev


@spec("imh_rejection_kl", "pi = N(0,1), q = N(m, s^2) with m in [-3, 3], s in [0.5, 3]: exact quadrature")
def _irk():
    strat = st.fixed_dictionaries({"m": st.floats(-3, 3), "s": st.floats(0.5, 3.0)})

    def ev(d):
        from scipy import stats

        m, s = d["m"], d["s"]
        lw = lambda z: stats.norm.logpdf(z) - stats.norm.logpdf(z, m, s)  # noqa: E731
        # acceptance = E_{z~pi, y~q} min(1, w(y)/w(z)) by 2-d quadrature on a Gauss-Hermite grid
        x, wt = np.polynomial.hermite_e.hermegauss(160)
        wt = wt / wt.sum()
        z = x
        y = m + s * x
        acc = float(wt @ np.minimum(1.0, np.exp(lw(y)[None, :] - lw(z)[:, None])) @ wt)
        kl = float(np.log(s) + (1 + m ** 2) / (2 * s ** 2) - 0.5)
        klr = float(-np.log(s) + (s ** 2 + m ** 2) / 2 - 0.5)
        return [("rejection_rate", 1 - acc, _b("imh_rejection_kl", "rejection_rate", "stated", kl=kl), "<=", 1e-6),
                ("rejection_rate_symmetric", 1 - acc, _b("imh_rejection_kl", "rejection_rate_symmetric", "stated", kl=kl, kl_rev=klr), "<=", 1e-6)]
    return strat, ev


@spec("sgfs_variance_trajectory", "k in (0, 4), t in 0..50, scalar VAR(1) recursion from theta_MAP")
def _svt():
    strat = st.fixed_dictionaries({"k": st.floats(0.01, 3.99), "t": st.integers(0, 50)})

    def ev(d):
        k, t = d["k"], d["t"]
        a, noise, v = 1 - k / 2, k - k * k / 4, 0.0
        for _ in range(t):
            v = a * a * v + noise
        return [("variance_ratio (stated)", v, _b("sgfs_variance_trajectory", "variance_ratio", "stated", k_frac=k, t_iter=t), "=", 1e-10)]
    return strat, ev


@spec("sgfs_stationary_covariance", "k in (0, 8), eps in (0, 2]: is the VAR(1) stationary (k < 1 as printed)?")
def _ssc():
    strat = st.fixed_dictionaries({"k": st.floats(0.01, 7.9), "eps": st.just(1.0)})

    def ev(d):
        k = d["k"]
        stationary = abs(1 - k / 2) < 1
        # empirical: 1 if stationary; bound: 1 if the printed condition k in (0, 1) admits k
        return [("stationary iff k < 1 (as printed)", float(stationary), float(k < 1), "=", 0.0)]
    return strat, ev


def search(claim: str, seed: int = 0, max_examples: int = 200):
    """Run the search; returns a dict with the outcome (JSON-able)."""
    if claim not in SPECS:
        return None
    sp_ = SPECS[claim]
    found = []
    best = {"ratio": -math.inf}
    n = {"examples": 0}

    class Violation(Exception):
        pass

    @settings(max_examples=max_examples, database=None, derandomize=False, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target, Phase.shrink])
    @hseed(seed)
    @given(sp_.strategy)
    def probe(inst):
        n["examples"] += 1
        rows = sp_.evaluate(inst)
        if not rows:
            return
        ratios = [_ratio(e, b, rel, tol) for _, e, b, rel, tol in rows]
        j = int(np.argmax(ratios))
        r = ratios[j] if math.isfinite(ratios[j]) else 1e300
        target(float(min(r, 1e300)), label="empirical/bound")
        if r > best["ratio"]:
            best.update(ratio=r, row=rows[j], inst=inst)
        for row in rows:
            if _violated(row[1], row[2], row[3], row[4]):
                found.append((inst, row))
                raise Violation()

    from .core import hypothesis_without_local_constants

    t0 = time.perf_counter()
    try:
        with hypothesis_without_local_constants():  # same examples for a seed, whatever is imported
            probe()
    except Violation:
        pass
    elapsed = time.perf_counter() - t0
    if found:
        inst, (label, emp, b, rel, tol) = found[-1]  # the last failure is the shrunk one
        return {"claim": claim, "found": True, "seed": seed, "examples": n["examples"], "elapsed_s": elapsed,
                "space": sp_.space, "counterexample": _show(inst), "check": label, "empirical": emp, "bound": b,
                "relation": rel}
    out = {"claim": claim, "found": False, "seed": seed, "examples": n["examples"], "elapsed_s": elapsed, "space": sp_.space}
    if "row" in best:
        label, emp, b, rel, tol = best["row"]
        out.update(closest={"instance": _show(best["inst"]), "check": label, "empirical": emp, "bound": b,
                            "ratio": best["ratio"]})
    return out


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
    from bounds.clikit import Parser, UsageError, number

    ap = Parser(prog="python -m verify search", description=(
        "Hypothesis search over a claim's parameter space (targets, proposals, N, k, t, test functions) for a "
        "violation, evaluated exactly; prints the shrunk counterexample. Reproducible from --seed."),
        epilog="Exit status: 0 no violation found, 1 counterexample found, 2 bad input (one line on stderr), "
               "70 internal error (rerun with --debug for the traceback), 130 interrupted.")
    ap.add_argument("claim", help=f"a claim with a search space: {', '.join(SPECS)}")
    ap.add_argument("--seed", default="0", help="integer >= 0 (default 0)")
    ap.add_argument("--max-examples", default="200", help=f"integer from 1 to {MAX_EXAMPLES} (default 200)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (strict RFC 8259)")
    a = ap.parse_args(argv)
    seed = number("--seed", a.seed, integer=True, lo=0)
    M = number("--max-examples", a.max_examples, integer=True, lo=1, hi=MAX_EXAMPLES)
    try:
        bounds.get(a.claim)
    except bounds.UnknownClaim as e:
        raise UsageError(str(e)) from None
    if a.claim not in SPECS:
        raise UsageError(f"no search space is defined for {a.claim} (searchable: {', '.join(SPECS)})")
    from bounds.clikit import dumps

    res = search(a.claim, seed, M)
    if a.json:
        print(dumps(res))
    else:
        print(f"search {a.claim} over {res['space']}: {res['examples']} examples, seed {seed}, {res['elapsed_s']:.1f} s")
        if res["found"]:
            print(f"COUNTEREXAMPLE ({res['check']}): empirical {res['empirical']:.6g} vs bound {res['bound']:.6g} "
                  f"(relation {res['relation']})\n  at {dumps(res['counterexample'])}")
        else:
            print("no violation found")
            if "closest" in res:
                c = res["closest"]
                print(f"closest: {c['check']} empirical {c['empirical']:.6g} vs bound {c['bound']:.6g} "
                      f"(ratio {c['ratio']:.4g}) at {dumps(c['instance'])}")
    return 1 if res["found"] else 0
