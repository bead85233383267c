"""Claims of the primary source, Kim et al. (NeurIPS 2022).

Kim, Oh, Gardner, Dieng and Kim, "Markov Chain Score Ascent" (NeurIPS 2022).

Each builder returns a :class:`bounds.core.Claim`.  Closed forms are derived here with
sympy from the proof's own ingredients (sums, lemmas); nothing is retyped from the
paper except the printed statements kept as ``stated`` forms.

Conventions (001 §3-§5, Appendix D):
    r = 1 - 1/w*, gamma = 2 w* / (2 w* + N - 2), g = -(1/N) sum_n s(lambda; z^(n)),
    mu = E_pi s(lambda; z), CIS with N particles (the current state + N-1 proposals).
"""

from __future__ import annotations

import sympy as sp

from . import derive, symbols as S
from .core import Claim, Constraint, Expansion, Form, Quantity, Source
from .series import expand

SEED = "001"  # Kim et al. (NeurIPS 2022); see bounds.references

Ns, ks, ts, ws, Ls = S.N.symbol, S.k.symbol, S.t.symbol, S.w_star.symbol, S.L.symbol
mus, chis, ccs, Ds = S.mu_norm.symbol, S.chi2.symbol, S.c_cov.symbol, S.D.symbol
r, gamma = S.r, S.gamma
_n = sp.Symbol("n", integer=True, positive=True)  # summation index

DEF_R = {r: 1 - 1 / ws}
#: what Lemmas 4-6 (the IMH kernel) assume: Assumption 2 (w* < oo) and normalised pi, q
IMH_ASSUMPTIONS = ("A2", "NORM")
DEF_RG = {r: 1 - 1 / ws, gamma: 2 * ws / (2 * ws + Ns - 2)}

MU_LE_L = Constraint(S.mu_norm.symbol <= S.L.symbol,
                     "||mu|| <= L must hold (mu = E_pi s and ||s|| <= L)")
CHI2_LE_W = Constraint(S.chi2.symbol <= S.w_star.symbol - 1,
                       "chi2(pi||q) <= w* - 1 must hold (1 + chi2 = E_pi[w] <= w*)")


@derive.memo
def closed_sum(term: sp.Expr, lower, upper) -> sp.Expr:
    """Sum ``term`` over n from ``lower`` to ``upper`` in closed form, generic branch (r != 1).

    ``Sum.doit`` returns a Piecewise whose ``Eq(r, 1)`` branch is excluded by
    Assumption 2 (w* < oo, so r < 1); we keep the generic branch.
    """
    res = sp.piecewise_fold(sp.Sum(term, (_n, lower, upper)).doit())
    if isinstance(res, sp.Piecewise):
        res = next(e for e, c in res.args if c is sp.true)
    return sp.simplify(res)


# Shared ingredients, derived once ----------------------------------------------------
#: Lemma 6 summed over JSA's N sequential states: sum_n [n r^(n-1) + r^n]
JSA_SUM = closed_sum(_n * r ** (_n - 1) + r ** _n, 1, Ns)
#: sum_n n r^(n-1)   and   sum_n r^n   (moment form of Theorem 3)
SUM_NR = closed_sum(_n * r ** (_n - 1), 1, Ns)
SUM_R = closed_sum(r ** _n, 1, Ns)
#: Theorem 3 mixing: sum_n r^((k-1)N + n) = C(r, N) r^(kN)
JSA_MIX = closed_sum(r ** ((ks - 1) * Ns + _n), 1, Ns)
#: C(r, N) = JSA_MIX / r^(kN)
C_RN = derive.simplify(JSA_MIX / r ** (ks * Ns))


def sharper_second_moment(var_part, bias_bound):
    """Bound the second moment by E||g||^2 = ||E g||^2 + V with V <= var_part - ||E g||^2 / N.

    For g = -(1/N) sum_n s_n with ||s_n|| <= L: V = (1/N^2) sum_n (E||s_n||^2 - ||m_n||^2) + C_cov
    <= (L^2 - ||m_bar||^2)/N + C_cov (Jensen: mean ||m_n||^2 >= ||m_bar||^2), so
    E||g||^2 <= f(||m_bar||) with f(m) = m^2 (1 - 1/N) + var_part, increasing in m; hence
    E||g||^2 <= f(b) for any b >= ||E g||, taken as min(L, bias bound).  Derived here (the
    monotonicity is checked by sympy in tests/test_corrections.py).
    """
    m = sp.Symbol("m_bar", nonnegative=True)
    f = m ** 2 * (1 - 1 / Ns) + var_part
    return f.subs(m, sp.Min(Ls, bias_bound)), f, m


def lemma7_bias(C, rho, n):
    """Lemma 7: Bias <= 2 sqrt(D) L C rho^n."""
    return 2 * sp.sqrt(Ds) * Ls * C * rho ** n


