"""`python -m simulate` under bad and extreme input: one line and exit 2 before any work,
no hang (refusals state their limit, or another method is used), diverged runs exit 5,
strict JSON, internal errors exit 70, BLAS pinned to one thread.  About 10 s."""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from simulate import cli
from simulate.cli import main

TV = ["tv", "--kernel", "imh", "--dim", "3", "--proposal-scale", "1.5", "--steps", "3"]
MOMENT = ["moment", "--scheme", "pmcsa", "--dim", "3", "--proposal-scale", "1.5", "--N", "3",
          "--replicates", "64"]
RUN = ["run", "--scheme", "pmcsa", "--dim", "3", "--N", "3", "--iters", "5", "--optimizer", "sgd",
       "--lr", "0.1"]
SWEEP = ["sweep", "--scheme", "pmcsa", "--dim", "3", "--N", "3", "--iters", "5", "--optimizer",
         "sgd", "--lr", "0.1"]


def with_(base, **changes):
    """``base`` with flags replaced (``flag=None`` removes it) or added."""
    out = list(base)
    for k, v in changes.items():
        flag = "--" + k.replace("_", "-")
        if flag in out:
            i = out.index(flag)
            del out[i:i + 2]
        if v is not None:
            out += [flag, v]
    return out


def strict(s):
    def refuse(c):
        raise ValueError(f"non-standard JSON constant {c}")

    return json.loads(s, parse_constant=refuse)


BAD = [
    # tv
    (with_(TV, kernel="mh"), "--kernel"), (with_(TV, dim="0"), "--dim"),
    (with_(TV, dim="2.5"), "--dim"),
    (with_(TV, dim="1e400"), "--dim"), (with_(TV, dim="nan"), "--dim"),
    (with_(TV, dim="-3"), "--dim"),
    (with_(TV, dim=None), "--dim"), (with_(TV, proposal_scale="1"), "--proposal-scale"),
    (with_(TV, proposal_scale="inf"), "--proposal-scale"),
    (with_(TV, proposal_scale="abc"), "--proposal-scale"),
    (with_(TV, steps="0"), "--steps"), (with_(TV, steps="1e30"), "--steps"),
    (with_(TV, N="8"), "--N"),
    (with_(TV, kernel="cis"), "--N"), (with_(TV, kernel="cis", N="1"), "--N"),
    (with_(TV, kernel="cis", N="4", steps="1000000000"), "--steps"),
    (with_(TV, start="best"), "--start"),
    (with_(TV, start="quantile:1.5"), "--start"), (with_(TV, start="quantile:x"), "--start"),
    (with_(TV, threads="0"), "--threads"), (TV + ["--bogus"], "unrecognized"),
    # moment
    (with_(MOMENT, scheme="mcmc"), "--scheme"), (with_(MOMENT, N="0"), "--N"),
    (with_(MOMENT, scheme="msc", N="1"), "--N"),
    (with_(MOMENT, N="1e9"), "--N"), (with_(MOMENT, dim="100000"), "--N/--dim"),
    (with_(MOMENT, replicates="1"), "--replicates"),
    (with_(MOMENT, replicates="1e12"), "--replicates"),
    (with_(MOMENT, proposal_scale="0"), "--proposal-scale"),
    (with_(MOMENT, proposal_scale="-1"), "--proposal-scale"),
    (with_(MOMENT, t_df="2"), "--t-df"), (with_(MOMENT, family="student-t", t_df="0"), "--t-df"),
    (with_(MOMENT, family="cauchy"), "--family"), (with_(MOMENT, seed="-1"), "--seed"),
    (with_(MOMENT, seed="1e40"), "--seed"),
    # run
    (with_(RUN, optimizer="adagrad"), "--optimizer"), (with_(RUN, lr="0"), "--lr"),
    (with_(RUN, lr="-1"), "--lr"),
    (with_(RUN, lr="inf"), "--lr"), (with_(RUN, lr="nan"), "--lr"),
    (with_(RUN, iters="0"), "--iters"),
    (with_(RUN, iters="1000000000"), "--iters"), (with_(RUN, scheme="msc", N="1"), "--N"),
    (with_(RUN, dim="100000"), "--dim"), (with_(RUN, replicates="0"), "--replicates"),
    (with_(RUN, record_every="0"), "--record-every"), (with_(RUN, nu="-1"), "--nu"),
    (with_(RUN, target_seed="x"), "--target-seed"), (with_(RUN, lr="0.1,0.2"), "--lr"),
    (with_(RUN, iters="10000000", record_every="1", replicates="2"), "--"),
    # sweep
    (with_(SWEEP, scheme="pmcsa,"), "--scheme"), (with_(SWEEP, lr="0.1,x"), "--lr"),
    (with_(SWEEP, N=""), "--N"),
    (with_(SWEEP, workers="0"), "--workers"),
    (with_(SWEEP, scheduler="tcp://a:1:2"), "--scheduler"),
    (with_(SWEEP, scheduler="tcp://127.0.0.1:8786", workers="2"), "--workers"),
    (with_(SWEEP, out=""), "--out"), (with_(SWEEP, out="/proc/none/r.csv"), "--out"),
    (with_(SWEEP, cache="/proc/none/c"), "--cache"),
    # the command itself
    (["simulate"], "unknown command"), ([], "a command is required"),
    (["--verbose"], "expected a command"),
]


