"""The data model of a verification: statuses, checks, readings, grids and verifications.

A :class:`Verification` turns one claim of :mod:`bounds` into a list of
:class:`CheckResult` records: an empirical value (exact, Monte Carlo or symbolic), the
bound it is held against, their ratio (tightness) and a verdict (decided by
:mod:`verify.decide`).

Readings
--------
A sentence of a seed document can often be read in more than one reasonable way: what
``E[. | F_{t-1}]`` conditions on, normalised or unnormalised weights, what "~" or
"linearly" allow, which parameter range the text assumes at that point.  Each claim
lists its readings (:class:`Reading`, grouped in *axes*: one option per axis makes a
full reading); every check belongs to one option of an axis or is shared by all of them
(``CheckResult.reading == ""``).  A full reading's verdict combines the primary checks
it owns with the shared ones, and the audit's verdict on the statement under that
reading (a printed statement that fails in the audit fails that reading).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Literal

import numpy as np

from mcsa_cli import jsonable

if TYPE_CHECKING:
    from bounds.enclosure import Enclosure


class TextEnum(StrEnum):
    """A closed set of words, each member behaving exactly as its string value.

    Each member compares, hashes, formats, prints (``repr`` too) and serialises to JSON as its
    string value, so stored documents and outputs read the same.
    """

    def __repr__(self) -> str:
        """Return the ``repr`` of the string value (``'holds'``, not ``<Verdict.HOLDS: ...>``)."""
        return repr(self.value)


class Verdict(TextEnum):
    """The verdict of a check, a reading or a claim (a check is never ``DEPENDS``)."""

    HOLDS = "holds"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"
    DEPENDS = "depends on reading"


class Method(TextEnum):
    """How the empirical side of a check is computed (see :mod:`verify.decide`)."""

    EXACT = "exact"
    MONTE_CARLO = "monte-carlo"
    SYMBOLIC = "symbolic"


class Severity(TextEnum):
    """How much a finding matters.

    A false statement, a gap in a proof, a slip (a typo or an index), a bound that holds but is
    loose, or a note.
    """

    FALSE = "false"
    GAP = "gap"
    SLIP = "slip"
    LOOSE = "loose"
    NOTE = "note"


HOLDS, VIOLATED, INCONCLUSIVE, DEPENDS = Verdict
STATUSES = tuple(Verdict)
#: the verdict of a full reading that cannot decide anything on the run (reading rule 3: its premise
#: is never met, or too few cases qualify to decide its comparison); a reading's verdict only, never
#: a check's or a claim's
DEGENERATE = "degenerate"
EXIT: dict[str, int] = {HOLDS: 0, VIOLATED: 1, INCONCLUSIVE: 3, DEPENDS: 4}
METHODS = tuple(Method)
#: how the empirical value is held against the bound
Relation = Literal["<=", ">=", "=", "<", ">"]
RELATIONS: tuple[Relation, ...] = ("<=", ">=", "=", "<", ">")


@dataclass
class CheckResult:
    """One empirical value held against one bound form at one parameter point.

    Exact checks are decided on enclosures (docs/methods.md §12, :mod:`bounds.enclosure`): the
    empirical side ``lhs`` and the bound ``rhs`` are intervals that provably contain the true
    values.  By default ``lhs`` is ``empirical`` with its absolute error bound ``error`` (plus
    float64 rounding relative to the value, never an absolute floor), and ``rhs`` is the
    bound's enclosure (ball arithmetic on its formula when it came from
    :func:`verify.registry.bound_value`, else ``bound`` with ``bound_error``).  When the
    enclosures overlap, :func:`verify.decide.decide` asks ``refine(bits)`` for the empirical
    side at a higher precision (and the bound's formula likewise) until the check is decided or
    the cap is reached; ``settled_by`` says where it was decided.

    Parameters
    ----------
    quantity, form : str
        The quantity and the bound form held against it.
    params : dict
        The parameter point.
    empirical : float
        The empirical value (a Monte Carlo mean, or an exact computation).
    bound : float
        The bound's value.
    method : str
        ``exact``, ``monte-carlo`` or ``symbolic``.
    relation : str, default "<="
        ``empirical RELATION bound``.
    stderr : float, optional
        Monte Carlo standard error.
    error : float, optional
        Exact checks: a proved bound on ``|empirical - true value|`` (None: exact up to float64
        rounding).
    primary : bool, default True
        Counts towards the claim's verdict.
    note : str, default ""
        A remark shown with the check.
    verdict : str, default ""
        "" until :func:`verify.decide.decide` fills it in.
    ratio : float, default nan
        ``empirical / bound``, filled in by the decision.
    z : float, optional
        The critical value used (Monte Carlo).
    scaled_bound : float, optional
        The bound after ``--bound-scale``.
    reading : str, default ""
        The reading option this check belongs to ("": shared by all).
    proof : bool, default False
        Reading rule 4: the bound carries the proof's explicit constants.
    bound_error : float, optional
        A proved bound on ``|bound - true bound|``, for a bound not from
        :func:`verify.registry.bound_value`.
    lhs, rhs : bounds.enclosure.Enclosure, optional
        The enclosures of the two sides, when given directly.
    refine : callable, optional
        ``refine(bits) -> Enclosure`` of the empirical side at that working precision.
    settled_by : str, default ""
        Where the verdict was decided (``float64``, ``exact``, ``arb-<bits>``, ...).
    log10_ratio : float, optional
        ``log10(empirical / bound)`` at any magnitude.
    """

    quantity: str
    form: str
    params: dict
    empirical: float | Fraction
    bound: float | Fraction
    method: Method | str
    relation: Relation = "<="
    stderr: float | None = None  # Monte Carlo standard error
    #: exact checks: a proved bound on |empirical - true value| (None: exact up to float64
    #: rounding of the value, a few units in its last place)
    error: float | None = None
    primary: bool = True  # counts towards the claim verdict
    note: str = ""
    verdict: Verdict | str = ""  # "" until decided
    ratio: float = float("nan")
    z: float | None = None  # critical value used (Monte Carlo)
    scaled_bound: float | None = None
    reading: str = ""  # the reading (option of one axis) this check belongs to; "" = shared by all
    #: reading rule 4: the bound carries the proof's explicit constants (Verification.proof_forms);
    #: its violation is a gap of the proof, not a violation of the statement
    proof: bool = False
    #: a proved bound on |bound - true bound| for a bound not from verify.registry.bound_value
    bound_error: float | None = None
    #: the enclosures, when given directly (bounds.enclosure.Enclosure); after decide: the
    #: enclosures the verdict was reached on (the bound's unscaled)
    lhs: Enclosure | None = field(default=None, repr=False)
    rhs: Enclosure | None = field(default=None, repr=False)
    #: refine(bits) -> Enclosure of the empirical side at that working precision (or exact)
    refine: Callable | None = field(default=None, repr=False, compare=False)
    #: where the verdict was decided: "float64", "exact", "arb-<bits>", "monte-carlo",
    #: "symbolic"; for an undecided exact check, the last precision tried
    settled_by: str = ""
    #: log10 of empirical/bound at any magnitude (None when undefined)
    log10_ratio: float | None = None

    def as_json(self) -> dict:
        """Return the check as strict JSON (NaN as null, infinities as ``"inf"``, ``"-inf"``).

        ``enclosure`` gives both sides' intervals (ends rounded outward; decimal strings for
        ends outside the double range) and ``settled_by`` where the verdict was decided.
        """

        def num(x):  # NaN -> None, +/-inf -> "inf"/"-inf" (the command lines' strict JSON)
            return None if x is None else jsonable(float(x))

        enc = {}
        if self.lhs is not None and self.rhs is not None:
            enc = {"enclosure": {"empirical": self.lhs.as_json(),
                                 "bound": self.rhs.as_json()}}
        return {"quantity": self.quantity, "form": self.form, "params": params_json(self.params),
                "empirical": num(self.empirical), "stderr": num(self.stderr),
                "bound": num(self.scaled_bound),
                "ratio": num(self.ratio), "log10_ratio": num(self.log10_ratio),
                "verdict": self.verdict, "method": self.method,
                "settled_by": self.settled_by,
                "relation": self.relation, "error": num(self.error),
                **enc,
                "primary": self.primary,
                "note": self.note, "reading": self.reading,
                **({"proof": True} if self.proof else {})}


def params_json(d):
    """Convert a check's parameters: NumPy scalars and arrays to plain Python values."""
    out = {}
    for k, v in d.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = v
    return out


