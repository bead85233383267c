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

from bounds.references import citation, document_key, documents
from mcsa_cli import atomic_write, dumps, md_cell, number_text

from ..decide import final_status
from ..model import Status
from ..registry import REGISTRY, load
from ..running.docio import AUDIT_DOC, VERDICTS_DOC, load_doc
from .engine import CACHE, STEPS, CachePolicy, status_with_affected
from .outcome import EXACT, LOOSE, SEVERITY, UNCHECKED, VALID, WRONG, Outcome


def _closure(ids) -> list[str]:
    """``ids`` and every step they depend on (transitively), in declaration order."""
    want, stack = set(), list(ids)
    while stack:
        i = stack.pop()
        if i in want or i not in STEPS:
            continue
        want.add(i)
        stack.extend(STEPS[i].depends)
    return [i for i in STEPS if i in want]


def _compute(ids: list[str]) -> dict:
    """Worker: compute the outcomes of ``ids`` afresh (loads the registry itself)."""
    load()
    return {i: STEPS[i].compute().to_json() for i in ids}


def ensure(claim: str | set[str] | None = None, workers: int | None = None,
           progress: bool = True) -> int:
    """Make every step of ``claim`` (or of every claim), and every step they depend on, have
    an outcome: read from the cache where the stored digest matches, else computed -- on
    ``workers`` processes (:func:`mcsa_cli.pool.local_pool`) when more than one step is
    missing.  The outcomes do not depend on ``workers`` (each search is seeded by its step id).

    Parameters
    ----------
    claim : str, optional
        One claim (default: every claim).
    workers : int, optional
        Local processes (default: the CPUs, at most the steps missing); where workers cannot
        start, the steps are computed in this process.
    progress : bool
        A progress bar on stderr.

    Returns
    -------
    int
        The number of steps computed.
    """
    import os

    from mcsa_cli.pool import can_spawn

    from . import cache

    load()
    ids = _closure([s.id for s in STEPS.values() if _picked(s.claim, claim)])
    todo = []
    for i in ids:
        s = STEPS[i]
        if s._outcome is not None:
            continue
        stored = cache.lookup(i, s.digest) if CACHE.get().read else None
        if stored is not None:
            s._outcome = Outcome.from_json(stored)
        else:
            todo.append(i)
    if not todo:
        return 0
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    if not can_spawn():  # e.g. a script on stdin: spawned workers cannot start
        workers = 1
    bar = _bar(len(todo), progress)
    try:
        if workers > 1:  # workers that cannot start (a __main__ they cannot import): serially below
            _parallel(todo, workers, bar)
        # what is still missing, in this process (the outcomes do not depend on where)
        for i in todo:
            if STEPS[i]._outcome is None:
                STEPS[i].run()
                bar.update(1)
    finally:
        bar.close()
    return len(todo)


def _parallel(todo, workers, bar) -> None:
    """Compute the steps ``todo`` on ``workers`` local processes (:func:`mcsa_cli.pool.local_pool`:
    Ctrl-C stops them at once; a pool whose workers die or cannot start ends quietly, and
    :func:`ensure` computes what is missing in this process)."""
    from mcsa_cli.pool import local_pool, unordered

    from . import cache

    with local_pool(workers, broken="ignore") as pool:
        for _, got in unordered(pool, _compute, [[i] for i in todo]):
            for i, d in got.items():
                s = STEPS[i]
                s._outcome = Outcome.from_json(d)
                if CACHE.get().write:
                    cache.remember(i, s.digest, d)
            bar.update(1)


def _bar(total, progress):
    import sys

    from tqdm import tqdm

    return tqdm(total=total, desc="audit: steps computed", unit="step", file=sys.stderr,
                disable=not progress or None, leave=False)


def _picked(cid: str, claim) -> bool:
    """Whether ``cid`` is selected by ``claim``: None (every claim), one id, or a set of ids."""
    return not claim or (cid == claim if isinstance(claim, str) else cid in claim)


