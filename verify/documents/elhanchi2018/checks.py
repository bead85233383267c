"""Verifications of the six claims of 002 (stochastic-gradient MCMC, quadratic log densities).

Source: A. El hanchi, "Stochastic gradient MCMC algorithms and their applications",
report (supervised by D. A. Stephens), 2018 (seed 002_95351a0522374075): §2.3.1 Eqs. (7)-(16),
§2.3.2 Eq. (17) and the Appendix ("Discretization error", "Derivation of the exact process",
"Maximizing the rate of convergence", "Minimizing auto-covariance").  The claims are
encoded in :mod:`bounds.sgmcmc` as scalar ratios to ``H^-1`` (with ``D = (k/2) H^-1``
every matrix of the appendix is a multiple of ``H^-1``).  Nothing here uses those sympy
formulas except as the *bound* side: the empirical side is computed from the matrices.

Empirical sides
---------------
All exact checks use random SPD matrices ``H = Q diag(l) Q^T`` (``Q`` Haar orthogonal,
``log l`` uniform, condition number ``cond`` attained) of dimensions 1-6, drawn from
``simulate.rng.unit_generator(seed, ...)``.  The matrices are doubles, hence rational numbers,
and every exact check is computed on them in exact rational arithmetic (python-flint's
``fmpq_mat``, helpers in :mod:`._kit`): ``D = (k/2) H^-1`` with the exact inverse, the processes'
``A`` and noise from the literal formulas, Lyapunov equations ``X = A X A^T + Q`` solved exactly
as the Kronecker system ``(I - A (x) A) vec X = vec Q``.  A matrix statement "``X = c H^-1``" is
checked through ``M = L^T X L`` (``H = L L^T``), whose eigenvalues are those of ``X H``: the
empirical value is the eigenvalue of ``sym(M)`` farthest from ``c``, pushed a further
``||skew(M)||_2`` away from ``c`` (:func:`._kit.farthest_eigenvalue`), so that ``|empirical -
c|`` bounds ``||M - c I||_2`` from above and equals 0 only if ``X = c H^-1``.  When ``X H`` is a
scalar matrix (it is, exactly, whenever the report's algebra is right) the value is that exact
rational; otherwise it is an eigenvalue of ``X H``, a root of its exact characteristic polynomial,
enclosed in a ball (arb) at the working precision the decision asks for.


* ``sgfs_stationary_covariance`` (Appendix, Discretization error, Eq. 32): the stationary
  covariance ``Lambda`` of ``theta' = (I - eps D H) theta + N(0, 2 eps D)`` (exact Lyapunov
  solve) vs ``1/(1 - k eps/4)`` (forms stated / explicit / series).  ``stationarity_k_max``: the
  supremum of the k for which ``rho(I - eps D H) < 1``, from the exact ``P = H^-1 H`` (its
  eigenvalues mu > 0 give ``sup k = 4 / (eps max mu)``), vs the printed "k in (0, 1)" (stated,
  at eps = 1) and ``4/eps`` (explicit).  The printed range is wrong: k = 2 gives ``I - DH = 0``
  (i.i.d. draws) and k = 3 a spectral radius 1/2; both are stationary (note of the check).
* ``sgfs_exact_noise`` (Appendix, Derivation of the exact process): with
  ``Q = 2D - DHD``, the Lyapunov solution of ``Lambda = A Lambda A^T + Q``,
  ``A = I - DH``, is ``H^-1`` -- for ``D = (k/2) H^-1`` *and* for random SPD ``D`` with
  ``rho(I - DH) < 1``.  ``noise_ratio``: the noise that makes ``H^-1`` stationary,
  ``H^-1 - A H^-1 A^T`` computed from the matrices, vs ``k - k^2/4``.
* ``sgfs_admissible_k`` (§2.3.1 Eqs. 11-16): ``H = N C + G`` (exactly, as the report defines it)
  with random SPD ``C`` and a prior ``G`` that is zero (weak prior), isotropic (with ``C``
  isotropic), weak random (``0.01 N C`` scale) or strong random (``10 N C`` scale).  The
  empirical value is ``k*``, the largest k for which the literal noise
  ``2D - (N^2/|S|) D C D - D H D`` (``D = (k/2) H^-1``) is PSD.  That noise is
  ``(k/4) H^-1 [4H - k B] H^-1`` with ``B = (N^2/|S|) C + H``, congruent to ``4H - kB`` for
  k > 0, so ``k* = 4 / lambda_max(H^-1 B)``: an exact rational when that eigenvalue is rational
  (it is for G = 0 and for isotropic C, G), else a ball.  Eqs. (13), (15) (``r`` computed from
  the matrices as defined below Eq. 15, exactly or as a ball) and (16) claim that their k is
  admissible, i.e. ``k* >= k_formula``: relation ``>=``, so ``--bound-scale C < 1`` (bound
  divided by C) asks whether ``k_formula / C`` is still admissible and a too-large formula is
  reported violated.  Eq. (13) is tight for ``G = 0`` and Eq. (15) for isotropic ``C`` and ``G``
  (``k* = k_formula`` exactly there), so the check has power.  Also primary: the smallest
  eigenvalue of the literal noise at each formula's k is ``>= 0`` (exactly 0 in the tight cases:
  the noise matrix is then 0).  Non-primary: the remark after Eq. (15) "For strong priors,
  r > 1" (form ``remark``, relation ``>``) -- counterexamples ``N C = diag(1, 100)`` with ``G = I``
  (``r = 4/101``) and with ``G = N C`` (``r = 1/50``) -- and the necessity of Eq. (13) for ``G =
  0`` (§2.3.1.1).
* ``sgfs_variance_trajectory`` (Appendix, Maximizing the rate of convergence): the exact
  recursion ``V_t = A V_{t-1} A^T + Q`` from ``V_0 = 0`` (``theta_0 = theta_MAP``),
  ``Q = 2D - DHD``, vs the printed closed form ``1 - (1 - k/2)^t`` (primary; e.g. k = 1,
  t = 1: 0.75 vs 0.5), the printed sum (to ``i = t``, also wrong) and the corrected
  ``1 - (1 - k/2)^(2t)`` (non-primary).
* ``sgfs_autocovariance`` (Appendix, Minimizing auto-covariance): exact
  ``Cov[theta_t, theta_{t-1}] = A Lambda`` at stationarity (Lyapunov ``Lambda``) vs
  ``(1 - k/2) H^-1``, and a Monte Carlo estimate of ``E[theta_t^T H theta_{t-1}] / d``
  from ``R`` independent chains of the exact process started at ``theta_MAP`` and
  burnt in until the transient is below 1e-10 (standard error from the sample).
* ``sgfs_convergence_criterion`` (§2.3.2 Eq. 17): the scalar process
  ``theta' = theta + D Y + N(0, 2D - D^2 N^2 C/|S| - D^2 h)``, ``Y = -h theta + xi``,
  ``xi ~ N(0, N^2 C/|S|)``, ``h = N C + G``, ``D = k/(2h)``, simulated with ``R``
  independent chains burnt in from ``theta_MAP``; one window of ``n`` successive
  gradients per chain.  Empirical: ``b`` times the root mean square of the window means
  ``(1/n) sum Y_i`` (their mean is 0 by symmetry), standard error by the delta method,
  vs ``b`` times the printed sd (stated; it omits the factor C on ``N^2/(n|S|)`` and
  treats the iterates as independent) and the corrected sd.  Non-primary: the
  fraction of windows passing (17) vs the ``2 Phi(b) - 1`` a correct sd would give.

Primary forms
-------------
Every claim's primary form is ``stated`` (what 002 prints); ``explicit`` / ``series`` /
``corrected`` and the remark checks are reported with ``primary=False``.  Hence
``sgfs_stationary_covariance`` is *violated* although its covariance formula holds: the
printed stationarity range is part of the statement (the explicit forms hold).  The
``stationarity_k_max`` stated check exists only at ``eps = 1``, where 002 states it.

Deciding the exact checks
-------------------------
No tolerance: a rational empirical value is given as a :class:`fractions.Fraction` (decided
exactly); an irrational one as its double with ``error=inf`` (the double decides nothing) and a
``refine(bits)`` that encloses it in a ball at ``bits`` (:func:`verify.decide.decide` escalates
64, 256, 1024 bits).  The identities' bounds (``=``) are the registry's rational formulas
evaluated exactly at the parameters (:func:`_exact_bound`: a ball at a non-dyadic rational is
never a point, so ``=`` could not hold on it); the bounds of Eqs. (15)-(16) take the exact (or
enclosed) ``r``.  The float64 computations of an earlier version (Lyapunov solves, eigensolvers,
Brent's method) carried first-order rounding estimates, not proved bounds; the exact
computations replace them (d <= 6: they are also faster).  Monte Carlo verdicts use the core's
Bonferroni-corrected z (``ALPHA = 1e-3`` per claim).

Grid keys a command line may override (``Verification.overrides``): ``dim``, ``k``,
``eps``, ``t``, ``cond`` (exact claims), ``N``, ``batch``, ``priors``, ``c`` (admissible
k), ``mc_k``, ``R`` (Monte Carlo) and ``N``, ``batch``, ``fisher``, ``prior``, ``k``,
``n_avg``, ``b`` (convergence criterion); all are lists except ``cond``, ``c`` and
``R``.  Here ``k`` is 002's real step fraction and ``N`` its number of data points.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from bounds.enclosure import Enclosure, precision
from mcsa_cli.lazy import lazy_module
from simulate.rng import unit_generator
from verify.model import CheckResult, Grid, Reading, Verification
from verify.registry import bound_value, register

from ._kit import (
    Spectrum,
    enclosure,
    exact_value,
    farthest_eigenvalue,
    formula_value,
    fq,
    frac,
    frobenius_sq,
    is_exact,
    lyapunov,
    qeye,
    qmat,
    qsym,
    scalar_of,
)

stats = lazy_module("scipy.stats")


def _sym(X):
    return (X + X.T) / 2


def _progress(progress, msg):
    if progress is not None:
        progress(msg)


# ----------------------------------------------------------------------------- instances
def random_spd(rng: np.random.Generator, d: int, cond: float, scale: float = 1.0) -> np.ndarray:
    """Q diag(l) Q^T, Q Haar orthogonal, log l uniform on [log scale, log scale*cond] (ends
    attained).
    """
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    Q = Q * np.sign(np.diag(R))
    ev = scale * cond ** rng.uniform(0.0, 1.0, d)
    if d > 1:
        ev[0], ev[-1] = scale, scale * cond
    return _sym((Q * ev) @ Q.T)


def _kappa(H) -> float:
    """cond(H) in float64 (a parameter shown with the checks; it decides nothing)."""
    ev = np.linalg.eigvalsh(H)
    return float(ev[-1] / ev[0])


def _rho(A) -> float:
    """Spectral radius in float64 (shown in notes and parameters; it decides nothing)."""
    return float(np.max(np.abs(np.linalg.eigvals(A)))) if A.size else 0.0


class Exact:
    """A target H in exact rational arithmetic: ``q`` (H as an fmpq_mat), ``inv`` (H^-1, exact)
    and the processes of the appendix built from the literal formulas."""

    def __init__(self, H: np.ndarray):
        self.H = H
        self.d = H.shape[0]
        self.q = qmat(H)
        self.inv = self.q.inv()
        self.I = qeye(self.d)  # noqa: E741 -- I is the document's notation

    def precond(self, k):
        """D = (k/2) H^-1 (Eq. 10), exactly."""
        return self.inv * (fq(k) / 2)

    def process(self, k, eps=1, exact_noise: bool = True):
        """(A, Q) of theta' = A theta + N(0, Q): A = I - eps D H, D = (k/2) H^-1, and
        Q = 2D - DHD (the exact process, eps = 1) or Q = 2 eps D (Eq. 7 without gradient noise)."""
        D = self.precond(k)
        A = self.I - D * self.q * fq(eps)
        Q = D * 2 - D * self.q * D if exact_noise else D * (2 * fq(eps))
        return A, Q

    def given_D(self, D: np.ndarray):
        """(A, Q) = (I - DH, 2D - DHD) for a D given as doubles (exact rationals)."""
        Dq = qmat(D)
        return self.I - Dq * self.q, Dq * 2 - Dq * self.q * Dq


def _target(seed, unit, stream: str, d: int, cond: float):
    """The target of a check: H = :func:`random_spd` (d, cond) from the unit's generator, its
    :class:`Exact` frame and its condition number."""
    H = random_spd(unit_generator(seed, unit, stream), d, cond)
    return H, Exact(H), _kappa(H)


# ----------------------------------------------------------------------------- deciding
@lru_cache(maxsize=None)
def _formula(claim: str, quantity: str, form: str):
    import bounds

    cl = bounds.get(claim)
    return cl.resolve(cl.quantity(quantity).form(form).expr)


def _exact_bound(claim: str, quantity: str, form: str, **params):
    """The bound ``(float, Enclosure)``: the registry's formula evaluated *exactly* at the
    parameters (doubles are rationals) when it is a rational function
    (:func:`._kit.exact_value`), after the claim's domain checks; the float is that exact value
    rounded.  Else :func:`verify.registry.bound_value` (the float keeps its formula, which
    :func:`verify.decide.decide` encloses; ``rhs`` None)."""
    import bounds

    v = exact_value(_formula(claim, quantity, form), {k: Fraction(x) for k, x in params.items()})
    if v is None:
        return bound_value(claim, quantity, form, **params), None
    bounds.get(claim).validate(params)
    return float(v), Enclosure.point(v)


def _value_fields(compute, ball_bound: bool = False):
    """The CheckResult fields of an exactly computed quantity.

    ``compute(bits)`` returns an fmpq (exact) or an arb ball at ``bits``.  An exact value is the
    ``empirical`` itself (a Fraction: decided exactly, ``settled_by`` "exact"), unless the bound
    is a ball (``ball_bound``); a ball's midpoint (or the value held against a ball) is shown as
    ``empirical`` with ``error=inf`` (the double decides nothing) and ``refine`` computes the
    value at the precision the decision asks for (``settled_by`` "arb-<bits>").
    """
    v = compute(64)
    if is_exact(v) and not ball_bound:
        return {"empirical": frac(v)}
    return {"empirical": float(v) if is_exact(v) else float(v.mid()), "error": math.inf,
            "refine": lambda bits: enclosure(compute(bits), bits)}


def _ratio_fields(X, E: Exact, c: Fraction):
    """Fields and a note for "X = c H^-1": :func:`._kit.farthest_eigenvalue` (exact or a ball)."""
    cq = fq(c)
    s = scalar_of(X * E.q)
    if s is not None:
        gap = frac(s) - Fraction(c)
        text = f"X H = {float(s):.15g} I exactly" + (
            f", {float(gap):.6g} I from the bound's" if gap else ", the bound's exactly")
    else:
        lo, hi = Spectrum(qsym(X) * E.q).ends(64)
        text = f"eig(X H) in [{float(lo):.15g}, {float(hi):.15g}] (not a scalar matrix)"
    return _value_fields(lambda bits: farthest_eigenvalue(X, E.q, cq, bits)), text


# ============================================================================= 1. stationary
# covariance
def _sup_stationary_k(E: Exact, eps):
    """sup{k > 0 : rho(I - eps (k/2) H^-1 H) < 1}, exactly: with P = H^-1 H (exact; it is I) and
    its eigenvalues mu > 0 (real: P = S H with S = H^-1 symmetric), |1 - eps (k/2) mu| < 1 for
    every mu iff k < 4 / (eps max mu).  Returns compute(bits) -> fmpq or arb."""
    spec = Spectrum(E.inv * E.q)

    def compute(bits):
        lo, hi = spec.ends(bits)
        if not lo > 0:
            raise ArithmeticError("H^-1 H has an eigenvalue <= 0")
        if is_exact(hi):
            return fq(4) / (fq(eps) * hi)
        with precision(bits):
            return 4 / (hi * fq(eps))
    return compute


def _stationary_covariance(E: Exact, k, eps):
    """(Lambda, A): the exact Lyapunov solution of Lambda = A Lambda A^T + 2 eps D."""
    A, Q = E.process(k, eps, exact_noise=False)
    return lyapunov(A, Q), A


def run_stationary_covariance(grid, seed=0, progress=None):
    claim = "sgfs_stationary_covariance"
    out = []
    cond = grid["cond"]
    for d in grid["dim"]:
        H, E, kap = _target(seed, d, "sgfs/stationary/H", d, cond)
        _progress(progress, f"{claim}: d={d}")
        for eps in grid["eps"]:
            for k in grid["k"]:
                if not k * eps < 4:
                    continue  # no stationary distribution: the claim's constraint
                Lam, A = _stationary_covariance(E, k, eps)
                a = scalar_of(A)
                rho = f"{abs(float(a)):.6g} (A = {float(a):.6g} I exactly)" if a is not None \
                    else f"{_rho(np.array(A.tolist(), dtype=float)):.6g}"
                for form in ("stated", "explicit", "series"):
                    b, rhs = _exact_bound(claim, "covariance_ratio", form, k_frac=k, eps=eps)
                    fields, text = _ratio_fields(Lam, E, rhs.lo)
                    out.append(CheckResult(
                        "covariance_ratio", form,
                        {"dimension": d, "k": k, "eps": eps, "cond_H": kap,
                         "instance": f"seed {seed}, unit {d}"},
                        bound=b, rhs=rhs, method="exact", relation="=", primary=form == "stated",
                        note=f"exact Lyapunov solve of Lambda = A Lambda A^T + 2 eps D, A = I - "
                             f"eps D H, D = (k/2) H^-1 (rationals), rho(A) = {rho}; {text}",
                        **fields))
            # the supremum of stationary k at this eps
            sup = _sup_stationary_k(E, eps)
            fields = _value_fields(sup)
            ce = []
            for kc in (Fraction(2) / Fraction(eps), Fraction(3) / Fraction(eps)):
                Lam, A = _stationary_covariance(E, kc, eps)
                a, lam = scalar_of(A), scalar_of(Lam * E.q)
                ce.append(f"k = {float(kc):g}: I - eps DH = {float(a):g} I, rho = {abs(float(a)):g}"
                          f" < 1, Lambda = {float(lam):g} H^-1 (exact)")
            kc = Fraction(9, 2) / Fraction(eps)
            a = scalar_of(E.process(kc, eps, exact_noise=False)[0])
            ce.append(f"k = {float(kc):g}: rho = {abs(float(a)):g} >= 1 (no stationary law)")
            for form in ("stated", "explicit"):
                if form == "stated" and eps != 1.0:
                    continue  # the printed "k in (0, 1)" is stated for eps = 1 only
                b, rhs = _exact_bound(claim, "stationarity_k_max", form, eps=eps)
                note = (f"exact: eigenvalues mu of H^-1 H (rationals), sup k = 4/(eps max mu) = "
                        f"{float(fields['empirical']):.15g}; " + "; ".join(ce))
                if form == "stated":
                    note = "counterexample to 'k in (0, 1)': " + note
                out.append(CheckResult(
                    "stationarity_k_max", form, {"dimension": d, "eps": eps, "cond_H": kap},
                    bound=b, rhs=rhs, method="exact", relation="=", primary=form == "stated",
                    note=note, **fields))
                if form == "stated":  # the other reading: every k in (0, 1) is stationary
                    out.append(CheckResult(
                        SUFFICIENT_Q, form, {"dimension": d, "eps": eps, "cond_H": kap},
                        bound=b, rhs=rhs, method="exact", relation=">=", primary=True,
                        reading=SUFFICIENT,
                        note="every k below the printed sup 1 must be stationary: sup k (exact) "
                             ">= 1", **fields))
    return out


SUFFICIENT_Q = "stationarity_k_max (k in (0, 1) read as sufficient)"
EQUIVALENT, SUFFICIENT = ("'equivalent to k in (0, 1)' as an "
                          "equivalence"), "k in (0, 1) as a sufficient condition"


# ============================================================================= 2. exact noise
def run_exact_noise(grid, seed=0, progress=None):
    claim = "sgfs_exact_noise"
    out = []
    cond = grid["cond"]
    one = Enclosure.point(1)
    for d in grid["dim"]:
        _progress(progress, f"{claim}: d={d}")
        H, E, kap = _target(seed, d, "sgfs/exact_noise/H", d, cond)
        for k in grid["k"]:
            A, Q = E.process(k)
            Lam = lyapunov(A, Q)
            fields, text = _ratio_fields(Lam, E, Fraction(1))
            params = {"dimension": d, "k": k, "D": "(k/2) H^-1", "cond_H": kap}
            out.append(CheckResult(
                "stationary_covariance_ratio", "stated", params, bound=1.0, rhs=one,
                method="exact", relation="=",
                note=f"exact Lyapunov Lambda of theta' = (I - DH) theta + N(0, 2D - DHD) in units "
                     f"of H^-1 (claim: 'has the correct stationary distribution' N(0, H^-1)); "
                     f"{text}", **fields))
            # the noise that makes H^-1 stationary, H^-1 - A H^-1 A^T, from the matrices
            Qs = E.inv - A * E.inv * A.transpose()
            for form in ("stated", "explicit"):
                b, rhs = _exact_bound(claim, "noise_ratio", form, k_frac=k)
                fields, text = _ratio_fields(Qs, E, rhs.lo)
                out.append(CheckResult(
                    "noise_ratio", form, params, bound=b, rhs=rhs, method="exact", relation="=",
                    primary=form == "stated",
                    note=f"H^-1 - A H^-1 A^T with A = I - DH (the noise making H^-1 stationary), "
                         f"exact; {text}", **fields))
        # random SPD D with rho(I - DH) < 1
        for j, frac_ in enumerate(grid["random_D_frac"]):
            rng = unit_generator(seed, 100 * d + j, "sgfs/exact_noise/D")
            D0 = random_spd(rng, d, grid["cond_D"])
            L = np.linalg.cholesky(H)
            mu_max = float(np.linalg.eigvalsh(L.T @ D0 @ L)[-1])  # largest eigenvalue of D0 H
            D = (2 * frac_ / mu_max) * D0
            A, Q = E.given_D(D)
            Lam = lyapunov(A, Q)
            fields, text = _ratio_fields(Lam, E, Fraction(1))
            Af = np.eye(d) - D @ H
            out.append(CheckResult(
                "stationary_covariance_ratio", "stated",
                {"dimension": d, "D": "random SPD", "rho_max_DH": 2 * frac_, "cond_H": kap,
                 "cond_D": _kappa(D), "rho_A": _rho(Af)},
                bound=1.0, rhs=one, method="exact", relation="=",
                note=f"random D (doubles, read exactly), float64 lambda_min(2D - DHD) = "
                     f"{np.linalg.eigvalsh(_sym(2 * D - D @ H @ D))[0]:.3g}, rho(I - DH) = "
                     f"{_rho(Af):.6g}; exact Lyapunov solve; {text}", **fields))
    return out


# ============================================================================= 3. admissible k
class Admissible:
    """One instance (C, G, N, |S|) of §2.3.1 in exact arithmetic: ``H = N C + G`` (the report's
    definition, exactly), ``a = N^2/|S|``, ``B = a C + H``.

    The literal noise of Eq. (8) at ``D = (k/2) H^-1`` is
    ``W(k) = 2D - a DCD - DHD = k H^-1 - (k^2/4) H^-1 B H^-1 = (k/4) H^-1 (4H - kB) H^-1``,
    congruent (k > 0) to ``4H - kB``: PSD iff ``k <= k* = 4 / lambda_max(H^-1 B)``.
    """

    def __init__(self, C: np.ndarray, G: np.ndarray, N: int, S: int):
        self.C, self.G, self.N, self.S = qmat(C), qmat(G), N, S
        self.H = self.C * fq(N) + self.G
        self.inv = self.H.inv()
        self.a = fq(N) ** 2 / fq(S)
        self.B = self.C * self.a + self.H
        self.HBH = self.inv * self.B * self.inv
        self._kstar = Spectrum(self.inv * self.B)  # real: H^-1 symmetric, B SPD
        self._r = (Spectrum(self.H), Spectrum(self.inv * self.C * fq(N) * self.inv))

    def k_star(self, bits):
        """k* = 4 / lambda_max(H^-1 B): fmpq or a ball at ``bits``."""
        _, hi = self._kstar.ends(bits)
        if is_exact(hi):
            return fq(4) / hi
        with precision(bits):
            return 4 / hi

    def r(self, bits):
        """r = lambda_min(H^-1) / lambda_max(H^-1 N C H^-1) (below Eq. 15) =
        1 / (lambda_max(H) lambda_max(H^-1 N C H^-1)): fmpq or a ball at ``bits``."""
        h, m = (s.ends(bits)[1] for s in self._r)
        if is_exact(h) and is_exact(m):
            return 1 / (h * m)
        with precision(bits):
            return 1 / (h * m)

    def noise(self, k):
        """W(k) = 2D - a DCD - DHD with D = (k/2) H^-1, from the literal formula (k an fmpq)."""
        D = self.inv * (k / 2)
        return D * 2 - D * self.C * D * self.a - D * self.H * D

    def noise_min_eig(self, k_of_bits):
        """compute(bits) of lambda_min(W(k)) for the k that ``k_of_bits(bits)`` gives (fmpq or
        ball).

        A ball k = m +- delta (m its exact midpoint): W(k) - W(m) = (k - m) H^-1 - ((k^2 -
        m^2)/4) H^-1 B H^-1 is symmetric with 2-norm at most delta (||H^-1||_F + (2|m| + delta)/4
        ||H^-1 B H^-1||_F), and by Weyl's inequality lambda_min moves by at most that much.
        """
        from flint import arb

        def compute(bits):
            k = k_of_bits(bits)
            if is_exact(k):
                return Spectrum(self.noise(k)).ends(bits)[0]
            with precision(bits):
                m = k.mid()
                man, exp = m.man_exp()
                mq = fq(int(man)) * fq(2) ** int(exp) if int(exp) >= 0 else \
                    fq(int(man)) / fq(2) ** -int(exp)
                lo = Spectrum(self.noise(mq)).ends(bits)[0]
                delta = k.rad()
                f_inv = arb(frobenius_sq(self.inv)).sqrt()
                f_hbh = arb(frobenius_sq(self.HBH)).sqrt()
                shift = delta * (f_inv + (2 * abs(arb(mq)) + delta) / 4 * f_hbh)
                return arb(lo) + shift * arb(0, 1)
        return compute


def _admissible_instance(seed, d, N, prior, cond, unit):
    rng = unit_generator(seed, unit, f"sgfs/admissible/{prior}")
    if prior == "isotropic":
        c = float(np.exp(rng.uniform(-1, 1)))
        C = c * np.eye(d)
        G = N * c * float(np.exp(rng.uniform(-1, 1))) * np.eye(d)
    else:
        C = random_spd(rng, d, cond, scale=float(np.exp(rng.uniform(-1, 1))))
        if prior == "zero":
            G = np.zeros((d, d))
        else:
            s = {"weak": 0.01, "strong": 10.0}[prior]
            G = random_spd(rng, d, cond, scale=s * N * float(np.linalg.eigvalsh(C)[0]))
    return C, G


def _num(x) -> float:
    """An fmpq or a ball's midpoint as a double (display)."""
    return float(x) if is_exact(x) else float(x.mid())


