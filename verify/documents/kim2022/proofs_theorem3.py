"""Audit of Kim et al. (NeurIPS 2022), App. D: the proof of Theorem 3 (JSA, §4.3), step by step:
its mixing, bias and variance chains and the table of state transitions (H04).

The instances, domains and helpers are those of :mod:`.proofs` (its docstring says how a step is
established); the printed text of each step is in ``proofs_theorem3.toml``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from simulate import finite as F
from verify.audit.adversary import Int, Real, _r6, free, searching
from verify.audit.engine import step_table
from verify.audit.instances import (
    explain,
    finite_pairs,
    first_failing,
    instance_check,
    searchable,
)
from verify.audit.outcome import EXACT, LOOSE, VALID, WRONG, Outcome, definition, fixed
from verify.audit.symbolic import sym_equal, sym_le

from .proofs import (
    K_DOM,
    K_REAL,
    PAIRS_CIS,
    POS_DOM,
    SEED,
    W_DOM,
    L,
    N,
    _fixed_pairs,
    _g_score,
    _le_rows,
    _lemma2_equality,
    _pairs,
    _pow_tol,
    _products_fixed,
    _proof_chain,
    _scored,
    _scored_imh,
    _softmax,
    _stationary_path_law,
    _tv,
    _worst,
    k,
    r,
    w,
)
from .proofs_theorem2 import (
    _B,
    _DD,
    _crossing,
)
from .theorems import CONDITIONAL, JOINT

#: declares a step; its printed text is in proofs_theorem3.toml
step = step_table(__name__, seed=SEED)


# ============================================================================= Theorem 3
def _t3_def():
    rows = []
    for pi, q in _fixed_pairs()[:8]:
        K = F.imh_matrix(pi, q)
        for NN in (2, 3):
            if pi.size ** NN > 200:
                continue
            joint = F.jsa_joint_law(K, 0, NN, 3)
            prod = F.product_law([np.linalg.matrix_power(K, 2 * NN + j)[0]
                                  for j in range(1, NN + 1)])
            rows.append(({"M": pi.size, "N": NN, "k": 3}, F.tv_joint(joint, prod), 0.0))
    return instance_check(rows, "=", tol=1e-12,
                          describe="law of JSA's (z^(1..N)) vs the product of its marginals")


def _t3_def_corrected():
    """The path law (simulate.finite.jsa_joint_law, Algorithm 5's sweeps) against the correction:
    its n-th marginal is K^(N(k-1)+n)(z_0, .), its law started at pi is the stationary path law
    pi(dz^(1)) K(z^(1), dz^(2)) ...;
    N <= 4 with M^N <= 4096 atoms, k up to 10^4."""
    rows = []
    for pi, q in _pairs(count=8):
        K = F.imh_matrix(pi, q)
        M = pi.size
        for NN in free("N", (2, 3), Int(2, 4)):
            if M ** NN > 4096:
                NN = max(2, int(math.log(4096) // math.log(M)))
            for kk in free("k", (1, 3), K_DOM):
                joint = F.jsa_joint_law(K, 0, NN, kk)
                base = np.linalg.matrix_power(K, NN * (kk - 1))
                for j in range(NN):
                    marg = joint.sum(axis=tuple(i for i in range(NN) if i != j))
                    ref = (base @ np.linalg.matrix_power(K, j + 1))[0]
                    rows.append(({"M": M, "N": NN, "k": kk, "n": j + 1, "check": "marginal"},
                                 float(np.abs(marg - ref).max()),
                                 0.0, float(kk * NN * M)))
                mix = sum(pi[x] * F.jsa_joint_law(K, x, NN, kk) for x in range(M))  # z_0 ~ pi
                rows.append(({"M": M, "N": NN, "k": kk,
                              "check": "z_0 ~ pi: the stationary path law, not pi^N"},
                             float(np.abs(mix - _stationary_path_law(K, pi, NN)).max()), 0.0,
                             float(kk * NN * M)))
    return instance_check(rows, "=", tol=1e-12, describe="exact IMH kernels")


def _common_set_sup(laws, pi):
    """sup over one common set A' of the states of sum_n |pi(A') - p_n(A')|: the sets Lemma 1 covers
    (rectangles A'^N), exactly, by enumerating the 2^M subsets."""
    best = 0.0
    for mask in itertools.product((False, True), repeat=pi.size):
        A = np.array(mask)
        best = max(best, sum(abs(float(pi[A].sum() - p[A].sum())) for p in laws))
    return best


def _sup_vs_sum_rows():
    """The line 'sup_A sum_n |pi(A) - p_n(A)| = sum_n d_TV(p_n, pi)': a common set A on the left,
    each term's own
    set on the right; searched families of laws (the 'products' kind: p_n against pi = q_1)."""
    rows = []
    for M, NN, ps, qs in searchable("products", _products_fixed()):
        pi = qs[0]
        # scale 1: both sides sum |differences of probabilities| (at most 2^M sets, N <= 4 laws):
        # their rounding error is absolute, a few hundred eps at most, well below tol = 1e-12
        rows.append(({"M": M, "N": NN}, _common_set_sup(ps, pi), sum(_tv(p, pi) for p in ps),
                     1.0))
    return rows


def _hybrid_rows():
    """TV(prod_n p_n, prod_n q_n) vs min(1, sum_n TV(p_n, q_n)) (the telescoping over hybrids; 1 is
    the trivial bound): searched families (the 'products' kind) and the laws of the mixing proofs,
    p_n = K^k(z_n, .) (Theorem 4) and
    K^((k-1)N+n)(z^(n), .) (Theorem 3), N = 2, every pair of starts, k up to 10^4."""
    rows = []
    for M, NN, ps, qs in searchable("products", _products_fixed()):
        # scale 1: TV distances cancel probabilities (product laws of <= 4^4 atoms, each a product
        # of N <= 4 factors): absolute errors of a few hundred eps, below tol = 1e-12
        rows.append(({"family": "products", "M": M, "N": NN},
                     F.tv_joint(F.product_law(ps), F.product_law(qs)),
                     min(1.0, sum(_tv(a, b) for a, b in zip(ps, qs))), 1.0))
    for pi, q in _pairs(count=6):
        K = F.imh_matrix(pi, q)
        for kk in free("k", (1, 4), K_DOM):
            Kk = np.linalg.matrix_power(K, kk)
            for scheme, second in (("theorem4", Kk),
                                   ("theorem3", np.linalg.matrix_power(K, 2 * kk))):
                first = Kk if scheme == "theorem4" else np.linalg.matrix_power(K, 2 * kk - 1)
                for a in range(pi.size):
                    for b in range(pi.size):
                        laws = [first[a], second[b]]
                        rows.append(({"family": scheme, "M": pi.size, "N": 2, "k": kk,
                                      "starts": [a, b]},
                                     F.tv_joint(F.product_law(laws), F.product_law([pi, pi])),
                                     min(1.0, sum(_tv(p, pi) for p in laws)),
                                     4 * _pow_tol(2 * kk, pi.size) / 1e-12))
    return rows


def _hybrid():
    return instance_check(_hybrid_rows, "<=", tol=1e-12, describe="exact product laws")


def _sup_vs_sum(corrected=False):
    def fn():
        o = instance_check(_sup_vs_sum_rows, "<=", tol=1e-12, printed="<=" if corrected else "=",
                           describe="a common A against each term's own set")
        return explain(o, why="sup over one common A of the sum is at most the sum of the sups, "
                              "with '<' when the terms need different sets (M >= 3): ",
                       correction="'<='", status=LOOSE)
    return fn


def _t3_sum_closed():
    nn = sp.Symbol("n", integer=True, positive=True)
    s = sp.piecewise_fold(sp.Sum(r ** ((k - 1) * N + nn), (nn, 1, N)).doit())
    s = next(e for e, c in s.args if c is sp.true) if isinstance(s, sp.Piecewise) else s
    # r = 1 - 1/w*: w* in [1 + 1e-9, 1e12] on a log scale puts r in (1e-9, 1 - 1e-12), both ends
    # searched
    sub = {r: 1 - 1 / w}
    return sym_equal(s.subs(sub),
                     (r ** (k * N) * r ** (-N) * (r - r ** (N + 1)) / (1 - r)).subs(sub),
                     domain={w: Real(1 + 1e-9, 1e12, log=True), N: K_REAL, k: K_REAL})


def _t3_mix_sum():
    ("""sum_n d_TV(K^((k-1)N+n)(z^(n), .), pi) (each term at its worst start) vs sum_n """
     """r^((k-1)N+n), N and k up to 10^4.""")
    rows = []
    for pi, q in _pairs(count=8):
        K = F.imh_matrix(pi, q)
        rr = 1 - 1 / float((pi / q).max())
        for NN in free("N", (1, 2, 5), Int(1, 10 ** 4, log=True)):
            for kk in free("k", (1, 2, 4), K_DOM):
                P = np.linalg.matrix_power(K, (kk - 1) * NN)
                lhs = 0.0
                for _ in range(NN):
                    P = P @ K
                    lhs += float(F.tv_rows(P, pi).max())
                rhs = float(sum(rr ** ((kk - 1) * NN + j) for j in range(1, NN + 1)))
                rows.append(({"M": pi.size, "N": NN, "k": kk}, lhs, rhs,
                             NN * _pow_tol(kk * NN, pi.size) / 1e-12))
    return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels, every start")


def _t3_mix_statement():
    """Theorem 3's mixing bound read for JSA's joint law (the JOINT reading): d_TV(law of (z^(1..N))
    after k
    iterations, Pi = pi^N) against C(r, N) r^(kN) at k = 50, where the right side has vanished."""
    pi, q = F.hard_instance(3, 10.0, seed=0)
    K = F.imh_matrix(pi, q)
    rr = 1 - 1 / 10.0
    rows = []
    for NN, kk in ((2, 50), (3, 50)):
        joint = F.jsa_joint_law(K, 0, NN, kk)
        C = rr * (1 - rr ** NN) / (rr ** NN * (1 - rr))
        rows.append(({"pi": _r6(pi), "q": _r6(q), "w_star": 10, "N": NN, "k": kk, "z_0": 1},
                     F.tv_joint(joint, F.product_law([pi] * NN)), C * rr ** (kk * NN)))
    return first_failing(
        rows, "<=", 1e-12, "exact JSA path law")


def _t3_marginals():
    """d_TV(law of z_k^(n), pi) = d_TV(K^((k-1)N+n)(z_0, .), pi) vs r^((k-1)N+n), every start, N and
    k up to 10^4;
    one row per instance: the n where the ratio is largest."""
    rows = []
    for pi, q in _pairs(count=8):
        K = F.imh_matrix(pi, q)
        rr = 1 - 1 / float((pi / q).max())
        for NN in free("N", (1, 3), Int(1, 10 ** 4, log=True)):
            for kk in free("k", (1, 2), K_DOM):
                P = np.linalg.matrix_power(K, (kk - 1) * NN)
                tv, b = [], []
                for j in range(1, NN + 1):
                    P = P @ K
                    tv.append(float(F.tv_rows(P, pi).max()))
                    b.append(rr ** ((kk - 1) * NN + j))
                i = _worst(tv, b)
                rows.append(({"M": pi.size, "N": NN, "k": kk, "n": i + 1}, tv[i], b[i],
                             _pow_tol(kk * NN, pi.size) / 1e-12))
    return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels")


def _cond_bias_rows(scheme):
    rows = []
    for ws in (2.0, 10.0):
        pi, q = F.hard_instance(4, ws, seed=0)
        K = F.imh_matrix(pi, q)
        s = F.centred_bounded_score(pi, 1.0)
        rr = 1 - 1 / ws
        for NN in (2, 4):
            if scheme == "jsa":
                m = F.moments_jsa(K, s, 0, NN)
                C = rr * (1 - rr ** NN) / (rr ** NN * (1 - rr))
                B = lambda tt: 2 * C * rr ** (tt * NN)  # noqa: E731
            else:
                m = F.moments_pmcsa(K, s, np.zeros(NN, int))
                B = lambda tt: 2 * NN * rr ** tt  # noqa: E731
            bias = float(np.linalg.norm(m.mean))  # mu = 0
            # both sides as printed, V + ||mu||^2 (= V: mu = 0, L = 1) on each
            for tt in (1, 20, 200):
                rows.append(({"w_star": ws, "N": NN, "t": tt, "state": "worst"},
                             m.variance + bias ** 2 + 2 * bias,
                             m.variance + B(tt) ** 2 + 2 * B(tt)))
    return rows


def _t3_cond_bias(scheme):
    o = instance_check(lambda: _cond_bias_rows(scheme), "<=", tol=1e-12,
                       describe="V + Bias^2 + 2L Bias + ||mu||^2 conditional on F_t-1 vs V + "
                                "||mu||^2 + Lemma 7's B^2 + 2L B with t steps")
    return explain(o, why="E[. | F_t-1] is one transition from the state at t-1; Lemma 7 with t "
                          "steps from eta_0 bounds the unconditional bias: ",
                   correction="one-step conditional bias: ||E[g|F] + mu|| <= (2L/N) sum_n r^n "
                              "(JSA), <= 2 L r (pMCSA)")


def _jsa_terms_all(K, s, NN):
    """E[s(z^(n)) | z_t-1^(N) = x] and E[s(z^(n))^2 | .] for n = 1..N and every start x: arrays (N,
    M).
    """
    M = K.shape[0]
    P = np.eye(M)
    m1, m2 = np.empty((NN, M)), np.empty((NN, M))
    for j in range(NN):
        P = P @ K
        m1[j], m2[j] = P @ s, P @ s ** 2
    return m1, m2


def _jsa_mean_terms(K, s, x, NN):
    """E[s(z^(n)) | z_t-1^(N) = x] for n = 1..N (K^n(x, .) s), and E||s(z^(n))||^2."""
    row = np.eye(K.shape[0])[x]
    m1, m2 = [], []
    for _ in range(NN):
        row = row @ K
        m1.append(float(row @ s))
        m2.append(float(row @ s ** 2))
    return np.array(m1), np.array(m2)


def _cond_bias_corrected(scheme):
    """The one-step conditional bias ||E[g | F_t-1] + mu|| against the correction: (2L/N) sum_n r^n
    for JSA (its N states K^n(z_t-1, .)), 2 L r for pMCSA (N chains at a searched state and at the
    highest-weight state);
    no weaker than the trivial 2L; N up to 10^4."""
    def fn():
        rows = []
        for pi, q, s, K, rr, L_ in _scored_imh():
            mu = float(pi @ s)
            M = pi.size
            for NN in free("N", (1, 2, 8), Int(1, 10 ** 4, log=True)):
                for x in sorted({int(np.argmax(pi / q)), free("x", (0,), Int(0, 7))[0] % M}):
                    if scheme == "jsa":
                        m1, _ = _jsa_mean_terms(K, s, x, NN)
                        lhs = abs(float(m1.mean()) - mu)
                        rhs = 2 * L_ / NN * sum(rr ** j for j in range(1, NN + 1))
                    else:
                        starts = np.array([x if i % 2 == 0 else int(np.argmax(pi / q))
                                           for i in range(NN)])
                        m = F.moments_pmcsa(K, s, starts)
                        lhs, rhs = abs(float(m.mean[0]) + mu), 2 * L_ * rr
                    rows.append(({"M": M, "N": NN, "x": x}, lhs, rhs, L_))
        return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels")
    return fn


def _t3_lemma6():
    rows = []
    for ws in (1.01, 1.1, 1.5, 2.0):
        pi, q = F.hard_instance(4, ws, seed=0, pi0=0.5)
        K = F.imh_matrix(pi, q)
        s2 = np.ones(4)  # ||s||^2 = 1 everywhere (s = +-1)
        rr = 1 - 1 / ws
        for NN in (2, 4):
            for x in range(4):
                lhs = sum(np.linalg.matrix_power(K, j)[x] @ s2 for j in range(1, NN + 1)) / NN ** 2
                rhs = sum(j * rr ** (j - 1) * (q @ s2) + rr ** j * s2[x]
                          for j in range(1, NN + 1)) / NN ** 2
                rows.append(({"w_star": ws, "N": NN, "x": x}, lhs, rhs))
    o = instance_check(rows, "<=", tol=1e-12,
                       describe="(1/N^2) sum_n E||s_n||^2 vs the Lemma 6 bound, ||s|| = 1")
    o.correction = (
        "(1/N^2) sum_n E||s_n||^2 <= min(L^2/N, (1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n "
        "||s(z_t-1)||^2 + (1 - r^n - n(1-r) r^(n-1)) E_pi||s||^2]) (Lemma 6 with its corrected "
        "E_pi term; L^2/N is the trivial bound)")
    return o


def _t3_lemma6_corrected():
    rows = []
    for pi, q, s, K, rr, L_ in _scored_imh():
        f = s ** 2
        for NN in free("N", (1, 2, 8), Int(1, 10 ** 4, log=True)):
            j = np.arange(1, NN + 1)
            _, m2 = _jsa_terms_all(K, s, NN)
            for x in range(pi.size):
                b = (j * rr ** (j - 1) * (q @ f) + rr ** j * f[x]
                     + (1 - rr ** j - j * (1 - rr) * rr ** (j - 1)) * (pi @ f)).sum()
                rows.append(({"M": pi.size, "N": NN, "x": x}, float(m2[:, x].sum()) / NN ** 2,
                             min(L_ ** 2 / NN, float(b) / NN ** 2), L_ ** 2))
    return instance_check(rows, "<=", tol=1e-12, describe="exact IMH kernels")


def _t3_assumption3():
    ("""(1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n ||s(z_t-1)||^2] vs (1/N^2) sum_n [n r^(n-1) """
     """L^2 + r^n L^2], L = max |s|.""")
    rows = []
    for pi, q, s, _, rr, L_ in _scored_imh():
        for NN in free("N", (1, 3, 10), Int(1, 10 ** 4, log=True)):
            j = np.arange(1, NN + 1)
            a, b = j * rr ** (j - 1), rr ** j
            for x in range(pi.size):
                rows.append(({"M": pi.size, "N": NN, "x": x},
                             float((a * (q @ s ** 2) + b * s[x] ** 2).sum()) / NN ** 2,
                             float((a + b).sum()) * L_ ** 2 / NN ** 2))
    return instance_check(rows, "<=", tol=1e-12)


def _t3_closed_form_sum():
    nn = sp.Symbol("n", integer=True, positive=True)
    s = sp.piecewise_fold(sp.Sum(nn * r ** (nn - 1) + r ** nn, (nn, 1, N)).doit())
    return next(e for e, c in s.args if c is sp.true) if isinstance(s, sp.Piecewise) else s


_W_T3 = Real(1 + 1e-9, 1e12, log=True)


def _t3_closed_form():
    s = _t3_closed_form_sum()
    exact = sp.simplify(s.subs(r, 1 - 1 / w))
    printed = w ** 2 + w - (1 - 1 / w) ** N * (w ** 2 + w + N * w)
    o = sym_equal(exact, printed, domain={w: _W_T3, N: K_REAL})
    if o.status == WRONG:
        d = sp.simplify(printed - exact)
        o.detail = f"printed - exact = {sp.sstr(d)} (= 1 - r^N >= 0: the printed value is larger)"
        o.correction = "(w*)^2 + w* - 1 - r^N ((w*)^2 + (N + 1) w* - 1)"
        o.gap = sp.sstr(d)
    return o


def _t3_closed_form_corrected():
    s = _t3_closed_form_sum()
    corrected = w ** 2 + w - 1 - (1 - 1 / w) ** N * (w ** 2 + (N + 1) * w - 1)
    return sym_equal(sp.simplify(s.subs(r, 1 - 1 / w)), corrected, domain={w: _W_T3, N: K_REAL})


def _t3_laurent():
    """The Laurent step: sum_n [n r^(n-1) + r^n] = N^2/2 + 3N/2 + O(1/w*) as w* -> oo at fixed N.
    The limit by sympy's series; the remainder explicitly and searched (N up to 10^4, w* in [1,
    1e12]): 0 <= N^2/2 + 3N/2 - sum = sum_n [n (1 - r^(n-1)) + (1 - r^n)] <= N(N+1)(2N+1)/(6 w*)
    (n r^(n-1) >= n (1 - (n-1)/w*), r^n >= 1 - n/w*), each term from expm1 (no cancellation); then
    the sequences."""
    ser = _t3_laurent_limit()
    if sp.simplify(ser - (N ** 2 / 2 + sp.Rational(3, 2) * N)) != 0:
        return Outcome(
            WRONG, f"the w* -> oo limit of the sum is {sp.sstr(sp.factor(ser))}, not N^2/2 + 3N/2",
            method="symbolic", established_by="proof")
    rows = []
    for NN in free("N", (1, 2, 10, 100), Int(1, 10 ** 4, log=True)):
        for wv in free("w_star", (1.0, 1.5, 10.0, 1e6), W_DOM):
            kept = NN ** 2 / 2 + 1.5 * NN
            rows.append(({"N": NN, "w_star": wv, "relation": "sum <= N^2/2 + 3N/2"},
                         _t3_sum_direct(NN, wv), kept))
            rows.append(({"N": NN, "w_star": wv,
                          "relation": "(N^2/2 + 3N/2 - sum) 6 w*/(N(N+1)(2N+1)) <= 1"},
                         _t3_gap(NN, wv) * 6 * wv / (NN * (NN + 1) * (2 * NN + 1)), 1.0))
    o = instance_check(rows, "<=", tol=1e-12, describe="the sum and its remainder")
    if o.status != VALID:
        return o
    o.status = EXACT
    seq = "" if searching() else _t3_laurent_sequences()
    o.detail = (
        "the w* -> oo limit of the sum is N^2/2 + 3N/2 (sympy) and the remainder is explicit: 0 <= "
        "N^2/2 + 3N/2 - sum <= N(N+1)(2N+1)/(6 w*), an O(1/w*) whose constant grows like N^3/3 (so "
        "L^2 [1/2 + 3/(2N) + O(1/w*)] hides an O-constant ~ N/3, not uniform in N)" + seq
                + ": " + o.detail)
    return o


def _t3_laurent_limit():
    """The leading term of the sum's expansion at w* -> oo (sympy; memoised on the function)."""
    from bounds.series import expand

    memo = _t3_laurent_limit.__dict__.setdefault("memo", {})
    if "ser" not in memo:
        memo["ser"] = expand(_t3_closed_form_sum().subs(r, 1 - 1 / w), w, sp.oo, 1)
    return memo["ser"]


def _t3_sum_direct(NN, wv):
    rv = 1 - 1 / wv
    j = np.arange(1, NN + 1, dtype=float)
    return float((j * rv ** (j - 1) + rv ** j).sum())


def _t3_gap(NN, wv):
    ("""N^2/2 + 3N/2 - sum_n [n r^(n-1) + r^n] = sum_n [n (1 - r^(n-1)) + (1 - r^n)], r = 1 - """
     """1/w*, without cancellation.""")
    lr = np.log1p(-1 / wv) if wv > 1 else -1e300  # log r
    j = np.arange(1, NN + 1, dtype=float)
    return float((j * -np.expm1((j - 1) * lr) - np.expm1(j * lr)).sum())


def _t3_laurent_sequences():
    seq = []
    for Nv in (10, 100, 1000):
        kept = Nv ** 2 / 2 + 1.5 * Nv
        half = _crossing(lambda wv: _t3_gap(Nv, wv) < 0.5 * kept, 1.0 + 1e-9, 1e12)
        seq.append(f"N = {Nv}: w* > {half:.3g} ({half / Nv:.3g} N)")
    lim = [f"w* = {wv:g}: sum = {_t3_sum_direct(10 ** 4, wv):.6g} at N = 10^4 (-> w*^2 + w* - 1) "
           f"while N^2/2 = 5e7"
           for wv in (10.0, 1e3)]
    return ("; sequences: at fixed N (w* -> oo) the kept N^2/2 + 3N/2 is within a factor 2 of the "
            "sum only for "
            + "; ".join(seq)
            + "; at fixed w* (N -> oo) the kept terms stop describing the sum altogether: "
            + "; ".join(lim))


def _t3_var_sum():
    """V[(1/N) sum s_n | F] from the joint law (moments_jsa) vs (1/N^2) sum_n V[s_n | F] + C_cov
    from the marginals
    and the pairs (matrix powers); N up to 64 (moments_jsa is quadratic in N)."""
    rows = []
    for pi, q, s in _scored(count=8):
        K = F.imh_matrix(pi, q)
        M = pi.size
        L2 = float(np.abs(s).max()) ** 2
        for NN in free("N", (2, 3, 4), Int(2, 64, log=True)):
            for x in sorted({int(np.argmax(pi / q)), free("x", (0,), Int(0, 7))[0] % M}):
                m = F.moments_jsa(K, s[:, None], x, NN)
                P = [np.linalg.matrix_power(K, j)[x] for j in range(NN + 1)]
                A = [s]
                for _ in range(NN):
                    A.append(K @ A[-1])  # A[j] = K^j s
                Es = [P[j] @ s for j in range(1, NN + 1)]
                V = sum(P[j] @ s ** 2 - Es[j - 1] ** 2 for j in range(1, NN + 1))
                cov = sum(P[a] @ (s * A[b - a]) - Es[a - 1] * Es[b - 1] for a in range(1, NN + 1)
                          for b in range(a + 1, NN + 1))
                rows.append(({"M": M, "N": NN, "x": x}, m.variance, V / NN ** 2 + 2 * cov / NN ** 2,
                             L2 * NN ** 2))
    return instance_check(rows, "=", 1e-12,
                          describe="JSA paths on finite spaces; residual relative to L^2 N^2 (the "
                                   "N^2 products that cancel)")


def _t3_var_le_second():
    ("""(1/N^2) sum_n V[s_n | F] vs (1/N^2) sum_n E[||s_n||^2 | F], s_n = s(z^(n)), z^(n) ~ """
     """K^n(z_t-1, .), N up to 10^4.""")
    rows = []
    for pi, q, s, K, _, _ in _scored_imh():
        for NN in free("N", (1, 2, 8), Int(1, 10 ** 4, log=True)):
            m1, m2 = _jsa_terms_all(K, s, NN)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "N": NN, "x": x},
                             float((m2[:, x] - m1[:, x] ** 2).sum()) / NN ** 2,
                             float(m2[:, x].sum()) / NN ** 2, float(np.abs(s).max()) ** 2))
    return instance_check(rows, "<=", tol=1e-12)


