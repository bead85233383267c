#!/usr/bin/env python3
"""Throughput of the four MCSA schemes (msc, msc-rb, jsa, pmcsa) and three comparators.

    python benchmarks/bench_schemes.py [--dim 100] [--N 10] [--replicates 100] [--iters 200]
                                       [--repeats 5] [--json] [--threads 1] [--no-jax]
                                       [--loop-iters 2] [--no-check] [--schemes pmcsa,jsa]
                                       [--fig2 | --fig2-only] [--fig2-iters 64] [--fig2-workers 2]

Problem: the paper's target ``wishart_target(D, 500)`` (Gaussian, full covariance), a
mean-field Gaussian q (softplus scale), Adam (lr 0.01), N proposals per iteration, batched
over R independent replicates.  For every scheme it reports the time per iteration of
``Scheme.step`` (the library's vectorised implementation), iterations per second and
samples per second (proposals drawn per second: R x the scheme's ``q_sample`` counter per
iteration), and three comparators, each as the ratio of its time per iteration to the
scheme's (> 1: slower than the scheme):

(a) ``loop``  a straightforward per-chain Python implementation of the same iteration
              (Python loops over replicates and chains, NumPy only for the D-vectors,
              one Generator per replicate drawing each chain's normals); a few iterations.
(b) ``jax``   the same iteration written in JAX, float64, JAX's own RNG, one jitted step
              function including the Adam update; timed over the same number of
              iterations with ``block_until_ready`` at the end.  Skipped with a message
              when JAX is not installed (``pip install jax jaxlib``).
(c) ``floor`` drawing the iteration's standard normals (R x q_sample x D, one NumPy
              Generator call into a preallocated array) plus the target's matrix product
              alone ((R q_sample, D) @ (D, D), ``np.matmul``; q_sample = N for pmcsa and
              jsa, N - 1 for msc and msc-rb).  No implementation can do less than this,
              short of exploiting the triangular structure of the matrix (``floor-tri``).

Informational columns: ``floor-tri``: the floor with the product done as the triangular
product it is (Lp is a Cholesky factor; BLAS trmm, about half the flops of the full
product).  ``floor+streams``: the floor with the normals drawn the way the schemes draw
them (``simulate.rng.Streams``: one generator per replicate, buffered in blocks of 32
iterations) and read back once into a contiguous array; the difference to (c) is the
price of batch-size-independent random streams.  ``floor-stacked``: the floor with the
product computed per replicate, one fixed-shape BLAS call each (an in-place triangular
product of the replicate's (q_sample, D) block, as ``simulate.fused._product`` does): the
only form of the product allowed where a replicate's results must not depend on R, so the
like-for-like floor of the fused paths.
``generic``: the same scheme with ``fast=False`` (the generic kernels and score).

``--fig2`` (or ``--fig2-only``) adds an estimate of the wall time of the paper's Figure 2
grid (4 schemes x 4 optimizers x 20 step sizes x 20 replications x 10^4 iterations,
D = 100, N = 10) on ``--fig2-workers`` cores (default 2), measured from a sample: every
(scheme, optimizer) cell, its 400 (step size, replication) rows batched in one run as the
sweep runs it, timed for ``--fig2-iters`` iterations with the cells running two at a
time in separate processes (see :func:`estimate_figure2`).

Every measured variant runs in the same process, interleaved (the order rotates between
repeats), and the reported numbers are medians over ``--repeats``.  Timing windows of the
schemes cover whole random-stream blocks (``--iters`` rounded up to a multiple of 32), so
each window pays for the same number of block refills.

Before timing (unless ``--no-check``) the loop and JAX implementations are run on the
*same* random numbers as the library (taken from its streams) for 8 iterations, and the
largest differences to the library in the gradient estimates, lambda and the chain positions
are reported: the comparators compute the same iteration, not something cheaper.

Threads: ``--threads 1`` (the default) pins OpenBLAS/MKL/OpenMP and XLA to one thread
(set before NumPy and JAX are imported) and the process to one CPU (``sched_setaffinity``;
without it XLA's thread pool used the second core), so every variant runs on one core;
``--threads 0`` leaves the libraries' defaults and the CPUs alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

SCHEME_NAMES = ("msc", "msc-rb", "jsa", "pmcsa")
NU = 500  # wishart_target(D, 500): the paper's target
LR = 0.01
B1, B2, ADAM_EPS = 0.9, 0.999, 1e-8
BLOCK = 32  # random-stream block (Scheme.init default)
# Targets (benchmarks/README.md, "Targets"): every scheme at least as fast as the JAX
# comparator (JAX time / scheme time >= 1.0) and at most 1.3x the like-for-like floor
# (scheme time / floor-stacked time <= 1.3), ratios measured side by side in one run.
TARGET_JAX_OVER_SCHEME = 1.0
TARGET_SCHEME_OVER_FLOOR_STK = 1.3


def _load_average():
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


# ----------------------------------------------------------------------------- arguments
def _positive_int(name):
    def f(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: not an integer: {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name}: must be >= 1, got {v}")
        return v
    return f


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="bench_schemes.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dim", type=_positive_int("--dim"), default=100,
                   help="dimension D (default 100)")
    p.add_argument("--N", type=_positive_int("--N"), default=10, help="budget N (default 10)")
    p.add_argument("--replicates", type=_positive_int("--replicates"), default=100,
                   help="independent replicates R, batched (default 100)")
    p.add_argument("--iters", type=_positive_int("--iters"), default=200,
                   help="iterations per timing window, rounded up to a multiple of 32 (default "
                        "200)")
    p.add_argument("--repeats", type=_positive_int("--repeats"), default=5,
                   help="interleaved repetitions; medians are reported (default 5)")
    p.add_argument("--loop-iters", type=_positive_int("--loop-iters"), default=2,
                   help="iterations of the Python-loop comparator per repeat (default 2)")
    p.add_argument("--threads", type=int, default=1,
                   help="BLAS/XLA threads and CPUs (default 1; 0 = library defaults, no CPU "
                        "pinning)")
    p.add_argument("--schemes", default=",".join(SCHEME_NAMES),
                   help="comma-separated subset of msc,msc-rb,jsa,pmcsa")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-jax", action="store_true", help="skip the JAX comparator")
    p.add_argument("--no-check", action="store_true",
                   help="skip the comparators' equivalence check")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--fig2", action="store_true",
                   help="also estimate the wall time of the paper's Figure 2 grid from a sample of "
                        "its cells")
    p.add_argument("--fig2-iters", type=_positive_int("--fig2-iters"), default=64,
                   help="iterations timed per sampled Figure 2 cell (default 64; the grid has "
                        "10^4)")
    p.add_argument("--fig2-workers", type=_positive_int("--fig2-workers"), default=2,
                   help="worker processes for the Figure 2 sample, one cell each at a time "
                        "(default 2 = the cores)")
    p.add_argument("--fig2-only", action="store_true",
                   help="only the Figure 2 estimate (implies --fig2)")
    a = p.parse_args(argv)
    a.fig2 = a.fig2 or a.fig2_only
    a.schemes = [s.strip() for s in a.schemes.split(",") if s.strip()]
    bad = [s for s in a.schemes if s not in SCHEME_NAMES]
    if bad or not a.schemes:
        p.error(f"--schemes: unknown {', '.join(bad) or '(empty)'}; choose from "
                f"{', '.join(SCHEME_NAMES)}")
    if a.N < 2 and any(s in ("msc", "msc-rb") for s in a.schemes):
        p.error("msc and msc-rb need --N >= 2")
    if a.threads < 0:
        p.error("--threads must be >= 0")
    return a


ORIGINAL_CPUS = None  # the CPUs the process could use before pin_threads (restored in fig2 workers)


def pin_threads(n: int) -> dict:
    """Pin BLAS and XLA to ``n`` threads and the process to ``n`` CPUs; must run before
    NumPy/JAX are imported.  ``n = 0``: library defaults, no pinning.

    The thread variables alone do not confine XLA: its CPU client sizes its own thread
    pool from the CPUs the process may run on, and on this 2-vCPU machine the JAX
    comparator's step used about 1.8 CPUs of work per second of wall time when the
    other vCPU was idle (JAX's RNG: 0.81 ms wall, 1.48 ms CPU for 10^5 normals), so it
    ran on two cores against NumPy's one, and its speed depended on how busy the
    machine was.  ``os.sched_setaffinity`` to n CPUs (the last n the process may use)
    confines every variant, and XLA then sizes its pool to them; the JSON records the
    CPUs and each variant's CPU time / wall time."""
    global ORIGINAL_CPUS
    if n > 0:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(n)
        flags = os.environ.get("XLA_FLAGS", "")
        extra = (f"--xla_cpu_multi_thread_eigen={'false' if n == 1 else 'true'} "
                 f"intra_op_parallelism_threads={n}")
        os.environ["XLA_FLAGS"] = (flags + " " + extra).strip()
        if hasattr(os, "sched_setaffinity"):
            ORIGINAL_CPUS = sorted(os.sched_getaffinity(0))
            os.sched_setaffinity(0, ORIGINAL_CPUS[-n:])
    info = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                           "MKL_NUM_THREADS", "XLA_FLAGS")}
    info["cpus"] = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return info


