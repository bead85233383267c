"""Command line of the verifier: ``python -m verify``.

    python -m verify list [--json]
    python -m verify CLAIM [--quick|--full] [--seed S] [--json] [--plot PATH] [--bound-scale C]
                           [--GRIDKEY values ...]   (the claim's grid overrides, see CLAIM --help)
                           [--workers K | --scheduler tcp://HOST:PORT] [--cache DIR]
                           (claims run on the sweep engine: figure1, figure2)
    python -m verify all [--quick|--full] [--json] [--write]
    python -m verify search CLAIM [--seed S] [--max-examples M] [--json]
    python -m verify audit [CLAIM | STEP] [--json | --markdown]
    python -m verify report [...]
    python -m verify coverage | certificate ID | draw KIND --out FILE

Exit status of a claim and of `all`: 0 holds, 1 violated, 2 bad input, 3 inconclusive, 4 depends
on reading, 70 internal error, 74 an output cannot be written, 130 interrupted; the other commands
exit 0 on success and 2, 70, 74 or 130 alike.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
import time
from collections import Counter
from typing import Any

from bounds.references import REFERENCES, cite, cite_numbers
from mcsa_cli import (
    Parser as _Parser,
    UsageError,
    add_wide,
    atomic_write,
    dumps,
    list_arguments,
    number,
    numbers,
    output_path,
    progress,
    run,
    table,
    wrap,
)

from ..running.execution import EXECUTION_FLAGS, add_execution_flags, execution_options
from ..running.reproductions import stored_full_run

# cli.run_all: tests patch it
from ..running.runner import add_parallel_flags, parallel_workers, run_all  # noqa: F401

PROG = "python -m verify"
EXIT_TEXT = ("Exit status: 0 holds, 1 violated, 2 bad input (one line on stderr, before any work), "
             "3 inconclusive, 4 depends on reading, 70 internal error (rerun with --debug for the "
             "traceback), 74 an output cannot be written (a full disk), 130 interrupted.")
#: the statuses of a command that checks no claim (list, audit, coverage, certificate, draw, report)
LIST_EXIT_TEXT = ("Exit status: 0 success (whatever the claims' statuses: `python -m verify all` "
                  "exits with them), 2 bad input (one line on stderr, before any work), 70 "
                  "internal error (rerun with --debug for the traceback), 74 an output cannot be "
                  "written (a full disk), 130 interrupted.")
#: at most this many values per grid override
MAX_VALUES = 20
#: how far past the largest value of a claim's --full grid an integer override may go: costs
#: linear in k, t or n (steps) may go 100x further; budgets and dimensions (the exact
#: joint-law and finite-state checks grow exponentially in them) not at all
HEADROOM = {"k": 100, "t": 100, "n": 100, "mc_k": 100, "dim": 10}
#: grid keys that count things (when a claim's grid does not show it)
INTEGER_KEYS = ("N", "n", "k", "t", "dim", "R", "batch", "n_avg", "mc_k")


def fmt(x) -> str:  # verify.presenting.formatting's, imported when used: it loads scipy.stats
    from ..presenting.formatting import fmt as _fmt

    return _fmt(x)


def fmt_ratio(x) -> str:
    from ..presenting.formatting import fmt_ratio as _fmt_ratio

    return _fmt_ratio(x)


#: a light index of the registry (the entry points, the claims that have a verification, every
#: grid-override key), so that an unknown claim or a bad flag is answered before the documents
#: (sympy, scipy) are imported (issue 24 §2); written by :func:`write_cli_index`, checked
#: against the registry by tests/test_startup.py
CLI_INDEX = "cli_index.json"


def cli_index() -> dict:
    """The index as the registry gives it now (imports every document)."""
    from ..registry import entry_points

    return {"entry_points": [name for name, _ in entry_points()], "claims": sorted(_registry()),
            "override_keys": override_keys()}


def _index_path():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "data" / CLI_INDEX


def write_cli_index() -> None:
    """Write verify/data/cli_index.json (strict JSON, atomically) from the registry now."""
    atomic_write(_index_path(), dumps(cli_index(), indent=1) + "\n")


def parse_early(cid, argv) -> None:
    """Parse before the documents load: an unknown claim (from the bounds catalog) or a flag no
    claim parser accepts raises :class:`UsageError` with the message the full parser gives.
    With another package's claims installed, or no index, nothing is checked here."""
    import json

    from ..registry import entry_points

    try:
        idx = json.loads(_index_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if [name for name, _ in entry_points()] != idx.get("entry_points"):
        return
    if cid not in idx["claims"]:
        import bounds

        known = bounds.ids()
        if cid not in known:
            raise UsageError(str(bounds._unknown(cid, known)))
        raise UsageError(f"{cid} has no verification")
    if any(x in ("-h", "--help") or x.startswith("--help=") for x in argv):
        return
    from types import SimpleNamespace

    light = SimpleNamespace(measures="", targets="", method="", forms="", overrides=(),
                            execution=False)
    claim_parser(cid, light, keys=idx["override_keys"]).parse_args(argv)


def _registry():
    from ..registry import verifications

    return verifications()


def flag_of(key: str) -> str:
    return "--" + key.replace("_", "-")


def seed_arg(text) -> int:
    return number("--seed", text, integer=True, lo=0)


def _print(text: str = "") -> None:
    """print() for human-readable output: document numbers (001, 002, 003) become citations."""
    print(cite_numbers(str(text)))


# ----------------------------------------------------------------------------- list
def cmd_list(argv):
    a = list_arguments(f"{PROG} list",
                       "Coverage table generated from the registry: one row per claim.", argv,
                       LIST_EXIT_TEXT)
    import bounds
    from bounds.cli import records

    from ..decide import final_status
    from ..running.docio import AUDIT_DOC, VERDICTS_DOC, load_doc

    reg = _registry()
    recs = records()  # the bounds catalog: no claim is built
    adoc = load_doc(AUDIT_DOC).get("claims", {})
    audit = {k: d.get("audit", "not audited") for k, d in adoc.items()}
    empirical = load_doc(VERDICTS_DOC).get("readings", {})
    rows = []
    for cid in bounds.ids():
        c = recs[cid]
        v = reg.get(cid)
        st = audit.get(cid, "not audited")
        # the final status from the one function (verify.decide.final_status), as `all` and the docs
        fin = (final_status(cid, empirical[cid],
                            adoc.get(cid, {}).get("statement", {})) if cid in empirical else None)
        rows.append({"claim": cid, "source": c["source"], "assumptions": list(c["assumptions"]),
                     "measures": v.measures if v else None, "targets": v.targets if v else None,
                     "how": v.method if v else None, "forms": v.forms if v else None,
                     "readings": [r.name for r in v.readings] if v else [],
                     "empirical": fin.status if fin else "not run",
                     "failing_readings": list(fin.failing) if fin else [],
                     "audit": st if isinstance(st, str) else str(st),
                     **_severity_of(cid, fin.status if fin else None)})
    if a.json:
        print(dumps(rows, indent=1))
        return 0
    # document numbers cited before the table is laid out, so that widths are measured
    def cells(row):
        return [cite_numbers(str(x)) for x in row]

    if a.wide:
        print(table([cells([r["claim"], r["source"], ",".join(r["assumptions"]) or "-",
                            r["how"] or "MISSING",
                            r["forms"] or "-", str(len(r["readings"]) or 1), r["empirical"],
                            "; ".join(r["failing_readings"]) or "-", _severity_text(r), r["audit"],
                            r["measures"]
                                or ""])
                     for r in rows],
                    ["claim", "source", "assumptions", "how", "forms (primary first)", "readings",
                     "final status (quick)", "failing readings", "severity", "audit", "measures"],
                    wide=True))
    # what fits 100 columns; --wide adds the source's location, assumptions, forms and what is
    # measured
    else:
        print(table([cells([r["claim"], r["source"].split(",")[0], r["how"] or "MISSING",
                            r["empirical"]
                            + (f" ({len(r['failing_readings'])} of {len(r['readings'])} readings "
                               f"fail)"
                                              if r["failing_readings"] and r["empirical"]
                                              != "violated" else ""),
                            r["severity"] or "-", r["audit"]]) for r in rows],
                    ["claim", "document", "how", "final status (quick)", "severity", "proof audit"],
                    # on a narrow terminal: status and severity
                    optional=["how", "document", "proof audit"]))
    from ..judging.severity import count_text

    _print(wrap(f"\nseverity of the {sum(bool(r['severity']) for r in rows)} claims that do not "
                f"hold: "
                + count_text(r["severity"] for r in rows) + ".", wide=a.wide))
    _print(wrap(f"\n{len(rows)} claims, {sum(r['how'] is not None for r in rows)} with a "
                f"verification. Final statuses from the stored {VERDICTS_DOC} (`{PROG} all --quick "
                f"--write`); audit statuses from the stored {AUDIT_DOC} (`{PROG} audit --write`). "
                f"`{PROG} list --wide` shows every column.", wide=a.wide))
    return 0


def _severity_of(cid: str, status: str | None) -> dict:
    """A claim's severity fields for its final status (verify.judging.severity; None-valued when it
    holds).
    """
    from ..judging.severity import fields

    f = fields("claims", cid, status) if status is not None else {}
    return {k: f.get(k) for k in ("severity", "severity_reason", "severity_quote", "see",
                                  "certificate")}


def _severity_text(r: dict) -> str:
    """'-' or the severity with its reason and deciding quote
    (verify.judging.severity.reason_line)."""
    from ..judging.severity import reason_line

    return reason_line(r) if r.get("severity") else "-"


# ----------------------------------------------------------------------------- one claim
def summarize(rep, wide: bool = False):
    """The checks table of ``verify CLAIM``: one row per quantity, form and reading, its verdict
    beside the reading; on a narrow terminal the method, the number of checks and whether the
    form decides are left out first (``--wide`` shows them)."""
    from ..presenting.formatting import fmt_ratio as ratio_text, group_checks

    rows = []
    for g in group_checks(rep.checks, by=("quantity", "form", "reading")):
        q, f, reading = g.key
        rows.append([q, f, reading or "all", g.verdict, f"{g.holds}/{g.violated}/{g.inconclusive}",
                     ratio_text(g.worst, short=True), str(len(g.checks)), g.method,
                     "yes" if g.primary else "no"])
    return table(rows, ["quantity", "form", "reading", "verdict", "holds/viol/inc", "max ratio",
                        "checks", "method", "deciding"], wide=wide,
                 optional=["method", "checks", "deciding", "max ratio", "holds/viol/inc"],
                 key=False)


def _seed_text(seed) -> str:
    """A seed as text: in full up to 20 digits, else abbreviated (``--json`` keeps it exact)."""
    t = str(seed)
    return t if len(t) <= 20 else f"{t[:6]}...{t[-4:]} ({len(t)} digits; --json gives it in full)"


#: at most this many lines of reason under a claim's final status (the details follow)
REASON_LINES = 3


def print_report(rep, verbose=False, wide=False, smoke=False, stored=None):
    """A claim as ``python -m verify CLAIM`` prints it: the title and source, the final status
    once, with a reason of at most :data:`REASON_LINES` lines, and then the details (what is
    measured, the checks table, the checks that do not hold, the readings, the severity in full
    and the decisive counterexamples).

    ``smoke``: this run is the quick smoke test of a claim whose status comes from a stored run
    at the paper's settings (``stored``, :func:`verify.running.reproductions.stored_full_run`); the
    final
    status is then the stored run's, and this run's own status is labelled as the smoke test's.
    """
    import bounds

    from ..decide import ALPHA
    from ..model import HOLDS, VIOLATED
    from ..presenting.plot import own_checks_text, z_text
    from ..running.runner import checks_text

    def say(text=""):  # citations first, then fitted to the terminal
        print(wrap(cite_numbers(str(text)), wide=wide))

    c = bounds.get(rep.claim)
    v = _registry()[rep.claim]
    n_mc = sum(1 for x in rep.checks if x.method == "monte-carlo")
    say(f"{rep.claim}: {c.title}\nsource: {c.source}")
    print(status_lines(rep, wide=wide, smoke=smoke, stored=stored))
    say("\ndetails")
    say(f"measures: {v.measures}\non: {v.targets}\nhow: {v.method}; primary form: "
        f"{v.primary_form}; seed {_seed_text(rep.seed)}; bound scale {rep.bound_scale:g}; "
        f"{checks_text(rep)}")
    if n_mc:
        say(f"Monte Carlo verdicts: false-violation rate <= {ALPHA:g} for this claim (Bonferroni "
            f"over {n_mc} checks: {z_text(rep.checks)}).")
    say()
    _print(summarize(rep, wide))  # a table: fitted by clikit.table
    bad = [x for x in rep.checks if x.verdict != HOLDS]

    def badness(x):
        return (not x.primary,
                -(x.ratio if x.ratio is not None and math.isfinite(x.ratio) else 1e300))

    dec = rep.decisive()
    shown = bad if verbose else sorted(bad, key=badness)[:8]
    if dec is not None:  # rule 5: the decisive counterexample first
        shown = [dec] + [x for x in shown if x is not dec]
    if shown:
        say("\nnot holding"
            + ("" if verbose else f" (worst {len(shown)} of {len(bad)}; --verbose for all)") + ":")
        for x in shown:
            se = f" ± {fmt(x.stderr)}" if x.stderr else ""
            params = ", ".join(f"{k}={fmt(val) if isinstance(val, float) else val}"
                               for k, val in x.params.items())
            rel = "vs"
            if x.verdict == VIOLATED and x.relation != "=":
                rel = x.relation.replace("<=", ">").replace(">=", "<")
            say(f"  [{x.verdict}] {x.quantity} ({x.form}): empirical {fmt(x.empirical)}{se} {rel} "
                f"bound {fmt(x.scaled_bound)} (ratio {fmt_ratio(x)}) at {params}"
                + (f" — {x.note}" if x.note else ""))
    if verbose:
        say("\nall checks:")
        for x in rep.checks:
            say(f"  {x.verdict:12s} {x.quantity} ({x.form}) {fmt(x.empirical)} {x.relation} "
                f"{fmt(x.scaled_bound)} {x.params}")
    from ..presenting.formatting import readings_text

    say("\n" + own_checks_text(readings_text(rep), rep))
    more = headline(rep, smoke)
    if more:
        say(more)
    fv = rep.form_verdicts()
    say(f"by form{' (smoke test)' if smoke else ''}: "
        + ", ".join(f"{k}: {val}" for k, val in fv.items())
        + f" (the deciding form of each reading is '{v.primary_form}' unless the reading names its "
          "own)")
    if stored is not None:
        say("\n" + stored_run_text(rep.claim, v, stored))


def _counterexample_text(rep) -> str:
    """The counterexample that decides a claim's status, in one short clause (no step id)."""
    dec = rep.decisive()
    if dec is not None:
        params = ", ".join(f"{k}={fmt(val) if isinstance(val, float) else val}"
                           for k, val in dec.params.items())
        rel = dec.relation.replace("<=", ">").replace(">=", "<") if dec.relation != "=" else "!="
        return (f"counterexample: {dec.quantity} ({dec.form}) {fmt(dec.empirical)} {rel} "
                f"{fmt(dec.scaled_bound)} at {params}")
    step = rep.decisive_step()
    ce = ((step or {}).get("outcome") or {}).get("counterexample")
    if ce:
        at = ", ".join(f"{k}={val}" for k, val in (ce.get("at") or {}).items())
        return (f"counterexample (proof audit): the printed statement gives {_num(ce.get('lhs'))} "
                f"against {_num(ce.get('rhs'))} at {at}")
    if step is not None:
        return "the proof audit finds the printed statement wrong"
    return ""


def reason_text(rep) -> str:
    """Why a claim has its final status, in words (no rule numbers, no step ids): which readings
    fail or hold, the deciding checks, and the counterexample that decides."""
    from ..model import DEPENDS, HOLDS, INCONCLUSIVE, VIOLATED

    st = rep.status
    names = list(st.readings)
    holding = [k for k, val in st.readings.items() if val == HOLDS]
    n = len(rep.checks)
    ce = _counterexample_text(rep)
    if st.status == HOLDS:
        if st.strict_only:
            return (f"holds under the lenient reading its hedge allows; fails only read strictly "
                    f"({'; '.join(st.strict_only)})")
        return (f"every check of the deciding form holds ({n} checks"
                + (f", {len(names)} readings" if len(names) > 1 else "") + ")")
    if st.status == VIOLATED:
        head = "fails under every reading" if len(names) > 1 else "fails"
        return f"{head}; {ce}" if ce else head
    if st.status == DEPENDS:
        head = (f"fails under {len(st.failing)} of {len(names)} readings, holds under "
                + "; ".join(holding or ["the others"]))
        return f"{head}. {ce[0].upper() + ce[1:]}" if ce else head
    if st.status == INCONCLUSIVE:
        k = sum(1 for x in rep.checks if x.verdict == INCONCLUSIVE)
        return (f"Monte Carlo could not decide {k} of the {n} checks; none is violated under "
                "every reading")
    return ""


def _fit_lines(text: str, lines: int, wide: bool) -> str:
    """``text`` wrapped to the terminal in at most ``lines`` lines (continuations indented by
    2); a longer text is cut after a whole word and ends in the marker (``--wide``: one
    line, whole)."""
    from mcsa_cli import marker, terminal_width

    if wide:
        return text
    width = terminal_width()
    out = textwrap.wrap(text, width=width, subsequent_indent="  ", break_on_hyphens=False,
                        break_long_words=True) or [""]
    if len(out) <= lines:
        return "\n".join(out)
    mark = f" {marker()} (details below)"
    last = out[lines - 1]
    while last.strip() and len(last) + len(mark) > width:
        last = last.rsplit(" ", 1)[0] if " " in last.strip() else ""
    return "\n".join(out[:lines - 1] + [last + mark])


def status_lines(rep, wide: bool = False, smoke: bool = False, stored=None) -> str:
    """The final status, once, and its reason in at most :data:`REASON_LINES` lines."""
    from ..judging.severity import MEANING

    if stored is not None:
        sev = _severity_of(rep.claim, stored["verdict"])["severity"]
        meaning = MEANING.get(sev, "").split(" (")[0]
        head = (f"final status: {stored['verdict']} (at the paper's settings: the stored full "
                f"run)" + (f"; severity {sev}: {meaning}" if meaning else ""))
        failing = ", ".join(stored["not_holding"]) or "none"
        why = (f"reason: not holding at the paper's settings: {failing}. Below, a --quick smoke "
               f"test of the same code on a reduced experiment; its own status: {rep.verdict}")
    else:
        st = rep.status
        sev = rep.severity_fields().get("severity") if not smoke else None
        label = "smoke test's status (not the claim's)" if smoke else "final status"
        meaning = (MEANING.get(sev, "") if sev is not None else "").split(" (")[0]  # (reason below)
        head = f"{label}: {st.status}" + (f" (severity {sev}: {meaning})" if meaning else "")
        why = "reason: " + cite_numbers(reason_text(rep))
    head = cite_numbers(head)
    return _fit_lines(head, 2, wide) + "\n" + _fit_lines(why, REASON_LINES, wide)


def _num(x) -> str:
    return fmt(float(x)) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def headline(rep, smoke=False) -> str:
    """The details behind the final status (reading rule 5), printed after the readings: the
    severity with its full reason and deciding sentence, the counterexample that decides (the
    audit step, then the supporting check) and the readings set aside by the reading rules."""
    from ..judging.severity import reason_line

    st = rep.status
    sev = rep.severity_fields()
    out = []
    if sev["severity"] and not smoke:
        out.append(f"severity {reason_line(sev)}")
    step = rep.decisive_step()
    dec = rep.decisive()
    # the audit fails the printed statement: its counterexample decides (rule 4: a family)
    if step is not None:
        ce = (step.get("outcome") or {}).get("counterexample")
        at = ", ".join(f"{k}={v}" for k, v in (ce or {}).get("at", {}).items())
        out.append(f"decisive counterexample (audit step {step['id']}, {step['status']}"
                   + (f", read as: {step['reading']}" if step.get("reading") else "") + ")"
                   + (f": lhs {_num(ce.get('lhs'))} vs rhs {_num(ce.get('rhs'))} at {at}" if ce
                      else "")
                   + f"; `python -m verify audit {step['id']}` shows it")
    if dec is not None:
        params = ", ".join(f"{k}={fmt(val) if isinstance(val, float) else val}"
                           for k, val in dec.params.items())
        rel = dec.relation.replace("<=", ">").replace(">=", "<") if dec.relation != "=" else "!="
        out.append(f"{'supporting' if step is not None else 'decisive'} "
                   f"counterexample{' (' + dec.reading + ')' if dec.reading else ''}: "
                   f"{dec.quantity} ({dec.form}) {fmt(dec.empirical)} {rel} "
                   f"{fmt(dec.scaled_bound)} at {params}")
    for what, names in (("degenerate, excluded (rule 3)", st.degenerate),
                        ("ruled out by the document (rule 6)", st.ruled_out),
                        ("fails only read strictly, the hedged reading holds (rule 2)",
                         st.strict_only)):
        if names:
            out.append(f"{what}: {'; '.join(names)}")
    return "\n".join(out)


def add_run_flags(ap):
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="small grid, seconds (default)")
    g.add_argument("--full", action="store_true", help="larger grid, minutes")
    ap.add_argument("--seed", default="0",
                    help="seed of every Monte Carlo check (integer >= 0, default 0)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (strict RFC 8259)")


