"""The checks of the teaching document: its facts held against exact computations.

Every fact the teaching material states is a claim of :mod:`verify.documents.teaching.formulas`;
here each gets a ``run(grid, seed, progress)`` returning :class:`verify.model.CheckResult` records,
as every claim of the documents does, and the machinery decides them
(:func:`verify.running.outcome.run_verification`).

The numbers are exact (:mod:`verify.documents.teaching.exact`, rational arithmetic), and so are the
bounds: each form is evaluated by sympy at the exact parameters (:func:`bound_exact`).  Both are
handed to the machinery as :class:`fractions.Fraction` values, which it takes as exact points
(docs/methods.md, section 12): an identity must hold as an identity, a strict inequality strictly,
and a verdict is never a rounding artefact (``settled_by`` says ``exact``).  This module is the
teaching document's only contact with the machinery's data model (``CheckResult``, ``Grid``,
``Verification``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from . import exact as X
from .formulas import BUILDERS

if TYPE_CHECKING:
    from verify.model import Relation

Fr = Fraction
FORM = "stated"


# ----------------------------------------------------------------------------- exact bounds
def bound_exact(claim_id: str, quantity: str, **values) -> Fraction:
    """A claim's form evaluated by sympy at exact parameter values (``Fraction`` or ``int``)."""
    import sympy as sp

    import bounds

    c = bounds.get(claim_id)
    expr = c.resolve(c.quantity(quantity).form(FORM).expr)
    subs = {c.param(k).symbol: sp.Rational(Fr(v).numerator, Fr(v).denominator)
            for k, v in values.items()}
    val = sp.nsimplify(expr.subs(subs)) if expr.free_symbols else expr
    val = sp.Rational(val)
    return Fr(int(val.p), int(val.q))


def _check(claim_id, quantity, params, empirical: Fraction, bound: Fraction, relation: Relation,
           note: str = ""):
    """A CheckResult on the exact values: the machinery decides it on the two exact points."""
    from verify.model import CheckResult

    return CheckResult(quantity, FORM, dict(params), Fr(empirical), Fr(bound), "exact",
                       relation=relation, note=note or _exact_note(empirical, bound))


def _exact_note(e: Fraction, b: Fraction) -> str:
    def show(x):  # a short fraction as it is, a long one (thousands of digits) as a float
        if x.numerator.bit_length() + x.denominator.bit_length() <= 120:
            return str(x)
        return f"{float(x):.15g} (a fraction of {x.denominator.bit_length()}-bit denominator)"
    return f"exact: {show(e)} against {show(b)}"


def _rows(claim_id, rows):
    """``(quantity, params, empirical, relation, bound params)`` -> checks, each bound evaluated
    exactly from the claim's formula."""
    out = []
    for quantity, params, empirical, relation, bparams in rows:
        b = bound_exact(claim_id, quantity, **bparams)
        out.append(_check(claim_id, quantity, params, empirical, b, relation))
    return out


# ----------------------------------------------------------------------------- the claims
def run_imh_escape(grid, seed=0, progress=None):
    cid = "teach_imh_escape"
    rows = []
    cases = [("exercise 1", [Fr(3, 10), Fr(1, 2), Fr(1, 5)],
              [Fr(3, 100), Fr(17, 25), Fr(29, 100)])]
    cases += [(f"two-state, w* = {w}", *X.two_state(Fr(w))[:2]) for w in grid["w_stars"]]
    cases += [(f"random {i}", pi, q) for i, (pi, q, _) in
              enumerate(X.rational_instances(seed, grid["instances"]))]
    for name, pi, q in cases:
        w = X.weights(pi, q)
        ws = max(w)
        for zs in [z for z in range(len(pi)) if w[z] == ws]:
            K = X.imh_kernel(pi, q)
            accept = sum(q[y] * min(Fr(1), w[y] / ws) for y in range(len(pi)))
            move = 1 - K[zs][zs]
            base = {"instance": name, "z*": zs, "w_star": float(ws), "pi0": float(pi[zs])}
            rows.append(("acceptance", base, accept, "=", {"w_star": ws}))
            rows.append(("move", base, move, "=", {"w_star": ws, "pi0": pi[zs]}))
            law = [Fr(int(y == zs)) for y in range(len(pi))]
            for k in range(max(grid["ks"]) + 1):
                if k in grid["ks"]:
                    rows.append(("tv_worst", {**base, "k": k}, X.tv(law, pi), "=",
                                 {"w_star": ws, "pi0": pi[zs], "k": k}))
                law = X.row_times(law, K)
    return _rows(cid, rows)


