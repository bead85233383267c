"""Audit of El hanchi (2018), "Stochastic gradient MCMC algorithms and their applications": §2.3.1 Eqs. (11)-(16), §2.3.2 Eq. (17) and the Appendix.

Matrix statements are checked on random symmetric positive definite instances; with
D = (k/2) H^-1 every matrix is a multiple of H^-1, so scalar algebra is checked with sympy.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import linalg

from .checks import EQUIVALENT
from verify.audit.engine import EXACT, VALID, WRONG, Outcome, fixed, instance_check, searchable, step, sym_equal
from verify.audit.engine import first_failing as _first_failing  # noqa: E402

SEED = "002"  # El hanchi (2018)
k, eps, t = sp.symbols("k epsilon t", positive=True)


def _spd(g, d, scale=1.0):
    A = g.standard_normal((d, d))
    return scale * (A @ A.T + d * np.eye(d))


def _instances(n=8, seed=2):
    g = np.random.default_rng(seed)
    return searchable("spd", [(_spd(g, d), g) for d in (1, 2, 3, 5) for _ in range(n // 4)])


def _stationary_k():
    rows = []
    for kk in (0.5, 1.0, 2.0, 3.0, 3.9):
        for H, _ in _instances():
            A = np.eye(H.shape[0]) - (kk / 2) * np.linalg.solve(H, H)
            rows.append(({"k": kk, "eps": 1, "dim": H.shape[0]}, float(np.max(np.abs(np.linalg.eigvals(A)))) < 1, kk < 1))
    o = instance_check(lambda: [(p, float(a), float(b)) for p, a, b in rows], "=", 0.0,
                       describe="spectral radius of I - DH < 1 (stationary) vs the printed k < 1")
    if o.status == WRONG:
        o.detail = "the VAR(1) is stationary for every k < 4 (e.g. k = 2 gives I - DH = 0): " + o.detail
        o.correction = "k in (0, 4/eps); for eps = 1, k in (0, 4)"
    return o


def _lyapunov():
    rows = []
    for H, _ in _instances():
        for kk, e in ((0.5, 1.0), (1.5, 0.5), (3.0, 1.0)):
            Hinv = np.linalg.inv(H)
            Dm = (kk / 2) * Hinv
            A = np.eye(H.shape[0]) - e * Dm @ H
            Lam = linalg.solve_discrete_lyapunov(A, 2 * e * Dm)
            rows.append(({"k": kk, "eps": e, "dim": H.shape[0]}, float(np.abs(Lam - Hinv / (1 - kk * e / 4)).max()), 0.0))
    return instance_check(lambda: rows, "=", 1e-9, describe="discrete Lyapunov solves")


def _series_sum():
    i = sp.Symbol("i", integer=True, nonnegative=True)
    X = sp.Symbol("X", positive=True)
    s = sp.Sum(X ** i, (i, 0, sp.oo)).doit()
    s = s.args[0][0] if isinstance(s, sp.Piecewise) else s
    lhs = k * eps * s.subs(X, (1 - k * eps / 2) ** 2)
    return sym_equal(lhs, 1 / (1 - k * eps / 4),
                     domain={k: lambda rng: sp.Float(rng.uniform(0.01, 1.9), 50), eps: lambda rng: sp.Float(rng.uniform(0.1, 2), 50)})


def _exact_noise():
    rows = []
    g = np.random.default_rng(4)
    for H, _ in _instances():
        d = H.shape[0]
        for _ in range(3):
            Dm = np.linalg.inv(H) * g.uniform(0.1, 0.9)
            A = np.eye(d) - Dm @ H
            Q = 2 * Dm - Dm @ H @ Dm
            Lam = linalg.solve_discrete_lyapunov(A, Q)
            rows.append(({"dim": d}, float(np.abs(Lam - np.linalg.inv(H)).max()), 0.0))
    return instance_check(lambda: rows, "=", 1e-9, describe="Lyapunov solves with Q = 2D - DHD")


def _var_trajectory(printed_sum):
    def fn():
        rows = []
        for kk in (0.5, 1.0, 1.8):
            v, a, noise = 0.0, 1 - kk / 2, kk - kk * kk / 4
            for tt in range(0, 6):
                ref = noise * sum(a ** (2 * i) for i in range(tt + 1)) if printed_sum else 1 - a ** tt
                rows.append(({"k": kk, "t": tt}, v, ref))
                v = a * a * v + noise
        o = instance_check(lambda: rows, "=", 1e-12, describe="exact recursion Var[theta_t] from theta_0 = theta_MAP")
        o.correction = "Var[theta_t] = (k - k^2/4) sum_{i=0}^{t-1} (1-k/2)^(2i) H^-1 = [1 - (1 - k/2)^(2t)] H^-1"
        return o
    return fn


def _autocov_intermediate():
    """The printed E[(k/2 theta + w)^T theta] vs the exact lag-one covariance, scalar H = 1, at stationarity."""
    rows = []
    for kk in (0.25, 0.5, 1.0, 1.5):
        a = 1 - kk / 2
        noise = kk - kk * kk / 4
        var = noise / (1 - a * a)  # stationary variance of theta (= 1 = H^-1)
        rows.append(({"k": kk, "H": 1}, (kk / 2) * var, a * var))  # printed coefficient vs recursion's
    o = instance_check(lambda: rows, "=", 1e-12, describe="stationary scalar process")
    o.correction = "E[((1 - k/2) theta_t-1 + w_t-1) theta_t-1^T] = (1 - k/2) H^-1 (the coefficient is 1 - k/2)"
    return o


def _autocov():
    rows = []
    for H, _ in _instances():
        for kk in (0.3, 1.0, 2.5):
            Hinv = np.linalg.inv(H)
            A = np.eye(H.shape[0]) - (kk / 2) * Hinv @ H
            rows.append(({"k": kk, "dim": H.shape[0]}, float(np.abs(A @ Hinv - (1 - kk / 2) * Hinv).max()), 0.0))
    return instance_check(lambda: rows, "=", 1e-10)


def _admissible(which):
    def fn():
        rows = []
        g0 = np.random.default_rng(7)
        fixed = [(_spd(g0, d, 0.1), np.random.default_rng(70 + d)) for d in (1, 2, 4)]
        for C, g in searchable("spd", fixed):  # C = the per-datum information; Hypothesis: random SPD C
            d = C.shape[0]
            for Nd, S in ((100, 10), (1000, 50), (50, 50)):
                for Gs in (0.0, 1.0, 100.0):
                    G = Gs * _spd(g, d, 0.1)
                    H = Nd * C + G
                    Hinv = np.linalg.inv(H)
                    if which == "13":
                        kk = 4 * S / (Nd + S)
                    else:
                        rr = np.linalg.eigvalsh(Hinv).min() / np.linalg.eigvalsh(Hinv @ (Nd * C) @ Hinv).max()
                        kk = 4 * rr / (rr + Nd / S)
                    Dm = (kk / 2) * Hinv
                    Q = 2 * Dm - (Nd ** 2 / S) * Dm @ C @ Dm - Dm @ H @ Dm
                    rows.append(({"d": d, "N": Nd, "S": S, "G": Gs, "k": kk}, float(np.linalg.eigvalsh(0.5 * (Q + Q.T)).min()), 0.0))
        return instance_check(lambda: rows, ">=", 1e-10, describe="min eigenvalue of the injected noise at the admissible k")
    return fn


def _strong_prior():
    NC = np.diag([1.0, 100.0])
    G = np.eye(2)
    H = NC + G
    Hinv = np.linalg.inv(H)
    rr = np.linalg.eigvalsh(Hinv).min() / np.linalg.eigvalsh(Hinv @ NC @ Hinv).max()
    return Outcome(WRONG, f"G = I matches N C = diag(1, 100) in its first direction (a strong prior there), yet r = {rr:.4g} < 1",
                   counterexample={"at": {"NC": "diag(1, 100)", "G": "I"}, "lhs": float(rr), "rhs": 1.0},
                   correction="r > 1 needs lambda_min(H^-1) > lambda_max(H^-1 N C H^-1), which a strong prior does not imply "
                              "when N C is ill-conditioned", method="instances")


def _weak_prior_noise():
    S, Nd = sp.symbols("S N", positive=True)
    kmax = 4 * S / (Nd + S)
    total = kmax  # 2D = k H^-1 (units of H^-1)
    ratio = sp.limit(total / (2 * S / Nd), S, 0)
    return Outcome(WRONG, f"with k = 4|S|/(N+|S|) the total noise 2D = k H^-1 ~ 4|S|/N H^-1, twice the printed 2|S|/N "
                          f"(ratio {sp.sstr(ratio)} as |S|/N -> 0)",
                   counterexample={"at": {"N": 1000, "S": 10}, "lhs": float(4 * 10 / 1010), "rhs": 2 * 10 / 1000},
                   correction="the total noise cannot exceed ~ 4 |S|/N Var[theta | x]", method="symbolic")


def _criterion_sign():
    th, h = sp.symbols("theta h", positive=True)
    grad = sp.diff(-(h * th ** 2 / 2), th)  # log p = -(theta - theta_MAP)^T H (theta - theta_MAP)/2 + c
    printed = th * h
    o = sym_equal(grad, printed, domain={th: lambda r: sp.Float(r.uniform(0.1, 3), 50), h: lambda r: sp.Float(r.uniform(0.1, 3), 50)})
    o.correction = "grad log p(theta | x) ~ -H (theta - theta_MAP) (the sign is lost; irrelevant for |mean| in (17))"
    return o


def _criterion_var():
    """Var of the mean of n gradients at stationarity vs the printed (NC + G)/n + N^2/(n|S|), scalar case."""
    rows = []
    from simulate.sgfs import window_mean_sd

    for n_, Nd, S, C, G, kk in ((10, 1000, 100, 1.0, 1.0, 0.1), (10, 1000, 100, 0.5, 10.0, 0.05), (50, 200, 20, 2.0, 0.0, 0.2)):
        h = Nd * C + G
        rows.append(({"n": n_, "N": Nd, "S": S, "C": C, "G": G, "k": kk}, window_mean_sd(n_, Nd, S, C, G, kk) ** 2,
                     h / n_ + Nd ** 2 / (n_ * S)))
    o = instance_check(lambda: rows, "=", 1e-9, describe="exact stationary covariance of the scalar process")
    o.correction = ("Var[(1/n) sum Y_i] = (1/n^2)[h (n + 2 sum_d (n-d) rho^d) - k sigma^2 sum_d (n-d) rho^(d-1) + n sigma^2], "
                    "rho = 1 - k/2, h = NC + G, sigma^2 = N^2 C/|S| (bounds: sgfs_convergence_criterion, corrected)")
    return o


step("sgfs.var1", "sgfs_stationary_covariance", SEED, "Appendix, Discretization error, display 1", "=", "theta_i+1",
     "(I - eps D H) theta_i + N(0, 2 eps D)", "quadratic log density in Eq. (7)",
     fixed(EXACT, "-grad log f = H theta, and the stochastic-gradient noise N^2/|S| DCD plus the injected noise is 2 eps D"),
     expect=EXACT)
step("sgfs.stationary", "sgfs_stationary_covariance", SEED, "Appendix, Discretization error, 'has a stationary distribution iff'",
     "=", "stationary", "-I < I - eps D H < I", "VAR(1) theory", lambda: _stationary_iff(), expect=WRONG)
step("sgfs.k01", "sgfs_stationary_covariance", SEED, "Appendix, Discretization error, 'equivalent to k in (0, 1)'", "=",
     "-I < I - D H < I with D = (k/2) H^-1", "k in (0, 1)", "algebra", _stationary_k, expect=WRONG,
     statement=True, reading=EQUIVALENT)
step("sgfs.32", "sgfs_stationary_covariance", SEED, "Appendix, Eq. (32)", "=", "Lambda", "(I - eps D H) Lambda (I - eps D H) + 2 eps D",
     "stationary covariance of a VAR(1)", lambda: _eq32_transpose(), expect=WRONG)
step("sgfs.lambda", "sgfs_stationary_covariance", SEED, "Appendix, solution of Eq. (32)", "=",
     "k eps sum_i (1 - k eps/2)^(2i) H^-1", "H^-1 / (1 - k eps/4)", "geometric series", _series_sum, expect=EXACT,
     statement=True)
step("sgfs.lambda.matrix", "sgfs_stationary_covariance", SEED, "Appendix, solution of Eq. (32)", "=", "Lambda (Lyapunov solve)",
     "H^-1 / (1 - k eps/4)", "Eq. (32)", _lyapunov, expect=EXACT)
step("sgfs.exact", "sgfs_exact_noise", SEED, "Appendix, Derivation of the exact process", "=", "stationary covariance with noise 2D - DHD",
     "H^-1", "Eq. (32) with Lambda = H^-1", _exact_noise, expect=EXACT, statement=True)
step("sgfs.11", "sgfs_admissible_k", SEED, "§2.3.1 Eq. (11)", "=", "(2D - (N^2/|S|) DCD - DHD)/k with D = (k/2) H^-1",
     "H^-1 - (k/4)(N/|S|) H^-1 N C H^-1 - (k/4) H^-1", "substitution",
     lambda: (lambda h, c, Nd, S: sym_equal(
         (2 * k / (2 * h) - (Nd ** 2 / S) * (k / (2 * h)) ** 2 * c - (k / (2 * h)) ** 2 * h) / k,
         1 / h - (k / 4) * (Nd / S) * (Nd * c) / h ** 2 - (k / 4) / h))(*sp.symbols("h c N S", positive=True)),
     expect=EXACT)
step("sgfs.12", "sgfs_admissible_k", SEED, "§2.3.1 Eq. (12)", ">=", "H^-1", "H^-1 N C H^-1", "H >= N C and congruence",
     fixed(VALID, "H - NC = G >= 0 and X -> H^-1 X H^-1 preserves the Loewner order"), expect=VALID)
step("sgfs.13", "sgfs_admissible_k", SEED, "§2.3.1 Eq. (13)", ">=", "2D - (N^2/|S|) DCD - DHD at k = 4|S|/(N+|S|)", "0",
     "Eq. (12)", _admissible("13"), depends=("sgfs.12",), expect=VALID, statement=True)
step("sgfs.weak", "sgfs_admissible_k", SEED, "§2.3.1.1 Weak prior", "<=", "total noise", "~ 2 |S|/N Var[theta | x]",
     "k = 4|S|/(N + |S|)", _weak_prior_noise, expect=WRONG)
step("sgfs.14", "sgfs_admissible_k", SEED, "§2.3.1.1 Eq. (14)", "=", "D with k = 4|S|/(N+|S|), H = N C",
     "2|S|/((N + |S|) N) C^-1", "substitution",
     lambda: sym_equal((4 * sp.Symbol("S") / (sp.Symbol("N") + sp.Symbol("S"))) / 2 / (sp.Symbol("N") * sp.Symbol("c")),
                       2 * sp.Symbol("S") / ((sp.Symbol("N") + sp.Symbol("S")) * sp.Symbol("N")) / sp.Symbol("c")), expect=EXACT)
step("sgfs.15", "sgfs_admissible_k", SEED, "§2.3.1.2 Eq. (15)", ">=", "noise at k = 4r/(r + N/|S|)", "0",
     "Weyl's inequality", _admissible("15"), expect=VALID, statement=True)
step("sgfs.15.algebra", "sgfs_admissible_k", SEED, "§2.3.1.2 Eq. (15), second line", "=",
     "(1 - k/4) r >= (k/4) N/|S|", "k <= 4r/(r + N/|S|)", "algebra",
     lambda: sym_equal(sp.solve(sp.Eq((1 - k / 4) * sp.Symbol("r"), (k / 4) * sp.Symbol("a")), k)[0],
                       4 * sp.Symbol("r") / (sp.Symbol("r") + sp.Symbol("a"))), expect=EXACT)
step("sgfs.strong", "sgfs_admissible_k", SEED, "§2.3.1.2 after Eq. (15)", ">", "r (strong prior)", "1",
     "'For strong priors, r > 1'", _strong_prior, expect=WRONG)
step("sgfs.16", "sgfs_admissible_k", SEED, "§2.3.1.2 Eq. (16)", "<=", "k = min{c, 4 max{|S|/(N+|S|), r/(r + N/|S|)}}",
     "an admissible k", "Eqs. (13), (15)", fixed(VALID, "each of the two bounds is sufficient on its own; c < 1 < 4"),
     depends=("sgfs.13", "sgfs.15"), expect=VALID)
step("sgfs.vart.sum", "sgfs_variance_trajectory", SEED, "Appendix, Maximizing the rate of convergence", "=", "Var[theta_t]",
     "(k - k^2/4) sum_{i=0}^{t} (1 - k/2)^(2i) H^-1", "propagating the noise", _var_trajectory(True), expect=WRONG)
step("sgfs.vart", "sgfs_variance_trajectory", SEED, "Appendix, Maximizing the rate of convergence", "=", "Var[theta_t]",
     "[1 - (1 - k/2)^t] H^-1", "geometric sum", _var_trajectory(False), depends=("sgfs.vart.sum",), expect=WRONG,
     statement=True)
def _largest_k():
    """With a strong prior the admissible k exceeds 2, where |1 - k/2| grows again."""
    Nd, S, C, G = 1000, 100, 1.0, 1e5
    h, sx2 = Nd * C + G, Nd ** 2 * C / S
    k_star = 4 * h / (h + sx2)  # largest k with 2D - (N^2/|S|) DCD - DHD >= 0 (scalar case)
    return Outcome(WRONG, f"strong prior N = {Nd}, |S| = {S}, C = {C:g}, G = {G:g}: every k <= {k_star:.4f} is admissible; "
                          f"the lag-one autocorrelation |1 - k/2| is {abs(1 - k_star / 2):.3f} at the largest k but 0 at k = 2",
                   counterexample={"at": {"N": Nd, "S": S, "C": C, "G": G, "k": round(k_star, 6)},
                                   "lhs": abs(1 - k_star / 2), "rhs": 0.0},
                   correction="the rate factor and autocorrelation |1 - k/2| are smallest at k = 2: choose "
                              "min(2, largest admissible k)", method="instances")


step("sgfs.rate", "sgfs_variance_trajectory", SEED, "Appendix, 'maximizing k corresponds to maximizing the rate'", "<=",
     "|1 - k/2| at the largest admissible k", "|1 - k/2| at any smaller admissible k", "the rate (1 - k/2)",
     _largest_k, expect=WRONG)
step("sgfs.autocov.mid", "sgfs_autocovariance", SEED, "Appendix, Minimizing auto-covariance, middle term", "=",
     "Cov[theta_t, theta_t-1]", "E[(k/2 theta_t-1 + w_t-1)^T theta_t-1]", "the update equation", _autocov_intermediate,
     expect=WRONG)
step("sgfs.autocov", "sgfs_autocovariance", SEED, "Appendix, Minimizing auto-covariance", "=", "Cov[theta_t, theta_t-1]",
     "(1 - k/2) H^-1", "stationarity", _autocov, expect=EXACT, statement=True)
step("sgfs.17.clt", "sgfs_convergence_criterion", SEED, "§2.3.2, first displays", "=", "(1/n) sum Y_i",
     "N((1/n) sum grad log p(theta_i), N^2 C/(n|S|))", "Eq. (4), independent minibatches",
     fixed(VALID, "under the CLT assumption, with the minibatch noises independent"), expect=VALID)
step("sgfs.17.grad", "sgfs_convergence_criterion", SEED, "§2.3.2, 'Now:'", "=", "grad log p(theta | x)",
     "(theta - theta_MAP)^T H", "quadratic approximation", _criterion_sign, expect=WRONG)
step("sgfs.17.var", "sgfs_convergence_criterion", SEED, "§2.3.2, 'and finally'", "=", "Var[(1/n) sum Y_i]",
     "(1/n)(N C + G) + N^2/(|S| n)", "theta ~ N(theta_MAP, H^-1) independently", _criterion_var,
     depends=("sgfs.17.grad",), expect=WRONG)
step("sgfs.17", "sgfs_convergence_criterion", SEED, "§2.3.2 Eq. (17)", "<=", "|(1/n) sum Y_i|",
     "b sqrt(diag[(1/n)(N C + G) + N^2/(n|S|)])", "the display above",
     fixed(WRONG, "inherits the missing factor C and the autocorrelation of the iterates (sgfs.17.var); "
                  "`python -m verify sgfs_convergence_criterion` measures the sd",
           correction="b times the exact stationary sd (bounds: sgfs_convergence_criterion, corrected)"),
     depends=("sgfs.17.var",), expect=WRONG, statement=True)


# ---- findings of the independent hunt (2026-11)
# An independent error hunt (code sharing nothing with this toolkit) reported the errors below with
# exact counterexamples; every lhs/rhs here is recomputed with the toolkit's own machinery (scipy's
# discrete Lyapunov solver as in the steps above, sympy), and tests/test_audit_findings.py pins them
# against the hunt's numbers.
_D_NC = np.diag([1.0, 0.01])  # D = diag(1, 1/100) and H = [[1, 9], [9, 100]]: SPD, D H != H D (the hunt's pair)
_H_NC = np.array([[1.0, 9.0], [9.0, 100.0]])


def _noncommuting_pairs():
    """(D, H): the hunt's pair first, then D = (k/2) H^-1 on random SPD H (commuting: the printed forms hold)."""
    g = np.random.default_rng(32)
    out = [(_D_NC, _H_NC)]
    for d in (2, 3):
        H = _spd(g, d)
        out.append((0.4 * np.linalg.inv(H), H))
    return out


