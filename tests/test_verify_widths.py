"""verify's terminal output fits 100 columns when the width is unknown; --wide gives everything."""

from __future__ import annotations

import re

import pytest


def _width(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")


def test_list_fits_100_columns_and_wide_shows_every_column(capsys, narrow):
    from verify.command.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "theorem3 " in out  # claim ids are never wrapped
    assert main(["list", "--wide"]) == 0
    wide = capsys.readouterr().out
    assert _width(wide) > 100 and "measures" in wide


def test_one_claim_fits_100_columns(capsys, narrow):
    from verify.command.cli import main

    main(["lemma4"])
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "final status" in out
    main(["lemma4", "--wide"])
    assert _width(capsys.readouterr().out) > 100  # the long counterexample lines, whole


def test_all_fits_100_columns(capsys, narrow, monkeypatch):
    from shared_runs import cached_runs

    from verify.command import cli

    monkeypatch.setattr(cli, "run_all", lambda mode, seed, progress=None,
                        **kw: list(cached_runs("quick", seed).values()))
    cli.main(["all", "--quick"])
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "figure1" in out


def test_a_huge_ratio_is_said_in_words():
    from verify.decide import decide
    from verify.model import CheckResult
    from verify.presenting.formatting import fmt_ratio

    c = decide(CheckResult("q", "stated", {}, 1.0, 1e-59, "exact"), 0)
    assert "59 orders of magnitude too small" in fmt_ratio(c)


@pytest.mark.parametrize("argv", [["audit"], ["audit", "lemma1"],
                                  ["search", "lemma4", "--max-examples", "5"]])
def test_audit_and_search_fit_100_columns(argv, capsys):
    from verify.command.cli import main

    main(argv)
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    main(argv + ["--wide"])
    wide = capsys.readouterr().out
    # --wide: one line per entry, nothing wrapped
    assert max(len(line) for line in wide.splitlines()) > 100


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_all_fits_without_splitting_a_word(width, capsys, monkeypatch):
    """`verify all --quick` (the quick run shared with test_all_fits_100_columns): every line
    within the width, no word of a cell split (tests/test_tables.py's check against the same
    output unfitted), every claim id whole at the start of its row."""
    from shared_runs import cached_runs
    from test_tables import HUGE, assert_fits, assert_no_word_split, first_words, run_at

    from verify.command import cli

    reports = list(cached_runs("quick", 0).values())
    monkeypatch.setattr(cli, "run_all", lambda mode, seed, progress=None, **kw: reports)
    with monkeypatch.context() as m:
        unfitted = run_at(cli.main, ["all", "--quick"], HUGE, m, capsys)
    out = run_at(cli.main, ["all", "--quick"], width, monkeypatch, capsys)
    assert_fits(out, width)
    assert_no_word_split(out, unfitted)
    assert {r.claim for r in reports} <= first_words(out)


# ----------------------------------------------------------------------------- verify CLAIM
#: a claim of each final status (theorem3 depends on reading and has an audit step deciding it,
#: lemma5 is violated, lemma1 holds, figure1's status is its stored full run's)
CLAIMS = ["theorem3", "lemma5", "lemma1", "figure1"]
_CLAIM_OUT: dict = {}


def _claim_out(cid, width, monkeypatch, capsys):
    """``python -m verify CLAIM`` at ``width`` columns, on the suite's shared quick run."""
    from shared_runs import share_quick_runs

    from verify.command.cli import main

    if (cid, width) not in _CLAIM_OUT:
        with monkeypatch.context() as m:
            m.setenv("COLUMNS", str(width))
            share_quick_runs(m)
            rc = main([cid])
        _CLAIM_OUT[cid, width] = (rc, capsys.readouterr().out)
    return _CLAIM_OUT[cid, width]


@pytest.mark.parametrize("width", [60, 80, 100, 120])
@pytest.mark.parametrize("cid", CLAIMS)
def test_one_claim_says_its_status_once_with_a_short_reason(cid, width, monkeypatch, capsys):
    """Issue 37: `verify theorem3` printed the final status three times, under it a 10-line
    paragraph of rule numbers and step ids.  Now: the status once, a reason of at most three
    lines without rule numbers or step ids, then the details."""
    from verify.audit import rows

    rc, out = _claim_out(cid, width, monkeypatch, capsys)
    assert rc in (0, 1, 4) and _width(out) <= width
    head, details = out.split("\ndetails\n", 1)
    assert out.count("final status") == 1 and "final status: " in head, out[:600]
    reason = head.split("\nreason: ", 1)[1].rstrip("\n").splitlines()
    assert 1 <= len(reason) <= 3, reason
    steps = {r["id"] for r in rows()}
    assert "rule " not in head and not steps & set(re.findall(r"[\w.]+", head)), head
    assert "readings:" in details or "checks" in details


@pytest.mark.parametrize("width", [100, 120])
@pytest.mark.parametrize("cid", CLAIMS)
def test_the_checks_table_keeps_its_verdict_at_100_columns(cid, width, monkeypatch, capsys):
    """At 100 columns the checks table keeps its verdict; what it leaves out are the method, the
    number of checks and whether the form decides, in that order."""
    from test_tables import tables_in

    _, out = _claim_out(cid, width, monkeypatch, capsys)
    checks = next(t for t in tables_in(out) if len(t["widths"]) >= 4)
    header = out.split("\ndetails\n")[1]
    assert re.search(r"^quantity\s+form\s+reading\s+verdict\b", header, re.M), header[:400]
    assert set(checks["left_out"]) <= {"method", "checks", "deciding"}, checks["left_out"]