def _grid_values(v, key) -> list:
    out: list = []
    for g in (v.grid.quick, v.grid.full):
        val = g.get(key)
        if val is None:
            continue
        out.extend(val if isinstance(val, (list, tuple)) else [val])
    return out


def override_rule(cid, v, key) -> dict:
    """How ``--KEY`` is parsed for claim ``cid``: the value kind from the claim's grid, the
    domain from the bound's parameter of that name, and a limit on size (see HEADROOM)."""
    import numbers as _nums

    vals = _grid_values(v, key)
    if vals and all(isinstance(x, str) for x in vals):
        return {"choices": sorted(set(vals))}
    # ints, floats, numpy scalars (numbers.Real declares no comparison with int to mypy)
    nums: list[Any] = [x for x in vals if isinstance(x, _nums.Real) and not isinstance(x, bool)]
    integer = ((bool(nums) and all(isinstance(x, _nums.Integral) for x in nums))
               or key in INTEGER_KEYS)
    rule: dict[str, Any] = {"integer": integer, "lo": None, "lo_strict": False, "hi": None,
                            "hi_strict": False}
    if nums:
        if min(nums) > 0:
            rule.update(lo=1 if integer else 0, lo_strict=not integer)
        elif min(nums) >= 0:
            rule.update(lo=0)
    try:
        import bounds

        p = bounds.get(cid).param(key)
    except (KeyError, LookupError):
        p = None
    if p is not None:
        rule.update(lo=p.lower, lo_strict=p.lower_strict, hi=p.upper, hi_strict=p.upper_strict)
        rule["integer"] = rule["integer"] or p.integer
    if key == "w_star":
        rule.update(lo=1, lo_strict=False)
    if rule["integer"] and nums:
        aliases = [a for a in v.grid_aliases.get(key, ()) if _grid_values(v, a)]
        keys = [key] + aliases
        caps = [max(int(x) for x in (_grid_values(v, k_) or nums)  # type: ignore[call-overload]
                    if isinstance(x, _nums.Real))  # (numbers.Real declares no __int__)
                for k_ in keys
                if any(isinstance(x, _nums.Real) for x in (_grid_values(v, k_) or nums))]
        if caps:
            top = min(caps)
            rule["limit"] = max(top, 1) * HEADROOM.get(key, 1)
            rule["limit_why"] = (
                f"{cid}'s --full grid goes to {top}; larger values exceed a sane memory or time"
                                 + (f" budget ({flag_of(key)} also sets {', '.join(aliases)})"
                                    if aliases
                                    else " budget"))
    return rule


