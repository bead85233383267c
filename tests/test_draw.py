"""``python -m verify draw KIND``: lecture figures, exact, in PNG, PDF and SVG.

Each kind is drawn once (small grids) and written in all three formats; its title must fit the
figure; bad input gets one line on stderr and exit 2 before anything is drawn; the marked w* of
``wstar`` is checked by an independent recomputation (and a planted wrong value is rejected);
the ``step`` figure shows the stored counterexample of the audit.

Every figure explains itself (issue 36): every drawn line has a legend entry, no two labels
overlap (matplotlib's text bounding boxes), no label runs off the figure, vacuous bounds are grey,
an omitted curve is named in its panel, and the figure's one-sentence message is computed from
its numbers.  Each of these checks is shown to fail on a planted defect.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from importlib.resources import files

import numpy as np
import pytest

from simulate import finite as F
from verify.command.cli import main
from verify.presenting import draw as D
from verify.presenting.draw import canvas, command

SIGNATURE = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<svg"}
OPTIONS = {
    "mixing": {"N": [4], "w_star": [10.0], "schemes": ["MSC", "JSA", "pMCSA"]},
    "variance": {"N": [2, 4, 8], "w_star": [10.0], "t": 20, "schemes": list(D.SCHEMES)},
    "wstar": {"N": 16, "t": 100, "w_range": (50.0, 500.0), "schemes": ("JSA", "pMCSA")},
    "rates": {"N": 16, "w_range": (1.5, 1e4)},
    "stationary": {"N": [2, 3, 4, 8, 16],
                   "instance": {k: list(v) for k, v in D.COUNTEREXAMPLE.items()}},
    "step": {"step_id": "theorem2.mse"},
}


@pytest.fixture(scope="module")
def drawn():
    return {kind: D.figure(kind, **opts) for kind, opts in OPTIONS.items()}


def _written(path) -> bytes:
    data = path.read_bytes()
    assert len(data) > 1000, f"{path.name}: {len(data)} bytes"
    return data


@pytest.mark.parametrize("kind", list(OPTIONS))
def test_each_kind_writes_png_pdf_svg_with_a_title_that_fits(kind, drawn, tmp_path):
    d = drawn[kind]
    assert D.title_fits(d.fig), f"{kind}: the title runs off the figure"
    for ext, sig in SIGNATURE.items():
        out = tmp_path / f"{kind}{ext}"
        d.fig.savefig(out, dpi=60)
        head = _written(out)[:400]
        assert sig in head, f"{kind}{ext}: not a {ext} file"


def test_a_title_too_long_is_wrapped_not_cut(drawn):
    fig = drawn["wstar"].fig
    D.fit_title(fig, "a title far too long for one line of a slide " * 6)
    assert D.title_fits(fig) and "\n" in fig.get_suptitle()
    assert fig.get_suptitle().replace("\n",
                                      " ").split() == (
                                          "a title far too long for one line of a slide "
                                          * 6).split()
    D.fit_title(fig, "restored")


@pytest.mark.parametrize("argv", [
    ["mixing", "--N", "4", "--w-star", "10", "--schemes", "msc,pmcsa", "--out", "{tmp}/m.pdf"],
    ["variance", "--N", "2,4", "--w-star", "10", "--t", "5", "--schemes", "JSA,pMCSA", "--out",
     "{tmp}/v.svg"],
    ["wstar", "--N", "8", "--t", "20", "--w-star", "5,200", "--out", "{tmp}/w.png"],
    ["step", "eq3", "--out", "{tmp}/s.png"],
], ids=["mixing", "variance", "wstar", "step"])
def test_the_command_line_writes_the_format_of_its_extension(argv, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(["draw", *argv]) == 0
    out = tmp_path / argv[-1].rsplit("/", 1)[1]
    assert SIGNATURE[out.suffix] in _written(out)[:400]
    assert f"figure written to {out}" in capsys.readouterr().out


BAD = [
    ([], "a kind is required"),
    (["pie", "--out", "x.png"], "unknown kind 'pie'"),
    (["mixing"], "--out"),
    (["mixing", "--out", "{tmp}/x.gif"], "--out: the path must end in .png, .pdf, .svg"),
    (["mixing", "--N", "1", "--out", "{tmp}/x.png"], "--N: must be an integer >= 2, got 1"),
    (["mixing", "--N", "4,x", "--out", "{tmp}/x.png"], "--N: must be an integer >= 2, got x"),
    (["mixing", "--N", "1000", "--out", "{tmp}/x.png"], "--N: at most 64 is supported"),
    (["mixing", "--w-star", "0.5", "--out", "{tmp}/x.png"],
     "--w-star: must be a number >= 1, got 0.5"),
    (["mixing", "--N", "2,4,8", "--w-star", "2,3,4", "--out", "{tmp}/x.png"], "at most 6 panels"),
    (["mixing", "--schemes", "MSC,SGD", "--out", "{tmp}/x.png"],
     ("--schemes: must be a comma list of MSC, MSC-RB, "
        "JSA, "
                                                                   "pMCSA, got SGD")),
    (["variance", "--t", "0", "--out", "{tmp}/x.png"], "--t: must be an integer >= 1, got 0"),
    (["variance", "--pi0", "0.7", "--out", "{tmp}/x.png"],
     "--pi0: must be a number with 0 < x <= 0.5, got 0.7"),
    (["wstar", "--N", "4,8", "--out", "{tmp}/x.png"], "--N: one value for wstar"),
    (["wstar", "--w-star", "500,50", "--out", "{tmp}/x.png"],
     "--w-star: the range LO,HI with LO < HI"),
    (["wstar", "--schemes", "JSA,MSC", "--out", "{tmp}/x.png"], "--schemes: wstar compares pMCSA"),
    (["wstar", "--k", "5", "--out", "{tmp}/x.png"], "unrecognized arguments: --k 5"),
    (["step", "nosuchstep", "--out", "{tmp}/x.png"], "unknown audit step 'nosuchstep'"),
    (["step", "--out", "{tmp}/x.png"], "STEP_ID"),
    (["rates", "--N", "4,8", "--out", "{tmp}/x.png"], "--N: one value for rates"),
    (["rates", "--w-star", "1,10", "--out", "{tmp}/x.png"], "--w-star: LO > 1 for rates"),
    (["stationary", "--pi", "0.5,0.5", "--q", "0.5,0.4", "--s", "1,-1", "--out", "{tmp}/x.png"],
     "--q: must sum to 1 exactly, got 9/10"),
    (["stationary", "--pi", "0.5,0.5", "--q", "0.5,0.5", "--out", "{tmp}/x.png"],
     "give all three, missing --s"),
    (["stationary", "--counterexample", "--pi", "1/2,1/2", "--out", "{tmp}/x.png"],
     "--counterexample: not with --pi"),
    (["stationary", "--pi", "1/2,1/2", "--q", "1/3,2/3", "--s", "1,0,-1", "--out",
      "{tmp}/x.png"], "one value per state each"),
    (["stationary", "--pi", "1/2,x", "--q", "1/3,2/3", "--s", "1,0", "--out", "{tmp}/x.png"],
     "--pi: must be a comma list of numbers or fractions, got 'x'"),
    (["stationary", "--pi", "1,0", "--q", "1/3,2/3", "--s", "1,0", "--out", "{tmp}/x.png"],
     "--pi: every value must be > 0"),
    (["stationary", "--counterexample", "--w-star", "5", "--out", "{tmp}/x.png"],
     "--w-star: not with an instance"),
    (["stationary", "--N", "40", "--out", "{tmp}/x.png"], "--N: at most 32 is supported"),
    (["lecture"], "--out"),
    (["lecture", "--out", "{tmp}/no/such/dir"], "does not exist"),
    (["lecture", "--format", "gif", "--out", "{tmp}/lec"], "--format"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a[:3]) or "empty" for a, _ in BAD])
def test_bad_input_one_line_exit_2_nothing_written(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(["draw", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == [], "bad input left a file behind"


def test_bad_input_is_refused_before_drawing_or_computing():
    """In a fresh interpreter: after a refused command, neither matplotlib nor the exact machinery
    was imported.
    """
    code = ("import sys; from verify.command.cli import main; "
            "rc = main(['draw', 'wstar', '--N', '0', "
            "'--out', 'x.png']); print(rc, [m for m in ('matplotlib', 'simulate.finite', 'sympy') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (out.stdout.split() == ["2", "[]"] and out.stderr.count("\n")
            == 1), (out.stdout, out.stderr)


# ----------------------------------------------------------------------------- the marked w*
def _independent_second_moments(N, t, w_star, pi0=0.3, L=1.0):
    """pMCSA and JSA's E||g_t||^2 from z*, recomputed here: pMCSA's N independent chains each with
    law
    K^t(z*, .) give E s^2 / N + (1 - 1/N) (E s)^2; JSA's sweep starts from K^(N(t-1))(z*, .)."""
    pi, q = F.hard_instance(2, w_star, seed=0, pi0=pi0)
    s = F.centred_bounded_score(pi, L)
    K = F.imh_matrix(pi, q)
    law = np.linalg.matrix_power(K, t)[0]
    pm = law @ s[:, 0] ** 2 / N + (1 - 1 / N) * float(law @ s[:, 0]) ** 2
    start = np.linalg.matrix_power(K, N * (t - 1))[0]
    jsa = sum(p * F.moments_jsa(K, s, x, N).second for x, p in enumerate(start))
    return float(pm), float(jsa)


