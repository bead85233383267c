"""Where each document package's recorded results live: the one store.

A document's recorded results are its claims' final statuses (``verdicts.json``, written by
``python -m verify all --quick --write``) and its proof audit (``audit.json``, written by
``python -m verify audit --write``).  Each document package (an entry point of the group
``mcsa_verify.claims``, :mod:`bounds.plugins`) owns its own, and they live:

* for the built-in documents (``verify.documents.*``): in ``verify/data/`` of the toolkit's
  source checkout, as before (one file for all of them; an installed toolkit ships them and
  never writes them again);
* for a document package that is a source checkout (its directory writable, beside a
  ``pyproject.toml``, ``setup.py`` or ``setup.cfg``, and not inside ``site-packages`` or
  ``dist-packages``): in the package's own directory, beside its ``coverage.json``;
* otherwise: in ``platformdirs.user_data_dir("mcsa-verify")/<entry-point name>/``.

The environment variable ``MCSA_VERIFY_DATA_DIR`` overrides all three: every document, the
built-in ones included, is then recorded in ``$MCSA_VERIFY_DATA_DIR/<entry-point name>/`` (and
read from there first).

:func:`read` merges every document's record: the toolkit's packaged files
(:mod:`verify.running.resources`) first, then each package's own record over them.  Nothing is ever
written into the toolkit's installed files, nor into an installed package.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: the environment variable naming the directory that every document's results go to
ENV = "MCSA_VERIFY_DATA_DIR"
#: the two recorded documents (their names in every store)
VERDICTS = "verdicts.json"
AUDIT = "audit.json"
_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def builtin(plugin) -> bool:
    """Whether ``plugin`` (a :class:`bounds.plugins.Plugin`) is one of the toolkit's documents."""
    return plugin.module == "verify" or plugin.module.startswith("verify.")


def user_dir() -> Path:
    """The user's data directory for recorded results: ``$MCSA_VERIFY_DATA_DIR`` when set, else
    ``platformdirs.user_data_dir("mcsa-verify")``."""
    v = os.environ.get(ENV, "")
    if v:
        return Path(v)
    import platformdirs

    return Path(platformdirs.user_data_dir("mcsa-verify"))


def source_checkout(directory: Path) -> bool:
    """Whether a package directory is part of a writable source checkout (an editable install or
    a tree on the path), not an installed copy (``site-packages``, ``dist-packages``)."""
    d = directory.resolve()
    if {"site-packages", "dist-packages"} & set(d.parts) or not os.access(d, os.W_OK):
        return False
    return any((p / m).is_file() for p in (d, *list(d.parents)[:3]) for m in _MARKERS)


def location(plugin) -> Path | None:
    """The directory ``plugin``'s results are recorded in (see the module's docstring).

    None for a built-in document of an installed toolkit: its results ship with the toolkit
    and are not recorded again.
    """
    if os.environ.get(ENV, ""):
        return user_dir() / plugin.name
    if builtin(plugin):
        from .resources import checkout_root

        root = checkout_root()
        return None if root is None else root / "verify" / "data"
    d = plugin.package_dir()
    if d is not None and source_checkout(d):
        return d
    return user_dir() / plugin.name


def _sources(plugin) -> list[Path]:
    """Where ``plugin``'s record is read from, the first found: where it is recorded, then (a
    user's package) the copy its package ships."""
    out = []
    loc = location(plugin)
    if loc is not None:
        out.append(loc)
    if not builtin(plugin):
        d = plugin.package_dir()
        if d is not None:
            out.append(d)
    return out


def _read(f: Path) -> dict | None:
    try:
        d = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def _merge(base: dict, rec: dict) -> None:
    for k, v in rec.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            base[k] = {**base[k], **v}
        elif k not in base:
            base[k] = v


def read(name: str) -> dict:
    """Every document's recorded ``name`` (:data:`VERDICTS` or :data:`AUDIT`), merged.

    The toolkit's packaged copy (the built-in documents) comes first; each document package's
    record is laid over it, key by key (its claims, its steps).  ``{}`` when none is readable.
    """
    from ..registry import plugins
    from .resources import checkout_root, read_json

    base = read_json(name)
    root = checkout_root()
    packaged = (root / "verify" / "data" / name).resolve() if root is not None else None
    for p in plugins():
        for d in _sources(p):
            f = d / name
            if packaged is not None and f.resolve() == packaged:
                break  # the toolkit's own file: the base already
            rec = _read(f)
            if rec is not None:
                _merge(base, rec)
                break
    return base


def owner(claim_id: str):
    """The document package (:class:`bounds.plugins.Plugin`) that registers ``claim_id``: the one
    whose package holds the module of its verification (or of its audited steps, for a claim
    with a proof only), else the one whose document key
    (``coverage_sections.json``) is the claim's source; None when none does (a claim registered
    by a script)."""
    from ..registry import document_of, plugins, proof_steps, verifications

    v = verifications().get(claim_id)
    # the module of its verification, else of its audited steps (a claim with a proof only)
    fns = [getattr(v, "run", None)] if v is not None else [
        s.check for s in proof_steps().values() if s.claim == claim_id]
    mods = [getattr(getattr(f, "func", f), "__module__", "") or "" for f in fns]
    plugs = plugins()
    for p in plugs:
        pkg = p.module if p.package_dir() is not None else p.module.rpartition(".")[0]
        if pkg and any(m == pkg or m.startswith(pkg + ".") for m in mods):
            return p
    try:
        import bounds

        seed = bounds.get(claim_id).source.seed
    except Exception:  # noqa: BLE001 - no formula: no document to match
        return None
    return next((p for p in plugs if document_of(p) == seed), None)


def plan(claim_ids) -> tuple[dict[Path, list[str]], list[str]]:
    """Group claims by the directory their results are recorded in.

    Returns ``({directory: [claim ids]}, [claim ids recorded nowhere])``: the latter are the
    built-in documents' claims of an installed toolkit and claims that no package registers.
    """
    groups: dict[Path, list[str]] = {}
    nowhere = []
    for cid in claim_ids:
        p = owner(cid)
        loc = location(p) if p is not None else None
        if loc is None:
            nowhere.append(cid)
        else:
            groups.setdefault(loc, []).append(cid)
    return groups, nowhere


def write(directory: Path, name: str, doc: dict) -> Path:
    """Record ``doc`` as ``directory/name`` (atomically; the directory is made)."""
    from mcsa_cli import atomic_write, dumps

    directory.mkdir(parents=True, exist_ok=True)
    f = directory / name
    atomic_write(f, dumps(doc, indent=1) + "\n")
    return f
