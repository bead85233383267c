"""The dispatcher of the command lines (:func:`run`): ``argv[0]`` names a command (or a claim
id); bad input is one line on stderr, exit 2; an output that cannot be written, exit 74;
unexpected exceptions one line ``internal error: ...``, exit 70 (``--debug`` shows the
traceback); Ctrl-C exits 130.
"""

from __future__ import annotations

import errno
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping

from .exits import BAD_INPUT, INTERNAL_ERROR, INTERRUPTED, IO_ERROR, OK, OutputError, UsageError
from .paths import _WRITE_ERRNOS, discard_unwritten_outputs
from .terminal import ascii_fallback, wrap


# ----------------------------------------------------------------------------- dispatch
def _either(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 300 else text[:297] + "..."


def run(prog: str, usage: str, argv, commands: Mapping[str, Callable[[list[str]], int]],
        claim: Callable[[str, list[str]], int] | None = None,
        errors: Iterable[type[BaseException]] = ()) -> int:
    """Dispatch ``argv[0]`` to ``commands``; any other word is a claim id passed to ``claim``
    (or, without ``claim``, an unknown command).

    Returns the exit status: the command's own; 0 for ``--help`` and ``--version`` (the
    package version, :func:`package_version`); 2 for :class:`UsageError`
    and for ``errors`` (the callers' bad-input exceptions), one line on stderr; 70 for any
    other exception (one line; ``--debug`` anywhere in argv re-raises it); 130 on Ctrl-C.
    Numeric RuntimeWarnings never reach the user raw: they are collected and, if any
    escaped the command's own handling, summarised in one line on stderr.  Symbols the
    terminal cannot encode print in ASCII (:func:`ascii_fallback`); outputs that
    :func:`output_path` created and the command never wrote are removed at the end
    (:func:`discard_unwritten_outputs`).
    """
    ascii_fallback()
    real = sys.stdout
    guarded = sys.stdout = _GuardedStream(real, "standard output") if real is not None else real
    try:
        status = _run(prog, usage, argv, commands, claim, errors)
        if status != IO_ERROR:
            try:  # written before the status says so (output at exit, after --help too, fails here)
                # None only when Python has no stdout
                sys.stdout.flush()  # type: ignore[union-attr]
                # a write that argparse's --help swallowed
                if guarded is not None and guarded.failed is not None:
                    raise guarded.failed
            except OSError as e:
                print(f"{prog}: error: "
                      f"{e if isinstance(e, OutputError) else OutputError('standard output', e)}",
                      file=sys.stderr)
                _silence_stdout()
                status = IO_ERROR
        return status
    finally:
        if sys.stdout is guarded:  # (a command that redirected stdout itself keeps its own)
            sys.stdout = real
        discard_unwritten_outputs()


class _GuardedStream:
    """A text stream whose failed writes raise :class:`OutputError` naming it (standard output on a
    full
    disk: exit 74 with one line, not an internal error).  Everything else is the stream's own."""

    def __init__(self, stream, name: str):
        self._stream, self._name = stream, name
        # the first failed write, even if its caller swallowed it
        self.failed: OutputError | None = None

    def _fail(self, e: OSError) -> OutputError:
        err = e if isinstance(e, OutputError) else OutputError(self._name, e)
        if self.failed is None:
            self.failed = err
        return err

    def write(self, s):
        try:
            return self._stream.write(s)
        except OSError as e:
            err = self._fail(e)
            raise err from (None if err is e else e)

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as e:
            err = self._fail(e)
            raise err from (None if err is e else e)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def package_version() -> str:
    """This distribution's version (``verify.__version__``), from its installed metadata."""
    from importlib import metadata

    try:
        return metadata.version("mcsa-verify")
    except metadata.PackageNotFoundError:  # a bare source tree
        return "0+unknown"


def _run(prog, usage, argv, commands, claim, errors) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    caught: list = []
    try:
        with warnings.catch_warnings(record=not debug) as caught_:
            if not debug:
                warnings.simplefilter("always", RuntimeWarning)
                caught = caught_  # type: ignore[assignment]  # a list: record=True here
            if not argv:
                what = [*commands, "a claim id"] if claim is not None else list(commands)
                raise UsageError(f"a command is required ({_either(what)}); see `{prog} --help`")
            if argv[0] in ("-h", "--help"):
                print(wrap(usage))
                return OK
            if argv[0] == "--version":
                print(f"{prog} {package_version()}")
                return OK
            cmd, rest = argv[0], argv[1:]
            if cmd in commands:
                status = commands[cmd](rest)
            elif cmd.startswith("-"):
                raise UsageError(
                    f"expected a command{' or claim id' if claim else ''} before {cmd!r}; see "
                    f"`{prog} --help`")
            elif claim is None:
                raise UsageError(f"unknown command {cmd!r}; choose {_either(commands)}")
            else:
                status = claim(cmd, rest)
        _report_warnings(prog, caught)
        return OK if status is None else status
    except (UsageError, *errors) as e:
        print(f"{prog}: error: {_first_line(e)}", file=sys.stderr)
        return BAD_INPUT
    except SystemExit as e:  # argparse --help (0); a command's own exit
        code = e.code
        if code is None:
            return OK
        if isinstance(code, int):
            return code
        print(f"{prog}: error: {code}", file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:
        _silence_stdout()
        return OK
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as e:  # noqa: BLE001 -- the top-level catch of issue 8
        if debug:
            raise
        unwritable = _unwritable_output(e)
        if unwritable is not None:
            print(f"{prog}: error: {unwritable}", file=sys.stderr)
            # the unwritten rest is dropped, not retried by the interpreter's final flush
            _silence_stdout()
            return IO_ERROR
        print(f"{prog}: internal error: {type(e).__name__}: {_first_line(e)}; "
              "rerun with --debug for the traceback", file=sys.stderr)
        return INTERNAL_ERROR



def _unwritable_output(e: BaseException) -> str | None:
    """The one line for an output that could not be written (an :class:`OutputError`, or a failed
    write of a
    named file: no space, quota, too large), or None for any other error."""
    if isinstance(e, OutputError):
        return str(e)
    if isinstance(e, OSError) and e.errno in _WRITE_ERRNOS and e.errno != errno.EIO and e.filename:
        return str(OutputError(str(e.filename), e))
    return None


def _report_warnings(prog, caught) -> None:
    msgs = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if not msgs:
        return
    kinds = sorted({" ".join(str(w.message).split())[:60] for w in msgs})
    print(f"{prog}: note: {len(msgs)} numeric warning(s) during the computation "
          f"({'; '.join(kinds[:2])}{'; ...' if len(kinds) > 2 else ''}); rerun with --debug to see "
          f"where", file=sys.stderr)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at devnull so the interpreter's final flush is quiet."""

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