def crossing_is_right(w, N, t, rel=1e-6) -> bool:
    """pMCSA's E||g_t||^2 is below JSA's just below ``w`` and not below it just above."""
    lo = _independent_second_moments(N, t, w * (1 - rel))
    hi = _independent_second_moments(N, t, w * (1 + rel))
    return lo[0] < lo[1] and hi[0] >= hi[1]


def test_the_marked_wstar_is_where_pmcsa_advantage_vanishes(drawn):
    d = drawn["wstar"]
    w = d.marks["JSA"]
    assert crossing_is_right(w, 16, 100)
    # the drawn curves agree with the independent values, and cross between the grid points around w
    pm, jsa = np.array([_independent_second_moments(16, 100, x) for x in d.data["w"]]).T
    assert np.allclose(d.data["exact"]["pMCSA"], pm,
                       rtol=1e-12) and np.allclose(d.data["exact"]["JSA"], jsa,
                                                   rtol=1e-10)
    i = int(np.searchsorted(d.data["w"], w))
    assert pm[i - 1] < jsa[i - 1] and pm[i] >= jsa[i]


def test_a_planted_wrong_crossing_is_caught(drawn):
    w = drawn["wstar"].marks["JSA"]
    for planted in (w * 1.05, w / 1.05, 260.0):
        assert not crossing_is_right(planted, 16, 100), planted


