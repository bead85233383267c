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
     "=", "stationary", "-I < I - eps D H < I", "VAR(1) theory", fixed(VALID, "spectral radius below one (D H is similar to a "
                                                                             "symmetric matrix, so its eigenvalues are real)"), expect=VALID)
step("sgfs.k01", "sgfs_stationary_covariance", SEED, "Appendix, Discretization error, 'equivalent to k in (0, 1)'", "=",
     "-I < I - D H < I with D = (k/2) H^-1", "k in (0, 1)", "algebra", _stationary_k, expect=WRONG,
     statement=True, reading=EQUIVALENT)
step("sgfs.32", "sgfs_stationary_covariance", SEED, "Appendix, Eq. (32)", "=", "Lambda", "(I - eps D H) Lambda (I - eps D H) + 2 eps D",
     "stationary covariance of a VAR(1)", fixed(EXACT, "Var of the recursion at stationarity (D, H symmetric: "
                                                       "(I - eps DH)^T = I - eps HD)"), expect=EXACT)
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
