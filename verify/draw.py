"""Lecture figures in one command: ``python -m verify draw KIND --out FILE``.

    python -m verify draw mixing     [--N 4,16] [--w-star 10,100] [--schemes S,...] [--k KMAX]
    python -m verify draw variance   [--N 2,4,...] [--w-star 10] [--t 100] [--schemes S,...]
    python -m verify draw wstar      [--N 16] [--t 100] [--w-star LO,HI] [--schemes S,...]
    python -m verify draw rates      [--N 16] [--w-star LO,HI]
    python -m verify draw stationary [--N 2,...] [--w-star W | --counterexample | --pi --q --s]
    python -m verify draw step STEP_ID
    python -m verify draw lecture --out DIR [--format png|pdf|svg]

Every kind but ``lecture`` takes ``--out FILE``; its format (PDF, SVG or PNG) follows the
extension.  ``lecture`` writes the figures of a 50-minute lecture and its outline
(``outline.md``) into a directory (:func:`write_lecture`, :data:`SLIDES`).

Every number drawn is exact: nothing here is sampled, and nothing is computed anew — the kernels,
laws and conditional moments come from :mod:`simulate.finite` (finite-state kernels of Kim et al.,
NeurIPS 2022, App. B Algorithms 2 and 3; conditional moments of Theorems 1–4,
``docs/methods.md`` §6) and the bounds from :mod:`bounds` (the forms of Theorems 1–4 and Table 1
as stated and as proved).

The instance is the two-state hard instance (:func:`simulate.finite.hard_instance`): the state
z* carries target mass ``pi0`` (default 0.3) and importance weight w* = π(z*)/q(z*), the other
state a weight below 1; the "score" is :func:`simulate.finite.centred_bounded_score` (|s| <= L,
E_π s = 0, s(z*) = L).  Every chain starts at z*, the worst start of Eq. (7) (§3.2).
``stationary`` also takes any finite instance (``--pi --q --s``) and the three-state
counterexample to "pMCSA always has the smallest second moment at stationarity"
(``--counterexample``: π = (1/2, 1/4, 1/4), q = (1/10, 9/20, 9/20), s = (0, 1, −1), w* = 5).

What a figure shows, it explains:

* every drawn line has a legend entry (:func:`unlabelled_lines` finds those without);
* a bound at or above the trivial bound — 1 for a total variation distance, L² for E‖g‖² (each
  estimator averages scores of norm <= L) — says nothing: it is *vacuous* and drawn in grey along
  the trivial bound (:func:`bounds.cli.trivial_bound`), never in its scheme's colour;
* a stated form whose O(·) terms hide constants the paper does not give
  (:attr:`bounds.core.Form.dropped`) is drawn without them, and the legend's title says so;
* a curve that cannot be drawn (JSA's exact joint law for N > 20: 2^N atoms) is named in its
  panel with the reason, not dropped;
* no two labels overlap (:func:`overlapping_texts`, checked by the tests on every kind);
* the axis says what one step is per scheme: an *iteration* is one CIS step (MSC, MSC-RB), N IMH
  steps of one chain (JSA) or one IMH step of each of N chains (pMCSA).

Public functions (used by the notebooks and the lecture): :func:`instance`,
:func:`second_moments`, :func:`stationary_moments`, :func:`stationary_data`,
:func:`wstar_data`, :func:`crossing`, :func:`mixing_data`, :func:`variance_data`,
:func:`rates_data`, :func:`figure`, :func:`draw`, and the figure checks :func:`overlapping_texts`,
:func:`unlabelled_lines`, :func:`title_fits`.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction

from mcsa_cli import Parser, UsageError, number, numbers, output_path

PROG = "python -m verify draw"
KINDS = ("mixing", "variance", "wstar", "rates", "stationary", "step", "lecture")
SCHEMES = ("MSC", "MSC-RB", "JSA", "pMCSA")
COLOR = {"MSC": "C0", "MSC-RB": "C1", "JSA": "C3", "pMCSA": "C2"}
FORM_STYLE = {"stated": "--", "explicit": ":"}
#: the theorem that bounds each scheme (Kim et al. 2022, §4.2-§5.1)
THEOREM = {"MSC": "Theorem 1", "MSC-RB": "Theorem 2", "JSA": "Theorem 3", "pMCSA": "Theorem 4"}
#: what one MCGD iteration does, per scheme (the unit of k and t)
ITERATION = {"MSC": "one CIS step", "MSC-RB": "one CIS step", "JSA": "N IMH steps",
             "pMCSA": "one IMH step per chain"}
EXTENSIONS = (".png", ".pdf", ".svg")
#: the lecture font size (points) and figure width (inches) of a 16:9 slide
FONT = 16
WIDTH = 12.0
#: how a vacuous bound is drawn: grey, along the trivial bound
VOID_COLOR = "0.62"
VOID_LABEL = "at or above the trivial bound: vacuous (grey)"
#: limits of the flags, with their reasons (one line each on bad input)
MAX_N = 64                    # JSA's exact second moment is O(N^2) products per state and w*
MAX_N_JSA_JOINT = 20          # JSA's exact joint law has 2^N atoms
MAX_N_STATIONARY = 32         # MSC-RB's exact sum over the proposals' counts
MAX_STATES = 8
MAX_T = 100_000
MAX_W = 1e6
MAX_PANELS = 6
#: the three-state counterexample to "at stationarity pMCSA always has the smallest second
#: moment" (exact rationals; MSC-RB is below pMCSA at every N from 2 to 16)
COUNTEREXAMPLE = {"pi": ("1/2", "1/4", "1/4"), "q": ("1/10", "9/20", "9/20"),
                  "s": ("0", "1", "-1")}
DEFAULTS = {"mixing": {"N": [4, 16], "w_star": [10.0, 100.0], "schemes": list(SCHEMES)},
            "variance": {"N": [2, 4, 8, 16, 32, 64], "w_star": [10.0, 1000.0], "t": 100,
                         "schemes": list(SCHEMES)},
            "wstar": {"N": [16], "w_star": [2.0, 1e4], "t": 100, "schemes": ["JSA", "pMCSA"]},
            "rates": {"N": [16], "w_star": [1.5, 1e4]},
            "stationary": {"N": list(range(2, 17)), "w_star": [10.0]}}

EPILOG = (
    "Exit status: 0 written, 2 bad input (one line on stderr, before any work), 70 internal error "
    "(rerun with --debug for the traceback), 74 an output cannot be written (a full disk), 130 "
    "interrupted.")


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


# ----------------------------------------------------------------------------- exact quantities
def instance(w_star: float, pi0: float = 0.3, L: float = 1.0):
    """``(pi, q, s)``: the two-state hard instance with sup π/q = w* at z* = state 0 and the centred
    bounded score (s(z*) = L, E_π s = 0): :func:`simulate.finite.hard_instance` and
    :func:`simulate.finite.centred_bounded_score`."""
    from simulate import finite as F

    pi, q = F.hard_instance(2, float(w_star), seed=0, pi0=float(pi0))
    return pi, q, F.centred_bounded_score(pi, L)


def _start_law(K, steps, start, pi):
    import numpy as np

    if isinstance(start, str) and start == "stationary":
        return np.asarray(pi, float)
    return np.linalg.matrix_power(K, int(steps))[0]


def second_moments(N: int, t: int, w_star: float, schemes=SCHEMES, pi0: float = 0.3, L: float = 1.0,
                   start: str = "worst") -> dict:
    """Exact E‖g_t‖² of each scheme at iteration ``t``, every chain started at z*
    (``start="worst"``) or drawn from π (``start="stationary"``, where ``t`` does not matter).

    Kim et al. (NeurIPS 2022) §4 and App. B: MSC and MSC-RB use the CIS kernel with N particles
    (its state z_{t-1} has law K_CIS^{t-1}(z*, ·); :func:`simulate.finite.moments_msc`,
    :func:`simulate.finite.moments_msc_rb` given it); JSA sweeps N IMH steps from the last state of
    iteration t-1, whose law is K^{N(t-1)}(z*, ·) (:func:`simulate.finite.moments_jsa`); pMCSA's N
    independent IMH chains have each made t steps (:func:`simulate.finite.moments_pmcsa` with the
    t-step kernel K^t, all chains at z*).  A second moment given the state is linear in the state's
    law, so the unconditional value is the law-weighted sum of the conditional ones.  Also returns
    ``"c_cov"``: JSA's covariance term C_cov of Theorem 3 averaged over the same law."""
    import numpy as np

    from simulate import finite as F

    pi, q, s = instance(w_star, pi0, L)
    K = F.imh_matrix(pi, q)
    out: dict = {}
    if "MSC" in schemes or "MSC-RB" in schemes:
        Kc = F.cis_matrix(pi, q, N)
        law = _start_law(Kc, t - 1, start, pi)
        if "MSC" in schemes:
            out["MSC"] = float(law @ [F.moments_msc(Kc, s, x).second for x in range(2)])
        if "MSC-RB" in schemes:
            out["MSC-RB"] = float(law @ [F.moments_msc_rb(pi, q, s, x, N).second for x in range(2)])
    if "JSA" in schemes:
        law = _start_law(K, N * (t - 1), start, pi)
        m = [F.moments_jsa(K, s, x, N) for x in range(2)]
        out["JSA"] = float(law @ [mi.second for mi in m])
        out["c_cov"] = float(law @ [mi.c_cov for mi in m])
    if "pMCSA" in schemes:
        # the chains' t-step kernel K^t from z*; at stationarity the kernel whose every row is pi
        Kt = np.tile(pi, (2, 1)) if start == "stationary" else np.linalg.matrix_power(K, t)
        out["pMCSA"] = F.moments_pmcsa(Kt, s, np.zeros(N, int)).second
    return out


