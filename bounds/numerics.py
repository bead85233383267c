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

import decimal
import math
from dataclasses import dataclass
from functools import cached_property

import builtins
import inspect

import mpmath
import numpy as np
import sympy as sp

from .derive import memo

EPS = float(np.finfo(float).eps)
#: relative accuracy demanded from the float path before it is trusted
REL_TOL = 1e-11
#: mpmath precision search: start, growth factor, ceiling (decimal digits)
MP_START_DPS = 30
MP_MAX_DPS = 8192
#: two successive mpmath evaluations must agree to this many significant digits
MP_AGREE_DIGITS = 20


class PrecisionError(ArithmeticError):
    """mpmath could not reach a stable value below :data:`MP_MAX_DPS` digits."""


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


def _K(e: sp.Expr) -> sp.Expr:
    if e.is_Integer or e is sp.S.Zero:
        return sp.S.Zero
    if e.is_Number or e.is_NumberSymbol:
        return sp.S.One
    if e.is_Symbol:
        return sp.S.Zero if e.is_integer else sp.S.One
    if isinstance(e, sp.Add):
        n = len(e.args)
        num = sp.Add(*[sp.Abs(a) * (_K(a) + (n - 1)) for a in e.args])
        return num / sp.Abs(e)
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
        return sp.Abs(x) * kb + sp.Abs(x * sp.log(b)) * _K(x) + 1
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
    """``float(x)`` that saturates instead of raising: ``10**400`` -> inf, ``Decimal('1e-400')`` -> 0."""
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


def mp_evaluate(func, args, kfunc=None, start_dps: int = MP_START_DPS, k_hint: float | None = None):
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
    while dps <= MP_MAX_DPS:
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
    # at w* = 1), which no precision changes.  Accept a value stable over the last doublings.
    last = [v for _, v, _ in history[-4:]]
    if len(last) == 4 and all(mpmath.isfinite(v) for v in last) and all(_close(last[0], v) for v in last):
        return +last[-1]
    # An exact zero reached by cancellation: at every one of the last precisions the
    # value is below the rounding level of its terms (|val| * K ~ sum |terms|).
    tail = history[-3:]
    if len(tail) == 3 and all(mpmath.isfinite(v) and mpmath.isfinite(kk) and
                              (v == 0 or kk * mpmath.mpf(10) ** (-d) > mpmath.mpf(10) ** -10)
                              for d, v, kk in tail):
        return mpmath.mpf(0)
    raise PrecisionError(f"no trusted value below {MP_MAX_DPS} digits (last {history[-1][1] if history else None})")


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
    """Source of the lambdified :func:`rounding_multiplier` of ``expr``."""
    return inspect.getsource(sp.lambdify(args, rounding_multiplier(expr), modules=module))


def _resolve(name: str, module: str):
    """What ``name`` means in sympy's lambdify namespace for ``module`` (``from numpy import *;
    from numpy.linalg import *`` or ``from mpmath import *``, then sympy's defaults and the
    printers' own imports), without executing the star imports (which load every lazy
    NumPy submodule, about 0.3 s)."""
    import functools

    if module == "numpy":
        if name in np.linalg.__all__:
            return getattr(np.linalg, name)
        if name in np.__all__:
            return getattr(np, name)
        if name == "I":
            return 1j
    elif module == "mpmath":
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
        return sp.lambdify(args, target, modules=module)


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
        """Adaptive-precision mpmath value at one point.

        ``nudge`` (one of -1, 0, +1 per argument) marks arguments sitting on a boundary
        of their domain.  Where the expression is 0/0 there (e.g. ``C(r, N)`` at
        ``w* = 1``, a removable singularity of the closed form), the value is the
        one-sided limit, taken by moving those arguments 1e-40 and 1e-50 (relative)
        into the domain and requiring both to agree to 20 digits.
        """
        try:
            val = mp_evaluate(self._mp, scalars, kfunc=self._k_mp, k_hint=k_hint)
            if mpmath.isfinite(val):
                return val
        except PrecisionError:
            if not nudge or not any(nudge):
                raise
        if not nudge or not any(nudge):
            return val
        with mpmath.workdps(120):
            lims = []
            for h in (mpmath.mpf(10) ** -40, mpmath.mpf(10) ** -50):
                pt = [mp_arg(x) + d * h * max(1, abs(mp_arg(x))) for x, d in zip(scalars, nudge)]
                lims.append(_mpf(self._mp, pt))
            if all(mpmath.isfinite(v) for v in lims):
                if _close(lims[0], lims[1]):
                    return +lims[1]
                if abs(lims[1]) < mpmath.mpf(10) ** -25 and abs(lims[1]) <= abs(lims[0]) * mpmath.mpf(10) ** -5:
                    return mpmath.mpf(0)  # the limit is 0: the value shrinks with the nudge
        raise PrecisionError(f"no finite value or one-sided limit at {scalars}")

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
                nudge = [(1 if lo is not None and x == lo else -1 if hi is not None and x == hi else 0)
                         for x, (lo, hi) in zip(point, boundaries)]
            m = self.mp(*point, nudge=nudge, k_hint=float(k[idx]) if np.ndim(k) else float(k))
            out[idx] = (float(m) if representable(m) else m) if exact else float(m)
        return out
