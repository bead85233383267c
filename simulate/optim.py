"""Optimisers as (init, update) pairs with explicit state (the Optax design).

``update(grad, state)`` returns ``(step, new_state)``; the caller applies
``lambda <- lambda - step``.  Parameters and gradients are arrays ``(R, P)`` (R
independent replicate runs) or ``(P,)``.  Step sizes come from a schedule
``gamma(t)`` with ``t = 1, 2, ...`` (001 §2.1: lambda_t = lambda_{t-1} - gamma_t g).

SGD, Momentum (Polyak heavy ball), Nesterov and Adam (Kingma & Ba 2015) — the four
optimisers of 001 Figure 2 (Momentum/Nesterov with 0.9, Adam with (0.9, 0.999)).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

Schedule = Callable[[int], float]


def constant(lr: float) -> Schedule:
    return lambda t: lr


def inverse_sqrt(lr: float) -> Schedule:
    """gamma_t = gamma / sqrt(t) (001 Table 1, mirror descent)."""
    return lambda t: lr / np.sqrt(t)


def inverse(lr: float) -> Schedule:
    """gamma_t = gamma / t (001 Table 1, SGD of Doan et al. 2020b)."""
    return lambda t: lr / t


SCHEDULES = {"constant": constant, "inverse_sqrt": inverse_sqrt, "inverse": inverse}


class OptState(NamedTuple):
    t: int
    m: np.ndarray | None = None  # first moment / velocity
    v: np.ndarray | None = None  # second moment (Adam)


class Optimizer(NamedTuple):
    name: str
    init: Callable[[np.ndarray], OptState]
    update: Callable[[np.ndarray, OptState], tuple[np.ndarray, OptState]]


def sgd(schedule: Schedule) -> Optimizer:
    def init(params):
        return OptState(0)

    def update(grad, state):
        t = state.t + 1
        return schedule(t) * grad, OptState(t)

    return Optimizer("sgd", init, update)


def momentum(schedule: Schedule, beta: float = 0.9) -> Optimizer:
    """Heavy ball: v <- beta v + g; step = gamma v."""

    def init(params):
        return OptState(0, np.zeros_like(params))

    def update(grad, state):
        t = state.t + 1
        v = beta * state.m + grad
        return schedule(t) * v, OptState(t, v)

    return Optimizer("momentum", init, update)


def nesterov(schedule: Schedule, beta: float = 0.9) -> Optimizer:
    """Nesterov momentum (the Sutskever et al. 2013 form): step = gamma (g + beta v)."""

    def init(params):
        return OptState(0, np.zeros_like(params))

    def update(grad, state):
        t = state.t + 1
        v = beta * state.m + grad
        return schedule(t) * (grad + beta * v), OptState(t, v)

    return Optimizer("nesterov", init, update)


def adam(schedule: Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    def init(params):
        return OptState(0, np.zeros_like(params), np.zeros_like(params))

    def update(grad, state):
        t = state.t + 1
        # new arrays each step (the old state stays valid), few passes
        m = np.multiply(state.m, b1)
        m += (1 - b1) * grad
        v = np.multiply(grad, grad)
        v *= 1 - b2
        v += b2 * state.v
        c1 = 1 - b1 ** t
        c2 = 1 - b2 ** t
        den = np.sqrt(v)
        den *= 1.0 / np.sqrt(c2)
        den += eps
        step = np.multiply(m, schedule(t) / c1)
        step /= den
        return step, OptState(t, m, v)

    return Optimizer("adam", init, update)


OPTIMIZERS = {"sgd": sgd, "momentum": momentum, "nesterov": nesterov, "adam": adam}


def make(name: str, lr: float, schedule: str = "constant") -> Optimizer:
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose from {', '.join(OPTIMIZERS)}")
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; choose from {', '.join(SCHEDULES)}")
    if not (lr > 0 and np.isfinite(lr)):
        raise ValueError("the learning rate must be a positive number")
    return OPTIMIZERS[name](SCHEDULES[schedule](lr))
