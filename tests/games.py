"""The table every generic test runs over, and the helpers that play random games.

Adding a game to the generic tests is one entry in `GAMES`: its rule variants (parameter sets) and
a few facts the invariants need (zero-sum, bounds of the returns, pinned perft counts...). A game
that `meeple.list_games()` lists but that has no entry still runs the generic tests with its default
parameters, and `test_protocol.py::test_every_game_has_a_table_entry` fails until the entry exists.

Helpers (they work on engine states and on `meeple.reference` states alike):

- `choose_random(state, rng)`: a uniformly random legal action, or at a chance node an outcome
  drawn with the probabilities of `chance_outcomes()`;
- `play_random(state, rng)`: chooses as above, applies it, returns it;
- `random_game(game, seed)`: generator of the states of one seeded random game;
- `random_actions(game, seed)`: the action sequence of that game;
- `protocol_perft(state, depth)`: perft counted in Python over the protocol (clone/apply);
- `one_ply_root()`: an Abacuachego root whose children all end the game, for exact search tests.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

import meeple


@dataclass(frozen=True)
class Variant:
    """One parameter set of a game."""

    id: str
    params: dict = field(default_factory=dict)
    # perft(new_initial_state(seed=0), d) for d = 1, 2, ... (see test_protocol.py::test_perft_pinned).
    perft: tuple[int, ...] = ()
    # Whether the differential test plays this variant against meeple.reference (a game with
    # implicit chance can only be compared if the reference draws chance exactly like the engine).
    differential: bool = True
    # The slow differential test's games for this variant: seeds first_seed.. (None: the game's
    # differential_games, from seed 0).
    differential_games: int | None = None
    differential_first_seed: int = 0
    # Overrides of the game's zero_sum / returns_bounds for this variant (None: the game's).
    zero_sum: bool | None = None
    returns_bounds: tuple[float, float] | None = None


@dataclass(frozen=True)
class GameEntry:
    name: str
    variants: tuple[Variant, ...]
    zero_sum: bool = True  # returns of a finished game sum to 0
    returns_bounds: tuple[float, float] | None = None  # (low, high) of every return, if known
    protocol_games: int = 200  # seeded random games per variant in each test of test_protocol.py
    perft_check_depth: int = 3  # test_protocol compares game.perft with protocol_perft up to this
    roundtrip_every: int = 1  # test_protocol's json/pickle round trips at every k-th ply
    differential_games: int = 10_000  # seeded random games per variant in test_differential.py (slow)
    differential_smoke_games: int = 300  # other seeds, in the quick (not slow) differential test
    # random_playouts() chooses actions[rng.uniform(len)] in the engine's generation order; if that
    # order is the sorted order of legal_actions(), the Python replay in test_protocol.py applies.
    playouts_replayable: bool = False


# Pinned perft counts, depths 1..5 from new_initial_state(seed=0): a determinism signature.
# Obtained once with `protocol_perft` below (a Python recursion over the protocol: legal_actions,
# clone, apply_action), run both on the engine and on meeple.reference, which agreed with each
# other and with game.perft(). Print them again with:  PYTHONPATH=python python tests/games.py perft
# (a change means the rules or the move generation changed: check before updating a pin).
ABACUACHEGO = GameEntry(
    name="abacuachego",
    variants=(
        Variant("default", {}, perft=(14, 183, 2300, 27887, 329725)),
        Variant("parity_pit", {"parity": "pit"}, perft=(15, 212, 2736, 34284, 411817)),
        Variant("origin_match_pit", {"origin_match": "pit"}, perft=(14, 183, 2310, 28086, 334351)),
        # These two rules rarely decide a random game: from the default's seeds, 28% (match_exact)
        # and 98% (skip_origin_on_lap) of the games are played out as in the default. Their games
        # start after the default's seeds, so that those are new games of the common rules too.
        Variant("match_exact", {"match": "exact"}, perft=(14, 183, 2300, 27887, 329725),
                differential_first_seed=10_000),
        Variant("skip_origin_on_lap", {"skip_origin_on_lap": True},
                perft=(14, 183, 2300, 27887, 329725), differential_first_seed=20_000),
        # Pit-number origin matching with exact grain-count matching: pit numbers still compare by
        # last digit (D5), so the shallow counts are origin_match_pit's.
        Variant("origin_pit_match_exact", {"origin_match": "pit", "match": "exact"},
                perft=(14, 183, 2310, 28086, 334351), differential_first_seed=30_000),
        # Small board: laps (h >= 2n = 8) and captures are frequent, games are short.
        Variant("small", {"pits_per_row": 4, "seeds_per_pit": 3}, perft=(6, 31, 148, 691, 3053)),
        # Rules that rarely decide a random game, where they decide often. On the small board random
        # games make about one lap per four games (on the default board, skipping the origin changes
        # one game in fifty); pit-number origin matching there makes long games, cut at max_plies
        # (point 12). A 40-ply limit ends 86% of games by point 12, most others at win_threshold 40.
        Variant("small_skip_origin_exact", {"pits_per_row": 4, "seeds_per_pit": 3, "skip_origin_on_lap": True,
                                            "match": "exact"}, perft=(6, 31, 148, 691, 3053)),
        Variant("small_origin_pit", {"pits_per_row": 4, "seeds_per_pit": 3, "origin_match": "pit", "parity": "pit",
                                     "max_plies": 150}, perft=(7, 42, 213, 1073, 5262)),
        Variant("short_game", {"max_plies": 40, "win_threshold": 40, "origin_match": "pit", "parity": "pit"},
                perft=(15, 212, 2748, 34525, 417493)),
    ),
    zero_sum=True,
    returns_bounds=(-1.0, 1.0),
    playouts_replayable=True,
)

# Harmonies (1-4 players, chance). Implicit chance draws from the engine's own generator, which the
# reference does not reproduce: only chance="explicit" variants are compared with it (the test
# picks the outcomes). Solo returns are suns (not zero-sum, not in [-1, 1]).
# Differential cost (harness, one core of a fast Intel host): 2 players ~14 ms/game, 2 players
# side B with spirits ~16, solo ~7, 3 players side B ~29, 4 players with spirits ~40 ms/game:
# 2,000 games of each of the 4 differential variants the issue names (2p side A, 2p side B with
# spirits, 4 players, solo) take ~2.6 min CPU there, twice that on slower CI hosts. 3 players
# play 500 games, so that the 3-player turn order and ranking are compared too.
# Perft pins (depths 1..5 from new_initial_state(seed=0)), obtained with protocol_perft on the
# engine and equal to game.perft(): explicit variants start with the token draws of the setup
# (6**d; the reference agrees), implicit ones are a signature of the engine's own chance draws
# (seed 0), which the reference cannot confirm.
HARMONIES = GameEntry(
    name="harmonies",
    variants=(
        Variant("default", {}, differential=False, perft=(10, 372, 18584, 568054, 7617324)),
        Variant("explicit", {"chance": "explicit"}, perft=(6, 36, 216, 1296, 7776)),
        Variant("solo_explicit", {"players": 1, "chance": "explicit"}, zero_sum=False,
                returns_bounds=(3.0, 11.0), perft=(6, 36, 216, 1296, 7776)),
        Variant("2p_side_b_spirits_explicit", {"side": "B", "spirits": True, "chance": "explicit"},
                perft=(6, 36, 216, 1296, 7776)),
        Variant("3p_side_b_explicit", {"players": 3, "side": "B", "chance": "explicit"},
                perft=(6, 36, 216, 1296, 7776), differential_games=500),
        Variant("4p_spirits_explicit", {"players": 4, "spirits": True, "chance": "explicit"},
                perft=(6, 36, 216, 1296, 7776)),
        Variant("4p_side_b_spirits", {"players": 4, "side": "B", "spirits": True},
                differential=False, perft=(2, 20, 800, 43100, 1411600)),
    ),
    zero_sum=True,
    returns_bounds=(-1.0, 1.0),
    protocol_games=20,
    perft_check_depth=2,
    roundtrip_every=6,
    differential_games=2_000,
    differential_smoke_games=8,
    playouts_replayable=True,
)

# Imperial Harvest (2 players, no chance; part 1 of the rules has one parameter, `board`).
# Perft pins: protocol_perft on the engine and on the reference agree (depths 1..5), = game.perft.
# Differential cost ~13 ms/game (one core).
IMPERIAL_HARVEST = GameEntry(
    name="imperial_harvest",
    variants=(
        Variant("default", {}, perft=(3, 12, 86, 618, 5462)),
        # The symmetric board differs from the standard one by one hedge, which random play does not
        # reach: from the same seeds, all 2,000 games of the default variant are played out
        # identically on it. So its games start after the default's seeds: 500 new games.
        Variant("symmetric", {"board": "symmetric"}, perft=(3, 12, 86, 618, 5462),
                differential_games=500, differential_first_seed=2_000),
        # Part 2 (tests/test_imperial_harvest_part2_differential.py compares these rules against the
        # reference over 2,000 games whose parameters vary per seed, so no fixed-variant differential).
        Variant("draft-interactive-random", {"teams": "draft", "setup": "interactive", "board": "random",
                                             "board_seed": 7, "sides": "basic/advanced"},
                perft=(14, 182, 1968, 19512, 154752), differential=False),
        Variant("custom-teams", {"teams": "regent,basilisk,ranger/skin_changer,puppeteer,nymph"},
                perft=(3, 12, 80, 520, 3060), differential=False),
    ),
    zero_sum=True,
    returns_bounds=(-1.0, 1.0),
    protocol_games=40,
    perft_check_depth=2,
    roundtrip_every=3,
    differential_games=2_000,
    differential_smoke_games=20,
    playouts_replayable=True,
)

# Entries of games not (yet) in meeple.list_games() are ignored.
GAMES: dict[str, GameEntry] = {e.name: e for e in (ABACUACHEGO, HARMONIES, IMPERIAL_HARVEST)}


def entry_of(name: str) -> GameEntry:
    """The table entry of `name`, or a default one (default parameters only) if it has none."""
    return GAMES.get(name) or GameEntry(name=name, variants=(Variant("default", {}),))


@dataclass(frozen=True)
class Case:
    """One (game, variant) pair, as the tests receive it."""

    entry: GameEntry
    variant: Variant

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def params(self) -> dict:
        return dict(self.variant.params)

    @property
    def zero_sum(self) -> bool:
        return self.entry.zero_sum if self.variant.zero_sum is None else self.variant.zero_sum

    @property
    def returns_bounds(self) -> tuple[float, float] | None:
        if self.variant.returns_bounds is not None:
            return self.variant.returns_bounds
        return self.entry.returns_bounds if self.variant.zero_sum is None else None

    @property
    def id(self) -> str:
        return f"{self.entry.name}-{self.variant.id}"

    def __repr__(self) -> str:
        return f"Case({self.id})"

    def load(self):
        return meeple.load(self.name, **self.variant.params)

    def load_reference(self):
        import meeple.reference

        return meeple.reference.load(self.name, **self.variant.params)


def cases(names: list[str] | None = None) -> list[Case]:
    """Every (game, variant) of `names` (default: every game of meeple.list_games())."""
    names = meeple.list_games() if names is None else names
    return [Case(entry_of(n), v) for n in names for v in entry_of(n).variants]


# ------------------------------------------------------------------------------------ playing


def choose_random(state, rng: random.Random) -> int:
    """A uniformly random legal action; at a chance node an outcome drawn by its probability."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        u = rng.random()
        for outcome, probability in outcomes:
            if u < probability:
                return int(outcome)
            u -= probability
        return int(outcomes[-1][0])
    legal = state.legal_actions()
    return int(legal[rng.randrange(len(legal))])


