"""Audit of El hanchi (2018), "Stochastic gradient MCMC algorithms and their applications": §2.3.1
Eqs. (11)-(16), §2.3.2 Eq. (17) and the Appendix.

Matrix statements are checked on SPD matrices the adversarial search chooses (``searchable("spd")``
for H, ``searchable("spd2")`` for pairs (D, H) or (C, G), :mod:`._kit`), with the scalars (k, eps,
N, |S|, ...) free over the widest range the text allows; with D = (k/2) H^-1 every matrix is a
multiple of H^-1, so scalar algebra is checked with sympy over explicit Real/Int domains.  A float64
residual compared with 0 carries its scale (the norms of the terms that cancel times the condition
numbers that amplify their rounding, :func:`._kit.tol`).

Further steps: :mod:`.proofs_text` (statements of §§2-2.3 and the Appendix the inventory lists),
:mod:`.proofs_lmm` (§3), :mod:`.proofs_conclusion` (§4 and the third hunt's findings).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from mcsa_cli.lazy import lazy_module
from verify.audit.adversary import Int, Real, free
from verify.audit.engine import step_table
from verify.audit.instances import explain, first_failing, instance_check, searchable
from verify.audit.outcome import WRONG, Outcome
from verify.audit.symbolic import sym_equal, sym_le

from ._kit import (
    U,
    admissible_k_scalar,
    fixed_pairs,
    kappa,
    matrix_identity,
    n2,
    scalar_chain,
    sym,
    tol,
)
from .checks import EQUIVALENT, SUFFICIENT

linalg = lazy_module("scipy.linalg")
stats = lazy_module("scipy.stats")

SEED = "002"  # El hanchi (2018)
#: declares a step; its printed text is in proofs.toml
step = step_table(__name__, seed=SEED)
k, eps, t = sp.symbols("k epsilon t", positive=True)
#: the relative tolerance of the float64 matrix checks (64 U; a residual row states its own scale)
TOL = tol(1)
#: the domains of the scalars, as wide as the text allows (see each step)
K_STAT = Real(1e-6, 4 - 1e-6)  # k eps in (0, 4): the stationary range (Appendix, corrected)
EPS = Real(1e-4, 1.0, log=True)  # "0 < eps << 1", eps := 1 by default (§2.1.2)
N_DATA = Int(1, 10 ** 6, log=True)  # N: the data sets of §3 have N up to 488 566
S_FRAC = Real(1e-6, 1.0, log=True)  # |S|/N: |S| <= N
G_W = Real(1e-8, 1e8, log=True)  # the weight of the prior's Hessian G against its shape


def _spd(g, d, scale=1.0):
    A = g.standard_normal((d, d))
    return scale * (A @ A.T + d * np.eye(d))


def _stationary(H, k, eps):
    """(H^-1, A, Lambda) of the process (2) with D = (k/2) H^-1: A = I - eps D H and the stationary
    covariance
    Lambda = A Lambda A^T + 2 eps D (Lyapunov solve)."""
    Hinv = np.linalg.inv(H)
    Dm = (k / 2) * Hinv
    A = np.eye(H.shape[0]) - eps * Dm @ H
    return Hinv, A, linalg.solve_discrete_lyapunov(A, 2 * eps * Dm)


def _instances(n=8, seed=2):
    """SPD H: fixed ones of sizes 1, 2, 3, 5; one searched instance while the engine searches."""
    g = np.random.default_rng(seed)
    return searchable("spd", [(_spd(g, d), g) for d in (1, 2, 3, 5) for _ in range(n // 4)])


def _batch(Nd, frac):
    """|S| from N and |S|/N (at least 1, at most N)."""
    return int(min(Nd, max(1, round(frac * Nd))))


def _mineig(X):
    return float(np.linalg.eigvalsh(sym(X)).min())


def _pd(*Ms):
    """Whether every matrix is positive definite beyond rounding (smallest eigenvalue > 64 d U times
    the largest).
    """
    for M in Ms:
        ev = np.linalg.eigvalsh(sym(M))
        if not ev[0] > 64 * M.shape[0] * U * abs(ev[-1]):
            return False
    return True


# ============================================================================= Appendix,
# Discretization error
def _var1():
    """The appendix's rewriting of (7) (eps restored) as a VAR(1): with grad^S log f = -H theta +
    xi, xi ~ N(0, (N^2/|S|) C) (Eqs. (4), (6), theta_MAP = 0) and the injected noise 2 eps D - eps^2
    (N^2/|S|) D C D, the conditional mean of theta_(i+1) is (I - eps D H) theta_i and its covariance
    eps^2 D Cov(xi) D + the
    injected noise = 2 eps D.  Symbolic 2 x 2 D, H, C (symmetric, any entries): a matrix
    identity."""
    a, b, c_, d_, e_, f_, p, q, r = sp.symbols("D11 D12 D22 H11 H12 H22 C11 C12 C22", real=True)
    th1, th2 = sp.symbols("theta1 theta2", real=True)
    Nd, S = sp.symbols("N S", positive=True)
    Dm, Hm = sp.Matrix([[a, b], [b, c_]]), sp.Matrix([[d_, e_], [e_, f_]])
    Cm = sp.Matrix([[p, q], [q, r]])
    th = sp.Matrix([th1, th2])
    mean = th + eps * Dm * (-Hm * th)  # E[theta + eps D (-H theta + xi)]
    cov = (eps ** 2 * Dm * (Nd ** 2 / S * Cm) * Dm.T
           + (2 * eps * Dm - eps ** 2 * Nd ** 2 / S * Dm * Cm * Dm))
    lm, rm, wm = matrix_identity(mean, (sp.eye(2) - eps * Dm * Hm) * th, "v")
    lc, rc, wc = matrix_identity(cov, 2 * eps * Dm, "w")
    box = Real(-10.0, 10.0)
    dom = {s: box for s in (a, b, c_, d_, e_, f_, p, q, r, th1, th2, *wm, *wc)}
    dom.update({eps: EPS, Nd: Real(1, 1e6, log=True), S: Real(1, 1e6, log=True)})
    o = sym_equal(lm + lc, rm + rc, domain=dom)
    o.detail = (
        "mean (I - eps D H) theta_i and covariance 2 eps D, entrywise (2 x 2 symbolic D, H, C; the "
        "identity uses no commutation): " + o.detail
                + ". Reading: the injected noise of (7) with eps restored is 2 eps D - eps^2 "
                  "(N^2/|S|) D C D, i.e. (2) minus the noise the stochastic gradient adds "
                  "('removing the added noise', §2.1.3); read as eps (2D - (N^2/|S|) DCD) the "
                  "display would hold only at eps = 1")
    return o


def _stationary_k():
    """'equivalent to k in (0, 1)' (eps = 1): stationarity (spectral radius of I - D H below 1)
    against k < 1.
    """
    rows = []
    for kk in free("k", [0.5, 1.0, 2.0, 3.0, 3.9], Real(1e-6, 8.0)):
        for H, _ in _instances():
            A = np.eye(H.shape[0]) - (kk / 2) * np.linalg.solve(H, H)
            rho = float(np.max(np.abs(np.linalg.eigvals(A))))
            if abs(rho - 1) < 64 * H.shape[0] * U * kappa(H) * max(1.0, kk) or abs(kk - 1) < 1e-12:
                continue  # on the boundary within rounding: not an instance either side decides
            rows.append(({"k": kk, "eps": 1, "dim": H.shape[0], "spectral radius": rho},
                         float(rho < 1), float(kk < 1)))
    return instance_check(
        rows, "=", 0.0, describe="spectral radius of I - DH < 1 (stationary) vs the printed k < 1")


def _stationary_k_corrected():
    """The correction: rho(I - eps (k/2) H^-1 H) < 1 iff 0 < k eps < 4, both directions, k eps over
    (0, 8).
    """
    rows = []
    for ke in free("k eps", [0.5, 1.0, 2.0, 3.0, 3.9, 4.1, 6.0], Real(1e-6, 8.0)):
        for e in free("eps", [1.0, 0.1], EPS):
            for H, _ in _instances():
                d = H.shape[0]
                A = np.eye(d) - e * (ke / e / 2) * np.linalg.solve(H, H)
                rho = float(np.max(np.abs(np.linalg.eigvals(A))))
                err = 64 * d * U * kappa(H) * max(1.0, ke)
                if abs(rho - 1) < err or abs(ke - 4) < err:
                    continue  # undecidable in float64 at this point
                rows.append(({"k eps": ke, "eps": e, "dim": d, "spectral radius": rho},
                             float(rho < 1),
                             float(0 < ke < 4)))
    return instance_check(rows, "=", 0.0,
                          describe="stationary (spectral radius < 1) iff 0 < k eps < 4")


def _k01_sufficient():
    """The sufficient direction of 'equivalent to k in (0, 1)': every k in (0, 1) gives a stationary
    process
    (eps = 1): the spectral radius of I - (k/2) H^-1 H is below 1 (it is |1 - k/2| in exact
    arithmetic)."""
    rows = []
    for kk in free("k", [1e-3, 0.5, 0.999], Real(1e-9, 1.0 - 1e-12)):
        for H, _ in _instances():
            d = H.shape[0]
            A = np.eye(d) - (kk / 2) * np.linalg.solve(H, H)
            rho = float(np.max(np.abs(np.linalg.eigvals(A))))
            rows.append(({"k": kk, "dim": d}, rho, 1.0, kappa(H)))
    return instance_check(rows, "<", TOL,
                          describe="spectral radius of I - DH, D = (k/2) H^-1, k in (0, 1)")


def _loewner_sufficient():
    """The sufficient direction of 'stationary iff -I < I - eps DH < I', with the Loewner order of
    the symmetric part (the only meaning for a non-symmetric I - eps DH): the symmetric part within
    (-I, I) bounds the (real) eigenvalues of I - eps DH, so rho < 1.  Pairs (D, H) the search
    chooses; the condition needs sym(DH) > 0 (its
    eigenvalues mu) and holds exactly for eps in (0, 2/mu_max): eps = f 2/mu_max, f in (0, 1)
    free."""
    rows = []
    for Dm, H in searchable("spd2", fixed_pairs()):
        if not _pd(Dm, H):
            continue
        d = H.shape[0]
        M = Dm @ H
        mu = np.linalg.eigvalsh(sym(M))
        if mu[0] <= 64 * d * U * n2(M):
            # sym(DH) not positive definite: no eps satisfies the condition (nothing to check)
            continue
        for f in free("f", [0.3, 0.9, 0.999], Real(1e-6, 1.0 - 1e-9)):
            e = f * 2 / mu[-1]
            A = np.eye(d) - e * M
            sy = np.linalg.eigvalsh(sym(A))
            if np.abs(sy).max() >= 1:
                continue  # outside the condition by rounding
            rho = float(np.max(np.abs(np.linalg.eigvals(A))))
            rows.append(({"f": f, "dim": d, "max |eig sym(I - eps DH)|": float(np.abs(sy).max())},
                         rho, 1.0,
                         kappa(Dm) * kappa(H)))
    return instance_check(rows, "<", TOL, describe="spectral radius when -I < sym(I - eps DH) < I")


def _series_sum():
    i = sp.Symbol("i", integer=True, nonnegative=True)
    X = sp.Symbol("X", positive=True)
    s = sp.Sum(X ** i, (i, 0, sp.oo)).doit()
    s = s.args[0][0] if isinstance(s, sp.Piecewise) else s
    lhs = k * eps * s.subs(X, (1 - k * eps / 2) ** 2)
    return sym_equal(lhs, 1 / (1 - k * eps / 4), domain={k: Real(1e-6, 4 - 1e-6), eps: EPS})


def _lyap_scale(H, rho, c=1.0):
    """The rounding scale of a Lyapunov solve whose solution is c H^-1: ||H^-1|| c kappa(H) / (1 -
    rho^2) d.
    """
    return (float(np.abs(np.linalg.inv(H)).max()) * abs(c) * kappa(H)
            / max(1 - rho * rho, 1e-300) * H.shape[0])


def _lyapunov(ratio=None):
    """Eq. (32)'s solution with D = (k/2) H^-1: the discrete Lyapunov solve (scipy) of
    Lambda = A Lambda A^T + 2 eps D, A = I - eps D H, against H^-1 / (1 - k eps/4), k eps over the
    whole stationary
    range (0, 4), eps in [1e-4, 1]; the residual's scale is ||H^-1|| kappa(H) / (1 - rho^2)."""
    rows = []
    for ke in free("k eps", [0.5, 1.5, 3.0], K_STAT):
        for e in free("eps", [1.0, 0.5], EPS):
            kk = ke / e
            for H, _ in _instances():
                d = H.shape[0]
                Hinv, A, Lam = _stationary(H, kk, e)
                c = 1 / (1 - ke / 4) if ratio is None else ratio(ke)
                rows.append(({"k eps": ke, "eps": e, "dim": d}, float(np.abs(Lam - c * Hinv).max()),
                             0.0,
                             _lyap_scale(H, abs(1 - ke / 2), c)))
    return instance_check(rows, "=", TOL,
                          describe="discrete Lyapunov solves, max |Lambda - H^-1/(1 - k eps/4)|")