def stationary_moments(pi, q, s, N: int, schemes=SCHEMES) -> dict:
    """Exact E‖g‖² of each scheme at stationarity on a finite instance ``(pi, q, s)``: the state
    entering the iteration is drawn from π (every chain, for pMCSA), then one iteration runs
    (Kim et al. 2022, §4-§5.1, Algorithms 1-5).

    MSC keeps one of N CIS particles (its law given x is the CIS kernel's row), MSC-RB averages the
    N particles with their self-normalised weights (:func:`simulate.finite.moments_msc_rb`), JSA
    averages N consecutive IMH states (:func:`simulate.finite.moments_jsa`), pMCSA averages N
    independent draws from π: E_π‖s‖²/N + (1 − 1/N)‖E_π s‖².  Each is the π-weighted sum of the
    conditional second moments given the state."""
    import numpy as np

    from simulate import finite as F

    pi, q = np.asarray(pi, float), np.asarray(q, float)
    s = np.asarray(s, float)
    s = s[:, None] if s.ndim == 1 else s
    M = pi.size
    out = {}
    if "MSC" in schemes:
        Kc = F.cis_matrix(pi, q, N)
        out["MSC"] = float(pi @ [F.moments_msc(Kc, s, x).second for x in range(M)])
    if "MSC-RB" in schemes:
        out["MSC-RB"] = float(pi @ [F.moments_msc_rb(pi, q, s, x, N).second for x in range(M)])
    if "JSA" in schemes:
        K = F.imh_matrix(pi, q)
        out["JSA"] = float(pi @ [F.moments_jsa(K, s, x, N).second for x in range(M)])
    if "pMCSA" in schemes:
        out["pMCSA"] = F.moments_pmcsa(np.tile(pi, (M, 1)), s, np.zeros(N, int)).second
    return out


def counterexample():
    """``(pi, q, s)`` of :data:`COUNTEREXAMPLE` as float arrays (the exact rationals are
    :data:`COUNTEREXAMPLE`)."""
    import numpy as np

    return tuple(np.array([float(Fraction(x)) for x in COUNTEREXAMPLE[k]])
                 for k in ("pi", "q", "s"))


def stationary_data(pi, q, s, Ns) -> dict:
    """The exact stationary E‖g‖² of the four schemes at each budget in ``Ns``
    (:func:`stationary_moments`), with w*, χ², the scheme with the smallest value at each N and
    the budgets at which each scheme is below pMCSA."""
    import numpy as np

    pi, q, s = (np.asarray(x, float) for x in (pi, q, s))
    Ns = [int(n) for n in Ns]
    rows = [stationary_moments(pi, q, s, n) for n in Ns]
    exact = {sc: np.array([r[sc] for r in rows]) for sc in SCHEMES}
    below = {sc: [n for n, r in zip(Ns, rows) if r[sc] < r["pMCSA"] * (1 - 1e-9)]
             for sc in SCHEMES if sc != "pMCSA"}
    equal = {sc: bool(np.allclose(exact[sc], exact["pMCSA"], rtol=1e-9, atol=0))
             for sc in SCHEMES if sc != "pMCSA"}
    return {"N": np.array(Ns), "pi": pi, "q": q, "s": s, "exact": exact,
            "w_star": float((pi / q).max()), "chi2": _chi2(pi, q),
            "smallest": [min(r, key=lambda sc: (r[sc], sc != "pMCSA")) for r in rows],
            "below_pmcsa": below, "equal_pmcsa": equal}


def claim_of(scheme: str) -> str:
    """The claim that bounds ``scheme`` (Kim et al. 2022, Theorems 1-4), as :func:`bounds.compare`
    pairs them.
    """
    from bounds.cli import SCHEMES as PAIRS

    return dict(PAIRS)[scheme]


def _bound(claim_id: str, quantity: str, form: str, cap: float, **values):
    """A form of a claim's bound evaluated through :mod:`bounds`, capped at the trivial bound
    ``cap`` (None where the values are outside the form's domain).  A capped value equals ``cap``
    exactly: the bound is vacuous there."""
    import numpy as np

    import bounds

    c = bounds.get(claim_id)
    names = {p.name for p in c.form_params(quantity, form)}
    try:
        v = np.asarray(c.evaluate_form(quantity, form,
                                       **{k: x for k, x in values.items() if k in names}), float)
    except bounds.ParamError:
        return None
    return np.minimum(v, cap)


def _chi2(pi, q) -> float:
    return float((pi ** 2 / q).sum() - 1)


def _moment_bounds(sc, N, t, w_star, pi0, L, c_cov):
    pi, q, s = instance(w_star, pi0, L)
    vals = {"N": N, "w_star": w_star, "t": t, "L": L, "mu_norm": abs(float(pi @ s[:, 0])),
            "chi2": _chi2(pi, q), "D": 1,
            "c_cov": c_cov if c_cov is not None else 0.0}
    out = {}
    for form in FORM_STYLE:
        b = _bound(claim_of(sc), "second_moment", form, L ** 2, **vals)
        if b is not None:
            out[form] = float(b)
    return out


def wstar_data(N: int = 16, t: int = 100, w_range=(2.0, 1e4), schemes=("JSA", "pMCSA"),
               pi0: float = 0.3,
               L: float = 1.0, points: int = 61) -> dict:
    """E‖g_t‖² from z* against w* (a log grid over ``w_range``), each scheme's bounds (capped at
    L²), the stationary values (chains drawn from π) and, for each scheme other than pMCSA, the w*
    where pMCSA's advantage over it vanishes (:func:`crossing`; None if it does not within the
    range)."""
    import numpy as np

    schemes = [sc for sc in SCHEMES if sc in schemes]
    w = np.geomspace(float(w_range[0]), float(w_range[1]), int(points))
    exact = {sc: [] for sc in schemes}
    stationary = {sc: [] for sc in schemes}
    bnds = {sc: {f: [] for f in FORM_STYLE} for sc in schemes}
    for wi in w:
        m = second_moments(N, t, wi, schemes, pi0, L)
        ms = second_moments(N, t, wi, schemes, pi0, L, start="stationary")
        for sc in schemes:
            exact[sc].append(m[sc])
            stationary[sc].append(ms[sc])
            for form, v in _moment_bounds(sc, N, t, wi, pi0, L, m.get("c_cov")).items():
                bnds[sc][form].append(v)
    crossings = {sc: crossing(N, t, sc, (w[0], w[-1]), pi0, L) for sc in schemes if sc != "pMCSA"}
    return {"N": N, "t": t, "pi0": pi0, "L": L, "w": w,
            "exact": {k: np.array(v) for k, v in exact.items()},
            "stationary": {k: np.array(v) for k, v in stationary.items()},
            "bounds": {sc: {f: np.array(v) for f, v in d.items() if len(v) == len(w)}
                       for sc, d in bnds.items()},
            "crossings": crossings}


