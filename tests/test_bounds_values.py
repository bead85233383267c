"""Each claim's expressions against values computed by hand, in several regimes.

The expected values are computed here independently of sympy: literal numbers worked
out by hand, or direct sums in exact rational arithmetic (``fractions.Fraction``) that
follow the proof's displayed sums term by term.
"""

import math
from fractions import Fraction as F

import numpy as np
import pytest

import bounds


def ev(claim, quantity, form, **kw):
    return float(bounds.get(claim).evaluate_form(quantity, form, **kw))


def close(a, b, rel=1e-12):
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)


# ------------------------------------------------------------------ Theorem 1 (MSC)
@pytest.mark.parametrize("N,w,k,expected", [
    (2, 1.0, 1, 0.5),                             # N = 2 is Barker IMH: 1 - 1/(2w*)
    (10, 100.0, 5, (F(199, 208)) ** 5),            # 1 - 9/208
    (100, 1.0, 2, (1 - F(99, 100)) ** 2),          # w* = 1: 1 - (N-1)/N
    (10, 1e6, 3, (1 - 9 / (2e6 + 8)) ** 3),        # large w*: rate ~ 1
])
def test_theorem1_mixing(N, w, k, expected):
    assert close(ev("theorem1", "mixing", "stated", N=N, w_star=w, k=k), expected)
    assert close(ev("theorem1", "mixing", "explicit", N=N, w_star=w, k=k), expected)


def test_theorem1_second_moment():
    assert ev("theorem1", "second_moment", "stated", L=3.0) == 9.0


# ------------------------------------------------------------------ Theorem 2 (MSC-RB)
def theorem2_explicit_by_hand(N, w, chi2, L, t, mu):
    eps2 = (N - 1) ** -0.5
    mse = 4 * L ** 2 * ((1 + eps2) / (N - 1) * chi2 + (1 + 1 / eps2) / N ** 2 * (1 + w) ** 2)
    gamma = 2 * w / (2 * w + N - 2)
    bias = 4 * L / (N - 1) * (chi2 + 1 + w) * gamma ** (t - 1)
    return mse + 2 * L * bias + mu ** 2


@pytest.mark.parametrize("N,w,chi2,L,t,mu", [
    (10, 10.0, 2.0, 1.0, 1, 0.0),       # first iteration: gamma^0 = 1
    (10, 10.0, 2.0, 1.0, 50, 0.5),      # bias term decayed
    (1000, 2.0, 0.5, 2.0, 3, 1.0),      # large N
    (2, 1e4, 100.0, 1.0, 10, 0.0),      # N = 2: gamma = 1, no decay
])
def test_theorem2(N, w, chi2, L, t, mu):
    assert close(ev("theorem2", "second_moment", "stated", N=N, chi2=chi2, L=L, mu_norm=mu),
                 4 * L ** 2 * chi2 / (N - 1) + mu ** 2)
    assert close(ev("theorem2", "second_moment", "explicit", N=N, w_star=w, chi2=chi2, L=L, t=t,
                    mu_norm=mu),
                 theorem2_explicit_by_hand(N, w, chi2, L, t, mu), rel=1e-11)
    # N=10, w*=10, chi2=2, t=1 worked by hand: 4(8/27 + 4.84) + 104/9
    if (N, w, t, mu) == (10, 10.0, 1, 0.0):
        assert close(ev("theorem2", "second_moment", "explicit", N=N, w_star=w, chi2=chi2, L=L,
                        t=t),
                     4 * (8 / 27 + 4.84) + 104 / 9, rel=1e-12)
    assert close(ev("theorem2", "mixing", "stated", N=N, w_star=w, k=3),
                 (2 * w / (2 * w + N - 2)) ** 3)


# ------------------------------------------------------------------ Theorem 3 (JSA)
def jsa_sum(N, r):
    """sum_{n=1}^N [n r^(n-1) + r^n] term by term (Lemma 6 summed in the proof)."""
    return sum(n * r ** (n - 1) + r ** n for n in range(1, N + 1))


