"""Checks of the sentences, displays, tables and algorithm boxes of Kim et al. (NeurIPS 2022)
that are not steps of the appendix proofs (those are :mod:`.proofs`).

Each checkable statement of ``coverage.json`` that no claim or proof step covered is a step
here: the statement as a relation between two computed sides, checked on exact instances
(finite state spaces: exact matrices and sums; Gaussian pairs: closed forms; the paper's own
Tables 3-4: the printed numbers), every computed relation attacked by the adversarial search
through :func:`~verify.audit.engine.searchable` / :func:`~verify.audit.engine.free`.

Instances.  Two kinds of instances are added to the engine's (``register_kind``):

``pqs``   a finite pair (pi, q) on M = 2, 3, 5, 8 states with a scalar score s in [-1, 1]^M
          (the regimes of the engine's ``pairs``: atoms, w* -> oo, q near pi, q = pi);
``pqnu``  a finite triple (pi, q, nu): a target, a proposal and the heavy-tailed component of a
          defensive mixture (001 §4.1).

Readings.  A statement that depends on how it is read gets one step per reading, each with
``reading=`` naming it and the quote that supports it in its docstring; a reading that another
sentence of the document rules out is not encoded, and the sentence is quoted (``DROPPED``).

Step ids are ``statements.<name>`` (claim ``statements``: sentences of 001 that are not a
numbered result), except ``table1.sgd_stepsize`` (the statement step of claim ``table1``).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from simulate import finite as F
from verify.audit.adversary import Int, PairsWith, Real, free, register_kind
from verify.audit.engine import step_table
from verify.audit.instances import (
    explain,
    finite_pairs,
    first_failing,
    instance_check,
    searchable,
)
from verify.audit.outcome import UNCHECKED, VALID, WRONG, Outcome, fixed
from verify.audit.symbolic import sym_le

SEED = "001"  # Kim et al. (NeurIPS 2022)
#: declares a step; its printed text is in statements.toml
step = step_table(__name__, seed=SEED)
CLAIM = "statements"  # sentences of 001 that are not a numbered result
U = float(np.finfo(float).eps) / 2  # unit roundoff


# ============================================================================= instance kinds
#: (pi, q, s), s a scalar score in [-1, 1]^M (so L = max |s| <= 1); (pi, q, nu), nu the heavy-tailed
#: component of 001 §4.1's defensive mixture
register_kind(PairsWith("pqs", "s", "unit",
                        "finite pi, q on M = 2, 3, 5, 8 states with a score s in [-1, 1]^M"))
register_kind(PairsWith("pqnu", "nu", "law", "finite pi, q, nu on M = 2, 3, 5, 8 states"))


def _fixed_pairs():
    """Fixed (pi, q): random pairs, hard instances with a prescribed w*, and q = pi."""
    g = np.random.default_rng(2207)
    out = [tuple(g.dirichlet(np.ones(M), 2)) for M in (2, 3, 4, 5) for _ in range(2)]
    out += [F.hard_instance(M, ws, seed=1) for M in (3, 4) for ws in (1.05, 10.0, 1000.0)]
    out.append((np.array([0.2, 0.3, 0.5]),) * 2)
    return out


#: 001 §4.3's running instance of the hunts: pi = (.5, .3, .2), q = (.2, .3, .5), s = (1, -.5, .25)
H_PI, H_Q, H_S = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5]), np.array([1.0, -0.5, 0.25])


def _pqs():
    g = np.random.default_rng(2208)
    fixed_ = [(H_PI, H_Q, H_S)]
    fixed_ += [(pi, q, g.uniform(-1, 1, pi.size)) for pi, q in _fixed_pairs()]
    return searchable("pqs", fixed_)


def _r(pi, q) -> float:
    """r = 1 - 1/w*, Lemma 4's bound on the IMH rejection probability."""
    return 1.0 - 1.0 / float((pi / q).max())


def _p(v):
    return [round(float(x), 6) for x in np.atleast_1d(v)]


# ============================================================================= kernels (§1, §4.2,
# App. B.1)
def imh_box(pi, q) -> np.ndarray:
    """Algorithm 3 (App. B.1) literally, as a transition matrix: from z_{t-1} = x propose
    z* ~ q, accept with alpha = min(wbar(z*)/wbar(x), 1), wbar = p/q (pi/q up to a constant)."""
    w = pi / q
    M = w.size
    K = np.zeros((M, M))
    for x in range(M):
        for y in range(M):
            if y != x:
                K[x, y] = q[y] * min(w[y] / w[x], 1.0)
        K[x, x] = 1.0 - K[x].sum()
    return K


def cis_box(pi, q, n: int) -> np.ndarray:
    """Algorithm 2 (App. B.1) literally, as a transition matrix: z^(0) = x, z^(1..n) ~ q i.i.d.
    (n proposals), weights wbar(z^(i)) = p/q, z_t ~ Multinomial of the normalised weights.
    Exact: every proposal tuple is enumerated."""
    w = pi / q
    M = w.size
    tup = np.array(list(itertools.product(range(M), repeat=n)), int).reshape(-1, n)
    pt = np.prod(q[tup], axis=1)
    wt = w[tup]
    K = np.zeros((M, M))
    for x in range(M):
        tot = w[x] + wt.sum(1)
        K[x, x] += float((pt * w[x] / tot).sum())
        contrib = (pt / tot)[:, None] * wt
        np.add.at(K[x], tup.ravel(), contrib.ravel())
    return K


def _max_n(M, n, cap=4096):
    """The largest number of proposals <= n whose tuples (M^n) stay enumerable."""
    while n > 1 and M ** n > cap:
        n -= 1
    return n


def _invariance_cis():
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        for n in free("N", [1, 2, 3], Int(1, 6)):
            n = _max_n(pi.size, int(n))
            K = cis_box(pi, q, n)
            rows.append(({"M": pi.size, "N (proposals)": n, "pi": _p(pi), "q": _p(q)},
                         float(np.abs(pi @ K - pi).max()), 0.0, 1.0))
    return instance_check(rows, "=", tol=64 * U * 8,
                          describe="max_y |(pi K)(y) - pi(y)|, K the literal Algorithm 2 box "
                                   "(every proposal tuple)")


def _imh_box_residual_exact(pi, q):
    """``again(bits)`` of an invariance row: max_y |(pi K)(y) - pi(y)| with the literal Algorithm 3
    box built in rationals from the doubles pi, q (the same steps as :func:`imh_box`), and 0."""
    def again(bits):
        P, Q = [Fraction(float(a)) for a in pi], [Fraction(float(a)) for a in q]
        w = [a / b for a, b in zip(P, Q)]
        M = len(P)
        K = [[Q[y] * min(w[y] / w[x], Fraction(1)) if y != x else Fraction(0) for y in range(M)]
             for x in range(M)]
        for x in range(M):
            K[x][x] = 1 - sum(K[x], Fraction(0))
        res = max(abs(sum(P[x] * K[x][y] for x in range(M)) - P[y]) for y in range(M))
        return res, 0
    return again


def _invariance_imh():
    """pi K = pi for the literal Algorithm 3 box.  The doubles' residual (scale 1: it cancels
    probabilities, 8 M eps at most) cannot tell 0 from rounding; each row is recomputed in
    rationals, where the residual is exactly 0 (min(pi_x q_y, pi_y q_x) is symmetric), so the
    equality is settled exactly on every instance, fixed or searched."""
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        K = imh_box(pi, q)
        rows.append(({"M": pi.size, "pi": _p(pi), "q": _p(q)}, float(np.abs(pi @ K - pi).max()),
                     0, 1.0, _imh_box_residual_exact(pi, q)))
    return instance_check(rows, "=", tol=64 * U * 8,
                          describe="max_y |(pi K)(y) - pi(y)|, K the literal Algorithm 3 box")


step("statements.cis_invariance", check=_invariance_cis)
step("statements.imh_invariance", check=_invariance_imh)


def _worst_start():
    """001 §1, §2.2 ('the gradients are non-asymptotically biased'), §4.1 ('This assumption is
    necessary to ensure Assumption 1'): from a state x* of maximal weight the n-step IMH law is
    (1 - r^n) pi + r^n delta_{x*} exactly (Smith & Tierney's Eq. (2) at w(z) = w*, where
    lambda(w*) = 1 - 1/w* = r), so the bias of s is r^n |s(x*) - mu| and the TV distance
    r^n (1 - pi(x*)): positive at every finite n when w* > 1, and -> 1 - pi(x*) as w* -> oo."""
    rows = []
    for pi, q, s in _pqs():
        xs = int(np.argmax(pi / q))
        r = _r(pi, q)
        K = F.imh_matrix(pi, q)
        mu = float(pi @ s)
        for n in free("n", [1, 5, 50], Int(1, 500, log=True)):
            n = int(n)
            Kn = np.linalg.matrix_power(K, n)
            law = (1 - r ** n) * pi + r ** n * np.eye(pi.size)[xs]
            par = {"M": pi.size, "n": n, "w_star": 1 / (1 - r) if r < 1 else math.inf, "r": r}
            rows.append(({**par, "what": "max |K^n(x*, .) - ((1 - r^n) pi + r^n delta_x*)|"},
                         float(np.abs(Kn[xs] - law).max()), 0.0, 1.0))
            rows.append(({**par, "what": "bias |E_{K^n(x*,.)} s - E_pi s| vs r^n |s(x*) - mu|"},
                         abs(float(Kn[xs] @ s) - mu), r ** n * abs(s[xs] - mu), 1.0))
    return instance_check(rows, "=", tol=64 * U * 512,
                          describe="the n-step law from a state of maximal weight, and the bias of "
                                   "s")


