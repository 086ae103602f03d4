"""State and record documents (python/meeple/serialization.py): the documented schema, round trips,
and robustness: any text, any damaged document gives a valid state/record or ValueError, nothing else."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meeple
from meeple.serialization import RECORD_SCHEMA, STATE_SCHEMA
from games import cases, choose_random, random_game
from json_mutation import mutated_text

CASES = cases()
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _strict_json(text):
    def reject(constant):
        raise AssertionError(f"non-standard JSON constant {constant} in {text[:200]}")

    return json.loads(text, parse_constant=reject)


# ------------------------------------------------------------------------------- schema


def test_schema_constants():
    assert STATE_SCHEMA == "meeple-state/1" and RECORD_SCHEMA == "meeple-record/1"


def test_state_document_schema(case):
    game = case.load()
    for seed in range(max(4, case.entry.protocol_games // 10)):
        for ply, state in enumerate(random_game(game, seed)):
            if ply % 5 and not state.is_terminal():
                continue
            text = state.to_json()
            doc = _strict_json(text)
            assert list(doc) == ["schema", "game", "parameters", "state"]
            assert doc["schema"] == "meeple-state/1"
            assert doc["game"] == case.name
            assert doc["parameters"] == game.parameters()
            assert set(doc["parameters"]) == set(meeple.load(case.name).parameters())
            assert doc["state"] == state.to_dict()
            assert state.to_document() == doc
            assert json.loads(state.to_json(indent=2)) == doc


def test_to_dict_is_plain_json(case):
    """to_dict() holds only JSON types (dict with str keys, list, int, float, str, bool, None)."""

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or type(value) in (int, float, str, bool)

    for state in random_game(case.load(), 4):
        assert plain(state.to_dict()), state.to_dict()


def _doc():
    return json.loads(meeple.load("abacuachego").new_initial_state().to_json())


@pytest.mark.parametrize("change", [
    lambda d: d.pop("schema"), lambda d: d.update(schema="meeple-state/2"),
    lambda d: d.update(schema="meeple-record/1"), lambda d: d.update(schema=None),
    lambda d: d.pop("game"), lambda d: d.pop("parameters"), lambda d: d.pop("state"),
    lambda d: d.update(extra=1), lambda d: d.update(game="nosuchgame"), lambda d: d.update(game=5),
    lambda d: d.update(parameters=[]), lambda d: d.update(parameters={"bogus": 1}),
    lambda d: d.update(state=[]), lambda d: d.update(state={}),
    lambda d: d["state"].update(ply=-1), lambda d: d["state"].update(extra=0),
    lambda d: d["state"]["pits"][0].append(0), lambda d: d["state"]["stores"].__setitem__(0, 1),
    lambda d: d["state"].update(current_player=2), lambda d: d["state"].update(current_player=True),
    lambda d: d["state"]["pits"][0].__setitem__(0, 5.0),
    lambda d: d["parameters"].update(pits_per_row=4),
])
def test_bad_state_documents(change):
    doc = _doc()
    change(doc)
    with pytest.raises(ValueError):
        meeple.from_json(json.dumps(doc))


@pytest.mark.parametrize("name, edit, message", [
    ("abacuachego", lambda d: d.update({"\ud800": 1}), "state has a key that is not valid Unicode"),
    ("harmonies", lambda d: d["players"][0]["cards"].append({"id": 1, "cubes_placed": 0, "\ud800": None}),
     r"players\[0\]\.cards\[0\] has a key that is not valid Unicode"),
    ("harmonies", lambda d: d["players"][0]["board"].update({"0,0": ["\ud800"]}),
     r"'players\[0\]\.board\[0,0\]\[0\]': text that is not valid Unicode"),
    ("imperial_harvest", lambda d: d.update({"phase": "\udc00"}), "'phase': text that is not valid Unicode"),
    ("imperial_harvest", lambda d: d["characters"][0].update({"facing": "\ud800"}),
     r"'characters\[0\]\.facing': text that is not valid Unicode"),
])
def test_text_without_unicode_is_a_value_error(name, edit, message):
    """A lone surrogate (what JSON's "\\ud800" reads as) has no UTF-8: a ValueError naming the
    field, not pybind11's RuntimeError (found by the document fuzzer)."""
    game = meeple.load(name)
    d = game.new_initial_state().to_dict()
    edit(d)
    with pytest.raises(ValueError, match=message):
        game.state_from_dict(d)
    with pytest.raises(ValueError, match=message):
        meeple.from_json(json.dumps({"schema": STATE_SCHEMA, "game": name, "parameters": {}, "state": d}))


def test_document_parameter_named_like_an_argument_of_load():
    """A document's parameters go to meeple.load as keywords; a key named `name` must be an unknown
    parameter (ValueError), not a clash with load's own argument (BUG when written: TypeError
    "load() got multiple values for argument 'name'", for state documents and records alike)."""
    doc = _doc()
    doc["parameters"]["name"] = "x"
    with pytest.raises(ValueError):
        meeple.from_json(json.dumps(doc))
    record = {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {"name": 1},
              "seed": 0, "actions": []}
    with pytest.raises(ValueError):
        meeple.Record.from_json(json.dumps(record))


def test_document_parameters_default_and_string_forms():
    doc = _doc()
    doc["parameters"] = {}
    assert meeple.from_json(json.dumps(doc)) == meeple.load("abacuachego").new_initial_state()
    doc["parameters"] = {"parity": "pit"}
    state = meeple.from_json(json.dumps(doc))
    assert state.game.parameters()["parity"] == "pit"


def test_documents_hold_values_not_text_or_game_strings(tmp_path, monkeypatch):
    """What load also reads for people is refused in documents: game strings, numbers and
    booleans written as text, a card table's file path (a document never makes its reader open a
    file). Records alike; and their returns hold one number per player."""
    for edit, message in ((lambda d: d.update(game="abacuachego(pits_per_row=3)"), "unknown game"),
                          (lambda d: d["parameters"].update(pits_per_row="10"), "'pits_per_row' .* the text '10'"),
                          (lambda d: d["parameters"].update(skip_origin_on_lap="false"), "the text 'false'")):
        doc = _doc()
        edit(doc)
        with pytest.raises(ValueError, match=message):
            meeple.from_json(json.dumps(doc))
        record = {"schema": "meeple-record/1", "game": doc["game"], "parameters": doc["parameters"],
                  "seed": 0, "actions": []}
        with pytest.raises(ValueError, match=message):
            meeple.Record.from_json(json.dumps(record))
    table = tmp_path / "cards.json"
    table.write_text(json.dumps(meeple.imperial_harvest.data("characters")))
    opened = []
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or pytest.fail("opened a file"))
    doc = json.loads(meeple.load("imperial_harvest").new_initial_state().to_json())
    doc["parameters"]["characters"] = str(table)
    with pytest.raises(ValueError, match="'characters' of imperial_harvest is the text"):
        meeple.from_json(json.dumps(doc))
    monkeypatch.undo()
    assert not opened and meeple.load("imperial_harvest", characters=str(table))  # load itself reads it
    record = {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0,
              "actions": [], "returns": [1.0]}
    with pytest.raises(ValueError, match=r"one number per player \(2\), got 1"):
        meeple.Record.from_json(json.dumps(record))
    with pytest.raises(ValueError, match="unknown game 'abacuachego-'"):
        meeple.load("abacuachego-")