def _unpin(cpus):
    """ProcessPoolExecutor initializer: a Figure 2 worker may use the CPUs the benchmark
    started with (each worker is still one BLAS thread)."""
    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)


# ----------------------------------------------------------------------------- problem
class Problem:
    """Target, family and sizes shared by all implementations."""

    def __init__(self, D, N, R, seed):
        import numpy as np

        from simulate.families import MeanFieldGaussian
        from simulate.targets import wishart_target

        self.D, self.N, self.R, self.seed = D, N, R, seed
        self.target = wishart_target(D, NU)
        self.family = MeanFieldGaussian(D)
        self.mu = self.target.mean
        self.Lp = np.ascontiguousarray(self.target.prec_chol)
        self.log_norm = self.target.log_norm
        self.lam0 = self.family.init()

    def scheme(self, name, fast=True):
        from simulate import optim
        from simulate.schemes import Scheme

        return Scheme(name, self.target, self.family, self.N, optim.make("adam", LR), fast=fast)


def n_proposals(name, N):
    """q_sample per replicate and iteration (001 Table 2)."""
    return N - 1 if name in ("msc", "msc-rb") else N


# ----------------------------------------------------------------------------- (a) Python loop
def _log(u: float) -> float:
    return math.log(u) if u > 0 else -math.inf  # as np.log: log 0 = -inf (always accept)


class PerChainNoise:
    """Each replicate's own Generator, one call per chain and draw (the straightforward way)."""

    def __init__(self, seed, R):
        import numpy as np

        self.gens = [np.random.default_rng([seed, 1000 + r]) for r in range(R)]

    def normal(self, r, D):
        return self.gens[r].standard_normal(D)

    def uniform(self, r):
        return self.gens[r].random()

    def next_iteration(self):
        pass


class StreamNoise:
    """The library's own draws (for --check): take a whole iteration's noise from the
    scheme's streams, then hand it out chain by chain in the order the scheme uses it."""

    def __init__(self, name, N, D, streams):
        self.name, self.N, self.D, self.streams = name, N, D, streams
        self._eps = self._u = None

    def next_iteration(self):
        N, D, s = self.N, self.D, self.streams
        if self.name == "pmcsa":
            eps, u = s.take("normal", (N, D)), s.take("uniform/accept", (N,))
        elif self.name == "jsa":
            eps, u = s.take("normal", (N, 1, D))[:, :, 0], s.take("uniform/accept", (N, 1))[:, :, 0]
        else:
            eps, u = s.take("normal", (1, N - 1, D))[:, 0], s.take("uniform/select", (1,))
        self._eps = [list(row) for row in eps]
        self._u = [list(row) for row in u]
        self._ie = [0] * len(self._eps)
        self._iu = [0] * len(self._u)

    def normal(self, r, D):
        i = self._ie[r]
        self._ie[r] = i + 1
        return self._eps[r][i]

    def uniform(self, r):
        i = self._iu[r]
        self._iu[r] = i + 1
        return float(self._u[r][i])


