"""Bad output paths are bad input: one line on stderr, exit 2, before any work -- found by
creating the file or directory (os.access says yes to root on /proc and /sys); what was
created and never written is removed again; files get the user's umask."""

import os
import stat
import subprocess
import sys

import pytest

import mcsa_cli as K
from simulate import sweep
from simulate.cli import main as simulate_main

LINUX = sys.platform.startswith("linux")
SWEEP = ["sweep", "--scheme", "msc", "--optimizer", "sgd", "--lr", "0.1", "--N", "3", "--dim", "2",
         "--iters", "3"]


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "regular.txt"
    f.write_text("keep me\n")
    return f


@pytest.fixture(autouse=True)
def nothing_left_registered():
    yield
    K.discard_unwritten_outputs()


def bad_file_paths(tmp_path, a_file):
    paths = [(str(a_file / "x.csv"), "not a directory"),
             (str(tmp_path / "missing" / "x.csv"), "does not exist"),
             ("", "empty path")]
    if LINUX:
        paths += [("/proc/x.csv", "cannot create"), ("/sys/x.csv", "cannot create")]
    return paths


# ----------------------------------------------------------------------------- the kit
def test_output_path_refuses_what_cannot_be_created(tmp_path, a_file):
    for path, why in bad_file_paths(tmp_path, a_file):
        with pytest.raises(K.UsageError, match=why) as e:
            K.output_path("--out", path, (".csv",))
        assert str(e.value).startswith("--out: ") and "\n" not in str(e.value)
    d = tmp_path / "adir.csv"
    d.mkdir()
    with pytest.raises(K.UsageError, match="is a directory"):
        K.output_path("--out", str(d), (".csv",))
    with pytest.raises(K.UsageError, match="must end in .csv"):
        K.output_path("--out", str(tmp_path / "x.json"), (".csv",))
    with pytest.raises(K.UsageError, match="not a directory"):
        K.output_path("--cache", str(a_file), kind="dir")
    if LINUX:
        for path in ("/sys/c", "/proc/c"):
            with pytest.raises(K.UsageError, match="cannot create directory"):
                K.output_path("--cache", path, kind="dir")
        with pytest.raises(K.UsageError, match="not a regular file"):
            K.output_path("--out", "/dev/null", None)  # os.replace would put a file in its place
    assert a_file.read_text() == "keep me\n"
    # no placeholder, no probe file left
    assert sorted(os.listdir(tmp_path)) == ["adir.csv", "regular.txt"]


@pytest.mark.skipif(not LINUX or os.geteuid() != 0, reason="root-only: os.access says yes to root")
def test_as_root_the_permission_check_would_pass_but_creating_fails():
    # why the old check let them through
    assert os.access("/sys", os.W_OK) and os.access("/proc", os.W_OK)
    with pytest.raises(K.UsageError):
        K.output_path("--plot", "/sys/x.png")
    with pytest.raises(K.UsageError):
        K.output_path("--plot", "/proc/x.png")


def test_a_new_file_is_created_then_removed_unless_written(tmp_path):
    p = K.output_path("--out", str(tmp_path / "r.csv"), (".csv",))
    assert os.path.isfile(p) and os.path.getsize(p) == 0
    assert K.discard_unwritten_outputs() == [p] and not os.path.exists(p)
    p = K.output_path("--out", str(tmp_path / "r.csv"), (".csv",))
    K.atomic_write(p, "a,b\n")  # the real output replaces the placeholder
    assert K.discard_unwritten_outputs() == [] and open(p).read() == "a,b\n"
    p2 = K.output_path("--plot", str(tmp_path / "f.png"))
    with open(p2, "wb") as f:  # written in place (matplotlib's savefig)
        f.write(b"png")
    assert K.discard_unwritten_outputs() == [] and os.path.getsize(p2) == 3


def test_an_existing_file_is_left_alone(tmp_path):
    f = tmp_path / "old.csv"
    f.write_text("previous results\n")
    assert K.output_path("--out", str(f), (".csv",)) == str(f)
    assert K.discard_unwritten_outputs() == [] and f.read_text() == "previous results\n"


def test_directories_created_and_removed_when_left_empty(tmp_path):
    d = K.output_path("--cache", str(tmp_path / "c"), kind="dir")
    assert os.path.isdir(d)
    assert K.discard_unwritten_outputs() == [d] and not os.path.exists(d)
    d = K.output_path("--cache", str(tmp_path / "c"), kind="dir")
    (tmp_path / "c" / "entry.json").write_text("{}")
    assert K.discard_unwritten_outputs() == [] and os.path.isdir(d)


