"""Abacuachego, pure-Python reference implementation.

Written from the rules (docs/rules/abacuachego.md, completing ../shared/rules/abacuachego.spec.md),
not from the C++ engine: it is the oracle for differential tests and the pure-Python baseline.
Standard library only.

Board, seen from above with north up (n = pits_per_row, default 10):

              Zaque's pits  n ... 2 1
    Zipa's store                        Zaque's store
              Zipa's pits   1 2 ... n

Player 0 is Zipa (south, moves first), player 1 is Zaque (north). Each player's pits are numbered
1..n from the owner's left, so pit 1 is next to the owner's store. Internally pits are indexed
0..n-1 (index = pit number - 1) in ``pits[player]``.

Actions: ``2*(k-1) + d`` for pit k of the player to move, d = 0 clockwise (CW, along your row toward
your own store), d = 1 counter-clockwise (CCW, away from your store).
"""

import re

from . import _document
from ._document import action_int as _action_int, as_int as _as_int, document_int as _document_int

ZIPA = 0
ZAQUE = 1
TERMINAL = -4  # current_player() once the game is over (meeple.TERMINAL)
CW = 0
CCW = 1
PLAYER_NAMES = ("Zipa", "Zaque")
DIRECTION_NAMES = ("cw", "ccw")

DEFAULT_PARAMETERS = {
    "pits_per_row": 10,
    "seeds_per_pit": 5,
    "win_threshold": 51,
    "max_plies": 1000,
    "parity": "count",
    "origin_match": "count",
    "match": "digit",
    "skip_origin_on_lap": False,
}
_CHOICES = {
    "parity": ("count", "pit"),
    "origin_match": ("count", "pit"),
    "match": ("digit", "exact"),
}
MAX_TOTAL_GRAINS = 60000
MAX_MAX_PLIES = 65535



def _check_parameters(params):
    """Defaults filled in and every value checked; ValueError naming the problem."""
    unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for abacuachego; "
            f"valid parameters: {', '.join(DEFAULT_PARAMETERS)}")
    values = dict(DEFAULT_PARAMETERS, **params)

    def integer(name, low, high=None):
        value = _as_int(values[name])
        if value is None or value < low or (high is not None and value > high):
            wanted = f"in {low}..{high}" if high is not None else f">= {low}"
            raise ValueError(f"parameter {name} must be an integer {wanted}, got {values[name]!r}")
        values[name] = value

    integer("pits_per_row", 2, 12)
    integer("win_threshold", 1, MAX_TOTAL_GRAINS)  # more could never be reached
    integer("max_plies", 1, MAX_MAX_PLIES)
    seeds = _as_int(values["seeds_per_pit"])
    if seeds is None or seeds < 1 or 2 * values["pits_per_row"] * seeds > MAX_TOTAL_GRAINS:
        raise ValueError(
            f"parameter seeds_per_pit must be an integer >= 1 with "
            f"2 * pits_per_row * seeds_per_pit <= {MAX_TOTAL_GRAINS} "
            f"(pits_per_row={values['pits_per_row']}), got {values['seeds_per_pit']!r}")
    values["seeds_per_pit"] = seeds
    for name, choices in _CHOICES.items():
        if not (isinstance(values[name], str) and values[name] in choices):
            raise ValueError(f"parameter {name} must be one of {', '.join(map(repr, choices))}, "
                             f"got {values[name]!r}")
    if not isinstance(values["skip_origin_on_lap"], bool):
        raise ValueError(f"parameter skip_origin_on_lap must be a bool (True or False), "
                         f"got {values['skip_origin_on_lap']!r}")
    return values


