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
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, fmpq

import verify.documents.elhanchi2018.checks as sg
from bounds.enclosure import Enclosure
from verify.decide import decide
from verify.documents.elhanchi2018 import _kit
from verify.model import CheckResult
from verify.registry import REGISTRY
from verify.running.outcome import run_verification

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
    """The design: k* >= k_formula; Eq. (13) is tight for G = 0 and (15) for isotropic C, G:
    there k* equals the formula's k exactly, and the noise at that k is the zero matrix."""
    r = reports["sgfs_admissible_k"]
    for q, prior in (("k_max_13", "zero"), ("k_max_15", "isotropic")):
        for c in _find(r, q, "stated", prior=prior):
            assert c.relation == ">=" and c.verdict == "holds" and c.settled_by == "exact"
            assert c.lhs.is_point and c.lhs == c.rhs  # k* = k_formula exactly
    # every k* is an upper end: the noise is PSD at the formula's k
    for c in _find(r, "noise_min_eig", "stated"):
        assert c.verdict == "holds"
    for c in _find(r, "noise_min_eig", "stated", prior="zero", eq="13"):
        assert c.empirical == 0 and c.settled_by == "exact"  # the boundary, decided exactly
    for c in _find(r, "noise_min_eig", "stated", prior="isotropic", eq="15"):
        assert c.empirical == 0 and c.settled_by == "exact"


def test_exact_checks_are_decided_on_enclosures(reports):
    """Every exact check is decided exactly or on narrow balls, never by a tolerance: an exact
    settlement compares two exact numbers; a ball of the empirical side is at most 2^-50 wide
    relative to its value and contains the double shown."""
    for r in reports.values():
        for c in r.checks:
            if c.method != "exact":
                continue
            assert c.verdict in ("holds", "violated"), (r.claim, c.quantity, c.params, c.note)
            assert c.settled_by == "exact" or c.settled_by.startswith("arb-"), c.settled_by
            # the double shown is the value (or its ball's midpoint) rounded
            assert abs(c.lhs.mid - c.empirical) <= 2.0 ** -50 * abs(c.empirical)
            if c.settled_by == "exact":
                assert c.lhs.is_point and c.rhs.is_point
            else:
                assert c.lhs.is_point or c.lhs.rel_width() <= 2.0 ** -50, (c.quantity, c.lhs)
            if c.relation == "=" and c.verdict == "holds":
                assert c.settled_by == "exact" and c.lhs == c.rhs
            # Var[theta_0] = 0 exactly
            if c.quantity == "variance_ratio" and c.params["t"] == 0:
                assert _exact(c) == 0 and c.empirical == 0


def _exact(c):
    """The exact value a check was decided on: its quantity's enclosure, a rational point (the
    ``empirical`` field is that value rounded to a double, for display)."""
    assert c.lhs.is_point and c.lhs.how == "exact", (c.quantity, c.lhs)
    return Fraction(c.lhs.lo)


# --------------------------------------------------------------------------- pinned counterexamples
def test_stationarity_counterexample(reports):
    r = reports["sgfs_stationary_covariance"]
    for c in _find(r, "stationarity_k_max", "stated"):
        assert c.params["eps"] == 1.0 and c.primary
        assert c.empirical == 4 and c.settled_by == "exact" and c.bound == 1.0
        assert c.verdict == "violated"
        assert ("I - eps DH = 0 I, rho = 0 < 1, Lambda = 2 H^-1 (exact)" in c.note
                and "rho = 0.5 < 1, Lambda = 4 H^-1 (exact)" in c.note)
    for c in _find(r, "stationarity_k_max", "explicit"):
        assert _exact(c) == 4 / Fraction(c.params["eps"]) and c.verdict == "holds"
    # k = 2 (outside the printed (0, 1)) gives I - DH = 0: stationary, Lambda = 2 H^-1, exactly
    H = sg.random_spd(np.random.default_rng(1), 4, 50.0)
    E = sg.Exact(H)
    Lam, A = sg._stationary_covariance(E, 2.0, 1.0)
    assert _kit.scalar_of(A) == 0 and _kit.scalar_of(Lam * E.q) == 2


