"""simulate.rigorous and the kim2022 exact checks: tracked floats enclose the exact values, the
exact kernels and closed forms agree with independent computations, and the checks built on them
are decided exactly where a tie or float64 noise would otherwise decide them."""

from fractions import Fraction

import numpy as np
import pytest
from flint import arb, fmpq

from bounds.enclosure import Enclosure
from simulate import finite as F, rigorous as RG
from verify.decide import decide
from verify.model import HOLDS, INCONCLUSIVE, VIOLATED, CheckResult


def _exact(t):
    return np.vectorize(RG.frac, otypes=[object])(t)


def _covered(tf: RG.TF, exact) -> bool:
    """|v - exact| <= e entrywise, decided in exact rationals."""
    ex = np.broadcast_to(np.asarray(exact, dtype=object), tf.v.shape)
    return all(abs(Fraction(float(v)) - RG.frac(x)) <= Fraction(float(e))
               for v, e, x in zip(tf.v.ravel(), tf.e.ravel(), ex.ravel()))


def _rand_q(rng, shape, scale=1.0):
    """Random rationals that are not doubles (so every rounding is real)."""
    num = rng.integers(1, 10 ** 12, size=shape)
    den = rng.integers(1, 10 ** 12, size=shape) * 3
    sign = rng.choice([-1, 1], size=shape)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        out[idx] = fmpq(int(sign[idx] * num[idx]), int(den[idx])) * RG.fmpq_of(scale)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_tracked_floats_enclose_the_exact_result_of_every_operation(seed):
    rng = np.random.default_rng(seed)
    A, B = _rand_q(rng, (4, 4)), _rand_q(rng, (4, 4), 1e-3)
    a, b = RG.TF.exact(A), RG.TF.exact(B)
    assert _covered(a, A) and _covered(b, B)
    assert _covered(a + b, A + B) and _covered(a - b, A - B) and _covered(a * b, A * B)
    assert _covered(a @ b, A @ B) and _covered((a @ b).sum(0), (A @ B).sum(0))
    assert _covered(a / b, A / B) and _covered(a ** 5, A ** 5)
    # sqrt: the exact root lies in the tracked ball (checked in ball arithmetic at 200 bits)
    r = (a * a).sum(1).sqrt()
    from bounds.enclosure import precision

    with precision(200):
        for v, e, x in zip(r.v, r.e, (A * A).sum(1)):
            assert (arb(x).sqrt() - arb(float(v))).abs_upper() <= arb(float(e))


def test_tracked_floats_need_their_error_bound():
    """A computation whose float64 result is off (cancellation): the tracked bound covers the
    true error, which a zero error (4 ulps of the value) would not."""
    x = RG.TF.exact(np.array([fmpq(1), fmpq(1, 3 * 10 ** 17), fmpq(-1)], dtype=object))
    s = x.sum()
    exact = Fraction(1, 3) * Fraction(1, 10 ** 17)
    assert _covered(s, exact)
    assert not Enclosure.f64(float(s.v)).contains(exact)  # 4 ulps of the float value: not enough


def test_tracked_matrix_power_and_tv_enclose_the_exact_ones():
    pair = RG.exact_hard_instance(4, 10.0, 0)
    K = RG.imh_kernel(pair)
    chain = RG.ExactChain(K)
    P = RG.matpow_tf(RG.TF.exact(K), 50)
    assert _covered(P, chain.power(50)) and P.e.max() < 1e-12
    pi = np.array(pair.pi, dtype=object)
    tv_t = RG.tv_rows(P, RG.TF.exact(pi))
    assert _covered(tv_t, RG.tv_rows(chain.power(50), pi))


def test_exact_hard_instance_is_the_float_one_read_exactly():
    for w in (1.1, 2.0, 100.0):
        pair = RG.exact_hard_instance(5, w, 3)
        pi, q = F.hard_instance(5, w, seed=3)
        assert pair.w_star == RG.fmpq_of(RG.decimal_fraction(w)) == pair.w[0]
        assert sum(pair.pi) == 1 and sum(pair.q) == 1
        assert np.allclose(pair.floats()[0], pi, rtol=1e-14, atol=0)
        assert np.allclose(pair.floats()[1], q, rtol=1e-14, atol=0)
        s = RG.centred_score_exact(pair)
        assert sum(p * v for p, v in zip(pair.pi, s[:, 0])) == 0  # E_pi s = 0 exactly


@pytest.mark.parametrize("N", [2, 3, 5])
def test_exact_cis_kernel_is_the_enumerated_one_and_pi_invariant(N):
    rng = np.random.default_rng(N)
    pair = RG.exact_pair(rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3)))
    K = RG.cis_kernel(pair, N)
    Ke = F.cis_matrix_enumerate([RG.frac(x) for x in pair.pi], [RG.frac(x) for x in pair.q], N,
                                exact=True)
    assert all(RG.frac(K[i, j]) == Ke[i][j] for i in range(3) for j in range(3))
    pi = np.array(pair.pi, dtype=object)
    assert list(pi @ K) == list(pi)  # stationary, exactly
    assert list(pi @ RG.imh_kernel(pair)) == list(pi)