class LoopImpl:
    """Per-chain Python implementation of one iteration of each scheme (NumPy for D-vectors only).

    State: lam (R, 2D), Adam moments, chain positions and cached log pi, all as lists of
    per-replicate (per-chain) NumPy vectors.
    """

    def __init__(self, prob: Problem, name: str, lam, positions, logp):
        import numpy as np

        self.p, self.name = prob, name
        self.lam = [np.array(row) for row in lam]
        self.m1 = [np.zeros(2 * prob.D) for _ in self.lam]
        self.m2 = [np.zeros(2 * prob.D) for _ in self.lam]
        self.t = 0
        self.x = [[np.array(c) for c in row] for row in positions]  # [r][chain] -> (D,)
        self.lpx = [[float(v) for v in row] for row in logp]
        self.c_q = -0.5 * prob.D * math.log(2 * math.pi)

    def _logpi(self, z):
        y = (z - self.p.mu) @ self.p.Lp
        return self.p.log_norm - 0.5 * float(y @ y)

    def step(self, noise):
        import numpy as np

        p, N, D = self.p, self.p.N, self.p.D
        noise.next_iteration()
        self.t += 1
        c1, c2 = 1 - B1 ** self.t, 1 - B2 ** self.t
        self.last_grad = []
        for r in range(p.R):
            lam = self.lam[r]
            m, om = lam[:D], lam[D:]
            a = np.exp(-np.abs(om))
            sig = np.maximum(om, 0.0) + np.log1p(a)
            dsig = np.where(om >= 0, 1.0 / (1.0 + a), a / (1.0 + a))
            logdet = float(np.log(sig).sum())
            g = np.zeros(2 * D)
            if self.name == "pmcsa":
                for n in range(N):
                    eps = noise.normal(r, D)
                    z = m + sig * eps
                    lpz = self._logpi(z)
                    lqz = -0.5 * float(eps @ eps) - logdet + self.c_q
                    ex = (self.x[r][n] - m) / sig
                    lqx = -0.5 * float(ex @ ex) - logdet + self.c_q
                    if _log(noise.uniform(r)) < (lpz - lqz) - (self.lpx[r][n] - lqx):
                        self.x[r][n], self.lpx[r][n], e = z, lpz, eps
                    else:
                        e = ex
                    g[:D] -= e / sig
                    g[D:] -= (e * e - 1.0) / sig * dsig
                g /= N
            elif self.name == "jsa":
                x, lpx = self.x[r][0], self.lpx[r][0]
                ex = (x - m) / sig
                lqx = -0.5 * float(ex @ ex) - logdet + self.c_q
                for n in range(N):
                    eps = noise.normal(r, D)
                    z = m + sig * eps
                    lpz = self._logpi(z)
                    lqz = -0.5 * float(eps @ eps) - logdet + self.c_q
                    if _log(noise.uniform(r)) < (lpz - lqz) - (lpx - lqx):
                        x, lpx, lqx, ex = z, lpz, lqz, eps
                    g[:D] -= ex / sig
                    g[D:] -= (ex * ex - 1.0) / sig * dsig
                self.x[r][0], self.lpx[r][0] = x, lpx
                g /= N
            else:  # msc / msc-rb: one CIS step with the current state and N - 1 proposals
                x = self.x[r][0]
                ex = (x - m) / sig
                parts, es, lps = [x], [ex], [self.lpx[r][0]]
                lw = [self.lpx[r][0] - (-0.5 * float(ex @ ex) - logdet + self.c_q)]
                for _ in range(N - 1):
                    eps = noise.normal(r, D)
                    z = m + sig * eps
                    lpz = self._logpi(z)
                    parts.append(z)
                    es.append(eps)
                    lps.append(lpz)
                    lw.append(lpz - (-0.5 * float(eps @ eps) - logdet + self.c_q))
                mx = max(lw)
                w = [math.exp(v - mx) for v in lw]
                tot = sum(w)
                w = [v / tot for v in w]
                thr = noise.uniform(r) * sum(w)
                acc, k = 0.0, 0
                for k, v in enumerate(w):
                    acc += v
                    if not acc < thr:
                        break
                self.x[r][0], self.lpx[r][0] = parts[k], lps[k]
                if self.name == "msc":
                    e = es[k]
                    g[:D] = -e / sig
                    g[D:] = -(e * e - 1.0) / sig * dsig
                else:
                    for wi, e in zip(w, es):
                        g[:D] -= wi * (e / sig)
                        g[D:] -= wi * ((e * e - 1.0) / sig * dsig)
            self.last_grad.append(g)
            # Adam (optim.adam), per replicate
            self.m1[r] = B1 * self.m1[r] + (1 - B1) * g
            self.m2[r] = B2 * self.m2[r] + (1 - B2) * g * g
            den = np.sqrt(self.m2[r]) * (1.0 / math.sqrt(c2)) + ADAM_EPS
            self.lam[r] = lam - self.m1[r] * (LR / c1) / den

    def lam_array(self):
        import numpy as np

        return np.array(self.lam)


# ----------------------------------------------------------------------------- (b) JAX
def jax_or_reason():
    try:
        import jax
        import jax.numpy
    except Exception as exc:  # noqa: BLE001 (ImportError, or a broken install)
        return None, (f"JAX not available ({type(exc).__name__}: {exc}); install with `pip install "
                      f"jax jaxlib`")
    jax.config.update("jax_enable_x64", True)
    return jax, None


