"""Checks, verdicts, readings and the verification registry.

A :class:`Verification` turns one claim of :mod:`bounds` into a list of
:class:`CheckResult` records: an empirical value (exact, Monte Carlo or symbolic), the
bound it is held against, their ratio (tightness) and a verdict.

Verdicts
--------
Monte Carlo, upper bound ``theta <= b``:
    ``violated`` when the one-sided lower confidence limit ``theta_hat - z se`` exceeds
    ``b``; ``holds`` when ``theta_hat <= b``; ``inconclusive`` otherwise.  ``z`` is the
    one-sided normal quantile at ``alpha / m`` where ``m`` is the claim's number of Monte
    Carlo checks (Bonferroni), so the false-violation rate per claim is at most
    ``alpha = 1e-3``.  Lower bounds mirror this; identities (``=``) use a two-sided test
    and are ``holds`` when consistent.
Exact (finite state spaces, quadrature, linear algebra):
    compared with a tolerance derived from the computation's error bound (plus float64
    rounding), never a guessed epsilon: ``holds`` or ``violated``.
Symbolic:
    sympy proves the relation (``holds``) or exhibits a counterexample (``violated``).

``bound_scale`` (``--bound-scale C``) tightens every bound: upper bounds are multiplied
by C, lower bounds divided by C, identities compared with C times their value.  A small
enough C must turn a claim's verdict into ``violated``: a check that cannot fail is a
defect (tested in ``tests/test_verify.py::test_power_a_small_bound_scale_gives_violated``).

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

:func:`final_status` is the one function that turns the per-reading verdicts into a
claim's final status: ``violated`` only when every reasonable reading fails,
``holds`` when every reading holds, ``depends on reading`` when some hold and some fail
(the failing ones are named), ``inconclusive`` otherwise.  ``Report.verdict``,
``python -m verify all/list``, docs/verdicts.json, docs/audit.json and docs/ERRATA.md
all use it (tests/test_readings.py checks that they agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

from bounds.clikit import dumps, jsonable  # noqa: F401  (dumps: strict JSON, used as core.dumps)

ALPHA = 1e-3  # false-violation rate per claim for Monte Carlo verdicts
HOLDS, VIOLATED, INCONCLUSIVE = "holds", "violated", "inconclusive"
DEPENDS = "depends on reading"
STATUSES = (HOLDS, VIOLATED, INCONCLUSIVE, DEPENDS)
EXIT = {HOLDS: 0, VIOLATED: 1, INCONCLUSIVE: 3, DEPENDS: 4}
METHODS = ("exact", "monte-carlo", "symbolic")
RELATIONS = ("<=", ">=", "=", "<", ">")


@dataclass
class CheckResult:
    """One empirical value held against one bound form at one parameter point."""

    quantity: str
    form: str
    params: dict
    empirical: float
    bound: float
    method: str
    relation: str = "<="
    stderr: float | None = None  # Monte Carlo standard error
    tolerance: float = 0.0  # exact checks: allowed absolute discrepancy (from error bounds)
    primary: bool = True  # counts towards the claim verdict
    note: str = ""
    verdict: str = ""
    ratio: float = float("nan")
    z: float | None = None  # critical value used (Monte Carlo)
    scaled_bound: float | None = None
    reading: str = ""  # the reading (option of one axis) this check belongs to; "" = shared by all

    def as_json(self) -> dict:
        def num(x):  # NaN -> None, +/-inf -> "inf"/"-inf" (the command lines' strict JSON)
            return None if x is None else jsonable(float(x))

        return {"quantity": self.quantity, "form": self.form, "params": _jsonable(self.params),
                "empirical": num(self.empirical), "stderr": num(self.stderr), "bound": num(self.scaled_bound),
                "ratio": num(self.ratio), "verdict": self.verdict, "method": self.method,
                "relation": self.relation, "tolerance": num(self.tolerance), "primary": self.primary,
                "note": self.note, "reading": self.reading}


def _jsonable(d):
    out = {}
    for k, v in d.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = v
    return out


def z_one_sided(alpha: float) -> float:
    return float(stats.norm.isf(alpha))


def scale_bound(bound: float, relation: str, C: float) -> float:
    """Tighten a bound by C (see module docstring)."""
    if relation in ("<=", "<", "="):
        return bound * C
    return bound / C  # lower bounds


def decide(check: CheckResult, n_mc: int, bound_scale: float = 1.0, alpha: float = ALPHA) -> CheckResult:
    """Fill in ``verdict``, ``ratio``, ``z`` and ``scaled_bound`` of one check."""
    b = scale_bound(check.bound, check.relation, bound_scale)
    check.scaled_bound = b
    th = check.empirical
    with np.errstate(divide="ignore", invalid="ignore"):
        check.ratio = float(th / b) if b != 0 else (0.0 if th == 0 else math.inf)
    if check.method == "exact" and max(abs(th), abs(b)) <= check.tolerance:
        check.ratio = float("nan")  # both below the numerical resolution: no tightness to report
    rel = check.relation
    if not (math.isfinite(th) or math.isinf(th)) or (isinstance(b, float) and b != b):
        check.verdict = INCONCLUSIVE
        return check
    if check.method == "monte-carlo":
        se = float(check.stderr or 0.0)
        if rel == "=":
            z = z_one_sided(alpha / (2 * max(n_mc, 1)))
            check.z = z
            check.verdict = VIOLATED if abs(th - b) > z * se + check.tolerance else HOLDS
            return check
        z = z_one_sided(alpha / max(n_mc, 1))
        check.z = z
        if rel in ("<=", "<"):
            lcl = th - z * se
            strict = rel == "<"
            if lcl > b + check.tolerance or (strict and lcl >= b + check.tolerance and se == 0):
                check.verdict = VIOLATED
            elif th < b or (th == b and not strict):
                check.verdict = HOLDS
            else:
                check.verdict = INCONCLUSIVE
        else:
            ucl = th + z * se
            strict = rel == ">"
            if ucl < b - check.tolerance:
                check.verdict = VIOLATED
            elif th > b or (th == b and not strict):
                check.verdict = HOLDS
            else:
                check.verdict = INCONCLUSIVE
        return check
    # exact and symbolic checks
    tol = check.tolerance
    if rel == "<=":
        ok = th <= b + tol
    elif rel == "<":
        ok = th < b - tol  # strictness must be resolved beyond the numerical error
    elif rel == ">=":
        ok = th >= b - tol
    elif rel == ">":
        ok = th > b + tol
    else:
        ok = abs(th - b) <= tol
    check.verdict = HOLDS if ok else VIOLATED
    return check


def combine(verdicts: list[str]) -> str:
    """Checks -> one verdict: violated if any is, holds if all do, else inconclusive."""
    if not verdicts:
        return INCONCLUSIVE
    if VIOLATED in verdicts:
        return VIOLATED
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    return INCONCLUSIVE


def fmt(x) -> str:
    """A number for a table: 4 significant digits; '—' when absent, 'n/a' for NaN, '∞'."""
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.4g}"


def fmt_ratio(c) -> str:
    """empirical / bound of a check, said in words where it is not a number."""
    r = c.ratio
    if r is not None and math.isfinite(r):
        if r >= 1e3 and c.relation in ("<=", "<"):  # say what a huge ratio means
            return f"{r:.4g} (bound {math.log10(r):.0f} orders of magnitude too small)"
        return f"{r:.4g}"
    b, e = c.scaled_bound, c.empirical
    if b is not None and b == 0:  # a sign or a slope compared with 0: no tightness ratio
        return "n/a (bound is 0)"
    if b is not None and math.isinf(b):
        return "0 (bound is ∞)"
    if e is None or (isinstance(e, float) and math.isnan(e)):
        return "n/a (no estimate)"
    return fmt(r)


@dataclass
class CheckGroup:
    """The checks of one (quantity, form[, reading]) of a claim, summarised for tables."""

    key: tuple
    checks: list
    holds: int
    violated: int
    inconclusive: int
    verdict: str
    primary: bool
    method: str
    worst: "CheckResult"  # a violated check first, then the largest finite ratio


def group_checks(checks, by=("quantity", "form")) -> list[CheckGroup]:
    """Checks grouped by the fields ``by``, in order of first appearance, each with its
    counts, combined verdict and worst check (used by ``verify CLAIM`` and the report)."""
    groups: dict[tuple, list] = {}
    for c in checks:
        groups.setdefault(tuple(getattr(c, k) for k in by), []).append(c)
    def badness(c):
        r = c.ratio
        return (c.verdict == VIOLATED, r if r is not None and math.isfinite(r) else -math.inf)

    out = []
    for key, cs in groups.items():
        verdicts = [c.verdict for c in cs]
        out.append(CheckGroup(key, cs, verdicts.count(HOLDS), verdicts.count(VIOLATED), verdicts.count(INCONCLUSIVE),
                              combine(verdicts), any(c.primary for c in cs), cs[0].method, max(cs, key=badness)))
    return out


def summary_status(statuses) -> str:
    """Claims -> the status of a whole run (``verify all``): violated if any claim is,
    else depends on reading if any claim does, holds if all do, else inconclusive."""
    statuses = list(statuses)
    if not statuses:
        return INCONCLUSIVE
    for s in (VIOLATED, DEPENDS):
        if s in statuses:
            return s
    return HOLDS if all(s == HOLDS for s in statuses) else INCONCLUSIVE


# ----------------------------------------------------------------------------- readings
@dataclass(frozen=True)
class Reading:
    """One reasonable reading of (part of) a claim's statement.

    ``axis`` names what is being read (e.g. "conditioning"); the options of one axis
    exclude each other and a full reading picks one option per axis.  ``quote`` is the
    text read, ``meaning`` one sentence on how it is read.  ``select`` (optional) claims
    the checks of a run that belong to this option; checks no option claims are shared.
    """

    name: str
    quote: str
    meaning: str
    axis: str = "statement"
    select: Callable[[CheckResult], bool] | None = None
    promote: bool = False  # the checks it selects count towards its verdict even if not primary

    def as_json(self) -> dict:
        return {"name": self.name, "axis": self.axis, "quote": self.quote, "meaning": self.meaning}


#: the reading of a claim that lists no alternatives
AS_PRINTED = Reading("as printed", "", "the statement as printed; no other reading is reasonable")


def by_form(*forms):
    return lambda c: c.form in forms


def by_quantity(*quantities):
    return lambda c: c.quantity in quantities


def full_readings(readings) -> list[tuple[Reading, ...]]:
    """Every full reading: one option per axis (axes in order of first appearance)."""
    import itertools

    readings = tuple(readings) or (AS_PRINTED,)
    axes: dict[str, list[Reading]] = {}
    for r in readings:
        axes.setdefault(r.axis, []).append(r)
    return [tuple(c) for c in itertools.product(*axes.values())]


def reading_name(combo) -> str:
    return " + ".join(r.name for r in combo)


def reading_verdicts(checks, readings) -> dict[str, str]:
    """The empirical verdict of each full reading: its own primary checks and the shared ones."""
    out = {}
    for combo in full_readings(readings):
        names = {r.name for r in combo}
        own = [c.verdict for c in checks if c.primary and (c.reading == "" or c.reading in names)]
        out[reading_name(combo)] = combine(own)
    return out


@dataclass(frozen=True)
class Status:
    """A claim's final status with the verdict of every full reading."""

    claim: str
    status: str
    readings: dict
    failing: tuple[str, ...]

    def text(self) -> str:
        if self.status == DEPENDS:
            return f"{DEPENDS} (fails under: {'; '.join(self.failing)})"
        return self.status


