"""Evaluation of sympy expressions: vectorised NumPy first, mpmath where floats fail.

Every bound is evaluated by a lambdified NumPy function, vectorised over parameter
arrays.  Alongside the value we evaluate a *first-order rounding-error multiplier*
``K`` (built symbolically from the expression tree, see :func:`rounding_multiplier`)
such that the relative error of the float result is at most about ``K * eps``.

A point is re-evaluated with mpmath, at a precision that is doubled until two
successive results agree, when

* the float value is not finite (overflow, ``inf - inf``, ...),
* the float value is exactly zero (possible underflow), or
* ``K * eps`` exceeds :data:`REL_TOL` (cancellation, e.g. ``1 - r**N`` with
  ``r = 1 - 1/w*`` and ``w* = 1e300``).

This is the standard running-error analysis (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., §3.3) applied to the expression tree.
"""

from __future__ import annotations

import builtins
import contextlib
import decimal
import functools
import inspect
import math
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import mpmath
import numpy as np
import sympy as sp
from mpmath import ctx_mp_python as _ctx_mp_python
from mpmath.libmp import libelefun as _libelefun

from .derive import memo

EPS = float(np.finfo(float).eps)
#: relative accuracy demanded from the float path before it is trusted
REL_TOL = 1e-11
#: mpmath precision search: start, growth factor, ceiling (decimal digits)
MP_START_DPS = 30
MP_MAX_DPS = 8192
#: two successive mpmath evaluations must agree to this many significant digits
MP_AGREE_DIGITS = 20


#: an input whose decimal exponent exceeds this in magnitude is "extreme": where the value
#: cannot be resolved at :data:`MP_MAX_DPS` digits it is found by scaling (:meth:`Evaluator.mp`)
EXTREME_EXP = 300
#: the scaled evaluation puts the least extreme input at 10^(+-SCALED_EXP), and SCALED_STEP,
#: 2 SCALED_STEP decades beyond
SCALED_EXP = 60
SCALED_STEP = 30
#: the precision tried directly at a point with an extreme input before scaling
EXTREME_DPS = 240
#: integer parameters up to this are substituted into a form that gave no trusted value
SUBST_MAX = 64
#: the precision ceiling at the scaled points (inputs within 1e+-(300 + 60))
SCALED_DIGITS = 50  # significant digits an extreme input keeps when it is scaled (_scaled)
SCALED_MAX_DPS = 2048


class PrecisionError(ArithmeticError):
    """mpmath could not reach a stable value below :data:`MP_MAX_DPS` digits."""


def input_span(x) -> int:
    """Decimal digits needed to hold ``x`` exactly relative to 1: its significant digits plus
    the magnitude of its decimal exponent (``1e20000`` -> 20001, ``1.000000000001`` -> 13).
    While the working precision is below this, ``1 - 1/x`` or ``x - 1`` may round to a wrong
    value in a way that every precision up to it repeats."""
    if isinstance(x, bool):
        return 1
    if isinstance(x, (int, np.integer)):
        return len(str(abs(int(x))))
    if isinstance(x, str):
        x = decimal.Decimal(x)
    if isinstance(x, decimal.Decimal):
        if not x.is_finite() or x == 0:
            return 1
        return len(x.as_tuple().digits) + abs(x.adjusted())
    f = float(x)
    if not math.isfinite(f) or f == 0:
        return 1
    return 17 + abs(math.floor(math.log10(abs(f))))


