"""Search spaces of claims: how a claim declares where ``python -m verify search`` looks.

A claim module declares a space with the :func:`spec` decorator on a factory that returns
``(strategy, evaluate)``: a Hypothesis strategy over instances and ``evaluate(instance)``
giving ``(label, empirical, bound, relation, tolerance)`` rows, computed exactly.  The
factory runs only when a search needs it, so declaring a space imports no Hypothesis
(``python -m verify CLAIM`` stays fast).  The search itself is :mod:`verify.searching.search`.
"""

from __future__ import annotations

from ..registry import RegistryView, SearchSpec, declare

__all__ = ["SPECS", "SearchSpec", "spec"]

#: claim id -> its search space, in the registry in force (a read-only view, verify.registry)
SPECS = RegistryView("spaces")


def spec(claim: str, space: str):
    """Declare ``claim``'s search space: a decorator of ``factory() -> (strategy, evaluate)``.

    Parameters
    ----------
    claim : str
        The claim id.
    space : str
        What the space covers, in one line.

    Returns
    -------
    callable
        The decorator; it declares the factory's :class:`SearchSpec` (a record of the declaring
        module, :func:`verify.registry.declare`) and returns the factory unchanged.
    """
    def deco(factory):
        declare("space", SearchSpec(claim, space, factory))
        return factory
    return deco
