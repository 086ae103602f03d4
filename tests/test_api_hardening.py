"""Argument handling of the Python layer: bad input is a TypeError or ValueError naming the problem
(never accepted silently, never a changed value), and a rejected call changes nothing.

Found by an adversarial review: a game's hash that disagreed with its ==, records that wrote what
`Record.from_json` refuses (or converted 2.9 to 2), MCTS and Random seeds and `c` let through or
failing with OverflowError, and Imperial Harvest teams naming a repeated character as an archetype
clash; the engine's random_playouts reading seed=None as 0, and perft answering a foreign state with
pybind11's signature dump."""
from __future__ import annotations

import copy
import json
import pickle
import re

import numpy as np
import pytest

import meeple
import meeple.reference
from meeple.bots import MCTS, Random
from meeple.serialization import RECORD_SCHEMA


# ------------------------------------------------------------------------------- game hash


def _reordered(value):
    """`value` with every dict's keys in the reverse order (equal by ==)."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def test_games_equal_by_parameters_hash_alike_whatever_the_key_order():
    table = meeple.imperial_harvest.data("characters")
    first = meeple.load("imperial_harvest", characters=table)
    second = meeple.load("imperial_harvest", characters=_reordered(copy.deepcopy(table)))
    assert list(second.parameters()["characters"]) != list(first.parameters()["characters"])
    assert first == second and hash(first) == hash(second)
    assert len({first, second}) == 1 and second in {first: 1}


@pytest.mark.parametrize("name, params, other", [
    ("abacuachego", {}, {"pits_per_row": 3}),
    ("harmonies", {}, {"players": 3}),
    ("imperial_harvest", {}, {"sides": "advanced"}),
])
def test_every_game_hashes_consistently_with_equality(name, params, other):
    game = meeple.load(name, **params)
    again = meeple.load(name, **params)
    unpickled = pickle.loads(pickle.dumps(game))
    for twin in (again, unpickled):
        assert twin == game and hash(twin) == hash(game)
    assert len({game, again, unpickled}) == 1
    different = meeple.load(name, **other)
    assert different != game and len({game, different}) == 2


def test_parameter_hash_follows_python_equality():
    from meeple._protocol import _hashable

    for a, b in (({"x": 1, "y": [1, {"z": 2}]}, {"y": [1.0, {"z": 2}], "x": True}),
                 ({"n": float("nan")}, {"n": float("nan")}),  # unequal, yet hashable (any hash will do)
                 ({"s": {1, 2}}, {"s": {2, 1}})):
        if a == b:
            assert hash(_hashable(a)) == hash(_hashable(b))
        hash(_hashable(a))
    assert hash(_hashable({"odd": bytearray(b"x")}))  # an unhashable value: still a hash


# ------------------------------------------------------------------------------- records


def _doc(**fields):
    return {"schema": RECORD_SCHEMA, "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [], **fields}


BAD_FIELDS = [  # (field, value, error made in Python, message)
    ("actions", [2.9, True], TypeError, r"actions\[0\] is float 2.9"),
    ("actions", [4, True], TypeError, r"actions\[1\] is bool True"),
    ("actions", [np.bool_(True)], TypeError, r"actions\[0\] is bool"),
    ("actions", [np.float64(4.5)], TypeError, r"actions\[0\] is float"),
    ("actions", (4, 7), TypeError, "field 'actions' must be a list of ints, got tuple"),
    ("actions", {}, TypeError, "field 'actions' must be a list"),
    ("actions", np.array([4, 7], dtype=np.int32), TypeError, r"got ndarray .*tolist"),
    ("seed", -1, ValueError, r"field 'seed' must be None or an int in 0..2\*\*64-1, got int -1"),
    ("seed", 2**64, ValueError, "field 'seed'"),
    ("seed", 1.5, TypeError, "field 'seed' .* got float 1.5"),
    ("seed", "7", TypeError, "field 'seed' .* got str '7'"),
    ("seed", True, TypeError, "field 'seed' .* got bool True"),
    ("seed", np.int8(-1), ValueError, "field 'seed'"),
    ("parameters", {"pits_per_row": "3"}, ValueError, "'pits_per_row' of abacuachego is the text '3'"),
    ("parameters", {"skip_origin_on_lap": "false"}, ValueError, "the text 'false'"),
    ("parameters", {"pits_per_row": 3.0}, ValueError, "pits_per_row"),
    ("parameters", {"bogus": 1}, ValueError, "unknown parameter 'bogus'"),
    ("parameters", {"pits_per_row": (3,)}, TypeError, r"parameters\['pits_per_row'\] is tuple"),
    ("parameters", [], TypeError, "field 'parameters' must be a"),  # dict (in JSON: an object)
    ("game", "imperial-harvest", ValueError, "unknown game 'imperial-harvest'"),
    ("game", "abacuachego(pits_per_row=3)", ValueError, "unknown game"),
    ("game", 5, TypeError, "field 'game' must be a"),  # game name (str)
    ("returns", [True, False], TypeError, r"returns\[0\] is bool True"),
    ("returns", ["1", "-1"], TypeError, r"returns\[0\] is str"),
    ("returns", [float("nan"), 0.0], ValueError, r"returns\[0\] is float nan"),
    ("returns", [10**400, 0], ValueError, r"returns\[0\]"),
    ("returns", np.array([1.0, -1.0]), TypeError, r"got ndarray .*tolist"),
    ("meta", [], TypeError, "field 'meta' must be a dict"),
    ("meta", {"a": (1, 2)}, TypeError, r"meta\['a'\] is tuple"),
    ("meta", {1: "x"}, TypeError, "meta has the key int 1"),
    ("meta", {"a": [1, {"b": float("inf")}]}, ValueError, r"meta\['a'\]\[1\]\['b'\] is inf"),
    ("meta", {"x": {1, 2}}, TypeError, r"meta\['x'\] is set"),
    ("meta", {"x": object()}, TypeError, r"meta\['x'\] is object"),
]


@pytest.mark.parametrize("field, value, error, message", BAD_FIELDS,
                         ids=[f"{f}-{i}" for i, (f, *_rest) in enumerate(BAD_FIELDS)])
def test_record_fields_are_checked_when_made_written_and_replayed(field, value, error, message):
    fields = {"game": "abacuachego", "parameters": {}, "seed": 0, "actions": [], "returns": None, "meta": {}}
    with pytest.raises(error, match=message):
        meeple.Record(**{**fields, field: value})
    # Set after making (the fields are plain attributes): writing refuses it, and changes nothing.
    record = meeple.Record(**fields)
    setattr(record, field, value)
    with pytest.raises(error, match=message):
        record.to_json()
    with pytest.raises(error, match=message):
        record.to_document()
    assert getattr(record, field) is value
    if field in ("game", "parameters", "seed", "actions"):  # what replaying reads
        with pytest.raises(error, match=message):
            record.replay()
        with pytest.raises(error, match=message):
            next(record.states())


def _in_json(value) -> bool:
    """Whether JSON holds `value` as it is (so a document can carry the same fault)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        return False
    return json.dumps(json.loads(text)) == text and type(json.loads(text)) is type(value) and (
        json.loads(text) == value or "NaN" in text or "Infinity" in text)


