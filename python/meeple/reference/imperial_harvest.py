"""Imperial Harvest, pure-Python reference implementation (part 1: first-game teams).

Written from the rules (docs/rules/imperial-harvest.md, "rules as implemented", completing
../shared/rules/imperial-harvest.spec.md and the rulebook), not from the C++ engine: it is the oracle
for differential tests and the pure-Python baseline. Standard library only.

Board: 10x10 cells, x right 0..9, y down 0..9, cell index y*10 + x (point 1). Player 0 is the
Imperial Servants, player 1 the Northern Raiders. Tokens 0..2 are the imperial characters, 3..5 the
raiders (team order of characters.json `first_game_teams`), 6..7 are reserved (part 2: sentries).

A game is a sequence of player turns; each turn is a small state machine (the `phase`):

    rest  --rest c-->  pick  --activate c-->  act  --end / defeat-->  pick | (turn ends) rest
                       pick  --forfeit c--->  hydra --hydra h d-->    pick | (turn ends) rest
    any action that defeats characters  -->  respawn (owner of each defeated token chooses a cell)
                                              --> back to the phase the action led to

Readings of the rules document where it is silent are gathered in the READINGS block below; each
is implemented in one obvious place (the method named there).
"""

import functools
import importlib.resources
import json
import operator
import pathlib

# --------------------------------------------------------------------------------------- READINGS
# Where docs/rules/imperial-harvest.md leaves a choice open, this implementation reads it so:
#
#  R1 (point 22/25) Respawns are decided before play goes on, but the end of a turn and of the game
#     are settled first: when the action that ends a turn also defeats characters, the turn-end
#     bookkeeping (and the switch to the next team's `rest`) is done at once and the respawns
#     follow with resume_phase "rest". If that turn end also ends the game, pending respawns are
#     dropped: the defeated characters stay off the board (cell null), the queue is empty.
#     -> `_finish_action`.
#  R2 (point 22) At the end of the game: round and team are those of the last turn played (the
#     Raiders' turn; round never exceeds 7), phase "rest", resting null, done [], active null, the
#     activation at its default, last_rested updated with the last turn's rester. -> `_end_turn`.
#  R3 (point 25) All characters defeated by one action (an attack and the hydra check after it)
#     join the respawn queue together, sorted by token. -> `_finish_action`.
#  R4 (point 25) A respawned character keeps the facing it had when defeated. -> `_apply_respawn`.
#  R5 (point 20) The Bard check runs at `activate` and after every later action while an activation
#     is in progress (including respawn actions taken during it, and actions that defeat someone).
#     New Ballads and War Cries found by one check change AP together:
#     ap = max(0, ap + new ballads - new war cries). -> `_bard_check`.
#  R6 (point 19) AP are paid before the strawberry bonus is lost: deposit / pass / discard pay their
#     cost, then, if no strawberry is left, ap = max(0, ap - bonus). Plucking pays 1 AP, then the
#     bonus is added if it was the first strawberry. -> `_set_carried`.
#  R7 (point 18) A forfeited token joins `done` at the `forfeit` action (before the hydra step).
#     -> `_apply_pick`.
#  R8 (state dict) `done` is written in the order the activations finished (or were forfeited);
#     `ballad` and `war_cry` sorted by token; `hedges` with the lower cell index first in each
#     pair, the pairs sorted as lists (by x1, y1, x2, y2: the order of boards.json);
#     `respawn_queue` in queue order. -> `to_dict`.
#  R9 (point 32, D6) Compulsion never targets the Sorceress herself (like Charm), and Tower Shield
#     is checked at every compulsion step (not only the first). -> `_compel_targets`.
#  R10 (observation) "ground" is every cell outside the moat ring (bridges are not ground): ground,
#     water and bridge planes partition the board. "VP own / enemy" are `vp(team)` (plucked +
#     carried + 2 x deposited). "activation in progress" means a token is active (also during a
#     respawn phase that returns to `act`). -> `observation_tensor`.
#  R11 (strings) `rest/activate/forfeit c` name slot c of the team whose turn it is (dict `team`),
#     also while the other player decides a respawn. `respawn r` names cell r of the character camp
#     of the first token in the respawn queue (or, with an empty queue, of the team whose turn it
#     is). Reserved tokens 6, 7 are written `token6`, `token7`. A grapple landing is written as a
#     cell relative to the grappler (the active character if it can grapple, else the first token
#     with Grapple); if that token is off the board, the offset is written `+dx,+dy` (signs always
#     shown). -> `action_to_string`.
#  R12 (point 23) "within 2 steps" of the Guardian includes the Guardian's own cell (distance 0).
#     -> `_protected`.
#
# state_from_dict validates: types and ranges (activation AP 0..60, move_number 0..10**9); the
# characters are the game's teams in token order; hedges join orthogonal neighbours; hedges and
# strawberries are in to_dict's canonical order without repeats; hydras on two distinct water
# cells; strawberries and characters not on water; no character next to a hydra outside its own
# camp; carried + deposited <= plucked and board + plucked <= 14 (totals); activation flags and
# compulsions only for abilities the active character has, compel_target not the active
# character, bonus == (it carries one); and that phase, resting, done, active, activation,
# respawn_queue, resume_phase and current_player fit together.
# ------------------------------------------------------------------------------------------------

IMPERIAL = 0
RAIDERS = 1
TERMINAL = -4  # current_player() once the game is over (meeple.TERMINAL)
TEAM_KEYS = ("imperial", "raiders")  # keys of characters.json / boards.json
TEAM_PREFIX = ("imperial", "raider")  # qualified names: imperial-<short>, raider-<short>
TEAM_NAMES = ("Imperial Servants", "Northern Raiders")

SIZE = 10
NUM_CELLS = SIZE * SIZE
NUM_CHARACTERS = 6  # tokens 0..5
NUM_TOKENS = 8  # tokens 6..7 reserved (part 2: sentries)
TEAM_SIZE = 3

DIRS = ("n", "e", "s", "w")
DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIAGS = ("ne", "se", "sw", "nw")
DIAG_DELTA = ((1, -1), (1, 1), (-1, 1), (-1, -1))
PHASES = ("rest", "pick", "act", "hydra", "respawn")

# Rule constants (rulebook / spec; the card numbers come from characters.json).
ROUNDS = 7
STEP_COST = 1  # move, orthogonal or diagonal (Agility)
PLUCK_COST = DEPOSIT_COST = PASS_COST = 1
DISCARD_COST = 0
MAX_PASS = 4  # the encoding allows passing 1..4 strawberries
MAX_HEDGES_PLANTED = 4  # box limits: 4 hedge tokens, 4 chopped-hedge tokens
MAX_HEDGES_CHOPPED = 4
BARD_RANGE = 2  # War Cry / Ballad, Manhattan
GUARDIAN_RANGE = 2  # legal steps
THROW_RANGE = 2  # in LOS
GRAPPLE_RANGE = 2  # Manhattan, over obstacles
MAX_GAME_LENGTH = 3000  # see max_game_length()
MAX_STORED_AP = 60  # state_from_dict accepts activation AP 0..60 (play never exceeds 5)
MAX_STORED_MOVE_NUMBER = 10**9  # and move_number 0..10**9

# Action ids (docs/rules/imperial-harvest.md, "Actions").
A_REST, A_ACTIVATE, A_FORFEIT, A_HYDRA = 0, 3, 6, 9
A_MOVE, A_FACE = 17, 25
A_PLUCK, A_DEPOSIT, A_DISCARD, A_END = 29, 30, 31, 32
A_PASS, A_RESPAWN, A_GRAPPLE = 33, 65, 69
A_POUNCE, A_PLANT, A_SPEAR, A_CHOP = 165, 169, 173, 181
A_AXE, A_THROW, A_CHARM, A_SHADOW, A_COMPEL = 185, 193, 201, 233, 237
NUM_ACTIONS = 269

