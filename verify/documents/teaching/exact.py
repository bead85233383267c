"""The numbers of the teaching document, computed exactly with :class:`fractions.Fraction`.

Every quantity here lives on a finite state space, so it is rational: the kernels of IMH and CIS
(Kim et al., NeurIPS 2022, App. B Algorithms 2-3), their powers, total variation distances, the
conditional and stationary second moments of the four estimators (§4-§5.1), and the two-state
transient of notebook 08 (whose powers r^t are rational too).  Nothing is rounded, so an identity is
checked as an identity and an inequality's sign is exact.  Floats enter only as the exact binary
rationals they are (``Fraction(0.3)``), where an instance of the notebooks is recomputed.

This module imports nothing from the toolkit: it shares no code with :mod:`simulate.finite`, whose
float computations the notebooks and figures use, so a bug there is not reproduced here.

Every ``*_rows`` function returns rows ``(quantity, params, empirical, bound, relation)`` with exact
``Fraction`` values; :mod:`verify.documents.teaching.checks` turns them into checks.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

Fr = Fraction


# ----------------------------------------------------------------------------- finite spaces
def weights(pi, q):
    return [a / b for a, b in zip(pi, q)]


def imh_kernel(pi, q):
    """IMH (Algorithm 3): propose y ~ q, accept with min(1, w(y)/w(x)); exact rows."""
    w, M = weights(pi, q), len(pi)
    K = []
    for x in range(M):
        row = [q[y] * min(Fr(1), w[y] / w[x]) if y != x else Fr(0) for y in range(M)]
        row[x] = 1 - sum(row)
        K.append(row)
    return K


def compositions(n: int, m: int):
    """Every vector of m non-negative integers with sum n."""
    if m == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, m - 1):
            yield (first,) + rest


def multinomial(c, q) -> Fraction:
    p = Fr(math.factorial(sum(c)))
    for ci, qi in zip(c, q):
        p = p * qi ** ci / math.factorial(ci)
    return p


def cis_kernel(pi, q, N: int):
    """CIS / i-SIR with N particles (Algorithm 2): the current state and N - 1 proposals from q,
    one picked with probability proportional to its weight; exact rows, by the proposals' counts."""
    w, M = weights(pi, q), len(pi)
    K = [[Fr(0)] * M for _ in range(M)]
    for c in compositions(N - 1, M):
        p = multinomial(c, q)
        for x in range(M):
            n = [c[i] + (i == x) for i in range(M)]
            total = sum(n[i] * w[i] for i in range(M))
            for y in range(M):
                K[x][y] += p * n[y] * w[y] / total
    return K


def row_times(row, K):
    return [sum(row[x] * K[x][y] for x in range(len(row))) for y in range(len(K[0]))]


def times_vec(K, v):
    return [sum(K[x][y] * v[y] for y in range(len(v))) for x in range(len(K))]


def row_power(K, x: int, k: int):
    row = [Fr(int(y == x)) for y in range(len(K))]
    for _ in range(k):
        row = row_times(row, K)
    return row


def tv(mu, nu) -> Fraction:
    return sum(abs(a - b) for a, b in zip(mu, nu)) / 2


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


# ----------------------------------------------------------------------------- estimators
def pmcsa_conditional(K, s, xs):
    """pMCSA: N independent chains at states ``xs``, one IMH step each; g = -(1/N) sum s(z_n'):
    (second moment, mean of the average of the scores, variance)."""
    N = len(xs)
    m = [dot(K[x], s) for x in xs]
    e2 = [dot(K[x], [v * v for v in s]) for x in xs]
    total = sum(m)
    second = (sum(e2) + total * total - sum(v * v for v in m)) / (N * N)
    mean = total / N
    return second, mean, second - mean * mean