def _lemma2_forms(bias_terms, **variances) -> tuple[Form, ...]:
    """Build second-moment forms by Lemma 2 (1): E||g||^2 <= V + 2 L Bias + Bias^2 + ||mu||^2.

    One form per ``name=(variance bound, derivation)``; ``bias_terms`` is 2 L Bias + Bias^2.
    """
    return tuple(Form(name, var + bias_terms + mus ** 2, why)
                 for name, (var, why) in variances.items())


def _as_stated(name: str, description: str, expr: sp.Expr, derivation: str) -> Quantity:
    """Build an upper bound whose proof hides no constant: its explicit form is the stated one."""
    return Quantity(name, description, "<=",
                    (Form("stated", expr, derivation),
                     Form("explicit", expr, "no constant is hidden: same as stated")))


# ------------------------------------------------------------------------------------
def proposition1() -> Claim:
    """Build the claim ``proposition1``.

    MCSA is MCGD: E_Pi f = KL(pi||q) and E_Pi g = grad KL(pi||q).

    Source: Kim et al. (NeurIPS 2022), §3.1 Proposition 1; App. D Eqs. (4)-(5).
    """
    z = sp.Symbol("z", real=True)
    m, s = S.m.symbol, S.s.symbol
    pi = sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)
    logq = -(z - m) ** 2 / (2 * s ** 2) - sp.log(s) - sp.log(2 * sp.pi) / 2
    logpi = -z ** 2 / 2 - sp.log(2 * sp.pi) / 2
    kl = derive.simplify(derive.integrate(sp.expand(pi * (logpi - logq)), (z, -sp.oo, sp.oo),
                                          conds="none"))
    # E_Pi g = -E_pi s, computed as an integral, and grad KL by differentiation
    eg_m = derive.simplify(derive.integrate(sp.expand(-pi * sp.diff(logq, m)), (z, -sp.oo, sp.oo),
                                            conds="none"))
    eg_s = derive.simplify(derive.integrate(sp.expand(-pi * sp.diff(logq, s)), (z, -sp.oo, sp.oo),
                                            conds="none"))
    return Claim(
        id="proposition1",
        title="MCSA is MCGD: E_Pi f = KL(pi||q) and E_Pi g = grad KL(pi||q)",
        source=Source(SEED, "§3.1 Proposition 1; App. D Eqs. (4)-(5)"),
        assumptions=("INV", "DIFF"),
        params=(S.m, S.s),
        quantities=(
            Quantity.stated("objective", "E_Pi[f(lambda, eta)] for pi = N(0,1), q = N(m, s^2)", "=",
                            kl, "d_KL(pi||q), integrated in closed form by sympy"),
            Quantity("gradient_m", "E_Pi[g]_m, the m-component of the MCGD gradient", "=",
                     (Form("stated", sp.simplify(sp.diff(kl, m)), "d/dm of the closed-form KL"),
                      Form("explicit", eg_m, "-E_pi[d/dm log q], integrated by sympy"))),
            Quantity("gradient_s", "E_Pi[g]_s, the s-component of the MCGD gradient", "=",
                     (Form("stated", sp.simplify(sp.diff(kl, s)), "d/ds of the closed-form KL"),
                      Form("explicit", eg_s, "-E_pi[d/ds log q], integrated by sympy"))),
        ),
        kind="identity",
        notes=("Evaluated on the Gaussian instance pi = N(0,1), q = N(m, s^2); the identity "
               "itself holds for any q with an integrable score.",),
        example={"m": 0.5, "s": 2.0},
    )


def proposition2() -> Claim:
    """Build the claim ``proposition2``.

    w* is bounded below exponentially by the inclusive KL: exp(KL(pi||q)) < w*.

    Source: Kim et al. (NeurIPS 2022), §4.1 Proposition 2; proof App. D.
    """
    kl = S.kl.symbol
    return Claim(
        id="proposition2",
        title="w* is bounded below exponentially by the inclusive KL: exp(KL(pi||q)) < w*",
        source=Source(SEED, "§4.1 Proposition 2; proof App. D"),
        assumptions=("NORM",),
        params=(S.kl,),
        quantities=(
            Quantity.stated("w_star_lower", "w* = sup_z pi(z)/q(z), bounded below", ">",
                            sp.exp(kl), "Jensen: KL = E_pi log w <= log E_pi w <= log w*"),
        ),
        notes=("Printed with a strict '<'; equality holds at pi = q (KL = 0, w* = 1).",),
        example={"kl": 1.0},
    )