def _stationary_iff():
    """'stationary distribution iff -I < I - eps D H < I' (eps = 1): stationarity (spectral radius of
    I - D H below one, the Lyapunov solve then exists) against the Loewner condition, read for the
    non-symmetric I - D H as x^T (I -+ (I - DH)) x > 0, i.e. the eigenvalues of its symmetric part in (-1, 1)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        rho = float(np.max(np.abs(np.linalg.eigvals(A))))
        sym = np.linalg.eigvalsh(0.5 * (A + A.T))
        loewner = bool(sym.min() > -1 and sym.max() < 1)
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(), "spectral radius of I - DH": round(rho, 10),
                      "eigenvalues of the symmetric part": [round(float(e), 10) for e in sym]},
                     float(rho < 1), float(loewner)))
    o = _first_failing(rows, "=", 0.0, "1 = holds, 0 = fails")
    if o.status == WRONG:
        o.detail = ("I - eps D H is not symmetric when D and H do not commute, and the Loewner order is the wrong test: "
                    "stationary (spectral radius 0.9 < 1) although the symmetric part has eigenvalues +-4.545: " + o.detail)
        o.correction = "stationary iff every eigenvalue of eps D H lies in (0, 2) (D > 0; they are real: D H ~ D^1/2 H D^1/2)"
    return o


def _eq32_transpose():
    """Eq. (32) as printed, Lambda = (I - eps DH) Lambda (I - eps DH) + 2 eps D, at the true stationary covariance
    of the VAR(1) (scipy's discrete Lyapunov solve of Lambda = A Lambda A^T + 2 D, eps = 1)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        Lam = linalg.solve_discrete_lyapunov(A, 2 * Dm)
        printed = A @ Lam @ A + 2 * Dm
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(), "entry": "(1, 1)",
                      "max |Lambda - printed|": float(np.abs(Lam - printed).max())}, float(Lam[0, 0]), float(printed[0, 0])))
    o = _first_failing(rows, "=", 1e-9, "true stationary covariance vs the right side of (32)")
    if o.status == WRONG:
        o.detail = ("the stationary covariance of x' = A x + e is A Lambda A^T + Cov e; A = I - eps D H is not symmetric "
                    "unless D and H commute (with D = (k/2) H^-1 it is scalar and the printed form holds): " + o.detail)
        o.correction = "Lambda = (I - eps DH) Lambda (I - eps DH)^T + 2 eps D = (I - eps DH) Lambda (I - eps HD) + 2 eps D"
    return o


