"""Command line of the simulators: ``python -m simulate``.

    python -m simulate tv --kernel {imh,cis} --dim D --proposal-scale s [--N n] --steps K
                          [--start worst|typical|quantile:Q] [--json]
    python -m simulate moment --scheme {msc,msc-rb,jsa,pmcsa} --dim D --proposal-scale s --N n
                          [--replicates R] [--family gaussian|student-t [--t-df NU]] [--seed S]
                          [--json]
    python -m simulate run --scheme ... --dim D [--nu NU] --N n --iters T
                          --optimizer {sgd,momentum,nesterov,adam} --lr LR [--seed S] [--json]
    python -m simulate sweep --scheme msc,jsa --optimizer sgd,adam --lr 0.01,0.1 --N 4 --dim 5
                          --iters 50 --replicates 2 [--workers K | --scheduler tcp://HOST:PORT]
                          [--cache DIR] [--out results.csv] [--json]

Every command takes ``--threads K`` (BLAS threads per process; default 1, set by
``python -m simulate`` before NumPy is imported), ``--wide`` (text and tables at full width
instead of fitting the terminal, 100 columns when unknown) and ``--debug`` (tracebacks for
internal errors).  Output paths (``--out``, ``--cache``) are created before any work; a path
that cannot be written is bad input.

Exit statuses: 0 success; 2 bad input (one line on stderr, before any work); 5 a run
diverged (``run``); 70 internal error; 74 an output cannot be written; 130 interrupted.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings

import numpy as np

import mcsa_cli as clikit
from mcsa_cli import UsageError, dumps

PROG = "python -m simulate"
EXIT_OK, EXIT_USAGE, EXIT_DIVERGED = clikit.OK, clikit.BAD_INPUT, clikit.DIVERGED
EXIT_INTERNAL, EXIT_INTERRUPTED = clikit.INTERNAL_ERROR, clikit.INTERRUPTED
EXITS = (
    "exit status: 0 success, 2 bad input (one line on stderr, before any work), 5 a run diverged, "
    "70 internal error, 74 an output cannot be written, 130 interrupted")

#: tv: at most this many k are printed / computed for IMH (log-spaced beyond 100)
TV_MAX_SHOWN = 1000
#: tv --kernel cis: the weight-line recursion costs ~0.25 ms per step
CIS_MAX_STEPS = 100_000
IMH_MAX_STEPS = 10 ** 15  # k is carried as a double: exact integers up to 2^53
SEED_MAX = 2 ** 63


class _Parser(clikit.Parser):
    """The shared parser (errors: one line naming the flag) with --threads, --wide and --debug."""

    def __init__(self, *a, **kw):
        kw.setdefault("epilog", EXITS)
        super().__init__(*a, **kw)
        self.add_argument("--threads", type=_int(1, 256), default=None, metavar="K",
                          help="BLAS threads per process (default 1; python -m simulate sets it "
                               "before NumPy is imported)")
        clikit.add_wide(self)
        self.add_argument("--debug", action="store_true",
                          help="show the traceback of an internal error")

    def error(self, message):
        if message.startswith("unrecognized arguments"):
            message += f"; see `{self.prog} --help`"
        super().error(message)


def _typed(**domain):
    """An argparse ``type`` parsing one value with :func:`mcsa_cli.number` (the kit the
    other two command lines use): exact integers of any size, the domain named in the
    message; argparse puts the flag in front ("--dim: must be an integer >= 1, got 0")."""
    def f(text):
        try:
            return clikit.number("", text, **domain)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix(": ")) from None
    return f


def _int(lo=None, hi=None):
    # the simulators count in floats: integers beyond 2^53 are refused (bounds keeps them exact)
    return _typed(integer=True, lo=lo, hi=hi, limit=None if hi is not None else 2 ** 53,
                  limit_why="the simulators carry counts as doubles")


def _float(lo=None, strict=False, hi=None):
    return _typed(lo=lo, lo_strict=strict, hi=hi)


def _list(conv):
    """A comma-separated list, each item converted by ``conv``."""
    def f(text):
        items = [s.strip() for s in text.split(",")]
        if any(s == "" for s in items):
            raise argparse.ArgumentTypeError(
                f"empty item in the list {text!r}; give comma-separated values")
        return [conv(s) for s in items]
    return f


def _choice_list(choices):
    def f(s):
        if s not in choices:
            raise argparse.ArgumentTypeError(
                f"invalid choice {s!r} (choose from {', '.join(choices)})")
        return s
    return f


def format_w(log_w: float) -> str:
    """w from log w, readable beyond the double range: '1.5e+07' or '10^17609.2'."""
    if not math.isfinite(log_w):
        return "inf" if log_w > 0 else "0"
    if abs(log_w) < 700:
        return f"{math.exp(log_w):.6g}"
    l10 = log_w / math.log(10)
    return f"10^{l10:.1f}" if abs(l10) < 1e12 else f"10^{l10:.6g}"


def decimal_w(log_w: float):
    """w as a JSON value: a float inside the double range, else a decimal string '1.58489e17609'."""
    if abs(log_w) < 700:
        return math.exp(log_w)
    l10 = log_w / math.log(10)
    e = math.floor(l10)
    digits = max(3, 15 - len(str(abs(e))))  # log w carries ~16 significant digits, e uses some
    return f"{10 ** (l10 - e):.{digits}g}e{e}"


def _say(a):
    """print() of text lines fitted to the terminal (``--wide``: as they are)."""
    def say(line: str = "") -> None:
        print(clikit.wrap(line, wide=a.wide))
    return say


def _json_or_say(a, out):
    """Under ``--json``: print ``out`` as strict JSON and return None; else the printer of text
    lines (:func:`_say`).

    Parameters
    ----------
    a : argparse.Namespace
        The parsed flags (``json``, ``wide``).
    out : dict
        The command's result.

    Returns
    -------
    callable or None
    """
    if a.json:
        print(dumps(out))
        return None
    return _say(a)


def _only_with(a, name, attr, default, cond, need):
    if getattr(a, attr) is not default and not cond:
        raise UsageError(f"{name}: only used with {need}")


# ----------------------------------------------------------------------------- tv
def tv_steps_shown(steps: int) -> np.ndarray:
    """k = 1..steps when steps <= TV_MAX_SHOWN, else 1..100 and log-spaced k up to steps."""
    if steps <= TV_MAX_SHOWN:
        return np.arange(1, steps + 1)
    tail = np.round(np.logspace(2, math.log10(steps), TV_MAX_SHOWN - 100)).astype(np.int64)
    return np.unique(np.concatenate([np.arange(1, 101), tail, [steps]]))


def cmd_tv(argv):
    ap = _Parser(prog=f"{PROG} tv", description=(
        "Exact TV(K^k(z, .), pi) for k = 1..K of IMH or CIS (N particles), target N(0, I_D), "
        "proposal N(0, s^2 I_D), by reduction to the importance-weight line (the weight w(z) = "
        "pi(z)/q(z) is itself a Markov chain; IMH through Smith and Tierney's n-step formula, "
        "Smith and Tierney 1996 / Kim et al. 2022 Eqs. (2)-(3); CIS by a Nystrom scheme; see "
        "docs/methods.md). No Monte Carlo. IMH evaluates the "
        f"n-step formula at each k, so any K works; beyond {TV_MAX_SHOWN} steps it reports k = "
        f"1..100 and log-spaced k up to K. CIS iterates the kernel: K <= {CIS_MAX_STEPS}."))
    ap.add_argument("--kernel", choices=("imh", "cis"), required=True)
    ap.add_argument("--dim", type=_int(1), required=True, help="dimension D")
    ap.add_argument("--proposal-scale", type=_float(1, strict=True, hi=1e100), required=True,
                    help="proposal sd s, 1 < s <= 1e100 (w* = s^D; s <= 1 gives w* = inf)")
    ap.add_argument("--N", type=_int(2), default=None,
                    help="CIS particles (current + N-1 proposals); cis only")
    ap.add_argument("--steps", type=_int(1, IMH_MAX_STEPS), required=True,
                    help="K: number of transitions")
    ap.add_argument("--start", default="worst",
                    help="worst (argmax w), typical (= quantile:0.5) or quantile:Q, 0 < Q < 1")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from . import weightline as wl

    if a.kernel == "cis" and a.N is None:
        raise UsageError("--N: --kernel cis needs --N (an integer >= 2)")
    _only_with(a, "--N", "N", None, a.kernel == "cis",
               "--kernel cis (IMH has one proposal per step)")
    if a.kernel == "cis" and a.steps > CIS_MAX_STEPS:
        raise UsageError(
            f"--steps: at most {CIS_MAX_STEPS} for --kernel cis (the weight-line recursion takes "
            f"~0.25 ms per step), got {a.steps}; --kernel imh computes any number of steps")
    try:
        pair = wl.isotropic_pair(a.dim, a.proposal_scale)
        lw0 = wl.start_log_weight(pair, a.start)
    except ValueError as e:
        msg = str(e)
        flag = "--start" if "start" in msg or "quantile" in msg else "--proposal-scale"
        raise UsageError(f"{flag}: {msg}") from None
    ks = tv_steps_shown(a.steps)
    if a.kernel == "imh":
        res = wl.imh_tv(pair, a.steps, lw0, at=None if a.steps <= TV_MAX_SHOWN else ks)
        tv = np.asarray(res.tv)
    else:
        res = wl.cis_tv(pair, a.N, a.steps, lw0)
        tv = np.asarray(res.tv)[ks - 1]
    out = {"kernel": a.kernel, "dim": a.dim, "proposal_scale": a.proposal_scale, "N": a.N,
           "start": a.start,
           "steps": a.steps, "k": ks, "tv": tv, "w_star": decimal_w(res.log_w_star),
           "log_w_star": res.log_w_star,
           "log_w0": res.log_w0, "error_bound": res.error_bound, "method": res.method}
    say = _json_or_say(a, out)
    if say is None:
        return EXIT_OK
    say(f"TV to pi after k steps: {a.kernel.upper()}{' N=' + str(a.N) if a.N else ''}, pi = N(0, "
        f"I_{a.dim}), q = N(0, {a.proposal_scale:g}^2 I), start {a.start}")
    say(f"w* = {format_w(res.log_w_star)} (log w* = {res.log_w_star:.6g}), log w(start) = "
        f"{res.log_w0:.6g}; error bound {res.error_bound:.2g} ({res.method})")
    if a.steps > TV_MAX_SHOWN:
        say(f"({len(ks)} of {a.steps} steps shown: k = 1..100, then log-spaced)")
    print(clikit.table([[str(k), clikit.short(v)] for k, v in zip(ks, tv)], ["k", "TV"],
                       wide=a.wide))
    return EXIT_OK


# ----------------------------------------------------------------------------- moment
def _isotropic_problem(dim, scale, family, t_df):
    from .families import MeanFieldGaussian, StudentT
    from .targets import isotropic

    target = isotropic(dim)
    fam = MeanFieldGaussian(dim) if family == "gaussian" else StudentT(dim, nu=t_df)
    return target, fam, fam.init(0.0, scale)


def _check_moment_size(a):
    from .estimators import CHUNK
    from .sweep import LIMITS, _fmt_seconds

    # conditional_moments' rows per vectorised pass: batch units of CHUNK rows, as many as
    # fit in memory (the estimate does not depend on the batch)
    per_unit = 8 * CHUNK * a.N * a.dim * 12
    batch = int(max(1, min(16, LIMITS["bytes"] // 2 // per_unit)))
    rows = batch * CHUNK
    kept = 8 * a.replicates * 2 * a.dim * 3  # the R gradient estimates and their squares
    if kept > LIMITS["bytes"]:
        raise UsageError(
            f"--replicates: R = {a.replicates} gradient estimates of size 2D = {2 * a.dim} need "
            f"about "
                         f"{kept / 2 ** 30:.3g} GiB; the limit is {LIMITS['bytes'] / 2 ** 30:.3g} "
                         f"GiB "
                         "(lower --replicates)")
    nbytes = 8 * (2 * a.dim ** 2 + rows * a.N * a.dim * 12)
    if nbytes > LIMITS["bytes"]:
        raise UsageError(
            f"--N/--dim: N = {a.N}, D = {a.dim} needs about {nbytes / 2 ** 30:.3g} GiB "
                         f"({rows} transitions at once); the limit is "
                         f"{LIMITS['bytes'] / 2 ** 30:.3g} GiB "
                         "(lower --N or --dim)")
    secs = (a.replicates * a.N * a.dim * (a.dim + 30.0) / LIMITS["ops_per_s"] + a.replicates
            / 4096 * 0.05)
    if secs > LIMITS["seconds_per_run"]:
        raise UsageError(
            f"--replicates: R = {a.replicates} transitions of N = {a.N}, D = {a.dim} would take "
            f"about "
                         f"{_fmt_seconds(secs)}; the limit is "
                         f"{_fmt_seconds(LIMITS['seconds_per_run'])} "
                         "(lower --replicates, --N or --dim)")
    return batch


def cmd_moment(argv):
    ap = _Parser(prog=f"{PROG} moment", description=(
        "Conditional second moment E[||g_t||^2 | F_{t-1}] of a scheme's gradient estimate (Kim et "
        "al. 2022, Theorems 1-4) at a state drawn from pi = N(0, I_D), with q = N(0, s^2 I) "
        "(mean-field Gaussian) or a Student-t of scale s: R independent transitions from the same "
        "state (see docs/methods.md). Prints the estimate +- standard error and its decomposition "
        "variance + ||bias||^2 - 2 bias.mu + ||mu||^2 (and C_cov for JSA)."))
    ap.add_argument("--scheme", choices=("msc", "msc-rb", "jsa", "pmcsa"), required=True)
    ap.add_argument("--dim", type=_int(1), required=True)
    ap.add_argument("--proposal-scale", type=_float(1e-30, hi=1e30), required=True,
                    help="scale s of q, 1e-30 <= s <= 1e30 (beyond, the score's fourth moment "
                         "overflows)")
    ap.add_argument("--N", type=_int(1), required=True,
                    help="particles / chains (msc, msc-rb: >= 2)")
    ap.add_argument("--replicates", type=_int(2), default=4096, help="R transitions (default 4096)")
    ap.add_argument("--family", choices=("gaussian", "student-t"), default="gaussian")
    ap.add_argument("--t-df", type=_float(0, strict=True), default=None,
                    help="Student-t degrees of freedom (default 5; --family student-t only)")
    ap.add_argument("--seed", type=_int(0, SEED_MAX - 1), default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    _only_with(a, "--t-df", "t_df", None, a.family == "student-t", "--family student-t")
    if a.scheme in ("msc", "msc-rb") and a.N < 2:
        raise UsageError(f"--N: {a.scheme} needs N >= 2 particles, got {a.N}")
    batch = _check_moment_size(a)
    from . import divergences as dv
    from .estimators import conditional_moments
    from .kernels import ChainState
    from .rng import unit_generator
    from .schemes import Scheme

    target, fam, lam = _isotropic_problem(a.dim, a.proposal_scale, a.family, a.t_df or 5.0)
    sch = Scheme(a.scheme, target, fam, a.N)
    g = unit_generator(a.seed, 0, "moment-start")
    pos = g.standard_normal((sch.n_chains, a.dim))  # a stationary state: z ~ pi
    state = ChainState(pos[None], target.logpdf(pos)[None])
    with clikit.progress(total=a.replicates, desc=f"{a.scheme} moment", json=a.json,
                         unit="transition") as bar:
        est = conditional_moments(sch, lam, state, R=a.replicates, seed=a.seed + 1, batch=batch,
                                  progress=bar.update)
    info = {"E_q||s||^2": float(fam.expected_sq_score(lam)),
            "L": float(np.max(fam.score_bound(lam)))}
    if a.family == "gaussian":
        d = dv.gaussian_divergences(target, fam, lam)
        info.update({k: v for k, v in d.__dict__.items()})
        info["w_star"] = decimal_w(d.log_w_star) if math.isfinite(d.log_w_star) else math.inf
    out = {"scheme": a.scheme, "dim": a.dim, "proposal_scale": a.proposal_scale, "N": a.N,
           "family": a.family,
           "t_df": (a.t_df or 5.0) if a.family == "student-t" else None, "seed": a.seed,
           **est.as_dict(),
           "problem": info}
    say = _json_or_say(a, out)
    if say is None:
        return EXIT_OK
    say(f"{a.scheme}, N = {a.N}, pi = N(0, I_{a.dim}), q = {a.family} scale {a.proposal_scale:g}, "
        f"R = {a.replicates}, seed {clikit.show_param(a.seed)}")
    print(f"E[||g||^2 | F] = {est.second:.6g} +- {est.second_se:.2g} (1 se)")
    print(f"  variance      {est.variance:.6g} +- {est.variance_se:.2g}")
    print(f"  ||bias||^2    {est.bias_sq:.6g}")
    print(f"  -2 bias.mu    {est.cross:.6g}")
    print(f"  ||mu||^2      {est.mu_sq:.6g}")
    if est.c_cov is not None:
        print(f"  C_cov         {est.c_cov:.6g} +- {est.c_cov_se:.2g}  (part of the variance)")
    print(f"rejection rate {est.rejection:.4g}")
    shown = []
    for k, v in info.items():
        if k == "w_star":
            shown.append(f"w* = {format_w(info['log_w_star'])}")
        elif isinstance(v, float):
            shown.append(f"{k} = {v:.6g}" if math.isfinite(v)
                         else f"{k} = {'inf' if v > 0 else 'nan'}")
    say("problem: " + ", ".join(shown))
    return EXIT_OK


# ----------------------------------------------------------------------------- run
def _run_flags(ap, many: bool):
    """The flags of one run; ``many``: each takes a comma-separated list (sweep)."""
    from .sweep import OPTIMIZERS, SCHEMES

    def L(conv):
        return _list(conv) if many else conv

    s = " (comma-separated list)" if many else ""
    if many:
        ap.add_argument("--scheme", type=_list(_choice_list(SCHEMES)), required=True,
                        help=f"{', '.join(SCHEMES)}{s}")
        ap.add_argument("--optimizer", type=_list(_choice_list(OPTIMIZERS)), required=True,
                        help=f"{', '.join(OPTIMIZERS)}{s}")
    else:
        ap.add_argument("--scheme", choices=SCHEMES, required=True)
        ap.add_argument("--optimizer", choices=OPTIMIZERS, required=True)
    ap.add_argument("--lr", type=L(_float(0, strict=True)), required=True, help=f"step size > 0{s}")
    ap.add_argument("--dim", type=L(_int(1)), required=True, help=f"dimension D{s}")
    ap.add_argument("--nu", type=L(_int(0)), default=[500] if many else 500,
                    help=f"extra Wishart degrees of freedom (default 500){s}")
    ap.add_argument("--N", type=L(_int(1)), required=True,
                    help=f"particles / chains (msc, msc-rb: >= 2){s}")
    ap.add_argument("--iters", type=L(_int(1)), required=True, help=f"iterations T{s}")
    ap.add_argument("--replicates", type=L(_int(1)), default=[1] if many else 1,
                    help=f"independent replicate runs, vectorised (default 1){s}")
    ap.add_argument("--target-seed", type=L(_int(0, SEED_MAX - 1)), default=[0] if many else 0,
                    help=f"seed of the Wishart target{s}")
    ap.add_argument("--record-every", type=_int(1), default=None,
                    help="KL and diagnostics are logged every this many iterations (default "
                         "iters/100)")
    ap.add_argument("--seed", type=_int(0, SEED_MAX - 1), default=0,
                    help="seed; each cell's streams come from SeedSequence(seed, its parameters)")
    ap.add_argument("--json", action="store_true")


DIAG_HELP = (
    "Diagnostics (after the CIS-as-IMH draft, 'Inclusive Variational Inference with Independent "
    "Metropolis-Hastings', paragraph 'Convergence Diagnostics'; explained in `pydoc "
    "simulate.diagnostics`): r = rejection rate (the r-diagnostic); R-hat_z and ESS_z of log pi(z) "
    "over chain states (pMCSA: its N chains; other schemes: the replicate chains); R-hat_lambda "
    "across replicates; computed with ArviZ about 20 times per run (null/NaN at the logged "
    "iterations between), each over the preceding stretch of the run.")


def cmd_run(argv):
    ap = _Parser(prog=f"{PROG} run", description=(
        "Run an MCSA optimisation on the paper's Wishart target (Kim et al. 2022 §6.2: Sigma ~ "
        "Wishart(D + nu, diag(1/D..1)), mu ~ N(0, I)) with a mean-field Gaussian q (softplus "
        "scale) and report the inclusive KL(pi || q) trajectory (closed form), rejection rates, "
        "convergence diagnostics and per-iteration cost counts (Kim et al. 2022 Table 2). A run "
        "whose lambda, gradient or KL becomes non-finite stops with 'diverged at iteration t' and "
        "exit status 5. "
        + DIAG_HELP))
    _run_flags(ap, many=False)
    a = ap.parse_args(argv)
    from .sweep import Cell, GridError, check_cell, run_cell

    cell = Cell(a.scheme, a.optimizer, a.lr, a.N, a.dim, a.nu, a.target_seed, a.iters, a.replicates,
                a.seed,
                a.record_every)
    try:
        check_cell(cell)
    except GridError as e:
        raise UsageError(str(e)) from None
    with clikit.progress(total=a.iters, desc=f"{a.scheme} run", json=a.json, unit="it") as bar:
        res = run_cell(cell, progress=lambda t: bar.update(1))
    v = res.values
    last = len(res.iteration) - 1
    diverged = res.diverged_at >= 0
    out = {"scheme": a.scheme, "dim": a.dim, "nu": a.nu, "N": a.N, "iters": a.iters,
           "optimizer": a.optimizer,
           "lr": a.lr, "seed": a.seed, "target_seed": a.target_seed, "replicates": a.replicates,
           "iterations": res.iteration, "kl": v["kl"].T,
           "rejection_rate": res.rejection_rate,
           "rejection_rate_last_10pct": res.rejection_rate_last_10pct,
           "diagnostics": {"iterations": res.iteration, "r": v["r"].T,
                           "grad_norm": v["grad_norm"].T,
                           "rhat_z": v["rhat_z"].T, "ess_z": v["ess_z"].T,
                           "rhat_lambda": v["rhat_lambda"][:, 0],
                           "final": {k: v[k][last] for k in ("r", "rhat_z", "ess_z",
                                                             "rhat_lambda")}},
           "diverged": bool(diverged.any()),
           "diverged_at": [int(t) if t >= 0 else None for t in res.diverged_at],
           "costs_per_iteration": res.costs_per_iteration, "elapsed_s": res.elapsed_s}
    say = _json_or_say(a, out)
    if say is not None:
        say(f"{a.scheme} on wishart(D={a.dim}, nu={a.nu}), N = {a.N}, {a.optimizer}(lr = "
            f"{a.lr:g}), {a.iters} iterations, {a.replicates} replicate(s), seed "
            f"{clikit.show_param(a.seed)}  [{res.elapsed_s:.2f} s]")
        print("iteration  KL(pi||q) (median over replicates)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(v["kl"], axis=1)
        its = res.iteration
        show = np.unique(np.linspace(0, len(its) - 1, min(len(its), 11)).astype(int))
        for i in show:
            print(f"{its[i]:<10d} {med[i]:.6g}" if np.isfinite(med[i])
                  else f"{its[i]:<10d} (diverged)")
        say(f"rejection rate: {res.rejection_rate:.4g} overall, "
            f"{res.rejection_rate_last_10pct:.4g} "
            "over the last 10% of iterations")
        fin = out["diagnostics"]["final"]

        def f(x):
            return " ".join(f"{y:.4g}"
                            for y in np.atleast_1d(x)[:5]) + (" ..." if np.size(x) > 5 else "")

        say(f"diagnostics at iteration {its[last]}: r {f(fin['r'])}; R-hat_z {f(fin['rhat_z'])}; "
            f"ESS_z {f(fin['ess_z'])}; R-hat_lambda {f(fin['rhat_lambda'][:1])}"
            + (" (nan: too few chains or draws, or diverged)" if np.isnan(fin["rhat_lambda"]).any()
               or np.isnan(fin["rhat_z"]).any() else ""))
        say("costs per iteration: " + ", ".join(f"{k} {c:g}"
                                                for k, c in res.costs_per_iteration.items())
            + "  (Kim et al. 2022 Table 2: p_eval, q_eval, q_sample, score = q grads)")
    if diverged.any():
        # one line on stderr
        r = int(np.argmin(np.where(diverged, res.diverged_at, np.iinfo(np.int64).max)))
        print(f"{PROG}: diverged at iteration {res.diverged_at[r]}: {res.diverged_why[r]} "
              f"(replicate {r}; {int(diverged.sum())} of {a.replicates} replicate(s) diverged; try "
              f"a smaller --lr)",
              file=sys.stderr)
        return EXIT_DIVERGED
    return EXIT_OK


# ----------------------------------------------------------------------------- sweep
def cmd_sweep(argv):
    ap = _Parser(prog=f"{PROG} sweep", description=(
        "Run a grid of MCSA runs (the flags of `run`, each a comma-separated list; the grid is "
        "their product) on local processes (--workers K) or a Dask cluster (--scheduler "
        "tcp://HOST:PORT; pip install 'mcsa-verify[dask]'), with a resumable cache (--cache DIR: "
        "finished cells are never recomputed; after Ctrl-C or a killed worker, rerun the same "
        "command). Output: a tidy CSV (--out FILE.csv), a row per cell, replicate and logged "
        "iteration: parameters, KL(pi||q) in closed form, gradient norm, rejection rate, "
        "diagnostics, diverged flag, time; and FILE.json with the grid, seed and versions. Results "
        "are bit-identical whatever the workers or executor (each cell's streams come from its "
        "parameters). Diverged runs are rows with diverged=True (exit status stays 0). "
        + DIAG_HELP))
    _run_flags(ap, many=True)
    ap.add_argument("--workers", type=_int(1, 1024), default=1,
                    help="local worker processes (default 1)")
    ap.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                    help="address of a running Dask scheduler (instead of local workers)")
    ap.add_argument("--cache", default=None, metavar="DIR",
                    help="directory of finished cells (resume); created before any work")
    ap.add_argument("--out", default=None, metavar="FILE.csv",
                    help="write the table here (a name ending in .csv) and the metadata to "
                         "FILE.json; both created before any work")
    ap.add_argument("--no-diagnostics", action="store_true",
                    help="skip R-hat and ESS (faster; NaN columns)")
    a = ap.parse_args(argv)
    import os

    from mcsa_cli.pool import BrokenProcessPool

    from .sweep import GridError, check_execution, make_cells, run_sweep

    try:  # --workers, --scheduler, --cache: the same checks as every command that runs sweeps
        check_execution(a.workers, a.scheduler, a.cache)  # (creates the --cache directory)
    except GridError as e:
        raise UsageError(str(e)) from None
    grid = {"scheme": a.scheme, "optimizer": a.optimizer, "lr": a.lr, "N": a.N, "dim": a.dim,
            "nu": a.nu,
            "target_seed": a.target_seed, "iters": a.iters, "replicates": a.replicates}
    try:
        make_cells(grid, seed=a.seed, record_every=a.record_every, diagnostics=not a.no_diagnostics)
    except GridError as e:
        raise UsageError(str(e)) from None
    if a.out is not None:  # created now (removed again if the sweep never writes them)
        out_csv = clikit.output_path("--out", a.out, (".csv",))
        clikit.output_path("--out", os.path.splitext(out_csv)[0] + ".json", (".json",))
    bar = clikit.progress(total=len(make_cells(grid, seed=a.seed, record_every=a.record_every)),
                          desc="sweep",
                          json=a.json, unit="cell")  # cells done/total, elapsed, ETA (tqdm)
    shown = [0]

    def tick(done, total):
        bar.update(done - shown[0])
        shown[0] = done

    try:
        with bar:
            res = run_sweep(grid, seed=a.seed, record_every=a.record_every,
                            diagnostics=not a.no_diagnostics,
                            workers=a.workers, scheduler=a.scheduler, cache=a.cache, progress=tick,
                            threads=a.threads or 1)
    except GridError as e:  # e.g. an unreachable scheduler: nothing has run
        raise UsageError(str(e)) from None
    except (KeyboardInterrupt, BrokenProcessPool) as e:
        try:
            stored = a.cache is not None and any(n.endswith(".json") for n in os.listdir(a.cache))
        except OSError:
            stored = False
        if stored:
            where = f"finished cells are stored in {a.cache}: rerun the same command to resume"
        elif a.cache is not None:
            where = "no cell had finished, nothing was stored"
        else:
            where = "nothing was stored (use --cache DIR to resume after an interruption)"
        if isinstance(e, KeyboardInterrupt):
            print(f"{PROG}: interrupted; {where}", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"{PROG}: a worker process died (killed, or out of memory); {where}", file=sys.stderr)
        return EXIT_INTERNAL
    meta = dict(res.metadata)
    if a.out is not None:
        csv_path, meta_path = res.write_csv(out_csv)
        meta["files"] = {"table": csv_path, "metadata": meta_path}
    n_div = len({(r["cell"], r["replicate"]) for r in res.rows if r["diverged"]})
    meta["diverged_runs"] = n_div
    say = _json_or_say(a, meta if a.out is not None else {**meta, "rows": res.rows})
    if say is None:
        return EXIT_OK
    say(f"{meta['cells']} cells ({res.computed} computed, {res.cached} from the cache) in "
        f"{meta['wall_time_s']:.1f} s on {meta['executor']}; {len(res.rows)} rows; {n_div} "
        f"diverged run(s)")
    if a.out is not None:
        say(f"table: {csv_path}\nmetadata: {meta_path}")
    print("final KL(pi||q), median over replicates:")
    rows = []
    for c in res.results:
        p = c.cell
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            kl = (float(np.nanmedian(c.values["kl"][-1]))
                  if not np.all(np.isnan(c.values["kl"][-1])) else math.nan)
        rows.append([p.scheme, p.optimizer, clikit.show_param(p.lr), str(p.N), str(p.dim),
                     str(p.iters),
                     clikit.short(kl), f"{int((c.diverged_at >= 0).sum())}/{p.replicates}"])
    print(clikit.table(rows, ["scheme", "optimizer", "lr", "N", "dim", "iters", "KL", "diverged"],
                       wide=a.wide))
    return EXIT_OK


USAGE = f"""usage: {PROG} {{tv,moment,run,sweep}} ...

