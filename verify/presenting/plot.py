"""Bound-vs-empirical figures (matplotlib, Agg backend): ``python -m verify CLAIM --plot PATH``.

Every claim gets a real figure, never a placeholder:

* **Sweep panels.** Where the checks vary one parameter (k for mixing, t for conditional
  moments, N for budgets, w for weights, KL for divergences, ...), the panel shows, for the
  most informative configuration (the largest empirical / bound ratio of the deciding
  form), the empirical values as points — exact values as filled markers, Monte Carlo
  values with error bars of z x (standard error), z the claim's critical value (one-sided,
  Bonferroni over its Monte Carlo checks, false-violation rate 1e-3 per claim) — and each
  bound form as a curve evaluated on a fine grid through :mod:`bounds` (the same formulas
  the checks use; a curve is drawn only when it reproduces the checked bound values, else
  the form is shown as markers at the checked points).
* **Comparison panels.** Claims without a sweep (identities, one-point checks) show every
  check as empirical value against claimed value, with the line ``empirical = claimed``
  and, for inequalities, the violation side shaded.

Violated checks are marked (a red cross for the deciding form, an open orange circle for
forms that do not decide the verdict).  The title names the verdict and the deciding
form; readings (``Report.readings``) are listed when present.

Documents are cited by bibliographic reference (:data:`bounds.references.REFERENCES`).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections import defaultdict
from typing import BinaryIO, TypeVar

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import bounds  # noqa: E402

# ----------------------------------------------------------------------------- citations
from bounds.references import (  # noqa: E402
    cite,
    cite_numbers,
    doc_number as seed_prefix,  # noqa: E402
)

from ..decide import scale_bound  # noqa: E402
from ..model import VIOLATED  # noqa: E402
from ..registry import REGISTRY  # noqa: E402

#: where a figure goes: a file path, or a binary stream (PNG bytes for Jupyter)
_PathT = TypeVar("_PathT", str, BinaryIO)


def claim_name(claim_id: str) -> str:
    """``theorem4`` -> ``Theorem 4``; the other claims by their declared name
    (:attr:`verify.model.Verification.name`), else the id in words."""
    m = re.fullmatch(r"(proposition|lemma|theorem|table|figure)(\d+)", claim_id)
    if m:
        return f"{m.group(1).capitalize()} {m.group(2)}"
    v = REGISTRY.get(claim_id)
    return (v.name if v is not None and v.name else claim_id.replace("_", " "))


# ----------------------------------------------------------------------------- labels
#: parameters in the papers' symbols (mathtext)
PARAM_SYMBOLS = {
    "w_star": r"$w^*$", "mu_norm": r"$\|\mu\|$", "N": r"$N$", "k": r"$k$", "t": r"$t$", "n": r"$n$",
    "L": r"$L$", "D": r"$D$", "M": r"$M$", "w": r"$w$", "m": r"$m$", "s": r"$s$", "C": r"$C$",
    "G": r"$G$",
    "b": r"$b$", "kl": r"KL$(\pi\|q)$", "kl_rev": r"KL$(q\|\pi)$", "chi2": r"$\chi^2(\pi\|q)$",
    "eq_s2": r"$E_q\|s\|^2$", "s_prev2": r"$\|s(z_{t-1})\|^2$", "eps": r"$\epsilon$",
    "cond_H": r"cond$(H)$",
    "dimension": r"$d$", "d": r"$d$", "x": r"$x$", "tv": r"$\delta$", "rho": r"$\rho$", "R": r"$R$",
    "|S|": r"$|S|$", "t_iter": r"$t$", "k_frac": r"$k$", "shift": "shift", "r": r"$r$", "c": r"$c$",
}
#: x-axis labels: the symbol and what it is
X_LABELS = {
    "k": r"$k$ (applications of the kernel $P$)", "t": r"$t$ (iteration of the score ascent)",
    "n": r"$n$ (IMH steps)", "N": r"$N$ (budget: proposals or chains)",
    "w": r"$w$ (importance weight of the state)",
    "w_star": r"$w^*$ (largest importance weight)", "kl": r"KL$(\pi\|q)$",
    "m": r"$m$ (mean of $q$)",
    "s": r"$s$ (scale of $q$)", "C": r"$C$ (Fisher information per datum)",
    "t_iter": r"$t$ (iteration)",
    "k_frac": r"$k$ (SGFS step-size parameter)",
}
#: the El hanchi report's k and t
X_LABELS_002 = {"k": r"$k$ (SGFS step-size parameter)",
                "t": r"$t$ (iteration of the exact process)"}
#: quantities in words and symbols
QUANTITY_LABELS = {
    "mixing": r"total variation $d_{TV}(P^k(\eta,\cdot),\Pi)$",
    "second_moment": r"second moment $E[\|g_t\|^2\mid\mathcal{F}_{t-1}]$",
    "variance": r"variance $V[g_t\mid\mathcal{F}_{t-1}]$",
    "objective": r"objective $E_\Pi f$", "gradient_m": r"gradient in $m$",
    "gradient_s": r"gradient in $s$",
    "w_star_lower": r"largest weight $w^*$", "product_tv": "TV of the product measures",
    "second_moment_variance": r"second moment $E\|g\|^2$",
    "second_moment_mse": r"second moment $E\|g\|^2$",
    "weight_variance": r"variance of the weight $V_q[w]$",
    "lambda_lower": r"rejection probability $\lambda(w)$",
    "lambda_upper": r"rejection probability $\lambda(w)$",
    "lambda": r"rejection probability $\lambda(w)$",
    "T_n": r"Smith–Tierney $T_n(w)$", "expectation": r"$n$-step expectation $E_{K^n}f$",
    "bias": r"bias $\|E g - E_\Pi g\|$", "acceptance": "acceptance probability",
    "rejection": "rejection probability",
    "acceptance_rate": r"acceptance rate $1-r(z)$", "rejection_rate_symmetric": "rejection rate",
    "rejection_rate": "rejection rate", "conditional_variance": "conditional variance",
    "growth_regime_max_N": r"largest $N$ of the growth regime",
    "covariance_ratio": r"stationary covariance / $H^{-1}$",
    "stationarity_k_max": r"largest stationary $k$",
    "stationary_covariance_ratio": r"stationary covariance / $H^{-1}$",
    "noise_ratio": "noise / (2D − DHD)",
    "k_max_13": r"largest admissible $k$, Eq. (13)",
    "k_max_15": r"largest admissible $k$, Eq. (15)",
    "k_16": r"$k$ of Eq. (16)", "noise_min_eig": "smallest noise eigenvalue",
    "variance_ratio": r"Var$[\theta_t]$ / stationary variance",
    "lag1_ratio": r"lag-1 autocovariance / $H^{-1}$",
    "threshold": "criterion threshold", "pass_rate": "pass rate of the criterion",
}
OPERATIONS = {"p_eval": r"evaluations of $\pi$", "q_eval": r"evaluations of $q$",
              "q_sample": r"samples from $q$",
              "p_grad": r"gradients of $\log\pi$", "q_grad": r"gradients of $\log q$"}
FORM_LABELS = {"stated": "stated (as printed)", "explicit": "explicit (proof's constants)",
               "moment": "moment form", "corrected": "corrected (ours)", "as-defined": "as defined",
               "printed-eq3": "as printed in Eq. (3)", "stated_sum": "stated sum",
               "series": "series",
               "as-written": "as written", "sharper": "sharper (ours)",
               "product-sets": "product sets only",
               "definition": "definition", "strict": "strict, as printed",
               "unconditional": "unconditional from η₀"}
FORM_STYLE = {"explicit": ("C3", "-"), "stated": ("C1", "--"), "moment": ("C4", "-."),
              "corrected": ("C2", ":"),
              "as-defined": ("C5", "--"), "printed-eq3": ("C6", "--"), "stated_sum": ("C7", "--"),
              "series": ("C8", "-."), "as-written": ("C9", "--"), "sharper": ("C0", ":")}
X_PRIORITY = ("k", "t", "n", "N", "w", "w_star", "kl", "m", "s", "C", "t_iter", "k_frac")
X_PRIORITY_002 = ("t", "k", "C", "N", "t_iter", "k_frac")
#: parameters derived from others (not a separate configuration)
DERIVED = {"eq_s2", "s_prev2", "chi2", "mu_norm", "kl_rev", "w_sum", "proposals", "multisets",
           "rho", "tv",
           "k_formula", "burn_in", "epi_f", "eq_f", "f_z", "sigma2", "rho_A", "rho_max_DH",
           "cond_D"}
FONT = 10
MIN_POS = 1e-300


def _quantity_label(q: str) -> str:
    base = q.split(" ")[0].split(":")[0]
    lab = QUANTITY_LABELS.get(base)
    if lab is None and "." in base:  # Table 2: SCHEME.operation
        scheme, op = base.split(".", 1)
        lab = f"{scheme}: {OPERATIONS.get(op, op.replace('_', ' '))} per iteration"
    if lab is None:  # a described quantity: its words, identifiers spelled out
        words = re.sub(r"(?<=[a-z]{2})_(?=[a-z]{2})", " ",
                       q.replace("w_star", "w*").replace("mu_norm", "||mu||"))
        return textwrap.shorten(cite_numbers(words), 70, placeholder=" …")
    rest = q[len(base):].strip()
    return cite_numbers(f"{lab} {rest}" if rest and len(rest) < 40 else lab)


def _fmt_value(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return f"{v:.3g}"
    return str(v)


def _fixed_text(params: dict, x: str | None) -> str:
    parts = []
    for k, v in params.items():
        if k == x or k in DERIVED or isinstance(v, (list, tuple, dict)):
            continue
        sym = PARAM_SYMBOLS.get(k)
        if k == "state" and _numeric(v):
            parts.append(f"state {v}")
            continue
        if sym is None:
            s = str(v)
            if (k in ("space", "score", "state", "family", "start",
                      "scheme") and len(s) <= 32 and "(" not in s):
                parts.append(s.replace("_", " ").replace("^", ""))
            continue
        parts.append(f"{sym} = {_fmt_value(v)}")
    return ", ".join(parts)


def _wrap(text: str, width: int, lines: int = 2) -> str:
    """Wrap to ``lines`` lines of about ``width`` characters (mathtext counted by its source)."""
    out = textwrap.wrap(text, width=width, break_long_words=False, max_lines=lines,
                        placeholder=" …")
    return "\n".join(out)


# ----------------------------------------------------------------------------- choosing panels
def _numeric(v) -> bool:
    return isinstance(v, (int, float, np.integer,
                          np.floating)) and not isinstance(v, bool) and math.isfinite(v)


def _seed(claim_id):
    try:
        return seed_prefix(bounds.get(claim_id).source)
    except Exception:  # figure claims may not be in the bounds library
        return ""


def _bounds_quantity(claim, q: str):
    """The :mod:`bounds` quantity behind a check's quantity text, or None."""
    if claim is None:
        return None
    base = q.split(" ")[0].split(":")[0]
    try:
        return claim.quantity(base)
    except KeyError:
        return None


