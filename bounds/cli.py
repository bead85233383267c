"""Command line of the bound library: ``python -m bounds``.

    python -m bounds list [--json] [--wide]
    python -m bounds show CLAIM [--latex] [--json] [--wide]
    python -m bounds CLAIM [--N ...] [--w-star ...] [...] [--json] [--wide]
    python -m bounds compare --N ... --w-star ... --chi2 ... --L ... [--mu-norm ...] [--json]
    [--wide]

Bad input prints one line on stderr and exits with status 2.  Terminal output fits the
terminal (100 columns when unknown; ``--wide``: full width); numbers in tables have at most
6 significant digits (``--json`` has the exact values).
"""

from __future__ import annotations

import itertools

from mcsa_cli import (
    ParagraphHelpFormatter,
    Parser as _Parser,
    UsageError,
    add_wide,
    dumps,
    list_arguments,
    numbers,
    run,
    short,
    show_param,
    table,
    wrap,
)

from . import UnknownClaim, get, ids
from .schemes import SCHEMES, mixing_rates

PROG = "python -m bounds"
#: the largest grid evaluated in one run (the product of the list lengths): each point may need
#: an adaptive-precision mpmath evaluation, and a table longer than this is not read by anyone
MAX_POINTS = 10_000
EXIT_TEXT = (
    "Exit status: 0 success, 2 bad input (one line on stderr, before any work), 70 internal error "
    "(rerun with --debug for the traceback), 74 an output cannot be written (a full disk), 130 "
    "interrupted.")


# ----------------------------------------------------------------------------- values
def fmt(x) -> str:
    """A value for a table (:func:`mcsa_cli.short`): at most 6 significant digits;
    '—' when absent, 'undefined' for NaN (0/0 at this point), '∞' for an infinite
    (vacuous) bound; a decimal exponent beyond 15 digits as a power of ten, 10^(-3.0103e+399)."""
    return short(x, 6, nan="undefined")


#: the words printed beside a bound at or above its trivial bound
VACUOUS = "vacuous here"


def trivial_bound(description: str, relation: str, values: dict):
    """The trivial bound of a quantity, ``(value, why)``, or None when none is known.

    A bound at or above it says nothing (it is *vacuous here*):

    * a total variation distance (a quantity ``d_TV(...)``, the mixing bounds of Theorems 1-4 of
      Kim et al. 2022, §3.1 Assumption 1) is at most 1;
    * each MCSA gradient estimate averages scores of norm at most L (Assumption 3), so its second
      moment and its variance (``E[||g...``, ``V[g...``, Theorems 1-4) are at most L^2;
    * the bias of Lemma 7, ``||E g - E_Pi g||``, is the difference of two such averages: at most
      2L.

    ``values`` maps parameter names to the values of one point (L is needed for the last two);
    the rule is read from the quantity's description, so a user's claim that describes its
    quantity the same way is covered too."""
    if relation not in ("<=", "<"):
        return None
    d = description.strip()
    if d.startswith("d_TV("):
        return 1, "a total variation distance is at most 1"
    L = values.get("L")
    if L is None:
        return None
    if d.startswith(("E[||g", "V[g")):
        return L * L, "an average of scores of norm at most L has V[g] <= E||g||^2 <= L^2"
    if d.startswith("||E") and " g" in d:
        return 2 * L, "two averages of scores of norm at most L differ by at most 2L"
    return None


def _as_float(x) -> float:
    """A float for a comparison: ints, Decimals, mpmath numbers and decimal strings beyond the
    double range (their sign and size are what matters: 1e400 is +inf here)."""
    try:
        return float(x)
    except (TypeError, ValueError):
        s = str(x).strip().lower()
        if s in ("inf", "+inf", "∞"):
            return float("inf")
        if s in ("-inf", "-∞"):
            return float("-inf")
        import decimal

        try:
            d = decimal.Decimal(s)
        except decimal.InvalidOperation:
            return float("nan")
        return float("inf") if d > 1 else (float("-inf") if d < -1 else 0.0)


