"""Execute one notebook in a fresh kernel and write what it showed (run by tests/test_notebooks.py).

Usage: python tests/_nbrun.py NOTEBOOK KERNEL_DIR KERNEL_NAME WORKDIR CELL_TIMEOUT PROBE_SOURCE_FILE
OUT_JSON [IDLE_LIMIT]

Runs in a process of its own, so that no state of the test process (its event loop, its
sockets, what the rest of the suite imported) reaches the kernel's messaging.  Appends the
probe cell, executes with nbclient (``CELL_TIMEOUT`` seconds per cell: a limit on one cell's
silence, not on the notebook), takes the probe cell off again, and writes
``{"notebook": ..., "probe": ...}`` or ``{"error": ..., "kind": "stall" | "cell"}`` to OUT_JSON.
Exit status 0 whenever OUT_JSON was written.

A stall is also called after ``IDLE_LIMIT`` seconds (default 30) in which a cell is pending, no
cell started or finished, and the kernel's processes (with their children: a cell's shell
command) used no CPU time: Jupyter's messaging stalled now and then in the suite (the kernel idle
with its cell run, the client waiting for the reply), and waiting for the whole cell timeout cost
five minutes each time.  No cell of ours waits idle (none sleeps or waits for input), and a cell
that computes keeps the kernel's CPU time growing however busy the machine is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
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


class Stall(Exception):
    """The kernel sat idle with a cell pending for the idle limit."""


def _cpu_seconds(pid: int) -> float:
    """CPU time of process ``pid`` and its children so far (0 when it is gone)."""
    import psutil  # a dependency of ipykernel

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


async def _watch(km: AsyncKernelManager, idle_limit: float, activity: list[float]) -> None:
    """Raise :class:`Stall` once the kernel used no CPU and no cell started or finished for
    ``idle_limit`` seconds."""
    mark_cpu, mark = None, time.monotonic()  # CPU time and clock at the last sign of progress
    while True:
        await asyncio.sleep(min(1.0, idle_limit / 5))
        pid = getattr(km.provisioner, "pid", None) if km.provisioner is not None else None
        now = time.monotonic()
        if pid is None:  # the kernel is starting
            mark = now
            continue
        cpu = _cpu_seconds(pid)
        if mark_cpu is None or cpu - mark_cpu >= 0.05 or activity[0] > mark:
            mark_cpu, mark = cpu, now  # an idle kernel uses 0.00 s of CPU in 20 s
        elif now - mark > idle_limit:
            raise Stall(f"the kernel used no CPU for {idle_limit:g} s with a cell pending")


async def _run(client: NotebookClient, km: AsyncKernelManager, idle_limit: float) -> None:
    activity = [time.monotonic()]

    def touched(**_):
        activity[0] = time.monotonic()

    client.on_cell_start = client.on_cell_executed = touched
    run = asyncio.ensure_future(client.async_execute())  # raises CellExecutionError on a cell
    watch = asyncio.ensure_future(_watch(km, idle_limit, activity))
    try:
        done, _ = await asyncio.wait({run, watch}, return_when=asyncio.FIRST_COMPLETED)
        if watch in done:
            run.cancel()
            with contextlib.suppress(BaseException):
                await run
            watch.result()  # raises Stall
        run.result()
    finally:  # the kernel is ours (km given): shut it down
        watch.cancel()
        with contextlib.suppress(Exception):
            if await km.is_alive():
                await km.shutdown_kernel(now=True)


def main(argv: list[str]) -> int:
    path, kernel_dir, kernel_name, workdir, timeout, probe_file, out = argv[:7]
    idle_limit = float(argv[7]) if len(argv) > 7 else 30.0
    nb = nbformat.read(path, as_version=4)
    with open(probe_file, encoding="utf-8") as fh:
        nb.cells.append(nbformat.v4.new_code_cell(fh.read()))
    km = AsyncKernelManager(kernel_name=kernel_name,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[kernel_dir]))
    client = NotebookClient(nb, km=km, timeout=float(timeout), startup_timeout=600,
                            kernel_name=kernel_name,
                            resources={"metadata": {"path": workdir}})
    try:
        asyncio.run(_run(client, km, idle_limit))
    except (CellTimeoutError, DeadKernelError, TimeoutError, RuntimeError, Stall) as exc:
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
