"""Audit of Kim et al. (NeurIPS 2022), "Markov Chain Score Ascent", Appendix D, and the definitions
its proofs use.

Step ids read ``<claim>.<part>.<line>``; ``lhs``/``rhs`` are the expressions as printed
(in plain text); the relation is the one printed between them.

How a step is established (docs/methods.md §10).  Every computed step asks for its instances
through ``finite_pairs`` / ``searchable`` / ``free`` over the widest domain the text allows, so
the adversarial search attacks it there:

* finite pairs (pi, q) on M = 2, 3, 5, 8 states, with atoms of pi, w* -> infinity (masses of q
  down to 1e-11, w* up to about 1e11), q near pi and q = pi; with a score s in [-1, 1]^M where
  Assumption 3 enters (L = max |s|);
* N (particles, chains, samples) in {2, ..., 10^4}, k, t, n (steps) in {1, ..., 10^4}, both on a
  log scale; w* in [1, 1e12] (log); r in (0, 1); Gaussian means in [-30, 30] and scales in
  [1e-3, 1e3] (log).

Where an exact kernel costs too much for the whole range the cap is stated in the step's
detail (the CIS kernel's exact sum and Rao-Blackwellised moments: N up to 10^4 on two states,
128 on three, 16 on five, 10 on eight; enumerations of proposal multisets or of Markov paths:
small N).  Symbolic steps carry Real/Int domains over the same ranges.  Steps whose line only
restates a definition are ``definition``; nothing exact or valid rests on reading alone.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

from mcsa_cli.lazy import lazy_module
from simulate import finite as F
from verify.audit.adversary import Int, Pairs, Real, Regime, _r6, free, register_kind
from verify.audit.engine import step_table
from verify.audit.instances import (
    explain,
    first_failing,
    instance_check,
    searchable,
)
from verify.audit.outcome import EXACT, LOOSE, VALID, definition
from verify.audit.symbolic import sym_equal, sym_le

from .lemmas import STRICT

special = lazy_module("scipy.special")  # at first use

COSTLY = 10  # Hypothesis examples for steps whose every instance needs quadrature
SEED = "001"  # Kim et al. (NeurIPS 2022)
#: declares a step; its printed text is in proofs.toml
step = step_table(__name__, seed=SEED)
r, w, N, n, k, t, L, chi2, D_ = sp.symbols("r w_star N n k t L chi2 D", positive=True)
v = sp.Symbol("v", positive=True)

# --------------------------------------------------------------------------- the document's domains
#: N particles (CIS, §4.2), chains (pMCSA, §5.1) or states per iteration (JSA, §4.3)
N_DOM = Int(2, 10 ** 4, log=True)
#: k, t, n: numbers of transitions or iterations
K_DOM = Int(1, 10 ** 4, log=True)
#: the same ranges for symbolic steps, as reals: the identities hold for real N, n, k, and the
#: engine hands an Int domain's values to the 50-digit evaluation as Python ints, whose quotients
#: (1/N, N**2/2) are float64
N_REAL = Real(2.0, 1e4, log=True)
K_REAL = Real(1.0, 1e4, log=True)
#: w* = sup pi/q (Assumption 2): from 1 (q = pi) to 1e12
W_DOM = Real(1.0, 1e12, log=True)
#: r = 1 - 1/w* in (0, 1)
R_DOM = Real(1e-9, 1 - 1e-12)
#: probabilities, p_n(A), q_n(A)
U_DOM = Real(0.0, 1.0)
#: L (Assumption 3), ||mu||, Bias: positive magnitudes
POS_DOM = Real(1e-9, 1e9, log=True)


# ------------------------------------------------------------------ instance kinds of this document
class _PairKind(Pairs):
    """Finite (pi, q) as the engine's ``pairs`` kind (atoms, w* -> infinity, q near pi, q = pi),
    optionally with a score s in [-1, 1]^M (regime "s = +-1": the corners), with its own list of
    sizes M (the first is the one the whole-domain run and the runs at the ends of N use)."""

    def __init__(self, name, configs, score):
        self.name, self.configs, self.score = name, tuple(configs), score
        self.text = (f"finite pi, q on M = {', '.join(map(str, self.configs))} states"
                     + (" with a score s in [-1, 1]^M" if score else ""))
        self.regimes = (Pairs.regimes
                        + ((Regime("s = +-1", "the score at the corners of [-1, 1]^M"),
                            ) if score else ()))

    @staticmethod
    def _base(regime):
        return "interior" if regime == "s = +-1" else regime

    def dim(self, M, regime):
        return Pairs.dim(self, M, self._base(regime)) + (M if self.score else 0)

    def decode(self, u, M, regime):
        d = Pairs.dim(self, M, self._base(regime))
        u = np.asarray(u, float)
        pi, q = Pairs.decode(self, u[:d], M, self._base(regime))
        if not self.score:
            return pi, q
        x = u[d:d + M]
        s = np.where(x >= 0.5, 1.0, -1.0) if regime == "s = +-1" else 2 * x - 1
        return pi, q, s

    def describe(self, inst):
        out = {"pi": _r6(inst[0]), "q": _r6(inst[1])}
        if len(inst) > 2:
            out["s"] = _r6(inst[2])
        return out


#: pairs whose first size is M = 2 (the runs at N's high end stay on two states, where the exact
#: CIS kernel is cheap up to N = 10^4)
PAIRS_CIS = "kim2022.pairs_cis"
#: pairs with a score, M = 3 first; and M = 2 first for the CIS / Rao-Blackwellised checks
SCORED = "kim2022.pair_score"
SCORED_CIS = "kim2022.pair_score_cis"
_KINDS = {PAIRS_CIS: ((2, 3, 5, 8), False), SCORED: ((3, 8, 2, 5), True),
          SCORED_CIS: ((2, 3, 5, 8), True)}
for _name, (_configs, _score) in _KINDS.items():
    register_kind(_PairKind(_name, _configs, _score))
#: the kinds' code and sizes, referred to by the checks that draw from them (so that the audit's
#: digest of those steps covers how their instances are decoded)
_KIND_CODE = (_PairKind.__init__, _PairKind.dim, _PairKind.decode, _PairKind._base, _KINDS)

#: N up to which the exact CIS kernel (simulate.finite.cis_matrix's sum) and the Rao-Blackwellised
#: moments cost at most a few milliseconds, by the number of states
_CIS_CAP = {1: 10 ** 4, 2: 10 ** 4, 3: 128, 4: 24, 5: 16}


def _cap_cis(NN, M):
    """N as used on M states: capped where the exact CIS computations get expensive (stated in the
    details).
    """
    return int(min(NN, _CIS_CAP.get(M, 10)))


def _cap_enum(NN, M, work=4000):
    """N for an enumeration of the N - 1 proposals as multisets: C(N + M - 2, M - 1) <= work."""
    NN = int(NN)
    while NN > 2 and math.comb(NN + M - 2, M - 1) > work:
        NN -= 1
    return NN


CIS_CAP_TEXT = ("N capped at 10^4 on two states, 128 on three, 16 on five, 10 on eight (the exact "
                "kernel's cost)")


_EPS = 2.3e-16


def _pow_tol(k, M, floor=0.0):
    """The float64 error of K^k for a stochastic matrix K on M states: each product adds at most M
    eps to the
    row-sum norm and every squaring doubles the error already made, so ||fl(K^k) - K^k||_inf <= 2 k
    M eps.  (A TV distance or an expectation of a function bounded by 1 read off fl(K^k) adds M eps
    of its own sum, within the bound for k >= 1.)  No floor by default: the rows that use it as
    their scale (in units of tol = 1e-12) carry exactly this absolute error."""
    return max(floor, 2.0 * float(k) * M * _EPS)


def _fixed_pairs():
    """Finite (pi, q) instances: random pairs, hard instances with large w*, and q = pi.

    Built once (every search evaluation asks for them): the arrays are read-only, so a check that
    changed one in place would fail at once rather than alter the instances of the next."""
    return list(_fixed_pairs_built())


@functools.lru_cache(maxsize=1)
def _fixed_pairs_built():
    g = np.random.default_rng(2024)
    out = [tuple(g.dirichlet(np.ones(M), 2)) for M in (2, 3, 4, 5) for _ in range(3)]
    out += [F.hard_instance(M, ws, seed=1) for M in (3, 4) for ws in (1.05, 2.0, 10.0, 100.0)]
    out += [(np.array([0.2, 0.3, 0.5]),) * 2]
    for pair in out:
        for a in pair:
            a.flags.writeable = False
    return tuple(out)


def _pairs(kind="pairs", count=None):
    assert _KIND_CODE
    fx = _fixed_pairs()
    return searchable(kind, fx[:count] if count else fx)


def _scored(kind=SCORED, count=None):
    """(pi, q, s) instances: the fixed pairs with a score s in [-1, 1]^M (and s = +-1 on some)."""
    assert _KIND_CODE
    g = np.random.default_rng(77)
    fx = []
    for i, (pi, q) in enumerate(_fixed_pairs()):
        s = g.uniform(-1, 1, pi.size)
        if i % 3 == 2:
            s = np.where(np.arange(pi.size) == int(np.argmax(pi / q)), 1.0, -1.0)
        fx.append((pi, q, s))
    return searchable(kind, fx[:count] if count else fx)


def _scored_imh(kind=SCORED, count=None):
    """The instances of :func:`_scored` with what the IMH checks compute from each.

    Parameters
    ----------
    kind, count
        As for :func:`_scored`.

    Yields
    ------
    tuple
        ``(pi, q, s, K, r, L)``: the pair and the score, the exact IMH kernel ``K`` on the M
        states (:func:`simulate.finite.imh_matrix`), ``r = 1 - 1/w*`` (Assumption 2, w* = max
        pi/q: the rate of Eq. (7) and Lemma 7) and ``L = max |s|`` (Assumption 3).
    """
    for pi, q, s in _scored(kind, count):
        yield (pi, q, s, F.imh_matrix(pi, q), 1 - 1 / float((pi / q).max()),
               float(np.abs(s).max()))


def _w(pi, q):
    return pi / q


def _proof_chain(declare, claim, part, where, rows):
    """Declare, with ``declare`` (the declaring module's ``step``), the steps of one chain of
    displays in ``claim``'s proof, a row a line: ``(line, lines, relation, lhs, rhs,
    justification, check, expect, options)``; the step's id is ``<claim>.<part>.<line>``, its
    location ``<where>, <lines>``, and ``options`` its other keywords
    (:func:`~verify.audit.engine.step`)."""
    for line, lines, relation, lhs, rhs, why, check, expect, options in rows:
        declare(f"{claim}.{part}.{line}", claim=claim, location=f"{where}, {lines}",
                relation=relation, lhs=lhs, rhs=rhs, justification=why, check=check,
                expect=expect, **options)


def _tv(p, pi):
    return 0.5 * float(np.abs(np.asarray(p) - np.asarray(pi)).sum())


def _worst(lhs, rhs, res=1e-12):
    """Index of the entry of (lhs, rhs) that comes closest to breaking lhs <= rhs (the search's row
    score).
    """
    lhs, rhs = np.asarray(lhs, float), np.asarray(rhs, float)
    big = (lhs > res) & (rhs > res)
    with np.errstate(all="ignore"):
        sc = np.where(big, np.log(np.where(big, lhs, 1.0) / np.where(big, rhs, 1.0)),
                      (lhs - rhs) / np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), res))
    return int(np.nanargmax(sc))


def _compositions(n_, M):
    """Every (c_1..c_M) >= 0 with sum n_, as an array (memoised on the function: not a global the
    audit's digest
    would read)."""
    memo = _compositions.__dict__.setdefault("memo", {})
    if (n_, M) not in memo:
        memo[(n_, M)] = np.array(list(F._compositions(n_, M)), dtype=float)
    return memo[(n_, M)]


def _cis_integrals(pi, q, NN, f):
    """int sum_n wbar_n f(z^(n)) prod_{n>=2} q(dz^(n)) with z^(1) = x (App. D, proof of Theorem 1,
    line 2), for every
    start x: the N - 1 proposals enumerated as multisets with their multinomial probabilities; f is
    a vector (M,)."""
    w_ = pi / q
    C = _compositions(NN - 1, w_.size)
    p = np.exp(special.gammaln(NN) - special.gammaln(C + 1).sum(1) + C @ np.log(q))
    f = np.asarray(f, float)
    num = (w_ * f)[None, :] + (C @ (w_ * f))[:, None]  # (compositions, x)
    den = w_[None, :] + (C @ w_)[:, None]
    return p @ (num / den)


def _stationary_path_law(K, pi, NN):
    """Law of N consecutive states of the chain K started at pi (shape (M,)*N)."""
    law = np.asarray(pi, float)
    for _ in range(NN - 1):
        law = law[..., None] * K[(None,) * (law.ndim - 1)]
    return law


# ============================================================================= definitions
def _eq2():
    """Smith & Tierney's n-step kernel (lambda against q) vs exact matrix powers, every entry; n up
    to 10^4. A row per instance: the entry where the two differ most; the residual is relative to n
    M (the
    powers (a - b/v)^n and the matrix power each carry about n M roundings)."""
    rows = []
    for pi, q in _pairs():
        K = F.imh_matrix(pi, q)
        for nn in free("n", (1, 2, 3, 7), K_DOM):
            ST = F.smith_tierney_power(pi, q, nn, "q")
            Kn = np.linalg.matrix_power(K, nn)
            err = np.abs(ST - Kn)
            i = np.unravel_index(int(np.argmax(err)), err.shape)
            rows.append(({"M": pi.size, "n": nn, "entry (0-based)": [int(i[0]), int(i[1])]},
                         float(ST[i]), float(Kn[i]),
                         float(nn * pi.size)))
    return instance_check(rows, "=", tol=1e-12,
                          describe="n-step IMH kernels vs exact matrix powers")


def _eq3():
    """lambda(w) as printed (against pi) vs the IMH rejection probability at the same state."""
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        for x in range(pi.size):
            rej = 1 - float(q @ np.minimum(1.0, ww / ww[x]))
            rows.append(({"M": pi.size, "state": x, "w": round(float(ww[x]), 6),
                          "pi": [round(float(a), 6) for a in pi],
                          "q": [round(float(a), 6) for a in q]},
                         F.imh_lambda(pi, q, float(ww[x]), "pi"), rej, 1.0))
    # scale 1: both sides are 1 minus (or sums of) probabilities, computed with cancellation of
    # terms of size at most 1, so their rounding error is absolute (a few eps), not relative
    return instance_check(rows, "=", tol=1e-12,
                          describe="lambda as printed vs the IMH rejection probability")


def _eq3_corrected():
    """lambda against q = K(z, {z}) - q(z): the rejection probability read off the exact IMH
    matrix.
    """
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        K = F.imh_matrix(pi, q)
        for x in range(pi.size):
            rows.append(({"M": pi.size, "state": x}, F.imh_lambda(pi, q, float(ww[x]), "q"),
                         float(K[x, x] - q[x]), 1.0))
    # scale 1: K(z, {z}) - q(z) cancels probabilities of size up to 1 (absolute rounding)
    return instance_check(rows, "=", tol=1e-12,
                          describe="lambda against q vs K(z, {z}) - q(z) of the exact IMH matrix")


def _imh_tv_again(pi, q, kk):
    """``again(bits)`` for a row max_z d_TV(K^k(z, .), pi) vs r^k: both sides in ball arithmetic at
    ``bits`` on the instance read exactly -- the doubles pi and q normalised in rationals (so that
    pi sums to 1 and is the stationary law of the IMH matrix K built from them), K^k by arb_mat
    products, r = 1 - 1/w* with w* = max pi/q."""
    pi_q = [Fraction(float(a)) for a in pi]
    q_q = [Fraction(float(a)) for a in q]
    sp_, sq_ = sum(pi_q), sum(q_q)
    pi_q, q_q = [a / sp_ for a in pi_q], [a / sq_ for a in q_q]
    w = [a / b for a, b in zip(pi_q, q_q)]
    M = len(pi_q)
    K = [[q_q[y] * min(Fraction(1), w[y] / w[x]) if y != x else Fraction(0) for y in range(M)]
         for x in range(M)]
    for x in range(M):
        K[x][x] = 1 - sum(K[x], Fraction(0))
    ws = max(w)

    def again(bits):
        from flint import arb, arb_mat, fmpq

        from bounds.enclosure import Enclosure, precision

        with precision(bits):
            A = arb_mat([[arb(fmpq(e.numerator, e.denominator)) for e in r] for r in K])
            P = A ** int(kk)
            pis = [arb(fmpq(a.numerator, a.denominator)) for a in pi_q]
            tv = None
            for x in range(M):
                t = sum((abs(P[x, y] - pis[y]) for y in range(M)), arb(0)) / 2
                tv = t if tv is None else tv.max(t)
            rk = (1 - 1 / arb(fmpq(ws.numerator, ws.denominator))) ** int(kk)
            return Enclosure.from_arb(tv, bits), Enclosure.from_arb(rk, bits)
    return again


def _eq7():
    """max over starts of d_TV(K^k(z, .), pi) vs r^k, k up to 10^4.

    The error of the doubles: every entry of K is a probability, so fl(K^k) is off by at most
    _pow_tol(k, M) in the row-sum norm (absolute), and a TV distance -- half a sum of |differences
    of probabilities| -- carries that absolute error, not one relative to its own (tiny) value:
    the row's scale is _pow_tol(k, M) in units of tol = 1e-12.  A row the doubles cannot decide
    (the tail, where r^k is far below the rounding of K^k) is recomputed in ball arithmetic
    (_imh_tv_again).
    """
    rows = []
    for pi, q in _pairs():
        ws = float((pi / q).max())
        K = F.imh_matrix(pi, q)
        for kk in free("k", (1, 2, 3, 5, 10, 30), K_DOM):
            tv = F.tv_rows(np.linalg.matrix_power(K, kk), pi).max()
            rows.append(({"M": pi.size, "k": kk, "w_star": ws}, float(tv), (1 - 1 / ws) ** kk,
                         _pow_tol(kk, pi.size) / 1e-12, _imh_tv_again(pi, q, kk)))
    return instance_check(rows, "<=", tol=1e-12, describe="all starts")


# ---- H05: Eq. (1) against Algorithms 1, 4, 5 and the proofs
_H05_PI, _H05_LAM0, _H05_GAMMA, _H05_X, _H05_ETA0 = (0.6, 0.3, 0.1), (0.0, 0.0, 2.5), 1.5, 0, 2


def _softmax(a):
    a = np.asarray(a, float)
    e = np.exp(a - a.max())
    return e / e.sum()


def _g_score(lam, z):
    """MSC's g(lambda; z) = -s(lambda; z) for the softmax family q(z; lambda) = softmax(lambda)_z:
    s(lambda; z) = e_z - softmax(lambda)."""
    return -(np.eye(np.asarray(lam).size)[z] - _softmax(lam))


def _mean_lambda_algorithms(pi, lam0, x0, gamma, T):
    """E[lambda_T] of Algorithm 4 (z_t ~ K_{lambda_{t-1}}(z_{t-1}, .), lambda_t = lambda_{t-1} -
    gamma
    g(lambda_{t-1}; z_t)), every path enumerated; K_lambda the IMH kernel with proposal
    softmax(lambda)."""
    states = [(1.0, np.asarray(lam0, float), x0)]
    for _ in range(T):
        nxt = []
        for p, lam, z in states:
            K = F.imh_matrix(pi, _softmax(lam))
            nxt += [(p * K[z, y], lam - gamma * _g_score(lam, y),
                     y) for y in range(pi.size) if K[z, y] > 0]
        states = nxt
    return sum(p * lam for p, lam, _ in states)


def _mean_lambda_eq1(pi, lam0, x0, gamma, T, lag=1):
    """E[lambda_T] of Eq. (1) as printed: lambda_{t+1} = lambda_t - gamma g(lambda_t, eta_t), eta_t
    ~ P_{lambda_{t-1}}(eta_{t-1}, .) (lag = 1); lag = 0 is the corrected eta_t ~
    P_{lambda_t}(eta_{t-1}, .).
    The first update is the algorithms' (eta_1 ~ P_{lambda_0}(eta_0, .)), so both start alike."""
    lam0 = np.asarray(lam0, float)
    K = F.imh_matrix(pi, _softmax(lam0))
    states = [(K[x0, y], lam0, lam0 - gamma * _g_score(lam0, y),
               y) for y in range(pi.size) if K[x0, y] > 0]
    for _ in range(T - 1):
        nxt = []
        for p, prev, cur, eta in states:
            Kp = F.imh_matrix(pi, _softmax(prev if lag else cur))
            nxt += [(p * Kp[eta, y], cur, cur - gamma * _g_score(cur, y),
                     y) for y in range(pi.size) if Kp[eta, y] > 0]
        states = nxt
    return sum(p * cur for p, _, cur, _ in states)