@pytest.mark.parametrize("field, value, message", [(f, v, m) for f, v, _, m in BAD_FIELDS if _in_json(v)])
def test_documents_with_the_same_faults_are_refused_by_from_json(field, value, message):
    """What a Record refuses, Record.from_json refuses (always ValueError), with the same words."""
    with pytest.raises(ValueError, match=message):
        meeple.Record.from_json(json.dumps(_doc(**{field: value})))


def test_record_in_the_issue_is_refused_at_once():
    with pytest.raises(TypeError, match=r"field 'actions' must be a list of ints; actions\[0\] is float 2.9"):
        meeple.Record("abacuachego", {}, 0, [2.9, True])
    for seed in (-1, 1.5, "7", True):
        with pytest.raises((TypeError, ValueError), match="field 'seed'"):
            meeple.Record("abacuachego", {}, seed=seed, actions=[])


def test_a_record_of_a_game_of_ones_own_is_refused_only_when_written():
    """`play_game` plays games meeple does not know (any object with the protocol) into Records."""
    record = meeple.Record("coin", {"sides": 2}, seed=1, actions=[0, 1], returns=[1.0])
    for write in (record.to_json, record.replay):
        with pytest.raises(ValueError, match="unknown game 'coin'"):
            write()
    with pytest.raises(TypeError, match=r"actions\[0\] is float"):  # the rest is checked at once
        meeple.Record("coin", actions=[0.5])


