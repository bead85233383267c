"""``python -m verify``: see :mod:`verify.command.cli`."""

# local worker processes are spawned: they import this module as __mp_main__
if __name__ == "__main__":
    from .command.cli import main

    raise SystemExit(main())