def _bounds_param(claim, name: str):
    """A check's parameter name as the claim's parameter (by name, else by printed symbol)."""
    names = {p.name: p for p in claim.params}
    if name in names:
        return names[name]
    for p in claim.params:
        if p.label == name:
            return p
    aliases = {"n": "n_avg", "C": "fisher", "G": "prior", "N": "n_data", "|S|": "batch"}
    return names.get(aliases.get(name, ""))


def _group_key(c, x, keep=None):
    return tuple(sorted((k, str(v)) for k, v in c.params.items()
                        if k != x and (k in keep if keep is not None else k not in DERIVED)))


def _form_keys(claim, q, forms, x):
    """Parameters (check names) that the bound forms of ``q`` depend on, besides ``x``."""
    bq = _bounds_quantity(claim, q)
    if bq is None:
        return None
    keep = set()
    for f in forms:
        if f not in bq.form_names:
            continue
        for p in claim.form_params(bq.name, f):
            keep.add(p.name)
            keep.add(p.label)
    keep.discard(x)
    return keep


def panels(report, max_panels: int = 3):
    """Up to ``max_panels`` panels: ``("sweep", quantity, x, checks)`` or ``("compare", title, None,
    checks)``.
    """
    try:
        claim = bounds.get(report.claim)
    except Exception:
        claim = None
    prio = X_PRIORITY_002 if _seed(report.claim) == "002" else X_PRIORITY
    byq = defaultdict(list)
    for c in report.checks:
        if c.form not in ("shape",) and _numeric(c.empirical) and c.scaled_bound is not None \
                and _numeric(c.scaled_bound):
            byq[c.quantity].append(c)
    known = list(QUANTITY_LABELS)

    def qorder(q):
        base = q.split(" ")[0]
        return (not any(c.primary for c in byq[q]), base not in known,
                known.index(base) if base in known else 0)

    out: list[tuple] = []  # (kind, quantity or relation, x, checks)
    used: set[str] = set()
    for q in sorted(byq, key=qorder):
        checks = byq[q]
        chosen = None
        for x in prio:
            xs = {c.params.get(x) for c in checks if _numeric(c.params.get(x))}
            if len(xs) < 2:
                continue
            forms = {c.form for c in checks}
            cands = []
            for keep in (None, _form_keys(claim, q, forms, x)):
                groups = defaultdict(list)
                for c in checks:
                    if _numeric(c.params.get(x)):
                        groups[_group_key(c, x, keep)].append(c)
                cands += list(groups.values())
            best = max(cands, key=lambda g: _rank(g, q, x))
            if len({c.params[x] for c in best}) > 1:
                chosen = (x, best + _levels(checks, best, x))
                break
        if chosen is None:
            continue
        x, best = chosen
        out.append(("sweep", q, x, best))
        used.add(q)
        if len(out) == max_panels:
            return out
    hidden = [c for q in byq if q not in used for c in byq[q]]
    if out and any(c.verdict == VIOLATED and c.primary for c in hidden):
        # a violation the sweeps do not show: compare those checks too
        bad = {c.quantity for c in hidden if c.verdict == VIOLATED and c.primary}
        rest = [c for c in hidden if c.quantity in bad]
        rels = {_rel(c) for c in rest}
        if len(rels) == 1:
            out = out[:max_panels - 1] + [("compare", rels.pop(), None, rest)]
    if not out:  # no sweep: compare empirical with claimed values, by relation
        rest = [c for q in byq if q not in used for c in byq[q]]
        byrel = defaultdict(list)
        for c in rest:
            byrel[_rel(c)].append(c)
        for rel in sorted(byrel, key=lambda r: -sum(c.primary for c in byrel[r])):
            out.append(("compare", rel, None, byrel[rel]))
            if len(out) == max_panels:
                break
    return out


