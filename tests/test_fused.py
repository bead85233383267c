"""The fused paths (simulate/fused.py) against the generic kernels, on the same random numbers.

Rounding bound: a fused gradient component is the same sum of at most N score terms as
the generic one, each term formed with a few roundings in another order (e*inv instead
of e/sigma, a(z) instead of log pi - log q, weights applied once per held state), so
the two differ by at most c N u (1 + max|g|) with u = 2^-53 and c a small constant; we
allow 1e-13 (1 + max|g|) per iteration (D = 8, N = 6: about 150 N u).  Over 60 Adam
iterations those differences feed back through lambda: lambda and positions are compared
at 1e-12, log pi (of size ~100) at 1e-11 (observed: a few 1e-15).  Decisions (acceptances, CIS
selections) must agree exactly: they differ only when a uniform falls within ~1e-15 of the threshold
(probability of order 1e-13 per decision here, never seen).
"""  # noqa: E501

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


# ----------------------------------------------------------------------------- same bits, cheaper
@pytest.mark.parametrize("density", [0.0, 0.03, 0.3, 1.0])
def test_sparse_held_sums_are_bit_identical_to_the_weighted_einsum(density):
    """JSA's held-step counts summed over their nonzero terms only (rows with several
    nonzero terms included) give the bits of the einsum over all terms."""
    if not fused.EINSUM_IN_ORDER:
        pytest.skip("this NumPy's einsum is not an in-order sum; the sparse sums are always used")
    rng = np.random.default_rng(int(density * 100))
    R, N, D = 23, 9, 37
    c = np.where(rng.random((R, N)) < density, rng.integers(1, N + 1, (R, N)), 0).astype(float)
    c[0] = np.arange(N)  # a row with N - 1 nonzero terms
    eps = rng.standard_normal((R, N, D))
    e0, c0 = rng.standard_normal((R, D)), rng.integers(0, N, R).astype(float)
    ref = fused._weighted(c, eps, e0, c0, np.empty_like(eps))
    got = fused._held_sums(c, eps, e0, c0)
    assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])
    # with teeth: a different summation order would show in the last bits
    shuffled = fused._weighted(c[:, ::-1], eps[:, ::-1], e0, c0, np.empty_like(eps))
    assert density < 0.3 or not np.array_equal(shuffled[0], ref[0])


@pytest.mark.parametrize("shape", [(1, 1, 1), (9, 1, 1), (10, 2, 1), (10, 1, 3), (6, 17, 5)])
def test_chain_sums_two_calls_equal_the_ordered_loop(shape, monkeypatch):
    x = np.random.default_rng(sum(shape)).standard_normal(shape) * 3.0
    fast = fused.chain_sums(x)
    monkeypatch.setattr(fused, "EINSUM_IN_ORDER", False)
    loop = fused.chain_sums(x)
    assert np.array_equal(fast[0], loop[0]) and np.array_equal(fast[1], loop[1])


@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_jsa_dense_and_sparse_sums_give_the_same_run(fraction, monkeypatch):
    """SPARSE_FRACTION only chooses how JSA's sums are computed, never their bits."""
    a_s, _ = _pair("jsa", MeanFieldGaussian(8))
    ref = a_s.init(seed=5, replicates=6)
    for _ in range(30):
        ref, iref = a_s.step(ref)
    monkeypatch.setattr(fused, "SPARSE_FRACTION", fraction)
    st = a_s.init(seed=5, replicates=6)
    for _ in range(30):
        st, ist = a_s.step(st)
    assert np.array_equal(st.lam, ref.lam) and np.array_equal(ist.grad, iref.grad)


def test_unpack_softplus_is_the_familys_formula_bit_for_bit():
    fam = MeanFieldGaussian(6)
    lam = np.random.default_rng(0).standard_normal((40, 12)) * 30.0
    lam[0, 6:] = [0.0, -0.0, 800.0, -800.0, 1e-300, np.nan]
    m, sig, dsig = fused.unpack(fam, lam)
    m2, sig2, dsig2 = fam.unpack(lam)
    for a, b in ((m, m2), (sig, sig2), (dsig, dsig2)):
        assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(np.signbit(a), np.signbit(b))
