"""A 50-minute lecture on MCGD and MCSA in one command: ``python -m verify draw lecture --out DIR``.

Writes the lecture's figures (PNG by default, ``--format pdf|svg``) and ``outline.md``: for each
slide its minutes, its figure, the one sentence the figure says
(:attr:`verify.draw.Drawing.message`, computed from the numbers drawn, never typed in), what to
say, and the checks it rests on (claims of Kim et al. 2022 with their verdicts, steps of the proof
audit, claims of the teaching document ``verify/documents/teaching``).

Besides the kinds of :mod:`verify.draw` (mixing, variance, wstar, rates, stationary, step), four
figures are drawn only here (:data:`FIGURES`):

* ``imh``: one IMH chain from z*: it accepts with probability 1/w* but moves with probability
  (1 − π(z*))/w*, so Eq. (7)'s r^k is tight up to the factor 1 − π(z*) (§3.2);
* ``map``: the paper's (ρ, G²) of the four schemes across w* (Theorems 1–4): no scheme mixes fast
  and has a small G²;
* ``crossings``: the w* where pMCSA's E‖g_t‖² from z* reaches JSA's, against t: about 2.2 t;
* ``corrected``: the conditional second moment of pMCSA at the all-worst state against w*, with
  Theorem 4's stated and corrected bounds: the correction holds and is informative only where
  L²(1 + r)/N + (‖μ‖ + 2Lr)² < L².

Every figure here passes the checks of :mod:`verify.draw` (a legend entry per line, no overlapping
labels, vacuous bounds grey).
"""

from __future__ import annotations

import math
import os

from . import draw as D

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
     ("checked:teach_imh_escape", "verdict:lemma4")),
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
      "instance": {k: list(v) for k, v in D.COUNTEREXAMPLE.items()}}, 4,
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

    pi, q, _ = D.instance(w_star, pi0)
    K = F.imh_matrix(pi, q)
    r = 1 - 1 / w_star
    ks = np.arange(1, k_max + 1)
    tv = F.tv_curve(K, pi, k_max)[:, 0]
    accept = float(q @ np.minimum(1.0, (pi / q) / (pi[0] / q[0])))  # E_q min(1, w/w*)
    move = float(1 - K[0, 0])
    fig, axes = D._new_figure(1, 1, height=7.6)
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
                   transform=ax.transAxes, ha="right", va="top", fontsize=D.FONT - 3,
                   bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6"))
    D._legend_below(fig, [ax], title="one IMH chain started at the state of largest weight z*")
    D.fit_title(fig, "IMH from the worst start: Eq. (7) is tight up to the factor 1 − π(z*)")
    D._declutter(fig, [note])
    gap = float(np.abs(tv / (r ** ks * (1 - pi[0])) - 1).max())
    msg = (f"From z* an IMH chain accepts with probability 1/w* = {accept:.2g} but moves with "
           f"probability (1 − π(z*))/w* = {move:.2g}, so its exact TV is r^k (1 − π(z*)): Eq. (7) "
           f"is tight up to the factor {1 - pi[0]:.2g}.")
    return D.Drawing("imh", fig, {"k": ks, "tv": tv, "r": r, "accept": accept, "move": move,
                                  "pi0": float(pi[0]), "max_rel_gap": gap}, message=msg)


