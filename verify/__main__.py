"""``python -m verify``: see :mod:`verify.cli`."""

# local worker processes are spawned: they import this module as __mp_main__
if __name__ == "__main__":
    from .cli import main

    raise SystemExit(main())
