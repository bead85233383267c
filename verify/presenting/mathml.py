"""TeX in the report's texts, rendered when the report is built: MathML, or inline SVG.

The report quotes its documents verbatim (severity reasons' deciding sentences, the readings'
quotes), and those quotes carry the documents' own TeX: ``$...$``, ``\\(...\\)``, display
fragments cut from ``align`` environments (``&= 2\\sqrt{D} L C \\rho^n. && \\text{...}``), bare
commands in prose (``\\mathbf{G} remains positive definite``), the CIS-as-IMH draft's macros
(``\\vz``, ``\\DTV{..}{..}``) and text-mode markup (``\\textit{..}``, ``Equation~\\eqref{..}``,
````reject''``).  :func:`render` turns such a text into HTML with no TeX left in it:

* each span of mathematics becomes MathML (``latex2mathml``), which Chromium, Firefox and
  Safari render natively (MathML Core) -- no script runs, so the report's Content-Security-
  Policy (``default-src 'none'``) stays;
* a span that ``latex2mathml`` cannot convert (an unknown command) is drawn by matplotlib's
  mathtext as an inline SVG (glyphs as paths: no font is fetched); a span neither can read is
  shown as its source in ``<code class="tex-source">``, which the report's tests count as a
  failure;
* text-mode markup becomes HTML (``<i>``, ``<b>``, typographic quotes, a no-break space).

Conversions are cached per span (:func:`math_html`), so the page's many repeats of one quote
cost one conversion.  Everything else in the text is escaped (:func:`markupsafe.escape`).
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata

from markupsafe import Markup, escape

#: the documents' TeX macros (the CIS-as-IMH draft's preamble): name -> (number of arguments,
#: expansion with #1, #2 for the arguments)
MACROS = {
    "nicefrac": (2, r"{#1}/{#2}"),
    "DTV": (2, r"d_{\mathrm{TV}}\left(#1, #2\right)"),
    "E": (1, r"\mathbb{E}\left[#1\right]"),
    "V": (1, r"\mathbb{V}\left[#1\right]"),
    "Esub": (2, r"\mathbb{E}_{#1}\left[#2\right]"),
    "Vsub": (2, r"\mathbb{V}_{#1}\left[#2\right]"),
}
GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
         "tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi "
         "Omega").split()
#: ``\vz`` -> bold z, ``\vlambda`` -> bold lambda (the draft's vector macros); TeX's own ``\v...``
#: commands (``\vec``, ``\varepsilon``, ``\vdots``, ...) are longer names and never match
VECTOR = re.compile(r"\\v([A-Za-z]|" + "|".join(GREEK) + r")(?![A-Za-z])")
#: text-mode commands in prose: name -> (HTML tag or None, format of the argument's text)
TEXT_COMMANDS = {"textit": ("i", "{}"), "emph": ("em", "{}"), "textbf": ("b", "{}"),
                 "eqref": (None, "({})"), "ref": (None, "{}"), "cite": (None, "[{}]"),
                 "citep": (None, "[{}]"), "citet": (None, "[{}]")}
#: short English words that end a bare run of mathematics in prose ("the estimate of a ...")
STOPWORDS = {"a", "an", "as", "at", "be", "by", "if", "in", "is", "it", "of", "on", "or", "to",
             "we", "so", "no", "do", "up"}
#: a delimited span: $$...$$, \[...\], \(...\), $...$ (no space inside either dollar, not
#: followed by a digit: "$5 and $6" is not mathematics)
DELIMITED = re.compile(r"\$\$(?P<dd>.+?)\$\$|\\\[(?P<sq>.+?)\\\]|\\\((?P<rd>.+?)\\\)"
                       r"|(?<![\\$\w])\$(?P<d>[^\s$](?:[^$]*?[^\s$\\])?)\$(?![\w$])", re.S)
#: a Markdown link, [text](target): its text, with Markdown's escaped brackets \( \) as brackets
MD_LINK = re.compile(r"\[([^\]\n]+)\]\((?:#|https?://[^)\s]*)\)")
MD_EMPHASIS = re.compile(r"(?<![\w*\\])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)|[A-Za-z]+|\d+(?:\.\d+)?|\s+|.", re.S)


# ----------------------------------------------------------------------------- text
def has_tex(text: str) -> bool:
    """Whether ``text`` holds anything :func:`render` changes beyond escaping."""
    text = text or ""
    return bool(re.search(r"\$|\\[A-Za-z()\[\]]|``|\S~\S", text) or MD_EMPHASIS.search(text)
                or MD_LINK.search(text))


def render(text) -> Markup:
    """``text`` as HTML: escaped, with its TeX rendered (MathML, or an inline SVG).

    Parameters
    ----------
    text : str or None
        Plain text that may carry TeX spans (see the module's docstring); an existing
        :class:`markupsafe.Markup` is returned unchanged.

    Returns
    -------
    markupsafe.Markup
        Safe HTML: every character of ``text`` outside its TeX is escaped.
    """
    if text is None:
        return Markup("")
    if isinstance(text, Markup):
        return text
    text = str(text)
    if not has_tex(text):
        return escape(text)
    return Markup(_render(text))


@functools.lru_cache(maxsize=4096)
def _render(text: str) -> str:
    text = MD_LINK.sub(lambda m: m.group(1).replace("\\(", "(").replace("\\)", ")"), text)
    out, at = [], 0
    for m in DELIMITED.finditer(text):
        out.append(_prose(text[at:m.start()]))
        tex = next(g for g in m.groups() if g is not None)
        out.append(math_html(tex, display=m.group("dd") is not None or m.group("sq") is not None))
        at = m.end()
    out.append(_prose(text[at:]))
    return "".join(out)


def _group(s: str, i: int) -> int:
    """The index after the brace group that opens at ``s[i] == '{'`` (len(s) when unclosed)."""
    depth = 0
    j = i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def _tokens(s: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of prose: 'cmd' (with its brace arguments when a text command),
    'group', 'word', 'space', 'num', 'char'."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "{":
            j = _group(s, i)
            out.append(("group", s[i:j]))
            i = j
            continue
        m = TOKEN.match(s, i)
        assert m is not None  # TOKEN ends in '.' (DOTALL): it matches at any i < len(s)
        t = m.group(0)
        kind = ("cmd" if t.startswith("\\") else "word" if t[0].isalpha() and t.isascii()
                else "space" if t.isspace() else "num" if t[0].isdigit() else "char")
        if kind == "cmd" and t[1:] in TEXT_COMMANDS and m.end() < len(s) and s[m.end()] == "{":
            j = _group(s, m.end())
            out.append(("text", s[i:j]))
            i = j
            continue
        out.append((kind, t))
        i = m.end()
    return out


def _boundary(kind: str, t: str) -> bool:
    """Whether a prose token ends a bare run of mathematics."""
    if kind == "text":
        return True
    if kind == "word":
        return len(t) > 2 or t.lower() in STOPWORDS
    if kind == "char":
        cat = unicodedata.category(t)
        return not (t.isascii() and not t.isalpha() and t not in "\"`'"
                    or cat == "Sm")
    return False


def _prose(s: str) -> str:
    """Prose outside the delimited spans: bare mathematics (a run of tokens around a math command,
    up to the next word of prose) as MathML, text commands as HTML, the rest escaped."""
    if not s:
        return ""
    if "\\" not in s and "``" not in s and "~" not in s:  # no command, quote or tie: plain
        return _plain(s)
    # TeX's typography: ``quotes'' and ties (Equation~\eqref)
    s = re.sub(r"``(.+?)''", "“\\1”", s)
    s = re.sub(r"(?<=\S)~(?=\S)", "\u00a0", s)
    toks = _tokens(s)
    parts: list[tuple[bool, str]] = []  # (HTML already, text)
    i = 0
    while i < len(toks):
        kind, t = toks[i]
        if kind == "text":
            parts.append((True, _text_command(t)))
            i += 1
            continue
        if _boundary(kind, t):
            parts.append((False, t))
            i += 1
            continue
        j = i
        while j < len(toks) and not _boundary(*toks[j]):
            j += 1
        run = toks[i:j]
        if any(k == "cmd" for k, _ in run):
            lead, core, trail = _trim(run)
            parts += [(False, "".join(x for _, x in lead)),
                      (True, math_html("".join(x for _, x in core))),
                      (False, "".join(x for _, x in trail))]
        else:
            parts.append((False, "".join(x for _, x in run)))
        i = j
    out, plain = [], []
    for is_html, t in [*parts, (True, "")]:
        if not is_html:
            plain.append(t)
            continue
        if plain:
            out.append(_plain("".join(plain)))
            plain = []
        out.append(t)
    return "".join(out)


def _trim(run):
    """Split a bare run into (leading prose, mathematics, trailing prose): spaces and sentence
    punctuation at either end, and unmatched brackets, stay prose."""
    a, b = 0, len(run)
    while a < b and (run[a][0] == "space" or run[a][1] in ",.;:"):
        a += 1
    while b > a and (run[b - 1][0] == "space" or run[b - 1][1] in ",.;:…"):
        b -= 1
    core = "".join(x for _, x in run[a:b])
    for o, c in ("()", "[]"):
        while a < b and run[a][1] == o and core.count(o) > core.count(c):
            a += 1
            core = core[1:]
        while b > a and run[b - 1][1] == c and core.count(c) > core.count(o):
            b -= 1
            core = core[:-1]
    return run[:a], run[a:b], run[b:]


def _text_command(t: str) -> str:
    m = re.match(r"\\([A-Za-z]+)", t)
    assert m is not None  # t is a "cmd" token of TEXT_COMMANDS: a backslash and letters
    name = m.group(1)
    tag, fmt = TEXT_COMMANDS[name]
    arg = t[len(name) + 2:-1] if t.endswith("}") else t[len(name) + 2:]
    if name == "eqref":
        arg = re.sub(r"^eq:", "", arg)
    inner = _prose(arg) if tag else str(escape(fmt.format(arg)))
    return f"<{tag}>{inner}</{tag}>" if tag else inner


def _plain(s: str) -> str:
    """Escaped prose, Markdown's *emphasis* as <em>."""
    return MD_EMPHASIS.sub(r"<em>\1</em>", str(escape(s)))


# ----------------------------------------------------------------------------- mathematics
def expand(tex: str) -> str:
    """The documents' macros (:data:`MACROS`, :data:`VECTOR`) expanded, alignment marks dropped."""
    tex = VECTOR.sub(lambda m: (r"\boldsymbol{\%s}" % m.group(1) if len(m.group(1)) > 1
                                else r"\mathbf{%s}" % m.group(1)), tex)
    for _ in range(20):  # nested macros: expand until nothing changes
        m = re.search(r"\\(" + "|".join(MACROS) + r")(?![A-Za-z])", tex)
        if m is None:
            break
        n, body = MACROS[m.group(1)]
        at, args = m.end(), []
        for _k in range(n):
            while at < len(tex) and tex[at] == " ":
                at += 1
            if at < len(tex) and tex[at] == "{":
                end = _group(tex, at)
                args.append(tex[at + 1:end - 1])
                at = end
            elif at < len(tex):
                args.append(tex[at])
                at += 1
        for k, a in enumerate(args, 1):
            body = body.replace(f"#{k}", a)
        tex = tex[:m.start()] + body + tex[at:]
    tex = tex.replace("\u00a0", " ")
    tex = re.sub(r"\\(?:label|tag)\{[^{}]*\}|\\nonumber|\\notag", "", tex)
    tex = re.sub(r"\\\\", r" \\qquad ", tex)  # a line break of an align environment
    return re.sub(r"(?<!\\)&", " ", tex).strip()  # its alignment points


def math_html(tex: str, display: bool = False) -> str:
    """One span of TeX (no delimiters) as HTML: MathML, else an inline SVG (matplotlib's mathtext),
    else its source in ``<code class="tex-source">``.  Cached per span."""
    return _math_html(tex, display)


@functools.lru_cache(maxsize=4096)
def _math_html(tex: str, display: bool) -> str:
    src = expand(tex)
    if not src:
        return ""
    try:
        return mathml(src, display)
    except Exception:
        pass
    try:
        return svg(src)
    except Exception:
        return f'<code class="tex-source">{escape(tex)}</code>'


def mathml(tex: str, display: bool = False) -> str:
    """MathML Core of one span; raises ValueError when ``latex2mathml`` leaves a command unread."""
    from latex2mathml import commands
    from latex2mathml.converter import convert

    # latex2mathml takes any other \math... command for a font and drops its name
    known = {*commands.LOCAL_FONTS, *commands.MATH_NON_FONT_COMMANDS}
    unknown = {c for c in re.findall(r"\\math[A-Za-z]*", tex) if c not in known}
    if unknown:
        raise ValueError(f"latex2mathml does not know {sorted(unknown)}")
    out = convert(tex, display="block" if display else "inline")
    # an unknown command comes out as <mi>\name</mi>, a stray & as <mi>&</mi>: not rendered
    if (re.search(r">[^<]*\\[A-Za-z{}][^<]*<", out)
            or re.search(r"&(?!#x?[0-9A-Fa-f]+;|[A-Za-z]+;)", out)):
        raise ValueError(f"latex2mathml left TeX in {tex!r}")
    out = out.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    out = out.replace("<mi>&#x0007E;</mi>", "<mo>&#x0223C;</mo>")  # \sim, read as ~ by latex2mathml
    out = re.sub(r'<(mi|mn|mo|mtext)( [^>]*?)? mathvariant="([a-z-]+)"([^>]*)>([^<]*)<',
                 _variant, out)
    return out.replace("<math ", f'<math alttext="{escape(tex)}" ', 1)


def _variant(m) -> str:
    """A token's ``mathvariant`` (only 'normal' is in MathML Core) as Unicode's mathematical
    alphanumerics: bold-italic lambda is U+1D740."""
    tag, pre, variant, post, text = m.groups()
    if variant == "normal":
        return m.group(0)
    styled = "".join(_alphanumeric().get((variant, c), c) for c in html.unescape(text))
    return f"<{tag}{pre or ''}{post or ''}>{escape(styled)}<"


@functools.lru_cache(maxsize=1)
def _alphanumeric() -> dict[tuple[str, str], str]:
    """(mathvariant, character) -> its mathematical alphanumeric character, from the Unicode names
    (``MATHEMATICAL BOLD ITALIC SMALL LAMDA``; the letterlike block's ``SCRIPT CAPITAL B``)."""
    styles = {"BOLD": "bold", "ITALIC": "italic", "BOLD ITALIC": "bold-italic",
              "DOUBLE-STRUCK": "double-struck", "SCRIPT": "script", "BOLD SCRIPT": "bold-script",
              "FRAKTUR": "fraktur", "BLACK-LETTER": "fraktur", "BOLD FRAKTUR": "bold-fraktur",
              "SANS-SERIF": "sans-serif", "SANS-SERIF BOLD": "bold-sans-serif",
              "SANS-SERIF ITALIC": "sans-serif-italic",
              "SANS-SERIF BOLD ITALIC": "sans-serif-bold-italic", "MONOSPACE": "monospace"}
    out: dict[tuple[str, str], str] = {}
    for cp in [*range(0x2100, 0x2150), *range(0x1D400, 0x1D800)]:
        c = chr(cp)
        name = unicodedata.name(c, "")
        m = re.match(r"(?:MATHEMATICAL )?(.+?) (CAPITAL|SMALL|DIGIT)\b", name)
        if not m or m.group(1) not in styles:
            continue
        base = unicodedata.normalize("NFKC", c)
        if len(base) == 1:
            out.setdefault((styles[m.group(1)], base), c)
    out[("italic", "h")] = "\u210e"  # PLANCK CONSTANT
    return out


def svg(tex: str) -> str:
    """One span drawn by matplotlib's mathtext as an inline SVG (glyphs as paths), sized in em."""
    import io

    import matplotlib
    from matplotlib.mathtext import math_to_image

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "mcsa",
                                "mathtext.fontset": "dejavusans"}):
        math_to_image(f"${tex}$", buf, format="svg", prop=None)
    s = buf.getvalue().decode("utf-8")
    s = s[s.index("<svg"):]
    s = re.sub(r"<metadata>.*?</metadata>", "", s, flags=re.S)
    # matplotlib sizes the image in pt at 10 pt type: in em it follows the surrounding text
    s = re.sub(r'(<svg[^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"',
               lambda m: (f'{m.group(1)} class="tex-svg" role="img" aria-label="{escape(tex)}" '
                          f'width="{float(m.group(2)) / 10:.3f}em" '
                          f'height="{float(m.group(3)) / 10:.3f}em"'), s, count=1)
    return s.strip()