def _k_formula(claim: str, quantity: str, inst: Admissible, bits: int, **params):
    """The k of Eq. (15) or (16) at the instance's r (:meth:`Admissible.r`): the registry's
    formula (:func:`._kit.formula_value`) exactly when r is rational, else in ball arithmetic at
    ``bits`` (exact again when a Min/Max picks a rational branch for certain)."""
    vals = {k: fq(x) for k, x in params.items()}
    vals["eig_ratio"] = inst.r(bits)
    return formula_value(_formula(claim, quantity, "stated"), vals, bits)


def _formula_ks(claim: str, inst: Admissible, N: int, S: int, cmax: float) -> dict:
    """{"13" | "15" | "16": bits -> the k of that equation} (fmpq or ball) for one instance."""
    k13 = fq(_exact_bound(claim, "k_max_13", "stated", n_data=N, batch=S)[1].lo)
    return {"13": lambda bits: k13,
            "15": lambda bits: _k_formula(claim, "k_max_15", inst, bits, n_data=N, batch=S),
            "16": lambda bits: _k_formula(claim, "k_16", inst, bits, n_data=N, batch=S,
                                          c_max=cmax)}


def run_admissible_k(grid, seed=0, progress=None):
    claim = "sgfs_admissible_k"
    out = []
    cmax = grid["c"]
    unit = 0
    qn = {"13": "k_max_13", "15": "k_max_15", "16": "k_16"}
    for d, N, S, prior in itertools.product(grid["dim"], grid["N"], grid["batch"], grid["priors"]):
        unit += 1
        if S > N:
            continue
        _progress(progress, f"{claim}: d={d} N={N} |S|={S} prior={prior}")
        C, G = _admissible_instance(seed, d, N, prior, grid["cond"], unit)
        inst = Admissible(C, G, N, S)
        r = inst.r(64)
        how = "exact" if is_exact(inst.k_star(64)) else "an eigenvalue ball"
        params = {"dimension": d, "N": N, "|S|": S, "prior": prior, "r": _num(r), "c": cmax,
                  "cond_H": _kappa(_sym(N * C + G))}
        k_of = _formula_ks(claim, inst, N, S, cmax)
        r_how = "exact" if is_exact(r) else "a ball"
        for eq in ("13", "15", "16"):
            kf = k_of[eq](256)
            out.append(CheckResult(
                qn[eq], "stated", {**params, "k_formula": _num(kf)}, bound=_num(kf),
                rhs=enclosure(kf, 256), method="exact", relation=">=",
                note=f"empirical: largest k with 2D - (N^2/|S|) DCD - DHD PSD, k* = 4 / "
                     f"lambda_max(H^-1 ((N^2/|S|) C + H)) from the exact matrices ({how}); Eq. "
                     f"({eq}) claims its k is admissible (r {r_how})",
                **_value_fields(inst.k_star, ball_bound=not is_exact(kf))))
            out.append(CheckResult(
                "noise_min_eig", "stated", {**params, "eq": eq, "k": _num(kf)}, bound=0.0,
                rhs=Enclosure.point(0), method="exact", relation=">=",
                note=f"smallest eigenvalue of the literal injected noise 2D - (N^2/|S|) DCD - DHD "
                     f"at the k of Eq. ({eq}) = {_num(kf):.6g} (exact rationals; k "
                     f"{'exact' if is_exact(kf) else 'a ball: Weyl bound on its radius'})",
                **_value_fields(inst.noise_min_eig(k_of[eq]))))
        if prior == "zero":
            b, rhs = _exact_bound(claim, "k_max_13", "stated", n_data=N, batch=S)
            out.append(CheckResult(
                "k_max_13_necessary", "stated", {**params, "k_formula": b}, bound=b, rhs=rhs,
                method="exact", relation="=", primary=False,
                note="§2.3.1.1: for G << N C 'the condition in (13) becomes a necessary one' (G = "
                     f"0 here): k* = 4 |S| / (N + |S|) ({how})", **_value_fields(inst.k_star)))
    # remark after Eq. (15): "For strong priors, r > 1"
    for label, NC, G in (("G = I", np.diag([1.0, 100.0]), np.eye(2)),
                         ("G = N C", np.diag([1.0, 100.0]), np.diag([1.0, 100.0]))):
        inst = Admissible(NC, G, 1, 1)  # N = 1: C is N C itself
        out.append(CheckResult(
            "eig_ratio_strong_prior", "remark", {"NC": "diag(1, 100)", "G": label}, bound=1.0,
            rhs=Enclosure.point(1), method="exact", relation=">", primary=False,
            note=f"counterexample to 'For strong priors, r > 1': N C = diag(1, 100), {label} (G >= "
                 f"N C in the first "
                 f"direction{'' if label == 'G = I' else ', G = N C in every direction'}) gives r "
                 f"= {_num(inst.r(64)):.6g} < 1 (exact)", **_value_fields(inst.r)))
    return out


