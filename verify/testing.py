"""Conformance check of a claim's verification: :func:`check_claim`.

A claim registered by a user's package (``docs/own-claim.md``) is verified by the same
machinery as the toolkit's own; :func:`check_claim` tells its author whether the
verification is one the machinery can trust, and the test suite runs it on every built-in
claim (``tests/test_conformance.py``)::

    from verify.testing import check_claim
    print(check_claim("mcgd_average_bias"))   # or AssertionError with a one-line reason
    # mcgd_average_bias: conforms (706 checks, 386 primary, 24 Monte Carlo at alpha 0.001;
    #   violated at bound scale 0.99; same seed, same checks; verdict holds)

What is checked, from one run of the claim's grid (plus one rerun):

1. The run produces checks and every bound evaluates over the grid: each check has a
   known method, relation and verdict, a bound that is a number (not NaN), and at least
   one primary check compares a finite empirical value with a finite bound; the
   report's JSON is strict (no NaN/Infinity).
2. The checks have power: tightening every bound (``bound_scale``, re-deciding the same
   checks with :func:`verify.outcome.rescore`, no recomputation) makes every reading of the
   claim ``violated``.  The scales of :data:`SCALES` are tried loosest first; the first
   that breaks the claim is reported (a claim that no scale breaks cannot fail).
3. The same seed reproduces the same result: a second run gives identical checks.
4. The Monte Carlo error rate is stated: every Monte Carlo check has a finite standard
   error and the critical value ``z`` it was decided with, and the report carries the
   false-violation rate ``alpha`` per claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: bound scales tried for the power check, loosest first (1e-12: the bound is tightened by 12 orders)
SCALES = (0.99, 0.9, 0.5, 0.1, 1e-2, 1e-3, 1e-6, 1e-9, 1e-12)


@dataclass(frozen=True)
class Conformance:
    """The outcome of :func:`check_claim` for a claim that conforms.

    Attributes
    ----------
    claim : str
        The claim id.
    mode : str
        The grid used, ``"quick"`` or ``"full"``.
    seed : int
        The seed of the run(s).
    verdict : str
        The claim's final status at ``bound_scale = 1``.
    checks, primary, monte_carlo : int
        Number of checks, of primary checks, of Monte Carlo checks.
    alpha : float
        The false-violation rate per claim of the Monte Carlo verdicts.
    power_scale : float
        The loosest ``bound_scale`` of :data:`SCALES` (or 1 when the claim already fails)
        at which every reading of the claim is violated.
    reproducible : bool or None
        True when a second run with the same seed gave identical checks; None when not rerun.
    elapsed_s : float
        Seconds of the run(s) made here (0 for a precomputed report not rerun).
    """

    claim: str
    mode: str
    seed: int
    verdict: str
    checks: int
    primary: int
    monte_carlo: int
    alpha: float
    power_scale: float
    reproducible: bool | None
    elapsed_s: float

    def __str__(self) -> str:
        rep = {True: "same seed, same checks", None: "not rerun"}[self.reproducible]
        return (f"{self.claim}: conforms ({self.checks} checks, {self.primary} primary, {self.monte_carlo} Monte Carlo "
                f"at alpha {self.alpha:g}; violated at bound scale {self.power_scale:g}; {rep}; verdict {self.verdict})")


def _number(x) -> bool:
    try:
        return not math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def _finite(x) -> bool:
    return _number(x) and math.isfinite(float(x))


def _structure_problems(report) -> list[str]:
    from mcsa_cli import dumps

    from .model import HOLDS, INCONCLUSIVE, METHODS, RELATIONS, VIOLATED

    checks = report.checks
    if not checks:
        return ["the run produced no checks"]
    out = []
    for what, ok in (("method", lambda c: c.method in METHODS), ("relation", lambda c: c.relation in RELATIONS),
                     ("verdict", lambda c: c.verdict in (HOLDS, VIOLATED, INCONCLUSIVE))):
        bad = [c for c in checks if not ok(c)]
        if bad:
            out.append(f"{len(bad)} check(s) with an unknown {what}, e.g. {getattr(bad[0], what)!r} "
                       f"({bad[0].quantity}, {bad[0].form})")
    nan = [c for c in checks if not _number(c.bound)]
    if nan:
        out.append(f"{len(nan)} check(s) whose bound did not evaluate (NaN or not a number), e.g. "
                   f"{nan[0].quantity} ({nan[0].form}) at {nan[0].params}")
    if not any(c.primary for c in checks):
        out.append("no primary check (nothing decides the verdict)")
    elif not any(c.primary and _finite(c.bound) and _finite(c.empirical) for c in checks):
        out.append("no primary check compares a finite empirical value with a finite bound")
    try:
        dumps(report.as_json())
    except (TypeError, ValueError) as e:
        out.append(f"the report is not strict JSON ({e})")
    return out


def _monte_carlo_problems(report) -> list[str]:
    from .decide import ALPHA

    out = []
    mc = [c for c in report.checks if c.method == "monte-carlo"]
    no_se = [c for c in mc if c.stderr is None or not _finite(c.stderr) or c.stderr < 0]
    if no_se:
        out.append(f"{len(no_se)} Monte Carlo check(s) without a finite standard error, e.g. "
                   f"{no_se[0].quantity} ({no_se[0].form}) at {no_se[0].params}")
    no_z = [c for c in mc if c.z is None or not _finite(c.z)]
    if no_z:
        out.append(f"{len(no_z)} Monte Carlo check(s) decided without a critical value z")
    alpha = report.as_json().get("alpha")
    if not (_finite(alpha) and 0 < alpha < 1) or alpha != ALPHA:
        out.append(f"the report states no valid false-violation rate alpha (got {alpha!r})")
    return out


def _power(report, scales) -> tuple[float | None, dict]:
    """The first scale (1, then ``scales``) at which every reading's empirical verdict is violated."""
    from .model import VIOLATED
    from .outcome import rescore

    last = {}
    for s in (1.0, *scales):
        last = (report if s == 1.0 else rescore(report, s)).empirical_readings
        if last and all(v == VIOLATED for v in last.values()):
            return s, last
    return None, last


