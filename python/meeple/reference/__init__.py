"""Pure-Python reference implementations of the meeple games.

They speak the protocol of docs/protocol.md (lists instead of numpy arrays), are written from the
rules alone, and serve as the oracle for differential tests and as the slow baseline in benchmarks.
Standard library only: nothing here may import ``meeple._core`` or numpy.
"""

import importlib

# game name -> (module in this package, Game class). Adding a game is one line here.
_GAMES = {
    "abacuachego": ("abacuachego", "AbacuachegoGame"),
    "imperial_harvest": ("imperial_harvest", "ImperialHarvestGame"),
    "harmonies": ("harmonies", "HarmoniesGame"),
}


def list_games():
    """Names of the games that have a reference implementation, sorted."""
    return sorted(_GAMES)


def load(name, /, **params):
    """The reference Game `name` with the given parameters (ValueError if unknown or bad)."""
    if name not in _GAMES:
        raise ValueError(f"unknown game {name!r}; reference games: {', '.join(list_games())}")
    module_name, class_name = _GAMES[name]
    module = importlib.import_module("." + module_name, __name__)
    return getattr(module, class_name)(**params)
