"""The statements of Kim et al. (NeurIPS 2022) checked as audit steps
(verify/documents/kim2022/statements.py).

* the findings of the independent hunt 3 encoded here (H01, H02, H09, H10, H11; H03-H05 are steps of
  proofs.py, pinned in tests/test_proofs_kim2022.py): the toolkit's own computation gives the hunt's
  numbers (typed in below with their source);
* every check can fail: a deliberately wrong value (a planted error in the kernel, the bound or the
  data the check reads) is caught;
* the numbers read from the stored full Figure 1 run are the CSV's.
Runs in about a minute (a few steps are recomputed with their search).
"""

import math
import pathlib
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from verify.audit import engine
from verify.audit.engine import EXACT, STEPS, UNCHECKED, VALID, WRONG, Int, Real, sym_le
from verify.documents.kim2022 import statements as S

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _check(sid):
    """The step's check on its fixed instances only (no search): fast, and what a planted error must
    break.
    """
    return STEPS[sid].check()


def _ce(sid):
    o = _check(sid)
    assert o.status == WRONG, (sid, o.status, o.detail)
    return o.counterexample


# ----------------------------------------------------------------------------- hunt 3: the numbers
def test_h01_table1_sgd_stepsize():
    """H01: A = diag(1, 10), lambda_0 = (1, 1), G = sqrt(2) L: at T = 1e6 0.2361 vs 0.002763 (ratio
    85.4), at
    T = 1e14 ratio 5.8e8; well-conditioned (mu = L = 1) the ratio stays small (0.02304 at T =
    1e6)."""
    e, r = S.sgd_mean_error(1, 10, 10 ** 6), S.sgd_rate(1, 10, 10 ** 6)
    assert (float(e) == pytest.approx(0.236103, rel=1e-5) and float(r)
            == pytest.approx(0.0027631, rel=1e-4))
    assert float(e / r) == pytest.approx(85.4485, rel=1e-5)
    assert (float(S.sgd_mean_error(1, 10, 10 ** 14) / S.sgd_rate(1, 10, 10 ** 14))
            == pytest.approx(5.804e8, rel=1e-3))
    assert (float(S.sgd_mean_error(1, 1, 10 ** 6) / S.sgd_rate(1, 1, 10 ** 6))
            == pytest.approx(0.02304, rel=1e-3))
    ce = _ce("table1.sgd_stepsize")
    assert (ce["at"]["kappa = L/mu"] == 10.0 and ce["at"]["ratio"]
            == pytest.approx(85.4485, rel=1e-5))
    assert ce["lhs"] == pytest.approx(0.1, abs=1e-6)  # the decay exponent mu/L
    assert STEPS["table1.sgd_stepsize"].statement and STEPS["table1.sgd_stepsize"].claim == "table1"


def test_h01_the_exact_mean_is_the_recursion():
    """The Gamma-product closed form against the recursion E lambda_t = (1 - c/t) E lambda_t-1, and
    the averaged
    iterate's closed form against the direct sum."""
    for c in (0.05, 0.3, 0.5):
        for T in (1, 7, 60):
            with mpmath.workdps(30):
                pf = float(S._prod_factor(mpmath.mpf(c), mpmath.mpf(T)))
                af = float(S._avg_factor(mpmath.mpf(c), mpmath.mpf(T)))
            prods = np.cumprod([1 - c / t for t in range(1, T + 1)])
            assert (pf == pytest.approx(prods[-1], rel=1e-12) and af
                    == pytest.approx(prods.mean(), rel=1e-12))


def test_h02_table4_except_gas():
    ce = _ce("statements.table4_except_gas")
    assert ce["at"]["data set"] == "yacht" and ce["lhs"] == -3.31 and ce["rhs"] == -3.25
    assert ce["at"]["higher than pMCSA"] == ["JSA", "MSC", "MSC-RB"]
    b = S.TABLE4["boston"]
    assert b[S.TABLE4_COLS.index("pMCSA")] == b[S.TABLE4_COLS.index("MSC-RB")] == -2.96


