"""``python -m bounds``: see :mod:`bounds.cli`."""

from .cli import main

raise SystemExit(main())
