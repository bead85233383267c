"""One source of truth (issue 23, §3): every record of a claim agrees.

The audit map (which readings the audit fails or lets survive), the final status with its
failing readings and severity, verify/data/verdicts.json, verify/data/audit.json, docs/ERRATA.md,
`verify list --json`, the docs site's tables and the HTML report all say the same; a claim is
never `violated` beside an audit line saying its statement survives.  Reads the stored records
(and builds the report for two fast claims); tests/test_verify.py checks that verdicts.json is
what a quick run gives now, tests/test_audit.py that audit.json and ERRATA.md are current.
"""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

from verify.decide import final_status
from verify.judging import severity
from verify.model import DEPENDS, VIOLATED
from verify.registry import REGISTRY
from verify.running.reproductions import stored_full_run

ROOT = pathlib.Path(__file__).resolve().parent.parent
V = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text(encoding="utf-8"))
A = json.loads((ROOT / "verify" / "data" / "audit.json").read_text(encoding="utf-8"))
ERRATA = (ROOT / "docs" / "ERRATA.md").read_text(encoding="utf-8")
CLAIMS = sorted(V["verdicts"])


def _status(cid):
    """(status, failing readings, Status or None) from the one function, or the stored full run."""
    if REGISTRY[cid].reproduction is not None and stored_full_run(cid) is not None:
        st = stored_full_run(cid)
        return st["verdict"], list(st["failing_readings"]), None
    st = final_status(cid, V["readings"][cid], A["claims"][cid]["statement"])
    return st.status, list(st.failing), st


@pytest.mark.parametrize("cid", CLAIMS)
def test_status_failing_readings_and_severity_agree(cid):
    status, failing, st = _status(cid)
    a = A["claims"][cid]
    assert V["verdicts"][cid] == status == a["final_status"], cid
    assert V["failing_readings"].get(cid, []) == failing == a["failing_readings"], cid
    sev = severity.fields("claims", cid, status)
    # every non-holding claim, and a claim that holds only with a note (methods.md section 11)
    assert bool(sev) == (status in (VIOLATED, DEPENDS) or sev.get("severity") == "note"), (
        cid, status, sev)
    if status not in (VIOLATED, DEPENDS):
        assert sev == {} or sev["severity"] == "note", (cid, sev)
    assert V["severity"].get(cid, {}) == sev, cid
    assert a["severity"] == sev.get("severity") and a["see"] == sev.get("see"), cid
    # never violated beside an audit line saying its statement survives
    if status == VIOLATED:
        assert "statement survives" not in a["audit"], (cid, a["audit"])


@pytest.mark.parametrize("cid", [c for c in CLAIMS if A["claims"].get(c, {}).get("statement")])
def test_the_audit_map_is_the_status(cid):
    """Every reading option the audit fails is a failing reading of the final status, or one the
    reading rules
    set aside (hedge-excused, ruled out, degenerate); a claim whose every reading the audit fails is
    violated."""
    status, failing, st = _status(cid)
    stm = A["claims"][cid]["statement"]
    set_aside = set(st.strict_only + st.ruled_out + st.degenerate) if st is not None else set()
    for opt, verdict in stm.items():
        if verdict != "fails":
            continue
        hit = [f for f in V["final_readings"][cid] if opt == "" or opt in f.split(" + ")]
        assert (hit and all(f in failing or f in set_aside
                            for f in hit)), (cid, opt, failing, set_aside)
    if stm.get("") == "fails":
        assert status == VIOLATED, cid


def test_errata_and_audit_steps_carry_the_severity():
    for cid in CLAIMS:
        status = V["verdicts"][cid]
        row = next(r for r in ERRATA.splitlines() if r.startswith(f"| `{cid}` |"))
        assert row.split(" | ")[1] == status, (cid, row[:80])
        sev = severity.fields("claims", cid, status)
        assert (f"| {sev['severity']}: " in row) if sev else ("| — |" in row), (cid, row[:120])
    for sid, s in A["steps"].items():
        f = severity.fields("steps", sid, s["status"])
        assert s["severity"] == f.get("severity") and s["certificate"] == f.get("certificate"), sid
        if s["status"] in ("wrong", "loose"):
            assert f, f"{sid}: a finding without a severity"
            assert (f"#### `{sid}` — {s['status']}" in ERRATA
                    and f", {f['severity']}\n" in ERRATA.split(f"#### `{sid}` — ")[1][:80])
    # ERRATA is grouped by severity, false first
    heads = [ln.split("`")[1] for ln in ERRATA.splitlines() if ln.startswith("## Severity `")]
    assert heads == [s for s in severity.SEVERITIES if s in heads] and heads[0] == "false"


def test_verify_list_json_agrees():
    out = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True,
                         text=True,
                         cwd=ROOT, check=True).stdout
    for row in json.loads(out):
        cid = row["claim"]
        if cid not in V["verdicts"]:
            continue
        if REGISTRY[cid].reproduction is None:
            assert row["empirical"] == V["verdicts"][cid], cid
        assert row["severity"] == severity.fields("claims", cid,
                                                  row["empirical"]).get("severity"), cid


def test_the_docs_site_shows_the_same():
    spec = importlib.util.spec_from_file_location("mcsa_docs",
                                                  ROOT / "docs" / "_ext" / "mcsa_docs.py")
    docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs)
    for cid in CLAIMS:
        st = docs.status_of(cid, V, A)
        assert st["status"] == V["verdicts"][cid]
        assert (st["severity"].get("severity")
                == severity.fields("claims", cid, st["status"]).get("severity"))
        if st["severity"]:
            assert docs.esc(st["severity"]["severity_reason"]) in docs.severity_text(st["severity"])


def test_the_report_shows_the_same():
    from verify.presenting.report import build

    data = build(ids=["lemma4", "proposition2"], dpi=40)
    for c in data["claims"]:
        assert c["status"] == V["verdicts"][c["id"]], c["id"]
        assert c["severity"] == V["severity"][c["id"]]["severity"], c["id"]
        # rule 5: a non-holding claim's section shows its decisive counterexample
        assert c["decisive"], c["id"]
    present = {c["severity"] for c in data["claims"]}
    assert [s for s, _ in data["claim_severity_counts"]] == [s for s in severity.SEVERITIES
                                                              if s in present]
    # the errata lead with false, then gap
    order = [e["severity"] for e in data["errata"]]
    assert order == sorted(order, key=severity.order_key) and order[0] == "false"
