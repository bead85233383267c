"""Bounds at exact parameters, and checks whose empirical side is exact or a tracked float.

The exact checks of this document are decided on enclosures (docs/methods.md, "Validated
numerics").  The empirical side comes from :mod:`simulate.rigorous` (an exact rational, or a
double with a proved error bound and an exact refinement); the bound must then be evaluated at
the instance's *exact* parameters (``w*`` = 11/10, a state's weight, ``chi^2``, ``E_q s^2``), not
at their doubles, or a tie (a tight bound, an identity) could never be decided:

* all parameters exact and the formula rational in them (most bounds of Kim et al. 2022 are):
  the bound is evaluated in exact rational arithmetic, an exact point (:func:`exact_value`);
* all exact but the formula irrational (``exp``, ``sqrt`` of a non-square): a
  :class:`verify.registry.BoundValue` whose formula is enclosed at the exact parameters, at
  every precision :func:`verify.decide.decide` asks for;
* a parameter known only to a proved error (a tracked float: ``C_cov`` of an unconditional law
  after hundreds of steps): ball arithmetic with that parameter as a ball, at 64 bits.

:func:`bound_kwargs` returns the ``bound`` / ``rhs`` arguments of a
:class:`verify.model.CheckResult` for each case.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from simulate.rigorous import TF, frac

__all__ = ["bound_kwargs", "exact_value", "exact_param", "Ball"]


class _NotRational(Exception):
    """The formula's value at these parameters is not a rational computed exactly here."""


class Ball:
    """A parameter known only within a proved error: ``value`` +- ``err`` (a tracked float)."""

    __slots__ = ("value", "err")

    def __init__(self, value: float, err: float):
        self.value, self.err = float(value), float(err)

    @staticmethod
    def of(t: TF) -> "Ball":
        v, e = t.scalar()
        return Ball(v, e)

    def __float__(self):
        return self.value

    def arb(self):
        from flint import arb

        x = self.value
        return arb(x, math.nextafter(self.err + 4 * math.ulp(x), math.inf))


def _is_arb(x) -> bool:
    return type(x).__name__ == "arb" and type(x).__module__.split(".")[0] == "flint"


def _is_ball(x) -> bool:
    return isinstance(x, Ball) or _is_arb(x)


def exact_param(x):
    """A parameter as an exact number: ints stay ints, fmpq and Fractions become Fractions,
    doubles stand for themselves (exactly), a zero-error tracked float is its double; a ball
    (:class:`Ball`, a tracked float with an error, a python-flint ``arb``) stays a ball."""
    if isinstance(x, Ball):
        return x if x.err else x.value
    if _is_arb(x):
        if x.is_exact() and x.is_finite():
            from bounds.enclosure import Enclosure

            e = Enclosure.from_arb(x)
            if not isinstance(e.lo, (float, Fraction)):
                return x
            return Fraction(e.lo) if not isinstance(e.lo, float) or e.lo != int(e.lo) \
                else int(e.lo)
        return x
    if isinstance(x, TF):
        v, err = x.scalar()
        return v if err == 0 else Ball(v, err)
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if isinstance(x, Fraction):
        return x
    return frac(x)


# ----------------------------------------------------------------------------- exact evaluation
def _qcode(e, names: dict) -> str:
    """Python source evaluating the sympy expression ``e`` on exact Fractions."""
    import sympy as sp

    if e.is_Symbol:
        return names[e.name]
    if e.is_Integer:
        return f"_F({int(e)})"
    if e.is_Rational:
        return f"_F({int(e.p)}, {int(e.q)})"
    if e.is_Add:
        return "(" + " + ".join(_qcode(a, names) for a in e.args) + ")"
    if e.is_Mul:
        return "(" + " * ".join(_qcode(a, names) for a in e.args) + ")"
    if e.is_Pow:
        b, x = e.args
        if x.is_Integer:
            return f"_P({_qcode(b, names)}, {int(x)})"
        if x == sp.Rational(1, 2):
            return f"_S({_qcode(b, names)})"
        if x.is_number:
            raise _NotRational
        return f"_P({_qcode(b, names)}, {_qcode(x, names)})"  # an integer at run time, or not
        # rational
    if isinstance(e, sp.Min):
        return "min(" + ", ".join(_qcode(a, names) for a in e.args) + ")"
    if isinstance(e, sp.Max):
        return "max(" + ", ".join(_qcode(a, names) for a in e.args) + ")"
    if isinstance(e, sp.Abs):
        return f"abs({_qcode(e.args[0], names)})"
    if isinstance(e, sp.Piecewise):
        out = "_X()"
        for val, cond in reversed(e.args):
            c = "True" if cond is sp.true else _qcond(cond, names)
            out = f"(({_qcode(val, names)}) if {c} else {out})"
        return out
    raise _NotRational


