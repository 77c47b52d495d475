"""Build hook: compile the rules core with mypyc (``hansa._native.COMPILED_MODULES``) when possible.

Everything else about the package is in pyproject.toml.  The compiled modules are the same code as the ``.py``
sources (which stay installed beside them) and run about 3x faster.  Without mypy, or when the C build fails (no
compiler or no Python headers), the install goes on with the pure-Python engine; ``HANSA_PURE_PYTHON=1`` at
install time skips compiling.
"""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import setup


def _extensions() -> list:  # type: ignore[type-arg]
    native = runpy.run_path(os.path.join("src", "hansa", "_native.py"))
    if native["pure_python_requested"]():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("hansa: mypyc is not available; installing the pure-Python engine", file=sys.stderr)
        return []
    names = native["COMPILED_MODULES"]
    paths = [os.path.join("src", *name.split(".")) + ".py" for name in names]
    try:
        extensions = mypycify(paths, opt_level="3")
    except BaseException as exc:  # mypy refused the sources (it exits): the pure-Python engine still works
        print(f"hansa: could not compile the engine ({exc!r}); installing the pure-Python engine", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # a failed C build warns and leaves the pure-Python modules in use
    return extensions


setup(ext_modules=_extensions())
