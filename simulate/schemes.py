"""The four MCSA schemes of 001 (Algorithms 1, 4, 5 and MSC-RB), vectorised over replicates.

Each scheme turns one MCGD transition into a gradient estimate g of grad KL(pi || q):

=========  =================================================  ==========================
scheme     transition (proposal q_def(.; lambda_{t-1}))        g (score of plain q)
=========  =================================================  ==========================
msc        one CIS step, N particles (Algorithm 4)             -s(z_t)
msc-rb     one CIS step, N particles                           -sum_i wbar_i s(z_t^(i))
jsa        N sequential IMH steps (Algorithm 5)                -(1/N) sum_n s(z_t^(n))
pmcsa      one IMH step on each of N chains (Algorithm 1)      -(1/N) sum_n s(z_t^(n))
=========  =================================================  ==========================

The whole run lives in one explicit value, :class:`RunState` (lambda, chain states,
optimiser state, random streams, counters): ``state, info = scheme.step(state)``.  It can
be copied (:meth:`RunState.copy`) and checkpointed (:meth:`RunState.checkpoint` /
:meth:`RunState.restore`).

Per iteration each scheme counts evaluations of p, evaluations of q_def, samples from
q_def and score evaluations, the quantities of 001 Table 2.

Every scheme has a fused fast path for a mean-field Gaussian q on a Gaussian target
(:mod:`simulate.fused`, taken when ``fast=True``, the default): the same random numbers
and decisions as the generic kernels, results equal up to rounding (tested), with the
proposals' standardised noise shared between the kernel and the score.  ``fast=False``
runs the generic kernels.

Reproducibility: a replicate row's numbers depend only on the seed, its unit id and its
own hyper-parameters, never on R, the block size or the other rows
(tests/test_reproducibility.py).  The BLAS products in these paths are stacked over the
replicate axis (one fixed-shape call per row): see :mod:`simulate.fused`,
:class:`simulate.targets.Gaussian` and :class:`simulate.families.FullRankGaussian`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from . import fused

# StepInfo re-exported
from .kernels import ChainState, StepInfo, cis_step, draw_noise, imh_step  # noqa: F401
from .optim import Optimizer, OptState
from .rng import Streams
from .targets import Gaussian

SCHEMES = ("msc", "msc-rb", "jsa", "pmcsa")
COUNT_KEYS = ("p_eval", "q_eval", "q_sample", "score")


@dataclass
class RunState:
    """Everything an MCSA run needs, in one value."""

    lam: np.ndarray  # (R, P)
    chains: ChainState  # position (R, C, D), logp (R, C)
    opt: OptState
    streams: Streams
    t: int = 0
    counts: dict = field(default_factory=lambda: dict.fromkeys(COUNT_KEYS, 0))

    @property
    def replicates(self) -> int:
        """Number of replicate rows R."""
        return self.lam.shape[0]

    def copy(self) -> "RunState":
        """Return an independent copy (arrays, optimiser state, streams)."""
        return RunState(self.lam.copy(),
                        ChainState(self.chains.position.copy(), self.chains.logp.copy()),
                        copy.deepcopy(self.opt), self.streams.copy(), self.t, dict(self.counts))

    def checkpoint(self) -> dict:
        """Return a plain dict (arrays and scalars) from which :meth:`restore` rebuilds the run."""
        return {"lam": self.lam.copy(), "position": self.chains.position.copy(),
                "logp": self.chains.logp.copy(),
                "opt": copy.deepcopy(self.opt._asdict()), "streams": self.streams.state(),
                "t": self.t,
                "counts": dict(self.counts)}

    @classmethod
    def restore(cls, d: dict) -> "RunState":
        """Rebuild a run state from :meth:`checkpoint`'s dict."""
        return cls(d["lam"].copy(), ChainState(d["position"].copy(), d["logp"].copy()),
                   OptState(**d["opt"]),
                   Streams.from_state(d["streams"]), d["t"], dict(d["counts"]))


