"""Sphinx extension: the generated pages of the mcsa-verify site.

Before Sphinx reads the sources (``builder-inited``) this writes Markdown into
``docs/_generated/``:

``claims.md``
    every registered claim with its final status and proof-audit status, by document;
``documents/<document>.md``
    one page per document: each claim's source, assumptions, parameters, formulas in
    every form (the LaTeX of ``python -m bounds show CLAIM --latex``), readings, status
    (``verify/data/verdicts.json`` and ``verify/data/audit.json``) and figure;
``notebooks/*.ipynb``
    copies of ``notebooks/*.ipynb`` (Sphinx reads only inside ``docs/``; myst-nb
    executes the copies, see ``nb_execution_mode`` in ``conf.py``);
``figures/*.png``
    the stored reproductions (``verify/data/figures``) and, unless
    ``mcsa_claim_figures`` is off, each claim's figure from a quick run at seed 0 (the run
    behind ``verdicts.json``), cached under ``_generated/claim-figures/<key>/`` where the
    key hashes the sources of ``bounds``, ``simulate`` and ``verify``;
``fragments/*.md``
    pieces the hand-written pages include (status counts, the coverage table or a note
    that ``docs/COVERAGE.md`` is missing, how the notebooks were run).

After an HTML build (``build-finished``) it copies MathJax from the PyPI package
``django-static-mathjax`` into ``_static/mathjax/`` (``mathjax_path`` in ``conf.py``
points there), so no page fetches anything from the network.

The toolkit is reached through three functions only: :func:`registry` (the claims and
their verifications), :func:`status_documents` (the committed statuses) and
:func:`claim_record` (a claim's formulas); switching an API touches one of them.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: set from the Sphinx application in :func:`generate`: the source directory, the checkout
#: (``mcsa_root``: where notebooks/ and the packages are) and the generated pages' directory
DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
FIGURE_SEED, FIGURE_MODE, FIGURE_DPI = 0, "quick", 80


# ----------------------------------------------------------------------------- the toolkit
def registry() -> dict:
    """THE access to the claim registry: ``{claim id: verify.model.Verification}``, in the
    documents' order (the public API ``verify.claims()`` / ``verify.get(claim)``)."""
    import verify

    return {cid: verify.get(cid) for cid in verify.claims()}


def status_documents() -> tuple[dict, dict]:
    """The committed statuses: ``(verdicts.json, audit.json)`` as packaged in
    ``verify/data`` (``python -m verify all --quick --write``, ``python -m verify audit
    --write``)."""
    from verify.running.resources import read_json

    return read_json("verdicts.json"), read_json("audit.json")


def claim_record(claim_id: str) -> dict | None:
    """What ``python -m bounds show CLAIM --latex --json`` prints (title, source, kind,
    assumptions, parameters, definitions, quantities with every form as LaTeX, notes,
    plus the document number); None for a claim the bounds library does not have."""
    import bounds
    from bounds.cli import claim_description
    from bounds.references import REFERENCES, doc_number

    try:
        claim = bounds.get(claim_id)
    except bounds.UnknownClaim:
        return None
    number = doc_number(claim.source)  # the toolkit's documents by number, a user's by its own name
    return {**claim_description(claim, latex=True),
            "document": number if number in REFERENCES else str(claim.source.document)}


def stored_reproduction(claim_id: str) -> tuple[dict | None, bytes | None]:
    """The stored full run of a claim's experiment and its PNG (None, None when it has none)."""
    from verify.running.reproductions import stored_png, stored_run

    return stored_run(claim_id), stored_png(claim_id)


def claim_figure(claim_id: str, path: Path) -> None:
    """Run the claim quickly (seed 0) and draw its figure, as ``python -m verify report``."""
    import matplotlib

    matplotlib.use("Agg")
    import verify
    from verify.presenting.plot import figure

    figure(verify.run(claim_id, mode=FIGURE_MODE, seed=FIGURE_SEED), str(path), dpi=FIGURE_DPI)


def display_name(claim_id: str, verification) -> str:
    from verify.presenting.plot import claim_name

    return getattr(verification, "name", "") or claim_name(claim_id)