# Grapple offsets o = 0..11: (dx, dy) with 1 <= |dx|+|dy| <= 2, sorted by dy, then dx.
GRAPPLE_OFFSETS = tuple(sorted(((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)
                                if 1 <= abs(dx) + abs(dy) <= GRAPPLE_RANGE),
                               key=lambda o: (o[1], o[0])))

# Ability ids of characters.json used by the first-game teams, per action.
AB_AGILITY, AB_WAR_CRY, AB_BALLAD = "agility", "war_cry", "inspirational_ballad"
AB_TOWER_SHIELD, AB_GUARDIAN = "tower_shield", "guardian"
AB_GRAPPLE, AB_POUNCE, AB_PLANT, AB_SPEAR = "grapple", "dragon_pounce", "plant", "spear"
AB_CHOP, AB_AXE, AB_THROW = "chop", "battle_axe", "throwing_axe"
AB_CHARM, AB_SHADOW, AB_COMPEL = "charm", "shadow_walk", "compulsion"

DEFAULT_PARAMETERS = {"board": "standard"}
BOARD_CHOICES = ("standard", "symmetric")


def _as_int(value):
    """`value` as a Python int if it is an integer (numpy integers included, bool excluded), else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


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
    """The key of the edge between cells a and b: (lower index, higher index)."""
    return (a, b) if a < b else (b, a)


def neighbour(cell, dx, dy):
    """The cell at (x+dx, y+dy), or None off the board."""
    x, y = xy(cell)
    x, y = x + dx, y + dy
    return cell_of(x, y) if 0 <= x < SIZE and 0 <= y < SIZE else None


# ------------------------------------------------------------------------------------------- data

@functools.cache
def _data(name):
    """The parsed JSON file `name` of meeple's data/imperial_harvest folder."""
    try:
        text = (importlib.resources.files("meeple") / "data" / "imperial_harvest" / name).read_text(
            encoding="utf-8")
    except Exception:  # noqa: BLE001 - meeple itself may not import (engine not built)
        # The reference may be loaded without the compiled package (tests load it standalone).
        path = pathlib.Path(__file__).resolve().parents[1] / "data" / "imperial_harvest" / name
        text = path.read_text(encoding="utf-8")
    return json.loads(text)


def hedges_from_tiles(layout, tiles):
    """Point 3: the set of hedge edges of a board built from tile faces.

    `layout`: slot -> [face, clockwise quarter-turns] (boards.json); `tiles`: tiles.json. A quarter
    turn maps (x, y) of a w x h tile to (h-1-y, x) and sides N->E->S->W->N. Hedges on the board's
    outer edge are dropped.
    """
    sides = "NESW"
    slots = dict(tiles["board"]["rect_slots"], **tiles["board"]["square_slots"])
    edges = set()
    for slot_name, (face_name, turns) in layout.items():
        slot, face = slots[slot_name], tiles["faces"][face_name]
        w, h = face["size"]
        for _ in range(turns % 4):
            w, h = h, w
        if [w, h] != list(slot["size"]):
            raise ValueError(f"tile {face_name} turned {turns} times does not fit slot {slot_name}")
        ox, oy = slot["origin"]
        for x, y, side in face["hedges"]:
            w, h = face["size"]
            for _ in range(turns % 4):
                x, y, side = h - 1 - y, x, sides[(sides.index(side) + 1) % 4]
                w, h = h, w
            here = cell_of(ox + x, oy + y)
            there = neighbour(here, *DELTA[sides.index(side)])
            if there is not None:
                edges.add(edge(here, there))
    return edges


class Board:
    """The static board of boards.json `name`: terrain, bridges, camps, setup (points 1-5)."""

    def __init__(self, name, data, tiles):
        self.name = name
        hedges = set()
        for a, b in data["hedges"]:
            hedges.add(edge(cell_of(*a), cell_of(*b)))
        if data.get("tiles"):
            built = hedges_from_tiles(data["tiles"], tiles)
            if built != hedges:
                raise ValueError(f"board {name!r}: the hedges built from its tiles differ from its "
                                 f"hedge list (only from tiles: {sorted(built - hedges)}, only in the "
                                 f"list: {sorted(hedges - built)})")
        self.hedges = frozenset(hedges)
        self.moat = frozenset(cell_of(x, y) for x in range(SIZE) for y in range(SIZE)
                              if (x in (2, 7) and 2 <= y <= 7) or (y in (2, 7) and 2 <= x <= 7))
        elbows = {cell_of(2, 2), cell_of(7, 2), cell_of(2, 7), cell_of(7, 7)}
        # Point 4: bridge cell -> axis, "ew" (x in {2,7}) or "ns" (y in {2,7}).
        self.bridges = {}
        for x, y in data["bridges"]:
            c = cell_of(x, y)
            if c not in self.moat or c in elbows:
                raise ValueError(f"board {name!r}: bridge {x},{y} is not on a non-elbow moat cell")
            self.bridges[c] = "ew" if x in (2, 7) else "ns"
        self.water = self.moat - set(self.bridges)
        origins = tiles["board"]["camp_slots"]
        # boards.json "camps": camp kind (e.g. "imperial_character") -> corner name.
        self.camps = {}
        for kind, corner in data["camps"].items():
            ox, oy = origins[corner]
            self.camps[kind] = tuple(sorted(cell_of(ox + dx, oy + dy) for dx in (0, 1) for dy in (0, 1)))
        self.character_camp = tuple(self.camps[f"{t}_character"] for t in TEAM_KEYS)
        self.strawberry_camp = tuple(self.camps[f"{t}_strawberry"] for t in TEAM_KEYS)
        self.start_spaces = tuple([cell_of(*c) for c in data["start_spaces"][t]] for t in TEAM_KEYS)
        self.hydras = [cell_of(*c) for c in data["hydras"]]
        self.strawberries = sorted(cell_of(*c) for c in data["strawberries"])
        self.num_strawberries = len(self.strawberries)
        # Point 9 without hedges: step_to[cell][d] is the target of a step, or None (off the
        # board, into water, or across a bridge's axis).
        self.step_to = [[self._static_step(c, d) for d in range(4)] for c in range(NUM_CELLS)]

    def axis_ok(self, cell, d):
        """Point 4: a bridge cell is entered and left only along its axis (d: 0..3 = n,e,s,w)."""
        axis = self.bridges.get(cell)
        return axis is None or (axis == "ew") == (d in (1, 3))

    def _static_step(self, cell, d):
        target = neighbour(cell, *DELTA[d])
        if target is None or target in self.water or cell in self.water:
            return None
        if not (self.axis_ok(cell, d) and self.axis_ok(target, d)):
            return None
        return target


@functools.cache
def _board(name):
    return Board(name, _data("boards.json")["boards"][name], _data("tiles.json"))


class Character:
    """One token of the first-game teams, with its card numbers (point 6) and names (point 8)."""

    def __init__(self, token, team, card, data):
        self.token = token
        self.team = team
        self.slot = token - team * TEAM_SIZE
        self.id = card["id"]
        self.name = card["name"]
        self.short = card["name"].split()[-1].lower()
        self.qualified = f"{TEAM_PREFIX[team]}-{self.short}"
        defaults = data["defaults"]
        self.ap = card.get("ap", defaults["ap"])
        self.item_slots = card.get("item_slots", defaults["item_slots"])
        self.bonus_ap = dict(defaults["strawberry"], **card.get("strawberry", {}))["bonus_ap"]
        self.abilities = frozenset(card["abilities"])
        # Per-game uses (plant / chop), or None.
        self.uses = None
        for ability in (AB_PLANT, AB_CHOP):
            if ability in self.abilities:
                self.uses = data["abilities"][ability]["uses_per_game"]


