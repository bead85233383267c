"""Exact kernels, mixing and conditional moments on finite state spaces.

No Monte Carlo anywhere: every quantity is a finite sum or a one-dimensional integral
of a smooth, exponentially decaying function (computed by adaptive Gauss-Kronrod with
its error estimate reported).  See ``docs/methods.md`` §3; "001" is Kim et al.
(NeurIPS 2022, "Markov Chain Score Ascent").  The verifications decide their checks on
:mod:`simulate.rigorous` instead: the same kernels and moments in exact rationals, and
floats with proved error bounds.

States are ``0..M-1``; ``pi`` is the target and ``q`` the proposal (both probability
vectors, ``q > 0``); ``w = pi / q`` are the normalised importance weights.

Kernels
    :func:`imh_matrix` — independent Metropolis-Hastings (001 Algorithm 3).
    :func:`cis_matrix` — CIS / i-SIR with N particles, the current state plus N - 1
    proposals (001 Algorithm 2 with the particle count of Theorem 1).  Uses
    ``1/a = int_0^oo e^(-t a) dt`` (``docs/methods.md`` §2):
    ``K(x, y) = (N-1) pi(y) int_0^oo e^(-t (w_x + w_y)) phi(t)^(N-2) dt`` for y != x,
    ``phi(t) = sum_z q_z e^(-t w_z)``, a finite exponential sum: the integral is an exact
    finite sum over the counts of the proposals' distinct weights (with a measured
    truncation for very large N); :func:`cis_matrix_quadrature` integrates numerically.
    :func:`cis_matrix_enumerate` — the same by enumerating proposal multisets (exact
    rational arithmetic possible), to test the integral form.

Conditional moments (001 Theorems 1-4; ``docs/methods.md`` §6), for a vector function ``s``
(an ``(M, d)`` array standing in for the score): :func:`moments_msc`,
:func:`moments_msc_rb`, :func:`moments_jsa`, :func:`moments_pmcsa`.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import numpy as np

from mcsa_cli.lazy import lazy_module

integrate = lazy_module("scipy.integrate")  # at first use (~0.7 s)
special = lazy_module("scipy.special")  # at first use (~0.2 s)


class FiniteSpaceError(ValueError):
    """A finite-space input that is not a valid pair of distributions (one line, no traceback)."""

    pass


def check_pair(pi, q) -> tuple[np.ndarray, np.ndarray]:
    """Check that pi and q are probability vectors of one length with q > 0 where pi > 0.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        pi and q, each normalised to sum 1.

    Raises
    ------
    FiniteSpaceError
        They are not such a pair.
    """
    pi = np.asarray(pi, dtype=float)
    q = np.asarray(q, dtype=float)
    if pi.ndim != 1 or pi.shape != q.shape or pi.size < 1:
        raise FiniteSpaceError("pi and q must be 1-d arrays of the same length")
    if np.any(pi < 0) or np.any(q <= 0):
        raise FiniteSpaceError("pi must be >= 0 and q > 0 (otherwise w* = inf)")
    if not (np.isclose(pi.sum(), 1, atol=1e-12) and np.isclose(q.sum(), 1, atol=1e-12)):
        raise FiniteSpaceError("pi and q must sum to 1")
    return pi / pi.sum(), q / q.sum()


def weights(pi, q) -> np.ndarray:
    """Return the importance weights w = pi / q (Kim et al. 2022, Assumption 2: w* = max w).

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    Returns
    -------
    numpy.ndarray
        w = pi / q.
    """
    pi, q = check_pair(pi, q)
    return pi / q


# ----------------------------------------------------------------------------- kernels
def imh_matrix(pi, q) -> np.ndarray:
    """IMH transition matrix: K[x, y] = q_y min(1, w_y / w_x) for y != x.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    Returns
    -------
    numpy.ndarray
        The M x M IMH transition matrix with proposal q and target pi.
    """
    pi, q = check_pair(pi, q)
    w = pi / q
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(w[:, None] > 0, w[None, :] / w[:, None], 1.0)
    K = q[None, :] * np.minimum(1.0, ratio)
    np.fill_diagonal(K, 0.0)
    np.fill_diagonal(K, 1.0 - K.sum(axis=1))
    return K


@dataclass(frozen=True)
class Quadrature:
    """Result of a vector quadrature with its error estimate (scipy quad_vec).

    Parameters
    ----------
    value : numpy.ndarray
        The integral.
    error : float
        Its error estimate.
    """

    value: np.ndarray
    error: float


def _split_quad(f, rates, epsrel: float = 1e-13):
    """Integrate f over [0, oo) when f is a sum of decaying exponentials.

    int_0^oo f(t) dt for an integrand that is a sum of decaying exponentials with the given
    ``rates``: the interval is split at the time scales 1/rate (from 0.1/rate to 64/rate), so
    that a spike of width 1/w near 0 (a weight of 1e10) is resolved rather than stepped over.
    Returns (value, error estimate).
    """
    r = np.asarray([x for x in np.ravel(rates) if np.isfinite(x) and x > 0], float)
    pts = (np.unique(np.concatenate([f / r for f in (0.1, 1.0, 8.0,
                                                     64.0)])) if r.size else np.array([1.0]))
    pts = pts[np.isfinite(pts) & (pts > 0)]
    if pts.size > 24:  # keep the work bounded: log-spaced breakpoints over the same range
        pts = np.geomspace(pts.min(), pts.max(), 24)
    edges = np.concatenate([[0.0], pts, [np.inf]])
    pieces = list(zip(edges[:-1], edges[1:]))
    # a rough pass for the size of the whole integral: the accurate pass then asks each piece for
    # an absolute error of epsrel * |whole| / pieces (a relative error on a piece that holds almost
    # nothing would cost thousands of evaluations for no digit of the result)
    rough = sum(np.abs(np.asarray(integrate.quad_vec(f, a, b, epsabs=0.0, epsrel=1e-4,
                                                     limit=50)[0]))
                for a, b in pieces)
    size = float(np.max(rough)) if np.size(rough) else 0.0
    epsabs = epsrel * size / len(pieces)
    total, err = None, 0.0
    for a, b in pieces:
        v, e = integrate.quad_vec(f, a, b, epsabs=epsabs, epsrel=epsrel, limit=2000)
        total = v if total is None else total + v
        err += float(e)
    return total, err


_GL_NODES = {n: np.polynomial.legendre.leggauss(n) for n in (24, 48)}


def _gauss_legendre_split(fvec, rates, rel: float = 1e-12):
    """Integrate f over [0, oo) by fixed Gauss-Legendre rules, or return None.

    int_0^oo f(t) dt by fixed Gauss-Legendre rules on the pieces of :func:`_split_quad`
    (the last, infinite one mapped by t = a + u / (1 - u)), for a vectorised integrand
    ``fvec(t array) -> (len(t), k)``.  The 48-node and 24-node results must agree to ``rel``
    of the largest component (their difference is the error returned); otherwise None, and
    the caller uses the adaptive quadrature.
    """
    r = np.asarray([x for x in np.ravel(rates) if np.isfinite(x) and x > 0], float)
    if not r.size:
        return None
    pts = np.unique(np.concatenate([f / r for f in (0.1, 1.0, 8.0, 64.0)]))
    pts = pts[np.isfinite(pts) & (pts > 0)]
    if pts.size > 24:
        pts = np.geomspace(pts.min(), pts.max(), 24)
    edges = np.concatenate([[0.0], pts])
    out = []
    for n in (24, 48):
        x, wt = _GL_NODES[n]
        a, b = edges[:-1, None], edges[1:, None]
        t = (0.5 * (b - a) * (x[None, :] + 1) + a).ravel()
        wts = (0.5 * (b - a) * wt[None, :]).ravel()
        u = 0.5 * (x + 1)  # the tail [edges[-1], oo)
        t_tail = edges[-1] + u / (1 - u)
        w_tail = 0.5 * wt / (1 - u) ** 2
        vals = fvec(np.concatenate([t, t_tail]))
        if not np.all(np.isfinite(vals)):
            return None
        out.append(np.concatenate([wts, w_tail]) @ vals)
    size = float(np.abs(out[1]).max())
    err = float(np.abs(out[1] - out[0]).max())
    if err > rel * max(size, 1e-300):
        return None
    return out[1], err


def _laplace_integral(make, a_shape, weight_power: int = 0, epsrel: float = 1e-13,
                      rates=()) -> Quadrature:
    """Integrate t^p F(t) over [0, oo) for a vector integrand ``make(t)``.

    int_0^oo t^p F(t) dt for a vector integrand ``make(t)`` (all entries >= 0), split at the
    time scales 1/rate of its exponentials (:func:`_split_quad`).
    """

    def f(t):
        return (t ** weight_power) * make(t) if weight_power else make(t)

    val, err = _split_quad(f, rates, epsrel)
    return Quadrature(np.asarray(val).reshape(a_shape), float(err))


def _log_phi(t, q, w):
    """Compute log phi(t) = log sum_z q_z exp(-t w_z), stable for large t."""
    return _logsumexp_1d(np.log(q) - t * w)


def _logsumexp_1d(a):
    """Compute ``scipy.special.logsumexp(a)`` of a 1-D float array without scipy's dispatch.

    ``scipy.special.logsumexp(a)`` of a 1-D float array, with the arithmetic of scipy 1.17's own
    (the largest terms taken out of the sum: ``log1p(s / m) + log(m) + max``), without the ~1 ms
    of array-API dispatch per call that dominated the quadrature of :func:`cis_matrix_quadrature`
    (its integrand is called some 50 000 times).  Where that value is not finite, the direct
    ``log(sum(exp(a)))``, as scipy.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a_max = np.maximum.reduce(a, keepdims=True)
        mask = a == a_max
        m = np.add.reduce(mask, keepdims=True, dtype=a.dtype)
        e = np.exp(np.where(mask, -np.inf, a) - a_max)
        s = np.add.reduce(e, keepdims=True, dtype=e.dtype)
        s = np.where(s == 0, s, s / m)
        out = np.log1p(s) + np.log(m) + a_max
        if not np.isfinite(out[0]):
            out = np.log(np.add.reduce(np.exp(a), keepdims=True))
    return out[0]