def _eq32_series():
    """The series solution 2 eps sum_i (I - eps DH)^i D (I - eps DH)^i as printed against the true stationary
    covariance (eps = 1, 400 terms: the terms decay like 0.81^i here)."""
    rows = []
    for Dm, H in _noncommuting_pairs():
        A = np.eye(H.shape[0]) - Dm @ H
        Lam = linalg.solve_discrete_lyapunov(A, 2 * Dm)
        series, Ai = np.zeros_like(Dm), np.eye(H.shape[0])
        for _ in range(400):
            series += 2 * Ai @ Dm @ Ai
            Ai = Ai @ A
        rows.append(({"D": Dm.round(6).tolist(), "H": H.round(6).tolist(), "entry": "(1, 1)"}, float(Lam[0, 0]),
                     float(series[0, 0])))
    o = _first_failing(rows, "=", 1e-9, "true stationary covariance vs the printed series")
    if o.status == WRONG:
        o.correction = "Lambda = 2 eps sum_i (I - eps DH)^i D (I - eps HD)^i (the transpose on the right)"
    return o


def _discretisation_error():
    """§2.1.2: the discretisation error 'is inversely proportional to the sizes of D': process (7) in 1-D, H = 1,
    eps = 1, the relative error of its stationary variance (Lyapunov solve) as D grows."""
    rows = []
    Ds = (0.005, 0.05, 0.5, 1.0)
    err = {}
    for d in Ds:
        A, Q = np.array([[1.0 - d]]), np.array([[2.0 * d]])
        err[d] = float(linalg.solve_discrete_lyapunov(A, Q)[0, 0]) - 1.0  # H^-1 = 1
    for small, big in zip(Ds, Ds[1:]):
        rows.append(({"H": 1, "D larger": big, "D smaller": small}, err[big], err[small]))
    o = _first_failing(rows, "<=", 1e-12, "relative error of the stationary variance, larger D vs smaller D")
    if o.status == WRONG:
        o.detail = ("by the document's own appendix the error (k/4)/(1 - k/4), D = (k/2) H^-1, grows with D: "
                    + o.detail)
        o.correction = "the error increases with the sizes of D (and of Q, Gamma, grad log f): it vanishes as eps D -> 0"
    return o


