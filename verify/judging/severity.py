"""Severity: the referee's judgement of each finding, a second axis beside the status.

Every audit step whose status is ``wrong`` or ``loose`` and every claim whose final status
is ``violated`` or ``depends on reading`` gets one severity (docs/methods.md, section 11):

``false``  false under every reading the document supports, including its evident intent;
``gap``    a proof step fails but the result it serves survives (the reason gives the repair);
``slip``   a typo, notation, index, cross-reference or bracket slip whose intended version is
           evident from the document itself and holds;
``loose``  true but weaker than printed ("=" that is only "<=", a constant off on the safe side);
``note``   hedged or heuristic prose that fails only when read strictly; not an error.

The judgements are data, one ``severity.json`` per document package::

    {"steps":  {step_id:  {"severity", "reason", "quote", "see"?}},
     "claims": {claim_id: {"severity", "reason", "quote", "see"?,
                           "status_should_be"?, "why_status"?}}}

``quote`` is verbatim from the document (whitespace aside) and decides the severity: for a
``slip`` the sentence showing the intent, for a ``note`` the hedge, for a ``gap`` the result
that survives.  ``see`` names the entry (step or claim, any document) where a shared erratum
is recorded once, so that it is referenced rather than counted again.  ``status_should_be``
records a final status that the reading rules give and the recorded status does not, with
``why_status`` quoting the document.

This module names no claim and no document: everything document-specific is in the data.
"""

from __future__ import annotations

import functools
from collections import Counter

from ..model import DEPENDS, HOLDS, INCONCLUSIVE, VIOLATED

SEVERITIES = ("false", "gap", "slip", "loose", "note")
#: one line per severity (docs/methods.md)
MEANING = {"false": "false under every reading the document supports, including its evident intent",
           "gap": "a proof step fails but the result it serves survives (the reason gives the "
                  "repair)",
           "slip": "a typo, notation, index, cross-reference or bracket slip; the intended "
                   "version, evident from the document, holds",
           "loose": "true but weaker than printed ('=' that is only '<=', a constant off on the "
                    "safe side)",
           "note": "hedged or heuristic prose that fails only when read strictly; not an error"}
#: step statuses and final statuses that need a severity
FINDING_STEP_STATUSES = ("wrong", "loose")
FINDING_CLAIM_STATUSES = (VIOLATED, DEPENDS)
FINAL_STATUSES = (HOLDS, VIOLATED, DEPENDS, INCONCLUSIVE)
FILE = "severity.json"
ENTRY_KEYS = {"steps": ("severity", "reason", "quote", "see"),
              "claims": ("severity", "reason", "quote", "see", "status_should_be", "why_status")}


def _plugins() -> dict:
    """package -> its :class:`bounds.plugins.Plugin`: the registered document plugins
    (verify.registry.plugins).
    """
    from ..registry import plugins

    return {p.module: p for p in plugins()}


def _packages() -> tuple[str, ...]:
    """The registered document packages (the ``mcsa_verify.claims`` entry points), in order."""
    return tuple(_plugins())


def _file(package: str, name: str):
    """A data file of a registered document package, found without importing the package (importing
    it registers nothing now, but its parents' imports stay cheap); None when it carries no such
    file (a plain
    module plugin carries none)."""
    from bounds.plugins import CLAIMS_GROUP, Plugin

    plugin = _plugins().get(package) or Plugin(package, CLAIMS_GROUP, package)
    return plugin.data_file(name)


def load(packages=None) -> dict[str, dict]:
    """package -> its severity data (``{"steps": {}, "claims": {}}`` when it has none), each
    file valid against its schema (``severity.schema.json``, :func:`bounds.contract.read`: a
    :class:`bounds.contract.DataError` names the file, the entry and the field otherwise)."""
    from bounds.contract import read

    out = {}
    for p in packages or _packages():
        f = _file(p, FILE)
        out[p] = read(f, FILE, package=p) if f is not None else {"steps": {}, "claims": {}}
    return out


