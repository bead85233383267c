"""The main job: ``python -m verify report [--out DIR] [--quick|--full] [--seed S]``.

Runs every registered verification once, and writes ONE self-contained HTML file,
``DIR/report.html`` (figures inlined as PNG data URIs, mathematics as MathML; nothing is
fetched from the network and no script runs), built from the Jinja2 template
``verify/templates/report.html.j2`` (autoescape on).  The page holds:

* on its first screen, the counts and a compact summary table: per claim its final status,
  severity, a one-line finding (:func:`headline`; its details open without a script) and
  the certificate command, linking to
* one section per claim: statement and source (bibliographic reference, sections and
  equations kept), the readings with their quotes, the figure
  (:func:`verify.presenting.plot.make_figure`,
  cut into its columns of panels by :mod:`verify.presenting.panels`: side by side on a desktop, one
  per
  row on a phone), the checks by quantity and form, the worst counterexamples, and the
  audit's steps with corrections (:func:`verify.audit.rows`);
* what the statuses and severities mean;
* the errata (every loose or wrong step of the audit, each row an anchor the findings link to);
* the reproductions of the documents' experiments (claims with a ``reproduction``, and
  their stored runs at the paper's settings, :mod:`verify.running.reproductions`);
* provenance: package version, seed, mode, date, Python/numpy/scipy/sympy/matplotlib
  versions, machine.

The documents' TeX in the quoted texts is converted to MathML when the page is built
(:mod:`verify.presenting.mathml`, the template's ``tex`` filter).  Each claim runs once: the same
:class:`~verify.running.outcome.Report` feeds its figure and its tables.  The command prints the
summary and the report's path and exits 0 once the file is written (2 on bad input, before
any work).  ``python -m verify all`` keeps the checker's exit statuses (1 = a claim is
violated).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import pathlib
import platform
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict

from bounds.references import bibliography, citation, cite, cite_numbers, document_key, documents
from mcsa_cli import Parser, UsageError, number, progress, table

PROG = "python -m verify report"
TEMPLATE = "report.html.j2"
STATUS_ORDER = ("violated", "depends on reading", "inconclusive", "holds")
#: one colour per status, the same in the report (its CSS variables) and the docs site
#: (docs/_static/mcsa.css, classes .mcsa-holds, .mcsa-violated, .mcsa-inconclusive, .mcsa-depends;
#: tests/test_figure_texts.py compares them)
STATUS_COLOURS = {"holds": "#1f7a3a", "violated": "#b3261e", "inconclusive": "#8a6d00",
                  "depends on reading": "#5a3fb0"}


# ----------------------------------------------------------------------------- command line
def parse(argv):
    ap = Parser(prog=PROG, description=(
        "Verify every claim once and write one self-contained HTML report (figures inlined, "
        "nothing fetched from the network): a summary of every claim's status, and per claim its "
        "statement and source, figure, checks, worst counterexamples and proof audit; the errata; "
        "the figure reproductions; provenance. Prints the summary and the report's path."),
        epilog="Exit status: 0 once the report is written (whatever the claims' statuses: "
               "`python -m verify all` exits with them), 2 bad input (one line on stderr, before "
               "any work), 70 internal error (rerun with --debug for the traceback), 74 an output "
               "cannot be written (a full disk), 130 interrupted.")
    ap.add_argument("--out", default="out", metavar="DIR|FILE.html",
                    help="a directory to write report.html into (created if missing; default: "
                         "./out), or the report's file name ending in .html")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true",
                   help="small grids, about a minute on 2 cores (default)")
    g.add_argument("--full", action="store_true", help="larger grids, minutes")
    ap.add_argument("--seed", default="0", metavar="S",
                    help="seed of every Monte Carlo check (default 0)")
    ap.add_argument("--dpi", default="90", metavar="DPI",
                    help="resolution of the inlined figures (default 90)")
    ap.add_argument("--screenshot", default=None, metavar="PNG",
                    help="also open the report in headless Chromium and save the top of the page "
                         "(1280 x 1150 CSS pixels) as PNG, with PNG.json beside it recording what "
                         "it shows (the statuses and a digest of verify/data/verdicts.json); the "
                         "README's docs/report.png is made so")
    from ..running.runner import add_parallel_flags, parallel_workers

    add_parallel_flags(ap)
    a = ap.parse_args(argv)
    workers = parallel_workers(a)
    seed = number("--seed", a.seed, integer=True, lo=0)
    dpi = number("--dpi", a.dpi, integer=True, lo=40, hi=300)
    from mcsa_cli import output_path

    # validated before any work by creating it (a directory, or the .html file), as root too
    out = pathlib.Path(output_path("--out", a.out, (".html",), kind="auto"))
    shot = None
    if a.screenshot is not None:
        from .browser import find_browser

        if find_browser() is None:
            raise UsageError(
                "--screenshot: no Chromium found (/usr/bin/chromium); install it, e.g. `apt-get "
                "install -y chromium`")
        shot = pathlib.Path(output_path("--screenshot", a.screenshot, (".png",)))
        output_path("--screenshot", str(shot) + ".json", (".json",))
    return out, ("full" if a.full else "quick"), seed, dpi, workers, not a.no_cache, shot


def write_report(out="out", mode: str = "quick", seed: int = 0, dpi: int = 90,
                 reports: dict | None = None,
                 show_progress: bool = False) -> str:
    """Build the report (every registered claim, run once) and write ``out/report.html``;
    returns the path.  The Python API's :func:`verify.write_report`."""
    from mcsa_cli import atomic_write

    out = pathlib.Path(out)
    if out.suffix.lower() == ".html":
        path = out
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "report.html"
    data = build(mode=mode, seed=seed, dpi=dpi, show_progress=show_progress, reports=reports)
    atomic_write(path, render(data))  # the user's umask; never a half-written file
    return str(path)


