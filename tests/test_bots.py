"""meeple.bots: the Bot protocol, the random bot, bot specs and the game-playing helpers."""
from __future__ import annotations

import copy
import pickle
import random
import re
import textwrap

import numpy as np
import pytest

import meeple
from meeple.bots import (BaseBot, Bot, BotError, Match, Random, choose_action, derive_seed, make_bot,
                         parse_bot_specs, play_game, play_games, sample_chance)

ABACUACHEGO = meeple.load("abacuachego")


class Recorder(BaseBot):
    """Plays the first legal action and remembers every hook call."""

    def __init__(self):
        self.restarts = 0
        self.informed: list[tuple[int, int, int]] = []  # (move_number before, player, action)

    def step(self, state):
        return int(state.legal_actions()[0])

    def restart(self):
        self.restarts += 1

    def inform_action(self, state, player, action):
        self.informed.append((state.move_number(), player, action))


class Returns(BaseBot):
    """Returns a fixed value from step, whatever the state."""

    def __init__(self, value):
        self.value = value

    def step(self, state):
        return self.value


# --- a protocol-shaped toy with an explicit chance node -------------------------------------

class CoinGame:
    """A coin is tossed (chance node), then the single player guesses it: +1 if right, -1 if not."""

    name = "coin"

    def num_players(self):
        return 1

    def parameters(self):
        return {}

    def new_initial_state(self, seed=None):
        return CoinState()


class CoinState:
    def __init__(self):
        self.coin = None
        self.guess = None

    def is_terminal(self):
        return self.guess is not None

    def is_chance_node(self):
        return self.coin is None

    def current_player(self):
        return meeple.TERMINAL if self.is_terminal() else meeple.CHANCE if self.is_chance_node() else 0

    def chance_outcomes(self):
        return [(0, 0.5), (1, 0.5)] if self.is_chance_node() else []

    def legal_actions(self):
        return [] if self.is_terminal() else [0, 1]

    def clone(self):
        return copy.copy(self)

    def apply_action(self, action):
        if self.is_chance_node():
            self.coin = action
        else:
            self.guess = action

    def returns(self):
        return [(1.0 if self.guess == self.coin else -1.0) if self.is_terminal() else 0.0]

    def action_to_string(self, action):
        return "heads" if action == 0 else "tails"


class Cheat(BaseBot):
    """Guesses the coin it was told about."""

    def inform_action(self, state, player, action):
        assert player == meeple.CHANCE and state.is_chance_node()
        self.coin = action

    def step(self, state):
        return self.coin


# --- the protocol and the random bot ---------------------------------------------------------

def test_bot_protocol_is_runtime_checkable():
    assert isinstance(Random(), Bot)
    assert isinstance(Recorder(), Bot)
    assert not isinstance(object(), Bot)


def test_base_bot_hooks_do_nothing():
    bot = BaseBot()
    assert bot.restart() is None
    assert bot.inform_action(ABACUACHEGO.new_initial_state(), 0, 4) is None
    with pytest.raises(NotImplementedError):
        bot.step(ABACUACHEGO.new_initial_state())


def test_random_is_legal_and_reproducible(case):
    first = play_game(case.load(), [Random(seed=5) for _ in range(case.load().num_players())], seed=3)
    again = play_game(case.load(), [Random(seed=5) for _ in range(case.load().num_players())], seed=3)
    assert first.actions == again.actions
    assert first.replay().is_terminal()


def test_random_refuses_a_finished_game():
    state = ABACUACHEGO.new_initial_state()
    while not state.is_terminal():
        state.apply_action(int(state.legal_actions()[0]))
    with pytest.raises(ValueError, match="the game is over"):
        Random(seed=0).step(state)


def test_random_covers_every_legal_action():
    state = ABACUACHEGO.new_initial_state()
    bot = Random(seed=0)
    chosen = {bot.step(state) for _ in range(2000)}
    assert chosen == {int(a) for a in state.legal_actions()}
    assert all(type(a) is int for a in chosen)


# --- specs -----------------------------------------------------------------------------------

