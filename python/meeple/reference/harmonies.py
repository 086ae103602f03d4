"""Harmonies, pure-Python reference implementation.

Written from the rules (docs/rules/harmonies.md, completing ../shared/rules/harmonies.spec.md), not
from the C++ engine: it is the oracle for differential tests and the pure-Python baseline.
Standard library only. Point numbers ("point 17", "D3") refer to docs/rules/harmonies.md.

Colours are indexed 0..5 (blue, gray, brown, green, yellow, red). A personal board is a list of
stacks indexed by cell index (point 2); a stack is a tuple of colours, bottom to top. Cards are
identified by their cards.json id (1..32 animals, 33..42 spirits).

READINGS OF POINTS THE RULES DOCUMENT LEFT OPEN when this was written, tagged [R1]..[R9] where the
code applies them (numbered for this file: the C++ engine's R-numbers are its own). The document
has since settled each, as decisions D7-D14: R1 = D7, R2 = D8, R3 and R4 = D9, R5 = D10, R6 = D11,
R7 = D12, R8 = D13 and "Observation", R9 = D14.
  [R1] "turns" (state dict, observation) counts the turns a player has ended: it is incremented by
       the `end` / `discard` action itself, before any refill (so also for the turn that ends the
       game, and already during the chance nodes that follow an `end`).
  [R2] While the refills that follow an `end` are pending (explicit chance), the turn still belongs
       to the player who ended it: turn_player, hand (empty), took_tokens (true) and took_card are
       unchanged; they pass to the next player (point 17f) only once every pending draw is done.
       When the game ends (D6, or the D3 skip for player P-1) nothing more changes either: the
       terminal state keeps turn_player = the last player, took_tokens = true, etc.
  [R3] "pending" lists exactly the work that will be done. Slots: the empty display slots in slot
       order, cut to the number of cards left in the deck; none if the game ends after the space
       refills (D4).
  [R4] The space refills after an `end` are all decided at the `end` itself, from the pouch size:
       the spaces a pouch of n tokens can fill (n // 3 of them, in order) are pending; if one is
       left out, the end is triggered at once (D3); for the last player (always in solo) the game
       is then over as soon as the pending refills before it are drawn (D4: they are still drawn,
       as chance nodes with explicit chance). The space refilled after a multiplayer turn is the
       emptied (taken) one, found as the first empty central space.
  [R5] "spirit_deck" lists the spirit ids not dealt, literally: without the spirits option none is
       ever dealt, so it is [33, ..., 42] (not []).
  [R6] Chance strings for spirit cards use the action name of the card: `draw card 33 (spirit-lion)`.
  [R7] The solo "groups" bonus (point 24) uses the kept spirit's family, whether or not its cube was
       placed.
  [R8] Observation: "cells x 19" and "cards x 3" are laid out cell-major / card-major (the 19 or 3
       values of one cell / card together); counts (cubes, pouch, deck, hand, turns) are raw numbers;
       "score total / 100" is the player's current score_breakdown total / 100; the hand and flags
       at a chance node or at the end are those of turn_player.
  [R9] Action strings of actions that can never be legal in this position (a cube from a card the
       player does not hold, a cell off the side's board) are descriptive and not parsed back.
"""

import functools
import json
import pathlib
import random
import re

from . import _document
from ._document import action_int as _action_int, as_int as _as_int, document_int as _document_int, is_bool as _is_bool

CHANCE = -1    # current_player() at a chance node (meeple.CHANCE)
TERMINAL = -4  # current_player() once the game is over (meeple.TERMINAL)

COLOURS = ("blue", "gray", "brown", "green", "yellow", "red")
BLUE, GRAY, BROWN, GREEN, YELLOW, RED = range(6)
COLOUR_LETTERS = "BSTGYR"  # blue, stone, trunk, green, yellow, red (board strings)
POUCH = (23, 23, 21, 19, 19, 15)  # point 1

# Action encoding (table "Actions").
TAKE, PLACE, CARD, CUBE, SPIRIT, DISCARD, END = 0, 5, 155, 160, 260, 262, 267
NUM_DISTINCT_ACTIONS = 268
MAX_CELLS = 25                 # cell slots in actions and observations (side B has 25 cells)
MAX_SPACES = 5
MAX_UNFINISHED = 4             # point 12: the 4-card limit
MAX_CHANCE_OUTCOMES = 43       # colours 0..5, card ids 1..42
MAX_GAME_LENGTH = 1000
FIRST_SPIRIT = 33
NUM_ANIMALS = 32
NUM_SPIRITS = 10

# Point 4: stacking. existing stack (bottom->top) -> colours it may receive; anything else: nothing.
ALL_COLOURS = frozenset(range(6))
STACKING = {
    (): ALL_COLOURS,
    (GRAY,): frozenset((GRAY, RED)),
    (GRAY, GRAY): frozenset((GRAY,)),
    (BROWN,): frozenset((BROWN, GREEN, RED)),
    (BROWN, BROWN): frozenset((GREEN,)),
    (RED,): frozenset((RED,)),
}
NOTHING: frozenset[int] = frozenset()

# Point 3: the stack codes of card patterns. A stack matches the one code it has (or none).
STACK_CODES = {
    (BLUE,): "W", (YELLOW,): "F",
    (GREEN,): "T1", (BROWN, GREEN): "T2", (BROWN, BROWN, GREEN): "T3",
    (GRAY,): "M1", (GRAY, GRAY): "M2", (GRAY, GRAY, GRAY): "M3",
    (RED, RED): "B", (BROWN, RED): "B", (GRAY, RED): "B",
}

# Point 18, 19, 24.
TREE_POINTS = {1: 1, 2: 3, 3: 7}
MOUNTAIN_POINTS = {1: 1, 2: 3, 3: 7}
FIELD_POINTS = 5
BUILDING_POINTS = 5
RIVER_POINTS = (0, 0, 2, 5, 8, 11, 15)  # by number of tokens 0..6; +4 per token beyond 6
ISLAND_POINTS = 5
SUN_THRESHOLDS = (40, 70, 90, 110, 130, 140, 150, 160)

SIDE_COLUMNS = {"A": (5, 4, 5, 4, 5), "B": (4, 3, 4, 3, 4, 3, 4)}

DEFAULT_PARAMETERS = {"players": 2, "side": "A", "spirits": False, "chance": "implicit"}



# ----------------------------------------------------------------------------------- card data

def _load_cards():
    """cards.json, shipped in meeple/data/harmonies (found relative to the meeple package)."""
    path = pathlib.Path(__file__).resolve().parent.parent / "data" / "harmonies" / "cards.json"
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    cards = {}
    for raw in data["animal_cards"] + data["spirit_cards"]:
        spirit = raw["id"] >= FIRST_SPIRIT
        cards[raw["id"]] = {
            "id": raw["id"],
            "name": ("spirit-" if spirit else "") + raw["name"],  # point 13
            "spirit": spirit,
            "points": raw.get("points"),
            "cubes": 1 if spirit else len(raw["points"]),
            "pattern": [(c["q"], c["r"], c["stack"], bool(c.get("cube"))) for c in raw["pattern"]],
            "scoring": raw.get("scoring"),
            "family": raw.get("family"),
        }
    return cards


CARDS = _load_cards()
CARD_BY_NAME = {card["name"]: card_id for card_id, card in CARDS.items()}
ANIMAL_IDS = tuple(range(1, NUM_ANIMALS + 1))
SPIRIT_IDS = tuple(range(FIRST_SPIRIT, FIRST_SPIRIT + NUM_SPIRITS))


# ----------------------------------------------------------------------------------- geometry

