"""The exact quantities the figures draw: the two-state hard instance, second moments from z* and at
stationarity, total variation distances, the crossings of pMCSA and JSA and the bounds of
Theorems 1-4 and Table 1 (:mod:`simulate.finite`, :mod:`bounds`); nothing is sampled.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .constants import COUNTEREXAMPLE, FORM_STYLE, MAX_N_JSA_JOINT, SCHEMES


# ----------------------------------------------------------------------------- exact quantities
def instance(w_star: float, pi0: float = 0.3, L: float = 1.0):
    """``(pi, q, s)``: the two-state hard instance with sup π/q = w* at z* = state 0 and the centred
    bounded score (s(z*) = L, E_π s = 0): :func:`simulate.finite.hard_instance` and
    :func:`simulate.finite.centred_bounded_score`."""
    from simulate import finite as F

    pi, q = F.hard_instance(2, float(w_star), seed=0, pi0=float(pi0))
    return pi, q, F.centred_bounded_score(pi, L)


def _start_law(K, steps, start, pi):
    import numpy as np

    if isinstance(start, str) and start == "stationary":
        return np.asarray(pi, float)
    return np.linalg.matrix_power(K, int(steps))[0]


def second_moments(N: int, t: int, w_star: float, schemes=SCHEMES, pi0: float = 0.3, L: float = 1.0,
                   start: str = "worst") -> dict:
    """Exact E‖g_t‖² of each scheme at iteration ``t``, every chain started at z*
    (``start="worst"``) or drawn from π (``start="stationary"``, where ``t`` does not matter).

    Kim et al. (NeurIPS 2022) §4 and App. B: MSC and MSC-RB use the CIS kernel with N particles
    (its state z_{t-1} has law K_CIS^{t-1}(z*, ·); :func:`simulate.finite.moments_msc`,
    :func:`simulate.finite.moments_msc_rb` given it); JSA sweeps N IMH steps from the last state of
    iteration t-1, whose law is K^{N(t-1)}(z*, ·) (:func:`simulate.finite.moments_jsa`); pMCSA's N
    independent IMH chains have each made t steps (:func:`simulate.finite.moments_pmcsa` with the
    t-step kernel K^t, all chains at z*).  A second moment given the state is linear in the state's
    law, so the unconditional value is the law-weighted sum of the conditional ones.  Also returns
    ``"c_cov"``: JSA's covariance term C_cov of Theorem 3 averaged over the same law."""
    import numpy as np

    from simulate import finite as F

    pi, q, s = instance(w_star, pi0, L)
    K = F.imh_matrix(pi, q)
    out: dict = {}
    if "MSC" in schemes or "MSC-RB" in schemes:
        Kc = F.cis_matrix(pi, q, N)
        law = _start_law(Kc, t - 1, start, pi)
        if "MSC" in schemes:
            out["MSC"] = float(law @ [F.moments_msc(Kc, s, x).second for x in range(2)])
        if "MSC-RB" in schemes:
            out["MSC-RB"] = float(law @ [F.moments_msc_rb(pi, q, s, x, N).second for x in range(2)])
    if "JSA" in schemes:
        law = _start_law(K, N * (t - 1), start, pi)
        m = [F.moments_jsa(K, s, x, N) for x in range(2)]
        out["JSA"] = float(law @ [mi.second for mi in m])
        out["c_cov"] = float(law @ [mi.c_cov for mi in m])
    if "pMCSA" in schemes:
        # the chains' t-step kernel K^t from z*; at stationarity the kernel whose every row is pi
        Kt = np.tile(pi, (2, 1)) if start == "stationary" else np.linalg.matrix_power(K, t)
        out["pMCSA"] = F.moments_pmcsa(Kt, s, np.zeros(N, int)).second
    return out