def run_cis_q_equals_pi(grid, seed=0, progress=None):
    cid = "teach_cis_q_equals_pi"
    rows = []
    for i, (pi, _, _) in enumerate(X.rational_instances(seed, grid["instances"], max_states=3)):
        for N in grid["N"]:
            K = X.cis_kernel(pi, pi, N)
            for x in range(len(pi)):
                base = {"instance": f"random {i}", "N": N, "x": x, "pi_x": float(pi[x])}
                rows.append(("stay", base, K[x][x], "=", {"N": N, "pi_x": pi[x]}))
                law = [Fr(int(y == x)) for y in range(len(pi))]
                for k in range(1, max(grid["ks"]) + 1):
                    law = X.row_times(law, K)
                    if k in grid["ks"]:
                        rows.append(("tv", {**base, "k": k}, X.tv(law, pi), "=",
                                     {"N": N, "pi_x": pi[x], "k": k}))
    return _rows(cid, rows)


def _rates(N, w):
    """rho of MSC (Theorem 1), pMCSA (Theorem 4) and JSA (Theorem 3) from their formulas, exactly:
    the stated mixing bounds at k = 1 (pMCSA's C(N) = N divided out)."""
    msc = bound_of_form("theorem1", "mixing", "stated", N=N, w_star=w, k=1)
    pm = bound_of_form("theorem4", "mixing", "stated", N=N, w_star=w, k=1) / N
    jsa = (1 - 1 / w) ** N
    return msc, pm, jsa


def _threshold(N) -> Fraction:
    """The w* where Theorem 1's and Theorem 4's per-iteration rates meet, solved by sympy."""
    import sympy as sp

    import bounds

    w = sp.Symbol("w", positive=True)
    t1, t4 = bounds.get("theorem1"), bounds.get("theorem4")

    def rate(c, scale):
        expr = c.resolve(c.quantity("mixing").form("stated").expr)
        return expr.subs({c.param("N").symbol: N, c.param("w_star").symbol: w,
                          c.param("k").symbol: 1}) / scale

    roots = [x for x in sp.solve(sp.Eq(rate(t1, 1), rate(t4, N)), w) if x.is_real and x > 1]
    if len(roots) != 1:
        raise RuntimeError(f"teach_mixing_rate_order: {len(roots)} crossings at N = {N}")
    root = sp.Rational(roots[0])
    return Fr(int(root.p), int(root.q))


def run_mixing_rate_order(grid, seed=0, progress=None):
    cid = "teach_mixing_rate_order"
    rows = []
    for N in grid["N"]:
        if N >= 4:
            th = _threshold(N)
            rows.append(("threshold", {"N": N}, th, "=", {"N4": N}))
        for w in [Fr(x) for x in grid["w_stars"]]:
            msc, pm, jsa = _rates(N, w)
            base = {"N": N, "w_star": float(w)}
            slower = N >= 4 and w > Fr(N - 2, N - 3)
            q = "ratio_slower" if slower else "ratio_not_slower"
            rows.append((q, base, (1 - msc) / (1 - pm), ">" if slower else "<=", {}))
            if w > 1:
                rows.append(("jsa_over_pmcsa", base, (1 - jsa) / (1 - pm), ">=", {}))
        if N >= 4:  # just either side of the threshold
            th = Fr(N - 2, N - 3)
            for w, q, rel in ((th * Fr(101, 100), "ratio_slower", ">"),
                              (th * Fr(99, 100), "ratio_not_slower", "<=")):
                if w >= 1:
                    msc, pm, _ = _rates(N, w)
                    rows.append((q, {"N": N, "w_star": float(w), "near": "threshold"},
                                 (1 - msc) / (1 - pm), rel, {}))
    return _rows(cid, rows)