def _eq1_rows():
    pi, lam0, gamma, x = np.array(_H05_PI), np.array(_H05_LAM0), _H05_GAMMA, _H05_X
    # lambda_t, reached from lambda_{t-1} = lam0 with the sample x
    a = lam0 - gamma * _g_score(lam0, x)
    b = lam0  # lambda_{t-1}
    Pa, Pb = F.imh_matrix(pi, _softmax(a)), F.imh_matrix(pi, _softmax(b))
    e_alg = sum(Pa[x, y] * _g_score(a, y) for y in range(3))  # the sample used at a drawn with P_a
    # Eq. (1): drawn with P_{lambda_{t-1}} = P_b
    e_eq1 = sum(Pb[x, y] * _g_score(a, y) for y in range(3))
    at = {"pi": list(_H05_PI), "q_lambda": "softmax(lambda)", "lambda_t-1": _r6(b),
          "lambda_t": _r6(a),
          "eta_t-1": x + 1, "g": "-s(lambda; z), s = e_z - softmax(lambda)"}
    rows = [({**at, "component": 1, "E[g | .] Eq. (1)": _r6(e_eq1),
              "E[g | .] algorithms": _r6(e_alg)},
             float(e_eq1[0]), float(e_alg[0]))]
    alg3 = _mean_lambda_algorithms(pi, lam0, _H05_ETA0, gamma, 3)
    eq3_ = _mean_lambda_eq1(pi, lam0, _H05_ETA0, gamma, 3)
    rows.append(({"pi": list(_H05_PI), "lambda_0": list(_H05_LAM0), "eta_0": _H05_ETA0 + 1,
                  "gamma": gamma, "T": 3,
                  "component": 1, "E lambda_3 Eq. (1)": _r6(eq3_),
                  "E lambda_3 algorithms": _r6(alg3)},
                 float(eq3_[0]), float(alg3[0])))
    return rows


