"""The claim registry: every claim, built-in or a user's, is found the same way.

A package makes claims known by entry points (docs/own-claim.md; read by
:func:`bounds.plugins.discover` only): ``mcsa_verify.bounds`` names a module with ``BUILDERS``
(the formulas), ``mcsa_verify.claims`` a ``register(registry)`` hook.  A registry is a value
(:class:`Registry`): the hook adds its document's records to the one it is given -- claims
(:meth:`Registry.add`), search spaces, and the records of the modules it includes
(:meth:`Registry.include`: what their bodies declared with ``register(...)``, ``@spec`` and
``step(...)``, kept by each module, :func:`declare`).  No table of the process is filled by
importing a module: the process's registry is built once from the installed plugins
(:func:`default`); a test builds its own (:func:`build`) or works in a copy
(:meth:`Registry.scoped`); the module tables ``REGISTRY``, ``verify.searching.spaces.SPECS`` and
``verify.audit.engine.STEPS`` are read-only views of the registry in force (:func:`current`).
The toolkit's documents come through the same group (``verify.documents.<doc>:register``).
Importing this module loads nothing.
"""

from __future__ import annotations

import copy
import functools
import sys
import types
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Callable, Iterator

from bounds.plugins import CLAIMS_GROUP as GROUP, Plugin, discover

# bound values live in their own room; their names are this module's too (the public API)
from .boundvalue import BoundValue, _bound_float, bound_enclosure, bound_value  # noqa: F401

if TYPE_CHECKING:
    from .model import Verification

#: the name under which a document module keeps the records it declared while it was imported
#: (:func:`declare`): its own list, read by :meth:`Registry.include`
RECORDS = "__mcsa_records__"

#: the registry in force: the one being loaded, or a :meth:`Registry.scoped` block's; unset, the
#: process's (:func:`default`)
_CURRENT: ContextVar[Registry | None] = ContextVar("mcsa_registry", default=None)


@dataclass
class SearchSpec:
    """The search space of one claim (``space`` says what it covers).

    Declared with :mod:`verify.searching.spaces`.

    Parameters
    ----------
    claim : str
        The claim id.
    space : str
        What the space covers, in one line.
    factory : callable
        ``factory() -> (strategy, evaluate)``, built on first use.
    """

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


def _declaring_module_records() -> list | None:
    """Return the records (:data:`RECORDS`) of the imported module whose body is declaring.

    None for a script (``__main__``) or a call at run time: no module body on the call stack.
    """
    f: types.FrameType | None = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "<module>":
            g = f.f_globals
            if g.get("__spec__") is None or g.get("__name__") == "__main__":
                return None
            return g.setdefault(RECORDS, [])
        f = f.f_back
    return None


def declare(kind: str, value):
    """Declare a record: a claim's verification, a search space, a proof step or a step table.

    Made by a module's body (``register(...)``, ``@spec``, ``step(...)``), it is kept in that
    module's own list (:data:`RECORDS`, read by :meth:`Registry.include`) and added to the
    registry being loaded (or the process's, once built); made by a script or at run time, it
    goes to the registry in force (:func:`current`).

    Parameters
    ----------
    kind : {"claim", "space", "step", "text"}
        What ``value`` is: a :class:`verify.model.Verification`, a :class:`SearchSpec`, a
        :class:`verify.audit.engine.Step`, or ``(path, unused ids)`` of a step table.
    value : object
        The record.

    Returns
    -------
    object
        ``value``.
    """
    own = _declaring_module_records()
    if own is not None:
        own.append((kind, value))
    loading = _CURRENT.get()
    if loading is not None:
        loading.record((kind, value))
    elif own is None or default.cache_info().currsize:
        # a script's record, or a module's imported after the process's registry was built
        default().record((kind, value))
    return value


def register(v: Verification) -> Verification:
    """Declare ``v`` under its claim id (:func:`declare`; :meth:`Registry.add` adds it directly).

    Parameters
    ----------
    v : verify.model.Verification
        The claim's verification; one registered under the same id before is replaced.

    Returns
    -------
    verify.model.Verification
        ``v`` itself.
    """
    return declare("claim", v)