def parse_override(cid, v, key, raw) -> list:
    flag = flag_of(key)
    rule = override_rule(cid, v, key)
    if "choices" in rule:
        items = [x.strip() for x in str(raw).split(",")]
        bad = [x for x in items if x not in rule["choices"]]
        if bad or not items:
            raise UsageError(f"{flag}: must be a comma list of {', '.join(rule['choices'])}, got "
                             f"{bad[0] if bad else raw!r}")
        return items
    vals = numbers(flag, raw, max_items=MAX_VALUES, **rule)
    return [int(x) if rule["integer"] else float(x) for x in vals]


def execution_claims() -> list[str]:
    return sorted(k for k, w in _registry().items() if w.execution)


def override_keys() -> list[str]:
    """Every grid key some claim lets the command line override (each becomes a --KEY flag)."""
    return sorted({k for w in _registry().values() for k in w.overrides})


def claim_parser(cid, v, keys=None):
    ap = _Parser(prog=f"{PROG} {cid}", formatter_class=argparse.RawDescriptionHelpFormatter,
                 description=(
        f"Verify {cid}: {v.measures}\non: {v.targets}\nhow: {v.method}; forms: {v.forms}\n\n"
        "Verdicts: exact checks compare with a tolerance from the computation's error bound; Monte "
        "Carlo checks keep the false-violation rate <= 1e-3 per claim (Bonferroni). A claim whose "
        "checks or printed statement fail under one reasonable reading and hold under another "
        "'depends on reading'.\n\n"
        f"Grid overrides of {cid}: "
        + (", ".join(flag_of(k) for k in v.overrides) or "none")
        + f" (comma lists of at most {MAX_VALUES} values; a value past what the --full grid "
          f"reaches "
          "is refused when it would exceed memory or time)."
        + ("\n\nExecution: the cells run on the sweep engine (--workers K local processes or a "
           "Dask cluster with --scheduler, cached per cell under --cache DIR); the results do not "
           "depend on how they run."
           if v.execution else "")),
                 epilog=EXIT_TEXT)
    add_run_flags(ap)
    ap.add_argument("--plot", metavar="PATH",
                    help="write a bound-vs-empirical figure (.png, .pdf or .svg)")
    ap.add_argument("--bound-scale", default="1", metavar="C",
                    help="tighten every bound by C > 0 (upper bounds x C, lower bounds / C): a "
                         "small C must give 'violated'")
    ap.add_argument("--verbose", action="store_true", help="list every check")
    add_wide(ap)
    ap.add_argument("--no-cache", action="store_true",
                    help="recompute (default: read the result from the cache when the claim's "
                         "code, its grid, the seed and the library versions are unchanged)")
    for key in (override_keys() if keys is None else keys):
        ap.add_argument(flag_of(key), dest=f"ov_{key}", default=None, metavar="V[,V...]",
                        help=argparse.SUPPRESS if key not in v.overrides
                        else f"grid override ({key})")
    add_execution_flags(ap, shown=v.execution)
    return ap