step("statements.imh_worst_start", check=_worst_start)


def _cis_stay():
    """CIS with N particles (x* and N - 1 proposals from q) keeps x* with probability at least
    E[w*/(w* + S)] >= w*/(w* + N - 1) (Jensen, E_q w = 1): -> 1 as w* -> oo, so without
    Assumption 2 the CIS kernel is not uniformly ergodic either."""
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        ws = float((pi / q).max())
        xs = int(np.argmax(pi / q))
        for N in free("N", [2, 4, 10], Int(2, 12)):
            N = int(N)
            K, err = F.cis_matrix(pi, q, N, return_error=True)
            rows.append(({"M": pi.size, "N": N, "w_star": ws}, float(K[xs, xs]) + err,
                         ws / (ws + (N - 1))))
    return instance_check(rows, ">=", tol=1e-12,
                          describe="K_CIS(x*, x*) (exact, plus its error bound)")


step("statements.cis_stay", check=_cis_stay)


# ============================================================================= §4.3 Discussion:
# C_cov >= 0
def _ccov():
    """001 §4.3 Discussion: 'In practice, however, the covariance term C_cov will be positive, only
    increasing variance.'  C_cov of JSA's N states conditional on F_{t-1} (the state entering the
    iteration), exactly, at every start."""
    rows = []
    for pi, q, s in _pqs():
        K = F.imh_matrix(pi, q)
        for N in free("N", [2, 4], Int(2, 16)):
            for x in range(pi.size):
                m = F.moments_jsa(K, s, x, int(N))
                rows.append(({"M": pi.size, "N": int(N), "z_t-1": x,
                              "w_star": 1 / max(1e-300, 1 - _r(pi, q))},
                             m.c_cov, 0.0, max(1e-300, m.second)))
    return instance_check(rows, ">=", tol=64 * U * 64, describe="C_cov given z_t-1, every start")


step("statements.jsa_ccov_nonneg", check=_ccov)


# ============================================================================= Theorem 4: P^k of
# Algorithm 1
def _pmcsa_tuple_law(K, xs, k):
    """The law of Algorithm 1's N-tuple after k iterations at fixed lambda, from the box: the
    tuple's transition matrix built entry by entry (each chain moves by K, independently)."""
    M = K.shape[0]
    N = len(xs)
    S = np.array(list(itertools.product(range(M), repeat=N)), int).reshape(-1, N)
    T = np.ones((len(S), len(S)))
    for n in range(N):  # T[a, b] = prod_n K(a_n, b_n): chain n moves from a_n to b_n, independently
        T *= K[S[:, None, n], S[None, :, n]]
    start = int(np.flatnonzero((S == np.asarray(xs, int)).all(1))[0])
    return np.linalg.matrix_power(T, k)[start]


def _theorem4_def():
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        K = F.imh_matrix(pi, q)
        for N in free("N", [2, 3], Int(1, 3)):
            N = int(N)
            if pi.size ** N > 150:
                N = 1 if pi.size > 12 else max(1, int(math.log(150) / math.log(pi.size)))
            xs = [(n * 7) % pi.size for n in range(N)]
            for k in free("k", [1, 4], Int(1, 30, log=True)):
                Kk = np.linalg.matrix_power(K, int(k))
                prod = np.asarray(F.product_law([Kk[x] for x in xs])).ravel()
                rows.append(({"M": pi.size, "N": N, "k": int(k), "start": xs},
                             float(np.abs(_pmcsa_tuple_law(K, xs, int(k)) - prod).max()), 0.0, 1.0))
    return instance_check(rows, "=", tol=64 * U * 256,
                          describe="law of Algorithm 1's N-tuple after k steps vs prod_n "
                                   "K^k(z^(n), .)")


step("statements.theorem4_def", check=_theorem4_def)


# ============================================================================= Theorem 3: JSA's
# table of transitions
def _table_fixed():
    """The table's rows with lambda fixed: z_k^(n) ~ K^((k-1)N+n)(z_0, .), against the marginals of
    the exact joint law of JSA's N states (simulate.finite.jsa_joint_law).  With the subscripts
    lambda_1, lambda_2, ... read as the iterates of Algorithm 5 the rows fail (step theorem3.table
    of
    :mod:`.proofs`, hunt 3's H04)."""
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        K = F.imh_matrix(pi, q)
        for N in free("N", [2, 3], Int(1, 4)):
            N = int(N)
            while pi.size ** N > 600 and N > 1:
                N -= 1
            for k in free("k", [1, 3], Int(1, 12)):
                k = int(k)
                joint = np.asarray(F.jsa_joint_law(K, 0, N, k)).reshape((pi.size,) * N)
                for n in range(N):
                    marg = joint.sum(axis=tuple(a for a in range(N) if a != n))
                    exact = np.linalg.matrix_power(K, (k - 1) * N + n + 1)[0]
                    rows.append(({"M": pi.size, "N": N, "k": k, "n": n + 1},
                                 float(np.abs(marg - exact).max()), 0.0, 1.0))
    return instance_check(rows, "=", tol=64 * U * 256,
                          describe="marginals of JSA's joint law vs K^((k-1)N+n)(z_0, .), lambda "
                                   "fixed")


step("statements.theorem3_table_fixed", check=_table_fixed)


# ============================================================================= bias terms: 1/N or
# not (App. D)
def jsa_mean_score(K, s, x: int, N: int, t: int) -> float:
    """(1/N) sum_n E s(z_t^(n)) from z_0 = x with lambda fixed (t iterations of Algorithm 5,
    unconditional): (1/N) sum_n (K^((t-1)N+n) s)(x) (scalar s)."""
    P = np.linalg.matrix_power(K, (t - 1) * N)[x]
    tot = 0.0
    for _ in range(N):
        P = P @ K
        tot += float(P @ s)
    return tot / N


def _jsa_bias_over_N():
    """App. D proof of Theorem 3: 'it is possible to obtain a tighter bound on the bias terms such
    that O(r^(tN)/N), if we directly use (K, z)'.  Unconditional reading (t iterations from z_0,
    lambda fixed): |E g + mu| <= (1/N) sum_n 2 L d_TV(K^((t-1)N+n)(z_0, .), pi)
    <= (2L/N) sum_n r^((t-1)N+n) = (2L/N) C(r, N) r^(tN), C(r, N) of Theorem 3."""
    rows = []
    for pi, q, s in _pqs():
        K = F.imh_matrix(pi, q)
        r = _r(pi, q)
        L = float(np.abs(s).max())
        mu = float(pi @ s)
        for N in free("N", [2, 8], Int(1, 64, log=True)):
            for t in free("t", [1, 3], Int(1, 60)):
                N, t = int(N), int(t)
                rhs = 2 * L / N * sum(r ** ((t - 1) * N + n) for n in range(1, N + 1))
                # the lhs cancels E s(z_j) against mu, both of size up to L: its error is absolute.
                # A row of fl(K^j), j <= tN, is off by at most 2 j M eps in the row-sum norm
                # (_pow_tol of the proofs), times max|s| = L, plus the N-term average and the
                # subtraction (N + 4) eps L: the row's scale, in units of tol
                err = L * (2 * t * N * pi.size + N + 4) * 2.3e-16
                for x in range(pi.size):
                    rows.append(({"M": pi.size, "N": N, "t": t, "z_0": x, "r": r},
                                 abs(jsa_mean_score(K, s, x, N, t) - mu), rhs,
                                 max(L, err / (64 * U * 64))))
    return instance_check(rows, "<=", tol=64 * U * 64,
                          describe="unconditional bias of JSA's g after t iterations from every "
                                   "z_0")


step("statements.theorem3_bias_over_N", check=_jsa_bias_over_N)


def _jsa_bias_conditional():
    """The same remark for the bias the proof bounds, Bias[g_t,JSA | F_t-1]: conditionally on the
    state z_t-1^(N) entering the iteration it is |(1/N) sum_n (K^n s)(z_t-1^(N)) - mu|, which does
    not depend on t at all (from x*: (1/N) sum_n r^n |s(x*) - mu|), so no bound c r^(tN)/N (c free
    of t)
    holds.  The 1/N itself is right: the conditional bias is at most (2L/N) sum_n r^n."""
    K = F.imh_matrix(H_PI, H_Q)
    r = _r(H_PI, H_Q)
    L = float(np.abs(H_S).max())
    mu = float(H_PI @ H_S)
    xs_ = int(np.argmax(H_PI / H_Q))
    rows = []
    for N in (2, 8):
        # one iteration from z_t-1^(N) = x*: the conditional bias
        b = abs(jsa_mean_score(K, H_S, xs_, N, 1) - mu)
        for t in (1, 5, 20):
            rhs = 2 * L / N * sum(r ** ((t - 1) * N + n) for n in range(1, N + 1))
            rows.append(({"pi": _p(H_PI), "q": _p(H_Q), "s": _p(H_S), "r": r, "N": N, "t": t,
                          "z_t-1^(N)": "x*",
                          "(2L/N) sum_n r^n": 2 * L / N * sum(r ** n for n in range(1, N + 1))}, b,
                         rhs))
    return first_failing(
        rows, "<=", 1e-12, "Bias[g_t,JSA | F_t-1] vs (2L/N) C(r, N) r^(tN)")


