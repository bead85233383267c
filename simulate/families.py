"""Variational families q(.; lambda) and the defensive mixture (001 §4.1).

Each family has ``sample`` (reparameterised: a function of drawn noise), ``logpdf``,
``score`` = grad_lambda log q (batched) and, where it exists, ``expected_sq_score`` =
E_q ||s||^2 in closed form.  Parameters are arrays ``(..., P)``; positions
``(..., n, D)`` when parameters are batched ``(R, P)``.

* :class:`MeanFieldGaussian` — lambda = (m, omega), sigma = softplus(omega) (the
  paper's choice, docs/methods.md §8) or exp(omega).  Unbounded score.
* :class:`FullRankGaussian` — lambda = (m, L) with L lower triangular, log-diagonal.
* :class:`StudentT` — mean-field Student-t location-scale with fixed degrees of freedom:
  a bounded score (docs/methods.md §4.1), with ``score_bound`` the exact sup ||s||.
* :class:`DefensiveMixture` — q_def = alpha q + (1 - alpha) nu with nu a multivariate t;
  kernels propose from q_def, the score uses plain q (001 §4.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mcsa_cli.lazy import lazy_module

special = lazy_module("scipy.special")  # at first use (~0.2 s)

LOG_2PI = float(np.log(2 * np.pi))


def _align(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Insert axes so a parameter piece (*batch, D) broadcasts against z (*batch, *extra, D)."""
    extra = z.ndim - x.ndim
    if extra <= 0:
        return x
    return x.reshape(x.shape[:-1] + (1,) * extra + x.shape[-1:])


def sqnorm(x: np.ndarray) -> np.ndarray:
    """||x||^2 over the last axis, per row.

    NumPy's own einsum loop, not BLAS: for contiguous rows the last axis is the inner
    loop (the output has stride 0 along it), and each row's sum is accumulated in an
    order fixed by D alone, with the same SIMD lanes whether the row is aligned or not; so
    a row's value depends neither on how many rows there are nor on where the row sits
    (BLAS ddot kernels of some older CPUs peel elements to align, which would make it
    depend on the row's address).
    """
    return np.einsum("...i,...i->...", x, x)


def _stack(M: np.ndarray, ndim: int) -> np.ndarray:
    """Insert batch axes before the last two axes of matrices M (*batch, D, D).

    Matrices M (*batch, D, D) with axes inserted before the last two, so that
    ``x @ _stack(M, x.ndim)`` for x (*batch, *extra, n, D) is a stacked product: one
    (n, D) @ (D, D) matmul per batch entry, a shape independent of the batch size.
    """
    return M.reshape(M.shape[:-2] + (1,) * max(0, ndim - M.ndim) + M.shape[-2:])


def _softplus(x):
    """log(1 + e^x), stable; (np.logaddexp is ~6x slower on this hot path)."""
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _softplus_and_sigmoid(x):
    """softplus(x) and its derivative sigmoid(x), sharing exp(-|x|)."""
    a = np.exp(-np.abs(x))
    sp = np.maximum(x, 0.0) + np.log1p(a)
    inv = 1.0 / (1.0 + a)
    sig = np.where(x >= 0, inv, a * inv)
    return sp, sig


def _softplus_inv(y):
    y = np.asarray(y, dtype=float)
    return y + np.log(-np.expm1(-y))