def test_h09_bnn_relu_output_and_parameters():
    X, y = S.bnn_standardised_data()
    assert np.mean(y < 0) == 0.4895  # the hunt prints 0.489 (48.9 %)
    ce = _ce("statements.appc1_relu")
    assert (ce["lhs"] == pytest.approx(0.5056, abs=5e-5) and ce["rhs"]
            == pytest.approx(0.479, abs=5e-4))
    ce = _ce("statements.appc1_params")
    assert (ce["lhs"], ce["rhs"]) == (352.0, 403.0) and ce["at"]["data set"] == "yacht"
    assert S.bnn_params_with_biases(6) == 403 and S.bnn_params_with_biases(8) == 503


def test_h10_sigma_is_the_variance():
    ce = _ce("statements.s7_sigma")
    assert Fraction(ce["at"]["printed sigma^2/N"]) == Fraction(9747, 160000)
    assert Fraction(ce["at"]["exact V[g]"]) == Fraction(57, 400) == Fraction(171, 400) / 3
    assert ce["lhs"] == pytest.approx(0.0609, abs=5e-5) and ce["rhs"] == pytest.approx(0.1425)
    # with sigma^2 the variance the sentence holds, exactly
    assert S.pmcsa_stationary_variance(S.H_PI * 0 + np.array([0.5, 0.3, 0.2]),
                                       np.array([1, -0.5, 0.25]), 3) == \
        pytest.approx(57 / 400, rel=1e-14)


def test_h11_tighter_bound_depends_on_reading():
    ce = _ce("statements.tighter_uniform")
    assert ce["at"]["N"] == 1 and ce["lhs"] == pytest.approx(1.76) and ce["rhs"] == 1.0
    b = S.stated_bounds(*S.H11_CASES[1])
    assert (b["mu"] == pytest.approx(0.88) and b["T4"] == pytest.approx(1.4411, abs=5e-5)
            and b["T1"] == 1.0)
    assert b["T4"] <= b["T3"]  # against Theorem 3 the claim holds
    assert STEPS["statements.tighter_variance_part"].run().status == VALID


def test_stored_figure1_run_numbers_are_the_csvs():
    csv = ROOT / "docs" / "figures" / "figure1.csv"
    if not csv.is_file():
        pytest.skip("the stored full run is not in this checkout")
    from simulate.targets import wishart_target
    from verify.documents.kim2022 import figures as Fg

    rows = Fg.read_csv(csv)
    cov = wishart_target(50, 500, seed=0).cov
    kl_min = 0.5 * (np.log(np.diag(cov)).sum() - np.linalg.slogdet(cov)[1])
    assert kl_min == pytest.approx(1.1897, abs=5e-5)
    ts = sorted({r["t"] for r in rows})
    for scheme, by_tau in S.FIG1_REACH.items():
        for tau, (t8, t128) in by_tau.items():
            tau_exact = 1.0 if tau == 1.0 else round(tau / 1.1897) * kl_min
            for N, want in ((8, t8), (128, t128)):
                reach = []
                for rep in sorted({r["replicate"] for r in rows}):
                    kl = {r["t"]: r["kl"] for r in rows if r["scheme"] == scheme and r["N"] == N
                          and r["replicate"] == rep}
                    reach.append(next((t for t in ts if kl[t] <= kl_min + tau_exact), math.inf))
                assert np.median(reach) == want, (scheme, tau, N)
    # w* = inf at every recorded iteration (wstar_meanfield)
    assert all(not math.isfinite(r["w_star"]) for r in rows)


# ----------------------------------------------------------------------------- every check can fail
def test_statuses_of_the_steps_without_search():
    for sid, status in (("statements.table3_best", VALID), ("statements.table3_comparable", VALID),
                        ("statements.table3_numbers", VALID), ("statements.table4_gas", VALID),
                        ("statements.cost_q_dominated", VALID),
                        ("statements.pmcsa_acceleration_lenient", VALID),
                        ("statements.pmcsa_acceleration", WRONG), ("statements.table3_gas", WRONG),
                        ("statements.alg5_is_jsa", WRONG),
                        ("statements.theorem3_bias_conditional", WRONG),
                        ("statements.mcgd_rho_influence", UNCHECKED)):
        assert _check(sid).status == status, sid


def test_rho_influence_is_unchecked_a_cited_bound():
    """§3.2 reports a term of Doan et al. (2020b)'s bound, not in the document: unchecked, with the
    toy
    chain's order-1/T influence kept as a remark (a false alarm as a finding; issue 23)."""
    o = _check("statements.mcgd_rho_influence")
    assert o.status == UNCHECKED and "Doan et al. (2020b)" in o.detail and "order 1/T" in o.detail


