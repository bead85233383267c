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
certificate for).  Such a module should import only :mod:`verify.judging.certify` (it is loaded
from its file, without importing the document package, so that listing and rendering
stay fast).

Command line (``python -m verify certificate``)::

    python -m verify certificate ID [--out DIR]   write DIR/ID.py (default DIR: certificates/)
    python -m verify certificate --all [--out DIR]
    python -m verify certificate --list
"""

from __future__ import annotations

import ast
import json
import os
import pprint
import re
import textwrap

from .certindex import Certificate, certificates, modules, uncovered  # noqa: F401 (the API)

#: the only modules a certificate's body may import (top-level names)
ALLOWED_IMPORTS = frozenset({"fractions", "decimal", "math", "itertools", "sys", "numpy", "scipy",
                             "mpmath",
                             "functools", "cmath", "operator"})
#: the default output directory of ``python -m verify certificate``
DEFAULT_OUT = "certificates"


# ----------------------------------------------------------------------------- rendering
def imported_modules(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports (``import a.b`` -> ``a``)."""
    out: set[str] = set()
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

Run:  python {fname}              the violating instance, INSTANCE
      python {fname} --holding    a nearby instance where the printed relation holds
Exit status 0: the violation is confirmed at the instance; 1: it is not (with --holding it
must say NOT CONFIRMED: a certificate that cannot fail certifies nothing).
The script is self-contained: it imports only the standard library, numpy, scipy and
mpmath, and recomputes both sides of the printed relation from the document's
definitions (nothing of the toolkit that produced it is used or trusted).  Edit INSTANCE
to try other values.{note_doc}
"""

import math
import sys
from fractions import Fraction

ID = {id_r}
TITLE = {title_r}
SOURCE = {source_r}
RELATION = "lhs compared with rhs as printed in the source"
#: the finding's severity is a note: it fails only under the strict reading of hedged prose, or
#: outside the document's setting (the toolkit's reading rules 2 and 3)
NOTE = {note}

INSTANCE = {instance}

HOLDING = {holding}
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
    holding = "--holding" in sys.argv[1:]
    lhs, rhs, violated = check(HOLDING if holding else INSTANCE)
    print("certificate:", ID)
    print("shows:      ", TITLE)
    print("source:     ", SOURCE)
    print("relation:   ", RELATION)
    print("instance:   ", "HOLDING (a nearby one where the printed relation should hold)" if holding
          else "INSTANCE (the violating one)")
    print("lhs =", show(lhs))
    print("rhs =", show(rhs))
    if violated:
        print("verdict:    ", "CONFIRMED (note: fails only under the strict reading)" if NOTE
              else "CONFIRMED (the printed relation fails here)")
    else:
        print("verdict:     NOT CONFIRMED (the printed relation holds here)")
    return 0 if violated else 1


if __name__ == "__main__":
    sys.exit(main())
'''  # noqa: E501


def _doc_line(text: str) -> str:
    return text.replace('"""', "'''").replace("\\", "\\\\")


def is_note(cid: str) -> bool:
    """Whether the finding a certificate shows has the severity ``note``
    (verify.judging.severity)."""
    from .severity import loaded, lookup

    data = loaded()
    e = lookup(data, "steps", cid) or lookup(data, "claims", cid)
    return e is not None and bool(e) and e.get("severity") == "note"


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

    _check_instance(cert.holding, f"{cert.id} holding instance")
    note = is_note(cert.id)
    head = _HEADER.format(id=_doc_line(cert.id), title=para(cert.title), source=para(cert.source),
                          fname=script_name(cert.id), id_r=repr(cert.id), title_r=repr(cert.title),
                          source_r=repr(cert.source),
                          note_doc=("\nThe finding is a note: it fails only under the strict "
                                    "reading of hedged prose (or outside\nthe document's "
                                    "setting), and the verdict line says so." if note else ""),
                          note=repr(note),
                          instance=pprint.pformat(inst, width=100, sort_dicts=False),
                          holding=pprint.pformat(cert.holding, width=100, sort_dicts=False))
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
