"""The derivation of ``mcgd_average_bias`` as printed in the package's README ("Derivation"),
audited step by step (``python -m verify audit mcgd_average_bias``).

Each line is a :func:`verify.audit.engine.step`: the printed relation between two
displayed expressions and a check that can fail.  Lines (2) and (3) are checked on exact
instances (rational delta, n = 1..60, :class:`fractions.Fraction` arithmetic): (2) the
geometric sum equals its closed form; (3) is printed with "=" but only "<=" holds for
finite n, so its status is ``loose`` (recorded in ``severity.json``).  Line (1) is the
textbook bound d(t) <= delta^t (Levin & Peres 2017, Lemmas 4.10-4.11), which the claim's
``tv`` checks hold against exact chains.
"""

from __future__ import annotations

from fractions import Fraction

from verify.audit.engine import EXACT, LOOSE, instance_check, step

from .formulas import CLAIM

#: the document these steps are printed in: the package's README (coverage_sections.json names it)
DOCUMENT = "mcgd-claims README"

_DELTAS = tuple(Fraction(k, 16) for k in range(16))  # 0, 1/16, ..., 15/16
_NS = tuple(range(1, 61))


def _geometric_sum():
    """(2): sum_{t=0}^{n-1} delta^t against (1 - delta^n) / (1 - delta), exactly."""
    return [({"delta": str(d), "n": n}, sum(d ** t for t in range(n)), (1 - d ** n) / (1 - d))
            for d in _DELTAS for n in _NS]


def _sum_shortcut():
    """(3): sum_{t=0}^{n-1} delta^t against 1 / (1 - delta), exactly."""
    return [({"delta": str(d), "n": n}, sum(d ** t for t in range(n)),
             1 / (1 - d)) for d in _DELTAS for n in _NS]


step("mcgd.sum", claim=CLAIM, seed=DOCUMENT, location="Derivation, line (2)", relation="=",
     lhs="sum_{t=0}^{n-1} delta^t", rhs="(1 - delta^n) / (1 - delta)",
     justification="geometric sum",
     check=lambda: instance_check(_geometric_sum, "=", tol=0.0, describe="exact rational delta",
                                  complete=False),
     expect=EXACT)
step("mcgd.sum.shortcut", claim=CLAIM, seed=DOCUMENT, location="Derivation, line (3)", relation="=",
     lhs="sum_{t=0}^{n-1} delta^t", rhs="1 / (1 - delta)", justification="geometric series",
     check=lambda: instance_check(_sum_shortcut, "<=", tol=0.0, printed="=",
                                  describe="exact rational delta"),
     depends=("mcgd.sum",), expect=LOOSE)
