"""Claims of El hanchi (2018): SG-MCMC for quadratic log densities.

El hanchi (2018), "Stochastic gradient MCMC algorithms and their applications".

The report's process (Eqs. 7-8, Appendix) is the VAR(1) recursion
``theta_{i+1} = (I - eps D H) theta_i + noise`` with ``D = (k/2) H^-1`` (Eq. 10).  With
that preconditioner every matrix in the appendix is a scalar multiple of ``H^-1``
(or of ``H``), so each claim is encoded by its scalar ratio: "``Lambda = c H^-1``" is
the expression ``c``.  The matrix statements themselves are checked on random SPD
matrices by ``python -m verify``.

Notation clash: 002's ``N`` is the number of data points (``--n-data`` here) and its
``k`` a step-size fraction (``--k`` here, a real number), and ``r`` in Eq. (15) is an
eigenvalue ratio (``--eig-ratio``).
"""  # noqa: E501

from __future__ import annotations

import sympy as sp

from . import derive, symbols as S
from .core import Claim, Constraint, Expansion, Form, Quantity, Source
from .series import expand

SEED = "002"  # El hanchi (2018); see bounds.references

k, eps, t = S.k_frac.symbol, S.eps.symbol, S.t_iter.symbol
Nd, Sb, er, c = S.n_data.symbol, S.batch.symbol, S.eig_ratio.symbol, S.c_max.symbol
_i = sp.Symbol("i", integer=True, nonnegative=True)
_d = sp.Symbol("d", integer=True, positive=True)
_lam = sp.Symbol("Lambda_ratio", positive=True)

STATIONARY_K = Constraint(k * eps < 4, "the VAR(1) process is stationary only for k*eps < 4")


_X = sp.Symbol("X", positive=True)


@derive.memo
def geometric_sum(coeff, base, power, index, lo, hi):
    """sum_{index=lo}^{hi} coeff(index) * base**(power*index), summed by sympy.

    The sum is taken in a plain symbol ``X`` standing for ``base**power`` (which sympy
    sums quickly) and ``base**power`` substituted back.  Of sympy's Piecewise answer we
    keep the convergent / generic branch (|X| < 1, X != 1), which the claims' domains
    guarantee.
    """
    res = sp.piecewise_fold(sp.Sum(coeff * _X ** index, (index, lo, hi)).doit())
    if isinstance(res, sp.Piecewise):
        res = res.args[0][0] if hi is sp.oo else next(e for e, cnd in res.args if cnd is sp.true)
    return sp.together(res.subs(_X, base ** power))


def sgfs_stationary_covariance() -> Claim:
    """Build the claim ``sgfs_stationary_covariance``.

    Stationary covariance of the discretised process: Lambda = H^-1 / (1 - k eps/4).

    Source: El hanchi (2018), Appendix, Discretization error, Eq. (32).
    """
    a = 1 - k * eps / 2  # I - eps D H in units of I
    # Eq. (32) in units of H^-1: Lambda = a^2 Lambda + 2 eps D, 2 eps D = k eps H^-1
    solved = derive.solve(sp.Eq(_lam, a ** 2 * _lam + k * eps), _lam)[0]
    series_sum = geometric_sum(k * eps, a, 2, _i, 0, sp.oo)
    k_max = derive.solve(sp.Eq(a, -1), k)[0]  # |1 - k eps/2| < 1  <=>  0 < k < 4/eps
    printed = 1 / (1 - k * eps / 4)
    return Claim(
        id="sgfs_stationary_covariance",
        title="Stationary covariance of the discretised process: Lambda = H^-1 / (1 - k eps/4)",
        source=Source(SEED, "Appendix, Discretization error, Eq. (32)"),
        assumptions=("QUAD", "PRECOND"),
        params=(S.k_frac, S.eps),
        quantities=(
            Quantity("covariance_ratio",
                     "Lambda in units of H^-1 (stationary covariance of Eq. 7 without gradient "
                     "noise)",
                     "=", (Form("stated", printed, "printed: 1/(1 - k eps/4)"),
                           Form("explicit", solved, "Eq. (32) solved by sympy"),
                           Form("series", series_sum,
                                "2 eps sum_i (I - eps DH)^i D (I - eps DH)^i, summed by sympy")),
                     expansions=(Expansion("stated", eps, 0, expand(printed, eps, 0, 2), 2,
                                           "'approaches 1 linearly as eps -> 0'"),)),
            Quantity("stationarity_k_max", "sup of k for which -I < I - eps D H < I", "=",
                     (Form("stated", sp.Integer(1),
                           "printed (for eps = 1): 'equivalent to k in (0, 1)'"),
                      Form("explicit", k_max, "|1 - k eps/2| < 1 solved by sympy"))),
        ),
        constraints=(STATIONARY_K,),
        notes=("Printed as k in (0, 1) for eps = 1; the condition -I < I - DH < I gives k in (0, "
               "4).",),
        example={"k_frac": 0.5, "eps": 1.0},
    )


