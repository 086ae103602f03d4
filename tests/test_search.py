"""VectorGame (batched stepping) and the C++ MCTS bot, on every game."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence

import numpy as np
import pytest

import meeple
from meeple.bots import MCTS, Random, play_game
from games import one_ply_root, random_game


GAMES = meeple.list_games()


@pytest.mark.parametrize("name", GAMES)
def test_vector_game_matches_single_states(name):
    """Stepping n states together equals stepping each state alone with the same actions."""
    game = meeple.load(name)
    vec = meeple.VectorGame(game, 6, seed=3)
    singles = [vec.state(i) for i in range(6)]
    for _ in range(60):
        actions = vec.random_actions()
        assert actions.dtype == np.int32
        for i, a in enumerate(actions):
            assert vec.masks[i, a] == 1
        rewards, terminated = vec.step(actions)
        for i in range(6):
            s = singles[i]
            s.apply_action(int(actions[i]))
            while s.is_chance_node():  # the vector resolves chance itself; follow its state
                break
            if terminated[i]:
                assert s.is_terminal() or s.is_chance_node()
                if s.is_terminal():
                    assert np.allclose(rewards[i], s.returns())
                singles[i] = vec.state(i)
            elif not s.is_chance_node():
                assert not rewards[i].any()
                assert vec.state(i) == s
                assert np.array_equal(vec.masks[i], s.legal_actions_mask())
                assert np.array_equal(vec.observations[i], s.observation_tensor())
                assert vec.current_player[i] == s.current_player()
            else:
                singles[i] = vec.state(i)


@pytest.mark.parametrize("name", GAMES)
def test_vector_game_threads_do_not_change_results(name):
    """300 states (above the size stepped on one thread, and not a multiple of the threads'
    shares): 1, 2 and 3 threads give the same games, masks and random actions. On one thread
    Imperial Harvest's states are stepped grouped by phase and active character, on more in slot
    order: the order must not matter either."""
    game = meeple.load(name)
    runs = []
    for threads in (1, 2, 3):
        vec = meeple.VectorGame(game, 300, seed=9, threads=threads)
        trace = []
        for _ in range(40):
            rewards, terminated = vec.step(vec.random_actions())
            trace.append((rewards.copy(), terminated.copy(), vec.observations.copy(), vec.masks.copy(),
                          vec.current_player.copy(), vec.random_actions()))
        runs.append(trace)
    for other in runs[1:]:
        for first, again in zip(runs[0], other):
            assert all(np.array_equal(x, y) for x, y in zip(first, again))


def test_vector_game_results_with_more_threads_than_cores():
    """Four VectorGames of 3 threads stepped at once from Python threads (the GIL is released
    during a step): 12 worker threads on a small machine are often not running when a step
    starts. Each ends exactly where the same game stepped on 1 thread ends."""
    import threading

    game = meeple.load("abacuachego")
    expected = meeple.VectorGame(game, 600, seed=11, threads=1, observations=False)
    for _ in range(300):
        expected.step(expected.random_actions())
    vectors = [meeple.VectorGame(game, 600, seed=11, threads=3, observations=False) for _ in range(4)]
    errors = []

    def run(vec):
        try:
            for _ in range(300):
                vec.step(vec.random_actions())
        except Exception as e:  # reported below: pytest does not see exceptions in threads
            errors.append(e)

    threads = [threading.Thread(target=run, args=(vec,)) for vec in vectors]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for vec in vectors:
        assert np.array_equal(vec.masks, expected.masks)
        assert np.array_equal(vec.random_actions(), expected.random_actions())
        assert all(vec.state(i) == expected.state(i) for i in range(0, 600, 7))


def test_vector_game_refuses_a_second_thread_during_a_step():
    """One VectorGame used from two Python threads: while one steps it (GIL released), the other's
    calls raise RuntimeError instead of racing on the states (every entry point, each refused at
    least once), and the stepping thread's games end exactly as if it had been alone."""
    import threading

    game = meeple.load("harmonies")
    expected = meeple.VectorGame(game, 4096, seed=2)  # stepped below as often as vec was
    vec = meeple.VectorGame(game, 4096, seed=2)
    stepping, enough = threading.Event(), threading.Event()
    steps, refused, unexpected = [0], {}, []

    def step():
        try:
            while steps[0] < 12 or (not enough.is_set() and steps[0] < 3000):
                vec.step(vec.random_actions())
                steps[0] += 1
        except Exception as e:  # reported below: pytest does not see exceptions in threads
            unexpected.append(e)
        finally:
            stepping.set()

    illegal = np.full(4096, -1, np.int32)  # between two steps: ValueError, nothing applied
    finished = game.new_initial_state(seed=1)  # set_state refuses it: ValueError, nothing changed
    while not finished.is_terminal():
        finished.apply_action(int(finished.legal_actions()[0]))
    calls = {  # every entry point but reset (below), each changing nothing when it gets in between two steps
        "state": lambda: vec.state(0), "final_state": lambda: vec.final_state(0), "random_actions": vec.random_actions,
        "step": lambda: vec.step(illegal), "set_state": lambda: vec.set_state(0, finished),
        "game_seed": lambda: vec.game_seed(0), "new_game": lambda: vec.new_game([]),
        "elapsed_steps": vec.elapsed_steps,
    }

    def intrude():
        while not stepping.is_set():
            for name, call in calls.items():
                try:
                    call()
                except RuntimeError as e:
                    refused.setdefault(name, []).append(str(e))
                except ValueError:
                    pass
            if len(refused) == len(calls):
                enough.set()

    stepper = threading.Thread(target=step)
    stepper.start()
    intrude()
    stepper.join()
    assert not unexpected
    assert set(refused) == set(calls), f"never refused: {set(calls) - set(refused)} in {steps[0]} steps"
    assert all("another thread" in message for messages in refused.values() for message in messages)
    for _ in range(steps[0]):
        expected.step(expected.random_actions())
    assert np.array_equal(vec.masks, expected.masks)
    assert np.array_equal(vec.random_actions(), expected.random_actions())
    assert all(vec.state(i) == expected.state(i) for i in range(0, 4096, 97))
    # reset is guarded the same way: a reset and steps racing, whichever comes second is refused.
    racing = []

    def keep_stepping():
        for _ in range(40):
            try:
                vec.step(vec.random_actions())
            except RuntimeError as e:
                racing.append(str(e))
            except ValueError:  # a reset got in between random_actions() and step()
                pass

    blocker = threading.Thread(target=keep_stepping)
    blocker.start()
    while blocker.is_alive():
        try:
            vec.reset()
        except RuntimeError as e:
            racing.append(str(e))
    blocker.join()
    assert racing and all("another thread" in message for message in racing)


@pytest.mark.parametrize("name", GAMES)
def test_vector_game_reset_with_a_seed_starts_as_a_new_vector(name):
    """reset(seed=s) gives the games of VectorGame(game, n, seed=s); reset() those of its own seed;
    a bad seed raises and changes nothing."""
    game = meeple.load(name)

    def trace(vec, steps=25):
        out = []
        for _ in range(steps):
            actions = vec.random_actions()
            rewards, terminated = vec.step(actions)
            out.append((actions, rewards.copy(), terminated.copy(), vec.masks.copy(), vec.observations.copy()))
        return out

    def same(a, b):
        return all(np.array_equal(x, y) for first, again in zip(a, b) for x, y in zip(first, again))

    vec = meeple.VectorGame(game, 7, seed=3)
    assert vec.seed == 3
    own = trace(vec)
    vec.reset(seed=12)
    assert vec.seed == 12
    assert same(trace(vec), trace(meeple.VectorGame(game, 7, seed=12)))
    vec.reset()
    assert vec.seed == 12
    assert same(trace(vec), trace(meeple.VectorGame(game, 7, seed=12)))  # the seed it has now
    vec.reset(seed=3)
    assert same(trace(vec), own)
    states, masks = [vec.state(i) for i in range(7)], vec.masks.copy()
    for bad, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError), (True, TypeError),
                       ("3", TypeError)):
        with pytest.raises(error, match="seed must be an int"):
            vec.reset(seed=bad)
    assert [vec.state(i) for i in range(7)] == states and np.array_equal(vec.masks, masks)
    assert vec.seed == 3


def test_vector_game_autoreset_and_views():
    game = meeple.load("abacuachego", pits_per_row=2, seeds_per_pit=1)
    vec = meeple.VectorGame(game, 8, seed=1)
    obs_view = vec.observations
    finished = 0
    for _ in range(50):
        rewards, terminated = vec.step(vec.random_actions())
        assert rewards is vec.rewards and terminated is vec.terminated
        finished += int(terminated.sum())
        assert np.all(np.abs(rewards.sum(axis=1)) < 1e-6)  # zero-sum returns
        assert not any(vec.state(i).is_terminal() for i in range(8))
    assert finished > 0
    assert obs_view is vec.observations  # preallocated arrays are reused


def test_vector_game_by_name_describes_itself():
    vec = meeple.VectorGame("abacuachego", 3, seed=2, threads=2)
    assert vec.game.name == "abacuachego" and len(vec) == 3 and vec.threads == 2
    assert repr(vec) == f"VectorGame({vec.game!r}, n=3, seed=2, threads=2)"
    assert vec.options == {"observations": True, "masks": True}
    # The parameters and the output options: two vectors of one game name are told apart in logs.
    vec = meeple.VectorGame("harmonies(players=3)", 2, observations=False, masks="packed")
    assert repr(vec) == ("VectorGame(meeple.load('harmonies', players=3, side='A', spirits=False, chance='implicit'), "
                         "n=2, seed=0, threads=1, observations=False, masks='packed')")
    assert vec.options == {"observations": False, "masks": "packed"}
    vec.options["masks"] = True  # a new dict
    assert vec.options["masks"] == "packed"
    assert repr(MCTS(vec.game, simulations=50, c=2.0)) == "MCTS(simulations=50, threads=1, c=2.0)"
    assert repr(Random(seed=1)) == "Random()"


