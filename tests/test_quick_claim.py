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
    """|(1 + x/n)^n - e^x| with a float64 error bound (module level: check_claim pickles it)."""
    import numpy as np

    return abs((1 + x / n) ** n - np.exp(x)), 1e-12 * np.exp(x) * n


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
        (dict(domain={"a": (1, 5, "log")}), "log scale"),
        (dict(relation="<"), "relation"),
    ):
        args = dict(id="q", bound="a", quantity=f, domain={"a": (0.0, 1.0)}) | kw
        with pytest.raises(ValueError, match=why):
            QuickClaim(**args)
    with pytest.raises(ValueError, match="not in the domain"):
        QuickClaim("q2", bound="a + b", quantity=f, domain={"a": (0.0, 1.0)}).formula()


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
