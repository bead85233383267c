"""Two source trees side by side: the wall time of the same jobs, and their ratio.

    python benchmarks/bench_trees.py --base /path/to/old/checkout            # Markdown table
    python benchmarks/bench_trees.py --base OLD --new . --jobs all,report --repeats 3 --json

Each job runs as its own ``python -m ...`` process with the tree as its working directory, so
``import verify`` finds that tree's code first (both trees use this interpreter and its
installed dependencies).  Runs alternate between the trees in both orders (base, new, new,
base, ...), so drift of the machine's load falls on both alike; ``--repeats`` runs per tree and
job.  Cold runs use a fresh cache directory (``MCSA_CACHE``) and ``--no-cache`` where the job
takes it; the ``rerun`` jobs run the same command twice in one cache directory and time the
second.  BLAS is pinned to one thread per process.  The ratio is new / base of the medians
(below 1: the new tree is faster).  The load average before each run is recorded.

Jobs: ``all`` (``verify all --quick``, cold), ``report`` (``verify report``, cold),
``report-rerun`` (``verify report`` again, cached), ``theorem3`` (``verify theorem3 --quick``,
cold).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

JOBS = {
    "all": (["-m", "verify", "all", "--quick", "--no-cache"], False),
    "report": (["-m", "verify", "report", "--out", "{out}"], False),
    "report-rerun": (["-m", "verify", "report", "--out", "{out}"], True),
    "theorem3": (["-m", "verify", "theorem3", "--quick", "--no-cache"], False),
}


def _once(tree: str, argv: list[str], cache: str, out: str,
          python: str = sys.executable) -> dict:
    env = dict(os.environ, MCSA_CACHE=cache, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", COLUMNS="100", MPLBACKEND="Agg")
    env.pop("PYTHONPATH", None)
    args = [a.replace("{out}", out) for a in argv]
    load = os.getloadavg()[0]
    t = time.perf_counter()
    p = subprocess.run([python, *args], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1, 3, 4):  # a verdict's status is not a failure of the job
        raise SystemExit(f"bench_trees: {' '.join(args)} in {tree} exited {p.returncode}: "
                         f"{p.stderr.strip()[-300:]}")
    return {"seconds": round(dt, 3), "load_before": round(load, 2)}


def measure(trees: dict[str, str], jobs: list[str], repeats: int,
            pythons: dict[str, str] | None = None) -> list[dict]:
    pythons = pythons or {}
    rows = []
    for job in jobs:
        argv, rerun = JOBS[job]
        for r in range(repeats):
            order = list(trees) if r % 2 == 0 else list(reversed(list(trees)))
            for name in order:
                with tempfile.TemporaryDirectory(prefix="mcsa-trees-") as tmp:
                    cache, out = os.path.join(tmp, "cache"), os.path.join(tmp, "out")
                    py = pythons.get(name, sys.executable)
                    if rerun:
                        _once(trees[name], argv, cache, out, py)
                    m = _once(trees[name], argv, cache, out, py)
                rows.append({"job": job, "tree": name, "repeat": r, **m})
                print(f"bench_trees: {job} {name} #{r + 1}: {m['seconds']:.1f} s "
                      f"(load {m['load_before']:.1f})", file=sys.stderr)
    return rows


def summary(rows: list[dict], trees: dict[str, str]) -> list[dict]:
    out = []
    for job in dict.fromkeys(r["job"] for r in rows):
        med = {t: statistics.median(r["seconds"] for r in rows if r["job"] == job
                                    and r["tree"] == t) for t in trees}
        out.append({"job": job, **{f"{t}_s": round(v, 2) for t, v in med.items()},
                    "ratio": round(med["new"] / med["base"], 3)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/bench_trees.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the old tree (a checkout)")
    ap.add_argument("--new", default=".", help="the new tree (default: .)")
    ap.add_argument("--jobs", default="all,report",
                    help=f"comma-separated, from {', '.join(JOBS)} (default all,report)")
    ap.add_argument("--base-python", default=sys.executable,
                    help="the interpreter for the old tree, e.g. a venv where it is installed: "
                         "installed entry points (documents) must match the tree (default: this "
                         "one)")
    ap.add_argument("--new-python", default=sys.executable,
                    help="the interpreter for the new tree (default: this one)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per tree and job (default 3)")
    ap.add_argument("--json", action="store_true", help="every measurement, strict JSON")
    a = ap.parse_args(argv)
    jobs = [j for j in a.jobs.split(",") if j]
    bad = [j for j in jobs if j not in JOBS]
    if bad or a.repeats < 1:
        ap.error(f"unknown job {bad[0]}" if bad else "--repeats must be >= 1")
    trees = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.new)}
    for t in trees.values():
        if not os.path.isdir(os.path.join(t, "verify")):
            ap.error(f"{t} is not a source tree of mcsa-verify (no verify/ in it)")
    rows = measure(trees, jobs, a.repeats, {"base": a.base_python, "new": a.new_python})
    table = summary(rows, trees)
    if a.json:
        print(json.dumps({"trees": trees, "pythons": [a.base_python, a.new_python],
                          "repeats": a.repeats, "runs": rows, "summary": table}))
        return 0
    print("| job | base (s, median) | new (s, median) | new / base |")
    print("|---|---|---|---|")
    for r in table:
        print(f"| {r['job']} | {r['base_s']:.1f} | {r['new_s']:.1f} | {r['ratio']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