def _jsa_bias_conditional_corrected():
    """The correction: Bias[g_t,JSA | F_t-1] <= (2L/N) sum_n r^n for every state z_t-1^(N) (the n-th
    state is
    n IMH steps from it, Eq. (7)); below the trivial 2L (it is at most 2 L r)."""
    rows = []
    for pi, q, s in _pqs():
        K = F.imh_matrix(pi, q)
        r, L, mu = _r(pi, q), float(np.abs(s).max()), float(pi @ s)
        for N in free("N", [1, 8], Int(1, 64, log=True)):
            N = int(N)
            # the lhs cancels E s(z_n) against mu (both up to L): absolute error at most
            # L (2 N M + N + 4) eps (rows of fl(K^n), n <= N, and the average), as in
            # statements.theorem3_bias_over_N: the row's scale, in units of tol
            err = L * (2 * N * pi.size + N + 4) * 2.3e-16
            for x in range(pi.size):
                rows.append(({"M": pi.size, "N": N, "z_t-1^(N)": x, "r": r},
                             abs(jsa_mean_score(K, s, x, N, 1) - mu),
                             2 * L / N * sum(r ** n for n in range(1, N + 1)),
                             max(L, err / (64 * U * 64))))
    return instance_check(rows, "<=", tol=64 * U * 64,
                          describe="Bias[g_t,JSA | F_t-1] vs (2L/N) sum_n r^n")


step("statements.theorem3_bias_conditional", check=_jsa_bias_conditional,
     corrected=_jsa_bias_conditional_corrected)


# ============================================================================= Lemma 7, line 2 -> 3
def lemma7_sup_sides(P, Pi, g, L):
    """(sqrt(D) ||E_P g - E_Pi g||_inf, sqrt(D) L sup_{|h|<=1} |E_P h - E_Pi h| = sqrt(D) L sum |P -
    Pi|).
    """
    D = g.shape[1]
    return (math.sqrt(D) * float(np.abs(P @ g - Pi @ g).max()),
            math.sqrt(D) * L * float(np.abs(P - Pi).sum()))


def _lemma7_sup():
    """App. D proof of Lemma 7, line 3: sqrt(D) ||E_P g - E_Pi g||_inf <= sqrt(D) L sup_{|h|<=1}
    |E_P h - E_Pi h| = sqrt(D) L sum_x |P(x) - Pi(x)| ('||g||_inf <= ||g||_2 <= L': each g_i / L is
    a test function with |h| <= 1).  g: unit vectors in R^2 (L = 1) at angles theta + x phi."""
    rows = []
    for P, Pi in finite_pairs(_fixed_pairs()):
        M = P.size
        for th in free("theta", [0.3, 2.0], Real(0.0, 2 * math.pi)):
            for ph in free("phi", [1.1, 2.9], Real(0.0, 2 * math.pi)):
                ang = th + ph * np.arange(M)
                g = np.column_stack([np.cos(ang), np.sin(ang)])
                rows.append(({"M": M, "D": 2, "L": 1, "theta": th, "phi": ph},
                             *lemma7_sup_sides(P, Pi, g, 1.0)))
    return instance_check(rows, "<=", tol=64 * U * 8,
                          describe="P, Pi finite laws; ||g(x)||_2 = L = 1")


step("statements.lemma7_sup", check=_lemma7_sup)


# ================================================================= Abstract: 'a tighter bound on
# the gradient variance'
def stated_bounds(pi, q, s, N: int) -> dict:
    """The stated second-moment bounds of Theorems 1, 3, 4 (main text, O-terms and C_cov >= 0
    dropped,
    the reading most favourable to pMCSA) for the finite instance (pi, q, s): L = max |s|."""
    import bounds

    ws = float((pi / q).max())
    L = float(np.abs(s).max())
    mu = abs(float(pi @ s))
    return {"w_star": ws, "L": L, "mu": mu,
            "T1": bounds.evaluate("theorem1", "second_moment", "stated", L=L),
            "T3": bounds.evaluate("theorem3", "second_moment", "stated", N=N, L=L, mu_norm=mu,
                                  c_cov=0.0),
            "T4": bounds.evaluate("theorem4", "second_moment", "stated", N=N, w_star=ws, L=L,
                                  mu_norm=mu)}


#: H11's instances (hunt 3): (pi, q, s, N)
H11_CASES = ((H_PI, H_Q, H_S, 1),
             (np.array([0.9, 0.05, 0.05]), np.array([0.6, 0.2, 0.2]), np.array([1.0, -0.2, -0.2]),
              2))

UNIFORM, VARIANCE_PART = "uniformly: Theorem 4's stated bound below Theorems 1 and 3's", \
    "the variance part, N >= 2: L^2 (2 - 1/w*)/N against L^2 and L^2 (1/2 + 3/(2N))"


def _tighter_uniform():
    """Reading 'uniformly' (supported by the Abstract's unqualified 'tighter bound'): Theorem 4's
    stated bound L^2 (2 - 1/w*)/N + ||mu||^2 lies below Theorem 1's L^2 and Theorem 3's
    L^2 (1/2 + 3/(2N)) + ||mu||^2 for every instance and budget."""
    import bounds

    rows = []
    for pi, q, s, N in H11_CASES:
        b = stated_bounds(pi, q, s, N)
        par = {"pi": _p(pi), "q": _p(q), "s": _p(s), "N": N, "w_star": b["w_star"], "L": b["L"],
               "||mu||": b["mu"]}
        rows.append(({**par, "against": "Theorem 1 (L^2)"}, b["T4"], b["T1"]))
        rows.append(({**par, "against": "Theorem 3 (C_cov = 0)"}, b["T4"], b["T3"]))
    for N in free("N", [], Int(1, 10 ** 4, log=True)):
        for ws in free("w_star", [], Real(1.0, 1e12, log=True)):
            for m in free("mu/L", [], Real(0.0, 1.0)):
                T4 = bounds.evaluate("theorem4", "second_moment", "stated", N=int(N), w_star=ws,
                                     L=1.0, mu_norm=m)
                T3 = bounds.evaluate("theorem3", "second_moment", "stated", N=int(N), L=1.0,
                                     mu_norm=m, c_cov=0.0)
                rows.append(({"N": int(N), "w_star": ws, "||mu||/L": m, "against": "Theorem 1"}, T4,
                             1.0))
                rows.append(({"N": int(N), "w_star": ws, "||mu||/L": m, "against": "Theorem 3"}, T4,
                             T3))
    return first_failing(
        rows, "<=", 1e-12, "stated bounds (main text), L = max |s|")


def _tighter_corrected():
    """The correction: Theorem 4's stated bound is below Theorem 3's for every N, and below Theorem
    1's L^2
    once N >= (2 - 1/w*)/(1 - ||mu||^2/L^2) (||mu|| < L)."""
    import bounds

    rows = []
    for N in free("N", [1, 2, 50], Int(1, 10 ** 4, log=True)):
        for ws in free("w_star", [2.5, 1.5], Real(1.0, 1e12, log=True)):
            for m in free("mu/L", [0.4, 0.88], Real(0.0, 0.999)):
                n1 = max(int(N), math.ceil((2 - 1 / ws) / (1 - m * m) - 1e-12))
                T4 = lambda n: bounds.evaluate(  # noqa: E731
                    "theorem4", "second_moment", "stated", N=n, w_star=ws, L=1.0, mu_norm=m)
                rows.append(({"N": n1, "w_star": ws, "||mu||/L": m, "against": "Theorem 1"}, T4(n1),
                             1.0))
                rows.append(({"N": int(N), "w_star": ws, "||mu||/L": m, "against": "Theorem 3"},
                             T4(int(N)),
                             bounds.evaluate("theorem3", "second_moment", "stated", N=int(N), L=1.0,
                                             mu_norm=m,
                                             c_cov=0.0)))
    return instance_check(rows, "<=", tol=1e-12, describe="stated bounds, L = 1")


step("statements.tighter_uniform", check=_tighter_uniform, corrected=_tighter_corrected,
     reading=UNIFORM)

_N2, _W = sp.Symbol("N", positive=True, integer=True), sp.Symbol("w_star", positive=True)
step("statements.tighter_variance_part",
     check=lambda: sym_le((2 - 1 / _W) / _N2,
                          sp.Min(1, sp.Rational(1, 2) + sp.Rational(3, 2) / _N2), symbols=[_N2, _W],
                          domain={_N2: Int(2, 10 ** 4, log=True), _W: Real(1.0, 1e12, log=True)}),
     reading=VARIANCE_PART)


# ============================================================================= §4.1-§4.2: w*,
# defensive mixtures, chi2
def exp_kl_and_chi2(pi, q):
    """(exp(KL(pi||q)), 1 + chi2(pi||q)) of a finite pair."""
    w = pi / q
    return math.exp(float(pi @ np.log(w))), float(pi @ w)


