"""Bit-for-bit reproducibility of the simulators (issue 8 item 1, issue 9 item 2).

A replicate row's numbers may depend only on the seed, the row's unit id and its own
hyper-parameters: not on the replicate count R, the random-stream block size, the other
rows of the batch, the row's position in it, or the path (generic kernels vs fused).
Every assertion here is an exact equality (``np.array_equal``): a last-bit difference
fails.  Why each BLAS call left in these paths is shape-independent per replicate is
written next to it in simulate/schemes.py, targets.py and families.py.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simulate import fused, optim
from simulate.families import FullRankGaussian, MeanFieldGaussian, StudentT
from simulate.rng import Streams
from simulate.schemes import SCHEMES, Scheme
from simulate.targets import wishart_target

ITERS = 12


def _run(sch, iters=ITERS, **init):
    s = sch.init(**init)
    for _ in range(iters):
        s, _ = sch.step(s)
    return s


FAMILIES = {"meanfield": MeanFieldGaussian(5), "fullrank": FullRankGaussian(5),
            "student-t": StudentT(5, 4.0)}


CASES = [(f, t) for f in FAMILIES for t in ((True, False) if f == "meanfield" else (True,))]


@pytest.mark.parametrize("fam,triangular", CASES,
                         ids=[f + ("" if f != "meanfield" else "-trmm" if t else "-gemm")
                              for f, t in CASES])
@pytest.mark.parametrize("name", SCHEMES)
def test_rows_do_not_depend_on_replicate_count_block_or_path(name, fam, triangular, monkeypatch):
    """R in {1, 2, 3, 5, 17} x blocks {1, 3, 32}, fused (where it applies) and generic
    paths: the first rows agree exactly with the R = 17, block = 32 run of the same path.
    The fused paths' product is a per-replicate BLAS trmm, or (``gemm``) the stacked
    product used when the target's factor is not triangular."""
    # the product's form matters on the fused path only
    monkeypatch.setattr(fused, "TRIANGULAR", triangular)
    tgt = wishart_target(5, 10, seed=2)
    family = FAMILIES[fam]
    for fast in (True, False):
        sch = Scheme(name, tgt, family, 4, optim.make("adam", 0.05), fast=fast)
        ref = _run(sch, seed=7, replicates=17, block=32)
        for R, block in [(1, 1), (2, 3), (3, 32), (5, 1), (17, 3)]:
            s = _run(sch, seed=7, replicates=R, block=block)
            assert np.array_equal(s.lam, ref.lam[:R]), (R, block, fast)
            assert np.array_equal(s.chains.position, ref.chains.position[:R]), (R, block, fast)
            assert np.array_equal(s.chains.logp, ref.chains.logp[:R]), (R, block, fast)
        if not sch._use_fused():
            break  # the fast flag changes nothing for this family


@pytest.mark.parametrize("name", SCHEMES)
@pytest.mark.parametrize("opt", ["sgd", "momentum", "nesterov", "adam"])
def test_a_row_alone_equals_the_row_inside_a_batch_with_per_row_hyper_parameters(name, opt):
    """Issue 9 §2: one run carries a step size (and optimiser setting) per row; the row
    run alone, with unit id 11, gives the same numbers as inside a batch of other cells
    at another position, and as with a scalar hyper-parameter of the same value."""
    tgt = wishart_target(6, 10, seed=1)
    fam = MeanFieldGaussian(6)
    lrs = np.array([0.2, 0.01, 0.05, 0.003])
    extra = {"momentum": {"beta": [0.5, 0.95, 0.9, 0.0]},
             "nesterov": {"beta": [0.5, 0.95, 0.9, 0.0]},
             "adam": {"b1": [0.8, 0.95, 0.9, 0.5], "b2": [0.99, 0.9, 0.999, 0.9]}}.get(opt, {})
    units = [40, 3, 11, 7]
    batch = _run(Scheme(name, tgt, fam, 4, optim.make(opt, lrs, **extra)), seed=5, units=units)
    k = 2  # unit 11
    one = {h: np.asarray(v)[k:k + 1] for h, v in extra.items()}
    alone = _run(Scheme(name, tgt, fam, 4, optim.make(opt, lrs[k:k + 1], **one)), seed=5,
                 units=[11], block=5)
    scalar = {h: float(np.asarray(v)[k]) for h, v in extra.items()}
    alone_s = _run(Scheme(name, tgt, fam, 4, optim.make(opt, float(lrs[k]), **scalar)), seed=5,
                   units=[11])
    for s in (alone, alone_s):
        assert np.array_equal(s.lam[0], batch.lam[k])
        assert np.array_equal(s.chains.position[0], batch.chains.position[k])
    # the rows really differ (different units and settings), so the check has teeth
    assert not np.array_equal(batch.lam[0], batch.lam[k])