def cmd_report(argv, reports: dict | None = None) -> int:
    """``python -m verify report``; ``reports`` ({claim: Report} of the same mode and seed)
    skips running the claims again (the test suite passes its shared quick run)."""
    out, mode, seed, dpi, workers, cache, shot = parse(argv)
    from ..judging import check_data

    check_data()  # a document's bad data file: exit 2 and one line, before any claim runs
    t0 = time.perf_counter()
    if reports is None:
        import functools

        from ..running.runner import run_all

        draw = functools.partial(figure_view, dpi=dpi, mode=mode, cache=bool(cache))
        with progress(desc="claims and figures") as bar:
            reports = {r.claim: r for r in run_all(mode, seed, bar, workers=workers, cache=cache,
                                                   figure=draw)}
    data = build(mode=mode, seed=seed, dpi=dpi, show_progress=True, reports=reports, cache=cache)
    # the run time the terminal gives is the one the report's provenance gives
    elapsed = time.perf_counter() - t0
    data["provenance"] = [(k, run_time_text(elapsed, data["claims"]) if k == "run time" else v)
                          for k, v in data["provenance"]]
    from mcsa_cli import atomic_write

    path = out if out.suffix.lower() == ".html" and not out.is_dir() else out / "report.html"
    atomic_write(path, render(data))
    rows = [[c["id"], c["status"], c["deciding"], str(c["n_checks"]), f"{c['elapsed']:.1f}"
             + (" *" if c["cached"] else "")]
            for c in data["claims"]]
    print(table(rows, ["claim", "status", "deciding form", "checks", "s"], see="the report"))
    from mcsa_cli import wrap

    for c in data["claims"]:
        if c["status_text"] != c["status"]:
            print(wrap(f"  {c['id']}: {c['status_text']}", indent="      "))
    cnt = Counter(c["status"] for c in data["claims"])
    if any(c["cached"] for c in data["claims"]):
        print(wrap("\n* read from the cache: s is the time of the run that computed it (--no-cache "
                   "recomputes)"))
    print(wrap(f"\n{len(rows)} claims ({mode}, seed {seed}) in "
               f"{run_time_text(elapsed, data['claims'])}: "
               + ", ".join(f"{cnt[s]} {s}" for s in STATUS_ORDER if cnt.get(s))))
    print(f"report written to {path.resolve()}")
    if shot is not None:
        screenshot(path, shot, data)
        print(f"screenshot written to {shot} (what it shows: {shot}.json)")
    return 0


#: the README's hero image: the top of the report on a desktop screen (CSS pixels)
SHOT_SIZE = (1280, 1150)


def verdicts_digest() -> str:
    """SHA-256 of the packaged verify/data/verdicts.json: the verdicts a screenshot shows.

    Returns
    -------
    str
        64 hex digits (:func:`mcsa_cli.store.digest`).
    """
    from mcsa_cli.store import digest

    from ..running.resources import read_bytes

    return digest(read_bytes("verdicts.json") or b"")


