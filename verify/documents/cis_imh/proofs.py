"""Audit of the CIS-as-IMH draft (bibliography key 003, :mod:`bounds.references`): CIS as IMH,
acceptance and rejection bounds, the variance of CIS with N, parallel IMH chains.

Step ids read ``<topic>.<part>``; ``lhs``/``rhs`` are the expressions as printed (in plain
text), the relation the one printed between them; locations cite 003 by section, equation
label and, where there is no label, by the quoted words.

Conventions.  003 counts N *proposals* (N + 1 particles: the current state z_t-1 and
z^(1:N)); :mod:`simulate` counts particles, so every call passes N + 1.  003 defines
w(z) = p(z, x)/q(z), "the unnormalized importance weight" (§CIS as IMH); every quantity
except the acceptance bound is invariant under the scale of w, and the checks use normalised
weights w = pi/q (E_q w = 1).  The acceptance bound is read with 003's own w
(:data:`verify.documents.cis_imh.checks.DROPPED` records why the normalised reading is not
encoded as the statement).

How a step is established (docs/methods.md §10).  Every computed step asks for its instances
through :func:`~verify.audit.engine.searchable` / :func:`~verify.audit.engine.free` over the
widest domain the text allows, so the adversarial search attacks it there:

* finite (pi, q) on M = 2, 3, 5, 8 states with a test function f in [-1, 1]^M (kinds ``pairs``
  and ``cis_pqf``: atoms of pi, w* -> oo with w up to about 1e12, q near pi, q = pi);
* Gaussian pairs p = N(0, I_D), q = N(m e_1, s^2 I_D), D = 1..100, m in [-30, 30], s in
  [1e-2, 1e2] (``cis_gauss``);
* the log-weights of one CIS step with N = 1..10^4 proposals, weights 1e-12..1e12 (``cis_logw``);
* N (proposals, chains) in {1, ..., 10^4}, T, t in {1, ..., 10^4} (log scale), the weight of a
  current state off the support of q in [1, 1e12] (log), R in [1e-12, 1e12] (log).

Where an exact sum costs too much for the whole range, the N used is the largest within the
budget and the row records it (:mod:`verify.documents.cis_imh.kit`: the CIS kernel's exact sum
up to N = 10^4 on two states, about 150 on three, 12 on five, 5 on eight; the acceptance rate
has a Laplace quadrature beyond).  Inequalities between computed sides are decided beyond the
computation's error bound: the computed side is moved towards the other by its error
(:func:`_toward`), so a violation is reported only when it exceeds the error.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy as sp

import bounds
from mcsa_cli.lazy import lazy_module
from simulate import finite as F, kernels as Kn
from verify.audit.adversary import Int, Real, free
from verify.audit.engine import step_table
from verify.audit.instances import first_failing, instance_check, searchable
from verify.audit.outcome import EXACT, WRONG, Outcome
from verify.audit.symbolic import sym_equal

from . import kit

# the readings (quotes: checks._READINGS)
from .checks import FORMULA, GROWS, LINEAR, MOVE, SELECT, UNNORMALISED

special = lazy_module("scipy.special")

SEED = "003"  # the CIS-as-IMH draft
#: declares a step; its printed text is in proofs.toml
step = step_table(__name__, seed=SEED)
U = kit.U
#: 003's N: proposals of CIS, chains of PIMH
N_DOM = Int(1, 10 ** 4, log=True)
#: T, t: iterations
T_DOM = Int(1, 10 ** 4, log=True)
#: the weight of a current state off the support of q
W0_DOM = Real(1.0, 1e12, log=True)


# ============================================================================= helpers
def _b(claim: str, quantity: str, **kw) -> float:
    """A bound of :mod:`bounds` (the catalogued formula of 003)."""
    return float(bounds.get(claim).evaluate_form(quantity, "stated", **kw))


def _toward(a: float, b: float, err: float) -> float:
    """``a`` moved towards ``b`` by at most ``err`` (its error bound): a violation must exceed the
    error.
    """
    if abs(a - b) <= err:
        return b
    return a - math.copysign(err, a - b)


def _r(v) -> list:
    return [round(float(x), 6) for x in np.asarray(v, float)]


def _pqf_fixed():
    """Fixed (pi, q, f): random pairs, hard instances (w* = 50, 1e4), q = pi; f from a seeded
    generator.
    """
    g = np.random.default_rng(303)
    out = []
    for M in (2, 3, 4):
        pi, q = g.dirichlet(np.ones(M), 2)
        out.append((pi, q, g.uniform(-1, 1, M)))
    for ws in (50.0, 1e4):
        pi, q = F.hard_instance(3, ws, seed=2)
        out.append((pi, q, g.uniform(-1, 1, 3)))
    pi = np.array([0.2, 0.3, 0.5])
    out.append((pi, pi.copy(), np.array([1.0, -1.0, 0.5])))
    return out


def _pqf():
    return searchable("cis_pqf", _pqf_fixed())


def _pairs():
    return searchable("pairs", [(pi, q) for pi, q, _ in _pqf_fixed()])


def _N(fixed=(1, 3, 10)):
    return free("N", list(fixed), N_DOM)


# ============================================================================= §CIS as IMH
def _barker():
    w0, S = sp.symbols("w0 S", positive=True)
    # 50-digit points lose up to 24 digits to the cancellation in 1 - w0/(w0 + S) at w0/S = 1e24:
    # rel_tol 1e-20
    return sym_equal(S / (w0 + S), 1 - w0 / (w0 + S), domain={w0: Real(1e-12, 1e12, log=True),
                                                              S: Real(1e-12, 1e12, log=True)},
                     rel_tol=1e-20)


def _logw_fixed():
    g = np.random.default_rng(1)
    out = [g.standard_normal(n) * 3 for n in (2, 3, 6, 9)]
    out += [np.array([25.0, -3.0, 0.0]), np.array([-25.0, 1.0, 2.0]),
            np.concatenate([[5.0], 2.0 + 3.0 * kit._quantiles(100)])]
    return searchable("cis_logw", out)


def _index_cuts(wbar: np.ndarray, idx) -> dict:
    """P(select_index(wbar, u) <= i) for u ~ U(0, 1) and every i in ``idx``: the index is
    non-decreasing in u, so it is the supremum of {u : index(u) <= i}, found by 80 bisection steps
    (absolute resolution 1e-24, far below the tolerance of the checks, which compare probabilities
    on the scale 1), all i at once (one select_index call
    per bisection step)."""
    idx = sorted(set(int(i) for i in idx))
    k = len(idx)
    W = np.broadcast_to(wbar, (k, wbar.size))
    lo, hi = np.zeros(k), np.ones(k)
    target = np.array(idx)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        live = (lo < mid) & (mid < hi)
        if not live.any():
            break
        ok = Kn.select_index(W, mid) <= target
        lo = np.where(live & ok, mid, lo)
        hi = np.where(live & ~ok, mid, hi)
    return dict(zip(idx, lo.tolist()))


def _index_cut(wbar: np.ndarray, i: int) -> float:
    """P(select_index(wbar, u) <= i) (see :func:`_index_cuts`)."""
    return _index_cuts(wbar, [i])[int(i)]


def _barker_scaled(lw):
    """(w0, S) rescaled by the largest weight (Barker's ratio is scale-free)."""
    lw = np.asarray(lw, float)
    m = lw.max()
    w = np.exp(lw - m)
    return float(w[0]), float(math.fsum(w[1:].tolist()))


def _selection():
    """P(a proposal is selected | z_t-1, z^(1:N)) from the kernel's selection
    (simulate.kernels.select_index on the normalised weights, as cis_step draws it; law by bisection
    in u) against Eq. (acc)'s Barker ratio from
    bounds, and P(z_t-1 is selected) against r(z_t-1 | z^(1:N))."""
    rows, nmax = [], 1
    for lw in _logw_fixed():
        lw = np.asarray(lw, float)
        nmax = max(nmax, lw.size)
        wbar = Kn.normalised_weights(lw)
        cut0 = _index_cut(wbar, 0)
        w0, S = _barker_scaled(lw)
        p = {"N": int(lw.size - 1), "log_w0": round(float(lw[0]), 6)}
        rows.append(({**p, "event": "a proposal is selected"}, 1.0 - cut0,
                     _b("cis_barker_acceptance", "acceptance", w=w0, w_sum=S), 1.0))
        rows.append(({**p, "event": "z_t-1 is selected"}, cut0,
                     _b("cis_barker_acceptance", "rejection", w=w0, w_sum=S), 1.0))
    # resolution on the probability scale: u is a float (spacing eps near 1, so a selection
    # probability 1 - u near 0 is resolved to eps absolute) and the cumulative sum of n weights
    # rounds by ~ n eps
    tol = 64 * (nmax + 8) * U
    return instance_check(rows, "=", tol,
                          describe="selection law of kernels.select_index vs Eq. (acc), "
                                   "probabilities compared on the scale 1")


def _barker_vs_metropolis():
    """Barker's acceptance R/(1 + R) against Metropolis' min(1, R), R = w(z*)/w(z_t-1)."""
    rows = [({"R": R}, R / (1 + R), min(1.0, R)) for R in (1.0, 3.0, 1 / 3)]
    return first_failing(
        rows, "=", 1e-12, "acceptance probabilities")


def _hastings():
    """The correction: both rules are s/(1 + 1/R) with s symmetric (s(R) = s(1/R)); Barker's is
    below Metropolis'.
    """
    rows = []
    for R in free("R", [1 / 3, 1.0, 3.0, 1e-9, 1e9], Real(1e-12, 1e12, log=True)):
        R = float(R)
        sM = min(1 + R, 1 + 1 / R)
        rows.append(({"R": R, "rule": "Metropolis = s_M/(1 + 1/R)"}, min(1.0, R), sM / (1 + 1 / R)))
        rows.append(({"R": R, "rule": "s_M(R) = s_M(1/R)"}, sM, min(1 + 1 / R, 1 + R)))
        rows.append(({"R": R, "rule": "Barker = 1/(1 + 1/R)"}, R / (1 + R), 1 / (1 + 1 / R)))
    return instance_check(rows, "=", 1e-13,
                          describe="Hastings' family s/(1 + 1/R), R in [1e-12, 1e12]")


step("cis.acc", check=_barker)
step("cis.acc.kernel", check=_selection, reading=SELECT)
step("cis.metropolis", check=_barker_vs_metropolis, corrected=_hastings)


def _accept_moves():
    """P(z_t != z_t-1) against Eq. (acc), q = p uniform on two points, z_t-1 = the first (an atom of
    q).
    """
    p = np.array([0.5, 0.5])
    rows = []
    for n_prop in (1, 2, 5):
        K = F.cis_matrix(p, p, n_prop + 1)
        acc, _, _ = kit.acceptance(p, p, n_prop)
        rows.append(({"p": "q = (1/2, 1/2)", "z_t-1": "a", "N": n_prop}, 1 - float(K[0, 0]),
                     float(acc[0])))
    return first_failing(
        rows, "=", 1e-12, "exact CIS kernels")


def _moves_corrected():
    """1 - K(x, x) = alpha(x) - N pi_x E[1/(2 w_x + S_(N-1))] (the selection probability of copies
    of x), every x,
    with the tie term > 0 (q(x) > 0)."""
    rows = []
    for pi, q in _pairs():
        for N in _N():
            Nu = kit.feasible_N(pi, q, int(N))
            K, kerr = kit.kernel(pi, q, Nu)
            res = F._cis_laplace_sum(pi / q, q, Nu - 1)
            I, E = res  # noqa: E741 -- I is the document's notation
            acc = Nu * (I @ pi)
            tie = Nu * pi * np.diag(I)
            err = Nu * (E @ pi) + Nu * pi * np.diag(E) + kerr * (pi.size + 1)
            for x in range(pi.size):
                p = {"M": pi.size, "N": int(N), "N used": Nu, "x": x, "tie": float(tie[x])}
                rows.append((p, _toward(1 - float(K[x, x]), float(acc[x] - tie[x]), float(err[x])),
                             float(acc[x] - tie[x]), 1.0))
    return instance_check(rows, "=", 1e-12,
                          describe="1 - K(x,x) (simulate.finite.cis_matrix) vs alpha - tie (the "
                                   "Laplace sum), every state")


step("cis.acc.move", check=_accept_moves, reading=MOVE, corrected=_moves_corrected)


# ============================================================================= §Bias-variance: the
# variance of CIS
def _totvar_parts():
    """Per (pi, q, f), N and state x: the kernel's variance V_q[f | z_t-1]
    (simulate.finite.cis_matrix, exact sum), the variance of the Rao-Blackwellised estimate E[f |
    z_t-1, z^(1:N)] and the Rao-Blackwell gain
    E_q[V[f | z_t-1, z^(1:N)]] = E[RB(f^2)] - E[RB(f)^2] (simulate.finite.moments_msc_rb), with an
    error bound."""
    out = []
    for pi, q, f in _pqf():
        for N in _N((1, 3)):
            Nu = kit.feasible_N(pi, q, int(N))
            K, kerr = kit.kernel(pi, q, Nu)
            f = np.asarray(f, float)
            scale = max(float(np.max(f * f)), 1e-300)
            for x in range(pi.size):
                total = float(K[x] @ f ** 2 - (K[x] @ f) ** 2)
                m1 = kit.rb_moments(pi, q, f, x, Nu)
                m2 = kit.rb_moments(pi, q, f ** 2, x, Nu)
                within = float(-m2.mean[0]) - m1.second
                err = 3 * pi.size * kerr * scale + 4 * (m1.error + m2.error) + 64 * U * scale
                p = {"M": pi.size, "N": int(N), "N used": Nu, "x": x, "f": _r(f)}
                out.append((p, total, m1.variance, within, err, scale))
    return out


def _total_variance():
    rows = [(p, _toward(t, v + wi, e), v + wi, s) for p, t, v, wi, e, s in _totvar_parts()]
    return instance_check(rows, "=", 1e-10,
                          describe="V_K[f] = V_q[E[f|.]] + E_q[V[f|.]]: the kernel's exact sum vs "
                                   "the Rao-Blackwellised moments, scale max f^2")


def _total_variance_ge():
    rows = [(p, _toward(t, v, e) if t < v else t, v, s) for p, t, v, wi, e, s in _totvar_parts()]
    return instance_check(rows, ">=", 1e-10,
                          describe="V_K[f] >= V_q[E[f|.]] (the Rao-Blackwell gain >= 0)")


step("cis.totvar", check=_total_variance)
step("cis.totvar.ge", check=_total_variance_ge)
step("cis.exactvar",
     check=lambda: sym_equal((sp.Symbol("w0") * sp.Symbol("f0") + sp.Symbol("S") * sp.Symbol("fIS"))
                             / (sp.Symbol("w0") + sp.Symbol("S")),
                             (1 - sp.Symbol("w0") / (sp.Symbol("w0") + sp.Symbol("S")))
                             * sp.Symbol("fIS")
                             + sp.Symbol("w0") / (sp.Symbol("w0") + sp.Symbol("S"))
                             * sp.Symbol("f0")))


def _relative_rows(rows, tol):
    """Rows compared relative to the larger side (a relative difference above ``tol`` fails); the
    counterexample and the detail give the sides themselves."""
    scaled = [(p, a / max(abs(a), abs(b)), b / max(abs(a), abs(b))) for p, a, b in rows]
    o = first_failing(scaled, "=", tol)
    if o.status == WRONG:
        p, a, b = next(r for r in rows if r[0] is o.counterexample["at"])
        o = Outcome(
            WRONG, f"fails on an exact instance: relative difference "
                   f"{abs(a - b) / max(abs(a), abs(b)):.3g} > {tol:g} (lhs {a:.6g}, rhs {b:.6g}); "
                   f"{o.detail.rsplit('; ', 1)[-1]}",
            counterexample={"at": p, "lhs": float(a), "rhs": float(b)}, method="instances",
            instances=len(rows))
    return o


def _approx_var_rows():
    """V_q[E[f | z_t-1, z^(1:N)]] exactly vs (1 - r(z_t-1))^2 V_q[f_IS | z_t-1] in the regime
    w(z_t-1) >> w(z^(i)): q uniform on two points with normalised weights w = (1/2, 3/2), the
    current state off supp q with weight
    w0 = 1e6 and f0 = f(z_t-1) = 0; exact sums over the proposal multisets
    (simulate.finite._compositions)."""
    q = [Fraction(1, 2), Fraction(1, 2)]
    w = [Fraction(1, 2), Fraction(3, 2)]
    rows = []
    for f in ((0, 1), (1, 1)):
        for w0 in (10 ** 6, 10 ** 3):
            for n_prop in (1, 4):
                m = [Fraction(0)] * 5  # E[E[f|.]], E[E[f|.]^2], E[r], E[f_IS], E[f_IS^2]
                for c in F._compositions(n_prop, 2):
                    pr = Fraction(math.factorial(n_prop),
                                  math.factorial(c[0])
                                  * math.factorial(c[1])) * q[0] ** c[0] * q[1] ** c[1]
                    S = c[0] * w[0] + c[1] * w[1]
                    T = c[0] * w[0] * f[0] + c[1] * w[1] * f[1]
                    est, rej, fis = T / (w0 + S), Fraction(w0) / (w0 + S), T / S  # f0 = 0
                    for i, v in enumerate((est, est * est, rej, fis, fis * fis)):
                        m[i] += pr * v
                exact = m[1] - m[0] ** 2
                approx = (1 - m[2]) ** 2 * (m[4] - m[3] ** 2)
                rows.append(({"q": [0.5, 0.5], "w": [0.5, 1.5], "f": list(f), "f(z_t-1)": 0,
                              "w(z_t-1)": w0,
                              "N": n_prop,
                              "sides": "times w(z_t-1)^2"}, float(exact * w0 ** 2),
                             float(approx * w0 ** 2)))
    return rows


def _approx_var():
    return _relative_rows(_approx_var_rows(), 0.1)


def _remainder_searched(N, wmax, w0):
    """The remainder of cis.approxvar's correction over B = N w_max^2 F^2/w0^2: 2 N w_max/w0 (the
    form
    2 N^2 w_max^3 F^2/w0^3, its constant 2 from a search)."""
    return 2 * N * wmax / w0


def _remainder_proved(N, wmax, w0):
    """The proved remainder over B: 2 N^(3/2) w_max/w0 + N^3 w_max^2/w0^2 (Cauchy-Schwarz, see
    cis.approxvar).
    """
    return 2 * N ** 1.5 * wmax / w0 + N ** 3 * wmax ** 2 / w0 ** 2


REMAINDER = _remainder_searched


def _approx_var_corrected():
    """|V - N V_q[Y]/w0^2| <= 2 N^(5/2) w_max^3 F^2/w0^3 + N^4 w_max^4 F^2/w0^4, both sides divided
    by
    B = N w_max^2 F^2/w0^2; the current state off supp q (weight w0, f(z_t-1) = f0)."""
    rows = []
    for pi, q, f in _pqf():
        w = pi / q
        for w0 in free("w0", [1e3, 1e6], W0_DOM):
            for f0 in free("f0", [0.0], Real(-1.0, 1.0)):
                for N in _N((1, 4, 30)):
                    Nu = kit.n_max(pi.size, int(N))
                    d = np.asarray(f, float) - float(f0)
                    F_ = float(np.abs(d).max())
                    if F_ == 0:
                        continue
                    _, V, _, _ = kit.ratio_moments(q, w, d, Nu, w0=float(w0))
                    Y = w * d
                    lead = Nu * float(q @ (Y - q @ Y) ** 2) / float(w0) ** 2
                    wmax = float(w.max())
                    B = Nu * wmax ** 2 * F_ ** 2 / float(w0) ** 2
                    rhs = REMAINDER(Nu, wmax, float(w0))
                    err = 64 * U * (V + lead) * 10 / B  # the exact sum's rounding, relative to V
                    p = {"M": pi.size, "w0": float(w0), "f0": float(f0), "N": int(N), "N used": Nu,
                         "w_max": wmax}
                    rows.append((p, max(abs(V - lead) / B - err, 0.0), rhs))
    return instance_check(rows, "<=", 1e-12,
                          describe="|V - N V_q[Y]/w0^2| / (N w_max^2 F^2/w0^2) against the "
                                   "remainder bound (exact sums over the proposal counts)")


step("cis.approxvar", check=_approx_var, corrected=_approx_var_corrected)


# ============================================================================= §Bias-variance:
# rejection rates
GAUSS_FIXED = [(1, 0.5, 1.0), (1, 0.0, 2.0), (3, 1.0, 1.5), (10, 0.3, 0.8), (1, 2.0, 0.5),
               (1, 0.0, 1.0)]


def _gauss():
    return searchable("cis_gauss", GAUSS_FIXED)


def _marginal_rows(bound):
    """Rows (params, r, bound(KL(p||q), KL(q||p))) for the marginal IMH rejection rate at
    stationarity: finite pairs
    (r = sum_x pi_x lambda(w_x), exact) and Gaussian pairs (kit.gauss_rejection, moved down by its
    error)."""
    rows = []
    for pi, q in _pairs():
        r = float(pi @ kit.imh_rejection(pi, q))
        kpq, kqp = kit.kl_finite(pi, q)
        rows.append(({"space": "finite", "pi": _r(pi), "q": _r(q), "KL(p||q)": kpq},
                     max(r - 64 * U, 0.0),
                     bound(kpq, kqp)))
    for D, m, s in _gauss():
        r, e = kit.gauss_rejection(D, m, s)
        kpq, kqp = kit.gauss_kl(D, m, s)
        rows.append(({"space": "Gaussian", "D": int(D), "m": float(m), "s": float(s),
                      "KL(p||q)": kpq},
                     max(r - e, 0.0), bound(kpq, kqp)))
    return rows


def _rejection_kl_symmetric():
    rows = _marginal_rows(lambda a, b: math.sqrt((a + b) / 2))
    return instance_check(rows, "<=", 1e-12,
                          describe="marginal IMH rejection at stationarity, finite and Gaussian "
                                   "pairs")


def _rejection_kl_dropped():
    rows = []
    for m, s in ((0.1, 1.0), (0.25, 1.0), (0.5, 1.0), (1.0, 1.0), (0.0, 2.0)):
        r, e = kit.gauss_rejection(1, m, s)
        kpq, _ = kit.gauss_kl(1, m, s)
        rows.append(({"p": "N(0, 1)", "q": f"N({m:g}, {s:g}^2)", "m": m, "s": s}, r - e,
                     math.sqrt(kpq / 2)))
    return first_failing(
        rows, "<=", 1e-12, "Gaussian pairs")


def _rej_bound_corrected():
    rows = _marginal_rows(lambda a, b: min(1.0, math.sqrt(2 * a)))
    return instance_check(rows, "<=", 1e-12,
                          describe="r <= min(1, sqrt(2 KL(p||q))) (no weaker than the trivial r <= "
                                   "1)")


def _metropolis_row(p, q, x):
    """(r(x), d_TV(K(x, .), p)) for the Metropolis IMH kernel (r = lambda(w(x)), the rejection
    probability).
    """
    w = F.weights(p, q)
    K = F.imh_matrix(p, q)
    return F.imh_lambda(p, q, float(w[x])), 0.5 * float(np.abs(K[x] - p).sum())


def _barker_row(p, q, x, n_prop=1):
    """(r(x), d_TV(K(x, .), p)) for the CIS (Barker) kernel with ``n_prop`` proposals."""
    K = F.cis_matrix(p, q, n_prop + 1)
    acc, _, _ = kit.acceptance(p, q, n_prop)
    return 1 - float(acc[x]), 0.5 * float(np.abs(K[x] - p).sum())


def _wang_atoms():
    """r(z) <= d_TV(K(z, .), p) on finite spaces (p has atoms), Metropolis and CIS/Barker
    kernels.
    """
    rows = []
    for kind, p_t, q_t, x in (("Metropolis IMH", (0.5, 0.5), (0.9, 0.1), 1),
                              ("CIS/Barker, 1 proposal", (0.9, 0.1), (0.9, 0.1), 0),
                              ("CIS/Barker, 1 proposal", (0.5, 0.5), (0.5, 0.5), 0)):
        p, q = np.array(p_t), np.array(q_t)
        r, tv = (_metropolis_row if kind.startswith("Metropolis") else _barker_row)(p, q, x)
        rows.append(({"kernel": kind, "p": [float(v) for v in p], "q": [float(v) for v in q],
                      "x (0-based)": x}, r, tv))
    return first_failing(
        rows, "<=", 1e-12, "finite spaces (p has atoms)")


def _tv_rows(sup_over_f: bool = False):
    """max(0, r(x) - p({x})) against d_TV(K(x, .), p) at every state, Metropolis IMH and CIS with N
    proposals;
    with ``sup_over_f`` the TV is computed as sup_{|f| <= 1} |E_K f - E_p f|/2, attained at f =
    sign(K(x, .) - p)."""
    rows = []
    for pi, q in _pairs():
        Km = F.imh_matrix(pi, q)
        rm = kit.imh_rejection(pi, q)
        kernels = [("Metropolis IMH", 1, Km, rm, np.full(pi.size, 64 * U))]
        for N in _N((1, 4)):
            Nu = kit.feasible_N(pi, q, int(N))
            Kc, kerr = kit.kernel(pi, q, Nu)
            acc, aerr, _ = kit.acceptance(pi, q, Nu)
            kernels.append((f"CIS, {Nu} proposals", int(N), Kc, 1 - acc, aerr + kerr * pi.size))
        for name, N, K, r, err in kernels:
            for x in range(pi.size):
                if sup_over_f:
                    fstar = np.sign(K[x] - pi)
                    tv = 0.5 * abs(float(K[x] @ fstar - pi @ fstar))
                else:
                    tv = 0.5 * float(np.abs(K[x] - pi).sum())
                lhs = max(0.0, float(r[x] - pi[x]) - float(err[x]))
                rows.append(({"kernel": name, "M": pi.size, "x": x, "N": int(N)}, lhs, tv, 1.0))
    return rows


def _wang_corrected():
    rows = _tv_rows()
    return instance_check(rows, "<=", 1e-12,
                          describe="max(0, r(x) - p({x})) <= d_TV(K(x, .), p) (no weaker than the "
                                   "trivial 0 <= d_TV), every state")


step("imh.neklyudov", check=_rejection_kl_symmetric)
step("imh.rej_bound", check=_rejection_kl_dropped, corrected=_rej_bound_corrected)
step("imh.wang", check=_wang_atoms, corrected=_wang_corrected)


def _cis_rejection_floor():
    """The CIS (Barker) kernel at q = p (both KL divergences 0): its rejection probability is 1/(N +
    1).
    """
    rows = []
    p = np.array([0.5, 0.5])
    for n_prop in (1, 10, 100):
        acc, _, _ = kit.acceptance(p, p, n_prop)
        rows.append(({"kernel": "CIS/Barker", "p": "q = (1/2, 1/2)", "N proposals": n_prop,
                      "KL": 0},
                     1 - float(acc[0]), 0.0))
    return first_failing(
        rows, "<=", 1e-12, "exact CIS rejection at q = p")


def _cis_floor_corrected():
    rows = []
    for pi, q in _pairs():
        for N in _N((1, 4, 30)):
            acc, err, how = kit.acceptance(pi, q, int(N))
            rbar = float(pi @ (1 - acc))
            e = float(pi @ err)
            rows.append(({"M": pi.size, "N": int(N), "acceptance by": how},
                         _toward(rbar, 1 / (N + 1), e) if
                         rbar < 1 / (N + 1) else rbar, 1 / (N + 1)))
    return instance_check(rows, ">=", 1e-12,
                          describe="marginal CIS rejection E_p[r(z)] >= 1/(N + 1), equality at q = "
                                   "p")


def _bias_needs_low_r():
    """'a low rejection rate is a necessary condition for the bias to decrease': states with zero
    bias of f
    and rejection 1/2 (CIS/Barker, q = p, one proposal)."""
    rows = []
    for p, f in ((np.array([0.5, 0.5]), np.array([1.0, 1.0])),
                 (np.full(3, 1 / 3), np.array([0.0, 1.0, -1.0]))):
        K = F.cis_matrix(p, p, 2)
        acc, _, _ = kit.acceptance(p, p, 1)
        rows.append(({"kernel": "CIS/Barker, 1 proposal",
                      "p": "q = " + str([round(float(v), 6) for v in p]),
                      "f": [float(v) for v in f],
                      "z_t-1": 0}, 1 - float(acc[0]), abs(float(K[0] @ f - p @ f))))
    return first_failing(
        rows, "<=", 1e-12, "r(z_t-1) vs the bias |E_K f - E_p f| (zero)")


def _bias_corrected():
    rows = _tv_rows(sup_over_f=True)
    return instance_check(rows, "<=", 1e-12,
                          describe="max(0, r(x) - p({x})) <= sup_{|f|<=1} |E_K f - E_p f|/2 "
                                   "(attained at f = sign(K(x, .) - p)), every state")


step("imh.cis_floor", check=_cis_rejection_floor, corrected=_cis_floor_corrected)
step("imh.bias_necessary", check=_bias_needs_low_r, corrected=_bias_corrected)


# ============================================================================= §Parallel IMH: the
# acceptance bound
def _acc_bound():
    """1 - r(x) = E_q[S/(w_x + S)] <= N/(w_x + N) at every state (normalised weights): exact sums
    (Laplace
    quadrature beyond the budget), moved down by their error."""
    rows = []
    for pi, q in _pairs():
        w = pi / q
        for N in _N((1, 2, 5, 100)):
            acc, err, how = kit.acceptance(pi, q, int(N))
            for x in range(pi.size):
                b = _b("cis_acceptance_bound", "acceptance_rate", N=int(N), w=float(w[x]))
                a = float(acc[x])
                rows.append(({"M": pi.size, "N": int(N), "w": float(w[x]), "by": how},
                             _toward(a, b, float(err[x])) if a > b else a, b))
    return instance_check(rows, "<=", 1e-12,
                          describe="exact acceptance rates, every state, normalised w")


def _unnormalised_model():
    """A model with evidence p(x) > 1: z in {0, 1}, p(z) = 1/2, x | z ~ N(mu_z, 0.1^2), mu = (0,
    0.1), x = 0 observed;
    q = (0.9, 0.1).  Returns (p(z | x), q, p(x), w~ = p(z, x)/q(z))."""
    lik = np.array([math.exp(-0.5 * (0.0 - mu) ** 2 / 0.01) / (0.1 * math.sqrt(2 * math.pi))
                    for mu in (0.0, 0.1)])
    joint = 0.5 * lik
    Z = float(joint.sum())
    q = np.array([0.9, 0.1])
    return joint / Z, q, Z, joint / q


def _acc_bound_unnormalised():
    """The printed bound with 003's own w = p(z, x)/q(z): the acceptance rate does not depend on the
    evidence
    p(x), the bound N/(w + N) does; for p(x) > 1 it fails."""
    post, q, Z, wt = _unnormalised_model()
    rows = []
    for N in (1, 2, 5):
        acc, err, _ = kit.acceptance(post, q, N)
        rows.append(({"model": "z in {0,1}, p(z) = 1/2, x|z ~ N(mu_z, 0.01), mu = (0, 0.1), x = 0",
                      "q": [0.9, 0.1],
                      "p(x)": Z, "z_t-1": 0, "w(z_t-1) = p(z, x)/q(z)": float(wt[0]), "N": N},
                     float(acc[0]) - float(err[0]),
                     _b("cis_acceptance_bound", "acceptance_rate", N=N, w=float(wt[0]))))
    return first_failing(
        rows, "<=", 1e-12,
        "exact acceptance (weight ratios only) vs N/(w + N) with w = p(z, x)/q(z)")


def _acc_bound_unnormalised_corrected():
    rows = []
    for pi, q in _pairs():
        for Z in free("Z", [0.1, 3.2, 1e3], Real(1e-12, 1e12, log=True)):
            wt = float(Z) * pi / q  # 003's w = p(z, x)/q(z) = p(x) pi/q
            for N in _N((1, 5)):
                acc, err, _ = kit.acceptance(pi, q, int(N))
                for x in range(pi.size):
                    b = int(N) * float(Z) / (wt[x] + int(N) * float(Z))
                    a = float(acc[x])
                    rows.append(({"M": pi.size, "p(x)": float(Z), "N": int(N), "x": x},
                                 _toward(a, b, float(err[x])) if a > b else a, b))
    return instance_check(rows, "<=", 1e-12,
                          describe="1 - r <= N p(x)/(w + N p(x)), w = p(z, x)/q(z)")


step("cis.accbound", check=_acc_bound)
step("cis.accbound.unnorm", check=_acc_bound_unnormalised, reading=UNNORMALISED,
     corrected=_acc_bound_unnormalised_corrected)


def _h14_pair(eps: Fraction):
    """H14's pair: pi = (1 - eps - eps^2, eps^2, eps), q = (eps, 1 - 2 eps, eps); z_t-1 = the state
    of weight 1.
    """
    pi = np.array([float(1 - eps - eps * eps), float(eps * eps), float(eps)])
    q = np.array([float(eps), float(1 - 2 * eps), float(eps)])
    return pi, q


def _tightness_rows(pairs_x, tau):
    rows = []
    for label, pi, q, x, N in pairs_x:
        acc, err, _ = kit.acceptance(pi, q, N)
        w = pi / q
        b = _b("cis_acceptance_bound", "acceptance_rate", N=N, w=float(w[x]))
        rows.append(({"instance": label, "pi": _r(pi), "q": _r(q), "x": x, "w(x)": float(w[x]),
                      "N": N,
                      "acceptance": float(acc[x]), "bound": b, "threshold": tau},
                     (float(acc[x]) + float(err[x])) / b,
                     tau))
    return rows


def _tight_general():
    """'which in general is very tight', read over every state: acceptance/bound >= tau; 'very
    tight' is read as tau in [0.8, 0.95]; the check uses tau = 1/2 (a factor 2, more lenient than
    the range), so failing here fails
    the whole range."""
    inst = [("H14, eps = 1/1000", *_h14_pair(Fraction(1, 1000)), 2, 1),
            ("H14, eps = 1/100", *_h14_pair(Fraction(1, 100)), 2, 1),
            ("H14, eps = 1/1000", *_h14_pair(Fraction(1, 1000)), 2, 5)]
    return first_failing(
        _tightness_rows(inst, 0.5), ">=", 1e-12, "exact acceptance / N/(w + N)")


def _tight_general_corrected():
    rows = []
    for pi, q in _pairs():
        w = pi / q
        for N in _N((1, 3, 20)):
            acc, err, _ = kit.acceptance(pi, q, int(N))
            for x in range(pi.size):
                # w_x + W + (N - 1), the integer first: ((w_x + W) + N) - 1 would cancel the digits
                # of a tiny w_x + W against 1 (as in cis.acc.linear)
                lower = int(N) * float(q @ (w / (w[x] + w + (int(N) - 1))))
                a = float(acc[x])
                rows.append(({"M": pi.size, "N": int(N), "x": x, "w": float(w[x])}, lower,
                             _toward(a, lower, float(err[x])) if a < lower else a))
    return instance_check(rows, "<=", 1e-12,
                          describe="N E_q[W/(w + W + N - 1)] <= 1 - r(x) (no weaker than 0)")


def _tight_max():
    """The reading restricted to the state where §Parallel IMH applies the bound ('when w(z_t-1) is
    very large'): the
    state of largest weight; threshold tau = 0.8 (the lower end of the range [0.8, 0.95] for 'very
    tight')."""
    inst = []
    for pi0 in (0.9, 0.99):
        pi, q = F.hard_instance(3, 1e4, seed=0, pi0=pi0)
        inst.append((f"hard_instance(3, w* = 1e4, pi0 = {pi0})", pi, q, 0, 1))
    return first_failing(
        _tightness_rows(inst, 0.8), ">=", 1e-12, "exact acceptance / N/(w + N) at the w*-state")


def _tight_max_corrected():
    rows = []
    for pi, q in _pairs():
        w = pi / q
        x = int(np.argmax(w))
        for N in _N((1, 3, 20)):
            acc, err, _ = kit.acceptance(pi, q, int(N))
            lower = int(N) / (2 * (float(w[x]) + (int(N) - 1)))
            a = float(acc[x])
            rows.append(({"M": pi.size, "N": int(N), "w*": float(w[x])}, lower,
                         _toward(a, lower, float(err[x])) if a < lower else a))
    return instance_check(rows, "<=", 1e-12,
                          describe="N/(2 (w* + N - 1)) <= 1 - r(z*) at the w*-state")


step("cis.accbound.tight", check=_tight_general, corrected=_tight_general_corrected)
step("cis.accbound.tight.max", check=_tight_max, corrected=_tight_max_corrected)


def _acc_linear():
    """'when w(z_t-1) is very large, the acceptance rate grows like O(N)': N (1 - r_1) w/(w + N - 1)
    <= 1 - r_N <=
    N (1 - r_1), r_N the rejection with N proposals (convexity of S -> W/(w + W + S); S_N increasing
    in N)."""
    rows = []
    for pi, q in _pairs():
        w = pi / q
        a1, e1, _ = kit.acceptance(pi, q, 1)
        for N in _N((2, 10, 1000)):
            aN, eN, how = kit.acceptance(pi, q, int(N))
            for x in range(pi.size):
                # w + (N - 1), the integer first: (w + N) - 1 would cancel w's digits against 1 when
                # w is tiny (w = 1e-8 loses 8 of them), and at N = 1 the factor must be exactly 1
                lo = int(N) * float(a1[x]) * float(w[x]) / (float(w[x]) + (int(N) - 1))
                hi = int(N) * float(a1[x])
                e = float(eN[x]) + int(N) * float(e1[x])
                p = {"M": pi.size, "N": int(N), "x": x, "w": float(w[x]), "by": how}
                a = float(aN[x])
                rows.append(({**p, "side": "lower"}, lo, _toward(a, lo, e) if a < lo else a))
                rows.append(({**p, "side": "upper"}, _toward(a, hi, e) if a > hi else a, hi))
    return instance_check(rows, "<=", 1e-12,
                          describe="N (1-r_1) w/(w+N-1) <= 1 - r_N <= N (1 - r_1): linear in N up "
                                   "to the factor w/(w + N - 1) -> 1 as w -> oo")


def _mitigate():
    """'This effect cannot in general be mitigated by increasing N': by cis.accbound an acceptance
    rate a needs
    N >= a w/(1 - a), linear in w(z_t-1) (sympy: N/(w + N) = a at N = a w/(1 - a), and N/(w + N)
    increases in N)."""
    a, wv = sp.symbols("a w", positive=True)
    Nmin = a * wv / (1 - a)
    return sym_equal(Nmin / (wv + Nmin), a,
                     domain={a: Real(1e-9, 1 - 1e-9), wv: Real(1.0, 1e12, log=True)})


step("cis.acc.linear", check=_acc_linear)
step("cis.mitigate", check=_mitigate)


# ============================================================================ §Parallel IMH: the
# variance of CIS with N
def _growth_witness():
    """'The variance of CIS can increase with N' (an existence statement): an exact rational
    witness.  pi = (3/10, 7/10), q = (3/10000, 9997/10000) (w(0) = 1000), z_t-1 = 0, f = (0, 1) (a
    coordinate of the softmax score, up to
    sign and shift): V_q[E[f | z_t-1, z^(1:N)]] for N = 1..5 by the exact sum over the proposal counts."""  # noqa: E501
    pi = [Fraction(3, 10), Fraction(7, 10)]
    q = [Fraction(3, 10000), Fraction(9997, 10000)]
    w = [a / b for a, b in zip(pi, q)]
    f = [Fraction(0), Fraction(1)]
    V = []
    for N in range(1, 6):
        m1 = m2 = Fraction(0)
        for c in F._compositions(N, 2):
            pr = Fraction(math.comb(N, c[0])) * q[0] ** c[0] * q[1] ** c[1]
            g = (w[0] * f[0] + c[0] * w[0] * f[0] + c[1] * w[1]
                 * f[1]) / (w[0] + c[0] * w[0] + c[1] * w[1])
            m1 += pr * g
            m2 += pr * g * g
        V.append(m2 - m1 * m1)
    rows = [({"pi": [0.3, 0.7], "q": [3e-4, 0.9997], "w(z_t-1)": 1000, "f": [0, 1], "N": N,
              "N + 1": N + 1},
             float(V[N - 1]), float(V[N])) for N in range(1, 5)]
    o = instance_check(rows, "<", 0.0,
                       describe="an existence statement: one exact rational witness proves it",
                       complete=True)
    o.detail += "; exact V(1..5) = " + ", ".join(f"{float(v):.6g}" for v in V)
    return o


def _growth_rows(N_list, w=1e6):
    """Hard instance on two states (w(0) = w, pi(0) = 0.3), z_t-1 = 0, f = (0, 1): V(N) by
    simulate.finite.moments_msc_rb
    (the exact sum)."""  # noqa: E501
    pi, q = F.hard_instance(2, w, seed=0)
    f = np.array([0.0, 1.0])
    return pi, q, f, {N: F.moments_msc_rb(pi, q, f, 0, N + 1).variance for N in N_list}


def _growth_linear():
    """'when w(z_t-1) is very large, the conditional variance of CIS approximately grows linearly
    with N', read as a local exponent a = log2(V(2N)/V(N)) within 1 +- eta, with the most lenient
    eta = 1 of the range [0.1, 1]: V(2N)/V(N)
    <= 4, at N << w (w = 1e6, N <= 100: 'very large' for any w/N threshold up to 1e4)."""
    Ns = (10, 100, 1)
    pi, q, f, V = _growth_rows(sorted(set(Ns) | {2 * n for n in Ns}))
    rows = [({"pi": [0.3, 0.7], "w(z_t-1)": 1e6, "z_t-1": 0, "f": [0, 1], "N": N, "V(N)": V[N],
              "V(2N)": V[2 * N],
              "exponent": math.log2(V[2 * N] / V[N])}, V[2 * N] / V[N], 4.0) for N in Ns]
    # the premise w(z_t-1) >> w(z^(i)) for every proposal: z_t-1 off the support of q (weight w0 >=
    # 200 max w), q = (1/99, 98/99), w = (50, 1/2) (E_q w = 1), f - f(z_t-1) = (1/100, 1): w (f -
    # f(z_t-1)) is constant on supp q
    qo, wo, fo = np.array([1 / 99, 98 / 99]), np.array([50.0, 0.5]), np.array([0.01, 1.0])
    for w0, N in ((1e4, 10), (1e6, 100)):
        v1 = kit.ratio_moments(qo, wo, fo, N, w0=w0)[1]
        v2 = kit.ratio_moments(qo, wo, fo, 2 * N, w0=w0)[1]
        rows.append(({"q": [1 / 99, 98 / 99], "w": [50.0, 0.5], "w(z_t-1) (off supp q)": w0,
                      "f - f(z_t-1)": [0.01, 1.0],
                      "N": N, "V(N)": v1, "V(2N)": v2, "exponent": math.log2(v2 / v1)}, v2 / v1,
                     4.0))
    return first_failing(
        rows, "<=", 1e-9, "V(2N)/V(N) at states of weight 1e4..1e6 (exact sums)")


def _envelope():
    """V_q[E[f | z_t-1, z^(1:N)]] <= F^2 (1 - r(z_t-1)) <= F^2 N/(w + N): E[f|.] - f(z_t-1) = (1 -
    r(.|z^(1:N))) (f_IS - f(z_t-1)), (1 - r)^2 <= 1 - r, and cis.accbound.  Every state, N up to
    10^4 (moments_msc_rb: the exact sum
    or its Gauss-Legendre quadrature)."""
    rows = []
    for pi, q, f in _pqf():
        w = pi / q
        f = np.asarray(f, float)
        for N in _N((1, 3, 30)):
            acc, aerr, how = kit.acceptance(pi, q, int(N))
            for x in range(pi.size):
                m = kit.rb_moments(pi, q, f - f[x], x, int(N))
                F2 = float(np.max((f - f[x]) ** 2))
                if F2 == 0:
                    continue
                p = {"M": pi.size, "N": int(N), "x": x, "w": float(w[x]), "F^2": F2}
                v = m.variance / F2
                verr = (m.error * 3 + 64 * U * m.second) / F2
                a = float(acc[x])
                rows.append(({**p, "pair": "V/F^2 <= 1 - r"},
                             _toward(v, a, verr + float(aerr[x])) if v > a else v, a))
                b = int(N) / (float(w[x]) + int(N))
                rows.append(({**p, "pair": "1 - r <= N/(w + N)"},
                             _toward(a, b, float(aerr[x])) if a > b else a, b))
    return instance_check(rows, "<=", 1e-12,
                          describe="V/F^2 <= 1 - r <= N/(w + N) (no weaker than the trivial V <= "
                                   "F^2), every state")


#: 'approx.' in the last display read as 'within a factor c', c in this range (2: +-50% the lenient
#: way round; 10: an order of magnitude, as its underbraces 'approx. O(N^2)', 'approx. O(1/N)' speak
#: of orders)
APPROX_FACTOR = (2.0, 10.0)


def _growth_formula():
    """The last display, V_q[E[f | z_t-1, z^(1:N)]] ~ (1 - r(z_t-1))^2 V_q[f_IS], with its own
    ingredients computed exactly: the acceptance rate 1 - r(z_t-1) = E_q[S/(w + S)] (kit.acceptance)
    and the SNIS variance V_q[f_IS] of the N proposals (kit.ratio_moments, the exact multinomial
    sum); '~' within a factor c, c over
    :data:`APPROX_FACTOR`, the row at the strict end.  The hard two-state instance (w(z_t-1) = 1e6,
    z_t-1 = 0, f = (0, 1)), N = 10, 100, 1000.  (An earlier version substituted V_q[f_IS] =
    sigma^2/N, a constant the draft does
    not give: an independent recomputation showed that the orders-of-magnitude gap came from it.)"""
    Ns = (10, 100, 1000)
    pi, q, f, V = _growth_rows(Ns)
    w = pi / q
    rows = []
    for N in Ns:
        acc = float(kit.acceptance(pi, q, N)[0][0])
        vis = float(kit.ratio_moments(q, w, f, N)[1])
        A = acc ** 2 * vis
        rows.append(({"pi": [0.3, 0.7], "w(z_t-1)": 1e6, "f": [0, 1], "N": N, "V exact": V[N],
                      "1 - r": acc,
                      "V_q[f_IS]": vis, "(1 - r)^2 V_q[f_IS]": A}, max(V[N] / A, A / V[N]),
                     APPROX_FACTOR[0]))
    worst = max(r[1] for r in rows)
    o = first_failing(
        rows, "<=", 1e-9, "exact V vs (1 - r)^2 V_q[f_IS], both exact: the larger over the smaller",
        why=("with its own ingredients computed exactly the display is off by a factor of a few "
             "where proposals can hit z_t-1 (V_q[f_IS] then grows with N for N << w, against its "
             "label O(1/N)): "),
        correction="V_q[E[f | z_t-1, z^(1:N)]] <= F^2 N/(w(z_t-1) + N) (cis.suppress), a bound "
                   "rather than an approximation")
    o.detail += (
        f"; the largest factor is {worst:.3g}: the display fails for '~' read as within a factor c "
        f"< "
                 f"{worst:.3g} and holds on this instance for c >= {worst:.3g} (range "
                 f"{list(APPROX_FACTOR)}: the "
                 "verdict depends on the reading)")
    return o


def _snis():
    """'the variance of a SNIS estimator is known to approximately decrease in a rate of O(1/N)':
    V[f_IS] <= E_q[w^2] osc(f)^2 / N (Agapiou et al. 2017, Thm 2.1: MSE <= 4 E_q[w^2] ||f -
    c||_inf^2 / N), by the exact sum over
    the proposal counts (N up to 10^4 on two states, the largest N within the budget on more)."""
    rows = []
    for pi, q, f in _pqf():
        w = pi / q
        f = np.asarray(f, float)
        osc = float(f.max() - f.min())
        if osc == 0:
            continue
        for N in _N((1, 10, 100)):
            Nu = kit.n_max(pi.size, int(N))
            _, V, _, _ = kit.ratio_moments(q, w, f - float(pi @ f), Nu)
            rhs = float(q @ w ** 2) * osc ** 2 / Nu
            rows.append(({"M": pi.size, "N": int(N), "N used": Nu, "E_q w^2": float(q @ w ** 2)},
                         V * (1 - 1e-12), rhs))
    return instance_check(rows, "<=", 1e-12, describe="exact SNIS variance vs E_q[w^2] osc(f)^2/N")


step("cis.growth", check=_growth_witness, reading=GROWS)
step("cis.growth.linear", check=_growth_linear, reading=LINEAR, corrected=_envelope)
step("cis.growth.formula", check=_growth_formula, reading=FORMULA, corrected=_envelope)
step("cis.suppress", check=_envelope)
step("snis.rate", check=_snis)


# ============================================================================= §Parallel IMH: PIMH
def _pimh_variance():
    """V[(1/N) sum_i f(z_t^(i)) | z_t-1^(1:N)] from the chains' joint law, enumerated from each
    chain's own proposal and acceptance (003's PIMH: one IMH step per chain, F.imh_matrix rows),
    against (1/N^2) sum_i V[f(z_t^(i)) | z_t-1^(i)]; chains at states x_i = i mod M, N <= 4 chains
    (M^N joint outcomes); the right-hand side is
    <= max_x V_K(x)[f] / N (O(1/N))."""
    rows = []
    for pi, q, f in _pqf():
        K = F.imh_matrix(pi, q)
        f = np.asarray(f, float)
        M = pi.size
        for N in free("N chains", [2, 3], Int(1, 4)):
            xs = [i % M for i in range(int(N))]
            joint = F.product_law([K[x] for x in xs])
            mean_vals = np.zeros(joint.shape)
            for idx in itertools.product(range(M), repeat=int(N)):
                mean_vals[idx] = np.mean([f[j] for j in idx])
            m = float((joint * mean_vals).sum())
            lhs = float((joint * (mean_vals - m) ** 2).sum())
            per = [float(K[x] @ f ** 2 - (K[x] @ f) ** 2) for x in xs]
            rhs = sum(per) / int(N) ** 2
            rows.append(({"M": M, "N chains": int(N), "states": xs}, lhs, rhs,
                         float(np.max(f * f))))
    return instance_check(rows, "=", 1e-12,
                          describe="variance of the PIMH average from the joint law vs the average "
                                   "of the chains' variances / N")


def _pimh_dependence():
    """PIMH with N = 2 Metropolis-IMH chains on {0, 1}, p = (0.2, 0.8), q_lambda =
    Bernoulli(sigmoid(lambda)), lambda_t = lambda_t-1 + gamma mean_i s(z_t^(i); lambda_t-1), s = z -
    sigmoid(lambda), lambda_0 = -1,
    gamma = 3, z_0^(i) i.i.d. Bernoulli(1/2): the exact joint law of (z_2^(1), z_2^(2))."""
    p = np.array([0.2, 0.8])
    sig = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    K = lambda lam: F.imh_matrix(p, np.array([1 - sig(lam), sig(lam)]))  # noqa: E731
    lam0, gam = -1.0, 3.0
    K0 = K(lam0)
    law = np.zeros((2, 2))
    for z0 in itertools.product((0, 1), repeat=2):
        for z1 in itertools.product((0, 1), repeat=2):
            p1 = 0.25 * K0[z0[0], z1[0]] * K0[z0[1], z1[1]]
            K1 = K(lam0 + gam * np.mean([z - sig(lam0) for z in z1]))
            law += p1 * np.outer(K1[z1[0]], K1[z1[1]])
    e1, e2 = law.sum(1)[1], law.sum(0)[1]
    cov = law[1, 1] - e1 * e2
    rows = [({"p": [0.2, 0.8], "q_lambda": "Bernoulli(sigmoid(lambda))", "lambda_0": lam0,
              "gamma": gam, "N": 2, "t": 2,
              "z_0": "i.i.d. Bernoulli(1/2)"}, float(cov), 0.0)]
    return first_failing(
        rows, "=", 1e-12, "exact joint law of the two chains at t = 2")


def _pimh_conditional():
    """The correction: given lambda_t-1 and the previous states (x1, x2), the two chains' next
    states are independent: their joint law, enumerated from both chains' proposals (y1, y2) ~ q x q
    and acceptance decisions, equals the
    product of the IMH kernel's rows; every pair of previous states."""
    rows = []
    for pi, q in _pairs():
        w = pi / q
        K = F.imh_matrix(pi, q)
        M = pi.size
        for x1, x2 in itertools.product(range(M), repeat=2):
            joint = np.zeros((M, M))
            for y1, y2 in itertools.product(range(M), repeat=2):
                a1, a2 = min(1.0, w[y1] / w[x1]), min(1.0, w[y2] / w[x2])
                for A1, A2 in itertools.product((0, 1), repeat=2):
                    pr = q[y1] * q[y2] * (a1 if A1 else 1 - a1) * (a2 if A2 else 1 - a2)
                    joint[y1 if A1 else x1, y2 if A2 else x2] += pr
            rows.append(({"M": M, "previous states": [x1, x2]},
                         float(np.abs(joint - np.outer(K[x1], K[x2])).max()),
                         0.0, 1.0))
    return instance_check(rows, "=", 1e-13,
                          describe="max |joint - K(x1, .) x K(x2, .)| = 0, probabilities")


step("pimh.variance", check=_pimh_variance)
step("pimh.independent", check=_pimh_dependence, corrected=_pimh_conditional)


# ============================================================================= §Parallel IMH:
# convergence diagnostics
def _rdiag_unbiased():
    """The r-diagnostic: a chain's rejection indicator vs the marginal rejection rate r = E_{z ~ p}
    r(z),
    Metropolis IMH, p = (1/2, 1/2), q = (9/10, 1/10), chains sitting at one state (not yet
    mixed)."""
    p, q = np.array([0.5, 0.5]), np.array([0.9, 0.1])
    w = F.weights(p, q)
    rz = [F.imh_lambda(p, q, float(w[x])) for x in range(2)]
    marginal = float(p @ rz)
    rows = [({"p": [0.5, 0.5], "q": [0.9, 0.1], "chains at": x}, rz[x], marginal) for x in range(2)]
    return first_failing(
        rows, "=", 1e-12, "E[rejection indicator | chain at x] vs r")


def _rdiag_corrected():
    rows = []
    for pi, q in _pairs():
        rows.append(({"M": pi.size, "pi": _r(pi), "q": _r(q)}, float(pi @ kit.imh_rejection(pi, q)),
                     kit.marginal_rejection_tv(pi, q), 1.0))
    return instance_check(rows, "=", 1e-12,
                          describe="E_p[lambda(w(z))] vs 1 - sum_xy min(pi_x q_y, pi_y q_x)")


def _rdiag_noise():
    """'the r-diagnostic tend to be highly noisy': at stationarity the N chains' rejection
    indicators are independent Bernoulli(r), r = E_p[r(z)] (the per-state rejection of
    F.imh_lambda), so the r-diagnostic (their mean) has
    coefficient of variation sqrt(V[I]/N)/r = sqrt((1 - r)/(N r)), V[I] = E_p[r(z)] - r^2 from the
    per-state law."""
    rows = []
    for pi, q in _pairs():
        rz = kit.imh_rejection(pi, q)
        r = float(pi @ rz)
        if r <= 0:
            continue
        VI = float(pi @ rz) - r * r  # E[I^2] = E[I] for an indicator
        for N in _N((10, 100)):
            cv = math.sqrt(VI / int(N)) / r
            rows.append(({"M": pi.size, "N chains": int(N), "r": r}, cv,
                         math.sqrt((1 - r) / (int(N) * r))))
    return instance_check(rows, "=", 1e-12,
                          describe="coefficient of variation of the r-diagnostic at stationarity")


step("rdiag.unbiased", check=_rdiag_unbiased, corrected=_rdiag_corrected)
step("rdiag.noise", check=_rdiag_noise)


# ============================================================================= §MCMC in MSC
def _eq1_h15():
    """Eq. (1)'s first '=' read as an identity in expectation at finite T: E[(1/T) sum_t f(z_t)] = E
    f(z_t).  Exact
    IMH chain (simulate.finite.imh_matrix) with pi = (1/2, 3/10, 1/5), q = (1/5, 3/10, 1/2), z_0 = 0, f = 1{0}, T = 3."""  # noqa: E501
    pi, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    K = F.imh_matrix(pi, q)
    f = np.array([1.0, 0.0, 0.0])
    _, laws = kit.averaged_tv(K, 0, pi, 3)
    Ef = [float(mu @ f) for mu in laws]
    avg = sum(Ef) / 3
    rows = [({"pi": [0.5, 0.3, 0.2], "q": [0.2, 0.3, 0.5], "z_0": 0, "f": "1{z = 0}", "T": 3,
              "t": t + 1}, avg, Ef[t])
            for t in range(3)]
    return first_failing(
        rows, "=", 1e-12, "E[(1/T) sum_t f(z_t)] vs E f(z_t) (exact IMH chain)")


def _eq1_corrected():
    rows = []
    for pi, q in _pairs():
        K = F.imh_matrix(pi, q)
        w = pi / q
        r = 1 - 1 / float(w.max())
        for T in free("T", [1, 3, 50], T_DOM):
            T = int(T)
            bound = r * (1 - r ** T) / (T * (1 - r)) if r > 0 else 0.0
            tv, _ = kit.averaged_tv_all(K, pi, T)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "T": T, "z_0": x, "w*": float(w.max())},
                             max(float(tv[x]) - 64 * U * T, 0.0), bound, 1.0))
    return instance_check(rows, "<=", 1e-12,
                          describe="sup_{osc f <= 1} |E[(1/T) sum f(z_t)] - E_p f| = TV of the "
                                   "averaged law, vs r (1 - r^T)/(T (1 - r)) (<= 1)")


