"""A claim in 20 lines (verify.quick.QuickClaim, examples/quick_claim.py, docs/own-claim.md).

The example runs as a plain script: it prints the verdict, the search and the figure as
``python -m verify CLAIM`` does and exits with the claim's status (0 holds); its wrong twin
says "violated" with a counterexample and exits 1.  The same object, registered through the
two entry points of a package, appears in ``python -m verify list`` and runs as
``python -m verify isir_rate``.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(autouse=True)
def _claims_registered_here_stay_here():
    """The claims a test of this file registers (``QuickClaim.register``) live in this process's
    registries; they are removed after the test (``Registry.scoped``), so that a later test file
    on the same worker (pytest-xdist hands out whole files) sees only the installed claims."""
    from verify.registry import Registry

    with Registry.scoped():
        yield


def _env(*extra):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra), str(ROOT), env.get("PYTHONPATH", "")])
    if extra:  # a dist-info on the path: this test's own plugin must be seen
        env.pop("MCSA_VERIFY_DOCUMENTS", None)
    return env


def _run(args, cwd, *extra, timeout=600):
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=_env(*extra),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def gap(n, x):
    """|(1 + x/n)^n - e^x| with a float64 error bound (module level: check_claim pickles it).

    At x = 0 every operation is exact (1 + 0 = 1, 1^n = 1, e^0 = 1), so the error bound,
    generous elsewhere, vanishes there with x.
    """
    import numpy as np

    return abs((1 + x / n) ** n - np.exp(x)), 1e-12 * x * np.exp(x) * n


def top(n, rng):
    """Mean of the largest of n uniforms, with its standard error."""
    import numpy as np

    x = rng.random((4000, n)).max(axis=1)
    return x.mean(), x.std(ddof=1) / np.sqrt(x.size)


def _nonblank(path):
    return [line for line in path.read_text().splitlines() if line.strip()]


def test_the_example_is_short():
    assert len(_nonblank(EXAMPLES / "quick_claim.py")) <= 25
    assert len(_nonblank(EXAMPLES / "quick_claim_wrong.py")) <= 25


def test_the_example_holds_as_a_plain_script(tmp_path):
    out = _run(
        [str(EXAMPLES / "quick_claim.py"), "--plot", "fig.png", "--max-examples", "60"], tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "final status: holds" in out.stdout and out.stdout.count("final status") == 1
    assert "no violation found" in out.stdout  # the search ran over the domain
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the same checks decided at a tighter bound: violated, exit 1 (the checks can fail)
    tight = _run(
        [str(EXAMPLES / "quick_claim.py"), "--bound-scale", "0.5", "--max-examples", "0"], tmp_path
    )
    assert tight.returncode == 1 and "final status: violated" in tight.stdout


def test_the_wrong_variant_is_violated_with_a_counterexample(tmp_path):
    out = _run([str(EXAMPLES / "quick_claim_wrong.py"), "--json"], tmp_path)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["verdict"] == "violated"
    bad = [c for c in doc["checks"] if c["verdict"] == "violated"]
    assert bad and all(c["empirical"] > c["bound"] for c in bad)
    found = doc["search"]
    assert found["found"] is True and found["empirical"] > found["bound"]
    # the counterexample recomputed from its own numbers: tv above the wrong rate's bound
    sys.path.insert(0, str(EXAMPLES))
    try:
        from quick_claim import tv
    finally:
        sys.path.remove(str(EXAMPLES))
    inst = found["counterexample"]
    value, err = tv(**inst)
    N, w, t = inst["N"], inst["w_star"], inst["t"]
    assert value - err > (1 - (N - 1) / (N - 1 + w)) ** t
    text = _run([str(EXAMPLES / "quick_claim_wrong.py"), "--max-examples", "100"], tmp_path)
    assert (
        text.returncode == 1
        and "final status: violated" in text.stdout
        and "COUNTEREXAMPLE" in text.stdout
    )


@pytest.mark.parametrize(
    "argv", [["--seed", "-1"], ["--bound-scale", "0"], ["--nope"], ["--max-examples", "x"]]
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, argv):
    out = _run([str(EXAMPLES / "quick_claim.py"), *argv], tmp_path)
    assert out.returncode == 2, out.stdout + out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_the_api_conforms_and_is_reproducible():

    from verify.quick import QuickClaim
    from verify.testing import check_claim

    c = QuickClaim(
        "quick_test_gap",
        bound="x**2 * exp(x) / n",
        quantity=gap,
        domain={"n": (1, 1000), "x": (0.0, 3.0)},
    )
    res = check_claim(c.verification())
    assert res.verdict == "holds" and res.checks == 4 + c.points and res.reproducible
    # a bound 100 times too small is violated, and the search finds it
    wrong = QuickClaim(
        "quick_test_gap_wrong",
        bound="x**2 * exp(x) / (100 * n)",
        quantity=gap,
        domain={"n": (1, 1000), "x": (0.0, 3.0)},
    )
    assert wrong.run().verdict == "violated"
    found = wrong.search(seed=0, max_examples=100)
    assert found["found"] and found["empirical"] > found["bound"]


def test_a_bad_declaration_is_refused_in_one_line():
    from verify.quick import QuickClaim

    def f(a):
        return a

    for kw, why in (
        (dict(domain={"a": (1, "x")}), "finite numbers"),
        (dict(domain={"a": (2, 1)}), "lo > hi"),
        (dict(domain={"a": (0, 5, "log")}), "log scale"),
        (dict(domain={"a": (0.5, 5, "int")}), "integer ends"),
        (dict(domain={"a": (0, 5, "ints")}), "kind one of"),
        (dict(relation="<"), "relation"),
    ):
        args = dict(id="q", bound="a", quantity=f, domain={"a": (0.0, 1.0)}) | kw
        c = QuickClaim(**args)  # recorded, so that a script still reaches main() (exit 2)
        for use in (c.check, c.formula, c.run):
            with pytest.raises(ValueError, match=why):
                use()
    with pytest.raises(ValueError, match="not in the domain"):
        QuickClaim("q2", bound="a + b", quantity=f, domain={"a": (0.0, 1.0)}).formula()
    # the kind of a domain: ints make an integer range, "real" says otherwise explicitly
    assert QuickClaim("q3", bound="a", quantity=f, domain={"a": (0, 8)}).verification() \
        .grid.quick["a"] == [0, 8]
    real = QuickClaim("q4", bound="a", quantity=f, domain={"a": (0, 8, "real")})
    assert all(isinstance(v, float) for v in real.verification().grid.quick["a"])


SCRIPT = """import sys
{imports}
from verify import QuickClaim

