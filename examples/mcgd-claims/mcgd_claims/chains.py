"""Exact computations on finite Markov chains with rational transition matrices.

A chain is a list of rows of :class:`fractions.Fraction` (each row sums to exactly 1).
What can be exact is: the stationary distribution ``pi`` (the GTH algorithm in rational
arithmetic), Dobrushin's coefficient ``delta(P) = max_{x,y} ||P(x,.) - P(y,.)||_TV`` and
``pi(f)``.  Matrix powers ``P^n`` and sums ``sum_t P^t`` for n up to 10^7 are computed in
float64 by binary powering (O(log n) products) with a rigorous error bound: every matrix
involved is non-negative, so a product ``fl(A B)`` is within ``gamma_m A B``
componentwise (``gamma_m = m u / (1 - m u)``, ``u = 2^-53``; Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed., 2002, §3.5), the float copy of ``P`` is
within ``u P``, and the relative errors of the factors multiply (:func:`window_sum`).

``P^n`` and the window sums are also exact where a check needs it (:func:`window_exact`,
python-flint, n <= :data:`EXACT_N`).

No sympy and nothing of mcsa-verify is imported here: the module serves the checks, the
search space and the teaching notebook alike.
"""

from __future__ import annotations

import functools
import math
import zlib
from fractions import Fraction

import numpy as np

U = 2.0 ** -53  # unit roundoff of float64

#: the chain families of the grids, from easy to extreme
KINDS = ("dense", "sparse", "metropolis", "rank_one", "nearly_reducible", "two_state")

#: the two readings of "the time average along the chain started at x": the states averaged
WINDOWS = ("0..n-1", "1..n")


def gamma(m: int) -> float:
    """``gamma_m = m u / (1 - m u)``: the relative error of a length-m dot product of non-negative
    terms.
    """
    return m * U / (1 - m * U)


def generator(seed: int, *key) -> np.random.Generator:
    """A generator for ``(seed, *key)``: ``SeedSequence(seed, spawn_key=key)``, strings as
    CRC-32.
    """
    spawn = tuple(zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in key)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=spawn)))


# ----------------------------------------------------------------------------- chains
def stochastic(weights) -> list[list[Fraction]]:
    """Rows of non-negative weights (ints or Fractions) normalised exactly: ``P(x, y) = w_xy / sum_y
    w_xy``.
    """
    rows = []
    for w in weights:
        w = [Fraction(v) for v in w]
        s = sum(w, Fraction(0))
        if s <= 0 or min(w) < 0:
            raise ValueError("every row needs non-negative weights with a positive sum")
        rows.append([v / s for v in w])
    return rows


def make_chain(kind: str, m: int, rng: np.random.Generator) -> list[list[Fraction]]:
    """A random chain of one family (``m`` states; ``two_state`` always has 2).

    ``dense``            weights uniform on 1..2^16;
    ``sparse``           about half the weights 0, every row keeps state 0 (so delta < 1);
    ``metropolis``       Metropolis chain of a random target with one state of tiny mass
                         (reversible, uniform proposal);
    ``rank_one``         every row the same distribution with one tiny entry: delta = 0,
                         where the bound is attained up to the factor 1 - pi(x);
    ``nearly_reducible`` two blocks joined by a 10^-6 teleport: delta = 1 - O(10^-6);
    ``two_state``        ``[[1-a, a], [b, 1-b]]``, delta = |1 - a - b| (a + b > 1 oscillates).
    """
    if kind == "dense":
        return stochastic(rng.integers(1, 2 ** 16, (m, m)).tolist())
    if kind == "sparse":
        w = rng.integers(1, 2 ** 16, (m, m)) * (rng.random((m, m)) < 0.5)
        w[:, 0] = rng.integers(1, 2 ** 16, m)
        return stochastic(w.tolist())
    if kind == "metropolis":
        w = [int(v) for v in rng.integers(1, 1000, m)]
        w[int(rng.integers(m))] = 1  # a state of tiny mass: slow to leave the others for
        P = [[Fraction(0)] * m for _ in range(m)]
        for x in range(m):
            for y in range(m):
                if y != x:
                    P[x][y] = Fraction(1, m - 1) * min(Fraction(1), Fraction(w[y], w[x]))
            P[x][x] = 1 - sum(P[x], Fraction(0))
        return P
    if kind == "rank_one":
        pi = [int(v) for v in rng.integers(1, 2 ** 16, m)]
        pi[int(rng.integers(m))] = 0
        row = stochastic([pi])[0]
        tiny = next(i for i, v in enumerate(row) if v == 0)
        row = [v * (1 - Fraction(1, 2 ** 20)) for v in row]
        row[tiny] = Fraction(1, 2 ** 20)
        return [row[:] for _ in range(m)]
    if kind == "nearly_reducible":
        eps = Fraction(1, 10 ** 6)
        h = (m + 1) // 2
        blocks = [(0, h), (h, m)]
        P = []
        for x in range(m):
            lo, hi = next(b for b in blocks if b[0] <= x < b[1])
            inside = stochastic([rng.integers(1, 2 ** 16, hi - lo).tolist()])[0]
            P.append([eps / m + (1 - eps) * (inside[y - lo] if lo <= y < hi else 0)
                      for y in range(m)])
        return P
    if kind == "two_state":
        a, b = (Fraction(int(v), 1000) for v in rng.integers(1, 1000, 2))
        return [[1 - a, a], [b, 1 - b]]
    raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")


