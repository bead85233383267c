"""Text for the terminal: ASCII spellings where the terminal cannot encode ``≤ χ² ∞ …``
(:func:`text`, :func:`ascii_fallback`), the width and ``--wide`` (:func:`terminal_width`,
:func:`add_wide`, :func:`wrap`), numbers as shown (:func:`short`, :func:`show_param`,
:func:`show_exact`) and the progress bar on stderr (:func:`progress`).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import decimal
import math
import shutil
import sys
import textwrap
import unicodedata

from .jsontext import _int_e


def show_exact(x) -> str:
    """A parsed value as the user can recognise it, every digit kept:
    ``1.000000000001``, ``1e+400``, ``1000000``, ``0.5``; floats as their shortest repr."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x) if abs(x) < 10 ** 16 else _int_e(x).replace("e+", "e")
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            return str(x).lower()
        if x == x.to_integral_value() and abs(x) < 10 ** 16:
            return str(int(x))
        # normalize in a context holding every digit (the default 28 would round 30 digits)
        n = decimal.Context(prec=len(x.as_tuple().digits) + 1, Emin=decimal.MIN_EMIN,
                            Emax=decimal.MAX_EMAX).normalize(x)
        if -7 < n.adjusted() < 16:
            return format(n, "f")
        return format(n, "e").replace("e+", "e")
    try:
        f = float(x)
    except (TypeError, ValueError, OverflowError):
        return str(x)
    if f.is_integer() and abs(f) < 1e16:
        return str(int(f))
    return repr(f)


# ----------------------------------------------------------------------------- terminal text
#: the width assumed when the terminal's is unknown (not a terminal and COLUMNS unset)
DEFAULT_WIDTH = 100
#: ASCII spellings of the symbols the command lines print (on a terminal that cannot encode them)
ASCII = {"≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "∞": "inf", "…": "...", "—": "-", "–": "-",
         "−": "-", "χ": "chi", "²": "^2", "³": "^3", "¹": "^1", "⁻": "^-", "½": "1/2", "§": "Sec. ",
         "×": "x", "·": "*", "±": "+-", "→": "->", "←": "<-", "⇒": "=>", "∥": "||", "‖": "||",
         "∈": " in ", "√": "sqrt", "∑": "sum", "∏": "prod", "∂": "d", "∇": "grad", "π": "pi",
         "Π": "Pi",
         "λ": "lambda", "μ": "mu", "σ": "sigma", "Σ": "Sigma", "ρ": "rho", "η": "eta", "δ": "delta",
         "Δ": "Delta", "ε": "epsilon", "α": "alpha", "β": "beta", "γ": "gamma", "θ": "theta",
         "τ": "tau", "ν": "nu", "ω": "omega", "ξ": "xi", "κ": "kappa", "φ": "phi", "ψ": "psi",
         "‘": "'", "’": "'", "“": '"', "”": '"', "•": "*", "✓": "ok", "✗": "x", "\u00a0": " "}
#: what :func:`ascii_fallback` checks the output streams against
_PROBE = "≤≥χ²∞…—§±"


def to_ascii(s: str) -> str:
    """``s`` with every non-ASCII character spelled in ASCII (:data:`ASCII`, else its
    accent-free form, else ``?``): ``χ² ≤ ∞`` -> ``chi^2 <= inf``."""
    if s.isascii():
        return s
    out = []
    for ch in s:
        if ch.isascii():
            out.append(ch)
        elif ch in ASCII:
            out.append(ASCII[ch])
        else:
            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(plain or "?")
    return "".join(out)


def _ascii_errors(exc):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return to_ascii(exc.object[exc.start:exc.end]), exc.end


codecs.register_error("clikit-ascii", _ascii_errors)


def _encoding(stream) -> str | None:
    return getattr(stream, "encoding", None)


def can_encode(s: str, stream=None) -> bool:
    """Whether ``stream`` (default: ``sys.stdout``) can write ``s`` as it is."""
    enc = _encoding(sys.stdout if stream is None else stream)
    if not enc:
        return True
    try:
        s.encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def text(s: str, stream=None) -> str:
    """``s`` as ``stream`` (default ``sys.stdout``) can print it: unchanged, or with the
    characters it cannot encode spelled in ASCII (see :func:`to_ascii`)."""
    s = str(s)
    if s.isascii() or can_encode(s, stream):
        return s
    return "".join(ch if can_encode(ch, stream) else to_ascii(ch) for ch in s)


