"""Hypothesis property tests of the bound library (derandomized, see conftest.py).

* the vectorised NumPy evaluation agrees with adaptive-precision mpmath;
* the float path's own rounding-error estimate is honest;
* explicit = stated + dropped O-terms, and explicit >= stated where those are >= 0;
* every series expansion matches the limit of its exact expression;
* every claim evaluates to finite numbers on random points of its domain.
"""


import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bounds
from bounds.domain import points
from bounds.numerics import EPS, REL_TOL

ALL = bounds.ids()
FORMS = [(c, q.name, f.name) for c in ALL for q in bounds.get(c).quantities for f in q.forms]


def rel(a, b):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    if a == b:
        return 0.0
    return float(abs(a - b) / max(abs(a), abs(b)))


@pytest.mark.parametrize("claim_id", ALL)
@settings(max_examples=25)
@given(data=st.data())
def test_every_claim_evaluates_finite_on_its_domain(claim_id, data):
    c = bounds.get(claim_id)
    pt = data.draw(points(c))
    res = c.evaluate(exact=True, **pt)
    for q, forms in res.items():
        for f, v in forms.items():
            assert v is not None, f"{q}.{f} not evaluated at {pt}"
            x = v[()]
            assert mpmath.isfinite(x), f"{q}.{f} = {x} at {pt}"


@pytest.mark.parametrize("claim_id,quantity,form", FORMS)
@settings(max_examples=15)
@given(data=st.data())
def test_numpy_and_mpmath_agree(claim_id, quantity, form, data):
    c = bounds.get(claim_id)
    ev, names = c.evaluator(quantity, form)
    pt = data.draw(points(c, names))
    args = [pt[n] for n in names]
    exact = c.mp_value(quantity, form, **pt)
    guarded = c.evaluate_form(quantity, form, exact=True, **pt)[()]
    assert rel(guarded, exact) <= 4 * REL_TOL, (pt, guarded, exact)
    # where the float path trusts itself (K eps <= REL_TOL) it must be within that bound
    val, k = ev.float_only(*args)
    if (np.isfinite(val) and np.isfinite(k) and k * EPS <= REL_TOL and abs(val)
        >= np.finfo(float).tiny):
        assert rel(float(val), exact) <= max(4 * float(k) * EPS,
                                             1e-15), (pt, float(val), exact, float(k))


@pytest.mark.parametrize("claim_id", ALL)
@settings(max_examples=10)
@given(data=st.data())
def test_vectorised_equals_pointwise(claim_id, data):
    c = bounds.get(claim_id)
    pts = [data.draw(points(c)) for _ in range(3)]
    batch = c.evaluate(**{k: np.array([p[k] for p in pts]) for k in pts[0]})
    for i, p in enumerate(pts):
        single = c.evaluate(**p)
        for q, forms in single.items():
            for f, v in forms.items():
                assert float(batch[q][f][i]) == pytest.approx(float(v), rel=1e-12, abs=0)


STATED_WITH_DROPPED = [(c, q.name) for c in ALL for q in bounds.get(c).quantities
                       if any(f.dropped for f in q.forms) and "explicit" in q.form_names]


@pytest.mark.parametrize("claim_id,quantity", STATED_WITH_DROPPED)
@settings(max_examples=40)
@given(data=st.data())
def test_explicit_dominates_stated_where_dropped_terms_nonnegative(claim_id, quantity, data):

    c = bounds.get(claim_id)
    q = c.quantity(quantity)
    stated = q.form("stated")
    pt = data.draw(points(c))
    ex = float(c.evaluate_form(quantity, "explicit", **pt))
    st_ = float(c.evaluate_form(quantity, "stated", **pt))
    from bounds.numerics import Evaluator

    dropped = []
    for d in stated.dropped:
        expr = c.resolve(d)
        names = tuple(p.name for p in c.params if p.symbol in expr.free_symbols)
        ev = Evaluator(expr, tuple(c.param(n).symbol for n in names))
        dropped.append(float(ev(*[pt[n] for n in names], boundaries=c._boundaries(names))))
    # bookkeeping: explicit = stated + sum of the dropped O-terms
    assert ex == pytest.approx(st_ + sum(dropped), rel=1e-8, abs=1e-9 * max(1.0, abs(ex)))
    if all(d >= 0 for d in dropped):
        assert ex >= st_ * (1 - 1e-12)


def test_theorem3_laurent_remainder_is_nonpositive():
    """A finding: the O(1/w*) that Theorem 3 drops is <= 0, so the stated variance holds."""
    c = bounds.get("theorem3")
    N = np.arange(1, 200)[:, None]
    w = np.logspace(0, 12, 60)[None, :]
    ex = c.evaluate_form("variance", "explicit", N=N, w_star=w, L=1.0)
    st_ = c.evaluate_form("variance", "stated", N=N, L=1.0)
    assert np.all(ex <= st_ * (1 + 1e-12))


EXPANSIONS = [(c, q.name, i) for c in ALL for q in bounds.get(c).quantities
              for i, _ in enumerate(q.expansions)]


@pytest.mark.parametrize("claim_id,quantity,index", EXPANSIONS)
@settings(max_examples=15)
@given(data=st.data())
def test_series_matches_limit_of_exact_expression(claim_id, quantity, index, data):
    """|exact - series| = O(var^-order) at oo (O(var^order) at 0): the scaled remainder
    settles as the variable moves 100x further towards the limit point."""
    import sympy as sp

    c = bounds.get(claim_id)
    q = c.quantity(quantity)
    e = q.expansions[index]
    exact = c.resolve(q.form(e.form).expr)
    series = c.resolve(e.series)
    from bounds.numerics import Evaluator

    others = sorted((exact.free_symbols | series.free_symbols) - {e.variable}, key=lambda s: s.name)
    pt = data.draw(points(c, tuple(s.name for s in others)))
    # the remainder, evaluated to 20 significant digits whatever the cancellation
    rem = Evaluator(exact - series, tuple([e.variable] + others))
    args = [pt[s.name] for s in others]
    at_inf = e.point == sp.oo
    xs = [1e20, 1e22, 1e40] if at_inf else [1e-20, 1e-22, 1e-40]
    r = [abs(rem.mp(x, *args)) for x in xs]
    scaled = [ri * (mpmath.mpf(x) ** e.remainder_order if at_inf
                    else mpmath.mpf(x) ** -e.remainder_order)
              for ri, x in zip(r[:2], xs[:2])]
    # the remainder vanishes at the limit point ...
    assert r[2] < mpmath.mpf(10) ** -30
    # ... at the stated order: the scaled remainder converges (to the next coefficient)
    assert abs(scaled[0] - scaled[1]) <= mpmath.mpf("0.1") * abs(scaled[1]) + mpmath.mpf(10) ** -30


def test_theorem3_series_is_half_plus_three_halves_over_N():
    import sympy as sp

    c = bounds.get("theorem3")
    e = c.quantity("variance").expansions[0]
    Ls, Ns, ws, cc = (bounds.get("theorem3").param(n).symbol for n in ("L", "N", "w_star", "c_cov"))
    lead = sp.limit(e.series - cc, ws, sp.oo) / Ls ** 2
    assert sp.simplify(lead - (sp.Rational(1, 2) + sp.Rational(3, 2) / Ns)) == 0
