"""Imperial Harvest, pure-Python reference implementation (parts 1 and 2: all 14 characters).

Written from the rules (docs/rules/imperial-harvest.md: points 1-65, decisions D1-D54), completing
../shared/rules/imperial-harvest.spec.md and the rulebook; never from the C++ engine: it is the
oracle for differential tests and the pure-Python baseline. Standard library only (no meeple._core).

Board: 10x10 cells, x right 0..9, y down 0..9, cell index y*10 + x (point 1). Player 0 is the
Imperial Servants, player 1 the Northern Raiders. Tokens 0..2 are the imperial characters, 3..5 the
raiders (team order: first_game_teams, the custom string, or draft order), 6..7 the Regent's sentries.

A game is a sequence of phases (the state's `phase`):

    draft (teams="draft") -> bridges -> camps -> placement (setup="interactive") -> play
    play, per player turn:
    rest  --rest c-->  pick  --activate c-->  act  --end / defeat-->  pick | (turn ends) rest
                       pick  --forfeit c--->  hydra --hydra h d-->    pick | (turn ends) rest
                                              act   --puppet t-->     puppet --one ability--> act
    any action that defeats characters  -->  respawn (owner of each defeated token chooses a cell)
                                              --> back to the phase the action led to

Readings of the documents where they are silent are gathered in the READINGS block below.
"""

import copy
import functools
import importlib.resources
import json
import os
import pathlib
import re

from . import _document
from ._document import action_int as _action_int, as_int as _as_int, document_int as _document_int, is_bool as _is_bool

# --------------------------------------------------------------------------------------- READINGS
# Part 1 (R1-R12, unchanged):
#  R1 (point 22/25) When the action that ends a turn also defeats characters, the turn-end
#     bookkeeping is done first and the respawns follow with resume_phase "rest". If that turn end
#     also ends the game, pending respawns are dropped (cell null, queue empty).
#  R2 (point 22) A finished game keeps round/team of its last turn, phase "rest", no resting, done,
#     active; activation at default; last_rested updated.
#  R3 (point 25) All characters defeated by one action join the respawn queue together, by token.
#  R4 (point 25) A respawned character keeps its facing.
#  R5 (point 20) The Bard check runs at `activate` and after every later action of the activation
#     (respawns included); ap = max(0, ap + new ballads - new war cries).
#  R6 (point 19) AP are paid before the strawberry bonus is lost; pluck pays, then adds the bonus.
#  R7 (point 18) A forfeited token joins `done` at the `forfeit` action.
#  R8 (state dict) `done` in finishing order; `ballad`, `war_cry`, `gaze` sorted; hedges lower cell
#     first, pairs sorted as lists; `respawn_queue` in queue order.
#  R9 (D6) Compulsion never targets its actor; Tower Shield is checked at every compulsion.
#  R10 (observation) "ground" = every cell outside the moat ring.
#  R11 (strings) `rest/activate/forfeit c` name slot c of the state's `team`; `respawn r` names cell
#     r of the character camp of the first queued token (else of `team`); a grapple landing is the
#     grappler's cell + offset, signed offset `+dx,+dy` when the grappler is off the board.
#  R12 (D14) "within 2 steps" of the Guardian includes the Guardian's own cell.
# Part 2 (where the part-2 document leaves a choice):
#  R13 (strings) Sentries are written like characters: `x,y` alone on their cell, else
#     `x,y:sentry`, and when that is ambiguous (two sentries on one cell) or off the board by their
#     qualified name `sentry1` / `sentry2`. Undrafted slots are written `#c` (`rest #1`); cells of a
#     camp not placed yet are written `#r` (`place #2 s`, `respawn #0`). `place r f` names cell r
#     of the character camp of the team placing next (during placement), else of `team`.
#     The grappler of a grapple string: the puppet in phase puppet; else the active character if it
#     has Grapple or Changeling; else the first token whose card has Grapple.
#  R14 (passes) After every action of play: the effect, Petrifying Gaze, the passes; then, if the
#     active character was defeated, its activation ends (Wolf Form flags clear; possibly the turn);
#     then the passes run once more (so a character whose Wolf Form just ended next to a hydra is
#     defeated by the same action). Nothing runs once the game is over (a finished game defeats
#     nobody). Defeats of both runs join one respawn queue (R3).
#  R15 (`wolf`) legal whenever affordable (also if Wolf Form is already on: no effect).
#  R16 (charge) "the first character in its LOS ray must be an enemy": the first cell of the ray at
#     distance >= 1 holding tokens must hold at least one enemy token; a hydra first -> illegal.
#  R17 (sides) An ability's numbers (AP, limits, uses) are read on the side of the team of the card
#     that has the ability (the lender for Changeling, the puppet for Puppetry); card numbers (AP,
#     item slots, bonus) on the side of the card's team.
#  R18 (Changeling) Borrowing Sentry places the Regent's team's sentry (sentries always belong to
#     the Regent's team, even when an enemy Nymph places them); borrowed Command moves an ally of
#     the Nymph.
#  R19 (draft) A drafted character's uses_left is set at its `draft` action (null for cards without
#     per-game uses); its cell stays null until placement.
#  R20 (ranges) "within n steps" (Guardian, Ventriloquism, Puppetry) counts steps of point 9 with
#     characters not blocking and without Territorial (no mover).
#  R21 (dicts) state_from_dict requires every key, the part-2 ones too: a dict without them (a part-1
#     dict) is refused, as the engine refuses it. Keys must be exact.
#  R22 max_game_length() is 3000 (D17) for cards of up to 4 AP, scaled for more (D38).
#  R23 Observation "is o's team's turn" = state `team` == o, also during setup phases (where `team`
#     is the team whose turn it is in the setup order).
# ------------------------------------------------------------------------------------------------

IMPERIAL = 0
RAIDERS = 1
TERMINAL = -4
TEAM_KEYS = ("imperial", "raiders")
TEAM_PREFIX = ("imperial", "raider")
TEAM_NAMES = ("Imperial Servants", "Northern Raiders")

SIZE = 10
NUM_CELLS = SIZE * SIZE
NUM_CHARACTERS = 6
NUM_TOKENS = 8
SENTRY_TOKENS = (6, 7)
TEAM_SIZE = 3

DIRS = ("n", "e", "s", "w")
DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIAGS = ("ne", "se", "sw", "nw")
DIAG_DELTA = ((1, -1), (1, 1), (-1, 1), (-1, -1))
PHASES = ("rest", "pick", "act", "hydra", "respawn", "puppet", "draft", "bridges", "camps",
          "placement")
PLAY_PHASES = ("rest", "pick", "act", "hydra", "respawn", "puppet")
SETUP_PHASES = ("draft", "bridges", "camps", "placement")
CAMP_KINDS = ("imperial_character", "imperial_strawberry", "raiders_character", "raiders_strawberry")
CORNERS = ("top_left", "top_right", "bottom_left", "bottom_right")
# Card index k (draft ids, observation one-hot): the shipped characters.json order.
CARD_IDS = ("barbarian", "raider_bard", "sorceress", "skin_changer", "imperial_bard",
            "imperial_guardian", "monk", "regent", "basilisk", "hound", "minotaur", "nymph",
            "puppeteer", "ranger")

# Setup turn orders (points 64, 65).
DRAFT_ORDER = (IMPERIAL, RAIDERS, IMPERIAL, RAIDERS, IMPERIAL, RAIDERS)
BRIDGE_ORDER = (IMPERIAL, RAIDERS, RAIDERS, IMPERIAL)
CAMP_ORDER = (IMPERIAL, RAIDERS, RAIDERS, IMPERIAL)
PLACE_ORDER = (0, 3, 1, 4, 2, 5)  # tokens: I0, R0, I1, R1, I2, R2
MARKED_STRAWBERRIES = 12
# The interior-tile corner nearest each moat elbow (point 65.4).
ELBOW_STRAWBERRY = {(2, 2): (3, 3), (7, 2): (6, 3), (2, 7): (3, 6), (7, 7): (6, 6)}
ELBOW_OF_CORNER = {"top_left": (2, 2), "top_right": (7, 2), "bottom_left": (2, 7),
                   "bottom_right": (7, 7)}

# Rule constants (rulebook / spec; the card numbers come from characters.json).
ROUNDS = 7
STEP_COST = 1
PLUCK_COST = DEPOSIT_COST = PASS_COST = 1
DISCARD_COST = 0
MAX_PASS = 4
MAX_HEDGES_PLANTED = 4
MAX_HEDGES_CHOPPED = 4
BARD_RANGE = 2
GUARDIAN_RANGE = 2
THROW_RANGE = 2
ARCHER_RANGE = 2
GRAPPLE_RANGE = 2
PUPPET_RANGE = VENT_RANGE = 3
LURE_MAX_STEPS = 2
CHARGE_MAX_STEPS = 3
SPRINT_FREE_MOVES = 3  # "may move three spaces"
RETRIEVER_FREE_MOVES = 1  # "may move one additional space"
TOTAL_STRAWBERRIES = 14
MAX_GAME_LENGTH = 3000
MAX_STORED_AP = 60
MAX_STORED_MOVE_NUMBER = 10**9
MAX_STORED_FREE_MOVES = 60
MAX_COMPULSIONS = 3  # the most compulsions a state stores (a table's compulsion limit is at most this)

# Action ids (part 1 table + part 2 table).
A_REST, A_ACTIVATE, A_FORFEIT, A_HYDRA = 0, 3, 6, 9
A_MOVE, A_FACE = 17, 25
A_PLUCK, A_DEPOSIT, A_DISCARD, A_END = 29, 30, 31, 32
A_PASS, A_RESPAWN, A_GRAPPLE = 33, 65, 69
A_POUNCE, A_PLANT, A_SPEAR, A_CHOP = 165, 169, 173, 181
A_AXE, A_THROW, A_CHARM, A_SHADOW, A_COMPEL = 185, 193, 201, 233, 237
A_SLITHER, A_BITE, A_HORNS, A_FLIP, A_CHARGE = 269, 273, 305, 313, 314
A_LURE, A_VENT, A_PUPPET, A_ARCHER, A_COMMAND = 315, 331, 363, 371, 379
A_SENTRY, A_WOLF, A_SPRINT, A_DRAFT = 411, 427, 428, 429
A_BRIDGE, A_CAMP, A_PLACE = 443, 459, 475
NUM_ACTIONS = 491

GRAPPLE_OFFSETS = tuple(sorted(((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)
                                if 1 <= abs(dx) + abs(dy) <= GRAPPLE_RANGE),
                               key=lambda o: (o[1], o[0])))

# Ability ids of characters.json.
AB_AGILITY, AB_WAR_CRY, AB_BALLAD = "agility", "war_cry", "inspirational_ballad"
AB_TOWER_SHIELD, AB_GUARDIAN = "tower_shield", "guardian"
AB_GRAPPLE, AB_POUNCE, AB_PLANT, AB_SPEAR = "grapple", "dragon_pounce", "plant", "spear"
AB_CHOP, AB_AXE, AB_THROW = "chop", "battle_axe", "throwing_axe"
AB_CHARM, AB_SHADOW, AB_COMPEL = "charm", "shadow_walk", "compulsion"
AB_FERAL, AB_WOLF, AB_SPRINT = "feral", "wolf_form", "sprint"
AB_POINT_OF_ORDER, AB_COMMAND, AB_SENTRY = "point_of_order", "command", "sentry"
AB_POISON, AB_SLITHER, AB_GAZE = "poison_blood", "slither", "petrifying_gaze"
AB_RETRIEVER, AB_TERRITORIAL, AB_BITE = "retriever", "territorial", "bite"
AB_HORNS, AB_FLIP, AB_CHARGE = "horns", "master_of_the_labyrinth", "charge"
AB_LURE, AB_AURA, AB_CHANGELING = "alluring_gaze", "aura_of_tranquility", "changeling"
AB_VENT, AB_PUPPETRY = "ventriloquism", "arcane_puppetry"
AB_CAMOUFLAGE, AB_ARCHER, AB_SENTINEL = "camouflage", "archer", "silent_sentinel"

# Active abilities with action ids ("Part 2: abilities in general"), in the order their actions
# are generated (the list is sorted afterwards anyway).
ACTIVE_WITH_IDS = (AB_GRAPPLE, AB_POUNCE, AB_PLANT, AB_SPEAR, AB_CHOP, AB_AXE, AB_THROW, AB_CHARM,
                   AB_SHADOW, AB_COMPEL, AB_SLITHER, AB_BITE, AB_HORNS, AB_FLIP, AB_CHARGE, AB_LURE,
                   AB_VENT, AB_PUPPETRY, AB_ARCHER, AB_COMMAND, AB_SENTRY, AB_WOLF, AB_SPRINT)
# Passive abilities a card table may give to one card only (the engine reads them from one card;
# docs/rules point 35): the others may sit on several cards, as the Bards' do.
ONE_CARD_PASSIVES = frozenset((AB_FERAL, AB_GUARDIAN, AB_POISON, AB_GAZE, AB_TERRITORIAL, AB_AURA, AB_SENTINEL))
NOT_BORROWABLE = frozenset((AB_CHANGELING, AB_PUPPETRY))  # Changeling (51)
NOT_PUPPETABLE = frozenset((AB_CHANGELING, AB_PUPPETRY, AB_SPRINT))  # D31

# Action id ranges of the abilities: (first id, one past the last, ability).
_ABILITY_RANGES = (
    (A_GRAPPLE, A_POUNCE, AB_GRAPPLE), (A_POUNCE, A_PLANT, AB_POUNCE), (A_PLANT, A_SPEAR, AB_PLANT),
    (A_SPEAR, A_CHOP, AB_SPEAR), (A_CHOP, A_AXE, AB_CHOP), (A_AXE, A_THROW, AB_AXE),
    (A_THROW, A_CHARM, AB_THROW), (A_CHARM, A_SHADOW, AB_CHARM), (A_SHADOW, A_COMPEL, AB_SHADOW),
    (A_COMPEL, A_SLITHER, AB_COMPEL), (A_SLITHER, A_BITE, AB_SLITHER), (A_BITE, A_HORNS, AB_BITE),
    (A_HORNS, A_FLIP, AB_HORNS), (A_FLIP, A_CHARGE, AB_FLIP), (A_CHARGE, A_LURE, AB_CHARGE),
    (A_LURE, A_VENT, AB_LURE), (A_VENT, A_PUPPET, AB_VENT), (A_PUPPET, A_ARCHER, AB_PUPPETRY),
    (A_ARCHER, A_COMMAND, AB_ARCHER), (A_COMMAND, A_SENTRY, AB_COMMAND),
    (A_SENTRY, A_WOLF, AB_SENTRY), (A_WOLF, A_SPRINT, AB_WOLF), (A_SPRINT, A_DRAFT, AB_SPRINT))


def ability_of_action(a):
    """The ability an action id belongs to, or None (moves, strawberries, turn and setup actions)."""
    for low, high, ability in _ABILITY_RANGES:
        if low <= a < high:
            return ability
    return None


BOARD_CHOICES = ("standard", "symmetric", "random")
SIDE_CHOICES = ("basic", "advanced")
SETUP_CHOICES = ("fixed", "interactive")
TEAM_MODES = ("first_game", "draft")
MAX_BOARD_SEED = 2**31 - 1
DEFAULT_PARAMETERS = {"board": "standard", "board_seed": None, "sides": "basic",
                      "teams": "first_game", "setup": "fixed", "characters": None}



def cell_of(x, y):
    return y * SIZE + x


def xy(cell):
    return cell % SIZE, cell // SIZE


def cell_text(cell):
    x, y = xy(cell)
    return f"{x},{y}"


def manhattan(a, b):
    ax, ay = xy(a)
    bx, by = xy(b)
    return abs(ax - bx) + abs(ay - by)


def edge(a, b):
    return (a, b) if a < b else (b, a)


def neighbour(cell, dx, dy):
    x, y = xy(cell)
    x, y = x + dx, y + dy
    return cell_of(x, y) if 0 <= x < SIZE and 0 <= y < SIZE else None


def in_moat_ring(x, y):
    return (x in (2, 7) and 2 <= y <= 7) or (y in (2, 7) and 2 <= x <= 7)


def is_elbow(x, y):
    return x in (2, 7) and y in (2, 7)


MOAT = frozenset(cell_of(x, y) for x in range(SIZE) for y in range(SIZE) if in_moat_ring(x, y))
# The 16 non-elbow moat cells in cell-index order (bridge ids 443 + b).
BRIDGE_CELLS = tuple(sorted(c for c in MOAT if not is_elbow(*xy(c))))


def bridge_axis(cell):
    """Point 4: "ew" for x in {2,7}, "ns" for y in {2,7}."""
    return "ew" if xy(cell)[0] in (2, 7) else "ns"


def bridge_joins(cell):
    """The two garden cells a bridge on `cell` joins (along its axis)."""
    x, y = xy(cell)
    if x in (2, 7):
        return cell_of(x - 1, y), cell_of(x + 1, y)
    return cell_of(x, y - 1), cell_of(x, y + 1)


# ------------------------------------------------------------------------------------------- data

@functools.cache
def _data_text(name):
    try:
        return (importlib.resources.files("meeple") / "data" / "imperial_harvest" / name).read_text(
            encoding="utf-8")
    except Exception:  # noqa: BLE001 - meeple itself may not import (engine not built)
        path = pathlib.Path(__file__).resolve().parents[1] / "data" / "imperial_harvest" / name
        return path.read_text(encoding="utf-8")


@functools.cache
def _data(name):
    return json.loads(_data_text(name))


def _slots():
    tiles = _data("tiles.json")
    return dict(tiles["board"]["rect_slots"], **tiles["board"]["square_slots"])