def run_trivial_bounds(grid, seed=0, progress=None):
    cid = "teach_trivial_bounds"
    rows = []
    for i, (pi, q, s) in enumerate(X.rational_instances(seed, grid["instances"], max_states=3)):
        L = max(abs(v) for v in s)
        K = X.imh_kernel(pi, q)
        for N in grid["N"]:
            Kc = X.cis_kernel(pi, q, N)
            for x in range(len(pi)):
                base = {"instance": f"random {i}", "N": N, "x": x, "L": float(L)}
                for name, val in (("MSC", X.msc_conditional(Kc, s, x)[0]),
                                  ("MSC-RB", X.msc_rb_conditional(pi, q, s, x, N)[0]),
                                  ("JSA", X.jsa_conditional(K, s, x, N)[0]),
                                  ("pMCSA", X.pmcsa_conditional(K, s, [x] * N)[0])):
                    rows.append(("second_moment", {**base, "scheme": name}, val, "<=", {"L": L}))
                for name, Kx in (("IMH", K), ("CIS", Kc)):
                    rows.append(("tv", {**base, "kernel": name, "k": 1}, X.tv(Kx[x], pi), "<=",
                                 {}))
    return _rows(cid, rows)


def run_divergences(grid, seed=0, progress=None):
    cid = "teach_divergences"
    rows = []
    cases = [(f"random {i}", pi, q) for i, (pi, q, _) in
             enumerate(X.rational_instances(seed, grid["instances"]))]
    cases += [(f"two-state, w* = {w}", *X.two_state(Fr(w))[:2]) for w in grid["w_stars"]]
    cases.append(("q = pi", [Fr(1, 2), Fr(1, 3), Fr(1, 6)], [Fr(1, 2), Fr(1, 3), Fr(1, 6)]))
    for name, pi, q in cases:
        ws = max(X.weights(pi, q))
        rows.append(("one_plus_chi2", {"instance": name, "w_star": float(ws)},
                     sum(a * a / b for a, b in zip(pi, q)), "<=", {"w_star": ws}))
    return _rows(cid, rows)


def run_stationary_order(grid, seed=0, progress=None):
    cid = "teach_stationary_order"
    rows = []
    cases = [(f"random {i}", pi, q, s) for i, (pi, q, s) in
             enumerate(X.rational_instances(seed, grid["instances"], max_states=3))]
    cases += [(f"two-state, w* = {w}", *X.two_state(Fr(w))) for w in grid["w_stars"]]
    cases.append(("the counterexample", *X.COUNTEREXAMPLE))
    for name, pi, q, s in cases:
        es2, mu = X.dot(pi, [v * v for v in s]), X.dot(pi, s)
        for N in grid["N"]:
            st = X.stationary(pi, q, s, N)
            base = {"instance": name, "N": N}
            values = {"N": N, "msc_second": st["MSC"], "jsa_second": st["JSA"], "e_pi_s2": es2,
                      "mu": mu}
            rows.append(("pmcsa", base, st["pMCSA"], "=", values))
            rows.append(("pmcsa_vs_msc", base, st["pMCSA"], "<=", values))
            rows.append(("pmcsa_vs_jsa", base, st["pMCSA"], "<=", values))
        K = X.imh_kernel(pi, q)
        A = [[pi[x] * K[x][y] for y in range(len(pi))] for x in range(len(pi))]
        rows.append(("imh_psd", {"instance": name}, min(X.principal_minors(A)), ">=", {}))
    return _rows(cid, rows)