def final_status(claim_id: str, empirical: dict | None = None, audit: dict | None = None,
                 readings=None) -> Status:
    """THE function that decides a claim's final status (see the module docstring).

    ``empirical``: {full reading: verdict} from the checks (a :class:`Report` or
    docs/verdicts.json); ``audit``: {reading option or "": "fails" | "survives"} from the
    audit's statement steps (docs/audit.json or :func:`verify.audit.statement_readings`);
    ``readings``: the claim's :class:`Reading` list (default: the registry's).  A full
    reading fails when its checks fail or when the audit finds its printed statement wrong.
    """
    if readings is None:
        v = REGISTRY.get(claim_id)
        readings = v.readings if v is not None else ()
    audit = audit or {}
    merged = {}
    for combo in full_readings(readings):
        name = reading_name(combo)
        verdict = (empirical or {}).get(name, INCONCLUSIVE if empirical is not None else None)
        options = {""} | {r.name for r in combo}
        if any(audit.get(o) == "fails" for o in options):
            verdict = VIOLATED
        elif verdict is None:  # audit only: a surviving statement is not an empirical 'holds'
            verdict = INCONCLUSIVE
        merged[name] = verdict
    vs = list(merged.values())
    failing = tuple(k for k, val in merged.items() if val == VIOLATED)
    if vs and all(x == HOLDS for x in vs):
        status = HOLDS
    elif vs and all(x == VIOLATED for x in vs):
        status = VIOLATED
    elif failing and HOLDS in vs:
        status = DEPENDS
    else:
        status = INCONCLUSIVE
    return Status(claim_id, status, merged, failing)