def sgfs_exact_noise() -> Claim:
    """Build the claim ``sgfs_exact_noise``.

    Exact-process noise 2D - DHD gives the stationary covariance H^-1.

    Source: El hanchi (2018), Appendix, Derivation of the exact process.
    """
    a = 1 - k / 2
    q = sp.Symbol("Q", real=True)
    # Lambda = H^-1 stationary for theta' = (I - DH) theta + N(0, Q):  1 = a^2 + Q (units of H^-1)
    solved = derive.solve(sp.Eq(1, a ** 2 + q), q)[0]
    printed = 2 * (k / 2) - (k / 2) ** 2  # 2D - DHD with D = (k/2) H^-1, in units of H^-1
    return Claim(
        id="sgfs_exact_noise",
        title="Exact-process noise 2D - DHD gives the stationary covariance H^-1",
        source=Source(SEED, "Appendix, Derivation of the exact process"),
        assumptions=("QUAD", "PRECOND"),
        params=(S.k_frac,),
        quantities=(
            Quantity("noise_ratio", "noise covariance of the exact process in units of H^-1", "=",
                     (Form("stated", printed, "2D - DHD with D = (k/2) H^-1"),
                      Form("explicit", sp.expand(solved),
                           "noise that makes H^-1 solve Eq. (32), by sympy"))),
        ),
        constraints=(Constraint(k < 4, "k < 4 is needed for a stationary distribution"),),
        example={"k_frac": 0.5},
    )


def sgfs_admissible_k() -> Claim:
    """Build the claim ``sgfs_admissible_k``.

    Admissible k for a positive semi-definite injected noise (Eqs. 13, 15, 16).

    Source: El hanchi (2018), §2.3.1 Eqs. (11)-(16).
    """
    k13 = 4 * Sb / (Nd + Sb)
    k15 = 4 * er / (er + Nd / Sb)
    k16 = sp.Min(c, 4 * sp.Max(Sb / (Nd + Sb), er / (er + Nd / Sb)))
    return Claim(
        id="sgfs_admissible_k",
        title="Admissible k for a positive semi-definite injected noise (Eqs. 13, 15, 16)",
        source=Source(SEED, "§2.3.1 Eqs. (11)-(16)"),
        assumptions=("QUAD", "SPD", "PRECOND", "CLT"),
        params=(S.n_data, S.batch, S.eig_ratio, S.c_max),
        quantities=(
            Quantity.stated(
                "k_max_13", "largest k with 2D - (N^2/|S|) DCD - DHD >= 0 guaranteed by Eq. (12)",
                "<=", k13, "Eq. (13): k <= 4|S|/(N + |S|)"),
            Quantity.stated("k_max_15", "largest k guaranteed by the eigenvalue argument", "<=",
                            k15, "Eq. (15): k <= 4r/(r + N/|S|)"),
            Quantity.stated("k_16", "the k chosen by Eq. (16)", "<=",
                            k16, "Eq. (16): min{c, 4 max{|S|/(N+|S|), r/(r + N/|S|)}}"),
        ),
        constraints=(Constraint(Sb <= Nd, "the minibatch cannot exceed the data: |S| <= N"),),
        notes=("'For strong priors, r > 1' (after Eq. 15) is not implied: with an ill-conditioned "
               "N C, r can be far below 1 even when G is comparable to N C in some direction.",),
        example={"n_data": 10000, "batch": 100, "eig_ratio": 2.0},
    )


def sgfs_variance_trajectory() -> Claim:
    """Build the claim ``sgfs_variance_trajectory``.

    Var[theta_t] along the exact process started at theta_MAP.

    Source: El hanchi (2018), Appendix, Maximizing the rate of convergence.
    """
    a = 1 - k / 2
    noise = k - k ** 2 / 4  # 2D - DHD in units of H^-1
    exact = geometric_sum(noise, a, 2, _i, 0, t - 1)  # theta_0 = theta_MAP
    printed_sum = geometric_sum(noise, a, 2, _i, 0, t)
    printed = 1 - a ** t
    return Claim(
        id="sgfs_variance_trajectory",
        title="Var[theta_t] along the exact process started at theta_MAP",
        source=Source(SEED, "Appendix, Maximizing the rate of convergence"),
        assumptions=("QUAD", "PRECOND"),
        params=(S.k_frac.with_domain(upper=4, upper_strict=True), S.t_iter),
        quantities=(
            Quantity("variance_ratio", "Var[theta_t] in units of H^-1", "=",
                     (Form("stated", printed, "printed closed form: 1 - (1 - k/2)^t"),
                      Form("stated_sum", printed_sum,
                           "printed sum (k - k^2/4) sum_{i=0}^{t} (1-k/2)^(2i), by sympy"),
                      Form("corrected", exact,
                           "sum_{i=0}^{t-1} of the noise propagated: 1 - (1-k/2)^(2t), by sympy"))),
        ),
        example={"k_frac": 1.0, "t_iter": 3},
    )


