"""Audit of El hanchi (2018) §3.3.2: the linear mixed model, its profiled likelihood (Eqs.
(19)-(24)) and its EM algorithm (Eqs. (25)-(29)).

Model (§3.3.2 (a), (b), Eq. (18)): y = X beta + Z mu + eps, mu ~ N(0, sigma^2 G), eps ~ N(0, sigma^2
I_N); D(G) = Z G Z^T + I_N, Lambda = D^-1.  Instances: linear mixed models the adversarial search
chooses (:class:`._kit.Lmm`: cluster indicators or general Z, nearly collinear X, G with eigenvalues
down to 1e-6, sigma in [1e-3, 1e3]).  Each printed formula is checked against a computation that
does not use it: scipy's multivariate normal log-density, Gaussian conditioning, stationarity of the
objective (its gradient at the printed minimiser, the objective being convex in the variable
concerned), Richardson-extrapolated finite differences.

Finding H06 of the third independent hunt (2026-11): the trace term of Eqs. (26) and (29) stands
outside the factors 1/(2 sigma^2) and 1/(N + q).  Bracket placement as rendered in 002 (§3.3.2.2):

    (26)  ... + \\frac{1}{2\\sigma^2} (\\|y - X\\beta\\|_2^2 - 2(y - X\\beta)^T Z a^{(i-1)}) \\\\ +
    \\text{Tr}(...) (29)  \\sigma^{(i)} = \\left\\{ \\frac{1}{N+q} (\\|y - X\\beta^{(i)}\\|_2^2 -
    2(...)^T Z a^{(i-1)}) \\right. \\\\
          \\left. + \\text{Tr}[...] \\right\\}^{1/2}

Both displays close the parenthesis that the factor multiplies before "+ Tr", while (29)'s rendering
carries the cross-line \\left\\{ ... \\right\\} correctly; that is the reading used here ("as
rendered").  As rendered, (26) even adds a term in units of y^2 (the trace) to dimensionless ones
(log sigma, ||y - X beta||^2/sigma^2), and (28) is the G-minimiser of (26) only with the trace
inside 1/(2 sigma^2): the trace inside is the correction.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from mcsa_cli.lazy import lazy_module
from verify.audit.adversary import Int, Real, free
from verify.audit.engine import step_table
from verify.audit.instances import first_failing, instance_check, searchable

from ._kit import U, fixed_lmms, n2, sym

optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")

SEED = "002"  # El hanchi (2018)
#: declares a step; its printed text is in proofs_lmm.toml
step = step_table(__name__, seed=SEED)
TOL = 64 * U


# --------------------------------------------------------------------------- the model's quantities
def _lmms():
    return searchable("lmm", fixed_lmms())


def Dmat(m, G=None):
    G = m["G"] if G is None else G
    return m["Z"] @ G @ m["Z"].T + np.eye(m["Z"].shape[0])


def nll20(m, beta, G, sigma):
    """Eq. (20) as printed: N log sigma + 1/2 log det D + (y - X beta)^T D^-1 (y - X beta) / (2
    sigma^2).
    """
    D = Dmat(m, G)
    r = m["y"] - m["X"] @ beta
    N = len(r)
    return (N * math.log(sigma) + 0.5 * np.linalg.slogdet(D)[1] + r @ np.linalg.solve(D, r)
            / (2 * sigma ** 2))


def nll_scipy(m, beta, G, sigma):
    """-log p(y | beta, G, sigma) from scipy's multivariate normal N(X beta, sigma^2 (Z G Z^T + I))
    (Eq. (19)).
    """
    return -float(stats.multivariate_normal(m["X"] @ beta, sigma ** 2 * Dmat(m, G)).logpdf(m["y"]))


def estep(m, beta, G, sigma):
    """a = (Z^T Z + G^-1)^-1 Z^T (y - X beta), V = sigma^2 (Z^T Z + G^-1)^-1 (the posterior of mu
    quoted from [2]).
    """
    Z = m["Z"]
    A = np.linalg.inv(Z.T @ Z + np.linalg.inv(G))
    A = sym(A)
    return A @ Z.T @ (m["y"] - m["X"] @ beta), sigma ** 2 * A


def expected_nll(m, beta, G, sigma, a, V):
    """E_{mu ~ N(a, V)}[-log P(y, mu | beta, G, sigma)] without the constant (N + q)/2 log 2 pi,
    from the moments of mu: E||y - X beta - Z mu||^2 = ||y - X beta - Z a||^2 + tr(Z V Z^T), E[mu^T
    G^-1 mu] = a^T G^-1 a +
    tr(G^-1 V) (not the form of (26))."""
    Z = m["Z"]
    N, q = Z.shape
    r = m["y"] - m["X"] @ beta - Z @ a
    Gi = np.linalg.inv(G)
    quad = r @ r + np.trace(Z @ V @ Z.T) + a @ Gi @ a + np.trace(Gi @ V)
    return (N + q) * math.log(sigma) + 0.5 * np.linalg.slogdet(G)[1] + quad / (2 * sigma ** 2)


def _parts(m, beta, G, a, V):
    """(||r||^2 - 2 r^T Z a, Tr[(V + a a^T)(Z^T Z + G^-1)]) with r = y - X beta: the two terms of
    (26) and (29).
    """
    Z = m["Z"]
    r = m["y"] - m["X"] @ beta
    W = V + np.outer(a, a)
    return r @ r - 2 * r @ Z @ a, float(np.trace(W @ (Z.T @ Z + np.linalg.inv(G))))


def printed26(m, beta, G, sigma, a, V):
    """(26) as rendered: the trace outside 1/(2 sigma^2)."""
    N, q = m["Z"].shape
    lin, tr = _parts(m, beta, G, a, V)
    return (N + q) * math.log(sigma) + 0.5 * np.linalg.slogdet(G)[1] + lin / (2 * sigma ** 2) + tr


def corrected26(m, beta, G, sigma, a, V):
    """(26) with the trace inside 1/(2 sigma^2)."""
    N, q = m["Z"].shape
    lin, tr = _parts(m, beta, G, a, V)
    return (N + q) * math.log(sigma) + 0.5 * np.linalg.slogdet(G)[1] + (lin + tr) / (2 * sigma ** 2)


def beta27(m, a):
    """(27) corrected: (X^T X)^-1 X^T (y - Z a) (the printed X X^T is lmm.27)."""
    X = m["X"]
    return np.linalg.solve(X.T @ X, X.T @ (m["y"] - m["Z"] @ a))


def G28(a, V, sigma_old):
    """(28) as printed: (1/sigma^2(i-1)) (sigma^2(i-1) (Z^T Z + G^-1(i-1))^-1 + a a^T) = (V + a
    a^T)/sigma_old^2.
    """
    return sym((V + np.outer(a, a)) / sigma_old ** 2)


def sigma29(m, beta, G_new, a, V, printed=True):
    """(29): as rendered (trace outside 1/(N + q)) or corrected (inside)."""
    N, q = m["Z"].shape
    lin, tr = _parts(m, beta, G_new, a, V)
    return math.sqrt(lin / (N + q) + tr) if printed else math.sqrt((lin + tr) / (N + q))


def em(m, beta, G, sigma, iters, printed=True, stop=1e6):
    """EM with (27) corrected, (28) as printed and (29) as rendered or corrected; the
    -log-likelihood (20) (by
    scipy's density, without N/2 log 2 pi) after each iteration; stops when sigma exceeds
    ``stop``."""
    N = m["Z"].shape[0]
    hist = []
    for _ in range(iters):
        if not (math.isfinite(sigma) and sigma <= stop):
            break
        a, V = estep(m, beta, G, sigma)
        beta = beta27(m, a)
        Gn = G28(a, V, sigma)
        sigma = sigma29(m, beta, Gn, a, V, printed)
        G = Gn
        hist.append(nll_scipy(m, beta, G, sigma) - N / 2 * math.log(2 * math.pi))
    return beta, G, sigma, hist


# ----------------------------------------------------------------------------- H06's instance
def hunt_lmm():
    """The third hunt's data set for H06 (its instance, regenerated): N = 30, p = 2, q = 3 clusters
    (observation i in cluster i mod 3), X = [1, x] with x ~ N(0, 1), beta = (1, -0.5), G = diag(2,
    1, 0.5), sigma = 0.7; numpy
    Generator(PCG64(3)) drawing x, then mu ~ N(0, sigma^2 G) (multivariate_normal), then the N(0, 1)
    errors."""
    g = np.random.default_rng(3)
    N, q = 30, 3  # p = 2 fixed effects: the columns of X = [1, x]
    x = g.normal(size=N)
    X = np.column_stack([np.ones(N), x])
    Z = np.zeros((N, q))
    Z[np.arange(N), np.arange(N) % q] = 1.0
    beta, G, sigma = np.array([1.0, -0.5]), np.diag([2.0, 1.0, 0.5]), 0.7
    mu = g.multivariate_normal(np.zeros(q), sigma ** 2 * G)
    y = X @ beta + Z @ mu + sigma * g.normal(size=N)
    return {"X": X, "Z": Z, "G": G, "sigma": sigma, "beta": beta, "mu": mu, "y": y, "seed": 3,
            "collinearity": 0.0}


#: the E-step's parameters (beta^(i-1), G^(i-1), sigma^(i-1)) and the hunt's test point for (26)
START = (np.array([0.5, 0.0]), np.eye(3), 1.0)
TEST_POINT = (np.array([0.9, -0.3]), np.diag([1.5, 0.8, 0.6]), 0.8)


# ----------------------------------------------------------------------------- Eqs. (19)-(24)
def _points(m):
    """Parameter points per instance: the model's own, and beta shifted, G halved, sigma x 1.7 (free
    factor).
    """
    out = [(m["beta"], m["G"], m["sigma"])]
    for f in free("sigma factor", [1.7], Real(1e-2, 1e2, log=True)):
        out.append((m["beta"] + 0.5, 0.5 * m["G"], m["sigma"] * f))
    return out


def _eq19():
    """Eq. (19): y | beta, G, sigma ~ N(X beta, sigma^2 (Z G Z^T + I)).  log p(y) by integrating mu
    out of the joint exactly (the joint log-density at the conditional mode of mu plus the Gaussian
    integral over mu) against
    scipy's log-density of the printed normal."""
    rows = []
    for m in _lmms():
        X, Z, y = m["X"], m["Z"], m["y"]
        N, q = Z.shape
        for beta, G, s in _points(m):
            P = Z.T @ Z / s ** 2 + np.linalg.inv(s ** 2 * G)  # precision of mu | y
            mode = np.linalg.solve(P, Z.T @ (y - X @ beta) / s ** 2)
            joint = (stats.multivariate_normal(X @ beta + Z @ mode, s ** 2 * np.eye(N)).logpdf(y)
                     + stats.multivariate_normal(np.zeros(q), s ** 2 * G,
                                                 allow_singular=False).logpdf(mode))
            logpy = joint + q / 2 * math.log(2 * math.pi) - 0.5 * np.linalg.slogdet(P)[1]
            ref = float(stats.multivariate_normal(X @ beta, s ** 2 * Dmat(m, G)).logpdf(y))
            sc = (abs(joint) + N + q) * np.linalg.cond(P) * np.linalg.cond(Dmat(m, G))
            rows.append(({"N": N, "q": q, "sigma": s}, float(logpy), ref, sc))
    return instance_check(rows, "=", TOL,
                          describe="log p(y) integrated over mu against the printed normal")


