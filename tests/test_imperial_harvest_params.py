"""Imperial Harvest part 2 parameters at the Python boundary (docs/rules/imperial-harvest.md,
"Parameters and construction"): board="random" with board_seed, sides per team, teams as a mode or a
custom string, setup, and a user character table (dict or JSON path). Bad values raise ValueError
naming the problem and the choices before anything reaches C++; games rebuild from parameters()."""
from __future__ import annotations

import json
import pickle
import random
import re

import meeple
import numpy as np
import pytest
from meeple._registry import parse_game_string
from meeple.imperial_harvest import (_ABILITY_RULES, USAGE_LEGEND, Board, action_word, cards_in_play, data,
                                     describe_character)

CUSTOM = "monk,regent,imperial_bard/barbarian,hound,nymph"


def test_game_string_keeps_commas_inside_a_value():
    name, params = parse_game_string(f"imperial_harvest(teams={CUSTOM},setup=interactive)")
    assert name == "imperial_harvest"
    assert params == {"teams": CUSTOM, "setup": "interactive"}
    with pytest.raises(ValueError, match="expected key=value"):
        parse_game_string("imperial_harvest(monk,teams=draft)")


@pytest.mark.parametrize("value, message", [
    ("monk,regent/barbarian,hound,nymph", "two lists of 3 character ids"),
    ("draftt", "expected 'first_game', 'draft'"),
    (3, "expected 'first_game', 'draft'"),
])
def test_teams_form_is_checked(value, message):
    with pytest.raises(ValueError, match=message):
        meeple.load("imperial_harvest", teams=value)


@pytest.mark.parametrize("value, message", [
    ("monk,regent,wizard/barbarian,hound,nymph", "unknown character 'wizard'"),
    ("monk,hound,imperial_bard/barbarian,sorceress,nymph", "two utility characters"),
    ("monk,regent,imperial_bard/barbarian,monk,nymph", "the raiders team has two utility|chosen twice"),
    ("monk,regent,imperial_bard/barbarian,regent,ranger", "regent chosen twice"),
])
def test_teams_are_checked_against_the_cards(value, message):
    with pytest.raises(ValueError, match=message):
        meeple.load("imperial_harvest", teams=value)


@pytest.mark.parametrize("value", ["basic/expert", "advanced/basic/basic", "", 1])
def test_sides_are_checked(value):
    with pytest.raises(ValueError, match="'basic', 'advanced' or '<imperial>/<raiders>'"):
        meeple.load("imperial_harvest", sides=value)


def test_bad_board_and_seed_name_the_choices():
    with pytest.raises(ValueError, match="'standard' \\| 'symmetric' \\| 'random'"):
        meeple.load("imperial_harvest", board="moon")
    with pytest.raises(ValueError, match="board_seed"):
        meeple.load("imperial_harvest", board="random", board_seed=-1)


@pytest.mark.parametrize("load", [meeple.load, meeple.reference.load], ids=["engine", "reference"])
@pytest.mark.parametrize("board", ["standard", "symmetric"])
def test_board_seed_needs_the_random_board(load, board):
    """board_seed only chooses a random board; with a named board it would be silently unused."""
    with pytest.raises(ValueError, match=f"board_seed=3 needs board='random' \\(board is '{board}'\\)"):
        load("imperial_harvest", board=board, board_seed=3)
    assert load("imperial_harvest", board=board, board_seed=None).parameters()["board_seed"] is None


@pytest.mark.parametrize("load", [meeple.load, meeple.reference.load], ids=["engine", "reference"])
def test_board_seed_may_be_a_numpy_integer(load):
    """As every seed may: read as the int it equals (and written so in parameters())."""
    seed = load("imperial_harvest", board="random", board_seed=np.int64(3)).parameters()["board_seed"]
    assert seed == 3 and type(seed) is int
    for bad in (np.True_, np.float64(3)):
        with pytest.raises(ValueError, match="board_seed"):
            load("imperial_harvest", board="random", board_seed=bad)


