"""Plumbing shared by the command lines ``python -m bounds`` and ``python -m verify``.

Bad input raises :class:`UsageError` (argparse errors included), which :func:`run`
prints as one line on stderr with exit status 2, never a traceback.

``python -m simulate`` keeps its own copy of these few lines: importing this
module imports :mod:`bounds` and with it sympy (about 0.9 s), which the
simulators' command line does not otherwise need.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + error
        raise UsageError(message)


def _either(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def run(prog: str, usage: str, argv, commands: Mapping[str, Callable[[list[str]], int]],
        claim: Callable[[str, list[str]], int], errors: tuple[type[BaseException], ...] = ()) -> int:
    """Dispatch ``argv[0]`` to ``commands``; any other word is a claim id passed to ``claim``.

    Returns the exit status: the command's own, 0 for ``--help``, 2 for
    :class:`UsageError` and for ``errors`` (the callers' bad-input exceptions).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            raise UsageError(f"a command is required ({_either([*commands, 'a claim id'])}); see `{prog} --help`")
        if argv[0] in ("-h", "--help"):
            print(usage)
            return 0
        cmd, rest = argv[0], argv[1:]
        if cmd in commands:
            return commands[cmd](rest)
        if cmd.startswith("-"):
            raise UsageError(f"expected a command or claim id before {cmd!r}; see `{prog} --help`")
        return claim(cmd, rest)
    except (UsageError, *errors) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
