"""Instances and rounding scales for the proof audit of El hanchi (2018) (document 002).

The report's matrix statements (§2.3.1 Eqs. (11)-(16), the Appendix) are checked on SPD
matrices the adversarial search chooses (:func:`verify.audit.instances.searchable`).  Two kinds
of instances are added here to the engine's (``register_kind``):

``spd2``
    a pair ``(A, B)`` of symmetric matrices of size d = 1, 2, 3, 5: A SPD, B SPD or singular.
    Regimes: interior (eigenvalues in [0.1, 10]), ill-conditioned ([1e-4, 1e4]), commuting
    (one rotation for both, ill-conditioned), and B singular (half of its eigenvalues exactly
    0, all of them for d = 1).  Used for (D, H) with D and H that need not commute (Eq. (32)),
    and for the per-datum information C with the prior's Hessian G (Eqs. (9)-(16)).
``lmm``
    a linear mixed model of §3.3.2 (Eqs. (18)-(29)): design X (N x p), Z (N x q), covariance
    G (q x q, SPD), sigma, beta, and a response y.  See :class:`Lmm`.

Rounding.  A float64 residual that is 0 in exact arithmetic is compared with 0 together with
its *scale* (the 4th element of a row, see :func:`verify.audit.instances.instance_check`): the size
of the terms that cancel, times the condition number that amplifies their rounding.  The
tolerance is then a small multiple of the unit roundoff ``U`` (:func:`tol`), from first-order
error analysis of the few O(d^3) operations involved.

Exact linear algebra (the last section, used by the verifications of ``checks.py``): the
instances' doubles read as rationals (python-flint's ``fmpq_mat``), exact inverses, products and
Lyapunov solves, and eigenvalues as roots of the exact characteristic polynomial (rational ones
exactly, the others in arb balls at a requested precision): those checks are decided on these,
never on a tolerance.
"""

from __future__ import annotations

import math

import numpy as np

from verify.audit.adversary import Kind, Regime, _r6, _rotation, register_kind

#: unit roundoff of float64
U = float(np.finfo(float).eps) / 2


def tol(d: int, factor: float = 64.0) -> float:
    """Relative tolerance of a d x d computation of a few O(d^3) steps: ``factor d U``.
    (The largest ratio residual / (U scale) measured over the search domains is below 10.)"""
    return factor * max(1, d) * U


def kappa(H) -> float:
    ev = np.linalg.eigvalsh(np.atleast_2d(H))
    return float(ev[-1] / ev[0])


def n2(X) -> float:
    return float(np.linalg.norm(np.atleast_2d(X), 2))


def sym(X):
    return 0.5 * (X + X.T)


def r6(X):
    return _r6(X)