def _exact_noise(dhd=1.0):
    """'which has the correct stationary distribution': the Lyapunov solve of Lambda = A Lambda A^T
    + 2D - DHD, A = I - DH, is H^-1 for every SPD D with a stationary process and a valid noise (the
      eigenvalues of DH in
    (0, 2)): pairs (D, H) the search chooses, D scaled so that the largest eigenvalue of DH is s in
    (0, 2), and
    D = (k/2) H^-1 of the report (k = s)."""
    rows = []
    for D0, H in searchable("spd2", fixed_pairs()):
        if not _pd(D0, H):
            continue
        d = H.shape[0]
        Hinv = np.linalg.inv(H)
        lam = float(np.linalg.eigvals(D0 @ H).real.max())
        for s in free("s", [0.3, 1.0, 1.9], Real(1e-6, 2.0 - 1e-9)):
            for label, Dm in (("random D", D0 * (s / lam)), ("D = (k/2) H^-1", (s / 2) * Hinv)):
                A = np.eye(d) - Dm @ H
                Q = 2 * Dm - dhd * Dm @ H @ Dm
                Lam = linalg.solve_discrete_lyapunov(A, Q)
                ev = np.linalg.eigvals(Dm @ H).real
                rho = float(np.max(np.abs(1 - ev)))
                rows.append(({"D": label, "largest eig(DH)": s, "dim": d},
                             float(np.abs(Lam - Hinv).max()), 0.0,
                             _lyap_scale(H, rho) * kappa(Dm)))
    return instance_check(rows, "=", TOL, describe="Lyapunov solves with Q = 2D - DHD against H^-1")


# ============================================================================= §2.3.1 Eqs.
# (11)-(16)
def _cg_pairs():
    """(C, G) pairs: the per-datum information C (SPD) and the prior's Hessian G (SPD, singular or
    0).
    """
    return [(C, G) for C, G in searchable("spd2", fixed_pairs(7)) if _pd(C)]


def _noise(C, G, Nd, S, kk):
    """Q = 2D - (N^2/|S|) DCD - DHD, D = (k/2) H^-1, H = N C + G, and its rounding scale (the norms
    of the
    three terms times kappa(H), which amplifies the rounding of H^-1)."""
    H = Nd * C + G
    Hinv = np.linalg.inv(sym(H))
    Dm = (kk / 2) * Hinv
    t1, t2, t3 = 2 * Dm, (Nd * Nd / S) * Dm @ C @ Dm, Dm @ H @ Dm
    scale = (n2(t1) + n2(t2) + n2(t3)) * kappa(H) * H.shape[0]
    return t1 - t2 - t3, scale, H, Hinv


def _weights(Gs):
    """The prior's weights g: the searched one and g = 0 (no prior: Eq. (13) is tight there)."""
    return [0.0] + list(Gs)


def _admissible(which, k_factor=1.0):
    """The injected noise of (8) at the k of Eq. (13), (15) or (16) is PSD: its smallest eigenvalue
    >= 0, for (C, G) the search chooses (G singular and G = 0 included), N in [1, 1e6], |S|/N in
    [1e-6, 1], the prior's
    weight g in [1e-8, 1e8] (G -> g G) and, for (16), c in (0, 1)."""
    def fn():
        rows = []
        for C, G0 in _cg_pairs():
            d = C.shape[0]
            for Nd in free("N", [100, 1000, 50], N_DATA):
                for fr in free("|S|/N", [0.1, 0.05, 1.0], S_FRAC):
                    S = _batch(Nd, fr)
                    for gw in _weights(free("g", [1.0, 100.0], G_W)):
                        G = gw * G0
                        H = Nd * C + G
                        Hinv = np.linalg.inv(sym(H))
                        r = float(np.linalg.eigvalsh(Hinv).min()
                                  / np.linalg.eigvalsh(sym(Hinv @ (Nd * C) @ Hinv)).max())
                        k13, k15 = 4 * S / (Nd + S), 4 * r / (r + Nd / S)
                        ks = {"13": [k13], "15": [k15]}.get(which)
                        if ks is None:
                            ks = [min(c, 4 * max(S / (Nd + S), r / (r + Nd / S)))
                                  for c in free("c", [0.1, 0.5, 0.999], Real(1e-6, 1.0))]
                        for kk in ks:
                            kk = k_factor * kk
                            Q, scale, _, _ = _noise(C, G, Nd, S, kk)
                            rows.append(({"d": d, "N": Nd, "|S|": S, "g": gw, "k": kk, "r": r},
                                         _mineig(Q), 0.0,
                                         scale))
        return instance_check(rows, ">=", TOL,
                              describe="smallest eigenvalue of the injected noise at the "
                                       "admissible k")
    return fn


def _eq12():
    """Eq. (12): H^-1 >= H^-1 N C H^-1 when H = N C + G with G >= 0 (G singular and 0 included)."""
    rows = []
    for C, G0 in _cg_pairs():
        for Nd in free("N", [100, 1], N_DATA):
            for gw in _weights(free("g", [1.0, 1e-3], G_W)):
                H = Nd * C + gw * G0
                Hinv = np.linalg.inv(sym(H))
                X = Hinv - Hinv @ (Nd * C) @ Hinv
                rows.append(({"d": C.shape[0], "N": Nd, "g": gw}, _mineig(X), 0.0,
                             (n2(Hinv) + n2(Hinv) ** 2 * n2(Nd * C)) * kappa(H) * C.shape[0]))
    return instance_check(rows, ">=", TOL, describe="smallest eigenvalue of H^-1 - H^-1 N C H^-1")