@dataclass(frozen=True)
class MeanFieldGaussian:
    """q(z; m, omega) = prod_d N(z_d; m_d, sigma_d^2), sigma = softplus(omega) or exp(omega)."""

    dim: int
    scale: str = "softplus"

    def __post_init__(self):
        """Refuse a scale other than ``"softplus"`` or ``"log"``."""
        if self.scale not in ("softplus", "log"):
            raise ValueError("scale is 'softplus' or 'log'")

    @property
    def n_params(self) -> int:
        """Number of variational parameters, 2 D (means and scales)."""
        return 2 * self.dim

    def init(self, mean=0.0, sd=1.0) -> np.ndarray:
        """Return lambda for the given means and standard deviations."""
        m = np.broadcast_to(np.asarray(mean, float), (self.dim,))
        s = np.broadcast_to(np.asarray(sd, float), (self.dim,))
        om = _softplus_inv(s) if self.scale == "softplus" else np.log(s)
        return np.concatenate([m, om])

    def unpack(self, lam):
        """Split lambda (..., 2D) into m, sigma and d sigma / d omega."""
        lam = np.asarray(lam, dtype=float)
        m, om = lam[..., : self.dim], lam[..., self.dim:]
        if self.scale == "softplus":
            sp, dsp = _softplus_and_sigmoid(om)
            return m, sp, dsp
        sig = np.exp(om)
        return m, sig, sig

    def noise_spec(self, prefix: tuple) -> dict:
        """Name the random primitives of samples ``(*prefix, D)``: ``{name: (kind, shape)}``."""
        return {"eps": ("normal", (*prefix, self.dim))}

    def sample(self, lam, noise) -> np.ndarray:
        """Draw z = m + sigma eps from the noise ``{"eps": ...}`` (a reparameterised sample)."""
        m, sig, _ = self.unpack(lam)
        eps = noise["eps"]
        return _align(m, eps) + _align(sig, eps) * eps

    def logpdf(self, lam, z) -> np.ndarray:
        """Compute log q(z; lambda), over the last axis."""
        m, sig, _ = self.unpack(lam)
        e = (z - _align(m, z)) / _align(sig, z)
        logdet = np.log(sig).sum(-1)
        logdet = logdet.reshape(logdet.shape + (1,) * max(0, z.ndim - m.ndim))
        return -0.5 * sqnorm(e) - logdet - 0.5 * self.dim * LOG_2PI

    def score(self, lam, z) -> np.ndarray:
        """Compute the score s(z; lambda) = grad_lambda log q(z; lambda) (Kim et al. 2022, §2.1)."""
        m, sig, dsig = self.unpack(lam)
        sa = _align(sig, z)
        e = (z - _align(m, z)) / sa
        return np.concatenate([e / sa, (e * e - 1.0) / sa * _align(dsig, z)], axis=-1)

    def expected_sq_score(self, lam) -> np.ndarray:
        """E_q ||s||^2 = sum_d (1 + 2 (dsigma/domega)^2) / sigma_d^2."""
        _, sig, dsig = self.unpack(lam)
        return ((1.0 + 2.0 * dsig ** 2) / sig ** 2).sum(-1)

    def score_bound(self, lam) -> float:
        """Return sup_z ||s(z; lambda)|| (Kim et al. 2022, Assumption 3): infinite here."""
        return np.inf

    def expected_score_gaussian(self, lam, mean, var) -> np.ndarray:
        """Compute mu = E_pi s for a target with marginal means ``mean`` and variances ``var``."""
        m, sig, dsig = self.unpack(lam)
        d = mean - m
        return np.concatenate([d / sig ** 2, ((var + d * d) / sig ** 2 - 1.0) / sig * dsig],
                              axis=-1)

    def mean_cov(self, lam):
        """Return the mean and the marginal variances of q(lambda)."""
        m, sig, _ = self.unpack(lam)
        return m, sig ** 2