def document_of(package: str) -> str | None:
    """The document key (``"001"``) of a document package, from its coverage sections (None without
    them).
    """
    from bounds.plugins import CLAIMS_GROUP, Plugin

    from ..registry import document_of as doc

    return doc(_plugins().get(package) or Plugin(package, CLAIMS_GROUP, package))


def _note_on_holds(entry, status) -> bool:
    """Whether a claim's entry is a note on a claim that holds: its failing readings are the
    strict readings of hedged prose (reading rule 2) or readings outside the document's setting
    (rule 3), and the note is shown beside ``holds`` (docs/methods.md, section 11)."""
    return status == HOLDS and isinstance(entry, dict) and entry.get("severity") == "note"


def lookup(data: dict[str, dict], kind: str, ident: str) -> dict | None:
    """The entry of a step (``kind="steps"``) or claim (``"claims"``), whichever package holds
    it.
    """
    for d in data.values():
        if ident in d.get(kind, {}):
            return d[kind][ident]
    return None


def counts(data: dict[str, dict], kind: str = "steps") -> dict[str, Counter]:
    """package -> Counter of severities of its ``kind`` entries."""
    return {p: Counter(e["severity"] for e in d.get(kind, {}).values()) for p, d in data.items()}


def problems(data: dict[str, dict], step_status: dict[str, str], claim_status: dict[str, str],
             step_document: dict[str, str], claim_document: dict[str, str],
             package_document: dict[str, str]) -> list[str]:
    """Everything wrong with the severity data, one line each ([] when it is complete).

    ``step_status``/``claim_status``: the recorded statuses (audit.json, verdicts.json);
    ``step_document``/``claim_document``: each one's document key; ``package_document``:
    each package's document key."""
    out = []
    ids: dict[str, dict] = {kind: {} for kind in ("steps", "claims")}
    for p, d in data.items():
        if set(d) - {"steps", "claims"}:
            out.append(f"{p}: unknown top-level keys {sorted(set(d) - {'steps', 'claims'})}")
        for kind in ("steps", "claims"):
            for i in d.get(kind, {}):
                if i in ids[kind]:
                    out.append(f"{kind[:-1]} {i}: in {ids[kind][i]} and in {p}")
                ids[kind][i] = p
    need = {"steps": {s for s, st in step_status.items() if st in FINDING_STEP_STATUSES},
            "claims": {c for c, st in claim_status.items() if st in FINDING_CLAIM_STATUSES}}
    status = {"steps": step_status, "claims": claim_status}
    document = {"steps": step_document, "claims": claim_document}
    for kind in ("steps", "claims"):
        for i in sorted(need[kind] - set(ids[kind])):
            out.append(f"{kind[:-1]} {i} ({status[kind][i]}): no severity")
        for i in sorted(set(ids[kind]) - need[kind]):
            if kind == "claims" and _note_on_holds(data[ids[kind][i]][kind][i],
                                                   status[kind].get(i)):
                continue  # a claim that holds with a note (reading rules 2 and 3)
            out.append(
                f"{kind[:-1]} {i}: a severity although its status is "
                f"{status[kind].get(i, 'not recorded')}")
        for i, p in ids[kind].items():
            e = data[p][kind][i]
            where = f"{kind[:-1]} {i}"
            if not isinstance(e, dict):
                out.append(f"{where}: not an object")
                continue
            if set(e) - set(ENTRY_KEYS[kind]):
                out.append(f"{where}: unknown keys {sorted(set(e) - set(ENTRY_KEYS[kind]))}")
            if e.get("severity") not in SEVERITIES:
                out.append(f"{where}: severity {e.get('severity')!r} not in {SEVERITIES}")
            for k in ("reason", "quote"):
                if not isinstance(e.get(k), str) or len(e[k].strip()) < 10:
                    out.append(f"{where}: {k} missing or shorter than 10 characters")
            if i in document[kind] and document[kind][i] != package_document.get(p):
                out.append(f"{where}: belongs to document {document[kind][i]}, recorded in {p}")
            see = e.get("see")
            if see is not None:
                if see == i:
                    out.append(f"{where}: 'see' names itself")
                elif see not in ids["steps"] and see not in ids["claims"]:
                    out.append(f"{where}: 'see' target {see!r} has no severity entry")
            if kind == "claims" and ("status_should_be" in e or "why_status" in e):
                should = e.get("status_should_be")
                if should is not None and should not in FINAL_STATUSES:
                    out.append(f"{where}: status_should_be {should!r} not in {FINAL_STATUSES}")
                if should is not None and should == status["claims"].get(i):
                    out.append(f"{where}: status_should_be equals the recorded status {should!r}")
                if not isinstance(e.get("why_status"), str) or len(e["why_status"].strip()) < 20:
                    out.append(f"{where}: status judgement without a why_status")
    return out