def decimal_exponent(x) -> int:
    """floor(log10 |x|) of an exact input (0 for 0)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return len(str(abs(int(x)))) - 1 if x else 0
    d = (x if isinstance(x, decimal.Decimal)
         else decimal.Decimal(str(x) if isinstance(x, str) else float(x)))
    return d.adjusted() if d.is_finite() and d != 0 else 0


def rounding_multiplier(expr: sp.Expr) -> sp.Expr:
    """Return ``K(expr)``: relative rounding error of float evaluation is <~ K*eps.

    First-order propagation of relative errors through the expression tree:

    * inputs and non-integer constants carry one rounding (``K = 1``); integers 0;
    * ``a1 + ... + an``: ``sum |a_i| (K_i + n - 1) / |sum a_i|`` (cancellation);
    * ``a1 * ... * an``: ``sum K_i + n - 1``;
    * ``b**e``: ``|e| K_b + |e log b| K_e + 1`` (the second term only for symbolic e);
    * ``f(a)``: ``|a f'(a) / f(a)| K_a + 1`` (the condition number of f).
    """
    return _K(sp.sympify(expr))


class KDiv(sp.Function):
    """``a / b`` in a rounding multiplier, but 0 where ``a`` is 0: a sum whose terms are all
    exactly zero carries no rounding error (plain ``0/0`` would make ``K`` NaN, and every
    precision untrusted, at e.g. ``r - r^(N+1)`` with ``r = 0``)."""

    nargs = 2


class KMul(sp.Function):
    """``a * b`` in a rounding multiplier, but 0 where ``a`` is 0 (``0 * log 0``: an exact
    exponent contributes nothing, whatever the base)."""

    nargs = 2


def _kdiv_np(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(all="ignore"):
        return np.where(a == 0, 0.0, a / b)


def _kmul_np(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(all="ignore"):
        return np.where(a == 0, 0.0, a * b)


def _kdiv_mp(a, b):
    if a == 0:
        return mpmath.mpf(0)
    if b == 0:
        return mpmath.inf
    return a / b


def _kmul_mp(a, b):
    return mpmath.mpf(0) if a == 0 else a * b


_K_FUNCS = {"numpy": {"KDiv": _kdiv_np, "KMul": _kmul_np},
            "mpmath": {"KDiv": _kdiv_mp, "KMul": _kmul_mp}}


def _K(e: sp.Expr) -> sp.Expr:
    if e.is_Integer or e is sp.S.Zero:
        return sp.S.Zero
    if e.is_Number or e.is_NumberSymbol:
        return sp.S.One
    if e.is_Symbol:
        return sp.S.Zero if e.is_integer else sp.S.One
    if isinstance(e, (sp.Add, sp.Mul)) and e.is_integer:
        # integer arithmetic (exponents such as N + 1, N (k - 1)): exact in mpmath; in floats
        # an exponent above 2^53 is off by a relative 1e-16, which moves a value inside the
        # double range (|exponent log r| < 745) by less than 1e-13
        return sp.S.Zero
    if isinstance(e, sp.Add):
        n = len(e.args)
        num = sp.Add(*[sp.Abs(a) * (_K(a) + (n - 1)) for a in e.args])
        return KDiv(num, sp.Abs(e))
    if isinstance(e, sp.Mul):
        return sp.Add(*[_K(a) for a in e.args]) + (len(e.args) - 1)
    if isinstance(e, sp.Pow):
        b, x = e.args
        kb = _K(b)
        if x.is_Number:
            steps = 1
            if x.is_Integer and abs(int(x)) > 1:
                steps = int(abs(int(x))).bit_length()
            return sp.Abs(x) * kb + steps
        return sp.Abs(x) * kb + KMul(_K(x), sp.Abs(x * sp.log(b))) + 1
    if isinstance(e, (sp.Max, sp.Min)):
        return sp.Add(*[_K(a) for a in e.args])
    if isinstance(e, sp.Abs):
        return _K(e.args[0])
    if isinstance(e, sp.Piecewise):
        return sp.Piecewise(*[(_K(v), c) for v, c in e.args])
    if isinstance(e, sp.Function) and len(e.args) == 1:
        (a,) = e.args
        d = sp.Dummy("u", real=True)
        f = e.func(d)
        cond = sp.Abs(d * sp.diff(f, d) / f).subs(d, a)
        return cond * _K(a) + 1
    # Anything else (multi-argument special functions): be conservative.
    return sp.Add(*[_K(a) for a in e.args]) + 8


def to_float_scalar(x) -> float:
    """``float(x)`` that saturates instead of raising: ``10**400`` -> inf, ``Decimal('1e-400')`` ->
    0.
    """
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def as_float_array(a) -> np.ndarray:
    """A float array of ``a``, whose entries may be exact (Python ints of any size, Decimals)."""
    arr = np.asarray(a)
    if arr.dtype != object:
        return arr.astype(float)
    return np.vectorize(to_float_scalar, otypes=[float])(arr) if arr.size else arr.astype(float)


def mp_arg(x):
    """``x`` as an mpf at the working precision, from its exact value: Python and NumPy ints
    exactly, Decimals (and decimal strings) from their digits, floats as the double they are."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return mpmath.mpf(int(x))
    if isinstance(x, decimal.Decimal):
        return mpmath.mpf(str(x))
    if isinstance(x, str):
        return mpmath.mpf(x)
    if isinstance(x, mpmath.mpf):
        return +x
    return mpmath.mpf(float(x))


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _as_decimal(x) -> decimal.Decimal:
    """An exact Decimal of an input: ints and Decimals as they are, floats as the double they
    are.
    """
    if isinstance(x, decimal.Decimal):
        return x
    if isinstance(x, str):
        return decimal.Decimal(x)
    if _is_int(x):
        return decimal.Decimal(int(x))
    return decimal.Decimal(float(x))