def test_vector_game_rejects_bad_actions_without_changing_anything():
    game = meeple.load("abacuachego")
    vec = meeple.VectorGame(game, 4, seed=2)
    before = [vec.state(i) for i in range(4)]
    obs = vec.observations.copy()
    actions = vec.random_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if not vec.masks[2, a])
    actions[2] = illegal
    with pytest.raises(ValueError, match="state 2"):
        vec.step(actions)
    with pytest.raises(ValueError, match="1-d array of 4"):
        vec.step(np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError, match=r"1-d array of 4 ints, got shape \(0,\)"):
        vec.step([])  # numpy makes float64 of it: its length is what is wrong
    for not_actions in (None, "abc", [1.5]):  # a wrong type is a TypeError, whatever its shape
        with pytest.raises(TypeError, match="integer array"):
            vec.step(not_actions)
    with pytest.raises(TypeError, match="integer array"):
        vec.step(np.zeros(4, dtype=np.float64))
    with pytest.raises(ValueError):
        vec.step(np.full(4, 2**40, dtype=np.int64))
    assert [vec.state(i) for i in range(4)] == before
    assert np.array_equal(vec.observations, obs)
    harmonies = meeple.VectorGame("harmonies", 2, seed=1)  # its move generator lists by kind
    actions = harmonies.random_actions()
    actions[1] = next(a for a in range(harmonies.masks.shape[1]) if not harmonies.masks[1, a])
    with pytest.raises(ValueError, match="for state 1; legal there: ") as info:
        harmonies.step(actions)
    listed = [int(a) for a in str(info.value).split("legal there: ")[1].split(", ")]
    assert listed == harmonies.state(1).legal_actions().tolist()  # sorted, as legal_actions()
    for bad, error in ((0, ValueError), (-1, ValueError), (2**31, ValueError), (True, TypeError),
                       (1.5, TypeError)):
        with pytest.raises(error, match="n must be an int"):
            meeple.VectorGame(game, bad)
    for bad, error in ((0, ValueError), (1025, ValueError), (2**31, ValueError), (None, TypeError)):
        with pytest.raises(error, match="threads must be an int"):
            meeple.VectorGame(game, 4, threads=bad)
    assert len(meeple.VectorGame(game, np.int64(4), threads=np.int32(2))) == 4
    for bad, error in ((4, IndexError), (-5, IndexError), (2**63, IndexError), (1.0, TypeError),
                       (None, TypeError), (True, TypeError)):
        with pytest.raises(error, match="state index must be"):
            vec.state(bad)
    assert vec.state(-1) == vec.state(3) and vec.state(-4) == vec.state(0)  # from the end, as a sequence


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_vector_game_rejects_bad_actions_in_large_batches(threads):
    """Above the size stepped on one thread the check is split over the threads too: the smallest
    illegal slot is named wherever it is, and no state, array or random action has changed."""
    game = meeple.load("abacuachego")
    n = 700
    vec = meeple.VectorGame(game, n, seed=4, threads=threads)
    for _ in range(5):
        vec.step(vec.random_actions())
    before = [vec.state(i) for i in range(n)]
    arrays = [a.copy() for a in (vec.observations, vec.masks, vec.rewards, vec.terminated, vec.current_player)]
    random = vec.random_actions()
    for slots in ([699], [650, 420], [0, 345, 699]):
        actions = random.copy()
        for i in slots:
            actions[i] = next(a for a in range(game.num_distinct_actions()) if not vec.masks[i, a])
        with pytest.raises(ValueError, match=f"for state {min(slots)};"):
            vec.step(actions)
        assert [vec.state(i) for i in range(n)] == before
        assert all(np.array_equal(a, b) for a, b in zip(
            arrays, (vec.observations, vec.masks, vec.rewards, vec.terminated, vec.current_player)))
        assert np.array_equal(vec.random_actions(), random)
    vec.step(random)  # and the vector steps on normally
    assert [vec.state(i) for i in range(n)] != before


@pytest.mark.parametrize("masks", [True, False])
@pytest.mark.parametrize("name", GAMES)
def test_vector_game_steps_random_actions_with_some_replaced(name, masks):
    """The vector's own random actions with other legal actions put in a few slots (in either
    thread's share), as int32, int64 and int16 arrays: each state steps as it would alone."""
    game = meeple.load(name)
    n = 300
    vec = meeple.VectorGame(game, n, seed=8, threads=2, masks=masks)
    rng = np.random.default_rng(1)
    for step in range(12):
        actions = vec.random_actions().astype((np.int32, np.int64, np.int16)[step % 3])
        states = [vec.state(i) for i in range(n)]
        for i in rng.choice(n, size=step % 4, replace=False):
            actions[i] = rng.choice(states[i].legal_actions())
        expected = []
        for i, s in enumerate(states):
            s.apply_action(int(actions[i]))
            expected.append(s)
        _, terminated = vec.step(actions)
        for i, s in enumerate(expected):
            if not terminated[i] and not s.is_chance_node():
                assert vec.state(i) == s


@pytest.mark.parametrize("name", GAMES)
def test_vector_game_without_masks_plays_the_same_games(name):
    """masks=False (random rollouts): the masks stay 0, everything else is as with masks, and
    steps are still checked against the legal actions (the drawn action, or any other legal one)."""
    game = meeple.load(name)
    full = meeple.VectorGame(game, 300, seed=6, threads=2, observations=False)
    bare = meeple.VectorGame(game, 300, seed=6, threads=2, observations=False, masks=False)
    for _ in range(30):
        actions = full.random_actions()
        assert np.array_equal(actions, bare.random_actions())
        for a, b in zip(full.step(actions), bare.step(actions)):
            assert np.array_equal(a, b)
        assert np.array_equal(full.current_player, bare.current_player)
        assert not bare.masks.any() and full.masks.any()
    assert [full.state(i) for i in range(300)] == [bare.state(i) for i in range(300)]
    for _ in range(10):  # legal actions other than the drawn ones: checked by the game itself
        own = full.masks.argmax(axis=1).astype(np.int32)
        assert (own != full.random_actions()).any()
        for a, b in zip(full.step(own), bare.step(own)):
            assert np.array_equal(a, b)
    assert [full.state(i) for i in range(300)] == [bare.state(i) for i in range(300)]
    actions = bare.random_actions()
    actions[7] = next(a for a in range(game.num_distinct_actions()) if not full.masks[7, a])
    with pytest.raises(ValueError, match="for state 7;"):
        bare.step(actions)
    for bad in (1, "bits", "Packed", np.bool_(True), None):
        with pytest.raises(ValueError, match="masks must be True, False or 'packed', got "):
            meeple.VectorGame(game, 4, masks=bad)
    for _ in range(20):  # small arrays come from reused memory: still all 0
        small = meeple.VectorGame(game, 3, seed=1, observations=False, masks=False)
        small.step(small.random_actions())
        assert not small.observations.any() and not small.masks.any()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name, params", [("abacuachego", {}), ("harmonies", {"chance": "explicit", "players": 3}),
                                          ("imperial_harvest", {})])
