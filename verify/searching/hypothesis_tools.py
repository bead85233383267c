"""Hypothesis for the verifications: derandomized searches that do not depend on what
else is imported, and the tightness search of a corrected form."""

from __future__ import annotations

import math
from typing import Any

from ..model import CheckResult


class hypothesis_without_local_constants:
    """Context manager: Hypothesis draws no constants harvested from the modules that happen
    to be imported (Hypothesis >= 6.131 mixes literals of every loaded local module into its
    draws with probability 0.05), so a derandomized search gives the same examples whatever
    else the process has imported (a command line, or any order of a test run)."""

    # Hypothesis's providers module (its private hook differs between versions), or None
    _P: Any

    def __enter__(self):
        try:
            from hypothesis.internal.conjecture import providers as P
            from hypothesis.internal.constants_ast import Constants

            self._P, self._orig = P, P._get_local_constants
            empty = Constants()
            P._get_local_constants = lambda: empty
            P.CONSTANTS_CACHE.cache.clear()
        except (ImportError, AttributeError):  # another Hypothesis version: nothing to switch off
            self._P = None
        return self

    def __exit__(self, *exc):
        if self._P is not None:
            self._P._get_local_constants = self._orig
            self._P.CONSTANTS_CACHE.cache.clear()
        return False


#: examples per tightness search (derandomized Hypothesis; see :func:`tightness_search`)
TIGHTNESS_EXAMPLES = 40


def tightness_search(strategy, evaluate, max_examples: int = TIGHTNESS_EXAMPLES):
    """Largest empirical/bound ratio of a corrected form over random instances.

    Hypothesis draws instances from ``strategy`` (derandomized: the same examples on every
    run, so the result cannot depend on a seed) and steers towards the largest ratio with
    ``hypothesis.target``; ``evaluate(instance) -> (empirical, bound, params)`` computes
    both sides exactly.  Returns ``(ratio, empirical, bound, params, examples)`` at the
    instance with the largest ratio (a ratio above 1 is a counterexample)."""
    from hypothesis import HealthCheck, Phase, given, settings, target

    best = {"ratio": -math.inf}
    n = [0]

    @settings(max_examples=max_examples, database=None, derandomize=True, deadline=None,
              print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target])
    @given(strategy)
    def probe(inst):
        n[0] += 1
        emp, b, params = evaluate(inst)
        ratio = emp / b if b > 0 else (0.0 if emp <= 0 else math.inf)
        target(float(min(ratio, 1e300)), label="empirical/bound")
        if ratio > best["ratio"]:
            best.update(ratio=ratio, emp=emp, b=b, params=params)

    with hypothesis_without_local_constants():
        probe()
    return best["ratio"], best["emp"], best["b"], best["params"], n[0]


def tightness_check(claim: str, quantity: str, form: str, strategy, evaluate, space: str,
                    **kw) -> CheckResult:
    """The tightness of one corrected form as a check: the instance of largest ratio found."""
    ratio, emp, b, params, n = tightness_search(strategy, evaluate, **kw)
    return CheckResult(f"{quantity} (tightness search)", form, {**params, "space": space}, emp, b,
                       "exact", primary=False,
                       note=f"largest empirical/bound ratio {ratio:.4g} over {n} derandomized "
                            f"Hypothesis examples (random finite pi, q, states, scores): the "
                            f"form's tightness")