def _t3_markov():
    """E[||s(z^(n))||^2 | z_t-1^(N) = x] from the law of Algorithm 5's sweep (jsa_joint_law,
    marginalised) vs
    E_{K^n(x, .)}||s||^2 (matrix powers); N <= 4 with at most 4096 paths, every start."""
    rows = []
    for pi, q, s in _scored(count=8):
        K = F.imh_matrix(pi, q)
        M = pi.size
        for NN in free("N", (2, 3), Int(2, 4)):
            while NN > 2 and M ** NN > 4096:
                NN -= 1
            for x in range(M):
                joint = F.jsa_joint_law(K, x, NN, 1)
                _, m2 = _jsa_mean_terms(K, s, x, NN)
                for j in range(NN):
                    marg = joint.sum(axis=tuple(i for i in range(NN) if i != j))
                    rows.append(({"M": M, "N": NN, "x": x, "n": j + 1}, float(marg @ s ** 2),
                                 float(m2[j]), 1.0))
    return instance_check(rows, "=", tol=1e-12, describe="the sweep's path law vs K^n")


def _t3_substitution():
    ("""Line 10's sum with L^2 and r against line 11's with r = 1 - 1/w*: the sums in closed """
     """form (sympy), r = 1 - 1/w*.""")
    nn = sp.Symbol("n", integer=True, positive=True)

    def closed(expr):
        e = sp.piecewise_fold(sp.Sum(expr, (nn, 1, N)).doit())
        return next(a for a, c in e.args if c is sp.true) if isinstance(e, sp.Piecewise) else e
    lhs = (1 / N ** 2) * closed((nn * r ** (nn - 1) * L ** 2 + r ** nn * L ** 2).subs(r, 1 - 1 / w))
    rhs = L ** 2 / N ** 2 * closed(nn * (1 - 1 / w) ** (nn - 1) + (1 - 1 / w) ** nn)
    return sym_equal(lhs, rhs, domain={L: POS_DOM, N: K_REAL, w: _W_T3})