def test_vector_game_packed_masks_are_the_masks_as_bits(name, params, threads):
    """masks="packed": (n, ceil(actions / 8)) uint8, np.packbits of the byte masks with
    bitorder="little", after every step, reset and set_state; everything else is as with byte masks
    (the same games, random actions and checks)."""
    game = meeple.load(name, **params)
    actions_count = game.num_distinct_actions()
    n = 300
    full = meeple.VectorGame(game, n, seed=9, threads=threads, observations=False)
    packed = meeple.VectorGame(game, n, seed=9, threads=threads, observations=False, masks="packed")
    assert packed.masks.shape == (n, (actions_count + 7) // 8) and packed.masks.dtype == np.uint8

    def agree():
        assert np.array_equal(packed.masks, np.packbits(full.masks, axis=1, bitorder="little"))
        assert np.array_equal(np.unpackbits(packed.masks, axis=1, count=actions_count, bitorder="little"),
                              full.masks)
        assert np.array_equal(packed.current_player, full.current_player)

    agree()
    for _ in range(40):
        actions = full.random_actions()
        assert np.array_equal(actions, packed.random_actions())
        for a, b in zip(full.step(actions), packed.step(actions)):
            assert np.array_equal(a, b)
        agree()
    position = _random_position(game, 4, 9)
    for vec in (full, packed):
        vec.set_state(n - 1, position)
    agree()
    actions = packed.random_actions()
    actions[n - 1] = next(a for a in range(actions_count) if not full.masks[n - 1, a])
    with pytest.raises(ValueError, match=f"for state {n - 1};"):
        packed.step(actions)
    agree()
    for vec in (full, packed):
        vec.reset(seed=2)
    agree()


VARIANTS_WITH_CHANCE = [("abacuachego", {}), ("harmonies", {}), ("harmonies", {"chance": "explicit", "players": 3}),
                        ("imperial_harvest", {}), ("imperial_harvest", {"teams": "draft", "setup": "interactive"})]


def _vector_after_steps(game, steps):
    vec = meeple.VectorGame(game, 5, seed=11)
    for _ in range(steps):
        vec.step(vec.random_actions())
    return vec


def _random_position(game, seed, plies):
    """A position `plies` actions into the random game of `seed`."""
    *_, position = random_game(game, seed, max_actions=plies)
    return position


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
@pytest.mark.parametrize("plies", [0, 7, 30])
def test_vector_game_set_state_continues_from_the_given_position(name, params, plies):
    """A position of one's own put into a slot (set_state) is published at once and then played on
    exactly as the single state plays the same actions, to its end; the other slots, the slot's
    rewards/terminated and the slot's next new game are as if nothing had been put in."""
    game = meeple.load(name, **params)
    position = _random_position(game, 100 + plies, plies)
    assert not position.is_terminal()
    vec, untouched = _vector_after_steps(game, 3), _vector_after_steps(game, 3)
    next_game = _vector_after_steps(game, 3)  # slot 2's second game, as it starts untouched
    while not next_game.terminated[2]:
        next_game.step(next_game.random_actions())
    rewards_before, terminated_before = vec.rewards.copy(), vec.terminated.copy()

    vec.set_state(2, position)
    single = vec.state(2)  # an explicit chance node is resolved by the slot's generator
    assert not single.is_chance_node()
    if not position.is_chance_node():
        assert single == position
    assert np.array_equal(vec.masks[2], single.legal_actions_mask())
    assert np.array_equal(vec.observations[2], single.observation_tensor())
    assert vec.current_player[2] == single.current_player()
    assert vec.random_actions()[2] in single.legal_actions()
    assert np.array_equal(vec.rewards, rewards_before) and np.array_equal(vec.terminated, terminated_before)

    for _ in range(game.max_game_length()):
        actions, others = vec.random_actions(), untouched.random_actions()
        actions[[0, 1, 3, 4]] = others[[0, 1, 3, 4]]
        rewards, terminated = vec.step(actions)
        untouched.step(others)
        assert all(vec.state(j) == untouched.state(j) for j in (0, 1, 3, 4))
        single.apply_action(int(actions[2]))
        if terminated[2]:
            assert single.is_terminal() and np.allclose(rewards[2], single.returns())
            assert vec.state(2) == next_game.state(2)
            return
        if single.is_chance_node():  # the vector drew the outcomes with the slot's generator
            single = vec.state(2)
        assert vec.state(2) == single and not rewards[2].any()
    pytest.fail("the game put into the slot did not end")


def test_vector_game_set_state_rejects_without_changing_anything():
    game = meeple.load("abacuachego")
    vec = meeple.VectorGame(game, 3, seed=1)
    before = [vec.state(i) for i in range(3)], vec.masks.copy(), vec.random_actions()
    finished = game.new_initial_state(seed=1)
    while not finished.is_terminal():
        finished.apply_action(int(finished.legal_actions()[0]))
    for i, state, error, message in [
        (1, finished, ValueError, "over"),
        (1, meeple.load("abacuachego", parity="pit").new_initial_state(), ValueError, "parity='pit'"),
        (1, meeple.load("harmonies").new_initial_state(), TypeError, "engine state of abacuachego"),
        (1, meeple.reference.load("abacuachego").new_initial_state(), TypeError, "engine state of abacuachego"),
        (1, "3cw", TypeError, "engine state of abacuachego"),
        (1, vec, TypeError, "engine state of abacuachego"),  # it has a .game too: pybind11's own message got through
        (3, game.new_initial_state(), IndexError, "-3..2"),
        (-4, game.new_initial_state(), IndexError, "-3..2"),
    ]:
        with pytest.raises(error, match=message):
            vec.set_state(i, state)
        assert [vec.state(j) for j in range(3)] == before[0]
        assert np.array_equal(vec.masks, before[1]) and np.array_equal(vec.random_actions(), before[2])


@pytest.mark.parametrize("name,params", [("abacuachego", {"pits_per_row": 2, "seeds_per_pit": 1}),
                                         ("harmonies", {"players": 3}), ("harmonies", {"chance": "explicit"}),
                                         ("imperial_harvest", {})])
def test_vector_game_final_state_is_the_game_that_ended(name, params):
    """A step that ends a game starts the next at once: final_state(i) is the one that ended, as
    stepping a copy of the slot's state by hand ends it (final observation, returns, length)."""
    game = meeple.load(name, **params)
    n = 5
    vec = meeple.VectorGame(game, n, seed=7)
    assert all(vec.final_state(i) is None for i in range(n))
    ended = [0] * n
    while min(ended) < 2:
        before = [vec.state(i) for i in range(n)]
        actions = vec.random_actions()
        rewards, terminated = vec.step(actions)
        for i in np.flatnonzero(terminated):
            final = vec.final_state(i)
            by_hand = before[i].child(int(actions[i]))
            while by_hand.is_chance_node():  # explicit chance: the slot drew these; follow the vector
                by_hand = final
            assert final == by_hand and final.is_terminal() and final is not vec.final_state(i)
            assert np.allclose(final.returns(), rewards[i]) and final.move_number() > 0
            assert np.array_equal(final.observation_tensor(0), by_hand.observation_tensor(0))
            assert vec.state(i).move_number() < final.move_number()  # the slot is in its next game
            ended[i] += 1
        for i in np.flatnonzero(~terminated):  # it stays until the slot's next game ends
            assert (vec.final_state(i) is None) == (ended[i] == 0)
    kept = vec.final_state(-1)
    vec.set_state(n - 1, game.new_initial_state(seed=3))  # set_state leaves it
    assert vec.final_state(n - 1) == kept
    vec.reset()
    assert all(vec.final_state(i) is None for i in range(n))


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE[:2] + VARIANTS_WITH_CHANCE[3:])
def test_vector_game_seed_and_the_actions_given_replay_each_slots_game(name, params):
    """With implicit chance, a Record of game_seed(i) and the actions given to slot i rebuilds the
    slot's game: the finished ones (final_state) and the one it is in. A game set_state put in has
    no seed until the slot starts its next game; reset(seed) seeds as a new vector would."""
    game = meeple.load(name, **params)
    n = 4
    vec = meeple.VectorGame(game, n, seed=21)

    def record(i):
        return meeple.Record(game.name, game.parameters(), seed=seeds[i], actions=given[i])

    seeds, given = [vec.game_seed(i) for i in range(n)], [[] for _ in range(n)]
    assert len(set(seeds)) == n
    vec.set_state(3, _random_position(game, 5, 9))
    assert vec.game_seed(3) is None and vec.game_seed(-1) is None
    seeds[3] = None
    finished = [0] * n
    while min(finished) < 2:
        actions = vec.random_actions()
        _, terminated = vec.step(actions)
        for i in range(n):
            given[i].append(int(actions[i]))
        for i in np.flatnonzero(terminated):
            if seeds[i] is not None:
                assert record(i).replay() == vec.final_state(i)
            seeds[i], given[i] = vec.game_seed(i), []
            assert seeds[i] is not None
            finished[i] += 1
    assert all(record(i).replay() == vec.state(i) for i in range(n))
    vec.reset(seed=8)
    fresh = meeple.VectorGame(game, n, seed=8)
    assert [vec.game_seed(i) for i in range(n)] == [fresh.game_seed(i) for i in range(n)]
    assert all(game.new_initial_state(seed=vec.game_seed(i)) == vec.state(i) for i in range(n))


@pytest.mark.parametrize("masks", [True, False, "packed"])
@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
def test_vector_game_record_replays_each_slots_game(name, params, masks):
    """record(game_seed(i), the actions given to slot i) rebuilds the slot's game, explicit chance
    included: the outcomes the slot drew are replayed from its generator, which also draws its
    random action at every decision whatever the action given (mask or none). Finished games come
    with their returns; a game cut by new_game starts a record of its own."""
    game = meeple.load(name, **params)
    n = 6
    vec = meeple.VectorGame(game, n, seed=33, observations=False, masks=masks)
    rng = random.Random(4)
    seeds, given = [vec.game_seed(i) for i in range(n)], [[] for _ in range(n)]
    finished, step = [0] * n, 0
    while min(finished) < 2:
        actions = vec.random_actions()
        if masks is True:  # some slots play another legal action than the vector's random one
            for i in range(0, n, 2):
                actions[i] = rng.choice(np.flatnonzero(vec.masks[i]))
        _, terminated = vec.step(actions)
        step += 1
        for i in range(n):
            given[i].append(int(actions[i]))
        for i in np.flatnonzero(terminated):
            record = vec.record(seeds[i], given[i])
            assert record.replay() == vec.final_state(i)
            assert record.returns == vec.final_state(i).returns().tolist()
            assert record.game == game.name and record.parameters == game.parameters()
            seeds[i], given[i] = vec.game_seed(i), []
            finished[i] += 1
        if step == 7:
            vec.new_game(1)
            seeds[1], given[1] = vec.game_seed(1), []
    for i in range(n):
        record = vec.record(seeds[i], given[i])
        assert record.replay() == vec.state(i) and record.returns is None
        if params.get("chance") != "explicit":
            assert record.actions == given[i]