@pytest.mark.parametrize("value", [None, 5, 1.5, ["{}"], {"schema": STATE_SCHEMA}, object()])
def test_from_json_non_text_is_type_error(value):
    with pytest.raises(TypeError):
        meeple.from_json(value)
    with pytest.raises(TypeError):
        meeple.Record.from_json(value)


@pytest.mark.parametrize("depth", [10, 100, 500, 900, 980, 990, 995, 1000, 5000, 100_000])
@pytest.mark.parametrize("where", ["root", "schema", "game", "parameters", "param", "state", "pits"])
def test_deeply_nested_documents(depth, where):
    deep = "[" * depth + "]" * depth
    docs = {
        "root": deep,
        "schema": f'{{"schema": {deep}, "game": "abacuachego", "parameters": {{}}, "state": {{}}}}',
        "game": f'{{"schema": "{STATE_SCHEMA}", "game": {deep}, "parameters": {{}}, "state": {{}}}}',
        "parameters": f'{{"schema": "{STATE_SCHEMA}", "game": "abacuachego", "parameters": {deep}, "state": {{}}}}',
        "param": f'{{"schema": "{STATE_SCHEMA}", "game": "abacuachego", "parameters": {{"parity": {deep}}}, "state": {{}}}}',
        "state": f'{{"schema": "{STATE_SCHEMA}", "game": "abacuachego", "parameters": {{}}, "state": {deep}}}',
        "pits": f'{{"schema": "{STATE_SCHEMA}", "game": "abacuachego", "parameters": {{}}, "state": '
                f'{{"pits": {deep}, "stores": [0, 0], "current_player": 0, "ply": 0}}}}',
    }
    with pytest.raises(ValueError):
        meeple.from_json(docs[where])
    record = docs[where].replace(STATE_SCHEMA, RECORD_SCHEMA).replace('"state"', '"actions"')
    with pytest.raises(ValueError):
        meeple.Record.from_json(record)


