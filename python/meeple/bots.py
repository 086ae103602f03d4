"""Bots — players for meeple games — and helpers that play whole games with them.

A bot is any object with a ``step(state) -> int`` method returning an action for the player to
move; it is never asked at a chance node. Two optional hooks, with no-op defaults in `BaseBot`:

- ``restart()``: called before every game the bot plays;
- ``inform_action(state, player, action)``: called with the state *before* ``action`` is applied,
  for every action the bot did not choose itself: the other players' actions and chance outcomes
  (``player == meeple.CHANCE``).

Bots must not modify the state they are given: search on ``state.clone()``.

>>> import meeple
>>> from meeple.bots import Random, play_game
>>> game = meeple.load("abacuachego")
>>> record = play_game(game, [Random(seed=1), Random(seed=2)], seed=0)
>>> record.replay().returns().tolist() == record.returns
True

Plugging in your own bot
------------------------
Write a class in an importable module (on ``sys.path``, e.g. through ``PYTHONPATH``)::

    # mypkg/mybots.py
    from meeple.bots import BaseBot

    class FirstMove(BaseBot):
        def __init__(self, game, seed=None):
            self.game = game

        def step(self, state):
            return int(state.legal_actions()[0])

and name it by its import path wherever a bot spec is accepted::

    meeple play abacuachego --bot mypkg.mybots:FirstMove
    meeple selfplay abacuachego --games 100 --bots mypkg.mybots:FirstMove,random

`make_bot` calls the class (or any factory function) as ``FirstMove(game, seed=seed)`` if its
signature accepts that, else ``FirstMove(game)`` (for a parameter named ``game`` and none named
``seed``), else ``FirstMove(seed=seed)``, else ``FirstMove()``.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import multiprocessing
import multiprocessing.connection
import random
import re
import signal
import sys
import time
from collections import deque
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, overload, runtime_checkable

import numpy as np

from . import _arguments
from ._protocol import State
from ._registry import load
from .serialization import Record

__all__ = ["Bot", "BaseBot", "BotError", "Random", "MCTS", "SearchResult", "BUILTIN_BOTS", "make_bot",
           "parse_bot_specs", "derive_seed", "sample_chance", "choose_action", "restart_bots", "inform_bots",
           "play_game", "Match", "play_games", "WorkerDied"]


class BotError(ValueError):
    """A bot failed in a game: it raised, or chose what is not a legal action. The message names
    the bot, its seat and the move (and, from `Match`, the game and the bot's spec); the bot's own
    exception is the `__cause__`. `seat`, `move` and `detail` hold the parts."""

    def __init__(self, message: str, seat: int = -1, move: int = -1, detail: str = ""):
        super().__init__(message)
        self.seat, self.move, self.detail = seat, move, detail

    def __reduce__(self) -> tuple:  # crosses process boundaries (selfplay --workers) whole
        return (BotError, (str(self), self.seat, self.move, self.detail))


# What a bot (user code) may raise that is its failure, not the program's: SystemExit too (a bot
# calling sys.exit() would otherwise end `meeple selfplay` or `play` without a word). Ctrl-C
# (KeyboardInterrupt) stays the user's.
BOT_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)


@runtime_checkable
class Bot(Protocol):
    """What `play_game` needs from a player: an action for the player to move."""

    def step(self, state: Any) -> int: ...


class BaseBot:
    """Base class for bots: `step` to write, `restart` and `inform_action` do nothing by default."""

    def step(self, state: Any) -> int:
        raise NotImplementedError

    def restart(self) -> None:
        """Called before each game."""

    def inform_action(self, state: Any, player: int, action: int) -> None:
        """Called before another player's `action` (or a chance outcome) is applied to `state`.
        After `restart()` in the middle of a game (`meeple play`'s undo replays it), every action
        from the start comes this way, the bot's own included."""


class Random(BaseBot):
    """Chooses uniformly among the legal actions, with its own generator seeded by `seed` (an int
    in 0..2**64-1; None: a fresh seed from the system, a different game every time)."""

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(_arguments.optional_seed(seed))

    def step(self, state: Any) -> int:
        legal = state.legal_actions()
        if len(legal) == 0:
            raise ValueError("the game is over: there is no action to choose")
        return int(legal[self._rng.randrange(len(legal))])

    def __repr__(self) -> str:
        return "Random()"


# --- bot specs -------------------------------------------------------------------------------

# A built-in bot: (argument after "name:" or None, game, seed) -> bot.
BotFactory = Callable[[str | None, Any, int | None], Bot]


def _random_bot(argument: str | None, game: Any, seed: int | None) -> Bot:
    if argument is not None:
        raise ValueError(f"bot 'random' takes no argument, got 'random:{argument}'")
    return Random(seed)


class MCTS(BaseBot):
    """UCT with random rollouts, in C++ (the GIL is released while it searches).

    `simulations` per thread; `threads` > 1 grows independent trees (root parallelism) and sums
    their root visit counts. Chance drawn from the state's own generator is handled by
    determinisation (each simulation reseeds a copy of the root), explicit chance nodes by
    sampling. `c` is the UCT exploration constant, a finite number >= 0 (0: no exploration bonus).
    `seed` is an int in 0..2**64-1 (None: a fresh seed from the system); deterministic for a given
    seed.

    `step` returns the most visited root action. After it, `last_visits` maps each root action to
    its visit count (summed over threads), and `last_policy()` gives the visit shares over all
    action ids: the usual policy target when training a network from search (AlphaZero style).
    `last_values` maps each visited root action to its mean return for the player who chose it
    (its Q, in the game's units of `returns()`, over all threads' visits), and `last_value()` is
    the root's mean over all simulations: value targets, or a check of how sure the search is.

    `evaluator` (a function, e.g. around a network) makes the search PUCT, AlphaZero style:
    ``evaluator(state)`` is called once for the root (unless reuse_tree kept it, with its
    priors) and then once a simulation, at the new leaf
    it reaches if that is a decision node, with a copy of the state, of the bot's `game` (with
    implicit chance a determinisation of it, which may differ from the real future; when no
    child of a node is legal in a simulation's determinisation, the state there is evaluated
    instead and only its values are used). It returns ``(priors, values)``: ``priors`` an array of
    ``num_distinct_actions()`` real numbers >= 0 (only the legal actions' count; they are
    renormalised over them, uniform if all are 0) and ``values`` an array of ``num_players()``
    finite real numbers, each player's expected return (in the units of ``returns()``, between
    ``game.min_utility()`` and ``game.max_utility()``; beyond ±1e100 a ValueError), which
    replace the random rollout. A child is then chosen by
    ``Q + c * prior * sqrt(N) / (1 + n)`` (Q: its mean return for the player choosing, 0 before
    its first visit; N, n: the visits of the node and of the child). Such a search runs on the
    calling thread with the GIL held (``threads`` must be 1); an exception in the evaluator, or
    a result of the wrong form (TypeError or ValueError naming it), stops the search and is
    raised by `step`.

    ``batch=B`` (an int >= 1, with an evaluator) calls the evaluator with a list of up to B
    states at once, for a network that evaluates batches: it returns ``(priors, values)`` as
    arrays of shapes (len(states), num_distinct_actions()) and (len(states), num_players()). B
    simulations descend before each call, each leaving a virtual loss (a visit that lost) on its
    path until its leaf is valued, which spreads them over the tree; one that reaches a leaf
    another is waiting for shares that leaf's value. ``batch=1`` searches as ``batch=None`` does
    (the evaluator then takes a list of one state).

    ``dirichlet_alpha=A`` (with an evaluator; a finite number > 0) mixes Dirichlet(A) noise into
    the root's priors, AlphaZero's exploration in self-play: each search draws noise over the
    root's legal actions, and ``(1 - f) * prior + f * noise`` replaces each prior, f being
    ``dirichlet_fraction`` (0..1, default 0.25). AlphaZero used A = 0.3 for chess, 0.03 for Go:
    about 10 / (a typical number of legal actions). It is drawn from the search's seed, so a
    seeded bot stays deterministic. After a guided `step`, `last_priors` maps each root action to
    the prior the search used (the noise mixed in).

    `search_many(states)` searches many roots at once (self-play of many games): with an
    evaluator, the trees advance in lockstep and each evaluator call gets the leaves of all of
    them, so a network sees batches of up to ``len(states) * batch`` states (batch None: one state
    per call, as in `step`). Each root is searched exactly as `step` would search it, one after
    another: it returns a `SearchResult` per state.

    ``reuse_tree=True`` keeps the search tree (each thread's) from one `step` to the next: when
    the next position is one the tree reached (after the bot's move and the others' replies, or
    the same position searched again), its subtree's statistics are kept and `simulations` more
    are added to them, so `last_visits`, `last_values` and `last_value()` count both;
    `last_reused` gives the visits kept (0 when the search started over). The tree is searched
    for the position `move_number()` actions below its root (a transposition: the most visited
    of the nodes that reach it). Kept only when that is exact: not across a draw of implicit
    chance (the statistics there mix outcomes other than the one drawn; explicit chance outcomes
    are nodes of their own and are kept through), and only if the node's children are the
    position's legal actions. Changing `evaluator` (a new network) drops the trees. With
    `dirichlet_alpha` (self-play), the kept visits were gathered while the new root was an inner
    node, without its noise: the visit shares lean on them, which makes policy targets less
    exploratory (examples/alphazero_lite.py searches afresh for that reason). `search_many`
    keeps a tree for each place in its list apart from `step`'s: ``states[i]`` goes on from the
    tree of the previous call's ``states[i]`` (self-play of many games, each game in its place,
    None where one is over; a new game there starts over by itself). `restart()` (called before
    each game of `play_game`) drops them all. A bot that keeps its trees searches one list of
    positions at a time (a second search meanwhile, from another thread or from its evaluator,
    raises ValueError).

    >>> import meeple
    >>> game = meeple.load("abacuachego")
    >>> bot = MCTS(game, simulations=200, seed=1)
    >>> state = game.new_initial_state()
    >>> action = bot.step(state)
    >>> action in state.legal_actions()
    True
    >>> policy = bot.last_policy()
    >>> policy.shape == (game.num_distinct_actions(),) and int(policy.argmax()) == action
    True
    >>> bool((policy[state.legal_actions_mask() == 0] == 0).all())
    True
    """

    def __init__(self, game: Any, simulations: int = 1000, threads: int = 1, seed: int | None = None,
                 c: float = 1.4, evaluator: Callable[[Any], tuple[Any, Any]] | None = None,
                 batch: int | None = None, dirichlet_alpha: float | None = None,
                 dirichlet_fraction: float | None = None, reuse_tree: bool = False):
        self.game = _arguments.engine_game(game, "MCTS")
        self.simulations = _arguments.int_in_range("simulations", simulations, 1, _arguments.MAX_INT32)
        self.threads = _arguments.threads(threads)
        self.c = _arguments.finite_number("c", c, 0.0)
        if evaluator is not None and not callable(evaluator):
            raise TypeError(f"evaluator must be callable (state -> (priors, values)), got {type(evaluator).__name__}")
        if evaluator is not None and self.threads != 1:
            raise ValueError("an evaluator searches on one thread (it holds the GIL): threads must be 1, "
                             f"got {threads}")
        if batch is not None and evaluator is None:
            raise ValueError("batch is the number of states handed to an evaluator at once: give evaluator= too")
        self.batch = None if batch is None else _arguments.int_in_range("batch", batch, 1, 2**20)
        if dirichlet_alpha is not None and evaluator is None:
            raise ValueError("dirichlet_alpha is noise on an evaluator's root priors: give evaluator= too")
        self.dirichlet_alpha = None if dirichlet_alpha is None else _arguments.finite_number(
            "dirichlet_alpha", dirichlet_alpha, 0.0, above=True)
        if dirichlet_fraction is not None and dirichlet_alpha is None:
            raise ValueError("dirichlet_fraction is the share of dirichlet_alpha's noise: give dirichlet_alpha too")
        self.dirichlet_fraction = _arguments.finite_number(
            "dirichlet_fraction", 0.25 if dirichlet_fraction is None else dirichlet_fraction, 0.0, high=1.0)
        if not isinstance(reuse_tree, (bool, np.bool_)):
            raise TypeError(f"reuse_tree must be True or False, got {reuse_tree!r}")
        self.reuse_tree = bool(reuse_tree)
        self.evaluator = evaluator
        self._rng = random.Random(_arguments.optional_seed(seed))
        self._new_trees()
        self.last_reused = 0
        self.last_visits: dict[int, int] = {}
        self.last_values: dict[int, float] = {}
        self.last_priors: dict[int, float] = {}

    def _new_trees(self) -> None:
        """Empty trees to keep for `step` and for `search_many` (reuse_tree), grown with `evaluator`."""
        new = self.game._mcts_trees if self.reuse_tree else lambda: None  # type: ignore[attr-defined]
        self._kept, self._kept_many, self._trees_evaluator = new(), new(), self.evaluator

    def _check_trees(self) -> None:
        """The kept trees dropped if `evaluator` was changed since they grew (a new network):
        their priors and values are the old one's."""
        if self._kept is not None and self.evaluator is not self._trees_evaluator:
            self.restart()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied without its kept trees (a copy starts its own)."""
        return {key: value for key, value in vars(self).items() if key not in ("_kept", "_kept_many")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self._new_trees()

    def step(self, state: Any) -> int:
        """The most visited root action; the state must be a decision node of this game."""
        _arguments.state_of(self.game, state)
        self._check_trees()
        search = self.game._mcts  # type: ignore[attr-defined]  # each engine Game has it
        action, visits, values, priors = search(state, self.simulations, self.threads, self._rng.getrandbits(64),
                                                self.c, self.evaluator, self.batch, **self._noise(), kept=self._kept)
        self.last_visits, self.last_values, self.last_priors = visits, values, priors
        self.last_reused = 0 if self._kept is None else self._kept.reused[0]
        return int(action)

    def restart(self) -> None:
        """A new game: the kept trees (reuse_tree=True) are dropped (ValueError, nothing dropped,
        while the bot is searching: from its evaluator or another thread)."""
        if self._kept is None or self._kept_many is None:
            return
        if self._kept.searching or self._kept_many.searching:
            raise ValueError("restart() while this MCTS bot is searching: call it after the search")
        self._kept.clear()
        self._kept_many.clear()
        self._trees_evaluator = self.evaluator

    @overload
    def search_many(self, states: Sequence[State]) -> list[SearchResult]:  # type: ignore[overload-overlap]
        ...

    @overload
    def search_many(self, states: Sequence[State | None]) -> list[SearchResult | None]:
        ...

    def search_many(self, states: Sequence[Any]) -> list[Any]:
        """A `SearchResult` for each of `states` (decision nodes of this game), each searched as
        `step` would search it, in order (the same seeds: `search_many([a, b])` gives what
        `step(a)` then `step(b)` would, the trees they keep with reuse_tree apart); with an
        evaluator the searches share its calls (see the class). `last_visits` and the other
        `last_` attributes are left as they were. A place may hold None instead of a state (a
        game over, in a self-play that keeps each game in its place for reuse_tree): its result is
        None, and with reuse_tree its tree is dropped."""
        if isinstance(states, (str, bytes)) or not isinstance(states, Sequence):
            raise TypeError(f"states must be a sequence of states, got {type(states).__name__}")
        for k, state in enumerate(states):
            if state is not None:
                _arguments.state_of(self.game, state, f"states[{k}]")
        self._check_trees()
        seeds = [self._rng.getrandbits(64) for state in states if state is not None]
        found = self.game._mcts_many(  # type: ignore[attr-defined]  # each engine Game has it
            list(states), self.simulations, self.threads, seeds, self.c, self.evaluator, self.batch, **self._noise(),
            kept=self._kept_many)
        actions = self.game.num_distinct_actions()
        reused = [0] * len(found) if self._kept_many is None else self._kept_many.reused

        def result(searched: tuple | None, kept: int) -> SearchResult | None:
            if searched is None:
                return None
            action, visits, values, priors = searched
            return SearchResult(int(action), visits, values, priors, actions, kept)
        return [result(searched, kept) for searched, kept in zip(found, reused)]

    def _noise(self) -> dict[str, float]:
        if self.dirichlet_alpha is None:
            return {}
        return {"dirichlet_alpha": self.dirichlet_alpha, "dirichlet_fraction": self.dirichlet_fraction}

    def last_policy(self, temperature: float = 1.0) -> np.ndarray:
        """The root visit counts of the last `step` as shares (float32, one per action id of the
        game, summing to 1; 0 for actions not visited, illegal ones included). With a
        `temperature` T the shares go as visits ** (1 / T) (AlphaZero's move choice in
        self-play): T < 1 sharpens them, T = 0 puts all on the action `step` returned."""
        if not self.last_visits:
            raise ValueError("no search yet: call step(state) first")
        return visit_shares(self.last_visits, self.game.num_distinct_actions(), temperature)

    def last_value(self) -> float:
        """The mean return, for the player to move at the root, of the last `step`'s simulations
        (every root action's mean weighted by its visits; with reuse_tree, the kept visits too)."""
        if not self.last_visits:
            raise ValueError("no search yet: call step(state) first")
        return _mean_value(self.last_visits, self.last_values)

    def __repr__(self) -> str:
        name = getattr(self.evaluator, "__name__", self.evaluator)
        guided = "" if self.evaluator is None else f", evaluator={name!s}"
        guided += "" if self.batch is None else f", batch={self.batch}"
        if self.dirichlet_alpha is not None:
            guided += f", dirichlet_alpha={self.dirichlet_alpha}, dirichlet_fraction={self.dirichlet_fraction}"
        guided += ", reuse_tree=True" if self.reuse_tree else ""
        return f"MCTS(simulations={self.simulations}, threads={self.threads}, c={self.c}{guided})"


@dataclass(frozen=True)
class SearchResult:
    """One root's search (`MCTS.search_many`): the most visited action, and by root action its
    visits, its mean return for the root's mover (visited actions only) and, with an evaluator,
    the prior the search used; as `MCTS.step` leaves them in `last_visits`, `last_values` and
    `last_priors`. `reused`: the visits kept from the previous search (reuse_tree=True), as
    `last_reused`."""
    __hash__ = None  # type: ignore[assignment]  # it holds dicts

    action: int
    visits: dict[int, int]
    values: dict[int, float]
    priors: dict[int, float]
    num_actions: int  # the game's num_distinct_actions(): the length of policy()
    reused: int = 0

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """The visit shares over all action ids (float32, summing to 1), with `temperature` as in
        `MCTS.last_policy` (0: all on `action`)."""
        return visit_shares(self.visits, self.num_actions, temperature)

    def value(self) -> float:
        """The mean return of the simulations for the root's mover, as `MCTS.last_value`."""
        return _mean_value(self.visits, self.values)


def _mean_value(visits: Mapping[int, int], values: Mapping[int, float]) -> float:
    """The root's mean return: each visited action's mean weighted by its visits."""
    return sum(values[a] * visits[a] for a in values) / sum(visits[a] for a in values)


def visit_shares(visits: Mapping[int, int], num_actions: int, temperature: float = 1.0) -> np.ndarray:
    """Visit counts {action: visits} (not all 0) as shares over action ids 0..num_actions-1
    (float32, summing to 1; 0 for actions not listed), in proportion to visits ** (1 / temperature);
    temperature 0: all on the most visited action (the lowest id of those tied, as MCTS chooses)."""
    temperature = _arguments.finite_number("temperature", temperature, 0.0)
    shares = np.zeros(num_actions, dtype=np.float64)
    shares[list(visits)] = list(visits.values())
    if temperature == 0:
        best = int(np.argmax(shares))  # the first of the most visited
        shares[:] = 0
        shares[best] = 1
    elif temperature != 1:
        shares = (shares / np.max(shares)) ** (1 / temperature)  # scaled first: no overflow for a small T
    return (shares / shares.sum()).astype(np.float32)


# mcts:ITERATIONS:c=C:threads=T:evaluator=module.path:function:batch=B
def _flag(text: str) -> bool:
    """A yes/no option of a bot spec: 1/0, true/false, yes/no (any case)."""
    answer = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}.get(text.lower())
    if answer is None:
        raise ValueError(text)
    return answer


_MCTS_OPTIONS: dict[str, Callable[[str], Any]] = {
    "c": float, "threads": int, "evaluator": lambda path: _import_attribute(path, "evaluator"), "batch": int,
    "dirichlet_alpha": float, "dirichlet_fraction": float, "reuse_tree": _flag}
_MCTS_FORMS = ("c=C, threads=T, evaluator=module.path:function, batch=B, dirichlet_alpha=A, "
               "dirichlet_fraction=F and reuse_tree=1")


def _mcts_bot(argument: str | None, game: Any, seed: int | None) -> Bot:
    if argument is None:
        return MCTS(game, seed=seed)
    count, *parts = (part.strip() for part in argument.split(":"))
    options: list[str] = []
    for part in parts:  # evaluator=module:function holds a colon of its own: join its two parts
        previous = options[-1] if options else ""
        if "=" not in part and previous.partition("=")[0].strip() == "evaluator" and ":" not in previous:
            options[-1] += ":" + part
        else:
            options.append(part)
    try:
        simulations = int(count)
    except ValueError:
        raise ValueError(f"bot 'mcts' takes a number of simulations, e.g. 'mcts:1000' or "
                         f"'mcts:1000:c=2:threads=2', got 'mcts:{argument}'") from None
    given: dict[str, Any] = {}
    for option in options:
        key, equals, value = (part.strip() for part in option.partition("="))
        if not equals or key not in _MCTS_OPTIONS:
            raise ValueError(f"bot 'mcts' options are {_MCTS_FORMS} (e.g. 'mcts:1000:c=2:threads=2'), "
                             f"got {option!r} in 'mcts:{argument}'")
        if key in given:
            raise ValueError(f"bot 'mcts' option {key} given twice in 'mcts:{argument}'")
        try:
            given[key] = _MCTS_OPTIONS[key](value)
        except ValueError as e:
            kinds: dict[Any, str] = {float: "a number", int: "an int", _flag: "1 or 0 (true or false)"}
            kind = kinds.get(_MCTS_OPTIONS[key])  # None: the evaluator's import failed
            raise ValueError(f"bot 'mcts' option {key} must be {kind}, got {value!r} in 'mcts:{argument}'"
                             if kind else f"bot 'mcts' option {key}: {e}") from None
    return MCTS(game, simulations=simulations, seed=seed, **given)


# name -> (spec form, factory); adding a built-in bot is one entry.
BUILTIN_BOTS: dict[str, tuple[str, BotFactory]] = {
    "random": ("random", _random_bot),
    "mcts": ("mcts:ITERATIONS[:c=C][:threads=T][:reuse_tree=1][:evaluator=module.path:function[:batch=B]"
             "[:dirichlet_alpha=A[:dirichlet_fraction=F]]]", _mcts_bot),
}

_IMPORT_SPEC = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def make_bot(spec: str, game: Any, seed: int | None = None) -> Bot:
    """The bot named by `spec`: ``random``, ``mcts`` (1000 simulations a move), ``mcts:ITERATIONS``
    (options ``:c=C`` for the exploration constant, ``:threads=T``, and
    ``:evaluator=module.path:function``, an evaluator imported by name, which makes the search
    PUCT, with ``:batch=B`` for one that takes lists of
    states and ``:dirichlet_alpha=A[:dirichlet_fraction=F]`` for root noise; ``:reuse_tree=1``
    keeps the tree from move to move (see MCTS); e.g. ``mcts:1000:c=2:threads=2``) or
    ``module.path:ClassName``.

    Raises ValueError (with the accepted forms) for an unknown or malformed spec.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a bot spec must be a str such as 'random' or 'mcts:1000', got {type(spec).__name__}")
    text = spec.strip()
    name, colon, argument = text.partition(":")
    if name in BUILTIN_BOTS:
        _, factory = BUILTIN_BOTS[name]
        return factory(argument if colon else None, game, seed)
    if _IMPORT_SPEC.match(text):
        return _import_bot(text, game, seed)
    forms = [form for form, _ in BUILTIN_BOTS.values()] + ["module.path:ClassName"]
    raise ValueError(f"unknown bot {spec!r}; expected one of: {', '.join(forms)}")


def _import_attribute(spec: str, what: str) -> Any:
    """The callable that `spec` ("module.path:name.attribute") names, imported; ValueError naming
    `what` ("bot 'x:Y'") otherwise."""
    if not _IMPORT_SPEC.match(spec):
        raise ValueError(f"{what} must be given as module.path:name, got {spec!r}")
    module_name, _, attribute = spec.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as e:  # the user's module: any failure to import it is a bad spec
        raise ValueError(f"cannot import module {module_name!r} for {what} {spec!r}: "
                         f"{type(e).__name__}: {e}") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"{what} {spec!r}: {module_name!r} has no attribute {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(f"{what} {spec!r}: {attribute!r} is not a class or function")
    return found


def _import_bot(spec: str, game: Any, seed: int | None) -> Bot:
    factory = _import_attribute(spec, "bot")
    bot = _instantiate(spec, factory, game, seed)
    if not callable(getattr(bot, "step", None)):
        raise ValueError(f"bot {spec!r} made a {type(bot).__name__}, which has no step(state) method")
    return bot


def _instantiate(spec: str, factory: Callable[..., Any], game: Any, seed: int | None) -> Any:
    """Calls `factory(game, seed=seed)`, `factory(game)`, `factory(seed=seed)` or `factory()`: the
    first it accepts. `factory(game)` only for a factory whose parameter `game` takes it and that
    has no parameter `seed`: the game must not land in another setting (`depth=2`), nor a seed
    the factory takes (positionally only) be dropped."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature (some built-ins): assume no arguments
        signature = None
    for args, kwargs in (((game,), {"seed": seed}), ((game,), {}), ((), {"seed": seed}), ((), {})):
        if signature is not None:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                continue
            if not kwargs and args and (list(bound.arguments) != ["game"] or "seed" in signature.parameters):
                continue
        elif args or kwargs:
            continue
        try:
            return factory(*args, **kwargs)
        except BOT_FAILURES as e:  # the user's code: any failure to build the bot is a bad spec
            raise ValueError(f"bot {spec!r} could not be made: {type(e).__name__}: {e}") from e
    raise ValueError(f"bot {spec!r} cannot be called as (game, seed=...), (game), (seed=...) or ()")


def parse_bot_specs(text: str, count: int) -> list[str]:
    """Splits a comma-separated list of bot specs; a single spec is repeated `count` times. Spaces
    around a spec or its colon are dropped ("mcts: 10" is "mcts:10", as records name it)."""
    specs = [":".join(part.strip() for part in s.split(":")) for s in text.split(",")]
    if any(not s for s in specs):
        raise ValueError(f"empty bot spec in {text!r}")
    if len(specs) == 1:
        return specs * count
    if len(specs) != count:
        expected = "1 bot spec" if count == 1 else f"1 bot spec (for every seat) or {count} (one per seat)"
        raise ValueError(f"expected {expected}, got {len(specs)} in {text!r}")
    return specs


# --- playing games ---------------------------------------------------------------------------

def derive_seed(seed: int, *keys: int) -> int:
    """A seed in 0..2**64-1 derived from `seed` and `keys` (independent streams per key)."""
    return int(np.random.SeedSequence(seed, spawn_key=keys).generate_state(1, np.uint64)[0])


def sample_chance(state: Any, rng: random.Random) -> int:
    """An outcome of the chance node `state`, drawn with the probabilities of `chance_outcomes()`."""
    if not state.is_chance_node():
        raise ValueError("the state is not a chance node: there is no outcome to draw")
    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choices(outcomes, weights=probabilities)[0])


def choose_action(bot: Bot, state: Any) -> int:
    """`bot.step(state)` on a copy of `state` (a bot cannot change the game), checked: ValueError
    naming the bot if it is not a legal action."""
    choice = bot.step(state.clone())
    if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)):
        what = f"returned {choice!r}, not an action number"
        raise BotError(f"bot {bot!r} {what}", detail=what)
    action = int(choice)
    if action not in state.legal_actions():
        legal = ", ".join(state.action_to_string(int(a)) for a in state.legal_actions())
        what = f"chose illegal action {action}; legal: {legal}"
        raise BotError(f"bot {bot!r} {what}", detail=what)
    return action