def _eq20():
    """Eq. (20) = -log p(y | beta, G, sigma) up to the constant N/2 log 2 pi (scipy's density)."""
    rows = []
    for m in _lmms():
        N = m["Z"].shape[0]
        for beta, G, s in _points(m):
            a = nll20(m, beta, G, s) + N / 2 * math.log(2 * math.pi)
            b = nll_scipy(m, beta, G, s)
            rows.append(({"N": N, "sigma": s}, a, b, (abs(a) + N) * np.linalg.cond(Dmat(m, G))))
    return instance_check(rows, "=", TOL, describe="(20) + N/2 log 2 pi against -log p(y)")


def _gls(m, G):
    D = Dmat(m, G)
    X, y = m["X"], m["y"]
    Li = np.linalg.inv(D)
    b = np.linalg.solve(X.T @ Li @ X, X.T @ Li @ y)
    return b, D, Li


def _eq21_22(which):
    """Eqs. (21), (22): beta(D) zeroes the gradient of (20) in beta, X^T D^-1 (y - X beta) (convex
    in beta), and
    sigma(D) its derivative in sigma, N/sigma - r^T D^-1 r / sigma^3 (one positive root, the
    minimum)."""
    def fn():
        rows = []
        for m in _lmms():
            X, y = m["X"], m["y"]
            N = len(y)
            for _, G, _ in _points(m):
                b, D, Li = _gls(m, G)
                r = y - X @ b
                if which == "21":
                    g = X.T @ Li @ r
                    sc = n2(X) * n2(Li) * (np.linalg.norm(y) + n2(X)
                                           * np.linalg.norm(b)) * np.linalg.cond(X.T @ Li @ X)
                    rows.append(({"N": N, "p": X.shape[1]}, float(np.abs(g).max()), 0.0, sc))
                else:
                    s = math.sqrt(r @ Li @ r / N)
                    rows.append(({"N": N}, N / s - r @ Li @ r / s ** 3, 0.0,
                                 (N / s) * np.linalg.cond(D)))
        return instance_check(rows, "=", TOL, describe=f"the derivative of (20) at ({which})")
    return fn