def _rel(c) -> str:
    """A check's relation as one of '=', '<=' (upper bound) and '>=' (lower bound)."""
    return "=" if c.relation == "=" else ("<=" if c.relation in ("<=", "<") else ">=")


def _levels(checks, group, x):
    """Checks of forms that do not depend on ``x`` at the group's configuration (drawn as
    levels).
    """
    ref = {k: str(v) for k, v in group[0].params.items() if k != x}
    return [c for c in checks if x not in c.params and c.form not in {g.form for g in group}
            and all(ref.get(k) == str(v)
                    for k, v in c.params.items() if k in ref and k not in DERIVED)]


def _rank(g, q, x):
    prim = [c.ratio for c in g if c.primary and _numeric(c.ratio)]
    score = max(prim) if prim else max((c.ratio for c in g if _numeric(c.ratio)), default=0.0)
    trivial = q == "mixing" and all(c.scaled_bound >= 1 for c in g if c.primary)
    informative = sum(1 for c in g if c.method != "exact" or _resolved(c))
    distinct = len({c.params[x] for c in g})
    return (distinct > 1, not trivial, informative > 1, any(c.verdict == VIOLATED for c in g),
            min(distinct, 6),
            score)


# ----------------------------------------------------------------------------- bound curves
def _x_grid(claim, xname, lo, hi, integer, logx):
    if integer:
        if hi - lo <= 400:
            return np.arange(int(lo), int(hi) + 1, dtype=float)
        return np.unique(np.round(np.geomspace(max(lo, 1), hi, 300))).astype(float)
    if logx and lo > 0:
        return np.geomspace(lo, hi, 300)
    return np.linspace(lo, hi, 300)