def stationary_moments(pi, q, s, N: int, schemes=SCHEMES) -> dict:
    """Exact E‖g‖² of each scheme at stationarity on a finite instance ``(pi, q, s)``: the state
    entering the iteration is drawn from π (every chain, for pMCSA), then one iteration runs
    (Kim et al. 2022, §4-§5.1, Algorithms 1-5).

    MSC keeps one of N CIS particles (its law given x is the CIS kernel's row), MSC-RB averages the
    N particles with their self-normalised weights (:func:`simulate.finite.moments_msc_rb`), JSA
    averages N consecutive IMH states (:func:`simulate.finite.moments_jsa`), pMCSA averages N
    independent draws from π: E_π‖s‖²/N + (1 − 1/N)‖E_π s‖².  Each is the π-weighted sum of the
    conditional second moments given the state."""
    import numpy as np

    from simulate import finite as F

    pi, q = np.asarray(pi, float), np.asarray(q, float)
    s = np.asarray(s, float)
    s = s[:, None] if s.ndim == 1 else s
    M = pi.size
    out = {}
    if "MSC" in schemes:
        Kc = F.cis_matrix(pi, q, N)
        out["MSC"] = float(pi @ [F.moments_msc(Kc, s, x).second for x in range(M)])
    if "MSC-RB" in schemes:
        out["MSC-RB"] = float(pi @ [F.moments_msc_rb(pi, q, s, x, N).second for x in range(M)])
    if "JSA" in schemes:
        K = F.imh_matrix(pi, q)
        out["JSA"] = float(pi @ [F.moments_jsa(K, s, x, N).second for x in range(M)])
    if "pMCSA" in schemes:
        out["pMCSA"] = F.moments_pmcsa(np.tile(pi, (M, 1)), s, np.zeros(N, int)).second
    return out


def counterexample():
    """``(pi, q, s)`` of :data:`COUNTEREXAMPLE` as float arrays (the exact rationals are
    :data:`COUNTEREXAMPLE`)."""
    import numpy as np

    return tuple(np.array([float(Fraction(x)) for x in COUNTEREXAMPLE[k]])
                 for k in ("pi", "q", "s"))


def stationary_data(pi, q, s, Ns) -> dict:
    """The exact stationary E‖g‖² of the four schemes at each budget in ``Ns``
    (:func:`stationary_moments`), with w*, χ², the scheme with the smallest value at each N and
    the budgets at which each scheme is below pMCSA."""
    import numpy as np

    pi, q, s = (np.asarray(x, float) for x in (pi, q, s))
    Ns = [int(n) for n in Ns]
    rows = [stationary_moments(pi, q, s, n) for n in Ns]
    exact = {sc: np.array([r[sc] for r in rows]) for sc in SCHEMES}
    below = {sc: [n for n, r in zip(Ns, rows) if r[sc] < r["pMCSA"] * (1 - 1e-9)]
             for sc in SCHEMES if sc != "pMCSA"}
    equal = {sc: bool(np.allclose(exact[sc], exact["pMCSA"], rtol=1e-9, atol=0))
             for sc in SCHEMES if sc != "pMCSA"}
    return {"N": np.array(Ns), "pi": pi, "q": q, "s": s, "exact": exact,
            "w_star": float((pi / q).max()), "chi2": _chi2(pi, q),
            "smallest": [min(r, key=lambda sc: (r[sc], sc != "pMCSA")) for r in rows],
            "below_pmcsa": below, "equal_pmcsa": equal}


def claim_of(scheme: str) -> str:
    """The claim that bounds ``scheme`` (Kim et al. 2022, Theorems 1-4), as :func:`bounds.compare`
    pairs them.
    """
    from bounds.cli import SCHEMES as PAIRS

    return dict(PAIRS)[scheme]


def _bound(claim_id: str, quantity: str, form: str, cap: float, **values):
    """A form of a claim's bound evaluated through :mod:`bounds`, capped at the trivial bound
    ``cap`` (None where the values are outside the form's domain).  A capped value equals ``cap``
    exactly: the bound is vacuous there."""
    import numpy as np

    import bounds

    c = bounds.get(claim_id)
    names = {p.name for p in c.form_params(quantity, form)}
    try:
        v = np.asarray(c.evaluate_form(quantity, form,
                                       **{k: x for k, x in values.items() if k in names}), float)
    except bounds.ParamError:
        return None
    return np.minimum(v, cap)