def profiled23(m, Lm):
    """Eq. (23): N/2 log(y^T D^-1 y - y^T D^-1 X (X^T D^-1 X)^-1 X^T D^-1 y) + 1/2 log det D, D = Z
    L L^T Z^T + I.
    """
    D = m["Z"] @ Lm @ Lm.T @ m["Z"].T + np.eye(m["Z"].shape[0])
    Li = np.linalg.inv(D)
    return len(m["y"]) / 2 * math.log(_B(m, Li)) + 0.5 * np.linalg.slogdet(D)[1]


def _B(m, Li):
    """B = y^T Lambda y - y^T Lambda X (X^T Lambda X)^-1 X^T Lambda y, computed as r^T Lambda r with
    r the GLS residual of a whitened least-squares solve (the same number without the cancellation
    of the printed difference
    and the squared condition number of the normal equations)."""
    X, y = m["X"], m["y"]
    # Lambda = R^T R: whitened least squares (QR), no normal equations
    R = np.linalg.cholesky(sym(Li)).T
    b = np.linalg.lstsq(R @ X, R @ y, rcond=None)[0]
    r = R @ (y - X @ b)
    return float(r @ r)


def _eq23():
    """Eq. (23): (20) at beta(D), sigma(D) minus (23) is a constant (N/2 - N/2 log N), whatever G =
    L L^T.
    """
    rows = []
    for m in _lmms():
        y = m["y"]
        N = len(y)
        for _, G, _ in _points(m):
            b, D, Li = _gls(m, G)
            r = y - m["X"] @ b
            s = math.sqrt(r @ Li @ r / N)
            Lm = np.linalg.cholesky(G)
            a = nll20(m, b, G, s) - profiled23(m, Lm)
            rows.append(({"N": N}, a, N / 2 - N / 2 * math.log(N),
                         N * np.linalg.cond(D) * np.linalg.cond(m["X"]) ** 2))
    # the row's scale N cond(D) cond(X)^2 (in units of TOL) is a first-order estimate of the
    # rounding of the two log-likelihoods, not a proved bound: a row beyond it is undecided, not a
    # counterexample (estimated=True)
    return instance_check(rows, "=", TOL, estimated=True,
                          describe="(20) profiled minus (23) against N/2 - N/2 log N")


