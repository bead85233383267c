"""The kinds of ``python -m verify draw``: ``mixing``, ``variance``, ``wstar``, ``rates``,
``stationary`` and ``step``, each a :class:`~verify.presenting.draw.canvas.Drawing` with the one
sentence it
says; :func:`figure` draws one kind (or a lecture figure) and :func:`draw` writes it.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction
from typing import Callable

from .canvas import (
    Drawing,
    _bound_line,
    _cap_line,
    _declutter,
    _forms_to_draw,
    _legend_below,
    _log2_ticks,
    _new_figure,
    _omitted_note,
    _rc,
    _void_title,
    fit_title,
)
from .constants import COLOR, FONT, FORM_STYLE, ITERATION, KINDS, SCHEMES, THEOREM
from .exact import instance, mixing_data, rates_data, stationary_data, variance_data, wstar_data
from .lecture_figures import LECTURE_FIGURES
from .steps import claim_display_name, claim_status, step_row, wrong_upstream


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
            slowest.add(max(first, key=first.__getitem__))
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
        best = max(gain, key=gain.__getitem__)
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
    fn: dict[str, Callable[..., Drawing]]
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
