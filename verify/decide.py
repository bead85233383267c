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
from fractions import Fraction

from bounds.enclosure import (
    EXACT,
    FLOAT64,
    PRECISIONS,
    Enclosure,
    arb_how,
    log10_ratio,
    ratio_float,
    relation_verdict,
)

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

    Parameters
    ----------
    alpha : float
        The one-sided level, in (0, 1).

    Returns
    -------
    float
        ``z = Phi^{-1}(1 - alpha)``.
    """
    from scipy.special import ndtri  # scipy.stats' norm.isf is -ndtri, without its 1 s import

    return float(-ndtri(alpha))


def scale_bound(bound: float, relation: str, C: float) -> float:
    """Tighten a bound by C (see module docstring).

    Parameters
    ----------
    bound : float
        The bound's value.
    relation : str
        The check's relation (``"<="``, ``"<"``, ``"="``, ``">="``, ``">"``).
    C : float
        The factor, ``--bound-scale``.

    Returns
    -------
    float
        ``bound * C`` for an upper bound or an identity, ``bound / C`` for a lower bound.
    """
    if relation in ("<=", "<", "="):
        return bound * C
    return bound / C  # lower bounds


def _scaled(enc: Enclosure, relation: str, C: float) -> Enclosure:
    """Tighten the bound's enclosure by C, rounded outward (C is an exact double)."""
    return enc.scaled(C, divide=relation in (">=", ">"))


def empirical_enclosure(check: CheckResult) -> Enclosure:
    """Return the enclosure of a check's empirical side at the first stage (float64).

    ``check.lhs`` when given; else ``empirical`` with its error bound ``error`` (a few units
    in the last place of the value when None).  Symbolic results are exact.
    """
    if check.lhs is not None:
        return check.lhs
    v = check.empirical
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return Enclosure.point(v).widen(check.error or 0)
    if check.method == "symbolic":
        return Enclosure.point(float(v))
    return Enclosure.f64(float(v), check.error or 0.0)


def bound_enclosure(check: CheckResult, bits: int | None = None) -> Enclosure:
    """Return the enclosure of a check's bound.

    Its formula in ball arithmetic at ``bits`` (64 at the first stage) when it came from
    :func:`verify.registry.bound_value`; else ``check.rhs``; else ``bound`` with
    ``bound_error`` (ints and Fractions exact).
    """
    ref = getattr(check.bound, "ref", None)
    if ref is not None:
        from .registry import bound_enclosure as enclose

        return enclose(ref, bits or PRECISIONS[0])
    if check.rhs is not None:
        return check.rhs
    b = check.bound
    if isinstance(b, (int, Fraction)) and not isinstance(b, bool):
        return Enclosure.point(b).widen(check.bound_error or 0)
    if check.method == "symbolic":
        return Enclosure.point(float(b))
    return Enclosure.f64(float(b), check.bound_error or 0.0)


def _settled(lhs: Enclosure, rhs: Enclosure, bits: int | None) -> str:
    """Name where a check was decided.

    ``exact`` when both sides are exact; else the highest ball precision either side was
    computed at (``arb-<bits>``) beyond the first stage; else ``float64`` (the first stage: the
    quantity in float64 with its proved error bound, the bound in 64-bit balls).
    """
    if lhs.how == EXACT and rhs.how == EXACT:
        return EXACT
    own = [int(e.how[4:]) for e in (lhs, rhs) if e.how.startswith("arb-")
           and e.how[4:].isdigit()]
    top = max([b for b in own if b > PRECISIONS[0]] + ([bits] if bits is not None else []),
              default=None)
    return FLOAT64 if top is None else arb_how(top)