def grad24(m, Lm):
    """Eq. (24) as printed: -2 L_q vec(Z^T Lambda (N/(2B) (y y^T - (C y y^T + y y^T C^T) + C y y^T
    C^T) - D/2)
    Lambda Z L), L_q the elimination matrix (the lower-triangular entries, row by row here)."""
    X, Z, y = m["X"], m["Z"], m["y"]
    N, q = Z.shape
    D = Z @ Lm @ Lm.T @ Z.T + np.eye(N)
    Lam = np.linalg.inv(D)
    C = X @ np.linalg.solve(X.T @ Lam @ X, X.T @ Lam)
    B = _B(m, Lam)
    yy = np.outer(y, y)
    inner = N / (2 * B) * (yy - (C @ yy + yy @ C.T) + C @ yy @ C.T) - 0.5 * D
    full = -2 * Z.T @ Lam @ inner @ Lam @ Z @ Lm
    return full[np.tril_indices(q)]


def _arb_inputs(m, Lm):
    """X, Z, y and L as python-flint ball matrices (the doubles exactly), N and q."""
    from flint import arb_mat

    X, Z, y = m["X"], m["Z"], m["y"]
    N, q = Z.shape
    return (arb_mat([[float(v) for v in row] for row in X]),
            arb_mat([[float(v) for v in row] for row in Z]),
            arb_mat([[float(v)] for v in y]), arb_mat([[float(v) for v in row] for row in Lm]),
            N, q)


def _arb_common(m, Lm):
    """D = Z L L^T Z^T + I, Lambda = D^-1, the GLS residual r = y - X b (b = (X^T Lambda X)^-1
    X^T Lambda y) and B = r^T Lambda r, in ball arithmetic at the current precision."""
    from flint import arb_mat

    X, Z, y, L, N, q = _arb_inputs(m, Lm)
    eye = arb_mat([[1 if i == j else 0 for j in range(N)] for i in range(N)])
    D = Z * L * L.transpose() * Z.transpose() + eye
    Lam = D.inv()
    A = X.transpose() * Lam * X
    b = A.solve(X.transpose() * Lam * y)
    r = y - X * b
    B = (r.transpose() * Lam * r)[0, 0]
    return X, Z, y, L, N, q, D, Lam, A, r, B


def grad24_arb(m, Lm, common=None):
    """Eq. (24) as printed (:func:`grad24`), every operation in ball arithmetic at the current
    precision: -2 L_q vec(Z^T Lambda (N/(2B) (y y^T - (C y y^T + y y^T C^T) + C y y^T C^T) - D/2)
    Lambda Z L), C = X (X^T Lambda X)^-1 X^T Lambda; the lower-triangular entries row by row."""
    X, Z, y, L, N, q, D, Lam, A, r, B = common or _arb_common(m, Lm)
    C = X * A.solve(X.transpose() * Lam)
    yy = y * y.transpose()
    inner = (yy - (C * yy + yy * C.transpose()) + C * yy * C.transpose()) * (N / (2 * B)) \
        - D * 0.5
    full = Z.transpose() * Lam * inner * Lam * Z * L * (-2)
    return [full[i, j] for i in range(q) for j in range(i + 1)]


def grad23_arb(m, Lm, common=None):
    """The derivative of (23), f(L) = N/2 log B + 1/2 log det D, in each lower-triangular entry
    L_ij, derived independently of (24) and evaluated in ball arithmetic.  With dD = Z (E_ij L^T +
    L E_ji) Z^T: Jacobi's formula gives d log det D = tr(Lambda dD) = 2 (W L)_ij, W = Z^T Lambda Z;
    B is the minimum over b of (y - X b)^T Lambda (y - X b), so (envelope theorem) dB = r^T dLambda
    r = -r^T Lambda dD Lambda r = -2 v_i (L^T v)_j with v = Z^T Lambda r.  Hence
    df/dL_ij = -(N/B) v_i (L^T v)_j + (W L)_ij."""
    X, Z, y, L, N, q, D, Lam, A, r, B = common or _arb_common(m, Lm)
    v = Z.transpose() * Lam * r
    Ltv = L.transpose() * v
    WL = Z.transpose() * Lam * Z * L
    return [-(N / B) * v[i, 0] * Ltv[j, 0] + WL[i, j] for i in range(q) for j in range(i + 1)]


def _eq24():
    """Eq. (24) against the exact derivative of (23) (:func:`grad23_arb`: Jacobi's formula and the
    envelope theorem), both computed in ball arithmetic (python-flint) from the instance's doubles:
    the enclosures of the two sides are rigorous, so a wrong formula shows as disjoint enclosures
    and a right one as overlapping ones -- an '=' between transcendental expressions is then not
    refuted, never proved by numbers.  At 128 bits the balls are some 1e-25 wide even for an
    ill-conditioned D, far below any error of a formula, so no row is recomputed at a higher
    precision (that could only narrow an '=' that stays undecided)."""
    from bounds.enclosure import Enclosure, precision

    rows = []
    for m in _lmms():
        q = m["Z"].shape[1]
        Lm = np.linalg.cholesky(m["G"])
        with precision(128):
            common = _arb_common(m, Lm)
            g24 = [Enclosure.from_arb(a, 128) for a in grad24_arb(m, Lm, common)]
            g23 = [Enclosure.from_arb(a, 128) for a in grad23_arb(m, Lm, common)]
        for e in range(len(g24)):
            rows.append(({"entry of vech(L)": e, "N": m["Z"].shape[0], "q": q}, g24[e], g23[e]))
    return instance_check(rows, "=", TOL,
                          describe="(24) against the exact derivative of (23), in ball arithmetic")