def run_stationary_counterexample(grid, seed=0, progress=None):
    cid = "teach_stationary_counterexample"
    pi, q, s = X.COUNTEREXAMPLE
    rows = []
    for N in grid["N"]:
        st = X.stationary(pi, q, s, N)
        for quantity, scheme, rel in (("msc_rb", "MSC-RB", "<"), ("jsa", "JSA", "="),
                                      ("msc", "MSC", "=")):
            rows.append((quantity, {"N": N, "scheme": scheme}, st[scheme], rel, {"N": N}))
    return _rows(cid, rows)


def run_conditional_variances(grid, seed=0, progress=None):
    cid = "teach_conditional_variances"
    pi, q, s = X.notebook03_instance()
    K = X.imh_kernel(pi, q)
    rows = []
    for x in range(len(pi)):
        one = X.pmcsa_conditional(K, s, [x])[2]
        for N in grid["N_pmcsa"]:
            rows.append(("pmcsa_n_var", {"state": x, "N": N},
                         N * X.pmcsa_conditional(K, s, [x] * N)[2], "=",
                         {"v_one": one}))
    v_jsa_one = X.jsa_conditional(K, s, 0, 1)[2]
    for N in grid["N_jsa"]:
        rows.append(("jsa_growth", {"state": "z*", "N": N}, X.jsa_conditional(K, s, 0, N)[2], ">",
                     {"v_one": v_jsa_one}))
    prev = None
    for N in grid["N_msc"]:
        Kc = X.cis_kernel(pi, q, N)
        v = X.msc_conditional(Kc, s, 0)[2]
        if prev is not None:
            rows.append(("msc_growth", {"state": "z*", "N": N}, v, ">", {"v_prev": prev}))
        rb = X.msc_rb_conditional(pi, q, s, 0, N)[2]
        other = min(v, X.jsa_conditional(K, s, 0, N)[2])
        rows.append(("msc_rb_small", {"state": "z*", "N": N}, rb, "<", {"v_other": other}))
        prev = v
    return _rows(cid, rows)


def run_corrected_theorem4(grid, seed=0, progress=None):
    from itertools import combinations_with_replacement

    cid = "teach_corrected_theorem4"
    rows = []
    cases = [(f"random {i}", pi, q, s) for i, (pi, q, s) in
             enumerate(X.rational_instances(seed, grid["instances"], max_states=3, w_max=Fr(3, 2)))]
    for name, pi, q, s in cases:
        ws = max(X.weights(pi, q))
        r = 1 - 1 / ws
        L = max(abs(v) for v in s)
        mu = abs(X.dot(pi, s))
        K = X.imh_kernel(pi, q)
        for N in grid["N"]:
            informative = (1 + r) / N + (mu / L + 2 * r) ** 2 < 1
            values = {"N": N, "w_star": ws, "L": L, "mu_norm": mu}
            base = {"instance": name, "N": N, "w_star": float(ws), "L": float(L),
                    "mu_norm": float(mu)}
            if informative:
                for xs in combinations_with_replacement(range(len(pi)), N):
                    second, mean, _ = X.pmcsa_conditional(K, s, list(xs))
                    rows.append(("second_moment", {**base, "chains at": list(xs)}, second, "<=",
                                 values))
                capped = bound_of_form("theorem4", "second_moment", "corrected", N=N, w_star=ws,
                                       L=L, mu_norm=mu)
                rows.append(("informative", base, capped, "<", values))
            for x in range(len(pi)):
                bias = abs(X.dot(K[x], s) - X.dot(pi, s))
                rows.append(("one_step_bias", {**base, "state": x}, bias, "<=", values))
    for w in grid["vacuous_w_stars"]:
        ws = Fr(w)
        for N in grid["N"]:
            values = {"N": N, "w_star": ws, "L": Fr(1), "mu_norm": Fr(0)}
            capped = bound_of_form("theorem4", "second_moment", "corrected", **values)
            rows.append(("vacuous", {"N": N, "w_star": float(ws), "L": 1, "mu_norm": 0}, capped,
                         ">=", values))
    return _rows(cid, rows)