class JaxImpl:
    """The same iteration in JAX (float64): ``core(state, eps, u)`` is the transition plus
    Adam; ``step(state)`` draws eps and u with JAX's RNG and calls ``core``, all in one jit."""

    def __init__(self, jax, prob: Problem, name: str):
        import jax.numpy as jnp

        self.jax, self.jnp, self.p, self.name = jax, jnp, prob, name
        D, N, R = prob.D, prob.N, prob.R
        mu, Lp, log_norm = jnp.asarray(prob.mu), jnp.asarray(prob.Lp), prob.log_norm
        c_q = -0.5 * D * math.log(2 * math.pi)

        def logpi(z):
            y = (z - mu) @ Lp
            return log_norm - 0.5 * jnp.sum(y * y, -1)

        def unpack(lam):
            m, om = lam[:, :D], lam[:, D:]
            return m, jax.nn.softplus(om), jax.nn.sigmoid(om)

        def score(e, sig, dsig):  # e (..., D) standardised residuals; sig/dsig broadcastable
            return jnp.concatenate([e / sig, (e * e - 1.0) / sig * dsig], -1)

        def adam(lam, m1, m2, t, g):
            t = t + 1
            m1 = B1 * m1 + (1 - B1) * g
            m2 = B2 * m2 + (1 - B2) * g * g
            c1, c2 = 1 - B1 ** t, 1 - B2 ** t
            den = jnp.sqrt(m2) * (1.0 / jnp.sqrt(c2)) + ADAM_EPS
            return lam - m1 * (LR / c1) / den, m1, m2, t

        def core(state, eps, u):
            lam, m1, m2, t, x, lpx = state
            m, sig, dsig = unpack(lam)
            logdet = jnp.sum(jnp.log(sig), -1)
            s3, d3, m3 = sig[:, None, :], dsig[:, None, :], m[:, None, :]
            if name == "pmcsa":  # eps (R, N, D), u (R, N), x (R, N, D)
                z = m3 + s3 * eps
                lpz = logpi(z)
                ex = (x - m3) / s3
                lr = (lpz - lpx) + 0.5 * (jnp.sum(eps * eps, -1) - jnp.sum(ex * ex, -1))
                acc = jnp.log(u) < lr
                x = jnp.where(acc[..., None], z, x)
                lpx = jnp.where(acc, lpz, lpx)
                e = jnp.where(acc[..., None], eps, ex)
                g = -score(e, s3, d3).mean(1)
                rej = (~acc).mean(-1)
            elif name == "jsa":  # eps (R, N, D), u (R, N), x (R, 1, D)
                x0 = x[:, 0]
                e0 = (x0 - m) / sig
                lqx0 = -0.5 * jnp.sum(e0 * e0, -1) - logdet + c_q

                def body(carry, inp):
                    xc, lpc, lqc, ec = carry
                    ep, un = inp
                    z = m + sig * ep
                    lpz = logpi(z)
                    lqz = -0.5 * jnp.sum(ep * ep, -1) - logdet + c_q
                    acc = jnp.log(un) < (lpz - lqz) - (lpc - lqc)
                    a1 = acc[:, None]
                    new = (jnp.where(a1, z, xc), jnp.where(acc, lpz, lpc), jnp.where(acc, lqz, lqc),
                           jnp.where(a1, ep, ec))
                    return new, (new[3], acc)

                carry, (es, accs) = jax.lax.scan(body, (x0, lpx[:, 0], lqx0, e0),
                                                 (jnp.swapaxes(eps, 0, 1), jnp.swapaxes(u, 0, 1)))
                x, lpx = carry[0][:, None, :], carry[1][:, None]
                g = -score(jnp.swapaxes(es, 0, 1), s3, d3).mean(1)
                rej = (~accs).mean(0)
            else:  # msc / msc-rb: eps (R, N-1, D), u (R,), x (R, 1, D)
                x0 = x[:, 0]
                e0 = (x0 - m) / sig
                z = m3 + s3 * eps
                lpz = logpi(z)
                lw0 = lpx[:, 0] - (-0.5 * jnp.sum(e0 * e0, -1) - logdet + c_q)
                lwz = lpz - (-0.5 * jnp.sum(eps * eps, -1) - logdet[:, None] + c_q)
                lw = jnp.concatenate([lw0[:, None], lwz], -1)
                w = jax.nn.softmax(lw, -1)
                cdf = jnp.cumsum(w, -1)
                idx = jnp.minimum(jnp.sum(cdf < u[:, None] * cdf[:, -1:], -1), N - 1)
                parts = jnp.concatenate([x0[:, None], z], 1)
                es = jnp.concatenate([e0[:, None], eps], 1)
                lps = jnp.concatenate([lpx, lpz], -1)
                def take(a):
                    return jnp.take_along_axis(a, idx[:, None, None], 1)[:, 0]
                x = take(parts)[:, None]
                lpx = jnp.take_along_axis(lps, idx[:, None], 1)
                if name == "msc":
                    g = -score(take(es), sig, dsig)
                else:
                    g = -(w[..., None] * score(es, s3, d3)).sum(1)
                rej = (idx == 0).astype(jnp.float64)
            lam, m1, m2, t = adam(lam, m1, m2, t, g)
            return (lam, m1, m2, t, x, lpx), rej, g

        n_prop, C = n_proposals(name, N), (N if name == "pmcsa" else 1)
        u_shape = (R, N) if name in ("pmcsa", "jsa") else (R,)

        def step(key, state):
            key, k1, k2 = jax.random.split(key, 3)
            eps = jax.random.normal(k1, (R, n_prop, D), dtype=jnp.float64)
            u = jax.random.uniform(k2, u_shape, dtype=jnp.float64)
            state, rej, _ = core(state, eps, u)
            return key, state, rej

        self.C = C
        self.core = jax.jit(core)
        self.step = jax.jit(step)

    def init_state(self, lam, positions, logp):
        jnp = self.jnp
        lam = jnp.asarray(lam)
        return (lam, jnp.zeros_like(lam), jnp.zeros_like(lam), jnp.asarray(0.0),
                jnp.asarray(positions),
                jnp.asarray(logp))


