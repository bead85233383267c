"""Verifications of 003 (CIS as independent Metropolis-Hastings): four claims.

Source: the CIS-as-IMH draft (docs/references.md).  003 counts N *proposals*: its CIS kernel has
N + 1 particles (the current state z_{t-1} plus z^(1:N)), whereas :mod:`simulate`
counts particles; every call below passes ``N + 1`` to the simulators and records 003's
N in ``params``.  003 writes unnormalised weights p(z, x)/q(z); every quantity but the
acceptance bound is scale-free, and we compute with normalised weights w = pi/q
(E_q w = 1); the acceptance bound is read with 003's w (see cis_acceptance_bound).

Claims, where they are in 003, and what is measured
---------------------------------------------------
How each check is decided (docs/methods.md, "Validated numerics"): every exact check is held on
enclosures, never on a tolerance (:mod:`verify.documents.cis_imh.exact` has the rigorous
arithmetic).  Finite-space identities are exact rationals on the instance's float vectors
divided by their exact sums (:func:`exact.exact_pair`); closed forms are in ball arithmetic;
a quadrature whose error is only an *estimate* enters with that estimate times
:data:`ESTIMATE_SAFETY`, so that a check it decides is decided far from its bound (the note says
so).  An approximate agreement ('~', 'approximately', '=' of an approximation) is a threshold
reading ``|x - target| <= allowance`` with the allowance's source and reasonable range in the note.

``cis_barker_acceptance`` -- §"Conditional Importance Sampling as IMH", Eq. (acc):
    P(z_t != z_{t-1} | z_{t-1}, z^(1:N)) = S / (w(z_{t-1}) + S), S = sum_i w(z^(i)).
    (a) exact rationals, finite space: for every current state x and *every* multiset of N
    proposals, the CIS kernel selects particle i with probability w_i/(w_x + S); P(z_t != x)
    and Barker's ratio (the claim's formula from :mod:`bounds`, evaluated on Fractions) are
    compared as exact numbers ('=' holds only as the same number).  Primary rows: proposal
    multisets that do not contain x (then "a proposal is selected" <=> z_t != z_{t-1}); the row
    per (x, N) is an exact failure if there is one, else the multiset where the toolkit's own
    float64 selection law (:func:`simulate.kernels.select_index`, by bisection in its uniform u,
    from :func:`simulate.kernels.normalised_weights` as :func:`simulate.kernels.cis_step` uses
    them) is furthest from Barker's ratio (that distance is in the note).  003 defines
    'reject' as z_t = z_{t-1}; on a finite space a proposal equal to x can be selected and is
    then a rejection that Barker's ratio counts as an acceptance: those multisets get rows of
    the reading 'accept = z_t != z_t-1', which fail exactly (Barker's ratio exceeds P(z_t != x)
    by the selection probability of the copies of x, exactly, for every such multiset).
    Marginally over z^(1:N) ~ q^N, the identity with the ties explicit: P(z_t != x) = sum_(y
    != x) N pi_y E[1/(w_x + w_y + S_(N-1))] (:func:`exact.cis_move_exact`, the formula of
    :func:`simulate.finite.cis_matrix` in Fractions; the float64 kernel is reported beside it)
    + E_q[P(a copy of x is selected)] = E_q[S/(w_x + S)], exactly; the row without the tie
    mass fails by it (zero for a continuous q).
    (b) Monte Carlo, pi = N(0, I_D), q = N(0, s^2 I_D): R independent
    :func:`simulate.kernels.cis_step` moves from one fixed state (worst, median) against
    E_q[S/(w_x + S)] = N int_0^oo e^(-t w_x) phi_pi(t) phi_q(t)^(N-1) dt,
    phi_mu(t) = E_mu e^(-tW) (from 1/a = int_0^oo e^(-ta) dt and E_q[W g(W)] = E_pi g(W)),
    by quadrature (relation '=', binomial standard error at the claimed value; the quadrature's
    error estimate widens the claimed value).
``cis_acceptance_bound`` -- §"Parallel IMH", ¶"The variance of CIS can increase with N":
    1 - r(z) <= N / (w(z) + N) ("in general very tight"), read with 003's only definition of w,
    w(z) = p(z, x)/q(z), "the unnormalized importance weight" (§CIS as IMH): w = Z w_norm with the
    evidence Z = p(x).  The acceptance rate 1 - r(z) = E_q[S/(w + S)] uses weight ratios only (so it
    is computed with normalised weights), the printed bound changes with Z: primary rows at
    Z = 1/10 (holds) and Z = 10 (fails), the bound in exact rationals.  The normalised reading
    (w = p(z | x)/q(z)) is not encoded (:data:`DROPPED`: 003's definition rules it out); its
    bound is the correction, checked in non-primary rows.  The acceptance rate at every state of
    hard instances (:func:`simulate.finite.hard_instance`) and of instances whose other weights
    vary: exact rationals over the proposal multisets for small N, else a Hermite-Hadamard
    bracket of the Laplace integral above (:func:`exact.acceptance_hh`: its integrand is convex,
    float64 with a proved rounding bound, relative width ~1e-6); on isotropic Gaussian pairs at
    the worst (w = w* = s^D) and the median state by the Laplace quadrature
    (:func:`acceptance_laplace`, an error estimate); the kernel's move probability 1 - K(x, x)
    (:func:`simulate.finite.cis_matrix`'s exact sum, proved error).  Tightness is the ratio.
``imh_rejection_kl`` -- ¶"Rejection rate decreases as MSC converges", the quoted
    Neklyudov et al. bound and 003's Eq. (rej_bound).  The marginal IMH rejection rate
    at stationarity r = 1 - E_{z~pi, z*~q} min(1, w(z*)/w(z)) in closed form, in ball arithmetic
    (:func:`exact.rejection_arb`, refined to 1024 bits if needed):
    mean shift pi = N(0, 1), q = N(m, 1): r = E[(1 - e^(-mD))_+], D = z* - z ~ N(m, 2),
    = erf(|m|/2);
    isotropic scale families pi = N(0, I_D), q = N(0, s^2 I_D): r = |2 I_(s^2/(1+s^2))(D/2, D/2)
    - 1| (regularised incomplete beta).  The quadratures :func:`rejection_mean_shift` and
    :func:`rejection_scale` (r = E_pi[lambda(w(z))], lambda(v) = P_q(W < v) - P_pi(W < v)/v,
    chi-square laws of ||z||^2) check these closed forms in the tests.  KLs in closed form
    (:func:`exact.kl_arb`).  Both stated quantities are primary: the symmetric bound holds (it
    is Pinsker's inequality for r = TV(pi x q, q x pi)); Eq. (rej_bound) drops KL(q||p) from the
    right-hand side of an upper bound, which is invalid, and fails (mean shift: r ~ m/sqrt(pi)
    > m/2).
``cis_variance_growth`` -- ¶"The variance of CIS can increase with N": at a state of
    large weight, V_q[E[f | z_{t-1}, z^(1:N)]] ~ N sigma^2 / (w + N)^2 grows ~ N.
    Exact variance of the Rao-Blackwellised CIS estimate sum_i wbar_i f(z_i) over the
    N + 1 particles, enclosed rigorously (:func:`exact.msc_rb_variance_fn`: E g and E g^2 as
    completely monotone Laplace integrals bracketed by Hermite-Hadamard in float64 with a proved
    rounding bound; :func:`simulate.finite.moments_msc_rb` is reported beside it) at the w*-state
    of finite instances with w* = 1e3..1e4, f = N(0, 1) draws per state, sigma^2 = V_pi f (the
    parameter's definition in :mod:`bounds`).  Every derived number (slopes, ratios, distances)
    is computed on the enclosures of V in ball arithmetic or exact rationals.
    (a) primary, a threshold reading: the fitted log-log exponent a over 1 <= N <= w/50,
    |a - 1| <= 2 N_max/(w + N_max) (how far the stated form's own local exponent departs from
    1 on that range) + the fit's residual standard error.  Non-primary: the exponent on
    w/10 <= N <= w against the stated form's exponent fitted on the same N, |a - a_approx| <=
    the two fits' residual standard errors.  The hedged reading 'grows': the smallest ratio
    V(N_(i+1))/V(N_i) over N << w is >= 1.
    (b) the stated approximation N sigma^2/(w + N)^2 (exact rationals); '~' read as
    |V/approx - 1| <= 1/2 (the reading '~ as the formula', promoted).
    (c) growth_regime_max_N: a local maximum N_peak of V ends the growth along a geometric grid
    (every comparison certified on the error intervals), known to its bracket; held '>=' w
    (primary: the variance does grow over the whole regime N < w that 003's argument needs)
    and, as a threshold reading of the stated form's '= w', |N_peak - w| <= w/2 (non-primary).
    Finding: the growth is real and lasts to N ~ 4w, but it is linear only for
    N << w sqrt(V_q Y) / (|E_q Y| sqrt(chi2)), Y = w (f - f(z_{t-1})): the mean of
    sum_i Y_i times the fluctuation of S (variance N chi2) adds ~ N^3 (E_q Y)^2 chi2/w^4.
    With chi2 ~ w (the hard instances) that is N << sqrt(w), not N << w, and the
    exponent on [1, w/50] exceeds 1 (1.16 at w = 1e4); on [w/10, w] it is ~2.2.

Grids: ``quick`` runs all four claims in a few seconds on one core; ``full`` in about a
minute or two.  Every row's ``params`` hold what is needed to reproduce the point.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, cast

import numpy as np

import bounds
from bounds.enclosure import Enclosure, precision, relation_verdict
from mcsa_cli.lazy import lazy_module
from simulate import divergences as dv, finite as F, kernels as Kn
from simulate.families import MeanFieldGaussian
from simulate.rng import unit_generator
from simulate.targets import isotropic
from verify.model import CheckResult, Grid, Reading, Verification
from verify.registry import bound_value as _bv, register

from . import exact as X

integrate = lazy_module("scipy.integrate")
optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")
special = lazy_module("scipy.special")

EPS = float(np.finfo(float).eps)
#: scaled truncation error allowed at each end of the Laplace integrals
_TRUNC = 1e-17
#: pi-mass left out beyond the last Gauss-Legendre panel (Gaussian weight laws)
_TAIL = 1e-20
#: a quadrature's error *estimate* (not a proved bound) enters a check multiplied by this factor:
#: a check it decides is decided at least this many estimates away from its bound (brief rule 1:
#: an estimate is accepted only for a check decided far from its bound); closer, it is undecided
ESTIMATE_SAFETY = 100.0


def _b(claim: str, quantity: str, form: str = "stated", **kw):
    """A bound from :mod:`bounds` (arrays broadcast)."""
    v = bounds.get(claim).evaluate_form(quantity, form, **kw)
    return np.asarray(v, dtype=float)


def _round(*vals, n: int = 1) -> float:
    """Float64 rounding allowance for a value computed with about n operations."""
    return 4.0 * (n + 1) * EPS * max([1.0] + [abs(float(v)) for v in vals])


def _progress(progress, msg):
    if progress is not None:
        progress(msg)


# ============================================================================ instances
def spread_instance(M: int, w_star: float, seed: int = 0, pi0: float = 0.3, spread: float = 1.0):
    """(pi, q) on M states with w(0) = w_star and *varied* weights on the other states.

    ``hard_instance`` gives every other state the same weight; here pi_rest ~ Dirichlet
    and q_rest is proportional to pi_rest * exp(spread * Z), Z ~ N(0, 1) per state, so the
    other weights differ (by factors of about e^(+-2 spread)) but stay far below w_star.
    """
    g = unit_generator(seed, M, "cis_imh/spread_instance")
    rest = g.dirichlet(np.ones(M - 1)) * (1 - pi0)
    qr = rest * np.exp(spread * g.standard_normal(M - 1))
    q0 = pi0 / w_star
    q = np.concatenate([[q0], qr / qr.sum() * (1 - q0)])
    pi = np.concatenate([[pi0], rest])
    return pi, q


def _instance(kind: str, M: int, w_star: float, seed: int):
    if kind == "hard":
        return F.hard_instance(M, w_star, seed=seed)
    if kind == "spread":
        return spread_instance(M, w_star, seed=seed)
    raise ValueError(kind)


def _multisets(q: np.ndarray, N: int):
    """All multisets of N proposals from q: (sorted states, counts, probability)."""
    M = q.size
    logq = np.log(q)
    for combo in itertools.combinations_with_replacement(range(M), N):
        c = np.bincount(combo, minlength=M)
        logp = special.gammaln(N + 1) - special.gammaln(c + 1).sum() + (c * logq).sum()
        yield combo, c, math.exp(logp)


# ============================================================================ weight laws
@dataclass(frozen=True)
class WeightLaw:
    """Laplace transforms of the weight W under pi and q, with absolute error bounds.

    ``phi(t) -> (E_pi e^(-tW), E_q e^(-tW), err_pi, err_q)`` for a scalar t >= 0.
    """

    name: str
    phi: Callable[[float], tuple[float, float, float, float]]


def finite_law(pi, q, name="finite") -> WeightLaw:
    pi, q = F.check_pair(pi, q)
    w = pi / q
    err = _round(n=w.size)

    def phi(t):
        e = np.exp(-t * w)
        return float(pi @ e), float(q @ e), err, err

    return WeightLaw(name, phi)


@dataclass(frozen=True)
class GaussPair:
    """pi = N(0, I_D), q = N(0, s^2 I_D) (s > 1): log W = D log s - c ||z||^2."""

    D: int
    s: float

    @property
    def log_w_star(self) -> float:
        return self.D * math.log(self.s)

    @property
    def c(self) -> float:
        return 0.5 * (1.0 - 1.0 / self.s ** 2)

    def log_w_at_sq_radius(self, x):
        return self.log_w_star - self.c * np.asarray(x, float)

    def state_log_weight(self, state: str) -> tuple[float, float]:
        """(log w, ||z||^2) of the named state: 'worst' (z = 0) or 'median' (median of W under
        pi).
        """
        if state == "worst":
            return self.log_w_star, 0.0
        if state == "median":
            x = float(stats.chi2.median(self.D))  # W decreasing in ||z||^2
            return float(self.log_w_at_sq_radius(x)), x
        raise ValueError(state)

    @property
    def label(self) -> str:
        return f"N(0,I_{self.D}) vs N(0,{self.s:g}^2 I_{self.D})"

    def law(self, panels: int = 256, order: int = 8) -> WeightLaw:
        """E_mu e^(-tW) by composite Gauss-Legendre in r = ||z|| (resp. ||z||/s under q).

        r ~ chi_D under both measures after scaling; [0, r_max] holds all but 1e-20 of
        the mass.  Error = |rule(panels) - rule(2 panels)| + 1e-20 + rounding.
        """
        D, c, lws, s2 = self.D, self.c, self.log_w_star, self.s ** 2
        rmax = math.sqrt(stats.chi2.isf(_TAIL, D))
        rules = []
        for P in (panels, 2 * panels):
            t_, wt = np.polynomial.legendre.leggauss(order)
            edges = np.linspace(0.0, rmax, P + 1)
            lo, hi = edges[:-1, None], edges[1:, None]
            r = (0.5 * (hi + lo) + 0.5 * (hi - lo) * t_[None, :]).ravel()
            g = (0.5 * (hi - lo) * wt[None, :]).ravel() * stats.chi.pdf(r, D)
            rules.append((g, np.exp(lws - c * r * r), np.exp(lws - c * s2 * r * r)))
        rnd = _round(n=4 * panels * order)

        def phi(t):
            out = []
            for g, Wp, Wq in rules:
                out.append((g @ np.exp(-t * Wp), g @ np.exp(-t * Wq)))
            (p1, q1), (p2, q2) = out
            return float(p2), float(q2), abs(p2 - p1) + _TAIL + rnd, abs(q2 - q1) + _TAIL + rnd

        return WeightLaw(self.label, phi)


def acceptance_laplace(law: WeightLaw, ws, Ns):
    """E_q[S/(w + S)], S = sum of N i.i.d. q-weights, for every w in ``ws``, N in ``Ns``.

    = N int_0^oo e^(-tw) phi_pi(t) phi_q(t)^(N-1) dt, integrated in theta = log t on
    [theta_lo, theta_hi] with ``quad_vec``.  Components are scaled by N/(w + N) (the
    integral's size) so one relative tolerance fits all; the truncated ends contribute
    at most 1e-17 each (scaled): int_0^t_lo <= N t_lo and int_t_hi^oo <= N e^(-w t_hi)/w.
    The inner error enters through N e^(-tw) (err_pi + (N - 1) err_q) (phi <= 1).
    Returns (values (J, K), absolute errors (J, K)).
    """
    ws = np.atleast_1d(np.asarray(ws, float))
    Ns = np.atleast_1d(np.asarray(Ns, float))
    scale = Ns[None, :] / (ws[:, None] + Ns[None, :])
    th_lo = math.log(_TRUNC / float((ws.max() + Ns.max())))
    wmin = float(ws.min())
    th_hi = math.log(max(math.log((1.0 + Ns.max() / wmin) / _TRUNC), 1.0) / wmin)
    J, K = ws.size, Ns.size

    def f(th):
        t = math.exp(th)
        pp, pq, ep, eq = law.phi(t)
        ker = np.exp(th - ws * t)[:, None]
        val = Ns[None, :] * ker * pp * pq ** (Ns[None, :] - 1) / scale
        err = Ns[None, :] * ker * (ep + (Ns[None, :] - 1) * eq) / scale
        return np.concatenate([val.ravel(), err.ravel()])

    pts = sorted({min(max(-math.log(w), th_lo), th_hi) for w in ws} - {th_lo, th_hi})
    res, qerr = integrate.quad_vec(f, th_lo, th_hi, epsabs=1e-15, epsrel=1e-12, norm="max",
                                   limit=4000,
                                   points=pts or None)
    val = res[: J * K].reshape(J, K)
    inner = res[J * K:].reshape(J, K)
    err = (qerr + 2 * _TRUNC + inner + _round(float(np.abs(val).max()),
                                              n=int(Ns.max()) + 50)) * scale
    return val * scale, err


def acceptance_enumerate(pi, q, x: int, N: int) -> float:
    """E_q[S/(w_x + S)] by enumerating the multisets of N proposals (small spaces)."""
    pi, q = F.check_pair(pi, q)
    w = pi / q
    tot = 0.0
    for _, c, p in _multisets(q, N):
        S = float(c @ w)
        tot += p * S / (w[x] + S)
    return tot


# ============================================================================ selection law
def selection_law(wbar: np.ndarray) -> tuple[np.ndarray, float]:
    """Law of ``kernels.select_index(wbar, u)`` for u ~ U(0, 1), row by row.

    The index is non-decreasing in u, so P(index <= i) = sup{u : index(u) <= i}, found by
    64 bisection steps (resolution below the float spacing near 1).  Returns the
    (rows, n) law and its absolute resolution.
    """
    wbar = np.atleast_2d(wbar)
    R, n = wbar.shape
    cuts = np.ones((R, n))
    for i in range(n - 1):
        lo, hi = np.zeros(R), np.ones(R)
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            ok = Kn.select_index(wbar, mid) <= i
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        cuts[:, i] = lo
    law = np.diff(np.concatenate([np.zeros((R, 1)), cuts], axis=1), axis=1)
    return law, 2.0 * EPS


# ============================================================================ claim 1
def _barker_finite_checks(grid, progress):
    """Eq. (acc) on a finite space, decided in exact rationals (module docstring, claim 1 (a))."""
    out = []
    M, wst, seed = grid["M_barker"], grid["w_star_barker"], grid.get("instance_seed", 0)
    pi, q = spread_instance(M, wst, seed=seed)
    w = pi / q
    P, Q = X.exact_pair(pi, q)
    W = [a / b for a, b in zip(P, Q)]
    space = f"finite M={M} spread_instance(w*={wst:g}, seed={seed})"
    claim = "cis_barker_acceptance"
    for N in [int(n) for n in grid["N"] if n <= grid.get("N_enumerate_max", 8)]:
        _progress(progress, f"cis_barker_acceptance: finite space, N = {N}")
        sets = list(X.multisets_exact(Q, N))
        combos = np.array([cmb for cmb, _, _ in sets])  # (n_sets, N) proposal states
        S = [sum((W[v] for v in cmb), Fraction(0)) for cmb, _, _ in sets]  # exact sums
        Sf = w[combos].sum(1)
        tie_mass = {}
        for x in range(M):
            # the toolkit's selection law (kernels.select_index by bisection in u), compared
            # with the exact law in the notes only: the checks are decided on the exact law
            logw = np.concatenate([np.full((len(sets), 1), np.log(w[x])), np.log(w[combos])],
                                  axis=1)
            law, _ = selection_law(Kn.normalised_weights(logw))
            impl_select = 1.0 - law[:, 0]
            # the CIS kernel selects particle i with probability w_i / (w_x + S), exactly
            tot = [W[x] + Sj for Sj in S]
            copies = [sum(1 for v in cmb if v == x) for cmb, _, _ in sets]
            p_select = [Sj / tj for Sj, tj in zip(S, tot)]  # a proposal index is selected
            p_tie = [c * W[x] / tj for c, tj in zip(copies, tot)]  # ... and it is a copy of x
            p_move = [a - b for a, b in zip(p_select, p_tie)]  # P(z_t != x), exact
            barker = [X.exact_form(claim, "acceptance", w=W[x], w_sum=Sj) for Sj in S]
            rej = [X.exact_form(claim, "rejection", w=W[x], w_sum=Sj) for Sj in S]
            tie_mass[x] = sum((p * t for (_, _, p), t in zip(sets, p_tie)), Fraction(0))
            impl_dev = float(np.abs(impl_select - np.array([float(b) for b in barker])).max())
            base = {"N": N, "x": x, "w": float(w[x]), "space": space, "multisets": len(sets)}
            nt = [j for j in range(len(sets)) if copies[j] == 0]
            for qty, emp_all, bnd_all, ev in (
                    ("acceptance", p_move, barker, "z_t != z_{t-1}"),
                    ("rejection", [1 - v for v in p_move], rej, "z_t = z_{t-1}")):
                wrong = [j for j in nt if emp_all[j] != bnd_all[j]]
                # the row: an exact failure if there is one, else the multiset where the
                # toolkit's float64 law is furthest from Barker's ratio
                j = wrong[0] if wrong else max(nt, key=lambda i: abs(impl_select[i]
                                                                      - float(barker[i])))
                out.append(CheckResult(
                    qty, "stated",
                    {**base, "proposals": [int(v) for v in combos[j]], "w_sum": float(Sf[j]),
                     "event": ev},
                    emp_all[j], bnd_all[j], "exact", relation="=",
                    note=(f"exact rationals: the CIS kernel selects particle i with probability "
                          f"w_i/(w_x + S); {len(nt) - len(wrong)} of the {len(nt)} multisets of "
                          f"{N} proposals without a copy of x satisfy Eq. (acc) exactly; the "
                          f"toolkit's float64 selection law (kernels.select_index, by bisection "
                          f"in u) is within {impl_dev:.1e} of Barker's ratio over all "
                          f"{len(sets)} multisets")))
            tj = [j for j in range(len(sets)) if copies[j] > 0]
            if tj:
                j = max(tj, key=lambda i: barker[i] - p_move[i])
                gaps_ok = all(barker[i] - p_move[i] == p_tie[i] for i in tj)
                out.append(CheckResult(
                    "acceptance", "stated",
                    {**base, "proposals": [int(v) for v in combos[j]], "w_sum": float(Sf[j]),
                     "event": "z_t != z_{t-1}", "ties": "multiset contains x"},
                    p_move[j], barker[j], "exact", relation="=", reading=MOVE,
                    note=(f"{len(tj)} multisets contain a copy of x; selecting it gives z_t = "
                          f"z_(t-1), a rejection under the CIS-as-IMH draft's definition, so Eq. "
                          f"(acc) holds only as '<=' for them: Barker - P(z_t != x) = c_x w_x/(w_x "
                          f"+ S) (largest gap {float(barker[j] - p_move[j]):.4g}, here), the "
                          f"selection probability of the copies "
                          f"({'exactly, for every such multiset' if gaps_ok else 'NOT always'}); "
                          f"probability zero for a continuous q")))
        # marginal over z^(1:N) ~ q^N: the kernel's move probability plus the tie mass
        if N <= grid.get("N_marginal_max", 3):
            K, kerr = F.cis_matrix(pi, q, N + 1, return_error=True)
            for x in range(M):
                e_barker = sum((p * X.exact_form(claim, "acceptance", w=W[x], w_sum=Sj)
                                for (_, _, p), Sj in zip(sets, S)), Fraction(0))
                move = X.cis_move_exact(P, Q, x, N)
                params = {"N": N, "x": x, "w": float(w[x]), "space": space,
                          "marginal": "z^(1:N) ~ q^N"}
                fl = (f"finite.cis_matrix (float64, {N + 1} particles) gives 1 - K(x,x) = "
                      f"{1.0 - float(K[x, x]):.6g} (error bound {kerr:.1e}; exact: "
                      f"{float(move):.6g})")
                out.append(CheckResult(
                    "acceptance", "stated", {**params, "event": "a proposal is selected"},
                    move + tie_mass[x], e_barker, "exact", relation="=", reading=SELECT,
                    note=(f"ties made explicit, exact rationals: P(z_t != x) = sum_(y != x) "
                          f"N pi_y E[1/(w_x + w_y + S_(N-1))] = {float(move):.6g} + E_q[P(select "
                          f"a copy of x)] = {float(tie_mass[x]):.6g} against E_q[Barker] over "
                          f"the {len(sets)} multisets; {fl}")))
                out.append(CheckResult(
                    "acceptance", "stated", {**params, "event": "z_t != z_{t-1}"},
                    move, e_barker, "exact", relation="=", reading=MOVE,
                    note=(f"the CIS-as-IMH draft's 'accept' (z_t != z_(t-1)) on a finite space, "
                          f"exact rationals: the marginal move probability falls short of "
                          f"E_q[Barker] by the tie mass {float(tie_mass[x]):.4g}; {fl}")))
    return out


def _gauss_pairs(grid, key):
    return [GaussPair(int(D), float(s)) for D, s in grid.get(key, [])]


def _barker_mc_checks(grid, seed, progress):
    out = []
    R = int(grid["R"])
    for pair in _gauss_pairs(grid, "gauss_barker"):
        D, s = pair.D, pair.s
        target = isotropic(D)
        fam = MeanFieldGaussian(D, scale="log")
        lam = fam.init(0.0, s)[None, :]
        states = grid.get("states_barker", ["worst", "median"])
        lws = [pair.state_log_weight(st) for st in states]
        Ns = [int(n) for n in grid["N"]]
        _progress(progress, f"cis_barker_acceptance: quadrature for {pair.label}")
        acc, err = acceptance_laplace(pair.law(), [math.exp(lw) for lw, _ in lws], Ns)
        for i, (st, (lw, x2)) in enumerate(zip(states, lws)):
            z = np.zeros(D)
            z[0] = math.sqrt(x2)
            for k, N in enumerate(Ns):
                _progress(
                    progress, f"cis_barker_acceptance: Monte Carlo {pair.label}, {st}, N = {N}")
                moves = mismatch = 0
                chunk = max(1, int(grid.get("mc_chunk", 2 ** 21)) // (N * D))
                for ci, start in enumerate(range(0, R, chunk)):
                    r = min(chunk, R - start)
                    g = unit_generator(seed, ci, f"cis_imh/barker/D={D}/s={s:g}/{st}/N={N}")
                    pos = np.broadcast_to(z, (1, r, D)).copy()
                    state = Kn.ChainState(pos, target.logpdf(pos))
                    noise = {"eps": g.standard_normal((1, r, N, D))}
                    u = g.random((1, r))
                    new, info = Kn.cis_step(target, fam, lam, state, noise, u, N + 1)
                    moved = np.any(new.position != pos, axis=-1)
                    moves += int(moved.sum())
                    mismatch += int(np.sum(moved != info.accepted))
                p_hat = moves / R
                b = float(acc[i, k])
                se = math.sqrt(b * (1 - b) / R)
                out.append(CheckResult(
                    "acceptance", "stated",
                    {"N": N, "w": math.exp(lw), "state": st, "space": pair.label, "D": D, "s": s,
                     "R": R, "seed": seed,
                     "marginal": "z^(1:N) ~ q^N"},
                    p_hat, b, "monte-carlo", relation="=", stderr=se,
                    bound_error=ESTIMATE_SAFETY * float(err[i, k]),
                    note=(f"fraction of {R} cis_step moves ({N + 1} particles) from ||z||^2 = "
                          f"{x2:.4g}; claimed value E_q[S/(w+S)] by Laplace quadrature (its error "
                          f"estimate {err[i, k]:.1e}, an estimate, not a proof, widens the claimed "
                          f"value {ESTIMATE_SAFETY:g} times; it is "
                          f"{se / max(float(err[i, k]), 1e-300):.1e} times below the standard "
                          f"error that decides the check); se = sqrt(b(1-b)/R) at the claimed b; "
                          f"moved != selected-a-proposal in {mismatch} cases")))
    return out


def run_barker(grid, seed=0, progress=None):
    return _barker_finite_checks(grid, progress) + _barker_mc_checks(grid, seed, progress)


# ============================================================================ claim 2
def _acceptance_enclosures(pi, q, Ns, n_enumerate: int):
    """Enclosures of E_q[S/(w_x + S)] on the exact instance (:func:`exact.exact_pair`) at every
    state x and N in ``Ns``: exact rationals by enumerating the multisets of N proposals for N <=
    ``n_enumerate``, else the Hermite-Hadamard bracket (:func:`exact.acceptance_hh`, float64 with
    a proved rounding bound).  Returns ({(x, N): Enclosure}, {(x, N): how})."""
    P, Q = X.exact_pair(pi, q)
    W = [a / b for a, b in zip(P, Q)]
    M = len(W)
    big = [N for N in Ns if N > n_enumerate]
    lo, hi = X.acceptance_hh(pi, q, big) if big else (None, None)
    enc, how = {}, {}
    for N in Ns:
        if N <= n_enumerate:
            sets = [(sum((W[v] for v in c), Fraction(0)), p) for c, _, p in
                    X.multisets_exact(Q, N)]
            for x in range(M):
                v = sum((p * Sj / (W[x] + Sj) for Sj, p in sets), Fraction(0))
                enc[x, N] = Enclosure.point(v)
                how[x, N] = f"exact rationals over the {len(sets)} multisets of {N} proposals"
        else:
            k = big.index(N)
            assert lo is not None and hi is not None  # N > n_enumerate: N is in big
            for x in range(M):
                enc[x, N] = Enclosure(float(lo[x, k]), float(hi[x, k]), "float64")
                how[x, N] = ("a Hermite-Hadamard bracket of its Laplace integral (float64, "
                             "proved rounding bound)")
    return enc, how, W


def _value(enc: Enclosure):
    """The value shown for an enclosure: the exact number, or the midpoint."""
    return Fraction(enc.lo) if enc.is_point else enc.mid


def run_acceptance_bound(grid, seed=0, progress=None):
    out = []
    claim = "cis_acceptance_bound"
    Ns = [int(n) for n in grid["N"]]
    for idx, (kind, M, wst, iseed) in enumerate(grid["instances"]):
        _progress(progress, f"cis_acceptance_bound: {kind} instance M={M}, w*={wst:g}")
        pi, q = _instance(kind, M, wst, iseed)
        w = pi / q
        enc, how, W = _acceptance_enclosures(pi, q, Ns, grid.get("N_enumerate_max", 0))
        space = f"finite M={M} {kind}_instance(w*={wst:g}, seed={iseed})"
        for N in Ns:
            for x in range(M):
                b = X.exact_form(claim, "acceptance_rate", N=N, w=W[x])
                e = enc[x, N]
                out.append(CheckResult(
                    "acceptance_rate", "stated",
                    {"N": N, "w": float(w[x]), "x": x, "space": space,
                     "state": "w* state" if x == 0 else "other"},
                    _value(e), b, "exact", lhs=e, primary=False,
                    note=(f"the correction (normalised w = p(z | x)/q(z), E_q w = 1): E_q[S/(w+S)] "
                          f"by {how[x, N]}; 1 - r(z) in [{float(e.lo):.10g}, {float(e.hi):.10g}],"
                          f" Jensen bound {float(b):.10g} (exact)")))
        # 003's w = p(z, x)/q(z) = Z w with the evidence Z = p(x) (the normalised reading is
        # DROPPED)
        if idx == 0:
            for Z in grid.get("evidence", (0.1, 10.0)):
                Zq = Fraction(str(Z))  # the evidence 1/10 or 10, exactly
                for N in Ns:
                    for x in range(M):
                        e = enc[x, N]
                        out.append(CheckResult(
                            UNNORM_Q, "stated",
                            {"N": N, "w": float(w[x]), "Z": Z, "x": x, "space": space},
                            _value(e), X.exact_form(claim, "acceptance_rate", N=N, w=Zq * W[x]),
                            "exact", lhs=e, reading=UNNORMALISED,
                            note=f"the acceptance rate does not depend on Z (the selection uses "
                                 f"weight ratios; {how[x, N]}); the bound N/(w~ + N) with w~ = Z w "
                                 f"= {Z * w[x]:.6g} (exact rationals) does"))
        if grid.get("move_probability") and idx == 0:  # first instance only
            for N in grid["move_probability"]:
                # the exact multinomial sum of finite.cis_matrix: its error bound is proved
                # (given exp, log and gammaln within 4 ulp) for the float pi, q; so is the bound
                # at the float w (ball arithmetic on its formula)
                K, kerr = F.cis_matrix(pi, q, N + 1, return_error=True, method="sum")
                for x in range(M):
                    out.append(CheckResult(
                        "acceptance_rate", "stated",
                        {"N": N, "w": float(w[x]), "x": x, "space": space,
                         "event": "z_t != z_{t-1}"},
                        1.0 - float(K[x, x]), _bv(claim, "acceptance_rate", "stated", N=N,
                                                  w=float(w[x])),
                        "exact", error=kerr, primary=False,
                        note=f"move probability 1 - K(x,x) of finite.cis_matrix ({N + 1} "
                             f"particles; exact multinomial sum, proved error bound {kerr:.1e}) "
                             f"<= E_q[S/(w+S)] <= bound (ties are rejections)"))
    for pair in _gauss_pairs(grid, "gauss"):
        _progress(progress, f"cis_acceptance_bound: {pair.label}")
        states = grid.get("states", ["worst", "median"])
        lws = [pair.state_log_weight(st)[0] for st in states]
        ws = np.exp(lws)
        acc, err = acceptance_laplace(pair.law(), ws, Ns)
        for i, st in enumerate(states):
            for k, N in enumerate(Ns):
                bv = _bv(claim, "acceptance_rate", "stated", N=N, w=float(ws[i]))
                margin = (float(bv) - float(acc[i, k])) / max(float(err[i, k]), 1e-300)
                out.append(CheckResult(
                    "acceptance_rate", "stated",
                    {"N": N, "w": float(ws[i]), "state": st, "space": pair.label, "D": pair.D,
                     "s": pair.s,
                     "w_star": math.exp(pair.log_w_star)},
                    float(acc[i, k]), bv, "exact", error=ESTIMATE_SAFETY * float(err[i, k]),
                    primary=False,
                    note=(f"the correction (normalised w): E_q[S/(w+S)] by Laplace quadrature (phi "
                          f"by Gauss-Legendre in ||z||); ratio = tightness.  Its error "
                          f"{err[i, k]:.1e} is the quadratures' estimate, not a proved bound: it "
                          f"enters {ESTIMATE_SAFETY:g} times (a check it decides is decided far "
                          f"from its bound); the gap to the bound is {margin:.2g} estimates")))
    return out


# ============================================================================ claim 3
def _quad(f, a, b, **kw):
    v, e = integrate.quad(f, a, b, epsabs=1e-15, epsrel=1e-13, limit=400, **kw)
    return float(v), float(e)


def rejection_mean_shift(m: float) -> tuple[float, float]:
    """IMH marginal rejection rate, pi = N(0,1), q = N(m,1): E[(1 - e^(-mD))_+], D ~ N(m, 2)."""
    m = float(m)
    if m == 0:
        return 0.0, 0.0
    a = abs(m)  # symmetric in m: (D, m) -> (-D, -m)
    sd = math.sqrt(2.0)
    return _quad(lambda d: -math.expm1(-a * d) * stats.norm.pdf(d, loc=a, scale=sd), 0.0, np.inf)


def rejection_scale(D: int, s: float) -> tuple[float, float]:
    """IMH marginal rejection rate, pi = N(0, I_D), q = N(0, s^2 I_D), any s > 0, s != 1.

    r = E_pi[lambda(w(z))], lambda(v) = P_q(W < v) - P_pi(W < v)/v.  log w = D log s - c x,
    x = ||z||^2, c = (1 - 1/s^2)/2; for s > 1, W < w(x) <=> ||z*||^2 > x, for s < 1 the
    reverse.  Integrated over r = ||z|| ~ chi_D.
    """
    c = 0.5 * (1.0 - 1.0 / s ** 2)
    lws = D * math.log(s)

    def lam(r):
        x = r * r
        if s > 1:
            return stats.chi2.sf(x / s ** 2, D) - math.exp(stats.chi2.logsf(x, D) + c * x - lws)
        return stats.chi2.cdf(x / s ** 2, D) - math.exp(stats.chi2.logcdf(x, D) + c * x - lws)

    def g(r):
        return stats.chi.pdf(r, D) * lam(r)

    mode = math.sqrt(max(D - 1, 0))  # mode of chi_D: split there so quad sees the bulk
    if mode == 0:
        return _quad(g, 0.0, np.inf)
    v1, e1 = _quad(g, 0.0, mode)
    v2, e2 = _quad(g, mode, np.inf)
    return v1 + v2, e1 + e2


#: working precision (bits) of the closed forms of claim 3 at the first stage
_ARB_BITS = 96


def _rejection_row(qty: str, params: dict, fam: dict, extra: str) -> CheckResult:
    """One check of claim 3: the closed-form rejection rate against a closed-form bound, both in
    ball arithmetic; the float64 value carries the proved error of its ball, and ``refine(bits)``
    recomputes both at ``bits``."""

    def sides(bits):
        r = X.rejection_arb(prec=bits, **fam)
        kl, klr = X.kl_arb(prec=bits, **fam)
        with precision(bits):
            b = (kl / 2).sqrt() if qty == "rejection_rate" else ((kl + klr) / 2).sqrt()
        return r, b

    r, b = sides(_ARB_BITS)
    val, err = X.arb_value_error(r)
    bval, berr = X.arb_value_error(b)

    def refine(bits):
        bits = max(bits, _ARB_BITS)
        with precision(bits):  # Enclosure.from_arb rounds the ends at the working precision
            return Enclosure.from_arb(sides(bits)[0], bits)

    with precision(_ARB_BITS):
        rhs = Enclosure.from_arb(b, _ARB_BITS)
    return CheckResult(
        qty, "stated", params, val, bval, "exact", error=err, bound_error=berr,
        rhs=rhs, refine=refine,
        note=("r = 1 - E min(1, w(z*)/w(z)) at stationarity in closed form (ball arithmetic at "
              f"{_ARB_BITS} bits; " + ("erf(|m|/2)" if fam["family"] == "mean shift" else
                                      "|2 I_(s^2/(1+s^2))(D/2, D/2) - 1|")
              + "), the KL divergences in closed form likewise" + (f"; {extra}" if extra else "")))


def run_rejection_kl(grid, seed=0, progress=None):
    out = []
    pts = []
    for m in grid["m"]:
        kl = float(m) ** 2 / 2
        pts.append(({"family": "mean shift", "m": float(m), "D": 1,
                     "space": f"pi=N(0,1), q=N({m:g},1)"}, {"family": "mean shift", "m": float(m)},
                    kl, kl))
    for D, s_ in itertools.product(grid.get("dim", []), grid.get("proposal_scale", [])):
        if s_ == 1:
            continue
        kl = dv.kl(np.zeros(D), np.ones(D), np.zeros(D), np.full(D, s_ ** 2))
        klr = dv.kl(np.zeros(D), np.full(D, s_ ** 2), np.zeros(D), np.ones(D))
        pts.append(({"family": "scale", "D": int(D), "s": float(s_),
                     "space": f"pi=N(0,I_{D}), q=N(0,{s_:g}^2 I_{D})"},
                    {"family": "scale", "D": int(D), "s": float(s_)}, kl, klr))
    rej_rows = []
    for params, fam, kl, klr in pts:
        for qty in ("rejection_rate_symmetric", "rejection_rate"):
            row = _rejection_row(qty, {**params, "kl": kl, "kl_rev": klr}, fam, "")
            out.append(row)
            if qty == "rejection_rate":
                rej_rows.append(row)
    # the counterexamples to Eq. (rej_bound), decided on the enclosures
    # (_rejection_row gives a float value, its proved error and the bound's enclosure)
    bad = [c for c in rej_rows if relation_verdict(
        Enclosure.f64(cast(float, c.empirical), cast(float, c.error)), cast(Enclosure, c.rhs),
        "<=") == "violated"]
    if bad:
        small = min(bad, key=lambda c: c.params["kl"])
        worst = max(bad, key=lambda c: c.empirical / c.bound)
        summary = (
            f"; counterexamples to Eq. (rej_bound): {len(bad)} of {len(rej_rows)} points. Smallest "
            f"(least KL): {small.params['space']}: r = {small.empirical:.6g} > sqrt(KL(p||q)/2) = "
            f"{small.bound:.6g} (KL = {small.params['kl']:.4g}); largest ratio "
            f"{worst.empirical / worst.bound:.4f} at {worst.params['space']}.  Mean shift: r = "
            f"erf(m/2) ~ m/sqrt(pi) vs m/2, violated for m < {_mean_shift_crossover():.4f}")
        for c in rej_rows:
            c.note += summary
    return out


def _mean_shift_crossover() -> float:
    """m > 0 with erf(m/2) = m/2 (Eq. (rej_bound) fails for 0 < |m| below it)."""
    return float(optimize.brentq(lambda m: special.erf(m / 2) - m / 2, 0.5, 2.0, xtol=1e-14))


# ============================================================================ claim 4
def _test_function(M: int, seed: int) -> np.ndarray:
    return unit_generator(seed, M, "cis_imh/test_function").standard_normal(M)


def _loglog_fit(Ns, vals, errs):
    """Least squares of log V on log N: (slope, residual standard error of the slope,
    bound on the slope change from the values' own errors)."""
    lx, ly = np.log(np.asarray(Ns, float)), np.log(np.asarray(vals, float))
    A = np.stack([np.ones_like(lx), lx], 1)
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    resid = ly - A @ coef
    sxx = float(((lx - lx.mean()) ** 2).sum())
    se = math.sqrt(float((resid ** 2).sum()) / max(len(lx) - 2, 1) / sxx)
    # |d slope| <= max_i |d log V_i| * sum_i |lx_i - mean| / sxx
    dv_ = float(np.max(np.asarray(errs)
                       / np.asarray(vals))) * float(np.abs(lx - lx.mean()).sum()) / sxx
    return float(coef[1]), se, dv_


def conditional_variance_exact(pi, q, f, x: int, N: int) -> tuple[float, float]:
    """V_q[E[f | z_{t-1} = x, z^(1:N)]] with 003's N proposals (N + 1 particles), and its error.

    finite.moments_msc_rb of s = f - f(x) (the variance is shift-invariant; the shift
    removes the cancellation second - mean^2 of an O(1) second moment).  Error: the
    quadrature's error on both integrals times (1 + 2 |mean|), plus rounding.
    """
    s = np.asarray(f, float) - float(f[x])
    mom = F.moments_msc_rb(pi, q, s, x, int(N) + 1)
    m = float(np.abs(mom.mean).max())
    return float(mom.variance), float(mom.error * (1 + 2 * m) + _round(mom.second, n=50))


#: the quantities of claim 4 that are threshold readings (brief rule 3: |x - target| <= allowance)
LINEAR_Q = "exponent a in V ~ N^a for N << w: |a - 1| (conditional_variance)"
TRANSITION_Q = "exponent a in V ~ N^a for w/10 <= N <= w: |a - a_approx| (conditional_variance)"
FORMULA_Q = "|V / approximation - 1| (conditional_variance)"
PEAK_Q = "|N_peak - w| (growth_regime_max_N)"


def _venc(v: float, e: float) -> tuple[Fraction, Fraction]:
    """The interval [v - e, v + e] with exact ends."""
    return Fraction(v) - Fraction(e), Fraction(v) + Fraction(e)


def _abs_interval(lo: Fraction, hi: Fraction) -> Enclosure:
    """The enclosure of |y| for y in [lo, hi], how 'float64' (the y came from float64 values)."""
    if lo >= 0:
        return Enclosure(lo, hi, "float64")
    if hi <= 0:
        return Enclosure(-hi, -lo, "float64")
    return Enclosure(Fraction(0), max(-lo, hi), "float64")


def _arb_abs(ball) -> tuple[float, float]:
    """|ball| as (float value, proved error), for an empirical side given with ``error=``."""
    return X.arb_value_error(abs(ball))


def _allowance_range(enc: Enclosure, allowance: Fraction) -> str:
    """Where the verdict of |x - target| <= allowance stays what it is, in words."""
    lo, hi = float(enc.lo), float(enc.hi)
    if enc.hi <= allowance:
        return f"it holds for every allowance >= {hi:.3g} and fails below {lo:.3g}"
    if enc.lo > allowance:
        return f"it fails for every allowance < {lo:.3g} and holds from {hi:.3g}"
    return f"undecided between {lo:.3g} and {hi:.3g}"


def _certified_cmp(a: tuple[float, float], b: tuple[float, float]) -> int:
    """+1 if V_a > V_b for every value in their error intervals, -1 if below, 0 undecided."""
    alo, ahi = _venc(*a)
    blo, bhi = _venc(*b)
    return 1 if alo > bhi else -1 if ahi < blo else 0


def _peak_bracket(V, wx: float, grid) -> tuple[int, int | None, str]:
    """A bracket (lo, hi) of a local maximum N_peak of V over the integers, V increasing along a
    geometric grid from N = 1 up to it (every comparison certified by the error intervals of V).

    Scan the grid of ratio ``scan_ratio`` while V increases (certified); when V(next) < V(last)
    (certified), the largest V over the integers of [prev, next] is at an interior point, a local
    maximum, in (prev, next).  With ``refine_peak``, a golden-section search with certified
    comparisons narrows (a, c) around a point b with V(b) > V(a), V(b) > V(c), keeping a local
    maximum inside.  ``hi`` is None when the scan stopped undecided or beyond ``scan_max_factor``
    w (no upper end is proved).  Returns (lo, hi, text): N_peak in [lo + 1, hi - 1].
    """
    ratio = float(grid.get("scan_ratio", math.sqrt(2)))
    prev, N = 0, 1
    stop = ""
    while True:
        nxt = max(N + 1, int(round(N * ratio)))
        if nxt > grid.get("scan_max_factor", 100) * wx:
            stop = f"still increasing at N = {N} > the scan's end"
            break
        c = _certified_cmp(V(nxt), V(N))
        if c <= 0:
            stop = ("decreases" if c < 0 else "undecided (error intervals overlap)") + \
                f" at N = {nxt}"
            break
        prev, N = N, nxt
    text = (f"exact V increases on the geometric grid (ratio {ratio:.3g}) from N = 1 to N = {N} "
            f"and {stop}")
    if c >= 0 or stop.startswith("still"):
        return prev, None, text
    a, b, c_ = prev, N, nxt
    if grid.get("refine_peak"):
        g = (math.sqrt(5) - 1) / 2
        for _ in range(40):
            if c_ - a <= max(3, int(0.01 * b)):
                break
            left = (b - a) > (c_ - b)
            d = int(round(b - (1 - g) * (b - a))) if left else int(round(b + (1 - g) * (c_ - b)))
            if d in (a, b, c_):
                break
            cmp = _certified_cmp(V(d), V(b))
            if cmp == 0:
                break
            if left:
                a, b, c_ = (a, d, b) if cmp > 0 else (d, b, c_)
            else:
                a, b, c_ = (b, d, c_) if cmp > 0 else (a, b, d)
        text += f"; golden-section search with certified comparisons: V(N) largest at N = {b} " \
                f"among those evaluated in ({a}, {c_})"
    return a, c_, text


def run_variance_growth(grid, seed=0, progress=None):
    out: list = []
    claim = "cis_variance_growth"
    for (kind, M, iseed), wst in itertools.product(grid["instances"], grid["w_star"]):
        first = len(out)
        wst = float(wst)
        _progress(progress, f"cis_variance_growth: {kind} instance M={M}, w*={wst:g}")
        pi, q = _instance(kind, M, wst, iseed)
        w = pi / q
        x = 0  # the w*-state
        wx = float(w[x])
        f = _test_function(M, iseed)
        mu = float(pi @ f)
        sigma2 = float(pi @ (f - mu) ** 2)
        Pn, _ = X.exact_pair(pi, q)
        fF = [Fraction(float(v)) for v in f]
        muF = sum((p * v for p, v in zip(Pn, fF)), Fraction(0))
        sigma2F = sum((p * (v - muF) ** 2 for p, v in zip(Pn, fF)), Fraction(0))  # V_pi f, exact
        Y = w * (f - f[x])  # V ~ N V_q[Y] / w^2 to leading order
        lead = float(q @ Y ** 2 - (q @ Y) ** 2)
        chi2 = float(pi @ w - 1)
        cache: dict[int, tuple[float, float]] = {}
        rig = X.msc_rb_variance_fn(pi, q, f, x)
        agree = [0.0]  # largest |float64 V - enclosure| / V of finite.moments_msc_rb

        def V(N):
            """V(N) and a proved bound on its error (exact.msc_rb_variance_fn)."""
            N = int(N)
            if N not in cache:
                lo, hi = rig(N)
                cache[N] = X.value_error(lo, hi)
                fv, _ = conditional_variance_exact(pi, q, f, x, N)
                out_by = max(Fraction(fv) - hi, lo - Fraction(fv), Fraction(0))
                agree[0] = max(agree[0], float(out_by) / max(cache[N][0], 1e-300))
            return cache[N]

        space = f"finite M={M} {kind}_instance(w*={wst:g}, seed={iseed})"
        base = {"w": wx, "x": x, "space": space, "sigma2": sigma2, "chi2": chi2,
                "f": [round(float(v), 12) for v in f],
                "f_def": f"N(0,1) per state: unit_generator({iseed}, {M}, 'cis_imh/test_function')"}
        onset = wx / math.sqrt(1.0 + chi2) * math.sqrt(lead) / max(abs(float(q @ Y)), 1e-300)
        def est():
            return ("V enclosed rigorously (exact.msc_rb_variance_fn: completely monotone "
                    "Laplace integrals bracketed by Hermite-Hadamard, proved float64 rounding, "
                    "the instance's pi, q divided by their exact sums); finite.moments_msc_rb "
                    "(float64) lies outside the enclosures by at most @@AGREE@@ relative")
        # (a) growth exponent over N << w: |a - 1| <= allowance (a threshold reading, rule 3)
        nmax = max(2, int(wx / grid.get("slope_range", 50)))
        Ns = np.unique(np.round(np.geomspace(1, nmax, grid.get("slope_points", 8))).astype(int))
        vals = [V(n)[0] for n in Ns]
        slope, se_fit, dslope = _loglog_fit(Ns, vals, [V(n)[1] for n in Ns])
        a_ball = X.log_slope_arb(Ns, [_venc(*V(n)) for n in Ns])
        dev, dev_err = _arb_abs(a_ball - 1)
        form_dev = 2 * nmax / (wx + nmax)
        allow = Fraction(form_dev + se_fit)
        dev_enc = Enclosure.f64(dev, dev_err)
        out.append(CheckResult(
            LINEAR_Q, "stated",
            {**base, "N": [int(n) for n in Ns], "fit": "least squares of log V on log N",
             "exponent": slope},
            dev, allow, "exact", relation="<=", error=dev_err,
            note=(f"the CIS-as-IMH draft: 'when w(z_(t-1)) is very large, the conditional variance "
                  f"of CIS approximately grows linearly with N'; fitted exponent a = {slope:.6g} "
                  f"(ball arithmetic on the error intervals of V); exact V = "
                  f"{', '.join(f'{v:.4g}' for v in vals)}.  A threshold reading: |a - 1| <= "
                  f"allowance = 2 N_max/(w+N_max) = {form_dev:.4f} (the stated form's own "
                  f"departure from exponent 1 on this range) + the fit's residual standard error "
                  f"{se_fit:.2g} (how far one exponent describes the points) = "
                  f"{float(allow):.4g}; reasonable allowances run from {form_dev:.3f} (the form's "
                  f"own departure alone) to about 0.2 ('approximately' read as a in [0.8, 1.2]): "
                  f"{_allowance_range(dev_enc, allow)}; {est()}.  V/(N V_q[w(f-f(z))]/w^2) = "
                  f"{vals[0] / (Ns[0] * lead / wx ** 2):.4f} at N = {Ns[0]}, "
                  f"{vals[-1] / (Ns[-1] * lead / wx ** 2):.4f} at N = {Ns[-1]}. Linear only while "
                  f"N^2 (E_q Y)^2 chi2 << w^2 V_q Y (Y = w (f - f(z))), i.e. N << {onset:.3g} "
                  f"here, not merely N << w: the mean of sum_i Y_i times the fluctuation of S "
                  f"(variance N chi2) adds ~ N^3 (E_q Y)^2 chi2 / w^4")))
        # the other reading of 'grows': V increases with N over the same range
        ivs = [_venc(*V(n)) for n in Ns]
        r_lo = min(ivs[i + 1][0] / ivs[i][1] for i in range(len(Ns) - 1))
        r_hi = min(ivs[i + 1][1] / ivs[i][0] for i in range(len(Ns) - 1))
        steps = [vals[i + 1] / vals[i] for i in range(len(vals) - 1)]
        out.append(CheckResult(
            GROWS_Q, "stated", {**base, "N": [int(n) for n in Ns]}, float(min(steps)), 1,
            "exact", relation=">=", lhs=Enclosure(r_lo, r_hi, "float64"), primary=True,
            reading=GROWS,
            note=f"smallest ratio V(N_(i+1))/V(N_i) over N << w (on the error intervals of V: "
                 f"[{float(r_lo):.6g}, {float(r_hi):.6g}]); exact V = "
                 f"{', '.join(f'{v:.4g}' for v in vals)}; {est()}"))
        # transition regime: the exact exponent against the stated form's exponent fitted on the
        # same N: |a - a_approx| <= the two fits' standard errors (a threshold reading)
        N2 = np.unique(np.round(np.geomspace(max(2, wx / 10), wx,
                                             grid.get("transition_points", 4))).astype(int))
        v2 = [V(n)[0] for n in N2]
        s2, se2, _ = _loglog_fit(N2, v2, [V(n)[1] for n in N2])
        b2 = [X.exact_form(claim, "conditional_variance", N=int(n), w=Fraction(wx),
                           sigma2=sigma2F) for n in N2]
        sb, seb, _ = _loglog_fit(N2, [float(v) for v in b2], np.zeros(len(b2)))
        gap_ball = X.log_slope_arb(N2, [_venc(*V(n)) for n in N2]) - X.log_slope_arb(
            N2, [(v, v) for v in b2])
        gap, gap_err = _arb_abs(gap_ball)
        allow2 = Fraction(se2 + seb)
        out.append(CheckResult(
            TRANSITION_Q, "stated",
            {**base, "N": [int(n) for n in N2], "fit": "least squares of log V on log N",
             "exponent": s2, "exponent_approx": sb},
            gap, allow2, "exact", relation="<=", error=gap_err, primary=False,
            note=(f"exact exponent {s2:.4g} against {sb:.4g}, the exponent of the stated "
                  f"approximation fitted on the same N; exact V = "
                  f"{', '.join(f'{v:.4g}' for v in v2)}: the variance keeps growing, faster than "
                  f"linearly, where the approximation already flattens.  A threshold reading: "
                  f"allowance = the two fits' residual standard errors {float(allow2):.3g} (the "
                  f"exponents agree as far as power laws describe the points); "
                  f"{_allowance_range(Enclosure.f64(gap, gap_err), allow2)}; {est()}")))
        # (c) where the exact variance stops growing
        lo, hi, scan_note = _peak_bracket(V, wx, grid)
        gmax = X.exact_form(claim, "growth_regime_max_N", w=Fraction(wx))
        peak_enc = Enclosure(lo + 1, hi - 1 if hi is not None else math.inf, "exact")
        top = hi if hi is not None else max(cache)
        peak_val = max((n for n in cache if lo < n <= top), key=lambda n: cache[n][0])
        gparams = {**base, "N_peak": int(peak_val), "N_peak_bracket": [lo + 1, hi - 1 if hi
                                                                         is not None else None],
                   "scan_ratio": float(grid.get("scan_ratio", math.sqrt(2)))}
        out.append(CheckResult(
            "growth_regime_max_N", "stated", gparams, peak_val, gmax, "exact", relation=">=",
            lhs=peak_enc,
            note=f"the exact variance grows over the whole stated regime N < w (on the grid) iff "
                 f"the local maximum N_peak of V that ends the growth is >= w; N_peak in "
                 f"[{lo + 1}, {hi - 1 if hi is not None else 'oo'}]; {scan_note}; "
                 f"peak / w = {peak_val / wx:.3g}; {est()}"))
        # '=' of an approximation: |N_peak - w| <= w/2 (a threshold reading, rule 3)
        if hi is None:
            dist = Enclosure(max(Fraction(lo + 1) - gmax, Fraction(0)), math.inf, "exact")
        else:
            dist_lo = min(abs(Fraction(n) - gmax) for n in (lo + 1, hi - 1))
            if lo + 1 <= gmax <= hi - 1:
                dist_lo = Fraction(0)
            dist = Enclosure(dist_lo, max(abs(Fraction(n) - gmax) for n in (lo + 1, hi - 1)),
                             "exact")
        out.append(CheckResult(
            PEAK_Q, "stated", gparams, abs(peak_val - float(gmax)), gmax / 2, "exact",
            relation="<=", lhs=dist, primary=False,
            note=(f"the stated form's growth ends at N = w = {float(gmax):.6g} (root of d/dN of "
                  f"the approximation); its '=' is an approximation, read as a threshold: |N_peak "
                  f"- w| <= w/2 (within +-50% of w; reasonable allowances run from w/4 to w, a "
                  f"factor 2 either way): {_allowance_range(dist, gmax / 2)} (N_peak known to "
                  f"its bracket); {scan_note}")))
        # (b) the stated approximation, '~' read as within +-50%: |V/approx - 1| <= 1/2
        for n in sorted({1, nmax, int(wx), 10 * int(wx)}):
            v, e = V(n)
            b = X.exact_form(claim, "conditional_variance", N=int(n), w=Fraction(wx),
                             sigma2=sigma2F)
            vlo, vhi = _venc(v, e)
            rel = _abs_interval(vlo / b - 1, vhi / b - 1)
            half = Fraction(1, 2)
            out.append(CheckResult(
                FORMULA_Q, "stated", {**base, "N": int(n), "approximation": float(b)},
                abs(v / float(b) - 1), half, "exact", relation="<=", lhs=rel, primary=False,
                note=(f"'~' read as a threshold: |V/approx - 1| <= 1/2 (within +-50%; reasonable "
                      f"allowances from 1/4 to 1, a factor 2 either way): "
                      f"{_allowance_range(rel, half)}; exact V = {v:.6g}, approx N sigma2/(w + "
                      f"N)^2 = {float(b):.6g} (exact rationals), exact/approx = "
                      f"{v / float(b):.3g}; sigma2 = V_pi f; for N << w the exact leading term N "
                      f"V_q[w(f - f(z_(t-1)))]/w^2 gives ratio {lead / sigma2:.3g}; {est()}")))
        for c in out[first:]:
            c.note = c.note.replace("@@AGREE@@", f"{agree[0]:.1e}")
    return out


# ============================================================================= readings
#: claim id -> its reasonable readings (verify.model.Reading), declared with the claim.  Every
#: reading quotes the words of 003 that support it (verbatim LaTeX, tests/test_verify_cis_imh.py
#: checks them against the document); a reading that another sentence of 003 rules out is not
#: declared: it is in :data:`DROPPED` with that sentence.
_READINGS: dict = {}
GROWS_Q = "conditional_variance increases with N for N << w"

LINEAR, GROWS, FORMULA = ("'approximately linearly': exponent ~ 1", "'can increase with N': grows",
                          "'~' as the formula (1 - r)^2 sigma^2/N within +-50%")

#: the quotes (003, §Parallel IMH)
Q_LINEAR = (
    "Thus, when \\(w\\,(\\vz_{t-1})\\) is very large, the conditional variance of CIS "
    "approximately grows "
            "linearly with \\(N\\).")
Q_GROWS = ("Instead, under specific conditions, the variance \\textit{increases} with \\(N\\).")
Q_FORMULA = ("\\Vsub{q_{\\vlambda}}{ \\E{ f \\mid \\vz_{t-1}\\,\\vz^{(1:N)} } } \\approx "
             "\\underbrace{{\\big(1 - "
             "r\\,(\\vz_{t-1})\\big)}^2}_{\\text{approx.}\\;\\;\\mathcal{O}(N^2)} \\,")

_READINGS["cis_variance_growth"] = (
    Reading(LINEAR, Q_LINEAR,
            "for N << w the exponent a of V ~ N^a is 1 within the approximation's own departure; "
            "no sentence of the CIS-as-IMH draft rules it out (the section's title, 'can "
            "increase', is weaker, not contrary)",
            axis="'grows linearly'",
            select=lambda c: c.quantity == LINEAR_Q),
    Reading(GROWS, Q_GROWS,
            "the section's claim: V increases with N under some conditions (w(z_t-1) large); the "
            "rate is not asserted; not ruled out by the sentence on linear growth, which is "
            "stronger",
            axis="'grows linearly'",
            # rule 2: the hedge allows the typical-case reading; the exponent departs from 1 only
            # where the linear coefficient N V_q[w (f - f(z_t-1))]/w(z_t-1)^2 vanishes (the
            # display's defect: step cis.approxvar)
            hedge="the conditional variance of CIS approximately grows linearly with \\(N\\)",
            see="cis.approxvar"),
    Reading(FORMULA, Q_FORMULA,
            "the displayed approximation (1 - r(z))^2 V_q[f_IS] with 1 - r = N/(w+N) (the bound "
            "the paragraph calls 'in general very tight') and V_q[f_IS] = sigma^2/N (the toolkit's "
            "constant for the underbrace O(1/N); the draft gives none) matches V within +-50%.  "
            "With the display's ingredients computed exactly (audit step cis.growth.formula) the "
            "gap is a factor up to 5.9: wrong within a factor 2, right within an order of "
            "magnitude",
            axis="'grows linearly'",
            select=lambda c: c.quantity == FORMULA_Q, promote=True),
)

SELECT, MOVE = ("'accept': the ensemble proposal is accepted (a proposal index is selected)",
                "'accept': z_t != z_t-1 (the CIS-as-IMH draft's definition)")
Q_SELECT = (
    "If the ensemble proposal \\(\\vz^{(1:N)}\\) is accepted, a single proposal is resampled "
    "proportionally to "
            "the normalized weight")
Q_MOVE = (
    "First, by defining \\(\\vz_t = \\vz_{t-1}\\) as ``reject'' and \\(\\vz_t \\neq \\vz_{t-1}\\) "
    "as "
          "``accept'', it is easy to notice that the CIS kernel can be understood as an "
          "accept-reject type kernel.")

#: the draft's setting: densities over continuous latents (acceptance rates as integrals 'dz',
#: kernels compared with random-walk Metropolis-Hastings and HMC), where a proposal equals z_t-1
#: with probability 0
Q_CONTINUOUS = ("the marginal acceptance rate \\(\\alpha = \\int \\int \\alpha(\\vz^*,\\vz)"
                "\\,q(\\vz^*)\\,p(\\vz\\mid\\vx)\\,d\\vz^*\\,d\\vz \\) of an IMH sampler")


def _move_at_atoms_only(checks) -> str:
    """Reading rule 3 for the draft's 'accept' = z_t != z_t-1: "" when a check of that reading
    lies in the draft's setting, else why the run cannot decide it there.

    The two definitions of 'accept' differ only where q has an atom at z_t-1 (a proposal equal
    to it is selected, and z_t = z_t-1); every finite space has such atoms, the draft's setting of
    densities over continuous latents has none (a proposal equals z_t-1 with probability 0),
    and there the reading is the other one, which holds.  The atom case is excluded, with its
    reason, not counted against the draft (severity note: claims.cis_barker_acceptance).
    """
    own = [c for c in checks if c.reading == MOVE]
    if own and all(c.params.get("ties") or c.params.get("marginal") is not None for c in own):
        return ("every check of this reading is at an atom of q at z_t-1 (a finite space), the "
                "only case where the draft's two definitions of 'accept' differ; the draft's "
                "setting, densities over continuous latents (\"" + Q_CONTINUOUS + "\"), has no "
                "atoms, and there the two agree (a proposal equals z_t-1 with probability 0)")
    return ""


_READINGS["cis_barker_acceptance"] = (
    Reading(SELECT, Q_SELECT,
            "alpha(z_t-1, z^(1:N)) is the probability that the ensemble is accepted, after which a "
            "proposal is resampled: P(a proposal index is selected); the definition of 'accept' as "
            "z_t != z_t-1 contradicts it only where q has an atom at z_t-1 (and is contradicted by "
            "it there: resampling a copy of z_t-1 after acceptance gives z_t = z_t-1), so neither "
            "reading is dropped",
            axis="'accept'",
            select=lambda c: c.params.get("event") == "a proposal is selected"),
    Reading(MOVE, Q_MOVE,
            "alpha = P(z_t != z_t-1 | z_t-1, z^(1:N)); equal to the selection probability when no "
            "proposal equals z_t-1 (a continuous q), smaller by the selection probability of the "
            "copies otherwise",
            axis="'accept'",
            select=lambda c: bool(c.params.get("ties")) or c.params.get("event") == "z_t != z_{t-1}"
            and c.params.get("marginal") is not None,
            degenerate=_move_at_atoms_only),
)

UNNORM_Q = "acceptance_rate with unnormalised weights w~ = p(z, x)/q(z)"

NORMALISED = "w normalised (E_q w = 1)"
UNNORMALISED = "w unnormalised, p(z, x)/q(z), as the CIS-as-IMH draft defines it"

#: the bound (003, §Parallel IMH) and the definition of w it uses (003, §CIS as IMH)
Q_ACC_BOUND = "1 - r\\,(\\vz_{t-1}) \\leq \\frac{N}{ w\\,(\\vz_{t-1}) + N},"
Q_W_DEF = (
    "where \\(w(\\vz) = \\nicefrac{p(\\vz,\\vx)}{q_{\\vlambda}(\\vz)}\\) is the unnormalized "
    "importance "
           "weight")

_READINGS["cis_acceptance_bound"] = (
    Reading(UNNORMALISED, Q_ACC_BOUND + " ... " + Q_W_DEF,
            "w(z) = p(z, x)/q(z) = p(x) p(z | x)/q(z), the CIS-as-IMH draft's only definition of "
            "w: the acceptance rate is unchanged "
            "by the evidence p(x), the printed bound is not (checked at p(x) = 0.1 and 10 on the "
            "first instance)",
            axis="weights"),
)

#: readings considered and not encoded, with the sentence of 003 that rules each out
DROPPED = {
    "cis_acceptance_bound": [{
        "reading": NORMALISED,
        "would read": "w in N/(w + N) as the normalised weight p(z | x)/q(z) (E_q w = 1), under "
                      "which the bound holds (Jensen; cis.accbound)",
        "support": "none in the rendered draft: the CIS-as-IMH draft never writes p(z | x)/q(z) as "
                   "w; its only 'normalized weight' is "
                   "the self-normalised w~^(i) = w(z^(i))/sum_i w(z^(i)) of §CIS as IMH; the "
                   "argument around the bound compares w with N ('w(z_t) can easily be large by "
                   "many orders of magnitude'), which suggests the author meant it",
        "ruled out by": Q_W_DEF,
        "why": "The CIS-as-IMH draft defines w(z) = p(z, x)/q(z) and calls it the unnormalized "
               "importance weight; the bound uses the "
               "same symbol without redefining it.  The normalised bound is the correction "
               "(cis.accbound.unnorm's correction: N p(x)/(w + N p(x)))",
    }],
}


# ============================================================================ registry
def _register(claim: str, **fields) -> None:
    """Register the verification of ``claim`` on its stated forms (every claim of 003 is checked
    on the printed bound only), with the readings declared for it above."""
    register(Verification(claim, forms="stated", readings=_READINGS.get(claim, ()), **fields))


_register(
    "cis_barker_acceptance",
    measures="P(z_t != z_{t-1} | z_{t-1}, z^(1:N)): selection law of kernels.select_index (exact, "
             "by bisection in u) for every proposal multiset; fraction of cis_step moves (Monte "
             "Carlo)",
    targets="finite spread instance (M states, every x, every multiset of N proposals); pi = N(0, "
            "I_D) vs q = N(0, s^2 I_D) at the worst and median states",
    method="exact+monte-carlo",
    grid=Grid(
        quick={"M_barker": 4, "w_star_barker": 50.0, "N": [1, 2, 4], "N_enumerate_max": 4,
               "N_marginal_max": 2,
               "gauss_barker": [(1, 2.0), (5, 1.5)], "states_barker": ["worst", "median"],
               "R": 20000},
        full={"M_barker": 5, "w_star_barker": 50.0, "N": [1, 2, 3, 4, 8, 16, 64],
              "N_enumerate_max": 8,
              "N_marginal_max": 4,
              "gauss_barker": [(1, 2.0), (5, 1.5), (10, 1.3)], "states_barker": ["worst", "median"],
              "R": 100000},
    ),
    run=run_barker,
    overrides=("N",), name="CIS acceptance is Barker's ratio",
)

_register(
    "cis_acceptance_bound",
    measures="acceptance rate 1 - r(z) = E_q[S/(w(z) + S)] (Laplace quadrature; enumeration for "
             "small N)",
    targets="every state of finite hard / spread instances (w* = 1e2..1e4); isotropic Gaussian "
            "pairs at the worst (w = w*) and median state",
    method="exact",
    grid=Grid(
        quick={"N": [1, 10, 100], "N_enumerate_max": 1,
               "instances": [("hard", 6, 1e2, 0), ("hard", 6, 1e4, 0), ("spread", 6, 1e3, 0)],
               "move_probability": [1, 10], "gauss": [(1, 2.0), (10, 1.5)],
               "states": ["worst", "median"]},
        full={"N": [1, 2, 5, 10, 100, 1000], "N_enumerate_max": 3,
              "instances": [("hard", 8, 1e1, 0), ("hard", 8, 1e2, 1), ("hard", 8, 1e3, 2),
                            ("hard", 8, 1e4, 3),
                            ("spread", 8, 1e2, 0), ("spread", 8, 1e3, 1), ("spread", 8, 1e4, 2)],
              "move_probability": [1, 2, 5, 10],
              "gauss": [(1, 2.0), (3, 1.5), (10, 1.5), (20, 1.5), (5, 3.0)],
              "states": ["worst", "median"]},
    ),
    run=run_acceptance_bound,
    overrides=("N",), name='CIS acceptance-rate bound',
)

_register(
    "imh_rejection_kl",
    measures="marginal IMH rejection rate at stationarity r = 1 - E_{pi x q} min(1, w(z*)/w(z)) "
             "(quadrature)",
    targets="pi = N(0,1) vs q = N(m,1) (mean shift); pi = N(0, I_D) vs q = N(0, s^2 I_D) (scale)",
    method="exact",
    grid=Grid(
        quick={"m": [0.1, 0.5, 1.0, 1.2, 1.5, 2.0, 3.0], "dim": [1, 3, 10],
               "proposal_scale": [0.8, 1.05, 1.2, 2.0]},
        full={"m": [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.1, 1.2, 1.25, 1.3, 1.5, 2.0, 3.0, 5.0],
              "dim": [1, 2, 3, 5, 10, 50],
              "proposal_scale": [0.5, 0.9, 0.95, 1.01, 1.05, 1.1, 1.3, 2.0]},
    ),
    run=run_rejection_kl,
    overrides=("dim", "proposal_scale"), name='IMH rejection rate vs KL, Eq. (rej_bound)',
)

_register(
    "cis_variance_growth",
    measures="exact variance of the Rao-Blackwellised CIS estimate at the w*-state as a function "
             "of N (finite.moments_msc_rb with N + 1 particles)",
    targets="finite hard / spread instances with w* = 1e3..1e4, f = N(0,1) per state",
    method="exact",
    grid=Grid(
        quick={"w_star": [1e4], "instances": [("hard", 8, 0), ("spread", 12, 0)], "slope_points": 6,
               "transition_points": 3, "scan_ratio": 2.0, "refine_peak": False},
        full={"w_star": [1e3, 1e4],
              "instances": [("hard", 8, 0), ("hard", 8, 1), ("spread", 8, 0), ("spread", 12, 2)],
              "slope_points": 10, "transition_points": 4, "scan_ratio": 2 ** 0.25,
              "refine_peak": True},
    ),
    run=run_variance_growth,
    overrides=("w_star",), name='CIS variance growth with N',
)


# ============================================================================= search spaces
# (python -m verify search CLAIM: verify.searching.search)
from verify.searching.spaces import spec  # noqa: E402


@spec("cis_acceptance_bound", "finite pi, q; N proposals in 1..10; any current state")
def _cab():
    from hypothesis import strategies as st

    from verify.searching.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"pq": finite_pair(3), "N": st.integers(1, 10),
                                   "x": st.integers(0, 2)})

    def ev(d):
        pi, q = d["pq"]
        x = d["x"] % pi.size
        w = pi / q
        # acceptance = E_q[S/(w_x + S)], S = sum of N proposal weights: enumerate the multiset
        acc = 0.0
        from math import factorial
        for c in F._compositions(d["N"], pi.size):
            p = factorial(d["N"])
            for ci in c:
                p //= factorial(ci)
            p = p * np.prod([qq ** ci for qq, ci in zip(q, c)])
            S = sum(ci * wi for ci, wi in zip(c, w))
            acc += p * S / (w[x] + S)
        return [("acceptance_rate", float(acc),
                 _bv("cis_acceptance_bound", "acceptance_rate", "stated", N=d["N"], w=float(w[x])),
                 "<=", TOL)]
    return strat, ev