@dataclass(frozen=True)
class FullRankGaussian:
    """q = N(m, L L^T), L lower triangular with diagonal exp(l_ii) (Cholesky parameterisation)."""

    dim: int

    @property
    def n_params(self) -> int:
        """Number of variational parameters: D means and D (D + 1) / 2 Cholesky entries."""
        return self.dim + self.dim * (self.dim + 1) // 2

    @property
    def _tril(self):
        return np.tril_indices(self.dim)

    def init(self, mean=0.0, chol=None) -> np.ndarray:
        """Return lambda for the given mean and lower Cholesky factor (identity by default)."""
        m = np.broadcast_to(np.asarray(mean, float), (self.dim,))
        L = np.eye(self.dim) if chol is None else np.asarray(chol, float)
        Lp = L.copy()
        Lp[np.diag_indices(self.dim)] = np.log(np.diag(L))
        return np.concatenate([m, Lp[self._tril]])

    def unpack(self, lam):
        """Split lambda into m and the lower Cholesky factor L (positive diagonal)."""
        lam = np.asarray(lam, dtype=float)
        D = self.dim
        m = lam[..., :D]
        L = np.zeros(lam.shape[:-1] + (D, D))
        L[(..., *self._tril)] = lam[..., D:]
        di = np.arange(D)
        L[..., di, di] = np.exp(L[..., di, di])
        return m, L

    def noise_spec(self, prefix: tuple) -> dict:
        """Name the random primitives of a sample: standard normals of shape ``(*prefix, D)``."""
        return {"eps": ("normal", (*prefix, self.dim))}

    # Reproducibility: every product below is a *stacked* matmul whose per-call shape is
    # fixed by the parameters' batch shape: a (n, D) @ (D, D) product for each replicate
    # row (and each chain), never one (R n, D) @ (D, D) product whose BLAS kernel, and so
    # summation order, would depend on R.  Inverses are per-matrix LAPACK calls of shape
    # (D, D).  So a row's numbers do not depend on how many rows share the batch.

    def sample(self, lam, noise):
        """Draw z = m + L eps from the noise ``{"eps": ...}`` (a reparameterised sample)."""
        m, L = self.unpack(lam)
        eps = noise["eps"]
        one = eps.ndim == m.ndim  # one sample per parameter row
        e = eps[..., None, :] if one else eps
        z = e @ _stack(np.swapaxes(L, -1, -2), e.ndim)  # z = L eps, per row
        z = z[..., 0, :] if one else z
        return _align(m, z) + z

    def _whiten(self, lam, z):
        """m, L, L^-1 and eps = L^-1 (z - m)."""
        m, L = self.unpack(lam)
        Linv = np.linalg.inv(L)
        r = z - _align(m, z)
        one = z.ndim == m.ndim
        r = r[..., None, :] if one else r
        eps = r @ _stack(np.swapaxes(Linv, -1, -2), r.ndim)
        return m, L, Linv, (eps[..., 0, :] if one else eps)

    def logpdf(self, lam, z):
        """Compute log q(z; lambda), over the last axis."""
        m, L, _, eps = self._whiten(lam, z)
        logdet = np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(-1)
        if z.ndim > m.ndim:
            logdet = logdet.reshape(logdet.shape + (1,) * (z.ndim - m.ndim))
        return -0.5 * (eps * eps).sum(-1) - logdet - 0.5 * self.dim * LOG_2PI

    def score(self, lam, z):
        """Compute the score of a full-rank Gaussian.

        d log q / dm = L^-T eps; d log q / dL = tril(L^-T eps eps^T - L^-T), the
        diagonal times L_ii (log-diagonal parameterisation).
        """
        m, L, Linv, eps = self._whiten(lam, z)
        one = z.ndim == m.ndim
        e = eps[..., None, :] if one else eps
        sm = e @ _stack(Linv, e.ndim)  # (L^-T eps)_i = sum_j Linv_ji eps_j
        sm = sm[..., 0, :] if one else sm
        A = np.swapaxes(Linv, -1, -2)  # L^-T
        extra = z.ndim - m.ndim
        A = A.reshape(A.shape[:-2] + (1,) * extra + A.shape[-2:])
        G = sm[..., :, None] * eps[..., None, :] - A
        di = np.arange(self.dim)
        Ld = np.diagonal(L, axis1=-2, axis2=-1)
        Ld = Ld.reshape(Ld.shape[:-1] + (1,) * extra + Ld.shape[-1:])
        G[..., di, di] = G[..., di, di] * Ld
        return np.concatenate([sm, G[(..., *self._tril)]], axis=-1)

    def expected_sq_score(self, lam):
        """Return tr(Sigma^-1) + sum_{i>=j} [sum_k A_ik^2 + A_ij^2], A = L^-T.

        The sum's diagonal terms are multiplied by L_jj^2.
        """
        m, L = self.unpack(lam)
        A = np.swapaxes(np.linalg.inv(L), -1, -2)
        rows = (A * A).sum(-1)  # sum_k A_ik^2
        E = rows[..., :, None] + A * A
        di = np.arange(self.dim)
        E[..., di, di] *= np.diagonal(L, axis1=-2, axis2=-1) ** 2
        i, j = self._tril
        return (A * A).sum((-2, -1)) + E[..., i, j].sum(-1)

    def score_bound(self, lam) -> float:
        """Return sup_z ||s(z; lambda)|| (Kim et al. 2022, Assumption 3): infinite here."""
        return np.inf

    def mean_cov(self, lam):
        """Return the mean and the covariance L L^T of q(lambda)."""
        m, L = self.unpack(lam)
        return m, L @ np.swapaxes(L, -1, -2)