def test_returns_hold_one_number_per_player_when_written():
    record = meeple.Record("abacuachego", returns=[1.0])  # may be made (and replaced) in memory ...
    with pytest.raises(ValueError, match=r"one number per player \(2\), got 1"):
        record.to_json()  # ... but is never written
    with pytest.raises(ValueError, match=r"one number per player \(2\), got 1"):
        meeple.Record.from_json(json.dumps(_doc(returns=[1.0])))


def test_document_with_non_finite_meta_is_refused():
    text = json.dumps(_doc(meta={"x": float("nan")}))  # Python's json writes NaN; JSON has none
    with pytest.raises(ValueError, match=r"meta\['x'\] is nan"):
        meeple.Record.from_json(text)
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="contains itself"):
        meeple.Record("abacuachego", meta={"c": cycle})


def test_valid_records_round_trip_exactly():
    game = meeple.load("abacuachego", pits_per_row=4)
    state = game.new_initial_state(seed=2**64 - 1)
    record = meeple.Record("abacuachego", game.parameters(), seed=np.uint64(2**64 - 1))
    while not state.is_terminal():
        action = state.legal_actions()[0]  # numpy int32: an int, written as itself
        state.apply_action(action)
        record.actions.append(action)
    record.returns = [np.float32(r) for r in state.returns()]
    shared = [1, 2]
    record.meta = {"bots": ["random", "random"], "x": np.int64(3), "f": np.float32(0.1), "b": np.bool_(True),
                   "nested": {"a": [shared, shared, None, "s", 2.5, 10**30]}}
    text = record.to_json()
    again = meeple.Record.from_json(text)
    assert again == record and again.to_json() == text
    assert again.replay() == state == record.replay()
    assert json.loads(text)["seed"] == 2**64 - 1 and json.loads(text)["actions"] == [int(a) for a in record.actions]
    for seed in (None, 0, 2**64 - 1):
        plain = meeple.Record("harmonies", seed=seed, actions=[])
        assert meeple.Record.from_json(plain.to_json()) == plain


def test_records_of_every_game_and_both_implementations_are_valid():
    for name in meeple.list_games():
        for module in (meeple, meeple.reference):
            # The reference's implicit chance would not replay with the engine: play_game refuses it.
            explicit = {"chance": "explicit"} if module is meeple.reference and name == "harmonies" else {}
            game = module.load(name, **explicit)
            record = meeple.bots.play_game(game, [Random(seed=p) for p in range(game.num_players())], seed=3)
            again = meeple.Record.from_json(record.to_json())
            assert again == record and again.to_json() == record.to_json()
            assert [float(r) for r in again.replay().returns()] == record.returns


# ------------------------------------------------------------------------------- bots


@pytest.mark.parametrize("c, error", [(10**400, ValueError), (-(10**400), ValueError), (float("nan"), ValueError),
                                      (float("-inf"), ValueError), (-1e-300, ValueError), (True, TypeError),
                                      (np.bool_(False), TypeError), ("1", TypeError), (b"1", TypeError),
                                      (None, TypeError), ([1], TypeError)])
def test_mcts_exploration_constant_is_a_finite_number_at_least_0(c, error):
    with pytest.raises(error, match="c must be a"):
        MCTS(meeple.load("abacuachego"), simulations=5, c=c)


def test_mcts_exploration_constant_accepts_numbers():
    game = meeple.load("abacuachego")
    for c in (0, 0.0, -0.0, 1, 2.5, np.float32(1.4), np.int64(2), 10**300):
        bot = MCTS(game, simulations=5, c=c, seed=1)
        assert isinstance(bot.c, float) and bot.step(game.new_initial_state()) >= 0


@pytest.mark.parametrize("seed, error", [("abc", TypeError), (1.5, TypeError), (True, TypeError), ([1], TypeError),
                                         (np.float64(1), TypeError), (-1, ValueError), (2**64, ValueError),
                                         (np.int8(-1), ValueError)])
def test_bot_seeds_are_ints_in_range(seed, error):
    game = meeple.load("abacuachego")
    with pytest.raises(error, match="seed must be an int"):
        MCTS(game, simulations=5, seed=seed)
    with pytest.raises(error, match="seed must be an int"):
        Random(seed=seed)
    with pytest.raises(error, match="seed must be an int"):
        meeple.bots.make_bot("random", game, seed=seed)


def test_bot_seeds_accept_ints_numpy_ints_and_none():
    game = meeple.load("abacuachego")
    state = game.new_initial_state()
    for seed in (0, 2**64 - 1, np.uint64(2**64 - 1), np.int32(7), None):
        assert MCTS(game, simulations=5, seed=seed).step(state) in state.legal_actions()
        assert Random(seed=seed).step(state) in state.legal_actions()
    # The same seed, the same choices; numpy integers are their int values.
    picks = [Random(seed=s).step(state) for s in (7, np.int64(7))]
    assert picks[0] == picks[1]


