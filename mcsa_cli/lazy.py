"""Modules loaded at their first use (the standard library's :class:`importlib.util.LazyLoader`).

A document package registers its claims and proof steps at start-up, and most command lines
never run the steps that need scipy.stats, scipy.optimize or scipy.integrate (about 1 s of CPU
to import together).  ``stats = lazy_module("scipy.stats")`` at the top of a module binds a
module object whose code runs at the first attribute access (``stats.norm``); everything after
that is the module itself.  The recipe is the one the Python documentation gives for
``LazyLoader`` ("Implementing lazy imports", importlib).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

_LOCK = threading.Lock()


def lazy_module(name: str) -> ModuleType:
    """Return module ``name``, imported now if it is already loaded, else at its first use.

    Parameters
    ----------
    name : str
        A dotted module name, e.g. ``"scipy.stats"``.

    Returns
    -------
    types.ModuleType
        The module, or a lazy module that loads itself at its first attribute access.

    Raises
    ------
    ModuleNotFoundError
        When no module of that name is installed (found now, not at first use).
    """
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loader.exec_module(module)
        return module