#: largest work of the exact sum of :func:`cis_matrix`: count vectors x (distinct weights +
#: distinct pairs of weights), about 0.5 s and 0.5 GB; beyond it the quadrature is used
CIS_SUM_WORK_MAX = 40_000_000
#: half-width of the truncation box of :func:`cis_matrix` for large N, in standard
#: deviations of each count (plus as many counts); a Chernoff bound on the left-out mass
CIS_BOX_SD = 12.0
_EPS = float(np.finfo(float).eps)


def cis_matrix(pi, q, N: int, return_error: bool = False, method: str = "auto"):
    """i-SIR / CIS transition matrix with N particles (current + N - 1 proposals).

    Off-diagonal entries are ``K(x, y) = (N-1) pi_y I(w_x + w_y)`` with
    ``I(a) = int_0^oo exp(-t a) phi(t)^(N-2) dt`` (``docs/methods.md`` §2-§3; Kim et al. 2022,
    Algorithm 2 with the N of Theorem 1); the diagonal is one minus the row sum.

    ``phi(t) = sum_k Q_k exp(-t u_k)`` is a finite exponential sum over the distinct weights
    ``u_k`` (``Q_k`` = proposal mass of weight ``u_k``), so the multinomial expansion of
    ``phi^n``, ``n = N - 2``, integrates term by term to the exact finite sum

        ``I(a) = sum_{|c| = n} Mult(c; n, Q) / (a + c . u)``  (c = counts of the n proposals
        other than y, the partial-fraction form of the Laplace integral),

    i.e. ``E[1 / (a + S_n)]`` for ``S_n`` the sum of n weights drawn from q.

    ``method``
        ``"sum"``: that sum over every count vector (``C(n + K - 1, K - 1)`` of them for K
        distinct weights) when its work is at most :data:`CIS_SUM_WORK_MAX`; otherwise
        over the count vectors in a box of :data:`CIS_BOX_SD` standard deviations
        around the mean counts, the left-out probability mass ``tau`` (a Chernoff bound per
        count) adding at most ``tau / (a + n min w)`` to ``I(a)``.  Raises
        :class:`FiniteSpaceError` if even the box is too much work (many distinct weights
        with large N, or hundreds of distinct weights).
        ``"quadrature"``: :func:`cis_matrix_quadrature` (adaptive Gauss-Kronrod).
        ``"auto"`` (default): ``"sum"`` when feasible, else ``"quadrature"``.

    ``return_error`` also returns ``err``, a bound on ``max |K - K_exact|`` over the
    entries.  For the sum it is rigorous given the stated accuracy of the elementary
    functions (``log``, ``exp``, ``gammaln`` within 4 ulp; every other operation correctly
    rounded), for the kernel of the given float ``pi`` and ``q``: a relative error ``delta``
    of every term from the log-probability's magnitude (about 1e-13 for N <= 20, 1e-9 for
    N = 10^4), plus the truncated mass.  For the quadrature it is the Gauss-Kronrod estimate
    (not a rigorous bound).  The sum costs about a millisecond for the verifications' sizes
    (M <= 6, N <= 16), the quadrature 0.1-0.25 s.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    N : int
        The number of particles, N >= 2.
    return_error : bool, default False
        Also return the error bound.
    method : {"auto", "sum", "quadrature"}
        As above.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, float)
        The M x M matrix K, or ``(K, err)``.
    """
    pi, q = check_pair(pi, q)
    if int(N) != N or N < 2:
        raise FiniteSpaceError("CIS needs N >= 2 particles")
    if method not in ("auto", "sum", "quadrature"):
        raise FiniteSpaceError("method is 'auto', 'sum' or 'quadrature'")
    N = int(N)
    if method == "quadrature":
        return _cis_quadrature(pi, q, N, return_error)
    laplace = _cis_laplace_sum(pi / q, q, N - 2)
    if laplace is None:
        if method == "sum":
            raise FiniteSpaceError(f"the exact sum for N = {N} and these weights is more work than "
                                   f"CIS_SUM_WORK_MAX; use method='quadrature'")
        return _cis_quadrature(pi, q, N, return_error)
    I, I_err = laplace  # noqa: E741 -- the document's I; (M, M): I(w_x + w_y) and its error bound
    K = (N - 1) * pi[None, :] * I
    E = (N - 1) * pi[None, :] * I_err + 3 * _EPS * K
    np.fill_diagonal(K, 0.0)
    np.fill_diagonal(E, 0.0)
    diag_err = E.sum(axis=1) + (K.shape[0] + 1) * _EPS
    np.fill_diagonal(K, 1.0 - K.sum(axis=1))
    err = float(max(E.max(), diag_err.max()))
    return (K, err) if return_error else K


