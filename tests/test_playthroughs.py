"""Golden playthroughs (tests/playthrough.py): each file in tests/playthroughs/ is played again
from its game and seed and must come out the same, line for line."""
from __future__ import annotations

import difflib

import pytest

from playthrough import DIRECTORY, PLAYTHROUGHS, playthrough


def test_every_playthrough_file_is_listed():
    assert sorted(p.stem for p in DIRECTORY.glob("*.txt")) == sorted(PLAYTHROUGHS)


@pytest.mark.parametrize("stem", sorted(PLAYTHROUGHS))
def test_playthrough_is_unchanged(stem):
    game_string, seed = PLAYTHROUGHS[stem]
    path = DIRECTORY / f"{stem}.txt"
    golden = path.read_text(encoding="utf-8")
    assert golden.splitlines()[1:3] == [f"game: {game_string}", f"seed: {seed}"]
    now = playthrough(game_string, seed)
    if now != golden:
        diff = list(difflib.unified_diff(golden.splitlines(), now.splitlines(), f"{path.name} (golden)",
                                         f"{path.name} (now)", lineterm="", n=2))
        pytest.fail(f"{path.name} differs from a new playthrough (first 60 lines of the diff below); if the "
                    f"change is intended, run `python tests/playthrough.py --update` and review the diff:\n"
                    + "\n".join(diff[:60]))