# ----------------------------------------------------------- between engine and reference


def _same_position(engine_state, reference_state):
    assert reference_state.to_dict() == engine_state.to_dict()
    assert reference_state.current_player() == engine_state.current_player()
    assert list(reference_state.legal_actions()) == engine_state.legal_actions().tolist()


def test_documents_move_between_engine_and_reference(case):
    """A state document of either implementation is read by the other (the same schema, the same
    "state" dict): positions from random games of each side arrive with the same legal actions,
    and go back unchanged."""
    if case.name not in meeple.reference.list_games():
        pytest.skip(f"no reference implementation of {case.name}")
    game, reference_game = case.load(), meeple.reference.load(case.name, **case.params)
    for seed in range(3):
        for ply, state in enumerate(random_game(game, seed)):
            if ply % 7 == 0 or state.is_terminal():
                text = state.to_json()
                arrived = reference_game.from_json(text)
                _same_position(state, arrived)
                assert json.loads(arrived.to_json()) == json.loads(text)
                assert meeple.from_json(arrived.to_json()) == state
        for ply, state in enumerate(random_game(reference_game, seed)):
            if ply % 7 == 0 or state.is_terminal():
                arrived = meeple.from_json(state.to_json())
                _same_position(arrived, state)
                assert reference_game.from_json(arrived.to_json()).to_dict() == state.to_dict()


def test_reference_from_json_rejects_other_documents():
    reference_game = meeple.reference.load("abacuachego")
    text = meeple.load("abacuachego", parity="pit").new_initial_state().to_json()
    with pytest.raises(ValueError, match="other parameters"):
        reference_game.from_json(text)
    with pytest.raises(ValueError, match="other parameters"):
        reference_game.from_json(meeple.load("harmonies").new_initial_state().to_json())
    good = json.loads(meeple.load("abacuachego").new_initial_state().to_json())
    for bad in ["", "[]", "{", json.dumps({**good, "schema": "meeple-state/2"}),
                json.dumps({**good, "extra": 1}), json.dumps({**good, "state": []}),
                json.dumps({**good, "parameters": [1]}), json.dumps({**good, "state": {"pits": 3}}),
                json.dumps({**good, "parameters": {"name": None}}),  # once a TypeError (Hypothesis)
                b"\xff", "[" * 100_000 + "]" * 100_000]:
        with pytest.raises(ValueError):
            reference_game.from_json(bad)
    with pytest.raises(TypeError):
        reference_game.from_json(None)


# ------------------------------------------------------------------------------- records


def _play_record(game, name, seed, rng):
    state = game.new_initial_state(seed=seed)
    record = meeple.Record(name, game.parameters(), seed=seed)
    dicts = [state.to_dict()]
    while not state.is_terminal():
        a = choose_random(state, rng)
        state.apply_action(a)
        record.actions.append(a)
        dicts.append(state.to_dict())
    record.returns = state.returns().tolist()
    return record, state, dicts