def bound_curve(report, quantity: str, form: str, x: str, checks, grid_lo, grid_hi, logx):
    """The bound ``form`` of ``quantity`` as a function of ``x`` on a fine grid, through
    :mod:`bounds`, with every other parameter fixed at the group's value.

    Returns ``(xs, ys)`` (the bound scaled as the checks were) or None when the bounds
    library cannot reproduce the checked values of this form (then the caller draws the
    checked values only)."""
    try:
        claim = bounds.get(report.claim)
    except Exception:
        return None
    bq = _bounds_quantity(claim, quantity)
    if bq is None or form not in bq.form_names:
        return None
    mine = [c for c in checks if c.form == form and c.quantity == quantity and x in c.params]
    if not mine:
        return None
    px = _bounds_param(claim, x)
    if px is None:
        return None
    fixed = {}
    for p in claim.form_params(bq.name, form):
        if p.name == px.name:
            continue
        vals = set()
        for c in mine:
            v = c.params.get(p.name, c.params.get(p.label))
            if v is None:
                for alias, target in (("n", "n_avg"), ("C", "fisher"), ("G", "prior"),
                                      ("N", "n_data"),
                                      ("|S|", "batch")):
                    if target == p.name:
                        v = c.params.get(alias)
            vals.add(v)
        if vals == {None} and p.default is not None:
            continue  # the checks use the claim's default
        if len(vals) != 1 or not _numeric(next(iter(vals))):
            return None
        fixed[p.name] = float(next(iter(vals)))
    xs = _x_grid(claim, x, grid_lo, grid_hi, px.integer, logx)
    on_x = px.name in {p.name for p in claim.form_params(bq.name, form)}  # else a level in x
    try:
        with np.errstate(all="ignore"):
            ys = np.asarray(claim.evaluate_form(bq.name, form, **fixed,
                                                **({px.name: xs} if on_x else {})),
                            dtype=float)
            at = np.asarray(claim.evaluate_form(bq.name, form, **fixed, **(
                {px.name: np.array([float(c.params[x]) for c in mine])} if on_x else {})),
                            dtype=float)
    except Exception:
        return None
    ys = np.broadcast_to(ys, xs.shape).copy()
    at = np.broadcast_to(at, (len(mine),))
    # the curve must reproduce the bound the checks used
    for c, v in zip(mine, at):
        if not np.isclose(v, c.bound, rtol=1e-6,
                          atol=1e-12) and not (math.isinf(v) and v == c.bound):
            return None
    ys = np.array([scale_bound(y, mine[0].relation, report.bound_scale) for y in ys])
    return xs, ys


# ----------------------------------------------------------------------------- drawing
def _critical_z(report):
    zs = {round(c.z, 2) for c in report.checks if c.method == "monte-carlo" and c.z is not None
          and c.relation != "="}
    zs2 = {round(c.z, 2) for c in report.checks if c.method == "monte-carlo" and c.z is not None
           and c.relation == "="}
    return (max(zs) if zs else (max(zs2) if zs2 else None))


def _zs(zs, zcrit) -> list[float]:
    """Each point's critical value: its check's own z (one-sided for a bound, two-sided for an
    identity).
    """
    return [float(z) if z is not None and math.isfinite(z) else (zcrit or 1.96) for z in zs]


def _z_label(zs) -> str:
    """'± 4.13 se', or '± z se (z = 4.13, 4.28)' when a panel's points were decided with several z:
    the values
    the error bars use, the same as the report's text beside the figure (:func:`z_text`)."""
    vals = sorted({f"{z:.2f}" for z in zs}, key=float)
    return f"± {vals[0]} se" if len(vals) == 1 else f"± z se (z = {', '.join(vals)})"


def z_text(checks) -> str:
    """The critical values the Monte Carlo checks were decided with, as the report states them
    beside the figure: 'one-sided z = 4.13' for bounds, 'two-sided z = 4.28' for identities
    (Bonferroni over the
    claim's Monte Carlo checks, :func:`verify.decide.z_one_sided`)."""
    mc = [c for c in checks if c.method == "monte-carlo" and c.z is not None and math.isfinite(c.z)]
    one = sorted({f"{c.z:.2f}" for c in mc if c.relation != "="}, key=float)
    two = sorted({f"{c.z:.2f}" for c in mc if c.relation == "="}, key=float)
    parts = []
    if one:
        parts.append(f"one-sided z = {', '.join(one)}" + (" for the bounds" if two else ""))
    if two:
        parts.append(f"two-sided z = {', '.join(two)}" + (" for the identities" if one else ""))
    return "; ".join(parts)


