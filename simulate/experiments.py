"""The run loops of the paper's simulations: 001 §6.2, Figures 1 and 2.

Kim, Oh, Gardner, Dieng & Kim, "Markov Chain Score Ascent", NeurIPS 2022, §6.2; the
settings follow the captions, with the authors' code (KLpqVI.jl, as summarised in
methods.md §8) where the captions are silent.  Both are parameters of
:class:`Figure1Settings` / :class:`Figure2Settings`.

Figure 1 (:func:`figure1_cell`)
    One MCSA run per (scheme, N), ``replicates`` independent replicate runs vectorised
    together, Adam(0.01).  Every ``every`` iterations a *measurement population* of
    ``chains`` independent copies of the scheme's chain state (per replicate; started
    N(0, I) as in the authors' code, or from q, and persisting across measurements)
    takes one transition under the current lambda; the variance is the trace of the
    empirical covariance of their gradient estimates (methods.md §6).  Logged beside it,
    all in closed form for the Gaussian pair at the current lambda: w*, chi2(pi||q),
    KL(pi||q), mu = E_pi s (so grad KL = -mu), E_q||s||^2, E_pi||s||^2; and from the
    population: ||s(z_{t-1})||^2 (mean), the bias ||mean g - grad KL|| with its noise
    floor sqrt(V/chains), JSA's C_cov, the rejection rate.  The main run's window since
    the last measurement gives the draft's diagnostics (:mod:`simulate.diagnostics`).

Figure 2 (:func:`figure2_cell`)
    One cell per (scheme, optimizer): every step size and replicate is one row of one
    vectorised run (per-row step sizes).  A row whose lambda stops being finite has
    diverged; it stays in the table (final KL = inf) and counts as not converged.

Randomness: every cell has its own seed, spawned by ``SeedSequence(seed,
spawn_key=(figure, cell...))``; inside a cell each replicate row (and each measurement
chain) is a unit of :class:`simulate.rng.Streams`, so a row's numbers depend only on
the seed and its indices, not on the batch or the number of workers.

Results are tidy rows (dicts); :func:`run_figure` runs every cell as a task of the sweep
engine (:func:`simulate.sweep.execute`: local processes or a Dask cluster, with the sweep's
checksummed on-disk cache, one entry per cell, so an interrupted run resumes).
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from mcsa_cli import dumps, jsonable, untag
from mcsa_cli.store import digest

from . import divergences as dv, optim
from .families import MeanFieldGaussian
from .kernels import ChainState
from .rng import Streams
from .schemes import SCHEMES, Scheme, kl_inclusive_meanfield
from .targets import wishart_target

try:  # the sweep helper's diagnostics (rejection rate, R-hat, ESS via arviz-stats)
    from .diagnostics import Window
except ImportError:  # pragma: no cover - before it lands
    Window = None  # type: ignore[misc, assignment]

OPTIMIZER_NAMES = ("sgd", "momentum", "nesterov", "adam")


# ============================================================================ settings
@dataclass(frozen=True)
class Figure1Settings:
    """Settings of Kim et al. (2022) Figure 1.

    'The target distribution is a 50-D multivariate Gaussian with nu = 500.
    ... N in [2^3, ..., 2^7] ... 8 replications'; Adam(0.01), T = 10^4 and 512 chains every
    ~200 iterations from §6.2 and the authors' code.
    """

    D: int = 50
    nu: int = 500
    Ns: tuple = (8, 16, 32, 64, 128)
    replicates: int = 8
    iters: int = 10_000
    every: int = 200
    chains: int = 512
    lr: float = 0.01
    optimizer: str = "adam"
    schemes: tuple = SCHEMES
    measure_start: str = "normal"  # the authors' code: N(0, I); or "q": draws of q(lambda_0)
    target_seed: int = 0
    seed: int = 0
    # diagnostics: R-hat / ESS from at most this many draws of the window since the last measurement
    draws: int = 20


#: the step sizes of Figure 2, logspace(-3, 0, 20), as the stored full run used them (to the last
#: bit)
LRS_20 = (0.001, 0.0014384498882876629, 0.00206913808111479, 0.002976351441631319,
          0.004281332398719396,
          0.006158482110660267, 0.008858667904100823, 0.012742749857031334, 0.018329807108324356,
          0.026366508987303583,
          0.0379269019073225, 0.05455594781168517, 0.07847599703514611, 0.11288378916846883,
          0.1623776739188721,
          0.23357214690901212, 0.3359818286283781, 0.4832930238571752, 0.6951927961775606,
          1.0)
#: logspace(-3, 0, 6), the quick run's step sizes
LRS_6 = (0.001, 0.003981071705534973, 0.015848931924611134, 0.0630957344480193, 0.25118864315095796,
         1.0)


@dataclass(frozen=True)
class Figure2Settings:
    """Settings of Kim et al. (2022) Figure 2.

    'The final KL is obtained at the 10^4th iteration. The target distribution
    is a 100-D Gaussian with nu = 500 ... 20 replications'; N = 10 and the step sizes
    logspace(-3, 0, 20) from the authors' code; Momentum/Nesterov 0.9, Adam (0.9, 0.999).
    """

    D: int = 100
    nu: int = 500
    N: int = 10
    replicates: int = 20
    iters: int = 10_000
    #: logspace(-3, 0, 20) written out: NumPy's logspace can differ in the last bit between
    #: versions, and a step size is part of a run's seed-for-seed reproducibility (these are the
    #: stored run's values)
    lrs: tuple = LRS_20
    optimizers: tuple = OPTIMIZER_NAMES
    schemes: tuple = SCHEMES
    target_seed: int = 0
    seed: int = 0
    draws: int = 50
    window: int = 1000  # diagnostics over the last `window` iterations (at most `draws` draws)


FIG1_QUICK = Figure1Settings(D=10, Ns=(4, 16, 64), replicates=4, iters=600, every=100, chains=128)
FIG1_FULL = Figure1Settings()
FIG2_QUICK = Figure2Settings(D=10, replicates=4, iters=400, lrs=LRS_6,
                             window=100)
FIG2_FULL = Figure2Settings()


def cell_seed(seed: int, *key) -> int:
    """Return a 64-bit seed for one cell, spawned from ``seed`` by the cell's key."""
    ints = [int.from_bytes(hashlib.sha256(str(k).encode()).digest()[:4], "little") for k in key]
    ss = np.random.SeedSequence(int(seed), spawn_key=tuple(ints))
    return int(ss.generate_state(1, np.uint64)[0])




