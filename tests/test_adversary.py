"""The audit's adversarial search (verify.audit.adversary) and its cache (verify.audit.cache).

Power: planted false relations that hold on the fixed instances *and* on random small draws
are broken, each in the regime where it fails (tiny atoms, w* -> infinity, q = pi, large N).
Determinism: the same outcome on every run and for any number of worker processes.
Cache: a step's digest follows the code it depends on; a changed digest is recomputed.
"""

from __future__ import annotations

import contextlib
import json
import textwrap

import numpy as np
import pytest

from verify.audit import engine
from verify.audit.engine import (
    EXACT,
    VALID,
    WRONG,
    Int,
    Real,
    finite_pairs,
    free,
    instance_check,
    searched_run,
)


def _pairs_check(rel_fn, relation="<=", fixed=None):
    fixed = fixed or [(np.array([0.2, 0.3, 0.5]), np.array([0.3, 0.3, 0.4])),
                      (np.array([0.5, 0.5]), np.array([0.4, 0.6]))]

    def check():
        rows = [({"M": p.size}, *rel_fn(p, q)) for p, q in finite_pairs(fixed)]
        return instance_check(rows, relation, 1e-12)
    return check


@pytest.mark.parametrize("name, rel_fn", [
    # w* <= 1e6: true on every moderate pair, false only as q gets a tiny mass where pi has some
    ("w* -> inf", lambda p, q: (float((p / q).max()), 1e6)),
    # 1 - max(pi) >= 1e-7: false only when pi is nearly a point mass (atoms elsewhere)
    ("atoms", lambda p, q: (1e-7, 1 - float(p.max()))),
    # chi2(pi || q) >= 1e-9: false only when q is (nearly) pi
    ("q = pi", lambda p, q: (1e-9, float((p ** 2 / q).sum() - 1))),
])
def test_search_breaks_what_only_fails_in_an_extreme_regime(name, rel_fn):
    check = _pairs_check(rel_fn)
    assert check().status == VALID  # the fixed instances alone would call it valid
    o = searched_run(check, key="test/" + name)
    assert o.status == WRONG and o.established_by == "counterexample", (name, o.detail)
    # q = pi is also the simplest Hypothesis draw (equal entries), which may find it first
    assert "adversarial search" in o.detail or (name == "q = pi" and "Hypothesis" in o.detail)
    assert set(o.counterexample["at"]) >= {"pi", "q"}


def test_search_reaches_large_N_through_free():
    """A relation in N that fails only beyond N = 5000 (the text's 'N large')."""
    def check():
        rows = [({"N": n}, float(n), 5000.0) for n in free("N", (2, 10, 100),
                                                           Int(2, 10 ** 4, log=True))]
        return instance_check(rows, "<=", 1e-12)

    assert check().status == VALID
    o = searched_run(check, key="test/N")
    assert o.status == WRONG and o.counterexample["at"]["N"] > 5000


def _jensen(p, q):
    """E_p log(p/q) <= log E_p (p/q), both sides 0 at q = p and computed with cancellation: the
    scale max(1, sum p |log(p/q)|) that prop2.2 derives (absolute rounding errors, not relative)."""
    return (float(p @ np.log(p / q)), float(np.log(p @ (p / q))),
            max(1.0, float(p @ np.abs(np.log(p / q)))))


def test_a_true_relation_survives_with_its_evidence():
    """Jensen on finite pairs: survives; the outcome says how (evaluations, best ratio, regimes)."""
    check = _pairs_check(_jensen)
    o = searched_run(check, budget=600, key="test/jensen")
    assert o.status == VALID and o.established_by == "search"
    assert o.evaluations >= 500 and o.best_ratio is not None and o.best_ratio <= 1 + 1e-9
    names = {r["regime"] for r in o.regimes}
    assert any("atoms" in n for n in names)
    assert any("w* -> inf" in n for n in names) and any("q = pi" in n for n in names)
    assert any("M = 8" in n for n in names)


