"""The game registry and parameter validation behind `meeple.load`.

Each game module declares its parameters with `Param` and registers a factory. `load` checks every
parameter (unknown names, types, ranges, choices) and raises ValueError naming the valid ones
before anything reaches C++.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from ._protocol import Game

__all__ = ["Param", "GameSpec", "register", "load", "load_from_document", "list_games", "game_spec"]


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    doc: str = ""
    choices: tuple | None = None  # allowed values (strings or ints)
    low: int | None = None  # inclusive bounds for ints
    high: int | None = None
    kind: type | None = None  # int, bool, str; inferred from the default when None
    check: Callable[[Any], Any] | None = None  # custom converter for object-valued parameters

    @property
    def type(self) -> type:
        return self.kind or type(self.default)

    def describe(self) -> str:
        if self.choices is not None:
            return " | ".join(repr(c) for c in self.choices)
        if self.type is bool:
            return "True | False"
        if self.type is int:
            lo = "" if self.low is None else str(self.low)
            hi = "" if self.high is None else str(self.high)
            return ("None | " if self.default is None else "") + f"int {lo}..{hi}"
        return self.type.__name__

    def convert(self, game: str, value: Any) -> Any:
        if self.check is not None:
            return self.check(value)
        expected = self.type
        if isinstance(value, str) and expected is not str:
            value = _parse_text(value, expected)
        if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            if hasattr(value, "__index__") and not isinstance(value, (bool, np.bool_)):  # np.bool_: numpy < 2.3
                value = value.__index__()
            else:
                raise ValueError(self._problem(game, value))
        elif expected is bool and not isinstance(value, bool):
            raise ValueError(self._problem(game, value))
        elif expected is str and not isinstance(value, str):
            raise ValueError(self._problem(game, value))
        if self.choices is not None and value not in self.choices:
            raise ValueError(self._problem(game, value))
        if expected is int and (
            (self.low is not None and value < self.low) or (self.high is not None and value > self.high)
        ):
            raise ValueError(self._problem(game, value))
        return value

    def _problem(self, game: str, value: Any) -> str:
        return f"bad value {value!r} for parameter {self.name!r} of {game}; expected {self.describe()}"


def _parse_text(text: str, expected: type) -> Any:
    t = text.strip()
    if expected is bool:
        low = t.lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        return text
    if expected is int:
        try:
            return int(t)
        except ValueError:
            return text
    return text


@dataclass(frozen=True)
class GameSpec:
    name: str
    description: str
    params: tuple[Param, ...]
    factory: Callable[..., Any]
    extra: dict = field(default_factory=dict)
    # What `meeple play` calls each seat besides its number ("player 0 (Zipa)"); () for none.
    player_names: tuple[str, ...] = ()
    # The cards in play described for a person at the board (`meeple play`'s `cards`), and what
    # `help` says the command shows.
    cards_text: Callable[[Any], str] | None = None
    cards_help: str = "the cards in play"
    # How moves are written and how a turn goes, for `meeple play`'s `help` (the rules document
    # says the rest).
    moves_help: str = ""
    # How a person may also write moves (`meeple play`, `render --moves`): `spell_move(state, text)`
    # gives `text` as the move's own string (Harmonies: colour letters), or `text` unchanged.
    spell_move: Callable[[Any, str], str] | None = None
    # How `meeple play` and `render --moves` read a bare number (None: as an action's number): the action meant, or a
    # ValueError saying why there is none (Abacuachego: a pit).
    read_bare_number: Callable[[Any, int], int] | None = None
    # Why the move `action` is not legal in `state`, for a person (None: no simple reason).
    why_illegal: Callable[[Any, int], str | None] | None = None
    # How a finished game was scored, for a person (`meeple play` prints it after the final board;
    # None: the board says it all).
    score_text: Callable[[Any], str] | None = None
    # The board as `meeple play` shows it to the person at `seat` (None: str(state)); Harmonies puts
    # that person's board last, next to the prompt.
    board_text: Callable[[Any, int], str] | None = None
    # What a move did that the board does not show at a glance, for `meeple play` (a capture, a
    # defeat): narrate(state before, action, state after), or None.
    narrate: Callable[[Any, int, Any], str | None] | None = None

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """Checks `given` and returns every parameter with its value, defaults filled in."""
        known = {p.name: p for p in self.params}
        unknown = [k for k in given if k not in known]
        if unknown:
            valid = ", ".join(known) or "(none)"
            raise ValueError(f"unknown parameter {unknown[0]!r} for {self.name}; valid parameters: {valid}")
        return {p.name: p.convert(self.name, given[p.name]) if p.name in given else p.default for p in self.params}


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    _GAMES[spec.name] = spec


def list_games() -> list[str]:
    """Names of every game `load` knows, sorted."""
    return sorted(_GAMES)


def game_spec(name: str) -> GameSpec:
    try:
        return _GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(list_games())}") from None


_CALL = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def parse_game_string(text: str) -> tuple[str, dict[str, str]]:
    """'abacuachego(parity=pit,max_plies=200)' -> ('abacuachego', {'parity': 'pit', ...}).

    A part without '=' continues the previous value, so list values need no quoting:
    'imperial_harvest(teams=monk,regent,imperial_bard/barbarian,hound,nymph)'."""
    m = _CALL.match(text)
    if not m:
        raise ValueError(f"cannot read game string {text!r}; expected name or name(key=value,...)")
    params: dict[str, str] = {}
    body = (m.group(2) or "").strip()
    if body:
        last = None
        for part in body.split(","):
            key, sep, value = part.partition("=")
            if not sep and last is not None:  # a comma inside a value: teams=monk,regent,...
                params[last] += "," + part.strip()
                continue
            if not sep or not key.strip():
                raise ValueError(f"cannot read parameter {part!r} in {text!r}; expected key=value")
            if key.strip() in params:
                raise ValueError(f"parameter {key.strip()!r} given twice in {text!r}")
            last = key.strip()
            params[last] = value.strip()
    return m.group(1).replace("-", "_").lower(), params


def load(name: str, /, **params: Any) -> Game:
    """Returns the Game `name` with `params`; `name` may also be 'game(key=value,...)'.

    A value may be given as itself (an int, a bool, a str...) or as the text a game string or the
    command line's ``-p key=value`` writes it (``pits_per_row="10"``, ``spirits="false"``), read as
    that value; no other conversion is made (10.0 is no int, 0 no bool: a ValueError naming the
    parameter and what it takes). Documents are stricter (`load_from_document`).

    >>> game = load("abacuachego", parity="pit")
    >>> game.parameters()["parity"]
    'pit'
    """
    if not isinstance(name, str):
        raise TypeError(f"game name must be a str, got {type(name).__name__}")
    base, from_string = parse_game_string(name) if "(" in name else (name.replace("-", "_").lower(), {})
    if base not in _GAMES:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(list_games())}")
    spec = _GAMES[base]
    overlap = set(from_string) & set(params)
    if overlap:
        raise ValueError(f"parameter {sorted(overlap)[0]!r} given twice")
    return spec.factory(**spec.resolve({**from_string, **params}))


def load_from_document(name: Any, parameters: dict[str, Any]) -> Game:
    """The game a JSON document names: its exact name, and parameter values as `parameters()`
    writes them. What `load` also reads for people (game strings, numbers and booleans written as
    text, a file path for a card table) is refused here, so a document never makes the reader
    open a file."""
    if not isinstance(name, str) or name not in _GAMES:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(list_games())}")
    spec = _GAMES[name]
    known = {p.name: p for p in spec.params}
    for key, value in parameters.items():
        param = known.get(key)
        if param is not None and isinstance(value, str) and param.type is not str:
            raise ValueError(f"parameter {key!r} of {name} is the text {value!r}; a document holds the "
                             f"value itself, as game.parameters() writes it")
    return spec.factory(**spec.resolve(parameters))