# ----------------------------------------------------------------------------- timing helpers
def time_scheme(sch, box, k):
    """k iterations of Scheme.step; box = [RunState] is advanced in place."""
    st = box[0]
    c0 = st.counts["q_sample"]
    t0 = time.perf_counter()
    for _ in range(k):
        st, _ = sch.step(st)
    dt = (time.perf_counter() - t0) / k
    box[0] = st
    return dt, (st.counts["q_sample"] - c0) / k


def make_floor(prob, n_prop, seed, stacked=False):
    """The floor: the iteration's normals (one Generator call) and the target's product.
    ``stacked``: the product computed per replicate exactly as the fused paths compute it
    (``simulate.fused._product``: one fixed-shape BLAS call per replicate, an in-place trmm
    of its (q_sample, D) block), the only form allowed where a replicate's results must not
    depend on R: the like-for-like floor of the fused paths (informational)."""
    import numpy as np

    from simulate.fused import _product

    rng = np.random.default_rng([seed, 77])
    shape = (prob.R, n_prop, prob.D) if stacked else (prob.R * n_prop, prob.D)
    buf, out, Lp = np.empty(shape), np.empty(shape), prob.Lp

    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            rng.standard_normal(out=buf)
            if stacked:
                _product(prob.target, buf, out)
            else:
                np.matmul(buf, Lp, out=out)
        return (time.perf_counter() - t0) / k

    return run


def make_floor_tri(prob, n_prop, seed):
    """The floor with the product done as a triangular one (BLAS dtrmm, in place): Lp is
    the Cholesky factor of the precision, lower triangular (informational: a single
    (R q_sample, D) product, not allowed in the batch-invariant paths)."""
    import numpy as np
    from scipy.linalg import blas

    rng = np.random.default_rng([seed, 77])
    buf = np.empty((prob.R * n_prop, prob.D))
    LpT = prob.Lp.T  # Fortran-contiguous view of Lp^T

    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            rng.standard_normal(out=buf)
            # buf := buf @ Lp
            blas.dtrmm(1.0, LpT, buf.T, side=0, lower=0, trans_a=0, overwrite_b=1)
        return (time.perf_counter() - t0) / k

    return run


def make_floor_streams(prob, n_prop, seed):
    import numpy as np

    from simulate.rng import Streams

    streams = Streams(seed + 1, prob.R, block=BLOCK)
    buf, out, Lp = np.empty((prob.R, n_prop, prob.D)), np.empty((prob.R * n_prop, prob.D)), prob.Lp

    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            np.copyto(buf, streams.take("normal", (n_prop, prob.D)))
            np.matmul(buf.reshape(-1, prob.D), Lp, out=out)
        return (time.perf_counter() - t0) / k

    return run


def make_jax_runner(impl, key, state):
    box = [key, state]

    def run(k):
        key, st = box
        t0 = time.perf_counter()
        for _ in range(k):
            key, st, _ = impl.step(key, st)
        impl.jax.block_until_ready(st)
        dt = (time.perf_counter() - t0) / k
        box[0], box[1] = key, st
        return dt

    return run


def make_loop_runner(loop, noise):
    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            loop.step(noise)
        return (time.perf_counter() - t0) / k

    return run


# ----------------------------------------------------------------------------- check
def check_equivalence(prob, name, jax, iters=8):
    """Run library, loop and JAX on the library's own random numbers for a few iterations.

    Reports the largest |difference| to the library in the gradient estimates (all
    iterations), in lambda and in the chain positions at the end."""
    import numpy as np

    sch = prob.scheme(name)
    st = sch.init(seed=prob.seed + 11, replicates=prob.R)
    lam0, pos0, lp0 = st.lam.copy(), st.chains.position.copy(), st.chains.logp.copy()
    noise_src = st.streams.copy()  # the same draws the scheme is about to consume
    grads = []
    for _ in range(iters):
        st, info = sch.step(st)
        grads.append(info.grad)

    def diffs(g, lam, pos):
        return {"grad": float(max(np.abs(a - b).max() for a, b in zip(g, grads))),
                "lam": float(np.abs(lam - st.lam).max()),
                "position": float(np.abs(pos - st.chains.position).max())}

    out = {"iterations": iters}
    loop = LoopImpl(prob, name, lam0, pos0, lp0)
    ln = StreamNoise(name, prob.N, prob.D, noise_src.copy())
    lg = []
    for _ in range(iters):
        loop.step(ln)
        lg.append(np.array(loop.last_grad))
    out["loop_max_abs_diff"] = diffs(lg, loop.lam_array(), np.array(loop.x))
    if jax is not None:
        impl = JaxImpl(jax, prob, name)
        jst = impl.init_state(lam0, pos0, lp0)
        s = noise_src.copy()
        N, D = prob.N, prob.D
        jg = []
        for _ in range(iters):
            if name == "pmcsa":
                eps, u = s.take("normal", (N, D)), s.take("uniform/accept", (N,))
            elif name == "jsa":
                eps, u = s.take("normal", (N, 1, D))[:, :, 0], s.take(
                    "uniform/accept", (N, 1))[:, :, 0]
            else:
                eps, u = s.take("normal", (1, N - 1, D))[:, 0], s.take("uniform/select", (1,))[:, 0]
            jst, _, g = impl.core(jst, eps, u)
            jg.append(np.asarray(g))
        out["jax_max_abs_diff"] = diffs(jg, np.asarray(jst[0]), np.asarray(jst[4]))
    return out


# ----------------------------------------------------------------------------- Figure 2 estimate
FIG2 = {"schemes": SCHEME_NAMES, "optimizers": ("sgd", "momentum", "nesterov", "adam"), "n_lrs": 20,
        "replications": 20, "iters": 10_000, "D": 100, "N": 10}


