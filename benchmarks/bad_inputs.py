"""Issue 8 tally: bad and odd inputs across `python -m bounds`, `python -m verify`,
`python -m simulate` and a `QuickClaim` script (docs/own-claim.md), each run as a subprocess with
a time limit.

    python benchmarks/bad_inputs.py [--timeout 60] [--only bounds|verify|simulate|quickclaim]

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
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TMP = tempfile.gettempdir()

# One input a row: the expected exit status (2 = bad input: one stderr line, no traceback), the
# program, its arguments (shell words).  $T3 and the like stand for the words in MACROS, $N2..2000
# and the like for the long lists in LONG, $TMP for the temporary directory.
TABLE = r"""
# bounds (>= 40)
2 bounds
2 bounds --bogus
2 bounds nonsense
2 bounds list --bogus
2 bounds list x
2 bounds show
2 bounds show nope
2 bounds show theorem3 --latex --json --zzz
2 bounds cache
2 bounds theorem3 --N ten --w-star 5 --L 1
2 bounds theorem3 --N 2.5 --w-star 5 --L 1
2 bounds theorem3 --N 0 --w-star 5 --L 1
2 bounds theorem3 --N '' --w-star 5 --L 1
2 bounds theorem3 --N , --w-star 5 --L 1
2 bounds theorem3 --N 1e400.5 --w-star 5 --L 1
2 bounds theorem3 --N 10 --w-star nan --L 1
2 bounds theorem3 --N 10 --w-star inf --L 1
2 bounds theorem3 --N 10 --w-star -inf --L 1
2 bounds theorem3 --N 10 --w-star 0.99 --L 1
2 bounds theorem3 --N 10 --w-star 5 --L -1
2 bounds theorem3 $T3 --mu-norm 5
2 bounds theorem3 $T3 --k -2
2 bounds theorem3 $T3 --D 0
2 bounds theorem3 --N
2 bounds theorem3 --N 10
2 bounds theorem3 --w 5
2 bounds theorem1 --N 1 --w-star 5 --k 1 --L 1
2 bounds theorem2 --N 10 --w-star 5 --L 1 --chi2 9
2 bounds lemma3 --m 0 --s 0.5
2 bounds lemma4 --w 20 --w-star 10
2 bounds lemma5 --n 0 --w 1 --w-star 2
2 bounds lemma7 --D 2 --L 1 --C 1 --rho 1.5 --n 3
# 4 million points:
2 bounds theorem1 --N $N2..2001 --w-star $W1..2000 --k 1 --L 1
2 bounds compare
2 bounds compare --N 1 --w-star 5 --chi2 1 --L 1
2 bounds compare --N 10,20 --w-star 5 --chi2 1 --L 1
2 bounds compare --N 10 --w-star 5 --chi2 9 --L 1
2 bounds compare --N 10 --w-star 5 --chi2 1 --L 1 --form explicit
2 bounds compare --N 10 --w-star 5 --chi2 1 --L 1 --form moment
2 bounds compare --N inf --w-star 5 --chi2 1 --L 1
0 bounds theorem4 --N 2 --w-star 1.000000000001 --k 1e9 --t 1 --D 1 --L 1
0 bounds theorem1 --N 10 --w-star 1e400 --k 5 --L 1 --json
0 bounds compare --N 1e12 --w-star 10 --chi2 1 --L 1
# beyond the evaluated domain (N <= 1e12, k and t <= 1e9): refused in one line
2 bounds compare --N 1e400 --w-star 10 --chi2 1 --L 1
2 bounds theorem4 --N 2 --w-star 1.000000000001 --k 1e12 --t 1 --D 1 --L 1
0 bounds theorem3 --N 1,2 --w-star 1 --k 3 --L 1
0 bounds list
0 bounds show theorem3
0 bounds theorem3 --N 10 --w-star 100 --L 1
# verify (>= 35)
2 verify
2 verify -x
2 verify theorem9
2 verify list --bogus
2 verify all --quick --full
2 verify all --seed x
2 verify report --bogus
2 verify lemma5 --N 5
2 verify lemma5 --n 0
2 verify lemma5 --n 1e12
2 verify lemma5 --w-star 0.5
2 verify lemma5 --w-star 1e400
2 verify lemma1 --k 3
2 verify theorem1 --k 1e12
2 verify theorem1 --k 2.5
2 verify theorem1 --N 1
2 verify theorem1 --N 1e400
2 verify theorem1 --N two
2 verify theorem4 --N $N2..2000
2 verify theorem4 --N 2000
2 verify theorem4 --t -1
2 verify theorem1 --dim 100000
2 verify theorem1 --dim 0
2 verify theorem1 --proposal-scale 0.9
2 verify theorem1 --proposal-scale 1e200 --dim 5
2 verify theorem1 --seed -1
2 verify theorem1 --bound-scale 0
2 verify theorem1 --bound-scale nan
2 verify theorem1 --plot ''
2 verify theorem1 --plot /proc/nope/x.png
2 verify theorem1 --plot figure.txt
2 verify theorem1 --plot $TMP
2 verify theorem1 --quick --full
2 verify theorem1 --bogus
2 verify search
2 verify search nope
2 verify search table1
2 verify search lemma5 --max-examples 0
2 verify search lemma5 --max-examples 1e9
2 verify audit nonsense
2 verify audit table2
2 verify audit --json --markdown
0 verify list
1 verify lemma5 --n 2
0 verify table2 --json
# simulate (>= 30)
2 simulate
2 simulate nonsense
2 simulate tv
2 simulate $TV
2 simulate $TV --steps 0
2 simulate $TV --steps x
2 simulate tv --kernel mh --dim 5 --proposal-scale 1.5 --steps 5
2 simulate tv --kernel cis --dim 5 --proposal-scale 1.5 --steps 5
2 simulate tv --kernel imh --dim 0 --proposal-scale 1.5 --steps 5
2 simulate tv --kernel imh --dim 5 --proposal-scale 0.5 --steps 5
2 simulate tv --kernel imh --dim 5 --proposal-scale nan --steps 5
2 simulate $TV --steps 5 --start quantile:2
2 simulate tv --kernel cis --N 4 --dim 5 --proposal-scale 1.5 --steps 1000000000
2 simulate moment
# one pMCSA chain is a valid budget:
0 simulate $MO --N 1
2 simulate moment --scheme msc --dim 5 --proposal-scale 1.5 --N 1
2 simulate $MO --N 1e9
2 simulate $MO --N 10 --family cauchy
2 simulate $MO --N 10 --t-df 2
2 simulate $MO --N 10 --replicates 0
# w* = inf:
0 simulate moment --scheme msc --dim 5 --proposal-scale 0.5 --N 10
2 simulate moment --scheme msc --dim 5 --proposal-scale -0.5 --N 10
2 simulate moment --scheme nope --dim 5 --proposal-scale 1.5 --N 10
2 simulate run
2 simulate $RU --iters 1000000000
2 simulate $RU --iters 0
2 simulate $RU --iters 10 --optimizer rmsprop
2 simulate $RU --iters 10 --lr -1
2 simulate $RU --iters 10 --lr nan
2 simulate $RU --iters 10 --seed -1
2 simulate $RU --iters 10 --threads 0
2 simulate sweep
2 simulate sweep --scheme msc,nope $SW
2 simulate sweep --scheme msc $SW --workers 0
2 simulate sweep --scheme msc $SW --out /proc/nope/x.csv
0 simulate moment --scheme msc --dim 5 --proposal-scale 0.5 --N 10 --family student-t --t-df 3
5 simulate $RU --iters 50 --optimizer sgd --lr 1e10
0 simulate tv --kernel imh --dim 100000 --proposal-scale 1.0001 --steps 5
0 simulate $TV --steps 1000000000
"""
# A QuickClaim script per row (issue 37 section 3): ``STATUS quickclaim BOUND LO HI [ARGS]`` writes
# a script whose quantity is 0.5 t on the domain t in (LO, HI) (ints: an integer domain) and runs
# it with ARGS; exit 2 must come before any work (the quantity is never called).
QUICKCLAIM = r"""
2 quickclaim '(1 - t**' 0 8
2 quickclaim 't + s' 0 8
2 quickclaim '' 0 8
2 quickclaim 't > 1' 0 8
2 quickclaim '1/t' 0 8
2 quickclaim '1/(t - 3.5)' 0.0 8.0
2 quickclaim nan 0 8
2 quickclaim zoo 0 8
2 quickclaim t 8 0
2 quickclaim t 0 8 --plot /sys/kernel/x.png
2 quickclaim t 0 8 --plot /nonexistent/dir/x.png
2 quickclaim t 0 8 --plot x.txt
2 quickclaim t 0 8 --bogus
2 quickclaim t 0 8 --seed -1
0 quickclaim t 0 8 --max-examples 0
0 quickclaim t 0 8 --max-examples 20
1 quickclaim 't/4' 0.0 8.0 --max-examples 20
0 quickclaim t 0 8 --help
"""

SCRIPT = """import sys
from verify import QuickClaim


