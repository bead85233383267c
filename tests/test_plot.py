"""Figures of every claim (verify.presenting.plot): real content, honest legends, fitting titles.

One quick run of every claim per session (shared with tests/test_report.py through
shared_runs.cached_runs); each figure is built once per test at a low resolution.
About 15 s on 2 cores (most of it the shared quick run).
"""

from __future__ import annotations

import types

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from shared_runs import cached_runs  # noqa: E402

from verify.presenting import plot as vp  # noqa: E402
from verify.presenting.report import claim_ids  # noqa: E402
from verify.running.outcome import rescore  # noqa: E402

IDS = claim_ids()
INTERNAL = ("001 ", "002 ", "003 ", "second_moment", "w_star", "mu_norm", "eq_s2", "s_prev2",
            "k_frac", "t_iter",
            ".txt", "001_", "002_",
            "003_", "(primary)", "no parameter sweep")


@pytest.fixture(scope="module")
def reports():
    return cached_runs("quick", 0)


@pytest.fixture(scope="module")
def figures(reports):
    """{claim: drawn Figure} (outside pyplot's registry: nothing to close)."""
    figs = {}
    for cid in IDS:
        fig = vp.make_figure(reports[cid])
        fig.set_dpi(50)  # layout and text extents are checked at this resolution
        fig.canvas.draw()
        figs[cid] = fig
    return figs


def _norm(text: str) -> str:
    return " ".join(text.split())


def _data_artists(ax):
    arts = [a for a in ax.lines if a.get_visible()] + [c for c in ax.collections if c.get_visible()]
    return arts


def test_every_registered_claim_has_a_figure(reports):
    assert len(IDS) >= 25
    assert set(reports) == set(IDS)


@pytest.mark.parametrize("cid", IDS)
def test_no_placeholder(cid, reports, figures):
    """Every claim plots data: at least one panel, each with visible data and a legend."""
    assert vp.panels(reports[cid]), f"{cid}: no panel chosen"
    fig = figures[cid]
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    assert axes
    for ax in axes:
        assert _data_artists(ax), f"{cid}: an empty panel"
        assert ax.get_legend() is not None
    texts = " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))
    for bad in INTERNAL:
        assert bad not in texts, f"{cid}: {bad!r} in the figure's text"


@pytest.mark.parametrize("cid", IDS)
def test_legend_lists_only_drawn_visible_elements(cid, figures):
    fig = figures[cid]
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        labels = [_norm(t.get_text()) for t in leg.get_texts()]
        assert sum("(deciding)" in lab for lab in labels) <= 1, labels
        artists = {}
        for a in list(ax.lines) + list(ax.collections) + list(ax.containers):
            artists.setdefault(_norm(a.get_label()), a)
        for lab in labels:
            assert lab in artists, f"{cid}: legend entry {lab!r} has no artist"
            a = artists[lab]
            assert vp._visible(ax, a), f"{cid}: legend entry {lab!r} is not visible in the panel"
        # no two legend lines drawn on top of each other
        lines = [artists[lab] for lab in labels if isinstance(artists[lab], matplotlib.lines.Line2D)
                 and artists[lab].get_linestyle() not in ("None", "")]
        for i, a in enumerate(lines):
            for b in lines[i + 1:]:
                xa, ya = a.get_data()
                xb, yb = b.get_data()
                same = len(xa) == len(xb) and np.allclose(np.asarray(xa, float),
                                                          np.asarray(xb, float)) \
                    and np.allclose(np.asarray(ya, float), np.asarray(yb, float))
                assert not same, f"{cid}: {a.get_label()!r} hides {b.get_label()!r}"


