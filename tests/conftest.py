"""Test configuration.

Hypothesis runs *derandomized* by default (profile ``ci``): the same examples every run,
so the suite cannot be flaky.  Set ``HYPOTHESIS_PROFILE=dev`` to explore with fresh
random examples locally.
"""

import os

# One BLAS thread per process (set before NumPy is imported here or in a subprocess: the
# notebook kernels and command-line tests inherit the environment).  On a 2-core machine
# the library default oversubscribes the cores and makes run times erratic.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# The suite checks the toolkit's own documents: only they are loaded (bounds.plugins.discover),
# whatever else is installed in the environment (a user's document package, or the example
# package that .ci/run installs before its second pass).  Tests of plugins load their own: they
# run their processes without this variable.  Already set (e.g. to "all"), it is kept.
os.environ.setdefault("MCSA_VERIFY_DOCUMENTS", "builtin")

import sys  # noqa: E402

# as tests/_nbrun.py (which says why): nbformat, read here too, then skips a 2-3 s import
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

import pytest
from hypothesis import HealthCheck, settings

from verify.searching.hypothesis_tools import hypothesis_without_local_constants

# Hypothesis (>= 6.131) mixes literals harvested from every imported local module into its
# draws, so a derandomized test's examples would depend on which modules the run happened
# to import before it (a test alone vs. in the full suite; issue: theorem2's property test
# was Unsatisfiable alone).  Switched off for the whole session.
hypothesis_without_local_constants().__enter__()

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=40, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Every claim, search space and proof step is registered through the entry points
# (verify.registry): load them once for the tests that read the registries directly.
from verify.registry import load as _load_claims  # noqa: E402

_load_claims()

# One quick run of every claim for the whole suite, shared by the pytest-xdist workers through a
# directory of the session (tests/shared_runs.py); the controller (or a run without xdist) makes
# it, the workers inherit its path.
from shared_runs import SHARED_DIR  # noqa: E402


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        import tempfile

        config._mcsa_runs = tempfile.TemporaryDirectory(prefix="mcsa-runs-")
        os.environ[SHARED_DIR] = config._mcsa_runs.name


def pytest_unconfigure(config):
    runs = getattr(config, "_mcsa_runs", None)
    if runs is not None:
        os.environ.pop(SHARED_DIR, None)
        runs.cleanup()


# The claim-result cache (verify.running.runner) is off for the suite: tests that patch a claim or
# the machinery must see it recomputed.  tests/test_runner.py switches it on in a tmp dir.
os.environ.setdefault("MCSA_CACHE", "off")
os.environ.setdefault("COLUMNS", "100")  # tables printed in-process fit the same width everywhere

# With ``--dist loadfile`` a test file runs whole on one worker, and xdist hands files out in the
# order collected (addopts: --no-loadscope-reorder; its default order, most tests first, hands long
# files with few tests, e.g. test_figures.py, out late, where one of them can be left running alone
# at the end).  The longest files go first (CPU seconds of
# each file alone, measured on the 2-core machine, issue 24 §5), every other file after them in its
# usual order: the short files then fill the gaps at the end, and the suite's wall time approaches
# its CPU time over the cores.  Only the order changes; pytest --random-order still shuffles.
SLOW_FILES_FIRST = (
    "test_notebooks.py",  # eight notebooks, two kernels at a time
    "test_figures.py", "test_verify.py", "test_report.py", "test_conformance.py",
    "test_bounds_properties.py",
    "test_plot.py", "test_figure_texts.py", "test_weightline.py", "test_quick_claim.py",
    "test_verify_widths.py",
    "test_certificates.py", "test_sweep.py", "test_exercises.py", "test_simulate.py",
    "test_runner.py",
    "test_startup.py", "test_docs_site.py", "test_finite_fast.py",
)


@pytest.hookimpl(tryfirst=True)  # before pytest-random-order's shuffle, when that is asked for
def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOW_FILES_FIRST)}
    # stable: a file's tests keep their order
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
