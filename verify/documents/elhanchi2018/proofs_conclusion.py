"""Audit of El hanchi (2018): the convergence criterion (17) in use (§2.3.2, Algorithm 1) and the
Conclusion (§4).

Findings H07 and H08 of the third independent review of the documents (2026-11) are recomputed
here with the toolkit's own code (:func:`._kit.scalar_chain`: every iterate and stochastic gradient
of the scalar process of §2.3 as an exact linear map of independent normals; no sampling) and pinned
in tests/test_findings_elhanchi2018.py.

The model of every check is the report's own quadratic case, scalar theta (theta_MAP = 0): h = N C +
G (Eq. (9)), D = (k/2)/h (Eq. (10)), stochastic gradient Y_i = -h theta_(i-1) + xi_i, xi_i ~ N(0,
N^2 C/|S|) (Eq. (4)), theta_i = theta_(i-1) + D Y_i + eta_i with the injected noise of the exact
process (8) (generous to the algorithm: Algorithm 1 runs (7), which is worse), k from Eq. (16) with
c = 0.1 ('in practice, 0.1 works very well'), n = 1/k (§2.3.2) and the threshold of (17) with C = 1
(so that its missing factor C, sgfs.17.var, plays no part). Algorithm 1 (line 9) starts sampling at
the first i >= n at which (17) holds; at i = n the test uses Y_1..Y_n and the first sample stored is
theta_n.
"""

from __future__ import annotations

import math

import numpy as np

from mcsa_cli.lazy import lazy_module
from verify.audit.adversary import Real, free
from verify.audit.engine import step_table
from verify.audit.instances import first_failing, instance_check

from ._kit import admissible_k_scalar, scalar_chain
from .proofs import N_DATA, S_FRAC, _batch

stats = lazy_module("scipy.stats")

SEED = "002"  # El hanchi (2018)
#: declares a step; its printed text is in proofs_conclusion.toml
step = step_table(__name__, seed=SEED)


def k16(N, S, C, G, c=0.1):
    """Eq. (16) in the scalar case: r = lambda_min(H^-1)/lambda_max(H^-1 N C H^-1) = h/(N C)."""
    h = N * C + G
    r = h / (N * C)
    return min(c, 4 * max(S / (N + S), r / (r + N / S)))


def window_n(k):
    """n = 1/k (§2.3.2), rounded up to a whole number of iterates."""
    return int(math.ceil(1 / k - 1e-12))


def first_check(d0, N, S, C, G, b=1.0, c=0.1, k=None, n=None, far=None):
    """Algorithm 1 started at theta_0 = d0 posterior sd from the mode: the exact law of (theta_n,
    (1/n) sum Y_i). Returns a dict with P(pass at i = n), with P(pass at i = n and |theta_n| > far
    posterior sd) when ``far`` is given, and the law of the first stored sample theta_n given the
    pass: its mean (in posterior sd) and its total-variation distance to the posterior N(0, 1/h)
    (1-D quadrature of the explicit
    density: theta_n's normal density times the conditional probability of the pass)."""
    k = k16(N, S, C, G, c) if k is None else k
    n = window_n(k) if n is None else n
    h = N * C + G
    sd_post = 1 / math.sqrt(h)
    _, _, _, _, means, coefs = scalar_chain(n, N, S, C, G, k, start_mean=d0 * sd_post, start_sd=0.0)
    Yc = sum(coefs[("Y", i)] for i in range(1, n + 1)) / n
    Ym = sum(means[("Y", i)] for i in range(1, n + 1)) / n
    tc, tm = coefs[("theta", n)], means[("theta", n)]
    thr = b * math.sqrt((N * C + G) / n + N ** 2 / (n * S))  # the threshold of (17), as printed
    sY, st, cov = math.sqrt(Yc @ Yc), math.sqrt(tc @ tc), float(tc @ Yc)
    P = float(stats.norm.cdf((thr - Ym) / sY) - stats.norm.cdf((-thr - Ym) / sY))
    beta = cov / st ** 2
    sv = math.sqrt(max(sY ** 2 - beta * cov, 0.0))
    span = 12 * max(st, sd_post)
    grid = np.linspace(min(tm, 0.0) - span, max(tm, 0.0) + span, 200_001)
    mu = Ym + beta * (grid - tm)
    if sv > 0:
        cp = stats.norm.cdf((thr - mu) / sv) - stats.norm.cdf((-thr - mu) / sv)
    # no injected noise left (k at the admissible bound): the window mean is a function of theta_n
    else:
        cp = (np.abs(mu) <= thr).astype(float)
    f = stats.norm.pdf(grid, tm, st) * cp / P if P > 0 else np.zeros_like(grid)
    post = stats.norm.pdf(grid, 0.0, sd_post)
    tv = 0.5 * float(np.trapezoid(np.abs(f - post), grid))
    mean = float(np.trapezoid(grid * f, grid)) / sd_post
    extra = {}
    if far is not None:
        joint = stats.norm.pdf(grid, tm, st) * cp * (np.abs(grid) > far * sd_post)
        extra["P(pass at i = n and |theta_n| > far)"] = float(np.trapezoid(joint, grid))
    return {**extra, "P(pass at i = n)": P, "mean of theta_n | pass (sd)": mean,
            "TV(theta_n | pass, posterior)": tv,
            "k": k, "n": n, "threshold": thr, "h": h}


