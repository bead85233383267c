"""Adversarial search for the proof audit: maximise the violation of a printed relation.

A step's check asks the engine for the points it is evaluated on, through

* :func:`searchable` (``kind``, ``fixed``): instances of a kind -- finite pairs (pi, q), discrete
  laws of random vectors, families of product laws, SPD matrices (:data:`KINDS`);
* :func:`free` (``name``, ``fixed``, ``domain``): one scalar -- N, k, t, w*, a Gaussian's mean,
  a step size -- with its domain (:class:`Real`, :class:`Int`).

In an ordinary run these return the fixed instances the step was written with.  While the
engine searches, they return one point chosen by an optimiser, and the check's rows
``(params, lhs, rhs)`` are scored by how close they come to violating the relation
(:func:`row_score`: ln(lhs/rhs) on the rows' enclosures at any magnitude -- a row at 1e-200
scores as one at 0.5 -- the difference in units of the larger side where a side is not
positive; no resolution floor).  The search maximises the largest score:

* the box of each variable is mapped to the unit cube (log scale for wide positive
  ranges; softmax logits for probability vectors, so atoms of mass 1e-11 are in reach);
* a **plan** of runs covers the regimes of every variable: for finite pairs the interior,
  tiny atoms of pi, w* -> infinity (tiny q where pi is not), q near pi (w* -> 1) and q = pi,
  on M = 2, 3, 5 and 8 states; for a scalar its low and high ends (N -> 10^4, k -> infinity,
  ...) with everything else free;
* each run is :func:`scipy.optimize.differential_evolution` (seeded, Latin-hypercube start,
  no polishing) followed by a Nelder-Mead local search from its best point.

The search is deterministic for a given step (the seed is derived from the step id), so it
gives the same result whatever the number of worker processes.  It stops at the first point
where the enclosures of a row exclude the relation and reports it (a row they cannot decide is
counted, never a finding); otherwise it reports the number of evaluations, the largest lhs/rhs
reached (``best_ratio``), the point where it was reached and the regimes covered.  When the
plan's runs end before the budget is spent (an optimiser converges early), they are restarted
with fresh seeds until it is.  See docs/methods.md, "Adversarial search".
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# ----------------------------------------------------------------------------- domains


@dataclass(frozen=True)
class _Box:
    """A parameter's range [lo, hi], searched on the log scale when ``log``."""

    lo: float
    hi: float
    log: bool = False

    def _from_unit(self, u: float) -> float:
        """u in [0, 1] (clipped) mapped onto [lo, hi], linearly or on the log scale."""
        u = min(1.0, max(0.0, float(u)))
        if self.log:
            return math.exp(math.log(self.lo) + u * (math.log(self.hi) - math.log(self.lo)))
        return self.lo + u * (self.hi - self.lo)


@dataclass(frozen=True)
class Real(_Box):
    """A real parameter on [lo, hi] (log scale when ``log``), e.g. ``Real(1, 1e12, log=True)`` for
    w*.
    """

    integer = False

    def decode(self, u: float) -> float:
        return float(self._from_unit(u))

    def __call__(self, rng):
        """A draw from a ``random.Random`` (Hypothesis' controlled randoms), at 50 digits."""
        import mpmath

        return mpmath.mpf(self.decode(rng.random()))

    def text(self) -> str:
        return f"[{_g(self.lo)}, {_g(self.hi)}]{' (log)' if self.log else ''}"


@dataclass(frozen=True)
class Int(_Box):
    """An integer parameter on [lo, hi] (log scale when ``log``), e.g. ``Int(2, 10**4, log=True)``
    for N.
    """

    integer = True

    def decode(self, u: float) -> int:
        return int(min(self.hi, max(self.lo, round(self._from_unit(u)))))

    def __call__(self, rng):
        return self.decode(rng.random())

    def text(self) -> str:
        return f"{{{self.lo}, ..., {self.hi}}}{' (log)' if self.log else ''}"


