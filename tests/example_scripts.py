"""Running and importing the scripts of examples/ from their tests."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import meeple

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run(*argv: str) -> str:
    """Runs `python argv...` from the repository root with this meeple and examples/ importable;
    returns its output (a failure fails the test, with the output)."""
    path = os.pathsep.join([str(Path(meeple.__file__).resolve().parents[1]), str(ROOT)])
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=path, OPENBLAS_NUM_THREADS="1"))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def example(name: str) -> ModuleType:
    """The module examples/<name>.py, imported."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(EXAMPLES))
