"""verify.presenting.mathml: the TeX of the report's texts as MathML, and the summary's one-line
findings.

Every quote the report shows (severity reasons and their deciding sentences, the readings' quotes)
is rendered here without a browser: no TeX command may be left in the text (outside the MathML's
``alttext``), and no span may fall back to its source.  The browser test (tests/test_report.py)
checks the same on the built page, in Chromium.
"""

from __future__ import annotations

import re
import time

import pytest

from verify.presenting import mathml
from verify.presenting.report import headline


def visible(html: str) -> str:
    """The text a reader sees of ``html``: tags and the TeX kept in attributes dropped."""
    html = re.sub(r'\s(alttext|aria-label)="[^"]*"', "", html)
    html = re.sub(r"<svg.*?</svg>", "[svg]", html, flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


def left_tex(html: str) -> list[str]:
    text = visible(html)
    return re.findall(r"\$[^$]+\$|\\[A-Za-z]+|\\\(|\\\[", text)


def document_texts() -> list[str]:
    """Every severity reason and deciding sentence of the document packages
    (verify.judging.severity)."""
    from verify.judging.severity import loaded

    return [e[k] for d in loaded().values() for kind in ("steps", "claims")
            for e in d[kind].values() for k in ("reason", "quote")]


def test_every_quote_renders_without_tex():
    texts = [t for t in document_texts() if mathml.has_tex(t)]
    assert len(texts) > 40
    bad = {}
    for t in texts:
        html = str(mathml.render(t))
        if left_tex(html) or "tex-source" in html:
            bad[t[:60]] = left_tex(html) or "tex-source"
    assert bad == {}


@pytest.mark.parametrize("text, maths", [
    ("the bias terms decreases in a rate of $r^t$ .", 1),
    ("we obtain \\(N\\) unbiased estimates of the marginal rejection rate \\(r\\)", 2),
    ("ensures that \\mathbf{G} remains positive definite", 1),
    ("&\\leq \\log \\mathbb{E}_{\\mathbf{z} \\sim \\pi(\\cdot)} [w^*] \\\\ &= \\log w^*.", 1),
    ("1 - r\\,(\\vz_{t-1}) \\leq \\frac{N}{ w\\,(\\vz_{t-1}) + N}, ... where \\(w(\\vz) = "
     "\\nicefrac{p(\\vz,\\vx)}{q_{\\vlambda}(\\vz)}\\) is the weight", 2),
    ("recently showed that \\(r(\\vz_{t-1}) \\leq "
     "\\DTV{K(\\vz_{t-1}, \\cdot)}{p(\\cdot\\mid\\vx)}\\)", 1),
])
def test_spans_become_mathml(text, maths):
    html = str(mathml.render(text))
    assert html.count("<math") == maths, html
    assert left_tex(html) == [] and "tex-source" not in html, html


def test_prose_markup():
    html = str(mathml.render("the bound on the \\textit{marginal rejection rate} \\(r\\), as "
                             "``reject'', Equation~\\eqref{eq:pimh} and *global*"))
    assert "<i>marginal rejection rate</i>" in html and "“reject”" in html
    assert "Equation\u00a0(pimh)" in html and "<em>global</em>" in html
    assert left_tex(html) == []
    # a Markdown link's escaped brackets are brackets, not mathematics
    html = str(mathml.render("the approximation of [Hernandez-Lobato & Adams \\(2015\\)](#)"))
    assert visible(html) == "the approximation of Hernandez-Lobato &amp; Adams (2015)"


def test_plain_text_is_escaped_and_left_alone():
    for text in ("w* -> inf, t >> w*, N >= 4", "E[. | F_t-1] and ||mu||^2 with C_cov ~ 0",
                 "costs $5 and $6", "<script>alert(1)</script> & 'q'"):
        html = str(mathml.render(text))
        assert "<math" not in html and "<script" not in html
        assert visible(html).replace("&lt;", "<").replace("&gt;", ">").replace(
            "&amp;", "&").replace("&#39;", "'") == text


def test_bold_is_unicode_not_mathvariant():
    """MathML Core renders mathvariant="normal" only: bold and bold-italic letters are Unicode's
    mathematical alphanumerics (bold italic lambda, U+1D740)."""
    html = mathml.mathml(r"\boldsymbol{\lambda} + \mathbf{z} + \mathbb{E}")
    assert "mathvariant" not in html
    assert "\U0001d740" in html and "&#x1D433;" in html


def test_an_unreadable_span_falls_back():
    """A command latex2mathml leaves unread is drawn by matplotlib's mathtext as an inline SVG;
    one neither reads is shown as its source, which the checks above count."""
    for unread in (r"\notacommand{x}", r"\mathcircled{x}"):  # the second, silently dropped
        with pytest.raises(ValueError):
            mathml.mathml(unread)
    svg = mathml.svg(r"\alpha^2")
    assert svg.startswith("<svg") and 'class="tex-svg"' in svg and "<script" not in svg
    html = mathml.math_html(r"\notacommand{x}")  # mathtext cannot read it either
    assert "tex-source" in html and left_tex(html) != []  # the checks see it


def test_the_svg_fallback_is_used(monkeypatch):
    def refuse(tex, display=False):
        raise ValueError("planted")

    monkeypatch.setattr(mathml, "mathml", refuse)
    mathml._math_html.cache_clear()
    try:
        html = mathml.math_html(r"\sqrt{\alpha} + \beta_1")
    finally:
        mathml._math_html.cache_clear()
    assert html.startswith("<svg") and left_tex(html) == []


def test_rendering_is_cached_and_cheap():
    texts = document_texts()
    mathml._render.cache_clear()
    mathml._math_html.cache_clear()
    t0 = time.perf_counter()
    for t in texts:
        mathml.render(t)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(5):
        for t in texts:
            mathml.render(t)
    warm = (time.perf_counter() - t0) / 5
    assert cold < 10 and warm < cold


@pytest.mark.parametrize("reason, want", [
    ("false under both readings of lambda: at q = pi (w* = 1), n >= 2, T_n(w) = 1 while the bound "
     "is 0; the proof applies Lemma 4 beyond w*",
     "false under both readings of lambda: at q = pi (w* = 1), n >= 2, T_n(w) = 1 while the bound "
     "is 0"),
    ("depends on the reading of E[. | F_t-1] (rule 1, recorded at theorem3.var.3): conditionally "
     "on F_t-1 the one-step bias does not vanish",
     "depends on the reading of E[. | F_t-1]: conditionally on F_t-1 the one-step bias does not "
     "vanish"),
    ("holds with the bias its proof bounds, fails with the E||.|| of its definition: the "
     "definition contradiction recorded at lemma7.1",
     "holds with the bias its proof bounds, fails with the E||.|| of its definition"),
    ("'equivalent to k in (0, 1)' is true only as 'if': the process is stationary for every k in "
     "(0, 4), so k in (0, 1) suffices but is not necessary, as the report asserts (an 'iff' "
     "that is only an 'if', the analogue of an '=' that is only '<=')",
     "'equivalent to k in (0, 1)' is true only as 'if': the process is stationary for every k in "
     "(0, 4) …"),
])
def test_headline(reason, want):
    ids = {"theorem3.var.3", "lemma7.1", "lemma5.2"}
    line = headline(reason, ids)
    assert line == want
    assert len(line) <= 122 and not re.search(r"recorded|rule \d|theorem3\.var|lemma7\.1", line)