def _count_vectors(n: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Integer vectors c with sum n, lo_k <= c_k <= hi_k for k < K-1 and c_(K-1) >= 0."""
    K = lo.size
    rows = np.zeros((1, 0), dtype=np.int64)
    rem = np.array([n], dtype=np.int64)
    for k in range(K - 1):
        cnt = np.maximum(np.minimum(hi[k], rem) - lo[k] + 1, 0)
        idx = np.repeat(np.arange(rem.size), cnt)
        val = lo[k] + np.arange(idx.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rows = np.column_stack([rows[idx], val])
        rem = rem[idx] - val
    return np.column_stack([rows, rem])


@functools.lru_cache(maxsize=32)
def _all_count_vectors(n: int, K: int) -> np.ndarray:
    """Every vector of K counts >= 0 with sum n (read-only; cached: callers repeat (n, K))."""
    C = _count_vectors(n, np.zeros(K, np.int64), np.full(K, n, np.int64))
    C.flags.writeable = False
    return C


def _binomial_tail_bound(n: int, Q: float, lo: int, hi: int) -> float:
    """Chernoff bound on P(X < lo) + P(X > hi) for X ~ Binomial(n, Q)."""

    def kl(x):  # n * KL(x/n || Q), the exponent of the Chernoff bound
        f = x / n
        return n * ((f * math.log(f / Q) if f > 0 else 0.0)
                    + ((1 - f) * math.log((1 - f) / (1 - Q)) if f < 1 else 0.0))

    tail = 0.0
    if lo > 0:
        tail += math.exp(-kl(lo - 1)) if lo - 1 < n * Q else 1.0
    if hi < n:
        tail += math.exp(-kl(hi + 1)) if hi + 1 > n * Q else 1.0
    return tail


_BLOCK = 16  # terms summed in plain floating point before math.fsum takes the block sums


def _cis_laplace_sum(w: np.ndarray, q: np.ndarray, n: int):
    """Compute ``I(w_x + w_y)`` for every (x, y) by the exact multinomial sum, or return None.

    ``I(w_x + w_y)`` for every (x, y) as the exact multinomial sum of :func:`cis_matrix`,
    with an error bound per entry; None if it is more work than CIS_SUM_WORK_MAX.

    Weights within 8 ulp of each other (float noise, e.g. from normalising) count as one
    weight, the smallest of them: that moves every ``a + S`` by at most 8 eps relative.
    """
    ws = np.sort(w)
    rep = ws.copy()  # representative (smallest) weight of each group of equal weights
    for i in range(1, ws.size):
        if ws[i] - rep[i - 1] <= 8 * _EPS * ws[i]:
            rep[i] = rep[i - 1]
    u, inv = np.unique(rep[np.searchsorted(ws, w)], return_inverse=True)
    Q = np.bincount(inv, weights=q, minlength=u.size)
    order = np.argsort(Q, kind="stable")  # the largest mass last: it takes the remainder
    u, Q = u[order], Q[order]
    inv = np.argsort(order)[inv]
    K = u.size
    n_pairs = K * (K + 1) // 2
    full = math.comb(n + K - 1, K - 1) * (K + n_pairs) <= CIS_SUM_WORK_MAX
    tau = 0.0  # probability of the count vectors left out
    if full:
        lo, hi = np.zeros(K, np.int64), np.full(K, n, np.int64)
    else:
        mean, sd = n * Q, np.sqrt(n * Q * (1 - Q))
        half = CIS_BOX_SD * (sd + 1.0)
        lo = np.maximum(0, np.floor(mean - half)).astype(np.int64)
        hi = np.minimum(n, np.ceil(mean + half)).astype(np.int64)
        n_box = math.prod(int(h - b + 1) for h, b in zip(hi[:-1], lo[:-1]))
        if n_box * (K + n_pairs) > CIS_SUM_WORK_MAX:
            return None
        lo[-1], hi[-1] = 0, n
        tau = sum(_binomial_tail_bound(n, float(Q[k]), int(lo[k]), int(hi[k]))
                  for k in range(K - 1))
    C = _all_count_vectors(n, K) if full else _count_vectors(n, lo, hi)
    Cf = C.astype(float)
    logQ = np.log(Q)
    log_fact = special.gammaln(np.arange(n + 1) + 1.0)  # log c! for c = 0..n
    g_n = float(log_fact[n])
    g_c = log_fact[C].sum(axis=1)
    p = np.exp(g_n - g_c + Cf @ logQ)
    S = Cf @ u
    # relative error of each term p / (a + S): the log-probability's rounding (4-ulp
    # elementary functions, K + 2 additions of terms of magnitude <= mag), Q's rounding
    # from the grouping (<= M eps relative each, n factors), exp, the dot product, a + S,
    # the division, w = pi / q (1 ulp), the weight grouping (8 eps on a + S), the block
    # sums (_BLOCK - 1 eps) and fsum (1/2 ulp)
    mag = float((g_n + g_c + Cf @ np.abs(logQ)).max())
    delta = ((2 * K + 8) * mag + n * w.size + K + 30 + _BLOCK) * _EPS
    pairs = [(k, j2) for k in range(K) for j2 in range(k, K) if u[k] + u[j2] > 0]
    a = np.array([u[k] + u[j2] for k, j2 in pairs])
    I_u = np.zeros((K, K))
    err_u = np.zeros((K, K))
    if a.size:
        pad = -S.size % _BLOCK  # zero terms up to whole blocks
        p = np.concatenate([p, np.zeros(pad)])
        S = np.concatenate([S, np.ones(pad)])
        chunk = _BLOCK * max(1, (1 << 22) // (_BLOCK * a.size))  # (pairs, chunk) <= 32 MB
        blocks = np.concatenate([
            (p[None, j:j + chunk] / (a[:, None] + S[None, j:j + chunk]))
            .reshape(a.size, -1, _BLOCK).sum(axis=2) for j in range(0, S.size, chunk)], axis=1)
        # divided by the included mass (1 - tau exactly): that cancels the rounding common to
        # every log-probability (of log n!), the largest for large n; the bound stays 3 delta
        P_in = math.fsum(p.tolist())
        s_min = n * float(u.min())  # every left-out term is below tau / (a + s_min)
        for i, (k, j2) in enumerate(pairs):
            val = math.fsum(blocks[i].tolist()) / P_in
            I_u[k, j2] = I_u[j2, k] = val
            err_u[k, j2] = err_u[j2, k] = (3 * delta + 2 * tau) * val + tau / (a[i] + s_min)
    return I_u[np.ix_(inv, inv)], err_u[np.ix_(inv, inv)]


def cis_matrix_quadrature(pi, q, N: int, return_error: bool = False):
    """:func:`cis_matrix` by adaptive Gauss-Kronrod quadrature of the Laplace integral.

    ``I(a) = int_0^oo exp(-t a + (N-2) log phi(t)) dt``; ``return_error`` also returns
    the quadrature's absolute error estimate on the entries (an estimate from Gauss-Kronrod,
    not a rigorous bound).  The reference for :func:`cis_matrix`'s exact sum, and its
    fallback when the sum has too many terms.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    N : int
        The number of particles, N >= 2.
    return_error : bool, default False
        Also return the error estimate.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, float)
        The M x M matrix K, or ``(K, err)``.
    """
    pi, q = check_pair(pi, q)
    if int(N) != N or N < 2:
        raise FiniteSpaceError("CIS needs N >= 2 particles")
    return _cis_quadrature(pi, q, int(N), return_error)


def _cis_quadrature(pi, q, N: int, return_error: bool):
    w = pi / q
    M = w.size
    a = w[:, None] + w[None, :]

    def make(t):
        # exp(-t (w_x + w_y) + (N - 2) log phi(t)) as a product of M exponentials, not M^2: the
        # integrand is called thousands of times, and the M^2 exponentials were most of the cost
        e = np.exp(-t * w)
        return np.outer(e, e) * np.exp((N - 2) * _log_phi(t, q, w))

    quad = _laplace_integral(make, (M, M), rates=np.concatenate([a.ravel(), w]))
    K = (N - 1) * pi[None, :] * quad.value
    np.fill_diagonal(K, 0.0)
    np.fill_diagonal(K, 1.0 - K.sum(axis=1))
    err = (N - 1) * quad.error * max(1.0, float(pi.max())) * M
    return (K, err) if return_error else K


def _compositions(n: int, m: int):
    """All (c_1..c_m) >= 0 with sum n."""
    for bars in itertools.combinations(range(n + m - 1), m - 1):
        prev = -1
        out = []
        for b in bars:
            out.append(b - prev - 1)
            prev = b
        out.append(n + m - 1 - prev - 1)
        yield tuple(out)


def cis_matrix_enumerate(pi, q, N: int, exact: bool = False):
    """CIS matrix by enumerating the multiset of the N - 1 proposals.

    With ``exact=True`` and ``pi``, ``q`` given as ``Fraction`` sequences the result is
    an exact rational matrix (a list of lists of Fractions).  Cost grows like
    ``C(N + M - 2, M - 1)``: for small spaces only.

    Parameters
    ----------
    pi, q : sequence of float or of fractions.Fraction
        The target and the proposal on M states.
    N : int
        The number of particles, N >= 2.
    exact : bool, default False
        Compute in Fractions.

    Returns
    -------
    numpy.ndarray or list of list of fractions.Fraction
        The M x M CIS matrix (exact: a list of lists of Fractions).
    """
    M = len(pi)
    num = (lambda v: Fraction(v)) if exact else float
    pi_ = [num(x) for x in pi]
    q_ = [num(x) for x in q]
    w = [p / qq for p, qq in zip(pi_, q_)]
    K = [[num(0)] * M for _ in range(M)]
    n_prop = N - 1
    for c in _compositions(n_prop, M):
        # multinomial probability of the proposal counts c
        coef = math.factorial(n_prop)
        for ci in c:
            coef //= math.factorial(ci)
        prob = num(coef)
        for qq, ci in zip(q_, c):
            prob *= qq ** ci
        s_prop = sum(ci * wi for ci, wi in zip(c, w))
        for x in range(M):
            total = w[x] + s_prop
            for y in range(M):
                if c[y]:
                    K[x][y] += prob * c[y] * w[y] / total
            K[x][x] += prob * w[x] / total
    if exact:
        return K
    return np.array(K, dtype=float)


# ----------------------------------------------------------------------------- mixing
def tv_rows(P: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Compute d_TV(P[x, .], pi) = 1/2 sum_y ``|P[x, y] - pi_y|`` for every row x.

    Parameters
    ----------
    P : numpy.ndarray
        A kernel (rows are distributions), shape (..., M).
    pi : numpy.ndarray
        A distribution on M states.

    Returns
    -------
    numpy.ndarray
        One distance per row.
    """
    return 0.5 * np.abs(P - pi[None, :]).sum(axis=-1)


