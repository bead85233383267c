"""Grids of MCSA runs on local processes or a Dask cluster, with a resumable cache.

Python API (stable; the command line ``python -m simulate sweep`` is a thin layer on it)::

    from simulate.sweep import run_sweep

    if __name__ == "__main__":  # local worker processes are spawned: guard the script
        res = run_sweep({"scheme": ["msc", "pmcsa"], "optimizer": ["sgd", "adam"],
                         "lr": [0.01, 0.1], "N": 4, "dim": 5, "iters": 50, "replicates": 2},
                        seed=0, workers=2, cache="cache/")
        res.rows      # the tidy table: a list of dicts, one per (cell, replicate, logged iteration)
        res.results   # per cell: CellResult arrays (iteration, values["kl"] (L, R), ...)
        res.write_csv("results.csv")   # and results.json, the metadata (grid, seed, versions)

Every grid key (:data:`GRID_KEYS`: scheme, optimizer, lr, N, dim, nu, target_seed, iters,
replicates) takes a value or a list; the grid is their product.

A **cell** is one point of the grid: a vectorised run of ``replicates`` independent
replicate runs of one scheme with one optimiser setting, on the paper's Wishart target
(Kim et al., NeurIPS 2022, "Markov Chain Score Ascent", §6.2) with a mean-field Gaussian q.
:func:`run_cell` runs one cell; :func:`run_sweep` runs a grid of them.

Reproducibility.  A cell's random streams come from its own identity, never from its
position in the grid or from the worker that runs it: replicate ``r`` of a cell draws
from ``SeedSequence(seed, spawn_key=(*K, r, kind))`` with ``K`` derived (SHA-256) from
the cell's parameters scheme, optimizer, lr, N, dim, nu and target_seed
(:meth:`Cell.unit_key`; ``Scheme.init(units=...)``).  Cells that differ only in the
step size run as one vectorised batch (per-row step sizes), bit-identical to running
them one by one (``batch=False``).  So the table is bit-identical whatever
the number of workers, the executor (in-process, local processes, Dask) and the order in
which cells finish; ``python -m simulate run`` with the same parameters gives the same
numbers as the sweep's cell.  Only the ``time_s`` column (wall time) varies.

Executors.  Cells run as tasks on a :class:`concurrent.futures.Executor`: the caller's
(``executor=``), a Dask distributed cluster's (``scheduler="tcp://HOST:PORT"``, through
``dask.distributed.Client(...).get_executor()``; Dask is the optional extra ``dask``),
local processes (``workers=K > 1``, spawned, one BLAS thread each unless ``threads``
says otherwise), or the calling process (``workers=1``).

Cache and resume.  With ``cache=DIR`` every finished cell is written to
``DIR/<key>.json``, ``key`` = SHA-256 of the cell's parameters, the package version and
the cache format; the file's first line is the SHA-256 of the rest, and it is written to
a temporary file and moved into place with :func:`os.replace` (atomic).  A rerun reads
finished cells instead of computing them; an interrupted sweep (Ctrl-C, a killed worker)
loses at most the cells in flight; an entry whose checksum, key or format does not match
is recomputed (and overwritten), never read as data.

The table.  One row per cell, replicate and logged iteration (iteration 0 and every
``record_every`` iterations, and the last), with the cell's parameters and:
``kl`` KL(pi || q_lambda) in closed form; ``grad_norm`` mean ||g_t|| and ``r`` mean
rejection rate over the iterations since the previous logged one; ``rhat_z``, ``ess_z``,
``rhat_lambda`` the convergence diagnostics of :mod:`simulate.diagnostics` over the last
max(diag_every, 20) iterations, computed at most ~20 times per run (every
:attr:`Cell.diag_every` iterations and at the last; NaN in the rows between: each costs
ArviZ calls); ``diverged`` (the replicate's lambda, gradient or KL became non-finite at
or before this iteration) and ``diverged_at``; ``time_s`` the cell's wall time up to this iteration.
A diverged replicate keeps its rows (with NaN values), it is not dropped.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import hashlib
import itertools
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mcsa_cli import atomic_write, dumps, jsonable

# (tests/test_sweep.py imports them from here)
from mcsa_cli.pool import (
    local_pool,
    sigint_deferred as _sigint_deferred,  # noqa: F401
    unordered,
    worker_init as _worker_init,  # noqa: F401
)
from mcsa_cli.store import Store, digest, files_digest

__all__ = ["Cell", "CellResult", "SweepResult", "run_cell", "run_cells", "run_sweep", "make_cells",
           "GridError",
           "GRID_KEYS", "COLUMNS", "check_cell", "LIMITS", "execute", "check_workers",
           "check_execution", "cache_read",
           "cache_store"]

SCHEMES = ("msc", "msc-rb", "jsa", "pmcsa")
OPTIMIZERS = ("sgd", "momentum", "nesterov", "adam")
#: grid axes (each may be a list) and their defaults (None: required)
GRID_KEYS = {"scheme": None, "optimizer": None, "lr": None, "N": None, "dim": None, "nu": 500,
             "target_seed": 0, "iters": None, "replicates": 1}
#: the parameters that define a cell's random streams (not iters or replicates: a longer
#: run, or more replicates, extends a cell's runs instead of changing them)
STREAM_KEYS = ("scheme", "optimizer", "lr", "N", "dim", "nu", "target_seed")
CACHE_FORMAT = 1
COLUMNS = ("cell", "scheme", "optimizer", "lr", "N", "dim", "nu", "target_seed", "iters",
           "replicates", "seed",
           "replicate", "iteration", "kl", "grad_norm", "r", "rhat_z", "ess_z", "rhat_lambda",
           "diverged",
           "diverged_at", "time_s")

#: refusal limits (stated in the messages).  ops_per_s and the per-iteration overheads
#: are conservative rates measured on one core of the development machine (2-core AMD
#: EPYC): ~0.1 ms of Python per iteration (JSA: + ~0.05 ms per sequential IMH step), and
#: ~3e9 operations/s in the (D, D) products at D = 100.
LIMITS = {
    "seconds_per_run": 3600.0,  # one run / one cell, estimated
    "bytes": 4 * 2 ** 30,  # working memory of one run, estimated
    "logged_values": 10_000_000,  # logged iterations x replicates of one run
    "cells": 100_000,  # cells of one sweep
    "sweep_core_hours": 48.0,  # estimated single-core time of one sweep
    "cell_overhead_s": 4e-3,  # set-up of one cell (target, scheme, logging)
    "rows": 20_000_000,  # rows of one sweep's table
    "ops_per_s": 2.0e9,
    "overhead_s": 1.5e-4,
    "overhead_jsa_step_s": 6e-5,
}


class GridError(ValueError):
    """A bad grid or cell: the message names the flag and the allowed values."""


def _version() -> str:
    """Return the cache-key version of the simulators.

    It is a digest of the code a cell's result
    depends on (every module of :mod:`simulate`, and the NumPy and SciPy versions), not a
    version number nobody bumps.  Changing a simulator changes every key, so a cached cell
    computed by other code is never read.
    """
    return code_digest()[:16]


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """Digest every module of :mod:`simulate` and the NumPy and SciPy versions.

    See :func:`mcsa_cli.store.files_digest`.

    Returns
    -------
    str
        64 hex digits.
    """
    import scipy

    here = Path(__file__).resolve().parent
    versions = f"numpy {np.__version__} scipy {scipy.__version__}"
    return files_digest(here.glob("*.py"), extra=versions)


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("mcsa-verify")
    except Exception:  # not installed (running from a source tree)
        return "0+unknown"


# ----------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class Cell:
    """One point of a grid: ``replicates`` replicate runs of ``iters`` iterations."""

    scheme: str
    optimizer: str
    lr: float
    N: int
    dim: int
    nu: int = 500
    target_seed: int = 0
    iters: int = 100
    replicates: int = 1
    seed: int = 0
    record_every: int | None = None
    diagnostics: bool = True

    @property
    def every(self) -> int:
        """Iterations between logged rows: ``record_every``, else about 100 rows per run."""
        return self.record_every or max(1, self.iters // 100)

    @property
    def diag_every(self) -> int:
        """Iterations between R-hat and ESS computations (a multiple of ``every``).

        They are computed at most ~20 times per run: at logged iterations that are multiples
        of this, and at the last iteration.
        """
        e = self.every
        return e * max(1, -(-self.iters // (20 * e)))

    def params(self) -> dict:
        """Return the cell's parameters as a dict, ``record_every`` resolved."""
        d = dataclasses.asdict(self)
        d["record_every"] = self.every
        return d

    def _canonical(self, keys) -> str:
        d = self.params()
        return dumps({k: (repr(float(d[k])) if k == "lr" else d[k]) for k in keys}, sort_keys=True)

    def unit_key(self) -> tuple:
        """Return the cell's random-stream unit prefix.

        It is four 32-bit words of SHA-256 of the stream
        parameters (scheme, optimizer, lr, N, dim, nu, target_seed).  Replicate r of the
        cell draws from ``SeedSequence(seed, spawn_key=(*unit_key, r, kind))``.
        """
        h = hashlib.sha256(self._canonical(STREAM_KEYS).encode()).digest()
        return tuple(int.from_bytes(h[i:i + 4], "little") for i in range(0, 16, 4))

    def key(self, version: str | None = None) -> str:
        """Cache key: the parameters, the package version and the cache format."""
        text = self._canonical(sorted(self.params()))
        return digest(f"{text}|{version or _version()}|{CACHE_FORMAT}")