# ============================================================================ closed forms
def expected_sq_score_pi(family: MeanFieldGaussian, lam, mean, var) -> np.ndarray:
    """E_pi ||s||^2 for the mean-field Gaussian score and a target with marginals (mean, var).

    With a = z_d - m_d ~ N(delta, v) under pi: s_m = a/sigma^2, s_omega = (a^2/sigma^2 - 1)
    sigma'/sigma, E a^2 = v + delta^2, E a^4 = delta^4 + 6 delta^2 v + 3 v^2.
    """
    m, sig, dsig = family.unpack(lam)
    d = mean - m
    a2 = var + d * d
    a4 = d ** 4 + 6 * d * d * var + 3 * var * var
    s2 = sig * sig
    return (a2 / s2 ** 2 + (dsig / sig) ** 2 * (a4 / s2 ** 2 - 2 * a2 / s2 + 1.0)).sum(-1)


def kl_min_meanfield(target) -> float:
    """Return the minimum over mean-field Gaussians q of KL(pi||q).

    It is (1/2) [sum_d log Sigma_dd - log det Sigma] (moment matching: m = mu,
    sigma_d^2 = Sigma_dd).
    """
    logdet = 2 * np.log(np.diag(target.chol)).sum()
    return float(0.5 * (np.log(np.diag(target.cov)).sum() - logdet))