#: packaged data (verify/data/, read with importlib.resources: see verify.resources)
VERDICTS_DOC = "verdicts.json"
AUDIT_DOC = "audit.json"


def audit_statements(claim_id: str) -> dict:
    """The audit's verdict on the claim's printed statement per reading option, from the
    packaged audit.json (kept current by tests/test_audit.py)."""
    return load_doc(AUDIT_DOC).get("claims", {}).get(claim_id, {}).get("statement", {})


def load_doc(name: str) -> dict:
    """A packaged JSON document of verify/data/ (``{}`` when missing or unreadable)."""
    from .resources import read_json

    return read_json(name)


class CheckList(list):
    """The checks of a run that also carries the run's tidy table (``rows``: e.g. an
    experiment's per-run rows, from which its figure is drawn) and the ``figure`` it makes."""

    rows: list = []
    figure: str = ""


@dataclass
class Report:
    """All checks of one claim with the claim-level verdicts.

    ``verdict`` is the claim's final status (:func:`final_status`); ``readings`` maps each
    full reading to its verdict and ``failing_readings`` names those that fail.
    """

    claim: str
    checks: list[CheckResult]
    seed: int
    elapsed_s: float
    bound_scale: float = 1.0
    primary_form: str = ""
    extra: dict = field(default_factory=dict)
    reading_defs: tuple = ()  # the claim's Reading list
    audit: dict = field(default_factory=dict)  # audit statement verdicts per reading option
    #: () -> PNG bytes of the claim's figure, for Jupyter's display (set by verify.run)
    figure_png: Callable | None = field(default=None, repr=False, compare=False)

    @property
    def empirical_readings(self) -> dict[str, str]:
        return reading_verdicts(self.checks, self.reading_defs)

    @property
    def status(self) -> Status:
        return final_status(self.claim, self.empirical_readings, self.audit, self.reading_defs)

    @property
    def verdict(self) -> str:
        return self.status.status

    @property
    def readings(self) -> dict[str, str]:
        return self.status.readings

    @property
    def failing_readings(self) -> list[str]:
        return list(self.status.failing)

    def form_verdicts(self) -> dict[str, str]:
        forms = {}
        for c in self.checks:
            forms.setdefault(c.form, []).append(c.verdict)
        return {f: combine(v) for f, v in forms.items()}

    def to_dataframe(self):
        """One tidy row per check: claim, quantity, form, reading, method, relation, the
        parameters (one column each), empirical, stderr, bound, ratio, verdict, primary.

        Needs pandas (``pip install "mcsa-verify[dataframe]"``)."""
        import pandas as pd

        rows = []
        for c in self.checks:
            row = {"claim": self.claim, "quantity": c.quantity, "form": c.form, "reading": c.reading,
                   "method": c.method, "relation": c.relation, "empirical": c.empirical, "stderr": c.stderr,
                   "bound": c.scaled_bound if c.scaled_bound is not None else c.bound, "ratio": c.ratio,
                   "verdict": c.verdict, "primary": c.primary, "note": c.note}
            for k, v in _jsonable(c.params).items():
                row[f"param_{k}"] = v if not isinstance(v, (list, dict)) else str(v)
            rows.append(row)
        return pd.DataFrame(rows)

    def _summary_lines(self) -> list[tuple[str, str]]:
        st = self.status
        out = [("final status", st.text())]
        for name, v in st.readings.items():
            out.append((f"reading: {name}", v))
        for g in group_checks(self.checks, by=("quantity", "form")):
            q, f = g.key
            out.append((f"{q} [{f}]{'' if g.primary else ' (not deciding)'}",
                        f"{g.verdict}: {g.holds} hold, {g.violated} violated, {g.inconclusive} inconclusive"
                        f" ({g.method}); worst ratio {fmt_ratio(g.worst)}"))
        return out

    def __repr__(self) -> str:
        return (f"Report(claim={self.claim!r}, verdict={self.verdict!r}, checks={len(self.checks)}, "
                f"seed={self.seed}, readings={len(self.readings)})")

    def _repr_markdown_(self) -> str:
        lines = [f"**{self.claim}**: {self.status.text()} ({len(self.checks)} checks, seed {self.seed}, "
                 f"false-violation rate of Monte Carlo verdicts <= {ALPHA:g} per claim)", "",
                 "| | |", "|---|---|"]
        lines += [f"| {k} | {v} |".replace("||", "\\|\\|") for k, v in self._summary_lines()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in self._summary_lines())
        fig = ""
        png = self.figure_png() if self.figure_png is not None else None
        if png:
            import base64

            fig = '<img style="max-width:100%" src="data:image/png;base64,' + base64.b64encode(png).decode("ascii") + '"/>'

        return (f"<div><b>{html.escape(self.claim)}</b>: {html.escape(self.status.text())} "
                f"({len(self.checks)} checks, seed {self.seed})<table>{rows}</table>{fig}</div>")

    def as_json(self) -> dict:
        st = self.status
        return {"claim": self.claim, "verdict": st.status, "seed": self.seed, "elapsed_s": self.elapsed_s,
                "bound_scale": self.bound_scale, "primary_form": self.primary_form,
                "form_verdicts": self.form_verdicts(), "alpha": ALPHA,
                "readings": st.readings, "failing_readings": list(st.failing),
                "empirical_readings": self.empirical_readings, "audit_statement": dict(self.audit),
                "reading_definitions": [r.as_json() for r in (self.reading_defs or (AS_PRINTED,))],
                "checks": [c.as_json() for c in self.checks], **self.extra}


