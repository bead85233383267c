"""Checks, verdicts and the verification registry (methods.md §7).

A :class:`Verification` turns one claim of :mod:`bounds` into a list of
:class:`CheckResult` records: an empirical value (exact, Monte Carlo or symbolic), the
bound it is held against, their ratio (tightness) and a verdict.

Verdicts
--------
Monte Carlo, upper bound ``theta <= b``:
    ``violated`` when the one-sided lower confidence limit ``theta_hat - z se`` exceeds
    ``b``; ``holds`` when ``theta_hat <= b``; ``inconclusive`` otherwise.  ``z`` is the
    one-sided normal quantile at ``alpha / m`` where ``m`` is the claim's number of Monte
    Carlo checks (Bonferroni), so the false-violation rate per claim is at most
    ``alpha = 1e-3``.  Lower bounds mirror this; identities (``=``) use a two-sided test
    and are ``holds`` when consistent.
Exact (finite state spaces, quadrature, linear algebra):
    compared with a tolerance derived from the computation's error bound (plus float64
    rounding), never a guessed epsilon: ``holds`` or ``violated``.
Symbolic:
    sympy proves the relation (``holds``) or exhibits a counterexample (``violated``).

``bound_scale`` (``--bound-scale C``) tightens every bound: upper bounds are multiplied
by C, lower bounds divided by C, identities compared with C times their value.  A small
enough C must turn a claim's verdict into ``violated``: a check that cannot fail is a
defect (tested in ``tests/test_verify_power.py``).

A claim's verdict is the verdict on its primary form (explicit, else moment, else
stated): violated if any primary check is violated, holds if all hold, otherwise
inconclusive.  The stated form's verdict is reported alongside; where O-terms were
dropped it may legitimately fail in the transient regime.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

ALPHA = 1e-3  # false-violation rate per claim for Monte Carlo verdicts
HOLDS, VIOLATED, INCONCLUSIVE = "holds", "violated", "inconclusive"
EXIT = {HOLDS: 0, VIOLATED: 1, INCONCLUSIVE: 3}
METHODS = ("exact", "monte-carlo", "symbolic")
RELATIONS = ("<=", ">=", "=", "<", ">")


@dataclass
class CheckResult:
    """One empirical value held against one bound form at one parameter point."""

    quantity: str
    form: str
    params: dict
    empirical: float
    bound: float
    method: str
    relation: str = "<="
    stderr: float | None = None  # Monte Carlo standard error
    tolerance: float = 0.0  # exact checks: allowed absolute discrepancy (from error bounds)
    primary: bool = True  # counts towards the claim verdict
    note: str = ""
    verdict: str = ""
    ratio: float = float("nan")
    z: float | None = None  # critical value used (Monte Carlo)
    scaled_bound: float | None = None

    def as_json(self) -> dict:
        def num(x):
            if x is None:
                return None
            x = float(x)
            return x if math.isfinite(x) else (None if x != x else ("inf" if x > 0 else "-inf"))

        return {"quantity": self.quantity, "form": self.form, "params": _jsonable(self.params),
                "empirical": num(self.empirical), "stderr": num(self.stderr), "bound": num(self.scaled_bound),
                "ratio": num(self.ratio), "verdict": self.verdict, "method": self.method,
                "relation": self.relation, "tolerance": num(self.tolerance), "primary": self.primary,
                "note": self.note}


def _jsonable(d):
    out = {}
    for k, v in d.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = v
    return out


def z_one_sided(alpha: float) -> float:
    return float(stats.norm.isf(alpha))


def scale_bound(bound: float, relation: str, C: float) -> float:
    """Tighten a bound by C (see module docstring)."""
    if relation in ("<=", "<", "="):
        return bound * C
    return bound / C  # lower bounds


def decide(check: CheckResult, n_mc: int, bound_scale: float = 1.0, alpha: float = ALPHA) -> CheckResult:
    """Fill in ``verdict``, ``ratio``, ``z`` and ``scaled_bound`` of one check."""
    b = scale_bound(check.bound, check.relation, bound_scale)
    check.scaled_bound = b
    th = check.empirical
    with np.errstate(divide="ignore", invalid="ignore"):
        check.ratio = float(th / b) if b != 0 else (0.0 if th == 0 else math.inf)
    if check.method == "exact" and max(abs(th), abs(b)) <= check.tolerance:
        check.ratio = float("nan")  # both below the numerical resolution: no tightness to report
    rel = check.relation
    if not (math.isfinite(th) or math.isinf(th)) or (isinstance(b, float) and b != b):
        check.verdict = INCONCLUSIVE
        return check
    if check.method == "monte-carlo":
        se = float(check.stderr or 0.0)
        if rel == "=":
            z = z_one_sided(alpha / (2 * max(n_mc, 1)))
            check.z = z
            check.verdict = VIOLATED if abs(th - b) > z * se + check.tolerance else HOLDS
            return check
        z = z_one_sided(alpha / max(n_mc, 1))
        check.z = z
        if rel in ("<=", "<"):
            lcl = th - z * se
            strict = rel == "<"
            if lcl > b + check.tolerance or (strict and lcl >= b + check.tolerance and se == 0):
                check.verdict = VIOLATED
            elif th < b or (th == b and not strict):
                check.verdict = HOLDS
            else:
                check.verdict = INCONCLUSIVE
        else:
            ucl = th + z * se
            strict = rel == ">"
            if ucl < b - check.tolerance:
                check.verdict = VIOLATED
            elif th > b or (th == b and not strict):
                check.verdict = HOLDS
            else:
                check.verdict = INCONCLUSIVE
        return check
    # exact and symbolic checks
    tol = check.tolerance
    if rel == "<=":
        ok = th <= b + tol
    elif rel == "<":
        ok = th < b - tol  # strictness must be resolved beyond the numerical error
    elif rel == ">=":
        ok = th >= b - tol
    elif rel == ">":
        ok = th > b + tol
    else:
        ok = abs(th - b) <= tol
    check.verdict = HOLDS if ok else VIOLATED
    return check


def combine(verdicts: list[str]) -> str:
    if not verdicts:
        return INCONCLUSIVE
    if VIOLATED in verdicts:
        return VIOLATED
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    return INCONCLUSIVE


@dataclass
class Report:
    """All checks of one claim with the claim-level verdicts."""

    claim: str
    checks: list[CheckResult]
    seed: int
    elapsed_s: float
    bound_scale: float = 1.0
    primary_form: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        return combine([c.verdict for c in self.checks if c.primary])

    def form_verdicts(self) -> dict[str, str]:
        forms = {}
        for c in self.checks:
            forms.setdefault(c.form, []).append(c.verdict)
        return {f: combine(v) for f, v in forms.items()}

    def as_json(self) -> dict:
        return {"claim": self.claim, "verdict": self.verdict, "seed": self.seed, "elapsed_s": self.elapsed_s,
                "bound_scale": self.bound_scale, "primary_form": self.primary_form,
                "form_verdicts": self.form_verdicts(), "alpha": ALPHA,
                "checks": [c.as_json() for c in self.checks], **self.extra}


@dataclass
class Grid:
    """Parameter grids for ``--quick`` (seconds) and ``--full`` (minutes)."""

    quick: dict
    full: dict


@dataclass
class Verification:
    """How one claim is checked.

    ``run(grid, seed, progress) -> list[CheckResult]`` computes the empirical side and the
    bounds; verdicts are filled in by :func:`run_verification`.
    """

    claim: str
    measures: str  # the empirical quantity
    targets: str  # on which targets / spaces
    method: str  # exact | monte-carlo | symbolic | combinations joined by '+'
    forms: str  # which bound forms are checked (primary first)
    grid: Grid
    run: Callable[..., list[CheckResult]]
    overrides: tuple[str, ...] = ()  # grid keys the command line may override
    plot: Callable | None = None  # plot(report, path)
    search: object | None = None  # see verify.search

    @property
    def primary_form(self) -> str:
        return self.forms.split(",")[0].strip()


def run_verification(v: Verification, mode: str = "quick", seed: int = 0, bound_scale: float = 1.0,
                     overrides: dict | None = None, progress=None) -> Report:
    import time

    grid = dict(v.grid.quick if mode == "quick" else v.grid.full)
    for k, val in (overrides or {}).items():
        if k not in v.overrides:
            raise KeyError(k)
        grid[k] = val
        # --dim / --proposal-scale set the isotropic Gaussian pairs of the weight-line checks
        if k in ("dim", "proposal_scale") and "gauss" in grid:
            dims = (overrides or {}).get("dim") or sorted({d for d, _ in grid["gauss"]})
            scales = (overrides or {}).get("proposal_scale") or sorted({s for _, s in grid["gauss"]})
            grid["gauss"] = [(int(d), float(s)) for d in dims for s in scales]
        # --N sets every budget grid of the claim (finite, Gaussian, Monte Carlo, joint law)
        if k == "N":
            for alias in ("N_gauss", "N_mc", "N_joint"):
                if alias in grid:
                    grid[alias] = [x for x in val if x >= 1]
    t0 = time.perf_counter()
    checks = v.run(grid, seed=seed, progress=progress)
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(v.claim, checks, seed, time.perf_counter() - t0, bound_scale, v.primary_form)


def rescore(report: Report, bound_scale: float) -> Report:
    """The same checks decided again with another ``bound_scale`` (no recomputation)."""
    import copy as _copy

    checks = [_copy.copy(c) for c in report.checks]
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(report.claim, checks, report.seed, report.elapsed_s, bound_scale, report.primary_form, dict(report.extra))


REGISTRY: dict[str, Verification] = {}


def register(v: Verification) -> Verification:
    REGISTRY[v.claim] = v
    return v


def bound_value(claim_id: str, quantity: str, form: str, **params) -> float:
    """A bound from :mod:`bounds` as a float (values outside double range saturate)."""
    import bounds

    return float(bounds.get(claim_id).evaluate_form(quantity, form, **params))


#: relative float64 allowance of exact finite computations (sums and matrix products of a
#: few thousand terms: accumulated rounding stays far below this)
EPS_EXACT = 1e-11


def exact_tolerance(*values, err: float = 0.0) -> float:
    """Tolerance of an exact check: the computation's own error bound ``err`` plus float64
    rounding relative to the magnitudes involved."""
    return err + EPS_EXACT * max([1.0] + [abs(float(v)) for v in values])