def _tower():
    """Eq. (1), second '=': E f(z_t) = E[E_{K(z_t-1, .)}[f | z_t-1]] (the tower property): e_x K^t f
    (matrix power)
    against (e_x K^(t-1)) (K f), IMH kernel, every start state."""
    rows = []
    for pi, q, f in _pqf():
        K = F.imh_matrix(pi, q)
        f = np.asarray(f, float)
        for t in free("t", [1, 2, 7], T_DOM):
            t = int(t)
            Kt = np.linalg.matrix_power(K, t)
            Kt1 = np.linalg.matrix_power(K, t - 1)
            for x in range(pi.size):
                rows.append(({"M": pi.size, "t": t, "z_0": x}, float(Kt[x] @ f),
                             float(Kt1[x] @ (K @ f)),
                             float(np.abs(f).max())))
    return instance_check(rows, "=", 1e-11,
                          describe="E f(z_t) = E[E[f(z_t) | z_t-1]], scale max |f|")


def _stationary():
    """z_t-1 ~ p gives E f(z_t) = E_p f for the IMH kernel and the CIS kernel with N proposals (both
    p-invariant for every q_lambda): the reading of Eq. (1) as an estimator at stationarity, Eq.
    (pimh) at stationarity, and 'the
    convergence of z would imply that the stochastic gradients are reliable'."""
    rows = []
    for pi, q, f in _pqf():
        f = np.asarray(f, float)
        sc = float(np.abs(f).max())
        Km = F.imh_matrix(pi, q)
        rows.append(({"kernel": "IMH", "M": pi.size}, float(pi @ Km @ f), float(pi @ f), sc))
        for N in _N((1, 5)):
            Nu = kit.feasible_N(pi, q, int(N))
            K, kerr = kit.kernel(pi, q, Nu)
            a, b = float(pi @ K @ f), float(pi @ f)
            rows.append(({"kernel": "CIS", "M": pi.size, "N": int(N), "N used": Nu},
                         _toward(a, b, 2 * pi.size * kerr * sc),
                         b, sc))
    return instance_check(rows, "=", 1e-12,
                          describe="E_{z_t-1 ~ p} E[f(z_t) | z_t-1] = E_p f, scale max |f|")


