"""A checked cache of the expensive sympy derivations, and of the claim catalog.

Building the claims runs sympy ``integrate``, ``Sum.doit``, ``simplify``, ``solve`` and
series expansions (several seconds).  Their results are kept in ``bounds/_derived.json``
(pickled, with a short printed form next to each) and read back at build time:

* :func:`memo` wraps a function; its results are looked up by a key made from the
  function's name, the digest of its code (and of the sympy objects among its globals),
  the :func:`sympy.srepr` of its arguments, and the sympy version.  Changing a
  derivation's input or code changes the key: a stale entry is never used, the result is
  derived afresh.  :func:`integrate`, :func:`simplify` and :func:`solve` are the memoised
  sympy functions used by the claim modules.
* :func:`catalog` gives the claims' metadata (ids, titles, sources, assumptions,
  quantities, parameters, and the ``bounds show`` description) without importing sympy,
  when the sha256 digests of the files it was generated from still match; otherwise
  ``None`` and the callers build the claims.

Regenerate both (after editing a claim module)::

    python -m bounds cache --write

``python -m bounds cache --check`` re-derives everything with the cache switched off and
exits 1 when a cached entry differs from the fresh derivation, is missing or unused, or
the catalog is out of date; ``tests/test_startup.py`` runs it.  Setting the environment
variable ``MCSA_DERIVE_CACHE=off`` switches the cache off for a process.

This module is a leaf: it imports nothing from :mod:`bounds` but the standard-library
:mod:`bounds.plugins` (sympy only when a derivation runs), so the claim modules,
:mod:`bounds.numerics` and the package can all use it without an import cycle.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import pickle
import types
from contextvars import ContextVar
from pathlib import Path

PATH = Path(__file__).with_name("_derived.json")  # package data, beside this module in a wheel too
HERE = Path(__file__).resolve().parent

#: files of this package whose content the catalog depends on, besides the claim modules (the
#: registered ``mcsa_verify.bounds`` entry points, bounds.plugins; digested by module name)
CATALOG_INPUTS = ("__init__.py", "core.py", "symbols.py", "series.py", "derive.py", "cli.py")

#: whether the stored derivations are read (``MCSA_DERIVE_CACHE=off``, :func:`set_enabled`)
_ENABLED: ContextVar[bool] = ContextVar(
    "mcsa_derive_cache",
    default=os.environ.get("MCSA_DERIVE_CACHE", "on").lower() not in ("off", "0", "no"))
#: every derivation made or read in this process (the memo): key -> (label, result)
_used: dict[str, tuple[str, object]] = {}


@functools.cache
def _load() -> dict:
    """Return the content of ``_derived.json``, read once (:func:`store` forgets it)."""
    try:
        return json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


# ----------------------------------------------------------------------------- keys
def _code_digest(code: types.CodeType, h) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_digest(c, h)
        else:
            h.update(repr(c).encode())


@functools.lru_cache(maxsize=None)
def _printer():
    """The printer of :func:`_srepr` (built once: sympy is imported on first use only)."""
    from sympy.printing.repr import ReprPrinter

    class _Printer(ReprPrinter):
        def _print_Symbol(self, expr):
            d = dict(sorted(expr.assumptions0.items()))
            if expr.is_Dummy:
                d["dummy_index"] = expr.dummy_index
            attr = ", ".join(f"{k}={v}" for k, v in d.items())
            tail = ", " + attr if attr else ""
            return f"{expr.__class__.__name__}({self._print(expr.name)}{tail})"

    return _Printer()


def _srepr(obj) -> str:
    """``sympy.srepr`` with every symbol printed by its full assumptions (``assumptions0``, sorted),
    not by the keywords it was created with.  Symbols that compare equal (``n`` created with
    ``integer=True`` and with ``real=True, integer=True``) are one symbol to sympy, and which of
    the two instances an expression holds depends on sympy's cache, i.e. on what the process
    built before; plain srepr made the derivation keys depend on that history (``verify lemma5``
    alone missed the cache that ``bounds cache --write`` had filled)."""
    return _printer().doprint(obj)


def _key(label: str, fn, args, kwargs) -> str:
    import sympy as sp

    h = hashlib.sha256()
    h.update(f"{label}\nsympy {sp.__version__}\n".encode())
    code = getattr(fn, "__code__", None)
    if code is not None:  # our own derivation: its code and the sympy objects it reads
        _code_digest(code, h)
        glb = getattr(fn, "__globals__", {})
        for name in sorted(set(code.co_names)):
            v = glb.get(name)
            if isinstance(v, sp.Basic):
                h.update(f"{name}={_srepr(v)}".encode())
    h.update(_srepr(tuple(args)).encode())
    h.update(repr(sorted((k, _srepr(v)) for k, v in kwargs.items())).encode())
    return h.hexdigest()[:32]


def decode(text: str):
    """A derivation's result from :func:`encode`'s text (a pickle: it keeps the exact tree,
    unevaluated nodes included, which re-parsing a printed form would not)."""
    return pickle.loads(base64.b64decode(text))  # noqa: S301 -- our own generated file


def encode(obj) -> str:
    return base64.b64encode(pickle.dumps(obj, protocol=4)).decode("ascii")


def describe(obj) -> str:
    """A short human-readable form of a result, kept next to it in the file."""
    import sympy as sp

    text = obj if isinstance(obj, str) else sp.sstr(obj)
    return text if len(text) <= 160 else text[:157] + "..."


# ----------------------------------------------------------------------------- memo
def memo(fn=None, *, label: str | None = None):
    """Decorator: cache ``fn``'s (sympy) result in ``bounds/_derived.json``."""
    if fn is None:
        return functools.partial(memo, label=label)
    name = label or f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = _key(name, fn, args, kwargs)
        if key in _used:
            return _used[key][1]
        if _ENABLED.get():
            entry = _load().get("entries", {}).get(key)
            if entry is not None:
                try:
                    res = decode(entry["result"])
                except Exception:  # noqa: BLE001 -- an unreadable entry is re-derived
                    res = None
                else:
                    _used[key] = (name, res)
                    return res
        res = fn(*args, **kwargs)
        _used[key] = (name, res)
        return res

    # a function attribute: the derivation without the cache
    wrapper.uncached = fn  # type: ignore[attr-defined]
    return wrapper