def rows(claim: str | None = None, workers: int | None = None):
    """One dict per audited step (of ``claim``, or of every claim; a set of claims: theirs):
    status, evidence, correction,
    and how the status was established (``established_by``, ``evaluations``, ``best_ratio``,
    ``regimes``).  Outcomes come from the cache when the code is unchanged (:func:`ensure`)."""
    load()
    ensure(claim, workers)
    out = []
    for s in STEPS.values():
        if not _picked(s.claim, claim):
            continue
        o = s.run()
        st, aff = status_with_affected(s)
        out.append({"id": s.id, "claim": s.claim, "seed": s.seed, "location": s.location,
                    "lhs": s.lhs,
                    "relation": s.relation, "rhs": s.rhs, "justification": s.justification,
                    "status": st,
                    "affected": aff, "statement": s.statement, "detail": o.detail,
                    "method": o.method,
                    "counterexample": o.counterexample, "correction": o.correction, "gap": o.gap,
                    "depends": list(s.depends), "reading": s.reading, "instances": o.instances,
                    "established_by": o.established_by, "evaluations": o.evaluations,
                    "best_ratio": o.best_ratio,
                    "regimes": o.regimes, "closest": o.closest,
                    "correction_status": o.correction_status, "assumes": s.assumes,
                    **_severity(s.id, st)})
    return out


def _severity(step_id: str, status: str) -> dict:
    """A wrong/loose step's severity fields (verify.judging.severity.fields), None-valued
    otherwise."""
    from ..judging.severity import fields

    f = fields("steps", step_id, status)
    return {k: f.get(k) for k in ("severity", "severity_reason", "severity_quote", "see",
                                  "certificate")}


def claim_statuses(claims=None) -> dict[str, str]:
    """Per claim (of ``claims``, default every one): the worst step status, and whether its
    final statement survives."""
    per: dict[str, list] = {}
    for r in rows(claims):
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
            read_as = sorted({r["reading"] for r in stmt if r["status"] not in (EXACT, VALID)
                              and r["reading"]})
            label += "; statement " + ("survives" if survives else "fails") + (
                f" (read as: {'; '.join(read_as)})" if read_as and not survives else "")
            # the readings no statement step reads: the final status weighs them by the checks
            unread = [k for k, val in statement_map(c).items() if val == NO_STATEMENT_STEP]
            if survives and unread:
                checked = sorted({r["reading"] for r in stmt if r["reading"]})
                label += ((f" read as: {'; '.join(checked)}" if checked else "")
                          + f"; not audited as: {'; '.join(unread)} (the checks decide it)")
        out[c] = label
    for cid, v in REGISTRY.items():  # claims that declare why they have no proof to audit
        if v.proof:
            out.setdefault(cid, v.proof)
    return out


def statement_readings(claims=None) -> dict[str, dict[str, str]]:
    """Per claim, the audit's verdict on its printed statement under each reading option
    ("" = every reading): "fails" (a statement step is wrong or loose), "survives" (exact or
    valid) or "unchecked".  This is the audit's input to :func:`verify.decide.final_status`."""
    out: dict[str, dict[str, str]] = {}
    for r in rows(claims):
        if not r["statement"]:
            continue
        d = out.setdefault(r["claim"], {})
        v = ("fails" if r["status"] in (WRONG, LOOSE) else "survives"
             if r["status"] in (EXACT, VALID) else "unchecked")
        prev = d.get(r["reading"])
        order = {"fails": 2, "unchecked": 1, "survives": 0}
        if prev is None or order[v] > order[prev]:
            d[r["reading"]] = v
    return out


#: the audit's verdict on a reading under which no statement step is declared: the final status
#: weighs that reading by the checks alone
NO_STATEMENT_STEP = "no statement step"


def statement_map(claim: str, raw: dict[str, str] | None = None) -> dict[str, str]:
    """The audit's verdict on ``claim``'s printed statement under each reading the final status
    weighs: every reading option of the claim (the statement as printed when it has none), a
    statement step shared by all readings (``""``) counted under each, the worst verdict kept;
    :data:`NO_STATEMENT_STEP` where none applies.

    ``raw`` is :func:`statement_readings`'s entry for the claim (default: computed now).  The
    map is what ``audit.json`` records and what :func:`verify.decide.final_status` reads (a
    shared step applies to every option there too, so the status is the same).
    """
    from ..model import AS_PRINTED

    if raw is None:
        raw = statement_readings().get(claim, {})
    v = REGISTRY.get(claim)
    readings = (v.readings if v is not None and v.readings else ()) or (AS_PRINTED,)
    order = {"fails": 2, "unchecked": 1, "survives": 0}
    out = {}
    for r in readings:
        found = [raw[k] for k in (r.name, "") if k in raw]
        out[r.name] = max(found, key=order.__getitem__) if found else NO_STATEMENT_STEP
    return out