# ============================================================================= 4. variance
# trajectory
def _trajectory(E: Exact, k, T):
    """[V_0, ..., V_T]: V_t = A V_{t-1} A^T + Q, V_0 = 0 (theta_0 = theta_MAP), Q = 2D - DHD, in
    exact rationals."""
    A, Q = E.process(k)
    At = A.transpose()
    V = Q * 0
    out = [V]
    for _ in range(T):
        V = A * V * At + Q
        out.append(V)
    return out


def run_variance_trajectory(grid, seed=0, progress=None):
    claim = "sgfs_variance_trajectory"
    out = []
    ts = sorted(set(int(t) for t in grid["t"]))
    for d in grid["dim"]:
        _progress(progress, f"{claim}: d={d}")
        H, E, kap = _target(seed, d, "sgfs/trajectory/H", d, grid["cond"])
        for k in grid["k"]:
            traj = _trajectory(E, k, max(ts))
            for t in ts:
                V = traj[t]
                for form in ("stated", "stated_sum", "corrected"):
                    b, rhs = _exact_bound(claim, "variance_ratio", form, k_frac=k, t_iter=t)
                    fields, text = _ratio_fields(V, E, rhs.lo)
                    out.append(CheckResult(
                        "variance_ratio", form, {"dimension": d, "k": k, "t": t, "cond_H": kap},
                        bound=b, rhs=rhs, method="exact", relation="=", primary=form == "stated",
                        note=f"exact recursion Var[theta_t] = A Var[theta_(t-1)] A^T + (2D - DHD) "
                             f"from theta_0 = theta_MAP (rationals): Var[theta_{t}] H: {text}; "
                             f"{form} {float(b):.12g}", **fields))
    return out


