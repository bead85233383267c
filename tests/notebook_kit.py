"""What the notebook tests share (tests/test_notebooks.py, tests/test_exercises.py).

A notebook is executed in a process of its own (tests/_nbrun.py) with a kernel started from this
interpreter (a temporary kernel spec, so no ``ipykernel install`` is needed in a fresh virtualenv),
in a temporary working directory.  One more cell, added here and never stored in the notebook,
prints a JSON *probe* of the variables in which the notebook leaves its key numbers; every check of
the tests is a predicate on that probe with a *plant*, a wrong value that it must reject.

nbclient's limit is on one cell (``CELL_TIMEOUT`` seconds without the cell finishing); there is no
limit on a whole notebook, so a slow or busy machine only makes the run longer.  Notebooks used to
be driven from the test process itself, where Jupyter's messaging stalled now and then after the
rest of the suite had run (the kernel idle with every cell run, the client waiting), and they
still do now and then; a run that makes no progress (the kernel idle for 30 s with a cell
pending, tests/_nbrun.py; or a whole cell timeout), or whose kernel dies, is repeated once in a
fresh process and said on stderr.  A cell that raises, or a wrong probe, is never retried.

An execution is kept (:func:`_stored_run`) beside the docs build's jupyter-cache, in the directory
named by the digest of the packages' code and the numerical libraries' versions
(docs/_ext/nbcache.py), under a key made of the notebook file, the probe cell, this runner and the
interpreter's and Jupyter's versions.  A later run with none of these changed takes the kept
execution (the same code at the same seeds computes the same outputs) and says so on stderr; the
checks and plants are evaluated again on its probe.  ``MCSA_NOTEBOOK_CACHE=off`` executes every
notebook anyway; a fresh clone has no store and executes them all.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
RUNNER = pathlib.Path(__file__).resolve().parent / "_nbrun.py"
CELL_TIMEOUT = 300  # seconds of one cell (docs/conf.py: nb_execution_timeout)


@dataclass(frozen=True)
class Check:
    what: str                          # what is verified, and its source
    holds: Callable[[dict], bool]      # the predicate on the probe
    plant: Callable[[dict], None]      # puts a wrong value into (a copy of) the probe


PROBE_CELL = """\
import json as __json
import numpy as __np

def __plain(o):
    if isinstance(o, __np.ndarray):
        return o.tolist()
    if isinstance(o, __np.generic):
        return o.item()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON: {type(o).__name__}")