def cmd_claim(cid, argv):
    parse_early(cid, argv)
    reg = _registry()
    if cid not in reg:
        import bounds

        try:
            bounds.get(cid)
        except bounds.UnknownClaim as e:
            raise UsageError(str(e)) from None
        raise UsageError(f"{cid} has no verification")
    v = reg[cid]
    a = claim_parser(cid, v).parse_args(argv)
    seed = seed_arg(a.seed)
    C = number("--bound-scale", a.bound_scale, lo=0, lo_strict=True)
    overrides = {}
    for key in override_keys():
        raw = getattr(a, f"ov_{key}")
        if raw is None:
            continue
        if key not in v.overrides:
            raise UsageError(f"{flag_of(key)} does not apply to {cid} (its grid overrides: "
                             f"{', '.join(flag_of(k) for k in v.overrides) or 'none'})")
        overrides[key] = parse_override(cid, v, key, raw)
    if overrides and v.check_overrides is not None:
        why = v.check_overrides(dict(v.grid.quick), overrides)
        if why:
            raise UsageError(why)
    given = [flag_of(k) for k in EXECUTION_FLAGS if getattr(a, k) is not None]
    if given and not v.execution:
        raise UsageError(
            f"{given[0]} does not apply to {cid}: it runs no sweep (the execution options apply to "
            f"{', '.join(execution_claims())})")
    execution = execution_options(a) if given else None
    refused: tuple = ()
    if execution:
        from simulate.sweep import GridError

        # an unreachable --scheduler: refused when connecting, before any cell runs
        refused = (GridError,)
    plot = output_path("--plot", a.plot) if a.plot is not None else None
    from ..judging import check_data

    check_data()  # a document's bad data file: exit 2 and one line, before the claim runs
    from ..model import EXIT
    from ..running.outcome import run_verification

    mode = "full" if a.full else "quick"
    with progress(desc=cid, json=a.json) as bar:
        try:
            if overrides or execution:  # a grid of the user's: computed, not cached
                rep = run_verification(v, mode, seed=seed, bound_scale=C, overrides=overrides,
                                       progress=bar,
                                       execution=execution)
            else:  # the claim's own grid: read from the content-keyed cache when nothing changed
                from ..running.outcome import rescore
                from ..running.runner import run_claims

                rep = run_claims([cid], mode, seed, workers=1, cache=not a.no_cache)[cid]
                if C != 1:
                    rep = rescore(rep, C)
        except refused as e:
            raise UsageError(str(e)) from None
    if plot:
        from ..presenting.plot import figure

        figure(rep, plot)
    stored = stored_full_run(cid) if v.reproduction is not None and not a.full else None
    # a claim decided by an experiment at the paper's settings: its status (and exit status) is the
    # stored full run's; this --quick run is a smoke test of the same code (a user's own grid or
    # bound scale: its own status)
    from_stored = stored is not None and not overrides and C == 1
    shown = stored["verdict"] if from_stored and stored is not None else rep.verdict
    if a.json:
        out = rep.as_json()
        out["cached"] = bool(getattr(rep, "cached", False))  # elapsed_s is then the original run's
        out["computed_at"] = getattr(rep, "computed_at", None)
        if stored is not None:
            out["stored_full_run"] = stored
            out["status"] = shown
            out["status_basis"] = "stored full run" if from_stored else "this run"
        print(dumps(out))
    else:
        # a figure claim: its final status is the stored full run's; this run is a smoke test
        print_report(rep, a.verbose, a.wide, smoke=stored is not None,
                     stored=stored if from_stored else None)
        if stored is not None and not from_stored:
            _print(stored_run_text(cid, v, stored))
        if plot:
            print(f"figure written to {a.plot}")
    return EXIT[shown]


