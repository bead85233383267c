"""Helpers shared by the proof-audit test files (tests/test_proofs_*.py, tests/test_findings_*.py,
tests/test_audit_findings.py): how a step's outcome is checked, and exact references computed
independently of the toolkit."""

from fractions import Fraction

from verify.audit.engine import STEPS


def run_step(sid):
    """Run step ``sid``: its status is the one it expects, and an outcome established by the
    adversarial search ran at least 100 evaluations, names its regimes and stayed within the bound
    it reports.
    Returns (step, outcome) for the file's own checks of how the step is established."""
    s = STEPS[sid]
    o = s.run()
    assert o.status == s.expect, (sid, o.status, o.detail)
    if o.established_by == "search" or (o.established_by == "not refuted" and o.evaluations):
        assert o.evaluations >= 100 and o.regimes and "adversarial search" in o.detail, sid
        assert o.best_ratio is None or o.best_ratio <= 1 + 1e-6, (sid, o.best_ratio)
    return s, o


def imh_fraction(pi, q):
    """The IMH transition matrix in exact rationals (independent of simulate.finite): from x propose
    y ~ q,
    accept with min(1, w(y)/w(x)), w = pi/q; K(x, x) takes the rejections."""
    M = len(pi)
    w = [p / r for p, r in zip(pi, q)]
    K = [[Fraction(0)] * M for _ in range(M)]
    for x in range(M):
        for y in range(M):
            if y != x:
                K[x][y] = q[y] * min(Fraction(1), w[y] / w[x])
        K[x][x] = 1 - sum(K[x])
    return K
