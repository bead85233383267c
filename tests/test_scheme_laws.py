"""Exact conditional laws of the four schemes' gradients on a small finite space (issue 11, item 5).

The simulator (``simulate.schemes.Scheme.estimate``, generic kernels) is driven with
*controlled noise*: one replicate row per outcome of the transition (each proposal's
category, each accept/reject decision, each selected particle), with the uniforms placed
just inside the outcome's interval (relative margin 1e-9 from its ends).  Each row's g and
new state must equal what the scheme's definition (001 Algorithms 1, 4, 5 and MSC-RB)
gives for that outcome, and the outcomes' probabilities (from pi, q alone) must sum to 1
and reproduce the exact conditional second moments of :mod:`simulate.finite` used by the
verifications.  So the conditional law of g given the previous state is pinned exactly:
any change to which chain states enter g, or to the weights (acceptance ratios,
normalised CIS weights), moves some row's g or state.  Mutants (monkeypatched) show it.

pi, q and the score table are random (Dirichlet / normal draws, no symmetry), M = 3,
N = 3 (216 rows for JSA and pMCSA). The file runs in about 1 s.
"""

import itertools

import numpy as np
import pytest

from simulate import finite as F, kernels, schemes
from simulate.kernels import ChainState
from simulate.schemes import Scheme

M, N, P = 3, 3, 2
RNG = np.random.default_rng(20261122)
PI = RNG.dirichlet(np.ones(M) * 1.3)
Q = RNG.dirichlet(np.ones(M) * 1.1)
S = RNG.standard_normal((M, P))  # score table s(z), z in {0, 1, 2}
W = PI / Q
EDGE = 1e-9  # relative margin of a controlled uniform from the end of its outcome's interval


class FiniteTarget:
    dim = 1

    def logpdf(self, z):
        return np.log(PI[np.asarray(z)[..., 0].astype(int)])


class FiniteFamily:
    """q on {0, ..., M-1} (lambda unused), sampled by inverse CDF of one uniform per draw."""

    dim, n_params = 1, P

    def init(self):
        return np.zeros(P)

    def noise_spec(self, prefix):
        return {"u": ("uniform/proposal", tuple(prefix))}

    def sample(self, lam, noise):
        return np.searchsorted(np.cumsum(Q), noise["u"], side="right").astype(float)[..., None]

    def logpdf(self, lam, z):
        return np.log(Q[np.asarray(z)[..., 0].astype(int)])

    def score(self, lam, z):
        return S[np.asarray(z)[..., 0].astype(int)]


class Controlled:
    """A stand-in for simulate.rng.Streams that hands out prescribed uniforms."""

    def __init__(self, arrays):
        self.arrays = arrays

    def take(self, kind, shape=()):
        a = self.arrays[kind]
        assert a.shape[1:] == tuple(shape), (kind, a.shape, shape)
        return a


def u_in(lo, hi, end):
    """A uniform just inside (lo, hi): near its lower end (end=0) or upper end (end=1)."""
    return lo + (hi - lo) * (EDGE if end == 0 else 1 - EDGE)


def u_category(c):
    cq = np.concatenate([[0.0], np.cumsum(Q)])
    return 0.5 * (cq[c] + cq[c + 1])


def u_decision(a, accept):
    """IMH accepts iff log u < log a: u just below a (accept) or just above (reject)."""
    return a * (1 - EDGE) if accept else a + (1 - a) * EDGE


def _run(name, rows_noise, start, n_rows):
    sch = Scheme(name, FiniteTarget(), FiniteFamily(), N, fast=False)
    pos = np.broadcast_to(np.asarray(start, float)[None, :, None], (n_rows, len(start), 1)).copy()
    chains = ChainState(pos, FiniteTarget().logpdf(pos))
    new, info = sch.estimate(np.zeros((n_rows, P)), chains, Controlled(rows_noise))
    return new.position[..., 0].astype(int), info.grad


def imh_outcomes(x):
    """(proposal category, accepted, probability, new state) of one IMH step from x."""
    for c in range(M):
        a = min(1.0, W[c] / W[x])
        for acc in (True, False):
            p = Q[c] * (a if acc else 1 - a)
            if p > 0:
                yield c, acc, p, (c if acc else x), a


# ----------------------------------------------------------------------------- per scheme
def law_pmcsa(xs):
    """Rows: every combination of the N chains' outcomes.  Returns (sim g, defined g, p, sim new,
    defined new).
    """
    combos = list(itertools.product(*[list(imh_outcomes(x)) for x in xs]))
    up = np.array([[u_category(o[0]) for o in cb] for cb in combos])
    ua = np.array([[u_decision(o[4], o[1]) for o in cb] for cb in combos])
    new, g = _run("pmcsa", {"uniform/proposal": up, "uniform/accept": ua}, xs, len(combos))
    z = np.array([[o[3] for o in cb] for cb in combos])
    p = np.array([np.prod([o[2] for o in cb]) for cb in combos])
    return g, -S[z].mean(1), p, new, z


def law_jsa(x):
    """Rows: every path of N sequential IMH outcomes from x."""
    paths = [[]]
    for _ in range(N):
        paths = [pth + [o] for pth in paths for o in imh_outcomes(pth[-1][3] if pth else x)]
    up = np.array([[u_category(o[0]) for o in pth] for pth in paths])[..., None]
    ua = np.array([[u_decision(o[4], o[1]) for o in pth] for pth in paths])[..., None]
    new, g = _run("jsa", {"uniform/proposal": up, "uniform/accept": ua}, [x], len(paths))
    z = np.array([[o[3] for o in pth] for pth in paths])
    p = np.array([np.prod([o[2] for o in pth]) for pth in paths])
    return g, -S[z].mean(1), p, new[:, 0], z[:, -1]


