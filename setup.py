"""Build the Cython core and ship the pattern databases inside the package.

The ``patterns/`` folder at the top of the repository holds fastplay's
built-in ``.db`` files (GNU Go's three and fastplay's tuned ones); they are copied into ``fastplay/patterns/`` in the
build so that an installed wheel finds them with ``importlib.resources``.
"""
import os
import platform
import shutil

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithPatterns(build_py):
    """Copy ``patterns/*.db`` into the built package as ``fastplay/patterns``."""

    def run(self) -> None:
        super().run()
        target = os.path.join(self.build_lib, "fastplay", "patterns")
        os.makedirs(target, exist_ok=True)
        src = os.path.join(HERE, "patterns")
        for name in sorted(os.listdir(src)):
            if name.endswith(".db"):
                shutil.copyfile(os.path.join(src, name), os.path.join(target, name))


# fastplay is built from source on the machine that runs it, so it may use the
# x86-64-v2 baseline (every x86-64 CPU since 2009): hardware popcount matters
# for liberty counting.  FASTPLAY_PORTABLE=1 builds for the plain x86-64 ISA.
# -funroll-loops unrolls the board-size-long loops (bitset words, block sums):
# 1.04x playouts per second with mc_montegnu_classic, 1.01x with mc_uniform.
COMPILE_ARGS = ["-O3", "-funroll-loops"]
if platform.machine().lower() in ("x86_64", "amd64") and not os.environ.get("FASTPLAY_PORTABLE"):
    COMPILE_ARGS.append("-march=x86-64-v2")
LINK_ARGS: list[str] = []

# FASTPLAY_SANITIZE=address,undefined (any of gcc's -fsanitize= lists) builds
# the core with AddressSanitizer and UndefinedBehaviorSanitizer, for
# fuzz/sanitize.py: Python loads it with the sanitizer runtimes preloaded.
SANITIZE = os.environ.get("FASTPLAY_SANITIZE", "").strip()
if SANITIZE:
    if not all(part in ("address", "undefined", "leak", "thread") for part in SANITIZE.split(",")):
        raise SystemExit(f"FASTPLAY_SANITIZE={SANITIZE!r}: expected a comma-separated list of "
                         "address, undefined, leak, thread")
    flags = [f"-fsanitize={SANITIZE}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all", "-g"]
    COMPILE_ARGS = ["-O1", *flags]
    LINK_ARGS = flags

# The compiled core: five modules that cimport each other through their .pxd
# declarations (board and rules, tactical readers, the Python-facing board,
# the playout engine, the search tree's arithmetic), and _core, which gathers
# their Python names.  Compiler directives live here and nowhere else.
CORE_MODULES = ("_rules", "_tactics", "_board", "_playout", "_tree", "_core")

DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "binding": False,
}

extensions = [
    Extension(
        f"fastplay.{name}",
        [f"src/fastplay/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=COMPILE_ARGS,
        extra_link_args=LINK_ARGS,
    )
    for name in CORE_MODULES
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES),
    cmdclass={"build_py": BuildPyWithPatterns},
)
