"""The data contract of a document package: its data files, their JSON Schemas, checked when read.

A document package (docs/own-claim.md, "The data contract"), the toolkit's own or a user's,
carries up to four data files beside its modules.  Each has a JSON Schema (draft 2020-12) in
``bounds/schemas/``, shipped with the package:

=========================  ===================================  ==============================
file                       schema                               read by
=========================  ===================================  ==============================
``coverage.json``          ``coverage.schema.json``             :mod:`verify.judging.coverage`
``coverage_sections.json`` ``coverage_sections.schema.json``    :mod:`verify.judging.coverage`
``severity.json``          ``severity.schema.json``             :mod:`verify.judging.severity`
``references.json``        ``references.schema.json``           :mod:`bounds.references`
=========================  ===================================  ==============================

Every reader validates the file with :func:`read` (the ``jsonschema`` library), for the
built-in and the users' documents alike.  A file that breaks its schema, or a rule a schema
cannot express (checked by its reader: the key order of a coverage entry, a location that
starts with a walked section label, a reference key of the bibliography's own), raises
:class:`DataError`: one line naming the file, the entry and the field::

    mcgd_claims/coverage.json: entry 3 ("Derivation, line (3)"): reason: a 'not checked'
    entry needs 'how:' (how it could be checked)

which every command line prints as such, with exit status 2 (bad input), never as an internal
error: :class:`DataError` is a :class:`mcsa_cli.UsageError` (and a :class:`ValueError`).

A failing subschema may carry ``"errorMessage"`` (an annotation, ignored by validation): the
text said instead of the library's own message.

It lives in :mod:`bounds` because :mod:`bounds.references` reads ``references.json`` and the
layers import downwards only (verify -> simulate -> bounds -> mcsa_cli).  ``jsonschema`` is
imported when a file is first validated.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path

from mcsa_cli import UsageError

#: data file name -> its schema's file name in bounds/schemas/
SCHEMAS = {"coverage.json": "coverage.schema.json",
           "coverage_sections.json": "coverage_sections.schema.json",
           "severity.json": "severity.schema.json",
           "references.json": "references.schema.json"}

#: how the entries of each file are named in an error: (path depth of an entry, name of one)
_ENTRY_WORDS = {"severity.json": {"steps": "step", "claims": "claim"},
                "coverage_sections.json": {"sections": "section"}}


class DataError(UsageError, ValueError):
    """A data file of a document package breaks the data contract.

    Its text is one line, ``FILE: ENTRY: FIELD: what is wrong`` (ENTRY and FIELD left out
    when the file as a whole is wrong); command lines print it and exit 2.

    Parameters
    ----------
    file : str
        The file as shown: ``package/dir/name.json`` (:func:`label`).
    entry : str or None
        The entry: ``entry 3 ("§4.2, line 1")``, ``step "eq3"``, ``reference "lp17"``.
    field : str or None
        The field of the entry (``reason``), or None.
    message : str
        What is wrong, one line.
    """

    def __init__(self, file: str, entry: str | None, field: str | None, message: str):
        self.file, self.entry, self.field, self.message = file, entry, field, message
        parts = [file, entry, field, " ".join(str(message).split())]
        super().__init__(": ".join(p for p in parts if p))


def label(package: str | None, name: str, path: Path | str | None = None) -> str:
    """How a data file is named in an error: ``mcgd_claims/coverage.json``.

    Parameters
    ----------
    package : str or None
        The document package (``verify.documents.kim2022``); None: use ``path``.
    name : str
        The data file's name (``coverage.json``).
    path : Path or str, optional
        The file's path, shown when no package is given.

    Returns
    -------
    str
        The package as a path, then the file name; or the path.
    """
    if package:
        return f"{package.replace('.', '/')}/{name}"
    return str(path) if path is not None else name


@functools.cache
def schema(name: str) -> dict:
    """The JSON Schema of a data file.

    Parameters
    ----------
    name : str
        The data file's name, a key of :data:`SCHEMAS` (``coverage.json``).

    Returns
    -------
    dict
        The schema, as shipped in ``bounds/schemas/``.
    """
    f = resources.files(__package__).joinpath("schemas", SCHEMAS[name])
    return json.loads(f.read_text(encoding="utf-8"))


@functools.cache
def _validator(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(name))


def read(path: Path | str, name: str | None = None, package: str | None = None):
    """Read a data file and validate it against its schema.

    Parameters
    ----------
    path : Path or str
        The file.
    name : str, optional
        Its kind, a key of :data:`SCHEMAS` (default: the file's name).
    package : str, optional
        The document package carrying it, for the error's file name (:func:`label`).

    Returns
    -------
    object
        The file's JSON value, valid against its schema.

    Raises
    ------
    DataError
        When the file cannot be read, is not JSON, or breaks its schema (the first error, in
        the file's order).
    """
    path = Path(path)
    name = name or path.name
    where = label(package, name, path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise DataError(where, None, None, f"cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise DataError(where, None, None, f"not readable as JSON ({e})") from None
    validate(data, name, where)
    return data


def validate(data, name: str, where: str | None = None) -> None:
    """Check a data file's value against its schema.

    Parameters
    ----------
    data : object
        The file's JSON value.
    name : str
        Its kind, a key of :data:`SCHEMAS`.
    where : str, optional
        The file as the error names it (default: ``name``).

    Raises
    ------
    DataError
        The first error, in the file's order: the first entry that breaks the schema, and of
        its errors a missing or unknown field first.
    """
    errors = list(_validator(name).iter_errors(data))
    if errors:
        first = min(errors, key=lambda e: (_order(data, e), _PRIORITY.get(e.validator, 9)))
        raise _data_error(first, data, name, where or name)


#: which of an entry's errors is said first
_PRIORITY = {"type": 0, "required": 1, "additionalProperties": 2, "enum": 3}


def _order(data, error) -> tuple:
    """The position of an error's instance in the file: each step's index among its siblings."""
    out, node = [], data
    for key in error.absolute_path:
        if isinstance(node, list):
            out.append(key)
            node = node[key]
        elif isinstance(node, dict):
            out.append(list(node).index(key) if key in node else len(node))
            node = node.get(key)
        else:
            break
    return tuple(out)


def _short(text, width: int = 48) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= width else s[:width - 4] + " ..."


_A = {"object": "an object", "array": "an array", "string": "a string", "number": "a number",
      "integer": "an integer", "boolean": "a boolean"}


def _json_type(x) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(x), type(x).__name__)


def entry_name(name: str, data, path) -> tuple[str | None, list]:
    """Name the entry an error's path points into, and the rest of the path.

    Parameters
    ----------
    name : str
        The data file's kind (``coverage.json``).
    data : object
        The file's value.
    path : sequence
        The error's absolute path in ``data``.

    Returns
    -------
    tuple
        ``(entry, rest)``: ``entry 3 ("§4.2, line 1")`` (1-based; a coverage entry named by its
        location), ``step "eq3"``, ``section 2 ("§1")``, ``reference "lp17"`` or None (the
        file as a whole), and the path below the entry.
    """
    path = list(path)
    if name == "coverage.json" and path:
        i = path[0]
        e = data[i] if isinstance(data, list) and isinstance(i, int) else None
        loc = e.get("location") if isinstance(e, dict) else None
        return (f"entry {i + 1}" + (f' ("{_short(loc)}")' if isinstance(loc, str) else ""),
                path[1:])
    if name == "references.json" and path:
        return f'reference "{path[0]}"', path[1:]
    words = _ENTRY_WORDS.get(name, {})
    if len(path) >= 2 and path[0] in words:
        word, key = words[path[0]], path[1]
        if isinstance(key, int):
            item = data[path[0]][key]
            title = item.get("section") if isinstance(item, dict) else None
            return (f"{word} {key + 1}" + (f' ("{_short(title)}")' if isinstance(title, str)
                                           else ""), path[2:])
        return f'{word} "{key}"', path[2:]
    return None, path


def _data_error(error, data, name: str, where: str) -> DataError:
    """The :class:`DataError` of one ``jsonschema`` error: file, entry, field, message."""
    entry, rest = entry_name(name, data, error.absolute_path)
    field = ".".join(str(p) for p in rest) or None
    message = error.schema.get("errorMessage") if isinstance(error.schema, dict) else None
    v = error.validator
    if "propertyNames" in error.schema_path:  # a key of the object at the path
        field = " ".join(x for x in (field, f"key {json.dumps(error.instance, ensure_ascii=False)}")
                         if x)
    if v == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        field = ".".join([*(str(p) for p in rest), missing[0]]) if missing else field
        return DataError(where, entry, field, "missing")
    if v == "additionalProperties" and isinstance(error.instance, dict):
        allowed = list(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in allowed]
        field = ".".join([*(str(p) for p in rest), str(extra[0])]) if extra else field
        return DataError(where, entry, field,
                         "unknown field" + (f" (allowed: {', '.join(allowed)})" if allowed else ""))
    if v == "dependentRequired":
        missing = [(k, d) for k, ds in error.validator_value.items() if k in error.instance
                   for d in ds if d not in error.instance]
        if missing:
            k, d = missing[0]
            return DataError(where, entry, ".".join([*(str(p) for p in rest), d]),
                             f"missing (required with {k})")
    if message:
        return DataError(where, entry, field, message)
    if v == "enum":
        return DataError(where, entry, field,
                         f"{json.dumps(error.instance, ensure_ascii=False)} is not one of "
                         + ", ".join(json.dumps(x, ensure_ascii=False)
                                     for x in error.validator_value))
    if v == "type":
        types = error.validator_value
        want = " or ".join(_A.get(str(w), str(w))
                           for w in (types if isinstance(types, list) else [types]))
        return DataError(where, entry, field,
                         f"must be {want}, got {_json_type(error.instance)}")
    return DataError(where, entry, field, _short(error.message, 160))


# ----------------------------------------------------------------------------- the readers' rules
def key_order(data: list, keys: tuple[str, ...], where: str) -> None:
    """Check that every entry of a list (valid against its schema) stores ``keys`` in order.

    Parameters
    ----------
    data : list of dict
        The entries (a ``coverage.json``).
    keys : tuple of str
        The keys in their stored order.
    where : str
        The file as the error names it.

    Raises
    ------
    DataError
        Naming the first entry and the first field out of order.
    """
    for i, e in enumerate(data):
        if tuple(e) != keys:
            k = next(a for a, b in zip(e, keys) if a != b)
            entry, _ = entry_name("coverage.json", data, [i])
            raise DataError(where, entry, k,
                            f"out of order: the keys go {', '.join(keys)}")