def _eq1_estimator():
    """Eq. (1) read as the CIS-as-IMH draft introduces it, 'the marginal estimator of f': at
    stationarity (z_0 ~ p) the average is unbiased, E[(1/T) sum_{t=1}^T f(z_t)] = E f(z_t) = E_p f
    for every t and T (IMH kernel; the laws p K^t by
    repeated products, compared on the scale max |f| with their rounding, 64 T M eps)."""  # noqa: E501
    rows = []
    for pi, q, f in _pqf():
        K = F.imh_matrix(pi, q)
        f = np.asarray(f, float)
        sc = float(np.abs(f).max())
        for T in free("T", [1, 3, 50], T_DOM):
            T = int(T)
            mu, acc = pi.copy(), 0.0
            for _ in range(T):
                mu = mu @ K
                acc += float(mu @ f)
            a, b = acc / T, float(pi @ f)
            rows.append(({"M": pi.size, "T": T, "z_0": "~ p"},
                         _toward(a, b, 64 * T * pi.size * U * sc), b, sc))
    return instance_check(rows, "=", 1e-12,
                          describe="E[(1/T) sum f(z_t)] = E_p f from a stationary start")


step("msc.eq1", check=_eq1_h15, corrected=_eq1_corrected)
step("msc.eq1.estimator", check=_eq1_estimator)
step("msc.eq1.tower", check=_tower)
step("imh.stationary", check=_stationary)


