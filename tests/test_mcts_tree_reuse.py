"""MCTS(reuse_tree=True): the tree kept from one search to the next, on every game."""
from __future__ import annotations

import random

import numpy as np
import pytest

import meeple
from meeple.bots import MCTS, play_game
from games import choose_random, one_ply_root

VARIANTS = [("abacuachego", {}), ("harmonies", {}), ("harmonies", {"chance": "explicit", "players": 3}),
            ("imperial_harvest", {}), ("imperial_harvest", {"teams": "draft", "setup": "interactive"})]


def _continued(bot_of, state, search_many):
    """The results of searching `state` twice with reuse_tree (150 simulations each), and of one
    search of 300 without: a step each, or with search_many two places holding it."""
    kept, once = bot_of(150, True), bot_of(300, False)
    if not search_many:
        kept.step(state)
        assert kept.last_reused == 0
        kept.step(state)
        assert kept.last_reused == 150 and sum(kept.last_visits.values()) == 300
        once.step(state)
        return [(kept.last_visits, kept.last_values, kept.last_priors)], [
            (once.last_visits, once.last_values, once.last_priors)]
    assert [r.reused for r in kept.search_many([state, state])] == [0, 0]
    again = kept.search_many([state, state])
    assert [r.reused for r in again] == [150, 150] and all(sum(r.visits.values()) == 300 for r in again)
    return [(r.visits, r.values, r.priors) for r in again], [(r.visits, r.values, r.priors)
                                                             for r in once.search_many([state, state])]


@pytest.mark.parametrize("search_many", [False, True])
@pytest.mark.parametrize("guided", [False, True])
def test_searching_the_same_position_again_goes_on_with_the_same_search(guided, search_many):
    """Two searches of 150 from one root, the tree kept, are one search of 300: the same visits
    and values (UCT and PUCT; the first search's seed is the same, the second's draws nothing)."""
    game, state, _, weights, _, _ = one_ply_root()
    evaluator = (lambda s: (weights, np.zeros(2))) if guided else None
    kept, once = _continued(lambda simulations, reuse: MCTS(game, simulations=simulations, seed=5, evaluator=evaluator,
                                                            reuse_tree=reuse), state, search_many)
    for (visits, values, priors), (visits_once, values_once, priors_once) in zip(kept, once):
        assert visits == visits_once
        assert values == pytest.approx(values_once)
        assert priors == pytest.approx(priors_once)


def test_root_noise_is_drawn_afresh_not_added_to_the_last_searchs():
    """Searching one root again mixes new noise into the evaluator's priors, not into the noisy
    priors of the search before: each prior stays >= (1 - f) of the evaluator's."""
    game, state, _, weights, prior, _ = one_ply_root()
    bot = MCTS(game, simulations=20, seed=2, evaluator=lambda s: (weights, np.zeros(2)), dirichlet_alpha=0.03,
               dirichlet_fraction=0.5, reuse_tree=True)
    seen = []
    for k in range(6):
        bot.step(state)
        assert bot.last_reused == 20 * k
        assert sum(bot.last_priors.values()) == pytest.approx(1.0)
        assert all(bot.last_priors[a] >= 0.5 * prior[a] - 1e-12 for a in prior), bot.last_priors
        seen.append(max(bot.last_priors, key=bot.last_priors.get))
    assert len(set(seen)) > 1  # the noise was drawn again (alpha = 0.03: nearly all on one action)


