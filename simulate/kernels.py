"""Markov kernels of 001 Appendix B.1, vectorised over chains and replicates.

Pure functions in the BlackJAX style: ``kernel(target, proposal, lam, state, noise, u)
-> (state, info)``.  All randomness comes in through ``noise`` (the proposal's random
primitives, see ``family.noise_spec``) and ``u`` (uniforms), drawn by the caller from
:class:`simulate.rng.Streams`; the kernels never touch an RNG.

Shapes: parameters ``lam (B, P)``; chain positions ``(B, C, D)`` (B replicate rows, C
chains each); log target cached in ``logp (B, C)``.  Importance weights are handled in
log space only (``log w = log pi - log q_def``), so w* up to 1e300 and beyond is safe.

* :func:`imh_step` — independent Metropolis-Hastings (Algorithm 3).
* :func:`cis_step` — conditional importance sampling / i-SIR (Algorithm 2) with ``N``
  particles: the current state and N - 1 proposals, multinomial selection by inverse CDF.
  Its info record carries the normalised weights and particles, which MSC-RB reuses
  (the Rao-Blackwellised estimator, 001 Theorem 2 proof).

Each info record counts, per replicate row, evaluations of p, evaluations of q_def and
samples from q_def (001 Table 2).

Reproducibility: the kernels are elementwise over rows except for the target's and the
family's products, which are stacked per row (``Gaussian.logpdf``, ``FullRankGaussian``)
and reductions over the last axis (weights over N particles, squared norms over D), whose
order depends only on that axis' length.  So a row's transition does not depend on how
many rows share the batch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class ChainState:
    """Chain positions (B, C, D) with their cached log target densities (B, C).

    A state may instead hold its positions in standardised form ``std = (E, m, s)``,
    position = m + s * E (per replicate row m, s of shape (B, D)), as the fused pMCSA
    path produces; ``position`` is then computed on first access and cached.

    Parameters
    ----------
    position : numpy.ndarray or None
        The positions, shape (B, C, D); None when ``std`` is given.
    logp : numpy.ndarray
        The log target densities at them, shape (B, C).
    std : tuple of numpy.ndarray, optional
        ``(E, m, s)``: the positions in standardised form.
    """

    __slots__ = ("_position", "logp", "std")

    def __init__(self, position, logp, std=None):
        if position is None and std is None:
            raise ValueError("a chain state needs positions or their standardised form")
        self._position = position
        self.logp = logp
        self.std = std

    @property
    def position(self) -> np.ndarray:
        """The states (B, C, D), formed from the fused path's (E, m, s) on first use."""
        if self._position is None:
            E, m, s = self.std
            self._position = m[:, None, :] + s[:, None, :] * E
        return self._position

    def __repr__(self) -> str:
        """Show the shapes of the positions and log densities."""
        return f"ChainState(position{tuple(self.position.shape)}, logp{tuple(self.logp.shape)})"


class StepInfo(NamedTuple):
    """What one iteration of a scheme returns: the gradient estimate and the counts.

    grad (R, P); rejection (R,) fraction of rejected moves this iteration;
    counts per replicate this iteration; states (R, n, D): the states g was built from
    (JSA: the N sequential states; pMCSA: the N chains; MSC: the new state; MSC-RB:
    the N particles, with ``weights`` (R, N)); ``None`` from the fused paths when
    ``Scheme.step`` asks them not to form it).

    Parameters
    ----------
    grad : numpy.ndarray
        The gradient estimate, shape (R, P).
    rejection : numpy.ndarray
        The fraction of rejected moves, shape (R,).
    counts : dict
        Counts per replicate this iteration.
    states : numpy.ndarray or None
        The states g was built from, shape (R, n, D).
    weights : numpy.ndarray, optional
        MSC-RB: the particles' weights, shape (R, N).
    """

    grad: np.ndarray
    rejection: np.ndarray
    counts: dict
    states: np.ndarray | None
    weights: np.ndarray | None = None


class IMHInfo(NamedTuple):
    """What one IMH step returns (Kim et al. 2022, Eq. (3)).

    accepted: (B, C) moved to the proposal; log weights of current and proposal;
    logq_new: log q_def of the new state (reusable while lambda is unchanged);
    counts: per replicate row.

    Parameters
    ----------
    accepted : numpy.ndarray
        (B, C): moved to the proposal.
    log_w_current, log_w_proposal : numpy.ndarray
        Log weights of the current state and of the proposal.
    logq_new : numpy.ndarray
        log q_def of the new state.
    counts : dict
        Per replicate row.
    """

    accepted: np.ndarray
    log_w_current: np.ndarray
    log_w_proposal: np.ndarray
    logq_new: np.ndarray
    counts: dict


class CISInfo(NamedTuple):
    """What one CIS step returns: the selected particle and the weights.

    selected: (B, C) particle index (0 = the current state, a 'rejection');
    weights: (B, C, N) normalised importance weights; particles: (B, C, N, D);
    log_weights: (B, C, N); counts: per replicate row.

    Parameters
    ----------
    selected : numpy.ndarray
        (B, C) particle index.
    weights : numpy.ndarray
        (B, C, N) normalised importance weights.
    log_weights : numpy.ndarray
        (B, C, N).
    particles : numpy.ndarray
        (B, C, N, D).
    counts : dict
        Per replicate row.
    """

    selected: np.ndarray
    weights: np.ndarray
    log_weights: np.ndarray
    particles: np.ndarray
    counts: dict

    @property
    def accepted(self) -> np.ndarray:
        """True where the chain moved (the selected particle is not the current state)."""
        return self.selected != 0