def _eq5_transpose():
    """Eq. (5): the covariance of the noise (D + Q) xi with Cov xi = C' (= N^2 C/|S|), exactly from a discrete xi
    (+-sqrt(2) e_i with probability 1/4 each: mean 0, covariance I), against the printed (D + Q) C' (D + Q);
    D = I, Q = [[0, 1], [-1, 0]] (skew, as the recipe requires)."""
    import math

    Dm, Q = np.eye(2), np.array([[0.0, 1.0], [-1.0, 0.0]])
    M = Dm + Q
    xs = [s * math.sqrt(2.0) * e for e in np.eye(2) for s in (1.0, -1.0)]
    cov = sum(0.25 * np.outer(M @ x, M @ x) for x in xs)
    printed = M @ np.eye(2) @ M
    rows = [({"D": "I", "Q": [[0, 1], [-1, 0]], "C'": "I", "entry": f"({i + 1}, {j + 1})"}, float(cov[i, j]), float(printed[i, j]))
            for i in range(2) for j in range(2)]
    o = _first_failing(rows, "=", 1e-12, "exact covariance of (D + Q) xi vs the printed B")
    if o.status == WRONG:
        o.detail = ("the covariance of (D + Q) xi is (D + Q) C' (D + Q)^T = (D + Q) C' (D - Q); the printed B is "
                    "[[0, 2], [-2, 0]] here, skew and not a covariance (so '2D >= B' is meaningless): " + o.detail)
        o.correction = "B(theta) = (N^2/|S|) [D + Q] C [D + Q]^T (the two agree for Q = 0, the case used from (7) on)"
    return o


