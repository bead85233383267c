"""Instances and rounding scales for the proof audit of El hanchi (2018) (document 002).

The report's matrix statements (§2.3.1 Eqs. (11)-(16), the Appendix) are checked on SPD
matrices the adversarial search chooses (:func:`verify.audit.instances.searchable`).  Two kinds
of instances are added here to the engine's (``register_kind``):

``spd2``
    a pair ``(A, B)`` of symmetric matrices of size d = 1, 2, 3, 5: A SPD, B SPD or singular.
    Regimes: interior (eigenvalues in [0.1, 10]), ill-conditioned ([1e-4, 1e4]), commuting
    (one rotation for both, ill-conditioned), and B singular (half of its eigenvalues exactly
    0, all of them for d = 1).  Used for (D, H) with D and H that need not commute (Eq. (32)),
    and for the per-datum information C with the prior's Hessian G (Eqs. (9)-(16)).
``lmm``
    a linear mixed model of §3.3.2 (Eqs. (18)-(29)): design X (N x p), Z (N x q), covariance
    G (q x q, SPD), sigma, beta, and a response y.  See :class:`Lmm`.

Rounding.  A float64 residual that is 0 in exact arithmetic is compared with 0 together with
its *scale* (the 4th element of a row, see :func:`verify.audit.instances.instance_check`): the size
of the terms that cancel, times the condition number that amplifies their rounding.  The
tolerance is then a small multiple of the unit roundoff ``U`` (:func:`tol`), from first-order
error analysis of the few O(d^3) operations involved.
"""

from __future__ import annotations

import math

import numpy as np

from verify.audit.adversary import Kind, Regime, _r6, _rotation, register_kind

#: unit roundoff of float64
U = float(np.finfo(float).eps) / 2


def tol(d: int, factor: float = 64.0) -> float:
    """Relative tolerance of a d x d computation of a few O(d^3) steps: ``factor d U``.
    (The largest ratio residual / (U scale) measured over the search domains is below 10.)"""
    return factor * max(1, d) * U


def kappa(H) -> float:
    ev = np.linalg.eigvalsh(np.atleast_2d(H))
    return float(ev[-1] / ev[0])


def n2(X) -> float:
    return float(np.linalg.norm(np.atleast_2d(X), 2))


def sym(X):
    return 0.5 * (X + X.T)


def r6(X):
    return _r6(X)


