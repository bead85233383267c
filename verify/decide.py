"""Verdicts of checks, of readings and of claims: the decisions and the final status.

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
defect (tested in ``tests/test_verify.py::test_power_a_small_bound_scale_gives_violated``).

Final status
------------
:func:`final_status` is the one function that turns the per-reading verdicts into a
claim's final status: ``violated`` only when every reasonable reading fails,
``holds`` when every reading holds, ``depends on reading`` when some hold and some fail
(the failing ones are named), ``inconclusive`` otherwise.  The reading rules of
docs/methods.md apply first: a degenerate reading (rule 3) and a reading the document rules
out in so many words (rule 6) are set aside (and named in the :class:`Status`), and a claim
that holds under the lenient reading its hedge allows holds (rule 2); the readings of a
self-contradicting document are all kept (rule 1), their erratum named once (``see``).
``Report.verdict``, ``python -m verify all/list``, docs/verdicts.json, docs/audit.json and
docs/ERRATA.md all use it (tests/test_readings.py checks that they agree).
"""

from __future__ import annotations

import math

import numpy as np

from .model import (
    AS_PRINTED,
    DEGENERATE,
    DEPENDS,
    HOLDS,
    INCONCLUSIVE,
    VIOLATED,
    CheckResult,
    Reading,
    Status,
)
from .registry import REGISTRY

#: false-violation rate per claim of the Monte Carlo verdicts (Bonferroni over its checks)
ALPHA = 1e-3


def z_one_sided(alpha: float) -> float:
    """Return the one-sided normal quantile z with P(Z > z) = ``alpha``.

    A Monte Carlo check is violated when its mean exceeds the bound by more than z standard
    errors, with ``alpha`` Bonferroni-divided over the claim's checks (see the module docstring).
    """
    from scipy.special import ndtri  # scipy.stats' norm.isf is -ndtri, without its 1 s import

    return float(-ndtri(alpha))


def scale_bound(bound: float, relation: str, C: float) -> float:
    """Tighten a bound by C (see module docstring)."""
    if relation in ("<=", "<", "="):
        return bound * C
    return bound / C  # lower bounds


def decide(check: CheckResult, n_mc: int, bound_scale: float = 1.0,
           alpha: float = ALPHA) -> CheckResult:
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
    """Combine checks into one verdict: violated if any is, holds if all do, else inconclusive."""
    if not verdicts:
        return INCONCLUSIVE
    if VIOLATED in verdicts:
        return VIOLATED
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    return INCONCLUSIVE


def across_readings(verdicts) -> str:
    """Combine one quantity's verdicts under the full readings into one.

    The same verdict everywhere is kept; ``depends on reading`` when it holds under some and
    is violated under others (as :func:`final_status` does for the claim), else inconclusive.
    """
    vs = set(verdicts)
    if len(vs) == 1:
        return vs.pop()
    return DEPENDS if {HOLDS, VIOLATED} <= vs else INCONCLUSIVE


def summary_status(statuses) -> str:
    """Combine claims' statuses into the status of a whole run (``verify all``).

    Violated if any claim is, else depends on reading if any claim does, holds if all do,
    else inconclusive.
    """
    statuses = list(statuses)
    if not statuses:
        return INCONCLUSIVE
    for s in (VIOLATED, DEPENDS):
        if s in statuses:
            return s
    return HOLDS if all(s == HOLDS for s in statuses) else INCONCLUSIVE


def full_readings(readings) -> list[tuple[Reading, ...]]:
    """Every full reading: one option per axis (axes in order of first appearance)."""
    import itertools

    readings = tuple(readings) or (AS_PRINTED,)
    axes: dict[str, list[Reading]] = {}
    for r in readings:
        axes.setdefault(r.axis, []).append(r)
    return [tuple(c) for c in itertools.product(*axes.values())]


def reading_name(combo) -> str:
    """Name a full reading by its options' names joined with ``" + "``."""
    return " + ".join(r.name for r in combo)


def reading_verdicts(checks, readings) -> dict[str, str]:
    """Decide each full reading from its own primary checks and the shared ones.

    A reading is ``degenerate`` when an option's ``degenerate`` test finds the run cannot
    decide it (reading rule 3).

    Returns
    -------
    dict
        ``{full reading name: verdict}``.
    """
    why = degenerate_reasons(checks, readings)
    out = {}
    for combo in full_readings(readings):
        names = {r.name for r in combo}
        own = [statement_verdict(c) for c in checks if c.primary
               and (c.reading == "" or c.reading in names)]
        out[reading_name(combo)] = DEGENERATE if reading_name(combo) in why else combine(own)
    return out


