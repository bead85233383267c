"""The example claim package examples/mcgd-claims, installed like a user's package.

``pip install -e examples/mcgd-claims`` registers the claim ``mcgd_average_bias`` through
the two entry points; it must then be verified, searched, listed and evaluated exactly like
a built-in claim (docs/own-claim.md).  Skipped when the package is not installed.
"""

import json
import subprocess
import sys
from importlib import metadata

import pytest

try:
    metadata.distribution("mcgd-claims")
except metadata.PackageNotFoundError:
    pytest.skip("the example package is not installed (pip install -e examples/mcgd-claims)",
                allow_module_level=True)

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
    out = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    row = next(r for r in json.loads(out.stdout) if r["claim"] == CLAIM)
    assert row["how"] == "exact+monte-carlo" and row["forms"] == "stated, explicit"
    assert row["source"].startswith("Levin & Peres (2017), §4.4")
    assert row["readings"] == ["t = 0..n-1", "t = 1..n"]


def test_bounds_evaluates_it(capsys):
    from bounds.cli import main

    assert main([CLAIM, "--n", "10", "--delta", "0.5", "--f-sup", "1", "--f-osc", "2", "--t", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bounds"]["bias"]["stated"] == pytest.approx(2 / (10 * 0.5), rel=1e-15)
    assert out["bounds"]["bias"]["explicit"] == pytest.approx(2 * (1 - 0.5 ** 10) / (10 * 0.5), rel=1e-15)
    assert out["bounds"]["tv"]["stated"] == pytest.approx(0.125, rel=1e-15)
    assert main(["list", "--json"]) == 0
    assert CLAIM in [r["id"] for r in json.loads(capsys.readouterr().out)]


def test_the_command_line_verifies_and_tightening_breaks_it(capsys, tmp_path):
    from verify.cli import main

    fig = tmp_path / "claim.png"
    assert main([CLAIM, "--json", "--bound-scale", "0.99", "--plot", str(fig)]) == 1  # exit 1: violated
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "violated" and out["alpha"] == 1e-3 and out["bound_scale"] == 0.99
    assert fig.stat().st_size > 10_000  # the claim's own figure (Verification.plot)
    assert main([CLAIM, "--m", "1"]) == 2  # bad input refused by the claim's check_overrides
    assert "at least 2 states" in capsys.readouterr().err


def test_search_finds_the_bound_attained_but_not_exceeded(capsys):
    from verify.search import cmd_search

    assert cmd_search([CLAIM, "--max-examples", "40", "--json"]) == 0  # exit 0: no counterexample
    res = json.loads(capsys.readouterr().out)
    assert res["found"] is False and res["examples"] == 40
    assert 0.5 < res["closest"]["ratio"] <= 1 + 1e-9