def test_smith_tierney_n_step_kernel_is_the_matrix_power_exactly():
    """K^n(x, y) = T_n(max(w_x, w_y)) pi_y + lambda(w_x)^n [x = y] (Kim et al. 2022, Eqs. (2)-(3)
    with lambda against q), in exact rationals: the closed form of simulate.rigorous.imh_T."""
    rng = np.random.default_rng(7)
    for _ in range(3):
        pair = RG.exact_pair(rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4)))
        chain = RG.ExactChain(RG.imh_kernel(pair))
        w = pair.w
        for n in (1, 2, 5):
            Kn = chain.power(n)
            for x in range(4):
                for y in range(4):
                    st = RG.imh_T(pair, n, max(w[x], w[y])) * pair.pi[y]
                    if x == y:
                        st += RG.imh_lambda(pair, w[x]) ** n
                    assert Kn[x, y] == st


def test_printed_T_closed_form_matches_a_quadrature():
    """T_n with lambda against pi (Eq. (3) as printed): the exact closed form agrees with an
    adaptive quadrature of its integral (the former computation of lemma5)."""
    from scipy import integrate

    pair = RG.exact_hard_instance(3, 10.0, 0)
    pi, q = pair.floats()
    wts = pi / q

    def lam(u):
        sel = wts * u <= 1
        return float((pi[sel] * (1 - wts[sel] * u)).sum())

    for x in range(3):
        for n in (1, 2, 5):
            wv = float(RG.frac(pair.w[x]))
            brk = sorted({1 / v for v in wts if 1 / v < 1 / wv})
            val = integrate.quad(lambda u: n * lam(u) ** (n - 1), 0.0, 1.0 / wv,
                                 points=brk or None, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
            assert float(RG.frac(RG.imh_T(pair, n, pair.w[x], "pi"))) == pytest.approx(val,
                                                                                      rel=1e-9)


def test_exact_moments_agree_with_the_float_ones():
    pair = RG.exact_hard_instance(4, 10.0, 0)
    pif, qf = pair.floats()
    s = RG.centred_score_exact(pair)
    sf = s.astype(float)
    K = RG.imh_kernel(pair)
    Kf = F.imh_matrix(pif, qf)
    unit = np.array([fmpq(1)] + [fmpq(0)] * 3, dtype=object)
    second, mean, c_cov = RG.jsa_moments(unit, K, s, 3)
    m = F.moments_jsa(Kf, sf, 0, 3)
    assert float(RG.frac(second)) == pytest.approx(m.second, rel=1e-12)
    assert float(RG.frac(c_cov)) == pytest.approx(m.c_cov, rel=1e-9)
    t2, _, tc = RG.jsa_moments(RG.TF(np.eye(4)[0]), RG.TF.exact(K), RG.TF.exact(s), 3)
    assert _covered(t2, second) and _covered(tc, c_cov)
    xs = [0, 2, 2]
    assert float(RG.frac(RG.pmcsa_moments(K[xs], s)[0])) == pytest.approx(
        F.moments_pmcsa(Kf, sf, xs).second, rel=1e-12)
    C, coef = RG.count_vectors(4, 4)
    w, q = np.array(pair.w, dtype=object), np.array(pair.q, dtype=object)
    ex = RG.msc_rb_moments(w, q, s, 1, 5, C, coef)[0]
    tf = RG.msc_rb_moments(RG.TF.exact(w), RG.TF.exact(q), RG.TF.exact(s), 1, 5, C, coef)[0]
    assert _covered(tf, ex)
    assert float(RG.frac(ex)) == pytest.approx(F.moments_msc_rb_enumerate(pif, qf, sf, 1, 5).second,
                                               rel=1e-12)


# ------------------------------------------------------------------------ bounds at exact params
def test_bounds_at_exact_parameters():
    from verify.documents.kim2022 import _exact as X
    from verify.registry import BoundValue

    # rational forms: exact points, also with a symbolic integer exponent
    bk = X.bound_kwargs("theorem4", "mixing", "explicit", N=1, w_star=Fraction(243, 32), k=3)
    assert bk["rhs"].is_point and bk["rhs"].lo == (1 - Fraction(32, 243)) ** 3
    # a 0/0 on a domain end: the one-sided limit, exactly (as bounds evaluates it there)
    bk = X.bound_kwargs("lemma6", "expectation", "corrected", n=6, w_star=1, eq_f=Fraction(1, 6),
                        f_z=Fraction(1, 7), epi_f=Fraction(1, 6))
    assert bk["rhs"].lo == Fraction(1, 6)
    # irrational forms: enclosed at the exact parameters, at every precision decide asks for
    bk = X.bound_kwargs("proposition2", "w_star_lower", "stated", kl=Fraction(1, 3))
    assert isinstance(bk["bound"], BoundValue) and bk["bound"].ref[3] == (("kl", Fraction(1, 3)),)
    # a parameter known to a proved error: ball arithmetic, the ball in the enclosure
    bk = X.bound_kwargs("theorem3", "second_moment", "stated", N=2, L=1.0, mu_norm=0.0,
                        c_cov=X.Ball(0.25, 1e-12))
    assert bk["rhs"].contains(Fraction(3, 2) + Fraction(1, 10 ** 12) / 2)  # 5/4 + C_cov
    assert not bk["rhs"].is_point
    with pytest.raises(Exception):
        X.bound_kwargs("lemma4", "lambda_upper", "stated", w_star=Fraction(1, 2))


def test_a_tie_is_decided_exactly_and_a_hair_below_is_violated():
    """Lemma 4's upper bound is attained at the state of weight w* (lambda(w*) = 1 - 1/w*): the
    exact check holds, and tightening the bound by one part in 2^52 makes it violated."""
    from verify.documents.kim2022 import _exact as X

    pair = RG.exact_hard_instance(3, 1.5, 0)
    lam = RG.frac(RG.imh_lambda(pair, pair.w_star))
    bk = X.bound_kwargs("lemma4", "lambda_upper", "stated", w=pair.w_star, w_star=pair.w_star)
    assert decide(CheckResult("lambda", "stated", {}, lam, method="exact", **bk), 0).verdict \
        == HOLDS
    c = decide(CheckResult("lambda", "stated", {}, lam, method="exact", **bk), 0,
               bound_scale=1 - 2.0 ** -52)
    assert c.verdict == VIOLATED and c.settled_by == "exact"


def test_float_noise_against_a_tiny_bound_is_refined_exactly():
    """Theorem 3 read with P^k the product of marginals: at w* = 1.1, k = 20 the TV is 1.7e-41
    against a bound of 2.65e-41; float64 computes 8.8e-16 (noise), which a tracked error bound
    cannot place on either side; the exact refinement decides it (holds), and a bound tightened
    below the exact value turns it violated."""
    from verify.documents.kim2022 import theorems as T

    grid = {"N_joint": [2], "w_star": [1.1], "M_joint": 3, "k": [20], "M": 3, "t": [], "N": []}
    cases = list(T._joint_cases(grid))
    N, w, pair, K, chain, Kt, Pi, Pit = cases[0]
    n0 = N * 19
    pw = T._tf_powers(Kt, N * 20)
    tf = [RG.tv(RG.outer_law([pw[n0 + n][x0] for n in range(1, N + 1)]), Pit) for x0 in range(3)]
    ex = max(RG.tv(RG.outer_law([chain.power(n0 + n)[x0] for n in range(1, N + 1)]), Pi)
             for x0 in range(3))
    from verify.documents.kim2022 import _exact as X

    emp = X.empirical_kwargs(X.max_enclosure(tf), exact=lambda: ex)
    bk = X.bound_kwargs("theorem3", "mixing", "explicit", N=N, w_star=pair.w_star, k=20)
    first = CheckResult("mixing", "as-defined", {}, method="exact",
                        **{k: v for k, v in emp.items() if k != "refine"}, **bk)
    assert decide(first, 0).verdict == INCONCLUSIVE  # float64 alone cannot decide it
    c = decide(CheckResult("mixing", "as-defined", {}, method="exact", **emp, **bk), 0)
    assert c.verdict == HOLDS and c.settled_by == "exact"
    assert 1e-42 < RG.frac(ex) < Fraction(bk["rhs"].lo)
    scale = float(RG.frac(ex) / Fraction(bk["rhs"].lo)) * 0.999
    assert decide(CheckResult("mixing", "as-defined", {}, method="exact", **emp, **bk), 0,
                  bound_scale=scale).verdict == VIOLATED


def test_enclosure_encode_round_trips_huge_rationals():
    """bounds.enclosure.Enclosure.encode (the report cache) writes integers beyond Python's
    4300-digit limit of decimal conversions in hexadecimal: exact ends of 10^4 digits (a kernel's
    800th power, (99/100)^12800) round-trip exactly; small ones keep the decimal form."""
    from bounds.enclosure import Dyadic

    cases = [Fraction(3 ** 20000, 7 ** 15000 + 1), -Fraction(3 ** 20000, 7),
             Fraction(99, 100) ** 12800, Dyadic(3 ** 9000, -5)]
    for x in cases:
        e = Enclosure(x, x, "exact")
        d = Enclosure.decode(e.encode())
        assert d.lo == e.lo and d.hi == e.hi
    assert Enclosure.point(Fraction(1, 3)).encode()[0] == "1/3"
