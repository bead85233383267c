"""Verifications ``figure1`` and ``figure2``: the paper's simulations with each theorem's bound.

Kim, Oh, Gardner, Dieng & Kim, "Markov Chain Score Ascent", NeurIPS 2022, §6.2 and
Figures 1-2; the bounds are Theorems 1-4 (§4.2-§5.1) in the forms of
:mod:`bounds.experiments`; the run loops are :mod:`simulate.experiments`.

figure1
    *Bound checks* (Monte Carlo): at ten measurement iterations of every run (scheme, N,
    replicate), the variance of the gradient across the measurement population, V +- se,
    against the bound at that lambda (JSA: V - C_cov against the bound without C_cov, both
    from the same population).  *Observation checks*: the paper's (i)-(iv), read on the
    benefit exponent beta = -d log V / d log N, fitted by least squares of the
    phase-averaged log V of every run on log N (runs are independent, so the residual
    scatter gives the standard error, Student t with n - 2 degrees of freedom), in each
    third of the run (early, middle, late phases); "pMCSA has the
    lowest variance" as the ratio of geometric means V_pMCSA / V_other per N and phase
    (Welch).  Premises ("until chi2 has become small", "until w* has become small") are
    read from the closed-form chi2 and w* of the phase: a check whose premise is not met is
    shown but does not decide the verdict.  The margin delta and the premises' thresholds
    are readings (``FIG1_AXES``, below).
figure2
    A run has *converged* when its final KL(pi||q) is finite and at most KL* + tau, with KL*
    the best mean-field KL (closed form) and tau a reading (``TAUS``); a diverged run
    counts as not converged.
    "pMCSA converges for the broadest variety of optimizer settings": the fraction of
    converged runs (all optimizers, step sizes, replicates) of pMCSA against each other
    scheme's, as a ratio >= 1.  "Most MCSA methods seem to be the most stable with ADAM":
    per scheme the smallest ratio p_Adam / p_other optimizer, and the claim checks the
    order statistic for a majority (``MOST``: 3 of the 4 schemes); the per-scheme comparisons
    are shown as non-deciding checks.

Readings.  Every threshold that turns the prose into a check is a reading axis (``Threshold``
tables: each value with its supporting quote and the range it spans); the observation checks
are made under every full reading (product over the axes) and tagged with it, and
:func:`verify.decide.final_status` gives ``violated`` only when every reading fails,
``depends on reading`` when the verdict changes inside the ranges.  The stored verdicts
carry the table :func:`sensitivity_table`.

Error rates.  Every check is Monte Carlo, decided by :func:`verify.decide.decide` with the
claim's false-violation budget alpha = 1e-3.  The budget is split: half over the bound
checks (normal quantile at alpha/(2 n_bound)), half over the observation checks
(Student t, or normal for figure2, at alpha/(2 n_obs), n_obs the observation checks one full
reading decides on); the standard error handed to
``decide`` is the raw one times (that critical value / decide's z), and the raw standard
error and the critical value are kept in the check's parameters.

The tidy rows of a run travel with its checks (``report.checks.rows``), so the plot and
the stored table (docs/figures/) come from the same numbers; :func:`figure1_checks` and
:func:`figure2_checks` recompute the verdicts from a stored table without simulating.

Regenerate the stored full-mode results (run on the sweep engine, cached per cell in
``out/figure-cache``; ``--workers K`` local processes, or ``--scheduler tcp://HOST:PORT``
for a Dask cluster)::

    python -m verify.running.reproductions --claim all --workers 2
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import textwrap
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

import bounds
from mcsa_cli import atomic_write, dumps, jsonable
from simulate import experiments as X
from verify.decide import ALPHA, across_readings, combine, degenerate_reasons, z_one_sided
from verify.model import (
    DEGENERATE,
    DEPENDS,
    HOLDS,
    VIOLATED,
    CheckResult,
    Grid,
    Reading,
    Verification,
)
from verify.registry import register

CACHE = Path(os.environ.get("MCSA_FIGURE_CACHE", Path("out") / "figure-cache"))
# ============================================================================ readings: the
# thresholds Every threshold that turns a sentence of §6.2 into a check is a reading axis: one
# option per value, the values spanning the range a careful reader could hold (the range and the
# sentences that bound it are in each Threshold's ``why``).  These tables are the only place a
# threshold's value is written; the checks take them from here (tests/test_figures.py checks it).
@dataclasses.dataclass(frozen=True)
class Threshold:
    """One value of one threshold: ``axis`` (what is read), ``name`` (the option), ``value``
    (what the check uses), ``quote`` (the sentence of the paper that supports it), ``why``
    (the range and what rules out values beyond it)."""

    axis: str
    name: str
    value: Any  # a number (delta), or a function of the phase (chi2, w*, tau)
    quote: str
    why: str

    def reading(self) -> Reading:
        return Reading(self.name, self.quote, self.why, axis=self.axis)


_OBS = ("Kim et al. (NeurIPS 2022), §6.2: \"(i) pMCSA has the lowest variance overall, and it "
        "consistently benefits from increasing N. (ii) MSC does not benefit from increasing N "
        "whatsoever. (iii) MSC-RB does not benefit much from increasing N until the chi2 "
        "divergence between pi and q(.; lambda) has become small. (iv) JSA does not benefit from "
        "increasing N until q(.; lambda) has sufficiently converged (when w* has become small).\"")
_DELTA_WHY = (
    "'benefits' <=> beta >= delta, 'does not benefit' <=> beta <= delta, beta = -d log V/d log N. "
    "Range [0.1, 0.5]: over the figure's 16-fold budget (N = 8..128) V falls by 1.3x at 0.1 and 4x "
    "at 0.5 (half the O(1/N) rate). delta = 0 is ruled out by §4.2 (Theorem 1's discussion): "
    "'Although the mixing rate does improve with N, ... this will be marginal' (and §4.3: 'the "
    "variance improvement becomes marginal'): a marginal gain is still 'no benefit'. delta near 1 "
    "is ruled out by §5.1: pMCSA 'consistently achieve[s] an O(1/N) variance reduction' (beta = "
    "1), which (i) calls a benefit")
DELTAS = tuple(Threshold("benefit margin delta", f"delta={d:g}", d, _OBS,
                         _DELTA_WHY) for d in (0.1, 0.2, 0.5))

_CHI2_Q = (
    "Kim et al. (NeurIPS 2022), §4.2 Theorem 2: the MSC-RB variance is at most 4 L^2 "
    "d_chi2(pi||q)/(N-1) + ||mu||^2; 'the variance of MSC-RB will be large on challenging problems "
    "where the chi2 divergence is large, although linear variance reduction is possible'; §6.2 "
    "(iii): '... until the chi2 divergence between pi and q(.; lambda) has become small'")
_CHI2_WHY = (
    "chi2 matters through chi2/(N-1) (Theorem 2): 'small' relative to the budget, 1 + chi2 <= k, "
    "the importance-sampling effective sample size N/(1 + chi2) at least 1. Range: k from N_min "
    "(small for every budget) through N_max (for the largest) to 10 N_max (within an order of "
    "magnitude of it). 'chi2 finite' alone is ruled out by the same discussion ('large on "
    "challenging problems where the chi2 divergence is large': a finite chi2 of 10^3 N is large)")
#: the range of a budget-relative threshold k: N_min, N_max, 10 N_max (as functions of the budgets
#: Ns)
_BUDGET_RANGE = (("Nmin", lambda Ns: min(Ns)), ("Nmax", lambda Ns: max(Ns)),
                 ("10Nmax", lambda Ns: 10 * max(Ns)))
CHI2_SMALL = tuple(Threshold("chi2 has become small", f"1+chi2<={name}", fn, _CHI2_Q, _CHI2_WHY)
                   for name, fn in _BUDGET_RANGE)

_W_Q = ("Kim et al. (NeurIPS 2022), §4.3 Theorem 3: d_TV <= C(r, N) r^(kN), r = 1 - 1/w*, and the "
        "variance term O(1/w* + r^(tN)); 'in the large w* regime, JSA will perform poorly, and the "
        "variance reduction by increasing N is fundamentally limited'; §6.2 (iv): '(when w* has "
        "become small)'")
_W_WHY = (
    "JSA's N IMH steps per iteration contract by r^N <= exp(-N/w*) (Theorem 3): 'small' relative "
    "to the budget, w* <= k. Range: k from N_min through N_max to 10 N_max, as for chi2. For the "
    "paper's Gaussian pair w* = inf at every iteration (a mean-field q is never wider than a "
    "full-rank pi), so every value of the range reads (iv)'s premise the same way there")
W_SMALL = tuple(Threshold("w* has become small", f"w*<={name}", fn, _W_Q, _W_WHY)
                for name, fn in _BUDGET_RANGE)

_CONV_Q = (
    "Kim et al. (NeurIPS 2022), §6.2: 'Clearly, pMCSA successfully converges for the broadest "
    "variety of optimizer settings. Overall, most MCSA methods seem to be the most stable with "
    "ADAM'; Figure 2: 'Optimizer stepsize versus final KL ... The final KL is obtained at the "
    "10^4th iteration'")
_CONV_WHY = (
    "converged <=> final KL(pi||q) <= KL* + tau (KL* the best mean-field KL, closed form); a "
    "diverged run is not converged. Range: tau from 1 nat (close to the optimum in absolute terms) "
    "through max(1 nat, KL*) (within a factor 2 of the optimum) to 10 max(1 nat, KL*) (within an "
    "order of magnitude, as one reads Figure 2's log-scale KL axis). Below 1 nat is ruled out by "
    "Figure 2's caption, 'results in stable convergence': a constant step size with stochastic "
    "gradients ends on a noise floor above KL*, and the runs the paper calls converged are those "
    "on that floor (in the stored full run the best run of every scheme ends 0.46-0.79 nat above "
    "KL*; at tau = 0.5 nat 2 of 6400 runs converge and every comparison is 0 vs 0)")
TAUS = tuple(Threshold("converged", name, fn, _CONV_Q, _CONV_WHY)
             for name, fn in (("tau=1 nat", lambda k: 1.0),
                              ("tau=max(1,KL*)", lambda k: max(1.0, k)),
                              ("tau=10max(1,KL*)", lambda k: 10 * max(1.0, k))))

_MOST_Q = (
    "Kim et al. (NeurIPS 2022), §6.2: 'Overall, most MCSA methods seem to be the most stable with "
    "ADAM'")
_MOST_WHY = (
    "per scheme, ADAM 'the most stable' <=> its fraction of converged runs is at least each other "
    "optimizer's (ratio >= 1, decided with the claim's error rate); 'most' of the 4 schemes <=> a "
    "majority, at least 3. 2 of 4 is not 'most'; 4 of 4 reads 'most' as 'all', which the sentence "
    "chose not to say. The range is this one value")
MOST = (Threshold("most MCSA methods", "majority (3 of 4)", lambda n: n // 2 + 1, _MOST_Q,
                  _MOST_WHY),)

FIG1_AXES = (DELTAS, CHI2_SMALL, W_SMALL)
FIG2_AXES = (TAUS, MOST)


def joint(axes) -> tuple[tuple[Threshold, ...], ...]:
    """Every full reading of a figure: one value per threshold (the product over its axes)."""
    import itertools

    return tuple(itertools.product(*axes))


def joint_name(combo) -> str:
    return "; ".join(t.name for t in combo)


def joint_readings(axes, degenerate=None, hedge="") -> tuple[Reading, ...]:
    """The claim's readings: one option per full reading of the thresholds.

    verify.decide.assign_readings tags a check with one reading option, and a check of (iii) depends
    on two thresholds (delta and chi2-small), so the product of the threshold axes is declared as
    one axis whose options are its points; its full readings are the product's (the
    per-threshold definitions, with their quotes, are ``FIG1_AXES``/``FIG2_AXES``).  ``hedge``: the
    hedge of
    the sentence the thresholds read (reading rule 2), quoted; every full reading carries it."""
    axis = " x ".join(a[0].axis for a in axes)
    return tuple(Reading(joint_name(c), " | ".join(dict.fromkeys(t.quote for t in c)),
                         "; ".join(f"{t.axis}: {t.name}" for t in c), axis=axis,
                         degenerate=degenerate,
                         hedge=hedge)
                 for c in joint(axes))


#: reading rule 2 for Figure 1: the two observations that the strict thresholds fail, (iii) and
#: (iv), are hedged ("does not benefit much", "sufficiently converged"); the unhedged ones, (i)
#: pMCSA benefits and (ii) MSC "does not benefit ... whatsoever", hold at every threshold of the
#: stored full run, so the figure holds when it holds under the lenient end (delta = 0.5,
#: 1 + chi2 <= 10 N_max), and fails only read strictly (severity note: claims.figure1 in
#: severity.json)
FIG1_HEDGE = ("MSC-RB does not benefit much from increasing N until the chi2 divergence between pi "
              "and q(.; lambda) has become small. (iv) JSA does not benefit from increasing N "
              "until q(.; lambda) has sufficiently converged")


#: reading rule 2 for Figure 2: the sentence whose threshold (tau) decides is hedged three times
#: ('Overall', 'most', 'seem'), so it holds when it holds under the lenient end of the tau range; a
#: failure at the strict end (tau = 1 nat) is reported as failing only read strictly
FIG2_HEDGE = "Overall, most MCSA methods seem to be the most stable with ADAM"


#: reading rule 3 for Figure 2: the per-scheme comparisons are ratio tests of two binomial
#: proportions with a delta-method (normal) standard error, valid only when each arm has at least
#: this many qualifying (converged) runs: the textbook condition n p >= 5 of the normal
#: approximation
MIN_QUALIFYING = 5


def figure2_degenerate(checks) -> str:
    """Reading rule 3 (docs/methods.md): "" when the reading's converged runs suffice to decide
    "most MCSA methods seem to be the most stable with ADAM" (Kim et al. 2022, §6.2), else why not.

    A scheme is decidable when at least one of its Adam comparisons is decided by the data: it has
    ``MIN_QUALIFYING`` converged runs in each arm (the normal approximation the check uses is
    valid), or Fisher's exact test on its two arms (converged / not, Adam against the other
    optimizer) rejects equal rates at the claim's level, Bonferroni over the comparisons (few
    converged runs can still decide a comparison: 2 of 400 against 31 of 400 does).  The reading is
    degenerate when fewer schemes are decidable than its majority needs (the ``adam_stability``
    check's
    ``needed``)."""
    per, need, total = defaultdict(list), None, {}
    for c in checks:
        if c.quantity == "adam_stability (per scheme)" and "qualifying" in c.params:
            (ka, na), (ko, no) = (tuple(int(x) for x in arm.split("/"))
                                  for arm in c.params["converged"].split(" vs "))
            per[c.params["scheme"]].append(((ka, na), (ko, no)))
        elif c.quantity == "adam_stability":
            need = c.params.get("needed")
        elif c.quantity == "pmcsa_breadth" and "qualifying" in c.params:
            (kp, np_), (ko, no) = c.params["qualifying"]
            total["pmcsa"], total[c.params["scheme"].split(" vs ")[1]] = (kp, np_), (ko, no)
    if need is None or not per:
        return ""
    from scipy.stats import fisher_exact

    from verify.decide import ALPHA

    level = ALPHA / max(1, sum(len(v) for v in per.values()))

    def decided(arms):
        (ka, na), (ko, no) = arms
        if min(ka, ko) >= MIN_QUALIFYING:
            return True
        return fisher_exact([[ka, na - ka], [ko, no - ko]]).pvalue < level

    ok = sorted(s for s, ks in per.items() if any(decided(k) for k in ks))
    if len(ok) >= need:
        return ""
    runs = sum(t[0] for t in total.values()), sum(t[1] for t in total.values())
    return (f"too few converged runs to decide: {len(ok)} of {len(per)} schemes "
            f"({', '.join(ok) or 'none'}) have an Adam comparison with >= {MIN_QUALIFYING} "
            f"converged runs in each arm, {need} are needed; {runs[0]} of {runs[1]} runs converge ("
            + ", ".join(f"{s} {k}/{n}" for s, (k, n) in total.items()) + ")")


def chi2_small(chi2: float, Ns, threshold: Threshold) -> bool:
    """(iii)'s premise: 1 + chi2(pi||q) <= the threshold's k(Ns) (median chi2 over the phase's
    runs).
    """
    return _finite(chi2) and 1.0 + chi2 <= threshold.value(Ns)


def w_star_small(w: float, Ns, threshold: Threshold) -> bool:
    """(iv)'s premise: w* <= the threshold's k(Ns) (median w* over the phase's runs)."""
    return _finite(w) and w <= threshold.value(Ns)


SCHEME_LABEL = {"msc": "MSC", "msc-rb": "MSC-RB", "jsa": "JSA", "pmcsa": "pMCSA"}
OPT_LABEL = {"sgd": "SGD", "momentum": "Momentum (0.9)", "nesterov": "Nesterov (0.9)",
             "adam": "ADAM"}
#: scheme -> [(quantity, form, theorem label)]
BOUND_FORMS = {
    "pmcsa": [("pmcsa_variance", "moment", "Thm 4, moment")],
    "jsa": [("jsa_variance", "moment", "Thm 3, moment"),
            ("jsa_variance", "corrected", "Thm 3, corrected")],
    "msc": [("msc_variance", "moment", "Thm 1 needs L=∞; ours, moment")],
    "msc-rb": [("mscrb_variance", "moment", "Thm 2 needs L=∞; ours, moment")],
}


class Checks(list):
    """The checks of one run, carrying the run's tidy rows (``rows``) for plots and tables."""

    rows: list = []
    figure: str = ""


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _num(x):
    """A parameter value for a check: finite numbers as they are, inf as the string "inf" (strict
    JSON).
    """
    return jsonable(float(x))


def _rescale(checks, n_bound_level, n_obs_level, dof=None):
    """Split the claim's budget alpha: bound checks at alpha/(2 n_bound), observation checks at
    alpha/(2 n_obs) (Student t with ``dof`` when given); see the module docstring."""
    from scipy import stats  # imported when a figure is decided: scipy.stats costs ~1 s at import

    n_mc = len(checks)
    if n_mc == 0:
        return checks
    z0 = z_one_sided(ALPHA / n_mc)
    for c in checks:
        kind = c.params.get("_kind")
        if kind == "bound":
            q = z_one_sided(ALPHA / (2 * max(n_bound_level, 1)))
        else:
            d = c.params.get("dof")
            q = float(stats.t.isf(ALPHA / (2 * max(n_obs_level, 1)), d)) if d else \
                z_one_sided(ALPHA / (2 * max(n_obs_level, 1)))
        c.params["se_raw"] = c.stderr
        c.params["critical_value"] = q
        c.stderr = None if c.stderr is None else c.stderr * q / z0
        del c.params["_kind"]
    return checks


# ============================================================================ Figure 1: checks
def _check_times(ts, k=10):
    ts = sorted(t for t in set(ts) if t > 0)
    if len(ts) <= k:
        return set(ts)
    return {ts[i] for i in np.unique(np.linspace(0, len(ts) - 1, k).round().astype(int))}


def bound_values(rows_or_row, quantity, form, c_cov_zero=True):
    """The bound of ``quantity``/``form`` at each measurement row (r = 1 where w* = inf)."""
    claim = bounds.get("figure1")
    rows = rows_or_row if isinstance(rows_or_row, list) else [rows_or_row]
    vals = {k: np.array([float(r[k]) for r in rows]) for k in ("N", "r_w", "eq_s2", "s_prev2",
                                                               "epi_s2")}
    vals["c_cov"] = (np.zeros(len(rows)) if c_cov_zero
                     else np.array([float(r["c_cov"]) for r in rows]))
    _, names = claim.evaluator(quantity, form)
    out = claim.evaluate_form(quantity, form, **{n: vals[n] for n in names})
    return np.broadcast_to(out, (len(rows),)).astype(float)


def _phases(rows):
    T = max(r["t"] for r in rows)
    return {"early": lambda t: 0 < t <= T / 3, "middle": lambda t: T / 3 < t <= 2 * T / 3,
            "late": lambda t: t > 2 * T / 3}


def _phase_runs(rows, scheme, phase):
    """Per run (N, replicate) of a scheme: mean log V over the phase, median chi2 and w*."""
    pick = _phases(rows)[phase]
    acc = defaultdict(list)
    for r in rows:
        if r["scheme"] == scheme and pick(r["t"]) and not r.get("diverged") \
                and _finite(r.get("variance")) \
                and r["variance"] > 0:
            acc[(int(r["N"]), int(r["replicate"]))].append(r)
    out = []
    for (N, rep), rs in sorted(acc.items()):
        out.append({"N": N, "replicate": rep,
                    "logV": float(np.mean([math.log(r["variance"]) for r in rs])),
                    "chi2": float(np.median([r["chi2"] for r in rs])),
                    "w_star": float(np.median([r["w_star"] for r in rs]))})
    return out


def benefit_exponent(runs):
    """beta = -slope of log V on log N by least squares over independent runs: (beta, se, dof)."""
    x = np.log([r["N"] for r in runs])
    y = np.array([r["logV"] for r in runs])
    n = len(y)
    if n < 3 or np.ptp(x) == 0:
        return math.nan, math.nan, 0
    from scipy import stats

    res = stats.linregress(x, y)
    return float(-res.slope), float(res.stderr), n - 2


def figure1_checks(rows, readings=None) -> list[CheckResult]:
    """Every check of figure1 from the tidy rows (no simulation).

    ``readings``: the full readings of the thresholds, tuples (delta, chi2-small, w*-small)
    of :class:`Threshold` (default: every one of ``FIG1_AXES``); the observation checks of
    (i)-(iv) are made under each and tagged with its name (``CheckResult.reading``), the
    bound checks and "lowest variance" are shared."""
    readings = joint(FIG1_AXES) if readings is None else tuple(readings)
    out = []
    times = _check_times([r["t"] for r in rows])
    for scheme, forms in BOUND_FORMS.items():
        sel = [r for r in rows if r["scheme"] == scheme and r["t"] in times
               and not r.get("diverged")
               and _finite(r.get("variance"))]
        if not sel:
            continue
        for q, form, label in forms:
            b = bound_values(sel, q, form)
            for r, bv in zip(sel, b):
                jsa = scheme == "jsa"
                emp, se = (r["diag_var"],
                           r["diag_var_se"]) if jsa else (r["variance"], r["variance_se"])
                params = {"scheme": scheme, "N": int(r["N"]), "replicate": int(r["replicate"]),
                          "t": int(r["t"]),
                          "w_star": _num(r["w_star"]), "r": r["r_w"], "chi2": _num(r["chi2"]),
                          "_kind": "bound"}
                note = (f"{label}; "
                        + ("V - C_cov against the bound without C_cov; " if jsa else "")
                        + ("w* = inf (q not wider than pi): r = 1" if not _finite(r["w_star"])
                           else ""))
                out.append(CheckResult(q, form, params, float(emp), float(bv), "monte-carlo", "<=",
                                       stderr=float(se), note=note.rstrip("; ")))
    n_bound = len(out)
    obs = []
    claim = bounds.get("figure1")
    fits = {}

    def fit(scheme, phase):
        if (scheme, phase) not in fits:
            runs = _phase_runs(rows, scheme, phase)
            med = lambda k: float(np.median([r[k] for r in runs])) if runs else math.nan  # noqa: E731
            fits[scheme, phase] = (runs, benefit_exponent(runs), med("chi2"), med("w_star"),
                                   sorted({r["N"] for r in runs}) or [1])
        return fits[scheme, phase]

    def obs_check(quantity, scheme, phase, combo, premise=True, premise_note=""):
        runs, (beta, se, dof), chi2, w, _ = fit(scheme, phase)
        delta = combo[0].value
        rel = claim.quantity(quantity).relation
        obs.append(CheckResult(quantity, "stated",
                               {"scheme": scheme, "phase": phase, "runs": len(runs), "dof": dof,
                                "chi2 (median)": _num(chi2),
                                "w* (median)": _num(w),
                                "delta": delta, "_kind": "obs"},
                               beta, delta, "monte-carlo", rel, stderr=None if se != se else se,
                               primary=premise,
                               reading=joint_name(combo),
                               note=("beta = -d log V/d log N, least squares over runs; "
                                     + ("benefits: beta >= delta" if rel == ">="
                                        else "no benefit: beta <= delta")
                                     + (f"; premise not met ({premise_note}): shown, not deciding"
                                        if not premise
                                        else ""))))

    for phase in _phases(rows):
        for combo in readings:
            _, chi_t, w_t = combo
            obs_check("pmcsa_benefit", "pmcsa", phase, combo)
            obs_check("msc_benefit", "msc", phase, combo)
            # (iii): the prediction for a phase follows from chi2 in that phase
            _, _, chi2, _, Ns = fit("msc-rb", phase)
            obs_check("mscrb_benefit_chi2_small" if chi2_small(chi2, Ns, chi_t)
                      else "mscrb_benefit_chi2_large",
                      "msc-rb", phase, combo)
            _, _, _, w, Ns = fit("jsa", phase)
            obs_check("jsa_benefit_while_w_star_large", "jsa", phase, combo,
                      premise=not w_star_small(w, Ns, w_t),
                      premise_note=f"w* = {w:.3g} has become small ({w_t.name})")
        # (i) lowest variance (no threshold: shared by every reading): geometric-mean ratio per N
        #     and phase, Welch
        p_runs = _phase_runs(rows, "pmcsa", phase)
        for other in ("msc", "msc-rb", "jsa"):
            o_runs = _phase_runs(rows, other, phase)
            for N in sorted({r["N"] for r in p_runs} & {r["N"] for r in o_runs}):
                a = np.array([r["logV"] for r in p_runs if r["N"] == N])
                b = np.array([r["logV"] for r in o_runs if r["N"] == N])
                if len(a) < 2 or len(b) < 2:
                    continue
                va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
                d = a.mean() - b.mean()
                se = math.sqrt(va + vb)
                dof = ((va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if va
                       + vb > 0
                       else len(a) + len(b) - 2)
                ratio = math.exp(d)
                obs.append(CheckResult("pmcsa_lowest_variance", "stated",
                                       {"scheme": f"pmcsa vs {other}", "N": N, "phase": phase,
                                        "dof": float(dof),
                                        "_kind": "obs"},
                                       ratio, 1, "monte-carlo", "<=", stderr=ratio * se,
                                       note="ratio of geometric-mean variances over replicates "
                                            "(Welch, delta method)"))
    return _rescale(out + obs, n_bound, _per_reading(obs))


def _per_reading(checks) -> int:
    """The primary checks one full reading decides on: the shared ones and those of one reading
    (the largest such count; the false-violation budget is split over these)."""
    shared = sum(1 for c in checks if c.primary and not c.reading)
    own: defaultdict[str, int] = defaultdict(int)
    for c in checks:
        if c.primary and c.reading:
            own[c.reading] += 1
    return max(1, shared + max(own.values(), default=0))


# ============================================================================ Figure 2: checks
def tau_of(kl_min: float) -> float:
    """The middle value of the convergence tolerance's range (``TAUS``): drawn on the figure."""
    return TAUS[len(TAUS) // 2].value(kl_min)


def converged(row, tau=tau_of) -> bool:
    kl = row["final_kl"]
    return (not row.get("diverged")) and _finite(kl) and kl <= row["kl_min"] + tau(row["kl_min"])


def _ratio(k1, n1, k2, n2):
    """p1/p2 with p = (k + 1/2)/(n + 1), exactly (a Fraction of the counts: equal arms give exactly
    1, the bound of a tie), and its delta-method standard error (a float)."""
    p1, p2 = Fraction(2 * k1 + 1, 2 * (n1 + 1)), Fraction(2 * k2 + 1, 2 * (n2 + 1))
    ratio = p1 / p2
    se_log = math.sqrt((1 - p1) / ((n1 + 1) * p1) + (1 - p2) / ((n2 + 1) * p2))
    return ratio, float(ratio) * se_log


def figure2_checks(rows, readings=None) -> list[CheckResult]:
    """Every check of figure2 from the tidy rows (no simulation).

    ``readings``: the full readings of the thresholds, tuples (tau, most) of
    :class:`Threshold` (default: every one of ``FIG2_AXES``); every check is made under each
    and tagged with its name."""
    readings = joint(FIG2_AXES) if readings is None else tuple(readings)
    out = []
    for combo in readings:
        out += _figure2_reading(rows, combo)
    for c in out:
        c.params["_kind"] = "obs"
    return _rescale(out, 0, _per_reading(out))


def _figure2_reading(rows, combo) -> list[CheckResult]:
    tau_t, most_t = combo
    name = joint_name(combo)
    cnt: defaultdict = defaultdict(lambda: [0, 0])
    for r in rows:
        for key in ((r["scheme"],), (r["scheme"], r["optimizer"])):
            cnt[key][0] += converged(r, tau_t.value)
            cnt[key][1] += 1
    schemes = [s for s in X.SCHEMES if (s,) in cnt]
    opts = [o for o in X.OPTIMIZER_NAMES if any((s, o) in cnt for s in schemes)]
    out = []
    if "pmcsa" in schemes:
        kp, n_p = cnt[("pmcsa",)]
        for other in schemes:
            if other == "pmcsa":
                continue
            ko, no = cnt[(other,)]
            ratio, se = _ratio(kp, n_p, ko, no)
            out.append(CheckResult("pmcsa_breadth", "stated",
                                   {"scheme": f"pmcsa vs {other}",
                                    "converged": f"{kp}/{n_p} vs {ko}/{no}",
                                    "qualifying": [[kp, n_p], [ko, no]]},
                                   ratio, 1, "monte-carlo", ">=", stderr=se, reading=name,
                                   note=f"fraction of converged runs ({tau_t.name}) "
                                        "over all optimizers and step sizes"))
    per_scheme = []
    if "adam" in opts:
        for s in schemes:
            ka, na = cnt[(s, "adam")]
            worst = None
            for o in opts:
                if o == "adam" or (s, o) not in cnt:
                    continue
                ko, no = cnt[(s, o)]
                ratio, se = _ratio(ka, na, ko, no)
                c = CheckResult("adam_stability (per scheme)", "stated",
                                {"scheme": s, "optimizer": f"adam vs {o}",
                                 "converged": f"{ka}/{na} vs {ko}/{no}",
                                 "qualifying": [ka, ko]},
                                ratio, 1, "monte-carlo", ">=", stderr=se, primary=False,
                                reading=name,
                                note=f"fraction of converged runs ({tau_t.name}) over step sizes "
                                     f"and replicates")
                out.append(c)
                if worst is None or ratio < worst.empirical:
                    worst = c
            if worst is not None:
                per_scheme.append(worst)
        need = most_t.value(len(per_scheme))
        if len(per_scheme) >= 3:
            # the order statistic: `need` schemes must have Adam's worst ratio >= 1
            k = len(per_scheme) - need
            order = sorted(per_scheme, key=lambda c: c.empirical)
            pick = order[k]
            out.append(CheckResult("adam_stability", "stated",
                                   {"schemes": len(per_scheme), "needed": need,
                                    "deciding scheme": pick.params["scheme"],
                                    "comparison": pick.params["optimizer"]},
                                   pick.empirical, 1, "monte-carlo", ">=", stderr=pick.stderr,
                                   reading=name,
                                   note=f"{need} of {len(per_scheme)} schemes must have Adam's "
                                        f"worst ratio >= 1 ({tau_t.name}): the order statistic "
                                        f"that decides it"))
    return out


# ============================================================================ runs
def _settings(grid, seed):
    st = grid["settings"]
    return dataclasses.replace(st, seed=int(seed))


def _with_settings(rows, st, keys):
    """Settings columns in every row, so that the tidy table describes itself."""
    for r in rows:
        for k in keys:
            r.setdefault(k, getattr(st, k))
    return rows


def _execution(grid) -> dict:
    """run_figure's execution options from a claim's grid (verify.model.Verification.execution)."""
    return {"cache_dir": grid.get("cache"), "workers": grid.get("workers", 1),
            "scheduler": grid.get("scheduler")}


def _verdict_label(claim, D, T) -> str:
    """'verdict' on a figure drawn at the paper's settings (those of the stored full run); on a
    reduced run,
    a label that says it is a smoke test, so that a figure shown alone says nothing false about the
    claim."""
    from verify.running.reproductions import stored_full_run

    st = stored_full_run(claim)
    full = (st or {}).get("settings") or {}
    at_paper = (D is not None and D == full.get("D") and T is not None and T
                >= (full.get("iters") or math.inf))
    return ("verdict" if at_paper
            else "verdict of this reduced run (a smoke test, not the claim's status)")


def run_figure1(grid, seed=0, progress=None):
    st = _settings(grid, seed)
    rows = _with_settings(X.run_figure("figure1", st, progress=progress, **_execution(grid)), st,
                          ("D", "nu", "chains", "lr", "optimizer", "measure_start", "target_seed",
                           "seed"))
    out = Checks(figure1_checks(rows))
    out.rows, out.figure = rows, "figure1"
    _LAST["figure1"] = rows
    return out


def run_figure2(grid, seed=0, progress=None):
    st = _settings(grid, seed)
    rows = _with_settings(X.run_figure("figure2", st, progress=progress, **_execution(grid)), st,
                          ("D", "nu", "target_seed", "seed"))
    out = Checks(figure2_checks(rows))
    out.rows, out.figure = rows, "figure2"
    _LAST["figure2"] = rows
    return out


_LAST: dict = {}  # the last run's rows per figure (for plots of rescored reports)


def _rows_of(report):
    return getattr(report.checks, "rows", None) or _LAST.get(report.claim, [])


# ============================================================================ tables
STR_COLS = {"figure", "scheme", "optimizer", "measure_start"}
BOOL_COLS = {"diverged"}
INT_COLS = {"N", "replicate", "t", "diverged_at", "D", "nu", "chains", "target_seed", "seed"}


def write_csv(rows, path):
    cols = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(float(v)) if isinstance(v, float) else v) for k, v in r.items()})
    return path