def _eq1_index():
    return first_failing(
        _eq1_rows(), "=", 1e-12, "exact enumeration, softmax family, IMH kernel, gamma = 1.5")


def _eq1_corrected():
    """The corrected Eq. (1) (eta_t ~ P_{lambda_t}) against Algorithm 4: E[lambda_3], every path
    enumerated;
    pi from the searched pair, lambda_0 = log q, start at the highest-weight state, gamma
    searched."""
    rows = []
    for pi, q in _pairs(PAIRS_CIS, count=6):
        lam0 = np.log(q)
        x0 = int(np.argmax(pi / q))
        for gamma in free("gamma", (0.1, 1.5), Real(1e-3, 10.0, log=True)):
            a = _mean_lambda_algorithms(pi, lam0, x0, gamma, 3)
            c = _mean_lambda_eq1(pi, lam0, x0, gamma, 3, lag=0)
            i = int(np.argmax(np.abs(a - c)))
            rows.append(({"M": pi.size, "gamma": gamma, "T": 3, "component": i}, float(c[i]),
                         float(a[i]),
                         float(np.abs(a).max() + 1.0)))
    return instance_check(rows, "=", 1e-12,
                          describe="E[lambda_3]: corrected Eq. (1) vs Algorithm 4")


step("eq1.index", check=_eq1_index, corrected=_eq1_corrected)
step("eq2", check=_eq2)
step("eq3", check=_eq3, corrected=_eq3_corrected)
step("eq7", check=_eq7)


