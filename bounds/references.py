"""The documents the claims come from, cited by bibliographic reference.

Each claim's :class:`bounds.core.Source` names its document by number ("001", "002",
"003", the order in which the toolkit was built from them) and a location (section,
equation, theorem).  A user only ever sees the citation: :func:`cite` turns a source into
``Kim et al. (NeurIPS 2022), §5.1 Theorem 4``.  The full list is in docs/references.md.

Standard library only, so that command lines can cite without importing sympy.
"""

from __future__ import annotations

import re

#: document number -> (short citation, full bibliographic reference)
REFERENCES = {
    "001": ("Kim et al. (NeurIPS 2022)",
            "Kyurae Kim, Jisu Oh, Jacob R. Gardner, Adji Bousso Dieng, Hongseok Kim. "
            "“Markov Chain Score Ascent: A Unifying Framework of Variational Inference with Markovian "
            "Gradients.” Advances in Neural Information Processing Systems 35 (NeurIPS 2022)."),
    "003": ("CIS-as-IMH draft",
            "“Inclusive Variational Inference with Independent Metropolis–Hastings.” An earlier, "
            "unpublished draft section on conditional importance sampling (CIS) as independent "
            "Metropolis–Hastings, with parallel IMH chains and convergence diagnostics (LaTeX draft, undated)."),
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


def document_key(seed) -> str:
    """The document a source's seed names: its number when the bibliography lists it ("001 ..." ->
    "001"), else the seed itself (a user's document, e.g. "Levin & Peres (2017)")."""
    number = doc_number(seed)
    return number if number in REFERENCES else str(getattr(seed, "seed", seed))


def documents(seeds) -> list[str]:
    """The documents (:func:`document_key`) of ``seeds`` in presentation order: the bibliography's
    first, then the others (users' documents) sorted."""
    keys = {document_key(s) for s in seeds}
    return [k for k in ORDER if k in keys] + sorted(keys - set(ORDER))


def citation(key: str, full: bool = False) -> str:
    """The short (or full) citation of a document key; a document the bibliography does not
    list (a user's) is cited by its key."""
    short, long = REFERENCES.get(key, (key, key))
    return long if full else short


def doc_number(source) -> str:
    """The document number of a source, a Source-like object or a text starting with it."""
    return str(getattr(source, "seed", source))[:3]


def cite_numbers(text: str) -> str:
    """Document numbers in a text ('001 §5.1') as their short citations ('Kim et al. (NeurIPS 2022) §5.1')."""
    return _NUMBER.sub(lambda m: REFERENCES[m.group(1)][0], text)


#: a document number standing alone: not part of a decimal number such as 0.001 or 1.003
_NUMBER = re.compile(r"(?<![\w.])(00[123])(?!\w)(?!\.\d)")


def cite(source, full: bool = False) -> str:
    """A claim's source as a bibliographic reference with its location kept:
    ``Kim et al. (NeurIPS 2022), §5.1 Theorem 4; proof App. D``."""
    short, long = REFERENCES.get(doc_number(source), (str(getattr(source, "seed", source)), ""))
    where = getattr(source, "where", "")
    ref = long.rstrip(".") if full and long else short
    return f"{ref}{', ' + where if where else ''}"
