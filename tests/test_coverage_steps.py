"""Coverage finds a step that a registered package declares but the stored audit lacks (a
user's package: its steps are in the audit wherever it is installed), and shows the status
the step's check gives now -- "wrong" as readily as "exact" -- rather than "step not in the
audit".  The example package's own steps are checked in tests/test_example_claim.py."""

from fractions import Fraction

import pytest

from verify.audit import engine
from verify.judging import coverage


def _entry(step_id: str) -> dict:
    return {"document": "a user's document", "location": "§1, line (1)", "quote": "1/3 + 1/3 = 2/3",
            "kind": "proof step", "status": "checked", "claim": None, "step": step_id,
            "reason": None}


@pytest.fixture
def two_steps(monkeypatch):
    """Two steps declared now, as a user's proofs module declares them: one whose printed
    relation holds exactly, one whose printed relation is false; neither in the stored audit."""
    from verify.registry import Registry

    third = Fraction(1, 3)
    # computed here, never a stored outcome; the steps are in a scoped registry only
    with engine.caching(read=False, write=False), Registry.scoped():
        made = [
            engine.step("coverage_test.right", claim="coverage_test", seed="a user's document",
                        location="§1, line (1)", relation="=", lhs="1/3 + 1/3", rhs="2/3",
                        justification="arithmetic", check=lambda: engine.instance_check(
                            lambda: [({"k": 1}, third + third, Fraction(2, 3))], "=", tol=0.0)),
            engine.step("coverage_test.wrong", claim="coverage_test", seed="a user's document",
                        location="§1, line (2)", relation="=", lhs="1/3 + 1/3", rhs="1",
                        justification="arithmetic", check=lambda: engine.instance_check(
                            lambda: [({"k": 1}, third + third, Fraction(1))], "=", tol=0.0)),
        ]
        yield [s.id for s in made]
    assert "coverage_test.right" not in engine.STEPS


def test_a_declared_step_missing_from_the_stored_audit_is_audited_now(two_steps):
    right, wrong = two_steps
    stored, _ = coverage.status_documents()
    assert right not in stored and wrong not in stored
    steps, claims = coverage.statuses([_entry(right), _entry(wrong)])
    assert steps[right] == "exact" and steps[wrong] == "wrong"  # the check decides; it can fail
    assert coverage.verdict(_entry(wrong), steps, claims) == "step wrong"
    assert {k: v for k, v in steps.items() if k not in (right, wrong)} == stored  # the rest: stored


def test_a_step_nobody_declares_is_still_not_in_the_audit():
    steps, claims = coverage.statuses([_entry("coverage_test.nowhere")])
    assert "coverage_test.nowhere" not in steps
    said = coverage.verdict(_entry("coverage_test.nowhere"), steps, claims)
    assert said == "step not in the audit"


def test_the_json_rows_and_the_table_show_the_status_now(two_steps):
    right, wrong = two_steps
    rows = coverage.rows([_entry(right), _entry(wrong)])
    assert [r["verdict"] for r in rows] == ["step exact", "step wrong"]
    text = coverage.table_text([_entry(right), _entry(wrong)], width=100)
    assert "step wrong" in text and "not in the audit" not in text
