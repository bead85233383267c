"""The suite's one quick run of every claim, stood in for a command's own quick run.

:func:`cached_runs` ``("quick", 0)`` is computed once for the whole suite (the figure, verify,
report and plot tests read it).
The test processes (pytest-xdist workers) share the claims' results through a directory of the
session (``$MCSA_TEST_RUNS``): a worker reads a claim's result from there when another worker has
written it, and otherwise computes it and writes it.  The workers walk the claims in opposite
directions, so that two of them starting together split the work and meet in the middle.  Every
worker takes each result through :func:`verify.running.runner.encode` and
:func:`verify.running.runner.decode`
(the claim cache's strict-JSON payload), whichever worker computed it, so the tests see the same
objects whichever worker they run on and in whatever order.

A test of what a command *shows* (``python -m verify CLAIM --plot``, ``--quick --json``) runs
the claim again through the runner, recomputing the same
``run_verification(REGISTRY[claim], "quick", seed=0)``.  Inside :func:`quick_runs_shared` that
call returns the shared run instead; every other call (another mode, seed, bound scale,
overrides, or a claim whose registered entry is not the one run) is computed as before.  A test
that changes a claim's registered entry (its readings, its run) must leave the block first.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from pathlib import Path

#: the session's directory of shared results (set by tests/conftest.py in the pytest controller)
SHARED_DIR = "MCSA_TEST_RUNS"


@functools.lru_cache(maxsize=2)
def cached_runs(mode: str = "quick", seed: int = 0) -> dict:
    """{claim: Report} of one run of every registered claim in ``mode`` with ``seed``, shared by
    the suite's processes (module docstring)."""
    from mcsa_cli import atomic_write, dumps
    from verify.presenting.report import claim_ids
    from verify.registry import REGISTRY
    from verify.running.outcome import run_verification
    from verify.running.runner import decode, encode

    ids = claim_ids()
    where = os.environ.get(SHARED_DIR)
    folder = Path(where) if where else None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    walk = ids[::-1] if int(worker.lstrip("gw") or 0) % 2 else ids
    payloads = {}
    for cid in walk:
        path = folder / f"{cid}-{mode}-{seed}.json" if folder else None
        if path is not None and path.exists():
            payloads[cid] = json.loads(path.read_text())
            continue
        text = dumps(encode(run_verification(REGISTRY[cid], mode, seed=seed)))
        payloads[cid] = json.loads(text)
        if path is not None:
            atomic_write(path, text)
    return {cid: decode(payloads[cid]) for cid in ids}


def _sharing(run):
    """``run`` (verify.running.outcome.run_verification), with the registered claims' quick runs at
    seed 0
    taken from the shared run."""
    from verify.registry import REGISTRY

    runs = cached_runs("quick", 0)

    def shared(v, mode="quick", seed=0, **kw):
        mine = v.claim in runs and REGISTRY.get(v.claim) is v
        if mode == "quick" and seed == 0 and not kw and mine:
            return runs[v.claim]
        return run(v, mode, seed=seed, **kw)

    return shared


@contextlib.contextmanager
def quick_runs_shared():
    """Within the block, the registered claims' quick runs at seed 0 are the shared run."""
    from verify.running import outcome

    run = outcome.run_verification
    outcome.run_verification = _sharing(run)
    try:
        yield
    finally:
        outcome.run_verification = run


def share_quick_runs(monkeypatch) -> None:
    """:func:`quick_runs_shared` until the end of the test (through pytest's ``monkeypatch``)."""
    from verify.running import outcome

    monkeypatch.setattr(outcome, "run_verification", _sharing(outcome.run_verification))