def crossing(N: int, t: int, other: str = "JSA", w_range=(2.0, 1e4), pi0: float = 0.3,
             L: float = 1.0,
             points: int = 61):
    """The smallest w* in ``w_range`` from which pMCSA's E‖g_t‖² (from z*) is no longer below
    ``other``'s: the first sign change of E_pMCSA − E_other on a log grid, refined by Brent's method
    to 1e-10 relative (the difference is smooth in w*).  None if pMCSA stays below (or above) over
    the whole range."""
    import numpy as np
    from scipy.optimize import brentq

    def diff(logw):
        m = second_moments(N, t, math.exp(logw), ("pMCSA", other), pi0, L)
        return m["pMCSA"] - m[other]

    grid = np.linspace(math.log(w_range[0]), math.log(w_range[1]), int(points))
    vals = [diff(x) for x in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa < 0 <= fb:
            return float(math.exp(brentq(diff, a, b, xtol=1e-12, rtol=1e-12)))
    return None


def _pmcsa_tv(law0, pi0, N):
    """d_TV of N independent two-state chains (each with law (law0, 1 - law0)) from π^N: the number
    of chains at z* is sufficient for both product laws, so this is the TV of two binomials
    (exact)."""
    import numpy as np
    from scipy.stats import binom

    j = np.arange(N + 1)
    return 0.5 * float(np.abs(binom.pmf(j, N, law0) - binom.pmf(j, N, pi0)).sum())


def mixing_data(N: int, w_star: float, schemes=SCHEMES, k_max: int | None = None,
                pi0: float = 0.3) -> dict:
    """Exact d_TV(P^k(η*, ·), Π) against the iteration k for each scheme (Assumption 1 of Kim et
    al. 2022, §3.1; η* = every state at z*), with the stated and explicit mixing forms of
    Theorems 1–4 capped at 1.

    MSC and MSC-RB: the CIS kernel (:func:`simulate.finite.tv_curve` of
    :func:`simulate.finite.cis_matrix`); pMCSA: N independent IMH chains (binomial counts, exact);
    JSA: the law of its N-tuple (:func:`simulate.finite.jsa_joint_law` against the product law),
    for N <= 20 only (2^N atoms): ``omitted`` names a curve left out and why."""
    import numpy as np

    from simulate import finite as F

    pi, q, _ = instance(w_star, pi0)
    r = 1 - 1 / w_star
    if k_max is None:
        k_max = int(np.clip(math.ceil(math.log(1e-3 / N) / math.log(r)) if r > 0 else 20, 20,
                            20_000))
    ks = np.unique(np.geomspace(1, k_max, 60).round().astype(int))
    K = F.imh_matrix(pi, q)
    exact, omitted = {}, {}
    if "MSC" in schemes or "MSC-RB" in schemes:
        tv = F.tv_curve(F.cis_matrix(pi, q, N), pi, int(ks[-1]))[ks - 1, 0]
        for sc in ("MSC", "MSC-RB"):
            if sc in schemes:
                exact[sc] = tv
    if "pMCSA" in schemes:
        exact["pMCSA"] = np.array([_pmcsa_tv(np.linalg.matrix_power(K, int(k))[0, 0], pi[0],
                                             N) for k in ks])
    if "JSA" in schemes:
        if N <= MAX_N_JSA_JOINT:
            Pi = F.product_law([pi] * N)
            exact["JSA"] = np.array([F.tv_joint(F.jsa_joint_law(K, 0, N, int(k)), Pi) for k in ks])
        else:
            omitted["JSA"] = (f"JSA's exact curve is not drawn: its joint law has 2^N atoms "
                              f"(drawn for N <= {MAX_N_JSA_JOINT})")
    bnds = {}
    for sc in schemes:
        bnds[sc] = {}
        for form in FORM_STYLE:
            b = _bound(claim_of(sc), "mixing", form, 1.0, N=N, w_star=w_star, k=ks)
            if b is not None:
                bnds[sc][form] = np.broadcast_to(b, ks.shape).copy()
    return {"N": N, "w_star": w_star, "k": ks, "exact": exact, "bounds": bnds,
            "omitted": omitted, "notes": list(omitted.values())}


def variance_data(Ns, w_star: float, t: int = 100, schemes=SCHEMES, pi0: float = 0.3,
                  L: float = 1.0) -> dict:
    """Exact E‖g_t‖² from z* against the budget N (:func:`second_moments`), with each scheme's
    stated and explicit second-moment forms (Theorems 1–4) capped at L²."""
    import numpy as np

    Ns = [int(n) for n in Ns]
    exact = {sc: [] for sc in schemes}
    bnds = {sc: {f: [] for f in FORM_STYLE} for sc in schemes}
    for n in Ns:
        m = second_moments(n, t, w_star, schemes, pi0, L)
        for sc in schemes:
            exact[sc].append(m[sc])
            b = _moment_bounds(sc, n, t, w_star, pi0, L, m.get("c_cov"))
            for form in FORM_STYLE:
                bnds[sc][form].append(b.get(form, np.nan))
    return {"N": np.array(Ns), "w_star": w_star, "t": t,
            "exact": {k: np.array(v) for k, v in exact.items()},
            "bounds": {sc: {f: np.array(v) for f, v in d.items()} for sc, d in bnds.items()}}


#: Table 1's optimizers (Kim et al. 2022, §2.2): how each rate depends on G^2 and rho
OPTIMIZERS = {"mirror_descent": "mirror descent (Duchi et al. 2012): c G² log T / (log(1/ρ) √T)",
              "sgd_nesterov": "SGD–Nesterov (Doan et al. 2020a): c G² log T / √T",
              "sgd": "SGD, γ_t = γ/t (Doan et al. 2020b): c G² log T / T"}


def rates_claim() -> str:
    """The claim that holds Table 1's rates (Kim et al. 2022, §2.2): the one whose quantities are
    the three optimizers of :data:`OPTIMIZERS` (found in the catalog, not named)."""
    from bounds.cli import records

    for cid, rec in records().items():
        if set(OPTIMIZERS) <= set(rec["quantities"]):
            return cid
    raise LookupError("no claim holds Table 1's rates (mirror_descent, sgd_nesterov, sgd)")


def rates_data(N: int = 16, w_range=(1.5, 1e4), pi0: float = 0.3, L: float = 1.0,
               points: int = 61, T: int = 10_000) -> dict:
    """Table 1's rate bounds of the four schemes relative to pMCSA's, against w* (Kim et al. 2022,
    §2.2 Table 1 with ρ and G² from Theorems 1-4, as :func:`bounds.compare` gives them).

    G² is each scheme's stated second-moment bound (C_cov = 0, μ = 0, χ² of the two-state
    instance), capped at the trivial L² where it is vacuous (``vacuous``: True there; the rate then
    uses G² = L², which is also a valid bound).  Every rate is evaluated through
    :func:`bounds.evaluate` at ``T`` with the unknown constant c = 1; the ratios do not depend on
    c or T.  ``preferred[optimizer]`` is the scheme with the smallest rate bound at each w*;
    ``closed_form`` the pMCSA/JSA ratios 2N(1 + r)/(N + 3) (mirror descent) and 2(1 + r)/(N + 3)
    (ρ-free) that the stated bounds give."""
    import numpy as np

    import bounds

    w = np.geomspace(float(w_range[0]), float(w_range[1]), int(points))
    table = rates_claim()
    rho = {sc: [] for sc in SCHEMES}
    G2 = {sc: [] for sc in SCHEMES}
    rate = {opt: {sc: [] for sc in SCHEMES} for opt in OPTIMIZERS}
    for wi in w:
        pi, q, _ = instance(wi, pi0, L)
        for row in bounds.compare(N=N, w_star=float(wi), chi2=_chi2(pi, q), L=L):
            sc = row["scheme"]
            rho[sc].append(float(row["rho"]))
            G2[sc].append(float(row["second_moment"]))
            g = math.sqrt(min(float(row["second_moment"]), L ** 2))
            for opt in OPTIMIZERS:
                extra = {"rho": float(row["rho"])} if opt == "mirror_descent" else {}
                rate[opt][sc].append(float(bounds.evaluate(table, opt, "stated", G=g, T=T,
                                                           **extra)))
    rate = {opt: {sc: np.array(v) for sc, v in d.items()} for opt, d in rate.items()}
    ratio = {opt: {sc: d[sc] / d["pMCSA"] for sc in SCHEMES} for opt, d in rate.items()}
    r = 1 - 1 / w
    return {"N": N, "w": w, "pi0": pi0, "L": L, "T": T,
            "rho": {sc: np.array(v) for sc, v in rho.items()},
            "G2": {sc: np.array(v) for sc, v in G2.items()},
            "vacuous": {sc: np.array(v) >= L ** 2 for sc, v in G2.items()},
            "rate": rate, "ratio": ratio,
            "preferred": {opt: [min(SCHEMES, key=lambda sc: d[sc][i]) for i in range(len(w))]
                          for opt, d in rate.items()},
            "closed_form": {"mirror_descent": 2 * N * (1 + r) / (N + 3),
                            "sgd_nesterov": 2 * (1 + r) / (N + 3)}}


# ----------------------------------------------------------------------------- audit steps
def _audit_json() -> dict:
    from importlib.resources import files

    return json.loads(files("verify").joinpath("data", "audit.json").read_text())


def step_ids() -> list[str]:
    """Every audit step id, from the stored audit outcomes (a JSON read; no claim is built)."""
    return list(_audit_json()["steps"])


def step_row(step_id: str) -> dict:
    """The audit's row of one step (:func:`verify.audit.rows`): statement, status,
    counterexample.
    """
    import verify

    claim = _audit_json()["steps"][step_id]["claim"]
    return next(r for r in verify.audit.rows(claim) if r["id"] == step_id)


def wrong_upstream(step_id: str) -> list[str]:
    """The wrong steps that ``step_id`` uses, directly or through other steps: what makes it
    *affected* (:func:`verify.audit.engine.status_with_affected`)."""
    from .audit.engine import STEPS
    from .registry import proof_steps

    proof_steps()
    out, seen, todo = [], set(), list(STEPS[step_id].depends)
    while todo:
        d = todo.pop(0)
        if d in seen or d not in STEPS:
            continue
        seen.add(d)
        if STEPS[d].run().status == "wrong":
            out.append(d)
        todo += list(STEPS[d].depends)
    return out


def claim_status(claim_id: str) -> dict:
    """A claim's final status with the verdict of each reading, from the packaged verdicts
    (``verify/data/verdicts.json``, what ``python -m verify list`` shows)."""
    from importlib.resources import files

    v = json.loads(files("verify").joinpath("data", "verdicts.json").read_text())
    audit = _audit_json()["claims"].get(claim_id, {})
    return {"status": v["verdicts"].get(claim_id, audit.get("final_status")),
            "readings": v.get("final_readings", {}).get(claim_id) or {},
            "severity": (v.get("severity", {}).get(claim_id) or {}).get("severity")
            or audit.get("severity"),
            "see": (v.get("severity", {}).get(claim_id) or {}).get("see") or audit.get("see")}


def claim_display_name(claim_id: str) -> str:
    """``theorem4`` -> ``Theorem 4``, ``lemma7`` -> ``Lemma 7``; other ids as they are."""
    m = re.fullmatch(r"(proposition|lemma|theorem|table|figure)(\d+)", claim_id)
    return f"{m.group(1).capitalize()} {m.group(2)}" if m else claim_id


# ----------------------------------------------------------------------------- drawing
@dataclass
class Drawing:
    """A drawn figure: the matplotlib Figure, the numbers drawn (``data``), what is marked
    (``marks``, e.g. the crossing w*), notes printed by the command line and the figure's
    one-sentence ``message`` (what a slide says with it)."""

    kind: str
    fig: object
    data: dict
    marks: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    path: str | None = None
    message: str = ""


def _rc():
    return {"font.size": FONT, "axes.titlesize": FONT, "axes.labelsize": FONT,
            "legend.fontsize": FONT - 3,
            "xtick.labelsize": FONT - 2, "ytick.labelsize": FONT - 2, "axes.grid": True,
            "grid.alpha": 0.3,
            "lines.linewidth": 2.4}


def _new_figure(nrows=1, ncols=1, height=6.75):
    # an Agg canvas of its own, outside pyplot: no backend is selected (a notebook's inline backend
    # stays)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=False)


def fit_title(fig, text: str, size: float = FONT + 2) -> None:
    """A suptitle that fits the figure's width: wrapped (never cut) until its rendered width
    fits.
    """
    words = text
    for width in range(len(text), 10, -4):
        words = ("\n".join(textwrap.wrap(text, width,
                                         break_on_hyphens=False)) if width < len(text) else text)
        t = fig.suptitle(words, fontsize=size)
        renderer = fig.canvas.get_renderer()
        if t.get_window_extent(renderer).width <= 0.97 * fig.bbox.width:
            return
    fig.suptitle(words, fontsize=size)


def title_fits(fig) -> bool:
    """Whether the figure's suptitle is inside the figure (the test of every kind)."""
    fig.canvas.draw()
    t = fig._suptitle
    bb = t.get_window_extent(fig.canvas.get_renderer())
    return bb.x0 >= 0 and bb.x1 <= fig.bbox.width and bb.y1 <= fig.bbox.height


def _shown_texts(fig) -> list:
    """Every text a reader sees: titles, axis labels, tick labels inside their axis, annotations,
    legend entries and titles, figure texts."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []

    def add(t):
        if t is not None and t.get_visible() and t.get_text().strip():
            out.append(t)

    add(fig._suptitle)
    for t in fig.texts:
        if t is not fig._suptitle:
            add(t)
    legends = list(fig.legends)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
            add(t)
        for t in ax.texts:
            add(t)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        if not ax.axison:  # ax.axis("off"): no axis labels, no ticks
            continue
        add(ax.xaxis.label)
        add(ax.yaxis.label)
        box = ax.get_window_extent(r)
        for t in ax.get_xticklabels():  # those drawn: within the axis' horizontal span
            if t.get_visible() and t.get_text().strip():
                bb = t.get_window_extent(r)
                if box.x0 - 1 <= (bb.x0 + bb.x1) / 2 <= box.x1 + 1:
                    out.append(t)
        for t in ax.get_yticklabels():
            if t.get_visible() and t.get_text().strip():
                bb = t.get_window_extent(r)
                if box.y0 - 1 <= (bb.y0 + bb.y1) / 2 <= box.y1 + 1:
                    out.append(t)
    for lg in legends:
        add(lg.get_title())
        for t in lg.get_texts():
            add(t)
    return out


def overlapping_texts(fig, pad: float = 0.5) -> list[tuple[str, str]]:
    """The pairs of shown texts (:func:`_shown_texts`) whose bounding boxes overlap by more than
    ``pad`` pixels, as ``(text, text)``; empty when no label covers another."""
    r = fig.canvas.get_renderer()
    texts = _shown_texts(fig)
    boxes = [t.get_window_extent(r) for t in texts]
    out = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = boxes[i], boxes[j]
            if (min(a.x1, b.x1) - max(a.x0, b.x0) > pad
                    and min(a.y1, b.y1) - max(a.y0, b.y0) > pad):
                out.append((texts[i].get_text(), texts[j].get_text()))
    return out


def texts_outside(fig, pad: float = 1.0) -> list[str]:
    """The shown texts (:func:`_shown_texts`) that run off the figure: empty when every label
    is readable whole."""
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    out = []
    for t in _shown_texts(fig):
        bb = t.get_window_extent(r)
        if bb.x0 < -pad or bb.y0 < -pad or bb.x1 > W + pad or bb.y1 > H + pad:
            out.append(t.get_text())
    return out


def legend_labels(fig) -> set[str]:
    """The labels of every legend of the figure."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes
                                   if ax.get_legend() is not None]
    return {t.get_text() for lg in legends for t in lg.get_texts()}


