"""Proof-audit engine: each displayed step of a derivation as a checked relation.

A :class:`Step` records the relation printed between the expression before it and the
expression after it (``=``, ``<=``, ``<``, ``>=``), its justification as printed, and a
``check`` that decides one status:

``exact``      the printed relation holds as printed;
``valid``      an inequality that holds;
``loose``      printed as ``=``, but only ``<=`` (or ``>=``) holds — the gap is given;
``wrong``      a counterexample exists — given, with the corrected relation where one exists;
``unchecked``  not decidable here — the reason is given.

How steps are checked
---------------------
* Every row is decided on enclosures of its two sides (:mod:`verify.audit.instances`: exact
  rationals, ball arithmetic, or doubles with a proved error bound relative to the magnitudes
  they cancel -- never a tolerance with an absolute floor): a step is ``wrong`` only where the
  enclosures exclude the printed relation; a row they cannot decide is counted as undecided.
* Equalities: sympy simplifies the difference to 0 (``exact``); when simplification is
  inconclusive, both sides are evaluated at many random points at 50 digits with mpmath,
  a discrepancy is decided in ball arithmetic, and an equality that survives is *not
  refuted*.
* Inequalities: proved symbolically where sympy can (e.g. a difference that is a sum of
  non-negative terms on the domain), otherwise searched for a violation over the step's
  parameter domain, or checked on exact finite-state / Gaussian instances where the step
  is about distributions.
* Definitions used downstream are checked against independent computations (e.g.
  Smith-Tierney's n-step kernel against exact matrix powers).

Every computed relation that no proof settles is **attacked**: an optimiser maximises its
violation (lhs/rhs, or the difference where a side can vanish) over the step's whole
domain and its extreme regimes (:mod:`verify.audit.adversary`), after a derandomized
Hypothesis search whose failures shrink.  Each outcome says how it was established
(``established_by``):

``proof``           sympy decides the relation on the domain, or exact over a complete finite class;
``search``          survived the adversarial search: ``evaluations``, ``best_ratio`` (the largest
                    lhs/rhs reached, sides oriented so that > 1 breaks the relation) and the
                    ``regimes`` covered are recorded;
``not refuted``     an ``=`` whose rows agree only within their enclosures (doubles with their
                    proved error, ball arithmetic of a transcendental identity): searched the
                    same way, no disproof found -- which is not a proof;
``counterexample``  wrong or loose on an exact instance (given);
``definition``      the line restates a definition: nothing to establish;
``reading``         settled by reading the text (a substitution, a cited consequence);
``instances``       held on fixed instances only: never enough for ``valid`` or ``exact``
                    (the test suite refuses such a step).

A step may carry a check of its **correction** (``corrected``): it is searched the same
way, and a correction that the search breaks is withdrawn, not published.

A step that depends on a ``wrong`` step is marked ``affected``.  Outcomes are cached under a
digest of the code they depend on (:mod:`verify.audit.cache`).

Rooms
-----
This module declares steps (:func:`step`, :class:`Step`, :data:`STEPS`; :func:`step_table` takes
their printed text from a TOML table beside the declaring module) and re-exports the proof
author's kit from the modules that hold it:

:mod:`verify.audit.outcome`    the statuses and :class:`Outcome`; ``fixed``, ``definition``;
:mod:`verify.audit.instances`  :func:`instance_check`, :func:`first_failing`, ``searchable``;
:mod:`verify.audit.symbolic`   :func:`sym_equal`, :func:`sym_le`;
:mod:`verify.audit.search`     :func:`searched_run`, the Hypothesis strategies, the budgets;
:mod:`verify.audit.adversary`  the optimiser and the domains (``Real``, ``Int``, ``free``).
"""

from __future__ import annotations

import importlib.util
import inspect
import tomllib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ..registry import RegistryView, declare

