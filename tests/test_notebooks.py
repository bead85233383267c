"""The teaching notebooks in notebooks/ run top to bottom and show what they claim.

Each notebook is executed in a fresh kernel with nbclient (a cell that raises fails the
test; every notebook also ends its sections with ``assert`` statements).  The kernel is
started with *this* interpreter through a temporary kernel spec, so the test works in a
fresh virtualenv after ``pip install -e .[test]`` without any ``ipykernel install``.
Kernels run in a temporary working directory, so executing leaves the repository as it was.

Every notebook's last cell prints one line ``SUMMARY {json}`` with its key numbers; the
checks below read that line from the executed notebook.
"""

from __future__ import annotations

import json
import pathlib
import sys

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NB_DIR = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
KERNEL_NAME = "mcsa-verify-test-python"
CELL_TIMEOUT = 300  # seconds, per cell


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory):
    """A kernel spec that launches ipykernel with the running interpreter."""
    root = tmp_path_factory.mktemp("kernels")
    spec = root / KERNEL_NAME
    spec.mkdir()
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test interpreter)",
        "language": "python",
    }))
    return [str(root)]


def execute(path: pathlib.Path, kernel_dirs, workdir) -> nbformat.NotebookNode:
    """Run ``path`` in a fresh kernel whose working directory is ``workdir`` (so nothing a
    notebook or a library writes, e.g. Hypothesis' cache, lands in the repository)."""
    nb = nbformat.read(path, as_version=4)
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    client = NotebookClient(nb, km=km, timeout=CELL_TIMEOUT, kernel_name=KERNEL_NAME,
                            resources={"metadata": {"path": str(workdir)}})
    client.execute()  # raises CellExecutionError if any cell raises
    return nb


def summary_of(nb) -> dict:
    lines = [line for cell in nb.cells if cell.cell_type == "code"
             for out in cell.get("outputs", []) if out.get("output_type") == "stream" and out.get("name") == "stdout"
             for line in out["text"].splitlines() if line.startswith("SUMMARY ")]
    assert len(lines) == 1, f"expected one SUMMARY line, found {len(lines)}"
    return json.loads(lines[0][len("SUMMARY "):])


# ----------------------------------------------------------------------------- per-notebook checks
def check_01(s):
    assert s["prop1_max_error"] < 1e-10  # Proposition 1 by exact quadrature
    assert s["prop1_mc_max_z"] < 4.5  # ... and by Monte Carlo with all four schemes
    assert s["table2_matches_counters"] is True  # Table 2 == the simulators' counters
    assert s["final_kl"]["pmcsa"] < 0.5 * s["final_kl"]["jsa"]  # Wishart target, Adam, 2000 iterations
    assert set(s["compare_best_G2"].values()) == {"pMCSA"}
    assert min(s["compare_rho_w1e4"].values()) > 0.999


def check_02(s):
    assert s["imh_worst_minus_rk"] < 1e-12  # IMH attains r^k at the worst start
    assert all(v <= 1.0 for v in s["cis_ratio_k10"].values())  # CIS below the Andrieu-Lee-Vihola bound
    assert s["jsa_joint_tv_limit"]["2"] > 0.3 and s["jsa_joint_tv_limit"]["3"] > 0.5  # joint law stays away from pi^N
    assert max(s["jsa_marginal_tv_k60"].values()) < 1e-4  # while every marginal converges
    assert s["jsa_p_repeat"] > 0.8


def check_03(s):
    slopes = s["stationary_slopes"]
    for lab in ("good q", "poor q"):
        assert abs(slopes[f"{lab}/pmcsa"] + 1) < 0.15 and abs(slopes[f"{lab}/msc"]) < 0.15
    assert slopes["poor q/jsa"] > -0.3
    worst = s["exact_var_worst"]["pMCSA"]
    assert worst[-1] == pytest.approx(worst[0] / 32, rel=1e-9)  # exactly 1/N
    # the conditional-bias finding for Theorem 4: explicit bound below the exact value for large t
    assert s["thm4_explicit_t1000"] < s["thm4_exact_second"] <= s["thm4_corrected"]
    assert s["thm4_exact_second"] == pytest.approx(0.8432142857142858, rel=1e-9)
    assert s["thm3_jsa_exact_vs_explicit"][0] > s["thm3_jsa_exact_vs_explicit"][1]
    forms = s["verify_theorem4_forms"]
    assert forms["explicit"] == "violated" and forms["corrected"] == "holds"
    second, bound = s["gaussian_second_vs_bound"]
    assert second < bound


def check_04(s):
    assert s["lemma5_statuses"]["lemma5.2"] == "wrong" and s["lemma5_statuses"]["lemma5.statement"] == "wrong"
    exact, printed = s["lemma5_at_wstar"]
    assert exact > printed
    assert s["lemma6_search"]["found"] and s["lemma6_search"]["pq"][0] == s["lemma6_search"]["pq"][1]  # q = pi
    assert s["theorem1_verdicts"] == ["holds", "violated"]
    assert {"lemma5", "lemma6", "theorem3", "theorem4"} <= set(s["statement_fails"])


def check_05(s):
    b = s["benefit_exponents"]
    assert b["pmcsa/late"][0] > 0.6 and b["msc/late"][0] < 0.3  # pMCSA ~ 1/N, MSC flat
    assert s["pmcsa_bound_holds"] is True and s["w_star_always_infinite"] is True
    v_msc, v_pi = s["msc_variance_vs_stationary"]
    assert v_msc < v_pi


CHECKS = {"01_mcgd_and_mcsa": check_01, "02_mixing": check_02, "03_gradient_variance": check_03,
          "04_proof_audit": check_04, "05_figure1_variance": check_05}


# ----------------------------------------------------------------------------- tests
def test_the_teaching_notebooks_exist():
    assert {p.stem for p in NOTEBOOKS} >= set(CHECKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_clean(path):
    """Committed without outputs, with the standard python3 kernel spec."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: stored outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_stands_alone(path):
    """Sources cited by bibliographic reference; no path outside the repository."""
    import re

    nb = nbformat.read(path, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells)
    assert "shared/" not in text and "seeds/" not in text, f"{path.name}: points outside the repository"
    assert not re.search(r"\b00[0-3]_[0-9a-f]{16}", text), f"{path.name}: names a seed file instead of citing it"
    assert re.search(r"\*\*Source:\*\* .*(Kim|El hanchi|draft)", nb.cells[0].source), f"{path.name}: no cited source"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_shows_its_claims(path, kernel_dirs, tmp_path):
    nb = execute(path, kernel_dirs, tmp_path)
    summary = summary_of(nb)
    assert summary, f"{path.name}: empty SUMMARY"
    check = CHECKS.get(path.stem)
    if check is not None:
        check(summary)
