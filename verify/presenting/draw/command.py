"""The command line ``python -m verify draw KIND --out FILE``: its flags, checked before any work
(:func:`parse`), and :func:`cmd_draw`.
"""

from __future__ import annotations

import textwrap
from fractions import Fraction

from mcsa_cli import Parser, UsageError, number, numbers, output_path

from .constants import (
    COUNTEREXAMPLE,
    DEFAULTS,
    EPILOG,
    EXTENSIONS,
    KINDS,
    MAX_N,
    MAX_N_STATIONARY,
    MAX_PANELS,
    MAX_STATES,
    MAX_T,
    MAX_W,
    PROG,
    SCHEMES,
)
from .kinds import draw
from .lecture import write_lecture
from .steps import step_ids


# ----------------------------------------------------------------------------- the command line
def _parser(kind: str) -> Parser:
    ap = Parser(prog=f"{PROG} {kind}", epilog=EPILOG, description={
        "mixing": "Exact total-variation curves d_TV(P^k(eta*, .), Pi) against the iteration k "
                  "for each scheme, budget N and w*, with the mixing bounds of Theorems 1-4 (one "
                  "panel per N and w*).",
        "variance": "The exact gradient second moment E||g_t||^2 from z* against the budget N, "
                    "with each scheme's second-moment bound (one panel per w*).",
        "wstar": "E||g_t||^2 from the worst start against w* at one N and t; marks where pMCSA's "
                 "advantage over each other scheme vanishes.",
        "rates": "Table 1's rate bounds of each scheme relative to pMCSA's, against w* (the "
                 "unknown O-constant cancels): mirror descent (needs rho) and SGD-Nesterov / SGD "
                 "(rho-free), with the scheme each prefers.",
        "stationary": "The exact stationary second moments E||g||^2 of MSC, MSC-RB, JSA and "
                      "pMCSA against N on a finite instance: the two-state instance at --w-star, "
                      "your own (--pi, --q, --s), or --counterexample (pi = (1/2, 1/4, 1/4), "
                      "q = (1/10, 9/20, 9/20), s = (0, 1, -1)), where MSC-RB beats pMCSA.",
        "step": "One audit step (python -m verify audit): its statement and status, the claim's "
                "final status with its readings, and the counterexample.",
        "lecture": "The figures of a 50-minute lecture on MCGD and MCSA and its outline "
                   "(outline.md, one message per figure), written into a directory.",
    }[kind])
    if kind == "step":
        ap.add_argument("step_id", metavar="STEP_ID",
                        help="an audit step id (python -m verify audit lists them)")
    elif kind == "lecture":
        ap.add_argument("--format", default="png", choices=("png", "pdf", "svg"),
                        help="the figures' format (default png)")
    else:
        one = kind in ("wstar", "rates")
        ap.add_argument("--N", default=None, metavar="N" if one else "N[,N...]",
                        help="budget(s) N (integers 2.."
                             + str(MAX_N_STATIONARY if kind == "stationary" else MAX_N) + ")"
                             + (", one value" if one else ""))
        ap.add_argument("--w-star", default=None, metavar="LO,HI" if one else "W[,W...]",
                        help="the largest importance weight w* >= 1" + (
                            ": the range LO,HI of the horizontal axis" if one else
                            " of the two-state instance (one value)" if kind == "stationary"
                            else " (a list)"))
        if kind not in ("rates", "stationary"):
            ap.add_argument("--schemes", default=None, metavar="S[,S...]",
                            help="a comma list of " + ", ".join(SCHEMES) + " (case-insensitive)")
        ap.add_argument("--pi0", default="0.3", metavar="P",
                        help="target mass of the worst state z* of the two-state instance "
                             "(0 < P <= 0.5; default 0.3)")
        if kind == "mixing":
            ap.add_argument("--k", default=None, metavar="KMAX",
                            help="the largest iteration k drawn (default: until N r^k < 1e-3)")
        elif kind in ("variance", "wstar"):
            ap.add_argument("--t", default=None, metavar="T",
                            help="the MCGD iteration t (default 100)")
        if kind == "stationary":
            ap.add_argument("--counterexample", action="store_true",
                            help="the three-state instance pi = (1/2, 1/4, 1/4), q = (1/10, "
                                 "9/20, 9/20), s = (0, 1, -1), where MSC-RB beats pMCSA")
            for flag, what in (("--pi", "the target pi"), ("--q", "the proposal q"),
                               ("--s", "the (scalar) score s")):
                ap.add_argument(flag, default=None, metavar="X,X,...",
                                help=f"{what} on 2..{MAX_STATES} states: a comma list of "
                                     "numbers or fractions (1/3); pi and q sum to 1 exactly")
    if kind == "lecture":
        ap.add_argument("--out", required=True, metavar="DIR",
                        help="the directory of the figures and outline.md (created)")
    else:
        ap.add_argument("--out", required=True, metavar="FILE",
                        help="the figure: a .png, .pdf or .svg path")
    return ap