def _kl_gradient():
    """Eq. (2): grad_lambda KL(q_lambda || p) against E_{z ~ p}[s(z; lambda)] (the ideal case z_t ~
    p), q_lambda = N(lambda, 1), p = N(0, 2), s = d/dlambda log q_lambda = z - lambda.
    Gauss-Hermite (exact for
    these polynomial integrands): grad KL(q_lambda || p) = E_q[(log q - log p) s] (score
    identity)."""
    from scipy import stats

    x, wt = np.polynomial.hermite_e.hermegauss(40)
    wt = wt / wt.sum()
    rows = []
    for lam in (1.0, 0.5, 2.0):
        zq = lam + x  # z ~ q_lambda = N(lambda, 1)
        log_ratio = stats.norm.logpdf(zq, lam, 1.0) - stats.norm.logpdf(zq, 0.0, math.sqrt(2.0))
        grad_kl_qp = float(wt @ (log_ratio * (zq - lam)))
        e_p_s = float(wt @ (math.sqrt(2.0) * x - lam))  # z ~ p = N(0, 2)
        rows.append(({"q": "N(lambda, 1)", "p": "N(0, 2)", "lambda": lam}, grad_kl_qp, e_p_s))
    return first_failing(
        rows, "=", 1e-10, "Gaussian instances, Gauss-Hermite")