def unlabelled_lines(fig) -> list[str]:
    """Drawn lines (with data, visible) whose label is not in a legend of the figure: empty when
    every line explains itself."""
    import numpy as np

    shown = legend_labels(fig)
    out = []
    for ax in fig.axes:
        for ln in ax.get_lines():
            x, y = (np.asarray(v, dtype=float) for v in ln.get_data())
            if not ln.get_visible() or not np.isfinite(x).any() or not np.isfinite(y).any():
                continue
            if ln.get_label() not in shown:
                out.append(ln.get_label())
    return out


def _declutter(fig, texts, step: float = 1.15, tries: int = 40) -> None:
    """Move the given (movable) texts apart vertically until no two of them, nor one of them and
    any other shown text, overlap: each overlapping one is shifted down by its own height (and up
    again from the bottom of its axes).  Offsets are in points, so the move survives a resize."""
    from matplotlib.text import Annotation

    r = fig.canvas.get_renderer()
    for _ in range(tries):
        fig.canvas.draw()
        shown = _shown_texts(fig)
        moved = False
        for t in texts:
            bb = t.get_window_extent(r)
            for o in shown:
                if o is t:
                    continue
                ob = o.get_window_extent(r)
                if min(bb.x1, ob.x1) - max(bb.x0, ob.x0) > 0.5 and \
                        min(bb.y1, ob.y1) - max(bb.y0, ob.y0) > 0.5:
                    dy = -step * bb.height * 72 / fig.dpi
                    if isinstance(t, Annotation):
                        x0, y0 = t.xyann
                        ax = t.axes
                        low = ax.get_window_extent(r).y0 if ax is not None else 0
                        if bb.y0 + dy * fig.dpi / 72 < low:
                            dy = -dy * 3
                        t.xyann = (x0, y0 + dy)
                    else:
                        x0, y0 = t.get_position()
                        t.set_position((x0, y0 - step * bb.height / fig.bbox.height))
                    moved = True
                    break
        if not moved:
            return


def _cap_line(ax, value, what):
    """The trivial bound as a grey line with its own legend entry."""
    ax.axhline(value, color="0.35", lw=1.4, zorder=0, label=f"trivial bound ({what})")


def _bound_line(ax, x, vals, cap, color, ls, label, lw=1.8):
    """A bound (already capped at ``cap``): the part below the trivial bound in the scheme's colour
    with ``label``; the part at the cap (vacuous) in grey along the cap, labelled
    :data:`VOID_LABEL`.  Returns ``"all"`` when the whole bound is vacuous, ``"some"`` when a part
    is, else ``""``."""
    import numpy as np

    vals = np.asarray(vals, float)
    void = vals >= cap
    informative = np.where(void, np.nan, vals)
    if np.isfinite(informative).any():
        ax.plot(x, informative, ls, color=color, lw=lw, label=label)
    if void.any():
        # a vacuous stretch is drawn one point wider on each side, so that a single point shows
        grey = void.copy()
        grey[1:] |= void[:-1]
        grey[:-1] |= void[1:]
        ax.plot(x, np.where(grey, cap, np.nan), ls, color=VOID_COLOR, lw=4.5, alpha=0.8,
                label=VOID_LABEL, zorder=1)
    return "all" if void.all() else "some" if void.any() else ""


def _void_title(everywhere, title=None) -> str:
    """The legend title, naming the bounds that are vacuous at every point drawn (they show only
    in grey, so the legend must say whose they are)."""
    title = title or BOUND_NOTE
    if not everywhere:
        return title
    by_panel: dict = {}
    for panel, name in everywhere:
        by_panel.setdefault(panel, [])
        if name not in by_panel[panel]:
            by_panel[panel].append(name)
    text = "vacuous at every point drawn: " + "; ".join(
        (f"{panel}: " if len(by_panel) > 1 or panel else "") + ", ".join(names)
        for panel, names in by_panel.items())
    return title + "\n" + "\n".join(textwrap.wrap(text, 118))


def _log2_ticks(ax, Ns) -> None:
    """Budgets as plain integers on a log2 axis (2, 4, 8, ... rather than 2^1, 2^2, ...)."""
    ticks = [int(n) for n in Ns if int(n) & (int(n) - 1) == 0] or [int(n) for n in Ns]
    ax.set_xticks(ticks, [str(n) for n in ticks])
    ax.set_xticks([], minor=True)


def _forms_to_draw(forms: dict) -> list[tuple[str, object]]:
    """``[(label, values)]``: stated and explicit, or one line "stated and explicit" where they
    draw the same numbers (equal, or both capped at the trivial bound), so that no legend style
    stands for a line hidden under another."""
    import numpy as np

    if "stated" in forms and "explicit" in forms and np.allclose(
            forms["stated"], forms["explicit"], rtol=1e-12, atol=0, equal_nan=True):
        return [("stated and explicit", forms["stated"])]
    return [(f, v) for f, v in forms.items()]


BOUND_NOTE = ("dashed: bounds (a stated form drops its O(·) terms: the paper gives no constants); "
              "grey: vacuous")


def _legend_below(fig, axes, title=BOUND_NOTE, ncol=None):
    """One legend under the panels with every labelled line (and patch) of ``axes``, each label
    once."""
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    if VOID_LABEL in labels:  # the vacuous grey last
        i = labels.index(VOID_LABEL)
        handles.append(handles.pop(i))
        labels.append(labels.pop(i))
    ncol = ncol or (1 if len(labels) <= 2 else 2 if len(labels) <= 10 else 3)
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False,
               fontsize=FONT - 4 if len(labels) > 10 else FONT - 3, title=title,
               title_fontsize=FONT - 4)


def _omitted_note(ax, text):
    """Name a curve that is not drawn, in its panel (never silently)."""
    ax.text(0.02, 0.03, "\n".join(textwrap.wrap(text, 38)), transform=ax.transAxes, ha="left",
            va="bottom", fontsize=FONT - 5, color="0.15",
            bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6", alpha=0.95))


def _mixing_label(sc, both_cis):
    if sc == "MSC" and both_cis:
        return f"MSC, MSC-RB: exact (iteration: {ITERATION['MSC']})"
    return f"{sc}: exact (iteration: {ITERATION[sc]})"


def _draw_mixing(N=(4, 16), w_star=(10.0, 100.0), schemes=SCHEMES, k=None, pi0=0.3):
    cases = [(n, w) for w in w_star for n in N]
    ncols = {1: 1, 2: 2, 3: 3, 4: 2}.get(len(cases), 3)
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = _new_figure(nrows, ncols, height=5.2 + 3.0 * nrows)
    data, notes = [], []
    flat = list(axes.flat)
    both_cis = "MSC" in schemes and "MSC-RB" in schemes
    everywhere = []
    for ax, (n, w) in zip(flat, cases):
        d = mixing_data(n, w, schemes, k, pi0)
        data.append(d)
        notes += [x for x in d["notes"] if x not in notes]
        for sc in schemes:
            if sc in d["exact"] and not (sc == "MSC-RB" and both_cis):
                ax.plot(d["k"], d["exact"][sc], "-", color=COLOR[sc],
                        label=_mixing_label(sc, both_cis))
            for form, vals in _forms_to_draw(d["bounds"].get(sc, {})):
                label = f"{sc}: {THEOREM[sc]}, {form}"
                if _bound_line(ax, d["k"], vals, 1.0, COLOR[sc], FORM_STYLE.get(form, "--"),
                               label) == "all":
                    everywhere.append((f"N = {n}, w* = {w:g}", f"{sc} ({form})"))
        for sc, why in d["omitted"].items():
            _omitted_note(ax, why)
        _cap_line(ax, 1.0, "1: a TV distance")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-4, 2.5)
        ax.set_title(f"N = {n},  w* = {w:g}")
        ax.set_xlabel("iteration k")
        ax.set_ylabel(r"$d_{TV}(P^k(\eta^*,\cdot),\Pi)$")
    for ax in flat[len(cases):]:
        ax.axis("off")
    _legend_below(fig, flat[:len(cases)], title=_void_title(everywhere))
    fit_title(fig, "Mixing from the worst start: exact TV (solid) against Theorems 1–4 (dashed)")
    return Drawing("mixing", fig, {"panels": data}, notes=notes, message=_mixing_message(data))