def q(t):
    \"\"\"the quantity\"\"\"
    return 0.5 * t


claim = QuickClaim("bad_input", bound={bound!r}, quantity=q, domain={{"t": ({lo}, {hi})}})
if __name__ == "__main__":
    sys.exit(claim.main())
"""

MACROS = {"$T3": "--N 10 --w-star 5 --L 1", "$TV": "tv --kernel imh --dim 5 --proposal-scale 1.5",
          "$MO": "moment --scheme pmcsa --dim 5 --proposal-scale 1.5",
          "$RU": "run --scheme pmcsa --dim 5 --N 4",
          "$SW": "--optimizer sgd --lr 0.1 --N 4 --dim 5 --iters 5"}
LONG = {f"${name}{a}..{b}": ",".join(str(i) for i in range(a, b + 1))
        for name, a, b in [("N", 2, 2000), ("N", 2, 2001), ("W", 1, 2000)]}


def _cases(table: str) -> list[tuple[str, list[str], int]]:
    """(program, arguments, expected exit status) for each row of ``table`` (TABLE's format)."""
    cases = []
    for line in table.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        status, prog, *words = shlex.split(line)
        argv: list[str] = []
        for w in words:
            if w in MACROS:
                argv += shlex.split(MACROS[w])
            else:
                argv.append(TMP if w == "$TMP" else LONG.get(w, w))
        cases.append((prog, argv, int(status)))
    return cases


CASES = _cases(TABLE) + _cases(QUICKCLAIM)


def _quickclaim_script(argv: list[str]) -> list[str]:
    """Write the script of a ``quickclaim`` row; the command line that runs it."""
    bound, lo, hi, *rest = argv
    d = Path(tempfile.mkdtemp(prefix="quickclaim-"))
    path = d / "claim.py"
    path.write_text(SCRIPT.format(bound=bound, lo=lo, hi=hi))
    return [str(path), *rest]


def run_case(prog, argv, expected, timeout):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    t0 = time.perf_counter()
    try:
        cmd = ([sys.executable, *_quickclaim_script(argv)] if prog == "quickclaim"
               else [sys.executable, "-m", prog, *argv])
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout,
                           cwd=TMP, env=env)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired as e:
        raw = e.stderr or ""
        rc, err = None, raw.decode() if isinstance(raw, bytes) else raw
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
    return {"prog": prog, "argv": argv, "expected": expected, "rc": rc, "lines": lines,
            "traceback": trace,
            "seconds": dt, "ok": ok, "why": why, "stderr": first}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per input (default 60)")
    ap.add_argument("--only", choices=("bounds", "verify", "simulate", "quickclaim"))
    ap.add_argument("--jobs", type=int, default=1, help="inputs run at once (default 1)")
    a = ap.parse_args(argv)
    cases = [c for c in CASES if a.only is None or c[0] == a.only]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        results = list(ex.map(lambda c: run_case(*c, a.timeout), cases))
    for r in results:
        mark = "ok  " if r["ok"] else "FAIL"
        cmd = " ".join(r["argv"])
        cmd = cmd if len(cmd) <= 90 else cmd[:87] + "..."
        print(f"{mark} {r['prog']:<8} {cmd:<90} exit {r['rc']!s:>4} lines {r['lines']} "
              f"{r['seconds']:6.2f}s"
              + (f"  [{r['why']}]" if not r["ok"] else "")
              + (f"  {r['stderr']}" if r["stderr"] else ""))
    print()
    print(f"{'command':<10} {'inputs':>6} {'met':>5} {'exit 2':>7} {'1 line':>7} {'traceback':>9} "
          f"{'hang':>5} {'max s':>6} {'mean s':>7}")
    for prog in ("bounds", "verify", "simulate", "quickclaim"):
        rs = [r for r in results if r["prog"] == prog]
        if not rs:
            continue
        print(f"{prog:<10} {len(rs):>6} {sum(r['ok'] for r in rs):>5} "
              f"{sum(r['rc'] == 2 for r in rs):>7} {sum(r['lines'] == 1 for r in rs):>7} "
              f"{sum(r['traceback'] for r in rs):>9} {sum(r['rc'] is None for r in rs):>5} "
              f"{max(r['seconds'] for r in rs):>6.1f} "
              f"{sum(r['seconds'] for r in rs) / len(rs):>7.2f}")
    n_ok = sum(r["ok"] for r in results)
    print(f"\n{n_ok} of {len(results)} inputs met the standard")
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