@pytest.mark.parametrize("N,w", [(1, F(2)), (3, F(4)), (10, F(100)), (7, F(1)), (50, F(3, 2))])
def test_theorem3_variance_sum(N, w):
    r = 1 - 1 / w
    exact = jsa_sum(N, r) / N ** 2
    assert close(ev("theorem3", "variance", "explicit", N=N, w_star=float(w), L=1.0), exact)
    # N=3, w*=4 by hand: (1 + 3/4) + (3/2 + 9/16) + (27/16 + 27/64) = 379/64
    if (N, w) == (3, 4):
        assert exact == F(379, 64) / 9
    # the printed closed form exceeds the exact sum by 1 - r^N (see the audit)
    printed = w ** 2 + w - r ** N * (w ** 2 + w + N * w)
    assert printed - jsa_sum(N, r) == 1 - r ** N


def test_theorem3_regimes():
    # w* -> oo: the Laurent limit 1/2 + 3/(2N)
    assert close(ev("theorem3", "variance", "explicit", N=10, w_star=1e300, L=1.0), 0.65)
    assert close(ev("theorem3", "variance", "stated", N=10, L=2.0, c_cov=0.1), 4 * 0.65 + 0.1)
    # w* = 1 (q = pi): only the n = 1 term survives
    assert close(ev("theorem3", "variance", "explicit", N=5, w_star=1.0, L=1.0), 1 / 25)
    # mixing: sum_n r^((k-1)N+n)
    for N, w, k in [(1, 2.0, 3), (4, 5.0, 2), (10, 1e300, 5)]:
        r = F(1) - 1 / F(w) if w < 1e100 else None
        got = ev("theorem3", "mixing", "explicit", N=N, w_star=w, k=k)
        if r is None:
            assert close(got, 10.0)  # C(r,N) r^(kN) -> N as w* -> oo
        else:
            assert close(got, sum(r ** ((k - 1) * N + n) for n in range(1, N + 1)))
        assert close(ev("theorem3", "mixing", "stated", N=N, w_star=w, k=k), got)


def test_theorem3_bias_terms():
    # explicit = var + B^2 + 2 L B + mu^2 with B = 2 sqrt(D) L C(r,N) r^(tN)
    N, w, t, L, D, mu = 2, 2.0, 1, 1.0, 4, 0.25
    r = 0.5
    C = r * (1 - r ** N) / (r ** N * (1 - r))
    B = 2 * math.sqrt(D) * L * C * r ** (t * N)
    var = L ** 2 * jsa_sum(N, r) / N ** 2
    assert close(ev("theorem3", "second_moment", "explicit", N=N, w_star=w, t=t, L=L, D=D,
                    mu_norm=mu),
                 var + B ** 2 + 2 * L * B + mu ** 2)
    # moment form with E_q||s||^2 = 2, ||s(z)||^2 = 3
    mom = sum(n * r ** (n - 1) * 2 + r ** n * 3 for n in range(1, N + 1)) / N ** 2
    assert close(ev("theorem3", "second_moment", "moment", N=N, w_star=w, t=t, L=L, D=D, mu_norm=mu,
                    eq_s2=2.0, s_prev2=3.0), mom + B ** 2 + 2 * L * B + mu ** 2)
    # corrected: E||s_n||^2 <= L^2 and the one-step bias (2L/N) sum_n r^n, capped at the trivial L^2
    b1 = 2 * L / N * sum(r ** n for n in range(1, N + 1))
    assert close(ev("theorem3", "second_moment", "corrected", N=N, w_star=w, L=L, mu_norm=mu),
                 min(L ** 2, L ** 2 / N + (mu + b1) ** 2))
    assert close(ev("theorem3", "second_moment", "corrected", N=N, w_star=w, L=L, mu_norm=0.0),
                 min(L ** 2, L ** 2 / N + b1 ** 2))  # 0.5 + 0.5625 > 1: capped
    assert close(ev("theorem3", "second_moment", "corrected", N=N, w_star=1.25, L=L, mu_norm=0.0),
                 L ** 2 / N + (2 * L / N * (0.2 + 0.04)) ** 2)  # r = 0.2: below the cap
    assert close(ev("theorem3", "variance", "corrected", N=N, L=L, c_cov=0.3), L ** 2 / N + 0.3)


