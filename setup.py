"""The native solver core, built where a C compiler is found (pyproject.toml has the rest).

``optional=True``: where the extension cannot be built (no compiler, no Python headers),
setuptools warns and installs the project without it, and games.engine.solver runs its
Python core (docs/architecture.md, "The native core").
"""

from setuptools import Extension, setup

setup(
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
    ]
)
