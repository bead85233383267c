"""Tests for simulate.weightline: exact IMH / CIS mixing on the weight line.

Independent code paths used as references: mpmath (high precision), scipy.stats /
scipy.integrate directly on chi2 laws, and the finite-state kernels of
simulate.finite on the discretised weight line.  No randomness anywhere.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from simulate import finite, weightline as wl

EPS = np.finfo(float).eps


def r_pow_mp(D, s, n):
    """(1 - 1/w*)^n and log(1 - (1 - 1/w*)^n) at 60 digits (w* = s^D exactly)."""
    with mp.workdps(60):
        w = mp.mpf(s) ** D
        a = n * mp.log1p(-1 / w)
        return float(mp.exp(a)), float(mp.log(-mp.expm1(a)))


# ----------------------------------------------------------------------------- 1. IMH worst start
@pytest.mark.parametrize("D,s", [(1, 3.0), (10, 1.5), (1000, 1.001), (1000, 2.0)])
def test_imh_worst_start_is_r_power(D, s):
    pair = wl.isotropic_pair(D, s)
    res = wl.imh_tv(pair, 20, wl.start_log_weight(pair, "worst"))
    assert res.tv.shape == (20,)
    assert res.log_w0 == pair.log_w_star and res.log_w_star == pytest.approx(D * math.log(s))
    for n in range(1, 21):
        rn, log1m = r_pow_mp(D, s, n)
        assert abs(res.tv[n - 1] - rn) <= res.error_bound + 2 * EPS
        # 1 - r^n carries the information when r^n rounds to 1.0 (w* ~ 1e301)
        assert res.log_one_minus_tv[n - 1] == pytest.approx(log1m, rel=1e-12)
    if (D, s) == (1000, 2.0):
        assert not math.isfinite(res.w_star) or res.w_star > 1e300
        assert res.log_one_minus_tv[4] == pytest.approx(math.log(5) - 1000 * math.log(2), rel=1e-12)
    if (D, s) == (1000, 1.001):  # r^n is far from 1 here: r = 1 - 1/e^0.9995
        assert res.tv[19] < 1e-3


@pytest.mark.parametrize("D,s", [(1, 3.0), (10, 1.5), (1000, 1.001)])
def test_imh_near_worst_start_is_continuous(D, s):
    """A start just below w* goes through the quadrature path and must approach r^n."""
    pair = wl.isotropic_pair(D, s)
    res = wl.imh_tv(pair, 20, pair.log_w_star - 1e-9)
    rn = np.exp(np.arange(1, 21) * pair.log_r)
    assert "Gauss-Kronrod" in res.method and res.error_bound < 1e-10
    assert np.all(res.tv <= rn + res.error_bound)
    assert np.max(np.abs(res.tv - rn)) < 1e-6


# ----------------------------------------------------------------------------- IMH values
def tv1_closed_form(pair, log_w0):
    """TV after one IMH step, T_1(w) = 1/w: int (1 - 1/max(w0, v))_+ pi_W(dv), by scipy chi2."""
    D, s, c, lws = pair.D, pair.s, pair.c, pair.log_w_star
    lw = max(log_w0, 0.0)  # for w0 < 1 the positive part starts at v = 1
    x = (lws - lw) / c
    F_pi = stats.chi2.sf(x, D)  # P_pi(W <= w)
    S_pi = stats.chi2.cdf(x, D)
    S_q = stats.chi2.cdf(x / s**2, D)
    return F_pi * (-math.expm1(-lw)) + S_pi - S_q


@pytest.mark.parametrize("D,s", [(1, 3.0), (3, 2.0), (10, 1.5), (100, 1.1)])
@pytest.mark.parametrize("start", ["typical", "quantile:0.9", "quantile:0.01", "quantile:1e-6"])
def test_imh_first_step_closed_form(D, s, start):
    pair = wl.isotropic_pair(D, s)
    lw0 = wl.start_log_weight(pair, start)
    res = wl.imh_tv(pair, 1, lw0)
    assert res.tv[0] == pytest.approx(tv1_closed_form(pair, lw0), abs=res.error_bound + 1e-13)


def test_imh_matches_mpmath_reference():
    """D = 3, s = 2, start at the 0.3-quantile of w.  References: mpmath (dps 20) nested
    quadrature of int (1 - T_n(max(w0, v)))_+ pi_W(dv) with T_n and lambda from
    mpmath.gammainc, the kink of the positive part located by mp.findroot (n = 4)."""
    pair = wl.isotropic_pair(3, 2.0)
    res = wl.imh_tv(pair, 4, wl.start_log_weight(pair, "quantile:0.3"))
    ref = [0.673296919842442, 0.45332874226932, 0.305224845845981, 0.223152909055274]
    assert np.max(np.abs(res.tv - ref)) <= res.error_bound + 2e-15


def test_imh_huge_w_star_one_minus_tv():
    """D = 1000, s = 2 (w* = 2^1000): TV = 1.0 in float, 1 - TV must still be right."""
    pair = wl.isotropic_pair(1000, 2.0)
    lw0 = wl.start_log_weight(pair, "typical")
    res = wl.imh_tv(pair, 10, lw0)
    assert np.all(np.isfinite(res.tv)) and np.all(res.tv == 1.0)
    # n = 1 closed form: 1 - TV_1 = P_pi(W <= w0)/w0 + P_q(W > w0)  (w0 > 1)
    x0 = (pair.log_w_star - lw0) / pair.c
    ref = np.logaddexp(math.log(0.5) - lw0, stats.chi2.logcdf(x0 / 4.0, 1000))
    assert res.log_one_minus_tv[0] == pytest.approx(ref, rel=1e-10)
    assert -400 < res.log_one_minus_tv[0] < -200
    # lambda = 1 - O(e^-300) on the relevant range, so 1 - TV_n = n (1 - TV_1) to float accuracy
    n = np.arange(1, 11)
    assert np.allclose(res.log_one_minus_tv - res.log_one_minus_tv[0], np.log(n), atol=1e-10)


# ----------------------------------------------------------------------------- 2. lambda
def lambda_direct(pair, log_v):
    """E_q[(1 - W/v)_+] by scipy quad over Y = ||Z||^2 / s^2 ~ chi2_D."""
    D, s, c, lws = pair.D, pair.s, pair.c, pair.log_w_star
    y_v = max((lws - log_v) / (c * s**2), 0.0)

    def f(y):
        return -math.expm1(lws - c * s**2 * y - log_v) * stats.chi2.pdf(y, D)

    val, err = integrate.quad(f, y_v, np.inf, epsabs=1e-14, epsrel=1e-12, limit=500)
    return val


@pytest.mark.parametrize("D,s", [(1, 3.0), (10, 1.5), (100, 1.1), (30, 1.01)])
def test_imh_lambda_direct_integration_and_bounds(D, s):
    pair = wl.isotropic_pair(D, s)
    lws = pair.log_w_star
    log_v = np.sort(np.concatenate([pair.log_quantile_pi([1e-6, 0.01, 0.5, 0.99]),
                                    [lws - 1e-3, lws, lws + 1.0]]))
    lam = wl.imh_lambda(pair, log_v)
    for lv, la in zip(log_v, lam):
        assert la == pytest.approx(lambda_direct(pair, lv), rel=1e-9, abs=1e-14)
    lower = np.maximum(-np.expm1(-log_v), 0.0)
    upper = -math.expm1(-lws)
    inside = log_v <= lws  # lambda(v) in [max(1 - 1/v, 0), 1 - 1/w*] for v <= w*
    assert np.all(lam >= lower - 1e-15) and np.all(lam[inside] <= upper + 1e-15)
    assert np.all(lam[inside][:-1] < upper) and lam[-1] == pytest.approx(lower[-1], rel=1e-15)
    assert np.all(np.diff(lam) > 0)  # increasing in v


def test_imh_T_closed_forms_and_mass():
    pair = wl.isotropic_pair(3, 2.0)
    lw = np.array([-4.0, -1.0, 0.0, 0.7, 1.5, pair.log_w_star])
    assert np.allclose(wl.imh_T(pair, 1, lw), np.exp(-lw), rtol=1e-11)  # T_1(w) = 1/w
    above = np.array([pair.log_w_star + 0.1, 5.0])
    for n in (1, 3, 7):
        assert np.allclose(wl.imh_T(pair, n, above), 1 - (1 - np.exp(-above)) ** n, rtol=1e-13)
    # mass of K^n(z0, .): int T_n(max(w0, v)) pi_W(dv) + lambda(w0)^n = 1, by Gauss-Legendre in
    # ||Z||
    lw0 = float(pair.log_quantile_pi(0.4))
    rho0 = math.sqrt((pair.log_w_star - lw0) / pair.c)
    t, wt = np.polynomial.legendre.leggauss(200)
    rho = 0.5 * rho0 * (t + 1)
    w_pi = 0.5 * rho0 * wt * stats.chi.pdf(rho, 3)
    for n in (1, 2, 5, 12):
        T = wl.imh_T(pair, n, pair.log_v_of(rho**2))
        mass = (w_pi @ T + wl.imh_T(pair, n, lw0)[0] * stats.chi.sf(rho0, 3)
                + wl.imh_lambda(pair, lw0) ** n)
        assert mass == pytest.approx(1.0, abs=1e-11)


# ----------------------------------------------------------------------------- 3. Smith-Tierney
def test_smith_tierney_formula_on_discretised_chain():
    """Eqs. (2)-(3) with lambda integrated against q reproduce exact matrix powers;
    against pi (as printed in 001) they do not."""
    pair = wl.isotropic_pair(10, 1.5)
    pi_b, q_b, _ = wl.discretise(pair, 30)
    K = finite.imh_matrix(pi_b, q_b)
    for n in (1, 2, 5):
        Kn = np.linalg.matrix_power(K, n)
        assert np.max(np.abs(finite.smith_tierney_power(pi_b, q_b, n, "q") - Kn)) < 1e-13
        assert np.max(np.abs(finite.smith_tierney_power(pi_b, q_b, n, "pi") - Kn)) > 0.1


def test_discretise_masses():
    pair = wl.isotropic_pair(10, 1.5)
    M = 200
    pi_b, q_b, bin_of = wl.discretise(pair, M)
    assert pi_b.shape == q_b.shape == (M,)
    assert pi_b.sum() == pytest.approx(1, abs=1e-14) and q_b.sum() == pytest.approx(1, abs=1e-14)
    assert np.all(q_b > 0) and np.all(pi_b > 0)
    w = pi_b / q_b
    assert np.all(np.diff(w) > 0)  # bins ordered by weight
    assert w[-1] <= pair.w_star and w[-1] > 0.999 * pair.w_star
    assert bin_of(pair.log_w_star) == M - 1 and bin_of(-50.0) == 0
    lw_mid = pair.log_quantile_pi(np.array([0.1, 0.5, 0.9]))
    b = bin_of(lw_mid)
    assert np.all(np.diff(b) > 0)
    # bin masses against scipy: pi-mass of all bins above a weight = P_pi(W > v)
    k = int(b[1])
    assert pi_b[k + 1:].sum() <= math.exp(pair.log_sf_pi(lw_mid[1])) <= pi_b[k:].sum()
    assert math.exp(pair.log_cdf_pi(lw_mid[1])) == pytest.approx(0.5, rel=1e-12)


# ------------------------------------------------------------------------ 4. continuous vs discrete
PAIR4 = (10, 1.5)


def _disc_curves(pair, M, kernel, starts, steps):
    pi_b, q_b, bin_of = wl.discretise(pair, M)
    K = finite.imh_matrix(pi_b, q_b) if kernel == "imh" else finite.cis_matrix(pi_b, q_b, kernel)
    b = np.array([int(bin_of(lw)) for lw in starts])
    return finite.tv_curve(K, pi_b, steps, starts=b).T, pi_b[b]


def _check_convergence(pair, kernel, conts, M, steps):
    """|cont - disc_M| <= error_bound + pi_b + 2 |disc_M - disc_{M/2}|, and the gap shrinks.

    Justification: the finite chain cannot separate the atom at the start from the
    pi-mass of the start bin; that masking changes TV by min(a_k, (1 - f_k(w0)) pi_b)
    <= pi_b (the pi-mass of the start bin), an O(1/M) term.  The rest (bin weights vs
    exact weights, the start's offset inside its bin) converges at first order or
    better, so |disc_M - disc_{M/2}| estimates it (factor 2 for safety).  Both terms
    vanish as M doubles.  Returns the gaps at M/2 and M per start.
    """
    starts = [c.log_w0 for c in conts]
    d_half, _ = _disc_curves(pair, M // 2, kernel, starts, steps)
    d_full, pb_full = _disc_curves(pair, M, kernel, starts, steps)
    gaps = []
    for i, cont in enumerate(conts):
        gap_half = np.max(np.abs(d_half[i] - cont.tv))
        gap_full = np.max(np.abs(d_full[i] - cont.tv))
        tol = cont.error_bound + pb_full[i] + 2 * np.max(np.abs(d_full[i] - d_half[i]))
        assert gap_full <= tol
        assert gap_full <= 0.8 * gap_half  # convergence as M doubles
        gaps.append((gap_half, gap_full))
    return gaps


def test_imh_matches_discretised_chain():
    pair = wl.isotropic_pair(*PAIR4)
    conts = [wl.imh_tv(pair, 20, wl.start_log_weight(pair, st)) for st in ("worst", "typical")]
    (wh, wf), (th, tf) = _check_convergence(pair, "imh", conts, 2000, 20)
    # worst start: the top bin has negligible pi-mass and the error is second order
    assert wf < 2e-6 and wf < 0.3 * wh
    assert tf < 3e-3


@pytest.mark.parametrize("N", [2, 4, 16])
def test_cis_matches_discretised_chain(N):
    pair = wl.isotropic_pair(*PAIR4)
    conts = [wl.cis_tv(pair, N, 20, wl.start_log_weight(pair, st)) for st in ("worst", "typical")]
    (wh, wf), (th, tf) = _check_convergence(pair, N, conts, 300, 20)
    assert wf < 1e-4 and wf < 0.3 * wh
    assert tf < 2e-2


# ----------------------------------------------------------------------------- 5. CIS properties
@pytest.mark.parametrize("D,s", [(3, 2.0), (10, 1.5), (30, 1.2)])
def test_cis_mixing_properties(D, s):
    pair = wl.isotropic_pair(D, s)
    w_star = pair.w_star
    k = np.arange(1, 31)
    lw_worst = wl.start_log_weight(pair, "worst")
    imh_worst = wl.imh_tv(pair, 30, lw_worst)
    for N in (2, 4, 16, 64):
        alv = (1 - (N - 1) / (2 * w_star + N - 2)) ** k  # Andrieu, Lee & Vihola (2018)
        atom = (w_star / (w_star + N - 1)) ** k  # TV >= rho(w*)^k >= this (Jensen)
        for start in ("worst", "typical", "quantile:0.001"):
            res = wl.cis_tv(pair, N, 30, wl.start_log_weight(pair, start))
            e = res.error_bound
            assert e < 1e-6, res.method
            assert np.all(np.diff(res.tv) <= e)  # non-increasing in k
            assert np.all(res.tv <= alv + e)  # Doeblin bound holds from every start
            if start == "worst":
                assert np.all(res.tv >= atom - e)
                if N == 2:  # Barker stays at w* with prob E[w*/(w*+W)] >= 1 - 1/w* = r
                    assert np.all(res.tv >= imh_worst.tv - e - imh_worst.error_bound)


@pytest.mark.parametrize("D,s", [(3, 2.0), (10, 1.5)])
def test_imh_mixing_properties(D, s):
    pair = wl.isotropic_pair(D, s)
    rn = np.exp(np.arange(1, 31) * pair.log_r)
    prev = None
    for start in ("worst", "quantile:0.9", "typical", "quantile:0.01"):
        res = wl.imh_tv(pair, 30, wl.start_log_weight(pair, start))
        assert np.all(np.diff(res.tv) <= res.error_bound)
        assert np.all(res.tv <= rn + res.error_bound)  # uniform bound, attained at w*
        if prev is not None:  # lower start weight mixes no slower ... than a higher one
            assert np.all(res.tv <= prev + res.error_bound + 1e-12)
        prev = res.tv


def test_cis_error_estimate_is_conservative():
    pair = wl.isotropic_pair(10, 1.5)
    lw0 = wl.start_log_weight(pair, "typical")
    for N in (2, 16):
        coarse = wl.cis_tv(pair, N, 20, lw0, grid=64)
        fine = wl.cis_tv(pair, N, 20, lw0, grid=1024)
        assert "a-posteriori" in coarse.method
        assert np.max(np.abs(coarse.tv - fine.tv)) <= coarse.error_bound + fine.error_bound
        assert fine.error_bound < 1e-6
        default = wl.cis_tv(pair, N, 20, lw0)
        assert np.max(np.abs(default.tv - fine.tv)) <= 1e-6


def test_cis_kernel_pieces():
    """h(u, v) = (N-1) E[1/(u + v + S_{N-2})], rho(u) = E[u/(u + S_{N-1})] (S: sums of
    q-weights) against scipy quad over Y = ||Z||^2/s^2 for N = 2, 3."""
    pair = wl.isotropic_pair(3, 2.0)
    D, s2, c, lws = 3, 4.0, pair.c, pair.log_w_star
    lv = np.array([-3.0, 0.0, 1.0, 2.0])
    lu0 = 0.5

    def Eq(fun):
        return integrate.quad(lambda y: fun(math.exp(lws - c * s2 * y)) * stats.chi2.pdf(y, D),
                              0, np.inf, epsabs=1e-15, epsrel=1e-12, limit=500)[0]

    H2, hu2, rho_v2, rho_u2 = wl._cis_kernel(pair, 2, lv, lu0)
    v = np.exp(lv)
    assert np.allclose(H2, 1 / (v[:, None] + v[None, :]), rtol=1e-12)
    assert np.allclose(hu2, 1 / (math.exp(lu0) + v), rtol=1e-12)
    for vi, rv in zip(v, rho_v2):
        assert rv == pytest.approx(Eq(lambda w: vi / (vi + w)), rel=1e-10)
    H3, hu3, _, _ = wl._cis_kernel(pair, 3, lv, lu0)
    for i in (0, 2):
        for j in (1, 3):
            ref = 2 * Eq(lambda w: 1 / (v[i] + v[j] + w))
            assert H3[i, j] == pytest.approx(ref, rel=1e-10)


def test_large_w_star_no_overflow():
    pair = wl.isotropic_pair(1000, 2.0)
    for start in ("worst", "typical", "quantile:1e-6"):
        lw0 = wl.start_log_weight(pair, start)
        for res in (wl.imh_tv(pair, 5, lw0), wl.cis_tv(pair, 8, 5, lw0, grid=128)):
            assert np.all(np.isfinite(res.tv)) and np.all((res.tv >= 0) & (res.tv <= 1))
            assert math.isfinite(res.error_bound) and res.error_bound < 1e-10
            assert res.tv[-1] > 1 - 1e-12  # the chain essentially never moves
    assert pair.log_w_star == pytest.approx(693.147180559945, rel=1e-14)
    lq = pair.log_quantile_pi([1e-300, 0.5, 1 - 1e-12])
    assert np.all(np.isfinite(lq)) and np.all(lq < pair.log_w_star)
    assert np.all(np.isfinite(pair.log_cdf_pi(np.array([-1e4, 0.0, 300.0, 800.0]))))
    assert pair.log_cdf_q(-1e4) < -1000 and pair.log_cdf_pi(800.0) == 0.0


def test_log_cdfs_against_scipy():
    pair = wl.isotropic_pair(10, 1.5)
    lv = np.array([-20.0, -2.0, 0.0, 1.0, 3.0, 4.0])
    x = (pair.log_w_star - lv) / pair.c
    assert np.allclose(pair.log_cdf_pi(lv), stats.chi2.logsf(x, 10), rtol=1e-12)
    assert np.allclose(pair.log_cdf_q(lv), stats.chi2.logsf(x / 2.25, 10), rtol=1e-12)
    p = np.array([1e-9, 0.3, 0.5, 0.99])
    assert np.allclose(np.exp(pair.log_cdf_pi(pair.log_quantile_pi(p))), p, rtol=1e-10)
    assert wl.start_log_weight(pair, "typical") == wl.start_log_weight(pair, "quantile:0.5")


# ----------------------------------------------------------------------------- 6. validation
@pytest.mark.parametrize("D,s", [(0, 2.0), (-3, 2.0), (2.5, 2.0), ("3", 2.0), (3, 1.0), (3, 0.5),
                                 (3, float("nan")), (3, float("inf")), (True, 2.0)])
def test_pair_validation(D, s):
    with pytest.raises(ValueError) as exc:
        wl.isotropic_pair(D, s)
    assert "\n" not in str(exc.value) and str(exc.value)


@pytest.mark.parametrize("start", ["best", "quantile:0", "quantile:1", "quantile:1.5",
                                   "quantile:abc", "quantile:", "", 0.5])
def test_start_validation(start):
    pair = wl.isotropic_pair(3, 2.0)
    with pytest.raises(ValueError) as exc:
        wl.start_log_weight(pair, start)
    assert "\n" not in str(exc.value)


def test_kernel_argument_validation():
    pair = wl.isotropic_pair(3, 2.0)
    lw = wl.start_log_weight(pair, "typical")
    bad_calls = [
        lambda: wl.cis_tv(pair, 1, 5, lw),
        lambda: wl.cis_tv(pair, 0, 5, lw),
        lambda: wl.cis_tv(pair, 2.5, 5, lw),
        lambda: wl.cis_tv(pair, 4, 0, lw),
        lambda: wl.imh_tv(pair, 0, lw),
        lambda: wl.imh_tv(pair, 5, pair.log_w_star + 1.0),
        lambda: wl.imh_tv(pair, 5, float("nan")),
        lambda: wl.cis_tv(pair, 4, 5, pair.log_w_star + 1.0),
        lambda: wl.discretise(pair, 1),
        lambda: wl.IsotropicPair(3, 1.0),
    ]
    for call in bad_calls:
        with pytest.raises(ValueError) as exc:
            call()
        assert "\n" not in str(exc.value)


def test_imh_tv_at_selected_steps_equals_the_full_curve():
    """``imh_tv(..., at=ks)`` evaluates the n-step formula only at ks (e.g. log-spaced k up
    to 10^9): the same numbers as the full curve at those k, bit for bit."""
    pair = wl.isotropic_pair(4, 1.7)
    lw0 = wl.start_log_weight(pair, "quantile:0.3")
    full = wl.imh_tv(pair, 60, lw0)
    ks = np.array([1, 2, 7, 30, 60])
    sub = wl.imh_tv(pair, 60, lw0, at=ks)
    assert np.array_equal(sub.tv, full.tv[ks - 1])
    far = wl.imh_tv(pair, 10 ** 9, lw0, at=[1, 10 ** 3, 10 ** 9])
    assert far.tv[0] == full.tv[0] and far.tv[1] < full.tv[-1] and far.tv[2] == 0.0
    for bad in ([0], [61], [1.5], []):
        with pytest.raises(ValueError):
            wl.imh_tv(pair, 60, lw0, at=bad)