def lemma1() -> Claim:
    """Build the claim ``lemma1``: TV of product measures is at most the sum of the factors' TVs.

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 1.
    """
    return Claim(
        id="lemma1",
        title="TV of product measures is at most the sum of the factors' TVs",
        source=Source(SEED, "App. D Lemma 1"),
        assumptions=(),
        params=(S.N, S.tv),
        quantities=(
            Quantity("product_tv",
                     "|(p_1 x ... x p_N)(A^N) - (q_1 x ... x q_N)(A^N)| with every d_TV(p_n, q_n) "
                     "= delta",
                     "<=", (Form("stated", Ns * S.tv.symbol, "sum_n delta_n with equal factors"),)),
        ),
        notes=("Printed for product sets A^N only; the theorems apply it to arbitrary sets of "
               "the product space (true by coupling, but not what Lemma 1 proves).",),
        example={"N": 4, "tv": 0.1},
    )


def lemma2() -> Claim:
    """Build the claim ``lemma2``.

    Second moment of a biased estimator via variance, bias and ||mu||.

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 2.
    """
    V, Bi, M = S.variance.symbol, S.bias.symbol, S.mse.symbol
    return Claim(
        id="lemma2",
        title="Second moment of a biased estimator via variance, bias and ||mu||",
        source=Source(SEED, "App. D Lemma 2"),
        assumptions=(),
        params=(S.variance, S.bias, S.mse, S.mu_norm),
        quantities=(
            Quantity("second_moment_variance", "E||g||^2 (Lemma 2, first inequality)", "<=",
                     (Form("stated", V + Bi ** 2 + 2 * Bi * mus + mus ** 2,
                           "V + Bias^2 + 2 Bias ||mu|| + ||mu||^2"),)),
            Quantity.stated("second_moment_mse", "E||g||^2 (Lemma 2, second inequality)", "<=",
                            M + 2 * Bi * mus + mus ** 2, "MSE + 2 Bias ||mu|| + ||mu||^2"),
        ),
        example={"variance": 1.0, "bias": 0.2, "mse": 1.04, "mu_norm": 0.5},
    )


def lemma3() -> Claim:
    """Build the claim ``lemma3``: Variance of the importance weight equals chi2(pi || q).

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 3.
    """
    z = sp.Symbol("z", real=True)
    m, s = S.m.symbol, S.s.symbol
    logw = -z ** 2 / 2 + (z - m) ** 2 / (2 * s ** 2) + sp.log(s)  # log pi - log q
    # chi2 = E_q[(w - 1)^2] = int pi^2/q - 1 = E_pi[w] - 1
    c2 = derive.simplify(derive.integrate(sp.exp(sp.expand(logw)) * sp.exp(-z ** 2 / 2)
                                          / sp.sqrt(2 * sp.pi),
                                          (z, -sp.oo, sp.oo), conds="none") - 1)
    return Claim(
        id="lemma3",
        title="Variance of the importance weight equals chi2(pi || q)",
        source=Source(SEED, "App. D Lemma 3"),
        assumptions=("NORM",),
        params=(S.m, S.s),
        quantities=(
            Quantity.stated("weight_variance", "V_q[w(z)] for pi = N(0,1), q = N(m, s^2)", "=",
                            c2, "chi2(pi||q) = int pi^2/q - 1, integrated by sympy"),
        ),
        constraints=(Constraint(2 * s ** 2 > 1,
                                "chi2(N(0,1)||N(m,s^2)) is finite only for s^2 > 1/2"),),
        kind="identity",
        example={"m": 0.5, "s": 1.5},
    )


def lemma4() -> Claim:
    """Build the claim ``lemma4``.

    IMH rejection probability lambda(w) lies in [max(1 - 1/w, 0), 1 - 1/w*].

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 4; Eq. (3).
    """
    wv = S.w.symbol
    return Claim(
        id="lemma4",
        title="IMH rejection probability lambda(w) lies in [max(1 - 1/w, 0), 1 - 1/w*]",
        source=Source(SEED, "App. D Lemma 4; Eq. (3)"),
        assumptions=IMH_ASSUMPTIONS,
        params=(S.w, S.w_star),
        quantities=(
            Quantity.stated(
                "lambda_lower", "lambda(w): probability that IMH rejects at a state of weight w",
                ">=", sp.Max(1 - 1 / wv, 0), "Lemma 4, left"),
            Quantity.stated("lambda_upper", "lambda(w)", "<=",
                            r, "Lemma 4, right: 1 - 1/w*"),
        ),
        definitions=DEF_R,
        constraints=(Constraint(wv <= ws, "w <= w* must hold (w* is the supremum of w)"),),
        example={"w": 2.0, "w_star": 10.0},
    )