# ============================================================================= 5. autocovariance
def _float_process(H: np.ndarray, k: float):
    """(A, Q) of the exact process in float64, for the Monte Carlo chains only."""
    D = (k / 2) * _sym(np.linalg.inv(H))
    return np.eye(H.shape[0]) - D @ H, _sym(2 * D - D @ H @ D)


def run_autocovariance(grid, seed=0, progress=None):
    claim = "sgfs_autocovariance"
    out = []
    for d in grid["dim"]:
        _progress(progress, f"{claim}: exact d={d}")
        H, E, kap = _target(seed, d, "sgfs/autocov/H", d, grid["cond"])
        for k in grid["k"]:
            A, Q = E.process(k)
            X = A * lyapunov(A, Q)  # Cov[theta_t, theta_{t-1}] = E[(A theta + w) theta^T]
            for form in ("stated", "explicit"):
                b, rhs = _exact_bound(claim, "lag1_ratio", form, k_frac=k)
                fields, text = _ratio_fields(X, E, rhs.lo)
                out.append(CheckResult(
                    "lag1_ratio", form, {"dimension": d, "k": k, "cond_H": kap}, bound=b, rhs=rhs,
                    method="exact", relation="=", primary=form == "stated",
                    note=f"A Lambda with Lambda the exact Lyapunov solution of the exact process "
                         f"(rationals); {text}", **fields))
    # Monte Carlo: R independent chains of the exact process, burnt in from theta_MAP = 0
    d = grid["mc_dim"]
    H, _, kap = _target(seed, 10_000 + d, "sgfs/autocov/H", d, grid["cond"])
    R = int(grid["R"])
    for j, k in enumerate(grid["mc_k"]):
        _progress(progress, f"{claim}: Monte Carlo d={d} k={k} R={R}")
        A, Q = _float_process(H, k)
        LQ = np.linalg.cholesky(Q)
        rho = max(_rho(A), 1e-300)
        burn = max(1, int(math.ceil(math.log(1e-10) / (2 * math.log(rho))))) if rho < 1 else 1
        burn = min(burn, 100_000)
        gen = unit_generator(seed, j, f"sgfs/autocov/mc/{k}")
        th = np.zeros((R, d))
        for _ in range(burn):
            th = th @ A.T + gen.standard_normal((R, d)) @ LQ.T
        th1 = th @ A.T + gen.standard_normal((R, d)) @ LQ.T
        x = np.einsum("ri,ij,rj->r", th1, H, th) / d  # theta_t^T H theta_{t-1} / d
        est, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(R))
        for form in ("stated", "explicit"):
            b = bound_value(claim, "lag1_ratio", form, k_frac=k)
            out.append(CheckResult(
                "lag1_ratio", form,
                {"dimension": d, "k": k, "R": R, "burn_in": burn, "cond_H": kap},
                est, b, "monte-carlo", relation="=", stderr=se, primary=form == "stated",
                note=f"mean over R chains of theta_t^T H theta_(t-1) / d (= tr(H Cov)/d) after "
                     f"{burn} burn-in steps from theta_MAP (transient rho^(2 burn) <= 1e-10)"))
    return out


