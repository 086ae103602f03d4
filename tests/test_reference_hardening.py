"""Robustness of the pure-Python reference (python/meeple/reference/): bad input raises a clear
ValueError / TypeError, as the engine does, and never yields a silently wrong state.

- documents never make the reference open a file (a path as `characters`);
- copy.copy / copy.deepcopy of a reference state are independent states;
- Imperial Harvest `vp(team)` checks `team`, `new_initial_state(seed=...)` and `reseed` check the
  seed's range, as the engine does (same exception types and messages), and an action that is no
  int is a TypeError on both;
- Imperial Harvest state dicts: what the engine refuses the reference refuses (targeted cases, and
  a bounded seeded fuzzer of mutated `to_dict()`s);
- user card tables (`characters=`): what the engine refuses the reference refuses; what the two
  would read differently the reference refuses too; accepted tables play identically.
"""
from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

reference = pytest.importorskip("meeple.reference")

import meeple  # noqa: E402

GAMES = ("abacuachego", "harmonies", "imperial_harvest")
IH = "imperial_harvest"


def _random_play(state, rng, plies):
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(list(state.legal_actions())))
    return state


# ------------------------------------------------------------------------------ 1: documents

def test_document_never_opens_a_card_table_path(monkeypatch, tmp_path):
    table = tmp_path / "cards.json"
    table.write_text(json.dumps(meeple.imperial_harvest.data("characters")))
    game = reference.load(IH)
    doc = json.loads(game.new_initial_state().to_json())
    opened = []
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or pytest.fail("opened a file"))
    for path in (str(table), "/etc/passwd", "/dev/zero", "none", ""):
        doc["parameters"]["characters"] = path
        text = json.dumps(doc)
        with pytest.raises(ValueError) as ref_error:
            game.from_json(text)
        assert "a document holds the value itself" in str(ref_error.value)
        with pytest.raises(ValueError) as engine_error:
            meeple.from_json(text)
        assert str(ref_error.value) == str(engine_error.value)
    monkeypatch.undo()
    assert not opened
    # load itself, called by a person, still reads a path (as the engine's load does).
    for module in (meeple, reference):
        assert module.load(IH, characters=str(table)).parameters()["characters"]["defaults"]["ap"] == 3


@pytest.mark.parametrize("name, key, text", [("abacuachego", "pits_per_row", "10"),
                                             ("abacuachego", "skip_origin_on_lap", "false"),
                                             ("harmonies", "players", "2"),
                                             ("harmonies", "spirits", "true"),
                                             ("imperial_harvest", "board_seed", "5")])
def test_document_parameters_are_values_not_text(name, key, text):
    game = reference.load(name)
    doc = json.loads(game.new_initial_state().to_json())
    doc["parameters"][key] = text
    messages = []
    for read in (game.from_json, meeple.from_json):
        with pytest.raises(ValueError, match="a document holds the value itself") as error:
            read(json.dumps(doc))
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_card_table_parameter_is_the_games_own_copy():
    table = meeple.imperial_harvest.data("characters")
    game = reference.load(IH, characters=table)
    table["defaults"]["ap"] = 7
    assert game.parameters()["characters"]["defaults"]["ap"] == 3
    game.parameters()["characters"]["defaults"]["ap"] = 9
    assert game.parameters()["characters"]["defaults"]["ap"] == 3


# -------------------------------------------------------------------------------- 2: copies

@pytest.mark.parametrize("name, params", [("abacuachego", {}), ("harmonies", {"spirits": True}),
                                          ("imperial_harvest", {}),
                                          ("imperial_harvest", {"teams": "draft", "setup": "interactive"})])
def test_copy_and_deepcopy_are_independent(name, params):
    game = reference.load(name, **params)
    rng = random.Random(0)
    state = _random_play(game.new_initial_state(seed=3), rng, 7)
    for make in (copy.copy, copy.deepcopy, lambda s: s.clone()):
        before = state.to_json()
        other = make(state)
        assert other.to_json() == before and other is not state
        _random_play(other, rng, 12)
        assert state.to_json() == before
        assert other.to_json() != before


