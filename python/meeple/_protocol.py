"""The parts of the protocol written once in Python for every game's C++ classes: JSON documents,
pickling and repr. `install(GameClass, StateClass)` adds them."""
from __future__ import annotations

from . import serialization
from ._registry import load


def _game_from_json(self, text):
    state = serialization.from_json(text)
    if state.game.name != self.name or state.game.parameters() != self.parameters():
        raise ValueError(f"document is a state of {state.game.name} with other parameters than this game")
    return state


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
    state_class.to_json = serialization.state_to_json
    state_class.to_document = serialization.state_to_document
    state_class.__reduce__ = _state_reduce
    state_class.__repr__ = _state_repr