def screenshot(html, png, data: dict) -> None:
    """Open the report ``html`` in headless Chromium, save the top of the page (:data:`SHOT_SIZE`)
    as ``png`` and, beside it, ``png + '.json'``: the statuses and counts the page shows (read from
    the page itself), the run's mode and seed, and the digest of verify/data/verdicts.json at that
    time (tests/test_hero_image.py
    fails when the verdicts change and the image is not made again)."""
    from mcsa_cli import atomic_write, dumps
    from mcsa_cli.store import digest

    from .browser import Page, find_browser

    w, h = SHOT_SIZE
    exe = find_browser()
    assert exe is not None  # the command line refuses --screenshot without Chromium
    with Page(exe, width=w, height=h) as pg:
        pg.open(pathlib.Path(html).resolve().as_uri())
        raw = pg.screenshot(height=h)
        shown = pg.js(
            """({counts: [...document.querySelectorAll('header .status')]
                .map(e => e.textContent.trim()),
            statuses: Object.fromEntries([...document.querySelectorAll('#summary-table tbody tr')]
              .map(tr =>
              [tr.querySelector('a').getAttribute('href').replace('#claim-', ''),
               tr.querySelector('.status').textContent.trim()]))})""")
    record = {"source": "verify/data/verdicts.json", "verdicts_sha256": verdicts_digest(),
              "png_sha256": digest(raw),
              "mode": data["mode"], "seed": data["seed"], "size": [w, h],
              "command": f"python -m verify report --{data['mode']} --seed {data['seed']} "
                         f"--screenshot PNG",
              "counts": shown["counts"], "statuses": shown["statuses"]}
    atomic_write(png, raw)
    atomic_write(str(png) + ".json", dumps(record, indent=1, ensure_ascii=False) + "\n")


def run_time_text(elapsed: float, claims: list[dict]) -> str:
    """'93.1 s', or '5.2 s (27 of 27 claims read from the cache)': the time of this run, as the
    terminal and the
    report's provenance both give it."""
    n = sum(1 for c in claims if c.get("cached"))
    return f"{elapsed:.1f} s" + (f" ({n} of {len(claims)} claims read from the cache)" if n else "")


# ----------------------------------------------------------------------------- data
def claim_ids():
    """Registered claims in the bounds library's order, then any others."""
    import bounds

    from ..registry import verifications

    REGISTRY = verifications()

    ids = [c for c in bounds.ids() if c in REGISTRY]
    return ids + [c for c in REGISTRY if c not in ids]


#: the smallest type (points) assumed in a figure whose type could not be measured (a plot that
#: saves no matplotlib Figure): small, so that a phone shows the figure wide enough
UNKNOWN_MIN_FONT = 6.0
#: on a phone a figure kept whole is shown at a width where its smallest type is this many CSS
#: pixels (it scrolls sideways in its own box); cut columns take the screen's width
PHONE_TEXT_PX = 9.5
#: the version of the figure cache's entries (the figure as pieces, verify.presenting.panels)
FIGURE_FORMAT = "panels1"


def figure_view(rep, dpi: int, mode: str = "quick", cache: bool = True) -> dict:
    """The claim's figure as the report shows it, drawn where it is called (a claim's worker,
    :func:`verify.running.runner.run_claims`), or read from the figure cache."""
    return _figure(rep, dpi, mode, cache)


def _figure(rep, dpi: int, mode: str = "quick", cache: bool = True) -> dict:
    """The claim's figure as the template shows it (:func:`verify.presenting.panels.cut`):
    ``{"title",
    "columns", "whole", "error"}``; cached beside the claim's result (same content key, the dpi),
    so an unchanged report draws nothing again."""
    from ..running.runner import cache_dir, cache_key

    d = cache_dir() if cache and rep.bound_scale == 1.0 else None
    key = f"{cache_key(rep.claim, mode, rep.seed)}-{FIGURE_FORMAT}-{dpi}" if d else None
    if d:
        from simulate.sweep import cache_read

        assert key is not None  # set whenever d is
        hit = cache_read(d, key)
        if isinstance(hit, dict) and isinstance(hit.get("columns"), list):
            return _phone_widths(hit)
    try:
        fig = _draw(rep, dpi)
    except Exception as e:  # shown in the report and on stderr, never silently dropped
        print(f"{PROG}: figure of {rep.claim} failed: {type(e).__name__}: {e}", file=sys.stderr)
        return {"title": "", "columns": [], "whole": None, "error": f"{type(e).__name__}: {e}"}
    fig["error"] = ""
    if d:
        from simulate.sweep import cache_store

        assert key is not None  # set whenever d is
        cache_store(d, key, fig)
    return _phone_widths(fig)


