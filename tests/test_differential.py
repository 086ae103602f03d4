"""The C++ engine against the pure-Python reference (tests/differential.py), per game and variant.

- `test_differential_random_games[...]`: `entry.differential_games` (10,000) seeded random games per
  variant, seeds 0..n-1 (a variant may set its own count and first seed), compared at every ply.
  Marked `slow`; four tests per variant (seeds k, k+4, ...) so `pytest -n 2` spreads them evenly.
  MEEPLE_DIFFERENTIAL_GAMES=n overrides the count (local runs, the nightly soak);
  MEEPLE_DIFFERENTIAL_SEED_OFFSET=k moves the seeds by k (tests/differential.py).
- `test_differential_smoke[...]`: `entry.differential_smoke_games` other seeds per variant, not slow.
- `test_state_from_dict_agrees`: damaged/altered state dicts are accepted or rejected alike, and
  accepted ones play on identically (this reaches positions random play rarely does).
"""
from __future__ import annotations

import json
import os
import random
import re
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

reference = pytest.importorskip("meeple.reference")

import meeple  # noqa: E402
from differential import (MAX_SEED_OFFSET, SEED_OFFSET_VARIABLE, Mismatch, _same_observation,  # noqa: E402
                          play_side_by_side, run_games, seed_offset)
from games import cases, choose_random, random_game  # noqa: E402
from json_mutation import mutated_document  # noqa: E402

DIFF_CASES = [c for c in cases() if c.variant.differential and c.name in reference.list_games()]
IDS = [c.id for c in DIFF_CASES]
SMOKE_START = 1_000_000  # smoke seeds are disjoint from the slow test's 0..n-1


def test_every_game_has_a_reference():
    missing = [n for n in meeple.list_games() if n not in reference.list_games()]
    assert not missing, f"no meeple.reference implementation for {missing}"


SHARDS = 4  # each variant's seeds in 4 interleaved parts, so `pytest -n` can balance the long ones


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS), ids=[f"part{k + 1}of{SHARDS}" for k in range(SHARDS)])
@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_differential_random_games(case, shard):
    n = int(os.environ.get("MEEPLE_DIFFERENTIAL_GAMES",
                           case.variant.differential_games or case.entry.differential_games))
    first = case.variant.differential_first_seed + seed_offset()
    seeds = range(first + shard, first + n, SHARDS)  # the parts together: seeds first..first+n-1
    stats = run_games(case.name, case.params, seeds)
    assert stats["games"] == len(seeds)


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_differential_smoke(case):
    run_games(case.name, case.params, range(SMOKE_START, SMOKE_START + case.entry.differential_smoke_games))


# The largest seeds a soak run with the largest offset reaches: both implementations take 64-bit seeds.
TOP_SEEDS = range(MAX_SEED_OFFSET + 10**6, MAX_SEED_OFFSET + 10**6 + 3)


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_differential_top_seeds(case):
    run_games(case.name, case.params, TOP_SEEDS)


@pytest.mark.parametrize("text, offset", [(None, 0), ("", 0), (" 0 ", 0), ("12345", 12345),
                                          (str(MAX_SEED_OFFSET), MAX_SEED_OFFSET)])
def test_seed_offset(monkeypatch, text, offset):
    if text is None:
        monkeypatch.delenv(SEED_OFFSET_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(SEED_OFFSET_VARIABLE, text)
    assert seed_offset() == offset


@pytest.mark.parametrize("text", ["-1", "1.5", "x", str(MAX_SEED_OFFSET + 1)])
def test_seed_offset_refuses(monkeypatch, text):
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, text)
    with pytest.raises(ValueError, match=f"{SEED_OFFSET_VARIABLE} must be an int in 0..{MAX_SEED_OFFSET}"):
        seed_offset()