def _kl_gradient_corrected():
    """grad KL(p || q_lambda) = -E_p[s(z; lambda)], p = N(m, v^2), q_lambda = N(mu, sigma^2), lambda
    = (mu, log sigma):
    both components by sympy (closed-form KL and E_p of the score)."""
    m, mu = sp.symbols("m mu", real=True)
    v, sig = sp.symbols("v sigma", positive=True)
    ls = sp.Symbol("l", real=True)  # log sigma
    kl = (sp.log(sp.exp(ls) / v) + (v ** 2 + (m - mu) ** 2) / (2 * sp.exp(2 * ls))
          - sp.Rational(1, 2))
    e_s_mu = (m - mu) / sp.exp(2 * ls)  # E_p[(z - mu)/sigma^2]
    e_s_ls = (v ** 2 + (m - mu) ** 2) / sp.exp(2 * ls) - 1  # E_p[(z - mu)^2/sigma^2 - 1]
    dom = {m: Real(-30, 30), mu: Real(-30, 30), v: Real(1e-3, 1e3, log=True), ls: Real(-7, 7)}
    o1 = sym_equal(sp.diff(kl, mu), -e_s_mu, domain=dom)
    o2 = sym_equal(sp.diff(kl, ls), -e_s_ls, domain=dom)
    worst = o1 if o1.status != EXACT else o2
    worst.detail = f"d/dmu: {o1.detail}; d/dlog sigma: {o2.detail}"
    return worst