def _woodbury():
    """§3.3.2.1: Lambda = I_N - Z (G^-1 + Z^T Z)^-1 Z^T (Woodbury) against the inverse of Z G Z^T +
    I_N.
    """
    rows = []
    for m in _lmms():
        Z = m["Z"]
        for _, G, _ in _points(m):
            W = np.eye(Z.shape[0]) - Z @ np.linalg.solve(np.linalg.inv(G) + Z.T @ Z, Z.T)
            Li = np.linalg.inv(Dmat(m, G))
            sc = ((1 + n2(Z) ** 2 * n2(np.linalg.inv(np.linalg.inv(G) + Z.T @ Z)))
                  * np.linalg.cond(G) * np.linalg.cond(Dmat(m, G)))
            rows.append(({"N": Z.shape[0], "q": Z.shape[1]}, float(np.abs(W - Li).max()), 0.0, sc))
    return instance_check(rows, "=", TOL, describe="Woodbury's Lambda against inv(Z G Z^T + I)")


def _posterior_mu():
    """§3.3.2.2 'It is shown in [2] that': mu | y ~ N(a, sigma^2 (Z^T Z + G^-1)^-1), a = (Z^T Z +
    G^-1)^-1 Z^T (y - X beta), against Gaussian conditioning of the joint law of (mu, y): mean
    sigma^2 G Z^T Sigma_y^-1
    (y - X beta), covariance sigma^2 G - sigma^2 G Z^T Sigma_y^-1 Z G sigma^2, Sigma_y = sigma^2 (Z
    G Z^T + I)."""
    rows = []
    for m in _lmms():
        X, Z, y = m["X"], m["Z"], m["y"]
        for beta, G, s in _points(m):
            a, V = estep(m, beta, G, s)
            Sy = s ** 2 * Dmat(m, G)
            Cmy = s ** 2 * G @ Z.T
            mean = Cmy @ np.linalg.solve(Sy, y - X @ beta)
            cov = s ** 2 * G - Cmy @ np.linalg.solve(Sy, Cmy.T)
            sc = (n2(s ** 2 * G) + np.linalg.norm(mean)
                  + 1e-300) * np.linalg.cond(Sy) * np.linalg.cond(G)
            rows.append(({"N": Z.shape[0], "q": Z.shape[1], "what": "mean"},
                         float(np.abs(a - mean).max()), 0.0, sc))
            rows.append(({"N": Z.shape[0], "q": Z.shape[1], "what": "covariance"},
                         float(np.abs(V - cov).max()), 0.0,
                         sc))
    return instance_check(rows, "=", TOL,
                          describe="the quoted posterior of mu against Gaussian conditioning")


# ----------------------------------------------------------------------------- Eqs. (26)-(29): H06
def _eq26():
    """(26) as rendered against E[-log P(y, mu | beta, G, sigma)], mu ~ N(a, V) from the E-step at
    START, both without the constant (N + q)/2 log 2 pi: at the hunt's test point and at two more
    points (the differences
    printed - exact are not constant, so no additive constant reconciles them)."""
    m = hunt_lmm()
    a, V = estep(m, *START)
    rows = []
    pts = [TEST_POINT, (TEST_POINT[0], TEST_POINT[1], 2.0),
           (np.array([1.0, -0.5]), np.diag([2.0, 1.0, 0.5]), 0.5)]
    for beta, G, s in pts:
        pr, ex = printed26(m, beta, G, s, a, V), expected_nll(m, beta, G, s, a, V)
        rows.append(({"instance": "hunt H06 (N = 30, p = 2, q = 3)", "beta": beta.tolist(),
                      "G": np.diag(G).tolist(),
                      "sigma": s, "printed - exact": pr - ex}, pr, ex))
    return first_failing(
        rows, "=", 1e-9,
        describe="(26) as rendered against the expected complete-data -log-likelihood",
        why=("the trace term stands outside 1/(2 sigma^2): printed - exact varies with the point "
             f"({', '.join(format(r[0]['printed - exact'], '.4f') for r in rows)}), so (26) is not "
             f"the expectation "
             "even up to a constant: "),
        correction=(
            "(26) = (N+q) log sigma + 1/2 log det G + (1/(2 sigma^2)) [||y - X beta||^2 - 2 (y - X "
            "beta)^T Z a + Tr((V + a a^T)(Z^T Z + G^-1))], V = sigma^2(i-1) (Z^T Z + "
            "G^-1(i-1))^-1"))


def _eq26_corrected():
    """The correction (trace inside 1/(2 sigma^2)) against the expectation from the moments of mu,
    at the models
    the search chooses, E-step at the model's own parameters, evaluated at the shifted points of
    :func:`_points`."""
    rows = []
    for m in _lmms():
        a, V = estep(m, m["beta"], m["G"], m["sigma"])
        for beta, G, s in _points(m):
            c, e = corrected26(m, beta, G, s, a, V), expected_nll(m, beta, G, s, a, V)
            lin, tr = _parts(m, beta, G, a, V)
            sc = (abs(lin) + abs(tr)
                  + np.linalg.norm(m["y"]) ** 2) / s ** 2 * np.linalg.cond(G) * np.linalg.cond(V)
            rows.append(({"N": m["Z"].shape[0], "sigma": s}, c, e, sc))
    return instance_check(rows, "=", TOL,
                          describe="corrected (26) against the expected -log-likelihood")