@dataclass(frozen=True)
class Reading:
    """One reasonable reading of (part of) a claim's statement.

    ``axis`` names what is being read (e.g. "conditioning"); the options of one axis
    exclude each other and a full reading picks one option per axis.  ``quote`` is the
    text read, ``meaning`` one sentence on how it is read.  ``select`` (optional) claims
    the checks of a run that belong to this option; checks no option claims are shared.

    Parameters
    ----------
    name : str
        The reading's name.
    quote : str
        The text read.
    meaning : str
        How it is read, in one sentence.
    axis : str, default "statement"
        What is being read; the options of one axis exclude each other.
    select : callable, optional
        ``select(check) -> bool``: the checks of a run that belong to this option.
    promote : bool, default False
        The checks it selects count towards its verdict even when not primary.
    hedge : str, default ""
        Reading rule 2: the sentence's hedge, quoted ("one expects", "approximately").
    ruled_out : str, default ""
        Reading rule 6: the document's sentence that rules this reading out.
    degenerate : callable, optional
        Reading rule 3: ``degenerate(checks) -> ""`` or why the run cannot decide the reading.
    see : str, default ""
        Reading rule 1: the severity entry where the document's contradiction is recorded.
    """

    name: str
    quote: str
    meaning: str
    axis: str = "statement"
    select: Callable[[CheckResult], bool] | None = None
    promote: bool = False  # the checks it selects count towards its verdict even if not primary
    #: reading rule 2: the hedge of the sentence, quoted ("one expects", "approximately", ...);
    #: the reading is the lenient one the hedge allows, and a claim that holds under it holds
    hedge: str = ""
    #: reading rule 6: the sentence of the document that rules this reading out in so many words
    #: ("necessary", "equivalent to", the printed strict sign); it cannot be the holding reading
    ruled_out: str = ""
    #: reading rule 3: degenerate(checks of this reading) -> "" or why the run cannot decide it
    #: (premise never met, too few qualifying cases); a degenerate reading is excluded
    degenerate: Callable[[list], str] | None = None
    #: reading rule 1: the severity entry (step or claim id) where the document's contradiction
    #: that supports this reading and another is recorded once
    see: str = ""

    def as_json(self) -> dict:
        """Return the reading as JSON: name, axis, quote, meaning (and hedge, ruled_out, see)."""
        out = {"name": self.name, "axis": self.axis, "quote": self.quote, "meaning": self.meaning}
        for k in ("hedge", "ruled_out", "see"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out


#: the reading of a claim that lists no alternatives
AS_PRINTED = Reading("as printed", "", "the statement as printed; no other reading is reasonable")


def by_form(*forms):
    """Select checks by form: a :attr:`Reading.select` that claims the checks of ``forms``."""
    return lambda c: c.form in forms


def by_quantity(*quantities):
    """Select checks by quantity: a :attr:`Reading.select` for the checks of ``quantities``."""
    return lambda c: c.quantity in quantities


@dataclass(frozen=True)
class Status:
    """A claim's final status with the verdict of every full reading.

    Parameters
    ----------
    claim : str
        The claim id.
    status : Verdict
        The final status.
    readings : dict
        Each full reading's verdict.
    failing : tuple of str
        The full readings that fail.
    degenerate, ruled_out, strict_only : tuple of str, default ()
        Full readings excluded as degenerate (rule 3), ruled out by the document (rule 6), or
        failing only when read strictly while the hedged reading holds (rule 2).
    see : tuple of str, default ()
        Where the contradiction behind the readings is recorded (rule 1), each once.
    """

    claim: str
    status: Verdict
    readings: dict
    failing: tuple[str, ...]
    #: full readings excluded as degenerate (rule 3), ruled out by the document (rule 6),
    #: failing only when read strictly while the hedged reading holds (rule 2)
    degenerate: tuple[str, ...] = ()
    ruled_out: tuple[str, ...] = ()
    strict_only: tuple[str, ...] = ()
    #: where the contradiction behind the readings is recorded (rule 1), each once
    see: tuple[str, ...] = ()

    def text(self) -> str:
        """Write the status in words, naming the failing readings when it depends on reading."""
        if self.status == DEPENDS:
            return f"{DEPENDS} (fails under: {'; '.join(self.failing)})"
        return str(self.status)

    def as_json(self) -> dict:
        """Return the status as JSON (status, failing, degenerate, ruled-out readings, see)."""
        return {"status": self.status, "failing_readings": list(self.failing),
                "degenerate": list(self.degenerate),
                "ruled_out": list(self.ruled_out), "strict_only": list(self.strict_only),
                "see": list(self.see)}


class CheckList(list):
    """The checks of a run, carrying also the run's tidy table and figure.

    ``rows`` are e.g. an experiment's per-run rows, from which its figure is drawn; ``figure``
    is the figure it makes.
    """

    rows: list = []
    figure: str = ""


@dataclass
class Grid:
    """Parameter grids for ``--quick`` (seconds) and ``--full`` (minutes)."""

    quick: dict
    full: dict


@dataclass
class Verification:
    """How one claim is checked.

    ``run(grid, seed, progress) -> list[CheckResult]`` computes the empirical side and the
    bounds; verdicts are filled in by :func:`verify.running.outcome.run_verification`.

    Parameters
    ----------
    claim : str
        The claim id; every other field is keyword-only.
    measures : str
        The empirical quantity.
    targets : str
        On which targets or spaces it is measured.
    method : str
        ``exact``, ``monte-carlo``, ``symbolic``, or several joined by ``+``.
    forms : str
        Which bound forms are checked (primary first).
    grid : Grid
        The quick and full parameter grids.
    run : callable
        ``run(grid, seed, progress) -> list[CheckResult]``.
    overrides : tuple of str, default ()
        Grid keys the command line may override.
    plot : callable, optional
        ``plot(report, path, dpi)``: the claim's own figure.
    search : object, optional
        See :mod:`verify.searching.search`.
    readings : tuple of Reading, default ()
        The claim's reasonable readings.
    execution : bool, default False
        Its run goes through the sweep engine and takes ``--workers``, ``--scheduler``,
        ``--cache``.
    name : str, default ""
        Display name ("Theorem 3"); default: from the id.
    proof : str, default ""
        Why the proof audit has no steps for this claim.
    grid_aliases : dict, optional
        Override key -> the other grid keys it also sets.
    adjust_grid : callable, optional
        ``adjust_grid(grid, overrides)``: grid entries derived from overrides.
    check_overrides : callable, optional
        ``check_overrides(grid, overrides) -> None`` or one line saying why they are refused.
    proof_forms : tuple of str, default ()
        Reading rule 4: the forms whose bounds are the proof's explicit constants.
    reproduction : callable, optional
        ``regenerate(out_dir, data_dir, **execution)``: rerun the claim's experiment at the
        paper's settings and store it.
    """

    claim: str
    _: KW_ONLY  # every field after the claim id is a keyword
    measures: str  # the empirical quantity
    targets: str  # on which targets / spaces
    method: str  # exact | monte-carlo | symbolic | combinations joined by '+'
    forms: str  # which bound forms are checked (primary first)
    grid: Grid
    run: Callable[..., list[CheckResult]]
    overrides: tuple[str, ...] = ()  # grid keys the command line may override
    # plot(report, path, dpi): the claim's own figure (verify.presenting.plot.figure)
    plot: Callable | None = None
    search: object | None = None  # see verify.searching.search
    readings: tuple[Reading, ...] = ()  # the claim's reasonable readings (see the module docstring)
    #: its run goes through the sweep engine (simulate.sweep.execute) and takes the execution
    #: options --workers, --scheduler, --cache (grid keys workers, scheduler, cache)
    execution: bool = False
    #: display name ("Theorem 3"); default: from the id (see verify.presenting.plot.claim_name)
    name: str = ""
    #: why the proof audit has no steps for this claim (e.g. "no proof in its document")
    proof: str = ""
    #: override key -> the other grid keys it also sets (e.g. --N sets every budget grid)
    grid_aliases: dict = field(default_factory=dict)
    #: adjust_grid(grid, overrides): grid entries derived from overrides (e.g. pairs (D, s) from
    #: --dim)
    adjust_grid: Callable | None = None
    #: check_overrides(grid, overrides) -> None or one line saying why the values are refused
    check_overrides: Callable | None = None
    #: reading rule 4: the forms whose bounds are the proof's explicit constants (not the
    #: statement's): their checks can support 'holds', but their violation is a gap of the proof
    #: (verify.decide)
    proof_forms: tuple[str, ...] = ()
    #: regenerate(out_dir, data_dir, **execution): rerun the claim's experiment at the paper's
    #: settings and store it (verify.running.reproductions); the claim then has a stored full run
    reproduction: Callable | None = None

    @property
    def primary_form(self) -> str:
        """The first of :attr:`forms`: the form whose checks decide the verdict."""
        return self.forms.split(",")[0].strip()
