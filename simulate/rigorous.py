"""Rigorous finite-space computations: floats with proved error bounds, and exact rationals.

The exact checks of Kim et al. (NeurIPS 2022) on finite state spaces are decided on enclosures
(docs/methods.md, "Validated numerics"): each empirical value is either exact (a rational) or a
double with a *proved* bound on its absolute error.  This module gives both, from one exact
instance.

Exact instances
    :class:`ExactPair` holds ``pi`` and ``q`` as exact rationals (python-flint ``fmpq``) that
    sum to 1 exactly; :func:`exact_hard_instance` is :func:`simulate.finite.hard_instance`
    (the same random draw) with the decimal ``pi_0`` and ``w*`` of the grid read exactly, and
    :func:`exact_pair` reads a pair of float vectors (a Hypothesis draw) exactly and normalises
    it.  Every derived parameter of a bound (``w*``, a state's weight, ``chi^2``, ``E_q s^2``)
    is then exact too.

Tracked floats (:class:`TF`)
    A float64 array ``v`` with an entrywise bound ``e`` on ``|v - exact|``, carried through
    every operation by the standard model of floating-point arithmetic (``u = 2^-53``):

    * one correctly rounded operation on doubles (``+ - * /``, ``sqrt``) returns
      ``fl(z) = z (1 + d)``, ``|d| <= u``, plus at most ``2^-1074`` where a product or a
      quotient underflows;  ``|fl(z) - z| <= u |z| + 2^-1074 <= u |fl(z)| (1 + 2u) + 2^-1074``;
    * a sum of ``n`` terms in any order (NumPy's pairwise ``sum``, a BLAS dot product) is within
      ``gamma_(n-1) sum |x_i|`` of the exact sum of the computed terms, a matrix product within
      ``gamma_n |A| |B|`` (plus ``n 2^-1074``), ``gamma_n = n u / (1 - n u)``;
    * the propagated input errors are bounded by the usual first-order-exact expressions:
      ``|xy - x'y'| <= |x'| e_y + e_x |y'| + e_x e_y``, ``|x/y - x'/y'| <= (e_x (|y'| + e_y) +
      (|x'| + e_x) e_y) / (|y'| (|y'| - e_y))`` for ``e_y < |y'|``, and ``|sqrt x - sqrt x'| <=
      min(sqrt e_x, e_x / sqrt x')``;  ``|x|``, ``min`` and ``max`` are 1-Lipschitz.

    The error bounds are themselves evaluated in floating point: every one is a sum of at most
    ``n + 4`` non-negative terms, each a product of at most three doubles, so the computed
    bound is at least ``(1 - gamma_(n+6))`` times the exact expression, less ``n 2^-1074`` for
    underflowing terms (added back); for ``n <= 2^20`` (:data:`MAX_TERMS`) that factor is above
    ``1 - 2^-32``, and every bound is multiplied by ``1 + 2^-30``, which covers it and the
    rounding of that multiplication.

Exact rationals
    numpy object arrays of ``fmpq`` (python-flint's rationals: the operators are exact) and
    ``fmpq_mat`` for matrix powers.  They are the refinement of a check the float path cannot
    decide (a tie with the bound, or a value at float64 noise against a bound of 1e-20).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

U = 2.0 ** -53
#: the spacing of subnormal doubles: the absolute error of an underflowing product or quotient
ETA = 2.0 ** -1074
#: every computed error bound is multiplied by this (see the module docstring)
_UP = 1.0 + 2.0 ** -30
#: the longest sum or dot product a tracked computation may do (its gamma_n stays below 2^-32)
MAX_TERMS = 1 << 20


def gamma(n: int) -> float:
    """``gamma_n = n u / (1 - n u)``, rounded up (n u is exact; 1 - n u too for n < 2^52)."""
    if n <= 0:
        return 0.0
    if n > MAX_TERMS:
        raise ValueError(f"a sum of {n} terms is beyond MAX_TERMS")
    return math.nextafter(n * U / (1.0 - n * U), math.inf)


# ----------------------------------------------------------------------------- rationals
def fmpq_of(x):
    """An exact python-flint rational of an int, a double, a Fraction or an fmpq."""
    from flint import fmpq

    if isinstance(x, fmpq):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise TypeError("not a number: a bool")
    if isinstance(x, (int, np.integer)):
        return fmpq(int(x))
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise ValueError("an exact rational of a non-finite double")
        return fmpq(*float(x).as_integer_ratio())
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    raise TypeError(f"no exact rational of {type(x).__name__}")


def frac(x) -> Fraction:
    """A python-flint ``fmpq`` (or an int / Fraction / double) as a :class:`fractions.Fraction`."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        return Fraction(float(x))
    return Fraction(int(x.p), int(x.q))