class SpdPair(Kind):
    """(A, B): A SPD; B SPD, or singular in the regime "B singular" (see the module docstring)."""

    name = "spd2"
    text = "pairs (A, B) of symmetric matrices of size d = 1, 2, 3, 5 (A SPD, B SPD or singular)"
    configs = (2, 3, 1, 5)
    regimes = (Regime("interior", "eigenvalues in [0.1, 10], independent rotations"),
               Regime("ill-conditioned", "eigenvalues in [1e-4, 1e4], independent rotations"),
               Regime("commuting", "eigenvalues in [1e-4, 1e4], one rotation for both"),
               Regime("B singular", "B with half of its eigenvalues (all for d = 1) exactly 0"))

    def dim(self, d, regime):
        rot = d * (d - 1) // 2
        return 2 * d + (rot if regime == "commuting" else 2 * rot)

    def decode(self, u, d, regime):
        u = np.asarray(u, float)
        span = math.log(10) if regime == "interior" else 4 * math.log(10)
        ea = np.exp(-span + 2 * span * u[:d])
        eb = np.exp(-span + 2 * span * u[d:2 * d])
        if regime == "B singular":
            eb[: max(1, d // 2) if d > 1 else 1] = 0.0
        rot = d * (d - 1) // 2
        if d == 1:
            Qa = Qb = np.eye(1)
        elif regime == "commuting":
            Qa = Qb = _rotation(u[2 * d:2 * d + rot], d)
        else:
            Qa = _rotation(u[2 * d:2 * d + rot], d)
            Qb = _rotation(u[2 * d + rot:2 * d + 2 * rot], d)
        A = sym((Qa * ea) @ Qa.T)
        B = sym((Qb * eb) @ Qb.T)
        return (A, B)

    def describe(self, inst):
        return {"A": _r6(inst[0]), "B": _r6(inst[1])}


register_kind(SpdPair())


def spd(g: np.random.Generator, d: int, scale: float = 1.0) -> np.ndarray:
    A = g.standard_normal((d, d))
    return scale * (A @ A.T + d * np.eye(d))


def fixed_pairs(seed: int = 5):
    """The fixed (A, B) pairs of an ordinary run: d = 1, 2, 3, 5, B SPD, then B = 0 and a singular
    B.
    """
    g = np.random.default_rng(seed)
    out = [(spd(g, d), spd(g, d, 0.3)) for d in (1, 2, 3, 5)]
    out.append((spd(g, 2), np.zeros((2, 2))))
    v = g.standard_normal(3)
    out.append((spd(g, 3), np.outer(v, v)))
    return out


# ----------------------------------------------------------------------------- linear mixed models
class Lmm(Kind):
    """A linear mixed model of 002 §3.3.2: ``y = X beta + Z mu + eps``, ``mu ~ N(0, sigma^2 G)``,
    ``eps ~ N(0, sigma^2 I_N)`` (Eqs. (18)-(19)).

    Configurations (N, p, q): (12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5).  Regimes:
    ``interior``: Z the cluster indicators of §3.3.2 (a) (observation i in cluster i mod q), X an
    intercept and N(0, 1) covariates; ``general``: Z with N(0, 1) entries; ``ill-conditioned``:
    nearly collinear columns of X (correlation 1 - 1e-6 .. 1) and G with eigenvalues down to 1e-6;
    ``extreme sigma``: sigma in [1e-3, 1e3].  The unit cube holds the log-eigenvalues of G, sigma,
    a collinearity knob, the scale of beta and a seed for the remaining N(0, 1) draws.
    Instance: dict with X, Z, G, sigma, beta, y, mu (the random effects drawn) and the point."""

    name = "lmm"
    text = "linear mixed models (N, p, q) = (12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5)"
    configs = ((12, 2, 3), (30, 2, 3), (8, 3, 2), (40, 4, 5))
    regimes = (
        Regime("interior", "Z cluster indicators, G eigenvalues in [0.01, 100], sigma in [0.1, "
                           "10]"),
        Regime("general", "Z with N(0, 1) entries"),
        Regime("ill-conditioned",
               "X columns correlated up to 1 - 1e-6, G eigenvalues in [1e-6, 1e3]"),
        Regime("extreme sigma", "sigma in [1e-3, 1e3]"))

    def dim(self, config, regime):
        N, p, q = config
        return q + q * (q - 1) // 2 + 4

    def decode(self, u, config, regime):
        N, p, q = config
        u = np.asarray(u, float)
        lo, hi = (-6.0, 3.0) if regime == "ill-conditioned" else (-2.0, 2.0)
        eg = 10.0 ** (lo + (hi - lo) * u[:q])
        rot = q * (q - 1) // 2
        Qg = _rotation(u[q:q + rot], q) if q > 1 else np.eye(1)
        G = sym((Qg * eg) @ Qg.T)
        s_lo, s_hi = (-3.0, 3.0) if regime == "extreme sigma" else (-1.0, 1.0)
        sigma = 10.0 ** (s_lo + (s_hi - s_lo) * u[q + rot])
        coll = u[q + rot + 1]
        bscale = 10.0 ** (-1 + 3 * u[q + rot + 2])
        seed = int(u[q + rot + 3] * 2 ** 31)
        return make_lmm(N, p, q, G, sigma, coll if regime == "ill-conditioned" else 0.0, bscale,
                        seed,
                        clusters=regime != "general")

    def describe(self, inst):
        return {"N": inst["X"].shape[0], "p": inst["X"].shape[1], "q": inst["Z"].shape[1],
                "seed": inst["seed"],
                "G": _r6(inst["G"]), "sigma": float(inst["sigma"]),
                "collinearity": float(inst["collinearity"])}


def make_lmm(N, p, q, G, sigma, collinearity=0.0, bscale=1.0, seed=0, clusters=True):
    """One instance of the model (18): X (intercept + covariates; with ``collinearity`` c in [0, 1]
    the last
    covariate is the previous one plus 10^(-6 c) noise), Z cluster indicators or N(0, 1), beta, mu,
    y."""
    g = np.random.default_rng(seed)
    X = np.column_stack([np.ones(N)] + [g.standard_normal(N) for _ in range(p - 1)])
    if p >= 3 and collinearity > 0:
        X[:, -1] = X[:, -2] + 10.0 ** (-6 * collinearity) * g.standard_normal(N)
    if clusters:
        Z = np.zeros((N, q))
        Z[np.arange(N), np.arange(N) % q] = 1.0
    else:
        Z = g.standard_normal((N, q))
    beta = bscale * g.standard_normal(p)
    Lg = np.linalg.cholesky(G)
    mu = sigma * (Lg @ g.standard_normal(q))
    y = X @ beta + Z @ mu + sigma * g.standard_normal(N)
    return {"X": X, "Z": Z, "G": G, "sigma": float(sigma), "beta": beta, "mu": mu, "y": y,
            "seed": seed,
            "collinearity": float(collinearity)}


register_kind(Lmm())


def fixed_lmms():
    """The fixed models of an ordinary run (N, p, q) = (12, 2, 3) and (30, 2, 3) with cluster
    indicators and
    (8, 3, 2) with a general Z."""
    return [make_lmm(12, 2, 3, np.diag([2.0, 1.0, 0.5]), 0.7, seed=1),
            make_lmm(30, 2, 3, np.diag([2.0, 1.0, 0.5]), 0.7, seed=3),
            make_lmm(8, 3, 2, np.array([[1.0, 0.3], [0.3, 0.5]]), 1.3, seed=8, clusters=False)]


# ---------------------------------------------------------------------------- exact Gaussian chains
def scalar_chain(n, N, S, C, G, k, start_mean=0.0, start_sd=None, exact=True):
    """The scalar process of 002 §2.3 as linear maps of independent N(0, 1) variables (no sampling):
    ``Y_i = -h theta_(i-1) + xi_i`` (the stochastic gradient at theta_(i-1), Eq. (4): xi_i ~ N(0,
    N^2 C/|S|)), ``theta_i = theta_(i-1) + D Y_i + eta_i`` with ``D = k/(2h)``, ``h = N C + G``
    (Eqs. (9), (10)) and the injected noise of Eq. (8) (``exact``: 2D - (N^2/|S|) D C D - D H D) or
    of Eq. (7) (2D - (N^2/|S|) D C D); theta_MAP = 0.  theta_0 ~ N(start_mean, start_sd^2) (default:
    the stationary sd 1/sqrt(h) of (8)).

    Returns (h, sigma2, D, v_eta, means, coefs): ``means[name]``, ``coefs[name]`` (a row over the
    independent normals theta_0, xi_1..xi_n, eta_1..eta_n) for names ("theta", i), i = 0..n, and
    ("Y", i), ("xi", i),
    i = 1..n.  Raises ValueError when the injected noise variance is negative (k not admissible)."""
    h = N * C + G
    sx2 = N * N * C / S
    D = k / (2 * h)
    v_eta = 2 * D - D * D * sx2 - (D * D * h if exact else 0.0)
    if v_eta < -1e-12 * 2 * D:
        raise ValueError("injected noise variance negative: k not admissible")
    v_eta = max(v_eta, 0.0)
    sd0 = 1 / math.sqrt(h) if start_sd is None else start_sd
    dim = 1 + 2 * n
    th = np.zeros(dim)
    th[0] = sd0
    m = float(start_mean)
    means, coefs = {("theta", 0): m}, {("theta", 0): th.copy()}
    sx, se = math.sqrt(sx2), math.sqrt(v_eta)
    for i in range(1, n + 1):
        xi = np.zeros(dim)
        xi[i] = sx
        Y = -h * th + xi
        mY = -h * m
        means[("Y", i)], coefs[("Y", i)] = mY, Y
        means[("xi", i)], coefs[("xi", i)] = 0.0, xi
        th = th + D * Y
        th[n + i] += se
        m = m + D * mY
        means[("theta", i)], coefs[("theta", i)] = m, th.copy()
    return h, sx2, D, v_eta, means, coefs


def admissible_k_scalar(N, S, C, G):
    """The largest k with a non-negative injected noise in Eq. (8), scalar case: 4h/(h + N^2
    C/|S|).
    """
    h = N * C + G
    return 4 * h / (h + N * N * C / S)


# ----------------------------------------------------------------------------- sympy helpers
def matrix_identity(L, R, name="w"):
    """(sum_ij w_ij L_ij, sum_ij w_ij R_ij) with fresh symbols w_ij: equal as expressions iff L = R
    entrywise
    (a scalar form of a matrix identity for :func:`verify.audit.symbolic.sym_equal`), and the
    weights."""
    import sympy as sp

    L, R = sp.Matrix(L), sp.Matrix(R)
    w = sp.Matrix(L.shape[0], L.shape[1], lambda i, j: sp.Symbol(f"{name}{i}{j}", real=True))
    return (sum(w[i, j] * L[i, j] for i in range(L.shape[0]) for j in range(L.shape[1])),
            sum(w[i, j] * R[i, j] for i in range(L.shape[0]) for j in range(L.shape[1])), list(w))


# ----------------------------------------------------------------------------- exact linear algebra
# The verifications (checks.py) decide the report's matrix identities on the instance's own
# matrices in exact rational arithmetic (python-flint's fmpq_mat): a double is a rational number,
# so H, C, G, k and eps are read exactly, and every inverse, product and linear solve below is
# exact.  Eigenvalues are the roots of the exact characteristic polynomial: a rational root is
# found exactly (a linear factor over Q), an irrational one is isolated in a ball at the working
# precision asked for (arb), which is a rigorous enclosure.
def fq(x):
    """A double, int or Fraction as an exact ``flint.fmpq``."""
    from fractions import Fraction

    from flint import fmpq

    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, (int, np.integer)):
        return fmpq(int(x))
    n, d = float(x).as_integer_ratio()
    return fmpq(n, d)


def frac(q):
    """An exact ``fmpq`` as a :class:`fractions.Fraction`."""
    from fractions import Fraction

    return Fraction(int(q.p), int(q.q))


def qmat(A):
    """A float matrix (or scalar) as an exact ``flint.fmpq_mat``."""
    from flint import fmpq_mat

    A = np.atleast_2d(np.asarray(A, dtype=float))
    return fmpq_mat(A.shape[0], A.shape[1], [fq(x) for x in A.ravel()])


def qeye(d: int):
    """The d x d identity as an ``fmpq_mat``."""
    from flint import fmpq_mat

    return fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)])