step("msc.eq2", check=_kl_gradient, corrected=_kl_gradient_corrected)


# ============================================================================= §CIS as IMH:
# ensembles and resampling
def _ensemble():
    """'The CIS kernel is identical to the ensemble MCMC sampler (Neal 2011; Austad 2007) with
    independent proposals': Neal's construction -- place z_t-1 at a uniformly random position k of
    an ensemble of N + 1, draw the other N independently from q, select a member with probability
    proportional to p/q -- enumerated over k and the
    proposal counts, against simulate.finite.cis_matrix (N + 1 particles, exact Laplace sum)."""
    rows = []
    for pi, q in _pairs():
        w = pi / q
        M = pi.size
        for N in _N((1, 2, 4)):
            Nu = min(kit.feasible_N(pi, q, int(N)), kit.n_max(M, int(N), 20_000))
            K, kerr = kit.kernel(pi, q, Nu)
            C = F._all_count_vectors(Nu, M).astype(float)
            lf = special.gammaln(np.arange(Nu + 1) + 1.0)
            pc = np.exp(lf[Nu] - lf[F._all_count_vectors(Nu, M)].sum(1) + C @ np.log(q))
            S = C @ w
            # Neal's ensemble: z_t-1 at a uniform position k among N + 1; the members are
            # exchangeable and the selection is proportional to p/q whatever k, so every k gives the
            # same law (the k-average is one term)
            E = np.zeros((M, M))
            for x in range(M):
                sel = (C * w[None, :] + np.eye(M)[x][None, :] * w[x]) / (w[x] + S)[:, None]
                E[x] = pc @ sel
            diff = float(np.abs(E - K).max())
            rows.append(({"M": M, "N": int(N), "N used": Nu}, max(0.0, diff - kerr - 64 * U * M),
                         0.0, 1.0))
    return instance_check(rows, "=", 1e-12,
                          describe="max |ensemble kernel - CIS kernel|, probabilities")


