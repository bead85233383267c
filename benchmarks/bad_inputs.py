"""Issue 8 tally: bad and odd inputs across `python -m bounds`, `python -m verify` and
`python -m simulate`, each run as a subprocess with a time limit.

    python benchmarks/bad_inputs.py [--timeout 60] [--only bounds|verify|simulate] [--jobs 1]

For every input: the exit status, the number of lines on stderr, whether a traceback was
printed, the time, and whether it met the standard: exit 2 with exactly one stderr line
and no traceback (for the inputs marked bad), or the stated exit status (inputs marked
odd, e.g. values that are valid but unusual).  A run that exceeds the time limit counts as
a hang.  Prints the failures and a tally per command line; exit status 0 when every input
met the standard, 1 otherwise.  Measures the machine it runs on: run it on an idle one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N2000 = ",".join(str(i) for i in range(2, 2001))
BIG_GRID = ",".join(str(i) for i in range(2, 2002))
W2000 = ",".join(str(1 + i) for i in range(2000))
TMP = tempfile.gettempdir()

# (command line, expected exit status); 2 = bad input (one stderr line, no traceback)
CASES: list[tuple[str, list[str], int]] = []


def bad(prog, *argv):
    CASES.append((prog, list(argv), 2))


def odd(prog, status, *argv):
    CASES.append((prog, list(argv), status))


# ----------------------------------------------------------------------------- bounds (>= 40)
T3 = ["--N", "10", "--w-star", "5", "--L", "1"]
bad("bounds")
bad("bounds", "--bogus")
bad("bounds", "nonsense")
bad("bounds", "list", "--bogus")
bad("bounds", "list", "x")
bad("bounds", "show")
bad("bounds", "show", "nope")
bad("bounds", "show", "theorem3", "--latex", "--json", "--zzz")
bad("bounds", "cache")
bad("bounds", "theorem3", "--N", "ten", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", "2.5", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", "0", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", "", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", ",", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", "1e400.5", "--w-star", "5", "--L", "1")
bad("bounds", "theorem3", "--N", "10", "--w-star", "nan", "--L", "1")
bad("bounds", "theorem3", "--N", "10", "--w-star", "inf", "--L", "1")
bad("bounds", "theorem3", "--N", "10", "--w-star", "-inf", "--L", "1")
bad("bounds", "theorem3", "--N", "10", "--w-star", "0.99", "--L", "1")
bad("bounds", "theorem3", "--N", "10", "--w-star", "5", "--L", "-1")
bad("bounds", "theorem3", *T3, "--mu-norm", "5")
bad("bounds", "theorem3", *T3, "--k", "-2")
bad("bounds", "theorem3", *T3, "--D", "0")
bad("bounds", "theorem3", "--N")
bad("bounds", "theorem3", "--N", "10")
bad("bounds", "theorem3", "--w", "5")
bad("bounds", "theorem1", "--N", "1", "--w-star", "5", "--k", "1", "--L", "1")
bad("bounds", "theorem2", "--N", "10", "--w-star", "5", "--L", "1", "--chi2", "9")
bad("bounds", "lemma3", "--m", "0", "--s", "0.5")
bad("bounds", "lemma4", "--w", "20", "--w-star", "10")
bad("bounds", "lemma5", "--n", "0", "--w", "1", "--w-star", "2")
bad("bounds", "lemma7", "--D", "2", "--L", "1", "--C", "1", "--rho", "1.5", "--n", "3")
bad("bounds", "theorem1", "--N", BIG_GRID, "--w-star", W2000, "--k", "1", "--L", "1")  # 4 million points
bad("bounds", "compare")
bad("bounds", "compare", "--N", "1", "--w-star", "5", "--chi2", "1", "--L", "1")
bad("bounds", "compare", "--N", "10,20", "--w-star", "5", "--chi2", "1", "--L", "1")
bad("bounds", "compare", "--N", "10", "--w-star", "5", "--chi2", "9", "--L", "1")
bad("bounds", "compare", "--N", "10", "--w-star", "5", "--chi2", "1", "--L", "1", "--form", "explicit")
bad("bounds", "compare", "--N", "10", "--w-star", "5", "--chi2", "1", "--L", "1", "--form", "moment")
bad("bounds", "compare", "--N", "inf", "--w-star", "5", "--chi2", "1", "--L", "1")
odd("bounds", 0, "theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e9", "--t", "1", "--D", "1", "--L",
    "1")
odd("bounds", 0, "theorem1", "--N", "10", "--w-star", "1e400", "--k", "5", "--L", "1", "--json")
odd("bounds", 0, "compare", "--N", "1e12", "--w-star", "10", "--chi2", "1", "--L", "1")
# beyond the evaluated domain (N <= 1e12, k and t <= 1e9): refused in one line
bad("bounds", "compare", "--N", "1e400", "--w-star", "10", "--chi2", "1", "--L", "1")
bad("bounds", "theorem4", "--N", "2", "--w-star", "1.000000000001", "--k", "1e12", "--t", "1", "--D", "1", "--L", "1")
odd("bounds", 0, "theorem3", "--N", "1,2", "--w-star", "1", "--k", "3", "--L", "1")
odd("bounds", 0, "list")
odd("bounds", 0, "show", "theorem3")
odd("bounds", 0, "theorem3", "--N", "10", "--w-star", "100", "--L", "1")

# ----------------------------------------------------------------------------- verify (>= 35)
bad("verify")
bad("verify", "-x")
bad("verify", "theorem9")
bad("verify", "list", "--bogus")
bad("verify", "all", "--quick", "--full")
bad("verify", "all", "--seed", "x")
bad("verify", "report", "--bogus")
bad("verify", "lemma5", "--N", "5")
bad("verify", "lemma5", "--n", "0")
bad("verify", "lemma5", "--n", "1e12")
bad("verify", "lemma5", "--w-star", "0.5")
bad("verify", "lemma5", "--w-star", "1e400")
bad("verify", "lemma1", "--k", "3")
bad("verify", "theorem1", "--k", "1e12")
bad("verify", "theorem1", "--k", "2.5")
bad("verify", "theorem1", "--N", "1")
bad("verify", "theorem1", "--N", "1e400")
bad("verify", "theorem1", "--N", "two")
bad("verify", "theorem4", "--N", N2000)
bad("verify", "theorem4", "--N", "2000")
bad("verify", "theorem4", "--t", "-1")
bad("verify", "theorem1", "--dim", "100000")
bad("verify", "theorem1", "--dim", "0")
bad("verify", "theorem1", "--proposal-scale", "0.9")
bad("verify", "theorem1", "--proposal-scale", "1e200", "--dim", "5")
bad("verify", "theorem1", "--seed", "-1")
bad("verify", "theorem1", "--bound-scale", "0")
bad("verify", "theorem1", "--bound-scale", "nan")
bad("verify", "theorem1", "--plot", "")
bad("verify", "theorem1", "--plot", "/proc/nope/x.png")
bad("verify", "theorem1", "--plot", "figure.txt")
bad("verify", "theorem1", "--plot", TMP)
bad("verify", "theorem1", "--quick", "--full")
bad("verify", "theorem1", "--bogus")
bad("verify", "search")
bad("verify", "search", "nope")
bad("verify", "search", "table1")
bad("verify", "search", "lemma5", "--max-examples", "0")
bad("verify", "search", "lemma5", "--max-examples", "1e9")
bad("verify", "audit", "nonsense")
bad("verify", "audit", "table2")
bad("verify", "audit", "--json", "--markdown")
odd("verify", 0, "list")
odd("verify", 1, "lemma5", "--n", "2")
odd("verify", 0, "table2", "--json")

# ----------------------------------------------------------------------------- simulate (>= 30)
TV = ["tv", "--kernel", "imh", "--dim", "5", "--proposal-scale", "1.5"]
MO = ["moment", "--scheme", "pmcsa", "--dim", "5", "--proposal-scale", "1.5"]
RU = ["run", "--scheme", "pmcsa", "--dim", "5", "--N", "4"]
bad("simulate")
bad("simulate", "nonsense")
bad("simulate", "tv")
bad("simulate", *TV)
bad("simulate", *TV, "--steps", "0")
bad("simulate", *TV, "--steps", "x")
bad("simulate", "tv", "--kernel", "mh", "--dim", "5", "--proposal-scale", "1.5", "--steps", "5")
bad("simulate", "tv", "--kernel", "cis", "--dim", "5", "--proposal-scale", "1.5", "--steps", "5")
bad("simulate", "tv", "--kernel", "imh", "--dim", "0", "--proposal-scale", "1.5", "--steps", "5")
bad("simulate", "tv", "--kernel", "imh", "--dim", "5", "--proposal-scale", "0.5", "--steps", "5")
bad("simulate", "tv", "--kernel", "imh", "--dim", "5", "--proposal-scale", "nan", "--steps", "5")
bad("simulate", *TV, "--steps", "5", "--start", "quantile:2")
bad("simulate", "tv", "--kernel", "cis", "--N", "4", "--dim", "5", "--proposal-scale", "1.5", "--steps", "1000000000")
bad("simulate", "moment")
odd("simulate", 0, *MO, "--N", "1")  # one pMCSA chain is a valid budget
bad("simulate", "moment", "--scheme", "msc", "--dim", "5", "--proposal-scale", "1.5", "--N", "1")
bad("simulate", *MO, "--N", "1e9")
bad("simulate", *MO, "--N", "10", "--family", "cauchy")
bad("simulate", *MO, "--N", "10", "--t-df", "2")
bad("simulate", *MO, "--N", "10", "--replicates", "0")
odd("simulate", 0, "moment", "--scheme", "msc", "--dim", "5", "--proposal-scale", "0.5", "--N", "10")  # w* = inf
bad("simulate", "moment", "--scheme", "msc", "--dim", "5", "--proposal-scale", "-0.5", "--N", "10")
bad("simulate", "moment", "--scheme", "nope", "--dim", "5", "--proposal-scale", "1.5", "--N", "10")
bad("simulate", "run")
bad("simulate", *RU, "--iters", "1000000000")
bad("simulate", *RU, "--iters", "0")
bad("simulate", *RU, "--iters", "10", "--optimizer", "rmsprop")
bad("simulate", *RU, "--iters", "10", "--lr", "-1")
bad("simulate", *RU, "--iters", "10", "--lr", "nan")
bad("simulate", *RU, "--iters", "10", "--seed", "-1")
bad("simulate", *RU, "--iters", "10", "--threads", "0")
bad("simulate", "sweep")
bad("simulate", "sweep", "--scheme", "msc,nope", "--optimizer", "sgd", "--lr", "0.1", "--N", "4", "--dim", "5",
    "--iters", "5")
bad("simulate", "sweep", "--scheme", "msc", "--optimizer", "sgd", "--lr", "0.1", "--N", "4", "--dim", "5",
    "--iters", "5", "--workers", "0")
bad("simulate", "sweep", "--scheme", "msc", "--optimizer", "sgd", "--lr", "0.1", "--N", "4", "--dim", "5",
    "--iters", "5", "--out", "/proc/nope/x.csv")
odd("simulate", 0, "moment", "--scheme", "msc", "--dim", "5", "--proposal-scale", "0.5", "--N", "10", "--family",
    "student-t", "--t-df", "3")
odd("simulate", 5, *RU, "--iters", "50", "--optimizer", "sgd", "--lr", "1e10")
odd("simulate", 0, "tv", "--kernel", "imh", "--dim", "100000", "--proposal-scale", "1.0001", "--steps", "5")
odd("simulate", 0, *TV, "--steps", "1000000000")


def run_case(prog, argv, expected, timeout):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", prog, *argv], capture_output=True, text=True, timeout=timeout,
                           cwd=TMP, env=env)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = None, (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    dt = time.perf_counter() - t0
    lines = len(err.strip().splitlines()) if err.strip() else 0
    trace = "Traceback" in err
    if rc is None:
        ok, why = False, f"no answer within {timeout:g} s"
    elif expected == 2:
        ok = rc == 2 and lines == 1 and not trace
        why = "" if ok else f"exit {rc}, {lines} stderr line(s){', traceback' if trace else ''}"
    else:
        ok = rc == expected and not trace
        why = "" if ok else f"exit {rc} (expected {expected}){', traceback' if trace else ''}"
    first = err.strip().splitlines()[-1][:150] if err.strip() else ""
    return {"prog": prog, "argv": argv, "expected": expected, "rc": rc, "lines": lines, "traceback": trace,
            "seconds": dt, "ok": ok, "why": why, "stderr": first}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per input (default 60)")
    ap.add_argument("--only", choices=("bounds", "verify", "simulate"))
    ap.add_argument("--jobs", type=int, default=1, help="inputs run at once (default 1)")
    a = ap.parse_args(argv)
    cases = [c for c in CASES if a.only is None or c[0] == a.only]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        results = list(ex.map(lambda c: run_case(*c, a.timeout), cases))
    for r in results:
        mark = "ok  " if r["ok"] else "FAIL"
        cmd = " ".join(r["argv"])
        cmd = cmd if len(cmd) <= 90 else cmd[:87] + "..."
        print(f"{mark} {r['prog']:<8} {cmd:<90} exit {r['rc']!s:>4} lines {r['lines']} {r['seconds']:6.2f}s"
              + (f"  [{r['why']}]" if not r["ok"] else "") + (f"  {r['stderr']}" if r["stderr"] else ""))
    print()
    print(f"{'command':<10} {'inputs':>6} {'met':>5} {'exit 2':>7} {'1 line':>7} {'traceback':>9} {'hang':>5} "
          f"{'max s':>6} {'mean s':>7}")
    for prog in ("bounds", "verify", "simulate"):
        rs = [r for r in results if r["prog"] == prog]
        if not rs:
            continue
        print(f"{prog:<10} {len(rs):>6} {sum(r['ok'] for r in rs):>5} {sum(r['rc'] == 2 for r in rs):>7} "
              f"{sum(r['lines'] == 1 for r in rs):>7} {sum(r['traceback'] for r in rs):>9} "
              f"{sum(r['rc'] is None for r in rs):>5} {max(r['seconds'] for r in rs):>6.1f} "
              f"{sum(r['seconds'] for r in rs) / len(rs):>7.2f}")
    n_ok = sum(r["ok"] for r in results)
    print(f"\n{n_ok} of {len(results)} inputs met the standard")
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