def test_make_bot_random():
    state = ABACUACHEGO.new_initial_state()
    a, b = make_bot("random", ABACUACHEGO, seed=9), make_bot(" random ", ABACUACHEGO, seed=9)
    assert isinstance(a, Random)
    assert [a.step(state) for _ in range(50)] == [b.step(state) for _ in range(50)]


@pytest.mark.parametrize("spec, message", [
    ("random:3", "takes no argument"),
    ("mcts:many", "takes a number of simulations"),
    ("mcts:0", "simulations must be an int in 1.."),
    ("mcts:10:depth=3", "options are c=C, threads=T, evaluator=module.path:function, batch=B, dirichlet_alpha=A, "
                        "dirichlet_fraction=F and reuse_tree=1"),
    ("mcts:10:reuse_tree=maybe", "option reuse_tree must be 1 or 0 (true or false), got 'maybe'"),
    ("mcts:10:c", "options are c=C, threads=T, evaluator"),
    ("mcts:10:c=1:c=2", "option c given twice"),
    ("mcts:10:c=wide", "option c must be a number, got 'wide'"),
    ("mcts:10:threads=1.5", "option threads must be an int, got '1.5'"),
    ("mcts:10:c=nan", "c must be a finite number"),
    ("mcts:10:c=-1", "c must be a finite number"),
    ("mcts:10:threads=0", "threads must be an int in 1.."),
    ("nope", "unknown bot 'nope'; expected one of: random, mcts:ITERATIONS[:c=C][:threads=T][:reuse_tree=1]"
             "[:evaluator=module.path:function[:batch=B][:dirichlet_alpha=A[:dirichlet_fraction=F]]], "
             "module.path:ClassName"),
    ("mcts:10:dirichlet_alpha=0.3", "give evaluator= too"),
    ("mcts:10:evaluator=evaluators:uniform:dirichlet_alpha=x", "option dirichlet_alpha must be a number, got 'x'"),
    ("mcts:10:evaluator=evaluators:uniform:dirichlet_alpha=0.3:dirichlet_fraction=2", "dirichlet_fraction must be"),
    ("mcts:10:evaluator=evaluators:uniform:dirichlet_fraction=0.5", "give dirichlet_alpha too"),
    ("mcts:10:batch=4", "give evaluator= too"),
    ("mcts:10:evaluator=evaluators:uniform_batch:batch=many", "option batch must be an int, got 'many'"),
    ("mcts:10:evaluator=evaluators", "evaluator must be given as module.path:name, got 'evaluators'"),
    ("mcts:10:evaluator=evaluators:nope", "evaluator 'evaluators:nope': 'evaluators' has no attribute 'nope'"),
    ("mcts:10:evaluator=no_such_module_xyz:f", "cannot import module 'no_such_module_xyz' for evaluator"),
    ("mcts:10:evaluator=evaluators:NOT_CALLABLE", "'NOT_CALLABLE' is not a class or function"),
    ("mcts:10:evaluator=evaluators:uniform:threads=2", "threads must be 1"),
    ("mcts:10:evaluator=evaluators:uniform:evaluator=evaluators:uniform", "option evaluator given twice"),
    ("", "unknown bot"),
    ("a b:C", "unknown bot"),
    ("no_such_module_xyz:Bot", "cannot import module 'no_such_module_xyz'"),
    ("meeple.bots:NoSuchBot", "has no attribute 'NoSuchBot'"),
    ("meeple:__version__", "is not a class or function"),
])
def test_make_bot_errors(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make_bot(spec, ABACUACHEGO, seed=0)


def test_make_bot_mcts_options():
    bot = make_bot("mcts:50:c=0.5:threads=2", ABACUACHEGO, seed=1)
    assert isinstance(bot, meeple.bots.MCTS) and (bot.simulations, bot.c, bot.threads) == (50, 0.5, 2)
    assert bot.evaluator is None
    spaced = parse_bot_specs(" mcts: 50 : threads=2 : c = 0.5 ", 1)[0]
    other = make_bot(spaced, ABACUACHEGO, seed=1)
    assert (other.simulations, other.c, other.threads) == (50, 0.5, 2)
    assert vars(make_bot("mcts:7", ABACUACHEGO)).items() >= {"c": 1.4, "threads": 1, "simulations": 7}.items()
    state = ABACUACHEGO.new_initial_state()
    assert bot.step(state) == other.step(state) and sum(bot.last_visits.values()) == 100
    assert not bot.reuse_tree
    for flag, expected in (("1", True), ("True", True), ("yes", True), ("0", False), ("false", False)):
        assert make_bot(f"mcts:50:reuse_tree={flag}", ABACUACHEGO).reuse_tree is expected


def test_make_bot_mcts_with_an_evaluator_by_name():
    """evaluator=module:function (before or after other options) makes the search PUCT with it: the
    same search as the bot made in Python, and selfplay's spawned workers make it too."""
    import evaluators

    state = ABACUACHEGO.new_initial_state(seed=3)
    for spec in ("mcts:60:evaluator=evaluators:one_random_game:c=2",
                 "mcts:60:c=2:evaluator = evaluators:one_random_game "):
        by_hand = meeple.bots.MCTS(ABACUACHEGO, simulations=60, c=2.0, seed=1, evaluator=evaluators.one_random_game)
        bot = make_bot(spec, ABACUACHEGO, seed=1)
        assert bot.evaluator is evaluators.one_random_game and bot.c == 2.0
        assert bot.step(state) == by_hand.step(state) and bot.last_visits == by_hand.last_visits
    batched = make_bot("mcts:60:evaluator=evaluators:uniform_batch:batch=8", ABACUACHEGO, seed=1)
    assert (batched.evaluator, batched.batch) == (evaluators.uniform_batch, 8) and batched.step(state) >= 0
    noisy = make_bot("mcts:60:evaluator=evaluators:uniform:dirichlet_alpha=0.5:dirichlet_fraction=0.4", ABACUACHEGO,
                     seed=1)
    by_hand = meeple.bots.MCTS(ABACUACHEGO, simulations=60, seed=1, evaluator=evaluators.uniform, dirichlet_alpha=0.5,
                               dirichlet_fraction=0.4)
    assert noisy.step(state) == by_hand.step(state) and noisy.last_priors == by_hand.last_priors
    match = Match(ABACUACHEGO, ("mcts:30:evaluator=evaluators:uniform", "random"), seed=4)
    alone = [match.play(i).actions for i in range(2)]
    assert [r.actions for r in play_games(match, range(2), workers=2)] == alone


@pytest.fixture
def user_bots(tmp_path, monkeypatch):
    """An importable module `user_bots_mod` with bots of every constructor shape."""
    (tmp_path / "user_bots_mod.py").write_text(textwrap.dedent("""
        from meeple.bots import BaseBot

        class WithGame(BaseBot):
            def __init__(self, game, seed=None):
                self.game, self.seed = game, seed
            def step(self, state):
                return int(state.legal_actions()[-1])

        class SeedOnly(BaseBot):
            def __init__(self, seed=None):
                self.seed = seed
            def step(self, state):
                return int(state.legal_actions()[0])

        class GameOnly(BaseBot):
            def __init__(self, game):
                self.game = game
            def step(self, state):
                return int(state.legal_actions()[0])

        class Depth(BaseBot):  # settings with defaults: the game must not land in one
            def __init__(self, depth=2):
                self.depth = depth
            def step(self, state):
                return int(state.legal_actions()[0])

        class PositionalSeed(BaseBot):  # a seed it takes only by position: not made without it
            def __init__(self, game, seed=None, /):
                self.seed = seed
            def step(self, state):
                return int(state.legal_actions()[0])

        class NoArgs:
            def step(self, state):
                return int(state.legal_actions()[0])

        class NeedsMore:
            def __init__(self, game, depth):
                pass
            def step(self, state):
                return 0

        class NotABot:
            pass

        def factory(game, seed=None):
            return WithGame(game, seed)

        class Outer:
            class Inner(NoArgs):
                pass
    """))
    (tmp_path / "broken_bots_mod.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_make_bot_imports_user_bots(user_bots):
    bot = make_bot("user_bots_mod:WithGame", ABACUACHEGO, seed=7)
    assert bot.game is ABACUACHEGO and bot.seed == 7
    assert make_bot("user_bots_mod:SeedOnly", ABACUACHEGO, seed=8).seed == 8
    assert make_bot("user_bots_mod:GameOnly", ABACUACHEGO, seed=8).game is ABACUACHEGO  # was refused
    assert make_bot("user_bots_mod:Depth", ABACUACHEGO, seed=8).depth == 2
    assert type(make_bot("user_bots_mod:NoArgs", ABACUACHEGO, seed=8)).__name__ == "NoArgs"
    assert make_bot("user_bots_mod:factory", ABACUACHEGO, seed=3).seed == 3
    assert type(make_bot("user_bots_mod:Outer.Inner", ABACUACHEGO)).__name__ == "Inner"
    assert isinstance(make_bot("meeple.bots:Random", ABACUACHEGO, seed=1), Random)


@pytest.mark.parametrize("spec, message", [
    ("user_bots_mod:NeedsMore", "cannot be called as"),
    ("user_bots_mod:PositionalSeed", "cannot be called as"),
    ("user_bots_mod:NotABot", "has no step"),
    ("broken_bots_mod:Bot", "RuntimeError: boom"),
])
def test_make_bot_rejects_bad_user_bots(user_bots, spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec, ABACUACHEGO)


def test_parse_bot_specs():
    assert parse_bot_specs("random", 3) == ["random"] * 3
    assert parse_bot_specs(" random , mod:Bot ", 2) == ["random", "mod:Bot"]
    assert parse_bot_specs("random", 0) == []
    with pytest.raises(ValueError, match=r"expected 1 bot spec \(for every seat\) or 2 \(one per seat\), got 3"):
        parse_bot_specs("random,random,random", 2)
    with pytest.raises(ValueError, match="empty bot spec"):
        parse_bot_specs("random,,random", 3)


# --- playing ---------------------------------------------------------------------------------

def test_play_game_record_replays(case):
    game = case.load()
    record = play_game(game, [Random(seed=p) for p in range(game.num_players())], seed=11, meta={"x": 1})
    final = record.replay()
    assert final.is_terminal()
    assert record.returns == [float(r) for r in final.returns()]
    assert (record.game, record.parameters, record.seed, record.meta) == (game.name, game.parameters(), 11,
                                                                          {"x": 1})
    assert len(record.actions) == final.move_number()
    assert meeple.Record.from_json(record.to_json()) == record


@pytest.mark.parametrize("name", ["abacuachego", "harmonies", "imperial_harvest"])
def test_records_of_reference_games_replay_with_the_engine(name):
    """Record.replay replays with the engine. The reference's implicit chance draws other outcomes
    from a seed, so its records would not replay (they raised "cannot be replayed" when read
    back): play_game and Match refuse it; with explicit chance the record replays to the same end."""
    reference = pytest.importorskip("meeple.reference")
    explicit = {"chance": "explicit"} if name == "harmonies" else {}
    game = reference.load(name, **explicit)
    seats = game.num_players()
    record = play_game(game, [Random(seed=p) for p in range(seats)], seed=5)
    final = meeple.Record.from_json(record.to_json()).replay()  # the engine's
    played = game.new_initial_state(seed=5)
    for action in record.actions:
        played.apply_action(action)
    assert final.to_dict() == played.to_dict() and [float(r) for r in final.returns()] == record.returns
    if name == "harmonies":
        implicit = reference.load(name)
        with pytest.raises(ValueError, match="reference's harmonies with implicit chance would not replay"):
            play_game(implicit, [Random(seed=p) for p in range(seats)], seed=5)
        with pytest.raises(ValueError, match="load it with chance='explicit'"):
            Match(implicit, ("random", "random"), seed=0)


def test_play_game_calls_the_hooks():
    bots = [Recorder(), Recorder()]
    record = play_game(ABACUACHEGO, bots, seed=0)
    assert [b.restarts for b in bots] == [1, 1]
    state = ABACUACHEGO.new_initial_state(seed=0)
    expected: list[list[tuple[int, int, int]]] = [[], []]
    for action in record.actions:
        player = state.current_player()
        expected[1 - player].append((state.move_number(), player, action))
        state.apply_action(action)
    assert [b.informed for b in bots] == expected


def test_play_game_accepts_a_game_string():
    record = play_game("abacuachego(pits_per_row=4)", [Random(1), Random(2)], seed=0)
    assert record.parameters["pits_per_row"] == 4


def test_play_game_checks_the_bots():
    with pytest.raises(ValueError, match="needs 2 bots, got 1"):
        play_game(ABACUACHEGO, [Random()])
    with pytest.raises(ValueError, match="chose illegal action 8"):
        play_game(ABACUACHEGO, [Returns(8), Random()])  # 8 = 5cw: 5 grains in pit 5 cannot go cw
    with pytest.raises(ValueError, match="not an action number"):
        play_game(ABACUACHEGO, [Returns("3cw"), Random()])
    with pytest.raises(ValueError, match="not an action number"):
        play_game(ABACUACHEGO, [Returns(True), Random()])
    assert choose_action(Returns(np.int64(4)), ABACUACHEGO.new_initial_state()) == 4


def test_play_game_samples_explicit_chance():
    records = [play_game(CoinGame(), [Cheat()], seed=s) for s in range(100)]
    assert all(r.returns == [1.0] and len(r.actions) == 2 for r in records)
    assert {r.actions[0] for r in records} == {0, 1}
    assert [r.actions for r in records] == [play_game(CoinGame(), [Cheat()], seed=s).actions for s in range(100)]


def test_sample_chance_follows_the_probabilities():
    class Loaded(CoinState):
        def chance_outcomes(self):
            return [(0, 0.0), (1, 0.25), (7, 0.75)]

    rng = random.Random(0)
    draws = [sample_chance(Loaded(), rng) for _ in range(4000)]
    assert set(draws) == {1, 7}
    assert 0.7 < draws.count(7) / len(draws) < 0.8


def test_derive_seed():
    seeds = {derive_seed(0, i) for i in range(1000)} | {derive_seed(1, i) for i in range(1000)}
    assert len(seeds) == 2000
    assert all(0 <= s < 2**64 for s in seeds)
    assert derive_seed(5, 3) == derive_seed(5, 3) != derive_seed(5, 3, 0)


def test_match_is_the_same_in_any_process():
    match = Match(ABACUACHEGO, ("random", "random"), seed=4)
    serial = list(play_games(match, range(6)))
    assert [r.meta for r in serial] == [{"bots": ["random", "random"], "index": i} for i in range(6)]
    assert [r.seed for r in serial] == [match.game_seed(i) for i in range(6)]
    assert list(play_games(match, range(6), workers=2)) == serial
    assert match.play(3) == serial[3]
    assert len({tuple(r.actions) for r in serial}) == 6


# --- bots that fail --------------------------------------------------------------------------

def test_a_failing_bot_is_a_bot_error_naming_it():
    from misbehaving_bots import Boom, ChangesTheState, Illegal

    with pytest.raises(BotError, match=r"bot .*Illegal.* \(seat 0\) failed at move 0: chose illegal action "
                                       r"1000000; legal: 1cw, ") as info:
        play_game(ABACUACHEGO, [Illegal(), Random(seed=0)])
    assert isinstance(info.value, ValueError) and (info.value.seat, info.value.move) == (0, 0)
    with pytest.raises(BotError, match=r"\(seat 1\) failed at move \d+: RuntimeError: boom") as info:
        play_game(ABACUACHEGO, [Random(seed=0), Boom()])
    assert isinstance(info.value.__cause__, RuntimeError)
    record = play_game(ABACUACHEGO, [ChangesTheState(), Random(seed=1)], seed=2)  # it changed only a copy
    assert record.replay().is_terminal() and record.returns == record.replay().returns().tolist()
    with pytest.raises(BotError, match=r"^game 0: bot 'misbehaving_bots:Illegal' \(seat 0\) failed at move 0: "
                                       r"chose illegal action 1000000"):
        Match(ABACUACHEGO, ("misbehaving_bots:Illegal", "random")).play(0)
    error = pickle.loads(pickle.dumps(BotError("message", 1, 2, "detail")))  # from worker processes
    assert (str(error), error.seat, error.move, error.detail) == ("message", 1, 2, "detail")
    with pytest.raises(ValueError, match="could not be made: TypeError: my constructor bug"):
        make_bot("misbehaving_bots:BrokenConstructor", ABACUACHEGO, seed=0)
    with pytest.raises(TypeError, match=r"\(seat 1\) has no step\(state\) method"):
        play_game(ABACUACHEGO, [Random(), object()])


def test_match_checks_its_arguments():
    assert Match("abacuachego", ("random", "random")).game == ABACUACHEGO
    assert Match(ABACUACHEGO, ["random", "random"]).bots == ("random", "random")
    for bots, error in (("random", TypeError), (("random", 3), TypeError), (("random",), ValueError)):
        with pytest.raises(error, match="bot"):
            Match(ABACUACHEGO, bots)
    for seed, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError), (None, TypeError)):
        with pytest.raises(error, match="seed"):
            Match(ABACUACHEGO, ("random", "random"), seed=seed)
    with pytest.raises(ValueError, match="game index"):
        Match(ABACUACHEGO, ("random", "random")).play(-1)


