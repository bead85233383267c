"""Tests of verify.sgmcmc: the six claims of 002 (stochastic-gradient MCMC).

Expected verdicts follow from the mathematics (not from the document):

* sgfs_stationary_covariance: violated -- Lambda = H^-1/(1 - k eps/4) is right, but the
  printed stationarity range "k in (0, 1)" (eps = 1) is not: the range is k < 4/eps.
* sgfs_exact_noise: holds -- (I - DH) H^-1 (I - HD) + 2D - DHD = H^-1 for every D.
* sgfs_admissible_k: holds -- Eqs. (13), (15), (16) are valid sufficient conditions;
  the remark "for strong priors r > 1" (non-primary) is violated.
* sgfs_variance_trajectory: violated -- Var[theta_t] = 1 - (1 - k/2)^(2t), not ^t.
* sgfs_autocovariance: holds -- Cov[theta_t, theta_{t-1}] = (I - DH) H^-1 = (1 - k/2) H^-1.
* sgfs_convergence_criterion: violated -- Eq. (17) omits the factor C and the
  autocorrelation of the iterates.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import verify.documents.elhanchi2018.checks as sg
from verify.outcome import run_verification
from verify.registry import REGISTRY

CLAIMS = ("sgfs_stationary_covariance", "sgfs_exact_noise", "sgfs_admissible_k",
          "sgfs_variance_trajectory", "sgfs_autocovariance", "sgfs_convergence_criterion")
EXPECTED = {"sgfs_stationary_covariance": "violated", "sgfs_exact_noise": "holds",
            "sgfs_admissible_k": "holds",
            "sgfs_variance_trajectory": "violated", "sgfs_autocovariance": "holds",
            "sgfs_convergence_criterion": "violated"}


@pytest.fixture(scope="module")
def reports():
    return {c: run_verification(REGISTRY[c], "quick", seed=0) for c in CLAIMS}


def _find(report, quantity, form, **params):
    out = [c for c in report.checks if c.quantity == quantity and c.form == form
           and all(c.params.get(k) == v for k, v in params.items())]
    assert out, (quantity, form, params)
    return out


def test_registered():
    for c in CLAIMS:
        v = REGISTRY[c]
        assert v.primary_form == "stated"
        assert v.grid.quick and v.grid.full


@pytest.mark.parametrize("claim", CLAIMS)
def test_quick_verdicts(reports, claim):
    assert reports[claim].verdict == EXPECTED[claim]


def test_printed_range_readings(reports):
    """'equivalent to k in (0, 1)' fails as an equivalence (sup k = 4) and holds as a
    sufficient condition, which the report rules out ('necessary', 'if and only if'): by reading
    rule 6
    the claim is violated."""
    rep = reports["sgfs_stationary_covariance"]
    assert rep.readings == {sg.EQUIVALENT: "violated", sg.SUFFICIENT: "holds"}
    assert rep.verdict == "violated" and rep.status.ruled_out == (sg.SUFFICIENT,)
    suff = [c for c in rep.checks if c.quantity == sg.SUFFICIENT_Q]
    assert suff and all(c.verdict == "holds" and c.empirical > 3.99 for c in suff)


def test_quick_runtime(reports):
    # ~2.5 s on one idle core; slack for load
    assert sum(r.elapsed_s for r in reports.values()) < 20.0


def test_form_verdicts(reports):
    fv = {c: r.form_verdicts() for c, r in reports.items()}
    assert (fv["sgfs_stationary_covariance"] == {"stated": "violated", "explicit": "holds",
                                                 "series": "holds"})
    assert (fv["sgfs_variance_trajectory"] == {"stated": "violated", "stated_sum": "violated",
                                               "corrected": "holds"})
    assert fv["sgfs_convergence_criterion"] == {"stated": "violated", "corrected": "holds"}
    assert fv["sgfs_admissible_k"] == {"stated": "holds", "remark": "violated"}
    assert fv["sgfs_exact_noise"] == {"stated": "holds", "explicit": "holds"}
    assert fv["sgfs_autocovariance"] == {"stated": "holds", "explicit": "holds"}


# ----------------------------------------------------------------------------- power
@pytest.mark.parametrize("claim,scale", [("sgfs_exact_noise", 0.5), ("sgfs_autocovariance", 0.5),
                                         ("sgfs_admissible_k", 0.5), ("sgfs_admissible_k", 0.999)])
def test_power(claim, scale):
    assert run_verification(REGISTRY[claim], "quick", seed=0).verdict == "holds"
    assert (run_verification(REGISTRY[claim], "quick", seed=0,
                             bound_scale=scale).verdict == "violated")


def test_admissible_k_detects_too_large_bound(reports):
    """The design: k* >= k_formula; Eq. (13) is tight for G = 0 and (15) for isotropic C, G."""
    r = reports["sgfs_admissible_k"]
    for q, prior in (("k_max_13", "zero"), ("k_max_15", "isotropic")):
        for c in _find(r, q, "stated", prior=prior):
            assert c.relation == ">=" and c.verdict == "holds"
            assert c.empirical == pytest.approx(c.bound, rel=1e-9)
    # every k* is an upper end: the noise is PSD at the formula's k
    for c in _find(r, "noise_min_eig", "stated"):
        assert c.verdict == "holds"


def test_exact_tolerances_are_rounding_level(reports):
    for r in reports.values():
        for c in r.checks:
            if c.method == "exact":
                assert c.tolerance < 1e-8 * max(1.0, abs(c.bound)), (r.claim, c.quantity, c.params)
                # Var[theta_0] = 0 exactly
                assert c.tolerance > 0 or (c.empirical == 0 and c.params.get("t") == 0)


# --------------------------------------------------------------------------- pinned counterexamples
def test_stationarity_counterexample(reports):
    r = reports["sgfs_stationary_covariance"]
    for c in _find(r, "stationarity_k_max", "stated"):
        assert c.params["eps"] == 1.0 and c.primary
        assert c.empirical == pytest.approx(4.0, abs=1e-12) and c.bound == 1.0
        assert c.verdict == "violated"
        assert ("Lambda = 2.000000..2.000000 H^-1" in c.note
                and "Lambda = 4.000000..4.000000 H^-1" in c.note)
    for c in _find(r, "stationarity_k_max", "explicit"):
        assert c.empirical == pytest.approx(4.0 / c.params["eps"],
                                            rel=1e-12) and c.verdict == "holds"
    # k = 2 (outside the printed (0, 1)) gives I - DH = 0: stationary, Lambda = 2 H^-1
    H = sg.random_spd(np.random.default_rng(1), 4, 50.0)
    F = sg.Frame(H)
    Lam, err, A = sg._stationary_covariance(F, 2.0, 1.0)
    assert sg._rho(A) < 1e-12
    emp, lo, hi, _, tol = sg._ratio(F, Lam, err, 2.0)
    assert abs(emp - 2.0) <= tol < 1e-10


def test_covariance_ratio_values(reports):
    r = reports["sgfs_stationary_covariance"]
    c = _find(r, "covariance_ratio", "stated", dimension=6, k=1.0, eps=1.0)[0]
    assert c.empirical == pytest.approx(4 / 3, abs=1e-12) and c.verdict == "holds"
    # k = 3: outside (0, 1), stationary
    c = _find(r, "covariance_ratio", "stated", dimension=3, k=3.0, eps=1.0)[0]
    assert c.empirical == pytest.approx(4.0, abs=1e-11) and c.verdict == "holds"


def test_variance_trajectory_counterexample(reports):
    r = reports["sgfs_variance_trajectory"]
    for d in (1, 3, 6):
        c = _find(r, "variance_ratio", "stated", dimension=d, k=1.0, t=1)[0]
        assert c.empirical == pytest.approx(0.75, abs=1e-13) and c.bound == pytest.approx(0.5)
        assert c.verdict == "violated"
        c = _find(r, "variance_ratio", "stated_sum", dimension=d, k=1.0, t=1)[0]
        assert c.bound == pytest.approx(0.9375) and c.verdict == "violated"
        c = _find(r, "variance_ratio", "corrected", dimension=d, k=1.0, t=1)[0]
        assert c.verdict == "holds" and not c.primary
    for c in _find(r, "variance_ratio", "stated", t=0):  # both start at 0
        assert c.verdict == "holds"


def test_strong_prior_counterexamples(reports):
    r = reports["sgfs_admissible_k"]
    got = {c.params["G"]: c for c in _find(r, "eig_ratio_strong_prior", "remark")}
    assert got["G = I"].empirical == pytest.approx(4 / 101, rel=1e-12)
    assert got["G = N C"].empirical == pytest.approx(1 / 50, rel=1e-12)
    for c in got.values():
        assert c.verdict == "violated" and not c.primary and c.relation == ">"


def test_k_star_bisection_matches_generalized_eigenproblem():
    rng = np.random.default_rng(3)
    for d, N, S in ((1, 1000, 10), (3, 1000, 100), (5, 10000, 100)):
        C = sg.random_spd(rng, d, 20.0)
        G = sg.random_spd(rng, d, 20.0, scale=N * 0.5)
        H = N * C + G
        k_hat, tol = sg._k_star(H, C, N, S)
        Hs = (H + H.T) / 2
        lam = np.linalg.eigvals(np.linalg.solve(Hs, N ** 2 / S * C + Hs)).real.max()
        assert abs(k_hat - 4 / lam) <= tol + 1e-12 and tol < 1e-8
        # PSD just below, not PSD just above
        for kk, ok in ((k_hat * (1 - 1e-6), True), (k_hat * (1 + 1e-6), False)):
            W, tau, _ = sg._noise(H, C, N, S, kk)
            assert (np.linalg.eigvalsh(W)[0] >= -tau) == ok


def test_convergence_criterion_numbers(reports):
    r = reports["sgfs_convergence_criterion"]
    st = _find(r, "threshold", "stated", C=0.25)[0]
    co = _find(r, "threshold", "corrected", C=0.25)[0]
    assert (st.bound == pytest.approx(32.0172, abs=1e-3) and co.bound
            == pytest.approx(19.0975, abs=1e-3))
    assert (abs(st.empirical - co.bound) < 5 * st.stderr and st.verdict == "violated"
            and co.verdict == "holds")
    st4 = _find(r, "threshold", "stated", C=4.0)[0]
    assert (st4.bound == pytest.approx(37.4179, abs=1e-3) and st4.empirical > st4.bound
            and st4.verdict == "violated")
    pr = {c.params["C"]: c for c in _find(r, "pass_rate", "stated")}
    assert pr[0.25].empirical > 0.88 and pr[4.0].empirical < 0.42  # 68% for a correct sd
    assert all(c.verdict == "violated" and not c.primary for c in pr.values())


def test_simulation_matches_corrected_sd_scalar():
    """The window simulation reproduces an independently computed variance (Var of a VAR(1) sum)."""
    N, S, C, G, k, n, R = 100, 10, 1.0, 5.0, 0.3, 5, 40000
    m, _ = sg.simulate_window_means(N, S, C, G, k, n, R, np.random.default_rng(7))
    h, sx2 = N * C + G, N ** 2 * C / S
    D = k / (2 * h)
    rho = 1 - D * h
    # Cov(Y_i, Y_j), j = i + dd: h^2 Cov(theta_i, theta_j) - h Cov(xi_i, theta_j) (+ sx2 if dd = 0),
    # with Var theta = 1/h, Cov(theta_i, theta_j) = rho^dd / h, Cov(xi_i, theta_j) = D sx2
    # rho^(dd-1)
    cov = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            dd = j - i
            c = h * rho ** dd + (sx2 if dd == 0 else -h * D * sx2 * rho ** (dd - 1))
            cov[i, j] = cov[j, i] = c
    sd = math.sqrt(cov.sum()) / n
    se = sd / math.sqrt(2 * R)
    assert abs(math.sqrt(np.mean(m ** 2)) - sd) < 5 * se


def test_autocovariance_monte_carlo(reports):
    r = reports["sgfs_autocovariance"]
    mc = [c for c in r.checks if c.method == "monte-carlo"]
    assert mc and all(c.verdict == "holds" and c.stderr > 0 for c in mc)
    neg = [c for c in mc if c.params["k"] == 3.0][0]
    assert neg.bound == -0.5 and abs(neg.empirical + 0.5) < 5 * neg.stderr


def test_json(reports):
    for r in reports.values():
        s = json.dumps(r.as_json())
        assert json.loads(s)["claim"] == r.claim


def test_overrides():
    r = run_verification(REGISTRY["sgfs_variance_trajectory"], "quick", seed=0,
                         overrides={"k": [0.5], "t": [3]})
    assert {c.params["t"] for c in r.checks} == {3} and r.verdict == "violated"
    with pytest.raises(KeyError):
        run_verification(REGISTRY["sgfs_variance_trajectory"], "quick", overrides={"nope": 1})
