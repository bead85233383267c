"""Command line of the simulators: ``python -m simulate``.

    python -m simulate tv --kernel {imh,cis} --dim D --proposal-scale s [--N n] --steps K
                          [--start worst|typical|quantile:Q] [--json]
    python -m simulate moment --scheme {msc,msc-rb,jsa,pmcsa} --dim D --proposal-scale s --N n
                          [--replicates R] [--family gaussian|student-t] [--seed S] [--json]
    python -m simulate run --scheme ... --dim D [--nu NU] --N n --iters T
                          --optimizer {sgd,momentum,nesterov,adam} --lr LR [--seed S] [--json]

Bad input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

PROG = "python -m simulate"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _int(name, lo=None):
    def f(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: not a number: {text!r}") from None
        if not math.isfinite(v) or v != int(v):
            raise argparse.ArgumentTypeError(f"{name}: must be an integer, got {text!r}")
        if lo is not None and v < lo:
            raise argparse.ArgumentTypeError(f"{name}: must be >= {lo}, got {text!r}")
        return int(v)
    return f


def _float(name, lo=None, strict=False):
    def f(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: not a number: {text!r}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"{name}: must be finite, got {text!r}")
        if lo is not None and (v < lo or (strict and v == lo)):
            raise argparse.ArgumentTypeError(f"{name}: must be {'>' if strict else '>='} {lo}, got {text!r}")
        return v
    return f


class Progress:
    """Progress on stderr, only when stderr is a terminal and --json is off."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.label = total, label
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, done: int):
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.2 and done < self.total:
            return
        self.last = now
        el = now - self.t0
        eta = el / max(done, 1) * (self.total - done)
        sys.stderr.write(f"\r{self.label}: {done}/{self.total}  {el:5.1f}s elapsed, ~{eta:5.1f}s left ")
        sys.stderr.flush()
        if done >= self.total:
            sys.stderr.write("\n")


# ----------------------------------------------------------------------------- tv
def cmd_tv(argv):
    ap = _Parser(prog=f"{PROG} tv", description=(
        "Exact TV(K^k(z, .), pi) for k = 1..K, IMH or CIS (N particles), target N(0, I_D), proposal "
        "N(0, s^2 I_D), by reduction to the importance-weight line (methods.md §2). No Monte Carlo."))
    ap.add_argument("--kernel", choices=("imh", "cis"), required=True)
    ap.add_argument("--dim", type=_int("--dim", 1), required=True, help="dimension D")
    ap.add_argument("--proposal-scale", type=_float("--proposal-scale", 1, strict=True), required=True,
                    help="proposal sd s > 1 (w* = s^D; s <= 1 gives w* = inf)")
    ap.add_argument("--N", type=_int("--N", 2), default=None, help="CIS particles (current + N-1 proposals)")
    ap.add_argument("--steps", type=_int("--steps", 1), required=True, help="K: number of transitions")
    ap.add_argument("--start", default="worst", help="worst (argmax w), typical (= quantile:0.5) or quantile:Q")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from . import weightline as wl

    if a.kernel == "cis" and a.N is None:
        raise UsageError("--kernel cis needs --N")
    try:
        pair = wl.isotropic_pair(a.dim, a.proposal_scale)
        lw0 = wl.start_log_weight(pair, a.start)
    except ValueError as e:
        raise UsageError(str(e)) from None
    res = wl.imh_tv(pair, a.steps, lw0) if a.kernel == "imh" else wl.cis_tv(pair, a.N, a.steps, lw0)
    out = {"kernel": a.kernel, "dim": a.dim, "proposal_scale": a.proposal_scale, "N": a.N, "start": a.start,
           "tv": [float(x) for x in res.tv], "w_star": float(res.w_star), "log_w_star": float(res.log_w_star),
           "log_w0": float(res.log_w0), "error_bound": float(res.error_bound), "method": res.method}
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"TV to pi after k steps: {a.kernel.upper()}{' N=' + str(a.N) if a.N else ''}, pi = N(0, I_{a.dim}), "
          f"q = N(0, {a.proposal_scale:g}^2 I), start {a.start}")
    print(f"w* = {res.w_star:.6g} (log w* = {res.log_w_star:.6g}), log w(start) = {res.log_w0:.6g}; "
          f"error bound {res.error_bound:.2g} ({res.method})")
    print("k     TV")
    for k, v in enumerate(res.tv, 1):
        print(f"{k:<5d} {v:.8g}")
    return 0