def restart_bots(bots: Iterable[Bot]) -> None:
    """Calls each bot's optional `restart()` hook."""
    for bot in bots:
        if hasattr(bot, "restart"):
            bot.restart()


def inform_bots(bots: Mapping[int, Bot], state: Any, action: int, mover_too: bool = False) -> None:
    """Calls the optional `inform_action` hook of every bot ({seat: bot}) but the mover's (with
    `mover_too`, the mover's as well: a replay after `restart`), before `action` is applied to
    `state`; each gets a copy of `state`."""
    player = state.current_player()
    for seat, bot in bots.items():
        if (mover_too or seat != player) and hasattr(bot, "inform_action"):
            bot.inform_action(state.clone(), player, action)


def bot_failure(bot: Any, seat: int, move: int, error: BaseException) -> BotError:
    """The BotError for `error` raised by `bot` (seat `seat`) at move number `move`."""
    if isinstance(error, BotError) and error.detail:
        detail = error.detail
    else:
        detail = str(error) if type(error) is ValueError else f"{type(error).__name__}: {error}"
    return BotError(f"bot {bot!r} (seat {seat}) failed at move {move}: {detail}", seat, move, detail)


def check_recordable(game: Any) -> None:
    """ValueError for a game whose records would not replay: `Record.replay` replays with the
    engine, and the reference's implicit chance draws other outcomes than the engine's from one
    seed (docs/serialization.md). With explicit chance the record holds the outcomes and replays."""
    if type(game).__module__.startswith("meeple.reference") and game.parameters().get("chance") == "implicit":
        raise ValueError(f"records of the reference's {game.name} with implicit chance would not replay: "
                         f"its generator draws other outcomes from a seed than the engine's, which "
                         f"Record.replay uses; load it with chance='explicit' (the record then holds the "
                         f"outcomes) or play the engine's game")


