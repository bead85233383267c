"""``python -m verify draw KIND``: lecture figures, exact, in PNG, PDF and SVG.

Each kind is drawn once (small grids) and written in all three formats; its title must fit the
figure; bad input gets one line on stderr and exit 2 before anything is drawn; the marked w* of
``wstar`` is checked by an independent recomputation (and a planted wrong value is rejected);
the ``step`` figure shows the stored counterexample of the audit.
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
from verify import draw as D
from verify.cli import main

SIGNATURE = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<svg"}
OPTIONS = {
    "mixing": {"N": [4], "w_star": [10.0], "schemes": ["MSC", "JSA", "pMCSA"]},
    "variance": {"N": [2, 4, 8], "w_star": [10.0], "t": 20, "schemes": list(D.SCHEMES)},
    "wstar": {"N": 16, "t": 100, "w_range": (50.0, 500.0), "schemes": ("JSA", "pMCSA")},
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
    code = ("import sys; from verify.cli import main; rc = main(['draw', 'wstar', '--N', '0', "
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

    monkeypatch.setattr(D, "draw", boom)
    assert main(["draw", "wstar", "--out", str(tmp_path / "w.png")]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError: injected" in err
    assert list(tmp_path.iterdir()) == [], "the empty output file is removed"