def test_symbolic_search_attacks_the_extremes_of_the_domain():
    import sympy as sp

    x, y = sp.symbols("x y", positive=True)
    # x / (1 + x) <= 0.9999: true on [0.01, 10], false for x > 9999 (the domain reaches 1e6)
    o = engine.sym_le(x / (1 + x) + 0 * y, sp.Float("0.9999"),
                      domain={x: Real(1e-3, 1e6, log=True), y: Real(1, 2)})
    assert o.status == WRONG and o.counterexample["at"]["x"] > 9999
    # x e^(-x) <= 1/e (equality at x = 1; sympy cannot decide the sign): survives, with its evidence
    o = engine.sym_le(x * sp.exp(-x) + 0 * y, 1 / sp.E,
                      domain={x: Real(1e-3, 1e6, log=True), y: Real(1, 2)})
    assert o.status == VALID and o.established_by == "search" and o.evaluations > 100
    assert 0.999 < o.best_ratio <= 1 + 1e-20


def test_undecided_rows_are_not_reported_as_findings():
    """An apparent violation within the row's proved error bound (1 + 1e-15 against 1, relative
    error 1e-14) is undecided, not a counterexample; one beyond it (1e-12) is a counterexample
    whatever its size -- there is no relative resolution below which a violation is passed over."""
    def check(excess):
        def fn():
            rows = [({"u": u}, 1.0 + (excess if u > 0.9 else 0.0),
                     1.0) for u in free("u", (0.1, 0.5), Real(0, 1))]
            return instance_check(rows, "<=", 1e-14)
        return fn

    o = searched_run(check(1e-15), key="test/unresolved")
    assert o.status == VALID and o.undecided and "could not decide" in o.detail, o.detail
    o = searched_run(check(1e-12), key="test/unresolved")
    assert o.status == WRONG and o.counterexample["at"]["u"] > 0.9


def test_search_is_deterministic():
    check = _pairs_check(_jensen)
    a = searched_run(check, budget=300, key="test/det").to_json()
    b = searched_run(check, budget=300, key="test/det").to_json()
    assert a == b


def test_workers_do_not_change_outcomes(monkeypatch):
    """The same steps computed in this process and on 2 worker processes: identical outcomes."""
    from verify import audit
    from verify.audit.engine import STEPS, caching

    audit.load()
    ids = ["prop2.2", "lemma1.3", "eq7"]
    serial = {i: STEPS[i].compute().to_json() for i in ids}
    parallel = {}
    for i in ids:
        monkeypatch.setattr(STEPS[i], "_outcome", None)
    from verify.audit import _bar, _parallel

    with caching(read=False, write=False):
        bar = _bar(len(ids), False)
        _parallel(ids, 2, bar)
        parallel = {i: STEPS[i].run().to_json() for i in ids}
    for i in ids:
        monkeypatch.setattr(STEPS[i], "_outcome", None)
    assert json.dumps(serial, sort_keys=True) == json.dumps(parallel, sort_keys=True)


@contextlib.contextmanager
def _digest_of(tmp_path, monkeypatch, name):
    """A package ``name`` under tmp_path whose module ``mod`` is rewritten by ``write(src)``;
    ``digest()`` imports it afresh and returns the digest of a step checking with ``mod.check``.
    Both modules are forgotten on leaving."""
    import importlib
    import sys

    from verify.audit.cache import step_digest
    from verify.audit.engine import Step

    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(src):
        (pkg / "mod.py").write_text(src)

    def digest():
        sys.modules.pop(f"{name}.mod", None)
        mod = importlib.import_module(f"{name}.mod")
        return step_digest(Step("x.1", "x", "001", "here", "<=", "a", "b", "why", mod.check))

    try:
        yield write, digest
    finally:
        sys.modules.pop(f"{name}.mod", None)
        sys.modules.pop(name, None)


def test_digest_follows_the_code(tmp_path, monkeypatch):
    """A step's digest changes when a function its check calls changes, not when unrelated code
    does.
    """
    src = textwrap.dedent("""
        def helper():
            return 1.0

        def other():
            return 2.0

        def check():
            return helper()
    """)
    with _digest_of(tmp_path, monkeypatch, "digestpkg") as (write, digest):
        write(src)
        d0 = digest()
        write(src.replace("return 2.0", "return 3.0"))  # unrelated function
        assert digest() == d0
        write(src.replace("return 1.0", "return 1.5"))  # the helper the check calls
        assert digest() != d0