def _g(x) -> str:
    return f"{x:.3g}"


def box_of(domain, name: str = "") -> Real | Int:
    """The box of a legacy domain callable (a function of a ``random.Random``): the range of
    400 derandomized draws, integer when every draw is, log scale when positive and wide."""
    if isinstance(domain, (Real, Int)):
        return domain
    import random

    rng = random.Random(0)
    vals = [domain(rng) for _ in range(400)]
    integer = all(float(v) == int(float(v)) for v in vals)
    fl = [float(v) for v in vals]
    lo, hi = min(fl), max(fl)
    log = lo > 0 and hi / lo > 50
    if integer:
        return Int(int(lo), int(hi), log)
    return Real(lo, hi, log)


# ----------------------------------------------------------------------------- instance kinds
def _softmax(x):
    x = np.asarray(x, float)
    e = np.exp(x - x.max())
    return e / e.sum()


@dataclass(frozen=True)
class Regime:
    """One region of a kind's or a scalar's domain that the plan searches on its own."""

    name: str
    text: str


class Kind:
    """How the optimiser reaches instances of one kind: its configurations (sizes), its
    regimes, the dimension of its unit cube and the decoding of a point."""

    name = ""
    text = ""
    configs: tuple = ()
    regimes: tuple = ()

    def dim(self, config, regime) -> int:
        raise NotImplementedError

    def decode(self, u, config, regime):
        raise NotImplementedError

    def describe(self, inst) -> dict:
        raise NotImplementedError


def _r6(v):
    return np.round(np.asarray(v, float), 6).tolist()


class Pairs(Kind):
    """Finite (pi, q) on M states: softmax logits, with the regimes the text's statements
    range over (atoms, w* -> infinity, w* -> 1, q = pi)."""

    name = "pairs"
    text = "finite pi, q on M = 2, 3, 5, 8 states"
    configs = (3, 8, 2, 5)
    regimes: tuple[Regime, ...]
    regimes = (Regime("interior", "logits in [-4, 4]"),
               Regime("atoms", "pi with atoms down to 1e-11 (logits of pi in [-25, 4])"),
               Regime("w* -> inf",
                      "q with masses down to 1e-11 where pi is not small (logits of q in [-25, "
                      "4])"),
               Regime("q near pi", "q = pi perturbed by logits in [-1e-3, 1e-3] (w* -> 1)"),
               Regime("q = pi", "q equal to pi (w* = 1)"))

    def dim(self, M, regime):
        return M if regime == "q = pi" else 2 * M

    def decode(self, u, M, regime):
        u = np.asarray(u, float)
        a = u[:M]
        lp = -4 + 8 * a if regime != "atoms" else -25 + 29 * a
        pi = _softmax(lp)
        if regime == "q = pi":
            return pi, pi.copy()
        b = u[M:2 * M]
        if regime == "q near pi":
            return pi, _softmax(lp + 1e-3 * (2 * b - 1))
        lq = -4 + 8 * b if regime != "w* -> inf" else -25 + 29 * b
        return pi, _softmax(lq)

    def describe(self, inst):
        return {"pi": _r6(inst[0]), "q": _r6(inst[1])}


class PairsWith(Pairs):
    """Finite (pi, q) of the ``pairs`` kind (same regimes and sizes) and a third vector v on the
    same M states, described under ``key``: ``"unit"`` maps its coordinates to [-1, 1] (a score or a
    test function), ``"law"`` to a probability vector (softmax of logits in [-4, 4])."""

    def __init__(self, name: str, key: str, kind: str, text: str):
        if kind not in ("unit", "law"):
            raise ValueError(f"PairsWith: kind {kind!r} is not 'unit' or 'law'")
        self.name, self.key, self.kind, self.text = name, key, kind, text

    def dim(self, M, regime):
        return super().dim(M, regime) + M

    def decode(self, u, M, regime):
        u = np.asarray(u, float)
        d = super().dim(M, regime)
        pi, q = super().decode(u[:d], M, regime)
        x = u[d:d + M]
        return pi, q, (2 * x - 1 if self.kind == "unit" else _softmax(-4 + 8 * x))

    def describe(self, inst):
        return {"pi": _r6(inst[0]), "q": _r6(inst[1]), self.key: _r6(inst[2])}


