"""Imperial Harvest boards as Python objects: load, generate at random, validate, render, export.

A `Board` is the per-board record of ``boards.json`` (tiles, hedges, camps, insignia, start spaces,
bridges, hydras, strawberries) with the geometry of ``tiles.json``. Cells are ``(x, y)`` tuples,
x right 0..9, y down 0..9 (docs/rules/imperial-harvest.md point 1).

>>> from meeple.imperial_harvest import Board
>>> board = Board.load("standard")
>>> board.validate()
>>> Board.random(7).to_dict() == Board.random(7).to_dict()
True
>>> print(board.render().splitlines()[3])
 0  |  r   r            |           |  I   I|
"""
from __future__ import annotations

import textwrap
from collections import deque
from collections.abc import Iterable

from ._arguments import seed as checked_seed

__all__ = ["Board"]

SIZE = 10
_SIDES = ("N", "E", "S", "W")
_DELTA = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
_CAMP_KINDS = ("imperial_character", "imperial_strawberry", "raiders_character", "raiders_strawberry")
_TEAMS = ("imperial", "raiders")
_MAX_RANDOM_TRIES = 1000


def _data(name: str) -> dict:
    from .imperial_harvest import (
        data,  # late import: imperial_harvest imports this module
    )

    return data(name)


class _SplitMix64:
    """The engine's generator (cpp/common/core.h `Rng`), so that Python and C++ draw the same random
    boards: SplitMix64, and uniform(n) = ((next() >> 32) * n) >> 32."""

    def __init__(self, seed: int):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32


def in_moat_ring(x: int, y: int) -> bool:
    return ((x in (2, 7)) and 2 <= y <= 7) or ((y in (2, 7)) and 2 <= x <= 7)


def is_elbow(x: int, y: int) -> bool:
    return x in (2, 7) and y in (2, 7)


def camp_cells(corner: str) -> set:
    """The cells of the camp on `corner` ('top_left', ...)."""
    ox, oy = _data("tiles")["board"]["camp_slots"][corner]
    return {(ox + i, oy + j) for i in range(2) for j in range(2)}


def _cell(value, where: str) -> tuple[int, int]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"{where}: expected a cell [x, y], got {value!r}")
    x, y = value
    if not (0 <= x < SIZE and 0 <= y < SIZE):
        raise ValueError(f"{where}: cell {x},{y} is off the board")
    return (x, y)


