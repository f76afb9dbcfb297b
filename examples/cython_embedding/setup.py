"""Build the embedding example against the installed fastplay:

    python setup.py build_ext --inplace && python run.py
"""

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

import fastplay

setup(
    name="fastplay-embedding-example",
    ext_modules=cythonize(
        [Extension("embed", ["embed.pyx"], include_dirs=[np.get_include()],
                   define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                   extra_compile_args=["-O3"])],
        include_path=[fastplay.get_include()],
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
    ),
)
