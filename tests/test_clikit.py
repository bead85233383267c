"""mcsa_cli: the command-line kit shared by bounds, verify and simulate (in-process, < 2 s)."""

import decimal
import subprocess
import sys

import mpmath
import numpy as np
import pytest

import mcsa_cli as K


def strict(text):
    return K.loads_strict(text)


def test_import_is_light():
    code = ("import sys, mcsa_cli; bad = [m for m in ('sympy', 'numpy', 'mpmath', 'tqdm', 'scipy') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_dumps_is_strict_json():
    obj = {"nan": float("nan"), "inf": float("inf"), "minf": -np.inf,
           "arr": np.array([1.0, np.nan, np.inf]),
           "i64": np.int64(3), "f32": np.float32(0.5), "bool": np.bool_(True), 2: "key",
           "tiny": mpmath.mpf("7.36e-12000000000001"), "huge": mpmath.mpf("1e400"),
           "mp": mpmath.mpf(2),
           "dec": decimal.Decimal("1.000000000001"), "decbig": decimal.Decimal("1e400"),
           "tuple": (1, 2), "mpinf": mpmath.inf}
    text = K.dumps(obj)
    d = strict(text)
    assert d["nan"] is None and d["inf"] == "inf" and d["minf"] == "-inf"
    assert d["arr"] == [1.0, None, "inf"]
    assert d["i64"] == 3 and d["f32"] == 0.5 and d["bool"] is True and d["2"] == "key"
    assert d["tiny"].startswith("7.36") and d["tiny"].endswith("e-12000000000001")
    assert d["huge"].startswith("1.0") and d["huge"].endswith("e+400")
    assert d["mp"] == 2.0 and d["dec"] == 1.000000000001 and d["decbig"] == "1E+400"
    assert d["tuple"] == [1, 2] and d["mpinf"] == "inf"
    with pytest.raises(ValueError):
        strict('{"x": NaN}')
    with pytest.raises(TypeError):
        K.dumps({"x": object()})


@pytest.mark.parametrize("text, kw, expected", [
    ("3", dict(integer=True, lo=2), 3),
    ("1e3", dict(integer=True, lo=2), 1000),
    ("0.5", dict(lo=0, lo_strict=True), 0.5),
    ("1e400", dict(integer=True, lo=2), 10 ** 400),
    ("1.000000000001", dict(lo=1, exact=True), decimal.Decimal("1.000000000001")),
    ("1e400", dict(lo=1, exact=True), decimal.Decimal("1e400")),
])
def test_number_accepts(text, kw, expected):
    assert K.number("--x", text, **kw) == expected


@pytest.mark.parametrize("text, kw, message", [
    ("1", dict(integer=True, lo=2), "--N: must be an integer >= 2, got 1"),
    ("2.5", dict(integer=True, lo=2), "--N: must be an integer >= 2, got 2.5"),
    ("nan", dict(lo=0), "--N: must be a number >= 0, got nan"),
    ("", dict(), "--N: must be a number, got ''"),
    ("abc", dict(lo=0, hi=1), "--N: must be a number with 0 <= x <= 1, got abc"),
    ("inf", dict(lo=0), "--N: must be finite (a number >= 0), got inf"),
    ("0", dict(lo=0, lo_strict=True), "--N: must be a number > 0, got 0"),
    ("1e400", dict(), "--N: 1e400 is outside the double range"),
    ("1e-400", dict(lo=0, lo_strict=True), "--N: 1e-400 is outside the double range"),
    ("2000", dict(integer=True, lo=2, limit=1000, limit_why="memory"),
     "--N: at most 1000 is supported (memory), got "
        "2000"),
])
def test_number_refuses_in_one_line(text, kw, message):
    with pytest.raises(K.UsageError) as e:
        K.number("--N", text, **kw)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_show_exact_keeps_every_digit():
    assert K.show_exact(decimal.Decimal("1.000000000001")) == "1.000000000001"
    assert K.show_exact(decimal.Decimal("1e400")) == "1e400"
    assert K.show_exact(10 ** 400) == "1e400" and K.show_exact(12) == "12"
    assert K.show_exact(decimal.Decimal("1E+3")) == "1000" and K.show_exact(0.1) == "0.1"
    assert K.dumps(10 ** 400) == '"1e+400"' and K.dumps(10 ** 20) == "100000000000000000000"


def test_numbers_list():
    assert K.numbers("--N", "2,3, 4", integer=True, lo=2) == [2, 3, 4]
    with pytest.raises(K.UsageError, match="empty item"):
        K.numbers("--N", "2,,3", integer=True)
    with pytest.raises(K.UsageError, match="at most 3 values, got 4"):
        K.numbers("--N", "1,2,3,4", max_items=3)


def test_parser_names_the_flag_once():
    ap = K.Parser(prog="x")
    ap.add_argument("--dim", type=lambda s: K.number("--dim", s, integer=True, lo=1))
    ap.add_argument("--mode", choices=("a", "b"))
    with pytest.raises(K.UsageError) as e:
        ap.parse_args(["--dim", "0"])
    assert str(e.value) == "--dim: must be an integer >= 1, got 0"
    with pytest.raises(K.UsageError) as e:
        ap.parse_args(["--mode", "c"])
    assert str(e.value).startswith("--mode: invalid choice: 'c'")
    with pytest.raises(K.UsageError, match="unrecognized arguments"):
        ap.parse_args(["--di", "3"])  # no abbreviations


def test_table():
    out = K.table([["a", 1.5, None], ["bbb", 2, "x"]], ["name", "v", "w"])
    assert out.splitlines() == ["name  v    w", "----  ---  -", "a     1.5  —", "bbb   2    x"]


def test_progress_silent_off_a_terminal(capsys):
    bar = K.progress(range(3), json=False)  # pytest's stderr is not a terminal
    assert not bar.enabled and list(bar) == [0, 1, 2]
    bar("status")
    bar.update()
    bar.close()
    assert capsys.readouterr().err == ""


def _dispatch(argv, commands=None, claim=None, **kw):
    return K.run("prog", "usage text", argv, commands or {}, claim, **kw)


def test_run_statuses(capsys):
    def boom(argv):
        raise ZeroDivisionError("division by zero")

    def interrupted(argv):
        raise KeyboardInterrupt

    def bad(argv):
        raise K.UsageError("--x: must be a number, got y")

    cmds = {"boom": boom, "int": interrupted, "bad": bad, "ok": lambda argv: 3,
            "none": lambda argv: None}
    assert _dispatch(["boom"], cmds) == 70
    err = capsys.readouterr().err
    assert err == ("prog: internal error: ZeroDivisionError: division by zero; "
                   "rerun with --debug for the traceback\n")
    with pytest.raises(ZeroDivisionError):
        _dispatch(["boom", "--debug"], cmds)
    assert _dispatch(["int"], cmds) == 130
    assert capsys.readouterr().err == "prog: interrupted\n"
    assert _dispatch(["bad"], cmds) == 2
    assert capsys.readouterr().err == "prog: error: --x: must be a number, got y\n"
    assert _dispatch(["ok"], cmds) == 3 and _dispatch(["none"], cmds) == 0
    assert _dispatch([], cmds) == 2
    assert _dispatch(["nope"], cmds) == 2
    assert "unknown command 'nope'" in capsys.readouterr().err
    assert _dispatch(["--help"], cmds) == 0
    assert capsys.readouterr().out == "usage text\n"
    assert _dispatch(["c1", "a"], cmds, claim=lambda c, argv: 1 if c == "c1" else 0) == 1
    assert _dispatch(["-x"], cmds) == 2


def test_run_collects_runtime_warnings(capsys):
    def warn(argv):
        import warnings

        warnings.warn("overflow encountered in exp", RuntimeWarning)
        return 0

    assert _dispatch(["w"], {"w": warn}) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeWarning" not in err and "1 numeric warning" in err


def test_output_path(tmp_path):
    assert K.output_path("--plot", str(tmp_path / "f.png")).endswith("f.png")
    for bad, msg in [("", "empty path"), (str(tmp_path / "f.txt"), "must end in"),
                     ("/proc/nope/x.png", "does not exist"), (str(tmp_path), "must end in")]:
        with pytest.raises(K.UsageError, match=msg):
            K.output_path("--plot", bad)


# ----------------------------------------------------------------- an output that cannot be written
FULL = "/dev/full"  # every write fails with ENOSPC: a full disk


@pytest.mark.skipif(not __import__("os").path.exists(FULL), reason="no /dev/full on this system")
@pytest.mark.parametrize("argv", [["verify", "list", "--json"],
                                  ["bounds", "show", "theorem3", "--json"],
                                  # a short output: it fails at the final flush
                                  ["bounds", "show", "lemma3"],
                                  ["simulate", "--help"], ["bounds", "show", "--help"]])
def test_full_disk_on_stdout_exits_74_naming_it(argv, tmp_path):
    """`... > /dev/full`: one line naming standard output and exit 74 (EX_IOERR), not 70 'internal
    error'.
    """
    import os

    env = {**os.environ, "MCSA_CACHE": str(tmp_path)}
    with open(FULL, "w") as full:
        r = subprocess.run([sys.executable, "-m", *argv], stdout=full, stderr=subprocess.PIPE,
                           text=True, env=env,
                           timeout=600)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == K.IO_ERROR == 74, r.stderr
    assert (len(lines) == 1 and "cannot write standard output" in lines[0]
            and "internal error" not in r.stderr), lines
    # the same command to a pipe is written, exit 0: the status comes from the failed write, not the
    # command
    ok = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, env=env,
                        timeout=600)
    assert ok.returncode == 0 and ok.stdout and not ok.stderr.strip(), ok.stderr


def test_a_file_that_cannot_be_written_exits_74_naming_it(tmp_path, monkeypatch, capsys):
    """A command's output file on a full disk (atomic_write: the write or fsync fails with ENOSPC):
    one line
    naming the file, exit 74, and no temporary file left behind."""
    import errno
    import os

    target = tmp_path / "out.json"

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)
    status = K.run("prog", "", ["write"], {"write": lambda argv: K.atomic_write(target, "{}")})
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 74
    assert len(err) == 1 and str(target) in err[0] and "No space left on device" in err[0], err
    assert list(tmp_path.iterdir()) == []
    # any other OSError stays an internal error (70): only a failed write is EX_IOERR
    status = K.run("prog", "", ["read"],
                   {"read": lambda argv: open(tmp_path / "missing.txt").read()})
    assert status == 70 and "internal error" in capsys.readouterr().err
