"""verify.testing.check_claim: every registered claim conforms, and broken claims are rejected.

The first run of each claim is the shared quick run (``shared_runs.cached_runs("quick",
0)``, also used by the figure and report tests): check_claim re-decides its checks at
tightened bounds without recomputing them.  The reproducibility rerun (in a second process
with another PYTHONHASHSEED) is made for a fixed sample of fast claims (one exact, two with
Monte Carlo checks) and for the example claim of ``examples/mcgd-claims`` when that package
is installed.
"""

import numpy as np
import pytest
from shared_runs import cached_runs

import bounds
from verify.model import HOLDS, VIOLATED, CheckResult, Grid, Verification
from verify.presenting.report import claim_ids
from verify.running.outcome import run_verification
from verify.testing import SCALES, Conformance, check_claim

#: claims rerun for reproducibility: fast ones (lemma2 exact; the other two Monte Carlo), and the
#: example
RERUN = ("lemma2", "sgfs_autocovariance", "sgfs_convergence_criterion", "mcgd_average_bias")


@pytest.fixture(scope="module")
def quick():
    return cached_runs("quick", 0)


@pytest.mark.parametrize("cid", claim_ids())
def test_every_claim_conforms(quick, cid):
    rep = quick[cid]
    res = check_claim(cid, report=rep, rerun=cid in RERUN)
    assert isinstance(res, Conformance) and res.claim == cid and res.verdict == rep.verdict
    assert (res.checks == len(rep.checks) and res.monte_carlo
            == sum(c.method == "monte-carlo" for c in rep.checks))
    assert res.reproducible is (True if cid in RERUN else None)
    assert res.power_scale in (1.0, *SCALES)
    assert str(res).startswith(f"{cid}: conforms")


def test_the_rerun_sample_is_registered_and_has_monte_carlo_checks(quick):
    builtin = RERUN[:3]
    assert set(builtin) <= set(claim_ids())
    assert sum(any(c.method == "monte-carlo" for c in quick[cid].checks) for cid in builtin) == 2


# ----------------------------------------------------------------------------- broken claims
# The run functions are module-level: check_claim reruns a claim in a second process, which imports
# them.
def _verification(run, method="exact"):
    return Verification("broken_example", measures="a made-up quantity", targets="nothing",
                        method=method,
                        forms="stated", grid=Grid({}, {}), run=run)


def _run_cannot_fail(grid, seed=0, progress=None):
    return [CheckResult("q", "stated", {"i": i}, 0.0, 1.0 + i, "exact") for i in range(3)]


def _run_half(grid, seed=0, progress=None):
    return [CheckResult("q", "stated", {}, 0.5, 1.0, "exact")]


def _run_fresh_entropy(grid, seed=0, progress=None):
    x = np.random.default_rng().normal(size=100)  # fresh OS entropy: the seed is not used
    return [CheckResult("mean", "stated", {}, 5.0 + 1e-3 * float(x.mean()), 10.0, "monte-carlo",
                        stderr=1e-4)]


def _mean_check(seed, kind_key):
    x = np.random.default_rng([seed, kind_key]).normal(size=1000)
    return [CheckResult("mean", "stated", {"kind": "normal"}, 0.7 + 0.1 * float(x.mean()), 1.0,
                        "monte-carlo",
                        stderr=0.1 / np.sqrt(1000))]


def _run_hash_seeded(grid, seed=0, progress=None):
    """A user's claim seeded with hash(kind): the same in one process, different in another (string
    hashes
    are salted per process by PYTHONHASHSEED)."""
    return _mean_check(seed, hash("normal") & 0xFFFFFFFF)


def _run_crc_seeded(grid, seed=0, progress=None):
    """The same claim seeded with a stable digest of kind (zlib.crc32): the same in every
    process.
    """
    import zlib

    return _mean_check(seed, zlib.crc32(b"normal"))


def test_a_bound_that_cannot_fail_is_rejected():
    """Empirical values of 0 against positive bounds: no tightening makes them fail."""
    with pytest.raises(AssertionError, match="no tightened bound is violated") as e:
        check_claim(_verification(_run_cannot_fail))
    assert "\n" not in str(e.value) and str(e.value).startswith("broken_example: ")


def test_the_same_claim_with_a_real_empirical_value_conforms_at_the_scale_that_breaks_it():
    """Positive control: empirical 0.5 against bound 1 holds at scales 0.99, 0.9, 0.5 and fails at
    0.1.
    """
    res = check_claim(_verification(_run_half))
    assert res.power_scale == 0.1 and res.verdict == "holds" and res.reproducible is True
    assert res.rerun_hashseed and "same checks in a second process (PYTHONHASHSEED=" in str(res)