def _t3_statement_corrected():
    """Exact E[||g_JSA||^2 | z_t-1] (moments_jsa) vs min(L^2, L^2/N + C_cov + (||mu|| + (2L/N) sum_n
    r^n)^2) (L^2 the
    trivial bound), at the highest-weight state and a searched one; N up to 128 (moments_jsa is
    quadratic in N)."""
    rows = []
    for pi, q, s in _scored(count=8):
        K = F.imh_matrix(pi, q)
        rr = 1 - 1 / float((pi / q).max())
        L_, mu = float(np.abs(s).max()), abs(float(pi @ s))
        for NN in free("N", (2, 4, 16), Int(2, 128, log=True)):
            for x in sorted({int(np.argmax(pi / q)), free("x", (0,), Int(0, 7))[0] % pi.size}):
                m = F.moments_jsa(K, s[:, None], x, NN)
                b = (L_ ** 2 / NN + m.c_cov
                     + (mu + 2 * L_ / NN * sum(rr ** j for j in range(1, NN + 1))) ** 2)
                rows.append(({"M": pi.size, "N": NN, "x": x}, m.second, min(L_ ** 2, b), L_ ** 2))
    return instance_check(rows, "<=", tol=1e-12, describe="exact JSA moments")


def _t3_discussion_corrected():
    """(1/N^2) sum_n V[s(z_t^(n)) | F_t-1] vs L^2/N, JSA's states K^n(z_t-1, .), N up to 10^4 (the
    trivial bound is
    the correction itself)."""
    rows = []
    for pi, q, s, K, _, L_ in _scored_imh():
        for NN in free("N", (1, 4, 50), Int(1, 10 ** 4, log=True)):
            m1, m2 = _jsa_terms_all(K, s, NN)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "N": NN, "x": x},
                             float((m2[:, x] - m1[:, x] ** 2).sum()) / NN ** 2,
                             L_ ** 2 / NN, L_ ** 2))
    return instance_check(rows, "<=", tol=1e-12)