# ------------------------------------------------------------------------------- seeds: one rule


def test_seed_none_is_refused_where_a_seed_is_an_int():
    """A seed is an int in 0..2**64-1; None only where a signature says what it means
    (new_initial_state: 0, VectorGame.reset: the vector's own seed, bots: a fresh seed)."""
    game = meeple.load("abacuachego")
    with pytest.raises(TypeError, match=r"seed must be an int in 0..2\*\*64-1, got None"):
        meeple.random_playouts(game, 2, seed=None)
    with pytest.raises(TypeError, match=r"seed must be an int in 0..2\*\*64-1, got None"):
        meeple.VectorGame(game, 2, seed=None)
    vec = meeple.VectorGame(game, 2, seed=5)
    vec.reset(seed=None)  # documented: the seed it has
    assert game.new_initial_state(seed=None) == game.new_initial_state(seed=0)  # documented: None means 0
    with pytest.raises(TypeError, match="Match|seed must be an int"):
        meeple.bots.Match(game, ("random", "random"), seed=None)


def test_engine_random_playouts_refuses_seed_none():
    game = meeple.load("abacuachego")
    try:
        game.random_playouts(2, seed=None)
    except TypeError as e:
        assert "seed must be an int" in str(e)
    else:
        raise AssertionError("game.random_playouts(2, seed=None) accepted None as 0")


# ------------------------------------------------------------------------------- C++ signatures


def _signature_dump(error: Exception) -> bool:
    return "incompatible function arguments" in str(error)


def test_perft_of_a_foreign_state_is_a_plain_type_error():
    game = meeple.load("abacuachego")
    for state in (None, meeple.reference.load("abacuachego").new_initial_state(),
                  meeple.load("harmonies").new_initial_state()):
        with pytest.raises(TypeError) as info:
            game.perft(state, 1)
        assert not _signature_dump(info.value), str(info.value)


def test_string_to_action_takes_text_only():
    """Bound in C++ (cpp/bindings/bind_game.h): once bytes were accepted, and a lone surrogate, None
    or an int gave pybind11's signature dump."""
    state = meeple.load("abacuachego").new_initial_state()
    for text in (b"3cw", bytearray(b"3cw"), None, 3, b"\xff\xfe"):
        try:
            state.string_to_action(text)
        except TypeError as e:
            assert not _signature_dump(e) and "must be a str" in str(e), str(e)
        else:
            raise AssertionError(f"string_to_action accepted {text!r}")
    for text in ("\ud800", "3cw\ud800"):
        try:
            state.string_to_action(text)
        except ValueError as e:
            assert "not an action" in str(e)
        except TypeError as e:
            raise AssertionError(f"TypeError for the str {text!r}: {e}") from None
        else:
            raise AssertionError(f"string_to_action accepted {text!r}")


def _field_damages():
    """(game, dict, words) for state dicts holding a text with a NUL and a control character."""
    for name in meeple.list_games():
        game = meeple.load(name)
        yield game, {**game.new_initial_state().to_dict(), "x\x00\x1b[2Jy": 1}, "unknown state field"
    game = meeple.load("imperial_harvest")
    d = json.loads(json.dumps(game.new_initial_state().to_dict()))
    d["characters"][0]["facing"] = "n\x00\x1b[2Jy"
    yield game, d, "expected n, e, s or w, got"
    d = json.loads(json.dumps(game.new_initial_state().to_dict()))
    d["phase"] = "act\x00\x1b[2Jy"
    yield game, d, "expected one of"
    game = meeple.load("harmonies")
    d = json.loads(json.dumps(game.new_initial_state().to_dict()))
    d["hand"] = ["red\x00\x1b[2Jy"]
    yield game, d, "unknown colour"