def test_vector_game_record_refuses_what_the_slot_could_not_have_played():
    vec = meeple.VectorGame("abacuachego", 2, seed=1)
    seed = vec.game_seed(0)
    first = int(vec.state(0).legal_actions()[0])
    illegal = next(a for a in range(20) if a not in vec.state(0).child(first).legal_actions())
    with pytest.raises(ValueError, match=rf"actions\[1\] = {illegal} is not legal in the game of this seed"):
        vec.record(seed, [first, illegal])
    with pytest.raises(ValueError, match=r"actions\[0\] must be in 0..19, got 20"):
        vec.record(seed, [20])
    with pytest.raises(ValueError, match=r"actions\[0\] must be an int in 0..2\*\*31-1, got -1"):
        vec.record(seed, [-1])
    with pytest.raises(TypeError, match=r"actions\[0\] must be an int"):
        vec.record(seed, [True])
    with pytest.raises(TypeError, match="seed must be an int"):
        vec.record(None, [])
    assert vec.record(seed, []).actions == [] and vec.record(seed, []).replay() == vec.state(0)


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
def test_vector_game_new_game_starts_the_slots_next_game(name, params):
    """new_game cuts a slot's game short: the slot starts the game it would have started had its
    game ended (same seed, same random actions), its observation, mask and current player describe
    that game at once, and its rewards, terminated and final_state, and the other slots, are as
    they were. A slot number, a list (a slot listed twice starts one game) and a bool mask agree."""
    game = meeple.load(name, **params)
    n = 5
    cut, twin = _vector_after_steps(game, 4), _vector_after_steps(game, 4)
    ended = _vector_after_steps(game, 4)  # each slot's next game, as it starts when its game ends
    next_games = {}
    while len(next_games) < n:
        _, terminated = ended.step(ended.random_actions())
        for i in np.flatnonzero(terminated):
            next_games.setdefault(i, (ended.state(i), ended.game_seed(i), ended.random_actions()[i]))

    kept = cut.rewards.copy(), cut.terminated.copy(), [cut.final_state(i) for i in range(n)]
    for slots in (2, [4, -1, 0], np.array([False, True, False, True, False])):
        cut.new_game(slots)
    for i in range(n):
        state, seed, random_action = next_games[i]
        assert cut.state(i) == state and cut.game_seed(i) == seed and cut.random_actions()[i] == random_action
        if params.get("chance") != "explicit":  # (explicit: the slot drew the first outcomes itself)
            assert game.new_initial_state(seed=seed) == state
        assert np.array_equal(cut.masks[i], state.legal_actions_mask())
        assert np.array_equal(cut.observations[i], state.observation_tensor())
        assert cut.current_player[i] == state.current_player()
    assert np.array_equal(cut.rewards, kept[0]) and np.array_equal(cut.terminated, kept[1])
    assert [cut.final_state(i) for i in range(n)] == kept[2]
    twin.new_game(np.ones(n, bool))
    for _ in range(30):  # and the slots play on as the twin's
        actions = twin.random_actions()
        assert np.array_equal(cut.random_actions(), actions)
        cut.step(actions)
        twin.step(actions)
    assert [cut.state(i) for i in range(n)] == [twin.state(i) for i in range(n)]


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
@pytest.mark.parametrize("threads", [1, 2])
def test_vector_game_elapsed_steps_counts_each_games_steps(name, params, threads):
    """elapsed_steps() is the number of steps of each slot's game, counted here by hand: 0 for a
    game a step, new_game, set_state or reset starts; a refused step counts nothing. Without
    explicit chance it is the state's move_number (explicit chance: the slot's draws add to that)."""
    game = meeple.load(name, **params)
    n = 300  # above the size stepped on the calling thread
    vec = meeple.VectorGame(game, n, seed=4, threads=threads)
    counted = np.zeros(n, np.int64)
    placed = np.zeros(n, bool)  # slots whose game set_state put in: their move_number is the state's
    rng = np.random.default_rng(0)
    for step in range(120):
        _, terminated = vec.step(vec.random_actions())
        counted += 1
        counted[terminated], placed[terminated] = 0, False
        if step % 9 == 4:
            cut = rng.random(n) < 0.1
            vec.new_game(cut)
            counted[cut], placed[cut] = 0, False
        if step % 17 == 3:
            vec.set_state(step, _random_position(game, step, 7))
            counted[step], placed[step] = 0, True
        if step % 23 == 5:
            with pytest.raises(ValueError):
                vec.step(np.full(n, -1, np.int32))
        elapsed = vec.elapsed_steps()
        assert elapsed.dtype == np.int64 and elapsed.shape == (n,)
        assert np.array_equal(elapsed, counted), step
    assert counted.max() > 20 and (counted == 0).any()
    if params.get("chance") != "explicit":
        assert all(vec.state(i).move_number() == counted[i] for i in np.flatnonzero(~placed))
    elapsed = vec.elapsed_steps()
    elapsed[:] = 99  # a new array: the user's to change
    assert not np.array_equal(vec.elapsed_steps(), elapsed)
    vec.reset()
    assert not vec.elapsed_steps().any()


def test_vector_game_new_game_rejects_bad_slots_without_changing_anything():
    vec = meeple.VectorGame("abacuachego", 4, seed=1)
    vec.step(vec.random_actions())
    before = [vec.state(i) for i in range(4)], [vec.game_seed(i) for i in range(4)], vec.masks.copy()
    for slots, error, message in [
        (4, IndexError, "-4..3"), (-5, IndexError, "-4..3"), ([0, 9], IndexError, "got 9"),
        ([2**63], IndexError, "got 9223372036854775808"), ([-1, 2**70], IndexError, "got 1180591620717411303424"),
        (True, TypeError, "not a bool"), (np.True_, TypeError, "not a bool"), (np.array(True), TypeError, "not a bool"),
        (1.0, TypeError, "got float"), ([1.0], TypeError, "item 0 is float 1.0"), ("0", TypeError, "got str"),
        ([3, False], TypeError, "item 1 is bool False"),  # a bool among numbers is neither a mask nor a slot
        (np.zeros((2, 2), int), TypeError, r"shape \(2, 2\)"), (np.ones(2), TypeError, "dtype float64"),
        (np.zeros(3, bool), ValueError, r"shape \(4,\), got \(3,\)"), (None, TypeError, "got NoneType"),
    ]:
        with pytest.raises(error, match=message):
            vec.new_game(slots)
        assert [vec.state(i) for i in range(4)] == before[0] and [vec.game_seed(i) for i in range(4)] == before[1]
        assert np.array_equal(vec.masks, before[2])
    for nothing in ([], (), np.array([], float), np.zeros(4, bool), [False] * 4):
        vec.new_game(nothing)
    assert [vec.state(i) for i in range(4)] == before[0] and [vec.game_seed(i) for i in range(4)] == before[1]

    class Index:  # any object with __index__ is a slot number, as for state(i)
        def __index__(self):
            return 2

    seeds = [vec.game_seed(i) for i in range(4)]
    for slots, started in [(np.array(1), {1}), (Index(), {2}), ([Index(), np.int8(-1)], {2, 3}),
                           ([True, False, False, False], {0}), (range(2), {0, 1})]:
        vec.new_game(slots)
        changed = {i for i in range(4) if vec.game_seed(i) != seeds[i]}
        assert changed == started, slots
        seeds = [vec.game_seed(i) for i in range(4)]


@pytest.mark.parametrize("name", GAMES)
def test_vector_game_set_state_takes_states_only(name):
    """Anything with a `game` of the right game (the vector itself, a bot) is refused by name
    before the engine sees it; every game's state class is found for the check."""
    vec = meeple.VectorGame(name, 2, seed=1)
    for impostor in (vec, MCTS(vec.game, simulations=5)):
        with pytest.raises(TypeError, match=f"expected an engine state of {name}, got meeple"):
            vec.set_state(0, impostor)
    vec.set_state(0, vec.state(1))
    assert vec.state(0) == vec.state(1)


def test_vector_game_random_actions_are_a_new_array_at_every_call():
    vec = meeple.VectorGame("abacuachego", 300, seed=5, threads=2)
    first, second = vec.random_actions(), vec.random_actions()
    assert first is not second and not np.shares_memory(first, second)
    assert np.array_equal(first, second)
    first[:] = -1  # the caller's to change: later calls do not see it
    assert np.array_equal(vec.random_actions(), second)
    vec.step(second)
    third, fourth = vec.random_actions(), vec.random_actions()
    assert np.array_equal(third, fourth) and not np.shares_memory(third, fourth)
    assert not np.shares_memory(third, second) and (first == -1).all()
    assert all(vec.masks[i, a] for i, a in enumerate(third))


def _decision_state(game, seed):
    """The initial state of `seed`, explicit chance resolved by the first outcomes."""
    state = game.new_initial_state(seed=seed)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    return state


@pytest.mark.parametrize("name", GAMES)
def test_mcts_returns_a_legal_action_deterministically(name):
    game = meeple.load(name)
    state = _decision_state(game, 4)
    first = MCTS(game, simulations=100, seed=5).step(state)
    assert first in state.legal_actions()
    assert MCTS(game, simulations=100, seed=5).step(state) == first
    two = MCTS(game, simulations=50, threads=2, seed=5)
    assert two.step(state) in state.legal_actions()
    assert sum(two.last_visits.values()) >= 100


@pytest.mark.parametrize("name", GAMES)
def test_mcts_policy_is_the_root_visit_shares(name):
    game = meeple.load(name)
    state = _decision_state(game, 6)
    bot = MCTS(game, simulations=60, threads=2, seed=3)
    with pytest.raises(ValueError, match="no search yet"):
        bot.last_policy()
    action = bot.step(state)
    policy = bot.last_policy()
    assert policy.dtype == np.float32 and policy.shape == (game.num_distinct_actions(),)
    assert abs(float(policy.sum()) - 1) < 1e-5
    total = sum(bot.last_visits.values())
    assert total >= 120 and set(bot.last_visits) <= set(state.legal_actions().tolist())
    for a in range(game.num_distinct_actions()):
        assert policy[a] == np.float32(bot.last_visits.get(a, 0) / total)
    assert policy[action] == policy.max() and policy[state.legal_actions_mask() == 0].sum() == 0
    assert np.array_equal(bot.last_policy(temperature=1), policy)
    visits = np.array([bot.last_visits.get(a, 0) for a in range(game.num_distinct_actions())], dtype=float)
    for temperature in (0.25, 0.5, 2.0):  # shares as visits ** (1 / T)
        expected = visits ** (1 / temperature) / (visits ** (1 / temperature)).sum()
        assert np.allclose(bot.last_policy(temperature=temperature), expected, atol=1e-6)
    assert np.flatnonzero(bot.last_policy(temperature=0)).tolist() == [action]  # all on step's choice
    coldest = bot.last_policy(temperature=1e-320)  # 1 / T overflows: shared by the most visited
    assert np.array_equal(np.flatnonzero(coldest), np.flatnonzero(visits == visits.max()))
    result = MCTS(game, simulations=60, threads=2, seed=3).search_many([state])[0]
    assert np.array_equal(result.policy(), policy) and np.array_equal(result.policy(temperature=0.5),
                                                                      bot.last_policy(temperature=0.5))
    assert np.flatnonzero(result.policy(temperature=0)).tolist() == [result.action] == [action]
    for bad, error in ((-1, ValueError), (np.inf, ValueError), ("hot", TypeError)):
        with pytest.raises(error, match="temperature must be"):
            bot.last_policy(temperature=bad)


def test_mcts_policy_at_temperature_0_breaks_ties_as_step_does():
    """Tied most visited actions: temperature 0 picks the lowest id, the action MCTS plays."""
    from meeple.bots import visit_shares
    assert np.flatnonzero(visit_shares({4: 7, 2: 7, 9: 3}, 10, temperature=0)).tolist() == [2]
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=1)
    k = len(state.legal_actions())
    bot = MCTS(game, simulations=2 * k, seed=1, evaluator=lambda s: (np.ones(20), np.zeros(2)))
    action = bot.step(state)  # uniform priors, equal values: every action visited twice
    assert set(bot.last_visits.values()) == {2} and action == min(bot.last_visits)
    assert np.flatnonzero(bot.last_policy(temperature=0)).tolist() == [action]


