"""tests/_nbrun.py, the notebook runner: a kernel that sits idle with a cell pending is a stall.

Jupyter's messaging stalled now and then in the suite (the kernel idle, the client waiting for a
reply it never got); the runner used to wait the whole cell timeout (300 s) before it ran the
notebook again.  It now calls a stall once the kernel's processes used no CPU time, and no cell
started or finished, for its idle limit.  A cell that sleeps stands in for the stalled reply; a
cell that computes for longer than the limit must not be taken for one.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import nbformat
from notebook_kit import RUNNER, kernel_spec, probe_cell

KERNEL_NAME = "mcsa-verify-nbrun-python"


def _run(tmp_path: pathlib.Path, source: str, idle_limit: float) -> dict:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell(source)])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    (tmp_path / "kernels").mkdir()
    kernels = kernel_spec(tmp_path / "kernels", KERNEL_NAME)
    probe, out = tmp_path / "probe.py", tmp_path / "out.json"
    probe.write_text(probe_cell({"x": "x"}), encoding="utf-8")
    r = subprocess.run([sys.executable, str(RUNNER), str(path), kernels[0], KERNEL_NAME,
                        str(tmp_path), "300", str(probe), str(out), str(idle_limit)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_an_idle_kernel_with_a_cell_pending_is_a_stall(tmp_path):
    # the cell would finish after 120 s and the run would then succeed: only the watch stops it
    res = _run(tmp_path, "import time\ntime.sleep(120)", idle_limit=1)
    assert res.get("kind") == "stall" and "used no CPU" in res["error"], res


def test_a_cell_that_computes_past_the_limit_is_not_a_stall(tmp_path):
    busy = "import time\nt0 = time.process_time()\nwhile time.process_time() - t0 < 3:\n    pass"
    res = _run(tmp_path, busy, idle_limit=1)
    assert "error" not in res, res
    assert res["probe"] == {"x": 1}