def exact_double(x) -> bool:
    """True when ``x`` is a double, or an int / Decimal that one double holds exactly."""
    if isinstance(x, (float, np.floating)) or isinstance(x, bool):
        return True
    try:
        f = float(x)
    except (OverflowError, ValueError):
        return False
    if not math.isfinite(f):
        return False
    if _is_int(x):
        return int(f) == int(x)
    return decimal.Decimal(f) == _as_decimal(x)


def not_a_double(x) -> bool:
    """True when the double nearest to ``x`` is inf or a zero although ``x`` is not 0, i.e.
    when float arithmetic cannot even represent the input."""
    if isinstance(x, (float, np.floating)):
        return False
    f = to_float_scalar(x)
    return math.isinf(f) or (f == 0 and x != 0)


def _close(a, b) -> bool:
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    return abs(a - b) <= scale * mpmath.mpf(10) ** (-MP_AGREE_DIGITS)


def mp_evaluate(func, args, kfunc=None, start_dps: int = MP_START_DPS, k_hint: float | None = None,
                max_dps: int = MP_MAX_DPS):
    """Evaluate ``func(*args)`` in mpmath at a precision the result can trust.

    ``kfunc`` is the mpmath-lambdified :func:`rounding_multiplier` of the same
    expression.  At ``dps`` digits the relative error is about ``K * 10**-dps``; the
    precision is doubled until that is below ``10**-MP_AGREE_DIGITS`` *and* a run at
    twice the precision agrees.  (Agreement alone is not enough: ``1 - 1/w*`` with
    ``w* = 1e300`` rounds to the same wrong value at 30 and at 60 digits.)
    Returns an ``mpf`` accurate to about :data:`MP_AGREE_DIGITS` digits.

    ``k_hint`` is ``K`` from the float evaluation.  When it is finite and ``K * eps < 1/2``,
    the float value of the expression (the denominator of ``K``) is right to within a factor
    2, so ``K`` is right to within about a factor 2 too: the first precision tried is then
    the one that makes ``2 K * 10**-dps`` smaller than ``10**-(MP_AGREE_DIGITS + 5)``, and the
    result is still accepted only if a run at twice the precision agrees.  Otherwise (and if
    they do not agree) the doubling search above runs.
    """
    if not all(exact_double(a) for a in args):
        k_hint = None  # a float evaluation at inputs no double holds says nothing about K here
    if k_hint is not None and math.isfinite(k_hint) and 0 <= k_hint * EPS < 0.5:
        dps = max(start_dps, math.ceil(MP_AGREE_DIGITS + 5 + math.log10(2 * max(k_hint, 1.0))))
        with mpmath.workdps(dps):
            val = _mpf(func, [mp_arg(a) for a in args])
        if mpmath.isfinite(val):
            with mpmath.workdps(2 * dps):
                val2 = _mpf(func, [mp_arg(a) for a in args])
            if _close(val, val2):
                return +val2
    dps = start_dps
    history = []
    while dps <= max_dps:
        with mpmath.workdps(dps):
            margs = [mp_arg(a) for a in args]
            val = _mpf(func, margs)
            k = _mpf(kfunc, margs) if kfunc is not None else mpmath.mpf(1)
            trusted = (mpmath.isfinite(val) and mpmath.isfinite(k)
                       and k * mpmath.mpf(10) ** (-dps) < mpmath.mpf(10) ** (-MP_AGREE_DIGITS))
        if trusted:
            with mpmath.workdps(2 * dps):
                margs = [mp_arg(a) for a in args]
                val2 = _mpf(func, margs)
            if _close(val, val2):
                return +val2
        history.append((dps, val, k))
        dps *= 2
    # K stayed infinite: a sub-expression is exactly zero at these inputs (e.g. r = 1 - 1/w*
    # at w* = 1), which no precision changes.  Accept a value stable over the last doublings --
    # but only when those precisions held every input exactly: below that, ``1 - 1/w*`` at
    # w* = 1e20000 rounds to 1 at every precision tried, and a stable value is a wrong one.
    span = max((input_span(a) for a in args), default=1)
    last = [v for d, v, _ in history if d >= span + MP_START_DPS][-3:]
    if (len(last) == 3 and all(mpmath.isfinite(v) for v in last)
        and all(_close(last[0], v) for v in last)):
        return +last[-1]
    # An exact zero reached by cancellation: at every one of the last precisions the
    # value is below the rounding level of its terms (|val| * K ~ sum |terms|).
    tail = [h for h in history[-3:] if h[0] >= span + MP_START_DPS]
    if len(tail) == 3 and all(mpmath.isfinite(v) and mpmath.isfinite(kk) and
                              (v == 0 or kk * mpmath.mpf(10) ** (-d) > mpmath.mpf(10) ** -10)
                              for d, v, kk in tail):
        return mpmath.mpf(0)
    raise PrecisionError(
        f"no value could be trusted with up to {max_dps} significant digits (an overflow, "
                         "or a cancellation deeper than that)")


