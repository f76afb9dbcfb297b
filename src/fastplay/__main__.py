"""``python -m fastplay`` is the ``fastplay`` command line (and ``run`` its entry point)."""

from __future__ import annotations


def preload() -> None:
    """Load numpy and the compiled core (numpy.random with it) with Ctrl-C
    blocked: the threads numpy starts (OpenBLAS's) keep the block and leave
    the signal to the main thread, and a Ctrl-C that arrives while a Cython
    module initialises, which would swallow it, waits until the module is
    loaded; no compiled module loads later (:mod:`fastplay._threads`)."""
    from fastplay._threads import signals_blocked

    with signals_blocked():
        import numpy  # noqa: F401

        import fastplay._core  # noqa: F401


def run() -> None:
    """Load and run the command line; Ctrl-C while Python is still loading it
    ends with status 130 like an interrupt later on, not with a traceback."""
    try:
        preload()
        from fastplay.cli import main
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(main())


if __name__ == "__main__":
    run()