def _prior_counted():
    """§2.1.3 'p(theta|x) = prod_i p(x_i|theta) p(theta)' (and Eq. (3)): x_i ~ N(theta, 1), prior N(0, 1), N = 100:
    the precision -d^2/dtheta^2 log of the posterior vs of the printed product (sympy, per datum times N)."""
    th, x = sp.symbols("theta x", real=True)
    Nd = 100
    lik1 = -sp.diff(-(x - th) ** 2 / 2, th, 2)  # one datum's precision
    prior = -sp.diff(-th ** 2 / 2, th, 2)
    rows = [({"model": "x_i ~ N(theta, 1), prior N(0, 1)", "N": Nd}, float(Nd * lik1 + prior), float(Nd * (lik1 + prior)))]
    o = _first_failing(rows, "=", 1e-12, "posterior precision vs the printed target's")
    if o.status == WRONG:
        o.detail = "the printed product (and Eq. (3)'s gradient) counts the prior N times: " + o.detail
        o.correction = ("p(theta | x) propto prod_i p(x_i | theta) p(theta) with the prior once: grad^S = (N/|S|) sum_{j in S} "
                        "grad log p(x_j | theta) + grad log p(theta); Eq. (9) then H = -Hess log p(x | theta) - Hess log p(theta)")
    return o


