"""Verifications of the six claims of 002 (stochastic-gradient MCMC, quadratic log densities).

Source: A. El hanchi, "Stochastic gradient MCMC algorithms and their applications",
report (supervised by D. A. Stephens), 2018 (seed 002_95351a0522374075): §2.3.1 Eqs. (7)-(16),
§2.3.2 Eq. (17) and the Appendix ("Discretization error", "Derivation of the exact process",
"Maximizing the rate of convergence", "Minimizing auto-covariance").  The claims are
encoded in :mod:`bounds.sgmcmc` as scalar ratios to ``H^-1`` (with ``D = (k/2) H^-1``
every matrix of the appendix is a multiple of ``H^-1``).  Nothing here uses those sympy
formulas except as the *bound* side: the empirical side is computed from the matrices.

Empirical sides
---------------
All exact checks use random SPD matrices ``H = Q diag(l) Q^T`` (``Q`` Haar orthogonal,
``log l`` uniform, condition number ``cond`` attained) of dimensions 1-6, drawn from
``simulate.rng.unit_generator(seed, ...)``.  A matrix statement "``X = c H^-1``" is
checked through ``M = L^T X L`` (``H = L L^T``), whose eigenvalues are those of ``X H``:
the empirical value is the eigenvalue of ``sym(M)`` farthest from ``c``, pushed a further
``||skew(M)||_2`` away from ``c``, so that ``|empirical - c|`` bounds ``||M - c I||_2``
from above and equals 0 only if ``X = c H^-1`` up to rounding.


* ``sgfs_stationary_covariance`` (Appendix, Discretization error, Eq. 32): the stationary
  covariance ``Lambda`` of ``theta' = (I - eps D H) theta + N(0, 2 eps D)`` from a
  Lyapunov solve (``scipy.linalg.solve_discrete_lyapunov``) vs ``1/(1 - k eps/4)``
  (forms stated / explicit / series).  ``stationarity_k_max``: the supremum of the k for
  which ``rho(I - eps D H) < 1``, found by Brent's method (``scipy.optimize.brentq``) on the
  spectral radius of the literal matrix, vs the printed "k in (0, 1)" (stated, at eps = 1) and
  ``4/eps`` (explicit).  The printed range is wrong: k = 2 gives ``I - DH = 0`` (i.i.d. draws)
  and k = 3 a spectral radius 1/2; both are stationary (note of the check).
* ``sgfs_exact_noise`` (Appendix, Derivation of the exact process): with
  ``Q = 2D - DHD``, the Lyapunov solution of ``Lambda = A Lambda A^T + Q``,
  ``A = I - DH``, is ``H^-1`` -- for ``D = (k/2) H^-1`` *and* for random SPD ``D`` with
  ``rho(I - DH) < 1``.  ``noise_ratio``: the noise that makes ``H^-1`` stationary,
  ``H^-1 - A H^-1 A^T`` computed from the matrices, vs ``k - k^2/4``.
* ``sgfs_admissible_k`` (§2.3.1 Eqs. 11-16): ``H = N C + G`` with random SPD ``C`` and
  a prior ``G`` that is zero (weak prior), isotropic (with ``C`` isotropic), weak random
  (``0.01 N C`` scale) or strong random (``10 N C`` scale).  The empirical value is
  ``k*``, the largest k for which the literal noise
  ``2D - (N^2/|S|) D C D - D H D`` (``D = (k/2) H^-1``) is PSD, by Brent's method on its
  smallest eigenvalue.  Eqs. (13), (15) (``r`` computed from the matrices as defined
  below Eq. 15) and (16) claim that their k is admissible, i.e. ``k* >= k_formula``:
  relation ``>=``, so ``--bound-scale C < 1`` (bound divided by C) asks whether
  ``k_formula / C`` is still admissible and a too-large formula is reported violated.
  Eq. (13) is tight for ``G = 0`` and Eq. (15) for isotropic ``C`` and ``G``, so the
  check has power.  Also primary: the smallest eigenvalue of the noise at each
  formula's k is ``>= 0``.  Non-primary: the remark after Eq. (15) "For strong priors,
  r > 1" (form ``remark``, relation ``>``) -- counterexamples ``N C = diag(1, 100)`` with ``G = I``
  (``r = 0.040``) and with ``G = N C`` (``r = 0.020``) -- and the necessity of Eq. (13) for ``G =
  0`` (§2.3.1.1).
* ``sgfs_variance_trajectory`` (Appendix, Maximizing the rate of convergence): the exact
  recursion ``V_t = A V_{t-1} A^T + Q`` from ``V_0 = 0`` (``theta_0 = theta_MAP``),
  ``Q = 2D - DHD``, vs the printed closed form ``1 - (1 - k/2)^t`` (primary; e.g. k = 1,
  t = 1: 0.75 vs 0.5), the printed sum (to ``i = t``, also wrong) and the corrected
  ``1 - (1 - k/2)^(2t)`` (non-primary).
* ``sgfs_autocovariance`` (Appendix, Minimizing auto-covariance): exact
  ``Cov[theta_t, theta_{t-1}] = A Lambda`` at stationarity (Lyapunov ``Lambda``) vs
  ``(1 - k/2) H^-1``, and a Monte Carlo estimate of ``E[theta_t^T H theta_{t-1}] / d``
  from ``R`` independent chains of the exact process started at ``theta_MAP`` and
  burnt in until the transient is below 1e-10 (standard error from the sample).
* ``sgfs_convergence_criterion`` (§2.3.2 Eq. 17): the scalar process
  ``theta' = theta + D Y + N(0, 2D - D^2 N^2 C/|S| - D^2 h)``, ``Y = -h theta + xi``,
  ``xi ~ N(0, N^2 C/|S|)``, ``h = N C + G``, ``D = k/(2h)``, simulated with ``R``
  independent chains burnt in from ``theta_MAP``; one window of ``n`` successive
  gradients per chain.  Empirical: ``b`` times the root mean square of the window means
  ``(1/n) sum Y_i`` (their mean is 0 by symmetry), standard error by the delta method,
  vs ``b`` times the printed sd (stated; it omits the factor C on ``N^2/(n|S|)`` and
  treats the iterates as independent) and the corrected sd.  Non-primary: the
  fraction of windows passing (17) vs the ``2 Phi(b) - 1`` a correct sd would give.

Primary forms
-------------
Every claim's primary form is ``stated`` (what 002 prints); ``explicit`` / ``series`` /
``corrected`` and the remark checks are reported with ``primary=False``.  Hence
``sgfs_stationary_covariance`` is *violated* although its covariance formula holds: the
printed stationarity range is part of the statement (the explicit forms hold).  The
``stationarity_k_max`` stated check exists only at ``eps = 1``, where 002 states it.

Tolerances
----------
Exact checks are compared with first-order float64 rounding bounds of the computation
actually performed (never a guessed epsilon), with ``gamma_d = 8 d u`` (``u`` the unit
roundoff) as the constant of d x d products, Cholesky / inverse and symmetric
eigensolvers.  Errors are tracked in units of ``H^-1`` (:class:`Frame`): the error of
``fl(H^-1)`` a posteriori from ``||L^T fl(H^-1) L - I||``, a Lyapunov solution a
posteriori from its residual and ``1 - ||L^T A L^-T||^2`` (:func:`_lyapunov`), the
recursion of ``sgfs_variance_trajectory`` step by step.  With ``cond(H) <= 100`` (quick
grids) the tolerances are below 1e-9 relative; real discrepancies are ~1e-15.
Monte Carlo verdicts use the core's Bonferroni-corrected z (``ALPHA = 1e-3`` per claim).

Grid keys a command line may override (``Verification.overrides``): ``dim``, ``k``,
``eps``, ``t``, ``cond`` (exact claims), ``N``, ``batch``, ``priors``, ``c`` (admissible
k), ``mc_k``, ``R`` (Monte Carlo) and ``N``, ``batch``, ``fisher``, ``prior``, ``k``,
``n_avg``, ``b`` (convergence criterion); all are lists except ``cond``, ``c`` and
``R``.  Here ``k`` is 002's real step fraction and ``N`` its number of data points.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from mcsa_cli.lazy import lazy_module
from simulate.rng import unit_generator
from verify.model import CheckResult, Grid, Reading, Verification
from verify.registry import bound_value, register

linalg = lazy_module("scipy.linalg")
optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")

U = float(np.finfo(float).eps) / 2  # unit roundoff


def _gamma(d: int) -> float:
    """First-order rounding constant of d x d products, inverses and eigensolvers."""
    return 8.0 * d * U


def _n2(X) -> float:
    return float(np.linalg.norm(np.atleast_2d(X), 2))


def _sym(X):
    return (X + X.T) / 2


def _progress(progress, msg):
    if progress is not None:
        progress(msg)


# ----------------------------------------------------------------------------- instances
def random_spd(rng: np.random.Generator, d: int, cond: float, scale: float = 1.0) -> np.ndarray:
    """Q diag(l) Q^T, Q Haar orthogonal, log l uniform on [log scale, log scale*cond] (ends
    attained).
    """
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    Q = Q * np.sign(np.diag(R))
    ev = scale * cond ** rng.uniform(0.0, 1.0, d)
    if d > 1:
        ev[0], ev[-1] = scale, scale * cond
    return _sym((Q * ev) @ Q.T)


def _target(seed, unit, stream: str, d: int, cond: float):
    """The target of a check: H = :func:`random_spd` (d, cond) from the unit's generator, its
    :class:`Frame` and the frame's condition number."""
    H = random_spd(unit_generator(seed, unit, stream), d, cond)
    F = Frame(H)
    return H, F, F.kappa