# ============================================================================= Proposition 1
_M_DOM, _S_DOM = Real(-30.0, 30.0), Real(1e-3, 1e3, log=True)


def _prop1_lines(m, s, NN=None):
    """Lines of Eq. (4) for pi = N(0, 1), q = N(m, s^2): line 1 (key 0) as the N-fold integral on
    the tensor-product Gauss-Hermite rule with 3 nodes per coordinate (exact: the integrand is
    quadratic in each z_n); lines 4 and 6 (keys 1, 2) on an 8-node rule (exact); line 8 (key 3) the
    closed-form KL; "scale": the size of the terms that
    cancel."""
    x8, w8 = np.polynomial.hermite_e.hermegauss(8)
    w8 = w8 / w8.sum()
    logq = lambda z: -0.5 * ((z - m) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)  # noqa: E731
    logpi = lambda z: -0.5 * z ** 2 - 0.5 * np.log(2 * np.pi)  # noqa: E731
    H = -float(w8 @ logpi(x8))
    lines = {1: float(w8 @ (-logq(x8))) - H, 2: float(w8 @ (logpi(x8) - logq(x8))),
             3: float(np.log(s) + (1 + m * m) / (2 * s * s) - 0.5),
             "scale": abs(float(w8 @ logq(x8))) + H}
    if NN is not None:
        x3, w3 = np.polynomial.hermite_e.hermegauss(3)
        w3 = w3 / w3.sum()
        Z = np.array(list(itertools.product(x3, repeat=NN)))
        W = np.prod(np.array(list(itertools.product(w3, repeat=NN))), axis=1)
        lines[0] = float(W @ (-logq(Z).mean(axis=1))) - H
    return lines


