"""Readings and the one source of truth (issue 11, items 1 and 2).

* :func:`verify.decide.final_status` decides every claim's final status: violated only when
  every reading fails, 'depends on reading' (exit 4) when some hold and some fail;
* verify/data/verdicts.json, verify/data/audit.json, docs/ERRATA.md and the audit computed now agree
  with it (cheap: no claim is re-run here; tests/test_verify.py checks that
  verify/data/verdicts.json is what a quick run gives now);
* Theorem 4's second moment: fails under the conditional reading (0.834 vs 0.238 at
  w* = 10, N = 8, t = 100, all chains at the worst state); the unconditional reading (over the
  trajectory from eta_0, under which it holds) is dropped: Table 1's notation defines F_t and the
  proof conditions on the chains' states, so the claim is violated;
* every dropped reading is recorded with the quote that supported it and the sentence that
  rules it out, and no dropped reading is still registered.
Runs in about 15 s (the audit once, Theorem 4 at one grid point).
"""

import json
import pathlib

import pytest

import bounds
from mcsa_cli import dumps
from verify import audit
from verify.decide import decide, final_status, reading_verdicts
from verify.model import DEPENDS, EXIT, HOLDS, INCONCLUSIVE, VIOLATED, CheckResult, Reading
from verify.registry import REGISTRY
from verify.running.outcome import run_verification

ROOT = pathlib.Path(__file__).resolve().parent.parent
A = Reading("a", "q", "m", axis="x")
B = Reading("b", "q", "m", axis="x")


@pytest.mark.parametrize("emp,audit_,expect,failing", [
    ({"a": HOLDS, "b": HOLDS}, {}, HOLDS, ()),
    ({"a": HOLDS, "b": VIOLATED}, {}, DEPENDS, ("b",)),
    ({"a": VIOLATED, "b": VIOLATED}, {}, VIOLATED, ("a", "b")),
    ({"a": INCONCLUSIVE, "b": VIOLATED}, {}, INCONCLUSIVE, ("b",)),
    ({"a": HOLDS, "b": HOLDS}, {"b": "fails"}, DEPENDS, ("b",)),  # the audit fails a reading
    ({"a": HOLDS, "b": HOLDS}, {"": "fails"}, VIOLATED, ("a", "b")),  # ... or all of them
    ({"a": HOLDS, "b": HOLDS}, {"": "survives"}, HOLDS, ()),
])
def test_final_status_rules(emp, audit_, expect, failing):
    st = final_status("x", emp, audit_, readings=(A, B))
    assert st.status == expect and st.failing == failing
    assert EXIT[st.status] == {HOLDS: 0, VIOLATED: 1, INCONCLUSIVE: 3, DEPENDS: 4}[expect]


def test_axes_combine_into_full_readings():
    C = Reading("c", "q", "m", axis="y")
    D = Reading("d", "q", "m", axis="y")
    checks = [CheckResult("q", "f", {}, 2.0, 1.0, "exact", reading="b"),  # fails under b only
              CheckResult("q", "f", {}, 0.0, 1.0, "exact", reading="c"),
              CheckResult("q", "f", {}, 0.0, 1.0, "exact", reading="d"),
              CheckResult("q", "f", {}, 0.0, 1.0, "exact", reading="a"),
              CheckResult("q", "f", {}, 0.5, 1.0, "exact")]  # shared
    for c in checks:
        decide(c, 0)
    v = reading_verdicts(checks, (A, B, C, D))
    assert v == {"a + c": HOLDS, "a + d": HOLDS, "b + c": VIOLATED, "b + d": VIOLATED}


def test_every_claim_lists_documented_readings():
    for cid, v in REGISTRY.items():
        for r in v.readings:
            assert r.name and r.meaning and r.quote, (cid, r)
        names = [r.name for r in v.readings]
        assert len(names) == len(set(names)), cid


def test_summaries_agree_with_final_status():
    """verdicts.json, audit.json, ERRATA.md and the audit now give every claim the same status."""
    verdicts = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())
    adoc = json.loads((ROOT / "verify" / "data" / "audit.json").read_text())
    errata = (ROOT / "docs" / "ERRATA.md").read_text()
    now = audit.final_statuses()
    stm = audit.statement_readings()
    for cid in verdicts["verdicts"]:
        st = final_status(cid, verdicts["readings"][cid], stm.get(cid, {}))
        assert verdicts["verdicts"][cid] == st.status == now[cid].status, cid
        assert adoc["claims"][cid]["final_status"] == st.status, cid
        assert adoc["claims"][cid]["failing_readings"] == list(st.failing), cid
        assert verdicts.get("failing_readings", {}).get(cid, []) == list(st.failing), cid
        assert f"| `{cid}` | {st.status} |" in errata, cid
    # the claims issue 11 found on one list only are decided by the same function, with the reading
    # rules of issue 23: proposition2's '<=' is ruled out by its own strict sign and El hanchi's
    # 'sufficient' by 'necessary' (rule 6), cis_variance_growth holds under its hedge (rule 2),
    # lemma4/lemma7 keep both sides (rule 1)
    expect = {"proposition2": (VIOLATED, "ruled_out"),
              "sgfs_stationary_covariance": (VIOLATED, "ruled_out"),
              "cis_variance_growth": (HOLDS, "strict_only"), "lemma4": (DEPENDS, "see"),
              "lemma7": (DEPENDS, "see"),
              "theorem3": (DEPENDS, "see"), "theorem4": (DEPENDS, "see")}
    for cid, (status, rule) in expect.items():
        assert now[cid].status == status and getattr(now[cid], rule), (cid, now[cid])


