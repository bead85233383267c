"""Numbers, statuses and readings as text, and the check groups of the summary tables
(``python -m verify CLAIM``, ``verify all``, the HTML report and a Report's Jupyter display)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from mcsa_cli import number_text

from ..decide import combine
from ..model import AS_PRINTED, HOLDS, INCONCLUSIVE, VIOLATED, CheckResult, Status


def fmt(x) -> str:
    """A number for a table: 4 significant digits; '—' when absent, 'n/a' for NaN, '∞'.

    Parameters
    ----------
    x : float or str or None
        A number (a string is shown as it is).

    Returns
    -------
    str
    """
    return x if isinstance(x, str) else number_text(x, ".4g", nan="n/a", inf="∞")


def fmt_ratio(c, short: bool = False) -> str:
    """empirical / bound of a check, said in words where it is not a number (``short``: the
    number alone, 'n/a' or '0', for a table cell)."""
    r = c.ratio
    if r is not None and math.isfinite(r):
        if r >= 1e3 and c.relation in ("<=", "<") and not short:  # say what a huge ratio means
            return f"{r:.4g} (bound {math.log10(r):.0f} orders of magnitude too small)"
        return f"{r:.4g}"
    b, e = c.scaled_bound, c.empirical
    if b is not None and b == 0:  # a sign or a slope compared with 0: no tightness ratio
        return "n/a" if short else "n/a (bound is 0)"
    if b is not None and math.isinf(b):
        return "0" if short else "0 (bound is ∞)"
    if e is None or (isinstance(e, float) and math.isnan(e)):
        return "n/a" if short else "n/a (no estimate)"
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
        out.append(CheckGroup(key, cs, verdicts.count(HOLDS), verdicts.count(VIOLATED),
                              verdicts.count(INCONCLUSIVE),
                              combine(verdicts), any(c.primary for c in cs), cs[0].method,
                              max(cs, key=badness)))
    return out


def status_cell(report_or_status) -> str:
    """One table cell: the final status, with the failing readings when it depends on them."""
    st = report_or_status if isinstance(report_or_status, Status) else report_or_status.status
    return st.text()


def readings_text(report) -> str:
    """Rendering for ``verify CLAIM``: each reading option with its quote and meaning,
    then each full reading's verdict (the final status is printed once, above, by the caller)."""
    lines = ["readings:"]
    for r in report.reading_defs or (AS_PRINTED,):
        quote = r.quote
        # a claim with one reading: quote its statement as the claim library records it
        if not quote:
            import bounds

            claim = bounds.get(report.claim)
            quote = f"{claim.title} ({claim.source})"
        q = f' "{quote}"'
        n = sum(1 for c in report.checks if c.reading == r.name)
        lines.append(f"  [{r.axis}] {r.name}:{q} — {r.meaning} ({n} own checks)")
    st = report.status
    for name, v in st.readings.items():
        src = " (audit: statement fails)" if any(report.audit.get(o) == "fails"
                                                 for o in [""] + name.split(" + ")) else ""
        lines.append(f"  => {name}: {v}{src}")
    return "\n".join(lines)
