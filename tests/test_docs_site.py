"""The documentation site (docs/): it builds with warnings as errors and renders offline.

The site is built once per module with Sphinx (``-W``) from a copy of docs/ in a temporary
directory (so the checkout's docs/_generated and docs/_build are left alone), with the
notebooks not executed and the claims' figures not drawn: the full build, which does both,
is ``python -m sphinx -W -b html docs docs/_build/html`` (minutes; tests/test_notebooks.py
executes the notebooks here).  Two pages, the index and the generated page of Kim et al.
(NeurIPS 2022), and a search are opened in headless Chromium through the DevTools protocol
(verify.presenting.browser, as tests/test_report.py): they render, MathJax typesets the formulas
from the
site's own copy, the search finds the claim, the console shows no error, and nothing but
files of the site is requested.

Skipped, saying why, when the docs extra (Sphinx, myst-nb, furo, django-static-mathjax) is
not installed, or when no browser is (see tests/test_report.py).
"""

from __future__ import annotations

import base64
import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest
from test_report import browser  # skips (or fails under CI) when no Chromium is installed

from verify.presenting.browser import DevTools  # the DevTools client over --remote-debugging-pipe

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOC_PAGE = "_generated/documents/kim-et-al-neurips-2022.html"
NEEDED = {"sphinx": "Sphinx", "myst_nb": "myst-nb", "furo": "furo",
          "mathjax": "django-static-mathjax"}


def _docs_extra():
    missing = [dist for mod, dist in NEEDED.items() if importlib.util.find_spec(mod) is None]
    if missing:
        pytest.skip(
            f"the docs extra is not installed (missing {', '.join(missing)}): pip install -e "
            f"'.[docs]'")


