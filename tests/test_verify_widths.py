"""verify's terminal output fits 100 columns when the width is unknown; --wide gives everything."""

from __future__ import annotations

import pytest


def _width(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")


def test_list_fits_100_columns_and_wide_shows_every_column(capsys, narrow):
    from verify.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "theorem3 " in out  # claim ids are never wrapped
    assert main(["list", "--wide"]) == 0
    wide = capsys.readouterr().out
    assert _width(wide) > 100 and "measures" in wide


def test_one_claim_fits_100_columns(capsys, narrow):
    from verify.cli import main

    main(["lemma4"])
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "final status" in out
    main(["lemma4", "--wide"])
    assert _width(capsys.readouterr().out) > 100  # the long counterexample lines, whole


def test_all_fits_100_columns(capsys, narrow, monkeypatch):
    from shared_runs import cached_runs

    from verify import cli

    monkeypatch.setattr(cli, "run_all", lambda mode, seed, progress=None,
                        **kw: list(cached_runs("quick", seed).values()))
    cli.main(["all", "--quick"])
    out = capsys.readouterr().out
    assert _width(out) <= 100 and "figure1" in out


def test_a_huge_ratio_is_said_in_words():
    from verify.decide import decide
    from verify.formatting import fmt_ratio
    from verify.model import CheckResult

    c = decide(CheckResult("q", "stated", {}, 1.0, 1e-59, "exact"), 0)
    assert "59 orders of magnitude too small" in fmt_ratio(c)


@pytest.mark.parametrize("argv", [["audit"], ["audit", "lemma1"],
                                  ["search", "lemma4", "--max-examples", "5"]])
def test_audit_and_search_fit_100_columns(argv, capsys):
    from verify.cli import main

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

    from verify import cli

    reports = list(cached_runs("quick", 0).values())
    monkeypatch.setattr(cli, "run_all", lambda mode, seed, progress=None, **kw: reports)
    with monkeypatch.context() as m:
        unfitted = run_at(cli.main, ["all", "--quick"], HUGE, m, capsys)
    out = run_at(cli.main, ["all", "--quick"], width, monkeypatch, capsys)
    assert_fits(out, width)
    assert_no_word_split(out, unfitted)
    assert {r.claim for r in reports} <= first_words(out)