def _kappa(H) -> float:
    ev = np.linalg.eigvalsh(H)
    return float(ev[-1] / ev[0])


class Frame:
    """Units of H^-1.  A symmetric X is mapped to ``W(X) = L^T X L`` (``H = L L^T``), so
    ``W(c H^-1) = c I``; an operator A acting as ``X -> A X A^T`` is mapped to
    ``sim(A) = L^T A L^-T`` (then ``W(A X A^T) = sim(A) W(X) sim(A)^T``).

    Error bookkeeping is done in these units.  A natural-coordinate error E maps to at
    most ``||H|| ||E||`` in ``W`` and ``kappa^(1/2) ||E||`` in ``sim``; rounding of a
    product ``fl(X Y)`` is at most ``gamma_d ||X|| ||Y||`` (normwise, first order).
    """

    def __init__(self, H: np.ndarray):
        self.H = H
        self.d = H.shape[0]
        self.L = np.linalg.cholesky(H)
        ev = np.linalg.eigvalsh(H)
        self.kappa = float(ev[-1] / ev[0])
        self.nH = float(ev[-1])
        self.g = _gamma(self.d)

    def w(self, X):
        return self.L.T @ X @ self.L

    def sim(self, A):
        return self.L.T @ linalg.solve_triangular(self.L, A.T, lower=True).T


def _inverse(F: Frame):
    """fl(H^-1) and an a-posteriori bound on ||W(fl(H^-1) - H^-1)|| = ||W(fl(H^-1)) - I||.

    The computed ``Z = W(X) - I`` differs from the exact one by the Cholesky backward
    error (a relative perturbation <= gamma kappa of W(X)) and the rounding of the two
    products (<= gamma ||H|| ||X|| <= gamma kappa ||W(X)||): hence ||Z|| + 3 gamma kappa (1 +
    ||Z||).
    """
    X = _sym(np.linalg.inv(F.H))
    z = _n2(F.w(X) - np.eye(F.d))
    return X, z + 3 * F.g * F.kappa * (1 + z)


def _precond_process(F: Frame, k: float, eps: float = 1.0, exact_noise: bool = True):
    """theta' = A theta + N(0, Q) with D = (k/2) fl(H^-1), A = I - eps D H and
    Q = 2D - DHD (exact process, eps = 1) or Q = 2 eps D (Eq. 7 without gradient noise).

    Returns (D, A, Q, a_w, q_w): a_w bounds ||sim(A) - sim(A_exact)||, q_w bounds
    ||W(Q) - W(Q_exact)|| where the exact quantities use D = (k/2) H^-1 exactly.
    W(dD) <= (k/2) e_inv; sim(dD H) = W(dD); W(dD H D) = W(dD) W(D) with W(D) = k/2 I.
    """
    Hinv, e_inv = _inverse(F)
    D = (k / 2) * Hinv
    eD = (k / 2) * e_inv
    I = np.eye(F.d)  # noqa: E741 -- I is the document's notation
    A = I - eps * D @ F.H
    nD = _n2(D)
    a_w = eps * eD + math.sqrt(F.kappa) * F.g * (1 + eps * nD * F.nH)
    if exact_noise:
        Q = _sym(2 * D - D @ F.H @ D)
        q_w = 2 * eD + k * eD + F.nH * F.g * (2 * nD + 2 * nD ** 2 * F.nH)
    else:
        Q = 2 * eps * D
        q_w = 2 * eps * eD + F.nH * F.g * 2 * eps * nD
    return D, A, Q, a_w, q_w


