"""Lecture figures in one command: ``python -m verify draw KIND --out FILE``.

    python -m verify draw mixing   [--N 4,16] [--w-star 10,100] [--schemes S,...] [--k KMAX] --out
    f.pdf python -m verify draw variance [--N 2,4,...] [--w-star 10] [--t 100] [--schemes S,...]
    --out f.png python -m verify draw wstar    [--N 16] [--t 100] [--w-star LO,HI] [--schemes S,...]
    --out f.svg python -m verify draw step STEP_ID --out f.pdf

The format (PDF, SVG or PNG) follows the extension of ``--out``.  Every number drawn is exact:
nothing here is sampled, and nothing is computed anew — the kernels, laws and conditional
moments come from :mod:`simulate.finite` (finite-state kernels of Kim et al., NeurIPS 2022,
App. B Algorithms 2 and 3; conditional moments of Theorems 1–4, ``docs/methods.md`` §6) and the
bounds from :mod:`bounds` (the forms of Theorems 1–4 as stated and as proved).

The instance is the two-state hard instance (:func:`simulate.finite.hard_instance`): the state
z* carries target mass ``pi0`` (default 0.3) and importance weight w* = π(z*)/q(z*), the other
state a weight below 1; the "score" is :func:`simulate.finite.centred_bounded_score` (|s| <= L,
E_π s = 0, s(z*) = L).  Every chain starts at z*, the worst start of Eq. (7) (§3.2).

Bounds are drawn as the paper states them (``stated``) and as the proofs give them (``explicit``).
A stated form whose O(·) terms hide constants the paper does not give
(:attr:`bounds.core.Form.dropped`) is drawn without them and labelled so.  Every bound is capped at
the trivial bound — 1 for a total variation distance, L² for E‖g‖² (each estimator averages scores
of norm <= L) — and the cap is drawn as a grey line.

Public functions (used by the notebooks): :func:`instance`, :func:`second_moments`,
:func:`wstar_data`, :func:`crossing`, :func:`mixing_data`, :func:`variance_data`,
:func:`figure` and :func:`draw`.
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field

from mcsa_cli import Parser, UsageError, number, numbers, output_path

PROG = "python -m verify draw"
KINDS = ("mixing", "variance", "wstar", "step")
SCHEMES = ("MSC", "MSC-RB", "JSA", "pMCSA")
COLOR = {"MSC": "C0", "MSC-RB": "C1", "JSA": "C3", "pMCSA": "C2"}
FORM_STYLE = {"stated": "--", "explicit": ":"}
EXTENSIONS = (".png", ".pdf", ".svg")
#: the lecture font size (points) and figure width (inches) of a 16:9 slide
FONT = 16
WIDTH = 12.0
#: limits of the flags, with their reasons (one line each on bad input)
MAX_N = 64                    # JSA's exact second moment is O(N^2) products per state and w*
MAX_N_JSA_JOINT = 12          # JSA's exact joint law has 2^N atoms
MAX_T = 100_000
MAX_W = 1e6
MAX_PANELS = 6
DEFAULTS = {"mixing": {"N": [4, 16], "w_star": [10.0, 100.0], "schemes": list(SCHEMES)},
            "variance": {"N": [2, 4, 8, 16, 32, 64], "w_star": [10.0, 1000.0], "t": 100,
                         "schemes": list(SCHEMES)},
            "wstar": {"N": [16], "w_star": [2.0, 1e4], "t": 100, "schemes": ["JSA", "pMCSA"]}}

EPILOG = (
    "Exit status: 0 written, 2 bad input (one line on stderr, before any work), 70 internal error "
    "(rerun with --debug for the traceback), 74 an output cannot be written (a full disk), 130 "
    "interrupted.")


# ----------------------------------------------------------------------------- the command line
def _parser(kind: str) -> Parser:
    ap = Parser(prog=f"{PROG} {kind}", epilog=EPILOG, description={
        "mixing": "Exact total-variation curves d_TV(K^k(z*, .), Pi) against k for each scheme, "
                  "budget N and w*, with the mixing bounds of Theorems 1-4 (one panel per N and "
                  "w*).",
        "variance": "The exact gradient second moment E||g_t||^2 from z* against the budget N, "
                    "with each scheme's second-moment bound (one panel per w*).",
        "wstar": "E||g_t||^2 from the worst start against w* at one N and t; marks where pMCSA's "
                 "advantage over each other scheme vanishes.",
        "step": "One audit step (python -m verify audit): its statement, status and "
                "counterexample.",
    }[kind])
    if kind == "step":
        ap.add_argument("step_id", metavar="STEP_ID",
                        help="an audit step id (python -m verify audit lists them)")
    else:
        ap.add_argument("--N", default=None, metavar="N[,N...]",
                        help="budget(s) N (integers 2.." + str(MAX_N) + ")"
                            + (", one value" if kind == "wstar" else ""))
        ap.add_argument("--w-star", default=None, metavar="W[,W...]",
                        help="the largest importance weight w* >= 1" + (
                            ": the range LO,HI of the horizontal axis" if kind == "wstar"
                            else " (a list)"))
        ap.add_argument("--schemes", default=None, metavar="S[,S...]",
                        help="a comma list of " + ", ".join(SCHEMES) + " (case-insensitive)")
        ap.add_argument("--pi0", default="0.3", metavar="P",
                        help="target mass of the worst state z* (0 < P <= 0.5; default 0.3)")
        if kind == "mixing":
            ap.add_argument("--k", default=None, metavar="KMAX",
                            help="the largest k drawn (default: until N r^k < 1e-3)")
        else:
            ap.add_argument("--t", default=None, metavar="T",
                            help="the MCGD iteration t (default 100)")
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


def parse(argv) -> tuple[str, dict]:
    """``(kind, options)`` from the arguments after ``draw``; :class:`UsageError` on bad input.
    Imports nothing heavy and does no work beyond creating the (empty) output file."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        if argv:
            print(f"usage: {PROG} {{{','.join(KINDS)}}} ... --out FILE (.png, .pdf or .svg)\n\n"
                  + textwrap.fill(
                      "Lecture-ready figures, exact: mixing (TV curves), variance (E||g_t||^2 "
                      "against N), "
                                  "wstar (E||g_t||^2 against w*, the crossing marked), step (an "
                                  "audit step and its "
                                  f"counterexample). `{PROG} KIND --help` for a kind's flags.", 100)
                  + "\n\n" + EPILOG)
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
                                                                   f" (`python -m verify audit` "
                                                                   f"lists the {len(ids)} steps)"))
        opts["step_id"] = a.step_id
    else:
        d = DEFAULTS[kind]
        opts["N"] = (numbers("--N", a.N, integer=True, lo=2,
                             max_items=MAX_PANELS if kind == "mixing" else 12,
                             limit=MAX_N, limit_why="the exact JSA moments grow as N^2")
                     if a.N is not None else list(d["N"]))
        w = (numbers("--w-star", a.w_star, lo=1, max_items=MAX_PANELS, limit=MAX_W,
                     limit_why="r = 1 - 1/w* is then 1 to double precision") if a.w_star is not None
             else list(d["w_star"]))
        opts["schemes"] = _schemes(a.schemes) if a.schemes is not None else list(d["schemes"])
        opts["pi0"] = number("--pi0", a.pi0, lo=0, lo_strict=True, hi=0.5)
        if kind == "mixing":
            if len(opts["N"]) * len(w) > MAX_PANELS:
                raise UsageError(
                    f"--N, --w-star: at most {MAX_PANELS} panels (one per N and w*), got "
                    f"{len(opts['N'])} x {len(w)}")
            opts["k"] = (number("--k", a.k, integer=True, lo=1,
                                limit=MAX_T) if a.k is not None else None)
        else:
            opts["t"] = (number("--t", a.t, integer=True, lo=1,
                                limit=MAX_T) if a.t is not None else d["t"])
        if kind == "variance" and len(w) > 3:
            raise UsageError(f"--w-star: at most 3 values (one panel each), got {len(w)}")
        if kind == "wstar":
            if len(opts["N"]) != 1:
                raise UsageError(
                    f"--N: one value for wstar (the budget the figure is drawn at), got "
                    f"{len(opts['N'])}")
            opts["N"] = opts["N"][0]
            if len(w) != 2 or not w[0] < w[1]:
                raise UsageError(
                    f"--w-star: the range LO,HI with LO < HI for wstar, got {a.w_star}")
            if "pMCSA" not in opts["schemes"] or len(opts["schemes"]) < 2:
                raise UsageError(
                    "--schemes: wstar compares pMCSA with at least one other scheme, got "
                                 + ",".join(opts["schemes"]))
            opts["w_range"] = tuple(w)
        else:
            opts["w_star"] = w
    opts["out"] = output_path("--out", a.out, EXTENSIONS)
    return kind, opts