def play_random(state, rng: random.Random) -> int:
    """Applies `choose_random(state, rng)` to `state` and returns the action."""
    action = choose_random(state, rng)
    state.apply_action(action)
    return action


def random_game(game, seed: int, max_actions: int | None = None) -> Iterator[Any]:
    """The states of one random game: new_initial_state(seed=seed), then one state per action,
    actions chosen by `play_random` with `random.Random(seed)`.

    Yields the same state object each time, advanced in place after each yield: clone() it to keep it.
    """
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    yield state
    played = 0
    while not state.is_terminal() and (max_actions is None or played < max_actions):
        play_random(state, rng)
        played += 1
        yield state


def random_actions(game, seed: int) -> list[int]:
    """The actions (chance outcomes included) of the game `random_game(game, seed)` plays."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal():
        actions.append(play_random(state, rng))
    return actions


def protocol_perft(state, depth: int) -> int:
    """Number of action sequences of exactly `depth` actions (chance outcomes included) from
    `state`, counted over the protocol; games ending earlier contribute nothing (chess perft)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    if state.is_chance_node():
        moves = [int(o) for o, _ in state.chance_outcomes()]
    else:
        moves = [int(a) for a in state.legal_actions()]
    if depth == 1:
        return len(moves)
    total = 0
    for a in moves:
        child = state.clone()
        child.apply_action(a)
        total += protocol_perft(child, depth - 1)
    return total


if __name__ == "__main__":  # pragma: no cover - regenerates the pinned perft counts
    import sys

    if sys.argv[1:] == ["perft"]:
        for case in cases():
            state = case.load().new_initial_state(seed=0)
            counts = tuple(protocol_perft(state, d) for d in range(1, 6))
            print(f"{case.id}: perft={counts}")


def one_ply_root():
    """A root one ply from the end (max_plies=1: every child a finished game, so a search there
    draws no random number after the root's expansion): (game, state, its legal actions,
    evaluator priors over the action ids, those priors renormalised by action, the return of each
    child to the root's mover)."""
    game = meeple.load("abacuachego", max_plies=1)
    state = game.new_initial_state(seed=0)
    legal = [int(a) for a in state.legal_actions()]
    weights = np.zeros(game.num_distinct_actions())
    weights[legal] = np.sqrt(np.arange(len(legal)) + 2.0)  # distinct priors: no ties to break
    prior = {a: weights[a] / weights[legal].sum() for a in legal}
    outcome = {a: float(state.child(a).returns()[0]) for a in legal}
    return game, state, legal, weights, prior, outcome
