"""Optimisers as (init, update) pairs with explicit state (the Optax design).

``update(grad, state)`` returns ``(step, new_state)``; the caller applies
``lambda <- lambda - step``.  Parameters and gradients are arrays ``(R, P)`` (R
independent replicate runs) or ``(P,)``.  Step sizes come from a schedule
``gamma(t)`` with ``t = 1, 2, ...`` (001 §2.1: lambda_t = lambda_{t-1} - gamma_t g).

SGD, Momentum (Polyak heavy ball), Nesterov and Adam (Kingma & Ba 2015) — the four
optimisers of 001 Figure 2 (Momentum/Nesterov with 0.9, Adam with (0.9, 0.999)).

Hyper-parameters per replicate row
----------------------------------
Every hyper-parameter (the learning rate ``lr``, ``beta`` of Momentum/Nesterov, ``b1``,
``b2``, ``eps`` of Adam) is either a number, shared by all rows, or a 1-D array with one
value per replicate row of the (R, P) parameters, so that one vectorised run carries a
different step size (and optimiser setting) in each row, e.g. a step-size sweep::

    opt = optim.make("adam", lr=[1e-3, 1e-2, 1e-1], b1=0.9)   # rows 0, 1, 2
    state = scheme.init(seed, units=[0, 1, 2])                 # see Scheme.init

A row's update is computed with exactly the same floating-point operations whether its
value comes from a number or from an array (the bias corrections 1 - b^t of Adam are
computed with Python's ``float ** int`` in both cases), so a row gives bit-identical
numbers alone, inside a batch of other rows, or with a scalar hyper-parameter of the
same value (tested in ``tests/test_reproducibility.py``).  Arrays need batched
parameters (R, P) with the same R (checked in ``init``).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

Schedule = Callable[[int], "float | np.ndarray"]


def constant(lr: float) -> Schedule:
    """Return the schedule gamma_t = gamma (constant step size)."""
    return lambda t: lr


def inverse_sqrt(lr: float) -> Schedule:
    """gamma_t = gamma / sqrt(t) (Kim et al. 2022, Table 1, mirror descent)."""
    return lambda t: lr / np.sqrt(t)


def inverse(lr: float) -> Schedule:
    """gamma_t = gamma / t (Kim et al. 2022, Table 1, SGD of Doan et al. 2020b)."""
    return lambda t: lr / t


SCHEDULES = {"constant": constant, "inverse_sqrt": inverse_sqrt, "inverse": inverse}


class OptState(NamedTuple):
    """An optimiser's state: the iteration t and its moments."""

    t: int
    m: np.ndarray | None = None  # first moment / velocity
    v: np.ndarray | None = None  # second moment (Adam)


class Optimizer(NamedTuple):
    """An optimiser: its name and its ``init(params)`` and ``update(grad, state)`` functions."""

    name: str
    init: Callable[[np.ndarray], OptState]
    update: Callable[[np.ndarray, OptState], tuple[np.ndarray, OptState]]


def _rows(x, name: str, lo: float, hi: float, lo_open: bool = False):
    """Check a hyper-parameter: a float, or an (R, 1) column with one value per row.

    A hyper-parameter as a float or as an (R, 1) column (one value per row), checked
    to lie in [lo, hi) (or (lo, hi) with ``lo_open``).
    """
    a = np.asarray(x, dtype=float)
    if a.ndim > 1 or a.size == 0:
        raise ValueError(f"{name} must be a number or a 1-D array with one value per replicate row")
    ok = np.isfinite(a) & (a < hi) & ((a > lo) if lo_open else (a >= lo))
    if not np.all(ok):
        rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g})"
        raise ValueError(f"{name} must be in {rng}, got {x!r}")
    return float(a) if a.ndim == 0 else a.reshape(-1, 1)


def _check_rows(params, *hyper):
    """Per-row hyper-parameters (R, 1) need parameters (R, P) with the same R."""
    for h in hyper:
        if isinstance(h, np.ndarray) and (np.ndim(params) != 2 or np.shape(params)[0]
                                          != h.shape[0]):
            raise ValueError(f"{h.shape[0]} per-row hyper-parameter values for parameters of shape "
                             f"{np.shape(params)}: need (R, P) with R = {h.shape[0]}")


def _pow(b, t: int):
    """Raise each value of b to the power t with Python's float power.

    b ** t with Python's float power for each value, so a row's value is the same
    whether ``b`` is a number or a per-row column (np.power may use other code).
    """
    if isinstance(b, float):
        return b ** t
    return np.array([float(v) ** t for v in b.ravel()]).reshape(b.shape)


