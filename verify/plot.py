"""Bound-vs-empirical figures (matplotlib, Agg backend): ``python -m verify CLAIM --plot PATH``.

One panel per plotted quantity.  The x-axis is the parameter the claim is about (k for
mixing, t for conditional moments, N for shapes, ...).  Among the grid points that share
that x-axis, the panel shows the configuration where the empirical value comes closest
to (or furthest beyond) the primary bound — the most informative one — with the
empirical values as markers (error bars = 1.96 se for Monte Carlo), each bound form as
a line, and log axes where the values span decades.
"""

from __future__ import annotations

import math
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import bounds  # noqa: E402

LABELS = {
    "k": "k (applications of the MCGD kernel P)", "t": "t (MCGD iteration)", "N": "N (budget)",
    "w_star": "w* (maximum importance weight)", "n": "n (IMH steps)", "w": "w (importance weight of the state)",
    "t_iter": "t (iteration)", "k_frac": "k (step-size fraction)",
}
QUANTITY_LABELS = {
    "mixing": r"$d_{TV}(P^k(\eta,\cdot),\Pi)$",
    "second_moment": r"$E[\|g_t\|^2\mid\mathcal{F}_{t-1}]$",
    "variance": r"$V[g_t\mid\mathcal{F}_{t-1}]$",
}
FORM_STYLE = {"stated": ("C1", "--"), "explicit": ("C3", "-"), "moment": ("C4", "-."), "corrected": ("C2", ":"),
              "as-defined": ("C5", "--"), "printed-eq3": ("C6", "--"), "stated_sum": ("C7", "--")}
X_PRIORITY = ("k", "t", "n", "N", "w", "w_star", "t_iter", "k_frac")


def _x_param(checks):
    for x in X_PRIORITY:
        vals = {c.params.get(x) for c in checks if isinstance(c.params.get(x), (int, float))}
        if len(vals) > 1:
            return x
    return None


def _key(c, x):
    return tuple(sorted((k, str(v)) for k, v in c.params.items() if k not in (x, "eq_s2", "s_prev2", "chi2", "mu_norm")))


def panels(report, max_panels: int = 3):
    """Choose up to ``max_panels`` (quantity, x, series) to plot."""
    byq = defaultdict(list)
    for c in report.checks:
        if c.form != "shape" and isinstance(c.empirical, (int, float)) and math.isfinite(c.empirical):
            byq[c.quantity].append(c)
    order = sorted(byq, key=lambda q: (q not in QUANTITY_LABELS, list(QUANTITY_LABELS).index(q) if q in QUANTITY_LABELS else 0))
    out = []
    for q in order:
        checks = byq[q]
        x = _x_param(checks)
        if x is None:
            continue
        groups = defaultdict(list)
        for c in checks:
            if isinstance(c.params.get(x), (int, float)):
                groups[_key(c, x)].append(c)
        # the most informative configuration: largest empirical / primary-bound ratio
        def score(g):
            prim = [c.ratio for c in g if c.primary and math.isfinite(c.ratio)]
            return max(prim) if prim else max((c.ratio for c in g if math.isfinite(c.ratio)), default=0)

        def trivial(g):  # a TV bound >= 1 everywhere says nothing
            return q == "mixing" and all(c.scaled_bound >= 1 for c in g if c.primary)
        best = max(groups.values(), key=lambda g: (len({c.params[x] for c in g}) > 1, not trivial(g), score(g)))
        # forms that do not depend on x at this configuration: drawn as horizontal lines
        key = dict(_key(best[0], x))
        flat = [c for c in checks if x not in c.params
                and all(str(c.params.get(k)) == v for k, v in key.items() if k in c.params)]
        out.append((q, x, best + flat))
        if len(out) == max_panels:
            break
    return out


def plot_report(report, path: str) -> str:
    chosen = panels(report)
    claim = bounds.get(report.claim)
    n = max(1, len(chosen))
    fig, axes = plt.subplots(1, n, figsize=(5.6 * n, 4.4), squeeze=False)
    for ax, (q, x, checks) in zip(axes[0], chosen):
        emp = {}
        for c in checks:
            if x in c.params:
                emp.setdefault(c.params[x], (c.empirical, c.stderr, c.method, c.tolerance))
        # exact values below the computation's resolution are not shown as data
        xs = np.array(sorted(v for v in emp if emp[v][2] != "exact" or abs(emp[v][0]) > emp[v][3]))
        if xs.size == 0:
            xs = np.array(sorted(emp))
        ys = np.array([emp[v][0] for v in xs])
        se = np.array([(emp[v][1] or 0.0) for v in xs])
        method = emp[xs[0]][2]
        lo, hi = min(emp), max(emp)
        forms = sorted({c.form for c in checks}, key=lambda f: list(FORM_STYLE).index(f) if f in FORM_STYLE else 99)
        allv = list(ys)
        for f in forms:
            pts = sorted({(c.params[x], c.scaled_bound) for c in checks if c.form == f and x in c.params})
            if not pts:  # no dependence on x: a horizontal line
                vals = [c.scaled_bound for c in checks if c.form == f]
                pts = [(lo, max(vals)), (hi, max(vals))]
            bx, by = zip(*pts)
            color, ls = FORM_STYLE.get(f, ("C9", "-"))
            prim = any(c.primary for c in checks if c.form == f)
            ax.plot(bx, by, ls, color=color, lw=2.2 if prim else 1.4,
                    label=f"bound: {f}{' (primary)' if prim else ''}")
            allv += [v for v in by if math.isfinite(v)]
        lab = "exact" if method == "exact" else "Monte Carlo ± 1.96 se"
        ax.errorbar(xs, ys, yerr=1.96 * se if np.any(se) else None, fmt="o", color="k", ms=5, capsize=3,
                    label=f"empirical ({lab})", zorder=5)
        pos = [v for v in allv if v > 0 and math.isfinite(v)]
        if pos and max(pos) / min(pos) > 100:
            ax.set_yscale("log")
        if len(xs) > 2 and xs.min() > 0 and xs.max() / xs.min() > 30:
            ax.set_xscale("log")
        ax.set_xlabel(LABELS.get(x, x))
        ax.set_ylabel(QUANTITY_LABELS.get(q, q))
        fixed = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in checks[0].params.items()
                          if k != x and k not in ("eq_s2", "s_prev2", "chi2") and len(str(v)) < 40)
        ax.set_title(f"{q}\n{fixed}", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if not chosen:
        axes[0][0].text(0.5, 0.5, "no parameter sweep to plot", ha="center", transform=axes[0][0].transAxes)
    fig.suptitle(f"{claim.id}: {claim.title}\n{claim.source}   —   verdict: {report.verdict}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