def _fisher_chain(which):
    """§2.3.1 '-Hess log p(theta|x) = E_X[-Hess log p(theta|X)] = Var_X[grad log p(theta|X)] = N C': data x = (0, 4),
    model N(theta, 1), flat prior, theta = 2; E_X and Var_X under the data's empirical law, C := Var_X[U]."""
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
        rows = [({"x": [0, 4], "model": "N(theta, 1)", "theta": 2, "N": 2}, members[which], members[which + 1])]
        o = _first_failing(rows, "=", 1e-12, "the chain's members on the data's empirical law")
        if o.status == WRONG:
            o.detail = ("a sum over the N data against a per-datum average (a factor N)",
                        "the information identity E[-Hess] = Var[grad] holds under the model at the true parameter, not "
                        "under the data's empirical law",
                        "C := Var_X[U] is the per-datum variance, so Var_X[grad] = C, not N C")[which] + ": " + o.detail
            o.correction = ("-Hess log p(x | theta) ~ N E_X[-Hess log p(X | theta)], and ~ N C only for a well-specified "
                            "model with large N near the true parameter (C := Var_X[U] is already the per-datum variance)")
        return o
    return fn


def _beta_update():
    """Eq. (27) beta^(i) = (X X^T)^-1 X^T (y - Z a): X is N x p, so X X^T (N x N) has rank p < N and no inverse."""
    g = np.random.default_rng(27)
    X = g.standard_normal((12, 3))
    rows = [({"N": 12, "p": 3}, float(np.linalg.matrix_rank(X @ X.T)), float(X.shape[0]))]
    o = _first_failing(rows, "=", 0.0, "rank of X X^T vs its size (what the inverse needs)")
    if o.status == WRONG:
        o.detail = "X X^T is N x N of rank p: singular, and (X X^T)^-1 X^T is not even conformable: " + o.detail
        o.correction = "beta^(i) = (X^T X)^-1 X^T (y - Z a^(i-1)) (the minimiser of (26) in beta)"
    return o