@pytest.mark.parametrize("cid", IDS)
def test_titles_fit_and_text_is_readable(cid, figures):
    fig = figures[cid]
    r = fig.canvas.get_renderer()
    fb = fig.bbox
    for t in fig.findobj(matplotlib.text.Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        assert t.get_fontsize() >= 10, f"{cid}: {t.get_text()!r} at {t.get_fontsize()} pt"
    sup = fig._suptitle
    # the status line, then the decisive counterexample and the source wrapped onto at most two
    # lines (not cut: a figure shown alone on a slide names its equations)
    assert sup is not None and len(sup.get_text().splitlines()) <= 3
    for t in [sup] + [ax.title for ax in fig.axes]:
        bb = t.get_window_extent(r)
        assert (bb.x0 >= fb.x0 - 1 and bb.x1 <= fb.x1
                + 1), f"{cid}: title {t.get_text()!r} is clipped"
        assert bb.y1 <= fb.y1 + 1
    # the title says the final status
    assert getattr(cached_runs("quick", 0)[cid], "verdict") in sup.get_text()


def test_violations_are_marked_and_can_be_reported(reports):
    """A deliberately wrong (tightened) bound turns a holding claim's figure into one with
    red violation marks; the untouched figure has none."""
    rep = reports["theorem1"]
    assert rep.verdict == "holds"
    fig = vp.make_figure(rep)
    labels = [t.get_text() for ax in fig.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert not any("violates the deciding form" in lab for lab in labels)
    bad = rescore(rep, 1e-3)
    assert bad.verdict == "violated"
    fig = vp.make_figure(bad)
    labels = [_norm(t.get_text()) for ax in fig.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert any("violates the deciding form" in lab for lab in labels)
    assert "violated" in fig._suptitle.get_text()


def test_bound_curves_on_a_fine_grid_through_the_checked_values(reports):
    rep = reports["theorem4"]
    kind, q, x, checks = next(p for p in vp.panels(rep) if p[1] == "mixing")
    assert x == "k"
    lo, hi = min(c.params["k"] for c in checks), max(c.params["k"] for c in checks)
    xs, ys = vp.bound_curve(rep, q, "explicit", "k", checks, lo, hi, False)
    assert len(xs) > 10
    for c in checks:
        if c.form == "explicit":
            assert np.isclose(np.interp(c.params["k"], xs, ys), c.scaled_bound, rtol=1e-9)
    # a curve that would not reproduce the checks' bounds is refused (drawn as checked points
    # instead)
    import copy

    wrong = [copy.copy(c) for c in checks]
    for c in wrong:
        c.bound *= 1.01
    assert vp.bound_curve(rep, q, "explicit", "k", wrong, lo, hi, False) is None


def test_error_bars_use_the_claims_critical_z(reports):
    rep = reports["theorem3"]
    z = vp._critical_z(rep)
    zs = {round(c.z, 2) for c in rep.checks if c.method == "monte-carlo" and c.relation != "="}
    assert z == max(zs) and z > 3  # Bonferroni at 1e-3 per claim, not 1.96


def test_title_shows_readings_and_tolerates_their_absence(reports):
    rep = reports["lemma1"]
    fake = types.SimpleNamespace(claim="lemma1", checks=rep.checks, primary_form=rep.primary_form,
                                 bound_scale=1.0,
                                 verdict="depends on reading",
                                 readings={"all sets": "holds", "product sets": "violated"})
    line1, _ = vp._title(fake, 11.2)
    assert "depends on reading" in line1 and "product sets: violated" in line1
    plain = types.SimpleNamespace(claim="lemma1", checks=rep.checks, primary_form=rep.primary_form,
                                  bound_scale=1.0,
                                  verdict="holds")
    fig = vp.make_figure(plain)
    assert fig._suptitle.get_text().startswith("Lemma 1: holds")


def test_axis_labels_use_each_documents_meaning_of_k(figures):
    for cid in IDS:
        labels = [ax.get_xlabel() for ax in figures[cid].axes]
        if cid.startswith("sgfs"):
            assert not any("kernel" in lab for lab in labels), (cid, labels)
            assert all("$k$" not in lab or "SGFS step-size" in lab for lab in labels), (cid, labels)


def test_citations_are_bibliographic():
    import bounds

    for cid in bounds.ids():
        text = vp.cite(bounds.get(cid).source, full=True)
        assert ".txt" not in text and "seeds" not in text
        assert any(name in text for name in ("Kim", "El hanchi", "draft"))