class RegistryView(Mapping):
    """A read-only view of one table of the registry in force (:func:`current`).

    ``REGISTRY``, ``verify.searching.spaces.SPECS``, ``verify.audit.engine.STEPS`` and
    ``UNUSED_TEXT`` are
    views: reading one loads the installed documents once; nothing writes through it.
    """

    def __init__(self, table: str):
        self._table = table

    def _d(self) -> dict:
        return getattr(current(), self._table)

    def __getitem__(self, key):
        """Return the entry of ``key`` in the registry in force."""
        return self._d()[key]

    def __iter__(self):
        """Iterate over the keys, in the order of registration."""
        return iter(self._d())

    def __len__(self) -> int:
        """Return the number of entries."""
        return len(self._d())

    def __repr__(self) -> str:
        """Name the table viewed."""
        return f"RegistryView({self._table!r})"


#: claim id -> its :class:`verify.model.Verification`, in the registry in force
REGISTRY: Mapping[str, Verification] = RegistryView("claims")


#: the data file of a document package that names its document (verify.judging.coverage):
#: ``{"document": key, ...}``
SECTIONS_FILE = "coverage_sections.json"


def document_of(plugin: Plugin) -> str | None:
    """Read the document key a plugin's package names in its ``coverage_sections.json``.

    Returns None when the package has no such file or names no document.
    """
    from bounds.contract import read

    f = plugin.data_file(SECTIONS_FILE)
    if f is None:
        return None
    doc = read(f, SECTIONS_FILE, plugin.module.split(":")[0]).get("document")
    return doc if isinstance(doc, str) else None


def plugins() -> tuple[Plugin, ...]:
    """List the registered document plugins (entry-point group ``mcsa_verify.claims``).

    They come in the bibliography's order of the documents they name
    (bounds.references.position; a plugin naming none, or one not in the bibliography, after),
    otherwise in entry-point order.  Loading, the coverage inventory, the severity data and the
    certificates follow it.

    Returns
    -------
    tuple of bounds.plugins.Plugin
        The entry points of ``mcsa_verify.claims``, in that order.
    """
    from bounds.references import position

    return tuple(sorted(discover(GROUP), key=lambda p: position(document_of(p))))


def entry_points() -> list[tuple[str, str]]:
    """List ``(name, module)`` of each of :func:`plugins`."""
    return [(p.name, p.module) for p in plugins()]