# ---- H04: the table of state transitions in the proof of Theorem 3
_H04_PI, _H04_LAM0, _H04_N, _H04_GAMMA, _H04_Z0 = (0.6, 0.3, 0.1), (0.0, 0.0, 2.0), 2, 1.0, 2


def _jsa_iteration(pi, lam, z_start, NN, gamma):
    """One iteration of Algorithm 5 (IMH kernel K_lambda with proposal softmax(lambda), g = -(1/N)
    sum_n s(lambda; z^(n)),
    lambda_t = lambda_t-1 - gamma g(lambda_t-1)) from (lambda, z_start): [(probability, path z^(1..N), next lambda)]."""  # noqa: E501
    joint = F.jsa_joint_law(F.imh_matrix(pi, _softmax(lam)), z_start, NN, 1)
    out = []
    for path in itertools.product(range(pi.size), repeat=NN):
        p = float(joint[path])
        if p > 0:
            out.append((p, path, lam - gamma * np.mean([_g_score(lam, z) for z in path], axis=0)))
    return out


def _t3_table_rows():
    pi, lam0 = np.array(_H04_PI), np.array(_H04_LAM0)
    NN, gamma, z0 = _H04_N, _H04_GAMMA, _H04_Z0
    M = pi.size
    law11, table11, law21, table21 = (np.zeros(M) for _ in range(4))
    for p1, path1, lam1 in _jsa_iteration(pi, lam0, z0, NN, gamma):
        law11[path1[0]] += p1
        # the table's K_lambda_1(z_0, .), averaged over lambda_1
        table11 += p1 * F.imh_matrix(pi, _softmax(lam1))[z0]
        for p2, path2, lam2 in _jsa_iteration(pi, lam1, path1[-1], NN, gamma):
            law21[path2[0]] += p1 * p2
            table21 += p1 * p2 * np.linalg.matrix_power(F.imh_matrix(pi, _softmax(lam2)),
                                                        NN + 1)[z0]
    at = {"pi": list(_H04_PI), "q_lambda": "softmax(lambda)", "lambda_0": list(_H04_LAM0), "N": NN,
          "gamma": gamma,
          "z_0": z0 + 1}
    # scale 1: a TV distance between two probability vectors (sums over a few hundred enumerated
    # paths, matrix powers of order N + 1 <= 3) cancels probabilities: its error is absolute, a few
    # hundred eps at most, well inside tol = 1e-12 of 1; the exact 0 is an integer
    return [({**at, "row": "t = 2, n = 1: z_2^(1) ~ K^(N+1)_lambda_2(z_0, .)",
              "exact law": _r6(law21),
              "table (averaged over lambda_2)": _r6(table21)}, _tv(law21, table21), 0, 1.0),
            ({**at, "row": "t = 1, n = 1: z_1^(1) ~ K_lambda_1(z_0, .)", "exact law": _r6(law11),
              "table (averaged over lambda_1)": _r6(table11)}, _tv(law11, table11), 0, 1.0)]