# the proof author's kit, one import away (each name lives in its own room)
from .adversary import Int, Real, free, oriented_ratio, row_score  # noqa: F401
from .instances import explain, finite_pairs, first_failing, instance_check, searchable  # noqa: F401
from .outcome import (  # noqa: F401
    EXACT,
    LOOSE,
    SEVERITY,
    STATUSES,
    UNCHECKED,
    VALID,
    WRONG,
    Outcome,
    StepStatus,
    definition,
    fixed,
    unchecked,
)
from .search import SEARCH_BUDGET, SEARCH_EXAMPLES, STRATEGIES, searched_run  # noqa: F401
from .symbolic import sym_equal, sym_le  # noqa: F401


@dataclass
class Step:
    """One displayed step: ``lhs RELATION rhs`` with its printed justification."""

    id: str  # unique, e.g. "theorem3.var.6"
    claim: str  # claim or definition it belongs to
    seed: str
    location: str
    relation: str
    lhs: str  # as printed (human-readable)
    rhs: str
    justification: str
    check: Callable[[], Outcome]
    depends: tuple[str, ...] = ()
    expect: str = ""  # the audit's recorded status (tests pin it)
    statement: bool = False  # the claim's final statement
    # the reading option (verify.model.Reading.name) the statement is read under; "" = all
    reading: str = ""
    # Hypothesis examples when searched (default SEARCH_EXAMPLES)
    search_examples: int | None = None
    search_budget: int | None = None  # adversarial evaluations (default SEARCH_BUDGET / SYM_BUDGET)
    # a check of the correction, searched like the step
    corrected: Callable[[], Outcome] | None = None
    # why the printed step fails and its correction, given to a ``wrong`` outcome of ``check``
    why: str = ""
    correction: str | None = None
    # a condition the step holds under that the document does not print, with its source (the
    # check is made under it; docs/methods.md, section 11): "" when the printed text is complete
    assumes: str = ""
    _outcome: Outcome | None = field(default=None, repr=False)
    _digest: str | None = field(default=None, repr=False)

    @property
    def digest(self) -> str:
        """Return the digest of the code the outcome depends on (``cache.step_digest``)."""
        if self._digest is None:
            from .cache import step_digest

            self._digest = step_digest(self)
        return self._digest

    def compute(self) -> Outcome:
        """Run the check and its searches now (no cache)."""
        o = searched_run(self._checked, self.search_examples, self.search_budget, key=self.id)
        if self.corrected is not None and o.correction is not None:
            c = searched_run(self.corrected, self.search_examples, self.search_budget,
                             key=self.id + "/corrected")
            o = _judge_correction(o, c)
        return Outcome.from_json(o.to_json())  # what the cache gives back, to the last bit

    def _checked(self) -> Outcome:
        """``check()``, with the step's ``why`` and ``correction`` given to a wrong outcome."""
        return explain(self.check(), self.why, self.correction)

    def run(self) -> Outcome:
        """Return the outcome: stored when the stored digest matches, else computed and stored."""
        if self._outcome is None:
            from . import cache

            policy = CACHE.get()
            stored = cache.lookup(self.id, self.digest) if policy.read else None
            if stored is not None:
                self._outcome = Outcome.from_json(stored)
            else:
                self._outcome = self.compute()
                if policy.write:
                    cache.remember(self.id, self.digest, self._outcome.to_json())
        return self._outcome


@dataclass(frozen=True)
class CachePolicy:
    """Whether :meth:`Step.run` reads stored outcomes and stores computed ones."""

    read: bool = True
    write: bool = True


#: the cache policy of this context (``python -m verify audit --no-cache`` reads nothing);
#: :func:`caching` sets it for a block
CACHE: ContextVar[CachePolicy] = ContextVar("mcsa_audit_cache", default=CachePolicy())


