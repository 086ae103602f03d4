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
import re
import textwrap
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping

from . import _core
from ._registry import GameSpec, Param, register

__all__ = ["Game", "State", "PARAMETERS", "score", "card_data", "describe_card", "cards_in_play"]

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


# How a pattern cell's stack is drawn: colour letters bottom to top, as on the board drawing
# (B blue, S gray, T brown, G green, Y yellow, R red); a building is red on one red, brown or gray.
_PATTERN_STACKS = {"W": "B", "F": "Y", "T1": "G", "T2": "TG", "T3": "TTG", "M1": "S", "M2": "SS", "M3": "SSS",
                   "B": "xR"}


@lru_cache(maxsize=1)
def _cards_by_name() -> dict[str, dict]:
    """Every card by its action name (spirits prefixed ``spirit-``), in id order."""
    data = card_data()
    return {("spirit-" if "points" not in c else "") + c["name"]: c
            for c in data["animal_cards"] + data["spirit_cards"]}


def _card(card: int | str) -> tuple[str, dict]:
    """(action name, card object) of an animal or spirit card given by id or name."""
    if isinstance(card, bool) or not isinstance(card, (int, str)):
        raise TypeError(f"card must be an id or a name, got {type(card).__name__}")
    names = _cards_by_name()
    for name, found in names.items():
        if card in (name, found["id"]):
            return name, found
    raise ValueError(f"no Harmonies card {card!r}: ids are 1..{len(names)}, names {', '.join(sorted(names))}")


