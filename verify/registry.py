"""The claim registry: every claim, built-in or a user's, is found the same way.

A package makes claims known by declaring entry points (docs/own-claim.md; discovery is
:func:`bounds.plugins.discover`, the one place that reads them)::

    [project.entry-points."mcsa_verify.bounds"]      # the formulas (layer bounds)
    my_doc = "my_package.formulas"                   # a module with BUILDERS = {id: builder}

    [project.entry-points."mcsa_verify.claims"]      # the verifications (layer verify)
    my_doc = "my_package:register"                   # a register(registry) hook

:func:`load` calls every ``mcsa_verify.claims`` hook once, in entry-point order, with a
:class:`Registry`: the hook adds its document's verifications (:meth:`Registry.add`, a
:class:`verify.model.Verification` each: readings, grid, empirical side, plot), imports the
modules that declare its search spaces (:func:`verify.spaces.spec`) and proof steps
(:func:`verify.audit.engine.step`) with :meth:`Registry.include`, and may add formulas
(:meth:`Registry.add_builder`).  The package the entry point names also carries the
document's data files (``coverage.json``, ``coverage_sections.json``, ``severity.json``),
which :mod:`verify.coverage` and :mod:`verify.severity` find through the same entry points.

The toolkit's own three documents are registered through this same group by this package's
``pyproject.toml`` (``verify.documents.<doc>:register``), with nothing privileged and no list
of them here.  An entry point naming a plain module (``my_doc = "my_package.claims"``) still
works: a module that defines its own ``register`` function has it called, and any other module
is only imported, its registrations made by import side effect (deprecated; a
DeprecationWarning says so).  Hypothesis's ``hypothesis`` entry-point group is the model.
Importing this module loads nothing.
"""

from __future__ import annotations

import sys
import warnings
from contextlib import contextmanager
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING, Iterator

from bounds.plugins import CLAIMS_GROUP as GROUP, Plugin, discover

if TYPE_CHECKING:
    from .model import Verification

_loaded: dict[str, str] = {}  # module -> entry-point name, of the plugins loaded
_included: list[str] = []  # modules Registry.include imported, in order (Registry.scoped)


#: claim id -> its :class:`verify.model.Verification`, filled by :func:`register`
REGISTRY: dict[str, Verification] = {}


def register(v: Verification) -> Verification:
    """Make ``v`` known under its claim id (:meth:`Registry.add` calls this).

    Parameters
    ----------
    v : verify.model.Verification
        The claim's verification; one registered under the same id before is replaced.

    Returns
    -------
    verify.model.Verification
        ``v`` itself.
    """
    REGISTRY[v.claim] = v
    return v


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


def bound_value(claim_id, quantity: str, form: str, **params) -> float:
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


#: the data file of a document package that names its document (verify.coverage): ``{"document":
#: key, ...}``
SECTIONS_FILE = "coverage_sections.json"


def document_of(plugin: Plugin) -> str | None:
    """Read the document key a plugin's package names in its ``coverage_sections.json``.

    Returns None when the package has no such file or names no document.
    """
    import json

    f = plugin.data_file(SECTIONS_FILE)
    if f is None:
        return None
    doc = json.loads(f.read_text(encoding="utf-8")).get("document")
    return doc if isinstance(doc, str) else None


def plugins() -> tuple[Plugin, ...]:
    """List the registered document plugins (entry-point group ``mcsa_verify.claims``).

    They come in the bibliography's order of the documents they name
    (bounds.references.position; a plugin naming none, or one not in the bibliography, after),
    otherwise in entry-point order.  Loading, the coverage inventory, the severity data and the
    certificates follow it.
    """
    from bounds.references import position

    return tuple(sorted(discover(GROUP), key=lambda p: position(document_of(p))))


def entry_points() -> list[tuple[str, str]]:
    """List ``(name, module)`` of each of :func:`plugins`."""
    return [(p.name, p.module) for p in plugins()]