def play_game(game: Any, bots: Sequence[Bot], seed: int = 0, meta: dict[str, Any] | None = None,
              policies: bool = False) -> Record:
    """Plays one game from `new_initial_state(seed)`, `bots[p]` playing seat p.

    Explicit chance nodes are sampled from `chance_outcomes()` with a generator seeded by `seed`
    (implicit chance is drawn by the state itself). Returns the `Record`, returns filled in.

    A game of the reference with implicit chance raises ValueError (see `check_recordable`).

    With `policies`, ``meta["policies"]`` holds one entry per action: the mover's search as
    ``[[action, visits], ...]`` in action order, for a bot that exposes ``last_visits`` after its
    step (as `MCTS` does), else None (other bots, chance outcomes). `training_examples` in
    `meeple.selfplay` turns such records into arrays.
    """
    seed = _arguments.seed(seed)  # None would draw explicit chance from the system's entropy
    if isinstance(game, str):
        game = load(game)
    check_recordable(game)
    if len(bots) != game.num_players():
        raise ValueError(f"{game.name} needs {game.num_players()} bots, got {len(bots)}")
    for seat, bot in enumerate(bots):
        if not callable(getattr(bot, "step", None)):
            raise TypeError(f"bot {bot!r} (seat {seat}) has no step(state) method")
    for seat, bot in enumerate(bots):
        try:
            restart_bots([bot])
        except BOT_FAILURES as e:
            raise bot_failure(bot, seat, 0, e) from e
    seats = dict(enumerate(bots))
    state = game.new_initial_state(seed=seed)
    chance_rng = random.Random(seed)
    record = Record(game.name, game.parameters(), seed=seed, meta=dict(meta or {}))
    searches: list[list[list[int]] | None] = []
    while not state.is_terminal():
        player = state.current_player()
        search = None
        if state.is_chance_node():
            action = sample_chance(state, chance_rng)
        else:
            try:
                action = choose_action(bots[player], state)
                if policies:
                    search = search_of(bots[player], state)
            except BOT_FAILURES as e:
                raise bot_failure(bots[player], player, state.move_number(), e) from e
        if policies:
            searches.append(search)
        for seat, bot in seats.items():
            try:
                inform_bots({seat: bot}, state, action)
            except BOT_FAILURES as e:
                raise bot_failure(bot, seat, state.move_number(), e) from e
        state.apply_action(action)
        record.actions.append(action)
    record.returns = [float(r) for r in state.returns()]
    if policies:
        record.meta["policies"] = searches
    return record