def decimal_fraction(x) -> Fraction:
    """The decimal number a grid value stands for: ``0.3`` -> 3/10 (``repr`` of the double)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    return Fraction(repr(float(x)))


def qarray(values) -> np.ndarray:
    """An object array of ``fmpq`` (any shape) from ints, doubles, Fractions or fmpq."""
    a = np.asarray(values, dtype=object)
    out = np.empty(a.shape, dtype=object)
    for idx, x in np.ndenumerate(a):
        out[idx] = fmpq_of(x)
    return out


def _float_up(x: Fraction) -> float:
    """The smallest double >= ``x`` (``x >= 0``)."""
    f = float(x)
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


# ----------------------------------------------------------------------------- tracked floats
class TF:
    """A float64 array ``v`` with a proved entrywise bound ``e`` on ``|v - exact value|``.

    Arithmetic (``+ - * / @``, ``sum``, ``abs``, ``sqrt``, indexing, broadcasting) keeps the
    bound valid (see the module docstring for the rounding model).  A plain number or array in
    an operation is taken as exact (a double that *is* the value).
    """

    __slots__ = ("v", "e")
    __array_ufunc__ = None  # ndarray OP TF defers to TF's reflected operator

    def __init__(self, v, e=None):
        self.v = np.asarray(v, dtype=float)
        if e is None:
            self.e = np.zeros(self.v.shape)
        else:
            e = np.asarray(e, dtype=float)
            self.e = e if e.shape == self.v.shape else np.broadcast_to(e, self.v.shape).copy()

    # ------------------------------------------------------------------ construction
    @staticmethod
    def exact(values) -> "TF":
        """Round exact rationals (``fmpq``, Fraction, int) to doubles, with the exact error of
        each rounding (``float`` of a Fraction is correctly rounded)."""
        a = np.asarray(values, dtype=object)
        v = np.empty(a.shape)
        e = np.empty(a.shape)
        for idx, x in np.ndenumerate(a):
            f = frac(x)
            v[idx] = float(f)
            e[idx] = _float_up(abs(Fraction(float(v[idx])) - f))
        return TF(v, e)

    @staticmethod
    def _of(x) -> "TF":
        return x if isinstance(x, TF) else TF(x)

    # ------------------------------------------------------------------ views
    @property
    def shape(self):
        return self.v.shape

    @property
    def ndim(self) -> int:
        return self.v.ndim

    @property
    def T(self) -> "TF":
        return TF(self.v.T, self.e.T)

    def __getitem__(self, idx) -> "TF":
        return TF(self.v[idx], self.e[idx])

    def reshape(self, *shape) -> "TF":
        return TF(self.v.reshape(*shape), self.e.reshape(*shape))

    def __len__(self):
        return len(self.v)

    def scalar(self) -> tuple[float, float]:
        """``(value, error)`` of a one-element array."""
        return float(self.v), float(self.e)

    def enclosure(self):
        """The enclosure of a one-element array (:meth:`bounds.enclosure.Enclosure.f64`)."""
        from bounds.enclosure import Enclosure

        return Enclosure.f64(float(self.v), float(self.e))

    def max_enclosure(self):
        """An enclosure of the largest entry's exact value: ``[max(v - e), max(v + e)]``
        rounded outward (the max is 1-Lipschitz in each entry)."""
        from bounds.enclosure import Enclosure

        lo = max(Enclosure.f64(float(x), float(d)).lo for x, d in zip(self.v.ravel(),
                                                                       self.e.ravel()))
        hi = max(Enclosure.f64(float(x), float(d)).hi for x, d in zip(self.v.ravel(),
                                                                       self.e.ravel()))
        return Enclosure(lo, hi, "float64")

    def ball(self, i=()):
        """Entry ``i`` as a python-flint ``arb`` ball ``[v +- (e + 4 ulps)]``."""
        from flint import arb

        x, d = float(self.v[i]), float(self.e[i])
        return arb(x, math.nextafter(d + 4 * math.ulp(x), math.inf))

    # ------------------------------------------------------------------ arithmetic
    @staticmethod
    def _rnd(v):
        return U * np.abs(v)

    def __neg__(self) -> "TF":
        return TF(-self.v, self.e)

    def __abs__(self) -> "TF":
        return TF(np.abs(self.v), self.e)

    def __add__(self, other) -> "TF":
        o = TF._of(other)
        v = self.v + o.v
        return TF(v, (self.e + o.e + self._rnd(v)) * _UP)

    __radd__ = __add__

    def __sub__(self, other) -> "TF":
        o = TF._of(other)
        v = self.v - o.v
        return TF(v, (self.e + o.e + self._rnd(v)) * _UP)

    def __rsub__(self, other) -> "TF":
        return TF._of(other) - self

    def __mul__(self, other) -> "TF":
        o = TF._of(other)
        v = self.v * o.v
        e = (np.abs(self.v) * o.e + self.e * np.abs(o.v) + self.e * o.e + self._rnd(v) + ETA)
        return TF(v, e * _UP)

    __rmul__ = __mul__

    def __truediv__(self, other) -> "TF":
        o = TF._of(other)
        ab = np.abs(o.v)
        if np.any(ab <= o.e):
            raise ZeroDivisionError("a tracked divisor whose enclosure contains 0")
        v = self.v / o.v
        e = ((self.e * (ab + o.e) + (np.abs(self.v) + self.e) * o.e) / (ab * (ab - o.e))
             + self._rnd(v) + ETA)
        return TF(v, e * _UP)

    def __rtruediv__(self, other) -> "TF":
        return TF._of(other) / self

    def __pow__(self, k: int) -> "TF":
        if int(k) != k or k < 0:
            raise ValueError("a tracked power takes a non-negative integer exponent")
        k = int(k)
        out, base = TF(np.ones(self.v.shape)), self
        while k:
            if k & 1:
                out = out * base
            k >>= 1
            if k:
                base = base * base
        return out

    def __matmul__(self, other) -> "TF":
        o = TF._of(other)
        n = self.v.shape[-1]
        v = self.v @ o.v
        A, B = np.abs(self.v), np.abs(o.v)
        e = A @ o.e + self.e @ B + self.e @ o.e + gamma(n) * (A @ B) + 2 * n * ETA
        return TF(v, e * _UP)

    def __rmatmul__(self, other) -> "TF":
        return TF._of(other) @ self

    def sum(self, axis=None) -> "TF":
        n = self.v.size if axis is None else self.v.shape[axis]
        v = self.v.sum(axis)
        e = self.e.sum(axis) + gamma(max(n - 1, 0)) * np.abs(self.v).sum(axis)
        return TF(v, e * _UP)

    def prod(self, axis: int) -> "TF":
        """The product along ``axis`` (one multiplication at a time)."""
        parts = [self[(slice(None),) * (axis % self.v.ndim) + (i,)]
                 for i in range(self.v.shape[axis])]
        out = parts[0]
        for p in parts[1:]:
            out = out * p
        return out

    def sqrt(self) -> "TF":
        """Square root of values whose exact counterparts are >= 0 (norms, variances)."""
        v = np.sqrt(np.maximum(self.v, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            e2 = np.where(v > 0, self.e / np.where(v > 0, v, 1.0), np.inf)
        e = np.minimum(np.sqrt(self.e), e2) + self._rnd(v)
        return TF(v, e * _UP)

    def minimum(self, other) -> "TF":
        o = TF._of(other)
        return TF(np.minimum(self.v, o.v), np.maximum(self.e, o.e))

    def maximum(self, other) -> "TF":
        o = TF._of(other)
        return TF(np.maximum(self.v, o.v), np.maximum(self.e, o.e))

    def __repr__(self):
        return f"TF({self.v!r}, err<={float(np.max(self.e)) if self.e.size else 0.0:.3g})"


def tf_stack(parts) -> TF:
    """Stack tracked arrays along a new first axis."""
    return TF(np.stack([p.v for p in parts]), np.stack([p.e for p in parts]))


# ----------------------------------------------------------------------------- exact instances
@dataclass(frozen=True)
class ExactPair:
    """A target ``pi`` and a proposal ``q`` on ``0..M-1`` as exact rationals summing to 1."""

    pi: tuple
    q: tuple

    def __post_init__(self):
        from flint import fmpq

        if sum(self.pi, fmpq(0)) != 1 or sum(self.q, fmpq(0)) != 1:
            raise ValueError("pi and q must sum to 1 exactly")
        if any(x < 0 for x in self.pi) or any(x <= 0 for x in self.q):
            raise ValueError("pi >= 0 and q > 0")

    @property
    def M(self) -> int:
        return len(self.pi)

    @property
    def w(self) -> tuple:
        """The importance weights ``pi / q``, exactly."""
        return tuple(p / q for p, q in zip(self.pi, self.q))

    @property
    def w_star(self):
        return max(self.w)

    def floats(self) -> tuple[np.ndarray, np.ndarray]:
        """``pi`` and ``q`` rounded to doubles (each correctly rounded)."""
        return (np.array([float(frac(x)) for x in self.pi]),
                np.array([float(frac(x)) for x in self.q]))

    def chi2(self):
        """``chi^2(pi || q) = sum pi^2 / q - 1`` (``E_pi w - 1``), exactly."""
        from flint import fmpq

        return sum((p * p / q for p, q in zip(self.pi, self.q)), fmpq(0)) - 1


def exact_hard_instance(M: int, w_star, seed: int = 0, pi0=0.3) -> ExactPair:
    """:func:`simulate.finite.hard_instance` in exact rationals.

    The same Dirichlet draw for the other states (its doubles read exactly and normalised to
    ``1 - pi_0``), ``pi_0`` and ``w*`` read as the decimals they are written as (0.3 is 3/10,
    1.1 is 11/10), ``q_0 = pi_0 / w*`` and the other states sharing ``1 - q_0`` in proportion to
    ``pi``: ``sup pi/q = w*`` is attained at state 0 exactly.
    """
    from flint import fmpq

    if float(w_star) < 1:
        raise ValueError("w* >= 1")
    rng = np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(M,))))
    d = [fmpq_of(float(x)) for x in rng.dirichlet(np.ones(M - 1))]
    total = sum(d, fmpq(0))
    p0, w = fmpq_of(decimal_fraction(pi0)), fmpq_of(decimal_fraction(w_star))
    rest = [x / total * (1 - p0) for x in d]
    q0 = p0 / w
    q = [q0] + [r * (1 - q0) / (1 - p0) for r in rest]
    return ExactPair(tuple([p0] + rest), tuple(q))


def exact_pair(pi, q) -> ExactPair:
    """Two float vectors (e.g. a Hypothesis draw) read exactly and normalised to sum 1."""
    from flint import fmpq

    P, Q = [fmpq_of(float(x)) for x in pi], [fmpq_of(float(x)) for x in q]
    sp_, sq_ = sum(P, fmpq(0)), sum(Q, fmpq(0))
    return ExactPair(tuple(x / sp_ for x in P), tuple(x / sq_ for x in Q))


def centred_score_exact(pair: ExactPair, L=1) -> np.ndarray:
    """:func:`simulate.finite.centred_bounded_score` exactly: ``s_0 = L``, the others
    ``-pi_0 L / (1 - pi_0)``, so that ``E_pi s = 0`` exactly; shape (M, 1)."""
    L = fmpq_of(L)
    s = [L] + [-pair.pi[0] * L / (1 - pair.pi[0])] * (pair.M - 1)
    return np.array(s, dtype=object)[:, None]


# ----------------------------------------------------------------------------- exact kernels
def imh_kernel(pair: ExactPair) -> np.ndarray:
    """The IMH transition matrix, exactly: ``K[x, y] = q_y min(1, w_y / w_x)`` (``y != x``;
    every proposal accepted at a state of weight 0), the diagonal ``1 -`` the rest."""
    from flint import fmpq

    w, q, M = pair.w, pair.q, pair.M
    K = np.empty((M, M), dtype=object)
    for x in range(M):
        row = fmpq(0)
        for y in range(M):
            if y == x:
                continue
            acc = fmpq(1) if w[x] == 0 else min(fmpq(1), w[y] / w[x])
            K[x, y] = q[y] * acc
            row += K[x, y]
        K[x, x] = 1 - row
    return K


def _weight_groups(pair: ExactPair):
    """The distinct weights ``u_k`` and their proposal masses ``Q_k``, and each state's group."""
    from flint import fmpq

    u = sorted(set(pair.w))
    idx = {x: i for i, x in enumerate(u)}
    Q = [fmpq(0)] * len(u)
    for wi, qi in zip(pair.w, pair.q):
        Q[idx[wi]] += qi
    return u, Q, [idx[wi] for wi in pair.w]


