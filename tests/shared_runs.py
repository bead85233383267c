"""The process's one quick run of every claim, stood in for a command's own quick run.

``verify.report.cached_runs("quick", 0)`` is computed once per test process (the figure, verify,
report and plot tests read it).  A test of what a command *shows* (``python -m verify CLAIM
--plot``, ``--quick --json``) runs the claim again through the runner, recomputing the same
``run_verification(REGISTRY[claim], "quick", seed=0)``.  Inside :func:`quick_runs_shared` that
call returns the shared run instead; every other call (another mode, seed, bound scale,
overrides, or a claim whose registered entry is not the one run) is computed as before.  A test
that changes a claim's registered entry (its readings, its run) must leave the block first.
"""

from __future__ import annotations

import contextlib


def _sharing(run):
    """``run`` (verify.outcome.run_verification), with the registered claims' quick runs at seed 0
    taken from the shared run."""
    from verify.registry import REGISTRY
    from verify.report import cached_runs

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
    from verify import outcome

    run = outcome.run_verification
    outcome.run_verification = _sharing(run)
    try:
        yield
    finally:
        outcome.run_verification = run


def share_quick_runs(monkeypatch) -> None:
    """:func:`quick_runs_shared` until the end of the test (through pytest's ``monkeypatch``)."""
    from verify import outcome

    monkeypatch.setattr(outcome, "run_verification", _sharing(outcome.run_verification))