def _mixing_message(panels) -> str:
    """What the mixing figure says, from its numbers: which scheme is the last to reach a TV of
    0.01 in every panel, and how far JSA's joint law stays from π^N."""
    import numpy as np

    slowest = set()
    for p in panels:
        first = {}
        for sc, tv in p["exact"].items():
            if sc == "JSA":
                continue
            below = np.nonzero(np.asarray(tv) < 0.01)[0]
            first[sc] = int(p["k"][below[0]]) if below.size else math.inf
        if first:
            slowest.add(max(first, key=first.get))
    parts = []
    if len(slowest) == 1:
        parts.append(f"from the worst start {slowest.pop()} is the last to reach a TV of 0.01 in "
                     "every panel")
    jsa = [p for p in panels if "JSA" in p["exact"]]
    if jsa:
        tail = min(float(p["exact"]["JSA"][-1]) for p in jsa)
        parts.append(f"JSA's joint law levels off at a TV of at least {tail:.2f} from π^N, far "
                     "above Theorem 3's bound")
    if not parts:
        return "The exact TV curves from the worst start against the bounds of Theorems 1–4."
    text = ", while ".join(parts)
    return text[0].upper() + text[1:] + "."


def _draw_variance(N=(2, 4, 8, 16, 32, 64), w_star=(10.0, 1000.0), schemes=SCHEMES, t=100,
                   pi0=0.3, L=1.0):
    fig, axes = _new_figure(1, len(w_star), height=8.4)
    data, everywhere = [], []
    for ax, w in zip(axes[0], w_star):
        d = variance_data(N, w, t, schemes, pi0, L)
        data.append(d)
        for sc in schemes:
            ax.plot(d["N"], d["exact"][sc], "o-", ms=7, color=COLOR[sc],
                    label=f"{sc}: exact from z*")
            for form, vals in _forms_to_draw(d["bounds"][sc]):
                label = f"{sc}: {THEOREM[sc]}, {form}"
                if _bound_line(ax, d["N"], vals, L ** 2, COLOR[sc], FORM_STYLE.get(form, "--"),
                               label) == "all":
                    everywhere.append((f"w* = {w:g}", f"{sc} ({form})"))
        _cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
        ax.set_xscale("log", base=2)
        _log2_ticks(ax, d["N"])
        ax.set_yscale("log")
        ax.set_title(f"w* = {w:g}")
        ax.set_xlabel("budget N")
        ax.set_ylabel(r"$E\,\|g_t\|^2$ from $z^*$")
    _legend_below(fig, axes[0], title=_void_title(everywhere))
    fit_title(fig, f"E‖g_t‖² at iteration t = {t} from the worst start: exact (points) against "
                   "Theorems 1–4")
    msg = _variance_message(data, schemes, t)
    return Drawing("variance", fig, {"panels": data},
                   notes=["stated forms whose O(·) terms hide unknown constants are drawn without "
                          "them; vacuous bounds are grey"], message=msg)


def _variance_message(panels, schemes, t) -> str:
    """What the variance figure says, from its numbers: which scheme's E‖g_t‖² falls most between
    the smallest and the largest budget, and pMCSA's factor, in each panel."""
    parts = []
    for p in panels:
        n0, n1 = int(p["N"][0]), int(p["N"][-1])
        gain = {sc: float(p["exact"][sc][0] / p["exact"][sc][-1]) for sc in schemes}
        best = max(gain, key=gain.get)
        parts.append(f"at w* = {p['w_star']:g} {best}'s falls most from N = {n0} to {n1} "
                     f"(by a factor {gain[best]:.3g})"
                     + (f" and pMCSA's only by {gain['pMCSA']:.3g}"
                        if "pMCSA" in gain and best != "pMCSA" else ""))
    return f"From the worst start at t = {t}, " + "; ".join(parts) + "."


def _draw_wstar(N=16, t=100, w_range=(2.0, 1e4), schemes=("JSA", "pMCSA"), pi0=0.3, L=1.0):
    d = wstar_data(N, t, w_range, schemes, pi0, L)
    n_lines = 3 * len(d["exact"]) + len(d["crossings"]) + 2
    fig, axes = _new_figure(1, 1, height=7.5 + 0.28 * n_lines)
    ax = axes[0][0]
    for sc in d["exact"]:
        ax.plot(d["w"], d["exact"][sc], "-", color=COLOR[sc], lw=3, label=f"{sc}: exact from z*")
        ax.plot(d["w"], d["stationary"][sc], "-", color=COLOR[sc], lw=1.2, alpha=0.6,
                label=f"{sc}: exact at stationarity")
        for form, vals in d["bounds"][sc].items():
            if form == "stated":
                _bound_line(ax, d["w"], vals, L ** 2, COLOR[sc], "--",
                            f"{sc}: {THEOREM[sc]}, stated", lw=1.6)
    _cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
    marks, notes, labels = {}, [], []
    order = sorted((wc, sc) for sc, wc in d["crossings"].items() if wc is not None)
    for sc, wc in d["crossings"].items():
        if wc is None:
            notes.append(f"pMCSA vs {sc}: no crossing for w* in [{w_range[0]:g}, {w_range[1]:g}]")
            continue
        marks[sc] = wc
        ax.axvline(wc, color=COLOR[sc], lw=1.5, ls="-.",
                   label=f"where pMCSA's E‖g_t‖² reaches {sc}'s")
        notes.append(
            f"pMCSA's E||g_t||^2 reaches {sc}'s at w* = {wc:.6g} (N = {N}, t = {t}, pi0 = {pi0:g})")
    for i, (wc, sc) in enumerate(order):
        labels.append(ax.annotate(f"{sc}: w* = {wc:.4g}", (wc, 0.04),
                                  xycoords=("data", "axes fraction"),
                                  xytext=(8, 1.7 * FONT * i), textcoords="offset points",
                                  fontsize=FONT - 3, color=COLOR[sc], va="bottom",
                                  bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none",
                                            alpha=0.9)))
    for sc in d["exact"]:
        if sc != "pMCSA" and d["crossings"].get(sc) is None:
            _omitted_note(ax, f"no crossing with {sc} for w* in [{w_range[0]:g}, {w_range[1]:g}]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("w* (largest importance weight)")
    ax.set_ylabel(r"$E\,\|g_t\|^2$ at iteration $t$")
    _legend_below(fig, [ax])
    fit_title(
        fig, f"Where pMCSA's advantage vanishes: E‖g_t‖² from the worst start, N = {N}, t = {t}")
    _declutter(fig, labels)
    msg = "pMCSA keeps the smallest E‖g_t‖² from the worst start over the whole range drawn."
    if marks:
        wc, sc = min((w, s) for s, w in marks.items())
        msg = (f"From the worst start pMCSA's advantage ends at w* ≈ {wc:.0f} (against {sc}, "
               f"N = {N}, t = {t}): beyond it its chains have not left z*.")
    return Drawing("wstar", fig, d, marks=marks, notes=notes, message=msg)


def _draw_rates(N=16, w_range=(1.5, 1e4), pi0=0.3, L=1.0):
    import numpy as np

    d = rates_data(N, w_range, pi0, L)
    fig, axes = _new_figure(1, 2, height=8.6)
    panels = (("mirror_descent", "mirror descent: needs ρ"),
              ("sgd_nesterov", "SGD–Nesterov and SGD: ρ-free"))
    notes, labels = [], []
    for ax, (opt, title) in zip(axes[0], panels):
        for sc in SCHEMES:
            ratio = d["ratio"][opt][sc]
            if sc == "pMCSA":
                ax.plot(d["w"], ratio, "-", color=COLOR[sc], lw=2.4,
                        label="pMCSA (the reference: ratio 1)")
                continue
            void = d["vacuous"][sc]
            if (~void).any():
                ax.plot(d["w"], np.where(void, np.nan, ratio), "-", color=COLOR[sc],
                        label=f"{sc}'s rate bound / pMCSA's")
            if void.any():
                grey = void.copy()
                grey[1:] |= void[:-1]
                ax.plot(d["w"], np.where(grey, ratio, np.nan), "-", color=COLOR[sc], lw=5,
                        alpha=0.3, label=f"{sc}: its stated G² is vacuous, G² = L² used")
        pref = d["preferred"][opt]
        # the preferred scheme along the top of the panel
        for sc in SCHEMES:
            mask = np.array([p == sc for p in pref])
            if mask.any():
                ax.fill_between(d["w"], 0.93, 1.0, where=mask, color=COLOR[sc], alpha=0.55,
                                transform=ax.get_xaxis_transform(), step="mid", lw=0,
                                label=f"the smallest rate bound: {sc}")
        kinds = sorted(set(pref), key=pref.index)
        notes.append(f"{title}: the smallest rate bound is "
                     + ", then ".join(f"{sc}'s" for sc in kinds) + " as w* grows")
        inverse = 1 / d["closed_form"][opt]  # JSA's / pMCSA's, as drawn
        formula = ("JSA's / pMCSA's = (N + 3)/(2N(1 + r))" if opt == "mirror_descent"
                   else "JSA's / pMCSA's = (N + 3)/(2(1 + r))")
        labels.append(ax.text(0.97, 0.04, f"{formula}\n= {inverse.min():.3g} to "
                              f"{inverse.max():.3g} here", transform=ax.transAxes,
                              fontsize=FONT - 4, va="bottom",
                              ha="right",
                              bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6",
                                        alpha=0.95)))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("w*")
        ax.set_ylabel("rate bound / pMCSA's (c cancels)")
    _legend_below(fig, list(axes[0]),
                  title=f"Table 1 with Theorems 1–4's ρ and stated G² (C_cov = 0, μ = 0), "
                        f"N = {N}; below 1: preferred over pMCSA")
    fit_title(fig, f"Which scheme does Table 1 prefer? Each rate bound relative to pMCSA's, "
                   f"N = {N}")
    _declutter(fig, labels)
    md = d["preferred"]["mirror_descent"]
    ns = d["preferred"]["sgd_nesterov"]
    msg = (f"Mirror descent's rate, which needs ρ, prefers {_most(md)} at "
           f"{_share(md, _most(md))} of w* drawn, while the ρ-free SGD–Nesterov rate prefers "
           f"{_most(ns)} at {_share(ns, _most(ns))}: 'converges faster' needs the rate it is "
           f"about.")
    return Drawing("rates", fig, d, notes=notes, message=msg)


def _most(seq) -> str:
    return max(set(seq), key=seq.count)