def _harmonies_hoarder(state, legal, rng):
    """A Harmonies policy that keeps cells empty: it takes and completes cards when it can and
    places tokens on stacks rather than on empty cells. Random play fills a board first and almost
    never runs the pouch out (1 game in 300 with 4 players); with 4 players this policy does in
    nearly every game."""
    names = {a: state.action_to_string(a) for a in legal}
    cards = [a for a in legal if names[a].startswith(("card", "cube"))]
    if cards and rng.random() < 0.9:
        return rng.choice(cards)
    places = [a for a in legal if names[a].startswith("place")]
    if places:
        board = state.to_dict()["players"][state.current_player()]["board"]
        stacked = [a for a in places if board[names[a].split()[-1]]]  # "place green 2,1": cell 2,1
        if stacked and rng.random() < 0.95:
            return rng.choice(stacked)
    return legal[rng.randrange(len(legal))]


@pytest.mark.slow
@pytest.mark.parametrize("side", ["A", "B"])
def test_differential_harmonies_pouch_runs_out(side):
    """The end by an empty pouch (point 16, D3, D9), refills skipped, the round finished after it:
    4-player games played by `_harmonies_hoarder`, compared at every ply like the random ones."""
    params = {"players": 4, "side": side, "spirits": side == "A", "chance": "explicit"}
    engine, ref = meeple.load("harmonies", **params), reference.load("harmonies", **params)
    games, pouch_ends, first = 100, 0, seed_offset()
    for seed in range(first, first + games):
        state = engine.new_initial_state(seed=seed)
        play_side_by_side(engine, ref, seed, engine_state=state, reference_state=ref.new_initial_state(seed=seed),
                          chooser=_harmonies_hoarder)
        pouch_ends += sum(state.to_dict()["pouch"].values()) < 3
    assert pouch_ends >= 0.8 * games, f"the pouch ran out in only {pouch_ends} of {games} games"


def _solo_first_decision(engine, seed):
    """The dict of a solo game's first decision (setup draws made with `rng`), and that `rng`."""
    state, rng = engine.new_initial_state(seed=seed), random.Random(seed)
    while state.is_chance_node():
        state.apply_action(choose_random(state, rng))
    return state.to_dict(), rng


def _compare_from_dict(engine, ref, seed, d, chooser=None):
    """play_side_by_side from the state dict `d` on both implementations; returns the engine's
    final state."""
    state = engine.state_from_dict(d)
    play_side_by_side(engine, ref, seed, engine_state=state, reference_state=ref.state_from_dict(d),
                      chooser=chooser)
    return state


def _solo_short_pouch(engine, seed):
    """The first decision of a solo game with the pouch cut to 0..20 tokens (solo games discard
    tokens, so a short pouch is a state of play): the refill after one of the next turns cannot
    fill the three spaces (D4)."""
    d, rng = _solo_first_decision(engine, seed)
    keep = rng.randint(0, 20)
    tokens = [colour for colour, n in d["pouch"].items() for _ in range(n)]
    d["pouch"] = {colour: 0 for colour in d["pouch"]}
    for colour in rng.sample(tokens, keep):
        d["pouch"][colour] += 1
    return d


@pytest.mark.parametrize("params", [{"side": "A"}, {"side": "B", "spirits": True}], ids=["A", "B-spirits"])
def test_differential_harmonies_solo_pouch_runs_out(params):
    """Solo games end when the pouch cannot refill all three spaces (D4); random solo games fill
    the board first (50 of 50 with a policy that stacks tokens, too). So they start short of
    tokens, built by `_solo_short_pouch`, and are compared at every ply."""
    params = {"players": 1, "chance": "explicit", **params}
    engine, ref = meeple.load("harmonies", **params), reference.load("harmonies", **params)
    games, pouch_ends = 300, 0
    for seed in range(games):
        state = _compare_from_dict(engine, ref, seed, _solo_short_pouch(engine, seed))
        pouch_ends += sum(state.to_dict()["pouch"].values()) < 9
    assert pouch_ends >= 0.8 * games, f"the pouch ran out in only {pouch_ends} of {games} games"