def verdicts_document(reports, mode: str, seed: int, stored: dict | None = None) -> dict:
    """docs/verdicts.json: the final status of every claim (:func:`final_status`), the
    verdict of each full reading, the failing readings and the empirical part alone.

    ``stored``: claim -> its stored run at the paper's settings (``verify.reproductions.stored_full_run``).
    Such a claim's status, readings and failing readings are the stored run's, so that every
    reader of this document (``verify list``, the coverage table, audit.json, ERRATA.md, the
    docs site) shows the status at the paper's settings; this run's own verdict (a quick smoke
    test) is kept under ``smoke_tests``."""
    stored = {cid: st for cid, st in (stored or {}).items() if st is not None}
    verdicts = {r.claim: r.verdict for r in reports}
    failing = {r.claim: r.failing_readings for r in reports if r.failing_readings}
    final = {r.claim: r.readings for r in reports}
    emp = {r.claim: r.empirical_readings for r in reports}
    smoke = {}
    for cid, st in stored.items():
        if cid not in verdicts:
            continue
        smoke[cid] = {"verdict": verdicts[cid], "readings": emp[cid]}
        verdicts[cid] = st["verdict"]
        final[cid] = emp[cid] = dict(st.get("final_readings") or {})
        failing.pop(cid, None)
        if st.get("failing_readings"):
            failing[cid] = list(st["failing_readings"])
    doc = {"mode": mode, "seed": seed, "verdicts": verdicts, "failing_readings": failing, "final_readings": final,
           "readings": emp}
    if smoke:
        doc["smoke_tests"] = smoke
    return doc