def bound_of_form(claim_id: str, quantity: str, form: str, **values) -> Fraction:
    """A documents' claim's form (bounds.paper) evaluated exactly."""
    import sympy as sp

    import bounds

    c = bounds.get(claim_id)
    expr = c.resolve(c.quantity(quantity).form(form).expr)
    subs = {c.param(k).symbol: sp.Rational(Fr(v).numerator, Fr(v).denominator)
            for k, v in values.items()}
    val = sp.Rational(sp.nsimplify(expr.subs(subs)))
    return Fr(int(val.p), int(val.q))


def run_msc_rb_stated_vacuous(grid, seed=0, progress=None):
    cid = "teach_msc_rb_stated_vacuous"
    rows: list = []
    for N in grid["N"]:
        for L, mu in grid["L_mu"]:
            L, mu = Fr(L), Fr(mu)
            threshold = (N - 1) * (L * L - mu * mu) / (4 * L * L)
            for chi2 in (threshold, threshold * Fr(3, 2), threshold * Fr(2, 3),
                         threshold * Fr(999, 1000)):
                vac = chi2 >= threshold
                stated = bound_of_form("theorem2", "second_moment", "stated", N=N, L=L,
                                       mu_norm=mu, chi2=chi2)
                rows.append(("vacuous" if vac else "informative",
                             {"N": N, "L": float(L), "mu_norm": float(mu), "chi2": float(chi2)},
                             stated / (L * L), ">=" if vac else "<", {}))
    return _rows(cid, rows)


def _ratio(N, w, optimizer) -> Fraction:
    """pMCSA's / JSA's rate bound of Table 1 (bounds.paper), with Theorems 3-4's stated G^2
    (mu = 0, C_cov = 0) and rho (r^N, r): the log(1/rho) of mirror descent simplified by sympy
    before r is set, so the ratio is exact."""
    import sympy as sp

    import bounds
    from verify.presenting.draw import rates_claim

    t1 = bounds.get(rates_claim())
    r = sp.Symbol("r", positive=True)
    G2 = {}
    for scheme, claim in (("pMCSA", "theorem4"), ("JSA", "theorem3")):
        c = bounds.get(claim)
        expr = c.resolve(c.quantity("second_moment").form("stated").expr)
        subs = {c.param("N").symbol: N, c.param("w_star").symbol: 1 / (1 - r),
                c.param("L").symbol: 1}
        for name in ("mu_norm", "c_cov"):
            if name in {p.name for p in c.params}:
                subs[c.param(name).symbol] = 0
        G2[scheme] = expr.subs(subs)
    rho = {"pMCSA": r, "JSA": r ** N}
    form = t1.quantity(optimizer).form("stated").expr
    rate = {sc: form.subs({t1.param("G").symbol: sp.sqrt(G2[sc]), t1.param("T").symbol: 10_000,
                           **({t1.param("rho").symbol: rho[sc]} if optimizer == "mirror_descent"
                              else {})})
            for sc in ("pMCSA", "JSA")}
    ratio = sp.simplify(sp.expand_log(rate["pMCSA"] / rate["JSA"], force=True))
    val = sp.Rational(sp.nsimplify(ratio.subs(r, 1 - 1 / sp.Rational(w.numerator, w.denominator))))
    return Fr(int(val.p), int(val.q))


def run_rate_ratios(grid, seed=0, progress=None):
    cid = "teach_rate_ratios"
    rows = []
    for N in grid["N"]:
        for w in [Fr(x) for x in grid["w_stars"]]:
            base = {"N": N, "w_star": float(w)}
            md, ns = _ratio(N, w, "mirror_descent"), _ratio(N, w, "sgd_nesterov")
            rows.append(("mirror_descent", base, md, "=", {"N": N, "w_star": w}))
            rows.append(("sgd_nesterov", base, ns, "=", {"N": N, "w_star": w}))
            if N >= 3:
                rows.append(("md_prefers_jsa", base, md, ">", {}))
            rows.append(("nesterov_prefers_pmcsa", base, ns, "<", {}))
    return _rows(cid, rows)