@pytest.mark.parametrize("argv,flag", BAD, ids=[" ".join(a[:1] + a[-2:]) for a, _ in BAD])
def test_bad_input_one_line_naming_the_flag_exit_2_before_work(capsys, argv, flag):
    t0 = time.perf_counter()
    rc = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert rc == 2 and out == "" and len(lines) == 1, err
    assert flag in lines[0] and "Traceback" not in err
    assert not re.search(r"(--[\w-]+): (argument )?\1:", lines[0])  # no "--dim: --dim:"
    assert time.perf_counter() - t0 < 30  # refused up front (a generous bound, not a timing test)


def test_no_repeated_flag_in_messages(capsys):
    main(with_(TV, dim="0"))
    err = capsys.readouterr().err
    assert err.count("--dim") == 1 and "error: --dim: must be an integer >= 1, got 0" in err


def test_moment_with_q_narrower_than_pi_works_and_reports_w_star_inf(capsys):
    rc = main(["moment", "--scheme", "msc", "--dim", "5", "--proposal-scale", "0.5", "--N", "10",
               "--replicates",
               "128", "--json"])
    out, err = capsys.readouterr()
    d = strict(out)
    assert (rc == 0 and err == "" and d["problem"]["w_star"] == "inf" and d["problem"]["chi2"]
            == "inf")


def test_tv_imh_a_billion_steps_by_the_n_step_formula(capsys):
    rc = main(["tv", "--kernel", "imh", "--dim", "10", "--proposal-scale", "1.5", "--steps",
               "1000000000",
               "--start", "typical", "--json"])
    d = strict(capsys.readouterr().out)
    assert rc == 0 and d["k"][-1] == 10 ** 9 and len(d["k"]) == len(d["tv"]) <= cli.TV_MAX_SHOWN
    assert d["k"][:100] == list(range(1, 101))
    tv = np.array(d["tv"])
    assert np.all(np.diff(tv) <= 1e-12) and tv[-1] == 0.0
    # the selected k agree with the full curve where both exist
    main(["tv", "--kernel", "imh", "--dim", "10", "--proposal-scale", "1.5", "--steps", "150",
          "--start", "typical",
          "--json"])
    full = strict(capsys.readouterr().out)
    assert full["tv"][:100] == d["tv"][:100]


def test_tv_w_star_beyond_the_double_range_is_printed_from_its_log(capsys):
    rc = main(["tv", "--kernel", "imh", "--dim", "100000", "--proposal-scale", "1.5", "--steps",
               "2"])
    out = capsys.readouterr().out
    # 1e5 log10(1.5) = 17609.13
    assert rc == 0 and "w* = inf" not in out and "w* = 10^17609.1" in out
    main(["tv", "--kernel", "imh", "--dim", "100000", "--proposal-scale", "1.5", "--steps", "2",
          "--json"])
    d = strict(capsys.readouterr().out)
    # 10^0.12591 = 1.33630...
    assert d["w_star"].endswith("e17609") and d["w_star"].startswith("1.3363")