def cis_kernel(pair: ExactPair, N: int) -> np.ndarray:
    """The i-SIR / CIS transition matrix with N particles (the current state and N - 1
    proposals), exactly.

    For ``y != x``, ``K(x, y) = (N - 1) pi_y E[1 / (w_x + w_y + S)]`` with ``S`` the sum of the
    weights of ``N - 2`` independent draws from ``q`` (the proposal that is ``y`` is selected with
    probability ``w_y / (w_x + w_y + S)``; ``q_y w_y = pi_y``); the expectation is a finite sum
    over the counts ``c`` of the draws among the distinct weights ``u_k`` (masses ``Q_k``):
    ``sum_c Mult(c; N - 2, Q) / (a + c . u)``.  The diagonal is ``1 -`` the rest.
    (:func:`simulate.finite.cis_matrix` evaluates the same sum in floating point.)
    """
    from flint import fmpq

    if int(N) != N or N < 2:
        raise ValueError("CIS needs N >= 2 particles")
    N = int(N)
    n = N - 2
    u, Q, grp = _weight_groups(pair)
    G = len(u)
    terms = []
    for c in _compositions(n, G):
        coef = math.factorial(n)
        for ci in c:
            coef //= math.factorial(ci)
        p = fmpq(coef)
        for Qk, ck in zip(Q, c):
            if ck:
                p *= Qk ** ck
        if p != 0:
            terms.append((p, sum((ck * uk for ck, uk in zip(c, u)), fmpq(0))))
    I = {}  # noqa: E741 -- the document's I(a), per pair of weight groups
    for g1 in range(G):
        for g2 in range(g1, G):
            a = u[g1] + u[g2]
            I[g1, g2] = I[g2, g1] = sum((p / (a + s) for p, s in terms), fmpq(0)) if a > 0 \
                else None
    M = pair.M
    K = np.empty((M, M), dtype=object)
    for x in range(M):
        row = fmpq(0)
        for y in range(M):
            if y == x:
                continue
            val = I[grp[x], grp[y]]
            K[x, y] = fmpq(0) if pair.pi[y] == 0 else (N - 1) * pair.pi[y] * val
            row += K[x, y]
        K[x, x] = 1 - row
    return K