def sgfs_autocovariance() -> Claim:
    """Build the claim ``sgfs_autocovariance``.

    Lag-one autocovariance of the exact process: (1 - k/2) H^-1.

    Source: El hanchi (2018), Appendix, Minimizing auto-covariance.
    """
    a = 1 - k / 2
    lam = 1  # stationary covariance of the exact process, units of H^-1
    derived = sp.expand(a * lam)  # Cov[theta_t, theta_{t-1}] = (I - DH) Var[theta_{t-1}]
    return Claim(
        id="sgfs_autocovariance",
        title="Lag-one autocovariance of the exact process: (1 - k/2) H^-1",
        source=Source(SEED, "Appendix, Minimizing auto-covariance"),
        assumptions=("QUAD", "PRECOND", "STATIONARY"),
        params=(S.k_frac.with_domain(upper=4, upper_strict=True),),
        quantities=(
            Quantity("lag1_ratio", "Cov[theta_t, theta_{t-1}] in units of H^-1 at stationarity",
                     "=",
                     (Form("stated", 1 - k / 2, "printed: (1 - k/2) H^-1"),
                      Form("explicit", derived, "(I - DH) Var[theta_{t-1}] with Var = H^-1"))),
        ),
        notes=("The printed intermediate E[(k/2 theta + w)^T theta] has k/2 for 1 - k/2 and a "
               "scalar where a matrix is meant; the final result is right.",),
        example={"k_frac": 0.5},
    )


def sgfs_convergence_criterion() -> Claim:
    """Build the claim ``sgfs_convergence_criterion``.

    Convergence criterion (17): |mean of n stochastic gradients| <= b sd.

    Source: El hanchi (2018), §2.3.2 Eq. (17).
    """
    n, C, G, b = S.n_avg.symbol, S.fisher.symbol, S.prior.symbol, S.b.symbol
    h = Nd * C + G
    printed_sd = sp.sqrt(h / n + Nd ** 2 / (n * Sb))
    # exact stationary variance of (1/n) sum_i Y_i, Y_i = -h theta_i + xi_i (scalar case, eps = 1)
    rho = 1 - k / 2
    sx2 = Nd ** 2 * C / Sb
    s1 = geometric_sum(n - _d, rho, 1, _d, 1, n - 1)
    s2 = geometric_sum(n - _d, rho, 1, _d, 1, n - 1) / rho
    var_sum = h * (n + 2 * s1) - 2 * (k / 2) * sx2 * s2 + n * sx2
    exact_sd = sp.sqrt(var_sum) / n
    return Claim(
        id="sgfs_convergence_criterion",
        title="Convergence criterion (17): |mean of n stochastic gradients| <= b sd",
        source=Source(SEED, "§2.3.2 Eq. (17)"),
        assumptions=("QUAD", "SPD", "PRECOND", "CLT", "STATIONARY"),
        params=(S.n_avg, S.n_data, S.batch, S.fisher, S.prior, S.b,
                S.k_frac.with_domain(upper=4, upper_strict=True)),
        quantities=(
            Quantity("threshold",
                     "b x standard deviation of (1/n) sum_i Y_i at stationarity (scalar case)", "=",
                     (Form("stated", b * printed_sd, "Eq. (17): b sqrt((NC + G)/n + N^2/(n|S|))"),
                      Form("corrected", b * exact_sd,
                           "exact: autocorrelated iterates (rho = 1 - k/2) and the gradient noise "
                           "N^2 C/|S| fed back through D, sums by sympy"))),
        ),
        constraints=(Constraint(Sb <= Nd, "the minibatch cannot exceed the data: |S| <= N"),
                     Constraint(k * (h + sx2) <= 4 * h,
                                "the injected noise 2D - (N^2/|S|) DCD - DHD must be >= 0: "
                                "k <= 4(NC+G)/(NC+G+N^2 C/|S|) (Eq. 8, scalar case)")),
        notes=("Eq. (17) omits the factor C on N^2/(n|S|) and treats the iterates as independent.",
               ),
        example={"n_avg": 10, "n_data": 1000, "batch": 100, "fisher": 1.0, "prior": 1.0, "b": 1.0,
                 "k_frac": 0.1},
    )


BUILDERS = {
    "sgfs_stationary_covariance": sgfs_stationary_covariance,
    "sgfs_exact_noise": sgfs_exact_noise,
    "sgfs_admissible_k": sgfs_admissible_k,
    "sgfs_variance_trajectory": sgfs_variance_trajectory,
    "sgfs_autocovariance": sgfs_autocovariance,
    "sgfs_convergence_criterion": sgfs_convergence_criterion,
}
