"""Which solver core runs: the native one where it is built, else the Python one, and
SOLVER_CORE to force either; and a build without a C compiler that still installs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Makes ``games.engine.solver._native`` unimportable, as where it was never built.
UNBUILT = "import sys; sys.modules['games.engine.solver._native'] = None; "


def core_of(code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``environment`` added."""
    env = {k: v for k, v in os.environ.items() if k != "SOLVER_CORE"} | environment
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_without_the_extension_the_python_core_runs() -> None:
    ran = core_of(
        UNBUILT + "from games.engine import RULESETS, new_game, seeded_deal, solver; "
        "rules = RULESETS['classic']; "
        "print(solver.CORE, solver.solve(rules, new_game(rules, seeded_deal(rules, 0))).verdict)"
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["python", "won"]


def test_the_variable_forces_a_core_or_fails_at_once() -> None:
    shown = "from games.engine import solver; print(solver.CORE)"
    assert core_of(shown, SOLVER_CORE="python").stdout.strip() == "python"
    assert core_of(UNBUILT + shown, SOLVER_CORE="auto").stdout.strip() == "python"
    missing = core_of(UNBUILT + shown, SOLVER_CORE="native")
    assert missing.returncode != 0
    assert "SOLVER_CORE=native, but the native solver core is not built" in missing.stderr
    wrong = core_of(shown, SOLVER_CORE="fortran")
    assert wrong.returncode != 0
    assert "SOLVER_CORE must be native, python or auto" in wrong.stderr


def test_a_call_cannot_ask_for_a_core_that_is_not_built() -> None:
    ran = core_of(
        UNBUILT + "from games.engine import RULESETS, new_game, seeded_deal, solver; "
        "rules = RULESETS['classic']; "
        "solver.solve(rules, new_game(rules, seeded_deal(rules, 0)), core='native')"
    )
    assert ran.returncode != 0
    assert "ValueError: no 'native' solver core here" in ran.stderr


def test_without_a_compiler_the_build_goes_on(tmp_path: Path) -> None:
    """setup.py marks the extension optional: with no working compiler (CC=false) the
    build warns and succeeds, and builds nothing (pip install then installs the project
    without it)."""
    shutil.copy(ROOT / "setup.py", tmp_path)
    solver = tmp_path / "games" / "engine" / "solver"
    shutil.copytree(ROOT / "games" / "engine" / "solver" / "csrc", solver / "csrc")
    env = os.environ | {"CC": "false"}
    built = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert "games.engine.solver._native" in built.stdout + built.stderr
    assert not list(tmp_path.rglob("_native*.so"))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler here")
def test_with_a_compiler_the_build_makes_the_extension(tmp_path: Path) -> None:
    shutil.copy(ROOT / "setup.py", tmp_path)
    solver = tmp_path / "games" / "engine" / "solver"
    shutil.copytree(ROOT / "games" / "engine" / "solver" / "csrc", solver / "csrc")
    command = [sys.executable, "setup.py", "build_ext", "--inplace", "--force"]
    built = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (extension,) = solver.glob("_native*.so")
    # A rebuild puts a new file in place of the one a running process holds (here, open),
    # and leaves that one as it was.
    with extension.open("rb") as held:
        before = held.read()
        assert subprocess.run(command, cwd=tmp_path, capture_output=True).returncode == 0
        assert extension.stat().st_ino != os.fstat(held.fileno()).st_ino
        held.seek(0)
        assert held.read() == before
