"""The derivation cache's keys (bounds.derive) do not depend on the history of the process.

sympy treats Symbol('n', integer=True) and Symbol('n', real=True, integer=True) as one symbol
(equal, same hash), and which instance an expression ends up holding depends on sympy's cache,
i.e. on what the process built before.  Plain srepr printed the creation keywords, so the key of
``verify lemma5`` run alone differed from the one ``bounds cache --write`` stored, and the
claim re-derived a sympy integral (2 s) on every cold start.
"""

import subprocess
import sys

import sympy as sp

from bounds import derive


def test_equal_symbols_give_one_key():
    a = sp.Symbol("n", integer=True, positive=True)
    b = sp.Symbol("n", real=True, integer=True, positive=True)
    assert a == b
    v = sp.Symbol("v", positive=True)
    fn = lambda *x: x  # noqa: E731
    assert derive._key("sympy.integrate", fn, (a / v ** 2 * (1 - 1 / v) ** (b - 1),), {}) == \
        derive._key("sympy.integrate", fn, (b / v ** 2 * (1 - 1 / v) ** (a - 1),), {})
    # different assumptions are different keys
    c = sp.Symbol("n", positive=True)
    assert derive._key("k", fn, (c,), {}) != derive._key("k", fn, (a,), {})


def test_a_claim_alone_finds_its_derivations_in_the_cache():
    """lemma5 built in a fresh process (nothing else derived first) derives nothing: every sympy
    call hits the file.
    """
    code = ("import bounds.derive as d\n"
            "calls = []\n"
            "orig = d._key\n"
            "keys = set(d._load().get('entries', {}))\n"
            "d._key = lambda *a: (lambda k: (calls.append(k in keys), k)[1])(orig(*a))\n"
            "import bounds\n"
            "bounds.get('lemma5')\n"
            "print(len(calls), all(calls))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert int(out[0]) >= 2 and out[1] == "True"


def test_bound_values_are_memoised_on_exact_parameters(monkeypatch):
    """verify.registry.bound_value memoises a bound per process on the exact parameters (0.1 and
    the next double are two keys); an array parameter is evaluated each time, never keyed by its
    repr (which elides the middle of a long array and would make two different arrays one key)."""
    import numpy as np

    from verify import registry

    seen = []

    class Claim:
        def evaluate_form(self, quantity, form, **params):
            seen.append(params)
            return float(np.sum(params.get("x", 0.0)))

    import bounds
    monkeypatch.setattr(bounds, "get", lambda cid: Claim())
    registry._bound_float.cache_clear()  # the per-process memo (functools.lru_cache)
    a = np.zeros(5000)
    b = a.copy()
    b[2500] = 1.0
    assert repr(a) == repr(b)
    assert (registry.bound_value("c", "q", "f",
                                 x=a) == 0.0 and registry.bound_value("c", "q", "f", x=b) == 1.0)
    assert registry.bound_value("c", "q", "f", x=0.1) == 0.1 and len(seen) == 3
    assert registry.bound_value("c", "q", "f", x=0.1) == 0.1 and len(seen) == 3  # memoised
    nxt = float(np.nextafter(0.1, 1.0))
    # the next double is another key
    assert registry.bound_value("c", "q", "f", x=nxt) == nxt and len(seen) == 4
