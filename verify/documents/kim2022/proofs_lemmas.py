"""Audit of Kim et al. (NeurIPS 2022), App. D: Lemmas 4-7 (the IMH kernel's n-step bounds and
the bias of the Markov chains), step by step.

The instances, domains and helpers are those of :mod:`.proofs` (its docstring says how a step is
established); the printed text of each step is in ``proofs_lemmas.toml``.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from simulate import finite as F
from verify.audit.adversary import Real, free
from verify.audit.engine import step_table
from verify.audit.instances import (
    explain,
    instance_check,
)
from verify.audit.outcome import WRONG, Outcome, definition
from verify.audit.symbolic import sym_equal, sym_le

from .lemmas import LEMMA7_E
from .proofs import (
    K_DOM,
    K_REAL,
    R_DOM,
    SEED,
    W_DOM,
    _fixed_pairs,
    _pairs,
    _pow_tol,
    _scored_imh,
    _tv,
    n,
    r,
    v,
    w,
)

#: declares a step; its printed text is in proofs_lemmas.toml
step = step_table(__name__, seed=SEED)


# ============================================================================= Lemmas 4-6
def _l4(which):
    def fn():
        rows = []
        for pi, q in _pairs():
            ww = pi / q
            ws = float(ww.max())
            for x in range(pi.size):
                lam = F.imh_lambda(pi, q, float(ww[x]), "q")
                # scale 1: lambda sums q_y (1 - w_y/w), and 1 - 1/w cancels 1 against a ratio,
                # so both sides carry absolute errors of a few eps, not errors relative to
                # themselves (they vanish as w -> 1)
                rows.append(({"M": pi.size, "w": float(ww[x]), "w_star": ws},
                             *((max(1 - 1 / ww[x], 0),
                                lam) if which == "lower" else (lam, 1 - 1 / ws)), 1.0))
        return instance_check(rows, "<=", tol=1e-12,
                              describe="lambda integrated against q, every state")
    return fn


step("lemma4.lower", check=_l4("lower"))
step("lemma4.upper", check=_l4("upper"))


def _l5_step():
    # at w = w*, lambda(v) = 1 - 1/v on (w*, oo): int n/v^2 lambda^(n-1) vs int n/v^2 r^(n-1), n = 2
    lhs = sp.integrate(2 / v ** 2 * (1 - 1 / v), (v, w, sp.oo))
    rhs = sp.integrate(2 / v ** 2 * (1 - 1 / w), (v, w, sp.oo))
    d = sp.factor(sp.simplify(lhs - rhs))
    return Outcome(
        WRONG, f"Lemma 4's bound r >= lambda(v) holds only for v <= w*; on (w*, oo) lambda(v) = 1 "
               f"- 1/v. At w = w*, n = 2: lhs - rhs = {sp.sstr(d)} > 0",
        counterexample={"at": {"n": 2, "w": "w* = 2"}, "lhs": float(lhs.subs(w, 2)),
                        "rhs": float(rhs.subs(w, 2))},
        correction=L5_CORRECTION, method="symbolic")


L5_CORRECTION = "T_n(w) <= n r^(n-1) (1/w - 1/w*) + 1 - r^n  (lambda(v) = 1 - 1/v for v >= w*)"


def _l5_statement():
    rows = []
    for pi, q in _fixed_pairs():
        ww = pi / q
        ws = float(ww.max())
        for nn in (1, 2, 3, 5):
            for x in range(pi.size):
                rows.append(({"M": pi.size, "n": nn, "w": float(ww[x]), "w_star": ws},
                             F.imh_T(pi, q, nn, float(ww[x])),
                             nn / ww[x] * (1 - 1 / ws) ** (nn - 1)))
    o = instance_check(rows, "<=", tol=1e-12, describe="exact T_n on finite spaces")
    o.correction = L5_CORRECTION
    return o


def _l5_corrected():
    """T_n(w) (exact, simulate.finite.imh_T) vs n r^(n-1) (1/w - 1/w*) + 1 - r^n at every state, n
    up to 10^4; the
    corrected bound is never above the trivial n/w (lambda <= 1), so it is no weaker than it."""
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        ws = float(ww.max())
        rr = 1 - 1 / ws
        for nn in free("n", (1, 2, 3, 5, 20), K_DOM):
            for x in range(pi.size):
                b = nn * rr ** (nn - 1) * (1 / ww[x] - 1 / ws) + 1 - rr ** nn
                rows.append(({"M": pi.size, "n": nn, "w": float(ww[x]), "w_star": ws},
                             F.imh_T(pi, q, nn, float(ww[x])),
                             float(min(b, nn / ww[x])), float(nn)))
    return instance_check(rows, "<=", tol=1e-12, describe="exact T_n on finite spaces, every state")


step("lemma5.1", check=definition("Eq. (3) defines T_n(w) = int_w^oo n/v^2 lambda^(n-1)(v) dv"))
step("lemma5.2", check=_l5_step, corrected=_l5_corrected)
step("lemma5.3",
     check=lambda: sym_equal(n * r ** (n - 1) * sp.integrate(v ** -2, (v, w, sp.oo)),
                             n / w * r ** (n - 1),
                             domain={n: K_REAL, r: R_DOM, w: W_DOM}))
step("lemma5.statement", check=_l5_statement, corrected=_l5_corrected)


def _l6_rows(stated=True):
    rows = []
    g = np.random.default_rng(5)
    for pi, q in _fixed_pairs():
        K = F.imh_matrix(pi, q)
        ws = float((pi / q).max())
        rr = 1 - 1 / ws
        fs = [np.eye(pi.size)[j] for j in range(pi.size)] + [g.random(pi.size)]
        for nn in (1, 2, 3):
            Kn = np.linalg.matrix_power(K, nn)
            for f in fs:
                for x in range(pi.size):
                    b = nn * rr ** (nn - 1) * (q @ f) + rr ** nn * f[x]
                    if not stated:
                        b += (1 - rr ** nn - nn * (1 - rr) * rr ** (nn - 1)) * (pi @ f)
                    rows.append(({"M": pi.size, "n": nn, "x": x, "w_star": ws}, float(Kn[x] @ f),
                                 float(b)))
    return rows


def _l6_step2():
    o = instance_check(lambda: _l6_rows(), "<=", tol=1e-12,
                       describe="E_{K^n} f vs the bound after Lemma 5 and 1/(w v w') <= 1/w'")
    o.correction = L6_CORRECTION
    return o


L6_CORRECTION = "+ (1 - r^n - n(1-r) r^(n-1)) E_pi f, from the corrected Lemma 5"


def _l6_statement():
    o = instance_check(lambda: _l6_rows(), "<=", tol=1e-12, describe="E_{K^n} f, exact IMH kernels")
    return explain(o, correction="E_{K^n(z,.)} f <= n r^(n-1) E_q f + r^n f(z) + (1 - r^n - n(1-r) "
                                 "r^(n-1)) E_pi f (Lemma 5 corrected); min with the trivial max f")


def _f_pos(s):
    """A positive test function from a searched score: f = (1 + s)/2 in [0, 1] (atoms of f at 0
    reachable).
    """
    return (1 + np.asarray(s, float)) / 2


def _l6_corrected():
    """E_{K^n(z,.)} f (exact matrix powers) vs min(max f, n r^(n-1) E_q f + r^n f(z) + (1 - r^n -
    n(1-r) r^(n-1))
    E_pi f), f >= 0, every start, n up to 10^4 (max f is the trivial bound)."""
    rows = []
    for pi, q, s, K, rr, _ in _scored_imh():
        f = _f_pos(s)
        for nn in free("n", (1, 2, 3, 10), K_DOM):
            Kn = np.linalg.matrix_power(K, nn)
            for x in range(pi.size):
                b = (nn * rr ** (nn - 1) * (q @ f) + rr ** nn * f[x]
                     + (1 - rr ** nn - nn * (1 - rr) * rr ** (nn - 1)) * (pi @ f))
                rows.append(({"M": pi.size, "n": nn, "x": x}, float(Kn[x] @ f),
                             float(min(f.max(), b)),
                             _pow_tol(nn, pi.size) / 1e-12))
    return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels")


def _l6_eq2():
    """E_{K^n(z,.)} f by matrix powers vs Eq. (2): int T_n(w(z) v w(z')) f pi(dz') + lambda^n(w(z))
    f(z), T_n and
    lambda (against q) from simulate.finite; n up to 10^4, f >= 0, every start."""
    rows = []
    for pi, q, s, K, _, _ in _scored_imh():
        f = _f_pos(s)
        ww = pi / q
        for nn in free("n", (1, 2, 3, 7), K_DOM):
            Kn = np.linalg.matrix_power(K, nn)
            Tn = {float(a): F.imh_T(pi, q, nn, float(a)) for a in ww}
            for x in range(pi.size):
                rhs = sum(Tn[float(max(ww[x], ww[y]))] * f[y] * pi[y] for y in range(pi.size))
                rhs += F.imh_lambda(pi, q, float(ww[x]), "q") ** nn * f[x]
                rows.append(({"M": pi.size, "n": nn, "x": x}, float(Kn[x] @ f), float(rhs),
                             float(nn * pi.size)))
    return instance_check(rows, "=", tol=1e-12, describe="Eq. (2) with lambda against q")


def _l6_vee():
    """int n/(w v w') r^(n-1) f pi vs int n/w' r^(n-1) f pi, f >= 0, every z, n up to 10^4."""
    rows = []
    for pi, q, s, _, rr, _ in _scored_imh():
        f = _f_pos(s)
        ww = pi / q
        for nn in free("n", (1, 2, 5), K_DOM):
            c = nn * rr ** (nn - 1)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "n": nn, "x": x},
                             float(c * (f * pi / np.maximum(ww[x], ww)).sum()),
                             float(c * (f * pi / ww).sum())))
    return instance_check(rows, "<=", tol=1e-12)


def _l6_defw():
    """n r^(n-1) int f/w' pi(dz') vs n r^(n-1) int f q(dz') (pi/w = q), f >= 0, n up to 10^4."""
    rows = []
    for pi, q, s, _, rr, _ in _scored_imh():
        f = _f_pos(s)
        ww = pi / q
        for nn in free("n", (1, 3), K_DOM):
            c = nn * rr ** (nn - 1)
            rows.append(({"M": pi.size, "n": nn}, float(c * (f / ww) @ pi), float(c * f @ q)))
    return instance_check(rows, "=", tol=1e-12)


step("lemma6.1", check=_l6_eq2)
step("lemma6.2", check=_l6_step2, corrected=_l6_corrected)
step("lemma6.3", check=_l6_vee)
step("lemma6.4", check=_l6_defw)
step("lemma6.5", check=_l4("upper"))
step("lemma6.statement", check=lambda: _l6_statement(), corrected=_l6_corrected)


# ============================================================================= Lemma 7
_L7_INSTANCE = (3, 10.0, 0)  # hard_instance(M, w*, seed)
_L7_G = (1.0, -1.0, 0.5)


def _l7_def():
    pi, q = F.hard_instance(*_L7_INSTANCE[:2], seed=_L7_INSTANCE[2])
    K = F.imh_matrix(pi, q)
    gvec = np.array([_L7_G]).T
    Epi = pi @ gvec
    Kn = np.linalg.matrix_power(K, 200)  # essentially stationary
    as_defined = float(Kn[0] @ np.abs(gvec - Epi)[:, 0])  # E||g_hat - E_Pi g|| with g_hat = g(eta)
    used = float(np.linalg.norm(Kn[0] @ gvec - Epi))
    return Outcome(
        WRONG, "Bias is defined as E||g_hat - E_Pi g|| but the proof bounds ||E g_hat - E_Pi g||; "
               "the former does not vanish at stationarity",
        counterexample={"at": {"n": 200, "M": 3, "w_star": 10, "g": [1, -1, 0.5]},
                        "lhs": as_defined,
                        "rhs": used},
        correction="define Bias[g_hat] = ||E g_hat - E_Pi g|| (as the proof and the "
                   "theorems use)",
        method="instances")


def _tv_vs_geometric(defaults, step_key):
    """Rows (params, max over starts of d_TV(K^k(x, .), pi), (1 - 1/w*)^k), k searched up to
    10^4.
    """
    rows = []
    for pi, q in _pairs():
        ws = float((pi / q).max())
        K = F.imh_matrix(pi, q)
        for kk in free(step_key, defaults, K_DOM):
            tv = F.tv_rows(np.linalg.matrix_power(K, kk), pi).max()
            rows.append(({"M": pi.size, step_key: kk, "w_star": ws}, float(tv), (1 - 1 / ws) ** kk,
                         _pow_tol(kk, pi.size) / 1e-12))
    return rows


def _l7_loose():
    o = instance_check(lambda: _tv_vs_geometric((1, 2, 3, 5, 10), "n"), "<=", tol=1e-12,
                       printed="=")
    o.correction = "'<=' (geometric ergodicity is an upper bound)"
    return o


def _l7_loose_corrected():
    return instance_check(lambda: _tv_vs_geometric((1, 2, 3, 5, 10), "n"), "<=", tol=1e-12)


def _l7_sup_h():
    """sup over |h| <= 1 of |E_P h - E_Pi h| (a linear function of h: its max over the cube [-1,
    1]^M is at a
    vertex; all 2^M vertices enumerated) vs 2 d_TV(P, Pi), for laws P, Pi on M <= 8 points (the
    searched pair)."""
    rows = []
    for pi, q in _pairs():
        M = pi.size
        best = 0.0
        for hv in itertools.product((-1.0, 1.0), repeat=M):
            best = max(best, abs(float(np.asarray(hv) @ (q - pi))))
        rows.append(({"M": M}, best, 2 * _tv(q, pi), 1.0))
    return instance_check(rows, "=", tol=1e-12, describe="Pi = pi, P = q")


def _l7_statement():
    """Lemma 7 with Bias as defined, E||g_hat - E_Pi g||: the IMH kernel (Eq. (7): C = 1, rho = r)
    after n = 200
    steps, D = 1, L = max |g| = 1."""
    pi, q = F.hard_instance(*_L7_INSTANCE[:2], seed=_L7_INSTANCE[2])
    K = F.imh_matrix(pi, q)
    gv = np.array(_L7_G)
    rr = 1 - 1 / float((pi / q).max())
    nn = 200
    Kn = np.linalg.matrix_power(K, nn)
    as_defined = float(Kn[0] @ np.abs(gv - pi @ gv))
    at = {"n": nn, "M": 3, "w_star": 10, "g": list(_L7_G), "D": 1, "L": 1, "C": 1, "rho": rr}
    return instance_check([(at, as_defined, 2 * rr ** nn)], "<=", tol=1e-12)


def _l7_corrected():
    """||E_{K^n(z,.)} g - E_pi g|| vs 2 L r^n (IMH: C = 1, rho = r), g the searched score, every
    start, n up to 10^4;
    no weaker than the trivial 2L."""
    rows = []
    for pi, q, s, K, rr, L_ in _scored_imh():
        for nn in free("n", (1, 2, 5, 20), K_DOM):
            Kn = np.linalg.matrix_power(K, nn)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "n": nn, "x": x}, abs(float(Kn[x] @ s - pi @ s)),
                             2 * L_ * rr ** nn,
                             _pow_tol(nn, pi.size) / 1e-12))
    return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels")


step("lemma7.1", check=_l7_def)
step("lemma7.2",
     check=lambda: sym_le(sp.sqrt(sp.Symbol("x1") ** 2 + sp.Symbol("x2") ** 2),
                          sp.sqrt(2) * sp.Max(sp.Abs(sp.Symbol("x1")), sp.Abs(sp.Symbol("x2"))),
                          domain={sp.Symbol("x1"): Real(-1e6, 1e6),
                                  sp.Symbol("x2"): Real(-1e6, 1e6)}))
step("lemma7.3", check=_l7_sup_h)
step("lemma7.4", check=_l7_loose, corrected=_l7_loose_corrected)
step("lemma7.statement", check=_l7_statement, reading=LEMMA7_E, corrected=_l7_corrected)

