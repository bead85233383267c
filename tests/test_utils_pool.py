"""The one local process pool (mcsa_cli.pool): results by index, a broken pool raised or left
to the caller, workers that ignore Ctrl-C and are stopped at once when the caller fails."""

import os
import signal
import time

import pytest

from mcsa_cli.pool import BrokenProcessPool, local_pool, unordered


def test_results_arrive_with_their_index():
    with local_pool(2) as pool:
        got = dict(unordered(pool, abs, [-3, 4, -5]))
    assert got == {0: 3, 1: 4, 2: 5}


def test_workers_ignore_ctrl_c_and_see_the_blas_threads():
    with local_pool(1, threads=3) as pool:
        (_, handler), = unordered(pool, signal.getsignal, [signal.SIGINT])
        (_, blas), = unordered(pool, os.getenv, ["OPENBLAS_NUM_THREADS"])
    assert handler == signal.SIG_IGN and blas == "3"


def test_a_dead_worker_raises_or_is_left_to_the_caller():
    with pytest.raises(BrokenProcessPool):
        with local_pool(1) as pool:
            list(unordered(pool, os._exit, [3]))
    reached = []
    with local_pool(1, broken="ignore") as pool:
        list(unordered(pool, os._exit, [3]))
        reached.append(True)  # not reached: the broken pool ends the block
    assert reached == []


def test_an_error_in_the_caller_stops_the_workers_at_once():
    """The workers are terminated, not waited for: a task that would sleep a minute is cut."""
    with pytest.raises(KeyError):
        with local_pool(1) as pool:
            futs = dict(enumerate([pool.submit(time.sleep, 60)]))
            procs = list(pool._processes.values())
            raise KeyError("stop")
    for p in procs:
        p.join(timeout=30)
        assert not p.is_alive()
    assert futs[0].cancelled() or futs[0].exception() is not None
