"""The exercises in notebooks/exercises/ and their solutions in notebooks/solutions/.

Static: every exercise notebook has a solution notebook of the same name; each exercise is under a
heading "Exercise N: ..." (numbered 1, 2, ... across the notebooks, at least 8) with its objective
and expected time, and the solution repeats the heading; notebooks are stored without outputs, cite
their source and use no private names.

Executed: each solution runs in a fresh kernel started from this interpreter (nbclient, a generous
per-cell timeout and no whole-notebook timeout), then one more cell prints a JSON probe of the
variables in which the solution leaves its answers.  Every check of an answer is a predicate on that
probe with a *plant*, a wrong answer that it must reject, so that no check is vacuous.  Where
possible a check recomputes the answer here from the toolkit rather than trusting the notebook.
"""

from __future__ import annotations

import copy
import json
import math
import pathlib
import re

import nbformat
import pytest
from notebook_kit import Check, execute, kernel_spec

ROOT = pathlib.Path(__file__).resolve().parent.parent
EX_DIR, SOL_DIR = ROOT / "notebooks" / "exercises", ROOT / "notebooks" / "solutions"
EXERCISES = sorted(EX_DIR.glob("*.ipynb"))
SOLUTIONS = sorted(SOL_DIR.glob("*.ipynb"))
KERNEL_NAME = "mcsa-verify-exercises-python"
HEADING = re.compile(r"^## Exercise (\d+): (.+)$", re.MULTILINE)


# ----------------------------------------------------------------------------- static
def headings(path) -> list[tuple[int, str]]:
    nb = nbformat.read(path, as_version=4)
    return [(int(n), t.strip()) for c in nb.cells if c.cell_type == "markdown"
            for n, t in HEADING.findall(c.source)]


def test_every_exercise_has_a_solution_with_the_same_headings():
    assert [p.name for p in EXERCISES] == [p.name for p in SOLUTIONS] and EXERCISES
    for ex, sol in zip(EXERCISES, SOLUTIONS):
        assert headings(ex) == headings(sol) and headings(ex), ex.name


def test_at_least_8_exercises_numbered_in_order_on_the_required_topics():
    every = [h for p in EXERCISES for h in headings(p)]
    assert len(every) >= 8 and [n for n, _ in every] == list(range(1, len(every) + 1))
    titles = " | ".join(t for _, t in every)
    for topic in ("Plant a wrong bound", "w* where pMCSA's advantage vanishes",
                  "Theorem 1's rate at q = π"):
        assert topic in titles, topic


