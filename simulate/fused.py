"""Fused fast paths of the four MCSA schemes: mean-field Gaussian q on a Gaussian target.

Kim, Oh, Gardner, Dieng and Kim, "Markov Chain Score Ascent", NeurIPS 2022 (001):
Algorithms 1 (pMCSA), 4 (MSC, and its Rao-Blackwellised MSC-RB) and 5 (JSA).  With
q = N(m, diag sigma^2), sigma = softplus(omega), and a proposal z* = m + sigma eps, every
quantity the kernels and the score need is a function of the standardised residuals
e = (z - m)/sigma:

* log q(z) = -||e||^2/2 - sum log sigma - (D/2) log 2 pi, so the importance weight
  log w(z) = log pi(z) - log q(z) equals a(z) = log pi(z) + ||e||^2/2 up to a constant
  per replicate that cancels in IMH acceptance ratios (Algorithm 3) and in CIS's
  normalised weights (Algorithm 2);
* the score s(z) = [e/sigma, (e^2 - 1) sigma'/sigma] (sigma' = dsigma/domega), so a
  (weighted) sum of scores over states needs only sum_j c_j e_j and sum_j c_j e_j^2;
* log pi(z) = log_norm - ||(z - mu) Lp||^2/2 with z - mu = sigma eps + (m - mu).

Within an iteration lambda is fixed and IMH/CIS proposals do not depend on the chain
state, so JSA's N proposals are drawn and evaluated together (one product per
replicate); only the accept/reject scan over its N steps is sequential, on (R,)
vectors, and the score sum weights each visited state by the number of steps it was
held.  softplus/sigmoid of omega are computed once per iteration.

Same random numbers as the generic kernels (same stream kinds and shapes), the same
accept/select decisions except when a decision sits within rounding of its threshold,
positions bit-identical when the decisions agree, gradients equal up to rounding
(tests/test_fused.py states the bounds).

Reproducibility (issue 8): a replicate's numbers must not depend on the replicate count
R, the block size or the other rows, on any CPU.  The BLAS calls here are

* (z - mu) Lp (:func:`_product`): one BLAS call per replicate on its contiguous (n, D)
  block, with arguments whose shapes and strides do not depend on R: an in-place
  triangular product (dtrmm; Lp is a Cholesky factor), or a stacked ``np.matmul(zc, Lp)``
  with zc (R, n, D) when Lp is not triangular (NumPy then calls BLAS once per replicate
  on an (n, D) @ (D, D) problem);
* no other: squared norms over the last axis (:func:`simulate.families.sqnorm`) and the
  weighted sums over proposals (:func:`_weighted`) are NumPy's own einsum loops, whose
  order per output entry is fixed by the summed axis' length (no BLAS level-1/2 kernel,
  some of which choose blocking from the size or peel elements to align).  JSA's sums
  over its sparse held-step counts (:func:`_held_sums`) add only the nonzero terms, in
  the same order, with elementwise ufuncs: the same bits as the einsum where NumPy's
  einsum is an in-order sum of separately rounded products (:data:`EINSUM_IN_ORDER`,
  probed at import; elsewhere the sparse form is always used, so a row's bits never
  depend on which form the batch took).

A single (R n, D) @ (D, D) product or an (n,) @ (n, R D) product would let BLAS choose a
kernel, and so a summation order, from R (seen on AMD EPYC: 2.2e-16 differences).  Sums
over chains are ordered elementwise adds (:func:`chain_sums`); sigma is the family's own
elementwise softplus (no choice of formula made for the whole batch).

Speed without changing a bit (benchmarks/README.md, "Targets"): softplus with fewer
temporaries, gradient negations folded into -1/sigma, JSA's weighted sums over the
nonzero held-step counts only (about 3% of its proposals are accepted in the benchmark),
pMCSA's chain sums as two in-order reductions.
"""

from __future__ import annotations

import numpy as np

from .families import MeanFieldGaussian, sqnorm
from .kernels import ChainState, StepInfo, normalised_weights, select_index
from .targets import Gaussian


def applies(scheme) -> bool:
    """Say whether the fused path covers the scheme (a mean-field Gaussian q proposing itself)."""
    return (isinstance(scheme.family, MeanFieldGaussian) and scheme.proposal is scheme.family
            and isinstance(scheme.target, Gaussian))


