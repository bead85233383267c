"""``python -m simulate``: see :mod:`simulate.cli`."""

from .cli import main

raise SystemExit(main())