@spec("imh_rejection_kl",
      "pi = N(0,1), q = N(m, s^2) with m in [-3, 3], s in [0.5, 3]: exact quadrature")
def _irk():
    from hypothesis import strategies as st

    from verify.searching.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"m": st.floats(-3, 3), "s": st.floats(0.5, 3.0)})

    def ev(d):
        from scipy import stats

        m, s = d["m"], d["s"]
        lw = lambda z: stats.norm.logpdf(z) - stats.norm.logpdf(z, m, s)  # noqa: E731
        # acceptance = E_{z~pi, y~q} min(1, w(y)/w(z)) by 2-d quadrature on a Gauss-Hermite grid
        x, wt = np.polynomial.hermite_e.hermegauss(160)
        wt = wt / wt.sum()
        z = x
        y = m + s * x
        acc = float(wt @ np.minimum(1.0, np.exp(lw(y)[None, :] - lw(z)[:, None])) @ wt)
        kl = float(np.log(s) + (1 + m ** 2) / (2 * s ** 2) - 0.5)
        klr = float(-np.log(s) + (s ** 2 + m ** 2) / 2 - 0.5)
        return [("rejection_rate", 1 - acc,
                 _bv("imh_rejection_kl", "rejection_rate", "stated", kl=kl), "<=", 1e-6),
                ("rejection_rate_symmetric", 1 - acc,
                 _bv("imh_rejection_kl", "rejection_rate_symmetric", "stated", kl=kl, kl_rev=klr),
                 "<=", 1e-6)]
    return strat, ev