# ============================================================================= 6. convergence
# criterion
def simulate_window_means(N, S, C, G, k, n, R, gen, burn_tol=1e-10):
    """R independent windows of n successive stochastic gradients of the scalar process.

    theta' = theta + D Y + N(0, 2D - D^2 N^2 C/|S| - D^2 h), Y = -h theta + xi,
    xi ~ N(0, N^2 C/|S|), h = N C + G, D = k/(2h), from theta_0 = theta_MAP = 0 with a
    burn-in of B steps (|1 - Dh|^(2B) <= burn_tol).  Returns (window means, B).
    """
    h = N * C + G
    sx2 = N ** 2 * C / S
    D = k / (2 * h)
    vinj = 2 * D - D ** 2 * sx2 - D ** 2 * h
    if vinj < 0:
        raise ValueError("injected noise variance negative: k not admissible")
    rho = abs(1 - D * h)
    B = int(math.ceil(math.log(burn_tol) / (2 * math.log(rho)))) if 0 < rho < 1 else 1
    th = np.zeros(R)
    sx, si = math.sqrt(sx2), math.sqrt(vinj)
    total = np.zeros(R)
    for i in range(B + n):
        Y = -h * th + sx * gen.standard_normal(R)
        if i >= B:
            total += Y
        th = th + D * Y + si * gen.standard_normal(R)
    return total / n, B


