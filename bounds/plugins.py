"""Plugin discovery: the one place where documents, built-in or a user's, are found.

A document reaches the toolkit through entry points and nothing else (docs/own-claim.md,
docs/design.md §2)::

    # the formulas: a module with BUILDERS = {id: builder}
    [project.entry-points."mcsa_verify.bounds"]
    my_doc = "my_package.formulas"

    [project.entry-points."mcsa_verify.claims"]   # the rest: a register(registry) hook
    my_doc = "my_package:register"

This package's own documents are declared in its ``pyproject.toml`` in exactly this way and
are found here only through their entry points: installed metadata (``pip install`` or
``pip install -e``), or, for a source tree that is on the path but not installed, the
entry-point table of the ``pyproject.toml`` beside it.

:func:`discover` lists a group's entry points without importing them; :meth:`Plugin.data_file`
finds a data file (``coverage.json``, ``severity.json``, ...) that a document package carries,
still without importing it.  Standard library only, and nothing from :mod:`bounds`: the
derivation cache (:mod:`bounds.derive`) and the layer :mod:`verify` use it alike.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from importlib import import_module, metadata
from pathlib import Path

#: the entry-point groups (pyproject.toml): the formulas, and everything else a document carries
BOUNDS_GROUP = "mcsa_verify.bounds"
CLAIMS_GROUP = "mcsa_verify.claims"
GROUPS = (BOUNDS_GROUP, CLAIMS_GROUP)


@dataclass(frozen=True)
class Plugin:
    """One entry point of a group: ``name = module`` or ``name = module:attr``.

    Parameters
    ----------
    name : str
        The entry point's name (the left side of ``name = value``).
    group : str
        Its group (``"mcsa_verify.bounds"`` or ``"mcsa_verify.claims"``).
    value : str
        What it points at: ``module`` or ``module:attr``.
    dist : str, default ""
        The distribution that declares it ("" when unknown).
    """

    name: str
    group: str
    value: str
    dist: str = ""  # the distribution that declares it ("" when unknown)

    @property
    def module(self) -> str:
        """The module the entry point names (before the colon of ``pkg.mod:register``)."""
        return self.value.split(":")[0].strip()

    @property
    def attr(self) -> str | None:
        """The attribute after the colon (``register`` in ``pkg:register``), or None."""
        _, sep, attr = self.value.partition(":")
        return (attr.strip() or None) if sep else None

    def load(self):
        """Import the module and return it.

        When the entry point names an attribute, return that attribute instead.

        Returns
        -------
        module or object
            The module, or the attribute the entry point names.
        """
        mod = import_module(self.module)
        obj = mod
        for part in (self.attr or "").split("."):
            if part:
                obj = getattr(obj, part)
        return obj

    def package_dir(self) -> Path | None:
        """Find the directory of the plugin's package without importing it.

        Its parent packages are imported.  None for a plain module, which carries no data files.

        Returns
        -------
        pathlib.Path or None
            The package's directory.
        """
        from importlib.util import find_spec

        try:
            spec = find_spec(self.module)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations)))

    def data_file(self, filename: str) -> Path | None:
        """Find a data file the plugin's package carries (``coverage.json``, ``severity.json``).

        Returns None when the package has no such file, or the plugin is a plain module.

        Parameters
        ----------
        filename : str
            The file's name in the package's directory.

        Returns
        -------
        pathlib.Path or None
            The file.
        """
        d = self.package_dir()
        f = None if d is None else d / filename
        return f if f is not None and f.is_file() else None

    def source_file(self) -> Path | None:
        """Find the file of the plugin's module (a package's ``__init__.py``), not importing it.

        Returns
        -------
        pathlib.Path or None
            The module's file; None when it cannot be found or is built in.
        """
        from importlib.util import find_spec

        try:
            spec = find_spec(self.module)
        except (ImportError, ValueError):
            return None
        origin = getattr(spec, "origin", None)
        return Path(origin) if origin and origin not in ("built-in", "frozen") else None


@functools.lru_cache(maxsize=1)
def _source_tree() -> tuple[str, tuple[tuple[str, str, str], ...]] | None:
    """Read the entry points of the source tree this module was imported from.

    Returns ``(distribution, ((group, name, value), ...))`` from its ``pyproject.toml`` when that
    distribution is not installed; else None.
    """
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        import tomllib

        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    project = data.get("project") or {}
    name = project.get("name")
    if not name:
        return None
    try:
        metadata.distribution(name)
        return None  # installed: its metadata holds the entry points
    except metadata.PackageNotFoundError:
        pass
    table = project.get("entry-points") or {}
    return name, tuple((g, n, v) for g in GROUPS for n, v in (table.get(g) or {}).items())


#: the environment variable that selects the documents: ``builtin`` loads only the toolkit's own
#: (its packages :data:`TOOLKIT_PACKAGES`), whatever else is installed; unset, every installed one
DOCUMENTS_ENV = "MCSA_VERIFY_DOCUMENTS"
#: the packages of the toolkit itself, whose entry points are the built-in documents
TOOLKIT_PACKAGES = ("bounds", "verify")


def discover(group: str) -> tuple[Plugin, ...]:
    """List the entry points of ``group`` without importing them.

    With ``MCSA_VERIFY_DOCUMENTS=builtin`` in the environment only the toolkit's own documents
    are listed (the test suite sets it, so that its checks of the built-in documents hold
    whatever a user has installed; a plugin's tests load their own).

    Installed distributions' come first (in the order :func:`importlib.metadata.entry_points`
    gives), then those of an uninstalled source tree's ``pyproject.toml``.  A module named twice
    is listed once (its first entry).

    Every caller that needs documents goes through here: :mod:`bounds` (formulas), the
    derivation cache's digests, :mod:`verify.registry` (verifications, spaces, steps),
    :mod:`verify.judging.coverage` and :mod:`verify.judging.severity` (data files),
    :mod:`verify.judging.certify`.

    Parameters
    ----------
    group : str
        The entry-point group (:data:`BOUNDS_GROUP` or :data:`CLAIMS_GROUP`).

    Returns
    -------
    tuple of Plugin
        The group's entry points, each module once.
    """
    found = [Plugin(e.name, group, e.value, getattr(getattr(e, "dist", None), "name", "") or "")
             for e in metadata.entry_points(group=group)]
    tree = _source_tree()
    if tree is not None:
        dist, eps = tree
        found += [Plugin(n, g, v, dist) for g, n, v in eps if g == group]
    if os.environ.get(DOCUMENTS_ENV, "").strip() == "builtin":
        found = [p for p in found if p.module.split(".")[0] in TOOLKIT_PACKAGES]
    seen: set[str] = set()
    out = []
    for p in found:
        if p.module not in seen:
            seen.add(p.module)
            out.append(p)
    return tuple(out)
