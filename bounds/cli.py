"""Command line of the bound library: ``python -m bounds``.

    python -m bounds list [--json]
    python -m bounds show CLAIM [--latex] [--json]
    python -m bounds CLAIM [--N ...] [--w-star ...] [...] [--json]
    python -m bounds compare --N ... --w-star ... --chi2 ... --L ... [--mu-norm ...] [--json]

Bad input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import itertools
import json

import mpmath
import numpy as np

from . import ASSUMPTIONS, ParamError, UnknownClaim, all_claims, get
from .clikit import Parser as _Parser, UsageError, run
from .core import Claim
from .numerics import PrecisionError

PROG = "python -m bounds"


# ----------------------------------------------------------------------------- values
def parse_number_list(flag: str, text: str) -> list[float]:
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise UsageError(f"{flag}: empty item in {text!r}")
        try:
            out.append(float(item))
        except ValueError:
            raise UsageError(f"{flag}: not a number: {item!r}") from None
    return out


def jsonable(x):
    """float for doubles, a decimal string for values outside the double range, None."""
    if x is None:
        return None
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 17, min_fixed=1, max_fixed=0)
    x = float(x)
    if x != x:
        return None
    return x


def fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 6, min_fixed=1, max_fixed=0)
    x = float(x)
    if x == int(x) and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.6g}"


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows])


# ----------------------------------------------------------------------------- list / show
def cmd_list(argv):
    ap = _Parser(prog=f"{PROG} list", description="One row per claim: id, source, assumptions, quantities.")
    ap.add_argument("--json", action="store_true", help="print a JSON array")
    a = ap.parse_args(argv)
    claims = all_claims()
    if a.json:
        print(json.dumps([{
            "id": c.id, "title": c.title, "source": str(c.source), "kind": c.kind,
            "assumptions": list(c.assumptions),
            "quantities": {q.name: list(q.form_names) for q in c.quantities},
            "params": [p.flag for p in c.params],
        } for c in claims], indent=1))
        return 0
    def quantities(c):
        if len(c.quantities) > 4:
            return f"{len(c.quantities)} quantities: " + ", ".join(q.name for q in c.quantities[:3]) + ", ..."
        return ", ".join(f"{q.name}[{'/'.join(q.form_names)}]" for q in c.quantities)

    rows = [[c.id, str(c.source), ",".join(c.assumptions) or "-", quantities(c)] for c in claims]
    print(table(rows, ["claim", "source", "assumptions", "quantities [forms]"]))
    print(f"\n{len(claims)} claims. Assumptions: " + "; ".join(
        f"{k}: {v}" for k, v in ASSUMPTIONS.items() if any(k in c.assumptions for c in claims)))
    return 0


def claim_description(c: Claim, latex: bool = False) -> dict:
    import sympy as sp

    render = sp.latex if latex else sp.sstr
    return {
        "claim": c.id, "title": c.title, "source": str(c.source), "kind": c.kind,
        "assumptions": {a: ASSUMPTIONS[a] for a in c.assumptions},
        "params": [{"flag": p.flag, "symbol": p.label, "domain": p.domain_text(),
                    "default": p.default, "meaning": p.description} for p in c.params],
        "definitions": {render(k): render(v) for k, v in c.definitions.items()},
        "constraints": [x.message for x in c.constraints],
        "quantities": [{
            "name": q.name, "description": q.description, "relation": q.relation,
            "forms": [{"form": f.name, "expr": render(f.expr), "derivation": f.derivation,
                       "dropped": [render(d) for d in f.dropped]} for f in q.forms],
            "expansions": [{"form": e.form, "as": f"{e.variable} -> {e.point}",
                            "series": render(e.series), "note": e.note} for e in q.expansions],
        } for q in c.quantities],
        "notes": list(c.notes),
    }


def cmd_show(argv):
    ap = _Parser(prog=f"{PROG} show", description="Formulas (all forms), assumptions and source of a claim.")
    ap.add_argument("claim", help="claim id (see `list`)")
    ap.add_argument("--latex", action="store_true", help="print formulas as LaTeX")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    d = claim_description(get(a.claim), latex=a.latex)
    if a.json:
        print(json.dumps(d, indent=1))
        return 0
    print(f"{d['claim']}: {d['title']}\nsource: {d['source']}   kind: {d['kind']}")
    print("assumptions:")
    for k, v in d["assumptions"].items():
        print(f"  {k}: {v}")
    if not d["assumptions"]:
        print("  (none)")
    print("parameters:")
    for p in d["params"]:
        dflt = f" (default {p['default']:g})" if p["default"] is not None else ""
        print(f"  {p['flag']:<12} {p['domain']}{dflt}: {p['meaning']}")
    for k, v in d["definitions"].items():
        print(f"where {k} = {v}")
    for m in d["constraints"]:
        print(f"requires: {m}")
    for q in d["quantities"]:
        print(f"\n{q['name']}: {q['description']}   [quantity {q['relation']} form]")
        for f in q["forms"]:
            print(f"  {f['form']:<10} {f['expr']}")
            print(f"  {'':<10} ({f['derivation']})")
            for dd in f["dropped"]:
                print(f"  {'':<10} dropped O-term: {dd}")
        for e in q["expansions"]:
            print(f"  series of {e['form']} as {e['as']}: {e['series']}   ({e['note']})")
    if d["notes"]:
        print("\nnotes:")
        for n_ in d["notes"]:
            print(f"  - {n_}")
    return 0


# ----------------------------------------------------------------------------- evaluate
def claim_parser(c: Claim) -> _Parser:
    ap = _Parser(
        prog=f"{PROG} {c.id}",
        description=f"{c.title}\nsource: {c.source}\n\nEvaluates every form of every quantity. "
                    "A parameter may be a comma-separated list; several lists give their "
                    "Cartesian product (one table row per point). Forms whose parameters are "
                    "missing are shown as '—' with what they need.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    for p in c.params:
        dflt = f" Default {p.default:g}." if p.default is not None else ""
        ap.add_argument(p.flag, dest=p.name, metavar=p.label.replace(" ", ""),
                        help=f"{p.description}; domain {p.domain_text()}.{dflt}")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def evaluate_grid(c: Claim, given: dict[str, list[float]]):
    names = list(given)
    grid = list(itertools.product(*[given[n] for n in names])) if names else [()]
    cols = {n: np.array([g[i] for g in grid], dtype=float) for i, n in enumerate(names)}
    res = c.evaluate(exact=True, **cols)
    return names, grid, cols, res


def cmd_claim(claim_id, argv):
    c = get(claim_id)
    a = claim_parser(c).parse_args(argv)
    given = {}
    for p in c.params:
        raw = getattr(a, p.name)
        if raw is not None:
            given[p.name] = parse_number_list(p.flag, raw)
    defaults = {p.name: [p.default] for p in c.params if p.default is not None and p.name not in given}
    names, grid, cols, res = evaluate_grid(c, {**given, **defaults})
    if all(v is None for q in res.values() for v in q.values()):
        need = sorted({p.flag for p in c.required if p.name not in given},
                      key=[p.flag for p in c.params].index)
        raise UsageError(f"{c.id}: missing parameter(s) {' '.join(need)}; nothing can be evaluated")
    missing = {q.name: {f.name: [p.flag for p in c.missing(q.name, f.name, {**given, **defaults})]
                        for f in q.forms if res[q.name][f.name] is None} for q in c.quantities}
    missing = {k: v for k, v in missing.items() if v}
    scalar = len(grid) == 1

    def vals(arr):
        if arr is None:
            return None
        flat = [jsonable(x) for x in np.atleast_1d(arr).ravel()]
        return flat[0] if scalar else flat

    if a.json:
        print(json.dumps({
            "claim": c.id, "source": str(c.source),
            "params": {n: (cols[n][0].item() if scalar else cols[n].tolist()) for n in names},
            "bounds": {q: {f: vals(v) for f, v in forms.items()} for q, forms in res.items()},
            "missing": missing,
        }))
        return 0
    print(f"{c.id}: {c.title}\nsource: {c.source}")
    print("params: " + ", ".join(
        f"{c.param(n).label}={fmt(cols[n][0]) if len(set(cols[n])) == 1 else '[' + ','.join(fmt(x) for x in given.get(n, [])) + ']'}"
        for n in names))
    varying = [n for n in names if len(given.get(n, [])) > 1]
    for q in c.quantities:
        forms = [f.name for f in q.forms]
        header = [c.param(n).label for n in varying] + forms
        rows = []
        for i in range(len(grid)):
            row = [fmt(cols[n][i]) for n in varying]
            for f in forms:
                v = res[q.name][f]
                row.append(fmt(np.atleast_1d(v).ravel()[i]) if v is not None else "—")
            rows.append(row)
        print(f"\n{q.name}: {q.description}   [quantity {q.relation} form]")
        print(table(rows, header))
        for f, need in missing.get(q.name, {}).items():
            print(f"  {f}: needs {' '.join(need)}")
    return 0


# ----------------------------------------------------------------------------- compare
SCHEMES = (("MSC", "theorem1"), ("MSC-RB", "theorem2"), ("JSA", "theorem3"), ("pMCSA", "theorem4"))


def cmd_compare(argv):
    ap = _Parser(
        prog=f"{PROG} compare",
        description="At a fixed budget N, rank MSC, MSC-RB, JSA and pMCSA by the per-iteration mixing "
                    "rate rho (TV bound ~ C rho^k) and by the gradient second-moment bound. "
                    "Uses the 'stated' forms (O-terms dropped, C_cov = 0) unless --form explicit.")
    ap.add_argument("--N", required=True, help="budget N (integer >= 2)")
    ap.add_argument("--w-star", dest="w_star", required=True, help="w* >= 1")
    ap.add_argument("--chi2", required=True, help="chi2(pi || q) (MSC-RB)")
    ap.add_argument("--L", required=True, help="score bound L > 0")
    ap.add_argument("--mu-norm", dest="mu_norm", default="0", help="||E_pi s|| (default 0)")
    ap.add_argument("--form", choices=("stated", "explicit"), default="stated",
                    help="bound form for the second moment (explicit needs --t and --D)")
    ap.add_argument("--t", default=None, help="iteration t (explicit form)")
    ap.add_argument("--D", default=None, help="score dimension D (explicit form)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    vals = {}
    for name in ("N", "w_star", "chi2", "L", "mu_norm", "t", "D"):
        raw = getattr(a, name)
        if raw is None:
            continue
        v = parse_number_list("--" + name.replace("_", "-"), raw)
        if len(v) != 1:
            raise UsageError(f"--{name.replace('_', '-')}: compare takes one value")
        vals[name] = v[0]
    if a.form == "explicit" and ("t" not in vals or "D" not in vals):
        raise UsageError("--form explicit needs --t and --D")
    N, w = vals["N"], vals["w_star"]
    r = 1 - 1 / w
    rho = {"MSC": 1 - (N - 1) / (2 * w + N - 2), "MSC-RB": 2 * w / (2 * w + N - 2),
           "JSA": r ** N, "pMCSA": r}
    moment = {}
    for scheme, cid in SCHEMES:
        c = get(cid)
        kw = {p.name: vals[p.name] for p in c.form_params("second_moment", a.form) if p.name in vals}
        moment[scheme] = float(c.evaluate_form("second_moment", a.form, **kw))
    for scheme, cid in SCHEMES:  # validates N >= 2, w* >= 1, L > 0, ... with the claims' domains
        get(cid).validate({k: v for k, v in vals.items() if k in {p.name for p in get(cid).params}})
    by_mix = sorted(rho, key=lambda s: rho[s])
    by_mom = sorted(moment, key=lambda s: moment[s])
    notes = ["JSA's mixing bound is for the product of its marginals; the joint law of its N "
             "sequential states does not converge to Pi (see `python -m verify theorem3`).",
             "Conditional second-moment bounds of JSA and pMCSA hold in their corrected forms; "
             "see `python -m verify theorem3` / `theorem4`."]
    if a.json:
        print(json.dumps({"params": vals, "form": a.form,
                          "mixing_rate": [{"scheme": s, "rho": rho[s]} for s in by_mix],
                          "second_moment": [{"scheme": s, "bound": moment[s]} for s in by_mom],
                          "notes": notes}))
        return 0
    print(f"N = {fmt(N)}, w* = {fmt(w)}, chi2 = {fmt(vals['chi2'])}, L = {fmt(vals['L'])}, "
          f"||mu|| = {fmt(vals['mu_norm'])}")
    print("\nmixing: per-iteration rate rho (TV bound ~ C rho^k; smaller is better)")
    print(table([[str(i + 1), s, fmt(rho[s])] for i, s in enumerate(by_mix)], ["rank", "scheme", "rho"]))
    print(f"\ngradient: bound on E[||g_t||^2 | F_t-1], form '{a.form}'"
          + (" (O-terms dropped, C_cov = 0)" if a.form == "stated" else ""))
    print(table([[str(i + 1), s, fmt(moment[s])] for i, s in enumerate(by_mom)],
                ["rank", "scheme", "bound"]))
    print("\nnotes:\n" + "\n".join(f"  - {x}" for x in notes))
    return 0


# ----------------------------------------------------------------------------- main
USAGE = f"""usage: {PROG} {{list,show,compare,CLAIM}} ...

Every numbered claim of the seed documents as a formula you can evaluate.

  {PROG} list [--json]                    one row per claim
  {PROG} show CLAIM [--latex] [--json]    formulas (all forms), assumptions, source
  {PROG} CLAIM [--N ...] [...] [--json]   evaluate every form (lists give a table)
  {PROG} compare --N --w-star --chi2 --L  rank MSC, MSC-RB, JSA, pMCSA at budget N

Forms: stated (as printed, O-terms dropped), explicit (every constant from the proof),
moment (E_q||s||^2 in place of L^2), corrected (where a check found the printed form wrong).
Values outside the double range are printed (and put in JSON) as decimal strings.
`{PROG} CLAIM --help` lists a claim's parameters. Bad input exits with status 2.
"""


def main(argv=None) -> int:
    return run(PROG, USAGE, argv, {"list": cmd_list, "show": cmd_show, "compare": cmd_compare}, cmd_claim,
               errors=(ParamError, UnknownClaim, PrecisionError))
