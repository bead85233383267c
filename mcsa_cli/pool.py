"""The one local process pool of the toolkit, with its Ctrl-C and broken-pool handling.

:func:`local_pool` starts ``workers`` spawned processes (``threads`` BLAS threads each)
that leave Ctrl-C to the parent: they start with SIGINT blocked (:func:`sigint_deferred`
holds a Ctrl-C pressed meanwhile and raises it afterwards) and ignore it from their
initializer on (:func:`worker_init`).  On leaving the block normally the pool is shut down
(waiting for its workers); on an exception -- Ctrl-C, an error of the caller -- its queued
tasks are cancelled and its workers terminated at once (:func:`stop_pool`), without a
traceback from the pool's manager thread.  :func:`unordered` submits the tasks and yields
each result as it arrives.

A pool whose workers die or cannot start raises :class:`BrokenProcessPool`;
``local_pool(..., broken="ignore")`` swallows it, for callers that then compute what is
missing in this process (:func:`can_spawn` says beforehand whether spawned workers can
start at all).  Results never depend on the pool: callers seed each task by its identity.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["BrokenProcessPool", "blas_env", "can_spawn", "local_pool", "sigint_deferred",
           "stop_pool", "unordered", "worker_init"]


@contextlib.contextmanager
def blas_env(threads: int):
    """BLAS thread count for processes started inside the block (restored afterwards).

    Parameters
    ----------
    threads : int
        ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` of the processes
        started meanwhile.
    """
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    old = {k: os.environ.get(k) for k in names}
    os.environ.update({k: str(threads) for k in names})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def worker_init():
    """Local worker processes leave Ctrl-C to the parent, which stops them (no tracebacks).
    They start with SIGINT blocked (:func:`sigint_deferred`); ignoring it discards one
    that arrived during their start-up, then it is unblocked."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def sigint_deferred():
    """Hold Ctrl-C back while local workers are spawned, without losing it.

    The workers are new interpreters: until :func:`worker_init` runs, a Ctrl-C (sent by
    the terminal to the whole process group) would raise KeyboardInterrupt in them and
    print their tracebacks.  So SIGINT is blocked in this thread while they are spawned --
    a spawned process inherits the signal mask, as multiprocessing's own resource tracker
    relies on -- and this process only records a Ctrl-C that arrives meanwhile (its
    handler runs in the main thread, and must not interrupt a half-started worker).
    Afterwards the handler and the mask are restored and a recorded Ctrl-C is raised as
    KeyboardInterrupt.  (Ignoring SIGINT instead lost a Ctrl-C pressed during the spawn:
    the run went on.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield  # (ignored already, e.g. a background job: the workers inherit that)
        return
    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (Windows): ignore it meanwhile
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, old)
        return
    # multiprocessing's resource tracker, started by the first spawn, unblocks SIGINT after
    # starting itself: start it now, before blocking
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    seen = []
    old_handler = signal.signal(signal.SIGINT, lambda *_: seen.append(True))
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)  # a pending Ctrl-C is recorded now
        signal.signal(signal.SIGINT, old_handler)
    if seen:
        raise KeyboardInterrupt


def stop_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Stop a local pool after Ctrl-C or an error: cancel the queued tasks, terminate the
    workers, wait for the pool's manager thread to finish.

    The order matters.  ``shutdown(cancel_futures=True)`` cancels the queued futures and
    takes them out of the pool's table of pending work; cancelling them one by one
    (``Future.cancel``) left them in it, and the manager thread, seeing the terminated
    workers, then set BrokenProcessPool on a cancelled future: InvalidStateError and a
    12-line traceback from the thread (Python 3.11's concurrent.futures), after the
    'interrupted' line, in about a third of the Ctrl-Cs.

    Parameters
    ----------
    pool : concurrent.futures.ProcessPoolExecutor
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    if manager is not None:
        manager.join(timeout=10)


def can_spawn() -> bool:
    """Whether spawned workers can start: they import ``__main__`` by its file, so a script
    read from stdin (a ``__main__`` file that does not exist) cannot have any.

    Returns
    -------
    bool
    """
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    return not (main_file and not os.path.exists(main_file))


@contextlib.contextmanager
def local_pool(workers: int, threads: int = 1, *, broken: str = "raise"):
    """A pool of ``workers`` spawned local processes (see the module docstring).

    Parameters
    ----------
    workers : int
        Worker processes (>= 1).
    threads : int
        BLAS threads of each worker (:func:`blas_env`).
    broken : {"raise", "ignore"}
        ``"ignore"``: a :class:`BrokenProcessPool` (a worker died, or none could start)
        ends the block quietly; the caller computes what is missing itself.

    Yields
    ------
    concurrent.futures.ProcessPoolExecutor
        Shut down on leaving the block; stopped at once (:func:`stop_pool`) on an exception.
    """
    import multiprocessing as mp

    # the workers are spawned at the first submit: the BLAS setting holds for the whole block
    with blas_env(threads):
        pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                      initializer=worker_init)
        try:
            yield pool
        except BrokenProcessPool:
            stop_pool(pool)
            if broken != "ignore":
                raise
        except BaseException:
            stop_pool(pool)  # interrupted or failed: the tasks in flight are lost, not waited for
            raise
        else:
            pool.shutdown(wait=True)


def unordered(pool: cf.Executor, fn: Callable, args: list) -> Iterator[tuple[int, Any]]:
    """Submit ``fn(args[i])`` for every ``i`` (Ctrl-C deferred while the workers are spawned)
    and yield ``(i, result)`` as each finishes.

    Parameters
    ----------
    pool : concurrent.futures.Executor
        A :func:`local_pool`.
    fn : callable
        Top-level, picklable.
    args : list
        One argument per task.

    Yields
    ------
    tuple
        ``(index into args, fn's result)``, in the order the tasks finish; a task's
        exception is raised here.
    """
    with sigint_deferred():
        futs = {pool.submit(fn, a): i for i, a in enumerate(args)}
    for f in cf.as_completed(futs):
        yield futs[f], f.result()
