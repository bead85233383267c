"""The wheel install test (run by .ci/run): build the wheel, install it into a fresh venv,
and from a directory outside the checkout run `verify list`, `verify all --quick --json`
and `verify report`; then compare with the checkout: the same statuses and the same audit
statements.  Exit 0 when they agree, 1 otherwise (with the differences on stderr).

The fresh venv gets the wheel itself (pip --no-deps) and sees the dependencies already
installed in the checkout's venv through a .pth line (plain directories: the checkout's
editable install is not visible there, so `verify` is imported from the wheel; checked).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, cwd=None, env=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.stderr.write(f"wheel test: {' '.join(map(str, cmd))} exited {r.returncode}\n"
                         f"{r.stdout[-2000:]}\n{r.stderr[-4000:]}\n")
        raise SystemExit(1)
    return r


def main() -> int:
    py = sys.executable  # the checkout's venv python
    tmp = Path(tempfile.mkdtemp(prefix="mcsa-wheel-"))
    run([py, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(ROOT)])
    wheel = next((tmp / "dist").glob("mcsa_verify-*.whl"))
    venv = tmp / "venv"
    run([py, "-m", "venv", str(venv)])
    vpy = venv / "bin" / "python"
    run([str(vpy), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])
    site = run(
        [py, "-c", "import numpy, os; "
                   "print(os.path.dirname(os.path.dirname(numpy.__file__)))"]).stdout.strip()
    vsite = run([str(vpy), "-c",
                 "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    Path(vsite, "zz_checkout_deps.pth").write_text(site + "\n")
    work = tmp / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["OPENBLAS_NUM_THREADS"] = env.get("OPENBLAS_NUM_THREADS", "1")
    where = run([str(vpy), "-c",
                 "import verify, bounds; print(verify.__file__); print(verify.__version__)"],
                cwd=work, env=env).stdout.split()
    if str(ROOT) in where[0]:
        sys.stderr.write(
            f"wheel test: verify was imported from the checkout ({where[0]}), not the wheel\n")
        return 1
    wl = json.loads(run([str(vpy), "-m", "verify", "list", "--json"], cwd=work, env=env).stdout)
    cl = json.loads(run([py, "-m", "verify", "list", "--json"], cwd=ROOT).stdout)
    problems = []
    own = set(json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())["verdicts"])
    # the checkout's venv may also hold users' claim packages
    cl = [x for x in cl if x["claim"] in own]
    for a, b in zip(wl, cl):
        for key in ("claim", "empirical", "failing_readings", "audit"):
            if a.get(key) != b.get(key):
                problems.append(
                    f"verify list: {a.get('claim')}: {key} is {a.get(key)!r} from the wheel, "
                                f"{b.get(key)!r} from the checkout")
    if len(wl) != len(cl):
        problems.append(
            f"verify list: {len(wl)} claims from the wheel, {len(cl)} from the checkout")
    r = run([str(vpy), "-m", "verify", "all", "--quick", "--json"], cwd=work, env=env, check=False)
    if r.returncode not in (0, 1, 3, 4):
        problems.append(f"verify all --quick --json exited {r.returncode}: {r.stderr[-500:]}")
    else:
        wa = json.loads(r.stdout)
        committed = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())
        # what `all` shows (a figure claim: its stored run at the paper's settings) against
        # verdicts.json, and this run's own quick verdicts against the smoke tests recorded there
        smoke = {k: d["verdict"] for k, d in committed.get("smoke_tests", {}).items()}
        expected_runs = {**committed["verdicts"], **smoke}
        if wa["verdicts"] != committed["verdicts"] or wa["run_verdicts"] != expected_runs:
            diff = {k: ((wa["verdicts"].get(k), wa["run_verdicts"].get(k)),
                        (v, expected_runs.get(k)))
                    for k, v in committed["verdicts"].items()
                    if wa["verdicts"].get(k) != v or wa["run_verdicts"].get(k)
                    != expected_runs.get(k)}
            problems.append(
                f"verify all --quick: statuses differ from the checkout's (wheel, checkout): "
                f"{diff}")
        for c in wa["claims"]:
            if not c["audit_statement"] and any(x["claim"] == c["claim"]
                                                and x["audit"].find("statement") >= 0
                                                for x in cl):
                problems.append(
                    f"verify all --quick: {c['claim']} has no audit statement from the wheel")
        if "stored_full_runs" in wa and not wa["stored_full_runs"] and any(
                # the stored reproductions travel with the wheel
                x["claim"] == "figure1" for x in cl):
            problems.append("verify all --quick: the stored full runs are missing from the wheel")
    r = run([str(vpy), "-m", "verify", "report", "--out", str(work / "rep")], cwd=work, env=env,
            check=False)
    if r.returncode != 0 or not (work / "rep" / "report.html").is_file():
        problems.append(f"verify report exited {r.returncode}: {r.stderr[-500:]}")
    r = run([str(vpy), "-m", "verify", "audit", "--write"], cwd=work, env=env, check=False)
    if r.returncode != 2 or r.stderr.count("\n") != 1:
        problems.append(
            f"verify audit --write from the wheel: exit {r.returncode} (want 2, one line): "
                        f"{r.stderr[-300:]}")
    site_pkgs = Path(vsite)
    if (site_pkgs / "docs").exists():
        problems.append("verify audit --write created docs/ inside site-packages")
    for p in problems:
        sys.stderr.write(f"wheel test: {p}\n")
    print(f"wheel test: {wheel.name} installed in a fresh venv; list, all --quick, report, audit "
          f"--write checked from {work}: {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