class AbacuachegoGame:
    """The game and its parameters (see DEFAULT_PARAMETERS and docs/rules/abacuachego.md, point 17)."""

    name = "abacuachego"
    # Parameters whose values are text; a document holds any other one as its value (_document).
    _TEXT_PARAMETERS = ("parity", "origin_match", "match")

    def __init__(self, **params):
        self._params = _check_parameters(params)
        p = self._params
        self.n = p["pits_per_row"]
        self.seeds_per_pit = p["seeds_per_pit"]
        self.win_threshold = p["win_threshold"]
        self.max_plies = p["max_plies"]
        self.parity = p["parity"]
        self.origin_match = p["origin_match"]
        self.match = p["match"]
        self.skip_origin_on_lap = p["skip_origin_on_lap"]
        # The sowing ring in counter-clockwise order (rule 4). An entry is ("pit", player, index) or
        # ("store", player). Clockwise is the same ring walked backwards.
        n = self.n
        self.ring = ([("pit", ZIPA, i) for i in range(n)] + [("store", ZAQUE)]
                     + [("pit", ZAQUE, i) for i in range(n)] + [("store", ZIPA)])

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"AbacuachegoGame({args})"

    # Equal by value, like the engine's games and states (and the Harmonies reference's).
    def __eq__(self, other):
        return isinstance(other, AbacuachegoGame) and other._params == self._params

    __hash__ = None  # type: ignore[assignment]  # as the Harmonies reference's game

    def parameters(self):
        return dict(self._params)

    def num_players(self):
        return 2

    def num_distinct_actions(self):
        return 2 * self.n

    def max_chance_outcomes(self):
        return 0

    def observation_shape(self):
        return (2 * self.n + 2,)

    def max_game_length(self):
        return self.max_plies

    def min_utility(self):
        """The returns of a finished game are +1 / -1 (larger store first) or 0 / 0."""
        return -1.0

    def max_utility(self):
        return 1.0

    def utility_sum(self):
        """Zero-sum."""
        return 0.0

    def ring_position(self, player, index):
        """Position in self.ring of pit `index` (0-based) of `player`."""
        return player * (self.n + 1) + index

    def new_initial_state(self, seed=None):
        _document.check_seed(seed)  # no chance: the seed is only checked, as the engine does
        n, s = self.n, self.seeds_per_pit
        return AbacuachegoState(self, [[s] * n, [s] * n], [0, 0], ZIPA, 0)

    def from_json(self, text):
        """The state in a JSON document of `state.to_json()` (the engine's documents too)."""
        return _document.from_json(self, text)

    def state_from_dict(self, d):
        """The state described by `d` (the format of AbacuachegoState.to_dict), validated."""
        n = self.n

        def fail(problem):
            raise ValueError(f"invalid abacuachego state: {problem}")

        def count(value, what):
            v = _document_int(value)
            if v is None:
                fail(f"{what} must be an integer, got {value!r}")
            if v < 0:
                fail(f"{what} must be >= 0, got {v}")
            return v

        if not isinstance(d, dict):
            fail(f"expected a dict, got {type(d).__name__}")
        keys = {"pits", "stores", "current_player", "ply"}
        if set(d) != keys:
            fail(f"keys must be exactly {sorted(keys)}, got {sorted(map(str, d))}")
        rows = d["pits"]
        if not isinstance(rows, (list, tuple)) or len(rows) != 2:
            fail("pits must be a list of 2 rows [Zipa pits 1..n, Zaque pits 1..n]")
        pits = []
        for player, row in enumerate(rows):
            if not isinstance(row, (list, tuple)) or len(row) != n:
                fail(f"pits[{player}] must be a list of {n} counts (pits_per_row={n})")
            pits.append([count(v, f"pits[{player}][{i}]") for i, v in enumerate(row)])
        if not isinstance(d["stores"], (list, tuple)) or len(d["stores"]) != 2:
            fail("stores must be a list of 2 counts [Zipa store, Zaque store]")
        stores = [count(v, f"stores[{player}]") for player, v in enumerate(d["stores"])]
        total = sum(pits[0]) + sum(pits[1]) + sum(stores)
        expected = 2 * n * self.seeds_per_pit
        if total != expected:
            fail(f"the board holds {total} grains, expected 2 * {n} * {self.seeds_per_pit} = {expected}")
        player = _document_int(d["current_player"])
        if player not in (ZIPA, ZAQUE, TERMINAL):
            fail(f"current_player must be 0, 1 or {TERMINAL}, got {d['current_player']!r}")
        ply = _document_int(d["ply"])
        if ply is None or not 0 <= ply <= self.max_plies:
            fail(f"ply must be an integer in 0..{self.max_plies} (max_plies), got {d['ply']!r}")
        over_threshold = max(stores) >= self.win_threshold
        row_empty = sum(pits[0]) == 0 or sum(pits[1]) == 0
        if player != TERMINAL:
            if over_threshold:
                fail(f"a store holds {max(stores)} >= win_threshold {self.win_threshold} "
                     f"but the game is not over")
            if row_empty:
                fail("a row is empty but the game is not over")
            if ply >= self.max_plies:
                fail(f"ply {ply} reached max_plies {self.max_plies} but the game is not over")
        elif not (over_threshold or sum(pits[0]) + sum(pits[1]) == 0):
            # A game ends either by the threshold (board left as is) or by a sweep / the ply limit
            # (board emptied into the stores).
            fail("the game is marked over but no store reached win_threshold and the board is not empty")
        return AbacuachegoState(self, pits, stores, player, ply)


