"""Modules imported at their first use, safely from several threads at once.

A document package registers its claims and proof steps at start-up, and most command lines
never run the steps that need scipy.stats, scipy.optimize or scipy.integrate (about 1 s of CPU
to import together).  ``stats = lazy_module("scipy.stats")`` at the top of a module binds a
stand-in whose first attribute access (``stats.norm``) imports the module and copies its
namespace into the stand-in; later accesses are plain lookups.

Why not the standard library's :class:`importlib.util.LazyLoader`: on Python 3.11 its first
attribute access has no lock, and threads that touch one lazy module at the same time see it
half-executed (``AttributeError: module 'scipy.stats' has no attribute 'norm'`` in 13 of 16
threads here; CPython added the lock in 3.12).  The stand-in leaves the import itself to
:func:`importlib.import_module`, whose per-module lock makes every other thread wait until the
module is complete, and it never enters ``sys.modules``: ``import scipy.stats`` elsewhere
gets the real module.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType


class _Deferred(ModuleType):
    """A stand-in for a module that is imported when one of its attributes is first read."""

    def __getattr__(self, attr: str):
        # called only for names the stand-in does not hold yet, i.e. before the first import
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)

    def __dir__(self):
        return dir(importlib.import_module(self.__name__))


def lazy_module(name: str) -> ModuleType:
    """Return module ``name``: the module itself when it is loaded, else a stand-in that
    imports it at its first attribute access (thread-safe).

    Parameters
    ----------
    name : str
        A dotted module name, e.g. ``"scipy.stats"``.

    Returns
    -------
    types.ModuleType
        The module, or a stand-in whose attributes are the module's.

    Raises
    ------
    ModuleNotFoundError
        When no module of that name is installed (found now, not at first use).
    """
    if name in sys.modules:
        return sys.modules[name]
    if importlib.util.find_spec(name) is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return _Deferred(name)
