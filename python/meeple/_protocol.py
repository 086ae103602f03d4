"""The game protocol as types, and the parts of it written once in Python for every game's C++
classes: JSON documents, pickling and repr (`install(GameClass, StateClass)` adds them).

`Game` and `State` describe what every engine game and state offers (docs/protocol.md), so that
search code can be annotated once for all games (`def search(state: meeple.State) -> int`) and
type checkers and editors know what `meeple.load(...)` returns. Each game's classes have a few
extras of their own (e.g. Harmonies' `score_breakdown`, Imperial Harvest's `vp`)."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from . import serialization
from ._registry import load


@runtime_checkable
class State(Protocol):
    """A position of one game (the class behind `game.new_initial_state()`); docs/protocol.md."""

    @property
    def game(self) -> Game: ...
    def current_player(self) -> int:
        """0..num_players-1, `meeple.CHANCE` (-1) at a chance node, `meeple.TERMINAL` (-4) when over."""
    def legal_actions(self) -> npt.NDArray[np.int32]:
        """Sorted legal actions (the chance outcomes at a chance node); empty when over."""
    def legal_actions_mask(self) -> npt.NDArray[np.uint8]:
        """One entry per action (per chance outcome at a chance node): 1 if legal."""
    def apply_action(self, action: int) -> None:
        """Plays `action`; an illegal one raises ValueError and changes nothing."""
    def clone(self) -> State: ...
    def reseed(self, seed: int) -> None:
        """Implicit chance still to come is drawn from a generator seeded by `seed` (position unchanged)."""
    def transposition_key(self) -> int:
        """A 64-bit int that equal states share, for transposition tables."""
    def child(self, action: int) -> State:
        """A new state: this one after `action` (this one unchanged); illegal: ValueError."""
    def is_terminal(self) -> bool: ...
    def returns(self) -> npt.NDArray[np.float64]:
        """One value per player; all 0 before the end."""
    def is_chance_node(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs sorted by outcome; empty if not a chance node."""
    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Flat, of `game.observation_shape()`, from `player`'s view (default: the player to move)."""
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...
    def move_number(self) -> int:
        """Actions applied so far, chance outcomes included."""
    def to_dict(self) -> dict[str, Any]:
        """The position as plain data (`game.state_from_dict` reads it back)."""
    def to_json(self, indent: int | None = None) -> str:
        """A versioned JSON document (`meeple.from_json` reads it back)."""
    def to_document(self) -> dict[str, Any]:
        """The document of `to_json` as plain data."""
    @property
    def state_size_bytes(self) -> int:
        """Bytes of the C++ state (a plain struct: `clone` copies this much)."""


@runtime_checkable
class Game(Protocol):
    """A game with its parameters (what `meeple.load` returns); docs/protocol.md."""

    @property
    def name(self) -> str: ...
    def parameters(self) -> dict[str, Any]:
        """Every parameter with its value, defaults filled in."""
    def num_players(self) -> int: ...
    def num_distinct_actions(self) -> int:
        """Actions are 0..num_distinct_actions()-1."""
    def max_chance_outcomes(self) -> int: ...
    def observation_shape(self) -> tuple[int, ...]: ...
    def max_game_length(self) -> int: ...
    def min_utility(self) -> float:
        """A lower bound on the returns of a finished game."""
    def max_utility(self) -> float:
        """An upper bound on the returns of a finished game."""
    def utility_sum(self) -> float | None:
        """The sum of a finished game's returns if the same for every game (0: zero-sum), else None."""
    def new_initial_state(self, seed: int | None = None) -> State: ...
    def state_from_dict(self, state: dict[str, Any]) -> State: ...
    def from_json(self, text: str) -> State: ...
    def perft(self, state: State, depth: int) -> int:
        """The number of action sequences of exactly `depth` actions from `state` (explicit chance
        outcomes count as actions; a game over sooner counts 0): a determinism signature."""
    def random_playouts(self, n: int, seed: int = 0, threads: int = 1, state: State | None = None
                        ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """`n` whole random games in C++: (returns per game and player, lengths); from copies of
        `state` if given (see meeple.random_playouts)."""


def _game_from_json(self, text):
    state = serialization.from_json(text)
    if state.game.name != self.name:
        raise ValueError(f"document is a state of {state.game.name}, not of {self.name}")
    ours, its = self.parameters(), state.game.parameters()
    if its != ours:
        differ = "; ".join(f"{k}={_short(its.get(k))} (this game: {_short(ours.get(k))})"
                           for k in ours if its.get(k) != ours.get(k))
        raise ValueError(f"document is a state of {self.name} with other parameters: {differ}")
    return state


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _game_hash(self) -> int:
    """Consistent with the C++ `==` (the game class and its parameter dicts compare equal): two
    games with equal parameters hash alike however their dicts are ordered (a card table whose
    keys come in another order) and whatever equal numbers they hold (1 and 1.0)."""
    return hash((type(self), _hashable(self.parameters())))


_NAN = object()


def _hashable(value: Any) -> Any:
    """A hashable stand-in for a parameter value: equal values (by ==) get equal hashes."""
    if isinstance(value, dict):
        return frozenset((key, _hashable(v)) for key, v in value.items())  # keys are hashable
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    if isinstance(value, float) and value != value:
        return _NAN  # every NaN hashes alike (hash(nan) is per object)
    try:
        hash(value)
    except TypeError:
        return type(value).__name__  # an unhashable oddity: a constant is still consistent
    return value


def _game_reduce(self):
    return (_load_game, (self.name, self.parameters()))


def _load_game(name, parameters):
    return load(name, **parameters)


def _state_reduce(self):
    return (serialization.state_from_document, (serialization.state_to_document(self),))


def _game_repr(self):
    params = ", ".join(f"{k}={v!r}" for k, v in self.parameters().items())
    return f"meeple.load({self.name!r}, {params})" if params else f"meeple.load({self.name!r})"


def _state_repr(self):
    who = self.current_player()
    return f"<{self.game.name} state: move {self.move_number()}, player {who}>"


def install(game_class, state_class) -> None:
    game_class.from_json = _game_from_json
    game_class.__reduce__ = _game_reduce
    game_class.__repr__ = _game_repr
    game_class.__hash__ = _game_hash
    state_class.to_json = serialization.state_to_json
    state_class.to_document = serialization.state_to_document
    state_class.__reduce__ = _state_reduce
    state_class.__repr__ = _state_repr
