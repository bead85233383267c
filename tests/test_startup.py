"""Issue 8 item 7: the derivation cache and claim catalog behind a fast start-up.

``bounds/_derived.json`` must equal a fresh derivation (the check re-derives every claim with
the cache off, in a fresh interpreter: about 8 s of CPU); a changed input or code never hits
a stale entry; the catalog is ignored once a file it was made from changes; listing claims
imports no sympy.  No timing assertions: start-up times are measured in
benchmarks/bad_inputs.py and the issue note.
"""

import subprocess
import sys

import sympy as sp

import bounds
from bounds import derive


def test_cache_equals_a_fresh_derivation():
    r = subprocess.run([sys.executable, "-m", "bounds", "cache", "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr + ("\nregenerate with: python -m bounds cache "
                                                     "--write")
    assert "is current" in r.stdout


def test_a_changed_input_or_code_misses_the_cache():
    x, y = sp.symbols("x y", positive=True)
    calls = []

    def square(e):
        calls.append(e)
        return sp.expand(e ** 2)

    def cube(e):
        calls.append(e)
        return sp.expand(e ** 3)

    cube.__qualname__ = square.__qualname__  # same name, other code
    f, g = derive.memo(square), derive.memo(cube)
    assert f(x + 1) == x ** 2 + 2 * x + 1 and g(x + 1) == sp.expand((x + 1) ** 3)
    assert f(x + y) == sp.expand((x + y) ** 2)
    assert len(calls) == 3  # three different keys
    assert f(x + 1) == x ** 2 + 2 * x + 1 and len(calls) == 3  # same key: reused in this process
    k1 = derive._key("t", square, (x + 1,), {})
    assert (k1 != derive._key("t", cube, (x + 1,),
                              {}) and k1 != derive._key("t", square, (x + 2,), {}))
    assert k1 != derive._key("t", square, (x + 1,), {"conds": "none"})


def test_a_stored_entry_is_used_only_for_its_own_key(monkeypatch):
    x = sp.Symbol("x", positive=True)

    def inc(e):
        return e + 1

    f = derive.memo(inc)
    key = derive._key(f"{inc.__module__}.{inc.__qualname__}", inc, (x,), {})
    fake = {"entries": {key: {"op": "inc", "result": derive.encode(x + 41)}}}
    monkeypatch.setattr(derive, "_load", lambda: fake)
    monkeypatch.setattr(derive, "_used", {})
    assert f(x) == x + 41  # the stored result for exactly this input and code
    assert f(x + 1) == x + 2  # any other input is derived afresh


def test_catalog_is_ignored_when_a_source_changed(monkeypatch):
    assert derive.catalog() is not None, "stale catalog: python -m bounds cache --write"
    assert list(derive.catalog()) == list(bounds._builders())
    digests, modules = derive.source_digests(), derive.module_digests()
    # the registered claim modules, found through their entry points
    assert "bounds.paper" in modules
    for name, patch in (("source_digests", lambda: {**digests, "core.py": "0" * 32}),
                        ("module_digests", lambda: {**modules, "bounds.paper": "0" * 32}),
                        ("module_digests",
                         lambda: {m: d for m, d in modules.items() if m != "bounds.paper"})):
        with monkeypatch.context() as m:
            # a changed file, a changed claim module, a module no longer registered
            m.setattr(derive, name, patch)
            derive._catalog_cached.cache_clear()
            try:
                assert derive.catalog() is None
                assert bounds.ids() == tuple(bounds._builders())  # built from the modules instead
            finally:
                derive._catalog_cached.cache_clear()


def test_catalog_records_match_the_claims():
    from bounds.cli import claim_record

    cat = derive.catalog()
    for cid in ("theorem3", "lemma5", "table2"):
        rec = claim_record(bounds.get(cid))
        assert cat[cid]["source"] == rec["source"] and cat[cid]["quantities"] == rec["quantities"]
        assert cat[cid]["show"]["quantities"] == rec["show"]["quantities"]


def test_listing_imports_no_sympy():
    code = ("import sys, bounds; from bounds.cli import main; main(['list']); main(['show', "
            "'theorem3']); ids = bounds.ids(); print('sympy' in sys.modules, 'numpy' in "
            "sys.modules, len(ids))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip().splitlines()[-1] == f"False False {len(bounds.ids())}"


def test_cached_lambdified_code_matches_sympy():
    import numpy as np

    from bounds.numerics import lambdify

    c = bounds.get("theorem3")
    ev, names = c.evaluator("second_moment", "explicit")
    fresh = sp.lambdify(ev.args, ev.expr, modules="numpy")
    pts = [np.array([2.0, 10.0]), np.array([1.5, 100.0]), np.array([3.0, 7.0]),
           np.array([1.0, 2.0]),
           np.array([0.0, 0.5]), np.array([0.0, 0.1]), np.array([1.0, 4.0])][: len(ev.args)]
    np.testing.assert_array_equal(lambdify(ev.args, ev.expr, "numpy")(*pts), fresh(*pts))


# ----------------------------------------------------------------------------- issue 24 §2
#: a child that runs one command line in-process and then says which heavy libraries it loaded
_PROBE = ("import runpy, sys; sys.argv = [{mod!r}] + {argv!r}\n"
          "try:\n    runpy.run_module({mod!r}, run_name='__main__')\n"
          "except SystemExit as e:\n    code = e.code\n"
          "print('status', code, 'sympy' in sys.modules, 'scipy' in sys.modules, "
          "file=sys.stderr)\n")


def _probe(mod, argv):
    r = subprocess.run([sys.executable, "-c", _PROBE.format(mod=mod, argv=list(argv))],
                       capture_output=True,
                       text=True)
    *err, last = r.stderr.strip().splitlines()
    return r.stdout, err, last.split()


import pytest  # noqa: E402


@pytest.mark.parametrize("mod, argv, says", [
    ("verify", ["theorem3", "--sed", "3"], "unrecognized arguments: --sed 3"),
    ("verify", ["theorm3"], "did you mean 'theorem3'"),
    ("verify", ["theorem3", "--quick", "--full"], "not allowed with"),
    ("bounds", ["theorem3", "--sed", "3"], "unrecognized arguments: --sed 3"),
    ("bounds", ["theorm3", "--N", "3"], "did you mean 'theorem3'"),
    ("simulate", ["tv", "--kernel", "imh", "--dim", "2", "--proposal-scale", "1.5", "--steps", "2",
                  "--sed", "3"],
     "unrecognized arguments: --sed 3"),
    ("simulate", ["--bogus"], "expected a command"),
])
def test_a_bad_flag_or_an_unknown_claim_is_answered_before_sympy_or_scipy(mod, argv, says):
    out, err, (_, status, sympy_loaded, scipy_loaded) = _probe(mod, argv)
    assert status == "2" and out == "" and len(err) == 1 and says in err[0], err
    assert ((sympy_loaded,
             scipy_loaded)
             == ("False", "False")), f"{mod} {argv} imported sympy/scipy before its error"


def test_the_probe_sees_heavy_imports():  # the check above can fail: a run that works imports them
    _, _, (_, status, sympy_loaded,
           _) = _probe("bounds", ["theorem3", "--N", "10", "--w-star", "2", "--L", "1"])
    assert status == "0" and sympy_loaded == "True"


@pytest.mark.parametrize("mod", ["bounds", "simulate", "verify"])
def test_version(mod):
    import verify

    r = subprocess.run([sys.executable, "-m", mod, "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.strip() == f"python -m {mod} {verify.__version__}"


def test_the_cli_index_is_the_registry():
    """verify/data/cli_index.json (read to answer bad input early) equals what the registry says;
    regenerate with: python -c 'from verify.command.cli import write_cli_index;
    write_cli_index()'"""
    import json

    from verify.command import cli

    stored = json.loads(cli._index_path().read_text(encoding="utf-8"))
    assert stored == json.loads(cli.dumps(cli.cli_index()))
