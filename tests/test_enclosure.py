"""bounds.enclosure: intervals that provably contain a value, and relations decided on them.

Every property is checked exactly (Fractions, or mpmath at 300 digits as the reference), at
ordinary magnitudes and far outside the double range.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from bounds.enclosure import (
    Dyadic,
    Enclosure,
    UnsupportedExpression,
    enclose_expr,
    log10_ratio,
    ratio_float,
    relation_verdict,
)

DERANDOMIZED = settings(derandomize=True, database=None, max_examples=300, deadline=None)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


def _exact(e):
    """An endpoint as a Fraction (dyadic ends converted exactly)."""
    if isinstance(e, Dyadic):
        return Fraction(e.man) * Fraction(2) ** e.exp
    return Fraction(e)


@DERANDOMIZED
@given(finite, st.floats(0, 1e300, allow_nan=False))
def test_f64_contains_the_value_and_its_error(x, err):
    e = Enclosure.f64(x, err)
    assert math.isinf(e.lo) or _exact(e.lo) <= Fraction(x) - Fraction(err)
    assert math.isinf(e.hi) or _exact(e.hi) >= Fraction(x) + Fraction(err)


@DERANDOMIZED
@given(finite)
def test_f64_width_is_relative_with_no_absolute_floor(x):
    e = Enclosure.f64(x)
    assert e.lo <= x <= e.hi
    if x != 0 and 1e-300 < abs(x) < 1e300:
        # a few units in the last place of x, whatever its magnitude
        assert float(_exact(e.hi) - _exact(e.lo)) <= 20 * math.ulp(x)


def test_tiny_values_are_compared_at_their_own_scale():
    a, b = Enclosure.f64(1e-200), Enclosure.f64(1e-200 * (1 + 1e-6))
    assert relation_verdict(a, b, "<=") == "holds"
    assert relation_verdict(b, a, "<=") == "violated"
    assert relation_verdict(a, b, ">=") == "violated"
    assert relation_verdict(b, a, ">") == "holds"


def test_overlap_is_undecided_never_holds():
    a = Enclosure.f64(1.0, 1e-9)
    b = Enclosure.f64(1.0 + 1e-12)
    assert relation_verdict(a, b, "<=") is None
    assert relation_verdict(a, b, "=") is None
    # a float noise value against an exact zero: undecided with its error bound, not holds
    noise = Enclosure.f64(8e-17, 1e-15)
    assert relation_verdict(noise, Enclosure.point(0), "<=") is None
    assert relation_verdict(noise, Enclosure.point(0), "=") is None


def test_equality_holds_only_between_equal_exact_numbers():
    third = Enclosure.point(Fraction(1, 3))
    assert relation_verdict(third, Enclosure.point(Fraction(2, 6)), "=") == "holds"
    assert relation_verdict(third, Enclosure.f64(1 / 3), "=") is None  # 1/3 is no double
    assert relation_verdict(third, Enclosure.point(Fraction(1, 4)), "=") == "violated"
    assert relation_verdict(Enclosure.point(1), Enclosure.point(1), "<") == "violated"
    assert relation_verdict(Enclosure.point(1), Enclosure.point(1), "<=") == "holds"


def test_dyadic_ends_compare_exactly_at_any_exponent():
    big = -40_000_000_000_000  # 2^big has no Fraction that fits in memory
    x, y = Dyadic(3, big), Dyadic(5, big)
    assert relation_verdict(Enclosure(x, x), Enclosure(y, y), "<") == "holds"
    assert relation_verdict(Enclosure(y, y), Enclosure(x, x), "<=") == "violated"
    z = Dyadic(3 * 2 ** 40, big - 40)  # the same number as x, written differently
    assert Enclosure(x, x) == Enclosure(z, z)
    assert relation_verdict(Enclosure(x, x), Enclosure.f64(1e-300), "<") == "holds"
    assert relation_verdict(Enclosure.point(0), Enclosure(x, x), "<") == "holds"
    assert relation_verdict(Enclosure(-y, -y) if False else Enclosure(Dyadic(-5, big),
                                                                       Dyadic(-5, big)),
                            Enclosure.point(0), "<") == "holds"


def test_json_rounds_outward_and_encode_is_exact():
    third = Enclosure.point(Fraction(1, 3))
    lo, hi = third.as_json()
    assert Fraction(lo) <= Fraction(1, 3) <= Fraction(hi) and lo < hi
    assert Enclosure.decode(third.encode()) == third
    tiny = Enclosure(Dyadic(1, -5000), Dyadic(3, -5000))
    lo, hi = tiny.as_json()
    assert isinstance(lo, str) and isinstance(hi, str)  # beyond the double range: decimals
    assert mpmath.mpf(lo) <= mpmath.mpf(2) ** -5000 and mpmath.mpf(hi) >= 3 * mpmath.mpf(2) ** -5000
    assert Enclosure.decode(tiny.encode()) == tiny
    assert Enclosure(-math.inf, 0.0).as_json() == ["-inf", 0.0]


@DERANDOMIZED
@given(st.floats(-1e300, 1e300), st.floats(1e-6, 1e6))
def test_scaling_is_rounded_outward(x, c):
    e = Enclosure.f64(x).scaled(c)
    exact = Fraction(x) * Fraction(c)
    assert _exact(e.lo) <= exact <= _exact(e.hi)
    d = Enclosure.f64(x).scaled(c, divide=True)
    exact = Fraction(x) / Fraction(c)
    assert _exact(d.lo) <= exact <= _exact(d.hi)


def test_the_forms_a_user_may_return():
    from flint import arb, ctx

    assert Enclosure.of(0.5).how == "float64"
    v = Enclosure.of((0.5, 1e-3))
    assert v.lo <= 0.499 and v.hi >= 0.501
    assert Enclosure.of(Fraction(2, 7)).is_point
    assert Enclosure.of(3).is_point
    m = Enclosure.of(mpmath.mpf("1e-400"))
    assert m.sign() == 1 and abs(m.log10() + 400) < 1e-9
    i = Enclosure.of(mpmath.iv.mpf(["1e-400", "2e-400"]))
    assert i.contains(Fraction(15, 10 ** 401)) and abs(i.log10() + 399.82) < 0.01
    old = ctx.prec
    ctx.prec = 200
    try:
        a = Enclosure.of(arb(1) / 7)
    finally:
        ctx.prec = old
    assert a.contains(Fraction(1, 7)) and a.rel_width() < 1e-55
    with pytest.raises(TypeError):
        Enclosure.of("0.3")
    with pytest.raises(TypeError):
        Enclosure.of((1.0, 2.0, 3.0))


def test_log10_ratio_at_any_magnitude():
    a = Enclosure(Dyadic(1, -4000), Dyadic(1, -4000))
    b = Enclosure.point(1)
    assert abs(log10_ratio(a, b) + 4000 * math.log10(2)) < 1e-9
    assert ratio_float(a, b) == 0.0  # below the double range as a double ...
    assert log10_ratio(a, b) is not None  # ... but its logarithm is right
    assert log10_ratio(Enclosure.point(0), b) is None


def _mp(expr, values, dps=700):
    """The reference: mpmath at 700 digits."""
    with mpmath.workdps(dps):
        f = sp.lambdify(sorted(expr.free_symbols, key=lambda s: s.name), expr, "mpmath")
        return f(*[mpmath.mpf(values[s.name]) if not isinstance(values[s.name], str)
                   else mpmath.mpf(values[s.name])
                   for s in sorted(expr.free_symbols, key=lambda s: s.name)])


@pytest.mark.parametrize("text, values", [
    ("N*(1 - 1/w)**k", {"N": 4, "w": "1.000000000001", "k": 10 ** 12}),
    ("(1 - (N - 1)/(2*w + N - 2))**t", {"N": 16, "w": 1.0, "t": 12}),
    ("exp(-t**2/2)/2", {"t": 35.0}),
    ("Min(1, 2*L*r)**2 + log(1 + x)", {"L": 3.0, "r": 0.25, "x": 1e-300}),
    ("Max(a, b) - Min(a, b)", {"a": 0.1, "b": 0.3}),
    ("sqrt(x) * erfc(x)", {"x": 30.0}),
])
def test_ball_evaluation_contains_the_true_value(text, values):
    expr = sp.sympify(text, locals={k: sp.Symbol(k) for k in values})
    ref = _mp(expr, values)
    man, exp = ref.man_exp  # the reference as an exact binary number
    for bits in (64, 256, 1024):
        e = enclose_expr(expr, values, bits)
        ref_end = Enclosure(Dyadic(man, exp), Dyadic(man, exp))
        assert relation_verdict(Enclosure(e.lo, e.lo), ref_end, "<=") == "holds", (bits, e)
        assert relation_verdict(ref_end, Enclosure(e.hi, e.hi), "<=") == "holds", (bits, e)
    assert enclose_expr(expr, values, 1024).rel_width() < 1e-200


def test_piecewise_picks_the_certain_branch_and_unions_the_undecided():
    x = sp.Symbol("x")
    pw = sp.Piecewise((x, x < 1), (2 * x, True))
    assert enclose_expr(pw, {"x": 0.5}, 64).contains(Fraction(1, 2))
    assert enclose_expr(pw, {"x": 3.0}, 64).contains(6)
    with pytest.raises(UnsupportedExpression):
        enclose_expr(sp.Function("mystery")(x), {"x": 1.0}, 64)


def test_a_ball_keeps_its_width_outside_its_precision_context():
    from flint import arb

    from bounds.enclosure import precision

    with precision(1024):
        third = arb(1) / 3
    e = Enclosure.from_arb(third, 1024)  # read at the default 53 bits of the context
    assert e.contains(Fraction(1, 3)) and e.rel_width() < 1e-300 and e.how == "arb-1024"


def test_settled_by_names_the_deciding_precision():
    from verify.decide import decide
    from verify.model import CheckResult

    exact = decide(CheckResult("q", "f", {}, Fraction(1, 3), Fraction(1, 2), "exact"), 0)
    assert (exact.verdict, exact.settled_by) == ("holds", "exact")
    first = decide(CheckResult("q", "f", {}, 0.25, 0.5, "exact"), 0)
    assert (first.verdict, first.settled_by) == ("holds", "float64")
    ball = decide(CheckResult("q", "f", {}, 0.25, 0.5, "exact",
                              lhs=Enclosure(0.25, 0.25000001, "arb-256")), 0)
    assert ball.settled_by == "arb-256"
    # undecided at float64, decided by the refinement at 256 bits
    tight = Fraction(1, 3) + Fraction(1, 10 ** 30)

    def refine(bits):
        return Enclosure.point(tight) if bits >= 256 else Enclosure.f64(float(tight), 1e-20)

    r = decide(CheckResult("q", "f", {}, float(tight), Fraction(1, 3), "exact", error=1e-20,
                           refine=refine), 0)
    assert (r.verdict, r.settled_by) == ("violated", "exact")
    stuck = decide(CheckResult("q", "f", {}, float(tight), Fraction(1, 3), "exact", error=1e-20),
                   0)
    assert stuck.verdict == "inconclusive" and "undecided at float64" in stuck.note


def test_rational_formulas_are_evaluated_exactly():
    from bounds.enclosure import enclose_exact

    k = sp.Symbol("k")
    e = enclose_expr(1 / (1 - k / 4), {"k": 0.05}, 64)  # 1/(1 - k/4) at the double 0.05
    assert e.how == "exact" and e.is_point
    assert e.lo == 1 / (1 - Fraction(0.05) / 4)
    # so an identity against it can hold
    assert relation_verdict(Enclosure.point(1 / (1 - Fraction(0.05) / 4)), e, "=") == "holds"
    # not rational, or too large: balls
    assert enclose_exact(sp.exp(-k), {"k": 3.0}) is None
    assert enclose_exact((1 - 1 / k) ** 10 ** 7, {"k": 3.0}) is None  # 2e7 bits: too large
    big = enclose_exact((1 - 1 / k) ** 10 ** 5, {"k": 3.0})  # 2e5 bits: exact
    assert big.lo == Fraction(2, 3) ** 10 ** 5 and "bits>" in repr(big)
    assert enclose_expr(sp.sqrt(k), {"k": 2.0}, 64).how == "arb-64"
    assert enclose_exact(sp.Min(k, 1) + sp.Abs(k - 3), {"k": "0.1"}).lo == Fraction(3)


def test_a_refined_check_shows_its_refined_value():
    from verify.decide import decide
    from verify.model import CheckResult

    true = Fraction(17, 10 ** 42)
    c = decide(CheckResult("q", "f", {}, 8.8e-16, Fraction(26, 10 ** 42), "exact", error=1e-15,
                           refine=lambda bits: Enclosure.point(true)), 0)
    assert c.verdict == "holds" and c.settled_by == "exact"
    assert c.empirical == float(true) and c.lhs == Enclosure.point(true)
    assert abs(c.log10_ratio - math.log10(17e-42 / 2.6e-41)) < 1e-9


def test_bounds_take_one_sided_limits_at_their_domain_ends():
    import bounds

    # 0^0 at w* = 1 (r = 0) with N = 1: the float evaluator's one-sided limit, now enclosed
    e = bounds.enclose("theorem3", "second_moment", "explicit", N=1, w_star=1, t=1, L=0.5,
                       mu_norm=0, c_cov=0, D=1)
    assert e.finite and e.contains(Fraction(1, 4))