def search_of(bot: Any, state: Any) -> list[list[int]] | None:
    """The search `bot` exposes as ``last_visits`` after its step: ``[[action, visits], ...]`` in
    action order, or None when it has none. TypeError or ValueError unless it maps legal actions of
    `state` to visit counts >= 0 (a stale or malformed one would poison training data silently)."""
    visits = getattr(bot, "last_visits", None)
    if visits is None:
        return None
    if not isinstance(visits, Mapping):
        raise ValueError(f"last_visits must map actions to visit counts, got {type(visits).__name__}")
    if not visits:
        return None
    legal = set(state.legal_actions().tolist())
    search = []
    for a, n in visits.items():
        action = _arguments.int_in_range("a last_visits action", a, 0, _arguments.MAX_INT32)
        count = _arguments.int_in_range(f"last_visits[{action}]", n, 0, 2**63 - 1)
        if action not in legal:
            raise ValueError(f"last_visits names action {action}, not legal here (a stale search?); "
                             f"legal actions: {sorted(legal)}")
        search.append([action, count])
    return sorted(search)


@dataclass(frozen=True)
class Match:
    """A series of games between bot specs: game i is seeded `derive_seed(seed, i)` and seat p's
    bot `derive_seed(game_seed, p)`, so game i is the same whichever process plays it, in any order.

    `bots[b]` plays seat b in every game, or with ``rotate_seats`` seat (b + i) mod players in game i
    (two bots swap seats every game), so that each bot plays every seat equally often and a
    first-player advantage does not decide the comparison. A record's ``meta["bots"]`` lists the
    specs by seat of that game. With ``policies``, records hold the bots' searches
    (``meta["policies"]``, see `play_game`).
    """

    game: Any
    bots: tuple[str, ...]
    seed: int = 0
    rotate_seats: bool = False
    policies: bool = False

    def game_seed(self, index: int) -> int:
        return derive_seed(self.seed, index)

    def seat_of_bot(self, index: int) -> list[int]:
        """Game `index`'s seat of each bot, in the order of `bots`."""
        players = len(self.bots)
        shift = index % players if self.rotate_seats else 0
        return [(b + shift) % players for b in range(players)]

    def seat_specs(self, index: int) -> list[str]:
        """Game `index`'s bot spec of each seat."""
        specs = [""] * len(self.bots)
        for bot, seat in enumerate(self.seat_of_bot(index)):
            specs[seat] = self.bots[bot]
        return specs

    def __post_init__(self) -> None:
        if isinstance(self.game, str):
            object.__setattr__(self, "game", load(self.game))
        if not hasattr(self.game, "new_initial_state"):
            raise TypeError(f"Match needs a game (meeple.load(...) or a game name), got {type(self.game).__name__}")
        if isinstance(self.bots, str) or not all(isinstance(spec, str) for spec in self.bots):
            raise TypeError(f"Match's bots are a sequence of bot specs such as ('mcts:1000', 'random'), got "
                            f"{self.bots!r}")
        object.__setattr__(self, "bots", tuple(self.bots))
        check_recordable(self.game)
        if len(self.bots) != self.game.num_players():
            raise ValueError(f"{self.game.name} needs {self.game.num_players()} bot specs, got {len(self.bots)}")
        object.__setattr__(self, "seed", _arguments.seed(self.seed))

    def play(self, index: int) -> Record:
        """Game `index` (0, 1, 2, ...): its bots made from the specs, then `play_game`; a bot
        that fails raises BotError naming the game too."""
        index = _arguments.int_in_range("game index", index, 0, 2**63 - 1)
        seed = self.game_seed(index)
        specs = self.seat_specs(index)
        bots = [make_bot(spec, self.game, derive_seed(seed, seat)) for seat, spec in enumerate(specs)]
        meta: dict[str, Any] = {"bots": specs, "index": index}
        if self.rotate_seats:
            meta["rotate_seats"] = True
        try:
            return play_game(self.game, bots, seed, meta=meta, policies=self.policies)
        except BotError as e:
            raise BotError(f"game {index}: bot {specs[e.seat]!r} (seat {e.seat}) failed at move {e.move}: "
                           f"{e.detail}", e.seat, e.move, e.detail) from e.__cause__