def _share(seq, x) -> str:
    n = seq.count(x)
    return "every value" if n == len(seq) else f"{n} of the {len(seq)} values"


def _fmt_exact(values) -> str:
    out = []
    for v in values:
        f = Fraction(v).limit_denominator(1000)
        out.append(str(f) if abs(float(f) - float(v)) < 1e-12 else f"{float(v):.3g}")
    return "(" + ", ".join(out) + ")"


def _draw_stationary(N=tuple(range(2, 17)), w_star=10.0, pi0=0.3, instance_=None, L=1.0):
    import numpy as np

    if instance_ is None:
        pi, q, s = instance(w_star, pi0, L)
        s = s[:, 0]
        what = f"the two-state instance, π(z*) = {pi0:g}"
    else:
        pi, q, s = (np.array([float(Fraction(x)) for x in instance_[k]]) for k in ("pi", "q", "s"))
        what = f"π = {_fmt_exact(pi)}, q = {_fmt_exact(q)}, s = {_fmt_exact(s)}"
    d = stationary_data(pi, q, s, N)
    fig, axes = _new_figure(1, 1, height=8.2)
    ax = axes[0][0]
    marker = {"MSC": "s", "MSC-RB": "D", "JSA": "^", "pMCSA": "o"}
    for sc in SCHEMES:
        same = sc != "pMCSA" and d["equal_pmcsa"].get(sc)
        ax.plot(d["N"], d["exact"][sc], marker[sc] + "-", color=COLOR[sc],
                lw=7 if same else 2.4, ms=11 if same else 7, alpha=0.45 if same else 1,
                zorder=1 if same else 3,
                label=f"{sc}" + (" (the same numbers as pMCSA here)" if same else ""))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("budget N")
    ax.set_ylabel(r"$E\,\|g\|^2$, every chain drawn from $\pi$")
    ax.set_title(f"{what}, w* = {d['w_star']:.3g}", fontsize=FONT - 2)
    below = d["below_pmcsa"]
    beaten = {sc: ns for sc, ns in below.items() if ns}
    if beaten:
        text = "; ".join(f"{sc} below pMCSA at N = {_ranges(ns)}" for sc, ns in beaten.items())
    else:
        text = "pMCSA is the smallest (or tied) at every N drawn"
    _log2_ticks(ax, d["N"])
    note = ax.text(0.02, 0.03, text, transform=ax.transAxes, ha="left", va="bottom",
                   fontsize=FONT - 3, bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6"))
    _legend_below(fig, [ax], title="exact stationary second moments (no bound drawn)")
    fit_title(fig, "At stationarity: the exact E‖g‖² of the four schemes against the budget N")
    _declutter(fig, [note])
    if beaten.get("MSC-RB"):
        ns = beaten["MSC-RB"]
        i = list(d["N"]).index(ns[-1])
        msg = (f"At stationarity pMCSA is not always best: here MSC-RB's E‖g‖² is below pMCSA's "
               f"at every N from {ns[0]} to {ns[-1]} ({d['exact']['MSC-RB'][i]:.4f} against "
               f"{d['exact']['pMCSA'][i]:.4f} at N = {ns[-1]}).")
    elif beaten:
        msg = f"At stationarity {text} on this instance."
    else:
        msg = ("At stationarity pMCSA has the smallest exact E‖g‖² at every N drawn on this "
               "instance (E_π s²/N: N independent draws from π).")
    return Drawing("stationary", fig, d, message=msg,
                   marks={"below_pmcsa": below})


def _ranges(ns) -> str:
    ns = sorted(ns)
    if ns == list(range(ns[0], ns[-1] + 1)) and len(ns) > 2:
        return f"{ns[0]}–{ns[-1]}"
    return ", ".join(str(n) for n in ns)


def _num(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_num(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


#: the meaning of each step status (docs/glossary.md)
STEP_MEANING = {"exact": "an identity that holds", "valid": "an inequality that holds",
                "loose": "holds only with a weaker relation than printed",
                "wrong": "a counterexample exists", "unchecked": "not decided here"}


def _draw_step(step_id):
    r = step_row(step_id)
    ce = r["counterexample"] or {}
    numeric = isinstance(ce.get("lhs"), (int, float)) and isinstance(ce.get("rhs"), (int, float))
    claim = claim_status(r["claim"])
    name = claim_display_name(r["claim"])
    fig, axes = _new_figure(1, 2 if numeric else 1, height=7.4)
    text_ax = axes[0][0]
    text_ax.axis("off")
    up = wrong_upstream(step_id) if r["affected"] else []
    lines = [f"this step: {r['status']} ({STEP_MEANING.get(r['status'], r['status'])})"]
    if up:
        lines.append("affected: it uses the wrong step" + ("s " if len(up) > 1 else " ")
                     + ", ".join(up))
    if r.get("severity"):
        lines.append(f"severity: {r['severity']}" + (f" (recorded at {r['see']})"
                                                      if r.get("see") else ""))
    lines.append(f"the claim, {name}: {claim['status']}")
    by_verdict: dict = {}
    for reading, verdict in claim["readings"].items():
        by_verdict.setdefault(verdict, []).append(reading)
    for verdict in sorted(by_verdict, key=lambda v: len(by_verdict[v])):
        names = by_verdict[verdict]
        if len(names) == 1 or verdict == min(by_verdict, key=lambda v: len(by_verdict[v])):
            lines += [f"    {verdict} under '{x}'" for x in names]
        else:
            lines.append(f"    {verdict} under the {len(names)} other readings")
    lines += [f"where: {r['location']}", "", "the step:",
              f"{r['lhs']}  {r['relation']}  {r['rhs']}", ""]
    if ce:
        lines += (["counterexample at:"] + [f"  {k} = {_num(v)}"
                                            for k, v in list(ce.get("at", {}).items())[:6]])
    else:
        lines += ["evidence: " + r["detail"]]
    if r["correction"]:
        lines += ["", "correction: " + r["correction"]]
    width = 46 if numeric else 92
    wrapped = []
    for line in lines:
        wrapped += textwrap.wrap(line, width, subsequent_indent="    ") or [""]
    if len(wrapped) > 26:
        wrapped = wrapped[:25] + ["… (python -m verify audit shows the rest)"]
    text_ax.text(0, 1, "\n".join(wrapped), va="top", ha="left", fontsize=FONT - 4,
                 transform=text_ax.transAxes)
    marks = {}
    if numeric:
        bar_ax = axes[0][1]
        lhs, rhs = float(ce["lhs"]), float(ce["rhs"])
        names = ["left side:\n" + "\n".join(textwrap.wrap(r["lhs"], 22)),
                 "right side:\n" + "\n".join(textwrap.wrap(r["rhs"], 22))]
        bars = bar_ax.bar([0, 1], [lhs, rhs], color=["C3", "C0"], width=0.6)
        bar_ax.set_xticks([0, 1], names, fontsize=FONT - 5)
        bar_ax.bar_label(bars, [f"{lhs:.4g}", f"{rhs:.4g}"], fontsize=FONT - 2)
        bar_ax.set_title(f"at the counterexample:\nleft {r['relation']} right fails"
                         if r["status"] == "wrong" else "at the instance found",
                         fontsize=FONT - 1)
        if min(lhs, rhs) > 0 and max(lhs, rhs) / min(lhs, rhs) > 100:
            bar_ax.set_yscale("log")
        bar_ax.set_ylim(top=max(lhs, rhs) * (4 if bar_ax.get_yscale() == "log" else 1.2))
        marks = {"lhs": lhs, "rhs": rhs}
    fit_title(fig, f"Audit step {step_id}: {r['status']}; {name}: {claim['status']}")
    msg = f"The step {step_id} of {name}'s proof is {r['status']}"
    if numeric and r["status"] == "wrong":
        msg += f" ({_num(float(ce['lhs']))} against {_num(float(ce['rhs']))} at the counterexample)"
    msg += f", and {name} as a whole {_claim_phrase(claim)}."
    r = dict(r, claim_status=claim["status"], claim_readings=claim["readings"],
             wrong_upstream=up)
    return Drawing("step", fig, r, marks=marks, message=msg)


def _claim_phrase(claim) -> str:
    st = claim["status"]
    if st == "depends on reading":
        fails = [k for k, v in claim["readings"].items() if v == "violated"]
        return "depends on reading" + (f" (it fails under '{fails[0]}')" if fails else "")
    return {"holds": "holds", "violated": "is violated", "inconclusive": "is inconclusive"}.get(
        st, str(st))


def figure(kind: str, **options) -> Drawing:
    """Draw one kind (``mixing``, ``variance``, ``wstar``, ``rates``, ``stationary``, ``step``)
    and return the :class:`Drawing` (its ``fig`` is a matplotlib Figure outside pyplot's registry;
    ``data`` the numbers drawn; ``message`` what the figure says in one sentence)."""
    import matplotlib

    if kind == "stationary" and "instance" in options:
        options["instance_"] = options.pop("instance")
    fn = {"mixing": _draw_mixing, "variance": _draw_variance, "wstar": _draw_wstar,
          "rates": _draw_rates, "stationary": _draw_stationary, "step": _draw_step}
    fn.update(LECTURE_FIGURES)
    if kind not in fn:
        raise ValueError(f"kind must be one of {', '.join(k for k in KINDS if k != 'lecture')}, "
                         f"got {kind!r}")
    with matplotlib.rc_context(_rc()):
        return fn[kind](**options)


def draw(kind: str, out: str, dpi: int = 150, **options) -> Drawing:
    """:func:`figure`, written to ``out`` (PNG, PDF or SVG by its extension)."""
    d = figure(kind, **options)
    d.fig.savefig(out, dpi=dpi)
    d.path = out
    return d


# ----------------------------------------------------------------------------- the lecture
# A 50-minute lecture on MCGD and MCSA in one command: ``python -m verify draw lecture --out DIR``.
#
# Writes the lecture's figures and ``outline.md``: for each slide its minutes, its figure, the one
# sentence the figure says (Drawing.message, computed from the numbers drawn, never typed in),
# what to say, and the checks it rests on (claims of Kim et al. 2022 with their verdicts, steps of
# the proof audit, claims of the teaching document ``verify/documents/teaching``).  Four figures
# are drawn only here (LECTURE_FIGURES): ``imh`` (one IMH chain from z*: it accepts with
# probability 1/w* but moves with probability (1 - pi(z*))/w*, so Eq. (7)'s r^k is tight up to
# 1 - pi(z*), §3.2), ``map`` (the paper's (rho, G^2) across w*, Theorems 1-4), ``crossings`` (the
# w* where pMCSA's E||g_t||^2 from z* reaches JSA's, against t: about 2.2 t) and ``corrected``
# (Theorem 4's corrected bound, informative only where L^2 (1 + r)/N + (||mu|| + 2Lr)^2 < L^2).

#: the slides: (file stem, kind, options, minutes, what to say, what it rests on)
SLIDES = (
    ("01_map", "map", {"N": 16}, 4,
     "Table 1 needs two numbers per scheme: a mixing rate ρ and a second-moment bound G². "
     "Read the map: right is faster mixing, down is less variance.",
     ("verdict:table1", "verdict:theorem1", "verdict:theorem2", "verdict:theorem3",
      "verdict:theorem4")),
    ("02_imh", "imh", {"w_star": 10.0}, 4,
     "Everything starts from one IMH chain. From the worst state z* it accepts a proposal with "
     "probability 1/w*, but a proposal of z* itself changes nothing: it moves with probability "
     "(1 − π(z*))/w*. Eq. (7) is tight up to 1 − π(z*) on a finite space (exactly tight for a "
     "continuous target).",
     ("checked:teach_imh_escape", "audit:eq7")),
    ("03_mixing", "mixing", {"N": [4, 16], "w_star": [10.0]}, 5,
     "Per iteration: MSC/MSC-RB make one CIS step, JSA N IMH steps of one chain, pMCSA one IMH "
     "step of each of N chains. pMCSA's ρ = r is the worst of the four for N ≥ 4 and "
     "w* > (N − 2)/(N − 3); for N ≤ 3 MSC's is. JSA's joint law never reaches π^N.",
     ("checked:teach_mixing_rate_order", "verdict:theorem3", "audit:theorem3.mix.statement")),
    ("04_jsa_step", "step", {"step_id": "theorem3.mix.statement"}, 3,
     "The audit says why: Theorem 3 bounds the kernel as its proof defines it (independent "
     "marginals); JSA's N states are one Markov path.",
     ("audit:theorem3.mix.statement", "verdict:theorem3")),
    ("05_variance", "variance", {"N": [2, 4, 8, 16, 32, 64], "w_star": [10.0, 1000.0],
                                 "t": 100}, 4,
     "At w* = 10 the chains have mixed by t = 100 and pMCSA gains the full factor N; at "
     "w* = 1000 they have not, and averaging N chains stuck at z* removes no bias. MSC's bound "
     "is L², the trivial bound: vacuous at every N.",
     ("verdict:theorem1", "verdict:theorem4", "checked:teach_pmcsa_one_over_n")),
    ("06_stationary", "stationary", {"N": list(range(2, 17)), "w_star": 10.0}, 3,
     "At stationarity, on the lecture's instance, pMCSA has the smallest second moment: "
     "E_π s²/N, N independent draws from π. It is never above MSC's or JSA's.",
     ("checked:teach_stationary_order",)),
    ("07_counterexample", "stationary",
     {"N": list(range(2, 17)),
      "instance": {k: list(v) for k, v in COUNTEREXAMPLE.items()}}, 4,
     "But not always the smallest: with a q that puts its mass where the score varies, "
     "self-normalised importance sampling (MSC-RB) beats N independent draws from π. JSA ties "
     "with pMCSA here (K s = 0).",
     ("checked:teach_stationary_counterexample",)),
    ("08_wstar", "wstar", {"N": 16, "t": 100, "w_range": (2.0, 1e4),
                           "schemes": ("MSC", "MSC-RB", "JSA", "pMCSA")}, 5,
     "MCGD does not start at stationarity. From z* each pMCSA chain is stuck for about w* "
     "iterations; averaging N stuck chains removes no bias.",
     ("checked:teach_transient_crossing", "verdict:theorem4")),
    ("09_crossings", "crossings", {"N": 16}, 3,
     "The transient's length: the crossing w* grows linearly in t, w* ≈ 2.2 t at N = 16.",
     ("checked:teach_transient_crossing",)),
    ("10_conditional_bias", "step", {"step_id": "theorem4.var.2"}, 4,
     "Conditionally on F_{t−1} the bias is one transition's and does not decay like r^t: the "
     "proof of Theorem 4 uses Lemma 7 for the wrong quantity.",
     ("audit:theorem4.var.2", "verdict:theorem4")),
    ("11_corrected", "corrected", {"N": 4}, 4,
     "The correction L²(1 + r)/N + (‖μ‖ + 2Lr)² holds, but it is below the trivial bound L² only "
     "for small w*: a correction must say where it is informative.",
     ("checked:teach_corrected_theorem4",)),
    ("12_rates", "rates", {"N": 16, "w_range": (1.5, 1e4)}, 6,
     "Which rate? Under mirror descent pMCSA/JSA = 2N(1 + r)/(N + 3) > 1: JSA. Under SGD–Nesterov "
     "it is 2(1 + r)/(N + 3) < 1: pMCSA, but only with the stationary G², i.e. after the "
     "transient (w* below about 2.2 t).",
     ("checked:teach_rate_ratios", "checked:teach_transient_crossing", "verdict:table1")),
)
#: the minute left for questions
WRAP_UP = 1


def _imh(w_star=10.0, pi0=0.3, k_max=60):
    """One IMH chain on the two-state instance from z*: exact TV against Eq. (7) (Kim et al.
    2022, §3.2; Smith & Tierney 1996)."""
    import numpy as np

    from simulate import finite as F

    pi, q, _ = instance(w_star, pi0)
    K = F.imh_matrix(pi, q)
    r = 1 - 1 / w_star
    ks = np.arange(1, k_max + 1)
    tv = F.tv_curve(K, pi, k_max)[:, 0]
    accept = float(q @ np.minimum(1.0, (pi / q) / (pi[0] / q[0])))  # E_q min(1, w/w*)
    move = float(1 - K[0, 0])
    fig, axes = _new_figure(1, 1, height=7.6)
    ax = axes[0][0]
    ax.plot(ks, r ** ks, "k--", lw=2, label="Eq. (7): r^k, r = 1 − 1/w*")
    ax.plot(ks, tv, "o", ms=7, mfc="none", color="C2", label=r"exact $d_{TV}(K^k(z^*,\cdot),\pi)$")
    ax.plot(ks, r ** ks * (1 - pi[0]), "-", color="C2", lw=1.4,
            label="r^k (1 − π(z*)): the exact value on a finite space")
    ax.set_yscale("log")
    ax.set_xlabel("IMH steps k")
    ax.set_ylabel("total variation distance to π")
    ax.set_title(f"two-state instance, w* = {w_star:g}, π(z*) = {pi0:g}")
    note = ax.text(0.98, 0.97, f"from z*: accepts with probability 1/w* = {accept:.3g},\n"
                   f"moves with probability (1 − π(z*))/w* = {move:.3g}",
                   transform=ax.transAxes, ha="right", va="top", fontsize=FONT - 3,
                   bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6"))
    _legend_below(fig, [ax], title="one IMH chain started at the state of largest weight z*")
    fit_title(fig, "IMH from the worst start: Eq. (7) is tight up to the factor 1 − π(z*)")
    _declutter(fig, [note])
    gap = float(np.abs(tv / (r ** ks * (1 - pi[0])) - 1).max())
    msg = (f"From z* an IMH chain accepts with probability 1/w* = {accept:.2g} but moves with "
           f"probability (1 − π(z*))/w* = {move:.2g}, so its exact TV is r^k (1 − π(z*)): Eq. (7) "
           f"is tight up to the factor {1 - pi[0]:.2g}.")
    return Drawing("imh", fig, {"k": ks, "tv": tv, "r": r, "accept": accept, "move": move,
                                  "pi0": float(pi[0]), "max_rel_gap": gap}, message=msg)


def _map(N=16, pi0=0.3, w_grid=(2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 1e4), L=1.0):
    """The paper's (1 − ρ, G²) of the four schemes across w* (Theorems 1–4 through
    :func:`bounds.compare`); G² at or above L² is vacuous and drawn grey at L²."""
    import numpy as np

    import bounds

    rho = {sc: [] for sc in SCHEMES}
    G2 = {sc: [] for sc in SCHEMES}
    for w in w_grid:
        pi, q, _ = instance(w, pi0, L)
        for row in bounds.compare(N=N, w_star=w, chi2=_chi2(pi, q), L=L):
            rho[row["scheme"]].append(float(row["rho"]))
            G2[row["scheme"]].append(float(row["second_moment"]))
    fig, axes = _new_figure(1, 1, height=8.0)
    ax = axes[0][0]
    labels = []
    for sc in SCHEMES:
        x, g = 1 - np.array(rho[sc]), np.array(G2[sc])
        void = g >= L ** 2
        ax.plot(x, np.minimum(g, L ** 2), "-", color=COLOR[sc], lw=1.6,
                label=f"{sc} ({THEOREM[sc]}), w* = {w_grid[0]:g} to {w_grid[-1]:g}")
        if (~void).any():
            ax.plot(x[~void], g[~void], "o", color=COLOR[sc], ms=8,
                    label=f"{sc}: stated G² below L²")
        if void.any():
            ax.plot(x[void], np.full(void.sum(), L ** 2), "o", color=VOID_COLOR, ms=11,
                    mfc="white", mew=2.5, label="stated G² at or above L²: vacuous here (grey)")
        labels.append(ax.annotate(f"{sc}, w* = {w_grid[-1]:g}", (x[-1], min(g[-1], L ** 2)),
                                  xytext=(6, -14), textcoords="offset points", fontsize=FONT - 5,
                                  color=COLOR[sc]))
    _cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("1 − ρ per iteration (right: faster mixing)")
    ax.set_ylabel("stated bound G² on E‖g_t‖²")
    _legend_below(fig, [ax], title=f"Theorems 1–4 as stated, N = {N}, two-state instance "
                                     f"(π(z*) = {pi0:g}), L = 1, μ = 0, C_cov = 0")
    fit_title(fig, "The trade-off as the paper states it: mixing rate against gradient bound")
    _declutter(fig, labels)
    last = {sc: (1 - rho[sc][-1], G2[sc][-1]) for sc in SCHEMES}
    fastest = max(last, key=lambda sc: last[sc][0])
    smallest = min(last, key=lambda sc: last[sc][1])
    msg = (f"At w* = {w_grid[-1]:g} {fastest} mixes fastest per iteration and {smallest} has the "
           f"smallest stated G² ({G2[smallest][-1]:.3g}): no scheme is best at both.")
    return Drawing("map", fig, {"w": list(w_grid), "rho": rho, "G2": G2}, message=msg)


def _crossings(N=16, ts=(10, 30, 100, 300, 1000), pi0=0.3):
    """The w* where pMCSA's E‖g_t‖² from z* reaches JSA's, for each t (:func:`verify.draw.crossing`
    on exact values)."""
    import numpy as np

    cross = {t: crossing(N, t, "JSA", (2.0, 1e5), pi0) for t in ts}
    t_arr = np.array(ts, float)
    w = np.array([cross[t] for t in ts], float)
    fig, axes = _new_figure(1, 1, height=7.6)
    ax = axes[0][0]
    ax.plot(t_arr, w, "o-", color="k", ms=8, label="w* where pMCSA's E‖g_t‖² reaches JSA's (exact)")
    ax.plot(t_arr, 2.2 * t_arr, "--", color="0.4", lw=1.6, label="2.2 t")
    ax.fill_between(t_arr, w, 3e5, color="C3", alpha=0.12, label="JSA's E‖g_t‖² is smaller")
    ax.fill_between(t_arr, 1, w, color="C2", alpha=0.12, label="pMCSA's E‖g_t‖² is smaller")
    labels = [ax.annotate(f"w*/t = {wc / t:.2f}", (t, wc), xytext=(8, -20),
                          textcoords="offset points", fontsize=FONT - 4)
              for t, wc in zip(ts, w)]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1, 3e5)
    ax.set_xlabel("MCGD iteration t")
    ax.set_ylabel("w* at which the two meet")
    _legend_below(fig, [ax], title=f"every chain started at z*, N = {N}, π(z*) = {pi0:g}")
    fit_title(fig, "The transient lasts longer for a worse proposal: the crossing w* against t")
    _declutter(fig, labels)
    ratios = w / t_arr
    msg = (f"The crossing w* grows linearly in t: w*/t goes from {ratios[0]:.2f} at t = {ts[0]} "
           f"to {ratios[-1]:.2f} at t = {ts[-1]}, so a proposal with w* above about 2.2 t puts "
           f"pMCSA behind JSA at iteration t.")
    return Drawing("crossings", fig, {"t": list(ts), "w": w.tolist(), "ratio": ratios.tolist()},
                     message=msg)


def informative_w_max(N: int, mu_over_L: float = 0.0) -> float:
    """The largest w* at which Theorem 4's corrected bound L²(1 + r)/N + (‖μ‖ + 2Lr)² is below L²
    (r = 1 − 1/w*): the root in r of (1 + r)/N + (m + 2r)² = 1, m = ‖μ‖/L; 1 when there is none
    (N = 1, or m >= 1 - 1/N)."""
    m = float(mu_over_L)
    # 4 r^2 + (4 m + 1/N) r + m^2 + 1/N - 1 = 0
    a, b, c = 4.0, 4 * m + 1 / N, m * m + 1 / N - 1
    disc = b * b - 4 * a * c
    if c >= 0 or disc < 0:
        return 1.0
    r = (-b + math.sqrt(disc)) / (2 * a)
    return 1 / (1 - r)


def _corrected(N=4, L=1.0, M=4, w_range=(1.05, 100.0), points=60):
    """pMCSA's exact conditional second moment with every chain at z* (the 4-state hard instance
    of notebook 03) against w*, with Theorem 4's stated bound and the corrected bound of the
    conditional reading (Kim et al. 2022, §5.1; audit step theorem4.var.2)."""
    import numpy as np

    import bounds
    from simulate import finite as F

    w = np.geomspace(*w_range, points)
    exact, stated, corrected_raw = [], [], []
    for wi in w:
        pi, q = F.hard_instance(M, float(wi), seed=0)
        s = F.centred_bounded_score(pi, L)
        exact.append(F.moments_pmcsa(F.imh_matrix(pi, q), s, np.zeros(N, int)).second)
        stated.append(float(bounds.evaluate(claim_of("pMCSA"), "second_moment", "stated", N=N,
                                            w_star=float(wi), L=L, mu_norm=0.0)))
        r = 1 - 1 / wi
        corrected_raw.append(L ** 2 * (1 + r) / N + (2 * L * r) ** 2)
    exact, stated, corrected_raw = map(np.array, (exact, stated, corrected_raw))
    w_max = informative_w_max(N)
    fig, axes = _new_figure(1, 1, height=8.0)
    ax = axes[0][0]
    ax.axvspan(w[0], w_max, color="C2", alpha=0.12,
               label=f"corrected bound below L²: w* < {w_max:.3g}")
    ax.plot(w, exact, "k-", lw=3,
            label=r"exact $E[\|g_t\|^2 \mid \mathcal{F}_{t-1}]$, every chain at $z^*$")
    _bound_line(ax, w, stated, L ** 2, "C1", "--", "Theorem 4 as stated: L²(1 + r)/N")
    _bound_line(ax, w, np.minimum(corrected_raw, L ** 2), L ** 2, "C2", "-.",
                  "corrected: L²(1 + r)/N + (‖μ‖ + 2Lr)²", lw=2.4)
    _cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.1, 1.6)
    ax.set_xlabel("w*")
    ax.set_ylabel(r"second moment of $g_t$ given $\mathcal{F}_{t-1}$")
    _legend_below(fig, [ax], title=f"pMCSA, N = {N}, L = {L:g}, μ = 0, the {M}-state hard "
                                     "instance; grey: vacuous")
    fit_title(fig, f"Theorem 4 corrected: it holds, and says something only for w* < "
                     f"{w_max:.3g} (N = {N})")
    holds = bool(np.all(exact <= np.minimum(corrected_raw, L ** 2) * (1 + 1e-12)))
    fails = w[exact > stated]
    msg = (f"The corrected bound holds at every w* drawn{'' if holds else ' (it does not!)'}, "
           f"but it is below the trivial bound L² only for w* < {w_max:.3g} at N = {N}; the "
           f"stated bound fails from w* = {fails[0]:.3g} on.")
    return Drawing("corrected", fig, {"w": w, "exact": exact, "stated": stated,
                                        "corrected": np.minimum(corrected_raw, L ** 2),
                                        "corrected_raw": corrected_raw, "w_max": w_max,
                                        "holds": holds}, message=msg)


#: the figures only the lecture draws, by kind
LECTURE_FIGURES = {"imh": _imh, "map": _map, "crossings": _crossings, "corrected": _corrected}


def slides(fmt: str = "png"):
    """``[(file name, kind, options, minutes, notes, rests_on)]`` of the lecture."""
    return [(f"{stem}.{fmt}", kind, opts, minutes, notes, rests)
            for stem, kind, opts, minutes, notes, rests in SLIDES]


def _cite(ref: str) -> str:
    kind, _, what = ref.partition(":")
    if kind == "verdict":
        st = claim_status(what)["status"]
        return f"`python -m verify {what}`: {st}"
    if kind == "audit":
        status = _audit_json()["steps"][what]["status"]
        return f"`python -m verify audit {what.split('.')[0]}`, step `{what}`: {status}"
    return f"`python -m verify {what}` (a fact of the lecture, checked exactly)"


def outline(drawn: list[dict]) -> str:
    """The lecture's outline in Markdown: per slide its minutes, figure, message, notes, checks."""
    total = sum(s["minutes"] for s in drawn) + WRAP_UP
    out = ["# Markov chain score ascent: mixing rate against gradient variance",
           "",
           f"A {total}-minute lecture on Kim, Oh, Gardner, Dieng & Kim, “Markov Chain Score "
           "Ascent: A Unifying Framework of Variational Inference with Markovian Gradients”, "
           "NeurIPS 2022 (§2.2 Table 1, §3–§5, App. D). Every figure was drawn by "
           "`python -m verify draw lecture`; every number in it is exact (finite-state matrix "
           "powers and sums). Each slide's message is the sentence its figure supports, computed "
           "from the numbers drawn.",
           "",
           "| # | minutes | figure | message |", "|---|---|---|---|"]
    for i, s in enumerate(drawn, 1):
        out.append(f"| {i} | {s['minutes']} | `{s['file']}` | {s['message']} |")
    out += [f"| | {WRAP_UP} | | questions |", ""]
    clock = 0
    for i, s in enumerate(drawn, 1):
        out += [f"## {i}. {s['title']} ({clock}–{clock + s['minutes']} min)", "",
                f"![{s['message']}]({s['file']})", "",
                f"**Message.** {s['message']}", "",
                f"**Say.** {s['notes']}", "",
                "**Checked by.** " + "; ".join(_cite(r) for r in s["rests_on"]) + ".", ""]
        clock += s["minutes"]
    out += [f"## Questions ({clock}–{clock + WRAP_UP} min)", "",
            "Exercises in three levels, with solutions the test suite runs: "
            "`notebooks/exercises/` and `notebooks/solutions/`; the symbols and the toolkit's "
            "words: `docs/glossary.md`.", ""]
    return "\n".join(out)


def write_lecture(out_dir: str, fmt: str = "png", dpi: int = 110) -> dict:
    """Draw every slide into ``out_dir`` and write ``outline.md``; returns ``{"figures": [...],
    "outline": path}`` with each slide's file, kind, message and minutes."""
    import os

    drawn = []
    for name, kind, opts, minutes, notes, rests in slides(fmt):
        d = draw(kind, os.path.join(out_dir, name), dpi=dpi, **dict(opts))
        drawn.append({"file": name, "kind": kind, "message": d.message, "minutes": minutes,
                      "notes": notes, "rests_on": rests,
                      "title": d.fig.get_suptitle().replace("\n", " ")})
        d.fig.clear()
    path = os.path.join(out_dir, "outline.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(outline(drawn))
    return {"figures": drawn, "outline": "outline.md"}