def lemma5() -> Claim:
    """Build the claim ``lemma5``: Smith-Tierney T_n(w) <= (n/w) (1 - 1/w*)^(n-1).

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 5; Eq. (3).
    """
    wv, nv = S.w.symbol, S.n.symbol
    # lambda(v) <= 1 - 1/w* only for v <= w*; for v >= w*, lambda(v) = 1 - 1/v exactly, so
    # T_n(w) <= n r^(n-1) (1/w - 1/w*) + int_{w*}^oo n/v^2 (1 - 1/v)^(n-1) dv
    v = sp.Symbol("v", positive=True)
    tail = derive.simplify(derive.integrate(nv / v ** 2 * (1 - 1 / v) ** (nv - 1), (v, ws, sp.oo),
                                            conds="none"))
    # capped at the trivial n/w
    corrected = sp.Min(nv * r ** (nv - 1) * (1 / wv - 1 / ws) + tail, nv / wv)
    return Claim(
        id="lemma5",
        title="Smith-Tierney T_n(w) <= (n/w) (1 - 1/w*)^(n-1)",
        source=Source(SEED, "App. D Lemma 5; Eq. (3)"),
        assumptions=IMH_ASSUMPTIONS,
        params=(S.n, S.w, S.w_star),
        quantities=(
            Quantity("T_n", "T_n(w) = int_w^oo n/v^2 lambda^(n-1)(v) dv", "<=",
                     (Form("stated", nv / wv * r ** (nv - 1),
                           "Lemma 4 inside the integral of Eq. (3)"),
                      Form("corrected", corrected,
                           "lambda(v) <= r only for v <= w*; for v > w*, lambda(v) = 1 - 1/v "
                           "(integral by sympy); capped at the trivial T_n(w) <= int_w^oo n/v^2 dv "
                           "= n/w"))),
        ),
        notes=("The proof bounds lambda(v) by 1 - 1/w* on all of (w, oo); for v > w*, lambda(v) = "
               "1 - 1/v > 1 - 1/w*.  At w = w*: T_n(w*) = 1 - r^n > (n/w*) r^(n-1) for n >= 2.",),
        definitions=DEF_R,
        constraints=(Constraint(wv <= ws, "w <= w* must hold (w* is the supremum of w)"),),
        example={"n": 3, "w": 2.0, "w_star": 10.0},
    )


def lemma6() -> Claim:
    """Build the claim ``lemma6``.

    n-step IMH expectation of a positive f: <= n r^(n-1) E_q f + r^n f(z).

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 6; Eqs. (2)-(3).
    """
    nv = S.n.symbol
    # corrected Lemma 5 inside Eq. (2): T_n(w v w') <= n r^(n-1)/w' + (1 - r^n - n r^(n-1)/w*)
    c_n = sp.expand(1 - r ** nv - nv * r ** (nv - 1) * (1 - r))
    corrected = nv * r ** (nv - 1) * S.eq_f.symbol + c_n * S.epi_f.symbol + r ** nv * S.f_z.symbol
    return Claim(
        id="lemma6",
        title="n-step IMH expectation of a positive f: <= n r^(n-1) E_q f + r^n f(z)",
        source=Source(SEED, "App. D Lemma 6; Eqs. (2)-(3)"),
        assumptions=IMH_ASSUMPTIONS,
        params=(S.n, S.w_star, S.eq_f, S.f_z, S.epi_f),
        quantities=(
            Quantity("expectation", "E_{K^n(z,.)}[f]", "<=",
                     (Form("stated", nv * r ** (nv - 1) * S.eq_f.symbol + r ** nv * S.f_z.symbol,
                           "Eq. (2) with Lemmas 4-5"),
                      Form("corrected", corrected,
                           "Eq. (2) with the corrected Lemma 5: + (1 - r^n - n(1-r) r^(n-1)) E_pi "
                           "f"))),
        ),
        notes=("For n >= 2 the stated bound fails: with q = pi (w* = 1, r = 0) the chain samples "
               "pi exactly, E_{K^n} f = E_pi f, while n r^(n-1) E_q f + r^n f(z) = 0.",),
        definitions=DEF_R,
        example={"n": 3, "w_star": 10.0, "eq_f": 1.0, "f_z": 4.0, "epi_f": 1.0},
    )


def lemma7() -> Claim:
    """Build the claim ``lemma7``.

    Bias of a bounded function of a geometrically ergodic chain: <= 2 sqrt(D) L C rho^n.

    Source: Kim et al. (NeurIPS 2022), App. D Lemma 7.
    """
    return Claim(
        id="lemma7",
        title="Bias of a bounded function of a geometrically ergodic chain: <= 2 sqrt(D) L C rho^n",
        source=Source(SEED, "App. D Lemma 7"),
        assumptions=("A1", "BOUNDED-F"),
        params=(S.D, S.L, S.C, S.rho, S.n),
        quantities=(
            Quantity("bias", "||E_{P^n(eta_0,.)} g - E_Pi g||_2", "<=",
                     (Form("stated", lemma7_bias(S.C.symbol, S.rho.symbol, S.n.symbol),
                           "||x||_2 <= sqrt(D) ||x||_inf and the TV definition"),)),
        ),
        example={"D": 2, "L": 1.0, "C": 1.0, "rho": 0.5, "n": 3},
    )