class Geometry:
    """One side of the personal board (point 2, 3): cells, neighbours, card placements."""

    def __init__(self, side):
        self.side = side
        self.cells = [(c, r) for c, height in enumerate(SIDE_COLUMNS[side]) for r in range(height)]
        self.num_cells = len(self.cells)
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.names = [f"{c},{r}" for c, r in self.cells]
        self.index_of_name = {name: i for i, name in enumerate(self.names)}
        self.neighbours = []
        for c, r in self.cells:
            if c % 2 == 0:
                around = ((c, r - 1), (c + 1, r - 1), (c + 1, r), (c, r + 1), (c - 1, r), (c - 1, r - 1))
            else:
                around = ((c, r - 1), (c + 1, r), (c + 1, r + 1), (c, r + 1), (c - 1, r + 1), (c - 1, r))
            self.neighbours.append(tuple(self.index[n] for n in around if n in self.index))
        # placements[card_id] = (cube code, per cube cell x: tuple of the pattern's other cells
        # as tuples of (cell, code), one per distinct rotation that fits on the board).
        self.placements = {card_id: self._placements(card["pattern"]) for card_id, card in CARDS.items()}

    def cell_at_axial(self, q, r):
        """Cell index of axial (q, r), or None if off the board (point 3)."""
        row = r + (q - (q & 1)) // 2
        return self.index.get((q, row))

    def _placements(self, pattern):
        cube_code = next(code for _, _, code, cube in pattern if cube)
        others = [(q, r, code) for q, r, code, cube in pattern if not cube]
        per_cell = []
        for col, row in self.cells:
            q0, r0 = col, row - (col - (col & 1)) // 2
            found = []
            rotated = others
            for _ in range(6):
                cells = tuple((self.cell_at_axial(q0 + q, r0 + r), code) for q, r, code in rotated)
                if all(cell is not None for cell, _ in cells):
                    key = tuple(sorted(cells))
                    if key not in found:
                        found.append(key)
                rotated = [(-r, q + r, code) for q, r, code in rotated]  # 60 degrees clockwise
            per_cell.append(tuple(found))
        return cube_code, tuple(per_cell)


GEOMETRY = {side: Geometry(side) for side in SIDE_COLUMNS}


# ----------------------------------------------------------------------------------- scoring

def _groups(cells, neighbours):
    """Connected groups (lists of cell indices) of the set `cells`."""
    seen = set()
    groups = []
    for start in sorted(cells):
        if start in seen:
            continue
        seen.add(start)
        group, todo = [start], [start]
        while todo:
            x = todo.pop()
            for y in neighbours[x]:
                if y in cells and y not in seen:
                    seen.add(y)
                    group.append(y)
                    todo.append(y)
        groups.append(group)
    return groups


def _longest_shortest_path(group, neighbours):
    """Tokens on the longest shortest path inside `group` (graph diameter + 1)."""
    members = set(group)
    best = 0
    for start in group:
        distance = {start: 0}
        frontier = [start]
        while frontier:
            following = []
            for x in frontier:
                for y in neighbours[x]:
                    if y in members and y not in distance:
                        distance[y] = distance[x] + 1
                        following.append(y)
            frontier = following
        best = max(best, max(distance.values()) + 1)
    return best


def river_points(tokens):
    """Point 19, side A: points of a river of `tokens` tokens."""
    if tokens <= 6:
        return RIVER_POINTS[tokens]
    return RIVER_POINTS[6] + 4 * (tokens - 6)


def _is_building(stack):
    return len(stack) == 2 and stack[1] == RED and stack[0] in (RED, BROWN, GRAY)


def _is_mountain(stack):
    return len(stack) > 0 and all(c == GRAY for c in stack)


def _by_group_size(groups, rules):
    """Spirit scoring by group size: rules = [[min, max or None, points per group], ...]."""
    total = 0
    for group in groups:
        for low, high, points in rules:
            if len(group) >= low and (high is None or len(group) <= high):
                total += points
                break
    return total


def spirit_points(scoring, stacks, neighbours):
    """Point 20: what a spirit card with its cube placed scores (cards.json `scoring`)."""
    kind = scoring["kind"]
    if kind == "yellow_groups":
        cells = {x for x, s in enumerate(stacks) if s and s[-1] == YELLOW}
        return _by_group_size(_groups(cells, neighbours), scoring["by_group_size"])
    if kind == "building_groups":
        cells = {x for x, s in enumerate(stacks) if _is_building(s)}
        return _by_group_size(_groups(cells, neighbours), scoring["by_group_size"])
    if kind == "blue_groups":
        cells = {x for x, s in enumerate(stacks) if s and s[-1] == BLUE}
        return _by_group_size(_groups(cells, neighbours), scoring["by_group_size"])
    if kind == "trees":
        return sum(scoring["by_height"][str(len(s))] for s in stacks if s and s[-1] == GREEN)
    if kind == "mountains":
        mountains = [_is_mountain(s) for s in stacks]
        total = 0
        for x, s in enumerate(stacks):
            if mountains[x] and (scoring.get("isolated_count")
                                 or any(mountains[y] for y in neighbours[x])):
                total += scoring["by_height"][str(len(s))]
        return total
    if kind == "blue_tokens":
        return scoring["per_token"] * sum(1 for s in stacks if s and s[-1] == BLUE)
    raise ValueError(f"unknown spirit scoring kind {kind!r}")


def score_stacks(geometry, stacks, cards):
    """Points 18-21: the score breakdown of a board given as stacks by cell index.

    cards: iterable of (card id, cubes placed).
    """
    neighbours = geometry.neighbours
    trees = sum(TREE_POINTS[len(s)] for s in stacks if s and s[-1] == GREEN)
    mountains = [_is_mountain(s) for s in stacks]
    mountain_points = sum(MOUNTAIN_POINTS[len(s)] for x, s in enumerate(stacks)
                          if mountains[x] and any(mountains[y] for y in neighbours[x]))
    yellow = {x for x, s in enumerate(stacks) if s and s[-1] == YELLOW}
    fields = FIELD_POINTS * sum(1 for g in _groups(yellow, neighbours) if len(g) >= 2)
    buildings = 0
    for x, s in enumerate(stacks):
        if _is_building(s):
            tops = {stacks[y][-1] for y in neighbours[x] if stacks[y]}
            if len(tops) >= 3:
                buildings += BUILDING_POINTS
    blue = {x for x, s in enumerate(stacks) if s and s[-1] == BLUE}
    if geometry.side == "A":
        longest = max((_longest_shortest_path(g, neighbours) for g in _groups(blue, neighbours)),
                      default=0)
        water = river_points(longest)
    else:
        land = set(range(len(stacks))) - blue
        water = ISLAND_POINTS * len(_groups(land, neighbours))
    animals = spirit = cubes = 0
    for card_id, placed in cards:
        card = CARDS[card_id]
        if card["spirit"]:
            if placed:
                spirit += spirit_points(card["scoring"], stacks, neighbours)
        else:
            cubes += placed
            if placed:
                animals += card["points"][placed - 1]
    total = trees + mountain_points + fields + buildings + water + animals + spirit
    return {"trees": trees, "mountains": mountain_points, "fields": fields, "buildings": buildings,
            "water": water, "animals": animals, "spirit": spirit, "total": total, "cubes": cubes}


@functools.lru_cache(maxsize=4096)
def _board_score(side, stacks, cards):
    """score_stacks of a board given as tuples, remembered: the observation shows every player's
    score at every ply, and from one ply to the next at most one board changes."""
    return score_stacks(GEOMETRY[side], stacks, cards)


def _parse_stack(value, where):
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where} must be a list of colour names, got {value!r}")
    stack = []
    for name in value:
        if name not in COLOURS:
            raise ValueError(f"{where}: unknown colour {name!r} (colours: {', '.join(COLOURS)})")
        stack.append(COLOURS.index(name))
    return tuple(stack)