def test_no_crossing_is_marked_where_there_is_none():
    assert D.crossing(16, 100, "JSA", (2.0, 50.0)) is None


def test_crossing_moves_with_the_instance():
    """The crossing depends on the instance (pi0 = pi(z*)): recomputed, never a constant."""
    a, b = D.crossing(16, 100, "JSA", (20.0, 2000.0),
                      pi0=0.3), D.crossing(16, 100, "JSA", (20.0, 2000.0), pi0=0.2)
    assert a is not None and b is not None and abs(a / b - 1) > 0.05
    assert crossing_is_right(a, 16, 100) and not crossing_is_right(b, 16, 100)


# --------------------------------------------------------------- bounds: capped, the paper's values
def test_bounds_are_capped_at_the_trivial_bound_and_the_cap_is_active(drawn):
    var = drawn["variance"].data["panels"][0]
    mix = drawn["mixing"].data["panels"][0]
    vals = [v for d in var["bounds"].values() for v in d.values()]
    assert all(np.nanmax(v) <= 1.0 for v in vals)
    assert all(np.max(v) <= 1.0 for d in mix["bounds"].values() for v in d.values())
    # uncapped, MSC-RB's stated bound 4 L^2 chi2 / (N - 1) exceeds L^2 at N = 2, w* = 10: the cap is
    # doing something
    import bounds

    pi, q = F.hard_instance(2, 10.0, seed=0, pi0=0.3)
    raw = bounds.get(D.claim_of("MSC-RB")).evaluate_form("second_moment", "stated", N=2, L=1.0,
                                                         mu_norm=0.0,
                                                         chi2=float((pi ** 2 / q).sum() - 1))
    assert float(raw) > 1.0 and var["bounds"]["MSC-RB"]["stated"][0] == 1.0