def _solo_short_deck(engine, seed):
    """The first decision of a solo game with the animal deck cut to 0..8 cards (solo games discard
    cards, so a short deck is a state of play): the deck runs out within a few turns, and the
    display is refilled short (D9) and then emptied."""
    d, rng = _solo_first_decision(engine, seed)
    d["deck"] = sorted(rng.sample(d["deck"], rng.randint(0, 8)))
    return d


@pytest.mark.parametrize("params", [{"side": "A"}, {"side": "B", "spirits": True}], ids=["A", "B-spirits"])
def test_differential_harmonies_solo_deck_runs_out(params):
    """The display refill stops when the deck is empty (point 14, D9): random games never empty
    the 32-card deck (a solo game lasts about 13 turns), so solo games start short of cards, built
    by `_solo_short_deck`, and are compared at every ply, also while display slots are empty:
    taking, discarding and the observation with slots empty."""
    params = {"players": 1, "chance": "explicit", **params}
    engine, ref = meeple.load("harmonies", **params), reference.load("harmonies", **params)
    games, decisions_with_empty_slots = 300, 0

    def chooser(state, legal, rng):
        nonlocal decisions_with_empty_slots
        decisions_with_empty_slots += None in state.to_dict()["display"]
        return legal[rng.randrange(len(legal))]

    for seed in range(games):
        _compare_from_dict(engine, ref, seed, _solo_short_deck(engine, seed), chooser)
    assert decisions_with_empty_slots >= 5 * games, f"{decisions_with_empty_slots} decisions with empty slots"


HARMONIES_CARDS = json.loads((resources.files("meeple") / "data" / "harmonies" / "cards.json").read_text())
CUBES_OF_CARD = ({c["id"]: len(c["points"]) for c in HARMONIES_CARDS["animal_cards"]}
                 | {c["id"]: 1 for c in HARMONIES_CARDS["spirit_cards"]})


def _multiplayer_short_deck(engine, seed):
    """A multiplayer position, 0..40 decisions in (every spirit chosen), with the animal deck cut to
    0..4 cards: the others went to the players who have played, up to 2 unfinished cards each (so
    cards are still taken) and the rest finished, their cubes on cells that hold a token (an empty
    cell gets one from the pouch; 6 empty cells are kept per board, so the game goes on). A card
    that fits on no board stays in the deck. Random games never empty the multiplayer deck: each
    card that leaves it must be finished or held, and random play finishes almost none."""
    state, rng = engine.new_initial_state(seed=seed), random.Random(seed)
    decisions = rng.randint(0, 40)
    while (state.is_chance_node() or decisions > 0
           or any(p["spirit_options"] for p in state.to_dict()["players"])):
        decisions -= not state.is_chance_node()
        state.apply_action(choose_random(state, rng))
    d = state.to_dict()
    leaving = rng.sample(d["deck"], len(d["deck"]) - rng.randint(0, 4))
    d["deck"] = sorted(set(d["deck"]) - set(leaving))
    players = [p for p in d["players"] if not p["spirit_options"]]
    for player in players:
        unfinished = sum(c["cubes_placed"] < CUBES_OF_CARD[c["id"]] for c in player["cards"])
        for _ in range(2 - unfinished):  # after the unfinished ones, as if taken now
            if leaving:
                player["cards"].insert(unfinished, {"id": leaving.pop(), "cubes_placed": 0})
                unfinished += 1
    pouch = [colour for colour, n in d["pouch"].items() for _ in range(n)]
    rng.shuffle(pouch)
    for k, card in enumerate(sorted(leaving, key=CUBES_OF_CARD.__getitem__)):  # fewest cubes first
        player = players[k % len(players)]
        board, need = player["board"], CUBES_OF_CARD[card]
        covered = [cell for cell in board if board[cell] and cell not in player["cubes"]]
        empty = [cell for cell in board if not board[cell]]
        if len(covered) + len(empty) - 6 < need:
            d["deck"] = sorted(d["deck"] + [card])
            continue
        cubes = rng.sample(covered, min(need, len(covered)))
        for cell in rng.sample(empty, need - len(cubes)):
            board[cell] = [pouch.pop()]
            d["pouch"][board[cell][0]] -= 1
            cubes.append(cell)
        player["cubes"] = [cell for cell in board if cell in player["cubes"] or cell in cubes]
        player["cards"].append({"id": card, "cubes_placed": need})
    for player in players:  # unfinished cards first (in order taken), then finished ones by id
        finished = sorted((c for c in player["cards"] if c["cubes_placed"] == CUBES_OF_CARD[c["id"]]),
                          key=lambda c: c["id"])
        player["cards"] = [c for c in player["cards"] if c not in finished] + finished
    return d


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 4, "side": "B", "spirits": True}],
                         ids=["3p-A", "4p-B-spirits"])
