"""Audit of the CIS-as-IMH draft (docs/references.md): CIS as IMH, acceptance and rejection bounds, variance growth.

003 counts N proposals (N + 1 particles) and writes unnormalised weights; the checks use
normalised weights (E_q w = 1), for which the displayed bounds are stated.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import stats

from simulate import finite as F

from verify.audit.engine import EXACT, UNCHECKED, VALID, WRONG, Outcome, finite_pairs, fixed, instance_check, step, sym_equal, unchecked

COSTLY = 10  # Hypothesis examples for steps whose every instance needs quadrature
SEED = "003"  # the CIS-as-IMH draft


def _pairs():
    g = np.random.default_rng(303)
    out = [tuple(g.dirichlet(np.ones(M), 2)) for M in (2, 3, 4) for _ in range(3)]
    out += [F.hard_instance(3, ws, seed=2) for ws in (2.0, 50.0, 1000.0)]
    return finite_pairs(out)


def _acceptance(pi, q, x, n_prop):
    """E_q[S/(w_x + S)], S the sum of n_prop proposal weights (enumerated multisets)."""
    w = pi / q
    acc = 0.0
    for c in F._compositions(n_prop, pi.size):
        p = math.factorial(n_prop)
        for ci in c:
            p //= math.factorial(ci)
        p = p * np.prod([qq ** ci for qq, ci in zip(q, c)])
        S = sum(ci * wi for ci, wi in zip(c, w))
        acc += p * S / (w[x] + S)
    return acc


def _barker():
    w0, S = sp.symbols("w0 S", positive=True)
    return sym_equal(S / (w0 + S), 1 - w0 / (w0 + S))


def _selection():
    """P(select a proposal | proposals) from the kernel's normalised weights equals sum w_i/(w_0 + sum w_i)."""
    from simulate.kernels import normalised_weights

    g = np.random.default_rng(1)
    rows = []
    for _ in range(20):
        lw = g.standard_normal(6) * 3
        wbar = normalised_weights(lw)
        rows.append(({"log_weights": [round(x, 3) for x in lw]}, 1 - wbar[0], np.exp(lw[1:]).sum() / np.exp(lw).sum()))
    return instance_check(lambda: rows, "=", 1e-12)


def _acc_bound():
    rows = []
    for pi, q in _pairs():
        w = pi / q
        for n_prop in (1, 2, 5):
            for x in range(pi.size):
                rows.append(({"M": pi.size, "N": n_prop, "w": float(w[x])}, _acceptance(pi, q, x, n_prop),
                             n_prop / (w[x] + n_prop)))
    return instance_check(lambda: rows, "<=", 1e-12, describe="exact acceptance rates (enumerated proposals)")


def _total_variance():
    """Law of total variance for the CIS selection given z_t-1, on finite spaces (exact)."""
    rows = []
    g = np.random.default_rng(3)
    for pi, q in _pairs()[:6]:
        f = g.standard_normal(pi.size)
        for n_prop in (1, 3):
            N = n_prop + 1
            K = F.cis_matrix(pi, q, N)
            for x in range(pi.size):
                total = float(K[x] @ f ** 2 - (K[x] @ f) ** 2)
                rb = F.moments_msc_rb(pi, q, f[:, None], x, N)  # E[f | z, z^(1:N)] is the RB estimate
                # E_q[V[f | z, z^(1:N)]] = E[f^2] - E[(RB)^2]
                within = float(K[x] @ f ** 2) - rb.second
                rows.append(({"M": pi.size, "N": n_prop, "x": x}, total, rb.variance + within))
    return instance_check(lambda: rows, "=", 1e-10, describe="V = V_q[E[f|.]] + E_q[V[f|.]] on finite spaces")


def _rejection_kl_symmetric():
    rows = []
    for m in (0.1, 0.5, 1.0, 2.0):
        for s in (0.7, 1.0, 2.0):
            rr, kl, klr = _marginal_rejection(m, s)
            rows.append(({"m": m, "s": s}, rr, math.sqrt((kl + klr) / 2)))
    return instance_check(lambda: rows, "<=", 1e-8, describe="pi = N(0,1), q = N(m, s^2), 2-d Gauss-Hermite")