def test_a_users_text_in_an_error_message_is_escaped_whole():
    """The engine quotes a text it refuses as Python's repr does: a NUL copied in ended the message
    there ("'3c" for "3c\\x00w"), and a control character would reach the terminal."""
    for name in meeple.list_games():
        state = meeple.load(name).new_initial_state()
        with pytest.raises(ValueError) as info:
            state.string_to_action("take\x00\x1b[2J0")
        assert str(info.value).startswith("'take\\x00\\x1b[2J0' is not an action of " + name + "; legal now: ")
    for game, d, words in _field_damages():
        with pytest.raises(ValueError) as info:
            game.state_from_dict(d)
        message = str(info.value)
        assert words in message and "\\x00\\x1b[2Jy'" in message, message
        assert "\x00" not in message and "\x1b" not in message, message
    # Names in a user's character table, refused by the engine's core (C++ messages).
    table_damages = [
        (lambda t: t["characters"][0]["abilities"].__setitem__(0, "zz\x00top"), "unknown ability 'zz\\x00top'"),
        (lambda t: t["first_game_teams"]["imperial"].__setitem__(0, "mo\x00nk"),
         "unknown character 'mo\\x00nk' in the teams"),
        (_same_archetype_for_two_first_game_cards, "share the archetype 'a\\x00b'"),
    ]
    for damage, words in table_damages:
        table = meeple.imperial_harvest.data("characters")
        damage(table)
        with pytest.raises(ValueError, match=re.escape(words)):
            meeple.load("imperial_harvest", characters=table)


def _same_archetype_for_two_first_game_cards(table):
    imperial = table["first_game_teams"]["imperial"]
    for card in table["characters"]:
        if card["id"] in imperial[:2]:
            card["archetype"] = "a\x00b"


class _Str(str):
    def __repr__(self):
        raise ZeroDivisionError("a str subclass's own __repr__ is not called")


@pytest.mark.parametrize("load", [meeple.load, meeple.reference.load], ids=["engine", "reference"])
def test_string_to_action_names_a_str_subclass_as_a_str(load):
    for name in meeple.list_games():
        state = load(name).new_initial_state()
        with pytest.raises(ValueError, match="zz"):
            state.string_to_action(_Str("zz"))
        with pytest.raises(TypeError, match="action text must be a str, got bytes"):
            state.string_to_action(b"take 0")


@pytest.mark.parametrize("load", [meeple.load, meeple.reference.load], ids=["engine", "reference"])
def test_an_index_method_in_a_document_is_never_run(load):
    """A state dict or a character table is read as data: an object's own __index__ is not run
    (one that emptied the list being read crashed the engine's reader), so such an object is
    refused as no int; numpy integers are read."""
    calls = []

    game = load("abacuachego")
    d = json.loads(json.dumps(game.new_initial_state().to_dict()))
    row = d["pits"][0]

    class Emptying:
        def __index__(self):
            calls.append(1)
            row.clear()
            return 5

    row[3] = Emptying()
    with pytest.raises(ValueError, match="pits"):
        game.state_from_dict(d)
    table = meeple.imperial_harvest.data("characters")
    cards = table["characters"]

    class EmptyingCards:
        def __index__(self):
            calls.append(1)
            cards.clear()
            return 3

    cards[0]["ap"] = EmptyingCards()
    with pytest.raises(ValueError):
        load("imperial_harvest", characters=table)
    assert calls == []
    table = meeple.imperial_harvest.data("characters")
    table["defaults"]["ap"] = np.int64(3)  # a table is JSON data (kept in parameters()): refused
    with pytest.raises(ValueError):
        load("imperial_harvest", characters=table)


# ------------------------------------------------------------------------------- Imperial Harvest teams


@pytest.mark.parametrize("teams, message", [
    ("monk,monk,monk/barbarian,hound,nymph", "teams: monk chosen 3 times; the six characters must be distinct"),
    ("monk,monk,imperial_bard/barbarian,hound,nymph", "teams: monk chosen twice"),
    ("monk,regent,imperial_bard/barbarian,hound,monk", "teams: monk chosen twice"),
    ("monk,regent,imperial_bard/monk,regent,imperial_bard", "teams: imperial_bard, monk, regent chosen twice"),
    ("monk,monk,monk/monk,regent,regent", "teams: monk chosen 4 times; regent chosen twice"),
    ("monk,hound,imperial_bard/barbarian,sorceress,nymph",
     r"the imperial team has two utility characters \(monk and hound\)"),
    ("monk,regent,imperial_bard/barbarian,skin_changer,minotaur",
     r"the raiders team has three warrior characters \(barbarian and skin_changer and minotaur\)"),
    ("monk,xx,monk/barbarian,hound,nymph", "unknown character 'xx'"),
])
def test_teams_name_the_repeated_character(teams, message):
    with pytest.raises(ValueError, match=message):
        meeple.load("imperial_harvest", teams=teams)
