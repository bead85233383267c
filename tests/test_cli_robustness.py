"""Issue 8 for `python -m bounds` and `python -m verify`: bad input, strict JSON, exact
parameters, exit statuses.  In-process through main(argv); bad inputs are refused before any
work, so the whole file runs in about 10 s (most of it in the few real evaluations)."""

import math
import os
import shlex
import subprocess
import sys

import mpmath
import pytest

import bounds.cli
import verify.command.cli
from mcsa_cli import loads_strict

B, V = bounds.cli.main, verify.command.cli.main

# One bad command line a row: the program, its arguments (shell words; $N2..2001 and the like
# stand for the long lists in LONG), "=>", a fragment of the one line it must print on stderr.
BAD_TABLE = r"""
# python -m bounds: dispatch
bounds => a command is required
bounds --bogus => expected a command or claim id
bounds theorem9 => unknown claim 'theorem9'
bounds Theorem3 => unknown claim
bounds list --bogus => unrecognized arguments
bounds list extra => unrecognized arguments
bounds show => the following arguments are required: claim
bounds show nope => unknown claim 'nope'
bounds show theorem3 --latex --bogus => unrecognized arguments
bounds cache => one of the arguments --write --check is required
# bounds CLAIM: values
bounds theorem3 --N ten --w-star 5 --L 1 => --N: must be an integer >= 1, got ten
bounds theorem3 --N 2.5 --w-star 5 --L 1 => --N: must be an integer
bounds theorem3 --N 0 --w-star 5 --L 1 => --N: must be an integer >= 1, got 0
bounds theorem3 --N -3 --w-star 5 --L 1 => --N: must be an integer >= 1, got -3
bounds theorem3 --N '' --w-star 5 --L 1 => --N: must be an integer >= 1, got ''
bounds theorem3 --N 10, --w-star 5 --L 1 => --N: empty item
bounds theorem3 --N nan --w-star 5 --L 1 => --N: must be an integer >= 1, got nan
bounds theorem3 --N 10 --w-star inf --L 1 => --w-star: must be finite
bounds theorem3 --N 10 --w-star -inf --L 1 => --w-star: expected one argument (write a value
bounds theorem3 --N 10 --w-star=-inf --L 1 => --w-star: must be finite
bounds theorem3 --N 10 --w-star 0.5 --L 1 => --w-star: must be a number >= 1, got 0.5
bounds theorem3 --N 10 --w-star 5 --L 0 => --L: must be a number > 0, got 0
bounds theorem3 --N 10 --w-star 5 --L 1 --mu-norm 2 => ||mu|| <= L
bounds theorem3 --N 10 --w-star 5 --L 1 --mu-norm -1 => --mu-norm: must be a number >= 0
bounds theorem3 --N 10 --w-star 0x10 --L 1 => --w-star: must be a number >= 1, got 0x10
bounds theorem3 --bogus 1 => unrecognized arguments: --bogus
# no abbreviation of --w-star:
bounds theorem3 --w 5 => unrecognized arguments: --w
bounds theorem3 --N => --N: expected one argument
bounds theorem3 --N 10 => missing parameter(s)
bounds theorem1 --N 1 --w-star 5 --k 1 --L 1 => --N: must be an integer >= 2, got 1
bounds theorem1 --N 10 --w-star 5 --k -1 --L 1 => --k: must be
bounds theorem2 --N 10 --w-star 5 --L 1 --chi2 9 => chi2(pi||q) <= w* - 1
bounds lemma4 --w 20 --w-star 10 => w <= w* must hold
bounds lemma3 --m 0 --s 0.5 => s^2 > 1/2
bounds lemma7 --D 2 --L 1 --C 1 --rho 1.5 --n 3 => --rho: must be
bounds theorem1 --N $N2..2001 --w-star $W1..2000 --k 1 --L 1 => at most 10,000
bounds theorem1 --N 2,3 --w-star $W1..5999 --k 1 --L 1 => the grid has 11,998 points
# bounds compare
bounds compare => the following arguments are required
bounds compare --N 10 --w-star 5 --chi2 1 => required: --L
bounds compare --N 1 --w-star 5 --chi2 1 --L 1 => --N: must be an integer >= 2, got 1
bounds compare --N 10,20 --w-star 5 --chi2 1 --L 1 => --N: compare takes one value
bounds compare --N 10 --w-star 0 --chi2 1 --L 1 => --w-star: must be a number >= 1
bounds compare --N 10 --w-star 5 --chi2 9 --L 1 => chi2(pi||q) <= w* - 1
bounds compare --N 10 --w-star 5 --chi2 1 --L 1 --form explicit => --form explicit needs --t and --D
bounds compare --N 10 --w-star 5 --chi2 1 --L 1 --form moment => --form: invalid choice: 'moment'
bounds compare --N inf --w-star 5 --chi2 1 --L 1 => --N: must be finite
# python -m verify: dispatch
verify => a command is required
verify -x => expected a command or claim id
verify theorem9 => unknown claim 'theorem9'
verify list --bogus => unrecognized arguments
verify all --quick --full => not allowed with argument
verify all --seed x => --seed: must be an integer >= 0, got x
verify report --bogus => unrecognized arguments
# verify CLAIM
verify lemma5 --N 5 => --N does not apply to lemma5
verify lemma5 --n 0 => --n: must be an integer >= 1, got 0
verify lemma5 --n 1e12 => --n: at most
verify lemma5 --w-star 0.5 => --w-star: must be a number >= 1, got 0.5
verify lemma5 --w-star 1e400 => --w-star: 1e400 is outside the double range
verify lemma5 --w-star 1.0000000000000001 => would be read as 1.0, the nearest double
verify theorem1 --bound-scale 0.10000000000000000001 => more digits than a double
verify theorem1 --plot /proc/nope.png => --plot: cannot create '/proc/nope.png'
verify certificate lemma5.2 --out /proc/nope/x => --out: directory '/proc/nope' does not exist
verify theorem1 --k 1e12 => --k: at most 10000 is supported
verify theorem1 --k 2.5 => --k: must be an integer
verify theorem1 --N 1 => --N: must be an integer >= 2, got 1
verify theorem1 --N 1e400 => --N: at most
verify theorem4 --N $N2..2000 => --N: at most 20 values, got 1999
verify theorem4 --N 2000 => --N: at most
verify theorem4 --t -1 => --t: must be an integer
verify theorem1 --dim 100000 => --dim: at most
verify theorem1 --dim 0 => --dim: must be an integer >= 1, got 0
verify theorem1 --proposal-scale 0.9 => --proposal-scale: values must be > 1
verify theorem1 --proposal-scale 1e200 --dim 5 => w* = s^D must stay below
verify theorem1 --seed -1 => --seed: must be an integer >= 0, got -1
verify theorem1 --seed 1.5 => --seed: must be an integer >= 0, got 1.5
verify theorem1 --bound-scale 0 => --bound-scale: must be a number > 0, got 0
verify theorem1 --bound-scale nan => --bound-scale: must be a number > 0, got nan
verify theorem1 --bound-scale abc => --bound-scale: must be a number > 0, got abc
verify theorem1 --plot '' => --plot: empty path
verify theorem1 --plot /proc/nope/x.png => --plot: directory '/proc/nope' does not exist
verify theorem1 --plot figure.txt => --plot: the path must end in .png, .pdf, .svg
verify theorem1 --quick --full => not allowed with argument
verify theorem1 --bogus => unrecognized arguments: --bogus
# verify search / audit
verify search => the following arguments are required: claim
verify search nope => unknown claim 'nope'
verify search lemma5 --max-examples 0 => --max-examples: must be an integer with 1 <= x <= 10000
verify search lemma5 --max-examples 1e9 => --max-examples: must be an integer with 1 <= x <= 10000
verify search lemma5 --seed -2 => --seed: must be an integer >= 0
verify audit nonsense => unknown claim or step 'nonsense'
verify audit lemma5.99 => unknown claim or step 'lemma5.99' (the steps of lemma5: lemma5.1
verify audit --json --markdown => not allowed with argument
"""
LONG = {f"${name}{a}..{b}": ",".join(str(i) for i in range(a, b + 1))
        for name, a, b in [("N", 2, 2001), ("W", 1, 2000), ("W", 1, 5999), ("N", 2, 2000)]}