def test_character_table_problems_are_named(tmp_path):
    table = data("characters")
    table["characters"] = table["characters"][:-1]
    with pytest.raises(ValueError, match="missing ranger"):
        meeple.load("imperial_harvest", characters=table)
    with pytest.raises(ValueError, match="cannot read the character table"):
        meeple.load("imperial_harvest", characters=str(tmp_path / "nowhere.json"))
    with pytest.raises(ValueError, match="cannot read the character table .*not a valid file name"):
        meeple.load("imperial_harvest", characters="\ud800.json")  # no file system can encode it
    with pytest.raises(ValueError, match="cannot read the character table .*not a valid file name"):
        meeple.load("imperial_harvest", characters="a\x00b.json")
    latin = tmp_path / "latin1.json"
    latin.write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        meeple.load("imperial_harvest", characters=str(latin))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        meeple.load("imperial_harvest", characters=str(bad))
    with pytest.raises(ValueError, match="must be None, a dict"):
        meeple.load("imperial_harvest", characters=[1, 2])
    no_abilities = data("characters")
    del no_abilities["abilities"]
    with pytest.raises(ValueError, match="'abilities' must be an object"):
        meeple.load("imperial_harvest", characters=no_abilities)


def _table_with(change):
    table = data("characters")
    change(table)
    return table


@pytest.mark.parametrize("load", [meeple.load, meeple.reference.load], ids=["engine", "reference"])
@pytest.mark.parametrize("change, message", [
    (lambda t: t.update(schema="imperial-harvest-characters/2"), "'schema' must be 'imperial-harvest-characters/1'"),
    (lambda t: t.pop("schema"), "'schema' must be 'imperial-harvest-characters/1'.*got None"),
    (lambda t: t.update(abilitys={}), "unknown key 'abilitys'"),
    (lambda t: t["defaults"].update(ap=-1), "characters.defaults: ap must be in 0..20"),
    (lambda t: t["defaults"].update(item_slots=9), "characters.defaults: item_slots must be in 0..8"),
    (lambda t: t["defaults"]["strawberry"].update(bonus_ap=11), "characters.defaults: bonus_ap must be in 0..10"),
    (lambda t: t["characters"][2].update(ap_=3), "unknown key 'ap_' in character 'sorceress'; its keys: id, name"),
    (lambda t: t["characters"][2].update(advanced={"item_slot": 3}),
     r"unknown key 'item_slot' in character 'sorceress'\.advanced; its keys: ap, item_slots, strawberry"),
    (lambda t: t["characters"][2].update(strawberry={"bonus": 1}),
     r"unknown key 'bonus' in character 'sorceress'\.strawberry; its keys: bonus_ap"),
    (lambda t: t["defaults"].update(slots=2), "unknown key 'slots' in defaults; its keys: ap, item_slots"),
    (lambda t: t["defaults"]["strawberry"].update(bonusap=1), r"unknown key 'bonusap' in defaults\.strawberry"),
    (lambda t: t["abilities"]["spear"].update(atack=True), "unknown key 'atack' in ability 'spear'; its keys: ap,"),
    (lambda t: t["abilities"]["spear"].update(advanced={"aP": 1}), r"unknown key 'aP' in ability 'spear'\.advanced"),
], ids=["other_schema", "no_schema", "unknown_key", "defaults_ap", "defaults_slots", "defaults_bonus", "card_key",
        "card_advanced_key", "card_strawberry_key", "defaults_key", "defaults_strawberry_key", "ability_key",
        "ability_advanced_key"])
def test_character_table_version_keys_and_defaults(load, change, message):
    """The table's version is checked (a later one may mean other things), an unknown key anywhere
    is a typo, not silently ignored, and a bad default is named as the default, not as the first
    card it reaches (refused even where every card has its own number)."""
    with pytest.raises(ValueError, match=message):
        load("imperial_harvest", characters=_table_with(change))
    load("imperial_harvest", characters=_table_with(lambda t: t.pop("about")))  # the prose is optional
    own = {"ap": 4, "item_slots": 3, "strawberry": {"bonus_ap": 2}, "advanced": {"ap": 5}}
    load("imperial_harvest", characters=_table_with(lambda t: t["characters"][2].update(own)))