def write_verdicts(reports, mode: str, seed: int, stored: dict | None = None) -> str:
    """Write verify/data/verdicts.json (from a source checkout only: UsageError otherwise)."""
    from .resources import data_file

    p = data_file(VERDICTS_DOC)
    p.write_text(dumps(verdicts_document(reports, mode, seed, stored), indent=1) + "\n")
    return str(p)


def status_cell(report_or_status) -> str:
    """One table cell: the final status, with the failing readings when it depends on them."""
    st = report_or_status.status if isinstance(report_or_status, Report) else report_or_status
    return st.text()


def readings_text(report: Report) -> str:
    """Rendering for ``verify CLAIM``: each reading option with its quote and meaning,
    then each full reading's verdict."""
    lines = ["readings:"]
    for r in report.reading_defs or (AS_PRINTED,):
        quote = r.quote
        if not quote:  # a claim with one reading: quote its statement as the claim library records it
            import bounds

            claim = bounds.get(report.claim)
            quote = f"{claim.title} ({claim.source})"
        q = f' "{quote}"'
        n = sum(1 for c in report.checks if c.reading == r.name)
        lines.append(f"  [{r.axis}] {r.name}:{q} — {r.meaning} ({n} own checks)")
    st = report.status
    for name, v in st.readings.items():
        src = " (audit: statement fails)" if any(report.audit.get(o) == "fails" for o in [""] + name.split(" + ")) else ""
        lines.append(f"  => {name}: {v}{src}")
    lines.append(f"final status: {st.text()}")
    return "\n".join(lines)