def _chi2_kl():
    """001 §4.2: 'the chi2 divergence, which is bounded below exponentially by the KL divergence
    (Agapiou et al., 2017)': exp(KL(pi||q)) <= 1 + chi2(pi||q) (Jensen: E_pi log w <= log E_pi
    w)."""
    rows = []
    for pi, q in finite_pairs(_fixed_pairs()):
        lhs, rhs = exp_kl_and_chi2(pi, q)
        rows.append(({"M": pi.size, "KL": math.log(lhs), "chi2": rhs - 1}, lhs, rhs))
    return instance_check(rows, "<=", tol=64 * U * 8, describe="finite pi, q")


step("statements.chi2_kl", check=_chi2_kl)


def qdef_sides(pi, q, nu, a):
    """(w*(q_def), sup(pi/nu)/(1 - alpha)) for q_def = alpha q + (1 - alpha) nu."""
    return float((pi / (a * q + (1 - a) * nu)).max()), float((pi / nu).max()) / (1 - a)


def _qdef():
    """001 §4.1: Assumption 2 'can be practically ensured by ... using a defensive mixture
    q_def = alpha q + (1 - alpha) nu, where 0 < alpha < 1 and ... sup pi/nu < oo':
    w*(q_def) = sup pi/q_def <= sup(pi/nu)/(1 - alpha), whatever q."""
    rows = []
    g = np.random.default_rng(2209)
    fixed_ = [(pi, q, g.dirichlet(np.ones(pi.size))) for pi, q in _fixed_pairs()]
    for pi, q, nu in searchable("pqnu", fixed_):
        for a in free("alpha", [0.5, 0.9], Real(1e-3, 1 - 1e-3)):
            rows.append(({"M": pi.size, "alpha": a}, *qdef_sides(pi, q, nu, a)))
    return instance_check(rows, "<=", tol=64 * U * 8, describe="finite pi, q, nu")


step("statements.qdef_w_star", check=_qdef)

step("statements.theorem1_marginal",
     check=lambda: sym_le(1 - (_N2 - 1) / (2 * _W), 1 - (_N2 - 1) / (2 * _W + _N2 - 2),
                          symbols=[_N2, _W],
                          domain={_N2: Int(2, 10 ** 4, log=True), _W: Real(1.0, 1e12, log=True)}))


def meanfield_optimum_gap(Sigma) -> float:
    """lambda_min(diag(Sigma) - Sigma): the mean-field Gaussian that minimises the inclusive KL
    matches the marginals (S = diag Sigma); pi/q is bounded iff S - Sigma is positive semidefinite
    (and the means agree), so w* = oo whenever this is negative.  diag(Sigma) - Sigma has zero
    trace, so it is <= 0, and < 0 unless Sigma is diagonal."""
    S = np.diag(np.diag(Sigma))
    return float(np.linalg.eigvalsh(S - Sigma)[0])


def _wishart(D=50, nu=500, seed=0):
    from simulate.targets import wishart_target

    return wishart_target(D, nu, seed=seed).cov


def _wstar_meanfield():
    rows = []
    fixed_ = [(_wishart(50), np.random.default_rng(0)), (_wishart(10), np.random.default_rng(0)),
              (np.array([[1.0, 0.9], [0.9, 1.0]]), np.random.default_rng(0))]
    for Sig, _ in searchable("spd", fixed_):
        d = Sig.shape[0]
        sc = float(np.linalg.norm(Sig, 2))
        rows.append(({"d": d, "||Sigma||": sc}, meanfield_optimum_gap(Sig), 0.0, sc))
    o = instance_check(rows, "<=", tol=64 * U * 64, describe="lambda_min(diag Sigma - Sigma)")
    o.detail += (
        f"; at the target of Kim et al. (NeurIPS 2022) §6.2 (Wishart, D = 50, nu = 500) lambda_min "
        f"= "
                 f"{meanfield_optimum_gap(_wishart(50)):.4g} "
                 "< 0: w* = oo at the mean-field optimum, so r = 1 - 1/w* = 1 (and w* = inf at "
                 "every recorded iteration of every scheme in the stored full Figure 1 run, "
                 "docs/figures/figure1.csv)")
    return o


step("statements.wstar_meanfield", check=_wstar_meanfield)


def strong_convexity_sides(A, v, R, c):
    """(mu^2 R^2, E||g||^2) at lambda - lambda* = R v (||v|| = 1), g = A(lambda - eta), Cov(eta) = c
    I.
    """
    mu = float(np.linalg.eigvalsh(A)[0])
    return mu ** 2 * R ** 2, float(np.linalg.norm(A @ v) ** 2 * R ** 2 + c * np.trace(A @ A))


def _bounded_variance():
    """001 §3.2: 'the bounded variance assumption E[||g||^2] < G^2 used in vanilla SGD, which is
    also known to be strong as it contradicts strong convexity (Nguyen et al., 2018)'.  For a
    mu-strongly convex f with E g = grad f: E||g(lambda)||^2 >= ||grad f(lambda)||^2 >= mu^2
    ||lambda - lambda*||^2, unbounded.  Instance: f(lambda) = (1/2) E_pi (lambda - eta)^T A
    (lambda - eta) (MCSA with q = N(lambda, A^-1)), g = A(lambda - eta), Cov(eta) = c I."""
    rows = []
    fixed_ = [(np.diag([1.0, 10.0]), np.random.default_rng(1)),
              (np.eye(3), np.random.default_rng(2))]
    for A, rng in searchable("spd", fixed_):
        v = rng.standard_normal(A.shape[0])
        v /= np.linalg.norm(v)
        mu = float(np.linalg.eigvalsh(A)[0])
        for R in free("R", [1.0, 1e3], Real(1e-3, 1e6, log=True)):
            for c in free("c", [0.0, 1.0], Real(0.0, 10.0)):
                rows.append(({"d": A.shape[0], "mu": mu, "R = ||lambda - lambda*||": R, "c": c},
                             *strong_convexity_sides(A, v, R, c)))
    return instance_check(rows, "<=", tol=64 * U * 64,
                          describe="E||g||^2 = ||A(lambda - lambda*)||^2 + c tr A^2")


step("statements.bounded_variance", check=_bounded_variance)


# ========================================================================= §1, §3.2, Table 1: MCGD
# on an exact instance
def lazy_kernel(p, rho: float) -> np.ndarray:
    """K = rho I + (1 - rho) 1 p^T: stay with probability rho, else draw from p.  K^n = rho^n I +
    (1 - rho^n) 1 p^T, so d_TV(K^n(x, .), p) = rho^n (1 - p_x) <= rho^n: Assumption 1 with C = 1
    and mixing rate exactly rho."""
    return rho * np.eye(len(p)) + (1 - rho) * np.outer(np.ones(len(p)), p)


def sgd_error(p, V, K, gains, p0=None, e0=None) -> float:
    """E||lambda_T - lambda*||^2, exactly, for the MCGD recursion
    lambda_t = lambda_{t-1} - c_t (lambda_{t-1} - eta_t)  (coordinatewise: c_t = gamma_t a_i),
    i.e. SGD on f(lambda) = (1/2) E_pi (lambda - eta)^T A (lambda - eta) (MCSA with q = N(lambda,
    A^-1), A = diag(a)) with g = A(lambda - eta), eta_t ~ K(eta_{t-1}, .) a finite chain on the rows
    of V (values, (M, d)) started from p0 (default: p, stationary), lambda_0 - lambda* = e0 (default
    0). ``gains``: (T, d) array of c_t per coordinate.  Forward recursion of m_t(y) = E[e_t 1{eta_t
    = y}]
    and v_t(y) = E[e_t^2 1{eta_t = y}] per coordinate (e_t = lambda_t - lambda*, lambda* = E_p
    eta)."""
    p = np.asarray(p, float)
    V = np.asarray(V, float).reshape(len(p), -1)
    C = V - p @ V
    M, d = C.shape
    pt = p.copy() if p0 is None else np.asarray(p0, float)
    e0 = np.zeros(d) if e0 is None else np.asarray(e0, float)
    m = pt[:, None] * e0[None, :]
    v = pt[:, None] * (e0 ** 2)[None, :]
    KT = K.T
    for c in np.asarray(gains, float).reshape(-1, d):
        pt = pt @ K
        mk = KT @ m
        v = (1 - c) ** 2 * (KT @ v) + 2 * (1 - c) * c * C * mk + c ** 2 * C ** 2 * pt[:, None]
        m = (1 - c) * mk + c * C * pt[:, None]
    return float(v.sum())


def lazy_error_closed(tr_sigma: float, rho: float, T: int) -> float:
    """T E||lambda_T - lambda*||^2 for lambda_T the running mean of a stationary lazy chain:
    tr Sigma [(1 + rho)/(1 - rho) - 2 rho (1 - rho^T) / (T (1 - rho)^2)]."""
    return tr_sigma * ((1 + rho) / (1 - rho) - 2 * rho * (1 - rho ** T) / (T * (1 - rho) ** 2))


def _discrete_fixed():
    g = np.random.default_rng(2210)
    out: list[tuple] = [({"case": "+-1"}, np.array([0.5, 0.5]), np.array([[-1.0], [1.0]]),
                          np.zeros(1))]
    for K_, d in ((3, 1), (4, 2), (5, 3)):
        out.append(({"case": "random", "d": d}, g.dirichlet(np.ones(K_)),
                    g.standard_normal((K_, d)), np.zeros(d)))
    return out


