"""Plumbing shared by the command lines ``python -m bounds``, ``python -m verify`` and
``python -m simulate``.

Importing this module imports only the standard library (no sympy, no numpy, no
tqdm until a progress bar is actually shown, no rich until a table is laid out), so any
command line can use it.

* :class:`UsageError` -- bad input; :func:`run` prints it as one line on stderr, exit 2.
* :class:`Parser` -- :class:`argparse.ArgumentParser` whose errors raise :class:`UsageError`
  (one line, the flag named once: ``--dim: must be an integer >= 1, got 0``);
  :class:`ParagraphHelpFormatter` wraps descriptions to the terminal but keeps their line breaks.
* :func:`run` -- the dispatcher: ``argv[0]`` names a command (or a claim id); unexpected
  exceptions become one line ``internal error: ...`` with exit 70 (``--debug`` anywhere in
  argv shows the traceback instead); Ctrl-C exits 130.
* :func:`dumps` -- strict RFC 8259 JSON (NaN -> null, +/-inf -> "inf"/"-inf"; numpy and
  mpmath numbers converted; values outside the double range as decimal strings).
* :func:`jsonable` -- the one strict-JSON encoder behind :func:`dumps`: a NaN or infinity
  is written as null/"inf" (``nonfinite="null"``), tagged ``{"__float__": "nan"}`` for a
  cache that must give it back (``"tag"``, read back by :func:`untag`), or refused
  (``"refuse"``); :func:`loads_strict` parses refusing NaN.
* :mod:`mcsa_cli.store` -- the one content-addressed
  store of every cache (:class:`~mcsa_cli.store.Store`, :func:`~mcsa_cli.store.files_digest`);
  :mod:`mcsa_cli.pool` -- the one local process pool (:func:`~mcsa_cli.pool.local_pool`:
  spawned workers that leave Ctrl-C to the parent, stopped at once on an interruption).
* :func:`number_text` -- a number with its special values spelled as the caller says;
  :func:`md_cell` -- one Markdown table cell; :func:`list_arguments` -- a ``list`` command's flags.
* :func:`table` -- a plain-text table laid out by rich that fits the terminal (cells wrap
  at spaces, no word is split; columns that do not fit are left out and named; a cell cut
  short ends in a visible marker); :func:`add_wide` adds ``--wide`` (everything, unwrapped);
  :func:`wrap` fits prose lines; :func:`progress` -- a tqdm bar on stderr that is silent
  when stderr is not a terminal or under ``--json``.
* :func:`short` -- a number in at most 6 significant digits (tables); :func:`show_param`
  -- a parameter as typed, abbreviated when huge.
* :func:`output_path` -- validate an output file or directory before any work by creating
  it (removed again by :func:`run` if the command never writes it); :func:`atomic_write`
  -- temp file, fsync, :func:`os.replace`, with the user's umask.
* :func:`ascii_fallback` (called by :func:`run`) -- on a terminal that cannot encode
  ``≤ χ² ∞ …``, such symbols print as ASCII spellings instead of crashing.
* :func:`number`, :func:`numbers` -- parse a flag's value (or a comma list) with its
  domain; ``exact=True`` keeps the decimal digits (a :class:`decimal.Decimal`) so that
  mpmath sees the value at full precision.

Exit statuses shared by the three command lines (:data:`EXIT_HELP` is the text for ``--help``):
0 holds / success, 1 a claim is violated, 2 bad input, 3 inconclusive, 4 depends on reading,
5 a run diverged, 70 internal error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import decimal
import errno
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import textwrap
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Mapping

OK, VIOLATED, BAD_INPUT, INCONCLUSIVE, DEPENDS_ON_READING, DIVERGED = 0, 1, 2, 3, 4, 5
INTERNAL_ERROR, INTERRUPTED = 70, 130
#: an output that cannot be written (a full disk, a quota, a file too large): sysexits.h EX_IOERR
IO_ERROR = 74


class OutputError(OSError):
    """An output that cannot be written: :func:`run` says so in one line naming it, exit 74."""

    def __init__(self, name: str, err: OSError):
        super().__init__(err.errno, err.strerror or str(err))
        self.name = name

    def __str__(self) -> str:
        return f"cannot write {self.name}: {self.strerror}"

EXIT_HELP = (
    "exit status: 0 holds / success, 1 a claim is violated, 2 bad input (one line on stderr), 3 "
    "inconclusive, 4 depends on reading, 5 a run diverged, 70 internal error (rerun with --debug "
    "for the traceback), 130 interrupted.")


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


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


# ----------------------------------------------------------------------------- output paths
_EXTENSIONS = (".png", ".pdf", ".svg")
#: outputs created by :func:`output_path` in this process: (path, is_dir, (st_dev, st_ino))
_CREATED: list[tuple[str, bool, tuple[int, int]]] = []


def _why(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _probe_directory(flag: str, text, d: str) -> None:
    """Create and remove a temporary file in ``d``: the only test that holds for root too
    (``os.access`` says yes to root on read-only or virtual file systems)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".write-test-")
    except OSError as e:
        raise UsageError(
            f"{flag}: cannot write into {d!r} ({_why(e)}), needed for {str(text)!r}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def output_path(flag: str, text, extensions: tuple[str, ...] | None = _EXTENSIONS, *,
                kind: str = "file") -> str:
    """Validate an output path before any work by creating it; return its absolute path.

    ``kind="file"``: the name must end in one of ``extensions`` (``None``: any name); a
    new file is created empty (with the user's umask), an existing regular file is left
    as it is and its directory is checked by creating and removing a temporary file (what
    :func:`atomic_write` will need).  ``kind="dir"``: a directory, created when missing
    (its parent must exist), else checked by writing a temporary file into it.
    ``kind="auto"``: a file when the name ends in one of ``extensions`` (e.g. ``.html``),
    else a directory -- ``os.path.isdir`` on the result tells which.

    Whatever this creates is removed again when :func:`run` finishes if the command never
    wrote it (a file still empty with the same inode, a directory still empty), so a run
    that fails or is interrupted leaves nothing behind.  Bad paths raise
    :class:`UsageError` (one line naming ``flag``): empty, wrong extension, a directory
    where a file is needed (or the reverse), a missing parent directory, a parent that is
    a file, no permission, a read-only or virtual file system (``/proc``, ``/sys``), as
    root too.
    """
    if kind not in ("file", "dir", "auto"):
        raise ValueError(f"output_path: kind must be 'file', 'dir' or 'auto', got {kind!r}")
    exts = tuple(e.lower() for e in extensions) if extensions else ()
    what = "a directory" if kind == "dir" else (
        f"a file name ending in {', '.join(exts)}" if exts else "a file name")
    if text is None or not str(text).strip():
        raise UsageError(f"{flag}: empty path; give {what}")
    p = os.path.abspath(os.path.expanduser(str(text)))
    is_file = kind == "file" or (kind == "auto" and exts and p.lower().endswith(exts))
    if kind == "file" and exts and not p.lower().endswith(exts):
        raise UsageError(f"{flag}: the path must end in {', '.join(exts)}, got {str(text)!r}")
    parent = os.path.dirname(p)
    if not os.path.isdir(parent):
        if os.path.exists(parent) or any(os.path.isfile(a) for a in _ancestors(parent)):
            raise UsageError(
                f"{flag}: {str(text)!r}: a part of the path is a file, not a directory")
        raise UsageError(f"{flag}: directory {parent!r} does not exist")
    if is_file:
        if os.path.isdir(p):
            raise UsageError(f"{flag}: {str(text)!r} is a directory; give {what}")
        if os.path.lexists(p):
            if not os.path.isfile(p):
                raise UsageError(f"{flag}: {str(text)!r} exists and is not a regular file")
            try:
                with open(p, "ab"):  # writable? (no truncation, content untouched)
                    pass
            except OSError as e:
                raise UsageError(f"{flag}: cannot write to {str(text)!r} ({_why(e)})") from None
            _probe_directory(flag, text, parent)
            return p
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as e:
            raise UsageError(f"{flag}: cannot create {str(text)!r} ({_why(e)})") from None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        _CREATED.append((p, False, (st.st_dev, st.st_ino)))
        try:  # atomic_write puts a temporary file beside it
            _probe_directory(flag, text, parent)
        except UsageError:
            discard_unwritten_outputs()
            raise
        return p
    if os.path.lexists(p):
        if not os.path.isdir(p):
            raise UsageError(f"{flag}: {str(text)!r} exists and is not a directory")
        _probe_directory(flag, text, p)
        return p
    try:
        os.mkdir(p)
    except OSError as e:
        raise UsageError(f"{flag}: cannot create directory {str(text)!r} ({_why(e)})") from None
    st = os.stat(p)
    _CREATED.append((p, True, (st.st_dev, st.st_ino)))
    try:
        _probe_directory(flag, text, p)
    except UsageError:
        discard_unwritten_outputs()
        raise
    return p


