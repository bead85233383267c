"""The audit's statuses and what a check found (:class:`Outcome`).

A step's check returns one :class:`Outcome`; :func:`unchecked`, :func:`fixed` and
:func:`definition` make the checks of steps that nothing computes.  See
:mod:`verify.audit.engine` for what each status means.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable

from ..model import TextEnum


class StepStatus(TextEnum):
    """The audit's status of one step.

    ``exact`` (the printed relation holds as printed), ``valid`` (an inequality that holds),
    ``loose`` (printed '=' but only an inequality holds), ``wrong`` (with a counterexample and,
    where one exists, the correction) or ``unchecked`` (not decidable here; the reason given).
    """

    EXACT = "exact"
    VALID = "valid"
    LOOSE = "loose"
    WRONG = "wrong"
    UNCHECKED = "unchecked"


EXACT, VALID, LOOSE, WRONG, UNCHECKED = StepStatus
STATUSES = tuple(StepStatus)
SEVERITY = {EXACT: 0, VALID: 0, UNCHECKED: 1, LOOSE: 2, WRONG: 3}


@dataclass
class Outcome:
    """What a check found: status, one-line detail, and the evidence.

    Parameters
    ----------
    status : StepStatus or str
        The step's status.
    detail : str
        One line on what the check found.
    counterexample : dict, optional
        ``{"at": {...}, "lhs": x, "rhs": y}``.
    correction : str, optional
        The corrected relation, when the printed one fails.
    gap : str, optional
        What the proof leaves unproved.
    method : str, default ""
        How the check was made.
    instances : int, optional
        How many instances (points, exact cases, examples) it survived or tried.
    established_by : str, default ""
        ``proof``, ``search``, ``not refuted``, ``counterexample``, ``definition``, ``reading``,
        ``instances``, or "" (unchecked).
    evaluations : int, optional
        Adversarial search: evaluations of the relation.
    best_ratio : float, optional
        The largest oriented lhs/rhs reached (> 1 breaks the relation).
    regimes : list of dict, optional
        Adversarial search: ``{"regime", "evaluations", "best_ratio", "violated"}``.
    closest : dict, optional
        Where the search came closest: ``{"at", "lhs", "rhs"}``.
    correction_status : str, optional
        The correction's own check ("survived search ...", "withdrawn ...").
    settled_by : dict, optional
        Rows of the check by how the enclosures settled them (``{"exact": n, ...}``).
    undecided : int, optional
        Rows the enclosures could not decide, even refined.
    score : float, optional
        The largest row score (transient).
    """

    status: StepStatus | str
    detail: str
    counterexample: dict | None = None  # e.g. {"at": {...}, "lhs": x, "rhs": y}
    correction: str | None = None
    gap: str | None = None
    method: str = ""
    # how many instances (points, exact cases, examples) the check survived or tried
    instances: int | None = None
    # proof | search | not refuted | counterexample | definition | reading | instances |
    # "" (unchecked)
    established_by: str = ""
    evaluations: int | None = None  # adversarial search: evaluations of the relation
    # the largest oriented lhs/rhs reached (> 1 breaks the relation)
    best_ratio: float | None = None
    # adversarial search: [{"regime", "evaluations", "best_ratio", "violated"}]
    regimes: list | None = None
    closest: dict | None = None  # where the search came closest: {"at", "lhs", "rhs"}
    # the correction's own check: "survived search ..." / "withdrawn ..."
    correction_status: str | None = None
    # rows of the check by how the enclosures settled them: {"exact": n, "float64": m,
    # "arb-256": k, "undecided": u} (verify.audit.instances); None for a check without rows
    settled_by: dict | None = None
    # rows (fixed and searched) that the enclosures could not decide, even refined: never a
    # counterexample; an '=' with such rows is "not refuted", not proved
    undecided: int | None = None
    # largest row score (transient)
    score: float | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        """Return the outcome as strict JSON (floats exact, non-finite floats as strings)."""
        import json

        from mcsa_cli import dumps

        d = asdict(self)
        d.pop("score", None)
        # keys sorted at every level: a fresh outcome and one read back from JSON print alike
        return json.loads(dumps(d, sort_keys=True))

    @classmethod
    def from_json(cls, d: dict) -> "Outcome":
        """Return the outcome that :meth:`to_json` gave ``d`` for."""
        names = {f for f in cls.__dataclass_fields__ if f != "score"}
        return cls(**{k: v for k, v in d.items() if k in names})


def unchecked(reason: str) -> Callable[[], Outcome]:
    """Make the check of a step that cannot be decided here.

    Parameters
    ----------
    reason : str
        Why not (shown in the audit's tables).

    Returns
    -------
    callable
        A check returning an ``unchecked`` :class:`Outcome`.
    """
    return lambda: Outcome(UNCHECKED, reason, method="none")


def fixed(status: str, detail: str, **kw) -> Callable[[], Outcome]:
    """Make the check of a step settled by reading alone.

    A substitution, or a cited result whose consequence another step checks: the outcome is
    recorded with method ``reading``, so that the tables show which statuses were not computed.

    Parameters
    ----------
    status : StepStatus or str
        The status the reading gives.
    detail : str
        What was read, in one line.
    **kw
        Further :class:`Outcome` fields (e.g. ``correction``).

    Returns
    -------
    callable
        A check returning that :class:`Outcome`.
    """
    kw.setdefault("method", "reading")
    kw.setdefault("established_by", "reading")
    return lambda: Outcome(status, detail, **kw)


def definition(detail: str) -> Callable[[], Outcome]:
    """Make the check of a line that restates a definition (nothing to establish).

    Parameters
    ----------
    detail : str
        The definition restated.

    Returns
    -------
    callable
        A check returning an ``exact`` :class:`Outcome` established by definition.
    """
    return lambda: Outcome(EXACT, detail, method="reading", established_by="definition")
