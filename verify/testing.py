"""Conformance check of a claim's verification: :func:`check_claim`.

A claim registered by a user's package (``docs/own-claim.md``) is verified by the same
machinery as the toolkit's own; :func:`check_claim` tells its author whether the
verification is one the machinery can trust, and the test suite runs it on every built-in
claim (``tests/test_conformance.py``)::

    from verify.testing import check_claim
    print(check_claim("mcgd_average_bias"))   # or AssertionError with a one-line reason
    # mcgd_average_bias: conforms (706 checks, 386 primary, 24 Monte Carlo at alpha 0.001;
    #   violated at bound scale 0.99; same seed, same checks in a second process
    #   (PYTHONHASHSEED=1); verdict holds)

What is checked, from one run of the claim's grid (plus one rerun):

1. The run produces checks and every bound evaluates over the grid: each check has a
   known method, relation and verdict, a bound that is a number (not NaN), and at least
   one primary check compares a finite empirical value with a finite bound; the
   report's JSON is strict (no NaN/Infinity).
2. The checks have power: tightening every bound (``bound_scale``, re-deciding the same
   checks with :func:`verify.running.outcome.rescore`, no recomputation) makes every reading of the
   claim ``violated``.  The scales of :data:`SCALES` are tried loosest first; the first
   that breaks the claim is reported (a claim that no scale breaks cannot fail).
3. The same seed reproduces the same result: a second run, in a second Python process
   with another ``PYTHONHASHSEED``, gives the same checks bit for bit (every float compared
   by its exact binary value).  A claim whose draws depend on ``hash()`` of a string, on the
   order of a set, on fresh OS entropy or on anything else of one process fails here.  A
   verification object passed directly (not a registered id) must be picklable (its
   ``run`` a module-level function) to be sent to that process.
4. The Monte Carlo error rate is stated: every Monte Carlo check has a finite standard
   error and the critical value ``z`` it was decided with, and the report carries the
   false-violation rate ``alpha`` per claim.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

#: bound scales tried for the power check, loosest first (1e-12: the bound is tightened by 12
#: orders)
SCALES = (0.99, 0.9, 0.5, 0.1, 1e-2, 1e-3, 1e-6, 1e-9, 1e-12)


@dataclass(frozen=True)
class Conformance:
    """The outcome of :func:`check_claim` for a claim that conforms.

    Parameters
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
        True when a second run with the same seed, in a second process with another
        ``PYTHONHASHSEED``, gave the same checks bit for bit; None when not rerun.
    elapsed_s : float
        Seconds of the run(s) made here (0 for a precomputed report not rerun).
    rerun_hashseed : str, optional
        The ``PYTHONHASHSEED`` of the second process (None when not rerun).
    not_rerun : str, optional
        Why the claim was rerun in this process only, not in a second one.
    wide : str, default ""
        Exact checks whose quantity's enclosure is wider than its value, each decided all the
        same: one line naming the first, or "".
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
    #: the PYTHONHASHSEED of the second process (None when not rerun)
    rerun_hashseed: str | None = None
    #: why the claim was rerun in this process only, not in a second one (None when it was, or not
    #: rerun)
    not_rerun: str | None = None
    #: exact checks whose quantity's enclosure is wider than its value (its error bound cannot
    #: tell the value's sign), each decided all the same; one line naming the first, or ""
    wide: str = ""

    def __str__(self) -> str:
        """Say in one line what was found: checks, power scale, reproducibility, verdict."""
        rep = (self.not_rerun if self.not_rerun else "not rerun" if self.reproducible is None else
               f"same seed, same checks in a second process (PYTHONHASHSEED={self.rerun_hashseed})")
        return (f"{self.claim}: conforms ({self.checks} checks, {self.primary} primary, "
                f"{self.monte_carlo} Monte Carlo at alpha {self.alpha:g}; violated at bound scale "
                f"{self.power_scale:g}; {rep}; verdict {self.verdict})"
                + (f"; note: {self.wide}" if self.wide else ""))


