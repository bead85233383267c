"""Exact TV mixing curves of IMH and CIS / i-SIR for an isotropic Gaussian pair.

Target ``pi = N(0, I_D)``, proposal ``q = N(0, s^2 I_D)`` with ``s > 1``.  Both kernels
depend on the states only through the normalised importance weight
``w(z) = pi(z) / q(z)``, so the weight process is itself a Markov chain on
``(0, w*]`` (the "weight line", ``docs/methods.md`` §2) and, ``pi_W`` having
no atoms, ``TV(K^k(z, .), pi)`` equals the TV of the weight chain started at ``w(z)``.

Coordinates.  ``log W = D log s - c X`` with ``c = (1 - 1/s^2) / 2``, ``X = ||Z||^2``;
``X ~ chi2_D`` under ``pi`` and ``X / s^2 ~ chi2_D`` under ``q``.  Everything is computed
in ``x`` (or ``rho = sqrt(x) = ||Z||``) and in log-weights, so ``w* = s^D`` may exceed
the float range (``D log s > 709``; then ``w_star`` is ``inf`` and ``log_w_star`` is used).

IMH (:func:`imh_tv`).  Smith & Tierney's (1996) n-step kernel, as quoted by Kim et al.
(NeurIPS 2022, "Markov Chain Score Ascent"; "001" below) Eqs. (2)-(3):
``K^n(z, dz') = T_n(w(z) v w(z')) pi(dz') + lambda(w(z))^n delta_z(dz')``
(``v`` = max) with ``T_n(w) = int_w^oo n/v^2 lambda(v)^(n-1) dv`` and -- correcting the
printed Eq. (3), which integrates against ``pi`` -- ``lambda(v) = int_{w <= v}(1 - w/v) q(dz)``
``= P_q(W <= v) - P_pi(W <= v)/v``, the rejection probability at weight ``v``
(``finite.smith_tierney_power`` with ``lam_measure='q'`` reproduces exact matrix powers,
``'pi'`` does not).  For ``v >= w*``, ``lambda = 1 - 1/v``, so
``int_{w*}^oo = 1 - r^n``; with ``g_n(y) = n c e^(c y) lambda(y)^(n-1) / w*`` (``y`` the
x-coordinate of ``v``), ``T_n = (1 - r^n) + I_n(x)``, ``I_n(x) = int_0^x g_n``.  Let
``x1`` solve ``I_n(x1) = r^n`` (i.e. ``T_n = 1``; none if ``T_n(w0) <= 1``) and
``x_m = min(x0, x1)``.  Integrating by parts,

    TV_n(w0) = int (1 - T_n(max(w0, v)))_+ pi_W(dv)
             = (r^n - I_n(x_m)) + int_0^{x_m} g_n F = r^n - int_0^{x_m} g_n S,

``F = P(chi2_D <= .)``, ``S = 1 - F``.  The F-form has no cancellation for small TV,
the S-form none for ``1 - TV`` (``log_one_minus_tv``).  ``int_0^{x0} g_n S = r^n -
lambda(w0)^n`` (total mass of ``K^n``) is equivalent to the second formula
``TV = (1/2)[int |T_n - 1| dpi_W + lambda(w0)^n]``; both are evaluated and their gap
enters the reported error.  At ``w0 = w*``, ``TV_n = r^n`` (Wang 2022) exactly.
Note that TV_n does not depend on w0 once ``T_n(w0) >= 1`` (all such starts have the
same positive part ``(1 - T_n(v))_+``, supported on ``v > w(x1)``).

CIS / i-SIR (:func:`cis_tv`), ``docs/methods.md`` §2: with ``phi(t) = E_q exp(-t W)``,
``K_W(u, dv) = rho(u) delta_u(dv) + h(u, v) pi_W(dv)``,
``h(u, v) = (N-1) int_0^oo e^(-t(u+v)) phi(t)^(N-2) dt``,
``rho(u) = u int_0^oo e^(-t u) phi(t)^(N-1) dt``  (``= 1 - int h(u, .) dpi_W``).
The t-integrals use ``t = e^theta`` and the trapezoid rule in ``theta`` (the integrand
``exp(theta - a e^theta)`` is analytic in the strip ``|Im theta| < pi/2``: error
``~ e^(-pi^2/h)``, below 1e-15 for ``h = 0.25``); since ``h`` depends on ``u + v`` only,
``e^(-t(u+v)) = e^(-tu) e^(-tv)`` turns the kernel matrix into one matrix product.
``phi`` itself is a 1-d integral over the q-law (:func:`_log1m_phi`).  The k-step law
(atom ``a_k`` at the start plus a density ``f_k`` w.r.t. ``pi_W``) is propagated by a
Nystrom scheme on composite Gauss-Legendre nodes in ``rho = ||Z||`` (``f_k`` is smooth
in ``rho``); ``int |f_k - 1| dpi_W``, which has kinks where ``f_k = 1``, is integrated
with the panel interpolants of ``f_k`` on a 16x finer composite rule.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import numpy as np

from mcsa_cli.lazy import lazy_module

integrate = lazy_module("scipy.integrate")  # at first use
special = lazy_module("scipy.special")

__all__ = [
    "IsotropicPair",
    "TVResult",
    "isotropic_pair",
    "start_log_weight",
    "imh_tv",
    "cis_tv",
    "imh_lambda",
    "imh_log_lambda",
    "imh_T",
    "discretise",
    "log1mexp",
]

#: pi-mass left out on each side of the Nystrom node range (CIS)
_TAIL = 1e-15
#: default number of Nystrom nodes (CIS); the error estimate also runs 2 * grid
DEFAULT_GRID = 512
#: Gauss-Legendre nodes per panel (CIS nodes and the phi quadrature)
_GL_PER_PANEL = 8
#: trapezoid step in theta = log t (CIS)
_THETA_STEP = 0.25
#: sub-panels of the fine rule used for int |f_k - 1| dpi (CIS)
_FINE_SUB = 16


# ----------------------------------------------------------------------------- helpers
def log1mexp(a):
    """log(1 - e^a) for a <= 0, accurate for all a (Maechler 2012).

    Parameters
    ----------
    a : array_like
        a <= 0.

    Returns
    -------
    numpy.ndarray
        log(1 - e^a).
    """
    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > -math.log(2.0), np.log(-np.expm1(a)), np.log1p(-np.exp(a)))


def _log_gammaincc_cf(a, z):
    """Compute log Q(a, z) by Legendre's continued fraction (for z > a + 1, where it converges)."""
    # modified Lentz, fixed number of iterations (vectorised over z)
    tiny = 1e-300
    b = z + 1.0 - a
    C = np.full_like(z, 1.0 / tiny)
    Dd = 1.0 / b
    f = Dd.copy()
    for i in range(1, 400):
        an = -i * (i - a)
        b = b + 2.0
        Dd = an * Dd + b
        Dd = np.where(np.abs(Dd) < tiny, tiny, Dd)
        C = b + an / C
        C = np.where(np.abs(C) < tiny, tiny, C)
        Dd = 1.0 / Dd
        delta = C * Dd
        f = f * delta
        if np.all(np.abs(delta - 1.0) < 1e-16):
            break
    return -z + a * np.log(z) - special.gammaln(a) + np.log(f)


