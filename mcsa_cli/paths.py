"""Output files: checked before any work by creating them (:func:`output_path`, removed again by
:func:`discard_unwritten_outputs` when the command never writes them) and written atomically
(:func:`atomic_write`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile

from .exits import OutputError, UsageError

# ----------------------------------------------------------------------------- output paths
_EXTENSIONS = (".png", ".pdf", ".svg")
#: outputs created by :func:`output_path` in this process: (path, is_dir, (st_dev, st_ino))
_CREATED: list[tuple[str, bool, tuple[int, int]]] = []


def _why(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _probe_directory(flag: str, text, d: str) -> None:
    """Create and remove a temporary file in ``d``: the only test that holds for root too
    (``os.access`` says yes to root on read-only or virtual file systems)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".write-test-")
    except OSError as e:
        raise UsageError(
            f"{flag}: cannot write into {d!r} ({_why(e)}), needed for {str(text)!r}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def output_path(flag: str, text, extensions: tuple[str, ...] | None = _EXTENSIONS, *,
                kind: str = "file") -> str:
    """Validate an output path before any work by creating it; return its absolute path.

    ``kind="file"``: the name must end in one of ``extensions`` (``None``: any name); a
    new file is created empty (with the user's umask), an existing regular file is left
    as it is and its directory is checked by creating and removing a temporary file (what
    :func:`atomic_write` will need).  ``kind="dir"``: a directory, created when missing
    (its parent must exist), else checked by writing a temporary file into it.
    ``kind="auto"``: a file when the name ends in one of ``extensions`` (e.g. ``.html``),
    else a directory -- ``os.path.isdir`` on the result tells which.

    Whatever this creates is removed again when :func:`run` finishes if the command never
    wrote it (a file still empty with the same inode, a directory still empty), so a run
    that fails or is interrupted leaves nothing behind.  Bad paths raise
    :class:`UsageError` (one line naming ``flag``): empty, wrong extension, a directory
    where a file is needed (or the reverse), a missing parent directory, a parent that is
    a file, no permission, a read-only or virtual file system (``/proc``, ``/sys``), as
    root too.
    """
    if kind not in ("file", "dir", "auto"):
        raise ValueError(f"output_path: kind must be 'file', 'dir' or 'auto', got {kind!r}")
    exts = tuple(e.lower() for e in extensions) if extensions else ()
    what = "a directory" if kind == "dir" else (
        f"a file name ending in {', '.join(exts)}" if exts else "a file name")
    if text is None or not str(text).strip():
        raise UsageError(f"{flag}: empty path; give {what}")
    p = os.path.abspath(os.path.expanduser(str(text)))
    is_file = kind == "file" or (kind == "auto" and exts and p.lower().endswith(exts))
    if kind == "file" and exts and not p.lower().endswith(exts):
        raise UsageError(f"{flag}: the path must end in {', '.join(exts)}, got {str(text)!r}")
    parent = os.path.dirname(p)
    if not os.path.isdir(parent):
        if os.path.exists(parent) or any(os.path.isfile(a) for a in _ancestors(parent)):
            raise UsageError(
                f"{flag}: {str(text)!r}: a part of the path is a file, not a directory")
        raise UsageError(f"{flag}: directory {parent!r} does not exist")
    if is_file:
        if os.path.isdir(p):
            raise UsageError(f"{flag}: {str(text)!r} is a directory; give {what}")
        if os.path.lexists(p):
            if not os.path.isfile(p):
                raise UsageError(f"{flag}: {str(text)!r} exists and is not a regular file")
            try:
                with open(p, "ab"):  # writable? (no truncation, content untouched)
                    pass
            except OSError as e:
                raise UsageError(f"{flag}: cannot write to {str(text)!r} ({_why(e)})") from None
            _probe_directory(flag, text, parent)
            return p
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as e:
            raise UsageError(f"{flag}: cannot create {str(text)!r} ({_why(e)})") from None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        _CREATED.append((p, False, (st.st_dev, st.st_ino)))
        try:  # atomic_write puts a temporary file beside it
            _probe_directory(flag, text, parent)
        except UsageError:
            discard_unwritten_outputs()
            raise
        return p
    if os.path.lexists(p):
        if not os.path.isdir(p):
            raise UsageError(f"{flag}: {str(text)!r} exists and is not a directory")
        _probe_directory(flag, text, p)
        return p
    try:
        os.mkdir(p)
    except OSError as e:
        raise UsageError(f"{flag}: cannot create directory {str(text)!r} ({_why(e)})") from None
    st = os.stat(p)
    _CREATED.append((p, True, (st.st_dev, st.st_ino)))
    try:
        _probe_directory(flag, text, p)
    except UsageError:
        discard_unwritten_outputs()
        raise
    return p


def _ancestors(p: str):
    while True:
        yield p
        up = os.path.dirname(p)
        if up == p:
            return
        p = up


def discard_unwritten_outputs() -> list[str]:
    """Remove what :func:`output_path` created and the command never wrote (a file still
    empty with the same inode, a directory still empty); return the removed paths.
    :func:`run` calls it when the command finishes, whatever its outcome."""
    removed = []
    while _CREATED:
        p, is_dir, ident = _CREATED.pop()
        try:
            st = os.lstat(p)
            if (st.st_dev, st.st_ino) != ident:
                continue  # replaced by the real output (atomic_write)
            if is_dir:
                os.rmdir(p)  # fails unless empty
            elif st.st_size == 0:
                os.unlink(p)
            else:
                continue
            removed.append(p)
        except OSError:
            pass
    return removed


def _umask() -> int:
    """The process umask, read without changing it where /proc allows."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def atomic_write(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically: a temporary file in the same
    directory, flushed and fsynced, given the mode a new file would have (0666 & ~umask;
    an existing file's mode is kept), then :func:`os.replace`; removed on any failure."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777 if os.path.isfile(path) else 0o666 & ~_umask()
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            with contextlib.suppress(OSError):  # file systems without modes
                os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, OutputError) and e.errno in _WRITE_ERRNOS:
            raise OutputError(path, e) from e
        raise


#: errors of a write that cannot succeed: no space, a quota, a file too large, an I/O error
_WRITE_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG",
                                                      "EIO") if hasattr(errno, n))