def _wide_enclosures(report) -> tuple[str, list[str]]:
    """Flag exact checks whose quantity's enclosure is wider than the value itself.

    Such an error bound cannot even tell the value's sign.  A check it still decides is noted
    (``Conformance.wide``); one left inconclusive by it is a problem: give a tighter error
    bound, an exact value, or a ``refine`` at higher precision.

    Returns
    -------
    tuple
        ``(note, problems)``.
    """
    wide = [c for c in report.checks if c.method == "exact" and c.lhs is not None
            and c.lhs.sign() is None and c.lhs.mid != 0]
    if not wide:
        return "", []
    first = wide[0]
    where = ", ".join(f"{k}={v}" for k, v in list(first.params.items())[:4])
    note = (f"{len(wide)} exact check(s) have a quantity enclosure wider than its value (first: "
            f"{first.quantity} in {first.lhs} at {where})")
    from .model import INCONCLUSIVE

    stuck = [c for c in wide if c.verdict == INCONCLUSIVE]
    problems = [f"{len(stuck)} of them are inconclusive for that reason: give a tighter error "
                f"bound, an exact value, or a quantity that takes `prec`"] if stuck else []
    return note, problems


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
    for what, ok in (("method", lambda c: c.method in METHODS),
                     ("relation", lambda c: c.relation in RELATIONS),
                     ("verdict", lambda c: c.verdict in (HOLDS, VIOLATED, INCONCLUSIVE))):
        bad = [c for c in checks if not ok(c)]
        if bad:
            out.append(
                f"{len(bad)} check(s) with an unknown {what}, e.g. {getattr(bad[0], what)!r} "
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
    """Find the first scale (1, then ``scales``) at which every reading's checks are violated.

    A reading's checks are its primary ones with their own verdicts: a check with the proof's
    explicit constants that fails counts here (it can fail, which is what is tested), although by
    reading rule 4 it decides a gap of the proof, not the statement's status.  Degenerate readings
    (rule 3) decide nothing and are left out.
    """
    from .decide import combine, full_readings, reading_name
    from .model import DEGENERATE, VIOLATED
    from .running.outcome import rescore

    last: dict = {}
    for s in (1.0, *scales):
        rep = report if s == 1.0 else rescore(report, s)
        skip = {k for k, v in (rep.empirical_readings or {}).items() if v == DEGENERATE}
        last = {}
        for combo in full_readings(rep.reading_defs or ()):
            name, names = reading_name(combo), {r.name for r in combo}
            if name not in skip:
                last[name] = combine([c.verdict for c in rep.checks
                                      if c.primary and (c.reading == "" or c.reading in names)])
        if last and all(v == VIOLATED for v in last.values()):
            return s, last
    return None, last


def _exact(x):
    """Write every float of ``x`` as its exact binary value (``float.hex``; NaN equal to NaN).

    Two runs' checks are then compared bit for bit.
    """
    if isinstance(x, dict):
        return {str(k): _exact(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_exact(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    try:
        import numpy as np

        if isinstance(x, np.ndarray):
            return _exact(x.tolist())
        if isinstance(x, np.generic):
            return _exact(x.item())
    except ImportError:  # pragma: no cover
        pass
    if isinstance(x, float):
        return "float:" + x.hex()
    return repr(x)


def _check_records(report) -> list[dict]:
    return [_exact(c.as_json()) for c in report.checks]


def _first_difference(a: list[dict], b: list[dict], checks) -> str:
    """Say in words where two runs' check records (:func:`_check_records`) first differ."""
    if len(a) != len(b):
        return f"{len(a)} checks, then {len(b)}"
    for i, (jx, jy) in enumerate(zip(a, b)):
        if jx != jy:
            key = next((k for k in jx if jx[k] != jy.get(k)), next(iter(set(jy) - set(jx)), "?"))

            def show(v):
                return float.fromhex(v[6:]) if isinstance(v, str) and v.startswith("float:") else v

            c = checks[i]
            return (f"check {i} ({c.quantity}, {c.form}) {key}: {show(jx.get(key))!r}, then "
                    f"{show(jy.get(key))!r}")
    return ""


def _other_hashseed() -> str:
    """Choose a PYTHONHASHSEED other than this process's.

    This one's plus 1 when it is set, else 1 (this process then hashes with a random key, which
    1 differs from).
    """
    import os

    mine = os.environ.get("PYTHONHASHSEED", "")
    return str(int(mine) % 4294967295 + 1) if mine.isdigit() else "1"


def _rerun_elsewhere(spec: dict, hashseed: str) -> list[dict]:
    """Run a claim in a second Python process with ``PYTHONHASHSEED=hashseed``; its check records.

    ``spec``: ``{"claim": id or a picklable Verification, "mode", "seed", "overrides"}``.  The
    process sees this one's ``sys.path`` (a claim defined in a test module or a user's package
    imports the same).
    """
    import os
    import pickle
    import subprocess

    payload = pickle.dumps(spec)
    env = {**os.environ, "PYTHONHASHSEED": hashseed,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
    r = subprocess.run([sys.executable, "-c",
                        "from verify.testing import _rerun_main; _rerun_main()"],
                       input=payload, capture_output=True, env=env)
    if r.returncode != 0:
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"the rerun in a second process failed (exit {r.returncode}): {tail[0]}")
    return pickle.loads(r.stdout)


def _rerun_main() -> None:  # pragma: no cover -- runs in the second process of _rerun_elsewhere
    import pickle

    from . import get
    from .running.outcome import run_verification

    spec = pickle.loads(sys.stdin.buffer.read())
    v = spec["claim"] if not isinstance(spec["claim"], str) else get(spec["claim"])
    rep = run_verification(v, spec["mode"], seed=spec["seed"], overrides=spec["overrides"])
    sys.stdout.buffer.write(pickle.dumps(_check_records(rep)))
    sys.stdout.buffer.flush()


def check_claim(claim, mode: str = "quick", seed: int = 0, *, report=None, rerun: bool = True,
                scales=SCALES, overrides: dict | None = None) -> Conformance:
    """Check that a claim's verification conforms.

    It evaluates, can fail (every reading is violated once the bounds are tightened enough),
    is reproducible, and states its Monte Carlo error rate.

    Parameters
    ----------
    claim : str or verify.model.Verification
        A registered claim id (:func:`verify.claims`) or a verification object (which need
        not be registered).
    mode : {"quick", "full"}
        The grid to run.
    seed : int
        The seed of the run(s).
    report : verify.running.outcome.Report, optional
        A run already made with this mode and seed, at ``bound_scale = 1`` and without grid
        overrides (e.g. a run the caller already has): used instead of the first run.
    rerun : bool
        Run the claim once more, in a second Python process with another ``PYTHONHASHSEED``,
        to check that the same seed gives the same checks bit for bit.  With ``report``
        given and ``rerun=False`` the claim is not run at all.
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
    lemma2: conforms (24 checks, 24 primary, 0 Monte Carlo at alpha 0.001; violated at bound scale
    0.5; same seed, same checks in a second process (PYTHONHASHSEED=1); verdict holds)
    """
    import time

    from . import get
    from .decide import ALPHA
    from .model import Verification
    from .running.outcome import run_verification

    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
    v = claim if isinstance(claim, Verification) else get(claim)
    if report is not None:
        if report.claim != v.claim:
            raise ValueError(f"the report is of {report.claim!r}, not of {v.claim!r}")
        if report.bound_scale != 1.0 or report.seed != seed:
            raise ValueError(
                f"the report was run at bound scale {report.bound_scale:g} and seed {report.seed}; "
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
    wide, stuck = _wide_enclosures(first)
    problems += [f"{wide}; {p}" for p in stuck]
    problems += _monte_carlo_problems(first)
    scale = None
    if first.checks:
        scale, readings = _power(first, tuple(scales))
        if scale is None:
            holding = [k for k, val in readings.items() if val != "violated"] or ["every reading"]
            problems.append(
                f"no tightened bound is violated: at bound scale {min(scales, default=1.0):g} "
                f"{'; '.join(holding)} still {'does' if len(holding) == 1 else 'do'} not fail (a "
                f"check that cannot fail)")
    reproducible = hashseed = None
    not_rerun = None
    if rerun:
        hashseed = _other_hashseed()
        spec = {"claim": claim if isinstance(claim, str) else v, "mode": mode, "seed": seed,
                "overrides": overrides}
        import pickle

        v_spec = {**spec, "claim": v}
        try:
            blob = pickle.dumps(v_spec)
        except Exception as e:  # noqa: BLE001 -- a local function, a lambda: said, not a traceback
            blob = None
            if not isinstance(claim, str):
                problems.append(
                    f"cannot rerun in a second process: the verification cannot be pickled "
                    f"({type(e).__name__}: {e}); give its id, or define its run function at module "
                    f"level")
        if (blob is not None
            and b"__main__" in blob) or getattr(getattr(v, "run", None), "__module__",
                                                "") == "__main__":
            # defined in a notebook or a script: a second process cannot import it, and a fork keeps
            # the hash key
            not_rerun = (
                "same seed, same checks in this process only: the claim's code is defined in "
                "__main__ (a notebook or a script), which a second process cannot import; put it "
                "in a module to have it rerun with another PYTHONHASHSEED")
            diff = _first_difference(_check_records(first), _check_records(run()), first.checks)
            reproducible = not diff
            if diff:
                problems.append(
                    f"not reproducible: the same seed gave different checks in this process "
                    f"({diff})")
        elif blob is not None or isinstance(claim, str):
            # the object itself: a claim registered at run time has no entry point to find
            if blob is not None:
                spec = v_spec
            t0 = time.perf_counter()
            try:
                other = _rerun_elsewhere(spec, hashseed)
            except RuntimeError as e:
                problems.append(str(e))
            else:
                diff = _first_difference(_check_records(first), other, first.checks)
                reproducible = not diff
                if diff:
                    problems.append(
                        f"not reproducible: the same seed gave different checks in a second "
                        f"process with PYTHONHASHSEED={hashseed} ({diff})")
            elapsed += time.perf_counter() - t0
    if problems:
        raise AssertionError(f"{v.claim}: " + "; ".join(p.replace("\n", " ") for p in problems))
    assert scale is not None  # None (no checks, no failing scale) is a problem, raised above
    return Conformance(v.claim, mode, seed, first.verdict, len(first.checks),
                       sum(c.primary for c in first.checks),
                       sum(c.method == "monte-carlo" for c in first.checks), ALPHA, scale,
                       reproducible, elapsed,
                       hashseed if reproducible is not None else None, not_rerun, wide)
