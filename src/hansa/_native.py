"""The compiled engine core: which modules mypyc compiles, and the switch back to their pure-Python sources.

``pip install`` compiles :data:`COMPILED_MODULES` with mypyc when it can (setup.py); the ``.py`` sources stay
beside the compiled files and are the same code.  Python prefers a compiled module over its source, so this
module (imported first by ``hansa/__init__.py``, standard library only: setup.py reads it too) puts the sources
back in front when

* ``HANSA_PURE_PYTHON`` is set (to anything but ``0``): for debugging, profiling and comparing the two;
* in a source checkout (editable install), a source is newer than its compiled file (an edited or updated
  checkout: the compiled code would be stale; a warning says so, and ``pip install -e .`` compiles again);
* the compiled files are incomplete (a build that could not finish).

The modules switch together: compiled classes cannot mix with interpreted ones of the same hierarchy.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: Modules compiled by mypyc (the rules core and the simulator's default random bot).
COMPILED_MODULES: tuple[str, ...] = (
    "hansa.core.board",
    "hansa.core.movetable",
    "hansa.core.position",
    "hansa.core.expansion",
    "hansa.core.movegen",
    "hansa.core.state",
    "hansa.core.features",
    "hansa.bots.random_bots",
)

_PACKAGE_DIR = Path(__file__).resolve().parent
_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def pure_python_requested() -> bool:
    """Is ``HANSA_PURE_PYTHON`` set (to anything but ``0``)?  Then nothing is compiled or run compiled."""
    return os.environ.get("HANSA_PURE_PYTHON", "") not in ("", "0")


def _source(name: str) -> Path:
    return _PACKAGE_DIR.joinpath(*name.split(".")[1:]).with_suffix(".py")


def _binary(name: str) -> Path | None:
    source = _source(name)
    for suffix in _SUFFIXES:
        path = source.with_suffix(suffix)
        if path.exists():
            return path
    return None


def _in_checkout() -> bool:
    """Is this package the ``src/hansa`` of a source checkout (an editable install), where sources get edited?"""
    return _PACKAGE_DIR.parent.name == "src" and (_PACKAGE_DIR.parent.parent / "pyproject.toml").exists()


def _why_sources() -> str | None:
    """Why the pure-Python sources must be used although compiled files exist (``None``: use them)."""
    binaries = [_binary(name) for name in COMPILED_MODULES]
    if not any(binaries):
        return None  # nothing compiled: the sources are used anyway
    if pure_python_requested():
        return "HANSA_PURE_PYTHON is set"
    if not all(binaries) or not any(_PACKAGE_DIR.parent.glob("*__mypyc*")):
        return "the compiled engine is incomplete"
    if not _in_checkout():
        return None  # an installed wheel: its files' times say nothing (pip writes them in any order)
    stale = [
        name
        for name, binary in zip(COMPILED_MODULES, binaries)
        if binary and _source(name).stat().st_mtime > binary.stat().st_mtime
    ]
    if stale:
        return f"{', '.join(stale)} changed since it was compiled (run `pip install -e .` again to recompile)"
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` sources ahead of their compiled files."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def install() -> None:
    """Use the pure-Python sources where :func:`_why_sources` says so (warning unless asked for)."""
    why = _why_sources()
    if why is None:
        return
    if not why.startswith("HANSA_PURE_PYTHON"):
        warnings.warn(f"hansa: using the pure-Python engine (slower): {why}", RuntimeWarning, stacklevel=2)
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def compiled() -> bool:
    """True when the engine core runs as compiled (mypyc) code, False for the pure-Python sources."""
    from .core import state

    return not (state.__file__ or "").endswith(".py")