def _draw(rep, dpi: int) -> dict:
    """Draw the claim's figure once: cut into columns (:func:`verify.presenting.plot.make_figure`),
    or whole
    when its verification registers its own ``plot``."""
    from ..registry import REGISTRY
    from . import panels
    from .plot import make_figure

    v = REGISTRY.get(rep.claim)
    if v is not None and v.plot is not None:  # a registered plot takes (report, path, dpi)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, f"{rep.claim}.png")
            small = panels.drawn_by(v.plot, rep, p, dpi=dpi)  # its smallest type, measured
            return panels.whole(pathlib.Path(p).read_bytes(), small or UNKNOWN_MIN_FONT)
    return panels.cut(make_figure(rep), dpi)


def _phone_widths(fig: dict) -> dict:
    """Give a figure kept whole the width (CSS px) it takes on a phone: its smallest type
    :data:`PHONE_TEXT_PX` pixels high (it scrolls sideways in its box)."""
    w = fig.get("whole")
    if w:
        w["phone_width"] = (math.ceil(w["inches"] * PHONE_TEXT_PX * 72 / w["min_font"])
                            if w.get("inches") and w.get("min_font") else w["width"])
    return fig


def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int,)):
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        s = str(x)
        return s if len(s) <= 60 else s[:57] + "…"
    from .formatting import fmt

    return fmt(f)  # the command line's number format: 4 digits, 'n/a' for NaN, '∞'



def _params(p: dict) -> str:
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in p.items())


def _check_rows(rep):
    from .formatting import group_checks

    rows = []
    for g in group_checks(rep.checks):
        q, f = g.key
        finite = [c.ratio for c in g.checks if isinstance(c.ratio, float)
                  and math.isfinite(c.ratio)]
        rows.append({"quantity": cite_numbers(q), "form": f, "deciding": f == rep.primary_form,
                     "primary": g.primary,
                     "method": g.method, "n": len(g.checks), "holds": g.holds,
                     "violated": g.violated,
                     "inconclusive": g.inconclusive,
                     "max_ratio": _fmt(max(finite)) if finite else "—",
                     "verdict": g.verdict})
    return rows


def _worst(rep, n=5):
    from .formatting import fmt_ratio

    def ratio(c):
        return c.ratio if isinstance(c.ratio, float) and math.isfinite(c.ratio) else 1e300

    bad = sorted((c for c in rep.checks if c.verdict != "holds"),
                 key=lambda c: (not c.primary, -ratio(c)))[:n]
    out = []
    for c in bad:
        se = f" ± {_fmt(c.stderr)} (se)" if c.stderr else ""
        out.append({"verdict": c.verdict, "quantity": cite_numbers(c.quantity), "form": c.form,
                    "primary": c.primary,
                    "empirical": _fmt(c.empirical) + se, "relation": c.relation,
                    "bound": _fmt(c.scaled_bound),
                    "ratio": fmt_ratio(c), "params": _params(c.params), "note": c.note,
                    "method": c.method})
    return out


def _tightest(rep):
    from .formatting import fmt_ratio

    fin = [c for c in rep.checks if c.primary and isinstance(c.ratio, float)
           and math.isfinite(c.ratio)
           and c.relation in ("<=", "<")]
    if not fin:
        return None
    c = max(fin, key=lambda c: c.ratio)
    return {"quantity": c.quantity, "form": c.form, "ratio": fmt_ratio(c),
            "params": _params(c.params)}


def _readings(rep, verdicts: dict | None = None):
    """The claim's readings with their verdicts and supporting quotes.  ``verdicts``: per-reading
    verdicts that replace this run's (a figure claim's stored run at the paper's settings).  A quote
    that every reading shares
    is shown once, as ``common`` (the readings then differ only in their thresholds)."""
    defs = {getattr(r, "name", ""): r for r in (getattr(rep, "reading_defs", ()) or ())}
    out = []
    for name, verdict in (verdicts if verdicts else (getattr(rep, "readings", None) or {})).items():
        parts = [defs.get(p) for p in name.split(" + ")]
        out.append({"name": name, "verdict": verdict,
                    "quotes": [{"quote": getattr(d, "quote", ""),
                                "meaning": getattr(d, "meaning", "")}
                               for d in parts if d is not None
                                   and bool(getattr(d, "quote", "") or getattr(d, "meaning", ""))]})
    quotes = {q["quote"] for r in out for q in r["quotes"]}
    common = ""
    if len(out) > 1 and len(quotes) == 1 and all(r["quotes"] for r in out):
        common = quotes.pop()
        for r in out:
            r["quotes"] = [{"quote": "", "meaning": q["meaning"]} for q in r["quotes"]]
    return {"entries": out, "common": common}