def test_data_names_its_files():
    assert set(data("boards")["boards"]) >= {"standard"}
    with pytest.raises(ValueError, match="expected 'boards', 'tiles' or 'characters'"):
        data("hydras")


def test_parameters_report_every_public_parameter():
    game = meeple.load("imperial_harvest", teams=CUSTOM.upper(), sides="basic/advanced")
    assert game.parameters() == {"board": "standard", "board_seed": None, "sides": "basic/advanced",
                                 "teams": CUSTOM, "setup": "fixed", "characters": None}
    assert meeple.load("imperial_harvest", sides="advanced/advanced").parameters()["sides"] == "advanced"


def test_custom_teams_play_in_slot_order():
    state = meeple.load("imperial_harvest", teams=CUSTOM).new_initial_state()
    ids = [c["id"] for c in state.to_dict()["characters"]]
    assert ids == CUSTOM.replace("/", ",").split(",")
    assert state.to_dict()["regent_vp"] == [3, 0]


def test_random_board_comes_from_board_seed():
    a = meeple.load("imperial_harvest", board="random", board_seed=11)
    b = meeple.load("imperial_harvest", board="random", board_seed=11)
    c = meeple.load("imperial_harvest", board="random", board_seed=12)
    assert a == b and a != c
    assert a.parameters()["board"] == "random" and a.parameters()["board_seed"] == 11
    hedges = a.new_initial_state().to_dict()["hedges"]
    assert hedges == b.new_initial_state().to_dict()["hedges"]
    assert hedges != c.new_initial_state().to_dict()["hedges"]
    # The engine builds the same hedges from the tiles as the Python Board does.
    expected = Board.random(11).to_dict()["hedges"]
    assert sorted([list(e[0]), list(e[1])] for e in expected) == hedges
    assert a.new_initial_state().to_dict()["tiles"] == {k: list(v) for k, v in Board.random(11).to_dict()["tiles"].items()}


def test_random_board_per_game_from_the_game_seed():
    """D37: board="random" without board_seed: every new_initial_state(seed) has its own board, the
    one Board.random(seed) draws, in the engine (C++) and the reference alike; VectorGame resets get
    new boards."""
    import meeple.reference

    game = meeple.load("imperial_harvest", board="random")
    reference = meeple.reference.load("imperial_harvest", board="random")
    assert game.parameters()["board_seed"] is None
    boards = set()
    for seed in (0, 1, 2, 99, 2**40 + 7):
        d = game.new_initial_state(seed=seed).to_dict()
        assert d == reference.new_initial_state(seed=seed).to_dict()
        expected = Board.random(seed).to_dict()
        assert d["tiles"] == {slot: list(v) for slot, v in expected["tiles"].items()}
        assert d["hedges"] == sorted(expected["hedges"])
        assert sorted(d["bridges"]) == sorted(expected["bridges"])
        boards.add(str(d["tiles"]))
    assert len(boards) == 5
    assert game.new_initial_state(seed=3) == game.new_initial_state(seed=3)
    # The text names no fixed board: the one drawn from the template would be "standard".
    assert str(game.new_initial_state(seed=3)).startswith("Imperial Harvest (board random), ")
    vector = meeple.VectorGame(game, 4, seed=5)
    assert len({str(vector.state(i).to_dict()["tiles"]) for i in range(4)}) == 4


def test_user_table_in_a_file_is_read_and_kept(tmp_path):
    table = data("characters")
    for card in table["characters"]:
        card["advanced"] = {"ap": 5}
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(table))
    game = meeple.load("imperial_harvest", characters=str(path), sides="advanced/basic")
    assert game.parameters()["characters"] == table  # the table itself: the game is portable
    state = game.new_initial_state()
    for text in ("rest bard", "activate monk"):
        state.apply_action(state.string_to_action(text))
    assert state.to_dict()["activation"]["ap"] == 5 + 1  # advanced 5 AP + the allied Bard's Ballad
    again = meeple.from_json(state.to_json())
    assert again == state and again.game == game
    assert pickle.loads(pickle.dumps(state)) == state


@pytest.mark.parametrize("params", [
    {"teams": "draft"}, {"setup": "interactive"}, {"teams": "draft", "setup": "interactive", "board": "random",
                                                   "board_seed": 3}])