def _fig2_cell(job):
    """Worker: set up one Figure 2 cell (a scheme and an optimizer; its 20 step sizes x 20
    replications as 400 rows of one run, per-row learning rates) and time ``iters``
    iterations.  Returns (scheme, optimizer, setup seconds, seconds per iteration)."""
    name, opt, D, N, n_lrs, reps, iters, seed = job
    import numpy as np

    from simulate import optim
    from simulate.families import MeanFieldGaussian
    from simulate.schemes import Scheme
    from simulate.targets import wishart_target

    t0 = time.perf_counter()
    rows = np.repeat(np.logspace(-3, 0, n_lrs), reps)  # row = i_lr * reps + replication
    sch = Scheme(name, wishart_target(D, NU), MeanFieldGaussian(D), N, optim.make(opt, rows))
    st = sch.init(seed=seed, replicates=rows.size)
    with np.errstate(all="ignore"):  # the largest step sizes diverge; that is part of the figure
        for _ in range(BLOCK):  # first block: buffers page-faulted in, counted with the set-up
            st, _ = sch.step(st)
        setup = time.perf_counter() - t0
        t1 = time.perf_counter()
        for _ in range(iters):
            st, _ = sch.step(st)
        per_iter = (time.perf_counter() - t1) / iters
    return name, opt, setup, per_iter


def estimate_figure2(args) -> dict:
    """Wall time of the paper's Figure 2 grid (001 §6.2: 4 schemes x 4 optimizers x 20 step
    sizes x 20 replications x 10^4 iterations, D = 100, N = 10) on ``--fig2-workers`` cores.

    Sample: each of the 16 (scheme, optimizer) cells is set up as the sweep runs it (its
    400 (step size, replication) rows batched in one run) and timed for ``--fig2-iters``
    iterations (block-aligned), the cells running ``--fig2-workers`` at a time in separate
    processes, so the per-iteration times include the contention of that many busy cores.
    Each cell's full time is its set-up (including its first 32 iterations, which
    page-fault the random-stream buffers in) + the remaining iterations x the time per
    iteration; the grid's wall time is the makespan of those 16 durations scheduled
    longest-first on the workers."""
    from concurrent.futures import ProcessPoolExecutor

    iters = BLOCK * math.ceil(args.fig2_iters / BLOCK)
    g = FIG2
    jobs = [(s, o, g["D"], g["N"], g["n_lrs"], g["replications"], iters, args.seed)
            for s in g["schemes"] for o in g["optimizers"]]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.fig2_workers, initializer=_unpin,
                             initargs=(ORIGINAL_CPUS,)) as ex:
        cells = list(ex.map(_fig2_cell, jobs))
    sample_wall = time.perf_counter() - t0
    full = sorted((setup + (g["iters"] - BLOCK) * per for _, _, setup, per in cells), reverse=True)
    loads = [0.0] * args.fig2_workers
    for d in full:
        loads[loads.index(min(loads))] += d
    return {"grid": dict(g), "rows_per_cell": g["n_lrs"] * g["replications"],
            "workers": args.fig2_workers,
            "iters_timed_per_cell": iters, "sample_wall_s": sample_wall,
            "load_average": (os.getloadavg() if hasattr(os, "getloadavg") else None),
            "cells": [{"scheme": s, "optimizer": o, "setup_s": su, "ms_per_iter": 1e3 * per,
                       "full_cell_s": su + (g["iters"] - BLOCK) * per} for s, o, su, per in cells],
            "cpu_s": sum(full), "estimated_wall_s": max(loads)}


def print_fig2(f):
    g = f["grid"]
    print(f"Figure 2 grid estimate ({len(g['schemes'])} schemes x {len(g['optimizers'])} "
          f"optimizers x {g['n_lrs']} step sizes x {g['replications']} replications x {g['iters']} "
          f"iterations, D={g['D']}, N={g['N']}; {f['rows_per_cell']} rows per (scheme, optimizer) "
          f"run):")
    per_scheme = {}
    for c in f["cells"]:
        per_scheme.setdefault(c["scheme"], []).append(c["ms_per_iter"])
    print("  ms/iteration of a 400-row cell, timed over " + str(f["iters_timed_per_cell"])
          + " iterations with "
          + f"{f['workers']} cells running at once: "
          + "; ".join(f"{s} {min(v):.1f}-{max(v):.1f}" for s, v in per_scheme.items()))
    print(f"  estimated wall time on {f['workers']} cores: {f['estimated_wall_s'] / 60:.1f} min "
          f"(CPU time {f['cpu_s'] / 60:.1f} min; the sample took {f['sample_wall_s']:.0f} s; "
          f"load average {', '.join(f'{x:.1f}' for x in f['load_average'] or ())})")