def _map(N=16, pi0=0.3, w_grid=(2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 1e4), L=1.0):
    """The paper's (1 − ρ, G²) of the four schemes across w* (Theorems 1–4 through
    :func:`bounds.compare`); G² at or above L² is vacuous and drawn grey at L²."""
    import numpy as np

    import bounds

    rho = {sc: [] for sc in D.SCHEMES}
    G2 = {sc: [] for sc in D.SCHEMES}
    for w in w_grid:
        pi, q, _ = D.instance(w, pi0, L)
        for row in bounds.compare(N=N, w_star=w, chi2=D._chi2(pi, q), L=L):
            rho[row["scheme"]].append(float(row["rho"]))
            G2[row["scheme"]].append(float(row["second_moment"]))
    fig, axes = D._new_figure(1, 1, height=8.0)
    ax = axes[0][0]
    labels = []
    for sc in D.SCHEMES:
        x, g = 1 - np.array(rho[sc]), np.array(G2[sc])
        void = g >= L ** 2
        ax.plot(x, np.minimum(g, L ** 2), "-", color=D.COLOR[sc], lw=1.6,
                label=f"{sc} ({D.THEOREM[sc]}), w* = {w_grid[0]:g} to {w_grid[-1]:g}")
        if (~void).any():
            ax.plot(x[~void], g[~void], "o", color=D.COLOR[sc], ms=8,
                    label=f"{sc}: stated G² below L²")
        if void.any():
            ax.plot(x[void], np.full(void.sum(), L ** 2), "o", color=D.VOID_COLOR, ms=11,
                    mfc="white", mew=2.5, label="stated G² at or above L²: vacuous here (grey)")
        labels.append(ax.annotate(f"{sc}, w* = {w_grid[-1]:g}", (x[-1], min(g[-1], L ** 2)),
                                  xytext=(6, -14), textcoords="offset points", fontsize=D.FONT - 5,
                                  color=D.COLOR[sc]))
    D._cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("1 − ρ per iteration (right: faster mixing)")
    ax.set_ylabel("stated bound G² on E‖g_t‖²")
    D._legend_below(fig, [ax], title=f"Theorems 1–4 as stated, N = {N}, two-state instance "
                                     f"(π(z*) = {pi0:g}), L = 1, μ = 0, C_cov = 0")
    D.fit_title(fig, "The trade-off as the paper states it: mixing rate against gradient bound")
    D._declutter(fig, labels)
    last = {sc: (1 - rho[sc][-1], G2[sc][-1]) for sc in D.SCHEMES}
    fastest = max(last, key=lambda sc: last[sc][0])
    smallest = min(last, key=lambda sc: last[sc][1])
    msg = (f"At w* = {w_grid[-1]:g} {fastest} mixes fastest per iteration and {smallest} has the "
           f"smallest stated G² ({G2[smallest][-1]:.3g}): no scheme is best at both.")
    return D.Drawing("map", fig, {"w": list(w_grid), "rho": rho, "G2": G2}, message=msg)


