"""Data the installed package reads at run time, and where ``--write`` may write it.

Everything a command reads at run time lives inside the package, under ``verify/data/``,
and is read with :mod:`importlib.resources`, so a wheel installed anywhere gives the same
answers as a checkout:

``verdicts.json``
    the final status of every claim from a ``--quick`` run (``python -m verify all --quick
    --write``);
``audit.json``
    the proof audit's step statuses and evidence (``python -m verify audit --write``);
``figures/<claim>.json``, ``figures/<claim>.png``
    the stored reproductions of a document's experiments at the paper's settings
    (``python -m verify.running.reproductions``).

Generated files are written back into the source tree only from a checkout (a source tree
with ``pyproject.toml`` and the packages beside it); from an installed package
:func:`writable` refuses with one line (exit 2), instead of writing into site-packages.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

DATA = "verify.data"


def data(name: str):
    """A packaged data file (a :class:`importlib.resources.abc.Traversable`)."""
    node = resources.files(DATA)
    for part in name.split("/"):
        node = node / part
    return node


def read_json(name: str) -> dict:
    """A packaged JSON document; ``{}`` when it is missing or unreadable."""
    try:
        out = json.loads(data(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return out if isinstance(out, dict) else {}


def read_bytes(name: str) -> bytes | None:
    try:
        return data(name).read_bytes()
    except OSError:
        return None


def checkout_root() -> Path | None:
    """The root of the source checkout this package runs from, or None when installed."""
    root = Path(__file__).resolve().parents[2]
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    if 'name = "mcsa-verify"' not in text or not (root / "verify" / "data").is_dir():
        return None
    return root


def writable(rel: str, flag: str = "--write") -> Path:
    """The path of ``rel`` (relative to the checkout root) for a generated file.

    Raises :class:`mcsa_cli.UsageError` (one line, exit 2) from an installed package."""
    root = checkout_root()
    if root is None:
        from mcsa_cli import UsageError

        raise UsageError(
            f"{flag}: generated files are written into a source checkout only; this is an "
            f"installed package (clone the repository and install it with `pip install -e .`)")
    return root / rel


def data_file(name: str, flag: str = "--write") -> Path:
    """The checkout path of the packaged data file ``name`` (for ``--write``)."""
    return writable(f"verify/data/{name}", flag)


def cache_dir() -> str | None:
    """The claim cache directory (``$MCSA_CACHE``, default ``~/.cache/mcsa-verify/claims``), or None
    when switched off (``MCSA_CACHE=off``); the audit keeps its outcomes beside it (``audit/``)."""
    v = os.environ.get("MCSA_CACHE", "")
    if v.lower() in ("off", "0", "no", "none"):
        return None
    if v:
        return v
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mcsa-verify", "claims")
