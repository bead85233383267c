"""The audit's cache: each step's outcome stored under a digest of the code it depends on.

A step's digest (:func:`step_digest`) covers

* the step's declaration (id, relation, both sides, justification, dependencies, reading,
  search budget);
* the source of its check and, transitively, of every function the check refers to (by
  name, through globals and closures), and the whole source file of every module or class
  of this project (or of the claim's own package) that it refers to;
* the source of the audit engine and its search (:mod:`verify.audit.engine` and its rooms,
  :mod:`verify.audit.adversary`, this module: :data:`ENGINE_FILES`).

Library versions are not part of it: the stored audit ships with the package and must stay
valid on any supported NumPy/SciPy (the test suite re-runs a fixed sample of steps to show
that their outcomes do not move).

Outcomes are read from, in order: this process's memory, the packaged
``verify/data/audit.json`` (written by ``python -m verify audit --write``), and the user
cache ``$MCSA_CACHE/audit`` (default ``~/.cache/mcsa-verify/audit``; off with
``MCSA_CACHE=off``).  An entry whose digest differs is never read: the step is recomputed.
"""

from __future__ import annotations

import functools
import inspect
import types
from pathlib import Path

from mcsa_cli import dumps
from mcsa_cli.store import Store, digest, files_digest

#: bump when the stored outcome's layout changes (3: settled_by and undecided, issue 34)
FORMAT = 3
_OWN = ("bounds", "simulate", "verify", "mcsa_cli")


def _source(obj) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return repr(code.co_code) if code is not None else type(obj).__name__


@functools.lru_cache(maxsize=None)
def _file_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def _own_module(modname: str | None, roots) -> bool:
    return bool(modname and modname.split(".")[0] in roots)


def _names(code) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _walk(obj, roots, seen: set, parts: list) -> None:
    """Add the sources ``obj`` depends on to ``parts`` (functions by source, recursively;
    own modules and classes by their file)."""
    if isinstance(obj, types.ModuleType):
        f = getattr(obj, "__file__", None)
        if f and _own_module(obj.__name__, roots) and f not in seen:
            seen.add(f)
            parts.append(f"module {obj.__name__}\n{_file_text(f)}")
        return
    if isinstance(obj, type):
        mod = inspect.getmodule(obj)  # the module that defines the class
        if mod is not None:
            _walk(mod, roots, seen, parts)
        return
    if isinstance(obj, functools.partial):
        _walk(obj.func, roots, seen, parts)
        for a in list(obj.args) + list(obj.keywords.values()):
            _walk_value(a, roots, seen, parts)
        return
    fn = obj if isinstance(obj, types.FunctionType) else getattr(obj, "__func__", None)
    if fn is None and isinstance(getattr(obj, "__wrapped__", None), types.FunctionType):
        fn = obj.__wrapped__  # functools.lru_cache / cache / wraps: the function it wraps
    if not isinstance(fn, types.FunctionType):
        return
    if not _own_module(fn.__module__, roots):
        return
    key = id(fn.__code__)
    if key in seen:
        return
    seen.add(key)
    parts.append(f"function {fn.__module__}.{fn.__qualname__}\n{_source(fn)}")
    g = fn.__globals__
    for name in sorted(_names(fn.__code__)):
        if name in g:
            _walk_value(g[name], roots, seen, parts)
    for cell in fn.__closure__ or ():
        try:
            val = cell.cell_contents
        except ValueError:
            continue
        _walk_value(val, roots, seen, parts)
    for d in (fn.__defaults__ or ()):
        _walk_value(d, roots, seen, parts)


def _walk_value(val, roots, seen, parts) -> None:
    if isinstance(val, (types.FunctionType, types.ModuleType, type, functools.partial,
                        types.MethodType)) \
            or isinstance(getattr(val, "__wrapped__", None), types.FunctionType):
        _walk(val, roots, seen, parts)
    elif isinstance(val, (int, float, str, bool, type(None))):
        parts.append(f"value {val!r}")
    elif isinstance(val, (tuple, list, set, frozenset)):
        if id(val) in seen:
            return
        seen.add(id(val))
        for v in (sorted(val, key=repr) if isinstance(val, (set, frozenset)) else val):
            _walk_value(v, roots, seen, parts)
    elif isinstance(val, dict):
        if id(val) in seen:
            return
        seen.add(id(val))
        for k in sorted(val, key=repr):
            parts.append(f"key {k!r}")
            _walk_value(val[k], roots, seen, parts)
    elif hasattr(val, "tobytes"):
        parts.append("array " + digest(val.tobytes()))
    else:
        mod = inspect.getmodule(type(val))
        if mod is not None and _own_module(mod.__name__, roots):
            _walk(mod, roots, seen, parts)
        else:
            text = _stable_repr(val)
            if text is not None:
                parts.append("object " + digest(text))


