"""The claim registry: every claim, built-in or a user's, is found the same way.

A package makes claims known by declaring entry points (see ``docs/own-claim.md``)::

    [project.entry-points."mcsa_verify.bounds"]      # the formulas (layer bounds)
    my_bounds = "my_package.bounds"                  # a module with BUILDERS = {id: builder}

    [project.entry-points."mcsa_verify.claims"]      # the verifications (layer verify)
    my_claims = "my_package.claims"                  # a module that registers them

Importing a ``mcsa_verify.claims`` module registers its claims with
:func:`register` (a :class:`verify.model.Verification` each: readings, grid,
empirical side, plot, optional search space), its search spaces with
:func:`verify.spaces.spec` and its proof steps with :func:`verify.audit.engine.step`.
:func:`load` imports every such module once, in entry-point order; the toolkit's own
three documents are registered through this same group by this package's
``pyproject.toml``, with nothing privileged.  Importing this module loads nothing.
"""

from __future__ import annotations

from importlib import import_module, metadata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Verification

GROUP = "mcsa_verify.claims"

#: the entry points this distribution declares in pyproject.toml, used only when its
#: metadata is not installed (running from a bare source tree with PYTHONPATH)
_OWN = (("kim2022", "verify.documents.kim2022"), ("cis_imh", "verify.documents.cis_imh"),
        ("elhanchi2018", "verify.documents.elhanchi2018"))

_loaded: dict[str, str] = {}  # entry-point name -> module


#: claim id -> its :class:`verify.model.Verification`, filled by :func:`register`
REGISTRY: dict[str, Verification] = {}


def register(v: Verification) -> Verification:
    """Make ``v`` known under its claim id (a claim module calls this for each of its claims)."""
    REGISTRY[v.claim] = v
    return v


#: bound values already computed in this process: (claim, quantity, form, params) -> float.  A bound is a pure
#: function of its parameters, and a verification evaluates the same one at many checks (every state of a chain,
#: every score), some of them through adaptive-precision mpmath
_BOUND_VALUES: dict = {}


def bound_value(claim_id: str, quantity: str, form: str, **params) -> float:
    """A bound from :mod:`bounds` as a float (values outside double range saturate); memoised per process on
    the exact parameter values (``repr`` of each, the bytes of an array: 0.1 and 0.1 + 1e-17 are different keys)."""
    import numpy as np

    import bounds

    def exact(v):  # repr of an array elides its middle: arrays are keyed by their bytes
        if isinstance(v, np.ndarray):
            return (v.dtype.str, v.shape, v.tobytes())
        return (type(v).__name__, repr(v))

    try:
        key = (claim_id, quantity, form, tuple(sorted((k, exact(v)) for k, v in params.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _BOUND_VALUES:
        return _BOUND_VALUES[key]
    val = float(bounds.get(claim_id).evaluate_form(quantity, form, **params))
    if key is not None and len(_BOUND_VALUES) < 200_000:
        _BOUND_VALUES[key] = val
    return val


def entry_points(group: str = GROUP, own=_OWN) -> list[tuple[str, str]]:
    """``[(name, module)]`` of ``group``: this distribution's first, then other packages'."""
    eps = list(metadata.entry_points(group=group))
    try:
        has_own = any(e.group == group for e in metadata.distribution("mcsa-verify").entry_points)
    except metadata.PackageNotFoundError:
        has_own = False
    out = [] if has_own else list(own)

    def dist(e):
        return getattr(getattr(e, "dist", None), "name", "") or ""

    order = {name: i for i, (name, _) in enumerate(own)}
    # ours first, in the documents' order; then other packages' in metadata order
    eps.sort(key=lambda e: (dist(e).replace("_", "-").lower() != "mcsa-verify", order.get(e.name, len(order))))
    out += [(e.name, e.value.split(":")[0].strip()) for e in eps]
    seen, uniq = set(), []
    for name, mod in out:
        if mod not in seen:
            seen.add(mod)
            uniq.append((name, mod))
    return uniq


def load() -> dict[str, str]:
    """Import every claim module of the ``mcsa_verify.claims`` group (once); returns
    ``{entry-point name: module}``.  A module that fails to import raises: a broken
    plugin is an error to see, not a claim to drop silently."""
    for name, mod in entry_points():
        if name not in _loaded:
            import_module(mod)
            _loaded[name] = mod
    return dict(_loaded)


def verifications() -> dict:
    """``{claim id: Verification}`` of every registered claim."""
    load()
    return REGISTRY


def search_spaces() -> dict:
    """``{claim id: SearchSpec}`` of every claim that declares a search space."""
    load()
    from .spaces import SPECS

    return SPECS


def proof_steps() -> dict:
    """``{step id: Step}`` of every audited proof."""
    load()
    from .audit.engine import STEPS

    return STEPS
