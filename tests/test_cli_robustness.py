"""Issue 8 for `python -m bounds` and `python -m verify`: bad input, strict JSON, exact
parameters, exit statuses.  In-process through main(argv); bad inputs are refused before any
work, so the whole file runs in about 10 s (most of it in the few real evaluations)."""

import math
import subprocess
import sys

import mpmath
import pytest

import bounds.cli
import verify.cli
from mcsa_cli import loads_strict

B, V = bounds.cli.main, verify.cli.main

# (command line, main, a fragment of the one stderr line)
BAD = [
    # ---- python -m bounds: dispatch
    ([], B, "a command is required"),
    (["--bogus"], B, "expected a command or claim id"),
    (["theorem9"], B, "unknown claim 'theorem9'"),
    (["Theorem3"], B, "unknown claim"),
    (["list", "--bogus"], B, "unrecognized arguments"),
    (["list", "extra"], B, "unrecognized arguments"),
    (["show"], B, "the following arguments are required: claim"),
    (["show", "nope"], B, "unknown claim 'nope'"),
    (["show", "theorem3", "--latex", "--bogus"], B, "unrecognized arguments"),
    (["cache"], B, "one of the arguments --write --check is required"),
    # ---- bounds CLAIM: values
    (["theorem3", "--N", "ten", "--w-star", "5", "--L", "1"], B, "--N: must be an integer >= 1, got ten"),
    (["theorem3", "--N", "2.5", "--w-star", "5", "--L", "1"], B, "--N: must be an integer"),
    (["theorem3", "--N", "0", "--w-star", "5", "--L", "1"], B, "--N: must be an integer >= 1, got 0"),
    (["theorem3", "--N", "-3", "--w-star", "5", "--L", "1"], B, "--N: must be an integer >= 1, got -3"),
    (["theorem3", "--N", "", "--w-star", "5", "--L", "1"], B, "--N: must be an integer >= 1, got ''"),
    (["theorem3", "--N", "10,", "--w-star", "5", "--L", "1"], B, "--N: empty item"),
    (["theorem3", "--N", "nan", "--w-star", "5", "--L", "1"], B, "--N: must be an integer >= 1, got nan"),
    (["theorem3", "--N", "10", "--w-star", "inf", "--L", "1"], B, "--w-star: must be finite"),
    (["theorem3", "--N", "10", "--w-star", "-inf", "--L", "1"], B, "--w-star: expected one argument (write a value"),
    (["theorem3", "--N", "10", "--w-star=-inf", "--L", "1"], B, "--w-star: must be finite"),
    (["theorem3", "--N", "10", "--w-star", "0.5", "--L", "1"], B, "--w-star: must be a number >= 1, got 0.5"),
    (["theorem3", "--N", "10", "--w-star", "5", "--L", "0"], B, "--L: must be a number > 0, got 0"),
    (["theorem3", "--N", "10", "--w-star", "5", "--L", "1", "--mu-norm", "2"], B, "||mu|| <= L"),
    (["theorem3", "--N", "10", "--w-star", "5", "--L", "1", "--mu-norm", "-1"], B, "--mu-norm: must be a number >= 0"),
    (["theorem3", "--N", "10", "--w-star", "0x10", "--L", "1"], B, "--w-star: must be a number >= 1, got 0x10"),
    (["theorem3", "--bogus", "1"], B, "unrecognized arguments: --bogus"),
    (["theorem3", "--w", "5"], B, "unrecognized arguments: --w"),  # no abbreviation of --w-star
    (["theorem3", "--N"], B, "--N: expected one argument"),
    (["theorem3", "--N", "10"], B, "missing parameter(s)"),
    (["theorem1", "--N", "1", "--w-star", "5", "--k", "1", "--L", "1"], B, "--N: must be an integer >= 2, got 1"),
    (["theorem1", "--N", "10", "--w-star", "5", "--k", "-1", "--L", "1"], B, "--k: must be"),
    (["theorem2", "--N", "10", "--w-star", "5", "--L", "1", "--chi2", "9"], B, "chi2(pi||q) <= w* - 1"),
    (["lemma4", "--w", "20", "--w-star", "10"], B, "w <= w* must hold"),
    (["lemma3", "--m", "0", "--s", "0.5"], B, "s^2 > 1/2"),
    (["lemma7", "--D", "2", "--L", "1", "--C", "1", "--rho", "1.5", "--n", "3"], B, "--rho: must be"),
    (["theorem1", "--N", ",".join(str(i) for i in range(2, 2002)), "--w-star", ",".join(str(i) for i in range(1, 2001)),
      "--k", "1", "--L", "1"], B, "at most 10,000"),
    (["theorem1", "--N", "2,3", "--w-star", ",".join(str(i) for i in range(1, 6000)), "--k", "1", "--L", "1"], B,
     "the grid has 11,998 points"),
    # ---- bounds compare
    (["compare"], B, "the following arguments are required"),
    (["compare", "--N", "10", "--w-star", "5", "--chi2", "1"], B, "required: --L"),
    (["compare", "--N", "1", "--w-star", "5", "--chi2", "1", "--L", "1"], B, "--N: must be an integer >= 2, got 1"),
    (["compare", "--N", "10,20", "--w-star", "5", "--chi2", "1", "--L", "1"], B, "--N: compare takes one value"),
    (["compare", "--N", "10", "--w-star", "0", "--chi2", "1", "--L", "1"], B, "--w-star: must be a number >= 1"),
    (["compare", "--N", "10", "--w-star", "5", "--chi2", "9", "--L", "1"], B, "chi2(pi||q) <= w* - 1"),
    (["compare", "--N", "10", "--w-star", "5", "--chi2", "1", "--L", "1", "--form", "explicit"], B,
     "--form explicit needs --t and --D"),
    (["compare", "--N", "10", "--w-star", "5", "--chi2", "1", "--L", "1", "--form", "moment"], B,
     "--form: invalid choice: 'moment'"),
    (["compare", "--N", "inf", "--w-star", "5", "--chi2", "1", "--L", "1"], B, "--N: must be finite"),
    # ---- python -m verify: dispatch
    ([], V, "a command is required"),
    (["-x"], V, "expected a command or claim id"),
    (["theorem9"], V, "unknown claim 'theorem9'"),
    (["list", "--bogus"], V, "unrecognized arguments"),
    (["all", "--quick", "--full"], V, "not allowed with argument"),
    (["all", "--seed", "x"], V, "--seed: must be an integer >= 0, got x"),
    (["report", "--bogus"], V, "unrecognized arguments"),
    # ---- verify CLAIM
    (["lemma5", "--N", "5"], V, "--N does not apply to lemma5"),
    (["lemma5", "--n", "0"], V, "--n: must be an integer >= 1, got 0"),
    (["lemma5", "--n", "1e12"], V, "--n: at most"),
    (["lemma5", "--w-star", "0.5"], V, "--w-star: must be a number >= 1, got 0.5"),
    (["lemma5", "--w-star", "1e400"], V, "--w-star: 1e400 is outside the double range"),
    (["theorem1", "--k", "1e12"], V, "--k: at most 10000 is supported"),
    (["theorem1", "--k", "2.5"], V, "--k: must be an integer"),
    (["theorem1", "--N", "1"], V, "--N: must be an integer >= 2, got 1"),
    (["theorem1", "--N", "1e400"], V, "--N: at most"),
    (["theorem4", "--N", ",".join(str(i) for i in range(2, 2001))], V, "--N: at most 20 values, got 1999"),
    (["theorem4", "--N", "2000"], V, "--N: at most"),
    (["theorem4", "--t", "-1"], V, "--t: must be an integer"),
    (["theorem1", "--dim", "100000"], V, "--dim: at most"),
    (["theorem1", "--dim", "0"], V, "--dim: must be an integer >= 1, got 0"),
    (["theorem1", "--proposal-scale", "0.9"], V, "--proposal-scale: values must be > 1"),
    (["theorem1", "--proposal-scale", "1e200", "--dim", "5"], V, "w* = s^D must stay below"),
    (["theorem1", "--seed", "-1"], V, "--seed: must be an integer >= 0, got -1"),
    (["theorem1", "--seed", "1.5"], V, "--seed: must be an integer >= 0, got 1.5"),
    (["theorem1", "--bound-scale", "0"], V, "--bound-scale: must be a number > 0, got 0"),
    (["theorem1", "--bound-scale", "nan"], V, "--bound-scale: must be a number > 0, got nan"),
    (["theorem1", "--bound-scale", "abc"], V, "--bound-scale: must be a number > 0, got abc"),
    (["theorem1", "--plot", ""], V, "--plot: empty path"),
    (["theorem1", "--plot", "/proc/nope/x.png"], V, "--plot: directory '/proc/nope' does not exist"),
    (["theorem1", "--plot", "figure.txt"], V, "--plot: the path must end in .png, .pdf, .svg"),
    (["theorem1", "--quick", "--full"], V, "not allowed with argument"),
    (["theorem1", "--bogus"], V, "unrecognized arguments: --bogus"),
    # ---- verify search / audit
    (["search"], V, "the following arguments are required: claim"),
    (["search", "nope"], V, "unknown claim 'nope'"),
    (["search", "lemma5", "--max-examples", "0"], V, "--max-examples: must be an integer with 1 <= x <= 10000"),
    (["search", "lemma5", "--max-examples", "1e9"], V, "--max-examples: must be an integer with 1 <= x <= 10000"),
    (["search", "lemma5", "--seed", "-2"], V, "--seed: must be an integer >= 0"),
    (["audit", "nonsense"], V, "unknown claim 'nonsense'"),
    (["audit", "--json", "--markdown"], V, "not allowed with argument"),
]


