"""Checks of the arguments that the C++ entry points take, made before anything runs, so that a bad
value is a TypeError or ValueError naming it (never a pybind11 signature dump, a crash or a
search that runs for ever)."""
from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core
from ._core import MAX_THREADS  # more threads is a mistake, not a machine
from ._registry import load

if TYPE_CHECKING:
    from ._protocol import Game

MAX_INT32 = 2**31 - 1


def int_in_range(name: str, value: Any, low: int, high: int) -> int:
    """`value` (an int or numpy integer, not bool) as an int in low..high."""
    if isinstance(value, (bool, np.bool_)):  # numpy's bool has an __index__ before numpy 2.3
        raise TypeError(f"{name} must be an int, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}") from None
    if not low <= number <= high:
        raise ValueError(f"{name} must be an int in {low}..{_readable(high)}, got {_short(value)}")
    return number


def _readable(bound: int) -> str:
    """2**64-1 rather than 18446744073709551615."""
    return f"2**{bound.bit_length()}-1" if bound > 2**16 and (bound + 1) & bound == 0 else str(bound)


def seed(value: Any, name: str = "seed") -> int:
    """A seed: an int in 0..2**64-1 (None is not one: callers that allow it say what it means)."""
    if value is None:
        raise TypeError(f"{name} must be an int in 0..2**64-1, got None")
    return int_in_range(name, value, 0, 2**64 - 1)


def optional_seed(value: Any, name: str = "seed") -> int | None:
    """None (where the caller documents what it means) or a seed as `seed` checks it."""
    return None if value is None else seed(value, name)


def threads(value: Any) -> int:
    return int_in_range("threads", value, 1, MAX_THREADS)


def finite_number(name: str, value: Any, low: float, high: float = math.inf, above: bool = False) -> float:
    """`value` (an int, float or numpy number, not bool) as a float, finite, >= low (> low if
    `above`) and <= high."""
    if (isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes, bytearray))
            or not isinstance(value, (int, float)) and not hasattr(value, "__float__")):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int (or Fraction, Decimal) beyond the floats: not finite
        number = math.inf
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}") from None
    if not (math.isfinite(number) and (number > low if above else number >= low) and number <= high):
        bounds = f"{'>' if above else '>='} {low}" + (f" and <= {high}" if high < math.inf else "")
        raise ValueError(f"{name} must be a finite number {bounds}, got {_short(value)}")
    return number


def _short(value: Any) -> str:
    """repr(value), cut short for numbers of hundreds of digits."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits()
        return f"an int of {value.bit_length()} bits"
    return text if len(text) <= 40 else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"


def engine_game(value: Any, who: str) -> Game:
    """A game of the engine: a Game of `meeple.load` or a game string; else TypeError (the
    reference's games have no C++ to batch or search with)."""
    if isinstance(value, str):
        return load(value)
    if not hasattr(value, "_mcts"):  # every engine Game has the C++ entry points
        raise TypeError(f"{who} needs a game of the engine (meeple.load(...) or a game name), got "
                        f"{type(value).__module__}.{type(value).__name__}")
    return value


def state_of(game: Any, state: Any, which: str = "") -> None:
    """`state` must be an engine state of `game` (same parameters); `which` ("states[3]") begins
    the message."""
    prefix = f"{which}: " if which else ""
    # The engine's state class is its game class's sibling (HarmoniesGame, HarmoniesState): an
    # object that merely has a `game` (a VectorGame, a bot) is no state.
    if type(state) is not getattr(_core, type(game).__name__.removesuffix("Game") + "State"):
        raise TypeError(f"{prefix}expected an engine state of {game.name}, got {type(state).__module__}."
                        f"{type(state).__name__}")
    its_game = state.game
    if its_game is not game and its_game != game:  # the same object: no parameter dicts to compare
        raise ValueError(f"{prefix}the state is of {its_game!r}, not of {game!r}")