def _settings_text(settings) -> str:
    d = settings if isinstance(settings, dict) else vars(settings)
    return f"D = {d.get('D')}, T = {d.get('iters')}, {d.get('replicates')} replications"


def stored_run_text(cid, v, stored) -> str:
    """What a --quick figure verdict is about, next to the stored run at the paper's settings."""
    quick = v.grid.quick.get("settings")
    failing = ", ".join(stored["not_holding"]) or "none"
    return textwrap.fill(
        f"note: --quick runs a reduced experiment ({_settings_text(quick)}), not the paper's; its "
        f"verdict is about that experiment. The stored full run at the paper's settings "
        f"({_settings_text(stored['settings'])}"
        + ("" if stored["complete"] else ", incomplete")
        + f"; {stored['path']}) is {stored['verdict'].upper()} (not holding: "
          f"{failing}).", width=100, subsequent_indent="  ", break_on_hyphens=False,
        break_long_words=False) + f"\n  rerun it: {PROG} {cid} --full --workers 2"


# ----------------------------------------------------------------------------- all
def _document_claims(name: str) -> list[str]:
    """The claims of the document package whose entry-point name is ``name``, in the documents'
    order (UsageError, exit 2, for an unknown name or a package with no claim)."""
    from ..registry import plugins
    from ..running.store import owner

    names = [p.name for p in plugins()]
    if name not in names:
        raise UsageError(f"--document: unknown document package {name!r} (the registered ones: "
                         f"{', '.join(names)})")
    ids = [c for c in _registry() if (p := owner(c)) is not None and p.name == name]
    if not ids:
        raise UsageError(f"--document: {name} registers no claim")
    return ids