def run_convergence_criterion(grid, seed=0, progress=None):
    claim = "sgfs_convergence_criterion"
    out = []
    R = int(grid["R"])
    pts = list(itertools.product(grid["N"], grid["batch"], grid["fisher"], grid["prior"], grid["k"],
                                 grid["n_avg"], grid["b"]))
    for j, (N, S, C, G, k, n, b) in enumerate(pts):
        h = N * C + G
        sx2 = N ** 2 * C / S
        if k * (h + sx2) > 4 * h or S > N:
            continue  # k not admissible (injected noise would be negative)
        _progress(progress, f"{claim}: N={N} |S|={S} C={C} G={G} k={k} n={n} R={R}")
        gen = unit_generator(seed, j, "sgfs/criterion")
        m, B = simulate_window_means(N, S, C, G, k, int(n), R, gen)
        m2 = m ** 2
        s2 = float(m2.mean())
        s = math.sqrt(s2)
        se = float(m2.std(ddof=1) / math.sqrt(R)) / (2 * s)  # delta method for sqrt(mean m^2)
        params = {"N": N, "|S|": S, "C": C, "G": G, "k": k, "n": int(n), "b": b, "R": R,
                  "burn_in": B}
        bnd = {}
        for form in ("stated", "corrected"):
            kw = dict(n_avg=int(n), n_data=N, batch=S, fisher=C, prior=G, b=b)
            if form == "corrected":
                kw["k_frac"] = k
            bnd[form] = bound_value(claim, "threshold", form, **kw)
            out.append(CheckResult(
                "threshold", form, params, b * s, bnd[form], "monte-carlo", relation="=",
                stderr=b * se,
                primary=form == "stated",
                note=f"b x RMS of (1/n) sum_i Y_i over R independent stationary windows = "
                     f"{b * s:.6g} (sd {s:.6g}); printed sd = {bnd['stated'] / b:.6g}"))
        # non-primary: pass rate of (17) vs the 2 Phi(b) - 1 of a correct sd
        p = float(np.mean(np.abs(m) <= bnd["stated"]))
        p0 = float(2 * stats.norm.cdf(b) - 1)
        p_pred = float(2 * stats.norm.cdf(bnd["stated"] / (bnd["corrected"] / b)) - 1)
        out.append(CheckResult(
            "pass_rate", "stated", params, p, p0, "monte-carlo", relation="=",
            stderr=math.sqrt(max(p * (1 - p), 1.0 / R) / R), primary=False,
            note=f"fraction of stationary windows passing (17) = {p:.4f}; a correct sd would give "
                 f"2 Phi(b) - 1 = {p0:.4f}; predicted from the corrected sd: {p_pred:.4f}"))
    return out