def describe_card(card: int | str) -> str:
    """What a card asks for, drawn as the board is drawn: the pattern's cells with their stacks,
    ``*`` on the cell that takes the cube (any rotation matches), and what the card scores.

    >>> print(describe_card("bear"))
    bear (card 14): 2 cubes; scores 5, 11 points with 1, 2 cubes placed
    [SS  ]
          [G*  ]
    [SS  ]
    """
    name, found = _card(card)
    cubes = len(found["points"]) if "points" in found else 1
    if "points" in found:
        scoring = f"scores {', '.join(map(str, found['points']))} points with " \
                  f"{', '.join(map(str, range(1, cubes + 1)))} cube{'s' if cubes > 1 else ''} placed"
    else:
        scoring = found["scoring_text"]
    header = f"{name} (card {found['id']}): {cubes} cube{'s' if cubes > 1 else ''}; {scoring}"
    lines = []
    # Axial (q, r) to the board's odd-q offset (col, row), the columns shifted by an even number
    # so that the drawing starts at column 0 or 1 and keeps the board's stagger.
    cells = {}
    for cell in found["pattern"]:
        col, r = cell["q"], cell["r"]
        cells[(col, r + (col - (col & 1)) // 2)] = _PATTERN_STACKS[cell["stack"]] + ("*" if cell.get("cube") else "")
    shift = min(col for col, _ in cells) & ~1
    first_row = min(row for _, row in cells)
    width = max(col for col, _ in cells) - shift + 1
    for row in range(first_row, max(row for _, row in cells) + 1):
        for parity in (0, 1):  # the even columns of the row, then the odd ones half a cell lower
            text = "".join(f"[{cells[(shift + c, row)]:<4}]" if c % 2 == parity and (shift + c, row) in cells
                           else " " * 6 for c in range(width)).rstrip()
            if text:
                lines.append(text)
    lines = textwrap.dedent("\n".join(lines)).splitlines()  # a blank first column kept the stagger
    if any(cell["stack"] == "B" for cell in found["pattern"]):
        lines.append("xR: a building, red on one red, brown or gray token")
    return "\n".join([header, *lines])


def _make(**params):
    return _core.HarmoniesGame(cards=_card_text(), **params)


def cards_in_play(state: Any) -> str:
    """`describe_card` of every card on the display and every unfinished card the players hold
    (with the cubes already placed), then the spirits dealt and not yet chosen."""
    d = state.to_dict()
    parts = []
    for slot, card in enumerate(d["display"]):
        if card is not None:
            parts.append(f"Display {slot}: {describe_card(card)}")
    for p, player in enumerate(d["players"]):
        for held in player["cards"]:
            cubes = _cubes_needed(held["id"])
            if held["cubes_placed"] < cubes:
                parts.append(f"Player {p} holds ({held['cubes_placed']} of {cubes} cubes placed): "
                             f"{describe_card(held['id'])}")
        for option in player["spirit_options"]:
            parts.append(f"Player {p} may keep: {describe_card(option)}")
    return "\n\n".join(parts) if parts else "No cards in play."


_COLOUR_SPELLINGS = {"grey": "gray"}  # British spelling
_COLOUR_LETTERS = {"b": "blue", "s": "gray", "t": "brown", "g": "green", "y": "yellow", "r": "red"}  # the board's
_MOST_UNFINISHED_CARDS = 4  # a spirit kept and not finished counts too (docs point 12)
_TAKE_FIRST = "take tokens from a central space first ('take S')"


def _cubes_needed(card: int) -> int:
    """The cubes that finish `card` (a spirit has one)."""
    return len(_card(card)[1].get("points", [0]))


def spell_move(state: Any, text: str) -> str:
    """A person's spelling of a move as the move's own string: a colour by the board's letter
    ('place B 0,0'), a cell as 'COL ROW' or '(COL,ROW)' ('place blue 0 0', 'cube bee (2,1)').
    Only for text that is no move string as it stands (`meeple play` tries that first)."""
    words = text.lower().replace("(", " ").replace(")", " ").replace(",", " ").split()
    if len(words) >= 3 and words[-1].isdigit() and words[-2].isdigit():
        words[-2:] = [f"{words[-2]},{words[-1]}"]
    if len(words) == 3 and words[0] == "place":
        words[1] = _COLOUR_LETTERS.get(words[1], _COLOUR_SPELLINGS.get(words[1], words[1]))
    return " ".join(words)


_SCORE_ROWS = ("trees", "mountains", "fields", "buildings", "water", "animals", "spirit", "total")


def score_table(state: Any) -> str:
    """Each player's points by category (`score_breakdown`), one column a player: why the game
    ended as it did."""
    players = range(state.game.num_players())
    scores = [state.score_breakdown(p) for p in players]
    lines = ["Points".ljust(11) + "".join(f"{'player ' + str(p):>10}" for p in players)]
    for row in _SCORE_ROWS:
        lines.append(row.ljust(11) + "".join(f"{s[row]:>10}" for s in scores))
    return "\n".join(lines)


def why_illegal(state: Any, action: int) -> str | None:
    """Why the move `action` is not legal now, for a person (None: no simple reason, or legal)."""
    d = state.to_dict()
    kind, *args = state.action_to_string(action).split()
    me = d["players"][d["current_player"]]
    hand = ", ".join(d["hand"]) or "empty"
    solo = len(d["players"]) == 1
    if me["spirit_options"] and kind != "spirit":
        return "first keep one of the two spirit cards dealt to you ('spirit 0' or 'spirit 1'; 'cards' shows them)"
    if kind == "spirit" and not me["spirit_options"]:
        if not state.game.parameters()["spirits"]:
            return "this game is played without the spirit cards"
        return "you have no spirit cards to choose from: a spirit is kept once, at the start of your first turn"
    if kind in ("place", "cube") and args[1].startswith("#"):  # 'place blue #23 (off the board)'
        return f"cell {args[1]} is off your board (side {state.game.parameters()['side']})"
    if kind in ("take", "card", "discard"):  # solo has 3 central spaces and display slots, not 5
        places = d["central"] if kind == "take" else d["display"]
        if int(args[0]) >= len(places):
            return f"there are {'central spaces' if kind == 'take' else 'display slots'} 0..{len(places) - 1} only"
    if kind == "discard" and not solo:
        return "discarding a display card is for the solo game"
    if kind in ("end", "discard"):
        if kind == "discard" and d["took_card"]:
            return "you took a card this turn: 'end' ends it"
        if not d["took_tokens"]:
            return _TAKE_FIRST
        if d["hand"]:
            return f"place the tokens in your hand first (hand: {hand})"
        if kind == "discard" and d["display"][int(args[0])] is None:
            return f"display slot {args[0]} is empty"
    elif kind == "take":
        if d["took_tokens"]:
            return "you took tokens this turn already"
        if not d["central"][int(args[0])]:
            return f"central space {args[0]} is empty"
    elif kind == "place":
        colour, cell = args
        if not d["took_tokens"]:
            return _TAKE_FIRST
        if colour not in d["hand"]:
            return f"no {colour} token in your hand (hand: {hand})"
        if cell in me["cubes"]:  # (a cell off the board is '#23' in the string, answered above)
            return f"{cell} holds a cube: nothing more goes on it"
        if me["board"][cell] and action not in state.legal_actions():  # else only the stacking table refuses
            stack = tuple(me["board"][cell])
            if stack not in _GOES_ON:
                return f"{cell} holds {'-'.join(stack)}: nothing goes on it (stacking, point 4)"
            return f"{cell} holds {'-'.join(stack)}: only {_GOES_ON[stack]} goes on it (stacking, point 4)"
    elif kind == "card":
        if d["took_card"]:
            return "you took a card this turn already"
        if d["display"][int(args[0])] is None:
            return f"display slot {args[0]} is empty"
        unfinished = sum(held["cubes_placed"] < _cubes_needed(held["id"]) for held in me["cards"])
        if unfinished >= _MOST_UNFINISHED_CARDS:
            return f"you hold {unfinished} unfinished cards, the most allowed"
    elif kind == "cube":
        cards = [held["id"] for held in me["cards"] if held["cubes_placed"] < _cubes_needed(held["id"])]
        j = (action - _FIRST_CUBE) // 25  # the j-th unfinished card (docs: actions), written '#j' if none
        if j >= len(cards):
            if not cards:
                return "you hold no unfinished card ('card D' takes one from the display)"
            yours = ", ".join(f"#{i} {_card(card)[0]}" for i, card in enumerate(cards))
            return f"you hold no unfinished card #{j}; yours are {yours}"
        if args[1] in me["cubes"]:
            return f"{args[1]} holds a cube already"
        if action not in state.legal_actions():
            misfit = _pattern_misfit(_card(cards[j])[1], me["board"], args[1])
            if misfit is not None:
                return f"the {args[0]} pattern does not fit with its cube on {args[1]} (in any rotation): {misfit}"
            return f"the {args[0]} pattern does not fit there"
    return None


_FIRST_CUBE = 160  # action 160 + 25 j + x: a cube from the j-th unfinished card on cell x
# Stacking (point 4): what may go on each stack that takes more; nothing goes on any other
_GOES_ON: dict[tuple[str, ...], str] = {
    ("gray",): "gray or red", ("gray", "gray"): "gray", ("brown",): "brown, green or red", ("brown", "brown"): "green",
    ("red",): "red"}
# Pattern codes (point 3): the stacks each matches exactly, and how a person reads it
_CODE_STACKS: dict[str, list[tuple[str, ...]]] = {
    "W": [("blue",)], "F": [("yellow",)], "T1": [("green",)], "T2": [("brown", "green")],
    "T3": [("brown", "brown", "green")], "M1": [("gray",)], "M2": [("gray", "gray")], "M3": [("gray", "gray", "gray")],
    "B": [("red", "red"), ("brown", "red"), ("gray", "red")]}
_CODE_WORDS = {"B": "red on one red, brown or gray token"}


def _pattern_misfit(card: dict, board: Mapping[str, list], cell: str) -> str | None:
    """What keeps the pattern of `card`, its cube on `cell` ('col,row'), off `board` ('col,row' ->
    stack), in the rotation that comes closest among those that keep it on the board (point 3:
    every pattern cell on the board with its stack exactly as coded); None if a rotation fits."""
    centre = next(c for c in card["pattern"] if c.get("cube"))
    col, row = (int(n) for n in cell.split(","))
    q0, r0 = col, row - (col - (col & 1)) // 2  # odd-q offset to axial
    closest: list[str] | None = None
    for turns in range(6):
        cells = []
        for c in card["pattern"]:
            dq, dr = c["q"] - centre["q"], c["r"] - centre["r"]
            for _ in range(turns):  # 60 degrees clockwise
                dq, dr = -dr, dq + dr
            q, r = q0 + dq, r0 + dr
            cells.append((f"{q},{r + (q - (q & 1)) // 2}", c["stack"]))
        if any(name not in board for name, _ in cells):
            continue
        misses = [f"{name} should hold {_CODE_WORDS.get(code, '-'.join(_CODE_STACKS[code][0]))} (it holds "
                  f"{'-'.join(board[name]) or 'nothing'})" for name, code in cells
                  if tuple(board[name]) not in _CODE_STACKS[code]]
        if not misses:
            return None
        if closest is None or len(misses) < len(closest):
            closest = misses
    if closest is None:
        return "in every rotation a cell of it falls off the board"
    return f"turned the closest way, {'; '.join(closest)}"


def board_for(state: Any, seat: int) -> str:
    """str(state) for the person at `seat` (`meeple play`): their board comes last of the boards,
    just above the central spaces and the display, and is marked 'you' (with 4 players the boards
    fill some 50 lines, and the first scrolled away before the prompt)."""
    lines = str(state).split("\n")
    starts = [i for i, line in enumerate(lines) if re.match(r"Player \d+( \(to move\))?:", line)]
    end = next(i for i, line in enumerate(lines) if line.startswith("Central:"))
    boards = {int(lines[i].split()[1].rstrip(":")): lines[i:j] for i, j in zip(starts, starts[1:] + [end])}
    mine = boards.pop(seat)
    mine[0] = re.sub(r"^Player (\d+)( \(to move\))?:", lambda m: f"Player {m[1]} (you{', to move' if m[2] else ''}):",
                     mine[0])
    order = sorted(boards, key=lambda p: (p - seat) % len(starts))  # play order after you
    return "\n".join(lines[:starts[0]] + [line for p in order for line in boards[p]] + mine + lines[end:])


register(GameSpec(
    name="harmonies",
    description="Harmonies: build landscapes and habitats on a hex board (1-4 players)",
    params=PARAMETERS,
    factory=_make,
    cards_text=cards_in_play,
    cards_help="what the cards in play ask for and what they score",
    moves_help="A turn: 'take S' takes the three tokens of central space S; 'place COLOUR COL,ROW' puts\n"
               "one on your board (columns and rows as drawn); 'card D' takes display card D (once a\n"
               "turn); 'cube CARD COL,ROW' marks a finished animal pattern; 'end' ends the turn.\n"
               "Colours may be written as the board's letters ('place B 0,0') and cells as 'COL ROW'.\n"
               "Rules: docs/rules/harmonies.md.",
    spell_move=spell_move,
    why_illegal=why_illegal,
    score_text=score_table,
    board_text=board_for,
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