@pytest.mark.parametrize("sid,target,planted", [
    # kernels: a planted error in the box breaks pi-invariance
    ("statements.cis_invariance", "cis_box",
     lambda f: lambda pi, q,
         n: f(pi, q,
              n) @ np.diag(np.r_[1.02, np.ones(len(pi) - 1)])
              / (f(pi, q, n) @ np.r_[1.02, np.ones(len(pi) - 1)])[:,
                                                                  None]),
    # targets q instead of pi
    ("statements.imh_invariance", "imh_box", lambda f: lambda pi, q: f(q, pi)),
    ("statements.imh_worst_start", "_r", lambda f: lambda pi, q: 0.9 * f(pi, q)),
    ("statements.theorem4_def", "_pmcsa_tuple_law", lambda f: lambda K, xs, k: f(K, xs, k + 1)),
    ("statements.theorem3_bias_over_N", "_r", lambda f: lambda pi, q: 0.5 * f(pi, q)),
    ("statements.s7_variance", "pmcsa_stationary_variance", lambda f: lambda pi, s,
     N: 1.01 * f(pi, s, N)),
    ("statements.chi2_kl", "exp_kl_and_chi2", lambda f: lambda pi,
     q: (f(pi, q)[0], 1 + 0.3 * (f(pi, q)[1] - 1))),
    ("statements.qdef_w_star", "qdef_sides", lambda f: lambda *a: (f(*a)[0], 0.9 * f(*a)[1])),
    ("statements.lemma7_sup", "lemma7_sup_sides", lambda f: lambda *a: (f(*a)[0], 0.4 * f(*a)[1])),
    ("statements.bounded_variance", "strong_convexity_sides",
     lambda f: lambda A, v, R,
     c: (float(np.linalg.eigvalsh(A)[-1]) ** 2 * R ** 2, f(A, v, R, c)[1])),
    ("statements.wstar_meanfield", "meanfield_optimum_gap", lambda f: lambda Sig: -f(Sig)),
    ("statements.mcgd_lazy_error", "lazy_error_closed", lambda f: lambda tr, rho,
     T: f(tr, rho, T) * (1 + 1e-6)),
])
def test_a_planted_error_is_caught(monkeypatch, sid, target, planted):
    assert _check(sid).status in (EXACT, VALID), sid
    monkeypatch.setattr(S, target, planted(getattr(S, target)))
    assert _check(sid).status == WRONG, sid


def test_planted_errors_in_data_and_thresholds_are_caught(monkeypatch):
    monkeypatch.setitem(S.TABLE3, "yacht", (-2.45, -2.44, -3.5, -3.00, -2.98, -2.98))
    assert _check("statements.table3_best").status == WRONG
    monkeypatch.setitem(S.TABLE3, "airfoil", (-2.53, -2.56, -2.26, -2.51, -2.53, -2.51))
    assert _check("statements.table3_numbers").status == WRONG
    monkeypatch.setattr(S, "COST_K", 10 ** 5)
    assert _check("statements.cost_q_dominated").status == WRONG
    monkeypatch.setitem(S.FIG1_REACH, "pmcsa", {**S.FIG1_REACH["pmcsa"], 1.0: (5000, 4000)})
    assert _check("statements.pmcsa_acceleration_lenient").status == WRONG
    monkeypatch.setitem(S.TABLE4, "gas", (0.18, -1.2, -1.10, -1.10, -1.06))
    assert _check("statements.table4_gas").status == WRONG


def test_planted_errors_in_the_symbolic_statements_are_caught():
    N, w = sp.Symbol("N", positive=True, integer=True), sp.Symbol("w_star", positive=True)
    dom = {N: Int(2, 10 ** 4, log=True), w: Real(1.0, 1e12, log=True)}
    # Theorem 4's variance part against 0.9 x the min of Theorems 1 and 3's: fails at N = 2, w* > 5
    assert sym_le((2 - 1 / w) / N,
                  sp.Rational(9, 10) * sp.Min(1, sp.Rational(1, 2) + sp.Rational(3, 2) / N),
                  symbols=[N, w], domain=dom).status == WRONG
    # Theorem 1's rate against a gain of (N - 1)/(4 w*) instead of (N - 1)/(2 w*)
    assert (sym_le(1 - (N - 1) / (4 * w), 1 - (N - 1) / (2 * w + N - 2), symbols=[N, w],
                   domain=dom).status == WRONG)


