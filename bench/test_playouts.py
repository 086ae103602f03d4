"""Plies per second of uniformly random games: meeple (C++, VectorGame and Python loop), the
pure-Python reference, and OpenSpiel's oware and mancala; MCTS simulations per second, meeple's and
OpenSpiel's MCTSBot. Run with `pytest bench` or `python bench/report.py`.

The workloads are the ones `meeple bench` times (`meeple.bench`), so both report the same thing:
* random_playouts     `meeple.random_playouts(game, n, seed, threads)`: whole games in C++;
* python_loop         `meeple.bench.protocol_loop`: `while not s.is_terminal(): legal =
                      s.legal_actions(); s.apply_action(legal[rng.randrange(len(legal))])` with
                      `rng = random.Random(seed)` — the same loop and RNG for meeple, the reference
                      and pyspiel, so they are comparable;
* vector              `meeple.bench.vector_steps`: `vec.step(vec.random_actions())` on a
                      `meeple.VectorGame` of n = 1, 64, 1024 states (observations=False and True),
                      n plies per step;
* vector_paired       the VectorGame target (n = 1024, observations=False, over random_playouts)
                      from rounds of the two alternating: the median of the ratios of neighbouring
                      rounds, which a slow spell of a noisy machine hits on both sides;
* mcts                `meeple.bench.mcts_searches`: `game._mcts(initial state, sims, threads, seed,
                      c)`, simulations counted as the root's visits (sims per thread);
* openspiel bots      `pyspiel.evaluate_bots(state, [make_uniform_random_bot(p, seed) ...], seed)`:
                      whole games in OpenSpiel's C++. It plays on the state it is given, so the plies
                      of each game are counted exactly afterwards with `state.move_number()`;
* openspiel mcts      `meeple.bench.openspiel_mcts`: `pyspiel.MCTSBot(...).step(initial state)`.
Plies are counted exactly in every case (`move_number()` / the `lengths` returned by
random_playouts), per round, in `extra_info["plies"]` (simulations for MCTS, `extra_info["unit"]`
"sims").

MEEPLE_BENCH_GAMES (comma-separated meeple games, default all) and MEEPLE_BENCH_OPENSPIEL ("0": skip
OpenSpiel) select what runs; bench/report.py runs one pytest per game so that a crash in one engine
loses only that game's rows.
"""
from __future__ import annotations

import os

import pytest

import meeple
from meeple import bench as mbench

try:
    from meeple import reference
except ImportError:  # the pure-Python reference is not written yet
    reference = None

pytestmark = pytest.mark.bench

_SELECTED = os.environ.get("MEEPLE_BENCH_GAMES")
GAMES = meeple.list_games() if _SELECTED is None else [g for g in _SELECTED.split(",") if g]
OPENSPIEL_GAMES = [] if os.environ.get("MEEPLE_BENCH_OPENSPIEL") == "0" else sorted(
    {og for g in meeple.list_games() for og in mbench.spec_for(g).openspiel})


def _load(name):
    return meeple.load(name, **mbench.spec_for(name).params)


def _state_size(game):
    return mbench._state_size(game)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", GAMES)
def test_random_playouts(measure_plies, name, threads):
    game = _load(name)
    key = f"{name}/native" + ("" if threads == 1 else f"_{threads}threads")
    label = f"{name}: random_playouts, {threads} thread{'s' * (threads > 1)}"
    measure_plies(key, label, lambda n: mbench.native_playouts(game, n, 0, threads),
                  game=name, kind="meeple", state_size_bytes=_state_size(game))


@pytest.mark.parametrize("name", GAMES)
def test_python_loop(measure_plies, name):
    game = _load(name)
    measure_plies(f"{name}/python_loop", f"{name}: Python protocol loop",
                  lambda n: mbench.protocol_loop(game, n),
                  game=name, kind="meeple", state_size_bytes=_state_size(game))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size", mbench.VECTOR_SIZES)
