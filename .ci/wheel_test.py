"""The wheel install test (run by .ci/run): build the wheel, install it into a fresh venv,
and from a directory outside the checkout run `verify list`, `verify all --quick --json`
and `verify report`; then compare with the checkout: the same statuses and the same audit
statements.  Then a user's document package beside it (issue 35): the example package
examples/mcgd-claims, built as a wheel and installed in the same venv, is recorded with the
documented commands (docs/own-claim.md, "Recording your results") into the user data directory
(``MCSA_VERIFY_DATA_DIR``) with nothing written into the toolkit's installed files, `verify list`
then shows its status and `verify audit CLAIM` its audit, and a bad coverage entry in it is
exit 2 with one line.  Exit 0 when all agree, 1 otherwise (with the differences on stderr).

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
    problems += plugin_beside_the_wheel(py, vpy, site_pkgs, tmp, work, env)
    for p in problems:
        sys.stderr.write(f"wheel test: {p}\n")
    print(f"wheel test: {wheel.name} installed in a fresh venv; list, all --quick, report, audit "
          f"--write checked from {work}: {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


def _tree_digest(root: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file under ``root`` (what a write would change)."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def plugin_beside_the_wheel(py, vpy, site_pkgs: Path, tmp: Path, work: Path, env) -> list[str]:
    """The example document package installed beside the wheel: recorded, listed, audited, and
    refused with one line when its coverage breaks the data contract."""
    problems: list[str] = []
    example = ROOT / "examples" / "mcgd-claims"
    run([py, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
         str(tmp / "dist-example"), str(example)])
    ewheel = next((tmp / "dist-example").glob("mcgd_claims-*.whl"))
    run([str(vpy), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(ewheel)])
    env = dict(env, MCSA_VERIFY_DATA_DIR=str(tmp / "userdata"))
    env.pop("MCSA_VERIFY_DOCUMENTS", None)
    toolkit = {d: _tree_digest(site_pkgs / d) for d in ("verify", "bounds", "simulate",
                                                         "mcsa_cli")}
    claim, doc = "mcgd_average_bias", "mcgd_claims"

    def row():
        rows = json.loads(run([str(vpy), "-m", "verify", "list", "--json"], cwd=work,
                              env=env).stdout)
        return next((x for x in rows if x["claim"] == claim), None)

    before = row()
    if before is None:
        return [f"verify list: {claim} missing beside the wheel"]
    r = run([str(vpy), "-m", "verify", "all", "--quick", "--write", "--document", doc],
            cwd=work, env=env, check=False)
    if r.returncode not in (0, 1, 3, 4):
        problems.append(f"verify all --write --document {doc}: exit {r.returncode}: "
                        f"{r.stderr[-300:]}")
    run([str(vpy), "-m", "verify", "audit", "--write", "--document", doc], cwd=work, env=env)
    written = sorted(p.relative_to(tmp / "userdata").as_posix()
                     for p in (tmp / "userdata").rglob("*.json"))
    if written != [f"{doc}/audit.json", f"{doc}/verdicts.json"]:
        problems.append(f"recording {doc}: wrote {written} under MCSA_VERIFY_DATA_DIR")
    after = row()
    if after is None or after.get("empirical") in (None, "not run") or after.get("audit") in (
            None, "not audited"):
        problems.append(f"verify list after recording: {claim} shows {after}")
    r = run([str(vpy), "-m", "verify", "audit", claim], cwd=work, env=env, check=False)
    if r.returncode != 0 or "mcgd.sum" not in r.stdout:
        problems.append(f"verify audit {claim}: exit {r.returncode}, no step mcgd.sum shown")
    cov = site_pkgs / doc / "coverage.json"
    good = cov.read_text(encoding="utf-8")
    data = json.loads(good)
    data[2].update(status="not checked", reason="no check yet")  # a reason without "how:"
    cov.write_text(json.dumps(data, indent=1), encoding="utf-8")
    try:
        r = run([str(vpy), "-m", "verify", "coverage"], cwd=work, env=env, check=False)
    finally:
        cov.write_text(good, encoding="utf-8")
    if r.returncode != 2 or r.stderr.count("\n") != 1 or "coverage.json: entry 3" not in r.stderr:
        problems.append(f"a bad coverage entry: exit {r.returncode} (want 2, one line naming "
                        f"the entry): {r.stderr[-300:]}")
    for d, files in toolkit.items():
        if _tree_digest(site_pkgs / d) != files:
            problems.append(f"recording {doc} changed the toolkit's installed {d}/")
    print(f"wheel test: {ewheel.name} beside it: recorded into MCSA_VERIFY_DATA_DIR ({written}), "
          f"listed ({after and after.get('empirical')}), audited, a bad coverage entry refused")
    return problems


if __name__ == "__main__":
    raise SystemExit(main())