# ----------------------------------------------------------------------------- main
def run(args):
    import numpy as np

    load_start = _load_average()
    prob = Problem(args.dim, args.N, args.replicates, args.seed)
    jax, jax_reason = (None, "disabled with --no-jax") if args.no_jax else jax_or_reason()
    window = BLOCK * math.ceil(args.iters / BLOCK)
    R = prob.R

    runners = {}  # (scheme, variant) -> callable(k) -> seconds per iteration
    meta = {}
    for name in args.schemes:
        sch = prob.scheme(name)
        box = [sch.init(seed=args.seed, replicates=R)]
        n_prop = n_proposals(name, prob.N)
        time_scheme(sch, box, BLOCK)  # warm-up: one whole block, windows start on a block boundary
        meta[name] = {"q_sample_per_iter": None}

        def scheme_run(k, sch=sch, box=box, name=name):
            dt, q = time_scheme(sch, box, k)
            meta[name]["q_sample_per_iter"] = q
            return dt

        runners[(name, "scheme")] = scheme_run
        # informational: the generic kernels (Scheme(..., fast=False))
        gsch = prob.scheme(name, fast=False)
        gbox = [gsch.init(seed=args.seed, replicates=R)]
        time_scheme(gsch, gbox, BLOCK)
        runners[(name, "generic")] = lambda k, gsch=gsch, gbox=gbox: time_scheme(gsch, gbox, k)[0]
        runners[(name, "floor-stacked")] = make_floor(prob, n_prop, args.seed, stacked=True)
        runners[(name, "floor-stacked")](3)
        runners[(name, "floor")] = make_floor(prob, n_prop, args.seed)
        runners[(name, "floor+streams")] = make_floor_streams(prob, n_prop, args.seed)
        runners[(name, "floor-tri")] = make_floor_tri(prob, n_prop, args.seed)
        runners[(name, "floor-tri")](3)
        runners[(name, "floor")](3)
        runners[(name, "floor+streams")](BLOCK)  # warm-up, block-aligned
        st0 = box[0]
        loop = LoopImpl(prob, name, st0.lam, st0.chains.position, st0.chains.logp)
        runners[(name, "loop")] = make_loop_runner(loop, PerChainNoise(args.seed, R))
        if jax is not None:
            impl = JaxImpl(jax, prob, name)
            jr = make_jax_runner(impl, jax.random.PRNGKey(args.seed),
                                 impl.init_state(st0.lam, st0.chains.position, st0.chains.logp))
            jr(3)  # compile and warm up
            runners[(name, "jax")] = jr

    checks = {}
    if not args.no_check:
        for name in args.schemes:
            checks[name] = check_equivalence(prob, name, jax)

    variants = (["scheme", "floor", "floor-tri", "floor+streams", "floor-stacked", "loop"]
                + (["jax"] if jax is not None else []))
    jobs = ([(n, v) for n in args.schemes for v in variants]
            + [j for j in runners if j[1] == "generic"])
    samples = {j: [] for j in jobs}
    cpu_share = {j: [] for j in jobs}  # process CPU time / wall time of each call (all threads)
    for rep in range(args.repeats):
        shift = (rep * 3) % len(jobs)  # rotate the order between repeats
        for job in jobs[shift:] + jobs[:shift]:
            k = args.loop_iters if job[1] == "loop" else window
            c0, w0 = time.process_time(), time.perf_counter()
            samples[job].append(runners[job](k))
            cpu_share[job].append((time.process_time() - c0) / (time.perf_counter() - w0))

    med = {j: statistics.median(v) for j, v in samples.items()}
    # CPU time per iteration (wall x the call's CPU share): on a shared machine the wall
    # time also counts the time the process waited for the CPU; the CPU time does not
    cpu_med = {j: statistics.median(w * c for w, c in zip(samples[j], cpu_share[j])) for j in jobs}
    result = {
        "config": {"dim": prob.D, "N": prob.N, "replicates": R, "iters_per_window": window,
                   "iters_requested": args.iters, "repeats": args.repeats,
                   "loop_iters": args.loop_iters,
                   "target": prob.target.name, "family": "MeanFieldGaussian(softplus)",
                   "optimizer": f"adam(lr={LR})", "seed": args.seed, "stream_block": BLOCK},
        "environment": {"python": platform.python_version(), "numpy": np.__version__,
                        "jax": (jax.__version__ if jax is not None else None),
                        "jax_prng": (None if jax is None
                                     else str(getattr(jax.config, "jax_default_prng_impl", "?"))),
                        "machine": platform.machine(),
                        "cpu_count": os.cpu_count(), "threads": args.threads,
                        "thread_env": {k: os.environ.get(k)
                                       for k in ("OPENBLAS_NUM_THREADS", "XLA_FLAGS")},
                        "cpus": (sorted(os.sched_getaffinity(0))
                                 if hasattr(os, "sched_getaffinity") else None),
                        # the machine is shared: 1, 5 and 15 minute load averages before and after
                        "load_average_start": load_start, "load_average_end": _load_average()},
        "jax_skipped": jax_reason,
        "schemes": {},
    }
    for name in args.schemes:
        t = med[(name, "scheme")]
        q = meta[name]["q_sample_per_iter"]
        entry = {"ms_per_iter": 1e3 * t, "iters_per_s": 1.0 / t, "samples_per_s": R * q / t,
                 "q_sample_per_iter": q,
                 "cpu_over_wall": statistics.median(cpu_share[(name, "scheme")]),
                 "ms_per_iter_repeats": [1e3 * v for v in samples[(name, "scheme")]],
                 "cpu_ms_per_iter": 1e3 * cpu_med[(name, "scheme")],
                 "comparators": {}}
        for v in variants[1:] + (["generic"] if (name, "generic") in med else []):
            tv = med[(name, v)]
            entry["comparators"][v] = {"ms_per_iter": 1e3 * tv, "ratio": tv / t,
                                       "cpu_ms_per_iter": 1e3 * cpu_med[(name, v)],
                                       "cpu_ratio": cpu_med[(name, v)] / cpu_med[(name, "scheme")],
                                       "cpu_over_wall": statistics.median(cpu_share[(name, v)]),
                                       "ms_per_iter_repeats": [1e3 * x for x in samples[(name, v)]]}
        if jax is None:
            entry["comparators"]["jax"] = {"skipped": jax_reason}
        entry["scheme_over_floor"] = t / med[(name, "floor")]
        jax_ratio = entry["comparators"].get("jax", {}).get("ratio")
        stk = t / med[(name, "floor-stacked")]
        entry["targets"] = {
            "jax_over_scheme": jax_ratio, "jax_target": TARGET_JAX_OVER_SCHEME,
            "jax_met": None if jax_ratio is None else bool(jax_ratio >= TARGET_JAX_OVER_SCHEME),
            "scheme_over_floor_stacked": stk, "floor_stacked_target": TARGET_SCHEME_OVER_FLOOR_STK,
            "floor_stacked_met": bool(stk <= TARGET_SCHEME_OVER_FLOOR_STK),
            # the same two ratios on CPU time (informational; the targets are on wall time)
            "jax_over_scheme_cpu": entry["comparators"].get("jax", {}).get("cpu_ratio"),
            "scheme_over_floor_stacked_cpu": cpu_med[(name, "scheme")]
            / cpu_med[(name, "floor-stacked")]}
        if name in checks:
            entry["check"] = checks[name]
        result["schemes"][name] = entry
    return result