def own_checks_text(text: str, report) -> str:
    """``text`` (:func:`verify.presenting.formatting.readings_text`) with each reading's '(n own
    checks)' made
    true:
    a check without a reading belongs to every reading, so a claim's only reading owns all its
    checks ('(all 24
    checks)', not '(0 own checks)'), and a reading of several counts its own and the shared ones."""
    defs = tuple(getattr(report, "reading_defs", ()) or ())
    shared = sum(1 for c in report.checks if not getattr(c, "reading", ""))
    lines = text.split("\n")
    for r in defs:
        own = sum(1 for c in report.checks if getattr(c, "reading", "") == r.name)
        head, tail = f"  [{r.axis}] {r.name}:", f"({own} own checks)"
        def n(k):
            return f"{k} check{'' if k == 1 else 's'}"

        if len(defs) <= 1:
            new = f"(all {n(own + shared)})"
        elif shared:
            new = f"({n(own)} of its own, {n(shared)} shared by every reading)"
        else:
            new = f"({n(own)} of its own)"
        lines = [ln[: len(ln) - len(tail)] + new if ln.startswith(head) and ln.endswith(tail)
                 else ln
                 for ln in lines]
    if not defs:  # the claim's text read as printed: every check is its own
        lines = [ln.rsplit("(", 1)[0]
                 + f"(all {len(report.checks)} check{'' if len(report.checks) == 1 else 's'})"
                 if ln.startswith("  [") and ln.endswith(" own checks)") else ln for ln in lines]
    return "\n".join(lines)


def _deciding(report, checks):
    """The claim's deciding form when this panel shows it, else None."""
    return report.primary_form if report.primary_form in {c.form for c in checks} else None


def _resolved(c) -> bool:
    """Whether an exact check's empirical enclosure excludes 0 (its value's sign and magnitude
    are known); an enclosure reaching 0 is drawn at its upper end, as an upper limit."""
    lhs = getattr(c, "lhs", None)
    return lhs is None or lhs.sign() in (1, -1)


def _points(checks, x):
    """Unique empirical points (x, value) -> (stderr, method, resolved, z) of the checks.

    An exact check whose enclosure reaches 0 is keyed at its enclosure's upper end."""
    pts: dict = {}
    for c in checks:
        ok = c.method != "exact" or _resolved(c)
        y = float(c.empirical) if ok else float(c.lhs.floats()[1])
        key = (float(c.params[x]), y)
        pts.setdefault(key, (c.stderr or 0.0, c.method, ok, c.z))
    return pts


def _draw_empirical(ax, pts, zcrit, handles):
    exact = [(x, y) for (x, y), (se, m, ok, z) in pts.items() if m != "monte-carlo" and ok]
    limits = [(x, y) for (x, y), (se, m, ok, z) in pts.items() if m != "monte-carlo" and not ok
              and y > 0]
    mc = [(x, y, se, z) for (x, y), (se, m, ok, z) in pts.items() if m == "monte-carlo"]
    if exact:
        ex, ey = zip(*sorted(exact))
        h = ax.plot(ex, ey, "o", color="k", ms=6, zorder=6, label="empirical (exact)")[0]
        handles.append(h)
    if limits:
        lx, ly = zip(*sorted(limits))
        h = ax.plot(lx, ly, "v", color="0.35", ms=7, zorder=6,
                    label="empirical below its resolution (drawn at its enclosure's upper end)")[0]
        handles.append(h)
    if mc:
        mx, my, ms, mz = zip(*sorted(mc))
        zs = _zs(mz, zcrit)
        h = ax.errorbar(mx, my, yerr=[z * s for z, s in zip(zs, ms)], fmt="s", color="k",
                        mfc="white", ms=6,
                        capsize=3, zorder=6, label=f"empirical (Monte Carlo {_z_label(zs)})")
        handles.append(h)


def _mark_violations(ax, checks, x, deciding, handles, xkey=None):
    """Red crosses: violations that decide (the deciding form, or checks that count towards
    the verdict of a reading when the panel does not show the deciding form); orange
    circles: violations of forms that are only reported."""
    def decides(c):
        return c.form == deciding if deciding is not None else c.primary

    dec = [(xkey(c) if xkey else c.params[x], c.empirical) for c in checks
           if c.verdict == VIOLATED and decides(c)]
    other = [(xkey(c) if xkey else c.params[x], c.empirical) for c in checks
             if c.verdict == VIOLATED and not decides(c)]
    other_forms = sorted({FORM_LABELS.get(c.form, c.form).split(" (")[0] for c in checks
                          if c.verdict == VIOLATED and not decides(c)})
    if dec:
        label = (f"violates the deciding form ({deciding})" if deciding is not None
                 else "violates the bound (counts towards the verdict)")
        h = ax.plot(*zip(*dec), "x", color="red", ms=12, mew=2.5, zorder=7, label=label)[0]
        handles.append(h)
    if other:
        h = ax.plot(*zip(*other), "o", mfc="none", mec="darkorange", ms=13, mew=2, zorder=7,
                    label="violates " + ", ".join(other_forms) + " (not deciding)")[0]
        handles.append(h)