def _marginal_rejection(m, s):
    x, wt = np.polynomial.hermite_e.hermegauss(200)
    wt = wt / wt.sum()
    lw = lambda z: stats.norm.logpdf(z) - stats.norm.logpdf(z, m, s)  # noqa: E731
    acc = float(wt @ np.minimum(1.0, np.exp(lw(m + s * x)[None, :] - lw(x)[:, None])) @ wt)
    kl = math.log(s) + (1 + m * m) / (2 * s * s) - 0.5
    klr = -math.log(s) + (s * s + m * m) / 2 - 0.5
    return 1 - acc, kl, klr


def _rejection_kl_dropped():
    rows = []
    for m in (0.1, 0.25, 0.5, 1.0):
        rr, kl, _ = _marginal_rejection(m, 1.0)
        rows.append(({"m": m, "s": 1.0}, rr, math.sqrt(kl / 2)))
    rr, kl, _ = _marginal_rejection(0.0, 2.0)
    rows.append(({"m": 0.0, "s": 2.0}, rr, math.sqrt(kl / 2)))
    o = instance_check(lambda: rows, "<=", 1e-8, describe="Gaussian pairs")
    o.detail = "dropping the non-negative KL(q||p) makes the right-hand side smaller, so the bound does not follow: " + o.detail
    o.correction = "r <= sqrt((KL(q||p) + KL(p||q))/2) (Neklyudov et al.); no bound by KL(p||q) alone follows"
    return o


def _wang():
    """r(z) <= d_TV(K(z,.), pi) for IMH, continuous target (the atom at z), on the weight line."""
    from simulate import weightline as wl

    rows = []
    for D, s in ((1, 1.5), (5, 1.3), (20, 1.1)):
        pair = wl.isotropic_pair(D, s)
        for start in ("worst", "typical", "quantile:0.1"):
            lw0 = wl.start_log_weight(pair, start)
            res = wl.imh_tv(pair, 1, lw0)
            rows.append(({"D": D, "s": s, "start": start}, float(wl.imh_lambda(pair, lw0)), float(res.tv[0])))
    return instance_check(lambda: rows, "<=", 1e-9, describe="isotropic Gaussian pairs, exact weight-line TV")


def _growth():
    """V_q[E[f | z, z^(1:N)]] at a state of weight w >> N increases with N (slope ~ 1 in log-log)."""
    pi, q = F.hard_instance(3, 1e4, seed=0)
    f = np.array([1.0, -0.5, 0.7])
    Ns = [1, 2, 4, 8, 16, 32]
    v = [F.moments_msc_rb(pi, q, f[:, None], 0, n + 1).variance for n in Ns]
    slope = np.polyfit(np.log(Ns), np.log(v), 1)[0]
    ok = all(b > a for a, b in zip(v, v[1:]))
    return Outcome(VALID if ok else WRONG, f"an existence claim ('can increase'), shown on one instance: w = 1e4, "
                                          f"variances {', '.join(f'{x:.3g}' for x in v)} for N = {Ns}; "
                                          f"log-log slope {slope:.3f}", method="instances", instances=len(Ns))


step("cis.acc", "cis_barker_acceptance", SEED, "§CIS as IMH, Eq. (acc)", "=", "sum_i w_i / (w(z_t-1) + sum_i w_i)",
     "1 - w(z_t-1) / (w(z_t-1) + sum_i w_i)", "algebra", _barker, expect=EXACT)
step("cis.acc.kernel", "cis_barker_acceptance", SEED, "§CIS as IMH, Eq. (acc) and text", "=",
     "P(a proposal is selected | z_t-1, z^(1:N))", "sum_i w_i / (w_0 + sum_i w_i)", "multinomial selection",
     _selection, expect=EXACT, statement=True)
step("cis.metropolis", "cis_barker_acceptance", SEED, "§CIS as IMH, after Eq. (acc)", "=", "Barker's acceptance ratio",
     "a special case of Metropolis' acceptance ratio", "Barker (1965); Metropolis (1953)",
     unchecked("a qualitative remark: Barker's rule w/(w0+w) and Metropolis' min(1, w/w0) are distinct members of "
               "Hastings' family; nothing numeric to check"), expect=UNCHECKED)
