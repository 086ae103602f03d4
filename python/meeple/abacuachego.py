"""Abacuachego, a 2×10 mancala of the Muisca: parameters and registration.

The rules are in docs/rules/abacuachego.md; the engine is C++ (cpp/abacuachego/).

>>> import meeple
>>> game = meeple.load("abacuachego")
>>> state = game.new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()][:4]
['1cw', '1ccw', '2cw', '2ccw']
>>> state.apply_action(state.string_to_action("3cw"))
>>> state.current_player()
1
"""
from __future__ import annotations

from . import _core
from ._registry import GameSpec, Param, register

PARAMETERS = (
    Param("pits_per_row", 10, "pits in each player's row", low=2, high=12),
    Param("seeds_per_pit", 5, "grains in each pit at the start", low=1, high=30000),
    Param("win_threshold", 51, "grains in store that win at once", low=1, high=60000),
    Param("max_plies", 1000, "the game ends after this many actions", low=1, high=65535),
    Param("parity", "count", "default sowing direction from the parity of the grains or the pit",
          choices=("count", "pit")),
    Param("origin_match", "count", "origin-destination capture compares grain counts or pit numbers",
          choices=("count", "pit")),
    Param("match", "digit", "numbers match by last digit or exactly", choices=("digit", "exact")),
    Param("skip_origin_on_lap", False, "a lap skips the origin pit"),
)


def _make(**params):
    if 2 * params["pits_per_row"] * params["seeds_per_pit"] > 60000:
        raise ValueError("2*pits_per_row*seeds_per_pit must be <= 60000")
    return _core.AbacuachegoGame(**params)


register(GameSpec(
    name="abacuachego",
    description="Abacuachego: a 2x10 mancala for two players (Zipa, Zaque)",
    params=PARAMETERS,
    factory=_make,
))

Game: type = _core.AbacuachegoGame
State: type = _core.AbacuachegoState