@pytest.mark.parametrize("argv, main, fragment", BAD, ids=[f"{'bounds' if m is B else 'verify'} {' '.join(a)[:60]}"
                                                          for a, m, _ in BAD])
def test_bad_input_one_line_exit_2(capsys, argv, main, fragment):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, err)
    assert err.count("\n") == 1 and err.startswith(("python -m bounds: error: ", "python -m verify: error: ")), err
    assert fragment in err, err
    assert "Traceback" not in err and out == ""


def test_the_table_has_at_least_60_bad_inputs_over_both_command_lines():
    assert len(BAD) >= 60
    assert {m for _, m, _ in BAD} == {B, V}


# ----------------------------------------------------------------------------- strict JSON
def _strict(out):
    return loads_strict(out)


@pytest.mark.parametrize("argv", [
    ["list", "--json"],
    ["show", "theorem3", "--json"],
    ["theorem3", "--N", "10", "--w-star", "1e3", "--k", "1e9", "--L", "1", "--json"],
    ["theorem4", "--N", "2,3", "--w-star", "1,2", "--k", "1", "--t", "1", "--D", "1", "--L", "1", "--json"],
    ["compare", "--N", "10", "--w-star", "1000", "--chi2", "50", "--L", "1", "--json"],
    ["lemma3", "--m", "0", "--s", "0.75,1", "--json"],
])
def test_bounds_json_is_strict(capsys, argv):
    assert B(argv) == 0
    d = _strict(capsys.readouterr().out)
    assert d


