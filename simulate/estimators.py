"""Monte Carlo estimators of gradient moments (docs/methods.md §6).

:func:`conditional_moments` estimates E[||g_t||^2 | F_{t-1}]: R independent transitions
from one fixed (lambda, chain state), so the estimate is a plain mean of R i.i.d. values
with a standard error.  It is decomposed as

    E||g||^2 = V[g] + ||b||^2 - 2 b.mu + ||mu||^2,    b = E[g | F] + mu (the bias),

with mu = E_pi s (001 Lemma 2; g estimates grad KL = -mu).  For JSA it also estimates
C_cov = (2/N^2) sum_{n>m} tr Cov(s_n, s_m | F) (001 Theorem 3).

:func:`marginal_variance` is the quantity of 001 Figure 1: the trace of the covariance of
g across many independent chains, each in its own state.

Randomness: the R transitions are split into units of ``CHUNK`` rows, each with its own
spawned stream (:class:`simulate.rng.Streams`), so the result depends on the seed only,
not on ``batch`` (units processed per vectorised pass).  Bit for bit: each row's
transition does not depend on the rows beside it (the schemes' products are stacked per
row, see :mod:`simulate.fused`), and every sum over rows is taken once, over the
concatenated rows in row order (or per CHUNK unit), never per batch and then added up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .families import sqnorm
from .kernels import ChainState
from .rng import Streams

CHUNK = 256


@dataclass(frozen=True)
class MomentEstimate:
    """Estimates with standard errors (se) from R i.i.d. transitions."""

    R: int
    second: float
    second_se: float
    variance: float
    variance_se: float
    bias_sq: float
    cross: float
    mu_sq: float
    mean_g: np.ndarray = field(repr=False)
    c_cov: float | None = None
    c_cov_se: float | None = None
    diag_var: float | None = None  # JSA: V - C_cov = (1/N^2) sum_n tr Var(s_n | F)
    diag_var_se: float | None = None
    rejection: float = 0.0

    def as_dict(self) -> dict:
        """Return the fields as plain Python numbers (``mean_g`` left out)."""
        d = {k: v for k, v in self.__dict__.items() if k != "mean_g"}
        return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in d.items()}


def _replicate(state: ChainState, rows: int) -> ChainState:
    pos = np.broadcast_to(state.position, (rows, *state.position.shape[-2:])).copy()
    logp = np.broadcast_to(state.logp, (rows, state.logp.shape[-1])).copy()
    return ChainState(pos, logp)


def conditional_moments(scheme, lam, state: ChainState, R: int = 4096, seed: int = 0, mu=None,
                        batch: int = 16, progress=None) -> MomentEstimate:
    """E[||g||^2 | lambda, state] and its decomposition from R i.i.d. transitions.

    ``state`` holds one replicate's chains: positions (C, D) or (1, C, D).  ``mu`` is
    E_pi s (computed from the family and a Gaussian target when omitted).  ``batch`` is
    the number of CHUNK-row units per vectorised pass (memory vs speed; the result does
    not depend on it).  ``progress(n)``, when given, is called after each pass with the
    number of transitions it added (the CLI's progress bar).
    """
    lam = np.asarray(lam, float).reshape(-1)
    pos = np.asarray(state.position, float)
    pos = pos[None] if pos.ndim == 2 else pos
    one = ChainState(pos[:1], np.asarray(state.logp, float).reshape(1, -1))
    if mu is None:
        mu = scheme.family.expected_score_gaussian(lam, scheme.target.mean,
                                                   np.diag(scheme.target.cov))
    units = -(-R // CHUNK)
    gs, rejs = [], []
    jsa = scheme.name == "jsa"
    cc_vals = []
    s_unit_sums = []  # per CHUNK unit, so the total does not depend on ``batch``
    a_vals = []
    for u0 in range(0, units, batch):
        nu = min(batch, units - u0)
        streams = Streams(seed, nu, unit_size=CHUNK, block=1, first_unit=u0)
        rows = nu * CHUNK
        lam_r = np.broadcast_to(lam, (rows, lam.size))
        _, info = scheme.estimate(lam_r, _replicate(one, rows), streams)
        g = info.grad
        keep = min(rows, R - u0 * CHUNK)
        g = g[:keep]
        gs.append(g)
        # summed once below: a per-batch sum would round by batch
        rejs.append(info.rejection[:keep])
        if jsa:
            s = scheme.family.score(lam_r[:keep], info.states[:keep])  # (keep, N, P)
            N = s.shape[1]
            tot = s.sum(1)
            # per replicate: (2/N^2) sum_{n>m} s_n . s_m = ((||sum s||^2 - sum ||s_n||^2)/N^2)
            own = sqnorm(s.reshape(s.shape[0], -1))  # one length-(N P) sum per row
            cc_vals.append((sqnorm(tot) - own) / N ** 2)
            a_vals.append(own / N ** 2)
            for a in range(0, keep, CHUNK):
                s_unit_sums.append(s[a:a + CHUNK].sum(0))
        if progress is not None:
            progress(keep)
    G = np.concatenate(gs)
    sq = np.einsum("rp,rp->r", G, G)
    mean_g = G.mean(0)
    dev = G - mean_g
    dsq = np.einsum("rp,rp->r", dev, dev)
    variance = dsq.sum() / (R - 1)
    b = mean_g + mu
    bias_sq = float(b @ b - variance / R)  # unbiased for ||E g + mu||^2
    c_cov = c_cov_se = diag = diag_se = None
    if jsa:
        cc = np.concatenate(cc_vals)
        smean = np.sum(np.stack(s_unit_sums), axis=0) / R  # (N, P) mean score per sweep position
        N = smean.shape[0]
        tot = smean.sum(0)
        c_cov = float(cc.mean() - (tot @ tot - np.einsum("np,np->", smean, smean)) / N ** 2)
        c_cov_se = float(cc.std(ddof=1) / np.sqrt(R))
        a_all = np.concatenate(a_vals)
        diag = float(a_all.mean() - np.einsum("np,np->", smean, smean) / N ** 2)
        diag_se = float(a_all.std(ddof=1) / np.sqrt(R))
    return MomentEstimate(
        R=R, second=float(sq.mean()), second_se=float(sq.std(ddof=1) / np.sqrt(R)),
        variance=float(variance), variance_se=float(dsq.std(ddof=1) / np.sqrt(R)),
        bias_sq=bias_sq, cross=float(-2 * b @ mu), mu_sq=float(mu @ mu), mean_g=mean_g,
        c_cov=c_cov, c_cov_se=c_cov_se, diag_var=diag, diag_var_se=diag_se,
        rejection=float(np.concatenate(rejs).sum() / R))


def marginal_variance(scheme, lam, population: ChainState, streams: Streams):
    """Compute Figure 1's variance: tr Cov of g over independent chains, one transition each.

    The quantity of Kim et al. 2022, §6.2, Figure 1.

    ``population`` holds the chains of P independent copies (rows); each takes one
    transition under ``lam`` and the trace of the empirical covariance of the P gradient
    estimates is returned with the moved population (which persists across measurements).
    """
    rows = population.logp.shape[0]
    lam_r = np.broadcast_to(np.asarray(lam, float).reshape(-1), (rows, scheme.family.n_params))
    new, info = scheme.estimate(lam_r, population, streams)
    G = info.grad
    dev = G - G.mean(0)
    return float(np.einsum("rp,rp->", dev, dev) / (rows - 1)), new