# ============================================================================= readings
#: claim id -> its reasonable readings (verify.model.Reading), declared with the claim
_READINGS: dict = {}
_READINGS["sgfs_stationary_covariance"] = (
    Reading(EQUIVALENT, "-I < I - DH < I ... which is equivalent to k in (0, 1) (Appendix, "
                        "Discretization error)",
            "the printed range is exactly the stationary range: sup of the stationary k equals 1",
            axis="printed range",
            select=lambda c: c.quantity == "stationarity_k_max" and c.form == "stated"),
    Reading(SUFFICIENT, "-I < I - DH < I ... which is equivalent to k in (0, 1) (Appendix, "
                        "Discretization error)",
            "the range as the one the report works in: every k in (0, 1) gives a stationary "
            "process (the covariance formula Eq. (32) is checked under both readings)",
            axis="printed range",
            # rule 6: the report says three times that the range is necessary, not merely sufficient
            ruled_out="Appendix: 'This process has a stationary distribution if and only if: -I < "
                      "(I - eps DH) < I ... the above condition is equivalent to k in (0, 1)'; "
                      "§2.3.1, of Eq. (10): 'The restriction on the values of k is necessary for "
                      "convergence'"),
)


# ============================================================================= registry
def _register(claim: str, **fields) -> None:
    """Register the verification of ``claim`` with the readings declared for it above."""
    register(Verification(claim, readings=_READINGS.get(claim, ()), **fields))


_register(
    "sgfs_stationary_covariance",
    measures="Lambda H for the stationary covariance of theta' = (I - eps DH) theta + N(0, 2 eps "
             "D), D = (k/2) H^-1; sup of the k with rho(I - eps DH) < 1",
    targets="random SPD H, dimensions 1-6",
    method="exact",
    forms="stated, explicit, series",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], eps=[1.0, 0.25], cond=100.0),
              dict(dim=[1, 2, 3, 4, 5, 6],
                   k=[0.05, 0.5, 0.9, 1.0, 2.0, 3.0, 3.9],
                   eps=[1.0, 0.5, 0.1], cond=1000.0)),
    run=run_stationary_covariance, overrides=("k", "eps", "dim", "cond"),
    name='Stationary covariance, Eq. (32)')