@pytest.mark.parametrize("name", ["abacuachego", "imperial_harvest"])
def test_the_subtree_of_the_move_played_is_kept(name):
    """Games without chance: after the move searched, the next search (by the same bot, for the
    next player) keeps the child's subtree: its children's visits, which are the child's visits
    but the one that reached it first (that one rolled out from it)."""
    game = meeple.load(name)
    bot = MCTS(game, simulations=200, seed=3, reuse_tree=True)
    state = game.new_initial_state(seed=1)
    kept = 0
    for _ in range(30):
        action = bot.step(state)
        child_visits = bot.last_visits[action]
        state.apply_action(action)
        if state.is_terminal():
            break
        bot.step(state)
        assert bot.last_reused == (child_visits - 1 if child_visits > 1 else 0)
        assert sum(bot.last_visits.values()) == bot.last_reused + 200
        kept += bot.last_reused > 0
        state.apply_action(choose_random(state, random.Random(len(bot.last_visits))))  # searched, not played
        if state.is_terminal():
            break
    assert kept >= 20


def _draws_nothing(previous, actions, state):
    """Whether `actions` from `previous` (to `state`) draw nothing from the state's generator:
    replayed with a new generator, they leave it as it was (it is part of the state)."""
    replay, target = previous.clone(), state.clone()
    replay.reseed(11)
    target.reseed(11)
    for action in actions:
        replay.apply_action(action)
    return replay == target


@pytest.mark.parametrize("name, params", VARIANTS)
@pytest.mark.parametrize("threads", [1, 2])
def test_kept_trees_in_random_games(name, params, threads):
    """A bot that keeps its tree, searching every decision of random games: each search counts the
    visits kept and its own (`simulations` a thread), over exactly the legal actions; a tree is
    kept across random replies (the tree reached them) but never across a draw of implicit chance
    (Harmonies' refills)."""
    game = meeple.load(name, **params)
    bot = MCTS(game, simulations=60, seed=7, threads=threads, reuse_tree=True)
    implicit = name == "harmonies" and params.get("chance", "implicit") == "implicit"
    kept_across = {"chance": 0, "no chance": 0}
    for seed in range(3):
        rng = random.Random(seed)
        bot.restart()
        state = game.new_initial_state(seed=seed)
        previous, since = None, []
        while not state.is_terminal() and state.move_number() < 120:
            if state.is_chance_node() or rng.random() < 0.5:
                since.append(choose_random(state, rng))
                state.apply_action(since[-1])
                continue
            action = bot.step(state)
            legal = {int(a) for a in state.legal_actions()}
            assert set(bot.last_visits) == legal and action in legal
            assert sum(bot.last_visits.values()) == bot.last_reused + 60 * threads
            if previous is None:
                assert bot.last_reused == 0  # after restart()
            else:
                if implicit:
                    drawn = not _draws_nothing(previous, since, state)
                else:
                    drawn = any(s.is_chance_node() for s in _positions(previous, since))
                if implicit and drawn:
                    assert bot.last_reused == 0
                kept_across["chance" if drawn else "no chance"] += bot.last_reused > 0
            previous, since = state.clone(), [action]
            state.apply_action(action)
    assert kept_across["no chance"] > 0
    if implicit:
        assert kept_across["chance"] == 0


def test_explicit_chance_outcomes_are_kept_through():
    """With explicit chance each outcome is a node of its own: after the turn's last move and the
    refill's draws (the likeliest outcome each time), the next player's search keeps the subtree
    of that outcome path (20,000 simulations through the one legal move: the path was reached)."""
    game = meeple.load("harmonies", chance="explicit")
    state, rng = game.new_initial_state(seed=1), random.Random(0)
    while state.is_chance_node() or not all(state.child(a).is_chance_node() for a in state.legal_actions()):
        state.apply_action(choose_random(state, rng))
    bot = MCTS(game, simulations=20_000, seed=4, reuse_tree=True)
    state.apply_action(bot.step(state))
    draws = 0
    while state.is_chance_node():
        state.apply_action(max(state.chance_outcomes(), key=lambda outcome: outcome[1])[0])
        draws += 1
    bot.step(state)
    assert draws >= 2 and bot.last_reused > 0


def _positions(start, actions):
    """The positions from `start` before each of `actions`."""
    state = start.clone()
    for action in actions:
        yield state.clone()
        state.apply_action(action)


