"""What the figures and the texts beside them say agrees (issue 24 §3, "figure texts").

* a figure's legend quotes the critical z its error bars use, and the report's text beside the
  figure quotes the same z (the checks' own: one-sided for a bound, two-sided for an identity);
* no panel's subtitle starts with "; " (or holds an empty part);
* a claim's only reading owns all its checks: "(all N checks)", never "(0 own checks)";
* each status has one colour, the same in the report and on the docs site.

The claims' runs are the suite's shared quick run (``shared_runs.cached_runs("quick", 0)``).
"""

from __future__ import annotations

import pathlib
import re

import pytest
from shared_runs import cached_runs

from verify.presenting.formatting import readings_text
from verify.presenting.plot import _subtitle, make_figure, own_checks_text, z_text
from verify.presenting.report import STATUS_COLOURS, build, claim_ids, render
from verify.registry import REGISTRY

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: claims whose figure shows Monte Carlo points (identities, bounds) and one with both kinds of
#: checks
MC_CLAIMS = ("proposition1", "table1", "sgfs_autocovariance", "theorem1")


@pytest.fixture(scope="module")
def quick():
    return cached_runs("quick", 0)


@pytest.fixture(scope="module")
def built(quick):
    data = build(ids=list(MC_CLAIMS), reports={c: quick[c] for c in MC_CLAIMS}, dpi=40)
    return data, render(data)


def _legend_texts(fig) -> list[str]:
    out = []
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return out


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+\.\d\d", text))


def test_legend_and_text_quote_the_same_critical_z(quick):
    """Every figure's Monte Carlo legend entry quotes z values that the text beside it quotes (the
    report's
    Monte Carlo sentence, built from :func:`verify.presenting.plot.z_text`): the checks' own
    critical
    values."""
    seen = 0
    for cid in claim_ids():
        rep = quick[cid]
        if REGISTRY[cid].plot is not None:  # a reproduction's own figure
            continue
        legends = [t for t in _legend_texts(make_figure(rep)) if "Monte Carlo" in t]
        if not legends:
            continue
        seen += 1
        legend_z = set().union(*(_numbers(t.split("±", 1)[1]) for t in legends))
        text_z = _numbers(z_text(rep.checks))
        assert legend_z and legend_z <= text_z, (cid, legends, z_text(rep.checks))
    assert seen >= 3


@pytest.mark.parametrize("cid", MC_CLAIMS)
def test_the_report_text_is_the_checks_z(quick, built, cid):
    rep = quick[cid]
    mc = [c for c in rep.checks if c.method == "monte-carlo"]
    (c,) = [c for c in built[0]["claims"] if c["id"] == cid]
    assert f"Bonferroni over {len(mc)} checks: {z_text(rep.checks)})" in c["mc_text"]
    assert _numbers(c["mc_text"].split("Bonferroni", 1)[1]) == {f"{x.z:.2f}" for x in mc}
    assert c["mc_text"] in built[1]


def test_identities_and_bounds_are_told_apart(quick):
    """theorem1 decides bounds one-sided and identities two-sided: the text names both z."""
    text = z_text(quick["theorem1"].checks)
    assert re.fullmatch(
        r"one-sided z = \d\.\d\d for the bounds; two-sided z = \d\.\d\d for the identities",
        text), text
    assert z_text(quick["table1"].checks).startswith("one-sided z = ")
    assert z_text(quick["proposition1"].checks).startswith("two-sided z = ")


def test_no_subtitle_starts_with_a_separator(quick):
    bad = []
    for cid in claim_ids():
        if REGISTRY[cid].plot is not None:  # a reproduction's own figure: its own titles
            continue
        fig = make_figure(quick[cid])
        titles = ([fig._suptitle.get_text() if fig._suptitle else ""]
                  + [ax.get_title() for ax in fig.axes])
        for t in titles:
            for line in t.splitlines():
                if line.lstrip().startswith(";") or "; ;" in line or line.rstrip().endswith(";"):
                    bad.append((cid, line))
    assert bad == []
    assert _subtitle("", "reading: as printed") == "reading: as printed"
    assert _subtitle("N = 2", "") == "N = 2"
    assert _subtitle("N = 2", "reading: x") == "N = 2; reading: x"


def test_a_reading_that_owns_all_checks_says_so(quick):
    for cid in claim_ids():
        rep = quick[cid]
        text = own_checks_text(readings_text(rep), rep)
        assert "(0 own checks)" not in text and " own checks)" not in text, (cid, text)
        if len(rep.reading_defs or ()) <= 1:
            assert f"(all {len(rep.checks)} check" in text, (cid, text)
    # the terminal prints it: a one-reading claim
    rep = quick["lemma3"]
    # what it fixes
    assert len(rep.reading_defs or ()) <= 1 and "(0 own checks)" in readings_text(rep)
    assert f"(all {len(rep.checks)} checks)" in own_checks_text(readings_text(rep), rep)


def test_the_terminal_prints_the_fixed_counts(quick, capsys):
    from verify.command.cli import print_report

    print_report(quick["lemma3"], wide=True)
    out = capsys.readouterr().out
    assert "own checks" not in out and f"(all {len(quick['lemma3'].checks)} checks)" in out


def test_each_status_has_one_colour_in_the_report_and_the_docs(built):
    html = built[1]
    css = (ROOT / "docs" / "_static" / "mcsa.css").read_text()
    var = {"holds": "holds", "violated": "violated", "inconclusive": "inconclusive",
           "depends on reading": "depends"}
    for status, colour in STATUS_COLOURS.items():
        assert re.search(rf"--{var[status]}: {colour};", html), status
        found = re.findall(rf"\.mcsa-{var[status]} \{{ background: (#[0-9a-fA-F]{{6}}); \}}", css)
        assert found == [colour], (status, found)
    # the report's badges take their colour from those variables only (no second colour for a
    # status)
    assert re.search(r"\.status\.depends-on-reading[^{]*\{ background: var\(--depends\); \}", html)
    template = (ROOT / "verify" / "templates" / "report.html.j2").read_text()
    assert not re.search(r"--(holds|violated|inconclusive|depends): #", template)