def jsa_conditional(K, s, x: int, N: int):
    """JSA: N consecutive IMH states from x, g = -(1/N) sum s(z_n): (second, mean, variance)."""
    rows = [row_power(K, x, n) for n in range(1, N + 1)]   # law of z_n
    Ks = [list(s)]                                          # K^j s
    for _ in range(N - 1):
        Ks.append(times_vec(K, Ks[-1]))
    cross = Fr(0)
    for a in range(N):
        for b in range(a, N):
            term = dot(rows[a], [s[y] * Ks[b - a][y] for y in range(len(s))])
            cross += term if a == b else 2 * term
    second = cross / (N * N)
    mean = sum(dot(r, s) for r in rows) / N
    return second, mean, second - mean * mean


def msc_conditional(Kc, s, x: int):
    """MSC: the score of the one particle CIS keeps: (second, mean, variance) given x."""
    second = dot(Kc[x], [v * v for v in s])
    mean = dot(Kc[x], s)
    return second, mean, second - mean * mean


def msc_rb_conditional(pi, q, s, x: int, N: int):
    """MSC-RB: the N particles (x and N - 1 proposals from q) averaged with their self-normalised
    weights: (second, mean, variance) given x, by the proposals' counts."""
    w, M = weights(pi, q), len(pi)
    second, mean = Fr(0), Fr(0)
    for c in compositions(N - 1, M):
        p = multinomial(c, q)
        n = [c[i] + (i == x) for i in range(M)]
        g = sum(n[i] * w[i] * s[i] for i in range(M)) / sum(n[i] * w[i] for i in range(M))
        second += p * g * g
        mean += p * g
    return second, mean, second - mean * mean


def stationary(pi, q, s, N: int) -> dict:
    """Each scheme's E g^2 with the state entering the iteration drawn from pi (every chain)."""
    M = len(pi)
    K = imh_kernel(pi, q)
    Kc = cis_kernel(pi, q, N)
    out = {"MSC": sum(pi[x] * msc_conditional(Kc, s, x)[0] for x in range(M)),
           "MSC-RB": sum(pi[x] * msc_rb_conditional(pi, q, s, x, N)[0] for x in range(M)),
           "JSA": sum(pi[x] * jsa_conditional(K, s, x, N)[0] for x in range(M))}
    mean = dot(pi, s)
    out["pMCSA"] = dot(pi, [v * v for v in s]) / N + (1 - Fr(1, N)) * mean * mean
    return out


def principal_minors(A):
    """Every principal minor of a square matrix (exact determinants by fraction elimination)."""
    M = len(A)
    out = []
    for size in range(1, M + 1):
        for idx in combinations(range(M), size):
            out.append(det([[A[i][j] for j in idx] for i in idx]))
    return out


def det(A) -> Fraction:
    A = [list(r) for r in A]
    n, d = len(A), Fr(1)
    for i in range(n):
        piv = next((r for r in range(i, n) if A[r][i] != 0), None)
        if piv is None:
            return Fr(0)
        if piv != i:
            A[i], A[piv] = A[piv], A[i]
            d = -d
        d *= A[i][i]
        for r in range(i + 1, n):
            f = A[r][i] / A[i][i]
            A[r] = [a - f * b for a, b in zip(A[r], A[i])]
    return d


# ----------------------------------------------------------------------------- instances
def rational_instances(seed: int, count: int, max_states: int = 4, w_max: Fraction | None = None):
    """``count`` finite pairs (pi, q) with small denominators and a score s (integers in [-3, 3],
    not all equal), drawn from ``numpy.random.SeedSequence(seed)``; with ``w_max`` every weight
    is below it (q close to pi)."""
    import numpy as np

    rng = np.random.default_rng(np.random.SeedSequence([seed, 36]))
    out: list = []
    while len(out) < count:
        M = int(rng.integers(2, max_states + 1))
        a = rng.integers(1, 9, size=M)
        pi = [Fr(int(v), int(a.sum())) for v in a]
        if w_max is None:
            b = rng.integers(1, 9, size=M)
        else:  # a perturbation of pi small enough for the weights to stay below w_max
            b = a * 20 + rng.integers(-3, 4, size=M)
            b = np.maximum(b, 1)
        q = [Fr(int(v), int(b.sum())) for v in b]
        s = [Fr(int(v)) for v in rng.integers(-3, 4, size=M)]
        if len(set(s)) == 1:
            continue
        if w_max is not None and max(weights(pi, q)) >= w_max:
            continue
        out.append((pi, q, s))
    return out


