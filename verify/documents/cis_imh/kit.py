"""Instances and exact computations for the proof audit of the CIS-as-IMH draft (document 003).

The draft's steps are checked on instances the adversarial search chooses
(:func:`verify.audit.instances.searchable`, :func:`verify.audit.adversary.free`).  Three kinds of
instances are added to the engine's (``register_kind``):

``cis_pqf``    a finite pair (pi, q) on M = 2, 3, 5, 8 states (the regimes of the engine's
               ``pairs``: atoms of pi, w* -> oo, q near pi, q = pi) with a test function
               f in [-1, 1]^M;
``cis_gauss``  a Gaussian pair p = N(0, I_D), q = N(m e_1, s^2 I_D), D = 1, 3, 10, 100: means
               and scales from m in [-30, 30], s in [1e-2, 1e2] (log) down to q = p;
``cis_logw``   the log-weights of one CIS step, (log w(z_t-1), log w(z^(1)), ..., log w(z^(N))),
               N = 1, 2, 8 free, N = 100 and 10^4 through a three-parameter family, log-weights
               up to +-28 (weights 1e-12 .. 1e12) and beyond.

003 counts N *proposals* (N + 1 particles: the current state and z^(1:N)); :mod:`simulate`
counts particles.  Every function here takes 003's N and passes N + 1 to the simulators.
Weights are normalised, w = pi/q (E_q w = 1), unless a function says otherwise.

Exactness.  Finite-state quantities are exact sums over the multinomial counts of the N
proposals (``simulate.finite``'s count vectors and its Laplace-sum for the kernel, with their
rigorous error bounds) while the number of count vectors stays below :data:`WORK`; beyond it the
acceptance rate is a Laplace quadrature with its error estimate, and the other sums take the
largest N within the budget (the rows record the N used).  Gaussian rejection rates are
one-dimensional integrals over the law of log w (non-central chi-square), by two composite
Gauss-Legendre rules whose difference is the error estimate.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from mcsa_cli.lazy import lazy_module
from simulate import finite as F
from verify.audit.adversary import Kind, PairsWith, Regime, _r6, register_kind

stats = lazy_module("scipy.stats")
special = lazy_module("scipy.special")

U = float(np.finfo(float).eps) / 2  # unit roundoff
#: largest number of count vectors (times the work per vector) an exact sum may take in a search
WORK = 20_000


# ============================================================================= instance kinds
#: (pi, q, f), f a test function in [-1, 1]^M
PairF = PairsWith("cis_pqf", "f", "unit",
                  "finite pi, q on M = 2, 3, 5, 8 states with f in [-1, 1]^M")


#: the regimes of ``cis_gauss``: name -> (text, the map of a point (a, b) of [0, 1]^2 to (m, s))
_GAUSS_REGIMES = {
    "interior": ("m in [-3, 3], s in [0.5, 2] (log)",
                 lambda a, b: (-3 + 6 * a, math.exp(math.log(0.5) + b * math.log(4.0)))),
    "wide": ("m in [-30, 30], s in [1e-2, 1e2] (log)",
             lambda a, b: (-30 + 60 * a, math.exp(math.log(1e-2) + b * math.log(1e4)))),
    "mean shift": ("s = 1, m in [-30, 30]", lambda a, b: (-30 + 60 * a, 1.0)),
    "scale": ("m = 0, s in [1e-2, 1e2] (log)",
              lambda a, b: (0.0, math.exp(math.log(1e-2) + b * math.log(1e4)))),
    "q near p": ("m in [-1e-3, 1e-3], log s in [-1e-3, 1e-3]",
                 lambda a, b: (1e-3 * (2 * a - 1), math.exp(1e-3 * (2 * b - 1)))),
    "q = p": ("m = 0, s = 1", lambda a, b: (0.0, 1.0)),
}


class GaussPair(Kind):
    """p = N(0, I_D), q = N(m e_1, s^2 I_D): the instance is (D, m, s)."""

    name = "cis_gauss"
    text = "Gaussian pairs p = N(0, I_D), q = N(m e_1, s^2 I_D), D = 1, 3, 10, 100"
    configs = (1, 10, 3, 100)
    regimes = tuple(Regime(key, about) for key, (about, _) in _GAUSS_REGIMES.items())

    def dim(self, D, regime):
        return 2

    def decode(self, u, D, regime):
        m, s = _GAUSS_REGIMES[regime][1](float(u[0]), float(u[1]))
        return D, m, s

    def describe(self, inst):
        D, m, s = inst
        return {"D": int(D), "m": float(m), "s": float(s)}


class LogWeights(Kind):
    """Log-weights (log w(z_t-1), log w(z^(1)), ..., log w(z^(N))) of one CIS step.

    n = N + 1 <= 9: every log-weight free.  n = 101 and 10001: log w(z_t-1) free and the N
    proposals' log-weights a + b t_i (t_i the standard normal quantiles (i - 1/2)/N, b in [0, 10]):
    weights spread over up to 30 orders of magnitude.  Regimes: interior (log-weights in [-4, 4]),
    w0 -> oo (log w(z_t-1) in [10, 28]), w0 -> 0 (in [-28, -10]), wide (all in [-28, 28])."""

    name = "cis_logw"
    text = "log-weights of the current state and N = 1, 2, 8, 100, 10^4 proposals"
    configs = (3, 9, 2, 101, 10001)
    regimes = (Regime("interior", "log-weights in [-4, 4]"),
               Regime("w0 -> oo", "log w(z_t-1) in [10, 28], the others in [-4, 4]"),
               Regime("w0 -> 0", "log w(z_t-1) in [-28, -10], the others in [-4, 4]"),
               Regime("wide", "every log-weight in [-28, 28]"))

    def dim(self, n, regime):
        return n if n <= 9 else 3

    def decode(self, u, n, regime):
        u = np.asarray(u, float)
        lo, hi = (-28.0, 28.0) if regime == "wide" else (-4.0, 4.0)
        l0 = {"w0 -> oo": 10 + 18 * u[0],
              "w0 -> 0": -28 + 18 * u[0]}.get(regime, lo + (hi - lo) * u[0])
        if n <= 9:
            rest = lo + (hi - lo) * u[1:n]
        else:
            a, b = lo + (hi - lo) * u[1], 10 * u[2]
            rest = a + b * _quantiles(n - 1)
        return np.concatenate([[l0], rest])

    def describe(self, inst):
        lw = np.asarray(inst)
        if lw.size <= 9:
            return {"log_w": _r6(lw)}
        return {"N": int(lw.size - 1), "log_w0": float(lw[0]), "log_w proposals (min, max)":
                [float(lw[1:].min()), float(lw[1:].max())]}


@functools.lru_cache(maxsize=8)
def _quantiles(n: int) -> np.ndarray:
    return stats.norm.ppf((np.arange(n) + 0.5) / n)


for _k in (PairF, GaussPair(), LogWeights()):
    register_kind(_k)


# ============================================================================= finite spaces
def n_max(M: int, N: int, work: int = WORK) -> int:
    """The largest n <= N whose count vectors (C(n + M - 1, M - 1) of them) times M fit in
    ``work``.
    """
    n = int(N)
    while n > 1 and math.comb(n + M - 1, M - 1) * M > work:
        n = max(1, int(n * 0.8))
    return n


def _groups(w: np.ndarray) -> int:
    """Distinct weights up to 8 ulp (the grouping of simulate.finite's Laplace sum)."""
    ws = np.sort(w)
    return 1 + int(np.sum(np.diff(ws) > 8 * 2 * U * ws[1:]))


def laplace_sum_feasible(w, q, n: int, work: int = WORK) -> bool:
    """Whether simulate.finite's exact Laplace sum over n proposals is at most ``work``
    (estimate).
    """
    K = _groups(np.asarray(w, float))
    if K <= 2:
        return n <= 10 ** 4  # n + 1 count vectors: a few milliseconds
    per = K + K * (K + 1) // 2
    if math.comb(n + K - 1, K - 1) * per <= work:
        return True
    if K > 3:
        return False
    Q = np.sort(np.asarray(q, float))  # the largest mass takes the remainder
    box = 1
    for Qk in Q[:K - 1]:
        sd = math.sqrt(n * Qk * (1 - Qk))
        box *= int(min(n, 2 * 12.0 * (sd + 1.0) + 1))
    return box * per <= work


def acceptance(pi, q, N: int):
    """1 - r(x) = E_q[S/(w_x + S)], S the sum of N proposal weights, at every state x: (values,
    errors, how).

    = N sum_y pi_y E[1/(w_x + w_y + S_(N-1))]: simulate.finite's exact Laplace sum (rigorous error)
    when
    feasible, else the Laplace quadrature of
    :func:`verify.documents.cis_imh.checks.acceptance_laplace`."""
    pi, q = F.check_pair(pi, q)
    w = pi / q
    N = int(N)
    res = F._cis_laplace_sum(w, q, N - 1) if laplace_sum_feasible(w, q, N - 1) else None
    if res is not None:
        I, E = res  # noqa: E741 -- I is the document's notation
        acc = N * (I @ pi)
        err = N * (E @ pi) + 8 * (pi.size + 4) * U * np.maximum(acc, 1e-300)
        return acc, err, "exact multinomial sum"
    fast = _acceptance_gl(pi, q, w, N)
    if fast is not None:
        return fast[0], fast[1], "Laplace quadrature (Gauss-Legendre)"
    from .checks import acceptance_laplace, finite_law

    val, err = acceptance_laplace(finite_law(pi, q), w, [N])
    return val[:, 0], err[:, 0], "Laplace quadrature"


def _acceptance_gl(pi, q, w, N: int):
    """N int_0^oo e^(-t w_x) phi_pi(t) phi_q(t)^(N-1) dt for every x (phi_mu(t) = E_mu e^(-tW)) by
    the fixed 24/48-node Gauss-Legendre rules of simulate.finite on the pieces split at the
    integrand's time scales; None when the two rules disagree by more than 1e-12 of the largest
    component (then the adaptive quadrature is used).  Returns
    (values, absolute errors): the rules' difference plus rounding."""
    lq, lp = np.log(q), np.log(np.maximum(pi, 1e-320))

    def fvec(t):
        t = np.asarray(t, float)[:, None]
        log_phi_q = special.logsumexp(lq[None, :] - t * w[None, :], axis=1)
        log_phi_p = special.logsumexp(lp[None, :] - t * w[None, :], axis=1)
        return N * np.exp(-t * w[None, :] + (log_phi_p + (N - 1) * log_phi_q)[:, None])

    rates = np.concatenate([w + N * w.min(), w + N, w + w.min(), w + w.max()])
    res = F._gauss_legendre_split(fvec, rates)
    if res is None:
        return None
    val, err = res
    val = np.asarray(val, float)
    return val, np.full(val.shape, float(err)) + 64 * (N + w.size) * U * np.maximum(val, 1e-300)


def kernel(pi, q, N: int):
    """The CIS kernel with N proposals (N + 1 particles), exact sum: (K, error bound); None if
    infeasible.
    """
    pi, q = F.check_pair(pi, q)
    if not laplace_sum_feasible(pi / q, q, N - 1):
        return None
    return F.cis_matrix(pi, q, int(N) + 1, return_error=True, method="sum")


def feasible_N(pi, q, N: int) -> int:
    """The largest N' <= N for which :func:`kernel` is an exact sum within the budget."""
    pi, q = F.check_pair(pi, q)
    w = pi / q
    n = int(N)
    while n > 1 and not laplace_sum_feasible(w, q, n - 1):
        n = max(1, n // 2)
    return n


def rb_moments(pi, q, f, x: int, N: int):
    """simulate.finite.moments_msc_rb of f at state x with N proposals (N + 1 particles): its exact
    sum while the count vectors stay below a few thousand, else its Gauss-Legendre quadrature
    (checked against the sum and the
    adaptive rule to 1e-12 in the toolkit's tests; its error estimate is returned in ``.error``)."""
    pi = np.asarray(pi, float)
    small = math.comb(int(N) + pi.size - 1, pi.size - 1) <= 5000
    return F.moments_msc_rb(pi, q, f, int(x), int(N) + 1, method="sum" if small else "quadrature")


def ratio_moments(q, w, f, N: int, w0: float = 0.0, f0: float = 0.0):
    """Mean and variance of g = (w0 f0 + sum_i w(z_i) f(z_i)) / (w0 + sum_i w(z_i)), z_1..N i.i.d.
    q, by the exact sum over the multinomial counts (w0 = 0: the SNIS estimate; w0 > 0: the
    Rao-Blackwellised CIS estimate at a current state of weight w0 off the support of q).  Returns
    (mean, variance, E[(1-r)^2],
    E[1-r]) with 1 - r = S/(w0 + S)."""
    q = np.asarray(q, float)
    w = np.asarray(w, float)
    f = np.asarray(f, float)
    M = q.size
    C = F._all_count_vectors(int(N), M).astype(float)
    lf = special.gammaln(np.arange(N + 1) + 1.0)
    p = np.exp(lf[N] - lf[F._all_count_vectors(int(N), M)].sum(1) + C @ np.log(q))
    p = p / p.sum()
    S = C @ w
    den = w0 + S
    g = (w0 * f0 + C @ (w * f)) / den
    mean = float(p @ g)
    var = float(p @ (g - mean) ** 2)
    acc = S / den
    return mean, var, float(p @ acc ** 2), float(p @ acc)


def imh_rejection(pi, q) -> np.ndarray:
    """r(x) = lambda(w_x): the Metropolis IMH rejection probability at every state."""
    pi, q = F.check_pair(pi, q)
    w = pi / q
    return np.array([F.imh_lambda(pi, q, float(v)) for v in w])


def marginal_rejection_tv(pi, q) -> float:
    """The marginal IMH rejection rate by 003's definition (§Bias-variance): 1 - int int alpha(z*,
    z) q(z*) p(z)
    = 1 - sum_{x, y} min(pi_x q_y, pi_y q_x) (= TV(p x q, q x p))."""
    pi, q = F.check_pair(pi, q)
    A = pi[:, None] * q[None, :]
    return float(1.0 - math.fsum(np.minimum(A, A.T).ravel().tolist()))


def kl_finite(pi, q) -> tuple[float, float]:
    """(KL(p || q), KL(q || p)) on a finite space (pi > 0, q > 0)."""
    pi, q = F.check_pair(pi, q)
    return float(np.sum(special.rel_entr(pi, q))), float(np.sum(special.rel_entr(q, pi)))


def averaged_tv(K, start: int, pi, T: int) -> tuple[float, list]:
    """TV((1/T) sum_{t=1}^T K^t(start, .), pi) and E_t = K^t(start, .) for t = 1..min(T, 3)."""
    tv, first = averaged_tv_all(K, pi, T)
    return float(tv[start]), [row[start] for row in first]


def averaged_tv_all(K, pi, T: int) -> tuple[np.ndarray, list]:
    """TV((1/T) sum_{t=1}^T K^t(x, .), pi) for every start x (rows of the powers of K, summed in
    order), and the
    laws K^t(x, .) for t = 1..min(T, 3) (arrays over x)."""
    P = np.eye(K.shape[0])
    acc = np.zeros_like(P)
    first = []
    for t in range(1, int(T) + 1):
        P = P @ K
        acc += P
        if t <= 3:
            first.append(P.copy())
    return 0.5 * np.abs(acc / T - pi[None, :]).sum(1), first


# ============================================================================= Gaussian pairs
def gauss_kl(D: int, m: float, s: float) -> tuple[float, float]:
    """(KL(p || q), KL(q || p)), p = N(0, I_D), q = N(m e_1, s^2 I_D), in closed form."""
    ls = math.log(s)
    kpq = 0.5 * (D / s ** 2 + m * m / s ** 2 - D) + D * ls
    kqp = 0.5 * (D * s ** 2 + m * m - D) - D * ls
    return max(kpq, 0.0), max(kqp, 0.0)


def _rule(lo: float, hi: float, panels: int, order: int = 8):
    t, wt = np.polynomial.legendre.leggauss(order)
    e = np.linspace(lo, hi, panels + 1)
    a, b = e[:-1, None], e[1:, None]
    return (0.5 * (a + b) + 0.5 * (b - a) * t).ravel(), (0.5 * (b - a) * wt).ravel()


def _ncx2_cdf(x, df, nc, upper: bool):
    x = np.maximum(x, 0.0)
    if nc > 0:
        return stats.ncx2.sf(x, df, nc) if upper else stats.ncx2.cdf(x, df, nc)
    return stats.chi2.sf(x, df) if upper else stats.chi2.cdf(x, df)


def gauss_rejection(D: int, m: float, s: float, panels: int = 64) -> tuple[float, float]:
    """The marginal IMH rejection rate r = E_p[lambda(w(z))], lambda(v) = P_q(W < v) - P_p(W < v)/v,
    for p = N(0, I_D), q = N(m e_1, s^2 I_D), and an error estimate.

    L = log w(z) is affine in a non-central chi-square under p and under q:
    under q (z = m e_1 + s u): L = D log s - m^2/2 - a c^2 + a |u - c e_1|^2, a = (1 - s^2)/2, c = m
    s/(1 - s^2); under p: L = D log s + m^2/(2 s^2) - b d^2 + b |z - d e_1|^2, b = a/s^2, d = m/(1 -
    s^2); for s = 1, L is normal under both (N(m^2/2, m^2) under p, N(-m^2/2, m^2) under q).  r =
    E_p[F_q(L) - F_p(L) e^(-L)] by composite Gauss-Legendre in sqrt of the chi-square variable (in
    the standardised normal for s = 1), with ``panels`` and 2 ``panels`` panels; error = their
    difference + rounding of the largest term
    (|A| eps, the cancellation in A + B X)."""
    D, m, s = int(D), float(m), float(s)
    if s == 1.0:
        if m == 0.0:
            return 0.0, 0.0
        sd = abs(m)
        out = []
        for P in (panels, 2 * panels):
            u, wu = _rule(-40.0, 40.0, P)
            lv = m * m / 2 + sd * u
            g = stats.norm.pdf(u) * (stats.norm.cdf(lv, -m * m / 2, sd)
                                     - np.exp(stats.norm.logcdf(lv, m * m / 2, sd) - lv))
            out.append(float(wu @ g))
        return out[1], abs(out[1] - out[0]) + 64 * U
    ls = math.log(s)
    a = (1 - s * s) / 2
    c = m * s / (1 - s * s)
    Aq = D * ls - m * m / 2 - a * c * c
    b = a / (s * s)
    d = m / (1 - s * s)
    Ap = D * ls + m * m / (2 * s * s) - b * d * d
    ncq, ncp = c * c, d * d

    def F_of(lv, A, B, nc):  # P(A + B X <= l), X ~ ncx2(D, nc)
        x = (lv - A) / B
        if B > 0:
            return np.where(x > 0, _ncx2_cdf(x, D, nc, False), 0.0)
        return np.where(x > 0, _ncx2_cdf(x, D, nc, True), 1.0)

    mean, sdx = D + ncp, math.sqrt(2 * (D + 2 * ncp))
    ylo, yhi = math.sqrt(max(0.0, mean - 40 * sdx)), math.sqrt(mean + 40 * sdx + 200)
    out = []
    for P in (panels, 2 * panels):
        y, wy = _rule(ylo, yhi, P)
        x = y * y
        lv = Ap + b * x
        dens = 2 * y * (stats.ncx2.pdf(x, D, ncp) if ncp > 0 else stats.chi2.pdf(x, D))
        Fp = F_of(lv, Ap, b, ncp)
        Fq = F_of(lv, Aq, a, ncq)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            tail = np.where(Fp > 0, np.exp(np.log(np.maximum(Fp, 1e-320)) - lv), 0.0)
        out.append(float(wy @ (dens * (Fq - tail))))
    cancel = 64 * U * (abs(Ap) + abs(Aq) + abs(b) * (mean + 40 * sdx) + 1.0)
    return out[1], abs(out[1] - out[0]) + cancel
