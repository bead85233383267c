"""The formulas of the teaching document (entry-point group ``mcsa_verify.bounds``): ``BUILDERS``.

The teaching material (``notebooks/``, ``notebooks/exercises``, ``notebooks/solutions``,
``docs/glossary.md``) states mathematical facts about the schemes of Kim et al. (NeurIPS 2022).
Each fact is a claim here, with its formula, and is checked by the same machinery as the
documents' claims (:mod:`verify.documents.teaching.checks`), exactly.  A sentence of the material
that states one cites it, e.g. "(checked: `teach_imh_escape`)".

Where a fact is an inequality between two computed quantities (pMCSA's stationary second moment
against MSC's), the bound is a parameter that the check fills with the other quantity; where it is
a sign ("pMCSA mixes slower than MSC"), the bound is 1 and the quantity a ratio.
"""

from __future__ import annotations

DOCUMENT = "teaching"
#: claim id -> where the material states it
WHERE = {
    "teach_imh_escape": "notebooks 02, 03, 08; Exercise 1; glossary: r, IMH",
    "teach_cis_q_equals_pi": "Exercise 3; glossary: CIS",
    "teach_mixing_rate_order": "notebooks 01, 02; Exercise 4; glossary: rho",
    "teach_trivial_bounds": "notebooks 01, 08; glossary: G^2, trivial bound, vacuous",
    "teach_divergences": "notebook 01; glossary: w*, chi2",
    "teach_stationary_order": "notebook 08 §2; Exercise 11; glossary: transient, stationarity",
    "teach_stationary_counterexample": "notebook 08 §2; Exercise 11; glossary: stationarity",
    "teach_conditional_variances": "notebook 03 §1; Exercise 5",
    "teach_corrected_theorem4": "notebook 03 §3; Exercises 7-8; glossary: conditional bias",
    "teach_msc_rb_stated_vacuous": "notebooks 01, 08; Exercise 10; glossary: vacuous",
    "teach_rate_ratios": "notebooks 01, 07, 08; Exercise 12; glossary: Table 1 rates",
    "teach_transient_crossing": "notebook 08 §3; Exercises 9, 12; glossary: transient",
}


#: the assumptions of these formulas, by key (bounds.core.ASSUMPTIONS reads them from here)
ASSUMPTIONS = {"FINITE": "a finite state space, every quantity exact (rational)"}


def _core():
    import sympy as sp

    from bounds.core import Claim, Form, Param, Quantity, Source

    return sp, Claim, Form, Param, Quantity, Source


def _params(Param):
    return {
        "w_star": Param("w_star", "--w-star", "w*", "largest importance weight max pi/q", lower=1),
        "pi0": Param("pi0", "--pi0", "pi(z*)", "target mass of the worst state z*", lower=0,
                     upper=1, lower_strict=True, upper_strict=True),
        "k": Param("k", "--k", "k", "number of steps", lower=0, integer=True),
        "N": Param("N", "--N", "N", "budget: particles, IMH steps or chains", lower=1,
                   integer=True),
        "L": Param("L", "--L", "L", "score bound, |s| <= L", lower=0, lower_strict=True),
        "mu_norm": Param("mu_norm", "--mu-norm", "||mu||", "|E_pi s|", lower=0),
        "t": Param("t", "--t", "t", "MCGD iteration", lower=1, integer=True),
    }


def _value(Param, name, what, lower=0):
    """A parameter that carries a computed quantity the claim compares with (a second moment or a
    variance: non-negative unless said otherwise)."""
    return Param(name, "--" + name.replace("_", "-"), name, what, lower=lower)


def teach_imh_escape():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    w, p0, k = (P[n].symbol for n in ("w_star", "pi0", "k"))
    return Claim(
        id="teach_imh_escape",
        title="IMH from z*: accepts w.p. 1/w*, moves w.p. (1 - pi(z*))/w*, TV = r^k (1 - pi(z*))",
        source=Source(DOCUMENT, WHERE["teach_imh_escape"]),
        assumptions=("FINITE",),
        params=(P["w_star"], P["pi0"], P["k"]),
        quantities=(
            Quantity.stated("acceptance", "P(a proposal is accepted | z*) for IMH", "=", 1 / w,
                            "E_q[w/w*] = 1/w*"),
            Quantity.stated("move", "P(IMH leaves z* in one step)", "=", (1 - p0) / w,
                            "accepted proposals have law pi; one of z* itself does not move"),
            Quantity.stated("tv_worst", "d_TV(K^k(z*, .), pi)", "=", (1 - 1 / w) ** k * (1 - p0),
                            "K^k(z*, .) = r^k delta_z* + (1 - r^k) pi"),
        ),
        example={"w_star": 10.0, "pi0": 0.3, "k": 5},
    )