def marker() -> str:
    """What ends a cell cut short: ``…``, or ``~`` where stdout cannot print ``…``."""
    return "…" if can_encode("…") else "~"


def ascii_fallback() -> None:
    """Make stdout and stderr print symbols they cannot encode (an ASCII-only terminal:
    ``LANG=C``, ``PYTHONIOENCODING=ascii``) as ASCII spellings (``≤`` -> ``<=``,
    ``χ²`` -> ``chi^2``) instead of raising UnicodeEncodeError.  :func:`run` calls it."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not can_encode(_PROBE, stream) and hasattr(stream, "reconfigure"):
            with contextlib.suppress(Exception):
                stream.reconfigure(errors="clikit-ascii")


def terminal_width() -> int:
    """The terminal's width (``COLUMNS`` first); :data:`DEFAULT_WIDTH` when unknown."""
    return max(20, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def add_wide(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``--wide`` to ``parser`` (``args.wide``): tables and text at full width, nothing
    wrapped or cut (for ``grep`` and scripts).  Pass ``wide=args.wide`` to :func:`table`
    and :func:`wrap`."""
    parser.add_argument("--wide", action="store_true",
                        help="print tables and text at full width, one line per row, nothing "
                             "wrapped or cut (default: fit the terminal, 100 columns when unknown)")
    return parser


def wrap(s: str, *, wide: bool = False, width: int | None = None, indent: str = "    ") -> str:
    """Fit each line of ``s`` to the terminal (:func:`terminal_width`, or ``width``):
    a longer line continues on the next lines, indented by its own leading spaces plus
    ``indent``.  Nothing is cut; ``wide=True`` returns ``s`` unchanged (but see :func:`text`)."""
    s = text(s)
    if wide:
        return s
    limit = width or terminal_width()
    out = []
    for line in s.split("\n"):
        if len(line) <= limit:
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line.lstrip(" "), width=limit, initial_indent=lead,
                                 subsequent_indent=lead + indent,
                                 break_long_words=True, break_on_hyphens=False) or [""])
    return "\n".join(out)


# ----------------------------------------------------------------------------- numbers shown
def _mantissa_exponent(d: decimal.Decimal, digits: int) -> str:
    """A finite nonzero Decimal rounded to ``digits`` significant digits: '1.5e+400'."""
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.Emin, ctx.Emax = digits, decimal.MIN_EMIN, decimal.MAX_EMAX
        r = +d
    sign = "-" if r < 0 else ""
    ds = "".join(map(str, r.as_tuple().digits)).rstrip("0") or "0"
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    e = r.adjusted()
    return f"{sign}{mant}e{'+' if e >= 0 else '-'}{abs(e):02d}"


#: beyond this decimal exponent :func:`short` writes a power of ten
_MAX_EXPONENT = 10 ** 15


def short(x, digits: int = 6, *, nan: str = "nan") -> str:
    """A number for a table in at most ``digits`` significant digits (the exact value goes
    to --json): ``0.333333``, ``1.5e-400``, ``7.35759e-12000000000001``, ``1e+06``; integers of
    up to ``digits`` significant digits below 1e9 as integers (``250000``); a number whose
    decimal exponent has more than 15 digits as a power of ten, ``10^(-3.0103e+399)``;
    ``None`` -> ``—``, NaN -> ``nan``, infinities ``∞``/``-∞`` (see :func:`text`)."""
    if x is None:
        return "—"
    if isinstance(x, bool) or isinstance(x, str):
        return str(x)
    mod = type(x).__module__ or ""
    if mod.startswith("mpmath"):
        import mpmath

        if isinstance(x, mpmath.mpc):
            re_, im_ = short(x.real, digits, nan=nan), short(abs(x.imag), digits, nan=nan)
            return f"{re_}{'+' if x.imag >= 0 else '-'}{im_}j"
        if mpmath.isnan(x):
            return nan
        if mpmath.isinf(x):
            return "∞" if x > 0 else "-∞"
        if x == 0:
            return "0"
        f = float(x)
        if math.isfinite(f) and f != 0:
            return short(f, digits, nan=nan)
        with mpmath.workdps(max(30, digits + 10)):
            l10 = mpmath.log10(abs(x))
            e = int(mpmath.floor(l10))
            if abs(e) < _MAX_EXPONENT:
                return _mantissa_exponent(decimal.Decimal(mpmath.nstr(x, digits + 5)), digits)
            return ("-" if x < 0 else "") + f"10^({mpmath.nstr(l10, digits, strip_zeros=True)})"
    if isinstance(x, decimal.Decimal) or isinstance(x, int):
        d = decimal.Decimal(x)
        if d.is_nan():
            return nan
        if d.is_infinite():
            return "∞" if d > 0 else "-∞"
        if d == 0:
            return "0"
        f = float(d)
        if math.isfinite(f) and f != 0:
            if isinstance(x, int) and abs(x) < 10 ** 9 and len(str(abs(x)).rstrip("0")) <= digits:
                return str(x)
            return short(f, digits, nan=nan)
        e = d.adjusted()
        if abs(e) < _MAX_EXPONENT:
            return _mantissa_exponent(d, digits)
        with decimal.localcontext() as ctx:
            ctx.prec, ctx.Emin, ctx.Emax = digits + 30, decimal.MIN_EMIN, decimal.MAX_EMAX
            l10 = abs(d).log10()
        return ("-" if d < 0 else "") + f"10^({_mantissa_exponent(l10, digits)})"
    try:
        f = float(x)
    except (TypeError, ValueError, OverflowError):
        return str(x)
    if math.isnan(f):
        return nan
    if math.isinf(f):
        return "∞" if f > 0 else "-∞"
    if f.is_integer() and abs(f) < 1e9 and len(str(int(abs(f))).rstrip("0")) <= digits:
        return str(int(f))
    return f"{f:.{digits}g}"


def show_param(x, max_chars: int = 24, digits: int = 6) -> str:
    """A parameter the user typed, as typed (:func:`show_exact`) -- unless that takes more
    than ``max_chars`` characters (a 400-digit seed): then its first ``digits`` significant
    digits followed by the marker and its exponent, ``1.23456…e+399``."""
    s = show_exact(x)
    if len(s) <= max_chars:
        return s
    try:
        d = decimal.Decimal(x) if not isinstance(x, float) else decimal.Decimal(repr(x))
    except (TypeError, ValueError, decimal.InvalidOperation):
        return s[:max_chars - 1] + marker()
    if not d.is_finite() or d == 0:
        return s
    sign, digit_tuple, _ = d.as_tuple()
    ds = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    mant = ds[0] + ("." + ds[1:digits] if len(ds) > 1 else "")
    cut = marker() if len(ds) > digits else ""
    e = d.adjusted()
    return f"{'-' if sign else ''}{mant}{cut}" + (f"e{e}" if e else "")


# ----------------------------------------------------------------------------- progress
class _Progress:
    """tqdm on stderr, or nothing.  Iterate it, ``update(n)`` it, or call it with a status
    message (``progress("theorem3: N = 10")``); ``close()`` / ``done()`` when finished."""

    def __init__(self, iterable, enabled, kw):
        self._iterable = iterable
        self._bar = None
        if enabled:
            from tqdm.auto import tqdm

            kw.setdefault("file", sys.stderr)
            kw.setdefault("leave", False)
            kw.setdefault("dynamic_ncols", True)
            self._bar = tqdm(iterable, **kw)

    @property
    def enabled(self) -> bool:
        return self._bar is not None

    def __iter__(self):
        return iter(self._bar if self._bar is not None else (self._iterable or ()))

    def __call__(self, msg: str) -> None:
        if self._bar is not None:
            self._bar.set_description_str(str(msg)[:100], refresh=True)

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    done = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress(iterable=None, *, total=None, desc: str | None = None, enabled: bool = True,
             json: bool = False, **kw) -> _Progress:
    """A progress bar on stderr (tqdm), silent when stderr is not a terminal, under
    ``--json`` (``json=True``) or with ``enabled=False``."""
    on = bool(enabled) and not json and _isatty(sys.stderr)
    if total is not None:
        kw["total"] = total
    if desc is not None:
        kw["desc"] = desc
    return _Progress(iterable, on, kw)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