def test_wstar_stated_bounds_are_the_papers(drawn):
    """The dashed curves are bounds.compare's stated second moments (C_cov from the same law),
    capped at L^2.
    """
    import bounds

    d = drawn["wstar"].data
    i = 7
    w = float(d["w"][i])
    pi, q = F.hard_instance(2, w, seed=0, pi0=0.3)
    rows = {r["scheme"]: r for r in bounds.compare(N=16, w_star=w,
                                                   chi2=float((pi ** 2 / q).sum() - 1))}
    assert math.isclose(d["bounds"]["pMCSA"]["stated"][i], min(1.0, rows["pMCSA"]["second_moment"]),
                        rel_tol=1e-12)


def test_stationary_values_are_the_stationary_moments(drawn):
    """At stationarity pMCSA's E||g||^2 is E_pi s^2 / N (E_pi s = 0), below JSA's at every w* (the
    paper's claim that holds without a transient)."""
    d = drawn["wstar"].data
    for w, pm, jsa in zip(d["w"], d["stationary"]["pMCSA"], d["stationary"]["JSA"]):
        pi, _ = F.hard_instance(2, float(w), seed=0, pi0=0.3)
        s = F.centred_bounded_score(pi, 1.0)[:, 0]
        assert math.isclose(pm, float(pi @ s ** 2) / 16, rel_tol=1e-12) and pm < jsa


# ----------------------------------------------------------------------------- step
def test_step_figure_shows_the_stored_counterexample(drawn):
    d = drawn["step"]
    stored = json.loads(
        files("verify").joinpath("data", "audit.json").read_text())["steps"]["theorem2.mse"]
    ce = stored["outcome"]["counterexample"]
    assert stored["status"] == d.data["status"] == "wrong"
    assert d.marks == {"lhs": ce["lhs"], "rhs": ce["rhs"]} and d.marks["lhs"] > d.marks["rhs"]
    texts = " ".join(t.get_text() for ax in d.fig.axes for t in ax.texts)
    assert "N = 1000" in texts and "correction:" in texts


def test_a_step_without_a_numeric_counterexample_shows_its_evidence():
    d = D.figure("step", step_id="theorem4.statement")
    stored = json.loads(
        files("verify").joinpath("data", "audit.json").read_text())["steps"]["theorem4.statement"]
    assert (stored["outcome"]["counterexample"] in (None, {}) and d.marks == {}
            and len(d.fig.axes) == 1)
    texts = " ".join(t.get_text() for t in d.fig.axes[0].texts).replace("\n", " ")
    assert "evidence:" in texts and "correction:" in texts and D.title_fits(d.fig)


@pytest.mark.parametrize("argv", [["--help"], ["mixing", "--help"], ["wstar", "--help"],
                                  ["step", "--help"]])
