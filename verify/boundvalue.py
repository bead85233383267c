"""Bound values: a bound of :mod:`bounds` evaluated as a float that remembers its formula.

:func:`bound_value` memoises a bound's float on its exact parameters, and
:func:`bound_enclosure` encloses it from its formula in ball arithmetic; both are per-process
caches (``functools.lru_cache``) that :mod:`verify.registry` clears when a registration changes.
Imported from :mod:`verify.registry` too (``from verify.registry import bound_value``).
"""

from __future__ import annotations

from functools import lru_cache


class BoundValue(float):
    """A bound's value as a float that remembers where it came from.

    ``ref`` is ``(claim, quantity, form, params)``: :func:`verify.decide.decide` encloses the
    bound from its formula in ball arithmetic (:func:`bound_enclosure`), at any precision,
    instead of trusting the float.  Arithmetic on it gives a plain float (no ``ref``).
    """

    ref: tuple | None = None


def _frozen(v):
    """Return a parameter value as a hashable exact key (NumPy scalars as Python numbers)."""
    import numpy as np

    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        raise TypeError("an array parameter")
    hash(v)
    return v


@lru_cache(maxsize=200_000)
def _bound_float(claim, quantity: str, form: str, params: tuple) -> float:
    return float(_claim(claim).evaluate_form(quantity, form, **dict(params)))


def bound_value(claim_id, quantity: str, form: str, **params) -> BoundValue:
    """Evaluate a bound of :mod:`bounds` as a float that knows its formula (:class:`BoundValue`).

    The value is memoised per process on the exact parameter values (0.1 and 0.1 + 1e-17 are
    different keys); a bound is a pure function of them.  Checks are decided on the bound's
    enclosure (:func:`bound_enclosure`), never on this float.

    Parameters
    ----------
    claim_id : str or object
        The claim (:func:`bounds.ids`), e.g. ``"theorem3"``; or an object whose ``formula()``
        builds the :class:`bounds.core.Claim` (a :class:`verify.quick.QuickClaim`, which need
        not be registered).
    quantity, form : str
        The bounded quantity and the form of its bound (``"second_moment"``, ``"stated"``).
    **params
        The claim's parameters, as :meth:`bounds.core.Claim.evaluate_form` takes them.

    Returns
    -------
    BoundValue
        A float (values outside the double range saturate) with ``ref`` set.

    Raises
    ------
    bounds.ParamError
        A parameter outside its domain, or one the form needs that is not given.
    """
    try:
        key = tuple(sorted((k, _frozen(v)) for k, v in params.items()))
    except TypeError:  # an array parameter: evaluated, without a formula to enclose
        return BoundValue(float(_claim(claim_id).evaluate_form(quantity, form, **params)))
    out = BoundValue(_bound_float(claim_id, quantity, form, key))
    out.ref = (claim_id, quantity, form, key)
    return out


@lru_cache(maxsize=200_000)
def bound_enclosure(ref: tuple, bits: int):
    """Enclose the bound ``ref = (claim, quantity, form, params)`` at ``bits`` of precision.

    Ball arithmetic on the form's formula (:func:`bounds.enclose`); memoised per process.

    Returns
    -------
    bounds.enclosure.Enclosure
    """
    claim, quantity, form, params = ref
    return _claim(claim).enclose_form(quantity, form, bits, **dict(params))


def _claim(claim):
    """Return the :class:`bounds.core.Claim` of a claim id.

    Or of an object that builds its formula itself (a :class:`verify.quick.QuickClaim` not
    registered in this process).
    """
    import bounds

    return bounds.get(claim) if isinstance(claim, str) else claim.formula()
