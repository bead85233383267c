"""Open the HTML report in headless Chromium: measure its layout and take screenshots.

Chromium is driven through the DevTools protocol over ``--remote-debugging-pipe`` (file
descriptors 3 and 4: no port, no network, no extra Python package).  It is the browser's
own machine interface, so console messages, uncaught exceptions and log entries (a blocked
fetch, a broken image, a CSP violation) arrive as structured events rather than as text
parsed out of the browser's stderr.

Used by ``python -m verify report --screenshot PNG`` (the README's hero image,
docs/report.png) and by the browser test (tests/test_report.py).  The browser is
Debian's ``chromium`` (``apt-get install chromium``); :func:`find_browser` returns None
when none is installed.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--window-size=1280,1600", "--hide-scrollbars"]


def find_browser() -> str | None:
    """The path of a Chromium executable, or None."""
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class DevTools:
    """A minimal Chrome DevTools protocol client over --remote-debugging-pipe."""

    def __init__(self, exe: str, profile: str):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def fds():  # the browser reads commands on fd 3 and writes replies on fd 4
            # copy above 10 first: dup2(3, 3) would keep the close-on-exec flag of a pipe that is fd
            # 3
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

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 120):
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

    def wait_for(self, method: str, timeout: float = 120) -> dict:
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


class Page:
    """One page of a headless Chromium, at a given viewport width (CSS pixels).

    ``mobile=True`` emulates a phone (the page's ``<meta name="viewport">`` applies)."""

    def __init__(self, exe: str, width: int = 1280, height: int = 1600, mobile: bool = False):
        self._profile = tempfile.TemporaryDirectory()
        self.dt = DevTools(exe, self._profile.name)
        try:
            targets = self.dt.send("Target.getTargets")["targetInfos"]
            target = next(t for t in targets if t["type"] == "page")
            self.sid = self.dt.send("Target.attachToTarget",
                                    {"targetId": target["targetId"], "flatten": True})[
                "sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self.dt.send(f"{domain}.enable", session=self.sid)
            self.dt.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1,
                          "mobile": mobile},
                         session=self.sid)
            self.dt.events.clear()
        except BaseException:
            self.close()
            raise

    def open(self, uri: str) -> None:
        self.dt.send("Page.navigate", {"url": uri}, session=self.sid)
        self.dt.wait_for("Page.loadEventFired", timeout=120)
        self.js("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")

    def js(self, expr: str):
        r = self.dt.send("Runtime.evaluate",
                         {"expression": expr, "returnByValue": True, "awaitPromise": True},
                         session=self.sid)
        if "exceptionDetails" in r:
            raise RuntimeError(f"JavaScript error: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, height: int | None = None) -> bytes:
        """PNG of the viewport, or of the page's top ``height`` CSS pixels."""
        params: dict = {"format": "png"}
        if height is not None:
            w = self.js("window.innerWidth")
            params.update(clip={"x": 0, "y": 0, "width": w, "height": height, "scale": 1},
                          captureBeyondViewport=True)
        return base64.b64decode(self.dt.send("Page.captureScreenshot", params,
                                             session=self.sid)["data"])

    @property
    def events(self) -> list[dict]:
        return self.dt.events

    def close(self) -> None:
        try:
            if hasattr(self, "dt"):
                self.dt.close()
        finally:
            self._profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


#: JavaScript: the words (runs of letters and digits) of the page's table cells that a line
#: break splits, as [word, cell text] pairs; empty when no word is split inside.
SPLIT_WORDS_JS = r"""(() => {
  const out = [];
  for (const cell of document.querySelectorAll('td, th, .status, h1, h2, h3, nav a, dd, dt')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.data.matchAll(/[\p{L}\p{N}]+/gu)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                                     .map(x => Math.round(x.top)));
        if (tops.size > 1) out.push([m[0], cell.textContent.trim().slice(0, 80)]);
      }
    }
  }
  return out;
})()"""

#: JavaScript: {scrollWidth, innerWidth} of the page (a page that scrolls sideways has scrollWidth >
#: innerWidth)
PAGE_WIDTH_JS = "({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})"

#: JavaScript: what is left of TeX in the page's visible text, read with every <details> opened
#: (a closed one hides its text from innerText; they are closed again after): ``$...$`` spans,
#: ``\mathbf``, ``\(``, any other ``\command``; and the mathematics the browser renders as MathML
#: (``math`` elements in the MathML namespace, each with a box) or as the SVG fallback; ``source``:
#: spans shown as TeX source
RAW_TEX_JS = r"""(() => {
  const closed = [...document.querySelectorAll('details')].filter(d => !d.open);
  closed.forEach(d => { d.open = true; });
  const t = document.body.innerText;
  const math = [...document.querySelectorAll('math')];
  const widths = math.map(m => m.getBoundingClientRect().width);
  closed.forEach(d => { d.open = false; });
  return {dollar: (t.match(/\$[^$\n]+\$/g) || []),
          mathbf: (t.match(/\\mathbf/g) || []).length,
          paren: (t.match(/\\\(/g) || []).length,
          commands: [...new Set(t.match(/\\[A-Za-z]+/g) || [])],
          math: math.length,
          mathml: math.filter((m, k) => m.namespaceURI === 'http://www.w3.org/1998/Math/MathML'
                                        && widths[k] > 0).length,
          svg: document.querySelectorAll('svg.tex-svg').length,
          source: document.querySelectorAll('code.tex-source').length};
})()"""

#: JavaScript: the top of the summary table, in CSS pixels from the top of the page
SUMMARY_TOP_JS = ("(() => { const t = document.querySelector('#summary-table');"
                  " return t ? t.getBoundingClientRect().top + window.scrollY : null; })()")

#: JavaScript: every figure image (img.fig-piece) as laid out: its figure's id, whether it is a
#: column of panels, its box, and the height in CSS pixels of its smallest type (its smallest
#: font in points, data-min-font, at its width in the figure's inches, data-inches)
FIGURE_TEXT_JS = r"""[...document.querySelectorAll('img.fig-piece')].map(i => {
  const r = i.getBoundingClientRect();
  const inches = parseFloat(i.dataset.inches), pt = parseFloat(i.dataset.minFont);
  return {figure: (i.closest('figure') || {}).id || '', column: i.classList.contains('fig-col'),
          left: r.left, right: r.right, top: r.top + window.scrollY,
          bottom: r.bottom + window.scrollY, width: r.width,
          text_px: pt * r.width / inches / 72};
})"""