def _clt_minibatch():
    """§2.2 'assumption 1 [the CLT for the minibatch mean] holds almost always for |S| >= 50': N = 10^4 per-datum
    gradients, one of them an outlier (value 1, the others 0), |S| = 50 drawn with replacement; the exact law of
    the minibatch count of the outlier (binomial) against its CLT normal, Kolmogorov distance."""
    import math

    from scipy import stats

    Nd, S = 10 ** 4, 50
    k = np.arange(S + 1)
    pk = stats.binom.pmf(k, S, 1 / Nd)
    mean, sd = S / Nd, math.sqrt(S * (1 / Nd) * (1 - 1 / Nd))
    cdf = np.cumsum(pk)
    norm = stats.norm.cdf(k, mean, sd)
    ks = float(max(np.abs(cdf - norm).max(), np.abs(np.r_[0.0, cdf[:-1]] - norm).max()))
    rows = [({"N": Nd, "|S|": S, "gradients": "one outlier, the rest 0", "P(minibatch mean = 0)": round(float(pk[0]), 6)},
             ks, 0.0)]
    o = _first_failing(rows, "=", 0.05, "Kolmogorov distance to the CLT normal (tolerance 0.05)")
    if o.status == WRONG:
        o.detail = "with a heavy-tailed or outlying gradient population |S| = 50 is far from normal: " + o.detail
        o.correction = "the CLT at |S| = 50 needs a light-tailed gradient population (check the skewness of the per-datum gradients)"
    return o


def _algorithm1_update():
    """Algorithm 1, line 8 'update theta according to (7)': the stationary covariance of (7) with D = (k/2) H^-1
    (Lyapunov solve) against H^-1, the posterior covariance the exact process (8) keeps."""
    rows = []
    g = np.random.default_rng(17)
    H = _spd(g, 2)
    Hinv = np.linalg.inv(H)
    for kk in (0.1, 4 * 10 ** 4 / (245057 + 10 ** 4)):
        A = np.eye(2) - (kk / 2) * Hinv @ H
        Lam = linalg.solve_discrete_lyapunov(A, kk * Hinv)
        rows.append(({"k": round(kk, 6), "entry": "Lambda / H^-1 (1, 1)"}, float(Lam[0, 0] / Hinv[0, 0]), 1.0))
    o = _first_failing(rows, "=", 1e-9, "stationary covariance of (7), in units of H^-1")
    if o.status == WRONG:
        o.detail = ("the Appendix derives (8) as the correct update; (7) overestimates the covariance by 1/(1 - k/4): "
                    + o.detail)
        o.correction = "update theta according to (8) (injected noise 2D - DHD): stationary covariance H^-1 (sgfs.exact)"
    return o


