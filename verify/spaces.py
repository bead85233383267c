"""Search spaces of claims: how a claim declares where ``python -m verify search`` looks.

A claim module declares a space with the :func:`spec` decorator on a factory that returns
``(strategy, evaluate)``: a Hypothesis strategy over instances and ``evaluate(instance)``
giving ``(label, empirical, bound, relation, tolerance)`` rows, computed exactly.  The
factory runs only when a search needs it, so declaring a space imports no Hypothesis
(``python -m verify CLAIM`` stays fast).  The search itself is :mod:`verify.search`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class SearchSpec:
    """The search space of one claim: ``space`` says in words what it covers."""

    claim: str
    space: str
    factory: Callable[[], tuple]
    _built: tuple | None = field(default=None, repr=False)

    def _build(self) -> tuple:
        if self._built is None:
            self._built = tuple(self.factory())
        return self._built

    @property
    def strategy(self):
        """The Hypothesis strategy over instances (the factory runs on first use)."""
        return self._build()[0]

    @property
    def evaluate(self) -> Callable[[dict], list]:
        """``evaluate(instance)`` -> ``(label, empirical, bound, relation, tolerance)`` rows."""
        return self._build()[1]


#: claim id -> its search space, filled by the claim modules (see verify.registry)
SPECS: dict[str, SearchSpec] = {}


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
        The decorator; it registers the factory (in :data:`SPECS`) and returns it unchanged.
    """
    def deco(factory):
        SPECS[claim] = SearchSpec(claim, space, factory)
        return factory
    return deco