def _sweep(ax, report, q, x, checks, zcrit):
    claim_seed = _seed(report.claim)
    deciding = _deciding(report, checks)
    handles = []
    levels = [c for c in checks if x not in c.params]
    checks = [c for c in checks if x in c.params]
    pts = _points(checks, x)
    shown = pts  # every point: an unresolved one at its enclosure's upper end (_draw_empirical)
    xvals = sorted({c.params[x] for c in checks})
    lo, hi = float(min(xvals)), float(max(xvals))
    logx = lo > 0 and hi / lo > 30
    forms = sorted({c.form for c in checks + levels},
                   key=lambda f: (f != deciding,
                                  list(FORM_STYLE).index(f) if f in FORM_STYLE else 99))
    drawn: list[list] = []  # [form(s), xs, ys, line]
    values = [v[1] for v in shown]
    for f in forms:
        fc = [c for c in checks + levels if c.form == f]
        color, ls = FORM_STYLE.get(f, ("C9", "-"))
        kind = "claimed" if fc[0].relation == "=" else "bound"
        label = f"{kind}: {FORM_LABELS.get(f, f)}" + (" (deciding)" if f == deciding else "")
        curve = bound_curve(report, q, f, x, checks, lo, hi, logx)
        if curve is None and all(x not in c.params for c in fc):
            level = max(c.scaled_bound for c in fc)
            curve = (np.array([lo, hi]), np.array([level, level]))
            label += f", constant in {PARAM_SYMBOLS.get(x, x)}"
            if any(c.verdict == VIOLATED for c in fc):
                label += " (violated)"
        if curve is not None:
            xs, ys = curve
            same = next((d for d in drawn if d[1] is not None and len(d[1]) == len(xs)
                         and np.allclose(d[1], xs)
                         and np.allclose(d[2], ys, rtol=1e-9, equal_nan=True)), None)
            if same is not None:  # identical curve: one line, both names
                same[0].append(f)
                same[3].set_label(same[3].get_label() + f" = {FORM_LABELS.get(f, f)}"
                                  + (" (deciding)" if f == deciding else ""))
                continue
            line = ax.plot(xs, ys, ls, color=color, lw=2.4 if f == deciding else 1.6, label=label,
                           zorder=3)[0]
            drawn.append([[f], xs, ys, line])
            values += [float(v) for v, xv in zip(ys, xs) if math.isfinite(v)]
        else:  # only the checked values
            bx, by = zip(*sorted({(float(c.params[x]),
                                   float(c.scaled_bound)) for c in fc if x in c.params}))
            line = ax.plot(bx, by, "_", color=color, ms=16, mew=2.4,
                           label=label + " (checked points)", zorder=4)[0]
            drawn.append([[f], None, None, line])
            values += [v for v in by if math.isfinite(v)]
    handles += [d[3] for d in drawn]
    _draw_empirical(ax, shown, zcrit, handles)
    _mark_violations(ax, checks, x, deciding, handles)
    _axes_scales(ax, q, [v[1] for v in shown], values, logx)
    xl = ((X_LABELS_002 if claim_seed == "002" else {}).get(x) or X_LABELS.get(x)
          or PARAM_SYMBOLS.get(x, x))
    ax.set_xlabel(xl, fontsize=FONT)
    ax.set_ylabel(_wrap(_quantity_label(q), 48), fontsize=FONT)
    ax.set_title(_wrap(_subtitle(_fixed_text(_common(checks), x), _reading_note(checks)), 62),
                 fontsize=FONT)
    return handles


def _reading_note(checks) -> str:
    """'reading: …' when every check of a panel belongs to one reading of the claim, so a
    panel of violations says under which reading of the text they are violations."""
    readings = {getattr(c, "reading", "") for c in checks}
    if len(readings) != 1 or not next(iter(readings)):
        return ""
    return f"reading: {cite_numbers(next(iter(readings)))}"


def _subtitle(*parts: str) -> str:
    """A panel's subtitle: its non-empty parts joined by '; ' (never a leading or a doubled
    separator).
    """
    return "; ".join(p.strip().strip(";").strip() for p in parts if p
                     and p.strip().strip(";").strip())


def _common(checks) -> dict:
    """The parameters shared (same value) by all the checks."""
    first = dict(checks[0].params)
    return {k: v for k, v in first.items()
            if all(str(c.params.get(k)) == str(v) for c in checks[1:])}


def _axes_scales(ax, q, emp, values, logx):
    if logx:
        ax.set_xscale("log")
    emp = [v for v in emp if math.isfinite(v)]
    pos = [v for v in values if v > 0 and math.isfinite(v)]
    if (pos and len(pos) == len([v for v in values if math.isfinite(v)]) and max(pos) / min(pos)
        > 100):
        ax.set_yscale("log")
        # keep the empirical points in view and bounds within 8 decades of them
        epos = [v for v in emp if v > 0] or pos
        top = max(max(epos) * 10, min(max(pos), max(epos) * 1e6) * 2)
        bottom = min(min(epos) / 10, max(min(pos), min(epos) * 1e-6) / 2)
        if q.startswith("mixing"):
            top = min(top, 2.0)
        ax.set_ylim(max(bottom, MIN_POS), top)
    elif q.startswith("mixing"):
        ax.set_ylim(bottom=min(0, min(values, default=0)),
                    top=min(max(values, default=1) * 1.08, 1.08))
    else:
        _no_offset(ax, values)


def _no_offset(ax, values):
    """Plain tick labels (no '1e-12+1' offsets); a flat series gets a +-5% window."""
    fin = [v for v in values if math.isfinite(v)]
    if fin and max(fin) - min(fin) <= 1e-6 * max(abs(max(fin)), abs(min(fin)), 1e-300):
        mid = fin[0]
        half = 0.05 * abs(mid) if mid else 1.0
        ax.set_ylim(mid - half, mid + half)
    ax.ticklabel_format(axis="y", useOffset=False,
                        style="plain") if ax.get_yscale() == "linear" else None