def decide(check: CheckResult, n_mc: int, bound_scale: float = 1.0,
           alpha: float = ALPHA) -> CheckResult:
    """Fill in ``verdict``, ``ratio``, ``settled_by``, ``z`` and ``scaled_bound`` of one check.

    Exact checks are decided on enclosures (:func:`bounds.enclosure.relation_verdict`): at
    float64 first, then with both sides recomputed at the precisions of
    :data:`bounds.enclosure.PRECISIONS` (the empirical side by ``check.refine``, the bound by
    its formula) until decided; at the cap the check is ``inconclusive``, never ``holds``, and
    its note gives the widths.  Monte Carlo checks are decided by their confidence limits
    against the bound's enclosure.

    Parameters
    ----------
    check : verify.model.CheckResult
        The check, its empirical side and bound computed.
    n_mc : int
        The number of Monte Carlo checks of the claim (the Bonferroni divisor of ``alpha``).
    bound_scale : float, default 1.0
        Tighten the bound by this factor (:func:`scale_bound`).
    alpha : float, default ALPHA
        The family-wise level of the Monte Carlo checks.

    Returns
    -------
    verify.model.CheckResult
        ``check`` itself, its verdict filled in.
    """
    lhs = empirical_enclosure(check)
    rhs = bound_enclosure(check)
    rel = check.relation
    check.settled_by = ""
    if check.method == "monte-carlo":
        return _decide_mc(check, lhs, rhs, n_mc, bound_scale, alpha)
    verdict = relation_verdict(lhs, _scaled(rhs, rel, bound_scale), rel)
    bits = None
    if verdict is None:
        ref = getattr(check.bound, "ref", None)
        for b in PRECISIONS:
            new_lhs = check.refine(b) if check.refine is not None else None
            new_lhs = lhs if new_lhs is None else new_lhs  # None: nothing sharper to compute
            new_rhs = bound_enclosure(check, b) if ref is not None else rhs
            if new_lhs is lhs and new_rhs is rhs:
                break  # nothing can be computed more precisely
            lhs, rhs, bits = new_lhs, new_rhs, b
            verdict = relation_verdict(lhs, _scaled(rhs, rel, bound_scale), rel)
            if verdict is not None:
                break
    if bits is not None and check.refine is not None and lhs.finite:
        # the refined value replaces the first float (8.8e-16 of float noise was 1.7e-41)
        check.empirical = lhs.lo if lhs.is_point and isinstance(lhs.lo, Fraction) else lhs.mid
    _fill(check, lhs, rhs, bound_scale)
    if verdict is None:
        check.verdict = INCONCLUSIVE
        check.settled_by = arb_how(bits) if bits is not None else FLOAT64
        why = (f"undecided at {check.settled_by}: quantity in {lhs}, bound in "
               f"{_scaled(rhs, rel, bound_scale)}"
               + ("" if check.refine is not None or bits is not None
                  else " (no higher-precision computation of this quantity)"))
        if why not in check.note:
            check.note = f"{check.note}; {why}" if check.note else why
        return check
    check.verdict = HOLDS if verdict == "holds" else VIOLATED
    check.settled_by = "symbolic" if check.method == "symbolic" else _settled(lhs, rhs, bits)
    return check


def _fill(check: CheckResult, lhs: Enclosure, rhs: Enclosure, bound_scale: float) -> None:
    """Record the enclosures a verdict was reached on and the ratio computed from them.

    ``empirical`` and ``bound`` become doubles for display (an exact value given as a Fraction
    lives on in the enclosures, which decide).
    """
    check.lhs, check.rhs = lhs, rhs
    for side in ("empirical", "bound"):
        v = getattr(check, side)
        if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
            setattr(check, side, float(v) if -(2 ** 1023) < v < 2 ** 1023
                    else math.copysign(math.inf, v))
    srhs = _scaled(rhs, check.relation, bound_scale)
    check.scaled_bound = srhs.mid if srhs.finite else scale_bound(float(check.bound),
                                                                  check.relation, bound_scale)
    check.ratio = ratio_float(lhs, srhs)
    check.log10_ratio = log10_ratio(lhs, srhs)


def _decide_mc(check, lhs, rhs, n_mc, bound_scale, alpha) -> CheckResult:
    """Decide a Monte Carlo check: confidence limits of the estimate against the bound."""
    se = float(check.stderr or 0.0)
    th = float(check.empirical)
    rel = check.relation
    check.settled_by = "monte-carlo"
    ref = getattr(check.bound, "ref", None)
    levels = [None] + (list(PRECISIONS) if ref is not None else [])
    verdict: str | None = INCONCLUSIVE
    for bits in levels:
        if bits is not None:
            rhs = bound_enclosure(check, bits)
        b = _scaled(rhs, rel, bound_scale)
        _fill(check, lhs, rhs, bound_scale)
        if not math.isfinite(th) or not b.finite and not (rel in ("<=", "<") and b.lo == math.inf):
            check.verdict = INCONCLUSIVE
            return check
        lo, hi = _float_lo(b), _float_hi(b)
        if rel == "=":
            z = z_one_sided(alpha / (2 * max(n_mc, 1)))
            check.z = z
            # violated when no value of the bound's enclosure is within z standard errors
            check.verdict = VIOLATED if (th - z * se > hi or th + z * se < lo) else HOLDS
            return check
        z = z_one_sided(alpha / max(n_mc, 1))
        check.z = z
        if rel in ("<=", "<"):
            lcl = th - z * se
            strict = rel == "<"
            if lcl > hi or (strict and se == 0 and lcl >= hi):
                verdict = VIOLATED
            elif th < lo or (th == lo and not strict):
                verdict = HOLDS
            elif th <= hi:
                verdict = None  # the estimate is inside the bound's enclosure: refine it
            else:
                verdict = INCONCLUSIVE
        else:
            ucl = th + z * se
            if ucl < lo:
                verdict = VIOLATED
            elif th > hi or (th == hi and rel == ">="):
                verdict = HOLDS
            elif th >= lo:
                verdict = None
            else:
                verdict = INCONCLUSIVE
        if verdict is not None:
            break
    check.verdict = verdict if verdict is not None else INCONCLUSIVE
    return check


def _float_lo(e: Enclosure) -> float:
    """Return the largest double at or below the enclosure's lower end."""
    return e.floats()[0]


def _float_hi(e: Enclosure) -> float:
    """Return the smallest double at or above the enclosure's upper end."""
    return e.floats()[1]


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
        # a degenerate reading stays excluded (rule 3): its premise lies outside what the document
        # and the run can decide (the audit's failure there is the same case, recorded at its step)
        if verdict != DEGENERATE and any(audit.get(o) == "fails" for o in options):
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
    strict_only: tuple[str, ...] = ()
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
