"""Build the Cython core and ship the pattern databases inside the package.

The ``patterns/`` folder at the top of the repository holds fastplay's three
built-in ``.db`` files; they are copied into ``fastplay/patterns/`` in the
build so that an installed wheel finds them with ``importlib.resources``.
"""
import os
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


extensions = [
    Extension(
        "fastplay._core",
        ["src/fastplay/_core.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
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