def teach_cis_q_equals_pi():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N, k = P["N"].symbol, P["k"].symbol
    px = Param("pi_x", "--pi-x", "pi(x)", "target mass of the start x", lower=0, upper=1,
               lower_strict=True, upper_strict=True)
    return Claim(
        id="teach_cis_q_equals_pi",
        title="CIS at q = pi: K = I/N + (1 - 1/N) Pi, TV = N^-k (1 - pi(x))",
        source=Source(DOCUMENT, WHERE["teach_cis_q_equals_pi"]),
        assumptions=("FINITE",),
        params=(P["N"], px, P["k"]),
        quantities=(
            Quantity.stated("stay", "K(x, x) of CIS with N particles at q = pi", "=",
                            1 / N + (1 - 1 / N) * px.symbol, "a uniform pick among N particles"),
            Quantity.stated("tv", "d_TV(K^k(x, .), pi) at q = pi", "=", N ** (-k) * (1 - px.symbol),
                            "K^k = N^-k I + (1 - N^-k) Pi"),
        ),
        example={"N": 4, "pi_x": 0.5, "k": 3},
    )


def teach_mixing_rate_order():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N4 = Param("N4", "--N4", "N", "a budget of at least 4 (below it the rates never meet)",
               lower=4, integer=True)
    return Claim(
        id="teach_mixing_rate_order",
        title="pMCSA's rho = r exceeds MSC's iff N >= 4 and w* > (N - 2)/(N - 3); JSA's r^N <= r",
        source=Source(DOCUMENT, WHERE["teach_mixing_rate_order"]),
        assumptions=("FINITE",),
        params=(P["N"], P["w_star"], N4),
        quantities=(
            Quantity.stated("threshold", "the w* at which pMCSA's and MSC's rho are equal "
                            "(Theorems 1 and 4 solved), N >= 4", "=",
                            (N4.symbol - 2) / (N4.symbol - 3), "(N - 3) w* = N - 2"),
            Quantity.stated("ratio_slower", "(1 - rho_MSC)/(1 - rho_pMCSA) where N >= 4, w* > "
                            "(N-2)/(N-3)", ">", sp.Integer(1), "pMCSA mixes slower"),
            Quantity.stated("ratio_not_slower", "(1 - rho_MSC)/(1 - rho_pMCSA) elsewhere", "<=",
                            sp.Integer(1), "pMCSA does not mix slower"),
            Quantity.stated("jsa_over_pmcsa", "(1 - rho_JSA)/(1 - rho_pMCSA)", ">=",
                            sp.Integer(1), "r^N <= r"),
        ),
        example={"N": 10, "w_star": 10.0, "N4": 10},
    )


def teach_trivial_bounds():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    L = P["L"].symbol
    return Claim(
        id="teach_trivial_bounds",
        title="The trivial bounds: E||g||^2 <= L^2 for every scheme, d_TV <= 1",
        source=Source(DOCUMENT, WHERE["teach_trivial_bounds"]),
        assumptions=("FINITE",),
        params=(P["L"],),
        quantities=(
            Quantity.stated("second_moment", "E[||g||^2 | F_t-1] of MSC, MSC-RB, JSA, pMCSA",
                            "<=", L ** 2, "an average of scores of norm <= L"),
            Quantity.stated("tv", "d_TV(K^k(x, .), pi) of IMH and CIS", "<=", sp.Integer(1),
                            "a total variation distance"),
        ),
        example={"L": 1.0},
    )


def teach_divergences():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    return Claim(
        id="teach_divergences",
        title="1 + chi2(pi||q) = E_pi w <= w*",
        source=Source(DOCUMENT, WHERE["teach_divergences"]),
        assumptions=("FINITE",),
        params=(P["w_star"],),
        quantities=(
            Quantity.stated("one_plus_chi2", "1 + chi2(pi||q) = sum pi^2/q = E_pi w", "<=",
                            P["w_star"].symbol, "E_pi w <= sup w"),
        ),
        example={"w_star": 10.0},
    )