def _prop1_rows(i, j):
    """Lines i and j of Eq. (4) at searched (m, s) (and N <= 8 for line 1)."""
    rows = []
    for m in free("m", (0.5, -1.0, 2.0), _M_DOM):
        for s in free("s", (2.0, 0.7, 1.0), _S_DOM):
            for NN in (free("N", (2, 3), Int(1, 8)) if 0 in (i, j) else [None]):
                lines = _prop1_lines(m, s, NN)
                rows.append(({"m": m, "s": s, **({"N": NN} if NN else {})}, lines[i], lines[j],
                             lines["scale"]))
    return rows


def _prop1(i, j):
    return lambda: instance_check(lambda: _prop1_rows(i, j), "=", tol=1e-12,
                                  describe="pi = N(0,1), q = N(m, s^2), exact Gauss-Hermite rules")


step("prop1.4.a", check=_prop1(0, 1))
step("prop1.4.b", check=_prop1(1, 2))
step("prop1.4.c", check=_prop1(2, 3))


def _prop1_eq5():
    m_, z = sp.symbols("m z", real=True)
    s_ = sp.Symbol("s", positive=True)
    logq = -(z - m_) ** 2 / (2 * s_ ** 2) - sp.log(s_)
    f = -logq  # N = 1 summand of f up to constants
    g = -sp.Matrix([sp.diff(logq, m_), sp.diff(logq, s_)])
    return sym_equal(sp.diff(f, m_) - g[0] + sp.diff(f, s_) - g[1], sp.Integer(0),
                     symbols=[m_, s_, z],
                     domain={m_: _M_DOM, s_: _S_DOM, z: Real(-100.0, 100.0)})


def _prop1_leibniz():
    m_, z = sp.symbols("m z", real=True)
    s_ = sp.Symbol("s", positive=True)
    pi = sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)
    logq = -(z - m_) ** 2 / (2 * s_ ** 2) - sp.log(s_) - sp.log(2 * sp.pi) / 2
    kl = sp.integrate(sp.expand(pi * (-z ** 2 / 2 - sp.log(2 * sp.pi) / 2 - logq)),
                      (z, -sp.oo, sp.oo), conds="none")
    lhs = sp.diff(kl, m_) + sp.diff(kl, s_)
    rhs = sp.integrate(sp.expand(-pi * (sp.diff(logq, m_) + sp.diff(logq, s_))), (z, -sp.oo, sp.oo),
                       conds="none")
    o = sym_equal(lhs, rhs, domain={m_: _M_DOM, s_: _S_DOM})
    o.detail += " (Gaussian instance; the interchange needs DIFF in general)"
    return o


step("prop1.5", check=_prop1_eq5)
step("prop1.grad", check=_prop1_leibniz)


# ============================================================================= Proposition 2
def _jensen():
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        # both sides vanish at q = pi and are computed with cancellation: the lhs sums terms
        # pi_i log w_i of total size sum pi_i |log w_i| (error (M + 2) eps of that), the rhs is the
        # log of a number near 1 whose relative error M eps becomes an absolute one.  Scale:
        # max(1, sum pi |log w|); tol 1e-13 covers (M + 2) eps for M <= 8 a hundred times over
        rows.append(({"M": pi.size}, float(pi @ np.log(ww)), float(np.log(pi @ ww)),
                     max(1.0, float(pi @ np.abs(np.log(ww))))))
    return instance_check(rows, "<=", tol=1e-13)