# ----------------------------------------------------------------------------- Markdown
_SPECIAL = re.compile(r"([\\`*_\[\]{}<>|$#~^&!])")
RELATION = {"<=": "is at most (≤)", ">=": "is at least (≥)", "=": "equals",
            "~": "is approximately (≈)",
            "<": "is below (<)", ">": "is above (>)"}
FORM_MEANING = {
    "stated": "as printed, O(·) terms dropped",
    "explicit": "every constant from the proof: a true inequality if the proof is right",
    "moment": "the proof's intermediate form with moments of the score in place of L²",
    "corrected": "ours, where a check or the audit shows the printed form wrong",
}
STATUS_CLASS = {"holds": "holds", "violated": "violated", "inconclusive": "inconclusive",
                "depends on reading": "depends"}
STATUS_ORDER = ("violated", "depends on reading", "inconclusive", "holds")


def esc(text) -> str:
    """Plain text for MyST: every character Markdown could read as markup is escaped."""
    return _SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def code(text) -> str:
    text = str(text).replace("\n", " ")
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def badge(status: str | None) -> str:
    if not status:
        return "[no status]{.mcsa-status .mcsa-none}"
    return f"[{esc(status)}]{{.mcsa-status .mcsa-{STATUS_CLASS.get(status, 'none')}}}"


def math_block(*lines: str) -> str:
    body = "\n\n".join(x.strip() for x in lines if x and x.strip())
    return f"```{{math}}\n{body}\n```\n" if body else ""


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "document"


# ----------------------------------------------------------------------------- documents
def documents(records: dict) -> list[tuple[str, str, str, str]]:
    """``[(number, short citation, full reference, page name)]`` in the references'
    order, then any other document a registered claim comes from."""
    from bounds.references import ORDER, reference

    numbers = list(ORDER) + sorted({r["document"] for r in records.values() if r} - set(ORDER))
    out = []
    for n in numbers:
        if not any(r and r["document"] == n for r in records.values()):
            continue
        short, full = reference(n) or (n, "Claims registered by an installed package (entry points "
                                          "mcsa_verify.bounds and mcsa_verify.claims).")
        out.append((n, short, full, slug(short)))
    if any(r is None for r in records.values()):
        out.append(("", "Other claims", "Claims without formulas in the bounds library.",
                    "other-claims"))
    return out


def status_cell(st: dict, stored: dict | None) -> str:
    """A table cell: the committed status (for a figure claim, its stored run's at the paper's
    settings), and
    the quick smoke test's verdict after it, labelled as such."""
    cell = badge(st["status"])
    if stored is not None:
        cell += " at the paper's settings"
        if st.get("smoke_test"):
            cell += f"; quick smoke test: {badge(st['smoke_test'])}"
    return cell


def status_of(cid: str, verdicts: dict, audit: dict) -> dict:
    a = audit.get("claims", {}).get(cid, {})
    return {"status": verdicts.get("verdicts", {}).get(cid),
            "smoke_test": verdicts.get("smoke_tests", {}).get(cid, {}).get("verdict"),
            "failing": verdicts.get("failing_readings", {}).get(cid, []),
            "readings": verdicts.get("final_readings", {}).get(cid, {}),
            "audit": a.get("audit", ""), "audit_status": a.get("final_status"),
            "severity": verdicts.get("severity", {}).get(cid) or {}}


SEVERITY_ORDER = ("false", "gap", "slip", "loose", "note")


def severity_text(sev: dict) -> str:
    """'**Severity:** false — reason (deciding sentence: “quote”); certificate'; '' when none."""
    if not sev.get("severity"):
        return ""
    q = " ".join(sev.get("severity_quote", "").split())
    return (f"**Severity:** `{sev['severity']}` — {esc(sev.get('severity_reason', ''))} (deciding "
            f"sentence: {code(q[:200])})"
            + (f"; certificate: {code(sev['certificate'])}" if sev.get("certificate") else ""))