@contextmanager
def caching(*, read: bool = True, write: bool = True) -> Iterator[CachePolicy]:
    """Run a block with the audit cache read and written as given (:class:`CachePolicy`).

    Parameters
    ----------
    read, write : bool
        Whether stored outcomes are read, and computed ones stored.

    Yields
    ------
    CachePolicy
        The policy in force inside the block; the one before comes back on leaving it.
    """
    token = CACHE.set(CachePolicy(read, write))
    try:
        yield CACHE.get()
    finally:
        CACHE.reset(token)


def _judge_correction(o: Outcome, c: Outcome) -> Outcome:
    """Attach the correction's check to the step's outcome.

    A correction that the search breaks is withdrawn.
    """
    if c.status in (EXACT, VALID, LOOSE):
        how = {"proof": "proved", "search": "survived the adversarial search",
               "not refuted": "survived the adversarial search, not refuted (an '=' whose rows "
                              "agree within their enclosures: not a proof)"}.get(
            c.established_by, f"holds ({c.established_by})")
        extra = ""
        if c.established_by in ("search", "not refuted") and c.evaluations:
            extra = f" ({c.evaluations} evaluations, largest lhs/rhs {_fmt(c.best_ratio)})"
        o.correction_status = f"{how}{extra}: {c.detail}"
        return o
    if c.status == WRONG:
        o.correction_status = f"withdrawn: our correction fails too: {c.detail}"
        o.correction = None
        return o
    o.correction_status = f"not checked: {c.detail}"
    return o


def _fmt(x) -> str:
    from mcsa_cli import number_text

    return number_text(x, ".6g", none="n/a")


#: step id -> :class:`Step`, in the registry in force (a read-only view, verify.registry)
STEPS: Mapping[str, Step] = RegistryView("steps")


def step(id, *, claim, seed, location, relation, lhs, rhs, justification, check, depends=(),
         expect="", statement=False, reading="", search_examples=None, search_budget=None,
         corrected=None, why="", correction=None, assumes="") -> Step:
    """Declare one displayed step of a derivation (see :class:`Step`).

    Parameters
    ----------
    id : str
        Unique, e.g. ``"theorem3.var.6"``.
    claim : str
        The claim (or definition) the step belongs to.
    seed : str
        The document's key in the bibliography (:mod:`bounds.references`).
    location : str
        Where the step is printed (section, equation, line), with a quote where it helps.
    relation : str
        The printed relation: ``"="``, ``"<="``, ``"<"``, ``">="`` or ``">"``.
    lhs, rhs : str
        Both sides as printed (readable text).
    justification : str
        The reason the document gives, or ``"—"``.
    check : callable
        Returns the step's :class:`Outcome` (:func:`instance_check`, :func:`first_failing`,
        :func:`sym_equal`, :func:`sym_le`, :func:`fixed`, :func:`definition`, ...).
    depends : tuple of str
        Steps this one uses: it is ``affected`` when one of them is wrong.
    expect : str
        The audit's recorded status, which the tests pin.
    statement : bool
        The step is the claim's final statement.
    reading : str
        The reading (:class:`verify.model.Reading` name) the statement is read under.
    search_examples, search_budget : int, optional
        Hypothesis examples and adversarial evaluations (defaults ``SEARCH_EXAMPLES``,
        ``SEARCH_BUDGET``).
    corrected : callable, optional
        Checks the correction; a correction the search breaks is withdrawn.
    why : str
        Why the printed step fails, ending with its own separator (``": "``): put before the
        detail of a ``wrong`` outcome of ``check`` (:func:`explain`).
    correction : str, optional
        The corrected relation, given to a ``wrong`` outcome of ``check``.
    assumes : str
        A condition the step holds under that the document does not print, with its source (a
        cited theorem's hypothesis, a range the lemma leaves implicit); the check is made under
        it, and the outputs show it beside the status, never inside the printed text.

    Returns
    -------
    Step
        The step, declared (:func:`verify.registry.declare`): a record of the module whose body
        declares it, which the document's ``register(registry)`` hook adds to the registry
        (:meth:`verify.registry.Registry.include`); then in :data:`STEPS`.

    Raises
    ------
    ValueError
        When a step of that id is registered already.
    """
    s = Step(id=id, claim=claim, seed=seed, location=location, relation=relation, lhs=lhs, rhs=rhs,
             justification=justification, check=check, depends=tuple(depends),
             expect=StepStatus(expect) if expect else "", statement=statement, reading=reading,
             search_examples=search_examples, search_budget=search_budget, corrected=corrected,
             why=why, correction=correction, assumes=assumes)
    return declare("step", s)


