"""fastplay: Monte Carlo Go playouts at C speed, driven by GNU Go 3.8's 3x3 pattern databases.

The public API, re-exported here and loaded lazily so that ``import fastplay``
stays cheap for command-line use:

* :class:`Board` -- a Go board with incremental liberty tracking (Cython core),
  SGF in/out, undo, area scoring; :class:`IllegalMoveError` (a rule of Go),
  :class:`InvalidVertexError` (a vertex that names no point), :class:`SGFError`.
* :class:`Color` -- ``Color.BLACK`` / ``Color.WHITE``, the one colour type
  (an ``IntEnum`` of the core's codes; ``Color.parse("b")``).
* :mod:`fastplay.diagram` -- reads the text ``str(board)`` prints back into a board.
* :class:`PatternDatabase` -- GNU Go's Monte Carlo ``.db`` language, compiled to
  a ``uint32[1108, 256]`` value table; :class:`PatternSyntaxError`.
* :func:`playout`, :func:`playouts` -- pattern-driven Monte Carlo playouts,
  GIL-free and reproducible from one seed.
* :mod:`fastplay.search` -- UCT/PUCT tree search in Python on top, with pluggable priors and evaluators.
* :mod:`fastplay.svg` -- SVG pictures of boards and search results (a notebook shows a
  :class:`Board` as one).
* :func:`get_include` -- the folder of the compiled core's ``.pxd`` declarations, for
  Cython extensions that ``cimport fastplay.capi`` (``examples/cython_embedding``).

Colours are :class:`Color` members (:data:`BLACK`, :data:`WHITE`); every function
that takes one also takes ``"B"``/``"W"``/``"black"``/``"white"``, and a member
equals and hashes like its letter, as the string colours of earlier releases did.
"""

from __future__ import annotations

import importlib
from typing import Any

from fastplay.color import BLACK, WHITE, Color
from fastplay.errors import InvalidVertexError

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "Board": "fastplay.board",
    "IllegalMoveError": "fastplay.board",
    "parse_vertex": "fastplay.board",
    "format_vertex": "fastplay.board",
    "SGFError": "fastplay.sgf",
    "PatternDatabase": "fastplay.patterns",
    "PatternSyntaxError": "fastplay.patterns",
    "PatternWarning": "fastplay.patterns",
    "playout": "fastplay.montecarlo",
    "playouts": "fastplay.montecarlo",
    "PlayoutResult": "fastplay.montecarlo",
    "PlayoutStats": "fastplay.montecarlo",
}

__all__ = ["BLACK", "WHITE", "Color", "InvalidVertexError", "__version__", "get_include", *_LAZY]


# submodules reachable as attributes without an import of their own (the
# README names fastplay.montecarlo.playout_engine; a tester found it worked
# only after another name had imported the module)
_SUBMODULES = frozenset({"svg", "diagram", "montecarlo", "search", "patterns", "sgf"})


def get_include() -> str:
    """The folder to put on Cython's include path to ``cimport`` fastplay's core.

    As :func:`numpy.get_include` is for numpy's C headers: the folder that
    holds the installed ``fastplay`` package, whose ``capi.pxd`` (and the
    ``_rules``, ``_board``, ``_playout``, ``_tactics`` declarations behind it)
    a Cython extension cimports::

        cythonize(ext, include_path=[fastplay.get_include()])
        # with include_dirs=[numpy.get_include()] on the Extension

    Returns an absolute path (``str``).  Cython also finds the declarations
    on ``sys.path`` without it; the extension links against nothing, it
    imports the core's functions at run time.
    """
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"fastplay.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fastplay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
