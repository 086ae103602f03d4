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

MAX_GRAINS = 60000  # grain counts are 16-bit in the engine

PARAMETERS = (
    Param("pits_per_row", 10, "pits in each player's row", low=2, high=12),
    Param("seeds_per_pit", 5, "grains in each pit at the start (the board holds at most 60000: "
          "2*pits_per_row*seeds_per_pit <= 60000)", low=1, high=15000),
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
    pits, seeds = params["pits_per_row"], params["seeds_per_pit"]
    if 2 * pits * seeds > MAX_GRAINS:
        raise ValueError(f"seeds_per_pit={seeds} with pits_per_row={pits} puts {2 * pits * seeds} grains on "
                         f"the board; at most {MAX_GRAINS}, so seeds_per_pit <= {MAX_GRAINS // (2 * pits)} here")
    return _core.AbacuachegoGame(**params)


register(GameSpec(
    name="abacuachego",
    description="Abacuachego: a 2x10 mancala for two players (Zipa, Zaque)",
    params=PARAMETERS,
    factory=_make,
    moves_help="A move is one of your pits (1..n, as numbered on the board) and a direction: '3cw' sows\n"
               "pit 3 clockwise, '3ccw' counter-clockwise. Rules: docs/rules/abacuachego.md.",
))

Game: type = _core.AbacuachegoGame
State: type = _core.AbacuachegoState