def _eq12_iff():
    """Display (12)'s equivalences, both directions: H >= N C iff H^-1 H H^-1 >= H^-1 N C H^-1 iff
    H^-1 >= H^-1 N C H^-1 (congruence by H^-1 keeps the inertia, Sylvester).  Any SPD H and N C (not
    only H = N C + G with G >= 0): the smallest eigenvalues of H - N C and of H^-1 - H^-1 N C H^-1
    have the same sign,
    i.e. their product is >= 0 (scale: each one's rounding times the other's size)."""
    rows = []
    for H, NC in searchable("spd2", fixed_pairs(12)):
        if not _pd(H):
            continue
        for w in free("w", [0.5, 1.0, 2.0], Real(1e-3, 1e3, log=True)):
            B = w * NC
            Hinv = np.linalg.inv(H)
            l1 = _mineig(H - B)
            l2 = _mineig(Hinv - Hinv @ B @ Hinv)
            s1 = (n2(H) + n2(B)) * H.shape[0]
            s2 = (n2(Hinv) + n2(Hinv) ** 2 * n2(B)) * kappa(H) * H.shape[0]
            rows.append(({"d": H.shape[0], "w": w, "lambda_min(H - NC)": l1,
                          "lambda_min(H^-1 - H^-1 NC H^-1)": l2}, l1 * l2, 0.0,
                         abs(l1) * s2 + abs(l2) * s1))
    return instance_check(rows, ">=", TOL,
                          describe="product of the two smallest eigenvalues (same sign)")


def _weak_prior_noise():
    S, Nd = sp.symbols("S N", positive=True)
    kmax = 4 * S / (Nd + S)
    total = kmax  # 2D = k H^-1 (units of H^-1)
    ratio = sp.limit(total / (2 * S / Nd), S, 0)
    return Outcome(
        WRONG, f"with k = 4|S|/(N+|S|) the total noise 2D = k H^-1 ~ 4|S|/N H^-1, twice the "
               f"printed 2|S|/N (ratio {sp.sstr(ratio)} as |S|/N -> 0)",
        counterexample={"at": {"N": 1000, "S": 10}, "lhs": float(4 * 10 / 1010),
                        "rhs": 2 * 10 / 1000},
        correction="the total noise cannot exceed ~ 4 |S|/N Var[theta | x]",
        method="symbolic")


def _weak_prior_corrected():
    """The correction: at k = 4|S|/(N + |S|) the total noise 2D = k H^-1 is <= 4|S|/N H^-1 (and ~
    4|S|/N as
    |S|/N -> 0, so the bound is tight); |S| = f N, f in (0, 1]."""
    f, Nd = sp.symbols("f N", positive=True)
    S = f * Nd
    return sym_le(4 * S / (Nd + S), 4 * S / Nd, domain={f: S_FRAC, Nd: Real(1, 1e6, log=True)})


def _strong_prior():
    NC = np.diag([1.0, 100.0])
    G = np.eye(2)
    H = NC + G
    Hinv = np.linalg.inv(H)
    rr = np.linalg.eigvalsh(Hinv).min() / np.linalg.eigvalsh(Hinv @ NC @ Hinv).max()
    return Outcome(
        WRONG, f"G = I matches N C = diag(1, 100) in its first direction (a strong prior there), "
               f"yet r = {rr:.4g} < 1",
        counterexample={"at": {"NC": "diag(1, 100)", "G": "I"}, "lhs": float(rr),
                        "rhs": 1.0},
        correction="r >= lambda_min(H)^2 / (lambda_max(H) lambda_max(N C)): r > 1 once "
                   "lambda_min(H)^2 > lambda_max(H) lambda_max(N C) (e.g. G = g I with "
                   "g > 1.62 lambda_max(N C)); a prior strong "
                   "in some directions only does not suffice when N C is "
                   "ill-conditioned",
        method="instances")


def _strong_prior_corrected():
    """The correction's bound r >= lambda_min(H)^2 / (lambda_max(H) lambda_max(N C)) (r > 0 is the
    trivial bound),
    on (C, G) pairs the search chooses, N, and the prior's weight g."""
    rows = []
    for C, G0 in _cg_pairs():
        for Nd in free("N", [100, 1], N_DATA):
            for gw in _weights(free("g", [1.0, 1e3], G_W)):
                H = Nd * C + gw * G0
                Hinv = np.linalg.inv(sym(H))
                NC = Nd * C
                r = float(np.linalg.eigvalsh(Hinv).min()
                          / np.linalg.eigvalsh(sym(Hinv @ NC @ Hinv)).max())
                eh = np.linalg.eigvalsh(sym(H))
                bound = float(eh[0] ** 2 / (eh[-1] * np.linalg.eigvalsh(sym(NC)).max()))
                rows.append(({"d": C.shape[0], "N": Nd, "g": gw}, r, bound,
                             max(r, bound) * kappa(H) ** 2))
    return instance_check(rows, ">=", TOL,
                          describe="r against lambda_min(H)^2/(lambda_max(H) lambda_max(NC))")


# ============================================================================= Appendix, rate and
# autocovariance
def _var_trajectory(printed_sum):
    def fn():
        rows = []
        for kk in (0.5, 1.0, 1.8):
            v, a, noise = 0.0, 1 - kk / 2, kk - kk * kk / 4
            for tt in range(0, 6):
                ref = (noise * sum(a ** (2 * i) for i in range(tt + 1)) if printed_sum else 1
                       - a ** tt)
                rows.append(({"k": kk, "t": tt}, v, ref))
                v = a * a * v + noise
        o = instance_check(rows, "=", 1e-12,
                           describe="exact recursion Var[theta_t] from theta_0 = theta_MAP")
        o.correction = ("Var[theta_t] = (k - k^2/4) sum_{i=0}^{t-1} (1-k/2)^(2i) H^-1 = [1 - (1 - "
                        "k/2)^(2t)] H^-1")
        return o
    return fn


def _affine_power(A, Q, t):
    """V_t of V_(s+1) = A V_s A^T + Q from V_0 = 0, by binary powering of the affine map (O(log t)
    products):
    returns V_t (the recursion itself, not a closed form)."""
    d = A.shape[0]
    V, P = np.zeros((d, d)), np.eye(d)  # the accumulated map: V -> P V P^T + V
    Vb, Ab = Q.copy(), A.copy()  # the map for 2^j steps: V -> Ab V Ab^T + Vb
    while t:
        if t & 1:
            V = Ab @ V @ Ab.T + Vb
            P = Ab @ P
        Vb = Ab @ Vb @ Ab.T + Vb
        Ab = Ab @ Ab
        t >>= 1
    return V


def _var_trajectory_corrected():
    """The correction: Var[theta_t] = [1 - (1 - k/2)^(2t)] H^-1 along the exact process from
    theta_MAP: the matrix recursion V_t = A V_(t-1) A^T + (2D - DHD) (binary powering) on SPD H the
    search chooses, k over the
    stationary range (0, 4), t in 0..1e6."""
    rows = []
    for kk in free("k", [0.5, 1.0, 3.0], K_STAT):
        for tt in free("t", [0, 1, 2, 7, 50], Int(0, 10 ** 6, log=False)):
            for H, _ in _instances():
                d = H.shape[0]
                Hinv = np.linalg.inv(H)
                Dm = (kk / 2) * Hinv
                A = np.eye(d) - Dm @ H
                V = _affine_power(A, sym(2 * Dm - Dm @ H @ Dm), int(tt))
                c = 1 - (1 - kk / 2) ** (2 * int(tt))
                rho = abs(1 - kk / 2)
                rows.append(({"k": kk, "t": int(tt), "dim": d}, float(np.abs(V - c * Hinv).max()),
                             0.0,
                             _lyap_scale(H, rho) * (1 + math.log2(1 + int(tt)))))
    return instance_check(rows, "=", TOL,
                          describe="Var[theta_t] by the recursion against 1 - (1 - k/2)^(2t)")


def _scalar_case(N, frac, C, G, G_max):
    """The scalar quadratic case's free N (:data:`N_DATA`), |S|/N (:data:`S_FRAC`; |S| by
    :func:`_batch`), C in [1e-4, 1e4] and G in [1e-6, G_max] (both log scale), each fixed at the
    given lists normally;
    yields (N, |S|, C, G)."""
    for Nd in free("N", N, N_DATA):
        for fr in free("|S|/N", frac, S_FRAC):
            S = _batch(Nd, fr)
            for Cv in free("C", C, Real(1e-4, 1e4, log=True)):
                for Gv in free("G", G, Real(1e-6, G_max, log=True)):
                    yield Nd, S, Cv, Gv


def _largest_k():
    """Appendix: 'maximizing k corresponds to maximizing the rate', on the range the report states
    for k, (0, 1) ((10), the Appendix; (16) caps k at c < 1): |1 - k/2| at the largest k of the
    range (min(k*, 1), k* the largest admissible k of (8), scalar case) against any smaller k of it;
    N, |S|/N, C, G, k/k_top free.
    (Beyond k = 2, where |1 - k/2| grows again, the range itself is the finding: step sgfs.k01.)"""
    rows = []
    for Nd, S, C, G in _scalar_case([1000, 100], [0.1, 1.0], [1.0], [1.0, 1e5], 1e10):
        top = min(1.0, admissible_k_scalar(Nd, S, C, G))
        for f in free("k/k_top", [0.1, 0.5, 1.0], Real(1e-6, 1.0)):
            rows.append(({"N": Nd, "|S|": S, "C": C, "G": G, "k": f * top, "k_top": top},
                         abs(1 - top / 2), abs(1 - f * top / 2)))
    return instance_check(rows, "<=", 1e-12,
                          describe="|1 - k/2| at the largest k in (0, 1) against any smaller k")