_LOG_AGM = _libelefun.log_agm
_RDIV_INT = _ctx_mp_python.mpf_rdiv_int


@functools.lru_cache(maxsize=256)
def _log_agm_remembered(x: int, prec: int) -> int:
    """mpmath's fixed-point ``-log(x)`` at ``prec`` bits (the AGM method, which mpmath uses
    above a few thousand bits), remembered: a pure function of two integers, so a value
    taken from here is the one computed again, to the bit."""
    return _LOG_AGM(x, prec)


@functools.lru_cache(maxsize=1024)
def _rdiv_int_remembered(n: int, t: tuple, prec: int, rnd: str) -> tuple:
    """mpmath's ``n / t`` (an integer over an mpf, e.g. ``1/w_star``), remembered likewise: a
    form writes ``1/w*`` in several places, and a grid repeats each ``w*`` at every ``N``."""
    return _RDIV_INT(n, t, prec, rnd)


@contextlib.contextmanager
def _logs_remembered():
    """While an adaptive-precision evaluation runs, mpmath's high-precision logarithm is
    remembered.  A power ``x**y`` with a real exponent is ``exp(y log x)`` in mpmath, and a
    form evaluates the same power many times at one precision: ``(1 - 1/w*)**n`` in the value
    and in its rounding multiplier, at every point sharing ``w*`` (Lemma 6's quick check:
    660 logarithms at up to 7680 digits, 24 distinct), where each costs a tenth of a second."""
    if _libelefun.log_agm is _log_agm_remembered:  # (nested, or another thread has it on)
        yield
        return
    _libelefun.log_agm = _log_agm_remembered
    _ctx_mp_python.mpf_rdiv_int = _rdiv_int_remembered
    try:
        yield
    finally:
        _libelefun.log_agm = _LOG_AGM
        _ctx_mp_python.mpf_rdiv_int = _RDIV_INT