Simulators for MCSA (Kim et al., NeurIPS 2022, "Markov Chain Score Ascent") on Gaussian
targets with known w*.

  {PROG} tv --kernel imh --dim 10 --proposal-scale 1.5 --steps 20
      exact TV curves
  {PROG} moment --scheme pmcsa --dim 10 --proposal-scale 1.5 --N 10
      E[||g||^2 | F] +- se
  {PROG} run --scheme pmcsa --dim 100 --N 10 --iters 1000 --optimizer adam --lr 0.01
      one optimisation: KL(pi||q), rejection rates, diagnostics, costs
  {PROG} sweep --scheme msc,pmcsa --optimizer sgd,adam --lr 0.01,0.1 --N 4 --dim 5 \\
      --iters 50 --replicates 2 --workers 2 --cache sweep-cache --out results.csv
`{PROG} COMMAND --help` for the options.  Every command takes --threads K (BLAS threads
per process, default 1), --wide (full-width text and tables) and --debug.  `{PROG} --version`
prints the package version.

Exit status: 0 success, 2 bad input (one line on stderr, before any work), 5 a run
diverged (run), 70 internal error, 130 interrupted.
"""

COMMANDS = {"tv": cmd_tv, "moment": cmd_moment, "run": cmd_run, "sweep": cmd_sweep}


def main(argv=None) -> int:
    """Dispatch to a command through ``mcsa_cli.run``: bad input exits 2 with one line,
    internal errors 70 with one line (``--debug``: the traceback), Ctrl-C 130."""
    return clikit.run(PROG, USAGE, argv, COMMANDS)