def tv_curve(K: np.ndarray, pi, steps: int, starts=None) -> np.ndarray:
    """Exact TV(K^k(x, .), pi) for k = 1..steps; shape (steps, len(starts)).

    Parameters
    ----------
    K : numpy.ndarray
        An M x M transition matrix.
    pi : array_like
        Its stationary distribution.
    steps : int
        The last k.
    starts : array_like of int, optional
        The starting states x (default: every state).

    Returns
    -------
    numpy.ndarray
        Shape (steps, len(starts)).
    """
    pi = np.asarray(pi, dtype=float)
    idx = np.arange(K.shape[0]) if starts is None else np.atleast_1d(starts)
    P = np.eye(K.shape[0])[idx]
    out = np.empty((steps, idx.size))
    for k in range(steps):
        P = P @ K
        out[k] = tv_rows(P, pi)
    return out


def stationarity_defect(K: np.ndarray, pi) -> float:
    """Compute max_y ``|(pi K)_y - pi_y|``: zero for a pi-invariant kernel.

    Parameters
    ----------
    K : numpy.ndarray
        An M x M transition matrix.
    pi : array_like
        A distribution on the M states.

    Returns
    -------
    float
    """
    pi = np.asarray(pi, dtype=float)
    return float(np.abs(pi @ K - pi).max())