def statement_verdict(check: CheckResult) -> str:
    """Say what a check says about the printed statement (reading rule 4).

    A violated bound with the proof's explicit constants (``check.proof``) is a gap of the
    proof, not a violation of the statement, so it decides nothing (inconclusive); when it
    holds, the statement it implies holds.
    """
    if check.proof and check.verdict == VIOLATED:
        return INCONCLUSIVE
    return check.verdict


def degenerate_reasons(checks, readings) -> dict[str, str]:
    """Say why the run cannot decide a full reading (reading rule 3), for each that it cannot.

    A reading's premise may never be met, or too few cases qualify; its options'
    ``degenerate`` tests say so.

    Returns
    -------
    dict
        ``{full reading name: reason}``; ``{}`` when every reading can be decided.
    """
    out = {}
    for combo in full_readings(readings):
        names = {r.name for r in combo}
        own = [c for c in checks if c.reading == "" or c.reading in names]
        why = "; ".join(w for w in (r.degenerate(own) for r in combo if r.degenerate is not None)
                        if w)
        if why:
            out[reading_name(combo)] = why
    return out


def final_status(claim_id: str, empirical: dict | None = None, audit: dict | None = None,
                 readings=None) -> Status:
    """Decide a claim's final status: the one function that does (see the module docstring).

    A full reading fails when its checks fail or when the audit finds its printed statement
    wrong; the reading rules then combine the readings.

    Parameters
    ----------
    claim_id : str
        The claim.
    empirical : dict, optional
        ``{full reading: verdict}`` from the checks (a :class:`Report` or docs/verdicts.json).
    audit : dict, optional
        ``{reading option or "": "fails" | "survives"}`` from the audit's statement steps
        (docs/audit.json or :func:`verify.audit.statement_readings`).
    readings : list of Reading, optional
        The claim's readings (default: the registry's).

    Returns
    -------
    Status
        The status, the verdict of every full reading and the readings that fail, are
        degenerate or are ruled out.
    """
    if readings is None:
        v = REGISTRY.get(claim_id)
        readings = v.readings if v is not None else ()
    audit = audit or {}
    merged = {}
    for combo in full_readings(readings):
        name = reading_name(combo)
        verdict = (empirical or {}).get(name, INCONCLUSIVE if empirical is not None else None)
        options = {""} | {r.name for r in combo}
        if any(audit.get(o) == "fails" for o in options):
            verdict = VIOLATED
        elif verdict is None:  # audit only: a surviving statement is not an empirical 'holds'
            verdict = INCONCLUSIVE
        merged[name] = verdict
    combos = {reading_name(c): c for c in full_readings(readings)}
    # rule 3: a degenerate reading decides nothing
    degenerate = tuple(k for k, val in merged.items() if val == DEGENERATE)
    live = {k: val for k, val in merged.items() if val != DEGENERATE}
    # rule 6: a reading the document rules out in so many words cannot be the holding reading
    ruled = tuple(k for k in live if any(r.ruled_out for r in combos[k]))
    decisive = {k: val for k, val in live.items() if k not in ruled} or live
    if decisive is live:
        ruled = ()
    vs = list(decisive.values())
    failing = tuple(k for k, val in decisive.items() if val == VIOLATED)
    # rule 2: a hedged sentence holds when it holds under the lenient reading its hedge allows
    hedged_holds = any(val == HOLDS and any(r.hedge for r in combos[k])
                       for k, val in decisive.items())
    strict_only = ()
    if hedged_holds:
        status, strict_only, failing = HOLDS, failing, ()
    elif vs and all(x == HOLDS for x in vs):
        status = HOLDS
    elif vs and all(x == VIOLATED for x in vs):
        status = VIOLATED
    elif failing and HOLDS in vs:
        status = DEPENDS
    else:
        status = INCONCLUSIVE
    # rule 1: the contradiction behind the readings, recorded once
    see = tuple(dict.fromkeys(r.see for c in combos.values() for r in c if r.see))
    return Status(claim_id, status, merged, failing, degenerate, ruled, strict_only, see)


def assign_readings(checks, readings) -> None:
    """Tag each untagged check with the first reading option whose ``select`` claims it."""
    known = {r.name for r in readings}
    for c in checks:
        if c.reading:
            if c.reading not in known:
                raise ValueError(f"check tagged with unknown reading {c.reading!r}")
            continue
        for r in readings:
            if r.select is not None and r.select(c):
                c.reading = r.name
                c.primary = c.primary or r.promote
                break