def claim_section(cid: str, v, rec: dict | None, st: dict, figure: str | None, figure_note: str,
                  stored: dict | None) -> str:
    name = display_name(cid, v)
    title = rec["title"] if rec else v.measures
    out = [f"(claim-{cid})=", f"## {esc(name)}: {esc(title)}", ""]
    status_line = f"**Status:** {badge(st['status'])}"
    if st["status"] == "depends on reading" and st["failing"]:
        fails = st["failing"]
        status_line += (" — fails under: " + "; ".join(code(f) for f in fails) if len(fails) <= 6
                        else
                        f" — fails under {len(fails)} of its {len(st['readings']) or '?'} readings "
                        f"(listed below)")
    status_line += f" (claim id {code(cid)})"
    out += [status_line, ""]
    if severity_text(st.get("severity") or {}):
        out += [severity_text(st["severity"]), ""]
    if stored is not None:
        miss = "" if stored.get("complete", True) else " (incomplete: some cells missing)"
        nh = stored.get("not_holding") or []
        out += [f"**Stored run at the paper's settings** "
                f"({esc(stored.get('mode', '?'))}{esc(miss)}): {badge(stored.get('verdict'))}"
                + (" — not holding: " + ", ".join(code(x) for x in nh) if nh else "")
                + ". The status above is this run's; see {doc}`/figures`."
                + (f" The reduced quick run of the same code, a smoke test and not the claim's "
                   f"status: {badge(st['smoke_test'])}." if st.get("smoke_test") else ""), ""]
    audit = st["audit"] or (getattr(v, "proof", "") or "no proof steps audited")
    out += [f"**Proof audit:** {esc(audit)}" + (" (see {doc}`/ERRATA`)" if st["audit"] else ""), ""]
    if rec:
        out += [f"**Source:** {esc(rec['source'])} · **kind:** {esc(rec['kind'])}", ""]
        if rec["assumptions"]:
            out += ["**Assumptions:**", ""]
            out += [f"- **{esc(k)}**: {esc(t)}" for k, t in rec["assumptions"].items()]
            out.append("")
    out += [f"**Checked by:** {esc(v.measures)}; on {esc(v.targets)} ({esc(v.method)}); "
            f"forms {esc(v.forms)}, the first ({code(v.primary_form)}) decides.", ""]
    if rec:
        out += formulas(rec, v.primary_form)
    out += readings(v, st)
    if figure:
        out += ["**Figure:**", "", f"```{{image}} {figure}", f":alt: figure of {cid}",
                ":width: 100%", "```", "",
                figure_note, ""]
    else:
        out += [f"**Figure:** {figure_note}", ""]
    if rec and rec["notes"]:
        out += ["**Notes:**", ""] + [f"- {esc(n)}" for n in rec["notes"]] + [""]
    return "\n".join(out)


def formulas(rec: dict, deciding: str) -> list[str]:
    out = []
    if rec["params"]:
        out += ["**Parameters:**", "", "{.mcsa-params}", "| flag | domain | default | meaning |",
                "|---|---|---|---|"]
        for p in rec["params"]:
            d = "" if p["default"] is None else f"{p['default']:g}"
            out.append(
                f"| {code(p['flag'])} | {esc(p['domain'])} | {esc(d)} | {esc(p['meaning'])} |")
        out.append("")
    if rec["constraints"]:
        out += ["**Constraints:** " + "; ".join(esc(c) for c in rec["constraints"]), ""]
    if rec["definitions"]:
        out += ["**Definitions:**", "",
                math_block(*(f"{k} = {e}" for k, e in rec["definitions"].items()))]
    for q in rec["quantities"]:
        rel = RELATION.get(q["relation"], q["relation"])
        out += [f"**Quantity {code(q['name'])}:** {esc(q['description'])}; it {esc(rel)} each "
                f"form:", ""]
        for f in q["forms"]:
            notes = [x for x in (FORM_MEANING.get(f["form"]),
                                 "the deciding form" if f["form"] == deciding else "")
                     if x]
            out += [f"*{esc(f['form'])}*" + (f" ({esc('; '.join(notes))})" if notes else "")
                    + f": {esc(f['derivation'])}", "", math_block(f["expr"])]
            if f["dropped"]:
                out += [f"the O(·) terms it drops ({len(f['dropped'])}):", "",
                        math_block(*f["dropped"])]
        for e in q["expansions"]:
            out += [f"series of *{esc(e['form'])}* as {code(e['as'])}"
                    + (f": {esc(e['note'])}" if e["note"] else ""),
                    "", math_block(e["series"])]
    return out