step("cis.totvar", "cis_variance_growth", SEED, "§Bias-variance, Eq. (total_variance)", "=", "V_q[f | z_t-1]",
     "V_q[E[f | z_t-1, z^(1:N)]] + E_q[V[f | z_t-1, z^(1:N)]]", "law of total variance", _total_variance,
     search_examples=COSTLY, expect=EXACT)
step("cis.totvar.ge", "cis_variance_growth", SEED, "§Bias-variance, line 2", ">=", "V_q[f | z_t-1]",
     "V_q[E[f | z_t-1, z^(1:N)]]", "the Rao-Blackwell gain is >= 0", fixed(VALID, "a variance is non-negative"),
     expect=VALID)
step("cis.exactvar", "cis_variance_growth", SEED, "§Bias-variance, Eq. (exact_variance)", "=",
     "E[f | z_t-1, z^(1:N)]", "(1 - r(z_t-1 | z^(1:N))) f_IS + r(z_t-1 | z^(1:N)) f(z_t-1)", "definition of f_IS",
     lambda: sym_equal((sp.Symbol("w0") * sp.Symbol("f0") + sp.Symbol("S") * sp.Symbol("fIS")) / (sp.Symbol("w0") + sp.Symbol("S")),
                       (1 - sp.Symbol("w0") / (sp.Symbol("w0") + sp.Symbol("S"))) * sp.Symbol("fIS")
                       + sp.Symbol("w0") / (sp.Symbol("w0") + sp.Symbol("S")) * sp.Symbol("f0")), expect=EXACT)
step("cis.approxvar", "cis_variance_growth", SEED, "§Bias-variance, Eq. (approx_var)", "=",
     "V_q[E[f | z_t-1, z^(1:N)]]", "(1 - r(z_t-1))^2 V_q[f_IS | z_t-1]  (approximately)", "w(z_t-1) >> w(z^(i))",
     unchecked("an approximation without an error statement; its consequence (growth with N) is checked in cis.growth"),
     expect=UNCHECKED)
step("cis.accbound", "cis_acceptance_bound", SEED, "§Parallel IMH, 'The variance of CIS can increase with N'", "<=",
     "1 - r(z_t-1)", "N / (w(z_t-1) + N)", "Proposition rej_bound (not included in the draft)", _acc_bound,
     expect=VALID, statement=True)
step("cis.growth", "cis_variance_growth", SEED, "§Parallel IMH, last display", "=",
     "V_q[E[f | z_t-1, z^(1:N)]]", "O(N^2) x O(1/N): grows ~ linearly with N when w(z_t-1) is large", "approximations",
     _growth, expect=VALID, statement=True)
step("imh.neklyudov", "imh_rejection_kl", SEED, "§Bias-variance, Neklyudov et al. (2019, Thm 1)", ">=", "alpha",
     "1 - sqrt((KL(q||p) + KL(p||q))/2)", "cited", _rejection_kl_symmetric, expect=VALID)
step("imh.rej_bound", "imh_rejection_kl", SEED, "§Bias-variance, Eq. (rej_bound)", "<=", "r = 1 - alpha",
     "sqrt(KL(p||q)/2)", "non-negativity of the KL divergence", _rejection_kl_dropped, depends=("imh.neklyudov",),
     expect=WRONG, statement=True)
step("imh.wang", "imh_rejection_kl", SEED, "§Bias-variance, 'Is bias guaranteed to decrease?'", "<=", "r(z_t-1)",
     "d_TV(K(z_t-1, .), p)", "Wang (2020)", _wang, expect=VALID)
step("pimh.variance", "cis_variance_growth", SEED, "§Parallel IMH, 'Variance Reduction with PIMH'", "=",
     "V[(1/N) sum_i s(z_t^(i)) | z_t-1^(1:N)]", "(1/N^2) sum_i V[s(z_t^(i)) | z_t-1^(i)]: O(1/N)", "independent chains",
     fixed(EXACT, "the chains' transitions are independent given their states"), expect=EXACT)
