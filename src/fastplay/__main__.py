"""``python -m fastplay`` is the ``fastplay`` command line (and ``run`` its entry point)."""

from __future__ import annotations


def run() -> None:
    """Load and run the command line; Ctrl-C while Python is still loading it
    ends with status 130 like an interrupt later on, not with a traceback."""
    try:
        from fastplay.cli import main
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(main())


if __name__ == "__main__":
    run()
