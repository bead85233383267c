"""mcsa-verify bound library: every claim of the seed documents as sympy formulas.

>>> import bounds
>>> claim = bounds.get("theorem3")
>>> float(claim.evaluate_form("variance", "stated", N=10, L=1.0))
0.65

Importing :mod:`bounds` is cheap: sympy is imported only when a claim is built, and the
claim modules only when a claim of theirs is asked for.  Claim modules (a ``BUILDERS =
{id: builder}`` dict each) are found through the entry-point group ``mcsa_verify.bounds``
(:func:`claim_modules`, :mod:`bounds.plugins`): this package's own documents and any user's
package alike, with no list of documents here.  :func:`add_builder` makes one more claim
known in this process (a claim registered by a script, :class:`verify.QuickClaim`).

Public API: :func:`get` (a claim), :func:`ids`, :func:`evaluate` (one form at given
parameters), :func:`compare` (the four MCSA schemes side by side), :func:`add_builder`.
Claims are built lazily and cached; the expensive sympy derivations come from a checked
cache (see :mod:`bounds.derive`).  See :mod:`bounds.core` for the data model and
:mod:`bounds.numerics` for evaluation.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from .plugins import BOUNDS_GROUP as GROUP

__all__ = ["ASSUMPTIONS", "Claim", "Form", "Param", "ParamError", "Quantity", "Source",
           "get", "ids", "all_claims", "evaluate", "enclose", "compare", "claim_modules",
           "add_builder", "UnknownClaim"]


def claim_modules(group: str = GROUP) -> tuple[str, ...]:
    """Name the modules of the entry-point group ``group``, without importing them.

    See :func:`bounds.plugins.discover`.
    """
    from .plugins import discover

    return tuple(p.module for p in discover(group))


_CORE_NAMES = ("ASSUMPTIONS", "Claim", "Form", "Param", "ParamError", "Quantity", "Source")


# PEP 562: the data model and the submodules are imported on first use (sympy)
def __getattr__(name):
    if name in _CORE_NAMES:
        from . import core

        return getattr(core, name)
    if not name.startswith("_"):
        from importlib.util import find_spec

        # a submodule: bounds.paper, bounds.numerics, ...
        if find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownClaim(KeyError):
    """A claim id that no plugin registers; the message suggests the nearest known id."""

    def __str__(self) -> str:
        """Return the message alone, one line for the command line (no ``KeyError`` quotes)."""
        return self.args[0]


#: builders added in this process (:func:`add_builder`): claim id -> builder
_ADDED: dict = {}


def _module_builders(modules) -> dict:
    """Collect ``{id: builder}`` of the claim modules ``modules`` (imported).

    The modules are taken in the bibliography's order of their documents (a module's ``SEED``;
    bounds.references.position), otherwise in entry-point order.
    """
    from .references import position

    mods = [importlib.import_module(m) for m in modules]
    out = {}
    for mod in sorted(mods, key=lambda mod: position(getattr(mod, "SEED", None))):
        out.update(mod.BUILDERS)
    return out


@lru_cache(maxsize=None)
def _registered_builders() -> dict:
    return _module_builders(claim_modules())


def _builders() -> dict:
    """Return ``{id: builder}`` of every claim.

    The registered claim modules' builders come first, then :func:`add_builder`'s.
    """
    return {**_registered_builders(), **_ADDED}


def add_builder(claim_id: str, builder) -> None:
    """Make the claim ``claim_id`` known in this process.

    ``builder()`` returns its :class:`bounds.core.Claim`.  The public way to add a claim
    besides the entry points (a plugin's ``register(registry)`` hook,
    :meth:`verify.QuickClaim.register`); a builder given again for the id replaces the first,
    and the claim is then built afresh.

    Parameters
    ----------
    claim_id : str
        The id used everywhere (``bounds.get(claim_id)``, ``python -m bounds CLAIM``).
    builder : callable
        Takes no argument and returns a :class:`bounds.core.Claim` with this id.
    """
    if not callable(builder):
        raise TypeError(f"the builder of {claim_id!r} is not callable")
    if _builders().get(claim_id, builder) != builder:
        get.cache_clear()
    _ADDED[claim_id] = builder


def _uncatalogued_builders() -> dict:
    """Collect the builders of the claims the current catalog does not hold.

    These are the claim modules registered since it was written, and :func:`add_builder`'s.
    """
    from .derive import catalogued_modules

    covered = catalogued_modules()
    return {**_module_builders([m for m in claim_modules() if m not in covered]), **_ADDED}


def ids() -> tuple[str, ...]:
    """List every claim id.

    The documents come in the bibliography's order (Kim et al. 2022, then the CIS-as-IMH draft,
    then El hanchi 2018; a user's after), each in its claim modules' order, then the claims
    added by :func:`add_builder`.  Read from the checked catalog (:func:`bounds.derive.catalog`,
    no sympy) when it is current; the claim modules it does not cover are imported.

    Returns
    -------
    tuple of str
        The claim ids, e.g. ``("proposition1", "proposition2", ..., "theorem3", ...)``.
    """
    from .derive import catalog

    cat = catalog()
    if cat is not None:
        return tuple(cat) + tuple(k for k in _uncatalogued_builders() if k not in cat)
    return tuple(_builders())


def _unknown(claim_id: str, known) -> UnknownClaim:
    import difflib

    near = difflib.get_close_matches(str(claim_id), list(known), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else "; see `python -m bounds list`"
    return UnknownClaim(f"unknown claim {claim_id!r}{hint}")


@lru_cache(maxsize=None)
def get(claim_id: str):
    """Return the claim with this id, built on first use and cached.

    Parameters
    ----------
    claim_id : str
        A claim id (:func:`ids`), e.g. ``"theorem3"``.

    Returns
    -------
    bounds.core.Claim
        The claim's formulas, parameters and source (section, equation).

    Raises
    ------
    bounds.UnknownClaim
        No registered claim has this id (the message names the nearest one).
    """
    builders = _builders()
    try:
        builder = builders[claim_id]
    except (KeyError, TypeError):
        raise _unknown(claim_id, builders) from None
    return builder()


def all_claims() -> tuple:
    """Build every claim of :func:`ids`, in that order (imports sympy and every claim module).

    Returns
    -------
    tuple of bounds.core.Claim
    """
    return tuple(get(i) for i in ids())


def evaluate(claim_id: str, quantity: str | None = None, form: str | None = None, **params):
    """Evaluate bound forms of a claim at the given parameters.

    Parameters
    ----------
    claim_id : str
        A claim id (``bounds.ids()``), e.g. ``"theorem3"``.
    quantity, form : str, optional
        One quantity and form (e.g. ``"variance"``, ``"stated"``); by default every
        quantity and form that the parameters determine.
    **params
        The claim's parameters (``N``, ``w_star``, ``L``, ...), as in its source.

        Each a number or a string of a decimal number, read exactly (``w_star="1e400"``,
        ``w_star="1.000000000001"``), as the command line reads it.

    Returns
    -------
    float or dict
        The value of one form, or ``{(quantity, form): value}`` (None where a form needs
        a parameter that was not given).  A value outside the double range (below about
        2.2e-308 or above 1.8e308 in magnitude) is an ``mpmath.mpf``, never rounded to 0
        or inf.

    Raises
    ------
    bounds.ParamError
        A parameter outside its domain (the message names the argument, e.g. ``w_star``).
    bounds.numerics.PrecisionError
        No value can be trusted at this point (one line).

    Examples
    --------
    >>> import bounds
    >>> bounds.evaluate("theorem3", "variance", "stated", N=10, L=1.0)
    0.65
    """
    claim = get(claim_id)
    if quantity is not None and form is not None:
        return _number(claim.evaluate_form(quantity, form, exact=True, **params))
    params = claim.exact(params)
    claim.validate({k: v for k, v in params.items() if k in {p.name for p in claim.params}})
    out: dict[tuple[str, str], object] = {}
    for q in claim.quantities:
        if quantity is not None and q.name != quantity:
            continue
        for f in q.forms:
            if form is not None and f.name != form:
                continue
            if claim.missing(q.name, f.name, claim.with_defaults(params)):
                out[(q.name, f.name)] = None
                continue
            out[(q.name, f.name)] = _number(claim.evaluate_form(q.name, f.name, exact=True,
                                                                **params))
    return out


def enclose(claim_id: str, quantity: str, form: str, prec: int | None = None, **params):
    """Enclose one form's value at one point: an interval that provably contains it.

    Ball arithmetic (python-flint's ``arb``) on the form's formula, at ``prec`` bits or, by
    default, at a precision raised until the enclosure is narrow (:meth:`Claim.enclose_form`;
    docs/methods.md §12).  Parameters as in :func:`evaluate`, read exactly.

    Parameters
    ----------
    claim_id : str
        A claim id (``bounds.ids()``).
    quantity, form : str
        The quantity and its form (``"mixing"``, ``"stated"``).
    prec : int, optional
        Working precision in bits (default: raised until the enclosure is narrow).
    **params
        The claim's parameters, numbers or decimal strings (read exactly).

    Returns
    -------
    bounds.enclosure.Enclosure

    Examples
    --------
    >>> import bounds
    >>> e = bounds.enclose("theorem4", "mixing", "stated", w_star="1.000000000001", k=10**12)
    >>> e.lo > 0 and e.hi < 1e-200
    True
    """
    return get(claim_id).enclose_form(quantity, form, prec, **params)


def _number(v):
    """Convert one value of ``evaluate_form(..., exact=True)``.

    It becomes a float, or stays the mpf itself outside the double range.
    """
    import numpy as np

    if isinstance(v, np.ndarray):
        v = v.item() if v.size == 1 else v
    if isinstance(v, np.ndarray):
        return v
    return v if not isinstance(v, (float, int, np.floating)) else float(v)


def compare(N, w_star, chi2, L=1.0, mu_norm=0.0, form: str = "stated", t=None,
            D=None) -> list[dict]:
    """Compare the four MCSA schemes at one point, as ``python -m bounds compare``.

    Parameters
    ----------
    N : int
        Budget (states or proposals per iteration), N >= 2.
    w_star : float
        w* = sup pi/q >= 1 (Assumption 2 of Kim et al. 2022).
    chi2 : float
        chi2(pi || q) (MSC-RB's bound, Theorem 2).
    L, mu_norm : float
        Score bound (Assumption 3) and ||E_pi s||.
    form : {"stated", "explicit"}
        Second-moment form; "explicit" needs ``t`` and ``D``.
    t : int, optional
        The MCGD iteration index (the explicit form only).
    D : int, optional
        The dimension of the score (the explicit form only; Lemma 7).

    Returns
    -------
    list of dict
        One dict per scheme (MSC, MSC-RB, JSA, pMCSA: Theorems 1-4 of Kim et al. 2022,
        §4.1-§5.1): ``scheme``, ``claim``, ``rho`` (per-iteration mixing rate, TV bound
        ~ C rho^k) and ``second_moment`` (bound on E[||g_t||^2 | F_{t-1}]); floats, or
        ``mpmath.mpf`` outside the double range.  Parameters may be decimal strings.
    """
    from .schemes import SCHEMES, mixing_rates

    vals = {"N": N, "w_star": w_star, "chi2": chi2, "L": L, "mu_norm": mu_norm, "t": t, "D": D}
    rho = mixing_rates(N, w_star)
    out = []
    for scheme, cid in SCHEMES:
        c = get(cid)
        kw = {p.name: vals[p.name] for p in c.form_params("second_moment",
                                                          form) if vals.get(p.name) is not None}
        out.append({"scheme": scheme, "claim": cid, "rho": rho[scheme],
                    "second_moment": _number(c.evaluate_form("second_moment", form, exact=True,
                                                             **kw))})
    return out