def _p2_wstar():
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        # logs of numbers near 1 at q = pi: their relative rounding (M eps) is an absolute error
        # of the logs, so the scale is 1 (as in prop2.2)
        rows.append(({"M": pi.size}, float(np.log(pi @ ww)), float(np.log(ww.max())), 1.0))
    return instance_check(rows, "<=", tol=1e-13)


_P1, _P2 = sp.symbols("p1 p2", nonnegative=True)


def _p2_const():
    """log E_pi[w*] = log(w* sum_z pi(z)) vs log w*, pi on three atoms (p1, p2, 1 - p1 - p2):
    sympy.
    """
    return sym_equal(sp.log(w * (_P1 + _P2 + (1 - _P1 - _P2))), sp.log(w),
                     domain={_P1: Real(0.0, 0.5), _P2: Real(0.0, 0.5), w: W_DOM})


def _p2_iff_rows():
    """Both directions of the corrected equality case of Proposition 2.
    Only if: w* - exp(KL) >= E_pi[w* - w] (Jensen, then E_pi w = w* - E_pi[w* - w]), so equality
    forces w = w* pi-almost surely.  If: w constant (= c) on supp(pi) gives exp(KL) = c = w*;
    instances: pi the
    searched pi restricted to its first ceil(M/2) states, q = pi/c there and the mass 1 - 1/c on the
    others."""
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        ws = float(ww.max())
        kl = float(pi @ np.log(ww))
        rows.append(({"direction": "only if: exp(KL) + E_pi[w* - w] <= w*", "M": pi.size,
                      "w_star": ws},
                     float(np.exp(kl) + pi @ (ws - ww)), ws))
        for c in free("c", (1.5, 1e6), Real(1 + 1e-9, 1e12, log=True)):
            M = pi.size
            if M < 2:
                continue
            m = (M + 1) // 2
            p = np.zeros(M)
            p[:m] = pi[:m] / pi[:m].sum()
            qq = np.empty(M)
            qq[:m] = p[:m] / c
            qq[m:] = (1 - 1 / c) * q[m:] / q[m:].sum()
            sup = p > 0
            w2 = np.where(sup, p / qq, 0.0)
            kl2 = float(p[sup] @ np.log(w2[sup]))
            rows.append(({"direction": "if: w = c on supp(pi) gives w* <= exp(KL)", "M": M, "c": c,
                          "supp(pi)": f"first {m} states"}, float(w2.max()), float(np.exp(kl2))))
    return rows


def _p2_iff():
    o = instance_check(_p2_iff_rows, "<=", tol=1e-12,
                       describe="both directions of the equality case")
    o.detail = "equality iff w = pi/q is constant on supp(pi): " + o.detail
    return o


def _p2_equality_cases():
    """exp(d_KL(pi || q)) vs w* where equality holds: pi = (1, 0), q = (1/2, 1/2) (pi != q) and q =
    pi.
    """
    rows = []
    for label, pi_s, q_s in (("pi = (1, 0), q = (1/2, 1/2)", ("1", "0"), ("1/2", "1/2")),
                         ("pi = q = (0.2, 0.3, 0.5)", ("0.2", "0.3", "0.5"),
                          ("0.2", "0.3", "0.5"))):
        # exactly, in rationals: exp(KL(pi || q)) = prod_{pi_i > 0} w_i^pi_i with w = pi/q; on
        # both instances w is constant (= c) on supp(pi), so the product is c^(sum pi) = c
        pi, q = [Fraction(a) for a in pi_s], [Fraction(a) for a in q_s]
        w = [a / b for a, b in zip(pi, q)]
        on_supp = {wi for wi, a in zip(w, pi) if a > 0}
        assert len(on_supp) == 1  # the equality case: w constant on supp(pi)
        rows.append(({"pi, q": label}, on_supp.pop(), max(w)))
    return first_failing(
        rows, "<", 1e-12, "equality cases",
        why="equality exp(KL) = w* holds whenever w = pi/q is constant on supp(pi), not only at pi "
            "= q: ",
        correction=(
            "exp(d_KL(pi || q)) <= w*, with equality iff w = pi/q is constant on supp(pi) (Jensen "
            "is strict otherwise, and E_pi w = w* needs w = w* pi-a.s.)"))




step("prop2.1", check=definition("the definition of d_KL(pi || q) = E_pi[log pi/q]"))
step("prop2.2", check=_jensen)
step("prop2.3", check=_p2_wstar)
step("prop2.4", check=_p2_const)
step("prop2.statement", check=lambda: _p2_equality_cases(), reading=STRICT, corrected=_p2_iff)


# ============================================================================= Lemma 1
a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2", nonnegative=True)
_unit = {s: U_DOM for s in (a1, a2, b1, b2)}
step("lemma1.1",
     check=lambda: sym_equal(a1 * a2 - b1 * b2, (a1 - b1) * a2 + b1 * (a2 - b2), domain=_unit))
step("lemma1.2",
     check=lambda: sym_le(sp.Abs((a1 - b1) * a2 + b1 * (a2 - b2)),
                          sp.Abs(a1 - b1) * a2 + b1 * sp.Abs(a2 - b2),
                          domain=_unit))
step("lemma1.3",
     check=lambda: sym_le(sp.Abs(a1 - b1) * a2 + b1 * sp.Abs(a2 - b2),
                          sp.Abs(a1 - b1) + sp.Abs(a2 - b2), domain=_unit))


def _products_fixed():
    g = np.random.default_rng(9)
    return [(M, NN, [g.dirichlet(np.ones(M)) for _ in range(NN)],
             [g.dirichlet(np.ones(M)) for _ in range(NN)])
            for M in (2, 3) for NN in (2, 3)]


def _lemma1_rhs(pa, qa):
    """sum_n |p_n(A) - q_n(A)|."""
    return float(np.abs(pa - qa).sum())