def _audit_rows():
    try:
        from .. import audit
    except ImportError:  # pragma: no cover
        return [], {}
    rows = audit.rows()
    try:
        statuses = audit.claim_statuses()
    except Exception:  # statuses are a summary; the rows are what the report shows
        statuses = {}
    return rows, statuses


def _ce_text(ce) -> str:
    if not ce:
        return ""
    at = ", ".join(f"{k} = {_fmt(v)}" for k, v in (ce.get("at") or {}).items())
    lhs, rhs = ce.get("lhs"), ce.get("rhs")
    return f"at {at}: left side {_fmt(lhs)}, right side {_fmt(rhs)}"


def _step(r):
    return {"id": r["id"], "location": r["location"], "status": r["status"],
            "affected": r["affected"],
            "printed": f"{r['lhs']}  {r['relation']}  {r['rhs']}",
            "justification": r["justification"],
            "detail": r["detail"], "method": r["method"],
            "counterexample": _ce_text(r["counterexample"]),
            "correction": r["correction"] or "", "gap": r["gap"] or "", "statement": r["statement"],
            "established": _established(r), "correction_status": r.get("correction_status") or "",
            "severity": r.get("severity") or "", "severity_line": _severity_line(r),
            "severity_fields": r, "certificate": r.get("certificate") or ""}


def _severity_line(f: dict) -> str:
    from ..judging.severity import reason_line

    return reason_line(f) if f.get("severity") else ""


def _severity(f: dict, ids=frozenset(), anchors: dict | None = None) -> dict:
    """A finding's severity as the page shows it: ``severity``, ``reason``, ``quote`` (the
    deciding sentence, whole: its mathematics is rendered), ``see`` (the entry where a shared
    erratum is recorded) with ``see_anchor`` (its place on the page, from ``anchors``, or ''),
    and ``headline`` (:func:`headline`); {} without a severity."""
    if not f.get("severity"):
        return {}
    reason = " ".join(f["severity_reason"].split())
    see = f.get("see") or ""
    return {"severity": f["severity"], "reason": reason.rstrip(" ."),
            "quote": " ".join(f["severity_quote"].split()), "see": see,
            "see_anchor": (anchors or {}).get(see, ""), "headline": headline(reason, ids)}


#: abbreviations after which ". " does not end a sentence
_ABBREV = ("Eq", "Eqs", "Fig", "Sec", "Thm", "App", "al", "e.g", "i.e", "cf", "vs", "resp")


def _top_level(text: str, seps: tuple[str, ...]) -> list[int]:
    """Positions of the separators ``seps`` in ``text`` outside brackets and quotes."""
    out, depth, quote = [], 0, False
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch in "“”":
            quote = ch == "“"
        if depth or quote:
            continue
        for sep in seps:
            if text.startswith(sep, i):
                if sep == ". " and (not text[i + 2:i + 3].isupper()
                                    or text[:i].rsplit(" ", 1)[-1] in _ABBREV):
                    continue
                out.append(i)
    return out


def _mentions(text: str, ids) -> bool:
    """Whether ``text`` names an internal id (a step or claim id) or a rule number."""
    words = {w.rstrip(".") for w in re.findall(r"[\w.]+", text)}
    return bool(words & set(ids)) or bool(re.search(r"\brecorded (?:once )?at\b|\brule \d", text))


#: a bracketed remark after a space: " (...)" (one level of brackets inside) or " [...]"
_BRACKETED = re.compile(r" \((?:[^()]|\([^()]*\))*\)| \[[^\[\]]*\]")