def cmd_draw(argv) -> int:
    """``python -m verify draw KIND ... --out FILE``: parse (bad input: exit 2 before any work),
    draw, write.
    """
    kind, opts = parse(argv)
    out = opts.pop("out")
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


def claim_of(scheme: str) -> str:
    """The claim that bounds ``scheme`` (Kim et al. 2022, Theorems 1-4), as :func:`bounds.compare`
    pairs them.
    """
    from bounds.cli import SCHEMES as PAIRS

    return dict(PAIRS)[scheme]


def _bound(claim_id: str, quantity: str, form: str, cap: float, **values):
    """A form of a claim's bound evaluated through :mod:`bounds`, capped at the trivial bound
    ``cap``
    (None where the values are outside the form's domain)."""
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
    where
    pMCSA's advantage over it vanishes (:func:`crossing`; None if it does not within the range)."""
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
    """Exact d_TV(K^k(z*, ·), Π) against k for each scheme (Assumption 1 of Kim et al. 2022, §3.1),
    with the stated and explicit mixing forms of Theorems 1–4 capped at 1.

    MSC and MSC-RB: the CIS kernel (:func:`simulate.finite.tv_curve` of
    :func:`simulate.finite.cis_matrix`); pMCSA: N independent IMH chains (binomial counts, exact);
    JSA: the law of its N-tuple
    (:func:`simulate.finite.jsa_joint_law` against the product law), for N <= 12 only (2^N
    atoms)."""
    import numpy as np

    from simulate import finite as F

    pi, q, _ = instance(w_star, pi0)
    r = 1 - 1 / w_star
    if k_max is None:
        k_max = int(np.clip(math.ceil(math.log(1e-3 / N) / math.log(r)) if r > 0 else 20, 20,
                            20_000))
    ks = np.unique(np.geomspace(1, k_max, 60).round().astype(int))
    K = F.imh_matrix(pi, q)
    exact, notes = {}, []
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
            notes.append(
                f"JSA's exact joint law is drawn for N <= {MAX_N_JSA_JOINT} only (2^N atoms)")
    bnds = {}
    for sc in schemes:
        bnds[sc] = {}
        for form in FORM_STYLE:
            b = _bound(claim_of(sc), "mixing", form, 1.0, N=N, w_star=w_star, k=ks)
            if b is not None:
                bnds[sc][form] = np.broadcast_to(b, ks.shape).copy()
    return {"N": N, "w_star": w_star, "k": ks, "exact": exact, "bounds": bnds, "notes": notes}


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