#: the crossings notebook 08 prints (N = 16, pi(z*) = 0.3): w* for t = 10 .. 1000, two decimals
PRINTED_CROSSINGS = {10: "16.59", 30: "60.48", 100: "215.18", 300: "657.43", 1000: "2205.36"}


def run_transient_crossing(grid, seed=0, progress=None):
    cid = "teach_transient_crossing"
    rows: list = []
    N = grid["N"]
    brackets = []
    for t in grid["t"]:
        c = Fr(PRINTED_CROSSINGS[t])
        brackets.append((t, c - Fr(1, 200), c + Fr(1, 200), "printed to 2 decimals"))
        if t >= 100:
            brackets.append((t, Fr(21, 10) * t, Fr(23, 10) * t, "2.1 t to 2.3 t"))
    for t, lo, hi, what in brackets:
        for w, q, rel in ((lo, "below", "<"), (hi, "above", ">")):
            pm, jsa = X.transient_moments(w, t, N)
            rows.append((q, {"t": t, "w_star": float(w), "N": N, "bracket": what}, pm / jsa, rel,
                         {}))
    return _rows(cid, rows)


RUNS = {"teach_imh_escape": run_imh_escape, "teach_cis_q_equals_pi": run_cis_q_equals_pi,
        "teach_mixing_rate_order": run_mixing_rate_order,
        "teach_trivial_bounds": run_trivial_bounds, "teach_divergences": run_divergences,
        "teach_stationary_order": run_stationary_order,
        "teach_stationary_counterexample": run_stationary_counterexample,
        "teach_conditional_variances": run_conditional_variances,
        "teach_corrected_theorem4": run_corrected_theorem4,
        "teach_msc_rb_stated_vacuous": run_msc_rb_stated_vacuous,
        "teach_rate_ratios": run_rate_ratios, "teach_transient_crossing": run_transient_crossing}

#: quick grids (seconds: the suite and the report run them) and full grids
GRIDS: dict[str, tuple[dict, dict]] = {
    "teach_imh_escape": ({"w_stars": [2, 10, 1000], "instances": 6, "ks": [0, 1, 2, 5, 20]},
                         {"w_stars": [2, 10, 1000, 10 ** 6], "instances": 40,
                          "ks": [0, 1, 2, 5, 20, 100]}),
    "teach_cis_q_equals_pi": ({"instances": 3, "N": [2, 4], "ks": [1, 2, 5]},
                              {"instances": 10, "N": [2, 3, 4, 6], "ks": [1, 2, 5, 10]}),
    "teach_mixing_rate_order": ({"N": [2, 3, 4, 5, 8, 16], "w_stars": [1, 2, 10, 1000]},
                                {"N": list(range(2, 33)),
                                 "w_stars": [1, "5/4", "3/2", 2, 3, 10, 1000, 10 ** 6]}),
    "teach_trivial_bounds": ({"instances": 4, "N": [2, 3]},
                             {"instances": 20, "N": [2, 3, 5]}),
    "teach_divergences": ({"instances": 10, "w_stars": [2, 10, 1000]},
                          {"instances": 100, "w_stars": [2, 10, 1000, 10 ** 6]}),
    "teach_stationary_order": ({"instances": 4, "N": [2, 3, 5], "w_stars": [2, 10]},
                               {"instances": 20, "N": [2, 3, 5, 8], "w_stars": [2, 10, 1000]}),
    "teach_stationary_counterexample": ({"N": list(range(2, 17))}, {"N": list(range(2, 25))}),
    "teach_conditional_variances": ({"N_pmcsa": [1, 2, 4, 8, 16, 32], "N_jsa": [32],
                                     "N_msc": [2, 4, 8]},
                                    {"N_pmcsa": [1, 2, 4, 8, 16, 32], "N_jsa": [8, 16, 32],
                                     "N_msc": [2, 4, 8, 16]}),
    "teach_corrected_theorem4": ({"instances": 4, "N": [2, 4], "vacuous_w_stars": [2, 10, 1000]},
                                 {"instances": 20, "N": [2, 4, 8],
                                  "vacuous_w_stars": [2, 3, 10, 1000, 10 ** 6]}),
    "teach_msc_rb_stated_vacuous": ({"N": [2, 16], "L_mu": [(1, 0), (2, 1)]},
                                    {"N": [2, 4, 16, 64], "L_mu": [(1, 0), (2, 1), (3, 2)]}),
    "teach_rate_ratios": ({"N": [2, 3, 16], "w_stars": ["3/2", 10, 10 ** 4]},
                          {"N": [2, 3, 4, 16, 64], "w_stars": ["5/4", "3/2", 2, 10, 10 ** 4]}),
    "teach_transient_crossing": ({"N": 16, "t": [10, 30, 100, 300, 1000]},
                                 {"N": 16, "t": [10, 30, 100, 300, 1000]}),
}

