"""Run many claims: in parallel on the sweep engine, with a cache keyed by content.

:func:`run_claims` runs each claim's verification as one task of
:func:`simulate.sweep.execute`: on local processes (``workers``, default the number of
CPUs), on a Dask cluster (``scheduler``) or in this process, with the engine's checksummed
cache.  A result is stored under a key made of

* the claim, the mode and the seed;
* a digest of the code it depends on (:func:`code_digest`: the machinery of :mod:`verify`,
  all of :mod:`simulate` and :mod:`bounds`, and every file of the claim's own package);
* the versions of Python, NumPy, SciPy, SymPy and mpmath.

A rerun with nothing changed reads the stored checks; a changed digest is a different key,
so a stale result is recomputed, never read.  A stored result keeps when it was computed
(``computed_at``, UTC) and how long that took (``elapsed_s``); a Report read from the cache
has ``cached = True``, and :func:`checks_text` says so wherever a run's time is shown.  Each claim's
random draws come from its own seeded streams, so the results are bit-identical whatever the number
of workers (JSON keeps every float exactly).

The cache lives in ``$MCSA_CACHE`` (default ``~/.cache/mcsa-verify``); ``MCSA_CACHE=off``
or ``--no-cache`` switches it off.
"""  # noqa: E501

from __future__ import annotations

import functools
import inspect
import os
import sys
from pathlib import Path

from mcsa_cli import jsonable, number, untag
from mcsa_cli.store import digest, files_digest

from .resources import cache_dir  # noqa: F401  (re-exported: the claim cache's directory)

PACKAGES = ("bounds", "simulate", "mcsa_cli")
#: bump when the payload's layout changes
FORMAT = 4  # 2: non-finite floats in rows, params and extra kept (tagged), not written as null;
# 3: the check's own floats tagged alike; 4: enclosures and settled_by (no tolerance)


@functools.lru_cache(maxsize=None)
def _machinery_digest() -> str:
    here = Path(__file__).resolve().parent.parent  # verify/: its modules and machinery rooms
    files = [p for p in here.glob("*.py")] + [
        p for room in ("audit", "running", "judging", "searching", "presenting", "command")
        for p in sorted((here / room).rglob("*.py"))]
    for pkg in PACKAGES:
        files += list((here.parent / pkg).rglob("*.py"))
    import mpmath
    import numpy
    import scipy
    import sympy

    versions = (
        f"{sys.version_info[:3]}|{numpy.__version__}|{scipy.__version__}|{sympy.__version__}"
                f"|{mpmath.__version__}")
    return files_digest(files, extra=versions)


@functools.lru_cache(maxsize=None)
def code_digest(claim: str) -> str:
    """Digest of the code ``claim``'s result depends on (see the module docstring).

    Parameters
    ----------
    claim : str
        A registered claim id.

    Returns
    -------
    str
        64 hex digits (:func:`mcsa_cli.store.files_digest` of the claim's package, after
        the machinery and the library versions).
    """
    from ..registry import verifications

    v = verifications()[claim]
    # the module that defines the claim's run (inspect, not a look-up in sys.modules)
    mod = inspect.getmodule(v.run) if hasattr(v.run, "__module__") else None
    own = []
    file = getattr(mod, "__file__", None) if mod is not None else None
    if file:
        own = list(Path(file).resolve().parent.rglob("*.py"))
    return files_digest(own, extra=_machinery_digest())


def cache_key(claim: str, mode: str, seed: int) -> str:
    """The cache key of ``claim``'s result in ``mode`` with ``seed`` (see the module docstring).

    Parameters
    ----------
    claim : str
    mode : str
    seed : int

    Returns
    -------
    str
        A file name: the claim, the mode, the seed (a digest of it when long) and the code digest.
    """
    safe = "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in claim)
    s = str(seed)
    # a seed of hundreds of digits would make a file name too long for the file system
    if len(s) > 24:
        s = "s" + digest(s)[:24]
    return f"{safe}-{mode}-{s}-{code_digest(claim)[:24]}"


# ----------------------------------------------------------------------------- payloads
_FLOATS = ("empirical", "bound", "stderr", "error", "bound_error", "ratio", "z", "scaled_bound",
           "log10_ratio")