def cmd_all(argv):
    ap = _Parser(prog=f"{PROG} all", description="Verify every claim; ends with a summary table.",
                 epilog=EXIT_TEXT)
    add_run_flags(ap)
    ap.add_argument("--write", action="store_true",
                    help="also record the final statuses (verdicts.json, read by `list`), each "
                         "document's in its own store: a source checkout's package directory "
                         "(the built-in documents: verify/data/), else the user's data directory "
                         "($MCSA_VERIFY_DATA_DIR overrides it; docs/own-claim.md)")
    ap.add_argument("--document", default=None, metavar="NAME",
                    help="only the claims of one document package, by its entry-point name "
                         "(group mcsa_verify.claims)")
    add_parallel_flags(ap)
    add_wide(ap)
    a = ap.parse_args(argv)
    seed = seed_arg(a.seed)
    workers = parallel_workers(a)
    import bounds

    from ..decide import ALPHA, summary_status
    from ..model import DEPENDS, EXIT, HOLDS, INCONCLUSIVE, VIOLATED
    from ..running.docio import write_verdicts

    mode = "full" if a.full else "quick"
    ids = _document_claims(a.document) if a.document is not None else None
    # refused before any work when nothing can be recorded (the built-in documents of an installed
    # toolkit ship their results; nothing is written into site-packages)
    unrecorded: list[str] = []
    if a.write:
        from ..running.resources import data_file
        from ..running.store import plan

        groups, unrecorded = plan(ids if ids is not None else list(_registry()))
        if not groups:
            data_file("verdicts.json")  # the toolkit's refusal (one line, exit 2)
            raise UsageError("--write: none of these claims belongs to a document package")
    from ..judging import check_data

    check_data()  # a document's bad data file: exit 2 and one line, before any claim runs
    t0 = time.perf_counter()
    with progress(desc="all", json=a.json) as bar:
        if ids is None:
            reports = run_all(mode, seed, bar, workers=workers, cache=not a.no_cache)
        else:
            from ..running.runner import run_claims

            tick = (lambda done, total: bar(f"{done}/{total} claims")) if bar else None
            got = run_claims(ids, mode, seed, workers=workers, cache=not a.no_cache,
                             progress=tick)
            reports = [got[c] for c in ids]
    elapsed = time.perf_counter() - t0
    reg = _registry()
    stored = {} if a.full else {r.claim: st for r in reports
                                if reg[r.claim].reproduction is not None
                                for st in [stored_full_run(r.claim)] if st is not None}
    # a figure claim counts with its status at the paper's settings
    shown = {r.claim: stored[r.claim]["verdict"] if r.claim in stored else r.verdict
             for r in reports}
    verdict = summary_status(shown.values())
    if a.write:
        for f in write_verdicts(reports, mode, seed, stored=stored):
            print(f"recorded {f}", file=sys.stderr)
        if unrecorded:
            print(f"not recorded ({len(unrecorded)} claims): the built-in documents' results "
                  "ship with this installed toolkit", file=sys.stderr)
    if a.json:
        print(dumps({"verdict": verdict, "seed": seed, "elapsed_s": elapsed, "mode": mode,
                     # a figure claim: its status at the paper's settings (stored full run)
                     "verdicts": shown,
                     # this run's own (quick: smoke tests)
                     "run_verdicts": {r.claim: r.verdict for r in reports},
                     "failing_readings": {r.claim: r.failing_readings for r in reports
                                          if r.failing_readings},
                     "stored_full_runs": stored,
                     "severity": {cid: f
                                  for cid, v in shown.items() for f in [_severity_of(cid, v)]
                                  if f["severity"]},
                     # each row: the run's own record, then the final status shown (a figure claim:
                     # at the paper's settings) and its severity
                     "claims": [{**r.as_json(), "final_status": shown[r.claim],
                                 **_severity_of(r.claim, shown[r.claim])}
                                for r in reports]}))
        return EXIT[verdict]
    from bounds.cli import records

    recs = records()
    rows = []
    for r in reports:
        fv = r.form_verdicts()
        others = ", ".join(f"{k}: {val}" for k, val in fv.items() if k != r.primary_form)
        n_mc = sum(1 for c in r.checks if c.method == "monte-carlo")
        seed_doc = (recs[r.claim]["document"][:3] if r.claim in recs
                    else bounds.get(r.claim).source.document[:3])
        fails = f"{len(r.failing_readings)} of {len(r.readings)}" if r.verdict == DEPENDS else "-"
        status = r.verdict if r.claim not in stored else \
            (f"{stored[r.claim]['verdict']} (paper's settings, stored); quick smoke test: "
             f"{r.verdict}")
        document = (REFERENCES[seed_doc][0] if seed_doc in REFERENCES
                    else cite(bounds.get(r.claim).source).split(",")[0])
        sev = _severity_of(r.claim, shown[r.claim])["severity"] or "-"
        rows.append([r.claim, document, status, fails, r.primary_form, str(len(r.checks)),
                     str(n_mc), f"{r.elapsed_s:.1f}", others, sev])
    if a.wide:
        _print(table(rows, ["claim", "document", "final status", "failing readings", "primary form",
                            "checks", "MC",
                            "s", "other forms", "severity"], wide=True))
    else:  # what fits 100 columns; --wide adds the failing-reading counts, forms and times
        _print(table([[r[0], r[1], r[2], r[9], r[5], r[6]] for r in rows],
                     ["claim", "document", "final status", "severity", "checks", "MC"],
                     # on a narrow terminal: status and severity
                     optional=["document", "MC", "checks"]))
    def _say(text=""):  # citations first, then fitted to the terminal
        print(wrap(cite_numbers(str(text)), wide=a.wide))

    dep = [r for r in reports if r.verdict == DEPENDS]
    if dep:
        _say("\nreadings that fail (the claim holds under the others):")
        for r in dep:
            _say(f"  {r.claim}: " + "; ".join(r.failing_readings))
    if stored:
        _say("\nfigure claims: --quick runs reduced experiments; the stored full runs at the "
             "paper's settings "
               "(verify/data/figures) are:")
        for cid, st in stored.items():
            _say(f"  {cid}: {st['verdict']}" + ("" if st["complete"] else " (incomplete)")
                   + (f" (not holding: {', '.join(st['not_holding'])})" if st["not_holding"]
                      else ""))
    from ..judging.severity import count_text

    _say("\nseverity of the claims that do not hold: "
         + count_text(_severity_of(c, v)["severity"] for c, v in shown.items()) + " (false first):")
    from ..judging.severity import order_key

    for c, v in sorted(shown.items(), key=lambda kv: order_key(_severity_of(*kv)["severity"])):
        sev = _severity_of(c, v)
        if sev["severity"]:
            _say(f"  {c} ({v}): {_severity_text(sev)}")
    cnt = Counter(shown.values())
    _say(f"\n{len(reports)} claims in {elapsed:.1f} s: {cnt.get(HOLDS, 0)} hold, "
         f"{cnt.get(VIOLATED, 0)} "
          f"violated, {cnt.get(DEPENDS, 0)} depend on reading, {cnt.get(INCONCLUSIVE, 0)} "
          f"inconclusive. Monte Carlo verdicts keep the false-violation rate <= {ALPHA:g} per "
          f"claim. `{PROG} CLAIM` shows a claim's checks and counterexamples.")
    return EXIT[verdict]