def _t3_table():
    return first_failing(
        _t3_table_rows(), "=", 1e-12,
        "d_TV(exact law, the table's), every path of Algorithm 5 enumerated")


def _t3_table_corrected():
    """The corrected row t = 2: the law of z_2^(n) (every path of Algorithm 5's first two
    iterations) vs E[K^n_lambda_1(z_1^(N), .)] (averaged over iteration 1); pi from the searched
    pair, lambda_0 = log q, z_0 the
    highest-weight state, gamma searched, N = 2 (M^4 <= 4096 paths)."""
    rows = []
    for pi, q in _pairs(PAIRS_CIS, count=6):
        lam0 = np.log(q)
        z0 = int(np.argmax(pi / q))
        M = pi.size
        for gamma in free("gamma", (1.0,), Real(1e-3, 10.0, log=True)):
            exact = np.zeros((2, M))
            corr = np.zeros((2, M))
            for p1, path1, lam1 in _jsa_iteration(pi, lam0, z0, 2, gamma):
                K1 = F.imh_matrix(pi, _softmax(lam1))
                corr[0] += p1 * K1[path1[-1]]
                corr[1] += p1 * (K1 @ K1)[path1[-1]]
                joint = F.jsa_joint_law(K1, path1[-1], 2, 1)
                exact[0] += p1 * joint.sum(axis=1)
                exact[1] += p1 * joint.sum(axis=0)
            for j in range(2):
                rows.append(({"M": M, "gamma": gamma, "n": j + 1}, _tv(exact[j], corr[j]), 0.0,
                             1.0))
    return instance_check(rows, "=", 1e-12, describe="exact enumeration")