def _resample():
    """'If the ensemble proposal z^(1:N) is accepted, a single proposal is resampled proportionally
    to the normalized weight w~^(i) = w(z^(i))/sum_i w(z^(i))': P(index = i) of kernels.select_index
    (bisection) against
    P(accepted) w~^(i), for every i (N <= 8) or i in {1, argmax, N} (N = 100, 10^4)."""
    rows, nmax = [], 1
    for lw in _logw_fixed():
        lw = np.asarray(lw, float)
        n = lw.size
        nmax = max(nmax, n)
        wbar = Kn.normalised_weights(lw)
        idx = list(range(1, n)) if n <= 9 else sorted({1, int(np.argmax(lw[1:])) + 1, n - 1})
        cuts = _index_cuts(wbar, [0] + idx + [i - 1 for i in idx])
        cut0 = cuts[0]
        wp = np.exp(lw[1:] - lw[1:].max())
        wt = wp / math.fsum(wp.tolist())
        for i in idx:
            rows.append(({"N": n - 1, "i": i}, cuts[i] - cuts[i - 1], (1 - cut0) * float(wt[i - 1]),
                         1.0))
    tol = 64 * (nmax + 8) * U  # as in cis.acc.kernel: the float u and the cumulative sum
    return instance_check(rows, "=", tol, describe="selection law vs (1 - r) w~^(i), probabilities")