def test_covariance_ratio_values(reports):
    r = reports["sgfs_stationary_covariance"]
    c = _find(r, "covariance_ratio", "stated", dimension=6, k=1.0, eps=1.0)[0]
    assert _exact(c) == Fraction(4, 3) and c.verdict == "holds"
    # k = 3: outside (0, 1), stationary
    c = _find(r, "covariance_ratio", "stated", dimension=3, k=3.0, eps=1.0)[0]
    assert c.empirical == 4 and c.verdict == "holds"


def test_variance_trajectory_counterexample(reports):
    r = reports["sgfs_variance_trajectory"]
    for d in (1, 3, 6):
        c = _find(r, "variance_ratio", "stated", dimension=d, k=1.0, t=1)[0]
        assert _exact(c) == Fraction(3, 4) and c.bound == 0.5
        assert c.verdict == "violated"
        c = _find(r, "variance_ratio", "stated_sum", dimension=d, k=1.0, t=1)[0]
        assert c.bound == pytest.approx(0.9375) and c.verdict == "violated"
        c = _find(r, "variance_ratio", "corrected", dimension=d, k=1.0, t=1)[0]
        assert c.verdict == "holds" and not c.primary
    for c in _find(r, "variance_ratio", "stated", t=0):  # both start at 0
        assert c.verdict == "holds"
    # the printed sum to i = t is wrong by 3 (1/4)^(t+1) at k = 1 and k = 3: at t = 20 that is
    # 6.8e-13, within the old tolerances (which had it 'holds'); exactly, it is violated
    for k in (1.0, 3.0):
        for c in _find(r, "variance_ratio", "stated_sum", k=k, t=20):
            assert _exact(c) == 1 - Fraction(1, 4) ** 20 and c.rhs.lo == 1 - Fraction(1, 4) ** 21
            assert c.verdict == "violated" and c.settled_by == "exact"


def test_strong_prior_counterexamples(reports):
    r = reports["sgfs_admissible_k"]
    got = {c.params["G"]: c for c in _find(r, "eig_ratio_strong_prior", "remark")}
    assert _exact(got["G = I"]) == Fraction(4, 101)
    assert _exact(got["G = N C"]) == Fraction(1, 50)
    for c in got.values():
        assert c.verdict == "violated" and not c.primary and c.relation == ">"


def test_k_star_matches_generalized_eigenproblem():
    """k* (exact matrices, eigenvalue ball) against numpy's generalized eigenproblem, and the
    literal noise exactly PSD just below k*, not PSD just above."""
    rng = np.random.default_rng(3)
    for d, N, S in ((1, 1000, 10), (3, 1000, 100), (5, 10000, 100)):
        C = sg.random_spd(rng, d, 20.0)
        G = sg.random_spd(rng, d, 20.0, scale=N * 0.5)
        inst = sg.Admissible(C, G, N, S)
        k = inst.k_star(128)
        H = N * C + G
        lam = np.linalg.eigvals(np.linalg.solve(H, N ** 2 / S * C + H)).real.max()
        mid = _kit.fq(float(k)) if _kit.is_exact(k) else _kit.fq(float(k.mid()))
        assert float(mid) == pytest.approx(4 / lam, rel=1e-9)
        assert _kit.is_exact(k) or float(k.rad()) <= 1e-30 * float(k.mid())
        for kk, ok in ((mid * (1 - fmpq(1, 10 ** 6)), True), (mid * (1 + fmpq(1, 10 ** 6)), False)):
            lo = _kit.Spectrum(inst.noise(kk)).ends(64)[0]
            assert (lo >= 0) == ok and (lo < 0) == (not ok)


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


# ------------------------------------------------------------------- the exact mechanisms: power
def _decided(**kw):
    return decide(CheckResult(quantity="q", form="stated", params={}, method="exact", **kw), 0)