def test_differential_harmonies_multiplayer_deck_runs_out(params):
    """Point 14 and D9 with several players: the display is refilled while the deck has cards, then
    left short. Games start from `_multiplayer_short_deck` positions and are compared at every
    ply: refills cut short, cards taken from a display with empty slots, the observation then."""
    params = {"chance": "explicit", **params}
    engine, ref = meeple.load("harmonies", **params), reference.load("harmonies", **params)
    games, decisions_with_empty_slots, cards_taken_from_short_display = 150, 0, 0

    def chooser(state, legal, rng):
        nonlocal decisions_with_empty_slots, cards_taken_from_short_display
        action = legal[rng.randrange(len(legal))]
        if None in state.to_dict()["display"]:
            decisions_with_empty_slots += 1
            cards_taken_from_short_display += state.action_to_string(action).startswith("card ")
        return action

    for seed in range(games):
        _compare_from_dict(engine, ref, seed, _multiplayer_short_deck(engine, seed), chooser)
    assert decisions_with_empty_slots >= 5 * games, f"{decisions_with_empty_slots} decisions with empty slots"
    assert cards_taken_from_short_display >= games // 3, f"{cards_taken_from_short_display} cards taken"


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_reference_states_render_at_every_ply(case):
    """The reference's str(state) is its own readable board (not the engine's text): it renders at
    every ply of a random game, and the finished game does not read like the start."""
    texts = [str(state) for state in random_game(case.load_reference(), seed=7)]
    assert all(isinstance(t, str) and t.strip() for t in texts)
    assert texts[-1] != texts[0] and len(texts) > 2

@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_same_game_description(case):
    engine, ref = case.load(), case.load_reference()
    assert engine.name == ref.name
    assert engine.parameters() == ref.parameters()
    for method in ("num_players", "num_distinct_actions", "max_chance_outcomes", "max_game_length",
                   "min_utility", "max_utility", "utility_sum"):
        assert getattr(engine, method)() == getattr(ref, method)(), method
    assert tuple(engine.observation_shape()) == tuple(ref.observation_shape())


def test_mismatch_report_is_reproducible():
    """The harness really compares: a reference that plays a different rule is caught, and the
    report carries seed, ply, history and both states."""
    engine = meeple.load("abacuachego")
    ref = reference.load("abacuachego", parity="pit")
    with pytest.raises(Mismatch) as info:
        play_side_by_side(engine, ref, 5)
    text = str(info.value)
    for part in ("game seed 5", "ply ", "action history", "--- engine state", "--- reference state",
                 "tests/differential.py abacuachego"):
        assert part in text


class _ObservationOffByOne:
    """A reference state whose observation of the player to move differs from the third action on."""

    def __init__(self, state):
        self._state = state

    def __getattr__(self, name):
        return getattr(self._state, name)

    def observation_tensor(self, player=None):
        values = list(self._state.observation_tensor(player))
        if self._state.move_number() >= 3:
            values[-1] += 1.0
        return values