# ------------------------------------------------------------------------------------
def theorem1() -> Claim:
    """Build the claim ``theorem1``.

    MSC (CIS / i-SIR kernel): mixing rate and gradient second moment.

    Source: Kim et al. (NeurIPS 2022), §4.2 Theorem 1; proof App. D.
    """
    rate = 1 - (Ns - 1) / (2 * ws + Ns - 2)
    return Claim(
        id="theorem1",
        title="MSC (CIS / i-SIR kernel): mixing rate and gradient second moment",
        source=Source(SEED, "§4.2 Theorem 1; proof App. D"),
        assumptions=("A2", "A3"),
        params=(S.N.with_domain(lower=2), S.w_star, S.k, S.L),
        quantities=(
            _as_stated("mixing", "d_TV(P^k(eta,.), Pi), CIS with N particles", rate ** ks,
                       "Andrieu, Lee & Vihola (2018) i-SIR rate, as printed"),
            _as_stated("second_moment", "E[||g_t,MSC||^2 | F_{t-1}]", Ls ** 2,
                       "||s|| <= L pointwise"),
        ),
        example={"N": 10, "w_star": 100.0, "k": 5, "L": 1.0},
    )


def theorem2() -> Claim:
    """Build the claim ``theorem2``.

    MSC-RB (Rao-Blackwellised CIS): gradient second moment (Cardoso et al. 2022).

    Source: Kim et al. (NeurIPS 2022), §4.2 Theorem 2; App. D Eq. (6).
    """
    eps2 = (Ns - 1) ** sp.Rational(-1, 2)  # Cardoso et al.'s choice epsilon^2 = (N-1)^(-1/2)
    mse = 4 * Ls ** 2 * ((1 + eps2) / (Ns - 1) * chis + (1 + 1 / eps2) / Ns ** 2 * (1 + ws) ** 2)
    bias = 4 * Ls / (Ns - 1) * (chis + 1 + ws) * gamma ** (ts - 1)
    stated = 4 * Ls ** 2 * chis / (Ns - 1) + mus ** 2
    explicit = mse + 2 * Ls * bias + mus ** 2
    dropped = (sp.expand(mse - 4 * Ls ** 2 * chis / (Ns - 1)), 2 * Ls * bias)
    return Claim(
        id="theorem2",
        title="MSC-RB (Rao-Blackwellised CIS): gradient second moment (Cardoso et al. 2022)",
        source=Source(SEED, "§4.2 Theorem 2; App. D Eq. (6)"),
        assumptions=("A2", "A3"),
        params=(S.N.with_domain(lower=2), S.w_star, S.k, S.t, S.L, S.mu_norm, S.chi2),
        quantities=(
            _as_stated("mixing", "d_TV(P^k(eta,.), Pi), Rao-Blackwellised CIS kernel", gamma ** ks,
                       "gamma = 2w*/(2w*+N-2), 'the mixing rate' in Theorem 2"),
            Quantity("second_moment", "E[||g_t,MSC-RB||^2 | F_{t-1}]", "<=",
                     (Form("stated", stated,
                           "4L^2 chi2/(N-1) + ||mu||^2, O(N^-3/2 + gamma^(t-1)/(N-1)) dropped",
                           dropped=dropped),
                      Form("explicit", explicit,
                           "Lemma 2 (2): MSE + 2 L Bias + ||mu||^2 with Cardoso's MSE (eps^2 = "
                           "(N-1)^-1/2) and bias bounds as quoted in the proof"))),
        ),
        definitions=DEF_RG,
        constraints=(MU_LE_L, CHI2_LE_W),
        notes=("The proof's last display writes 4L^2[gamma^(t-1)(chi2+1+w*)/(N-1)] for the bias "
               "contribution; 2 L Bias gives 8L^2[...]: the explicit form keeps the factor 8.",
               "The O(N^-3/2) hides 4L^2 (1+sqrt(N-1)) (1+w*)^2 / N^2, which grows like w*^2."),
        example={"N": 10, "w_star": 10.0, "k": 5, "t": 10, "L": 1.0, "mu_norm": 0.0, "chi2": 2.0},
    )