def test_setups_round_trip_through_json_and_game_strings(params):
    game = meeple.load("imperial_harvest", **params)
    text = "imperial_harvest(" + ",".join(f"{k}={v}" for k, v in game.parameters().items() if v is not None) + ")"
    assert meeple.load(text) == game
    state = game.new_initial_state()
    assert meeple.from_json(state.to_json()) == state


# --- the cards as a player reads them (meeple play's `cards`) ------------------------------------

CORE_WORDS = {"activate", "bridge", "camp", "deposit", "discard", "draft", "end", "face", "forfeit", "hydra",
              "move", "pass", "place", "pluck", "respawn", "rest"}


def test_action_words_are_the_engines():
    """Every active ability's word is a word the engine writes, and every word the engine writes
    for an ability belongs to one."""
    game = meeple.load("imperial_harvest", teams="draft", setup="interactive")
    state = game.new_initial_state(seed=1)
    engine_words = {state.action_to_string(a).split()[0] for a in range(game.num_distinct_actions())}
    ability_words = {action_word(a) for a in data("characters")["abilities"]} - {None}
    assert ability_words == engine_words - CORE_WORDS
    assert action_word("agility") is None and action_word("changeling") is None
    with pytest.raises(ValueError, match="unknown ability 'axe'; abilities: chop, battle_axe"):
        action_word("axe")


def test_describe_character_reads_the_table_on_each_side():
    table = data("characters")
    for card in table["characters"]:
        if card["id"] == "barbarian":
            card["advanced"] = {"ap": 4, "strawberry": {"bonus_ap": 2}}
    table["abilities"]["battle_axe"]["advanced"] = {"ap": 2}
    basic = describe_character("barbarian", "basic", table)
    advanced = describe_character("barbarian", "advanced", table)
    assert basic.splitlines()[0].endswith(": 3 AP, 2 item slots, strawberry bonus +1 AP")
    assert "  Battle Axe: 1 AP, attack; action 'axe'" in basic.splitlines()
    assert advanced.splitlines()[0].endswith("; advanced side): 4 AP, 2 item slots, strawberry bonus +2 AP")
    assert "  Battle Axe: 2 AP, attack; action 'axe'" in advanced.splitlines()
    assert "  Throwing Axe: 1 AP, attack, once per activation; action 'throw'" in advanced.splitlines()
    # What the description says is what the engine plays: the Barbarian activates with one AP
    # more on the advanced side (4 against 3; an allied Bard's Ballad may add the same to both).
    activation_ap = {}
    for sides in ("basic", "basic/advanced"):
        state = meeple.load("imperial_harvest", characters=table, sides=sides).new_initial_state()
        state.apply_action(state.string_to_action("rest bard"))
        while state.current_player() == 0:  # the Imperial turn, the same in both games
            state.apply_action(state.legal_actions()[0])
        state.apply_action(state.string_to_action("rest sorceress"))
        state.apply_action(state.string_to_action("activate barbarian"))
        activation_ap[sides] = state.to_dict()["activation"]["ap"]
    assert activation_ap["basic/advanced"] - activation_ap["basic"] == 4 - 3
    shown = cards_in_play(state)  # in 78 columns, as play shows it
    assert f"raiders: {describe_character('barbarian', 'advanced', table, width=78)}" in shown
    assert f"imperial: {describe_character('monk', 'basic', table, width=78)}" in shown
    for bad, message in [(("hero",), "unknown character 'hero'; known: barbarian"),
                         (("monk", "gold"), "side must be 'basic' or 'advanced', got 'gold'")]:
        with pytest.raises(ValueError, match=message):
            describe_character(*bad)


