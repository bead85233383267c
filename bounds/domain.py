"""Hypothesis strategies over a claim's parameter domain.

Used by the property tests (every claim evaluates on random points of its domain) and
by ``python -m verify search``.  Positive parameters flagged ``log_scale`` are drawn
log-uniformly so that the regimes w* ~ 1 and w* >> N are both visited.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, strategies as st

from .core import Claim, Param, ParamError


def param_strategy(p: Param) -> st.SearchStrategy[float]:
    lo = p.lower if p.lower is not None else -p.sample_max
    hi = p.sample_max if p.upper is None else min(p.upper, p.sample_max)
    if p.integer:
        lo_i = math.ceil(lo) + (1 if p.lower_strict and float(lo).is_integer() else 0)
        hi_i = math.floor(hi) - (1 if p.upper is not None and p.upper_strict and hi == p.upper
                                 and float(hi).is_integer() else 0)
        if p.log_scale and lo_i >= 1:
            return st.floats(0, math.log10(hi_i)).map(
                lambda e: float(min(hi_i, max(lo_i, round(10 ** e)))))
        return st.integers(lo_i, hi_i).map(float)
    if p.log_scale and lo >= 0:
        base = lo if lo > 0 else 1e-3
        return st.floats(math.log10(base),
                         math.log10(hi)).map(lambda e: float(min(hi, max(base, 10 ** e))))
    return st.floats(lo, hi, exclude_min=p.lower_strict,
                     exclude_max=p.upper_strict and hi == p.upper,
                     allow_nan=False, allow_infinity=False)


@st.composite
def points(draw, claim: Claim, names: tuple[str, ...] | None = None) -> dict[str, float]:
    """A random point of the claim's domain (constraints respected)."""
    ps = claim.params if names is None else tuple(claim.param(n) for n in names)
    # Redraw inside the strategy rather than reject the whole example: with several
    # cross-parameter constraints (theorem2: ||mu|| <= L and chi2 <= w* - 1) a point drawn
    # parameter by parameter is valid only a fraction of the time, and a test that draws
    # several points would otherwise be rejected almost always (hypothesis.Unsatisfiable).
    for _ in range(_TRIES):
        pt = {p.name: draw(param_strategy(p)) for p in ps}
        try:
            claim.validate({k: np.asarray(v) for k, v in pt.items()})
            return pt
        except ParamError:
            continue
    assume(False)


_TRIES = 25
