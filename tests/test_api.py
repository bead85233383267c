"""The public Python API: a small surface, no import side effects, results that display."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import bounds
import verify
from verify.model import STATUSES, VIOLATED
from verify.registry import REGISTRY
from verify.running.docio import VERDICTS_DOC
from verify.running.outcome import Report


def test_importing_verify_loads_no_claim_and_no_heavy_library():
    code = ("import sys, verify; print(json.dumps(sorted(m for m in sys.modules if "
            "m.startswith(('verify.documents', 'matplotlib', 'hypothesis', 'sympy', 'jinja2', "
            "'dask')))))")
    r = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True,
                       text=True, check=True)
    assert json.loads(r.stdout) == []


def test_claims_lists_every_registered_claim_in_document_order():
    ids = verify.claims()
    assert ids[:2] == ("proposition1", "proposition2") and "theorem3" in ids and "figure1" in ids
    assert set(ids) == set(REGISTRY)


def test_run_returns_a_report_with_a_final_status_and_a_dataframe():
    rep = verify.run("lemma4", seed=0)
    assert isinstance(rep, Report) and rep.verdict in STATUSES
    df = rep.to_dataframe()
    assert (len(df) == len(rep.checks) and {"quantity", "form", "empirical", "bound",
                                            "verdict"} <= set(df.columns))
    assert (df["verdict"] == [c.verdict for c in rep.checks]).all()
    md = rep._repr_markdown_()
    assert md.startswith("**lemma4**") and rep.status.text() in md
    assert "<table>" in rep._repr_html_()
    assert verify.run("lemma4", bound_scale=1e-9).verdict == VIOLATED  # the check has power


def test_run_refuses_a_bad_mode_and_an_unknown_claim():
    with pytest.raises(ValueError):
        verify.run("lemma4", mode="fast")
    with pytest.raises(bounds.UnknownClaim):
        verify.run("theorem99")


def test_audit_and_search_from_python():
    steps = verify.audit_steps("lemma5")
    assert steps and all(s["claim"] == "lemma5" for s in steps)
    assert any(s["status"] == "wrong" for s in steps)  # Lemma 5 is false for n >= 2
    res = verify.search_claim("lemma5", seed=0, max_examples=30)
    assert res["found"] and res["examples"] <= 30


def test_bounds_evaluate_and_compare():
    assert bounds.evaluate("theorem3", "variance", "stated", N=10, L=1.0) == pytest.approx(0.65)
    every = bounds.evaluate("theorem3", N=10, L=1.0)
    assert every[("variance", "stated")] == pytest.approx(0.65)
    rows = bounds.compare(N=10, w_star=100.0, chi2=5.0)
    assert [r["scheme"] for r in rows] == ["MSC", "MSC-RB", "JSA", "pMCSA"]
    assert rows[3]["rho"] == pytest.approx(0.99)  # pMCSA: r = 1 - 1/w*


def test_version_is_exposed():
    assert isinstance(verify.__version__, str) and verify.__version__


def test_write_is_refused_outside_a_checkout(monkeypatch, capsys):
    from verify.command.cli import main
    from verify.running import resources

    monkeypatch.setattr(resources, "checkout_root", lambda: None)
    for argv in (["audit", "--write"], ["all", "--quick", "--write"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "source checkout" in err


def test_packaged_data_is_read_with_importlib_resources():
    from verify.running import resources

    assert resources.read_json(VERDICTS_DOC)["verdicts"]["theorem3"] in STATUSES
    assert resources.read_json("no-such-file.json") == {}
    assert resources.checkout_root() is not None  # the suite runs from a checkout
