"""Exit statuses shared by the three command lines and the two errors that choose one.

:data:`EXIT_HELP` is the text for ``--help``: 0 holds / success, 1 a claim is violated, 2 bad input
(:class:`UsageError`), 3 inconclusive, 4 depends on reading, 5 a run diverged, 70 internal error,
74 an output cannot be written (:class:`OutputError`), 130 interrupted.
"""

from __future__ import annotations

OK, VIOLATED, BAD_INPUT, INCONCLUSIVE, DEPENDS_ON_READING, DIVERGED = 0, 1, 2, 3, 4, 5
INTERNAL_ERROR, INTERRUPTED = 70, 130
#: an output that cannot be written (a full disk, a quota, a file too large): sysexits.h EX_IOERR
IO_ERROR = 74


class OutputError(OSError):
    """An output that cannot be written: :func:`run` says so in one line naming it, exit 74."""

    def __init__(self, name: str, err: OSError):
        super().__init__(err.errno, err.strerror or str(err))
        self.name = name

    def __str__(self) -> str:
        return f"cannot write {self.name}: {self.strerror}"

EXIT_HELP = (
    "exit status: 0 holds / success, 1 a claim is violated, 2 bad input (one line on stderr), 3 "
    "inconclusive, 4 depends on reading, 5 a run diverged, 70 internal error (rerun with --debug "
    "for the traceback), 130 interrupted.")


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""
