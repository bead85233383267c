"""Run one claim's verification; its outcome is a :class:`Report`.

A report holds every check with the claim-level verdicts (:func:`verify.decide.final_status`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..decide import (
    ALPHA,
    assign_readings,
    combine,
    decide,
    degenerate_reasons,
    final_status,
    reading_verdicts,
)
from ..model import AS_PRINTED, CheckResult, Status, Verification, params_json
from ..presenting.formatting import fmt_ratio, group_checks
from .docio import audit_statements, audit_steps as recorded_steps


@dataclass
class Report:
    """All checks of one claim with the claim-level verdicts.

    ``verdict`` is the claim's final status (:func:`final_status`); ``readings`` maps each
    full reading to its verdict and ``failing_readings`` names those that fail.

    Parameters
    ----------
    claim : str
        The claim id.
    checks : list of verify.model.CheckResult
        The decided checks.
    seed : int
        The run's seed.
    elapsed_s : float
        Seconds of the run.
    bound_scale : float, default 1.0
        The ``--bound-scale`` of the run.
    primary_form : str, default ""
        The primary bound form.
    extra : dict, optional
        Further results of the run.
    reading_defs : tuple of verify.model.Reading, default ()
        The claim's readings.
    audit : dict, optional
        The audit's statement verdicts per reading option.
    audit_steps : dict, optional
        The recorded audit's steps of the claim (step id -> record).
    figure_png : callable, optional
        ``() -> bytes``: the PNG of the claim's figure, for Jupyter's display.
    computed_at : str, optional
        When the run was made (set by the runner; a cached report keeps its own).
    figure_view : dict, optional
        The claim's figure as the report shows it, drawn in the claim's worker (the runner).
    cached : bool, optional
        Whether the report came from the run cache.
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
    #: the recorded audit's steps of the claim (step id -> record,
    #: verify.running.docio.audit_steps): what :meth:`decisive_step` chooses from; the report
    #: reads no file
    audit_steps: dict = field(default_factory=dict)
    #: () -> PNG bytes of the claim's figure, for Jupyter's display (set by verify.run)
    figure_png: Callable | None = field(default=None, repr=False, compare=False)
    #: set by verify.running.runner: when the run was made (UTC; None: not known), its figure
    #: drawn in the worker, and whether the Report was read from the cache
    computed_at: str | None = field(default=None, repr=False, compare=False)
    figure_view: object = field(default=None, repr=False, compare=False)
    cached: bool = field(default=False, repr=False, compare=False)

    @property
    def empirical_readings(self) -> dict[str, str]:
        """``{full reading: verdict}`` from the checks alone (:func:`reading_verdicts`)."""
        return reading_verdicts(self.checks, self.reading_defs)

    @property
    def status(self) -> Status:
        """The claim's final status from the checks and the audit (:func:`final_status`)."""
        return final_status(self.claim, self.empirical_readings, self.audit, self.reading_defs)

    @property
    def verdict(self) -> str:
        """The final status in one word: holds, violated, inconclusive or depends on reading."""
        return self.status.status

    @property
    def readings(self) -> dict[str, str]:
        """``{full reading: verdict}``, the audit's statement verdicts included."""
        return self.status.readings

    @property
    def failing_readings(self) -> list[str]:
        """The full readings that fail (violated by a check or by the audit)."""
        return list(self.status.failing)

    def decisive(self) -> CheckResult | None:
        """Return the counterexample that decides the final status (reading rule 5).

        It is the deciding check violated furthest beyond its bound among the readings that
        fail, never one of a degenerate or ruled-out reading, nor one of a reading the hedge
        excuses; None when the claim holds.
        """
        st = self.status
        if not st.failing:
            return None
        names = {o for full in st.failing for o in full.split(" + ")}

        def excess(c):  # how far beyond the bound (ratio oriented so that > 1 is a violation)
            r = c.ratio if c.ratio is not None and c.ratio == c.ratio else 1.0
            return r if c.relation in ("<=", "<", "=") else (1 / r if r else float("inf"))

        cands = [c for c in self.checks if c.verdict == "violated" and c.primary and not c.proof
                 and (c.reading == "" or c.reading in names)]
        return max(cands, key=excess) if cands else None

    def decisive_step(self) -> dict | None:
        """Return the statement step failing a failing reading, when the audit decides (rule 5).

        It is chosen from :attr:`audit_steps`, the recorded audit's steps the report was given.
        """
        from .docio import decisive_step

        st = self.status
        if not st.failing:
            return None
        return decisive_step(self.claim, {o for full in st.failing for o in full.split(" + ")},
                             prefer=self.severity_fields().get("see"), steps=self.audit_steps)

    def severity_fields(self, status: str | None = None) -> dict:
        """Return how much the claim's final status matters (:mod:`verify.judging.severity`).

        The fields are ``severity``, ``severity_reason``, ``severity_quote``, ``see`` and
        ``certificate`` of the final status, or of ``status`` (a figure claim's at the paper's
        settings); None-valued when it holds.
        """
        from ..judging.severity import fields

        f = fields("claims", self.claim, status or self.verdict)
        return {k: f.get(k) for k in ("severity", "severity_reason", "severity_quote", "see",
                                      "certificate")}

    def form_verdicts(self) -> dict[str, str]:
        """Combine the checks of each form into one verdict: ``{form: verdict}``."""
        forms: dict[str, list] = {}
        for c in self.checks:
            forms.setdefault(c.form, []).append(c.verdict)
        return {f: combine(v) for f, v in forms.items()}

    def to_dataframe(self):
        """Tabulate the checks as a pandas DataFrame, one tidy row per check.

        The columns are claim, quantity, form, reading, method, relation, the parameters (one
        column each), empirical, stderr, bound, ratio, verdict, primary.

        Needs pandas (``pip install "mcsa-verify[dataframe]"``).
        """
        import pandas as pd

        rows = []
        for c in self.checks:
            row = {"claim": self.claim, "quantity": c.quantity, "form": c.form,
                   "reading": c.reading,
                   "method": c.method, "relation": c.relation, "empirical": c.empirical,
                   "stderr": c.stderr,
                   "bound": c.scaled_bound if c.scaled_bound is not None else c.bound,
                   "ratio": c.ratio,
                   "verdict": c.verdict, "primary": c.primary, "note": c.note}
            for k, v in params_json(c.params).items():
                row[f"param_{k}"] = v if not isinstance(v, (list, dict)) else str(v)
            rows.append(row)
        return pd.DataFrame(rows)

    def _summary_lines(self) -> list[tuple[str, str]]:
        st = self.status
        out = [("final status", st.text())]
        sev = self.severity_fields()
        if sev["severity"]:
            from ..judging.severity import reason_line

            out.append(("severity", reason_line(sev)))
        for what, names in (("degenerate (excluded, rule 3)", st.degenerate),
                            ("ruled out by the document (rule 6)", st.ruled_out),
                            ("fails only read strictly (rule 2: the hedged reading holds)",
                             st.strict_only)):
            if names:
                out.append((what, "; ".join(names)))
        for name, v in st.readings.items():
            out.append((f"reading: {name}", v))
        for g in group_checks(self.checks, by=("quantity", "form")):
            q, f = g.key
            out.append((f"{q} [{f}]{'' if g.primary else ' (not deciding)'}",
                        f"{g.verdict}: {g.holds} hold, {g.violated} violated, {g.inconclusive} "
                        f"inconclusive ({g.method}); worst ratio {fmt_ratio(g.worst)}"))
        return out

    def __repr__(self) -> str:
        """Show the claim, verdict, number of checks, seed and number of readings."""
        return (f"Report(claim={self.claim!r}, verdict={self.verdict!r}, "
                f"checks={len(self.checks)}, seed={self.seed}, readings={len(self.readings)})")

    def _repr_markdown_(self) -> str:
        lines = [
            f"**{self.claim}**: {self.status.text()} ({len(self.checks)} checks, seed {self.seed}, "
            f"false-violation rate of Monte Carlo verdicts <= {ALPHA:g} per claim)", "",
            "| | |", "|---|---|"]
        lines += [f"| {k} | {v} |".replace("||", "\\|\\|") for k, v in self._summary_lines()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>"
                       for k, v in self._summary_lines())
        fig = ""
        png = self.figure_png() if self.figure_png is not None else None
        if png:
            import base64

            fig = ('<img style="max-width:100%" src="data:image/png;base64,'
                   + base64.b64encode(png).decode("ascii") + '"/>')

        return (f"<div><b>{html.escape(self.claim)}</b>: {html.escape(self.status.text())} "
                f"({len(self.checks)} checks, seed {self.seed})<table>{rows}</table>{fig}</div>")

    def as_json(self) -> dict:
        """Return the report as strict JSON: verdicts, readings, reading rules, severity, checks."""
        st = self.status
        return {"claim": self.claim, "verdict": st.status, "seed": self.seed,
                "elapsed_s": self.elapsed_s,
                "bound_scale": self.bound_scale, "primary_form": self.primary_form,
                "form_verdicts": self.form_verdicts(), "alpha": ALPHA,
                "readings": st.readings, "failing_readings": list(st.failing),
                "reading_rules": {k: v for k, v in st.as_json().items()
                                  if k not in ("status", "failing_readings")},
                # every excluded reading with its reason (rule 3)
                "degenerate_readings": degenerate_reasons(self.checks, self.reading_defs),
                **self.severity_fields(),
                "decisive": (lambda d: d.as_json() if d is not None else None)(self.decisive()),
                "decisive_step": (lambda d: {k: d.get(k) for k in ("id", "status", "reading")} | {
                    "counterexample": (d.get("outcome") or {}).get("counterexample")} if d
                        else None)(self.decisive_step()),
                "empirical_readings": self.empirical_readings, "audit_statement": dict(self.audit),
                "reading_definitions": [r.as_json() for r in (self.reading_defs or (AS_PRINTED,))],
                "checks": [c.as_json() for c in self.checks], **self.extra}


