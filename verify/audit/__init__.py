"""Proof audit: ``python -m verify audit [CLAIM] [--json | --markdown]``.

Every displayed step of the documents' proofs is a :class:`~verify.audit.engine.Step`
with a status (exact, valid, loose, wrong, unchecked) decided by a check.  The steps are
declared by the claim packages (``verify/documents/<document>/proofs.py`` for the built-in
documents; any package of the ``mcsa_verify.claims`` entry-point group, see
:mod:`verify.registry`).  ``docs/ERRATA.md`` and the packaged ``verify/data/audit.json``
are generated from this table (:func:`errata_markdown`, :func:`audit_document`) and a test
fails when the committed files differ.
"""

from __future__ import annotations

import json

from bounds.references import ORDER, REFERENCES

from .. import core
from ..registry import load

from .engine import EXACT, LOOSE, SEVERITY, STEPS, UNCHECKED, VALID, WRONG, status_with_affected


def rows(claim: str | None = None):
    """One dict per audited step (of ``claim``, or of every claim): status, evidence, correction."""
    load()
    out = []
    for s in STEPS.values():
        if claim and s.claim != claim:
            continue
        o = s.run()
        st, aff = status_with_affected(s)
        out.append({"id": s.id, "claim": s.claim, "seed": s.seed, "location": s.location, "lhs": s.lhs,
                    "relation": s.relation, "rhs": s.rhs, "justification": s.justification, "status": st,
                    "affected": aff, "statement": s.statement, "detail": o.detail, "method": o.method,
                    "counterexample": o.counterexample, "correction": o.correction, "gap": o.gap,
                    "depends": list(s.depends), "reading": s.reading, "instances": o.instances})
    return out


def claim_statuses() -> dict[str, str]:
    """Per claim: the worst step status, and whether its final statement survives."""
    per = {}
    for r in rows():
        per.setdefault(r["claim"], []).append(r)
    out = {}
    for c, rs in per.items():
        worst = max(rs, key=lambda r: SEVERITY[r["status"]])["status"]
        stmt = [r for r in rs if r["statement"]]
        survives = all(r["status"] in (EXACT, VALID) for r in stmt) if stmt else None
        parts = [f"{sum(r['status'] == s for r in rs)} {s}" for s in (WRONG, LOOSE, UNCHECKED)
                 if any(r["status"] == s for r in rs)]
        label = "clean" if worst in (EXACT, VALID) else ", ".join(parts)
        if survives is not None:
            read_as = sorted({r["reading"] for r in stmt if r["status"] not in (EXACT, VALID) and r["reading"]})
            label += "; statement " + ("survives" if survives else "fails") + (
                f" (read as: {'; '.join(read_as)})" if read_as and not survives else "")
        out[c] = label
    for cid, v in core.REGISTRY.items():  # claims that declare why they have no proof to audit
        if v.proof:
            out.setdefault(cid, v.proof)
    return out


def statement_readings() -> dict[str, dict[str, str]]:
    """Per claim, the audit's verdict on its printed statement under each reading option
    ("" = every reading): "fails" (a statement step is wrong or loose), "survives" (exact or
    valid) or "unchecked".  This is the audit's input to :func:`verify.core.final_status`."""
    out: dict[str, dict[str, str]] = {}
    for r in rows():
        if not r["statement"]:
            continue
        d = out.setdefault(r["claim"], {})
        v = "fails" if r["status"] in (WRONG, LOOSE) else "survives" if r["status"] in (EXACT, VALID) else "unchecked"
        prev = d.get(r["reading"])
        order = {"fails": 2, "unchecked": 1, "survives": 0}
        if prev is None or order[v] > order[prev]:
            d[r["reading"]] = v
    return out


def final_statuses() -> dict[str, "core.Status"]:
    """Every claim's final status from :func:`verify.core.final_status`: the audit's statement
    verdicts computed now, the empirical per-reading verdicts from docs/verdicts.json."""
    import bounds

    emp = core.load_doc(core.VERDICTS_DOC).get("readings", {})
    load()
    stm = statement_readings()
    return {cid: core.final_status(cid, emp.get(cid), stm.get(cid, {})) for cid in bounds.ids()}