def _uneven_refill():
    """Harmonies (2 players, implicit chance): a position whose only moves end the turn (or take
    a card), the central space emptied to be refilled from a pouch of 10 blue and 19 yellow
    tokens: few outcomes, so that many generators draw the same refill."""
    game = meeple.load("harmonies")
    state, rng = game.new_initial_state(seed=0), random.Random(0)
    while "end" not in map(state.action_to_string, state.legal_actions()) or state.to_dict()["turn_player"] != 0:
        state.apply_action(choose_random(state, rng))
    d = state.to_dict()
    cells = list(d["players"][0]["board"])
    stacks = ([["gray"] * 3] * 7 + [["gray"] * 2] + [["brown", "brown", "green"]] * 10 + [["brown", "green"]]
              + [["green"]] * 8 + [["red", "red"]] * 7 + [["red"], ["blue"]])
    for p in (0, 1):
        mine = stacks[18 * p: 18 * p + 18]
        d["players"][p].update(board={c: (mine[k] if k < len(mine) else []) for k, c in enumerate(cells)},
                               cubes=[], cards=[], turns=9)
        d["players"][p].pop("animals_done", None)
    used = [card for card in d["display"] if card]
    spare = sorted(set(range(1, 33)) - set(used))
    d["display"], d["deck"] = used + spare[:5 - len(used)], spare[5 - len(used):]
    d["central"] = [[], ["blue"] * 3, ["blue"] * 3, ["blue"] * 3, ["blue"] * 3]
    d["pouch"] = {"blue": 10, "gray": 0, "brown": 0, "green": 0, "yellow": 19, "red": 0}
    d.update(hand=[], took_tokens=True, took_card=False, end_triggered=False, turn_player=0)
    base = game.state_from_dict(d)
    return game, base, next(a for a in base.legal_actions() if base.action_to_string(a) == "end")


def test_a_tree_is_never_kept_across_a_draw_even_of_the_likeliest_refill():
    """Whichever refill the turn's end draws (of a handful), the next search starts over; a check
    that replays under other generators would keep it whenever they drew the same."""
    game, base, end = _uneven_refill()
    refills = set()
    for seed in range(12):
        root = base.clone()
        root.reseed(seed)
        bot = MCTS(game, simulations=200, seed=1, reuse_tree=True)
        bot.step(root)
        following = root.child(end)
        bot.step(following)
        assert bot.last_reused == 0
        refills.add(str(following.to_dict()["central"][0]))
    assert 1 < len(refills) < 12  # some generators drew alike


def test_a_transposition_keeps_the_most_visited_of_its_nodes():
    """Two placements of Harmonies in either order reach one position: the tree has a node for
    each order, and the one kept is the more visited. Each order's node's visits are read off bots
    with the same seed that follow only that order (one more simulation each time)."""
    game = meeple.load("harmonies")
    checked = 0
    for seed in range(40):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while not state.to_dict()["hand"]:
            state.apply_action(choose_random(state, rng))

        def searched():
            bot = MCTS(game, simulations=5000, seed=5, reuse_tree=True)
            bot.step(state)
            return bot
        top = sorted(searched().last_visits.items(), key=lambda item: -item[1])[:6]
        pairs = [(x, y) for x, _ in top for y, _ in top if x < y and y in state.child(x).legal_actions()
                 and x in state.child(y).legal_actions() and state.child(x).child(y) == state.child(y).child(x)]
        if not pairs:
            continue
        x, y = pairs[0]
        by_order = []
        for first, second in ((x, y), (y, x)):
            bot = searched()
            bot.simulations = 1
            bot.step(state.child(first))
            bot.step(state.child(first).child(second))
            by_order.append(bot.last_reused - 1)
        direct = searched()
        direct.simulations = 1
        direct.step(state.child(x).child(y))
        if by_order[0] != by_order[1]:
            assert direct.last_reused >= max(by_order), by_order
            checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_pickled_and_copied_bots_start_their_own_trees():
    import copy
    import pickle

    game = meeple.load("abacuachego")
    state = game.new_initial_state()
    bot = MCTS(game, simulations=30, seed=1, reuse_tree=True)
    bot.step(state)
    for twin in (pickle.loads(pickle.dumps(bot)), copy.copy(bot), copy.deepcopy(bot)):
        assert twin.reuse_tree and twin.simulations == 30
        twin.step(state)
        assert twin.last_reused == 0
    bot.step(state)
    assert bot.last_reused == 30  # the original's tree, untouched by its copies


