"""What the figures read of the proof audit and of the verdicts: the stored audit steps
(``verify/data/audit.json``), one step's row, the wrong steps upstream of a step, and a claim's
recorded status (``verify/data/verdicts.json``).
"""

from __future__ import annotations

import json
import re


# ----------------------------------------------------------------------------- audit steps
def _audit_json() -> dict:
    from importlib.resources import files

    return json.loads(files("verify").joinpath("data", "audit.json").read_text())


def step_ids() -> list[str]:
    """Every audit step id, from the stored audit outcomes (a JSON read; no claim is built)."""
    return list(_audit_json()["steps"])


def step_row(step_id: str) -> dict:
    """The audit's row of one step (:func:`verify.audit.rows`): statement, status,
    counterexample.
    """
    from ...audit import rows

    claim = _audit_json()["steps"][step_id]["claim"]
    return next(r for r in rows(claim) if r["id"] == step_id)


def wrong_upstream(step_id: str) -> list[str]:
    """The wrong steps that ``step_id`` uses, directly or through other steps: what makes it
    *affected* (:func:`verify.audit.engine.status_with_affected`)."""
    from ...audit.engine import STEPS
    from ...registry import proof_steps

    proof_steps()
    out, seen, todo = [], set(), list(STEPS[step_id].depends)
    while todo:
        d = todo.pop(0)
        if d in seen or d not in STEPS:
            continue
        seen.add(d)
        if STEPS[d].run().status == "wrong":
            out.append(d)
        todo += list(STEPS[d].depends)
    return out


def claim_status(claim_id: str) -> dict:
    """A claim's final status with the verdict of each reading, from the packaged verdicts
    (``verify/data/verdicts.json``, what ``python -m verify list`` shows)."""
    from importlib.resources import files

    v = json.loads(files("verify").joinpath("data", "verdicts.json").read_text())
    audit = _audit_json()["claims"].get(claim_id, {})
    return {"status": v["verdicts"].get(claim_id, audit.get("final_status")),
            "readings": v.get("final_readings", {}).get(claim_id) or {},
            "severity": (v.get("severity", {}).get(claim_id) or {}).get("severity")
            or audit.get("severity"),
            "see": (v.get("severity", {}).get(claim_id) or {}).get("see") or audit.get("see")}


def claim_display_name(claim_id: str) -> str:
    """``theorem4`` -> ``Theorem 4``, ``lemma7`` -> ``Lemma 7``; other ids as they are."""
    m = re.fullmatch(r"(proposition|lemma|theorem|table|figure)(\d+)", claim_id)
    return f"{m.group(1).capitalize()} {m.group(2)}" if m else claim_id
