"""The one strict-JSON encoder (RFC 8259: no NaN, no Infinity): :func:`jsonable`, :func:`dumps`,
:func:`untag` and :func:`loads_strict`.
"""

from __future__ import annotations

import dataclasses
import decimal
import json
import math
import sys

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