def _mpf(func, margs):
    try:
        v = func(*margs)
    except (ZeroDivisionError, OverflowError, ValueError):
        return mpmath.nan
    if isinstance(v, mpmath.mpc):
        return mpmath.nan if v.imag != 0 else v.real
    return mpmath.mpf(v)


def to_float(x) -> float:
    """Nearest double of an mpf (0.0 / inf outside the double range)."""
    return float(x)


def representable(x) -> bool:
    """True when ``x`` (mpf) is zero or within the normal double range."""
    if x == 0:
        return True
    ax = abs(x)
    return mpmath.mpf("2.2250738585072014e-308") <= ax <= mpmath.mpf("1.7976931348623157e308")


@memo
def _lambda_source(args: tuple, expr, module: str) -> str:
    """Source of ``sympy.lambdify(args, expr, module)`` (kept in the derivation cache)."""
    return inspect.getsource(sp.lambdify(args, expr, modules=module))


@memo
def _rounding_source(args: tuple, expr, module: str) -> str:
    """Source of the lambdified :func:`rounding_multiplier` of ``expr`` (with :class:`KDiv` and
    :class:`KMul`, resolved by :func:`lambdify`; integer sums and products exact)."""
    return inspect.getsource(sp.lambdify(args, rounding_multiplier(expr), modules=module))


#: |x| above which exp(x) is not evaluated: its decimal exponent would exceed 4e6, and
#: mpmath would need as many digits of log 2 to place it (minutes, then memory)
EXP_ARG_MAX = 10 ** 7


def _bounded_exp(x):
    """mpmath's exp, refusing arguments beyond :data:`EXP_ARG_MAX` (OverflowError: no value)."""
    if abs(x) > EXP_ARG_MAX:
        raise OverflowError("exp argument beyond the evaluated range")
    return mpmath.exp(x)


def _resolve(name: str, module: str):
    """What ``name`` means in sympy's lambdify namespace for ``module`` (``from numpy import *;
    from numpy.linalg import *`` or ``from mpmath import *``, then sympy's defaults and the
    printers' own imports), without executing the star imports (which load every lazy
    NumPy submodule, about 0.3 s)."""
    import functools

    if name in _K_FUNCS.get(module, {}):
        return _K_FUNCS[module][name]
    if module == "numpy":
        if name in np.linalg.__all__:
            return getattr(np.linalg, name)
        if name in np.__all__:
            return getattr(np, name)
        if name == "I":
            return 1j
    elif module == "mpmath":
        if name == "exp":
            return _bounded_exp
        if not name.startswith("_") and hasattr(mpmath, name):
            return getattr(mpmath, name)
    if name == "reduce":
        return functools.reduce
    if hasattr(builtins, name):
        return getattr(builtins, name)
    raise NameError(name)


def lambdify(args, expr, module: str = "numpy", rounding: bool = False):
    """``sympy.lambdify(args, expr, module)`` -- or of ``rounding_multiplier(expr)`` -- from
    the source kept in the derivation cache (printing the code is the slow part of
    lambdify).  Falls back to a fresh lambdify if the cached code uses a name that
    cannot be resolved."""
    args = tuple(args)
    src = (_rounding_source if rounding else _lambda_source)(args, expr, module)
    try:
        code = compile(src, "<lambdified>", "exec")
        fcode = next(c for c in code.co_consts if isinstance(c, type(code)))
        ns = {n: _resolve(n, module) for n in fcode.co_names}
        exec(code, ns)  # noqa: S102 -- sympy's own generated code, from our cache
        return ns["_lambdifygenerated"]
    except (SyntaxError, NameError, KeyError, StopIteration):
        target = rounding_multiplier(expr) if rounding else expr
        return sp.lambdify(args, target, modules=[_K_FUNCS.get(module, {}), module])