def _given_D_process(F: Frame, D: np.ndarray):
    """A = I - DH, Q = 2D - DHD for a D given exactly (only the products are rounded)."""
    nD = _n2(D)
    A = np.eye(F.d) - D @ F.H
    Q = _sym(2 * D - D @ F.H @ D)
    a_w = math.sqrt(F.kappa) * F.g * (1 + nD * F.nH)
    q_w = F.nH * F.g * (2 * nD + 2 * nD ** 2 * F.nH)
    return A, Q, a_w, q_w


def _lyapunov(F: Frame, A: np.ndarray, Q: np.ndarray, a_w: float = 0.0, q_w: float = 0.0):
    """Solve X = A X A^T + Q; return (X, bound on ||W(X - X_exact)||).

    X_exact solves the equation with the exact A, Q (within a_w, q_w of the stored ones
    in the frame's units).  With rho = ||sim(A)|| < 1 (sim(A) is symmetric for the D of
    these claims, so rho is its spectral radius) and the residual R = X - A X A^T - Q,
    W(X - X_exact) = sim(A*) W(X - X_exact) sim(A*)^T + W(R) + (input perturbations), so
    ||W(X - X_exact)|| <= (||W(R)|| + r_R + 2 rho ||W(X)|| a_w + q_w) / (1 - (rho + a_w)^2),
    r_R = ||H|| gamma sqrt(d) (||X|| + ||A||^2 ||X|| + ||Q||) bounding the rounding in R.
    """
    X = _sym(linalg.solve_discrete_lyapunov(A, Q))
    rho = _n2(F.sim(A))
    R = X - A @ X @ A.T - Q
    nA, nX, nQ = _n2(A), _n2(X), _n2(Q)
    r = _n2(F.w(R)) + F.nH * F.g * math.sqrt(F.d) * (nX + nA ** 2 * nX + nQ)
    den = 1 - (rho + a_w) ** 2
    if den <= 0:
        return X, math.inf
    return X, (r + 2 * rho * _n2(F.w(X)) * a_w + q_w) / den


def _ratio(F: Frame, X: np.ndarray, e_w: float, c: float):
    """X in units of H^-1: the eigenvalues of X H via M = W(X) = L^T X L.

    Returns (empirical, lo, hi, skew, tol): ``empirical`` is the eigenvalue of sym(M)
    farthest from c, moved ||skew(M)|| further away, so |empirical - c| >= ||M - cI||_2.
    Tolerance: e_w (error of X in these units) + gamma kappa ||M|| (the Cholesky
    backward error ||dH|| <= gamma ||H|| perturbs M's spectrum by a relative
    gamma kappa) + gamma (kappa + 1) ||M|| (the two products, ||H|| ||X|| <= kappa ||M||,
    and the eigensolver); the skew part of the computed M is bounded by the same
    quantity, hence the factor 2.
    """
    M = F.w(X)
    S, K = _sym(M), (M - M.T) / 2
    ev = np.linalg.eigvalsh(S)
    skew = _n2(K)
    lo, hi = float(ev[0]), float(ev[-1])
    v = lo if abs(lo - c) > abs(hi - c) else hi
    emp = v + math.copysign(skew, v - c) if v != c else v + skew
    tol = 2 * (e_w + F.g * (2 * F.kappa + 1) * _n2(M))
    return emp, lo, hi, skew, tol


def _fmt_range(lo, hi):
    return f"eig(X H) in [{lo:.15g}, {hi:.15g}]"


# ============================================================================= 1. stationary
# covariance
def _rho(A) -> float:
    return float(np.max(np.abs(np.linalg.eigvals(A)))) if A.size else 0.0


RTOL = 4 * np.finfo(float).eps  # the smallest relative tolerance brentq accepts


def _sup_stationary_k(H: np.ndarray, eps: float, kap: float):
    """sup{k > 0 : rho(I - eps (k/2) H^-1 H) < 1} on the literal matrices (scipy.optimize.brentq).

    Returns (k_hat, tol).  The computed A(k) is within dA = eps k gamma kappa of the exact
    (I - eps D H), which is (1 - k eps/2) I by construction; a matrix that close to a
    scalar matrix has its eigenvalues within dA + gamma ||A|| of the scalar (Bauer-Fike
    with V = I), so the computed rho differs from |1 - k eps/2| by at most
    delta = dA + gamma ||A||, and the crossing rho = 1 is located to within
    2 delta / eps plus twice brentq's bracket width.
    """
    d = H.shape[0]
    Hinv = np.linalg.inv(H)

    def rho(k):
        return _rho(np.eye(d) - eps * (k / 2) * Hinv @ H)

    lo = 1e-3 * min(1.0, 1.0 / eps)
    if not rho(lo) < 1:
        raise ValueError(f"rho(I - eps D H) >= 1 already at k = {lo:g}")
    hi = max(1.0, 2 * lo)
    for _ in range(80):  # bracket the crossing rho = 1
        if rho(hi) >= 1:
            break
        lo, hi = hi, 2 * hi
    xtol = 4 * U * hi
    k_hat = optimize.brentq(lambda k: rho(k) - 1.0, lo, hi, xtol=xtol, rtol=RTOL, maxiter=500)
    width = xtol + RTOL * k_hat  # brentq: |k_hat - crossing| <= xtol + rtol |k_hat|
    top = k_hat + width
    g = _gamma(d)
    delta = eps * top * g * kap + g * (1 + abs(1 - top * eps / 2))
    return float(k_hat), float(2 * width + 2 * delta / eps)


def _stationary_covariance(F: Frame, k, eps):
    D, A, Q, a_w, q_w = _precond_process(F, k, eps, exact_noise=False)
    Lam, err = _lyapunov(F, A, Q, a_w, q_w)
    return Lam, err, A