def readings(v, st: dict) -> list[str]:
    rs = list(getattr(v, "readings", ()) or ())
    out = ["**Readings:**", ""]
    if not rs:
        out += ["The statement as printed; no other reading is reasonable.", ""]
    else:
        for r in rs:
            quote = f" {code(r.quote)}" if r.quote else ""
            out.append(f"- \\[{esc(r.axis)}\\] *{esc(r.name)}*:{quote} — {esc(r.meaning)}")
        out.append("")
    if st["readings"]:
        out += ["| full reading | verdict |", "|---|---|"]
        out += [f"| {esc(k)} | {badge(val)} |" for k, val in st["readings"].items()]
        out.append("")
    return out


# ----------------------------------------------------------------------------- figures
def source_key() -> str:
    """A hash of everything a claim's quick run and figure depend on: the sources and data
    of bounds, simulate and verify, the seed, mode and resolution, and matplotlib's version."""
    import matplotlib

    h = hashlib.sha256(
        f"{FIGURE_SEED} {FIGURE_MODE} {FIGURE_DPI} {matplotlib.__version__}".encode())
    for pkg in ("bounds", "simulate", "verify", "mcsa_cli"):
        for p in sorted((ROOT / pkg).rglob("*")):
            if p.is_file() and p.suffix in (".py", ".json", ".j2") and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(ROOT)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


def claim_figures(reg: dict, stored: dict, enabled: bool,
                  writer) -> dict[str, tuple[str | None, str]]:
    """``{claim: (image path relative to docs/_generated/documents, caption in Markdown)}``."""
    from sphinx.util.display import status_iterator

    out = {}
    for cid, (run, png) in stored.items():
        if png:
            writer(f"figures/{cid}.png", png)
            out[cid] = (f"../figures/{cid}.png",
                        f"The stored run at the paper's settings "
                        f"({code(f'verify/data/figures/{cid}.png')}); "
                        + code(f"python -m verify.running.reproductions --claim {cid} "
                               "--workers 2")
                        + " reruns it.")
    todo = [cid for cid in reg if cid not in out]
    if not enabled:
        for cid in todo:
            out[cid] = (None, f"not drawn in this build ({code('mcsa_claim_figures')} is off); "
                              f"{code(f'python -m verify {cid} --plot {cid}.png')} draws it.")
        return out
    key = source_key()
    cache = GENERATED / "claim-figures" / key
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.parent.iterdir():  # figures of older sources are never shown
        if old.name != key:
            shutil.rmtree(old, ignore_errors=True)
    missing = [cid for cid in todo if not (cache / f"{cid}.png").is_file()]
    for cid in status_iterator(missing, "running claims for their figures (quick, seed 0)... ",
                               "darkgreen",
                               len(missing)):
        tmp = cache / f"{cid}.tmp.png"
        try:
            claim_figure(cid, tmp)
        except Exception as e:  # shown on the page and as a warning (an error under -W)
            logger.warning("figure of %s failed: %s: %s", cid, type(e).__name__, e, type="mcsa",
                           subtype="figure")
            continue
        tmp.replace(cache / f"{cid}.png")
    for cid in todo:
        p = cache / f"{cid}.png"
        if p.is_file():
            writer(f"figures/{cid}.png", p.read_bytes())
            out[cid] = (f"../figures/{cid}.png",
                        f"Quick run at seed 0 (the run behind the status above); "
                        f"{code(f'python -m verify {cid} --plot {cid}.png')} draws the same "
                        f"figure.")
        else:
            out[cid] = (None, "drawing the figure failed in this build (see the build log).")
    return out


# ----------------------------------------------------------------------------- pages
class Writer:
    """Writes files under docs/_generated only when their content changes (so Sphinx
    rereads only what changed) and removes the files no longer generated."""

    def __init__(self, root: Path):
        self.root = root
        self.written: set[Path] = set()

    def __call__(self, rel: str, content) -> None:
        p = self.root / rel
        data = content.encode() if isinstance(content, str) else content
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.is_file() or p.read_bytes() != data:
            p.write_bytes(data)
        self.written.add(p)

    def prune(self, keep=("claim-figures",)) -> None:
        for p in sorted(self.root.rglob("*"), reverse=True):
            if p.relative_to(self.root).parts[0] in keep:
                continue
            if p.is_file() and p not in self.written:
                p.unlink()
            elif p.is_dir() and not any(p.iterdir()):
                p.rmdir()