def test_verify_json_is_strict_including_infinite_bounds(capsys):
    """`verify theorem4 --json` printed "L": Infinity: every --json output parses strictly."""
    rc = V(["table2", "--json"])
    d = _strict(capsys.readouterr().out)
    assert rc == 0 and d["claim"] == "table2" and d["checks"]
    assert V(["list", "--json"]) == 0
    rows = _strict(capsys.readouterr().out)
    assert {r["claim"] for r in rows} >= {"theorem3", "table2"}
    from mcsa_cli import dumps

    assert _strict(dumps({"L": float("inf"), "x": float("nan")})) == {"L": "inf", "x": None}


# ----------------------------------------------------------------------------- exact parameters
def test_theorem4_exact_parameters_reach_mpmath(capsys):
    """Issue 8 item 6: w* read exactly, not rounded to a double; k at the top of the parsed domain (1e9,
    issue 24): N r^k = 1.998e-12000000000, where a double w* would give another exponent."""
    assert B(["theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e9", "--t", "1", "--D", "1",
              "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    with mpmath.workdps(60):
        w = mpmath.mpf("1.000000000001")
        expected = 2 * (1 - 1 / w) ** mpmath.mpf(10) ** 9  # N r^k
    got = mpmath.mpf(d["bounds"]["mixing"]["stated"])
    assert d["bounds"]["mixing"]["stated"].endswith("e-12000000000")
    assert abs(got / expected - 1) < 1e-10
    assert B(["theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e9", "--t", "1", "--D", "1",
              "--L", "1"]) == 0
    out = capsys.readouterr().out
    assert "w*=1.000000000001" in out and "1.998e-12000000000" in out


@pytest.mark.parametrize("N", [1, 2])
def test_theorem3_near_w_star_1_uses_the_digits_typed(capsys, N):
    assert B(["theorem3", "--N", str(N), "--w-star", "1.000000000001", "--k", "3", "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    with mpmath.workdps(60):
        r = 1 - 1 / mpmath.mpf("1.000000000001")
        expected = sum(r ** ((3 - 1) * N + n) for n in range(1, N + 1))  # explicit: sum_n r^((k-1)N+n)
    got = mpmath.mpf(d["bounds"]["mixing"]["explicit"])
    assert abs(got / expected - 1) < 1e-10
    # the double nearest to 1.000000000001 gives a value off in the 5th digit
    with mpmath.workdps(60):
        r_float = 1 - 1 / mpmath.mpf(float("1.000000000001"))
        wrong = sum(r_float ** ((3 - 1) * N + n) for n in range(1, N + 1))
    assert abs(wrong / expected - 1) > 1e-6


def test_w_star_beyond_the_double_range(capsys):
    assert B(["theorem1", "--N", "10", "--w-star", "1e400", "--k", "5", "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    with mpmath.workdps(40):
        w = mpmath.mpf("1e400")
        rate = (1 - mpmath.mpf(9) / (2 * w + 8)) ** 5
    assert d["params"]["w_star"] == "1E+400"
    assert d["bounds"]["mixing"]["stated"] == pytest.approx(float(rate), rel=1e-15)
    assert B(["theorem1", "--N", "10", "--w-star", "1e400", "--k", "5", "--L", "1"]) == 0
    assert "w*=1e400" in capsys.readouterr().out


def test_compare_with_a_huge_budget_says_something_true(capsys):
    """N at the top of the parsed domain (1e12, issue 24): JSA's r^N underflows every double and is given
    exactly (r = 9/10 read exactly, not as the double 0.9); N = 1e400 is refused in one line."""
    assert B(["compare", "--N", "1e12", "--w-star", "10", "--chi2", "1", "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    rho = {x["scheme"]: x["rho"] for x in d["mixing_rate"]}
    # MSC (2w*-1)/(2w*+N-2), MSC-RB 2w*/(2w*+N-2), JSA r^N, pMCSA r = 0.9
    with mpmath.workdps(40):
        jsa = mpmath.mpf("0.9") ** mpmath.mpf(10) ** 12
        assert abs(mpmath.mpf(rho["JSA"]) / jsa - 1) < 1e-11 and rho["JSA"].endswith("e-45757490561")
    assert math.isclose(rho["MSC"], 19 / (20 + 1e12 - 2), rel_tol=1e-12)
    assert math.isclose(rho["MSC-RB"], 20 / (20 + 1e12 - 2), rel_tol=1e-12) and rho["pMCSA"] == 0.9
    assert [x["scheme"] for x in d["mixing_rate"]] == ["JSA", "MSC", "MSC-RB", "pMCSA"]
    assert B(["compare", "--N", "1e400", "--w-star", "10", "--chi2", "1", "--L", "1"]) == 2
    assert "at most 1e+12" in capsys.readouterr().err


# ----------------------------------------------------------------------------- exit statuses
@pytest.mark.parametrize("main, module, name", [(B, bounds.cli, "cmd_list"), (V, verify.cli, "cmd_list")])
def test_internal_error_is_one_line_and_exit_70(capsys, monkeypatch, main, module, name):
    def boom(argv):
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(module, name, boom)
    assert main(["list"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError: injected; rerun with --debug" in err
    with pytest.raises(ZeroDivisionError):
        main(["list", "--debug"])


def test_help_documents_the_exit_statuses(capsys):
    for main, argv in [(B, ["--help"]), (V, ["--help"]), (B, ["theorem3", "--help"]), (V, ["theorem1", "--help"]),
                       (V, ["search", "--help"]), (B, ["compare", "--help"])]:
        assert main(argv) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "2 bad input" in out and "70 internal error" in out, argv
    assert V(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 violated" in out and "3 inconclusive" in out and "4 depends on reading" in out


def test_subprocess_end_to_end():
    bad = subprocess.run([sys.executable, "-m", "verify", "lemma5", "--N", "5"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    ok = subprocess.run([sys.executable, "-m", "bounds", "theorem1", "--N", "10", "--w-star", "5", "--k", "2",
                         "--L", "1", "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and loads_strict(ok.stdout)["claim"] == "theorem1"