def print_table(res):
    c = res["config"]
    e = res["environment"]
    print(f"MCSA scheme throughput: D={c['dim']}  N={c['N']}  R={c['replicates']} replicates  "
          f"target {c['target']}  q {c['family']}  {c['optimizer']}")
    print(f"medians of {c['repeats']} interleaved repeats; windows of {c['iters_per_window']} "
          f"iterations (python loop: {c['loop_iters']}); threads={e['threads']}; numpy "
          f"{e['numpy']}, jax {e['jax']}")
    print()
    hdr = (f"{'scheme':8s} {'ms/iter':>8s} {'iter/s':>8s} {'samples/s':>10s} | {'loop':>7s} "
           f"{'jax':>6s} {'floor':>6s} | {'floor-tri':>9s} {'floor+str':>9s} {'floor-stk':>9s} "
           f"{'generic':>7s} | {'scheme/floor':>12s}")
    print(hdr)
    print("-" * len(hdr))
    for name, s in res["schemes"].items():
        cm = s["comparators"]
        jx = f"{cm['jax']['ratio']:6.2f}" if "ratio" in cm["jax"] else f"{'n/a':>6s}"
        print(f"{name:8s} {s['ms_per_iter']:8.3f} {s['iters_per_s']:8.1f} "
              f"{s['samples_per_s']:10.3g} | {cm['loop']['ratio']:7.1f} {jx} "
              f"{cm['floor']['ratio']:6.2f} | {cm['floor-tri']['ratio']:9.2f} "
              f"{cm['floor+streams']['ratio']:9.2f} {cm['floor-stacked']['ratio']:9.2f} "
              f"{cm['generic']['ratio']:7.2f} | {s['scheme_over_floor']:12.2f}")
    print()
    print("loop, jax, floor (the three comparators) and the informational columns: that variant's")
    print("time per iteration divided by the scheme's (> 1: slower than the scheme).  scheme/floor "
          "= 1 / floor.")
    print("floor-tri: the product as triangular (trmm); floor+str: normals from the schemes' "
          "blocked streams;")
    print("floor-stk: the product per replicate, as the fused paths do it; generic: "
          "Scheme(fast=False).")
    print("samples = proposals drawn (R x q_sample per iteration).  See benchmarks/README.md.")
    print("comparator times (ms/iter): " + "; ".join(
        f"{n}: " + ", ".join(f"{k} {v['ms_per_iter']:.3g}"
                             for k, v in s["comparators"].items() if "ms_per_iter" in v)
        for n, s in res["schemes"].items()))
    share = {f"{n} {v}": c["cpu_over_wall"] for n, s in res["schemes"].items()
             for v, c in [("scheme", s)] + list(s["comparators"].items()) if "cpu_over_wall" in c}
    hi = max(share, key=share.get)
    print(f"CPUs {e.get('cpus')}; CPU time / wall time per call (all threads): median over "
          f"variants {statistics.median(share.values()):.2f}, largest {share[hi]:.2f} ({hi})"
          + "".join(f", {n} jax {s['comparators']['jax']['cpu_over_wall']:.2f}"
                    for n, s in res["schemes"].items()
                    if "cpu_over_wall" in s["comparators"].get("jax", {})))
    if res["jax_skipped"]:
        print(f"jax comparator skipped: {res['jax_skipped']}")
    la = [e.get("load_average_start"), e.get("load_average_end")]
    if all(la):
        print("load average (1, 5, 15 min) at start " + ", ".join(f"{x:.2f}" for x in la[0])
              + "; at end " + ", ".join(f"{x:.2f}" for x in la[1]))
    tg = {n: s["targets"] for n, s in res["schemes"].items() if "targets" in s}
    if tg:
        def mark(ok):
            return "n/a" if ok is None else "met" if ok else "MISSED"
        print(f"targets: jax/scheme >= {TARGET_JAX_OVER_SCHEME:g}, scheme/floor-stk <= "
              f"{TARGET_SCHEME_OVER_FLOOR_STK:g}: " + "; ".join(
                  f"{n} " + ("jax n/a" if t["jax_over_scheme"] is None else
                             f"{t['jax_over_scheme']:.2f} {mark(t['jax_met'])}")
                  + f", {t['scheme_over_floor_stacked']:.2f} {mark(t['floor_stacked_met'])}"
                  for n, t in tg.items()))
        print("the same ratios on CPU time: " + "; ".join(
            f"{n} "
            + ("jax n/a" if t["jax_over_scheme_cpu"] is None else f"{t['jax_over_scheme_cpu']:.2f}")
            + f", {t['scheme_over_floor_stacked_cpu']:.2f}" for n, t in tg.items()))
    checks = {n: s["check"] for n, s in res["schemes"].items() if "check" in s}
    if checks:
        def fmt(d):
            return "/".join(f"{d[k]:.0e}" for k in ("grad", "lam", "position"))
        print(f"check, same random numbers as the library for "
              f"{next(iter(checks.values()))['iterations']} "
              "iterations, max |difference| in grad/lambda/positions: " + "; ".join(
                  f"{n}: loop {fmt(v['loop_max_abs_diff'])}"
                  + (f", jax {fmt(v['jax_max_abs_diff'])}" if "jax_max_abs_diff" in v else "")
                  for n, v in checks.items()))


def main(argv=None) -> int:
    args = parse_args(argv)
    pin_threads(args.threads)
    # the repository
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    res = {} if args.fig2_only else run(args)
    if args.fig2:
        res["figure2_estimate"] = estimate_figure2(args)
    if args.json:
        print(json.dumps(res))
        return 0
    if not args.fig2_only:
        print_table(res)
    if args.fig2:
        print()
        print_fig2(res["figure2_estimate"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