step("theorem3.table", check=_t3_table, corrected=_t3_table_corrected)
step("theorem3.def", check=_t3_def, corrected=_t3_def_corrected)
step("theorem3.mix.1",
     check=definition(
         "d_TV(P, Pi) = sup_A |Pi(A) - P(A)| with P^k in the product form Theorem 3 defines"))
step("theorem3.mix.2", check=lambda: _mix_lemma1("theorem3"), corrected=_hybrid)
step("theorem3.mix.3", check=_sup_vs_sum(), corrected=_sup_vs_sum(True))
step("theorem3.mix.4", check=_t3_mix_sum)
step("theorem3.mix.5", check=_t3_sum_closed)
step("theorem3.mix.statement", check=_t3_mix_statement, reading=JOINT, corrected=_t3_marginals)
_proof_chain(step, "theorem3", "var", "App. D proof of Thm 3, variance", (
    ("1", "line 1", "=", "E[||g||^2 | F]", "V + Bias^2 + 2 Bias ||mu|| + ||mu||^2", "Lemma 2",
     _lemma2_equality, LOOSE,
     dict(depends=("lemma2.statement",), corrected=_le_rows("cs"), search_budget=1200)),
    ("2", "line 2", "<=", "... + 2 Bias ||mu|| + ...", "... + 2 L Bias + ...", "||mu|| <= L",
     lambda: sym_le(2 * _B * L / (1 + _DD), 2 * _B * L,
                    domain={_B: POS_DOM, L: POS_DOM, _DD: POS_DOM}), VALID, {}),
    ("3", "line 3", "<=", "V + Bias^2 + 2 L Bias + ||mu||^2", "V + ||mu||^2 + O(r^(tN))", "Lemma 7",
     lambda: _t3_cond_bias("jsa"), WRONG,
     dict(depends=("lemma7.statement",), corrected=_cond_bias_corrected("jsa"),
          search_budget=1000)),
    ("4", "lines 4-5", "=", "V[(1/N) sum_n s_n | F]", "(1/N^2) sum_n V[s_n | F] + C_cov",
     "variance of a sum", _t3_var_sum, EXACT, dict(search_budget=1000)),
    ("5", "line 6", "<=", "(1/N^2) sum_n V[s_n | F]", "(1/N^2) sum_n E[||s_n||^2 | F]",
     "V <= second moment", _t3_var_le_second, VALID, dict(search_budget=1000)),
    ("6", "lines 7-8", "=", "E[||s_n||^2 | F_t-1]", "E_{K^n(z_t-1^(N), .)}[||s||^2]",
     "Markov property", _t3_markov, EXACT, dict(search_budget=1000)),
    ("7", "line 9", "<=", "(1/N^2) sum_n E_{K^n}||s||^2",
     "(1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n ||s(z_t-1)||^2]", "Lemma 6", _t3_lemma6, WRONG,
     dict(depends=("lemma6.statement",), corrected=_t3_lemma6_corrected, search_budget=1000)),
    ("7a", "line 10", "<=", "(1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n ||s(z_t-1)||^2]",
     "(1/N^2) sum_n [n r^(n-1) L^2 + r^n L^2]", "Assumption 3", _t3_assumption3, VALID,
     dict(search_budget=1200)),
    ("8", "lines 10-11", "=", "(1/N^2) sum_n [n r^(n-1) L^2 + r^n L^2]",
     "(L^2/N^2) sum_n [n (1-1/w*)^(n-1) + (1-1/w*)^n]", "Assumption 3; r = 1 - 1/w*",
     _t3_substitution, EXACT, {}),
    ("9", "line 12", "=", "sum_n [n r^(n-1) + r^n]", "(w*)^2 + w* - r^N ((w*)^2 + w* + N w*)",
     "closed form", _t3_closed_form, WRONG, dict(corrected=_t3_closed_form_corrected)),
    ("10", "lines 13-14", "=", "(L^2/N^2) sum_n [...]", "L^2 [1/2 + 3/(2N) + O(1/w*)]",
     "Laurent series at w* -> oo", _t3_laurent, EXACT, dict(search_budget=1000))))