def _edge(a: tuple[int, int], b: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The hedge between two cells, lower cell index (y*10+x) first."""
    return (a, b) if (a[1], a[0]) <= (b[1], b[0]) else (b, a)


def _bridge_joins(x: int, y: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two garden cells a bridge on moat cell (x, y) joins (outside, inside)."""
    if x in (2, 7):  # east-west bridge
        return ((x - 1, y), (x + 1, y)) if x == 2 else ((x + 1, y), (x - 1, y))
    return ((x, y - 1), (x, y + 1)) if y == 2 else ((x, y + 1), (x, y - 1))


def face_hedges(face: dict, rotation: int, origin: tuple[int, int]) -> set:
    """Board hedges (cell pairs) of a tile face turned `rotation` clockwise quarter-turns and laid with
    its top-left cell at `origin`; hedges on the board's outer edge are dropped."""
    w, h = face["size"]
    out = set()
    for x, y, side in face["hedges"]:
        s = _SIDES.index(side)
        cw, ch = w, h
        for _ in range(rotation % 4):
            x, y = ch - 1 - y, x
            cw, ch = ch, cw
            s = (s + 1) % 4
        bx, by = origin[0] + x, origin[1] + y
        dx, dy = _DELTA[_SIDES[s]]
        nx, ny = bx + dx, by + dy
        if 0 <= nx < SIZE and 0 <= ny < SIZE:
            out.add(_edge((bx, by), (nx, ny)))
    return out


class Board:
    """One Imperial Harvest board (the per-board record of boards.json)."""

    def __init__(self, name: str, *, tiles: dict | None, hedges: Iterable, camps: dict, insignia: dict,
                 start_spaces: dict, bridges: Iterable, hydras: Iterable, strawberries: Iterable):
        self.name = name
        self.tiles = None if tiles is None else {slot: (str(v[0]), int(v[1])) for slot, v in tiles.items()}
        self.hedges = [(_cell(a, "hedges"), _cell(b, "hedges")) for a, b in hedges]
        self.camps = dict(camps)
        self.insignia = {k: _cell(v, "insignia") for k, v in insignia.items()}
        self.start_spaces = {k: [_cell(c, f"start_spaces.{k}") for c in v] for k, v in start_spaces.items()}
        self.bridges = [_cell(c, "bridges") for c in bridges]
        self.hydras = [_cell(c, "hydras") for c in hydras]
        self.strawberries = [_cell(c, "strawberries") for c in strawberries]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, d: dict, name: str = "custom") -> Board:
        """A board from a boards.json per-board record (raises ValueError on a malformed record; call
        validate() for the rules)."""
        if not isinstance(d, dict):
            raise ValueError(f"board {name!r}: expected an object, got {type(d).__name__}")
        keys = ("tiles", "hedges", "camps", "insignia", "start_spaces", "bridges", "hydras", "strawberries")
        missing = [k for k in keys if k not in d]
        if missing:
            raise ValueError(f"board {name!r}: missing key {missing[0]!r}")
        tiles = d["tiles"]
        if tiles is not None:
            if not isinstance(tiles, dict) or not all(
                    isinstance(v, (list, tuple)) and len(v) == 2 for v in tiles.values()):
                raise ValueError(f"board {name!r}: tiles must be null or slot -> [face, rotation]")
        for k in ("hedges", "bridges", "hydras", "strawberries"):
            if not isinstance(d[k], (list, tuple)):
                raise ValueError(f"board {name!r}: {k} must be a list")
        for h in d["hedges"]:
            if not isinstance(h, (list, tuple)) or len(h) != 2:
                raise ValueError(f"board {name!r}: a hedge must be a pair of cells, got {h!r}")
        for k in ("camps", "insignia", "start_spaces"):
            if not isinstance(d[k], dict):
                raise ValueError(f"board {name!r}: {k} must be an object")
        return cls(name, **{k: d[k] for k in keys})

    @classmethod
    def load(cls, name: str) -> Board:
        """Board `name` of boards.json ('standard', 'symmetric')."""
        boards = _data("boards")["boards"]
        if name not in boards:
            raise ValueError(f"unknown board {name!r}; boards.json has {', '.join(boards)}")
        return cls.from_dict(boards[name], name)

    @classmethod
    def random(cls, seed: int) -> Board:
        """A random board, the same for the same seed, and the same as the C++ engine draws for
        ``new_initial_state(seed=seed)`` with ``board="random"`` (docs/rules/imperial-harvest.md,
        D37): the 8 rectangular and 4 square tiles shuffled over their slots, each with a random face
        and a random legal rotation; one random legal bridge per moat tile; camps, insignia, start
        spaces, hydras and strawberries as 'standard'. Drawn again (same generator) until every
        garden cell can be reached from both character camps. `seed` is an int (or numpy integer)
        in 0..2**64-1, as game seeds are (the parameter ``board_seed`` takes 0..2**31-1 only); TypeError
        for another type, ValueError out of range."""
        seed = checked_seed(seed)
        tiles_data = _data("tiles")
        layout = tiles_data["board"]
        physical = sorted({f[:-1] for f in tiles_data["faces"]})
        rect = [t for t in physical if tiles_data["faces"][t + "a"]["size"] != [2, 2]]
        square = [t for t in physical if tiles_data["faces"][t + "a"]["size"] == [2, 2]]
        std = _data("boards")["boards"]["standard"]
        rng = _SplitMix64(seed)
        last_error = None
        for _ in range(_MAX_RANDOM_TRIES):
            tiles = {}
            for group, pool in (("rect_slots", rect), ("square_slots", square)):
                order = list(pool)
                for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
                    j = rng.uniform(i + 1)
                    order[i], order[j] = order[j], order[i]
                for slot, tile in zip(layout[group], order):
                    face = tile + "ab"[rng.uniform(2)]
                    rotations = layout[group][slot]["rotations"]
                    tiles[slot] = [face, rotations[rng.uniform(len(rotations))]]
            hedges = set()
            for slot, (face, rot) in tiles.items():
                spec = layout["rect_slots"].get(slot) or layout["square_slots"][slot]
                hedges |= face_hedges(tiles_data["faces"][face], rot, tuple(spec["origin"]))
            bridges = []
            for corner, cells in layout["moat_tiles"].items():
                spots = sorted((tuple(c) for c in cells if _legal_bridge_spot(tuple(c), hedges)), key=_cell_key)
                if not spots:
                    break
                bridges.append(spots[rng.uniform(len(spots))])
            else:
                board = cls(f"random-{seed}", tiles=tiles, hedges=sorted(hedges),
                            camps=std["camps"], insignia=std["insignia"], start_spaces=std["start_spaces"],
                            bridges=sorted(bridges), hydras=std["hydras"],
                            strawberries=std["strawberries"])
                try:
                    board.validate()
                    return board
                except ValueError as e:
                    last_error = e
                    continue
            last_error = last_error or ValueError("a moat tile has no legal bridge spot")
        raise ValueError(f"no valid random board for seed {seed} in {_MAX_RANDOM_TRIES} draws: {last_error}")

    # ------------------------------------------------------------------ export
    def to_dict(self) -> dict:
        """The boards.json per-board record of this board."""
        return {
            "tiles": None if self.tiles is None else {s: [f, r] for s, (f, r) in self.tiles.items()},
            "hedges": sorted([list(a), list(b)] for a, b in (_edge(a, b) for a, b in self.hedges)),
            "camps": dict(self.camps),
            "insignia": {k: list(v) for k, v in self.insignia.items()},
            "start_spaces": {k: [list(c) for c in v] for k, v in self.start_spaces.items()},
            "bridges": [list(c) for c in self.bridges],
            "hydras": [list(c) for c in self.hydras],
            "strawberries": [list(c) for c in self.strawberries],
        }

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"<imperial_harvest Board {self.name!r}>"

    # ------------------------------------------------------------------ geometry
    def _hedge_set(self) -> set:
        return {_edge(a, b) for a, b in self.hedges}

    def _camp_cells(self, kind: str) -> set:
        return camp_cells(self.camps[kind])

    def _step_ok(self, a, b, hedges, bridges) -> bool:
        """A legal orthogonal step a -> b (point 9) when no character is in the way."""
        if not (0 <= b[0] < SIZE and 0 <= b[1] < SIZE):
            return False
        if in_moat_ring(*b) and b not in bridges:
            return False
        if _edge(a, b) in hedges:
            return False
        for c, other in ((a, b), (b, a)):
            if c in bridges:
                horizontal = c[0] in (2, 7)  # east-west bridge
                if (other[1] != c[1]) if horizontal else (other[0] != c[0]):
                    return False
        return True

    def reachable_from(self, cells: Iterable) -> set:
        """Every cell reachable by legal steps from any of `cells`."""
        hedges, bridges = self._hedge_set(), set(self.bridges)
        seen = set(cells)
        todo = deque(seen)
        while todo:
            c = todo.popleft()
            for dx, dy in _DELTA.values():
                n = (c[0] + dx, c[1] + dy)
                if n not in seen and self._step_ok(c, n, hedges, bridges):
                    seen.add(n)
                    todo.append(n)
        return seen

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        """Raises ValueError naming the first problem; returns None for a valid board."""
        where = f"board {self.name!r}"
        tiles_data = _data("tiles")
        layout = tiles_data["board"]
        hedges = set()
        for a, b in self.hedges:
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
                raise ValueError(f"{where}: hedge {a[0]},{a[1]}|{b[0]},{b[1]} does not join two orthogonal neighbours")
            e = _edge(a, b)
            if e in hedges:
                raise ValueError(f"{where}: hedge {a[0]},{a[1]}|{b[0]},{b[1]} listed twice")
            hedges.add(e)
        # Tiles: every slot once, faces of the right shape, legal rotations, each physical tile once,
        # and the hedges they make equal the hedge list.
        if self.tiles is not None:
            slots = {**layout["rect_slots"], **layout["square_slots"]}
            for slot in self.tiles:
                if slot not in slots:
                    raise ValueError(f"{where}: unknown tile slot {slot!r}")
            built: set = set()
            used: dict[str, str] = {}
            for slot, spec in slots.items():
                if slot not in self.tiles:
                    raise ValueError(f"{where}: no tile in slot {slot}")
                face, rot = self.tiles[slot]
                if face not in tiles_data["faces"]:
                    raise ValueError(f"{where}: slot {slot} has unknown tile face {face!r}")
                if rot not in spec["rotations"]:
                    raise ValueError(f"{where}: slot {slot}: rotation {rot} of {face} does not fit "
                                     f"(legal: {spec['rotations']})")
                w, h = tiles_data["faces"][face]["size"]
                if sorted((w, h)) != sorted(spec["size"]):
                    raise ValueError(f"{where}: slot {slot}: tile face {face} is {w}x{h}, the slot is "
                                     f"{spec['size'][0]}x{spec['size'][1]}")
                tile = face[:-1]
                if tile in used:
                    raise ValueError(f"{where}: tile {tile} used twice (slots {used[tile]} and {slot})")
                used[tile] = slot
                built |= face_hedges(tiles_data["faces"][face], rot, tuple(spec["origin"]))
            if built != hedges:
                extra = sorted(hedges - built, key=_edge_key)
                lacking = sorted(built - hedges, key=_edge_key)
                if extra:
                    a, b = extra[0]
                    raise ValueError(f"{where}: hedges inconsistent with tiles: {a[0]},{a[1]}|{b[0]},{b[1]} "
                                     f"is listed but no tile has it")
                a, b = lacking[0]
                raise ValueError(f"{where}: hedges inconsistent with tiles: the tiles have "
                                 f"{a[0]},{a[1]}|{b[0]},{b[1]} but the hedge list lacks it")
        # Camps: the four kinds on four distinct corners.
        corners = layout["camp_slots"]
        if sorted(self.camps) != sorted(_CAMP_KINDS):
            raise ValueError(f"{where}: camps must name exactly {', '.join(_CAMP_KINDS)}")
        for kind, corner in self.camps.items():
            if corner not in corners:
                raise ValueError(f"{where}: camp {kind} on unknown corner {corner!r}")
        if len(set(self.camps.values())) != 4:
            raise ValueError(f"{where}: two camps share a corner")
        # Bridges: one per moat tile, on a non-elbow cell, at a legal spot.
        moat_tile_of = {tuple(c): corner for corner, cells in layout["moat_tiles"].items() for c in cells}
        for corner, cells in layout["moat_tiles"].items():
            if not any(_legal_bridge_spot(tuple(c), hedges) for c in cells):
                raise ValueError(f"{where}: moat tile {corner} has no legal bridge spot")
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        for c in self.bridges:
            if c not in moat_tile_of or is_elbow(*c):
                raise ValueError(f"{where}: bridge {c[0]},{c[1]} is not on a non-elbow moat cell")
            corner = moat_tile_of[c]
            if corner in seen:
                raise ValueError(f"{where}: moat tile {corner} has two bridges ({seen[corner][0]},{seen[corner][1]} "
                                 f"and {c[0]},{c[1]})")
            seen[corner] = c
            if not _legal_bridge_spot(c, hedges):
                raise ValueError(f"{where}: bridge {c[0]},{c[1]} is not a legal spot (a hedge closes one of its ends)")
        for corner in layout["moat_tiles"]:
            if corner not in seen:
                raise ValueError(f"{where}: moat tile {corner} has no bridge")
        # Hydras: two, on distinct water cells.
        if len(self.hydras) != 2 or self.hydras[0] == self.hydras[1]:
            raise ValueError(f"{where}: expected two hydras on distinct cells")
        for c in self.hydras:
            if not in_moat_ring(*c) or c in seen.values():
                raise ValueError(f"{where}: hydra at {c[0]},{c[1]} is not on water")
        # Strawberries: distinct ground cells.
        if len(set(self.strawberries)) != len(self.strawberries):
            raise ValueError(f"{where}: two strawberries on one cell")
        if len(self.strawberries) > 14:
            raise ValueError(f"{where}: {len(self.strawberries)} strawberries; the box has 14")
        for c in self.strawberries:
            if in_moat_ring(*c):
                raise ValueError(f"{where}: strawberry at {c[0]},{c[1]} is in the moat")
        # Start spaces: three distinct cells of the team's character camp.
        for team in _TEAMS:
            cells = self.start_spaces.get(team)
            camp = self._camp_cells(f"{team}_character")
            if cells is None or len(cells) != 3 or len(set(cells)) != 3:
                raise ValueError(f"{where}: {team} needs three distinct start spaces")
            for c in cells:
                if c not in camp:
                    raise ValueError(f"{where}: {team} start space {c[0]},{c[1]} is not in its character camp")
        # Reachability: every garden cell from both character camps.
        camp_cells = set().union(*(self._camp_cells(k) for k in _CAMP_KINDS))
        garden = [(x, y) for y in range(SIZE) for x in range(SIZE)
                  if not in_moat_ring(x, y) and (x, y) not in camp_cells]
        for team in _TEAMS:
            reach = self.reachable_from(self._camp_cells(f"{team}_character"))
            cut = [c for c in garden if c not in reach]
            if cut:
                raise ValueError(f"{where}: garden cell {cut[0][0]},{cut[0][1]} is not reachable from the "
                                 f"{team} character camp ({len(cut)} cells cut off)")

    # ------------------------------------------------------------------ rendering
    def render(self) -> str:
        """ASCII picture in the style of the game's str(): ~~~ water, H1/H2 hydras, === / ::: bridges,
        * strawberries, I/R character camps, i/r strawberry camps, | and --- hedges."""
        hedges = self._hedge_set()
        bridges = set(self.bridges)
        straw = set(self.strawberries)
        camp_letter = {}
        for kind, letter in (("imperial_character", "I"), ("raiders_character", "R"),
                             ("imperial_strawberry", "i"), ("raiders_strawberry", "r")):
            for c in self._camp_cells(kind):
                camp_letter[c] = letter
        lines = [f"Imperial Harvest board {self.name}",
                 "      " + "   ".join(str(x) for x in range(SIZE)) + " ",
                 "    +" + "---+" * SIZE]
        for y in range(SIZE):
            row = f" {y}  |"
            for x in range(SIZE):
                c = (x, y)
                if c in self.hydras:
                    text = f"H{self.hydras.index(c) + 1}~"
                elif c in bridges:
                    text = "===" if x in (2, 7) else ":::"
                elif in_moat_ring(x, y):
                    text = "~~~"
                elif c in straw:
                    text = "  *"
                else:
                    text = "  " + camp_letter.get(c, " ")
                east = x == SIZE - 1 or _edge(c, (x + 1, y)) in hedges
                row += text + ("|" if east else " ")
            lines.append(row)
            sep = "    +"
            for x in range(SIZE):
                south = y == SIZE - 1 or _edge((x, y), (x, y + 1)) in hedges
                sep += ("---" if south else "   ") + "+"
            lines.append(sep)
        lines += textwrap.wrap("  (~ water, H1/H2 hydras, === / ::: bridges, * strawberry, I/R character camps, "
                               "i/r strawberry camps, | and --- hedges)", 80, subsequent_indent="   ")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def _cell_key(c) -> tuple:
    return (c[1], c[0])


def _edge_key(e) -> tuple:
    return (_cell_key(e[0]), _cell_key(e[1]))


def _legal_bridge_spot(c: tuple[int, int], hedges: set) -> bool:
    """A non-elbow moat cell whose two joins (outside cell - bridge - inside cell) are unhedged."""
    if not in_moat_ring(*c) or is_elbow(*c):
        return False
    outside, inside = _bridge_joins(*c)
    return _edge(outside, c) not in hedges and _edge(c, inside) not in hedges
