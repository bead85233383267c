"""Certificates: self-contained scripts that anyone can rerun to see a violation.

For each ``wrong`` or ``loose`` step of the proof audit and each ``violated`` claim, a
document package may give a :class:`Certificate`: the violating instance, written out in
full, and the Python source of a function ``check(INSTANCE) -> (lhs, rhs, violated)`` that
recomputes both sides of the printed relation from the document's own definitions.
:func:`render` turns it into a script that imports nothing of this project (only the
standard library, numpy, scipy and mpmath), prints both sides, the relation and the
document reference, and exits 0 when the violation (for a ``loose`` step: that the
printed '=' fails while '<=' holds) is confirmed, 1 otherwise.  Rendered with
``cert.holding`` (a perturbed instance at which the printed relation holds) the same
script must exit 1: a certificate that cannot say "not confirmed" certifies nothing.

Data layout (plugin style, no list of documents here): a package registered in the
``mcsa_verify.claims`` entry-point group (:mod:`verify.registry`) may have a submodule
``certificates`` with ``CERTIFICATES: list[Certificate]`` and, optionally,
``UNCOVERED: dict[id, reason]`` (the wrong/loose steps and violated claims it gives no
certificate for).  Such a module should import only :mod:`verify.certify` (it is loaded
from its file, without importing the document package, so that listing and rendering
stay fast).

Command line (``python -m verify certificate``)::

    python -m verify certificate ID [--out DIR]   write DIR/ID.py (default DIR: certificates/)
    python -m verify certificate --all [--out DIR]
    python -m verify certificate --list
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import pprint
import re
import sys
import textwrap
from dataclasses import dataclass
from importlib import import_module
from importlib.machinery import PathFinder

#: the only modules a certificate's body may import (top-level names)
ALLOWED_IMPORTS = frozenset({"fractions", "decimal", "math", "itertools", "sys", "numpy", "scipy",
                             "mpmath",
                             "functools", "cmath", "operator"})
#: the default output directory of ``python -m verify certificate``
DEFAULT_OUT = "certificates"


@dataclass(frozen=True)
class Certificate:
    """One certificate: a wrong/loose audit step or a violated claim, shown on one instance.

    ``body`` is Python source defining ``def check(INSTANCE) -> tuple[lhs, rhs, violated]``
    plus any helpers, importing only :data:`ALLOWED_IMPORTS`.  It may define a module-level
    ``RELATION = "..."`` (the printed relation and what violates it, e.g.
    ``"Eq. (27) prints lhs <= rhs; violated when lhs > rhs"``), which the script prints.
    """

    id: str                 # the audit step id or claim id it certifies
    title: str              # one line: what is shown
    source: str             # bibliographic reference with section/equation
    # the violating instance (plain JSON-able numbers/lists/strings; fractions as "p/q")
    instance: dict
    # a perturbed instance at which the printed relation HOLDS (the script must exit 1)
    holding: dict
    # Python source of `def check(INSTANCE) -> tuple[lhs, rhs, violated]` plus helpers
    body: str


# ----------------------------------------------------------------------------- rendering
def imported_modules(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports (``import a.b`` -> ``a``)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                out.add(".")
            else:
                out.add((node.module or "").split(".")[0])
    return out


def _check_instance(instance, what: str) -> None:
    try:
        json.dumps(instance, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"certificate {what} is not plain JSON-able data ({e})") from None
    if not isinstance(instance, dict):
        raise TypeError(f"certificate {what} is not a dict")


_HEADER = '''\
#!/usr/bin/env python3
"""Certificate {id}:
{title}

Source:
{source}

