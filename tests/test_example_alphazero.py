"""examples/alphazero_lite.py: its network evaluates batches for MCTS, self-play searches all games
together and records what it learns from, the hand-written gradients are right, the loop learns,
and the command line runs."""
from __future__ import annotations

import re

import numpy as np
import pytest

import meeple
from meeple.bots import MCTS

from example_scripts import EXAMPLES
from example_scripts import example as import_example
from example_scripts import run as _run


@pytest.fixture(scope="module")
def example():
    """The module examples/alphazero_lite.py, imported."""
    return import_example("alphazero_lite")


@pytest.fixture(scope="module")
def game():
    return meeple.load("abacuachego")


def random_heads(example, game, seed: int):
    """A network whose policy and value heads are not 0, so that priors and values differ by position."""
    network = example.untrained_network(game, hidden=16, seed=seed)
    rng = np.random.default_rng(seed)
    network.policy_weights = rng.normal(0, 1, network.policy_weights.shape)
    network.policy_bias = rng.normal(0, 1, network.policy_bias.shape)
    network.value_weights = rng.normal(0, 1, network.value_weights.shape)
    network.value_bias = rng.normal(0, 1, network.value_bias.shape)
    return network


def positions(game, count: int) -> list:
    """`count` positions of random games, not over: early and late ones, either player to move."""
    found = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(seed=seed)
        for _ in range(seed * 7):
            child = state.child(int(rng.choice(state.legal_actions())))
            if child.is_terminal():
                break
            state = child
        found.append(state)
    return found


def test_evaluator_gives_priors_over_legal_actions_and_values_by_seat(example, game):
    network = random_heads(example, game, seed=1)
    states = positions(game, 30)
    movers = np.array([state.current_player() for state in states])
    assert set(movers) == {0, 1}  # both ways of turning the mover's values into the seats' are seen
    priors, values = network.evaluate_batch(states)
    assert priors.shape == (len(states), game.num_distinct_actions())
    assert values.shape == (len(states), game.num_players())
    masks = np.stack([state.legal_actions_mask() for state in states])
    assert (priors[masks == 0] == 0).all() and (priors[masks == 1] > 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1)
    # Entry k of the network's values is the player k seats after the mover's.
    _, _, from_mover = network.forward(np.stack([state.observation_tensor() for state in states]), masks)
    rows = np.arange(len(states))
    np.testing.assert_array_equal(values[rows, movers], from_mover[:, 0])
    np.testing.assert_array_equal(values[rows, 1 - movers], from_mover[:, 1])
    assert len(set(np.round(values[:, 0], 6))) > 20  # the values depend on the position


def test_untrained_network_has_no_opinion(example, game):
    """Uniform priors over the legal actions and values 0: the search it guides knows only the rules."""
    states = positions(game, 10)
    priors, values = example.untrained_network(game, hidden=16, seed=0).evaluate_batch(states)
    masks = np.stack([state.legal_actions_mask() for state in states])
    np.testing.assert_allclose(priors, masks / masks.sum(axis=1, keepdims=True))
    assert not values.any()