def _lazy_error():
    """001 §1 'the mixing rate does not affect the convergence rate of MCGD (Doan et al., 2020a,b)';
    §3.2 'Their convergence rate is dependent on the mixing rate through the 1/log rho^-1 term'.
    SGD with gamma_t = 1/(a t) on f(lambda) = (a/2) E_pi ||lambda - eta||^2 (lambda_T is the running
    mean of eta_1..eta_T), eta a stationary chain with mixing rate rho (lazy_kernel): the exact
    error (forward recursion, sgd_error) against the closed form
    T E||lambda_T - lambda*||^2 = tr Sigma [(1 + rho)/(1 - rho) - 2 rho (1 - rho^T)/(T (1 -
    rho)^2)]: the rate is 1/T at every rho < 1 (the exponent does not depend on rho); the constant
    tr Sigma (1 + rho)/(1 - rho) does, like 2/log(1/rho) as rho -> 1."""
    rows = []
    for par, p, V, _ in searchable("discrete", _discrete_fixed()):
        tr = float(p @ ((V - p @ V) ** 2).sum(1))
        for rho in free("rho", [0.0, 0.5, 0.9, 0.99], Real(0.0, 0.999)):
            for T in free("T", [1, 10, 300], Int(1, 1500, log=True)):
                T = int(T)
                K = lazy_kernel(p, rho)
                gains = np.ones((T, V.shape[1])) / np.arange(1, T + 1)[:, None]
                lhs = T * sgd_error(p, V, K, gains)
                # the error: relative tol of tr Sigma / (1 - rho) for the recursion, plus what the
                # centring C = V - p V costs -- each entry is off by at most delta = (K + 2) eps
                # max|V|, a bias that the running mean does not average away: ||e_T|| moves by at
                # most delta, so T E||e_T||^2 (about 2 tr Sigma / (1 - rho), i.e. E||e_T||^2 <=
                # 2 tr / ((1 - rho) T)) moves by at most 2 T delta sqrt(2 tr / ((1 - rho) T)) +
                # T delta^2: an absolute error when the values are (nearly) equal and tr Sigma
                # vanishes.  The row's scale, in units of tol
                delta = (len(p) + 2) * 2.3e-16 * float(np.abs(V).max())
                centring = (2 * delta * math.sqrt(2 * T * tr / (1 - rho)) + T * delta ** 2)
                rows.append(({**par, "K": len(p), "rho": rho, "T": T, "tr Sigma": tr}, lhs,
                             lazy_error_closed(tr, rho, T),
                             tr / (1 - rho) + centring / (64 * U * 4096)))
    return instance_check(rows, "=", tol=64 * U * 4096,
                          describe="T E||lambda_T - lambda*||^2: exact recursion vs closed form")


step("statements.mcgd_lazy_error", check=_lazy_error)


def _rho_influence():
    """001 §3.2: 'in the result of Doan et al. (2020b), the influence of rho decreases in a rate of
    O(1/T^2)'.  The sentence reports a term of a cited bound (Doan et al. 2020b), which is not in
    the document: unchecked.  What the toy chain of statements.mcgd_lazy_error shows is kept as a
    remark: the influence of rho on the error itself, Delta_T = E||lambda_T - lambda*||^2 (mixing
    rate rho) minus the same at rho = 0, has T Delta_T -> 2 rho tr Sigma/(1 - rho) (order 1/T)."""
    par, p, V, _ = _discrete_fixed()[0]
    tr = float(p @ ((V - p @ V) ** 2).sum(1))
    rho, T = 0.5, 10_000
    gains = np.ones((T, V.shape[1])) / np.arange(1, T + 1)[:, None]
    td = T * (sgd_error(p, V, lazy_kernel(p, rho),
                        gains) - sgd_error(p, V, lazy_kernel(p, 0.0), gains))
    return Outcome(
        UNCHECKED,
        "the sentence reports a term of Doan et al. (2020b)'s bound, which is not in the "
                              "document; "
                   f"remark: on the toy chain the influence of rho on the error itself is of order "
                   f"1/T (rho = {rho}, T = {T}: T Delta_T = {td:.6g}, limit 2 rho tr Sigma/(1 - "
                   f"rho) = {2 * rho * tr / (1 - rho):.6g})",
        method="none")


step("statements.mcgd_rho_influence", check=_rho_influence)


# ---- Table 1, row 'SGD': gamma_t = gamma/t, gamma = min{1/2L, 2L/mu}, rate O(G^2 log T/T)
def sgd_printed_gamma(mu: float, L: float) -> float:
    """Table 1's stepsize constant gamma = min{1/(2L), 2L/mu}."""
    return min(1 / (2 * L), 2 * L / mu)


def _prod_factor(c, T):
    """prod_{t=1}^T (1 - c/t) = Gamma(T + 1 - c)/(Gamma(1 - c) Gamma(T + 1)) for 0 < c < 1."""
    return mpmath.exp(mpmath.loggamma(T + 1 - c) - mpmath.loggamma(1 - c) - mpmath.loggamma(T + 1))


def _avg_factor(c, T):
    """(1/T) sum_{t=1}^T prod_{s<=t} (1 - c/s), from sum_{t=0}^T Gamma(t + a)/Gamma(t + 1) =
    Gamma(T + 1 + a)/(a Gamma(T + 1)) with a = 1 - c."""
    a = 1 - c
    tot = (mpmath.exp(mpmath.loggamma(T + 1 + a) - mpmath.loggamma(T + 1) - mpmath.loggamma(a))
           / a - 1)
    return tot / T


SGD_MEASURES = ("||E lambda_T - lambda*||^2", "f(E lambda_T) - f*",
                "||E lambda_bar_T - lambda*||^2")


def sgd_mean_error(mu: float, L: float, T, lam0=(1.0, 1.0), measure: str = SGD_MEASURES[0]):
    """A lower bound of the error of SGD with Table 1's stepsize on f(lambda) = (1/2) E_Pi (lambda -
    eta)^T A (lambda - eta), A = diag(mu, L) (mu-strongly convex, L-smooth; MCSA with q = N(lambda,
    A^-1)), eta a stationary chain with E eta = 0 = lambda* (any Pi-invariant kernel, its mixing
    rate irrelevant: g = A(lambda - eta) is affine, so E lambda_t = (I - gamma A / t) E lambda_{t-1}
    exactly, and prod_{t<=T} (1 - c/t) = Gamma(T + 1 - c)/(Gamma(1 - c) Gamma(T + 1)), c = gamma a
    <= 1/2).  ``measure``: ||E lambda_T||^2 <= E||lambda_T - lambda*||^2; f(E lambda_T) - f* <=
    E f(lambda_T) - f* (Jensen); ||E lambda_bar_T||^2 <= E||lambda_bar_T - lambda*||^2 for the
    averaged
    iterate.  50 digits (mpmath)."""
    with mpmath.workdps(50):
        g = mpmath.mpf(sgd_printed_gamma(mu, L))
        T = mpmath.mpf(T)
        tot = mpmath.mpf(0)
        for a, x0 in zip((mu, L), lam0):
            c = g * a
            if measure == SGD_MEASURES[2]:
                tot += (_avg_factor(c, T) * x0) ** 2
            else:
                e = (_prod_factor(c, T) * x0) ** 2
                tot += e * a / 2 if measure == SGD_MEASURES[1] else e
        return tot


def sgd_rate(mu: float, L: float, T):
    """G^2 log T / T with G = sqrt(2) L: ||g|| = ||A(lambda - eta)|| <= L (||lambda|| + sqrt 2) <= G
    (||lambda|| + 1)
    for eta in {-1, 1}^2 (Table 1's gradient assumption)."""
    with mpmath.workdps(50):
        T = mpmath.mpf(T)
        return 2 * mpmath.mpf(L) ** 2 * mpmath.log(T) / T


