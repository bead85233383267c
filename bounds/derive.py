"""A checked cache of the expensive sympy derivations, and of the claim catalog.

Building the claims runs sympy ``integrate``, ``Sum.doit``, ``simplify``, ``solve`` and
series expansions (several seconds).  Their results are kept in ``bounds/_derived.json``
as :func:`sympy.srepr` strings and read back at build time:

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

    python -m bounds.derive --write

``python -m bounds.derive --check`` re-derives everything with the cache switched off and
exits 1 when a cached entry differs from the fresh derivation, is missing or unused, or
the catalog is out of date; ``tests/test_startup.py`` runs it.  Setting the environment
variable ``MCSA_DERIVE_CACHE=off`` switches the cache off for a process.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import types
from pathlib import Path

PATH = Path(__file__).with_name("_derived.json")
HERE = Path(__file__).resolve().parent

#: files whose content the catalog depends on (besides the claim modules of bounds.MODULES)
CATALOG_INPUTS = ("__init__.py", "core.py", "symbols.py", "series.py", "derive.py", "cli.py")

_enabled = os.environ.get("MCSA_DERIVE_CACHE", "on").lower() not in ("off", "0", "no")
_data: dict | None = None
#: every derivation made or read in this process: key -> (label, result)
_used: dict[str, tuple[str, object]] = {}


def _load() -> dict:
    global _data
    if _data is None:
        try:
            _data = json.loads(PATH.read_text())
        except (OSError, ValueError):
            _data = {}
    return _data


# ----------------------------------------------------------------------------- keys
def _code_digest(code: types.CodeType, h) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_digest(c, h)
        else:
            h.update(repr(c).encode())


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
                h.update(f"{name}={sp.srepr(v)}".encode())
    h.update(sp.srepr(tuple(args)).encode())
    h.update(repr(sorted((k, sp.srepr(v)) for k, v in kwargs.items())).encode())
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def _namespace() -> dict:
    import sympy as sp

    ns = dict(vars(sp))
    ns.update({"Integer": sp.Integer, "Rational": sp.Rational, "Float": sp.Float})
    return ns


def decode(text: str):
    """A sympy object (or list/tuple of them) from its :func:`sympy.srepr` string."""
    return eval(text, _namespace())  # noqa: S307 -- our own generated file, srepr output only


def encode(obj) -> str:
    import sympy as sp

    return sp.srepr(obj)


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
        if _enabled:
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

    wrapper.uncached = fn
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
def _source_digests() -> dict[str, str]:
    from . import MODULES

    names = [f"{m}.py" for m in MODULES] + list(CATALOG_INPUTS)
    out = {}
    for n in names:
        p = HERE / n
        if p.exists():
            out[n] = hashlib.sha256(p.read_bytes()).hexdigest()[:32]
    return out


@functools.lru_cache(maxsize=1)
def _catalog_cached():
    if not _enabled:
        return None
    cat = _load().get("catalog")
    if not cat or cat.get("sources") != _source_digests():
        return None
    return cat


def catalog() -> dict | None:
    """``{claim id: record}`` (see :func:`claim_record`) when current, else None."""
    cat = _catalog_cached()
    return None if cat is None else cat["claims"]


def catalog_assumptions() -> dict | None:
    cat = _catalog_cached()
    return None if cat is None else cat["assumptions"]


def claim_record(c) -> dict:
    """What ``bounds list``, ``bounds show`` and ``verify list`` need to know of a claim."""
    from .cli import claim_description

    return {
        "id": c.id, "title": c.title, "source": str(c.source), "seed": c.source.seed, "kind": c.kind,
        "assumptions": list(c.assumptions),
        "quantities": {q.name: list(q.form_names) for q in c.quantities},
        "params": [p.flag for p in c.params],
        "show": claim_description(c, latex=False),
        "show_latex": claim_description(c, latex=True),
    }


# ----------------------------------------------------------------------------- regenerate / check
def _fresh():
    """Build every claim with the cache off; return (entries, catalog)."""
    global _enabled
    _enabled = False
    _used.clear()
    import bounds
    from .core import ASSUMPTIONS

    bounds.get.cache_clear()
    claims = [bounds.get(i) for i in bounds._builders()]
    entries = {k: {"op": label, "result": encode(res)} for k, (label, res) in sorted(_used.items())}
    cat = {"sources": _source_digests(), "assumptions": dict(ASSUMPTIONS),
           "claims": {c.id: claim_record(c) for c in claims}}
    return entries, cat, {k: res for k, (_, res) in _used.items()}


def check() -> list[str]:
    """Differences between ``_derived.json`` and a fresh derivation (empty when current)."""
    entries, cat, results = _fresh()
    data = _load()
    have = data.get("entries", {})
    problems = []
    if data.get("sympy") != _sympy_version():
        problems.append(f"written with sympy {data.get('sympy')}, running {_sympy_version()}")
    for k, e in entries.items():
        if k not in have:
            problems.append(f"missing: {e['op']} ({k})")
            continue
        try:
            cached = decode(have[k]["result"])
        except Exception as ex:  # noqa: BLE001
            problems.append(f"unreadable: {e['op']} ({k}): {ex}")
            continue
        if cached != results[k]:
            problems.append(f"differs from a fresh derivation: {e['op']} ({k})")
    for k in sorted(set(have) - set(entries)):
        problems.append(f"unused entry: {have[k].get('op')} ({k})")
    old = data.get("catalog") or {}
    if old.get("sources") != cat["sources"]:
        problems.append("catalog: generated from other versions of "
                        + ", ".join(sorted(n for n in cat["sources"] if old.get("sources", {}).get(n) != cat["sources"][n])))
    elif json.loads(json.dumps(cat)) != old:
        problems.append("catalog: differs from the claims as built now")
    return problems


def _sympy_version() -> str:
    import sympy as sp

    return sp.__version__


def write() -> int:
    entries, cat, _ = _fresh()
    data = {"about": "generated by `python -m bounds.derive --write`; checked by tests/test_startup.py",
            "sympy": _sympy_version(), "entries": entries, "catalog": cat}
    PATH.write_text(json.dumps(data, indent=0, sort_keys=False, ensure_ascii=False) + "\n")
    return len(entries)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m bounds.derive", description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="re-derive everything and write bounds/_derived.json")
    g.add_argument("--check", action="store_true", help="exit 1 unless bounds/_derived.json equals a fresh derivation")
    a = ap.parse_args(argv)
    if a.write:
        n = write()
        print(f"wrote {PATH} ({n} derivations, catalog of the claims)")
        return 0
    problems = check()
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s); run `python -m bounds.derive --write`", file=sys.stderr)
        return 1
    print(f"{PATH.name} is current")
    return 0


if __name__ == "__main__":
    from bounds import derive as _real  # the package's copy, which the claim modules use

    raise SystemExit(_real.main())