def build(out: pathlib.Path, *options: str) -> subprocess.CompletedProcess:
    """Build the site from a copy of docs/ (without its generated files) into ``out``."""
    src = out.parent / "src"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_build", "_generated", "__pycache__"))
    # pages include files of the repository beside docs/ (docs/own-claim.md: ../examples/...)
    shutil.copytree(ROOT / "examples", out.parent / "examples",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    # and the data contract's schemas (docs/own-claim.md: ../bounds/schemas/...)
    shutil.copytree(ROOT / "bounds" / "schemas", out.parent / "bounds" / "schemas")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d",
           str(out.parent / "doctrees"),
           "-D", f"mcsa_root={ROOT}", *options, str(src), str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def site():
    _docs_extra()
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / "html"
        r = build(out, "-D", "nb_execution_mode=off", "-D", "mcsa_claim_figures=0")
        yield out, r


def open_page(exe: str, path: pathlib.Path | str, width: int = 1280, height: int = 1000,
              settle: float = 0,
              until: str | None = None) -> dict:
    """Load ``path`` (a file, or a file:// URL) in headless Chromium; wait for its images and
    MathJax; return what the page showed: console and log events, every requested URL, facts read
    from the DOM and a screenshot (taken ``settle`` seconds after the formulas are typeset: the
    theme scrolls
    smoothly to a #fragment).  ``until``: a JS condition awaited (at most 30 s) first."""
    with tempfile.TemporaryDirectory() as profile:
        dt = DevTools(exe, profile)
        try:
            targets = dt.send("Target.getTargets")["targetInfos"]
            target = next(t for t in targets if t["type"] == "page")
            sid = dt.send("Target.attachToTarget",
                          {"targetId": target["targetId"], "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                dt.send(f"{domain}.enable", session=sid)
            dt.send("Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                    session=sid)
            dt.events.clear()
            dt.send("Page.navigate", {"url": path if isinstance(path, str) else path.as_uri()},
                    session=sid)
            dt.wait_for("Page.loadEventFired", timeout=120)

            def js(expr):
                r = dt.send("Runtime.evaluate",
                            {"expression": expr, "returnByValue": True, "awaitPromise": True},
                            session=sid, timeout=120)
                if "exceptionDetails" in r:
                    raise AssertionError(r["exceptionDetails"])
                return r["result"].get("value")

            js("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")
            mathjax = js("window.MathJax && MathJax.startup && MathJax.startup.promise"
                         " ? MathJax.startup.promise.then(() => 'typeset') : 'absent'")
            if until:
                js("new Promise(r => { const t0 = Date.now(); (function p() { "
                   f"if (({until}) || Date.now() - t0 > 30000) r(); else setTimeout(p, 100); "
                   f"}})(); }})")
            if settle:
                js(f"new Promise(r => setTimeout(r, {settle * 1000:.0f}))")
            shot = dt.send("Page.captureScreenshot", {"format": "png"}, session=sid)["data"]
            facts = js("""({
                title: document.title,
                math: document.querySelectorAll('.math').length,
                typeset: document.querySelectorAll('mjx-container').length,
                mathErrors: document.querySelectorAll('mjx-merror').length,
                brokenImages: [...document.images]
                    .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
                text: document.body.innerText,
                links: [...document.querySelectorAll('a.reference.internal')]
                    .map(a => a.getAttribute('href')),
                results: [...document.querySelectorAll('#search-results li a')]
                    .map(a => a.getAttribute('href')),
                badges: Object.fromEntries([...document.querySelectorAll('section[id^="claim-"]')]
                    .map(s => [s.id.slice(6),
                               (s.querySelector('.mcsa-status') || {}).textContent])),
            })""")
            requests = [e["params"]["request"]["url"] for e in dt.events
                        if e.get("method") == "Network.requestWillBeSent"]
            return {"events": list(dt.events), "requests": requests, "mathjax": mathjax,
                    "facts": facts,
                    "screenshot": base64.b64decode(shot)}
        finally:
            dt.close()


def errors(events) -> list:
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(("console", [a.get("value", a.get("description"))
                                    for a in p.get("args", [])]))
        elif m == "Runtime.exceptionThrown":
            out.append(("exception", p.get("exceptionDetails", {}).get("text")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append(("log", p["entry"].get("text"), p["entry"].get("url")))
        elif m == "Network.loadingFailed":
            out.append(("network", p.get("errorText")))
    return out


@pytest.fixture(scope="module")
def pages(site):
    out, r = site
    assert r.returncode == 0, f"sphinx -W failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    exe = browser()
    pages = {name: open_page(exe, out / name) for name in ("index.html", DOC_PAGE)}
    finished = "/Search finished/.test((document.querySelector('#search-results') || {}).innerText)"
    pages["search"] = open_page(exe, (out / "search.html").as_uri() + "?q=theorem3", until=finished)
    return pages


def test_site_builds_with_warnings_as_errors(site):
    out, r = site
    assert r.returncode == 0, f"sphinx -W failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    for page in ("index.html", "getting-started.html", "api.html", "ERRATA.html", "coverage.html",
                 "figures.html",
                 "own-claim.html", "methods.html", "references.html", "notebooks.html",
                 "_generated/claims.html",
                 DOC_PAGE):
        assert (out / page).is_file(), page
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert (notebooks
            and sorted(p.stem for p in (out / "_generated" / "notebooks").glob("*.html"))
            == notebooks)
    assert (out / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()


def test_no_page_references_the_network(site):
    """No script, stylesheet, image, font or frame of any built page comes from http(s)."""
    out, _ = site
    pattern = re.compile(
        r"<(?:script|link|img|iframe|source|embed)\b[^>]*?\b(?:src|href)=[\"'](?:https?:)?//", re.I)
    bad = {str(p.relative_to(out)): pattern.findall(p.read_text(encoding="utf-8"))
           for p in out.rglob("*.html")}
    assert {k: v for k, v in bad.items() if v} == {}
    remote = re.compile(r"url\(\s*[\"']?(?:https?:)?//|@import\s+[\"']?(?:url\()?\s*[\"']?https?:")
    css = [p for p in (out / "_static").rglob("*.css") if remote.search(p.read_text("utf-8"))]
    assert css == []


def test_pages_render_offline_without_console_errors(pages):
    for name, page in pages.items():
        assert errors(page["events"]) == [], name
        foreign = [u for u in page["requests"] if not u.startswith(("file://", "data:"))]
        assert foreign == [], f"{name} fetched {foreign}"
        assert page["facts"]["brokenImages"] == [], name
        assert page["facts"]["title"].startswith(("mcsa-verify", "Kim et al.",
                                                  "Search")), page["facts"]["title"]


def test_search_works_offline(pages):
    results = pages["search"]["facts"]["results"]
    assert any(r.startswith(DOC_PAGE) for r in results), results


def test_formulas_are_typeset_by_the_local_mathjax(pages):
    page = pages[DOC_PAGE]
    assert page["mathjax"] == "typeset"
    assert any(u.startswith("file://")
               and u.split("?")[0].endswith("_static/mathjax/tex-mml-chtml.js")
               for u in page["requests"])
    f = page["facts"]
    assert f["math"] > 50 and f["typeset"] >= f["math"], f  # every formula of the page typeset
    assert f["mathErrors"] == 0


def test_document_page_shows_the_committed_statuses(pages):
    """Each claim's badge on the generated page is its status in verify/data/verdicts.json."""
    from verify.running.resources import read_json

    verdicts = read_json("verdicts.json")["verdicts"]
    shown = pages[DOC_PAGE]["facts"]["badges"]
    assert {"theorem3", "lemma5", "figure1"} <= set(shown)
    assert shown == {c: verdicts[c] for c in shown}
    text = pages[DOC_PAGE]["facts"]["text"]
    assert "Theorem 3" in text and "fails under" in text


def test_index_links_every_section(pages):
    links = pages["index.html"]["facts"]["links"]
    for target in ("getting-started.html", "_generated/claims.html", "ERRATA.html", "coverage.html",
                   "figures.html",
                   "notebooks.html", "api.html", "own-claim.html", "methods.html",
                   "references.html"):
        assert target in links, target