def stationary(P) -> list[Fraction]:
    """The stationary distribution, exactly: Grassmann-Taksar-Heyman state reduction in
    rational arithmetic, or Gaussian elimination where the reduction breaks down (a state
    that cannot reach the lower-numbered ones).  ValueError if it is not unique."""
    m = len(P)
    A = [list(map(Fraction, row)) for row in P]
    s = [Fraction(1)] * m
    for k in range(m - 1, 0, -1):
        s[k] = sum(A[k][:k], Fraction(0))
        if s[k] == 0:  # e.g. transient low-numbered states: solve the linear system instead
            return _solve_stationary(P)
        for i in range(k):
            if A[i][k]:
                c = A[i][k] / s[k]
                for j in range(k):
                    A[i][j] += c * A[k][j]
    pi = [Fraction(1)] + [Fraction(0)] * (m - 1)
    for k in range(1, m):
        pi[k] = sum((pi[i] * A[i][k] for i in range(k)), Fraction(0)) / s[k]
    total = sum(pi, Fraction(0))
    return [p / total for p in pi]


def _solve_stationary(P) -> list[Fraction]:
    """pi (P - I) = 0, sum(pi) = 1 by exact Gaussian elimination (ValueError if singular)."""
    m = len(P)
    # unknowns pi_0..pi_{m-1}; equations: columns of P - I (m - 1 of them) and the normalisation
    rows = [[Fraction(P[x][y]) - (x == y) for x in range(m)] + [Fraction(0)] for y in range(m - 1)]
    rows.append([Fraction(1)] * m + [Fraction(1)])
    for c in range(m):
        piv = next((r for r in range(c, m) if rows[r][c] != 0), None)
        if piv is None:
            raise ValueError("the stationary distribution is not unique")
        rows[c], rows[piv] = rows[piv], rows[c]
        for r in range(m):
            if r != c and rows[r][c] != 0:
                q = rows[r][c] / rows[c][c]
                rows[r] = [a - q * b for a, b in zip(rows[r], rows[c])]
    return [rows[c][m] / rows[c][c] for c in range(m)]


def dobrushin(P) -> Fraction:
    """Dobrushin's contraction coefficient ``max_{x,y} (1/2) sum_z |P(x,z) - P(y,z)|``, exactly."""
    m = len(P)
    best = Fraction(0)
    for x in range(m):
        for y in range(x + 1, m):
            best = max(best, sum((abs(a - b) for a, b in zip(P[x], P[y])), Fraction(0)) / 2)
    return best


def as_float(P) -> np.ndarray:
    """The float64 copy of P (each entry correctly rounded: within u of it, relatively)."""
    return np.array([[float(v) for v in row] for row in P])