def _ability_cost(data, ability):
    """AP cost of an ability from characters.json ("1-3" -> 1 per use)."""
    ap = data["abilities"][ability]["ap"]
    return int(ap.split("-")[0]) if isinstance(ap, str) else ap


def _compulsion_limit(data):
    """Most compulsions in one activation: the upper end of characters.json's "1-3"."""
    return int(str(data["abilities"][AB_COMPEL]["ap"]).split("-")[-1])


# ------------------------------------------------------------------------------------------- game

class ImperialHarvestGame:
    """The game and its parameters (docs/rules/imperial-harvest.md, "Parameters")."""

    name = "imperial_harvest"

    def __init__(self, **params):
        unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for "
                             f"imperial_harvest; valid parameters: {', '.join(DEFAULT_PARAMETERS)}")
        values = dict(DEFAULT_PARAMETERS, **params)
        if not (isinstance(values["board"], str) and values["board"] in BOARD_CHOICES):
            raise ValueError(f"parameter board must be one of {', '.join(map(repr, BOARD_CHOICES))}, "
                             f"got {values['board']!r}")
        self._params = values
        self.board = _board(values["board"])
        data = _data("characters.json")
        cards = {card["id"]: card for card in data["characters"]}
        self.characters = []
        for team, key in enumerate(TEAM_KEYS):
            for ident in data["first_game_teams"][key]:
                self.characters.append(Character(len(self.characters), team, cards[ident], data))
        self.cost = {ability: _ability_cost(data, ability) for ability in
                     (AB_GRAPPLE, AB_POUNCE, AB_PLANT, AB_SPEAR, AB_CHOP, AB_AXE, AB_THROW, AB_CHARM,
                      AB_SHADOW, AB_COMPEL)}
        self.max_compulsions = _compulsion_limit(data)

    def __repr__(self):
        return f"ImperialHarvestGame(board={self._params['board']!r})"

    def parameters(self):
        return dict(self._params)

    def num_players(self):
        return 2

    def num_distinct_actions(self):
        return NUM_ACTIONS

    def max_chance_outcomes(self):
        return 0

    def observation_shape(self):
        return (1791,)

    def max_game_length(self):
        """A safe bound: 3000 (any bound >= 544 is safe). Per activation at
        most 5 + g AP-costing actions (3 card AP + 1 strawberry bonus + 1 Ballad, + g bonus regains,
        each after a pluck) plus activate, face, charm and end: a turn has at most 17 + g actions,
        and over the game g <= 14, discards <= 14, plant/chop <= 6, so at most 14 x 17 + 34 = 272
        actions are not respawns. Nobody can be defeated on its own camp, where every character
        starts and respawns, so each defeat needs an earlier action that moved that character off
        it, and each action moves at most one character: at most 272 respawns. 544 <= 3000."""
        return MAX_GAME_LENGTH

    def new_initial_state(self, seed=None):
        """Point 5: the standard setup (deterministic; the seed is checked and ignored)."""
        if seed is not None and (_as_int(seed) is None or _as_int(seed) < 0):
            raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
        board = self.board
        state = ImperialHarvestState(self)
        state._hedges = set(board.hedges)
        state._strawberries = set(board.strawberries)
        state._hydras = list(board.hydras)
        for ch in self.characters:
            cell = board.start_spaces[ch.team][ch.slot]
            state._cell[ch.token] = cell
            state._facing[ch.token] = facing_centre(cell)
            state._uses[ch.token] = ch.uses
        return state

    def state_from_dict(self, d):
        """The state described by `d` (the format of ImperialHarvestState.to_dict), validated."""
        return _state_from_dict(self, d)


def facing_centre(cell):
    """Point 5 / D1: the direction toward (4.5, 4.5) along the axis of the larger offset; on a tie,
    vertically."""
    x, y = xy(cell)
    dx, dy = 4.5 - x, 4.5 - y
    if abs(dx) > abs(dy):
        return 1 if dx > 0 else 3
    return 2 if dy > 0 else 0


class Activation:
    """The activation in progress (state dict "activation")."""

    __slots__ = ("ap", "face_used", "grapple_used", "pounce_used", "throw_used", "charm_used",
                 "compulsions", "compel_target", "ballad", "war_cry", "bonus")

    def __init__(self):
        self.ap = 0
        self.face_used = self.grapple_used = self.pounce_used = False
        self.throw_used = self.charm_used = False
        self.compulsions = 0
        self.compel_target = None
        self.ballad = []
        self.war_cry = []
        self.bonus = False

    def copy(self):
        other = Activation()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        other.ballad = list(self.ballad)
        other.war_cry = list(self.war_cry)
        return other

    def to_dict(self):
        return {"ap": self.ap, "face_used": self.face_used, "grapple_used": self.grapple_used,
                "pounce_used": self.pounce_used, "throw_used": self.throw_used,
                "charm_used": self.charm_used, "compulsions": self.compulsions,
                "compel_target": self.compel_target, "ballad": sorted(self.ballad),
                "war_cry": sorted(self.war_cry), "bonus": self.bonus}


# ------------------------------------------------------------------------------------------ state