def law_cis(x, rb):
    """Rows: every (N-1)-tuple of proposals x selected particle x end of its interval."""
    rows = []
    for props in itertools.product(range(M), repeat=N - 1):
        parts = (x, *props)
        wbar = W[list(parts)] / W[list(parts)].sum()
        cum = np.concatenate([[0.0], np.cumsum(wbar)])
        for i in range(N):
            for end in (0, 1):
                rows.append((props, u_in(cum[i], cum[i + 1], end),
                             np.prod(Q[list(props)]) * wbar[i] / 2,
                             parts[i], wbar, parts))
    up = np.array([[[u_category(c) for c in r[0]]] for r in rows])
    us = np.array([[r[1]] for r in rows])
    new, g = _run("msc-rb" if rb else "msc", {"uniform/proposal": up, "uniform/select": us}, [x],
                  len(rows))
    p = np.array([r[2] for r in rows])
    sel = np.array([r[3] for r in rows])
    if rb:
        defined = np.array([-(r[4][:, None] * S[list(r[5])]).sum(0) for r in rows])
    else:
        defined = -S[sel]
    return g, defined, p, new[:, 0], sel


CASES = [("pmcsa", (0, 0, 0)), ("pmcsa", (2, 0, 1)), ("jsa", 0), ("jsa", 2), ("msc", 0), ("msc", 1),
         ("msc-rb", 0), ("msc-rb", 2)]


def law(name, x):
    if name == "pmcsa":
        return law_pmcsa(x)
    if name == "jsa":
        return law_jsa(x)
    return law_cis(x, rb=name == "msc-rb")


def mismatch(name, x) -> float:
    g, defined, p, new, z = law(name, x)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    state_err = float(np.any(new != z))
    return max(float(np.abs(g - defined).max()), state_err)


@pytest.mark.parametrize("name,x", CASES)
def test_simulator_gradient_law_is_the_defined_law(name, x):
    assert mismatch(name, x) <= 1e-12


@pytest.mark.parametrize("name,x", CASES)
def test_law_gives_the_exact_moments_the_verifications_use(name, x):
    """E[||g||^2 | state] from the enumerated law equals simulate.finite's exact moments."""
    g, _, p, _, _ = law(name, x)
    second = float(p @ (g ** 2).sum(1))
    mean = p @ g
    K = F.imh_matrix(PI, Q)
    if name == "pmcsa":
        ref = F.moments_pmcsa(K, S, np.array(x))
        tol = 1e-12
    elif name == "jsa":
        ref = F.moments_jsa(K, S, x, N)
        tol = 1e-12
    elif name == "msc":
        ref = F.moments_msc(F.cis_matrix_enumerate(PI, Q, N), S, x)
        tol = 1e-12
    else:
        ref = F.moments_msc_rb(PI, Q, S, x, N)
        tol = ref.error + 1e-12
    assert second == pytest.approx(ref.second, abs=tol)
    assert np.allclose(mean, ref.mean, atol=tol)


# ----------------------------------------------------------------------------- power: mutants
def _jsa_first_n_minus_1(self, lam, chains, streams):
    new, info = ORIG_JSA(self, lam, chains, streams)
    g = -self.family.score(lam, info.states[:, :-1]).mean(1)  # averages only the first N-1 states
    return new, info._replace(grad=g)


def _msc_rb_unweighted(self, lam, chains, streams):
    new, info = ORIG_MSC(self, lam, chains, streams, rb=True)
    g = -self.family.score(lam, info.states).mean(1)  # drops the normalised weights
    return new, info._replace(grad=g)


ORIG_JSA, ORIG_MSC, ORIG_PMCSA = Scheme._jsa, Scheme._msc, Scheme._pmcsa


def _weights_squared(log_w):
    return ORIG_NW(2 * log_w)  # CIS selects with wbar^2 instead of wbar


ORIG_NW = kernels.normalised_weights


@pytest.mark.parametrize("target,attr,mutant,cases", [
    (Scheme, "_jsa", _jsa_first_n_minus_1, [("jsa", 0), ("jsa", 2)]),
    (Scheme, "_msc_rb", _msc_rb_unweighted, [("msc-rb", 0), ("msc-rb", 2)]),
    (kernels, "normalised_weights", _weights_squared, [("msc", 0), ("msc-rb", 0)]),
])
def test_mutants_are_caught(monkeypatch, target, attr, mutant, cases):
    monkeypatch.setattr(target, attr, mutant)
    for name, x in cases:
        assert mismatch(name, x) > 1e-6, (attr, name, x)


def test_acceptance_mutant_is_caught(monkeypatch):
    """IMH accepting with min(1, w(z*)/w(z))^2: some decision row flips."""
    orig = kernels.imh_step

    def squared(target, proposal, lam, state, noise, u, logq_current=None):
        return orig(target, proposal, lam, state, noise, np.sqrt(u), logq_current)

    monkeypatch.setattr(schemes, "imh_step", squared)
    for name, x in (("pmcsa", (0, 0, 0)), ("jsa", 2)):
        assert mismatch(name, x) > 1e-6


def test_which_chain_states_enter_pmcsa_is_pinned(monkeypatch):
    """pMCSA averaging the chains' previous states instead of the new ones is caught."""

    def previous(self, lam, chains, streams):
        new, info = ORIG_PMCSA(self, lam, chains, streams)
        return new, info._replace(grad=-self.family.score(lam, chains.position).mean(1))

    monkeypatch.setattr(Scheme, "_pmcsa", previous)
    assert mismatch("pmcsa", (2, 0, 1)) > 1e-6