class Discrete(Kind):
    """A discrete law of a random vector: (params, p, values, mu), K atoms in R^d."""

    name = "discrete"
    text = "discrete laws with K = 2, 4, 6 atoms in R^1..3"
    configs = ((2, 1), (4, 2), (6, 3))
    regimes = (Regime("interior", "probabilities from logits in [-4, 4], values and mu in [-5, 5]"),
               Regime("atoms", "probabilities down to 1e-11 (logits in [-25, 4])"),
               Regime("large values", "values and mu in [-1e4, 1e4]"))

    def dim(self, config, regime):
        K, d = config
        return K + K * d + d

    def decode(self, u, config, regime):
        K, d = config
        u = np.asarray(u, float)
        lp = -4 + 8 * u[:K] if regime != "atoms" else -25 + 29 * u[:K]
        scale = 1e4 if regime == "large values" else 5.0
        vals = (2 * u[K:K + K * d] - 1).reshape(K, d) * scale
        mu = (2 * u[K + K * d:] - 1) * scale
        return ({"case": "search", "d": d}, _softmax(lp), vals, mu)

    def describe(self, inst):
        return {"p": _r6(inst[1]), "values": _r6(inst[2]), "mu": _r6(inst[3])}


class Products(Kind):
    """Two families of N laws on M points: (M, N, [p_n], [q_n])."""

    name = "products"
    text = "two families of N = 2..4 laws on M = 2..4 points"
    configs = ((2, 2), (3, 3), (4, 2), (2, 4))
    regimes = (Regime("interior", "logits in [-4, 4]"),
               Regime("atoms", "masses down to 1e-11 (logits in [-25, 4])"))

    def dim(self, config, regime):
        M, N = config
        return 2 * M * N

    def decode(self, u, config, regime):
        M, N = config
        u = np.asarray(u, float).reshape(2 * N, M)
        lo = -4 if regime != "atoms" else -25
        laws = [_softmax(lo + (4 - lo) * row) for row in u]
        return (M, N, laws[:N], laws[N:])

    def describe(self, inst):
        return {"p_n": [_r6(x) for x in inst[2]], "q_n": [_r6(x) for x in inst[3]]}


def _rotation(v, d):
    """An orthogonal d x d matrix from d(d-1)/2 numbers in [0, 1] (Cayley transform of a skew
    matrix).
    """
    A = np.zeros((d, d))
    iu = np.triu_indices(d, 1)
    A[iu] = (2 * np.asarray(v, float) - 1) * 3
    A = A - A.T
    eye = np.eye(d)
    return np.linalg.solve(eye + A, eye - A)


class Spd(Kind):
    """SPD matrices H = Q diag(e) Q^T (eigenvalues on a log scale, any rotation), with a
    seeded NumPy Generator for the step's further draws: (H, generator)."""

    name = "spd"
    text = "SPD matrices of size d = 1, 2, 3, 5, any rotation"
    configs = (2, 3, 1, 5)
    regimes = (Regime("interior", "eigenvalues in [0.1, 10]"),
               Regime("ill-conditioned", "eigenvalues in [1e-4, 1e4]"))

    def dim(self, d, regime):
        return d + d * (d - 1) // 2

    def decode(self, u, d, regime):
        u = np.asarray(u, float)
        span = math.log(10) if regime == "interior" else 4 * math.log(10)
        e = np.exp(-span + 2 * span * u[:d])
        Q = _rotation(u[d:], d) if d > 1 else np.eye(1)
        H = (Q * e) @ Q.T
        return (0.5 * (H + H.T), np.random.default_rng(0))

    def describe(self, inst):
        return {"H": _r6(inst[0])}