class _Searcher(BaseBot):
    """Plays the first legal action and exposes `last_visits` as given (a callable of the state)."""

    def __init__(self, visits):
        self.visits = visits
        self.last_visits = None

    def step(self, state):
        self.last_visits = self.visits(state)
        return int(state.legal_actions()[0])


@pytest.mark.parametrize("visits, words", [
    (lambda state: [(0, 1)], "last_visits must map actions to visit counts, got list"),
    (lambda state: {-1: 3}, "a last_visits action must be an int in 0.."),
    (lambda state: {int(state.legal_actions()[0]): -2}, "must be an int in 0.."),
    (lambda state: {int(state.legal_actions()[0]): 2.5}, "must be an int, got float"),
    (lambda state: {1000: 4}, "names action 1000, not legal here (a stale search?)"),
])
def test_a_user_bots_malformed_search_is_a_bot_error_with_policies(visits, words):
    """With policies, a user bot's `last_visits` is recorded only if it maps legal actions to
    visit counts; anything else names the bot and the problem. Without policies it is not read."""
    game = meeple.load("abacuachego")
    with pytest.raises(BotError, match=re.escape(words)) as info:
        play_game(game, [_Searcher(visits), Random(seed=1)], seed=2, policies=True)
    assert info.value.seat == 0 and info.value.move == 0
    play_game(game, [_Searcher(visits), Random(seed=1)], seed=2)


