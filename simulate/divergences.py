"""Divergences between a Gaussian target and a proposal, in closed form or numerically.

Closed forms for pi = N(mu, Sigma) against q = N(m, S) (``docs/methods.md`` §1; "001" is Kim et al.,
NeurIPS 2022, "Markov Chain Score Ascent"):

* ``log w* = (1/2) log det S - (1/2) log det Sigma + (1/2) (mu-m)^T (S - Sigma)^-1 (mu-m)``,
  finite iff ``S - Sigma`` is positive definite (otherwise w* = inf: Assumption 2 of 001
  fails, and we say so);
* ``KL(pi || q)``, ``KL(q || pi)``;
* ``chi2(pi || q) = int pi^2/q - 1``, finite iff ``2 Sigma^-1 - S^-1`` is positive definite.

For proposals without a closed form (Student-t, defensive mixtures) :func:`numerical_log_w_star`
maximises ``log pi(z) - log q(z)`` from many starts and reports how well the starts agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def _logdet(A):
    sign, ld = np.linalg.slogdet(A)
    return ld if sign > 0 else np.nan


def _is_pd(A, tol=0.0) -> bool:
    try:
        return bool(np.linalg.eigvalsh(0.5 * (A + A.T)).min() > tol)
    except np.linalg.LinAlgError:
        return False


def _as_cov(S, D):
    S = np.asarray(S, dtype=float)
    return np.diag(S) if S.ndim == 1 else S


def log_w_star(mu, Sigma, m, S) -> float:
    """Compute log w* = log sup_z pi(z)/q(z); ``inf`` when S - Sigma is not positive definite.

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    float
        log w*, or inf.
    """
    mu, m = np.asarray(mu, float), np.asarray(m, float)
    Sigma, S = _as_cov(Sigma, mu.size), _as_cov(S, mu.size)
    diff = S - Sigma
    if not _is_pd(diff):
        return np.inf
    d = mu - m
    return float(0.5 * (_logdet(S) - _logdet(Sigma)) + 0.5 * d @ np.linalg.solve(diff, d))


def argmax_weight(mu, Sigma, m, S) -> np.ndarray:
    """Find the z attaining w*: grad log w = 0 gives z* = mu + Sigma (S - Sigma)^-1 (mu - m).

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    numpy.ndarray
        z*, a d-vector.
    """
    mu, m = np.asarray(mu, float), np.asarray(m, float)
    Sigma, S = _as_cov(Sigma, mu.size), _as_cov(S, mu.size)
    return mu + Sigma @ np.linalg.solve(S - Sigma, mu - m)


def kl(mu0, S0, mu1, S1) -> float:
    """KL(N(mu0, S0) || N(mu1, S1)).

    Parameters
    ----------
    mu0, S0 : numpy.ndarray
        Mean and covariance of the first Gaussian.
    mu1, S1 : numpy.ndarray
        Mean and covariance of the second.

    Returns
    -------
    float
        KL(N(mu0, S0) || N(mu1, S1)).
    """
    mu0, mu1 = np.asarray(mu0, float), np.asarray(mu1, float)
    S0, S1 = _as_cov(S0, mu0.size), _as_cov(S1, mu0.size)
    D = mu0.size
    d = mu1 - mu0
    return float(0.5 * (np.trace(np.linalg.solve(S1, S0)) + d @ np.linalg.solve(S1, d) - D
                        + _logdet(S1) - _logdet(S0)))


def kl_inclusive(mu, Sigma, m, S) -> float:
    """KL(pi || q), the objective of MCSA (Kim et al. 2022, §2.1).

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    float
        KL(pi || q).
    """
    return kl(mu, Sigma, m, S)


def kl_exclusive(mu, Sigma, m, S) -> float:
    """KL(q || pi).

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    float
        KL(q || pi).
    """
    return kl(m, S, mu, Sigma)


def log1p_chi2(mu, Sigma, m, S) -> float:
    """log(1 + chi2(pi || q)) = log int pi^2 / q; ``inf`` when 2 Sigma^-1 - S^-1 is not PD.

    int pi^2/q = det(S)^(1/2) det(Sigma)^-1 det(A)^(-1/2) exp((b^T A^-1 b - c)/2),
    A = 2 Sigma^-1 - S^-1, b = 2 Sigma^-1 mu - S^-1 m, c = 2 mu^T Sigma^-1 mu - m^T S^-1 m.

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    float
        log(1 + chi2(pi || q)), or inf.
    """
    mu, m = np.asarray(mu, float), np.asarray(m, float)
    Sigma, S = _as_cov(Sigma, mu.size), _as_cov(S, mu.size)
    Pi, Qi = np.linalg.inv(Sigma), np.linalg.inv(S)
    A = 2 * Pi - Qi
    if not _is_pd(A):
        return np.inf
    b = 2 * Pi @ mu - Qi @ m
    c = 2 * mu @ Pi @ mu - m @ Qi @ m
    return float(0.5 * _logdet(S) - _logdet(Sigma) - 0.5 * _logdet(A) + 0.5
                 * (b @ np.linalg.solve(A, b) - c))


def chi2(mu, Sigma, m, S) -> float:
    """chi2(pi || q) = E_q[(w - 1)^2]; ``inf`` when not finite.

    Parameters
    ----------
    mu, Sigma : numpy.ndarray
        The target pi = N(mu, Sigma): a d-vector and a d x d covariance.
    m, S : numpy.ndarray
        The proposal q = N(m, S).

    Returns
    -------
    float
        chi2(pi || q), or inf.
    """
    v = log1p_chi2(mu, Sigma, m, S)
    return float(np.expm1(v)) if np.isfinite(v) else np.inf


@dataclass(frozen=True)
class Divergences:
    """Divergences of pi from a Gaussian q: w* (Kim et al. 2022, Assumption 2), KLs, chi2.

    Parameters
    ----------
    log_w_star, w_star : float
        log w* and w* = sup pi/q (inf when unbounded).
    kl_inclusive, kl_exclusive : float
        KL(pi || q) and KL(q || pi).
    chi2 : float
        chi2(pi || q).
    """

    log_w_star: float
    w_star: float
    kl_inclusive: float
    kl_exclusive: float
    chi2: float

    def as_dict(self) -> dict:
        """Return the fields as JSON numbers (None where not finite)."""
        return {k: (None if not np.isfinite(v) else float(v)) for k, v in self.__dict__.items()}


def gaussian_divergences(target, family, lam) -> Divergences:
    """All closed-form divergences between a Gaussian target and a Gaussian family at lam.

    Parameters
    ----------
    target : simulate.targets.Gaussian
        The target pi.
    family : simulate.families.Family
        A Gaussian variational family (``family.mean_cov(lam)``).
    lam : numpy.ndarray
        The family's parameters.

    Returns
    -------
    Divergences
    """
    m, S = family.mean_cov(lam)
    lw = log_w_star(target.mean, target.cov, m, S)
    return Divergences(lw, float(np.exp(lw)) if lw < 709 else np.inf,
                       kl_inclusive(target.mean, target.cov, m, S),
                       kl_exclusive(target.mean, target.cov, m, S),
                       chi2(target.mean, target.cov, m, S))


@dataclass(frozen=True)
class NumericalWStar:
    """log w* found by multi-start maximisation, with its accuracy.

    ``spread`` is the gap between the best and the worst of the converged starts that
    landed within ``tol`` of the best point; ``grad_norm`` the gradient norm of log w at
    the best point; ``accuracy`` a first-order estimate of ``|log w* - value|``:
    grad_norm^2 / (2 * curvature) plus the optimiser tolerance.  ``agreeing`` counts the
    starts that reached the best value to within 1e-8.

    Parameters
    ----------
    value : float
        The largest log w found.
    argmax : numpy.ndarray
        Where it was found.
    grad_norm : float
        The gradient norm of log w there.
    accuracy : float
        First-order estimate of ``|log w* - value|``.
    starts : int
        The number of starts.
    agreeing : int
        Starts that reached the best value to within 1e-8.
    unbounded : bool, default False
        ``bound_check`` found log w increasing along a ray (w* = inf).
    """

    value: float
    argmax: np.ndarray
    grad_norm: float
    accuracy: float
    starts: int
    agreeing: int
    unbounded: bool = False


def numerical_log_w_star(log_pi, log_q, grad_log_w, starts, bound_check=None,
                         ftol=1e-13) -> NumericalWStar:
    """Maximise log w(z) = log pi(z) - log q(z) by L-BFGS from each start.

    ``grad_log_w(z)`` is the gradient of log w.  ``bound_check(z)`` (optional) returns
    True when log w keeps increasing along a ray (w* = inf), which is then reported.

    Parameters
    ----------
    log_pi, log_q : callable
        ``log_pi(z)``, ``log_q(z)``: the log densities of the target and the proposal.
    grad_log_w : callable
        ``grad_log_w(z)``: the gradient of ``log_pi - log_q``.
    starts : sequence of numpy.ndarray
        The starting points.
    bound_check : callable, optional
        ``bound_check(z) -> bool``: True when log w increases without bound along a ray.
    ftol : float, default 1e-13
        L-BFGS's relative tolerance on the function.

    Returns
    -------
    NumericalWStar
    """
    from scipy import optimize  # imported when needed (~0.3 s)

    best: Any = None  # scipy's OptimizeResult
    vals: Any = []
    for z0 in np.atleast_2d(starts):
        res = optimize.minimize(lambda z: -(log_pi(z) - log_q(z)), z0, jac=lambda z: -grad_log_w(z),
                                method="L-BFGS-B",
                                options={"ftol": ftol, "gtol": 1e-10, "maxiter": 5000})
        vals.append(-res.fun)
        if best is None or -res.fun > -best.fun:
            best = res
    vals = np.array(vals)
    g = np.linalg.norm(grad_log_w(best.x))
    # curvature along the gradient by a finite difference of the gradient
    h = 1e-5
    if g > 0:
        u = grad_log_w(best.x) / g
        curv = abs((grad_log_w(best.x + h * u) - grad_log_w(best.x - h * u)) @ u / (2 * h))
    else:
        curv = 1.0
    acc = g * g / (2 * max(curv, 1e-12)) + ftol * max(1.0, abs(-best.fun))
    unbounded = bool(bound_check(best.x)) if bound_check else False
    return NumericalWStar(float(-best.fun), best.x, float(g), float(acc), len(vals),
                          int(np.sum(vals >= vals.max() - 1e-8)), unbounded)