def _largest_k_corrected():
    """The correction: k_c = min(2, k*) (k* the largest admissible k of (8), scalar case) minimises
    |1 - k/2|
    over the admissible (0, k*]: |1 - k_c/2| <= |1 - k/2| for every admissible k; N, |S|/N, C, G,
    k/k* free."""
    rows = []
    for Nd, S, C, G in _scalar_case([1000, 100], [0.1, 1.0], [1.0], [1.0, 1e5], 1e10):
        ks = admissible_k_scalar(Nd, S, C, G)
        kc = min(2.0, ks)
        for f in free("k/k*", [0.1, 0.5, 1.0], Real(1e-6, 1.0)):
            kk = f * ks
            rows.append(({"N": Nd, "|S|": S, "C": C, "G": G, "k": kk, "k*": ks}, abs(1 - kc / 2),
                         abs(1 - kk / 2)))
    return instance_check(rows, "<=", 1e-12,
                          describe="|1 - k/2| at min(2, k*) against any admissible k")


def _autocov_intermediate():
    """The printed E[(k/2 theta + w)^T theta] vs the exact lag-one covariance, scalar H = 1, at
    stationarity.
    """
    rows = []
    for kk in (0.25, 0.5, 1.0, 1.5):
        a = 1 - kk / 2
        noise = kk - kk * kk / 4
        var = noise / (1 - a * a)  # stationary variance of theta (= 1 = H^-1)
        # printed coefficient vs recursion's
        rows.append(({"k": kk, "H": 1}, (kk / 2) * var, a * var))
    o = instance_check(rows, "=", 1e-12, describe="stationary scalar process")
    o.correction = (
        "E[((1 - k/2) theta_t-1 + w_t-1) theta_t-1^T] = (1 - k/2) H^-1 (the coefficient is 1 - "
        "k/2)")
    return o


def _autocov(coef=None):
    """Cov[theta_t, theta_(t-1)] at stationarity of the exact process (8): A Lambda with Lambda the
    Lyapunov solve (not assumed to be H^-1), against (1 - k/2) H^-1; k over the stationary range (0,
    4), SPD H the search
    chooses.  (The corrected middle term E[((1 - k/2) theta + w) theta^T] is this same quantity.)"""
    rows = []
    for kk in free("k", [0.3, 1.0, 2.5], K_STAT):
        for H, _ in _instances():
            d = H.shape[0]
            Hinv = np.linalg.inv(H)
            Dm = (kk / 2) * Hinv
            A = np.eye(d) - Dm @ H
            Lam = linalg.solve_discrete_lyapunov(A, sym(2 * Dm - Dm @ H @ Dm))
            c = 1 - kk / 2 if coef is None else coef(kk)
            rows.append(({"k": kk, "dim": d}, float(np.abs(A @ Lam - c * Hinv).max()), 0.0,
                         _lyap_scale(H, abs(1 - kk / 2))))
    return instance_check(rows, "=", TOL, describe="A Lambda against (1 - k/2) H^-1")


# ============================================================================= §2.3.2 the
# convergence criterion
def _criterion_domain():
    """The free scalars of the criterion's checks: n, N, |S|/N, C, G and k as a fraction of the
    admissible k*
    (Eq. (8), scalar case); yields (n, N, S, C, G, k)."""
    for n_ in free("n", [10, 3], Int(1, 300, log=True)):
        for Nd, S, C, G in _scalar_case([1000, 200], [0.1, 0.01], [1.0, 0.25], [1.0], 1e8):
            for f in free("k/k*", [0.1], Real(1e-6, 1.0)):
                yield int(n_), Nd, S, C, G, f * admissible_k_scalar(Nd, S, C, G)


def _window(n_, Nd, S, C, G, kk):
    """(mean, coefficients) of (1/n) sum Y_i and of (1/n) sum grad log p(theta_i) at stationarity
    (exact linear
    maps of independent normals, :func:`._kit.scalar_chain`)."""
    h, sx2, D, _, means, coefs = scalar_chain(n_, Nd, S, C, G, kk)
    Ybar = sum(coefs[("Y", i)] for i in range(1, n_ + 1)) / n_
    gbar = sum(-h * coefs[("theta", i - 1)] for i in range(1, n_ + 1)) / n_
    return h, sx2, Ybar, gbar


def _criterion_clt(factor=1.0):
    """§2.3.2 first displays, read as: the averaged minibatch noise (1/n) sum (Y_i - grad log
    p(theta_i)) is N(0, N^2 C/(n |S|)) (Eq. (4) with independent minibatches).  Exact: its variance
    from the linear maps of the
    scalar process at stationarity, over the free scalars (:func:`_criterion_domain`)."""
    rows = []
    for n_, Nd, S, C, G, kk in _criterion_domain():
        h, sx2, Ybar, gbar = _window(n_, Nd, S, C, G, kk)
        v = float(np.sum((Ybar - gbar) ** 2))
        rows.append(({"n": n_, "N": Nd, "|S|": S, "C": C, "G": G, "k": kk}, v, factor * sx2 / n_))
    o = instance_check(rows, "=", 1e-9, describe="Var of the averaged minibatch noise, exact")
    o.detail += (
        "; conditionally on the iterates the noises are not N(0, .): xi_i moves theta_(i+1), which "
        "the next display's sum of variances ignores (charged to sgfs.17.var)")
    return o


def _criterion_sign():
    th, h = sp.symbols("theta h", real=True)
    # log p = -(theta - theta_MAP)^T H (theta - theta_MAP)/2 + c
    grad = sp.diff(-(h * th ** 2 / 2), th)
    printed = th * h
    o = sym_equal(grad, printed, domain={th: Real(0.1, 3.0), h: Real(0.1, 3.0)})
    o.correction = ("grad log p(theta | x) ~ -H (theta - theta_MAP) (the sign is lost; irrelevant "
                    "for |mean| in (17))")
    return o


def _criterion_sign_corrected():
    """The correction: the gradient of the quadratic (6) is -H (theta - theta_MAP): 2 x 2 symbolic H
    (symmetric).
    """
    h11, h12, h22, a, b, m1, m2 = sp.symbols("h11 h12 h22 theta1 theta2 m1 m2", real=True)
    Hm = sp.Matrix([[h11, h12], [h12, h22]])
    x = sp.Matrix([a - m1, b - m2])
    logp = -(x.T * Hm * x)[0] / 2
    grad = sp.Matrix([sp.diff(logp, a), sp.diff(logp, b)])
    lhs, rhs, w = matrix_identity(grad, -Hm * x)
    box = Real(-1e3, 1e3)
    return sym_equal(lhs, rhs, domain={s: box for s in (h11, h12, h22, a, b, m1, m2, *w)})


def _criterion_var():
    """Var of the mean of n gradients at stationarity vs the printed (NC + G)/n + N^2/(n|S|), scalar
    case.
    """
    rows = []
    from simulate.sgfs import window_mean_sd

    for n_, Nd, S, C, G, kk in ((10, 1000, 100, 1.0, 1.0, 0.1), (10, 1000, 100, 0.5, 10.0, 0.05),
                                (50, 200, 20, 2.0, 0.0, 0.2)):
        h = Nd * C + G
        rows.append(({"n": n_, "N": Nd, "S": S, "C": C, "G": G, "k": kk},
                     window_mean_sd(n_, Nd, S, C, G, kk) ** 2,
                     h / n_ + Nd ** 2 / (n_ * S)))
    o = instance_check(rows, "=", 1e-9,
                       describe="exact stationary covariance of the scalar process")
    o.correction = (
        "Var[(1/n) sum Y_i] = (1/n^2)[h (n + 2 sum_d (n-d) rho^d) - k sigma^2 sum_d (n-d) "
        "rho^(d-1) + n sigma^2], rho = 1 - k/2, h = NC + G, sigma^2 = N^2 C/|S| (bounds: "
        "sgfs_convergence_criterion, corrected)")
    return o


def _criterion_var_corrected():
    """The correction (bounds.sgmcmc's corrected threshold with b = 1) against the variance of (1/n)
    sum Y_i
    from the exact linear maps (:func:`._kit.scalar_chain`: an independent computation), over the
    free scalars."""
    from verify.registry import bound_value

    rows = []
    for n_, Nd, S, C, G, kk in _criterion_domain():
        h, sx2, Ybar, _ = _window(n_, Nd, S, C, G, kk)
        exact = float(np.sqrt(np.sum(Ybar ** 2)))
        corr = bound_value("sgfs_convergence_criterion", "threshold", "corrected", n_avg=n_,
                           n_data=Nd, batch=S,
                           fisher=C, prior=G, b=1.0, k_frac=kk)
        rows.append(({"n": n_, "N": Nd, "|S|": S, "C": C, "G": G, "k": kk}, exact, float(corr)))
    return instance_check(rows, "=", 1e-7,
                          describe="sd of the window mean: exact linear maps vs the corrected "
                                   "closed form")


_CRIT_CE = dict(n=10, N=1000, S=100, C=0.25, G=1.0, k=0.1, b=1.0)