def pair_state(target, family, lam) -> dict:
    """Closed-form quantities of the Gaussian pair (pi, q(lam)) for one row ``lam (P,)``."""
    m, var = family.mean_cov(lam)
    lw = dv.log_w_star(target.mean, target.cov, m, var)
    mu = family.expected_score_gaussian(lam, target.mean, target.marginal_var())
    return {"log_w_star": lw, "w_star": math.exp(lw) if lw < 709 else math.inf,
            "r_w": 1.0 - math.exp(-lw) if math.isfinite(lw) else 1.0,
            "chi2": dv.chi2(target.mean, target.cov, m, var),
            "kl": dv.kl_inclusive(target.mean, target.cov, m, var),
            "mu_norm": float(np.linalg.norm(mu)), "mu": mu,
            "eq_s2": float(family.expected_sq_score(lam)),
            "epi_s2": float(expected_sq_score_pi(family, lam, target.mean, target.marginal_var()))}


# ============================================================================ Figure 1
def _measure(scheme: Scheme, lam: np.ndarray, pop: ChainState, streams: Streams,
             pair: dict) -> tuple[ChainState, dict]:
    """One measurement: every chain of the population takes one transition under ``lam``."""
    family = scheme.family
    P = pop.logp.shape[0]
    lam_r = np.broadcast_to(lam, (P, lam.size))
    s_prev = family.score(lam_r, pop.position)  # (P, C, 2D)
    s_prev2 = float(np.einsum("pcq,pcq->", s_prev, s_prev) / (P * s_prev.shape[1]))
    new, info = scheme.estimate(lam_r, pop, streams)
    G = info.grad
    gbar = G.mean(0)
    dev = G - gbar
    dsq = np.einsum("pq,pq->p", dev, dev) * (P / (P - 1))
    V = float(dsq.mean())
    b = gbar + pair["mu"]  # E g - grad KL, grad KL = -mu
    out = {"variance": V, "variance_se": float(dsq.std(ddof=1) / math.sqrt(P)),
           "bias": float(np.linalg.norm(b)), "bias_floor": math.sqrt(V / P), "s_prev2": s_prev2,
           "rejection": float(np.mean(info.rejection)), "c_cov": math.nan, "diag_var": math.nan,
           "diag_var_se": math.nan}
    if scheme.name == "jsa":  # C_cov = V - (1/N^2) sum_n tr Var(s_n) (001 Theorem 3)
        N = scheme.N
        S = family.score(lam_r, info.states)  # (P, N, 2D)
        Sd = S - S.mean(0)
        d_i = np.einsum("pnq,pnq->p", Sd, Sd) * (P / (P - 1)) / N ** 2
        out.update(diag_var=float(d_i.mean()), diag_var_se=float(d_i.std(ddof=1) / math.sqrt(P)),
                   c_cov=V - float(d_i.mean()))
    return new, out


def figure1_cell(st: Figure1Settings, scheme_name: str, N: int, progress=None) -> list[dict]:
    """Figure 1 rows of one (scheme, N): one row per (replicate, measurement iteration)."""
    t0 = time.perf_counter()
    target = wishart_target(st.D, st.nu, seed=st.target_seed)
    family = MeanFieldGaussian(st.D)
    scheme = Scheme(scheme_name, target, family, int(N), optim.make(st.optimizer, st.lr))
    seed = cell_seed(st.seed, "figure1", scheme_name, int(N))
    R, C, P, D = st.replicates, scheme.n_chains, st.chains, st.D
    state = scheme.init(seed=seed, replicates=R)
    # measurement populations: replicate r owns units [r P, (r+1) P) of its own seed
    mseed = cell_seed(st.seed, "figure1-measure", scheme_name, int(N))
    mstreams = [Streams(mseed, P, block=1, first_unit=r * P) for r in range(R)]
    pops = []
    for r in range(R):
        eps = mstreams[r].take("normal/population-init", (C, D))
        if st.measure_start == "q":
            pos = family.sample(np.broadcast_to(state.lam[r], (P, family.n_params)), {"eps": eps})
        else:
            pos = eps.copy()
        pops.append(ChainState(pos, target.logpdf(pos)))
    window = (Window(scheme.n_chains > 1, span=st.every,
                     max_draws=st.draws) if Window is not None else None)
    rows = []

    def measure(t):
        diag = window.summary() if (window is not None and t > 0) else {}
        for r in range(R):
            lam = state.lam[r]
            row = {"figure": "figure1", "scheme": scheme_name, "N": int(N), "replicate": r, "t": t}
            if not np.all(np.isfinite(lam)):
                rows.append({**row, "diverged": True})
                continue
            pair = pair_state(target, family, lam)
            pops[r], m = _measure(scheme, lam, pops[r], mstreams[r], pair)
            row.update({k: v for k, v in pair.items() if k != "mu"}, **m, diverged=False)
            for k in ("r", "rhat_z", "ess_z", "rhat_lambda"):
                row["diag_" + k] = float(diag[k][r]) if k in diag else math.nan
            rows.append(row)

    with np.errstate(all="ignore"):
        measure(0)
        for t in range(1, st.iters + 1):
            state, info = scheme.step(state)
            if window is not None:
                window.add(state.chains.logp, state.lam, info.rejection, info.grad)
            if t % st.every == 0 or t == st.iters:
                measure(t)
                if progress is not None:
                    progress(f"figure1 {scheme_name} N={N}: t={t}/{st.iters}")
    wall = time.perf_counter() - t0
    for row in rows:
        row["cell_wall_s"] = wall
    return rows


