"""meeple — fast, exact board-game engines for Python.

Three games behind one OpenSpiel-shaped protocol (docs/protocol.md), each with a C++ engine and a
pure-Python reference (`meeple.reference`):

>>> import meeple
>>> meeple.list_games()
['abacuachego', 'harmonies', 'imperial_harvest']
>>> game = meeple.load("abacuachego")
>>> state = game.new_initial_state(seed=1)
>>> while not state.is_terminal():
...     state.apply_action(state.legal_actions()[-1])  # always the highest-numbered move
>>> state.returns().tolist(), state.move_number()
([1.0, -1.0], 49)
"""

import atexit as _atexit
import importlib as _importlib
from collections import namedtuple as _namedtuple
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

from . import _arguments, _core
from ._core import CHANCE, TERMINAL
from ._protocol import Game, State, install as _install
from ._registry import list_games, load
from .serialization import Record, from_json
from .vector import VectorGame
from . import abacuachego  # noqa: F401  (registers the game)
from . import harmonies  # noqa: F401  (registers the game)
from . import imperial_harvest  # noqa: F401  (registers the game)

__version__ = "0.1.0"
__all__ = ["load", "list_games", "Game", "State", "from_json", "Record", "random_playouts", "Playouts", "VectorGame",
           "CHANCE", "TERMINAL", "__version__"]

for _game_class, _state_class in (
    (abacuachego.Game, abacuachego.State),
    (harmonies.Game, harmonies.State),
    (imperial_harvest.Game, imperial_harvest.State),
):
    _install(_game_class, _state_class)

# A daemon thread still inside a C++ computation when Python exits waits for the process to end,
# instead of being ended in a way that aborts it (cpp/bindings/gil.h).
_atexit.register(_core._prepare_for_exit)

Playouts = _namedtuple("Playouts", ["returns", "lengths"])


def random_playouts(game: Game | str, n: int, seed: int = 0, threads: int = 1,
                    state: State | None = None) -> Playouts:
    """Plays `n` whole games with uniformly random actions in C++ (GIL released).

    Returns numpy arrays: `returns` (n, num_players) and `lengths` (n,) in actions per game.
    Game i is seeded from (seed, i), so results do not depend on `threads`. `seed` is an int in
    0..2**64-1 (None is not a seed here: TypeError), `n` 0..2**40, `threads` 1..1024.

    With `state` (an engine state of `game`), each game is played out from a copy of it instead
    of from the start: rollouts for a search written in Python. `lengths` then counts the actions
    after `state` (0 if it is over; chance outcomes count). Implicit chance (Harmonies' default)
    is drawn anew in each copy, reseeded from (seed, i) as `state.reseed` does: a determinisation,
    as each simulation of `meeple.bots.MCTS` draws one, so the playouts do not all replay the
    state's own future. `state` itself is not changed.

    >>> result = random_playouts("abacuachego", 100, seed=3)
    >>> result.returns.shape, bool((result.lengths > 0).all())
    ((100, 2), True)
    >>> game = load("abacuachego")
    >>> position = game.new_initial_state(seed=3)
    >>> position.apply_action(position.legal_actions()[0])
    >>> from_there = random_playouts(game, 100, seed=3, state=position)
    >>> bool((from_there.lengths > 0).all()), position.move_number()
    (True, 1)
    """
    engine = _arguments.engine_game(game, "random_playouts")
    n = _arguments.int_in_range("n", n, 0, 2**40)
    returns, lengths = engine.random_playouts(n, _arguments.seed(seed), _arguments.threads(threads), state)
    return Playouts(returns, lengths)


from . import bots, reference  # noqa: E402  (meeple.bots.MCTS, meeple.reference.load after `import meeple`)

if _TYPE_CHECKING:
    from . import selfplay
else:
    def __getattr__(name: str) -> _Any:
        # meeple.selfplay after a plain `import meeple`, imported when first used: it pulls in
        # multiprocessing and concurrent.futures, which the engine does not need.
        if name == "selfplay":
            return _importlib.import_module(".selfplay", __name__)
        raise AttributeError(f"module 'meeple' has no attribute {name!r}")
