"""Execute one notebook in a fresh kernel and write what it showed (run by tests/test_notebooks.py).

Usage: python tests/_nbrun.py NOTEBOOK KERNEL_DIR KERNEL_NAME WORKDIR CELL_TIMEOUT PROBE_SOURCE_FILE
OUT_JSON

Runs in a process of its own, so that no state of the test process (its event loop, its
sockets, what the rest of the suite imported) reaches the kernel's messaging.  Appends the
probe cell, executes with nbclient (``CELL_TIMEOUT`` seconds per cell: a limit on one cell's
silence, not on the notebook), takes the probe cell off again, and writes
``{"notebook": ..., "probe": ...}`` or ``{"error": ..., "kind": "stall" | "cell"}`` to OUT_JSON.
Exit status 0 whenever OUT_JSON was written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import traceback

# nbformat imports jsonschema, whose optional IRI format check (present when Jupyter's
# jsonschema[format-nongpl] is installed) imports rfc3987_syntax, which compiles a grammar at
# import: 2-3 CPU s in every process that reads a notebook.  Nothing here validates an IRI
# (nbformat checks no string formats), so the module is marked absent and the check not defined.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

import nbformat  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import AsyncKernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError  # noqa: E402


async def _run(client: NotebookClient, km: AsyncKernelManager) -> None:
    try:
        await client.async_execute()  # raises CellExecutionError if a cell raises
    finally:  # the kernel is ours (km given): shut it down
        with contextlib.suppress(Exception):
            if await km.is_alive():
                await km.shutdown_kernel(now=True)


def main(argv: list[str]) -> int:
    path, kernel_dir, kernel_name, workdir, timeout, probe_file, out = argv
    nb = nbformat.read(path, as_version=4)
    with open(probe_file, encoding="utf-8") as fh:
        nb.cells.append(nbformat.v4.new_code_cell(fh.read()))
    km = AsyncKernelManager(kernel_name=kernel_name,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[kernel_dir]))
    client = NotebookClient(nb, km=km, timeout=float(timeout), startup_timeout=600,
                            kernel_name=kernel_name,
                            resources={"metadata": {"path": workdir}})
    try:
        asyncio.run(_run(client, km))
    except (CellTimeoutError, DeadKernelError, TimeoutError, RuntimeError) as exc:
        # no progress for a whole cell timeout, or a kernel that died: worth one retry
        result = {"error": f"{type(exc).__name__}: {exc}"[:4000], "kind": "stall"}
    except Exception as exc:  # a cell raised: the notebook is wrong, never retried
        result = {"error": f"{type(exc).__name__}: {exc}"[:8000], "kind": "cell",
                  "traceback": traceback.format_exc()[-4000:]}
    else:
        probe_out = nb.cells.pop()
        lines = [line for o in probe_out.outputs if o.get("output_type") == "stream"
                 for line in o["text"].splitlines() if line.startswith("PROBE ")]
        if len(lines) != 1:
            result = {"error": f"the probe printed {len(lines)} PROBE lines", "kind": "cell"}
        else:
            result = {"notebook": nbformat.writes(nb),
                      "probe": json.loads(lines[0][len("PROBE "):])}
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