Run:  python {fname}
Exit status 0: the violation is confirmed at INSTANCE (below); 1: it is not.
The script is self-contained: it imports only the standard library, numpy, scipy and
mpmath, and recomputes both sides of the printed relation from the document's
definitions (nothing of the toolkit that produced it is used or trusted).  Edit INSTANCE
to try other values.
"""

import math
import sys
from fractions import Fraction

ID = {id_r}
TITLE = {title_r}
SOURCE = {source_r}
RELATION = "lhs compared with rhs as printed in the source"

INSTANCE = {instance}
'''

_MAIN = '''

def show(x):
    """A side as text: exact fractions in full when short, else as 30 significant digits."""
    if isinstance(x, Fraction) and x.denominator != 1:
        from decimal import Decimal, localcontext

        with localcontext() as ctx:
            ctx.prec = 30
            approx = Decimal(x.numerator) / Decimal(x.denominator)
        text = str(x)
        return f"{text} (= {approx:.30g})" if len(text) <= 60 else f"{approx:.30g} (an exact fraction of {len(text)} characters)"
    return str(x)


def main():
    lhs, rhs, violated = check(INSTANCE)
    print("certificate:", ID)
    print("shows:      ", TITLE)
    print("source:     ", SOURCE)
    print("relation:   ", RELATION)
    print("lhs =", show(lhs))
    print("rhs =", show(rhs))
    print("verdict:    ", "CONFIRMED (the printed relation fails here)" if violated
          else "NOT CONFIRMED (the printed relation holds here)")
    return 0 if violated else 1


if __name__ == "__main__":
    sys.exit(main())
'''  # noqa: E501


def _doc_line(text: str) -> str:
    return text.replace('"""', "'''").replace("\\", "\\\\")


def script_name(cid: str) -> str:
    """The file name of a certificate's script: the id with anything but ``[A-Za-z0-9._-]`` as
    ``_``.
    """
    return re.sub(r"[^A-Za-z0-9._-]", "_", cid) + ".py"


def render(cert: Certificate, instance: dict | None = None) -> str:
    """The script of ``cert`` (with ``instance`` in place of ``cert.instance`` when given).

    Raises ValueError when the body imports a module outside :data:`ALLOWED_IMPORTS`,
    defines no ``check``, or the instance is not plain data."""
    inst = cert.instance if instance is None else instance
    _check_instance(inst, f"{cert.id} instance")
    body = textwrap.dedent(cert.body).strip("\n")
    tree = ast.parse(body)
    bad = imported_modules(body) - ALLOWED_IMPORTS
    if bad:
        raise ValueError(
            f"certificate {cert.id} imports {sorted(bad)}; allowed: {sorted(ALLOWED_IMPORTS)}")
    if not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body):
        raise ValueError(f"certificate {cert.id} body defines no top-level check(INSTANCE)")
    def para(text):
        return textwrap.fill(_doc_line(text), width=92, initial_indent="    ",
                             subsequent_indent="    ")

    head = _HEADER.format(id=_doc_line(cert.id), title=para(cert.title), source=para(cert.source),
                          fname=script_name(cert.id), id_r=repr(cert.id), title_r=repr(cert.title),
                          source_r=repr(cert.source),
                          instance=pprint.pformat(inst, width=100, sort_dicts=False))
    text = head + "\n\n" + body + "\n" + _MAIN
    compile(text, script_name(cert.id), "exec")  # a syntax error is the certificate's, said here
    return text


def write(cert: Certificate, out_dir: str, instance: dict | None = None) -> str:
    """Write the script of ``cert`` to ``out_dir`` (created if needed), atomically.

    Parameters
    ----------
    cert : Certificate
    out_dir : str
    instance : dict, optional
        The instance the script checks (default: the certificate's own).

    Returns
    -------
    str
        The script's path (mode 0755).
    """
    text = render(cert, instance)
    from mcsa_cli import atomic_write

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, script_name(cert.id))
    atomic_write(path, text)
    os.chmod(path, 0o755)
    return path


# ----------------------------------------------------------------------------- discovery
def _module_origin(name: str) -> str | None:
    """The file of module ``name`` found without importing (executing) any of its packages."""
    path = None
    spec = None
    for i, part in enumerate(name.split(".")):
        full = ".".join(name.split(".")[: i + 1])
        loaded = sys.modules.get(full)
        if loaded is not None and getattr(loaded, "__spec__", None) is not None:
            spec = loaded.__spec__
        else:
            spec = PathFinder.find_spec(full, path)
        if spec is None:
            return None
        path = spec.submodule_search_locations
        if path is None and i < len(name.split(".")) - 1:
            return None
    return spec.origin if spec is not None else None