_register(
    "sgfs_exact_noise",
    measures="Lyapunov stationary covariance of the exact process (noise 2D - DHD) in units of "
             "H^-1; the noise H^-1 - A H^-1 A^T that makes H^-1 stationary",
    targets="random SPD H; D = (k/2) H^-1 and random SPD D with rho(I - DH) < 1", method="exact",
    forms="stated, explicit",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], random_D_frac=[0.3, 0.9], cond=100.0,
                   cond_D=10.0),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 1.0, 2.0, 3.0, 3.9],
                   random_D_frac=[0.3, 0.6, 0.9, 0.99],
                   cond=1000.0, cond_D=100.0)), run=run_exact_noise, overrides=("k", "dim", "cond"),
    name='Noise of the exact process')

_register(
    "sgfs_admissible_k",
    measures="largest k with PSD injected noise 2D - (N^2/|S|) DCD - DHD (brentq) vs the k of Eqs. "
             "(13), (15), (16); smallest eigenvalue of the noise at those k",
    targets="H = N C + G, random SPD C; G zero / isotropic / weak / strong", method="exact",
    forms="stated, remark",
    grid=Grid(dict(dim=[2, 5], N=[1000, 10000], batch=[100],
                   priors=["zero", "isotropic", "weak", "strong"],
                   c=0.1, cond=10.0),
              dict(dim=[1, 2, 3, 5, 6], N=[100, 1000, 10000, 100000], batch=[10, 100, 1000],
                   priors=["zero", "isotropic", "weak", "strong"], c=0.1, cond=100.0)),
    run=run_admissible_k,
    overrides=("dim", "N", "batch", "priors", "c", "cond"), name='Admissible k, Eqs. (13)-(16)')

_register(
    "sgfs_variance_trajectory",
    measures="Var[theta_t] H along the exact process from theta_MAP (exact matrix recursion)",
    targets="random SPD H, dimensions 1-6", method="exact", forms="stated, stated_sum, corrected",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], t=[0, 1, 2, 5, 20], cond=100.0),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 0.9, 1.0, 2.0, 3.0, 3.9],
                   t=[0, 1, 2, 3, 5, 10, 50, 200],
                   cond=1000.0)), run=run_variance_trajectory, overrides=("k", "t", "dim", "cond"),
    name='Variance along the exact process')

_register(
    "sgfs_autocovariance",
    measures="Cov[theta_t, theta_(t-1)] H at stationarity: exact (A Lambda) and Monte Carlo (R "
             "parallel chains)",
    targets="random SPD H, dimensions 1-6", method="exact+monte-carlo", forms="stated, explicit",
    grid=Grid(dict(dim=[1, 3, 6], k=[0.5, 1.0, 3.0], cond=100.0, mc_dim=3, mc_k=[0.5, 3.0],
                   R=20000),
              dict(dim=[1, 2, 3, 4, 5, 6], k=[0.05, 0.5, 1.0, 2.0, 3.0, 3.9], cond=1000.0, mc_dim=4,
                   mc_k=[0.1, 0.5, 1.0, 3.0], R=400000)), run=run_autocovariance,
    overrides=("k", "dim", "cond", "mc_k", "R"), name='Lag-one autocovariance')

_register(
    "sgfs_convergence_criterion",
    measures="b x sd of the mean of n successive stochastic gradients at stationarity (scalar "
             "process, simulated)",
    targets="scalar quadratic target h = N C + G with Gaussian minibatch noise N(0, N^2 C/|S|)",
    method="monte-carlo",
    forms="stated, corrected",
    grid=Grid(dict(N=[1000], batch=[100], fisher=[0.25, 1.0, 4.0], prior=[1.0], k=[0.1], n_avg=[10],
                   b=[1.0],
                   R=20000),
              dict(N=[1000, 10000], batch=[100, 1000], fisher=[0.25, 4.0], prior=[1.0, 1000.0],
                   k=[0.05, 0.3],
                   n_avg=[3, 10], b=[0.5, 1.0], R=40000)), run=run_convergence_criterion,
    overrides=("N", "batch", "fisher", "prior", "k", "n_avg", "b", "R"),
    name='Convergence criterion, Eq. (17)')


# ============================================================================= search spaces
# (python -m verify search CLAIM: verify.searching.search)
from verify.searching.spaces import spec  # noqa: E402


@spec("sgfs_variance_trajectory", "k in (0, 4), t in 0..50, scalar VAR(1) recursion from theta_MAP")
def _svt():
    from hypothesis import strategies as st

    from verify.searching.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"k": st.floats(0.01, 3.99), "t": st.integers(0, 50)})

    def ev(d):  # exact rationals: the double k is a rational number
        k, t = Fraction(d["k"]), d["t"]
        a, noise, v = 1 - k / 2, k - k * k / 4, Fraction(0)
        for _ in range(t):
            v = a * a * v + noise
        _, rhs = _exact_bound("sgfs_variance_trajectory", "variance_ratio", "stated",
                              k_frac=d["k"], t_iter=t)
        return [("variance_ratio (stated)", v, rhs, "=", 0.0)]
    return strat, ev


@spec("sgfs_stationary_covariance",
      "k in (0, 8), eps in (0, 2]: is the VAR(1) stationary (k < 1 as printed)?")
def _ssc():
    from hypothesis import strategies as st

    from verify.searching.search import TOL, _unit_score, finite_pair, prob_vector, scores  # noqa: F401

    strat = st.fixed_dictionaries({"k": st.floats(0.01, 7.9), "eps": st.just(1.0)})

    def ev(d):
        k = d["k"]
        stationary = abs(1 - k / 2) < 1
        # empirical: 1 if stationary; bound: 1 if the printed condition k in (0, 1) admits k
        return [("stationary iff k < 1 (as printed)", float(stationary), float(k < 1), "=", 0.0)]
    return strat, ev