def read_csv(path):
    rows = []
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            row = {}
            for k, v in rec.items():
                if v == "" or v is None:
                    continue
                if k in STR_COLS:
                    row[k] = v
                elif k in BOOL_COLS:
                    row[k] = v == "True"
                else:
                    x = float(v)
                    row[k] = int(x) if k in INT_COLS else x
            rows.append(row)
    return rows


def quantity_verdict(per_reading: dict, strict_only=()) -> str:
    """One quantity's verdict from ``{full reading: verdict}``:
    :func:`~verify.decide.across_readings`, except that (reading rule 2) a quantity that fails only
    under the readings in ``strict_only`` (the claim's hedged sentence read strictly) and holds
    under every other holds."""
    v = across_readings(per_reading.values())
    lenient = [x for r, x in per_reading.items() if r not in strict_only]
    if v == DEPENDS and strict_only and lenient and all(x == HOLDS for x in lenient):
        return HOLDS
    return v


def verdict_summary(checks, exclude=(), strict_only=()) -> dict:
    """Verdicts by quantity (what verify/data/figures/<fig>.json stores): per full reading
    the combined verdict of the quantity's checks, then :func:`quantity_verdict`; the readings
    in ``exclude`` (degenerate, rule 3) are left out, those in ``strict_only`` (rule 2) decide
    only where no lenient reading does."""
    by: defaultdict = defaultdict(lambda: defaultdict(list))
    for c in checks:
        if c.reading in exclude:
            continue
        by[(c.quantity, c.form, c.primary)][c.reading].append(c.verdict)
    return {f"{q} [{f}]" + ("" if p else " (not deciding)"):
            quantity_verdict({r: combine(v) for r, v in per.items()}, strict_only)
            for (q, f, p), per in sorted(by.items())}


