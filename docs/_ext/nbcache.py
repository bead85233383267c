"""Where executed notebooks are kept, so that each notebook runs once for the tests and the docs.

``tests/test_notebooks.py`` executes every notebook (and checks what it shows); the docs build
(``docs/conf.py``, myst-nb with ``nb_execution_mode = "cache"``) reads the same executions from a
jupyter-cache store instead of running the notebooks again.  A notebook that is not in the store
(for example when the docs are built without running the tests first) is executed by the build.

The store is keyed twice: jupyter-cache matches a notebook by a hash of its code cells and
kernel spec, and the directory below is named by a digest of the code every notebook imports
(the ``bounds``, ``simulate`` and ``verify`` sources and package data, and the versions of the
numerical libraries).  So an output computed by older code is never shown: changing any module
changes the directory, and the notebooks run again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("bounds", "simulate", "verify")
LIBRARIES = ("numpy", "scipy", "sympy", "mpmath", "matplotlib", "ipywidgets")
SUFFIXES = (".py", ".json", ".j2", ".css")


def code_digest(root: pathlib.Path = ROOT) -> str:
    """sha256 over the packages' sources and data files and the libraries' versions."""
    h = hashlib.sha256()
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*")):
            if p.suffix in SUFFIXES and p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    for lib in LIBRARIES:
        try:
            version = importlib.metadata.version(lib)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{lib} {version}\n".encode())
    return h.hexdigest()


def cache_path(root: pathlib.Path = ROOT) -> pathlib.Path:
    """The jupyter-cache directory for the current code: ``.jupyter_cache/<digest>``."""
    return root / ".jupyter_cache" / code_digest(root)[:16]
