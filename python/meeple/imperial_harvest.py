"""Imperial Harvest (2 players): parameters, registration and the shipped board data.

The rules are in docs/rules/imperial-harvest.md; the engine is C++ (cpp/imperial_harvest/). The
boards, tile faces and character cards come from ``meeple/data/imperial_harvest/*.json`` and are
handed to the engine when a game is made. Player 0 is the Imperial Servants, player 1 the Northern
Raiders.

>>> import meeple
>>> game = meeple.load("imperial_harvest")
>>> state = game.new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()]
['rest monk', 'rest guardian', 'rest bard']
>>> for text in ("rest bard", "activate monk", "move s", "move w"):
...     state.apply_action(state.string_to_action(text))
>>> state.to_dict()["characters"][0]["cell"], state.to_dict()["activation"]["ap"]  # 3 AP + 1 Ballad - 2 moves
([7, 1], 2)
>>> state.vp(0), state.vp(1)
(0, 0)
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from . import _core
from ._registry import GameSpec, Param, register
from .imperial_harvest_board import Board  # reads data() from this module lazily

__all__ = ["Game", "State", "PARAMETERS", "Board", "data"]

BOARDS = ("standard", "symmetric")

PARAMETERS = (
    Param("board", "standard", "the board of boards.json", choices=BOARDS),
    Param("teams", "first_game", "'first_game', 'draft', or 'a,b,c/d,e,f' (imperial/raiders character ids)",
          kind=str),
    Param("sides", "basic", "'basic', 'advanced', or '<imperial>/<raiders>' card sides", kind=str),
    Param("setup", "fixed", "the setup", choices=("fixed", "interactive")),
)


def _teams_arg(text: str):
    """teams= as the C++ constructor takes it: 'first_game', 'draft' or two lists of 3 ids."""
    if text in ("first_game", "draft"):
        return text
    halves = text.split("/")
    if len(halves) != 2:
        raise ValueError(f"teams must be 'first_game', 'draft' or 'a,b,c/d,e,f', got {text!r}")
    return [[i.strip() for i in half.split(",")] for half in halves]


def _sides_arg(text: str):
    sides = text.split("/") if "/" in text else [text, text]
    if len(sides) != 2 or any(s not in ("basic", "advanced") for s in sides):
        raise ValueError(f"sides must be 'basic', 'advanced' or '<basic|advanced>/<basic|advanced>', got {text!r}")
    return sides


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return (resources.files("meeple") / "data" / "imperial_harvest" / name).read_text(encoding="utf-8")


def data(name: str) -> dict:
    """A fresh copy of one shipped data file: 'boards', 'tiles' or 'characters'."""
    if name not in ("boards", "tiles", "characters"):
        raise ValueError(f"unknown data file {name!r}; expected 'boards', 'tiles' or 'characters'")
    return json.loads(_text(f"{name}.json"))


def _make(**params):
    return _core.ImperialHarvestGame(board=params["board"], boards=data("boards"), tiles=data("tiles"),
                                     characters=data("characters"), teams=_teams_arg(params["teams"]),
                                     sides=_sides_arg(params["sides"]), setup=params["setup"])


register(GameSpec(
    name="imperial_harvest",
    description="Imperial Harvest: two teams of three gather strawberries in a hedged garden (2 players)",
    params=PARAMETERS,
    factory=_make,
))

Game = _core.ImperialHarvestGame
State = _core.ImperialHarvestState