def run_stationary_covariance(grid, seed=0, progress=None):
    claim = "sgfs_stationary_covariance"
    out = []
    cond = grid["cond"]
    for d in grid["dim"]:
        H, F, kap = _target(seed, d, "sgfs/stationary/H", d, cond)
        _progress(progress, f"{claim}: d={d}")
        for eps in grid["eps"]:
            for k in grid["k"]:
                if not k * eps < 4:
                    continue  # no stationary distribution: the claim's constraint
                Lam, err, A = _stationary_covariance(F, k, eps)
                rho = _rho(A)
                for form in ("stated", "explicit", "series"):
                    b = bound_value(claim, "covariance_ratio", form, k_frac=k, eps=eps)
                    emp, lo, hi, skew, tol = _ratio(F, Lam, err, b)
                    out.append(CheckResult(
                        "covariance_ratio", form,
                        {"dimension": d, "k": k, "eps": eps, "cond_H": kap,
                         "instance": f"seed {seed}, unit {d}"},
                        emp, b, "exact", relation="=", error=tol, primary=form == "stated",
                        note=f"Lyapunov solve of Lambda = A Lambda A^T + 2 eps D, A = I - eps D H, "
                             f"rho(A) = {rho:.6g}; {_fmt_range(lo, hi)}, ||skew|| = {skew:.2g}"))
            # the supremum of stationary k at this eps
            k_hat, tol = _sup_stationary_k(H, eps, kap)
            ce = []
            for kc in (2.0 / eps, 3.0 / eps):
                Lam, err, A = _stationary_covariance(F, kc, eps)
                _, lo, hi, _, _ = _ratio(F, Lam, err, 1.0)
                ce.append(
                    f"k = {kc:g}: rho(I - eps DH) = {_rho(A):.3g} < 1, Lambda = {lo:.6f}..{hi:.6f} "
                    f"H^-1")
            A_out = np.eye(d) - eps * (4.5 / eps / 2) * np.linalg.inv(H) @ H
            ce.append(f"k = {4.5 / eps:g}: rho = {_rho(A_out):.3g} >= 1 (no stationary law)")
            for form in ("stated", "explicit"):
                if form == "stated" and eps != 1.0:
                    continue  # the printed "k in (0, 1)" is stated for eps = 1 only
                b = bound_value(claim, "stationarity_k_max", form, eps=eps)
                note = (f"brentq on rho(I - eps (k/2) H^-1 H) = 1: sup k = {k_hat:.12g}; "
                        + "; ".join(ce))
                if form == "stated":
                    note = "counterexample to 'k in (0, 1)': " + note
                out.append(CheckResult(
                    "stationarity_k_max", form, {"dimension": d, "eps": eps, "cond_H": kap},
                    k_hat, b, "exact", relation="=", error=tol, primary=form == "stated",
                    note=note))
                if form == "stated":  # the other reading: every k in (0, 1) is stationary
                    out.append(CheckResult(
                        SUFFICIENT_Q, form, {"dimension": d, "eps": eps, "cond_H": kap},
                        k_hat, b, "exact", relation=">=", error=tol, primary=True,
                        reading=SUFFICIENT,
                        note="every k below the printed sup 1 must be stationary: sup k (brentq) "
                             ">= 1"))
    return out


SUFFICIENT_Q = "stationarity_k_max (k in (0, 1) read as sufficient)"
EQUIVALENT, SUFFICIENT = ("'equivalent to k in (0, 1)' as an "
                          "equivalence"), "k in (0, 1) as a sufficient condition"


# ============================================================================= 2. exact noise
def run_exact_noise(grid, seed=0, progress=None):
    claim = "sgfs_exact_noise"
    out = []
    cond = grid["cond"]
    for d in grid["dim"]:
        _progress(progress, f"{claim}: d={d}")
        H, F, kap = _target(seed, d, "sgfs/exact_noise/H", d, cond)
        for k in grid["k"]:
            D, A, Q, a_w, q_w = _precond_process(F, k)
            Lam, err = _lyapunov(F, A, Q, a_w, q_w)
            emp, lo, hi, skew, tol = _ratio(F, Lam, err, 1.0)
            params = {"dimension": d, "k": k, "D": "(k/2) H^-1", "cond_H": kap}
            out.append(CheckResult(
                "stationary_covariance_ratio", "stated", params, emp, 1.0, "exact", relation="=",
                error=tol,
                note=f"Lyapunov Lambda of theta' = (I - DH) theta + N(0, 2D - DHD) in units of "
                     f"H^-1 (claim: 'has the correct stationary distribution' N(0, H^-1)); "
                     f"{_fmt_range(lo, hi)}"))
            # the noise that makes H^-1 stationary, H^-1 - A H^-1 A^T, from the matrices:
            # W(.) = W(X) - sim(A) W(X) sim(A)^T with ||W(X) - I|| <= e_inv, ||sim(A) - sim(A*)|| <=
            # a_w
            Hinv, e_inv = _inverse(F)
            Qs = Hinv - A @ Hinv @ A.T
            rho = _n2(F.sim(A))
            eQ = (e_inv * (1 + rho ** 2) + 2 * rho * a_w * (1 + e_inv)
                  + F.nH * F.g * 2 * (_n2(Hinv) + _n2(A) ** 2 * _n2(Hinv)))
            for form in ("stated", "explicit"):
                b = bound_value(claim, "noise_ratio", form, k_frac=k)
                emp, lo, hi, skew, tol = _ratio(F, Qs, eQ, b)
                out.append(CheckResult(
                    "noise_ratio", form, params, emp, b, "exact", relation="=", error=tol,
                    primary=form == "stated",
                    note=f"H^-1 - A H^-1 A^T with A = I - DH (the noise making H^-1 stationary); "
                         f"{_fmt_range(lo, hi)}"))
        # random SPD D with rho(I - DH) < 1
        for j, frac in enumerate(grid["random_D_frac"]):
            rng = unit_generator(seed, 100 * d + j, "sgfs/exact_noise/D")
            D0 = random_spd(rng, d, grid["cond_D"])
            mu_max = float(np.linalg.eigvalsh(F.w(D0))[-1])  # largest eigenvalue of D0 H
            D = (2 * frac / mu_max) * D0
            A, Q, a_w, q_w = _given_D_process(F, D)
            Lam, err = _lyapunov(F, A, Q, a_w, q_w)
            emp, lo, hi, skew, tol = _ratio(F, Lam, err, 1.0)
            out.append(CheckResult(
                "stationary_covariance_ratio", "stated",
                {"dimension": d, "D": "random SPD", "rho_max_DH": 2 * frac, "cond_H": kap,
                 "cond_D": _kappa(D),
                 "rho_A": _rho(A)},
                emp, 1.0, "exact", relation="=", error=tol,
                note=f"random D, lambda_min(2D - DHD) = {np.linalg.eigvalsh(Q)[0]:.3g}, rho(I - "
                     f"DH) = {_rho(A):.6g}; {_fmt_range(lo, hi)}"))
    return out