def sgd(schedule: Schedule) -> Optimizer:
    """Build SGD: step = gamma_t g (Kim et al. 2022, Table 1; Doan et al. 2020b)."""
    def init(params):
        _check_rows(params, getattr(schedule, "lr", None))
        return OptState(0)

    def update(grad, state):
        t = state.t + 1
        return schedule(t) * grad, OptState(t)

    return Optimizer("sgd", init, update)


def _heavy_ball(name: str, schedule: Schedule, beta, direction) -> Optimizer:
    """Build a momentum-family optimiser: v <- beta v + g; step = gamma direction(g, v, beta)."""
    beta = _rows(beta, "beta", 0.0, 1.0)

    def init(params):
        _check_rows(params, getattr(schedule, "lr", None), beta)
        return OptState(0, np.zeros_like(params))

    def update(grad, state):
        t = state.t + 1
        v = beta * state.m + grad
        return schedule(t) * direction(grad, v, beta), OptState(t, v)

    return Optimizer(name, init, update)


def momentum(schedule: Schedule, beta=0.9) -> Optimizer:
    """Heavy ball: v <- beta v + g; step = gamma v.  ``beta``: a number or one per row."""
    return _heavy_ball("momentum", schedule, beta, lambda g, v, b: v)


def nesterov(schedule: Schedule, beta=0.9) -> Optimizer:
    """Nesterov momentum (the Sutskever et al. 2013 form): step = gamma (g + beta v)."""
    return _heavy_ball("nesterov", schedule, beta, lambda g, v, b: g + b * v)


def adam(schedule: Schedule, b1=0.9, b2=0.999, eps=1e-8) -> Optimizer:
    """Adam (Kingma & Ba 2015, Algorithm 1); b1, b2, eps: numbers or one per row."""
    b1, b2 = _rows(b1, "b1", 0.0, 1.0), _rows(b2, "b2", 0.0, 1.0)
    eps = _rows(eps, "eps", 0.0, np.inf, lo_open=True)

    def init(params):
        _check_rows(params, getattr(schedule, "lr", None), b1, b2, eps)
        return OptState(0, np.zeros_like(params), np.zeros_like(params))

    def update(grad, state):
        t = state.t + 1
        # new arrays each step (the old state stays valid), few passes
        m = np.multiply(state.m, b1)
        m += (1 - b1) * grad
        v = np.multiply(grad, grad)
        v *= 1 - b2
        v += b2 * state.v
        c1 = 1 - _pow(b1, t)
        c2 = 1 - _pow(b2, t)
        den = np.sqrt(v)
        den *= 1.0 / np.sqrt(c2)
        den += eps
        step = np.multiply(m, schedule(t) / c1)
        step /= den
        return step, OptState(t, m, v)

    return Optimizer("adam", init, update)


OPTIMIZERS = {"sgd": sgd, "momentum": momentum, "nesterov": nesterov, "adam": adam}


HYPER = {"sgd": (), "momentum": ("beta",), "nesterov": ("beta",), "adam": ("b1", "b2", "eps")}


def make(name: str, lr, schedule: str = "constant", **hyper) -> Optimizer:
    """Build the optimiser ``name`` with learning rate ``lr`` under ``schedule``.

    ``lr`` and the optimiser's keyword hyper-parameters (``HYPER[name]``: ``beta`` for
    momentum/nesterov; ``b1``, ``b2``, ``eps`` for adam) are numbers or 1-D arrays with
    one value per replicate row (see the module docstring).
    """
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose from {', '.join(OPTIMIZERS)}")
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; choose from {', '.join(SCHEDULES)}")
    bad = sorted(set(hyper) - set(HYPER[name]))
    if bad:
        raise ValueError(f"{name} takes no {', '.join(bad)}; its hyper-parameters: "
                         f"{', '.join(('lr',) + HYPER[name])}")
    try:
        lr = _rows(lr, "lr", 0.0, np.inf, lo_open=True)
    except ValueError:
        raise ValueError(
            "the learning rate must be a positive number (or one positive number per "
            "row)") from None
    sched = SCHEDULES[schedule](lr)
    # a function attribute: the per-row check in init() reads it
    sched.lr = lr  # type: ignore[attr-defined]
    return OPTIMIZERS[name](sched, **hyper)