class ImperialHarvestState:
    """A position. Cells are indices y*10+x (None: off the board); facings 0..3 = n,e,s,w."""

    def __init__(self, game):
        self._game = game
        self._hedges = set()  # edge keys (a, b), a < b
        self._strawberries = set()  # cells
        self._hydras = [None, None]
        self._cell = [None] * NUM_CHARACTERS
        self._facing = [0] * NUM_CHARACTERS
        self._carried = [0] * NUM_CHARACTERS
        self._uses = [None] * NUM_CHARACTERS
        self._plucked = [0, 0]
        self._deposited = [0, 0]
        self._planted = 0
        self._chopped = 0
        self._round = 1
        self._team = IMPERIAL
        self._phase = "rest"
        self._resting = None
        self._last_rested = [None, None]
        self._done = []
        self._active = None
        self._act = Activation()
        self._queue = []
        self._resume = None
        self._terminal = False
        self._move_number = 0
        self._defeated_now = []  # defeats of the action being applied (transient)

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
            return self._game.characters[self._queue[0]].team
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
        """Point 33: the team's VP as scored now: plucked + carried + 2 x deposited."""
        carried = sum(self._carried[ch.token] for ch in self._game.characters if ch.team == team)
        return self._plucked[team] + carried + 2 * self._deposited[team]

    def returns(self):
        if not self._terminal:
            return [0.0, 0.0]
        own, other = self.vp(IMPERIAL), self.vp(RAIDERS)
        if own == other:
            return [0.0, 0.0]
        return [1.0, -1.0] if own > other else [-1.0, 1.0]

    def clone(self):
        other = ImperialHarvestState.__new__(ImperialHarvestState)
        other.__dict__.update(self.__dict__)
        other._hedges = set(self._hedges)
        other._strawberries = set(self._strawberries)
        for name in ("_hydras", "_cell", "_facing", "_carried", "_uses", "_plucked", "_deposited",
                     "_last_rested", "_done", "_queue", "_defeated_now"):
            setattr(other, name, list(getattr(self, name)))
        other._act = self._act.copy()
        return other

    # ----------------------------------------------------------------- geometry (points 9-15)

    def _tokens_at(self, cell):
        return [t for t in range(NUM_CHARACTERS) if self._cell[t] == cell]

    def _occupied_by_other(self, cell, token):
        return any(self._cell[t] == cell for t in range(NUM_CHARACTERS) if t != token)

    def _step(self, cell, d):
        """Point 9: the cell one legal step from `cell` in direction d, or None."""
        target = self._game.board.step_to[cell][d]
        if target is None or edge(cell, target) in self._hedges:
            return None
        return target

    def _diagonal(self, cell, k):
        """Point 10: the cell one diagonal step (k: 0..3 = ne,se,sw,nw) away, or None."""
        board = self._game.board
        target = neighbour(cell, *DIAG_DELTA[k])
        if target is None or cell in board.bridges or target in board.bridges:
            return None
        dx, dy = DIAG_DELTA[k]
        horizontal, vertical = (1 if dx > 0 else 3), (2 if dy > 0 else 0)
        for first, second in ((horizontal, vertical), (vertical, horizontal)):
            middle = self._step(cell, first)
            if middle is not None and self._step(middle, second) == target:
                return target
        return None

    def _adjacent(self, a, b):
        """Point 12: the same cell, or orthogonal neighbours not separated by a hedge."""
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
        hydras = self._hydras
        distance = 0
        while True:
            nxt = neighbour(cell, *DELTA[d])
            if nxt is None or edge(cell, nxt) in self._hedges:
                return cells
            distance += 1
            cells.append((nxt, distance))
            if nxt in hydras or any(self._cell[t] == nxt for t in range(NUM_CHARACTERS)):
                return cells
            cell = nxt

    def _in_los(self, token, max_distance=None):
        """Characters other than `token` in its LOS, up to `max_distance` spaces."""
        found = []
        for cell, distance in self._los(token):
            if max_distance is not None and distance > max_distance:
                break
            found.extend(t for t in self._tokens_at(cell) if t != token)
        return found

    def _within_steps(self, start, n):
        """Point 15: cells reachable from `start` in at most n legal steps (characters don't block)."""
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
        """Point 23: `cell` is in the same row/column as `token`, on the side it faces (not its own
        cell)."""
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
        return (AB_TOWER_SHIELD in self._game.characters[target].abilities
                and self._in_facing_direction(target, source_cell))

    def _protected(self, target, attacker):
        """Point 23: whether `target` is protected from an attack by `attacker`."""
        game = self._game
        team = game.characters[target].team
        cell = self._cell[target]
        if cell in game.board.character_camp[team]:
            return True
        for ch in game.characters:
            if (ch.team == team and ch.token != target and AB_GUARDIAN in ch.abilities
                    and self._cell[ch.token] is not None
                    and cell in self._within_steps(self._cell[ch.token], GUARDIAN_RANGE)):
                return True
        return self._shield_blocks(target, self._cell[attacker])

    def _enemy(self, a, b):
        chars = self._game.characters
        return chars[a].team != chars[b].team

    def _attackable(self, attacker, target):
        """D4: attacks target on-board enemy characters that are not protected."""
        return (self._cell[target] is not None and self._enemy(attacker, target)
                and not self._protected(target, attacker))

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
        return sorted(self._act_actions())

    def _hydra_actions(self):
        actions = []
        for h in range(2):
            for d in range(4):
                if self._hydra_destination(h, d) is not None:
                    actions.append(A_HYDRA + 4 * h + d)
        return actions

    def _hydra_destination(self, h, d):
        """Point 27: where hydra h ends after one step in direction d, or None."""
        return hydra_destination(self._game.board, self._hydras[h], d, self._hydras[1 - h])

    def _respawn_cells(self):
        """Point 25: indices r of the free cells of the camp (any cell if none is free)."""
        camp = self._game.board.character_camp[self._game.characters[self._queue[0]].team]
        free = [r for r, cell in enumerate(camp) if not self._tokens_at(cell)]
        return free or list(range(len(camp)))

    def _voluntary_move_ok(self, token, target, cost):
        """Point 11: a move into a cell holding another character needs >= 1 AP left after it."""
        left = self._act.ap - cost
        if left < 0:
            return False
        return left >= 1 or not self._occupied_by_other(target, token)

    def _act_actions(self):
        game, act = self._game, self._act
        me = self._active
        ch = game.characters[me]
        cell = self._cell[me]
        ap = act.ap
        abilities = ch.abilities
        cost = game.cost
        actions = [A_END]
        # Movement (points 9-11, 30).
        for d in range(4):
            target = self._step(cell, d)
            if target is not None and self._voluntary_move_ok(me, target, STEP_COST):
                actions.append(A_MOVE + d)
        if AB_AGILITY in abilities:
            for k in range(4):
                target = self._diagonal(cell, k)
                if target is not None and self._voluntary_move_ok(me, target, STEP_COST):
                    actions.append(A_MOVE + 4 + k)
        if not act.face_used:
            actions += [A_FACE + d for d in range(4) if d != self._facing[me]]
        # Strawberries (point 21).
        carried = self._carried[me]
        if ap >= PLUCK_COST and cell in self._strawberries:
            actions.append(A_PLUCK)
        if ap >= DEPOSIT_COST and carried >= 1 and any(
                self._adjacent(cell, camp) for camp in game.board.strawberry_camp[ch.team]):
            actions.append(A_DEPOSIT)
        if carried >= 1 and ap >= DISCARD_COST:
            actions.append(A_DISCARD)
        if ap >= PASS_COST and carried >= 1:
            for t in range(NUM_CHARACTERS):
                if t != me and self._cell[t] is not None and self._adjacent(cell, self._cell[t]):
                    free = game.characters[t].item_slots - self._carried[t]
                    for n in range(1, min(carried, free, MAX_PASS) + 1):
                        actions.append(A_PASS + 4 * t + n - 1)
        # Monk (point 28).
        if AB_GRAPPLE in abilities and not act.grapple_used and ap >= cost[AB_GRAPPLE]:
            landings = []
            for o, (dx, dy) in enumerate(GRAPPLE_OFFSETS):
                target = neighbour(cell, dx, dy)
                if target is not None and target not in game.board.water:
                    landings.append((o, target))
            for t in range(NUM_CHARACTERS):
                if t != me and self._cell[t] is not None and self._adjacent(cell, self._cell[t]):
                    actions += [A_GRAPPLE + 12 * t + o for o, target in landings
                                if target != self._cell[t]]
        if AB_POUNCE in abilities and not act.pounce_used:
            for k in range(4):
                target = self._diagonal(cell, k)
                if target is not None and self._voluntary_move_ok(me, target, cost[AB_POUNCE]):
                    actions.append(A_POUNCE + k)
        if (AB_PLANT in abilities and self._uses[me] > 0 and self._planted < MAX_HEDGES_PLANTED
                and ap >= cost[AB_PLANT]):
            for d in range(4):
                target = neighbour(cell, *DELTA[d])
                if target is not None and edge(cell, target) not in self._hedges:
                    actions.append(A_PLANT + d)
        # Imperial Guardian (point 29).
        if AB_SPEAR in abilities and ap >= cost[AB_SPEAR]:
            for t in self._in_los(me, 1):
                if self._adjacent(cell, self._cell[t]) and self._attackable(me, t):
                    actions.append(A_SPEAR + t)
        # Barbarian (point 31).
        if (AB_CHOP in abilities and self._uses[me] > 0 and self._chopped < MAX_HEDGES_CHOPPED
                and ap >= cost[AB_CHOP]):
            for d in range(4):
                target = neighbour(cell, *DELTA[d])
                if target is not None and edge(cell, target) in self._hedges:
                    actions.append(A_CHOP + d)
        if AB_AXE in abilities and ap >= cost[AB_AXE]:
            for t in range(NUM_CHARACTERS):
                if (self._cell[t] is not None and self._adjacent(cell, self._cell[t])
                        and self._attackable(me, t)):
                    actions.append(A_AXE + t)
        if AB_THROW in abilities and not act.throw_used and ap >= cost[AB_THROW]:
            for t in self._in_los(me, THROW_RANGE):
                if self._attackable(me, t):
                    actions.append(A_THROW + t)
        # Sorceress (point 32).
        if AB_CHARM in abilities and not act.charm_used and ap >= cost[AB_CHARM]:
            for t in self._in_los(me):
                if not self._shield_blocks(t, cell):
                    for d in range(4):
                        if self._step(self._cell[t], d) is not None:
                            actions.append(A_CHARM + 4 * t + d)
        if AB_SHADOW in abilities and ap >= cost[AB_SHADOW]:
            for d in range(4):
                target = self._game.board.step_to[cell][d]
                if (target is not None and edge(cell, target) in self._hedges
                        and self._voluntary_move_ok(me, target, cost[AB_SHADOW])):
                    actions.append(A_SHADOW + d)
        if (AB_COMPEL in abilities and act.compulsions < game.max_compulsions
                and ap >= cost[AB_COMPEL]):
            for t in self._compel_targets():
                for d in range(4):
                    if self._step(self._cell[t], d) is not None:
                        actions.append(A_COMPEL + 4 * t + d)
        return actions

    def _compel_targets(self):
        """D6 / R9: the first compulsion of an activation picks a character in the Sorceress's LOS
        (not herself); later ones move the same character, wherever it is. Tower Shield is checked
        at every step."""
        me = self._active
        if self._act.compulsions == 0:
            candidates = self._in_los(me)
        else:
            t = self._act.compel_target
            candidates = [t] if self._cell[t] is not None else []
        return [t for t in candidates if not self._shield_blocks(t, self._cell[me])]

    def legal_actions_mask(self):
        mask = [0] * NUM_ACTIONS
        for action in self.legal_actions():
            mask[action] = 1
        return mask

    # ----------------------------------------------------------------- applying actions

    def apply_action(self, action):
        a = _as_int(action)
        legal = self.legal_actions()
        if a is None or a not in legal:
            listing = ", ".join(f"{b} ({self.action_to_string(b)})" for b in legal)
            raise ValueError(f"illegal action {action!r} for imperial_harvest; legal actions: "
                             f"{listing or 'none (the game is over)'}")
        self._move_number += 1
        self._defeated_now = []
        phase = self._phase
        if phase == "rest":
            self._resting = self._team * TEAM_SIZE + (a - A_REST)
            self._phase = "pick"
        elif phase == "pick":
            self._apply_pick(a)
        elif phase == "hydra":
            h, d = divmod(a - A_HYDRA, 4)
            self._hydras[h] = self._hydra_destination(h, d)
            self._hydra_check()
            self._activation_over()
        elif phase == "respawn":
            self._apply_respawn(a - A_RESPAWN)
        else:
            self._apply_act(a)
        self._finish_action()

    def _apply_pick(self, a):
        if a < A_FORFEIT:
            token = self._team * TEAM_SIZE + (a - A_ACTIVATE)
            ch = self._game.characters[token]
            self._active = token
            self._act = Activation()
            self._act.bonus = self._carried[token] >= 1
            self._act.ap = ch.ap + (ch.bonus_ap if self._act.bonus else 0)
            self._phase = "act"  # the Bard check of point 19/20 runs in _finish_action
        else:
            self._done.append(self._team * TEAM_SIZE + (a - A_FORFEIT))  # R7
            self._phase = "hydra"

    def _apply_respawn(self, r):
        token = self._queue.pop(0)
        camp = self._game.board.character_camp[self._game.characters[token].team]
        self._cell[token] = camp[r]  # R4: its facing is kept
        if not self._queue:
            self._phase = self._resume
            self._resume = None
        self._hydra_check()

    def _apply_act(self, a):
        game, act = self._game, self._act
        me = self._active
        cell = self._cell[me]
        if a == A_END:
            self._activation_over()
            return
        if A_MOVE <= a < A_MOVE + 4:
            act.ap -= STEP_COST
            self._cell[me] = self._step(cell, a - A_MOVE)
        elif A_MOVE + 4 <= a < A_FACE:
            act.ap -= STEP_COST
            self._cell[me] = self._diagonal(cell, a - A_MOVE - 4)
        elif A_FACE <= a < A_PLUCK:
            act.face_used = True
            self._facing[me] = a - A_FACE
        elif a == A_PLUCK:
            act.ap -= PLUCK_COST
            self._strawberries.discard(cell)
            self._plucked[game.characters[me].team] += 1
            if self._carried[me] < game.characters[me].item_slots:
                self._set_carried(me, self._carried[me] + 1)
            # else: full slots, the strawberry is discarded and the VP kept
        elif a == A_DEPOSIT:
            act.ap -= DEPOSIT_COST
            self._deposited[game.characters[me].team] += self._carried[me]
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
        elif A_GRAPPLE <= a < A_POUNCE:
            t, o = divmod(a - A_GRAPPLE, 12)
            act.ap -= game.cost[AB_GRAPPLE]
            act.grapple_used = True
            self._cell[t] = neighbour(cell, *GRAPPLE_OFFSETS[o])
        elif A_POUNCE <= a < A_PLANT:
            act.ap -= game.cost[AB_POUNCE]
            act.pounce_used = True
            self._cell[me] = self._diagonal(cell, a - A_POUNCE)
        elif A_PLANT <= a < A_SPEAR:
            act.ap -= game.cost[AB_PLANT]
            self._uses[me] -= 1
            self._planted += 1
            self._hedges.add(edge(cell, neighbour(cell, *DELTA[a - A_PLANT])))
        elif A_SPEAR <= a < A_CHOP:
            act.ap -= game.cost[AB_SPEAR]
            self._defeat(a - A_SPEAR)
        elif A_CHOP <= a < A_AXE:
            act.ap -= game.cost[AB_CHOP]
            self._uses[me] -= 1
            self._chopped += 1
            self._hedges.discard(edge(cell, neighbour(cell, *DELTA[a - A_CHOP])))
        elif A_AXE <= a < A_THROW:
            act.ap -= game.cost[AB_AXE]
            self._defeat(a - A_AXE)
        elif A_THROW <= a < A_CHARM:
            act.ap -= game.cost[AB_THROW]
            act.throw_used = True
            self._defeat(a - A_THROW)
        elif A_CHARM <= a < A_SHADOW:
            t, d = divmod(a - A_CHARM, 4)
            act.ap -= game.cost[AB_CHARM]
            act.charm_used = True
            self._cell[t] = self._step(self._cell[t], d)
        elif A_SHADOW <= a < A_COMPEL:
            act.ap -= game.cost[AB_SHADOW]
            self._cell[me] = game.board.step_to[cell][a - A_SHADOW]
        else:
            t, d = divmod(a - A_COMPEL, 4)
            act.ap -= game.cost[AB_COMPEL]
            act.compulsions += 1
            act.compel_target = t
            self._cell[t] = self._step(self._cell[t], d)
        self._hydra_check()
        if self._cell[me] is None:
            self._activation_over()  # point 25: a defeated active character's activation ends

    def _set_carried(self, token, n):
        """Point 19 / R6: strawberry bonus gained with the first strawberry, lost with the last."""
        self._carried[token] = n
        if token != self._active:
            return
        act, bonus = self._act, self._game.characters[token].bonus_ap
        if n >= 1 and not act.bonus:
            act.bonus = True
            act.ap += bonus
        elif n == 0 and act.bonus:
            act.bonus = False
            act.ap = max(0, act.ap - bonus)

    def _defeat(self, token):
        """Point 25: carried strawberries leave the game, the token leaves the board."""
        self._carried[token] = 0
        self._cell[token] = None
        self._defeated_now.append(token)

    def _hydra_check(self):
        """Point 26: each hydra defeats every character orthogonally next to it (hedges and
        defences ignored) unless it stands on its own character camp."""
        camps = self._game.board.character_camp
        for h in self._hydras:
            for d in range(4):
                cell = neighbour(h, *DELTA[d])
                if cell is None:
                    continue
                for t in self._tokens_at(cell):
                    if cell not in camps[self._game.characters[t].team]:
                        self._defeat(t)

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
            self._phase = "pick"

    def _end_turn(self):
        """Point 22 / R2: bookkeeping, then the game ends or the other team's turn starts."""
        self._last_rested[self._team] = self._resting
        self._resting = None
        self._done = []
        self._phase = "rest"
        if self._team == RAIDERS and (not self._strawberries or self._round == ROUNDS):
            self._terminal = True
            return
        if self._team == RAIDERS:
            self._round += 1
        self._team = 1 - self._team

    def _finish_action(self):
        """R1 / R3 / R5: queue this action's defeats, then the Bard check."""
        if self._defeated_now:
            if self._terminal:
                self._defeated_now = []  # R1: pending respawns are dropped at the end of the game
                return
            self._queue.extend(sorted(self._defeated_now))
            self._defeated_now = []
            if self._phase != "respawn":
                self._resume = self._phase
                self._phase = "respawn"
        if self._active is not None:
            self._bard_check()

    def _bard_check(self):
        """Point 20 / D3 / R5: Ballad (+1) from allied Bards, War Cry (-1) from enemy Bards within
        Manhattan 2 of the active character, each at most once per activation."""
        game, act, me = self._game, self._act, self._active
        mx, my = xy(self._cell[me])
        team = game.characters[me].team
        gain = loss = 0
        for bard in game.characters:
            b = bard.token
            if b == me or self._cell[b] is None:
                continue
            bx, by = xy(self._cell[b])
            if abs(bx - mx) + abs(by - my) > BARD_RANGE:
                continue
            if bard.team == team and AB_BALLAD in bard.abilities and b not in act.ballad:
                act.ballad.append(b)
                gain += 1
            if bard.team != team and AB_WAR_CRY in bard.abilities and b not in act.war_cry:
                act.war_cry.append(b)
                loss += 1
        if gain or loss:
            act.ap = max(0, act.ap + gain - loss)

    # ----------------------------------------------------------------- strings

    def _target_name(self, t):
        """A token as written in actions: `x,y`, `x,y:short`, `x,y:qualified`, or its qualified
        name when off the board."""
        if t >= NUM_CHARACTERS:
            return f"token{t}"  # R11
        chars = self._game.characters
        cell = self._cell[t]
        if cell is None:
            return chars[t].qualified
        here = self._tokens_at(cell)
        if len(here) == 1:
            return cell_text(cell)
        if [chars[u].short for u in here].count(chars[t].short) == 1:
            return f"{cell_text(cell)}:{chars[t].short}"
        return f"{cell_text(cell)}:{chars[t].qualified}"

    def _grapple_landing_text(self, o):
        """R11: the landing cell of grapple offset o, relative to the grappler."""
        chars = self._game.characters
        grappler = self._active
        if grappler is None or AB_GRAPPLE not in chars[grappler].abilities:
            grappler = next((ch.token for ch in chars if AB_GRAPPLE in ch.abilities), None)
        dx, dy = GRAPPLE_OFFSETS[o]
        if grappler is None or self._cell[grappler] is None:
            return f"{dx:+d},{dy:+d}"
        x, y = xy(self._cell[grappler])
        return f"{x + dx},{y + dy}"

    def action_to_string(self, action):
        a = _as_int(action)
        if a is None or not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
        chars = self._game.characters

        def slot_name(c):  # R11
            return chars[self._team * TEAM_SIZE + c].short

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
            team = chars[self._queue[0]].team if self._queue else self._team  # R11
            return f"respawn {cell_text(self._game.board.character_camp[team][a - A_RESPAWN])}"
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
        t, d = divmod(a - A_COMPEL, 4)
        return f"compel {self._target_name(t)} {DIRS[d]}"

    def string_to_action(self, text):
        """The action whose canonical string (in this state) is `text`; case and repeated spaces
        are ignored."""
        if not isinstance(text, str):
            raise ValueError(f"action string must be a str, got {text!r}")
        wanted = " ".join(text.lower().split())
        for a in range(NUM_ACTIONS):
            if self.action_to_string(a).lower() == wanted:
                return a
        raise ValueError(f"not an imperial_harvest action in this state: {text!r} (e.g. 'rest monk', "
                         f"'move ne', 'pass 9,1 2', 'respawn 9,9', 'charm 4,5 s')")

    # ----------------------------------------------------------------- observation

    def observation_tensor(self, player=None):
        """Docs "Observation": 17 planes of 100 cells, 6 x 12 character values, 13 game values,
        6 activation values, from `player`'s view (R10)."""
        if player is None:
            player = IMPERIAL if self._terminal else self.current_player()
        elif _as_int(player) not in (IMPERIAL, RAIDERS):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        o = _as_int(player)
        game, board = self._game, self._game.board
        order = [o * TEAM_SIZE + c for c in range(TEAM_SIZE)] + \
                [(1 - o) * TEAM_SIZE + c for c in range(TEAM_SIZE)]

        def plane(cells):
            values = [0.0] * NUM_CELLS
            for c in cells:
                values[c] = 1.0
            return values

        east = [c for c in range(NUM_CELLS) if c % SIZE < SIZE - 1 and (c, c + 1) in self._hedges]
        south = [c for c in range(NUM_CELLS) if c < NUM_CELLS - SIZE and (c, c + SIZE) in self._hedges]
        obs = []
        obs += plane(c for c in range(NUM_CELLS) if c not in board.moat)
        obs += plane(board.water)
        obs += plane(board.bridges)
        obs += plane(board.character_camp[o])
        obs += plane(board.strawberry_camp[o])
        obs += plane(board.character_camp[1 - o])
        obs += plane(board.strawberry_camp[1 - o])
        obs += plane(east)
        obs += plane(south)
        obs += plane(self._strawberries)
        obs += plane(self._hydras)
        for t in order:
            obs += plane([] if self._cell[t] is None else [self._cell[t]])
        for t in order:
            facing = [0.0] * 4
            facing[self._facing[t]] = 1.0
            obs += facing
            team = game.characters[t].team
            obs += [
                float(self._carried[t]),
                float(t == self._resting),
                float(t == self._last_rested[team]),
                float(t == self._active),
                float(self._act.ap if t == self._active else 0),
                float(t in self._done),
                float(self._uses[t] or 0),
                float(self._cell[t] is not None),
            ]
        phase = [0.0] * len(PHASES)
        phase[PHASES.index(self._phase)] = 1.0
        obs += [float(self._round), float(self._team == o), float(self.vp(o)), float(self.vp(1 - o)),
                float(self._deposited[o]), float(self._deposited[1 - o])] + phase + \
               [float(self._planted), float(self._chopped)]
        act = self._act
        if self._active is None:
            obs += [0.0] * 6
        else:
            obs += [float(act.face_used), float(act.grapple_used), float(act.pounce_used),
                    float(act.throw_used), float(act.charm_used), float(act.compulsions)]
        return obs

    # ----------------------------------------------------------------- state dict

    def to_dict(self):
        def pair(c):
            return list(xy(c))

        chars = self._game.characters
        return {
            "hedges": sorted([pair(a), pair(b)] for a, b in self._hedges),  # R8
            "strawberries": [pair(c) for c in sorted(self._strawberries)],
            "hydras": [pair(c) for c in self._hydras],
            "characters": [{"id": chars[t].id,
                            "cell": None if self._cell[t] is None else pair(self._cell[t]),
                            "facing": DIRS[self._facing[t]], "strawberries": self._carried[t],
                            "uses_left": self._uses[t]} for t in range(NUM_CHARACTERS)],
            "plucked": list(self._plucked),
            "deposited": list(self._deposited),
            "hedges_planted": self._planted,
            "hedges_chopped": self._chopped,
            "round": self._round,
            "team": self._team,
            "phase": self._phase,
            "resting": self._resting,
            "last_rested": list(self._last_rested),
            "done": list(self._done),  # R8: in the order the activations finished
            "active": self._active,
            "activation": self._act.to_dict(),
            "respawn_queue": list(self._queue),
            "resume_phase": self._resume,
            "current_player": self.current_player(),
            "move_number": self._move_number,
        }

    # ----------------------------------------------------------------- display

    def __str__(self):
        """The board: a 10x10 grid, hedges `|` and `---` between cells, water `~`, bridges `=`
        (east-west) and `‖` (north-south), camps (IC/IS imperial, RC/RS raiders: character /
        strawberry camp), strawberries `*`, hydras H1 H2, characters by letter (imperial upper case,
        raiders lower case) with a facing arrow."""
        game, board = self._game, self._game.board
        chars = game.characters
        arrows = "^>v<"
        letters = {}
        for team in (IMPERIAL, RAIDERS):
            used = set()
            for ch in chars:
                if ch.team == team:
                    letter = next(c for c in ch.short + "abcdefghijklmnopqrstuvwxyz" if c not in used)
                    used.add(letter)
                    letters[ch.token] = letter.upper() if team == IMPERIAL else letter
        camp_label = {}
        for team, prefix in ((IMPERIAL, "I"), (RAIDERS, "R")):
            for c in board.character_camp[team]:
                camp_label[c] = prefix + "C"
            for c in board.strawberry_camp[team]:
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
            if c in board.water:
                return "~~~"
            if c in board.bridges:
                return "===" if board.bridges[c] == "ew" else " ‖ "
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
        for ch in chars:
            t = ch.token
            where = "off board" if self._cell[t] is None else cell_text(self._cell[t])
            legend.append(f"{letters[t]}={ch.qualified}({where}, {self._carried[t]} carried)")
        lines.append("  " + "  ".join(legend))
        lines.append(f"  round {self._round}, {TEAM_NAMES[self._team]}' turn, phase {self._phase}; "
                     f"VP imperial {self.vp(IMPERIAL)} raiders {self.vp(RAIDERS)} "
                     f"(deposited {self._deposited[0]}/{self._deposited[1]})")
        if self._terminal:
            r = self.returns()
            outcome = "draw" if r[0] == 0 else f"{TEAM_NAMES[0 if r[0] > 0 else 1]} win"
            lines.append(f"  move {self._move_number}, game over: {outcome}")
        elif self._active is not None:
            lines.append(f"  move {self._move_number}, {chars[self._active].qualified} acting with "
                         f"{self._act.ap} AP; player {self.current_player()} to move")
        else:
            lines.append(f"  move {self._move_number}, player {self.current_player()} to move")
        return "\n".join(lines)

    def __repr__(self):
        return f"<ImperialHarvestState {self.to_dict()}>"