def test_self_play_searches_every_game_in_one_batch(example, game, monkeypatch):
    """Every move of the games still going is one `search_many` call, and each evaluator call
    values the leaves of all the trees together: games * batch states, not one."""
    network = random_heads(example, game, seed=2)
    call_sizes: list[int] = []
    evaluate = network.evaluate_batch
    network.evaluate_batch = lambda states: call_sizes.append(len(states)) or evaluate(states)
    roots_per_search: list[int] = []
    search_many = MCTS.search_many
    monkeypatch.setattr(MCTS, "search_many", lambda bot, roots: roots_per_search.append(len(roots)) or
                        search_many(bot, roots))
    games, simulations, batch = 8, 16, 4
    examples, records = example.self_play(game, network, games, simulations, batch, sampled_plies=4,
                                          dirichlet_alpha=1.0, seed=3)
    assert roots_per_search[0] == games and sum(roots_per_search) == len(examples)
    assert max(call_sizes) == games * batch
    # Per search: the roots, then the leaves `batch` at a time (fewer where simulations end the game).
    assert len(call_sizes) <= len(roots_per_search) * (1 + simulations // batch)
    assert sum(call_sizes) > 4 * len(call_sizes)


def test_self_play_records_each_position_from_its_movers_view(example, game):
    """Replaying the records gives back every row: the observation and mask before each move, visit
    shares over the legal actions that include the move played when it was the most visited, and
    the game's returns counted from the mover's seat."""
    network = random_heads(example, game, seed=4)
    examples, records = example.self_play(game, network, games=6, simulations=12, batch=3, sampled_plies=6,
                                          dirichlet_alpha=1.0, seed=5)
    assert len(examples) == sum(len(record.actions) for record in records)
    assert len({record.seed for record in records}) == 6
    row = 0
    for record in records:
        states = list(record.states())
        assert states[-1].is_terminal() and states[-1].returns().tolist() == record.returns
        for state, action in zip(states[:-1], record.actions):
            mover = state.current_player()
            np.testing.assert_array_equal(examples.observations[row], state.observation_tensor())
            np.testing.assert_array_equal(examples.masks[row], state.legal_actions_mask())
            policy = examples.policies[row]
            assert policy[action] > 0 and not policy[state.legal_actions_mask() == 0].any()
            if state.move_number() >= 6:  # past the sampled plies: a most visited move
                assert policy[action] == policy.max()
            assert examples.values[row].tolist() == [record.returns[mover], record.returns[1 - mover]]
            row += 1
    np.testing.assert_allclose(examples.policies.sum(axis=1), 1, rtol=1e-6)


def test_self_play_is_deterministic_for_a_seed(example, game):
    network = random_heads(example, game, seed=6)

    def played(seed: int):
        return example.self_play(game, network, games=4, simulations=8, batch=2, sampled_plies=10,
                                 dirichlet_alpha=1.0, seed=seed)

    (first, first_records), (again, again_records), (other, _) = played(7), played(7), played(8)
    assert first_records == again_records
    for name in ("observations", "masks", "policies", "values"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
    assert len(first) != len(other) or not np.array_equal(first.observations, other.observations)


def test_gradients_match_finite_differences(example, game):
    """The hand-written backward pass against central differences of the summed losses, every weight."""
    network = random_heads(example, game, seed=8)
    network.policy_weights *= 0.3  # moderate logits and values: differences measure the slope, not saturation
    network.value_weights *= 0.3
    examples, _ = example.self_play(game, network, games=2, simulations=8, batch=2, sampled_plies=0,
                                    dirichlet_alpha=1.0, seed=9)
    examples = examples.rows(np.arange(min(len(examples), 40)))
    gradients = example.gradients(network, examples)
    assert set(gradients) == {"hidden_weights", "hidden_bias", "policy_weights", "policy_bias", "value_weights",
                              "value_bias"}
    rng = np.random.default_rng(10)
    step = 1e-6
    for name, gradient in gradients.items():
        weights = getattr(network, name)
        assert gradient.shape == weights.shape
        for index in map(tuple, rng.integers(0, weights.shape, size=(5, weights.ndim))):
            saved = weights[index]
            weights[index] = saved + step
            above = sum(example.losses(network, examples))
            weights[index] = saved - step
            below = sum(example.losses(network, examples))
            weights[index] = saved
            assert gradient[index] == pytest.approx((above - below) / (2 * step), rel=1e-4, abs=1e-7), (name, index)


def test_training_lowers_both_losses(example, game):
    """Fitted to the searches of another network (whose preferences make the visit shares far from
    uniform), the untrained network's policy and value losses both fall."""
    examples, _ = example.self_play(game, random_heads(example, game, seed=11), games=8, simulations=16, batch=4,
                                    sampled_plies=8, dirichlet_alpha=1.0, seed=12)
    network = example.untrained_network(game, hidden=16, seed=13)
    before = example.losses(network, examples)
    after = example.train(network, examples, epochs=20, learning_rate=0.1, seed=14)
    assert after == example.losses(network, examples)
    assert after[0] < before[0] - 0.03 and after[1] < before[1] - 0.3, (before, after)


def test_win_rate_counts_the_learners_seat(example, game):
    """A strong learner wins nearly always in either seat, and loses as the random bot's opponent."""
    strong = example.rollout_search(game, simulations=32, seed=15)
    weak = example.random_player(seed=16)
    assert example.win_rate(game, strong, weak, games=40, seed=17) >= 0.85
    assert example.win_rate(game, weak, strong, games=40, seed=17) <= 0.15


@pytest.mark.parametrize("seed", [0, 1])
def test_network_guided_search_learns_to_beat_random(example, game, seed):
    """One iteration of small self-play lifts the guided search well above the untrained network's.
    Over seeds 0-7 it went from 0.38-0.49 of 100 games won against the random bot to 0.74-0.92, and
    from 0.08-0.19 against plain MCTS to 0.39-0.68."""
    _, (untrained, trained) = example.alphazero(game, iterations=1, games=32, simulations=16, batch=4,
                                                evaluation_games=100, seed=seed)
    assert trained.search_vs_random > max(0.65, untrained.search_vs_random + 0.15), (untrained, trained)
    assert trained.search_vs_rollouts > untrained.search_vs_rollouts + 0.15, (untrained, trained)
    assert trained.positions > 32 * 20 and untrained.positions == 0


def test_command_line_runs(example):
    out = _run(str(EXAMPLES / "alphazero_lite.py"), "--iterations", "1", "--games", "8", "--simulations", "8",
               "--evaluate", "20")
    rows = re.findall(r"^\s*(untrained|1)\s+(.+)$", out, re.MULTILINE)
    assert [name for name, _ in rows] == ["untrained", "1"], out
    trained = rows[1][1].split()
    assert len(trained) == 8, out  # plies per game, positions, two losses, seconds, three win rates
    assert all(0 <= float(rate) <= 1 for rate in trained[-3:]), out
    assert re.search(r"^[\d.]+ s in all$", out, re.MULTILINE), out