def is_vacuous(value, trivial) -> bool:
    """Whether a bound ``value`` is at or above the ``trivial`` bound (False when either is
    unknown or NaN)."""
    if value is None or trivial is None:
        return False
    v, t = _as_float(value), _as_float(trivial)
    return v == v and t == t and v >= t


def _catalog():
    from .derive import catalog

    return catalog()


def _assumptions() -> dict:
    from .derive import catalog_assumptions

    cat = catalog_assumptions()
    if cat is not None:
        return cat
    from .core import ASSUMPTIONS

    return dict(ASSUMPTIONS)


def list_record(c) -> dict:
    """One row of ``bounds list --json`` (also kept in the catalog, see :mod:`bounds.derive`)."""
    return {"id": c.id, "title": c.title, "source": str(c.source),
            "document": c.source.document,
            "kind": c.kind,
            "assumptions": list(c.assumptions),
            "quantities": {q.name: list(q.form_names) for q in c.quantities},
            "params": [p.flag for p in c.params]}


def records() -> dict:
    """``{claim id: list_record}``: from the catalog when current, else by building the claims."""
    cat = _catalog()
    if cat is not None:  # the catalogued claims; those of modules registered since are built
        # a catalog written before the key was renamed names the document "seed"
        cat = {i: ({"document": r["seed"], **r} if "document" not in r and "seed" in r else r)
               for i, r in cat.items()}
        return {**cat, **{i: list_record(get(i)) for i in ids() if i not in cat}}
    return {i: list_record(get(i)) for i in ids()}


# ----------------------------------------------------------------------------- list / show
def cmd_list(argv):
    a = list_arguments(f"{PROG} list", "One row per claim: id, source, assumptions, quantities.",
                       argv, EXIT_TEXT)
    recs = list(records().values())
    keys = ("id", "title", "source", "kind", "assumptions", "quantities", "params")
    if a.json:
        print(dumps([{k: r[k] for k in keys} for r in recs], indent=1))
        return 0

    def quantities(r):
        qs = r["quantities"]
        if len(qs) > 4:
            return f"{len(qs)} quantities: " + ", ".join(list(qs)[:3]) + ", ..."
        return ", ".join(f"{q}[{'/'.join(f)}]" for q, f in qs.items())

    rows = [[r["id"], r["source"], ", ".join(r["assumptions"]) or "-", quantities(r)] for r in recs]
    print(table(rows, ["claim", "source", "assumptions", "quantities [forms]"], wide=a.wide,
                optional=["assumptions", "source"]))
    used = {a_ for r in recs for a_ in r["assumptions"]}
    print(wrap(f"\n{len(recs)} claims. Assumptions:\n" + "\n".join(
        f"  {k}: {v}" for k, v in _assumptions().items() if k in used), wide=a.wide))
    return 0


