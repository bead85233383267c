"""The one content-addressed store of the toolkit's caches, and the digests that key them.

Every cache (the sweep's cells, the figures' cells, the claims' results, the audit's step
outcomes) stores an entry under a key made of what it was computed from -- the inputs and
a digest of the code it depends on (:func:`files_digest`) -- so that an entry computed by
other code is never read: a changed digest is a different key.

An entry is the file ``DIR/<key>.json``: a first line holding the SHA-256 of the rest, then
strict JSON ``{"key": key, "format": format, "result": payload}`` (a non-finite float is
refused: :func:`mcsa_cli.dumps` with ``nonfinite="refuse"``).  It is written
atomically (:func:`mcsa_cli.atomic_write`), so a reader sees a whole entry or none; an
entry whose checksum, key or format does not match reads as missing (it is recomputed and
overwritten), never as data.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

from . import atomic_write, dumps, loads_strict


def digest(data: str | bytes) -> str:
    """The SHA-256 of ``data`` (text as UTF-8), in hex.

    Parameters
    ----------
    data : str or bytes

    Returns
    -------
    str
        64 hex digits.
    """
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def files_digest(paths: Iterable[str | os.PathLike], extra: str = "") -> str:
    """The digest of the code in ``paths``: every file's name and bytes, in path order, then
    ``extra`` (e.g. the versions of the libraries the result depends on).

    Parameters
    ----------
    paths : iterable of path-like
        The files (read now).
    extra : str
        Text digested after the files.

    Returns
    -------
    str
        64 hex digits; a changed byte of any file, or of ``extra``, changes it.
    """
    h = hashlib.sha256()
    for p in sorted(os.fspath(p) for p in paths):
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    h.update(extra.encode())
    return h.hexdigest()


class Store:
    """A directory of checksummed JSON entries, each under its key (see the module docstring).

    Parameters
    ----------
    directory : path-like
        Where the entries live (created by the first :meth:`put`).
    format : int or str
        The payload layout; an entry of another format reads as missing.
    """

    def __init__(self, directory: str | os.PathLike, format: int | str = 1):
        self.directory = os.fspath(directory)
        self.format = format

    def path(self, key: str) -> str:
        """The file of ``key``: ``DIR/<key>.json`` (``key``: letters, digits, -, _ and .)."""
        return os.path.join(self.directory, key + ".json")

    def get(self, key: str):
        """The payload stored under ``key``.

        Parameters
        ----------
        key : str

        Returns
        -------
        object or None
            The payload; None when the entry is absent, partial or corrupt (checksum, key or
            format mismatch).
        """
        try:
            with open(self.path(key), "rb") as f:
                blob = f.read()
            head, _, body = blob.partition(b"\n")
            if digest(body).encode() != head.strip():
                return None
            d = loads_strict(body)
            if d.get("key") != key or d.get("format") != self.format:
                return None
            return d["result"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, payload) -> str:
        """Store ``payload`` under ``key``, atomically (temporary file, fsync, os.replace).

        Parameters
        ----------
        key : str
        payload : object
            Strict-JSON-able data (:func:`mcsa_cli.jsonable`); a NaN or infinity in it
            is refused (:class:`ValueError`): tag them first (``nonfinite="tag"``).

        Returns
        -------
        str
            The entry's file.
        """
        entry = {"key": key, "format": self.format, "result": payload}
        body = dumps(entry, nonfinite="refuse").encode()
        os.makedirs(self.directory, exist_ok=True)
        path = self.path(key)
        atomic_write(path, digest(body).encode() + b"\n" + body)
        return path