def grains_match(a, b, match):
    """Rule 9: two grain counts match when their last decimal digits (match="digit") or they (match="exact") are equal."""
    if match == "digit":
        return a % 10 == b % 10
    return a == b


def capture_after_sowing(game, pits, stores, mover, origin, harvested, destination):
    """Rule 9: the capture check after the last grain fell into pit `destination`.

    `origin` and `destination` are (player, index) pairs; `harvested` is h. Modifies `pits` and
    `stores` in place and returns the number of grains captured (a capture may take 0 grains).
    A third capture type would be added here, and only here.
    """
    n = game.n
    opponent = 1 - mover
    dest_player, dest_index = destination
    dest_count = pits[dest_player][dest_index]

    # Origin-destination match.
    if game.origin_match == "count":
        origin_hit = grains_match(dest_count, harvested, game.match)
    else:
        # Board numbers 1..2n counter-clockwise from Zipa's pit 1: Zaque's pit k is number n + k.
        def board_number(player, index):
            return player * n + index + 1
        # Pit numbers are not grain counts: they compare by last digit under either `match` (D5).
        origin_hit = board_number(*destination) % 10 == board_number(*origin) % 10

    # Adjacent match. The front pit of pit index i is the other row's index n-1-i (pit n+1-k).
    front = (1 - dest_player, n - 1 - dest_index)
    neighbours = [front]
    if dest_player == opponent:
        neighbours += [(dest_player, j) for j in (dest_index - 1, dest_index + 1) if 0 <= j < n]
    adjacent_hit = any(grains_match(dest_count, pits[p][i], game.match) for p, i in neighbours)

    if not (origin_hit or adjacent_hit):
        return 0
    # At most one capture, always from the opponent's row: the destination itself if it is an
    # opponent pit, else the pit in front of it.
    target_player, target_index = destination if dest_player == opponent else front
    captured = pits[target_player][target_index]
    pits[target_player][target_index] = 0
    stores[mover] += captured
    return captured


