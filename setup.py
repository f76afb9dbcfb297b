"""Build the Cython core and ship the pattern databases inside the package.

The ``patterns/`` folder at the top of the repository holds fastplay's three
built-in ``.db`` files; they are copied into ``fastplay/patterns/`` in the
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
COMPILE_ARGS = ["-O3"]
if platform.machine().lower() in ("x86_64", "amd64") and not os.environ.get("FASTPLAY_PORTABLE"):
    COMPILE_ARGS.append("-march=x86-64-v2")

extensions = [
    Extension(
        "fastplay._core",
        ["src/fastplay/_core.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=COMPILE_ARGS,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
    cmdclass={"build_py": BuildPyWithPatterns},
)
