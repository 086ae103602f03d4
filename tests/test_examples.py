"""The scripts in examples/ run, find what they claim, and plug into the command line as bots."""
from __future__ import annotations

import random
import re

import pytest

import meeple

from example_scripts import EXAMPLES
from example_scripts import example as _example
from example_scripts import run as _run


def test_alpha_beta_beats_random():
    out = _run(str(EXAMPLES / "alpha_beta.py"), "--depth", "3", "--games", "4", "--mcts", "50")
    scores = dict(re.findall(r"vs (\S+): ([+-]\d+) over 4 games", out))
    assert set(scores) == {"random", "mcts:50"}, out
    assert int(scores["random"]) >= 2, out


@pytest.mark.parametrize("game", ["abacuachego", "harmonies(players=3,chance=explicit)", "imperial_harvest"])
def test_flat_monte_carlo_runs_on_every_game(game):
    out = _run(str(EXAMPLES / "flat_monte_carlo.py"), game, "--rollouts", "8", "--games", "2")
    assert re.search(rf"vs random in {re.escape(game)}: mean return [+-]\d\.\d\d over 2 games", out), out


@pytest.mark.parametrize("game", ["abacuachego", "harmonies", "harmonies(players=3,chance=explicit)",
                                  "imperial_harvest"])
def test_python_uct_runs_on_every_game(game):
    out = _run(str(EXAMPLES / "python_uct.py"), game, "--simulations", "20", "--games", "2")
    assert re.search(rf"vs random in {re.escape(game)}: mean return [+-]\d\.\d\d over 2 games", out), out


def test_python_uct_counts_visits_and_values_finished_games_exactly():
    """Every simulation passes the root once; a move that wins at once is worth +1 at each of its
    visits (its leaf is a finished game, valued by its returns, no rollout)."""
    python_uct = _example("python_uct")
    found = 0
    for seed, state, player, wins in _positions_with_a_winning_move():
        tree = python_uct.search(state, 100, seed=seed)
        assert tree.visits == 100 and sum(child.visits for child in tree.children.values()) == 100
        assert set(tree.children) == {int(a) for a in state.legal_actions()}
        for action in wins:
            won = tree.children[action]
            assert won.visits > 0
            assert won.totals == [won.visits if p == player else -won.visits for p in (0, 1)]
        found += 1
    assert found == 3


def test_python_uct_beats_random():
    out = _run(str(EXAMPLES / "python_uct.py"), "abacuachego", "--simulations", "200", "--games", "4")
    assert "mean return +1.00 over 4 games" in out, out


def test_python_uct_does_not_know_the_draws_to_come():
    """Each simulation reseeds its copy of the root: the tree depends on the position and the
    search's seed, not on the root's own generator (Harmonies' implicit chance)."""
    python_uct = _example("python_uct")
    trees = []
    for world in _one_position_two_futures():
        tree = python_uct.search(world, 60, seed=3)
        trees.append({a: (child.visits, child.totals) for a, child in tree.children.items()})
    assert trees[0] == trees[1]


def test_negamax_agrees_with_plain_minimax():
    alpha_beta = _example("alpha_beta")
    game = meeple.load("abacuachego", pits_per_row=4, seeds_per_pit=3)

    def minimax(state, depth, player):
        if state.is_terminal() or depth == 0:
            return alpha_beta.store_difference(state, player)
        values = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(int(action))
            values.append(minimax(child, depth - 1, player))
        return max(values) if state.current_player() == player else min(values)

    for seed in range(20):
        state = game.new_initial_state(seed=seed)
        for action in random.Random(seed).choices(range(8), k=seed % 6):
            legal = state.legal_actions()
            if state.is_terminal():
                break
            state.apply_action(int(legal[action % len(legal)]))
        if not state.is_terminal():
            assert alpha_beta.negamax(state, 4, -1e9, 1e9) == minimax(state, 4, state.current_player())


def test_flat_monte_carlo_rollouts_do_not_know_the_draws_to_come():
    """Harmonies' draws come from the state's generator; rollouts reseed their copies, so the
    values depend on the position and the seed, not on that generator."""
    flat_monte_carlo = _example("flat_monte_carlo")
    values = [flat_monte_carlo.rollout_values(world, 8, seed=3) for world in _one_position_two_futures()]
    assert values[0] == values[1]


def test_flat_monte_carlo_values_see_an_immediate_win():
    """From positions with a winning move, that move's rollouts all return +1 (the game is over)."""
    flat_monte_carlo = _example("flat_monte_carlo")
    found = 0
    for seed, state, _, wins in _positions_with_a_winning_move():
        values = flat_monte_carlo.rollout_values(state, 4, seed=seed)
        assert all(values[a] == 1.0 for a in wins) and max(values.values()) == 1.0
        found += 1
    assert found == 3


def _positions_with_a_winning_move(count=3):
    """(seed, state, player to move, the actions that win at once) for the first position with
    such a move in each of the random Abacuachego games of seeds 0.., `count` of them."""
    game = meeple.load("abacuachego")
    found = 0
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            player = state.current_player()
            wins = [int(a) for a in state.legal_actions()
                    if state.child(int(a)).is_terminal() and state.child(int(a)).returns()[player] == 1]
            if wins:
                yield seed, state, player, wins
                found += 1
                break
            state.apply_action(int(rng.choice(list(state.legal_actions()))))
        if found == count:
            return