# -------------------------------------------------------------------------- H07: "guaranteeing ..."
#: the hunt's instance: N = 1000, |S| = 100, C = 1, G = 1 (H = 1001), k = 0.1 from (16), n = 10, b =
#: 1
H07 = dict(N=1000, S=100, C=1.0, G=1.0, b=1.0)
# 'from the posterior': TV(law of the stored sample, posterior) <= tau, tau in this range
TV_READING = (0.0, 0.5)


def _burnin():
    """§4: the criterion 'removing the need of a burn-in period completely, and guaranteeing that
    all the samples collected are from the posterior'.  Reading: the law of a collected sample is
    within TV tau of the posterior, tau in [0, 0.5] (0: 'from the posterior' exactly; 0.5: as
    lenient as a reading can be); the row uses the
    lenient end.  Start 3 and 4 posterior sd from the mode, the first sample Algorithm 1 stores."""
    rows = []
    for d0 in (3, 4):
        r = first_check(d0, **H07)
        rows.append(({"start (posterior sd from the mode)": d0, **H07, "k": r["k"], "n": r["n"],
                      "P(pass at i = n)": r["P(pass at i = n)"],
                      "mean of theta_n | pass (sd)": r["mean of theta_n | pass (sd)"]},
                     r["TV(theta_n | pass, posterior)"], TV_READING[1]))
    return first_failing(
        rows, "<=", 1e-9, describe="TV between the first stored sample and the posterior",
        why=("(17) is a noisy test of a Gaussian mean: from a start 3 posterior sd away it passes "
             "at the first "
             f"check with probability {rows[0][0]['P(pass at i = n)']:.4f}, and the sample then "
             f"stored is {rows[0][0]['mean of theta_n | pass (sd)']:.2f} sd off on average; §2.3.2 "
             f"itself calls (17) "
             "'neither a sufficient nor a necessary condition': "),
        correction=(
            "no guarantee: (17) lowers the chance of sampling before convergence; a burn-in of a "
            "few autocorrelation times (4 - k)/k of the exact process is still needed"))


def _tv_normals(m1, s1, m2, s2):
    """Total-variation distance between N(m1, s1^2) and N(m2, s2^2) (quadrature of |f - g| on a fine
    grid).
    """
    lo = min(m1 - 12 * s1, m2 - 12 * s2)
    hi = max(m1 + 12 * s1, m2 + 12 * s2)
    x = np.linspace(lo, hi, 20_001)
    return 0.5 * float(np.trapezoid(np.abs(stats.norm.pdf(x, m1, s1) - stats.norm.pdf(x, m2, s2)),
                                    x))


def _burnin_corrected():
    """The correction's quantitative part: after a burn-in of B = ceil(log(tau/d0)/log(1 - k/2))
    iterates from a start d0 posterior sd away, the law of theta_B is within TV tau of the posterior
    (the trivial bound is 1): its mean and variance by binary powering of the exact process's
    one-step maps (:func:`.proofs._affine_power`,
    not a closed form); d0 in [1, 1e3], tau in [1e-3, 0.5], k from (16) (C = 1), N, |S|/N, G
    free."""
    from .proofs import _affine_power

    rows = []
    for d0 in free("d0", [3.0, 100.0], Real(1.0, 1e3, log=True)):
        for tau in free("tau", [0.01, 0.5], Real(1e-3, 0.5, log=True)):
            for Nd in free("N", [1000], N_DATA):
                for fr in free("|S|/N", [0.1], S_FRAC):
                    S = _batch(Nd, fr)
                    for G in free("G", [1.0], Real(1e-6, 1e8, log=True)):
                        k = k16(Nd, S, 1.0, G)
                        h = Nd + G
                        D = k / (2 * h)
                        a = np.array([[1 - D * h]])
                        B = int(math.ceil(math.log(tau / d0) / math.log(a[0, 0])))
                        # injected + gradient noise
                        q = np.array([[injected(k, Nd, S, 1.0, G) + D * D * Nd * Nd / S]])
                        v = float(_affine_power(a, q, B)[0, 0])
                        m = d0 / math.sqrt(h) * float(np.linalg.matrix_power(a, B)[0, 0])
                        tv = _tv_normals(m, math.sqrt(v), 0.0, 1 / math.sqrt(h))
                        rows.append(({"d0": d0, "tau": tau, "N": Nd, "|S|": S, "G": G, "k": k,
                                      "B": B}, tv, tau))
    return instance_check(rows, "<=", 1e-9, describe="TV(theta_B, posterior) after the burn-in")