@pytest.mark.parametrize("threads", [1, 2])
def test_mcts_values_are_the_movers_mean_returns(threads):
    """With one ply left (max_plies=1) every simulation ends at the root's child, so each root
    action's Q is exactly the mover's return after it, over both threads' trees."""
    game = meeple.load("abacuachego", max_plies=1)
    state = game.new_initial_state(seed=0)
    bot = MCTS(game, simulations=300, threads=threads, seed=1)
    with pytest.raises(ValueError, match="no search yet"):
        bot.last_value()
    bot.step(state)
    exact = {int(a): float(state.child(int(a)).returns()[0]) for a in state.legal_actions()}
    assert bot.last_values == exact and set(bot.last_visits) == set(exact)
    total = sum(bot.last_visits.values())
    assert total == 300 * threads
    assert bot.last_value() == pytest.approx(sum(exact[a] * n for a, n in bot.last_visits.items()) / total)


@pytest.mark.parametrize("name", GAMES)
def test_mcts_values_are_bounded_and_follow_the_visits(name):
    game = meeple.load(name)
    state = _decision_state(game, 2)
    bot = MCTS(game, simulations=80, threads=2, seed=4)
    bot.step(state)
    visited = {a for a, n in bot.last_visits.items() if n > 0}
    assert set(bot.last_values) == visited and visited
    low, high = -1.0, 1.0  # every game's default returns (tests/games.py)
    assert all(low <= q <= high for q in bot.last_values.values())
    assert low <= bot.last_value() <= high


@pytest.mark.parametrize("threads", [1, 2])
def test_mcts_cannot_read_the_future_of_implicit_chance(threads):
    """Harmonies' draws come from the state's generator. The search determinises (reseeds its
    copies), so positions that differ only in the draws to come get the same search."""
    game = meeple.load("harmonies")
    state = game.new_initial_state(seed=5)
    while state.move_number() < 6:  # into the first turn: its refill is drawn when it ends
        state.apply_action(int(state.legal_actions()[0]))
    assert len(state.legal_actions()) > 1
    visits = []
    for seed in (1, 2, 3):
        other = state.clone()
        other.reseed(seed)
        bot = MCTS(game, simulations=400, threads=threads, seed=7)
        bot.step(other)
        visits.append(bot.last_visits)
    assert visits[0] == visits[1] == visits[2]


def test_mcts_evaluator_cannot_read_the_future_of_implicit_chance():
    """The evaluator sees the search's determinisations: roots that differ only in the draws to
    come get the same search, whatever the evaluator does with the states it is given."""
    game = meeple.load("harmonies")
    state = game.new_initial_state(seed=5)
    while state.move_number() < 6:
        state.apply_action(int(state.legal_actions()[0]))
    searches = []
    for seed in (1, 2):
        other = state.clone()
        other.reseed(seed)
        bot = MCTS(game, simulations=200, seed=7, evaluator=_rollout_evaluator(game, 3)[0])
        bot.step(other)
        searches.append((bot.last_visits, bot.last_values))
    assert searches[0] == searches[1]


@pytest.mark.skipif(meeple._core.SANITIZED, reason="ASan reserves more address space than the limit leaves")
def test_threads_and_memory_the_system_refuses_are_python_errors():
    """Under a 3 GB address-space limit the system refuses threads part way (8 MB stacks) and a
    search tree of 2**31 simulations: each entry point raises (RuntimeError, MemoryError), the
    threads it started end, and the process goes on. Before, they aborted or hung."""
    script = textwrap.dedent("""
        import resource, meeple
        from meeple.bots import MCTS
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        game = meeple.load("abacuachego")
        start = game.new_initial_state()
        calls = {"vector": lambda: meeple.VectorGame(game, 4, threads=1024),
                 "mcts": lambda: MCTS(game, simulations=1, threads=1024).step(start),
                 "playouts": lambda: meeple.random_playouts(game, 4000, threads=1024),
                 "tree": lambda: MCTS(game, simulations=2**31 - 1, threads=2).step(start)}
        for name, call in calls.items():
            try:
                call()
                print(name, "returned")
            except (RuntimeError, MemoryError) as e:
                print(name, type(e).__name__, e)
        print("alive")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "alive" and len(lines) == 5
    for line in lines[:3]:
        assert line.endswith("returned") or re.search(r"RuntimeError cannot start thread \d+ of 1024 "
                                                      r"\(the system refused: .*\); use fewer threads", line)
    assert lines[3] in ("tree returned", "tree MemoryError std::bad_alloc")


def test_mcts_rejects_bad_arguments():
    game = meeple.load("abacuachego")
    for kwargs in ({"simulations": 0}, {"simulations": 2**31}, {"threads": 0}, {"threads": 2**31},
                   {"c": -1}, {"c": float("nan")}, {"c": float("inf")}):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            MCTS(game, **kwargs)
    for kwargs in ({"simulations": 1.5}, {"threads": None}, {"c": "1"}, {"simulations": True}):
        with pytest.raises(TypeError, match=next(iter(kwargs))):
            MCTS(game, **kwargs)
    for not_an_engine_game in (None, meeple.reference.load("abacuachego")):
        with pytest.raises(TypeError, match="MCTS needs a game of the engine"):
            MCTS(not_an_engine_game)
    assert MCTS("abacuachego", simulations=np.int64(5), c=np.float32(1)).step(game.new_initial_state()) >= 0
    bot = MCTS(game, simulations=10)
    with pytest.raises(TypeError, match="expected an engine state of abacuachego"):
        bot.step(meeple.load("harmonies").new_initial_state())
    with pytest.raises(ValueError, match="the state is of"):  # read with this game's sizes: out of bounds
        bot.step(meeple.load("abacuachego", pits_per_row=12).new_initial_state())
    chance = meeple.load("harmonies", chance="explicit")
    with pytest.raises(ValueError, match="chance node"):
        MCTS(chance, simulations=10).step(chance.new_initial_state())
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="over"):
        MCTS(game, simulations=10).step(state)


def test_mcts_bot_spec():
    game = meeple.load("abacuachego")
    bot = meeple.bots.make_bot("mcts:300", game, seed=1)
    assert isinstance(bot, MCTS) and bot.simulations == 300
    with pytest.raises(ValueError, match="mcts:1000"):
        meeple.bots.make_bot("mcts:lots", game, seed=1)


def _positions_with_a_winning_move(game, count):
    """Positions (from random play) where some action wins at once and some does not."""
    found, seed = [], 0
    while len(found) < count:
        seed += 1
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            mover, winning, other = state.current_player(), [], []
            for a in state.legal_actions():
                child = state.clone()
                child.apply_action(int(a))
                (winning if child.is_terminal() and child.returns()[mover] == 1 else other).append(int(a))
            if winning and other:
                found.append((state.clone(), winning))
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    return found


def test_mcts_ranks_an_immediate_win_first():
    """An action that wins at once is among the most visited (others may win surely too)."""
    game = meeple.load("abacuachego")
    for state, winning in _positions_with_a_winning_move(game, 5):
        bot = MCTS(game, simulations=500, seed=1)
        bot.step(state)
        assert max(bot.last_visits[a] for a in winning) == max(bot.last_visits.values())


def _rollout_evaluator(game, seed=0):
    """An evaluator (uniform priors, the returns of one random playout in Python) and its calls."""
    rng, seen = np.random.default_rng(seed), []

    def evaluate(state):
        seen.append(state.clone())
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))  # its own copy: the search's is safe
        return np.ones(game.num_distinct_actions()), state.returns()

    return evaluate, seen


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
def test_mcts_evaluator_is_called_on_copies_of_new_decision_leaves(name, params):
    """PUCT: one evaluation per simulation that reaches a new decision node (never a chance node,
    never a finished game), on a copy the evaluator may change; deterministic for a seed."""
    game = meeple.load(name, **params)
    state = _decision_state(game, 3)
    evaluate, seen = _rollout_evaluator(game)
    bot = MCTS(game, simulations=150, seed=2, evaluator=evaluate)
    action = bot.step(state)
    assert action in state.legal_actions() and sum(bot.last_visits.values()) == 150
    assert 1 < len(seen) <= 151  # the root's priors, then at most one a simulation
    # the root, or with implicit chance a determinisation of it (its draws to come reseeded)
    assert np.array_equal(seen[0].observation_tensor(), state.observation_tensor())
    assert np.array_equal(seen[0].legal_actions(), state.legal_actions())
    assert all(type(s) is type(state) and not s.is_terminal() and not s.is_chance_node() for s in seen)
    again = MCTS(game, simulations=150, seed=2, evaluator=_rollout_evaluator(game)[0])
    assert again.step(state) == action and again.last_visits == bot.last_visits
    assert "evaluator=evaluate" in repr(bot)


@pytest.mark.parametrize("name", GAMES)
def test_mcts_evaluator_values_replace_the_rollouts(name):
    """Constant values: every root action's Q is the root mover's value, as is the root's."""
    game = meeple.load(name)
    state = _decision_state(game, 5)
    values = 0.25 + 0.1 * np.arange(game.num_players())
    bot = MCTS(game, simulations=200, seed=1,
               evaluator=lambda s: (np.ones(game.num_distinct_actions()), values))
    bot.step(state)
    mover = state.current_player()
    assert bot.last_values and all(q == pytest.approx(values[mover]) for q in bot.last_values.values())
    assert bot.last_value() == pytest.approx(values[mover])


@pytest.mark.parametrize("name", GAMES)
def test_mcts_evaluator_priors_steer_the_visits(name):
    """Most prior on one legal action draws nearly all visits (values all equal); prior only on
    illegal actions counts as none, which is uniform over the legal ones."""
    game = meeple.load(name)
    state = _decision_state(game, 8)
    legal = state.legal_actions()
    assert len(legal) > 1
    favourite, zeros = int(legal[len(legal) // 2]), np.zeros(game.num_players())

    def peaked(s):
        priors = np.full(game.num_distinct_actions(), 0.001)
        priors[favourite] = 1.0
        return priors, zeros

    bot = MCTS(game, simulations=300, seed=1, evaluator=peaked)
    assert bot.step(state) == favourite and bot.last_visits[favourite] >= 270
    illegal = np.flatnonzero(state.legal_actions_mask() == 0)[:1]

    def off_the_board(s):
        priors = np.zeros(game.num_distinct_actions())
        priors[illegal] = 1.0  # illegal at the root (elsewhere maybe not: then that is its prior)
        return priors, zeros

    bot = MCTS(game, simulations=len(legal) * 20, seed=1, evaluator=off_the_board)
    bot.step(state)
    assert set(bot.last_visits) == set(legal.tolist())
    assert max(bot.last_visits.values()) - min(bot.last_visits.values()) <= 1  # uniform: equal shares


def _root_puct_search(priors, outcome, simulations, c):
    """The root children's visits and summed returns by the PUCT rule as documented, when every
    child is a finished game (of return `outcome[a]` to the root's mover): the child maximising
    Q + c * prior * sqrt(N) / (1 + n), N the root's visits so far (1 at first)."""
    visits, value = dict.fromkeys(priors, 0), dict.fromkeys(priors, 0.0)
    for k in range(simulations):
        def score(a):
            q = value[a] / visits[a] if visits[a] else 0.0
            return q + c * priors[a] * np.sqrt(max(k, 1)) / (1 + visits[a])
        best = max(priors, key=score)
        visits[best] += 1
        value[best] += outcome[best]
    return visits, value


@pytest.mark.parametrize("c", [0.5, 1.4, 3.0])
def test_mcts_evaluator_visits_follow_the_puct_rule(c):
    """With one ply left (max_plies=1) the evaluator is asked only at the root and every child is
    a finished game, so the visits are those of the PUCT rule as documented (_root_puct_search)."""
    game, state, legal, weights, prior, outcome = one_ply_root()
    visits, value = _root_puct_search(prior, outcome, 300, c)
    bot = MCTS(game, simulations=300, seed=1, c=c, evaluator=lambda s: (weights, np.zeros(2)))
    bot.step(state)
    assert bot.last_visits == visits
    assert bot.last_values == pytest.approx({a: value[a] / visits[a] for a in legal if visits[a]})
    assert bot.last_priors == pytest.approx(prior)


@pytest.mark.parametrize("alpha, fraction", [(0.03, 0.25), (0.3, 0.25), (2.0, 0.5), (0.3, 1.0)])
def test_mcts_root_noise_is_mixed_into_the_root_priors(alpha, fraction):
    """dirichlet_alpha mixes noise into the root's priors: last_priors is (1 - f) prior + f noise,
    noise a distribution over the legal actions, and the search follows the PUCT rule with
    those priors (replayed here); a seed gives the same noise, another seed other noise."""
    game, state, legal, weights, prior, outcome = one_ply_root()

    def searched(seed):
        bot = MCTS(game, simulations=200, seed=seed, evaluator=lambda s: (weights, np.zeros(2)),
                   dirichlet_alpha=alpha, dirichlet_fraction=fraction)
        bot.step(state)
        return bot

    bot = searched(1)
    assert sorted(bot.last_priors) == legal
    noise = {a: (bot.last_priors[a] - (1 - fraction) * prior[a]) / fraction for a in legal}
    assert all(x >= -1e-12 for x in noise.values()) and sum(noise.values()) == pytest.approx(1.0)
    assert max(abs(noise[a] - prior[a]) for a in legal) > 1e-3  # noise, not the priors again
    assert bot.last_visits == _root_puct_search(bot.last_priors, outcome, 200, bot.c)[0]
    assert searched(1).last_priors == bot.last_priors and searched(2).last_priors != bot.last_priors
    assert "dirichlet_alpha" in repr(bot)


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 4.0])
def test_mcts_root_noise_is_dirichlet_distributed(alpha):
    """With dirichlet_fraction=1 and uniform priors the root priors are the noise itself: over
    many searches each action's mean share is 1/k and the mean sum of squared shares is
    (alpha + 1) / (k alpha + 1), as for Dirichlet(alpha, ..., alpha) over k actions (both branches of
    the gamma draw: alpha below and above 1)."""
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=3)
    k = len(state.legal_actions())
    bot = MCTS(game, simulations=1, seed=5, evaluator=lambda s: (np.ones(20), np.zeros(2)),
               dirichlet_alpha=alpha, dirichlet_fraction=1.0)
    draws = []
    for _ in range(3000):
        bot.step(state)
        draws.append([bot.last_priors[a] for a in sorted(bot.last_priors)])
    draws = np.array(draws)
    assert np.allclose(draws.sum(axis=1), 1.0) and np.isfinite(draws).all()
    squares = (draws ** 2).sum(axis=1)
    expected = (alpha + 1) / (k * alpha + 1)
    assert abs(squares.mean() - expected) < 4 * squares.std() / np.sqrt(len(draws)) + 1e-3
    assert np.abs(draws.mean(axis=0) - 1 / k).max() < 0.03