# ============================================================================= 3. admissible k
def _precond(H: np.ndarray, k: float):
    """D = (k/2) fl(H^-1) with a bound on ||dD||_2 (natural coordinates).

    The computed inverse X of an SPD H satisfies ||X - H^-1|| <= gamma_d kappa(H) ||H^-1||
    (forward error of inversion, Higham, Accuracy and Stability, Ch. 14).
    """
    d = H.shape[0]
    Hinv = _sym(np.linalg.inv(H))
    D = (k / 2) * Hinv
    return D, (k / 2) * _gamma(d) * _kappa(H) * _n2(Hinv), Hinv


def _noise(H, C, N, S, k):
    """The literal injected noise of Eq. (8) at D = (k/2) H^-1, and its rounding bound."""
    d = H.shape[0]
    D, dD, Hinv = _precond(H, k)
    a = N ** 2 / S
    T1, T2, T3 = 2 * D, a * D @ C @ D, D @ H @ D
    W = T1 - T2 - T3
    nD, nC, nH = _n2(D), _n2(C), _n2(H)
    g = _gamma(d)
    tau = (2 * dD + 2 * dD * nD * (a * nC + nH)  # error of D propagated
           + g * (_n2(T1) + 2 * _n2(T2) + 2 * _n2(T3))  # products and sums
           + g * _n2(W))  # eigensolver
    return _sym(W), tau, Hinv


def _k_star(H, C, N, S):
    """Largest k with the literal noise PSD, by Brent's method on its smallest eigenvalue.

    Predicate: lambda_min(fl(noise(k))) >= -tau(k).  For k > k* the exact smallest
    eigenvalue is <= -(k - k*) lambda_min(H^-1) (v^T noise(k) v = a k (1 - k/k*) along the
    null vector v of noise(k*), a = v^T H^-1 v), so an accepted k satisfies
    k <= k* + 2 tau / lambda_min(H^-1) and a rejected one k > k*.
    Returns (k_hat, tol).
    """
    lam_min_Hinv = 1.0 / float(np.linalg.eigvalsh(H)[-1])

    def margin(k):  # >= 0 iff the literal noise is PSD up to its rounding bound tau(k)
        W, tau, _ = _noise(H, C, N, S, k)
        return float(np.linalg.eigvalsh(W)[0]) + tau, tau

    lo, hi = 1e-9, 4.0  # at k -> 0 the noise is k H^-1 + O(k^2) > 0; at k = 4 it is not PSD
    assert margin(lo)[0] > 0 and margin(hi)[0] < 0
    xtol = 4 * U * hi
    k_hat = optimize.brentq(lambda k: margin(k)[0], lo, hi, xtol=xtol, rtol=RTOL, maxiter=500)
    width = xtol + RTOL * k_hat  # brentq: |k_hat - sign change| <= xtol + rtol |k_hat|
    tau = margin(min(k_hat + width, hi))[1]
    return float(k_hat), float(2 * width + 2 * tau / lam_min_Hinv)


def _eig_ratio(H, NC):
    """r = lambda_min(H^-1) / lambda_max(H^-1 N C H^-1) (below Eq. 15), from the matrices."""
    Hinv = _sym(np.linalg.inv(H))
    return float(np.linalg.eigvalsh(Hinv)[0] / np.linalg.eigvalsh(_sym(Hinv @ NC @ Hinv))[-1])


def _admissible_instance(seed, d, N, prior, cond, unit):
    rng = unit_generator(seed, unit, f"sgfs/admissible/{prior}")
    if prior == "isotropic":
        c = float(np.exp(rng.uniform(-1, 1)))
        C = c * np.eye(d)
        G = N * c * float(np.exp(rng.uniform(-1, 1))) * np.eye(d)
    else:
        C = random_spd(rng, d, cond, scale=float(np.exp(rng.uniform(-1, 1))))
        if prior == "zero":
            G = np.zeros((d, d))
        else:
            s = {"weak": 0.01, "strong": 10.0}[prior]
            G = random_spd(rng, d, cond, scale=s * N * float(np.linalg.eigvalsh(C)[0]))
    return C, G


def run_admissible_k(grid, seed=0, progress=None):
    claim = "sgfs_admissible_k"
    out = []
    cmax = grid["c"]
    unit = 0
    for d, N, S, prior in itertools.product(grid["dim"], grid["N"], grid["batch"], grid["priors"]):
        unit += 1
        if S > N:
            continue
        _progress(progress, f"{claim}: d={d} N={N} |S|={S} prior={prior}")
        C, G = _admissible_instance(seed, d, N, prior, grid["cond"], unit)
        H = _sym(N * C + G)
        r = _eig_ratio(H, N * C)
        k_hat, ktol = _k_star(H, C, N, S)
        # cross-check: noise PSD <=> H >= (k/4)((N^2/|S|) C + H), a generalized eigenproblem
        k_gen = 4.0 / float(linalg.eigh(_sym(N ** 2 / S * C + H), H, eigvals_only=True)[-1])
        params = {"dimension": d, "N": N, "|S|": S, "prior": prior, "r": r, "c": cmax,
                  "cond_H": _kappa(H)}
        ks = {"13": bound_value(claim, "k_max_13", "stated", n_data=N, batch=S),
              "15": bound_value(claim, "k_max_15", "stated", n_data=N, batch=S, eig_ratio=r),
              "16": bound_value(claim, "k_16", "stated", n_data=N, batch=S, eig_ratio=r,
                                c_max=cmax)}
        qn = {"13": "k_max_13", "15": "k_max_15", "16": "k_16"}
        for eq, kf in ks.items():
            out.append(CheckResult(
                qn[eq], "stated", {**params, "k_formula": kf}, k_hat, kf, "exact", relation=">=",
                error=ktol,
                note=f"empirical: largest k with 2D - (N^2/|S|) DCD - DHD PSD (brentq on the "
                     f"literal matrix; generalized eigenvalue cross-check {k_gen:.12g}); "
                     f"Eq. ({eq}) claims its k is admissible"))
            W, tau, _ = _noise(H, C, N, S, kf)
            lmin = float(np.linalg.eigvalsh(W)[0])
            out.append(CheckResult(
                "noise_min_eig", "stated", {**params, "eq": eq, "k": kf}, lmin, 0.0, "exact",
                relation=">=",
                error=tau,
                note=f"smallest eigenvalue of the injected noise at the k of Eq. ({eq}) = "
                     f"{kf:.6g}"))
        if prior == "zero":
            out.append(CheckResult(
                "k_max_13_necessary", "stated", {**params, "k_formula": ks["13"]}, k_hat, ks["13"],
                "exact",
                relation="=", error=ktol, primary=False,
                note="§2.3.1.1: for G << N C 'the condition in (13) becomes a necessary one' (G = "
                     "0 here)"))
    # remark after Eq. (15): "For strong priors, r > 1"
    for label, NC, G in (("G = I", np.diag([1.0, 100.0]), np.eye(2)),
                         ("G = N C", np.diag([1.0, 100.0]), np.diag([1.0, 100.0]))):
        H = NC + G
        r = _eig_ratio(H, NC)
        out.append(CheckResult(
            "eig_ratio_strong_prior", "remark", {"NC": "diag(1, 100)", "G": label}, r, 1.0, "exact",
            relation=">",
            error=_gamma(2) * _kappa(H) ** 2, primary=False,
            note=f"counterexample to 'For strong priors, r > 1': N C = diag(1, 100), {label} (G >= "
                 f"N C in the first "
                 f"direction{'' if label == 'G = I' else ', G = N C in every direction'}) gives r "
                 f"= {r:.6g} < 1"))
    return out