def _crossings(N=16, ts=(10, 30, 100, 300, 1000), pi0=0.3):
    """The w* where pMCSA's E‖g_t‖² from z* reaches JSA's, for each t (:func:`verify.draw.crossing`
    on exact values)."""
    import numpy as np

    cross = {t: D.crossing(N, t, "JSA", (2.0, 1e5), pi0) for t in ts}
    t_arr = np.array(ts, float)
    w = np.array([cross[t] for t in ts], float)
    fig, axes = D._new_figure(1, 1, height=7.6)
    ax = axes[0][0]
    ax.plot(t_arr, w, "o-", color="k", ms=8, label="w* where pMCSA's E‖g_t‖² reaches JSA's (exact)")
    ax.plot(t_arr, 2.2 * t_arr, "--", color="0.4", lw=1.6, label="2.2 t")
    ax.fill_between(t_arr, w, 3e5, color="C3", alpha=0.12, label="JSA's E‖g_t‖² is smaller")
    ax.fill_between(t_arr, 1, w, color="C2", alpha=0.12, label="pMCSA's E‖g_t‖² is smaller")
    labels = [ax.annotate(f"w*/t = {wc / t:.2f}", (t, wc), xytext=(8, -20),
                          textcoords="offset points", fontsize=D.FONT - 4)
              for t, wc in zip(ts, w)]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1, 3e5)
    ax.set_xlabel("MCGD iteration t")
    ax.set_ylabel("w* at which the two meet")
    D._legend_below(fig, [ax], title=f"every chain started at z*, N = {N}, π(z*) = {pi0:g}")
    D.fit_title(fig, "The transient lasts longer for a worse proposal: the crossing w* against t")
    D._declutter(fig, labels)
    ratios = w / t_arr
    msg = (f"The crossing w* grows linearly in t: w*/t goes from {ratios[0]:.2f} at t = {ts[0]} "
           f"to {ratios[-1]:.2f} at t = {ts[-1]}, so a proposal with w* above about 2.2 t puts "
           f"pMCSA behind JSA at iteration t.")
    return D.Drawing("crossings", fig, {"t": list(ts), "w": w.tolist(), "ratio": ratios.tolist()},
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
        stated.append(float(bounds.evaluate(D.claim_of("pMCSA"), "second_moment", "stated", N=N,
                                            w_star=float(wi), L=L, mu_norm=0.0)))
        r = 1 - 1 / wi
        corrected_raw.append(L ** 2 * (1 + r) / N + (2 * L * r) ** 2)
    exact, stated, corrected_raw = map(np.array, (exact, stated, corrected_raw))
    w_max = informative_w_max(N)
    fig, axes = D._new_figure(1, 1, height=8.0)
    ax = axes[0][0]
    ax.axvspan(w[0], w_max, color="C2", alpha=0.12,
               label=f"corrected bound below L²: w* < {w_max:.3g}")
    ax.plot(w, exact, "k-", lw=3,
            label=r"exact $E[\|g_t\|^2 \mid \mathcal{F}_{t-1}]$, every chain at $z^*$")
    D._bound_line(ax, w, stated, L ** 2, "C1", "--", "Theorem 4 as stated: L²(1 + r)/N")
    D._bound_line(ax, w, np.minimum(corrected_raw, L ** 2), L ** 2, "C2", "-.",
                  "corrected: L²(1 + r)/N + (‖μ‖ + 2Lr)²", lw=2.4)
    D._cap_line(ax, L ** 2, "L²: an average of scores of norm <= L")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.1, 1.6)
    ax.set_xlabel("w*")
    ax.set_ylabel(r"second moment of $g_t$ given $\mathcal{F}_{t-1}$")
    D._legend_below(fig, [ax], title=f"pMCSA, N = {N}, L = {L:g}, μ = 0, the {M}-state hard "
                                     "instance; grey: vacuous")
    D.fit_title(fig, f"Theorem 4 corrected: it holds, and says something only for w* < "
                     f"{w_max:.3g} (N = {N})")
    holds = bool(np.all(exact <= np.minimum(corrected_raw, L ** 2) * (1 + 1e-12)))
    fails = w[exact > stated]
    msg = (f"The corrected bound holds at every w* drawn{'' if holds else ' (it does not!)'}, "
           f"but it is below the trivial bound L² only for w* < {w_max:.3g} at N = {N}; the "
           f"stated bound fails from w* = {fails[0]:.3g} on.")
    return D.Drawing("corrected", fig, {"w": w, "exact": exact, "stated": stated,
                                        "corrected": np.minimum(corrected_raw, L ** 2),
                                        "corrected_raw": corrected_raw, "w_max": w_max,
                                        "holds": holds}, message=msg)


#: the figures only the lecture draws, by kind
FIGURES = {"imh": _imh, "map": _map, "crossings": _crossings, "corrected": _corrected}


def slides(fmt: str = "png"):
    """``[(file name, kind, options, minutes, notes, rests_on)]`` of the lecture."""
    return [(f"{stem}.{fmt}", kind, opts, minutes, notes, rests)
            for stem, kind, opts, minutes, notes, rests in SLIDES]


def _cite(ref: str) -> str:
    kind, _, what = ref.partition(":")
    if kind == "verdict":
        st = D.claim_status(what)["status"]
        return f"`python -m verify {what}`: {st}"
    if kind == "audit":
        status = D._audit_json()["steps"][what]["status"]
        return f"`python -m verify audit {what.split('.')[0]}`, step `{what}`: {status}"
    return f"`python -m verify {what}` (teaching document)"


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
    drawn = []
    for name, kind, opts, minutes, notes, rests in slides(fmt):
        d = D.draw(kind, os.path.join(out_dir, name), dpi=dpi, **dict(opts))
        drawn.append({"file": name, "kind": kind, "message": d.message, "minutes": minutes,
                      "notes": notes, "rests_on": rests,
                      "title": d.fig.get_suptitle().replace("\n", " ")})
        d.fig.clear()
    path = os.path.join(out_dir, "outline.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(outline(drawn))
    return {"figures": drawn, "outline": "outline.md"}