def _chi2(pi, q) -> float:
    return float((pi ** 2 / q).sum() - 1)


def _moment_bounds(sc, N, t, w_star, pi0, L, c_cov):
    pi, q, s = instance(w_star, pi0, L)
    vals = {"N": N, "w_star": w_star, "t": t, "L": L, "mu_norm": abs(float(pi @ s[:, 0])),
            "chi2": _chi2(pi, q), "D": 1,
            "c_cov": c_cov if c_cov is not None else 0.0}
    out = {}
    for form in FORM_STYLE:
        b = _bound(claim_of(sc), "second_moment", form, L ** 2, **vals)
        if b is not None:
            out[form] = float(b)
    return out


def wstar_data(N: int = 16, t: int = 100, w_range=(2.0, 1e4), schemes=("JSA", "pMCSA"),
               pi0: float = 0.3,
               L: float = 1.0, points: int = 61) -> dict:
    """E‖g_t‖² from z* against w* (a log grid over ``w_range``), each scheme's bounds (capped at
    L²), the stationary values (chains drawn from π) and, for each scheme other than pMCSA, the w*
    where pMCSA's advantage over it vanishes (:func:`crossing`; None if it does not within the
    range)."""
    import numpy as np

    schemes = [sc for sc in SCHEMES if sc in schemes]
    w = np.geomspace(float(w_range[0]), float(w_range[1]), int(points))
    exact: dict[str, list[float]] = {sc: [] for sc in schemes}
    stationary: dict[str, list[float]] = {sc: [] for sc in schemes}
    bnds: dict[str, dict[str, list[float]]] = {sc: {f: [] for f in FORM_STYLE} for sc in schemes}
    for wi in w:
        m = second_moments(N, t, wi, schemes, pi0, L)
        ms = second_moments(N, t, wi, schemes, pi0, L, start="stationary")
        for sc in schemes:
            exact[sc].append(m[sc])
            stationary[sc].append(ms[sc])
            for form, v in _moment_bounds(sc, N, t, wi, pi0, L, m.get("c_cov")).items():
                bnds[sc][form].append(v)
    crossings = {sc: crossing(N, t, sc, (w[0], w[-1]), pi0, L) for sc in schemes if sc != "pMCSA"}
    return {"N": N, "t": t, "pi0": pi0, "L": L, "w": w,
            "exact": {k: np.array(v) for k, v in exact.items()},
            "stationary": {k: np.array(v) for k, v in stationary.items()},
            "bounds": {sc: {f: np.array(v) for f, v in d.items() if len(v) == len(w)}
                       for sc, d in bnds.items()},
            "crossings": crossings}