KINDS: dict[str, Kind] = {k.name: k for k in (Pairs(), Discrete(), Products(), Spd())}


def register_kind(kind: Kind) -> None:
    """Add an instance kind (for a claim package's own kinds of instances)."""
    KINDS[kind.name] = kind


# ----------------------------------------------------------------------------- the hooks
class _State:
    def __init__(self):
        self.override: dict | None = None  # name -> the searched value
        # name -> ("kind", Kind) | ("free", domain), recorded in discovery
        self.requested: dict | None = None


_S = _State()


def searchable(kind: str, fixed: list) -> list:
    """The instances of ``kind`` a check is evaluated on: ``fixed`` normally, one searched
    instance while the engine searches (see the module docstring)."""
    if _S.requested is not None:
        _S.requested.setdefault(kind, ("kind", KINDS[kind]))
    if _S.override is not None and kind in _S.override:
        return [_S.override[kind]]
    return fixed


def free(name: str, fixed, domain) -> list:
    """The values of the scalar ``name`` a check is evaluated at: ``fixed`` normally (a list),
    one searched value in ``domain`` (:class:`Real` / :class:`Int`) while the engine searches."""
    if _S.requested is not None:
        _S.requested.setdefault(name, ("free", box_of(domain, name)))
    if _S.override is not None and name in _S.override:
        return [_S.override[name]]
    return list(fixed)


class recording:
    """Context: record the variables a check asks for (the discovery run)."""

    def __enter__(self):
        self.prev = _S.requested
        _S.requested = {}
        return _S.requested

    def __exit__(self, *exc):
        _S.requested = self.prev
        return False


class overriding:
    """Context: the hooks return the values of ``point`` instead of the fixed instances."""

    def __init__(self, point: dict):
        self.point = point

    def __enter__(self):
        self.prev = _S.override
        _S.override = self.point

    def __exit__(self, *exc):
        _S.override = self.prev
        return False


def searching() -> bool:
    return _S.override is not None


# ----------------------------------------------------------------------------- scores
def _enc(x):
    """An enclosure of a row's side: an :class:`~bounds.enclosure.Enclosure` as it is, an exact
    number (int, Fraction) as a point, a double as itself (its error bound is the caller's)."""
    from bounds.enclosure import Enclosure

    if isinstance(x, Enclosure):
        return x
    if isinstance(x, float):
        return Enclosure(x, x, "float64")
    return Enclosure.of(x)


def _ln_ratio(lhs, rhs) -> float | None:
    """ln(lhs / rhs) at the midpoints of two enclosures (or numbers), at any magnitude: None
    unless both midpoints are positive."""
    from bounds.enclosure import log10_ratio

    if isinstance(lhs, float) and isinstance(rhs, float):
        if lhs > 0 and rhs > 0 and math.isfinite(lhs) and math.isfinite(rhs):
            return math.log(lhs) - math.log(rhs)
        return None
    from bounds.enclosure import _mid_sign

    L, R = _enc(lhs), _enc(rhs)
    if not (L.finite and R.finite):
        return None
    if _mid_sign(L) <= 0 or _mid_sign(R) <= 0:
        return None
    r = log10_ratio(L, R)
    return None if r is None else r * math.log(10)


def _mid(x) -> float:
    if isinstance(x, float):
        return x
    e = _enc(x)
    return e.mid