class Registry:
    """The records of the loaded documents: what a plugin's ``register(registry)`` hook is given.

    Its tables are filled by the hooks it is passed to (:meth:`load`), never by importing a
    module: ``claims`` (id -> Verification), ``spaces`` (id -> :class:`SearchSpec`), ``steps``
    (id -> Step), ``step_text`` (step table -> ids it holds that no step took), ``loaded``
    (module -> entry-point name).

    Parameters
    ----------
    plugin : bounds.plugins.Plugin, optional
        The plugin whose package a relative :meth:`include` is taken in.
    """

    def __init__(self, plugin: Plugin | None = None):
        self.plugin = plugin
        self.claims: dict = {}
        self.spaces: dict = {}
        self.steps: dict = {}
        self.step_text: dict = {}
        self.loaded: dict[str, str] = {}

    def _for(self, plugin: Plugin | None) -> Registry:
        """Return the same tables, with ``plugin`` for relative includes (what a hook is given)."""
        handle = copy.copy(self)
        handle.plugin = plugin
        return handle

    @contextmanager
    def _in_force(self) -> Iterator[Registry]:
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    # ------------------------------------------------------------------ adding records
    def add(self, verification: Verification) -> Verification:
        """Register a :class:`verify.model.Verification` under its claim id.

        Parameters
        ----------
        verification : verify.model.Verification
            The claim's verification.

        Returns
        -------
        verify.model.Verification
            ``verification`` itself.
        """
        self.claims[verification.claim] = verification
        return verification

    def add_step(self, step) -> None:
        """Register a proof step (:class:`verify.audit.engine.Step`).

        Raises
        ------
        ValueError
            Another step of the same id is registered.
        """
        old = self.steps.get(step.id)
        if old is not None and old is not step:
            raise ValueError(f"duplicate step {step.id}")
        self.steps[step.id] = step

    def search_space(self, claim_id: str, space: str, factory) -> None:
        """Register ``claim_id``'s search space.

        As ``@verify.searching.spaces.spec(claim_id, space)`` does.

        ``factory() -> (strategy, evaluate)``; ``space`` describes it in one line.

        Parameters
        ----------
        claim_id : str
            The claim's id.
        space : str
            The space in one line.
        factory : callable
            ``factory() -> (strategy, evaluate)``: a Hypothesis strategy of instances and the
            function that evaluates one.
        """
        self.spaces[claim_id] = SearchSpec(claim_id, space, factory)

    def record(self, rec: tuple) -> None:
        """Add one declared record ``(kind, value)`` (:func:`declare`)."""
        kind, value = rec
        if kind == "claim":
            self.add(value)
        elif kind == "space":
            self.spaces[value.claim] = value
        elif kind == "step":
            self.add_step(value)
        elif kind == "text":
            path, unused = value
            self.step_text[path] = unused
        else:
            raise ValueError(f"unknown record kind {kind!r}")

    def add_builder(self, claim_id: str, builder) -> None:
        """Make a formula known to :mod:`bounds` (:func:`bounds.add_builder`).

        A document's formulas are normally its ``mcsa_verify.bounds`` module's ``BUILDERS``.

        Parameters
        ----------
        claim_id : str
            The claim's id.
        builder : callable
            ``builder() -> bounds.core.Claim``.
        """
        import bounds

        bounds.add_builder(claim_id, builder)

    def include(self, *modules: str) -> None:
        """Add the records of modules that declare search spaces, proof steps or verifications.

        Each module is imported (once per process) and the records its body declared
        (``@spec``, ``step(...)``, ``register(...)``: its own list, :data:`RECORDS`) are added
        to this registry.  A relative name (``".proofs"``) is taken in the plugin's package.
        The order is the order of registration.

        Parameters
        ----------
        *modules : str
            Module names, absolute or relative to the plugin's package (``".proofs"``).
        """
        package = None
        if self.plugin is not None:
            package = (self.plugin.module if self.plugin.package_dir()
                       else self.plugin.module.rpartition(".")[0])
        for m in modules:
            with self._in_force():
                mod = import_module(m, package if m.startswith(".") else None)
            self._add_records(mod)

    def _add_records(self, mod) -> None:
        for rec in getattr(mod, RECORDS, ()):
            self.record(rec)

    def unregister(self, claim_id: str) -> None:
        """Remove everything registered under ``claim_id`` in this registry.

        Its verification, search space, proof steps, the formula :meth:`add_builder` gave and
        its memoised bound values go (an id not registered is ignored).

        Parameters
        ----------
        claim_id : str
            The claim's id.
        """
        import bounds

        self.claims.pop(claim_id, None)
        self.spaces.pop(claim_id, None)
        for s in [s for s, v in self.steps.items() if v.claim == claim_id]:
            del self.steps[s]
        bounds._ADDED.pop(claim_id, None)
        _clear_memos()

    # ------------------------------------------------------------------ loading
    def load(self, chosen: tuple[Plugin, ...] | None = None) -> Registry:
        """Call each plugin's ``register`` hook with this registry, once per module.

        Parameters
        ----------
        chosen : tuple of bounds.plugins.Plugin, optional
            The plugins to load (default: every installed one).  A broken plugin raises.

        Returns
        -------
        Registry
            ``self``.
        """
        for p in plugins() if chosen is None else chosen:
            # one load per module (two packages may use one entry-point name)
            if p.module in self.loaded:
                continue
            with self._in_force():
                obj, hook = _hook(p)
                if hook is not None:
                    hook(self._for(p))
            if hook is None:  # a plain module: the records its body declared
                self._add_records(obj)
            self.loaded[p.module] = p.name
        return self

    @classmethod
    @contextmanager
    def scoped(cls, plugin: Plugin | None = None) -> Iterator[Registry]:
        """Register for the duration of a ``with`` block only.

        The block works in a copy of the registry in force (:func:`current`), in force inside
        it; on leaving, the registry before is back and a formula :meth:`add_builder` gave is
        removed (an entry it replaced is put back).  No module is unloaded.

        Parameters
        ----------
        plugin : bounds.plugins.Plugin, optional
            The plugin the yielded registry loads (as :meth:`load` passes it).

        Yields
        ------
        Registry
            A registry to register with; what is registered in the block by other means
            (:func:`register`, ``QuickClaim.register()``, ``@spec``) goes to it too.
        """
        import bounds

        base = current()
        reg = cls(plugin)
        reg.claims, reg.spaces = dict(base.claims), dict(base.spaces)
        reg.steps, reg.step_text = dict(base.steps), dict(base.step_text)
        reg.loaded = dict(base.loaded)
        formulas = dict(bounds._ADDED)
        try:
            with reg._in_force():
                yield reg
        finally:
            if bounds._ADDED != formulas:
                bounds._ADDED.clear()
                bounds._ADDED.update(formulas)
            _clear_memos()