class Registry:
    """What a plugin's ``register(registry)`` hook is given: the ways to make things known.

    ``plugin`` is the :class:`bounds.plugins.Plugin` being loaded (None when a script registers
    a claim directly, :meth:`verify.QuickClaim.register`).
    """

    def __init__(self, plugin: Plugin | None = None):
        self.plugin = plugin

    def add(self, verification: Verification) -> Verification:
        """Register a :class:`verify.model.Verification` under its claim id."""
        return register(verification)

    def include(self, *modules: str) -> None:
        """Import modules that declare search spaces, proof steps, instance kinds or verifications.

        Search spaces are declared with ``@spec``, proof steps with ``step(...)``.  A relative
        name (``".proofs"``) is taken in the plugin's package.  The order is the order of
        registration.
        """
        package = None
        if self.plugin is not None:
            package = (self.plugin.module if self.plugin.package_dir()
                       else self.plugin.module.rpartition(".")[0])
        for m in modules:
            _included.append(import_module(m, package if m.startswith(".") else None).__name__)

    def add_builder(self, claim_id: str, builder) -> None:
        """Make a formula known to :mod:`bounds` (:func:`bounds.add_builder`).

        A document's formulas are normally its ``mcsa_verify.bounds`` module's ``BUILDERS``.
        """
        import bounds

        bounds.add_builder(claim_id, builder)

    def search_space(self, claim_id: str, space: str, factory) -> None:
        """Register ``claim_id``'s search space, as ``@verify.spaces.spec(claim_id, space)`` does.

        ``factory() -> (strategy, evaluate)``; ``space`` describes it in one line.
        """
        from .spaces import spec

        spec(claim_id, space)(factory)


    def unregister(self, claim_id: str) -> None:
        """Remove everything registered under ``claim_id`` in this process.

        Its verification, search space, proof steps, the formula :meth:`add_builder` gave and
        the bound values memoised for it (:func:`bound_value`) go; an id that is not
        registered is ignored.  A formula that an installed ``mcsa_verify.bounds`` module
        declares stays with its module.

        Parameters
        ----------
        claim_id : str
            The claim's id.
        """
        _forget({claim_id}, steps=[s for s, v in _steps().items() if v.claim == claim_id])

    @classmethod
    @contextmanager
    def scoped(cls, plugin: Plugin | None = None) -> Iterator[Registry]:
        """Register for the duration of a ``with`` block only.

        The installed plugins are loaded first (:func:`load`; they stay).  On leaving the
        block every claim, search space, proof step and formula registered inside it is
        removed, and an entry it replaced is put back; modules that :meth:`include` imported
        inside it are dropped from ``sys.modules``, so that registering them again declares
        their steps again.

        Parameters
        ----------
        plugin : bounds.plugins.Plugin, optional
            The plugin the yielded registry loads (as :func:`load` passes it).

        Yields
        ------
        Registry
            A registry to register with; anything registered in the block by other means
            (:func:`register`, ``QuickClaim.register()``, ``@spec``) is removed too.

        Examples
        --------
        >>> from verify.registry import Registry
        >>> with Registry.scoped() as reg:  # doctest: +SKIP
        ...     my_claim.register(reg)
        ...     verify.run(my_claim.id)
        """
        load()
        saved = [(d, dict(d)) for d in _tables()]
        n_included, imported = len(_included), set(sys.modules)
        try:
            yield cls(plugin)
        finally:
            claims: set[str] = set()
            steps: list[str] = []
            for d, before in saved:
                changed = [k for k, v in d.items() if before.get(k, _MISSING) is not v]
                gone = [k for k in before if k not in d]
                if d is saved[2][0]:  # the proof steps: keyed by step id
                    steps += changed + gone
                    claims.update(d[k].claim for k in changed)
                else:
                    claims.update(changed + gone)
            _forget(claims, steps=steps)
            for d, before in saved:
                d.update(before)
            for m in _included[n_included:]:
                if m not in imported:
                    sys.modules.pop(m, None)
            del _included[n_included:]


_MISSING = object()


def _steps() -> dict:
    from .audit.engine import STEPS

    return STEPS


def _tables() -> tuple[dict, ...]:
    """Return the process-wide tables a registration writes to.

    They are the verifications, the search spaces, the proof steps and the added formulas.
    """
    import bounds

    from .spaces import SPECS

    return REGISTRY, SPECS, _steps(), bounds._ADDED


def _forget(claims: set[str], steps=()) -> None:
    """Remove ``claims`` from every table and ``steps`` from the proof steps.

    The caches that hold them (the built claims, memoised bound values) are cleared.
    """
    import bounds

    from .spaces import SPECS

    for d in (REGISTRY, SPECS, bounds._ADDED):
        for c in claims:
            d.pop(c, None)
    for s in steps:
        _steps().pop(s, None)
    _bound_float.cache_clear()
    bound_enclosure.cache_clear()
    bounds.get.cache_clear()


def _hook(plugin: Plugin):
    """Return the ``register(registry)`` callable of a plugin.

    None for a plain module (imported: its registrations were made by import side effects).
    """
    obj = plugin.load()
    if plugin.attr is not None:
        if not callable(obj):
            raise TypeError(
                f"entry point {plugin.name} = {plugin.value}: {plugin.attr} is not callable")
        return obj
    fn = getattr(obj, "register", None)
    # its own hook, not an imported name
    if callable(fn) and getattr(fn, "__module__", None) == obj.__name__:
        return fn
    warnings.warn(
        f"entry point {plugin.name} = {plugin.value} ({plugin.group}) names a module that "
        f"registers "
                  f"on import; name a register(registry) hook instead ({plugin.module}:register); "
                  "see docs/own-claim.md", DeprecationWarning, stacklevel=3)
    return None


def load() -> dict[str, str]:
    """Load every plugin of the ``mcsa_verify.claims`` group, once.

    Each plugin's ``register(registry)`` hook is called, or its module imported (deprecated).
    A plugin that fails to load raises: a broken plugin is an error to see, not a claim to
    drop silently.

    Returns
    -------
    dict
        ``{entry-point name: module}`` of the plugins loaded.
    """
    for p in plugins():
        # one load per module (two packages may use one entry-point name)
        if p.module not in _loaded:
            hook = _hook(p)
            if hook is not None:
                hook(Registry(p))
            _loaded[p.module] = p.name
    return {name: module for module, name in _loaded.items()}


def verifications() -> dict:
    """``{claim id: Verification}`` of every registered claim."""
    load()
    return REGISTRY


def claim_ids() -> tuple[str, ...]:
    """Ids of every registered claim: the documents' order (:func:`bounds.ids`), then the rest.

    :func:`verify.claims` is this function; the machinery imports it from here, not from the
    package (an import of ``verify`` from a module of ``verify`` closes a cycle through the
    package's ``__init__``).

    Returns
    -------
    tuple of str
        Claim ids, e.g. ``("proposition1", ..., "theorem3", ...)``.
    """
    import bounds

    reg = verifications()
    ids = [c for c in bounds.ids() if c in reg]
    return tuple(ids + [c for c in reg if c not in ids])


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