def smith_tierney_power(pi, q, n: int, lam_measure: str = "q") -> np.ndarray:
    """n-step IMH kernel from Smith & Tierney's formula, Kim et al. 2022, Eqs. (2)-(3).

    ``K^n(z, .) = T_n(w(z) v w(.)) pi(.) + lambda^n(w(z)) delta_z``,
    ``T_n(w) = int_w^oo n/v^2 lambda^(n-1)(v) dv``,
    ``lambda(w) = int_{w(z') <= w} (1 - w(z')/w) mu(dz')``.

    ``lam_measure='q'`` integrates lambda against the proposal (what makes lambda the
    rejection probability); ``'pi'`` against the target, as Eq. (3) is printed.  On a
    finite space lambda is ``A(v) - B(v)/v`` between consecutive weights, so
    ``int n/v^2 (A - B/v)^(n-1) dv = [(A - B u)^n / B]`` in ``u = 1/v``: the formula
    is evaluated exactly, piece by piece.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    n : int
        The number of steps.
    lam_measure : {"q", "pi"}
        The measure lambda is integrated against.

    Returns
    -------
    numpy.ndarray
        The M x M matrix K^n.
    """
    pi, q = check_pair(pi, q)
    mu = q if lam_measure == "q" else pi if lam_measure == "pi" else None
    if mu is None:
        raise FiniteSpaceError("lam_measure is 'q' or 'pi'")
    w = pi / q
    M = w.size
    order = np.argsort(w)
    ws = w[order]
    # lambda(v) on [ws[j], ws[j+1]): A_j - B_j / v with A_j = sum_{i<=j} mu_i, B_j = sum_{i<=j} mu_i
    # w_i
    A = np.cumsum(mu[order])
    B = np.cumsum(mu[order] * ws)

    def lam(v):
        j = np.searchsorted(ws, v, side="right") - 1
        return np.where(j >= 0, A[np.clip(j, 0, M - 1)] - B[np.clip(j, 0, M - 1)] / v, 0.0)

    def T(wv):
        """int_wv^oo n/v^2 lam(v)^(n-1) dv, exactly."""
        total = 0.0
        # pieces [ws[j], ws[j+1]) intersected with [wv, oo); last piece to oo
        for j in range(M):
            lo = ws[j]
            hi = ws[j + 1] if j + 1 < M else np.inf
            lo = max(lo, wv)
            if hi <= lo:
                continue
            a_, b_ = A[j], B[j]
            u_lo, u_hi = 1.0 / lo, (0.0 if np.isinf(hi) else 1.0 / hi)
            # int_{u_hi}^{u_lo} n (a - b u)^(n-1) du = [(a - b u_hi)^n - (a - b u_lo)^n] / b
            total += ((a_ - b_ * u_hi) ** n - (a_ - b_ * u_lo) ** n) / b_
        # below the smallest weight lambda = 0: contributes nothing for n >= 2; for n = 1
        # lambda^0 = 1 there
        if n == 1 and wv < ws[0]:
            total += 1.0 / wv - 1.0 / ws[0]
        return total

    Kn = np.empty((M, M))
    for x in range(M):
        for y in range(M):
            Kn[x, y] = T(max(w[x], w[y])) * pi[y]
        Kn[x, x] += lam(w[x]) ** n
    return Kn