def _sympy(name: str):
    def call(*args, **kwargs):
        import sympy as sp

        return getattr(sp, name)(*args, **kwargs)

    call.__qualname__ = name
    # key on the sympy function's name and the sympy version, not on this wrapper's code
    wrapped = memo(label=f"sympy.{name}")(lambda *a, **k: call(*a, **k))
    wrapped.__doc__ = f"``sympy.{name}`` through the derivation cache."
    return wrapped


integrate = _sympy("integrate")
simplify = _sympy("simplify")
solve = _sympy("solve")


# ----------------------------------------------------------------------------- catalog
def _digest(path: Path) -> str:
    from mcsa_cli.store import digest

    return digest(path.read_bytes())[:32]


def source_digests() -> dict[str, str]:
    """``{file name: digest}`` of :data:`CATALOG_INPUTS` (this package's machinery)."""
    return {n: _digest(HERE / n) for n in CATALOG_INPUTS if (HERE / n).exists()}


def module_digests() -> dict[str, str]:
    """``{module: digest of its file}`` of every registered claim module (entry-point group
    ``mcsa_verify.bounds``, found by :func:`bounds.plugins.discover` without importing them)."""
    from .plugins import BOUNDS_GROUP, discover

    out = {}
    for p in discover(BOUNDS_GROUP):
        f = p.source_file()
        if f is not None and f.is_file():
            out[p.module] = _digest(f)
    return out


@functools.lru_cache(maxsize=1)
def _catalog_cached():
    """The stored catalog when current: the machinery's files unchanged, and every claim module it
    was written from still registered and unchanged (modules registered since are not in it)."""
    if not _ENABLED.get():
        return None
    cat = _load().get("catalog")
    if (not cat or cat.get("sources") != source_digests()
        or not isinstance(cat.get("modules"), dict)):
        return None
    now = module_digests()
    if any(now.get(m) != d for m, d in cat["modules"].items()):
        return None
    return cat


def catalogued_modules() -> frozenset[str]:
    """The claim modules the current catalog holds the claims of (empty when it is not current)."""
    cat = _catalog_cached()
    return frozenset() if cat is None else frozenset(cat["modules"])


def catalog() -> dict | None:
    """``{claim id: record}`` (see :func:`claim_record`) when current, else None."""
    cat = _catalog_cached()
    return None if cat is None else cat["claims"]


def catalog_assumptions() -> dict | None:
    cat = _catalog_cached()
    return None if cat is None else cat["assumptions"]


def set_enabled(on: bool) -> None:
    """Switch reading the cache on or off (off: every derivation runs afresh)."""
    _ENABLED.set(bool(on))
    _used.clear()
    _catalog_cached.cache_clear()


def used() -> dict[str, tuple[str, object]]:
    """Every derivation made or read in this process: ``{key: (label, result)}``."""
    return dict(_used)


def stored() -> dict:
    """The content of ``_derived.json`` (empty when missing or unreadable)."""
    return _load()


def sympy_version() -> str:
    import sympy as sp

    return sp.__version__


def store(entries: dict, catalog_: dict) -> None:
    """Write ``_derived.json`` (strict JSON, atomically) and forget the catalog read before.

    Parameters
    ----------
    entries : dict
        The derivations, by key.
    catalog_ : dict
        The claim catalog (``sources``, ``modules``, ``claims``, ``assumptions``).
    """
    data = {
        "about": "generated by `python -m bounds cache --write`; checked by tests/test_startup.py",
        "sympy": sympy_version(), "entries": entries, "catalog": catalog_}
    from mcsa_cli import atomic_write, dumps

    atomic_write(PATH, dumps(data, nonfinite="refuse", indent=0, ensure_ascii=False) + "\n")
    _load.cache_clear()
    _catalog_cached.cache_clear()