class WorkerDied(RuntimeError):
    """A worker process ended while playing games `first` .. `last` (it was killed, or a bot ended
    it: os._exit, SystemExit, KeyboardInterrupt). The games before `first` were yielded (written)."""

    def __init__(self, first: int, last: int, reason: str = ""):
        super().__init__(f"a worker process died while playing games {first}..{last}"
                         + (f" ({reason})" if reason else ""))
        self.first, self.last, self.reason = first, last, reason


# An `if` line testing __name__ against "__main__", either way round (not a mention in a comment).
_GUARD = re.compile(r"""^[ \t]*if[ \t(]+(__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__)""",
                    re.MULTILINE)


def main_guard_hint(start_method: str | None) -> str:
    """Why a pool's workers may all die before returning anything: with the "spawn" and
    "forkserver" start methods each worker imports the main script first, and a script that plays
    games at import time (no ``if __name__ == "__main__":``) makes every worker start a pool of its
    own, which multiprocessing refuses in the worker. Only the worker's stderr says so; this hint
    goes into the parent's WorkerDied. Empty where it cannot be the cause (fork, no main script)."""
    if start_method == "fork":
        return ""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    spec = getattr(main, "__spec__", None)
    package_main = spec is not None and spec.name.rpartition(".")[2] == "__main__"
    if path is None or package_main or getattr(sys, "frozen", False):
        return ""  # python -c, the REPL, a package's __main__ (not imported again), a frozen app (freeze_support)
    try:
        with open(path, encoding="utf-8", errors="replace") as script:
            source = script.read()
    except OSError:
        return ""  # <stdin>, a file gone: a guard would not help (the workers cannot import it either)
    if _GUARD.search(source):
        return ""  # it has the guard (the `meeple` command's script too): a worker died otherwise
    return (f"no worker returned a game; if {path} plays games when it is imported, put that code under "
            f'`if __name__ == "__main__":` (worker processes are started with the "{start_method}" method '
            "and import the main script first)")