def unpack(family: MeanFieldGaussian, lam: np.ndarray):
    """Compute m, sigma and d sigma / d omega of a mean-field Gaussian for rows (R, D).

    m (contiguous), sigma, dsigma/domega of a mean-field Gaussian, rows (R, D): the
    family's own (overflow-safe, elementwise) formulas, so sigma and the positions
    m + sigma eps are bit-identical to the generic path's.

    For the softplus scale the formulas of ``families._softplus_and_sigmoid`` are written
    out here with the same roundings (exp and log1p out of place on contiguous arrays, as
    there; the rest exact rearrangements) and fewer temporaries: ``tests/test_fused.py``
    checks sigma and sigma' bit for bit against the family's, NaN, +-0 and +-inf included.
    """
    if family.scale != "softplus":
        m, sig, dsig = family.unpack(lam)
        return np.ascontiguousarray(m), sig, dsig
    lam = np.asarray(lam, dtype=float)
    D = family.dim
    m = np.ascontiguousarray(lam[..., :D])
    om = lam[..., D:]
    t = np.abs(om)
    np.negative(t, out=t)
    a = np.exp(t)  # exp(-|omega|)
    sig = np.maximum(om, 0.0, out=t)
    sig += np.log1p(a)  # softplus = max(omega, 0) + log1p(exp(-|omega|))
    inv = np.add(1.0, a)
    np.divide(1.0, inv, out=inv)  # 1 / (1 + a)
    # sigmoid = where(omega >= 0, inv, a inv) = f inv with f = 1 (omega >= 0) or a: as
    # a <= 1, f = max(a, [omega >= 0]) (NaN for NaN, as a); 1 inv = inv exactly, so the
    # bits are the family's, without np.where's two temporaries
    f = np.maximum(a, om >= 0, out=a)
    dsig = np.multiply(f, inv, out=f)
    return m, sig, dsig


def chain_sums(x: np.ndarray):
    """Sum x and x^2 over the chain axis in chain order, for x (N, R, D).

    (sum_n x[n], sum_n x[n]^2) for x (N, R, D), each added in chain order n = 0..N-1
    (x^2 formed exactly as np.square does).

    Two calls where :data:`EINSUM_IN_ORDER` (NumPy's reduction over the outer axis and
    einsum add in that order: probed at import) and a row has two or more entries (with
    R D = 1 the summed axis would become the inner one, where NumPy sums pairwise); else
    a loop over n that reads each x[n] once for both sums.  The same bits either way.
    """
    if EINSUM_IN_ORDER and x[0].size >= 2 and x.flags.c_contiguous:
        return np.add.reduce(x, axis=0), np.einsum("nrd,nrd->rd", x, x)
    s1 = x[0].copy()
    s2 = np.square(x[0])
    tmp = np.empty_like(s1)
    for n in range(1, x.shape[0]):
        s1 += x[n]
        np.multiply(x[n], x[n], out=tmp)
        s2 += tmp
    return s1, s2


def _scratch(scheme, R, n, D):
    """Two (R, n, D) scratch arrays, reused across iterations (never part of a state)."""
    return scheme._workspace(("fused-rnd", R, n, D),
                             lambda: (np.empty((R, n, D)), np.empty((R, n, D))))


TRIANGULAR = True  # per-replicate BLAS trmm where Lp is lower triangular (else stacked gemm)


def _trmm(target: Gaussian):
    """Return scipy's BLAS dtrmm when the target's Lp is lower triangular (Cholesky), else None."""
    tri = target.__dict__.get("_fused_trmm")
    if tri is None:
        Lp = target.prec_chol
        ok = Lp.dtype == np.float64 and not np.any(np.triu(Lp, 1))
        if ok:
            from scipy.linalg import blas
            tri = (blas.dtrmm, np.asfortranarray(Lp.T))
        else:
            tri = False
        target.__dict__["_fused_trmm"] = tri
    return tri if TRIANGULAR else False


