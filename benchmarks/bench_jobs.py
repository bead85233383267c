"""Wall time of the jobs a person runs: the report, every claim, one claim, the proof audit.

    python benchmarks/bench_jobs.py                 # a Markdown table on stdout
    python benchmarks/bench_jobs.py --json          # every measurement, strict JSON
    python benchmarks/bench_jobs.py --jobs report,all --workers 1,2 --repeats 2

Each job runs as its own ``python -m ...`` process (start-up included), in a fresh cache
directory (``MCSA_CACHE``) for the **cold** run and again in the same directory for the
**cached** run (nothing changed in between), once per number of worker processes.  The
audit's cold run recomputes every step (``--no-cache``); its cached run reads the outcomes
stored under the digest of their code.  BLAS is pinned to one thread per process.  The load
average before each run is recorded: a figure measured under load says so.

Jobs: ``report`` (``verify report``), ``all`` (``verify all --quick``), ``claims`` (every
``verify CLAIM``, cold and cached: the slowest and the median), ``audit`` (``verify audit``).
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

JOBS = ("report", "all", "claims", "audit")


def _run(argv, cache, workers=None):
    env = dict(os.environ, MCSA_CACHE=cache, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1",
               COLUMNS="100")
    load = os.getloadavg()[0]
    t = time.perf_counter()
    p = subprocess.run([sys.executable, *argv], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE,
                       text=True)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1, 3, 4):  # verdict statuses are not failures of the job
        raise SystemExit(
            f"bench_jobs: {' '.join(argv)} exited {p.returncode}: {p.stderr.strip()[-300:]}")
    return {"seconds": round(dt, 3), "load_before": round(load, 2)}


def _claims():
    out = subprocess.run([sys.executable, "-c", "import verify; print(' '.join(verify.claims()))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return out


def measure(jobs, workers_list, repeats):
    rows = []
    for job in jobs:
        for workers in (workers_list if job != "claims" else [1]):
            for rep in range(repeats):
                with tempfile.TemporaryDirectory(prefix="mcsa-bench-") as cache:
                    wflag = ["--workers", str(workers)]
                    if job == "report":
                        out = os.path.join(cache, "out")
                        argv = ["-m", "verify", "report", "--out", out, *wflag]
                        cold, cached = _run(argv, cache), _run(argv, cache)
                    elif job == "all":
                        argv = ["-m", "verify", "all", "--quick", *wflag]
                        cold, cached = _run(argv, cache), _run(argv, cache)
                    elif job == "audit":
                        cold = _run(["-m", "verify", "audit", "--no-cache", *wflag], cache)
                        cached = _run(["-m", "verify", "audit", *wflag], cache)
                    else:
                        per = {}
                        for c in _claims():
                            per[c] = (_run(["-m", "verify", c], cache)["seconds"],
                                      _run(["-m", "verify", c], cache)["seconds"])
                        worst = max(per, key=lambda c: per[c][0])
                        cold = {"seconds": per[worst][0],
                                "median": statistics.median(v[0] for v in per.values()),
                                "slowest": worst, "load_before": round(os.getloadavg()[0], 2)}
                        worst_cached = max(per, key=lambda c: per[c][1])
                        cached = {"seconds": per[worst_cached][1], "slowest": worst_cached,
                                  "median": statistics.median(v[1] for v in per.values()),
                                  "per_claim": {c: v[1] for c, v in per.items()}}
                        cold["per_claim"] = {c: v[0] for c, v in per.items()}
                rows.append({"job": job, "workers": workers, "repeat": rep, "cold": cold,
                             "cached": cached})
                print(f"{job:7s} workers={workers} repeat={rep}: cold {cold['seconds']:.1f} s, "
                      f"cached {cached['seconds']:.1f} s (load before {cold['load_before']})",
                      file=sys.stderr)
    return rows


def table(rows) -> str:
    name = {"report": "`verify report` (quick)", "all": "`verify all --quick`",
            "claims": "slowest `verify CLAIM` (median)", "audit": "`verify audit`"}
    out = ["| job | workers | run | cold (s) | cached (s) | load before |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        c, k = r["cold"], r["cached"]
        cold = (f"{c['seconds']:.1f}"
                + (f" ({c['median']:.1f}; {c['slowest']})" if "median" in c else ""))
        cached = (f"{k['seconds']:.1f}"
                  + (f" ({k['median']:.1f}; {k['slowest']})" if "slowest" in k else ""))
        out.append(f"| {name[r['job']]} | {r['workers']} | {r['repeat'] + 1} | {cold} | {cached} "
                   f"| {c['load_before']} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", default=",".join(JOBS),
                    help=f"comma-separated, from {', '.join(JOBS)}")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--repeats", default="2", help="runs of each job (default 2)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    jobs = [j for j in a.jobs.split(",") if j]
    bad = [j for j in jobs if j not in JOBS]
    try:
        workers = [int(w) for w in a.workers.split(",")]
        repeats = int(a.repeats)
    except ValueError:
        ap.error("--workers and --repeats take integers")
    if bad or not jobs or repeats < 1 or any(w < 1 for w in workers):
        ap.error(f"--jobs from {', '.join(JOBS)}; --workers and --repeats >= 1")
    rows = measure(jobs, workers, repeats)
    meta = {"cpus": os.cpu_count(), "python": sys.version.split()[0],
            "date": time.strftime("%Y-%m-%d %H:%M")}
    if a.json:
        print(json.dumps({"meta": meta, "rows": rows}, allow_nan=False))
    else:
        print(f"{meta['cpus']} CPUs, Python {meta['python']}, {meta['date']}\n")
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