def _pure_evaluator(game):
    """Priors and values that depend on the state alone (any order of calls gives the same
    search), in both forms: (one state at a time, lists of states), and the sizes of the calls."""
    sizes = []

    def single(state):
        rng = np.random.default_rng(state.transposition_key())
        return rng.random(game.num_distinct_actions()) + 0.01, rng.uniform(-1, 1, game.num_players())

    def batched(states):
        sizes.append(len(states))
        rows = [single(state) for state in states]
        return np.array([p for p, _ in rows]), np.array([v for _, v in rows])

    return single, batched, sizes


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
@pytest.mark.parametrize("batch, noise", [(None, None), (1, None), (4, 0.3)])
def test_mcts_search_many_searches_each_root_as_step_would(name, params, batch, noise):
    """search_many(states) gives, state by state, what step gives on each in turn (the same seeds
    drawn in the same order): the same action, visits, values and root priors, noise included;
    its evaluator calls gather the leaves of all the trees (the roots first, then up to
    len(states) * batch states a call)."""
    game = meeple.load(name, **params)
    states = [_decision_state(game, seed) for seed in range(5)]
    single, batched, sizes = _pure_evaluator(game)
    evaluator = single if batch is None else batched
    options = dict(simulations=60, seed=9, evaluator=evaluator, batch=batch, dirichlet_alpha=noise)
    many = MCTS(game, **options)
    results = many.search_many(states)
    calls = list(sizes)
    one_by_one = MCTS(game, **options)
    for state, result in zip(states, results):
        assert one_by_one.step(state) == result.action and result.action in state.legal_actions()
        assert one_by_one.last_visits == result.visits and sum(result.visits.values()) == 60
        assert one_by_one.last_values == pytest.approx(result.values)
        assert one_by_one.last_priors == pytest.approx(result.priors) and set(result.priors) == set(result.visits)
        assert np.array_equal(one_by_one.last_policy(), result.policy())
        assert one_by_one.last_value() == pytest.approx(result.value())
    assert many.last_visits == {}  # search_many leaves the last_ attributes alone
    if batch is not None:
        assert calls[0] == len(states) and max(calls[1:]) <= len(states) * batch
        assert max(calls[1:]) > batch  # the trees' leaves are gathered
        assert len(calls) < len(sizes) - len(calls)  # fewer calls than the searches one by one made


@pytest.mark.parametrize("threads", [1, 2])
def test_mcts_search_many_without_evaluator_is_uct_root_by_root(threads):
    game = meeple.load("harmonies")
    states = [_decision_state(game, seed) for seed in range(3)]
    results = MCTS(game, simulations=80, threads=threads, seed=4).search_many(states)
    one_by_one = MCTS(game, simulations=80, threads=threads, seed=4)
    for state, result in zip(states, results):
        assert one_by_one.step(state) == result.action and one_by_one.last_visits == result.visits
        assert one_by_one.last_values == pytest.approx(result.values) and result.priors == {}
        assert sum(result.visits.values()) == 80 * threads


def test_mcts_search_many_checks_its_states_and_raises_evaluator_errors():
    game = meeple.load("abacuachego")
    other = meeple.load("abacuachego", max_plies=7)
    state = game.new_initial_state(seed=1)
    finished = _random_position(game, 1, 1000)
    assert finished.is_terminal()
    calls = []

    def uniform(states):
        calls.append(len(states))
        return np.ones((len(states), 20)), np.zeros((len(states), 2))

    bot = MCTS(game, simulations=10, seed=1, evaluator=uniform, batch=2)
    for states, error, message in [
        ([state, finished], ValueError, r"states\[1\]: the game is over"),
        ([state, other.new_initial_state()], ValueError, r"states\[1\]: the state is of"),
        ([state, 3], TypeError, r"states\[1\]: expected an engine state of abacuachego, got builtins.int"),
        (state, TypeError, "states must be a sequence of states, got AbacuachegoState"),
        ("abc", TypeError, "got str"),
    ]:
        with pytest.raises(error, match=message):
            bot.search_many(states)
    assert calls == [] and bot.search_many([]) == [] and calls == []

    class MadeOnRequest(Sequence):  # a sequence holding no states: each one made as asked
        def __len__(self):
            return 3

        def __getitem__(self, i):
            if i >= 3:
                raise IndexError(i)
            return game.new_initial_state(seed=i)

    made = game._mcts_many(MadeOnRequest(), 10, 1, [1, 2, 3])  # the engine's own entry point
    assert made == game._mcts_many([game.new_initial_state(seed=i) for i in range(3)], 10, 1, [1, 2, 3])
    explicit = meeple.load("harmonies", chance="explicit")
    with pytest.raises(ValueError, match=r"states\[0\]: the state is a chance node"):
        MCTS(explicit, simulations=5).search_many([explicit.new_initial_state()])

    def fails(states):
        raise KeyError("the network is gone")

    with pytest.raises(KeyError, match="the network is gone"):
        MCTS(game, simulations=10, evaluator=fails, batch=2).search_many([state, state])
    twin = meeple.load("abacuachego")  # equal to `game`, another object: its states are searched too
    games_seen = set()

    def seen(states):
        games_seen.update(id(s.game) for s in states)
        return uniform(states)

    searching = MCTS(game, simulations=10, seed=1, evaluator=seen, batch=2)
    searching.search_many([twin.new_initial_state(seed=1), state])
    searching.step(twin.new_initial_state(seed=2))
    assert games_seen == {id(game)}  # the evaluator's states are of the bot's game
    as_tuple, as_list = (MCTS(game, simulations=10, seed=1, evaluator=uniform, batch=2) for _ in range(2))
    assert as_tuple.search_many((state, state)) == as_list.search_many([state, state])  # any sequence