def _grad_Q_in_G(a, V, G, sigma):
    """d/dG of the expected -log-likelihood (trace inside): G^-1/2 - G^-1 (V + a a^T) G^-1 / (2
    sigma^2).
    """
    Gi = np.linalg.inv(G)
    return 0.5 * Gi - Gi @ (V + np.outer(a, a)) @ Gi / (2 * sigma ** 2)


def _eq28():
    """(28) G^(i) = (V + a a^T)/sigma^2(i-1) is the minimiser of the expected -log-likelihood in G
    at sigma = sigma^(i-1): its gradient vanishes there (the objective is convex in G^-1), models
    the search chooses, the
    E-step at the model's parameters.  (It minimises (26) as rendered only with the trace inside
    1/(2 sigma^2).)"""
    rows = []
    for m in _lmms():
        for f in free("sigma factor", [1.0, 3.0], Real(1e-2, 1e2, log=True)):
            s = m["sigma"] * f
            a, V = estep(m, m["beta"], m["G"], s)
            Gn = G28(a, V, s)
            g = _grad_Q_in_G(a, V, Gn, s)
            Gi = np.linalg.inv(Gn)
            rows.append(({"N": m["Z"].shape[0], "q": m["Z"].shape[1], "sigma": s},
                         float(np.abs(g).max()), 0.0,
                         n2(Gi) * np.linalg.cond(Gn) ** 2))
    return instance_check(rows, "=", TOL,
                          describe="gradient in G of the expected -log-likelihood at (28)")


def _sigma_argmin(m, beta, G, a, V):
    """argmin over sigma of the expected -log-likelihood, numerically (bounded Brent search on log
    sigma).
    """
    res = optimize.minimize_scalar(lambda ls: expected_nll(m, beta, G, math.exp(ls), a, V),
                                   bounds=(-12.0, 12.0),
                                   method="bounded", options={"xatol": 1e-12})
    return math.exp(res.x)


def _eq29():
    """One M-step on the hunt's instance (E-step at START, (27) corrected, (28) as printed):
    sigma^(i) of (29) as
    rendered against the sigma that minimises the expected -log-likelihood (Brent search)."""
    m = hunt_lmm()
    a, V = estep(m, *START)
    b = beta27(m, a)
    Gn = G28(a, V, START[2])
    s_pr = sigma29(m, b, Gn, a, V, printed=True)
    s_opt = _sigma_argmin(m, b, Gn, a, V)
    rows = [({"instance": "hunt H06 (N = 30, p = 2, q = 3)",
              "corrected (29)": sigma29(m, b, Gn, a, V, printed=False)},
             s_pr, s_opt)]
    return first_failing(
        rows, "=", 1e-6,
        describe="sigma^(i) of (29) as rendered against argmin_sigma of the expected "
                 "-log-likelihood")


def _eq29_corrected():
    """The corrected (29) zeroes the derivative in sigma of the expected -log-likelihood at
    (beta^(i), G^(i)):
    (N + q)/sigma - A/sigma^3, A > 0 (one positive root, the minimum); models the search chooses."""
    rows = []
    for m in _lmms():
        N, q = m["Z"].shape
        for f in free("sigma factor", [1.0, 3.0], Real(1e-2, 1e2, log=True)):
            a, V = estep(m, m["beta"], m["G"], m["sigma"] * f)
            b = beta27(m, a)
            Gn = G28(a, V, m["sigma"] * f)
            s = sigma29(m, b, Gn, a, V, printed=False)
            lin, tr = _parts(m, b, Gn, a, V)
            A = lin + tr
            sc = ((N + q) / s + (abs(lin) + abs(tr)) / s ** 3) * np.linalg.cond(Gn)
            rows.append(({"N": N, "q": q}, (N + q) / s - A / s ** 3, 0.0, sc))
    return instance_check(rows, "=", TOL,
                          describe="d/dsigma of the expected -log-likelihood at (29) corrected")


def _em_printed():
    """EM with (29) as rendered ((27) corrected, (28) as printed) on the hunt's instance from START:
    the
    -log-likelihood (20) must not increase from one iteration to the next (EM's monotonicity)."""
    m = hunt_lmm()
    b, G, s, hist = em(m, *START, iters=200, printed=True)
    rows = [({"instance": "hunt H06", "iteration": i + 2, "sigma at the end": s,
              "iterations run": len(hist)},
             hist[i + 1], hist[i]) for i in range(len(hist) - 1)]
    return first_failing(
        rows, "<=", 1e-9, describe="-log-likelihood after an iteration against the one before",
        why=(f"EM with (29) as rendered diverges: -log-likelihood {hist[0]:.4f} after iteration 1, "
             f"{hist[-1]:.4f} after {len(hist)}, sigma = {s:.6g}: "),
        correction="the corrected (29) (trace inside 1/(N + q)): the ECM updates then decrease "
                   "(20) monotonically")