class SpdPair(Kind):
    """(A, B): A SPD; B SPD, or singular in the regime "B singular" (see the module docstring)."""

    name = "spd2"
    text = "pairs (A, B) of symmetric matrices of size d = 1, 2, 3, 5 (A SPD, B SPD or singular)"
    configs = (2, 3, 1, 5)
    regimes = (Regime("interior", "eigenvalues in [0.1, 10], independent rotations"),
               Regime("ill-conditioned", "eigenvalues in [1e-4, 1e4], independent rotations"),
               Regime("commuting", "eigenvalues in [1e-4, 1e4], one rotation for both"),
               Regime("B singular", "B with half of its eigenvalues (all for d = 1) exactly 0"))

    def dim(self, d, regime):
        rot = d * (d - 1) // 2
        return 2 * d + (rot if regime == "commuting" else 2 * rot)

    def decode(self, u, d, regime):
        u = np.asarray(u, float)
        span = math.log(10) if regime == "interior" else 4 * math.log(10)
        ea = np.exp(-span + 2 * span * u[:d])
        eb = np.exp(-span + 2 * span * u[d:2 * d])
        if regime == "B singular":
            eb[: max(1, d // 2) if d > 1 else 1] = 0.0
        rot = d * (d - 1) // 2
        if d == 1:
            Qa = Qb = np.eye(1)
        elif regime == "commuting":
            Qa = Qb = _rotation(u[2 * d:2 * d + rot], d)
        else:
            Qa = _rotation(u[2 * d:2 * d + rot], d)
            Qb = _rotation(u[2 * d + rot:2 * d + 2 * rot], d)
        A = sym((Qa * ea) @ Qa.T)
        B = sym((Qb * eb) @ Qb.T)
        return (A, B)

    def describe(self, inst):
        return {"A": _r6(inst[0]), "B": _r6(inst[1])}


register_kind(SpdPair())


def spd(g: np.random.Generator, d: int, scale: float = 1.0) -> np.ndarray:
    A = g.standard_normal((d, d))
    return scale * (A @ A.T + d * np.eye(d))


def fixed_pairs(seed: int = 5):
    """The fixed (A, B) pairs of an ordinary run: d = 1, 2, 3, 5, B SPD, then B = 0 and a singular
    B.
    """
    g = np.random.default_rng(seed)
    out = [(spd(g, d), spd(g, d, 0.3)) for d in (1, 2, 3, 5)]
    out.append((spd(g, 2), np.zeros((2, 2))))
    v = g.standard_normal(3)
    out.append((spd(g, 3), np.outer(v, v)))
    return out


# ----------------------------------------------------------------------------- linear mixed models
class Lmm(Kind):
    """A linear mixed model of 002 §3.3.2: ``y = X beta + Z mu + eps``, ``mu ~ N(0, sigma^2 G)``,
    ``eps ~ N(0, sigma^2 I_N)`` (Eqs. (18)-(19)).

    Configurations (N, p, q): (12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5).  Regimes:
    ``interior``: Z the cluster indicators of §3.3.2 (a) (observation i in cluster i mod q), X an
    intercept and N(0, 1) covariates; ``general``: Z with N(0, 1) entries; ``ill-conditioned``:
    nearly collinear columns of X (correlation 1 - 1e-6 .. 1) and G with eigenvalues down to 1e-6;
    ``extreme sigma``: sigma in [1e-3, 1e3].  The unit cube holds the log-eigenvalues of G, sigma,
    a collinearity knob, the scale of beta and a seed for the remaining N(0, 1) draws.
    Instance: dict with X, Z, G, sigma, beta, y, mu (the random effects drawn) and the point."""

    name = "lmm"
    text = "linear mixed models (N, p, q) = (12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5)"
    configs = ((12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5))
    regimes = (
        Regime("interior", "Z cluster indicators, G eigenvalues in [0.01, 100], sigma in [0.1, "
                           "10]"),
        Regime("general", "Z with N(0, 1) entries"),
        Regime("ill-conditioned",
               "X columns correlated up to 1 - 1e-6, G eigenvalues in [1e-6, 1e3]"),
        Regime("extreme sigma", "sigma in [1e-3, 1e3]"))

    def dim(self, config, regime):
        N, p, q = config
        return q + q * (q - 1) // 2 + 4

    def decode(self, u, config, regime):
        N, p, q = config
        u = np.asarray(u, float)
        lo, hi = (-6.0, 3.0) if regime == "ill-conditioned" else (-2.0, 2.0)
        eg = 10.0 ** (lo + (hi - lo) * u[:q])
        rot = q * (q - 1) // 2
        Qg = _rotation(u[q:q + rot], q) if q > 1 else np.eye(1)
        G = sym((Qg * eg) @ Qg.T)
        s_lo, s_hi = (-3.0, 3.0) if regime == "extreme sigma" else (-1.0, 1.0)
        sigma = 10.0 ** (s_lo + (s_hi - s_lo) * u[q + rot])
        coll = u[q + rot + 1]
        bscale = 10.0 ** (-1 + 3 * u[q + rot + 2])
        seed = int(u[q + rot + 3] * 2 ** 31)
        return make_lmm(N, p, q, G, sigma, coll if regime == "ill-conditioned" else 0.0, bscale,
                        seed,
                        clusters=regime != "general")

    def describe(self, inst):
        return {"N": inst["X"].shape[0], "p": inst["X"].shape[1], "q": inst["Z"].shape[1],
                "seed": inst["seed"],
                "G": _r6(inst["G"]), "sigma": float(inst["sigma"]),
                "collinearity": float(inst["collinearity"])}


def make_lmm(N, p, q, G, sigma, collinearity=0.0, bscale=1.0, seed=0, clusters=True):
    """One instance of the model (18): X (intercept + covariates; with ``collinearity`` c in [0, 1]
    the last
    covariate is the previous one plus 10^(-6 c) noise), Z cluster indicators or N(0, 1), beta, mu,
    y."""
    g = np.random.default_rng(seed)
    X = np.column_stack([np.ones(N)] + [g.standard_normal(N) for _ in range(p - 1)])
    if p >= 3 and collinearity > 0:
        X[:, -1] = X[:, -2] + 10.0 ** (-6 * collinearity) * g.standard_normal(N)
    if clusters:
        Z = np.zeros((N, q))
        Z[np.arange(N), np.arange(N) % q] = 1.0
    else:
        Z = g.standard_normal((N, q))
    beta = bscale * g.standard_normal(p)
    Lg = np.linalg.cholesky(G)
    mu = sigma * (Lg @ g.standard_normal(q))
    y = X @ beta + Z @ mu + sigma * g.standard_normal(N)
    return {"X": X, "Z": Z, "G": G, "sigma": float(sigma), "beta": beta, "mu": mu, "y": y,
            "seed": seed,
            "collinearity": float(collinearity)}


register_kind(Lmm())


def fixed_lmms():
    """The fixed models of an ordinary run (N, p, q) = (12, 2, 3) and (30, 2, 3) with cluster
    indicators and
    (8, 3, 2) with a general Z."""
    return [make_lmm(12, 2, 3, np.diag([2.0, 1.0, 0.5]), 0.7, seed=1),
            make_lmm(30, 2, 3, np.diag([2.0, 1.0, 0.5]), 0.7, seed=3),
            make_lmm(8, 3, 2, np.array([[1.0, 0.3], [0.3, 0.5]]), 1.3, seed=8, clusters=False)]


# ---------------------------------------------------------------------------- exact Gaussian chains
def scalar_chain(n, N, S, C, G, k, start_mean=0.0, start_sd=None, exact=True):
    """The scalar process of 002 §2.3 as linear maps of independent N(0, 1) variables (no sampling):
    ``Y_i = -h theta_(i-1) + xi_i`` (the stochastic gradient at theta_(i-1), Eq. (4): xi_i ~ N(0,
    N^2 C/|S|)), ``theta_i = theta_(i-1) + D Y_i + eta_i`` with ``D = k/(2h)``, ``h = N C + G``
    (Eqs. (9), (10)) and the injected noise of Eq. (8) (``exact``: 2D - (N^2/|S|) D C D - D H D) or
    of Eq. (7) (2D - (N^2/|S|) D C D); theta_MAP = 0.  theta_0 ~ N(start_mean, start_sd^2) (default:
    the stationary sd 1/sqrt(h) of (8)).

    Returns (h, sigma2, D, v_eta, means, coefs): ``means[name]``, ``coefs[name]`` (a row over the
    independent normals theta_0, xi_1..xi_n, eta_1..eta_n) for names ("theta", i), i = 0..n, and
    ("Y", i), ("xi", i),
    i = 1..n.  Raises ValueError when the injected noise variance is negative (k not admissible)."""
    h = N * C + G
    sx2 = N * N * C / S
    D = k / (2 * h)
    v_eta = 2 * D - D * D * sx2 - (D * D * h if exact else 0.0)
    if v_eta < -1e-12 * 2 * D:
        raise ValueError("injected noise variance negative: k not admissible")
    v_eta = max(v_eta, 0.0)
    sd0 = 1 / math.sqrt(h) if start_sd is None else start_sd
    dim = 1 + 2 * n
    th = np.zeros(dim)
    th[0] = sd0
    m = float(start_mean)
    means, coefs = {("theta", 0): m}, {("theta", 0): th.copy()}
    sx, se = math.sqrt(sx2), math.sqrt(v_eta)
    for i in range(1, n + 1):
        xi = np.zeros(dim)
        xi[i] = sx
        Y = -h * th + xi
        mY = -h * m
        means[("Y", i)], coefs[("Y", i)] = mY, Y
        means[("xi", i)], coefs[("xi", i)] = 0.0, xi
        th = th + D * Y
        th[n + i] += se
        m = m + D * mY
        means[("theta", i)], coefs[("theta", i)] = m, th.copy()
    return h, sx2, D, v_eta, means, coefs


def admissible_k_scalar(N, S, C, G):
    """The largest k with a non-negative injected noise in Eq. (8), scalar case: 4h/(h + N^2
    C/|S|).
    """
    h = N * C + G
    return 4 * h / (h + N * N * C / S)


# ----------------------------------------------------------------------------- sympy helpers
def matrix_identity(L, R, name="w"):
    """(sum_ij w_ij L_ij, sum_ij w_ij R_ij) with fresh symbols w_ij: equal as expressions iff L = R
    entrywise
    (a scalar form of a matrix identity for :func:`verify.audit.symbolic.sym_equal`), and the
    weights."""
    import sympy as sp

    L, R = sp.Matrix(L), sp.Matrix(R)
    w = sp.Matrix(L.shape[0], L.shape[1], lambda i, j: sp.Symbol(f"{name}{i}{j}", real=True))
    return (sum(w[i, j] * L[i, j] for i in range(L.shape[0]) for j in range(L.shape[1])),
            sum(w[i, j] * R[i, j] for i in range(L.shape[0]) for j in range(L.shape[1])), list(w))