def test_mcts_root_noise_arguments_are_checked():
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=3)
    uniform = (lambda s: (np.ones(20), np.zeros(2)))
    with pytest.raises(ValueError, match="give evaluator= too"):
        MCTS(game, dirichlet_alpha=0.3)
    with pytest.raises(ValueError, match="give dirichlet_alpha too"):  # not silently noiseless
        MCTS(game, evaluator=uniform, dirichlet_fraction=0.5)
    for alpha, error, message in [(0, ValueError, "dirichlet_alpha must be a finite number > 0.0, got 0"),
                                  (-1.0, ValueError, "> 0.0"), (np.nan, ValueError, "> 0.0"),
                                  (True, TypeError, "must be a number"), ("0.3", TypeError, "must be a number")]:
        with pytest.raises(error, match=message):
            MCTS(game, evaluator=uniform, dirichlet_alpha=alpha)
    for fraction in (-0.1, 1.5, np.inf):
        with pytest.raises(ValueError, match="dirichlet_fraction must be a finite number >= 0.0 and <= 1.0"):
            MCTS(game, evaluator=uniform, dirichlet_alpha=0.3, dirichlet_fraction=fraction)
    k = len(state.legal_actions())
    for alpha in (1e-4, 1e-300, 1e-320):  # draws too small for a double, then even their logs (-inf)
        for seed in range(20):
            tiny = MCTS(game, simulations=5, seed=seed, evaluator=uniform, dirichlet_alpha=alpha,
                        dirichlet_fraction=1.0)
            tiny.step(state)
            priors = np.array(list(tiny.last_priors.values()))
            assert np.isfinite(priors).all() and priors.sum() == pytest.approx(1) and len(priors) == k
            assert sum(tiny.last_visits.values()) == 5
            if alpha < 1e-300:  # all the noise on one action, as Dirichlet's limit
                assert sorted(priors)[-2:] == [0.0, 1.0]
    plain = MCTS(game, simulations=50, seed=2, evaluator=uniform, dirichlet_alpha=0.3, dirichlet_fraction=0.0)
    noiseless = MCTS(game, simulations=50, seed=2, evaluator=uniform)
    assert plain.step(state) == noiseless.step(state) and plain.last_visits == noiseless.last_visits
    assert list(plain.last_priors.values()) == pytest.approx([1 / k] * k)
    unguided = MCTS(game, simulations=50, seed=2)
    unguided.step(state)
    assert unguided.last_priors == {}  # UCT has no priors


@pytest.mark.parametrize("batch", [2, 5, 16])
def test_mcts_batched_evaluator_visits_follow_the_puct_rule_with_virtual_loss(batch):
    """As above, in batches: `batch` simulations choose in turn, each leaving a virtual loss on its
    child (a visit with return -1), then every chosen child gets its true return instead."""
    game, state, legal, weights, prior, outcome = one_ply_root()
    visits, value, root_visits, c = dict.fromkeys(legal, 0), dict.fromkeys(legal, 0.0), 0, 1.4
    for start in range(0, 300, batch):
        chosen = []
        for _ in range(min(batch, 300 - start)):
            def score(a):
                q = value[a] / visits[a] if visits[a] else 0.0
                return q + c * prior[a] * np.sqrt(max(root_visits, 1)) / (1 + visits[a])
            best = max(legal, key=score)
            visits[best] += 1
            value[best] -= 1.0
            root_visits += 1
            chosen.append(best)
        for a in chosen:
            value[a] += 1.0 + outcome[a]
    sizes = []

    def evaluate(states):
        sizes.append(len(states))
        return np.tile(weights, (len(states), 1)), np.zeros((len(states), 2))

    bot = MCTS(game, simulations=300, seed=1, c=c, evaluator=evaluate, batch=batch)
    bot.step(state)
    assert sizes == [1]  # the root only: every simulation ends in a finished game
    assert bot.last_visits == visits
    assert bot.last_values == pytest.approx({a: value[a] / visits[a] for a in legal if visits[a]})


@pytest.mark.parametrize("name, params", VARIANTS_WITH_CHANCE)
def test_mcts_batched_evaluator_takes_lists_and_undoes_its_virtual_losses(name, params):
    """batch=B: lists of at most B decision states (fewer when simulations meet at a leaf another
    one waits for, which then shares its value); every simulation counted once, and with constant
    values every Q is exactly the mover's value (no virtual loss left behind). batch=1 searches as
    batch=None does."""
    game = meeple.load(name, **params)
    state = _decision_state(game, 3)
    values = 0.25 + 0.1 * np.arange(game.num_players())
    sizes, seen = [], []

    def constant(states):
        sizes.append(len(states))
        seen.extend(states)
        return np.ones((len(states), game.num_distinct_actions())), np.tile(values, (len(states), 1))

    bot = MCTS(game, simulations=300, seed=2, evaluator=constant, batch=16)
    bot.step(state)
    assert sum(bot.last_visits.values()) == 300 and sizes[0] == 1 and max(sizes) <= 16
    assert sum(sizes) < 301 and len(sizes) >= 300 // 16 + 1  # some met at a waiting leaf (first batches)
    assert all(not s.is_terminal() and not s.is_chance_node() for s in seen)
    mover = state.current_player()
    assert all(q == pytest.approx(values[mover]) for q in bot.last_values.values())
    again = MCTS(game, simulations=300, seed=2, evaluator=constant, batch=16)
    again.step(state)
    assert again.last_visits == bot.last_visits
    one = MCTS(game, simulations=100, seed=5, evaluator=_rollout_evaluator(game, 1)[0])
    single = _rollout_evaluator(game, 1)[0]
    listed = MCTS(game, simulations=100, seed=5, batch=1,
                  evaluator=lambda states: tuple(np.array(column) for column in zip(*map(single, states))))
    one.step(state)
    listed.step(state)
    assert one.last_visits == listed.last_visits


def test_mcts_batched_evaluator_shapes_and_arguments_are_checked():
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=1)
    for result, error, message in [
        ((np.ones(20), np.zeros(2)), ValueError,
         r"priors must have shape \(len\(states\), num_distinct_actions\(\)\) = \(1, 20\), got \(20,\)"),
        ((np.ones((1, 20)), np.zeros((2, 1))), ValueError,
         r"values must have shape \(len\(states\), num_players\(\)\)"),
        ((np.ones((1, 20)), [[0, np.inf]]), ValueError, r"values must be finite, got inf at index \[0, 1\]"),
        ((np.ones((1, 20)), [[0, -1e101]]), ValueError, r"magnitude at most 1e100, got -1e\+101 at index \[0, 1\]"),
        ((-np.ones((1, 20)), np.zeros((1, 2))), ValueError, "got -1.000000 for action 0 of state 0"),
    ]:
        with pytest.raises(error, match=message):
            MCTS(game, simulations=10, evaluator=lambda states, result=result: result, batch=4).step(state)
    uniform = lambda states: (np.ones((len(states), 20)), np.zeros((len(states), 2)))  # noqa: E731
    with pytest.raises(ValueError, match="give evaluator= too"):
        MCTS(game, batch=4)
    for batch, error in [(0, ValueError), (2**21, ValueError), (1.5, TypeError), (True, TypeError)]:
        with pytest.raises(error, match="batch"):
            MCTS(game, evaluator=uniform, batch=batch)
    assert "batch=4" in repr(MCTS(game, evaluator=uniform, batch=4))


@pytest.mark.parametrize("seed", [0, 4])
def test_mcts_evaluator_values_every_simulation_also_off_the_tree(seed):
    """Harmonies' draws are determinised afresh in each simulation, so a node in the tree may have
    no child legal in this one's draws: the evaluator then values the state there (its priors are
    not used). One evaluation a simulation (and the root's), and no value but the evaluator's."""
    game = meeple.load("harmonies")
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(4 + 7 * seed):
        state.apply_action(int(rng.choice(state.legal_actions())))
    calls = []

    def constant(s):
        calls.append(1)
        return np.ones(game.num_distinct_actions()), np.full(2, 0.5)

    bot = MCTS(game, simulations=2000, seed=1, evaluator=constant)
    bot.step(state)
    assert len(calls) == 2000 + 1
    assert all(q == 0.5 for q in bot.last_values.values())


def test_mcts_evaluator_priors_are_renormalised_without_overflow():
    """Huge priors (their sum overflows) still mean equal shares: uniform visits, as with ones."""
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=1)
    shares = []
    for level in (1.0, 1e308):
        bot = MCTS(game, simulations=28, seed=1, evaluator=lambda s, level=level: (np.full(20, level), np.zeros(2)))
        bot.step(state)
        shares.append(bot.last_visits)
    assert shares[0] == shares[1] and max(shares[1].values()) - min(shares[1].values()) <= 1


def test_mcts_evaluator_with_rollout_values_ranks_an_immediate_win_first():
    game = meeple.load("abacuachego")
    for state, winning in _positions_with_a_winning_move(game, 4):
        bot = MCTS(game, simulations=300, seed=1, evaluator=_rollout_evaluator(game, 3)[0])
        bot.step(state)
        assert max(bot.last_visits[a] for a in winning) == max(bot.last_visits.values())