def test_observation_difference_is_caught():
    """Observations are compared at decision nodes (and not only at the end) in a game with chance."""
    params = {"chance": "explicit"}
    engine, ref = meeple.load("harmonies", **params), reference.load("harmonies", **params)
    with pytest.raises(Mismatch) as info:
        play_side_by_side(engine, ref, 3, engine_state=engine.new_initial_state(seed=3),
                          reference_state=_ObservationOffByOne(ref.new_initial_state(seed=3)))
    found = re.search(r"ply (\d+): observation:\n", str(info.value))
    assert found and int(found.group(1)) < 40, str(info.value)[:300]  # at the first decision node


@pytest.mark.parametrize("size", [22, 2708])  # compared as Python floats / as float32
def test_observation_comparison(size):
    engine = np.zeros(size, dtype=np.float32)
    engine[5] = np.float32(0.37)  # a score / 100: not exact in float32
    reference = [0.0] * size
    reference[5] = 0.37
    assert _same_observation(engine, reference)
    for wrong in ([*reference[:5], 0.38, *reference[6:]], reference[:-1], [*reference, 0.0],
                  [*reference[:-1], 1.0]):
        assert not _same_observation(engine, wrong)


# ------------------------------------------------------------------------------- edge inputs

ACTION_TEXTS = ["1cw", "1ccw", "3cw", "10ccw", "3 CW", " 3cw ", "3Cw", "3\tccw", "03cw", "003cw",
                "0003cw", "001cw", "0cw", "11cw", "13cw", "+3cw", "-3cw", "3", "cw", "3cwcw", "3c w",
                "3 c w", "1\x00cw", "3ccW", "२cw", "3cw\n", "", " "]


def _spellings(text):
    """`text` (an action's own name) spelt otherwise, and damaged: what a person types."""
    words = text.split()
    return [text, text.upper(), text.title(), "  ".join(words), "\t" + text + "\n", " ".join(words[:-1]),
            text + " x", text.replace(" ", ""), text + "0", "-" + text, text.replace(",", ", "),
            text.replace("0", "00"), text.replace("1", "\u0661")]