def _compare(ax, report, rel, checks, zcrit):
    """Every check as (claimed value, empirical value), with the line empirical = claimed."""
    deciding = _deciding(report, checks)
    handles = []
    forms = sorted({c.form for c in checks},
                   key=lambda f: (f != deciding,
                                  list(FORM_STYLE).index(f) if f in FORM_STYLE else 99))
    bx = np.array([c.scaled_bound for c in checks], dtype=float)
    ey = np.array([c.empirical for c in checks], dtype=float)
    bar = np.array([(zcrit or 1.96) * (c.stderr or 0.0) for c in checks], dtype=float)
    allv = np.concatenate([bx, ey - bar, ey + bar])
    allv = allv[np.isfinite(allv)]
    log = allv.size and allv.min() > 0 and allv.max() / allv.min() > 100
    lo, hi = (allv.min(), allv.max()) if allv.size else (0.0, 1.0)
    if log:
        lo, hi = lo / 2, hi * 2
    else:
        pad = 0.08 * (hi - lo or abs(hi) or 1.0)
        lo, hi = lo - pad, hi + pad
    diag = np.array([lo, hi])
    h = ax.plot(diag, diag, "-", color="0.35", lw=1.2, label="empirical = claimed", zorder=2)[0]
    handles.append(h)
    if rel != "=":
        y2 = hi if rel == "<=" else lo
        h = ax.fill_between(diag, diag, [y2, y2], color="red", alpha=0.08, lw=0, zorder=1,
                            label="violation side (empirical " + (">" if rel == "<=" else "<")
                            + " claimed)")
        handles.append(h)
    markers = "oDv^<>p*h"
    for i, f in enumerate(forms):
        fc = [c for c in checks if c.form == f]
        color = FORM_STYLE.get(f, ("C9", "-"))[0] if f != deciding else "k"
        label = f"{FORM_LABELS.get(f, f)}" + (" (deciding)" if f == deciding
                                              else "") + (f": {len(fc)} "
                                                          f"check{'s' if len(fc) != 1 else ''}")
        mc = [c for c in fc if c.method == "monte-carlo" and c.stderr]
        other = [c for c in fc if not (c.method == "monte-carlo" and c.stderr)]
        if other:
            h = ax.plot([c.scaled_bound for c in other], [c.empirical for c in other],
                        markers[i % len(markers)],
                        color=color, mfc=color if f == deciding else "none", ms=7, zorder=5,
                        label=label
                        + (" (exact)" if all(c.method == "exact" for c in other) else ""))[0]
            handles.append(h)
        if mc:
            zs = _zs([c.z for c in mc], zcrit)
            h = ax.errorbar([c.scaled_bound for c in mc], [c.empirical for c in mc],
                            yerr=[z * c.stderr for z, c in zip(zs, mc)], fmt="s", color=color,
                            mfc="white", ms=6,
                            capsize=3, zorder=5,
                            label=f"{FORM_LABELS.get(f, f)}: Monte Carlo {_z_label(zs)}")
            handles.append(h)
    _mark_violations(ax, checks, None, deciding, handles, xkey=lambda c: c.scaled_bound)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("claimed value (bound or identity)", fontsize=FONT)
    ax.set_ylabel("empirical value", fontsize=FONT)
    qs = sorted({_quantity_label(c.quantity) for c in checks})
    what = {"=": "identities", "<=": "upper bounds", ">=": "lower bounds"}[rel]
    sub = f"{what}: " + "; ".join(qs)
    if rel == "=":
        gap = max((abs(c.empirical - c.scaled_bound) for c in checks), default=0.0)
        sub = f"{what}, largest |empirical − claimed| = {gap:.2g}: " + "; ".join(qs)
    ax.set_title(_wrap(sub, 62), fontsize=FONT)
    return handles


def _title(report, width_in):
    try:
        claim = bounds.get(report.claim)
        src = cite(claim.source)
    except Exception:
        src = ""
    verdict = getattr(report, "verdict", "")
    readings = getattr(report, "readings", None) or {}
    deciding = report.primary_form or "primary"
    line1 = f"{claim_name(report.claim)}: {verdict}"
    chars = int(width_in * 72 / (0.68 * 11))  # DejaVu Sans averages about 0.6 em a character
    chars2 = chars
    if (readings
        and (verdict == "depends on reading" or any(v != verdict for v in readings.values()))):
        listed = line1 + " (" + "; ".join(f"{k}: {v}" for k, v in readings.items()) + ")"
        failing = [k for k, v in readings.items() if v == VIOLATED]
        line1 = listed if len(listed) <= chars else (
            line1 + f" (fails under {len(failing)} of {len(readings)} readings)")
    elif len(line1) + len(deciding) + 18 <= chars:
        line1 += f" (deciding form: {deciding})"
    line1 = textwrap.shorten(line1, chars, placeholder=" …")
    dec = report.decisive() if hasattr(report, "decisive") else None
    if dec is not None:  # reading rule 5: the counterexample that decides the status comes first
        rel = {"<=": ">", "<": ">=", ">=": "<", ">": "<=", "=": "!="}.get(dec.relation, "vs")
        bound = dec.scaled_bound if dec.scaled_bound is not None else dec.bound
        src = cite_numbers(
            f"decisive: {_quantity_label(dec.quantity)} ({dec.form}) = {dec.empirical:.4g}, {rel} "
            f"the bound {bound:.4g}; {src}")
    # wrapped, not cut: a figure shown alone on a slide names its counterexample and its equations
    # in full
    line2 = "\n".join(textwrap.wrap(src, chars2, break_long_words=False, max_lines=2,
                                    placeholder=" …"))
    return line1, line2


