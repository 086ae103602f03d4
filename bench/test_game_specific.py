"""Game-specific hot paths against the pure-Python reference, in one run:

* harmonies_score: scoring one finished board (every BGA final board of the shipped data, in turn):
  the C++ scorer through `game._bench_score` (a loop in C++, no Python call per board) against the
  reference's `score()`; the target is <= 0.5 us per board in C++.
* imperial_harvest_legal: legal-action generation on typical mid-game states (states in the middle
  of seeded random games, a character acting): `game._bench_legal_actions` (a loop in C++) against
  the reference's `legal_actions()`; the target is <= 1 us in C++. Run for the first-game teams and
  for the full roster (drafted teams, interactive setup, random boards).
* imperial_harvest_full_roster_games: whole uniformly random games with drafted teams, interactive
  setup and a random board per game (`board_seed` = game index), all 14 characters in play:
  `meeple.random_playouts` against the reference's Python loop; the target is >= 100x.

Run: `pytest bench/test_game_specific.py --benchmark-only -s` (prints the ratios).
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

import meeple
import meeple.reference

pytestmark = pytest.mark.bench


def _bga_final_states():
    """(final state, its BGA case) for every case: the builder of the engine tests, not a copy."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_harmonies_engine import BGA, bga_state  # noqa: E402

    return [(bga_state(case), case) for case in BGA["cases"]]


def test_harmonies_score(benchmark):
    from meeple.reference import harmonies as reference_harmonies

    finals = _bga_final_states()
    boards = [(player, case["side"]) for _, case in finals for player in case["players"]]

    def engine_round():
        seconds = 0.0
        for state, case in finals:
            for p in range(len(case["players"])):
                seconds += state.game._bench_score(state, p, 20_000)[0]
        return seconds / (20_000 * len(boards))

    engine_seconds = benchmark.pedantic(engine_round, rounds=3, iterations=1)
    start = time.perf_counter()
    repeats = 20
    for _ in range(repeats):
        for player, side in boards:
            reference_harmonies.score(player["board"], side, player["cards"])
    reference_seconds = (time.perf_counter() - start) / (repeats * len(boards))
    benchmark.extra_info.update(engine_ns_per_board=engine_seconds * 1e9,
                                reference_us_per_board=reference_seconds * 1e6,
                                ratio=reference_seconds / engine_seconds)
    print(f"\nharmonies scoring: C++ {engine_seconds * 1e9:.0f} ns/board, reference "
          f"{reference_seconds * 1e6:.1f} us/board, ratio {reference_seconds / engine_seconds:,.0f}x")


FULL_ROSTER = {"teams": "draft", "setup": "interactive", "board": "random", "board_seed": 7}


def _mid_game_states(count, seed=1, params=None):
    game = meeple.load("imperial_harvest", **(params or {}))
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        plies = rng.randrange(30, 90)
        for _ in range(plies):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))
        if not state.is_terminal() and state.to_dict()["phase"] == "act":
            states.append(state)
    return game, states


@pytest.mark.parametrize("roster", ["first_game", "full"])
def test_imperial_harvest_legal_actions(benchmark, roster):
    params = FULL_ROSTER if roster == "full" else {}
    game, states = _mid_game_states(200, params=params)
    reference = meeple.reference.load("imperial_harvest", **params)
    reference_states = [reference.state_from_dict(s.to_dict()) for s in states]

    def engine_round():
        return sum(game._bench_legal_actions(s, 2_000) for s in states) / len(states)

    engine_seconds = benchmark.pedantic(engine_round, rounds=3, iterations=1)
    start = time.perf_counter()
    for s in reference_states:
        s.clone().legal_actions()
    reference_seconds = (time.perf_counter() - start) / len(reference_states)
    benchmark.extra_info.update(engine_ns=engine_seconds * 1e9, reference_us=reference_seconds * 1e6,
                                ratio=reference_seconds / engine_seconds)
    print(f"\nimperial_harvest legal actions ({roster} roster, mid-game, acting): C++ {engine_seconds * 1e9:.0f} ns, "
          f"reference {reference_seconds * 1e6:.1f} us, ratio {reference_seconds / engine_seconds:,.0f}x")


def test_imperial_harvest_full_roster_games(benchmark):
    """Whole random games, a different random board and draft each game, C++ against the reference."""
    seeds = range(40)
    engines = [meeple.load("imperial_harvest", **dict(FULL_ROSTER, board_seed=b)) for b in seeds]
    references = [meeple.reference.load("imperial_harvest", **dict(FULL_ROSTER, board_seed=b)) for b in seeds]

    def engine_round():
        start, games = time.perf_counter(), 0
        for game in engines:
            games += len(meeple.random_playouts(game, 100, seed=1, threads=1).lengths)
        return (time.perf_counter() - start) / games

    engine_seconds = benchmark.pedantic(engine_round, rounds=3, iterations=1)
    start = time.perf_counter()
    for seed, game in enumerate(references):
        state, rng = game.new_initial_state(), random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    reference_seconds = (time.perf_counter() - start) / len(references)
    benchmark.extra_info.update(engine_us_per_game=engine_seconds * 1e6,
                                reference_ms_per_game=reference_seconds * 1e3,
                                ratio=reference_seconds / engine_seconds)
    print(f"\nimperial_harvest full-roster random games: C++ {engine_seconds * 1e6:.1f} us/game, reference "
          f"{reference_seconds * 1e3:.2f} ms/game, ratio {reference_seconds / engine_seconds:,.0f}x")
