"""Shared fixtures: every generic test takes `case` (one game and rule variant from tests/games.py)
and runs once per (game, variant) of `meeple.list_games()`."""
from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)  # `import games`, `import differential`
try:
    import meeple  # noqa: F401
except ImportError:  # run from a checkout without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "python"))

import pytest

from games import Case, cases

CASES = cases()


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request) -> Case:
    """One (game, variant) of the table in tests/games.py."""
    return request.param


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist the long (`slow`) tests run first. CI hands tests out one at a time
    (`-n 2 --maxschedchunk 1`) as workers free up: with the longest ones started first, only short
    tests are left to even out the end of the run, and neither worker idles long behind the other."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