def _sgd_stepsize():
    """Table 1, row 'SGD' (Doan et al. 2020b): with the printed gamma = min{1/(2L), 2L/mu} (= 1/(2L)
    when mu <= 4 L^2), gamma mu = mu/(2L) <= 1/2, so the flat direction of f contracts like
    T^(-mu/(2L)) and the error like T^(-mu/L) >> log T / T when L > mu.  Decay exponents between T
    and T^2 (exact, 50 digits): the error's (a lower bound's) against the rate's; an O(log T/T)
    error needs the first to be at least the second.  The search runs over the condition number
    kappa = L/mu, mu and T."""
    rows = []
    for kappa in free("kappa", [10.0, 1.0], Real(1.0, 1e4, log=True)):
        for mu in free("mu", [1.0], Real(1e-3, 1e3, log=True)):
            L = kappa * mu
            for T in free("T", [10 ** 6, 10 ** 3], Real(1e2, 1e12, log=True)):
                with mpmath.workdps(50):
                    e1, e2 = sgd_mean_error(mu, L, T), sgd_mean_error(mu, L, mpmath.mpf(T) ** 2)
                    r1, r2 = sgd_rate(mu, L, T), sgd_rate(mu, L, mpmath.mpf(T) ** 2)
                    lt = mpmath.log(T)
                    lhs, rhs = -mpmath.log(e2 / e1) / lt, -mpmath.log(r2 / r1) / lt
                with mpmath.workdps(50):  # the family: mu, L fixed, T -> oo (reading rule 4)
                    along = [float(sgd_mean_error(mu, L, mpmath.mpf(10) ** j)
                                   / sgd_rate(mu, L, mpmath.mpf(10) ** j)) for j in (3, 6, 9, 12)]
                rows.append(({"family": f"mu = {mu:g}, L = {L:g} fixed, T -> oo",
                              "error / rate at T = 1e3, 1e6, 1e9, 1e12": along,
                              "mu": mu, "L": L, "kappa = L/mu": kappa,
                              "gamma": sgd_printed_gamma(mu, L), "T": T,
                              "||E lambda_T - lambda*||^2": float(e1), "G^2 log T/T": float(r1),
                              "ratio": float(e1 / r1)}, float(lhs), float(rhs)))
    def why(o):  # names the failing instance
        c = o.counterexample["at"]
        grow = ", ".join(f"{r:.3g}" for r in c["error / rate at T = 1e3, 1e6, 1e9, 1e12"])
        return (f"with L > mu the printed stepsize makes gamma mu = mu/(2L) < 1/2: the error "
                f"decays like T^(-mu/L), slower than log T/T, so its ratio to G^2 log T/T grows "
                f"without bound along T -> oo (at mu = {c['mu']:g}, L = {c['L']:g}: {grow} at T = "
                f"1e3, 1e6, 1e9, 1e12); it holds at L = mu only: ")

    return first_failing(
        rows, ">=", 1e-9, "decay exponent of ||E lambda_T - lambda*||^2 vs of G^2 log T/T, "
                          "between T and T^2",
        why=why,
        correction=(
            "gamma >= 1/(2 mu) (e.g. gamma = 1/mu, the classical condition 2 gamma mu > 1 for "
            "gamma/t); as printed, 1/(2L) and 2L/mu do not even have the same units"))


step("table1.sgd_stepsize", check=_sgd_stepsize)


# =================================================================== §6.3-§6.4 against Tables 3-4
# (the printed numbers)
#: Table 3 (BNN, test LPD, higher is better): data set -> (ELBO N=1, ELBO N=10, pMCSA, JSA, MSC,
#: MSC-RB), and the columns printed in bold ('not enough evidence to be distinguished from the best
#: performing method', footnote 3)
TABLE3 = {"yacht": (-2.45, -2.44, -2.49, -3.00, -2.98, -2.98),
          "concrete": (-3.25, -3.24, -3.20, -3.33, -3.32, -3.33),
          "airfoil": (-2.53, -2.56, -2.27, -2.51, -2.53, -2.51),
          "energy": (-2.42, -2.40, -1.92, -2.38, -2.37, -2.36),
          "wine": (-0.96, -0.96, -0.95, -0.97, -0.97, -0.97),
          "boston": (-2.72, -2.70, -2.69, -2.82, -2.80, -2.78),
          "sml": (-1.32, -1.25, -1.22, -1.72, -1.97, -1.95),
          "gas": (-0.06, 0.13, -0.09, -0.47, -0.47, -0.50)}
TABLE3_COLS = ("ELBO N=1", "ELBO N=10", "pMCSA", "JSA", "MSC", "MSC-RB")
TABLE3_BOLD = {"yacht": {"ELBO N=1", "ELBO N=10", "pMCSA"}, "concrete": {"ELBO N=10", "pMCSA"},
               "airfoil": {"pMCSA"},
               "energy": {"pMCSA"}, "wine": set(TABLE3_COLS),
               "boston": {"ELBO N=1", "ELBO N=10", "pMCSA"},
               "sml": {"ELBO N=10", "pMCSA"}, "gas": {"ELBO N=1", "ELBO N=10"}}
#: Table 4 (robust GP): data set -> (ELBO N=1, pMCSA, JSA, MSC, MSC-RB)
TABLE4 = {"yacht": (-3.63, -3.31, -3.29, -3.25, -3.27),
          "airfoil": (-3.14, -2.63, -2.83, -2.77, -2.73),
          "boston": (-2.98, -2.96, -3.00, -3.00, -2.96),
          "energy": (-2.75, -2.58, -2.78, -2.70, -2.72),
          "concrete": (-3.68, -3.49, -3.69, -3.59, -3.57),
          "wine": (-1.02, -0.94, -1.04, -1.00, -0.99),
          "gas": (0.18, -0.86, -1.10, -1.10, -1.06)}
TABLE4_COLS = ("ELBO N=1", "pMCSA", "JSA", "MSC", "MSC-RB")
MCSA_OTHERS = ("JSA", "MSC", "MSC-RB")
#: the rounding of the printed numbers (two decimals): differences are exact to 1e-9
PRINTED = 1e-9


def _t3(ds, col):
    return TABLE3[ds][TABLE3_COLS.index(col)]


def _table3_best():
    """§6.3: 'pMCSA achieves the best performance compared to all other MCSA methods.'"""
    rows = [({"data set": ds, "best other MCSA": max(MCSA_OTHERS, key=lambda c: _t3(ds, c))},
             max(_t3(ds, c) for c in MCSA_OTHERS), _t3(ds, "pMCSA")) for ds in TABLE3]
    return instance_check(rows, "<=", tol=PRINTED, describe="Table 3, every row", complete=True)


step("statements.table3_best", check=_table3_best)


def _table3_comparable():
    """§6.3: 'its overall performance is comparable to exclusive KL minimization methods (ELBO)
    unlike other MCSA methods.'  Reading (Table 3's own criterion, footnote 3): a method is
    comparable on a data set when it is bolded; 'overall' = on a majority of the data sets.  pMCSA
    is bolded on 7 of 8 (ELBO N = 10 on 6), JSA, MSC and MSC-RB on 1 (wine).  With a threshold on
    the mean gap to the better ELBO column instead ('comparable' <=> mean gap >= -delta): pMCSA
    +0.07, JSA -0.226, MSC
    -0.2525, MSC-RB -0.249, so the sentence holds for delta in [0, 0.226) and fails above."""
    n = len(TABLE3)
    rows = []
    for col in ("pMCSA",) + MCSA_OTHERS:
        k = sum(col in TABLE3_BOLD[ds] for ds in TABLE3)
        if col == "pMCSA":  # comparable: bolded on more than half of the data sets
            rows.append(({"method": col, "bolded": f"{k}/{n}"}, n / 2, float(k)))
        else:  # unlike: bolded on at most half
            rows.append(({"method": col, "bolded": f"{k}/{n}"}, float(k), n / 2))
    return instance_check(rows, "<=", tol=0.0, describe="Table 3's bold entries", complete=True)


step("statements.table3_comparable", check=_table3_comparable)


def _table3_numbers():
    """§6.3's numbers against Table 3.  'on airfoil and energy, pMCSA improves over ELBO by 0.29 nat
    and 0.48 nat' (reading: ELBO with the budget N = 10, §6.1: 'The budget is set to N = 10 for all
    experiments unless specified'; against ELBO N = 1 the gains are 0.26 and 0.50): each printed
    gain is the difference of the printed LPDs rounded to two decimals (|difference - printed| <=
    0.005).  'it dominates all other MCSA methods by roughly 0.4 nat' (gas): the margins over JSA,
    MSC, MSC-RB are 0.38, 0.38, 0.41, within tol of 0.4, tol a reading over [0.02, 0.1] (5% to 25%
    of 0.4), checked at the strict end 0.02, so it holds over
    the whole range."""
    # the printed numbers as the exact decimals they are (two decimals each): every row is
    # decided exactly, the complete class (the sentence's numbers) with it
    def t3(ds, col):
        return Fraction(str(_t3(ds, col)))

    rows: list[tuple] = [({"data set": ds, "sentence": "improves over ELBO (N = 10) by",
                           "printed": printed},
             abs(t3(ds, "pMCSA") - t3(ds, "ELBO N=10") - Fraction(printed)), Fraction("0.005"))
            for ds, printed in (("airfoil", "0.29"), ("energy", "0.48"))]
    rows += [({"data set": "gas", "sentence": "dominates by roughly 0.4 nat", "other": c,
               "margin": float(t3("gas", "pMCSA") - t3("gas", c))},
              abs(t3("gas", "pMCSA") - t3("gas", c) - Fraction("0.4")), Fraction("0.02"))
             for c in MCSA_OTHERS]
    return instance_check(rows, "<=", tol=PRINTED, describe="Table 3", complete=True)


step("statements.table3_numbers", check=_table3_numbers)

def _table3_gas():
    """§6.3: 'Even on gas where pMCSA did not beat ELBO, its performance is comparable'.
    'comparable', read with Table 3's own criterion (bolded, footnote 3, as for 'comparable' in the
    sentence before): pMCSA's -0.09 is not bolded on gas, while both ELBO columns (-0.06 and 0.13)
    are: Table 3 finds enough evidence to tell pMCSA from the best there.  (With a threshold on the
    gap instead: 0.03 nat to ELBO N = 1, 0.22
    nat to ELBO N = 10.)  The margins of the same sentence are statements.table3_numbers."""
    ds = "gas"
    rows = [({"data set": ds, "pMCSA bolded": "pMCSA" in TABLE3_BOLD[ds],
              "bolded": sorted(TABLE3_BOLD[ds])},
             1.0, float("pMCSA" in TABLE3_BOLD[ds]))]
    return instance_check(rows, "<=", tol=PRINTED, describe="Table 3, gas", complete=True)