def qsym(X):
    """(X + X^T)/2, exactly."""
    from flint import fmpq

    return (X + X.transpose()) * fmpq(1, 2)


def scalar_of(P):
    """``c`` (an fmpq) when ``P = c I`` exactly, else None."""
    d = P.nrows()
    c = P[0, 0]
    for i in range(d):
        for j in range(d):
            if P[i, j] != (c if i == j else 0):
                return None
    return c


def lyapunov(A, Q):
    """The solution X of ``X = A X A^T + Q``, exactly (the Kronecker system
    ``(I - A (x) A) vec X = vec Q``, row-major vec, solved in rationals).

    Raises ZeroDivisionError when ``I - A (x) A`` is singular (an eigenvalue product of A equal
    to 1: no unique solution)."""
    from flint import fmpq_mat

    d = A.nrows()
    a = [[A[i, j] for j in range(d)] for i in range(d)]
    n = d * d
    rows = []
    for i in range(d):
        for j in range(d):
            row = [-(a[i][p] * a[j][q]) for p in range(d) for q in range(d)]
            row[i * d + j] += 1
            rows.extend(row)
    x = fmpq_mat(n, n, rows).solve(fmpq_mat(n, 1, [Q[i, j] for i in range(d) for j in range(d)]))
    return fmpq_mat(d, d, [x[i, 0] for i in range(n)])


