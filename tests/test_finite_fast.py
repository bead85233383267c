"""The exact-sum CIS kernel of simulate.finite.cis_matrix against independent references.

``cis_matrix`` evaluates the Laplace integral ``I(a) = int_0^oo e^(-ta) phi(t)^(N-2) dt``
(``docs/methods.md`` §2-§3) as the finite multinomial sum it equals, with an error bound.
The references: exact rational enumeration of the proposal multisets
(``cis_matrix_enumerate``), the previous implementation, adaptive quadrature
(``cis_matrix_quadrature``), and a 40-digit mpmath evaluation of the two-weight sum for
N up to 10^4.  No Monte Carlo: every comparison is deterministic.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from simulate import finite as F


def dyadic_pair(M, seed):
    """pi, q with entries k / 64 (exact in binary, summing to exactly 1), all > 0."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(2):
        counts = 1 + rng.multinomial(64 - M, np.ones(M) / M)
        out.append(counts / 64.0)
    return out


@pytest.mark.parametrize("M,N,seed", [(2, 2, 0), (2, 7, 1), (3, 3, 2), (3, 6, 3), (4, 4, 4),
                                      (4, 5, 5)])
def test_sum_within_its_bound_of_exact_rational_enumeration(M, N, seed):
    pi, q = dyadic_pair(M, seed)
    K, err = F.cis_matrix(pi, q, N, return_error=True)
    exact = F.cis_matrix_enumerate([Fraction(v) for v in pi], [Fraction(v) for v in q], N,
                                   exact=True)
    assert 0 < err < 1e-12
    dev = max(abs(Fraction(float(K[x, y])) - exact[x][y]) for x in range(M) for y in range(M))
    assert dev <= err
    # the bound is a bound, not a tolerance picked to pass: the float sum is far better
    assert dev < 1e-15


CALLERS = [(M, N, w) for M in (4, 6) for N in (2, 4, 11, 16) for w in (1.1, 2.0, 10.0, 100.0)]


@pytest.mark.parametrize("M,N,w_star", CALLERS[::3])
def test_sum_agrees_with_quadrature_on_the_verifications_instances(M, N, w_star):
    """The (M, N, w*) grid of the theorem checks (hard instances) against the old method."""
    pi, q = F.hard_instance(M, w_star)
    K, err = F.cis_matrix(pi, q, N, return_error=True)
    Kq, errq = F.cis_matrix_quadrature(pi, q, N, return_error=True)
    assert np.abs(K - Kq).max() <= err + errq
    assert err < 1e-11


@pytest.mark.parametrize("seed", range(4))
def test_sum_agrees_with_quadrature_and_float_enumeration_on_random_pairs(seed):
    rng = np.random.default_rng(100 + seed)
    M = 2 + seed
    pi, q = rng.dirichlet(np.ones(M)), rng.dirichlet(np.ones(M))
    for N in (2, 3, 6):
        K, err = F.cis_matrix(pi, q, N, return_error=True)
        Kq, errq = F.cis_matrix_quadrature(pi, q, N, return_error=True)
        assert np.abs(K - Kq).max() <= err + errq
        assert np.abs(K - F.cis_matrix_enumerate(pi, q, N)).max() <= err + 1e-14


@pytest.mark.parametrize("M,N", [(2, 2), (3, 9), (5, 12), (6, 16), (4, 60)])
def test_rows_sum_to_one_and_pi_is_invariant(M, N):
    rng = np.random.default_rng(M * 1000 + N)
    pi, q = rng.dirichlet(np.ones(M)), rng.dirichlet(np.ones(M))
    K, err = F.cis_matrix(pi, q, N, return_error=True)
    assert np.all(K >= 0)
    assert np.abs(K.sum(axis=1) - 1).max() <= 4 * M * np.finfo(float).eps
    # pi K - pi is zero for the exact kernel: the defect is K's error times at most 1
    assert F.stationarity_defect(K, pi) <= err + 4 * M * np.finfo(float).eps


def two_weight_pair(log2_q0):
    """pi uniform on 4 states, q_0 = 2^log2_q0: exactly two distinct weights, w* = 2^-2 / q_0."""
    q0 = 2.0 ** log2_q0
    r = (1 - q0) / 3
    return F.check_pair(np.full(4, 0.25), np.array([q0, r, r, r]))