def sensitivity_table(checks, axes) -> dict:
    """The sensitivity analysis over the thresholds' ranges: ``readings`` (each full reading:
    its verdict and its quantities'), ``by_value`` (per threshold and value: the verdict over
    the other thresholds' ranges, :func:`~verify.decide.across_readings`) and ``thresholds``
    (the values, quotes and ranges)."""
    per = {}
    for combo in joint(axes):
        name = joint_name(combo)
        own = [c for c in checks if c.reading in ("", name)]
        q = {k: v for k, v in verdict_summary(own).items() if "(not deciding)" not in k
             and "variance [" not in k}
        per[name] = {"verdict": combine([c.verdict for c in own if c.primary]), "by_quantity": q}
        why = degenerate_reasons(own, [r for r in _declared_readings(axes) if r.name == name])
        if why:
            per[name]["verdict"], per[name]["degenerate"] = DEGENERATE, why[name]
    by_value = {}
    for i, axis in enumerate(axes):
        by_value[axis[0].axis] = {t.name: across_readings([v for c in joint(axes) if c[i] is t
                                                           for v in [per[joint_name(c)]["verdict"]]
                                                           if v != DEGENERATE] or [DEGENERATE])
                                                           for t in axis}
    thresholds = {axis[0].axis: {"values": [t.name for t in axis], "quote": axis[0].quote,
                                 "range": axis[0].why}
                  for axis in axes}
    return {"readings": per, "by_value": by_value, "thresholds": thresholds}