def play_games(match: Match, indices: Iterable[int], workers: int = 1) -> Iterator[Record]:
    """The records of `match`'s games `indices`, in that order; `workers > 1` plays them in a
    pool of processes (one per worker, fresh bots for every game, about 4 games per worker queued
    ahead); `WorkerDied` if one of those processes ends (killed, or a bot ended it)."""
    workers = _arguments.int_in_range("workers", workers, 1, _arguments.MAX_INT32)  # now, not at the first game
    return _played(match, indices, workers)


def _played(match: Match, indices: Iterable[int], workers: int) -> Iterator[Record]:
    if workers == 1:
        yield from map(match.play, indices)
        return
    returned_any = False

    def died(first: int, last: int, error: BaseException) -> WorkerDied:
        return WorkerDied(first, last, "" if returned_any else main_guard_hint(multiprocessing.get_start_method()))

    # The results closed before the pool: a run stopped early cancels its queued games (the games
    # being played are finished first). A broken pool is stopped at once.
    with ProcessPoolExecutor(workers, initializer=_ignore_interrupts) as executor:
        try:
            with contextlib.closing(results_in_order(executor, match.play, indices, 4 * workers, died,
                                                     check=dead_worker_check(executor))) as results:
                for _, record in results:
                    returned_any = True
                    yield record
        except WorkerDied:
            stop_pool(executor)
            raise


