"""Shared fixtures: where the read-only data in ``../shared`` lives.

The oracle (GNU Go 3.8's values), the regression games and the bug-report
cases sit beside the checkout, in ``<repo>/../shared``; CI lays them out the
same way.  ``FASTPLAY_SHARED`` overrides the location.  If the folder is
missing the tests fail loudly instead of skipping: it is required input.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
from pathlib import Path
from types import ModuleType

import pytest

# A run started in the background of a script (``cmd &``) or under nohup
# inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
# handler: the tests that send a Ctrl-C (to this process, or to the engines
# they start) would wait for it to their deadlines, one of them for minutes.
# A handler turns it back on here, and in the children too: exec resets a
# handled signal (not an ignored one) to its default, and Python installs its
# own handler again.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FASTPLAY_SHARED", REPO.parent / "shared")).resolve()


def shared_path(*parts: str) -> Path:
    """Path inside ``../shared``; fails the test (not skips) when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"required test data missing: {path} (set FASTPLAY_SHARED)")
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_path()


def subprocess_env() -> dict[str, str]:
    """Environment for ``python -m fastplay`` children: they import the same
    fastplay as this test process (installed wheel or editable checkout)."""
    import fastplay

    env = dict(os.environ)
    site = str(Path(fastplay.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [site, env.get("PYTHONPATH")]))
    return env


def benchmark_script(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` loaded as the module ``NAME`` (registered in
    ``sys.modules``: dataclasses look their module up)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