def headline(reason: str, ids=frozenset(), limit: int = 120) -> str:
    """The first line of a finding: its reason's first clause, without internal ids.

    Parameters
    ----------
    reason : str
        A severity's reason (verify/documents/*/severity.json).
    ids : set of str
        Internal ids (audit steps, claims): a bracketed remark or clause that names one is left
        out ("(rule 1, recorded at theorem3.var.3)", "[recorded once at lemma5.2]").
    limit : int
        Longest headline in characters, before an ellipsis.

    Returns
    -------
    str
    """
    t = " ".join(reason.split())
    ends = _top_level(t, ("; ", ". "))
    t = t[:ends[0]] if ends else t.rstrip(".")
    # bracketed remarks (after a space) that name an id go; so do clauses that do
    t = _BRACKETED.sub(lambda m: "" if _mentions(m.group(0), ids) else m.group(0), t)
    cuts = _top_level(t, (", ", ": "))
    pieces = [t[a:b] for a, b in zip([0, *cuts], [*cuts, len(t)])]
    t = "".join(p for k, p in enumerate(pieces) if k == 0 or not _mentions(p, ids))
    if len(t) > limit:  # shorter: without the bracketed remarks (words, not "(0, 1)"), then
        # up to a clause
        t = _BRACKETED.sub(lambda m: "" if len(re.findall(r"[A-Za-z]{3,}", m.group(0))) > 1
                           else m.group(0), t)
    if len(t) > limit:
        cuts = [c for c in _top_level(t, (", ", ": ", " and ", " while ")) if 30 <= c <= limit]
        t = (t[:cuts[-1]] if cuts else t[:limit].rsplit(" ", 1)[0]).rstrip(",:; ") + " …"
    return t


def _decisive(rep) -> str:
    """Reading rule 5: the counterexample that decides the final status, as one line."""
    step = rep.decisive_step() if hasattr(rep, "decisive_step") else None
    if step is not None:
        ce = (step.get("outcome") or {}).get("counterexample")
        return (f"audit step {step['id']} ({step['status']}"
                + (f", read as: {step['reading']}" if step.get("reading") else "")
                + ")" + (": " + _ce_text(ce) if ce else ""))
    c = rep.decisive() if hasattr(rep, "decisive") else None
    if c is None:
        return ""
    return (f"{cite_numbers(c.quantity)} ({c.form}{', ' + c.reading if c.reading else ''}): "
            f"empirical {_fmt(c.empirical)} "
            f"against the bound {_fmt(c.scaled_bound)} ({c.relation}) at {_params(c.params)}")


def _established(r) -> str:
    """How a step's status was established, in a few words (the evidence behind it)."""
    e = r.get("established_by") or ""
    if e == "search":
        ratio = r.get("best_ratio")
        near = f"; closest lhs/rhs {_fmt(ratio)}" if ratio is not None else ""
        return (f"by adversarial search: {r.get('evaluations')} evaluations, "
                f"{len(r.get('regimes') or [])} regimes{near}")
    return {"proof": "by proof", "counterexample": "by an exact counterexample",
            "definition": "a definition",
            "reading": "by reading the text", "instances": "on fixed instances only"}.get(e, "")


def settled_text(settled: Counter) -> str:
    """The checks counted by where they were decided (docs/methods.md, section 12)."""
    order = ["exact", "float64"]
    order += sorted((k for k in settled if k.startswith("arb-")), key=lambda k: int(k[4:]))
    order += [k for k in ("symbolic", "monte-carlo") if k in settled]
    order += sorted(k for k in settled if k not in order)
    words = {"exact": "exact (rationals)", "float64": "float64 with a proved error bound",
             "symbolic": "symbolic", "monte-carlo": "Monte Carlo (statistical, alpha 1e-3)"}
    def word(k):
        if k.startswith("arb-"):
            return f"ball arithmetic at {k[4:]} bits"
        return words.get(k, k)

    return "; ".join(f"{settled[k]} {word(k)}" for k in order if settled.get(k)) + (
        f" ({sum(settled.values())} checks)")


