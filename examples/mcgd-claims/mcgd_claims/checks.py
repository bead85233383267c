"""The verification of ``mcgd_average_bias``: what the package's ``register(registry)`` hook
(entry-point group ``mcsa_verify.claims``, :func:`mcgd_claims.register`) registers, exactly as
the toolkit's own documents do.  Importing this module registers nothing:

* :data:`VERIFICATION`, a :class:`verify.model.Verification`: what is measured, the quick and
  full grids, the run function producing :class:`verify.model.CheckResult` records, the readings;
* :func:`search_space` (described by :data:`SPACE`) for ``python -m verify search``.

Empirical side (:mod:`mcgd_claims.chains`)
------------------------------------------
Random finite chains with rational transition matrices, six families from easy to extreme
(dense, sparse with transient states, reversible Metropolis chains with a state of tiny
mass, rank-one chains with delta = 0 where the stated form is attained up to 1 - pi(x),
nearly reducible chains with delta = 1 - 10^-6, two-state chains).  For each chain:
``pi`` and ``delta`` exactly (rational arithmetic); for each n (up to 10^5: a chain that
attains its bound with equality is decided only by an exact sum, which costs seconds at 10^5
and minutes beyond) ``S = sum_t P^t`` by binary powering with a rigorous float error bound.

* ``bias``: the largest bias over starts x and over test functions with ``max|f| <= 1``,
  ``max_x ||S(x,.)/n - pi||_1`` (attained by ``f = sign(S(x,.)/n - pi)``), against the stated
  form at ``||f|| = 1``; the same with ``osc(f) <= 1`` (half of it) against the explicit
  form; and for one random f per chain, ``max_x |(S f)(x)/n - pi(f)|`` against both forms
  at that f's ``max|f|`` and ``osc(f)``.
* ``tv``: ``d(t) = max_x ||P^t(x,.) - pi||_TV`` against ``delta^t``.
* Monte Carlo: R independent chains from the worst start with the worst f estimate
  ``E_x[(1/n) sum_t f(X_t)] - pi(f)`` (against the stated form, and against the exact
  value: a cross-check of the exact computation, not primary).

Error bounds: each empirical value carries the float error bound of :mod:`mcgd_claims.chains`
as its ``error``, and a ``refine`` that computes it exactly (rational arithmetic, n up to
:data:`chains.EXACT_N`) when the float enclosure cannot decide, as where a bound is attained
with equality; the bound is enclosed from its formula by the toolkit at the exact delta, and
each check is decided on the two enclosures (docs/methods.md, validated numerics).

Readings: "the time average along the chain started at x" averages ``X_0..X_{n-1}`` or
``X_1..X_n``; every bias check is made under both.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from verify.model import CheckResult, Grid, Reading, Verification
from verify.registry import bound_value

from . import chains as C
from .formulas import CLAIM

QUICK = dict(kinds=list(C.KINDS), m=[3, 6], chains=1, n=[1, 2, 5, 20, 100, 10 ** 4, 10 ** 5],
             t=[0, 1, 2, 5, 20, 100], mc_kinds=["metropolis", "two_state"], mc_n=[1, 5, 25], R=4000)
FULL = dict(kinds=list(C.KINDS), m=[2, 3, 4, 6, 8], chains=3,
            n=[1, 2, 3, 5, 10, 20, 50, 100, 1000, 10 ** 4, 10 ** 5],
            t=[0, 1, 2, 3, 5, 10, 20, 50, 100, 1000], mc_kinds=["metropolis", "two_state"],
            mc_n=[1, 2, 5, 10, 25, 50], R=20000)


def _scalar(v):
    return v[0] if isinstance(v, (list, tuple)) else v


def _exact(P, pi, what, n, first, f, bits):
    """A check's ``refine``: its quantity exactly, as a point enclosure (any ``bits``), asked only
    when the float enclosure cannot decide (docs/own-claim.md): ``what`` is "tv" (d(n)), "bias"
    (the worst f), "half" (the worst f with osc = 1) or "f" (the random f).  Beyond
    :data:`chains.EXACT_N` nothing sharper is computed (the check stays undecided)."""
    from bounds.enclosure import Enclosure

    if n > C.EXACT_N:
        return None
    if what == "tv":
        return Enclosure.of(C.tv_exact(P, n, pi))
    _, S = C.window_exact(P, n, first)
    if what == "f":
        return Enclosure.of(C.function_bias_exact(S, n, pi, f))
    b = C.worst_bias_exact(S, n, pi)
    return Enclosure.of(b / 2 if what == "half" else b)


def _instances(grid, seed):
    """``(kind, m, i, P, pi, delta)`` for every chain of the grid (two_state: m = 2, once)."""
    for kind in grid["kinds"]:
        for m in ([2] if kind == "two_state" else grid["m"]):
            for i in range(int(_scalar(grid["chains"]))):
                P = C.make_chain(kind, m, C.generator(seed, "chain", kind, m, i))
                yield kind, m, i, P, C.stationary(P), C.dobrushin(P)  # delta exact


def run(grid, seed=0, progress=None):
    out = []
    for kind, m, i, P, pi, delta in _instances(grid, seed):
        if progress is not None:
            progress(f"{CLAIM}: {kind} m={m} #{i}")
        d = float(delta)  # shown; the bounds are evaluated at the exact delta
        Pf = C.as_float(P)
        f = C.generator(seed, "f", kind, m, i).uniform(-1.0, 1.0, m)
        fs, fo = float(np.max(np.abs(f))), float(np.max(f) - np.min(f))
        base = {"kind": kind, "states": m, "chain": i, "delta": d}
        for window in C.WINDOWS:
            first = C.WINDOWS.index(window)
            for n in grid["n"]:
                _, S, _, eS = C.window_sum(Pf, n, first)
                b, x, err = C.worst_bias(S, eS, n, pi)
                bf, xf, errf = C.function_bias(S, eS, n, pi, f)
                rows = [("bias", "stated", b, err, x, {"f_sup": 1.0}, "worst f with max|f| = 1",
                         "bias"),
                        ("bias", "explicit", b / 2, err / 2, x, {"f_osc": 1.0},
                         "worst f with osc(f) = 1", "half"),
                        ("bias (random f)", "stated", bf, errf, xf, {"f_sup": fs}, "one random f",
                         "f"),
                        ("bias (random f)", "explicit", bf, errf, xf, {"f_osc": fo},
                         "one random f", "f")]
                for q, form, emp, e, xs, fp, what, how in rows:
                    # fs and fo are doubles, exact as binary fractions; delta is exact
                    bound = bound_value(CLAIM, "bias", form, n=n, delta=delta, **fp)
                    out.append(CheckResult(
                        q, form, {**base, "window": window, "n": n, "x": xs, **fp}, emp, bound,
                        "exact", error=e,
                        refine=partial(_exact, P, pi, how, n, first, tuple(f)),
                        primary=form == "stated", reading="t = " + window,
                        note=f"{what}; exact pi and delta = {d:.6g}; sum of P^t by binary powering "
                             f"(float error <= {e:.2g})"))
        for t in grid["t"]:
            A, _, eA, _ = C.window_sum(Pf, t)
            tv, x, err = C.tv_distance(A, eA, pi)
            bound = bound_value(CLAIM, "tv", "stated", delta=delta, t=t)
            out.append(CheckResult(
                "tv", "stated", {**base, "t": t, "x": x}, tv, bound, "exact",
                error=err, refine=partial(_exact, P, pi, "tv", t, 0, None),
                note=f"max_x ||P^t(x,.) - pi||_TV from P^t by repeated squaring (float error <= "
                     f"{err:.2g}; exact where that cannot decide)"))
        if kind in grid["mc_kinds"] and m == min(grid["m"] if kind != "two_state"
                                                 else [2]) and i == 0:
            out += _monte_carlo(grid, seed, kind, m, Pf, pi, delta, base)
    return out


def _monte_carlo(grid, seed, kind, m, Pf, pi, delta, base):
    out = []
    R = int(_scalar(grid["R"]))
    for window in C.WINDOWS:
        first = C.WINDOWS.index(window)
        for n in grid["mc_n"]:
            _, S, _, _ = C.window_sum(Pf, n, first)
            _, x, _ = C.worst_bias(S, 0.0, n, pi)
            pif = np.array([float(p) for p in pi])
            f = np.sign(S[x] / n - pif)  # the worst test function at the worst start
            exact = float(S[x] @ f / n - pif @ f)
            mean, se = C.simulate_average(Pf, x, f, n, R,
                                          C.generator(seed, "mc", kind, m, n, window), first)
            emp = mean - float(pif @ f)
            bound = bound_value(CLAIM, "bias", "stated", n=n, delta=delta, f_sup=1.0)
            params = {**base, "window": window, "n": n, "x": x, "f_sup": 1.0, "R": R}
            out.append(CheckResult("bias", "stated", params, emp, bound, "monte-carlo", stderr=se,
                                   reading="t = " + window,
                                   note=f"{R} simulated chains from x = {x}, worst f; exact value "
                                        f"{exact:.6g}"))
            out.append(CheckResult("bias (simulated vs exact)", "exact value", params, emp, exact,
                                   "monte-carlo",
                                   relation="=", stderr=se, primary=False, reading="t = " + window,
                                   note="the simulation agrees with the exact computation (a "
                                        "cross-check)"))
    return out


def check_overrides(grid, overrides):
    """One line saying why overridden grid values are refused, or None."""
    for key in ("R", "chains"):
        if len(overrides.get(key, [0])) > 1:
            return f"--{key} takes one value"
    if min(overrides.get("m", [2])) < 2:
        return "--m: a chain needs at least 2 states"
    return None


def _fmt_delta(d: float) -> str:
    return f"1 - {1 - d:.2g}" if d > 0.999 else f"{d:.3g}"


def plot(report, path, dpi=130):
    """The claim's own figure (``Verification.plot``): the worst bias against n with the stated
    bound for one chain of each family; every primary check's empirical/bound ratio; d(t)
    against delta^t.  Violated checks (e.g. under ``--bound-scale``) are red crosses."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from verify.model import VIOLATED

    colors = dict(zip(C.KINDS, matplotlib.colormaps["tab10"].colors))

    def first_chain(c):
        return c.params["chain"] == 0 and (c.params["kind"] == "two_state" or c.params["states"]
                                           == min(
            x.params["states"] for x in report.checks if x.params["kind"] == c.params["kind"]))

    fig = Figure(figsize=(15, 5), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2, ax3 = fig.subplots(1, 3)
    worst = [c for c in report.checks if c.quantity == "bias" and c.form == "stated" and c.method
             == "exact"
             and c.params["window"] == "0..n-1" and first_chain(c)]
    for kind in C.KINDS:
        cs = sorted((c for c in worst if c.params["kind"] == kind), key=lambda c: c.params["n"])
        if cs:
            n = [c.params["n"] for c in cs]
            ax1.loglog(n, [c.scaled_bound for c in cs], "-", color=colors[kind], lw=1.2)
            ax1.loglog(n, [c.empirical for c in cs], "o", color=colors[kind], ms=4,
                       label=f"{kind} (delta = {_fmt_delta(cs[0].params['delta'])})")
    ax1.set(xlabel="n (terms averaged)", ylabel="worst bias, max|f| = 1",
            title="bias (dots) and 2/(n(1 - delta)) (lines), t = 0..n-1")
    ax1.legend(fontsize=8)
    prim = [c for c in report.checks if c.primary and c.quantity.startswith("bias")
            and c.scaled_bound > 0]
    for kind in C.KINDS:
        cs = [c for c in prim if c.params["kind"] == kind]
        ax2.semilogx([c.params["n"] for c in cs], [c.empirical / c.scaled_bound for c in cs], ".",
                     color=colors[kind], alpha=0.6, label=kind)
    ax2.axhline(1.0, color="k", lw=1)
    ax2.set(xlabel="n", ylabel="empirical / bound", title="every primary bias check (<= 1: holds)")
    tv = [c for c in report.checks if c.quantity == "tv" and first_chain(c)]
    for kind in C.KINDS:
        cs = sorted((c for c in tv if c.params["kind"] == kind), key=lambda c: c.params["t"])
        if cs:
            t = [c.params["t"] for c in cs]
            ax3.semilogy(t, [max(c.scaled_bound, 1e-300) for c in cs], "-", color=colors[kind],
                         lw=1.2)
            # above the float resolution: the enclosure excludes 0
            seen = [c for c in cs if c.lhs is None or c.lhs.sign() == 1]
            ax3.semilogy([c.params["t"] for c in seen], [c.empirical for c in seen], "o",
                         color=colors[kind], ms=4,
                         label=kind)
    ax3.set(xlabel="t", ylabel="d(t) (where above the float resolution)", ylim=(1e-12, 2),
            title="d(t) (dots) and delta^t (lines)")
    bad = [c for c in report.checks if c.verdict == VIOLATED and c.primary]
    for ax, pick in ((ax1, worst), (ax2, prim)):
        xs = [c for c in bad if c in pick]
        if xs:
            ys = [c.empirical if ax is ax1 else c.empirical / c.scaled_bound for c in xs]
            ax.plot([c.params["n"] for c in xs], ys, "x", color="red", ms=9, mew=2,
                    label="violated")
    for ax in (ax1, ax2, ax3):
        ax.grid(alpha=0.3)
    scale = f", bound scale {report.bound_scale:g}" if report.bound_scale != 1 else ""
    fig.suptitle(f"Time-average bias (Dobrushin): {report.verdict}{scale}\n"
                 "Levin & Peres (2017), §4.4, Lemmas 4.10-4.11, summed over t")
    fig.savefig(path, dpi=dpi)
    return path


READINGS = (
    Reading("t = 0..n-1", "the time average of f along the chain started at x",
            "average f(X_0), ..., f(X_{n-1}): the start counts (the form the bound is derived for)",
            axis="averaging window"),
    Reading("t = 1..n", "the time average of f along the chain started at x",
            "average f(X_1), ..., f(X_n): the first step is taken before averaging",
            axis="averaging window"),
)

VERIFICATION = Verification(
    CLAIM,
    measures="worst bias of the time average over starts x and f; d(t) = max_x ||P^t(x,.) - "
             "pi||_TV",
    targets="random finite chains: dense, sparse, Metropolis, rank-one, nearly reducible, "
            "two-state",
    method="exact+monte-carlo", forms="stated, explicit",
    grid=Grid(QUICK, FULL), run=run,
    overrides=("kinds", "m", "n", "t", "mc_n", "R", "chains"),
    readings=READINGS, name="Time-average bias (Dobrushin)", plot=plot,
    check_overrides=check_overrides,
)


# ----------------------------------------------------------------------------- search space
SPACE = "chains of 2-5 states, n <= 2000"


def search_space():
    """Integer transition weights 0-50 (zeros allowed: transient and absorbing states), n in
    1..2000, both windows; each instance checks the worst start and worst f against the
    stated and explicit forms and d(n) against delta^n, exactly."""
    from hypothesis import strategies as st

    def chain(m):
        return st.lists(st.lists(st.integers(0, 50), min_size=m, max_size=m).filter(any),
                        min_size=m, max_size=m)

    strategy = st.fixed_dictionaries({"weights": st.integers(2, 5).flatmap(chain),
                                      "n": st.integers(1, 2000),
                                      "window": st.sampled_from(C.WINDOWS)})

    def evaluate(inst):
        P = C.stochastic(inst["weights"])
        delta = C.dobrushin(P)
        if delta == 1:  # the bound says nothing
            return []
        pi, n, first = C.stationary(P), inst["n"], C.WINDOWS.index(inst["window"])
        A, S = C.window_exact(P, n, first)  # n <= 2000: exact rationals, milliseconds
        b = C.worst_bias_exact(S, n, pi)
        rows = []
        for label, emp, form, q, kw in (("bias (stated, worst f)", b, "stated", "bias",
                                         {"n": n, "f_sup": 1.0}),
                                        ("bias (explicit, worst f)", b / 2, "explicit", "bias",
                                         {"n": n, "f_osc": 1.0}),
                                        ("tv d(n)", C.worst_bias_exact(A, 1, pi) / 2, "stated",
                                         "tv", {"t": n})):
            rows.append((label, emp, bound_value(CLAIM, q, form, delta=delta, **kw), "<=", 0.0))
        return rows

    return strategy, evaluate