@dataclass(frozen=True, eq=False)
class Scheme:
    """An MCSA scheme: target, variational family, budget N, optimiser.

    ``proposal`` defaults to the family itself; pass a
    :class:`simulate.families.DefensiveMixture` to propose from q_def.
    """

    name: str
    target: Any  # duck-typed (a simulate.targets object)
    family: Any  # duck-typed (a simulate.families object)
    N: int
    optimizer: Optimizer | None = None
    proposal: Any = None
    fast: bool = True

    def __post_init__(self):
        """Check the scheme's name and budget N; the proposal defaults to the family."""
        if self.name not in SCHEMES:
            raise ValueError(f"unknown scheme {self.name!r}; choose from {', '.join(SCHEMES)}")
        if int(self.N) != self.N or self.N < (2 if self.name in ("msc", "msc-rb") else 1):
            raise ValueError(
                f"{self.name} needs an integer N >= {2 if self.name in ('msc', 'msc-rb') else 1}")
        if self.proposal is None:
            object.__setattr__(self, "proposal", self.family)

    @property
    def n_chains(self) -> int:
        """The number C of chains carried per replicate (pMCSA N, the others 1)."""
        return self.N if self.name == "pmcsa" else 1

    @property
    def dim(self) -> int:
        """Dimension D of the target."""
        return self.family.dim

    # ------------------------------------------------------------------ set-up
    def init(self, seed: int = 0, replicates: int | None = None, lam0=None, start="q",
             block: int = 32,
             units=None) -> RunState:
        """Return the initial run state: lambda_0, the chains' first states and the streams.

        The chains start from draws of q(lambda_0) (``start='q'``), of
        the target (``'target'``), or at given positions (an array (C, D) or (R, C, D)).

        Random streams: row r's numbers (initial draws and every later iteration's) come
        from ``SeedSequence(seed, spawn_key=(unit_r, kind))`` only (:mod:`simulate.rng`).
        By default ``unit_r = r`` (rows 0..R-1).  ``units`` names each row's unit
        explicitly: a sequence of R distinct non-negative ints (or tuples of ints), e.g.
        a sweep cell's replication indices; then ``replicates`` may be omitted, and a
        row gives bit-identical numbers whatever other rows share the batch and
        wherever it sits (with per-row hyper-parameters, :func:`simulate.optim.make`).
        ``lam0``: (P,) for every row or (R, P), one per row.
        """
        if units is not None:
            units = tuple(units)
            if replicates is not None and replicates != len(units):
                raise ValueError(f"replicates={replicates} but {len(units)} units")
            replicates = len(units)
        replicates = 1 if replicates is None else replicates
        if replicates < 1:
            raise ValueError("replicates must be >= 1")
        lam0 = self.family.init() if lam0 is None else np.asarray(lam0, float)
        lam = np.broadcast_to(lam0, (replicates, self.family.n_params)).copy()
        if units is None:
            streams = Streams(seed, replicates, block=block)
            init = Streams(seed, replicates, block=1, first_unit=0)
        else:
            streams = Streams.for_units(seed, units, block=block)
            init = Streams.for_units(seed, units, block=1)
        C = self.n_chains
        if isinstance(start, str) and start == "q":
            noise = {k: init.take(kind + "/init", shp)
                     for k, (kind, shp) in self.family.noise_spec((C,)).items()}
            pos = self.family.sample(lam, noise)
        elif isinstance(start, str) and start == "target":
            eps = init.take("normal/init-target", (C, self.dim))
            # stacked: one (C, D) @ (D, D) per row
            pos = self.target.mean + eps @ self.target.chol.T
        else:
            pos = np.broadcast_to(np.asarray(start, float), (replicates, C, self.dim)).copy()
        chains = ChainState(pos, self.target.logpdf(pos))
        opt = self.optimizer.init(lam) if self.optimizer is not None else OptState(0)
        return RunState(lam, chains, opt, streams)

    # ------------------------------------------------------------------ one transition
    def _workspace(self, key, make):
        """Scratch arrays reused across iterations (never part of a returned state)."""
        ws = self.__dict__.setdefault("_ws", {})
        if key not in ws:
            ws[key] = make()
        return ws[key]

    def _use_fused(self) -> bool:
        """Whether :meth:`estimate` takes the fused path of :mod:`simulate.fused`."""
        return self.fast and fused.applies(self)

    def estimate(self, lam: np.ndarray, chains: ChainState, streams: Streams,
                 want_states: bool = True) -> tuple[ChainState, StepInfo]:
        """One MCGD transition from ``chains`` under ``lam`` and its gradient estimate.

        ``want_states=False`` lets the fused paths skip forming ``StepInfo.states``
        (and MSC-RB's ``weights``), which :meth:`step` does not need.
        """
        if self._use_fused():
            return fused.PATHS[self.name](self, lam, chains, streams, want_states)
        return getattr(self, "_" + self.name.replace("-", "_"))(lam, chains, streams)

    def _msc(self, lam, chains, streams, rb: bool = False):
        N = self.N
        noise = draw_noise(self.proposal, streams, (1, N - 1))
        u = streams.take("uniform/select", (1,))
        new, info = cis_step(self.target, self.proposal, lam, chains, noise, u, N)
        if rb:
            s = self.family.score(lam, info.particles)  # (R, 1, N, P)
            g = -(info.weights[..., None] * s).sum(-2)[:, 0]
            states, weights, n_score = info.particles[:, 0], info.weights[:, 0], N
        else:
            g = -self.family.score(lam, new.position)[:, 0]
            states, weights, n_score = new.position, None, 1
        counts = {**info.counts, "score": n_score}
        return (new, StepInfo(g, (info.selected == 0).mean(-1).astype(float), counts, states,
                              weights))

    def _msc_rb(self, lam, chains, streams):
        return self._msc(lam, chains, streams, rb=True)

    def _jsa(self, lam, chains, streams):
        N = self.N
        noise = draw_noise(self.proposal, streams, (N, 1))
        u = streams.take("uniform/accept", (N, 1))
        R = lam.shape[0]
        states = np.empty((R, N, self.dim))
        logq = None
        rejected = np.zeros(R)
        counts = dict.fromkeys(COUNT_KEYS, 0)
        for n in range(N):  # N sequential IMH steps (vectorised over replicates)
            chains, info = imh_step(self.target, self.proposal, lam, chains,
                                    {k: v[:, n] for k, v in noise.items()}, u[:, n], logq)
            logq = info.logq_new
            states[:, n] = chains.position[:, 0]
            rejected += ~info.accepted[:, 0]
            for k, v in info.counts.items():
                counts[k] += v
        g = -self.family.score(lam, states).mean(1)
        counts["score"] = N
        return chains, StepInfo(g, rejected / N, counts, states)

    def _pmcsa(self, lam, chains, streams):
        N = self.N
        noise = draw_noise(self.proposal, streams, (N,))
        u = streams.take("uniform/accept", (N,))
        new, info = imh_step(self.target, self.proposal, lam, chains, noise, u)
        g = -self.family.score(lam, new.position).mean(1)
        counts = {**info.counts, "score": N}
        return new, StepInfo(g, (~info.accepted).mean(-1), counts, new.position)

    # ------------------------------------------------------------------ one iteration
    def step(self, state: RunState) -> tuple[RunState, StepInfo]:
        """lambda_t = lambda_{t-1} - gamma_t g(lambda_{t-1}, eta_t)."""
        if self.optimizer is None:
            raise ValueError("this scheme has no optimizer; use estimate() for transitions only")
        chains, info = self.estimate(state.lam, state.chains, state.streams, want_states=False)
        step, opt = self.optimizer.update(info.grad, state.opt)
        counts = {k: state.counts[k] + info.counts[k] for k in COUNT_KEYS}
        return (replace(state, lam=state.lam - step, chains=chains, opt=opt, t=state.t + 1,
                        counts=counts), info)


def kl_inclusive_meanfield(target: Gaussian, family, lam: np.ndarray) -> np.ndarray:
    """KL(pi || q(lambda)) for a Gaussian target and a mean-field q, vectorised over rows.

    (1/2)[sum_d (Sigma_dd + (mu_d - m_d)^2)/s_d^2 - D + sum_d log s_d^2 - log det Sigma].
    """
    m, var = family.mean_cov(lam)
    d = target.mean - m
    logdet_sigma = 2 * np.log(np.diag(target.chol)).sum()
    return 0.5 * (((np.diag(target.cov) + d * d) / var).sum(-1) - target.dim + np.log(var).sum(-1)
                  - logdet_sigma)