def test_units_name_the_streams_and_default_to_row_numbers():
    tgt = wishart_target(4, 10, seed=0)
    sch = Scheme("jsa", tgt, MeanFieldGaussian(4), 3, optim.make("sgd", 0.01))
    default = _run(sch, seed=1, replicates=3)
    named = _run(sch, seed=1, units=[0, 1, 2])
    shifted = _run(sch, seed=1, units=[1, 2])
    assert np.array_equal(default.lam, named.lam)
    assert np.array_equal(shifted.lam, default.lam[1:])
    tup = _run(sch, seed=1, units=[(4, 0), (4, 1)])
    assert not np.array_equal(tup.lam[0], default.lam[0])
    with pytest.raises(ValueError, match="distinct"):
        sch.init(seed=1, units=[2, 2])
    with pytest.raises(ValueError, match="replicates=2 but 3 units"):
        sch.init(seed=1, replicates=2, units=[0, 1, 2])
    s = Streams.for_units(3, [(1, 2), 5])
    assert s.state()["unit_ids"] == ((1, 2), 5)
    assert np.array_equal(Streams.from_state(s.state()).take("normal", (2,)),
                          s.copy().take("normal", (2,)))


def test_per_row_hyper_parameters_are_checked():
    with pytest.raises(ValueError, match="learning rate"):
        optim.make("sgd", [0.1, -1.0])
    with pytest.raises(ValueError, match="beta"):
        optim.make("momentum", 0.1, beta=[0.9, 1.0])
    with pytest.raises(ValueError, match="takes no beta"):
        optim.make("adam", 0.1, beta=0.9)
    opt = optim.make("adam", [0.1, 0.2])
    with pytest.raises(ValueError, match="need \\(R, P\\) with R = 2"):
        opt.init(np.zeros((3, 4)))


@pytest.mark.parametrize("name", ["jsa", "pmcsa", "msc-rb"])
def test_conditional_moments_do_not_depend_on_batch_bit_for_bit(name):
    """simulate.estimators promises results independent of ``batch`` (units per pass):
    every field, including the rejection rate, must agree exactly (fused paths here)."""
    from simulate.estimators import conditional_moments
    from simulate.kernels import ChainState

    tgt = wishart_target(3, 10, seed=0)
    fam = MeanFieldGaussian(3)
    sch = Scheme(name, tgt, fam, 3)
    assert sch._use_fused()
    lam = fam.init(0.2, 1.3)
    x = np.tile([0.1, -0.3, 0.8], (sch.n_chains, 1))[None]
    state = ChainState(x, tgt.logpdf(x))
    a = conditional_moments(sch, lam, state, R=1300, seed=2, batch=1)
    b = conditional_moments(sch, lam, state, R=1300, seed=2, batch=3)
    assert a.as_dict() == b.as_dict() and np.array_equal(a.mean_g, b.mean_g)
    assert 0 < a.rejection < 1


# ----------------------------------------------------------------------------- derived seeds
_EDGES = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**64 - 1, 2**64, 2**100 + 7]


@settings(max_examples=300)
@given(seed=st.one_of(st.sampled_from(_EDGES), st.integers(0, 2**130)),
       units=st.lists(st.one_of(st.sampled_from(_EDGES), st.integers(0, 2**70),
                                st.tuples(st.integers(0, 2**40), st.integers(0, 2**70))),
                      min_size=1, max_size=6, unique=True),
       kind=st.text(max_size=12))
def test_units_derived_at_once_are_numpys_seed_sequences(seed, units, kind):
    """simulate.rng.unit_generators hashes many spawn keys at once: each generator's state and
    first draws are the ones numpy.random.SeedSequence gives (unit_generator), bit for bit."""
    from simulate.rng import unit_generator, unit_generators

    fast = unit_generators(seed, units, kind)
    for u, g in zip(units, fast, strict=True):
        ref = unit_generator(seed, u, kind)
        assert g.bit_generator.state == ref.bit_generator.state
        assert np.array_equal(g.random(3), ref.random(3))


def test_derived_seeds_refuse_what_seed_sequence_refuses():
    from simulate.rng import unit_generators

    with pytest.raises(ValueError):
        unit_generators(-1, [0], "normal")
    with pytest.raises(ValueError):
        unit_generators(0, [-2], "normal")


def test_a_planted_change_to_the_hash_is_caught(monkeypatch):
    """The comparison above can fail: one constant of SeedSequence's hash changed by one."""
    from simulate import rng

    monkeypatch.setattr(rng, "_MULT_B", rng._MULT_B + 1)
    g = rng.unit_generators(3, [5], "normal")[0]
    assert g.bit_generator.state != rng.unit_generator(3, 5, "normal").bit_generator.state
