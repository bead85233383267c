"""The data model's closed word sets (verify.model, verify.audit.engine) and keyword-only
declarations (``step``, ``Verification``): enums that read, compare and serialise as their
words, so stored documents and command-line output do not change."""

from __future__ import annotations

import json

import pytest

from mcsa_cli import dumps
from verify.audit.engine import STATUSES as STEP_STATUSES, WRONG, StepStatus, step
from verify.model import (
    DEPENDS,
    HOLDS,
    METHODS,
    STATUSES,
    VIOLATED,
    CheckResult,
    Grid,
    Method,
    Severity,
    Verdict,
    Verification,
)


def test_verdicts_read_as_their_words():
    assert isinstance(HOLDS, Verdict) and HOLDS == "holds" and VIOLATED == "violated"
    assert ((repr(HOLDS), str(DEPENDS), f"{HOLDS:>7}") == ("'holds'", "depends on reading",
                                                           "  holds"))
    assert {"holds": 0}[HOLDS] == 0 and {HOLDS: 0}["holds"] == 0  # hashes as its word
    assert STATUSES == ("holds", "violated", "inconclusive", "depends on reading")
    assert (METHODS == ("exact", "monte-carlo",
                        "symbolic") and Method("monte-carlo") is Method.MONTE_CARLO)
    assert (STEP_STATUSES == ("exact", "valid", "loose", "wrong",
                              "unchecked") and WRONG is StepStatus.WRONG)


def test_enums_serialise_as_plain_json_strings():
    c = CheckResult("q", "f", {}, 2.0, 1.0, Method.EXACT, verdict=VIOLATED)
    d = json.loads(dumps({"check": c.as_json(), HOLDS: [WRONG, Method.MONTE_CARLO]}))
    assert d["check"]["verdict"] == "violated" and d["check"]["method"] == "exact"
    assert d["holds"] == ["wrong", "monte-carlo"]
    assert dumps([HOLDS, WRONG]) == '["holds", "wrong"]'


def test_severity_has_the_five_grades():
    assert [s.value for s in Severity] == ["false", "gap", "slip", "loose", "note"]
    assert Severity("gap") is Severity.GAP and Severity.FALSE == "false"
    with pytest.raises(ValueError):
        Severity("minor")


def test_step_and_verification_take_keywords_after_the_id():
    with pytest.raises(TypeError):
        step("x.positional", "claim", "001", "here", "=", "a", "b", "why", lambda: None)
    with pytest.raises(TypeError):
        Verification("c", "measures", "targets", "exact", "stated", Grid({}, {}), lambda grid,
                     **kw: [])
    v = Verification("c", measures="m", targets="t", method="exact", forms="stated, corrected",
                     grid=Grid({}, {}), run=lambda grid, **kw: [])
    assert v.claim == "c" and v.primary_form == "stated"