def _schemes(text) -> list[str]:
    by_lower = {s.lower(): s for s in SCHEMES}
    items = [x.strip() for x in str(text).split(",")]
    bad = [x for x in items if x.lower() not in by_lower]
    if bad or not items:
        raise UsageError(f"--schemes: must be a comma list of {', '.join(SCHEMES)}, got "
                         + (bad[0] if bad else repr(text)))
    out = []
    for x in items:
        if by_lower[x.lower()] not in out:
            out.append(by_lower[x.lower()])
    return out


def _fractions(flag: str, text, positive: bool) -> list[Fraction]:
    """A comma list of exact numbers (``0.25`` or ``1/4``); one line naming ``flag`` if bad."""
    items = [x.strip() for x in str(text).split(",")]
    if not 2 <= len(items) <= MAX_STATES:
        raise UsageError(f"{flag}: 2 to {MAX_STATES} values (one per state), got {len(items)}")
    out = []
    for x in items:
        try:
            v = Fraction(x)
        except (ValueError, ZeroDivisionError):
            raise UsageError(f"{flag}: must be a comma list of numbers or fractions, got "
                             f"{x!r}") from None
        if positive and v <= 0:
            raise UsageError(f"{flag}: every value must be > 0, got {x}")
        out.append(v)
    return out


def _instance_flags(a) -> dict | None:
    """``--counterexample`` or ``--pi --q --s`` (exact), or None for the two-state instance."""
    given = [f for f in ("pi", "q", "s") if getattr(a, f) is not None]
    if a.counterexample and given:
        raise UsageError(f"--counterexample: not with --{given[0]} (it is an instance itself)")
    if a.counterexample:
        return {k: [Fraction(x) for x in v] for k, v in COUNTEREXAMPLE.items()}
    if not given:
        return None
    if len(given) != 3:
        missing = [f"--{f}" for f in ("pi", "q", "s") if f not in given]
        raise UsageError(f"--pi, --q, --s: give all three, missing {', '.join(missing)}")
    inst = {"pi": _fractions("--pi", a.pi, True), "q": _fractions("--q", a.q, True),
            "s": _fractions("--s", a.s, False)}
    if not len(inst["pi"]) == len(inst["q"]) == len(inst["s"]):
        raise UsageError(f"--pi, --q, --s: one value per state each, got {len(inst['pi'])}, "
                         f"{len(inst['q'])} and {len(inst['s'])}")
    for f in ("pi", "q"):
        if sum(inst[f]) != 1:
            raise UsageError(f"--{f}: must sum to 1 exactly, got {sum(inst[f])}")
    return inst


