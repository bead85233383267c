"""Make a machinery module callable, so that the public API's ``verify.search(...)``,
``verify.audit(...)`` and ``verify.report(...)`` keep working once the module of the same
name has been imported (Python then binds ``verify.search`` to the module, replacing the
function of :mod:`verify`).  ``from verify.search import ...`` is unaffected."""

from __future__ import annotations

import sys
import types


def callable_module(name: str, fn) -> None:
    """Calling module ``name`` calls ``fn`` (its docstring is ``fn``'s)."""
    mod = sys.modules[name]

    class _CallableModule(types.ModuleType):
        __call__ = staticmethod(fn)

    mod.__class__ = _CallableModule
