"""mcsa-verify bound library: every claim of the seed documents as sympy formulas.

>>> import bounds
>>> claim = bounds.get("theorem3")
>>> float(claim.evaluate_form("variance", "stated", N=10, L=1.0))
0.65

Claims are built lazily (some derivations integrate with sympy) and cached.
See :mod:`bounds.core` for the data model and :mod:`bounds.numerics` for evaluation.
"""

from __future__ import annotations

from functools import lru_cache

from . import cis_imh, paper, sgmcmc
from .core import ASSUMPTIONS, Claim, Form, Param, ParamError, Quantity, Source

__all__ = ["ASSUMPTIONS", "Claim", "Form", "Param", "ParamError", "Quantity", "Source",
           "get", "ids", "all_claims", "UnknownClaim"]

_BUILDERS = {**paper.BUILDERS, **cis_imh.BUILDERS, **sgmcmc.BUILDERS}


class UnknownClaim(KeyError):
    def __str__(self) -> str:  # one line, for the command line
        return self.args[0]


def ids() -> tuple[str, ...]:
    """Claim ids in source order: 001, then 003, then 002."""
    return tuple(_BUILDERS)


@lru_cache(maxsize=None)
def get(claim_id: str) -> Claim:
    """The claim with this id (built on first use)."""
    try:
        builder = _BUILDERS[claim_id]
    except KeyError:
        import difflib

        near = difflib.get_close_matches(claim_id, _BUILDERS, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else "; see `python -m bounds list`"
        raise UnknownClaim(f"unknown claim {claim_id!r}{hint}") from None
    return builder()


def all_claims() -> tuple[Claim, ...]:
    return tuple(get(i) for i in ids())