def make_figure(report, ax=None):
    """The claim's figure as a matplotlib Figure (Agg canvas, outside pyplot's registry).

    With ``ax`` (a matplotlib Axes of the caller's figure), the claim's first panel is drawn
    into it, titled with the claim and its status, and ``ax`` is returned."""
    chosen = panels(report)
    zcrit = _critical_z(report)
    if ax is not None:
        if chosen:
            kind, q, x, checks = chosen[0]
            handles = (_sweep if kind == "sweep" else lambda a, r, q_, x_, c,
                       z: _compare(a, r, q_, c, z))(
                ax, report, q, x, checks, zcrit)
            ax.grid(alpha=0.3)
            _legend(ax, handles)
        else:
            _no_numbers(ax, report)
        ax.set_title(_title(report, 5.6)[0] + "\n" + ax.get_title(), fontsize=FONT)
        return ax
    n = max(1, len(chosen))
    width = 5.6 * n
    with matplotlib.rc_context({"font.size": FONT, "legend.fontsize": FONT, "axes.titlesize": FONT,
                         "axes.labelsize": FONT, "xtick.labelsize": FONT, "ytick.labelsize": FONT}):
        # not through pyplot: no global figure registry to leak into
        fig = Figure(figsize=(width, 6.2), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, n, squeeze=False)
        for ax, (kind, q, x, checks) in zip(axes[0], chosen):
            if kind == "sweep":
                handles = _sweep(ax, report, q, x, checks, zcrit)
            else:
                handles = _compare(ax, report, q, checks, zcrit)
            ax.grid(alpha=0.3)
            _legend(ax, handles)
        if not chosen:
            _no_numbers(axes[0][0], report)
        line1, line2 = _title(report, width)
        fig.suptitle(f"{line1}\n{line2}", fontsize=11)
    return fig


def plot_report(report, path=None, dpi: int = 130, ax=None):
    """Draw a claim's figure: empirical values against every bound form, violations marked.

    Parameters
    ----------
    report : verify.running.outcome.Report
        A claim's run (:func:`verify.run`).
    path : str or file-like, optional
        Write the figure there (.png, .svg or .pdf) and return the path.
    dpi : int
    ax : matplotlib.axes.Axes, optional
        Draw the first panel into this Axes instead and return it.
    """
    if ax is not None:
        return make_figure(report, ax=ax)
    make_figure(report).savefig(path, dpi=dpi)
    return path


def _visible(ax, h) -> bool:
    """Whether a legend candidate shows anything inside the axes' limits."""
    artists = [h]
    if hasattr(h, "lines"):  # errorbar container
        artists = [h.lines[0]] if h.lines and h.lines[0] is not None else []
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    for a in artists:
        if not a.get_visible():
            continue
        if hasattr(a, "get_xydata"):
            xy = np.asarray(a.get_xydata(), dtype=float)
        else:  # fill_between
            return True
        if xy.size == 0:
            continue
        inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
        if inside.any():
            return True
        # a line crossing the view between two points outside it
        if a.get_linestyle() not in ("None", "", " ") and len(xy) > 1:
            if (xy[:, 1].max() >= y0 and xy[:, 1].min()
                <= y1) and (xy[:, 0].max() >= x0 and xy[:, 0].min() <= x1):
                return True
    return False


def _legend(ax, handles):
    """A legend of the drawn, visible elements only; elements outside the view are named in a
    note.
    """
    keep: list = []
    off: list = []
    for h in handles:
        (keep if _visible(ax, h) else off).append(h)
    for h in off:
        for a in ([h] if not hasattr(h, "lines") else [h.lines[0]]):
            a.set_visible(False)
    if keep:  # below the panel: never over the data
        ax.legend(handles=keep, labels=[_wrap(h.get_label(), 58) for h in keep], loc="upper center",
                  bbox_to_anchor=(0.5, -0.16), frameon=False, ncol=1)
    if off:
        ax.text(0.01, 0.01, _wrap("off scale: " + "; ".join(h.get_label() for h in off), 60, 3),
                transform=ax.transAxes, fontsize=FONT, color="0.3", va="bottom")


def _no_numbers(ax, report):
    """Claims whose checks carry no finite numbers (e.g. purely symbolic): a table of verdicts."""
    ax.axis("off")
    rows = [[c.quantity[:48], c.form, c.method, c.verdict] for c in report.checks[:14]]
    if rows:
        t = ax.table(cellText=rows, colLabels=["quantity", "form", "method", "verdict"],
                     loc="center")
        t.set_fontsize(FONT)
        t.scale(1, 1.3)


def figure(report, path: _PathT, dpi: int = 130) -> _PathT:
    """The claim's own figure when its verification registers one (e.g. figure reproductions),
    else :func:`plot_report`."""
    v = REGISTRY.get(report.claim)
    if v is not None and v.plot is not None:  # a registered plot takes (report, path, dpi)
        v.plot(report, path, dpi=dpi)
        return path
    return plot_report(report, path, dpi=dpi)