def _compositions(n: int, m: int):
    """All (c_1..c_m) >= 0 with sum n."""
    for bars in itertools.combinations(range(n + m - 1), m - 1):
        prev, out = -1, []
        for b in bars:
            out.append(b - prev - 1)
            prev = b
        out.append(n + m - 1 - prev - 1)
        yield tuple(out)


# ----------------------------------------------------------------------------- exact linear algebra
def to_mat(a: np.ndarray):
    """An object array of rationals (2-d) as an ``fmpq_mat``."""
    from flint import fmpq_mat

    return fmpq_mat([[fmpq_of(x) for x in row] for row in a])


def from_mat(m) -> np.ndarray:
    """An ``fmpq_mat`` as an object array of ``fmpq``."""
    return np.array(m.table(), dtype=object).reshape(m.nrows(), m.ncols())


class ExactChain:
    """A kernel's exact powers (``fmpq_mat``, by repeated squaring), cached."""

    def __init__(self, K: np.ndarray):
        self.K = K
        self.mat = to_mat(K)
        self._pow: dict = {}

    def power(self, n: int) -> np.ndarray:
        if n not in self._pow:
            self._pow[n] = from_mat(self.mat ** int(n))
        return self._pow[n]


def matpow_tf(K: TF, n: int) -> TF:
    """``K^n`` in tracked floats (repeated squaring)."""
    out = TF(np.eye(K.shape[0]))
    base = K
    while n:
        if n & 1:
            out = out @ base
        n >>= 1
        if n:
            base = base @ base
    return out


