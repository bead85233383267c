"""Plumbing shared by the command lines ``python -m bounds``, ``python -m verify`` and
``python -m simulate``.

Importing this module imports only the standard library (no sympy, no numpy, no
tqdm until a progress bar is actually shown, no rich until a table is laid out), so any
command line can use it.

* :class:`UsageError` -- bad input; :func:`run` prints it as one line on stderr, exit 2.
* :class:`Parser` -- :class:`argparse.ArgumentParser` whose errors raise :class:`UsageError`
  (one line, the flag named once: ``--dim: must be an integer >= 1, got 0``);
  :class:`ParagraphHelpFormatter` wraps descriptions to the terminal but keeps their line breaks.
* :func:`run` -- the dispatcher: ``argv[0]`` names a command (or a claim id); unexpected
  exceptions become one line ``internal error: ...`` with exit 70 (``--debug`` anywhere in
  argv shows the traceback instead); Ctrl-C exits 130.
* :func:`dumps` -- strict RFC 8259 JSON (NaN -> null, +/-inf -> "inf"/"-inf"; numpy and
  mpmath numbers converted; values outside the double range as decimal strings).
* :func:`jsonable` -- the one strict-JSON encoder behind :func:`dumps`: a NaN or infinity
  is written as null/"inf" (``nonfinite="null"``), tagged ``{"__float__": "nan"}`` for a
  cache that must give it back (``"tag"``, read back by :func:`untag`), or refused
  (``"refuse"``); :func:`loads_strict` parses refusing NaN.
* :mod:`mcsa_cli.store` -- the one content-addressed
  store of every cache (:class:`~mcsa_cli.store.Store`, :func:`~mcsa_cli.store.files_digest`);
  :mod:`mcsa_cli.pool` -- the one local process pool (:func:`~mcsa_cli.pool.local_pool`:
  spawned workers that leave Ctrl-C to the parent, stopped at once on an interruption).
* :func:`number_text` -- a number with its special values spelled as the caller says;
  :func:`md_cell` -- one Markdown table cell; :func:`list_arguments` -- a ``list`` command's flags.
* :func:`table` -- a plain-text table laid out by rich that fits the terminal (cells wrap
  at spaces, no word is split; columns that do not fit are left out and named; a cell cut
  short ends in a visible marker); :func:`add_wide` adds ``--wide`` (everything, unwrapped);
  :func:`wrap` fits prose lines; :func:`progress` -- a tqdm bar on stderr that is silent
  when stderr is not a terminal or under ``--json``.
* :func:`short` -- a number in at most 6 significant digits (tables); :func:`show_param`
  -- a parameter as typed, abbreviated when huge.
* :func:`output_path` -- validate an output file or directory before any work by creating
  it (removed again by :func:`run` if the command never writes it); :func:`atomic_write`
  -- temp file, fsync, :func:`os.replace`, with the user's umask.
* :func:`ascii_fallback` (called by :func:`run`) -- on a terminal that cannot encode
  ``≤ χ² ∞ …``, such symbols print as ASCII spellings instead of crashing.
* :func:`number`, :func:`numbers` -- parse a flag's value (or a comma list) with its
  domain; ``exact=True`` keeps the decimal digits (a :class:`decimal.Decimal`) so that
  mpmath sees the value at full precision.

Exit statuses shared by the three command lines (:data:`EXIT_HELP` is the text for ``--help``):
0 holds / success, 1 a claim is violated, 2 bad input, 3 inconclusive, 4 depends on reading,
5 a run diverged, 70 internal error, 130 interrupted.
"""

from __future__ import annotations

from .dispatch import package_version, run
from .exits import (
    BAD_INPUT,
    DEPENDS_ON_READING,
    DIVERGED,
    EXIT_HELP,
    INCONCLUSIVE,
    INTERNAL_ERROR,
    INTERRUPTED,
    IO_ERROR,
    OK,
    VIOLATED,
    OutputError,
    UsageError,
)
from .jsontext import DOUBLE_MAX, NONFINITE, dumps, jsonable, loads_strict, untag
from .parsing import ParagraphHelpFormatter, Parser, domain_text, list_arguments, number, numbers
from .paths import atomic_write, discard_unwritten_outputs, output_path
from .tables import cell, md_cell, number_text, table
from .terminal import (
    ASCII,
    DEFAULT_WIDTH,
    add_wide,
    ascii_fallback,
    can_encode,
    marker,
    progress,
    short,
    show_exact,
    show_param,
    terminal_width,
    text,
    to_ascii,
    wrap,
)

__all__ = [
    "BAD_INPUT",
    "DEPENDS_ON_READING",
    "DIVERGED",
    "EXIT_HELP",
    "INCONCLUSIVE",
    "INTERNAL_ERROR",
    "INTERRUPTED",
    "IO_ERROR",
    "OK",
    "OutputError",
    "UsageError",
    "VIOLATED",
    "DOUBLE_MAX",
    "NONFINITE",
    "dumps",
    "jsonable",
    "loads_strict",
    "untag",
    "ASCII",
    "DEFAULT_WIDTH",
    "add_wide",
    "ascii_fallback",
    "can_encode",
    "marker",
    "progress",
    "short",
    "show_exact",
    "show_param",
    "terminal_width",
    "text",
    "to_ascii",
    "wrap",
    "ParagraphHelpFormatter",
    "Parser",
    "domain_text",
    "list_arguments",
    "number",
    "numbers",
    "atomic_write",
    "discard_unwritten_outputs",
    "output_path",
    "cell",
    "md_cell",
    "number_text",
    "table",
    "package_version",
    "run",
]