# ------------------------------------------------------------------------- 'very unlikely' (§2.3.2)
#: readings of 'very unlikely that the iterates pass this criterion without being reasonably close
#: to the mode'
CLOSE_READING = (2.0, 4.0)  # 'reasonably close': within d0 posterior sd, d0 in this range
UNLIKELY_READING = (0.01, 0.05)  # 'very unlikely': probability at most alpha, alpha in this range
#: a small-minibatch instance (|S| >= 50, where §2.2 grants the CLT), weak prior like §3.1's N(0,
#: 100 I)
SMALL_BATCH = dict(N=100_000, S=50, C=1.0, G=0.01, b=1.0)


#: starts searched for the worst case of 'pass without being close': d0 + this many posterior sd
UNLIKELY_STARTS = tuple(np.arange(0.0, 8.01, 0.25))


def _unlikely():
    """§2.3.2: 'for b <= 1, it is very unlikely that the iterates of the process pass this criterion
    without being reasonably close to the mode'.  The event is 'pass at the first check and theta_n
    (the first stored sample) more than d0 posterior sd from the mode'; its probability, maximised
    over the start theta_0 (d0 to d0 + 8 sd away, step 1/4), against alpha.  The most lenient
    reading (d0 = 4 sd, alpha = 0.05; b = 1, the worst b <= 1).  Rows:
    the hunt's instance (N = 1000, |S| = 100) and a small minibatch (|S| = 50, N = 1e5), C = 1."""
    d0, alpha = CLOSE_READING[1], UNLIKELY_READING[1]
    key = "P(pass at i = n and |theta_n| > far)"
    rows = []
    for inst in (H07, SMALL_BATCH):
        runs = [(first_check(d0 + extra, **inst, far=d0),
                 float(d0 + extra)) for extra in UNLIKELY_STARTS]
        r, start = max(runs, key=lambda rs: rs[0][key])
        rows.append(({"close = within (posterior sd)": d0, "worst start (posterior sd)": start,
                      **inst, "k": r["k"],
                      "n": r["n"], "P(pass at i = n)": r["P(pass at i = n)"],
                      "TV(theta_n | pass, posterior)": r["TV(theta_n | pass, posterior)"]}, r[key],
                     alpha))
    o = first_failing(
        rows, "<=", 1e-9,
        describe="probability of passing (17) at the first check with theta_n more than d0 sd from "
                 "the mode (worst start)",
        why=("with a small minibatch the gradient noise N^2 C/|S| dominates the window mean, so "
             "(17) passes often from far away: "),
        correction=(
            "the probability of passing from d0 sd away is 2 Phi-type in the window mean's "
            "offset/sd ratio, which the gradient noise N^2 C/|S| shrinks: (17) discriminates only "
            "when h n >> N^2 C/|S|"))
    o.detail += (
        f"; readings: 'reasonably close' = within d0 sd, d0 in {list(CLOSE_READING)}; 'very "
        f"unlikely' = probability <= alpha, alpha in {list(UNLIKELY_READING)}; the row uses the "
        f"most lenient pair")
    return o


# ----------------------------------------------------------------------------- n = 1/k (§2.3.2)
# 'enough iterates to explore': corr(theta_0, theta_n) <= tau, tau in this range
EXPLORE_READING = (0.05, 0.5)


def _window_length():
    """§2.3.2: 'A reasonable choice would be 1/k, so that the process is given enough iterates to
    explore the posterior.'  Reading: the window explores the posterior when its first and last
    iterates are nearly uncorrelated, corr(theta_0, theta_n) <= tau, tau in [0.05, 0.5] (the row
    uses the lenient 0.5).  For the exact process corr = (1 - k/2)^n (the autocorrelation of a
    stationary AR(1), computed from the linear maps); k over
    (0, c] with c = 0.1 (Eq. (16), 'in practice, 0.1')."""
    rows = []
    for k in free("k", [0.1, 0.01, 0.001], Real(1e-4, 0.1)):
        n = window_n(k)
        # stationary start (start_sd = 1/sqrt(h))
        _, _, _, _, _, coefs = scalar_chain(n, 1000, 100, 1.0, 1.0, k)
        a, b = coefs[("theta", 0)], coefs[("theta", n)]
        corr = float(a @ b / math.sqrt((a @ a) * (b @ b)))
        rows.append(({"k": k, "n": n, "integrated autocorrelation time (4 - k)/k": (4 - k) / k},
                     corr,
                     EXPLORE_READING[1]))
    return instance_check(rows, "<=", 1e-12, describe="corr(theta_0, theta_n) at n = 1/k")


