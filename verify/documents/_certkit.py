"""Pieces of certificate scripts shared by the document packages' ``certificates`` modules.

A certificate's script must stand alone (it imports only the standard library, numpy, scipy and
mpmath; :mod:`verify.judging.certify`), so shared code is not imported by the scripts: each piece is
Python source that a certificate's body includes, written once here.  The script's preamble
(:func:`verify.judging.certify.render`) already imports ``math``, ``sys`` and ``Fraction``.

This module imports nothing of the project: the ``certificates`` modules are loaded from their
files without their document packages, and may import it.
"""

from __future__ import annotations

import dataclasses


def exact_number(name: str) -> str:
    """The piece defining ``name(x)``: a number of the instance as an exact fraction (``"p/q"``
    strings, integers, decimal strings; a float by its shortest repr, so ``0.1`` is 1/10)."""
    return f'''
def {name}(x):
    """A number of the instance as an exact fraction ("p/q" strings, integers, decimal literals)."""
    return Fraction(x) if not isinstance(x, float) else Fraction(repr(x))
'''


#: the multisets of n i.i.d. proposals from a finite law q, with their multinomial probabilities
#: (exact): how the CIS kernels of both documents are enumerated
PROPOSALS = '''
def compositions(n, M):
    """Every (c_1, ..., c_M) >= 0 with sum n: the counts per state of n proposals."""
    if M == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, M - 1):
            yield (first, *rest)


def proposals(q, n):
    """The multisets of n i.i.d. proposals from q: (counts c, probability n!/prod c_i! prod
    q_i^c_i), exactly for exact q (the integer coefficient first, then the powers of q in order)."""
    for c in compositions(n, len(q)):
        coef = math.factorial(n)
        for ci in c:
            coef //= math.factorial(ci)
        p = coef
        for qi, ci in zip(q, c):
            p = p * qi ** ci
        yield c, p
'''


def rel(text: str) -> str:
    """The piece stating the printed relation and what violates it: the script's ``RELATION``."""
    return f"RELATION = {text!r}\n"


def check_head(text: str, **fields: str) -> str:
    """The piece stating the printed relation (:func:`rel`) and opening the script's ``check(I)``
    with one line binding each of the instance's ``fields`` to a local of the same name through its
    conversion (``q="QV"``: ``q = QV(I["q"])``); the check's body follows, indented."""
    names = ", ".join(fields)
    values = ", ".join(f'{conv}(I["{name}"])' for name, conv in fields.items())
    return f"{rel(text)}\ndef check(I):\n    {names} = {values}"


def body(*pieces: str) -> str:
    """A certificate's body: its pieces in order, two blank lines apart."""
    return "\n".join(p.strip("\n") + "\n\n" for p in pieces)


def restated(certificates: list, claims: dict[str, str]) -> list:
    """The certificates of violated claims that an audit statement step establishes: for each
    ``claims`` entry (claim id: step id) the step's certificate under the claim's id, its title
    naming the step."""
    by_id = {c.id: c for c in certificates}
    return [dataclasses.replace(by_id[step], id=claim,
                                title=by_id[step].title + f" (the statement step {step})")
            for claim, step in claims.items()]
