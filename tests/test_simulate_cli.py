"""`python -m simulate`: tv / moment / run, JSON keys, reproducibility, exit code 2 on bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from simulate.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_tv_json_keys_and_exact_worst_start(capsys):
    rc, out, _ = run(capsys, "tv", "--kernel", "imh", "--dim", "10", "--proposal-scale", "1.5",
                     "--steps", "5",
                     "--json")
    d = json.loads(out)
    assert rc == 0 and {"tv", "w_star", "error_bound"} <= set(d)
    r = 1 - 1 / 1.5 ** 10
    # Wang (2022): exact at the worst start
    assert np.allclose(d["tv"], [r ** k for k in range(1, 6)], rtol=1e-12)
    rc, out, _ = run(capsys, "tv", "--kernel", "cis", "--N", "8", "--dim", "10", "--proposal-scale",
                     "1.5",
                     "--steps", "5", "--start", "typical", "--json")
    d = json.loads(out)
    assert rc == 0 and len(d["tv"]) == 5 and all(a >= b for a, b in zip(d["tv"], d["tv"][1:]))
    rc, out, _ = run(capsys, "tv", "--kernel", "imh", "--dim", "3", "--proposal-scale", "2",
                     "--steps", "3",
                     "--start", "quantile:0.9")
    assert rc == 0 and "TV to pi" in out


def test_moment_reproducible_and_decomposed(capsys):
    args = ("moment", "--scheme", "pmcsa", "--dim", "3", "--proposal-scale", "1.5", "--N", "5",
            "--replicates", "512",
            "--seed", "4", "--json")
    rc, out1, _ = run(capsys, *args)
    rc2, out2, _ = run(capsys, *args)
    a, b = json.loads(out1), json.loads(out2)
    assert rc == rc2 == 0 and a["second"] == b["second"]
    parts = (a["variance"] * (a["R"] - 1) / a["R"] + a["variance"] / a["R"] + a["bias_sq"]
             + a["cross"] + a["mu_sq"])
    assert parts == pytest.approx(a["second"], rel=1e-9)
    rc, out, _ = run(capsys, "moment", "--scheme", "jsa", "--dim", "3", "--proposal-scale", "1.5",
                     "--N", "4",
                     "--family", "student-t", "--replicates", "512", "--json")
    d = json.loads(out)
    assert rc == 0 and d["c_cov"] is not None and np.isfinite(d["problem"]["L"])


def test_moment_shows_progress_on_a_terminal_and_keeps_its_numbers(capsys, monkeypatch):
    """Long moment runs (R = 10^5 at D = 100 takes minutes) show a progress bar on a
    terminal; the bar counts transitions and the estimate is the same as without it."""
    import mcsa_cli.terminal as ck
    from simulate.estimators import CHUNK

    args = ("moment", "--scheme", "msc-rb", "--dim", "3", "--proposal-scale", "1.5", "--N", "4",
            "--replicates", str(3 * CHUNK + 7), "--seed", "2")
    rc, quiet, err = run(capsys, *args)
    assert rc == 0 and err == ""  # off a terminal: nothing on stderr
    monkeypatch.setattr(ck, "_isatty", lambda stream: True)
    rc, shown, err = run(capsys, *args)
    assert rc == 0 and shown == quiet
    assert "msc-rb moment" in err and f"0/{3 * CHUNK + 7}" in err and "transition" in err, err
    rc, out, err = run(capsys, *args, "--json")
    assert rc == 0 and err == "" and json.loads(out)["second"] is not None  # never under --json


def test_conditional_moments_progress_counts_every_transition():
    from simulate.estimators import CHUNK, conditional_moments
    from simulate.families import MeanFieldGaussian
    from simulate.kernels import ChainState
    from simulate.schemes import Scheme
    from simulate.targets import isotropic

    tgt, fam = isotropic(2), MeanFieldGaussian(2)
    sch = Scheme("jsa", tgt, fam, 3)
    pos = np.zeros((1, 1, 2))
    state = ChainState(pos, tgt.logpdf(pos[0])[None])
    seen = []
    R = 2 * CHUNK + 5
    a = conditional_moments(sch, fam.init(0.0, 1.5), state, R=R, seed=1, batch=1,
                            progress=seen.append)
    b = conditional_moments(sch, fam.init(0.0, 1.5), state, R=R, seed=1, batch=3)
    assert seen == [CHUNK, CHUNK, 5] and sum(seen) == R
    assert a.second == b.second  # neither the callback nor the batch changes the estimate


def test_run_reports_kl_rejection_and_table2_costs(capsys):
    rc, out, err = run(capsys, "run", "--scheme", "jsa", "--dim", "8", "--nu", "20", "--N", "4",
                       "--iters", "60",
                       "--optimizer", "adam", "--lr", "0.05", "--json")
    d = json.loads(out)
    assert rc == 0 and err == ""
    assert d["costs_per_iteration"] == {"p_eval": 4, "q_eval": 5, "q_sample": 4, "score": 4}
    kl = d["kl"][0]
    assert len(kl) == len(d["iterations"]) and kl[-1] < kl[0]
    assert 0 <= d["rejection_rate"] <= 1


@pytest.mark.parametrize("argv,fragment", [
    (["tv", "--kernel", "imh", "--dim", "3", "--proposal-scale", "0.9", "--steps", "3"],
     "--proposal-scale"),
    (["tv", "--kernel", "cis", "--dim", "3", "--proposal-scale", "1.5", "--steps", "3"],
     "needs --N"),
    (["tv", "--kernel", "imh", "--dim", "3", "--proposal-scale", "1.5", "--steps", "3", "--start",
      "best"], "start"),
    (["moment", "--scheme", "msc", "--dim", "3", "--proposal-scale", "1.5", "--N", "1"], "N >= 2"),
    (["moment", "--scheme", "pmcsa", "--dim", "x", "--proposal-scale", "1.5", "--N", "3"],
     "--dim: must be an integer "
        ">= 1, got x"),
    (["run", "--scheme", "pmcsa", "--dim", "4", "--N", "3", "--iters", "5", "--optimizer",
      "adagrad", "--lr", "0.1"],
     "invalid choice"),
    (["run", "--scheme", "pmcsa", "--dim", "4", "--N", "3", "--iters", "5", "--optimizer", "sgd",
      "--lr", "-1"],
     "--lr"),
    (["fly"], "unknown command"),
    ([], "a command is required"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_no_traceback_and_help_in_a_subprocess():
    p = subprocess.run([sys.executable, "-m", "simulate", "tv", "--kernel", "imh", "--dim", "0",
                        "--proposal-scale", "2", "--steps", "2"], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    h = subprocess.run([sys.executable, "-m", "simulate", "moment", "--help"], capture_output=True,
                       text=True)
    assert h.returncode == 0 and "--replicates" in h.stdout