#: what each claim measures, and on which instances
MEASURES = {
    "teach_imh_escape": ("IMH's acceptance and move probabilities at z*, d_TV(K^k(z*, .), pi)",
                         "Exercise 1's instance, two-state instances, random rational pairs"),
    "teach_cis_q_equals_pi": ("CIS's K(x, x) and d_TV(K^k(x, .), pi) at q = pi",
                              "random rational targets, N = 2..6"),
    "teach_mixing_rate_order": ("rho_pMCSA / rho_MSC, rho_JSA / rho_pMCSA, the crossing w*",
                                "Theorems 1, 3, 4's rates on a grid of N and rational w*"),
    "teach_trivial_bounds": ("each scheme's E[||g||^2 | x], d_TV of one step",
                             "random rational pairs and scores"),
    "teach_divergences": ("1 + chi2(pi||q)", "random rational pairs, two-state instances"),
    "teach_stationary_order": ("the four schemes' stationary E||g||^2; the minors of diag(pi) K",
                               "random rational pairs, two-state instances, the counterexample"),
    "teach_stationary_counterexample": ("the four schemes' stationary E||g||^2",
                                        "pi = (1/2, 1/4, 1/4), q = (1/10, 9/20, 9/20), "
                                        "s = (0, 1, -1)"),
    "teach_conditional_variances": ("V[g | x] of the four schemes at the worst state",
                                    "notebook 03's 4-state instance (its floats, exactly)"),
    "teach_corrected_theorem4": ("pMCSA's E[||g||^2 | chains], its one-step bias, Theorem 4's "
                                 "corrected form", "random rational pairs with w* < 3/2, "
                                 "two-state instances"),
    "teach_msc_rb_stated_vacuous": ("Theorem 2's stated bound / L^2",
                                    "chi2 at and around (N - 1)(L^2 - ||mu||^2)/(4 L^2)"),
    "teach_rate_ratios": ("Table 1's rate bounds, pMCSA's / JSA's",
                          "Theorems 3-4's stated G^2 and rho, exact in r"),
    "teach_transient_crossing": ("pMCSA's / JSA's E||g_t||^2 from z*",
                                 "the two-state instance, pi(z*) = 3/10, N = 16, rational w*"),
}


def verifications():
    """The teaching document's :class:`verify.model.Verification` objects, one per claim."""
    from verify.model import Grid, Verification

    out = []
    for cid in BUILDERS:
        quick, full = GRIDS[cid]
        measures, targets = MEASURES[cid]
        out.append(Verification(cid, measures=measures, targets=targets, method="exact",
                                forms=FORM, grid=Grid(quick=quick, full=full), run=RUNS[cid],
                                proof="a fact of the teaching material, checked exactly; its "
                                      "derivation is in the exercise or notebook it comes from"))
    return out
