"""The Cython API (issue 20): ``examples/cython_embedding`` builds against the
installed fastplay with ``fastplay.get_include()`` and its playouts run from C
equal ``fastplay.playouts`` for the same seed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import fastplay

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cython_embedding"


def test_get_include_holds_the_declarations() -> None:
    root = Path(fastplay.get_include())
    assert root.is_absolute()
    for name in ("capi", "_rules", "_board", "_playout", "_tactics", "_rng"):
        assert (root / "fastplay" / f"{name}.pxd").is_file(), name


def test_embedding_example_builds_and_matches_python(tmp_path: Path) -> None:
    work = tmp_path / "cython_embedding"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("build", "*.so", "*.c"))
    env = dict(os.environ)
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work,
                           env=env, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    run = subprocess.run([sys.executable, "run.py"], cwd=work, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "identical to fastplay.playouts" in run.stdout
    assert "playouts/s" in run.stdout
    misuse = subprocess.run([sys.executable, "-c", MISUSE], cwd=work, env=env,
                            capture_output=True, text=True, timeout=300)
    assert misuse.returncode == 0 and misuse.stdout.strip() == "refused 6", \
        misuse.stdout + misuse.stderr


# Bad arguments through the C interface: each must be refused with a Python
# error and leave the board sound (a tester got a segfault, a silent write off
# the board and corrupt strings from these before CoreBoard checked them).
MISUSE = """
import embed, fastplay as fp
from fastplay.montecarlo import playout_engine, seed_key
board, refused = fp.Board(9), 0
for move in [(2, 100000), (2, -100000), (3, 40), (0, 40), (2, 81)]:
    try:
        embed.play(board, [move])
    except ValueError:
        refused += 1
    board.check_integrity()
db = fp.PatternDatabase.builtin("mc_uniform")
try:
    embed.playouts(board, playout_engine(db), seed_key(1), 3, 7.5, -1)
except ValueError:
    refused += 1
assert board.move_number == 0
print("refused", refused)
"""


def test_the_readme_snippet_compiles(tmp_path: Path) -> None:
    """The README's Cython lines, inside a function that gives them ``board``,
    ``engine``, ``key``, ``n``, ``i`` and ``out``, pass the Cython compiler
    against ``fastplay.get_include()`` (a tester found Python attributes
    inside its ``nogil`` block, which Cython refuses)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    snippet = readme.split("```cython\n", 1)[1].split("```", 1)[0]
    lines = snippet.replace("\\\n", "").splitlines()
    imports = [line for line in lines if line.startswith("from ")]
    body = [line for line in lines if not line.startswith("from ")]
    source = "\n".join(imports + [
        "def go(CoreBoard board, PlayoutEngine engine, unsigned long long key, int n):",
        "    cdef PlayoutOutcome out",
        "    cdef int i"] + ["    " + line for line in body]) + "\n"
    (tmp_path / "snippet.pyx").write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", fastplay.get_include(),
                           "snippet.pyx"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, source + done.stdout + done.stderr


GUARDS = '''
from fastplay.capi cimport (BoardState, CoreBoard, PlayoutEngine, PState, PlayoutOutcome,
                            board_alloc, board_free, pstate_new, pstate_free, playout_one)

def alloc(int size):
    cdef BoardState b
    cdef int code = board_alloc(&b, size)
    if code == 0:
        board_free(&b)
    return code

def one(CoreBoard board, PlayoutEngine engine, bint prepare):
    cdef PState* tmpl = pstate_new(board.st.size)
    cdef PState* work = pstate_new(board.st.size)
    cdef PlayoutOutcome out
    try:
        if prepare:
            engine.prepare(tmpl, board, False)
        return playout_one(work, tmpl, engine.T, engine.G, board.mover(), 1, 0, 600, 7.5,
                           False, &out)
    finally:
        pstate_free(tmpl)
        pstate_free(work)
'''

GUARDS_SETUP = '''
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
import fastplay
setup(name="guards", ext_modules=cythonize(
    [Extension("guards", ["guards.pyx"], include_dirs=[np.get_include()])],
    include_path=[fastplay.get_include()], compiler_directives={"language_level": "3"}))
'''


def test_the_c_api_refuses_sizes_and_templates_it_cannot_play(tmp_path: Path) -> None:
    """``board_alloc`` took any size (``board_play``'s buffers hold
    ``MAX_PTS`` points: 26x26 overflowed them), and ``playout_one`` played a
    template no engine had prepared as an empty board, returning 0 (a tester)."""
    (tmp_path / "guards.pyx").write_text(GUARDS, encoding="utf-8")
    (tmp_path / "setup.py").write_text(GUARDS_SETUP, encoding="utf-8")
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    check = """
import guards, fastplay as fp
from fastplay.montecarlo import playout_engine
print([guards.alloc(s) for s in (1, 2, 19, 25, 26, 1000)])
board = fp.Board(9)
engine = playout_engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
print(guards.one(board, engine, False), guards.one(board, engine, True))
"""
    run = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split("\n")[:2] == ["[-1, 0, 0, 0, -1, -1]", "-1 0"]