def generate(app) -> None:
    global DOCS, ROOT, GENERATED
    DOCS = Path(app.srcdir)
    ROOT = Path(app.config.mcsa_root or DOCS.parent).resolve()
    GENERATED = DOCS / "_generated"
    write = Writer(GENERATED)
    reg = registry()
    verdicts, audit = status_documents()
    if not verdicts.get("verdicts"):
        logger.warning("verify/data/verdicts.json is missing or empty: no statuses to show",
                       type="mcsa")
    records = {cid: claim_record(cid) for cid in reg}
    stored = {cid: stored_reproduction(cid) for cid in reg
              if getattr(reg[cid], "reproduction", None)}
    figs = claim_figures(reg, stored, bool(app.config.mcsa_claim_figures), write)
    docs = documents(records)
    statuses = {cid: status_of(cid, verdicts, audit) for cid in reg}
    mode = f"{verdicts.get('mode', '?')} run, seed {verdicts.get('seed', '?')}"

    # one page per document
    for number, short, full, page in docs:
        cids = [c for c in reg
                if (records[c]["document"] == number if records[c] else number == "")]
        lines = [f"# {esc(short)}", "", esc(full), "",
                 f"{len(cids)} claims. Statuses from `verify/data/verdicts.json` ({esc(mode)}; a "
                 f"figure claim's is its stored "
                 "run at the paper's settings) and the proof audit "
                 "(`verify/data/audit.json`); formulas as `python -m bounds show CLAIM --latex` "
                 "prints them. How a status is decided: {doc}`/getting-started`.", "",
                 "{.mcsa-claims}", "| claim | status | severity | proof audit |",
                 "|---|---|---|---|"]
        for c in cids:
            lines.append(f"| {{ref}}`{display_name(c, reg[c])} <claim-{c}>` | "
                         f"{status_cell(statuses[c], stored.get(c, (None, None))[0])} | "
                         f"{statuses[c]['severity'].get('severity') or '—'} | "
                         f"{esc(statuses[c]['audit'] or '—')} |")
        lines.append("")
        for c in cids:
            img, note = figs.get(c, (None, ""))
            lines.append(claim_section(c, reg[c], records[c], statuses[c], img, note,
                                       stored.get(c, (None, None))[0]))
        write(f"documents/{page}.md", "\n".join(lines) + "\n")

    # the overview
    counts = {s: sum(1 for st in statuses.values() if st["status"] == s) for s in STATUS_ORDER}
    summary = ", ".join(f"{n} {s}" if s != "holds" else f"{n} hold" for s, n in counts.items() if n)
    unknown = sum(1 for st in statuses.values() if st["status"] not in STATUS_ORDER)
    if unknown:  # e.g. claims of another installed package: verdicts.json covers the toolkit's own
        summary += f", {unknown} without a committed status"
    sev_counts = [(s, sum(1 for st in statuses.values() if st["severity"].get("severity") == s))
                  for s in SEVERITY_ORDER]
    summary += "; by severity: " + (", ".join(f"{n} {s}" for s, n in sev_counts if n) or "none")
    lines = ["# Claims", "",
             f"{len(reg)} claims from {len(docs)} documents: {esc(summary)} "
             f"(`verify/data/verdicts.json`, {esc(mode)}). *holds*: every check of the deciding "
             f"form holds; "
             "*violated*: the bound fails under every reasonable reading of its text; *depends on "
             "reading*: it holds under one reading and fails under another (the failing ones are "
             "named); *inconclusive*: Monte Carlo could not decide.", ""]
    for number, short, full, page in docs:
        cids = [c for c in reg
                if (records[c]["document"] == number if records[c] else number == "")]
        lines += [f"## {esc(short)}", "",
                  f"{{doc}}`All of its claims, with their formulas <documents/{page}>`", "",
                  "{.mcsa-claims}", "| claim | title | status | severity | proof audit |",
                  "|---|---|---|---|---|"]
        for c in cids:
            title = records[c]["title"] if records[c] else reg[c].measures
            lines.append(f"| {{ref}}`{display_name(c, reg[c])} <claim-{c}>` | {esc(title)} | "
                         f"{status_cell(statuses[c], stored.get(c, (None, None))[0])} | "
                         f"{statuses[c]['severity'].get('severity') or '—'} | "
                         f"{esc(statuses[c]['audit'] or '—')} |")
        lines.append("")
    lines += (["```{toctree}", ":hidden:", ""] + [f"documents/{page}"
                                                  for *_, page in docs] + ["```", ""])
    write("claims.md", "\n".join(lines))
    write("fragments/status-summary.md",
          f"**{len(reg)} claims** from {len(docs)} documents: {esc(summary)} ({esc(mode)}).\n")

    # reproductions' figures for docs/figures.md
    figure_lines = []
    for cid, (run, png) in stored.items():
        if not png:
            continue
        what = (f"stored {esc(run.get('mode', '?'))} run: {badge(run.get('verdict'))}" if run
                else "stored run")
        figure_lines += [f"### {esc(display_name(cid, reg[cid]))}", "", what, "",
                         f"```{{image}} _generated/figures/{cid}.png", f":alt: {cid} reproduction",
                         ":width: 100%",
                         "```", ""]
    # (included from docs/figures.md: paths relative to docs/)
    write("fragments/reproductions.md", "\n".join(figure_lines) or "No stored reproductions.\n")

    # the coverage table (written by `python -m verify coverage --write`), or why it is absent
    cov = DOCS / "COVERAGE.md"
    if cov.is_file():
        write("fragments/coverage.md", cov.read_bytes())
    else:
        write("fragments/coverage.md",
              "# Coverage\n\n`docs/COVERAGE.md` was not there when this site was built "
              "(`python -m verify coverage --write` writes it).\n")

    # the notebooks, copied in (Sphinx reads only inside docs/)
    nbs = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for nb in nbs:
        write(f"notebooks/{nb.name}", nb.read_bytes())
    mode_nb = app.config.nb_execution_mode
    write("fragments/notebooks-run.md",
          (f"The notebooks were executed with the code this site documents (myst-nb, "
           f"`nb_execution_mode = \"{mode_nb}\"`, at most {app.config.nb_execution_timeout} s per "
           f"cell): by the test suite, whose "
           "executions are kept in a store named by a digest of the packages' code, or by this "
           "build where the store had none; every output below comes from that run." if mode_nb
           != "off" else
           "**This build did not execute the notebooks** (`nb_execution_mode = \"off\"`): only "
           "their code and text are shown. The full build (`python -m sphinx -W -b html docs "
           "docs/_build/html`) executes them.") + "\n")
    write.prune()