def _load_certificates_module(mod: str):
    name = mod + ".certificates"
    if name in sys.modules:
        return sys.modules[name]
    origin = _module_origin(name)
    if origin is None or not origin.endswith(".py"):
        # a package on the file system without a certificates.py
        if _module_origin(mod) is not None:
            return None
        # a package the path finder cannot see (a zip, a custom finder): import it the ordinary way
        try:
            return import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
                return None
            raise
    spec = importlib.util.spec_from_file_location(name, origin)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def modules() -> list[tuple[str, object]]:
    """``[(document name, certificates module)]`` of every registered document package that has
    one.
    """
    from .registry import entry_points

    out = []
    for name, mod in entry_points():
        m = _load_certificates_module(mod)
        if m is not None:
            out.append((name, m))
    return out


def certificates() -> dict[str, Certificate]:
    """``{id: Certificate}`` over every registered document package, in entry-point order.
    Two certificates with one id, or a module without a CERTIFICATES list, is an error."""
    out: dict[str, Certificate] = {}
    for name, m in modules():
        certs = getattr(m, "CERTIFICATES", None)
        if not isinstance(certs, (list, tuple)):
            raise TypeError(f"{m.__name__} defines no CERTIFICATES list")
        for c in certs:
            if not isinstance(c, Certificate):
                raise TypeError(
                    f"{m.__name__}.CERTIFICATES holds a {type(c).__name__}, not a Certificate")
            if c.id in out:
                raise ValueError(f"two certificates for {c.id!r} (the second in {m.__name__})")
            out[c.id] = c
    return out


def uncovered() -> dict[str, str]:
    """``{id: reason}``: the UNCOVERED entries of every certificates module."""
    out: dict[str, str] = {}
    for _, m in modules():
        out.update(getattr(m, "UNCOVERED", {}) or {})
    return out


# ----------------------------------------------------------------------------- command line
def main(argv) -> int:
    """``python -m verify certificate ID [--out DIR] | --all [--out DIR] | --list``."""
    from mcsa_cli import Parser, UsageError, output_path

    ap = Parser(prog="python -m verify certificate",
                description="Write self-contained scripts that recompute a wrong/loose proof step "
                            "or a violated claim on its counterexample (a script exits 0 when it "
                            "confirms the finding, 1 when not).",
                epilog="Exit status: 0 written, 2 bad input (one line on stderr, before any "
                       "work), 70 internal error (rerun with --debug for the traceback), 74 an "
                       "output cannot be written (a full disk), 130 interrupted.")
    ap.add_argument("id", nargs="?", help="an audit step id or a claim id (see --list)")
    ap.add_argument("--all", action="store_true", help="write every certificate")
    ap.add_argument("--list", action="store_true", help="list the certificates: id, title")
    ap.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                    help=f"output directory (default: {DEFAULT_OUT}/)")
    a = ap.parse_args(argv)
    if sum([a.id is not None, a.all, a.list]) != 1:
        raise UsageError("give exactly one of: a certificate id, --all, --list")
    certs = certificates()
    if a.list:
        for c in certs.values():
            print(f"{c.id}\t{c.title}")
        return 0
    if a.id is not None and a.id not in certs:
        known = uncovered()
        why = f" (not covered: {known[a.id]})" if a.id in known else ""
        raise UsageError(
            f"no certificate {a.id!r}{why}; `python -m verify certificate --list` lists them")
    # checked (created, or written into and cleaned) before any script is rendered: exit 2, one
    # line, for a file, a missing parent, no permission or a read-only file system (/sys)
    output_path("--out", a.out, kind="dir")
    chosen = list(certs.values()) if a.all else [certs[a.id]]
    for c in chosen:
        print(write(c, a.out))
    return 0