def _stable_repr(val) -> str | None:
    """A repr that does not depend on the process (no memory address); sympy objects with
    their assumptions."""
    try:
        import sympy

        if isinstance(val, sympy.Basic):
            return sympy.srepr(val) + repr(sorted(getattr(val, "assumptions0", {}).items()))
    except ImportError:  # pragma: no cover
        pass
    try:
        text = repr(val)
    except Exception:  # noqa: BLE001 - any repr failure: nothing stable to add
        return None
    return None if " at 0x" in text else text[:100_000]


#: the audit engine's modules, all part of every step's digest
ENGINE_FILES = ("engine.py", "outcome.py", "instances.py", "symbolic.py", "search.py",
                "adversary.py", "cache.py")


@functools.lru_cache(maxsize=None)
def engine_digest() -> str:
    """The digest of the audit engine's code (its rooms: :data:`ENGINE_FILES`, and
    :mod:`bounds.enclosure`, on which every row is decided) and the format.

    Returns
    -------
    str
        64 hex digits (:func:`mcsa_cli.store.files_digest`).
    """
    here = Path(__file__).resolve().parent
    # the enclosures every row is decided on are part of the engine
    enclosure = here.parent.parent / "bounds" / "enclosure.py"
    return files_digest([here / name for name in ENGINE_FILES] + [enclosure],
                        extra=f"format {FORMAT}")


def step_digest(step) -> str:
    """The digest of the code ``step``'s outcome depends on (see the module docstring).

    Parameters
    ----------
    step : verify.audit.engine.Step

    Returns
    -------
    str
        64 hex digits.
    """
    roots = set(_OWN)
    mod = getattr(step.check, "__module__", None)
    if mod:
        roots.add(mod.split(".")[0])
    parts = [engine_digest(),
             dumps([step.id, step.claim, step.seed, step.location, step.relation, step.lhs,
                    step.rhs, step.justification, list(step.depends), step.statement, step.reading,
                    step.search_examples, step.search_budget, step.why, step.correction])]
    seen: set = set()
    _walk(step.check, roots, seen, parts)
    if step.corrected is not None:
        parts.append("corrected")
        _walk(step.corrected, roots, seen, parts)
    return digest("\n".join(parts))


# ----------------------------------------------------------------------------- stores
@functools.lru_cache(maxsize=None)
def packaged() -> dict:
    """The packaged audit's stored outcomes: step id -> {"digest": ..., "outcome": {...}}."""
    from ..running.docio import AUDIT_DOC, load_doc

    steps = load_doc(AUDIT_DOC).get("steps", {})
    return {k: v for k, v in steps.items() if isinstance(v, dict) and "digest" in v
            and "outcome" in v}


def user_dir() -> Path | None:
    from ..running.resources import cache_dir

    base = cache_dir()
    if base is None:
        return None
    return Path(base).parent / "audit" if Path(base).name == "claims" else Path(base) / "audit"


def _user_store() -> Store | None:
    d = user_dir()
    return None if d is None else Store(d, FORMAT)


def _user_key(step_id: str, step_digest: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in step_id)
    return f"{safe}-{step_digest[:32]}"


def lookup(step_id: str, step_digest: str) -> dict | None:
    """The stored outcome of a step.

    Parameters
    ----------
    step_id : str
    step_digest : str
        The digest of the code the step depends on (:func:`step_digest`).

    Returns
    -------
    dict or None
        The outcome stored under that digest (packaged, else in the user cache), or None.
    """
    e = packaged().get(step_id)
    if e is not None and e.get("digest") == step_digest:
        return e["outcome"]
    store = _user_store()
    e = None if store is None else store.get(_user_key(step_id, step_digest))
    if isinstance(e, dict) and e.get("digest") == step_digest:
        return e.get("outcome")
    return None


def remember(step_id: str, step_digest: str, outcome: dict) -> None:
    """Store a computed outcome in the user cache (:class:`mcsa_cli.store.Store`: checksummed,
    atomically; silently skipped when the cache is off or not writable).

    Parameters
    ----------
    step_id : str
    step_digest : str
        The digest of the code the step depends on.
    outcome : dict
        The outcome as JSON (:meth:`Outcome.to_json`).
    """
    store = _user_store()
    if store is None:
        return
    try:
        store.put(_user_key(step_id, step_digest), {"digest": step_digest, "outcome": outcome})
    except OSError:
        pass