def theorem3() -> Claim:
    """Build the claim ``theorem3``: JSA (sequential IMH): mixing rate and gradient second moment.

    Source: Kim et al. (NeurIPS 2022), §4.3 Theorem 3; proof App. D.
    """
    eqs, sps = S.eq_s2.symbol, S.s_prev2.symbol
    B = lemma7_bias(C_RN, r ** Ns, ts)  # Lemma 7 with Theorem 3's mixing constants
    bias_terms = B ** 2 + 2 * Ls * B
    var_explicit = Ls ** 2 / Ns ** 2 * JSA_SUM + ccs
    var_moment = (SUM_NR * eqs + SUM_R * sps) / Ns ** 2 + ccs
    var_corrected = Ls ** 2 / Ns + ccs
    stated_var = Ls ** 2 * (sp.Rational(1, 2) + sp.Rational(3, 2) / Ns) + ccs
    laurent_rest = derive.simplify(Ls ** 2
                                   * (JSA_SUM / Ns ** 2 - sp.Rational(1, 2) - sp.Rational(3, 2)
                                      / Ns))
    one_step_bias = 2 * Ls / Ns * SUM_R  # (1/N) sum_n 2 L d_TV(K^n(z,.), pi) <= (2L/N) sum r^n
    # series of the Lemma 6 sum as w* -> oo, derived (not typed in)
    ser = expand((JSA_SUM / Ns ** 2).subs(r, 1 - 1 / ws), ws, sp.oo, 2)
    return Claim(
        id="theorem3",
        title="JSA (sequential IMH): mixing rate and gradient second moment",
        source=Source(SEED, "§4.3 Theorem 3; proof App. D"),
        assumptions=("A2", "A3"),
        params=(S.N, S.w_star, S.k, S.t, S.L, S.mu_norm, S.c_cov, S.D, S.eq_s2, S.s_prev2),
        quantities=(
            Quantity("mixing", "d_TV(P^k(eta,.), Pi) for the N-tuple of JSA states", "<=",
                     (Form("stated", C_RN * r ** (ks * Ns),
                           "C(r,N) r^(kN) with C(r,N) = r(1-r^N)/(r^N(1-r)) from the proof"),
                      Form("explicit", JSA_MIX,
                           "sum_n r^((k-1)N+n): Lemma 1 + Eq. (7), summed by sympy"))),
            Quantity("second_moment", "E[||g_t,JSA||^2 | F_{t-1}]", "<=",
                     (Form("stated", stated_var + mus ** 2,
                           "L^2 (1/2 + 3/(2N)) + C_cov + ||mu||^2; O(1/w* + r^(tN)) dropped",
                           dropped=(laurent_rest, bias_terms)),
                      *_lemma2_forms(
                          bias_terms,
                          explicit=(var_explicit, "Lemma 2 (1) with 2L Bias, Lemma 6 summed "
                                                  "exactly, Lemma 7 bias 2 sqrt(D) L C(r,N) "
                                                  "r^(tN)"),
                          moment=(var_moment, "as explicit with E_q||s||^2 and ||s(z_{t-1})||^2 "
                                              "in place of L^2 in Lemma 6")),
                      Form("corrected", sp.Min(var_corrected + (mus + one_step_bias) ** 2, Ls ** 2),
                           "E||s_n||^2 <= L^2 (Lemma 6 fails for n >= 2; corrected it is never "
                           "below L^2) and the one-step bias ||E[g|F]|| <= ||mu|| + (2L/N) sum_n "
                           "r^n; capped at the trivial E||g||^2 <= L^2 (||g|| <= L)"),
                      Form("sharper",
                           sp.Min(sharper_second_moment(Ls ** 2 / Ns + ccs, mus + one_step_bias)[0],
                                  Ls ** 2),
                           "E||g||^2 = ||E g||^2 + V, V <= (L^2 - ||E g||^2)/N + C_cov, ||E g|| <= "
                           "min(L, ||mu|| + (2L/N) sum_n r^n): L^2/N + C_cov + (1 - 1/N) min(L, "
                           "||mu|| + (2L/N) sum_n r^n)^2, capped at L^2"),
                      Form("unconditional",
                           stated_var + (mus + 2 * Ls / Ns * r ** (Ns * (ts - 1)) * SUM_R) ** 2,
                           "the printed bound read over the trajectory from eta_0 (lambda fixed): "
                           "V <= L^2/N + C_cov <= L^2 (1/2 + 3/(2N)) + C_cov, and the O(r^(tN)) as "
                           "the bias after t iterations, ||E g_t + mu|| <= (2L/N) sum_n "
                           "r^(N(t-1)+n)"))),
            Quantity("variance", "V[g_t,JSA | F_{t-1}] (trace)", "<=",
                     (Form("stated", stated_var, "L^2 (1/2 + 3/(2N)) + C_cov, O(1/w*) dropped",
                           dropped=(laurent_rest,)),
                      Form("explicit", var_explicit, "(L^2/N^2) sum_n [n r^(n-1) + r^n] + C_cov"),
                      Form("moment", var_moment,
                           "(1/N^2) sum_n [n r^(n-1) E_q||s||^2 + r^n ||s(z_{t-1})||^2] + C_cov"),
                      Form("corrected", sp.Min(var_corrected, Ls ** 2),
                           "(1/N^2) sum_n E||s_n||^2 + C_cov <= L^2/N + C_cov, capped at the "
                           "trivial V <= L^2")),
                     expansions=(Expansion(
                         "explicit", ws, sp.oo, Ls ** 2 * ser + ccs, 2,
                         "Laurent series of (1/N^2) sum_n [n r^(n-1) + r^n] at w* -> oo: "
                         "1/2 + 3/(2N) + O(1/w*)"),)),
        ),
        definitions=DEF_R,
        constraints=(MU_LE_L,),
        notes=("The proof's closed form (w*)^2 + w* - r^N((w*)^2 + w* + N w*) of sum_n[n r^(n-1) + "
               "r^n] exceeds the exact sum by 1 - r^N; the explicit form uses the exact sum.",
               "The O(1/w*) Laurent remainder is negative: the stated variance bound is above the "
               "explicit one.",
               "The explicit/moment variance forms rest on Lemma 6, which fails for n >= 2 (see "
               "lemma6); the corrected variance uses E||s_n||^2 <= L^2, which is also never weaker "
               "than the printed bound.",
               "Lemma 7 is applied with t steps from eta_0, but E[.|F_{t-1}] is a one-step "
               "quantity: see the corrected form and `python -m verify theorem3`."),
        example={"N": 10, "w_star": 100.0, "k": 5, "t": 10, "L": 1.0, "D": 1},
    )