def _window_length_corrected():
    """The correction n = ceil(2 log(1/tau)/k): corr(theta_0, theta_n) = (1 - k/2)^n <= tau for
    every k in (0, 1),
    tau in [0.05, 0.5] (the trivial bound is corr <= 1)."""
    rows = []
    for k in free("k", [0.1, 0.5], Real(1e-4, 1.0 - 1e-9)):
        for tau in free("tau", [0.05, 0.25, 0.5], Real(*EXPLORE_READING)):
            n = int(math.ceil(2 * math.log(1 / tau) / k))
            rows.append(({"k": k, "tau": tau, "n": n}, (1 - k / 2) ** n, tau))
    return instance_check(rows, "<=", 1e-12, describe="(1 - k/2)^n at the corrected n")


# ----------------------------------------------------------------------------- H08: "optimal ..."
#: §3.1's Skin Segmentation setting (N = 245 057, |S| = 10 000), weak prior; the hunt's strong-prior
#: instance
SKIN = dict(N=245057, S=10000, C=1.0, G=0.01)
STRONG = dict(N=1000, S=100, C=1.0, G=2e4)


def injected(k, N, S, C, G):
    """The injected noise variance of the exact process (8), scalar case (>= 0: k admissible)."""
    h = N * C + G
    D = k / (2 * h)
    return 2 * D - (N * N / S) * D * C * D - D * h * D


def _optimal():
    """§4: 'our algorithm is optimal in terms of reduced autocorrelation and maximal rate of
    convergence among all continuous time MCMC algorithms'.  Even within its own family (D = (k/2)
    H^-1, Q = 0; the Appendix's measure: the lag-one autocorrelation and rate factor |1 - k/2|),
    OSGFS's k = min{c, 4 max{...}} (Eq. (16)) is beaten by a larger admissible k (injected noise of
    (8) >= 0) whenever the bound exceeds c.  Rows: (a) §3.1's Skin Segmentation setting with c =
        0.1: OSGFS k = 0.1 against k = 0.99 x the bound; (b) a strong prior, for every
    c in (0, 1): OSGFS's k < 1 against k = 2 (admissible: the bound is 2.71), autocorrelation 0."""
    rows = []
    bound = k16(**SKIN, c=math.inf)
    k_os, k_alt = k16(**SKIN), 0.99 * bound
    rows.append(({"setting": "Skin Segmentation (§3.1), weak prior", **SKIN, "c": 0.1,
                  "bound 4 max{...}": bound,
                  "OSGFS k": k_os, "admissible k": k_alt,
                  "its injected noise": injected(k_alt, **SKIN),
                  "steps to halve the offset (OSGFS, alternative)": [
                      math.log(0.5) / math.log(1 - k_os / 2),
                      math.log(0.5) / math.log(1 - k_alt / 2)]},
                 abs(1 - k_os / 2), abs(1 - k_alt / 2)))
    kstar = admissible_k_scalar(**STRONG)
    for c in (0.1, 0.5, 1.0 - 1e-9):
        k_os = k16(**STRONG, c=c)
        rows.append(({"setting": "strong prior", **STRONG, "c": c, "largest admissible k": kstar,
                      "OSGFS k": k_os,
                      "admissible k": 2.0, "its injected noise": injected(2.0, **STRONG)},
                     abs(1 - k_os / 2), abs(1 - 2.0 / 2)))
    return first_failing(
        rows, "<=", 1e-12,
        describe="lag-one autocorrelation |1 - k/2| of OSGFS against an admissible k of the same "
                 "family")


def _optimal_corrected():
    """The correction: k = min(2, k*) (k* the largest admissible k of (8)) minimises |1 - k/2| over
    the admissible
    k, against any admissible k (:func:`.proofs._largest_k_corrected`, searched over N, |S|/N, C,
    G)."""
    from .proofs import _largest_k_corrected

    return _largest_k_corrected()


# ----------------------------------------------------------------------------- the steps
step("osgfs.burnin", check=_burnin, corrected=_burnin_corrected)
step("sgfs.17.unlikely", check=_unlikely)
step("sgfs.17.n", check=_window_length, corrected=_window_length_corrected)
step("osgfs.optimal", check=_optimal, corrected=_optimal_corrected)