# ----------------------------------------------------------------------------- moment
def _isotropic_problem(dim, scale, family, t_df):
    from .families import MeanFieldGaussian, StudentT
    from .targets import isotropic

    target = isotropic(dim)
    fam = MeanFieldGaussian(dim) if family == "gaussian" else StudentT(dim, nu=t_df)
    return target, fam, fam.init(0.0, scale)


def cmd_moment(argv):
    ap = _Parser(prog=f"{PROG} moment", description=(
        "Conditional second moment E[||g_t||^2 | F_{t-1}] of a scheme's gradient estimate at a state drawn from "
        "pi = N(0, I_D), with q = N(0, s^2 I) (mean-field Gaussian) or a Student-t of scale s: R independent "
        "transitions from the same state (methods.md §6). Prints the estimate +- standard error and its "
        "decomposition variance + ||bias||^2 - 2 bias.mu + ||mu||^2 (and C_cov for JSA)."))
    ap.add_argument("--scheme", choices=("msc", "msc-rb", "jsa", "pmcsa"), required=True)
    ap.add_argument("--dim", type=_int("--dim", 1), required=True)
    ap.add_argument("--proposal-scale", type=_float("--proposal-scale", 0, strict=True), required=True)
    ap.add_argument("--N", type=_int("--N", 1), required=True)
    ap.add_argument("--replicates", type=_int("--replicates", 2), default=4096, help="R transitions (default 4096)")
    ap.add_argument("--family", choices=("gaussian", "student-t"), default="gaussian")
    ap.add_argument("--t-df", type=_float("--t-df", 0, strict=True), default=5.0, help="Student-t degrees of freedom")
    ap.add_argument("--seed", type=_int("--seed", 0), default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from . import divergences as dv
    from .estimators import conditional_moments
    from .kernels import ChainState
    from .rng import unit_generator
    from .schemes import Scheme

    if a.scheme in ("msc", "msc-rb") and a.N < 2:
        raise UsageError(f"--N: {a.scheme} needs N >= 2 particles")
    target, fam, lam = _isotropic_problem(a.dim, a.proposal_scale, a.family, a.t_df)
    sch = Scheme(a.scheme, target, fam, a.N)
    g = unit_generator(a.seed, 0, "moment-start")
    pos = g.standard_normal((sch.n_chains, a.dim))  # a stationary state: z ~ pi
    state = ChainState(pos[None], target.logpdf(pos)[None])
    est = conditional_moments(sch, lam, state, R=a.replicates, seed=a.seed + 1)
    info = {"E_q||s||^2": float(fam.expected_sq_score(lam)), "L": float(fam.score_bound(lam))}
    if a.family == "gaussian":
        info.update(dv.gaussian_divergences(target, fam, lam).as_dict())
    out = {"scheme": a.scheme, "dim": a.dim, "proposal_scale": a.proposal_scale, "N": a.N, "family": a.family,
           "seed": a.seed, **est.as_dict(), "problem": {k: (None if not np.isfinite(v) else v) for k, v in info.items()}}
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"{a.scheme}, N = {a.N}, pi = N(0, I_{a.dim}), q = {a.family} scale {a.proposal_scale:g}, R = {a.replicates}, "
          f"seed {a.seed}")
    print(f"E[||g||^2 | F] = {est.second:.6g} +- {est.second_se:.2g} (1 se)")
    print(f"  variance      {est.variance:.6g} +- {est.variance_se:.2g}")
    print(f"  ||bias||^2    {est.bias_sq:.6g}")
    print(f"  -2 bias.mu    {est.cross:.6g}")
    print(f"  ||mu||^2      {est.mu_sq:.6g}")
    if est.c_cov is not None:
        print(f"  C_cov         {est.c_cov:.6g} +- {est.c_cov_se:.2g}  (part of the variance)")
    print(f"rejection rate {est.rejection:.4g}")
    print("problem: " + ", ".join(f"{k} = {v:.6g}" if v is not None and np.isfinite(v) else f"{k} = inf"
                                   for k, v in info.items()))
    return 0