def theorem4() -> Claim:
    """Build the claim ``theorem4``.

    pMCSA (N parallel IMH chains): mixing rate and gradient second moment.

    Source: Kim et al. (NeurIPS 2022), §5.1 Theorem 4; proof App. D.
    """
    eqs, sps = S.eq_s2.symbol, S.s_prev2.symbol
    B = lemma7_bias(Ns, r, ts)  # Lemma 7 with C(N) = N, rho = r (Theorem 4's mixing)
    bias_terms = B ** 2 + 2 * Ls * B
    var_explicit = Ls ** 2 * (1 + r) / Ns
    var_moment = (eqs + r * sps) / Ns
    stated_var = Ls ** 2 * (1 / Ns + (1 - 1 / ws) / Ns)
    return Claim(
        id="theorem4",
        title="pMCSA (N parallel IMH chains): mixing rate and gradient second moment",
        source=Source(SEED, "§5.1 Theorem 4; proof App. D"),
        assumptions=("A2", "A3"),
        params=(S.N, S.w_star, S.k, S.t, S.L, S.mu_norm, S.D, S.eq_s2, S.s_prev2),
        quantities=(
            Quantity("mixing", "d_TV(P^k(eta,.), Pi) for the N independent chains", "<=",
                     (Form("stated", Ns * r ** ks, "C(N) r^k with C(N) = N from the proof"),
                      Form("explicit", Ns * r ** ks, "Lemma 1 + Eq. (7): sum_n r^k"))),
            Quantity("second_moment", "E[||g_t,pMCSA||^2 | F_{t-1}]", "<=",
                     (Form("stated", stated_var + mus ** 2,
                           "L^2 [1/N + (1 - 1/w*)/N] + ||mu||^2; O(r^t) dropped",
                           dropped=(bias_terms,)),
                      *_lemma2_forms(
                          bias_terms,
                          explicit=(var_explicit, "Lemma 2 (1) with 2L Bias, Lemma 6 (n = 1), "
                                                  "Lemma 7 bias 2 sqrt(D) L N r^t"),
                          moment=(var_moment, "as explicit with E_q||s||^2 and mean_n "
                                              "||s(z^(n)_{t-1})||^2 in place of L^2")),
                      Form("corrected", sp.Min(var_explicit + (mus + 2 * Ls * r) ** 2, Ls ** 2),
                           "conditional on F_{t-1} the bias is one-step: ||E[g|F]|| <= ||mu|| + 2 "
                           "L r; capped at the trivial E||g||^2 <= L^2 (||g|| <= L)"),
                      Form("sharper", sharper_second_moment(Ls ** 2 / Ns, mus + 2 * Ls * r)[0],
                           "E||g||^2 = ||E g||^2 + V, V <= (L^2 - ||E g||^2)/N (independent "
                           "chains), ||E g|| <= min(L, ||mu|| + 2 L r): L^2/N + (1 - 1/N) min(L, "
                           "||mu|| + 2 L r)^2"),
                      Form("unconditional", stated_var + (mus + 2 * Ls * r ** ts) ** 2,
                           "the printed bound read over the trajectory from eta_0 (lambda fixed): "
                           "V <= L^2/N <= L^2 [1/N + (1 - 1/w*)/N], and the O(r^t) as the bias "
                           "after t transitions, ||E g_t + mu|| <= (1/N) sum_n 2 L "
                           "d_TV(K^t(z_0^(n), .), pi) <= 2 L r^t"))),
            Quantity("variance", "V[g_t,pMCSA | F_{t-1}] (trace)", "<=",
                     (Form("stated", stated_var, "L^2 [1/N + (1 - 1/w*)/N]"),
                      Form("explicit", var_explicit, "(L^2/N^2) sum_n (1 + r)"),
                      Form("moment", var_moment,
                           "(1/N^2) sum_n [E_q||s||^2 + r ||s(z^(n)_{t-1})||^2]"))),
        ),
        definitions=DEF_R,
        constraints=(MU_LE_L,),
        notes=("Lemma 7 is applied with t steps from eta_0, but E[.|F_{t-1}] is a one-step "
               "quantity: see the corrected form and `python -m verify theorem4`.",),
        example={"N": 10, "w_star": 100.0, "k": 5, "t": 10, "L": 1.0, "D": 1},
    )