step("cis.ensemble", check=_ensemble)
step("cis.resample", check=_resample)


# ============================================================================= §Parallel IMH:
# computational cost
def _counts(name: str, n_particles_or_chains: int) -> dict:
    """Evaluations of one iteration of a scheme of simulate.schemes (its own counters: p and q
    evaluations, samples
    from q, score evaluations), on a one-dimensional Gaussian target."""
    from simulate.families import MeanFieldGaussian
    from simulate.schemes import Scheme
    from simulate.targets import isotropic

    s = Scheme(name, isotropic(1), MeanFieldGaussian(1), int(n_particles_or_chains), fast=False)
    st = s.init(seed=0)
    _, info = s.estimate(st.lam, st.chains, st.streams)
    return dict(info.counts)


def _cost_sampling():
    """'The sampling cost of PIMH with N chains is exactly equal to a CIS kernel with N proposals':
    samples from q and
    evaluations of p per iteration (pmcsa with N chains; msc with N + 1 particles)."""
    rows = []
    for N in free("N", [1, 10, 100], N_DOM):
        pc, cc = _counts("pmcsa", int(N)), _counts("msc", int(N) + 1)
        for k in ("q_sample", "p_eval"):
            rows.append(({"N": int(N), "count": k,
                          "q evaluations (not sampling)": [pc["q_eval"], cc["q_eval"]]},
                         pc[k], cc[k]))
    return instance_check(rows, "=", 0.0, describe="counters of simulate.schemes (pmcsa vs msc)")


def _cost_rb():
    """'the cost of PIMH is exactly equal to MSC if we use Rao-Blackwellization' (H13): score and q
    evaluations per
    iteration of pmcsa with N chains and of msc-rb with 003's CIS (N proposals, N + 1 particles)."""
    rows = []
    for N in (10, 1, 100):
        pc, rc = _counts("pmcsa", N), _counts("msc-rb", N + 1)
        for k in ("score", "q_eval", "q_sample", "p_eval"):
            rows.append(({"N": N, "count": k, "PIMH": pc[k], "MSC-RB (N proposals)": rc[k]}, pc[k],
                         rc[k]))
    return first_failing(
        rows, "=", 0.0, "counters of simulate.schemes (pmcsa, N chains; msc-rb, N + 1 particles)")


def _cost_rb_corrected():
    rows = []
    for N in free("N", [2, 10, 100], Int(2, 10 ** 4, log=True)):
        N = int(N)
        pc, rc, r1 = _counts("pmcsa", N), _counts("msc-rb", N + 1), _counts("msc-rb", N)
        rows += [({"N": N, "count": "score, PIMH vs MSC-RB with N - 1 proposals"}, pc["score"],
                  r1["score"]),
                 ({"N": N, "count": "q_eval, PIMH"}, pc["q_eval"], 2 * N),
                 ({"N": N, "count": "score, MSC-RB with N proposals"}, rc["score"], N + 1),
                 ({"N": N, "count": "q_eval, MSC-RB with N proposals"}, rc["q_eval"], N + 1)]
    return instance_check(rows, "=", 0.0, describe="counters of simulate.schemes")


step("pimh.cost.sampling", check=_cost_sampling)
step("pimh.cost.rb", check=_cost_rb, corrected=_cost_rb_corrected)


# ============================================================================= §Bias-variance: the
# initial iterations
def _abrupt():
    """'q_lambda_t(z_t-1) can be very small. Consequently, the importance weight ... will end up
    being extremely large' (existence): one MSC step with the softmax family on three states,
    lambda_t-1 = 0 (q uniform), z_t-1 = 0 (drawn from q_lambda_t-1 with probability 1/3), the CIS
    step moves to z_t = 1 (probability > 0), lambda_t = lambda_t-1 + gamma s(z_t; lambda_t-1), s(z;
    lambda) = e_z - softmax(lambda): q_lambda_t(0) = 1/(2 + e^gamma); with p = (1/3,
    1/3, 1/3) the weight of z_t-1 becomes (2 + e^gamma)/3 and its CIS rejection >= w/(w + N)
    (cis.accbound)."""
    rows = []
    p = np.full(3, 1 / 3)
    for gamma in (10.0, 15.0, 20.0, 30.0):
        lam = gamma * (np.eye(3)[1] - np.full(3, 1 / 3))
        qn = np.exp(lam - lam.max())
        qn /= qn.sum()
        acc, err, _ = kit.acceptance(p, qn, 10)
        w0 = float(p[0] / qn[0])
        rows.append(({"gamma": gamma, "q_lambda_t(z_t-1)": float(qn[0]), "w(z_t-1)": w0, "N": 10,
                      "CIS rejection at z_t-1": 1 - float(acc[0])}, float(qn[0]), 1e-4))
    return instance_check(rows, "<=", 0.0,
                          describe="an existence statement ('can be very small', threshold 1e-4): "
                                   "exact witnesses prove it",
                          complete=True)


step("msc.abrupt", check=_abrupt)