def test_mcts_evaluator_failures_are_raised_by_step():
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=1)
    uniform, zeros = np.ones(20), np.zeros(2)
    for result, error, message in [
        (None, TypeError, "must return \\(priors, values\\), got NoneType"),
        ((uniform,), ValueError, "got 1 items"),
        ((uniform, zeros, zeros), ValueError, "got 3 items"),
        ((np.ones(19), zeros), ValueError,
         r"priors must have shape \(num_distinct_actions\(\),\) = \(20,\), got \(19,\)"),
        ((np.ones((2, 20)), zeros), ValueError, r"got \(2, 20\)"),
        ((uniform, np.zeros(3)), ValueError, r"values must have shape \(num_players\(\),\) = \(2,\)"),
        (("ab", zeros), TypeError, "priors must be real numbers, got str of dtype <U2"),
        ((uniform, [np.nan, 0]), ValueError, "values must be finite, got nan at index 0"),
        # finite, but their sums over visits overflowed to inf and the statistics became NaN
        ((uniform, [1e308, -1e308]), ValueError, "values must be expected returns of magnitude at most 1e100, "
                                                 "got 1e\\+308 at index 0"),
        ((np.full(20, np.inf), zeros), ValueError, "priors must be finite"),
        ((-uniform, zeros), ValueError, "priors must be >= 0 \\(probabilities, not logits\\)"),
    ]:
        bot = MCTS(game, simulations=20, seed=1, evaluator=lambda s, result=result: result)
        with pytest.raises(error, match=message):
            bot.step(state)
        assert bot.last_visits == {}
    calls = []

    def fails_late(s):
        calls.append(1)
        if len(calls) == 7:
            raise KeyError("the network is gone")
        return uniform, zeros

    with pytest.raises(KeyError, match="the network is gone"):
        MCTS(game, simulations=50, seed=1, evaluator=fails_late).step(state)
    assert len(calls) == 7  # the search stopped at the failure

    class Tensor:  # a conversion's own error reaches the user as raised (torch: "...use .detach()")
        def __array__(self, *args, **kwargs):
            raise RuntimeError("call tensor.detach() first")

    for result, error, message in [((Tensor(), zeros), RuntimeError, "detach"),
                                   ((uniform + 0j, zeros), TypeError, "real numbers, got numpy.ndarray of dtype comp"),
                                   ((uniform, np.array([None, 0])), TypeError, "values must be real numbers.*object"),
                                   (((p for p in uniform), zeros), TypeError, "got generator of dtype object")]:
        with pytest.raises(error, match=message):
            MCTS(game, simulations=20, seed=1, evaluator=lambda s, result=result: result).step(state)
    as_lists = MCTS(game, simulations=20, seed=1, evaluator=lambda s: ([1.0] * 20, [0, 0]))
    assert as_lists.step(state) in state.legal_actions()
    with pytest.raises(ValueError, match="threads must be 1"):
        MCTS(game, simulations=20, threads=2, evaluator=fails_late)
    with pytest.raises(TypeError, match="evaluator must be callable"):
        MCTS(game, simulations=20, evaluator="network")


STRENGTH = {"abacuachego": {}, "harmonies": {}, "imperial_harvest": {}}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STRENGTH))
def test_mcts_beats_random(name):
    """MCTS with 1,000 simulations wins at least 90% of 50 games against the random bot, both seats."""
    game = meeple.load(name, **STRENGTH[name])
    wins = 0
    for i in range(50):
        seat = i % 2
        bots = [Random(seed=i), Random(seed=i)]
        bots[seat] = MCTS(game, simulations=1000, seed=i)
        record = play_game(game, bots, seed=i)
        wins += record.returns[seat] > max(r for p, r in enumerate(record.returns) if p != seat)
    assert wins >= 45, f"MCTS won {wins} of 50"


# --- Ctrl-C --------------------------------------------------------------------------------------

# Each takes 15-20 s or more when nothing stops it (more on sanitizer builds).
LONG_COMPUTATIONS = {
    "perft": lambda game, state: game.perft(state, 8),
    "MCTS, 2 threads": lambda game, state: MCTS(game, simulations=4_000_000, threads=2).step(state),
    "random_playouts, 2 threads": lambda game, state: game.random_playouts(16_000_000, threads=2),
    "MCTS with an evaluator": lambda game, state: MCTS(game, simulations=4_000_000,
                                                       evaluator=_rollout_evaluator(game)[0]).step(state),
    "MCTS search_many, 2 threads": lambda game, state: MCTS(game, simulations=4_000_000,
                                                            threads=2).search_many([state] * 3),
    "MCTS search_many with an evaluator": lambda game, state: MCTS(
        game, simulations=4_000_000, evaluator=_pure_evaluator(game)[1], batch=4).search_many([state] * 3),
}


@pytest.mark.parametrize("computation", LONG_COMPUTATIONS)
def test_ctrl_c_stops_a_long_computation(computation):
    """The C++ computations run with the GIL released, where Python cannot run its SIGINT handler;
    they look for pending signals themselves, so Ctrl-C raises KeyboardInterrupt within moments
    rather than when they end, and the state is untouched."""
    import _thread
    import threading
    import time
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=1)
    before = state.to_json(), game.perft(state, 3)
    timer = threading.Timer(0.2, _thread.interrupt_main)  # as Ctrl-C does: SIGINT's handler runs
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        LONG_COMPUTATIONS[computation](game, state)
    timer.join()
    assert time.perf_counter() - start < 5, "the interrupt was seen only when the computation ended"
    assert (state.to_json(), game.perft(state, 3)) == before  # and the engine works on


# A daemon thread still inside each of these when the main thread exits.
DAEMON_COMPUTATIONS = {
    "VectorGame steps": "vec = meeple.VectorGame('harmonies', 5000, seed=1)\n"
                        "work = lambda: [vec.step(vec.random_actions()) for _ in iter(int, 1)]",
    "VectorGame steps, 2 threads": "vec = meeple.VectorGame('imperial_harvest', 5000, seed=1, threads=2)\n"
                                   "work = lambda: [vec.step(vec.random_actions()) for _ in iter(int, 1)]",
    "MCTS, 2 threads": "game = meeple.load('harmonies')\n"
                       "work = lambda: MCTS(game, simulations=4_000_000, threads=2).step(game.new_initial_state())",
    "perft": "game = meeple.load('abacuachego')\nwork = lambda: game.perft(game.new_initial_state(), 9)",
    # Python runs in the search: the thread is stopped inside the evaluator, not in the engine.
    "MCTS with an evaluator": "game = meeple.load('harmonies')\n"
                              "def evaluate(state):\n"
                              "    return [sum(range(2000))] * 268, [0.0, 0.0]\n"
                              "bot = MCTS(game, simulations=4_000_000, evaluator=evaluate)\n"
                              "work = lambda: bot.step(game.new_initial_state())",
    "MCTS search_many with an evaluator": "game = meeple.load('harmonies')\n"
                                          "def evaluate(states):\n"
                                          "    n = len(states)\n"
                                          "    return [[sum(range(2000))] * 268] * n, [[0.0, 0.0]] * n\n"
                                          "bot = MCTS(game, simulations=4_000_000, evaluator=evaluate, batch=2)\n"
                                          "work = lambda: bot.search_many([game.new_initial_state()] * 3)",
}


@pytest.mark.parametrize("computation", DAEMON_COMPUTATIONS)
def test_exit_with_a_daemon_thread_inside_a_computation_is_clean(computation):
    """CPython before 3.14 ends a daemon thread that asks for the GIL back during shutdown with
    pthread_exit, which unwound through the GIL guard's noexcept destructor and aborted the
    process (exit status 134, "terminate called without an active exception") at the end of a
    program that had finished normally: every time, for the VectorGame and MCTS cases (perft
    got away with it, ended inside its Ctrl-C check). Such a thread now waits
    for the process to end. An exit handler that runs after meeple's (registered before meeple
    was imported) still computes on the main thread."""
    script = textwrap.dedent("""
        import atexit, threading, time
        def late():
            import meeple
            game = meeple.load("abacuachego")
            print("late perft", game.perft(game.new_initial_state(), 3))
        atexit.register(late)
        import meeple
        from meeple.bots import MCTS
    """) + DAEMON_COMPUTATIONS[computation] + textwrap.dedent("""
        threading.Thread(target=work, daemon=True).start()
        time.sleep(0.3)
        print("exiting")
    """)
    for _ in range(2):
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout.split("\n")[:2] == ["exiting", "late perft 2300"]


def test_vector_game_read_only_outputs_are_refused_without_changing_anything():
    """The outputs are the user's arrays: one locked with flags.writeable = False makes step, reset
    and set_state raise ValueError naming it, before anything changes (set_state used to put the
    state in and skip its mask; reset(seed) used to keep the new seed)."""
    game = meeple.load("abacuachego")
    vec = meeple.VectorGame(game, 3, seed=1)
    twin = meeple.VectorGame(game, 3, seed=1)
    other = game.new_initial_state(seed=1)
    other.apply_action(int(other.legal_actions()[-1]))
    for output in ("observations", "masks", "rewards", "terminated", "current_player"):
        getattr(vec, output).flags.writeable = False
        for call in (lambda: vec.step(vec.random_actions()), lambda: vec.reset(seed=9),
                     lambda: vec.reset(), lambda: vec.set_state(0, other), lambda: vec.new_game(0)):
            with pytest.raises(ValueError, match=f"VectorGame.{output} is read-only"):
                call()
        getattr(vec, output).flags.writeable = True
        assert [vec.state(i) for i in range(3)] == [twin.state(i) for i in range(3)] and vec.seed == 1
        assert np.array_equal(vec.masks, twin.masks)
    for _ in range(200):  # the same games on: same seed, same episode counts
        actions = twin.random_actions()
        assert np.array_equal(vec.random_actions(), actions)
        vec.step(actions)
        twin.step(actions)
    assert [vec.state(i) for i in range(3)] == [twin.state(i) for i in range(3)]


def test_vector_game_attributes_cannot_be_replaced_and_it_cannot_be_copied():
    import copy
    import pickle
    vec = meeple.VectorGame("abacuachego", 2, seed=1)
    for name in ("game", "seed", "observations", "masks", "rewards", "terminated", "current_player"):
        with pytest.raises(AttributeError):
            setattr(vec, name, getattr(vec, name))
    for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="cannot be"):
            attempt(vec)
    # The engine checks a state against the game it was built with, whatever Python hands it.
    with pytest.raises(ValueError, match="pits_per_row"):
        vec._vector.set_state(0, meeple.load("abacuachego", pits_per_row=12).new_initial_state())
    assert vec.state(0) == meeple.VectorGame("abacuachego", 2, seed=1).state(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_child_forked_during_a_computation_exits_at_once():
    """The exit handler waits (up to 1 s) for the threads inside a C++ computation; in a child made
    by fork while another thread computed, that thread does not exist and is not waited for."""
    script = textwrap.dedent("""
        import os, sys, threading, time, warnings
        import meeple
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python 3.12+)
        game = meeple.load("abacuachego")
        threading.Thread(target=lambda: game.perft(game.new_initial_state(), 9), daemon=True).start()
        time.sleep(0.2)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            sys.exit(0)  # a normal exit: the exit handlers run
        os.waitpid(pid, 0)
        print(f"{time.monotonic() - start:.3f}")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) < 0.8