def test_help_names_the_kinds_and_the_exit_statuses(argv, capsys):
    assert main(["draw", *argv]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "2 bad input" in out and "70 internal error" in out and "--out" in out


def test_an_internal_error_is_one_line_and_exit_70(monkeypatch, tmp_path, capsys):
    def boom(*a, **k):
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(command, "draw", boom)
    assert main(["draw", "wstar", "--out", str(tmp_path / "w.png")]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError: injected" in err
    assert list(tmp_path.iterdir()) == [], "the empty output file is removed"


# ----------------------------------------------------------------------------- figures explain
EXTRA = {"imh": {}, "map": {"N": 16}, "crossings": {"N": 16, "ts": (10, 100)},
         "corrected": {"N": 4, "points": 20}}


@pytest.fixture(scope="module")
def extra():
    return {kind: D.figure(kind, **opts) for kind, opts in EXTRA.items()}


@pytest.mark.parametrize("kind", list(OPTIONS) + list(EXTRA))
def test_every_figure_explains_itself(kind, drawn, extra):
    """No overlapping labels (text bounding boxes), none off the figure, every line in a legend,
    the title inside, and a one-sentence message."""
    d = drawn[kind] if kind in drawn else extra[kind]
    assert D.overlapping_texts(d.fig) == [], kind
    assert D.texts_outside(d.fig) == [], kind
    assert D.unlabelled_lines(d.fig) == [], kind
    assert D.title_fits(d.fig), kind
    assert d.message.endswith(".") and len(SENTENCE.split(d.message)) == 1, d.message


SENTENCE = __import__("re").compile(r"(?<=[.!?])\s+(?=[A-Z])")


def test_the_figure_checks_catch_planted_defects():
    """Each check fails on a planted defect: two labels at one place, a label off the figure, a
    line without a legend entry."""
    d = D.figure("imh")
    ax = d.fig.axes[0]
    ax.text(0.5, 0.5, "planted label", transform=ax.transAxes)
    ax.text(0.5, 0.5, "planted label too", transform=ax.transAxes)
    assert ("planted label", "planted label too") in D.overlapping_texts(d.fig)
    ax.text(1.5, 0.5, "planted far right", transform=ax.transAxes)
    assert "planted far right" in D.texts_outside(d.fig)
    ax.plot([1, 2], [0.1, 0.2], label="planted line")
    assert "planted line" in D.unlabelled_lines(d.fig)


def test_axis_labels_say_what_an_iteration_is_per_scheme(drawn):
    """JSA's k is not 'kernel steps': the axis says iteration, the legend what one iteration is."""
    fig = drawn["mixing"].fig
    assert {ax.get_xlabel() for ax in fig.axes if ax.axison} == {"iteration k"}
    labels = D.legend_labels(fig)
    assert "JSA: exact (iteration: N IMH steps)" in labels
    assert "pMCSA: exact (iteration: one IMH step per chain)" in labels
    assert not any("kernel steps" in t for t in labels)


def test_an_omitted_curve_is_named_in_its_panel():
    """Above N = 20 JSA's exact joint law (2^N atoms) is not drawn, and the panel says so."""
    d = D.figure("mixing", N=[24], w_star=[10.0], schemes=["JSA", "pMCSA"], k=50)
    panel = d.fig.axes[0]
    notes = " ".join(t.get_text() for t in panel.texts).replace("\n", " ")
    assert "JSA's exact curve is not drawn" in notes and "2^N atoms" in notes
    assert "JSA: Theorem 3, stated and explicit" in D.legend_labels(d.fig) or any(
        "JSA" in x for x in D.legend_labels(d.fig))
    assert D.overlapping_texts(d.fig) == []


def test_stated_equal_to_explicit_is_one_line_and_every_style_is_used(drawn):
    """No legend style stands for a line hidden under another: where stated and explicit (every
    mixing bound), one line says so."""
    labels = D.legend_labels(drawn["mixing"].fig)
    assert "pMCSA: Theorem 4, stated and explicit" in labels
    assert not any(x.endswith(", explicit") for x in labels)
    styles = {ln.get_linestyle() for ax in drawn["mixing"].fig.axes for ln in ax.get_lines()}
    assert ":" not in styles


def test_vacuous_bounds_are_grey_and_named(drawn):
    """MSC's second-moment bound is L^2, the trivial bound: drawn only in grey along L^2 and named
    in the legend's title; a bound below L^2 keeps its scheme's colour."""
    fig = drawn["variance"].fig
    lines = [ln for ax in fig.axes for ln in ax.get_lines()]
    grey = [ln for ln in lines if ln.get_label() == D.VOID_LABEL]
    assert grey and all(ln.get_color() == D.VOID_COLOR for ln in grey)
    ys = np.concatenate([np.asarray(ln.get_ydata(), float) for ln in grey])
    assert np.all(ys[np.isfinite(ys)] == 1.0)
    assert not any(ln.get_label().startswith("MSC: Theorem 1") for ln in lines)
    title = fig.legends[0].get_title().get_text().replace("\n", " ")
    assert "vacuous at every point drawn" in title and "MSC (stated and explicit)" in title
    # a bound below the cap is coloured: pMCSA's stated bound at w* = 10
    coloured = [ln for ln in lines if ln.get_label() == "pMCSA: Theorem 4, stated"]
    assert coloured and coloured[0].get_color() == D.COLOR["pMCSA"]


def test_bound_line_plant():
    """_bound_line greys exactly the points at the cap (a plant below the cap stays coloured)."""
    fig, axes = canvas._new_figure()
    ax = axes[0][0]
    assert canvas._bound_line(ax, [1, 2, 3], [0.5, 1.0, 1.0], 1.0, "C0", "--", "b") == "some"
    assert canvas._bound_line(ax, [1, 2, 3], [1.0, 1.0, 1.0], 1.0, "C1", "--", "c") == "all"
    assert canvas._bound_line(ax, [1, 2, 3], [0.5, 0.4, 0.3], 1.0, "C2", "--", "d") == ""


# ----------------------------------------------------------------------------- step: as printed
def test_step_shows_its_status_and_the_claims_final_status_with_readings():
    d = D.figure("step", step_id="theorem4.var.2")
    text = " ".join(t.get_text() for ax in d.fig.axes for t in ax.texts).replace("\n", " ")
    text = " ".join(text.split())
    verdicts = json.loads(files("verify").joinpath("data", "verdicts.json").read_text())
    assert verdicts["verdicts"]["theorem4"] == "depends on reading"
    assert "this step: wrong" in text and "Theorem 4: depends on reading" in text
    for reading, verdict in verdicts["final_readings"]["theorem4"].items():
        assert f"{verdict} under '{reading}'" in text
    assert "depends on reading" in d.fig.get_suptitle() and "wrong" in d.fig.get_suptitle()
    # "affected" means: it uses a wrong step, named; each named step is wrong in the audit
    steps = json.loads(files("verify").joinpath("data", "audit.json").read_text())["steps"]
    assert d.data["affected"] and d.data["wrong_upstream"]
    assert all(steps[s]["status"] == "wrong" for s in d.data["wrong_upstream"])
    assert "affected: it uses the wrong step" in text


def test_step_bars_are_the_printed_sides_with_V():
    """theorem4.var.2 prints V + Bias^2 + 2L Bias + ||mu||^2 <= V + ||mu||^2 + O(r^t): the bars are
    both sides with V (recomputed here at the audit's counterexample: 4-state hard instance, w* =
    10, N chains at z*, L = 1, mu = 0, t = 200)."""
    from verify.running.docio import AUDIT_DOC, load_doc

    d = D.figure("step", step_id="theorem4.var.2")
    at = load_doc(AUDIT_DOC)["steps"]["theorem4.var.2"]["outcome"]["counterexample"]["at"]
    N, t = at["N"], at["t"]
    pi, q = F.hard_instance(4, 10.0, seed=0)
    K = F.imh_matrix(pi, q)
    s = F.centred_bounded_score(pi, 1.0)[:, 0]
    row = K[0]  # each of the N chains at z*: one IMH step
    mean, second = row @ s, row @ s ** 2
    V = (second - mean ** 2) / N  # N independent chains
    bias = abs(mean)
    B = 2 * N * (1 - 1 / 10.0) ** t  # Lemma 7: 2 L N r^t
    assert math.isclose(d.marks["lhs"], V + bias ** 2 + 2 * bias, rel_tol=1e-12)
    assert math.isclose(d.marks["rhs"], V + B ** 2 + 2 * B, rel_tol=1e-12)
    assert d.marks["rhs"] > V  # V is drawn on the right too
    labels = [t.get_text() for t in d.fig.axes[1].get_xticklabels()]
    assert "V +" in labels[0].replace("\n", " ") and "V +" in labels[1].replace("\n", " ")


# ----------------------------------------------------------------------------- rates
def test_rates_are_table1_ratios_and_mirror_descent_prefers_jsa(drawn):
    """Where both stated G^2 are below L^2, pMCSA/JSA = N G_p^2/G_J^2 = 2N(1 + r)/(N + 3) under
    mirror descent and 2(1 + r)/(N + 3) without rho (recomputed from Theorems 3-4's stated forms
    here); mirror descent prefers JSA and SGD-Nesterov pMCSA at large w*."""
    d = drawn["rates"].data
    N, w = d["N"], d["w"]
    r = 1 - 1 / w
    Gp, Gj = (1 + r) / N, 0.5 + 1.5 / N  # L = 1, mu = 0, C_cov = 0
    md = 1 / d["ratio"]["mirror_descent"]["JSA"]
    ns = 1 / d["ratio"]["sgd_nesterov"]["JSA"]
    assert np.allclose(md, N * Gp / Gj, rtol=1e-9) and np.allclose(ns, Gp / Gj, rtol=1e-9)
    assert np.allclose(md, 2 * N * (1 + r) / (N + 3), rtol=1e-9)
    assert np.all(md > 1) and np.all(ns < 1)
    assert d["preferred"]["mirror_descent"][-1] == "JSA"
    assert d["preferred"]["sgd_nesterov"][-1] == "pMCSA"
    assert "prefers JSA" in drawn["rates"].message and "prefers pMCSA" in drawn["rates"].message


# ----------------------------------------------------------------------------- stationary
def _independent_stationary(N):
    """MSC-RB's and pMCSA's exact stationary E g^2 on the counterexample, with Fractions and an
    enumeration of the N - 1 proposals' counts (shares nothing with simulate.finite)."""
    from fractions import Fraction as Fr
    from math import factorial

    pi = [Fr(1, 2), Fr(1, 4), Fr(1, 4)]
    q = [Fr(1, 10), Fr(9, 20), Fr(9, 20)]
    s = [Fr(0), Fr(1), Fr(-1)]
    w = [a / b for a, b in zip(pi, q)]
    rb = Fr(0)
    n = N - 1
    for c0 in range(n + 1):
        for c1 in range(n + 1 - c0):
            c = (c0, c1, n - c0 - c1)
            p = Fr(factorial(n), factorial(c[0]) * factorial(c[1]) * factorial(c[2]))
            for i in range(3):
                p *= q[i] ** c[i]
            for x in range(3):
                cnt = list(c)
                cnt[x] += 1
                W = sum(cnt[i] * w[i] for i in range(3))
                g = sum(cnt[i] * w[i] * s[i] for i in range(3)) / W
                rb += pi[x] * p * g * g
    pm = sum(a * b * b for a, b in zip(pi, s)) / N
    return rb, pm


@pytest.mark.parametrize("N", [2, 3, 16])
def test_the_stationary_counterexample_recomputed(N):
    rb, pm = _independent_stationary(N)
    got = D.stationary_moments(*D.counterexample(), N)
    assert math.isclose(got["MSC-RB"], float(rb), rel_tol=1e-10)
    assert math.isclose(got["pMCSA"], float(pm), rel_tol=1e-12)
    assert rb < pm  # MSC-RB beats pMCSA at stationarity
    if N == 16:
        assert f"{float(rb):.4f}" == "0.0199" and f"{float(pm):.4f}" == "0.0312"


def test_the_stationary_figure_names_who_beats_pmcsa(drawn):
    d = drawn["stationary"]
    assert d.data["below_pmcsa"]["MSC-RB"] == [2, 3, 4, 8, 16]
    assert d.data["below_pmcsa"]["JSA"] == [] and d.data["equal_pmcsa"]["JSA"]
    assert "JSA (the same numbers as pMCSA here)" in D.legend_labels(d.fig)
    assert "MSC-RB" in d.message and "not always best" in d.message
    # the lecture's instance: pMCSA the smallest at every N (a plant: the counterexample is not)
    plain = D.stationary_data(*[np.asarray(x)[:, 0] if np.ndim(x) == 2 else x
                                for x in D.instance(10.0)], [2, 4, 8, 16])
    assert set(plain["smallest"]) == {"pMCSA"} and set(d.data["smallest"]) == {"MSC-RB"}


def test_stationary_takes_an_instance_of_your_own(tmp_path, capsys):
    out = tmp_path / "st.png"
    assert main(["draw", "stationary", "--pi", "1/2,1/2", "--q", "0.25,0.75", "--s", "1,-1",
                 "--N", "2,4", "--out", str(out)]) == 0
    assert SIGNATURE[".png"] in _written(out)[:10]


# ----------------------------------------------------------------------------- the lecture
def test_the_lecture_in_one_command(tmp_path, capsys):
    """At least 10 figures of a 50-minute lecture and an outline giving each its message."""
    import re

    out = tmp_path / "lecture"
    assert main(["draw", "lecture", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    figures = sorted(p.name for p in out.glob("*.png"))
    assert len(figures) >= 10 and len(figures) == len(D.SLIDES)
    outline = (out / "outline.md").read_text()
    assert sum(s[3] for s in D.SLIDES) + D.WRAP_UP == 50
    assert "50-minute lecture" in outline
    for name in figures:
        line = next(x for x in outline.splitlines() if x.startswith("| ") and f"`{name}`" in x)
        message = line.split("|")[4].strip()
        assert message.endswith(".") and len(SENTENCE.split(message)) == 1, message
        assert f"{name}: {message}" in printed
        assert f"![{message}]({name})" in outline
    # every slide says what it rests on, and the verdicts quoted are the packaged ones
    verdicts = json.loads(files("verify").joinpath("data", "verdicts.json").read_text())
    for claim, status in re.findall(r"`python -m verify (\w+)`: ([a-z ]+)", outline):
        assert verdicts["verdicts"][claim] == status.strip(), claim
    assert outline.count("**Checked by.**") == len(figures)