def _action_texts(case, seed=4, states=12):
    """ACTION_TEXTS and, at states along a seeded random game, every legal action's name in the
    spellings above: the names are each game's own (Abacuachego's pits, Harmonies' 'place brown
    0,1', Imperial Harvest's 'move e'), so a list of one game's texts tests nothing of another."""
    texts = dict.fromkeys(ACTION_TEXTS)
    played = [state.clone() for state in random_game(case.load(), seed)]
    for state in played[:: max(1, len(played) // states)]:
        if state.is_terminal() or state.is_chance_node():
            continue
        for action in state.legal_actions():
            texts.update(dict.fromkeys(_spellings(state.action_to_string(int(action)))))
        yield state, list(texts)


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_string_to_action_agrees(case):
    """Both sides read the same texts as the same actions and reject the same texts, in positions
    of each game (DISAGREEMENT when written: the engine read '001cw' and '03cw' as pit 1/3, the
    reference rejected leading zeros; neither rulebook nor protocol said which is right)."""
    ref_game = case.load_reference()
    differ, read = [], 0
    for engine_state, texts in _action_texts(case):
        ref_state = ref_game.state_from_dict(engine_state.to_dict())
        for text in texts:
            results = []
            for state in (engine_state, ref_state):
                try:
                    results.append(int(state.string_to_action(text)))
                except ValueError:
                    results.append("ValueError")
            read += results[0] != "ValueError"
            if results[0] != results[1]:
                differ.append(f"{text!r}: engine {results[0]}, reference {results[1]}")
    assert not differ, "\n".join(differ[:20])
    assert read > 50  # the names were read, not only refused


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_observation_players_agree(case):
    for e, r in zip(random_game(case.load(), 2, max_actions=20), random_game(case.load_reference(), 2, max_actions=20)):
        for p in range(case.load().num_players()):
            assert np.array_equal(e.observation_tensor(p), np.asarray(r.observation_tensor(p), dtype=np.float32))
        for bad in (-1, case.load().num_players()):
            with pytest.raises(ValueError):
                e.observation_tensor(bad)
            with pytest.raises(ValueError):
                r.observation_tensor(bad)


# ------------------------------------------------------------------------------- state_from_dict

_DICTS: dict = {}


def _state_dict(case_index, seed, fraction):
    key = (case_index, seed)
    if key not in _DICTS:
        _DICTS[key] = [s.to_dict() for s in random_game(DIFF_CASES[case_index].load(), seed)]
    dicts = _DICTS[key]
    return dicts[min(len(dicts) - 1, int(fraction * len(dicts)))]


def _read(game, d):
    # A non-dict may be refused with TypeError (the engine's binding takes a dict); a dict only
    # with ValueError.
    errors = ValueError if isinstance(d, dict) else (ValueError, TypeError)
    try:
        return game.state_from_dict(d), None
    except errors as e:
        return None, e


def _numpy_scalars(value, as_int=np.int64):
    """`value` (a state dict) with every int as `as_int(...)` and every bool as numpy's bool."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return as_int(value)
    if isinstance(value, list):
        return [_numpy_scalars(v, as_int) for v in value]
    if isinstance(value, dict):
        return {k: _numpy_scalars(v, as_int) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", DIFF_CASES, ids=IDS)
def test_state_from_dict_takes_numpy_scalars_alike(case):
    """numpy integers and bools are read as the Python values they equal, by both sides (as records
    take them); a numpy float or a numpy bool where an int belongs is refused by both."""
    engine_game, ref_game = case.load(), case.load_reference()
    states = [s.clone() for s in random_game(engine_game, 3)]
    for state in states[:: max(1, len(states) // 6)]:
        d = json.loads(json.dumps(state.to_dict()))
        for as_int in (np.int64, np.uint16, np.int32):
            scalars = _numpy_scalars_small(d, as_int)
            for game in (engine_game, ref_game):
                assert json.loads(json.dumps(game.state_from_dict(scalars).to_dict())) == d
        for bad in (np.float64, np.bool_):
            damaged = _first_int_replaced(d, bad)
            for game in (engine_game, ref_game):
                with pytest.raises(ValueError):
                    game.state_from_dict(damaged)


def _numpy_scalars_small(value, as_int):
    """`_numpy_scalars` with `as_int` only where the int fits it (negative ones stay int64)."""
    info = np.iinfo(as_int)
    return _numpy_scalars(value, lambda v: as_int(v) if info.min <= v <= info.max else np.int64(v))


def _first_int_replaced(value, kind):
    """A copy of `value` with its first int (depth first) replaced by `kind(int)`."""
    done = []

    def walk(v):
        if not done and isinstance(v, int) and not isinstance(v, bool):
            done.append(True)
            return kind(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    damaged = walk(value)
    assert done
    return damaged


@settings(max_examples=500, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case_index=st.integers(0, max(0, len(DIFF_CASES) - 1)), seed=st.integers(0, 15),
       fraction=st.floats(0, 1), data=st.data())
def test_state_from_dict_agrees(case_index, seed, fraction, data):
    if not DIFF_CASES:
        pytest.skip("no game with a reference")
    case = DIFF_CASES[case_index]
    original = _state_dict(case_index, seed, fraction)
    d = data.draw(mutated_document(original), label="state dict")
    engine_game, ref_game = case.load(), case.load_reference()
    e, e_error = _read(engine_game, json.loads(json.dumps(d)))
    r, r_error = _read(ref_game, json.loads(json.dumps(d)))
    assert (e is None) == (r is None), (
        f"{case.id}: engine {'rejects: ' + str(e_error) if e is None else 'accepts'}, "
        f"reference {'rejects: ' + str(r_error) if r is None else 'accepts'}: {d}")
    if e is not None:
        play_side_by_side(engine_game, ref_game, seed, engine_state=e, reference_state=r,
                          rng=random.Random(seed), max_actions=25)