def run_verification(v: Verification, mode: str = "quick", seed: int = 0, bound_scale: float = 1.0,
                     overrides: dict | None = None, progress=None,
                     execution: dict | None = None, audit: dict | None = None,
                     audit_steps: dict | None = None) -> Report:
    """Run a verification's grid, decide every check and the claim.

    Parameters
    ----------
    v : Verification
        The claim's verification.
    mode : {"quick", "full"}
        Which grid of ``v.grid``.
    seed : int
        Seed of every Monte Carlo check.
    bound_scale : float
        Tighten every bound by this factor (a small enough value must give "violated").
    overrides : dict, optional
        Grid values to use instead of the claim's (keys: ``v.overrides``).
    progress : callable, optional
        Passed to ``v.run``.
    execution : dict, optional
        ``{workers, scheduler, cache}`` for a claim with ``v.execution`` (how its cells run;
        the numbers do not depend on it).
    audit : dict, optional
        The audit's statement verdicts per reading option (default: the recorded audit's,
        :func:`verify.running.docio.audit_statements`, read through :mod:`verify.running.store`).
    audit_steps : dict, optional
        The recorded audit's steps of the claim (default: :func:`verify.running.docio.audit_steps`).

    Returns
    -------
    Report

    Raises
    ------
    KeyError
        An override the claim does not take, or execution options for a claim that takes none.
    """
    import time

    # what the audit recorded, read here (through the store), never by the report
    audit = audit_statements(v.claim) if audit is None else audit
    audit_steps = recorded_steps(v.claim) if audit_steps is None else audit_steps
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
    for c in checks:
        c.proof = c.proof or c.form in v.proof_forms
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(v.claim, checks, seed, time.perf_counter() - t0, bound_scale, v.primary_form,
                  reading_defs=tuple(v.readings), audit=audit, audit_steps=audit_steps)


def rescore(report: Report, bound_scale: float) -> Report:
    """Decide the same checks again with another ``bound_scale`` (no recomputation)."""
    import copy as _copy

    checks = [_copy.copy(c) for c in report.checks]
    n_mc = sum(1 for c in checks if c.method == "monte-carlo")
    for c in checks:
        decide(c, n_mc, bound_scale)
    return Report(report.claim, checks, report.seed, report.elapsed_s, bound_scale,
                  report.primary_form,
                  dict(report.extra), report.reading_defs, dict(report.audit),
                  dict(report.audit_steps))