def _first_difference(a, b) -> str:
    if len(a.checks) != len(b.checks):
        return f"{len(a.checks)} checks, then {len(b.checks)}"
    for i, (x, y) in enumerate(zip(a.checks, b.checks)):
        jx, jy = x.as_json(), y.as_json()
        if jx != jy:
            key = next(k for k in jx if jx[k] != jy.get(k))
            return f"check {i} ({x.quantity}, {x.form}) {key}: {jx[key]!r}, then {jy[key]!r}"
    return ""


def check_claim(claim, mode: str = "quick", seed: int = 0, *, report=None, rerun: bool = True,
                scales=SCALES, overrides: dict | None = None) -> Conformance:
    """Check that a claim's verification conforms: it evaluates, can fail, is reproducible
    and states its Monte Carlo error rate.

    Parameters
    ----------
    claim : str or verify.model.Verification
        A registered claim id (:func:`verify.claims`) or a verification object (which need
        not be registered).
    mode : {"quick", "full"}
        The grid to run.
    seed : int
        The seed of the run(s).
    report : verify.outcome.Report, optional
        A run already made with this mode and seed, at ``bound_scale = 1`` and without grid
        overrides (e.g. from :func:`verify.report.cached_runs`): used instead of the first run.
    rerun : bool
        Run the claim (once more) to check that the same seed gives the same checks.  With
        ``report`` given and ``rerun=False`` the claim is not run at all.
    scales : sequence of float
        Bound scales tried for the power check, loosest first (default :data:`SCALES`).
    overrides : dict, optional
        Grid values to use instead of the claim's (as :func:`verify.run`); not with ``report``.

    Returns
    -------
    Conformance
        What was found (``str()`` gives one line).

    Raises
    ------
    AssertionError
        With a one-line reason naming every problem found, when the verification does not
        conform (e.g. "no tightened bound is violated", "not reproducible").
    ValueError
        For bad arguments: an unknown mode, a report of another claim or at another scale.
    bounds.UnknownClaim
        For an unknown claim id.

    Examples
    --------
    >>> from verify.testing import check_claim
    >>> print(check_claim("lemma2"))  # doctest: +SKIP
    lemma2: conforms (24 checks, 24 primary, 0 Monte Carlo at alpha 0.001; violated at bound scale 0.5; same seed,
    same checks; verdict holds)
    """
    import time

    from . import get
    from .decide import ALPHA
    from .model import Verification
    from .outcome import run_verification

    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
    v = claim if isinstance(claim, Verification) else get(claim)
    if report is not None:
        if report.claim != v.claim:
            raise ValueError(f"the report is of {report.claim!r}, not of {v.claim!r}")
        if report.bound_scale != 1.0 or report.seed != seed:
            raise ValueError(f"the report was run at bound scale {report.bound_scale:g} and seed {report.seed}; "
                             f"check_claim needs bound scale 1 and seed {seed}")
        if overrides:
            raise ValueError("overrides apply to a run made here, not to a given report")
    elapsed = 0.0

    def run():
        nonlocal elapsed
        t0 = time.perf_counter()
        rep = run_verification(v, mode, seed=seed, overrides=overrides)
        elapsed += time.perf_counter() - t0
        return rep

    first = report if report is not None else run()
    problems = _structure_problems(first)
    problems += _monte_carlo_problems(first)
    scale = None
    if first.checks:
        scale, readings = _power(first, tuple(scales))
        if scale is None:
            holding = [k for k, val in readings.items() if val != "violated"] or ["every reading"]
            problems.append(f"no tightened bound is violated: at bound scale {min(scales, default=1.0):g} "
                            f"{'; '.join(holding)} still {'does' if len(holding) == 1 else 'do'} not fail "
                            f"(a check that cannot fail)")
    reproducible = None
    if rerun:
        diff = _first_difference(first, run())
        reproducible = not diff
        if diff:
            problems.append(f"not reproducible: the same seed gave different checks ({diff})")
    if problems:
        raise AssertionError(f"{v.claim}: " + "; ".join(p.replace("\n", " ") for p in problems))
    return Conformance(v.claim, mode, seed, first.verdict, len(first.checks), sum(c.primary for c in first.checks),
                       sum(c.method == "monte-carlo" for c in first.checks), ALPHA, scale, reproducible, elapsed)