def score(board, side="A", cards=()):
    """Score of a final board in the format of bga_final_boards.json.

    board: {"col,row": [colour, ...] bottom to top} (missing cells are empty); side "A" or "B";
    cards: [{"id": card id, "cubes_placed": k}, ...]. Returns the breakdown of point 21.
    """
    if side not in GEOMETRY:
        raise ValueError(f"side must be 'A' or 'B', got {side!r}")
    geometry = GEOMETRY[side]
    stacks = [()] * geometry.num_cells
    for name, value in board.items():
        if name not in geometry.index_of_name:
            raise ValueError(f"{name!r} is not a cell of side {side}")
        stacks[geometry.index_of_name[name]] = _parse_stack(value, f"cell {name}")
    return score_stacks(geometry, stacks, [(c["id"], c["cubes_placed"]) for c in cards])


def suns(points, side, spirits, kept_spirit):
    """Point 24 (and D5, [R7]): suns of a solo game."""
    earned = sum(1 for threshold in SUN_THRESHOLDS if points >= threshold)
    earned += 1 if side == "A" else 0  # D5: the bonuses count below 40 points too
    if not spirits:
        earned += 2
    elif kept_spirit is not None and CARDS[kept_spirit]["family"] == "groups":  # [R7]
        earned += 1
    return earned


# ----------------------------------------------------------------------------------- parameters

def _check_parameters(params):
    unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for harmonies; "
                         f"valid parameters: {', '.join(DEFAULT_PARAMETERS)}")
    values = dict(DEFAULT_PARAMETERS, **params)
    players = _as_int(values["players"])
    if players is None or not 1 <= players <= 4:
        raise ValueError(f"parameter players must be an integer in 1..4, got {values['players']!r}")
    values["players"] = players
    if not (isinstance(values["side"], str) and values["side"] in ("A", "B")):
        raise ValueError(f"parameter side must be one of 'A', 'B', got {values['side']!r}")
    if not isinstance(values["spirits"], bool):
        raise ValueError(f"parameter spirits must be a bool (True or False), got {values['spirits']!r}")
    if not (isinstance(values["chance"], str) and values["chance"] in ("implicit", "explicit")):
        raise ValueError(f"parameter chance must be one of 'implicit', 'explicit', "
                         f"got {values['chance']!r}")
    return values


class _Player:
    """One player's board and cards."""

    __slots__ = ("codes", "cubes", "finished", "kept_spirit", "spirit_options", "stacks", "turns",
                 "unfinished")

    def __init__(self, num_cells):
        self.stacks = [()] * num_cells          # stack per cell, bottom -> top
        self.codes = [None] * num_cells         # STACK_CODES of each stack (None: no code)
        self.cubes = [False] * num_cells
        self.unfinished = []                    # [(card id, cubes placed)] in slot order (point 13)
        self.finished = []                      # finished card ids, ascending
        self.spirit_options = []                # dealt spirits not yet chosen (point 9)
        self.turns = 0
        self.kept_spirit = None                 # the kept spirit's id (solo suns, point 24)

    def copy(self):
        other = _Player.__new__(_Player)
        other.stacks = list(self.stacks)
        other.codes = list(self.codes)
        other.cubes = list(self.cubes)
        other.unfinished = list(self.unfinished)
        other.finished = list(self.finished)
        other.spirit_options = list(self.spirit_options)
        other.turns = self.turns
        other.kept_spirit = self.kept_spirit
        return other

    def cards(self):
        """(id, cubes placed): unfinished in slot order, then finished by id."""
        return self.unfinished + [(card_id, CARDS[card_id]["cubes"]) for card_id in self.finished]

    def empty_cells(self):
        return sum(1 for s in self.stacks if not s)


# ----------------------------------------------------------------------------------- game

class HarmoniesGame:
    """The game and its parameters (docs/rules/harmonies.md, "Parameters")."""

    name = "harmonies"
    # Parameters whose values are text; a document holds any other one as its value (_document).
    _TEXT_PARAMETERS = ("side", "chance")

    def __init__(self, **params):
        self._params = _check_parameters(params)
        p = self._params
        self.players = p["players"]
        self.side = p["side"]
        self.spirits = p["spirits"]
        self.explicit = p["chance"] == "explicit"
        self.solo = self.players == 1
        self.geometry = GEOMETRY[self.side]
        self.num_spaces = 3 if self.solo else 5
        self.num_slots = 3 if self.solo else 5

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"HarmoniesGame({args})"

    def __eq__(self, other):
        return isinstance(other, HarmoniesGame) and other._params == self._params

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __reduce__(self):  # pickles by parameters (the precomputed geometry is shared)
        return (_game_with_parameters, (self._params,))

    def parameters(self):
        return dict(self._params)

    def num_players(self):
        return self.players

    def num_distinct_actions(self):
        return NUM_DISTINCT_ACTIONS

    def max_chance_outcomes(self):
        return MAX_CHANCE_OUTCOMES

    def observation_shape(self):
        p = self.players
        return (p * 612 + 256 + p,)

    def max_game_length(self):
        return MAX_GAME_LENGTH

    def min_utility(self):
        """Point 23: wins minus losses over P - 1, from -1; solo (point 24): the suns of 0 points."""
        return float(suns(0, self.side, self.spirits, None)) if self.solo else -1.0

    def max_utility(self):
        """1; solo: the suns of every threshold, with a "groups" spirit kept if there are spirits."""
        if not self.solo:
            return 1.0
        groups = next((i for i in SPIRIT_IDS if CARDS[i]["family"] == "groups"), None) if self.spirits else None
        return float(suns(SUN_THRESHOLDS[-1], self.side, self.spirits, groups))

    def utility_sum(self):
        """Zero-sum with 2-4 players (each pair's win and loss cancel); solo: None."""
        return None if self.solo else 0.0

    def new_initial_state(self, seed=None):
        """Points 5-8: the setup draws (all done at once with implicit chance)."""
        value = _document.check_seed(seed)
        state = HarmoniesState(self)
        # Explicit chance draws nothing from the rng: 0, so that equal positions are equal states.
        state._rng = 0 if self.explicit else value
        state._pending_spaces = list(range(self.num_spaces))
        state._pending_slots = list(range(self.num_slots))
        if self.spirits:
            state._pending_spirits = [p for p in range(self.players) for _ in range(2)]
        state._settle()
        return state

    # ------------------------------------------------------------------- state_from_dict

    def from_json(self, text):
        """The state in a JSON document of `state.to_json()` (the engine's documents too)."""
        return _document.from_json(self, text)

    def state_from_dict(self, d):
        """The state described by `d` (the format of HarmoniesState.to_dict), validated."""
        return _state_from_dict(self, d)


def _game_with_parameters(params):
    return HarmoniesGame(**params)


# ----------------------------------------------------------------------------------- state