CHECK_EVERY = 0.5  # seconds between results_in_order's check() calls while it waits
WORKER_GRACE = 2.0  # seconds a dead worker may go unnoticed by its pool before dead_worker_check says so


def dead_worker_check(executor: ProcessPoolExecutor) -> Callable[[], None]:
    """A `check` for results_in_order: BrokenProcessPool once a worker of `executor` has been dead
    for WORKER_GRACE seconds. A worker that ended while it was sending a result leaves the pool's
    manager thread waiting for the rest of the message for ever, and the pool is never found
    broken (the manager sees other deaths at once)."""
    dead_since: dict[Any, float] = {}  # by sentinel

    def check() -> None:
        with contextlib.suppress(ValueError, OSError):  # a process closed meanwhile
            sentinels = [p.sentinel for p in list((executor._processes or {}).values())]
            now = time.monotonic()
            for sentinel in multiprocessing.connection.wait(sentinels, 0):
                if now - dead_since.setdefault(sentinel, now) >= WORKER_GRACE:
                    raise BrokenProcessPool("a worker process ended while sending results")

    return check


def stop_pool(executor: ProcessPoolExecutor) -> None:
    """Stops `executor` at once: its queued calls cancelled, its workers' calls stopped (the
    workers terminated); then ``executor.shutdown(wait=True)`` returns at once."""
    # Taken before shutdown(), which lets go of them.
    processes = list((executor._processes or {}).values())
    manager: Any = getattr(executor, "_executor_manager_thread", None)  # a Thread (typeshed says otherwise)
    results_pipe: Any = getattr(executor, "_result_queue", None)
    tasks_left: dict[int, Any] = getattr(executor, "_pending_work_items", {})
    # Shut down first: the pool's manager thread then drops the cancelled tasks before it
    # sees the workers die. Otherwise it fails every queued task as broken, and before
    # Python 3.12 it cannot fail a cancelled one: it printed an InvalidStateError traceback
    # (CPython gh-107219). A manager that is reading a result does not see the shutdown:
    # its cancelled tasks get futures of their own to fail (at worst one is started, on a
    # worker about to be stopped).
    executor.shutdown(wait=False, cancel_futures=True)
    for task in list(tasks_left.values()):  # one C call: the manager cannot change it meanwhile
        if task.future.cancelled():
            task.future = Future()
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()
    # A worker stopped while it was sending a result leaves the manager thread waiting for
    # the rest of that message for ever: this process holds a write end of the pipe too.
    # Closing it, the workers being gone, ends that read (the pool then reads as broken).
    with contextlib.suppress(Exception):
        results_pipe._writer.close()
    if manager is not None:
        manager.join()