step("theorem3.statement",
     check=fixed(
         WRONG, "fails conditionally on F_t-1 at high-weight states for large t (exact "
                "counterexamples in `python -m verify theorem3`); the variance part survives only "
                "because the stated 1/2 + 3/(2N) exceeds the trivial 1/N",
         correction="L^2/N + C_cov + (||mu|| + (2L/N) sum_n r^n)^2"), reading=CONDITIONAL,
     corrected=_t3_statement_corrected)


# ---- findings of the independent hunt (2026-11): the Lemma-1 step of the mixing proofs
# Two independent error hunts (code sharing nothing with this toolkit) reported the errors below
# with exact counterexamples; every lhs/rhs here is recomputed with the toolkit's own machinery
# (simulate.finite, bounds), and tests/test_audit_findings.py pins them against the hunts' numbers.
_F8_PI, _F8_Q = (0.1, 0.55, 0.35), (0.001, 0.5, 0.499)  # the hunt's 3-state instance (F8)
# the same error in Theorem 3's form (found here)
_T3_PI, _T3_Q = (0.08, 0.01, 0.91), (0.2, 0.0002, 0.7998)


def _hunt_pairs():
    """A few random finite pairs (pi, q) next to each finding's own instance."""
    g = np.random.default_rng(2611)
    return [tuple(g.dirichlet(np.ones(M), 2)) for M in (2, 3, 4) for _ in range(2)]