def test_cards_in_play_shows_the_teams_and_the_draft_pool():
    state = meeple.load("imperial_harvest").new_initial_state()
    text = cards_in_play(state)
    for team, ids in data("characters")["first_game_teams"].items():
        for character in ids:
            assert f"{team}: {describe_character(character, width=78)}" in text
    assert text.count("uses left: 3") == 2  # Monk (plant) and Barbarian (chop)
    assert "draft" not in text
    state = meeple.load("imperial_harvest", teams="draft").new_initial_state(seed=2)
    pool = [c["id"] for c in data("characters")["characters"]]
    assert cards_in_play(state).count("not drafted yet") == 6
    assert all(describe_character(c, width=78) in cards_in_play(state) for c in pool)
    state.apply_action(state.string_to_action("draft nymph"))
    text = cards_in_play(state)
    assert text.count("not drafted yet") == 5 and f"imperial: {describe_character('nymph', width=78)}" in text
    assert text.count(describe_character("nymph", width=78)) == 1  # no longer in the pool


def test_every_ability_has_a_rule_for_players():
    """The shipped table and the rules text name the same abilities; passive abilities (and
    Changeling, which borrows) have no usage, active ones are written with their action word."""
    abilities = data("characters")["abilities"]
    assert set(_ABILITY_RULES) == set(abilities)
    for ability, (usage, rule) in _ABILITY_RULES.items():
        assert rule and not rule.endswith(".")
        word = action_word(ability)
        assert (usage.split()[0] if usage else None) == word, ability


# The usage words of USAGE_LEGEND as patterns of the engine's action strings (docs/rules/
# imperial-harvest.md, "Actions"): a token off the board is written by its name, a grapple landing
# relative to a token that cannot grapple now as a signed offset.
_USAGE_PATTERNS = {"TARGET": r"(?:\d+,\d+(?::[\w.-]+)?|[\w.-]+)", "CELL": r"[+-]?\d+,[+-]?\d+", "DIR": "[nesw]",
                   "DIAG": "(?:ne|se|sw|nw)", "N": r"\d+"}


def test_usages_are_how_the_engine_writes_the_actions():
    """Every action string the engine writes for an ability, in positions of random games with all
    14 characters, has the form of that ability's usage; every usage word is explained in
    USAGE_LEGEND."""
    usage_of = {usage.split()[0]: usage for usage, _ in _ABILITY_RULES.values() if usage}
    patterns = {word: re.compile(" ".join([re.escape(word)] + [_USAGE_PATTERNS[w] for w in usage.split()[1:]]))
                for word, usage in usage_of.items()}
    assert all(f"{w}:" in USAGE_LEGEND for w in _USAGE_PATTERNS)
    seen = dict.fromkeys(usage_of, 0)
    for teams in ("monk,regent,imperial_bard/barbarian,hound,nymph",
                  "imperial_guardian,basilisk,puppeteer/sorceress,minotaur,ranger",
                  "ranger,minotaur,raider_bard/skin_changer,sorceress,basilisk"):
        game = meeple.load("imperial_harvest", teams=teams, board="random", board_seed=3)
        for seed in range(4):
            state, rng = game.new_initial_state(seed=seed), random.Random(seed)
            for _ in range(60):
                if state.is_terminal():
                    break
                for action in range(game.num_distinct_actions()):
                    text = state.action_to_string(action)
                    word = text.split()[0]
                    if word in patterns:
                        seen[word] += 1
                        assert patterns[word].fullmatch(text), (text, usage_of[word])
                state.apply_action(rng.choice(list(state.legal_actions())))
    assert all(seen.values()), seen


def test_rules_text_fills_in_each_sides_numbers():
    table = data("characters")
    table["abilities"]["petrifying_gaze"]["advanced"] = {"ap_loss": 3}
    table["abilities"]["sentry"]["advanced"] = {"max_on_board": 1}
    basic = describe_character("basilisk", "basic", table)
    advanced = describe_character("basilisk", "advanced", table)
    assert "by its own action loses 2 AP, once per activation" in basic
    assert "by its own action loses 3 AP, once per activation" in advanced
    assert "(at most 1 on the board)" in describe_character("regent", "advanced", table)
    # Without the rules text, the card lines alone; every character, both sides, renders.
    for card in table["characters"]:
        for side in ("basic", "advanced"):
            full = describe_character(card["id"], side, table).splitlines()
            short = describe_character(card["id"], side, table, rules_text=False).splitlines()
            assert short == [line for line in full if not line.startswith("    ")]
            assert len(short) == 1 + len(card["abilities"]) and len(full) > len(short)