def claim_description(c, latex: bool = False) -> dict:
    """What ``bounds show`` prints (also kept in the catalog, see :mod:`bounds.derive`)."""
    import sympy as sp

    from .core import ASSUMPTIONS
    from .symbols import latex as to_latex

    render = to_latex if latex else sp.sstr
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
    ap = _Parser(prog=f"{PROG} show",
                 description="Formulas (all forms), assumptions and source of a claim.",
                 epilog=EXIT_TEXT)
    ap.add_argument("claim", help="claim id (see `list`)")
    ap.add_argument("--latex", action="store_true",
                    help="print formulas as LaTeX, in the documents' notation (w^{*}, "
                         "C_{\\mathrm{cov}}, ...)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    add_wide(ap)
    a = ap.parse_args(argv)
    cat = _catalog()
    if cat is not None and a.claim in cat:
        d = cat[a.claim]["show_latex" if a.latex else "show"]
    else:
        d = claim_description(get(a.claim), latex=a.latex)
    if a.json:
        print(dumps(d, indent=1))
        return 0
    from .references import cite_numbers

    def say(line: str = "", indent: str = "  ") -> None:  # indent: of continuation lines
        print(wrap(line, wide=a.wide, indent=indent))

    say(f"{d['claim']}: {d['title']}\nsource: {d['source']}   kind: {d['kind']}")
    say("assumptions:")
    for k, v in d["assumptions"].items():
        say(f"  {k}: {v}")
    if not d["assumptions"]:
        say("  (none)")
    say("parameters:")
    for p in d["params"]:
        dflt = f" (default {p['default']:g})" if p["default"] is not None else ""
        say(f"  {p['flag']:<12} {p['domain']}{dflt}: {p['meaning']}", indent=" " * 13)
    for k, v in d["definitions"].items():
        say(f"where {k} = {v}")
    for m in d["constraints"]:
        say(f"requires: {m}")
    for q in d["quantities"]:
        say(f"\n{q['name']}: {q['description']}   [quantity {q['relation']} form]")
        for f in q["forms"]:
            say(f"  {f['form']:<10} {f['expr']}", indent=" " * 11)
            # document numbers cited
            say(f"  {'':<10} ({cite_numbers(f['derivation'])})", indent=" ")
            for dd in f["dropped"]:
                say(f"  {'':<10} dropped O-term: {dd}", indent=" " * 16)
        for e in q["expansions"]:
            say(f"  series of {e['form']} as {e['as']}: {e['series']}   ({e['note']})")
    if d["notes"]:
        say("\nnotes:")
        for n_ in d["notes"]:
            say(f"  - {n_}")
    return 0


# ----------------------------------------------------------------------------- evaluate
def claim_parser(c) -> _Parser:
    ap = _Parser(
        prog=f"{PROG} {c.id}",
        description=f"{c.title}\nsource: {c.source}\n\nEvaluates every form of every quantity. "
                    "A parameter may be a comma-separated list; several lists give their "
                    f"Cartesian product (one table row per point; at most {MAX_POINTS:,} points). "
                    "Forms whose parameters are missing are shown as '—' with what they need. "
                    "Values are read exactly (1.000000000001 stays 1.000000000001, 1e400 is "
                    "allowed where the formula is defined): where floats cannot be trusted the "
                    "value is computed in mpmath from the digits typed. In tables, 'undefined' "
                    "marks 0/0 at that point and '∞' an infinite (vacuous) bound. A bound at or "
                    "above its quantity's trivial bound (1 for a total variation distance, L^2 "
                    "for the second moment or variance of an average of scores of norm <= L, 2L "
                    "for Lemma 7's bias) says nothing there: it is marked 'vacuous here'.",
        epilog=EXIT_TEXT,
        formatter_class=ParagraphHelpFormatter)
    for p in c.params:
        dflt = f" Default {p.default:g}." if p.default is not None else ""
        ap.add_argument(p.flag, dest=p.name, metavar=p.label.replace(" ", ""),
                        help=f"{p.description}; domain {p.domain_text()}.{dflt}")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    add_wide(ap)
    return ap


def parse_values(c, a) -> dict[str, list]:
    """The parameters given on the command line, exact (ints, Decimals), grid size checked."""
    given = {}
    for p in c.params:
        raw = getattr(a, p.name)
        if raw is not None:
            given[p.name] = numbers(p.flag, raw, integer=p.integer, lo=p.lower,
                                    lo_strict=p.lower_strict,
                                    hi=p.upper, hi_strict=p.upper_strict, exact=True,
                                    max_items=MAX_POINTS)
    size = 1
    for v in given.values():
        size *= len(v)
    if size > MAX_POINTS:
        raise UsageError(f"the grid has {size:,} points (the product of the list lengths); at most "
                         f"{MAX_POINTS:,} are evaluated in one run: shorten the lists or split the "
                         f"run")
    return given


def evaluate_grid(c, given: dict[str, list]):
    import numpy as np

    names = list(given)
    grid = list(itertools.product(*[given[n] for n in names])) if names else [()]
    cols = {}
    for i, n in enumerate(names):
        col = np.empty(len(grid), dtype=object)
        col[:] = [g[i] for g in grid]
        cols[n] = col
    res = c.evaluate(exact=True, flag=True, **cols)
    return names, grid, cols, res


def parse_early(claim_id, argv) -> None:
    """Parse first (issue 24 §2): an unknown claim or a bad flag is answered from the catalog
    (no sympy), before the claim is built.  The flags are the claim's parameters as the catalog
    lists them (:func:`list_record`), so this parser accepts exactly what :func:`claim_parser`
    accepts; ``--help`` and a stale catalog go the full way."""
    cat = _catalog()
    if cat is None:
        return
    if claim_id not in cat:
        from . import _unknown

        known = ids()  # the catalog's, and users' claims from their entry points
        if claim_id not in known:
            raise _unknown(claim_id, known)
        return
    if any(x in ("-h", "--help") or x.startswith("--help=") for x in argv):
        return
    ap = _Parser(prog=f"{PROG} {claim_id}")
    for flag in cat[claim_id]["params"]:
        ap.add_argument(flag)
    ap.add_argument("--json", action="store_true")
    add_wide(ap)
    ap.parse_args(argv)


def cmd_claim(claim_id, argv):
    import numpy as np

    parse_early(claim_id, argv)
    c = get(claim_id)
    a = claim_parser(c).parse_args(argv)
    given = parse_values(c, a)
    defaults = {p.name: [p.default] for p in c.params if p.default is not None
                and p.name not in given}
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
        flat = list(np.atleast_1d(arr).ravel())
        return flat[0] if scalar else flat

    # the trivial bound of each quantity at each point (None where none is known)
    trivial = {q.name: [trivial_bound(q.description, q.relation,
                                      {n: cols[n][i] for n in names}) for i in range(len(grid))]
               for q in c.quantities}

    def vacuous(qname, f):
        v = res[qname][f]
        if v is None:
            return None
        flat = list(np.atleast_1d(v).ravel())
        out = [is_vacuous(x, t[0] if t else None) for x, t in zip(flat, trivial[qname])]
        return out[0] if scalar else out

    if a.json:
        print(dumps({
            "claim": c.id, "source": str(c.source),
            "params": {n: (cols[n][0] if scalar else list(cols[n])) for n in names},
            "bounds": {q: {f: vals(v) for f, v in forms.items()} for q, forms in res.items()},
            # a bound at or above the trivial bound says nothing: "vacuous here"
            "trivial_bound": {q: (ts[0] if scalar else ts) for q, ts in (
                (q, [{"value": t[0], "why": t[1]} if t else None for t in ts])
                for q, ts in trivial.items())},
            "vacuous": {q: {f: vacuous(q, f) for f in forms} for q, forms in res.items()},
            "missing": missing,
        }))
        return 0
    print(wrap(f"{c.id}: {c.title}\nsource: {c.source}", wide=a.wide))
    print(wrap("params: " + ", ".join(
        f"{c.param(n).label}="
        + (show_param(cols[n][0]) if len({show_param(x) for x in cols[n]}) == 1
           else "[" + ",".join(show_param(x) for x in given.get(n, [])) + "]")
        for n in names), wide=a.wide))
    varying = [n for n in names if len(given.get(n, [])) > 1]
    for q in c.quantities:
        forms = [f.name for f in q.forms]
        header = [c.param(n).label for n in varying] + forms
        rows, marked = [], set()
        for i in range(len(grid)):
            row = [show_param(cols[n][i]) for n in varying]
            for f in forms:
                v = res[q.name][f]
                if v is None:
                    row.append("—")
                    continue
                x = np.atleast_1d(v).ravel()[i]
                t = trivial[q.name][i]
                if t is not None and is_vacuous(x, t[0]):
                    marked.add((show_param(t[0]), t[1]))
                    row.append(f"{fmt(x)} ({VACUOUS})")
                else:
                    row.append(fmt(x))
            rows.append(row)
        print(wrap(f"\n{q.name}: {q.description}   [quantity {q.relation} form]", wide=a.wide))
        print(table(rows, header, wide=a.wide))
        for value, why in sorted(marked):
            print(wrap(f"  {VACUOUS}: at or above the trivial bound {value} ({why}), the bound "
                       "says nothing at this point", wide=a.wide, indent="    "))
        for f, need in missing.get(q.name, {}).items():
            print(f"  {f}: needs {' '.join(need)}")
    return 0


# ----------------------------------------------------------------------------- compare
#: name: (integer, lower end, lower end excluded)
COMPARE_FLAGS = {"N": (True, 2, False), "w_star": (False, 1, False), "chi2": (False, 0, False),
                 "L": (False, 0, True), "mu_norm": (False, 0, False), "t": (True, 1, False),
                 "D": (True, 1, False)}


def cmd_compare(argv):
    ap = _Parser(
        prog=f"{PROG} compare",
        description="At a fixed budget N, rank MSC, MSC-RB, JSA and pMCSA by the per-iteration "
                    "mixing rate rho (TV bound ~ C rho^k) and by the gradient second-moment bound. "
                    "Uses the 'stated' forms (O-terms dropped, C_cov = 0) unless --form explicit.",
        epilog=EXIT_TEXT)
    ap.add_argument("--N", required=True, help="budget N (integer >= 2)")
    ap.add_argument("--w-star", dest="w_star", required=True, help="w* >= 1")
    ap.add_argument("--chi2", required=True, help="chi2(pi || q) (MSC-RB), 0 <= chi2 <= w* - 1")
    ap.add_argument("--L", required=True, help="score bound L > 0")
    ap.add_argument("--mu-norm", dest="mu_norm", default="0",
                    help="||E_pi s||, 0 <= ||mu|| <= L (default 0)")
    ap.add_argument("--form", choices=("stated", "explicit"), default="stated",
                    help="bound form for the second moment (explicit needs --t and --D)")
    ap.add_argument("--t", default=None, help="iteration t (explicit form)")
    ap.add_argument("--D", default=None, help="score dimension D (explicit form)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    add_wide(ap)
    a = ap.parse_args(argv)
    vals = {}
    for name, (integer, lo, strict) in COMPARE_FLAGS.items():
        raw = getattr(a, name)
        if raw is None:
            continue
        flag = "--" + name.replace("_", "-")
        v = numbers(flag, raw, integer=integer, lo=lo, lo_strict=strict, exact=True)
        if len(v) != 1:
            raise UsageError(f"{flag}: compare takes one value, got {len(v)}")
        vals[name] = v[0]
    if a.form == "explicit" and ("t" not in vals or "D" not in vals):
        raise UsageError("--form explicit needs --t and --D")
    claims = {scheme: get(cid) for scheme, cid in SCHEMES}
    # N >= 2, w* >= 1, L > 0, chi2 <= w* - 1, ... with the claims' domains
    for c in claims.values():
        c.validate({k: v for k, v in vals.items() if k in {p.name for p in c.params}}, flag=True)
    rho = mixing_rates(vals["N"], vals["w_star"])
    moment = {}
    for scheme, c in claims.items():
        kw = {p.name: vals[p.name] for p in c.form_params("second_moment",
                                                          a.form) if p.name in vals}
        moment[scheme] = _value(c.evaluate_form("second_moment", a.form, exact=True, flag=True,
                                                **kw))
    by_mix = sorted(rho, key=lambda s: rho[s])
    by_mom = sorted(moment, key=lambda s: moment[s])
    L2 = vals["L"] * vals["L"]  # the trivial bound of every scheme's E||g||^2 (||s|| <= L)
    void = {s: is_vacuous(moment[s], L2) for s in moment}
    notes = ["JSA's mixing bound is for the product of its marginals; the joint law of its N "
             "sequential states does not converge to Pi (see `python -m verify theorem3`).",
             "Conditional second-moment bounds of JSA and pMCSA hold in their corrected forms, "
             "which are below the trivial bound L^2 only for w* < 2 (pMCSA: where (1 + r)/N + "
             "(||mu||/L + 2r)^2 < 1); see `python -m verify theorem3` / `theorem4`."]
    if a.json:
        print(dumps({"params": vals, "form": a.form,
                     "mixing_rate": [{"scheme": s, "rho": rho[s]} for s in by_mix],
                     "second_moment": [{"scheme": s, "bound": moment[s], "vacuous": void[s]}
                                       for s in by_mom],
                     "trivial_bound": L2,
                     "notes": notes}))
        return 0
    print(wrap(f"N = {show_param(vals['N'])}, w* = {show_param(vals['w_star'])}, "
               f"chi2 = {show_param(vals['chi2'])}, L = {show_param(vals['L'])}, "
               f"||mu|| = {show_param(vals['mu_norm'])}", wide=a.wide))
    print("\nmixing: per-iteration rate rho (TV bound ~ C rho^k; smaller is better)")
    print(table([[str(i + 1), s, fmt(rho[s])] for i, s in enumerate(by_mix)],
                ["rank", "scheme", "rho"],
                wide=a.wide))
    print(wrap(f"\ngradient: bound on E[||g_t||^2 | F_t-1], form '{a.form}'"
               + (" (O-terms dropped, C_cov = 0)" if a.form == "stated" else ""), wide=a.wide))
    print(table([[str(i + 1), s, fmt(moment[s]) + (f" ({VACUOUS})" if void[s] else "")]
                 for i, s in enumerate(by_mom)],
                ["rank", "scheme", "bound"], wide=a.wide))
    if any(void.values()):
        print(wrap(f"  {VACUOUS}: at or above the trivial bound L^2 = {show_param(L2)} (an "
                   "average of scores of norm at most L), the bound says nothing; its rank "
                   "means nothing either", wide=a.wide, indent="    "))
    print(wrap("\nnotes:\n" + "\n".join(f"  - {x}" for x in notes), wide=a.wide, indent="  "))
    return 0


def _value(v):
    import numpy as np

    return v.item() if isinstance(v, np.ndarray) else v


# ----------------------------------------------------------------------------- cache
def claim_record(c) -> dict:
    """A claim's entry in the catalog: what ``list``, ``show`` and ``verify list`` print."""
    return {**list_record(c), "show": claim_description(c, latex=False),
            "show_latex": claim_description(c, latex=True)}


def fresh_derivation():
    """Build every claim and compile every evaluator with the cache off.

    Returns ``(entries, catalog, results)``: the srepr'd derivations, the catalog, and
    the fresh results by key."""
    import bounds

    from . import derive
    from .core import ASSUMPTIONS

    derive.set_enabled(False)
    try:
        bounds.get.cache_clear()
        claims = [bounds.get(i) for i in bounds._builders()]
        for c in claims:  # the evaluators and constraints an evaluation compiles
            c._constraint_functions
            for q in c.quantities:
                for f in q.forms:
                    ev = c.evaluator(q.name, f.name)[0]
                    ev._np, ev._k, ev._mp, ev._k_mp
        used = derive.used()
        entries = {k: {"op": label, "text": derive.describe(res), "result": derive.encode(res)}
                   for k, (label, res) in sorted(used.items())}
        cat = {"sources": derive.source_digests(), "modules": derive.module_digests(),
               "assumptions": dict(ASSUMPTIONS),
               "claims": {c.id: claim_record(c) for c in claims}}
        return entries, cat, {k: res for k, (_, res) in used.items()}
    finally:
        derive.set_enabled(True)
        bounds.get.cache_clear()


def cache_problems() -> list[str]:
    """How ``bounds/_derived.json`` differs from a fresh derivation (empty when current)."""
    import json

    from . import derive

    data = derive.stored()
    entries, cat, results = fresh_derivation()
    have = data.get("entries", {})
    problems = []
    if data.get("sympy") != derive.sympy_version():
        problems.append(f"written with sympy {data.get('sympy')}, running {derive.sympy_version()}")
    for k, e in entries.items():
        if k not in have:
            problems.append(f"missing: {e['op']} ({k})")
            continue
        try:
            cached = derive.decode(have[k]["result"])
        except Exception as ex:  # noqa: BLE001 -- reported, never used
            problems.append(f"unreadable: {e['op']} ({k}): {ex}")
            continue
        if cached != results[k] and not _same_value(cached, results[k]):
            problems.append(f"differs from a fresh derivation: {e['op']} ({k})")
    for k in sorted(set(have) - set(entries)):
        problems.append(f"unused entry: {have[k].get('op')} ({k})")
    old = data.get("catalog") or {}
    if old.get("sources") != cat["sources"] or old.get("modules") != cat["modules"]:
        now, was = {**cat["sources"], **cat["modules"]}, {**(old.get("sources") or {}),
                                                          **(old.get("modules") or {})}
        changed = sorted(n for n in set(now) | set(was) if was.get(n) != now.get(n))
        problems.append("catalog: generated from other versions of " + ", ".join(changed))
    elif json.loads(dumps(cat)) != old:
        problems.append("catalog: differs from the claims as built now")
    return problems


def _same_value(a, b) -> bool:
    """Equal as mathematics: some sympy results (``together``) order their unevaluated
    factors by hash, which differs between interpreter runs."""
    import sympy as sp

    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic):
        return sp.simplify(a - b) == 0
    return False


def cmd_cache(argv):
    from . import derive

    ap = _Parser(prog=f"{PROG} cache", description=(
        "The checked cache of sympy derivations and the claim catalog, bounds/_derived.json "
        "(see bounds.derive). --write re-derives everything and writes it (run it after editing "
        "a claim); --check exits 1 when it differs from a fresh derivation."), epilog=EXIT_TEXT)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="re-derive everything and write the file")
    g.add_argument("--check", action="store_true", help="compare the file with a fresh derivation")
    a = ap.parse_args(argv)
    if a.write:
        import json

        entries, cat, _ = fresh_derivation()
        derive.store(entries, json.loads(dumps(cat)))
        print(f"wrote {derive.PATH} ({len(entries)} derivations, catalog of {len(cat['claims'])} "
              f"claims)")
        return 0
    problems = cache_problems()
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s); run `{PROG} cache --write`")
        return 1
    print(f"{derive.PATH.name} is current")
    return 0


