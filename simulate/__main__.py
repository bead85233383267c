"""``python -m simulate``: see :mod:`simulate.cli`.

BLAS is pinned to one thread per process (``--threads K`` to change it) before NumPy is
imported: with the library default, two BLAS threads per process on a shared 2-core
machine made one run in three 2.6x slower (measured for issue 9).  Worker processes of
``sweep`` inherit the setting.  An explicit OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS in the environment is respected when ``--threads`` is not given.
"""

import os
import sys


def _threads(argv):
    """K from ``--threads K`` / ``--threads=K`` (None if absent or not a positive integer;
    the command's parser then reports bad values)."""
    for i, arg in enumerate(argv):
        val = arg.split("=", 1)[1] if arg.startswith("--threads=") else (
            argv[i + 1] if arg == "--threads" and i + 1 < len(argv) else None)
        if val is not None:
            return val if val.isdigit() and int(val) >= 1 else None
    return None


_k = _threads(sys.argv[1:])
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    if _k is not None:
        os.environ[_var] = _k
    else:
        os.environ.setdefault(_var, "1")

from .cli import main  # noqa: E402  (after the environment is set)

raise SystemExit(main())
