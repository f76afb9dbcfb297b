#!/usr/bin/env python3
"""GNU Go 3.8's own loader against fastplay's compiler, cell for cell (issue 19).

``gnugo --mc-load-patterns FILE`` has no command that prints the values it
compiled, so this script links a ten-line harness (written here, below)
against a built GNU Go 3.8 source tree and calls GNU Go's public
``mc_load_patterns_from_db(FILE, values)`` (``engine/montecarlo.c``), the
function behind ``--mc-load-patterns``.  Its ``uint32[1108, 256]`` table is
compared with ``PatternDatabase.from_file(FILE, strict=False).table`` (GNU
Go's mode); row 0 (no geometry) is left out, as GNU Go never fills it.

Checks, each optional:

* ``--builtins``: GNU Go's three databases (``../shared/oracle/tables``):
  the harness's tables must equal the oracle's ``.npz`` tables (that the
  harness reads GNU Go right) and fastplay's;
* ``--random N``: N random layouts written by :func:`fastplay.dbwrite.write_db`
  (the writer of ``fastplay tune``), as in ``tests/test_tune.py``;
* ``DB ...``: any ``.db`` files, e.g. the tuner's output.

GNU Go's source comes from Debian (the ``gnugo`` source package; needs a
``deb-src`` line in the apt sources); 3.8 needs ``-fcommon`` with gcc >= 10::

    apt-get source gnugo            # gnugo_3.8.orig.tar.gz
    tar xzf gnugo_3.8.orig.tar.gz && cd gnugo-3.8
    CFLAGS="-O2 -fcommon" ./configure && make
    python benchmarks/gnugo_tables.py --gnugo-src gnugo-3.8 --builtins --random 20 sb9.db

Exit status 1 when a table differs (the differing cells are listed).
"""

from __future__ import annotations

import argparse
import subprocess
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fastplay.dbwrite import MAX_VALUE, DbLayout, write_db
from fastplay.patterns import PatternDatabase, PatternWarning

# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
ORACLE = SHARED / "oracle" / "tables"
BUILTINS = ("mc_uniform", "mc_mogo_classic", "mc_montegnu_classic")

# Calls GNU Go's loader and writes the table, uint32 in native order, to stdout.
HARNESS = """\
#include <stdio.h>
#include <stdlib.h>
int mc_get_size_of_pattern_values_table(void);
int mc_load_patterns_from_db(const char *filename, unsigned int *values);
int main(int argc, char **argv) {
  int n = mc_get_size_of_pattern_values_table();
  unsigned int *v = calloc(n, sizeof *v);
  if (argc != 2 || !v || !mc_load_patterns_from_db(argv[1], v)) return 1;
  return fwrite(v, sizeof *v, n, stdout) == (size_t)n ? 0 : 1;
}
"""
LIBRARIES = ("engine/libengine.a", "patterns/libpatterns.a", "engine/libboard.a",
             "sgf/libsgf.a", "utils/libutils.a")


def build_harness(src: Path, out: Path) -> Path:
    """Compile the harness against the built GNU Go tree ``src`` into ``out``."""
    if not src.is_dir():
        sys.exit(f"gnugo_tables: {src} does not exist: give a GNU Go 3.8 source tree after "
                 "./configure && make (see this script's docstring)")
    missing = [lib for lib in LIBRARIES if not (src / lib).is_file()]
    if missing:
        sys.exit(f"gnugo_tables: {src} is not a built GNU Go 3.8 tree (missing "
                 f"{', '.join(missing)}); see this script's docstring")
    c_file = out / "harness.c"
    c_file.write_text(HARNESS)
    exe = out / "harness"
    subprocess.run(["gcc", "-O1", str(c_file), *(str(src / lib) for lib in LIBRARIES),
                    "-lncurses", "-lm", "-o", str(exe)], check=True)
    return exe


def gnugo_table(exe: Path, db: Path) -> npt.NDArray[np.uint32]:
    """The table GNU Go's ``mc_load_patterns_from_db`` compiles ``db`` to."""
    out = subprocess.run([str(exe), str(db)], capture_output=True, check=True).stdout
    return np.frombuffer(out, dtype=np.uint32).reshape(1108, 256)


def fastplay_table(db: Path) -> npt.NDArray[np.uint32]:
    """fastplay's table of ``db`` in GNU Go's mode (its quirks, no strict errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        return PatternDatabase.from_file(db, strict=False).table


def differences(a: npt.NDArray[np.uint32], b: npt.NDArray[np.uint32]) -> list[str]:
    """The cells (rows 1..1107) where ``a`` and ``b`` differ, at most ten named."""
    rows, cols = np.nonzero(a[1:] != b[1:])
    named = [f"[{r + 1}, {c}]: {a[r + 1, c]} vs {b[r + 1, c]}"
             for r, c in zip(rows[:10].tolist(), cols[:10].tolist())]
    return named + ([f"... {len(rows) - 10} more"] if len(rows) > 10 else [])


def random_layout(rng: np.random.Generator) -> DbLayout:
    """A random table in the writer's layout, as ``tests/test_tune.py`` draws them."""
    values = rng.integers(0, MAX_VALUE + 1, (1108, 256)).astype(np.uint32)
    written = rng.random((1108, 256)) < rng.uniform(0.005, 0.05)
    written[0] = False
    classes = rng.random(1108) < 0.05
    classes[0] = False
    defaults = rng.integers(0, 5000, 1108).astype(np.uint32)
    return DbLayout(values, written, defaults, int(rng.integers(0, 100)), classes=classes)


def check(name: str, gnu: npt.NDArray[np.uint32], ours: npt.NDArray[np.uint32],
          failures: list[str]) -> None:
    diff = differences(gnu, ours)
    print(f"{name}: {'equal' if not diff else f'{len(diff)} cells differ'}", flush=True)
    failures += [f"{name} {d}" for d in diff]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gnugo-src", type=Path, required=True,
                    help="a GNU Go 3.8 source tree after ./configure && make")
    ap.add_argument("--builtins", action="store_true",
                    help="GNU Go's three databases, against the oracle's tables too")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="N random tables written by fastplay.dbwrite")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("db", nargs="*", type=Path, help=".db files to compare")
    args = ap.parse_args(argv)
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_harness(args.gnugo_src.resolve(), Path(tmp))
        if args.builtins:
            for name in BUILTINS:
                gnu = gnugo_table(exe, ORACLE / f"{name}.db")
                check(f"{name} (harness vs oracle)", gnu,
                      np.load(ORACLE / f"{name}.npz")["values"], failures)
                check(f"{name} (GNU Go vs fastplay)", gnu, fastplay_table(ORACLE / f"{name}.db"),
                      failures)
        rng = np.random.default_rng(args.seed)
        for i in range(args.random):
            layout = random_layout(rng)
            path = Path(tmp) / f"random{i}.db"
            path.write_text(write_db(layout, f"random layout {i}, seed {args.seed}"))
            gnu = gnugo_table(exe, path)
            check(f"random {i}, {int(layout.written.sum())} cells written (GNU Go vs "
                  "fastplay)", gnu, fastplay_table(path), failures)
            check(f"random {i} (GNU Go vs the layout)", gnu, layout.table(), failures)
        for db in args.db:
            check(f"{db} (GNU Go vs fastplay)", gnugo_table(exe, db), fastplay_table(db),
                  failures)
    for line in failures:
        print("  " + line)
    print(f"{'no table differs' if not failures else f'{len(failures)} differences'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