# ------------------------------------------------------------------------------------
def table1() -> Claim:
    """Build the claim ``table1``: MCGD convergence rates (Duchi 2012; Doan et al. 2020a, 2020b).

    Source: Kim et al. (NeurIPS 2022), §2.2 Table 1.
    """
    Gs, rh, Ts, c = S.G.symbol, S.rho.symbol, S.T.symbol, S.c_rate.symbol
    return Claim(
        id="table1",
        title="MCGD convergence rates (Duchi 2012; Doan et al. 2020a, 2020b)",
        source=Source(SEED, "§2.2 Table 1"),
        assumptions=("A1", "MCGD"),
        params=(S.G, S.rho.with_domain(lower_strict=True), S.T, S.c_rate),
        quantities=(
            Quantity("mirror_descent",
                     "optimality gap of mirror descent, gamma_t = gamma/sqrt(t) (Duchi et al. "
                     "2012, Cor. 3.5)",
                     "<=", (Form("stated", c * Gs ** 2 * sp.log(Ts)
                                 / (sp.log(1 / rh) * sp.sqrt(Ts)),
                                 "c G^2 log T / (log(1/rho) sqrt(T))"),)),
            Quantity.stated("sgd_nesterov", "rate of SGD-Nesterov (Doan et al. 2020a, Thm 2)", "<=",
                            c * Gs ** 2 * sp.log(Ts) / sp.sqrt(Ts), "c G^2 log T / sqrt(T)"),
            Quantity.stated(
                "sgd", "rate of SGD with gamma_t = gamma/t (Doan et al. 2020b, Thms 1-2)", "<=",
                c * Gs ** 2 * sp.log(Ts) / Ts, "c G^2 log T / T"),
        ),
        kind="calculator",
        notes=("Rates are O(.) statements: c is the unknown constant (default 1).",),
        example={"G": 1.0, "rho": 0.9, "T": 10000},
    )


TABLE2_ROWS = {
    # scheme: (p evals, q evals, q samples, p grads, q grads), per iteration; 001 Table 2
    "ELBO": (0, 0, Ns, Ns, Ns),
    "MSC": (Ns - 1, Ns, Ns - 1, 0, 1),
    "MSC-RB": (Ns - 1, Ns, Ns - 1, 0, Ns),
    "JSA": (Ns, Ns + 1, Ns, 0, Ns),
    "pMCSA": (Ns, 2 * Ns, Ns, 0, Ns),
}
TABLE2_COLUMNS = ("p_eval", "q_eval", "q_sample", "p_grad", "q_grad")


def table2() -> Claim:
    """Build the claim ``table2``.

    Per-iteration computational costs of ELBO, MSC, MSC-RB, JSA and pMCSA.

    Source: Kim et al. (NeurIPS 2022), §5.2 Table 2.
    """
    qs = []
    for scheme, row in TABLE2_ROWS.items():
        for col, e in zip(TABLE2_COLUMNS, row):
            qs.append(Quantity(f"{scheme}.{col}",
                               f"{scheme}: {col.replace('_', ' ')} per iteration", "=",
                               (Form("stated", sp.sympify(e), "Kim et al. 2022 Table 2"),)))
    return Claim(
        id="table2",
        title="Per-iteration computational costs of ELBO, MSC, MSC-RB, JSA and pMCSA",
        source=Source(SEED, "§5.2 Table 2"),
        assumptions=(),
        params=(S.N.with_domain(lower=2),),
        quantities=tuple(qs),
        kind="data",
        notes=("Applying P_lambda: p(z,x) evaluations, q evaluations, q samples; estimating g: "
               "p gradients, q gradients (score evaluations).",),
        example={"N": 10},
    )


BUILDERS = {
    "proposition1": proposition1, "proposition2": proposition2,
    "lemma1": lemma1, "lemma2": lemma2, "lemma3": lemma3, "lemma4": lemma4,
    "lemma5": lemma5, "lemma6": lemma6, "lemma7": lemma7,
    "theorem1": theorem1, "theorem2": theorem2, "theorem3": theorem3, "theorem4": theorem4,
    "table1": table1, "table2": table2,
}