def _tag(x):
    """``x`` as strict JSON, every non-finite float (NaN, +-inf; numpy scalars and arrays
    included) written ``{"__float__": "nan" | "inf" | "-inf"}`` (:func:`mcsa_cli.jsonable`),
    so that a cached report gives them back (:func:`mcsa_cli.untag`)."""
    return jsonable(x, nonfinite="tag")


_untag = untag  # (tests/test_runner.py reads a payload back with it)


def _float(x):
    return None if x is None else float(untag(x))


def encode(rep) -> dict:
    """A Report as a strict-JSON payload.

    Parameters
    ----------
    rep : verify.running.outcome.Report

    Returns
    -------
    dict
        Floats exact; every NaN and infinity tagged ``{"__float__": ...}`` (read back by
        :func:`decode`).
    """
    from ..model import params_json

    checks = []
    for c in rep.checks:
        d = {k: getattr(c, k) for k in ("quantity", "form", "method", "relation", "primary", "note",
                                        "verdict", "reading", "settled_by", "proof")}
        d.update({k: _tag(getattr(c, k)) for k in _FLOATS})
        # the enclosures the verdict was reached on, exactly (bounds.enclosure.Enclosure.encode)
        d["lhs"] = c.lhs.encode() if c.lhs is not None else None
        d["rhs"] = c.rhs.encode() if c.rhs is not None else None
        d["params"] = _tag(params_json(c.params))
        checks.append(d)
    rows = getattr(rep.checks, "rows", None)
    computed_at = getattr(rep, "computed_at", None) or _now()
    return {"format": FORMAT, "claim": rep.claim, "seed": rep.seed, "elapsed_s": rep.elapsed_s,
            "computed_at": computed_at,
            "checks": checks, "extra": _tag(rep.extra), "rows": _tag(rows) if rows else None,
            "figure": getattr(rep.checks, "figure", "") or ""}


def decode(payload: dict):
    """The Report of a payload, its readings and audit statements from the registry.

    Parameters
    ----------
    payload : dict
        What :func:`encode` gave.

    Returns
    -------
    verify.running.outcome.Report or None
        None for a payload of another :data:`FORMAT`.
    """
    from bounds.enclosure import Enclosure

    from ..model import CheckResult
    from ..registry import verifications
    from .docio import audit_statements, audit_steps
    from .outcome import Report

    if payload.get("format") != FORMAT:
        return None
    v = verifications()[payload["claim"]]
    checks = []
    for d in payload["checks"]:
        kw = {k: d[k] for k in ("quantity", "form", "method", "relation", "primary", "note",
                                "verdict", "reading", "settled_by", "proof")}
        kw.update({k: _float(d[k]) for k in _FLOATS})
        for side in ("lhs", "rhs"):
            kw[side] = Enclosure.decode(d[side]) if d.get(side) is not None else None
        kw["params"] = untag(d["params"])
        checks.append(CheckResult(**kw))
    if payload.get("rows") is not None:
        from ..model import CheckList

        checks = CheckList(checks)
        checks.rows, checks.figure = untag(payload["rows"]), payload.get("figure", "")
    rep = Report(payload["claim"], checks, payload["seed"], payload["elapsed_s"], 1.0,
                 v.primary_form,
                 dict(untag(payload.get("extra") or {})), tuple(v.readings),
                 audit_statements(payload["claim"]), audit_steps(payload["claim"]))
    rep.computed_at = payload.get("computed_at")  # None: stored before the time was kept
    rep.figure_view = payload.get("figure_view")  # drawn by the worker (run_claims figure)
    rep.cached = False
    return rep


def _now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _load_cached(payload):
    """A Report read from the cache, marked so (``cached``; its ``elapsed_s`` is the original
    run's).
    """
    rep = decode(payload) if payload is not None else None
    if rep is not None:
        rep.cached = True
    return rep


def checks_text(rep) -> str:
    """'2865 checks in 19.7 s', or for a result read from the cache '2865 checks, read from the
    cache
    (computed 2026-11-27 14:56:02 UTC in 19.7 s)': a cached run never shows another run's time as
    its own."""
    n = len(rep.checks)
    if getattr(rep, "cached", False):
        when = getattr(rep, "computed_at", None)
        return (f"{n} checks, read from the cache (computed {when + ' ' if when else ''}in "
                f"{rep.elapsed_s:.1f} s; "
                "--no-cache recomputes)")
    return f"{n} checks in {rep.elapsed_s:.1f} s"