def _em_corrected():
    """EM with the corrected (27) and (29): the -log-likelihood (20) (scipy's density) never
    increases over 25
    iterations from the model's parameters perturbed, models the search chooses."""
    rows = []
    for m in _lmms():
        N = m["Z"].shape[0]
        b0, G0, s0 = m["beta"] + 0.3, np.eye(m["Z"].shape[1]), m["sigma"] * 2
        _, _, _, hist = em(m, b0, G0, s0, iters=25, printed=False)
        for i in range(len(hist) - 1):
            rows.append(({"N": N, "iteration": i + 2}, hist[i + 1], hist[i],
                         (abs(hist[i]) + N) * 1e3))
    return instance_check(rows, "<=", TOL,
                          describe="-log-likelihood along EM with the corrected updates")


# ----------------------------------------------------------------------------- operation counts
def ops_gradient(N, p, q):
    """Multiplications of Eq. (24)'s gradient in the order §3.3.2.1 prescribes: Lambda by Woodbury,
    Lambda Z first (every N x N matrix product avoided except those with Lambda): G^-1, Z^T Z, the q
    x q inverse, Z M Z^T, Lambda Z, X^T Lambda, X^T Lambda X and its inverse, C = X (.) X^T Lambda,
    C y, B, Z^T Lambda y and Z^T Lambda C y
    (the rank-one parts), Z^T Lambda Z (for Z^T Lambda D Lambda Z), times L."""
    return (2 * q ** 3 + q * q * N + N * q * q + N * N * q + N * N * q + p * N * N + p * p * N
            + p ** 3
            + N * p * p + N * N * p + N * N + 3 * N * N + 2 * q * N + q * q * N + q ** 3)


def ops_em(N, p, q, cached=True):
    """Multiplications of one EM iteration (27)-(29) (E-step included): Z^T Z and X^T X once
    (``cached``) or every iteration; G^-1 and (Z^T Z + G^-1)^-1 (q^3 each, dense: G^(i) = (V + a
    a^T)/sigma^2 is dense), Z^T (y - X beta),
    a, (X^T X)^-1 X^T (y - Z a), (28), the residual and the trace of (29)."""
    const = 0 if cached else q * q * N + p * p * N
    return (const + 2 * q ** 3 + p ** 3 + (p + q) * N + q * q + q * N + p * N + q * q + (p + q)
            * N + N + q ** 3)


def _cost_gradient():
    """'The asymptotic complexity of the computation of the gradient is O(max{q N^2, p N^2})': the
    count of
    :func:`ops_gradient` is at most 20 max(q, p) N^2 (20 >= the sum of its coefficients) for N in
    2..1e7, p, q in
    1..N (free)."""
    return _count_below(ops_gradient, lambda N, p, q: 20.0 * max(p, q) * N * N, [0.03, 1.0],
                        "operation count against 20 max(q, p) N^2")


def _count_below(count, bound, q_fixed, describe):
    """count(N, p, q) <= bound(N, p, q) for N in 2..1e7, p = f_p N and q = f_q N (at least 1) with
    f_p, f_q in [1e-7, 1] (all free, log scale); ``q_fixed``: the fixed values of q/N."""
    rows = []
    for N in free("N", [100, 10 ** 4], Int(2, 10 ** 7, log=True)):
        for fp in free("p/N", [0.01, 1.0], Real(1e-7, 1.0, log=True)):
            for fq in free("q/N", q_fixed, Real(1e-7, 1.0, log=True)):
                p, q = max(1, int(fp * N)), max(1, int(fq * N))
                rows.append(({"N": N, "p": p, "q": q}, float(count(N, p, q)), bound(N, p, q)))
    return instance_check(rows, "<=", 1e-12, describe=describe)


def _cost_em(fixed_pq):
    return lambda: _cost_em_check(fixed_pq)


def _cost_em_check(fixed_pq):
    """'The asymptotic complexity of one iteration of the EM algorithm is O(max{qN, pN})', two
    readings. ``fixed_pq``: p and q fixed, N -> infinity: count/(max(q, p) N) must not grow from N
    to 2N (N in 10..1e9, p, q in 1..50).  Otherwise q grows with N (small clusters, §3.3.1: 'When
    the number of observations for each cluster/subject is small ... the mixed model approach is
    still applicable'), q = N/2: the count against
    12 max(q, p) N (12 >= the sum of the count's coefficients of qN and pN)."""
    rows = []
    if fixed_pq:
        for N in free("N", [100, 10 ** 5], Int(10, 10 ** 9, log=True)):
            for p in free("p", [2], Int(1, 50)):
                for q in free("q", [3], Int(1, 50)):
                    r1 = ops_em(N, p, q) / (max(p, q) * N)
                    r2 = ops_em(2 * N, p, q) / (max(p, q) * 2 * N)
                    rows.append(({"N": N, "p": p, "q": q}, r2, r1))
        return instance_check(rows, "<=", 1e-12,
                              describe="count/(max(q, p) N) at 2N against N (p, q fixed)")
    for N in (100, 1000, 10 ** 4):
        q, p = N // 2, 2
        rows.append(({"N": N, "p": p, "q": q, "clusters": "2 observations each"},
                     float(ops_em(N, p, q)),
                     12.0 * max(p, q) * N))
    return first_failing(
        rows, "<=", 1e-12, describe="operation count of one EM iteration against 12 max(q, p) N",
        why=("the q x q inverses (Z^T Z + G^-1)^-1 and G^-1 cost ~q^3 (G^(i) of (28) is dense), "
             "which exceeds q N once q > sqrt(N): "),
        correction="O(max{qN, pN} + q^3 + p^3) per iteration (Z^T Z, X^T X computed once)")