def _lemma1_rows():
    """Lemma 1 as stated: for every set A of X, |p_1:N(A^N) - q_1:N(A^N)| <= sum_n |p_n(A) - q_n(A)|
    (the rectangle A^N only).  The N laws are the searched family's cycled (p_n = p_(n mod N0)), N
    up to 10^4; every A of the
    M <= 4 points is enumerated; p_1:N(A^N) from the product law itself where it has at most 4096
    atoms."""
    rows = []
    for M, N0, ps, qs in searchable("products", _products_fixed()):
        for NN in free("N", (N0, 2 * N0 + 1), Int(1, 10 ** 4, log=True)):
            idx = [i % N0 for i in range(NN)]
            for mask in itertools.product((False, True), repeat=M):
                A = np.array(mask)
                pa = np.array([float(p[A].sum()) for p in ps])[idx]
                qa = np.array([float(p[A].sum()) for p in qs])[idx]
                if M ** NN <= 4096:
                    box = np.ix_(*[A] * NN)
                    lhs = abs(float(F.product_law([ps[i] for i in idx])[box].sum())
                              - float(F.product_law([qs[i] for i in idx])[box].sum()))
                else:
                    lhs = abs(float(np.prod(pa)) - float(np.prod(qa)))
                # both sides are (sums of) differences of probabilities: their rounding error is
                # absolute.  An atom of the product law is a product of NN factors (relative error
                # NN eps), a probability a sum of at most 4096 atoms (error 4096 eps of a total
                # <= 1), so each side is off by at most (4096 + NN) eps: scale in units of tol
                rows.append(({"M": M, "N": NN, "A": [i for i in range(M) if mask[i]]}, lhs,
                             _lemma1_rhs(pa, qa), max(1.0, (4096 + NN) * 2.3e-16 / 1e-12)))
    return rows


def _lemma1_statement():
    o = instance_check(_lemma1_rows, "<=", tol=1e-12, describe="every A of X, product sets A^N")
    o.detail = (
        "Lemma 1 bounds the rectangles A^N only (one common A); d_TV of product measures needs "
        "every set of X^N (see theorem3.mix.2, theorem4.mix.1): " + o.detail)
    return o


step("lemma1.statement", check=_lemma1_statement)


# ============================================================================= Lemma 2
def _disc_vectors():
    g = np.random.default_rng(7)
    out = []
    for i in range(12):
        d = 1 + i % 3
        p = g.dirichlet(np.ones(5))
        vals = g.standard_normal((5, d)) * 2
        mu = g.standard_normal(d)
        out.append(({"case": i, "d": d}, p, vals, mu))
    return searchable("discrete", out)


def _l2(which):
    """Rows (instance, left side, right side) of one line of Lemma 2's proof on the discrete
    instances, for :func:`instance_check`."""

    def fn():
        rows = []
        for par, p, vals, mu in _disc_vectors():
            Eg = p @ vals
            V = float(p @ ((vals - Eg) ** 2).sum(1))
            sq = float(p @ (vals ** 2).sum(1))
            bias_norm = float(np.linalg.norm(Eg - mu))
            bias_def = float(p @ np.linalg.norm(vals - mu, axis=1))
            mn = float(np.linalg.norm(mu))
            quad = V + float((Eg - mu) @ (Eg - mu)) + 2 * float((Eg - mu) @ mu) + mn ** 2
            cs = V + bias_norm ** 2 + 2 * bias_norm * mn + mn ** 2
            # every term on either side (V, ||E g||^2, ||E g - mu||^2, 2 (E g - mu).mu, Bias^2, ...)
            # is at most 4 (E||g||^2 + ||mu||^2) in size, and the sides cancel such terms (they
            # vanish when g is a point mass at mu): the rows' scale, with an error of a few tens of
            # eps of it, far inside tol = 1e-12
            scale = 4 * (sq + mn ** 2)
            rows.append((par, *{"decomp": (sq, V + float(Eg @ Eg)),
                                "expand": (V + float(Eg @ Eg), quad),
                                "cs": (quad, cs),
                                "bias_def": (cs, V + bias_def ** 2 + 2 * bias_def * mn + mn ** 2),
                                "mse": (sq, float(p @ ((vals - mu) ** 2).sum(1)) + 2 * bias_def
                                        * mn + mn ** 2)}[which], scale))
        return rows
    return fn


def _le_rows(which):
    """The corrected '<=' of a line printed '=' (Lemma 2's decomposition), searched like the
    step.
    """
    return lambda: instance_check(_l2(which), "<=", 1e-12)


def _lemma2_equality():
    """Lemma 2 as used by the first line of the variance proofs of Theorems 3 and 4, printed '=':
    its Cauchy-Schwarz rows hold only as '<=' (the correction, whatever the outcome)."""
    o = instance_check(_l2("cs"), "<=", 1e-12, printed="=")
    o.correction = "'<='"
    return o


step("lemma2.1", check=lambda: instance_check(_l2("decomp"), "=", 1e-12))
step("lemma2.2", check=lambda: instance_check(_l2("expand"), "=", 1e-12))
step("lemma2.3", check=lambda: instance_check(_l2("cs"), "<=", 1e-12))


def _l2_bias():
    o = instance_check(_l2("bias_def"), "<=", 1e-12, printed="=")
    return explain(o, why="Bias[g] is defined as E||g - mu||, the line before has ||E g - mu|| <= "
                          "E||g - mu|| (Jensen): ",
                   correction="'<=' (or define Bias[g] = ||E g - mu||, which the proofs "
                              "use)", status=LOOSE)


step("lemma2.4", check=_l2_bias, corrected=_le_rows("bias_def"))
step("lemma2.statement", check=lambda: instance_check(_l2("mse"), "<=", 1e-12))