# ----------------------------------------------------------------------------- moments
@dataclass(frozen=True)
class Moments:
    """Exact conditional moments of a gradient estimate g given F_{t-1}.

    ``second`` = E[||g||^2 | F], ``mean`` = E[g | F] (a d-vector), ``variance`` =
    ``second - ||mean||^2``; for JSA also ``c_cov``, the trace covariance term of Kim et al.
    2022, Theorem 3.  ``error`` is the quadrature error estimate where an integral is used.

    Parameters
    ----------
    second : float
        E[||g||^2 | F].
    mean : numpy.ndarray
        E[g | F], a d-vector.
    variance : float
        ``second - ||mean||^2``.
    c_cov : float, default 0.0
        JSA: the trace covariance term of Kim et al. (2022), Theorem 3.
    error : float, default 0.0
        The quadrature's error estimate, where an integral is used.
    """

    second: float
    mean: np.ndarray
    variance: float
    c_cov: float = 0.0
    error: float = 0.0


def _as_s(s, M):
    s = np.asarray(s, dtype=float)
    if s.ndim == 1:
        s = s[:, None]
    if s.shape[0] != M:
        raise FiniteSpaceError("s must have one row per state")
    return s


def moments_msc(K: np.ndarray, s, x: int) -> Moments:
    """MSC: g = -s(z_t), z_t ~ K(x, .).

    Parameters
    ----------
    K : numpy.ndarray
        The M x M kernel.
    s : numpy.ndarray
        The score at each state, shape (M, d).
    x : int
        The current state.

    Returns
    -------
    Moments
    """
    s = _as_s(s, K.shape[0])
    row = K[x]
    second = float(row @ (s ** 2).sum(1))
    mean = -(row @ s)
    return Moments(second, mean, second - float(mean @ mean))


def moments_pmcsa(K: np.ndarray, s, xs) -> Moments:
    """pMCSA: N independent chains at states ``xs``; g = -(1/N) sum_n s(z_n').

    Parameters
    ----------
    K : numpy.ndarray
        The M x M kernel.
    s : numpy.ndarray
        The score at each state, shape (M, d).
    xs : sequence of int
        The N chains' current states.

    Returns
    -------
    Moments
    """
    s = _as_s(s, K.shape[0])
    xs = np.asarray(xs)
    N = xs.size
    rows = K[xs]  # (N, M)
    m = rows @ s  # E s(z_n') (N, d)
    e2 = rows @ (s ** 2).sum(1)  # E ||s(z_n')||^2
    total = m.sum(0)
    second = (e2.sum() + float(total @ total) - float((m * m).sum())) / N ** 2
    mean = -total / N
    return Moments(float(second), mean, float(second - mean @ mean))


def moments_jsa(K: np.ndarray, s, x: int, N: int) -> Moments:
    """JSA: z^(n) ~ K^n(x, .) sequentially, n = 1..N; g = -(1/N) sum_n s(z^(n)).

    E[s_n . s_m] = sum_y K^n(x, y) s_y . (K^(m-n) s)_y for n <= m.

    Parameters
    ----------
    K : numpy.ndarray
        The M x M kernel.
    s : numpy.ndarray
        The score at each state, shape (M, d).
    x : int
        The state the sweep starts from.
    N : int
        The sweep's length.

    Returns
    -------
    Moments
        With ``c_cov``.
    """
    s = _as_s(s, K.shape[0])
    M = K.shape[0]
    P = np.empty((N + 1, M))
    P[0] = np.eye(M)[x]
    for n in range(1, N + 1):
        P[n] = P[n - 1] @ K
    A = [s]
    for _ in range(N - 1):
        A.append(K @ A[-1])  # A[j] = K^j s
    Es = P[1:] @ s  # (N, d) E s_n
    cross = np.zeros((N, N))
    for n in range(1, N + 1):
        for j in range(0, N - n + 1):
            cross[n - 1, n - 1 + j] = P[n] @ (s * A[j]).sum(1)
    cross = cross + np.triu(cross, 1).T
    second = cross.sum() / N ** 2
    mean = -Es.sum(0) / N
    cov = cross - Es @ Es.T
    c_cov = 2 * np.triu(cov, 1).sum() / N ** 2
    return Moments(float(second), mean, float(second - mean @ mean), float(c_cov))


#: largest number of count vectors x (dimension + 2) for the exact sum of :func:`moments_msc_rb`
MSC_RB_SUM_WORK_MAX = 4_000_000


def moments_msc_rb(pi, q, s, x: int, N: int, method: str = "auto") -> Moments:
    """MSC-RB: g = -sum_i wbar_i s(z_i) over the N particles (current x + N-1 proposals).

    ``method="sum"``: the exact expectation over the multinomial counts c of the N - 1
    proposals on the M states, ``g(c) = -(w_x s_x + sum_i c_i w_i s_i) / (w_x + c . w)``
    (C(N + M - 2, M - 1) count vectors; used when at most :data:`MSC_RB_SUM_WORK_MAX` work).
    ``method="quadrature"``: with 1/c^2 = int_0^oo t e^(-t c) dt and phi(t) = E_q e^(-t W),
    m1(t) = E_q[W s e^(-tW)], m2(t) = E_q[W^2 ||s||^2 e^(-tW)]::

        E||g||^2 = int t e^(-t w_x) [w_x^2 ||s_x||^2 phi^(N-1) + 2 (N-1) w_x s_x . m1 phi^(N-2)
                                    + (N-1) m2 phi^(N-2) + (N-1)(N-2) ||m1||^2 phi^(N-3)] dt,
        E[g] = -int e^(-t w_x) [w_x s_x phi^(N-1) + (N-1) m1 phi^(N-2)] dt.

    ``method="auto"`` (default): the sum when feasible, else the quadrature.

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    s : numpy.ndarray
        The score at each state, shape (M, d).
    x : int
        The current state.
    N : int
        The number of particles.
    method : {"auto", "sum", "quadrature"}
        As above.

    Returns
    -------
    Moments
        With ``error`` for the quadrature.
    """
    pi, q = check_pair(pi, q)
    s = _as_s(s, pi.size)
    if method not in ("auto", "sum", "quadrature"):
        raise FiniteSpaceError("method is 'auto', 'sum' or 'quadrature'")
    if method != "quadrature":
        out = _msc_rb_sum(pi, q, s, int(x), int(N))
        if out is not None:
            return out
        if method == "sum":
            raise FiniteSpaceError(
                "the exact sum is more work than MSC_RB_SUM_WORK_MAX; use method='quadrature'")
    return _msc_rb_quadrature(pi, q, s, int(x), int(N))