def _iw_cholesky():
    """Fig. 3 caption: the Cholesky off-diagonals of Sigma ~ inverse-Wishart 'are normally distributed'.  Sigma ~
    IW(I_2, nu), Sigma = W^-1, W = A A^T (Bartlett: a21 ~ N(0, 1), a22^2 ~ chi2_(nu-1)): L21 = chol(Sigma)_21 =
    -a21/(a22 sqrt(a21^2 + a22^2)); its excess kurtosis by Gauss-Hermite x generalised Gauss-Laguerre quadrature
    (a normal has 0)."""
    import math

    from scipy.special import gamma as gamma_fn, roots_genlaguerre, roots_hermitenorm

    rows = []
    for nu in (30, 10):
        xa, wa = roots_hermitenorm(200)
        wa = wa / math.sqrt(2 * math.pi)
        al = (nu - 1) / 2 - 1
        xt, wt = roots_genlaguerre(200, al)
        wt = wt / gamma_fn(al + 1)
        a, u = xa[:, None], 2 * xt[None, :]  # u = a22^2 ~ chi2_(nu-1)
        W = wa[:, None] * wt[None, :]
        L21 = a / (np.sqrt(u) * np.sqrt(a * a + u))
        m2, m4 = float((W * L21 ** 2).sum()), float((W * L21 ** 4).sum())
        rows.append(({"Sigma": "IW(I_2, nu)", "nu": nu, "E L21^2": round(m2, 12)}, m4 / m2 ** 2 - 3, 0.0))
    o = _first_failing(rows, "=", 1e-6, "excess kurtosis of chol(Sigma)_21")
    if o.status == WRONG:
        o.detail = "Bartlett's normality holds for the Wishart factor, not for the Cholesky factor of its inverse: " + o.detail
        o.correction = "'two off-diagonal elements of its Cholesky decomposition' (not normal; heavier-tailed than normal)"
    return o


step("sgfs.32.series", "sgfs_stationary_covariance", SEED, "Appendix, Discretization error, series after Eq. (32)", "=",
     "Lambda", "2 eps sum_i (I - eps DH)^i D (I - eps DH)^i", "solution of Eq. (32)", _eq32_series,
     depends=("sgfs.32",), expect=WRONG)
step("sgfs.discretisation", "sgfs_stationary_covariance", SEED, "§2.1.2, 'inversely proportional to the sizes of D'", "<=",
     "discretisation error at a larger D", "discretisation error at a smaller D", "—", _discretisation_error,
     expect=WRONG)
step("sgfs.eq5", "sgmcmc_recipe", SEED, "§2.1.3 Eq. (5)", "=", "Cov[(D + Q) xi], Cov xi = (N^2/|S|) C",
     "B = (N^2/|S|) [D + Q] C [D + Q]", "the noise of Eq. (4) through (2)", _eq5_transpose, expect=WRONG)
step("sgfs.prior", "sgmcmc_recipe", SEED, "§2.1.3, 'p(theta|x) = prod_i p(x_i|theta) p(theta)', and Eq. (3)", "=",
     "posterior precision -Hess log p(theta | x)", "the printed product's precision", "Bayes' rule", _prior_counted,
     expect=WRONG)
step("sgfs.fisher.1", "sgmcmc_recipe", SEED, "§2.3.1, Fisher-identity chain, first '='", "=", "-Hess log p(theta | x)",
     "E_X[-Hess log p(theta | X)]", "—", _fisher_chain(0), expect=WRONG)
step("sgfs.fisher.2", "sgmcmc_recipe", SEED, "§2.3.1, Fisher-identity chain, second '='", "=", "E_X[-Hess log p(theta | X)]",
     "Var_X[grad log p(theta | X)]", "information identity", _fisher_chain(1), expect=WRONG)
step("sgfs.fisher.3", "sgmcmc_recipe", SEED, "§2.3.1, Fisher-identity chain, third '='", "=", "Var_X[grad log p(theta | X)]",
     "N C", "C := Var_X[U]", _fisher_chain(2), expect=WRONG)
step("sgfs.clt50", "sgmcmc_recipe", SEED, "§2.2, 'assumption 1 holds almost always for |S| >= 50'", "=",
     "law of the minibatch mean (|S| = 50)", "its CLT normal (Kolmogorov distance ~ 0)", "CLT", _clt_minibatch,
     expect=WRONG)
step("osgfs.update", "osgfs_algorithm", SEED, "§2.3.3 Algorithm 1, line 8 ('update theta according to (7)')", "=",
     "stationary Var[theta] of the update Algorithm 1 runs", "H^-1 (the posterior's; the exact process (8))",
     "Appendix, Derivation of the exact process", _algorithm1_update, expect=WRONG)
step("lmm.27", "lmm_em", SEED, "§3.3.2.2 Eq. (27)", "=", "rank(X X^T), X N x p", "N (for (X X^T)^-1 in beta^(i) = "
     "(X X^T)^-1 X^T (y - Z a))", "minimising (26) in beta", _beta_update, expect=WRONG)
step("fig3.cholesky", "hierarchical_model", SEED, "§3.2, Figure 3 caption", "=",
     "excess kurtosis of chol(Sigma)_21, Sigma ~ IW(I_2, nu)", "0 ('normally distributed')", "—", _iw_cholesky,
     expect=WRONG)