def teach_stationary_order():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N = P["N"].symbol
    msc = _value(Param, "msc_second", "MSC's stationary E||g||^2")
    jsa = _value(Param, "jsa_second", "JSA's stationary E||g||^2")
    es2 = _value(Param, "e_pi_s2", "E_pi s^2")
    mu = _value(Param, "mu", "E_pi s", lower=None)
    return Claim(
        id="teach_stationary_order",
        title="At stationarity pMCSA's E||g||^2 = E_pi s^2/N + (1 - 1/N) mu^2 <= MSC's and JSA's",
        source=Source(DOCUMENT, WHERE["teach_stationary_order"]),
        assumptions=("FINITE",),
        params=(P["N"], msc, jsa, es2, mu),
        quantities=(
            Quantity.stated("pmcsa", "pMCSA's stationary E||g||^2", "=",
                            es2.symbol / N + (1 - 1 / N) * mu.symbol ** 2,
                            "N independent draws from pi"),
            Quantity.stated("pmcsa_vs_msc", "pMCSA's stationary E||g||^2", "<=", msc.symbol,
                            "mu^2 <= E_pi s^2"),
            Quantity.stated("pmcsa_vs_jsa", "pMCSA's stationary E||g||^2", "<=", jsa.symbol,
                            "IMH's spectrum is non-negative"),
            Quantity.stated("imh_psd", "the smallest principal minor of diag(pi) K (IMH)", ">=",
                            sp.Integer(0), "reversible, no negative eigenvalue"),
        ),
        example={"N": 4, "msc_second": 0.5, "jsa_second": 0.2, "e_pi_s2": 0.5, "mu": 0.0},
    )


def teach_stationary_counterexample():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N = P["N"].symbol
    return Claim(
        id="teach_stationary_counterexample",
        title="pi = (1/2,1/4,1/4), q = (1/10,9/20,9/20), s = (0,1,-1): MSC-RB below pMCSA's 1/(2N)",
        source=Source(DOCUMENT, WHERE["teach_stationary_counterexample"]),
        assumptions=("FINITE",),
        params=(P["N"],),
        quantities=(
            Quantity.stated("msc_rb", "MSC-RB's stationary E||g||^2 on the counterexample", "<",
                            1 / (2 * N), "pMCSA's E_pi s^2 / N = 1/(2N)"),
            Quantity.stated("jsa", "JSA's stationary E||g||^2 on the counterexample", "=",
                            1 / (2 * N), "(K s)(z) = 0: uncorrelated consecutive scores"),
            Quantity.stated("msc", "MSC's stationary E||g||^2 on the counterexample", "=",
                            sp.Rational(1, 2), "E_pi s^2"),
        ),
        example={"N": 16},
    )


def teach_conditional_variances():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    one = _value(Param, "v_one", "one chain's variance at the state")
    prev = _value(Param, "v_prev", "the variance at the smaller budget")
    low = _value(Param, "v_other", "the smaller of MSC's and JSA's variance")
    return Claim(
        id="teach_conditional_variances",
        title="Notebook 03's instance at z*: N V_pMCSA = V_1; JSA's, MSC's V grow; MSC-RB's small",
        source=Source(DOCUMENT, WHERE["teach_conditional_variances"]),
        assumptions=("FINITE",),
        params=(P["N"], one, prev, low),
        quantities=(
            Quantity.stated("pmcsa_n_var", "N V[g_pMCSA | chains at x]", "=", one.symbol,
                            "independent chains"),
            Quantity.stated("jsa_growth", "V[g_JSA | z*] at N = 32", ">", one.symbol,
                            "its states stay at z*"),
            Quantity.stated("msc_growth", "V[g_MSC | z*] at N", ">", prev.symbol,
                            "a larger N makes CIS move more often"),
            Quantity.stated("msc_rb_small", "V[g_MSC-RB | z*] at N", "<", low.symbol,
                            "the current state's large weight dominates"),
        ),
        example={"N": 4, "v_one": 0.1, "v_prev": 0.1, "v_other": 0.1},
    )