def _product_step_rows(scheme):
    """Rows (params, TV(prod_n p_n, pi^N), sup_A' sum_n |pi(A') - p_n(A')|) with the laws of the
    mixing proofs, N = 2, k = 1: p_n = K(z_n, .) (Theorem 4) or p_1 = K(z^(1), .), p_2 =
    K^2(z^(2), .) (Theorem 3, K^((k-1)N+n)), K the exact IMH matrix, every pair of start states."""
    fixed_ = [np.array(_F8_PI if scheme == "theorem4" else _T3_PI),
              np.array(_F8_Q if scheme == "theorem4" else _T3_Q)]
    rows = []
    for pi, q in finite_pairs([tuple(fixed_)] + _hunt_pairs()):
        K = F.imh_matrix(pi, q)
        second = K if scheme == "theorem4" else K @ K
        for a in range(pi.size):
            for b in range(pi.size):
                laws = [K[a], second[b]]
                rows.append(({"pi": [round(float(x), 6) for x in pi],
                              "q": [round(float(x), 6) for x in q], "N": 2,
                              "k": 1,
                              "start states (1-based)": [a + 1, b + 1]},
                             F.tv_joint(F.product_law(laws), F.product_law([pi, pi])),
                             _common_set_sup(laws, pi)))
    return rows


def _mix_lemma1(scheme):
    """The Lemma-1 step of the mixing proofs (Theorems 3 and 4): d_TV of the product measures is
    a supremum over every set A of Z^N, Lemma 1 bounds only rectangles A'^N (one common A')."""
    o = instance_check(lambda: _product_step_rows(scheme), "<=", tol=1e-12,
                       describe="exact IMH kernels, N = 2 chains, k = 1, all start states")
    if o.status == WRONG:
        o.detail = (
            "Lemma 1 covers the rectangles A'^N only, but d_TV takes the supremum over every set "
            "of Z^N (three states are needed: on two, A' = {z} attains every marginal TV); "
                    + o.detail
                    + ". The theorem's conclusion still holds: d_TV(prod_n K^k(z_n, .), Pi) <= "
                      "sum_n d_TV(K^k(z_n, .), pi) <= N r^k (hybrid argument, exact on these "
                      "instances)")
        o.correction = (
            "d_TV(prod_n p_n, prod_n pi) <= sum_n d_TV(p_n, pi) for every set (telescoping over "
            "hybrids p_1 x .. x p_m x pi x .. x pi, Fubini), not via Lemma 1")
    return o


