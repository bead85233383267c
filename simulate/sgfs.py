"""The scalar SGFS process of 002 §2.3 at stationarity (exact second moments).

"002" is El hanchi (2018), "Stochastic gradient MCMC algorithms and their applications",
research report (docs/references.md); SGFS is stochastic gradient Fisher scoring (Ahn,
Korattikara and Welling, ICML 2012).

``theta_{i+1} = theta_i + D Y_i + N(0, 2D - D^2 sigma^2 - D^2 h)`` with the stochastic
gradient ``Y_i = -h theta_i + xi_i``, ``xi_i ~ N(0, sigma^2)``, ``sigma^2 = N^2 C/|S|``,
``h = N C + G``, ``D = k/(2h)`` (002 Eqs. 8-10, scalar case, theta_MAP = 0).  At
stationarity Var[theta] = 1/h, theta is AR(1) with coefficient rho = 1 - k/2, and the
gradient noise xi_i enters theta_j (j > i) through D.
"""

from __future__ import annotations

import numpy as np


def window_mean_covariance(n: int, N: float, S: float, C: float, G: float, k: float) -> np.ndarray:
    """Cov[Y_i, Y_j], i, j = 1..n, at stationarity (an n x n matrix)."""
    h = N * C + G
    sigma2 = N ** 2 * C / S
    rho = 1 - k / 2
    D = k / (2 * h)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    lag = np.abs(i - j)
    cov = h * rho ** lag  # h^2 Cov(theta_i, theta_j) = h rho^|i-j|
    cross = h * rho ** np.maximum(lag - 1, 0) * D * sigma2  # h Cov(theta_j, xi_i), j > i
    return cov - np.where(lag > 0, cross, 0.0) + np.where(lag == 0, sigma2, 0.0)


def window_mean_sd(n: int, N: float, S: float, C: float, G: float, k: float) -> float:
    """Compute the standard deviation of (1/n) sum_{i=1}^n Y_i at stationarity."""
    return float(np.sqrt(window_mean_covariance(n, N, S, C, G, k).sum()) / n)


def window_mean_variance_exact(n: int, N, S, C, G, k):
    """Var[(1/n) sum_{i=1}^n Y_i] at stationarity, exactly, as a :class:`fractions.Fraction`.

    The same covariance as :func:`window_mean_covariance`, summed in rational arithmetic: the
    parameters (ints, doubles or Fractions) are read exactly, so the result is the exact
    variance of the instance, for a check decided without rounding.  Cov[Y_i, Y_j] is
    ``h rho^d - h rho^(d-1) D sigma^2`` for ``d = |i - j| > 0`` and ``h + sigma^2`` for d = 0;
    there are ``2 (n - d)`` pairs at lag d > 0 and n at lag 0.
    """
    from fractions import Fraction

    N, S, C, G, k = (Fraction(x) for x in (N, S, C, G, k))
    h = N * C + G
    sigma2 = N ** 2 * C / S
    rho = 1 - k / 2
    D = k / (2 * h)
    total = n * (h + sigma2)
    for d in range(1, n):
        total += 2 * (n - d) * (h * rho ** d - h * rho ** (d - 1) * D * sigma2)
    return total / n ** 2