def audit_document() -> dict:
    """docs/audit.json: per claim the step summary, the statement verdict per reading and the
    final status; per step its status and the number of instances it was checked on."""
    labels, stm, fin = claim_statuses(), statement_readings(), final_statuses()
    claims = {}
    for cid in sorted(set(labels) | set(fin)):
        st = fin.get(cid)
        claims[cid] = {"audit": labels.get(cid, "no proof in its document"), "statement": stm.get(cid, {}),
                       "final_status": st.status if st else None,
                       "failing_readings": list(st.failing) if st else []}
    steps = {r["id"]: {"claim": r["claim"], "status": r["status"], "affected": r["affected"], "method": r["method"],
                       "instances": r["instances"], "reading": r["reading"]} for r in rows()}
    return {"claims": claims, "steps": steps}


def _num(v):
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_num(x) for x in v) + "]"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f"{f:.6g}"


def _fmt_ce(ce):
    if not ce:
        return ""
    at = ", ".join(f"{k}={_num(v)}" for k, v in ce.get("at", {}).items())
    return f"at {at}: lhs = {ce['lhs']:.6g}, rhs = {ce['rhs']:.6g}"


def table_text(rs) -> str:
    lines = []
    w = max(len(r["id"]) for r in rs)
    for r in rs:
        flag = " (affected)" if r["affected"] else ""
        lines.append(f"{r['id']:<{w}}  {r['status']:<9}{flag:<11} {r['relation']:>2}  {r['location']}  [{r['method']}]")
        lines.append(f"{'':<{w}}    {r['lhs']}  {r['relation']}  {r['rhs']}   [{r['justification']}]")
        lines.append(f"{'':<{w}}    -> {r['detail']}")
        if r["counterexample"]:
            lines.append(f"{'':<{w}}    counterexample {_fmt_ce(r['counterexample'])}")
        if r["correction"]:
            lines.append(f"{'':<{w}}    correction: {r['correction']}")
    return "\n".join(lines)


def markdown(rs) -> str:
    out = ["| step | status | relation (as printed) | justification | finding |", "|---|---|---|---|---|"]
    for r in rs:
        st = r["status"] + (" (affected)" if r["affected"] else "")
        rel = f"`{r['lhs']}` {r['relation']} `{r['rhs']}`".replace("|", "\\|")
        find = r["detail"].replace("|", "\\|")
        if r["counterexample"]:
            find += "; counterexample " + _fmt_ce(r["counterexample"]).replace("|", "\\|")
        if r["correction"]:
            find += "; correction: " + r["correction"].replace("|", "\\|")
        out.append(f"| {r['id']} ({r['location']}) | {st} | {rel} | {r['justification']} | {find} |")
    return "\n".join(out)


def errata_markdown() -> str:
    """docs/ERRATA.md: every loose or wrong step, by seed, with counterexample and correction."""
    rs = rows()
    bad = [r for r in rs if r["status"] in (WRONG, LOOSE)]
    out = ["# Errata for the documents checked",
           "",
           "Generated by `python -m verify audit --write` from the step table of `verify/audit/`; "
           "`tests/test_audit.py` fails when this file differs from what the audit produces now. "
           "Statuses: **wrong** = a counterexample exists; **loose** = printed as `=` but only an inequality holds. "
           "A step marked *affected* depends on a wrong step. Before a computed step is called exact or valid it "
           "goes through a derandomized Hypothesis search with shrinking (random points of its domain at 50 digits; "
           "steps on distributions also on random finite pi, q, discrete laws or product families with no "
           "symmetry); **Checked on** gives the number of instances. A statement step marked with a **Reading** "
           "fails only under that reading of the claim (see the final statuses at the end).",
           "",
           f"{len(rs)} steps audited: " + ", ".join(f"{sum(r['status'] == s for r in rs)} {s}"
                                                     for s in (EXACT, VALID, LOOSE, WRONG, UNCHECKED))
           + f"; {sum(r['method'] == 'reading' for r in rs)} of them settled by reading (definitions, "
             "substitutions, steps whose consequence another step computes), the rest computed.",
           ""]
    statuses = claim_statuses()
    for seed_prefix in ORDER:
        group = [r for r in bad if r["seed"].startswith(seed_prefix)]
        if not group:
            continue
        out += [f"## {REFERENCES[seed_prefix][1]}", ""]
        for r in group:
            out.append(f"### `{r['id']}` — {r['status']}{' (affected)' if r['affected'] else ''}")
            out.append("")
            out.append(f"- **Where:** {r['location']} (claim `{r['claim']}`: {statuses.get(r['claim'], '')})")
            out.append(f"- **Printed:** `{r['lhs']}` {r['relation']} `{r['rhs']}` — justification: {r['justification']}")
            out.append(f"- **Finding:** {r['detail']}")
            if r["counterexample"]:
                out.append(f"- **Counterexample:** {_fmt_ce(r['counterexample'])}")
            if r["gap"]:
                out.append(f"- **Gap:** {r['gap']}")
            if r["reading"]:
                out.append(f"- **Reading:** the statement read as: {r['reading']}")
            out.append(f"- **Checked on:** {_instances(r)}")
            if r["correction"]:
                out.append(f"- **Correction:** {r['correction']}")
            out.append("")
    out += ["## Final status of every claim", "",
            "From `verify.core.final_status`, the one function every summary uses (`python -m verify all`, "
            "`python -m verify list`, docs/verdicts.json, docs/audit.json and this file): a claim is **violated** "
            "only when it fails under every reasonable reading; **depends on reading** names the readings that "
            "fail. A reading fails when its checks (docs/verdicts.json) fail or when the audit finds its printed "
            "statement wrong.", "",
            "| claim | final status | failing readings | audit |", "|---|---|---|---|"]
    for cid, st in final_statuses().items():
        fail = "; ".join(st.failing) or "—"
        out.append(f"| `{cid}` | {st.status} | {fail} | {statuses.get(cid, 'no proof in its document')} |".replace("||", "\\|\\|"))
    out += ["", "## Instances per step", "",
            "How many instances each computed step was checked on (random points at 50 digits, exact instances, "
            "Hypothesis examples); steps settled by reading have none.", "",
            "| step | status | method | instances |", "|---|---|---|---|"]
    for r in rs:
        out.append(f"| `{r['id']}` | {r['status']} | {r['method']} | {r['instances'] if r['instances'] is not None else '—'} |")
    out.append("")
    return "\n".join(out)