# ----------------------------------------------------------------------------- run
def cmd_run(argv):
    ap = _Parser(prog=f"{PROG} run", description=(
        "Run an MCSA optimisation on the paper's Wishart target (001 §6.2: Sigma ~ Wishart(D + nu, "
        "diag(1/D..1)), mu ~ N(0, I)) with a mean-field Gaussian q (softplus scale) and report the inclusive "
        "KL(pi || q) trajectory (closed form), rejection rates and per-iteration cost counts."))
    ap.add_argument("--scheme", choices=("msc", "msc-rb", "jsa", "pmcsa"), required=True)
    ap.add_argument("--dim", type=_int("--dim", 1), required=True)
    ap.add_argument("--nu", type=_int("--nu", 0), default=500, help="extra Wishart degrees of freedom (default 500)")
    ap.add_argument("--N", type=_int("--N", 1), required=True)
    ap.add_argument("--iters", type=_int("--iters", 1), required=True)
    ap.add_argument("--optimizer", choices=("sgd", "momentum", "nesterov", "adam"), required=True)
    ap.add_argument("--lr", type=_float("--lr", 0, strict=True), required=True)
    ap.add_argument("--replicates", type=_int("--replicates", 1), default=1)
    ap.add_argument("--record-every", type=_int("--record-every", 1), default=None,
                    help="KL is recorded every this many iterations (default iters/100)")
    ap.add_argument("--seed", type=_int("--seed", 0), default=0)
    ap.add_argument("--target-seed", type=_int("--target-seed", 0), default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from . import optim
    from .families import MeanFieldGaussian
    from .schemes import COUNT_KEYS, Scheme, kl_inclusive_meanfield
    from .targets import wishart_target

    if a.scheme in ("msc", "msc-rb") and a.N < 2:
        raise UsageError(f"--N: {a.scheme} needs N >= 2 particles")
    target = wishart_target(a.dim, a.nu, seed=a.target_seed)
    fam = MeanFieldGaussian(a.dim)
    sch = Scheme(a.scheme, target, fam, a.N, optim.make(a.optimizer, a.lr))
    state = sch.init(seed=a.seed, replicates=a.replicates)
    every = a.record_every or max(1, a.iters // 100)
    kl = [kl_inclusive_meanfield(target, fam, state.lam)]
    iters = [0]
    rej = []
    prog = Progress(a.iters, not a.json, f"{a.scheme} run")
    t0 = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, a.iters + 1):
            state, info = sch.step(state)
            rej.append(info.rejection.mean())
            if t % every == 0 or t == a.iters:
                kl.append(kl_inclusive_meanfield(target, fam, state.lam))
                iters.append(t)
            prog.update(t)
    elapsed = time.perf_counter() - t0
    kl = np.array(kl)
    per_iter = {k: state.counts[k] / a.iters for k in COUNT_KEYS}
    out = {"scheme": a.scheme, "dim": a.dim, "nu": a.nu, "N": a.N, "iters": a.iters, "optimizer": a.optimizer,
           "lr": a.lr, "seed": a.seed, "replicates": a.replicates, "iterations": iters,
           "kl": [[None if not np.isfinite(x) else float(x) for x in row] for row in kl.T],
           "rejection_rate": float(np.mean(rej)), "rejection_rate_last_10pct": float(np.mean(rej[-max(1, len(rej) // 10):])),
           "costs_per_iteration": per_iter, "elapsed_s": elapsed}
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"{a.scheme} on {target.name}, N = {a.N}, {a.optimizer}(lr = {a.lr:g}), {a.iters} iterations, "
          f"{a.replicates} replicate(s), seed {a.seed}  [{elapsed:.2f} s]")
    print("iteration  KL(pi||q) (median over replicates)")
    med = np.median(kl, axis=1)
    show = np.unique(np.linspace(0, len(iters) - 1, min(len(iters), 11)).astype(int))
    for i in show:
        print(f"{iters[i]:<10d} {med[i]:.6g}")
    print(f"rejection rate: {out['rejection_rate']:.4g} overall, {out['rejection_rate_last_10pct']:.4g} "
          "over the last 10% of iterations")
    print("costs per iteration: " + ", ".join(f"{k} {v:g}" for k, v in per_iter.items())
          + "  (001 Table 2: p_eval, q_eval, q_sample, score = q grads)")
    return 0


USAGE = f"""usage: {PROG} {{tv,moment,run}} ...

Simulators for MCSA on Gaussian targets with known w*.

  {PROG} tv --kernel imh --dim 10 --proposal-scale 1.5 --steps 20      exact TV curves
  {PROG} moment --scheme pmcsa --dim 10 --proposal-scale 1.5 --N 10    E[||g||^2 | F] +- se
  {PROG} run --scheme pmcsa --dim 100 --N 10 --iters 1000 --optimizer adam --lr 0.01
`{PROG} COMMAND --help` for the options. Bad input exits with status 2.
"""


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            raise UsageError(f"a command is required (tv, moment or run); see `{PROG} --help`")
        if argv[0] in ("-h", "--help"):
            print(USAGE)
            return 0
        cmd = {"tv": cmd_tv, "moment": cmd_moment, "run": cmd_run}.get(argv[0])
        if cmd is None:
            raise UsageError(f"unknown command {argv[0]!r}; choose tv, moment or run")
        return cmd(argv[1:])
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