def _criterion_pass(corrected):
    """(17) at stationarity: P(|(1/n) sum Y_i| <= threshold) from the exact law of the window mean
    (normal, mean 0, variance from the linear maps), against the 2 Phi(b) - 1 a b-sd band gives.
    Printed threshold (the step) or
    b times the exact sd (the correction, over the free scalars and b in (0, 2])."""
    rows = []
    pts = (list(_criterion_domain()) if corrected
           else [tuple(_CRIT_CE[x] for x in ("n", "N", "S", "C", "G", "k"))])
    bs = free("b", [1.0, 0.5], Real(1e-3, 2.0)) if corrected else [_CRIT_CE["b"]]
    for n_, Nd, S, C, G, kk in pts:
        h, sx2, Ybar, _ = _window(n_, Nd, S, C, G, kk)
        sd = float(np.sqrt(np.sum(Ybar ** 2)))
        for b in bs:
            thr = b * sd if corrected else b * math.sqrt((Nd * C + G) / n_ + Nd ** 2 / (n_ * S))
            p = float(2 * stats.norm.cdf(thr / sd) - 1)
            rows.append(({"n": n_, "N": Nd, "|S|": S, "C": C, "G": G, "k": kk, "b": b,
                          "threshold": thr,
                          "exact sd": sd}, p, float(2 * stats.norm.cdf(b) - 1)))
    o = instance_check(rows, "=", 1e-9, describe="probability that a stationary window passes (17)")
    if corrected:
        return o
    return explain(
        o, why="the printed threshold is not b standard deviations of the window mean at "
               "stationarity (the factor C and the autocorrelation of the iterates are missing), "
               "so (17) does not pass a stationary chain with the probability 2 Phi(b) - 1 its "
               "derivation gives: ",
        correction="b times the exact stationary sd (bounds: sgfs_convergence_criterion, "
                   "corrected)")


# ============================================================================= the steps
step("sgfs.var1", check=_var1)
step("sgfs.stationary", check=lambda: _stationary_iff(),
     corrected=lambda: _stationary_iff_corrected())
step("sgfs.stationary.suff", check=_loewner_sufficient)
step("sgfs.k01", check=_stationary_k, reading=EQUIVALENT, corrected=_stationary_k_corrected)
step("sgfs.k01.suff", check=_k01_sufficient, reading=SUFFICIENT)
step("sgfs.32", check=lambda: _eq32_transpose(), corrected=lambda: _eq32_corrected())
step("sgfs.lambda", check=_series_sum)
step("sgfs.lambda.matrix", check=lambda: _lyapunov())
step("sgfs.exact", check=lambda: _exact_noise())
step("sgfs.11",
     check=lambda: (lambda h, c, Nd, S: sym_equal(
               (2 * k / (2 * h) - (Nd ** 2 / S) * (k / (2 * h)) ** 2
                * c
                - (k / (2 * h)) ** 2 * h) / k,
               1 / h - (k / 4) * (Nd / S) * (Nd * c) / h ** 2
               - (k / 4) / h,
               domain={h: Real(1e-6, 1e8, log=True),
                       c: Real(1e-8, 1e4, log=True),
                       Nd: Real(1, 1e6, log=True),
                       S: Real(1, 1e6, log=True),
                       k: Real(1e-6, 4.0)}))(
                               *sp.symbols("h c N S", positive=True)))
step("sgfs.12", check=_eq12)
step("sgfs.12.iff", check=_eq12_iff)
step("sgfs.13", check=_admissible("13"))
step("sgfs.weak", check=_weak_prior_noise, corrected=_weak_prior_corrected)
step("sgfs.14",
     check=lambda: (lambda S, Nd,
                    c: sym_equal((4 * S / (Nd + S)) / 2 / (Nd * c), 2 * S / ((Nd + S) * Nd) / c,
                                 domain={S: Real(1, 1e6, log=True),
                                         Nd: Real(1, 1e6, log=True),
                                         c: Real(1e-8, 1e4, log=True)}))(
                                                           *sp.symbols("S N c",
                                                                       positive=True)))
step("sgfs.15", check=_admissible("15"))
step("sgfs.15.algebra",
     check=lambda: sym_equal(sp.solve(sp.Eq((1 - k / 4) * sp.Symbol("r", positive=True),
                                            (k / 4) * sp.Symbol("a", positive=True)), k)[0],
                             4 * sp.Symbol("r",
                                           positive=True)
                                     / (sp.Symbol("r", positive=True)
                                        + sp.Symbol("a", positive=True)),
                             domain={sp.Symbol("r", positive=True): Real(1e-8, 1e8, log=True),
                                     sp.Symbol("a", positive=True): Real(1.0, 1e6, log=True)}))
step("sgfs.strong", check=_strong_prior, corrected=_strong_prior_corrected)
step("sgfs.16", check=_admissible("16"))
step("sgfs.vart.sum", check=_var_trajectory(True), corrected=_var_trajectory_corrected)
step("sgfs.vart", check=_var_trajectory(False), corrected=_var_trajectory_corrected)
step("sgfs.rate", check=_largest_k, corrected=_largest_k_corrected)
step("sgfs.autocov.mid", check=_autocov_intermediate, corrected=lambda: _autocov())
step("sgfs.autocov", check=lambda: _autocov())
step("sgfs.17.clt", check=lambda: _criterion_clt())
step("sgfs.17.grad", check=_criterion_sign, corrected=_criterion_sign_corrected)
step("sgfs.17.var", check=_criterion_var, corrected=_criterion_var_corrected)
step("sgfs.17", check=lambda: _criterion_pass(False), corrected=lambda: _criterion_pass(True))


# ---- findings of the independent hunt (2026-11)
# An independent error hunt (code sharing nothing with this toolkit) reported the errors below with
# exact counterexamples; every lhs/rhs here is recomputed with the toolkit's own machinery (scipy's
# discrete Lyapunov solver as in the steps above, sympy), and tests/test_audit_findings.py pins them
# against the hunt's numbers.  Each correction is checked by its own searched check
# (``corrected=``).
# D = diag(1, 1/100) and H = [[1, 9], [9, 100]]: SPD, D H != H D (the hunt's pair)
_D_NC = np.diag([1.0, 0.01])
_H_NC = np.array([[1.0, 9.0], [9.0, 100.0]])


def _noncommuting_pairs():
    """(D, H): the hunt's pair first, then D = (k/2) H^-1 on random SPD H (commuting: the printed
    forms hold).
    """
    g = np.random.default_rng(32)
    out = [(_D_NC, _H_NC)]
    for d in (2, 3):
        H = _spd(g, d)
        out.append((0.4 * np.linalg.inv(H), H))
    return out


def _stationary_iff():
    """'stationary distribution iff -I < I - eps D H < I' (eps = 1): stationarity (spectral radius
    of I - D H below one, the Lyapunov solve then exists) against the Loewner condition, read for
    the
    non-symmetric I - D H as x^T (I -+ (I - DH)) x > 0, i.e. the eigenvalues of its symmetric part
    in (-1, 1)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        rho = float(np.max(np.abs(np.linalg.eigvals(A))))
        sy = np.linalg.eigvalsh(0.5 * (A + A.T))
        loewner = bool(sy.min() > -1 and sy.max() < 1)
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(),
                      "spectral radius of I - DH": round(rho, 10),
                      "eigenvalues of the symmetric part": [round(float(e), 10) for e in sy]},
                     float(rho < 1), float(loewner)))
    return first_failing(
        rows, "=", 0.0, "1 = holds, 0 = fails",
        why=("I - eps D H is not symmetric when D and H do not commute, and the Loewner order is "
             "the wrong test: stationary (spectral radius 0.9 < 1) although the symmetric part has "
             "eigenvalues +-4.545: "),
        correction="stationary iff every eigenvalue of eps D H lies in (0, 2) (D > 0; they are "
                   "real: D H ~ D^1/2 H D^1/2)")


def _scaled_pairs(name, fixed, dom):
    """(D, H, s, eps D): pairs the search chooses with eps D scaled so that the largest eigenvalue
    of eps D H is s.
    """
    for D0, H in searchable("spd2", fixed_pairs()):
        if not _pd(D0, H):
            continue
        lam = float(np.linalg.eigvals(D0 @ H).real.max())
        for s in free(name, fixed, dom):
            yield D0, H, s, D0 * (s / lam)


def _stationary_iff_corrected():
    """The correction, both directions: rho(I - eps DH) < 1 (eigenvalues of the non-symmetric
    matrix) iff the eigenvalues of eps D^1/2 H D^1/2 (a symmetric eigensolve) lie in (0, 2); the
    largest of them s over (0, 4),
    across the boundary; points the float64 computation cannot decide are not instances."""
    rows = []
    for Dm, H, s, E in _scaled_pairs("s", [0.5, 1.9, 2.1, 3.5], Real(1e-6, 4.0)):
        d = H.shape[0]
        A = np.eye(d) - E @ H
        rho = float(np.max(np.abs(np.linalg.eigvals(A))))
        w, V = np.linalg.eigh(E)
        R = (V * np.sqrt(np.maximum(w, 0))) @ V.T
        ev = np.linalg.eigvalsh(sym(R @ H @ R))
        err = 64 * d * U * kappa(E) * kappa(H) * max(1.0, s)
        if abs(rho - 1) < err or min(abs(ev[0]), abs(ev[-1] - 2)) < err:
            continue
        rows.append(({"largest eig(eps DH)": s, "dim": d, "spectral radius": rho}, float(rho < 1),
                     float(ev[0] > 0 and ev[-1] < 2)))
    return instance_check(rows, "=", 0.0, describe="stationary iff eig(eps D H) in (0, 2)")


def _eq32_transpose():
    """Eq. (32) as printed, Lambda = (I - eps DH) Lambda (I - eps DH) + 2 eps D, at the true
    stationary covariance
    of the VAR(1) (scipy's discrete Lyapunov solve of Lambda = A Lambda A^T + 2 D, eps = 1)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        Lam = linalg.solve_discrete_lyapunov(A, 2 * Dm)
        printed = A @ Lam @ A + 2 * Dm
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(), "entry": "(1, 1)",
                      "max |Lambda - printed|": float(np.abs(Lam - printed).max())},
                     float(Lam[0, 0]),
                     float(printed[0, 0])))
    return first_failing(
        rows, "=", 1e-9, "true stationary covariance vs the right side of (32)",
        why=("the stationary covariance of x' = A x + e is A Lambda A^T + Cov e; A = I - eps D H "
             "is not symmetric unless D and H commute (with D = (k/2) H^-1 it is scalar and the "
             "printed form holds): "),
        correction="Lambda = (I - eps DH) Lambda (I - eps DH)^T + 2 eps D = (I - eps DH) Lambda (I "
                   "- eps HD) + 2 eps D")