# ----------------------------------------------------------------------- 3, 4: vp and seeds

def _same_error(call_engine, call_reference):
    """Both raise the same exception type with the same message (or both return the same)."""
    outcomes = []
    for call in (call_engine, call_reference):
        try:
            outcomes.append(("ok", call()))
        except (TypeError, ValueError) as e:
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]
    return outcomes[1]


@pytest.mark.parametrize("name", GAMES)
def test_action_of_a_wrong_type_raises_type_error_as_the_engine(name):
    """An action that is no int is a TypeError on both (the reference said ValueError "illegal
    action" for True, 1.0 or None), and leaves the state unchanged."""
    engine, ref = meeple.load(name).new_initial_state(), reference.load(name).new_initial_state()
    before = ref.to_dict()

    class Spoon:
        pass

    for action in (True, False, 1.0, "1", None, [1], object(), Spoon(), np.True_, np.float64(1),
                   np.array([0, 1]), np.array(1.0)):
        for method in ("apply_action", "action_to_string"):
            kind, message = _same_error(lambda: getattr(engine, method)(action),
                                        lambda: getattr(ref, method)(action))
            assert kind == "TypeError" and message  # numpy's own for an array of two
    assert ref.to_dict() == before


def test_vp_checks_its_team():
    engine, ref = meeple.load(IH).new_initial_state(), reference.load(IH).new_initial_state()
    for team in (-1, 2, 2**70, -2**70, True, False, 1.0, "0", None):
        kind, _ = _same_error(lambda: engine.vp(team), lambda: ref.vp(team))
        assert kind in ("TypeError", "ValueError")
    assert ref.vp(0) == engine.vp(0) and ref.vp(1) == engine.vp(1)


@pytest.mark.parametrize("name", GAMES)
def test_seed_range_as_the_engine(name):
    engine, ref = meeple.load(name), reference.load(name)
    for seed in (2**64, 2**70, -1, True, 1.5, "3", [1]):
        kind, _ = _same_error(lambda: engine.new_initial_state(seed=seed).move_number(),
                              lambda: ref.new_initial_state(seed=seed).move_number())
        assert kind in ("TypeError", "ValueError")
    for seed in (None, 0, 2**64 - 1):
        assert ref.new_initial_state(seed=seed).move_number() == 0
    state_e, state_r = engine.new_initial_state(), ref.new_initial_state()
    for seed in (2**64, -1, True, 1.5, "3", None):
        before = state_r.to_dict()
        kind, _ = _same_error(lambda: state_e.reseed(seed), lambda: state_r.reseed(seed))
        assert kind in ("TypeError", "ValueError") and state_r.to_dict() == before


def test_random_board_seed_does_not_wrap():
    game = reference.load(IH, board="random")
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
        game.new_initial_state(seed=2**64 + 5)
    assert game.new_initial_state(seed=2**64 - 1).to_dict() != game.new_initial_state(seed=5).to_dict()


# ------------------------------------------------------------------------ 5: state dicts

def _accepts(game, d):
    try:
        game.state_from_dict(json.loads(json.dumps(d)))
    except ValueError as e:
        return str(e)
    return None


def _both_reject(params, d):
    engine_error = _accepts(meeple.load(IH, **params), d)
    reference_error = _accepts(reference.load(IH, **params), d)
    assert engine_error is not None, "the engine accepts the damaged dict"
    assert reference_error is not None, f"the reference accepts what the engine refuses: {engine_error}"


def _play_until(params, seed, stop, limit=500):
    state = meeple.load(IH, **params).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if stop(state.to_dict()):
            return state.to_dict()
        state.apply_action(rng.choice(list(state.legal_actions())))
    pytest.fail("position not reached")


def test_activation_flags_need_their_cause():
    params = {"teams": "monk,regent,imperial_bard/minotaur,hound,nymph"}
    state = meeple.load(IH, **params).new_initial_state()
    for text in ("rest bard", "activate monk"):
        state.apply_action(state.string_to_action(text))
    for flag in ("charged", "retriever_used"):
        d = state.to_dict()
        d["activation"][flag] = True
        _both_reject(params, d)


