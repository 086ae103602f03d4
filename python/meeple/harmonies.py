"""Harmonies (Libellud 2024): parameters, registration and board scoring.

The rules are in docs/rules/harmonies.md; the engine is C++ (cpp/harmonies/). The 42 cards come
from ``meeple/data/harmonies/cards.json`` and are handed to the engine when a game is made.

>>> import meeple
>>> game = meeple.load("harmonies", players=2, side="A")
>>> state = game.new_initial_state(seed=7)
>>> state.current_player(), state.action_to_string(state.legal_actions()[0])
(0, 'take 0')
>>> state.apply_action(state.string_to_action("take 0"))
>>> state.score_breakdown(0)["total"]
0
>>> score({"0,0": ["blue"], "0,1": ["blue"], "1,0": ["gray"], "1,1": ["gray", "gray"]})["total"]
6
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping

from . import _core
from ._registry import GameSpec, Param, register

__all__ = ["Game", "State", "PARAMETERS", "score", "card_data"]

PARAMETERS = (
    Param("players", 2, "number of players (1 = solo)", low=1, high=4),
    Param("side", "A", "side of the personal boards", choices=("A", "B")),
    Param("spirits", False, "play with the Nature's Spirits cards"),
    Param("chance", "implicit", "chance drawn from the state's generator, or shown as chance nodes",
          choices=("implicit", "explicit")),
)


@lru_cache(maxsize=1)
def _card_text() -> str:
    return (resources.files("meeple") / "data" / "harmonies" / "cards.json").read_text(encoding="utf-8")


def card_data() -> dict:
    """The content of cards.json (a fresh copy)."""
    return json.loads(_card_text())


def _make(**params):
    return _core.HarmoniesGame(cards=_card_text(), **params)


register(GameSpec(
    name="harmonies",
    description="Harmonies: build landscapes and habitats on a hex board (1-4 players)",
    params=PARAMETERS,
    factory=_make,
))

Game: type = _core.HarmoniesGame
State: type = _core.HarmoniesState


@lru_cache(maxsize=1)
def _scorer():
    return _make(players=1, side="A", spirits=False, chance="implicit")


def score(board: Mapping[str, Any], side: str = "A", cards: Iterable[Mapping[str, Any]] = ()) -> dict:
    """Score breakdown of one personal board given in the format of bga_final_boards.json.

    `board` is either ``{"col,row": [colours bottom to top], ...}`` (cells left out are empty) or a
    player object ``{"board": {...}, "cubes": [...], "cards": [...]}`` (other keys are ignored).
    `cards` lists ``{"id": n, "cubes_placed": k}`` in any order; when it is empty and `board` is a
    player object, that object's cards are used. Returns ``{"trees", "mountains", "fields",
    "buildings", "water", "animals", "spirit", "total", "cubes"}`` (`cubes`: animal cubes placed,
    the tie-break); bad input raises ValueError.
    """
    if side not in ("A", "B"):
        raise ValueError(f"side must be 'A' or 'B', got {side!r}")
    if not isinstance(board, Mapping):
        raise ValueError(f"board must be a dict of 'col,row' -> colours, got {type(board).__name__}")
    if cards is None or isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise ValueError(f"cards must be a list of {{'id', 'cubes_placed'}}, got {type(cards).__name__}")
    cards = list(cards)
    if "board" in board:
        player = board
        board = player["board"]
        if not isinstance(board, Mapping):
            raise ValueError(f"player 'board' must be a dict of 'col,row' -> colours, got {type(board).__name__}")
        if not cards:
            cards = player.get("cards", [])
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise ValueError(f"cards must be a list of {{'id', 'cubes_placed'}}, got {type(cards).__name__}")
    cards = [dict(c) if isinstance(c, Mapping) else c for c in cards]
    return _scorer().score_board(dict(board), cards, side)