# ============================================================================= 4. variance
# trajectory
def _trajectory(F: Frame, k, T):
    """V_t = A V_{t-1} A^T + Q, V_0 = 0 (theta_0 = theta_MAP), Q = 2D - DHD, with a running
    first-order bound on ||W(V_t - V_t exact)||:

    e_t <= (rho + a_w)^2 e_{t-1} + 2 rho ||W(V_{t-1})|| a_w + q_w + 2 ||H|| gamma (||A||^2
    ||V_{t-1}|| + ||Q||) (propagated error, perturbed inputs, rounding of the step and of the
    symmetrization).
    """
    D, A, Q, a_w, q_w = _precond_process(F, k)
    rho = _n2(F.sim(A))
    nA, nQ = _n2(A), _n2(Q)
    V, e = np.zeros((F.d, F.d)), 0.0
    out = [(V.copy(), 0.0)]
    for _ in range(T):
        e = ((rho + a_w) ** 2 * e + 2 * rho * _n2(F.w(V)) * a_w + q_w
             + 2 * F.nH * F.g * (nA ** 2 * _n2(V) + nQ))
        V = _sym(A @ V @ A.T + Q)
        out.append((V.copy(), e))
    return out


def run_variance_trajectory(grid, seed=0, progress=None):
    claim = "sgfs_variance_trajectory"
    out = []
    ts = sorted(set(int(t) for t in grid["t"]))
    for d in grid["dim"]:
        _progress(progress, f"{claim}: d={d}")
        H, F, kap = _target(seed, d, "sgfs/trajectory/H", d, grid["cond"])
        for k in grid["k"]:
            traj = _trajectory(F, k, max(ts))
            for t in ts:
                V, e = traj[t]
                for form in ("stated", "stated_sum", "corrected"):
                    b = bound_value(claim, "variance_ratio", form, k_frac=k, t_iter=t)
                    emp, lo, hi, skew, tol = _ratio(F, V, e, b)
                    out.append(CheckResult(
                        "variance_ratio", form, {"dimension": d, "k": k, "t": t, "cond_H": kap},
                        emp, b, "exact", relation="=", error=tol, primary=form == "stated",
                        note=f"exact recursion Var[theta_t] = A Var[theta_(t-1)] A^T + (2D - DHD) "
                             f"from theta_0 = theta_MAP: Var[theta_{t}] = {(lo + hi) / 2:.12g} "
                             f"H^-1 vs {form} {b:.12g}; {_fmt_range(lo, hi)}"))
    return out


# ============================================================================= 5. autocovariance
def run_autocovariance(grid, seed=0, progress=None):
    claim = "sgfs_autocovariance"
    out = []
    for d in grid["dim"]:
        _progress(progress, f"{claim}: exact d={d}")
        H, F, kap = _target(seed, d, "sgfs/autocov/H", d, grid["cond"])
        for k in grid["k"]:
            D, A, Q, a_w, q_w = _precond_process(F, k)
            Lam, err = _lyapunov(F, A, Q, a_w, q_w)
            X = A @ Lam  # Cov[theta_t, theta_{t-1}] = E[(A theta + w) theta^T]
            # W(A Lam) = sim(A) W(Lam): error <= rho e_Lam + a_w ||W(Lam)|| + product rounding
            eX = (_n2(F.sim(A)) * err + a_w * _n2(F.w(Lam)) + F.nH * F.g * _n2(A) * _n2(Lam))
            for form in ("stated", "explicit"):
                b = bound_value(claim, "lag1_ratio", form, k_frac=k)
                emp, lo, hi, skew, tol = _ratio(F, X, eX, b)
                out.append(CheckResult(
                    "lag1_ratio", form, {"dimension": d, "k": k, "cond_H": kap}, emp, b, "exact",
                    relation="=",
                    error=tol, primary=form == "stated",
                    note=f"A Lambda with Lambda the Lyapunov solution of the exact process; "
                         f"{_fmt_range(lo, hi)}, ||skew|| = {skew:.2g}"))
    # Monte Carlo: R independent chains of the exact process, burnt in from theta_MAP = 0
    d = grid["mc_dim"]
    H, F, kap = _target(seed, 10_000 + d, "sgfs/autocov/H", d, grid["cond"])
    R = int(grid["R"])
    for j, k in enumerate(grid["mc_k"]):
        _progress(progress, f"{claim}: Monte Carlo d={d} k={k} R={R}")
        _, A, Q, _, _ = _precond_process(F, k)
        LQ = np.linalg.cholesky(Q)
        rho = max(_rho(A), 1e-300)
        burn = max(1, int(math.ceil(math.log(1e-10) / (2 * math.log(rho))))) if rho < 1 else 1
        burn = min(burn, 100_000)
        gen = unit_generator(seed, j, f"sgfs/autocov/mc/{k}")
        th = np.zeros((R, d))
        for _ in range(burn):
            th = th @ A.T + gen.standard_normal((R, d)) @ LQ.T
        th1 = th @ A.T + gen.standard_normal((R, d)) @ LQ.T
        x = np.einsum("ri,ij,rj->r", th1, H, th) / d  # theta_t^T H theta_{t-1} / d
        est, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(R))
        for form in ("stated", "explicit"):
            b = bound_value(claim, "lag1_ratio", form, k_frac=k)
            out.append(CheckResult(
                "lag1_ratio", form,
                {"dimension": d, "k": k, "R": R, "burn_in": burn, "cond_H": kap},
                est, b, "monte-carlo", relation="=", stderr=se, primary=form == "stated",
                note=f"mean over R chains of theta_t^T H theta_(t-1) / d (= tr(H Cov)/d) after "
                     f"{burn} burn-in steps from theta_MAP (transient rho^(2 burn) <= 1e-10)"))
    return out