def teach_corrected_theorem4():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N, w, L, mu = (P[n].symbol for n in ("N", "w_star", "L", "mu_norm"))
    r = 1 - 1 / w
    return Claim(
        id="teach_corrected_theorem4",
        title="Theorem 4 corrected: holds, below L^2 iff (1+r)/N + (||mu||/L + 2r)^2 < 1 (w* < 2)",
        source=Source(DOCUMENT, WHERE["teach_corrected_theorem4"]),
        assumptions=("FINITE",),
        params=(P["N"], P["w_star"], P["L"], P["mu_norm"]),
        quantities=(
            Quantity.stated("second_moment", "E[||g_pMCSA||^2 | F_t-1] where the correction is "
                            "informative", "<=", L ** 2 * (1 + r) / N + (mu + 2 * L * r) ** 2,
                            "one-step bias <= ||mu|| + 2Lr, V <= L^2 (1 + r)/N"),
            Quantity.stated("one_step_bias", "||E[g | F_t-1] + mu|| of pMCSA", "<=", 2 * L * r,
                            "d_TV(K(x, .), pi) <= r"),
            Quantity.stated("informative", "the corrected form (capped at L^2) inside the domain",
                            "<", L ** 2, "(1 + r)/N + (||mu||/L + 2r)^2 < 1"),
            Quantity.stated("vacuous", "the corrected form (capped at L^2) at w* >= 2", ">=",
                            L ** 2, "2Lr >= L"),
        ),
        example={"N": 4, "w_star": 1.5, "L": 1.0, "mu_norm": 0.0},
    )


def teach_msc_rb_stated_vacuous():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    return Claim(
        id="teach_msc_rb_stated_vacuous",
        title="Theorem 2's stated bound / L^2 >= 1 iff chi2 >= (N - 1)(L^2 - ||mu||^2)/(4 L^2)",
        source=Source(DOCUMENT, WHERE["teach_msc_rb_stated_vacuous"]),
        assumptions=("FINITE",),
        params=(P["N"], P["L"], P["mu_norm"]),
        quantities=(
            Quantity.stated("vacuous", "Theorem 2's stated bound / L^2 at chi2 >= the threshold",
                            ">=", sp.Integer(1), "4 L^2 chi2/(N - 1) + ||mu||^2 >= L^2"),
            Quantity.stated("informative", "Theorem 2's stated bound / L^2 below the threshold",
                            "<", sp.Integer(1), "below L^2"),
        ),
        example={"N": 16, "L": 1.0, "mu_norm": 0.0},
    )


def teach_rate_ratios():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    N, w = P["N"].symbol, P["w_star"].symbol
    r = 1 - 1 / w
    return Claim(
        id="teach_rate_ratios",
        title="Table 1, pMCSA/JSA: 2N(1 + r)/(N + 3) (mirror descent), 2(1 + r)/(N + 3) (rho-free)",
        source=Source(DOCUMENT, WHERE["teach_rate_ratios"]),
        assumptions=("FINITE",),
        params=(P["N"], P["w_star"]),
        quantities=(
            Quantity.stated("mirror_descent", "pMCSA's / JSA's mirror-descent rate bound", "=",
                            2 * N * (1 + r) / (N + 3), "N G_p^2 / G_J^2"),
            Quantity.stated("sgd_nesterov", "pMCSA's / JSA's SGD-Nesterov rate bound", "=",
                            2 * (1 + r) / (N + 3), "G_p^2 / G_J^2"),
            Quantity.stated("md_prefers_jsa", "the mirror-descent ratio, N >= 3", ">",
                            sp.Integer(1), "N (1 + 2r) > 3"),
            Quantity.stated("nesterov_prefers_pmcsa", "the SGD-Nesterov ratio", "<",
                            sp.Integer(1), "2 (1 + r) < N + 3"),
        ),
        example={"N": 16, "w_star": 100.0},
    )


def teach_transient_crossing():
    sp, Claim, Form, Param, Quantity, Source = _core()
    P = _params(Param)
    return Claim(
        id="teach_transient_crossing",
        title="From z* (N = 16, pi(z*) = 0.3) pMCSA's E||g_t||^2 reaches JSA's at w* ~ 2.2 t",
        source=Source(DOCUMENT, WHERE["teach_transient_crossing"]),
        assumptions=("FINITE",),
        params=(P["t"], P["w_star"]),
        quantities=(
            Quantity.stated("below", "pMCSA's / JSA's E||g_t||^2 just below the crossing", "<",
                            sp.Integer(1), "pMCSA still ahead"),
            Quantity.stated("above", "pMCSA's / JSA's E||g_t||^2 just above the crossing", ">",
                            sp.Integer(1), "pMCSA's chains stuck at z*"),
        ),
        example={"t": 100, "w_star": 215.0},
    )


BUILDERS = {f.__name__: f for f in (
    teach_imh_escape, teach_cis_q_equals_pi, teach_mixing_rate_order, teach_trivial_bounds,
    teach_divergences, teach_stationary_order, teach_stationary_counterexample,
    teach_conditional_variances, teach_corrected_theorem4, teach_msc_rb_stated_vacuous,
    teach_rate_ratios, teach_transient_crossing)}