# ----------------------------------------------------------------------------- powers
def window_sum(Pf: np.ndarray, n: int, first: int = 0):
    """``(A, S, eA, eS)``: ``A ~ P^n`` and ``S ~ sum_{t=first}^{first+n-1} P^t`` (``first`` 0 or 1)
    by binary powering, with ``eA``, ``eS`` such that ``|A - P^n| <= eA P^n`` and
    ``|S - S_exact| <= eS S_exact`` componentwise.

    Steps (most significant bit first), with ``k -> 2k``: ``S <- S + A S``, ``A <- A A``;
    and ``k -> k + 1``: ``S <- I + P S``, ``A <- P A``.  Relative error factors
    ``rho = 1 + e`` multiply: a product contributes ``rho_A rho_B (1 + gamma_m)``, a sum
    of non-negative terms ``max(rho) (1 + u)``, the float copy of P ``1 + u``.  They are
    accumulated as logarithms (``log1p``), so that an ``e`` of 1e-15 keeps its digits.
    """
    m = Pf.shape[0]
    I = np.eye(m)  # noqa: E741 -- I is the document's notation
    lg, lu = math.log1p(gamma(m)), math.log1p(U)
    A, S = I.copy(), np.zeros((m, m))
    la = ls = 0.0  # log rho_A, log rho_S
    for bit in bin(int(n))[2:]:
        S = S + A @ S
        ls = la + ls + lg + lu
        A = A @ A
        la = 2 * la + lg
        if bit == "1":
            S = I + Pf @ S
            ls = lu + ls + lg + lu
            A = Pf @ A
            la = lu + la + lg
    if first:
        S = Pf @ S
        ls = lu + ls + lg
    return A, S, math.expm1(la), math.expm1(ls)


def row_l1_error(e: float, m: int) -> float:
    """Bound on the error of the computed ``sum_y |S(x,y)/c - pi(y)|`` when ``|S - S_exact| <=
    e S_exact``, the rows of ``S_exact / c`` and ``pi`` are probability vectors and ``pi`` is
    correctly rounded: the terms ``e1 S/c + u pi + u (|a| + |b|)`` summed over y (each row sums
    to 1) give ``e1 + 3u`` (plus products of u), ``e1 = (1 + e)(1 + u) - 1`` for the division
    by c, and the float sum of m non-negative terms adds ``gamma_m`` times the total (<= 2)."""
    g = gamma(m)
    e1 = e + U + e * U
    return (e1 + 3 * U) * (1 + U + g) + 2 * g


# ----------------------------------------------------------------------------- the quantities
def worst_bias(S: np.ndarray, eS: float, n: int, pi) -> tuple[float, int, float]:
    """``(b, x, err)``: ``b = max_x sum_y |S(x,y)/n - pi(y)|``, the largest bias of the time
    average over the test functions with ``max |f| <= 1`` (attained by ``f = sign(mu - pi)``,
    ``mu = S(x,.)/n``), the start x attaining it, and the bound ``err`` on its float error."""
    pif = np.array([float(p) for p in pi])
    l1 = np.abs(S / n - pif).sum(axis=1)
    x = int(np.argmax(l1))
    return float(l1[x]), x, row_l1_error(eS, len(pi))


def function_bias(S: np.ndarray, eS: float, n: int, pi, f: np.ndarray) -> tuple[float, int, float]:
    """``(b, x, err)`` for one test function ``f``: ``b = max_x |(S f)(x)/n - pi(f)|``.

    ``pi(f)`` is exact (rational), then rounded.  ``|fl(S f) - S_exact f| <= (eS + gamma_m
    (1 + eS)) n max|f|`` (rows of S sum to n); the division, the rounding of ``pi(f)`` and the
    subtraction add ``4u max|f|`` (to first order in u, kept with a factor 1 + 3u)."""
    m = len(pi)
    F = float(np.max(np.abs(f)))
    pi_f = float(sum((p * Fraction(float(v)) for p, v in zip(pi, f)), Fraction(0)))
    vals = np.abs(S @ f / n - pi_f)
    x = int(np.argmax(vals))
    e2 = eS + gamma(m) * (1 + eS)
    return float(vals[x]), x, F * (e2 + 4 * U) * (1 + 3 * U)