def frobenius_sq(X):
    """The squared Frobenius norm of an ``fmpq_mat`` (exact)."""
    from flint import fmpq

    out = fmpq(0)
    for i in range(X.nrows()):
        for j in range(X.ncols()):
            out += X[i, j] ** 2
    return out


class Spectrum:
    """The eigenvalues of a rational matrix whose spectrum is real (``S H`` with S symmetric and H
    SPD: similar to the symmetric ``L^T S L``), from its exact characteristic polynomial.

    The polynomial is factored over Q once: each linear factor gives a rational eigenvalue
    exactly (an ``fmpq``); the roots of the other factors are isolated at ``bits`` (arb balls, the
    real part of arb's complex root enclosures: the root is real, so it lies in that real part).
    ``exact`` says whether every eigenvalue is rational."""

    def __init__(self, P):
        self.d = P.nrows()
        s = scalar_of(P)
        if s is not None:
            self._rational, self._other = [(s, self.d)], []
        else:
            _, factors = P.charpoly().factor()
            self._rational = [(-f[0] / f[1], m) for f, m in factors if f.degree() == 1]
            self._other = [(f, m) for f, m in factors if f.degree() > 1]
        self.exact = not self._other
        self._at = {}

    def values(self, bits: int = 64) -> list:
        """Every eigenvalue, repeated by multiplicity: fmpq (exact) or arb (a ball at ``bits``)."""
        if bits not in self._at:
            self._at[bits] = self._values(bits)
        return list(self._at[bits])

    def _values(self, bits: int) -> list:
        from bounds.enclosure import precision

        out = [r for r, m in self._rational for _ in range(m)]
        with precision(bits):
            for f, m in self._other:
                for z, mm in f.complex_roots():
                    if not z.imag.contains(0):
                        raise ArithmeticError(f"a non-real eigenvalue {z} of a matrix with a real "
                                              "spectrum")
                    out.extend([z.real] * (m * mm))
        return out

    def ends(self, bits: int = 64):
        """(smallest, largest) eigenvalue: fmpq when rational, else arb balls at ``bits``."""
        vals = self.values(bits)
        if all(not hasattr(v, "rad") for v in vals):  # every eigenvalue rational: exact order
            return min(vals), max(vals)
        from flint import arb

        from bounds.enclosure import precision

        with precision(bits):
            balls = [v if hasattr(v, "rad") else arb(v) for v in vals]
            lo, hi = balls[0], balls[0]
            for b in balls[1:]:
                lo, hi = lo.min(b), hi.max(b)
            # a rational end stays exact when it is the end for certain
            for v in vals:
                if not hasattr(v, "rad"):
                    if all(v <= b for b in balls):
                        lo = v
                    if all(v >= b for b in balls):
                        hi = v
        return lo, hi