def two_state(w_star: Fraction, pi0: Fraction = Fr(3, 10)):
    """The lecture's two-state instance: z* = state 0 with pi(z*) = pi0 and weight w*, the
    centred score s = (1, -pi0/(1 - pi0)) (L = 1, E_pi s = 0)."""
    pi = [pi0, 1 - pi0]
    q0 = pi0 / w_star
    q = [q0, 1 - q0]
    s = [Fr(1), -pi0 / (1 - pi0)]
    return pi, q, s


#: the three-state counterexample of notebook 08 and Exercise 11
COUNTEREXAMPLE = ([Fr(1, 2), Fr(1, 4), Fr(1, 4)], [Fr(1, 10), Fr(9, 20), Fr(9, 20)],
                  [Fr(0), Fr(1), Fr(-1)])


@lru_cache(maxsize=4)
def notebook03_instance():
    """Notebook 03's 4-state instance (w* = 10, seed 0) as the exact rationals its floats are:
    the same random draw as :func:`simulate.finite.hard_instance`, recomputed here."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=0, spawn_key=(4,))))
    rest = rng.dirichlet(np.ones(3)) * (1 - 0.3)
    pi_f = np.concatenate([[0.3], rest])
    q0 = 0.3 / 10.0
    q_f = np.concatenate([[q0], rest * (1 - q0) / (1 - 0.3)])
    s_f = np.full(4, -0.3 / (1 - 0.3))
    s_f[0] = 1.0
    to = lambda v: tuple(Fr(float(x)) for x in v)  # noqa: E731
    return to(pi_f), to(q_f), to(s_f)


# ----------------------------------------------------------------------------- the transient
def transient_moments(w_star: Fraction, t: int, N: int, pi0: Fraction = Fr(3, 10)):
    """pMCSA's and JSA's E||g_t||^2 at iteration t, every chain started at z* of the two-state
    instance (notebook 08 §3), exactly.

    The chain is two-state with second eigenvalue r = 1 - 1/w*, and the centred score is its
    eigenvector: K^j s = r^j s, and the law after j steps from z* puts pi0 + (1 - pi0) r^j on z*.
    pMCSA: N independent chains after t steps.  JSA: the sweep of iteration t starts from the law
    after N(t - 1) steps and E[s(z_m) s(z_n)] = r^(n-m) E[s(z_m)^2] (m <= n)."""
    pi, q, s = two_state(w_star, pi0)
    r = 1 - 1 / w_star
    c2 = s[1] * s[1]
    rt = r ** t
    P_t = pi0 + (1 - pi0) * rt  # a chain's mass on z* after t steps
    pm = (P_t + (1 - P_t) * c2) / N + (1 - Fr(1, N)) * rt * rt  # E s(z_t) = r^t (s(z*) = 1)
    # JSA: E s(z_m)^2 = c2 + (1 - c2) P_m, P_m = pi0 + (1 - pi0) R r^m with R = r^(N(t - 1)), and
    # sum_{m <= n} with weight 1 (m = n) or 2 r^(n - m): only R is a large power
    R = r ** (N * (t - 1))
    rp = [r ** j for j in range(N + 1)]
    A = [1 + 2 * sum(rp[1:N - m + 1]) for m in range(1, N + 1)]  # 1 + 2 sum_{d=1}^{N-m} r^d
    const = c2 + (1 - c2) * pi0
    tail = sum(a * rp[m] for a, m in zip(A, range(1, N + 1)))
    jsa = const * sum(A) + (1 - c2) * (1 - pi0) * R * tail
    return pm, jsa / (N * N)