@dataclass
class Evaluator:
    """Compiled evaluation of one expression in a fixed argument order."""

    expr: sp.Expr
    args: tuple[sp.Symbol, ...]

    @cached_property
    def _np(self):
        return lambdify(self.args, self.expr, "numpy")

    @cached_property
    def _mp(self):
        return lambdify(self.args, self.expr, "mpmath")

    @cached_property
    def _k(self):
        return lambdify(self.args, self.expr, "numpy", rounding=True)

    def float_only(self, *arrays):
        """Plain vectorised float evaluation and its rounding multiplier (no fallback)."""
        arrs = np.broadcast_arrays(*[as_float_array(a) for a in arrays]) if arrays else ()
        with np.errstate(all="ignore"):
            val = np.asarray(self._np(*arrs), dtype=float)
            k = np.asarray(self._k(*arrs), dtype=float)
        shape = np.broadcast_shapes(*(a.shape for a in arrs)) if arrs else ()
        return np.broadcast_to(val, shape).copy(), np.broadcast_to(k, shape).copy()

    @cached_property
    def _k_mp(self):
        return lambdify(self.args, self.expr, "mpmath", rounding=True)

    def mp(self, *scalars, nudge=None, k_hint=None):
        """:meth:`mp_point`; where it finds no trusted value and an integer parameter is given, the
        same with the integers substituted into the expression first: sympy then cancels terms
        that vanish identically at those integers (Lemma 6's 1 - r^n - n (1-r) r^(n-1) at n = 1),
        whose rounding residue no precision removes when it is multiplied by an extreme input."""
        try:
            return self.mp_point(*scalars, nudge=nudge, k_hint=k_hint)
        except PrecisionError:
            sub = {a: int(x) for a, x in zip(self.args, scalars)
                   if a.is_integer and (_is_int(x) or float(x).is_integer()) and abs(int(x))
                   <= SUBST_MAX}
            e2 = self.expr.subs(sub) if sub else self.expr
            if e2 == self.expr:
                raise
            keep = [i for i, a in enumerate(self.args) if a not in sub]
            ev2 = Evaluator(e2, tuple(self.args[i] for i in keep))
            return ev2.mp_point(*[scalars[i] for i in keep],
                                nudge=[nudge[i] for i in keep] if nudge else None)

    def mp_point(self, *scalars, nudge=None, k_hint=None, max_dps: int = MP_MAX_DPS,
                 scale: bool = True):
        """Adaptive-precision mpmath value at one point.

        ``nudge`` (one of -1, 0, +1 per argument) marks arguments sitting on a boundary
        of their domain.  Where the expression is 0/0 there (e.g. ``C(r, N)`` at
        ``w* = 1``, a removable singularity of the closed form), the value is the
        one-sided limit, taken by moving those arguments 1e-40 and 1e-50 (relative)
        into the domain and requiring both to agree to 20 digits.

        Where an input is extreme (``|log10 x| >`` :data:`EXTREME_EXP`, e.g. ``w* = 1e20000``)
        and no precision up to :data:`MP_MAX_DPS` resolves the cancellation it causes
        (``1 - r^N`` with ``r = 1 - 1/w*``), the value is found by scaling, see :meth:`_scaled`.
        Raises :class:`PrecisionError` when none of these gives a trusted value.
        """
        with _logs_remembered():
            return self._mp_point(scalars, nudge, k_hint, max_dps, scale)

    def _mp_point(self, scalars, nudge, k_hint, max_dps, scale):
        span = max((input_span(x) for x in scalars), default=1)
        extreme = any(abs(decimal_exponent(x)) > EXTREME_EXP for x in scalars if not _is_int(x))
        max_dps = EXTREME_DPS if extreme and scale else max_dps
        err = None
        try:
            val = mp_evaluate(self._mp, scalars, kfunc=self._k_mp, k_hint=k_hint, max_dps=max_dps)
            if mpmath.isfinite(val):
                return val
        except PrecisionError as e:
            err = e
        if extreme and scale:
            try:
                return self._scaled(scalars, nudge)
            except PrecisionError as e:
                # not a power law of the extreme input here (e.g. w* = 1 beside c_cov = 1e-308,
                # a 0/0 at a boundary): the one-sided limits below may still find the value
                err = e
        nudgeable = 3 * span + 60 <= MP_MAX_DPS  # else the nudged values could not be resolved
        if nudge and any(nudge) and nudgeable:
            with mpmath.workdps(max(120, 3 * span + 60)):
                lims = []
                for h in (mpmath.mpf(10) ** -40, mpmath.mpf(10) ** -50):
                    pt = [mp_arg(x) + d * h * max(1, abs(mp_arg(x)))
                          for x, d in zip(scalars, nudge)]
                    lims.append(_mpf(self._mp, pt))
                if all(mpmath.isfinite(v) for v in lims):
                    if _close(lims[0], lims[1]):
                        return +lims[1]
                    if (abs(lims[1]) < mpmath.mpf(10) ** -25 and abs(lims[1]) <= abs(lims[0])
                        * mpmath.mpf(10) ** -5):
                        return mpmath.mpf(0)  # the limit is 0: the value shrinks with the nudge
        # a removable singularity inside the domain (0/0 where 1 - k/2 = 0 divides): the limit,
        # taken from both sides (every real argument moved up, then down) and required to agree
        real = [not _is_int(x) for x in scalars]
        if any(real) and nudgeable:
            with mpmath.workdps(max(120, 3 * span + 60)):
                sides = []
                for sgn in (1, -1):
                    lims = []
                    for h in (mpmath.mpf(10) ** -40, mpmath.mpf(10) ** -50):
                        pt = [mp_arg(x) + sgn * h * max(1, abs(mp_arg(x))) if rl else mp_arg(x)
                              for x, rl in zip(scalars, real)]
                        lims.append(_mpf(self._mp, pt))
                    sides.append(lims)
                vals = [v for lims in sides for v in lims]
                if all(mpmath.isfinite(v) for v in vals) and all(_close(vals[0], v) for v in vals):
                    return +vals[-1]
        if err is not None:
            raise err
        raise PrecisionError("no finite value or one-sided limit at this point")

    def _scaled(self, scalars, nudge=None):
        """The value at a point with extreme inputs, from the same form at scaled inputs.

        Every extreme input is moved toward 1 by the same factor 10^s (``w* = 1e20000`` to
        ``1e60``, ``1e90``, ``1e120``; an input below 1e-300 up likewise), by decimal scaling,
        keeping :data:`SCALED_DIGITS` significant digits.  Far from 1 each form is a power law in
        that factor to 35 digits and more (the corrections are powers of 1/w*, of k, ... times at
        most (k N)^j <= 1e21^j): ``log10 |f|`` is linear in ``s``.
        The slope is read from the three scaled points; it must be the same rational number
        (denominator <= 12: 0 for a limit such as N, -1 for a 1/w* term, 2 for L^2) on both
        pairs to 12 digits, the three values must have one sign, and the value at the point is
        the nearest scaled one times 10^(-slope s).  Otherwise :class:`PrecisionError`.
        """
        from fractions import Fraction

        exps = [None if _is_int(x) else decimal_exponent(x) for x in scalars]
        ext = [i for i, e in enumerate(exps) if e is not None and abs(e) > EXTREME_EXP]
        m = min(abs(cast(int, exps[i])) for i in ext)
        # the scaled inputs stay 60 decades beyond every other input, so that what dominates at the
        # point dominates at the scaled points too
        others = [abs(decimal_exponent(x)) for i, x in enumerate(scalars) if i not in ext]
        target = max([SCALED_EXP] + [e + SCALED_EXP for e in others])
        if target >= m:
            raise PrecisionError(
                "no value could be trusted at this point (inputs of very different magnitudes)")
        shifts = [m - target - SCALED_STEP * j for j in (0, 1, 2)]
        vals = []
        for sh in shifts:
            pt = list(scalars)
            for i in ext:
                d = _as_decimal(scalars[i])
                # a float's exact decimal expansion has up to ~750 digits; SCALED_DIGITS of them
                # move the value by a relative 1e-50 at most, far below the digits printed, and
                # keep the scaled point's own span (and so the precision it needs) small
                ctx = decimal.Context(prec=min(len(d.as_tuple().digits) + 2, SCALED_DIGITS),
                                      Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
                pt[i] = ctx.scaleb(d, -sh if cast(int, exps[i]) > 0 else sh)
            try:
                vals.append(self.mp_point(*pt, nudge=nudge, max_dps=SCALED_MAX_DPS, scale=False))
            except PrecisionError:
                raise PrecisionError(
                    "no value could be trusted at this extreme input (not even with it scaled "
                    "toward 1)") from None
        if all(v == 0 for v in vals):
            return mpmath.mpf(0)
        signs = {mpmath.sign(v) for v in vals}
        if len(signs) != 1 or 0 in signs:
            raise PrecisionError("the value at this extreme input could not be found by scaling "
                                 "(it is not a power law of the extreme input)")
        with mpmath.workdps(60):
            logs = [mpmath.log10(abs(v)) for v in vals]
            b01 = (logs[0] - logs[1]) / (shifts[0] - shifts[1])
            b12 = (logs[1] - logs[2]) / (shifts[1] - shifts[2])
            bq = Fraction(float(b01)).limit_denominator(12)
            q = mpmath.mpf(bq.numerator) / bq.denominator
            if abs(b01 - q) > 1e-12 or abs(b12 - q) > 1e-12:
                raise PrecisionError(
                    "the value at this extreme input could not be found by scaling (it is not a "
                    "power law of the extreme input)")
        with mpmath.workdps(MP_AGREE_DIGITS + 10):
            return vals[2] * mpmath.power(10, -q * shifts[2])

    def __call__(self, *arrays, exact: bool = False, boundaries=None):
        """Evaluate on broadcast arrays.

        Returns a float array; with ``exact=True`` an object array whose entries are
        floats, or ``mpf`` where the value lies outside the double range.
        ``boundaries`` gives ``(lower, upper)`` per argument (None for unbounded); see
        :meth:`mp` for what happens on a boundary.
        """
        given = np.broadcast_arrays(*[np.asarray(a) for a in arrays]) if arrays else ()
        arrs = [as_float_array(a) for a in given]
        val, k = self.float_only(*arrs)
        tiny = np.finfo(float).tiny  # subnormal results have lost precision
        bad = ~np.isfinite(val) | (np.abs(val) < tiny) | ~np.isfinite(k) | (k * EPS > REL_TOL)
        for g in given:  # inputs that no double represents (1e400, 1e-400): mpmath only
            if g.dtype == object:
                bad = bad | np.vectorize(not_a_double, otypes=[bool])(g).reshape(g.shape)
        out = val.astype(object) if exact else val
        for idx in zip(*np.nonzero(bad)) if val.ndim else ([()] if bad else []):
            point = [a[idx] for a in given]
            nudge = None
            if boundaries is not None:
                nudge = [(1 if lo is not None and x == lo else -1 if hi is not None and x == hi
                          else 0)
                         for x, (lo, hi) in zip(point, boundaries)]
            m = self.mp(*point, nudge=nudge, k_hint=float(k[idx]) if np.ndim(k) else float(k))
            out[idx] = (float(m) if representable(m) else m) if exact else float(m)
        return out