def _msc_rb_sum(pi, q, s, x: int, N: int):
    """Compute the exact multinomial sum of :func:`moments_msc_rb` (None if it is too much work)."""
    M, d = pi.size, s.shape[1]
    n = N - 1
    if math.comb(n + M - 1, M - 1) * (d + 2) > MSC_RB_SUM_WORK_MAX:
        return None
    w = pi / q
    C = _all_count_vectors(n, M).astype(float)
    log_fact = special.gammaln(np.arange(n + 1) + 1.0)
    p = np.exp(log_fact[n] - log_fact[_all_count_vectors(n, M)].sum(axis=1) + C @ np.log(q))
    den = w[x] + C @ w
    num = w[x] * s[x][None, :] + (C * w[None, :]) @ s
    g = -num / den[:, None]
    mean = p @ g
    second = float(p @ (g * g).sum(axis=1))
    variance = float(p @ ((g - mean[None, :]) ** 2).sum(axis=1))
    return Moments(second, mean, variance, error=0.0)


def _msc_rb_quadrature(pi, q, s, x: int, N: int) -> Moments:
    w = pi / q
    wx, sx = w[x], s[x]
    d = s.shape[1]
    s2 = (s ** 2).sum(1)

    def pieces(t):
        e = q * np.exp(-t * (w - w.min()))  # scaled by e^(t w_min) for stability
        phi = e.sum()
        m1 = (e * w) @ s
        m2 = (e * w ** 2) @ s2
        return phi, m1, m2

    wmin = w.min()

    def second_integrand(t):
        phi, m1, m2 = pieces(t)
        # every term carries e^(-t (w_x + (N-1) w_min)) after the rescaling
        scale = np.exp(-t * (wx + (N - 1) * wmin))
        val = wx ** 2 * (sx @ sx) * phi ** (N - 1)
        if N >= 2:
            val += 2 * (N - 1) * wx * (sx @ m1) * phi ** (N - 2) + (N - 1) * m2 * phi ** (N - 2)
        if N >= 3:
            val += (N - 1) * (N - 2) * (m1 @ m1) * phi ** (N - 3)
        return np.array([t * scale * val])

    def mean_integrand(t):
        phi, m1, _ = pieces(t)
        scale = np.exp(-t * (wx + (N - 1) * wmin))
        val = wx * sx * phi ** (N - 1)
        if N >= 2:
            val = val + (N - 1) * m1 * phi ** (N - 2)
        return scale * val

    # the integrands decay at the rates w_x + (N-1) w_min + (w_i - w_min): split at their time
    # scales and, for large N, at 1/(w_x + (N - 1) E_q W): phi^(N-1) decays like exp(-(N - 1) t E_q
    # W) first
    rates = np.concatenate([[wx + (N - 1) * wmin, wx + (N - 1) * float(q @ w)],
                            wx + (N - 1) * wmin + (w - wmin)])

    def both(t):  # the two integrands at many t at once: (len(t), 1 + d)
        e = q[None, :] * np.exp(-t[:, None] * (w - wmin)[None, :])
        phi = e.sum(1)
        m1 = (e * w[None, :]) @ s
        m2 = (e * (w ** 2)[None, :]) @ s2
        scale = np.exp(-t * (wx + (N - 1) * wmin))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            p1, p2 = phi ** (N - 1), phi ** (N - 2) if N >= 2 else 0.0
            val = wx ** 2 * (sx @ sx) * p1
            mval = wx * sx[None, :] * p1[:, None]
            if N >= 2:
                val = val + 2 * (N - 1) * wx * (m1 @ sx) * p2 + (N - 1) * m2 * p2
                mval = mval + (N - 1) * m1 * cast(np.ndarray, p2)[:, None]
            if N >= 3:
                val = val + (N - 1) * (N - 2) * (m1 * m1).sum(1) * phi ** (N - 3)
        return np.column_stack([t * scale * val, scale[:, None] * mval])

    fast = _gauss_legendre_split(both, rates)
    if fast is not None:
        v, err = fast
        mean = -v[1:]
        second = float(v[0])
        return Moments(second, mean, second - float(mean @ mean), error=err)
    sec, e1 = _split_quad(second_integrand, rates)
    mean, e2 = _split_quad(mean_integrand, rates)
    mean = -np.asarray(mean).reshape(d)
    second = float(np.asarray(sec)[0])
    return Moments(second, mean, second - float(mean @ mean), error=float(e1 + e2))


def moments_msc_rb_enumerate(pi, q, s, x: int, N: int) -> Moments:
    """MSC-RB moments by enumerating the proposal multisets (small spaces; tests).

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    s : numpy.ndarray
        The score at each state, shape (M, d).
    x : int
        The current state.
    N : int
        The number of particles.

    Returns
    -------
    Moments
    """
    pi, q = check_pair(pi, q)
    s = _as_s(s, pi.size)
    w = pi / q
    M = w.size
    second = 0.0
    mean = np.zeros(s.shape[1])
    for c in _compositions(N - 1, M):
        logp = (special.gammaln(N) - sum(special.gammaln(ci + 1) for ci in c)
                + sum(ci * np.log(qq) for ci, qq in zip(c, q)))
        p = math.exp(logp)
        num = w[x] * s[x] + sum(ci * w[i] * s[i] for i, ci in enumerate(c))
        den = w[x] + sum(ci * w[i] for i, ci in enumerate(c))
        g = -num / den
        second += p * float(g @ g)
        mean += p * g
    return Moments(second, mean, second - float(mean @ mean))