def test_a_user_bots_search_is_recorded_with_policies():
    game = meeple.load("abacuachego")
    record = play_game(game, [_Searcher(lambda state: {int(a): 1 + int(a) for a in state.legal_actions()}),
                              Random(seed=1)], seed=2, policies=True)
    legal = game.new_initial_state(seed=2).legal_actions().tolist()
    assert record.meta["policies"][0] == [[a, 1 + a] for a in legal]


def test_helpers_refuse_bad_arguments_at_the_call():
    """Each names the problem when called (play_games used to fail only at its first game, with a
    TypeError from a comparison, and took workers=0 or -1 for one process)."""
    match = Match(ABACUACHEGO, ["random", "random"], seed=0)
    for workers, error in (("2", TypeError), (0, ValueError), (-1, ValueError), (2.0, TypeError)):
        with pytest.raises(error, match="workers"):
            play_games(match, range(2), workers=workers)
    with pytest.raises(TypeError, match="bot spec must be a str"):
        make_bot(5, ABACUACHEGO)
    with pytest.raises(ValueError, match="not a chance node"):
        sample_chance(ABACUACHEGO.new_initial_state(), random.Random(0))
    # None would have drawn explicit chance from the system's entropy: a different game each time.
    with pytest.raises(TypeError, match="seed"):
        play_game(ABACUACHEGO, [Random(1), Random(2)], seed=None)