# ----------------------------------------------------------------------------- audit steps
def step_ids() -> list[str]:
    """Every audit step id, from the stored audit outcomes (a JSON read; no claim is built)."""
    from importlib.resources import files

    return list(json.loads(files("verify").joinpath("data", "audit.json").read_text())["steps"])


def step_row(step_id: str) -> dict:
    """The audit's row of one step (:func:`verify.audit.rows`): statement, status,
    counterexample.
    """
    from importlib.resources import files

    import verify

    claim = json.loads(
        files("verify").joinpath("data", "audit.json").read_text())["steps"][step_id]["claim"]
    return next(r for r in verify.audit.rows(claim) if r["id"] == step_id)


# ----------------------------------------------------------------------------- drawing
@dataclass
class Drawing:
    """A drawn figure: the matplotlib Figure, the numbers drawn (``data``), what is marked
    (``marks``, e.g. the crossing w*) and notes printed by the command line."""

    kind: str
    fig: object
    data: dict
    marks: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    path: str | None = None


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


def _cap_line(ax, value, label):
    ax.axhline(value, color="0.55", lw=1.4, zorder=0)
    ax.annotate(label, (0.01, value), xycoords=("axes fraction", "data"), va="bottom",
                fontsize=FONT - 4,
                color="0.35")


#: the legend's title: what the dashed and dotted bounds are
BOUND_NOTE = (
    "bounds capped at the trivial bound; a stated form with O(·) terms is drawn without them (the "
    "paper gives no constants)")


