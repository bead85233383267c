"""The example claim package examples/mcgd-claims, installed like a user's package.

``pip install -e examples/mcgd-claims`` registers the claim ``mcgd_average_bias`` through
the two entry points; it must then be verified, searched, listed and evaluated exactly like
a built-in claim (docs/own-claim.md).  Skipped when the package is not installed.
"""

import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

try:
    metadata.distribution("mcgd-claims")
except metadata.PackageNotFoundError:
    pytest.skip("the example package is not installed (pip install -e examples/mcgd-claims)",
                allow_module_level=True)
if os.environ.get("MCSA_VERIFY_DOCUMENTS") == "builtin":
    pytest.skip("only the built-in documents are loaded (tests/conftest.py): .ci/run runs this "
                "file with MCSA_VERIFY_DOCUMENTS=all", allow_module_level=True)

import verify  # noqa: E402
from verify.testing import check_claim  # noqa: E402

CLAIM = "mcgd_average_bias"


def test_the_example_claim_conforms():
    res = check_claim(CLAIM)  # two runs: the checks, then the same seed again
    assert res.reproducible is True and res.verdict == "holds"
    assert res.monte_carlo > 0 and res.primary > 0
    # the bound is attained (rank-one chains; an absorbing two-state chain): 1% tighter breaks it
    assert res.power_scale == 0.99


def test_it_is_registered_like_a_builtin_claim():
    assert CLAIM in verify.claims()
    v = verify.get(CLAIM)
    assert v.primary_form == "stated" and [r.name for r in v.readings] == ["t = 0..n-1", "t = 1..n"]
    from verify.registry import search_spaces

    assert CLAIM in search_spaces()


def test_verify_list_shows_it():
    out = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True,
                         text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    row = next(r for r in json.loads(out.stdout) if r["claim"] == CLAIM)
    assert row["how"] == "exact+monte-carlo" and row["forms"] == "stated, explicit"
    assert row["source"].startswith("Levin & Peres (2017), §4.4")
    assert row["readings"] == ["t = 0..n-1", "t = 1..n"]


def test_bounds_evaluates_it(capsys):
    from bounds.cli import main

    assert (main([CLAIM, "--n", "10", "--delta", "0.5", "--f-sup", "1", "--f-osc", "2", "--t", "3",
                  "--json"]) == 0)
    out = json.loads(capsys.readouterr().out)
    assert out["bounds"]["bias"]["stated"] == pytest.approx(2 / (10 * 0.5), rel=1e-15)
    assert (out["bounds"]["bias"]["explicit"] == pytest.approx(2 * (1 - 0.5 ** 10) / (10 * 0.5),
                                                               rel=1e-15))
    assert out["bounds"]["tv"]["stated"] == pytest.approx(0.125, rel=1e-15)
    assert main(["list", "--json"]) == 0
    assert CLAIM in [r["id"] for r in json.loads(capsys.readouterr().out)]


def test_the_command_line_verifies_and_tightening_breaks_it(capsys, tmp_path):
    from verify.command.cli import main

    fig = tmp_path / "claim.png"
    # exit 1: violated
    assert main([CLAIM, "--json", "--bound-scale", "0.99", "--plot", str(fig)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "violated" and out["alpha"] == 1e-3 and out["bound_scale"] == 0.99
    assert fig.stat().st_size > 10_000  # the claim's own figure (Verification.plot)
    assert main([CLAIM, "--m", "1"]) == 2  # bad input refused by the claim's check_overrides
    assert "at least 2 states" in capsys.readouterr().err


def test_search_finds_the_bound_attained_but_not_exceeded(capsys):
    from verify.searching.search import cmd_search

    assert cmd_search([CLAIM, "--max-examples", "40", "--json"]) == 0  # exit 0: no counterexample
    res = json.loads(capsys.readouterr().out)
    assert res["found"] is False and res["examples"] == 40
    assert 0.5 < res["closest"]["ratio"] <= 1 + 1e-9


# ------------------------------------------------------------- what a document package carries
def test_its_references_cite_its_documents_everywhere():
    """The package's references.json (found through its entry point, not imported) cites its two
    documents: the book its claim's Source names and the README its proof steps and coverage
    inventory name; both keys are the package's own (bounds.references)."""
    import bounds
    from bounds import references

    refs = references.plugin_references()
    assert set(refs) >= {"Levin & Peres (2017)", "mcgd-claims README"}
    source = bounds.get(CLAIM).source
    where = "§4.4, Lemmas 4.10-4.11 and Proposition 4.5, summed over t"
    assert references.cite(source) == f"Levin & Peres (2017), {where}"
    full = references.cite(source, full=True)
    assert full.startswith("David A. Levin and Yuval Peres") and "Mixing Times" in full
    assert full.endswith(f", {where}")
    readme = references.citation("mcgd-claims README", full=True)
    assert readme.startswith("mcgd-claims README, “Derivation”") and readme != "mcgd-claims README"
    keys = [k for k, _, _ in references.bibliography([source, "mcgd-claims README", "001"])]
    assert keys == [*references.ORDER, "Levin & Peres (2017)", "mcgd-claims README"]


def test_coverage_finds_its_steps_in_the_audit_and_cites_its_document(capsys):
    """Its inventory's steps are declared by the package (proofs.py), not stored in the toolkit's
    audit: the coverage audits them now and shows their statuses, never 'step not in the audit'."""
    from verify.judging.coverage import cmd_coverage

    assert cmd_coverage(["--document", "mcgd_claims", "--json"]) == 0
    rows = {r["location"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["Derivation, line (2)"]["verdict"] == "step exact"
    # line (3): the audit's status and the package's severity.json's judgement
    assert rows["Derivation, line (3)"]["verdict"] == "step loose (loose)"
    assert all(r["document"] == "mcgd-claims README" for r in rows.values())
    assert cmd_coverage(["--document", "mcgd_claims"]) == 0
    text = capsys.readouterr().out
    assert "not in the audit" not in text and "step loose (loose)" in text
    assert "reference: mcgd-claims README, “Derivation”" in " ".join(text.split())


def test_the_report_cites_its_sources_and_shows_its_steps():
    """The report's entry for the claim: the full reference of its source, its audited steps, and
    its erratum under the README's full reference."""
    from verify.presenting import report

    data = report.build(ids=[CLAIM], cache=False)
    c = data["claims"][0]
    assert c["source"].startswith("Levin & Peres (2017), §4.4")
    assert c["source_full"].startswith("David A. Levin and Yuval Peres")
    steps = [(s["id"], s["status"]) for s in c["steps"]]
    assert steps == [("mcgd.sum", "exact"), ("mcgd.sum.shortcut", "loose")]
    errata = [e for e in data["errata"] if e["short"] == "mcgd-claims README"]
    assert errata and errata[0]["document"].startswith("mcgd-claims README, “Derivation”")
    html = report.render(data)
    assert "David A. Levin and Yuval Peres" in html and "mcgd-claims README, “Derivation”" in html