def _one_position_two_futures():
    """A Harmonies position near the first turn's end (which draws a refill), twice, with two
    generators: the same position, other draws to come."""
    state = meeple.load("harmonies").new_initial_state(seed=2)
    while state.move_number() < 4:
        state.apply_action(int(state.legal_actions()[0]))
    worlds = [state.clone(), state.clone()]
    for generator, world in enumerate(worlds, 1):
        world.reseed(generator)
    return worlds


@pytest.mark.parametrize("bot", ["examples.alpha_beta:AlphaBeta", "examples.flat_monte_carlo:FlatMonteCarlo",
                                 "examples.python_uct:PythonUCT"])
def test_examples_plug_into_selfplay(bot):
    out = _run("-m", "meeple", "selfplay", "abacuachego", "--games", "2", "--bots", f"{bot},random")
    assert re.search(rf"seat 0 \[{re.escape(bot)}\]: \d wins", out), out


def test_policy_from_search_learns_to_beat_random():
    out = _run(str(EXAMPLES / "policy_from_search.py"), "abacuachego")
    rows = dict(re.findall(r"^\s*(.+?)\s+\d\.\d{3}\s+\d+%\s+([+-]\d\.\d\d)$", out, re.MULTILINE))
    assert set(rows) == {"uniform (plays 1st legal)", "a preference per action", "learned (linear)"}, out
    assert float(rows["learned (linear)"]) > 0.5 > float(rows["uniform (plays 1st legal)"]), out


def test_policy_from_search_fits_the_visit_shares():
    """On the training positions, the fitted policy's cross entropy to the searches is below the
    uniform policy's and the per-action baseline's, and a policy that ignores the position has
    W = 0."""
    example = _example("policy_from_search")
    game = meeple.load("abacuachego")
    data = example.self_play_examples(game, 30, 100, seed=2)
    assert data["policies"].shape == (len(data["actions"]), game.num_distinct_actions())
    weights, bias = example.fit_policy(data)
    flat_weights, flat_bias = example.fit_policy(data, use_observations=False)
    assert not flat_weights.any()
    uniform = example.cross_entropy(data, 0 * weights, 0 * bias)
    assert example.cross_entropy(data, weights, bias) < example.cross_entropy(data, flat_weights, flat_bias) < uniform


def test_vector_reinforce_learns_to_beat_random():
    """Trained by REINFORCE, the greedy policy wins far more often than before training (when it
    plays the first legal action) and than the random bot does in its seats. Over seeds 0-29 the
    trained policy won 0.88-0.94 of 1000 games, untrained 0.21-0.29, random 0.44-0.51."""
    example = _example("vector_reinforce")
    game = meeple.load("abacuachego")
    for seed in (0, 7):
        policy = example.untrained_policy(game, seed)
        before = example.win_rate(game, policy, 1000, seed=seed + 1)
        reference = example.win_rate(game, None, 1000, seed=seed + 1)
        trained = example.train(game, seed=seed, policy=policy).policy
        after = example.win_rate(game, trained, 1000, seed=seed + 1)
        assert after > 0.8 and after > before + 0.5 and after > reference + 0.3, (seed, before, reference, after)


def test_vector_reinforce_drops_games_cut_by_the_time_limit():
    """Games cut at max_plies are neither learnt from nor recorded: with a limit no game can reach
    the end by, nothing is learnt; with one that cuts some, exactly the finished games are recorded,
    each replays to its slot's final state, and the moves learnt are the learner's moves in them."""
    example = _example("vector_reinforce")
    game = meeple.load("abacuachego")
    # In 3 plies no row can be emptied and no store can reach 51 grains: every game is cut.
    untrained = example.untrained_policy(game, seed=1)
    nothing = example.train(game, n=32, steps=30, seed=1, max_plies=3, policy=untrained)
    assert (nothing.scored, nothing.cut, nothing.moves_learnt, nothing.records) == (0, 32 * 10, 0, [])
    assert not nothing.policy.weights.any() and not nothing.policy.bias.any()

    done = example.train(game, n=32, steps=400, seed=1, max_plies=60, keep_records=10**6)
    assert done.cut > 20 and done.scored > 20 and len(done.records) == done.scored
    learner_moves = 0
    for record in done.records:
        assert len(record.actions) <= 60 and record.returns is not None
        seat = record.meta["slot"] % game.num_players()
        states = list(record.states())
        assert states[-1].is_terminal() and list(states[-1].returns()) == record.returns
        learner_moves += sum(state.current_player() == seat for state in states[:-1])
    assert learner_moves == done.moves_learnt
    assert done.total_length == sum(len(record.actions) for record in done.records)
    last = {record.meta["slot"]: record for record in done.records}  # each slot's last finished game
    assert len(last) > 10
    for slot, record in last.items():
        assert record.replay() == done.vec.final_state(slot)


def test_vector_reinforce_runs_from_the_command_line(tmp_path):
    records = tmp_path / "games.jsonl"
    out = _run(str(EXAMPLES / "vector_reinforce.py"), "--n", "64", "--steps", "300", "--evaluate", "200",
               "--max-plies", "80", "--records", str(records))
    assert re.search(r"win rate vs random over 200 games, greedy policy: \d\.\d{3} before training -> \d\.\d{3} after",
                     out), out
    assert re.search(r"learnt from \d+ games .*, \d+ cut at 80 plies", out), out
    lines = records.read_text().splitlines()
    assert len(lines) == 8, out
    for line in lines:
        record = meeple.Record.from_json(line)
        assert record.replay().is_terminal() and len(record.actions) <= 80