# ----------------------------------------------------------------------------- generic computations
# Each takes NumPy-like arrays: tracked floats (TF) or object arrays of fmpq; the arithmetic is
# exact on the latter and carries its proved error bound on the former.
def qsum(xs):
    """The sum of a sequence of scalars (or arrays) of one backend."""
    it = iter(xs)
    out = next(it)
    for x in it:
        out = out + x
    return out


def _abs(x):
    return abs(x) if isinstance(x, TF) else np.vectorize(abs, otypes=[object])(x)


def tv_rows(P, pi):
    """``d_TV(P[x, .], pi) = 1/2 sum_y |P[x, y] - pi_y|`` for every row (last axis)."""
    return _abs(P - pi[None, :] if P.ndim == 2 else P - pi).sum(-1) * _half(P)


def _half(like):
    from flint import fmpq

    return 0.5 if isinstance(like, TF) else fmpq(1, 2)


def tv(P, Q):
    """The total variation distance of two laws of one shape (every axis summed)."""
    d = _abs(P - Q)
    while isinstance(d, (np.ndarray, TF)) and d.ndim > 0:
        d = d.sum(-1)
    return d * _half(P)


def outer_law(rows):
    """The law of independent components with the given marginal rows (last axis fastest)."""
    out = rows[0]
    for r in rows[1:]:
        out = out[..., None] * r
    return out