# ============================================================================ Figure 2
def figure2_cell(st: Figure2Settings, scheme_name: str, optimizer: str,
                 progress=None) -> list[dict]:
    """Figure 2 rows of one (scheme, optimizer): one row per (step size, replicate)."""
    t0 = time.perf_counter()
    target = wishart_target(st.D, st.nu, seed=st.target_seed)
    family = MeanFieldGaussian(st.D)
    lrs = np.repeat(np.asarray(st.lrs, float), st.replicates)  # row = i_lr * replicates + rep
    scheme = Scheme(scheme_name, target, family, st.N, optim.make(optimizer, lrs))
    seed = cell_seed(st.seed, "figure2", scheme_name, optimizer)
    state = scheme.init(seed=seed, replicates=lrs.size)
    R = lrs.size
    diverged_at = np.zeros(R, dtype=int)  # 0: never
    window = (Window(scheme.n_chains > 1, span=st.window,
                     max_draws=st.draws) if Window is not None else None)
    with np.errstate(all="ignore"):
        for t in range(1, st.iters + 1):
            state, info = scheme.step(state)
            if t % 50 == 0 or t == st.iters:
                bad = ~np.isfinite(state.lam).all(1) & (diverged_at == 0)
                diverged_at[bad] = t
            if window is not None and t > st.iters - st.window:
                window.add(state.chains.logp, state.lam, info.rejection, info.grad)
            if progress is not None and t % 500 == 0:
                progress(f"figure2 {scheme_name} {optimizer}: t={t}/{st.iters}")
        kl = kl_inclusive_meanfield(target, family, state.lam)
    diag = window.summary() if window is not None else {}
    # R-hat on lambda across the replicates of one step size, not across step sizes
    if window is not None:
        from .diagnostics import rhat

        lam_draws = np.stack([d[1] for d in window._draws], axis=1)  # (R, draws, P)
        per_lr = lam_draws.reshape(len(st.lrs), st.replicates, *lam_draws.shape[1:])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows (diverged) stay NaN
            rl = np.nanmax(np.stack([rhat(g, 0, 1) for g in per_lr]),
                           axis=1) if st.replicates > 1 else \
                np.full(len(st.lrs), np.nan)
        diag["rhat_lambda"] = np.repeat(rl, st.replicates)
    kl_min = kl_min_meanfield(target)
    wall = time.perf_counter() - t0
    rows = []
    for i in range(R):
        finite = bool(np.isfinite(kl[i])) and diverged_at[i] == 0
        # lambda finite but q degenerate (sigma -> 0): KL = inf
        if not finite and diverged_at[i] == 0:
            diverged_at[i] = st.iters
        rows.append({"figure": "figure2", "scheme": scheme_name, "optimizer": optimizer,
                     "lr": float(lrs[i]),
                     "replicate": int(i % st.replicates), "N": st.N, "t": st.iters,
                     "final_kl": float(kl[i]) if finite else math.inf, "diverged": not finite,
                     "diverged_at": int(diverged_at[i]), "kl_min": kl_min,
                     **{"diag_" + k: (float(diag[k][i]) if k in diag else math.nan)
                        for k in ("r", "rhat_z", "ess_z", "rhat_lambda")},
                     "cell_wall_s": wall})
    return rows


