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

from typing import Any

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


PLAYER_NAMES = ("Zipa", "Zaque")


def read_pit(state: Any, pit: int) -> int:
    """`meeple play` and `render --moves` read a bare number as a pit (what the board numbers): its one legal move.
    ValueError says why there is none, or names both when the pit may be sown either way."""
    pits = state.game.parameters()["pits_per_row"]
    if not 1 <= pit <= pits:
        raise ValueError(f"there is no pit {pit} (your pits are 1..{pits}); an action's number goes in "
                         f"brackets, e.g. [{pit}]")
    moves = [int(a) for a in state.legal_actions() if a // 2 == pit - 1]
    if not moves:
        raise ValueError(f"pit {pit} is empty")
    if len(moves) == 2:
        raise ValueError(f"pit {pit} may be sown either way: type {pit}cw or {pit}ccw")
    return moves[0]


def why_illegal(state: Any, action: int) -> str | None:
    """Why the move `action` (a pit and a direction) is not legal now, for a person (None if legal)."""
    pit = action // 2 + 1
    params = state.game.parameters()
    grains = state.to_dict()["pits"][state.current_player()][pit - 1]
    if grains == 0:
        return f"pit {pit} is empty"
    by_count = params["parity"] == "count"
    even = (grains if by_count else pit) % 2 == 0
    if (action % 2 == 0) == even or action in state.legal_actions():  # its own way, or far enough
        return None
    because = f"{grains} grains" if by_count else f"pit {pit}"
    return (f"pit {pit} sows {'clockwise' if even else 'counter-clockwise'} ({because}: {'even' if even else 'odd'}); "
            f"the other way only when its grains reach the opponent's row")


def narrate(before: Any, action: int, after: Any) -> str | None:
    """A move's capture or extra turn, for `meeple play` (the mover's store only grows by its
    last grain, which then gives another move, or by a capture). None for a quiet move, and at
    the end of the game (the final board and the result say it)."""
    if after.is_terminal():
        return None
    mover = before.current_player()
    name, store = PLAYER_NAMES[mover], after.to_dict()["stores"][mover]
    gain = store - before.to_dict()["stores"][mover]
    if after.current_player() == mover:
        return f"The last grain lands in {name}'s store: {name} moves again."
    if gain > 0:
        return f"{name} captures {gain} grain{'s' if gain > 1 else ''} (store {store})."
    return None


register(GameSpec(
    name="abacuachego",
    description="Abacuachego: a 2x10 mancala for two players (Zipa, Zaque)",
    params=PARAMETERS,
    factory=_make,
    moves_help="A move is one of your pits (1..n, as numbered on the board) and a direction: '3cw' sows\n"
               "pit 3 clockwise, '3ccw' counter-clockwise; '3' alone sows pit 3 in its one legal direction\n"
               "(an action's number goes in brackets: [5]). Rules: docs/rules/abacuachego.md.",
    read_bare_number=read_pit,
    why_illegal=why_illegal,
    narrate=narrate,
    player_names=PLAYER_NAMES,
))

Game: type = _core.AbacuachegoGame
State: type = _core.AbacuachegoState