@dataclass
class Grid:
    """Parameter grids for ``--quick`` (seconds) and ``--full`` (minutes)."""

    quick: dict
    full: dict


@dataclass
class Verification:
    """How one claim is checked.

    ``run(grid, seed, progress) -> list[CheckResult]`` computes the empirical side and the
    bounds; verdicts are filled in by :func:`run_verification`.
    """

    claim: str
    measures: str  # the empirical quantity
    targets: str  # on which targets / spaces
    method: str  # exact | monte-carlo | symbolic | combinations joined by '+'
    forms: str  # which bound forms are checked (primary first)
    grid: Grid
    run: Callable[..., list[CheckResult]]
    overrides: tuple[str, ...] = ()  # grid keys the command line may override
    plot: Callable | None = None  # plot(report, path, dpi): the claim's own figure (verify.plot.figure)
    search: object | None = None  # see verify.search
    readings: tuple[Reading, ...] = ()  # the claim's reasonable readings (see the module docstring)
    #: its run goes through the sweep engine (simulate.sweep.execute) and takes the execution
    #: options --workers, --scheduler, --cache (grid keys workers, scheduler, cache)
    execution: bool = False
    #: display name ("Theorem 3"); default: from the id (see verify.plot.claim_name)
    name: str = ""
    #: why the proof audit has no steps for this claim (e.g. "no proof in its document")
    proof: str = ""
    #: override key -> the other grid keys it also sets (e.g. --N sets every budget grid)
    grid_aliases: dict = field(default_factory=dict)
    #: adjust_grid(grid, overrides): grid entries derived from overrides (e.g. pairs (D, s) from --dim)
    adjust_grid: Callable | None = None
    #: check_overrides(grid, overrides) -> None or one line saying why the values are refused
    check_overrides: Callable | None = None
    #: regenerate(out_dir, data_dir, **execution): rerun the claim's experiment at the paper's
    #: settings and store it (verify.reproductions); the claim then has a stored full run
    reproduction: Callable | None = None

    @property
    def primary_form(self) -> str:
        return self.forms.split(",")[0].strip()