def crossing(N: int, t: int, other: str = "JSA", w_range=(2.0, 1e4), pi0: float = 0.3,
             L: float = 1.0,
             points: int = 61):
    """The smallest w* in ``w_range`` from which pMCSA's E‖g_t‖² (from z*) is no longer below
    ``other``'s: the first sign change of E_pMCSA − E_other on a log grid, refined by Brent's method
    to 1e-10 relative (the difference is smooth in w*).  None if pMCSA stays below (or above) over
    the whole range."""
    import numpy as np
    from scipy.optimize import brentq

    def diff(logw):
        m = second_moments(N, t, math.exp(logw), ("pMCSA", other), pi0, L)
        return m["pMCSA"] - m[other]

    grid = np.linspace(math.log(w_range[0]), math.log(w_range[1]), int(points))
    vals = [diff(x) for x in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa < 0 <= fb:
            return float(math.exp(brentq(diff, a, b, xtol=1e-12, rtol=1e-12)))
    return None


def _pmcsa_tv(law0, pi0, N):
    """d_TV of N independent two-state chains (each with law (law0, 1 - law0)) from π^N: the number
    of chains at z* is sufficient for both product laws, so this is the TV of two binomials
    (exact)."""
    import numpy as np
    from scipy.stats import binom

    j = np.arange(N + 1)
    return 0.5 * float(np.abs(binom.pmf(j, N, law0) - binom.pmf(j, N, pi0)).sum())


def mixing_data(N: int, w_star: float, schemes=SCHEMES, k_max: int | None = None,
                pi0: float = 0.3) -> dict:
    """Exact d_TV(P^k(η*, ·), Π) against the iteration k for each scheme (Assumption 1 of Kim et
    al. 2022, §3.1; η* = every state at z*), with the stated and explicit mixing forms of
    Theorems 1–4 capped at 1.

    MSC and MSC-RB: the CIS kernel (:func:`simulate.finite.tv_curve` of
    :func:`simulate.finite.cis_matrix`); pMCSA: N independent IMH chains (binomial counts, exact);
    JSA: the law of its N-tuple (:func:`simulate.finite.jsa_joint_law` against the product law),
    for N <= 20 only (2^N atoms): ``omitted`` names a curve left out and why."""
    import numpy as np

    from simulate import finite as F

    pi, q, _ = instance(w_star, pi0)
    r = 1 - 1 / w_star
    if k_max is None:
        k_max = int(np.clip(math.ceil(math.log(1e-3 / N) / math.log(r)) if r > 0 else 20, 20,
                            20_000))
    ks = np.unique(np.geomspace(1, k_max, 60).round().astype(int))
    K = F.imh_matrix(pi, q)
    exact, omitted = {}, {}
    if "MSC" in schemes or "MSC-RB" in schemes:
        tv = F.tv_curve(F.cis_matrix(pi, q, N), pi, int(ks[-1]))[ks - 1, 0]
        for sc in ("MSC", "MSC-RB"):
            if sc in schemes:
                exact[sc] = tv
    if "pMCSA" in schemes:
        exact["pMCSA"] = np.array([_pmcsa_tv(np.linalg.matrix_power(K, int(k))[0, 0], pi[0],
                                             N) for k in ks])
    if "JSA" in schemes:
        if N <= MAX_N_JSA_JOINT:
            Pi = F.product_law([pi] * N)
            exact["JSA"] = np.array([F.tv_joint(F.jsa_joint_law(K, 0, N, int(k)), Pi) for k in ks])
        else:
            omitted["JSA"] = (f"JSA's exact curve is not drawn: its joint law has 2^N atoms "
                              f"(drawn for N <= {MAX_N_JSA_JOINT})")
    bnds: dict = {}
    for sc in schemes:
        bnds[sc] = {}
        for form in FORM_STYLE:
            b = _bound(claim_of(sc), "mixing", form, 1.0, N=N, w_star=w_star, k=ks)
            if b is not None:
                bnds[sc][form] = np.broadcast_to(b, ks.shape).copy()
    return {"N": N, "w_star": w_star, "k": ks, "exact": exact, "bounds": bnds,
            "omitted": omitted, "notes": list(omitted.values())}


def variance_data(Ns, w_star: float, t: int = 100, schemes=SCHEMES, pi0: float = 0.3,
                  L: float = 1.0) -> dict:
    """Exact E‖g_t‖² from z* against the budget N (:func:`second_moments`), with each scheme's
    stated and explicit second-moment forms (Theorems 1–4) capped at L²."""
    import numpy as np

    Ns = [int(n) for n in Ns]
    exact: dict[str, list[float]] = {sc: [] for sc in schemes}
    bnds: dict[str, dict[str, list[float]]] = {sc: {f: [] for f in FORM_STYLE} for sc in schemes}
    for n in Ns:
        m = second_moments(n, t, w_star, schemes, pi0, L)
        for sc in schemes:
            exact[sc].append(m[sc])
            b = _moment_bounds(sc, n, t, w_star, pi0, L, m.get("c_cov"))
            for form in FORM_STYLE:
                bnds[sc][form].append(b.get(form, np.nan))
    return {"N": np.array(Ns), "w_star": w_star, "t": t,
            "exact": {k: np.array(v) for k, v in exact.items()},
            "bounds": {sc: {f: np.array(v) for f, v in d.items()} for sc, d in bnds.items()}}


#: Table 1's optimizers (Kim et al. 2022, §2.2): how each rate depends on G^2 and rho
OPTIMIZERS = {"mirror_descent": "mirror descent (Duchi et al. 2012): c G² log T / (log(1/ρ) √T)",
              "sgd_nesterov": "SGD–Nesterov (Doan et al. 2020a): c G² log T / √T",
              "sgd": "SGD, γ_t = γ/t (Doan et al. 2020b): c G² log T / T"}


def rates_claim() -> str:
    """The claim that holds Table 1's rates (Kim et al. 2022, §2.2): the one whose quantities are
    the three optimizers of :data:`OPTIMIZERS` (found in the catalog, not named)."""
    from bounds.cli import records

    for cid, rec in records().items():
        if set(OPTIMIZERS) <= set(rec["quantities"]):
            return cid
    raise LookupError("no claim holds Table 1's rates (mirror_descent, sgd_nesterov, sgd)")


def rates_data(N: int = 16, w_range=(1.5, 1e4), pi0: float = 0.3, L: float = 1.0,
               points: int = 61, T: int = 10_000) -> dict:
    """Table 1's rate bounds of the four schemes relative to pMCSA's, against w* (Kim et al. 2022,
    §2.2 Table 1 with ρ and G² from Theorems 1-4, as :func:`bounds.compare` gives them).

    G² is each scheme's stated second-moment bound (C_cov = 0, μ = 0, χ² of the two-state
    instance), capped at the trivial L² where it is vacuous (``vacuous``: True there; the rate then
    uses G² = L², which is also a valid bound).  Every rate is evaluated through
    :func:`bounds.evaluate` at ``T`` with the unknown constant c = 1; the ratios do not depend on
    c or T.  ``preferred[optimizer]`` is the scheme with the smallest rate bound at each w*;
    ``closed_form`` the pMCSA/JSA ratios 2N(1 + r)/(N + 3) (mirror descent) and 2(1 + r)/(N + 3)
    (ρ-free) that the stated bounds give."""
    import numpy as np

    import bounds

    w = np.geomspace(float(w_range[0]), float(w_range[1]), int(points))
    table = rates_claim()
    rho: dict[str, list[float]] = {sc: [] for sc in SCHEMES}
    G2: dict[str, list[float]] = {sc: [] for sc in SCHEMES}
    rate: dict[str, dict[str, Any]] = {opt: {sc: [] for sc in SCHEMES} for opt in OPTIMIZERS}
    for wi in w:
        pi, q, _ = instance(wi, pi0, L)
        for row in bounds.compare(N=N, w_star=float(wi), chi2=_chi2(pi, q), L=L):
            sc = row["scheme"]
            rho[sc].append(float(row["rho"]))
            G2[sc].append(float(row["second_moment"]))
            g = math.sqrt(min(float(row["second_moment"]), L ** 2))
            for opt in OPTIMIZERS:
                extra = {"rho": float(row["rho"])} if opt == "mirror_descent" else {}
                rate[opt][sc].append(float(bounds.evaluate(table, opt, "stated", G=g, T=T,
                                                           **extra)))
    rate = {opt: {sc: np.array(v) for sc, v in d.items()} for opt, d in rate.items()}
    ratio = {opt: {sc: d[sc] / d["pMCSA"] for sc in SCHEMES} for opt, d in rate.items()}
    r = 1 - 1 / w
    return {"N": N, "w": w, "pi0": pi0, "L": L, "T": T,
            "rho": {sc: np.array(v) for sc, v in rho.items()},
            "G2": {sc: np.array(v) for sc, v in G2.items()},
            "vacuous": {sc: np.array(v) >= L ** 2 for sc, v in G2.items()},
            "rate": rate, "ratio": ratio,
            "preferred": {opt: [min(SCHEMES, key=lambda sc: d[sc][i]) for i in range(len(w))]
                          for opt, d in rate.items()},
            "closed_form": {"mirror_descent": 2 * N * (1 + r) / (N + 3),
                            "sgd_nesterov": 2 * (1 + r) / (N + 3)}}
