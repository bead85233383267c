"""Reading the command line: an :class:`argparse.ArgumentParser` whose errors are one line
(:class:`Parser`), help text that keeps its line breaks, flag values parsed with their domain
(:func:`number`, :func:`numbers`) and a ``list`` command's flags (:func:`list_arguments`).
"""

from __future__ import annotations

import argparse
import decimal
import math
import re
import textwrap

from .exits import UsageError
from .terminal import add_wide

# ----------------------------------------------------------------------------- argparse
_ARG_PREFIX = re.compile(r"^argument (\S+?)(?:/(\S+))?: (.*)$", re.S)


def _one_line_error(message: str) -> str:
    """``argument --dim: --dim: bad`` -> ``--dim: bad``; ``argument -d/--dim: x`` -> ``--dim:
    x``.
    """
    m = _ARG_PREFIX.match(message)
    if not m:
        return " ".join(message.split())
    names = [n for n in (m.group(1), m.group(2)) if n]
    flag = max(names, key=len)  # the long name
    rest = " ".join(m.group(3).split())
    for n in names:
        if rest.startswith(n + ":"):
            return rest
    return f"{flag}: {rest}"


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors raise :class:`UsageError` (one line, flag named once)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # `--w` must not silently mean `--w-star`
        super().__init__(*args, **kwargs)

    def error(self, message):  # one line instead of usage + error
        text = _one_line_error(message)
        if text.endswith(": expected one argument"):
            flag = text.split(":")[0]
            text += f" (write a value that starts with '-' as {flag}=-1)"
        raise UsageError(text)


class ParagraphHelpFormatter(argparse.HelpFormatter):
    """Help whose description and epilog wrap to the terminal while their line breaks stay
    (each line is a paragraph); argparse's RawDescriptionHelpFormatter does not wrap at all."""

    def _fill_text(self, text_, width, indent):
        return "\n".join(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent)
                         if line.strip() else "" for line in text_.splitlines())


# ----------------------------------------------------------------------------- numbers
def _g(x) -> str:
    """A bound as written in a message: 2, 0.5, 1e+15."""
    if isinstance(x, int):
        return str(x)
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:g}"


def domain_text(integer=False, lo=None, lo_strict=False, hi=None, hi_strict=False) -> str:
    """``an integer >= 2``, ``a number > 0``, ``a number with 0 < x <= 1``."""
    kind = "an integer" if integer else "a number"
    if lo is not None and hi is not None:
        return (f"{kind} with {_g(lo)} {'<' if lo_strict else '<='} x {'<' if hi_strict else '<='} "
                f"{_g(hi)}")
    if lo is not None:
        return f"{kind} {'>' if lo_strict else '>='} {_g(lo)}"
    if hi is not None:
        return f"{kind} {'<' if hi_strict else '<='} {_g(hi)}"
    return kind


def number(flag: str, text, *, integer: bool = False, lo=None, lo_strict: bool = False, hi=None,
           hi_strict: bool = False, exact: bool = False, limit=None, limit_why: str = ""):
    """Parse one value of ``flag`` within its domain; raise :class:`UsageError` (one line).

    Returns an ``int`` for ``integer=True`` (exact, any size), else a ``float`` -- or, with
    ``exact=True``, a :class:`decimal.Decimal` holding every digit typed (``1.000000000001``,
    ``1e400``), for mpmath.  Without ``exact`` the value is computed in doubles, so one that a
    double cannot hold is refused with a message that says so: outside the double range, or
    with more digits than a double keeps (``1.0000000000000001`` would silently become
    ``1.0``; ``0.1`` is accepted, its double printing back as ``0.1``).  ``limit`` is a
    practical upper limit (memory, time) whose reason ``limit_why`` is given in the message.
    """
    s = str(text).strip()
    want = domain_text(integer, lo, lo_strict, hi, hi_strict)
    try:
        d = decimal.Decimal(s)
    except (decimal.InvalidOperation, ValueError):
        d = None
    if d is None or s == "" or d.is_nan():
        raise UsageError(f"{flag}: must be {want}, got {s or repr(s)}")
    if d.is_infinite():
        raise UsageError(f"{flag}: must be finite ({want}), got {s}")
    value: int | decimal.Decimal
    if integer:
        if d != d.to_integral_value():
            raise UsageError(f"{flag}: must be {want}, got {s}")
        value = int(d)
    else:
        value = d
    if lo is not None and (d < decimal.Decimal(str(lo))
                           or (lo_strict and d == decimal.Decimal(str(lo)))):
        raise UsageError(f"{flag}: must be {want}, got {s}")
    if hi is not None and (d > decimal.Decimal(str(hi))
                           or (hi_strict and d == decimal.Decimal(str(hi)))):
        raise UsageError(f"{flag}: must be {want}, got {s}")
    if limit is not None and d > decimal.Decimal(str(limit)):
        why = f" ({limit_why})" if limit_why else ""
        raise UsageError(f"{flag}: at most {_g(limit)} is supported{why}, got {s}")
    if integer:
        return value
    if exact:
        return value
    f = float(d)
    if math.isinf(f) or (f == 0 and d != 0):
        raise UsageError(
            f"{flag}: {s} is outside the double range (about 2.2e-308 to 1.8e308 in magnitude)")
    if decimal.Decimal(repr(f)) != d:  # the value is computed in doubles: never silently rounded
        raise UsageError(
            f"{flag}: {s} has more digits than a double (float64) holds: it would be read as "
            f"{f!r}, the nearest double; give that or fewer digits")
    return f


def numbers(flag: str, text, *, max_items: int | None = None, **kw) -> list:
    """A comma-separated list of :func:`number` values (at most ``max_items``)."""
    if not str(text).strip():
        return [number(flag, "", **kw)]  # raises: "must be ..., got ''"
    items = str(text).split(",")
    if max_items is not None and len(items) > max_items:
        raise UsageError(f"{flag}: at most {max_items} values, got {len(items)}")
    out = []
    for item in items:
        if not item.strip():
            raise UsageError(
                f"{flag}: empty item in {str(text)!r} (a comma-separated list of numbers)")
        out.append(number(flag, item, **kw))
    return out


def list_arguments(prog: str, description: str, argv,
                   epilog: str | None = None) -> argparse.Namespace:
    """The parsed arguments of a ``list`` command: ``--json`` (a JSON array) and ``--wide``.

    Parameters
    ----------
    prog : str
        The command as the user types it (``"python -m verify list"``).
    description, epilog : str
        The help text above and below the flags.
    argv : list of str
        The command's arguments.

    Returns
    -------
    argparse.Namespace
        ``json`` and ``wide``; bad input raises :class:`UsageError`.
    """
    ap = Parser(prog=prog, description=description, epilog=epilog)
    ap.add_argument("--json", action="store_true", help="print a JSON array")
    add_wide(ap)
    return ap.parse_args(argv)