def run_verification(v: Verification, mode: str = "quick", seed: int = 0, bound_scale: float = 1.0,
                     overrides: dict | None = None, progress=None, execution: dict | None = None) -> Report:
    """``execution``: {workers, scheduler, cache} for a claim with ``v.execution`` (how its
    cells run; the numbers do not depend on it)."""
    import time

    grid = dict(v.grid.quick if mode == "quick" else v.grid.full)
    if execution:
        if not v.execution:
            raise KeyError(f"{v.claim} takes no execution options")
        grid.update({k: val for k, val in execution.items() if val is not None})
    for k, val in (overrides or {}).items():
        if k not in v.overrides:
            raise KeyError(k)
        grid[k] = val
        for alias in v.grid_aliases.get(k, ()):  # e.g. --N sets every budget grid of the claim
            if alias in grid:
                grid[alias] = list(val)
    if overrides and v.adjust_grid is not None:
        v.adjust_grid(grid, overrides)
    t0 = time.perf_counter()
    checks = v.run(grid, seed=seed, progress=progress)
    assign_readings(checks, v.readings)
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(v.claim, checks, seed, time.perf_counter() - t0, bound_scale, v.primary_form,
                  reading_defs=tuple(v.readings), audit=audit_statements(v.claim))


def assign_readings(checks, readings) -> None:
    """Tag each untagged check with the first reading option whose ``select`` claims it."""
    known = {r.name for r in readings}
    for c in checks:
        if c.reading:
            if c.reading not in known:
                raise ValueError(f"check tagged with unknown reading {c.reading!r}")
            continue
        for r in readings:
            if r.select is not None and r.select(c):
                c.reading = r.name
                c.primary = c.primary or r.promote
                break


def rescore(report: Report, bound_scale: float) -> Report:
    """The same checks decided again with another ``bound_scale`` (no recomputation)."""
    import copy as _copy

    checks = [_copy.copy(c) for c in report.checks]
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(report.claim, checks, report.seed, report.elapsed_s, bound_scale, report.primary_form,
                  dict(report.extra), report.reading_defs, dict(report.audit))


REGISTRY: dict[str, Verification] = {}


def register(v: Verification) -> Verification:
    REGISTRY[v.claim] = v
    return v


#: bound values already computed in this process: (claim, quantity, form, params) -> float.  A bound is a pure
#: function of its parameters, and a verification evaluates the same one at many checks (every state of a chain,
#: every score), some of them through adaptive-precision mpmath
_BOUND_VALUES: dict = {}