# ============================================================================= 6. convergence
# criterion
def simulate_window_means(N, S, C, G, k, n, R, gen, burn_tol=1e-10):
    """R independent windows of n successive stochastic gradients of the scalar process.

    theta' = theta + D Y + N(0, 2D - D^2 N^2 C/|S| - D^2 h), Y = -h theta + xi,
    xi ~ N(0, N^2 C/|S|), h = N C + G, D = k/(2h), from theta_0 = theta_MAP = 0 with a
    burn-in of B steps (|1 - Dh|^(2B) <= burn_tol).  Returns (window means, B).
    """
    h = N * C + G
    sx2 = N ** 2 * C / S
    D = k / (2 * h)
    vinj = 2 * D - D ** 2 * sx2 - D ** 2 * h
    if vinj < 0:
        raise ValueError("injected noise variance negative: k not admissible")
    rho = abs(1 - D * h)
    B = int(math.ceil(math.log(burn_tol) / (2 * math.log(rho)))) if 0 < rho < 1 else 1
    th = np.zeros(R)
    sx, si = math.sqrt(sx2), math.sqrt(vinj)
    total = np.zeros(R)
    for i in range(B + n):
        Y = -h * th + sx * gen.standard_normal(R)
        if i >= B:
            total += Y
        th = th + D * Y + si * gen.standard_normal(R)
    return total / n, B


def run_convergence_criterion(grid, seed=0, progress=None):
    claim = "sgfs_convergence_criterion"
    out = []
    R = int(grid["R"])
    pts = list(itertools.product(grid["N"], grid["batch"], grid["fisher"], grid["prior"], grid["k"],
                                 grid["n_avg"], grid["b"]))
    for j, (N, S, C, G, k, n, b) in enumerate(pts):
        h = N * C + G
        sx2 = N ** 2 * C / S
        if k * (h + sx2) > 4 * h or S > N:
            continue  # k not admissible (injected noise would be negative)
        _progress(progress, f"{claim}: N={N} |S|={S} C={C} G={G} k={k} n={n} R={R}")
        gen = unit_generator(seed, j, "sgfs/criterion")
        m, B = simulate_window_means(N, S, C, G, k, int(n), R, gen)
        m2 = m ** 2
        s2 = float(m2.mean())
        s = math.sqrt(s2)
        se = float(m2.std(ddof=1) / math.sqrt(R)) / (2 * s)  # delta method for sqrt(mean m^2)
        params = {"N": N, "|S|": S, "C": C, "G": G, "k": k, "n": int(n), "b": b, "R": R,
                  "burn_in": B}
        bnd = {}
        for form in ("stated", "corrected"):
            kw = dict(n_avg=int(n), n_data=N, batch=S, fisher=C, prior=G, b=b)
            if form == "corrected":
                kw["k_frac"] = k
            bnd[form] = bound_value(claim, "threshold", form, **kw)
            out.append(CheckResult(
                "threshold", form, params, b * s, bnd[form], "monte-carlo", relation="=",
                stderr=b * se,
                primary=form == "stated",
                note=f"b x RMS of (1/n) sum_i Y_i over R independent stationary windows = "
                     f"{b * s:.6g} (sd {s:.6g}); printed sd = {bnd['stated'] / b:.6g}"))
        # non-primary: pass rate of (17) vs the 2 Phi(b) - 1 of a correct sd
        p = float(np.mean(np.abs(m) <= bnd["stated"]))
        p0 = float(2 * stats.norm.cdf(b) - 1)
        p_pred = float(2 * stats.norm.cdf(bnd["stated"] / (bnd["corrected"] / b)) - 1)
        out.append(CheckResult(
            "pass_rate", "stated", params, p, p0, "monte-carlo", relation="=",
            stderr=math.sqrt(max(p * (1 - p), 1.0 / R) / R), primary=False,
            note=f"fraction of stationary windows passing (17) = {p:.4f}; a correct sd would give "
                 f"2 Phi(b) - 1 = {p0:.4f}; predicted from the corrected sd: {p_pred:.4f}"))
    return out


# ============================================================================= readings
#: claim id -> its reasonable readings (verify.model.Reading), declared with the claim
_READINGS: dict = {}
_READINGS["sgfs_stationary_covariance"] = (
    Reading(EQUIVALENT, "-I < I - DH < I ... which is equivalent to k in (0, 1) (Appendix, "
                        "Discretization error)",
            "the printed range is exactly the stationary range: sup of the stationary k equals 1",
            axis="printed range",
            select=lambda c: c.quantity == "stationarity_k_max" and c.form == "stated"),
    Reading(SUFFICIENT, "-I < I - DH < I ... which is equivalent to k in (0, 1) (Appendix, "
                        "Discretization error)",
            "the range as the one the report works in: every k in (0, 1) gives a stationary "
            "process (the covariance formula Eq. (32) is checked under both readings)",
            axis="printed range",
            # rule 6: the report says three times that the range is necessary, not merely sufficient
            ruled_out="Appendix: 'This process has a stationary distribution if and only if: -I < "
                      "(I - eps DH) < I ... the above condition is equivalent to k in (0, 1)'; "
                      "§2.3.1, of Eq. (10): 'The restriction on the values of k is necessary for "
                      "convergence'"),
)