def test_html_out_is_a_file_not_a_directory(tmp_path):
    p = K.output_path("--out", str(tmp_path / "report.html"), (".html",), kind="auto")
    assert os.path.isfile(p) and not os.path.isdir(p)
    d = K.output_path("--out", str(tmp_path / "out"), (".html",), kind="auto")
    assert os.path.isdir(d)


def test_run_removes_unwritten_outputs_whatever_the_outcome(tmp_path, capsys):
    target = str(tmp_path / "r.csv")

    def fails(argv):
        K.output_path("--out", target, (".csv",))
        raise RuntimeError("boom")

    def interrupted(argv):
        K.output_path("--out", target, (".csv",))
        raise KeyboardInterrupt

    def writes(argv):
        K.atomic_write(K.output_path("--out", target, (".csv",)), "x\n")
        return 0

    assert K.run("p", "u", ["c"], {"c": fails}) == 70 and not os.path.exists(target)
    assert K.run("p", "u", ["c"], {"c": interrupted}) == 130 and not os.path.exists(target)
    assert K.run("p", "u", ["c"], {"c": writes}) == 0 and open(target).read() == "x\n"
    capsys.readouterr()


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_atomic_write_uses_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        p = tmp_path / "f.csv"
        K.atomic_write(p, "x")
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o666 & ~mask
        os.chmod(p, 0o640)  # an existing file keeps its mode
        K.atomic_write(p, "y")
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o640 and p.read_text() == "y"
    finally:
        os.umask(old)


# ----------------------------------------------------------------------------- the sweep command
@pytest.fixture
def no_sweep(monkeypatch):
    """The sweep must never start on a bad path: fail loudly if it does."""
    def never(*a, **k):
        raise AssertionError("the sweep ran")

    monkeypatch.setattr(sweep, "run_sweep", never)


def _bad(capsys, argv):
    rc = simulate_main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_sweep_refuses_bad_out_and_cache_before_running(tmp_path, a_file, capsys, no_sweep):
    cases = [(["--out", p], "--out") for p, _ in bad_file_paths(tmp_path, a_file)]
    d = tmp_path / "adir.csv"
    d.mkdir()
    cases += [(["--out", str(d)], "--out"), (["--out", str(tmp_path / "r.json")], "--out"),
              (["--out", str(tmp_path / "r.txt")], "--out"), (["--cache", str(a_file)], "--cache"),
              (["--cache", str(a_file / "c")], "--cache")]
    if LINUX:
        cases += [(["--cache", "/sys/c"], "--cache"), (["--cache", "/proc/c"], "--cache")]
    for extra, flag in cases:
        rc, out, err = _bad(capsys, SWEEP + extra)
        lines = err.strip().splitlines()
        assert (rc == 2 and out == "" and len(lines) == 1
                and f"error: {flag}: " in lines[0]), (extra, err)
    assert sorted(os.listdir(tmp_path)) == ["adir.csv", "regular.txt"]


def test_sweep_outputs_and_cache_have_the_umask_mode(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        rc = simulate_main(SWEEP + ["--out", str(tmp_path / "r.csv"), "--cache",
                                    str(tmp_path / "c")])
    finally:
        os.umask(old)
    capsys.readouterr()
    assert rc == 0
    files = [tmp_path / "r.csv", tmp_path / "r.json", *(tmp_path / "c").iterdir()]
    assert len(files) == 3 and all(stat.S_IMODE(os.stat(f).st_mode) == 0o644 for f in files), \
        [oct(os.stat(f).st_mode) for f in files]


def test_interrupted_sweep_leaves_no_empty_outputs(tmp_path, capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep, "run_sweep", interrupted)
    rc = simulate_main(SWEEP + ["--out", str(tmp_path / "r.csv"), "--cache", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert rc == 130 and err.strip().splitlines() == [
        "python -m simulate: interrupted; no cell had finished, "
                                                      "nothing was stored"]
    assert os.listdir(tmp_path) == []  # the empty CSV, JSON and cache directory are gone


def test_bad_path_in_a_subprocess_as_whoever_runs_the_tests():
    if not LINUX:
        pytest.skip("/proc is Linux")
    p = subprocess.run([sys.executable, "-m", "simulate", *SWEEP, "--out", "/proc/results.csv"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [
        "python -m simulate: error: --out: cannot create '/proc/results.csv' (No such file or "
        "directory)"]
