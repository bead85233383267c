"""The fused paths (simulate/fused.py) against the generic kernels, on the same random numbers.

Rounding bound: a fused gradient component is the same sum of at most N score terms as
the generic one, each term formed with a few roundings in another order (e*inv instead
of e/sigma, a(z) instead of log pi - log q, weights applied once per held state), so
the two differ by at most c N u (1 + max|g|) with u = 2^-53 and c a small constant; we
allow 1e-13 (1 + max|g|) per iteration (D = 8, N = 6: about 150 N u).  Over 60 Adam
iterations those differences feed back through lambda: lambda and positions are compared
at 1e-12, log pi (of size ~100) at 1e-11 (observed: a few 1e-15).  Decisions (acceptances, CIS selections) must agree exactly: they
differ only when a uniform falls within ~1e-15 of the threshold (probability of order
1e-13 per decision here, never seen).
"""

import numpy as np
import pytest

from simulate import fused, optim
from simulate.families import MeanFieldGaussian, StudentT
from simulate.schemes import SCHEMES, Scheme
from simulate.targets import isotropic, wishart_target

FAMS = [MeanFieldGaussian(8), MeanFieldGaussian(8, "log")]


def _pair(name, fam, N=6, tgt=None):
    tgt = wishart_target(8, 20, seed=0) if tgt is None else tgt
    a = Scheme(name, tgt, fam, N, optim.make("adam", 0.05), fast=True)
    b = Scheme(name, tgt, fam, N, optim.make("adam", 0.05), fast=False)
    assert a._use_fused() and not b._use_fused()
    return a, b


@pytest.mark.parametrize("fam", FAMS, ids=["softplus", "log"])
@pytest.mark.parametrize("name", SCHEMES)
def test_fused_equals_generic_over_a_run(name, fam):
    a_s, b_s = _pair(name, fam)
    a, b = a_s.init(seed=4, replicates=5), b_s.init(seed=4, replicates=5)
    for _ in range(60):
        a, ia = a_s.step(a)
        b, ib = b_s.step(b)
        assert np.array_equal(ia.rejection, ib.rejection)
        assert ia.counts == ib.counts
        assert np.abs(ia.grad - ib.grad).max() <= 1e-13 * (1 + np.abs(ib.grad).max())
    assert np.abs(a.lam - b.lam).max() < 1e-12
    assert np.abs(a.chains.position - b.chains.position).max() < 1e-12
    assert np.abs(a.chains.logp - b.chains.logp).max() < 1e-11
    assert a.counts == b.counts


@pytest.mark.parametrize("name", SCHEMES)
def test_one_transition_from_the_same_state_same_decisions_states_and_weights(name):
    """From one state: the same moves; single-chain positions (MSC, MSC-RB, JSA) are
    bit-identical (formed as m + sigma eps in both paths); JSA's N states and MSC-RB's
    particles and weights as the generic ones."""
    fam = MeanFieldGaussian(8)
    a_s, b_s = _pair(name, fam)
    st = b_s.init(seed=2, replicates=7)
    for _ in range(5):  # move lambda away from its start
        st, _ = b_s.step(st)
    na, ia = a_s.estimate(st.lam, st.chains, st.streams.copy())
    nb, ib = b_s.estimate(st.lam, st.chains, st.streams.copy())
    assert np.array_equal(ia.rejection, ib.rejection)
    assert 0 < ib.rejection.mean() < 1  # both moves and rejections occur, so the check has teeth
    if name != "pmcsa":
        assert np.array_equal(na.position, nb.position)
    else:
        assert np.abs(na.position - nb.position).max() < 1e-13
    assert np.abs(na.logp - nb.logp).max() < 1e-11
    if name == "jsa":
        assert np.array_equal(ia.states, ib.states)
    elif name != "pmcsa":
        assert np.array_equal(ia.states, ib.states)
    if name == "msc-rb":
        assert np.abs(ia.weights - ib.weights).max() < 1e-13
    # states are optional in the hot loop; the gradient does not change
    _, ic = a_s.estimate(st.lam, st.chains, st.streams.copy(), want_states=False)
    assert np.array_equal(ic.grad, ia.grad) and ic.states is None


def test_fused_path_applies_only_where_it_is_exact():
    tgt = isotropic(3)
    assert Scheme("jsa", tgt, MeanFieldGaussian(3), 2)._use_fused()
    assert not Scheme("jsa", tgt, StudentT(3), 2)._use_fused()
    assert not Scheme("jsa", tgt, MeanFieldGaussian(3), 2, fast=False)._use_fused()


def test_unpack_is_elementwise_and_overflow_safe():
    """sigma for omega = 800 is finite, and a row's sigma does not depend on another row's
    omega (no batch-wide choice of formula)."""
    fam = MeanFieldGaussian(3)
    lam = np.array([[0.0, 0.0, 0.0, -2.0, 0.5, 3.0], [0.0, 0.0, 0.0, 800.0, -800.0, 1.0]])
    m, sig, dsig = fused.unpack(fam, lam)
    assert np.all(np.isfinite(sig)) and sig[1, 0] == 800.0 and dsig[1, 0] == 1.0
    alone = fused.unpack(fam, lam[:1])
    assert np.array_equal(alone[1], sig[:1]) and np.array_equal(alone[2], dsig[:1])


def test_a_wrong_fused_gradient_would_be_caught():
    """The comparison has teeth: perturbing the fused gradient by 1e-10 relative fails it."""
    a_s, b_s = _pair("jsa", MeanFieldGaussian(8))
    st = b_s.init(seed=3, replicates=4)
    _, ia = a_s.estimate(st.lam, st.chains, st.streams.copy())
    _, ib = b_s.estimate(st.lam, st.chains, st.streams.copy())
    bad = ia.grad * (1 + 1e-10)
    assert np.abs(ia.grad - ib.grad).max() <= 1e-13 * (1 + np.abs(ib.grad).max())
    assert not np.abs(bad - ib.grad).max() <= 1e-13 * (1 + np.abs(ib.grad).max())
