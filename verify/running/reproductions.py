"""Stored reproductions of a document's experiments at the paper's settings.

A claim whose :class:`~verify.model.Verification` has a ``reproduction`` hook (Kim et al.
2022's Figures 1-2 among the built-in claims) reruns its experiment at the paper's
settings with ``python -m verify.running.reproductions``; its verdicts and figure are stored in
the package (``verify/data/figures/<claim>.json`` and ``.png``, read with
:mod:`importlib.resources`, so an installed wheel shows them) and its tidy table in
``docs/figures/<claim>.csv``.  The command line and the report show a stored full run
beside (and, where it is the claim's status, before) any reduced ``--quick`` run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .resources import data, read_bytes

FIGURES = "figures"
#: read the stored runs from this directory instead of the packaged data (tests, or a
#: regenerated set not yet committed)
DIRECTORY: Path | None = None


def stored_run(claim: str, directory: Path | str | None = None) -> dict | None:
    """The stored reproduction of ``claim``: its mode, verdict, completeness, settings and
    the quantities that do not hold; None when there is none or it cannot be read.

    ``directory``: read ``<directory>/<claim>.json`` instead of the packaged one."""
    directory = directory if directory is not None else DIRECTORY
    if directory is None:
        node, shown = data(f"{FIGURES}/{claim}.json"), f"verify/data/{FIGURES}/{claim}.json"
    else:
        node = Path(directory) / f"{claim}.json"
        shown = str(node)
    try:
        rec = json.loads(node.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict):
        return None
    return {"path": shown, "mode": rec.get("mode", "?"), "verdict": rec.get("verdict", "?"),
            "complete": rec.get("complete", True), "settings": rec.get("settings", {}),
            "sensitivity": rec.get("sensitivity", {}), "by_quantity": rec.get("by_quantity", {}),
            "not_holding": sorted(k for k, x in rec.get("by_quantity", {}).items() if x != "holds"),
            "final_readings": rec.get("final_readings", {}),
            "failing_readings": rec.get("failing_readings", []),
            "reading_rules": rec.get("reading_rules", {}),
            "degenerate_why": rec.get("degenerate_why", {})}


def stored_full_run(claim: str) -> dict | None:
    """The stored run of ``claim`` when it was made at the paper's (full) settings.

    Its status is decided again from its stored per-reading verdicts by the current reading rules
    (:func:`verify.decide.final_status`, the claim's readings as registered now), so a rule or a
    reading's hedge changed since the run was stored applies without rerunning the experiment.
    """
    st = stored_run(claim)
    if st is None or st["mode"] != "full":
        return None
    return _redecided(claim, st)


def _redecided(claim: str, st: dict) -> dict:
    from ..decide import final_status
    from ..registry import verifications

    v = verifications().get(claim)
    readings = st.get("final_readings") or {}
    if v is None or not readings:
        return st
    status = final_status(claim, dict(readings), readings=v.readings)
    if set(status.readings) != set(readings):  # stored under other readings: keep it as stored
        return st
    rules = {k: val for k, val in status.as_json().items()
             if k not in ("status", "failing_readings") and val}
    return {**st, "verdict": status.status, "failing_readings": list(status.failing),
            "reading_rules": rules, "final_readings": dict(status.readings)}


def stored_png(claim: str) -> bytes | None:
    """The stored figure of ``claim``'s reproduction (PNG bytes), or None."""
    return read_bytes(f"{FIGURES}/{claim}.png")


def reproducible() -> list[str]:
    """Registered claims with a ``reproduction`` hook."""
    from ..registry import verifications

    return [cid for cid, v in verifications().items() if v.reproduction is not None]


def main(argv=None) -> int:
    """``python -m verify.running.reproductions``: rerun and store the reproductions."""
    from mcsa_cli import Parser, UsageError, discard_unwritten_outputs, output_path

    from .execution import add_execution_flags, execution_options
    from .resources import checkout_root

    prog = "python -m verify.running.reproductions"
    claims = reproducible()
    ap = Parser(prog=prog, description=(
        "Rerun the documents' experiments at the paper's settings on the sweep engine (cached per "
        "cell; --workers K local processes or a Dask cluster with --scheduler) and store them: the "
        "tidy CSV in docs/figures/, the verdicts and the PNG in verify/data/figures/ (from a "
        "source checkout; elsewhere give --out DIR)."),
        epilog="Exit status: 0 success, 2 bad input (one line on stderr, before any work), 70 "
               "internal error (rerun with --debug for the traceback), 74 an output cannot be "
               "written (a full disk), 130 interrupted.")
    ap.add_argument("--claim", choices=claims + ["all"], default="all")
    ap.add_argument("--mode", choices=("quick", "full"), default="full")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="write every file into DIR (default: docs/figures and verify/data/figures "
                         "of the checkout)")
    ap.add_argument("--cached-only", action="store_true",
                    help="use only the cells already cached (no simulation); missing cells are "
                         "listed")
    ap.add_argument("--from-csv", action="store_true",
                    help="simulate nothing: re-decide the verdicts (every reading, and the "
                         "sensitivity table) from the stored tidy table <claim>.csv (in "
                         "docs/figures, or --out DIR) and redraw the figure from it; the table is "
                         "left as it is")
    add_execution_flags(ap)
    try:
        a = ap.parse_args(argv)
        ex = execution_options(a)
        if a.out is not None:
            # created (or written into) now: an unwritable place is bad input, before any work
            out = data_dir = Path(output_path("--out", a.out, kind="dir"))
        else:
            root = checkout_root()
            if root is None:
                raise UsageError(
                    "--out: this is an installed package; give --out DIR to write the "
                    "reproductions")
            out, data_dir = root / "docs" / "figures", root / "verify" / "data" / FIGURES
        if a.from_csv:
            if a.cached_only:
                raise UsageError("--from-csv: not used with --cached-only "
                                 "(nothing is simulated or read from the cache)")
            for cid in (claims if a.claim == "all" else [a.claim]):
                if not (out / f"{cid}.csv").is_file():
                    raise UsageError(f"--from-csv: no stored table {out / f'{cid}.csv'}")
    except UsageError as e:
        discard_unwritten_outputs()
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    from simulate.sweep import GridError

    from ..registry import verifications

    reg = verifications()
    todo = claims if a.claim == "all" else [a.claim]
    try:
        for cid in todo:
            kw = {"from_csv": True} if a.from_csv else {}
            doc = reg[cid].reproduction(out, data_dir, mode=a.mode, cached_only=a.cached_only,
                                        progress=lambda m: print(m, file=sys.stderr, flush=True),
                                        **ex, **kw)
            if doc is None:
                print(f"{cid}: nothing to store (no cell ran)")
                continue
            miss = "" if doc["complete"] else f"; INCOMPLETE, missing cells {doc['missing_cells']}"
            what = (f"re-decided from {out / (cid + '.csv')}, nothing simulated" if a.from_csv
                    else f"{doc['total_cell_wall_s']:.0f} s of simulation")
            print(f"{cid}: {doc['verdict']} ({what}{miss})")
    # an unreachable --scheduler: refused when connecting, before any cell runs
    except GridError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; finished cells are cached: rerun the same command to resume",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":  # through the kit's dispatcher: an unexpected error is one line, exit 70
    from mcsa_cli import run as _run

    raise SystemExit(_run("python -m verify.running.reproductions", "",
                          ["reproductions", *sys.argv[1:]], {"reproductions": main}))


def shown_status(claim: str, run_status: str, mode: str) -> dict:
    """The status a person is shown for ``claim`` after a run of ``mode``.

    A claim whose verdict comes from an experiment at the paper's settings (a stored full
    run) shows that verdict first; a ``--quick`` run of it is a reduced smoke test of the
    same code, never the claim's status.  Returns ``status`` (what the summary shows),
    ``basis`` ("stored full run" or "this run"), ``smoke_test`` (the quick run's own status,
    or None) and ``path`` of the stored run."""
    st = stored_full_run(claim) if mode == "quick" else None
    if st is None:
        return {"status": run_status, "basis": "this run", "smoke_test": None, "path": None}
    return {"status": st["verdict"], "basis": "stored full run", "smoke_test": run_status,
            "path": st["path"],
            "complete": st["complete"], "not_holding": st["not_holding"],
            "final_readings": st["final_readings"],
            "reading_rules": st.get("reading_rules", {}),
            "degenerate_why": st.get("degenerate_why", {})}