# ============================================================================= Theorem 1
def _t1_mix():
    """Exact CIS kernels (every start): d_TV(K^k(z, .), pi) vs Theorem 1's rate^k; N and k searched
    up to 10^4
    (N capped by the kernel's cost, see CIS_CAP_TEXT); tolerance from the kernel's error bound (k M
    err)."""
    rows = []
    for pi, q in _pairs(PAIRS_CIS, count=8):
        ws = float((pi / q).max())
        M = pi.size
        for NN in free("N", (2, 3, 6), N_DOM):
            n_eff = _cap_cis(NN, M)
            K, err = F.cis_matrix(pi, q, n_eff, return_error=True)
            for kk in free("k", (1, 2, 5, 15), K_DOM):
                tv = F.tv_rows(np.linalg.matrix_power(K, kk), pi).max()
                # the TV distance cancels probabilities: its error is absolute.  Each entry of K is
                # off by err (F.cis_matrix's bound), so a row of K^k by at most k M err in the
                # row-sum norm, plus the rounding of the k products (k M 1e-15 covers 2 k M eps):
                # the row's scale, in units of tol = 1e-12
                scale = (kk * M * err + kk * M * 1e-15) / 1e-12
                rows.append(({"M": M, "N": n_eff, "k": kk, "w_star": ws}, float(tv),
                             (1 - (n_eff - 1) / (2 * ws + n_eff - 2)) ** kk, scale))
    return instance_check(rows, "<=", tol=1e-12,
                          describe="exact CIS kernels, all starts; " + CIS_CAP_TEXT)


def _t1_kernel_expectation():
    """E_{K(z, .)}[||s||^2] from the exact CIS kernel vs the integral of line 2 with the proposals
    enumerated.
    """
    rows = []
    for pi, q, s in _scored(SCORED_CIS, count=6):
        M = pi.size
        for NN in free("N", (2, 4), N_DOM):
            n_eff = _cap_enum(NN, M)
            K = F.cis_matrix(pi, q, n_eff)
            f = s ** 2
            integ = _cis_integrals(pi, q, n_eff, f)
            for x in range(M):
                rows.append(({"M": M, "N": n_eff, "x": x}, float(K[x] @ f), float(integ[x])))
    return instance_check(rows, "=", tol=1e-11,
                          describe="kernel expectation vs the enumerated integral (N with C(N + M "
                                   "- 2, M - 1) <= 4000)")


def _t1_assumption3():
    ("""int sum_n wbar_n ||s||^2 prod q (= E_{K(z,.)}||s||^2, theorem1.mom.1) vs L^2 int sum_n """
     """wbar_n prod q, L = max |s|.""")
    rows = []
    for pi, q, s in _scored(SCORED_CIS, count=6):
        M = pi.size
        L_ = float(np.abs(s).max())
        for NN in free("N", (2, 4, 50), N_DOM):
            n_eff = _cap_cis(NN, M)
            K = F.cis_matrix(pi, q, n_eff)
            for x in range(M):
                rows.append(({"M": M, "N": n_eff, "x": x, "L": L_}, float(K[x] @ s ** 2),
                             L_ ** 2 * float(K[x].sum())))
    return instance_check(rows, "<=", tol=1e-12, describe="exact CIS kernels; " + CIS_CAP_TEXT)


def _t1_normalised():
    """int sum_n wbar_n prod_{n>=2} q(dz^(n)) = 1, the N - 1 proposals enumerated (weights
    normalised per draw).
    """
    rows = []
    for pi, q in _pairs(PAIRS_CIS, count=8):
        M = pi.size
        for NN in free("N", (2, 3, 6), N_DOM):
            n_eff = _cap_enum(NN, M)
            integ = _cis_integrals(pi, q, n_eff, np.ones(M))
            # the error of the enumerated integral (a sum of probabilities, total 1, times ratios
            # in [0, 1]): each multinomial probability exp(gammaln(N) - sum gammaln(C + 1) + C log
            # q) has a relative error of a few eps times the size of the exponent's terms, and the
            # sum over the compositions adds (count + 4) eps: relative to 1, the row's scale in
            # units of tol
            C = _compositions(n_eff - 1, M)
            size = float(special.gammaln(n_eff) + (special.gammaln(C + 1).sum(1)
                                                   + np.abs(C @ np.log(q))).max())
            err = 8 * 2.3e-16 * (size + 2) + (len(C) + 4) * 2.3e-16
            for x in range(M):
                rows.append(({"M": M, "N": n_eff, "x": x}, float(integ[x]), 1,
                              max(1.0, err / 1e-12)))
    return instance_check(rows, "=", tol=1e-12, describe="proposal multisets enumerated")


step("theorem1.mix.1",
     check=definition(
         "Theorem 1 defines P^k(eta, d eta') = K^k(z, dz') with eta = z (N = 1 chain, Pi = pi)"))
step("theorem1.mix.2", check=_t1_mix, search_examples=COSTLY)
_proof_chain(step, "theorem1", "mom", "App. D proof of Thm 1, variance", (
    ("1", "line 2", "=", "E[||s(z_t)||^2 | z_t-1]",
     "int sum_n wbar_n ||s(z^(n))||^2 prod_{n>=2} q(dz^(n))", "Andrieu et al. (2018)",
     _t1_kernel_expectation, EXACT, dict(search_examples=COSTLY, search_budget=1000)),
    ("2", "line 3", "<=", "int sum_n wbar_n ||s||^2 prod q", "L^2 int sum_n wbar_n prod q",
     "Assumption 3", _t1_assumption3, VALID, dict(search_budget=1000)),
    ("3", "lines 4-5", "=", "L^2 int sum_n wbar_n prod q", "L^2",
     "sum_n wbar_n = 1; q is a probability", _t1_normalised, EXACT,
     dict(statement=True, search_budget=1000))))


# ============================================================================= Lemma 3
def _l3():
    rows = []
    for pi, q in _pairs():
        ww = pi / q
        rows.append(({"M": pi.size}, float(q @ (ww - q @ ww) ** 2),
                     float(((pi / q - 1) ** 2 * q).sum()),
                     float(q @ ww ** 2)))
    return instance_check(rows, "=", tol=1e-12)


step("lemma3.1", check=_l3)