def _bad_rows(table: str) -> list:
    """(argv, main, fragment) for each row of ``table`` (BAD_TABLE's format)."""
    rows = []
    for line in table.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cmd, fragment = line.split(" => ", 1)
        prog, *argv = shlex.split(cmd)
        rows.append(([LONG.get(w, w) for w in argv], {"bounds": B, "verify": V}[prog], fragment))
    return rows


BAD = _bad_rows(BAD_TABLE)


@pytest.mark.parametrize("argv, main, fragment", BAD,
                         ids=[f"{'bounds' if m is B else 'verify'} {' '.join(a)[:60]}"
                                                          for a, m, _ in BAD])
def test_bad_input_one_line_exit_2(capsys, argv, main, fragment):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, err)
    assert (err.count("\n") == 1 and err.startswith(("python -m bounds: error: ",
                                                     "python -m verify: error: "))), err
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
    ["theorem4", "--N", "2,3", "--w-star", "1,2", "--k", "1", "--t", "1", "--D", "1", "--L", "1",
     "--json"],
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
    """Issue 8 item 6: w* read exactly, not rounded to a double; k at the top of the parsed domain
    (1e9,
    issue 24): N r^k = 1.998e-12000000000, where a double w* would give another exponent."""
    assert B(["theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e9", "--t", "1", "--D",
              "1",
              "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    with mpmath.workdps(60):
        w = mpmath.mpf("1.000000000001")
        expected = 2 * (1 - 1 / w) ** mpmath.mpf(10) ** 9  # N r^k
    got = mpmath.mpf(d["bounds"]["mixing"]["stated"])
    assert d["bounds"]["mixing"]["stated"].endswith("e-12000000000")
    assert abs(got / expected - 1) < 1e-10
    assert B(["theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e9", "--t", "1", "--D",
              "1",
              "--L", "1"]) == 0
    out = capsys.readouterr().out
    assert "w*=1.000000000001" in out and "1.998e-12000000000" in out


@pytest.mark.parametrize("N", [1, 2])
def test_theorem3_near_w_star_1_uses_the_digits_typed(capsys, N):
    assert B(["theorem3", "--N", str(N), "--w-star", "1.000000000001", "--k", "3", "--L", "1",
              "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    with mpmath.workdps(60):
        r = 1 - 1 / mpmath.mpf("1.000000000001")
        # explicit: sum_n r^((k-1)N+n)
        expected = sum(r ** ((3 - 1) * N + n) for n in range(1, N + 1))
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
    """N at the top of the parsed domain (1e12, issue 24): JSA's r^N underflows every double and is
    given
    exactly (r = 9/10 read exactly, not as the double 0.9); N = 1e400 is refused in one line."""
    assert B(["compare", "--N", "1e12", "--w-star", "10", "--chi2", "1", "--L", "1", "--json"]) == 0
    d = _strict(capsys.readouterr().out)
    rho = {x["scheme"]: x["rho"] for x in d["mixing_rate"]}
    # MSC (2w*-1)/(2w*+N-2), MSC-RB 2w*/(2w*+N-2), JSA r^N, pMCSA r = 0.9
    with mpmath.workdps(40):
        jsa = mpmath.mpf("0.9") ** mpmath.mpf(10) ** 12
        assert (abs(mpmath.mpf(rho["JSA"]) / jsa - 1) < 1e-11
                and rho["JSA"].endswith("e-45757490561"))
    assert math.isclose(rho["MSC"], 19 / (20 + 1e12 - 2), rel_tol=1e-12)
    assert math.isclose(rho["MSC-RB"], 20 / (20 + 1e12 - 2), rel_tol=1e-12) and rho["pMCSA"] == 0.9
    assert [x["scheme"] for x in d["mixing_rate"]] == ["JSA", "MSC", "MSC-RB", "pMCSA"]
    assert B(["compare", "--N", "1e400", "--w-star", "10", "--chi2", "1", "--L", "1"]) == 2
    assert "at most 1e+12" in capsys.readouterr().err


# ----------------------------------------------------------------------------- exit statuses
@pytest.mark.parametrize("main, module, name",
                         [(B, bounds.cli, "cmd_list"), (V, verify.command.cli, "cmd_list")])
def test_internal_error_is_one_line_and_exit_70(capsys, monkeypatch, main, module, name):
    def boom(argv):
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(module, name, boom)
    assert main(["list"]) == 70
    err = capsys.readouterr().err
    assert (err.count("\n") == 1
            and "internal error: ZeroDivisionError: injected; rerun with --debug" in err)
    with pytest.raises(ZeroDivisionError):
        main(["list", "--debug"])


def test_help_documents_the_exit_statuses(capsys):
    for main, argv in [(B, ["--help"]), (V, ["--help"]), (B, ["theorem3", "--help"]),
                       (V, ["theorem1", "--help"]),
                       (V, ["search", "--help"]), (B, ["compare", "--help"])]:
        assert main(argv) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "2 bad input" in out and "70 internal error" in out, argv
    assert V(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 violated" in out and "3 inconclusive" in out and "4 depends on reading" in out


def test_subprocess_end_to_end():
    bad = subprocess.run([sys.executable, "-m", "verify", "lemma5", "--N", "5"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    ok = subprocess.run([sys.executable, "-m", "bounds", "theorem1", "--N", "10", "--w-star", "5",
                         "--k", "2",
                         "--L", "1", "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and loads_strict(ok.stdout)["claim"] == "theorem1"


# ----------------------------------------------------------------------------- numbers
def test_a_value_a_double_cannot_hold_is_refused_not_rounded(capsys):
    """Issue 37: `--w-star 1.0000000000000001` was read as 1.0 without a word.  Where a command
    computes in doubles (mcsa_cli.number without exact=True: every verify, simulate and draw
    flag), a value whose double is another number is refused in one line; bounds keeps every
    digit (exact=True)."""
    from mcsa_cli import UsageError, number
    from simulate.cli import main as S

    assert number("--x", "0.1") == 0.1 and number("--x", "1e-5") == 1e-5
    assert number("--x", "0.30000000000000004") == 0.30000000000000004
    assert number("--x", "1.000000000001") == 1.000000000001
    assert number("--x", "123456789012345678", integer=True) == 123456789012345678
    for text in ("1.0000000000000001", "123456789012345678", "3.14159265358979323846"):
        with pytest.raises(UsageError, match="more digits than a double"):
            number("--x", text)
        assert str(number("--x", text, exact=True)) == text  # bounds: every digit kept
    for main, argv in [
            (V, ["theorem3", "--w-star", "1.0000000000000001"]),
            (V, ["draw", "variance", "--w-star", "1.0000000000000001", "--out", "x.png"]),
            (S, ["run", "--scheme", "msc", "--dim", "2", "--N", "4", "--iters", "5",
                 "--optimizer", "sgd", "--lr", "0.0100000000000000001"])]:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and "more digits than a double" in err and out == "", err
    # bounds reads it exactly: the digits reach mpmath
    assert B(["theorem3", "--N", "10", "--w-star", "1.0000000000000001", "--k", "5", "--L", "1"]) \
        == 0
    assert "w*=1.0000000000000001" in capsys.readouterr().out


# ----------------------------------------------------------------------------- output paths
#: every output flag of the three command lines: (program, arguments with OUT for the path, the
#: suffix the flag needs); the QuickClaim scripts' --plot is tested in tests/test_quick_claim.py
OUTPUTS = [
    ("verify", ["certificate", "lemma5.2", "--out", "OUT"], ""),
    ("verify", ["certificate", "--all", "--out", "OUT"], ""),
    ("verify", ["theorem4", "--plot", "OUT"], ".png"),
    ("verify", ["report", "--out", "OUT"], ""),
    ("verify", ["report", "--out", "OUT"], ".html"),
    ("verify", ["report", "--screenshot", "OUT"], ".png"),
    ("verify", ["draw", "mixing", "--out", "OUT"], ".pdf"),
    ("verify", ["figure1", "--quick", "--cache", "OUT"], ""),
    ("reproductions", ["--claim", "figure1", "--cached-only", "--out", "OUT"], ""),
    ("simulate", ["sweep", "--scheme", "msc", "--optimizer", "sgd", "--lr", "0.1", "--N", "4",
                  "--dim", "3", "--iters", "5", "--out", "OUT"], ".csv"),
    ("simulate", ["sweep", "--scheme", "msc", "--optimizer", "sgd", "--lr", "0.1", "--N", "4",
                  "--dim", "3", "--iters", "5", "--cache", "OUT"], ""),
]
#: where each output flag is declared (checked against the source below)
DECLARED = {("verify/judging/certify.py", "--out"), ("verify/command/cli.py", "--plot"),
            ("verify/presenting/report.py", "--out"),
            ("verify/presenting/report.py", "--screenshot"),
            ("verify/presenting/draw/command.py", "--out"),
            ("verify/running/execution.py", "--cache"),
            ("verify/running/reproductions.py", "--out"), ("simulate/cli.py", "--out"),
            ("simulate/cli.py", "--cache"), ("verify/quick.py", "--plot")}


def test_the_output_flags_tested_are_every_output_flag():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent
    found = set()
    for pkg in ("bounds", "simulate", "verify", "mcsa_cli"):
        for f in (root / pkg).rglob("*.py"):
            for flag in re.findall(r'add_argument\(\s*"(--(?:out|plot|cache|screenshot|save|'
                                   r'output|dir|figure|csv|html|png)(?:-(?:dir|file|path))?)"',
                                   f.read_text(encoding="utf-8")):
                found.add((f.relative_to(root).as_posix(), flag))
    assert found == DECLARED, found ^ DECLARED


def _unwritable_places(tmp_path):
    (tmp_path / "a-file").write_text("x")
    places = [str(tmp_path / "a-file" / "x")]  # a parent that is a file: everywhere, as root too
    if os.path.isdir("/sys/kernel"):
        places.append("/sys/kernel/x")  # a read-only file system (sysfs), as root too
    return places


@pytest.mark.parametrize("prog, argv, suffix", OUTPUTS,
                         ids=[f"{p} {' '.join(a[:2])} {a[-2]}{s}" for p, a, s in OUTPUTS])
def test_every_output_path_is_checked_before_any_work(prog, argv, suffix, tmp_path, capsys,
                                                      monkeypatch):
    """Issue 37: `verify certificate ... --out /sys/kernel/x` gave exit 70 (PermissionError) after
    the work.  Every output flag is refused in one line naming it, exit 2, before anything is
    computed (the computations are replaced by a failure here)."""
    import simulate.cli
    import simulate.sweep
    import verify.judging.certify
    import verify.running.outcome
    import verify.running.reproductions
    import verify.running.runner

    def no_work(*a, **k):
        raise AssertionError("work started before the output path was checked")

    for mod, name in [(verify.running.outcome, "run_verification"),
                      (verify.running.runner, "run_claims"),
                      (verify.judging.certify, "render"), (simulate.sweep, "run_cell"),
                      (simulate.sweep, "execute")]:
        monkeypatch.setattr(mod, name, no_work)
    main = {"verify": V, "simulate": simulate.cli.main,
            "reproductions": verify.running.reproductions.main}[prog]
    flag = argv[argv.index("OUT") - 1]
    for place in _unwritable_places(tmp_path):
        rc = main([place + suffix if a == "OUT" else a for a in argv])
        out, err = capsys.readouterr()
        assert rc == 2, (place, rc, err)
        assert err.count("\n") == 1 and f"error: {flag}:" in err and "Traceback" not in err, err
        assert out == ""


# ----------------------------------------------------------------------------- audit STEP
def test_audit_shows_one_step_by_its_id(capsys):
    """Issue 37: `verify audit lemma5.2` was refused (claims only), though the errata and the
    certificates name steps."""
    import json

    assert V(["audit", "lemma5.2"]) == 0
    out = capsys.readouterr().out
    records = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert records[0].startswith("lemma5.2 ") and not any(r.startswith("lemma5.3") for r in records)
    assert "certificate: python -m verify certificate lemma5.2" in out
    assert "`python -m verify audit lemma5` shows its" in " ".join(out.split())
    assert V(["audit", "lemma5.2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["step"] == "lemma5.2" and [s["id"] for s in d["steps"]] == ["lemma5.2"]
    assert V(["audit", "lemma5"]) == 0  # a claim: all its steps
    assert sum(line.startswith("lemma5.") for line in capsys.readouterr().out.splitlines()) >= 3