def _ancestors(p: str):
    while True:
        yield p
        up = os.path.dirname(p)
        if up == p:
            return
        p = up


def discard_unwritten_outputs() -> list[str]:
    """Remove what :func:`output_path` created and the command never wrote (a file still
    empty with the same inode, a directory still empty); return the removed paths.
    :func:`run` calls it when the command finishes, whatever its outcome."""
    removed = []
    while _CREATED:
        p, is_dir, ident = _CREATED.pop()
        try:
            st = os.lstat(p)
            if (st.st_dev, st.st_ino) != ident:
                continue  # replaced by the real output (atomic_write)
            if is_dir:
                os.rmdir(p)  # fails unless empty
            elif st.st_size == 0:
                os.unlink(p)
            else:
                continue
            removed.append(p)
        except OSError:
            pass
    return removed


def _umask() -> int:
    """The process umask, read without changing it where /proc allows."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def atomic_write(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically: a temporary file in the same
    directory, flushed and fsynced, given the mode a new file would have (0666 & ~umask;
    an existing file's mode is kept), then :func:`os.replace`; removed on any failure."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777 if os.path.isfile(path) else 0o666 & ~_umask()
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            with contextlib.suppress(OSError):  # file systems without modes
                os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, OutputError) and e.errno in _WRITE_ERRNOS:
            raise OutputError(path, e) from e
        raise


# ----------------------------------------------------------------------------- JSON
# the one strict-JSON encoder (RFC 8259: no NaN, no Infinity)
DOUBLE_MAX = sys.float_info.max
#: the ways :func:`jsonable` writes a non-finite float
NONFINITE = ("null", "tag", "refuse")
_TAG = "__float__"
#: the floats of the tags (math.nan itself: a row read back compares equal to one that holds it)
_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _int_e(x: int) -> str:
    """An int in exponent notation with every significant digit: 10**400 -> '1e+400'."""
    d = decimal.Context(prec=len(str(abs(x))) + 1).normalize(decimal.Decimal(x))
    return format(d, "e")


def _special(name: str, nonfinite: str):
    """The JSON value of a non-finite number ``name`` ("nan", "inf", "-inf")."""
    if nonfinite == "tag":
        return {_TAG: name}
    if nonfinite == "refuse":
        raise ValueError(f"non-finite number {name} in strict JSON")
    return None if name == "nan" else name


def _num(x, nonfinite: str = "null"):
    """A float or int for JSON; a non-finite one as ``nonfinite`` says (:func:`jsonable`)."""
    if isinstance(x, bool) or isinstance(x, int):
        return x
    x = float(x)
    if math.isnan(x):
        return _special("nan", nonfinite)
    if math.isinf(x):
        return _special("inf" if x > 0 else "-inf", nonfinite)
    return x


def _mp(x, nonfinite: str = "null"):
    """An mpmath number: a float when it is a double, else a decimal string."""
    import mpmath

    if isinstance(x, mpmath.mpc):
        return {"re": _mp(x.real, nonfinite), "im": _mp(x.imag, nonfinite)}
    if mpmath.isnan(x):
        return _special("nan", nonfinite)
    if mpmath.isinf(x):
        return _special("inf" if x > 0 else "-inf", nonfinite)
    f = float(x)
    if math.isinf(f) or (f == 0 and x != 0):
        return mpmath.nstr(x, 15, min_fixed=1, max_fixed=0)
    return f


def _decimal(x: decimal.Decimal, nonfinite: str = "null"):
    if x.is_nan():
        return _special("nan", nonfinite)
    if x.is_infinite():
        return _special("inf" if x > 0 else "-inf", nonfinite)
    f = float(x)
    if math.isinf(f) or (f == 0 and x != 0):
        return str(x)
    return f


def jsonable(obj, nonfinite: str = "null"):
    """``obj`` with every value made strict-JSON-able.

    Parameters
    ----------
    obj : object
        Plain data, numpy scalars and arrays, mpmath and sympy numbers, Decimals,
        Fractions, dataclasses and paths, nested in dicts, lists, tuples and sets.
    nonfinite : {"null", "tag", "refuse"}
        A NaN or infinity: ``"null"`` writes NaN as null and +/-inf as ``"inf"``/``"-inf"``;
        ``"tag"`` writes ``{"__float__": "nan" | "inf" | "-inf"}`` (read back by
        :func:`untag`); ``"refuse"`` raises :class:`ValueError`.

    Returns
    -------
    object
        Dicts (string keys), lists, strings, finite floats, ints, bools and None. Numbers
        outside the double range become decimal strings (``"1e+400"``).
    """
    if nonfinite not in NONFINITE:
        raise ValueError(f"nonfinite must be one of {NONFINITE}, got {nonfinite!r}")
    return _jsonable(obj, nonfinite)


def _jsonable(obj, nf: str):
    if obj is None or isinstance(obj, (str, bool)):
        return obj
    if isinstance(obj, int):
        return obj if abs(obj) <= DOUBLE_MAX else _int_e(obj)
    if isinstance(obj, float):
        return _num(obj, nf)
    if isinstance(obj, dict):
        return {(k if isinstance(k, str) else str(_jsonable(k, nf))): _jsonable(v, nf)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v, nf) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return [_jsonable(v, nf) for v in sorted(obj, key=str)]
    if isinstance(obj, decimal.Decimal):
        return _decimal(obj, nf)
    mod = type(obj).__module__ or ""
    if mod.startswith("mpmath"):
        return _mp(obj, nf)
    if mod == "numpy" or mod.startswith("numpy."):
        if hasattr(obj, "dtype") and getattr(obj.dtype, "kind", "") == "c":
            return _jsonable({"re": obj.real.tolist(), "im": obj.imag.tolist()}, nf)
        if hasattr(obj, "tolist"):
            return _jsonable(obj.tolist(), nf)
    if mod.startswith("sympy"):
        try:
            if obj.is_Number:
                import mpmath

                return _mp(mpmath.mpf(obj.evalf(30)), nf)
        except (AttributeError, TypeError, ValueError):
            pass
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _jsonable(dataclasses.asdict(obj), nf)
    if hasattr(obj, "__fspath__"):
        return str(obj)
    from fractions import Fraction

    if isinstance(obj, Fraction):
        return _num(obj, nf)
    raise TypeError(f"cannot encode {type(obj).__name__} as JSON")


def untag(obj):
    """The inverse of ``jsonable(..., nonfinite="tag")`` on parsed JSON.

    Parameters
    ----------
    obj : object
        Parsed JSON data.

    Returns
    -------
    object
        ``obj`` with every ``{"__float__": "nan" | "inf" | "-inf"}`` replaced by that float.
    """
    if isinstance(obj, dict):
        if set(obj) == {_TAG}:
            return _SPECIAL[obj[_TAG]]
        return {k: untag(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [untag(v) for v in obj]
    return obj


def dumps(obj, *, nonfinite: str = "null", **kw) -> str:
    """Strict RFC 8259 JSON text of ``obj``.

    Parameters
    ----------
    obj : object
        Anything :func:`jsonable` takes: numpy scalars and arrays, mpmath and sympy numbers
        and Decimals are converted (outside the double range: a decimal string such as
        ``"7.35758882342885e-12000000000001"``).
    nonfinite : {"null", "tag", "refuse"}
        What a NaN or infinity becomes (:func:`jsonable`); by default NaN -> null,
        +inf -> "inf", -inf -> "-inf".
    **kw
        Passed to :func:`json.dumps` (``indent``, ``sort_keys``, ``ensure_ascii``, ...).

    Returns
    -------
    str
        The JSON text; never ``NaN`` or ``Infinity``.
    """
    kw.setdefault("allow_nan", False)
    return json.dumps(jsonable(obj, nonfinite), **kw)


def _refuse(name):
    raise ValueError(f"non-standard JSON constant {name}")


def loads_strict(text: str | bytes):
    """Parse JSON, refusing NaN / Infinity (what a strict parser does).

    Parameters
    ----------
    text : str or bytes
        JSON text.

    Returns
    -------
    object
        The parsed value; :class:`ValueError` on invalid JSON or a non-standard constant.
    """
    return json.loads(text, parse_constant=_refuse)


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


# ----------------------------------------------------------------------------- tables
def cell(x) -> str:
    return "—" if x is None else str(x)


def number_text(x, spec: str = ".6g", *, none: str = "—", nan: str = "nan",
                inf: str = "inf") -> str:
    """A number formatted with ``spec``, its special values spelled as the caller says.

    Parameters
    ----------
    x : object
        A number (anything :class:`float` takes), or None.
    spec : str
        The :func:`format` spec of a finite value (``".4g"``: 4 significant digits).
    none : str
        The text of None.
    nan : str
        The text of NaN.
    inf : str
        The text of +infinity; -infinity is ``"-" + inf``.

    Returns
    -------
    str
        The text; a value :class:`float` does not take is shown as ``str(x)``.
    """
    if x is None:
        return none
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f):
        return nan
    if math.isinf(f):
        return inf if f > 0 else "-" + inf
    return format(f, spec)


def md_cell(text) -> str:
    """One Markdown table cell: on one line, every '|' escaped.

    Parameters
    ----------
    text : object
        The cell's content (``str()`` of it), which may hold newlines and pipes (a lone one
        too, as in 'E[. | F]').

    Returns
    -------
    str
        The text with newlines as spaces and ``|`` as ``\\|``, so that it cannot end the cell.
    """
    return str(text).replace("\n", " ").replace("|", "\\|")


_WHITESPACE = str.maketrans({c: " " for c in "\t\n\x0b\x0c\r"})
#: a word longer than its column may break after these list separators, and nowhere else
_PIECE = re.compile(r"[^/,+\[]*[/,+\[]+|[^/,+\[]+")


def _pieces(word: str) -> list[str]:
    """``word`` cut after each ``/``, ``,``, ``+`` and ``[``: ``a[b/c],`` -> ``a[``, ``b/``,
    ``c],``.
    """
    return _PIECE.findall(word)


def _fold(word: str, w: int, cell_len) -> str:
    """A word longer than ``w`` as lines of at most ``w`` (when its pieces allow), broken
    only after ``/``, ``,``, ``+`` or ``[`` (greedy)."""
    lines = [""]
    for p in _pieces(word):
        if lines[-1] and cell_len(lines[-1] + p) > w:
            lines.append("")
        lines[-1] += p
    return "\n".join(lines)


def _count_lines(lens: list, w: int) -> int:
    """The lines a greedy wrap at width ``w`` gives words of lengths ``lens`` (one space
    between words).  A word given as a tuple of its pieces' lengths (:func:`_pieces`) that is
    longer than ``w`` is folded after its pieces as :func:`_fold` does; a plain one longer
    than ``w`` counts ``ceil(length / w)`` lines."""
    n, used = 0, w
    for word in lens:
        x = sum(word) if isinstance(word, tuple) else word
        if used + 1 + x <= w:
            used += 1 + x
        elif x <= w or not isinstance(word, tuple):
            k = max(1, -(-x // max(w, 1)))
            n, used = n + k, x - (k - 1) * w
        else:  # folded after its pieces (_fold); the first line may follow the words before
            chunks = [0]
            for piece in word:
                if chunks[-1] and chunks[-1] + piece > w:
                    chunks.append(0)
                chunks[-1] += piece
            n += len(chunks) - (1 if used + 1 + chunks[0] <= w else 0)
            used = chunks[-1]
    return max(n, 1)


def _allocate(cols: list[list[list]], lo: list[int], hi: list[int], room: int,
              max_lines: int) -> list[int]:
    """Column widths between ``lo`` and ``hi`` (each column's longest word and its longest
    cell) adding up to at most ``room`` at which the table is shortest.

    ``cols``: per column, per row (the header first), the lengths of the cell's words (a word
    that may break after / , + [ as the tuple of its pieces' lengths).  From ``lo`` the spare
    room is handed out step by step: each step widens the one column, and by as much, as
    removes the most per character given of, in this order, the lines cut off cells taller
    than ``max_lines``, the table's lines (a row is as tall as its tallest cell) and the cells'
    lines (so that two cells holding one row up can both narrow it).  Then characters are moved
    between columns while that shortens the table.  So a column that needs a character to lose a
    line gets it before one whose extra room would change nothing: no column is squeezed while
    another has room it cannot use.  The table is narrower than ``room`` only when no column can
    lose a line with what is left."""
    n = len(cols)
    clen = [[sum(sum(x) if isinstance(x, tuple) else x for x in c) + max(len(c) - 1, 0)
             for c in col] for col in cols]
    cache: list[dict[int, list[int]]] = [{} for _ in range(n)]

    def lines(j: int, w: int) -> list[int]:
        h = cache[j].get(w)
        if h is None:
            h = cache[j][w] = [1 if L <= w else _count_lines(c, w)
                               for c, L in zip(cols[j], clen[j])]
        return h

    widths = [min(a, b) for a, b in zip(lo, hi)]
    spare = room - sum(widths)
    rows = range(len(cols[0]) if cols else 0)
    while spare > 0:
        cur = [lines(j, widths[j]) for j in range(n)]
        shown = [[min(x, max_lines) for x in h] for h in cur]
        top = [max(col[r] for col in shown) for r in rows]
        best = None
        for j in range(n):
            tall = [r for r in rows if cur[j][r] > 1]
            if not tall:
                continue
            # each tall row's height without this column
            rest = [max((shown[k][r] for k in range(n) if k != j), default=1) for r in tall]
            prev = cur[j]
            for w in range(widths[j] + 1, min(hi[j], widths[j] + spare) + 1):
                new = lines(j, w)
                if new == prev:
                    continue
                prev = new
                d = w - widths[j]
                dcut = sum(max(cur[j][r] - max_lines, 0) - max(new[r] - max_lines, 0)
                           for r in tall)
                dh = sum(top[r] - max(o, min(new[r], max_lines)) for r, o in zip(tall, rest))
                ds = sum(cur[j][r] - new[r] for r in tall)
                score = (dcut / d, dh / d, ds / d, -d)
                if best is None or score > best[0]:
                    best = (score, j, w)
                if all(x == 1 for x in new):
                    break
        if best is None:
            break
        _, j, w = best
        spare -= w - widths[j]
        widths[j] = w

    def cost(ws):  # (lines cut off, table lines, cell lines)
        hs = [lines(j, w) for j, w in enumerate(ws)]
        return (sum(max(x - max_lines, 0) for h in hs for x in h),
                sum(max(min(h[r], max_lines) for h in hs) for r in rows),
                sum(map(sum, hs)))

    # then no character moved from one column to another shortens the table (the steps above
    # only ever widen)
    now, moved = cost(widths), True
    while moved:
        moved = False
        for i in range(n):
            for j in range(n):
                if i == j or widths[i] >= hi[i] or widths[j] <= lo[j]:
                    continue
                widths[i], widths[j] = widths[i] + 1, widths[j] - 1
                c = cost(widths)
                if c < now:
                    now, moved = c, True
                else:
                    widths[i], widths[j] = widths[i] - 1, widths[j] + 1
    return widths


def table(rows: Iterable[Iterable], header: Iterable, width: int | None = None, *,
          wide: bool = False,
          max_lines: int = 6, optional: Iterable[str] = (), see: str = "--wide",
          key: bool = True) -> str:
    """Columns padded to their widest cell, two spaces apart, a dashed line under the header,
    laid out by Rich (:class:`rich.table.Table`, no colour, no box characters).

    The table fits ``width`` columns (default :func:`terminal_width`: the terminal's, 100
    when unknown).  No word is ever split: cells wrap at spaces, and a word that is a list
    written without spaces may also break after ``/``, ``,``, ``+`` or ``[`` (its pieces), and
    nowhere else; the first column (the row's key: a claim or step id) is never wrapped
    (``key=False``: it wraps like the others).  Each column is at least as wide as its longest
    piece; when those do not fit, columns are left out -- first those named in ``optional``
    (header names, in that order), then the others from the right, never the first -- and a
    line under the table names them and says that ``see`` (the ``--wide`` flag of
    :func:`add_wide`) shows them.  The room left goes where it shortens the table most
    (:func:`_allocate`: first cells that would be cut, then the rows' heights, then the cells'
    lines), so no column is squeezed while another has room it cannot use.  A cell that would
    need more than ``max_lines`` lines is cut after a whole word and ends in :func:`marker`
    (``…``, ``~`` on an ASCII terminal), and a line says so.  ``wide=True``: every column,
    every cell whole on one line, whatever the width.  Cells are shown as
    stdout can print them (:func:`text`).
    """
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    head = [text(cell(h)).translate(_WHITESPACE) for h in header]
    n = len(head)
    body = [([text(cell(c)).translate(_WHITESPACE) for c in r] + [""] * n)[:n] for r in rows]
    cols = [[h] + [r[i] for r in body] for i, h in enumerate(head)]
    natural = [max(cell_len(c) for c in col) for col in cols]
    limit = None if wide else (width or terminal_width())
    keep, widths = list(range(n)), list(natural)
    if limit is not None and sum(natural) + 2 * (n - 1) > limit:
        # the narrowest a column can be: its longest piece of a word between breaks after
        # / , + [ (a list written without spaces breaks there, and nowhere else); the key
        # column (a claim or step id): its longest cell
        lo = [max((cell_len(p) for c in col for w in c.split() for p in _pieces(w)),
                  default=0) for col in cols]
        if key:
            lo[0] = natural[0]
        opt = [i for name in optional for i in range(1, n) if head[i] == name]
        order = list(dict.fromkeys(opt + list(range(n - 1, 0, -1))))  # left out first .. last
        # (nothing left to leave out: the narrowest, wider than the terminal)
        while sum(lo[i] for i in keep) + 2 * (len(keep) - 1) > limit and order:
            keep.remove(order.pop(0))
        room = max(limit - 2 * (len(keep) - 1), 0)
        lens = [[[cell_len(w) if len(_pieces(w)) < 2 else tuple(cell_len(p) for p in _pieces(w))
                  for w in c.split()] for c in cols[i]] for i in keep]
        fitted = _allocate(lens, [lo[i] for i in keep], [natural[i] for i in keep], room,
                           max_lines)
        widths = [0] * n
        for i, w in zip(keep, fitted):
            widths[i] = w
    mark = marker()
    cut = False
    console = Console(file=io.StringIO(), width=max(limit or 1, 1), color_system=None,
                      force_terminal=False,
                      force_jupyter=False, highlight=False, emoji=False, markup=False,
                      legacy_windows=False,
                      no_color=True)

    def lines(c: str, w: int) -> list[str]:
        nonlocal cut
        if wide or cell_len(c) <= w:
            return [c]
        c = re.sub(r"\S+", lambda m: _fold(m.group(), w,
                                           cell_len) if cell_len(m.group()) > w else m.group(), c)
        ls = [line.plain.rstrip() for line in Text(c).wrap(console, w, overflow="fold")] or [""]
        if len(ls) > max_lines:
            ls, last = ls[:max_lines], ls[max_lines - 1]
            while last and cell_len(last) + cell_len(mark) > w:  # cut after a whole word
                last = last.rsplit(" ", 1)[0] if " " in last.strip() else ""
            ls[-1] = last + mark
            cut = True
        return ls

    grid = Table(box=None, show_header=False, show_edge=False, pad_edge=False, padding=(0, 2, 0, 0),
                 expand=False)
    for i in keep:
        grid.add_column(no_wrap=True, overflow="ignore", width=widths[i])
    for r in [head, None, *body]:
        if r is None:  # the dashed rule under the header
            grid.add_row(*("-" * widths[i] for i in keep))
        else:
            grid.add_row(*(Text("\n".join(lines(r[i], widths[i]))) for i in keep))
    total = sum(widths[i] for i in keep) + 2 * (len(keep) - 1)
    console.file, console.width = io.StringIO(), max(total, 1) + 1
    console.print(grid)
    result = [line.rstrip() for line in console.file.getvalue().split("\n")[:-1]]
    left_out = [head[i] for i in range(n) if i not in keep]
    if left_out:
        result.append(wrap(f"({len(left_out)} of {n} columns left out to fit {limit} columns: "
                           f"{', '.join(left_out)}; {see} shows "
                           f"{'it' if len(left_out) == 1 else 'them'})",
                           width=limit, indent=" "))
    if cut:
        result.append(
            wrap(f"({mark} marks a cell cut to fit {limit} columns; {see} shows every cell whole)",
                 width=limit, indent=" "))
    return "\n".join(result)


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
        errors: Iterable[type[BaseException]] = ()) -> int:
    """Dispatch ``argv[0]`` to ``commands``; any other word is a claim id passed to ``claim``
    (or, without ``claim``, an unknown command).

    Returns the exit status: the command's own; 0 for ``--help`` and ``--version`` (the
    package version, :func:`package_version`); 2 for :class:`UsageError`
    and for ``errors`` (the callers' bad-input exceptions), one line on stderr; 70 for any
    other exception (one line; ``--debug`` anywhere in argv re-raises it); 130 on Ctrl-C.
    Numeric RuntimeWarnings never reach the user raw: they are collected and, if any
    escaped the command's own handling, summarised in one line on stderr.  Symbols the
    terminal cannot encode print in ASCII (:func:`ascii_fallback`); outputs that
    :func:`output_path` created and the command never wrote are removed at the end
    (:func:`discard_unwritten_outputs`).
    """
    ascii_fallback()
    real = sys.stdout
    guarded = sys.stdout = _GuardedStream(real, "standard output") if real is not None else real
    try:
        status = _run(prog, usage, argv, commands, claim, errors)
        if status != IO_ERROR:
            try:  # written before the status says so (output at exit, after --help too, fails here)
                # None only when Python has no stdout
                sys.stdout.flush()  # type: ignore[union-attr]
                # a write that argparse's --help swallowed
                if guarded is not None and guarded.failed is not None:
                    raise guarded.failed
            except OSError as e:
                print(f"{prog}: error: "
                      f"{e if isinstance(e, OutputError) else OutputError('standard output', e)}",
                      file=sys.stderr)
                _silence_stdout()
                status = IO_ERROR
        return status
    finally:
        if sys.stdout is guarded:  # (a command that redirected stdout itself keeps its own)
            sys.stdout = real
        discard_unwritten_outputs()


class _GuardedStream:
    """A text stream whose failed writes raise :class:`OutputError` naming it (standard output on a
    full
    disk: exit 74 with one line, not an internal error).  Everything else is the stream's own."""

    def __init__(self, stream, name: str):
        self._stream, self._name = stream, name
        # the first failed write, even if its caller swallowed it
        self.failed: OutputError | None = None

    def _fail(self, e: OSError) -> OutputError:
        err = e if isinstance(e, OutputError) else OutputError(self._name, e)
        if self.failed is None:
            self.failed = err
        return err

    def write(self, s):
        try:
            return self._stream.write(s)
        except OSError as e:
            err = self._fail(e)
            raise err from (None if err is e else e)

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as e:
            err = self._fail(e)
            raise err from (None if err is e else e)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def package_version() -> str:
    """This distribution's version (``verify.__version__``), from its installed metadata."""
    from importlib import metadata

    try:
        return metadata.version("mcsa-verify")
    except metadata.PackageNotFoundError:  # a bare source tree
        return "0+unknown"


def _run(prog, usage, argv, commands, claim, errors) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    caught: list = []
    try:
        with warnings.catch_warnings(record=not debug) as caught_:
            if not debug:
                warnings.simplefilter("always", RuntimeWarning)
                caught = caught_  # type: ignore[assignment]  # a list: record=True here
            if not argv:
                what = [*commands, "a claim id"] if claim is not None else list(commands)
                raise UsageError(f"a command is required ({_either(what)}); see `{prog} --help`")
            if argv[0] in ("-h", "--help"):
                print(wrap(usage))
                return OK
            if argv[0] == "--version":
                print(f"{prog} {package_version()}")
                return OK
            cmd, rest = argv[0], argv[1:]
            if cmd in commands:
                status = commands[cmd](rest)
            elif cmd.startswith("-"):
                raise UsageError(
                    f"expected a command{' or claim id' if claim else ''} before {cmd!r}; see "
                    f"`{prog} --help`")
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
        unwritable = _unwritable_output(e)
        if unwritable is not None:
            print(f"{prog}: error: {unwritable}", file=sys.stderr)
            # the unwritten rest is dropped, not retried by the interpreter's final flush
            _silence_stdout()
            return IO_ERROR
        print(f"{prog}: internal error: {type(e).__name__}: {_first_line(e)}; "
              "rerun with --debug for the traceback", file=sys.stderr)
        return INTERNAL_ERROR


#: errors of a write that cannot succeed: no space, a quota, a file too large, an I/O error
_WRITE_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG",
                                                      "EIO") if hasattr(errno, n))


def _unwritable_output(e: BaseException) -> str | None:
    """The one line for an output that could not be written (an :class:`OutputError`, or a failed
    write of a
    named file: no space, quota, too large), or None for any other error."""
    if isinstance(e, OutputError):
        return str(e)
    if isinstance(e, OSError) and e.errno in _WRITE_ERRNOS and e.errno != errno.EIO and e.filename:
        return str(OutputError(str(e.filename), e))
    return None


def _report_warnings(prog, caught) -> None:
    msgs = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if not msgs:
        return
    kinds = sorted({" ".join(str(w.message).split())[:60] for w in msgs})
    print(f"{prog}: note: {len(msgs)} numeric warning(s) during the computation "
          f"({'; '.join(kinds[:2])}{'; ...' if len(kinds) > 2 else ''}); rerun with --debug to see "
          f"where", file=sys.stderr)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at devnull so the interpreter's final flush is quiet."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