def _stationary_series(A, Q):
    """The stationary covariance as the limit of Var[theta_t] = sum_{i<t} A^i Q A^iT (from theta_0 =
    0), by doubling
    (V_2m = V_m + A^m V_m A^mT) until ||A^m|| is below the unit roundoff; and the number of
    doublings."""
    V, P, j = Q.copy(), A.copy(), 0
    while n2(P) > U * 1e-3 and j < 80:
        V = V + P @ V @ P.T
        P = P @ P
        j += 1
    return V, j


def _eq32_corrected():
    """The correction (with the transpose): the stationary covariance (the series, by doubling: an
    independent computation) satisfies Lambda = A Lambda A^T + 2 eps D, A = I - eps DH, for pairs
    (D, H) the search chooses
    with the largest eigenvalue s of eps DH over (0, 2) (the stationary range)."""
    rows = []
    for Dm, H, s, E in _scaled_pairs("s", [0.4, 1.0, 1.9], Real(1e-4, 2.0 - 1e-6)):
        d = H.shape[0]
        A = np.eye(d) - E @ H
        Q = 2 * E
        Lam, j = _stationary_series(A, Q)
        res = float(np.abs(Lam - A @ Lam @ A.T - Q).max())
        rows.append(({"largest eig(eps DH)": s, "dim": d, "doublings": j}, res, 0.0,
                     n2(Lam) * (1 + j) * kappa(E) * kappa(H) * d))
    return instance_check(rows, "=", TOL,
                          describe="residual of the corrected (32) at the series' limit")