def final_statuses(claims=None) -> dict[str, Status]:
    """Every claim's final status from :func:`verify.decide.final_status`: the audit's statement
    verdicts computed now, the empirical per-reading verdicts from docs/verdicts.json."""
    import bounds

    emp = load_doc(VERDICTS_DOC).get("readings", {})
    load()
    stm = statement_readings(claims)
    return {cid: final_status(cid, emp.get(cid), stm.get(cid, {})) for cid in bounds.ids()
            if _picked(cid, claims)}


def audit_document(claims=None) -> dict:
    """docs/audit.json: per claim the step summary, the statement verdict per reading and the
    final status; per step its status and the number of instances it was checked on (of
    ``claims``, a set of claim ids; default every claim)."""
    labels, stm = claim_statuses(claims), statement_readings(claims)
    fin = final_statuses(claims)
    claims = {}
    for cid in sorted(set(labels) | set(fin)):
        st = fin.get(cid)
        v = REGISTRY.get(cid)
        claims[cid] = {"audit": labels.get(cid, "no proof in its document"),
                       "statement": statement_map(cid, stm.get(cid, {})),
                       "statement_ruled_out": [r.name for r in (v.readings if v else ())
                                               if r.ruled_out],
                       "final_status": st.status if st else None,
                       "failing_readings": list(st.failing) if st else [],
                       "degenerate_readings": list(st.degenerate) if st else [],
                       "ruled_out_readings": list(st.ruled_out) if st else [],
                       "strict_only_readings": list(st.strict_only) if st else [],
                       **_claim_severity(cid, st.status if st else None)}
    steps = {r["id"]: {"claim": r["claim"], "status": r["status"], "statement": r["statement"],
                       "affected": r["affected"], "method": r["method"],
                       "instances": r["instances"], "reading": r["reading"],
                       "established_by": r["established_by"],
                       "evaluations": r["evaluations"], "best_ratio": r["best_ratio"],
                       "severity": r["severity"], "severity_reason": r["severity_reason"],
                       "severity_quote": r["severity_quote"], "see": r["see"],
                       "certificate": r["certificate"],
                       **({"assumes": r["assumes"]} if r["assumes"] else {}),
                       "digest": STEPS[r["id"]].digest, "outcome": STEPS[r["id"]].run().to_json()}
             for r in rows(claims)}
    return {"claims": claims, "steps": steps}


def _claim_severity(cid: str, status: str | None) -> dict:
    from ..judging.severity import fields

    f = fields("claims", cid, status) if status is not None else {}
    return {k: f.get(k) for k in ("severity", "severity_reason", "severity_quote", "see",
                                  "certificate")}


def _num(v):
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_num(x) for x in v) + "]"
    return number_text(v, ".6g", none="None")


def _fmt_ce(ce):
    if not ce:
        return ""
    at = ", ".join(f"{k}={_num(v)}" for k, v in ce.get("at", {}).items())
    return f"at {at}: lhs = {ce['lhs']:.6g}, rhs = {ce['rhs']:.6g}"


def table_text(rs, width: int | None = None) -> str:
    """The steps as the terminal shows them: a step's id, status and location on one line,
    its relation and findings on the lines below, aligned after the longest id when
    ``width`` (the terminal's; None: unlimited) leaves their longest word room to wrap
    there (:func:`mcsa_cli.wrap` continues a line 2 more characters in), else indented by 4
    so that no word is cut."""
    w = max(len(r["id"]) for r in rs)
    details = []
    for r in rs:
        d = [f"{r['lhs']}  {r['relation']}  {r['rhs']}   [{r['justification']}]",
             f"-> {r['detail']}"]
        if r.get("assumes"):
            d.append(f"holds under a condition the document does not print: {r['assumes']}")
        if r.get("severity"):
            from ..judging.severity import reason_line

            d.append(f"severity {reason_line(r)}")
            if r.get("certificate"):
                d.append(f"certificate: {r['certificate']}")
        if r["counterexample"]:
            d.append(f"counterexample {_fmt_ce(r['counterexample'])}")
        if r["correction"]:
            d.append(f"correction: {r['correction']}")
        details.append(d)
    longest = max((len(t) for d in details for line in d for t in line.split()), default=0)
    aligned = width is None or width - (w + 4 + 2) >= max(longest, 40)
    pad = w if aligned else 0
    lines = []
    for r, d in zip(rs, details):
        flag = " (affected)" if r["affected"] else ""
        lines.append(
            f"{r['id']:<{pad}}  {r['status']:<9}{flag:<11} {r['relation']:>2}  {r['location']}  "
            f"[{r['method']}]")
        lines += [f"{'':<{pad}}    {line}" for line in d]
    return "\n".join(lines)


