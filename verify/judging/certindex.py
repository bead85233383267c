"""Where the certificates are: the :class:`Certificate` record and their discovery.

Each registered document package may have a submodule ``certificates`` with
``CERTIFICATES: list[Certificate]`` and optionally ``UNCOVERED: dict[id, reason]``; it is loaded
from its file, without importing the document package.  :mod:`verify.judging.certify` renders and
writes
the scripts; :mod:`verify.judging.severity` asks here which findings have one.  This module imports
neither, so the two can import it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import import_module
from importlib.machinery import PathFinder
from types import ModuleType


@dataclass(frozen=True)
class Certificate:
    """One certificate: a wrong/loose audit step or a violated claim, shown on one instance.

    ``body`` is Python source defining ``def check(INSTANCE) -> tuple[lhs, rhs, violated]``
    plus any helpers, importing only :data:`ALLOWED_IMPORTS`.  It may define a module-level
    ``RELATION = "..."`` (the printed relation and what violates it, e.g.
    ``"Eq. (27) prints lhs <= rhs; violated when lhs > rhs"``), which the script prints.
    """

    id: str                 # the audit step id or claim id it certifies
    title: str              # one line: what is shown
    source: str             # bibliographic reference with section/equation
    # the violating instance (plain JSON-able numbers/lists/strings; fractions as "p/q")
    instance: dict
    # a perturbed instance at which the printed relation HOLDS (the script must exit 1)
    holding: dict
    # Python source of `def check(INSTANCE) -> tuple[lhs, rhs, violated]` plus helpers
    body: str


# ----------------------------------------------------------------------------- discovery
def _module_origin(name: str) -> str | None:
    """The file of module ``name`` found without importing (executing) any of its packages."""
    path = None
    spec = None
    for i, part in enumerate(name.split(".")):
        full = ".".join(name.split(".")[: i + 1])
        loaded = sys.modules.get(full)
        if loaded is not None and getattr(loaded, "__spec__", None) is not None:
            spec = loaded.__spec__
        else:
            spec = PathFinder.find_spec(full, path)
        if spec is None:
            return None
        path = spec.submodule_search_locations
        if path is None and i < len(name.split(".")) - 1:
            return None
    return spec.origin if spec is not None else None


def _load_certificates_module(mod: str):
    """The ``certificates`` module of the document package ``mod``, or None when it has none.

    An ordinary import (a document package's ``__init__`` imports nothing heavy); a package the
    path finder cannot see is asked by importing it.
    """
    name = mod + ".certificates"
    origin = _module_origin(name)
    if (origin is None or not origin.endswith(".py")) and _module_origin(mod) is not None:
        return None  # a package on the file system without a certificates.py
    try:
        return import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            return None
        raise


def modules() -> list[tuple[str, ModuleType]]:
    """``[(document name, certificates module)]`` of every registered document package that has
    one.
    """
    from ..registry import entry_points

    out = []
    for name, mod in entry_points():
        m = _load_certificates_module(mod)
        if m is not None:
            out.append((name, m))
    return out


def certificates() -> dict[str, Certificate]:
    """``{id: Certificate}`` over every registered document package, in entry-point order.
    Two certificates with one id, or a module without a CERTIFICATES list, is an error."""
    out: dict[str, Certificate] = {}
    for name, m in modules():
        certs = getattr(m, "CERTIFICATES", None)
        if not isinstance(certs, (list, tuple)):
            raise TypeError(f"{m.__name__} defines no CERTIFICATES list")
        for c in certs:
            if not isinstance(c, Certificate):
                raise TypeError(
                    f"{m.__name__}.CERTIFICATES holds a {type(c).__name__}, not a Certificate")
            if c.id in out:
                raise ValueError(f"two certificates for {c.id!r} (the second in {m.__name__})")
            out[c.id] = c
    return out


def uncovered() -> dict[str, str]:
    """``{id: reason}``: the UNCOVERED entries of every certificates module."""
    out: dict[str, str] = {}
    for _, m in modules():
        out.update(getattr(m, "UNCOVERED", {}) or {})
    return out