def test_a_changed_digest_is_recomputed_never_read(monkeypatch, tmp_path):
    from verify.audit import cache
    from verify.audit.engine import STEPS, Outcome

    engine_steps = STEPS
    from verify import audit

    audit.load()
    s = engine_steps["prop2.2"]
    monkeypatch.setenv("MCSA_CACHE", str(tmp_path))
    monkeypatch.setattr(s, "_outcome", None)
    monkeypatch.setattr(s, "_digest", "0" * 64)  # as if the code had changed
    fake = Outcome(WRONG, "planted stale entry").to_json()
    cache.remember("prop2.2", "f" * 64, fake)  # stored under another digest: never read
    calls = []
    monkeypatch.setattr(type(s), "compute",
                        lambda self: calls.append(1) or Outcome(VALID, "recomputed"))
    assert s.run().status == VALID and calls == [1]
    monkeypatch.setattr(s, "_outcome", None)
    assert s.run().status == VALID and calls == [1]  # now read from the user cache under its digest
    monkeypatch.setattr(s, "_outcome", None)


def test_digest_sees_through_lru_cache(tmp_path, monkeypatch):
    """A memoised helper (functools.lru_cache) is part of the digest like any function."""
    src = ("import functools\n\n@functools.lru_cache(maxsize=None)\ndef helper():\n    return "
           "1.0\n\ndef check():\n    "
        "return helper()\n")
    with _digest_of(tmp_path, monkeypatch, "digestpkg2") as (write, digest):
        write(src)
        d0 = digest()
        write(src.replace("return 1.0", "return 2.0"))
        assert digest() != d0


def test_integer_domains_are_evaluated_at_50_digits():
    """An Int domain's values reach the 50-digit evaluation as mpf: 1/N is not float64 (a proved
    identity must not come out 'wrong' by rounding)."""
    import sympy as sp

    N = sp.Symbol("N", positive=True)
    x = sp.Symbol("x", positive=True)
    lhs, rhs = (1 / N + x) * 3, 3 / N + 3 * x
    o = engine.sym_equal(sp.expand(lhs) + 0 * x, rhs + sp.Integer(0),
                         domain={N: Int(1, 10 ** 4, log=True), x: Real(0.1, 7)})
    assert o.status == EXACT
    # not simplifiable by sympy's default route, but equal: the search at 50 digits finds no
    # discrepancy
    o = engine.sym_le(sp.sqrt(N ** 2 + 1 / N) - N, 1 / N + x * 0,
                      domain={N: Int(1, 10 ** 4, log=True), x: Real(1, 2)})
    assert o.status == VALID, o.detail


def test_cancellation_at_50_digits_is_not_a_discrepancy():
    """a1 a2 - b1 b2 = (a1 - b1) a2 + b1 (a2 - b2) at a1 = 0, a2 = b1 = 1/2, b2 = 1e-173: both sides
    are -5e-174, but the right one cancels 0.25 - 0.25 at 50 digits; the 150-digit confirmation
    clears it,
    while a real discrepancy of the same size is still caught."""
    import mpmath
    import sympy as sp

    a1, a2, b1, b2 = sp.symbols("a1 a2 b1 b2", nonnegative=True)
    lhs, rhs = a1 * a2 - b1 * b2, (a1 - b1) * a2 + b1 * (a2 - b2)
    fl, fr = sp.lambdify([a1, a2, b1, b2], lhs,
                         "mpmath"), sp.lambdify([a1, a2, b1, b2], rhs, "mpmath")
    pt = [mpmath.mpf(0), mpmath.mpf("0.5"), mpmath.mpf("0.5"), mpmath.mpf("1e-173")]
    with mpmath.workdps(50):
        assert fr(*pt) == 0 and fl(*pt) != 0  # the 50-digit evaluation alone would call it wrong
    dom = {s: Real(0, 1) for s in (a1, a2, b1, b2)}
    assert engine.sym_equal(lhs, rhs, domain=dom).status == EXACT
    assert engine.sym_equal(lhs, rhs + b2 * 1e-3, domain=dom).status == WRONG
