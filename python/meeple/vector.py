"""Batched stepping: many states of one game held and stepped in C++.

>>> import meeple, numpy as np
>>> vec = meeple.VectorGame("abacuachego", 4, seed=1)
>>> vec.observations.shape, vec.masks.shape
((4, 22), (4, 20))
>>> rewards, terminated = vec.step(vec.random_actions())
>>> rewards.shape, terminated.dtype
((4, 2), dtype('bool'))
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, SupportsIndex

import numpy as np

from . import _arguments
from .serialization import Record

if TYPE_CHECKING:
    from ._protocol import Game, State

__all__ = ["VectorGame"]


class VectorGame:
    """`n` states of `game` stepped together in C++ with the GIL released, split over `threads`
    (a batch of fewer than 256 states is stepped on the calling thread).

    `step(actions)` takes one action per state (integer numpy array of length n) and applies them
    all; an illegal action raises ValueError naming the state index, and then no state has
    changed. Results are written into preallocated numpy arrays, returned as views (no copies):

    - ``observations`` (n, *observation_shape) float32, from the view of each state's player to move
    - ``masks`` (n, num_distinct_actions) uint8, 1 for the legal actions (``masks="packed"``: bits)
    - ``rewards`` (n, num_players) float32, the returns of games that ended in this step, else 0
    - ``terminated`` (n,) bool, whether the slot's game ended in this step
    - ``current_player`` (n,) int32

    Reset mode "same-step autoreset": a game that ends is replaced at once by a new one, so after a
    step where ``terminated[i]`` is True, ``rewards[i]`` belongs to the finished game while
    ``observations[i]``, ``masks[i]`` and ``current_player[i]`` already describe the new game;
    ``final_state(i)`` is the game that ended, as it ended. ``new_game(slots)`` cuts games short
    (time limits, with ``elapsed_steps()``): those slots start their next games without a step.
    Slot i's k-th game is seeded from (seed, i, k) (``game_seed(i)``), `seed` an int in
    0..2**64-1 (None only in `reset`, where it means the seed the vector has): results do not
    depend on `threads`. Explicit chance nodes are resolved inside the step, so every state is a
    decision node.
    ``observations=False`` skips computing observations (they stay 0): for rollouts and search,
    which need only masks and rewards, on games whose observations are large. ``masks=False``
    skips writing the masks (they stay 0): for random rollouts through ``random_actions``, which
    need neither; every step is still checked against the legal actions. ``masks="packed"``
    writes them as bits, 8 actions a byte: ``masks`` is then (n, ceil(num_distinct_actions / 8))
    uint8 as ``np.packbits(..., axis=1, bitorder="little")`` packs it (bit a % 8 of byte a // 8),
    an eighth of the memory to write and to move (to a GPU, say);
    ``np.unpackbits(vec.masks, axis=1, count=num_distinct_actions, bitorder="little")`` gives the
    byte masks back.
    The arrays are overwritten by the next `step`/`reset`: copy what you keep (one made read-only
    makes `step`, `reset`, `set_state` and `new_game` raise ValueError, changing nothing).
    A VectorGame cannot be copied or pickled (its states live in C++): make a new one and put
    states into it with `set_state`.
    One VectorGame serves one thread at a time: while it steps or resets, calls from another
    thread (`step`, `reset`, `random_actions`, `state`, `final_state`, `game_seed`,
    `elapsed_steps`, `set_state`, `new_game`) raise RuntimeError.
    """

    def __init__(self, game: Game | str, n: int, seed: int = 0, threads: int = 1, observations: bool = True,
                 masks: bool | str = True):
        engine = _arguments.engine_game(game, "VectorGame")
        n = _arguments.int_in_range("n", n, 1, _arguments.MAX_INT32)
        threads = _arguments.threads(threads)
        seed = _arguments.seed(seed)
        self._game: Game = engine
        self._seed = seed
        if not isinstance(observations, bool):
            raise ValueError(f"observations must be True or False, got {observations!r}")
        if not (isinstance(masks, bool) or (isinstance(masks, str) and masks == "packed")):
            raise ValueError(f"masks must be True, False or 'packed', got {masks!r}")
        self._vector = engine._vector(  # type: ignore[attr-defined]  # each engine Game has it
            n, seed, threads, observations, masks is not False, masks == "packed", engine.observation_shape())
        self._options = {"observations": observations, "masks": masks}
        # The arrays the engine writes, fetched once (reading them is then a plain attribute read).
        # The very arrays, not views: the engine checks their writeable flags.
        self._observations: np.ndarray = self._vector.observations
        self._masks: np.ndarray = self._vector.masks
        self._rewards: np.ndarray = self._vector.rewards
        self._terminated: np.ndarray = self._vector.terminated
        self._current_player: np.ndarray = self._vector.current_player

    # Read-only attributes: the engine writes these very arrays, and reads its states with this game.
    @property
    def game(self) -> Game:
        return self._game

    @property
    def observations(self) -> np.ndarray:
        return self._observations

    @property
    def masks(self) -> np.ndarray:
        return self._masks

    @property
    def rewards(self) -> np.ndarray:
        return self._rewards

    @property
    def terminated(self) -> np.ndarray:
        return self._terminated

    @property
    def current_player(self) -> np.ndarray:
        return self._current_player

    def __copy__(self):
        raise TypeError("a VectorGame cannot be copied: make a new one (states go in with set_state)")

    def __deepcopy__(self, memo):
        raise TypeError("a VectorGame cannot be copied: make a new one (states go in with set_state)")

    def __reduce__(self):
        raise TypeError("a VectorGame cannot be pickled: its states live in C++ (pickle vec.state(i) instead)")

    def __len__(self) -> int:
        return self._vector.size()

    @property
    def threads(self) -> int:
        return self._vector.threads

    @property
    def options(self) -> dict:
        """The constructor's output options, as a new dict: ``{"observations": True or False,
        "masks": True, "packed" or False}``."""
        return dict(self._options)

    @property
    def seed(self) -> int:
        """The seed the slots' games come from: the constructor's, or that of the last reset(seed)."""
        return self._seed

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Starts every slot's game again, as a new VectorGame with `seed` would; returns the
        observations. `seed` None: the vector's `seed` (the constructor's, or the last one given
        to reset), so the same games as after that start."""
        seed = None if seed is None else _arguments.seed(seed)
        self._vector.reset(seed)
        if seed is not None:
            self._seed = seed
        return self.observations

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Applies one action per state; returns (rewards, terminated) views."""
        self._vector.step(np.asarray(actions))
        return self._rewards, self._terminated

    def random_actions(self) -> np.ndarray:
        """One uniformly random legal action per state, drawn in C++ by each slot's generator during
        the last step (or reset), as a new int32 array at every call (yours to change)."""
        return self._vector.random_actions()

    def state(self, i: SupportsIndex) -> State:
        """A copy of slot i's state, as a normal state object (i may be negative, from the end)."""
        return self._vector.state(i)

    def final_state(self, i: SupportsIndex) -> State | None:
        """A copy of the last position of the last game slot i finished, or None if it has finished
        none since the vector was made or reset.

        A step that ends a game starts the slot's next game at once, so ``state(i)`` is already
        the new game; this is the one that ended: after a step with ``terminated[i]`` True, its
        final observation is ``final_state(i).observation_tensor(p)``, its length
        ``final_state(i).move_number()``, and game-specific scores (Harmonies'
        ``score_breakdown``, Imperial Harvest's ``vp``) are there too. It stays until the slot
        finishes another game (``set_state`` leaves it).
        """
        return self._vector.final_state(i)

    def new_game(self, slots: SupportsIndex | Sequence[SupportsIndex] | np.ndarray) -> None:
        """Ends the games of `slots` where they stand, unscored, and starts each slot's next game
        as a step that ends a game does (the slot's next seed): for cutting games short, such as a
        time limit on episodes. Read what you keep of the cut game first (``state(i)``,
        ``observations[i]``): ``observations``, ``masks``, ``current_player`` and the random actions
        describe the new games at once, while ``rewards``, ``terminated`` and ``final_state`` stay
        as the last step left them (a cut game is not a finished one).

        `slots` is a slot number (negative from the end), a 1-d sequence or array of them (a slot
        listed twice starts one game), or a bool array of length n marking them (the ``truncated``
        array of a gymnasium-style loop, say). Bad input raises TypeError, IndexError or
        ValueError, and then no slot has changed. Leave out the slots whose game the last step
        ended (``terminated[i]``): they are in a new game already, which this would throw away
        unplayed. ``vec.new_game(vec.elapsed_steps() >= limit)`` leaves them out by itself (a new
        game has had no step).
        """
        self._vector.new_games(self._slot_list(slots))

    def _slot_list(self, slots: SupportsIndex | Sequence[SupportsIndex] | np.ndarray) -> list:
        """`slots` (see new_game) as a list of slot numbers, unchecked for range (the engine
        checks every one, naming it, before it changes anything)."""
        kinds = f"a slot number, a 1-d sequence of them or a bool array of length {len(self)}"
        if isinstance(slots, (bool, np.bool_)) or (isinstance(slots, np.ndarray) and slots.dtype == np.bool_
                                                   and slots.ndim == 0):
            raise TypeError(f"slots must be {kinds}, not a bool ({slots!r})")
        if isinstance(slots, np.ndarray):
            if slots.dtype == np.bool_:
                if slots.shape != (len(self),):
                    raise ValueError(f"a bool array of slots must have shape ({len(self)},), got {slots.shape}")
                return np.flatnonzero(slots).tolist()
            if slots.dtype.kind not in "iu" and slots.size:
                raise TypeError(f"slots must be {kinds}, got an array of dtype {slots.dtype}")
            if slots.ndim > 1:
                raise TypeError(f"slots must be {kinds}, got an array of shape {slots.shape}")
            return slots.reshape(-1).tolist()  # a 0-d array is one slot number
        if isinstance(slots, Sequence) and not isinstance(slots, (str, bytes)):
            flags = [isinstance(x, (bool, np.bool_)) for x in slots]
            if flags and all(flags):  # a list of bools is a mask, as the bool array it makes
                return self._slot_list(np.asarray(slots, dtype=bool))
            numbers = []
            for k, x in enumerate(slots):
                if flags[k] or not isinstance(x, SupportsIndex):
                    raise TypeError(f"slots must be {kinds}; item {k} is {type(x).__name__} {x!r}")
                numbers.append(operator.index(x))  # any size: the engine names one out of range
            return numbers
        if isinstance(slots, SupportsIndex):  # a runtime-checkable protocol: has __index__
            return [operator.index(slots)]
        raise TypeError(f"slots must be {kinds}, got {type(slots).__name__}")

    def game_seed(self, i: SupportsIndex) -> int | None:
        """The seed of slot i's game: ``game.new_initial_state(seed=vec.game_seed(i))`` is its
        first position, and with implicit chance (the default) the actions you gave the slot since
        replay it (a `Record` of it: ``Record(game.name, game.parameters(), seed, actions)``).
        With explicit chance the slot also draws the chance outcomes, which are not among your
        actions: `record` puts them in. None for a game that `set_state` put in (until the slot
        starts its next game).
        Read it when the slot's game starts (after the constructor or `reset`, after a step with
        ``terminated[i]``, after `new_game`): once a step ends the game, it is the next game's.
        """
        return self._vector.game_seed(i)

    def record(self, seed: int, actions: Sequence[SupportsIndex]) -> Record:
        """The `Record` of a slot's game: `seed` its `game_seed(i)`, `actions` what you gave the slot
        since that game started, in order. With explicit chance the chance outcomes the slot drew
        are put in their places (they come from the slot's own generator, replayed here exactly),
        so ``record.replay()`` rebuilds the game; with implicit chance the actions are the record's
        as given. ``record.returns`` is the game's returns once it is over, else None. An action
        that is not legal where it comes raises ValueError naming its index.

        >>> import meeple
        >>> vec = meeple.VectorGame("harmonies(chance=explicit)", 2, seed=5, observations=False)
        >>> seed, given = vec.game_seed(0), []
        >>> for _ in range(30):
        ...     actions = vec.random_actions()
        ...     given.append(int(actions[0]))
        ...     _ = vec.step(actions)
        >>> vec.record(seed, given).replay() == vec.state(0)
        True
        """
        seed = _arguments.seed(seed)
        checked = [_arguments.int_in_range(f"actions[{k}]", a, 0, 2**31 - 1) for k, a in enumerate(actions)]
        every, returns = self.game._vector_replay(seed, checked)  # type: ignore[attr-defined]  # engine Games have it
        return Record(self.game.name, self.game.parameters(), seed=seed, actions=every, returns=returns)

    def elapsed_steps(self) -> np.ndarray:
        """How many steps each slot's game has had, as a new int64 array of length n: 0 for a game
        that has just started (after the constructor, `reset`, `new_game`, or a step that ended the
        slot's previous game), and counted from 0 again for a game `set_state` put in. One per
        step: chance outcomes the slot resolves inside a step are not counted (a finished game's
        ``final_state(i).move_number()`` counts them). For time limits:
        ``vec.new_game(vec.elapsed_steps() >= limit)``.
        """
        return self._vector.elapsed_steps()

    def set_state(self, i: SupportsIndex, state: State) -> None:
        """Puts a copy of `state` (a state of this game whose game is not over) into slot i: for
        rollouts or self-play from positions of your own, e.g. the leaves of a search tree.

        The slot continues from it as if its game had reached it: an explicit chance node is
        resolved by the slot's generator, and ``observations[i]``, ``masks[i]``,
        ``current_player[i]`` and the slot's random action describe it at once. ``rewards[i]`` and
        ``terminated[i]`` keep what the last step wrote; when this game ends, the slot starts its
        next new game as usual. A state of another game raises TypeError; one of other parameters,
        or a finished game, raises ValueError; either changes nothing. With implicit chance the
        slot draws from the state's own generator: ``reseed`` a copy first for rollouts with
        futures of their own.
        """
        _arguments.state_of(self.game, state)
        self._vector.set_state(i, state)

    def __repr__(self) -> str:
        settings = "".join(f", {name}={value!r}" for name, value in self._options.items() if value is not True)
        return f"VectorGame({self.game!r}, n={len(self)}, seed={self.seed}, threads={self.threads}{settings})"