print("PROBE " + __json.dumps({%s}, default=__plain))
"""


def probe_cell(probes: dict[str, str]) -> str:
    """The probe cell printing ``{name: value of expr}`` for ``probes`` = {name: expr}."""
    return PROBE_CELL % ", ".join(f"{name!r}: ({expr})" for name, expr in probes.items())


def kernel_spec(root: pathlib.Path, name: str) -> list[str]:
    """A kernel spec ``name`` under ``root`` that launches ipykernel with the running
    interpreter.
    """
    spec = root / name
    spec.mkdir()
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test interpreter)",
        "language": "python",
    }))
    return [str(root)]




def _nbcache():
    """docs/_ext/nbcache.py: where the docs build finds the executions made here."""
    spec = importlib.util.spec_from_file_location("_mcsa_nbcache",
                                                  ROOT / "docs" / "_ext" / "nbcache.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _share_with_docs(path: pathlib.Path, executed_nb) -> None:
    """Store the execution in the docs build's jupyter-cache (keyed by the notebook's code cells and
    by the digest of the code it imports), so that the docs show these outputs and do not run the
    notebook again.
    Skipped quietly when jupyter-cache is not installed (the docs extra); the build then
    executes."""
    try:
        from jupyter_cache import get_cache
        from jupyter_cache.base import CacheBundleIn
    except ImportError:
        return
    source = nbformat.read(path, as_version=4)
    code = [c for c in source.cells if c.cell_type == "code"]
    ran = [c for c in executed_nb.cells if c.cell_type == "code"]
    if len(code) != len(ran):
        return
    # outputs onto the stored notebook: its hash is what the docs build looks up
    for cell, done in zip(code, ran):
        cell.outputs, cell.execution_count = done.outputs, done.get("execution_count")
    cache = get_cache(str(_nbcache().cache_path()))
    cache.cache_notebook_bundle(CacheBundleIn(source, str(path)), check_validity=False,
                                overwrite=True)


def _stored_run(path: pathlib.Path, probe_source: str) -> pathlib.Path | None:
    """Where an execution of ``path`` with this probe is kept: ``<jupyter-cache
    dir>/test-runs/<name>.json``, the directory named by the code digest (docs/_ext/nbcache.py), the
    name by the notebook's bytes, the probe cell, this runner (tests/_nbrun.py) and the versions of
    Python and of the Jupyter machinery.
    None when ``MCSA_NOTEBOOK_CACHE`` is off."""
    if os.environ.get("MCSA_NOTEBOOK_CACHE", "on").lower() in ("off", "0", "no"):
        return None
    h = hashlib.sha256()
    for part in (path.read_bytes(), probe_source.encode(), RUNNER.read_bytes(),
                 sys.version.encode()):
        h.update(part + b"\0")
    for dist in ("nbformat", "nbclient", "ipykernel", "jupyter_client"):
        try:
            h.update(f"{dist} {importlib.metadata.version(dist)}\n".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{dist} -\n".encode())
    name = f"{path.parent.name}-{path.stem}-{h.hexdigest()[:16]}.json"
    return _nbcache().cache_path() / "test-runs" / name


def execute(path: pathlib.Path, probes: dict[str, str], kernel_dirs: list[str], kernel_name: str,
            workdir: pathlib.Path, share: bool = False):
    """(executed notebook, probe), or the exception that its tests raise; ``share``: store the
    execution for the docs build (see :func:`_share_with_docs`).  A successful execution is kept
    (:func:`_stored_run`) and taken instead of executing again while nothing it depends on
    changed."""
    probe = workdir / "_probe_cell.py"
    probe.write_text(probe_cell(probes), encoding="utf-8")
    stored = _stored_run(path, probe_cell(probes))
    if stored is not None and stored.is_file():
        try:
            res = json.loads(stored.read_text(encoding="utf-8"))
            nb = nbformat.reads(res["notebook"], as_version=4)
        # unreadable: executed again below (and stored anew)
        except (OSError, ValueError, KeyError):
            pass
        else:
            print(f"tests/notebook_kit.py: {path.name}: the execution kept in {stored.parent} "
                  "(MCSA_NOTEBOOK_CACHE=off executes it again)", file=sys.stderr)
            if share:
                _share_with_docs(path, nb)
            return nb, res["probe"]
    out = workdir / "_result.json"
    for attempt in (1, 2):
        out.unlink(missing_ok=True)
        proc = subprocess.run([sys.executable, str(RUNNER), str(path), kernel_dirs[0], kernel_name,
                               str(workdir),
                               str(CELL_TIMEOUT), str(probe), str(out)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode != 0 or not out.is_file():
            return RuntimeError(
                f"{path.name}: the runner failed (exit {proc.returncode}): {proc.stderr[-3000:]}")
        res = json.loads(out.read_text(encoding="utf-8"))
        if "error" not in res:
            nb = nbformat.reads(res["notebook"], as_version=4)
            if share:
                _share_with_docs(path, nb)
            # written whole, then renamed: a concurrent reader never sees half a file
            if stored is not None:
                stored.parent.mkdir(parents=True, exist_ok=True)
                tmp = stored.with_name(f"{stored.name}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps({"notebook": res["notebook"], "probe": res["probe"]}),
                               encoding="utf-8")
                tmp.replace(stored)
            return nb, res["probe"]
        if res["kind"] != "stall" or attempt == 2:
            return AssertionError(f"{path.name}: {res['error']}\n{res.get('traceback', '')}")
        print(f"tests/notebook_kit.py: {path.name}: no progress ({res['error'][:200]}); "
              "running it once more in a fresh kernel", file=sys.stderr)