# ============================================================================ plots
def _quantiles(vals, qs=(0.1, 0.5, 0.9)):
    v = np.asarray(vals, float)
    if v.size == 0:
        return [math.nan] * len(qs)
    return [float(np.quantile(v, q, method="inverted_cdf")) for q in qs]


def _band(ax, rows, scheme, N, key, color) -> bool:
    """Median line and 80% band (10-90% quantiles over replications) of ``key`` along the
    run; False when there is nothing to draw."""
    ts, q = _series(rows, scheme, N, key)
    if ts.size == 0:
        return False
    ax.fill_between(ts, q[:, 0], q[:, 2], color=color, alpha=0.18, lw=0)
    ax.plot(ts, q[:, 1], color=color, lw=1.8)
    return True


def _series(rows, scheme, N, key, transform=None):
    by_t = defaultdict(list)
    for r in rows:
        if r["scheme"] == scheme and r["N"] == N and r["t"] > 0 and not r.get("diverged"):
            v = transform(r) if transform else r.get(key, math.nan)
            if _finite(v):
                by_t[r["t"]].append(v)
    ts = sorted(by_t)
    q = np.array([_quantiles(by_t[t]) for t in ts]) if ts else np.zeros((0, 3))
    return np.array(ts), q


def _verdict_line(report, names):
    """Each observation's verdict across the readings; a degenerate reading (rule 3) is left out and
    named after the line, so that the figure's headline matches the claim's final status (rule
    5)."""
    st = report.status
    by: defaultdict = defaultdict(lambda: defaultdict(list))
    for c in report.checks:
        if c.primary and c.reading not in st.degenerate:
            by[c.quantity][c.reading].append(c.verdict)
    def verdict(q):
        per = {r: combine(v) for r, v in by[q].items()}
        v = quantity_verdict(per, st.strict_only)
        if v == HOLDS and VIOLATED in per.values():  # rule 2: say under which reading it fails
            strict = [r for r, val in per.items() if val == VIOLATED]
            if len(strict) <= 2:
                return f"{v} (fails only read strictly: " + "; ".join(strict) + ")"
            # many threshold readings: say how many, and the most lenient one it holds under
            lenient = [r for r, val in per.items() if val == HOLDS]
            return (f"{v} (fails only read strictly: {len(strict)} of {len(per)} threshold "
                    f"readings; holds at {lenient[-1]})" if lenient else v)
        return v

    line = "   ".join(f"{lab}: {verdict(q)}" for q, lab in names if q in by)
    if st.degenerate:
        line += "   (degenerate, excluded: " + "; ".join(st.degenerate) + ")"
    return line


