"""Claims about the paper's own simulations: 001 §6.2, Figures 1 and 2.

Kim, Oh, Gardner, Dieng & Kim, "Markov Chain Score Ascent: A Unifying Framework of
Variational Inference with Markovian Gradients", NeurIPS 2022, §6.2 ("Gradient Variance",
"Robustness Against Optimizers"), Figures 1-2; the theorems are §4.2-§5.1 (Theorems 1-4).

``figure1``
    The bound side of Figure 1: each theorem's bound on the variance of the gradient
    estimate (the trace of its covariance across independent chains under the current
    lambda), in the forms that are finite for the paper's Gaussian pair, where the
    score is unbounded (L = inf) and q is not wider than pi (w* = inf, so r = 1):

    * pMCSA, Theorem 4 ``moment``: (E_q||s||^2 + r ||s(z_{t-1})||^2)/N, Lemma 6 with
      n = 1 (which holds for every w*, also r = 1: E_{K(z,.)} f <= E_q f + f(z));
    * JSA, Theorem 3 ``moment``: (1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n ||s(z_{t-1})||^2]
      + C_cov, resting on Lemma 6 for n >= 2 (which fails, see ``lemma6``), and
      ``corrected``: the same with the corrected Lemma 6, which adds
      (1 - r^n - n (1-r) r^(n-1)) E_pi||s||^2 to the n-th term;
    * MSC and MSC-RB, Theorems 1-2: both rest on L^2 (= inf here).  The ``moment`` form
      is ours, not the paper's: the selected state (MSC) and the Rao-Blackwellised
      average (MSC-RB, by Jensen) are convex combinations of the N particles, so
      E||g||^2 <= ||s(z_{t-1})||^2 + (N-1) E_q||s||^2.  It grows with N: no w*-free
      bound falls with N for CIS.

    ``r`` is Lemma 4's bound on the IMH rejection probability, r = 1 - 1/w*, with r = 1
    when w* = inf (every form above stays a true bound there).  The observations (i)-(iv)
    of §6.2 are kept as statements about the slope of log V in log N, with a margin
    ``delta`` on the benefit exponent beta = -d log V / d log N: "benefits from increasing
    N" reads beta >= delta, "does not benefit" reads beta <= delta.

``figure2``
    The convergence criterion of Figure 2 and its two statements ("pMCSA converges for
    the broadest variety of optimizer settings"; "most MCSA methods seem to be the most
    stable with ADAM"): a run has converged when its final KL(pi||q) is finite and at
    most KL* + tau, KL* the smallest inclusive KL over the mean-field family.
"""

from __future__ import annotations

import sympy as sp

from . import symbols as S
from .core import Claim, Form, Param, Quantity, Source
from .paper import SEED, SUM_NR, SUM_R

r_w = Param("r_w", "--r", "r",
            "1 - 1/w*, Lemma 4's bound on the IMH rejection probability; r = 1 when w* = inf",
            lower=0, upper=1, sample_max=1)
epi_s2 = Param("epi_s2", "--epi-s2", "E_pi||s||^2",
               "E_{z~pi} ||s(lambda; z)||^2 (corrected Lemma 6)",
               lower=0, sample_max=1e4)
delta = Param("delta", "--delta", "delta",
              "margin: 'benefits from N' means -d log V / d log N >= delta",
              lower=0, lower_strict=True, upper=1, default=0.2, sample_max=1)
kl_min = Param("kl_min", "--kl-min", "KL*",
               "min over the mean-field family of KL(pi||q) (closed form)",
               lower=0, sample_max=1e3)
tau = Param("tau", "--tau", "tau",
            "convergence tolerance in nats: converged iff KL(pi||q_T) <= KL* + tau",
            lower=0, lower_strict=True, default=1.0, sample_max=100)

_R = r_w.symbol
Ns, eqs, sps = S.N.symbol, S.eq_s2.symbol, S.s_prev2.symbol
epis, ccs = epi_s2.symbol, S.c_cov.symbol
_sum_nr = SUM_NR.subs(S.r, _R)  # sum_n n r^(n-1)
_sum_r = SUM_R.subs(S.r, _R)  # sum_n r^n
_sum_c = Ns - _sum_r - (1 - _R) * _sum_nr  # sum_n (1 - r^n - n (1-r) r^(n-1)), corrected Lemma 6