def markdown(rs) -> str:
    """The step table in Markdown, every cell escaped (:func:`mcsa_cli.md_cell`).

    Parameters
    ----------
    rs : list of dict
        The rows of :func:`rows`.

    Returns
    -------
    str
        One header, one rule and one line per step; a '|' or a newline in a step's text
        cannot break the table.
    """
    out = ["| step | status | severity | relation (as printed) | justification | finding |",
           "|---|---|---|---|---|---|"]
    for r in rs:
        st = r["status"] + (" (affected)" if r["affected"] else "")
        find = r["detail"]
        if r["counterexample"]:
            find += "; counterexample " + _fmt_ce(r["counterexample"])
        if r["correction"]:
            find += "; correction: " + r["correction"]
        cells = (f"{r['id']} ({r['location']})", st, r.get("severity") or "—",
                 f"`{r['lhs']}` {r['relation']} `{r['rhs']}`", r["justification"], find)
        out.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
    return "\n".join(out)


def errata_markdown() -> str:
    """docs/ERRATA.md: every loose or wrong step, by seed, with counterexample and correction."""
    rs = rows()
    bad = [r for r in rs if r["status"] in (WRONG, LOOSE)]
    out = ["# Errata for the documents checked",
           "",
           "Generated by `python -m verify audit --write` from the step table of `verify/audit/`; "
           "`tests/test_audit.py` fails when this file differs from what the audit produces now. "
           "Statuses: **wrong** = a counterexample exists; **loose** = printed as `=` but only an "
           "inequality holds. A step marked *affected* depends on a wrong step. A computed step is "
           "called exact or valid only when a proof settles it (sympy on the domain, or exactness "
           "over a complete finite class) or when it survives the adversarial search: a "
           "derandomized Hypothesis search with shrinking, then differential evolution and "
           "Nelder-Mead maximising lhs/rhs over the step's whole domain and its extreme regimes "
           "(finite pi, q on 2 to 8 states with atoms, w* -> 1 and w* -> infinity, q = pi; N, k, t "
           "at both ends of their ranges), at least 1,000 evaluations a step. Every row is decided "
           "on enclosures of its two sides (exact rationals, ball arithmetic, or doubles with a "
           "proved error bound relative to the magnitudes they cancel; never a tolerance with an "
           "absolute floor): a step is wrong only where the enclosures exclude the printed "
           "relation, a row they cannot decide is counted as undecided and is never a "
           "counterexample, and an `=` that rests on such rows is *not refuted*, not proved; "
           "**Established by** gives the evidence (evaluations, the "
           "largest lhs/rhs reached, the regimes). A correction is searched the same way; one that "
           "the search breaks is withdrawn. A statement step marked with a **Reading** fails only "
           "under that reading of the claim (see the final statuses at the end).",
           "",
           f"{len(rs)} steps audited: " + ", ".join(f"{sum(r['status'] == s for r in rs)} {s}"
                                                     for s in (EXACT, VALID, LOOSE, WRONG,
                                                               UNCHECKED))
           + f"; {sum(r['method'] == 'reading' for r in rs)} of them settled by reading "
             f"(definitions, "
             "substitutions, steps whose consequence another step computes), the rest computed.",
           ""]
    statuses = claim_statuses()
    from ..judging.severity import MEANING, SEVERITIES, count_text, order_key, reason_line

    out += ["Findings by severity (the referee's judgement, `verify/documents/*/severity.json`; "
            "docs/methods.md gives the five severities and the six reading rules): "
            + count_text(r["severity"] for r in bad) + ".", ""]
    docs = documents(r["seed"] for r in bad)  # the bibliography's order, then users' documents
    for doc in docs:
        group = [r for r in bad if document_key(r["seed"]) == doc]
        out.append(f"- {citation(doc)}: {count_text(r['severity'] for r in group)}")
    out.append("")
    for sev in (*SEVERITIES, None):
        in_sev = [r for r in bad if r["severity"] == sev]
        if not in_sev:
            continue
        out += [f"## Severity `{sev}`: {MEANING[sev]}" if sev else "## No severity recorded", ""]
        for doc in docs:
            group = [r for r in in_sev if document_key(r["seed"]) == doc]
            if not group:
                continue
            out += [f"### {citation(doc, full=True)}", ""]
            for r in group:
                out.append(
                    f"#### `{r['id']}` — {r['status']}{' (affected)' if r['affected'] else ''}, "
                    f"{sev or 'no severity'}")
                out.append("")
                if sev:
                    # a quote may hold the document's own Markdown links ("[Lemma 7](#)"): shown as
                    # text
                    out.append("- **Severity:** "
                               + reason_line(r).replace("[", r"\[").replace("]", r"\]"))
                out.append(f"- **Certificate:** `{r['certificate']}`"
                           if r["certificate"] else "- **Certificate:** none")
                out.append(
                    f"- **Where:** {r['location']} (claim `{r['claim']}`: "
                    f"{statuses.get(r['claim'], '')})")
                out.append(
                    f"- **Printed:** `{r['lhs']}` {r['relation']} `{r['rhs']}` — justification: "
                    f"{r['justification']}")
                out.append(f"- **Finding:** {r['detail']}")
                if r["counterexample"]:
                    out.append(f"- **Counterexample:** {_fmt_ce(r['counterexample'])}")
                if r["gap"]:
                    out.append(f"- **Gap:** {r['gap']}")
                if r["reading"]:
                    out.append(f"- **Reading:** the statement read as: {r['reading']}")
                out.append(f"- **Established by:** {_evidence(r)}")
                if r["correction"]:
                    out.append(f"- **Correction:** {r['correction']}")
                if r["correction_status"]:
                    out.append(f"- **Correction checked:** {r['correction_status']}")
                out.append("")
    out += ["## Final status of every claim", "",
            "From `verify.decide.final_status`, the one function every summary uses (`python -m "
            "verify all`, `python -m verify list`, docs/verdicts.json, docs/audit.json and this "
            "file): a claim is **violated** only when it fails under every reasonable reading; "
            "**depends on reading** names the readings that fail. A reading fails when its checks "
            "(docs/verdicts.json) fail or when the audit finds its printed statement wrong.", "",
            "| claim | final status | severity | failing readings | audit |",
            "|---|---|---|---|---|"]
    from ..judging.severity import fields as _fields

    fins = final_statuses()
    sev_of = {cid: _fields("claims", cid, st.status) for cid, st in fins.items()}
    for cid, st in sorted(fins.items(),
                          key=lambda kv: (kv[1].status == "holds",
                                          order_key(sev_of[kv[0]].get("severity")))):
        fail = "; ".join(st.failing) or "—"
        extra = "".join(f" ({what}: {'; '.join(names)})" for what, names in
                        (("degenerate, excluded", st.degenerate),
                         ("ruled out by the document", st.ruled_out),
                         ("fails only read strictly; the hedged reading holds",
                          st.strict_only)) if names)
        found = sev_of[cid]
        sev_text = (reason_line(found) + (f"; certificate: `{found['certificate']}`"
                                          if found.get("certificate") else "")) if found else "—"
        cells = (f"`{cid}`", st.status, sev_text, fail + extra,
                 statuses.get(cid, "no proof in its document"))
        out.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
    out += ["", "## How each step was established", "",
            "**proof**: sympy decides the relation on its domain, or it is exact over a complete "
            "finite class, every row decided exactly or on enclosures; **not refuted**: an `=` "
            "whose rows agree only within their enclosures (doubles with their proved error, or "
            "ball arithmetic of a transcendental identity), searched like the others: no disproof "
            "was "
            "found, which is not a proof; **search**: it survived the adversarial search "
            "(evaluations of the "
            "relation, the largest lhs/rhs reached with the sides oriented so that a ratio above 1 "
            "would break it, and the number of optimiser runs, one per regime); "
            "**counterexample**: an exact instance breaks it; **definition**: the line restates a "
            "definition; **reading**: settled by reading (a substitution, or a cited result whose "
            "consequence another step computes).",
            "",
            "Counts: " + ", ".join(f"{sum(r['established_by'] == e for r in rs)} {e}"
                                    for e in ESTABLISHED
                                    if any(r['established_by'] == e for r in rs)) + ".", "",
            "| step | status | established by | evaluations | largest lhs/rhs | regimes |",
            "|---|---|---|---|---|---|"]
    for r in rs:
        regs = len(r["regimes"]) if r["regimes"] else "—"
        out.append(f"| `{r['id']}` | {r['status']} | {r['established_by'] or '—'} | "
                   f"{r['evaluations'] if r['evaluations'] is not None else '—'} | "
                   f"{_num_or_dash(r['best_ratio'])} | {regs} |")
    out.append("")
    return "\n".join(out)


