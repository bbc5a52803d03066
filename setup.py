"""Builds errdex, compiling its matcher with mypyc where it can.

The modules every pasted message passes through (reading the paste, finding and checking
templates) are strictly typed Python; mypyc turns them into C extensions that run about
twice as fast, with the .py files shipped beside them. The nearest-record lookup is also
written in C (errdex/match/_nearc.c, the same answers as its Python in
errdex/match/near.py).
Without a C compiler, or with ERRDEX_PURE_PYTHON=1, errdex installs as plain Python and
works the same, only slower.
An editable install (`pip install -e .`) is never compiled: a stale extension would
shadow the source being edited.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The modules of errdex/match/ every paste goes through; its __init__, `load` and `scan`
# stay Python (they run once per store or per log, and import across the compiled ones).
COMPILED = [
    "errdex/match/matcher.py",
    "errdex/match/compiled.py",
    "errdex/match/found.py",
    "errdex/match/index.py",
    "errdex/match/verify.py",
    "errdex/match/variants.py",
    "errdex/match/approximate.py",
    "errdex/match/rank.py",
    "errdex/match/prefilter.py",
    "errdex/match/near.py",
    "errdex/match/paste.py",
    "errdex/match/prefixes.py",
    "errdex/match/rust_debug.py",
    "errdex/match/holes.py",
    "errdex/match/evidence.py",
]


class OptionalBuildExt(build_ext):
    """A failed compile leaves the pure-Python package, with a warning."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler, no headers: fall back, don't fail
            self._warn(error)

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            self._warn(error)

    @staticmethod
    def _warn(error: BaseException) -> None:
        print(f"errdex: not compiling the matcher ({error}); installing pure Python",
              file=sys.stderr)


def extensions() -> list[Any]:
    editable = any(arg.startswith("editable") for arg in sys.argv)
    if editable or os.environ.get("ERRDEX_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify

        # The build environment has mypy but not errdex's dependencies: their types are
        # Any there, which only means calls into them go through Python, as they do anyway.
        flags = ["--ignore-missing-imports"]
        compiled = list(mypycify(flags + COMPILED, opt_level="3", group_name="errdex"))
    except (ImportError, Exception, SystemExit) as error:  # mypyc missing or refusing
        OptionalBuildExt._warn(error)
        compiled = []
    near = Extension("errdex.match._nearc", ["errdex/match/_nearc.c"], extra_compile_args=["-O2"])
    return [*compiled, near]


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