def row_score(a, b, relation: str, verdict: str | None = "holds") -> float:
    """How close ``a RELATION b`` comes to failing: > 0 when its sides are in the wrong order.

    ``a`` and ``b`` are numbers or :class:`~bounds.enclosure.Enclosure` objects.  With the sides
    oriented so that ``lhs <= rhs`` is the relation, the score is ln(lhs/rhs) at the midpoints
    when both are positive, at any magnitude (a row at 1e-200 scores as one at 0.5); otherwise
    (lhs - rhs) / max(|lhs|, |rhs|), in [-2, 2], and 0 when both are 0.  There is no resolution
    floor.  ``verdict`` is the enclosures' verdict on the row (:func:`bounds.enclosure.
    relation_verdict`): an undecided row (None) scores at most 0 -- it touches the relation
    within its enclosures, and the search does not chase the rounding of a float beyond it; a
    violated row scores ``inf``."""
    if verdict == "violated":
        return math.inf
    if relation == "=":
        return max(row_score(a, b, "<=", verdict), row_score(b, a, "<=", verdict))
    lhs, rhs = (b, a) if relation in (">=", ">") else (a, b)
    lm, rm = _mid(lhs), _mid(rhs)
    if math.isnan(lm) or math.isnan(rm):
        return -math.inf
    if not (math.isfinite(lm) and math.isfinite(rm)):
        s = math.inf if (lm == math.inf or rm == -math.inf) and lm != rm else -math.inf
    else:
        lr = _ln_ratio(lhs, rhs)
        if lr is not None:
            s = lr
        elif lm == rm:
            s = 0.0
        else:
            s = (lm - rm) / max(abs(lm), abs(rm))
    return min(s, 0.0) if verdict is None else s


def oriented_ratio(a, b, relation: str) -> float | None:
    """lhs/rhs at the midpoints, with the sides oriented so that a ratio above 1 breaks the
    relation (for '=', the larger of the two ratios); None when a side is not positive.  Computed
    from the log-ratio, so that sides far outside the double range still give their ratio."""
    if relation == "=":
        r1, r2 = oriented_ratio(a, b, "<="), oriented_ratio(b, a, "<=")
        return None if r1 is None or r2 is None else max(r1, r2)  # (both None, or neither)
    lhs, rhs = (b, a) if relation in (">=", ">") else (a, b)
    lr = _ln_ratio(lhs, rhs)
    if lr is None:
        return None
    return math.exp(lr) if lr < 709 else math.inf


# ----------------------------------------------------------------------------- the plan
@dataclass
class Run:
    """One optimiser run: the configuration of each kind, the regime each variable is held in."""

    label: str
    configs: dict  # kind name -> config
    regimes: dict  # variable name -> regime name ("" = its whole domain)


def _scalar_regimes(dom) -> list[tuple[str, tuple[float, float]]]:
    return [("low", (0.0, 0.04)), ("high", (0.96, 1.0))] if (dom.hi > dom.lo) else []


def plan(variables: dict) -> list[Run]:
    """The runs that cover every variable's regimes (see the module docstring)."""
    kinds = {n: v[1] for n, v in variables.items() if v[0] == "kind"}
    scal = {n: v[1] for n, v in variables.items() if v[0] == "free"}
    base_cfg = {n: k.configs[0] for n, k in kinds.items()}
    runs = [Run("whole domain", dict(base_cfg), {})]
    for n, k in kinds.items():
        for cfg in k.configs:
            for reg in k.regimes:
                if (cfg == k.configs[0] or reg.name == "interior" or cfg
                    == max(k.configs, key=_size)):
                    if cfg == k.configs[0] and reg.name == "interior":
                        continue  # the whole-domain run
                    runs.append(Run(f"{n}: {reg.name}, {_cfg_text(k, cfg)}", {**base_cfg, n: cfg},
                                    {n: reg.name}))
    for n, dom in scal.items():
        for reg, _ in _scalar_regimes(dom):
            runs.append(Run(f"{n}: {reg} end {_end_text(dom, reg)}", dict(base_cfg), {n: reg}))
    return runs


def _size(cfg):
    return int(np.prod(cfg)) if isinstance(cfg, tuple) else int(cfg)


def _cfg_text(kind, cfg):
    if kind.name == "pairs":
        return f"M = {cfg}"
    if kind.name == "spd":
        return f"d = {cfg}"
    if kind.name == "discrete":
        return f"K = {cfg[0]}, d = {cfg[1]}"
    if kind.name == "products":
        return f"M = {cfg[0]}, N = {cfg[1]}"
    return str(cfg)