def test_lemma5_lemma6_corrected_forms():
    # T_n(w) <= n r^(n-1) (1/w - 1/w*) + 1 - r^n; at w = w* it is exact: 1 - r^n
    for n, w, ws in [(1, 2.0, 4.0), (2, 4.0, 4.0), (5, 1.5, 10.0)]:
        r = 1 - 1 / ws
        assert close(ev("lemma5", "T_n", "corrected", n=n, w=w, w_star=ws),
                     n * r ** (n - 1) * (1 / w - 1 / ws) + 1 - r ** n)
    # corrected Lemma 6 adds (1 - r^n - n (1-r) r^(n-1)) E_pi f; at q = pi (r = 0), n = 2: E_pi f
    assert close(ev("lemma6", "expectation", "corrected", n=2, w_star=1.0, eq_f=3.0, f_z=5.0,
                    epi_f=2.0), 2.0)
    r = 0.5
    assert close(ev("lemma6", "expectation", "corrected", n=3, w_star=2.0, eq_f=1.0, f_z=2.0,
                    epi_f=4.0),
                 3 * r ** 2 + (1 - r ** 3 - 3 * (1 - r) * r ** 2) * 4 + r ** 3 * 2)


# ------------------------------------------------------------------ Theorem 4 (pMCSA)
@pytest.mark.parametrize("N,w,k", [(1, 2.0, 1), (10, 100.0, 5), (100, 1e12, 1), (4, 1.0, 3)])
def test_theorem4(N, w, k):
    r = 1 - 1 / w
    assert close(ev("theorem4", "mixing", "explicit", N=N, w_star=w, k=k), N * r ** k)
    assert close(ev("theorem4", "variance", "stated", N=N, w_star=w, L=2.0), 4 * (1 + r) / N)
    t, D = 3, 9
    B = 2 * 3 * 2.0 * N * r ** t
    assert close(ev("theorem4", "second_moment", "explicit", N=N, w_star=w, L=2.0, t=t, D=D),
                 4 * (1 + r) / N + B ** 2 + 4 * B)
    # corrected: one-step bias ||mu|| + 2 L r, capped at the trivial L^2
    assert close(ev("theorem4", "second_moment", "corrected", N=N, w_star=w, L=2.0, mu_norm=1.0),
                 min(4.0, 4 * (1 + r) / N + (1 + 4 * r) ** 2))
    assert close(ev("theorem4", "second_moment", "corrected", N=4, w_star=1.01, L=2.0, mu_norm=0.0),
                 4 * (1 + 0.01 / 1.01) / 4 + (4 * 0.01 / 1.01) ** 2)  # below the cap