ESTABLISHED = ("proof", "search", "not refuted", "counterexample", "definition", "reading",
               "instances", "")


def _num_or_dash(x) -> str:
    return number_text(x, ".6g")


def _evidence(r) -> str:
    e = r["established_by"] or "not established"
    if e in ("search", "not refuted") or r["evaluations"]:
        regs = "; ".join(g["regime"] for g in (r["regimes"] or []))
        return (f"{e}: {r['evaluations']} adversarial evaluations, largest lhs/rhs "
                f"{_num_or_dash(r['best_ratio'])}{'; regimes: ' + regs if regs else ''} "
                f"({r['instances']} instances in all, {r['method']})")
    if r["instances"] is None:
        return (f"{e} (no computed "
                f"instances)") if r["method"] == "reading" else f"{e} (method {r['method']})"
    return f"{e}: {r['instances']} instances ({r['method']})"


def _write(workers, document: str | None = None) -> int:
    """``audit --write``: each document's audit.json into its own store
    (:mod:`verify.running.store`; the
    built-in documents' in verify/data/ of a source checkout, with docs/ERRATA.md).

    ``document``: one document package only (its entry-point name).  Refused (one line, exit 2)
    before any work when nothing can be recorded: the built-in
    documents of an installed toolkit ship their audit, and nothing is written into
    site-packages.
    """
    import bounds
    from mcsa_cli import UsageError

    from ..registry import plugins
    from ..running.resources import checkout_root, data_file, writable
    from ..running.store import plan, write

    load()
    claim_ids = list(dict.fromkeys([*bounds.ids(), *(s.claim for s in STEPS.values())]))
    if document is not None:
        from ..running.store import owner

        names = [p.name for p in plugins()]
        if document not in names:
            raise UsageError(f"--document: unknown document package {document!r} (the "
                             f"registered ones: {', '.join(names)})")
        claim_ids = [c for c in claim_ids if (p := owner(c)) is not None and p.name == document]
    groups, _ = plan(claim_ids)
    if not groups:
        data_file(AUDIT_DOC)  # the toolkit's refusal (one line, exit 2)
        raise UsageError(f"--write: {document} has nothing to record")
    root = checkout_root()
    builtin_dir = root / "verify" / "data" if root is not None else None
    # the errata are the toolkit's document (all its documents): written when they are recorded
    errata = (writable("docs/ERRATA.md") if builtin_dir in groups and document is None
              else None)
    chosen = None if document is None else set(claim_ids)
    n = ensure(chosen, workers)
    doc = audit_document(chosen)
    written = [] if errata is None else [str(errata)]
    if errata is not None:
        atomic_write(errata, errata_markdown())
    for directory, ids in groups.items():
        mine = set(ids)
        part = {"claims": {c: r for c, r in doc["claims"].items() if c in mine},
                "steps": {k: r for k, r in doc["steps"].items() if r.get("claim") in mine}}
        # not sort_keys: a counterexample's point keeps the order its check gave (the errata
        # print it so)
        written.append(str(write(directory, AUDIT_DOC, part)))
    print(f"wrote {' and '.join(written)} ({n} of {len(STEPS)} steps computed, the rest "
          "unchanged)")
    return 0