@functools.cache
def face_edges(face_name, transform, slot_name):
    """Point 3 / D27: the hedge edges of tile face `face_name` laid in slot `slot_name` with
    transform 0..7 (k = t mod 4 clockwise quarter-turns, (x, y) of a w x h tile -> (h-1-y, x), sides
    N->E->S->W; then, if t >= 4, the mirror top<->bottom within the slot: (x, y) -> (x, h-1-y),
    sides N<->S). Hedges on the board's outer edge are dropped."""
    tiles = _data("tiles.json")
    slot = _slots()[slot_name]
    face = tiles["faces"][face_name]
    sides = "NESW"
    k, mirror = transform % 4, transform >= 4
    edges = set()
    for x, y, side in face["hedges"]:
        w, h = face["size"]
        s = sides.index(side)
        for _ in range(k):
            x, y, s = h - 1 - y, x, (s + 1) % 4
            w, h = h, w
        if [w, h] != list(slot["size"]):
            raise ValueError(f"tile {face_name} with transform {transform} does not fit slot "
                             f"{slot_name}")
        if mirror:
            y = h - 1 - y
            s = {0: 2, 2: 0}.get(s, s)
        ox, oy = slot["origin"]
        here = cell_of(ox + x, oy + y)
        there = neighbour(here, *DELTA[s])
        if there is not None:
            edges.add(edge(here, there))
    return frozenset(edges)


def hedges_from_tiles(layout):
    """The hedges of a board built from `layout`: slot -> [face, transform]."""
    edges = set()
    for slot_name, (face_name, transform) in layout.items():
        edges |= face_edges(face_name, transform, slot_name)
    return edges


@functools.cache
def slot_cells():
    """slot name -> frozenset of its cells; and cell -> slot name."""
    cells = {}
    for name, slot in _slots().items():
        ox, oy = slot["origin"]
        w, h = slot["size"]
        cells[name] = frozenset(cell_of(ox + i, oy + j) for i in range(w) for j in range(h))
    return cells


@functools.cache
def cell_slot():
    return {c: name for name, cells in slot_cells().items() for c in cells}


@functools.cache
def corner_cells(corner):
    """The 4 cells of a camp corner, in cell-index order."""
    ox, oy = _data("tiles.json")["board"]["camp_slots"][corner]
    return tuple(sorted(cell_of(ox + dx, oy + dy) for dx in (0, 1) for dy in (0, 1)))


@functools.cache
def insignia_cell(corner):
    """The camp cell nearest the board centre (4.5, 4.5)."""
    return min(corner_cells(corner),
               key=lambda c: (xy(c)[0] - 4.5) ** 2 + (xy(c)[1] - 4.5) ** 2)


@functools.cache
def moat_tile_of():
    """moat cell -> moat tile (corner name)."""
    tiles = _data("tiles.json")["board"]["moat_tiles"]
    return {cell_of(*c): corner for corner, cells in tiles.items() for c in cells}


# ------------------------------------------------------------------------------ random boards

def _static_step_ok(a, b, hedges, bridges):
    """Point 9 on a board record: a legal orthogonal step a -> b."""
    if b is None or (b in MOAT and b not in bridges) or (a in MOAT and a not in bridges):
        return False
    if edge(a, b) in hedges:
        return False
    for c, other in ((a, b), (b, a)):
        if c in bridges:
            if bridge_axis(c) == "ew" and xy(other)[1] != xy(c)[1]:
                return False
            if bridge_axis(c) == "ns" and xy(other)[0] != xy(c)[0]:
                return False
    return True


def _reachable(starts, hedges, bridges):
    seen = set(starts)
    todo = list(seen)
    while todo:
        c = todo.pop()
        for d in range(4):
            n = neighbour(c, *DELTA[d])
            if n is not None and n not in seen and _static_step_ok(c, n, hedges, bridges):
                seen.add(n)
                todo.append(n)
    return seen


def _legal_bridge_spot(cell, hedges):
    a, b = bridge_joins(cell)
    return edge(a, cell) not in hedges and edge(cell, b) not in hedges


