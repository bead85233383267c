"""mcsa-verify bound library: every claim of the seed documents as sympy formulas.

>>> import bounds
>>> claim = bounds.get("theorem3")
>>> float(claim.evaluate_form("variance", "stated", N=10, L=1.0))
0.65

Importing :mod:`bounds` is cheap: sympy is imported only when a claim is built, and the
claim modules (:data:`MODULES`) only when a claim of theirs is asked for.  Claims are
built lazily and cached; the expensive sympy derivations come from a checked cache
(see :mod:`bounds.derive`).  See :mod:`bounds.core` for the data model and
:mod:`bounds.numerics` for evaluation.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

__all__ = ["ASSUMPTIONS", "Claim", "Form", "Param", "ParamError", "Quantity", "Source",
           "get", "ids", "all_claims", "UnknownClaim", "MODULES"]

from .derive import MODULES  # noqa: E402  (claim modules, in source order)

_CORE_NAMES = ("ASSUMPTIONS", "Claim", "Form", "Param", "ParamError", "Quantity", "Source")


def __getattr__(name):  # PEP 562: the data model is imported on first use (it imports sympy)
    if name in _CORE_NAMES:
        from . import core

        return getattr(core, name)
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownClaim(KeyError):
    def __str__(self) -> str:  # one line, for the command line
        return self.args[0]


def _module(name: str):
    """The claim module ``bounds.<name>``, or None while it does not exist yet."""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{name}":
            return None
        raise


@lru_cache(maxsize=None)
def _builders() -> dict:
    out = {}
    for m in MODULES:
        mod = _module(m)
        if mod is not None:
            out.update(mod.BUILDERS)
    return out


def ids() -> tuple[str, ...]:
    """Claim ids in source order: 001, then 003, then 002, then the experiments.

    Read from the checked catalog (:func:`bounds.derive.catalog`, no sympy) when it is
    current; otherwise the claim modules are imported.
    """
    from .derive import catalog

    cat = catalog()
    if cat is not None:
        return tuple(cat)
    return tuple(_builders())


def _unknown(claim_id: str, known) -> UnknownClaim:
    import difflib

    near = difflib.get_close_matches(str(claim_id), list(known), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else "; see `python -m bounds list`"
    return UnknownClaim(f"unknown claim {claim_id!r}{hint}")


@lru_cache(maxsize=None)
def get(claim_id: str):
    """The claim with this id (built on first use)."""
    builders = _builders()
    try:
        builder = builders[claim_id]
    except (KeyError, TypeError):
        raise _unknown(claim_id, builders) from None
    return builder()


def all_claims() -> tuple:
    return tuple(get(i) for i in ids())