def test_identity_planted_off_by_a_hair_is_violated_and_the_exact_one_holds():
    """X = c H^-1 holds exactly (a non-dyadic c); X + 1e-40 H^-1 (a relative hair) is violated,
    and so is a skew perturbation of 1e-40 that leaves the symmetric part equal."""
    H = sg.random_spd(np.random.default_rng(5), 3, 100.0)
    E = sg.Exact(H)
    c = Fraction(1) / (1 - Fraction(0.05) / 4)  # 1/(1 - k/4) at k = 0.05: not dyadic
    X = E.inv * _kit.fq(c)
    f, _ = sg._ratio_fields(X, E, c)
    ok = _decided(bound=float(c), rhs=Enclosure.point(c), relation="=", **f)
    assert ok.verdict == "holds" and ok.settled_by == "exact"
    hair = E.inv * fmpq(1, 10 ** 40)
    f, _ = sg._ratio_fields(X + hair, E, c)
    bad = _decided(bound=float(c), rhs=Enclosure.point(c), relation="=", **f)
    assert bad.verdict == "violated" and _exact(bad) == c + Fraction(1, 10 ** 40)
    K = _kit.qmat(np.zeros((3, 3)))
    K[0, 1], K[1, 0] = fmpq(1, 10 ** 40), -fmpq(1, 10 ** 40)
    f, _ = sg._ratio_fields(X + K, E, c)
    assert "refine" in f  # ||skew|| is irrational: a ball
    sk = _decided(bound=float(c), rhs=Enclosure.point(c), relation="=", **f)
    assert sk.verdict == "violated" and sk.settled_by.startswith("arb-")


def _ball(q, rad, bits):
    """The exact fmpq q as a ball of radius rad (at least), at ``bits``."""
    from bounds.enclosure import precision

    with precision(bits):
        return arb(q.p) / arb(q.q) + arb(0, rad)


def test_noise_psd_boundary_decided_exactly():
    """At k = k* (G = 0: k* = 4|S|/(N + |S|)) the noise is 0 and 'lambda_min >= 0' holds exactly;
    a hair above (2^-80 relative) it is violated, with k exact and with k a ball (Weyl)."""
    rng = np.random.default_rng(11)
    C = sg.random_spd(rng, 3, 30.0)
    inst = sg.Admissible(C, np.zeros((3, 3)), 1000, 100)
    k_star = inst.k_star(64)
    assert _kit.is_exact(k_star) and k_star == fmpq(4 * 100, 1100)
    zero = Enclosure.point(0)

    def check(k_of):
        return _decided(bound=0.0, rhs=zero, relation=">=",
                        **sg._value_fields(inst.noise_min_eig(k_of)))
    at = check(lambda bits: k_star)
    assert at.verdict == "holds" and at.settled_by == "exact" and at.empirical == 0
    above = k_star * (1 + fmpq(1, 2 ** 80))
    assert check(lambda bits: above).verdict == "violated"
    hb = check(lambda bits: _ball(above, 2.0 ** -120, bits))
    assert hb.verdict == "violated" and hb.settled_by.startswith("arb-")
    below = k_star * (1 - fmpq(1, 2 ** 80))
    lb = check(lambda bits: _ball(below, 2.0 ** -120, bits))
    assert lb.verdict == "holds" and lb.settled_by.startswith("arb-")


def test_k_star_against_a_formula_a_hair_too_large():
    """k* >= k_formula with the formula 2^-70 above k* (exact k*) is violated; equal holds."""
    C = sg.random_spd(np.random.default_rng(2), 2, 10.0)
    inst = sg.Admissible(C, np.zeros((2, 2)), 10000, 100)
    k = _kit.frac(inst.k_star(64))
    f = sg._value_fields(inst.k_star)
    assert _decided(bound=float(k), rhs=Enclosure.point(k), relation=">=", **f).verdict == "holds"
    k2 = k * (1 + Fraction(1, 2 ** 70))
    assert (_decided(bound=float(k2), rhs=Enclosure.point(k2), relation=">=", **f).verdict
            == "violated")