# ----------------------------------------------------------------------------- main
USAGE = f"""usage: {PROG} {{list,show,compare,cache,CLAIM}} ...

Every numbered claim of Kim et al. (NeurIPS 2022), the CIS-as-IMH draft and El hanchi (2018)
as a formula you can evaluate.

  {PROG} list [--json]                    one row per claim
  {PROG} show CLAIM [--latex] [--json]    formulas (all forms), assumptions, source
  {PROG} CLAIM [--N ...] [...] [--json]   evaluate every form (lists give a table)
  {PROG} compare --N --w-star --chi2 --L  rank MSC, MSC-RB, JSA, pMCSA at budget N
  {PROG} cache --write | --check          regenerate / check bounds/_derived.json

Forms: stated (as printed, O-terms dropped), explicit (every constant from the proof),
moment (E_q||s||^2 in place of L^2), corrected (where a check found the printed form wrong).
A bound at or above the trivial bound (1 for a TV distance, L^2 for a second moment) is
printed with "vacuous here": it is true but says nothing at that point.
Parameters are read exactly; values outside the double range are printed (and put in JSON)
as decimal strings. JSON output is strict RFC 8259: NaN is null, infinities are "inf"/"-inf".
Tables fit the terminal (--wide: full width); they show 6 significant digits (--json: exact).
`{PROG} CLAIM --help` lists a claim's parameters.

{EXIT_TEXT} --debug (anywhere) shows the traceback of an internal error. `{PROG} --version`
prints the package version.
"""


class _BadInputErrors:
    """The bad-input exceptions for :func:`bounds.clikit.run`, read when an exception is caught:
    ParamError and PrecisionError once their modules are loaded (they import sympy; before
    that neither can have been raised), so that parsing needs neither."""

    def __iter__(self):
        import sys

        yield UnknownClaim
        if f"{__package__}.core" in sys.modules:
            yield sys.modules[f"{__package__}.core"].ParamError
        if f"{__package__}.numerics" in sys.modules:
            yield sys.modules[f"{__package__}.numerics"].PrecisionError


def main(argv=None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    return run(PROG, USAGE, argv, {"list": cmd_list, "show": cmd_show, "compare": cmd_compare,
                                   "cache": cmd_cache}, cmd_claim, errors=_BadInputErrors())