# ----------------------------------------------------------------------------- main
USAGE = f"""usage: {PROG} {{list,all,search,audit,report,coverage,certificate,draw,CLAIM}} ...

Hold every bound of Kim et al. (NeurIPS 2022), the CIS-as-IMH draft and El hanchi (2018) against exact and Monte Carlo computations.

  {PROG} list                     what is measured, how, which form; statuses
  {PROG} theorem3 [--plot f.png]  one claim: its final status and why, then its checks
  {PROG} all --quick              every claim with a summary (--write: verdicts.json)
  {PROG} search theorem4          Hypothesis search for a counterexample
  {PROG} audit [CLAIM|STEP]       step-by-step proof audit; one step: audit lemma5.2
  {PROG} report                   the HTML report of every claim
  {PROG} coverage [--json]        every checkable statement of the documents
  {PROG} certificate ID|--all     scripts that recompute a wrong step or a violated claim
  {PROG} draw KIND --out FILE     lecture figures: mixing, variance, wstar; step STEP_ID

Final statuses: holds, violated, inconclusive, depends on reading. JSON output is strict RFC 8259 (NaN is null, infinities are "inf"/"-inf"). `{PROG} COMMAND --help` gives a command's options and exit statuses, `{PROG} CLAIM --help` a claim's.

{EXIT_TEXT} A claim and `all` exit with the claims' statuses; the other commands exit 0 on success. --debug (anywhere) shows the traceback of an internal error. `{PROG} --version` prints the package version.
"""  # noqa: E501


def _lazy(name: str):
    """The command ``name``, its module imported only when it runs (they load SciPy, Jinja2)."""
    def command(argv):
        if name == "search":
            from ..searching.search import cmd_search as cmd
        elif name == "audit":
            from ..audit import cmd_audit as cmd
        elif name == "report":
            from ..presenting.report import cmd_report as cmd
        elif name == "coverage":
            from ..judging.coverage import cmd_coverage as cmd
        elif name == "certificate":
            from ..judging.certify import main as cmd
        else:
            from ..presenting.draw import cmd_draw as cmd
        return cmd(argv)
    return command


def main(argv=None) -> int:
    """``python -m verify``: a command (``list``, ``all``, ``search``, ...) or a claim id.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (:data:`mcsa_cli.EXIT_HELP`).
    """
    lazy = {name: _lazy(name)
            for name in ("search", "audit", "report", "coverage", "certificate", "draw")}
    return run(PROG, USAGE, argv, {"list": cmd_list, "all": cmd_all, **lazy}, cmd_claim)
