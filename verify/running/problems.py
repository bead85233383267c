"""Test problems shared by the verifications: Gaussian targets with known w*.

* :func:`student_t_problem` — pi = N(0, I_D), q = mean-field Student-t (bounded score,
  001 Assumption 3 holds with L = sup ||s|| exactly); w* found by 1-d maximisations
  (log w separates over coordinates), chi2(pi || q) and mu = E_pi s by quadrature.
* :func:`gaussian_problem` — pi = N(0, I_D), q = N(0, s^2 I) mean-field Gaussian: w* = s^D
  in closed form, unbounded score (only moment forms apply).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simulate import divergences as dv
from simulate.families import MeanFieldGaussian, StudentT
from simulate.targets import isotropic


@dataclass(frozen=True)
class Problem:
    target: object
    family: MeanFieldGaussian | StudentT
    lam: np.ndarray
    log_w_star: float
    argmax: np.ndarray  # a state attaining w*
    L: float  # sup ||s|| (inf for Gaussian q)
    mu: np.ndarray  # E_pi s
    eq_s2: float  # E_q ||s||^2
    chi2: float
    w_star_accuracy: float = 0.0
    name: str = ""

    @property
    def w_star(self) -> float:
        return float(np.exp(self.log_w_star))

    @property
    def mu_norm(self) -> float:
        return float(np.linalg.norm(self.mu))

    @property
    def score_dim(self) -> int:
        return self.family.n_params


@lru_cache(maxsize=64)
def student_t_problem(D: int = 3, scale: float = 1.5, nu: float = 5.0, loc: float = 0.0) -> Problem:
    from scipy import integrate, optimize, stats  # imported when a problem is built (~1 s)

    target = isotropic(D)
    fam = StudentT(D, nu)
    lam = fam.init(loc, scale)

    def log_w1(z):  # one coordinate: log N(z; 0, 1) - log t_nu(z; loc, scale)
        return stats.norm.logpdf(z) - stats.t.logpdf(z, nu, loc=loc, scale=scale)

    grid = np.linspace(-12, 12, 48001)
    i = int(np.argmax(log_w1(grid)))
    res = optimize.minimize_scalar(lambda z: -log_w1(z),
                                   bracket=(grid[max(i - 1, 0)], grid[i],
                                            grid[min(i + 1, grid.size - 1)]),
                                   tol=1e-14)
    z1, lw1 = float(res.x), float(-res.fun)
    acc = abs(lw1 - float(log_w1(grid[i]))) if lw1 < log_w1(grid[i]) else 0.0
    # E_pi[w] per coordinate, chi2 = prod - 1
    e1 = integrate.quad(lambda z: np.exp(2 * stats.norm.logpdf(z)
                                         - stats.t.logpdf(z, nu, loc=loc, scale=scale)),
                        -np.inf, np.inf, epsabs=1e-14)[0]
    mu = fam.expected_score_gaussian(lam, np.zeros(D), np.ones(D))
    return Problem(target, fam, lam, D * lw1, np.full(D, z1), float(fam.score_bound(lam)), mu,
                   float(fam.expected_sq_score(lam)), float(e1 ** D - 1), D * acc,
                   f"pi = N(0, I_{D}), q = t_{nu:g}({loc:g}, {scale:g}) mean-field")


@lru_cache(maxsize=64)
def gaussian_problem(D: int = 3, scale: float = 1.5) -> Problem:
    if scale <= 1:
        raise ValueError("needs scale > 1 for w* < oo")
    target = isotropic(D)
    fam = MeanFieldGaussian(D)
    lam = fam.init(0.0, scale)
    m, var = fam.mean_cov(lam)
    lw = dv.log_w_star(target.mean, target.cov, m, var)
    mu = fam.expected_score_gaussian(lam, np.zeros(D), np.ones(D))
    return Problem(target, fam, lam, lw, np.zeros(D), np.inf, mu, float(fam.expected_sq_score(lam)),
                   dv.chi2(target.mean, target.cov, m, var), 0.0,
                   f"pi = N(0, I_{D}), q = N(0, {scale:g}^2 I)")


def fit_slope(x, y, se):
    """Weighted least squares of log y on log x with se of y: (slope, se of slope)."""
    x, y, se = map(np.asarray, (x, y, se))
    lx, ly = np.log(x), np.log(y)
    w = (y / np.maximum(se, 1e-300)) ** 2  # 1 / var(log y)
    X = np.stack([np.ones_like(lx), lx], 1)
    A = X.T @ (w[:, None] * X)
    beta = np.linalg.solve(A, X.T @ (w * ly))
    cov = np.linalg.inv(A)
    # inflate by the residual scatter when it exceeds the stated se (model misfit)
    resid = ly - X @ beta
    dof = max(len(x) - 2, 1)
    chi2 = float((w * resid ** 2).sum() / dof)
    return float(beta[1]), float(np.sqrt(cov[1, 1] * max(1.0, chi2)))


# ----------------------------------------------------------------------------- grid hooks
def gauss_pairs_override(grid: dict, overrides: dict) -> None:
    """``--dim`` / ``--proposal-scale`` set the isotropic Gaussian pairs ``gauss = [(D, s)]``
    of a claim's weight-line checks (every D with every s); a hook for
    :attr:`verify.model.Verification.adjust_grid`."""
    if "gauss" not in grid or not ({"dim", "proposal_scale"} & set(overrides)):
        return
    dims = overrides.get("dim") or sorted({d for d, *_ in grid["gauss"]})
    scales = overrides.get("proposal_scale") or sorted({s for _, s, *_ in grid["gauss"]})
    grid["gauss"] = [(int(d), float(s)) for d in dims for s in scales]


def gauss_pairs_check(grid: dict, overrides: dict) -> str | None:
    """Refuse pairs (D, s) whose w* = s^D is infinite or beyond double range (one line);
    a hook for :attr:`verify.model.Verification.check_overrides`."""
    import math

    pairs = grid.get("gauss") or []
    if not pairs:
        return None
    if "proposal_scale" in overrides:
        if min(overrides["proposal_scale"]) <= 1:
            return "--proposal-scale: values must be > 1 (w* = s^D is infinite otherwise)"
        dims = overrides.get("dim") or sorted({d for d, *_ in pairs})
        worst = max(dims) * math.log(max(overrides["proposal_scale"]))
        if worst > 700:
            return (f"--proposal-scale/--dim: w* = s^D must stay below 1e304 (D log s <= 700), got "
                    f"D log s = {worst:.4g}")
    elif "dim" in overrides:
        scales = sorted({s for _, s, *_ in pairs})
        worst = max(overrides["dim"]) * math.log(max(scales)) if scales else 0
        if worst > 700:
            return (f"--dim: w* = s^D must stay below 1e304 (D log s <= 700 with s = "
                    f"{max(scales):g}), got D = {max(overrides['dim'])}")
    return None