def test_record_round_trip_and_replay(case):
    game = case.load()
    for seed in range(max(5, case.entry.protocol_games // 8)):
        record, final, dicts = _play_record(game, case.name, seed, random.Random(seed))
        record.meta = {"seed": seed, "note": "test", "nested": {"a": [1, 2]}}
        text = record.to_json()
        doc = _strict_json(text)
        assert doc["schema"] == "meeple-record/1"
        assert set(doc) == {"schema", "game", "parameters", "seed", "actions", "returns", "meta"}
        again = meeple.Record.from_json(text)
        assert again == record
        assert again.to_json() == text
        assert meeple.Record.from_json(text.encode()) == record
        assert again.replay() == final
        assert again.replay().to_dict() == final.to_dict()
        assert [s.to_dict() for s in again.states()] == dicts
        # A prefix of the record replays to the state at that ply.
        cut = random.Random(seed).randrange(len(record.actions) + 1)
        prefix = meeple.Record(case.name, record.parameters, seed, record.actions[:cut])
        assert meeple.Record.from_json(prefix.to_json()).replay().to_dict() == dicts[cut]


def test_record_minimal_and_optional_fields():
    record = meeple.Record("abacuachego")
    doc = json.loads(record.to_json())
    assert doc == {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0,
                   "actions": []}
    assert meeple.Record.from_json(record.to_json()) == record
    none_seed = meeple.Record("abacuachego", seed=None, actions=[4])
    assert meeple.Record.from_json(none_seed.to_json()).replay().move_number() == 1


def test_record_with_illegal_action_fails_on_replay():
    record = meeple.Record("abacuachego", actions=[4, 10_000])
    loaded = meeple.Record.from_json(record.to_json())
    with pytest.raises(ValueError):
        loaded.replay()
    states = loaded.states()
    next(states), next(states)
    with pytest.raises(ValueError):
        next(states)


@pytest.mark.parametrize("doc", [
    {"game": "abacuachego", "parameters": {}, "seed": 0, "actions": []},
    {"schema": "meeple-state/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": -1, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 2**64, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 1.0, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": True, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [1.0]},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [True]},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": {}},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {"bogus": 1}, "seed": 0, "actions": []},
    {"schema": "meeple-record/1", "game": "nosuchgame", "parameters": {}, "seed": 0, "actions": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [],
     "returns": ["1"]},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [],
     "meta": []},
    {"schema": "meeple-record/1", "game": "abacuachego", "parameters": {}, "seed": 0, "actions": [],
     "extra": 1},
])
def test_bad_record_documents(doc):
    with pytest.raises(ValueError):
        meeple.Record.from_json(json.dumps(doc))


# ------------------------------------------------------------------------------- fuzzing


def _only_value_error(read, text):
    """Calls read(text); returns the result, or None on ValueError; any other exception fails."""
    try:
        return read(text)
    except ValueError as e:
        assert isinstance(str(e), str)
        return None


@settings(FUZZ, max_examples=300)
@given(st.one_of(st.text(), st.binary(), st.text(alphabet='{}[]":,0123456789.eE-+ truefalsn\\', max_size=60)))
def test_any_text_is_a_state_or_value_error(text):
    state = _only_value_error(meeple.from_json, text)
    if state is not None:  # pragma: no cover - a random text is practically never a document
        assert meeple.from_json(state.to_json()) == state


@settings(FUZZ, max_examples=200)
@given(st.one_of(st.text(), st.binary()))
def test_any_text_is_a_record_or_value_error(text):
    record = _only_value_error(meeple.Record.from_json, text)
    if record is not None:  # pragma: no cover
        assert meeple.Record.from_json(record.to_json()).to_json() == record.to_json()


_STATE_DOCS: dict = {}
_RECORD_DOCS: dict = {}


def _state_doc(case_index, seed, fraction):
    key = (case_index, seed)
    if key not in _STATE_DOCS:
        case = CASES[case_index]
        _STATE_DOCS[key] = [json.loads(s.to_json()) for s in random_game(case.load(), seed)]
    docs = _STATE_DOCS[key]
    return docs[min(len(docs) - 1, int(fraction * len(docs)))]


def _record_doc(case_index, seed, fraction):
    key = (case_index, seed)
    if key not in _RECORD_DOCS:
        case = CASES[case_index]
        record, _, _ = _play_record(case.load(), case.name, seed, random.Random(seed))
        if seed % 2:
            record.meta = {"seed": seed, "by": "test"}
        _RECORD_DOCS[key] = record
    record = _RECORD_DOCS[key]
    cut = int(fraction * (len(record.actions) + 1))
    doc = record.to_document()
    doc["actions"] = doc["actions"][:cut]
    if cut < len(record.actions):
        doc.pop("returns", None)
    return doc