def _qcond(c, names) -> str:
    import sympy as sp

    ops = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">",
           sp.GreaterThan: ">="}
    for cls, op in ops.items():
        if isinstance(c, cls):
            return f"({_qcode(c.lhs, names)} {op} {_qcode(c.rhs, names)})"
    raise _NotRational


def _pow(b: Fraction, k) -> Fraction:
    """``b ** k`` exactly for an integer ``k`` (an int, or a Fraction with denominator 1)."""
    if isinstance(k, Fraction):
        if k.denominator != 1:
            raise _NotRational
        k = k.numerator
    if k < 0 and b == 0:
        raise _NotRational
    return b ** k


def _sqrt(x: Fraction) -> Fraction:
    """The exact square root of a rational square (else not rational here)."""
    if x < 0:
        raise _NotRational
    n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if n * n != x.numerator or d * d != x.denominator:
        raise _NotRational
    return Fraction(n, d)


def _undefined():
    raise _NotRational


@lru_cache(maxsize=None)
def _compiled(claim: str, quantity: str, form: str):
    """``(function of Fractions, argument names)`` for one form, or None if not rational."""
    import bounds

    c = bounds.get(claim)
    expr = c.resolve(c.quantity(quantity).form(form).expr)
    args = tuple(sorted(s.name for s in expr.free_symbols))
    names = {a: f"_x{i}" for i, a in enumerate(args)}
    try:
        src = f"lambda {', '.join(names.values())}: {_qcode(expr, names)}"
    except _NotRational:
        return None
    env = {"_F": Fraction, "_P": _pow, "_S": _sqrt, "_X": _undefined}
    return eval(src, env), args  # noqa: S307 -- source generated above from a sympy tree


@lru_cache(maxsize=200_000)
def _exact_cached(claim, quantity, form, key):
    comp = _compiled(claim, quantity, form)
    if comp is None:
        return None
    f, args = comp
    values = dict(key)
    try:
        return Fraction(f(*[Fraction(values[a]) for a in args]))
    except (_NotRational, ZeroDivisionError):
        return _limit_value(claim, quantity, form, values)


def _limit_value(claim, quantity, form, values):
    """The form's one-sided limit from inside its domain when one parameter sits on a domain end
    where the formula is 0/0 (e.g. (1 - 1/w*)^n / (1 - 1/w*) at w* = 1), as bounds evaluates it
    there (bounds.core.Claim.mp_value); exact when the limit is rational, else None."""
    import sympy as sp

    import bounds

    c = bounds.get(claim)
    edge = []
    for name, v in values.items():
        p = c.param(name)
        if p.integer:
            continue
        if p.lower is not None and Fraction(v) == Fraction(p.lower):
            edge.append((name, "+"))
        elif p.upper is not None and Fraction(v) == Fraction(p.upper):
            edge.append((name, "-"))
    if not edge:
        return None
    expr = c.resolve(c.quantity(quantity).form(form).expr)

    def rat(v):
        v = Fraction(v)
        return sp.Rational(v.numerator, v.denominator)

    for name, side in edge:  # the limit in one domain end at a time, the others substituted
        sub = expr.subs({c.param(n).symbol: rat(v) for n, v in values.items() if n != name})
        try:
            lim = sp.limit(sub, c.param(name).symbol, rat(values[name]), side)
        except (ValueError, NotImplementedError, TypeError):
            continue
        if lim.is_Rational:
            return Fraction(int(lim.p), int(lim.q))
    return None


def exact_value(claim: str, quantity: str, form: str, **params) -> Fraction | None:
    """The form's value at exact parameters (ints, Fractions, doubles), exactly; None when the
    formula is not rational there (or needs a parameter that is not exact)."""
    if any(_is_ball(v) for v in params.values()):
        return None
    key = tuple(sorted(params.items()))
    return _exact_cached(claim, quantity, form, key)


# ----------------------------------------------------------------------------- check arguments
@lru_cache(maxsize=None)
def _names(claim, quantity, form) -> tuple:
    import bounds

    return tuple(p.name for p in bounds.get(claim).form_params(quantity, form))


@lru_cache(maxsize=200_000)
def _validate_key(claim, key):
    import bounds

    bounds.get(claim).validate(dict(key))


def _mid(v) -> float:
    return float(v) if isinstance(v, Ball) else float(v.mid())


def _validate(claim, quantity, form, params):
    """Raise bounds.ParamError for parameters outside the form's domain (as bound_value)."""
    import bounds

    names = _names(claim, quantity, form)
    miss = [n for n in names if n not in params]
    if miss:
        raise bounds.ParamError(f"{claim}.{quantity}.{form} needs " + ", ".join(miss))
    _validate_key(claim, tuple(sorted((n, _mid(params[n]) if _is_ball(params[n])
                                       else params[n]) for n in names)))
    return names