def mp_two_weight_kernel(pi, q, N, dps=40):
    """Off-diagonal K by the two-weight binomial sum in mpmath (``dps`` digits)."""
    with mpmath.workdps(dps):
        w = pi / q
        u0, u1 = mpmath.mpf(float(w[0])), mpmath.mpf(float(w[1]))
        Q0 = mpmath.mpf(float(q[0]))
        Q1 = mpmath.fsum(mpmath.mpf(float(v)) for v in q[1:])
        n = N - 2
        terms, S = [], []
        t = Q1 ** n  # Binomial(n, Q0) pmf at c = 0, then by the ratio recurrence
        for c in range(n + 1):
            terms.append(t)
            S.append(c * u0 + (n - c) * u1)
            t = t * (n - c) / (c + 1) * Q0 / Q1
        I = {}  # noqa: E741 -- the document's I; I(a) for the three distinct a = w_x + w_y
        K = np.zeros((4, 4))
        for x in range(4):
            for y in range(4):
                if x != y:
                    key = (float(w[x]), float(w[y]))
                    if key not in I:
                        a = mpmath.mpf(key[0]) + mpmath.mpf(key[1])
                        I[key] = mpmath.fsum(tc / (a + s) for tc, s in zip(terms, S))
                    K[x, y] = float((N - 1) * mpmath.mpf(float(pi[y])) * I[key])
        return K


@pytest.mark.parametrize("log2_q0,N", [(-20, 2), (-20, 100), (-20, 10_000), (-40, 10_000),
                                       (-3, 10_000)])
def test_extreme_w_star_and_large_N_against_mpmath(log2_q0, N):
    pi, q = two_weight_pair(log2_q0)
    assert np.unique(pi / q).size == 2
    K, err = F.cis_matrix(pi, q, N, return_error=True)
    ref = mp_two_weight_kernel(pi, q, N)
    off = ~np.eye(4, dtype=bool)
    assert np.abs(K - ref)[off].max() <= err
    assert err < 1e-8
    assert np.abs(K.sum(axis=1) - 1).max() <= 1e-15


def test_large_N_with_three_weights_uses_a_truncated_box_within_its_bound():
    """C(N, 2) count vectors are too much work at N = 10^4: a box around the mean is used."""
    rng = np.random.default_rng(7)
    pi, q = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
    N = 10_000
    assert N * (N - 1) // 2 * (3 + 6) > F.CIS_SUM_WORK_MAX
    K, err = F.cis_matrix(pi, q, N, return_error=True, method="sum")
    Kq, errq = F.cis_matrix_quadrature(pi, q, N, return_error=True)
    assert np.abs(K - Kq).max() <= err + errq
    assert F.stationarity_defect(K, pi) <= err + 1e-15


def test_too_many_terms_falls_back_to_quadrature_or_raises_on_request():
    rng = np.random.default_rng(8)
    pi, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    with pytest.raises(F.FiniteSpaceError, match="more work"):
        F.cis_matrix(pi, q, 10_000, method="sum")
    K, err = F.cis_matrix(pi, q, 10_000, return_error=True)
    Kq, errq = F.cis_matrix_quadrature(pi, q, 10_000, return_error=True)
    assert np.array_equal(K, Kq) and err == errq


def test_weights_equal_up_to_rounding_are_merged_within_the_bound():
    """hard_instance's light states share one weight up to a few ulp: merged, still exact."""
    pi, q = F.hard_instance(5, 37.0)
    pi, q = F.check_pair(pi, q)
    K, err = F.cis_matrix(pi, q, 9, return_error=True)
    assert np.abs(K - F.cis_matrix_enumerate(pi, q, 9)).max() <= err + 1e-14


def exact_rows(pi, q, N, rows):
    """Rows of the CIS kernel by exact rational enumeration of the N - 1 proposals' counts
    (only rows from states of positive weight: their normalising sum never vanishes)."""
    from math import factorial

    M = len(pi)
    w = [p / r for p, r in zip(pi, q)]
    out = {x: [Fraction(0)] * M for x in rows}
    for c in F._compositions(N - 1, M):
        prob = Fraction(factorial(N - 1))
        for r, ci in zip(q, c):
            prob = prob * r ** ci / factorial(ci)
        total = sum(ci * wi for ci, wi in zip(c, w))
        for x in rows:
            for y in range(M):
                out[x][y] += prob * (c[y] * w[y] + (w[x] if y == x else 0)) / (w[x] + total)
    return out