class AbacuachegoState:
    """A position: pits[player][index], stores[player], player to move, plies played."""

    def __init__(self, game, pits, stores, current_player, ply):
        self._game = game
        self._pits = pits
        self._stores = stores
        self._player = current_player
        self._ply = ply

    # ----------------------------------------------------------------- protocol: queries

    @property
    def game(self):
        """The AbacuachegoGame this state belongs to."""
        return self._game

    def get_game(self):
        return self._game

    def current_player(self):
        return self._player

    def is_terminal(self):
        return self._player == TERMINAL

    def is_chance_node(self):
        return False

    def chance_outcomes(self):
        return []

    def move_number(self):
        return self._ply

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        zipa, zaque = self._stores
        if zipa == zaque:
            return [0.0, 0.0]
        return [1.0, -1.0] if zipa > zaque else [-1.0, 1.0]

    def legal_actions(self):
        """Sorted list of the legal actions (empty once the game is over)."""
        if self.is_terminal():
            return []
        game, n = self._game, self._game.n
        actions = []
        for index, h in enumerate(self._pits[self._player]):
            if h == 0:
                continue
            k = index + 1
            parity_of = h if game.parity == "count" else k
            parity_direction = CW if parity_of % 2 == 0 else CCW
            # Rule 7: the other direction only if it drops a grain into an opponent pit. CW passes
            # own pits k-1..1 and then the own store, which takes grain number k only if it is the
            # last one, so grain k+1 is the first that can reach the opponent: h >= k+1. CCW passes
            # own pits k+1..n and the (always skipped) opponent store, so grain n-k+1 reaches the
            # opponent: h >= n+1-k. (A lap never matters: the first lap already decides.)
            reaches_opponent = (h >= k + 1, h >= n + 1 - k)
            for direction in (CW, CCW):
                if direction == parity_direction or reaches_opponent[direction]:
                    actions.append(2 * index + direction)
        return actions

    def legal_actions_mask(self):
        mask = [0] * self._game.num_distinct_actions()
        for action in self.legal_actions():
            mask[action] = 1
        return mask

    def observation_tensor(self, player=None):
        """Rule 15: own pits 1..n, opponent pits 1..n, own store, opponent store, from `player`'s view."""
        if player is None:
            player = ZIPA if self.is_terminal() else self._player
        elif _as_int(player) not in (ZIPA, ZAQUE):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        player = _as_int(player)
        other = 1 - player
        values = self._pits[player] + self._pits[other] + [self._stores[player], self._stores[other]]
        return [float(v) for v in values]

    def action_to_string(self, action):
        a = _action_int(action)
        if not 0 <= a < self._game.num_distinct_actions():
            raise ValueError(f"action must be an integer in 0..{self._game.num_distinct_actions() - 1},"
                             f" got {action!r}")
        index, direction = divmod(a, 2)
        return f"{index + 1}{DIRECTION_NAMES[direction]}"

    def string_to_action(self, text):
        """'3cw' -> 4, '10ccw' -> 19; case and ASCII white space are ignored."""
        if not isinstance(text, str):
            raise TypeError(f"action text must be a str, got {type(text).__name__}")
        m = re.fullmatch(r"([1-9][0-9]*)(cw|ccw)", re.sub(r"[ \t\n\r\f\v]", "", text).lower())
        if m is None or not 1 <= int(m.group(1)) <= self._game.n:
            raise ValueError(f"not an abacuachego action: {str.__repr__(text)} "
                             f"(expected a pit 1..{self._game.n} followed by cw or ccw, e.g. '3cw')")
        return 2 * (int(m.group(1)) - 1) + DIRECTION_NAMES.index(m.group(2))

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
        return {
            "pits": [list(self._pits[ZIPA]), list(self._pits[ZAQUE])],
            "stores": list(self._stores),
            "current_player": self._player,
            "ply": self._ply,
        }

    def reseed(self, seed):
        """The protocol's reseed: this game has no chance, so it only checks `seed`."""
        _document.check_reseed(seed)

    def clone(self):
        return AbacuachegoState(self._game, [list(row) for row in self._pits], list(self._stores),
                                self._player, self._ply)

    def child(self, action):
        """A new state: this one after `action`; this one is unchanged."""
        other = self.clone()
        other.apply_action(action)
        return other

    # copy.copy and copy.deepcopy give an independent state (the game, immutable, is shared).
    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    # ----------------------------------------------------------------- protocol: playing

    def apply_action(self, action):
        a = _action_int(action)
        legal = self.legal_actions()
        if a not in legal:
            raise ValueError(f"illegal action {action!r} for abacuachego; legal actions: {legal}")
        game, pits, stores = self._game, self._pits, self._stores
        mover = self._player
        index, direction = divmod(a, 2)

        # Rule 5: harvest.
        harvested = pits[mover][index]
        pits[mover][index] = 0

        # Rule 8: sow one grain at a time around the ring.
        step = 1 if direction == CCW else -1
        origin_position = game.ring_position(mover, index)
        position = origin_position
        remaining = harvested
        last = None
        while remaining > 0:
            position = (position + step) % len(game.ring)
            place = game.ring[position]
            if place[0] == "store":
                if place[1] == mover and remaining == 1:
                    stores[mover] += 1  # own store takes the last grain
                    remaining = 0
                    last = place
                continue  # otherwise every store is skipped
            if position == origin_position and game.skip_origin_on_lap:
                continue
            pits[place[1]][place[2]] += 1
            remaining -= 1
            last = place

        extra_turn = last[0] == "store"
        if not extra_turn:
            capture_after_sowing(game, pits, stores, mover, (mover, index), harvested,
                                 (last[1], last[2]))
        self._ply += 1
        self._end_of_move(mover, extra_turn)

    def _end_of_move(self, mover, extra_turn):
        """Rules 10-12 (and D2, D4): the end checks after every move, in order."""
        game, pits, stores = self._game, self._pits, self._stores
        if stores[mover] >= game.win_threshold:
            self._player = TERMINAL  # D4: the board is left as it is
        elif sum(pits[ZIPA]) == 0 or sum(pits[ZAQUE]) == 0:
            stores[mover] += sum(pits[ZIPA]) + sum(pits[ZAQUE])
            pits[ZIPA] = [0] * game.n
            pits[ZAQUE] = [0] * game.n
            self._player = TERMINAL
        elif self._ply >= game.max_plies:
            for player in (ZIPA, ZAQUE):
                stores[player] += sum(pits[player])
                pits[player] = [0] * game.n
            self._player = TERMINAL
        else:
            self._player = mover if extra_turn else 1 - mover

    # ----------------------------------------------------------------- display

    def __str__(self):
        n, pits, stores = self._game.n, self._pits, self._stores
        width = max(2, len(str(n)), *(len(str(v)) for v in pits[0] + pits[1] + stores))

        def cells(values):
            return "".join(f"[{v:>{width}}]" for v in values)

        def labels(numbers):
            return "".join(f" {k:>{width}} " for k in numbers)

        left = f"Zipa [{stores[ZIPA]:>{width}}] "
        pad = " " * len(left)
        row_width = n * (width + 2)
        lines = [
            f"{pad}{labels(range(n, 0, -1))}  Zaque's pits (north)",
            f"{pad}{cells(reversed(pits[ZAQUE]))}",  # Zaque's pit 1 is at the east end
            f"{left}{' ' * row_width} [{stores[ZAQUE]:>{width}}] Zaque",
            f"{pad}{cells(pits[ZIPA])}",
            f"{pad}{labels(range(1, n + 1))}  Zipa's pits (south)",
        ]
        if self.is_terminal():
            result = self.returns()
            outcome = "draw" if result[0] == 0 else f"{PLAYER_NAMES[0 if result[0] > 0 else 1]} wins"
            lines.append(f"ply {self._ply}, game over: {outcome} {stores[ZIPA]}-{stores[ZAQUE]}")
        else:
            lines.append(f"ply {self._ply}, {PLAYER_NAMES[self._player]} to move")
        return "\n".join(lines)

    def __repr__(self):
        return f"<AbacuachegoState {self.to_dict()}>"

    def __eq__(self, other):
        if not isinstance(other, AbacuachegoState):
            return False
        return self._game == other._game and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable
