"""The documents the claims come from, cited by bibliographic reference.

Each claim's :class:`bounds.core.Source` names its document by number ("001", "002",
"003", the order in which the toolkit was built from them) and a location (section,
equation, theorem).  A user only ever sees the citation: :func:`cite` turns a source into
``Kim et al. (NeurIPS 2022), §5.1 Theorem 4``.  The full list is in docs/references.md.

A user's document package supplies the references of its own documents the way it supplies its
coverage inventory: a data file ``references.json`` beside its modules (docs/own-claim.md), found
through the entry points without importing the package (:func:`plugin_references`)::

    {"Levin & Peres (2017)": {"short": "Levin & Peres (2017)",
                              "full": "David A. Levin and Yuval Peres. Markov Chains and ..."}}

Each key is a document key as the package's claims (``Source(key, where)``, its
``document``), proof steps (``seed=key``) and coverage inventory (``"document": key``) name
it.  :func:`cite`, :func:`citation` and :func:`reference` then cite it as they cite the
bibliography's documents.

Standard library only, so that command lines can cite without importing sympy.
"""

from __future__ import annotations

import functools
import json
import re

#: document number -> (short citation, full bibliographic reference)
REFERENCES = {
    "001": ("Kim et al. (NeurIPS 2022)",
            "Kyurae Kim, Jisu Oh, Jacob R. Gardner, Adji Bousso Dieng, Hongseok Kim. "
            "“Markov Chain Score Ascent: A Unifying Framework of Variational Inference with "
            "Markovian Gradients.” Advances in Neural Information Processing Systems 35 (NeurIPS "
            "2022)."),
    "003": ("CIS-as-IMH draft",
            "“Inclusive Variational Inference with Independent Metropolis–Hastings.” An earlier, "
            "unpublished draft section on conditional importance sampling (CIS) as independent "
            "Metropolis–Hastings, with parallel IMH chains and convergence diagnostics (LaTeX "
            "draft, undated)."),
    "002": ("El hanchi (2018)",
            "Ayoub El hanchi. “Stochastic gradient MCMC algorithms and their applications.” "
            "Research report, supervised by David A. Stephens, September 2018."),
}

#: the order in which documents are listed (the primary source first)
ORDER = ("001", "003", "002")


def position(document) -> int:
    """Sort key of a document key (or a source) in the bibliography's order; a document not in it
    (a user's) after every listed one.  Documents are presented in this order; plugins are
    loaded in their entry points' order (bounds.plugins), whatever it is."""
    key = doc_number(document) if document is not None else None
    return ORDER.index(key) if key in ORDER else len(ORDER)


def _key(source) -> str:
    """The document key a source names: a :class:`bounds.core.Source`'s ``document``, a proof
    step's ``seed`` (:class:`verify.audit.engine.Step`), or the text itself."""
    return str(getattr(source, "document", getattr(source, "seed", source)))


def document_key(seed) -> str:
    """The document a source's key names: its number when the bibliography lists it ("001 ..." ->
    "001"), else the key itself (a user's document, e.g. "Levin & Peres (2017)")."""
    number = doc_number(seed)
    return number if number in REFERENCES else _key(seed)


def documents(seeds) -> list[str]:
    """The documents (:func:`document_key`) of ``seeds`` in presentation order: the bibliography's
    first, then the others (users' documents) sorted."""
    keys = {document_key(s) for s in seeds}
    return [k for k in ORDER if k in keys] + sorted(keys - set(ORDER))


def citation(key: str, full: bool = False) -> str:
    """The short (or full) citation of a document key (:func:`reference`); a document that
    neither the bibliography nor a package's ``references.json`` lists is cited by its key."""
    short, long = reference(key) or (key, key)
    return long if full else short


#: the data file of a document package that holds the references of its documents
REFERENCES_FILE = "references.json"


def reference(key: str) -> tuple[str, str] | None:
    """``(short citation, full reference)`` of a document key: the bibliography's
    (:data:`REFERENCES`), else the one a registered package supplies
    (:func:`plugin_references`); None when neither has it."""
    return REFERENCES.get(key) or plugin_references().get(key)


@functools.lru_cache(maxsize=1)
def plugin_references() -> dict[str, tuple[str, str]]:
    """Document key -> ``(short citation, full reference)`` from the ``references.json`` of
    every registered document package (entry-point groups ``mcsa_verify.claims`` and
    ``mcsa_verify.bounds``, :func:`bounds.plugins.discover`), read without importing them.

    A file that breaks the format raises :class:`bounds.contract.DataError` (a
    :class:`ValueError`) naming it, the reference and the field (a broken plugin is an error to
    see; command lines exit 2): an object of ``{key: {"short": text, "full": text}}``,
    single-line texts, no key of the bibliography's own documents, a key given two different
    references by two packages.  Read once per process (``plugin_references.cache_clear()``
    reads again)."""
    from .plugins import BOUNDS_GROUP, CLAIMS_GROUP, discover

    out: dict[str, tuple[str, str]] = {}
    seen: set[str] = set()
    for p in (*discover(CLAIMS_GROUP), *discover(BOUNDS_GROUP)):
        f = p.data_file(REFERENCES_FILE)
        if f is None or str(f) in seen:
            continue
        seen.add(str(f))
        for key, ref in read_references(f, package=p.module).items():
            if out.get(key, ref) != ref:
                from .contract import DataError, label

                raise DataError(label(p.module, REFERENCES_FILE), f"reference {json.dumps(key)}",
                                None, f"another package gives it another reference: "
                                      f"{out[key][0]!r}")
            out[key] = ref
    return out


def read_references(path, package: str | None = None) -> dict[str, tuple[str, str]]:
    """The references of one ``references.json`` (format: :func:`plugin_references`), checked.

    Parameters
    ----------
    path : Path or str
        The file.
    package : str, optional
        The document package carrying it (named in an error instead of the path).

    Returns
    -------
    dict
        Document key -> ``(short citation, full reference)``.

    Raises
    ------
    bounds.contract.DataError
        A :class:`ValueError` naming the file, the reference and the field: the file breaks its
        schema (``references.schema.json``, :func:`bounds.contract.read`) or names a document of
        the bibliography's own.
    """
    from .contract import DataError, label, read

    data = read(path, REFERENCES_FILE, package=package)
    out = {}
    for key, ref in data.items():
        if key in REFERENCES or doc_number(key) in REFERENCES:
            raise DataError(label(package, REFERENCES_FILE, path), f"reference {json.dumps(key)}",
                            None, f"a key of the bibliography's own documents "
                                  f"({', '.join(ORDER)}); name the document otherwise")
        out[key] = (ref["short"], ref["full"])
    return out


def bibliography(seeds=()) -> list[tuple[str, str, str]]:
    """``[(key, short citation, full reference)]``: the bibliography's documents in its order,
    then those of ``seeds`` (document keys, seeds or sources) that a package's
    ``references.json`` cites, sorted (what a report's list of references shows)."""
    own = [(k, *REFERENCES[k]) for k in ORDER]
    users = sorted({document_key(s) for s in seeds} - set(REFERENCES))
    return own + [(k, *plugin_references()[k]) for k in users if k in plugin_references()]


def doc_number(source) -> str:
    """The document number of a source, a Source-like object or a text starting with it."""
    return _key(source)[:3]


def cite_numbers(text: str) -> str:
    """Document numbers in a text ('001 §5.1') as their short citations ('Kim et al. (NeurIPS 2022)
    §5.1').
    """
    return _NUMBER.sub(lambda m: REFERENCES[m.group(1)][0], text)


#: a document number standing alone: not part of a decimal number such as 0.001 or 1.003
_NUMBER = re.compile(r"(?<![\w.])(00[123])(?!\w)(?!\.\d)")


def cite(source, full: bool = False) -> str:
    """A claim's source as a bibliographic reference with its location kept:
    ``Kim et al. (NeurIPS 2022), §5.1 Theorem 4; proof App. D``.  A user's document is cited
    by the reference its package supplies (:func:`reference`), else by its key."""
    key = _key(source)
    short, long = (REFERENCES.get(doc_number(source)) or plugin_references().get(key)
                   or (key, ""))
    where = getattr(source, "where", "")
    ref = long.rstrip(".") if full and long else short
    return f"{ref}{', ' + where if where else ''}"