def test_a_new_evaluator_drops_the_trees():
    """A new network's search does not go on from the priors and values of the old one."""
    game = meeple.load("abacuachego")
    state = game.new_initial_state()
    uniform = np.ones(game.num_distinct_actions())
    bot = MCTS(game, simulations=30, seed=1, evaluator=lambda s: (uniform, np.zeros(2)), reuse_tree=True)
    bot.step(state)
    bot.step(state)
    assert bot.last_reused == 30
    bot.evaluator = lambda s: (uniform, np.array([0.5, -0.5]))
    bot.step(state)
    assert bot.last_reused == 0
    bot.search_many([state])
    assert bot.search_many([state])[0].reused == 30


def test_restart_and_a_failed_search_drop_the_tree():
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=0)
    bot = MCTS(game, simulations=50, seed=1, reuse_tree=True)
    bot.step(state)
    bot.restart()
    bot.step(state)
    assert bot.last_reused == 0
    bot.step(state)
    assert bot.last_reused == 50

    calls = []

    def failing(s):
        calls.append(s)
        if len(calls) == 70:  # in the second search
            raise RuntimeError("network down")
        return np.ones(game.num_distinct_actions()), np.zeros(2)

    guided = MCTS(game, simulations=50, seed=1, evaluator=failing, reuse_tree=True)
    guided.step(state)
    with pytest.raises(RuntimeError, match="network down"):
        guided.step(state)
    guided.step(state)
    assert guided.last_reused == 0  # the stopped search's tree, half backed up, was not kept


def test_a_bot_that_keeps_its_tree_searches_one_position_at_a_time():
    """A search started from inside the bot's own evaluator is refused (the tree is in use); the
    outer search then raises that error, and the bot still works."""
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=0)
    bot = None

    def reentrant(s):
        bot.step(s)
        return np.ones(game.num_distinct_actions()), np.zeros(2)

    bot = MCTS(game, simulations=20, seed=1, evaluator=reentrant, reuse_tree=True)
    with pytest.raises(ValueError, match="searching already: it searches one position at a time"):
        bot.step(state)

    def restarting(s):
        bot.restart()
        return np.ones(game.num_distinct_actions()), np.zeros(2)
    bot.evaluator = restarting
    with pytest.raises(ValueError, match=r"restart\(\) while this MCTS bot is searching"):
        bot.search_many([state])
    bot.evaluator = lambda s: (np.ones(game.num_distinct_actions()), np.zeros(2))
    bot.step(state)
    bot.step(state)
    assert bot.last_reused == 20


@pytest.mark.parametrize("guided", [False, True])
def test_search_many_keeps_a_tree_for_each_place_in_its_list(guided):
    """Self-play of many games, each in its place of the list: the trees of search_many are kept
    apart from step's, one for each place, and a new game in a place starts over by itself."""
    game = meeple.load("abacuachego")
    evaluator = (lambda s: (np.ones(game.num_distinct_actions()), np.zeros(2))) if guided else None
    bot = MCTS(game, simulations=100, seed=2, evaluator=evaluator, reuse_tree=True)
    a, b = game.new_initial_state(), game.new_initial_state()
    rng = random.Random(0)
    for _ in range(20):  # a position no tree of a reaches
        b.apply_action(choose_random(b, rng))
    bot.step(a)
    assert [r.reused for r in bot.search_many([a, b])] == [0, 0]
    bot.step(a)
    assert bot.last_reused == 100  # step's tree, not search_many's
    assert [r.reused for r in bot.search_many([b, a, a])] == [0, 0, 0]  # a place's position changed
    assert [r.reused for r in bot.search_many([b, a])] == [100, 100]
    states = [game.new_initial_state(seed=seed) for seed in range(4)]
    kept = []
    for ply in range(30):
        results = bot.search_many(states)
        kept += [r.reused for r in results]
        for k, result in enumerate(results):
            states[k].apply_action(result.action)
            if states[k].is_terminal() or ply == 10 + k:
                states[k] = game.new_initial_state(seed=10 + ply)  # a new game in place k
    assert sum(r > 0 for r in kept) > 0.8 * len(kept) and 0 in kept[4:]