def jsa_joint_law(Kstart, K, N: int):
    """Law of JSA's N-tuple when the state entering the iteration has law ``Kstart`` (a row): the
    N states follow one Markov path of ``K``; shape (M,) * N."""
    law = Kstart @ K
    for _ in range(N - 1):
        law = law[..., :, None] * K
    return law


def jsa_moments(p0, K, s, N: int):
    """JSA's ``E||g||^2``, ``E g`` and ``C_cov`` when the state entering the iteration has law
    ``p0`` (a row vector): ``z^(n) ~ p0 K^n`` along one path, ``g = -(1/N) sum_n s(z^(n))``,
    ``E[s_n . s_m] = sum_y (p0 K^n)(y) s_y . (K^(m-n) s)_y`` (:func:`simulate.finite.moments_jsa`)
    ; ``C_cov = (2/N^2) sum_(n<m) (E[s_n . s_m] - E s_n . E s_m)``."""
    P = [p0 @ K]
    for _ in range(N - 1):
        P.append(P[-1] @ K)
    A = [s]
    for _ in range(N - 1):
        A.append(K @ A[-1])
    Es = [p @ s for p in P]  # (d,) each
    cross = {}
    for n in range(N):
        for j in range(N - n):
            cross[n, n + j] = P[n] @ (s * A[j]).sum(1)
    diag = qsum(cross[n, n] for n in range(N))
    off = [(n, m) for n in range(N) for m in range(n + 1, N)]
    nn = N * N
    mean = -qsum(Es) / N
    if not off:  # one state: no pairs, C_cov is exactly 0
        return diag / nn, mean, (TF(0.0) if isinstance(diag, TF) else diag * 0)
    two_off = qsum(cross[k] for k in off) * 2
    cov = qsum(cross[n, m] - (Es[n] * Es[m]).sum() for n, m in off) * 2
    return (diag + two_off) / nn, mean, cov / nn


def pmcsa_moments(rows, s):
    """pMCSA's ``E||g||^2`` and ``E g`` for N independent chains whose next states have the laws
    ``rows`` (N, M): ``g = -(1/N) sum_n s(z_n)``."""
    N = rows.shape[0]
    m = rows @ s  # (N, d)
    e2 = rows @ (s * s).sum(1)  # (N,)
    total = m.sum(0)
    second = (e2.sum() + (total * total).sum() - (m * m).sum()) / (N * N)
    return second, -total / N