def _product(target: Gaussian, zc: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Compute (z - mu) Lp for zc (R, n, D) C-contiguous, one BLAS call per replicate.

    (z - mu) Lp for zc (R, n, D) C-contiguous, one BLAS call per replicate with the
    same arguments' shapes and strides whatever R is: when Lp is lower triangular, a
    triangular product (dtrmm, half the flops) of the replicate's (n, D) block in place in
    zc; else a stacked (n, D) @ (D, D) gemm into y.  Returns the array holding the product.
    """
    tri = _trmm(target)
    if not tri:
        return np.matmul(zc, target.prec_chol, out=y)
    trmm, LpT = tri
    for r in range(zc.shape[0]):  # zc[r]^T := Lp^T zc[r]^T (the Fortran view of the C block)
        trmm(1.0, LpT, zc[r].T, side=0, lower=0, trans_a=0, overwrite_b=1)
    return zc


def _log_pi(target: Gaussian, eps, sig, b, zc, y):
    """Compute log pi(m + sigma eps) for eps (R, n, D), with b = m - mu; uses zc, y as scratch.

    z - mu = sigma eps + b; (z - mu) Lp by :func:`_product` (one BLAS call per replicate,
    the same call whatever R is).
    """
    np.multiply(eps, sig[:, None, :], out=zc)
    zc += b[:, None, :]
    y = _product(target, zc, y)
    lp = sqnorm(y)
    lp *= -0.5
    lp += target.log_norm
    return lp


def _residual(x, m, sig):
    """e_x = (x - m)/sigma of the current states x (R, D), as the generic kernels form it."""
    e = np.subtract(x, m)
    e /= sig
    return e


def _grad(S1, S2, wsum, scale, sig, dsig):
    """Form the gradient g = -scale sum_j c_j s(e_j) from weighted sums of the noise.

    g = -scale sum_j c_j s(e_j) from S1 = sum c_j e_j, S2 = sum c_j e_j^2, wsum = sum c_j:
    [-scale S1/sigma, -(scale S2 - scale wsum) sigma'/sigma].

    The bits of (S1 (1/sigma)) scale and ((S2 scale) - wsum) ((1/sigma) sigma'), negated,
    each product and difference rounded: the negations are folded into -1/sigma (rounding
    to nearest is sign-symmetric, fl(-x) = -fl(x)), which saves three passes over (R, D),
    and multiplications by scale = 1 are skipped (exact).
    """
    D = sig.shape[1]
    g = np.empty((sig.shape[0], 2 * D))
    ninv = np.divide(-1.0, sig)
    np.multiply(S1, ninv, out=g[:, :D])
    if scale != 1.0:
        g[:, :D] *= scale
        S2 *= scale
    S2 -= wsum
    ninv *= dsig
    np.multiply(S2, ninv, out=g[:, D:])
    return g


def _weighted(c, eps, e0, c0, sq_buf):
    """S1 = c0 e0 + sum_n c_n eps_n and S2 = c0 e0^2 + sum_n c_n eps_n^2 per replicate.

    c (R, n) weights of the proposals eps (R, n, D), c0 (R,) of the current state e0 (R, D).
    The sums over n are NumPy's own einsum loops (no BLAS): the output (R, D) is
    contiguous along D, so D is the inner loop and each (r, d) entry is accumulated over
    n = 0, 1, ... in order, whatever R is (a BLAS matrix-vector product could reorder it).
    """
    S1 = np.einsum("rn,rnd->rd", c, eps)
    np.square(eps, out=sq_buf)
    S2 = np.einsum("rn,rnd->rd", c, sq_buf)
    c0 = c0[:, None]
    S1 += c0 * e0
    S2 += c0 * (e0 * e0)
    return S1, S2


def _einsum_adds_in_order() -> bool:
    """Probe whether NumPy's einsum and add.reduce sum in order, without fused multiply-add.

    Whether this NumPy's ``einsum("rn,rnd->rd")``, ``einsum("nrd,nrd->rd")`` and
    ``np.add.reduce(x, axis=0)`` are the in-order sums over n (n = 0, 1, ...) of separately
    rounded products (no fused multiply-add, no reordering), i.e. the plain ufunc loops
    :func:`_held_sums` and the loop of :func:`chain_sums` write out.  Probed once on fixed
    random data (a fused multiply-add or another order would change many of the 1000+
    sums); where it fails, those two always take their ufunc loops.
    """
    g = np.random.default_rng(20260101)
    c = g.random((3, 7)) * 4.0
    e = g.standard_normal((3, 7, 37))
    ref = np.zeros((3, 37))
    for n in range(7):
        ref = ref + c[:, n, None] * e[:, n]
    x = g.standard_normal((7, 3, 37))
    s1, s2 = x[0].copy(), x[0] * x[0]
    for n in range(1, 7):
        s1 = s1 + x[n]
        s2 = s2 + x[n] * x[n]
    return bool(np.array_equal(np.einsum("rn,rnd->rd", c, e), ref)
                and np.array_equal(np.add.reduce(x, axis=0), s1)
                and np.array_equal(np.einsum("nrd,nrd->rd", x, x), s2))


EINSUM_IN_ORDER = _einsum_adds_in_order()
SPARSE_FRACTION = 0.25  # JSA: held counts sparser than this are summed by :func:`_held_sums`


def _held_sums(c, eps, e0, c0):
    """Compute :func:`_weighted` for sparse weights, touching only the nonzero terms.

    :func:`_weighted` for sparse weights (JSA's held-step counts: most proposals are
    rejected, so most c_n are 0), touching only the nonzero terms.

    Bit for bit what :func:`_weighted` gives where :data:`EINSUM_IN_ORDER`: its einsum
    adds the separately rounded products c_n eps_n to +0 in the order n = 0, 1, ...;
    adding a zero product leaves a sum unchanged (x + 0 = x, and +0 + -0 = +0), so the
    nonzero terms added to +0 in the same order give the same bits.  They are added rank
    by rank (the first nonzero term of every row, then the second, ...), each rank a
    gather-add-scatter over distinct rows.
    """
    R, _, D = eps.shape
    S1 = np.zeros((R, D))
    S2 = np.zeros((R, D))
    r_i, n_i = np.nonzero(c)  # row-major: within a row, n ascending
    if r_i.size:
        x = eps[r_i, n_i]
        ck = c[r_i, n_i][:, None]
        v1 = ck * x
        np.square(x, out=x)
        x *= ck  # c_n eps_n^2 as fl(c_n fl(eps_n^2)), the order of _weighted
        rank = np.arange(r_i.size) - np.searchsorted(r_i, r_i)
        if not rank.any():  # one nonzero term per row at most (the usual case)
            S1[r_i] += v1
            S2[r_i] += x
        else:
            for k in range(int(rank.max()) + 1):
                sel = np.flatnonzero(rank == k)
                r = r_i[sel]
                S1[r] += v1[sel]
                S2[r] += x[sel]
    c0 = c0[:, None]
    S1 += c0 * e0
    S2 += c0 * (e0 * e0)
    return S1, S2


def _move(chains: ChainState, rows, m, sig, eps_sel, logp_sel) -> ChainState:
    """Move the rows ``rows`` of a single-chain state to m + sigma eps_sel.

    The single-chain state with rows ``rows`` moved to m + sigma eps_sel (as the
    generic ``family.sample`` forms it, so positions are bit-identical).
    """
    pos = chains.position.copy()
    logp = chains.logp.copy()
    pos[rows, 0] = m[rows] + sig[rows] * eps_sel
    logp[rows, 0] = logp_sel
    return ChainState(pos, logp)


# ----------------------------------------------------------------------------- MSC / MSC-RB
def msc(scheme, lam, chains, streams, rb: bool, want_states: bool):
    """One CIS step with N particles (Algorithm 2; MSC: Algorithm 4) and its gradient."""
    N, D, tgt = scheme.N, scheme.dim, scheme.target
    eps = streams.take("normal", (1, N - 1, D))[:, 0]  # (R, N-1, D): the generic path's stream
    u = streams.take("uniform/select", (1,))[:, 0]
    R = lam.shape[0]
    zc, y = _scratch(scheme, R, N - 1, D)
    m, sig, dsig = unpack(scheme.family, lam)
    logp_z = _log_pi(tgt, eps, sig, m - tgt.mean, zc, y)  # (R, N-1)
    ex = _residual(chains.position[:, 0], m, sig)
    a = np.empty((R, N))  # log weights up to a per-replicate constant
    np.multiply(sqnorm(ex), 0.5, out=a[:, 0])
    a[:, 0] += chains.logp[:, 0]
    np.multiply(sqnorm(eps), 0.5, out=a[:, 1:])
    a[:, 1:] += logp_z
    w = normalised_weights(a)
    idx = select_index(w, u)
    rows = np.nonzero(idx)[0]
    k = idx[rows] - 1
    new = _move(chains, rows, m, sig, eps[rows, k], logp_z[rows, k])
    if rb:
        S1, S2 = _weighted(w[:, 1:], eps, ex, w[:, 0], zc)
        g = _grad(S1, S2, w.sum(-1)[:, None], 1.0, sig, dsig)
    else:
        e = ex
        e[rows] = eps[rows, k]
        g = _grad(e, e * e, 1.0, 1.0, sig, dsig)
    states = weights = None
    if want_states:
        if rb:
            states = np.concatenate([chains.position, m[:, None] + sig[:, None] * eps], axis=1)
            weights = w
        else:
            states = new.position
    counts = {"p_eval": N - 1, "q_eval": N, "q_sample": N - 1, "score": N if rb else 1}
    return new, StepInfo(g, (idx == 0).astype(float), counts, states, weights)


# ----------------------------------------------------------------------------- JSA
def jsa(scheme, lam, chains, streams, want_states: bool):
    """N sequential IMH steps (Algorithm 5) and g = -(1/N) sum_n s(z_n).

    The N proposals and their a(z) = log pi + ||eps||^2/2 are computed at once; the scan
    keeps the current a and accepts step n when log u_n < a(z_n) - a(current).  State n
    is the last accepted proposal up to step n (or the start), and the score sum weights
    each candidate by the number of steps it was held.
    """
    N, D, tgt = scheme.N, scheme.dim, scheme.target
    eps = streams.take("normal", (N, 1, D))[:, :, 0]  # (R, N, D): the generic path's stream
    u = streams.take("uniform/accept", (N, 1))[:, :, 0]  # (R, N)
    R = lam.shape[0]
    zc, y = _scratch(scheme, R, N, D)
    m, sig, dsig = unpack(scheme.family, lam)
    logp_z = _log_pi(tgt, eps, sig, m - tgt.mean, zc, y)  # (R, N)
    ex = _residual(chains.position[:, 0], m, sig)
    a_z = sqnorm(eps)
    a_z *= 0.5
    a_z += logp_z
    a_z = np.ascontiguousarray(a_z.T)  # (N, R): contiguous rows for the scan
    a_cur = sqnorm(ex)
    a_cur *= 0.5
    a_cur += chains.logp[:, 0]
    with np.errstate(divide="ignore"):
        log_u = np.log(u.T)  # (N, R)
    acc = np.empty((N, R), bool)
    d = np.empty(R)
    for n in range(N):  # the sequential accept/reject scan, on (R,) rows
        np.subtract(a_z[n], a_cur, out=d)
        np.less(log_u[n], d, out=acc[n])
        np.copyto(a_cur, a_z[n], where=acc[n])
    held = np.where(acc, np.arange(N)[:, None], -1)
    np.maximum.accumulate(held, axis=0, out=held)  # (N, R): candidate held after step n (-1: start)
    c = np.bincount(((held + 1) * R + np.arange(R)).ravel(), minlength=(N + 1) * R)
    c = c.reshape(N + 1, R).T.astype(float)  # (R, N+1): steps each candidate was held
    held_c = c[:, 1:]
    if not EINSUM_IN_ORDER or np.count_nonzero(held_c) <= SPARSE_FRACTION * held_c.size:
        S1, S2 = _held_sums(held_c, eps, ex, c[:, 0])
    else:
        S1, S2 = _weighted(held_c, eps, ex, c[:, 0], zc)
    g = _grad(S1, S2, 1.0, 1.0 / N, sig, dsig)
    last = held[-1]
    rows = np.nonzero(last >= 0)[0]
    k = last[rows]
    new = _move(chains, rows, m, sig, eps[rows, k], logp_z[rows, k])
    states = None
    if want_states:
        z = m[:, None] + sig[:, None] * eps
        h = held.T
        states = np.take_along_axis(z, np.maximum(h, 0)[..., None], axis=1)
        r0, n0 = np.nonzero(h < 0)
        states[r0, n0] = chains.position[r0, 0]
    rejection = (N - acc.sum(0)) / N
    counts = {"p_eval": N, "q_eval": N + 1, "q_sample": N, "score": N}
    return new, StepInfo(g, rejection, counts, states)


# ----------------------------------------------------------------------------- pMCSA
def pmcsa(scheme, lam, chains, streams, want_states: bool):
    """Run one pMCSA iteration (Kim et al. 2022, Algorithm 1): one IMH step on each of N chains.

    With z* = m + sigma eps and x the current state, the IMH log acceptance ratio is
    [log pi(z*) - log pi(x)] + (||eps||^2 - ||e_x||^2)/2, e_x = (x - m)/sigma.  The new
    state's standardised residual e is eps (accepted) or e_x (rejected), and it is all
    the score needs.  States are kept standardised (``ChainState.std``): e_x = (m' -
    m)/sigma + (sigma'/sigma) E from the previous (E, m', sigma'), so positions are only
    formed when someone asks for them.

    Layout: the proposals are processed replicate-major, (R, N, D), so that the product
    (z* - mu) Lp is one BLAS call per replicate on its contiguous (N, D) block
    (:func:`_product`); the residuals e of the states are chain-major, (N, R, D) in
    memory, so that every per-replicate (R, D) factor broadcasts over one contiguous R*D
    block (NumPy's fast path), and the sums over chains are :func:`chain_sums`.
    """
    N, D = scheme.N, scheme.dim
    tgt = scheme.target
    eps = streams.take("normal", (N, D))  # (R, N, D), the same stream the generic path draws
    u = streams.take("uniform/accept", (N,))
    R = lam.shape[0]
    zc, y = _scratch(scheme, R, N, D)
    m, sig, dsig = unpack(scheme.family, lam)
    inv = 1.0 / sig
    # proposals: log pi(z*) from (z* - mu) Lp, z* - mu = sigma eps + (m - mu); ||eps||^2
    logp_z = _log_pi(tgt, eps, sig, m - tgt.mean, zc, y).T  # (N, R)
    eps_sq = sqnorm(eps).T  # (N, R)
    # current states' residuals under the new lambda, e (N, R, D): a new array, it
    # becomes the next state's E
    e = np.empty((N, R, D))
    std = chains.std
    E = None if std is None else std[0].transpose(1, 0, 2)
    if E is not None and E.shape == e.shape and E.flags.c_contiguous:
        _, m_prev, s_prev = std
        np.multiply(E, s_prev * inv, out=e)
        b = m_prev - m
        b *= inv
        e += b
    else:
        np.subtract(chains.position.transpose(1, 0, 2), m, out=e)
        e /= sig
    # log acceptance ratio [log pi(z*) - log pi(x)] + (||eps||^2 - ||e_x||^2)/2
    log_ratio = sqnorm(e)
    np.subtract(eps_sq, log_ratio, out=log_ratio)
    log_ratio *= 0.5
    log_ratio += logp_z
    logp_x = chains.logp.T
    log_ratio -= logp_x
    with np.errstate(divide="ignore"):
        log_u = np.log(u)
    acc = log_u.T < log_ratio  # (N, R)
    n_i, r_i = np.nonzero(acc)
    e[n_i, r_i] = eps[r_i, n_i]  # e: residual of the new states
    logp = np.where(acc, logp_z, logp_x)
    # score: g = -(1/N) sum_n [e/sigma, (e^2 - 1) dsigma/sigma]
    g = np.empty((R, 2 * D))
    s, sq = chain_sums(e)  # sum_n e and sum_n e^2, in chain order
    s *= -1.0 / N
    np.multiply(s, inv, out=g[:, :D])
    s = sq
    s *= -1.0 / N
    s += 1.0
    inv *= dsig
    np.multiply(s, inv, out=g[:, D:])
    rejection = N - np.bincount(r_i, minlength=R)
    rejection = rejection / N
    counts = {"p_eval": N, "q_eval": 2 * N, "q_sample": N, "score": N}
    new = ChainState(None, logp.T, std=(e.transpose(1, 0, 2), m, sig))
    return new, StepInfo(g, rejection, counts, new.position if want_states else None)


PATHS = {"msc": lambda *a: msc(*a[:4], False, a[4]),  # type: ignore[call-arg]  # a[:4]: 4 arguments
         "msc-rb": lambda *a: msc(*a[:4], True, a[4]),  # type: ignore[call-arg]
         "jsa": jsa, "pmcsa": pmcsa}