@pytest.mark.parametrize("guided", [False, True])
def test_search_many_places_may_be_empty(guided):
    """None in search_many's list: an empty place (a game over), None back; the other places are
    searched as without it (the same seeds, drawn for the states only), and with reuse_tree the
    empty place's tree is dropped."""
    game = meeple.load("imperial_harvest")
    evaluator = (lambda s: (np.ones(game.num_distinct_actions()), np.zeros(2))) if guided else None
    a, b = game.new_initial_state(seed=0), game.new_initial_state(seed=1)
    with_gap = MCTS(game, simulations=30, seed=3, evaluator=evaluator).search_many([a, None, b, None])
    plain = MCTS(game, simulations=30, seed=3, evaluator=evaluator).search_many([a, b])
    assert with_gap[1] is None and with_gap[3] is None
    assert [(r.action, r.visits, r.values) for r in (with_gap[0], with_gap[2])] == \
        [(r.action, r.visits, r.values) for r in plain]
    bot = MCTS(game, simulations=30, seed=3, evaluator=evaluator, reuse_tree=True)
    assert [r.reused for r in bot.search_many([a, b])] == [0, 0]
    again = bot.search_many([a, None])
    assert again[0].reused == 30 and again[1] is None
    assert [r.reused for r in bot.search_many([a, b])] == [60, 0]  # b's place was emptied
    assert bot.search_many([None, None]) == [None, None] and bot.search_many([]) == []
    with pytest.raises(TypeError, match=r"states\[1\]"):
        bot.search_many([a, "b"])


def test_changed_settings_leave_a_consistent_tree():
    game = meeple.load("imperial_harvest")
    state = game.new_initial_state(seed=0)
    bot = MCTS(game, simulations=40, seed=1, reuse_tree=True)
    bot.step(state)
    bot.step(state)
    assert bot.last_reused == 40
    bot.threads = 2  # other trees: started over
    bot.step(state)
    assert bot.last_reused == 0 and sum(bot.last_visits.values()) == 80
    bot.step(state)
    assert bot.last_reused == 80
    bot.simulations = 10
    bot.step(state)
    assert bot.last_reused == 160 and sum(bot.last_visits.values()) == 180
    bot.evaluator = lambda s: (np.ones(game.num_distinct_actions()), np.zeros(game.num_players()))
    bot.threads = 1
    bot.step(state)  # an evaluator's tree: started over
    assert bot.last_reused == 0 and sum(bot.last_visits.values()) == 10
    with pytest.raises(TypeError, match="reuse_tree must be True or False"):
        MCTS(game, reuse_tree="yes")
    assert "reuse_tree=True" in repr(bot)


@pytest.mark.parametrize("name, params", VARIANTS)
def test_bots_that_keep_their_trees_play_whole_games(name, params):
    """play_game restarts the bots before each game: a tree never outlives its game."""
    game = meeple.load(name, **params)
    bots = [MCTS(game, simulations=30, seed=seat, reuse_tree=True) for seat in range(game.num_players())]
    for seed in range(2):
        record = play_game(game, bots, seed=seed)
        assert len(record.actions) > 0