def msc_rb_moments(pair_w, q, s, x: int, N: int, C: np.ndarray, coef):
    """MSC-RB's ``E||g||^2`` and ``E g`` at state ``x`` as the sum over the counts ``C`` of the
    N - 1 proposals (rows of C; ``coef`` their multinomial coefficients):
    ``g(c) = -(w_x s_x + sum_i c_i w_i s_i) / (w_x + c . w)``, probability ``coef prod q^c``.
    ``pair_w``, ``q`` and ``s`` of one backend (TF or fmpq object arrays)."""
    n = N - 1
    M = C.shape[1]
    if isinstance(q, TF):
        # powers q_i^k, k = 0..n, then the product over the states of q_i^(c_i)
        pows = [TF(np.ones(M))]
        for _ in range(n):
            pows.append(pows[-1] * q)
        table = tf_stack(pows)  # (n + 1, M)
        p = table[C, np.arange(M)[None, :]].prod(1) * TF(coef.astype(float), _coef_err(coef))
        Cw = TF(C.astype(float)) * pair_w[None, :]
        num = pair_w[x] * s[x][None, :] + Cw @ s
        den = pair_w[x] + Cw.sum(1)
        g = -(num / den[:, None])
        second = p @ (g * g).sum(1)
        mean = p @ g
        return second, mean
    from flint import fmpq

    second = fmpq(0)
    mean = np.array([fmpq(0)] * s.shape[1], dtype=object)
    for c, k in zip(C, coef):
        prob = fmpq(int(k))
        for qi, ci in zip(q, c):
            if ci:
                prob *= qi ** int(ci)
        den = pair_w[x] + qsum(int(ci) * wi for ci, wi in zip(c, pair_w))
        num = pair_w[x] * s[x] + qsum(int(ci) * pair_w[i] * s[i] for i, ci in enumerate(c))
        g = -(num / den)
        second += prob * (g * g).sum()
        mean = mean + prob * g
    return second, mean


def _coef_err(coef: np.ndarray) -> np.ndarray:
    """The rounding error of integers converted to doubles (0 below 2^53)."""
    return np.array([0.0 if int(k) < 2 ** 53 else _float_up(abs(Fraction(float(int(k))) - int(k)))
                     for k in coef])


@functools.lru_cache(maxsize=64)
def count_vectors(n: int, M: int):
    """Every vector of M counts >= 0 summing to n, and its multinomial coefficient (ints;
    cached, read-only)."""
    C = np.array(list(_compositions(n, M)), dtype=np.int64).reshape(-1, M)
    coef = np.array([math.factorial(n) // math.prod(math.factorial(int(c)) for c in row)
                     for row in C], dtype=object)
    C.flags.writeable = False
    coef.flags.writeable = False
    return C, coef


# ----------------------------------------------------------------------------- Smith-Tierney
def imh_lambda(pair: ExactPair, w_value, measure: str = "q"):
    """``lambda(w) = sum_(w_y <= w) mu_y (1 - w_y / w)`` exactly, with ``mu = q`` (the IMH
    rejection probability at a state of weight ``w``) or ``mu = pi`` (Eq. (3) as printed)."""
    from flint import fmpq

    mu = pair.q if measure == "q" else pair.pi if measure == "pi" else None
    if mu is None:
        raise ValueError("measure is 'q' or 'pi'")
    w_value = fmpq_of(w_value)
    return sum((m * (1 - wy / w_value) for m, wy in zip(mu, pair.w) if wy <= w_value), fmpq(0))


def imh_T(pair: ExactPair, n: int, w_value, measure: str = "q"):
    """``T_n(w) = int_w^oo n / v^2 lambda(v)^(n-1) dv`` exactly (piecewise closed form).

    Between consecutive weights ``lambda(v) = A - B / v`` (``A``, ``B`` the cumulative masses
    and weighted masses of ``mu``), so in ``u = 1/v`` each piece integrates to
    ``[(A - B u_hi)^n - (A - B u_lo)^n] / B`` (``n A^(n-1) (u_lo - u_hi)`` when ``B = 0``);
    below the smallest weight ``lambda = 0``, which adds ``1/w - 1/w_min`` for ``n = 1`` only.
    """
    from flint import fmpq

    mu = pair.q if measure == "q" else pair.pi
    order = sorted(range(pair.M), key=lambda i: pair.w[i])
    ws = [pair.w[i] for i in order]
    wv = fmpq_of(w_value)
    total = fmpq(0)
    A = B = fmpq(0)
    for j in range(pair.M):
        A += mu[order[j]]
        B += mu[order[j]] * ws[j]
        lo = max(ws[j], wv)
        hi = ws[j + 1] if j + 1 < pair.M else None
        if hi is not None and hi <= lo:
            continue
        u_lo, u_hi = 1 / lo, (fmpq(0) if hi is None else 1 / hi)
        if B == 0:
            total += n * A ** (n - 1) * (u_lo - u_hi)
        else:
            total += ((A - B * u_hi) ** n - (A - B * u_lo) ** n) / B
    if wv < ws[0] and n == 1:
        total += 1 / wv - 1 / ws[0]
    return total