def _provenance(mode, seed, elapsed, claims=(), settled: Counter | None = None):
    import importlib.metadata as md

    import matplotlib
    import numpy
    import scipy
    import sympy

    try:
        version = md.version("mcsa-verify")
    except md.PackageNotFoundError:
        version = "not installed (source tree)"
    return [("package", f"mcsa-verify {version}"), ("mode", mode), ("seed", str(seed)),
            ("date", _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")),
            ("run time", run_time_text(elapsed, list(claims))),
            ("command", "python -m verify report " + ("--full" if mode == "full" else "--quick")
             + f" --seed {seed}"),
            ("Python", platform.python_version()), ("numpy", numpy.__version__),
            ("scipy", scipy.__version__),
            ("sympy", sympy.__version__), ("matplotlib", matplotlib.__version__),
            ("machine", f"{platform.platform()}; {platform.machine()}; {os.cpu_count()} CPUs")] + (
                [("checks decided by", settled_text(settled))] if settled else [])


def _doc_figures(min_fonts: dict | None = None):
    """The stored reproductions at the paper's settings (packaged: verify/data/figures);
    ``min_fonts``: claim -> the smallest type of its figure as this run drew it (the same plot
    drew the stored one)."""
    from ..running.reproductions import reproducible, stored_png, stored_run
    from . import panels

    out = []
    for cid in reproducible():
        png = stored_png(cid)
        if png is None:
            continue
        # the stored run's own verdicts (its settings may differ from this report's run)
        stored = stored_run(cid)
        out.append({"name": cid.replace("_", " "), "file": f"{cid}.png", "stored": stored,
                    "figure": _phone_widths(panels.whole(
                        png, (min_fonts or {}).get(cid) or UNKNOWN_MIN_FONT))})
    return out


def build(mode: str = "quick", seed: int = 0, dpi: int = 90, show_progress: bool = False, ids=None,
          reports: dict | None = None, cache: bool = True) -> dict:
    """Run every claim once (or take its Report from ``reports``) and collect what the
    template shows."""
    import bounds

    from ..decide import ALPHA
    from ..model import DEPENDS
    from ..registry import REGISTRY
    from ..running.outcome import run_verification
    from .plot import claim_name, z_text

    t0 = time.perf_counter()
    ids = list(ids) if ids is not None else claim_ids()
    bar = progress(total=len(ids) + 1, desc="report", enabled=show_progress)
    steps, statuses = [], {}
    claims = []
    settled: Counter = Counter()  # where each check was decided (provenance)
    try:
        for cid in ids:
            bar(f"{cid}: checks")
            v = REGISTRY[cid]
            rep = (reports or {}).get(cid) or run_verification(v, mode, seed=seed)
            settled.update(c.settled_by or "not recorded" for c in rep.checks)
            bar(f"{cid}: figure")
            drawn = getattr(rep, "figure_view", None)  # drawn beside the claim in its worker
            fig = _phone_widths(drawn) if isinstance(drawn, dict) and not drawn.get(
                "error") else _figure(rep, dpi, mode, cache)
            try:
                c = bounds.get(cid)
                title, source, full = c.title, cite(c.source), cite(c.source, full=True)
                assumptions = [(a, bounds.ASSUMPTIONS.get(a, "")) for a in c.assumptions]
                notes = list(c.notes)
            except Exception:  # a registered claim outside the bounds library
                title, source, full, assumptions, notes = v.measures, "", "", [], []
            n_mc = sum(1 for x in rep.checks if x.method == "monte-carlo")
            from ..running.reproductions import shown_status
            from ..running.runner import checks_text

            shown: dict = (shown_status(cid, rep.verdict,
                                  mode) if v.reproduction is not None else {"smoke_test": None})
            status = shown.get("status", rep.verdict)
            from ..judging.severity import fields as _sev_fields

            sev = _sev_fields("claims", cid, status)
            st_obj = rep.status
            rules = [(what, "; ".join(names)) for what, names in (
                ("degenerate, excluded (rule 3)",
                 (shown.get("reading_rules") or {}).get("degenerate")
                 or st_obj.degenerate),
                ("ruled out by the document (rule 6)", st_obj.ruled_out),
                ("fails only read strictly; the hedged reading holds (rule 2)",
                 st_obj.strict_only)) if names]
            stored_readings = ((shown.get("final_readings") or None)
                               if shown["smoke_test"] is not None else None)
            readings = _readings(rep, stored_readings)
            readings["basis"] = ("the stored full run at the paper's settings" if stored_readings
                                 else "")
            claims.append({
                "id": cid, "anchor": f"claim-{cid}", "name": claim_name(cid), "title": title,
                "source": source,
                "source_full": full, "assumptions": assumptions, "notes": notes, "status": status,
                "status_text": (
                    f"{status} at the paper's settings (stored full run); this report's reduced "
                    f"run, a smoke test of the same code: {rep.verdict}"
                                if shown["smoke_test"] is not None else
                                cite_numbers(status
                                             + (f" (fails under: {'; '.join(rep.failing_readings)})"
                                             if status == DEPENDS
                                             and getattr(rep, "failing_readings", None)
                                             else ""))),
                "smoke_test": shown["smoke_test"],
                "severity": sev.get("severity") or "", "severity_line": _severity_line(sev),
                "severity_fields": sev,
                "certificate": sev.get("certificate") or "", "rules": rules,
                "decisive": _decisive(rep) if shown["smoke_test"] is None else "",
                "deciding": rep.primary_form, "form_verdicts": rep.form_verdicts(),
                "readings": readings,
                "measures": v.measures, "targets": v.targets, "method": v.method, "forms": v.forms,
                "n_checks": len(rep.checks), "n_mc": n_mc,
                "mc_text": (
                    f"Monte Carlo verdicts keep the false-violation rate at most {ALPHA:g} for "
                    f"this claim "
                            f"(Bonferroni over {n_mc} checks: {z_text(rep.checks)}); "
                            "error bars in the figure are z × standard error.") if n_mc else "",
                "elapsed": rep.elapsed_s, "cached": bool(getattr(rep, "cached", False)),
                "checks_text": checks_text(rep), "figure": fig, "figure_error": fig["error"],
                "own_figure": v.plot is not None,
                "checks": _check_rows(rep), "worst": _worst(rep), "tightest": _tightest(rep),
                "steps": [],
            })
            bar.update()
        bar("proof audit")
        rows, statuses = _audit_rows()
        by_claim = defaultdict(list)
        for r in rows:
            by_claim[r["claim"]].append(_step(r))
        for c in claims:
            c["steps"] = by_claim.get(c["id"], [])
            c["audit_status"] = statuses.get(c["id"], "no proof audited")
        steps = [_step(r) | {"claim": r["claim"], "seed": r["seed"]} for r in rows]
        bar.update()
    finally:
        bar.close()
    # what a finding's first line leaves out: the internal ids of steps and claims
    internal = frozenset({r["id"] for r in rows} | set(REGISTRY) | {c["id"] for c in claims})
    anchors = {}  # each wrong or loose step's row in the errata, once
    for s in steps:
        if s["status"] in ("wrong", "loose") and s["id"] not in anchors:
            anchors[s["id"]] = s["anchor"] = f"step-{s['id']}"
    anchors.update({c["id"]: c["anchor"] for c in claims})
    for s in [*steps, *(x for c in claims for x in c["steps"])]:
        s["sev"] = _severity(s.pop("severity_fields"), internal, anchors)
        s.setdefault("anchor", "")
    for c in claims:
        c["sev"] = _severity(c["severity_fields"], internal, anchors)
        c["headline"] = c["sev"].get("headline") or c["title"]
    from ..judging.severity import MEANING, SEVERITIES, order_key

    errata = []
    for severity in (*SEVERITIES, ""):  # false first, then gap, then the rest
        # the bibliography's order, then users' documents
        for doc in documents(s["seed"] for s in steps):
            group = [s for s in steps if document_key(s["seed"]) == doc
                     and s["status"] in ("wrong", "loose")
                     and s["severity"] == severity]
            if group:
                errata.append({"document": citation(doc, full=True), "short": citation(doc),
                               "steps": group,
                               "severity": severity,
                               "meaning": MEANING.get(severity, "no severity recorded")})
    findings = [s for s in steps if s["status"] in ("wrong", "loose")]
    severity_counts = [(sv, n) for sv in SEVERITIES
                       for n in [sum(s["severity"] == sv for s in findings)] if n]
    claim_severity_counts = [(sv, n) for sv in SEVERITIES
                             for n in [sum(c["severity"] == sv for c in claims)] if n]
    claims_by_severity = sorted((c for c in claims if c["severity"]),
                                key=lambda c: order_key(c["severity"]))
    counts = Counter(c["status"] for c in claims)
    return {
        "claims": claims, "errata": errata, "claim_ids": [c["id"] for c in claims],
        "summary_counts": [(s, counts[s]) for s in STATUS_ORDER if counts.get(s)],
        "audit_counts": Counter(s["status"] for s in steps),
        "severity_counts": severity_counts, "claim_severity_counts": claim_severity_counts,
        "claims_by_severity": claims_by_severity,
        "reproductions": [c for c in claims if REGISTRY[c["id"]].reproduction is not None],
        "doc_figures": _doc_figures({c["id"]: (c["figure"].get("whole") or {}).get("min_font")
                                     for c in claims}),
        "references": bibliography([*(s["seed"] for s in steps),
                                    *(bounds.get(c["id"]).source for c in claims if c["source"])]),
        "provenance": _provenance(mode, seed, time.perf_counter() - t0, claims, settled),
        "mode": mode,
        "seed": seed,
        "alpha": ALPHA, "colours": STATUS_COLOURS,
        "severity_meanings": [(sv, MEANING[sv]) for sv in SEVERITIES],
    }


def render(data: dict) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(pathlib.Path(__file__).parents[1]
                                                                / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    from .mathml import render as tex

    # the texts' TeX as MathML (verify.presenting.mathml), the rest escaped
    env.filters["tex"] = tex
    return env.get_template(TEMPLATE).render(**data)

