"""The checked style (issue 25 §4): ``ruff check`` passes on the package, tests, examples,
benchmarks and the docs extensions, with the settings of ``[tool.ruff]`` in pyproject.toml
(pyflakes, pycodestyle at 100 columns, isort, pydocstyle on the public API).  ``.ci/run`` also runs
it, and mypy."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["bounds", "simulate", "verify", "mcsa_cli", "tests", "examples", "benchmarks", "docs/_ext"]


def _ruff():
    exe = Path(sys.executable).with_name("ruff")
    return str(exe) if exe.exists() else shutil.which("ruff")


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (pip install -e '.[lint]')")
def test_ruff_check_passes():
    r = subprocess.run([_ruff(), "check", "--no-cache", *PATHS], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (pip install -e '.[lint]')")
def test_ruff_check_can_fail(tmp_path):
    # the same settings flag an unused import and a long line: the check above can say "violated"
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n" + "x = '" + "a" * 130 + "'\n")
    r = subprocess.run([_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
                        str(bad)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "F401" in r.stdout and "E501" in r.stdout, r.stdout + r.stderr