# ------------------------------------------------------------------ lemmas, propositions
def test_lemmas():
    assert close(ev("lemma4", "lambda_lower", "stated", w=4.0, w_star=10.0), 0.75)
    assert ev("lemma4", "lambda_lower", "stated", w=0.5, w_star=10.0) == 0.0
    assert close(ev("lemma4", "lambda_upper", "stated", w=0.5, w_star=10.0), 0.9)
    assert close(ev("lemma5", "T_n", "stated", n=3, w=2.0, w_star=10.0), 1.5 * 0.81)
    assert close(ev("lemma6", "expectation", "stated", n=2, w_star=2.0, eq_f=1.0, f_z=4.0),
                 2 * 0.5 + 0.25 * 4)
    assert close(ev("lemma7", "bias", "stated", D=4, L=1.5, C=2.0, rho=0.5, n=2),
                 2 * 2 * 1.5 * 2 * 0.25)
    assert close(ev("lemma1", "product_tv", "stated", N=3, tv=0.1), 0.3)
    assert close(ev("lemma2", "second_moment_variance", "stated", variance=1, bias=0.5, mu_norm=2),
                 1 + 0.25 + 2 + 4)
    assert close(ev("lemma2", "second_moment_mse", "stated", mse=1.25, bias=0.5, mu_norm=2),
                 1.25 + 2 + 4)
    # chi2(N(0,1) || N(m, s^2)): e^(m^2) - 1 for s = 1; 1/sqrt(3)*... for m = 0, s^2 = 2: 2/sqrt(3)
    # - 1
    assert close(ev("lemma3", "weight_variance", "stated", m=1.0, s=1.0), math.e - 1)
    assert close(ev("lemma3", "weight_variance", "stated", m=0.0, s=math.sqrt(2)),
                 2 / math.sqrt(3) - 1, rel=1e-12)
    assert close(ev("proposition2", "w_star_lower", "stated", kl=math.log(5)), 5.0)


def test_proposition1():
    # KL(N(0,1) || N(m, s^2)) = log s + (1 + m^2)/(2 s^2) - 1/2
    assert abs(ev("proposition1", "objective", "stated", m=0.0, s=1.0)) < 1e-15
    assert close(ev("proposition1", "objective", "stated", m=1.0, s=1.0), 0.5)
    assert close(ev("proposition1", "objective", "stated", m=0.0, s=2.0), math.log(2) + 1 / 8 - 0.5)
    for form in ("stated", "explicit"):
        assert close(ev("proposition1", "gradient_m", form, m=1.5, s=2.0), 1.5 / 4)
        assert close(ev("proposition1", "gradient_s", form, m=1.5, s=2.0), 0.5 - (1 + 2.25) / 8)


def test_tables():
    assert close(ev("table1", "sgd", "stated", G=1.0, rho=0.5, T=100), math.log(100) / 100)
    assert close(ev("table1", "sgd_nesterov", "stated", G=2.0, rho=0.5, T=100),
                 4 * math.log(100) / 10)
    assert close(ev("table1", "mirror_descent", "stated", G=1.0, rho=math.exp(-2), T=100,
                    c_rate=3.0),
                 3 * math.log(100) / (2 * 10))
    expected = {"ELBO": (0, 0, 10, 10, 10), "MSC": (9, 10, 9, 0, 1), "MSC-RB": (9, 10, 9, 0, 10),
                "JSA": (10, 11, 10, 0, 10), "pMCSA": (10, 20, 10, 0, 10)}
    for scheme, row in expected.items():
        for col, v in zip(("p_eval", "q_eval", "q_sample", "p_grad", "q_grad"), row):
            assert ev("table2", f"{scheme}.{col}", "stated", N=10) == v


# ------------------------------------------------------------------ 003
def test_003_claims():
    assert close(ev("cis_barker_acceptance", "acceptance", "stated", w=5.0, w_sum=3.0), 3 / 8)
    assert close(ev("cis_barker_acceptance", "rejection", "stated", w=5.0, w_sum=3.0), 5 / 8)
    assert close(ev("cis_acceptance_bound", "acceptance_rate", "stated", N=10, w=90.0), 0.1)
    assert close(ev("imh_rejection_kl", "rejection_rate_symmetric", "stated", kl=0.125,
                    kl_rev=0.125),
                 math.sqrt(0.125))
    assert close(ev("imh_rejection_kl", "rejection_rate", "stated", kl=0.125), 0.25)
    assert close(ev("cis_variance_growth", "conditional_variance", "stated", N=10, w=90.0,
                    sigma2=2.0),
                 (10 / 100) ** 2 * 2 / 10)
    assert close(ev("cis_variance_growth", "growth_regime_max_N", "stated", w=90.0), 90.0)