def test_setup_positions_hold_nothing_of_play():
    params = {"teams": "monk,regent,imperial_bard/minotaur,hound,nymph", "setup": "interactive"}
    d = _play_until(params, 1, lambda d: d["phase"] == "placement" and d["setup_step"] >= 3)
    placed = next(t for t, c in enumerate(d["characters"]) if c["cell"] is not None)
    damages = [lambda d: d["plucked"].__setitem__(0, 1),
               lambda d: d.update(hedges_planted=1),
               lambda d: d["regent_vp"].__setitem__(0, d["regent_vp"][0] - 1),
               lambda d: d.update(hydras=d["hydras"][::-1]),
               lambda d: d["characters"][placed].update(cell=[4, 4])]
    unplaced = next(t for t, c in enumerate(d["characters"]) if c["cell"] is None)
    damages.append(lambda d: d["characters"][unplaced].update(facing="e"))
    for damage in damages:
        bad = copy.deepcopy(d)
        damage(bad)
        _both_reject(params, bad)


def test_draft_follows_the_draft_order():
    params = {"teams": "draft"}
    d = _play_until(params, 2, lambda d: d["phase"] == "draft" and d["setup_step"] == 2)
    d["characters"][1], d["characters"][3] = d["characters"][3], d["characters"][1]  # I, I, -, -
    _both_reject(params, d)


def test_camps_before_the_four_bridges_refused():
    params = {"teams": "draft", "setup": "interactive"}
    d = _play_until(params, 0, lambda d: d["phase"] == "camps")
    d["bridges"] = d["bridges"][:3]
    _both_reject(params, d)


def test_sorceress_compelling_herself_refused():
    state = meeple.load(IH).new_initial_state()
    for text in ("rest bard", "activate monk", "end", "activate guardian", "end", "rest bard",
                 "activate sorceress"):
        state.apply_action(state.string_to_action(text))
    d = state.to_dict()
    d["activation"].update(compulsions=1, compel_target=d["active"])
    _both_reject({}, d)

def test_compulsions_without_a_compelling_character_refused():
    params = {"teams": "regent,monk,imperial_guardian/basilisk,hound,minotaur"}
    state = meeple.load(IH, **params).new_initial_state()
    for text in ("rest regent", "activate monk"):
        state.apply_action(state.string_to_action(text))
    d = state.to_dict()
    d["activation"].update(compulsions=1, compel_target=d["active"] + 1)
    _both_reject(params, d)


FUZZ_CONFIGS = ({}, {"teams": "draft", "setup": "interactive"},
                {"teams": "regent,monk,imperial_guardian/basilisk,hound,minotaur"},
                {"teams": "imperial_bard,nymph,ranger/puppeteer,skin_changer,sorceress",
                 "sides": "advanced/basic"},
                {"teams": "monk,regent,imperial_bard/minotaur,hound,nymph", "setup": "interactive"})
_VOCAB = ("rest", "pick", "act", "hydra", "respawn", "puppet", "draft", "bridges", "camps", "placement",
          "n", "e", "s", "w", "top_left", "bottom_right", "regent", "monk", "hound", "nymph")