def _end_text(dom, reg):
    u = (0.0, 0.04) if reg == "low" else (0.96, 1.0)
    a, b = dom.decode(u[0]), dom.decode(u[1])
    return f"[{_g(a)}, {_g(b)}]"


# ----------------------------------------------------------------------------- the search
class _Stop(Exception):
    pass


@dataclass
class SearchResult:
    evaluations: int
    errors: int
    best_score: float
    best_ratio: float | None
    best_point: dict | None
    best_row: tuple | None  # (params, lhs, rhs)
    found: tuple | None  # (the failing Outcome, its point), or None
    regimes: list  # [{"regime": label, "evaluations": n, "best_ratio": r}]
    # evaluations with a row the enclosures could not decide (never a finding), and the first
    undecided: int = 0
    undecided_at: tuple | None = None  # (row, point)


def seed_of(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")


def _decoder(variables, run: Run):
    """(dimension, decode(u) -> point) for one run."""
    parts = []
    for n, (typ, obj) in variables.items():
        if typ == "kind":
            cfg, reg = run.configs[n], run.regimes.get(n, "interior")
            parts.append((n, typ, obj, cfg, reg, obj.dim(cfg, reg)))
        else:
            reg = run.regimes.get(n, "")
            parts.append((n, typ, obj, None, reg, 1))
    dim = sum(p[-1] for p in parts)

    def decode(u):
        out, i = {}, 0
        for n, typ, obj, cfg, reg, d in parts:
            x = u[i:i + d]
            i += d
            if typ == "kind":
                out[n] = obj.decode(x, cfg, reg)
            else:
                lo, hi = dict(_scalar_regimes(obj)).get(reg, (0.0, 1.0))
                out[n] = obj.decode(lo + (hi - lo) * float(x[0]))
        return out
    return dim, decode


def describe_point(variables, point) -> dict:
    out = {}
    for n, v in point.items():
        typ, obj = variables[n]
        if typ == "kind":
            out.update(obj.describe(v))
        else:
            out[n] = v if isinstance(v, int) else float(v)
    return out


def search(check: Callable, variables: dict, budget: int, key: str,
           score_of: Callable) -> SearchResult:
    """Maximise ``score_of(check())`` over the variables' domains with ``budget`` evaluations.

    ``score_of(outcome)`` gives ``(score, ratio, row, failed)``: the outcome's largest row
    score, its oriented lhs/rhs, that row, and whether the outcome is a violation (proved on the
    enclosures); ``failed`` may be ``"undecided"``: a row the enclosures could not decide, counted
    (and the first one kept) -- it is never a finding, and the search goes on."""

    # a search inside a check's discovery run records nothing
    prev_rec, _S.requested = _S.requested, None
    try:
        return _search(check, variables, budget, key, score_of)
    finally:
        _S.requested = prev_rec


def _search(check, variables, budget, key, score_of) -> SearchResult:
    from scipy.optimize import differential_evolution, minimize

    runs = plan(variables)
    per_run = max(24, budget // max(1, len(runs)))
    rng = np.random.default_rng(seed_of(key))
    state: dict[str, Any] = {"n": 0, "err": 0, "best": -math.inf, "ratio": None, "point": None,
             "row": None, "found": None,
             "run_best": -math.inf, "run_ratio": None, "run_n": 0, "cap": 0, "undecided": 0,
             "undecided_at": None}

    def f(u, decode):
        if state["run_n"] >= state["cap"]:
            # the run's budget is spent (DE finishes its generation; never its best point)
            return 1e6
        state["n"] += 1
        state["run_n"] += 1
        point = decode(u)
        try:
            with overriding(point), np.errstate(all="ignore"):
                o = check()
            s, ratio, row, failed = score_of(o)
        # off the domain
        except (ArithmeticError, ValueError, np.linalg.LinAlgError, TypeError, IndexError) as e:
            state["err"] += 1
            del e
            return 1e6
        if failed == "undecided":
            state["undecided"] += 1
            if state["undecided_at"] is None:
                state["undecided_at"] = (row, point)
        elif failed:
            state["found"] = (o, point)
            raise _Stop()
        if s > state["run_best"]:
            state["run_best"] = s
        if ratio is not None and (state["run_ratio"] is None or ratio > state["run_ratio"]):
            state["run_ratio"] = ratio
        if ratio is not None and (state["ratio"] is None or ratio > state["ratio"]):
            state.update(ratio=ratio, point=point, row=row)
        if s > state["best"]:
            state["best"] = s
            if state["ratio"] is None:
                state.update(point=point, row=row)
        return -s if math.isfinite(s) else (1e6 if s < 0 else -1e6)

    order = []  # the regimes' labels, in the order first run
    by_label: dict = {}

    def one_run(run, cap) -> bool:
        """Run the optimiser once in ``run`` with ``cap`` evaluations; True when it found a
        violation."""
        dim, decode = _decoder(variables, run)
        if dim == 0:
            return False
        state.update(run_best=-math.inf, run_ratio=None, run_n=0, cap=cap)
        pop = max(5, min(15, cap // (4 * dim)))  # scipy's popsize multiplies the dimension
        gens = max(1, (int(cap * 0.75) // (pop * dim)) - 1)
        found = False
        try:
            res = differential_evolution(f, [(0.0, 1.0)] * dim, args=(decode,), maxiter=gens,
                                         popsize=pop, tol=0.0,
                                         atol=0.0, polish=False, init="latinhypercube",
                                         **{_rng_keyword():
                                            np.random.default_rng(rng.integers(2 ** 63))})
            left = cap - state["run_n"]
            if left > 4:
                x0 = np.clip(res.x, 0, 1)
                minimize(lambda u: f(np.clip(u, 0, 1), decode), x0, method="Nelder-Mead",
                         options={"maxfev": left, "xatol": 1e-9, "fatol": 0.0,
                                  "initial_simplex": _simplex(x0)})
        except _Stop:
            found = True
        if run.label not in by_label:
            order.append(run.label)
            by_label[run.label] = {"regime": run.label, "evaluations": 0, "best_ratio": None,
                                   "violated": False}
        r = by_label[run.label]
        r["evaluations"] += state["run_n"]
        rr = _finite(state["run_ratio"])
        if rr is not None and (r["best_ratio"] is None or rr > r["best_ratio"]):
            r["best_ratio"] = rr
        if found:
            r.update(best_ratio=None, violated=True)
        return found

    # the plan once, then restarts of its runs (fresh seeds) until the budget is spent: an
    # optimiser that converges early (Nelder-Mead's simplex collapses, DE's last generation is
    # cut) would otherwise leave evaluations of the budget unused
    passes = 0
    while not state["found"] and passes < 8:
        for run in runs:
            cap = per_run if passes == 0 else min(per_run, budget - state["n"])
            if cap <= 0 or one_run(run, max(cap, 8)):
                break
        passes += 1
        if state["n"] >= budget:
            break
    regimes = [by_label[k] for k in order]
    found = state["found"]
    return SearchResult(state["n"], state["err"], state["best"], _finite(state["ratio"]),
                        state["point"], state["row"],
                        found, regimes, state["undecided"], state["undecided_at"])


@functools.lru_cache(maxsize=None)
def _rng_keyword() -> str:
    """SciPy >= 1.15 takes ``rng``; older releases ``seed``."""
    import inspect

    from scipy.optimize import differential_evolution

    return "rng" if "rng" in inspect.signature(differential_evolution).parameters else "seed"


def _simplex(x0):
    d = x0.size
    pts = [x0]
    for i in range(d):
        y = x0.copy()
        y[i] = y[i] - 0.05 if y[i] > 0.5 else y[i] + 0.05
        pts.append(y)
    return np.array(pts)


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
