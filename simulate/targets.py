"""Targets pi with batched ``logpdf`` and ``sample``.

* :class:`Gaussian` — N(mu, Sigma), log density through the Cholesky factor of the
  precision: ``(z - mu)^T Sigma^-1 (z - mu) = ||(z - mu) @ Lp||^2`` (one matrix product).
* :func:`isotropic` — N(0, I_D) (or N(mu, sigma^2 I)).
* :func:`wishart_target` — the paper's simulation target (Kim et al. 2022 §6.2, docs/methods.md §8):
  Sigma ~ Wishart(D + nu, diag(1/D, 2/D, ..., 1)), mu ~ N(0, I).
* :class:`FiniteTarget` — a probability vector on states 0..M-1.

Positions are arrays ``(..., D)``; ``logpdf`` returns ``(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .families import sqnorm

LOG_2PI = float(np.log(2 * np.pi))


@dataclass(frozen=True, eq=False)
class Gaussian:
    """Multivariate normal target N(mean, cov)."""

    mean: np.ndarray
    cov: np.ndarray
    name: str = "gaussian"

    def __post_init__(self):
        """Check the shapes and that cov is symmetric positive definite."""
        mean = np.asarray(self.mean, dtype=float)
        cov = np.asarray(self.cov, dtype=float)
        if mean.ndim != 1 or cov.shape != (mean.size, mean.size):
            raise ValueError("mean must be (D,) and cov (D, D)")
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "cov", cov)
        try:
            np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            raise ValueError("cov must be symmetric positive definite") from None

    @property
    def dim(self) -> int:
        """Dimension D."""
        return self.mean.size

    @cached_property
    def chol(self) -> np.ndarray:
        """Lower Cholesky factor of the covariance (sampling)."""
        return np.linalg.cholesky(self.cov)

    @cached_property
    def precision(self) -> np.ndarray:
        """Precision matrix, the inverse covariance."""
        from scipy import linalg  # imported when needed: scipy.linalg/stats cost ~0.5 s

        return linalg.cho_solve((self.chol, True), np.eye(self.dim))

    @cached_property
    def prec_chol(self) -> np.ndarray:
        """Lp with Lp Lp^T = Sigma^-1, so (z-mu)^T Sigma^-1 (z-mu) = ||(z-mu) @ Lp||^2."""
        return np.linalg.cholesky(self.precision)

    @cached_property
    def log_norm(self) -> float:
        """-(D/2) log 2pi - (1/2) log det Sigma."""
        return float(-0.5 * self.dim * LOG_2PI - np.log(np.diag(self.chol)).sum())

    @cached_property
    def is_diagonal(self) -> bool:
        """True when the covariance is diagonal."""
        return bool(np.all(self.cov == np.diag(np.diag(self.cov))))

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        """Compute log N(z; mu, Sigma) = log_norm - ||(z - mu) Lp||^2 / 2, over the last axis.

        Reproducibility: for z of shape (B, ..., n, D) (3-D or more, as the schemes and
        kernels pass it: replicate rows first) the product is a *stacked* matmul, one
        (n, D) @ (D, D) BLAS call per leading index, whose shape does not depend on B; so
        row b's values do not depend on how many rows share the batch.  A 2-D z (n, D) is
        one (n, D) @ (D, D) product: BLAS may pick its kernel, and so its summation
        order, from n, and row values can then differ in the last bit between batch sizes;
        pass (n, 1, D) (or (R, C, D)) where that matters.
        """
        y = (np.asarray(z) - self.mean) @ self.prec_chol
        return self.log_norm - 0.5 * sqnorm(y)

    def grad_logpdf(self, z: np.ndarray) -> np.ndarray:
        """Compute grad_z log pi(z) = -(z - mu) Sigma^-1."""
        return -(np.asarray(z) - self.mean) @ self.precision

    def sample(self, rng: np.random.Generator, shape=()) -> np.ndarray:
        """Draw samples of shape ``(*shape, D)`` from one generator.

        This is not a batch-invariant path: the schemes draw from :class:`simulate.rng.Streams`
        instead.
        """
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        eps = rng.standard_normal((*shape, self.dim))
        return self.mean + eps @ self.chol.T

    def marginal_var(self) -> np.ndarray:
        """Return the marginal variances, the diagonal of the covariance."""
        return np.diag(self.cov).copy()


def isotropic(D: int, mean=0.0, sd: float = 1.0) -> Gaussian:
    """Build the isotropic target N(mean * 1, sd^2 I_D)."""
    return Gaussian(np.full(D, float(mean)), (sd ** 2) * np.eye(D), name=f"isotropic(D={D})")


def wishart_target(D: int, nu: int = 500, seed: int = 0) -> Gaussian:
    """Build the paper's target: Sigma ~ Wishart(D + nu, diag(1/D, ..., D/D)), mu ~ N(0, I).

    Kim et al. 2022, §6.2 ('full-rank covariances sampled from Wishart distribution with nu
    degrees of freedom'); the scale matrix and D + nu follow the authors' code as summarised in
    docs/methods.md §8.  One fixed target per (D, nu, seed).
    """
    if D < 1 or nu < 0:
        raise ValueError("need D >= 1 and nu >= 0")
    rng = np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(7919,))))
    scale = np.diag(np.arange(1, D + 1) / D)
    from scipy import stats

    cov = stats.wishart(df=D + nu, scale=scale).rvs(random_state=rng)
    cov = np.atleast_2d(cov)
    mean = rng.standard_normal(D)
    return Gaussian(mean, 0.5 * (cov + cov.T), name=f"wishart(D={D}, nu={nu}, seed={seed})")


@dataclass(frozen=True, eq=False)
class FiniteTarget:
    """A target on the finite space {0, ..., M-1}."""

    probs: np.ndarray
    name: str = field(default="finite")

    def __post_init__(self):
        """Check the probability vector and renormalise it."""
        p = np.asarray(self.probs, dtype=float)
        if p.ndim != 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError("probs must be a probability vector")
        object.__setattr__(self, "probs", p / p.sum())

    @property
    def size(self) -> int:
        """Number of states M."""
        return self.probs.size

    def logpdf(self, idx) -> np.ndarray:
        """Compute log pi at the states ``idx`` (-inf where pi is 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.probs)[np.asarray(idx)]

    def sample(self, rng: np.random.Generator, shape=()) -> np.ndarray:
        """Draw states of shape ``shape`` from one generator."""
        return rng.choice(self.size, size=shape, p=self.probs)