def test_searched_steps_are_searched_within_their_budget():
    """A few of the new steps recomputed with their search: established by the search, within its
    evaluation budget
    (their cost is measured in benchmarks/, not here)."""
    for sid in ("statements.imh_worst_start", "statements.jsa_ccov_nonneg",
                "statements.theorem3_bias_over_N"):
        o = STEPS[sid].compute()
        # an '=' searched on doubles is "not refuted" (its rows agree within their enclosures)
        by = ("search", "not refuted") if o.status == EXACT else ("search",)
        assert (o.established_by in by and o.evaluations >= 1000
                and o.status in (EXACT, VALID)), (sid, o.detail)
        assert o.evaluations <= 2 * STEPS[sid].search_budget, (sid, o.evaluations)
    assert engine.STEPS["statements.imh_worst_start"].search_budget == 1000


# ------------------------------------------------------------------------- claims table1 and table2
def test_table1_fails_for_every_condition_number_above_one_under_every_reading():
    from verify.model import HOLDS, VIOLATED
    from verify.registry import REGISTRY
    from verify.running.outcome import rescore, run_verification

    rep = run_verification(REGISTRY["table1"], "quick", seed=0)
    assert (rep.verdict == VIOLATED and set(rep.readings.values()) == {VIOLATED}
            and len(rep.readings) == 3)
    exact = [c for c in rep.checks if c.quantity.startswith("sgd (exact)")]
    assert {c.params["kappa = L/mu"] for c in exact} == {1.0, 2.0, 10.0}
    for c in exact:  # kappa = 1 holds, every kappa > 1 fails (decay exponent 1/kappa)
        assert c.verdict == (HOLDS if c.params["kappa = L/mu"] == 1.0 else VIOLATED), c.params
        assert c.empirical == pytest.approx(1 / c.params["kappa = L/mu"], abs=0.01)
    # the checks that hold can fail: a bound tightened by 2 breaks the kappa = 1 ones
    tight = rescore(rep, 0.5)
    assert all(c.verdict == VIOLATED for c in tight.checks if c.quantity.startswith("sgd (exact)"))


def test_table2_counts_p_gradients_and_the_elbo_row():
    from simulate.families import MeanFieldGaussian
    from simulate.targets import isotropic
    from verify.documents.kim2022 import lemmas

    counts = {"p_eval": 0, "q_eval": 0, "q_sample": 0, "p_grad": 0, "q_grad": 0}
    tgt = lemmas._counting_target(isotropic(3), counts)
    fam = MeanFieldGaussian(3)
    g = lemmas.elbo_path_derivative(tgt, fam, fam.init(0.3, 1.2), 4, np.random.default_rng(0),
                                    counts)
    assert (counts == {"p_eval": 0, "q_eval": 0, "q_sample": 4, "p_grad": 4,
                       "q_grad": 4} and g.shape == (6,))
    # the counter has power: a gradient call through the target is counted
    tgt.grad_logpdf(np.zeros((5, 3)))
    assert counts["p_grad"] == 9
    from verify.registry import REGISTRY
    from verify.running.outcome import run_verification

    rep = run_verification(REGISTRY["table2"], "quick", seed=0, overrides={"N": [5]})
    pg = [c for c in rep.checks if c.quantity.endswith(".p_grad")]
    assert ({c.quantity for c in pg} == {"MSC.p_grad", "MSC-RB.p_grad", "JSA.p_grad",
                                         "pMCSA.p_grad", "ELBO.p_grad"})
    assert all(c.verdict == "holds" for c in rep.checks)
    assert next(c for c in pg if c.quantity == "ELBO.p_grad").empirical == 5.0
    assert all(c.empirical == 0.0 for c in pg if c.quantity != "ELBO.p_grad")


def test_comparable_on_gas_depends_on_the_gap_threshold(monkeypatch):
    """'comparable' on gas: fails with Table 3's bolding, holds with a gap threshold at the lenient
    end of
    [0.05, 0.4] (0.22 nat to the best), and fails at the strict end: the verdict changes inside the
    range."""
    assert STEPS["statements.table3_gas"].run().status == WRONG
    assert STEPS["statements.table3_gas_gap"].run().status == VALID
    monkeypatch.setattr(S, "GAP_RANGE", (0.05, 0.05))
    assert S._table3_gas_gap().status == WRONG