def _eq32_series():
    """The series solution 2 eps sum_i (I - eps DH)^i D (I - eps DH)^i as printed against the true
    stationary
    covariance (eps = 1, 400 terms: the terms decay like 0.81^i here)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        Lam = linalg.solve_discrete_lyapunov(A, 2 * Dm)
        series, Ai = np.zeros_like(Dm), np.eye(H.shape[0])
        for _ in range(400):
            series += 2 * Ai @ Dm @ Ai
            Ai = Ai @ A
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(), "entry": "(1, 1)"},
                     float(Lam[0, 0]),
                     float(series[0, 0])))
    return first_failing(
        rows, "=", 1e-9, "true stationary covariance vs the printed series")


def _eq32_series_corrected():
    """The corrected series 2 eps sum_i A^i D A^iT (by doubling) against the Kronecker solve of
    (I - A (x) A) vec(Lambda) = vec(2 eps D) (another computation), pairs (D, H) the search
    chooses."""
    rows = []
    for Dm, H, s, E in _scaled_pairs("s", [0.4, 1.0, 1.9], Real(1e-4, 2.0 - 1e-6)):
        d = H.shape[0]
        A = np.eye(d) - E @ H
        Lam, j = _stationary_series(A, 2 * E)
        K = np.eye(d * d) - np.kron(A, A)
        vec = np.linalg.solve(K, (2 * E).reshape(-1)).reshape(d, d)
        rho = float(np.max(np.abs(np.linalg.eigvals(A))))
        rows.append(({"largest eig(eps DH)": s, "dim": d}, float(np.abs(Lam - vec).max()), 0.0,
                     n2(Lam) * (1 + j) * kappa(E) * kappa(H) * d / max(1 - rho * rho, 1e-300)))
    return instance_check(rows, "=", TOL,
                          describe="the corrected series against the Kronecker solve")


def _discretisation_error():
    """§2.1.2: the discretisation error 'is inversely proportional to the sizes of D': process (7)
    in 1-D, H = 1,
    eps = 1, the relative error of its stationary variance (Lyapunov solve) as D grows."""
    rows = []
    Ds = (0.005, 0.05, 0.5, 1.0)
    err = {}
    for d in Ds:
        A, Q = np.array([[1.0 - d]]), np.array([[2.0 * d]])
        err[d] = float(linalg.solve_discrete_lyapunov(A, Q)[0, 0]) - 1.0  # H^-1 = 1
    for small, big in zip(Ds, Ds[1:]):
        rows.append(({"H": 1, "D larger": big, "D smaller": small}, err[big], err[small]))
    return first_failing(
        rows, "<=", 1e-12, "relative error of the stationary variance, larger D vs smaller D")


def _discretisation_corrected():
    """The correction for D = (k/2) H^-1 (the report's family; eps = 1): the relative error of the
    stationary covariance of (7) (Lyapunov solve, in units of H^-1) at D_small = f D_large is <= the
    error at D_large, and
    it vanishes as D -> 0; k_large over (0, 4), f in (0, 1), SPD H the search chooses."""
    rows = []
    for kl in free("k", [0.01, 1.0, 3.0], K_STAT):
        for f in free("f", [0.1, 0.9], Real(1e-6, 1.0)):
            for H, _ in _instances():
                d = H.shape[0]
                Hinv = np.linalg.inv(H)
                L = np.linalg.cholesky(H)
                errs, scales = [], []
                for kk in (f * kl, kl):
                    Dm = (kk / 2) * Hinv
                    A = np.eye(d) - Dm @ H
                    Lam = linalg.solve_discrete_lyapunov(A, 2 * Dm)
                    errs.append(float(np.linalg.eigvalsh(sym(L.T @ Lam @ L)).max() - 1))
                    scales.append(_lyap_scale(H, abs(1 - kk / 2)) * n2(H))
                rows.append(({"k small": f * kl, "k large": kl, "dim": d}, errs[0], errs[1],
                             max(scales)))
    return instance_check(rows, "<=", TOL,
                          describe="error of the stationary covariance at the smaller D against "
                                   "the larger")


def _eq5_transpose():
    """Eq. (5): the covariance of the noise (D + Q) xi with Cov xi = C' (= N^2 C/|S|), exactly from
    a discrete xi (+-sqrt(2) e_i with probability 1/4 each: mean 0, covariance I), against the
    printed (D + Q) C' (D + Q);
    D = I, Q = [[0, 1], [-1, 0]] (skew, as the recipe requires)."""
    Dm, Q = np.eye(2), np.array([[0.0, 1.0], [-1.0, 0.0]])
    M = Dm + Q
    xs = [s * math.sqrt(2.0) * e for e in np.eye(2) for s in (1.0, -1.0)]
    cov = sum((0.25 * np.outer(M @ x, M @ x) for x in xs), np.zeros((2, 2)))
    printed = M @ np.eye(2) @ M
    rows = [({"D": "I", "Q": [[0, 1], [-1, 0]], "C'": "I", "entry": f"({i + 1}, {j + 1})"},
             float(cov[i, j]),
             float(printed[i, j]))
            for i in range(2) for j in range(2)]
    return first_failing(
        rows, "=", 1e-12, "exact covariance of (D + Q) xi vs the printed B")


def _eq5_corrected():
    """The correction: the covariance of (D + Q) xi, computed from the atoms of a discrete xi with
    covariance C (+-sqrt(d) L e_i, probability 1/(2d) each, C = L L^T), equals (D + Q) C (D + Q)^T;
    (D, C) pairs the search
    chooses, Q = w skew(D C) (skew), w in [1e-3, 1e3]."""
    rows = []
    for Dm, C in searchable("spd2", fixed_pairs(5)):
        d = Dm.shape[0]
        if not _pd(C):
            continue
        for w in free("w", [1.0, 10.0], Real(1e-3, 1e3, log=True)):
            P = Dm @ C
            Q = w * (P - P.T) / 2
            M = Dm + Q
            L = np.linalg.cholesky(C)
            xs = [s * math.sqrt(d) * L[:, i] for i in range(d) for s in (1.0, -1.0)]
            cov = sum(np.outer(M @ x, M @ x) for x in xs) / (2 * d)
            rows.append(({"dim": d, "w": w}, float(np.abs(cov - M @ C @ M.T).max()), 0.0,
                         n2(M) ** 2 * n2(C) * d))
    return instance_check(rows, "=", TOL,
                          describe="covariance of (D + Q) xi against (D + Q) C (D + Q)^T")


def _prior_counted():
    """§2.1.3 'p(theta|x) = prod_i p(x_i|theta) p(theta)' (and Eq. (3)): x_i ~ N(theta, 1), prior
    N(0, 1), N = 100:
    the precision -d^2/dtheta^2 log of the posterior vs of the printed product (sympy, per datum
    times N)."""
    th, x = sp.symbols("theta x", real=True)
    Nd = 100
    lik1 = -sp.diff(-(x - th) ** 2 / 2, th, 2)  # one datum's precision
    prior = -sp.diff(-th ** 2 / 2, th, 2)
    rows = [({"model": "x_i ~ N(theta, 1), prior N(0, 1)", "N": Nd}, float(Nd * lik1 + prior),
             float(Nd * (lik1 + prior)))]
    return first_failing(
        rows, "=", 1e-12, "posterior precision vs the printed target's")


def _gaussian_data():
    """The data of §2.1.3's Gaussian model checks: the atoms of a discrete law the search chooses
    (theta = its
    mean mu), model x ~ N(theta, s^2 I), prior N(0, tau^2 I), s^2 and tau^2 free; yields (data, mu,
    s^2, tau^2)."""
    for params, p, vals, mu in searchable("discrete", [({"case": "fixed", "d": 2},
                                                        np.full(3, 1 / 3),
                                                        np.array(
                                                            [[0.0, 1.0], [2.0, -1.0], [4.0, 0.5]]),
                                                        np.array([0.5, 0.2]))]):
        for s2 in free("s^2", [1.0], Real(1e-3, 1e3, log=True)):
            for tau2 in free("tau^2", [100.0], Real(1e-3, 1e6, log=True)):
                yield vals, mu, s2, tau2


def _prior_corrected():
    """The correction: grad^S = (N/|S|) sum_{j in S} grad log p(x_j | theta) + grad log p(theta)
    (|S| draws with replacement) has expectation grad log p(theta | x) = sum_i grad log p(x_i |
    theta) + grad log p(theta), the gradient of Bayes' posterior; exact expectation over the data's
    empirical law, model x ~ N(theta, s^2 I),
    prior N(0, tau^2 I), data = the atoms of a discrete law the search chooses, theta its mu."""
    rows = []
    for vals, mu, s2, tau2 in _gaussian_data():
        Nd = vals.shape[0]
        gl = (vals - mu) / s2  # grad log p(x_i | theta), one row per datum
        gp = -mu / tau2
        full = gl.sum(0) + gp
        mean_sg = Nd * gl.mean(0) + gp  # E over one uniform draw (|S| draws: the same mean)
        sc = (np.abs(gl).sum(0).max() + np.abs(gp).max()) * Nd
        rows += [({"component": j, "s^2": s2, "tau^2": tau2}, float(mean_sg[j]), float(full[j]), sc)
                 for j in range(vals.shape[1])]
    return instance_check(rows, "=", TOL, describe="E[grad^S] against the posterior's gradient")


def _fisher_chain(which):
    """§2.3.1 '-Hess log p(theta|x) = E_X[-Hess log p(theta|X)] = Var_X[grad log p(theta|X)] = N C':
    data x = (0, 4),
    model N(theta, 1), flat prior, theta = 2; E_X and Var_X under the data's empirical law, C :=
    Var_X[U]."""
    def fn():
        x = np.array([0.0, 4.0])
        th = sp.Symbol("theta", real=True)
        xi = sp.Symbol("x", real=True)
        logp1 = -(xi - th) ** 2 / 2  # log p(x_i | theta) up to a constant
        hess1 = sp.diff(logp1, th, 2)
        grad1 = sp.diff(logp1, th)
        at = {th: 2}
        members = [float(-sum(hess1.subs({xi: v, **at}) for v in x)),  # -Hess log p(theta | x)
                   float(np.mean([-hess1.subs({xi: v, **at}) for v in x])),  # E_X[-Hess]
                   float(np.var([float(grad1.subs({xi: v, **at})) for v in x])),  # Var_X[grad]
                   x.size * float(np.var([float(grad1.subs({xi: v, **at})) for v in x]))]  # N C
        rows = [({"x": [0, 4], "model": "N(theta, 1)", "theta": 2, "N": 2}, members[which],
                 members[which + 1])]
        return first_failing(
            rows, "=", 1e-12, "the chain's members on the data's empirical law",
            why=(("a sum over the N data against a per-datum average (a factor N)",
                  "the information identity E[-Hess] = Var[grad] holds under the model at the true "
                  "parameter, not under the data's empirical law",
                  "C := Var_X[U] is the per-datum variance, so Var_X[grad] = C, not N C")[which]
                  + ": "),
            correction=(
                "-Hess log p(x | theta) ~ N E_X[-Hess log p(X | theta)], and ~ N C only for a "
                "well-specified model with large N near the true parameter (C := Var_X[U] is "
                "already the per-datum variance)"))
    return fn


def _logistic_information(N_factor):
    """The correction's identities, logistic regression y ~ Bernoulli(sigmoid(theta^T x)) at its
    true theta, the covariates x distributed as a discrete law the search chooses (atoms up to 1e4,
    tiny masses): N E[-Hess log p(y | x, theta)] = N Var[grad log p(y | x, theta)] (the information
    identity; N C with
    C = Var[grad] per datum), exactly by enumeration over the atoms and y in {0, 1}."""
    def fn():
        rows = []
        fixed = ({"case": "fixed", "d": 2}, np.array([0.2, 0.5, 0.3]),
                 np.array([[0.0, 1.0], [2.0, -1.0], [4.0, 0.5]]), np.array([0.5, -0.2]))
        for params, p, vals, mu in searchable("discrete", [fixed]):
            Ns = free("N", [2, 1000], N_DATA) if N_factor else [1]
            z = vals @ mu
            sg = 1 / (1 + np.exp(-z))
            w = sg * (1 - sg)
            info = np.einsum("i,ij,ik->jk", p * w, vals, vals)  # E[-Hess] = E[s(1-s) x x^T]
            m = np.zeros(vals.shape[1])
            second = np.zeros((vals.shape[1],) * 2)
            for y, py in ((1.0, sg), (0.0, 1 - sg)):
                gr = (y - sg)[:, None] * vals  # grad log p(y | x, theta)
                m += (p * py) @ gr
                second += np.einsum("i,ij,ik->jk", p * py, gr, gr)
            var = second - np.outer(m, m)
            sc = float(np.einsum("i,ij,ik->jk", p, np.abs(vals), np.abs(vals)).max())
            for Nd in Ns:
                rows += [({"N": Nd, "entry": f"({a + 1}, {b + 1})"}, float(Nd * info[a, b]),
                          float(Nd * var[a, b]),
                          Nd * sc)
                         for a in range(vals.shape[1]) for b in range(vals.shape[1])]
        return instance_check(rows, "=", TOL,
                              describe="N E[-Hess] against N Var[grad] at the true parameter")
    return fn


def _fisher_sum_corrected():
    """The correction of the first '=': -Hess log p(x | theta) = N E_X[-Hess log p(X | theta)] (a
    sum over the data is N times the average under their empirical law), logistic regression, data
    the atoms of a discrete law the
    search chooses (responses y_i = 1 for the atoms with a positive first coordinate)."""
    rows = []
    for params, p, vals, mu in searchable("discrete", [({"case": "fixed", "d": 2},
                                                        np.full(3, 1 / 3),
                                                        np.array(
                                                            [[0.0, 1.0], [2.0, -1.0], [4.0, 0.5]]),
                                                        np.array([0.5, -0.2]))]):
        sg = 1 / (1 + np.exp(-(vals @ mu)))
        # Hess log p(y_i | x_i, theta)
        H_i = -(sg * (1 - sg))[:, None, None] * np.einsum("ij,ik->ijk", vals, vals)
        Nd = vals.shape[0]
        total = -H_i.sum(0)
        avg = Nd * (-H_i.mean(0))
        sc = float(np.abs(H_i).sum(0).max())
        rows += [({"entry": f"({a + 1}, {b + 1})", "N": Nd}, float(total[a, b]), float(avg[a, b]),
                  sc)
                 for a in range(vals.shape[1]) for b in range(vals.shape[1])]
    return instance_check(rows, "=", TOL,
                          describe="-sum of the Hessians against N times their average")


def _clt_minibatch():
    """§2.2 'assumption 1 [the CLT for the minibatch mean] holds almost always for |S| >= 50': N =
    10^4 per-datum gradients, one of them an outlier (value 1, the others 0), |S| = 50 drawn with
    replacement; the exact law of
    the minibatch count of the outlier (binomial) against its CLT normal, Kolmogorov distance."""
    Nd, S = 10 ** 4, 50
    ks, p0 = _binomial_ks(S, 1 / Nd)
    rows = [({"N": Nd, "|S|": S, "gradients": "one outlier, the rest 0",
              "P(minibatch mean = 0)": round(p0, 6)},
             ks, 0.0)]
    return first_failing(
        rows, "=", 0.05, "Kolmogorov distance to the CLT normal (tolerance 0.05)")


def _binomial_ks(S, p):
    """Kolmogorov distance between the count of Binomial(S, p) and its CLT normal N(S p, S p (1 -
    p)) (sup over
    both sides of every atom), and P(count = 0)."""
    kk = np.arange(S + 1)
    pk = stats.binom.pmf(kk, S, p)
    cdf = np.cumsum(pk)
    norm = stats.norm.cdf(kk, S * p, math.sqrt(S * p * (1 - p)))
    ks = float(max(np.abs(cdf - norm).max(), np.abs(np.r_[0.0, cdf[:-1]] - norm).max()))
    return ks, float(pk[0])


def _clt_corrected():
    """The correction (Berry-Esseen with Shevtsova's constant 0.4748): the Kolmogorov distance of a
    minibatch mean of |S| draws from a two-point gradient population (an outlier of frequency p) is
    at most
    min(1, 0.4748 (p^2 + (1-p)^2) / sqrt(|S| p (1-p))) (1: the trivial bound); p in [1e-8, 1/2], |S|
    in 1..1e4."""
    rows = []
    for p in free("p", [1e-4, 0.1, 0.5], Real(1e-8, 0.5, log=True)):
        for S in free("|S|", [50, 1000], Int(1, 10 ** 4, log=True)):
            ks, _ = _binomial_ks(int(S), p)
            be = 0.4748 * (p * p + (1 - p) ** 2) / math.sqrt(S * p * (1 - p))
            rows.append(({"p": p, "|S|": int(S)}, ks, min(1.0, be)))
    return instance_check(rows, "<=", 1e-12,
                          describe="Kolmogorov distance against the Berry-Esseen bound")


def _algorithm1_update():
    """Algorithm 1, line 8 'update theta according to (7)': the stationary covariance of (7) with D
    = (k/2) H^-1
    (Lyapunov solve) against H^-1, the posterior covariance the exact process (8) keeps."""
    rows = []
    g = np.random.default_rng(17)
    H = _spd(g, 2)
    Hinv = np.linalg.inv(H)
    for kk in (0.1, 4 * 10 ** 4 / (245057 + 10 ** 4)):
        A = np.eye(2) - (kk / 2) * Hinv @ H
        Lam = linalg.solve_discrete_lyapunov(A, kk * Hinv)
        rows.append(({"k": round(kk, 6), "entry": "Lambda / H^-1 (1, 1)"},
                     float(Lam[0, 0] / Hinv[0, 0]), 1.0))
    return first_failing(
        rows, "=", 1e-9, "stationary covariance of (7), in units of H^-1")


def _algorithm1_corrected():
    """The correction with the stochastic gradient's own noise: theta' = theta + D(-H theta + xi) +
    eta, xi ~ N(0, (N^2/|S|) C), eta ~ N(0, 2D - (N^2/|S|) DCD - DHD) (Eq. (8)), D = (k/2) H^-1, H =
    N C + G, k = f times the admissible k of (13): the stationary covariance (Lyapunov solve of the
    total noise) is H^-1; (C, G)
    pairs the search chooses, N, |S|/N, the prior's weight g, f in (0, 1]."""
    rows = []
    for C, G0 in _cg_pairs():
        d = C.shape[0]
        for Nd in free("N", [1000, 10], N_DATA):
            for fr in free("|S|/N", [0.01, 1.0], S_FRAC):
                S = _batch(Nd, fr)
                for gw in _weights(free("g", [1.0], G_W)):
                    for f in free("f", [0.5, 1.0], Real(1e-6, 1.0)):
                        kk = f * 4 * S / (Nd + S)
                        Q_eta, _, H, Hinv = _noise(C, gw * G0, Nd, S, kk)
                        Dm = (kk / 2) * Hinv
                        A = np.eye(d) - Dm @ H
                        total = sym(Dm @ ((Nd * Nd / S) * C) @ Dm + Q_eta)
                        Lam = linalg.solve_discrete_lyapunov(A, total)
                        rows.append(({"d": d, "N": Nd, "|S|": S, "g": gw, "k": kk},
                                     float(np.abs(Lam - Hinv).max()),
                                     0.0,
                                     _lyap_scale(H, abs(1 - kk / 2)) * (1
                                             + n2(Dm @ ((Nd * Nd / S) * C) @ Dm) / n2(Hinv))))
    return instance_check(rows, "=", TOL,
                          describe="stationary covariance of (8) with its gradient noise")


def _iw_moments(nu, nodes=200):
    """E L21^2 and the excess kurtosis of L21 = chol(Sigma)_21, Sigma ~ IW(I_2, nu), by
    Gauss-Hermite x generalised
    Gauss-Laguerre quadrature (Bartlett: a21 ~ N(0, 1), a22^2 ~ chi2_(nu-1))."""
    from scipy.special import gammaln, roots_genlaguerre, roots_hermitenorm

    xa, wa = roots_hermitenorm(nodes)
    wa = wa / math.sqrt(2 * math.pi)
    al = (nu - 1) / 2 - 1
    xt, wt = roots_genlaguerre(nodes, al)
    wt = wt * math.exp(-gammaln(al + 1))
    a, u = xa[:, None], 2 * xt[None, :]  # u = a22^2 ~ chi2_(nu-1)
    W = wa[:, None] * wt[None, :]
    L21 = a / (np.sqrt(u) * np.sqrt(a * a + u))
    m2, m4 = float((W * L21 ** 2).sum()), float((W * L21 ** 4).sum())
    return m2, m4 / m2 ** 2 - 3


def _iw_cholesky():
    """Fig. 3 caption: the Cholesky off-diagonals of Sigma ~ inverse-Wishart 'are normally
    distributed'.  Sigma ~ IW(I_2, nu), Sigma = W^-1, W = A A^T (Bartlett: a21 ~ N(0, 1), a22^2 ~
    chi2_(nu-1)): L21 = chol(Sigma)_21 = -a21/(a22 sqrt(a21^2 + a22^2)); its excess kurtosis by
    Gauss-Hermite x generalised Gauss-Laguerre quadrature
    (a normal has 0)."""
    rows = []
    for nu in (30, 10):
        m2, kurt = _iw_moments(nu)
        rows.append(({"Sigma": "IW(I_2, nu)", "nu": nu, "E L21^2": round(m2, 12)}, kurt, 0.0))
    return first_failing(
        rows, "=", 1e-6, "excess kurtosis of chol(Sigma)_21")


def _iw_corrected():
    """The correction 'heavier-tailed than normal': the excess kurtosis of chol(Sigma)_21 is > 0 for
    every nu in
    10..2000 (the fourth moment needs nu > 9); quadrature with 200 nodes, checked against 300
    nodes."""
    rows = []
    for nu in free("nu", [10, 30, 300], Int(10, 2000, log=True)):
        m2, kurt = _iw_moments(int(nu))
        _, kurt3 = _iw_moments(int(nu), 300)
        rows.append(({"nu": int(nu), "E L21^2": m2, "kurtosis with 300 nodes": kurt3},
                     min(kurt, kurt3), 0.0,
                     abs(kurt - kurt3) / TOL))
    return instance_check(rows, ">", TOL, describe="excess kurtosis of chol(Sigma)_21 > 0")


def _beta_update():
    """Eq. (27) beta^(i) = (X X^T)^-1 X^T (y - Z a): X is N x p, so X X^T (N x N) has rank p < N and
    no inverse.
    """
    g = np.random.default_rng(27)
    X = g.standard_normal((12, 3))
    rows = [({"N": 12, "p": 3}, float(np.linalg.matrix_rank(X @ X.T)), float(X.shape[0]))]
    return first_failing(
        rows, "=", 0.0, "rank of X X^T vs its size (what the inverse needs)")


def _beta_corrected():
    """The correction: beta = (X^T X)^-1 X^T (y - Z a) zeroes the gradient of (26) in beta, X^T (y -
    X beta - Z a) (and (26) is convex in beta: X^T X >= 0), on linear mixed models the search
    chooses (:class:`._kit.Lmm`),
    a from the E-step at the model's own (beta, G, sigma)."""
    from ._kit import fixed_lmms

    rows = []
    for m in searchable("lmm", fixed_lmms()):
        X, Z, y, G = m["X"], m["Z"], m["y"], m["G"]
        a = np.linalg.solve(Z.T @ Z + np.linalg.inv(G), Z.T @ (y - X @ m["beta"]))
        b = np.linalg.solve(X.T @ X, X.T @ (y - Z @ a))
        grad = X.T @ (y - X @ b - Z @ a)
        sc = n2(X) * (np.linalg.norm(y)
                      + np.linalg.norm(Z @ a)) * np.linalg.cond(X.T @ X) * X.shape[1]
        rows.append(({"N": X.shape[0], "p": X.shape[1], "q": Z.shape[1]}, float(np.abs(grad).max()),
                     0.0, sc))
    return instance_check(rows, "=", TOL, describe="gradient of (26) in beta at the corrected (27)")


step("sgfs.32.series", check=_eq32_series, corrected=_eq32_series_corrected)
step("sgfs.discretisation", check=_discretisation_error, corrected=_discretisation_corrected)
step("sgfs.eq5", check=_eq5_transpose, corrected=_eq5_corrected)
step("sgfs.prior", check=_prior_counted, corrected=_prior_corrected)
step("sgfs.fisher.1", check=_fisher_chain(0), corrected=_fisher_sum_corrected)
step("sgfs.fisher.2", check=_fisher_chain(1), corrected=_logistic_information(False))
step("sgfs.fisher.3", check=_fisher_chain(2), corrected=_logistic_information(True))
step("sgfs.clt50", check=_clt_minibatch, corrected=_clt_corrected)
step("osgfs.update", check=_algorithm1_update, corrected=_algorithm1_corrected)
step("lmm.27", check=_beta_update, corrected=_beta_corrected)
step("fig3.cholesky", check=_iw_cholesky, corrected=_iw_corrected)