def _log_gammainc_series(a, z):
    """Compute log P(a, z) by the power series (for z < a + 1)."""
    term = np.ones_like(z) / a
    total = term.copy()
    for n in range(1, 2000):
        term = term * z / (a + n)
        total = total + term
        if np.all(term < total * 1e-17):
            break
    return -z + a * np.log(z) - special.gammaln(a) + np.log(total)


def _log_chi2_tail(x, D, upper):
    """Compute log P(chi2_D > x) (``upper``) or log P(chi2_D <= x) without underflow (x >= 0).

    The wanted tail T is read as log1p(-C) of its complement C while C < 1/2, else as log T;
    where T underflows, from the continued fraction (upper) or the series (lower) in logs.
    """
    x = np.asarray(x, dtype=float)
    xs = np.atleast_1d(x)
    a, z = 0.5 * D, 0.5 * xs
    P = special.gammainc(a, z)
    Q = special.gammaincc(a, z)
    T, C = (Q, P) if upper else (P, Q)
    with np.errstate(divide="ignore"):
        out = np.where(C < 0.5, np.log1p(-C), np.log(T))
    bad = (T <= 1e-290) & (C >= 0.5) & (np.isfinite(z) if upper else (z > 0))
    if np.any(bad):
        out[bad] = (_log_gammaincc_cf if upper else _log_gammainc_series)(a, z[bad])
    return out.reshape(x.shape)


def _log_chi2_sf(x, D):
    """Compute log P(chi2_D > x), vectorised, no underflow (x >= 0)."""
    return _log_chi2_tail(x, D, upper=True)


def _log_chi2_cdf(x, D):
    """Compute log P(chi2_D <= x), vectorised, no underflow (x >= 0; -inf at x = 0)."""
    return _log_chi2_tail(x, D, upper=False)


def _chi2_quantile(p, D, upper=False):
    """Find x with P(chi2_D <= x) = p (or P(chi2_D > x) = p if upper), accurate in both tails."""
    p = np.asarray(p, dtype=float)
    a = 0.5 * D
    if upper:
        return 2.0 * np.where(p < 0.5, special.gammainccinv(a, p), special.gammaincinv(a, 1.0 - p))
    return 2.0 * np.where(p < 0.5, special.gammaincinv(a, p), special.gammainccinv(a, 1.0 - p))