def draw_noise(proposal, streams, prefix: tuple) -> dict:
    """Draw the proposal's random primitives for samples of shape ``(rows, *prefix, D)``.

    Parameters
    ----------
    proposal : simulate.families.Family
        The proposal family (its ``noise`` primitives).
    streams : simulate.rng.Streams
        The random streams drawn from.
    prefix : tuple of int
        The sample shape between the rows and D.

    Returns
    -------
    dict
        ``{name: array}``, one array per primitive.
    """
    return {name: streams.take(kind, shape)
            for name, (kind, shape) in proposal.noise_spec(prefix).items()}


def imh_step(target, proposal, lam, state: ChainState, noise: dict, u: np.ndarray,
             logq_current: np.ndarray | None = None) -> tuple[ChainState, IMHInfo]:
    """One IMH transition per chain: accept z* ~ q_def with prob min(1, w(z*)/w(z)).

    Parameters
    ----------
    target : simulate.targets.Gaussian
        The target pi.
    proposal : simulate.families.Family
        The proposal family q_def.
    lam : numpy.ndarray
        Its parameters.
    state : ChainState
        The current states.
    noise : dict
        The proposal's primitives (:func:`draw_noise`).
    u : numpy.ndarray
        Uniforms of the accept step, shape (B, C).
    logq_current : numpy.ndarray, optional
        log q_def of the current states, when known.

    Returns
    -------
    (ChainState, IMHInfo)
        The new states and what the step did.
    """
    z = proposal.sample(lam, noise)
    logp_z = target.logpdf(z)
    logq_z = proposal.logpdf(lam, z)
    C = state.logp.shape[-1]
    q_evals = C
    if logq_current is None:
        logq_current = proposal.logpdf(lam, state.position)
        q_evals += C
    lw_z = logp_z - logq_z
    lw_x = state.logp - logq_current
    with np.errstate(divide="ignore"):
        accept = np.log(u) < lw_z - lw_x
    pos = np.where(accept[..., None], z, state.position)
    logp = np.where(accept, logp_z, state.logp)
    logq_new = np.where(accept, logq_z, logq_current)
    counts = {"p_eval": C, "q_eval": q_evals, "q_sample": C}
    return ChainState(pos, logp), IMHInfo(accept, lw_x, lw_z, logq_new, counts)


def normalised_weights(log_w: np.ndarray) -> np.ndarray:
    """exp(log_w) / sum exp(log_w) along the last axis, stable in log space.

    Parameters
    ----------
    log_w : numpy.ndarray
        Log weights.

    Returns
    -------
    numpy.ndarray
        Normalised weights, same shape.
    """
    mx = log_w.max(axis=-1, keepdims=True)
    w = np.exp(log_w - mx)
    w /= w.sum(axis=-1, keepdims=True)
    return w


def select_index(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Multinomial draw of one index per row by inverse CDF with uniforms u.

    Parameters
    ----------
    weights : numpy.ndarray
        Normalised weights along the last axis.
    u : numpy.ndarray
        One uniform per row.

    Returns
    -------
    numpy.ndarray
        One index per row.
    """
    cdf = np.cumsum(weights, axis=-1)
    idx = (cdf < u[..., None] * cdf[..., -1:]).sum(axis=-1)
    return np.minimum(idx, weights.shape[-1] - 1)


def cis_step(target, proposal, lam, state: ChainState, noise: dict, u: np.ndarray, N: int
             ) -> tuple[ChainState, CISInfo]:
    """One CIS (i-SIR) transition with N particles per chain.

    ``noise`` must hold primitives for samples of shape (B, C, N - 1, D).

    Parameters
    ----------
    target : simulate.targets.Gaussian
        The target pi.
    proposal : simulate.families.Family
        The proposal family q_def.
    lam : numpy.ndarray
        Its parameters.
    state : ChainState
        The current states.
    noise : dict
        The proposal's primitives (:func:`draw_noise`).
    u : numpy.ndarray
        Uniforms of the selection, shape (B, C).
    N : int
        Particles per chain (the current state and N - 1 proposals).

    Returns
    -------
    (ChainState, CISInfo)
        The new states and what the step did.
    """
    if N < 2:
        raise ValueError("CIS needs N >= 2 particles")
    props = proposal.sample(lam, noise)  # (B, C, N-1, D)
    logp_p = target.logpdf(props)
    logq_p = proposal.logpdf(lam, props)
    logq_x = proposal.logpdf(lam, state.position)
    log_w = np.concatenate([(state.logp - logq_x)[..., None], logp_p - logq_p], axis=-1)
    w = normalised_weights(log_w)
    idx = select_index(w, u)
    particles = np.concatenate([state.position[..., None, :], props], axis=-2)
    pos = np.take_along_axis(particles, idx[..., None, None], axis=-2)[..., 0, :]
    all_logp = np.concatenate([state.logp[..., None], logp_p], axis=-1)
    logp = np.take_along_axis(all_logp, idx[..., None], axis=-1)[..., 0]
    C = state.logp.shape[-1]
    counts = {"p_eval": C * (N - 1), "q_eval": C * N, "q_sample": C * (N - 1)}
    return ChainState(pos, logp), CISInfo(idx, w, log_w, particles, counts)
