"""Execution options of claims that run on the sweep engine (``--workers``, ``--scheduler``,
``--cache``): one parser and one validator for every command line that takes them
(``python -m verify CLAIM``, ``python -m verify.running.reproductions``).  How cells run never
changes the numbers (:mod:`simulate.sweep`)."""

from __future__ import annotations

import argparse

from mcsa_cli import UsageError, number

#: execution options of the claims whose runs go through the sweep engine (Verification.execution)
EXECUTION_FLAGS = ("workers", "scheduler", "cache")


def add_execution_flags(ap, shown: bool = True) -> None:
    """--workers, --scheduler, --cache (hidden from --help when ``shown`` is False)."""
    def h(text):
        return text if shown else argparse.SUPPRESS

    ap.add_argument("--workers", default=None, metavar="K",
                    help=h("run the cells on K local processes (integer >= 1, default 1); the "
                           "numbers do not depend on it"))
    ap.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                    help=h("run the cells on a running Dask cluster instead (pip install "
                           "'mcsa-verify[dask]')"))
    ap.add_argument("--cache", default=None, metavar="DIR",
                    help=h("directory of finished cells, checksummed: a rerun computes none again "
                           "(default with --full: out/figure-cache; none with --quick)"))


def execution_options(a) -> dict:
    """The parsed and validated execution options of ``a`` (:class:`UsageError`, one line,
    before any work); only those given."""
    from simulate.sweep import GridError, check_execution

    ex = {}
    if a.workers is not None:
        ex["workers"] = number("--workers", a.workers, integer=True, lo=1, hi=1024)
    if a.scheduler is not None:
        ex["scheduler"] = str(a.scheduler).strip()
    if a.cache is not None:
        ex["cache"] = str(a.cache)
    try:
        check_execution(ex.get("workers", 1), ex.get("scheduler"), ex.get("cache"))
    except GridError as e:
        raise UsageError(str(e)) from None
    return ex