@dataclass(frozen=True)
class StudentT:
    """Mean-field Student-t location-scale, df ``nu`` fixed: z_d = m_d + sigma_d t_d."""

    dim: int
    nu: float = 5.0
    scale: str = "softplus"

    @property
    def n_params(self) -> int:
        """Number of variational parameters, 2 D (locations and scales)."""
        return 2 * self.dim

    def init(self, mean=0.0, sd=1.0):
        """Return lambda for the given locations and scales."""
        return MeanFieldGaussian(self.dim, self.scale).init(mean, sd)

    def unpack(self, lam):
        """Split lambda into location, scale and d scale / d omega."""
        return MeanFieldGaussian(self.dim, self.scale).unpack(lam)

    def noise_spec(self, prefix: tuple) -> dict:
        """Name the random primitives of a sample: standard normals and gamma variates."""
        return {"eps": ("normal", (*prefix, self.dim)),
                "gam": (f"gamma:{self.nu / 2}", (*prefix, self.dim))}

    def sample(self, lam, noise):
        """Draw a Student-t sample from standard normals and gamma variates (reparameterised)."""
        m, sig, _ = self.unpack(lam)
        t = noise["eps"] * np.sqrt(self.nu / (2.0 * noise["gam"]))
        return _align(m, t) + _align(sig, t) * t

    def logpdf(self, lam, z):
        """Compute log q(z; lambda), over the last axis."""
        m, sig, _ = self.unpack(lam)
        y = (z - _align(m, z)) / _align(sig, z)
        nu = self.nu
        c = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
        return (c - np.log(_align(sig, z)) - 0.5 * (nu + 1) * np.log1p(y * y / nu)).sum(-1)

    def score(self, lam, z):
        """Compute the score s(z; lambda) = grad_lambda log q(z; lambda) (Kim et al. 2022, §2.1)."""
        m, sig, dsig = self.unpack(lam)
        sa = _align(sig, z)
        y = (z - _align(m, z)) / sa
        nu = self.nu
        den = nu + y * y
        return np.concatenate([(nu + 1) * y / (sa * den),
                               ((nu + 1) * y * y / den - 1.0) / sa * _align(dsig, z)], axis=-1)

    def expected_sq_score(self, lam):
        """Fisher information of the t location-scale: (nu+1)/((nu+3) s^2) and 2 nu/((nu+3) s^2)."""
        _, sig, dsig = self.unpack(lam)
        nu = self.nu
        return (((nu + 1) + 2 * nu * dsig ** 2) / ((nu + 3) * sig ** 2)).sum(-1)

    def score_bound(self, lam) -> np.ndarray:
        """L = sup_z ||s(lambda; z)||, exactly.

        Per coordinate, with x = y^2/(nu + y^2) in [0, 1):
        ||s_d||^2 = A x (1 - x) + C ((nu+1) x - 1)^2, A = (nu+1)^2/(nu sigma^2),
        C = (dsigma/domega)^2/sigma^2: a quadratic in x, maximised over [0, 1] at an
        end point or at its vertex.  Coordinates vary independently, so L^2 is the sum.
        """
        _, sig, dsig = self.unpack(lam)
        nu = self.nu
        A = (nu + 1) ** 2 / (nu * sig ** 2)
        C = dsig ** 2 / sig ** 2
        f = lambda x: A * x * (1 - x) + C * ((nu + 1) * x - 1) ** 2  # noqa: E731
        a2 = -A + C * (nu + 1) ** 2  # coefficient of x^2
        a1 = A - 2 * C * (nu + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            xv = np.where(a2 < 0, np.clip(-a1 / (2 * a2), 0, 1), 0.0)
        best = np.maximum(np.maximum(f(0.0), f(1.0)), f(xv))
        return np.sqrt(best.sum(-1))

    def expected_score_gaussian(self, lam, mean, var, order: int = 160) -> np.ndarray:
        """Compute mu = E_pi s for Gaussian target marginals (Gauss-Hermite, order 160)."""
        m, sig, dsig = self.unpack(lam)
        x, wts = np.polynomial.hermite_e.hermegauss(order)
        wts = wts / wts.sum()
        z = mean[..., None] + np.sqrt(var)[..., None] * x  # (..., D, K)
        y = (z - m[..., None]) / sig[..., None]
        nu = self.nu
        den = nu + y * y
        # (..., D, K) @ (K,): one (D, K) @ (K,) product per leading index (stacked)
        sm = ((nu + 1) * y / (sig[..., None] * den)) @ wts
        ss = (((nu + 1) * y * y / den - 1.0) / sig[..., None] * dsig[..., None]) @ wts
        return np.concatenate([sm, ss], axis=-1)

    def mean_cov(self, lam):
        """Return the location and the marginal variances (infinite for nu <= 2)."""
        m, sig, _ = self.unpack(lam)
        if self.nu <= 2:
            return m, np.full_like(sig, np.inf)
        return m, sig ** 2 * self.nu / (self.nu - 2)


@dataclass(frozen=True)
class MultivariateT:
    """Fixed heavy-tailed component nu(z) = t_df(loc, scale^2 I) of the defensive mixture."""

    dim: int
    df: float = 3.0
    loc: float | np.ndarray = 0.0
    scale: float = 1.0

    def noise_spec(self, prefix: tuple) -> dict:
        """Name the random primitives of a sample: normals, one gamma variate per sample."""
        return {"nu_eps": ("normal/nu", (*prefix, self.dim)),
                "nu_gam": (f"gamma:{self.df / 2}/nu", prefix)}

    def sample_from(self, noise):
        """Draw a multivariate t sample from the noise."""
        g = noise["nu_gam"][..., None]
        return self.loc + self.scale * noise["nu_eps"] * np.sqrt(self.df / (2.0 * g))

    def logpdf(self, z):
        """Compute the multivariate t log density, over the last axis."""
        D, nu = self.dim, self.df
        y2 = (((z - self.loc) / self.scale) ** 2).sum(-1)
        return (special.gammaln((nu + D) / 2) - special.gammaln(nu / 2)
                - 0.5 * D * np.log(nu * np.pi)
                - D * np.log(self.scale) - 0.5 * (nu + D) * np.log1p(y2 / nu))


@dataclass(frozen=True)
class DefensiveMixture:
    """q_def(z; lambda) = alpha q(z; lambda) + (1 - alpha) nu(z) (Kim et al. 2022, §4.1).

    The defensive mixture of Hesterberg (1995).

    Used as the kernels' proposal; the gradient still uses the score of plain q.
    """

    family: Any  # a variational family (duck-typed: dim, noise_spec, sample, logpdf, score)
    alpha: float = 0.9
    heavy: MultivariateT | None = None

    def __post_init__(self):
        """Check 0 < alpha < 1 and default the heavy component to a multivariate t."""
        if not 0 < self.alpha < 1:
            raise ValueError("0 < alpha < 1 required")
        if self.heavy is None:
            object.__setattr__(self, "heavy", MultivariateT(self.family.dim))

    @property
    def dim(self) -> int:
        """Dimension D of the samples."""
        return self.family.dim

    def noise_spec(self, prefix: tuple) -> dict:
        """Name the random primitives of a sample: the family's, the heavy component's, a pick."""
        return {**self.family.noise_spec(prefix), **self.heavy.noise_spec(prefix),  # type: ignore[union-attr]
                "pick": ("uniform/mix", prefix)}  # (heavy is set in __post_init__)

    def sample(self, lam, noise):
        """Draw from the family with probability alpha, else from the heavy component."""
        zq = self.family.sample(lam, noise)
        assert self.heavy is not None  # set in __post_init__
        zn = self.heavy.sample_from(noise)
        return np.where((noise["pick"] < self.alpha)[..., None], zq, zn)

    def logpdf(self, lam, z):
        """Compute log(alpha q(z; lambda) + (1 - alpha) t(z)), over the last axis."""
        assert self.heavy is not None  # set in __post_init__
        return np.logaddexp(np.log(self.alpha) + self.family.logpdf(lam, z),
                            np.log1p(-self.alpha) + self.heavy.logpdf(z))