def _instances(r) -> str:
    if r["instances"] is None:
        return "settled by reading (no computed instances)" if r["method"] == "reading" else f"method {r['method']}"
    return f"{r['instances']} instances ({r['method']})"


def cmd_audit(argv):
    from bounds.clikit import Parser as _Parser, UsageError

    ap = _Parser(prog="python -m verify audit", description=(
        "Step-by-step audit of the documents' proofs: each displayed step is checked (sympy, 50-digit evaluation, "
        "Hypothesis search, exact finite-state or Gaussian instances) and gets a status: exact, valid, loose "
        "(printed '=' but only an inequality holds), wrong (with a counterexample and the correction) or unchecked."))
    ap.add_argument("claim", nargs="?", help="one claim (default: all)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true")
    g.add_argument("--markdown", action="store_true", help="a Markdown table")
    g.add_argument("--errata", action="store_true", help="print docs/ERRATA.md as generated now")
    g.add_argument("--write", action="store_true",
                   help="write docs/ERRATA.md and verify/data/audit.json (from a source checkout only)")
    a = ap.parse_args(argv)
    if a.write:
        from ..resources import data_file, writable

        errata, adoc = writable("docs/ERRATA.md"), data_file(core.AUDIT_DOC)  # refused from an installed package
        errata.write_text(errata_markdown())
        adoc.write_text(core.dumps(audit_document(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {errata} and {adoc}")
        return 0
    load()
    if a.claim and a.claim not in {s.claim for s in STEPS.values()}:
        import bounds

        if a.claim in bounds.ids():
            raise UsageError(f"{a.claim} has no proof to audit in its document")
        raise UsageError(f"unknown claim {a.claim!r}; audited: {', '.join(sorted({s.claim for s in STEPS.values()}))}")
    if a.errata:
        print(errata_markdown(), end="")
        return 0
    rs = rows(a.claim)
    if a.json:
        print(core.dumps({"claim": a.claim, "steps": rs, "claims": audit_document()["claims"]}, default=str))
    elif a.markdown:
        print(markdown(rs))
    else:
        print(table_text(rs))
        counts = {s: sum(r["status"] == s for r in rs) for s in (EXACT, VALID, LOOSE, WRONG, UNCHECKED)}
        print("\n" + ", ".join(f"{v} {k}" for k, v in counts.items()) + f" of {len(rs)} steps; "
              f"{sum(r['affected'] for r in rs)} affected by a wrong step; "
              f"{sum(r['method'] == 'reading' for r in rs)} settled by reading.")
    return 0


from .._callable import callable_module  # noqa: E402

callable_module(__name__, rows)  # verify.audit(claim) gives the steps, also once this package is imported