def plot_figure1(report, path, dpi=130):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    rows = _rows_of(report)
    schemes = [s for s in X.SCHEMES if any(r["scheme"] == s for r in rows)]
    Ns = sorted({r["N"] for r in rows})
    cmap = plt.get_cmap("viridis_r")
    col = {N: cmap(0.15 + 0.8 * i / max(1, len(Ns) - 1)) for i, N in enumerate(Ns)}
    styles = {"moment": (0, (5, 2)), "corrected": (0, (1, 1.5))}
    drawn = {}
    fig, axes = plt.subplots(4, len(schemes), figsize=(4.6 * len(schemes), 14.5), squeeze=False,
                             sharex=True, layout="constrained")
    for j, s in enumerate(schemes):
        ax = axes[0][j]
        for N in Ns:
            if not _band(ax, rows, s, N, "variance", col[N]):
                continue
            for quantity, form, _ in BOUND_FORMS[s]:
                sel = [r for r in rows if r["scheme"] == s and r["N"] == N and r["t"] > 0
                       and not r.get("diverged")]
                if not sel:
                    continue
                b = bound_values(sel, quantity, form, c_cov_zero=False)
                by_t = defaultdict(list)
                for r, bv in zip(sel, b):
                    by_t[r["t"]].append(bv)
                tb = sorted(by_t)
                ax.plot(tb, [np.median(by_t[t]) for t in tb], color=col[N], lw=1.2, ls=styles[form])
                drawn[form] = True
        inf_all = all(not _finite(r["w_star"]) for r in rows if r["scheme"] == s)
        w_note = "$w^*=\\infty$ at every iteration ($r=1$)" if inf_all else ""
        if not inf_all:
            fin = [r["t"] for r in rows if r["scheme"] == s and _finite(r["w_star"])]
            ax.axvline(min(fin), color="0.3", lw=0.8)
            drawn["wline"] = True
            w_note = f"$w^*<\\infty$ from $t={min(fin)}$ (grey line)"
        ax.set_yscale("log")
        ax.set_title(f"{SCHEME_LABEL[s]}\n{w_note}", fontsize=11)
        ax.grid(alpha=0.3, which="both")
        # bias
        ax = axes[1][j]
        for N in Ns:
            if not _band(ax, rows, s, N, "bias", col[N]):
                continue
            tf, qf = _series(rows, s, N, "bias_floor")
            ax.plot(tf, qf[:, 1], color=col[N], lw=0.9, ls=":")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
        # diagnostics: rejection rate (r-diagnostic) and R-hat
        ax = axes[2][j]
        for N in Ns:
            _band(ax, rows, s, N, "diag_r", col[N])
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax = axes[3][j]
        for N in Ns:
            ts, q = _series(rows, s, N, "diag_rhat_z")
            if ts.size:
                ax.plot(ts, q[:, 1], color=col[N], lw=1.6)
            ts, q = _series(rows, s, N, "diag_rhat_lambda")
            if ts.size:
                ax.plot(ts, q[:, 1], color=col[N], lw=1.2, ls=(0, (5, 2)))
        ax.axhline(1.01, color="0.4", lw=0.8, ls=":")
        ax.grid(alpha=0.3)
        ax.set_xlabel("iteration $t$")
    axes[0][0].set_ylabel(r"$\mathrm{tr}\,\mathbb{V}[g_t]$ across chains")
    axes[1][0].set_ylabel(r"bias $\|\mathbb{E}g_t-\nabla_\lambda d_{KL}(\pi\|q)\|$")
    axes[2][0].set_ylabel("rejection rate $r$ (r-diagnostic)")
    axes[3][0].set_ylabel(r"$\hat R_z$ (solid), $\hat R_\lambda$ (dashed)")
    hN = [Line2D([], [], color=col[N], lw=2.5, label=f"$N={N}$") for N in Ns]
    hs = [Line2D([], [], color="0.2", lw=1.8, label="median over replications"),
          Patch(color="0.2", alpha=0.25, label="80% band (10–90%)")]
    if drawn.get("moment"):
        hs.append(Line2D([], [], color="0.2", lw=1.2, ls=styles["moment"],
                         label="bound, moment form (median)"))
    if drawn.get("corrected"):
        hs.append(Line2D([], [], color="0.2", lw=1.2, ls=styles["corrected"],
                         label="bound, corrected form (JSA; = moment at $r=1$)"))
    hs += [Line2D([], [], color="0.2", lw=0.9, ls=":",
                  label=r"bias noise floor $\sqrt{V/\mathrm{chains}}$"),
           Line2D([], [], color="0.4", lw=0.8, ls=":", label=r"$\hat R = 1.01$")]
    if drawn.get("wline"):
        hs.append(Line2D([], [], color="0.3", lw=0.8, label="$w^*$ becomes finite"))
    fig.legend(handles=hN + hs, loc="outside lower center", ncol=6, fontsize=9, frameon=False)
    T = max(r["t"] for r in rows)
    reps = len({r["replicate"] for r in rows})
    line = _verdict_line(report, [("pmcsa_benefit", "(i) pMCSA benefits"),
                                  ("pmcsa_lowest_variance", "(i) lowest"),
                                  ("msc_benefit", "(ii) MSC no benefit"),
                                  ("mscrb_benefit_chi2_large", "(iii) chi2 large"),
                                  ("mscrb_benefit_chi2_small", "(iii) chi2 small"),
                                  ("jsa_benefit_while_w_star_large", "(iv)")])
    D = rows[0].get("D")
    fig.suptitle("Gradient variance along MCSA runs (Kim et al., NeurIPS 2022, Figure 1)"
                 + (f", D = {D:g}" if D else "")
                 + f" — {len(Ns)} budgets, {reps} replications, T = {T}; "
                   f"{_verdict_label('figure1', D, T)}: "
                 f"{report.verdict}\n{textwrap.fill(line, 45 * len(schemes))}\n"
                 "Printed Theorems 1–4 need $L=\\sup\\|s\\|<\\infty$ (and $w^*<\\infty$); for a "
                 "Gaussian $q$, $L=\\infty$: "
                 "the bounds drawn are the proofs' moment forms (Thm 3, 4) and ours for CIS (MSC, "
                 "MSC-RB)"
                 + (f"\n{textwrap.fill(report.extra['incomplete'], 45 * len(schemes))}"
                    if report.extra.get("incomplete") else ""),
                 fontsize=11)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def plot_figure2(report, path, dpi=130):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    rows = _rows_of(report)
    schemes = [s for s in X.SCHEMES if any(r["scheme"] == s for r in rows)]
    opts = [o for o in X.OPTIMIZER_NAMES if any(r["optimizer"] == o for r in rows)]
    colors = dict(zip(X.SCHEMES, ("tab:orange", "tab:green", "tab:purple", "tab:blue")))
    marks = dict(zip(X.SCHEMES, ("o", "s", "^", "D")))
    any_div = False
    kl_min = rows[0]["kl_min"]
    crit = kl_min + tau_of(kl_min)
    finite = [r["final_kl"] for r in rows if _finite(r["final_kl"])]
    ytop = max(finite + [10 * crit]) * 3
    fig, axes = plt.subplots(3, len(opts), figsize=(4.6 * len(opts), 11), squeeze=False,
                             sharex=True,
                             layout="constrained")
    for j, o in enumerate(opts):
        ax, axc, axr = axes[0][j], axes[1][j], axes[2][j]
        for s in schemes:
            by = defaultdict(list)
            for r in rows:
                if r["scheme"] == s and r["optimizer"] == o:
                    by[r["lr"]].append(r)
            lrs = sorted(by)
            q = np.array([_quantiles([r["final_kl"] for r in by[x]]) for x in lrs])
            qd = np.minimum(q, ytop)
            ax.fill_between(lrs, qd[:, 0], qd[:, 2], color=colors[s], alpha=0.18, lw=0)
            ax.plot(lrs, qd[:, 1], color=colors[s], lw=1.8, marker=marks[s], ms=4)
            ndiv = [sum(r["diverged"] for r in by[x]) for x in lrs]
            dx = [x for x, n in zip(lrs, ndiv) if n]
            if dx:
                ax.plot(dx, [ytop * 0.8] * len(dx), "x", color=colors[s], ms=7, mew=2)
                any_div = True
            axc.plot(lrs, [np.mean([converged(r) for r in by[x]]) for x in lrs], color=colors[s],
                     lw=1.5,
                     marker=marks[s], ms=5, alpha=0.85)
            rq = np.array([_quantiles([r["diag_r"] for r in by[x] if _finite(r.get("diag_r"))])
                           for x in lrs])
            axr.plot(lrs, rq[:, 1], color=colors[s], lw=1.5, marker=marks[s], ms=4)
        ax.axhline(crit, color="k", lw=1, ls="--")
        ax.axhline(kl_min, color="0.5", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(top=ytop)
        ax.set_title(OPT_LABEL[o], fontsize=12)
        ax.grid(alpha=0.3)
        axc.set_ylim(-0.03, 1.03)
        axc.grid(alpha=0.3)
        axr.set_ylim(0, 1.02)
        axr.grid(alpha=0.3)
        axr.set_xlabel(r"step size $\gamma$")
    axes[0][0].set_ylabel(r"final $d_{KL}(\pi\,\|\,q(\cdot;\lambda_T))$")
    axes[1][0].set_ylabel("fraction of runs converged")
    axes[2][0].set_ylabel("rejection rate $r$, last window")
    hs: list = [Line2D([], [], color=colors[s], lw=2.5, marker=marks[s],
                 label=SCHEME_LABEL[s]) for s in schemes]
    hs += [Line2D([], [], color="0.2", lw=1.8, label="median over replications"),
           Patch(color="0.2", alpha=0.25, label="80% band (10–90%)"),
           Line2D([], [], color="k", lw=1, ls="--", label=r"converged: $d_{KL}\leq$ KL* + $\tau$, "
                  + TAUS[len(TAUS) // 2].name
                  + f" (range: {', '.join(t.name for t in TAUS)})"),
           Line2D([], [], color="0.5", lw=0.8, ls=":", label="KL* (best mean-field)")]
    if any_div:
        hs.append(Line2D([], [], color="0.2", ls="", marker="x", mew=2,
                         label="some runs diverged (KL = ∞)"))
    fig.legend(handles=hs, loc="outside lower center", ncol=min(5, 2 * len(opts)), fontsize=9,
               frameon=False)
    reps = len({r["replicate"] for r in rows})
    line = _verdict_line(report, [("pmcsa_breadth", "pMCSA converges for the broadest settings"),
                                  ("adam_stability", "most methods most stable with ADAM")])
    inc = report.extra.get("incomplete")
    title = (
        f"Step size vs final KL (Kim et al., NeurIPS 2022, Figure 2) — D = "
        f"{rows[0].get('D', '?')}, N = {rows[0]['N']}, {reps} replications, T = {rows[0]['t']}; "
        f"{_verdict_label('figure2', rows[0].get('D'), rows[0]['t'])}: {report.verdict}")
    fig.suptitle(textwrap.fill(title, 45 * len(opts)) + f"\n{textwrap.fill(line, 45 * len(opts))}"
                 + (f"\n{textwrap.fill(inc, 45 * len(opts))}" if inc else ""), fontsize=11,
                 color="k")
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def _reproduce(fig):
    def reproduce(out, data, **kw):
        """Rerun ``fig`` at the paper's settings; see :func:`regenerate`."""
        return regenerate((fig,), out, data, **kw).get(fig)
    return reproduce


# ============================================================================ registry
def _register_figure(fig, quick, full, run, plot, readings, **text):
    """Register ``fig``: Monte Carlo runs at ``quick`` / ``full`` settings (the full ones cached),
    reproducible at the paper's settings; ``text`` is its ``measures``, ``targets``, ``forms``."""
    register(Verification(
        fig, method="monte-carlo",
        grid=Grid(dict(settings=quick), dict(settings=full, cache=CACHE)), run=run, plot=plot,
        execution=True, reproduction=_reproduce(fig), readings=readings, **text))


_register_figure(
    "figure1", X.FIG1_QUICK, X.FIG1_FULL, run_figure1, plot_figure1,
    joint_readings(FIG1_AXES, hedge=FIG1_HEDGE),
    measures="tr Var[g] of 512 (quick: 128) persistent chains every ~200 iterations of each run, "
             "against each theorem's variance bound at the current lambda; the observations "
             "(i)-(iv) of §6.2 as slopes of log V in log N",
    targets="the paper's target: Gaussian pi with Wishart covariance (D = 50, nu = 500; quick D = "
            "10), mean-field Gaussian q",
    forms="moment, corrected, stated")
_register_figure(
    "figure2", X.FIG2_QUICK, X.FIG2_FULL, run_figure2, plot_figure2,
    joint_readings(FIG2_AXES, degenerate=figure2_degenerate, hedge=FIG2_HEDGE),
    measures="final KL(pi||q) in closed form after T iterations for 4 optimizers x 20 step sizes x "
             "20 replications; the fraction of converged runs per scheme and optimizer",
    targets="the paper's target: Gaussian pi with Wishart covariance (D = 100, nu = 500; quick D = "
            "10), N = 10",
    forms="stated")


# ============================================================================ regenerate
# docs/figures
def _declared_readings(axes):
    """The declared readings of the figure claim whose threshold axes are ``axes``."""
    from verify.registry import REGISTRY

    return REGISTRY["figure1" if axes is FIG1_AXES else "figure2"].readings


def _sensitivity(fig, checks) -> dict:
    """The sensitivity table of a figure's decided checks over its thresholds' ranges."""
    return sensitivity_table(checks, FIG1_AXES if fig == "figure1" else FIG2_AXES)


def regenerate(figures=("figure1", "figure2"), out=None, data=None, mode="full", progress=None,
               cached_only=False, workers=1, scheduler=None, cache=None, from_csv=False):
    """Run (cached) and store each figure: ``out/<fig>.csv`` (the tidy table), and
    ``data/<fig>.png`` and ``data/<fig>.json`` (its verdicts: what
    :func:`verify.running.reproductions.stored_run` reads; ``data`` defaults to ``out``).

    ``cached_only``: use only the cells already in the cache (nothing is simulated); the
    stored verdicts then say which cells are missing (``complete: false``).  ``workers``,
    ``scheduler``: how the cells run (:func:`simulate.experiments.run_figure`; the numbers do
    not depend on it); ``cache``: the cell cache (default: ``CACHE`` in full mode, none in
    quick mode).  ``from_csv``: simulate nothing; re-decide every verdict from the stored
    table ``out/<fig>.csv`` (e.g. after a change of the readings) and redraw the figure from it."""
    import time

    from verify.decide import decide
    from verify.registry import REGISTRY
    from verify.running.docio import audit_statements, audit_steps
    from verify.running.outcome import Report

    out = Path(out)
    data = Path(data) if data is not None else out
    out.mkdir(parents=True, exist_ok=True)
    data.mkdir(parents=True, exist_ok=True)
    done = {}
    for fig in figures:
        grid = REGISTRY[fig].grid.full if mode == "full" else REGISTRY[fig].grid.quick
        st = _settings(grid, 0)
        t0 = time.perf_counter()
        if from_csv:
            rows = read_csv(out / f"{fig}.csv")
        else:
            rows = X.run_figure(fig, st, cache_dir=cache if cache is not None else CACHE if mode
                                == "full" else None,
                                progress=progress, cached_only=cached_only, workers=workers,
                                scheduler=scheduler)
        if not rows:
            continue
        if not from_csv:
            keys = ("D", "nu", "chains", "lr", "optimizer", "measure_start", "target_seed",
                    "seed") \
                if fig == "figure1" else ("D", "nu", "target_seed", "seed")
            # verdicts from the table
            rows = read_csv(write_csv(_with_settings(rows, st, keys), out / f"{fig}.csv"))
        checks = Checks((figure1_checks if fig == "figure1" else figure2_checks)(rows))
        checks.rows, checks.figure = rows, fig
        for c in checks:
            decide(c, len(checks))
        rep = Report(fig, checks, 0, time.perf_counter() - t0,
                     reading_defs=tuple(REGISTRY[fig].readings),
                     audit=audit_statements(fig), audit_steps=audit_steps(fig))
        all_cells = X.cells(fig, st)
        have = sorted({(r["scheme"], r["N"] if fig == "figure1" else r["optimizer"]) for r in rows})
        missing = [c for c in all_cells if tuple(c) not in set(have)]
        if missing:
            by = defaultdict(list)
            for c in missing:
                by[c[1]].append(SCHEME_LABEL.get(c[0], c[0]))
            rep.extra["incomplete"] = (
                f"INCOMPLETE: {len(missing)} of {len(all_cells)} cells not run yet — "
                + "; ".join(f"{OPT_LABEL.get(k, k) if fig == 'figure2' else f'N={k}'}: "
                            + ", ".join(v) for k, v in by.items())
                                       + " — verdicts on the cells shown only")
        plot = REGISTRY[fig].plot
        assert plot is not None  # the figure claims register their own plot
        plot(rep, str(data / f"{fig}.png"))
        walls = {f"{k[0]}/{k[1]}": next(r["cell_wall_s"] for r in rows
                                        if (r["scheme"],
                                            r["N"] if fig == "figure1" else r["optimizer"]) == k)
                 for k in have}
        doc = {"claim": fig, "mode": mode, "settings": dataclasses.asdict(st),
               "complete": not missing,
               "missing_cells": [list(c) for c in missing], "verdict": rep.verdict, "alpha": ALPHA,
               "by_quantity": verdict_summary(rep.checks, rep.status.degenerate,
                                              rep.status.strict_only),
               "cell_wall_s": walls,
               "final_readings": dict(rep.readings), "failing_readings": list(rep.failing_readings),
               "reading_rules": {k: v
                                 for k, v in rep.status.as_json().items()
                                 if k not in ("status", "failing_readings")},
               "degenerate_why": degenerate_reasons(rep.checks, rep.reading_defs),
               "sensitivity": _sensitivity(fig, rep.checks),
               "total_cell_wall_s": sum(walls.values())}
        atomic_write(data / f"{fig}.json", dumps(doc, nonfinite="refuse", indent=1) + "\n")
        done[fig] = doc
    return done