def tv_distance(A: np.ndarray, eA: float, pi) -> tuple[float, int, float]:
    """``(d, x, err)``: ``d = max_x ||A(x,.) - pi||_TV`` (A ~ P^t), its argmax and error bound."""
    b, x, err = worst_bias(A, eA, 1, pi)
    return b / 2, x, err / 2


#: the largest n for which :func:`window_exact` is used (a 3-state chain's sum to 10^5 takes about
#: a second; to 10^6, twenty)
EXACT_N = 10 ** 5


@functools.lru_cache(maxsize=64)
def _window_exact(P: tuple, n: int, first: int):
    from flint import fmpq, fmpq_mat

    m = len(P)
    Pq = fmpq_mat(m, m, [fmpq(v.numerator, v.denominator) for row in P for v in row])
    I = fmpq_mat(m, m, [int(i == j) for i in range(m) for j in range(m)])  # noqa: E741
    A, S = I, fmpq_mat(m, m)
    for bit in bin(int(n))[2:]:  # the steps of window_sum, exactly
        S, A = S + A * S, A * A
        if bit == "1":
            S, A = I + Pq * S, Pq * A
    if first:
        S = Pq * S
    return A, S


def window_exact(P, n: int, first: int = 0):
    """``(A, S)`` of :func:`window_sum` exactly: ``P^n`` and ``sum_{t=first}^{first+n-1} P^t`` as
    python-flint ``fmpq_mat`` (rational arithmetic), for the checks the float enclosures cannot
    decide, such as a bound attained with equality.  Cached (the stated, explicit and random-f
    rows share one sum)."""
    return _window_exact(tuple(tuple(row) for row in P), int(n), int(first))


def _q(v):
    from flint import fmpq

    v = Fraction(v)
    return fmpq(v.numerator, v.denominator)


def worst_bias_exact(S, n: int, pi):
    """:func:`worst_bias`'s ``b`` exactly (an ``fmpq``), from an exact ``S`` (``fmpq_mat``)."""
    m, piq = len(pi), [_q(p) for p in pi]
    return max(sum((abs(S[x, y] / n - piq[y]) for y in range(m)), _q(0)) for x in range(m))


def function_bias_exact(S, n: int, pi, f):
    """:func:`function_bias`'s ``b`` exactly (``f``'s doubles read as the binary fractions they
    are)."""
    m, fq = len(pi), [_q(float(v)) for v in f]
    pi_f = sum((_q(p) * v for p, v in zip(pi, fq)), _q(0))
    return max(abs(sum((S[x, y] * fq[y] for y in range(m)), _q(0)) / n - pi_f)
               for x in range(m))


def tv_exact(P, t: int, pi):
    """``max_x ||P^t(x,.) - pi||_TV`` exactly, from :func:`window_exact`'s ``P^t`` (d(t) at or
    below the float resolution, e.g. exactly 0 for a rank-one chain, or attaining delta^t)."""
    A, _ = window_exact(P, t)
    return worst_bias_exact(A, 1, pi) / 2


def simulate_average(Pf: np.ndarray, x: int, f: np.ndarray, n: int, R: int,
                     rng: np.random.Generator,
                     first: int = 0) -> tuple[float, float]:
    """Monte Carlo ``(mean, stderr)`` of ``(1/n) sum_{t=first}^{first+n-1} f(X_t)`` over R
    independent chains started at x (inverse-CDF steps on the float rows of P)."""
    cum = np.cumsum(Pf, axis=1)
    cum[:, -1] = np.inf  # the last state takes what rounding leaves of [0, 1)
    X = np.full(R, x)
    total = np.zeros(R)
    for t in range(first + n):
        if t >= first:
            total += f[X]
        u = rng.random(R)
        X = (cum[X] <= u[:, None]).sum(axis=1)
    avg = total / n
    return float(avg.mean()), float(avg.std(ddof=1) / math.sqrt(R))