step("statements.table3_gas", check=_table3_gas)

#: 'comparable' as a gap in nats: at most the margin the same sentence calls domination ('dominates
#: all other MCSA methods by roughly 0.4 nat'), so 'comparable' must be a smaller gap; the range of
#: readings of the threshold
GAP_RANGE = (0.05, 0.4)


def _table3_gas_gap():
    """§6.3 'Even on gas where pMCSA did not beat ELBO, its performance is comparable, and it
    dominates all other MCSA methods by roughly 0.4 nat'.  Reading 'comparable' as a gap to the best
    entry of at most delta nat, delta in
    :data:`GAP_RANGE` (the same sentence calls 0.4 nat domination, so 'comparable' is a smaller
    gap): pMCSA's gap on gas is 0.22 nat to ELBO (N = 10), 0.03 to ELBO (N = 1).  Holds for delta >=
    0.22, fails below: the verdict changes inside the range, so 'comparable' on gas depends on the
    reading (with statements.table3_gas, the
    bolding reading, which fails).  The row is at the lenient end; the detail gives the crossing."""
    gap = round(max(_t3("gas", c) for c in TABLE3_COLS) - _t3("gas", "pMCSA"), 9)
    # within delta of every other entry on gas (the largest of these gaps is the gap to the best)
    rows = [({"data set": "gas", "other": c,
              "gap (nat)": round(_t3("gas", c) - _t3("gas", "pMCSA"), 9),
              "delta": GAP_RANGE[1]}, round(_t3("gas", c) - _t3("gas", "pMCSA"), 9), GAP_RANGE[1])
            for c in TABLE3_COLS if c != "pMCSA"]
    o = instance_check(rows, "<=", tol=PRINTED,
                       describe="pMCSA's gap to every other entry on gas",
                       complete=True)
    o.detail += (
        f"; the gap {gap:g} nat: fails for delta < {gap:g}, holds for delta >= {gap:g} (range "
        f"{list(GAP_RANGE)}): depends on the reading of 'comparable'")
    return o


step("statements.table3_gas_gap", check=_table3_gas_gap)

#: 'better than' read with the Table's own bolding ('not enough evidence to be distinguished from
#: the best'): dropped, the footnote itself names the best performing method by its printed value
#: (MSC on yacht)
DROPPED = {
    "statements.table4_except_gas": (
        "'better' = bolded (not distinguishable from the best)",
        "Table 4, footnote 3: 'Bolded numbers don't have enough evidence to be distinguished from "
        "the best performing method' -- bold marks methods not distinguishable from 'the best "
        "performing method', which on yacht is MSC (-3.25), not pMCSA (-3.31): bolding does not "
        "make pMCSA better"),
}


def _table4_except_gas():
    """§6.4: 'Except for gas, pMCSA achieves better predictive densities than all other methods.'
    Strictly higher test LPD than every other column, on every data set but gas (also fails with
    'higher or equal': yacht)."""
    rows = []
    for ds, vals in TABLE4.items():
        if ds == "gas":
            continue
        p = vals[TABLE4_COLS.index("pMCSA")]
        others = {c: v for c, v in zip(TABLE4_COLS, vals) if c != "pMCSA"}
        best = max(others, key=others.__getitem__)
        rows.append(({"data set": ds, "pMCSA": p, "best other": best, "its LPD": others[best],
                      "higher than pMCSA": sorted(c for c, v in others.items() if v > p)}, p,
                     others[best]))
    return first_failing(
        rows, ">", 0.0, "Table 4, every row but gas")


step("statements.table4_except_gas", check=_table4_except_gas)


def _table4_gas():
    """§6.4: 'While ELBO achieves the best performance on gas, among MCSA methods, pMCSA
    dominates.'
    """
    g = dict(zip(TABLE4_COLS, TABLE4["gas"]))
    rows = [({"data set": "gas", "method": c}, g[c],
             g["ELBO N=1"]) for c in TABLE4_COLS if c != "ELBO N=1"]
    rows += [({"data set": "gas", "method": c, "against": "pMCSA"}, g[c],
              g["pMCSA"]) for c in MCSA_OTHERS]
    return instance_check(rows, "<", tol=0.0, describe="Table 4, gas", complete=True)


step("statements.table4_gas", check=_table4_gas)


# ========================================================================== §7: 'sigma^2/N (sigma
# is the variance ...)'
def pmcsa_stationary_variance(pi, s, N: int) -> float:
    """V[g] of pMCSA at stationarity (the N chains' states i.i.d. from pi), by enumerating every
    N-tuple of states (exact)."""
    M = len(pi)
    Eg, Eg2 = 0.0, 0.0
    for tup in itertools.product(range(M), repeat=N):
        p = float(np.prod([pi[z] for z in tup]))
        g = -float(np.mean([s[z] for z in tup]))
        Eg += p * g
        Eg2 += p * g * g
    return Eg2 - Eg ** 2


def _s7_variance():
    """§7: 'under stationarity, the variance of pMCSA is sigma^2/N (sigma ... of the score over the
    posterior)' with sigma^2 the variance V_pi[s]: V[g] = V_pi[s]/N, exactly."""
    rows = []
    for pi, q, s in _pqs():
        for N in free("N", [1, 3], Int(1, 6)):
            N = int(N)
            while pi.size ** N > 3000 and N > 1:
                N -= 1
            v = float(pi @ (s - pi @ s) ** 2)
            # the lhs is E[g^2] - (E g)^2, both sums over at most 3000 tuples: it cancels terms of
            # size E[g^2] = v/N + (E_pi s)^2 <= E_pi[s^2], with an error of about 3000 eps of that
            # (within tol = 64 U 4096): the row's scale is E_pi[s^2], not v
            rows.append(({"M": pi.size, "N": N}, pmcsa_stationary_variance(pi, s, N), v / N,
                         float(pi @ s ** 2)))
    return instance_check(rows, "=", tol=64 * U * 4096, describe="N-tuples enumerated")


step("statements.s7_variance", check=_s7_variance)


def _s7_literal():
    """The parenthesis as printed: 'sigma is the variance of the score over the posterior', so the
    printed sigma^2/N is V_pi[s]^2/N.  (The reading 'sigma the standard deviation', under which the
    sentence holds (statements.s7_variance), is contradicted by the parenthesis itself.)  Exact
    rationals, H10's instance: pi = (1/2, 3/10, 1/5), s = (1, -1/2, 1/4), N = 3."""
    pi = [Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)]
    s = [Fraction(1), Fraction(-1, 2), Fraction(1, 4)]
    N = 3
    mu = sum(p * v for p, v in zip(pi, s))
    var = sum(p * (v - mu) ** 2 for p, v in zip(pi, s))
    # Fractions (typeshed types math.prod of Fractions as possibly a float)
    Vg: Fraction | float = Fraction(0)
    Eg: Fraction | float = Fraction(0)
    for tup in itertools.product(range(3), repeat=N):
        p = math.prod(pi[z] for z in tup)
        g = -sum(s[z] for z in tup) / N
        Eg += p * g
        Vg += p * g * g
    Vg -= Eg ** 2
    printed = var ** 2 / N
    rows = [({"pi": "(1/2, 3/10, 1/5)", "s": "(1, -1/2, 1/4)", "N": N, "sigma = V_pi[s]": str(var),
              "printed sigma^2/N": str(printed), "exact V[g]": str(Vg)}, float(printed), float(Vg))]
    return instance_check(rows, "=", tol=1e-15)


step("statements.s7_sigma", check=_s7_literal)


# ============================================================================= App. C.1: the BNN as
# printed
#: Table 3's D_lambda and D_x for the rows whose D_x fits its D_lambda (see table3.dims)
APPC1_ROWS = (("yacht", 403, 6), ("concrete", 503, 8))
HIDDEN = 50


def bnn_printed_params(dx: int) -> int:
    """Parameters of App. C.1's model as printed: W_1 (50 x D_x), W_2 (1 x 50), lambda, gamma (no
    biases).
    """
    return HIDDEN * dx + HIDDEN + 2


def bnn_params_with_biases(dx: int) -> int:
    """The Hernandez-Lobato & Adams network with biases: W_1 (50 x (D_x + 1)), W_2 (1 x 51), lambda,
    gamma.
    """
    return HIDDEN * (dx + 1) + HIDDEN + 1 + 2


def _appc1_params():
    rows = [({"data set": ds, "D_x": dx, "with biases": bnn_params_with_biases(dx)},
             float(bnn_printed_params(dx)),
             float(dl)) for ds, dl, dx in APPC1_ROWS]
    return first_failing(
        rows, "=", 0.0, "Table 3 rows whose D_x fits D_lambda")


step("statements.appc1_params", check=_appc1_params)


