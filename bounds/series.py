"""Series expansions derived with sympy (never typed in).

``sympy.series`` cannot expand expressions such as ``(1 - 1/w)**N`` with a symbolic
exponent ``N`` at ``w -> oo`` (it cannot decide the sign of ``2 - N``).  For those we
substitute ``w = 1/x``, bring the expression to ``num / den`` and, when ``den`` is a
monomial ``c x**p``, take Taylor coefficients of ``num`` by differentiation, which
sympy does for symbolic exponents.
"""

from __future__ import annotations

import sympy as sp

from .derive import memo


def _taylor_over_monomial(num: sp.Expr, den: sp.Expr, x: sp.Symbol, order: int):
    den = sp.factor(den)
    c, p = sp.S.One, 0
    for f in sp.Mul.make_args(den):
        if f == x:
            p += 1
        elif isinstance(f, sp.Pow) and f.base == x and f.exp.is_Integer:
            p += int(f.exp)
        elif x not in f.free_symbols:
            c *= f
        else:
            raise ValueError(f"denominator {den} is not a monomial in {x}")
    terms = []
    for j in range(order + p):
        cj = sp.diff(num, x, j).subs(x, 0)
        if cj.has(sp.nan, sp.zoo, sp.oo):
            cj = sp.limit(sp.diff(num, x, j), x, 0)
        cj = sp.simplify(cj / sp.factorial(j) / c)
        terms.append(cj * x ** (j - p))
    return sp.Add(*terms)


@memo
def expand(expr: sp.Expr, var: sp.Symbol, point, order: int) -> sp.Expr:
    """Series of ``expr`` in ``var`` at ``point`` (0 or oo), without the O-term.

    ``order`` counts powers: the result keeps powers of ``1/var`` (at oo) or ``var``
    (at 0) strictly below ``order``.
    """
    x = sp.Dummy("x", positive=True)
    at_inf = point in (sp.oo, float("inf"))
    e = expr.subs(var, 1 / x) if at_inf else expr.subs(var, x)
    try:
        ser = sp.series(e, x, 0, order).removeO()
    except (NotImplementedError, TypeError, ValueError):
        num, den = sp.fraction(sp.together(e))
        ser = _taylor_over_monomial(num, den, x, order)
    ser = sp.expand(ser)
    back = ser.subs(x, 1 / var) if at_inf else ser.subs(x, var)
    return sp.expand(back)
