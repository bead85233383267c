"""Convergence diagnostics of an MCSA run, after the CIS-as-IMH draft.

Source: the CIS-as-IMH draft, "Inclusive Variational Inference with Independent
Metropolis-Hastings" (an unpublished draft section; docs/references.md), paragraph
"Convergence Diagnostics".  It proposes, for a run of parallel IMH chains (pMCSA of Kim
et al., NeurIPS 2022, "Markov Chain Score Ascent"):

* the **r-diagnostic**: the rejection rate of the IMH kernel, an unbiased estimate of
  the marginal rejection rate r, which the draft relates to KL(pi || q) through the
  acceptance-rate bound of Neklyudov et al. (2019, Theorem 1) (its Eq. "rej_bound");
  a high r means q is still far from pi;
* **R-hat_z**: the R-hat diagnostic (Gelman and Rubin 1992; rank-normalised split R-hat
  of Vehtari et al. 2021) over the chain states z_t of the N parallel chains; R-hat_z
  near 1 says the chains agree, so the gradient estimates built from them are reliable
  (it diagnoses z, not lambda);
* and, for comparison, **R-hat_lambda** (Dhaka et al., NeurIPS 2020): R-hat on the
  variational parameters lambda_t across independent runs.

Here every scheme gets all three.  pMCSA's chains are its N parallel chains (one R-hat_z
per replicate run); MSC, MSC-RB and JSA carry one chain per run, so their R-hat_z is taken
across the independent replicate runs of a cell (needs >= 2 replicates, else NaN).
R-hat_lambda is always across replicates.  ESS_z is the bulk effective sample size of the
same draws (Vehtari et al. 2021).

What is measured.  A chain state is a D-vector; R-hat and ESS are computed on the
scalar log pi(z_t) of each chain (the "lp" summary MCMC software reports), which costs
nothing (the kernels cache it) and is invariant to the parametrisation.  R-hat_lambda is
the largest split R-hat (Gelman et al. 2013; the rank-normalised version costs 12x more
over the 2D coordinates) over the coordinates of lambda.  All three are
computed with ArviZ (``arviz_stats.base.array_stats``), over a sliding window of
iterations (in a run, the last max(record_every, 20) iterations, thinned to at most 50
draws per chain); the rejection rate is averaged over the iterations since the
previous logged iteration.  Fewer than 4 draws per chain, or too few chains, gives
NaN (reported as null in JSON).
"""

from __future__ import annotations

import warnings
from collections import deque

import numpy as np

__all__ = ["rhat", "ess", "Window", "MIN_DRAWS"]

#: fewer draws per chain than this gives NaN diagnostics
MIN_DRAWS = 4


def _array_stats():
    from arviz_stats.base import array_stats  # ~1 s to import: only when a diagnostic is asked for

    return array_stats