def is_exact(x) -> bool:
    """Whether a value of this section is an exact rational (fmpq) rather than an arb ball."""
    return not hasattr(x, "rad")


def enclosure(x, bits: int):
    """An :class:`bounds.enclosure.Enclosure` of an fmpq (exact point) or an arb ball.

    The ball's ends are taken at ``bits`` of working precision (arb rounds ``lower()`` and
    ``upper()`` outward to the current precision: at python-flint's default 53 bits a narrow ball
    would come out 2^-53 wide)."""
    from bounds.enclosure import Enclosure, precision

    if is_exact(x):
        return Enclosure.point(frac(x))
    with precision(bits):
        return Enclosure.from_arb(x, bits)


def farthest_eigenvalue(X, H, c, bits: int = 64):
    """The quantity of the matrix identities ``X = c H^-1`` (checks.py), in exact arithmetic:
    with ``M = L^T X L`` (``H = L L^T``), the eigenvalue v of ``sym(M)`` farthest from c (the
    larger one on a tie), moved ``||skew(M)||_2`` further from c.  ``|v - c|`` bounds
    ``||M - c I||_2`` from above and is 0 only when ``X = c H^-1``.

    ``sym(M) = L^T sym(X) L`` has the eigenvalues of ``sym(X) H``; ``||skew(M)||_2^2`` is the
    largest eigenvalue of ``-skew(M)^2 = -L^T K H K L`` (K = skew(X)), i.e. of ``-K H K H``.
    ``X``, ``H`` are fmpq_mat, ``c`` an fmpq.  Returns an fmpq (exact) or an arb ball at ``bits``
    (a ball that may hold both candidates when the farther one cannot be told at ``bits``)."""
    from flint import arb

    from bounds.enclosure import precision

    S = qsym(X)
    K = X - S
    lo, hi = Spectrum(S * H).ends(bits)
    with precision(bits):
        if is_exact(lo) and is_exact(hi):
            v = lo if abs(lo - c) > abs(hi - c) else hi
        else:
            dl, dh = abs(arb(lo) - arb(c)), abs(arb(hi) - arb(c))
            v = lo if dl > dh else hi if dl <= dh else arb(lo).union(arb(hi))
        if scalar_of(K) == 0:
            return v
        _, s2 = Spectrum(-(K * H * K * H)).ends(bits)
        skew = arb(s2).sqrt()
        if is_exact(v) and v != c:
            return arb(v) + skew if v > c else arb(v) - skew
        if is_exact(v):
            return arb(v) + skew
        if v > arb(c):
            return v + skew
        if v < arb(c):
            return v - skew
        return (v - skew).union(v + skew)