# ============================================================================= registry
def _register(claim: str, **fields) -> None:
    """Register the verification of ``claim`` with the readings declared for it above."""
    register(Verification(claim, readings=_READINGS.get(claim, ()), **fields))


_register(
    "sgfs_stationary_covariance",
    measures="Lambda H for the stationary covariance of theta' = (I - eps DH) theta + N(0, 2 eps "
             "D), D = (k/2) H^-1; sup of the k with rho(I - eps DH) < 1",
    targets="random SPD H, dimensions 1-6",
    method="exact",
    forms="stated, explicit, series",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], eps=[1.0, 0.25], cond=100.0),
              dict(dim=[1, 2, 3, 4, 5, 6],
                   k=[0.05, 0.5, 0.9, 1.0, 2.0, 3.0, 3.9],
                   eps=[1.0, 0.5, 0.1], cond=1000.0)),
    run=run_stationary_covariance, overrides=("k", "eps", "dim", "cond"),
    name='Stationary covariance, Eq. (32)')

_register(
    "sgfs_exact_noise",
    measures="Lyapunov stationary covariance of the exact process (noise 2D - DHD) in units of "
             "H^-1; the noise H^-1 - A H^-1 A^T that makes H^-1 stationary",
    targets="random SPD H; D = (k/2) H^-1 and random SPD D with rho(I - DH) < 1", method="exact",
    forms="stated, explicit",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], random_D_frac=[0.3, 0.9], cond=100.0,
                   cond_D=10.0),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 1.0, 2.0, 3.0, 3.9],
                   random_D_frac=[0.3, 0.6, 0.9, 0.99],
                   cond=1000.0, cond_D=100.0)), run=run_exact_noise, overrides=("k", "dim", "cond"),
    name='Noise of the exact process')

_register(
    "sgfs_admissible_k",
    measures="largest k with PSD injected noise 2D - (N^2/|S|) DCD - DHD (brentq) vs the k of Eqs. "
             "(13), (15), (16); smallest eigenvalue of the noise at those k",
    targets="H = N C + G, random SPD C; G zero / isotropic / weak / strong", method="exact",
    forms="stated, remark",
    grid=Grid(dict(dim=[2, 5], N=[1000, 10000], batch=[100],
                   priors=["zero", "isotropic", "weak", "strong"],
                   c=0.1, cond=10.0),
              dict(dim=[1, 2, 3, 5, 6], N=[100, 1000, 10000, 100000], batch=[10, 100, 1000],
                   priors=["zero", "isotropic", "weak", "strong"], c=0.1, cond=100.0)),
    run=run_admissible_k,
    overrides=("dim", "N", "batch", "priors", "c", "cond"), name='Admissible k, Eqs. (13)-(16)')

_register(
    "sgfs_variance_trajectory",
    measures="Var[theta_t] H along the exact process from theta_MAP (exact matrix recursion)",
    targets="random SPD H, dimensions 1-6", method="exact", forms="stated, stated_sum, corrected",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], t=[0, 1, 2, 5, 20], cond=100.0),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 0.9, 1.0, 2.0, 3.0, 3.9],
                   t=[0, 1, 2, 3, 5, 10, 50, 200],
                   cond=1000.0)), run=run_variance_trajectory, overrides=("k", "t", "dim", "cond"),
    name='Variance along the exact process')

_register(
    "sgfs_autocovariance",
    measures="Cov[theta_t, theta_(t-1)] H at stationarity: exact (A Lambda) and Monte Carlo (R "
             "parallel chains)",
    targets="random SPD H, dimensions 1-6", method="exact+monte-carlo", forms="stated, explicit",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], cond=100.0, mc_dim=3, mc_k=[0.5, 3.0],
                   R=20000),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 1.0, 2.0, 3.0, 3.9], cond=1000.0, mc_dim=4,
                   mc_k=[0.1, 0.5, 1.0, 3.0], R=400000)), run=run_autocovariance,
    overrides=("k", "dim", "cond", "mc_k", "R"), name='Lag-one autocovariance')

_register(
    "sgfs_convergence_criterion",
    measures="b x sd of the mean of n successive stochastic gradients at stationarity (scalar "
             "process, simulated)",
    targets="scalar quadratic target h = N C + G with Gaussian minibatch noise N(0, N^2 C/|S|)",
    method="monte-carlo",
    forms="stated, corrected",
    grid=Grid(dict(N=[1000], batch=[100], fisher=[0.25, 1.0, 4.0], prior=[1.0], k=[0.1], n_avg=[10],
                   b=[1.0],
                   R=20000),
              dict(N=[1000, 10000], batch=[100, 1000], fisher=[0.25, 4.0], prior=[1.0, 1000.0],
                   k=[0.05, 0.3],
                   n_avg=[3, 10], b=[0.5, 1.0], R=40000)), run=run_convergence_criterion,
    overrides=("N", "batch", "fisher", "prior", "k", "n_avg", "b", "R"),
    name='Convergence criterion, Eq. (17)')


# ============================================================================= search spaces
# (python -m verify search CLAIM: verify.search)
from verify.registry import bound_value as _b  # noqa: E402
from verify.spaces import spec  # noqa: E402


@spec("sgfs_variance_trajectory", "k in (0, 4), t in 0..50, scalar VAR(1) recursion from theta_MAP")
def _svt():
    from hypothesis import strategies as st

    from verify.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"k": st.floats(0.01, 3.99), "t": st.integers(0, 50)})

    def ev(d):
        k, t = d["k"], d["t"]
        a, noise, v = 1 - k / 2, k - k * k / 4, 0.0
        for _ in range(t):
            v = a * a * v + noise
        return [("variance_ratio (stated)", v,
                 _b("sgfs_variance_trajectory", "variance_ratio", "stated", k_frac=k, t_iter=t),
                 "=", 1e-10)]
    return strat, ev


@spec("sgfs_stationary_covariance",
      "k in (0, 8), eps in (0, 2]: is the VAR(1) stationary (k < 1 as printed)?")
def _ssc():
    from hypothesis import strategies as st

    from verify.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"k": st.floats(0.01, 7.9), "eps": st.just(1.0)})

    def ev(d):
        k = d["k"]
        stationary = abs(1 - k / 2) < 1
        # empirical: 1 if stationary; bound: 1 if the printed condition k in (0, 1) admits k
        return [("stationary iff k < 1 (as printed)", float(stationary), float(k < 1), "=", 0.0)]
    return strat, ev