@pytest.mark.parametrize("path", EXERCISES + SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_notebook_is_clean_cited_and_public(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type
               == "code"), "outputs"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert re.search(r"\*\*Source:\*\* .*Kim", nb.cells[0].source)
    text = "\n".join(c.source for c in nb.cells)
    assert "shared/" not in text and "seeds/" not in text
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not re.search(r"^\s*assert\b", code, re.MULTILINE)
    assert re.findall(
        r"\b[A-Za-z]\w*\._[A-Za-z]\w*|^\s*from\s+\S*\b_[A-Za-z]\w*\s+import|import\s+_[A-Za-z]",
        code, re.MULTILINE) == []
    for cell in nb.cells:  # each exercise: objective and expected time under its heading
        if cell.cell_type == "markdown" and HEADING.search(cell.source):
            assert "**Objective:**" in cell.source and re.search(
                r"\*\*Expected time:\*\* \d+ minutes", cell.source)


# ---------------------------------------------------------------------------- checks of the answers
def put(key, value):
    def plant(p):
        p[key] = value
    return plant


def scale(key, factor):
    def plant(p):
        p[key] = [x * factor for x in p[key]] if isinstance(p[key], list) else p[key] * factor
    return plant


def _eq7_reference():
    from verify import draw as vd

    pi, _, _ = vd.instance(10.0)
    r = 0.9
    return [r ** k * (1 - pi[0]) for k in range(1, 61)]


def _first_k(reference):
    return next(k for k, v in enumerate(reference, start=1) if v < 0.01)


def _n_times_var_reference():
    from simulate import finite as F

    pi, q = F.hard_instance(4, 10.0)
    s = F.centred_bounded_score(pi, 1.0)[:, 0]
    row = F.imh_matrix(pi, q)[0]  # one chain from state 0: its variance; N chains: 1/N of it
    return float(row @ s ** 2 - (row @ s) ** 2)


def _crossing_ok(w, N, t=100, rel=1e-5):
    from verify import draw as vd

    lo = vd.second_moments(N, t, w * (1 - rel), ("JSA", "pMCSA"))
    hi = vd.second_moments(N, t, w * (1 + rel), ("JSA", "pMCSA"))
    return lo["pMCSA"] < lo["JSA"] and hi["pMCSA"] >= hi["JSA"]


def _planted_first_k():
    import numpy as np

    from simulate import finite as F
    from verify import draw as vd

    pi, q, _ = vd.instance(10.0)
    tv = F.tv_curve(F.cis_matrix(pi, q, 4), pi, 60)[:, 0]
    planted = (1 - 3 / (10.0 + 2)) ** np.arange(1, 61)
    return int(np.argmax(tv > planted)) + 1


def _msc_rb_stated_at(chi2):
    import bounds

    return float(bounds.get("theorem2").evaluate_form("second_moment", "stated", N=16, L=1.0,
                                                      mu_norm=0.0, chi2=chi2))


def _chi2_at(w):
    from verify import draw as vd

    pi, q, _ = vd.instance(w)
    return float((pi ** 2 / q).sum() - 1)


def _stored_counterexample(step):
    from importlib.resources import files

    return json.loads(
        files("verify").joinpath("data", "audit.json").read_text())["steps"][step]["outcome"][
        "counterexample"]


def _matches_counterexample(lhs, step):
    ce = _stored_counterexample(step)
    return math.isclose(lhs, ce["lhs"], rel_tol=1e-9) and lhs > ce["rhs"]


PROBES = {
    "01_mixing": {"tv_exact": "tv_exact", "k_01": "k_01", "k_01_eq7": "k_01_eq7",
                  "kernel_error": "kernel_error",
                  "tv_ratios": "tv_ratios", "theorem1_rho": "theorem1_rho"},
    "02_variance": {"n_times_var": "n_times_var", "n_times_second": "n_times_second",
                    "jsa_slope": "jsa_slope",
                    "pmcsa_slope": "pmcsa_slope", "exact_second": "exact_second",
                    "stated": "stated",
                    "corrected": "corrected",
                    "bias2": "bias2"},
    "03_tradeoff": {"w_cross_16": "w_cross_16", "w_cross_8": "w_cross_8",
                    "toolkit_16": "toolkit_16",
                    "chi2_threshold": "chi2_threshold", "w_at_threshold": "w_at_threshold"},
    "04_verify": {"planted_first_k": "planted_first_k", "verdict_true": "verdict_true",
                  "verdict_planted": "verdict_planted", "worst_ratio": "worst_ratio",
                  "step_id": "row['id']",
                  "recomputed_lhs": "recomputed_lhs"},
}
CHECKS = {
    "01_mixing": [
        Check("Ex. 1: the exact TV from z* is r^k (1 - pi(z*)) at k = 1..60 (recomputed; 1e-12)",
              lambda p: len(p["tv_exact"]) == 60
              and all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
                                                         for a, b in zip(
                                                             p["tv_exact"], _eq7_reference())),
              scale("tv_exact", 1.001)),
        Check("Ex. 1: TV < 0.01 from k = 41; Eq. (7) alone promises it from k = 44",
              lambda p: p["k_01"] == _first_k(_eq7_reference()) == 41 and p["k_01_eq7"]
              == math.ceil(
                  math.log(0.01) / math.log(0.9)) == 44, put("k_01", 44)),
        Check("Ex. 2: CIS at q = pi is I/N + (1 - 1/N) Pi (1e-12)",
              lambda p: p["kernel_error"] < 1e-12,
              put("kernel_error", 1e-3)),
        Check("Ex. 2: its TV falls by exactly 1/N = 1/4 a step, Theorem 1's rate at w* = 1",
              lambda p: len(p["tv_ratios"]) == 9
              and all(math.isclose(x, 0.25, rel_tol=1e-9) for x in p["tv_ratios"])
              and math.isclose(p["theorem1_rho"], 0.25, rel_tol=1e-15), scale("tv_ratios", 1.01)),
    ],
    "02_variance": [
        Check("Ex. 3: N V[g | F] is one chain's variance at every N (1e-12; recomputed)",
              lambda p: len(p["n_times_var"]) == 5
              and all(math.isclose(x, _n_times_var_reference(), rel_tol=1e-12)
                                                           for x in p["n_times_var"]),
              scale("n_times_var", 1.001)),
        Check("Ex. 3: ... while N E||g||^2 grows with N (the bias does not average out)",
              lambda p: all(a < b for a, b in zip(p["n_times_second"], p["n_times_second"][1:])),
              put("n_times_second", [1.0] * 5)),
        Check("Ex. 4: pMCSA's stationary slope is -1 (1e-9), JSA's between -0.5 and -0.1",
              lambda p: math.isclose(p["pmcsa_slope"], -1,
                                     abs_tol=1e-9) and -0.5 < p["jsa_slope"] < -0.1,
              put("jsa_slope", -1.0)),
        Check("Ex. 5: Theorem 4's stated bound fails at z*, its corrected form holds, and exact = "
              "variance + bias^2",
              lambda p: p["stated"] < p["exact_second"] <= p["corrected"] + 1e-12 and p["bias2"]
              > p["stated"],
              put("exact_second", 0.4)),
    ],
    "03_tradeoff": [
        Check("Ex. 6: the bisection's w* (N = 16, t = 100) is where pMCSA's E||g_t||^2 reaches "
              "JSA's (recomputed)",
              lambda p: (_crossing_ok(p["w_cross_16"], 16)
                         and math.isclose(p["w_cross_16"], p["toolkit_16"], rel_tol=1e-6)),
              scale("w_cross_16", 1.02)),
        Check("Ex. 6: ... and the same at N = 8",
              lambda p: _crossing_ok(p["w_cross_8"], 8), scale("w_cross_8", 0.98)),
        Check("Ex. 7: MSC-RB's stated bound equals L^2 at chi2 = (N - 1)/4 = 3.75 (N = 16)",
              lambda p: p["chi2_threshold"] == 3.75
              and math.isclose(_msc_rb_stated_at(p["chi2_threshold"]), 1.0,
                               rel_tol=1e-12),
              put("chi2_threshold", 4.0)),
        Check("Ex. 7: the two-state instance reaches that chi2 at the answer's w*",
              lambda p: math.isclose(_chi2_at(p["w_at_threshold"]), 3.75, rel_tol=1e-9),
              scale("w_at_threshold", 1.01)),
    ],
    "04_verify": [
        Check("Ex. 8: the planted CIS rate (factor 2 dropped) fails first at the answer's k "
              "(recomputed)",
              lambda p: p["planted_first_k"] == _planted_first_k(), put("planted_first_k", 1)),
        Check("Ex. 8: Theorem 1 holds; with every bound halved it is violated, its worst check at "
              "ratio > 1",
              lambda p: p["verdict_true"] == "holds" and p["verdict_planted"] == "violated"
              and p["worst_ratio"] > 1,
              put("verdict_planted", "holds")),
        Check("Ex. 9: the recomputed MSE is the audit's stored lhs (1e-9) and exceeds the quoted "
              "rhs",
              lambda p: p["step_id"] == "theorem2.mse"
              and _matches_counterexample(p["recomputed_lhs"], "theorem2.mse"),
              scale("recomputed_lhs", 0.5)),
    ],
}


