"""A document package owns its recorded results (issue 35 §1; verify.running.store).

The example package examples/mcgd-claims is registered here by the test itself (a throwaway
``dist-info`` carrying its entry points, on ``PYTHONPATH`` with its source), so the test runs
whether or not the package is pip-installed.  With ``MCSA_VERIFY_DATA_DIR`` pointing into
``tmp_path``, ``verify all --quick --write --document mcgd_claims`` and ``verify audit --write``
record its verdicts and audit there and nowhere else: the toolkit's files (verify/data,
docs/ERRATA.md) and the example's own directory are unchanged, byte for byte; ``verify list``
then shows its status and ``verify audit mcgd_average_bias`` its audit.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mcgd-claims"
CLAIM = "mcgd_average_bias"
PLUGIN = "mcgd_claims"


def _digests(*dirs: Path) -> dict[str, str]:
    out = {}
    for d in dirs:
        files = [d] if d.is_file() else sorted(p for p in d.rglob("*") if p.is_file()
                                               and "__pycache__" not in p.parts)
        for f in files:
            out[str(f)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


@pytest.fixture
def example_env(tmp_path):
    """The environment of a process that sees the example package (its own dist-info) and
    records into ``tmp_path/data``."""
    site = tmp_path / "site"
    info = site / "mcgd_claims_test-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcgd-claims-test\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        "[mcsa_verify.bounds]\nmcgd_claims = mcgd_claims.formulas\n\n"
        "[mcsa_verify.claims]\nmcgd_claims = mcgd_claims:register\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(EXAMPLE),
                                         *filter(None, [env.get("PYTHONPATH")])])
    env["MCSA_VERIFY_DATA_DIR"] = str(tmp_path / "data")
    env.pop("MCSA_VERIFY_DOCUMENTS", None)  # the example package must be seen
    env["MCSA_CACHE"] = str(tmp_path / "cache")
    return env


def _run(env, *args):
    r = subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True,
                       env=env, cwd=env["MCSA_VERIFY_DATA_DIR"].rsplit(os.sep, 1)[0],
                       timeout=600)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def _row(env) -> dict:
    r = _run(env, "list", "--json")
    assert r.returncode == 0, r.stderr
    return next(x for x in json.loads(r.stdout) if x["claim"] == CLAIM)


def test_recording_a_package_writes_only_into_its_store(example_env, tmp_path):
    guarded = [ROOT / "verify" / "data", ROOT / "docs" / "ERRATA.md", EXAMPLE]
    before = _digests(*guarded)
    row = _row(example_env)
    assert (row["empirical"], row["audit"]) == ("not run", "not audited")

    r = _run(example_env, "all", "--quick", "--write", "--document", PLUGIN, "--json")
    assert r.returncode == 0, r.stderr
    assert [c["claim"] for c in json.loads(r.stdout)["claims"]] == [CLAIM]
    store = tmp_path / "data" / PLUGIN
    verdicts = json.loads((store / "verdicts.json").read_text())
    assert verdicts["verdicts"] == {CLAIM: "holds"} and verdicts["mode"] == "quick"

    r = _run(example_env, "audit", "--write", "--document", PLUGIN)
    assert r.returncode == 0, r.stderr
    audit = json.loads((store / "audit.json").read_text())
    assert set(audit["claims"]) == {CLAIM}
    assert {s["claim"] for s in audit["steps"].values()} == {CLAIM}
    assert "mcgd.sum" in audit["steps"]

    # nothing else was written: the toolkit's files and the package's directory are unchanged,
    # and every record went under tmp_path/data
    assert _digests(*guarded) == before
    assert "ERRATA" not in r.stdout and str(ROOT) not in r.stdout

    row = _row(example_env)
    assert row["empirical"] == "holds"
    assert row["audit"] == audit["claims"][CLAIM]["audit"] != "not audited"
    # the built-in documents still read their packaged record
    builtin = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())["verdicts"]
    rows = {x["claim"]: x for x in json.loads(_run(example_env, "list", "--json").stdout)}
    assert all(rows[c]["empirical"] != "not run" for c in builtin)

    r = _run(example_env, "audit", CLAIM)
    assert r.returncode == 0, r.stderr
    assert "mcgd.sum" in r.stdout


def test_an_unknown_document_is_refused_before_any_work(example_env):
    r = _run(example_env, "all", "--quick", "--write", "--document", "no_such_package")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "no_such_package" in r.stderr and not Path(
        example_env["MCSA_VERIFY_DATA_DIR"]).exists()


# ----------------------------------------------------------------------------- the store's rules
def test_where_a_package_is_recorded(tmp_path, monkeypatch):
    from bounds.plugins import Plugin
    from verify.running import store

    monkeypatch.delenv(store.ENV, raising=False)
    monkeypatch.setattr("platformdirs.user_data_dir", lambda app: str(tmp_path / "user" / app))

    def plugin(module, directory):
        p = Plugin(module.split(".")[0], "mcsa_verify.claims", f"{module}:register")
        monkeypatch.setattr(Plugin, "package_dir", lambda self: directory)
        return p

    # a source checkout: its own package directory
    src = tmp_path / "checkout" / "pkg"
    src.mkdir(parents=True)
    (src.parent / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    assert store.location(plugin("pkg", src)) == src
    # installed (site-packages), or no project beside it: the user's data directory
    inst = tmp_path / "lib" / "site-packages" / "pkg"
    inst.mkdir(parents=True)
    (inst.parent / "pyproject.toml").write_text("")
    assert store.location(plugin("pkg", inst)) == tmp_path / "user" / "mcsa-verify" / "pkg"
    bare = tmp_path / "bare" / "pkg"
    bare.mkdir(parents=True)
    assert store.location(plugin("pkg", bare)) == tmp_path / "user" / "mcsa-verify" / "pkg"
    # the built-in documents: verify/data of the checkout; nowhere from an installed toolkit
    kim = Plugin("kim2022", "mcsa_verify.claims", "verify.documents.kim2022:register")
    assert store.location(kim) == ROOT / "verify" / "data"
    monkeypatch.setattr("verify.running.resources.checkout_root", lambda: None)
    assert store.location(kim) is None
    # the environment variable sends every document there
    monkeypatch.setenv(store.ENV, str(tmp_path / "env"))
    assert store.location(kim) == tmp_path / "env" / "kim2022"
    assert store.location(plugin("pkg", src)) == tmp_path / "env" / "pkg"


def test_reading_merges_a_package_record_over_the_packaged_one(tmp_path, monkeypatch):
    from bounds.plugins import Plugin
    from verify import registry
    from verify.running import store
    mine = Plugin("mine", "mcsa_verify.claims", "mine:register")
    monkeypatch.setenv(store.ENV, str(tmp_path))
    monkeypatch.setattr(registry, "plugins", lambda: (mine,))
    monkeypatch.setattr(Plugin, "package_dir", lambda self: None)
    store.write(tmp_path / "mine", "verdicts.json", {"mode": "full", "verdicts": {"c": "holds"}})
    got = store.read("verdicts.json")
    packaged = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())
    assert got["verdicts"] == {**packaged["verdicts"], "c": "holds"}
    assert got["mode"] == packaged["mode"]  # the toolkit's own fields stay


def test_a_report_reads_no_file(monkeypatch):
    """Report.decisive_step chooses from the audit steps it was given (reading rule 5)."""
    from verify.model import AS_PRINTED
    from verify.running import docio
    from verify.running.outcome import Report

    steps = docio.audit_steps("theorem4")
    assert any(s.get("statement") for s in steps.values())
    printed = {AS_PRINTED.name: "fails"}  # the audit fails the statement as printed
    rep = Report("theorem4", [], 0, 0.0, audit=printed, audit_steps=steps)

    def no_reading(*a, **k):
        raise AssertionError("a report read a recorded document")

    monkeypatch.setattr(docio, "load_doc", no_reading)
    monkeypatch.setattr("verify.running.store.read", no_reading)
    step = rep.decisive_step()
    # the step the claim's severity points to (its erratum), from the steps given
    assert step is not None and step["id"] == rep.severity_fields()["see"] and step["id"] in steps
    # given no steps it finds none (it does not look them up)
    assert Report("theorem4", [], 0, 0.0, audit=printed).decisive_step() is None