def test_diverging_run_exits_5_and_says_so(capsys):
    rc = main(["run", "--scheme", "pmcsa", "--dim", "3", "--N", "3", "--iters", "30", "--optimizer",
               "sgd", "--lr",
               "1e10", "--json"])
    out, err = capsys.readouterr()
    d = strict(out)
    assert rc == 5 and d["diverged"] is True
    assert (err.startswith("python -m simulate: diverged at iteration ")
            and len(err.strip().splitlines()) == 1)
    assert "RuntimeWarning" not in err and "nan" not in out.lower().replace("null", "")
    rc = main(["run", "--scheme", "jsa", "--dim", "3", "--N", "3", "--iters", "30", "--optimizer",
               "momentum",
               "--lr", "1e8"])
    out, err = capsys.readouterr()
    assert (rc == 5 and "diverged at iteration" in err and "(diverged)" in out
            and "Warning" not in err)


def test_internal_error_exits_70_with_one_line(capsys, monkeypatch):
    from simulate import weightline

    def boom(*a, **k):
        raise ZeroDivisionError("synthetic")

    monkeypatch.setattr(weightline, "imh_tv", boom)
    rc = main(TV)
    err = capsys.readouterr().err
    assert rc == 70 and len(err.strip().splitlines()) == 1
    assert "internal error: ZeroDivisionError: synthetic; rerun with --debug" in err
    with pytest.raises(ZeroDivisionError):
        main(TV + ["--debug"])


def test_help_cites_sources_not_notes(capsys):
    texts = []
    for cmd in ("tv", "moment", "run", "sweep"):
        assert main([cmd, "--help"]) == 0
        texts.append(capsys.readouterr().out)
    assert main(["--help"]) == 0
    texts.append(capsys.readouterr().out)
    for t in texts:
        assert "methods.md" not in t.replace("docs/methods.md", "")
        assert "../shared" not in t
        assert "exit status" in t.lower()
    assert "Smith and Tierney" in texts[0] and "Kim et al. 2022" in texts[2]


def test_blas_pinned_to_one_thread_unless_threads_given():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS",
                                                            "OMP_NUM_THREADS",
                                                            "MKL_NUM_THREADS")}
    probe = ("import os, runpy, sys\nsys.argv = ['simulate'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('simulate', run_name='__main__')\nexcept SystemExit:\n    "
             "pass\nprint(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])")
    out = subprocess.run([sys.executable, "-c", probe, "tv", "--help"], capture_output=True,
                         text=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == "1 1"
    out = subprocess.run([sys.executable, "-c", probe, "tv", "--threads", "2", "--help"],
                         capture_output=True,
                         text=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == "2 2"


def test_no_traceback_in_a_subprocess_and_json_is_strict():
    p = subprocess.run([sys.executable, "-m", "simulate", "run", "--scheme", "msc", "--dim", "3",
                        "--N", "3",
                        "--iters", "10", "--optimizer", "adam", "--lr", "0.1", "--json"],
                       capture_output=True,
                       text=True)
    assert p.returncode == 0 and p.stderr == ""
    d = strict(p.stdout)
    # 1 replicate: no R-hat_lambda
    assert d["kl"][0][0] > 0 and d["diagnostics"]["rhat_lambda"][0] is None


def test_moment_fits_its_batch_to_memory_instead_of_refusing(monkeypatch):
    from simulate import sweep

    class A:
        N, dim, replicates = 50, 4, 512

    assert cli._check_moment_size(A) == 16  # small: the default batch
    # room for 3 units of rows
    monkeypatch.setitem(sweep.LIMITS, "bytes", 8 * 256 * 50 * 4 * 12 * 2 * 3)
    assert cli._check_moment_size(A) == 3
    monkeypatch.setitem(sweep.LIMITS, "bytes", 8 * 256 * 50 * 4 * 12 // 2)  # not even one unit
    with pytest.raises(cli.UsageError, match="--N/--dim"):
        cli._check_moment_size(A)
