"""Rigorous arithmetic for the checks of the CIS-as-IMH draft (document 003): the enclosures that
decide them (docs/methods.md, "Validated numerics").

* **Exact rationals** (``fractions.Fraction``) for the finite-space identities: the instance
  ``(pi, q)`` is the pair of float vectors of :func:`simulate.finite.hard_instance` or
  :func:`verify.documents.cis_imh.checks.spread_instance`, each divided by its exact sum (the
  float vectors sum to 1 only up to rounding), so that ``w = pi/q`` and every probability of the
  CIS kernel are exact rationals.  :func:`cis_move_exact` is a small exact version of the
  off-diagonal of :func:`simulate.finite.cis_matrix` (that function is float64; its formula
  ``K(x, y) = N pi_y E[1/(w_x + w_y + S_(N-1))]`` is summed here over the multisets of the
  other proposals, in Fractions).
* **A Hermite-Hadamard bracket** of the acceptance rate's Laplace integral (:func:`acceptance_hh`):
  float64 arithmetic with a proved rounding bound, for N too large to enumerate.
* **Ball arithmetic** (python-flint ``arb``) for the closed forms of the marginal IMH rejection
  rate of the Gaussian families and of their KL divergences (:func:`rejection_arb`, :func:`kl_arb`)
  and for functions of enclosed values (log-log slopes, ratios).

Bounds from :mod:`bounds` are evaluated exactly at rational parameters by substituting them into
the claim's own sympy formula (:func:`exact_form`), so a planted change of a formula is seen.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from bounds.enclosure import Enclosure, precision

U = 2.0 ** -53  # unit roundoff of float64


# ============================================================================= bounds, exactly
@lru_cache(maxsize=64)
def _form_expr(claim: str, quantity: str, form: str):
    import bounds

    c = bounds.get(claim)
    return c._resolved(quantity, form), tuple(p.name for p in c.params)


def exact_form(claim: str, quantity: str, form: str = "stated", **values) -> Fraction:
    """The bound ``form`` of ``quantity`` at exact rational parameter values, as a Fraction.

    The claim's sympy formula evaluated on Fractions (sums, products, integer powers and rational
    constants); raises ``ValueError`` for any other operation (an irrational formula: use
    :func:`bounds.enclose`).
    """
    expr, _ = _form_expr(claim, quantity, form)
    vals = {k: Fraction(v) for k, v in values.items()}
    return _eval_rational(expr, vals, f"{claim}.{quantity}.{form}")


def _eval_rational(e, vals: dict, what: str) -> Fraction:
    import sympy as sp

    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Symbol:
        return vals[e.name]
    if isinstance(e, sp.Add):
        return sum((_eval_rational(a, vals, what) for a in e.args), Fraction(0))
    if isinstance(e, sp.Mul):
        out = Fraction(1)
        for a in e.args:
            out *= _eval_rational(a, vals, what)
        return out
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        return _eval_rational(e.base, vals, what) ** int(e.exp)
    raise ValueError(f"{what} is not a rational function ({type(e).__name__})")


# ============================================================================= finite instances
def exact_pair(pi, q) -> tuple[list[Fraction], list[Fraction]]:
    """The float vectors ``pi``, ``q`` as exact probability vectors (each divided by its exact
    sum; the floats sum to 1 only up to rounding)."""
    P = [Fraction(float(v)) for v in pi]
    Q = [Fraction(float(v)) for v in q]
    sp_, sq = sum(P), sum(Q)
    return [v / sp_ for v in P], [v / sq for v in Q]


def exact_weights(pi, q) -> list[Fraction]:
    """``w = pi/q`` of :func:`exact_pair`, exactly."""
    P, Q = exact_pair(pi, q)
    return [a / b for a, b in zip(P, Q)]


def multisets_exact(Q: list[Fraction], N: int):
    """Every multiset of N proposals drawn i.i.d. from Q: ``(states, counts, probability)`` with
    the multinomial probability an exact Fraction (the order of
    ``itertools.combinations_with_replacement``)."""
    M = len(Q)
    fact = [math.factorial(k) for k in range(N + 1)]
    for combo in itertools.combinations_with_replacement(range(M), N):
        c = [0] * M
        for s in combo:
            c[s] += 1
        p = Fraction(fact[N])
        for s in range(M):
            if c[s]:
                p = p / fact[c[s]] * Q[s] ** c[s]
        yield combo, c, p


def cis_move_exact(P: list[Fraction], Q: list[Fraction], x: int, N: int) -> Fraction:
    """P(z_t != x | z_t-1 = x) of the CIS kernel with N proposals, exactly.

    ``sum_(y != x) K(x, y)`` with ``K(x, y) = N pi_y E[1/(w_x + w_y + S_(N-1))]``, ``S_(N-1)`` the
    sum of the weights of the other N - 1 proposals (the formula of
    :func:`simulate.finite.cis_matrix`, summed exactly over their multisets).  It counts a
    proposal equal to x, when selected, as no move (a rejection).
    """
    W = [a / b for a, b in zip(P, Q)]
    tot = Fraction(0)
    sets = [(sum((W[s] for s in combo), Fraction(0)), p) for combo, _, p in
            multisets_exact(Q, N - 1)]
    for y in range(len(P)):
        if y == x:
            continue
        tot += N * P[y] * sum((p / (W[x] + W[y] + S) for S, p in sets), Fraction(0))
    return tot


# ============================================================================= Hermite-Hadamard
def _lse_rows(logm: np.ndarray, t: np.ndarray, w: np.ndarray):
    """``L(t) = log sum_i mu_i exp(-t w_i)`` for every t, with a proved bound on its error and
    the tilted mean ``sum_i mu_i w_i e^(-t w_i) / sum_i mu_i e^(-t w_i)`` (within a factor 2).

    The algorithm (whose rounding :func:`acceptance_hh` bounds): ``a_i = log mu_i - t w_i``, ``m =
    max_i a_i``, ``T_i = exp(a_i - m)``, ``s = sum_i T_i``, ``L = log s + m``.  Any m gives the
    same L exactly, so m's own rounding is harmless.  Term i is off its exact value (the exact
    instance's mu_i and w_i, within u relative of the floats used) by a factor ``exp(+-eps_i)``,
    ``eps_i = u (12 |log mu_i| + 4 t w_i + 2 |m| + 12)``: log within 4 ulp (8 u |log mu_i|), the
    product and the two subtractions (u each of their magnitudes), exp within 4 ulp (8 u), the
    instance (u (1 + t w_i)).  So the exact s lies in ``s_hat (1 +- R) (1 +- gamma_M)``, ``R =
    sum_i (exp(d_i + eps_i) - exp(d_i - eps_i)) / s_hat`` (d_i the computed a_i - m; a term that
    underflows adds at most 2^-1074), and ``|log s - log s_hat| <= 2 (R + gamma_M)`` for R +
    gamma_M <= 1/2; log adds 8 u log M (s_hat in [1, M]) and the final addition u |L|.  A term
    that is negligible has a negligible share of R however large its own eps_i: no bound grows
    with t max w_i.
    """
    a = logm[None, :] - t[:, None] * w[None, :]
    m = a.max(axis=1)
    d = a - m[:, None]
    T = np.exp(d)
    s = T.sum(axis=1)
    L = np.log(s) + m
    M = w.size
    eps = U * (12 * np.abs(logm)[None, :] + 4 * t[:, None] * w[None, :]
               + 2 * np.abs(m)[:, None] + 12)
    with np.errstate(over="ignore"):
        dev = (np.exp(d + eps) - np.exp(d - eps)) * (1 + 16 * U)
    R = dev.sum(axis=1) / s * (1 + 8 * U) + M * 5e-324
    gM = 2 * M * U
    err = np.where(R + gM <= 0.5, 2 * (R + gM) * (1 + 4 * U) + 8 * U * math.log(M)
                   + 2 * U * np.abs(L), np.inf)
    tilt = 2 * (T * w[None, :]).sum(axis=1) / s
    return L, err, tilt


def acceptance_hh(pi, q, Ns, k: int = 9):
    """Enclosures of the acceptance rate ``1 - r(x) = E_q[S/(w_x + S)]`` at every state x, for
    every N in ``Ns`` (S the sum of N i.i.d. proposal weights), on the exact instance of
    :func:`exact_pair`: ``(lo, hi)`` arrays of shape (M, len(Ns)) with lo <= value <= hi.

    Method.  ``E_q[S/(w + S)] = int_0^oo h(t) dt``, ``h(t) = N e^(-t w_x) phi_pi(t)
    phi_q(t)^(N-1)``, ``phi_mu(t) = sum_i mu_i e^(-t w_i)`` (from ``1/a = int e^(-ta) dt`` and
    ``q_y w_y = pi_y``).  ``log phi_mu`` is a log-sum-exp of functions affine in t, hence convex,
    so ``log h`` is convex and h is convex: on every panel [a, b] the Hermite-Hadamard inequality
    gives ``(b - a) h((a+b)/2) <= int_a^b h <= (b - a)(h(a) + h(b))/2``.  The panels are a
    geometric grid of ratio ``1 + 2^-k`` from ``t0 = 1e-20/N_max`` to ``t1`` with ``N
    e^(-t1 r)/r <= 1e-20`` (``r = w_x + N w_min``); the ends add ``[0, N t0]`` (``h <= h(0) =
    N``) and ``[0, N e^(-t1 r)/r]`` (``phi_mu(t) <= e^(-t w_min)``, so ``h(t) <= N e^(-t r)``).

    Rounding (a proof, in float64; the elementary functions exp and log within 4 ulp, every
    other operation correctly rounded, u = 2^-53): :func:`_lse_rows` bounds the error of each
    ``L_mu = log phi_mu``; ``log h = log N - t w_x + L_pi + (N - 1) L_q`` adds the rounding of
    its terms (log N, the product t w_x with the instance's u, (N - 1) L_q, three additions); E
    below bounds the total, and h lies in ``h_hat exp(+-E) (1 +- 8u)``, taken as ``h_hat (1 +-
    (2E + 16u))`` for E <= 1/2.  Where E > 1/2 (only where h is negligible) the node's bounds are
    0 and ``N e^(-t r)``.  The grid points are floats with ratio below 2, so ``b - a`` is exact
    (Sterbenz); the computed midpoint is within ``u b`` of the true one, which the tangent of the
    convex h at it turns into a relative loss of at most ``|h'/h| u b``, ``|h'/h| = w_x +
    E_pi,t[W] + (N - 1) E_q,t[W]`` (tilted means, bounded by :func:`_lse_rows` within a factor 2).
    Each panel's product is rounded outward (factors 1 -+ 8u: it is rounded at most four times);
    the n positive panel terms are summed in any order within gamma_n = n u/(1 - n u) relative
    (taken as 2 n u), and the last additions and products are covered by 1 -+ 4u.

    The width is about ``2^-2k`` relative; k = 9 gives some 1e-6.
    """
    P, Q = exact_pair(pi, q)
    W = [a / b for a, b in zip(P, Q)]
    w = np.array([float(v) for v in W])
    lp = np.log(np.array([float(v) for v in P]))
    lq = np.log(np.array([float(v) for v in Q]))
    Ns = [int(n) for n in Ns]
    M = w.size
    wmin = float(w.min())
    nmax = max(Ns)
    t0 = 1e-20 / nmax
    t1 = 0.0
    for x in range(M):
        for N in Ns:
            r = w[x] + N * wmin
            t1 = max(t1, (math.log(N / r) + 47.0) / r)
    rho = 1.0 + 2.0 ** -k
    n = int(math.ceil(math.log(t1 / t0) / math.log(rho)))
    t = t0 * rho ** np.arange(n + 1, dtype=float)  # floats; consecutive ratio < 2
    t[-1] = max(t[-1], t1)
    a, b = t[:-1], t[1:]
    dt = b - a  # exact (Sterbenz)
    mid = (a + b) / 2
    # log phi at the nodes and the midpoints, their error bounds and the tilted means
    Lp, eLp, _ = _lse_rows(lp, t, w)
    Lq, eLq, _ = _lse_rows(lq, t, w)
    Lpm, eLpm, tpm = _lse_rows(lp, mid, w)
    Lqm, eLqm, tqm = _lse_rows(lq, mid, w)
    lo = np.zeros((M, len(Ns)))
    hi = np.zeros((M, len(Ns)))
    for j, N in enumerate(Ns):
        logN = math.log(N)
        for x in range(M):
            r = (w[x] + N * wmin) * (1 - 4 * U)

            def node_bounds(tt, L1, e1, L2, e2):
                with np.errstate(invalid="ignore"):
                    h = np.exp(logN - tt * w[x] + L1 + (N - 1) * L2)
                    E = (U * (12 * logN + 6 * tt * w[x] + 5 * (np.abs(L1) + N * np.abs(L2)))
                         + e1 + (N - 1) * e2)
                    ok = E <= 0.5
                    cap = N * np.exp(-tt * r) * (1 + 16 * U)  # h <= N e^(-t r), always
                    up = np.where(ok, np.minimum(h * (1 + (2 * E + 16 * U)), cap), cap)
                    down = np.where(ok, h * (1 - (2 * E + 16 * U)), 0.0)
                return down, up

            _, hh_t = node_bounds(t, Lp, eLp, Lq, eLq)
            hl_m, _ = node_bounds(mid, Lpm, eLpm, Lqm, eLqm)
            kappa = (w[x] + tpm + (N - 1) * tqm) * (1 + 4 * U) * U * b
            # each product below is rounded at most four times (<= 4u relative): 8u covers it
            low_terms = dt * hl_m * np.maximum(1 - kappa, 0.0) * (1 - 8 * U)
            up_terms = dt * (hh_t[:-1] + hh_t[1:]) * 0.5 * (1 + 8 * U)
            tail = N * math.exp(-t[-1] * r) / r * (1 + 16 * U)
            head = N * t0 * (1 + 2 * U)
            # a sum of n positive terms in any order is within gamma_n = n u/(1 - n u) relative
            g = 2.0 * low_terms.size * U
            lo[x, j] = float(np.maximum(low_terms, 0.0).sum()) * (1 - g) * (1 - 2 * U)
            hi[x, j] = (float(up_terms.sum()) * (1 + g) + tail + head) * (1 + 4 * U)
    return lo, hi


# ============================================================================= ball arithmetic
def arb_value_error(ball) -> tuple[float, float]:
    """A float near the ball's centre and a proved bound on its distance to any point of the
    ball (the radius plus the rounding of the centre, rounded up)."""
    enc = Enclosure.from_arb(ball)
    lo, hi = enc.floats()
    v = float(ball.mid())
    err = max(Fraction(v) - Fraction(lo), Fraction(hi) - Fraction(v))
    e = float(err)
    return v, e if Fraction(e) >= err else math.nextafter(e, math.inf)


def kl_arb(family: str, prec: int, m: float = 0.0, D: int = 1, s: float = 1.0):
    """(KL(p || q), KL(q || p)) as arb balls at ``prec`` bits, for p = N(0, 1), q = N(m, 1)
    (``family="mean shift"``: both m^2/2) or p = N(0, I_D), q = N(0, s^2 I_D) (``"scale"``:
    D/2 (1/s^2 - 1 + log s^2) and D/2 (s^2 - 1 - log s^2))."""
    from flint import arb

    with precision(prec):
        if family == "mean shift":
            k = arb(m) ** 2 / 2
            return k, k
        s2 = arb(s) ** 2
        half_d = arb(int(D)) / 2
        return half_d * (1 / s2 - 1 + s2.log()), half_d * (s2 - 1 - s2.log())


def rejection_arb(family: str, prec: int, m: float = 0.0, D: int = 1, s: float = 1.0):
    """The marginal IMH rejection rate at stationarity, r = 1 - E_{z~p, z*~q} min(1, w(z*)/w(z)),
    in closed form as an arb ball at ``prec`` bits.

    Mean shift, p = N(0, 1), q = N(m, 1): w(z*)/w(z) = e^(-m D), D = z* - z ~ N(m, 2), and
    r = P(mD > 0) - E[e^(-mD); mD > 0] = Phi(|m|/sqrt 2) - Phi(-|m|/sqrt 2) = erf(|m|/2)
    (the exponential tilt of N(m, 2) by e^(-mD) is N(-m, 2) with the same mass).
    Scale, p = N(0, I_D), q = N(0, s^2 I_D): with X = ||z||^2, s^2 Y = ||z*||^2, X and Y i.i.d.
    chi2_D, w(z*)/w(z) = exp(-c (s^2 Y - X)), c = (1 - 1/s^2)/2; tilting X by e^(cX) and Y by
    e^(-c s^2 Y) (factors s^D and s^-D) gives r = |P(X < s^2 Y) - P(X s^2 < Y)| = |F(s^2) -
    F(1/s^2)| for F the CDF of X/Y ~ F(D, D), i.e. r = |2 I_(s^2/(1+s^2))(D/2, D/2) - 1|
    (regularised incomplete beta; I_(1-z)(a, a) = 1 - I_z(a, a)).
    """
    from flint import arb

    with precision(prec):
        if family == "mean shift":
            return (abs(arb(m)) / 2).erf()
        s2 = arb(s) ** 2
        z = s2 / (1 + s2)
        a = arb(int(D)) / 2
        return abs(2 * z.beta_lower(a, a, 1) - 1)


def log_slope_arb(Ns, lo_hi, prec: int = 128):
    """The least-squares slope of log V on log N for V_i in [lo_i, hi_i] (positive), as an arb
    ball containing the slope of every choice of V_i in those intervals: ``sum_i c_i log V_i``,
    ``c_i = (log N_i - mean) / sum_j (log N_j - mean)^2`` (the slope is linear in log V)."""
    from flint import arb, fmpz

    from bounds.enclosure import _to_arb

    with precision(prec):
        lx = [arb(fmpz(int(n))).log() for n in Ns]
        mean = sum(lx, arb(0)) / len(lx)
        sxx = sum(((v - mean) ** 2 for v in lx), arb(0))
        out = arb(0)
        for li, (lo, hi) in zip(lx, lo_hi):
            lv = _to_arb(lo).union(_to_arb(hi)).log()
            out += (li - mean) / sxx * lv
        return out


# ============================================================================= variance of MSC-RB
def _cm_integral(t, mid, facs, facs_m, n, q_t, q_m, wx, wmin, t0):
    """Enclosures of ``int_0^oo G`` and ``int_0^oo t G`` for ``G(t) = e^(-t w_x) prod_j
    F_j(t) phi_q(t)^n``, each ``F_j(t) = sum_y c_y e^(-t w_y)`` with c_y >= 0: (I_lo, I_hi, J_lo,
    J_hi).

    G is a positive combination of decreasing exponentials (completely monotone), hence
    decreasing and log-convex, so convex: on a panel [a, b] with midpoint m and width D, ``D G(m)
    <= int G <= D (G(a) + G(b))/2`` (Hermite-Hadamard) and ``int (t - m) G in [-(D^2/8)(G(a) -
    G(b)), 0]`` (pair t = m +- v: G(m + v) - G(m - v) lies in [G(b) - G(a), 0]), hence ``int t G
    in [m D G(m) - (D^2/8)(G(a) - G(b)), m D (G(a) + G(b))/2]``.  The computed midpoint is within
    u b of m: the tangent at it loses a relative ``|G'/G| u b`` of ``D G(m_hat)`` (``|G'/G| = w_x
    + sum_j E_Fj,t W + n E_q,t W``, tilted means) and ``int (t - m_hat) G`` moves by at most ``u b
    D G(a)``.  The ends: ``[0, t0]`` adds at most ``G(0) t0`` (``G(0) t0^2/2``), ``[t1, oo)`` at
    most ``G(0) e^(-t1 r)/r`` (``G(0) e^(-t1 r)(t1/r + 1/r^2)``), ``r = w_x + (n + #F) w_min``
    (``G(t) <= G(0) e^(-t r)``).  Node values: ``exp(-t w_x + sum_j L_Fj + n L_q)`` within
    ``exp(+-E)``, E from the proved errors of the log-sum-exps (:func:`_lse_rows`), the rounding
    of the product t w_x (with w_x's own), of n L_q and of the sum, and exp's 4 ulp; where E > 1/2
    the node's bounds are 0 and ``G(0) e^(-t r)``.  Sums of n terms: within gamma_n sum |terms|
    (taken as 2 n u).
    """
    G0 = math.prod(f[3] for f in facs) * (1 + 8 * len(facs) * U)
    r = (wx + (n + len(facs)) * wmin) * (1 - 4 * U)

    def node(tt, fs, qq):
        L = -tt * wx + n * qq[0]
        E = U * (4 * tt * wx + 3 * n * np.abs(qq[0]) + 4) + n * qq[1]
        tilt = wx + n * qq[2]
        for f in fs:
            L = L + f[0]
            E = E + f[1] + 2 * U * np.abs(f[0])
            tilt = tilt + f[2]
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            g = np.exp(L)
            ok = E <= 0.5
            cap = G0 * np.exp(-tt * r) * (1 + 16 * U)
            up = np.where(ok, np.minimum(g * (1 + 2 * E + 16 * U), cap), cap)
            down = np.where(ok, g * (1 - 2 * E - 16 * U), 0.0)
        return down, up, tilt

    g_lo_t, g_hi, _ = node(t, facs, q_t)
    g_lo_m, _, tilt_m = node(mid, facs_m, q_m)
    a, b = t[:-1], t[1:]
    D = b - a  # exact (Sterbenz)
    kappa = tilt_m * (1 + 4 * U) * U * b
    base_lo = D * g_lo_m * np.maximum(1 - kappa, 0.0) * (1 - 8 * U)
    base_hi = D * (g_hi[:-1] + g_hi[1:]) * 0.5 * (1 + 8 * U)
    shift = U * b * D * g_hi[:-1] * (1 + 8 * U)
    curv = D ** 2 / 8 * np.maximum(g_hi[:-1] - g_lo_t[1:], 0.0) * (1 + 8 * U)
    J_lo_terms = mid * base_lo * (1 - 2 * U) - curv - shift
    J_hi_terms = mid * base_hi * (1 + 2 * U) + shift
    gam = 2.0 * D.size * U
    t1 = float(t[-1])
    with np.errstate(under="ignore"):
        eI = G0 * math.exp(-t1 * r) / r * (1 + 16 * U)
        eJ = G0 * math.exp(-t1 * r) * (t1 / r + 1 / r ** 2) * (1 + 16 * U)
    I_lo = float(base_lo.sum()) * (1 - gam) * (1 - 2 * U)
    I_hi = (float(base_hi.sum()) * (1 + gam) + eI + G0 * t0) * (1 + 4 * U)
    J_lo = float(J_lo_terms.sum()) - gam * float(np.abs(J_lo_terms).sum())
    J_lo = J_lo * (1 - 4 * U) if J_lo > 0 else 0.0
    J_hi = (float(J_hi_terms.sum()) * (1 + gam) + eJ + G0 * t0 * t0 / 2) * (1 + 4 * U)
    return max(I_lo, 0.0), I_hi, J_lo, J_hi


def msc_rb_variance(pi, q, f, x: int, Ns, k: int = 8) -> dict:
    """``{N: (lo, hi)}`` of :func:`msc_rb_variance_fn` for every N in ``Ns``."""
    fn = msc_rb_variance_fn(pi, q, f, x, k)
    return {int(N): fn(int(N)) for N in Ns}


def msc_rb_variance_fn(pi, q, f, x: int, k: int = 8):
    """A function ``N -> (lo, hi)``: exact Fractions enclosing ``V_q[E[f | z_t-1 = x,
    z^(1:N)]]``, the variance of the Rao-Blackwellised CIS estimate ``g = sum_i wbar_i f(z_i)``
    over the current state x and N proposals (003's N; N + 1 particles), on the exact instance of
    :func:`exact_pair` (a rigorous counterpart of :func:`simulate.finite.moments_msc_rb`).

    The variance is shift-invariant: with ``s = f - f(x)`` (``s_x = 0``) and ``A = sum_i w(z_i)
    s(z_i)``, ``g = A/(w_x + S)``; with ``1/c = int e^(-tc) dt``, ``1/c^2 = int t e^(-tc) dt`` and
    the generating functions ``phi(t) = E_q e^(-tW)``, ``psi1(t) = E_q[W s e^(-tW)] = sum_y pi_y
    s_y e^(-t w_y)``, ``psi2(t) = sum_y pi_y w_y s_y^2 e^(-t w_y)``: ``E g = N int e^(-t w_x)
    psi1 phi^(N-1)`` and ``E g^2 = int t e^(-t w_x) [N psi2 phi^(N-1) + N (N-1) psi1^2
    phi^(N-2)]``.  psi1 = psi1+ - psi1- (the states with s_y > 0 and < 0), so that every
    integrand is completely monotone (:func:`_cm_integral`): ``E g = N (I[psi1+] - I[psi1-])``,
    ``E g^2 = N J[psi2] + N (N - 1) (J[psi1+^2] + J[psi1-^2] - 2 J[psi1+ psi1-])``, each on a
    geometric grid of ratio ``1 + 2^-k``; the combination is interval arithmetic in Fractions,
    ``V = E g^2 - (E g)^2`` (a difference of close numbers: the relative width of V is the
    integrals' ~2^-2k times that cancellation, up to ~1e-2 on the toolkit's instances).
    """
    P, Q = exact_pair(pi, q)
    W = [a / b for a, b in zip(P, Q)]
    F_ = [Fraction(float(v)) for v in f]
    s = [v - F_[x] for v in F_]
    M = len(W)
    w = np.array([float(v) for v in W])
    wx = float(W[x])
    wmin = float(w.min())
    lq = np.log(np.array([float(v) for v in Q]))
    pos = [y for y in range(M) if s[y] > 0]
    neg = [y for y in range(M) if s[y] < 0]
    t0 = 1e-30
    t1 = 64.0 / (wx + wmin)
    rho = 1.0 + 2.0 ** -k
    npts = int(math.ceil(math.log(t1 / t0) / math.log(rho)))
    t = t0 * rho ** np.arange(npts + 1, dtype=float)
    t[-1] = max(t[-1], t1)
    mid = (t[:-1] + t[1:]) / 2

    def lse(coefs, ys, tt):
        """(L, err, tilt, F(0)) of F(t) = sum_(y in ys) coefs_y e^(-t w_y) (coefs > 0)."""
        c = np.array([float(coefs[y]) for y in ys])
        L, e, tl = _lse_rows(np.log(c), tt, w[ys])
        return L, e, tl, float(c.sum()) * (1 + 2 * len(ys) * U)

    q_t = _lse_rows(lq, t, w)
    q_m = _lse_rows(lq, mid, w)
    psi = {"+": [P[y] * s[y] for y in range(M)], "-": [-P[y] * s[y] for y in range(M)],
           "2": [P[y] * W[y] * s[y] ** 2 for y in range(M)]}
    ys_of = {"+": pos, "-": neg, "2": pos + neg}
    F_t = {key: lse(psi[key], ys, t) for key, ys in ys_of.items() if ys}
    F_m = {key: lse(psi[key], ys, mid) for key, ys in ys_of.items() if ys}

    def integral(keys, n):
        if any(k_ not in F_t for k_ in keys):
            return 0.0, 0.0, 0.0, 0.0  # an empty psi1+ or psi1-: the integrand is 0
        return _cm_integral(t, mid, [F_t[k_] for k_ in keys], [F_m[k_] for k_ in keys], n, q_t,
                            q_m, wx, wmin, t0)

    def variance(N: int):
        N = int(N)
        Ip = integral(("+",), N - 1)
        In = integral(("-",), N - 1)
        J2 = integral(("2",), N - 1)
        m_lo = N * (Fraction(Ip[0]) - Fraction(In[1]))
        m_hi = N * (Fraction(Ip[1]) - Fraction(In[0]))
        e2_lo, e2_hi = N * Fraction(J2[2]), N * Fraction(J2[3])
        if N >= 2:
            Jpp = integral(("+", "+"), N - 2)
            Jnn = integral(("-", "-"), N - 2)
            Jpn = integral(("+", "-"), N - 2)
            k2 = N * (N - 1)
            e2_lo += k2 * (Fraction(Jpp[2]) + Fraction(Jnn[2]) - 2 * Fraction(Jpn[3]))
            e2_hi += k2 * (Fraction(Jpp[3]) + Fraction(Jnn[3]) - 2 * Fraction(Jpn[2]))
        sq_hi = max(m_lo ** 2, m_hi ** 2)
        sq_lo = Fraction(0) if m_lo <= 0 <= m_hi else min(m_lo ** 2, m_hi ** 2)
        return max(e2_lo - sq_hi, Fraction(0)), e2_hi - sq_lo

    return variance


def value_error(lo: Fraction, hi: Fraction) -> tuple[float, float]:
    """A float v and a float e with [lo, hi] inside [v - e, v + e] (exactly)."""
    v = float((lo + hi) / 2)
    err = max(hi - Fraction(v), Fraction(v) - lo)
    e = float(err)
    while Fraction(e) < err:
        e = math.nextafter(e, math.inf)
    return v, e
