"""Load a user's evaluator or prior named on the command line.

A *spec* is ``FILE.py:NAME`` (a Python file, loaded as a module of its own)
or ``MODULE:NAME`` (an importable module, as ``python -m`` names it), the
form of setuptools' entry points.  The named object must be callable:
``fastplay gtp --evaluator examples/value_function.py:influence_value``.

While the module is imported, the folder it would be found in when run as
a script is first on ``sys.path``: the current directory for
``MODULE:NAME`` (the ``fastplay`` command, unlike ``python -m``, does not
put it there), the file's folder for ``FILE.py:NAME``, so that a module
beside it can be imported.  ``sys.path`` is restored afterwards.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["load_callable"]


@contextlib.contextmanager
def _first_on_path(folder: str) -> Iterator[None]:
    """``folder`` at the front of ``sys.path`` while the block runs."""
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # the module took it off itself
            sys.path.remove(folder)


def _load_file(path: str) -> Any:
    if not os.path.isfile(path):
        raise ValueError(f"no such file: {path!r}")
    name = "fastplay_plugin_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load {path!r} as Python")
    module = importlib.util.module_from_spec(spec)
    try:
        with _first_on_path(os.path.dirname(os.path.abspath(path))):
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's file: say what it raised
        raise ValueError(f"loading {path!r} raised {type(exc).__name__}: {exc}") from exc
    return module


def load_callable(spec: str, arguments: int | None = None) -> Callable[..., Any]:
    """The callable ``spec`` names (``FILE.py:NAME`` or ``MODULE:NAME``).

    ``arguments``: when given, the callable must accept that many positional
    arguments (an evaluator takes one, the list of positions), as far as
    ``inspect.signature`` can tell; a callable without a signature passes.

    Raises ``ValueError`` saying what is wrong: no ``:NAME``, a missing file
    or module, a file that raises on import, no such name, an object that
    is not callable, or one that cannot take ``arguments`` arguments.
    """
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise ValueError(f"expected FILE.py:NAME or MODULE:NAME, not {spec!r}")
    if where.endswith(".py") or os.sep in where:
        module = _load_file(where)
    else:
        try:
            with _first_on_path(os.getcwd()):
                module = importlib.import_module(where)
        except ImportError as exc:
            raise ValueError(f"cannot import {where!r}: {exc}") from None
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's module: say what
            raise ValueError(f"importing {where!r} raised {type(exc).__name__}: {exc}") from exc
    try:
        found = getattr(module, name)
    except AttributeError:
        raise ValueError(f"{where!r} has no {name!r}") from None
    if not callable(found):
        raise ValueError(f"{spec!r} is not callable ({type(found).__name__})")
    if arguments is not None:
        _check_takes(found, spec, arguments)
    result: Callable[..., Any] = found
    return result


def _check_takes(found: Callable[..., Any], spec: str, arguments: int) -> None:
    """``ValueError`` when ``found``'s signature cannot bind ``arguments`` positional arguments."""
    try:
        signature = inspect.signature(found)
    except (TypeError, ValueError):
        return      # no signature to read (some built-ins): the first call tells
    try:
        signature.bind(*([None] * arguments))
    except TypeError:
        plural = "" if arguments == 1 else "s"
        name = getattr(found, "__name__", "")
        raise ValueError(f"{spec!r} must take {arguments} positional argument{plural}; "
                         f"its signature is {name}{signature}") from None