@pytest.mark.parametrize("observations", [False, True], ids=["noobs", "obs"])
@pytest.mark.parametrize("name", GAMES)
def test_vector_game(measure_plies, name, observations, size, threads):
    game = _load(name)
    vec = meeple.VectorGame(game, size, seed=0, threads=threads, observations=observations)
    measure_plies(f"{name}/{mbench.vector_key(size, threads, observations)}",
                  mbench.vector_label(name, size, threads, observations),
                  lambda n: mbench.vector_steps(vec, n), game=name, kind="meeple")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("masks", mbench.MASK_SETTINGS, ids=["masks", "packedmasks", "nomasks"])
@pytest.mark.parametrize("name", GAMES)
def test_vector_native_paired(benchmark, bench_settings, name, masks, threads):
    """The VectorGame target measured as alternating rounds of random_playouts and VectorGame
    n=1024 (observations=False): the median of the ratios of neighbouring rounds. With
    masks="packed": the masks as bits; masks=False: VectorGame as random rollouts use it (no target
    for either)."""
    target, rounds = bench_settings
    game = _load(name)
    pair, ratios, n_vector = mbench.vector_native_pair(game, threads, target, masks)
    benchmark.pedantic(pair, rounds=rounds, iterations=1)  # calibration has warmed both up
    benchmark.extra_info.update(key=f"{name}/{mbench.paired_key(threads, masks)}",
                                label=mbench.paired_label(name, threads, masks), games=n_vector, game=name,
                                kind="meeple", **mbench.paired_summary(ratios))


@pytest.mark.parametrize("name", GAMES)
def test_interleaved_native_paired(benchmark, bench_settings, name):
    """The ceiling of the VectorGame ratio: 1024 games stepped one ply at a time in turn in C++,
    with no outputs, in rounds alternating with random_playouts."""
    target, rounds = bench_settings
    game = _load(name)
    pair, ratios, n = mbench.interleaved_native_pair(game, target)
    benchmark.pedantic(pair, rounds=rounds, iterations=1)
    benchmark.extra_info.update(key=f"{name}/{mbench.INTERLEAVED_KEY}", label=mbench.interleaved_label(name),
                                games=n, game=name, kind="meeple", **mbench.paired_summary(ratios))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", GAMES)
def test_mcts(measure_plies, name, threads):
    game = _load(name)
    state = game.new_initial_state()
    sims = mbench.spec_for(name).mcts_simulations
    measure_plies(f"{name}/{mbench.mcts_key(threads)}", mbench.mcts_label(name, sims, threads),
                  lambda n: mbench.mcts_searches(game, state, sims, threads, n), game=name, kind="meeple",
                  unit="sims")


@pytest.mark.parametrize("name", GAMES)
def test_reference_loop(measure_plies, name):
    if reference is None:
        pytest.skip("meeple.reference is not importable yet")
    if name not in reference.list_games():
        pytest.skip(f"no pure-Python reference for {name} yet")
    game = reference.load(name, **mbench.spec_for(name).params)
    measure_plies(f"{name}/reference_loop", f"{name}: pure-Python reference loop",
                  lambda n: mbench.protocol_loop(game, n), game=name, kind="reference")


@pytest.mark.parametrize("name", OPENSPIEL_GAMES)
def test_openspiel_python_loop(measure_plies, name):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game(name)
    measure_plies(f"openspiel/{name}/python_loop", f"OpenSpiel {name}: pyspiel Python loop",
                  lambda n: mbench.protocol_loop(game, n), game=name, kind="openspiel")


@pytest.mark.parametrize("name", OPENSPIEL_GAMES)
def test_openspiel_random_bots(measure_plies, name):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game(name)
    measure_plies(f"openspiel/{name}/bots", f"OpenSpiel {name}: C++ random bots (evaluate_bots)",
                  lambda n: mbench.openspiel_bots(game, n), game=name, kind="openspiel")


@pytest.mark.parametrize("name", OPENSPIEL_GAMES)
def test_openspiel_mcts(measure_plies, name):
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game(name)
    measure_plies(f"openspiel/{name}/mcts", mbench.openspiel_mcts_label(name),
                  lambda n: mbench.openspiel_mcts(game, mbench.OPENSPIEL_MCTS_SIMULATIONS, n), game=name,
                  kind="openspiel", unit="sims")