def _ops_per_iter(cell: Cell) -> float:
    # every scheme evaluates log pi at ~N points per replicate: a (D, D) triangular
    # product, plus O(D) work per point
    return cell.replicates * cell.N * cell.dim * (cell.dim + 30.0)


def estimate(cell: Cell) -> dict:
    """Estimated seconds (LIMITS' rates), bytes and logged values of one cell."""
    ops = cell.iters * _ops_per_iter(cell) + cell.dim ** 3
    overhead = (LIMITS["overhead_s"]
                + (LIMITS["overhead_jsa_step_s"] * cell.N if cell.scheme == "jsa" else 0.0))
    C = cell.N if cell.scheme == "pmcsa" else 1
    # target: 4 (D, D) matrices; run: streams (2 buffers x 32 iterations x R N D), ~12
    # (R, N, D) temporaries, lambda/optimiser (R, 2D) x 4
    nbytes = 8 * (4 * cell.dim ** 2 + cell.replicates * cell.N * cell.dim * (64 + 12)
                  + cell.replicates * C * cell.dim * 2 + 8 * cell.replicates * cell.dim)
    logs = (cell.iters // cell.every + 2) * cell.replicates
    secs = ops / LIMITS["ops_per_s"] + cell.iters * overhead + LIMITS["cell_overhead_s"]
    return {"seconds": secs, "bytes": nbytes, "logged_values": logs}


def _fmt_seconds(s: float) -> str:
    return f"{s / 3600:.3g} h" if s >= 3600 else f"{s / 60:.3g} min" if s >= 60 else f"{s:.2g} s"


def check_cell(cell: Cell, flag_iters: str = "--iters") -> Cell:
    """Raise :class:`GridError` (naming the flag and the allowed values) unless the cell can run."""
    if cell.scheme not in SCHEMES:
        raise GridError(
            f"--scheme: unknown scheme {cell.scheme!r}; choose from {', '.join(SCHEMES)}")
    if cell.optimizer not in OPTIMIZERS:
        raise GridError(
            f"--optimizer: unknown optimizer {cell.optimizer!r}; choose from "
            f"{', '.join(OPTIMIZERS)}")
    if not (isinstance(cell.lr, (int, float)) and math.isfinite(cell.lr) and cell.lr > 0):
        raise GridError(f"--lr: must be a finite number > 0, got {cell.lr!r}")
    for name, v, lo in (("--N", cell.N, 2 if cell.scheme in ("msc", "msc-rb") else 1),
                        ("--dim", cell.dim, 1),
                        ("--nu", cell.nu, 0), ("--target-seed", cell.target_seed, 0),
                        ("--iters", cell.iters, 1),
                        ("--replicates", cell.replicates, 1), ("--seed", cell.seed, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            extra = f" ({cell.scheme} needs N >= 2 particles)" if name == "--N" and lo == 2 else ""
            raise GridError(f"{name}: must be an integer >= {lo}{extra}, got {v!r}")
    rec = cell.record_every
    if (rec is not None
        and (isinstance(rec, bool) or not isinstance(rec, (int, np.integer)) or rec < 1)):
        raise GridError(f"--record-every: must be an integer >= 1, got {cell.record_every!r}")
    est = estimate(cell)
    what = (f"{cell.scheme} with --dim {cell.dim} --N {cell.N} --replicates {cell.replicates} "
            f"{flag_iters} {cell.iters}")
    if est["bytes"] > LIMITS["bytes"]:
        raise GridError(
            f"--dim/--N/--replicates: {what} needs about {est['bytes'] / 2 ** 30:.3g} GiB of "
            f"memory; the limit is {LIMITS['bytes'] / 2 ** 30:.3g} GiB (lower --dim, --N or "
            f"--replicates)")
    if est["seconds"] > LIMITS["seconds_per_run"]:
        raise GridError(
            f"{flag_iters}: {what} would take about {_fmt_seconds(est['seconds'])} on one core "
                        "(measured rates of this code); the limit is "
                        f"{_fmt_seconds(LIMITS['seconds_per_run'])} per run (lower {flag_iters}, "
                        f"--replicates, "
                        "--N or --dim, or split the run)")
    if est["logged_values"] > LIMITS["logged_values"]:
        raise GridError(
            f"--record-every: {est['logged_values']} logged values (logged iterations x "
            f"replicates); the limit is {LIMITS['logged_values']} (raise --record-every)")
    return cell


# ----------------------------------------------------------------------------- one cell
@dataclass
class CellResult:
    """Arrays of one cell.

    ``iteration (L,)``; ``kl, grad_norm, r, rhat_z, ess_z, rhat_lambda``
    ``(L, R)``; ``time_s (L,)``; ``diverged_at (R,)`` (-1: never) with ``diverged_why``;
    ``rejection_rate``/``rejection_rate_last_10pct`` over the whole run; ``costs_per_iteration``
    (001 Table 2 counts); ``elapsed_s``.
    """

    cell: Cell
    iteration: np.ndarray
    values: dict
    time_s: np.ndarray
    diverged_at: np.ndarray
    diverged_why: list
    rejection_rate: float
    rejection_rate_last_10pct: float
    costs_per_iteration: dict
    elapsed_s: float

    def to_json(self) -> dict:
        """Plain, strict-JSON-able dict (NaN -> None, +-inf -> 'inf'/'-inf')."""
        return {"cell": self.cell.params(), "iteration": self.iteration.tolist(),
                "values": {k: _enc(v) for k, v in self.values.items()}, "time_s": _enc(self.time_s),
                "diverged_at": self.diverged_at.tolist(), "diverged_why": list(self.diverged_why),
                "rejection_rate": _enc(self.rejection_rate),
                "rejection_rate_last_10pct": _enc(self.rejection_rate_last_10pct),
                "costs_per_iteration": self.costs_per_iteration, "elapsed_s": self.elapsed_s}

    @classmethod
    def from_json(cls, d: dict) -> "CellResult":
        """Rebuild a result from its cached JSON form (non-finite floats untagged)."""
        return cls(Cell(**d["cell"]), np.asarray(d["iteration"], dtype=np.int64),
                   {k: _dec(v) for k, v in d["values"].items()}, _dec(d["time_s"]),
                   np.asarray(d["diverged_at"], dtype=np.int64), list(d["diverged_why"]),
                   float(_dec(d["rejection_rate"])), float(_dec(d["rejection_rate_last_10pct"])),
                   dict(d["costs_per_iteration"]), float(d["elapsed_s"]))

    def rows(self, key: str | None = None) -> list[dict]:
        """Return the cell's rows of the tidy table (see the module docstring)."""
        p = self.cell.params()
        base = {k: p[k] for k in ("scheme", "optimizer", "lr", "N", "dim", "nu", "target_seed",
                                  "iters",
                                  "replicates", "seed")}
        base["cell"] = (key or self.cell.key())[:12]
        out = []
        for r in range(self.cell.replicates):
            da = int(self.diverged_at[r])
            for i, t in enumerate(self.iteration):
                row = dict(base, replicate=r, iteration=int(t))
                for k in ("kl", "grad_norm", "r", "rhat_z", "ess_z", "rhat_lambda"):
                    row[k] = float(self.values[k][i, r])
                row.update(diverged=bool(0 <= da <= t), diverged_at=(da if da >= 0 else None),
                           time_s=float(self.time_s[i]))
                out.append({c: row[c] for c in COLUMNS})
        return out


def _enc(a):
    """Return an array of floats as nested lists (NaN -> None, +-inf -> 'inf'/'-inf')."""
    return jsonable(np.asarray(a, dtype=float))


def _dec(v):
    def one(x):
        return math.nan if x is None else float(x)

    def rec(x):
        return [rec(y) for y in x] if isinstance(x, list) else one(x)

    return np.asarray(rec(v), dtype=float)


_TARGETS: dict = {}


def _target(dim: int, nu: int, seed: int):
    from .targets import wishart_target

    key = (dim, nu, seed)
    if key not in _TARGETS:
        if len(_TARGETS) > 8:
            _TARGETS.clear()
        _TARGETS[key] = wishart_target(dim, nu, seed=seed)
    return _TARGETS[key]


def batch_key(cell: Cell) -> tuple:
    """Cells with equal batch keys differ only in the step size and run as one vectorised batch."""
    d = cell.params()
    d.pop("lr")
    return tuple(sorted(d.items()))


def run_cell(cell: Cell, progress: Callable[[int], None] | None = None,
             max_draws: int = 50) -> CellResult:
    """Run one cell (``replicates`` vectorised replicate runs) and log it (:func:`run_cells`)."""
    return run_cells([cell], progress=progress, max_draws=max_draws)[0]


def run_cells(cells: list[Cell], progress: Callable[[int], None] | None = None,
              max_draws: int = 50) -> list[CellResult]:
    """Run cells that differ only in the step size as ONE vectorised run, and log each.

    Row ``(cell c, replicate r)`` carries its own step size (per-row ``optim.make``) and
    its own random unit ``(*c.unit_key(), r)`` (``Scheme.init(units=...)``), so its
    numbers are bit-identical to those of ``run_cell(c)`` alone (tested).  Diagnostics
    across replicates (R-hat_lambda; R-hat_z/ESS_z of the one-chain schemes) are taken
    within each cell.  ``time_s``/``elapsed_s`` are the batch's wall times.

    Divergence: a replicate diverges at the first iteration where its lambda or its
    gradient estimate is non-finite, or where KL(pi || q) is non-finite at a logged
    iteration; it keeps running (its numbers are NaN) unless every row has diverged,
    then the run stops and the remaining logged iterations are NaN.  ``progress(t)`` is
    called after iteration t.  Numeric warnings are suppressed (a diverging replicate is
    reported through ``diverged_at``, not through warnings).
    """
    from . import optim
    from .diagnostics import Window
    from .families import MeanFieldGaussian
    from .schemes import COUNT_KEYS, Scheme, kl_inclusive_meanfield

    cells = list(cells)
    if not cells or any(batch_key(c) != batch_key(cells[0]) for c in cells):
        raise ValueError("run_cells needs cells that differ only in lr")
    if len({c.lr for c in cells}) != len(cells):
        raise ValueError("run_cells needs distinct step sizes")
    t_start = time.perf_counter()
    c0 = cells[0]
    target = _target(c0.dim, c0.nu, c0.target_seed)
    fam = MeanFieldGaussian(c0.dim)
    R1, T, every = c0.replicates, c0.iters, c0.every
    R = R1 * len(cells)
    lrs = np.repeat(np.array([float(c.lr) for c in cells]), R1)  # row = i_cell * R1 + replicate
    units = [(*c.unit_key(), r) for c in cells for r in range(R1)]
    sch = Scheme(c0.scheme, target, fam, c0.N, optim.make(c0.optimizer, lrs))
    logged = sorted(set(range(0, T + 1, every)) | {T})
    L = len(logged)
    names = ("kl", "grad_norm", "r", "rhat_z", "ess_z", "rhat_lambda")
    vals = {k: np.full((L, R), np.nan) for k in names}
    times = np.full(L, np.nan)
    div = np.full(R, -1, dtype=np.int64)
    why = [""] * R
    rej_sum = np.zeros(R)
    tail_from = T - max(1, T // 10) + 1
    rej_tail = np.zeros(R)
    diag_every = c0.diag_every
    win = Window(per_replicate=c0.scheme == "pmcsa", span=max(diag_every, 20), max_draws=max_draws,
                 rhat_ess=c0.diagnostics, group=R1)

    def mark(bad, t, reason):
        new = bad & (div < 0)
        div[new] = t
        for r in np.flatnonzero(new):
            why[r] = reason

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        state = sch.init(seed=c0.seed, units=units)
        kl0 = kl_inclusive_meanfield(target, fam, state.lam)
        vals["kl"][0] = kl0
        times[0] = time.perf_counter() - t_start
        mark(~np.isfinite(kl0), 0, "KL(pi||q) is not finite at the start")
        li = 1
        t = 0
        for t in range(1, T + 1):
            state, info = sch.step(state)
            rej = np.asarray(info.rejection, dtype=float)
            rej_sum += rej
            if t >= tail_from:
                rej_tail += rej
            mark(~np.isfinite(info.grad).all(axis=1), t, "the gradient estimate is not finite")
            mark(~np.isfinite(state.lam).all(axis=1), t, "lambda is not finite")
            win.add(state.chains.logp, state.lam, rej, info.grad)
            if li < L and t == logged[li]:
                kl = kl_inclusive_meanfield(target, fam, state.lam)
                mark(~np.isfinite(kl), t, "KL(pi||q) is not finite")
                vals["kl"][li] = kl
                for k, v in win.summary(rhat_ess=t % diag_every == 0 or t == T).items():
                    vals[k][li] = v
                times[li] = time.perf_counter() - t_start
                li += 1
            if progress is not None:
                progress(t)
            if np.all(div >= 0):  # every row diverged: nothing left to learn
                break
        # a diverged replicate's values from divergence on are NaN
        for r in np.flatnonzero(div >= 0):
            after = np.asarray(logged) >= div[r]
            for k in names:
                vals[k][after, r] = np.nan
    done = max(t, 1)
    per_iter = {k: state.counts[k] / done for k in COUNT_KEYS}
    elapsed = time.perf_counter() - t_start
    out = []
    for i, c in enumerate(cells):
        sl = slice(i * R1, (i + 1) * R1)
        out.append(CellResult(c, np.asarray(logged, dtype=np.int64),
                              {k: v[:, sl].copy() for k, v in vals.items()},
                              times, div[sl].copy(), why[sl], float(np.mean(rej_sum[sl] / done)),
                              float(np.mean(rej_tail[sl] / max(1, min(done, T) - tail_from + 1))),
                              per_iter, elapsed))
    return out


def _compute_batch(params: list) -> list:
    """Task body (top-level, picklable): run cells differing only in lr as one batch."""
    return [r.to_json() for r in run_cells([Cell(**p) for p in params])]


# ----------------------------------------------------------------------------- cache
def cache_read(cache: str, key: str):
    """Return the JSON payload stored under ``key`` in the directory ``cache``.

    The store is :class:`mcsa_cli.store.Store`; None when the entry is absent, partial or
    corrupt (checksum, key or format mismatch).

    Parameters
    ----------
    cache : str
        The cache directory.
    key : str
        The entry's key.

    Returns
    -------
    object or None
    """
    return Store(cache, CACHE_FORMAT).get(key)


def _decode_checked(cell: Cell, payload) -> CellResult | None:
    if payload is None:
        return None
    try:
        res = CellResult.from_json(payload)
    except (ValueError, KeyError, TypeError):
        return None
    return res if res.cell == Cell(**{**dataclasses.asdict(cell),
                                      "record_every": cell.every}) else None


def cache_store(cache: str, key: str, result: dict) -> None:
    """Store one entry (:meth:`mcsa_cli.store.Store.put`: checksummed, written atomically).

    Parameters
    ----------
    cache : str
        The cache directory (created when missing).
    key : str
        The entry's key.
    result : dict
        Strict-JSON-able payload (a NaN or infinity in it is refused).
    """
    Store(cache, CACHE_FORMAT).put(key, result)


# ----------------------------------------------------------------------------- grids
def _as_list(name, v) -> list:
    vals = list(v) if isinstance(v, (list, tuple)) else [v]
    if not vals:
        raise GridError(f"--{name.replace('_', '-')}: empty list; give at least one value")
    return vals


def make_cells(grid: Mapping, *, seed: int = 0, record_every: int | None = None,
               diagnostics: bool = True) -> list[Cell]:
    """Return the cells of ``grid`` (a mapping GRID_KEYS -> value or list), in grid order.

    Every cell is checked (:func:`check_cell`); :class:`GridError` names the offending
    flag.  Duplicate values give one cell.
    """
    unknown = set(grid) - set(GRID_KEYS)
    if unknown:
        raise GridError(
            f"unknown grid parameter(s) {', '.join(sorted(unknown))}; allowed: "
            f"{', '.join(GRID_KEYS)}")
    axes: dict[str, list] = {}
    for k, default in GRID_KEYS.items():
        if k not in grid:
            if default is None:
                raise GridError(f"--{k.replace('_', '-')} is required")
            axes[k] = [default]
        else:
            axes[k] = list(dict.fromkeys(_as_list(k, grid[k])))
    n = math.prod(len(v) for v in axes.values())
    if n > LIMITS["cells"]:
        raise GridError(
            f"grid too large: {n} cells; the limit is {LIMITS['cells']} (shorten the lists)")
    cells = []
    for combo in itertools.product(*axes.values()):
        d = dict(zip(axes, combo))
        d["lr"] = float(d["lr"]) if isinstance(d["lr"], (int, float, np.floating)) else d["lr"]
        cells.append(check_cell(Cell(**d, seed=seed, record_every=record_every,
                                     diagnostics=diagnostics)))
    hours = sum(estimate(c)["seconds"] for c in cells) / 3600
    if hours > LIMITS["sweep_core_hours"]:
        raise GridError(
            f"grid too large: {n} cells would take about {hours:.3g} core-hours (measured rates of "
                        f"this code); the limit is {LIMITS['sweep_core_hours']:g} core-hours per "
                        f"sweep (split the "
                        "grid, or lower --iters/--replicates)")
    rows = sum(c.replicates * (c.iters // c.every + 2) for c in cells)
    if rows > LIMITS["rows"]:
        raise GridError(f"grid too large: about {rows} table rows; the limit is {LIMITS['rows']} "
                        "(raise --record-every or shorten the lists)")
    return cells


@dataclass
class SweepResult:
    """What :func:`run_sweep` returns.

    ``rows``: the tidy table (list of dicts with :data:`COLUMNS`), in grid order;
    ``results``: the :class:`CellResult` of each cell; ``computed``/``cached``: counts;
    ``metadata``: grid, seed, versions, timing.
    """

    rows: list
    results: list
    computed: int
    cached: int
    metadata: dict

    def to_dataframe(self):
        """Return the tidy table as a pandas DataFrame.

        One row per (cell, replicate, logged iteration), columns :data:`COLUMNS` (pandas: the
        "dataframe" extra).
        """
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(COLUMNS))

    def to_xarray(self, dims=("scheme", "optimizer", "lr", "N", "dim", "nu", "target_seed",
                              "replicate",
                              "iteration")):
        """Return the table as an :class:`xarray.Dataset`.

        Its dimensions are ``dims`` (default: every grid axis,
        scheme x optimizer x lr x N x dim x nu x target_seed, then replicate x iteration)
        and every other column a variable, so that ``.sel()`` and arviz-stats diagnostics
        work on it directly (xarray: the "dataframe" extra).  Grid axes that do not vary
        are dimensions of length one.
        """
        df = self.to_dataframe()
        dims = [d for d in dims if d in df.columns]
        return df.set_index(dims).to_xarray()

    def write_csv(self, path: str) -> tuple[str, str]:
        """Write the table as CSV and the metadata next to it (same name, ``.json``).

        Both are written atomically.  Floats are written with repr (exact round trip); NaN as
        ``nan``.

        Parameters
        ----------
        path : str
            The CSV file.

        Returns
        -------
        tuple of str
            The CSV and the metadata (strict JSON; a NaN in it is refused) files.
        """
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for row in self.rows:
            w.writerow(["" if row[c] is None
                        else (repr(row[c]) if isinstance(row[c], float) else row[c])
                        for c in COLUMNS])
        meta_path = os.path.splitext(path)[0] + ".json"
        atomic_write(path, buf.getvalue())
        atomic_write(meta_path, dumps(self.metadata, nonfinite="refuse", indent=1) + "\n")
        return path, meta_path


def _versions() -> dict:
    import platform

    import scipy

    out = {"mcsa-verify": _package_version(), "simulator code": code_digest()[:16],
           "python": platform.python_version(),
           "numpy": np.__version__,
           "scipy": scipy.__version__}
    for mod in ("arviz_stats", "dask", "distributed"):
        m = sys.modules.get(mod)
        if m is not None:
            out[mod] = getattr(m, "__version__", "?")
    return out


def run_sweep(grid: Mapping, *, seed: int = 0, record_every: int | None = None,
              diagnostics: bool = True,
              executor: cf.Executor | None = None, workers: int = 1, scheduler: str | None = None,
              cache: str | None = None, progress: bool | Callable[[int, int], None] | None = None,
              threads: int = 1, on_cell: Callable[[Cell, CellResult, bool], None] | None = None,
              batch: bool = True, task: Callable[[list], list] = _compute_batch) -> SweepResult:
    """Run every cell of ``grid`` and return the tidy table (see the module docstring).

    ``grid``: mapping of GRID_KEYS (scheme, optimizer, lr, N, dim, nu, target_seed,
    iters, replicates) to a value or a list.  ``diagnostics=False`` skips R-hat and ESS
    (NaN columns; they cost ~0.05 s per logged iteration at D = 100).  ``executor``: any
    :class:`concurrent.futures.Executor`; else ``scheduler`` (a Dask scheduler address)
    else ``workers`` local processes (1: this process).  ``cache``: directory of finished
    cells (resume).  ``progress``: True for a tqdm bar on stderr (cells done/total,
    elapsed, ETA), a callable ``f(done, total)``, or None/False for none.  ``threads``:
    BLAS threads per local worker process.  ``on_cell(cell, result, from_cache)`` is
    called in this process as each cell finishes (e.g. to count computations; an
    exception from it stops the sweep, finished cells stay cached).  ``batch``: cells
    that differ only in lr run as one vectorised task (:func:`run_cells`; split into at
    least ``workers`` tasks when possible); the table is bit-identical either way.
    ``task``: the picklable function run for a list of cells' parameters (default:
    :func:`run_cells` in JSON form).  The execution (executors, cache, resume, Ctrl-C) is
    :func:`execute`'s.
    Raises :class:`GridError` before anything runs on a bad grid.  With local processes
    (``workers > 1``, spawned), call it under ``if __name__ == "__main__":`` in a script.
    """
    cells = make_cells(grid, seed=seed, record_every=record_every, diagnostics=diagnostics)
    check_workers(workers)
    version = _version()
    keys = [c.key(version) for c in cells]
    t0 = time.perf_counter()
    results, n_cached = execute(
        [c.params() for c in cells], task, keys=keys, cache=cache, workers=workers,
        scheduler=scheduler,
        executor=executor, progress=progress, threads=threads,
        decode=lambda p: CellResult.from_json(p) if isinstance(p, dict) else p,
        encode=CellResult.to_json,
        load=lambda i, p: _decode_checked(cells[i], p),
        on_result=None if on_cell is None else lambda i, res,
        cached: on_cell(cells[i], res, cached),
        group=lambda todo, n: _batches(cells, todo, n if batch else None), desc="sweep",
        unit="cell")
    total = len(cells)
    rows = []
    for res, k in zip(results, keys):
        rows.extend(res.rows(k))
    meta = {"grid": {k: (list(v) if isinstance(v, (list, tuple)) else [v])
                     for k, v in grid.items()},
            "seed": seed, "record_every": record_every, "diagnostics": diagnostics, "batch": batch,
            "cells": total,
            "computed": total - n_cached,
            "cached": n_cached, "columns": list(COLUMNS), "versions": _versions(),
            "executor": executor_name(executor, workers, scheduler),
            "wall_time_s": time.perf_counter() - t0,
            "cell_keys": {k[:12]: c.params() for c, k in zip(cells, keys)}}
    meta["grid"] = jsonable(meta["grid"])
    return SweepResult(rows, results, total - n_cached, n_cached, meta)


def check_workers(workers) -> int:
    """``workers`` if it is an integer >= 1, else :class:`GridError` naming ``--workers``."""
    if isinstance(workers, bool) or not (isinstance(workers, int) and workers >= 1):
        raise GridError(f"--workers: must be an integer >= 1, got {workers!r}")
    return workers


def check_execution(workers=1, scheduler: str | None = None, cache: str | None = None) -> None:
    """Validate execution options before any work (:class:`GridError` naming the flag).

    ``workers`` an integer >= 1; ``scheduler`` a Dask address ``tcp://HOST:PORT`` (not with
    ``workers > 1``: the cluster has its own workers); ``cache`` a directory, created now when
    missing (:func:`mcsa_cli.output_path`: a path that cannot be written -- /sys, a file,
    a read-only file system -- is refused, as root too; when the command goes through
    :func:`mcsa_cli.run`, a directory created here and left empty is removed at the
    end).  Reachability of the scheduler is checked when :func:`execute` connects (before
    any task runs).
    """
    check_workers(workers)
    if scheduler is not None:
        hostport = str(scheduler).split("://", 1)[-1]
        host, _, port = hostport.partition(":")
        if (not (str(scheduler).startswith(("tcp://", "tls://", "inproc://")) or ":" in hostport)
                or hostport.count(":") != 1 or not host or not port.isdigit()):
            raise GridError(f"--scheduler: expected an address tcp://HOST:PORT, got {scheduler!r}")
        if workers != 1:
            raise GridError(
                "--workers: not used with --scheduler (the Dask cluster has its own workers)")
    if cache is not None:
        from mcsa_cli import UsageError, output_path

        try:
            output_path("--cache", os.fspath(cache), kind="dir")
        except UsageError as e:
            raise GridError(str(e)) from None


def executor_name(executor, workers: int, scheduler: str | None) -> str:
    """How :func:`execute` runs tasks, in words (for metadata)."""
    return ("custom" if executor is not None and scheduler is None else
            f"dask {scheduler}" if scheduler else f"{workers} local process(es)")


def execute(tasks: list, fn: Callable[[list], list], *, keys: list[str],
            cache: str | os.PathLike | None = None,
            workers: int = 1, scheduler: str | None = None, executor: cf.Executor | None = None,
            progress: bool | Callable[[int, int], None] | None = None, threads: int = 1,
            decode: Callable | None = None, encode: Callable | None = None,
            load: Callable | None = None,
            on_result: Callable | None = None, group: Callable[[list, int], list] | None = None,
            inline: Callable[[list], list] | None = None, cached_only: bool = False,
            desc: str = "tasks",
            unit: str = "task") -> tuple[list, int]:
    """Run independent keyed tasks, with a resumable cache, on the chosen executor.

    ``tasks[i]``: the (picklable) argument of task ``i``; ``keys[i]``: its cache key (a
    file name: hex digits, letters, ``-``).  ``fn(list of task arguments) -> list of
    payloads`` (one per argument, same order) is top-level and picklable: it runs on the
    ``executor`` given, else on a Dask cluster (``scheduler="tcp://HOST:PORT"``), else on
    ``workers`` spawned local processes (``threads`` BLAS threads each; they ignore Ctrl-C,
    which stops them at once), else (``workers=1``) in this process, calling ``inline``
    instead of ``fn`` when given (e.g. with a progress callback that cannot be pickled).
    ``group(todo indices, executor slots) -> list of index lists``: which tasks travel
    together in one call of ``fn`` (default: one each); lists run in the order given.

    ``decode(payload) -> result`` (default: identity) turns what ``fn`` returns into the
    result; ``encode(result)`` (default: identity) into the strict-JSON cache payload;
    ``load(i, payload) -> result or None`` reads a cached payload (None: recompute; default
    ``decode``).  With ``cache=DIR`` each finished task is stored atomically as
    ``DIR/<key>.json`` with a SHA-256 checksum line (:func:`cache_store`); a rerun reads it
    instead of computing (:func:`cache_read`: a corrupt, partial or mismatched entry is
    recomputed, never read).  ``cached_only``: compute nothing (missing results are None).
    ``on_result(i, result, from_cache)`` is called in this process as each result arrives
    (an exception from it stops the run; finished tasks stay cached).  ``progress``: True
    for a tqdm bar on stderr (``desc``, ``unit``), a callable ``f(done, total)``, or None.

    Local processes are :func:`mcsa_cli.pool.local_pool`'s, the cache is a
    :class:`mcsa_cli.store.Store`.

    Parameters
    ----------
    tasks : list
        One picklable argument per task.
    fn : callable
        ``fn(list of task arguments) -> list of payloads``, top-level and picklable.
    keys : list of str
        One cache key per task.
    cache : path-like, optional
        The cache directory.
    workers, scheduler, executor, threads
        Where the tasks run (see above).
    decode, encode, load, on_result, group, inline, cached_only, progress, desc, unit
        See above.

    Returns
    -------
    tuple
        ``(results, n_cached)``, results in the order of ``tasks``.
    """
    check_workers(workers)
    decode = decode or (lambda p: p)
    encode = encode or (lambda r: r)
    load = load or (lambda i, p: decode(p))
    n = len(tasks)
    if len(keys) != n:
        raise ValueError("execute needs one key per task")
    cache = None if cache is None else os.fspath(cache)
    results: list = [None] * n
    n_cached = 0
    if cache is not None:
        os.makedirs(cache, exist_ok=True)
        for i, k in enumerate(keys):
            res = load(i, cache_read(cache, k))
            if res is not None:
                results[i] = res
                n_cached += 1
                if on_result is not None:
                    on_result(i, res, True)
    todo = [i for i, r in enumerate(results) if r is None]
    if cached_only:
        return results, n_cached
    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=n, initial=n_cached, unit=unit, file=sys.stderr, dynamic_ncols=True,
                   desc=desc)
        tick = bar.update
    elif callable(progress):
        done_box = [n_cached]
        progress(n_cached, n)

        def tick(k):
            done_box[0] += k
            progress(done_box[0], n)
    else:
        def tick(k):
            pass

    def finish(i, payload):
        res = decode(payload)
        if cache is not None:
            cache_store(cache, keys[i], encode(res))
        results[i] = res
        tick(1)
        if on_result is not None:
            on_result(i, res, False)

    client = None
    try:
        if todo:
            if executor is None and scheduler is not None:
                try:
                    from dask.distributed import Client
                except ImportError:
                    raise GridError(
                        "--scheduler needs Dask: pip install 'mcsa-verify[dask]'") from None
                try:
                    client = Client(scheduler, timeout="10s")
                except (OSError, TimeoutError) as e:
                    raise GridError(
                        f"--scheduler: cannot reach the Dask scheduler at {scheduler!r} "
                        f"({e})") from None
                executor = client.get_executor()
            n_exec = workers if executor is None and scheduler is None else max(workers, 2)
            groups = group(todo, n_exec) if group is not None else [[i] for i in todo]
            if executor is None and workers > 1 and len(groups) > 1:
                with local_pool(min(workers, len(groups)), threads) as own:  # stopped on Ctrl-C
                    for j, payloads in unordered(own, fn, [[tasks[i] for i in g] for g in groups]):
                        for i, payload in zip(groups[j], payloads):
                            finish(i, payload)
            elif executor is None:
                for g in groups:  # in this process, in the order given
                    for i, payload in zip(g, (inline or fn)([tasks[i] for i in g])):
                        finish(i, payload)
            else:
                _run_on(executor, fn, tasks, groups, finish)
    finally:
        if client is not None:
            client.close()
        if bar is not None:
            bar.close()
    return results, n_cached


def _batches(cells: list, todo: list, tasks: int | None) -> list[list[int]]:
    """Group the indices of ``todo`` into tasks.

    Cells differing only in lr go together (in grid order), groups split until there are at
    least ``tasks`` of them (when possible);
    ``tasks=None``: one cell per task.
    """
    if tasks is None:
        return [[i] for i in todo]
    groups: dict = {}
    for i in todo:
        groups.setdefault(batch_key(cells[i]), []).append(i)
    out = list(groups.values())
    while len(out) < tasks:
        big = max(range(len(out)), key=lambda j: len(out[j]))
        g = out[big]
        if len(g) < 2:
            break
        out[big:big + 1] = [g[:len(g) // 2], g[len(g) // 2:]]
    return out


def _run_on(executor: cf.Executor, fn, tasks, groups: Iterable[list], finish) -> None:
    """Submit every group to the caller's executor, then ``finish`` each result as it arrives.

    The executor is a Dask cluster's, or any.  On an exception the futures not started are
    cancelled.  (A local pool of :func:`execute`'s own is :func:`mcsa_cli.pool.local_pool`'s.)
    """
    futs = {executor.submit(fn, [tasks[i] for i in g]): g for g in groups}
    try:
        for f in cf.as_completed(futs):
            for i, payload in zip(futs[f], f.result()):
                finish(i, payload)
    except BaseException:
        for f in futs:
            f.cancel()
        raise