def bnn_standardised_data(n: int = 2000, dx: int = 6, seed: int = 0):
    """H09's synthetic regression data: X ~ N(0, I), y = sin(x_1) + 0.5 x_2 + 0.1 N(0, 1), y
    z-standardised
    (as App. C.1 whitens the targets)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, dx))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, (y - y.mean()) / y.std()


def _appc1_relu():
    """App. C.1 prints y_hat = ReLU(W_2 z): y_hat >= 0 for every weight, while the targets are
    z-standardised ('We apply z-standardization (whitening) to ... the target values y_i'), half of
    them negative.  So any weights give a mean squared error >= mean(y^2 1{y < 0}) (a lower bound,
    exact), which exceeds what a least-squares line in one feature reaches -- a function the
    Hernandez-Lobato & Adams network (linear output, biases) represents exactly."""
    X, y = bnn_standardised_data()
    lower = float(np.mean(np.minimum(y, 0.0) ** 2))
    a, b = np.polyfit(X[:, 0], y, 1)
    line = float(np.mean((y - (a * X[:, 0] + b)) ** 2))
    rows = [({"data": "n = 2000, D_x = 6, y = sin(x_1) + 0.5 x_2 + 0.1 eps, standardised",
              "fraction of negative targets": float(np.mean(y < 0))}, lower, line)]
    return instance_check(rows, "<=", tol=1e-12)


step("statements.appc1_relu", check=_appc1_relu)

step("statements.appc2_wording",
     check=fixed(
         WRONG, "the displayed model has a Student-t likelihood (observation model) y_i ~ "
                "student-t(f(x_i), sigma_y, nu) on a latent GP f, not a Student-t prior; the "
                "heading says 'Logistic Regression' while the model and §6.4 are regression with "
                "real-valued targets (minor: wording)",
         correction="'robust Gaussian process regression with a Student-t likelihood and a "
                    "latent Gaussian process prior'; heading 'Robust Gaussian Process "
                    "Regression'"))


# ========================================================================= App. D: 'pMCSA, is
# described in Algorithm 5'
def _alg5():
    """Algorithm 5 (JSA: N sequential IMH steps from z_t-1^(N)) against Algorithm 1 (pMCSA: one step
    of each of N chains), the same state entering the iteration: the conditional second moments of
    their gradients differ."""
    rows = []
    for ws in (10.0, 100.0):
        pi, q = F.hard_instance(3, ws, seed=0)
        K = F.imh_matrix(pi, q)
        s = F.centred_bounded_score(pi, 1.0)
        for N in (4, 16):
            rows.append(({"w_star": ws, "N": N, "state": "x* (all chains / z_t-1^(N))"},
                         F.moments_jsa(K, s, 0, N).second,
                         F.moments_pmcsa(K, s, np.zeros(N, int)).second))
    return first_failing(
        rows, "=", 1e-12, "E[||g||^2 | F_t-1]: Algorithm 5 (lhs) vs Algorithm 1 (rhs)")


step("statements.alg5_is_jsa", check=_alg5)


# ====================================================================== §5.2: 'dominated by that of
# evaluating p(z, x)'
#: 'dominated' read as a factor k in [2, 100]; checked at the strict end
COST_K = 100


def _cost_q_dominated():
    """§5.2: pMCSA's extra evaluations of q are a 'minimal' cost 'since it is dominated by that of
    evaluating p(z, x)'.  Multiply-add counts at the sizes of Tables 3-4 (cost model: log q of a
    mean-field Gaussian in dim z = D_lambda: 4 D_lambda; log p of App. C.1's BNN: N_train (2 * 50
    (D_x + 1)
    + 2 * 51 + 10) + 2 D_lambda; of App. C.2's GP: a Cholesky factor N_train^3/3 + 2 N_train^2).
      The
    threshold 'dominated' (p costs at least k times q) is read over k in [2, 100]; the check is at
    k = 100, so it covers the range."""
    k = COST_K
    rows = []
    t3 = (("yacht", 403, 6, 277), ("concrete", 503, 8, 927), ("airfoil", 353, 6, 1352),
          ("energy", 503, 9, 691),
          ("wine", 653, 12, 1439), ("boston", 753, 14, 455), ("sml", 1203, 23, 3723),
          ("gas", 6503, 129, 2308))
    t4 = (("yacht", 287, 6, 277), ("airfoil", 353, 6, 1352), ("boston", 472, 13, 455),
          ("energy", 703, 8, 691),
          ("concrete", 939, 8, 927), ("wine", 1454, 11, 1439), ("gas", 2440, 128, 2308))
    for ds, dl, dx, n in t3:
        p_cost: float = n * (2 * HIDDEN * (dx + 1) + 2 * (HIDDEN + 1) + 10) + 2 * dl
        rows.append(({"table": 3, "data set": ds, "q": 4 * dl, "p": p_cost, "k": k},
                     float(k * 4 * dl), float(p_cost)))
    for ds, dl, dx, n in t4:
        p_cost = n ** 3 / 3 + 2 * n ** 2
        rows.append(({"table": 4, "data set": ds, "q": 4 * dl, "p": p_cost, "k": k},
                     float(k * 4 * dl), float(p_cost)))
    return instance_check(rows, "<=", tol=0.0,
                          describe="every row of Tables 3-4 (cost model in the docstring)",
                          complete=True)


step("statements.cost_q_dominated", check=_cost_q_dominated)


# ============================================================================= readings settled
# from computed steps

step("statements.mixing_improves",
     check=fixed(
         WRONG, "for the paper's own §6.2 problem (mean-field q against a full-rank Gaussian pi) "
                "w* = oo at the inclusive-KL optimum (statements.wstar_meanfield: diag(Sigma) - "
                "Sigma has a negative eigenvalue), so r = 1 at convergence as at the start: the "
                "global mixing rate never improves (the stored full Figure 1 run has w* = inf at "
                "every recorded iteration of every scheme).  With a family that contains pi (w* -> "
                "1 as q -> pi) the sentence holds",
         correction="'the mixing rate improves as MCSA converges when the variational "
                    "family can match pi's tails; "
                    "under misspecification w* can stay infinite'"))

step("statements.qdef_benefit",
     check=fixed(
         WRONG, "for a misspecified family (the paper's §6.2 problem) the plain kernel has w* = "
                "oo, r = 1 at the inclusive-KL optimum (statements.wstar_meanfield), while q_def "
                "keeps w* <= sup(pi/nu)/(1 - alpha) < oo (statements.qdef_w_star), r < 1: the "
                "benefit does not vanish as lambda converges.  With a family that contains pi the "
                "plain kernel's r -> 0 and the benefit does vanish",
         correction="'this benefit vanishes as lambda converges when q(.; lambda) can "
                    "match pi's tails'"))


# ====================================================== §5.1: 'increasing N accelerates convergence
# quite dramatically'
#: the stored full run of Figure 1 (docs/figures/figure1.csv: 001 §6.2's target, D = 50, nu = 500,
#: ADAM 0.01, 8 replications): per scheme and convergence tolerance tau (over figure2's range 1 nat
#: .. 10 KL*: 1, KL*, 2 KL*, 5 KL*, 10 KL*; KL* = 1.1897 for this target), the median over
#: replications of the first recorded iteration with KL(pi||q_t) <= KL* + tau, at N = 8 and N = 128
#: (recomputed from the CSV in tests/test_statements_kim2022.py)
FIG1_REACH = {"pmcsa": {1.0: (5000, 2800), 1.1897: (4800, 2800), 2.3793: (4400, 2400),
                        5.9483: (3800, 2000),
                        11.897: (3200, 1800)},
              "jsa": {1.0: (8800, 7400), 1.1897: (8600, 7200), 2.3793: (7900, 6600),
                      5.9483: (6800, 5600),
                      11.897: (6000, 5000)},
              "msc": {1.0: (9200, 7800), 1.1897: (9000, 7600), 2.3793: (8200, 6800),
                      5.9483: (7200, 5800),
                      11.897: (6300, 5200)},
              "msc-rb": {1.0: (8800, 7200), 1.1897: (8600, 7000), 2.3793: (7800, 6400),
                         5.9483: (6800, 5400),
                         11.897: (6000, 4800)}}


def _acceleration(k):
    def check():
        rows = []
        for tau, (t8, t128) in FIG1_REACH["pmcsa"].items():
            others = {s: round(v[tau][0] / v[tau][1], 4)
                      for s, v in FIG1_REACH.items() if s != "pmcsa"}
            rows.append(({"scheme": "pMCSA", "tau": tau, "iterations at N = 8": t8,
                          "at N = 128": t128,
                          "speed-up of the other schemes": others, "k": k}, t8 / t128, float(k)))
        o = instance_check(rows, ">=", tol=0.0,
                           describe="the stored full Figure 1 run, every tau of the range",
                           complete=True)
        return explain(o, why=f"on the paper's own §6.2 problem a 16-fold budget speeds pMCSA's "
                              f"convergence up by 1.71-1.90x (the other schemes 1.18-1.26x): "
                              f"below k = {k:g}: ",
                       correction="'increasing N accelerates convergence (1.7-1.9x over N = 8 "
                                  "to 128 on §6.2's problem)'")
    return check


# the reading 'dramatically: k = 2' and the lenient end of its range, k = 1.5
for _suffix, _k, _expect in (("", 2.0, WRONG), ("_lenient", 1.5, VALID)):
    step(f"statements.pmcsa_acceleration{_suffix}", claim=CLAIM,
         location="§5.1, Discussion", relation=">=",
         lhs="iterations to KL* + tau at N = 8 / at N = 128 (pMCSA, stored full Figure 1 run)",
         rhs=f"k = {_k:g}",
         justification="'In practice, however, we observe that increasing N accelerates "
                       "convergence quite dramatically'",
         check=_acceleration(_k), expect=_expect,
         reading=f"dramatically: k = {_k:g} (range [1.5, 4])")