class SplitMix64:
    """The generator of random boards (D37), as the engine's `Rng`: SplitMix64 steps, and
    uniform(n) takes the top 32 bits of a step times n, shifted right by 32."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed & self.MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def uniform(self, n):
        return ((self.next() >> 32) * n) >> 32


def random_board_record(seed):
    """D37: the boards.json record of the random board of `seed` (written again here from the
    document, so that the reference needs no compiled meeple). With SplitMix64(seed), up to 1000
    draws: per slot group (rectangular slots, then square slots, in tiles.json order) the group's
    physical tiles in name order are shuffled by Fisher-Yates (i from the last index down to 1, swap
    with uniform(i+1)), then per slot in order: face a/b by uniform(2), rotation by uniform(number of
    the slot's rotations); then per moat tile (tiles.json order) one bridge among its legal spots in
    cell-index order by uniform(count) — no legal spot: draw again; every garden cell must be
    reachable from both character camps, else draw again. The rest is copied from "standard"."""
    tiles = _data("tiles.json")
    layout = tiles["board"]
    physical = sorted({f[:-1] for f in tiles["faces"]})
    rect = [t for t in physical if tiles["faces"][t + "a"]["size"] != [2, 2]]
    square = [t for t in physical if tiles["faces"][t + "a"]["size"] == [2, 2]]
    std = _data("boards.json")["boards"]["standard"]
    rng = SplitMix64(seed)
    for _ in range(1000):
        chosen = {}
        for group, pool in (("rect_slots", rect), ("square_slots", square)):
            order = list(pool)
            for i in range(len(order) - 1, 0, -1):
                j = rng.uniform(i + 1)
                order[i], order[j] = order[j], order[i]
            for slot, tile in zip(list(layout[group]), order):
                face = tile + ("a", "b")[rng.uniform(2)]
                rotations = layout[group][slot]["rotations"]
                chosen[slot] = [face, rotations[rng.uniform(len(rotations))]]
        hedges = hedges_from_tiles(chosen)
        bridges = []
        for corner, cells in layout["moat_tiles"].items():
            spots = sorted(cell_of(*c) for c in cells
                           if not is_elbow(*c) and _legal_bridge_spot(cell_of(*c), hedges))
            if not spots:
                break
            bridges.append(xy(spots[rng.uniform(len(spots))]))
        else:
            bridge_cells = {cell_of(*c) for c in bridges}
            camp_cells = set()
            for corner in CORNERS:
                camp_cells |= set(corner_cells(corner))
            garden = [c for c in range(NUM_CELLS) if c not in MOAT and c not in camp_cells]
            ok = True
            for team in TEAM_KEYS:
                reach = _reachable(corner_cells(std["camps"][f"{team}_character"]), hedges,
                                   bridge_cells)
                if any(c not in reach for c in garden):
                    ok = False
            if ok:
                return {"tiles": chosen,
                        "hedges": sorted([list(xy(a)), list(xy(b))] for a, b in hedges),
                        "camps": dict(std["camps"]), "insignia": dict(std["insignia"]),
                        "start_spaces": dict(std["start_spaces"]),
                        "bridges": [list(c) for c in sorted(bridges, key=lambda c: (c[1], c[0]))],
                        "hydras": [list(c) for c in std["hydras"]],
                        "strawberries": [list(c) for c in std["strawberries"]]}
    raise ValueError(f"no valid random board for seed {seed}")


class Board:
    """The board record a game starts from (boards.json or random): tiles, hedges, bridges, camps,
    start spaces, hydras, strawberries (points 1-5)."""

    def __init__(self, name, data):
        self.name = name
        hedges = {edge(cell_of(*a), cell_of(*b)) for a, b in data["hedges"]}
        self.tiles = None
        if data.get("tiles"):
            self.tiles = {slot: [face, turns] for slot, (face, turns) in data["tiles"].items()}
            built = hedges_from_tiles(self.tiles)
            if built != hedges:
                raise ValueError(f"board {name!r}: the hedges built from its tiles differ from its "
                                 f"hedge list")
        self.hedges = frozenset(hedges)
        self.bridges = sorted(cell_of(*c) for c in data["bridges"])
        for c in self.bridges:
            if c not in BRIDGE_CELLS:
                raise ValueError(f"board {name!r}: bridge {cell_text(c)} is not on a non-elbow moat "
                                 f"cell")
        self.camps = {kind: data["camps"][kind] for kind in CAMP_KINDS}
        self.start_spaces = tuple([cell_of(*c) for c in data["start_spaces"][t]] for t in TEAM_KEYS)
        self.hydras = [cell_of(*c) for c in data["hydras"]]
        self.strawberry_list = [cell_of(*c) for c in data["strawberries"]]
        self.strawberries = sorted(set(self.strawberry_list))


@functools.cache
def _named_board(name):
    return Board(name, _data("boards.json")["boards"][name])


@functools.cache
def _random_board(seed):
    return Board(f"random-{seed}", random_board_record(seed))


# ------------------------------------------------------------------------------- cards and game

class Card:
    """One character card on one team's side (point 6, point 35): numbers and names."""

    def __init__(self, entry, table, side):
        self.id = entry["id"]
        self.index = CARD_IDS.index(self.id)
        self.name = entry["name"]
        self.short = _short_name(entry["name"])
        self.archetype = entry["archetype"]
        self.abilities = frozenset(entry["abilities"])
        defaults = table.get("defaults", {})
        numbers = {"ap": defaults.get("ap"), "item_slots": defaults.get("item_slots"),
                   "strawberry": dict(defaults.get("strawberry", {}))}
        sources = [entry] + ([entry["advanced"]] if side == "advanced" and
                             isinstance(entry.get("advanced"), dict) else [])
        for source in sources:
            for key in ("ap", "item_slots"):
                if key in source:
                    numbers[key] = source[key]
            if isinstance(source.get("strawberry"), dict):
                numbers["strawberry"].update(source["strawberry"])
        self.ap = numbers["ap"]
        self.item_slots = numbers["item_slots"]
        self.bonus_ap = numbers["strawberry"].get("bonus_ap", 0)
        self.uses = None  # per-game uses (plant / chop)
        for ability in (AB_PLANT, AB_CHOP):
            if ability in self.abilities:
                self.uses = _ability_spec(table, ability, side)["uses_per_game"]


def _ability_spec(table, ability, side):
    spec = dict(table["abilities"][ability])
    if side == "advanced" and isinstance(spec.get("advanced"), dict):
        spec.update(spec.pop("advanced"))
    spec.pop("advanced", None)
    return spec


def _first_number(value):
    """"1-3" -> 1 (per use); an int stays."""
    return int(str(value).split("-")[0]) if isinstance(value, str) else value


def _last_number(value):
    return int(str(value).split("-")[-1])


def _normalise_sides(value):
    problem = (f"parameter sides of imperial_harvest must be 'basic', 'advanced' or "
               f"'<imperial>/<raiders>' such as 'basic/advanced', got {value!r}")
    if not isinstance(value, str):
        raise ValueError(problem)
    parts = [p.strip().lower() for p in value.split("/")]
    if len(parts) not in (1, 2) or any(p not in SIDE_CHOICES for p in parts):
        raise ValueError(problem)
    text = parts[0] if len(parts) == 1 or parts[0] == parts[1] else "/".join(parts)
    per_team = (parts[0], parts[-1])
    return text, per_team


# ------------------------------------------------------------------ user card tables (characters=)
# A user's card table (the schema of characters.json) is checked when the game is made, as the
# engine checks it (python/meeple/imperial_harvest.py, cpp/bindings/bind_imperial_harvest.cpp
# read_characters, the Game constructor), with its wording: what the engine refuses, the reference
# refuses. That includes what the two implementations would otherwise read differently (the
# numbers the rules document names, in the forms it names them):
#  - per_activation: 1 on the abilities that are "once per activation" (the activation's flags,
#    D20), absent or 0 on the others; compulsion's limit is the M of its "N-M" ap.
#  - an "N-M" ap only on compulsion; a text ap (no cost) only on passive abilities, Changeling and
#    Arcane Puppetry; uses_per_game 1..200 on plant and chop only (absent or 0 elsewhere);
#    attack / passive are true or false; the abilities with an extra number (point_of_order vp,
#    petrifying_gaze ap_loss, sentry max_on_board, horns ap_when_charging) have it, and no other.
#  - point_of_order on the regent card (the engine gives the Regent card its VP), sentry on no
#    other card (sentries are the Regent's).
#  - card numbers on both sides in range (an advanced number never negative), whichever side plays.

ABILITY_NAMES = (  # the engine's ability order (kAbilityNames)
    "chop", "battle_axe", "throwing_axe", "agility", "war_cry", "inspirational_ballad", "charm",
    "shadow_walk", "compulsion", "feral", "wolf_form", "sprint", "tower_shield", "guardian",
    "spear", "grapple", "dragon_pounce", "plant", "point_of_order", "command", "sentry",
    "poison_blood", "slither", "petrifying_gaze", "retriever", "territorial", "bite", "horns",
    "master_of_the_labyrinth", "charge", "alluring_gaze", "aura_of_tranquility", "changeling",
    "ventriloquism", "arcane_puppetry", "camouflage", "archer", "silent_sentinel")
_PARAM_KEYS = ("vp", "ap_loss", "max_on_board", "ap_when_charging")
_PARAM_OF = {AB_POINT_OF_ORDER: "vp", AB_GAZE: "ap_loss", AB_SENTRY: "max_on_board",
             AB_HORNS: "ap_when_charging"}
# Once per activation (rules: "once per turn"; the activation's *_used flags).
ONCE_PER_ACTIVATION = frozenset((AB_GRAPPLE, AB_POUNCE, AB_THROW, AB_CHARM, AB_SLITHER, AB_CHARGE,
                                 AB_LURE, AB_COMMAND, AB_SENTRY, AB_SPRINT, AB_RETRIEVER))
PER_GAME_ABILITIES = (AB_PLANT, AB_CHOP)
_NO_COST = frozenset(a for a in ABILITY_NAMES if a not in ACTIVE_WITH_IDS) | {AB_PUPPETRY}
MAX_DATA_INT = 1000000
CARD_LIMITS = (("ap", 20), ("item_slots", 8), ("bonus_ap", 10))
CHARACTER_TABLE_SCHEMA = "imperial-harvest-characters/1"
CHARACTER_TABLE_KEYS = ("schema", "about", "defaults", "archetypes", "first_game_teams", "characters",
                        "abilities")
# What each object of a card table may hold (a dict: its keys, each with the shape of its value or
# None). Its own numbers and its advanced side are a card's besides the shipped keys (point 35).
_NUMBERS_SHAPE = {"ap": None, "item_slots": None, "strawberry": {"bonus_ap": None}}
_CARD_SHAPE = {"id": None, "name": None, "faction": None, "archetype": None, "abilities": None,
               **_NUMBERS_SHAPE, "advanced": _NUMBERS_SHAPE}
_ABILITY_BASIC_SHAPE = dict.fromkeys(("ap", "per_activation", "uses_per_game", "attack", "passive", "vp",
                                      "ap_loss", "max_on_board", "ap_when_charging"))
_ABILITY_SHAPE = {**_ABILITY_BASIC_SHAPE, "advanced": _ABILITY_BASIC_SHAPE}


def _first_unknown_key(value, shape, where):
    """'<key> in <where>; its keys: ...' for the first key of `value` (or of an object inside it)
    that `shape` does not allow; None if there is none (a value of another type is not looked at)."""
    if not isinstance(value, dict) or shape is None:
        return None
    for key, inner in value.items():
        if key not in shape:
            return f"{key!r} in {where}; its keys: {', '.join(shape)}"
        found = _first_unknown_key(inner, shape[key], f"{where}.{key}")
        if found:
            return found
    return None
_STOI = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def _bad_data(where, problem):
    return ValueError(f"imperial_harvest data {where}: {problem}")


def _data_get(d, key, where):
    if not isinstance(d, dict):
        raise _bad_data(where, "expected an object")
    if key not in d:
        raise _bad_data(where, f"missing '{key}'")
    return d[key]


def _data_int(value, where):
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad_data(where, "expected an int")
    if not -MAX_DATA_INT <= value <= MAX_DATA_INT:
        raise _bad_data(where, "int out of range")
    return int(value)


def _data_str(value, where):
    if not isinstance(value, str):
        raise _bad_data(where, "expected a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad_data(where, "expected a string") from None
    return value


def _data_list(value, where, length=None):
    if not isinstance(value, (list, tuple)):
        raise _bad_data(where, "expected a list")
    if length is not None and len(value) != length:
        raise _bad_data(where, f"expected {length} items")
    return list(value)


def _stoi(text):
    """C++ std::stoi: leading white space, a sign, digits, anything after; ValueError if no digit
    or outside int."""
    m = _STOI.match(text)
    if not m:
        raise ValueError(text)
    value = int(m.group(1))
    if not -2 ** 31 <= value < 2 ** 31:
        raise ValueError(text)
    return value


def _is_range_text(text):
    """An "N-M" ap as the engine reads it: a digit first, a dash after it."""
    return text.find("-") > 0 and text[0] in "0123456789"


def _read_ability(spec, where):
    """The engine's reading of one ability entry: (ap, per_activation, uses_per_game, number)."""
    if not isinstance(spec, dict):
        raise _bad_data(where, "expected an object")
    ap = per_activation = uses = number = 0
    if "ap" in spec:
        if isinstance(spec["ap"], str):
            text = _data_str(spec["ap"], where + ".ap")
            if _is_range_text(text):
                dash = text.find("-")
                try:
                    ap, per_activation = _stoi(text[:dash]), _stoi(text[dash + 1:])
                except ValueError:
                    raise _bad_data(where, f"cannot read ap '{text}'") from None
        else:
            ap = _data_int(spec["ap"], where + ".ap")
    if "per_activation" in spec:
        per_activation = _data_int(spec["per_activation"], where + ".per_activation")
    if "uses_per_game" in spec:
        uses = _data_int(spec["uses_per_game"], where + ".uses_per_game")
    for key in _PARAM_KEYS:
        if key in spec:
            number = _data_int(spec[key], f"{where}.{key}")
    return ap, per_activation, uses, number


def _ability_sides(entry, where):
    """The basic entry of an ability and its advanced one (the basic keys overridden)."""
    sides = [entry]
    if "advanced" in entry:
        if not isinstance(entry["advanced"], dict):
            raise _bad_data(where + ".advanced", "expected an object")
        sides.append(dict(entry, **entry["advanced"]))
    else:
        sides.append(entry)
    return sides


def _check_ability_as_read(name, spec):
    """Where the engine and the reference would read an ability differently: refused."""
    def problem(text):
        return ValueError(f"character table: ability {name!r}: {text}")

    for flag in ("attack", "passive"):
        if flag in spec and not isinstance(spec[flag], bool):
            raise problem(f"{flag} must be true or false, got {spec[flag]!r}")
    ap = spec.get("ap", 0)
    if isinstance(ap, str):
        if name == AB_COMPEL:
            if not re.fullmatch(r"[0-9]+-[0-9]+", ap) or _last_number(ap) > MAX_COMPULSIONS:
                raise problem(f"ap must be the text 'N-M' (N AP per step, at most M <= "
                              f"{MAX_COMPULSIONS} steps per activation: a state stores no more), "
                              f"got {ap!r}")
        elif _is_range_text(ap):
            raise problem(f"an ap 'N-M' is compulsion's form only; expected an int 0..20, got {ap!r}")
        elif name not in _NO_COST:
            raise problem(f"ap must be an int 0..20 (its AP cost), got {ap!r}")
    elif name == AB_COMPEL:
        raise problem(f"ap must be the text 'N-M' (N AP per step, at most M steps per activation), "
                      f"got {ap!r}")
    per_activation = spec.get("per_activation")
    if name in ONCE_PER_ACTIVATION:
        if per_activation != 1 or isinstance(per_activation, bool):
            raise problem(f"per_activation must be 1 (once per activation), got {per_activation!r}")
    elif name == AB_COMPEL:
        if per_activation is not None and per_activation != _last_number(ap):
            raise problem(f"per_activation must be left out (the M of ap 'N-M' is the limit), "
                          f"got {per_activation!r}")
    elif per_activation not in (None, 0) or isinstance(per_activation, bool):
        raise problem(f"per_activation must be left out or 0 (no limit per activation), "
                      f"got {per_activation!r}")
    uses = spec.get("uses_per_game")
    if name in PER_GAME_ABILITIES:
        if isinstance(uses, bool) or not isinstance(uses, int) or not 1 <= uses <= 200:
            raise problem(f"uses_per_game must be an int 1..200, got {uses!r}")
    elif uses not in (None, 0) or isinstance(uses, bool):
        raise problem(f"uses_per_game must be left out or 0 (only plant and chop have uses per "
                      f"game), got {uses!r}")
    own = _PARAM_OF.get(name)
    if own is not None:
        if own not in spec:
            raise problem(f"missing its number {own!r} (an int 0..20)")
        others = [k for k in _PARAM_KEYS if k != own and k in spec]
        if others:
            raise problem(f"has {others[0]!r}; its only number is {own!r}")


def _check_table(value, sides, teams):
    """Checks a user's card table as the engine does (ValueError naming the problem), and what
    the reference would read otherwise (see above). `sides`: (imperial, raiders)."""
    if value.get("schema") != CHARACTER_TABLE_SCHEMA:
        raise ValueError(f"character table: 'schema' must be {CHARACTER_TABLE_SCHEMA!r}, got "
                         f"{value.get('schema')!r}")
    unknown = [k for k in value if k not in CHARACTER_TABLE_KEYS]
    if unknown:
        raise ValueError(f"character table: unknown key {unknown[0]!r}; its keys: "
                         f"{', '.join(CHARACTER_TABLE_KEYS)}")
    found = _first_unknown_key(value.get("defaults"), _NUMBERS_SHAPE, "defaults")
    for card in value.get("characters") if isinstance(value.get("characters"), list) else ():
        where = f"character {card.get('id')!r}" if isinstance(card, dict) else "characters"
        found = found or _first_unknown_key(card, _CARD_SHAPE, where)
    abilities = value.get("abilities")
    for name, entry in abilities.items() if isinstance(abilities, dict) else ():
        found = found or _first_unknown_key(entry, _ABILITY_SHAPE, f"ability {name!r}")
    if found:
        raise ValueError(f"character table: unknown key {found}")
    cards = value.get("characters")
    if not isinstance(cards, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str)
                                              for c in cards):
        raise ValueError("character table: 'characters' must be a list of objects with an 'id'")
    ids = [c["id"] for c in cards]
    missing = [i for i in CARD_IDS if i not in ids]
    extra = [i for i in ids if i not in CARD_IDS]
    if missing or extra or len(ids) != len(set(ids)):
        raise ValueError(f"character table: expected each of the 14 cards {', '.join(CARD_IDS)} "
                         "once" + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unknown {', '.join(extra)}" if extra else ""))
    if not isinstance(value.get("abilities"), dict):
        raise ValueError("character table: 'abilities' must be an object of ability numbers")
    # The engine's reading (read_characters): defaults, abilities, cards, first-game teams.
    defaults = _data_get(value, "defaults", "characters")
    default_numbers = {
        "ap": _data_int(_data_get(defaults, "ap", "characters.defaults"), "characters.defaults.ap"),
        "item_slots": _data_int(_data_get(defaults, "item_slots", "characters.defaults"),
                                "characters.defaults.item_slots"),
        "bonus_ap": _data_int(_data_get(_data_get(defaults, "strawberry", "characters.defaults"),
                                        "bonus_ap", "characters.defaults.strawberry"),
                              "characters.defaults.strawberry.bonus_ap")}
    for key, high in CARD_LIMITS:  # the engine checks them as it reads them, naming the defaults
        if not 0 <= default_numbers[key] <= high:
            raise _bad_data("characters.defaults", f"{key} must be in 0..{high}")
    abilities = _data_get(value, "abilities", "characters")
    read = {}
    for name in ABILITY_NAMES:
        where = f"characters.abilities.{name}"
        entry = _data_get(abilities, name, "characters.abilities")
        basic = _read_ability(entry, where)
        advanced = _read_ability(_ability_sides(entry, where)[1], where + ".advanced")
        read[name] = (basic, advanced)
    numbers = {}
    for card in cards:
        cw = f"character '{card['id']}'"
        for key in ("name", "faction", "archetype"):
            _data_str(_data_get(card, key, cw), f"{cw}.{key}")
        basic = dict(default_numbers)
        for key in ("ap", "item_slots"):
            if key in card:
                basic[key] = _data_int(card[key], f"{cw}.{key}")
        if "strawberry" in card:
            basic["bonus_ap"] = _data_int(_data_get(card["strawberry"], "bonus_ap", cw + ".strawberry"),
                                          cw + ".strawberry.bonus_ap")
        advanced = dict(basic)
        if "advanced" in card:
            adv = card["advanced"]
            if not isinstance(adv, dict):
                raise _bad_data(cw + ".advanced", "expected an object")
            for key in ("ap", "item_slots"):
                if key in adv:
                    advanced[key] = _data_int(adv[key], f"{cw}.advanced.{key}")
            if "strawberry" in adv:
                advanced["bonus_ap"] = _data_int(
                    _data_get(adv["strawberry"], "bonus_ap", cw + ".advanced.strawberry"),
                    cw + ".advanced.strawberry.bonus_ap")
        for name in _data_list(_data_get(card, "abilities", cw), cw + ".abilities"):
            _data_str(name, cw + ".abilities")
        numbers[card["id"]] = (basic, advanced)
    first = _data_get(value, "first_game_teams", "characters")
    first_teams = []
    for key in TEAM_KEYS:
        where = f"characters.first_game_teams.{key}"
        listed = _data_list(_data_get(first, key, "characters.first_game_teams"), where, 3)
        first_teams.append([_data_str(i, where) for i in listed])
    # The engine's checks of what it read (the Game constructor).
    for side in (0, 1):
        for name in ABILITY_NAMES:
            ap, per_activation, uses, number = read[name][side]
            if not (0 <= ap <= 20 and 0 <= per_activation <= 20 and 0 <= number <= 20):
                raise ValueError(f"ability '{name}': ap, per_activation and its number must be in "
                                 "0..20")
            if not 0 <= uses <= 200:
                raise ValueError(f"ability '{name}': uses_per_game must be in 0..200")
    entries = {c["id"]: c for c in cards}
    for card in cards:
        ident = card["id"]
        for team in (IMPERIAL, RAIDERS):
            basic, advanced = numbers[ident]
            for key, high in CARD_LIMITS:  # the engine: a negative advanced number is the basic one
                number = advanced[key] if sides[team] == "advanced" and advanced[key] >= 0 else basic[key]
                if not 0 <= number <= high:
                    raise ValueError(f"character '{ident}': {key} must be in 0..{high}")
            side = 1 if sides[team] == "advanced" else 0
            if not _short_name(card["name"]):
                raise ValueError(f"character '{ident}' has no name")
            limited = 0
            for name in card["abilities"]:
                if name not in ABILITY_NAMES:
                    raise ValueError(f"character '{ident}': unknown ability '{name}'")
                if read[name][side][2] > 0:
                    if limited:
                        raise ValueError(f"character '{ident}' has two per-game limited abilities")
                    limited += 1
    for name in ABILITY_NAMES:
        one_card = name in ACTIVE_WITH_IDS or name in ONE_CARD_PASSIVES
        if one_card and sum(name in c["abilities"] for c in cards) > 1:
            raise ValueError(f"ability '{name}' belongs to two cards")
    if teams == "first_game":
        for t in range(NUM_CHARACTERS):
            ident = first_teams[t // TEAM_SIZE][t % TEAM_SIZE]
            if ident not in entries:
                raise ValueError(f"unknown character '{ident}' in the teams")
        flat = first_teams[0] + first_teams[1]
        for t in range(NUM_CHARACTERS):
            for u in range(t):
                if flat[u] == flat[t]:
                    raise ValueError(f"character '{flat[t]}' is in the teams twice")
                if (t // TEAM_SIZE == u // TEAM_SIZE
                        and entries[flat[u]]["archetype"] == entries[flat[t]]["archetype"]):
                    raise ValueError(f"characters '{flat[u]}' and '{flat[t]}' of one team share the "
                                     f"archetype '{entries[flat[t]]['archetype']}'")
    # What the reference would read otherwise than the engine: refused (see above).
    # Point of Order's VP and the sentries are the Regent card's (both implementations key them on
    # the card id): those abilities stay on the Regent.
    if AB_POINT_OF_ORDER not in entries["regent"]["abilities"]:
        raise ValueError("character table: the regent card must have point_of_order (the Regent's VP)")
    for card in cards:
        for name in (AB_POINT_OF_ORDER, AB_SENTRY):
            if card["id"] != "regent" and name in card["abilities"]:
                raise ValueError(f"character table: character {card['id']!r}: {name} is the "
                                 "regent's ability only")
    for name in ABILITY_NAMES:
        entry = abilities[name]
        for spec in _ability_sides(entry, f"characters.abilities.{name}"):
            _check_ability_as_read(name, spec)
    for card in cards:
        for side in (0, 1):
            for key, high in CARD_LIMITS:
                if not 0 <= numbers[card["id"]][side][key] <= high:
                    raise ValueError(f"character table: character {card['id']!r}: "
                                     f"{'advanced ' if side else ''}{key} must be in 0..{high} "
                                     "(on both sides, whichever side plays)")


def _short_name(name):
    """The engine's short name of a card: its name after the last space, ASCII lower case."""
    word = name[name.rfind(" ") + 1:]
    return "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in word)


def _load_table(value, sides, teams):
    """(the `characters` parameter as parameters() reports it, the table the game reads)."""
    if value is None or (isinstance(value, str)
                         and value.strip().lower() in ("", "none", "null", "default")):
        return None, _data("characters.json")
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        path = os.fspath(value)
        try:
            with open(path, encoding="utf-8") as f:
                value = json.load(f)
        except OSError as e:
            raise ValueError(f"cannot read the character table {path!r}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"the character table {path!r} is not JSON: {e}") from None
    if not isinstance(value, dict):
        raise ValueError("parameter characters of imperial_harvest must be None, a dict with the "
                         "schema of characters.json or a path to such a file, got "
                         f"{type(value).__name__}")
    value = copy.deepcopy(value)  # the game's own: later changes of the caller's dict change nothing
    _check_table(value, sides, teams)
    table = dict(value)
    table["abilities"] = {name: value["abilities"][name] for name in ABILITY_NAMES}
    return value, table


class ImperialHarvestGame:
    """The game and its parameters ("Parameters"; points 34-36)."""

    name = "imperial_harvest"
    # Parameters whose values are text; a document holds any other one as its value (_document):
    # `characters` is a dict there, never a path to open.
    _TEXT_PARAMETERS = ("board", "sides", "teams", "setup")

    def __init__(self, **params):
        unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for "
                             f"imperial_harvest; valid parameters: {', '.join(DEFAULT_PARAMETERS)}")
        values = dict(DEFAULT_PARAMETERS, **params)
        if not (isinstance(values["board"], str) and values["board"] in BOARD_CHOICES):
            raise ValueError(f"parameter board must be one of {', '.join(map(repr, BOARD_CHOICES))},"
                             f" got {values['board']!r}")
        seed = None if values["board_seed"] is None else _as_int(values["board_seed"])
        if values["board_seed"] is not None and (seed is None or not 0 <= seed <= MAX_BOARD_SEED):
            raise ValueError(f"parameter board_seed must be None or an integer in 0..{MAX_BOARD_SEED}, "
                             f"got {values['board_seed']!r}")
        if seed is not None and values["board"] != "random":
            raise ValueError(f"parameter board_seed={seed} needs board='random' (board is {values['board']!r})")
        values["board_seed"] = seed
        values["sides"], self.sides = _normalise_sides(values["sides"])
        if not (isinstance(values["setup"], str) and values["setup"] in SETUP_CHOICES):
            raise ValueError(f"parameter setup must be one of {', '.join(map(repr, SETUP_CHOICES))},"
                             f" got {values['setup']!r}")
        teams = values["teams"]
        teams = teams.strip().lower().replace(" ", "") if isinstance(teams, str) else None
        values["characters"], self.table = _load_table(values["characters"], self.sides, teams)
        values["teams"], self.team_ids = self._parse_teams(values["teams"])
        self._params = values
        self.draft = values["teams"] == "draft"
        self.interactive = values["setup"] == "interactive"
        # D37: board="random" without board_seed draws a board per game, from new_initial_state's
        # seed; the standard board gives what random boards copy (camps, hydras, strawberries).
        self.random_boards = values["board"] == "random" and seed is None
        self.board = _named_board("standard") if self.random_boards else \
            _random_board(seed) if values["board"] == "random" else _named_board(values["board"])
        entries = {c["id"]: c for c in self.table["characters"]}
        self.cards = [{ident: Card(entries[ident], self.table, self.sides[team])
                       for ident in CARD_IDS} for team in (IMPERIAL, RAIDERS)]
        self.specs = [{name: _ability_spec(self.table, name, self.sides[team])
                       for name in self.table["abilities"]} for team in (IMPERIAL, RAIDERS)]

    def _parse_teams(self, value):
        problem = (f"parameter teams of imperial_harvest must be 'first_game', 'draft' or two lists "
                   f"of 3 character ids such as 'monk,regent,imperial_bard/barbarian,hound,nymph' "
                   f"(ids: {', '.join(CARD_IDS)}), got {value!r}")
        if not isinstance(value, str):
            raise ValueError(problem)
        text = value.strip().lower().replace(" ", "")
        if text == "draft":
            return text, None
        if text == "first_game":
            fg = self.table["first_game_teams"]
            return text, [list(fg["imperial"]), list(fg["raiders"])]
        teams = [t.split(",") for t in text.split("/")]
        if len(teams) != 2 or any(len(t) != 3 for t in teams):
            raise ValueError(problem)
        for t in teams:
            for ident in t:
                if ident not in CARD_IDS:
                    raise ValueError(f"parameter teams: unknown character {ident!r}; characters: "
                                     f"{', '.join(CARD_IDS)}")
        flat = teams[0] + teams[1]
        for ident in flat:
            if flat.count(ident) > 1:
                raise ValueError(f"parameter teams: character {ident!r} is chosen twice "
                                 "(6 distinct characters are needed)")
        archetype = {c["id"]: c["archetype"] for c in self.table["characters"]}
        for team, ids in zip(TEAM_KEYS, teams):
            for i in range(3):
                for j in range(i + 1, 3):
                    if archetype[ids[i]] == archetype[ids[j]]:
                        raise ValueError(f"parameter teams: {ids[i]} and {ids[j]} of the {team} "
                                         f"team share the archetype {archetype[ids[i]]!r} (no two "
                                         "characters of a team may share an archetype)")
        return text, teams

    def card(self, ident, team):
        return self.cards[team][ident]

    def spec(self, team, ability):
        return self.specs[team][ability]

    def __repr__(self):
        return "ImperialHarvestGame(" + ", ".join(
            f"{k}={v!r}" for k, v in self._params.items() if k != "characters") + ")"

    # Equal by value, like the engine's games and states (and the Harmonies reference's).
    def __eq__(self, other):
        return isinstance(other, ImperialHarvestGame) and other._params == self._params

    __hash__ = None  # type: ignore[assignment]  # as the Harmonies reference's game

    def parameters(self):
        params = dict(self._params)
        params["characters"] = copy.deepcopy(params["characters"])  # the caller's copy
        return params

    def num_players(self):
        return 2

    def num_distinct_actions(self):
        return NUM_ACTIONS

    def max_chance_outcomes(self):
        return 0

    def observation_shape(self):
        return (2131,)

    def max_game_length(self):
        """D38: 3000 (D17) for cards of at most 4 AP including the strawberry bonus; 3000 per started
        4 AP beyond that (a user's card table)."""
        ap_max = max(c.ap + c.bonus_ap for team in self.cards for c in team.values())
        return MAX_GAME_LENGTH * max(1, (ap_max + 3) // 4)

    def min_utility(self):
        """The returns of a finished game: +1 / -1 to the team with more VP, else 0 / 0."""
        return -1.0

    def max_utility(self):
        return 1.0

    def utility_sum(self):
        """Zero-sum."""
        return 0.0

    def new_initial_state(self, seed=None):
        """The start: the draft, the interactive setup, or point 5's fixed setup. The seed only
        matters with board="random" and no board_seed: it draws the game's board (D37)."""
        seed = _document.check_seed(seed)  # as the engine: 0..2**64-1 (None: 0)
        board = self.board
        if self.random_boards:
            board = _random_board(seed)
        s = ImperialHarvestState(self)
        s._hedges = set(board.hedges)
        s._tiles = None if board.tiles is None else {k: list(v) for k, v in board.tiles.items()}
        if self.interactive:
            s._bridges = set()
            s._camps = {}
            s._hydras = [None, None]
            s._strawberries = set()
        else:
            s._bridges = set(board.bridges)
            s._camps = dict(board.camps)
            s._hydras = list(board.hydras)
            s._strawberries = set(board.strawberries)
        if self.draft:
            s._phase = "draft"
            s._team = DRAFT_ORDER[0]
        else:
            for t in range(NUM_CHARACTERS):
                s._set_card(t, self.team_ids[t // TEAM_SIZE][t % TEAM_SIZE])
            s._after_teams()
        return s

    def from_json(self, text):
        """The state in a JSON document of `state.to_json()` (the engine's documents too)."""
        return _document.from_json(self, text)

    def state_from_dict(self, d):
        return _state_from_dict(self, d)


def facing_centre(cell):
    """Point 5 / D1."""
    x, y = xy(cell)
    dx, dy = 4.5 - x, 4.5 - y
    if abs(dx) > abs(dy):
        return 1 if dx > 0 else 3
    return 2 if dy > 0 else 0


_FLAGS = ("face_used", "grapple_used", "pounce_used", "throw_used", "charm_used")
_FLAGS2 = ("slither_used", "charge_used", "charged", "lure_used", "command_used", "sentry_used",
           "sprint_used", "retriever_used")


class Activation:
    """The activation in progress (state dict "activation")."""

    __slots__ = ("ap", "compulsions", "compel_target", "ballad", "war_cry", "bonus", "free_moves",
                 "gaze", "puppet") + _FLAGS + _FLAGS2

    def __init__(self):
        self.ap = 0
        for name in _FLAGS + _FLAGS2:
            setattr(self, name, False)
        self.compulsions = 0
        self.compel_target = None
        self.ballad = []
        self.war_cry = []
        self.bonus = False
        self.free_moves = 0
        self.gaze = []
        self.puppet = None

    def copy(self):
        other = Activation()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.ballad = list(self.ballad)
        other.war_cry = list(self.war_cry)
        other.gaze = list(self.gaze)
        return other

    def to_dict(self):
        d = {"ap": self.ap}
        for name in _FLAGS:
            d[name] = getattr(self, name)
        d.update({"compulsions": self.compulsions, "compel_target": self.compel_target,
                  "ballad": sorted(self.ballad), "war_cry": sorted(self.war_cry),
                  "bonus": self.bonus})
        for name in _FLAGS2:
            d[name] = getattr(self, name)
        d.update({"free_moves": self.free_moves, "gaze": sorted(self.gaze), "puppet": self.puppet})
        return d


# ------------------------------------------------------------------------------------------ state

class ImperialHarvestState:
    """A position. Cells are indices y*10+x (None: off the board); facings 0..3 = n,e,s,w."""

    def __init__(self, game):
        self._game = game
        self._hedges = set()
        self._strawberries = set()
        self._hydras = [None, None]
        self._bridges = set()
        self._camps = {}
        self._tiles = None
        self._ids = [None] * NUM_CHARACTERS  # card ids (None: not drafted yet)
        self._cell = [None] * NUM_TOKENS  # tokens 6, 7: sentries
        self._facing = [0] * NUM_TOKENS
        self._carried = [0] * NUM_CHARACTERS
        self._uses = [None] * NUM_CHARACTERS
        self._wolf = [False] * NUM_CHARACTERS
        self._regent_vp = [0, 0]
        self._plucked = [0, 0]
        self._deposited = [0, 0]
        self._planted = 0
        self._chopped = 0
        self._planted_hedges = set()  # D54: edges holding a hedge token
        self._chopped_hedges = set()  # D54: edges holding a chopped-hedge token
        self._round = 1
        self._team = IMPERIAL
        self._phase = "rest"
        self._setup_step = 0
        self._resting = None
        self._last_rested = [None, None]
        self._done = []
        self._active = None
        self._act = Activation()
        self._queue = []
        self._resume = None
        self._terminal = False
        self._move_number = 0
        self._defeated_now = []

    # ----------------------------------------------------------------- teams and cards

    def _set_card(self, t, ident):
        self._ids[t] = ident
        card = self._card(t)
        self._uses[t] = card.uses  # R19
        if AB_POINT_OF_ORDER in card.abilities:
            self._regent_vp[t // TEAM_SIZE] = self._game.spec(t // TEAM_SIZE, AB_POINT_OF_ORDER)["vp"]

    def _after_teams(self):
        """The teams are known: the interactive setup starts, or the fixed setup (point 5)."""
        if self._game.interactive:
            self._phase = "bridges"
            self._setup_step = 0
            self._team = BRIDGE_ORDER[0]
            return
        board = self._game.board
        for t in range(NUM_CHARACTERS):
            cell = board.start_spaces[t // TEAM_SIZE][t % TEAM_SIZE]
            self._cell[t] = cell
            self._facing[t] = facing_centre(cell)
        self._start_play()

    def _start_play(self):
        self._phase = "rest"
        self._setup_step = 0
        self._team = IMPERIAL
        self._round = 1

    def _card(self, t):
        """The Card of token t (None for sentries and undrafted slots)."""
        if t >= NUM_CHARACTERS or self._ids[t] is None:
            return None
        return self._game.card(self._ids[t], t // TEAM_SIZE)

    def _has(self, t, ability):
        card = self._card(t)
        return card is not None and ability in card.abilities

    def _regent_team(self):
        for t in range(NUM_CHARACTERS):
            if self._ids[t] == "regent":
                return t // TEAM_SIZE
        return None

    def _team_of(self, t):
        if t < NUM_CHARACTERS:
            return t // TEAM_SIZE
        return self._regent_team()

    def _enemy(self, a, b):
        ta, tb = self._team_of(a), self._team_of(b)
        return ta is not None and tb is not None and ta != tb

    def _with_ability(self, ability):
        """On-board tokens whose card has `ability`."""
        return [t for t in range(NUM_CHARACTERS)
                if self._cell[t] is not None and self._has(t, ability)]

    def _spec(self, owner, ability):
        """R17: the numbers of `ability` on the side of its card owner's team."""
        return self._game.spec(owner // TEAM_SIZE, ability)

    def _cost(self, owner, ability):
        return _first_number(self._spec(owner, ability)["ap"])

    def _character_camp(self, team):
        corner = self._camps.get(f"{TEAM_KEYS[team]}_character")
        return corner_cells(corner) if corner is not None else ()

    def _strawberry_camp(self, team):
        corner = self._camps.get(f"{TEAM_KEYS[team]}_strawberry")
        return corner_cells(corner) if corner is not None else ()

    def _on_own_camp(self, t):
        team = self._team_of(t)
        return team is not None and self._cell[t] in self._character_camp(team)

    # ----------------------------------------------------------------- protocol: queries

    @property
    def game(self):
        return self._game

    def get_game(self):
        return self._game

    def current_player(self):
        if self._terminal:
            return TERMINAL
        if self._phase == "respawn":
            return self._queue[0] // TEAM_SIZE
        return self._team

    def is_terminal(self):
        return self._terminal

    def is_chance_node(self):
        return False

    def chance_outcomes(self):
        return []

    def move_number(self):
        return self._move_number

    def vp(self, team):
        """Points 33, 58: plucked + carried + 2 x deposited + the Regent's remaining VP. `team` is
        0 or 1 (TypeError for a value that is not an int, ValueError out of range, as the engine)."""
        team = _document.check_player(team, 2, "team")
        carried = sum(self._carried[t] for t in range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE))
        return self._plucked[team] + carried + 2 * self._deposited[team] + self._regent_vp[team]

    def returns(self):
        if not self._terminal:
            return [0.0, 0.0]
        own, other = self.vp(IMPERIAL), self.vp(RAIDERS)
        if own == other:
            return [0.0, 0.0]
        return [1.0, -1.0] if own > other else [-1.0, 1.0]

    def reseed(self, seed):
        """The protocol's reseed: this game has no chance, so it only checks `seed`."""
        _document.check_reseed(seed)

    def clone(self):
        other = ImperialHarvestState.__new__(ImperialHarvestState)
        other.__dict__.update(self.__dict__)
        other._hedges = set(self._hedges)
        other._planted_hedges = set(self._planted_hedges)
        other._chopped_hedges = set(self._chopped_hedges)
        other._strawberries = set(self._strawberries)
        other._bridges = set(self._bridges)
        other._camps = dict(self._camps)
        other._tiles = None if self._tiles is None else {k: list(v) for k, v in self._tiles.items()}
        for name in ("_hydras", "_ids", "_cell", "_facing", "_carried", "_uses", "_wolf",
                     "_regent_vp", "_plucked", "_deposited", "_last_rested", "_done", "_queue",
                     "_defeated_now"):
            setattr(other, name, list(getattr(self, name)))
        other._act = self._act.copy()
        return other

    def child(self, action):
        """A new state: this one after `action`; this one is unchanged."""
        other = self.clone()
        other.apply_action(action)
        return other

    # copy.copy and copy.deepcopy give an independent state (the game, immutable, is shared).
    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    # ----------------------------------------------------------------- geometry (points 9-15)

    def _water(self, cell):
        return cell in MOAT and cell not in self._bridges

    def _tokens_at(self, cell):
        return [t for t in range(NUM_TOKENS) if self._cell[t] == cell]

    def _occupied_by_other(self, cell, token):
        return any(self._cell[t] == cell for t in range(NUM_TOKENS) if t != token)

    def _hound_blocks(self, mover, cell):
        """D25 Territorial: `cell` holds a Hound that is an enemy of `mover`."""
        if mover is None:
            return False
        for h in range(NUM_CHARACTERS):
            if self._cell[h] == cell and h != mover and self._has(h, AB_TERRITORIAL) \
                    and self._enemy(h, mover):
                return True
        return False

    def _axis_ok(self, cell, d):
        if cell not in self._bridges:
            return True
        return (bridge_axis(cell) == "ew") == (d in (1, 3))

    def _static_step(self, cell, d, mover=None):
        """Point 9 without hedges (Shadow Walk, Slither), with Territorial for `mover`."""
        target = neighbour(cell, *DELTA[d])
        if target is None or self._water(target) or self._water(cell):
            return None
        if not (self._axis_ok(cell, d) and self._axis_ok(target, d)):
            return None
        if self._hound_blocks(mover, target):
            return None
        return target

    def _step(self, cell, d, mover=None):
        """Point 9 (+ Territorial for `mover`): the cell one legal step away, or None."""
        target = self._static_step(cell, d, mover)
        if target is None or edge(cell, target) in self._hedges:
            return None
        return target

    def _diagonal(self, cell, k, mover=None):
        """Point 10 (+ Territorial: neither the middle nor the target an enemy Hound's cell)."""
        target = neighbour(cell, *DIAG_DELTA[k])
        if target is None or cell in self._bridges or target in self._bridges:
            return None
        dx, dy = DIAG_DELTA[k]
        horizontal, vertical = (1 if dx > 0 else 3), (2 if dy > 0 else 0)
        for first, second in ((horizontal, vertical), (vertical, horizontal)):
            middle = self._step(cell, first, mover)
            if middle is not None and self._step(middle, second, mover) == target:
                return target
        return None

    def _adjacent(self, a, b):
        if a == b:
            return True
        ax, ay = xy(a)
        bx, by = xy(b)
        return abs(ax - bx) + abs(ay - by) == 1 and edge(a, b) not in self._hedges

    def _los(self, token):
        """Point 13: [(cell, distance)] in the LOS of `token`: its own cell, then the ray."""
        cell = self._cell[token]
        cells = [(cell, 0)]
        d = self._facing[token]
        distance = 0
        while True:
            nxt = neighbour(cell, *DELTA[d])
            if nxt is None or edge(cell, nxt) in self._hedges:
                return cells
            distance += 1
            cells.append((nxt, distance))
            if nxt in self._hydras or any(self._cell[t] == nxt for t in range(NUM_TOKENS)):
                return cells
            cell = nxt

    def _in_los(self, token, max_distance=None, min_distance=0):
        found = []
        for cell, distance in self._los(token):
            if max_distance is not None and distance > max_distance:
                break
            if distance >= min_distance:
                found.extend((t, distance) for t in self._tokens_at(cell) if t != token)
        return found

    def _within_steps(self, start, n):
        """Point 15 / R20."""
        seen = {start}
        frontier = [start]
        for _ in range(n):
            nxt = []
            for cell in frontier:
                for d in range(4):
                    target = self._step(cell, d)
                    if target is not None and target not in seen:
                        seen.add(target)
                        nxt.append(target)
            frontier = nxt
        return seen

    def _in_facing_direction(self, token, cell):
        tx, ty = xy(self._cell[token])
        x, y = xy(cell)
        d = self._facing[token]
        if d == 0:
            return x == tx and y < ty
        if d == 1:
            return y == ty and x > tx
        if d == 2:
            return x == tx and y > ty
        return y == ty and x < tx

    def _shield_blocks(self, target, source_cell):
        """Points 23-24: Tower Shield blocks attacks and LOS effects from its facing direction."""
        return self._has(target, AB_TOWER_SHIELD) and self._in_facing_direction(target, source_cell)

    def _protected(self, target, attacker_cell):
        """Point 23 + 55 + 57: whether `target` is protected from an attack from `attacker_cell`."""
        team = self._team_of(target)
        cell = self._cell[target]
        if cell in self._character_camp(team):
            return True
        for g in range(NUM_CHARACTERS):
            if (g != target and g // TEAM_SIZE == team and self._cell[g] is not None
                    and self._has(g, AB_GUARDIAN)
                    and cell in self._within_steps(self._cell[g], GUARDIAN_RANGE)):
                return True
        if self._shield_blocks(target, attacker_cell):
            return True
        if self._has(target, AB_CAMOUFLAGE):  # 55
            for d in range(4):
                other = neighbour(cell, *DELTA[d])
                if other is not None and edge(cell, other) in self._hedges:
                    return True
        for r in range(NUM_CHARACTERS):  # 57, D32
            if (r != target and r // TEAM_SIZE == team and self._cell[r] is not None
                    and self._has(r, AB_SENTINEL)
                    and any(c == cell for c, _ in self._los(r))):
                return True
        return False

    def _attackable(self, actor, target):
        """D4: attacks target on-board enemy tokens that are not protected."""
        return (self._cell[target] is not None and self._enemy(actor, target)
                and not self._protected(target, self._cell[actor]))

    def _under_aura(self, t):
        """50: on a Nymph's cell or orthogonally next to her (hedges ignored), not the Nymph."""
        for n in self._with_ability(AB_AURA):
            if n != t and self._cell[t] is not None and manhattan(self._cell[n], self._cell[t]) <= 1:
                return True
        return False

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self):
        """Sorted list of the legal actions (empty once the game is over)."""
        if self._terminal:
            return []
        phase = self._phase
        if phase == "rest":
            return [A_REST + c for c in range(TEAM_SIZE)
                    if self._team * TEAM_SIZE + c != self._last_rested[self._team]]
        if phase == "pick":
            actions = []
            waiting = [c for c in range(TEAM_SIZE) if self._team * TEAM_SIZE + c != self._resting
                       and self._team * TEAM_SIZE + c not in self._done]
            actions += [A_ACTIVATE + c for c in waiting]
            if self._hydra_actions():
                actions += [A_FORFEIT + c for c in waiting]
            return actions
        if phase == "hydra":
            return self._hydra_actions()
        if phase == "respawn":
            return [A_RESPAWN + r for r in self._respawn_cells()]
        if phase == "draft":
            return self._draft_actions()
        if phase == "bridges":
            return self._bridge_actions()
        if phase == "camps":
            return self._camp_actions()
        if phase == "placement":
            return self._place_actions()
        if phase == "puppet":
            p = self._act.puppet
            return sorted(set(self._abilities_actions(p, p, NOT_PUPPETABLE, voluntary=False)))
        return sorted(set(self._act_actions()))

    # setup phases (64, 65)
    def _draft_actions(self):
        team = DRAFT_ORDER[self._setup_step]
        taken = {self._card(t).archetype for t in range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
                 if self._ids[t] is not None}
        drafted = set(self._ids)
        actions = []
        for k, ident in enumerate(CARD_IDS):
            if ident not in drafted and self._game.card(ident, team).archetype not in taken:
                actions.append(A_DRAFT + k)
        return actions

    def _bridge_actions(self):
        tile_of = moat_tile_of()
        used = {tile_of[c] for c in self._bridges}
        return [A_BRIDGE + b for b, c in enumerate(BRIDGE_CELLS)
                if tile_of[c] not in used and _legal_bridge_spot(c, self._hedges)]

    def _camp_actions(self):
        team = CAMP_ORDER[self._setup_step]
        taken = set(self._camps.values())
        actions = []
        for k, kind in enumerate(CAMP_KINDS):
            if kind.startswith(TEAM_KEYS[team]) and kind not in self._camps:
                actions += [A_CAMP + 4 * k + c for c, corner in enumerate(CORNERS)
                            if corner not in taken]
        return actions

    def _place_actions(self):
        token = PLACE_ORDER[self._setup_step]
        corner = self._camps[f"{TEAM_KEYS[token // TEAM_SIZE]}_character"]
        insignia = insignia_cell(corner)
        return [A_PLACE + 4 * r + f for r, cell in enumerate(corner_cells(corner))
                if cell != insignia and not self._tokens_at(cell) for f in range(4)]

    # play phases
    def _hydra_actions(self):
        return [A_HYDRA + 4 * h + d for h in range(2) for d in range(4)
                if self._hydra_destination(h, d) is not None]

    def _hydra_destination(self, h, d):
        """Point 27: where hydra h ends after one step in direction d, or None (also for a hydra
        removed by Poison Blood)."""
        start = self._hydras[h]
        if start is None:
            return None
        cell = start
        while True:
            cell = neighbour(cell, *DELTA[d])
            if cell is None or cell not in MOAT:
                return None
            if cell not in self._bridges:
                break
        if cell == self._hydras[1 - h]:
            return None
        return cell

    def _respawn_cells(self):
        camp = self._character_camp(self._queue[0] // TEAM_SIZE)
        free = [r for r, cell in enumerate(camp) if not self._tokens_at(cell)]
        return free or list(range(len(camp)))

    def _voluntary_ok(self, token, target, cost):
        """Point 11 + D24: a move into a cell holding another token needs AP + free moves >= 1
        left after paying for it."""
        left = self._act.ap - cost
        if left < 0:
            return False
        return left + self._act.free_moves >= 1 or not self._occupied_by_other(target, token)

    def _act_actions(self):
        act = self._act
        me = self._active
        card = self._card(me)
        cell = self._cell[me]
        ap = act.ap
        actions = [A_END]
        # Movement (points 9-11, 30, D24 free moves).
        free = act.free_moves > 0
        move_cost = 0 if free else STEP_COST
        for d in range(4):
            target = self._step(cell, d, me)
            if target is not None and self._move_ok(me, target, move_cost):
                actions.append(A_MOVE + d)
        if AB_AGILITY in card.abilities:
            for k in range(4):
                target = self._diagonal(cell, k, me)
                if target is not None and self._move_ok(me, target, move_cost):
                    actions.append(A_MOVE + 4 + k)
        if not act.face_used:
            actions += [A_FACE + d for d in range(4) if d != self._facing[me]]
        # Strawberries (point 21).
        carried = self._carried[me]
        if ap >= PLUCK_COST and cell in self._strawberries:
            actions.append(A_PLUCK)
        if ap >= DEPOSIT_COST and carried >= 1 and any(
                self._adjacent(cell, c) for c in self._strawberry_camp(me // TEAM_SIZE)):
            actions.append(A_DEPOSIT)
        if carried >= 1 and ap >= DISCARD_COST:
            actions.append(A_DISCARD)
        if ap >= PASS_COST and carried >= 1:
            for t in range(NUM_CHARACTERS):
                if t != me and self._cell[t] is not None and self._adjacent(cell, self._cell[t]):
                    free_slots = self._card(t).item_slots - self._carried[t]
                    for n in range(1, min(carried, free_slots, MAX_PASS) + 1):
                        actions.append(A_PASS + 4 * t + n - 1)
        # Abilities: own (unless under an Aura, 50), borrowed by Changeling (51).
        if not self._under_aura(me):
            actions += self._abilities_actions(me, me, frozenset(), voluntary=True)
            if AB_CHANGELING in card.abilities:
                for lender in range(NUM_CHARACTERS):
                    if (lender != me and self._cell[lender] is not None
                            and self._adjacent(cell, self._cell[lender])):
                        actions += self._abilities_actions(me, lender, NOT_BORROWABLE, voluntary=True)
        return actions

    def _move_ok(self, me, target, cost):
        """A `move`: free moves pay first (D24); the point-11 condition on AP + free moves."""
        act = self._act
        if act.ap < cost:
            return False
        left = act.ap - cost + act.free_moves - (1 if cost == 0 and act.free_moves > 0 else 0)
        return left >= 1 or not self._occupied_by_other(target, me)

    def _abilities_actions(self, actor, owner, excluded, voluntary):
        """The actions of the active abilities of `owner`'s card performed by `actor` (the owner
        itself, the Nymph borrowing them, or a puppet = owner)."""
        card = self._card(owner)
        actions = []
        for ability in ACTIVE_WITH_IDS:
            if ability in card.abilities and ability not in excluded:
                actions += self._ability_actions(ability, actor, owner, voluntary)
        return actions

    def _ability_actions(self, ability, actor, owner, voluntary):
        act = self._act
        ap = act.ap
        spec = self._spec(owner, ability)
        cost = _first_number(spec.get("ap", 0)) if ability not in (AB_PUPPETRY,) else 0
        cell = self._cell[actor]
        out = []

        def mover_ok(target, c):
            return self._voluntary_ok(actor, target, c) if voluntary else ap >= c

        def steps_of(t, base):
            return [base + 4 * t + d for d in range(4) if self._step(self._cell[t], d, t) is not None]

        if ability == AB_GRAPPLE:
            if act.grapple_used or ap < cost:
                return out
            for t in range(NUM_TOKENS):
                if t != actor and self._cell[t] is not None and self._adjacent(cell, self._cell[t]):
                    for o, (dx, dy) in enumerate(GRAPPLE_OFFSETS):
                        landing = neighbour(cell, dx, dy)
                        if (landing is not None and not self._water(landing)
                                and landing != self._cell[t] and not self._hound_blocks(t, landing)):
                            out.append(A_GRAPPLE + 12 * t + o)
        elif ability == AB_POUNCE:
            if not act.pounce_used:
                for k in range(4):
                    target = self._diagonal(cell, k, actor)
                    if target is not None and mover_ok(target, cost):
                        out.append(A_POUNCE + k)
        elif ability == AB_PLANT:
            if self._uses[owner] > 0 and self._planted < MAX_HEDGES_PLANTED and ap >= cost:
                for d in range(4):
                    target = neighbour(cell, *DELTA[d])
                    if target is not None and edge(cell, target) not in self._hedges:
                        out.append(A_PLANT + d)
        elif ability == AB_CHOP:
            if self._uses[owner] > 0 and self._chopped < MAX_HEDGES_CHOPPED and ap >= cost:
                for d in range(4):
                    target = neighbour(cell, *DELTA[d])
                    if target is not None and edge(cell, target) in self._hedges:
                        out.append(A_CHOP + d)
        elif ability == AB_SPEAR:
            if ap >= cost:
                for t, _ in self._in_los(actor, 1):
                    if self._adjacent(cell, self._cell[t]) and self._attackable(actor, t):
                        out.append(A_SPEAR + t)
        elif ability == AB_AXE:
            if ap >= cost:
                for t in range(NUM_TOKENS):
                    if (self._cell[t] is not None and self._adjacent(cell, self._cell[t])
                            and self._attackable(actor, t)):
                        out.append(A_AXE + t)
        elif ability == AB_THROW:
            if not act.throw_used and ap >= cost:
                for t, _ in self._in_los(actor, THROW_RANGE):
                    if self._attackable(actor, t):
                        out.append(A_THROW + t)
        elif ability == AB_CHARM:
            if not act.charm_used and ap >= cost:
                for t, _ in self._in_los(actor):
                    if not self._shield_blocks(t, cell):
                        out += steps_of(t, A_CHARM)
        elif ability == AB_SHADOW or ability == AB_SLITHER:
            if ability == AB_SLITHER and act.slither_used:
                return out
            base = A_SHADOW if ability == AB_SHADOW else A_SLITHER
            for d in range(4):
                target = self._static_step(cell, d, actor)
                if (target is not None and edge(cell, target) in self._hedges
                        and mover_ok(target, cost)):
                    out.append(base + d)
        elif ability == AB_COMPEL:
            limit = _last_number(spec["ap"])
            if act.compulsions < limit and ap >= cost:
                if act.compulsions == 0:
                    candidates = [t for t, _ in self._in_los(actor)]
                else:
                    t = act.compel_target
                    candidates = [t] if self._cell[t] is not None and t != actor else []
                for t in candidates:
                    if not self._shield_blocks(t, cell):
                        out += steps_of(t, A_COMPEL)
        elif ability == AB_BITE:
            if ap >= cost:
                for t in range(NUM_TOKENS):
                    if (self._cell[t] is not None and self._enemy(actor, t)
                            and self._adjacent(cell, self._cell[t])):
                        out += steps_of(t, A_BITE)
        elif ability == AB_HORNS:
            if act.charged:
                cost = _first_number(spec.get("ap_when_charging", cost))
            if ap >= cost:
                for t in range(NUM_TOKENS):
                    if (self._cell[t] is not None and self._adjacent(cell, self._cell[t])
                            and self._attackable(actor, t)):
                        out.append(A_HORNS + t)
        elif ability == AB_FLIP:
            if self._tiles is not None and cell in cell_slot() and ap >= cost:
                out.append(A_FLIP)
        elif ability == AB_CHARGE:
            if not act.charge_used and ap >= cost and self._charge_path(actor):
                out.append(A_CHARGE)
        elif ability == AB_LURE:
            if not act.lure_used and ap >= cost:
                toward = (self._facing[actor] + 2) % 4
                for t, distance in self._in_los(actor, min_distance=1):
                    if self._shield_blocks(t, cell):
                        continue
                    here = self._cell[t]
                    for n in range(1, min(LURE_MAX_STEPS, distance) + 1):
                        here = self._step(here, toward, t)
                        if here is None:
                            break
                        out.append(A_LURE + 2 * t + n - 1)
        elif ability == AB_VENT:
            if ap >= cost:
                near = self._within_steps(cell, VENT_RANGE)
                for t in range(NUM_TOKENS):
                    if t != actor and self._cell[t] in near:
                        out += steps_of(t, A_VENT)
        elif ability == AB_PUPPETRY:
            near = self._within_steps(cell, PUPPET_RANGE)
            for t in range(NUM_CHARACTERS):
                if (t != actor and self._cell[t] in near and not self._under_aura(t)
                        and self._abilities_actions(t, t, NOT_PUPPETABLE, voluntary=False)):
                    out.append(A_PUPPET + t)
        elif ability == AB_ARCHER:
            if ap >= cost:
                for t, _ in self._in_los(actor, ARCHER_RANGE):  # D44: own cell included
                    if self._attackable(actor, t):
                        out.append(A_ARCHER + t)
        elif ability == AB_COMMAND:
            if not act.command_used and ap >= cost:
                team = self._team_of(actor)
                for t in range(NUM_TOKENS):
                    if t != actor and self._cell[t] is not None and self._team_of(t) == team:
                        out += steps_of(t, A_COMMAND)
        elif ability == AB_SENTRY:
            limit = spec.get("max_on_board", len(SENTRY_TOKENS))
            on_board = sum(1 for s in SENTRY_TOKENS if self._cell[s] is not None)
            if not act.sentry_used and ap >= cost and on_board < limit and on_board < 2:
                for d in range(4):
                    target = self._step(cell, d, actor)
                    if target is not None and not self._tokens_at(target):
                        out += [A_SENTRY + 4 * d + f for f in range(4)]
        elif ability == AB_WOLF:
            if ap >= cost:
                out.append(A_WOLF)
        elif ability == AB_SPRINT:
            if not act.sprint_used and ap >= cost:
                out.append(A_SPRINT)
        return out

    def _charge_path(self, actor):
        """48: the cells of a Charge (one per step), [] if illegal."""
        cell = self._cell[actor]
        d = self._facing[actor]
        first = None
        for c, distance in self._los(actor):
            if distance == 0:
                continue
            tokens = self._tokens_at(c)
            if tokens:
                first = (tokens, distance)
                break
        if first is None:
            return []
        tokens, distance = first
        if distance < 2 or not any(self._enemy(actor, t) for t in tokens):
            return []
        path = []
        for _ in range(min(CHARGE_MAX_STEPS, distance - 1)):
            nxt = self._step(cell, d, actor)
            if nxt is None:
                break
            path.append(nxt)
            cell = nxt
        return path

    def legal_actions_mask(self):
        mask = [0] * NUM_ACTIONS
        for action in self.legal_actions():
            mask[action] = 1
        return mask

    # ----------------------------------------------------------------- applying actions

    def apply_action(self, action):
        a = _action_int(action)
        legal = self.legal_actions()
        if a not in legal:
            listing = ", ".join(f"{b} ({self.action_to_string(b)})" for b in legal)
            raise ValueError(f"illegal action {action!r} for imperial_harvest; legal actions: "
                             f"{listing or 'none (the game is over)'}")
        self._move_number += 1
        self._defeated_now = []
        phase = self._phase
        if phase in SETUP_PHASES:
            self._apply_setup(a)
            return
        gaze = None
        over = False  # the action ends the activation in progress (end, the forfeit's hydra step)
        if phase == "rest":
            self._resting = self._team * TEAM_SIZE + (a - A_REST)
            self._phase = "pick"
        elif phase == "pick":
            self._apply_pick(a)
        elif phase == "hydra":
            h, d = divmod(a - A_HYDRA, 4)
            self._hydras[h] = self._hydra_destination(h, d)
            over = True
        elif phase == "respawn":
            self._apply_respawn(a - A_RESPAWN)
        elif a == A_END:
            over = True
        else:
            gaze = self._apply_act(a)
        # R14: gaze, passes, end of the activation (`end`, hydra step, active character
        # defeated), passes again (Wolf Form may have ended with the activation).
        if gaze is not None:
            self._petrifying_gaze(*gaze)
        self._passes()
        if over or (self._active is not None and self._cell[self._active] is None):
            self._activation_over()
        if not self._terminal:
            self._passes()
        self._finish_action()

    # setup (64, 65)
    def _apply_setup(self, a):
        phase = self._phase
        if phase == "draft":
            team = DRAFT_ORDER[self._setup_step]
            slot = sum(1 for t in range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
                       if self._ids[t] is not None)
            self._set_card(team * TEAM_SIZE + slot, CARD_IDS[a - A_DRAFT])
            self._setup_step += 1
            if self._setup_step == len(DRAFT_ORDER):
                self._setup_step = 0
                self._after_teams()
            else:
                self._team = DRAFT_ORDER[self._setup_step]
        elif phase == "bridges":
            self._bridges.add(BRIDGE_CELLS[a - A_BRIDGE])
            self._setup_step += 1
            if self._setup_step == len(BRIDGE_ORDER):
                self._phase = "camps"
                self._setup_step = 0
                self._team = CAMP_ORDER[0]
            else:
                self._team = BRIDGE_ORDER[self._setup_step]
        elif phase == "camps":
            k, c = divmod(a - A_CAMP, 4)
            self._camps[CAMP_KINDS[k]] = CORNERS[c]
            self._setup_step += 1
            if self._setup_step == len(CAMP_ORDER):
                self._hydras_and_strawberries()
                self._phase = "placement"
                self._setup_step = 0
                self._team = PLACE_ORDER[0] // TEAM_SIZE
            else:
                self._team = CAMP_ORDER[self._setup_step]
        else:
            r, f = divmod(a - A_PLACE, 4)
            token = PLACE_ORDER[self._setup_step]
            corner = self._camps[f"{TEAM_KEYS[token // TEAM_SIZE]}_character"]
            self._cell[token] = corner_cells(corner)[r]
            self._facing[token] = f
            self._setup_step += 1
            if self._setup_step == len(PLACE_ORDER):
                self._start_play()
            else:
                self._team = PLACE_ORDER[self._setup_step] // TEAM_SIZE

    def _hydras_and_strawberries(self):
        """65.3-4: hydras on the elbows nearest the strawberry camps (hydra 1: lower cell index),
        the 12 marked strawberries plus the interior corner nearest each hydra (D35)."""
        elbows = sorted(cell_of(*ELBOW_OF_CORNER[self._camps[f"{team}_strawberry"]])
                        for team in TEAM_KEYS)
        self._hydras = list(elbows)
        berries = set(self._game.board.strawberry_list[:MARKED_STRAWBERRIES])
        for h in elbows:
            berries.add(cell_of(*ELBOW_STRAWBERRY[xy(h)]))
        self._strawberries = berries

    # play
    def _apply_pick(self, a):
        if a < A_FORFEIT:
            token = self._team * TEAM_SIZE + (a - A_ACTIVATE)
            card = self._card(token)
            self._active = token
            self._act = Activation()
            self._act.bonus = self._carried[token] >= 1
            self._act.ap = card.ap + (card.bonus_ap if self._act.bonus else 0)
            self._phase = "act"
        else:
            self._done.append(self._team * TEAM_SIZE + (a - A_FORFEIT))
            self._phase = "hydra"

    def _apply_respawn(self, r):
        token = self._queue.pop(0)
        self._cell[token] = self._character_camp(token // TEAM_SIZE)[r]
        if not self._queue:
            self._phase = self._resume
            self._resume = None

    def _apply_act(self, a):
        """Step 1 of the resolution: the action's own effect. Returns the Petrifying Gaze context
        (active token, {basilisk: was in its LOS}) for a voluntary move of the active character,
        else None."""
        act = self._act
        me = self._active
        puppet = self._phase == "puppet"
        if puppet:
            actor = owner = act.puppet
            self._phase = "act"
            act.puppet = None
        else:
            actor = owner = me
        ability = ability_of_action(a)
        if ability is not None and not puppet and not self._has(me, ability):
            owner = next(t for t in range(NUM_CHARACTERS)
                         if t != me and self._cell[t] is not None and self._has(t, ability)
                         and self._adjacent(self._cell[me], self._cell[t]))  # Changeling
        voluntary = actor == me and (A_MOVE <= a < A_FACE or ability in (
            AB_POUNCE, AB_SHADOW, AB_SLITHER))  # a Charge watches each of its steps (D53)
        gaze = self._gaze_before(me) if voluntary else None
        if ability is None:
            self._apply_basic(a, me)
        else:
            self._apply_ability(a, ability, actor, owner)
        return gaze

    def _apply_basic(self, a, me):
        act = self._act
        cell = self._cell[me]
        card = self._card(me)
        team = me // TEAM_SIZE
        if A_MOVE <= a < A_FACE:
            if act.free_moves > 0:
                act.free_moves -= 1
            else:
                act.ap -= STEP_COST
            if a < A_MOVE + 4:
                self._cell[me] = self._step(cell, a - A_MOVE, me)
            else:
                self._cell[me] = self._diagonal(cell, a - A_MOVE - 4, me)
        elif A_FACE <= a < A_PLUCK:
            act.face_used = True
            self._facing[me] = a - A_FACE
        elif a == A_PLUCK:
            act.ap -= PLUCK_COST
            self._strawberries.discard(cell)
            self._plucked[team] += 1
            if self._carried[me] < card.item_slots:
                self._set_carried(me, self._carried[me] + 1)
            if AB_RETRIEVER in card.abilities and not act.retriever_used:  # 43
                act.retriever_used = True
                act.free_moves += RETRIEVER_FREE_MOVES
        elif a == A_DEPOSIT:
            act.ap -= DEPOSIT_COST
            self._deposited[team] += self._carried[me]
            self._set_carried(me, 0)
        elif a == A_DISCARD:
            act.ap -= DISCARD_COST
            self._set_carried(me, self._carried[me] - 1)
        elif A_PASS <= a < A_RESPAWN:
            t, n = divmod(a - A_PASS, 4)
            n += 1
            act.ap -= PASS_COST
            self._carried[t] += n
            self._set_carried(me, self._carried[me] - n)

    def _apply_ability(self, a, ability, actor, owner):
        act = self._act
        cell = self._cell[actor]
        spec = self._spec(owner, ability)
        cost = 0 if ability == AB_PUPPETRY else _first_number(spec.get("ap", 0))
        if ability == AB_HORNS and act.charged:
            cost = _first_number(spec.get("ap_when_charging", cost))
            act.charged = False
        act.ap -= cost
        if ability == AB_GRAPPLE:
            t, o = divmod(a - A_GRAPPLE, 12)
            act.grapple_used = True
            self._cell[t] = neighbour(cell, *GRAPPLE_OFFSETS[o])
        elif ability == AB_POUNCE:
            act.pounce_used = True
            self._cell[actor] = self._diagonal(cell, a - A_POUNCE, actor)
        elif ability == AB_PLANT:
            self._uses[owner] -= 1
            self._planted += 1
            e = edge(cell, neighbour(cell, *DELTA[a - A_PLANT]))
            self._hedges.add(e)
            self._planted_hedges.add(e)  # D54: a hedge token (a chopped-hedge token there stays)
        elif ability == AB_CHOP:
            self._uses[owner] -= 1
            self._chopped += 1
            e = edge(cell, neighbour(cell, *DELTA[a - A_CHOP]))
            self._hedges.discard(e)
            self._planted_hedges.discard(e)  # D54: a hedge token there leaves the game
            self._chopped_hedges.add(e)  # D54: the edge holds a chopped-hedge token (at most one)
        elif ability in (AB_SPEAR, AB_AXE, AB_THROW, AB_HORNS, AB_ARCHER):
            base = {AB_SPEAR: A_SPEAR, AB_AXE: A_AXE, AB_THROW: A_THROW, AB_HORNS: A_HORNS,
                    AB_ARCHER: A_ARCHER}[ability]
            if ability == AB_THROW:
                act.throw_used = True
            self._attack(actor, a - base)
        elif ability == AB_CHARM:
            t, d = divmod(a - A_CHARM, 4)
            act.charm_used = True
            self._cell[t] = self._step(self._cell[t], d, t)
        elif ability == AB_SHADOW:
            self._cell[actor] = self._static_step(cell, a - A_SHADOW, actor)
        elif ability == AB_SLITHER:
            act.slither_used = True
            self._cell[actor] = self._static_step(cell, a - A_SLITHER, actor)
        elif ability == AB_COMPEL:
            t, d = divmod(a - A_COMPEL, 4)
            act.compulsions += 1
            act.compel_target = t
            self._cell[t] = self._step(self._cell[t], d, t)
        elif ability == AB_BITE:
            t, d = divmod(a - A_BITE, 4)
            self._bite(t)
            self._cell[t] = self._step(self._cell[t], d, t)
        elif ability == AB_FLIP:
            self._flip(actor)
        elif ability == AB_CHARGE:
            path = self._charge_path(actor)
            act.charge_used = True
            act.charged = True
            voluntary = actor == self._active and self._phase != "puppet"
            for i, cell in enumerate(path):  # D53: step by step; the gaze watches each step
                if i > 0:
                    self._between_steps()
                if self._cell[actor] is None:
                    break
                gaze = self._gaze_before(actor) if voluntary else None
                self._cell[actor] = cell
                if gaze is not None:
                    self._petrifying_gaze(*gaze)
        elif ability == AB_LURE:
            t, n = divmod(a - A_LURE, 2)
            act.lure_used = True
            toward = (self._facing[actor] + 2) % 4
            for i in range(n + 1):
                if i > 0:
                    self._between_steps()
                if self._cell[t] is None:
                    break
                self._cell[t] = self._step(self._cell[t], toward, t)
        elif ability == AB_VENT:
            t, d = divmod(a - A_VENT, 4)
            self._cell[t] = self._step(self._cell[t], d, t)
        elif ability == AB_PUPPETRY:
            act.puppet = a - A_PUPPET
            self._phase = "puppet"
        elif ability == AB_COMMAND:
            t, d = divmod(a - A_COMMAND, 4)
            act.command_used = True
            self._cell[t] = self._step(self._cell[t], d, t)
        elif ability == AB_SENTRY:
            d, f = divmod(a - A_SENTRY, 4)
            act.sentry_used = True
            s = next(s for s in SENTRY_TOKENS if self._cell[s] is None)
            self._cell[s] = self._step(cell, d, actor)
            self._facing[s] = f
        elif ability == AB_WOLF:
            self._wolf[actor] = True
        elif ability == AB_SPRINT:
            act.sprint_used = True
            act.free_moves += SPRINT_FREE_MOVES

    def _attack(self, attacker, target):
        """An attack defeats its target; Poison Blood (40, D22) defeats an adjacent attacker too
        unless it stands on its own character camp."""
        poison = (self._has(target, AB_POISON)
                  and self._adjacent(self._cell[attacker], self._cell[target]))
        self._defeat(target)
        if poison and self._cell[attacker] is not None and not self._on_own_camp(attacker):
            self._defeat(attacker)

    def _bite(self, t):
        """45 / "Bite and conservation": drop one carried strawberry on the target's cell."""
        if t >= NUM_CHARACTERS or self._carried[t] == 0:
            return
        self._set_carried(t, self._carried[t] - 1)
        self._strawberries.add(self._cell[t])  # one already there: the dropped one leaves the game

    def _flip(self, actor):
        """47 / D27 / D28 / D54: the slot's tile turns over, mirrored along the actor's facing
        axis; every edge touching the slot is a hedge iff it holds a hedge token, or the current
        faces of all slots print a hedge there and it holds no chopped-hedge token."""
        slot = cell_slot()[self._cell[actor]]
        face, t = self._tiles[slot]
        face = face[:-1] + ("b" if face[-1] == "a" else "a")
        k, mirror = t % 4, t // 4
        if self._facing[actor] in (1, 3):
            k = (k + 2) % 4
        self._tiles[slot] = [face, k + 4 * (1 - mirror)]
        built = hedges_from_tiles(self._tiles)
        for c in slot_cells()[slot]:
            for d in range(4):
                other = neighbour(c, *DELTA[d])
                if other is None:
                    continue
                e = edge(c, other)
                if e in self._planted_hedges or (e in built and e not in self._chopped_hedges):
                    self._hedges.add(e)
                else:
                    self._hedges.discard(e)

    def _set_carried(self, token, n):
        """Point 19 / R6."""
        self._carried[token] = n
        if token != self._active:
            return
        act, bonus = self._act, self._card(token).bonus_ap
        if n >= 1 and not act.bonus:
            act.bonus = True
            act.ap += bonus
        elif n == 0 and act.bonus:
            act.bonus = False
            act.ap = max(0, act.ap - bonus)

    def _defeat(self, token):
        """Point 25 / 58: carried strawberries leave the game, the token leaves the board (a
        sentry for good); every defeat of a token of the Regent's team costs 1 Regent VP; D56: a
        compelled token's defeat (a sentry's too) uses up the compulsions left."""
        team = self._team_of(token)
        self._cell[token] = None
        if token < NUM_CHARACTERS:
            self._carried[token] = 0
            self._defeated_now.append(token)
        act = self._act
        if act.compulsions and act.compel_target == token:  # D56: the compulsion ends with its target
            compeller = next(t for t in range(NUM_CHARACTERS) if self._has(t, AB_COMPEL))
            act.compulsions = _last_number(self._spec(compeller, AB_COMPEL)["ap"])
        if team is not None:
            self._regent_vp[team] = max(0, self._regent_vp[team] - 1)

    def _gaze_before(self, me):
        """Which Basilisks that may still gaze at `me` see it now (before its move)."""
        return (me, {b: self._cell[me] in [c for c, _ in self._los(b)]
                     for b in self._with_ability(AB_GAZE) if b != me and b not in self._act.gaze})

    def _between_steps(self):
        """D53: between the steps of a Charge or an Alluring Gaze, the passes strike and the Bards
        act on the active character, as after an action (each step is a change)."""
        self._passes()
        if self._active is not None and self._cell[self._active] is not None:
            self._bard_check()

    def _petrifying_gaze(self, me, before):
        """42 / D23: a voluntary move of the active character into a Basilisk's LOS."""
        if self._cell[me] is None:
            return
        act = self._act
        for b, was_in in before.items():
            if self._cell[b] is None or was_in:
                continue
            if self._cell[me] not in [c for c, _ in self._los(b)]:
                continue
            if self._shield_blocks(me, self._cell[b]):
                continue
            loss = self._spec(b, AB_GAZE)["ap_loss"]
            act.ap = max(0, act.ap - loss)
            act.gaze.append(b)

    def _passes(self):
        """Step 3: hydras, Feral and sentries attack in passes until nobody is hit."""
        while True:
            hits = {}  # victim -> collectors: ("hydra", h) or ("token", t)
            for h, hc in enumerate(self._hydras):
                if hc is None:
                    continue
                for d in range(4):
                    c = neighbour(hc, *DELTA[d])
                    if c is None:
                        continue
                    for t in self._tokens_at(c):
                        if not self._on_own_camp(t) and not (t < NUM_CHARACTERS and self._wolf[t]):
                            hits.setdefault(t, []).append(("hydra", h))
            for s in self._with_ability(AB_FERAL):
                c = self._cell[s]
                for t in self._tokens_at(c):
                    if self._enemy(s, t) and not self._protected(t, c):
                        hits.setdefault(t, []).append(("token", s))
            for s in SENTRY_TOKENS:
                if self._cell[s] is None:
                    continue
                for c, distance in self._los(s):
                    if distance > 1:
                        break
                    for t in self._tokens_at(c):
                        if self._enemy(s, t) and self._adjacent(self._cell[s], c) \
                                and not self._protected(t, self._cell[s]):
                            hits.setdefault(t, []).append(("token", s))
            if not hits:
                return
            for t in sorted(hits):
                self._defeat(t)
            for t in sorted(hits):
                if self._has(t, AB_POISON):
                    for kind, who in hits[t]:
                        if kind == "hydra":
                            self._hydras[who] = None
                        elif self._cell[who] is not None and not self._on_own_camp(who):
                            self._defeat(who)

    def _set_phase(self, phase):
        """The play phase to go on with (after the respawns if some are pending)."""
        if self._phase == "respawn":
            self._resume = phase
        else:
            self._phase = phase

    def _activation_over(self):
        """The activation in progress (or the forfeit's hydra step) is over: next pick, or the
        turn ends."""
        if self._active is not None:
            self._done.append(self._active)
            self._active = None
            self._act = Activation()
        if len(self._done) == 2:
            self._end_turn()
        else:
            self._set_phase("pick")
        self._wolf = [False] * NUM_CHARACTERS  # D33: Wolf Form lasts one activation

    def _end_turn(self):
        """Point 22 / R2."""
        self._last_rested[self._team] = self._resting
        self._resting = None
        self._done = []
        self._set_phase("rest")
        if self._team == RAIDERS and (not self._strawberries or self._round == ROUNDS):
            self._terminal = True
            self._phase = "rest"  # R1: pending respawns are dropped
            self._resume = None
            self._queue = []
            return
        if self._team == RAIDERS:
            self._round += 1
        self._team = 1 - self._team

    def _finish_action(self):
        """R1 / R3 / R5."""
        if self._defeated_now:
            if self._terminal:
                self._defeated_now = []  # R1: pending respawns are dropped (tokens stay off)
                return
            self._queue.extend(sorted(self._defeated_now))
            self._defeated_now = []
            if self._phase != "respawn":
                self._resume = self._phase
                self._phase = "respawn"
        if self._active is not None:
            self._bard_check()

    def _bard_check(self):
        """Point 20 / D3 / R5."""
        act, me = self._act, self._active
        mx, my = xy(self._cell[me])
        team = me // TEAM_SIZE
        gain = loss = 0
        for b in range(NUM_CHARACTERS):
            if b == me or self._cell[b] is None:
                continue
            bx, by = xy(self._cell[b])
            if abs(bx - mx) + abs(by - my) > BARD_RANGE:
                continue
            if b // TEAM_SIZE == team and self._has(b, AB_BALLAD) and b not in act.ballad:
                act.ballad.append(b)
                gain += 1
            if b // TEAM_SIZE != team and self._has(b, AB_WAR_CRY) and b not in act.war_cry:
                act.war_cry.append(b)
                loss += 1
        if gain or loss:
            act.ap = max(0, act.ap + gain - loss)

    # ----------------------------------------------------------------- strings

    def _short(self, t):
        return "sentry" if t >= NUM_CHARACTERS else self._card(t).short

    def _qualified(self, t):
        if t >= NUM_CHARACTERS:
            return f"sentry{t - NUM_CHARACTERS + 1}"  # R13
        if self._ids[t] is None:
            return f"{TEAM_PREFIX[t // TEAM_SIZE]}-#{t % TEAM_SIZE}"
        return f"{TEAM_PREFIX[t // TEAM_SIZE]}-{self._card(t).short}"

    def _target_name(self, t):
        """`x,y`, `x,y:short`, `x,y:qualified`, or the qualified name off the board (R13)."""
        cell = self._cell[t]
        if cell is None or (t < NUM_CHARACTERS and self._ids[t] is None):
            return self._qualified(t)
        here = self._tokens_at(cell)
        if len(here) == 1:
            return cell_text(cell)
        if [self._short(u) for u in here].count(self._short(t)) == 1:
            return f"{cell_text(cell)}:{self._short(t)}"
        return f"{cell_text(cell)}:{self._qualified(t)}"

    def _grappler(self):
        """R13: the token a grapple offset is relative to."""
        if self._phase == "puppet":
            return self._act.puppet
        me = self._active
        if me is not None and (self._has(me, AB_GRAPPLE) or self._has(me, AB_CHANGELING)):
            return me
        return next((t for t in range(NUM_CHARACTERS) if self._has(t, AB_GRAPPLE)), None)

    def _grapple_landing_text(self, o):
        grappler = self._grappler()
        dx, dy = GRAPPLE_OFFSETS[o]
        if grappler is None or self._cell[grappler] is None:
            return f"{dx:+d},{dy:+d}"
        x, y = xy(self._cell[grappler])
        return f"{x + dx},{y + dy}"

    def _camp_cell_text(self, team, r):
        camp = self._character_camp(team)
        return cell_text(camp[r]) if camp else f"#{r}"

    def action_to_string(self, action):
        a = _action_int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")

        def slot_name(c):  # R11, R13
            t = self._team * TEAM_SIZE + c
            return self._card(t).short if self._ids[t] is not None else f"#{c}"

        if a < A_ACTIVATE:
            return f"rest {slot_name(a - A_REST)}"
        if a < A_FORFEIT:
            return f"activate {slot_name(a - A_ACTIVATE)}"
        if a < A_HYDRA:
            return f"forfeit {slot_name(a - A_FORFEIT)}"
        if a < A_MOVE:
            h, d = divmod(a - A_HYDRA, 4)
            return f"hydra {h + 1} {DIRS[d]}"
        if a < A_FACE:
            return f"move {(DIRS + DIAGS)[a - A_MOVE]}"
        if a < A_PLUCK:
            return f"face {DIRS[a - A_FACE]}"
        if a < A_PASS:
            return ("pluck", "deposit", "discard", "end")[a - A_PLUCK]
        if a < A_RESPAWN:
            t, n = divmod(a - A_PASS, 4)
            return f"pass {self._target_name(t)} {n + 1}"
        if a < A_GRAPPLE:
            team = self._queue[0] // TEAM_SIZE if self._queue else self._team
            return f"respawn {self._camp_cell_text(team, a - A_RESPAWN)}"
        if a < A_POUNCE:
            t, o = divmod(a - A_GRAPPLE, 12)
            return f"grapple {self._target_name(t)} {self._grapple_landing_text(o)}"
        if a < A_PLANT:
            return f"pounce {DIAGS[a - A_POUNCE]}"
        if a < A_SPEAR:
            return f"plant {DIRS[a - A_PLANT]}"
        if a < A_CHOP:
            return f"spear {self._target_name(a - A_SPEAR)}"
        if a < A_AXE:
            return f"chop {DIRS[a - A_CHOP]}"
        if a < A_THROW:
            return f"axe {self._target_name(a - A_AXE)}"
        if a < A_CHARM:
            return f"throw {self._target_name(a - A_THROW)}"
        if a < A_SHADOW:
            t, d = divmod(a - A_CHARM, 4)
            return f"charm {self._target_name(t)} {DIRS[d]}"
        if a < A_COMPEL:
            return f"shadow {DIRS[a - A_SHADOW]}"
        if a < A_SLITHER:
            t, d = divmod(a - A_COMPEL, 4)
            return f"compel {self._target_name(t)} {DIRS[d]}"
        if a < A_BITE:
            return f"slither {DIRS[a - A_SLITHER]}"
        if a < A_HORNS:
            t, d = divmod(a - A_BITE, 4)
            return f"bite {self._target_name(t)} {DIRS[d]}"
        if a < A_FLIP:
            return f"horns {self._target_name(a - A_HORNS)}"
        if a == A_FLIP:
            return "flip"
        if a == A_CHARGE:
            return "charge"
        if a < A_VENT:
            t, n = divmod(a - A_LURE, 2)
            return f"lure {self._target_name(t)} {n + 1}"
        if a < A_PUPPET:
            t, d = divmod(a - A_VENT, 4)
            return f"vent {self._target_name(t)} {DIRS[d]}"
        if a < A_ARCHER:
            return f"puppet {self._target_name(a - A_PUPPET)}"
        if a < A_COMMAND:
            return f"archer {self._target_name(a - A_ARCHER)}"
        if a < A_SENTRY:
            t, d = divmod(a - A_COMMAND, 4)
            return f"command {self._target_name(t)} {DIRS[d]}"
        if a < A_WOLF:
            d, f = divmod(a - A_SENTRY, 4)
            return f"sentry {DIRS[d]} {DIRS[f]}"
        if a == A_WOLF:
            return "wolf"
        if a == A_SPRINT:
            return "sprint"
        if a < A_BRIDGE:
            return f"draft {CARD_IDS[a - A_DRAFT]}"
        if a < A_CAMP:
            return f"bridge {cell_text(BRIDGE_CELLS[a - A_BRIDGE])}"
        if a < A_PLACE:
            k, c = divmod(a - A_CAMP, 4)
            return f"camp {CAMP_KINDS[k]} {CORNERS[c]}"
        r, f = divmod(a - A_PLACE, 4)
        if self._phase == "placement":
            team = PLACE_ORDER[self._setup_step] // TEAM_SIZE
        else:
            team = self._team
        return f"place {self._camp_cell_text(team, r)} {DIRS[f]}"

    def string_to_action(self, text):
        if not isinstance(text, str):
            raise TypeError(f"action text must be a str, got {type(text).__name__}")
        wanted = " ".join(text.lower().split())
        for a in range(NUM_ACTIONS):
            if self.action_to_string(a).lower() == wanted:
                return a
        raise ValueError(f"not an imperial_harvest action in this state: {str.__repr__(text)} (e.g. 'rest monk', "
                         f"'move ne', 'pass 9,1 2', 'respawn 9,9', 'charm 4,5 s', 'draft regent')")

    # ----------------------------------------------------------------- observation

    def observation_tensor(self, player=None):
        """Part 2 "Observation (exact)": 19 planes x 100, 6 x 28 character values, 24 globals,
        25 activation values, 14 draft values = 2131 floats, from `player`'s view."""
        if player is None:
            player = IMPERIAL if self._terminal else self.current_player()
        elif _as_int(player) not in (IMPERIAL, RAIDERS):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        o = _as_int(player)
        order = [o * TEAM_SIZE + c for c in range(TEAM_SIZE)] + \
                [(1 - o) * TEAM_SIZE + c for c in range(TEAM_SIZE)]

        def plane(cells):
            values = [0.0] * NUM_CELLS
            for c in cells:
                if c is not None:
                    values[c] = 1.0
            return values

        hedges = self._hedges
        east = [c for c in range(NUM_CELLS) if c % SIZE < SIZE - 1 and (c, c + 1) in hedges]
        south = [c for c in range(NUM_CELLS) if c < NUM_CELLS - SIZE and (c, c + SIZE) in hedges]
        obs = []
        obs += plane(c for c in range(NUM_CELLS) if c not in MOAT)
        obs += plane(c for c in MOAT if c not in self._bridges)
        obs += plane(self._bridges)
        obs += plane(self._character_camp(o))
        obs += plane(self._strawberry_camp(o))
        obs += plane(self._character_camp(1 - o))
        obs += plane(self._strawberry_camp(1 - o))
        obs += plane(east)
        obs += plane(south)
        obs += plane(self._strawberries)
        obs += plane(self._hydras)
        for t in order:
            obs += plane([self._cell[t]])
        regent_team = self._regent_team()
        own_sentries = [self._cell[s] for s in SENTRY_TOKENS if regent_team == o]
        enemy_sentries = [self._cell[s] for s in SENTRY_TOKENS
                          if regent_team is not None and regent_team != o]
        obs += plane(own_sentries)
        obs += plane(enemy_sentries)
        act = self._act
        for t in order:
            facing = [0.0] * 4
            facing[self._facing[t]] = 1.0
            obs += facing
            team = t // TEAM_SIZE
            obs += [
                float(self._carried[t]),
                float(t == self._resting),
                float(t == self._last_rested[team]),
                float(t == self._active),
                float(act.ap if t == self._active else 0),
                float(t in self._done),
                float(self._uses[t] or 0),
                float(self._cell[t] is not None),
            ]
            card = [0.0] * len(CARD_IDS)
            if self._ids[t] is not None:
                card[CARD_IDS.index(self._ids[t])] = 1.0
            obs += card
            obs += [float(self._wolf[t]), float(act.free_moves if t == self._active else 0)]
        phase = [0.0] * len(PHASES)
        phase[PHASES.index(self._phase)] = 1.0
        sides = self._game.sides
        obs += [float(self._round), float(self._team == o), float(self.vp(o)), float(self.vp(1 - o)),
                float(self._deposited[o]), float(self._deposited[1 - o])] + phase + \
               [float(self._planted), float(self._chopped),
                float(self._regent_vp[o]), float(self._regent_vp[1 - o]),
                float(self._hydras[0] is not None), float(self._hydras[1] is not None),
                float(sides[o] == "advanced"), float(sides[1 - o] == "advanced")]
        if self._active is None:
            obs += [0.0] * 23
        else:
            puppet = [0.0] * NUM_TOKENS
            if act.puppet is not None:
                puppet[act.puppet] = 1.0
            obs += [float(act.face_used), float(act.grapple_used), float(act.pounce_used),
                    float(act.throw_used), float(act.charm_used), float(act.compulsions)]
            obs += [float(getattr(act, name)) for name in _FLAGS2]
            obs += [float(len(act.gaze))] + puppet
        obs += [float(self._setup_step), 0.0]
        drafted = set(self._ids)
        obs += [0.0 if ident in drafted else 1.0 for ident in CARD_IDS]
        return obs

    # ----------------------------------------------------------------- state dict

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
        def pair(c):
            return None if c is None else list(xy(c))

        return {
            "hedges": sorted([pair(a), pair(b)] for a, b in self._hedges),
            "strawberries": [pair(c) for c in sorted(self._strawberries)],
            "hydras": [pair(c) for c in self._hydras],
            "characters": [{"id": self._ids[t], "cell": pair(self._cell[t]),
                            "facing": DIRS[self._facing[t]], "strawberries": self._carried[t],
                            "uses_left": self._uses[t], "wolf_form": self._wolf[t]}
                           for t in range(NUM_CHARACTERS)],
            "sentries": [None if self._cell[s] is None else
                         {"cell": pair(self._cell[s]), "facing": DIRS[self._facing[s]]}
                         for s in SENTRY_TOKENS],
            "bridges": [pair(c) for c in sorted(self._bridges)],
            "camps": {kind: self._camps[kind] for kind in CAMP_KINDS if kind in self._camps},
            "tiles": None if self._tiles is None else
            {slot: list(self._tiles[slot]) for slot in _slots() if slot in self._tiles},
            "regent_vp": list(self._regent_vp),
            "plucked": list(self._plucked),
            "deposited": list(self._deposited),
            "hedges_planted": self._planted,
            "hedges_chopped": self._chopped,
            "planted_hedges": sorted([pair(a), pair(b)] for a, b in self._planted_hedges),
            "chopped_hedges": sorted([pair(a), pair(b)] for a, b in self._chopped_hedges),
            "round": self._round,
            "team": self._team,
            "phase": self._phase,
            "resting": self._resting,
            "last_rested": list(self._last_rested),
            "done": list(self._done),
            "active": self._active,
            "activation": self._act.to_dict(),
            "respawn_queue": list(self._queue),
            "resume_phase": self._resume,
            "current_player": self.current_player(),
            "move_number": self._move_number,
            "setup_step": self._setup_step,
        }

    # ----------------------------------------------------------------- display

    def __str__(self):
        """The board: hedges `|` / `---`, water `~`, bridges `=` / `‖`, camps IC/IS/RC/RS,
        strawberries `*`, hydras H1 H2, characters by letter (imperial upper case) with a facing
        arrow, sentries `S`/`s`."""
        arrows = "^>v<"
        letters = {}
        for team in (IMPERIAL, RAIDERS):
            used = set()
            for t in range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE):
                short = self._card(t).short if self._ids[t] else "?"
                letter = next(c for c in short + "abcdefghijklmnopqrstuvwxyz" if c not in used)
                used.add(letter)
                letters[t] = letter.upper() if team == IMPERIAL else letter
        regent_team = self._regent_team()
        for s in SENTRY_TOKENS:
            letters[s] = "S" if regent_team == IMPERIAL else "s"
        camp_label = {}
        for team, prefix in ((IMPERIAL, "I"), (RAIDERS, "R")):
            for c in self._character_camp(team):
                camp_label[c] = prefix + "C"
            for c in self._strawberry_camp(team):
                camp_label[c] = prefix + "S"

        def content(c):
            here = self._tokens_at(c)
            berry = "*" if c in self._strawberries else " "
            if here:
                t = here[0]
                more = "+" if len(here) > 1 else berry
                return letters[t] + arrows[self._facing[t]] + more
            if c in self._hydras:
                return f"H{self._hydras.index(c) + 1}~"
            if self._water(c):
                return "~~~"
            if c in self._bridges:
                return "===" if bridge_axis(c) == "ew" else " ‖ "
            if c in camp_label:
                return camp_label[c] + berry
            return " ." + berry if berry == " " else " " + berry + " "

        lines = ["    " + "".join(f" {x}  " for x in range(SIZE))]
        for y in range(SIZE):
            row = f" {y} |"
            for x in range(SIZE):
                c = cell_of(x, y)
                wall = "|" if x == SIZE - 1 or (c, c + 1) in self._hedges else " "
                row += content(c) + wall
            lines.append(row)
            under = "   +"
            for x in range(SIZE):
                c = cell_of(x, y)
                under += ("---" if y == SIZE - 1 or (c, c + SIZE) in self._hedges else "   ") + "+"
            lines.append(under)
        lines.insert(1, "   +" + "---+" * SIZE)
        legend = []
        for t in range(NUM_CHARACTERS):
            where = "off board" if self._cell[t] is None else cell_text(self._cell[t])
            legend.append(f"{letters[t]}={self._qualified(t)}({where}, {self._carried[t]} carried)")
        lines.append("  " + "  ".join(legend))
        lines.append(f"  round {self._round}, {TEAM_NAMES[self._team]}' turn, phase {self._phase}; "
                     f"VP imperial {self.vp(IMPERIAL)} raiders {self.vp(RAIDERS)} "
                     f"(deposited {self._deposited[0]}/{self._deposited[1]}, regent VP "
                     f"{self._regent_vp[0]}/{self._regent_vp[1]})")
        if self._terminal:
            r = self.returns()
            outcome = "draw" if r[0] == 0 else f"{TEAM_NAMES[0 if r[0] > 0 else 1]} win"
            lines.append(f"  move {self._move_number}, game over: {outcome}")
        elif self._active is not None:
            lines.append(f"  move {self._move_number}, {self._qualified(self._active)} acting with "
                         f"{self._act.ap} AP; player {self.current_player()} to move")
        else:
            lines.append(f"  move {self._move_number}, player {self.current_player()} to move")
        return "\n".join(lines)

    def __repr__(self):
        return f"<ImperialHarvestState {self.to_dict()}>"

    def __eq__(self, other):
        if not isinstance(other, ImperialHarvestState):
            return False
        return self._game == other._game and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable


# ------------------------------------------------------------------------------------ from a dict

_KEYS = ("hedges", "strawberries", "hydras", "characters", "plucked", "deposited", "hedges_planted",
         "hedges_chopped", "planted_hedges", "chopped_hedges", "round", "team", "phase", "resting",
         "last_rested", "done", "active", "activation", "respawn_queue", "resume_phase", "current_player",
         "move_number")
_KEYS2 = ("sentries", "bridges", "camps", "tiles", "regent_vp", "setup_step")  # part 2's, required too (R21)
_ACTIVATION_KEYS = ("ap", "face_used", "grapple_used", "pounce_used", "throw_used", "charm_used",
                    "compulsions", "compel_target", "ballad", "war_cry", "bonus")
_ACTIVATION_KEYS2 = _FLAGS2 + ("free_moves", "gaze", "puppet")
_CHARACTER_KEYS = ("id", "cell", "facing", "strawberries", "uses_left")
_CHARACTER_KEYS2 = ("wolf_form",)
_FLAG_ABILITY = {"grapple_used": AB_GRAPPLE, "pounce_used": AB_POUNCE, "throw_used": AB_THROW,
                 "charm_used": AB_CHARM, "slither_used": AB_SLITHER, "charge_used": AB_CHARGE,
                 "charged": AB_CHARGE, "lure_used": AB_LURE, "command_used": AB_COMMAND,
                 "sentry_used": AB_SENTRY, "sprint_used": AB_SPRINT, "retriever_used": AB_RETRIEVER}


def _state_from_dict(game, d):
    board = game.board

    def fail(problem):
        raise ValueError(f"invalid imperial_harvest state: {problem}")

    def integer(value, what, low, high):
        v = _document_int(value)
        if v is None or not low <= v <= high:
            fail(f"{what} must be an integer in {low}..{high}, got {value!r}")
        return v

    def boolean(value, what):
        if not _is_bool(value):  # numpy's too, as integers may be numpy's
            fail(f"{what} must be true or false, got {value!r}")
        return bool(value)

    def listing(value, what, length=None):
        if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
            fail(f"{what} must be a list" + (f" of {length}" if length is not None else "")
                 + f", got {value!r}")
        return value

    def cell(value, what):
        listing(value, what, 2)
        return cell_of(integer(value[0], f"{what} x", 0, SIZE - 1),
                       integer(value[1], f"{what} y", 0, SIZE - 1))

    def token(value, what, nullable=True, high=NUM_CHARACTERS - 1):
        if value is None and nullable:
            return None
        return integer(value, what, 0, high)

    def tokens(value, what, high=NUM_CHARACTERS - 1):
        found = [token(v, f"{what} entry", nullable=False, high=high) for v in listing(value, what)]
        if len(set(found)) != len(found):
            fail(f"{what} repeats a token: {value!r}")
        return found

    def choice(value, what, choices):
        if not (isinstance(value, str) and value in choices):
            fail(f"{what} must be one of {', '.join(choices)}, got {value!r}")
        return value

    def exact_keys(value, what, required, optional):
        # Part-2 keys are required too: a dict is this version's, whole (the engine reads alike).
        required, optional = list(required) + list(optional), []
        if not isinstance(value, dict):
            fail(f"{what} must be a dict, got {value!r}")
        keys = set(value)
        if not set(required) <= keys or not keys <= set(required) | set(optional):
            fail(f"{what} keys must be {sorted(required + optional)}, got {sorted(map(str, keys))}")

    exact_keys(d, "the state", _KEYS, _KEYS2)
    s = ImperialHarvestState(game)

    # Teams: characters' ids (R19 / draft).
    listing(d["characters"], "characters", NUM_CHARACTERS)
    for t, entry in enumerate(d["characters"]):
        exact_keys(entry, f"characters[{t}]", _CHARACTER_KEYS, _CHARACTER_KEYS2)
        ident = entry["id"]
        if game.draft:
            if ident is not None:
                choice(ident, f"characters[{t}] id", CARD_IDS)
        elif ident != game.team_ids[t // TEAM_SIZE][t % TEAM_SIZE]:
            fail(f"characters[{t}] id must be "
                 f"{game.team_ids[t // TEAM_SIZE][t % TEAM_SIZE]!r}, got {ident!r}")
        s._ids[t] = ident
    picked = [i for i in s._ids if i is not None]
    if len(set(picked)) != len(picked):
        fail("a character is drafted twice")
    for team in (IMPERIAL, RAIDERS):
        slots = s._ids[team * TEAM_SIZE:(team + 1) * TEAM_SIZE]
        if None in slots and any(i is not None for i in slots[slots.index(None):]):
            fail("drafted characters fill a team's slots in order")
        kinds = [game.card(i, team).archetype for i in slots if i is not None]
        if len(set(kinds)) != len(kinds):
            fail(f"two characters of team {team} share an archetype")

    s._phase = choice(d["phase"], "phase", PHASES)
    in_draft = s._phase == "draft"
    if game.draft and not in_draft and len(picked) != NUM_CHARACTERS:
        fail("all six characters are drafted after the draft")
    if in_draft and not game.draft:
        fail("phase draft needs teams='draft'")
    if s._phase in ("bridges", "camps", "placement") and not game.interactive:
        fail(f"phase {s._phase} needs setup='interactive'")

    # Board parts that setup may change.
    s._bridges = set(board.bridges) if "bridges" not in d else set()
    if "bridges" in d:
        previous = -1
        tile_of = moat_tile_of()
        for i, c in enumerate(listing(d["bridges"], "bridges")):
            c = cell(c, f"bridges[{i}]")
            if c not in BRIDGE_CELLS or c <= previous:
                fail("bridges must be non-elbow moat cells sorted by cell index")
            if any(tile_of[b] == tile_of[c] for b in s._bridges):
                fail("two bridges on one moat tile")
            previous = c
            s._bridges.add(c)
    s._camps = dict(board.camps) if "camps" not in d else {}
    if "camps" in d:
        if not isinstance(d["camps"], dict):
            fail("camps must be a dict kind -> corner")
        for kind, corner in d["camps"].items():
            choice(kind, "camp kind", CAMP_KINDS)
            choice(corner, f"camps[{kind}]", CORNERS)
        if len(set(d["camps"].values())) != len(d["camps"]):
            fail("two camps share a corner")
        s._camps = dict(d["camps"])
    if "tiles" in d:
        if (d["tiles"] is None) != (board.tiles is None):
            fail("tiles must be null exactly for a board without tiles")
        if d["tiles"] is not None:
            if not isinstance(d["tiles"], dict) or set(d["tiles"]) != set(_slots()):
                fail(f"tiles must name the slots {sorted(_slots())}")
            tiles = {}
            for slot, value in d["tiles"].items():
                listing(value, f"tiles[{slot}]", 2)
                face, transform = value
                if not isinstance(face, str) or face not in _data("tiles.json")["faces"]:
                    fail(f"tiles[{slot}] face {face!r} unknown")
                transform = integer(transform, f"tiles[{slot}] transform", 0, 7)
                try:
                    face_edges(face, transform, slot)
                except ValueError:
                    fail(f"tiles[{slot}] {face} with transform {transform} does not fit the slot")
                tiles[slot] = [face, transform]
            if len({f[:-1] for f, _ in tiles.values()}) != len(tiles):
                fail("a physical tile is used twice")
            s._tiles = tiles
    else:
        s._tiles = None if board.tiles is None else {k: list(v) for k, v in board.tiles.items()}

    def edges(value, what):
        found = set()
        previous = None
        for i, h in enumerate(listing(value, what)):
            listing(h, f"{what}[{i}]", 2)
            a, b = cell(h[0], f"{what}[{i}][0]"), cell(h[1], f"{what}[{i}][1]")
            if manhattan(a, b) != 1:
                fail(f"{what}[{i}] {h!r} does not join two orthogonally adjacent cells")
            key = (xy(a), xy(b))
            if a > b or (previous is not None and key <= previous):
                fail(f"{what} must be pairs with the lower cell index first, sorted, "
                     "without repeats")
            previous = key
            found.add(edge(a, b))
        return found

    s._hedges = edges(d["hedges"], "hedges")
    # D54: the hedge tokens and chopped-hedge tokens on the board.
    s._planted_hedges = edges(d["planted_hedges"], "planted_hedges")
    s._chopped_hedges = edges(d["chopped_hedges"], "chopped_hedges")
    for a, b in sorted(s._planted_hedges):
        if (a, b) not in s._hedges:
            fail(f"planted_hedges holds {[list(xy(a)), list(xy(b))]}, which is not in hedges")
    for a, b in sorted(s._chopped_hedges):
        if (a, b) in s._hedges and (a, b) not in s._planted_hedges:
            fail(f"chopped_hedges holds {[list(xy(a)), list(xy(b))]}, which is in hedges but not "
                 "in planted_hedges")

    previous = -1
    for i, c in enumerate(listing(d["strawberries"], "strawberries")):
        c = cell(c, f"strawberries[{i}]")
        if s._water(c):
            fail(f"strawberry on water at {cell_text(c)}")
        if c <= previous:
            fail("strawberries must be sorted by cell index, without repeats")
        previous = c
        s._strawberries.add(c)

    listing(d["hydras"], "hydras", 2)
    s._hydras = [None if c is None else cell(c, f"hydras[{i}]") for i, c in enumerate(d["hydras"])]
    for h in s._hydras:
        if h is not None and not s._water(h):
            fail(f"hydra on {cell_text(h)}, which is not water")
    if s._hydras[0] is not None and s._hydras[0] == s._hydras[1]:
        fail("the two hydras share a cell")

    for t, entry in enumerate(d["characters"]):
        what = f"characters[{t}]"
        if entry["cell"] is not None:
            s._cell[t] = cell(entry["cell"], f"{what} cell")
            if s._water(s._cell[t]):
                fail(f"{what} stands on water at {cell_text(s._cell[t])}")
        s._facing[t] = DIRS.index(choice(entry["facing"], f"{what} facing", DIRS))
        s._wolf[t] = boolean(entry.get("wolf_form", False), f"{what} wolf_form")
        card = s._card(t)
        if card is None:
            if entry["cell"] is not None or entry["strawberries"] != 0 or \
                    entry["uses_left"] is not None or s._wolf[t] or entry["facing"] != "n":
                fail(f"{what}: an undrafted slot has cell null, facing n, 0 strawberries, "
                     "uses_left null, wolf_form false")
            continue
        s._carried[t] = integer(entry["strawberries"], f"{what} strawberries", 0, card.item_slots)
        if s._cell[t] is None and s._carried[t]:
            fail(f"{what} is off the board but carries strawberries")
        if card.uses is None:
            if entry["uses_left"] is not None:
                fail(f"{what} uses_left must be null, got {entry['uses_left']!r}")
        else:
            s._uses[t] = integer(entry["uses_left"], f"{what} uses_left", 0, card.uses)

    regent_team = s._regent_team()
    if "sentries" in d:
        listing(d["sentries"], "sentries", 2)
        for i, entry in enumerate(d["sentries"]):
            if entry is None:
                continue
            exact_keys(entry, f"sentries[{i}]", ("cell", "facing"), ())
            if regent_team is None:
                fail("sentries on the board need a Regent")
            s._cell[SENTRY_TOKENS[i]] = cell(entry["cell"], f"sentries[{i}] cell")
            if s._water(s._cell[SENTRY_TOKENS[i]]):
                fail(f"sentries[{i}] stands on water")
            s._facing[SENTRY_TOKENS[i]] = DIRS.index(choice(entry["facing"], f"sentries[{i}] facing",
                                                            DIRS))
    if "regent_vp" in d:
        listing(d["regent_vp"], "regent_vp", 2)
        for team in (IMPERIAL, RAIDERS):
            has = any(s._ids[t] == "regent" for t in range(team * TEAM_SIZE, (team + 1) * TEAM_SIZE))
            high = game.spec(team, AB_POINT_OF_ORDER)["vp"] if has else 0
            s._regent_vp[team] = integer(d["regent_vp"][team], f"regent_vp[{team}]", 0, high)
    else:
        for t in range(NUM_CHARACTERS):
            if s._ids[t] == "regent":
                s._regent_vp[t // TEAM_SIZE] = game.spec(t // TEAM_SIZE, AB_POINT_OF_ORDER)["vp"]

    listing(d["plucked"], "plucked", 2)
    listing(d["deposited"], "deposited", 2)
    s._plucked = [integer(v, f"plucked[{i}]", 0, TOTAL_STRAWBERRIES)
                  for i, v in enumerate(d["plucked"])]
    s._deposited = [integer(v, f"deposited[{i}]", 0, TOTAL_STRAWBERRIES)
                    for i, v in enumerate(d["deposited"])]
    held = sum(s._carried) + sum(s._deposited)
    if sum(s._plucked) > TOTAL_STRAWBERRIES:
        fail(f"more strawberries plucked than the game has ({TOTAL_STRAWBERRIES})")
    if held > sum(s._plucked):
        fail("more strawberries carried and deposited than plucked")
    if len(s._strawberries) + held > TOTAL_STRAWBERRIES:
        fail(f"more strawberries on the board, carried and deposited than the game has "
             f"({TOTAL_STRAWBERRIES})")
    s._planted = integer(d["hedges_planted"], "hedges_planted", 0, MAX_HEDGES_PLANTED)
    s._chopped = integer(d["hedges_chopped"], "hedges_chopped", 0, MAX_HEDGES_CHOPPED)
    if len(s._planted_hedges) > s._planted:
        fail(f"planted_hedges holds {len(s._planted_hedges)} edges, more than hedges_planted "
             f"({s._planted})")
    if len(s._chopped_hedges) > s._chopped:
        fail(f"chopped_hedges holds {len(s._chopped_hedges)} edges, more than hedges_chopped "
             f"({s._chopped})")
    s._round = integer(d["round"], "round", 1, ROUNDS)
    s._team = integer(d["team"], "team", 0, 1)
    s._setup_step = integer(d.get("setup_step", 0), "setup_step", 0, 5)
    s._resting = token(d["resting"], "resting")
    listing(d["last_rested"], "last_rested", 2)
    s._last_rested = [token(v, f"last_rested[{i}]") for i, v in enumerate(d["last_rested"])]
    for team, t in enumerate(s._last_rested):
        if t is not None and t // TEAM_SIZE != team:
            fail(f"last_rested[{team}] = {t} is not a token of that team")
    s._done = tokens(d["done"], "done")
    s._active = token(d["active"], "active")
    s._queue = tokens(d["respawn_queue"], "respawn_queue")
    if d["resume_phase"] is not None:
        s._resume = choice(d["resume_phase"], "resume_phase", ("rest", "pick", "act", "hydra"))
    s._move_number = integer(d["move_number"], "move_number", 0, MAX_STORED_MOVE_NUMBER)

    a = d["activation"]
    exact_keys(a, "activation", _ACTIVATION_KEYS, _ACTIVATION_KEYS2)
    act = Activation()
    act.ap = integer(a["ap"], "activation ap", 0, MAX_STORED_AP)
    for name in _FLAGS + ("bonus",) + _FLAGS2:
        setattr(act, name, boolean(a.get(name, False), f"activation {name}"))
    act.compulsions = integer(a["compulsions"], "activation compulsions", 0, MAX_COMPULSIONS)
    act.compel_target = token(a["compel_target"], "activation compel_target", high=NUM_TOKENS - 1)
    act.ballad = tokens(a["ballad"], "activation ballad")
    act.war_cry = tokens(a["war_cry"], "activation war_cry")
    act.free_moves = integer(a.get("free_moves", 0), "activation free_moves", 0,
                             MAX_STORED_FREE_MOVES)
    act.gaze = tokens(a.get("gaze", []), "activation gaze")
    act.puppet = token(a.get("puppet"), "activation puppet")
    s._act = act

    terminal = _document_int(d["current_player"]) == TERMINAL and not isinstance(d["current_player"], bool)
    s._terminal = terminal
    phase = s._phase
    if phase in SETUP_PHASES:
        orders = {"draft": DRAFT_ORDER, "bridges": BRIDGE_ORDER, "camps": CAMP_ORDER,
                  "placement": PLACE_ORDER}
        if s._setup_step >= len(orders[phase]):
            fail(f"setup_step {s._setup_step} out of range for phase {phase}")
        expected_team = (orders[phase][s._setup_step] // TEAM_SIZE if phase == "placement"
                         else orders[phase][s._setup_step])
        if s._team != expected_team or s._round != 1:
            fail(f"phase {phase} step {s._setup_step}: team must be {expected_team}, round 1")
        if (s._resting is not None or s._done or s._active is not None or s._queue
                or s._resume is not None or any(v is not None for v in s._last_rested)
                or terminal):
            fail(f"phase {phase} has no resting, done, active, queue or turn history")
        if phase == "draft" and len(picked) != s._setup_step:
            fail("during the draft, setup_step counts the characters drafted")
        if phase == "draft" and any(s._ids[DRAFT_ORDER[i] * TEAM_SIZE + i // 2] is None
                                    for i in range(s._setup_step)):
            fail("during the draft, characters are drafted in the draft order (I, R, I, R, I, R)")
        if phase == "placement":
            placed = [t for t in PLACE_ORDER[:s._setup_step]]
            for t in range(NUM_TOKENS):
                if (s._cell[t] is not None) != (t in placed):
                    fail("during placement exactly the tokens placed so far are on the board")
            for t in placed:
                corner = s._camps.get(f"{TEAM_KEYS[t // TEAM_SIZE]}_character")
                if corner is None or s._cell[t] not in corner_cells(corner) \
                        or s._cell[t] == insignia_cell(corner):
                    fail(f"token {t} is placed on a cell of its character camp other than the "
                         "insignia")
            if game.interactive:
                elbows = sorted(cell_of(*ELBOW_OF_CORNER[s._camps[kind]])
                                for kind in ("imperial_strawberry", "raiders_strawberry")
                                if kind in s._camps)
                if s._hydras != elbows:
                    fail("during placement the hydras are on the elbows nearest the strawberry camps")
        elif any(s._cell[t] is not None for t in range(NUM_TOKENS)):
            fail(f"no token is on the board in phase {phase}")
        if phase in ("bridges", "camps") or (phase == "draft" and game.interactive):
            if s._hydras != [None, None] or s._strawberries:
                fail("hydras and strawberries come at the end of the camps phase")
        if phase == "bridges" and (len(s._bridges) != s._setup_step or s._camps):
            fail("bridges phase: setup_step bridges, no camps")
        if phase == "camps" and (len(s._camps) != s._setup_step or len(s._bridges) != 4):
            fail("camps phase: setup_step camps placed after the 4 bridges")
        if phase == "camps":
            for team in (IMPERIAL, RAIDERS):
                mine = sum(kind.startswith(TEAM_KEYS[team]) for kind in s._camps)
                turns = CAMP_ORDER[:s._setup_step].count(team)
                if mine != turns:
                    fail(f"camps phase: the {TEAM_KEYS[team]} team placed {mine} camp(s) in its {turns} "
                         "turn(s) so far (order I, R, R, I)")
        if game.interactive and phase in ("draft", "bridges"):
            # Hedges do not change before play: each moat tile still without a bridge needs a spot
            # with both joins unhedged, or the bridges phase gets stuck.
            tile_of = moat_tile_of()
            bridged = {tile_of[c] for c in s._bridges}
            open_tiles = {tile_of[c] for c in BRIDGE_CELLS if _legal_bridge_spot(c, s._hedges)}
            if not set(tile_of.values()) - bridged <= open_tiles:
                fail("the hedges leave a moat tile without a bridge spot (both joins unhedged)")
        if game.interactive and phase == "draft" and (s._bridges or s._camps):
            fail("with setup='interactive' bridges and camps come after the draft")
        if not (game.interactive and phase in ("draft", "bridges", "camps")) and len(s._camps) != 4:
            fail("all four camps are placed from the placement on (with setup='fixed', always)")
        for t in range(NUM_CHARACTERS):
            if s._cell[t] is None and s._facing[t] != 0:
                fail(f"phase {phase}: token {t} is off the board with a facing other than n")
        # Nothing of play happens before the setup ends.
        if (any(s._plucked) or any(s._deposited) or any(s._carried) or any(s._wolf)
                or s._planted or s._chopped):
            fail(f"phase {phase}: nothing is plucked, carried, deposited, planted or chopped and "
                 "no Wolf Form is on before the setup ends")
        for team in (IMPERIAL, RAIDERS):
            if team == regent_team and s._regent_vp[team] != game.spec(team, AB_POINT_OF_ORDER)["vp"]:
                fail(f"phase {phase}: the Regent's VP (regent_vp) are full before play")
    else:
        if s._setup_step != 0:
            fail("setup_step is 0 outside the setup phases")
        if len(s._camps) != 4:
            fail("all four camps are placed during play")
    if act.to_dict() != Activation().to_dict() and s._active is None:
        fail("activation must hold its default values when no token is active")

    playing = phase in PLAY_PHASES
    if playing:
        base_phase = s._resume if phase == "respawn" else phase
        if phase == "respawn":
            if not s._queue or s._resume is None:
                fail("phase respawn needs a non-empty respawn_queue and a resume_phase")
        elif s._queue or s._resume is not None:
            fail("respawn_queue and resume_phase must be empty / null outside phase respawn")
        team_tokens = range(s._team * TEAM_SIZE, (s._team + 1) * TEAM_SIZE)
        if s._resting is not None and s._resting not in team_tokens:
            fail(f"resting token {s._resting} is not of team {s._team}")
        if s._resting is not None and s._resting == s._last_rested[s._team]:
            fail("the resting token rested on its team's previous turn too")
        for t in s._done:
            if t not in team_tokens or t == s._resting:
                fail(f"done token {t} is not an active character of team {s._team}")
        if any(s._wolf) and s._active is None:
            fail("Wolf Form lasts one activation: wolf_form is true only while a character acts")
        if terminal:
            if phase != "rest" or s._resting is not None or s._done or s._active is not None:
                fail("a finished game must be in phase rest with no resting, done or active token")
            if s._team != RAIDERS or (s._strawberries and s._round != ROUNDS):
                fail("the game can only be over after the Raiders' turn of round 7 or with no "
                     "strawberry left on the board")
        elif base_phase == "rest":
            if s._resting is not None or s._done or s._active is not None:
                fail("phase rest has no resting, done or active token")
        else:
            if s._resting is None:
                fail(f"phase {base_phase} needs a resting token")
            if base_phase == "pick" and (s._active is not None or len(s._done) > 1):
                fail("phase pick has no active token and at most one done token")
            if base_phase == "hydra" and (s._active is not None or not s._done):
                fail("phase hydra has no active token and a done (forfeited) token")
            if base_phase == "hydra" and not s._hydra_actions():
                fail("phase hydra: a hydra can step")
            if base_phase in ("act", "puppet") and (
                    s._active is None or s._active not in team_tokens or s._active == s._resting
                    or s._active in s._done or len(s._done) > 1):
                fail("phase act needs an active token of the team, not resting and not done")
        if (base_phase == "puppet") != (act.puppet is not None):
            fail("activation puppet is set exactly in phase puppet")
        if s._active is not None:
            me = s._active
            if s._cell[me] is None:
                fail("the active token is off the board")
            if act.bonus != (s._carried[me] >= 1):
                fail("activation bonus must be true exactly when the active token carries a "
                     "strawberry")
            if (act.compel_target is None) != (act.compulsions == 0):
                fail("activation compel_target is set exactly when compulsions > 0")
            present = set()
            for t in range(NUM_CHARACTERS):
                if s._ids[t] is not None:
                    present |= s._card(t).abilities
            for flag, ability in _FLAG_ABILITY.items():
                if getattr(act, flag) and ability not in present:
                    fail(f"activation {flag} is set but no character has {ability}")
            if act.compulsions and AB_COMPEL not in present:
                fail("activation compulsions > 0 but no character has compulsion")
            compeller = next((t for t in range(NUM_CHARACTERS) if s._has(t, AB_COMPEL)), 0)
            if act.compulsions > _last_number(s._spec(compeller, AB_COMPEL)["ap"]):
                fail("activation compulsions exceed compulsion's limit per activation")
            if act.retriever_used and not s._has(me, AB_RETRIEVER):
                fail("activation retriever_used is set only while a Hound acts")
            if act.charged and not act.charge_used:
                fail("activation charged is set only after a charge")
            if act.compel_target is not None and act.compel_target == me and \
                    AB_PUPPETRY not in present:
                fail("activation compel_target must be another character than the active one")
            for b in act.ballad:
                if b == me or b // TEAM_SIZE != me // TEAM_SIZE or not s._has(b, AB_BALLAD):
                    fail(f"activation ballad lists token {b}, not an allied Bard")
            for b in act.war_cry:
                if b // TEAM_SIZE == me // TEAM_SIZE or not s._has(b, AB_WAR_CRY):
                    fail(f"activation war_cry lists token {b}, not an enemy Bard")
            for b in act.gaze:
                if b == me or not s._has(b, AB_GAZE):
                    fail(f"activation gaze lists token {b}, not a Basilisk")
            if act.puppet is not None and (act.puppet == me or s._cell[act.puppet] is None):
                fail("activation puppet must be another character on the board")
        for t in range(NUM_CHARACTERS):
            if (s._cell[t] is None) != (t in s._queue) and not terminal:
                fail(f"token {t} must be off the board exactly when it awaits respawn")
        # Passes run after every action, but not once the game is over (R14): a Wolf Form that the
        # final `end` cleared can leave the character next to a hydra.
        for t in range(NUM_TOKENS if not terminal else 0):
            if (s._cell[t] is not None and not s._on_own_camp(t)
                    and not (t < NUM_CHARACTERS and s._wolf[t])
                    and any(h is not None and manhattan(h, s._cell[t]) == 1 for h in s._hydras)):
                fail(f"token {t} stands next to a hydra outside its own camp")
    expected = TERMINAL if terminal else (s._queue[0] // TEAM_SIZE if s._queue else s._team)
    if _document_int(d["current_player"]) != expected or isinstance(d["current_player"], bool):
        fail(f"current_player must be {expected}, got {d['current_player']!r}")
    if not terminal and not s.legal_actions():  # play never gets stuck: a document must not either
        fail("the player to move has no legal action")
    return s