def _diagnostic(name, x, chain_axis, draw_axis, min_chains, method):
    """Compute ArviZ's ``array_stats.<name>`` over (chain, draw), warnings silenced.

    NaN over the batch axes where there are fewer than ``min_chains`` chains or
    :data:`MIN_DRAWS` draws.
    """
    x = np.asarray(x, dtype=float)
    if x.shape[chain_axis] < min_chains or x.shape[draw_axis] < MIN_DRAWS:
        pooled = (chain_axis % x.ndim, draw_axis % x.ndim)
        return np.full([n for i, n in enumerate(x.shape) if i not in pooled], np.nan)
    stat = getattr(_array_stats(), name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(stat(x, chain_axis=chain_axis, draw_axis=draw_axis, method=method),
                          dtype=float)


def rhat(x, chain_axis: int = 0, draw_axis: int = 1, method: str = "rank") -> np.ndarray:
    """Compute R-hat over the chain axis (ArviZ); other axes are batch axes.

    ``method="rank"``: rank-normalised split
    R-hat (Vehtari et al. 2021); ``"split"``: split R-hat (Gelman et al. 2013, BDA3 §11.4),
    about 12x cheaper.

    NaN where there are fewer than 2 chains or fewer than :data:`MIN_DRAWS` draws.  A
    constant series across chains stuck at different values gives inf.
    """
    return _diagnostic("rhat", x, chain_axis, draw_axis, min_chains=2, method=method)


def ess(x, chain_axis: int = 0, draw_axis: int = 1) -> np.ndarray:
    """Bulk effective sample size (Vehtari et al. 2021) by ArviZ, over all chains together.

    NaN where there are fewer than :data:`MIN_DRAWS` draws per chain.
    """
    return _diagnostic("ess", x, chain_axis, draw_axis, min_chains=1, method="bulk")


def _nanmax(x, axis):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices stay NaN
        return np.nanmax(x, axis=axis)


class Window:
    """Collects a run's recent history and summarises it per replicate.

    ``add(logp, lam, rejection, grad)`` once per iteration with the chain states' log
    target densities ``logp (R, C)``, the parameters ``lam (R, P)``, the rejection
    fractions ``(R,)`` and the gradient estimates ``(R, P)``.  The rejection rate and the
    gradient norm are averaged over the iterations since the last :meth:`summary`; R-hat
    and ESS use the last ``span`` iterations, every ``thin``-th one (a sliding window, so
    that they are defined even when a run is logged at every iteration; ``rhat_ess=False``
    skips them: NaN).
    ``summary()`` returns per-replicate arrays ``(R,)``:

    ``r``
        mean rejection rate (the CIS-as-IMH draft's r-diagnostic)
    ``grad_norm``
        mean ||g_t||
    ``rhat_z``
        R-hat of log pi(z) over the replicate's N chains (``per_replicate``, pMCSA) or across
        the R replicate chains (the same value in every row)
    ``ess_z``
        bulk ESS of the same draws (all chains together)
    ``rhat_lambda``
        max over coordinates of split R-hat of lambda across the R replicates

    ``group=G``: the rows are consecutive groups of G replicates of different runs (e.g. a
    batch of step sizes); diagnostics across replicates are taken within each group.
    """

    def __init__(self, per_replicate: bool, span: int = 20, max_draws: int = 50,
                 rhat_ess: bool = True,
                 group: int | None = None):
        self.per_replicate = per_replicate
        self.rhat_ess = rhat_ess
        self.group = group
        self.span = max(1, int(span))
        self.thin = max(1, -(-self.span // max(1, int(max_draws))))
        self._draws: deque[tuple[np.ndarray, np.ndarray]] = deque(
            maxlen=max(1, self.span // self.thin))
        self._n_total = 0
        self._start()

    def _start(self):
        self._n = 0
        self._rej: np.ndarray | float = 0.0
        self._gn: np.ndarray | float = 0.0

    def add(self, logp, lam, rejection, grad):
        """Record one iteration: log pi of the states, lambda, rejection fractions, gradients."""
        self._rej = self._rej + np.asarray(rejection, dtype=float)
        g = np.asarray(grad, dtype=float)
        self._gn = self._gn + np.sqrt(np.einsum("rp,rp->r", g, g))
        self._n += 1
        self._n_total += 1
        if self.rhat_ess and self._n_total % self.thin == 0:
            self._draws.append((np.array(logp, dtype=float), np.array(lam, dtype=float)))

    def summary(self, rhat_ess: bool = True) -> dict:
        """Summarise, and start a new averaging period for r and grad_norm.

        Summarise, and start a new averaging period for r and grad_norm.
        ``rhat_ess=False``: skip R-hat and ESS this time (NaN; they cost ArviZ calls).
        """
        if self._n == 0:
            raise ValueError("no iteration since the last summary")
        r = self._rej / self._n
        assert isinstance(r, np.ndarray)  # add() has run (n > 0)
        R = r.shape[0]
        out: dict[str, np.ndarray | float] = {"r": r, "grad_norm": self._gn / self._n}
        self._start()
        if len(self._draws) == 0 or not rhat_ess:
            nan = np.full(R, np.nan)
            out.update(rhat_z=nan, ess_z=nan.copy(), rhat_lambda=nan.copy())
            return out
        lp = np.stack([d[0] for d in self._draws], axis=-1)  # (R, C, draws)
        lam = np.stack([d[1] for d in self._draws], axis=1)  # (R, draws, P)
        G = self.group or R
        if R % G:
            raise ValueError(f"{R} rows do not split into groups of {G}")
        if self.per_replicate:
            rz = rhat(lp, chain_axis=1, draw_axis=2)
            ez = ess(lp, chain_axis=1, draw_axis=2)
        else:  # one chain per replicate: the replicates of a group are the chains
            x = lp[:, 0, :].reshape(R // G, G, -1)
            rz = np.repeat(rhat(x, 1, 2), G)
            ez = np.repeat(ess(x, 1, 2), G)
        lam_g = lam.reshape(R // G, G, *lam.shape[1:])
        rl = np.repeat(_nanmax(rhat(lam_g, 1, 2, method="split"), axis=1), G)
        out.update(rhat_z=rz, ess_z=ez, rhat_lambda=rl)
        return out