# ----------------------------------------------------------------------------- MathJax, offline
#: the parts of MathJax 3 (es5) that the tex-mml-chtml component loads, and nothing else
MATHJAX_KEEP = ("tex-mml-chtml.js", "input/tex/extensions", "input/mml", "output/chtml", "a11y",
                "ui", "sre",
                "adaptors")


def mathjax_source() -> Path | None:
    try:
        from importlib.resources import files

        es5 = Path(str(files("mathjax"))) / "static" / "mathjax" / "es5"
    except (ImportError, ModuleNotFoundError, TypeError):
        return None
    return es5 if (es5 / "tex-mml-chtml.js").is_file() else None


def copy_mathjax(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    src = mathjax_source()
    if src is None:
        logger.warning("MathJax not found: pip install django-static-mathjax (the docs extra); "
                       "formulas would not render offline", type="mcsa", subtype="mathjax")
        return
    dest = Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_KEEP:
        s, d = src / part, dest / part
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        elif s.is_file() and (not d.is_file() or d.stat().st_size != s.stat().st_size):
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, d)


def check_mathjax(app, config) -> None:
    if mathjax_source() is None:
        logger.warning("MathJax not found: pip install django-static-mathjax (the docs extra)",
                       type="mcsa",
                       subtype="mathjax")


def setup(app):
    app.add_config_value("mcsa_claim_figures", True, "env", types=(bool, int))
    app.add_config_value("mcsa_root", "", "env", types=(str,))
    app.connect("config-inited", check_mathjax)
    app.connect("builder-inited", generate)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