# ============================================================================ all cells, cache
def cells(figure: str, st) -> list[tuple]:
    if figure == "figure1":
        return [(s, int(N)) for s in st.schemes for N in st.Ns]
    return [(s, o) for s in st.schemes for o in st.optimizers]


def _cell_fn(figure):
    return figure1_cell if figure == "figure1" else figure2_cell


def _json_safe(rows):
    """Return a cell's rows as a cache payload, non-finite floats tagged (see ``untag``)."""
    return jsonable(rows, nonfinite="tag")


def _figure_task(args: list, progress=None) -> list:
    """Compute the rows of each (figure, settings, cell): :func:`run_figure`'s task body.

    Top-level, so that it pickles.
    """
    return [_cell_fn(fig)(st, *c, progress=progress) for fig, st, c in args]


def cell_key(figure: str, st, cell: tuple) -> str:
    """Return the cache key (and file name) of one figure cell.

    The key names the figure and the cell, with SHA-256 of the settings, the cell, the
    simulators' code digest and the cache format.

    Parameters
    ----------
    figure : {"figure1", "figure2"}
    st : Figure1Settings or Figure2Settings
    cell : tuple
        ``(scheme, N)`` or ``(scheme, optimizer)``.

    Returns
    -------
    str
    """
    from .sweep import CACHE_FORMAT, _version

    text = dumps({"figure": figure, "settings": asdict(st), "cell": list(cell)}, sort_keys=True)
    h = digest(f"{text}|{_version()}|{CACHE_FORMAT}")
    return f"{figure}-{'-'.join(map(str, cell))}-{h[:32]}"


def run_figure(figure: str, st, cache_dir: str | Path | None = None, progress=None,
               workers: int = 1,
               first: tuple = (), cached_only: bool = False, scheduler: str | None = None,
               executor=None,
               threads: int = 1) -> list[dict]:
    """Every cell of a figure, run by the sweep engine (:func:`simulate.sweep.execute`).

    Each cell is one task; with ``cache_dir`` it is stored as ``<cache_dir>/<cell_key>.json``
    (checksummed, written atomically; a corrupt entry is recomputed), so an interrupted run
    resumes.  ``workers > 1`` runs cells in spawned local processes (``threads`` BLAS threads
    each), ``scheduler`` on a Dask cluster, ``executor`` on any ``concurrent.futures``
    executor; cells are independent and seeded by their key (:func:`cell_seed`), so the rows
    do not depend on any of these.  ``first``: cells (or optimizer / scheme names) to compute
    before the others.  ``cached_only``: return the rows of the cells already in the cache,
    compute nothing.  ``progress(message)``: status messages (cells done; in this process
    also the iterations of the running cell).
    """
    from functools import partial

    from .sweep import execute

    all_cells = cells(figure, st)

    def rank(c):
        return next((i for i, f in enumerate(first) if f == c or f in c), len(first))

    order = sorted(all_cells, key=rank)  # stable: the figure's own order within a rank
    results, _ = execute(
        [(figure, st, c) for c in order], _figure_task,
        keys=[cell_key(figure, st, c) for c in order],
        cache=cache_dir, workers=workers, scheduler=scheduler, executor=executor, threads=threads,
        progress=None if progress is None else (lambda done,
                                                total: progress(
                                                    f"{figure}: {done}/{total} cells done")),
        inline=None if progress is None else partial(_figure_task, progress=progress),
        encode=_json_safe, load=lambda i, p: untag(p) if _rows_ok(p) else None,
        cached_only=cached_only, desc=figure, unit="cell")
    out = {c: r for c, r in zip(order, results) if r is not None}
    return [r for c in all_cells if c in out for r in out[c]]


def _rows_ok(p) -> bool:
    return isinstance(p, list) and all(isinstance(r, dict) for r in p)


__all__ = ["Figure1Settings", "Figure2Settings", "FIG1_QUICK", "FIG1_FULL", "FIG2_QUICK",
           "FIG2_FULL",
           "figure1_cell", "figure2_cell", "run_figure", "cell_key", "pair_state",
           "kl_min_meanfield",
           "expected_sq_score_pi", "cell_seed"]