class HarmoniesState:
    """A position. Fields mirror the state dict of docs/rules/harmonies.md."""

    def __init__(self, game):
        self._game = game
        cells = game.geometry.num_cells
        self._players = [_Player(cells) for _ in range(game.players)]
        self._central = [[] for _ in range(game.num_spaces)]  # colours, in colour-index order
        self._display = [None] * game.num_slots
        self._deck = list(ANIMAL_IDS)                           # ascending
        self._spirit_deck = list(SPIRIT_IDS)                    # ascending; [R5]
        self._pouch = list(POUCH)
        self._turn_player = 0
        self._hand = []                                         # colours, in colour-index order
        self._took_tokens = False
        self._took_card = False
        self._end_triggered = False
        self._pending_spaces = []
        self._pending_slots = []
        self._pending_spirits = []
        self._player = 0                                        # current_player()
        self._moves = 0
        self._rng = 0
        self._legal = None                                      # cache of legal_actions()

    # ----------------------------------------------------------------- protocol: queries

    @property
    def game(self):
        """The HarmoniesGame this state belongs to."""
        return self._game

    def get_game(self):
        return self._game

    def current_player(self):
        return self._player

    def is_terminal(self):
        return self._player == TERMINAL

    def is_chance_node(self):
        return self._player == CHANCE

    def move_number(self):
        return self._moves

    def _chance_kind(self):
        """'token', 'card' (animal deck) or 'spirit' for the pending draw (the first pending work)."""
        if self._pending_spaces:
            return "token"
        if self._pending_slots:
            return "card"
        return "spirit"

    def chance_outcomes(self):
        if self._player != CHANCE:
            return []
        kind = self._chance_kind()
        if kind == "token":
            total = sum(self._pouch)
            return [(c, n / total) for c, n in enumerate(self._pouch) if n]
        deck = self._deck if kind == "card" else self._spirit_deck
        return [(card_id, 1.0 / len(deck)) for card_id in deck]

    def legal_actions(self):
        """Sorted list of the legal actions (at a chance node: the outcomes; empty once over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def legal_actions_mask(self):
        size = MAX_CHANCE_OUTCOMES if self._player == CHANCE else NUM_DISTINCT_ACTIONS
        mask = [0] * size
        for action in self.legal_actions():
            mask[action] = 1
        return mask

    def _compute_legal(self):
        if self._player == TERMINAL:
            return []
        if self._player == CHANCE:
            return [outcome for outcome, _ in self.chance_outcomes()]
        game = self._game
        player = self._players[self._turn_player]
        if player.spirit_options:  # D1: choosing the spirit comes first
            return [SPIRIT + i for i in range(len(player.spirit_options))]
        actions = []
        if not self._took_tokens:  # point 10
            actions += [TAKE + s for s, space in enumerate(self._central) if space]
        cubes = player.cubes
        for colour in sorted(set(self._hand)):  # point 11
            base = PLACE + MAX_CELLS * colour
            actions += [base + x for x, stack in enumerate(player.stacks)
                        if colour in STACKING.get(stack, NOTHING) and not cubes[x]]
        if not self._took_card and len(player.unfinished) < MAX_UNFINISHED:  # point 12
            actions += [CARD + d for d, card_id in enumerate(self._display) if card_id is not None]
        if player.unfinished:  # point 13
            cells_by_code = {}
            for x, code in enumerate(player.codes):
                if code is not None and not player.cubes[x]:
                    cells_by_code.setdefault(code, []).append(x)
            for j, (card_id, _) in enumerate(player.unfinished):
                actions += [CUBE + MAX_CELLS * j + x
                            for x in self._cube_cells(player, card_id, cells_by_code)]
        if self._took_tokens and not self._hand:  # points 14, 15
            if game.solo and not self._took_card:
                actions += [DISCARD + d for d, card_id in enumerate(self._display)
                            if card_id is not None]
            actions.append(END)
        actions.sort()
        return actions

    def _cube_cells(self, player, card_id, cells_by_code):
        """Point 13: the cells where a cube of `card_id` may go now (cells_by_code: the cells
        without a cube, by the code of their stack)."""
        cube_code, per_cell = self._game.geometry.placements[card_id]
        codes = player.codes
        cells = []
        for x in cells_by_code.get(cube_code, ()):
            for others in per_cell[x]:
                for y, code in others:
                    if codes[y] != code:
                        break
                else:
                    cells.append(x)
                    break
        return cells

    def score_breakdown(self, player):
        """Point 21: trees, mountains, fields, buildings, water, animals, spirit, total, cubes."""
        p = self._check_player(player)
        state = self._players[p]
        return dict(_board_score(self._game.side, tuple(state.stacks), tuple(state.cards())))

    def board(self, player):
        """The player's board in the format of bga_final_boards.json."""
        p = self._check_player(player)
        state = self._players[p]
        geometry = self._game.geometry
        return {
            "board": {geometry.names[x]: [COLOURS[c] for c in s] for x, s in enumerate(state.stacks)},
            "cubes": [geometry.names[x] for x, cube in enumerate(state.cubes) if cube],
            "cards": [{"id": card_id, "cubes_placed": k} for card_id, k in state.cards()],
        }

    def _check_player(self, player):
        p = _as_int(player)
        if p is None:
            raise ValueError(f"player must be an integer in 0..{self._game.players - 1}, got {player!r}")
        if not 0 <= p < self._game.players:
            raise ValueError(f"player must be in 0..{self._game.players - 1}, got {player!r}")
        return p

    def returns(self):
        """Point 23 (2-4 players: wins minus losses over P-1) and point 24 (solo: suns)."""
        game = self._game
        if self._player != TERMINAL:
            return [0.0] * game.players
        keys = []
        for p in range(game.players):
            breakdown = self.score_breakdown(p)
            keys.append((breakdown["total"], breakdown["cubes"]))
        if game.solo:
            return [float(suns(keys[0][0], game.side, game.spirits, self._players[0].kept_spirit))]
        result = []
        for p in range(game.players):
            beats = sum(1 for q in range(game.players) if keys[p] > keys[q])
            beaten = sum(1 for q in range(game.players) if keys[q] > keys[p])
            result.append((beats - beaten) / (game.players - 1))
        return result

    def observation_tensor(self, player=None):
        """Observation (see "Observation"; [R8]) from `player`'s view."""
        game = self._game
        if player is None:
            player = max(self._player, 0)  # player 0 at a chance node or at the end
        else:
            player = self._check_player(player)
        values = []
        order = [(player + i) % game.players for i in range(game.players)]
        for p in order:
            state = self._players[p]
            board = [0.0] * (19 * MAX_CELLS)  # 19 values per cell
            for x, stack in enumerate(state.stacks):
                for height, colour in enumerate(stack):
                    board[19 * x + 6 * height + colour] = 1.0
                if state.cubes[x]:
                    board[19 * x + 18] = 1.0
            values += board
            cards = [0.0] * 126
            for card_id, placed in state.unfinished:
                cards[3 * (card_id - 1)] = 1.0
                cards[3 * (card_id - 1) + 2] = float(placed)
            for card_id in state.finished:
                cards[3 * (card_id - 1) + 1] = 1.0
                cards[3 * (card_id - 1) + 2] = float(CARDS[card_id]["cubes"])
            values += cards
            options = [0.0] * NUM_SPIRITS
            for card_id in state.spirit_options:
                options[card_id - FIRST_SPIRIT] = 1.0
            values += options
            values.append(self.score_breakdown(p)["total"] / 100)
        for s in range(MAX_SPACES):
            counts = [0.0] * 6
            if s < len(self._central):
                for colour in self._central[s]:
                    counts[colour] += 1.0
            values += counts
        for d in range(MAX_SPACES):
            slot = [0.0] * 42
            if d < len(self._display) and self._display[d] is not None:
                slot[self._display[d] - 1] = 1.0
            values += slot
        values += [float(n) for n in self._pouch]
        values.append(float(len(self._deck)))
        hand = [0.0] * 6
        for colour in self._hand:
            hand[colour] += 1.0
        values += hand
        values += [float(self._took_tokens), float(self._took_card), float(self._end_triggered)]
        values += [float(self._players[p].turns) for p in order]
        return values

    # ----------------------------------------------------------------- action strings

    def _card_name_of_slot(self, j):
        unfinished = self._players[self._turn_player].unfinished
        return CARDS[unfinished[j][0]]["name"] if j < len(unfinished) else None

    def action_to_string(self, action):
        a = _action_int(action)
        if self._player == CHANCE:
            if not 0 <= a < MAX_CHANCE_OUTCOMES:
                raise ValueError(f"chance outcome must be an integer in 0..{MAX_CHANCE_OUTCOMES - 1}, "
                                 f"got {action!r}")
            if self._chance_kind() == "token":
                return f"draw {COLOURS[a]}" if a < 6 else f"outcome {a} (not a colour)"
            if 1 <= a <= NUM_ANIMALS + NUM_SPIRITS:
                return f"draw card {a} ({CARDS[a]['name']})"  # [R6]
            return f"outcome {a} (not a card)"
        if not 0 <= a < NUM_DISTINCT_ACTIONS:
            raise ValueError(f"action must be an integer in 0..{NUM_DISTINCT_ACTIONS - 1}, got {action!r}")
        names = self._game.geometry.names

        def cell(x):
            return names[x] if x < len(names) else f"#{x} (off the board)"  # [R9]

        if a < PLACE:
            return f"take {a - TAKE}"
        if a < CARD:
            colour, x = divmod(a - PLACE, MAX_CELLS)
            return f"place {COLOURS[colour]} {cell(x)}"
        if a < CUBE:
            return f"card {a - CARD}"
        if a < SPIRIT:
            j, x = divmod(a - CUBE, MAX_CELLS)
            name = self._card_name_of_slot(j)
            return f"cube {name if name else f'#{j} (no such card)'} {cell(x)}"  # [R9]
        if a < DISCARD:
            return f"spirit {a - SPIRIT}"
        if a < END:
            return f"discard {a - DISCARD}"
        return "end"

    def string_to_action(self, text):
        """The action named `text` (as action_to_string writes it; case and extra spaces ignored)."""
        if not isinstance(text, str):
            raise TypeError(f"action text must be a str, got {type(text).__name__}")
        words = text.lower().split()
        problem = ValueError(f"not a harmonies action here: {str.__repr__(text)}")
        if self._player == CHANCE:
            kind = self._chance_kind()
            if kind == "token":
                if len(words) == 2 and words[0] == "draw" and words[1] in COLOURS:
                    return COLOURS.index(words[1])
                raise problem
            m = re.fullmatch(r"draw card ([0-9]{1,2})(?: \(([a-z_-]+)\))?", " ".join(words))
            if m is None or not 1 <= int(m.group(1)) <= NUM_ANIMALS + NUM_SPIRITS:
                raise problem
            card_id = int(m.group(1))
            if m.group(2) is not None and m.group(2) != CARDS[card_id]["name"]:
                raise problem
            return card_id
        geometry = self._game.geometry
        if words == ["end"]:
            return END
        if len(words) == 2 and words[1] in ("0", "1", "2", "3", "4"):
            number = int(words[1])
            if words[0] == "take":
                return TAKE + number
            if words[0] == "card":
                return CARD + number
            if words[0] == "discard":
                return DISCARD + number
            if words[0] == "spirit" and number < 2:
                return SPIRIT + number
            raise problem
        if len(words) == 3 and words[2] in geometry.index_of_name:
            x = geometry.index_of_name[words[2]]
            if words[0] == "place" and words[1] in COLOURS:
                return PLACE + MAX_CELLS * COLOURS.index(words[1]) + x
            if words[0] == "cube":
                for j, (card_id, _) in enumerate(self._players[self._turn_player].unfinished):
                    if CARDS[card_id]["name"] == words[1]:
                        return CUBE + MAX_CELLS * j + x
        raise problem

    # ----------------------------------------------------------------- protocol: playing

    def apply_action(self, action):
        a = _action_int(action)
        legal = self.legal_actions()
        if a not in legal:
            names = ", ".join(f"{b} ({self.action_to_string(b)})" for b in legal)
            raise ValueError(f"illegal action {action!r} for harmonies; legal actions: [{names}]")
        self._legal = None
        self._moves += 1
        if self._player == CHANCE:
            self._apply_chance(a)
            self._settle()
            return
        player = self._players[self._turn_player]
        if a < PLACE:  # point 10: take a central space
            self._hand = self._central[a]
            self._central[a] = []
            self._took_tokens = True
        elif a < CARD:  # point 11: place a token
            colour, x = divmod(a - PLACE, MAX_CELLS)
            self._hand.remove(colour)
            stack = player.stacks[x] + (colour,)
            player.stacks[x] = stack
            player.codes[x] = STACK_CODES.get(stack)
        elif a < CUBE:  # point 12: take a card
            d = a - CARD
            player.unfinished.append((self._display[d], 0))
            self._display[d] = None
            self._took_card = True
        elif a < SPIRIT:  # point 13: place a cube
            j, x = divmod(a - CUBE, MAX_CELLS)
            card_id, placed = player.unfinished[j]
            player.cubes[x] = True
            placed += 1
            if placed == CARDS[card_id]["cubes"]:
                del player.unfinished[j]
                player.finished.append(card_id)
                player.finished.sort()
            else:
                player.unfinished[j] = (card_id, placed)
        elif a < DISCARD:  # point 9: keep a dealt spirit
            kept = player.spirit_options[a - SPIRIT]
            player.unfinished.insert(0, (kept, 0))
            player.kept_spirit = kept
            player.spirit_options = []
        else:  # points 14-17: end (or solo discard and end) the turn
            if a < END:
                self._display[a - DISCARD] = None  # point 15 (D2)
            self._end_turn()

    def _end_turn(self):
        """Point 17 (a)-(e); (f) is done by _settle once the refills are drawn."""
        game = self._game
        ender = self._turn_player
        last = ender == game.players - 1
        player = self._players[ender]
        player.turns += 1  # [R1]
        if game.solo:  # (a) the 6 untaken tokens leave the game
            self._central = [[] for _ in range(game.num_spaces)]
        if player.empty_cells() <= 2:  # (b)
            self._end_triggered = True
        if self._end_triggered and last:  # (c) D6
            self._game_over()
            return
        # (d) [R4]: which refills the pouch allows is known now; the first one it cannot make is
        # skipped (D3) and triggers the end, and for the last player ends the game once the
        # refills before it are drawn (D4).
        empty = [s for s, space in enumerate(self._central) if not space]
        wanted = empty if game.solo else empty[:1]  # multiplayer: the taken space
        fillable = min(len(wanted), sum(self._pouch) // 3)
        self._pending_spaces = wanted[:fillable]
        if fillable < len(wanted):
            self._end_triggered = True
            if last and not self._pending_spaces:
                self._game_over()
                return
        # (e) [R3], unless the game ends after the refills above.
        if not (self._end_triggered and last):
            empty_slots = [d for d, card_id in enumerate(self._display) if card_id is None]
            self._pending_slots = empty_slots[:len(self._deck)]
        self._settle()

    def _game_over(self):
        self._pending_spaces, self._pending_slots, self._pending_spirits = [], [], []
        self._player = TERMINAL  # [R2]: nothing else changes

    def _settle(self):
        """Does the pending chance work (drawing it with implicit chance, else stopping at the first
        chance node); then, after an `end`, ends the game (D4) or starts the next turn (17f)."""
        game = self._game
        if self._pending_spaces or self._pending_slots or self._pending_spirits:
            if game.explicit:
                self._player = CHANCE
                return
            while self._pending_spaces or self._pending_slots or self._pending_spirits:
                self._apply_chance(self._random_outcome())
        if self._took_tokens:  # the pending work followed an `end`
            if self._end_triggered and self._turn_player == game.players - 1:  # D4 (solo)
                self._game_over()
                return
            self._turn_player = (self._turn_player + 1) % game.players  # (f), [R2]
            self._hand = []
            self._took_tokens = False
            self._took_card = False
        self._player = self._turn_player

    def _random_outcome(self):
        """Implicit chance: an outcome drawn with random.Random seeded by the state's 64-bit rng,
        which then moves on to the generator's next 64 bits."""
        generator = random.Random(self._rng)
        kind = self._chance_kind()
        if kind == "token":
            u = generator.randrange(sum(self._pouch))
            for outcome, count in enumerate(self._pouch):
                if u < count:
                    break
                u -= count
        else:
            deck = self._deck if kind == "card" else self._spirit_deck
            outcome = deck[generator.randrange(len(deck))]
        self._rng = generator.getrandbits(64)
        return outcome

    def _apply_chance(self, outcome):
        kind = self._chance_kind()
        if kind == "token":
            space = self._central[self._pending_spaces[0]]
            self._pouch[outcome] -= 1
            space.append(outcome)
            space.sort()
            if len(space) == 3:
                self._pending_spaces.pop(0)
        elif kind == "card":
            self._display[self._pending_slots.pop(0)] = outcome
            self._deck.remove(outcome)
        else:
            self._players[self._pending_spirits.pop(0)].spirit_options.append(outcome)
            self._spirit_deck.remove(outcome)

    # ----------------------------------------------------------------- copies, dicts

    def reseed(self, seed):
        """Implicit chance: the draws still to come follow from `seed` (it becomes the rng, as in
        new_initial_state); the position is unchanged. Explicit chance draws nothing from the rng."""
        value = _document.check_reseed(seed)
        if not self._game.explicit:
            self._rng = value

    def clone(self):
        other = HarmoniesState.__new__(HarmoniesState)
        other.__dict__.update(self.__dict__)
        other._players = [p.copy() for p in self._players]
        other._central = [list(space) for space in self._central]
        other._display = list(self._display)
        other._deck = list(self._deck)
        other._spirit_deck = list(self._spirit_deck)
        other._pouch = list(self._pouch)
        other._hand = list(self._hand)
        other._pending_spaces = list(self._pending_spaces)
        other._pending_slots = list(self._pending_slots)
        other._pending_spirits = list(self._pending_spirits)
        return other

    def child(self, action):
        """A new state: this one after `action`; this one is unchanged."""
        other = self.clone()
        other.apply_action(action)
        return other

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def __eq__(self, other):
        if not isinstance(other, HarmoniesState):
            return False
        return self._game == other._game and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def transposition_key(self):
        """A 64-bit int that equal positions share (for transposition tables); not the engine's."""
        return _document.transposition_key(self)

    def to_json(self, indent=None):
        """The state as the engine's versioned JSON document (docs/serialization.md)."""
        return _document.to_json(self, indent)

    def to_document(self):
        """The document of `to_json` as plain data."""
        return _document.to_document(self)

    def to_dict(self):
        """The state dict of docs/rules/harmonies.md ("State dict")."""
        names = self._game.geometry.names
        players = []
        for p in self._players:
            players.append({
                "board": {names[x]: [COLOURS[c] for c in s] for x, s in enumerate(p.stacks)},
                "cubes": [names[x] for x, cube in enumerate(p.cubes) if cube],
                "cards": [{"id": card_id, "cubes_placed": k} for card_id, k in p.cards()],
                "spirit_options": list(p.spirit_options),
                "turns": p.turns,
            })
        return {
            "players": players,
            "central": [[COLOURS[c] for c in space] for space in self._central],
            "display": list(self._display),
            "deck": list(self._deck),
            "spirit_deck": list(self._spirit_deck),
            "pouch": {COLOURS[c]: n for c, n in enumerate(self._pouch)},
            "turn_player": self._turn_player,
            "hand": [COLOURS[c] for c in self._hand],
            "took_tokens": self._took_tokens,
            "took_card": self._took_card,
            "end_triggered": self._end_triggered,
            "pending": {"spaces": list(self._pending_spaces), "slots": list(self._pending_slots),
                        "spirits": list(self._pending_spirits)},
            "current_player": self._player,
            "move_number": self._moves,
            "rng": f"0x{self._rng:016x}",
        }

    # ----------------------------------------------------------------- display

    def __str__(self):
        game = self._game
        geometry = game.geometry
        lines = []
        width = 6
        for p, player in enumerate(self._players):
            total = self.score_breakdown(p)["total"]
            marker = " (to move)" if p == self._player else ""
            lines.append(f"Player {p}{marker}: {player.turns} turns, {total} points")
            columns = len(SIDE_COLUMNS[game.side])
            rows = max(SIDE_COLUMNS[game.side])
            for half in range(2 * rows):
                text = ""
                for c in range(columns):
                    r, rest = divmod(half - (c % 2), 2)
                    x = geometry.index.get((c, r)) if half >= c % 2 and rest == 0 else None
                    if x is None:
                        text += " " * width
                        continue
                    stack = "".join(COLOUR_LETTERS[colour] for colour in player.stacks[x]) or "."
                    text += (stack + ("*" if player.cubes[x] else "")).center(width)
                if text.strip():
                    lines.append("  " + text.rstrip())
            cards = [f"{CARDS[i]['name']} {k}/{CARDS[i]['cubes']}" for i, k in player.cards()]
            lines.append("  cards: " + (", ".join(cards) if cards else "none"))
            if player.spirit_options:
                lines.append("  spirit options: "
                             + ", ".join(CARDS[i]["name"] for i in player.spirit_options))
        central = " | ".join("".join(COLOUR_LETTERS[c] for c in space) or "-" for space in self._central)
        lines.append(f"central: {central}")
        display = ", ".join(CARDS[i]["name"] if i is not None else "-" for i in self._display)
        lines.append(f"display: {display}   deck: {len(self._deck)}   pouch: "
                     + " ".join(f"{COLOUR_LETTERS[c]}{n}" for c, n in enumerate(self._pouch)))
        if self._player == TERMINAL:
            lines.append(f"move {self._moves}, game over, returns {self.returns()}")
        elif self._player == CHANCE:
            lines.append(f"move {self._moves}, chance ({self._chance_kind()} draw)")
        else:
            hand = "".join(COLOUR_LETTERS[c] for c in self._hand) or "-"
            lines.append(f"move {self._moves}, player {self._player} to move, hand {hand}"
                         + (", end triggered" if self._end_triggered else ""))
        return "\n".join(lines)

    def __repr__(self):
        return f"<HarmoniesState harmonies move {self._moves}, current player {self._player}>"


# ----------------------------------------------------------------------------------- state_from_dict

_STATE_KEYS = ("players", "central", "display", "deck", "spirit_deck", "pouch", "turn_player", "hand",
               "took_tokens", "took_card", "end_triggered", "pending", "current_player",
               "move_number", "rng")
_PLAYER_KEYS = ("board", "cubes", "cards", "spirit_options", "turns")


def _state_from_dict(game, d):
    """HarmoniesGame.state_from_dict: parses `d` and checks it is a position the game can reach
    (as far as it can be told from the dict); ValueError naming the first problem."""

    def fail(problem):
        raise ValueError(f"invalid harmonies state: {problem}")

    def integer(value, what, low=None, high=None):
        v = _document_int(value)
        if v is None or (low is not None and v < low) or (high is not None and v > high):
            bounds = f" in {low}..{high}" if high is not None else (f" >= {low}" if low is not None else "")
            fail(f"{what} must be an integer{bounds}, got {value!r}")
        return v

    def flag(value, what):
        if not _is_bool(value):  # numpy's too, as integers may be numpy's
            fail(f"{what} must be a bool, got {value!r}")
        return bool(value)

    def listing(value, what):
        if not isinstance(value, (list, tuple)):
            fail(f"{what} must be a list, got {value!r}")
        return list(value)

    def colours(value, what, max_len):
        names = listing(value, what)
        if any(not isinstance(n, str) or n not in COLOURS for n in names):
            fail(f"{what} must list colour names ({', '.join(COLOURS)}), got {value!r}")
        result = [COLOURS.index(n) for n in names]
        if result != sorted(result):
            fail(f"{what} must list its colours in colour-index order, got {value!r}")
        if len(result) > max_len:
            fail(f"{what} holds {len(result)} tokens, at most {max_len}")
        return result

    def ascending_ids(value, what, allowed):
        ids = [integer(v, f"{what} entry") for v in listing(value, what)]
        if ids != sorted(set(ids)) or any(i not in allowed for i in ids):
            fail(f"{what} must list distinct ids of {min(allowed)}..{max(allowed)} in ascending "
                 f"order, got {value!r}")
        return ids

    if not isinstance(d, dict):
        fail(f"expected a dict, got {type(d).__name__}")
    if set(d) != set(_STATE_KEYS):
        fail(f"keys must be exactly {sorted(_STATE_KEYS)}, got {sorted(map(str, d))}")
    geometry = game.geometry
    num_players = game.players
    state = HarmoniesState(game)

    # -- pending work (needed to check the players' spirit options)
    pending = d["pending"]
    if not isinstance(pending, dict) or set(pending) != {"spaces", "slots", "spirits"}:
        fail(f"pending must be a dict with keys 'spaces', 'slots', 'spirits', got {pending!r}")
    pending_spaces = [integer(v, "pending space", 0, game.num_spaces - 1)
                      for v in listing(pending["spaces"], "pending.spaces")]
    pending_slots = [integer(v, "pending slot", 0, game.num_slots - 1)
                     for v in listing(pending["slots"], "pending.slots")]
    pending_spirits = [integer(v, "pending spirit deal", 0, num_players - 1)
                       for v in listing(pending["spirits"], "pending.spirits")]
    if pending_spaces != sorted(set(pending_spaces)) or pending_slots != sorted(set(pending_slots)):
        fail("pending spaces and slots must be distinct and ascending")
    full_deal = [p for p in range(num_players) for _ in range(2)] if game.spirits else []
    if pending_spirits and pending_spirits != full_deal[len(full_deal) - len(pending_spirits):]:
        fail(f"pending.spirits must be the end of the deal order {full_deal}, got {pending_spirits}")
    has_pending = bool(pending_spaces or pending_slots or pending_spirits)

    # -- players
    players = listing(d["players"], "players")
    if len(players) != num_players:
        fail(f"players must list {num_players} players, got {len(players)}")
    animals_held, spirits_held, spirit_options_seen = [], [], []
    for p, raw in enumerate(players):
        where = f"players[{p}]"
        if not isinstance(raw, dict) or set(raw) != set(_PLAYER_KEYS):
            fail(f"{where} must be a dict with keys {list(_PLAYER_KEYS)}")
        player = state._players[p]
        board = raw["board"]
        if not isinstance(board, dict) or set(board) != set(geometry.names):
            fail(f"{where}.board must have exactly the {geometry.num_cells} cells of side {game.side}")
        for x, name in enumerate(geometry.names):
            try:
                stack = _parse_stack(board[name], f"{where}.board[{name!r}]")
            except ValueError as exc:
                fail(str(exc))
            for height, colour in enumerate(stack):
                if colour not in STACKING.get(stack[:height], NOTHING):
                    fail(f"{where}.board[{name!r}] = {board[name]!r} is not a stack the rules allow")
            player.stacks[x] = stack
            player.codes[x] = STACK_CODES.get(stack)
        cube_names = listing(raw["cubes"], f"{where}.cubes")
        for name in cube_names:
            if not isinstance(name, str) or name not in geometry.index_of_name:
                fail(f"{where}.cubes: {name!r} is not a cell of side {game.side}")
            x = geometry.index_of_name[name]
            if player.cubes[x]:
                fail(f"{where}.cubes: two cubes on {name}")
            if not player.stacks[x]:
                fail(f"{where}.cubes: a cube on the empty cell {name}")
            player.cubes[x] = True
        cards = listing(raw["cards"], f"{where}.cards")
        placed_total = 0
        seen_finished = False
        for i, card in enumerate(cards):
            if not isinstance(card, dict) or set(card) != {"id", "cubes_placed"}:
                fail(f"{where}.cards[{i}] must be a dict with keys 'id', 'cubes_placed'")
            card_id = integer(card["id"], f"{where}.cards[{i}].id", 1, NUM_ANIMALS + NUM_SPIRITS)
            if card_id >= FIRST_SPIRIT and not game.spirits:
                fail(f"{where} holds the spirit {card_id} but the spirits option is off")
            cubes = CARDS[card_id]["cubes"]
            placed = integer(card["cubes_placed"], f"{where}.cards[{i}].cubes_placed", 0, cubes)
            placed_total += placed
            if placed < cubes:
                if seen_finished:
                    fail(f"{where}.cards: unfinished cards must come before finished ones")
                if card_id >= FIRST_SPIRIT and player.unfinished:
                    fail(f"{where}.cards: an unfinished spirit must be the first card")
                player.unfinished.append((card_id, placed))
            else:
                if seen_finished and card_id < player.finished[-1]:
                    fail(f"{where}.cards: finished cards must be in ascending id order")
                seen_finished = True
                player.finished.append(card_id)
            if card_id >= FIRST_SPIRIT:
                if player.kept_spirit is not None:
                    fail(f"{where} holds two spirits")
                player.kept_spirit = card_id
                spirits_held.append(card_id)
            else:
                animals_held.append(card_id)
        if len(player.unfinished) > MAX_UNFINISHED:
            fail(f"{where} holds {len(player.unfinished)} unfinished cards, at most {MAX_UNFINISHED}")
        if placed_total != len(cube_names):
            fail(f"{where}: {len(cube_names)} cubes on the board but the cards have {placed_total} placed")
        options = [integer(v, f"{where}.spirit_options entry", FIRST_SPIRIT, FIRST_SPIRIT + NUM_SPIRITS - 1)
                   for v in listing(raw["spirit_options"], f"{where}.spirit_options")]
        player.spirit_options = options
        spirit_options_seen += options
        player.turns = integer(raw["turns"], f"{where}.turns", 0, MAX_GAME_LENGTH)
        deals_left = pending_spirits.count(p)
        if game.spirits and player.kept_spirit is None:
            if len(options) + deals_left != 2:
                fail(f"{where} must have 2 spirits dealt (options plus pending deals), "
                     f"has {len(options)} + {deals_left}")
            if player.turns:
                fail(f"{where} has ended a turn without keeping a spirit")
        elif options or deals_left:
            fail(f"{where} has spirit options or pending spirit deals but "
                 + ("already kept a spirit" if game.spirits else "the spirits option is off"))

    # -- shared components
    central = listing(d["central"], "central")
    if len(central) != game.num_spaces:
        fail(f"central must list {game.num_spaces} spaces, got {len(central)}")
    state._central = [colours(space, f"central[{s}]", 3) for s, space in enumerate(central)]
    display = listing(d["display"], "display")
    if len(display) != game.num_slots:
        fail(f"display must list {game.num_slots} slots, got {len(display)}")
    state._display = [None if v is None else integer(v, f"display[{i}]", 1, NUM_ANIMALS)
                      for i, v in enumerate(display)]
    state._deck = ascending_ids(d["deck"], "deck", range(1, NUM_ANIMALS + 1))
    state._spirit_deck = ascending_ids(d["spirit_deck"], "spirit_deck", SPIRIT_IDS)
    if not game.spirits and state._spirit_deck != list(SPIRIT_IDS):  # [R5]
        fail("spirit_deck must list every spirit (33..42) when the spirits option is off")
    pouch = d["pouch"]
    if not isinstance(pouch, dict) or set(pouch) != set(COLOURS):
        fail(f"pouch must be a dict with the keys {list(COLOURS)}, got {pouch!r}")
    state._pouch = [integer(pouch[c], f"pouch[{c!r}]", 0, POUCH[i]) for i, c in enumerate(COLOURS)]
    state._turn_player = integer(d["turn_player"], "turn_player", 0, num_players - 1)
    state._hand = colours(d["hand"], "hand", 3)
    state._took_tokens = flag(d["took_tokens"], "took_tokens")
    state._took_card = flag(d["took_card"], "took_card")
    state._end_triggered = flag(d["end_triggered"], "end_triggered")
    state._pending_spaces, state._pending_slots = pending_spaces, pending_slots
    state._pending_spirits = pending_spirits
    current = _document_int(d["current_player"])
    if current is None or current not in (CHANCE, TERMINAL, *range(num_players)):
        fail(f"current_player must be one of 0..{num_players - 1}, {CHANCE} or {TERMINAL}, "
             f"got {d['current_player']!r}")
    state._player = current
    # D15: a game has at most about a thousand moves; the bound leaves room for them below the
    # engine's 16-bit counter.
    state._moves = integer(d["move_number"], "move_number", 0, 60000)
    rng = d["rng"]
    if not isinstance(rng, str) or re.fullmatch(r"0x[0-9a-fA-F]{1,16}", rng) is None:
        fail(f"rng must be a string '0x' + at most 16 hex digits, got {rng!r}")
    state._rng = 0 if game.explicit else int(rng, 16)  # explicit chance: unused, always 0

    # -- cards and tokens are conserved
    animals = state._deck + [i for i in state._display if i is not None] + animals_held
    if len(set(animals)) != len(animals):
        fail("an animal card is in two places (deck, display, players' cards)")
    if not game.solo and len(animals) != NUM_ANIMALS:  # only solo discards cards
        fail(f"{NUM_ANIMALS - len(animals)} animal card(s) missing from deck, display and players")
    if game.spirits:
        spirits = state._spirit_deck + spirit_options_seen + spirits_held
        if len(set(spirits)) != len(spirits):
            fail("a spirit card is in two places (spirit_deck, options, players' cards)")
        if len(spirits) + len(spirits_held) != NUM_SPIRITS:  # one discarded per kept spirit
            fail("spirit cards do not add up to 10 (spirit_deck + options + 2 per kept spirit)")
    for c in range(6):
        on_boards = sum(s.count(c) for p in state._players for s in p.stacks)
        count = (state._pouch[c] + on_boards + state._hand.count(c)
                 + sum(space.count(c) for space in state._central))
        if count > POUCH[c] or (not game.solo and count != POUCH[c]):
            fail(f"{count} {COLOURS[c]} tokens in the game, expected {POUCH[c]}"
                 + (" at most" if game.solo else ""))

    # -- the turn and the pending work
    tp = state._turn_player
    if state._hand and not state._took_tokens:
        fail("tokens in hand before taking a central space")
    if state._players[tp].spirit_options and (state._took_tokens or state._took_card):
        fail("the turn player must choose a spirit before anything else (D1)")
    if state._took_card and not state._players[tp].cards():
        fail("took_card is set but the turn player holds no card")
    if has_pending and not game.explicit:
        fail("pending chance work with chance='implicit' (implicit draws are done at once)")
    if pending_spirits and state._took_tokens:
        fail("spirit deals are pending only before the first turn, not after tokens were taken")
    if (current == CHANCE) != has_pending:
        fail("current_player must be -1 exactly when chance work is pending")
    if current >= 0 and current != tp:
        fail(f"current_player {current} is not turn_player {tp}")
    ended = state._took_tokens and current in (CHANCE, TERMINAL)  # the turn player's turn is over
    if current == TERMINAL:
        if not state._end_triggered:
            fail("the game is over but its end was never triggered")
        if tp != num_players - 1 or not state._took_tokens:
            fail("a game ends at the end of the last player's turn")
    if ended and state._hand:
        fail("tokens left in hand after the turn ended")
    base = state._players[-1].turns - (1 if tp == num_players - 1 and ended else 0)
    for p, player in enumerate(state._players):
        expected = base + (1 if p < tp or (p == tp and ended) else 0)
        if player.turns != expected:
            fail(f"players[{p}].turns is {player.turns}, expected {expected} "
                 f"(turn_player {tp}, players play in order)")
        if player.kept_spirit is not None and player.turns == 0 and not (p == tp and not has_pending):
            fail(f"players[{p}] kept a spirit before its first turn")
        if (p != tp or ended) and player.turns and player.empty_cells() <= 2 and not state._end_triggered:
            fail(f"players[{p}] ended a turn with <= 2 empty cells but the end is not triggered")
    if has_pending and not state._took_tokens and (base != 0 or tp != 0 or state._took_card):
        fail("pending setup draws (before player 0's first turn) with turns already played")
    for s, space in enumerate(state._central):
        if pending_spaces and s == pending_spaces[0]:
            if len(space) >= 3:  # a refill draws into the space until it holds 3
                fail(f"central space {s} is pending but holds {len(space)} tokens")
            if sum(state._pouch) < 3 * len(pending_spaces) - len(space):  # [R4]
                fail(f"the pouch cannot fill the pending central spaces {pending_spaces}")
        elif s in pending_spaces and space:
            fail(f"central space {s} is pending but already holds tokens")
        elif len(space) not in (0, 3):
            fail(f"central space {s} holds {len(space)} tokens (0 or 3 unless being filled)")
    if pending_spaces:  # D16: the refills an `end` (or the setup) leaves, drawn space by space
        first, last = pending_spaces[0], pending_spaces[-1]
        sizes = [len(space) for space in state._central]
        if pending_spaces != list(range(first, last + 1)):
            fail(f"pending central spaces {pending_spaces} are not consecutive")
        if any(n != 3 for n in sizes[:first]):
            fail(f"a central space before the pending ones {pending_spaces} is not full")
        after = sizes[last + 1:]
        if not state._took_tokens:
            if after:
                fail(f"the setup fills every central space, but only {pending_spaces} are pending")
        elif not game.solo:
            if len(pending_spaces) != 1 or any(n != 3 for n in after):
                fail(f"a refill after a turn fills the one space taken from, not {pending_spaces}")
        elif any(after) or (after and not state._end_triggered):
            fail(f"solo refills fill the spaces in order, all three unless the pouch runs out "
                 f"(which triggers the end); pending {pending_spaces}")
    if current >= 0:
        empty = sum(1 for space in state._central if not space)
        if (game.solo or sum(state._pouch) >= 3) and empty != int(state._took_tokens):
            fail(f"{empty} empty central space(s) but took_tokens is {state._took_tokens}")
    elif current == CHANCE and not pending_spaces:
        # A card or spirit draw: the central spaces are settled. The token refills come first, so
        # a pouch of 3 or more leaves no space empty; an empty one is a refill the pouch could
        # not make, and that triggered the end. Solo: an `end` clears all three spaces and
        # refills them all, or the game is over (D15).
        empty = sum(1 for space in state._central if not space)
        if empty and (game.solo or sum(state._pouch) >= 3 or not state._end_triggered):
            fail(f"{empty} empty central space(s) at a draw, with {sum(state._pouch)} tokens in the pouch "
                 f"and the end {'' if state._end_triggered else 'not '}triggered")
    if ended and state._end_triggered and tp == num_players - 1 and has_pending:
        # D6: the last player's `end` with the end triggered ends the game at once; only a solo
        # refill cut short by the pouch (D9, D4) draws the spaces before the one it could not fill,
        # and no display card, before the end.
        if not game.solo or pending_slots or not pending_spaces or pending_spaces[-1] == game.num_spaces - 1:
            fail("the last player's turn ended with the end triggered: the game is over at once (D6), "
                 "but for the solo token refills before the space the pouch cannot fill (D9, D4)")
    for slot in pending_slots:
        if state._display[slot] is not None:
            fail(f"display slot {slot} is pending but holds a card")
    if len(pending_slots) > len(state._deck):
        fail("more pending display slots than cards in the deck")
    empty_slots = [i for i, card_id in enumerate(state._display) if card_id is None]
    last_draws = ended and state._end_triggered and tp == num_players - 1  # D4: no display refill
    if (current == CHANCE and not last_draws and len(state._deck) > len(pending_slots)
            and set(empty_slots) - set(pending_slots)):
        fail("an empty display slot is not pending while the deck has cards")
    if current >= 0 and state._deck and len(empty_slots) > int(state._took_card):
        fail("empty display slots while the deck has cards")
    return state
