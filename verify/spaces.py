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
        return self._build()[0]

    @property
    def evaluate(self) -> Callable[[dict], list]:
        return self._build()[1]


#: claim id -> its search space, filled by the claim modules (see verify.registry)
SPECS: dict[str, SearchSpec] = {}


def spec(claim: str, space: str):
    """Decorator: ``factory() -> (strategy, evaluate)`` is ``claim``'s search space."""
    def deco(factory):
        SPECS[claim] = SearchSpec(claim, space, factory)
        return factory
    return deco