def figure1() -> Claim:
    """Build the claim ``figure1``.

    Figure 1: gradient variance of MSC, MSC-RB, JSA and pMCSA along a run, against each
    theorem's bound.

    Source: Kim et al. (NeurIPS 2022), §6.2 'Gradient Variance', Figure 1; Theorems 1-4
    (§4.2-§5.1).
    """
    d = delta.symbol
    cis_moment = sps + (Ns - 1) * eqs
    obs = "001 §6.2 'Gradient Variance'"
    return Claim(
        id="figure1",
        title="Figure 1: gradient variance of MSC, MSC-RB, JSA and pMCSA along a run, against each "
              "theorem's bound",
        source=Source(SEED, "§6.2 'Gradient Variance', Figure 1; Theorems 1-4 (§4.2-§5.1)"),
        assumptions=("A2", "NORM", "GAUSS"),
        params=(S.N.with_domain(lower=2), r_w, S.eq_s2, S.s_prev2, epi_s2, S.c_cov, delta),
        quantities=(
            Quantity("pmcsa_variance",
                     "tr Cov(g_pMCSA) across independent chains under the current lambda", "<=",
                     (Form("moment", (eqs + _R * sps) / Ns,
                           "Theorem 4's moment form (Lemma 6 with n = 1, true for every w*; r = 1 "
                           "when w* = inf)"),)),
            Quantity("jsa_variance", "tr Cov(g_JSA) across independent chains", "<=",
                     (Form("moment", (_sum_nr * eqs + _sum_r * sps) / Ns ** 2 + ccs,
                           "Theorem 3's moment form: (1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n "
                           "||s(z_{t-1})||^2] + C_cov"),
                      Form("corrected",
                           (_sum_nr * eqs + _sum_c * epis + _sum_r * sps) / Ns ** 2 + ccs,
                           "as moment with the corrected Lemma 6: + (1 - r^n - n(1-r) r^(n-1)) "
                           "E_pi||s||^2"))),
            Quantity("msc_variance", "tr Cov(g_MSC) across independent chains", "<=",
                     (Form("moment", cis_moment,
                           "ours (Theorem 1 needs L = inf): the selected particle is one of N, "
                           "E||s(z_t)||^2 <= ||s(z_{t-1})||^2 + (N-1) E_q||s||^2"),)),
            Quantity("mscrb_variance", "tr Cov(g_MSC-RB) across independent chains", "<=",
                     (Form("moment", cis_moment,
                           "ours (Theorem 2 needs L = inf): Jensen on sum_i wbar_i s_i, then as "
                           "for MSC"),)),
            Quantity.stated(
                "pmcsa_benefit",
                "(i) pMCSA consistently benefits from increasing N: -d log V/d log N", ">=", d,
                obs + " (i); Theorem 4: V = O(1/N), exponent 1"),
            Quantity.stated("pmcsa_lowest_variance",
                            "(i) pMCSA has the lowest variance overall: V_pMCSA / V_other", "<=",
                            sp.Integer(1) + 0 * d, obs + " (i)"),
            Quantity.stated(
                "msc_benefit",
                "(ii) MSC does not benefit from increasing N whatsoever: -d log V/d log N", "<=", d,
                obs + " (ii); Theorem 1: L^2, no N"),
            Quantity.stated(
                "mscrb_benefit_chi2_large",
                "(iii) MSC-RB does not benefit much from N while chi2(pi||q) is large", "<=", d,
                obs + " (iii)"),
            Quantity.stated("mscrb_benefit_chi2_small",
                            "(iii) MSC-RB benefits from N once chi2(pi||q) has become small", ">=",
                            d, obs + " (iii); Theorem 2: 4 L^2 chi2/(N-1)"),
            Quantity("jsa_benefit_while_w_star_large",
                     "(iv) JSA does not benefit from N until w* has become small",
                     "<=", (Form("stated", d, obs
                                 + " (iv); Theorem 3: L^2 (1/2 + 3/(2N)) for w* >> N"),)),
        ),
        kind="bound",
        notes=("Figure 1's variance is the trace of the covariance of g over independent chains, "
               "each in its own state (methods.md §6), not the conditional variance given F_{t-1}; "
               "the bounds hold for it because tr Cov(g) <= E||g||^2 and the conditional bounds "
               "hold for every state (||s(z_{t-1})||^2 is the population mean, an estimate).",
               "The observations are read with the margin delta on beta = -d log V/d log N "
               "(default 0.2: when N 'does not help', a 16-fold budget lowers V by less than "
               "16^0.2 = 1.74x).",
               "'chi2 has become small' (iii) is read as 1 + chi2 <= N_max: the "
               "importance-sampling effective sample size N/(1 + chi2) of the largest budget is at "
               "least 1; 'w* has become small' (iv) as w* <= N_max.",
               "The theorems' own forms need L = sup||s|| < inf and w* < inf; for the paper's "
               "mean-field Gaussian q against a full-rank Gaussian pi both are infinite, so only "
               "the forms above are finite."),
        example={"N": 16, "r_w": 1.0, "eq_s2": 10.0, "s_prev2": 12.0, "epi_s2": 30.0, "c_cov": 0.5,
                 "delta": 0.2},
    )


def figure2() -> Claim:
    """Build the claim ``figure2``.

    Figure 2: final KL(pi||q) against step size for four optimizers; which schemes and
    optimizers converge.

    Source: Kim et al. (NeurIPS 2022), §6.2 'Robustness Against Optimizers', Figure 2.
    """
    km, ta = kl_min.symbol, tau.symbol
    one = sp.Integer(1) + 0 * ta
    return Claim(
        id="figure2",
        title="Figure 2: final KL(pi||q) against step size for four optimizers; which schemes and "
              "optimizers converge",
        source=Source(SEED, "§6.2 'Robustness Against Optimizers', Figure 2"),
        assumptions=("GAUSS",),
        params=(kl_min, tau),
        quantities=(
            Quantity.stated(
                "final_kl",
                "KL(pi||q(lambda_T)) of a converged run (closed form); a diverged run has none",
                "<=", km + ta, "convergence criterion: within tau nats of the best mean-field KL"),
            Quantity.stated(
                "pmcsa_breadth",
                "'pMCSA successfully converges for the broadest variety of optimizer settings': "
                "p_pMCSA / p_other, p the fraction of converged runs over all optimizers and step"
                " sizes", ">=", one, "pMCSA converges at least as often as every other scheme"),
            Quantity.stated(
                "adam_stability",
                "'most MCSA methods seem to be the most stable with ADAM': p_Adam / p_other "
                "optimizer, per scheme; 'most' = at least 3 of the 4 schemes", ">=", one,
                "Adam converges at least as often as every other optimizer"),
        ),
        kind="bound",
        notes=("KL* = (1/2) [sum_d log Sigma_dd - log det Sigma], attained at m = mu, sigma_d^2 = "
               "Sigma_dd (moment matching minimises the inclusive KL over a mean-field Gaussian "
               "family).",
               "A diverged run (non-finite lambda) counts as not converged; it is never dropped."),
        example={"kl_min": 5.0, "tau": 1.0},
    )


BUILDERS = {"figure1": figure1, "figure2": figure2}
