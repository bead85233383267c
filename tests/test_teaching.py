"""The teaching document (verify/documents/teaching): its claims hold, conform, and fail when
planted wrong (issue 36, item 7).

* Every teaching claim holds on its quick grid and passes ``verify.testing.check_claim`` (power by
  the bound scale, reproducibility in a second process).
* The two statements issue 36 found false are planted again as claims, checked by the same exact
  computations, and seen to fail: "at stationarity pMCSA always has the smallest second moment"
  (the counterexample breaks it) and "the corrected Theorem 4 bound is informative" at w* = 10
  (there it equals the trivial bound L^2: vacuous).
* A deliberately wrong bound makes each kind of check fail: an identity, a strict inequality, an
  inequality between two computed quantities.
* The exact computations agree with the float ones of :mod:`simulate.finite` (which they share
  no code with) on the instances the notebooks draw.
"""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import pytest

import verify
from verify.documents.teaching import checks as C, exact as X
from verify.model import Grid, Verification
from verify.running.outcome import run_verification

TEACH = sorted(c for c in verify.claims() if c.startswith("teach_"))


def test_the_document_is_registered_like_the_builtin_ones():
    from bounds.plugins import BOUNDS_GROUP, CLAIMS_GROUP, discover

    claims = {p.module for p in discover(CLAIMS_GROUP)}
    formulas = {p.module for p in discover(BOUNDS_GROUP)}
    assert "verify.documents.teaching" in claims
    assert "verify.documents.teaching.formulas" in formulas
    assert len(TEACH) == 12


@pytest.mark.parametrize("cid", TEACH)
def test_each_teaching_claim_holds_and_conforms(cid):
    from verify.testing import check_claim

    rep = verify.run(cid, "quick", seed=0)
    assert rep.verdict == "holds" and rep.checks
    assert all(c.method == "exact" and c.settled_by == "exact" for c in rep.checks)
    check_claim(cid, report=rep, rerun=False)


def _planted(name, run):
    return Verification(name, measures="planted", targets="planted", method="exact",
                        forms="stated", grid=Grid(quick={}, full={}), run=run)


def test_planted_pmcsa_always_smallest_at_stationarity_fails():
    """'At stationarity pMCSA always has the smallest second moment': pMCSA <= MSC-RB on the
    counterexample, with the same exact numbers; violated at every N = 2..16."""
    from verify.model import CheckResult

    def run(grid, seed=0, progress=None):
        out = []
        for N in range(2, 17):
            st = X.stationary(*X.COUNTEREXAMPLE, N)
            out.append(CheckResult("pmcsa_smallest", "stated", {"N": N}, st["pMCSA"],
                                   st["MSC-RB"], "exact"))
        return out

    rep = run_verification(_planted("planted_pmcsa_smallest", run), "quick")
    assert rep.verdict == "violated"
    assert sum(c.verdict == "violated" for c in rep.checks) == 15
    # and on the two-state lecture instance the same statement holds: it is the instance
    ok = [X.stationary(*X.two_state(Fr(10)), N) for N in (2, 4, 8)]
    assert all(st["pMCSA"] <= min(st["MSC"], st["MSC-RB"], st["JSA"]) for st in ok)


def test_planted_corrected_bound_informative_at_w_star_10_fails():
    """'The corrected Theorem 4 bound is informative (below L^2)' read where notebook 03 showed it
    as 'holds': w* = 10, N = 4, L = 1, mu = 0. Its value there is L^2 itself."""
    from verify.model import CheckResult

    def run(grid, seed=0, progress=None):
        out = []
        for w in (2, 10, 1000):
            capped = C.bound_of_form("theorem4", "second_moment", "corrected", N=4, w_star=w, L=1,
                                     mu_norm=0)
            out.append(CheckResult("informative", "stated", {"w_star": w}, Fr(capped), 1,
                                   "exact", relation="<"))
        return out

    rep = run_verification(_planted("planted_corrected_informative", run), "quick")
    assert rep.verdict == "violated" and all(c.verdict == "violated" for c in rep.checks)
    # inside the domain the teaching claim says it is informative, and it is
    assert C.bound_of_form("theorem4", "second_moment", "corrected", N=4, w_star=Fr(3, 2), L=1,
                           mu_norm=0) < 1


@pytest.mark.parametrize("relation, bound", [("=", Fr(1, 10) + Fr(1, 10 ** 6)),
                                             ("<", Fr(1, 10)), ("<=", Fr(1, 11)),
                                             (">", Fr(1, 10)), (">=", Fr(1, 9))])