def _paths(v, p=()):
    out = [p]
    if isinstance(v, dict):
        for k, x in v.items():
            out += _paths(x, p + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += _paths(x, p + (i,))
    return out


def _get(v, p):
    for k in p:
        v = v[k]
    return v


def _set(v, p, x):
    _get(v, p[:-1])[p[-1]] = x


def _is_cell(v):
    return isinstance(v, list) and len(v) == 2 and all(type(c) is int for c in v)


def _mutate(d, rng):
    """1-3 small damages: a boolean flipped, an int +-1, two cells swapped or one moved, a list
    entry dropped / repeated / swapped, a text replaced, a null filled."""
    d = copy.deepcopy(d)
    for _ in range(rng.choice((1, 1, 2, 3))):
        ps = [p for p in _paths(d) if p]
        p = rng.choice(ps)
        v, r = _get(d, p), rng.random()
        if isinstance(v, bool):
            _set(d, p, not v)
        elif isinstance(v, int):
            _set(d, p, v + rng.choice((-1, 1, -1, 1, 2, -2)))
        elif _is_cell(v):
            cells = [q for q in ps if q != p and _is_cell(_get(d, q))]
            if r < .5 and cells:
                q = rng.choice(cells)
                a, b = _get(d, p), _get(d, q)
                _set(d, p, b)
                _set(d, q, a)
            elif r < .8:
                v[rng.randrange(2)] += rng.choice((-1, 1))
            else:
                _set(d, p, None)
        elif isinstance(v, str):
            _set(d, p, rng.choice(_VOCAB))
        elif isinstance(v, list):
            if v and r < .3:
                v.pop(rng.randrange(len(v)))
            elif v and r < .5:
                v.append(copy.deepcopy(rng.choice(v)))
            elif len(v) > 1 and r < .8:
                i, j = rng.sample(range(len(v)), 2)
                v[i], v[j] = v[j], v[i]
            else:
                v.append(rng.randrange(8))
        elif v is None:
            same = [copy.deepcopy(_get(d, q)) for q in ps if q[-1] == p[-1] and _get(d, q) is not None]
            _set(d, p, rng.choice(same) if same else rng.randrange(8))
    return d


def test_state_dict_fuzz_engine_and_reference_accept_alike():
    """Mutated to_dict()s of random games: the reference accepts exactly what the engine accepts
    and accepted dicts are the same state in both."""
    rng = random.Random(20240607)
    games = [(meeple.load(IH, **p), reference.load(IH, **p)) for p in FUZZ_CONFIGS]
    pools = []
    for engine, _ in games:
        pool = []
        for seed in range(2):
            state = engine.new_initial_state(seed=seed)
            while not state.is_terminal():
                if rng.random() < 0.15:
                    pool.append(state.to_dict())
                state.apply_action(rng.choice(list(state.legal_actions())))
            pool.append(state.to_dict())
        pools.append(pool)
    accepted = 0
    for _ in range(3000):
        k = rng.randrange(len(games))
        d = _mutate(rng.choice(pools[k]), rng)
        engine, ref = games[k]
        engine_error, reference_error = _accepts(engine, d), _accepts(ref, d)
        if engine_error is None and reference_error is None:
            accepted += 1
            e, r = engine.state_from_dict(d), ref.state_from_dict(d)
            assert json.loads(e.to_json()) == json.loads(r.to_json())
            assert list(e.legal_actions()) == list(r.legal_actions())
        elif engine_error is None:
            raise AssertionError(("only the reference refuses", FUZZ_CONFIGS[k], reference_error, d))
        else:
            assert reference_error is not None, (FUZZ_CONFIGS[k], engine_error, d)
    assert accepted > 20


# ------------------------------------------------------------------------ 6: card tables

def _card(table, ident):
    return next(c for c in table["characters"] if c["id"] == ident)


def _table(edit):
    table = meeple.imperial_harvest.data("characters")
    edit(table)
    return table


# Tables the engine refuses: the reference refuses them too (ValueError, never KeyError/TypeError).
BOTH_REFUSE = {
    "first_game_duplicate": lambda t: t["first_game_teams"].update(imperial=["monk", "monk", "imperial_bard"]),
    "first_game_unknown": lambda t: t["first_game_teams"].update(imperial=["monk", "xx", "imperial_bard"]),
    "first_game_two": lambda t: t["first_game_teams"].update(raiders=["barbarian", "raider_bard"]),
    "first_game_archetypes": lambda t: t["first_game_teams"].update(raiders=["barbarian", "skin_changer", "raider_bard"]),
    "ap_text": lambda t: _card(t, "monk").update(ap="lots"),
    "ap_21": lambda t: _card(t, "monk").update(ap=21),
    "ap_negative": lambda t: _card(t, "monk").update(ap=-5),
    "ap_bool": lambda t: _card(t, "monk").update(ap=True),
    "ap_float": lambda t: _card(t, "monk").update(ap=3.0),
    "item_slots_9": lambda t: _card(t, "monk").update(item_slots=9),
    "strawberry_not_object": lambda t: _card(t, "monk").update(strawberry=3),
    "defaults_missing": lambda t: t["defaults"].pop("item_slots"),
    "ability_missing": lambda t: t["abilities"].pop("battle_axe"),
    "ability_unknown": lambda t: _card(t, "monk").update(abilities=["grapple", "fly", "plant"]),
    "ability_of_two_cards": lambda t: _card(t, "monk").update(abilities=["chop", "battle_axe", "throwing_axe"]),
    "two_per_game_limits": lambda t: _card(t, "monk").update(abilities=["grapple", "dragon_pounce", "plant", "chop"]),
    "cost_unreadable": lambda t: t["abilities"]["compulsion"].update(ap="5-x"),
    "cost_huge": lambda t: t["abilities"]["compulsion"].update(ap="1-99999999999"),
    "cost_21": lambda t: t["abilities"]["battle_axe"].update(ap=21),
    "advanced_ability_not_object": lambda t: t["abilities"]["battle_axe"].update(advanced=5),
    "advanced_ability_cost_25": lambda t: t["abilities"]["battle_axe"].update(advanced={"ap": 25}),
    "name_missing": lambda t: _card(t, "monk").pop("name"),
    "name_blank": lambda t: _card(t, "monk").update(name="Monk "),
    "archetype_missing": lambda t: _card(t, "monk").pop("archetype"),
    "shared_archetype": lambda t: _card(t, "monk").update(archetype="rogue"),
}

# Tables the engine's C++ would read otherwise than the rules (and the reference): both
# implementations refuse them, with the same words.
READ_OTHERWISE = {
    "advanced_ap_negative": (lambda t: _card(t, "monk").update(advanced={"ap": -1}), "advanced ap"),
    "advanced_ap_21_unplayed": (lambda t: _card(t, "monk").update(advanced={"ap": 21}), "ap must be in 0..20"),
    "attack_text": (lambda t: t["abilities"]["battle_axe"].update(attack="no"), "attack must be true or false"),
    "per_activation_20": (lambda t: t["abilities"]["grapple"].update(per_activation=20), "per_activation must be 1"),
    "per_activation_0": (lambda t: t["abilities"]["grapple"].update(per_activation=0), "per_activation must be 1"),
    "per_activation_on_axe": (lambda t: t["abilities"]["battle_axe"].update(per_activation=1), "per_activation"),
    "range_cost_on_grapple": (lambda t: t["abilities"]["grapple"].update(ap="1-1"), "compulsion's form only"),
    "text_cost": (lambda t: t["abilities"]["battle_axe"].update(ap="free"), "its AP cost"),
    "compulsion_int_cost": (lambda t: t["abilities"]["compulsion"].update(ap=2), "'N-M'"),
    "compulsion_limit_4": (lambda t: t["abilities"]["compulsion"].update(ap="1-4"), "'N-M'"),
    "plant_no_uses": (lambda t: t["abilities"]["plant"].update(uses_per_game=0), "uses_per_game"),
    "uses_on_wolf_form": (lambda t: t["abilities"]["wolf_form"].update(uses_per_game=2), "uses_per_game"),
    "horns_without_number": (lambda t: t["abilities"]["horns"].pop("ap_when_charging"), "ap_when_charging"),
    "sentry_without_number": (lambda t: t["abilities"]["sentry"].pop("max_on_board"), "max_on_board"),
    "foreign_number": (lambda t: t["abilities"]["point_of_order"].update(ap_loss=1), "only number"),
    "point_of_order_moved": (lambda t: (_card(t, "regent").update(abilities=["command", "sentry"]),
                                        _card(t, "monk")["abilities"].append("point_of_order")), "point_of_order"),
    "sentry_moved": (lambda t: (_card(t, "regent").update(abilities=["command", "point_of_order"]),
                                _card(t, "monk")["abilities"].append("sentry")), "sentry"),
    # An ability with an action, and a passive one the engine reads from one card (point 35).
    "spear_twice": (lambda t: _card(t, "monk")["abilities"].append("spear"), "ability 'spear' belongs to two cards"),
    **{f"{passive}_twice": ((lambda passive: lambda t: _card(t, "barbarian")["abilities"].append(passive))(passive),
                            f"ability '{passive}' belongs to two cards")
       for passive in ("feral", "guardian", "poison_blood", "petrifying_gaze", "territorial", "aura_of_tranquility",
                       "silent_sentinel")},
}


@pytest.mark.parametrize("edit", list(BOTH_REFUSE), ids=list(BOTH_REFUSE))
def test_card_tables_the_engine_refuses(edit):
    table = _table(BOTH_REFUSE[edit])
    for sides in ("basic", "advanced"):
        with pytest.raises(ValueError):
            meeple.load(IH, characters=copy.deepcopy(table), sides=sides)
        with pytest.raises(ValueError):
            reference.load(IH, characters=copy.deepcopy(table), sides=sides)


@pytest.mark.parametrize("edit", list(READ_OTHERWISE), ids=list(READ_OTHERWISE))
def test_card_tables_read_otherwise_are_refused_by_both(edit):
    change, message = READ_OTHERWISE[edit]
    table = _table(change)
    for sides in ("basic", "advanced"):
        for module in (meeple, reference):
            with pytest.raises(ValueError, match=message):
                module.load(IH, characters=copy.deepcopy(table), sides=sides)


def test_other_passive_abilities_may_sit_on_several_cards():
    """As Agility and the Bards' songs do in the shipped table: a Tower Shield and Camouflage
    given to more cards are read from each card."""
    def change(t):
        for ident in ("monk", "barbarian"):
            _card(t, ident)["abilities"] += ["tower_shield", "camouflage", "agility"]
    table = _table(change)
    for module in (meeple, reference):
        assert module.load(IH, characters=copy.deepcopy(table))
    game = meeple.load(IH, characters=table)  # the barbarian's Agility: a diagonal step
    state = game.new_initial_state(seed=1)
    for text in ("rest monk", "activate guardian", "end", "activate bard", "end", "rest sorceress",
                 "activate barbarian"):
        state.apply_action(state.string_to_action(text))
    assert "move nw" in [state.action_to_string(a) for a in state.legal_actions()]


def test_first_game_teams_unchecked_for_other_teams():
    """As the engine: the first-game teams of a table only matter with teams='first_game'."""
    table = _table(BOTH_REFUSE["first_game_duplicate"])
    for teams in ("draft", "regent,monk,imperial_guardian/basilisk,hound,minotaur"):
        for module in (meeple, reference):
            assert module.load(IH, characters=copy.deepcopy(table), teams=teams)


def test_accepted_user_tables_play_alike():
    def edit(t):
        t["defaults"]["ap"] = 4
        _card(t, "monk")["advanced"] = {"ap": 5, "strawberry": {"bonus_ap": 2}}
        t["abilities"]["grapple"]["ap"] = 2
        t["abilities"]["plant"]["uses_per_game"] = 1
        t["abilities"]["compulsion"]["ap"] = "1-2"
        t["abilities"]["horns"]["ap_when_charging"] = 1
        t["abilities"]["sentry"]["max_on_board"] = 1
        t["abilities"]["battle_axe"]["advanced"] = {"ap": 2}
    table = _table(edit)
    for teams, sides in (("first_game", "advanced/basic"),
                         ("regent,monk,imperial_guardian/basilisk,hound,minotaur", "basic/advanced"),
                         ("imperial_bard,nymph,ranger/puppeteer,skin_changer,sorceress", "advanced")):
        engine = meeple.load(IH, characters=copy.deepcopy(table), teams=teams, sides=sides)
        ref = reference.load(IH, characters=copy.deepcopy(table), teams=teams, sides=sides)
        assert engine.max_game_length() == ref.max_game_length()
        rng = random.Random(7)
        e, r = engine.new_initial_state(seed=1), ref.new_initial_state(seed=1)
        while not e.is_terminal():
            legal = list(e.legal_actions())
            assert legal == list(r.legal_actions())
            action = rng.choice(legal)
            e.apply_action(action)
            r.apply_action(action)
            assert json.loads(e.to_json())["state"] == json.loads(r.to_json())["state"]
        assert r.is_terminal() and list(e.returns()) == r.returns()