def {name}({args}):
    \"\"\"the quantity\"\"\"
{body}

claim = QuickClaim({id!r}, bound={bound!r}, quantity={name}, domain={domain!r})
if __name__ == "__main__":
    sys.exit(claim.main())
"""


def _script(tmp_path, id, bound, domain, body, imports="", args="t"):
    path = tmp_path / f"{id}.py"
    path.write_text(SCRIPT.format(imports=imports, name="q", args=args, body=body, id=id,
                                  bound=bound, domain=domain))
    return path


#: the claims of issue 34 at tiny scales: each must be decided on enclosures, whatever the
#: magnitude (an absolute floor of 1e-11 once let the first two pass as "holds")
TINY = [
    # P(Z > t) <= exp(-t^2): false by 2.4e9 at t = 7 and 3.9e12 at t = 8
    ("tail_with_error", "exp(-t**2)", {"t": (7.0, 8.0)},
     "    v = float(norm.sf(t))\n    return v, 1e-14 * v", "from scipy.stats import norm", 1),
    ("tail_plain_float", "exp(-t**2)", {"t": (7.0, 8.0)},
     "    return float(norm.sf(t))", "from scipy.stats import norm", 1),
    # P(Z > t) <= exp(-t^2/2)/2 (true; the tail goes down to 1e-268 at t = 35)
    ("tail_true", "exp(-t**2/2)/2", {"t": (7.0, 35.0)},
     "    v = float(ndtr(-t))\n    return v, 1e-14 * v", "from scipy.special import ndtr", 0),
    # at 1e-200: a true bound within 0.5 percent, and a false one by a relative 1e-6
    ("tiny_true", "exp(-t)", {"t": (460.0, 470.0)},
     "    with mpmath.workdps(60):\n        return mpmath.mpf('0.995') * mpmath.exp(t)**-1",
     "import mpmath", 0),
    ("tiny_false", "exp(-t)", {"t": (460.0, 470.0)},
     "    with mpmath.workdps(60):\n        return (1 + mpmath.mpf('1e-6')) * mpmath.exp(-t)",
     "import mpmath", 1),
]


@pytest.mark.parametrize("id, bound, domain, body, imports, status", TINY,
                         ids=[t[0] for t in TINY])
def test_tiny_quantities_are_decided_on_enclosures(tmp_path, id, bound, domain, body, imports,
                                                   status):
    path = _script(tmp_path, id, bound, domain, body, imports)
    out = _run([str(path), "--json", "--max-examples", "40"], tmp_path)
    assert out.returncode == status, out.stderr[-2000:]
    doc = json.loads(out.stdout)
    checks = doc["checks"]
    assert all(c["settled_by"] in ("float64", "exact") or c["settled_by"].startswith("arb-")
               for c in checks)
    ratios = [10 ** c["log10_ratio"] for c in checks]
    if status == 1:
        assert doc["verdict"] == "violated"
        worst = max(ratios)
        assert worst > (1e9 if id.startswith("tail") else 1.0)
        assert doc["search"]["found"] is True
    else:
        assert doc["verdict"] == "holds" and all(c["verdict"] == "holds" for c in checks)
        assert max(ratios) < 1
        if id == "tiny_true":
            assert min(ratios) > 0.99
        assert doc["search"]["found"] is False and doc["search"]["closest"]["ratio"] > 0
    if id == "tail_true":  # values down to 1e-268, each drawn at its own magnitude
        assert min(float(c["empirical"]) for c in checks) < 1e-260


#: bad declarations and flags of a QuickClaim script: one line on stderr, exit 2, before any work
BAD = [
    ("malformed", "(1 - t**", {"t": (0, 8)}, []),
    ("unknown_symbol", "t + s", {"t": (0, 8)}, []),
    ("empty", "", {"t": (0, 8)}, []),
    ("relation", "t > 1", {"t": (0, 8)}, []),
    ("infinite_at_0", "1/t", {"t": (0, 8)}, []),
    ("singular_inside", "1/(t - 3.5)", {"t": (0.0, 8.0)}, []),
    ("nan", "nan", {"t": (0, 8)}, []),
    ("zoo", "zoo", {"t": (0, 8)}, []),
    ("bad_domain", "t", {"t": (8, 0)}, []),
    ("plot_unwritable", "t", {"t": (0, 8)}, ["--plot", "/sys/kernel/x.png"]),
    ("plot_no_dir", "t", {"t": (0, 8)}, ["--plot", "/nonexistent/dir/x.png"]),
    ("plot_extension", "t", {"t": (0, 8)}, ["--plot", "x.txt"]),
    ("bad_flag", "t", {"t": (0, 8)}, ["--bogus"]),
    ("bad_seed", "t", {"t": (0, 8)}, ["--seed", "-1"]),
]


@pytest.mark.parametrize("id, bound, domain, argv", BAD, ids=[b[0] for b in BAD])
def test_a_bad_script_input_is_one_line_and_exit_2_before_any_work(tmp_path, id, bound, domain,
                                                                   argv):
    marker = tmp_path / "ran"
    path = _script(tmp_path, id, bound, domain,
                   f"    open({str(marker)!r}, 'w').close()\n    return 0.5 * t")
    out = _run([str(path), *argv], tmp_path)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert out.stdout == "" and not marker.exists()  # no quantity was computed


def test_a_crashing_quantity_is_exit_70_never_1(tmp_path):
    path = _script(tmp_path, "crash", "t", {"t": (0, 8)}, "    raise RuntimeError('boom')")
    out = _run([str(path), "--max-examples", "0"], tmp_path)
    assert out.returncode == 70 and "internal error: RuntimeError: boom" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_help_answers_quickly(tmp_path):
    import time

    path = _script(tmp_path, "helpful", "t", {"t": (0, 8)}, "    return 0.5 * t")
    t0 = time.perf_counter()
    out = _run([str(path), "--help"], tmp_path)
    # no heavy import before the flags are read (sympy, scipy, matplotlib): a loose wall-time
    # ceiling that holds on a busy machine; the benchmarks measure the real figure
    assert out.returncode == 0 and "Exit status" in out.stdout
    assert time.perf_counter() - t0 < 10
    probe = _run(["-c", f"import runpy, sys; sys.argv = [{str(path)!r}, '--help']\n"
                        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
                        "except SystemExit:\n    pass\n"
                        "print(sorted(m for m in ('sympy', 'scipy', 'matplotlib') "
                        "if m in sys.modules))"], tmp_path)
    assert probe.stdout.strip().splitlines()[-1] == "[]", probe.stdout


def test_registered_through_the_entry_points_it_is_a_claim_like_the_others(tmp_path):
    """A package (here a dist-info directory on the path, as pip would leave it) names one
    module in both groups; verify list, verify CLAIM and bounds CLAIM then know the claim."""
    (tmp_path / "isir_plugin.py").write_text(
        textwrap.dedent("""\
        from quick_claim import claim

        BUILDERS = claim.builders      # mcsa_verify.bounds: the formula
        claim.register()               # mcsa_verify.claims: the verification and its search space
        """)
    )
    info = tmp_path / "isir_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: isir-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[mcsa_verify.bounds]\nisir = isir_plugin\n\n[mcsa_verify.claims]\nisir = isir_plugin\n"
    )
    paths = (tmp_path, EXAMPLES)
    listed = _run(["-m", "verify", "list", "--json"], tmp_path, *paths)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["claim"] == "isir_rate")
    assert row["how"] == "exact" and row["forms"] == "stated"
    ran = _run(["-m", "verify", "isir_rate", "--no-cache"], tmp_path, *paths)
    assert ran.returncode == 0, ran.stderr
    assert "final status: holds" in ran.stdout
    searched = _run(
        ["-m", "verify", "search", "isir_rate", "--max-examples", "30", "--json"], tmp_path, *paths
    )
    assert searched.returncode == 0, searched.stderr
    assert json.loads(searched.stdout)["found"] is False
    ev = _run(
        [
            "-m",
            "bounds",
            "isir_rate",
            "--w-star",
            "3",
            "--N",
            "4",
            "--t",
            "2",
            "--heavy",
            "1",
            "--light",
            "1",
            "--p",
            "0.5",
            "--json",
        ],
        tmp_path,
        *paths,
    )
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["bounds"]["tv"]["stated"] == pytest.approx(
        (1 - 3 / (2 * 3 + 4 - 2)) ** 2, rel=1e-12
    )


def test_a_monte_carlo_quantity_is_decided_with_its_error_rate():
    """E[max of n uniforms] = n/(n + 1), estimated from 4000 draws per point (seeded)."""

    from verify.quick import QuickClaim
    from verify.testing import check_claim

    right = QuickClaim("quick_test_max", bound="n/(n + 1)", quantity=top, relation="=",
                       method="monte-carlo", domain={"n": (1, 20)}, points=6)
    res = check_claim(right.verification())
    assert res.verdict == "holds" and res.monte_carlo == 8 and res.reproducible
    rep = right.run(seed=3)
    assert all(c.z is not None and c.z > 3 for c in rep.checks)  # Bonferroni over 8 checks at 1e-3
    assert right.search() is None  # a random value is no counterexample
    wrong = QuickClaim("quick_test_max_wrong", bound="n/(n + 2)", quantity=top, relation="=",
                       method="monte-carlo", domain={"n": (1, 20)}, points=6)
    assert wrong.run().verdict == "violated"


def loose(n, x):
    """|(1 + x/n)^n - e^x| with an error bound wider than the value (module level: pickled)."""
    import numpy as np

    v = abs((1 + x / n) ** n - np.exp(x))
    return v, 10 * v + 1e-300


def test_check_claim_flags_an_enclosure_wider_than_its_value():
    from verify.quick import QuickClaim
    from verify.testing import check_claim

    # the error bound (10 times the value) cannot even say the sign: flagged, with the way out
    # (and such a check can never be violated by a positive bound: no power either)
    c = QuickClaim("quick_test_loose", bound="1.01 * Abs((1 + x/n)**n - exp(x))", quantity=loose,
                   domain={"n": (1, 1000), "x": (0.5, 3.0)})
    with pytest.raises(AssertionError, match="wider than its value.*inconclusive for that reason"):
        check_claim(c.verification(), rerun=False)