# ----------------------------------------------------------------------------- running
def _run_tasks(tasks: list) -> list:
    """Run ``[(claim, mode, seed[, figure]), ...]`` (a worker process: loads the registry itself).

    ``figure`` (optional) is a picklable callable ``figure(report) -> dict`` (the report passes
    its view of a claim's figure): the worker draws it right after the claim, so the figures are
    drawn in parallel with the claims instead of one after another afterwards; the view travels
    in the payload.
    """
    from ..registry import verifications
    from .outcome import run_verification

    reg = verifications()
    out = []
    for task in tasks:
        cid, mode, seed = task[:3]
        rep = run_verification(reg[cid], mode, seed=seed)
        payload = encode(rep)
        if len(task) > 3 and task[3] is not None:
            payload["figure_view"] = task[3](rep)
        out.append(payload)
    return out


def run_claims(ids, mode: str = "quick", seed: int = 0, *, workers: int | None = None,
               scheduler: str | None = None, cache: str | None | bool = True,
               progress=None, figure=None) -> dict:
    """``{claim: Report}`` for every claim of ``ids``, run in parallel and cached.

    Parameters
    ----------
    ids : iterable of str
        Registered claim ids.
    mode : {"quick", "full"}
    seed : int
    workers : int, optional
        Local processes (default: the number of CPUs, at most the number of claims).
    scheduler : str, optional
        A Dask scheduler address ``tcp://HOST:PORT`` instead of local processes.
    cache : bool or str or None
        True: the default cache (:func:`cache_dir`); a path; False/None: no cache.
    progress : callable, optional
        ``progress(done, total)`` as claims finish.
    figure : callable, optional
        ``figure(report) -> dict``, picklable (a module-level function or a ``functools.partial``
        of one): called in the worker right after each computed claim, its result kept as
        ``Report.figure_view`` (the report draws its figures this way, in parallel).
    """
    from simulate.sweep import execute

    ids = list(ids)
    if cache is True:
        cache = cache_dir()
    elif cache is False:
        cache = None
    if workers is None:
        workers = max(1, min(os.cpu_count() or 1, len(ids)))
    tasks = [(cid, mode, int(seed)) + ((figure,) if figure is not None else ()) for cid in ids]
    keys = [cache_key(cid, mode, seed) for cid in ids]
    results, _ = execute(tasks, _run_tasks, keys=keys, cache=cache,
                         workers=1 if scheduler else workers,
                         scheduler=scheduler, progress=progress, decode=decode, encode=encode,
                         load=lambda i, p: _load_cached(p), desc="claims", unit="claim")
    return dict(zip(ids, results))


# ----------------------------------------------------------------------------- command lines
def add_parallel_flags(ap) -> None:
    """--workers (claims in parallel) and --no-cache, for `all` and `report`."""
    ap.add_argument("--workers", dest="claim_workers", default=None, metavar="K",
                    help="run the claims on K local processes (default: the number of CPUs); the "
                         "results do not depend on it")
    ap.add_argument("--no-cache", action="store_true",
                    help="recompute every claim (default: read results whose code, parameters and "
                         "library versions are unchanged from the cache in $MCSA_CACHE or "
                         "~/.cache/mcsa-verify)")


def parallel_workers(a):
    return None if a.claim_workers is None else number("--workers", a.claim_workers, integer=True,
                                                       lo=1, hi=256)


def run_all(mode="quick", seed=0, progress=None, workers=None, cache=True, figure=None):
    """Every registered claim's Report, in the documents' order, run in parallel on
    ``workers`` local processes (default: the CPUs) and cached by content (verify.running.runner);
    ``figure``: drawn alongside each (:func:`run_claims`)."""
    from ..registry import claim_ids

    ids = list(claim_ids())
    tick = (lambda done, total: progress(f"{done}/{total} claims")) if progress else None
    reps = run_claims(ids, mode, seed, workers=workers, cache=cache, progress=tick,
                      figure=figure)
    return [reps[c] for c in ids]