# ------------------------------------------------------------------ 002
def test_002_claims():
    # Lambda = H^-1/(1 - k eps/4): k = 1, eps = 1 -> 4/3; eps = 0.5 -> 8/7
    for form in ("stated", "explicit", "series"):
        assert close(ev("sgfs_stationary_covariance", "covariance_ratio", form, k_frac=1.0), 4 / 3)
        assert close(ev("sgfs_stationary_covariance", "covariance_ratio", form, k_frac=1.0,
                        eps=0.5), 8 / 7)
    assert ev("sgfs_stationary_covariance", "stationarity_k_max", "stated", k_frac=1.0) == 1.0
    assert (ev("sgfs_stationary_covariance", "stationarity_k_max", "explicit", k_frac=1.0,
               eps=0.5) == 8.0)
    for form in ("stated", "explicit"):
        assert close(ev("sgfs_exact_noise", "noise_ratio", form, k_frac=1.0), 0.75)
        assert close(ev("sgfs_autocovariance", "lag1_ratio", form, k_frac=0.5), 0.75)
    # Var[theta_t] with theta_0 = theta_MAP, k = 1: noise 3/4, a^2 = 1/4
    v = lambda t: sum(0.75 * 0.25 ** i for i in range(t))  # noqa: E731
    for t in (0, 1, 2, 5):
        assert close(ev("sgfs_variance_trajectory", "variance_ratio", "corrected", k_frac=1.0,
                        t_iter=t) + 1, v(t) + 1)
        assert close(ev("sgfs_variance_trajectory", "variance_ratio", "stated_sum", k_frac=1.0,
                        t_iter=t), v(t + 1))
    assert close(ev("sgfs_variance_trajectory", "variance_ratio", "stated", k_frac=1.0, t_iter=1),
                 0.5)
    assert close(ev("sgfs_admissible_k", "k_max_13", "stated", n_data=100, batch=10, eig_ratio=1.0),
                 40 / 110)
    assert close(ev("sgfs_admissible_k", "k_max_15", "stated", n_data=100, batch=10, eig_ratio=1.0),
                 40 / 110)
    assert close(ev("sgfs_admissible_k", "k_max_15", "stated", n_data=100, batch=10,
                    eig_ratio=30.0), 120 / 40)
    assert close(ev("sgfs_admissible_k", "k_16", "stated", n_data=100, batch=10, eig_ratio=1.0),
                 0.1)
    assert close(ev("sgfs_admissible_k", "k_16", "stated", n_data=100, batch=10, eig_ratio=1.0,
                    c_max=0.9),
                 40 / 110)
    # (17) printed: b sqrt((NC + G)/n + N^2/(n|S|)); N=1000, C=1, G=1, n=10, |S|=100
    assert close(ev("sgfs_convergence_criterion", "threshold", "stated", n_avg=10, n_data=1000,
                    batch=100,
                    fisher=1.0, prior=1.0), math.sqrt(100.1 + 1000))


def test_002_convergence_criterion_exact_sd_by_direct_sum():
    """The corrected threshold equals a direct covariance sum of the scalar process."""
    n, Nd, Sb, C, G, k = 6, 50, 5, 0.7, 2.0, 0.3
    h = Nd * C + G
    rho = 1 - k / 2
    D = k / (2 * h)
    sx2 = Nd ** 2 * C / Sb
    cov = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            c = h ** 2 * rho ** abs(i - j) / h  # h^2 Cov(theta_i, theta_j)
            if j > i:
                c -= h * rho ** (j - i - 1) * D * sx2  # -h Cov(theta_j, xi_i)
            if i > j:
                c -= h * rho ** (i - j - 1) * D * sx2
            if i == j:
                c += sx2
            cov[i, j] = c
    sd = math.sqrt(cov.sum()) / n
    got = ev("sgfs_convergence_criterion", "threshold", "corrected", n_avg=n, n_data=Nd, batch=Sb,
             fisher=C, prior=G, k_frac=k)
    assert close(got, sd, rel=1e-10)
