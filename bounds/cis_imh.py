"""Claims of the CIS-as-IMH draft.

The draft is an earlier section on conditional importance sampling as independent
Metropolis-Hastings (docs/references.md).

003 counts N *proposals*: its CIS kernel has N + 1 particles (the current state plus
N proposals), whereas 001 and :mod:`simulate` count N particles.  The claims below keep
003's convention; ``--N`` means the number of proposals here.  Weights are normalised
(E_q w = 1); 003 writes unnormalised weights p(z, x)/q(z), for which the acceptance
bound reads N Z / (w + N Z) with Z the evidence.
"""  # noqa: E501

from __future__ import annotations

import sympy as sp

from . import derive, symbols as S
from .core import Claim, Form, Param, Quantity, Source

SEED = "003"  # the CIS-as-IMH draft; see bounds.references

w_sum = Param("w_sum", "--w-sum", "sum_i w(z^(i))", "sum of the N proposals' importance weights",
              lower=0, sample_max=1e6)
N_prop = S.N.with_domain(
    description="number of CIS proposals (the CIS-as-IMH draft's convention: N + 1 particles)")


def cis_barker_acceptance() -> Claim:
    """Build the claim ``cis_barker_acceptance``.

    CIS acceptance probability given the proposals is Barker's ratio.

    Source: CIS-as-IMH draft, §CIS as IMH, Eq. (acc).
    """
    wv, Sv = S.w.symbol, w_sum.symbol
    return Claim(
        id="cis_barker_acceptance",
        title="CIS acceptance probability given the proposals is Barker's ratio",
        source=Source(SEED, "§CIS as IMH, Eq. (acc)"),
        assumptions=(),
        params=(S.w, w_sum),
        quantities=(
            Quantity.stated("acceptance", "P(z_t != z_{t-1} | z_{t-1}, z^(1:N))", "=",
                            Sv / (wv + Sv), "sum_i w_i / (w(z_{t-1}) + sum_i w_i)"),
            Quantity.stated("rejection", "r(z_{t-1} | z^(1:N)) = 1 - acceptance", "=",
                            wv / (wv + Sv), "w(z_{t-1}) / (w(z_{t-1}) + sum_i w_i)"),
        ),
        kind="identity",
        notes=("'Accept' means z_t != z_{t-1}; on a finite space a proposal equal to the current "
               "state is then a rejection, which the formula does not count (measure zero in "
               "continuous spaces).",),
        example={"w": 5.0, "w_sum": 3.0},
    )


def cis_acceptance_bound() -> Claim:
    """Build the claim ``cis_acceptance_bound``.

    CIS acceptance rate at a state of weight w: 1 - r(z) <= N / (w(z) + N).

    Source: CIS-as-IMH draft, §Bias-variance, acceptance bound below Prop. rej_bound.
    """
    Nv, wv = S.N.symbol, S.w.symbol
    return Claim(
        id="cis_acceptance_bound",
        title="CIS acceptance rate at a state of weight w: 1 - r(z) <= N / (w(z) + N)",
        source=Source(SEED, "§Bias-variance, acceptance bound below Prop. rej_bound"),
        assumptions=("NORM",),
        params=(N_prop, S.w),
        quantities=(
            Quantity.stated(
                "acceptance_rate", "1 - r(z) = E_q[sum_i w_i / (w(z) + sum_i w_i)]", "<=",
                Nv / (wv + Nv), "Jensen on the convex map S -> w/(w+S), E_q S = N"),
        ),
        notes=("The catalogued form takes normalised weights (E_q w = 1).  Read with the "
               "CIS-as-IMH draft's only definition of w, p(z, x)/q(z) (the unnormalized weight), "
               "the printed bound is N/(p(x) w + N) and fails when the evidence p(x) > 1; the form "
               "here is its correction N p(x)/(w~ + N p(x)), w~ = p(x) w.",),
        example={"N": 10, "w": 100.0},
    )


def imh_rejection_kl() -> Claim:
    """Build the claim ``imh_rejection_kl``: Marginal IMH rejection rate bounded by KL divergences.

    Source: CIS-as-IMH draft, §Bias-variance, Eq. (rej_bound) (cites Neklyudov et al. 2019).
    """
    kl, klr = S.kl.symbol, S.kl_rev.symbol
    return Claim(
        id="imh_rejection_kl",
        title="Marginal IMH rejection rate bounded by KL divergences",
        source=Source(SEED, "§Bias-variance, Eq. (rej_bound) (cites Neklyudov et al. 2019)"),
        assumptions=("NORM", "STATIONARY"),
        params=(S.kl, S.kl_rev),
        quantities=(
            Quantity("rejection_rate_symmetric",
                     "marginal rejection rate r = 1 - alpha of IMH at stationarity",
                     "<=", (Form("stated", sp.sqrt((kl + klr) / 2),
                                 "Neklyudov et al. (2019, Thm 1) as quoted: sqrt((KL(q||p) + "
                                 "KL(p||q))/2)"),)),
            Quantity("rejection_rate",
                     "marginal rejection rate r = 1 - alpha of IMH at stationarity", "<=",
                     (Form("stated", sp.sqrt(kl / 2),
                           "CIS-as-IMH draft Eq. (rej_bound): 'by the non-negativity of the KL', "
                           "sqrt(KL(p||q)/2)"),)),
        ),
        notes=("Dropping the non-negative KL(q||p) makes the right-hand side smaller, so Eq. "
               "(rej_bound) does not follow from the symmetric bound.",),
        example={"kl": 0.125, "kl_rev": 0.125},
    )


def cis_variance_growth() -> Claim:
    """Build the claim ``cis_variance_growth``.

    CIS conditional variance can grow with N when w(z_{t-1}) is large.

    Source: CIS-as-IMH draft, §Parallel IMH, 'The variance of CIS can increase with N'.
    """
    Nv, wv, s2 = S.N.symbol, S.w.symbol, S.sigma2.symbol
    acc = Nv / (wv + Nv)  # the acceptance-rate bound, 'very tight'
    var_is = s2 / Nv  # SNIS variance ~ sigma^2 / N
    approx = derive.simplify(acc ** 2 * var_is)
    growth_end = derive.solve(sp.Eq(sp.diff(approx, Nv), 0), Nv)
    growth_end = [g for g in growth_end if g.is_positive is not False][0]
    return Claim(
        id="cis_variance_growth",
        title="CIS conditional variance can grow with N when w(z_{t-1}) is large",
        source=Source(SEED, "§Parallel IMH, 'The variance of CIS can increase with N'"),
        assumptions=("NORM",),
        params=(N_prop, S.w, S.sigma2),
        quantities=(
            Quantity.stated(
                "conditional_variance", "V_q[E[f | z_{t-1}, z^(1:N)]] at a state of weight w", "~",
                approx, "(1 - r(z))^2 V_q[f_IS] with 1 - r = N/(w+N), V[f_IS] = sigma^2/N"),
            Quantity.stated(
                "growth_regime_max_N", "N below which the approximation increases with N", "=",
                growth_end, "root of d/dN of the approximation (sympy)"),
        ),
        kind="approximation",
        notes=("The approximation grows with N only for N < w(z_{t-1}); '~ linear' needs N << w.",),
        example={"N": 10, "w": 1000.0, "sigma2": 1.0},
    )


BUILDERS = {
    "cis_barker_acceptance": cis_barker_acceptance,
    "cis_acceptance_bound": cis_acceptance_bound,
    "imh_rejection_kl": imh_rejection_kl,
    "cis_variance_growth": cis_variance_growth,
}