def test_a_wrong_bound_is_caught_exactly(relation, bound):
    """Tolerance 0: an identity off by 1e-6, a strict inequality at equality and an inequality on
    the wrong side each fail."""
    from verify.decide import decide

    c = C._check("planted", "q", {}, Fr(1, 10), bound, relation)
    assert decide(c, 0).verdict == "violated"


def test_a_difference_below_float_resolution_is_decided_exactly():
    """A difference below float resolution (1e-30, 1e-40) is decided on the exact values, never
    by rounding: the machinery takes the Fractions as exact points."""
    from verify.decide import decide

    above = decide(C._check("planted", "q", {}, Fr(1, 3) + Fr(1, 10 ** 40), Fr(1, 3), ">"), 0)
    assert (above.verdict, above.settled_by) == ("holds", "exact")
    off = decide(C._check("planted", "q", {}, Fr(1, 10), Fr(1, 10) + Fr(1, 10 ** 30), "="), 0)
    assert (off.verdict, off.settled_by) == ("violated", "exact")
    same = decide(C._check("planted", "q", {}, Fr(1, 3), Fr(2, 6), "="), 0)
    assert same.verdict == "holds"


def test_each_claims_checks_fail_with_a_planted_formula(monkeypatch):
    """The bound side comes from the formula: a formula off by a factor makes the claim violated
    (here Exercise 1's 'moves with probability 1/w*', the glossary's old sentence)."""
    real = C.bound_exact

    def planted(cid, quantity, **values):
        if quantity == "move":
            return real(cid, "acceptance", w_star=values["w_star"])
        return real(cid, quantity, **values)

    monkeypatch.setattr(C, "bound_exact", planted)
    rep = run_verification(verify.registry.verifications()["teach_imh_escape"], "quick")
    assert rep.verdict == "violated"
    assert {c.quantity for c in rep.checks if c.verdict == "violated"} == {"move"}


# ----------------------------------------------------------------------------- cross-checks
def test_exact_agrees_with_simulate_on_the_notebook_instances():
    from simulate import finite as F
    from verify.presenting import draw as vd

    pi, q, s = X.notebook03_instance()
    pf, qf = F.hard_instance(4, 10.0, seed=0)
    assert [float(x) for x in pi] == pf.tolist() and [float(x) for x in q] == qf.tolist()
    K, Kf = X.imh_kernel(pi, q), F.imh_matrix(pf, qf)
    sf = F.centred_bounded_score(pf, 1.0)
    assert np.allclose(np.array(K, float), Kf, rtol=1e-13, atol=1e-16)
    for N in (1, 4):
        assert math.isclose(float(X.jsa_conditional(K, s, 0, N)[0]),
                            F.moments_jsa(Kf, sf, 0, N).second, rel_tol=1e-12)
        assert math.isclose(float(X.pmcsa_conditional(K, s, [0] * N)[0]),
                            F.moments_pmcsa(Kf, sf, np.zeros(N, int)).second, rel_tol=1e-12)
    for N in (2, 3):
        assert math.isclose(float(X.msc_rb_conditional(pi, q, s, 0, N)[0]),
                            F.moments_msc_rb(pf, qf, sf, 0, N).second, rel_tol=1e-11)
        assert np.allclose(np.array(X.cis_kernel(pi, q, N), float), F.cis_matrix(pf, qf, N),
                           rtol=1e-11, atol=1e-15)
    st = X.stationary(*X.COUNTEREXAMPLE, 16)
    got = vd.stationary_moments(*vd.counterexample(), 16)
    assert all(math.isclose(float(st[k]), got[k], rel_tol=1e-10) for k in st)
    for w, t in ((215.0, 100), (50.0, 10)):
        pm, jsa = X.transient_moments(Fr(w), t, 16)
        ref = vd.second_moments(16, t, w, ("JSA", "pMCSA"))
        assert math.isclose(float(pm), ref["pMCSA"], rel_tol=1e-12)
        assert math.isclose(float(jsa), ref["JSA"], rel_tol=1e-12)


def test_the_crossings_notebook_08_prints_are_bracketed():
    """w* = 16.59, 60.48, 215.18, 657.43, 2205.36 (t = 10 .. 1000): pMCSA below JSA 0.005 before,
    above 0.005 after, exactly; and each within 2.1 t .. 2.3 t from t = 100."""
    rep = verify.run("teach_transient_crossing", "quick")
    below = {c.params["t"]: c.params["w_star"] for c in rep.checks
             if c.quantity == "below" and c.params["bracket"] == "printed to 2 decimals"}
    assert below == {10: 16.585, 30: 60.475, 100: 215.175, 300: 657.425, 1000: 2205.355}
    assert rep.verdict == "holds"