def bound_kwargs(claim: str, quantity: str, form: str, **params) -> dict:
    """The ``bound`` (and ``rhs``) arguments of a CheckResult for one form at ``params``.

    ``params`` may be ints, doubles (exact), Fractions, python-flint ``fmpq``, zero-error tracked
    floats, or :class:`Ball` / tracked floats with an error.  Raises ``bounds.ParamError`` as
    :func:`verify.registry.bound_value` does.
    """
    from bounds.enclosure import Enclosure, enclose_expr

    params = {k: exact_param(v) for k, v in params.items()}
    names = _validate(claim, quantity, form, params)
    point = {n: params[n] for n in names}
    val = exact_value(claim, quantity, form, **point)
    if val is not None:
        return {"bound": float(val), "rhs": Enclosure.point(val)}
    if not any(_is_ball(v) for v in point.values()):
        from verify.registry import BoundValue, bound_enclosure

        key = tuple(sorted(point.items()))
        ref = (claim, quantity, form, key)
        enc = bound_enclosure(ref, 64)
        out = BoundValue(enc.mid if enc.finite else math.nan)
        out.ref = ref
        return {"bound": out}
    import bounds

    c = bounds.get(claim)
    expr = c.resolve(c.quantity(quantity).form(form).expr)
    vals = {n: (v.arb() if isinstance(v, Ball) else v) for n, v in point.items()}
    enc = enclose_expr(expr, vals, 64)
    return {"bound": enc.mid if enc.finite else math.nan, "rhs": enc}


def empirical_kwargs(value, exact=None, arb=None) -> dict:
    """The ``empirical`` / ``error`` / ``lhs`` / ``refine`` arguments of a CheckResult.

    ``value``: an exact rational (``fmpq``, Fraction, int: the check is exact), a tracked float
    (a double and its proved error), or an Enclosure.  ``exact()`` (optional) computes the exact
    value when the float path cannot decide; ``arb(bits)`` (optional) a python-flint ball at
    that precision, for values that are not rational.
    """
    from bounds.enclosure import Enclosure

    if isinstance(value, Enclosure):
        out = {"empirical": value.mid if value.finite else math.nan, "lhs": value}
    elif isinstance(value, TF):
        v, e = value.scalar()
        out = {"empirical": v, "error": e}
    else:
        return {"empirical": frac(value)}
    if exact is not None:
        memo: list = []

        def refine(bits, _f=exact):
            if not memo:
                memo.append(Enclosure.point(frac(_f())))
            return memo[0]

        out["refine"] = refine
    elif arb is not None:
        def refine_arb(bits, _f=arb):
            from bounds.enclosure import precision

            with precision(bits):
                return Enclosure.from_arb(_f(bits), bits)

        out["refine"] = refine_arb
    return out


def max_enclosure(values):
    """An enclosure of the largest of several tracked scalars (``[max lo, max hi]``)."""
    encs = [v.enclosure() if isinstance(v, TF) else v for v in values]
    from bounds.enclosure import Enclosure, _le

    lo, hi = encs[0].lo, encs[0].hi
    for e in encs[1:]:
        if _le(lo, e.lo):
            lo = e.lo
        if _le(hi, e.hi):
            hi = e.hi
    return Enclosure(lo, hi, encs[0].how)


def disp(x):
    """A parameter for display in a check's params: exact rationals as doubles."""
    if isinstance(x, (Fraction,)) or type(x).__name__ == "fmpq":
        return float(frac(x))
    if isinstance(x, Ball):
        return x.value
    if isinstance(x, TF):
        return x.scalar()[0]
    if _is_arb(x):
        return float(x.mid())
    return x


def sympy_enclosure(expr, bits: int = 128):
    """A sympy expression without free symbols enclosed in ball arithmetic."""
    from bounds.enclosure import enclose_expr

    return enclose_expr(expr, {}, bits)


def search_bound(claim: str, quantity: str, form: str, **params):
    """The bound of a search row (verify.searching.search) as an enclosure at the exact parameters:
    the
    exact point, or the formula enclosed at 128 bits (a ball parameter stays a ball)."""
    from verify.registry import bound_enclosure

    bk = bound_kwargs(claim, quantity, form, **params)
    if "rhs" in bk:
        return bk["rhs"]
    return bound_enclosure(bk["bound"].ref, 128)


def enclosure_arb(e):
    """A python-flint ball containing the enclosure ``e`` (the union of its two exact ends)."""
    from bounds.enclosure import _to_arb

    return _to_arb(e.lo).union(_to_arb(e.hi))