def test_audit_statement_readings_name_registered_readings():
    for cid, d in audit.statement_readings().items():
        names = {r.name for r in REGISTRY[cid].readings} if cid in REGISTRY else set()
        assert set(d) - {""} <= names, (cid, d)


def test_theorem4_conditional_fails_and_the_unconditional_reading_holds(capsys):
    """Reading rule 1 on Theorem 4: the statement conditions on F_{t-1}, the proof reads the O(r^t)
    with Lemma 7 (t steps from eta_0); both readings are kept, the conditional one fails at the
    worst state, the unconditional one
    holds on the exact moments from every start, so the claim depends on reading, the contradiction
    recorded once."""
    rep = run_verification(REGISTRY["theorem4"], "quick", seed=0,
                           overrides={"N": [8], "w_star": [10.0], "t": [100]})
    worst = [c for c in rep.checks if c.quantity == "second_moment" and c.form == "stated"
             and c.method == "exact"
             and c.params.get("state") == "all worst" and c.params.get("score")
             == "s = +-L (balanced)"]
    assert worst and worst[0].empirical == pytest.approx(0.834, abs=5e-4)
    assert worst[0].scaled_bound == pytest.approx(0.2375) and worst[0].verdict == VIOLATED
    assert worst[0].reading == "conditional on F_{t-1}"
    assert rep.readings == {"conditional on F_{t-1}": VIOLATED, "unconditional from eta_0": HOLDS}
    assert rep.verdict == DEPENDS and rep.failing_readings == ["conditional on F_{t-1}"]
    # the trajectory-averaged moments decide the unconditional reading through the form that writes
    # its O(r^t) out
    unc = [c for c in rep.checks if c.reading == "unconditional from eta_0"]
    assert unc and {c.form for c in unc if c.primary} == {"unconditional"}
    assert all(c.verdict == HOLDS for c in unc if c.primary)
    assert rep.status.see == ("theorem3.var.3",)
    d = json.loads(dumps(rep.as_json()))
    assert d["verdict"] == DEPENDS


def test_the_unconditional_reading_can_fail():
    """The kept unconditional reading is a real check: a bound that drops the bias (scale 1/4) fails
    under it.
    """
    rep = run_verification(REGISTRY["theorem4"], "quick", seed=0, bound_scale=0.25,
                           overrides={"N": [8], "w_star": [10.0], "t": [100]})
    assert rep.readings["unconditional from eta_0"] == VIOLATED


def _dropped():
    from verify.documents.kim2022 import lemmas

    return dict(lemmas.DROPPED_READINGS)


def test_dropped_readings_are_recorded_with_their_quotes_and_not_registered():
    from verify.documents.kim2022 import theorems

    dropped = _dropped()
    # lemma4, lemma5 and lemma7 keep both sides of their document's contradiction (reading rule
    # 1), and so do theorems 3 and 4 (the statement's conditioning against the proof's Lemma 7):
    # nothing dropped there
    assert set(dropped) == {"lemma2"}
    from verify.documents.kim2022 import lemmas

    lemma5 = {r.name for r in REGISTRY["lemma5"].readings}
    assert {lemmas.LAMBDA_PRINTED, lemmas.LAMBDA_IMH} <= lemma5  # 'false under both readings'
    for cid, rows in dropped.items():
        kept = {r.name for r in REGISTRY[cid].readings}
        for name, meaning, support, ruled_out in rows:
            assert name not in kept, (cid, name)
            assert meaning and support and ruled_out, (cid, name)
            # the kept reading's meaning names the dropped one, so `verify CLAIM` shows it
            assert any("dropped" in r.meaning for r in REGISTRY[cid].readings), cid
    for cid in ("theorem3", "theorem4"):
        names = {r.name for r in REGISTRY[cid].readings}
        assert {theorems.CONDITIONAL, theorems.UNCONDITIONAL} <= names, cid
        assert theorems.UNCONDITIONAL in theorems.KEPT_READINGS_REVIEW[cid], cid


def test_registry_covers_the_claims_with_readings():
    assert {"theorem3", "proposition2",
            "table1"} <= {c for c, v in REGISTRY.items() if len(v.readings) > 1}
    assert set(bounds.ids()) & set(REGISTRY)


def test_proposition2s_equality_label_agrees_with_its_counterexample():
    """Issue 34 §4: the '<=' reading of Proposition 2 names where equality holds, and that is
    the set its own counterexample lies in: w constant on supp pi (pi = (1, 0), q = (1/2, 1/2):
    w = 2 on the support, exp(KL) = 2 = w*), not only pi = q."""
    import math
    from fractions import Fraction

    import verify.registry

    names = [r.name for r in verify.registry.verifications()["proposition2"].readings]
    label = next(n for n in names if n.startswith("'<='"))
    assert "w is constant on supp pi" in label and "at pi = q" not in label
    pi, q = (Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(1, 2))
    w = [p / r for p, r in zip(pi, q)]
    kl = sum(float(p) * math.log(p / r) for p, r in zip(pi, q) if p)
    assert math.isclose(math.exp(kl), float(max(w)))  # equality off pi = q