def _clear_memos() -> None:
    """Forget the built claims and memoised bound values (a registration changed)."""
    import bounds

    _bound_float.cache_clear()
    bound_enclosure.cache_clear()
    bounds.get.cache_clear()


def _hook(plugin: Plugin):
    """Return ``(module or object, register hook)``: no hook for a plain module (deprecated)."""
    obj = plugin.load()
    if plugin.attr is not None:
        if not callable(obj):
            raise TypeError(
                f"entry point {plugin.name} = {plugin.value}: {plugin.attr} is not callable")
        return obj, obj
    fn = getattr(obj, "register", None)
    # its own hook, not an imported name
    if callable(fn) and getattr(fn, "__module__", None) == obj.__name__:
        return obj, fn
    warnings.warn(
        f"entry point {plugin.name} = {plugin.value} ({plugin.group}) names a module that "
        f"registers on import; name a register(registry) hook instead ({plugin.module}:register); "
        "see docs/own-claim.md", DeprecationWarning, stacklevel=3)
    return obj, None


def build(chosen: tuple[Plugin, ...] | None = None) -> Registry:
    """Build a registry from the chosen plugins (default: every installed one).

    Parameters
    ----------
    chosen : tuple of bounds.plugins.Plugin, optional
        The documents to load, e.g. a test's selection of :func:`plugins`.

    Returns
    -------
    Registry
        A new registry, independent of the process's (:func:`default`).
    """
    return Registry().load(chosen)


@functools.cache
def default() -> Registry:
    """Return the process's registry: every installed plugin loaded, once (:func:`build`)."""
    return build()


def current() -> Registry:
    """Return the registry in force: the one being loaded or a scoped block's, else the default."""
    reg = _CURRENT.get()
    return reg if reg is not None else default()


def load() -> dict[str, str]:
    """Load every plugin of the ``mcsa_verify.claims`` group, once (:func:`current`).

    Each plugin's ``register(registry)`` hook is called, or its module imported (deprecated).

    Returns
    -------
    dict
        ``{entry-point name: module}`` of the plugins loaded.
    """
    return {name: module for module, name in current().loaded.items()}


def verifications() -> dict:
    """``{claim id: Verification}`` of every registered claim."""
    return current().claims


def claim_ids() -> tuple[str, ...]:
    """Ids of every registered claim: the documents' order (:func:`bounds.ids`), then the rest.

    :func:`verify.claims`; the machinery imports it from here (not through the package).

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
    return current().spaces


def proof_steps() -> dict:
    """``{step id: Step}`` of every audited proof."""
    return current().steps