def cmd_audit(argv):
    from mcsa_cli import Parser as _Parser, UsageError

    ap = _Parser(prog="python -m verify audit", description=(
        "Step-by-step audit of the documents' proofs: each displayed step is checked (sympy, "
        "50-digit evaluation, Hypothesis search, exact finite-state or Gaussian instances) and "
        "gets a status: exact, valid, loose (printed '=' but only an inequality holds), wrong "
        "(with a counterexample and the correction) or unchecked."),
        epilog="Exit status: 0 success (whatever the steps' statuses), 2 bad input (one line on "
               "stderr, before any work), 70 internal error (rerun with --debug for the "
               "traceback), 74 an output cannot be written (a full disk), 130 interrupted.")
    ap.add_argument("claim", nargs="?", metavar="CLAIM|STEP",
                    help="one claim, or one step by its id (lemma5.2, as the errata and the "
                         "certificates name it); default: every step")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true")
    g.add_argument("--markdown", action="store_true", help="a Markdown table")
    g.add_argument("--errata", action="store_true", help="print docs/ERRATA.md as generated now")
    g.add_argument("--write", action="store_true",
                   help="write docs/ERRATA.md and verify/data/audit.json (from a source checkout "
                        "only); steps whose code is unchanged keep their stored outcome, the "
                        "others are recomputed")
    ap.add_argument("--document", default=None, metavar="NAME",
                    help="with --write: record one document package only (its entry-point name, "
                         "group mcsa_verify.claims)")
    ap.add_argument("--no-cache", action="store_true",
                    help="recompute every step (default: read each step's stored outcome while the "
                         "digest of the code it depends on is unchanged; see docs/methods.md)")
    from mcsa_cli import add_wide

    add_wide(ap)
    ap.add_argument("--workers", default=None, metavar="K",
                    help="compute missing steps on K local processes (default: the number of "
                         "CPUs); the outcomes do not depend on it")
    a = ap.parse_args(argv)
    from mcsa_cli import number

    workers = (None if a.workers is None else number("--workers", a.workers, integer=True, lo=1,
                                                     hi=256))
    if a.no_cache:
        CACHE.set(CachePolicy(read=False))
    if a.write:
        return _write(workers, a.document)
    load()
    step = STEPS.get(a.claim) if a.claim else None  # a step id: that step alone
    if a.claim and step is None and a.claim not in {s.claim for s in STEPS.values()}:
        import bounds

        if a.claim in bounds.ids():
            raise UsageError(f"{a.claim} has no proof to audit in its document")
        head = a.claim.split(".")[0]
        near = sorted(i for i, s in STEPS.items() if s.claim == head)
        raise UsageError(
            f"unknown claim or step {a.claim!r}"
            + (f" (the steps of {head}: {', '.join(near[:8])}{', ...' if len(near) > 8 else ''})"
               if near else "")
            + "; `python -m verify audit --markdown` lists every claim and step audited")
    if step is not None and a.errata:
        raise UsageError("--errata: prints every step's errata; give no claim or step")
    claim = step.claim if step is not None else a.claim
    ensure(claim or None, workers)
    if a.errata:
        print(errata_markdown(), end="")
        return 0
    rs = rows(claim)
    if step is not None:
        rs = [r for r in rs if r["id"] == step.id]
    if a.json:
        print(dumps({"claim": claim, "step": step.id if step is not None else None, "steps": rs,
                     "claims": audit_document()["claims"]}, default=str))
    elif a.markdown:
        print(markdown(rs))
    else:
        from mcsa_cli import terminal_width, wrap

        print(wrap(table_text(rs, None if a.wide else terminal_width()), wide=a.wide, indent="  "))
        if step is not None:
            n = sum(s.claim == step.claim for s in STEPS.values())
            print(wrap(f"\nstep {step.id} of {step.claim}'s proof audit; `python -m verify audit "
                       f"{step.claim}` shows its {n} steps.", wide=a.wide))
            return 0
        counts = {s: sum(r["status"] == s for r in rs)
                  for s in (EXACT, VALID, LOOSE, WRONG, UNCHECKED)}
        how = {e: sum(r["established_by"] == e for r in rs) for e in ESTABLISHED if e}
        from ..judging.severity import count_text

        print(wrap(f"\nseverity of the {sum(r['status'] in (WRONG, LOOSE) for r in rs)} "
                   f"wrong/loose steps: "
                   + count_text(r.get("severity") for r in rs if r["status"] in (WRONG, LOOSE))
                   + ".", wide=a.wide))
        print(wrap("\n" + ", ".join(f"{v} {k}"
                                    for k, v in counts.items()) + f" of {len(rs)} steps; "
                   f"{sum(r['affected'] for r in rs)} affected by a wrong step. Established by: "
                   + ", ".join(f"{v} {k}" for k, v in how.items() if v) + ".", wide=a.wide))
    return 0