def _cost_em_corrected():
    """The correction: count <= 12 (max(q, p) N + q^3 + p^3), N in 2..1e7, p, q in 1..N."""
    return _count_below(ops_em, lambda N, p, q: 12.0 * (max(p, q) * N + q ** 3 + p ** 3),
                        [0.5, 1.0], "operation count against 12 (max(q, p) N + q^3 + p^3)")


def _em_cheaper():
    """'For large N, the EM algorithm can be much more efficient than first order and quasi-Newton
    methods per iteration': one EM iteration against one gradient (24): the ratio of the counts
    falls like 1/N (p, q fixed), N x ratio(N) <= 2 once N >= max(p, q)^3 (the cubic terms then count
    less than the N^2 ones); p, q in 1..50,
    N = f max(p, q)^3, f in [1, 1e6]."""
    rows = []
    for f in free("N/max(p,q)^3", [1.0, 100.0], Real(1.0, 1e6, log=True)):
        for p in free("p", [2], Int(1, 50)):
            for q in free("q", [3], Int(1, 50)):
                N = int(math.ceil(f * max(p, q) ** 3))
                r = ops_em(N, p, q) / ops_gradient(N, p, q)
                rows.append(({"N": N, "p": p, "q": q, "EM/gradient": r}, N * r, 2.0))
    return instance_check(rows, "<=", 1e-12, describe="N x (EM count / gradient count)")


def _cholesky_pd():
    """§3.3.2.1 'Parametrizing (23) with respect to the Cholesky decomposition L ensures that G
    remains positive definite': G = L L^T is only positive semi-definite; it is singular when a
    diagonal entry of L is 0, a point the unconstrained minimisation of (23) over L can reach
    (variance components estimated at 0 are common: the
    boundary).  L = [[1, 0], [1, 0]]: the smallest eigenvalue of G."""
    Lm = np.array([[1.0, 0.0], [1.0, 0.0]])
    G = Lm @ Lm.T
    # exactly, in integers: G = [[1, 1], [1, 1]] has det 0 and trace 2, so its eigenvalues, the
    # roots of x^2 - 2x, are 0 and 2: the smallest is the exact 0
    Gi = [[sum(int(Lm[i, k]) * int(Lm[j, k]) for k in range(2)) for j in range(2)]
          for i in range(2)]
    det, tr = Gi[0][0] * Gi[1][1] - Gi[0][1] * Gi[1][0], Gi[0][0] + Gi[1][1]
    assert det == 0 and tr > 0
    rows = [({"L": Lm.tolist(), "G": G.tolist()}, 0, 0)]
    return first_failing(
        rows, ">", 1e-12, describe="smallest eigenvalue of G = L L^T")


def _cholesky_corrected():
    """The correction: the smallest eigenvalue of L L^T is > 0 when min |L_ii| > 0 (det = prod
    L_ii^2), and
    >= 0 always; L lower-triangular with diagonal entries of size t in [1e-8, 1] and random
    off-diagonals."""
    rows = []
    g = np.random.default_rng(11)
    from flint import fmpq, fmpq_mat

    for t in free("t", [1e-3, 0.5], Real(1e-8, 1.0, log=True)):
        for d in (2, 3, 5):
            Lm = np.tril(g.standard_normal((d, d)), -1) + t * np.eye(d)
            # exactly, in rationals (the doubles of L read exactly): det(L L^T) by fmpq_mat against
            # the product of the squared diagonal -- a float determinant of an ill-conditioned
            # G = L L^T (t = 1e-8: det 1e-80) is mostly rounding
            Lq = fmpq_mat(d, d, [fmpq(*Fraction(float(v)).as_integer_ratio())
                                 for v in Lm.ravel()])
            det = (Lq * Lq.transpose()).det()
            prod = fmpq(1)
            for i in range(d):
                prod *= Lq[i, i] ** 2
            rows.append(({"t": t, "d": d}, det, prod))
    return instance_check(rows, "=", 1e-6, describe="det(L L^T) against prod L_ii^2 (> 0)")


# ----------------------------------------------------------------------------- the steps
step("lmm.19", check=_eq19)
step("lmm.20", check=_eq20)
step("lmm.21", check=_eq21_22("21"))
step("lmm.22", check=_eq21_22("22"))
step("lmm.23", check=_eq23)
step("lmm.24", check=_eq24)
step("lmm.woodbury", check=_woodbury)
step("lmm.cost.grad", check=_cost_gradient)
step("lmm.chol", check=_cholesky_pd, corrected=_cholesky_corrected)
step("lmm.posterior", check=_posterior_mu)
step("lmm.26", check=_eq26, corrected=_eq26_corrected)
step("lmm.28", check=_eq28)
step("lmm.29", check=_eq29, corrected=_eq29_corrected)
step("lmm.em", check=_em_printed, corrected=_em_corrected)
step("lmm.cost.em", check=_cost_em(True))
step("lmm.cost.em.q", check=_cost_em(False), corrected=_cost_em_corrected)
step("lmm.em.cheaper", check=_em_cheaper)