def test_a_target_with_a_zero_entry():
    pi = np.array([0.5, 0.5, 0.0])
    q = np.array([0.25, 0.25, 0.5])
    K, err = F.cis_matrix(pi, q, 4, return_error=True)
    assert np.all(K[:2, 2] == 0)  # never move to a state of zero target mass
    ref = exact_rows([Fraction(1, 2), Fraction(1, 2), Fraction(0)],
                     [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)], 4, rows=(0, 1))
    for x in (0, 1):
        assert sum(ref[x]) == 1
        assert max(abs(Fraction(float(K[x, y])) - ref[x][y]) for y in range(3)) <= err
    assert F.stationarity_defect(K, pi) <= err + 1e-15


def test_hundreds_of_weights_fall_back_to_quadrature():
    """M = 120 distinct weights, N = 4: 7260 count vectors x 7260 pairs of weights."""
    rng = np.random.default_rng(9)
    pi, q = rng.dirichlet(np.ones(120)), rng.dirichlet(np.ones(120))
    assert 7260 * (120 + 7260) > F.CIS_SUM_WORK_MAX
    with pytest.raises(F.FiniteSpaceError, match="more work"):
        F.cis_matrix(pi, q, 4, method="sum")
    K, err = F.cis_matrix(pi, q, 4, return_error=True)
    assert np.array_equal(K, F.cis_matrix_quadrature(pi, q, 4))
    assert F.stationarity_defect(K, pi) <= err + 1e-14


def test_bad_method_is_refused():
    with pytest.raises(F.FiniteSpaceError):
        F.cis_matrix([0.5, 0.5], [0.5, 0.5], 3, method="gauss")


def test_laplace_quadratures_resolve_extreme_weights():
    """A weight of 1e10 puts the Laplace integrands' mass in a spike of width 1e-10 at t = 0; a
    quadrature over [0, oo) in one piece stepped over it (MSC-RB's second moment came out
    0 instead of 1; found by the audit's adversarial search).  Split at the integrands' time
    scales, both quadratures agree with enumeration to rounding."""
    pi = np.array([0.125996, 0.000982, 0.873022])
    q = np.array([1e-11, 0.124495, 0.875505])
    pi, q = pi / pi.sum(), q / q.sum()
    f = np.array([1.0, -0.3, 0.5])[:, None]
    for N in (2, 4, 6):
        for x in range(3):
            a, b = F.moments_msc_rb(pi, q, f, x, N), F.moments_msc_rb_enumerate(pi, q, f, x, N)
            assert (abs(a.second - b.second) < 1e-13
                    and np.allclose(a.mean, b.mean, rtol=0, atol=1e-13))
        assert np.abs(F.cis_matrix_quadrature(pi, q, N)
                      - F.cis_matrix_enumerate(pi, q, N)).max() < 1e-13


def test_msc_rb_moments_three_ways(monkeypatch):
    """MSC-RB's moments: the exact multinomial sum, the fixed Gauss-Legendre rules on the split
    pieces, and the adaptive quadrature (the fast rule's fallback) agree, up to N = 200 and
    weights up to 1e6."""
    rng = np.random.default_rng(5)
    for M, ws, N in ((3, 10.0, 6), (4, 1e3, 12), (5, 1e6, 20), (3, 1e4, 200)):
        pi, q = F.hard_instance(M, ws, seed=M)
        s = rng.standard_normal((M, 2))
        for x in (0, 1):
            fast = F.moments_msc_rb(pi, q, s, x, N, method="quadrature")
            with monkeypatch.context() as m:
                # force the adaptive rule
                m.setattr(F, "_gauss_legendre_split", lambda *a, **k: None)
                slow = F.moments_msc_rb(pi, q, s, x, N, method="quadrature")
            assert abs(fast.second - slow.second) <= 1e-11 * slow.second
            assert np.allclose(fast.mean, slow.mean, rtol=1e-11, atol=1e-13)
            if N <= 20:
                exact = F.moments_msc_rb(pi, q, s, x, N, method="sum")
                assert abs(fast.second - exact.second) <= 1e-11 * exact.second