def test_a_run_that_ignores_its_seed_is_rejected():
    with pytest.raises(AssertionError,
                       match="not reproducible: the same seed gave different checks") as e:
        check_claim(_verification(_run_fresh_entropy, "monte-carlo"))
    assert "no tightened bound" not in str(e.value)  # it has power: only reproducibility fails


def test_a_claim_seeded_with_hash_is_rejected():
    """The planted non-reproducible claim: seeded with hash(kind), it gives the same checks twice in
    one process (a rerun in this process would pass it) but other checks in a second process with
    another
    PYTHONHASHSEED; check_claim reruns it there and rejects it, naming the check that differs."""
    from verify.running.outcome import run_verification as rv

    v = _verification(_run_hash_seeded, "monte-carlo")
    a, b = rv(v, "quick", seed=0), rv(v, "quick", seed=0)
    assert a.checks[0].empirical == b.checks[0].empirical  # one process: "reproducible"
    with pytest.raises(AssertionError,
                       match=r"not reproducible: the same seed gave different checks in a second "
                                             r"process with PYTHONHASHSEED=\d+ \(check 0 \(mean, "
                                             r"stated\) ") as e:
        check_claim(v)
    assert "\n" not in str(e.value) and "no tightened bound" not in str(e.value)
    # the same claim seeded with a stable digest of kind conforms
    res = check_claim(_verification(_run_crc_seeded, "monte-carlo"))
    assert res.reproducible is True and res.monte_carlo == 1


def test_a_verification_that_cannot_be_sent_to_a_second_process_is_said_so():
    """A run function defined inside a function cannot be pickled: check_claim says why instead of
    passing it
    unchecked (with rerun=False it is not rerun and not called reproducible)."""
    def run(grid, seed=0, progress=None):
        return [CheckResult("q", "stated", {}, 0.5, 1.0, "exact")]

    with pytest.raises(AssertionError,
                       match="cannot rerun in a second process: the verification cannot be "
                             "pickled"):
        check_claim(_verification(run))
    assert check_claim(_verification(run), rerun=False).reproducible is None


def test_a_monte_carlo_check_without_standard_error_and_a_bound_not_evaluating_are_rejected():
    def run(grid, seed=0, progress=None):
        return [CheckResult("mean", "stated", {}, 5.0, 1.0, "monte-carlo"),
                CheckResult("q", "stated", {}, 1.0, float("nan"), "exact")]

    with pytest.raises(AssertionError) as e:
        check_claim(_verification(run, "exact+monte-carlo"), rerun=False)
    msg = str(e.value)
    assert ("without a finite standard error" in msg and "bound did not evaluate" in msg
            and "\n" not in msg)


CALLS = []


def _run_counted(grid, seed=0, progress=None):
    CALLS.append(seed)
    return [CheckResult("q", "stated", {}, 0.5, 1.0, "exact")]


def test_a_given_report_is_not_recomputed():
    """At most one run here: none with a report (the rerun is in a second process), one without."""
    v = _verification(_run_counted)
    rep = run_verification(v, "quick", seed=3)
    CALLS.clear()
    assert check_claim(v, seed=3, report=rep, rerun=False).reproducible is None and CALLS == []
    assert check_claim(v, seed=3, report=rep).reproducible is True
    assert CALLS == []  # rerun in the second process, not here
    check_claim(v, seed=3)
    assert CALLS == [3]


def test_bad_arguments(quick):
    with pytest.raises(ValueError, match="mode"):
        check_claim("lemma2", mode="medium")
    with pytest.raises(ValueError, match="not of 'lemma1'"):
        check_claim("lemma1", report=quick["lemma2"], rerun=False)
    with pytest.raises(ValueError, match="seed"):
        check_claim("lemma2", seed=1, report=quick["lemma2"], rerun=False)
    with pytest.raises(bounds.UnknownClaim):
        check_claim("no_such_claim")


def test_power_is_decided_on_every_reading(quick):
    """The scale found breaks every reading's empirical verdict, and no looser scale does."""
    from verify.running.outcome import rescore

    for cid in ("theorem4", "lemma7", "proposition2"):  # claims with several readings
        res = check_claim(cid, report=quick[cid], rerun=False)
        # every reading fails at that scale: violated, or (reading rule 4) undecided where only a
        # check with the proof's explicit constants fails, which the power check counts and the
        # statement's verdict does not
        at = rescore(quick[cid], res.power_scale).empirical_readings.values()
        assert VIOLATED in at and HOLDS not in at, (cid, at)
        # and each reading's statement checks alone fail at some scale of SCALES
        for name in quick[cid].empirical_readings:
            assert any(rescore(quick[cid], s).empirical_readings[name] == VIOLATED
                       for s in SCALES), (cid, name)
        looser = [s for s in (1.0, *SCALES) if s > res.power_scale]
        for s in looser:
            assert set(rescore(quick[cid], s).empirical_readings.values()) != {VIOLATED}