def test_exact_helpers():
    import sympy as sp

    # Lyapunov: the solution satisfies the equation exactly
    H = sg.random_spd(np.random.default_rng(8), 3, 10.0)
    A = _kit.qmat(0.7 * np.eye(3) + 0.01 * np.ones((3, 3)) - 0.001 * H)
    Q = _kit.qmat(np.eye(3))
    X = _kit.lyapunov(A, Q)
    assert A * X * A.transpose() + Q == X
    # rational eigenvalues exactly, irrational ones in balls
    assert sorted(_kit.Spectrum(_kit.qmat([[2.0, 1.0], [1.0, 2.0]])).values()) == [1, 3]
    lo, hi = _kit.Spectrum(_kit.qmat([[2.0, 1.0], [1.0, 3.0]])).ends(128)
    from bounds.enclosure import precision

    with precision(300):  # (5 +- sqrt 5)/2, a narrower ball
        assert hi.contains((5 + arb(5).sqrt()) / 2) and lo.contains((5 - arb(5).sqrt()) / 2)
    assert not _kit.is_exact(hi) and 0 < hi.rad() < 1e-35
    # Min/Max keep the branch that is certainly the extreme one, exactly
    x, y = sp.symbols("x y")
    v = _kit.formula_value(sp.Min(x, 4 * sp.Max(y, x / 10)), {"x": fmpq(1, 10), "y": arb(1) / 1000})
    assert _kit.is_exact(v) and v == fmpq(1, 25)
    v = _kit.formula_value(sp.Max(x, y), {"x": fmpq(1, 1000), "y": arb(1) / 1000 + arb(0, 1e-9)})
    assert not _kit.is_exact(v) and v.contains(arb(1) / 1000)  # a tie: a ball
    assert _kit.exact_value((1 - x / 2) ** 3 / (1 - x ** 2), {"x": Fraction(0.1)}) == (
        (1 - Fraction(0.1) / 2) ** 3 / (1 - Fraction(0.1) ** 2))
    assert _kit.exact_value(sp.sqrt(x), {"x": Fraction(2)}) is None
    # a non-dyadic rational bound is an exact point (a ball never is)
    b, rhs = sg._exact_bound("sgfs_stationary_covariance", "covariance_ratio", "stated",
                             k_frac=0.05, eps=1.0)
    assert rhs.is_point and rhs.lo == 1 / (1 - Fraction(0.05) / 4) and b == float(rhs.lo)


def test_refine_is_bound_to_its_own_instance():
    """Each refine recomputes its own check's value (a closure over a loop variable would give
    the last instance's): its ball at 256 bits lies within its ball at 64 bits."""
    r = run_verification(REGISTRY["sgfs_admissible_k"], "quick", seed=0)
    n = 0
    for c in r.checks:
        if c.refine is not None:
            e64, e256 = c.refine(64), c.refine(256)
            assert e64.contains(e256.lo) and e64.contains(e256.hi), c.quantity
            assert abs(e256.mid - c.empirical) <= 2.0 ** -50 * abs(c.empirical), c.quantity
            n += 1
    assert n > 20


def test_window_mean_variance_exact_is_the_corrected_threshold_squared():
    """simulate.sgfs's exact variance of the window mean against the registry's corrected sd
    (b = 1) enclosed at 256 bits, and against the float64 covariance sum."""
    from flint import fmpq as q

    import bounds
    from simulate.sgfs import window_mean_sd, window_mean_variance_exact

    for n, Nd, S, C, G, k in ((10, 1000, 100, 1.0, 1.0, 0.1), (10, 1000, 100, 0.5, 10.0, 0.05),
                              (50, 200, 20, 2.0, 0.0, 0.2), (3, 10000, 1000, 4.0, 1000.0, 0.3)):
        v = window_mean_variance_exact(n, Nd, S, C, G, k)
        e = bounds.enclose("sgfs_convergence_criterion", "threshold", "corrected", prec=256,
                           n_avg=n, n_data=Nd, batch=S, fisher=C, prior=G, b=1.0, k_frac=k)
        lo, hi = Fraction(e.lo), Fraction(e.hi)
        assert lo * lo <= v <= hi * hi and hi - lo < Fraction(1, 10 ** 60) * hi
        assert float(v) == pytest.approx(window_mean_sd(n, Nd, S, C, G, k) ** 2, rel=1e-12)
        assert q(v.numerator, v.denominator) > 0


def test_exact_rationals_past_the_decimal_digit_limit_survive_the_cache():
    """Var[theta_200] at k = 0.05 is a rational with ~7000-digit terms; the cache's exact
    encoding of the enclosures (bounds.enclosure.Enclosure.encode) once died on Python's
    4300-digit limit of decimal text (the --full run exited 70)."""
    from verify.running.runner import decode, encode

    rep = run_verification(REGISTRY["sgfs_variance_trajectory"], "quick", seed=0,
                           overrides={"k": [0.05], "t": [200], "dim": [1]})
    big = [c for c in rep.checks if c.lhs.is_point and c.lhs.lo.denominator.bit_length() > 20_000]
    assert big and all(c.verdict in ("holds", "violated") for c in rep.checks)
    back = decode(json.loads(json.dumps(encode(rep))))
    assert [c.lhs for c in back.checks] == [c.lhs for c in rep.checks]
    assert [c.rhs for c in back.checks] == [c.rhs for c in rep.checks]
    assert [c.verdict for c in back.checks] == [c.verdict for c in rep.checks]