def _legend_below(fig, axes, title=BOUND_NOTE, styles=True):
    """One legend under the panels: the drawn exact curves (one colour per scheme) and, with
    ``styles``,
    one black proxy per bound form's line style (dashed: stated, dotted: explicit)."""
    from matplotlib.lines import Line2D

    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    if styles:
        for form, ls in FORM_STYLE.items():
            handles.append(Line2D([], [], color="k", ls=ls, lw=1.8))
            labels.append(f"bound, {form}"
                          + (" (the paper's)" if form == "stated" else " (the proof's constants)"))
    fig.legend(handles, labels, loc="outside lower center",
               ncol=2 if len(labels) > 3 else len(labels),
               frameon=False, fontsize=FONT - 3, title=title, title_fontsize=FONT - 4)


def _draw_mixing(N, w_star, schemes, k=None, pi0=0.3):
    cases = [(n, w) for w in w_star for n in N]
    ncols = {1: 1, 2: 2, 3: 3, 4: 2}.get(len(cases), 3)
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = _new_figure(nrows, ncols, height=4.2 + 3.0 * nrows)
    data, notes = [], []
    flat = list(axes.flat)
    for ax, (n, w) in zip(flat, cases):
        d = mixing_data(n, w, schemes, k, pi0)
        data.append(d)
        notes += [x for x in d["notes"] if x not in notes]
        shown_cis = False
        for sc in schemes:
            if sc in d["exact"] and not (sc == "MSC-RB" and shown_cis):
                both = sc == "MSC" and "MSC-RB" in schemes
                ax.plot(d["k"], d["exact"][sc], "-", color=COLOR[sc],
                        label=("MSC and MSC-RB (CIS kernel)" if both else sc) + ": exact")
                shown_cis = shown_cis or sc in ("MSC", "MSC-RB")
            for form, vals in d["bounds"].get(sc, {}).items():
                ax.plot(d["k"], vals, FORM_STYLE[form], color=COLOR[sc], lw=1.8, label="_bound")
        _cap_line(ax, 1.0, "trivial bound 1 (bounds capped)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-4, 2.5)
        ax.set_title(f"N = {n},  w* = {w:g}")
        ax.set_xlabel("k (kernel steps)")
        ax.set_ylabel(r"$d_{TV}(K^k(z^*,\cdot),\Pi)$")
    for ax in flat[len(cases):]:
        ax.axis("off")
    _legend_below(fig, flat[:len(cases)])
    fit_title(fig, "Mixing from the worst start z*: exact TV (solid) against Theorems 1–4")
    return Drawing("mixing", fig, {"panels": data}, notes=notes)


def _draw_variance(N, w_star, schemes, t=100, pi0=0.3, L=1.0):
    fig, axes = _new_figure(1, len(w_star), height=6.75)
    data = []
    for ax, w in zip(axes[0], w_star):
        d = variance_data(N, w, t, schemes, pi0, L)
        data.append(d)
        for sc in schemes:
            ax.plot(d["N"], d["exact"][sc], "o-", ms=7, color=COLOR[sc], label=f"{sc}: exact")
            for form, vals in d["bounds"][sc].items():
                ax.plot(d["N"], vals, FORM_STYLE[form], color=COLOR[sc], lw=1.8, label="_bound")
        _cap_line(ax, L ** 2, "trivial bound L² (bounds capped)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"w* = {w:g}")
        ax.set_xlabel("budget N")
        ax.set_ylabel(r"$E\,\|g_t\|^2$ from $z^*$")
    _legend_below(fig, axes[0])
    fit_title(fig, f"E‖g_t‖² at t = {t} from the worst start: exact (points) against Theorems 1–4")
    return Drawing("variance", fig, {"panels": data},
                   notes=["stated forms whose O(·) terms hide unknown constants are drawn without "
                          "them"])


def _draw_wstar(N=16, t=100, w_range=(2.0, 1e4), schemes=("JSA", "pMCSA"), pi0=0.3, L=1.0):
    d = wstar_data(N, t, w_range, schemes, pi0, L)
    fig, axes = _new_figure(1, 1, height=6.75)
    ax = axes[0][0]
    for sc in d["exact"]:
        ax.plot(d["w"], d["exact"][sc], "-", color=COLOR[sc], lw=3, label=f"{sc}: exact from z*")
        ax.plot(d["w"], d["stationary"][sc], "-", color=COLOR[sc], lw=1.2, alpha=0.6,
                label=f"{sc}: exact at stationarity")
        for form, vals in d["bounds"][sc].items():
            if form == "stated":
                ax.plot(d["w"], vals, "--", color=COLOR[sc], lw=1.6, label="_bound")
    _cap_line(ax, L ** 2, "trivial bound L² (bounds capped)")
    marks, notes = {}, []
    for sc, wc in d["crossings"].items():
        if wc is None:
            notes.append(f"pMCSA vs {sc}: no crossing for w* in [{w_range[0]:g}, {w_range[1]:g}]")
            continue
        marks[sc] = wc
        ax.axvline(wc, color=COLOR[sc], lw=1.5, ls="-.")
        ax.annotate(f"w* = {wc:.4g}\npMCSA's advantage\nover {sc} ends", (wc, 0.04),
                    xycoords=("data", "axes fraction"),
                    xytext=(8, 0), textcoords="offset points", fontsize=FONT - 2, color=COLOR[sc],
                    va="bottom")
        notes.append(
            f"pMCSA's E||g_t||^2 reaches {sc}'s at w* = {wc:.6g} (N = {N}, t = {t}, pi0 = {pi0:g})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("w* (largest importance weight)")
    ax.set_ylabel(r"$E\,\|g_t\|^2$")
    ax.plot([], [], "k--", lw=1.6, label="bound, stated (the paper's)")
    _legend_below(fig, [ax], styles=False)
    fit_title(
        fig, f"Where pMCSA's advantage vanishes: E‖g_t‖² from the worst start, N = {N}, t = {t}")
    return Drawing("wstar", fig, d, marks=marks, notes=notes)


def _num(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_num(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _draw_step(step_id):
    r = step_row(step_id)
    ce = r["counterexample"] or {}
    numeric = isinstance(ce.get("lhs"), (int, float)) and isinstance(ce.get("rhs"), (int, float))
    fig, axes = _new_figure(1, 2 if numeric else 1, height=6.75)
    text_ax = axes[0][0]
    text_ax.axis("off")
    lines = [f"status: {r['status']}" + (" (affected by an earlier step)" if r["affected"] else ""),
             f"where: {r['location']}", "", "the step:", f"{r['lhs']}  {r['relation']}  {r['rhs']}",
             ""]
    if ce:
        lines += (["counterexample at:"] + [f"  {k} = {_num(v)}"
                                            for k, v in list(ce.get("at", {}).items())[:7]])
    else:
        lines += ["evidence: " + r["detail"]]
    if r["correction"]:
        lines += ["", "correction: " + r["correction"]]
    width = 44 if numeric else 90
    wrapped = []
    for line in lines:
        wrapped += textwrap.wrap(line, width, subsequent_indent="    ") or [""]
    if len(wrapped) > 22:
        wrapped = wrapped[:21] + ["… (python -m verify audit shows the rest)"]
    text_ax.text(0, 1, "\n".join(wrapped), va="top", ha="left", fontsize=FONT - 3,
                 transform=text_ax.transAxes)
    marks = {}
    if numeric:
        bar_ax = axes[0][1]
        lhs, rhs = float(ce["lhs"]), float(ce["rhs"])
        bars = bar_ax.bar(["left side", "right side"], [lhs, rhs], color=["C3", "C0"])
        bar_ax.bar_label(bars, [f"{lhs:.4g}", f"{rhs:.4g}"], fontsize=FONT - 1)
        bar_ax.set_title(f"at the counterexample:\nleft {r['relation']} right fails"
                         if r["status"] == "wrong"
                         else "at the instance found")
        if min(lhs, rhs) > 0 and max(lhs, rhs) / min(lhs, rhs) > 100:
            bar_ax.set_yscale("log")
        marks = {"lhs": lhs, "rhs": rhs}
    fit_title(fig, f"Audit step {step_id} ({r['claim']}): {r['status']}")
    return Drawing("step", fig, r, marks=marks)


def figure(kind: str, **options) -> Drawing:
    """Draw one kind (``mixing``, ``variance``, ``wstar``, ``step``) and return the :class:`Drawing`
    (its ``fig`` is a matplotlib Figure outside pyplot's registry; ``data`` the numbers drawn)."""
    import matplotlib

    fn = {"mixing": _draw_mixing, "variance": _draw_variance, "wstar": _draw_wstar,
          "step": _draw_step}
    if kind not in fn:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    with matplotlib.rc_context(_rc()):
        return fn[kind](**options)


def draw(kind: str, out: str, dpi: int = 150, **options) -> Drawing:
    """:func:`figure`, written to ``out`` (PNG, PDF or SVG by its extension)."""
    d = figure(kind, **options)
    d.fig.savefig(out, dpi=dpi)
    d.path = out
    return d
