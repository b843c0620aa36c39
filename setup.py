"""The native solver core, built where a C compiler is found (pyproject.toml has the rest).

``optional=True``: where the extension cannot be built (no compiler, no Python headers),
setuptools warns and installs the project without it, and games.engine.solver runs its
Python core (docs/architecture.md, "The native core").
"""

import os
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExt(build_ext):
    """``build_ext`` whose copy into the source tree (``pip install -e``, ``--inplace``)
    puts a new file in place of the old one instead of writing into it: a process that has
    the old one loaded (a server, a test run) maps that file, and rewriting it under the
    process can crash it."""

    def copy_file(self, infile: str, outfile: str, *args: Any, **kwargs: Any) -> Any:
        if self.inplace and os.path.isfile(outfile):
            os.unlink(outfile)
        return super().copy_file(infile, outfile, *args, **kwargs)


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "games.engine.solver._native",
            sources=[
                "games/engine/solver/csrc/module.c",
                "games/engine/solver/csrc/search.c",
                "games/engine/solver/csrc/departures.c",
            ],
            depends=[
                "games/engine/solver/csrc/search.h",
                "games/engine/solver/csrc/core.h",
            ],
            # No fused multiply-add: a probe's sort keys must round as Python's do.
            extra_compile_args=["-O2", "-ffp-contract=off", "-std=c11"],
            optional=True,
        )
    ],
)
