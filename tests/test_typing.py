"""Types: `meeple.Game` and `meeple.State` describe every engine game (checked at run time, and as
a type checker sees them through `meeple.load`), and the package, which ships `py.typed`, passes
mypy, so users' type checkers and editors get real types."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import meeple

# What each game offers beyond the protocol (its rules document describes them).
STATE_EXTRAS = {"abacuachego": set(), "harmonies": {"board", "score_breakdown"}, "imperial_harvest": {"vp"}}
GAME_EXTRAS = {"abacuachego": set(), "harmonies": {"score_board"}, "imperial_harvest": {"board_hedges"}}


def public(obj):
    return {name for name in dir(obj) if not name.startswith("_")}


@pytest.mark.parametrize("name", meeple.list_games())
def test_engine_classes_are_exactly_the_protocol_plus_their_extras(name):
    game = meeple.load(name)
    state = game.new_initial_state(seed=1)
    assert isinstance(game, meeple.Game) and isinstance(state, meeple.State)
    assert public(state) == public(meeple.State) | STATE_EXTRAS[name]
    assert public(game) == public(meeple.Game) | GAME_EXTRAS[name]


ENGINE_ONLY = {"state_size_bytes", "perft", "random_playouts"}  # docs/protocol.md marks them


@pytest.mark.parametrize("name", meeple.list_games())
def test_reference_classes_have_the_protocol_but_the_engine_only_methods(name):
    game = meeple.reference.load(name)
    state = game.new_initial_state(seed=1)
    assert (public(meeple.State) - public(state)) | (public(meeple.Game) - public(game)) == ENGINE_ONLY
    engine_state = meeple.load(name).from_json(json.dumps(state.to_document()))
    assert engine_state.to_document() == state.to_document() == json.loads(state.to_json())


def test_py_typed_ships_with_the_package():
    assert (Path(meeple.__file__).parent / "py.typed").is_file()
    assert (Path(meeple.__file__).parent / "_core.pyi").is_file()


USER_CODE = '''
import numpy as np
import meeple


def rollout(state: meeple.State, rng: np.random.Generator) -> float:
    state = state.clone()
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    return float(state.returns()[0])


game = meeple.load("harmonies", players=3)
start = game.new_initial_state(seed=1)
reveal_type(start)
reveal_type(start.legal_actions())
reveal_type(meeple.from_json(start.to_json()))
reveal_type(meeple.VectorGame(game, 8).state(0))
rollout(start, np.random.default_rng(0))
'''


OLDEST_PYTHON = "3.10"  # pyproject.toml's requires-python
RUNNING_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def run_mypy(tmp_path, *args, python_version=RUNNING_PYTHON):
    pytest.importorskip("mypy", reason="mypy is in the test extras: pip install \".[test]\"")
    env = dict(os.environ)
    parent = str(Path(meeple.__file__).resolve().parents[1])
    installed = {str(Path(p).resolve()) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])}
    if parent not in installed:  # a source checkout on PYTHONPATH: mypy reads MYPYPATH, not PYTHONPATH
        env["MYPYPATH"] = parent
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
               "--python-version", python_version, *args]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("python_version", sorted({RUNNING_PYTHON, OLDEST_PYTHON}))
def test_the_package_passes_mypy(tmp_path, python_version):
    """On the running Python and on the oldest one the package supports: typeshed declares some
    names only for newer versions (BaseException.__notes__ is 3.11+)."""
    code, output = run_mypy(tmp_path, "-p", "meeple", python_version=python_version)
    assert code == 0, output


def test_oldest_python_is_the_one_pyproject_requires():
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("no pyproject.toml beside the tests")
    assert f'requires-python = ">={OLDEST_PYTHON}"' in pyproject.read_text()


def test_the_examples_pass_mypy(tmp_path):
    examples = Path(__file__).resolve().parents[1] / "examples"
    code, output = run_mypy(tmp_path, *sorted(str(p) for p in examples.glob("*.py")))
    assert code == 0, output


def test_user_code_sees_the_protocol_types(tmp_path):
    (tmp_path / "user.py").write_text(textwrap.dedent(USER_CODE))
    code, output = run_mypy(tmp_path, "user.py")
    revealed = [line.split("Revealed type is ")[1] for line in output.splitlines() if "Revealed type" in line]
    assert revealed[0] == revealed[2] == revealed[3] == '"meeple._protocol.State"', output
    assert "ndarray" in revealed[1] and "32Bit" in revealed[1], output
    assert code == 0, output
    # and a mistake in that code is found: a misspelt method, a player taken for a string
    (tmp_path / "user.py").write_text(textwrap.dedent(USER_CODE) + "start.apply_actoin(3)\n"
                                      "name: str = start.current_player()\n")
    code, output = run_mypy(tmp_path, "user.py")
    assert code == 1 and '"State" has no attribute "apply_actoin"' in output, output
    assert 'expression has type "int", variable has type "str"' in output, output