def bound_value(claim_id: str, quantity: str, form: str, **params) -> float:
    """A bound from :mod:`bounds` as a float (values outside double range saturate); memoised per process on
    the exact parameter values (``repr`` of each, the bytes of an array: 0.1 and 0.1 + 1e-17 are different keys)."""
    import bounds

    def exact(v):  # repr of an array elides its middle: arrays are keyed by their bytes
        if isinstance(v, np.ndarray):
            return (v.dtype.str, v.shape, v.tobytes())
        return (type(v).__name__, repr(v))

    try:
        key = (claim_id, quantity, form, tuple(sorted((k, exact(v)) for k, v in params.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _BOUND_VALUES:
        return _BOUND_VALUES[key]
    val = float(bounds.get(claim_id).evaluate_form(quantity, form, **params))
    if key is not None and len(_BOUND_VALUES) < 200_000:
        _BOUND_VALUES[key] = val
    return val


#: relative float64 allowance of exact finite computations (sums and matrix products of a
#: few thousand terms: accumulated rounding stays far below this)
EPS_EXACT = 1e-11


class hypothesis_without_local_constants:
    """Context manager: Hypothesis draws no constants harvested from the modules that happen
    to be imported (Hypothesis >= 6.131 mixes literals of every loaded local module into its
    draws with probability 0.05), so a derandomized search gives the same examples whatever
    else the process has imported (a command line, or any order of a test run)."""

    def __enter__(self):
        try:
            from hypothesis.internal.conjecture import providers as P
            from hypothesis.internal.constants_ast import Constants

            self._P, self._orig = P, P._get_local_constants
            empty = Constants()
            P._get_local_constants = lambda: empty
            P.CONSTANTS_CACHE.cache.clear()
        except (ImportError, AttributeError):  # another Hypothesis version: nothing to switch off
            self._P = None
        return self

    def __exit__(self, *exc):
        if self._P is not None:
            self._P._get_local_constants = self._orig
            self._P.CONSTANTS_CACHE.cache.clear()
        return False


#: examples per tightness search (derandomized Hypothesis; see :func:`tightness_search`)
TIGHTNESS_EXAMPLES = 40


def tightness_search(strategy, evaluate, max_examples: int = TIGHTNESS_EXAMPLES):
    """Largest empirical/bound ratio of a corrected form over random instances.

    Hypothesis draws instances from ``strategy`` (derandomized: the same examples on every
    run, so the result cannot depend on a seed) and steers towards the largest ratio with
    ``hypothesis.target``; ``evaluate(instance) -> (empirical, bound, params)`` computes
    both sides exactly.  Returns ``(ratio, empirical, bound, params, examples)`` at the
    instance with the largest ratio (a ratio above 1 is a counterexample)."""
    from hypothesis import HealthCheck, Phase, given, settings, target

    best = {"ratio": -math.inf}
    n = [0]

    @settings(max_examples=max_examples, database=None, derandomize=True, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target])
    @given(strategy)
    def probe(inst):
        n[0] += 1
        emp, b, params = evaluate(inst)
        ratio = emp / b if b > 0 else (0.0 if emp <= 0 else math.inf)
        target(float(min(ratio, 1e300)), label="empirical/bound")
        if ratio > best["ratio"]:
            best.update(ratio=ratio, emp=emp, b=b, params=params)

    with hypothesis_without_local_constants():
        probe()
    return best["ratio"], best["emp"], best["b"], best["params"], n[0]


def tightness_check(claim: str, quantity: str, form: str, strategy, evaluate, space: str, **kw) -> CheckResult:
    """The tightness of one corrected form as a check: the instance of largest ratio found."""
    ratio, emp, b, params, n = tightness_search(strategy, evaluate, **kw)
    return CheckResult(f"{quantity} (tightness search)", form, {**params, "space": space}, emp, b, "exact",
                       tolerance=exact_tolerance(emp, b), primary=False,
                       note=f"largest empirical/bound ratio {ratio:.4g} over {n} derandomized Hypothesis examples "
                            f"(random finite pi, q, states, scores): the form's tightness")


def exact_tolerance(*values, err: float = 0.0) -> float:
    """Tolerance of an exact check: the computation's own error bound ``err`` plus float64
    rounding relative to the magnitudes involved."""
    return err + EPS_EXACT * max([1.0] + [abs(float(v)) for v in values])
