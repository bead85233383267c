"""Convergence diagnostics (simulate.diagnostics): R-hat and ESS on arrays with known
answers, the run window, and `simulate run --json` carrying them.  About 3 s."""

import json

import numpy as np
import pytest

from simulate.cli import main
from simulate.diagnostics import Window, ess, rhat


def test_iid_chains_rhat_near_one_and_ess_near_draws():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 1000, 3))  # 4 chains, 1000 iid draws, 3 coordinates
    r = rhat(x, 0, 1)
    e = ess(x, 0, 1)
    assert r.shape == (3,) and np.all(np.abs(r - 1) < 0.01)
    # iid: ESS ~ 4000 (bulk ESS of iid normal draws is the draw count up to ~10%)
    assert np.all((e > 3000) & (e < 5000))


def test_stuck_chains_rhat_far_above_one_and_autocorrelated_ess_small():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 500)) * 0.1 + np.arange(4)[:, None]  # chains stuck at 0, 1, 2, 3
    # rank-normalised R-hat saturates for fully separated chains (ranks are bounded): ~2.8
    assert rhat(x, 0, 1) > 2
    assert rhat(x, 0, 1, method="split") > 5  # the classic split R-hat grows with the separation
    # AR(1) with phi = 0.95: ESS ~ n (1 - phi)/(1 + phi) = 4000 * 0.026 ~ 100
    n, phi = 1000, 0.95
    z = np.zeros((4, n))
    eps = rng.standard_normal((4, n))
    for t in range(1, n):
        z[:, t] = phi * z[:, t - 1] + eps[:, t]
    e = float(ess(z, 0, 1))
    assert 30 < e < 400
    assert e < 0.1 * 4 * n


def test_too_few_chains_or_draws_give_nan():
    x = np.random.default_rng(2).standard_normal((1, 100))
    assert np.isnan(rhat(x, 0, 1))
    assert np.isnan(rhat(np.ones((3, 2)), 0, 1)) and np.isnan(ess(np.ones((3, 2)), 0, 1))


def test_window_per_replicate_and_across_replicates():
    rng = np.random.default_rng(3)
    R, C, P = 3, 4, 2
    w_multi = Window(per_replicate=True, span=40)
    w_one = Window(per_replicate=False, span=40)
    for t in range(40):
        lp = rng.standard_normal((R, C))
        lp[1] += 10.0 * np.arange(C)  # replicate 1's chains disagree
        lam = rng.standard_normal((R, P))
        g = np.full((R, P), 3.0 / np.sqrt(P))
        w_multi.add(lp, lam, np.array([0.0, 0.5, 1.0]), g)
        w_one.add(lp[:, :1], lam, np.zeros(R), g)
    s = w_multi.summary()
    assert np.allclose(s["r"], [0.0, 0.5, 1.0]) and np.allclose(s["grad_norm"], 3.0)
    assert s["rhat_z"][1] > 2 and abs(s["rhat_z"][0] - 1) < 0.2 and abs(s["rhat_z"][2] - 1) < 0.2
    assert s["rhat_lambda"].shape == (R,) and np.all(np.abs(s["rhat_lambda"] - 1) < 0.2)
    s1 = w_one.summary()  # one chain per replicate: across replicates, one value for all rows
    assert np.all(s1["rhat_z"] == s1["rhat_z"][0]) and np.isfinite(s1["rhat_z"][0])
    with pytest.raises(ValueError):
        w_one.summary()  # nothing added since the last summary


def test_window_groups_keep_replicates_of_different_runs_apart():
    rng = np.random.default_rng(4)
    w = Window(per_replicate=False, span=30, group=2)
    for t in range(30):
        lam = rng.standard_normal((4, 2))
        lam[2:] += np.array([[0.0], [50.0]])  # group 1's two replicates disagree
        w.add(rng.standard_normal((4, 1)), lam, np.zeros(4), np.ones((4, 2)))
    s = w.summary()
    assert np.all(s["rhat_lambda"][:2] < 1.2) and np.all(s["rhat_lambda"][2:] > 5)


def test_run_json_carries_the_diagnostics(capsys):
    rc = main(["run", "--scheme", "pmcsa", "--dim", "3", "--N", "4", "--iters", "60", "--optimizer",
               "adam",
               "--lr", "0.05", "--replicates", "2", "--record-every", "20", "--json"])
    out, _ = capsys.readouterr()

    def refuse(c):
        raise ValueError(c)

    d = json.loads(out, parse_constant=refuse)
    assert rc == 0
    diag = d["diagnostics"]
    assert diag["iterations"] == [0, 20, 40, 60]
    assert {"r", "rhat_z", "ess_z", "rhat_lambda", "grad_norm", "final"} <= set(diag)
    assert len(diag["rhat_z"]) == 2 and len(diag["rhat_z"][0]) == 4
    assert diag["rhat_z"][0][0] is None  # iteration 0: no draws yet
    fin = diag["final"]
    assert all(0 <= r <= 1 for r in fin["r"])
    assert all(x > 0.5 for x in fin["rhat_z"]) and all(x > 1 for x in fin["ess_z"])
    assert fin["rhat_lambda"][0] is not None and fin["rhat_lambda"][0] >= 0.9