def results_in_order(executor: Executor, call: Callable[[Any], Any], items: Iterable[Any], ahead: int,
                     died: Callable[[Any, Any, BaseException], Exception],
                     fatal: tuple[type[BaseException], ...] = (BrokenProcessPool,),
                     check: Callable[[], None] | None = None) -> Generator[tuple[Any, Any], None, None]:
    """(item, call(item)) for `items` in their order, the calls run by `executor` with at most
    `ahead` of them submitted at a time (items are taken as needed: a huge range is fine). A
    `fatal` error of a call raises died(its item, the last item submitted, the error) instead (a
    dead worker process: BrokenProcessPool); so does one raised by submitting an item (the pool
    broke while an earlier call ran: died(the oldest call waited for, that item, the error)), and
    one raised by `check()`, called every CHECK_EVERY seconds while a call is waited for. Calls
    not yet taken are cancelled on the way out."""
    remaining = iter(items)
    pending: deque[tuple[Any, Future]] = deque()

    def submit() -> None:
        for item in remaining:
            try:
                future = executor.submit(call, item)
            except fatal as error:
                raise died(pending[0][0] if pending else item, item, error) from None
            pending.append((item, future))
            return

    try:
        for _ in range(ahead):
            submit()
        while pending:
            item, future = pending[0]
            try:
                if check is not None:
                    while not wait([future], CHECK_EVERY).done:
                        check()
                result = future.result()
            except fatal as error:
                raise died(item, pending[-1][0], error) from None
            submit()  # before the popleft: a broken pool then names this item first (not yielded)
            pending.popleft()
            yield item, result
    finally:
        for _, future in pending:
            future.cancel()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