def parse(argv) -> tuple[str, dict]:
    """``(kind, options)`` from the arguments after ``draw``; :class:`UsageError` on bad input.
    Imports nothing heavy and does no work beyond creating the (empty) output file or
    directory."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        if argv:
            print(f"usage: {PROG} KIND ... --out FILE|DIR\n       KIND: {', '.join(KINDS)}\n\n"
                  + textwrap.fill(
                      "Lecture-ready figures, exact: mixing (TV curves), variance (E||g_t||^2 "
                      "against N), wstar (E||g_t||^2 against w*, the crossing marked), rates "
                      "(Table 1's rate ratios and the scheme each prefers), stationary (exact "
                      "stationary second moments on a finite instance), step (an audit step and "
                      "its counterexample), lecture (the figures and outline of a 50-minute "
                      f"lecture). `{PROG} KIND --help` for a kind's flags.", 100)
                  + "\n\n" + textwrap.fill(EPILOG, 100))
            raise SystemExit(0)
        raise UsageError(f"a kind is required: {', '.join(KINDS)}")
    kind, rest = argv[0], argv[1:]
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}; choose {', '.join(KINDS)}")
    a = _parser(kind).parse_args(rest)
    opts: dict = {}
    if kind == "step":
        ids = step_ids()
        if a.step_id not in ids:
            near = [i for i in ids if a.step_id.lower() in i.lower()][:5]
            raise UsageError(f"unknown audit step {a.step_id!r}"
                             + (f"; did you mean {', '.join(near)}?" if near else
                                f" (`python -m verify audit` lists the {len(ids)} steps)"))
        opts["step_id"] = a.step_id
    elif kind == "lecture":
        opts["fmt"] = a.format
        opts["out"] = output_path("--out", a.out, kind="dir")
        return kind, opts
    else:
        d = DEFAULTS[kind]
        limit = MAX_N_STATIONARY if kind == "stationary" else MAX_N
        opts["N"] = (numbers("--N", a.N, integer=True, lo=2,
                             max_items=MAX_PANELS if kind == "mixing" else 31,
                             limit=limit, limit_why="the exact moments grow with N")
                     if a.N is not None else list(d["N"]))
        w = (numbers("--w-star", a.w_star, lo=1, max_items=MAX_PANELS, limit=MAX_W,
                     limit_why="r = 1 - 1/w* is then 1 to double precision") if a.w_star is not None
             else list(d["w_star"]))
        if kind not in ("rates", "stationary"):
            opts["schemes"] = _schemes(a.schemes) if a.schemes is not None else list(d["schemes"])
        pi0 = number("--pi0", a.pi0, lo=0, lo_strict=True, hi=0.5)
        if kind == "mixing":
            if len(opts["N"]) * len(w) > MAX_PANELS:
                raise UsageError(
                    f"--N, --w-star: at most {MAX_PANELS} panels (one per N and w*), got "
                    f"{len(opts['N'])} x {len(w)}")
            opts["k"] = (number("--k", a.k, integer=True, lo=1,
                                limit=MAX_T) if a.k is not None else None)
        elif kind in ("variance", "wstar"):
            opts["t"] = (number("--t", a.t, integer=True, lo=1,
                                limit=MAX_T) if a.t is not None else d["t"])
        if kind == "variance" and len(w) > 3:
            raise UsageError(f"--w-star: at most 3 values (one panel each), got {len(w)}")
        if kind in ("wstar", "rates"):
            if len(opts["N"]) != 1:
                raise UsageError(
                    f"--N: one value for {kind} (the budget the figure is drawn at), got "
                    f"{len(opts['N'])}")
            opts["N"] = opts["N"][0]
            if len(w) != 2 or not w[0] < w[1]:
                raise UsageError(
                    f"--w-star: the range LO,HI with LO < HI for {kind}, got {a.w_star}")
            if kind == "rates" and w[0] <= 1:
                raise UsageError(f"--w-star: LO > 1 for rates (at w* = 1 every rho is 0), got "
                                 f"{a.w_star}")
            if kind == "wstar" and ("pMCSA" not in opts["schemes"] or len(opts["schemes"]) < 2):
                raise UsageError(
                    "--schemes: wstar compares pMCSA with at least one other scheme, got "
                    + ",".join(opts["schemes"]))
            opts["w_range"] = tuple(w)
        elif kind == "stationary":
            inst = _instance_flags(a)
            if inst is None:
                if len(w) != 1:
                    raise UsageError(f"--w-star: one value for stationary (the two-state "
                                     f"instance), got {len(w)}")
                opts["w_star"], opts["pi0"] = w[0], pi0
            elif a.w_star is not None:
                raise UsageError("--w-star: not with an instance of your own or "
                                 "--counterexample (its w* is max pi/q)")
            else:
                opts["instance"] = inst
        else:
            opts["w_star"] = w
        if kind not in ("stationary",):
            opts["pi0"] = pi0
    opts["out"] = output_path("--out", a.out, EXTENSIONS)
    return kind, opts


def cmd_draw(argv) -> int:
    """``python -m verify draw KIND ... --out FILE``: parse (bad input: exit 2 before any work),
    draw, write.
    """
    kind, opts = parse(argv)
    out = opts.pop("out")
    if kind == "lecture":
        written = write_lecture(out, fmt=opts["fmt"])
        print(f"lecture: {len(written['figures'])} figures and {written['outline']} written to "
              f"{out}")
        for slide in written["figures"]:
            print(f"  {slide['file']}: {slide['message']}")
        return 0
    d = draw(kind, out, **opts)
    print(f"{kind}: figure written to {out}")
    for line in d.notes:
        print("  " + line)
    return 0