def hydra_destination(board, start, d, other):
    """Point 27: the cell a hydra at `start` reaches by one step in direction d (diving under every
    bridge on the way), or None if that is off the moat, not water, or the other hydra's cell."""
    cell = start
    while True:
        cell = neighbour(cell, *DELTA[d])
        if cell is None or cell not in board.moat:
            return None
        if cell not in board.bridges:
            break
    if cell == other:
        return None
    return cell


# ------------------------------------------------------------------------------------ from a dict

_KEYS = ("hedges", "strawberries", "hydras", "characters", "plucked", "deposited", "hedges_planted",
         "hedges_chopped", "round", "team", "phase", "resting", "last_rested", "done", "active",
         "activation", "respawn_queue", "resume_phase", "current_player", "move_number")
_ACTIVATION_KEYS = ("ap", "face_used", "grapple_used", "pounce_used", "throw_used", "charm_used",
                    "compulsions", "compel_target", "ballad", "war_cry", "bonus")
_CHARACTER_KEYS = ("id", "cell", "facing", "strawberries", "uses_left")


def _state_from_dict(game, d):
    board, chars = game.board, game.characters

    def fail(problem):
        raise ValueError(f"invalid imperial_harvest state: {problem}")

    def integer(value, what, low, high):
        v = _as_int(value)
        if v is None or not low <= v <= high:
            fail(f"{what} must be an integer in {low}..{high}, got {value!r}")
        return v

    def boolean(value, what):
        if not isinstance(value, bool):
            fail(f"{what} must be true or false, got {value!r}")
        return value

    def listing(value, what, length=None):
        if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
            fail(f"{what} must be a list" + (f" of {length}" if length is not None else "")
                 + f", got {value!r}")
        return value

    def cell(value, what):
        listing(value, what, 2)
        return cell_of(integer(value[0], f"{what} x", 0, SIZE - 1),
                       integer(value[1], f"{what} y", 0, SIZE - 1))

    def token(value, what, nullable=True):
        if value is None and nullable:
            return None
        return integer(value, what, 0, NUM_CHARACTERS - 1)

    def tokens(value, what):
        found = [token(v, f"{what} entry", nullable=False) for v in listing(value, what)]
        if len(set(found)) != len(found):
            fail(f"{what} repeats a token: {value!r}")
        return found

    def phase_name(value, what, choices):
        if not (isinstance(value, str) and value in choices):
            fail(f"{what} must be one of {', '.join(choices)}, got {value!r}")
        return value

    if not isinstance(d, dict):
        fail(f"expected a dict, got {type(d).__name__}")
    if set(d) != set(_KEYS):
        fail(f"keys must be exactly {sorted(_KEYS)}, got {sorted(map(str, d))}")
    s = ImperialHarvestState(game)

    # Hedges and strawberries must be written in to_dict's canonical order (R8).
    previous = None
    for i, h in enumerate(listing(d["hedges"], "hedges")):
        listing(h, f"hedges[{i}]", 2)
        a, b = cell(h[0], f"hedges[{i}][0]"), cell(h[1], f"hedges[{i}][1]")
        if manhattan(a, b) != 1:
            fail(f"hedges[{i}] {h!r} does not join two orthogonally adjacent cells")
        key = (xy(a), xy(b))
        if a > b or (previous is not None and key <= previous):
            fail("hedges must be pairs with the lower cell index first, sorted, without repeats")
        previous = key
        s._hedges.add(edge(a, b))

    previous = -1
    for i, c in enumerate(listing(d["strawberries"], "strawberries")):
        c = cell(c, f"strawberries[{i}]")
        if c in board.water:
            fail(f"strawberry on water at {cell_text(c)}")
        if c <= previous:
            fail("strawberries must be sorted by cell index, without repeats")
        previous = c
        s._strawberries.add(c)

    listing(d["hydras"], "hydras", 2)
    s._hydras = [cell(c, f"hydras[{i}]") for i, c in enumerate(d["hydras"])]
    for h in s._hydras:
        if h not in board.water:
            fail(f"hydra on {cell_text(h)}, which is not water")
    if s._hydras[0] == s._hydras[1]:
        fail("the two hydras share a cell")

    listing(d["characters"], "characters", NUM_CHARACTERS)
    for t, (ch, entry) in enumerate(zip(chars, d["characters"])):
        what = f"characters[{t}]"
        if not isinstance(entry, dict) or set(entry) != set(_CHARACTER_KEYS):
            fail(f"{what} must be a dict with keys {list(_CHARACTER_KEYS)}, got {entry!r}")
        if entry["id"] != ch.id:
            fail(f"{what} id must be {ch.id!r} (token order of the teams), got {entry['id']!r}")
        if entry["cell"] is not None:
            s._cell[t] = cell(entry["cell"], f"{what} cell")
            if s._cell[t] in board.water:
                fail(f"{what} stands on water at {cell_text(s._cell[t])}")
        if not (isinstance(entry["facing"], str) and entry["facing"] in DIRS):
            fail(f"{what} facing must be one of n, e, s, w, got {entry['facing']!r}")
        s._facing[t] = DIRS.index(entry["facing"])
        s._carried[t] = integer(entry["strawberries"], f"{what} strawberries", 0, ch.item_slots)
        if ch.uses is None:
            if entry["uses_left"] is not None:
                fail(f"{what} uses_left must be null, got {entry['uses_left']!r}")
        else:
            s._uses[t] = integer(entry["uses_left"], f"{what} uses_left", 0, ch.uses)

    listing(d["plucked"], "plucked", 2)
    listing(d["deposited"], "deposited", 2)
    total = board.num_strawberries
    s._plucked = [integer(v, f"plucked[{i}]", 0, total) for i, v in enumerate(d["plucked"])]
    s._deposited = [integer(v, f"deposited[{i}]", 0, total) for i, v in enumerate(d["deposited"])]
    # A strawberry leaves the board only by being plucked (part 1: nothing puts one back).
    if sum(s._carried) + sum(s._deposited) > sum(s._plucked):
        fail("more strawberries carried and deposited than plucked")
    if len(s._strawberries) + sum(s._plucked) > total:
        fail(f"more strawberries on the board and plucked than the game has ({total})")
    s._planted = integer(d["hedges_planted"], "hedges_planted", 0, MAX_HEDGES_PLANTED)
    s._chopped = integer(d["hedges_chopped"], "hedges_chopped", 0, MAX_HEDGES_CHOPPED)
    s._round = integer(d["round"], "round", 1, ROUNDS)
    s._team = integer(d["team"], "team", 0, 1)
    s._phase = phase_name(d["phase"], "phase", PHASES)
    s._resting = token(d["resting"], "resting")
    listing(d["last_rested"], "last_rested", 2)
    s._last_rested = [token(v, f"last_rested[{i}]") for i, v in enumerate(d["last_rested"])]
    for team, t in enumerate(s._last_rested):
        if t is not None and chars[t].team != team:
            fail(f"last_rested[{team}] = {t} is not a token of that team")
    s._done = tokens(d["done"], "done")
    s._active = token(d["active"], "active")
    s._queue = tokens(d["respawn_queue"], "respawn_queue")
    if d["resume_phase"] is not None:
        s._resume = phase_name(d["resume_phase"], "resume_phase", PHASES[:4])
    s._move_number = integer(d["move_number"], "move_number", 0, MAX_STORED_MOVE_NUMBER)

    a = d["activation"]
    if not isinstance(a, dict) or set(a) != set(_ACTIVATION_KEYS):
        fail(f"activation must be a dict with keys {list(_ACTIVATION_KEYS)}, got {a!r}")
    act = Activation()
    act.ap = integer(a["ap"], "activation ap", 0, MAX_STORED_AP)
    for name in ("face_used", "grapple_used", "pounce_used", "throw_used", "charm_used", "bonus"):
        setattr(act, name, boolean(a[name], f"activation {name}"))
    act.compulsions = integer(a["compulsions"], "activation compulsions", 0, game.max_compulsions)
    act.compel_target = token(a["compel_target"], "activation compel_target")
    act.ballad = tokens(a["ballad"], "activation ballad")
    act.war_cry = tokens(a["war_cry"], "activation war_cry")
    s._act = act

    # Consistency of the turn machinery.
    terminal = _as_int(d["current_player"]) == TERMINAL and not isinstance(d["current_player"], bool)
    s._terminal = terminal
    phase = s._resume if s._phase == "respawn" else s._phase
    if s._phase == "respawn":
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
    if terminal:
        if s._phase != "rest" or s._resting is not None or s._done or s._active is not None:
            fail("a finished game must be in phase rest with no resting, done or active token")
        if s._team != RAIDERS or (s._strawberries and s._round != ROUNDS):
            fail("the game can only be over after the Raiders' turn of round 7 or with no "
                 "strawberry left on the board")
    elif phase == "rest":
        if s._resting is not None or s._done or s._active is not None:
            fail("phase rest has no resting, done or active token")
    else:
        if s._resting is None:
            fail(f"phase {phase} needs a resting token")
        if phase == "pick" and (s._active is not None or len(s._done) > 1):
            fail("phase pick has no active token and at most one done token")
        if phase == "hydra" and (s._active is not None or not s._done):
            fail("phase hydra has no active token and a done (forfeited) token")
        if phase == "act" and (s._active is None or s._active not in team_tokens
                               or s._active == s._resting or s._active in s._done
                               or len(s._done) > 1):
            fail("phase act needs an active token of the team, not resting and not done")
    if s._active is None:
        if act.to_dict() != Activation().to_dict():
            fail("activation must hold its default values when no token is active")
    else:
        me = chars[s._active]
        if s._cell[s._active] is None:
            fail("the active token is off the board")
        for flag, ability in (("grapple_used", AB_GRAPPLE), ("pounce_used", AB_POUNCE),
                              ("throw_used", AB_THROW), ("charm_used", AB_CHARM)):
            if getattr(act, flag) and ability not in me.abilities:
                fail(f"activation {flag} is set but the active character has no {ability}")
        if act.compulsions and AB_COMPEL not in me.abilities:
            fail("activation compulsions > 0 but the active character has no compulsion")
        if act.compel_target == s._active:
            fail("activation compel_target must be another character than the active one")
        if act.bonus != (s._carried[s._active] >= 1):
            fail("activation bonus must be true exactly when the active token carries a strawberry")
        if (act.compel_target is None) != (act.compulsions == 0):
            fail("activation compel_target is set exactly when compulsions > 0")
        for b in act.ballad:
            if b == s._active or chars[b].team != me.team or AB_BALLAD not in chars[b].abilities:
                fail(f"activation ballad lists token {b}, not an allied Bard")
        for b in act.war_cry:
            if chars[b].team == me.team or AB_WAR_CRY not in chars[b].abilities:
                fail(f"activation war_cry lists token {b}, not an enemy Bard")
    for t in range(NUM_CHARACTERS):
        if (s._cell[t] is None) != (t in s._queue) and not terminal:
            fail(f"token {t} must be off the board exactly when it awaits respawn")
        if (s._cell[t] is not None and s._cell[t] not in board.character_camp[chars[t].team]
                and any(manhattan(h, s._cell[t]) == 1 for h in s._hydras)):
            fail(f"token {t} stands next to a hydra outside its own camp")
    expected = TERMINAL if terminal else (chars[s._queue[0]].team if s._queue else s._team)
    if _as_int(d["current_player"]) != expected or isinstance(d["current_player"], bool):
        fail(f"current_player must be {expected}, got {d['current_player']!r}")
    return s

