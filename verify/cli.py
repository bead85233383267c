"""Command line of the verifier: ``python -m verify``.

    python -m verify list [--json]
    python -m verify CLAIM [--quick|--full] [--seed S] [--json] [--plot PATH] [--bound-scale C]
                           [--N ...] [--k ...] [--t ...] [--w-star ...] [--dim ...] [--proposal-scale ...]
    python -m verify all [--quick|--full] [--json]
    python -m verify search CLAIM [--seed S] [--max-examples M] [--json]
    python -m verify audit [CLAIM] [--json | --markdown]

Exit status: 0 holds, 1 violated, 3 inconclusive, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import sys
import time
from collections import Counter, defaultdict

from bounds.clikit import Parser as _Parser, UsageError, run

from . import core
from .core import ALPHA, EXIT, REGISTRY, run_verification

PROG = "python -m verify"
OVERRIDE_FLAGS = {"N": "--N", "k": "--k", "t": "--t", "w_star": "--w-star", "dim": "--dim",
                  "proposal_scale": "--proposal-scale"}


def _load():
    from . import registry  # noqa: F401  (registers every verification)


def _numbers(flag, text, integer=False):
    out = []
    for item in text.split(","):
        try:
            v = float(item)
        except ValueError:
            raise UsageError(f"{flag}: not a number: {item!r}") from None
        if not math.isfinite(v):
            raise UsageError(f"{flag}: must be finite, got {item!r}")
        if integer:
            if v != int(v) or v < 1:
                raise UsageError(f"{flag}: must be a positive integer, got {item!r}")
            v = int(v)
        out.append(v)
    return out


class Progress:
    def __init__(self, enabled):
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.perf_counter()

    def __call__(self, msg):
        if self.enabled:
            sys.stderr.write(f"\r\033[K[{time.perf_counter() - self.t0:6.1f}s] {msg}")
            sys.stderr.flush()

    def done(self):
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def fmt(x):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if not math.isfinite(x):
        return str(x)
    return f"{x:.4g}"


def table(rows, header):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


# ----------------------------------------------------------------------------- list
def cmd_list(argv):
    ap = _Parser(prog=f"{PROG} list", description="Coverage table generated from the registry: one row per claim.")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    import bounds

    _load()
    statuses = load_json("docs/audit.json")
    empirical = load_json(VERDICTS).get("verdicts", {})
    rows = []
    for cid in bounds.ids():
        c = bounds.get(cid)
        v = REGISTRY.get(cid)
        rows.append({"claim": cid, "source": str(c.source), "assumptions": list(c.assumptions),
                     "measures": v.measures if v else None, "targets": v.targets if v else None,
                     "how": v.method if v else None, "forms": v.forms if v else None,
                     "empirical": empirical.get(cid, "not run"), "audit": statuses.get(cid, "not audited")})
    if a.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(table([[r["claim"], r["source"][:60], ",".join(r["assumptions"]) or "-", r["how"] or "MISSING",
                  r["forms"] or "-", r["empirical"], r["audit"], (r["measures"] or "")[:70]] for r in rows],
                ["claim", "source", "assumptions", "how", "forms (primary first)", "empirical (quick)", "audit",
                 "measures"]))
    print(f"\n{len(rows)} claims, {sum(r['how'] is not None for r in rows)} with a verification. "
          "Empirical verdicts from docs/verdicts.json (`python -m verify all --quick --write`); "
          "audit statuses from docs/audit.json (`python -m verify audit --write`).")
    return 0


VERDICTS = "docs/verdicts.json"


def write_verdicts(reports, mode, seed):
    import pathlib

    p = pathlib.Path(__file__).resolve().parent.parent / VERDICTS
    p.write_text(json.dumps({"mode": mode, "seed": seed, "verdicts": {r.claim: r.verdict for r in reports}},
                            indent=1) + "\n")


def load_json(rel: str) -> dict:
    import pathlib

    p = pathlib.Path(__file__).resolve().parent.parent / rel
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


# ----------------------------------------------------------------------------- one claim
def summarize(rep):
    groups = defaultdict(list)
    for c in rep.checks:
        groups[(c.quantity, c.form)].append(c)
    rows = []
    for (q, f), cs in groups.items():
        cnt = Counter(c.verdict for c in cs)
        worst = max(cs, key=lambda c: (c.verdict == core.VIOLATED, c.ratio if math.isfinite(c.ratio) else 1e300))
        rows.append([q[:60], f, "yes" if any(c.primary for c in cs) else "no", cs[0].method, str(len(cs)),
                     f"{cnt.get('holds', 0)}/{cnt.get('violated', 0)}/{cnt.get('inconclusive', 0)}",
                     fmt(worst.ratio), core.combine([c.verdict for c in cs])])
    return table(rows, ["quantity", "form", "primary", "method", "checks", "holds/viol/inc", "max ratio", "verdict"])


def print_report(rep, verbose=False):
    import bounds

    c = bounds.get(rep.claim)
    v = REGISTRY[rep.claim]
    n_mc = sum(1 for x in rep.checks if x.method == "monte-carlo")
    print(f"{rep.claim}: {c.title}\nsource: {c.source}")
    print(f"measures: {v.measures}\non: {v.targets}\nhow: {v.method}; primary form: {v.primary_form}; "
          f"seed {rep.seed}; bound scale {rep.bound_scale:g}; {len(rep.checks)} checks in {rep.elapsed_s:.1f} s")
    if n_mc:
        print(f"Monte Carlo verdicts: false-violation rate <= {ALPHA:g} for this claim "
              f"(Bonferroni over {n_mc} checks, one-sided z = {core.z_one_sided(ALPHA / n_mc):.2f}).")
    print()
    print(summarize(rep))
    bad = [x for x in rep.checks if x.verdict != core.HOLDS]
    shown = bad if verbose else sorted(bad, key=lambda x: (not x.primary, -(x.ratio if math.isfinite(x.ratio) else 1e300)))[:8]
    if shown:
        print("\nnot holding" + ("" if verbose else f" (worst {len(shown)} of {len(bad)}; --verbose for all)") + ":")
        for x in shown:
            se = f" ± {fmt(x.stderr)}" if x.stderr else ""
            params = ", ".join(f"{k}={fmt(v) if isinstance(v, float) else v}" for k, v in x.params.items())
            print(f"  [{x.verdict}] {x.quantity} ({x.form}): empirical {fmt(x.empirical)}{se} "
                  f"{'vs' if x.relation == '=' else x.relation.replace('<=', '>').replace('>=', '<') if x.verdict == core.VIOLATED else 'vs'} "
                  f"bound {fmt(x.scaled_bound)} (ratio {fmt(x.ratio)}) at {params}" + (f" — {x.note}" if x.note else ""))
    if verbose:
        print("\nall checks:")
        for x in rep.checks:
            print(f"  {x.verdict:12s} {x.quantity} ({x.form}) {fmt(x.empirical)} {x.relation} {fmt(x.scaled_bound)} {x.params}")
    fv = rep.form_verdicts()
    print(f"\nverdict: {rep.verdict} (primary form '{v.primary_form}')   by form: "
          + ", ".join(f"{k}: {val}" for k, val in fv.items()))


def add_run_flags(ap):
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="small grid, seconds (default)")
    g.add_argument("--full", action="store_true", help="larger grid, minutes")
    ap.add_argument("--seed", default="0", help="seed of every Monte Carlo check (default 0)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")


def _seed(text):
    try:
        v = int(text)
    except ValueError:
        raise UsageError(f"--seed: must be a non-negative integer, got {text!r}") from None
    if v < 0:
        raise UsageError(f"--seed: must be a non-negative integer, got {text!r}")
    return v


def cmd_claim(cid, argv):
    _load()
    if cid not in REGISTRY:
        import bounds

        try:
            bounds.get(cid)
        except bounds.UnknownClaim as e:
            raise UsageError(str(e)) from None
        raise UsageError(f"{cid} has no verification")
    v = REGISTRY[cid]
    ap = _Parser(prog=f"{PROG} {cid}", formatter_class=argparse.RawDescriptionHelpFormatter, description=(
        f"Verify {cid}: {v.measures}\non: {v.targets}\nhow: {v.method}; forms: {v.forms}\n\n"
        "Verdicts: exact checks compare with a tolerance from the computation's error bound; Monte Carlo checks "
        f"keep the false-violation rate <= {ALPHA:g} per claim (Bonferroni). Exit status: 0 holds, 1 violated, "
        "3 inconclusive, 2 bad input."))
    add_run_flags(ap)
    ap.add_argument("--plot", metavar="PATH", help="write a bound-vs-empirical figure (.png or .pdf)")
    ap.add_argument("--bound-scale", default="1", metavar="C",
                    help="tighten every bound by C (upper bounds x C, lower bounds / C): a small C must give 'violated'")
    ap.add_argument("--verbose", action="store_true", help="list every check")
    for key, flag in OVERRIDE_FLAGS.items():
        ap.add_argument(flag, dest=key, default=None,
                        help=f"grid override (comma list){'' if key in v.overrides else ' — not used by this claim'}")
    a = ap.parse_args(argv)
    seed = _seed(a.seed)
    try:
        C = float(a.bound_scale)
    except ValueError:
        raise UsageError(f"--bound-scale: not a number: {a.bound_scale!r}") from None
    if not (C > 0 and math.isfinite(C)):
        raise UsageError(f"--bound-scale: must be a positive number, got {a.bound_scale!r}")
    overrides = {}
    for key, flag in OVERRIDE_FLAGS.items():
        raw = getattr(a, key)
        if raw is None:
            continue
        if key not in v.overrides:
            raise UsageError(f"{flag} does not apply to {cid} (its grid overrides: "
                             f"{', '.join(OVERRIDE_FLAGS[k] for k in v.overrides) or 'none'})")
        quick = v.grid.quick.get(key, [])
        integer = key in ("N", "t", "dim") or (key == "k" and all(isinstance(x, (int, np.integer)) for x in np.atleast_1d(quick)))
        vals = _numbers(flag, raw, integer=integer)
        if key == "w_star" and min(vals) < 1:
            raise UsageError("--w-star: values must be >= 1")
        if key == "proposal_scale" and min(vals) <= 1 and "gauss" in v.grid.quick:
            raise UsageError("--proposal-scale: values must be > 1 (w* = s^D is infinite otherwise)")
        overrides[key] = vals
    if a.plot and not a.plot.lower().endswith((".png", ".pdf", ".svg")):
        raise UsageError("--plot: the path must end in .png, .pdf or .svg")
    prog = Progress(not a.json)
    rep = run_verification(v, "full" if a.full else "quick", seed=seed, bound_scale=C, overrides=overrides,
                           progress=prog)
    prog.done()
    if a.plot:
        from .plot import plot_report

        plot_report(rep, a.plot)
    if a.json:
        print(json.dumps(rep.as_json()))
    else:
        print_report(rep, a.verbose)
        if a.plot:
            print(f"figure written to {a.plot}")
    return EXIT[rep.verdict]


# ----------------------------------------------------------------------------- all
def run_all(mode="quick", seed=0, progress=None):
    import bounds

    _load()
    reports = []
    for cid in bounds.ids():
        if progress:
            progress(f"{cid} ...")
        reports.append(run_verification(REGISTRY[cid], mode, seed=seed, progress=progress))
    return reports


def cmd_all(argv):
    ap = _Parser(prog=f"{PROG} all", description="Verify every claim; ends with a summary table.")
    add_run_flags(ap)
    ap.add_argument("--write", action="store_true",
                    help="also write the verdicts to docs/verdicts.json (read by `list`)")
    a = ap.parse_args(argv)
    seed = _seed(a.seed)
    prog = Progress(not a.json)
    t0 = time.perf_counter()
    reports = run_all("full" if a.full else "quick", seed, prog)
    prog.done()
    elapsed = time.perf_counter() - t0
    verdict = core.combine([r.verdict for r in reports])
    if a.write:
        write_verdicts(reports, "full" if a.full else "quick", seed)
    if a.json:
        print(json.dumps({"verdict": verdict, "seed": seed, "elapsed_s": elapsed, "mode": "full" if a.full else "quick",
                          "verdicts": {r.claim: r.verdict for r in reports},
                          "claims": [r.as_json() for r in reports]}))
        return EXIT[verdict]
    import bounds

    rows = []
    for r in reports:
        fv = r.form_verdicts()
        others = ", ".join(f"{k}: {v}" for k, v in fv.items() if k != r.primary_form)
        n_mc = sum(1 for c in r.checks if c.method == "monte-carlo")
        rows.append([r.claim, str(bounds.get(r.claim).source.seed[:3]), r.verdict, r.primary_form, str(len(r.checks)),
                     str(n_mc), f"{r.elapsed_s:.1f}", others])
    print(table(rows, ["claim", "seed", "verdict", "primary form", "checks", "MC", "s", "other forms"]))
    cnt = Counter(r.verdict for r in reports)
    print(f"\n{len(reports)} claims in {elapsed:.1f} s: {cnt.get('holds', 0)} hold, {cnt.get('violated', 0)} violated, "
          f"{cnt.get('inconclusive', 0)} inconclusive. Monte Carlo verdicts keep the false-violation rate <= {ALPHA:g} "
          f"per claim. `{PROG} CLAIM` shows a claim's checks and counterexamples.")
    return EXIT[verdict]


# ----------------------------------------------------------------------------- main
USAGE = f"""usage: {PROG} {{list,all,search,audit,CLAIM}} ...

Hold every bound of the seed documents against exact and Monte Carlo computations.

  {PROG} list                      coverage table: what is measured, how, which form
  {PROG} theorem3 [--plot f.png]   one claim: checks, verdict, counterexamples
  {PROG} all --quick               every claim (under a minute) with a summary
  {PROG} search theorem4           Hypothesis search for a counterexample
  {PROG} audit [CLAIM]             step-by-step proof audit

Verdicts: holds, violated, inconclusive. Exit status 0 holds, 1 violated, 3 inconclusive,
2 bad input. `{PROG} CLAIM --help` for a claim's options.
"""


def _search(argv):
    from .search import cmd_search

    return cmd_search(argv)


def _audit(argv):
    from .audit import cmd_audit

    return cmd_audit(argv)


def main(argv=None) -> int:
    return run(PROG, USAGE, argv, {"list": cmd_list, "all": cmd_all, "search": _search, "audit": _audit}, cmd_claim)