def _log_diff(log_hi, log_lo):
    """log(e^log_hi - e^log_lo) for log_hi >= log_lo."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return log_hi + log1mexp(np.minimum(log_lo - log_hi, 0.0))


def _gauss_panels(edges, m):
    """Composite Gauss-Legendre nodes/weights on consecutive intervals ``edges``."""
    t, wt = np.polynomial.legendre.leggauss(m)
    lo, hi = edges[:-1, None], edges[1:, None]
    nodes = 0.5 * (hi + lo) + 0.5 * (hi - lo) * t[None, :]
    weights = 0.5 * (hi - lo) * wt[None, :]
    return nodes.ravel(), weights.ravel()


# ----------------------------------------------------------------------------- the pair
@dataclass(frozen=True)
class IsotropicPair:
    """Law of the weight ``W = pi(Z)/q(Z)`` for ``pi = N(0, I_D)``, ``q = N(0, s^2 I_D)``.

    ``log W = D log s - c X``, ``c = (1 - 1/s^2)/2``, ``X ~ chi2_D`` under pi and
    ``X/s^2 ~ chi2_D`` under q.  All functions take and return log-weights.

    Parameters
    ----------
    D : int
        The dimension, D >= 1.
    s : float
        The proposal's scale, s > 1.
    """

    D: int
    s: float

    def __post_init__(self):
        """Check D >= 1 integer and s > 1."""
        _check_D_s(self.D, self.s)

    @property
    def log_w_star(self) -> float:
        """Log of w* = s^D: D log s."""
        return self.D * math.log(self.s)

    @property
    def w_star(self) -> float:
        """w* = s^D (inf when beyond the float range)."""
        return math.exp(self.log_w_star) if self.log_w_star < 709.0 else math.inf

    @property
    def c(self) -> float:
        """The constant c = (1 - 1/s^2)/2 of log W = log w* - c ||Z||^2."""
        return 0.5 * (-math.expm1(-2.0 * math.log(self.s)))

    @property
    def log_r(self) -> float:
        """Log of r = 1 - 1/w*, accurate for any w* (r^n = exp(n log_r))."""
        return float(log1mexp(-self.log_w_star))

    def x_of(self, log_v):
        """Compute x = ||Z||^2 of the states with log-weight log_v (negative above w*)."""
        return (self.log_w_star - np.asarray(log_v, dtype=float)) / self.c

    def log_v_of(self, x):
        """log-weight of the states with ||Z||^2 = x."""
        return self.log_w_star - self.c * np.asarray(x, dtype=float)

    def log_cdf_pi(self, log_v) -> np.ndarray:
        """Compute log P_pi(W <= v), vectorised over log_v."""
        x = self.x_of(log_v)
        return np.where(x <= 0, 0.0, _log_chi2_sf(np.maximum(x, 0.0), self.D))

    def log_cdf_q(self, log_v) -> np.ndarray:
        """Compute log P_q(W <= v), vectorised over log_v."""
        x = self.x_of(log_v)
        return np.where(x <= 0, 0.0, _log_chi2_sf(np.maximum(x, 0.0) / self.s ** 2, self.D))

    def log_sf_pi(self, log_v) -> np.ndarray:
        """Compute log P_pi(W > v)."""
        x = self.x_of(log_v)
        with np.errstate(divide="ignore"):
            return np.where(x <= 0, -np.inf, _log_chi2_cdf(np.maximum(x, 0.0), self.D))

    def log_sf_q(self, log_v) -> np.ndarray:
        """Compute log P_q(W > v)."""
        x = self.x_of(log_v)
        with np.errstate(divide="ignore"):
            return np.where(x <= 0, -np.inf,
                            _log_chi2_cdf(np.maximum(x, 0.0) / self.s ** 2, self.D))

    def log_quantile_pi(self, p) -> np.ndarray:
        """Compute the log of the p-quantile of W under pi (p in (0, 1))."""
        p = np.asarray(p, dtype=float)
        # P_pi(W <= v) = P(chi2_D >= x_v) = p
        return self.log_v_of(_chi2_quantile(p, self.D, upper=True))


def _check_D_s(D, s):
    _check_int(D, "D", 1)
    if isinstance(D, bool):
        raise ValueError(f"D must be an integer >= 1, got {D!r}")
    try:
        sf = float(s)
    except (TypeError, ValueError):
        raise ValueError(f"s must be a real number > 1, got {s!r}") from None
    if not (math.isfinite(sf) and sf > 1.0):
        raise ValueError(f"s must be finite and > 1 (s <= 1 gives w* = inf), got {s!r}")


def isotropic_pair(D: int, s: float) -> IsotropicPair:
    """Build the pair pi = N(0, I_D), q = N(0, s^2 I_D); ValueError unless D >= 1 integer, s > 1.

    Parameters
    ----------
    D : int
        The dimension.
    s : float
        The proposal's scale.

    Returns
    -------
    IsotropicPair
    """
    _check_D_s(D, s)
    return IsotropicPair(operator.index(D), float(s))


def start_log_weight(pair: IsotropicPair, start: str) -> float:
    """Compute log w(z0) of a named start.

    ``"worst"``: argmax w, log w0 = log w*; ``"typical"``: ``"quantile:0.5"``;
    ``"quantile:Q"`` (0 < Q < 1): the state whose weight is the Q-quantile of w(Z),
    Z ~ pi (small Q = low weight).

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    start : str
        ``"worst"``, ``"typical"`` or ``"quantile:Q"``.

    Returns
    -------
    float
        log w(z0).
    """
    if not isinstance(start, str):
        raise ValueError(
            f"start must be a string ('worst', 'typical', 'quantile:Q'), got {start!r}")
    key = start.strip().lower()
    if key == "worst":
        return pair.log_w_star
    if key == "typical":
        key = "quantile:0.5"
    if key.startswith("quantile:"):
        try:
            Q = float(key.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad quantile in start {start!r}") from None
        if not (0.0 < Q < 1.0):
            raise ValueError(f"start quantile must be in (0, 1), got {start!r}")
        return float(pair.log_quantile_pi(Q))
    raise ValueError(f"unknown start {start!r} (use 'worst', 'typical' or 'quantile:Q')")


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class TVResult:
    """Total-variation curve ``tv[k-1] = TV(K^k(z0, .), pi)``, k = 1..steps.

    ``error_bound``: max abs error of the entries of ``tv``; ``method`` says whether it
    is a rigorous bound or an a-posteriori estimate.  ``log_one_minus_tv`` (IMH only)
    is ``log(1 - tv)`` computed without cancellation, so that curves indistinguishable
    from 1.0 in float (e.g. ``r^n`` for ``w* = 1e301``) still carry information.

    Parameters
    ----------
    tv : numpy.ndarray
        The curve.
    error_bound : float
        Max abs error of its entries.
    w_star, log_w_star : float
        w* and log w* of the pair.
    log_w0 : float
        The start's log weight.
    method : str
        How the curve was computed, and whether ``error_bound`` is rigorous.
    log_one_minus_tv : numpy.ndarray, optional
        IMH only: ``log(1 - tv)``.
    """

    tv: np.ndarray
    error_bound: float
    w_star: float
    log_w_star: float
    log_w0: float
    method: str
    log_one_minus_tv: np.ndarray | None = field(default=None, compare=False)


def _check_int(value, name: str, least: int, too_small: str | None = None) -> int:
    """Read ``value`` as an int >= ``least``.

    ``value`` as an int >= ``least``; ValueError otherwise (``too_small``: the message for
    an integer below ``least``, default the same as for a non-integer).
    """
    msg = f"{name} must be an integer >= {least}, got {value!r}"
    try:
        k = operator.index(value)
    except TypeError:
        raise ValueError(msg) from None
    if k < least:
        raise ValueError(too_small or msg)
    return k


def _check_steps(steps):
    return _check_int(steps, "steps", 1)


def _check_log_w0(pair, log_w0):
    lw = float(log_w0)
    if not math.isfinite(lw):
        raise ValueError(f"log_w0 must be finite, got {log_w0!r}")
    tol = 1e-12 * max(1.0, abs(pair.log_w_star))
    if lw > pair.log_w_star + tol:
        raise ValueError(f"log_w0 = {lw} exceeds log w* = {pair.log_w_star}")
    return min(lw, pair.log_w_star)


# ----------------------------------------------------------------------------- IMH
def _log_lambda_x(pair: IsotropicPair, x):
    """Compute log lambda at x-coordinates x >= 0: lambda = P_q(W <= v) - P_pi(W <= v)/v."""
    x = np.asarray(x, dtype=float)
    log_Qq = _log_chi2_sf(x / pair.s ** 2, pair.D)
    log_Qp = _log_chi2_sf(x, pair.D)
    log_ratio = log_Qp + pair.c * x - pair.log_w_star - log_Qq
    return log_Qq + log1mexp(np.minimum(log_ratio, 0.0))


def imh_log_lambda(pair: IsotropicPair, log_v) -> np.ndarray:
    """Compute log lambda(v) (see :func:`imh_lambda`).

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    log_v : array_like
        log v.

    Returns
    -------
    numpy.ndarray
        log lambda(v).
    """
    log_v = np.asarray(log_v, dtype=float)
    x = pair.x_of(log_v)
    above = log1mexp(-np.maximum(log_v, 1e-300))  # log(1 - 1/v) for v >= w* (> 1)
    return np.where(x <= 0, above, _log_lambda_x(pair, np.maximum(x, 0.0)))


def imh_lambda(pair: IsotropicPair, log_v) -> np.ndarray:
    """Rejection probability of IMH at a state of weight v (Smith-Tierney lambda).

    ``lambda(v) = int_{w <= v} (1 - w/v) q(dz) = P_q(W <= v) - P_pi(W <= v)/v``
    (integrated against q; Kim et al. 2022, Eq. (3) prints pi, which is a typo).  For ``v >= w*``
    it is ``1 - 1/v``.  Vectorised over ``log_v``.

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    log_v : array_like
        log v.

    Returns
    -------
    numpy.ndarray
        lambda(v).
    """
    return np.exp(imh_log_lambda(pair, log_v))


def _imh_scaled(pair, ns, lo, hi, kinds=("1",), epsrel=1e-12, epsabs=1e-15):
    """Scaled integrals ``int_lo^hi n c exp(c (y - hi) + (n-1) log lambda(y)) m(y) dy``.

    One quad_vec call for all components (arrays ns, lo, hi of equal length) and all
    ``kinds`` of multiplier ``m``: ``"1"`` (gives I_n), ``"S"`` (``P(chi2_D > y)``) and
    ``"F"`` (``P(chi2_D <= y)``).  Returns ``(values, err)``: ``values[kind]`` arrays and
    quad_vec's (max-norm) absolute error estimate, the same for every component.
    Multiply by ``exp(c hi - log w*)`` to unscale.
    """
    ns = np.asarray(ns, dtype=float)
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    if ns.size == 0:
        return {k: np.zeros(0) for k in kinds}, 0.0
    width = hi - lo
    c, D = pair.c, pair.D
    nm1 = ns - 1.0

    def f(t):
        # y = lo + width t^2: the chi2 functions are analytic in sqrt(y), not in y
        # (lambda ~ 1 - 1/w* - C y^(D/2) at y = 0), so this removes the endpoint
        # singularity for odd D
        y = lo + width * t * t
        ll = _log_lambda_x(pair, y)
        expo = c * (y - hi) + np.where(nm1 > 0, nm1 * ll, 0.0)
        base = (2.0 * t * width) * ns * c
        out = []
        for k in kinds:
            if k == "1":
                out.append(base * np.exp(expo))
            elif k == "S":
                out.append(base * np.exp(expo + _log_chi2_sf(y, D)))
            else:
                out.append(base * np.exp(expo + _log_chi2_cdf(y, D)))
        return np.concatenate(out)

    val, err = integrate.quad_vec(f, 0.0, 1.0, epsabs=epsabs, epsrel=epsrel, norm="max", limit=4000)
    val = np.asarray(val, dtype=float).reshape(len(kinds), ns.size)
    return {k: val[i] for i, k in enumerate(kinds)}, float(err)


def _x_cap(pair):
    """Beyond this x, pi-mass < 1e-300: contributions to TV are below float resolution."""
    return float(_chi2_quantile(1e-300, pair.D, upper=True))


def _imh_roots(pair, ns, x0, log_target, tol=1e-12, maxit=100):
    """x1 with log I_n(x1) = log_target (= n log r), on (0, x0]; vectorised Newton-bisection."""
    c, lws = pair.c, pair.log_w_star
    lo = np.zeros_like(ns, dtype=float)
    hi = np.full_like(ns, x0, dtype=float)
    # initial guess: I_1(x) = (e^{cx} - 1)/w*  solved for the target, clipped
    x = np.clip(np.logaddexp(0.0, log_target + lws) / c, 1e-3 * x0, 0.999 * x0)
    resid = np.full(ns.size, np.inf)
    for _ in range(maxit):
        vals, _err = _imh_scaled(pair, ns, np.zeros_like(x), x, ("1",), epsrel=1e-13, epsabs=0.0)
        val = vals["1"]
        logI = np.log(val) + c * x - lws
        G = logI - log_target
        resid = G
        done = np.abs(G) < tol
        if np.all(done):
            break
        lo = np.where(G < 0, x, lo)
        hi = np.where(G > 0, x, hi)
        dG = ns * c * np.exp((ns - 1.0) * _log_lambda_x(pair, x)) / val  # d log I / dx
        xn = x - G / dG
        bad = ~np.isfinite(xn) | (xn <= lo) | (xn >= hi)
        xn = np.where(bad, 0.5 * (lo + hi), xn)
        x = np.where(done, x, xn)
        if np.all((hi - lo) <= 1e-15 * hi):
            break
    return x, np.abs(resid)


def imh_tv(pair: IsotropicPair, steps: int, log_w0: float, at=None) -> TVResult:
    """Exact TV(K^n(z0, .), pi), n = 1..steps, of IMH from a state of log-weight log_w0.

    ``at``: evaluate only at these n (integers in 1..steps, e.g. a log-spaced selection
    for steps = 10^9): the n-step formula needs no iteration, so the cost depends on the
    number of n asked for, not on their size.  ``tv[i]`` is then TV at ``at[i]``.

    Smith & Tierney (Kim et al. 2022, Eqs. (2)-(3), lambda against q), in x-coordinates (module
    docstring): with ``x_m = min(x0, x1)``, ``I_n(x1) = r^n``,
    ``TV_n = int (1 - T_n(max(w0, v)))_+ pi_W(dv) = (r^n - I_n(x_m)) + int_0^{x_m} g_n F``
    (``F = P(chi2_D <= .)``; no cancellation when TV is small) and
    ``1 - TV_n = (1 - r^n) + int_0^{x_m} g_n S`` (``S = 1 - F``; no cancellation when TV
    is close to 1, returned as ``log_one_minus_tv``).  The integrals are computed by
    adaptive Gauss-Kronrod (scipy quad_vec), ``x1`` by Newton-bisection.
    ``error_bound`` is an ESTIMATE (not rigorous): quad_vec's error estimates + root
    residuals + the gap between this TV and the second formula
    ``(1/2)[int |T_n(max(w0, v)) - 1| pi_W(dv) + lambda(w0)^n]`` (which is the defect of
    the mass identity ``int_0^{x0} g_n S = r^n - lambda(w0)^n``, lambda from chi2
    functions directly).  At ``w0 = w*``, ``TV_n = r^n`` exactly (error 0).

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    steps : int
        The last n.
    log_w0 : float
        The start's log weight.
    at : array_like of int, optional
        Only these n.

    Returns
    -------
    TVResult
    """
    steps = _check_steps(steps)
    lw0 = _check_log_w0(pair, log_w0)
    if at is None:
        ns = np.arange(1, steps + 1, dtype=float)
    else:
        ns = np.asarray(at, dtype=float).reshape(-1)
        if ns.size == 0 or np.any(ns != np.round(ns)) or ns.min() < 1 or ns.max() > steps:
            raise ValueError(f"at must hold integers in 1..{steps}")
    steps = ns.size
    log_rn = ns * pair.log_r
    rn = np.exp(log_rn)
    log_1m_rn = log1mexp(log_rn)
    x0 = float(pair.x_of(lw0))
    common = dict(w_star=pair.w_star, log_w_star=pair.log_w_star, log_w0=lw0)
    if x0 <= 0.0:
        # only rounding: exp(n log r) with log r to ~1 ulp
        round_err = float(np.max(rn * (2.0 + ns * abs(pair.log_r)))) * np.finfo(float).eps
        return TVResult(rn, round_err, method="IMH worst start: TV_n = r^n in closed form (exact; "
                                              "error_bound = float rounding only)",
                        log_one_minus_tv=log_1m_rn, **common)
    c, lws = pair.c, pair.log_w_star
    xe = min(x0, _x_cap(pair))
    zeros = np.zeros(steps)
    # I_n, int g_n S, int g_n F over [0, x0], all scaled by exp(c xe - log w*)
    V0, e0 = _imh_scaled(pair, ns, zeros, np.full(steps, xe), ("1", "S", "F"))
    sc0 = c * xe - lws
    with np.errstate(divide="ignore"):
        logI0 = np.log(V0["1"]) + sc0
        log_J = np.log(V0["S"]) + sc0
        log_K = np.log(V0["F"]) + sc0
    roots = logI0 > log_rn  # T_n(w0) > 1: the positive part stops at x1 < x0
    with np.errstate(over="ignore"):
        head = np.where(roots, 0.0, rn - np.exp(np.minimum(logI0, 700.0)))  # 1 - T_n(w0) if >= 0
    err = np.full(steps, 2.0 * e0 * math.exp(min(sc0, 700.0)))
    neg = np.zeros(steps)
    if np.any(roots):
        idx = np.flatnonzero(roots)
        x1, res = _imh_roots(pair, ns[idx], xe, log_rn[idx])
        V1, e1 = _imh_scaled(pair, ns[idx], np.zeros(idx.size), x1, ("S", "F"))
        sc1 = c * x1 - lws
        with np.errstate(divide="ignore"):
            log_J[idx] = np.log(V1["S"]) + sc1
            log_K[idx] = np.log(V1["F"]) + sc1
        # |I_n(x1) - r^n| ~ r^n |log residual| moves TV by at most that much
        err[idx] = e1 * np.exp(sc1) + res * rn[idx]
        V2, e2 = _imh_scaled(pair, ns[idx], x1, np.full(idx.size, xe), ("S",))
        neg[idx] = V2["S"] * math.exp(min(sc0, 700.0))
        err[idx] += e2 * math.exp(min(sc0, 700.0))
    tv = head + np.exp(log_K)
    log_1m_tv = np.logaddexp(log_1m_rn, log_J)
    # second formula: TV_B = (1/2)[int |T_n - 1| dpi + lambda(w0)^n] = (1/2)[TV + Neg + lambda^n]
    lam0_n = np.exp(ns * float(_log_lambda_x(pair, xe)))
    tv_b = 0.5 * ((rn - np.exp(log_J)) + neg + lam0_n)
    defect = np.abs(tv - tv_b)
    err_total = float(np.max(err + defect)) + 4 * np.finfo(float).eps
    method = ("IMH Smith-Tierney on the weight line: 1-d adaptive Gauss-Kronrod (quad_vec)"
              + (", Newton root where T_n(w0) > 1" if np.any(roots) else "")
              + "; error_bound = ESTIMATE (quad error estimates + root residual + |TV - "
                "(1/2)(int|T_n-1| dpi + lambda^n)|), not rigorous")
    return TVResult(np.clip(tv, 0.0, 1.0), err_total, method=method,
                    log_one_minus_tv=log_1m_tv, **common)


def imh_T(pair: IsotropicPair, n: int, log_w) -> np.ndarray:
    """Smith-Tierney ``T_n(w) = int_w^oo n/v^2 lambda(v)^(n-1) dv``, vectorised over log_w.

    ``T_n(w) = 1 - (1 - 1/w)^n`` for ``w >= w*``; below, ``(1 - r^n) + int_0^{x_w} g_n``
    (module docstring).  ``T_1(w) = 1/w``.  May overflow to inf for absurdly small w.

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    n : int
        The number of steps.
    log_w : array_like
        log w.

    Returns
    -------
    numpy.ndarray
        T_n(w) (Kim et al. 2022, Eq. (2)).
    """
    n = _check_steps(n)
    log_w = np.atleast_1d(np.asarray(log_w, dtype=float))
    x = pair.x_of(log_w)
    out = np.empty_like(log_w)
    above = x <= 0
    out[above] = -np.expm1(n * log1mexp(-np.maximum(log_w[above], 1e-300)))
    if np.any(~above):
        xb = x[~above]
        k = xb.size
        vals, _ = _imh_scaled(pair, np.full(k, float(n)), np.zeros(k), xb, ("1",), epsrel=1e-13,
                              epsabs=0.0)
        val = vals["1"]
        with np.errstate(over="ignore"):
            out[~above] = -np.expm1(n * pair.log_r) + val * np.exp(pair.c * xb - pair.log_w_star)
    return out


# ----------------------------------------------------------------------------- CIS
def _pi_nodes(pair: IsotropicPair, grid: int):
    """Composite Gauss-Legendre nodes in rho = ||Z|| over the pi-range.

    Returns ``(log v_j, pi-weights w_j, L, fine_w)``: the nodes (panels of
    :data:`_GL_PER_PANEL`), their pi quadrature weights, the matrix ``L`` mapping the
    values at one panel's nodes to its degree-(m-1) interpolant at a fine composite
    rule of the same panel, and that fine rule's pi-weights ``(panels, n_fine)``.  The
    fine rule integrates ``|f - 1|`` (which has kinks where ``f = 1``) accurately.
    """
    D = pair.D
    m = _GL_PER_PANEL
    panels = max(1, -(-grid // m))
    r_lo = math.sqrt(float(_chi2_quantile(_TAIL, D)))
    r_hi = math.sqrt(float(_chi2_quantile(_TAIL, D, upper=True)))
    edges = np.linspace(r_lo, r_hi, panels + 1)
    rho, wq = _gauss_panels(edges, m)

    def log_pdf(r):
        return ((D - 1) * np.log(r) - 0.5 * r ** 2 - (0.5 * D - 1) * math.log(2.0)
                - special.gammaln(0.5 * D))

    # fine rule on the reference panel [-1, 1]: _FINE_SUB sub-panels of m GL nodes
    t, _ = np.polynomial.legendre.leggauss(m)
    tf, wf = _gauss_panels(np.linspace(-1.0, 1.0, _FINE_SUB + 1), m)
    V = np.polynomial.legendre.legvander(t, m - 1)
    L = np.polynomial.legendre.legvander(tf, m - 1) @ np.linalg.inv(V)
    lo, hi = edges[:-1, None], edges[1:, None]
    rf = 0.5 * (hi + lo) + 0.5 * (hi - lo) * tf[None, :]
    fine_w = 0.5 * (hi - lo) * wf[None, :] * np.exp(log_pdf(rf))
    return pair.log_v_of(rho ** 2), wq * np.exp(log_pdf(rho)), L, fine_w


def _log1m_phi(pair: IsotropicPair, theta):
    """log(1 - phi(e^theta)), phi(t) = E_q exp(-t W), on a theta grid.

    ``1 - phi(t) = int t e^(-tw) P_q(W > w) dw = int psi(theta + l) P_q(log W > l) dl``
    with ``psi(z) = exp(z - e^z)``; in ``rho`` (q-side ``||Z||/s``) this is
    ``int psi(theta + log w* - c s^2 rho^2) P(chi2_D < rho^2) 2 c s^2 rho drho``,
    an analytic integrand, by composite Gauss-Legendre.  Absolute accuracy ~1e-16.
    """
    D, lws = pair.D, pair.log_w_star
    cs2 = pair.c * pair.s ** 2
    r_lo = math.sqrt(float(_chi2_quantile(1e-20, D)))
    top = float(theta.max()) + lws + 40.0
    out = np.full(theta.shape, -np.inf)
    if top <= 0 or math.sqrt(top / cs2) <= r_lo:
        return out  # 1 - phi < t * E_q W = t, far below 1e-17 here
    r_top = math.sqrt(top / cs2)
    # panel edges: uniform in l = log w (step 0.5) merged with uniform in rho (step 0.25)
    y_edges = np.arange(cs2 * r_lo ** 2, cs2 * r_top ** 2, 0.5)
    edges = np.union1d(np.sqrt(y_edges / cs2), np.arange(r_lo, r_top, 0.25))
    edges = np.union1d(edges, [r_lo, r_top])
    rho, wq = _gauss_panels(edges, 12)
    ell = lws - cs2 * rho ** 2
    log_w_nodes = np.log(wq) + _log_chi2_cdf(rho ** 2, D) + math.log(2 * cs2) + np.log(rho)
    chunk = max(1, 4_000_000 // rho.size)
    for i in range(0, theta.size, chunk):
        z = theta[i:i + chunk, None] + ell[None, :]
        with np.errstate(over="ignore"):
            terms = z - np.exp(z) + log_w_nodes[None, :]
        out[i:i + chunk] = special.logsumexp(terms, axis=1)
    return np.minimum(out, 0.0)


def _cis_kernel(pair: IsotropicPair, N: int, lv_nodes, lu0):
    """Kernel pieces on the nodes: H (h(v_i, v_j)), h(u0, v_j), rho(v_j), rho(u0)."""
    lws = pair.log_w_star
    all_lv = np.append(lv_nodes, lu0)
    la_min = float(all_lv.min())
    la_max = math.log(2.0) + lws
    th_lo = -np.logaddexp(la_max, math.log(N)) - 40.0
    th_hi = -la_min + math.log(80.0)
    h = _THETA_STEP
    theta = np.arange(th_lo, th_hi + h, h)
    log_phi = log1mexp(_log1m_phi(pair, theta))  # log phi(e^theta); 0 where 1 - phi < 1e-300
    log_phi_nm2 = (N - 2) * log_phi if N > 2 else np.zeros_like(theta)  # avoid 0 * -inf
    # B[j, th] = exp(theta/2 - v_j e^theta): h(u, v) = (N-1) h sum_th B_u B_v phi^(N-2)
    with np.errstate(over="ignore"):
        B = np.exp(0.5 * theta[None, :] - np.exp(all_lv[:, None] + theta[None, :]))
        Bphi = B * np.exp(0.5 * log_phi_nm2)[None, :]
    Hall = (N - 1) * h * (Bphi @ Bphi.T)
    H = Hall[:-1, :-1]
    h_u0 = Hall[-1, :-1]
    with np.errstate(over="ignore"):
        z = all_lv[:, None] + theta[None, :]
        psi = np.exp(z - np.exp(z) + (N - 1) * log_phi[None, :])
    rho_all = h * psi.sum(axis=1)
    return H, h_u0, rho_all[:-1], float(rho_all[-1])


def _cis_curve(pair, N, steps, lw0, grid):
    lv, wpi, L, fine_w = _pi_nodes(pair, grid)
    H, h_u0, rho_v, rho_u0 = _cis_kernel(pair, N, lv, lw0)
    m = L.shape[1]
    a = 1.0
    f = np.zeros_like(lv)
    tv = np.empty(steps)
    mass_defect = 0.0
    for k in range(steps):
        f = a * h_u0 + rho_v * f + H @ (wpi * f)
        a = a * rho_u0
        f_fine = f.reshape(-1, m) @ L.T  # panel interpolants on the fine rule
        tv[k] = 0.5 * (a + float(np.sum(fine_w * np.abs(f_fine - 1.0))))
        mass_defect = max(mass_defect, abs(a + float(wpi @ f) - 1.0))
    return tv, mass_defect


def cis_tv(pair: IsotropicPair, N: int, steps: int, log_w0: float,
           grid: int | None = None) -> TVResult:
    """TV(K^k(z0, .), pi), k = 1..steps, of CIS / i-SIR with N particles on the weight line.

    Nystrom scheme for ``a_{k+1} = a_k rho(u0)``,
    ``f_{k+1}(v) = a_k h(u0, v) + f_k(v) rho(v) + int f_k(v') h(v', v) pi_W(dv')``,
    ``TV_k = (1/2)[a_k + int |f_k - 1| dpi_W]``, with ``grid`` (default
    :data:`DEFAULT_GRID`) composite Gauss-Legendre nodes in ``||Z||``.  The returned
    curve is computed with ``2 * grid`` nodes; ``error_bound`` is an a-posteriori
    ESTIMATE: max_k ``|TV(grid) - TV(2 grid)|`` plus the mass defect
    ``|a_k + int f_k dpi - 1|`` of the finer run (not a rigorous bound).

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    N : int
        Particles per iteration.
    steps : int
        The last k.
    log_w0 : float
        The start's log weight.
    grid : int, optional
        Gauss-Legendre nodes (default :data:`DEFAULT_GRID`).

    Returns
    -------
    TVResult
    """
    Ni = _check_int(N, "N", 2, f"CIS needs N >= 2 particles, got N = {N!r}")
    steps = _check_steps(steps)
    lw0 = _check_log_w0(pair, log_w0)
    grid = DEFAULT_GRID if grid is None else operator.index(grid)
    if grid < _GL_PER_PANEL:
        raise ValueError(f"grid must be >= {_GL_PER_PANEL}, got {grid}")
    tv1, _ = _cis_curve(pair, Ni, steps, lw0, grid)
    tv2, defect = _cis_curve(pair, Ni, steps, lw0, 2 * grid)
    err = float(np.max(np.abs(tv1 - tv2))) + defect
    method = (f"CIS N={Ni} weight-line Nystrom, {2 * grid} Gauss-Legendre nodes in ||Z|| "
              f"(theta-trapezoid for the t-integrals); error_bound = a-posteriori ESTIMATE "
              f"|TV({grid}) - TV({2 * grid})| + mass defect, not rigorous")
    return TVResult(np.clip(tv2, 0.0, 1.0), err, pair.w_star, pair.log_w_star, lw0, method)


# ----------------------------------------------------------------------------- discretise
def discretise(pair: IsotropicPair, M: int):
    """M bins on the weight line, returning ``(pi_bins, q_bins, bin_of)``.

    Bins are ordered by increasing weight (bin M-1 holds w*).  Edges: uniform in
    ``rho = ||Z||`` on ``[rho_0, rho_b]`` (M - 1 bins) with ``rho_b`` the pi-quantile
    ``P(||Z|| > rho_b) = 1e-12``, plus one bin for all lower weights ``||Z|| > rho_b``.
    Uniform ``rho`` makes the bin holding w* narrow in weight (relative width
    ``~ c rho_1^2``) and resolves the pi-bulk.  ``rho_0 = 0`` unless the q-mass of the
    top bins would underflow (large ``D log s``), in which case the top bin is widened
    until ``P_q(top bin) >= e^-650``.  ``pi_bins``/``q_bins`` are exact chi2 masses
    (cdf or survival differences, whichever is accurate; each sums to 1).
    ``bin_of(log_w)`` returns the bin index holding log-weight ``log_w``.

    Parameters
    ----------
    pair : IsotropicPair
        The pair.
    M : int
        The number of bins.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, callable)
        ``pi_bins``, ``q_bins`` and ``bin_of``.
    """
    M = operator.index(M)
    if M < 2:
        raise ValueError(f"discretise needs M >= 2 bins, got {M}")
    D, s2 = pair.D, pair.s ** 2
    rho_b = math.sqrt(float(_chi2_quantile(1e-12, D, upper=True)))
    rho = np.linspace(0.0, rho_b, M)  # M points: M - 1 bins + the tail bin
    # widen the top bin if q-masses underflow: P(chi2_D < rho^2 / s^2) >= e^-650
    x_min = s2 * float(_chi2_quantile(math.exp(-650.0), D))
    if rho[1] ** 2 < x_min:
        r0 = math.sqrt(x_min)
        rho = np.concatenate([[0.0], np.linspace(r0, rho_b, M - 1)])
    x = rho ** 2  # ascending x = descending weight
    xe = np.append(x, np.inf)  # M + 1 edges in x, M bins [x_i, x_{i+1}]

    def log_masses(scale):
        xs = xe / scale
        with np.errstate(divide="ignore"):
            lcdf = _log_chi2_cdf(np.where(np.isinf(xs), 0.0, xs), D)
            lcdf = np.where(np.isinf(xs), 0.0, lcdf)
            lcdf[0] = -np.inf
            lsf = np.where(np.isinf(xs), -np.inf, _log_chi2_sf(np.where(np.isinf(xs), 0.0, xs), D))
        use_cdf = lcdf[1:] < math.log(0.5)
        lm = np.where(use_cdf, _log_diff(lcdf[1:], lcdf[:-1]), _log_diff(lsf[:-1], lsf[1:]))
        return lm

    lpi = log_masses(1.0)
    lq = log_masses(s2)
    if np.any(~np.isfinite(lq)) or np.min(lq) < -700:
        raise ValueError(
            "q-masses of the bins underflow: D log s too large for a float discretisation")
    pi_b = np.exp(lpi)[::-1]
    q_b = np.exp(lq)[::-1]
    pi_b = pi_b / pi_b.sum()
    q_b = q_b / q_b.sum()
    # log-weight edges ascending: bin j = [le[j], le[j+1])
    le = pair.log_v_of(x)[::-1]  # ascending, last = log w*
    inner = le[:-1]  # boundaries between bins 0..M-1 (M - 1 of them)

    def bin_of(log_w):
        lw = np.asarray(log_w, dtype=float)
        return np.minimum(np.searchsorted(inner, lw, side="right"), M - 1)

    return pi_b, q_b, bin_of