def test_every_solution_has_checks():
    assert {p.stem for p in SOLUTIONS} == set(PROBES) == set(CHECKS)


# ----------------------------------------------------------------------------- execution
@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory):
    return kernel_spec(tmp_path_factory.mktemp("kernels"), KERNEL_NAME)


_EXECUTED: dict = {}


def probe_of(path, kernel_dirs, workdir) -> dict:
    """Execute the solution once per session (tests/notebook_kit.py: a process of its own, a fresh
    kernel,
    a per-cell limit only) and return its probe."""
    if path.stem not in _EXECUTED:
        _EXECUTED[path.stem] = execute(path, PROBES[path.stem], kernel_dirs, KERNEL_NAME, workdir)
    res = _EXECUTED[path.stem]
    if isinstance(res, BaseException):
        raise res
    return res[1]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_solution_runs_and_its_answers_are_right(path, kernel_dirs, tmp_path):
    probe = probe_of(path, kernel_dirs, tmp_path)
    for check in CHECKS[path.stem]:
        assert check.holds(probe), f"{path.name}: {check.what}"


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_each_answer_check_rejects_a_wrong_answer(path, kernel_dirs, tmp_path):
    probe = probe_of(path, kernel_dirs, tmp_path)
    for check in CHECKS[path.stem]:
        planted = copy.deepcopy(probe)
        check.plant(planted)
        assert (planted != probe
                and not check.holds(planted)), f"{path.name}: cannot fail: {check.what}"