# ----------------------------------------------------------------------------- instances
def hard_instance(M: int, w_star: float, seed: int = 0, pi0: float = 0.3):
    """(pi, q) on M states with sup_z pi/q = w_star attained at state 0.

    pi_0 = ``pi0``; q_0 = pi_0 / w*; the other states share 1 - q_0 in proportion to pi,
    so their weights (1 - pi_0)/(1 - q_0) are < 1 <= w*.

    Parameters
    ----------
    M : int
        The number of states.
    w_star : float
        w* >= 1.
    seed : int, default 0
        Seed of the Dirichlet draw that splits 1 - pi_0 among the other states.
    pi0 : float, default 0.3
        pi at state 0.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        pi and q.
    """
    if w_star < 1:
        raise FiniteSpaceError("w* >= 1")
    rng = np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(M,))))
    rest = rng.dirichlet(np.ones(M - 1)) * (1 - pi0)
    pi = np.concatenate([[pi0], rest])
    q0 = pi0 / w_star
    q = np.concatenate([[q0], rest * (1 - q0) / (1 - pi0)])
    return pi, q


def centred_bounded_score(pi, L: float) -> np.ndarray:
    """Build a scalar test score: ``|s| <= L``, E_pi s = 0, s = L at state 0 (needs pi_0 <= 1/2).

    Parameters
    ----------
    pi : numpy.ndarray
        The target on M states.
    L : float
        The score bound (Kim et al. 2022, Assumption 3).

    Returns
    -------
    numpy.ndarray
        s, shape (M, 1).
    """
    pi = np.asarray(pi, float)
    if pi[0] > 0.5:
        raise FiniteSpaceError("needs pi_0 <= 1/2")
    s = np.full(pi.size, -pi[0] * L / (1 - pi[0]))
    s[0] = L
    return s[:, None]


def imh_lambda(pi, q, w_value: float, measure: str = "q") -> float:
    """Compute the IMH rejection probability lambda(w) at a state of weight w.

    lambda(w) = sum_{w_y <= w} (1 - w_y/w) mu_y with mu = q (the IMH rejection
    probability at a state of weight w) or mu = pi (Kim et al. 2022, Eq. (3) as printed).

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    w_value : float
        The weight w.
    measure : {"q", "pi"}
        The measure mu.

    Returns
    -------
    float
        lambda(w).
    """
    pi, q = check_pair(pi, q)
    w = pi / q
    mu = q if measure == "q" else pi
    sel = w <= w_value
    return float((mu[sel] * (1 - w[sel] / w_value)).sum())


def imh_T(pi, q, n: int, w_value: float) -> float:
    """T_n(w) = int_w^oo n/v^2 lambda(v)^(n-1) dv, exactly (piecewise closed form).

    Parameters
    ----------
    pi, q : array_like
        The target and the proposal, probability vectors on the same finite space.

    n : int
        The number of steps.
    w_value : float
        The weight w.

    Returns
    -------
    float
        T_n(w) (Kim et al. 2022, Eq. (2)).
    """
    pi, q = check_pair(pi, q)
    w = np.sort(pi / q)
    order = np.argsort(pi / q)
    A = np.cumsum(q[order])
    B = np.cumsum(q[order] * w)
    total = 0.0
    M = w.size
    for j in range(M):
        lo = max(w[j], w_value)
        hi = w[j + 1] if j + 1 < M else np.inf
        if hi <= lo:
            continue
        u_lo, u_hi = 1.0 / lo, (0.0 if np.isinf(hi) else 1.0 / hi)
        total += ((A[j] - B[j] * u_hi) ** n - (A[j] - B[j] * u_lo) ** n) / B[j]
    if w_value < w[0]:  # lambda = 0 below the smallest weight
        total += (1.0 / w_value - 1.0 / w[0]) if n == 1 else 0.0
    return total


def jsa_joint_law(K: np.ndarray, x0: int, N: int, k: int) -> np.ndarray:
    """Law of JSA's N-tuple (z^(1), ..., z^(N)) after k iterations from z_0^(N) = x0.

    The sweep of iteration k starts from the last state of iteration k-1, distributed as
    K^(N(k-1))(x0, .); the N states then follow one Markov path.  Shape (M,)*N.

    Parameters
    ----------
    K : numpy.ndarray
        The M x M kernel.
    x0 : int
        The starting state.
    N : int
        The sweep's length.
    k : int
        The iteration, k >= 1.

    Returns
    -------
    numpy.ndarray
        Shape (M,) * N.
    """
    M = K.shape[0]
    start = np.linalg.matrix_power(K, N * (k - 1))[x0]
    law = start @ K  # z^(1)
    for _ in range(N - 1):
        law = law[..., :, None] * K[(None,) * (law.ndim - 1)] if law.ndim > 1 else law[:, None] * K
    return law.reshape((M,) * N)


def product_law(rows: list[np.ndarray]) -> np.ndarray:
    """Outer product of marginal laws (independent components).

    Parameters
    ----------
    rows : list of numpy.ndarray
        The marginal laws.

    Returns
    -------
    numpy.ndarray
        Their joint law, one axis per component.
    """
    out = rows[0]
    for r in rows[1:]:
        out = np.multiply.outer(out, r)
    return out


def tv_joint(P: np.ndarray, Q: np.ndarray) -> float:
    """Compute the total variation distance of two joint distributions (arrays of one shape).

    Parameters
    ----------
    P, Q : numpy.ndarray
        Two distributions of one shape.

    Returns
    -------
    float
    """
    return 0.5 * float(np.abs(P - Q).sum())