#: the keys a step table may give: :func:`step`'s arguments but the id, the document and the two
#: functions (the printed text and the declaration's plain values)
TEXT_KEYS = tuple(p for p in inspect.signature(step).parameters
                  if p not in ("id", "seed", "check", "corrected"))
#: the type of each key that is not text
_TEXT_TYPES = {"depends": list, "statement": bool, "search_examples": int, "search_budget": int}
_TYPE_WORDS = {str: "a string", list: "a list of step ids", bool: "true or false",
               int: "a whole number"}
#: every step table read: its file -> the ids it holds that no declaration has taken yet (a
#: read-only view of the registry in force)
UNUSED_TEXT: Mapping[str, set[str]] = RegistryView("step_text")


def step_table(module: str, *, seed: str) -> Callable[..., Step]:
    """Return a :func:`step` that takes each step's printed text from the module's table.

    The table is the TOML file beside the module (``proofs.toml`` for ``proofs.py``), one table
    a step id, with any of :data:`TEXT_KEYS`.  A document keeps the text it quotes (where a
    step is printed, both sides, the justification, why it fails and the correction) as data,
    and its module declares the checks: ``step("eq3", check=_eq3, corrected=_eq3_corrected)``.

    Parameters
    ----------
    module : str
        The declaring module's ``__name__``; it is being imported.
    seed : str
        The document's key in the bibliography, given to every step.

    Returns
    -------
    callable
        ``declare(id, **fields)``: :func:`step` with the table's entry for ``id`` (if any) and
        ``fields``; a field given both ways is an error.

    Raises
    ------
    ValueError
        When the table is not valid TOML, has a key outside :data:`TEXT_KEYS` or a value of
        the wrong type, or when a declaration repeats a key of the table.
    """
    spec = importlib.util.find_spec(module)  # the module being imported: found, not loaded again
    if spec is None or spec.origin is None:
        raise ValueError(f"step_table: no source file for module {module!r}")
    path = Path(spec.origin).with_suffix(".toml")
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: {e}") from None
    for sid, entry in table.items():
        bad = sorted(set(entry) - set(TEXT_KEYS))
        if bad:
            raise ValueError(f"{path.name}: step {sid}: unknown key(s) {', '.join(bad)}")
        for key, value in entry.items():
            want = _TEXT_TYPES.get(key, str)
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise ValueError(f"{path.name}: step {sid}: {key} must be {_TYPE_WORDS[want]}, "
                                 f"not {value!r}")
    unused = declare("text", (str(path), set(table)))[1]

    def declare_step(id, **fields) -> Step:
        entry = table.get(id, {})
        both = sorted(set(entry) & set(fields))
        if both:
            raise ValueError(f"step {id}: {', '.join(both)} given in {path.name} and in the code")
        unused.discard(id)
        return step(id, seed=seed, **entry, **fields)

    return declare_step


def status_with_affected(s: Step) -> tuple[str, bool]:
    """(status, affected): affected if any dependency (transitively) is wrong."""
    seen = set()

    def wrong_upstream(sid):
        for d in STEPS[sid].depends:
            if d in seen:
                continue
            seen.add(d)
            if STEPS[d].run().status == WRONG or wrong_upstream(d):
                return True
        return False

    return s.run().status, wrong_upstream(s.id)