def formula_value(expr, values: dict, bits: int = 64):
    """A sympy formula that is rational (+, *, integer powers, Min, Max) at ``values`` (``{symbol
    name: fmpq or arb}``): an fmpq, exactly, when every value is an fmpq; else an arb ball at
    ``bits``.  ``Min``/``Max`` keep the argument that is certainly the smallest/largest as it is
    (exact when it is exact), and fall back to the balls' min/max otherwise.  Raises
    :class:`NotRational` on any other function."""
    from flint import arb, fmpq

    def ev(e):
        if e.is_Symbol:
            return values[e.name]
        if e.is_Integer:
            return fmpq(int(e))
        if e.is_Rational:
            return fmpq(int(e.p), int(e.q))
        if e.is_Add:
            out = fmpq(0)
            for a in e.args:
                out = out + ev(a)
            return out
        if e.is_Mul:
            out = fmpq(1)
            for a in e.args:
                out = out * ev(a)
            return out
        if e.is_Pow:
            x = ev(e.args[1])
            if is_exact(x) and x.q == 1:  # an integer power (0**0 = 1, as sympy has it)
                return ev(e.args[0]) ** int(x.p)
        name = type(e).__name__
        if name in ("Min", "Max"):
            vals = [ev(a) for a in e.args]
            if all(is_exact(v) for v in vals):
                return min(vals) if name == "Min" else max(vals)
            for v in vals:  # an argument that is certainly the extreme one
                if all(v is w or (v <= w if name == "Min" else v >= w) for w in vals):
                    return v
            balls = [arb(v) for v in vals]
            ball = balls[0]
            for v in balls[1:]:
                ball = ball.min(v) if name == "Min" else ball.max(v)
            return ball
        raise NotRational(name)

    from bounds.enclosure import precision

    with precision(bits):
        return ev(expr)


def exact_value(expr, values: dict):
    """A rational sympy formula at rational ``values`` (``{symbol name: Fraction}``), exactly, as
    a Fraction (:func:`formula_value`); None when the formula is not rational."""
    try:
        return frac(formula_value(expr, {k: fq(v) for k, v in values.items()}))
    except NotRational:
        return None


class NotRational(Exception):
    """A formula with a function other than +, *, integer powers, Min and Max."""
