"""`python -m verify report`: the HTML report, opened in a real browser.

The report is built once per session (quick mode; about 30-60 s on 2 cores) and opened in
headless Chromium driven through the DevTools protocol over ``--remote-debugging-pipe``
(file descriptors 3 and 4: no port, no network, no extra Python package).  Why the pipe:
it is the browser's own machine interface, so console messages, uncaught exceptions and
log entries (a blocked fetch, a broken image, a CSP violation) arrive as structured
events rather than as text parsed out of the browser's stderr, whose format changes
between versions and is mixed with the browser's own diagnostics (dbus, GPU).

Checks: the page loads with no console error, no exception and no error log entry; every
claim's section and figure is there and decoded; every internal link (#anchor) resolves;
nothing but data: URIs is referenced; the screenshot is not blank.

The browser is Debian's ``chromium`` (``bash .ci/run`` installs it with apt-get when it
is missing).  The test is skipped only when no browser can be installed: when .ci/run
could not install it (it sets MCSA_NO_BROWSER to the reason), or outside CI when none is
found; under CI=true a missing browser is a failure.
"""

from __future__ import annotations

import base64
import fcntl
import io
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--window-size=1280,1600", "--hide-scrollbars"]


def browser() -> str:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    why = os.environ.get("MCSA_NO_BROWSER")
    if why:
        pytest.skip(f"no browser could be installed: {why}")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("Chromium is missing under CI: bash .ci/run installs it with apt-get (Debian package chromium)")
    pytest.skip("no Chromium found (/usr/bin/chromium); install it with `apt-get install -y chromium` "
                "or run `bash .ci/run`, which does")


@pytest.fixture(scope="module")
def report_dir():
    from verify.report import cached_runs, cmd_report

    with tempfile.TemporaryDirectory() as d:
        import contextlib

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            # the quick run shared with tests/test_plot.py (each claim runs once per session)
            status = cmd_report(["--out", d, "--quick", "--seed", "0", "--dpi", "60"], reports=cached_runs("quick", 0))
        yield pathlib.Path(d), status, out.getvalue()


class DevTools:
    """A minimal Chrome DevTools protocol client over --remote-debugging-pipe."""

    def __init__(self, exe: str, profile: str):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def fds():  # the browser reads commands on fd 3 and writes replies on fd 4
            # copy above 10 first: dup2(3, 3) would keep the close-on-exec flag of a pipe that is fd 3
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.close(a)
            os.close(b)

        # close_fds=False keeps fds 3 and 4 (every other descriptor Python opened is close-on-exec)
        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     preexec_fn=fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _read(self, timeout: float) -> dict | None:
        end = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self._from_chrome], [], [], left)
            if r:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser closed the DevTools pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self._read(end - time.monotonic())
            if m is None:
                break
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)
        raise TimeoutError(method)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        for e in self.events:
            if e.get("method") == method:
                return e
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self._read(end - time.monotonic())
            if m is None:
                break
            self.events.append(m)
            if m.get("method") == method:
                return m
        raise TimeoutError(method)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


@pytest.fixture(scope="module")
def page(report_dir):
    exe = browser()
    d, _, _ = report_dir
    with tempfile.TemporaryDirectory() as profile:
        dt = DevTools(exe, profile)
        try:
            targets = dt.send("Target.getTargets")["targetInfos"]
            target = next(t for t in targets if t["type"] == "page")
            sid = dt.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                dt.send(f"{domain}.enable", session=sid)
            dt.events.clear()
            dt.send("Page.navigate", {"url": (d / "report.html").as_uri()}, session=sid)
            dt.wait_for("Page.loadEventFired", timeout=120)

            def js(expr):
                r = dt.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                            session=sid)
                if "exceptionDetails" in r:
                    raise AssertionError(r["exceptionDetails"])
                return r["result"].get("value")

            js("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")
            shot = dt.send("Page.captureScreenshot", {"format": "png"}, session=sid)["data"]
            yield {"js": js, "events": list(dt.events), "screenshot": base64.b64decode(shot), "dir": d}
        finally:
            dt.close()


def test_command_writes_the_report_and_exits_0(report_dir):
    d, status, out = report_dir
    assert status == 0
    assert (d / "report.html").is_file()
    assert "report written to" in out and str((d / "report.html").resolve()) in out
    from verify.report import claim_ids

    for cid in claim_ids():
        assert cid in out  # the printed summary lists every claim
    from mcsa_cli import terminal_width

    long = [line for line in out.splitlines() if len(line) > terminal_width() and not line.startswith("report written")]
    assert not long, long  # the summary fits the terminal (wrapped, nothing cut)
    assert "smoke test of the same code" in out  # a figure claim's quick run is labelled as such


