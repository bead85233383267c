"""Plumbing shared by the command lines ``python -m bounds``, ``python -m verify`` and
``python -m simulate``.

Importing this module imports only the standard library (no sympy, no numpy, no
tqdm until a progress bar is actually shown), so any command line can use it.

* :class:`UsageError` -- bad input; :func:`run` prints it as one line on stderr, exit 2.
* :class:`Parser` -- :class:`argparse.ArgumentParser` whose errors raise :class:`UsageError`
  (one line, the flag named once: ``--dim: must be an integer >= 1, got 0``).
* :func:`run` -- the dispatcher: ``argv[0]`` names a command (or a claim id); unexpected
  exceptions become one line ``internal error: ...`` with exit 70 (``--debug`` anywhere in
  argv shows the traceback instead); Ctrl-C exits 130.
* :func:`dumps` -- strict RFC 8259 JSON (NaN -> null, +/-inf -> "inf"/"-inf"; numpy and
  mpmath numbers converted; values outside the double range as decimal strings).
* :func:`table` -- a plain-text table; :func:`progress` -- a tqdm bar on stderr that is
  silent when stderr is not a terminal or under ``--json``.
* :func:`number`, :func:`numbers` -- parse a flag's value (or a comma list) with its
  domain; ``exact=True`` keeps the decimal digits (a :class:`decimal.Decimal`) so that
  mpmath sees the value at full precision.

Exit statuses shared by the three command lines (:data:`EXIT_HELP` is the text for ``--help``):
0 holds / success, 1 a claim is violated, 2 bad input, 3 inconclusive, 4 depends on reading,
5 a run diverged, 70 internal error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import decimal
import json
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping

OK, VIOLATED, BAD_INPUT, INCONCLUSIVE, DEPENDS_ON_READING, DIVERGED = 0, 1, 2, 3, 4, 5
INTERNAL_ERROR, INTERRUPTED = 70, 130

EXIT_HELP = ("exit status: 0 holds / success, 1 a claim is violated, 2 bad input (one line on stderr), "
             "3 inconclusive, 4 depends on reading, 5 a run diverged, 70 internal error "
             "(rerun with --debug for the traceback), 130 interrupted.")

#: the largest finite double
DOUBLE_MAX = sys.float_info.max


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


# ----------------------------------------------------------------------------- argparse
_ARG_PREFIX = re.compile(r"^argument (\S+?)(?:/(\S+))?: (.*)$", re.S)


def _one_line_error(message: str) -> str:
    """``argument --dim: --dim: bad`` -> ``--dim: bad``; ``argument -d/--dim: x`` -> ``--dim: x``."""
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
        return f"{kind} with {_g(lo)} {'<' if lo_strict else '<='} x {'<' if hi_strict else '<='} {_g(hi)}"
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
    ``1e400``), for mpmath.  Without ``exact``, values outside the double range are refused
    with a message that says so.  ``limit`` is a practical upper limit (memory, time) whose
    reason ``limit_why`` is given in the message.
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
    if integer:
        if d != d.to_integral_value():
            raise UsageError(f"{flag}: must be {want}, got {s}")
        value = int(d)
    else:
        value = d
    if lo is not None and (d < decimal.Decimal(str(lo)) or (lo_strict and d == decimal.Decimal(str(lo)))):
        raise UsageError(f"{flag}: must be {want}, got {s}")
    if hi is not None and (d > decimal.Decimal(str(hi)) or (hi_strict and d == decimal.Decimal(str(hi)))):
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
        raise UsageError(f"{flag}: {s} is outside the double range (about 2.2e-308 to 1.8e308 in magnitude)")
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
            raise UsageError(f"{flag}: empty item in {str(text)!r} (a comma-separated list of numbers)")
        out.append(number(flag, item, **kw))
    return out


def _int_e(x: int) -> str:
    """An int in exponent notation with every significant digit: 10**400 -> '1e+400'."""
    d = decimal.Context(prec=len(str(abs(x))) + 1).normalize(decimal.Decimal(x))
    return format(d, "e")


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
        n = x.normalize()
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


# ----------------------------------------------------------------------------- output paths
_EXTENSIONS = (".png", ".pdf", ".svg")


def output_path(flag: str, text: str, extensions: tuple[str, ...] = _EXTENSIONS) -> str:
    """Check a path to be written later (before any work): extension, directory writable."""
    import os

    if text is None or not str(text).strip():
        raise UsageError(f"{flag}: empty path; give a file name ending in {', '.join(extensions)}")
    p = os.path.abspath(os.path.expanduser(str(text)))
    if not p.lower().endswith(tuple(e.lower() for e in extensions)):
        raise UsageError(f"{flag}: the path must end in {', '.join(extensions)}, got {text!r}")
    parent = os.path.dirname(p)
    if os.path.isdir(p):
        raise UsageError(f"{flag}: {text!r} is a directory")
    if not os.path.isdir(parent):
        raise UsageError(f"{flag}: directory {parent!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (os.path.exists(p) and not os.access(p, os.W_OK)):
        raise UsageError(f"{flag}: cannot write to {text!r} (permission denied)")
    return p


# ----------------------------------------------------------------------------- JSON
def _num(x):
    """A float or int for JSON: NaN -> None, +/-inf -> "inf"/"-inf"."""
    if isinstance(x, bool) or isinstance(x, int):
        return x
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _mp(x):
    """An mpmath number: a float when it is a double, else a decimal string."""
    import mpmath

    if isinstance(x, mpmath.mpc):
        return {"re": _mp(x.real), "im": _mp(x.imag)}
    if mpmath.isnan(x):
        return None
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    f = float(x)
    if math.isinf(f) or (f == 0 and x != 0):
        return mpmath.nstr(x, 15, min_fixed=1, max_fixed=0)
    return f


def _decimal(x: decimal.Decimal):
    if x.is_nan():
        return None
    if x.is_infinite():
        return "inf" if x > 0 else "-inf"
    f = float(x)
    if math.isinf(f) or (f == 0 and x != 0):
        return str(x)
    return f


def jsonable(obj):
    """``obj`` with every value made strict-JSON-able (see :func:`dumps`)."""
    if obj is None or isinstance(obj, (str, bool)):
        return obj
    if isinstance(obj, int):
        return obj if abs(obj) <= DOUBLE_MAX else _int_e(obj)
    if isinstance(obj, float):
        return _num(obj)
    if isinstance(obj, dict):
        return {(k if isinstance(k, str) else str(jsonable(k))): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return [jsonable(v) for v in sorted(obj, key=str)]
    if isinstance(obj, decimal.Decimal):
        return _decimal(obj)
    mod = type(obj).__module__ or ""
    if mod.startswith("mpmath"):
        return _mp(obj)
    if mod == "numpy" or mod.startswith("numpy."):
        if hasattr(obj, "dtype") and getattr(obj.dtype, "kind", "") == "c":
            return jsonable({"re": obj.real.tolist(), "im": obj.imag.tolist()})
        if hasattr(obj, "tolist"):
            return jsonable(obj.tolist())
    if mod.startswith("sympy"):
        try:
            if obj.is_Number:
                import mpmath

                return _mp(mpmath.mpf(obj.evalf(30)))
        except (AttributeError, TypeError, ValueError):
            pass
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(dataclasses.asdict(obj))
    if hasattr(obj, "__fspath__"):
        return str(obj)
    from fractions import Fraction

    if isinstance(obj, Fraction):
        return _num(obj)
    raise TypeError(f"cannot encode {type(obj).__name__} as JSON")


def dumps(obj, **kw) -> str:
    """Strict RFC 8259 JSON: NaN -> null, +inf -> "inf", -inf -> "-inf"; numpy scalars and
    arrays, mpmath and sympy numbers and Decimals converted (outside the double range: a
    decimal string such as ``"7.35758882342885e-12000000000001"``)."""
    kw.setdefault("allow_nan", False)
    return json.dumps(jsonable(obj), **kw)


def _refuse(name):
    raise ValueError(f"non-standard JSON constant {name}")


def loads_strict(text: str):
    """Parse JSON, refusing NaN / Infinity (what a strict parser does)."""
    return json.loads(text, parse_constant=_refuse)


# ----------------------------------------------------------------------------- tables
def cell(x) -> str:
    return "—" if x is None else str(x)


def table(rows: Iterable[Iterable], header: Iterable) -> str:
    """Columns padded to their widest cell, two spaces apart, a dashed line under the header."""
    header = [cell(h) for h in header]
    rows = [[cell(c) for c in r] for r in rows]
    widths = [max(len(c) for c in col) for col in zip(header, *rows)] if header else []

    def line(r):
        return "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


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


# ----------------------------------------------------------------------------- dispatch
def _either(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."


def run(prog: str, usage: str, argv, commands: Mapping[str, Callable[[list[str]], int]],
        claim: Callable[[str, list[str]], int] | None = None,
        errors: tuple[type[BaseException], ...] = ()) -> int:
    """Dispatch ``argv[0]`` to ``commands``; any other word is a claim id passed to ``claim``
    (or, without ``claim``, an unknown command).

    Returns the exit status: the command's own; 0 for ``--help``; 2 for :class:`UsageError`
    and for ``errors`` (the callers' bad-input exceptions), one line on stderr; 70 for any
    other exception (one line; ``--debug`` anywhere in argv re-raises it); 130 on Ctrl-C.
    Numeric RuntimeWarnings never reach the user raw: they are collected and, if any
    escaped the command's own handling, summarised in one line on stderr.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    caught: list = []
    try:
        with warnings.catch_warnings(record=not debug) as caught_:
            if not debug:
                warnings.simplefilter("always", RuntimeWarning)
                caught = caught_
            if not argv:
                what = [*commands, "a claim id"] if claim is not None else list(commands)
                raise UsageError(f"a command is required ({_either(what)}); see `{prog} --help`")
            if argv[0] in ("-h", "--help"):
                print(usage)
                return OK
            cmd, rest = argv[0], argv[1:]
            if cmd in commands:
                status = commands[cmd](rest)
            elif cmd.startswith("-"):
                raise UsageError(f"expected a command{' or claim id' if claim else ''} before {cmd!r}; "
                                 f"see `{prog} --help`")
            elif claim is None:
                raise UsageError(f"unknown command {cmd!r}; choose {_either(commands)}")
            else:
                status = claim(cmd, rest)
        _report_warnings(prog, caught)
        return OK if status is None else status
    except (UsageError, *errors) as e:
        print(f"{prog}: error: {_first_line(e)}", file=sys.stderr)
        return BAD_INPUT
    except SystemExit as e:  # argparse --help (0); a command's own exit
        code = e.code
        if code is None:
            return OK
        if isinstance(code, int):
            return code
        print(f"{prog}: error: {code}", file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:
        _silence_stdout()
        return OK
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as e:  # noqa: BLE001 -- the top-level catch of issue 8
        if debug:
            raise
        print(f"{prog}: internal error: {type(e).__name__}: {_first_line(e)}; "
              "rerun with --debug for the traceback", file=sys.stderr)
        return INTERNAL_ERROR


def _report_warnings(prog, caught) -> None:
    msgs = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if not msgs:
        return
    kinds = sorted({" ".join(str(w.message).split())[:60] for w in msgs})
    print(f"{prog}: note: {len(msgs)} numeric warning(s) during the computation ({'; '.join(kinds[:2])}"
          f"{'; ...' if len(kinds) > 2 else ''}); rerun with --debug to see where", file=sys.stderr)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at devnull so the interpreter's final flush is quiet."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
