"""The recorded documents (``verdicts.json``, ``audit.json``): reading them through the store
(:mod:`verify.running.store`: every document's record, merged), the audit's statement verdicts, and
writing ``verdicts.json`` into each document's store."""

from __future__ import annotations

#: the recorded documents (their names in every store, verify.running.store)
VERDICTS_DOC = "verdicts.json"
AUDIT_DOC = "audit.json"

__all__ = ["AUDIT_DOC", "VERDICTS_DOC", "audit_statements", "audit_steps", "decisive_step",
           "load_doc", "verdicts_document", "write_verdicts"]


def audit_statements(claim_id: str) -> dict:
    """The audit's verdict on the claim's printed statement per reading option, from the
    recorded audit.json of the claim's document (:mod:`verify.running.store`)."""
    return load_doc(AUDIT_DOC).get("claims", {}).get(claim_id, {}).get("statement", {})


def audit_steps(claim_id: str) -> dict:
    """The recorded audit's steps of ``claim_id`` (step id -> its record), and the step its
    severity points to (``see``), from the store: what
    :meth:`verify.running.outcome.Report.decisive_step`
    is given."""
    from ..judging.severity import fields

    adoc = load_doc(AUDIT_DOC)
    see = {(adoc.get("claims", {}).get(claim_id) or {}).get("see"),
           fields("claims", claim_id).get("see")}
    return {k: v for k, v in adoc.get("steps", {}).items()
            if isinstance(v, dict) and (v.get("claim") == claim_id or k in see)}


def decisive_step(claim_id: str, options, prefer: str | None = None,
                  steps: dict | None = None) -> dict | None:
    """Reading rule 5: the audit's statement step that fails ``claim_id``'s printed statement under
    one of the reading ``options`` ("" = every reading), with its counterexample; the one with a
    counterexample first; None when the audit fails none.

    ``steps``: the audit's step records (step id -> record; default: the recorded audit's,
    :func:`audit_steps`)."""
    if steps is None:
        steps = audit_steps(claim_id)
    hits = [{"id": sid, **st} for sid, st in steps.items()
            if st.get("claim") == claim_id and st.get("statement")
            and st.get("status") in ("wrong", "loose")
            and st.get("reading", "") in set(options) | {""}]
    # the step where the claim's finding is recorded decides it (rule 5), a statement step or not:
    # El hanchi's criterion (17) is false by its promise (sgfs.17.unlikely), not by the slip in
    # its threshold that the statement step shows
    pref = steps.get(prefer) if prefer else None
    if (pref is not None and pref.get("status") in ("wrong", "loose")
            and prefer not in {h["id"] for h in hits}):
        hits.append({"id": prefer, **pref})
    # the step where the claim's erratum is recorded (its severity's ``see``) first, then one with a
    # counterexample
    hits.sort(key=lambda st: (st["id"] != prefer,
                              not (st.get("outcome") or {}).get("counterexample"),
                              st["status"] != "wrong", st["id"]))
    return hits[0] if hits else None


def load_doc(name: str) -> dict:
    """A recorded document (:data:`VERDICTS_DOC`, :data:`AUDIT_DOC`) of every document, merged
    (:func:`verify.running.store.read`; ``{}`` when none is readable)."""
    from .store import read

    return read(name)


def verdicts_document(reports, mode: str, seed: int, stored: dict | None = None) -> dict:
    """docs/verdicts.json: the final status of every claim (:func:`final_status`), the
    verdict of each full reading, the failing readings and the empirical part alone.

    ``stored``: claim -> its stored run at the paper's settings
    (``verify.running.reproductions.stored_full_run``). Such a claim's status, readings and failing
    readings
    are the stored run's, so that every reader of this document (``verify list``, the coverage
    table, audit.json, ERRATA.md, the docs site) shows the status at the paper's settings; this
    run's own verdict (a quick smoke
    test) is kept under ``smoke_tests``."""
    stored = {cid: st for cid, st in (stored or {}).items() if st is not None}
    verdicts = {r.claim: r.verdict for r in reports}
    failing = {r.claim: r.failing_readings for r in reports if r.failing_readings}
    final = {r.claim: r.readings for r in reports}
    emp = {r.claim: r.empirical_readings for r in reports}
    smoke = {}
    for cid, st in stored.items():
        if cid not in verdicts:
            continue
        smoke[cid] = {"verdict": verdicts[cid], "readings": emp[cid]}
        verdicts[cid] = st["verdict"]
        final[cid] = emp[cid] = dict(st.get("final_readings") or {})
        failing.pop(cid, None)
        if st.get("failing_readings"):
            failing[cid] = list(st["failing_readings"])
    rules = {}
    for r in reports:
        st = r.status
        d = {k: v for k, v in st.as_json().items() if k not in ("status", "failing_readings") and v}
        if r.claim in stored:
            d = {k: v for k, v in (stored[r.claim].get("reading_rules") or {}).items() if v}
        if d:
            rules[r.claim] = d
    doc = {"mode": mode, "seed": seed, "verdicts": verdicts, "failing_readings": failing,
           "final_readings": final,
           "readings": emp, "reading_rules": rules,
           "severity": {r.claim: f for r in reports
                        for f in [r.severity_fields(verdicts[r.claim])] if f["severity"]}}
    if smoke:
        doc["smoke_tests"] = smoke
    return doc


def write_verdicts(reports, mode: str, seed: int, stored: dict | None = None) -> list[str]:
    """Record the reports' verdicts.json, each document's in its own store
    (:mod:`verify.running.store`:
    the built-in documents' in verify/data/ of a source checkout).

    Returns the files written; a claim whose document is recorded nowhere (a built-in document
    of an installed toolkit) is left out.
    """
    from .store import plan, write

    groups, _ = plan([r.claim for r in reports])
    out = []
    for directory, ids in groups.items():
        mine = [r for r in reports if r.claim in set(ids)]
        doc = verdicts_document(mine, mode, seed,
                                {c: st for c, st in (stored or {}).items() if c in set(ids)})
        out.append(str(write(directory, VERDICTS_DOC, doc)))
    return out