def test_page_renders(page):
    import matplotlib.image as mpimg

    img = mpimg.imread(io.BytesIO(page["screenshot"]), format="png")
    assert img.shape[0] > 500 and img.shape[1] > 500
    gray = img[..., :3].mean(axis=2)
    # not blank: dark text on a light page, with many distinct shades
    assert gray.std() > 0.05
    assert (gray < 0.3).mean() > 0.002
    assert len(np.unique(np.round(gray, 2))) > 20
    assert page["js"]("document.title").startswith("mcsa-verify report")


def test_every_claim_has_its_section_and_figure(page):
    from verify.report import claim_ids

    ids = claim_ids()
    found = page["js"]("""[...document.querySelectorAll('section.claim')].map(s => ({
        id: s.id,
        img: (() => { const i = s.querySelector('img.claim-figure');
                      return i ? [i.complete, i.naturalWidth, i.naturalHeight, i.src.slice(0, 22)] : null; })(),
        summary: !!document.querySelector('#summary ~ table a[href="#' + s.id + '"]')
    }))""")
    assert [s["id"] for s in found] == [f"claim-{c}" for c in ids]
    for s in found:
        assert s["img"] is not None, f"{s['id']}: no figure"
        complete, w, h, prefix = s["img"]
        assert complete and w > 200 and h > 200, f"{s['id']}: figure not decoded ({s['img']})"
        assert prefix == "data:image/png;base64,"
        assert s["summary"], f"{s['id']} is not linked from the summary table"


def test_internal_links_resolve(page):
    links = page["js"]("[...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href'))")
    assert len(links) > 30
    missing = page["js"]("""[...document.querySelectorAll('a[href^="#"]')]
        .map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id))""")
    assert missing == []
    for section in ("summary", "claims", "errata", "reproductions", "references", "provenance"):
        assert f"#{section}" in links


def test_self_contained(page):
    """Nothing but data: URIs and same-page anchors: the page fetches nothing."""
    external = page["js"]("""[...document.querySelectorAll('[src],[href]')]
        .map(e => e.getAttribute('src') || e.getAttribute('href'))
        .filter(u => !(u.startsWith('data:') || u.startsWith('#')))""")
    assert external == []
    requests = page["js"]("performance.getEntriesByType('resource').map(r => r.name)")
    assert requests == []


def test_no_console_errors(page):
    errors = []
    for e in page["events"]:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errors.append(p["exceptionDetails"].get("text"))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append(p.get("args"))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append(p["entry"].get("text"))
    assert errors == []


def test_console_errors_are_seen(report_dir, tmp_path):
    """The error detection can fail: a page with a script error and a missing image is caught."""
    exe = browser()
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><img src='missing.png'>"
                   "<script>console.error('boom'); undefinedFunction();</script></body></html>")
    with tempfile.TemporaryDirectory() as profile:
        dt = DevTools(exe, profile)
        try:
            target = next(t for t in dt.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
            sid = dt.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                dt.send(f"{domain}.enable", session=sid)
            dt.send("Page.navigate", {"url": bad.as_uri()}, session=sid)
            dt.wait_for("Page.loadEventFired")
            dt.send("Runtime.evaluate", {"expression": "1"}, session=sid)  # flush pending events
            methods = [e.get("method") for e in dt.events]
        finally:
            dt.close()
    assert "Runtime.exceptionThrown" in methods
    assert "Runtime.consoleAPICalled" in methods
    assert "Log.entryAdded" in methods


def test_report_contents(report_dir):
    html = (report_dir[0] / "report.html").read_text()
    for text in ("Errata", "Provenance", "numpy", "scipy", "sympy", "seed", "Markov Chain Score Ascent",
                 "NeurIPS 2022", "El hanchi", "Worst counterexamples", "Proof audit"):
        assert text in html, text
    assert "../shared" not in html and "seeds/" not in html
    assert "<script" not in html  # a static page
    # autoescape is on: a claim title with '<' (e.g. 'exp(KL) < w*') is escaped
    assert "&lt; w*" in html


def test_bad_input_exits_2_before_work(tmp_path, capsys):
    """One line naming the flag, exit 2, and nothing written (the checks never started)."""
    from mcsa_cli import run
    from verify.report import cmd_report

    f = tmp_path / "file"
    f.write_text("")
    new = tmp_path / "new"
    for argv, flag in ((["report", "--seed", "x", "--out", str(new)], "--seed"),
                       (["report", "--out", str(f)], "--out"),
                       (["report", "--quick", "--full", "--out", str(new)], "--full"),
                       (["report", "--dpi", "5", "--out", str(new)], "--dpi")):
        assert run("python -m verify", "", argv, {"report": cmd_report}, lambda c, a: 99) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and flag in err, err
        assert not new.exists()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