def _check_accepted_state(state):
    text = state.to_json()
    again = meeple.from_json(text)
    assert again == state and again.to_json() == text
    # The state behaves: a few random moves run without error, each round-tripping.
    rng = random.Random(0)
    state = state.clone()
    for _ in range(3):
        if state.is_terminal():
            break
        state.apply_action(choose_random(state, rng))
        assert meeple.from_json(state.to_json()) == state


@settings(FUZZ, max_examples=1000)
@given(case_index=st.integers(0, len(CASES) - 1), seed=st.integers(0, 15),
       fraction=st.floats(0, 1), data=st.data())
def test_mutated_state_documents(case_index, seed, fraction, data):
    doc = _state_doc(case_index, seed, fraction)
    text = data.draw(mutated_text(doc), label="text")
    state = _only_value_error(meeple.from_json, text)
    if state is not None:
        _check_accepted_state(state)


@settings(FUZZ, max_examples=400)
@given(case_index=st.integers(0, len(CASES) - 1), seed=st.integers(0, 15),
       fraction=st.floats(0, 1), data=st.data())
def test_mutated_state_documents_in_the_reference(case_index, seed, fraction, data):
    """The reference reads damaged documents as the engine does: a state or ValueError, and when
    both accept one, the same position."""
    case = CASES[case_index]
    reference_game = meeple.reference.load(case.name, **case.params)
    text = data.draw(mutated_text(_state_doc(case_index, seed, fraction)), label="text")
    state = _only_value_error(reference_game.from_json, text)
    engine_state = _only_value_error(case.load().from_json, text)
    assert (state is None) == (engine_state is None), (
        f"engine {'accepts' if engine_state is not None else 'refuses'}, reference "
        f"{'accepts' if state is not None else 'refuses'}: {text!r}")
    if state is not None:
        assert state.to_dict() == engine_state.to_dict()
        assert list(state.legal_actions()) == engine_state.legal_actions().tolist()


_ENVELOPE_DAMAGE = {
    "extra field": lambda d: {**d, "extra": 1},
    "extra field named like a state key": lambda d: {**d, "ply": 0},
    "no state": lambda d: {k: v for k, v in d.items() if k != "state"},
    "no parameters": lambda d: {k: v for k, v in d.items() if k != "parameters"},
    "no schema": lambda d: {k: v for k, v in d.items() if k != "schema"},
    "other schema": lambda d: {**d, "schema": d["schema"] + "x"},
    "game not a string": lambda d: {**d, "game": 1},
    "other game": lambda d: {**d, "game": "chess"},
    "parameters not an object": lambda d: {**d, "parameters": []},
    "state not an object": lambda d: {**d, "state": []},
    "not an object": lambda d: [d],
}


@pytest.mark.parametrize("damage", sorted(_ENVELOPE_DAMAGE))
@pytest.mark.parametrize("case_index", range(len(CASES)))
def test_damaged_envelopes_are_refused_by_both(case_index, damage):
    """The fuzz above rarely damages the document's own fields (its mutations fall anywhere in the
    tree): each damage of them, on both sides."""
    case = CASES[case_index]
    text = json.dumps(_ENVELOPE_DAMAGE[damage](_state_doc(case_index, 0, 0.5)))
    for read in (case.load().from_json, meeple.reference.load(case.name, **case.params).from_json):
        with pytest.raises(ValueError):
            read(text)


@settings(FUZZ, max_examples=600)
@given(case_index=st.integers(0, len(CASES) - 1), seed=st.integers(0, 15),
       fraction=st.floats(0, 1), data=st.data())
def test_mutated_record_documents(case_index, seed, fraction, data):
    doc = _record_doc(case_index, seed, fraction)
    text = data.draw(mutated_text(doc), label="text")
    record = _only_value_error(meeple.Record.from_json, text)
    if record is None:
        return
    written = record.to_json()
    again = meeple.Record.from_json(written)
    assert again.to_json() == written
    state = _only_value_error(lambda r: r.replay(), record)
    if state is not None:
        _check_accepted_state(state)
