"""The six reading rules of docs/methods.md, each on a planted case (issue 23, §2).

Every test builds a small synthetic set of readings, checks and audit verdicts, and checks what
:func:`verify.decide.final_status` (with :func:`verify.decide.reading_verdicts`) and
:meth:`verify.running.outcome.Report.decisive` make of it; no claim is run.
"""

from verify.decide import decide, final_status, reading_verdicts
from verify.model import DEGENERATE, DEPENDS, HOLDS, INCONCLUSIVE, VIOLATED, CheckResult, Reading
from verify.running.outcome import Report


def check(reading, empirical, bound, relation="<=", form="stated", proof=False, quantity="q",
          **params):
    c = CheckResult(quantity, form, dict(params), float(empirical), float(bound), "exact",
                    relation=relation,
                    reading=reading, proof=proof)
    return decide(c, 0)


def evidence(failing, holding):
    """Checks on which reading ``failing`` exceeds its bound (twice it) and reading ``holding``
    stays within it (half of it): the evidence of a claim whose verdict depends on the reading."""
    return [check(failing, 2.0, 1.0), check(holding, 0.5, 1.0)]


def status(readings, checks, audit=None):
    return final_status("planted", reading_verdicts(checks, readings), audit or {}, readings)


def test_rule1_a_contradiction_keeps_both_sides_and_is_recorded_once():
    # a definition (reading A) against the document's own proof (reading B): the bound holds under B
    # only
    a = Reading("as defined", "Bias = E||g - mu||", "the definition", axis="bias", see="erratum.1")
    b = Reading("as the proof uses it", "Bias = ||E g - mu||", "the proof's first line",
                axis="bias", see="erratum.1")
    st = status((a, b), evidence("as defined", "as the proof uses it"))
    assert st.status == DEPENDS and st.failing == ("as defined",)
    assert st.see == ("erratum.1",)  # one erratum, named once however many readings point to it
    # without the other side (dropping it as 'ruled out by the definition') the same checks would
    # say violated
    assert status((a,), [check("as defined", 2.0, 1.0)]).status == VIOLATED


def test_rule2_a_hedged_claim_that_holds_under_its_lenient_reading_holds():
    strict = Reading("exponent 1", "grows linearly", "strict", axis="growth")
    lenient = Reading("grows", "grows linearly", "lenient", axis="growth",
                      hedge="approximately grows linearly")
    checks = evidence("exponent 1", "grows")
    st = status((strict, lenient), checks)
    assert st.status == HOLDS and st.failing == () and st.strict_only == ("exponent 1",)
    # the same readings without the hedge: depends on reading
    plain = Reading("grows", "grows linearly", "lenient", axis="growth")
    assert status((strict, plain), checks).status == DEPENDS
    # a hedge does not rescue a claim that fails under the lenient reading too
    st = status((strict, lenient), [check("exponent 1", 1.6, 1.0), check("grows", 2.0, 1.0)])
    assert st.status == VIOLATED and st.strict_only == ()


def test_rule3_a_degenerate_reading_is_excluded_and_reported():
    def too_few(checks):  # fewer than 5 qualifying cases in some comparison
        return "too few qualifying cases" if any(c.params.get("qualifying",
                                                              99) < 5 for c in checks) else ""

    thin = Reading("tau small", "converged", "a strict threshold", axis="tau", degenerate=too_few)
    wide = Reading("tau large", "converged", "a wide threshold", axis="tau", degenerate=too_few)
    checks = [check("tau small", 2.0, 1.0, qualifying=2),
              check("tau large", 0.5, 1.0, qualifying=300)]
    emp = reading_verdicts(checks, (thin, wide))
    assert emp == {"tau small": DEGENERATE, "tau large": HOLDS}
    st = final_status("planted", emp, {}, (thin, wide))
    assert st.status == HOLDS and st.degenerate == ("tau small",) and st.failing == ()
    # with enough qualifying cases the same failure decides: depends on reading
    checks[0].params["qualifying"] = 50
    assert status((thin, wide), checks).status == DEPENDS
    # every reading degenerate: nothing decides
    checks[1].params["qualifying"] = 1
    checks[0].params["qualifying"] = 1
    assert status((thin, wide), checks).status == INCONCLUSIVE


def test_rule4_a_violated_proof_constant_is_not_a_violation_of_the_statement():
    r = Reading("as printed", "E||g||^2 <= 4L^2 [chi2/(N-1) + O(...)]", "the statement",
                axis="statement")
    proof = check("as printed", 3.0, 1.0, form="explicit", proof=True)  # the proof's constants fail
    stmt = check("as printed", 0.5, 1.0)  # the statement's own form holds
    st = status((r,), [proof, stmt])
    assert st.status != VIOLATED and st.status == INCONCLUSIVE
    # the same check not marked as the proof's constants decides
    assert status((r,), [check("as printed", 3.0, 1.0, form="explicit"), stmt]).status == VIOLATED
    # a family along which the O-term vanishes (the audit's statement step) does violate the
    # statement
    assert status((r,), [proof, stmt], audit={"as printed": "fails"}).status == VIOLATED
    # and the proof's constants, when they hold, support the statement
    assert (status((r,), [check("as printed", 0.5, 1.0, form="explicit",
                                proof=True)]).status == HOLDS)


def test_rule5_the_decisive_counterexample_is_of_a_failing_reading():
    a = Reading("kept", "q", "m", axis="x")
    b = Reading("ruled out", "q", "m", axis="x", ruled_out="the document says 'if and only if'")
    c = Reading("degenerate", "q", "m", axis="x", degenerate=lambda cs: "premise never met")
    checks = [check("kept", 1.5, 1.0, at="decisive"), check("ruled out", 0.2, 1.0),
              check("degenerate", 100.0, 1.0, at="bigger, but degenerate"),
              check("kept", 50.0, 1.0, form="explicit", proof=True, at="the proof's constants")]
    rep = Report("planted", checks, 0, 0.0, reading_defs=(a, b, c))
    assert rep.verdict == VIOLATED and rep.status.failing == ("kept",)
    assert rep.decisive().params["at"] == "decisive"
    # a claim that holds has no decisive counterexample
    ok = Report("planted", [check("kept", 0.5, 1.0)], 0, 0.0, reading_defs=(a,))
    assert ok.verdict == HOLDS and ok.decisive() is None


def test_rule6_a_reading_the_document_rules_out_cannot_be_the_holding_reading():
    eq = Reading("equivalence", "equivalent to k in (0, 1)", "iff", axis="range")
    suff = Reading("sufficient", "equivalent to k in (0, 1)", "if", axis="range",
                   ruled_out="The restriction on the values of k is necessary for convergence")
    st = status((eq, suff), evidence("equivalence", "sufficient"))
    assert st.status == VIOLATED and st.failing == ("equivalence",)
    assert st.ruled_out == ("sufficient",)
    # without the ruling-out sentence the same evidence depends on reading
    plain = Reading("sufficient", "q", "if", axis="range")
    assert status((eq, plain), evidence("equivalence", "sufficient")).status == DEPENDS