def _norm(s: str) -> str:
    return " ".join(s.split())


def quote_problems(data: dict[str, dict], texts: dict[str, str],
                   package_document: dict[str, str]) -> list[str]:
    """Quotes that are not verbatim (whitespace-normalised) in their package's document;
    ``texts``: document key -> the document's text."""
    norm = {k: _norm(v) for k, v in texts.items()}
    out = []
    for p, d in data.items():
        text = norm.get(package_document[p])
        if text is None:
            out.append(f"{p}: no text for document {package_document[p]}")
            continue
        for kind in ("steps", "claims"):
            for i, e in d.get(kind, {}).items():
                if _norm(e.get("quote", "")) not in text:
                    out.append(f"{kind[:-1]} {i}: quote not in document {package_document[p]}: "
                               f"{e.get('quote', '')[:60]!r}")
    return out


# ----------------------------------------------------------------------------- in the outputs
@functools.cache
def loaded() -> dict[str, dict]:
    """:func:`load` once per process (every output reads the same data)."""
    return load()


@functools.cache
def certificate_names() -> frozenset[str]:
    """The ids (steps and claims) that have a certificate (``python -m verify certificate ID``)."""
    try:
        from .certindex import certificates

        return frozenset(certificates())
    except Exception:  # a broken certificates module must not hide the findings; tests catch it
        return frozenset()


def fields(kind: str, ident: str, status: str | None = None) -> dict:
    """The severity of a step (``kind="steps"``) or claim (``"claims"``) as the outputs show it:
    ``severity``, ``severity_reason``, ``severity_quote``, ``see`` and ``certificate`` (the
    command that writes its certificate, or None).  {} when ``status`` is not a finding's
    (a step not wrong/loose, a claim that holds but for a note) or no severity is recorded."""
    e = lookup(loaded(), kind, ident)
    if e is None:
        return {}
    if (status is not None
        and status not in (FINDING_STEP_STATUSES if kind == "steps" else FINDING_CLAIM_STATUSES)
            and not (kind == "claims" and _note_on_holds(e, status))):
        return {}
    return {"severity": e["severity"], "severity_reason": e["reason"], "severity_quote": e["quote"],
            "see": e.get("see"),
            "certificate": (f"python -m verify certificate {ident}"
                            if ident in certificate_names() else None)}


def count_text(severities) -> str:
    """'2 false, 1 gap, ...' in the fixed order (false first), only the severities present."""
    c = Counter(s for s in severities if s)
    return ", ".join(f"{c[s]} {s}" for s in SEVERITIES if c[s]) or "none"


def reason_line(f: dict) -> str:
    """The one-line reason of a severity with its deciding quote."""
    if not f:
        return ""
    q = " ".join(f["severity_quote"].split())
    q = q if len(q) <= 160 else q[:157] + "..."
    return f"{f['severity']}: {f['severity_reason']} (deciding sentence: \"{q}\")" + (
        f" [recorded once at {f['see']}]" if f.get("see") else "")


def order_key(severity: str | None) -> int:
    """Sort key: false, then gap, then the rest (slip, loose, note), then none."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)
