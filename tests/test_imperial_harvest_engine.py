"""Imperial Harvest C++ engine: random-game invariants, serialisation, action names, board data and
a few rules from hand-built positions (the main rule tests, run on both implementations, are in
tests/test_imperial_harvest_rules.py)."""
from __future__ import annotations

import copy
import json
import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meeple
from meeple import imperial_harvest
from json_mutation import mutated_document

IMPERIAL, RAIDERS = 0, 1
MONK, GUARDIAN, IBARD, BARBARIAN, SORCERESS, RBARD = range(6)
ACT = dict(rest=0, activate=3, forfeit=6, hydra=9, move=17, face=25, pluck=29, deposit=30, discard=31,
           end=32, pass_=33, respawn=65, grapple=69, pounce=165, plant=169, spear=173, chop=181, axe=185,
           throw=193, charm=201, shadow=233, compel=237)
DIRS = {"n": 0, "e": 1, "s": 2, "w": 3}


@pytest.fixture(scope="module", params=["standard", "symmetric"])
def game(request):
    return meeple.load("imperial_harvest", board=request.param)


@pytest.fixture(scope="module")
def standard():
    return meeple.load("imperial_harvest")


def play(game, seed, max_plies=None):
    """The states of one random game (clones)."""
    state = game.new_initial_state()
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal() and (max_plies is None or len(states) <= max_plies):
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.randrange(len(legal))]))
        states.append(state.clone())
    return states


# ----------------------------------------------------------------------------------- invariants


def test_state_is_small():
    assert imperial_harvest.State.state_size_bytes <= 512


def test_sizes(standard):
    assert standard.num_distinct_actions() == 491
    assert standard.observation_shape() == (2131,)
    assert standard.num_players() == 2 and standard.max_chance_outcomes() == 0


@pytest.mark.parametrize("seed", range(12))
def test_random_game_invariants(game, seed):
    states = play(game, seed)
    final = states[-1]
    assert final.is_terminal() and len(states) - 1 <= game.max_game_length()
    for i, state in enumerate(states):
        legal = state.legal_actions()
        mask = state.legal_actions_mask()
        assert sorted(legal.tolist()) == legal.tolist()
        assert np.flatnonzero(mask).tolist() == legal.tolist()
        assert state.move_number() == i
        d = state.to_dict()
        again = game.state_from_dict(json.loads(json.dumps(d)))
        assert again == state and again.to_dict() == d
        assert pickle.loads(pickle.dumps(state)) == state
        assert meeple.from_json(state.to_json()) == state
        obs = state.observation_tensor(0)
        assert obs.shape == (2131,) and np.all(np.isfinite(obs))
        if not state.is_terminal():
            assert len(legal) > 0
            assert state.current_player() in (0, 1)
            assert state.returns().tolist() == [0.0, 0.0]
            # clone independence
            child = state.clone()
            child.apply_action(int(legal[0]))
            assert state.to_dict() == d
            # an illegal action is rejected and changes nothing
            illegal = next(a for a in range(491) if a not in set(legal.tolist()))
            with pytest.raises(ValueError):
                state.apply_action(illegal)
            assert state.to_dict() == d
    vp = final.vp(0), final.vp(1)
    expected = [0.0, 0.0] if vp[0] == vp[1] else ([1.0, -1.0] if vp[0] > vp[1] else [-1.0, 1.0])
    assert final.returns().tolist() == expected
    assert final.current_player() == meeple.TERMINAL and final.legal_actions().size == 0


def test_vp_formula(standard):
    from test_imperial_harvest_endgame_differential import endgame_dict

    # Random games from the start rarely carry a strawberry home: endgames (strawberries carried
    # near the camps, some deposited) played on at random give every term of the formula.
    states = play(standard, 3)
    for seed in range(8):
        state = standard.state_from_dict(endgame_dict(standard, seed))
        rng = random.Random(seed)
        states.append(state.clone())
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))
            states.append(state.clone())
    seen = {"carried": False, "deposited": False}
    for state in states:
        d = state.to_dict()
        for team in (0, 1):
            carried = sum(c["strawberries"] for c in d["characters"][3 * team:3 * team + 3])
            seen["carried"] |= carried > 0
            seen["deposited"] |= d["deposited"][team] > 0
            assert state.vp(team) == d["plucked"][team] + carried + 2 * d["deposited"][team]
            # The board's VP line gives every term, so that it adds up.
            line = re.search(rf"{('imperial', 'raiders')[team]} (\d+) = plucked (\d+) \+ carried (\d+) \+ 2 x "
                             rf"deposited (\d+) \+ regent (\d+)\n", str(state))
            total, plucked, carried_shown, deposited, regent = map(int, line.groups())
            assert (plucked, carried_shown, deposited, regent) == \
                (d["plucked"][team], carried, d["deposited"][team], d["regent_vp"][team])
            assert total == state.vp(team) == plucked + carried_shown + 2 * deposited + regent
    assert all(seen.values()), seen
    for bad, error in ((2, ValueError), (-1, ValueError), (2**64, ValueError), (True, TypeError), (0.0, TypeError)):
        with pytest.raises(error, match="team must be an int"):
            state.vp(bad)
    assert state.vp(np.int64(1)) == state.vp(1)


def test_random_playouts_terminate(game):
    result = meeple.random_playouts(game, 300, seed=4)
    assert np.all(result.lengths >= 1) and np.all(result.lengths <= game.max_game_length())
    assert np.allclose(result.returns.sum(axis=1), 0)


@pytest.mark.parametrize("seed", range(3))
def test_every_action_name_round_trips(standard, seed):
    for state in play(standard, seed)[::3]:
        names = [state.action_to_string(a) for a in range(491)]
        assert len(set(names)) == 491
        for a in (0, 17, 69, 100, 164, 268) + tuple(state.legal_actions().tolist()):
            assert state.string_to_action(names[a]) == a
            assert state.string_to_action("  " + names[a].upper().replace(" ", "   ") + " ") == a


def test_perft_small(standard):
    state = standard.new_initial_state()
    assert standard.perft(state, 1) == 3  # rest monk / guardian / bard
    def count(s, depth):
        if depth == 0:
            return 1
        total = 0
        for a in s.legal_actions():
            child = s.clone()
            child.apply_action(int(a))
            total += count(child, depth - 1)
        return total
    for depth in range(4):
        assert standard.perft(state, depth) == count(state, depth)


# ----------------------------------------------------------------------------------- board data


def _sorted_pairs(pairs):
    return sorted([list(map(list, p)) for p in pairs])


@pytest.mark.parametrize("board", ["standard", "symmetric"])
def test_board_hedges_match_boards_json(board):
    listed = imperial_harvest.data("boards")["boards"][board]["hedges"]
    game = meeple.load("imperial_harvest", board=board)
    assert game.board_hedges() == _sorted_pairs(listed)
    assert game.new_initial_state().to_dict()["hedges"] == _sorted_pairs(listed)


def test_standard_board_is_built_from_tiles():
    """The engine builds 'standard' from its tile faces: a changed face changes the hedges."""
    boards, tiles, chars = (imperial_harvest.data(n) for n in ("boards", "tiles", "characters"))
    boards["boards"]["standard"]["hedges"] = []  # ignored for a board with tiles
    game = meeple._core.ImperialHarvestGame(board="standard", boards=boards, tiles=tiles, characters=chars)
    assert game.board_hedges() == _sorted_pairs(imperial_harvest.data("boards")["boards"]["standard"]["hedges"])
    boards["boards"]["standard"]["tiles"]["iBR"] = ["S4b", 0]  # a face without hedges
    other = meeple._core.ImperialHarvestGame(board="standard", boards=boards, tiles=tiles, characters=chars)
    assert [[5, 4], [5, 5]] in game.board_hedges() and [[5, 4], [5, 5]] not in other.board_hedges()


@pytest.mark.parametrize("change", [
    lambda b, t, c: b["boards"]["standard"].update(bridges=[[2, 2]]),
    lambda b, t, c: b["boards"]["standard"].update(hydras=[[3, 3], [2, 7]]),
    lambda b, t, c: b["boards"]["standard"]["tiles"].update(T1=["L6a", 0]),
    lambda b, t, c: b["boards"]["standard"]["tiles"].update(T1=["nope", 1]),
    lambda b, t, c: b["boards"]["standard"]["camps"].update(imperial_character="top_left"),
    lambda b, t, c: b["boards"]["standard"].pop("strawberries"),
    lambda b, t, c: c["first_game_teams"].update(imperial=["monk", "monk", "imperial_bard"]),
    lambda b, t, c: c["first_game_teams"].update(imperial=["nobody", "monk", "imperial_bard"]),
    lambda b, t, c: c["characters"][0]["abilities"].append("flying"),
    lambda b, t, c: c["defaults"].update(ap="three"),
    lambda b, t, c: t["faces"]["L6a"]["hedges"].append([0, 0, "Q"]),
])
def test_bad_data_is_value_error(change):
    boards, tiles, chars = (imperial_harvest.data(n) for n in ("boards", "tiles", "characters"))
    change(boards, tiles, chars)
    with pytest.raises(ValueError):
        meeple._core.ImperialHarvestGame(board="standard", boards=boards, tiles=tiles, characters=chars)


def test_unknown_board_parameter():
    with pytest.raises(ValueError):
        meeple.load("imperial_harvest", board="nope")
    assert meeple.load("imperial_harvest(board=symmetric)").parameters() == {
        "board": "symmetric", "board_seed": None, "teams": "first_game", "sides": "basic", "setup": "fixed",
        "characters": None}


# ----------------------------------------------------------------------------------- state dicts


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 7), fraction=st.floats(0, 1), data=st.data())
def test_mutated_state_dicts(standard, seed, fraction, data):
    states = _STATES.setdefault(seed, play(standard, seed))
    doc = states[min(len(states) - 1, int(fraction * len(states)))].to_dict()
    mutated = data.draw(mutated_document(doc), label="doc")
    if not isinstance(mutated, dict):
        return
    try:
        state = standard.state_from_dict(mutated)
    except ValueError:
        return
    assert standard.state_from_dict(state.to_dict()) == state
    rng = random.Random(0)
    for _ in range(4):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert len(legal) > 0
        state.apply_action(int(legal[rng.randrange(len(legal))]))
        assert standard.state_from_dict(state.to_dict()) == state
        str(state)


_STATES: dict = {}


def test_bad_state_dict_names_the_field(standard):
    d = standard.new_initial_state().to_dict()
    for field, value in [("round", 8), ("phase", "dance"), ("hydras", [[3, 3], [2, 7]]), ("team", 2),
                         ("current_player", 1), ("resting", 0), ("strawberries", [[3, 1], [3, 1]]),
                         ("hedges", [[[4, 1], [3, 1]]]), ("done", [0, 0]), ("move_number", -1)]:
        bad = copy.deepcopy(d)
        bad[field] = value
        with pytest.raises(ValueError):
            standard.state_from_dict(bad)
    bad = copy.deepcopy(d)
    bad["characters"][0]["id"] = "sorceress"
    with pytest.raises(ValueError, match="characters"):
        standard.state_from_dict(bad)
    bad = copy.deepcopy(d)
    bad["activation"]["ap"] = 2  # activation fields must be defaults when nobody acts
    with pytest.raises(ValueError):
        standard.state_from_dict(bad)
    bad = copy.deepcopy(d)
    del bad["activation"]["bonus"]
    with pytest.raises(ValueError, match="bonus"):
        standard.state_from_dict(bad)


def test_observation_layout(standard):
    state = standard.new_initial_state()
    obs = state.observation_tensor(0).reshape(-1)
    planes = obs[:1900].reshape(19, 10, 10)  # [plane, y, x]
    assert planes[1].sum() == 20 - 4 and planes[2].sum() == 4 and planes[0].sum() == 80
    assert planes[3][0, 8] == 1 and planes[5][8, 8] == 1  # own / enemy character camps
    assert planes[4][8, 0] == 1 and planes[6][0, 0] == 1  # own / enemy strawberry camps
    assert planes[9].sum() == 14 and planes[10][2, 2] == 1 and planes[10][7, 2] == 1
    assert planes[11][0, 8] == 1 and planes[14][8, 9] == 1  # monk; enemy slot 0 = barbarian (9,8)
    assert planes[7][1, 3] == 1  # hedge (3,1)|(4,1): east edge of (3,1)
    per = obs[1900:2068].reshape(6, 28)
    assert per[0, 2] == 1 and per[0, 10] == 3 and per[0, 11] == 1  # monk faces S, 3 plant uses
    assert per[0, 12 + 6] == 1 and per[3, 12 + 0] == 1  # card one-hot: monk 6, barbarian 0
    g = obs[2068:2092]
    assert g[0] == 1 and g[1] == 1 and g[6] == 1  # round 1, own turn, phase rest
    assert g[20] == 1 and g[21] == 1  # both hydras alive
    draft = obs[2131 - 14:]
    assert draft.sum() == 8 and draft[6] == 0  # the 8 cards on neither team
    view1 = state.observation_tensor(1)
    assert view1[2068 + 1] == 0 and view1.reshape(-1)[:1900].reshape(19, 10, 10)[3][8, 8] == 1


def test_str_draws_the_board(standard):
    text = str(standard.new_initial_state())
    assert "H1~" in text and "===" in text and "Mv" in text and "imperial-monk" in text
    draft = meeple.load("imperial_harvest", teams="draft").new_initial_state()
    draft.apply_action(draft.string_to_action("draft barbarian"))
    lines = str(draft).splitlines()
    assert "  B imperial-barbarian: off the board, carries 0, uses left 3" in lines
    assert [line.split(" ", 3)[-1] for line in lines if "not drafted" in line] == [
        "imperial character 2: not drafted yet", "imperial character 3: not drafted yet",
        "raider character 1: not drafted yet", "raider character 2: not drafted yet",
        "raider character 3: not drafted yet"]


def test_str_names_the_character_to_place():
    """In the placement phase the status line names who is placed next (I0, R0, I1, R1, I2, R2):
    the character the next place action puts on the board."""
    state = meeple.load("imperial_harvest", setup="interactive").new_initial_state(seed=3)
    while not str(state).splitlines()[1].startswith("Phase placement"):
        state.apply_action(state.legal_actions()[0])
    for _ in range(6):
        named = str(state).splitlines()[1].rsplit(", ", 1)[1].removesuffix(" to place")
        off_board = [line.split()[1] for line in str(state).splitlines() if "off the board" in line]
        state.apply_action(state.legal_actions()[-1])
        now_off = [line.split()[1] for line in str(state).splitlines() if "off the board" in line]
        assert [name for name in off_board if name not in now_off] == [f"{named}:"]
    assert "to place" not in str(state)


# ----------------------------------------------------------------------------------- hand-built rules


def position(game, cells, active=None, ap=3, team=None, facing=None, carried=None, strawberries=None,
             hydras=None, resting=None, hedges=None, **extra):
    """A state in phase act (or pick if active is None) with characters at `cells` (token -> [x, y])."""
    d = game.new_initial_state().to_dict()
    for t, xy in cells.items():
        d["characters"][t]["cell"] = list(xy)
    for t, f in (facing or {}).items():
        d["characters"][t]["facing"] = f
    for t, n in (carried or {}).items():
        d["characters"][t]["strawberries"] = n
    if strawberries is not None:
        d["strawberries"] = sorted(strawberries, key=lambda p: p[1] * 10 + p[0])
    if hydras is not None:
        d["hydras"] = hydras
    if hedges is not None:
        d["hedges"] = _sorted_pairs(hedges)
    total = sum(c["strawberries"] for c in d["characters"])
    d["plucked"] = [total, 0]
    if strawberries is None:  # the carried ones were plucked from the board
        d["strawberries"] = d["strawberries"][total:]
    if resting is not None:
        d["resting"] = resting
        d["team"] = d["current_player"] = resting // 3
        d["phase"] = "pick"
    if active is not None:
        team = active // 3 if team is None else team
        d["team"] = team
        d["phase"] = "act"
        d["active"] = active
        d["resting"] = resting if resting is not None else next(t for t in range(3 * team, 3 * team + 3) if t != active)
        d["activation"]["ap"] = ap
        d["activation"]["bonus"] = d["characters"][active]["strawberries"] > 0
        d["current_player"] = team
    d.update(extra)
    return game.state_from_dict(d)


def apply(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def names(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def test_hydra_defeat_and_respawn(standard):
    # The barbarian steps next to hydra 1 at (2,2) carrying a strawberry: defeated, strawberry lost.
    state = position(standard, {BARBARIAN: (3, 0)}, active=BARBARIAN, carried={BARBARIAN: 1}, ap=4)
    apply(state, "move w", "move s")  # (2,1) is next to the hydra on (2,2)
    d = state.to_dict()
    assert d["characters"][BARBARIAN]["cell"] is None and d["characters"][BARBARIAN]["strawberries"] == 0
    assert d["phase"] == "respawn" and d["respawn_queue"] == [BARBARIAN] and state.current_player() == RAIDERS
    assert d["resume_phase"] == "pick" and d["done"] == [BARBARIAN] and d["active"] is None
    # free cells of the raiders' camp: (8,9) and (9,9) hold the Sorceress and the Bard
    assert names(state) == ["respawn 8,8", "respawn 9,8"]
    apply(state, "respawn 8,8")
    d = state.to_dict()
    assert d["phase"] == "pick" and d["characters"][BARBARIAN]["cell"] == [8, 8] and state.current_player() == 1


def test_hydra_dives_under_bridge(standard):
    state = position(standard, {}, resting=MONK, done=[GUARDIAN], phase="hydra")
    assert "hydra 1 s" in names(state)
    apply(state, "hydra 1 s")  # (2,2) -> bridge (2,3) -> (2,4)
    assert state.to_dict()["hydras"][0] == [2, 4]
    assert state.to_dict()["phase"] == "pick"


def test_forfeit_then_hydra(standard):
    state = apply(standard.new_initial_state(), "rest bard", "forfeit monk")
    assert state.to_dict()["phase"] == "hydra"
    assert set(names(state)) == {"hydra 1 e", "hydra 1 s", "hydra 2 n", "hydra 2 e"}
    apply(state, "hydra 2 e", "forfeit guardian", "hydra 2 e")
    d = state.to_dict()
    assert d["hydras"][1] == [4, 7] and d["team"] == 1 and d["phase"] == "rest" and d["last_rested"] == [2, None]
    # the Bard rested: it may not rest on the team's next turn
    apply(state, "rest bard", "forfeit barbarian", "hydra 1 e", "forfeit sorceress", "hydra 1 e")
    assert names(state) == ["rest monk", "rest guardian"]


def test_guardian_protects_allies_and_shield(standard):
    state = position(standard, {BARBARIAN: (6, 4), MONK: (6, 5), GUARDIAN: (5, 6), IBARD: (0, 9)},
                     active=BARBARIAN, ap=3)
    assert "axe 6,5" not in names(state)  # the Guardian 2 steps away protects the Monk
    state = position(standard, {BARBARIAN: (6, 4), MONK: (6, 5), GUARDIAN: (0, 9), IBARD: (1, 9)},
                     active=BARBARIAN, ap=3)
    assert "axe 6,5" in names(state)
    apply(state, "axe 6,5")
    assert state.current_player() == IMPERIAL and state.to_dict()["respawn_queue"] == [MONK]
    # The Guardian facing the attacker is shielded; facing away it is not.
    for facing, allowed in (("n", False), ("s", True)):
        state = position(standard, {BARBARIAN: (6, 4), GUARDIAN: (6, 5), MONK: (0, 9), IBARD: (1, 9)},
                         active=BARBARIAN, facing={GUARDIAN: facing})
        assert ("axe 6,5" in names(state)) == allowed


def test_own_camp_protects(standard):
    state = position(standard, {BARBARIAN: (7, 1), MONK: (8, 1)}, active=BARBARIAN)
    assert "axe 8,1" not in names(state)


def test_throwing_axe_line_of_sight(standard):
    cells = {BARBARIAN: (6, 3), MONK: (6, 5), GUARDIAN: (0, 9), IBARD: (1, 9)}
    state = position(standard, cells, active=BARBARIAN, facing={BARBARIAN: "s"})
    assert "throw 6,5" in names(state)
    apply(state, "throw 6,5", "respawn 8,0")
    assert state.to_dict()["phase"] == "act" and state.to_dict()["activation"]["throw_used"]
    assert "throw" not in " ".join(names(state))  # once per activation
    blocked = {**cells, RBARD: (6, 4)}
    state = position(standard, blocked, active=BARBARIAN, facing={BARBARIAN: "s"})
    assert "throw 6,5" not in names(state)


def test_pluck_bonus_and_full_slots(standard):
    state = position(standard, {MONK: (3, 1)}, active=MONK, ap=3, strawberries=[[3, 1], [6, 1]])
    apply(state, "pluck")
    d = state.to_dict()
    assert d["activation"]["ap"] == 3 and d["activation"]["bonus"] and d["plucked"] == [1, 0]
    apply(state, "discard")
    assert state.to_dict()["activation"]["ap"] == 2 and not state.to_dict()["activation"]["bonus"]
    full = position(standard, {MONK: (3, 1)}, active=MONK, ap=4, carried={MONK: 2}, strawberries=[[3, 1]])
    apply(full, "pluck")
    d = full.to_dict()
    assert d["characters"][MONK]["strawberries"] == 2 and d["plucked"] == [3, 0] and d["strawberries"] == []


def test_moving_into_an_occupied_cell_needs_ap_left(standard):
    state = position(standard, {MONK: (5, 1), GUARDIAN: (6, 1)}, active=MONK, ap=1)
    assert "move e" not in names(state)
    state = position(standard, {MONK: (5, 1), GUARDIAN: (6, 1)}, active=MONK, ap=2)
    assert "move e" in names(state)


def test_bridges_are_crossed_along_their_axis(standard):
    state = position(standard, {MONK: (5, 1)}, active=MONK, ap=3)
    apply(state, "move s")  # onto the north-south bridge (5,2)
    assert set(n for n in names(state) if n.startswith(("move", "pounce"))) == {"move n", "move s"}


def test_diagonal_needs_an_open_route(standard):
    # Bard at (4,4): hedges (4,4)|(5,4) and (4,4)|(4,5) close both routes to (5,5).
    state = position(standard, {IBARD: (4, 4)}, active=IBARD, ap=3)
    assert "move se" not in names(state) and "move nw" in names(state)
    state = position(standard, {IBARD: (5, 3)}, active=IBARD, ap=3)
    assert "move se" in names(state)
    state = position(standard, {IBARD: (1, 4)}, active=IBARD, ap=3)
    assert "move ne" not in names(state)  # never onto a bridge, (2,3)


def test_ballad_and_war_cry(standard):
    state = position(standard, {MONK: (5, 1), IBARD: (6, 1), RBARD: (9, 9)}, active=MONK, ap=3)
    apply(state, "face e")
    assert state.to_dict()["activation"]["ballad"] == [IBARD] and state.to_dict()["activation"]["ap"] == 4
    apply(state, "move s")
    assert state.to_dict()["activation"]["ap"] == 3  # once per activation
    cells = {GUARDIAN: (5, 1), RBARD: (6, 1), IBARD: (0, 9)}
    state = apply(position(standard, cells, resting=MONK), "activate guardian")
    assert state.to_dict()["activation"]["war_cry"] == [RBARD] and state.to_dict()["activation"]["ap"] == 2


def test_compulsion_moves_one_character(standard):
    cells = {SORCERESS: (6, 3), MONK: (6, 5), GUARDIAN: (0, 9), IBARD: (1, 9), BARBARIAN: (0, 4)}
    state = position(standard, cells, active=SORCERESS, ap=3, facing={SORCERESS: "s"})
    assert "compel 6,5 e" not in names(state)  # (7,5) is water
    apply(state, "compel 6,5 s")
    assert {n.split()[1] for n in names(state) if n.startswith("compel")} == {"6,6"}  # same target
    apply(state, "compel 6,6 w")
    d = state.to_dict()
    assert d["activation"]["compulsions"] == 2 and d["activation"]["compel_target"] == MONK
    assert d["characters"][MONK]["cell"] == [5, 6] and d["activation"]["ap"] == 1


def test_grapple_over_hedges(standard):
    state = position(standard, {MONK: (4, 1), BARBARIAN: (4, 0), GUARDIAN: (0, 9), IBARD: (1, 9)}, active=MONK)
    assert "grapple 4,0 6,1" in names(state) or "grapple 4,0 5,1" in names(state)
    apply(state, "grapple 4,0 5,1")  # over the hedge (4,1)|(5,1)
    assert state.to_dict()["characters"][BARBARIAN]["cell"] == [5, 1]


def test_plant_and_chop(standard):
    state = position(standard, {MONK: (6, 1)}, active=MONK, ap=1)
    apply(state, "plant e")
    d = state.to_dict()
    assert [[6, 1], [7, 1]] in d["hedges"] and d["hedges_planted"] == 1 and d["characters"][MONK]["uses_left"] == 2
    assert "plant e" not in names(state) and "move e" not in names(state) and "move w" in names(state)
    state = position(standard, {BARBARIAN: (4, 1)}, active=BARBARIAN, ap=0)
    assert set(n for n in names(state) if n.startswith("chop")) == {"chop w", "chop e"}
    apply(state, "chop w")
    assert [[3, 1], [4, 1]] not in state.to_dict()["hedges"] and state.to_dict()["hedges_chopped"] == 1


def test_shadow_walk(standard):
    state = position(standard, {SORCERESS: (4, 1)}, active=SORCERESS, ap=2)
    assert "shadow e" in names(state) and "shadow w" in names(state) and "shadow n" not in names(state)
    apply(state, "shadow e")
    assert state.to_dict()["characters"][SORCERESS]["cell"] == [5, 1] and state.to_dict()["activation"]["ap"] == 0


def test_game_ends_when_raiders_end_with_no_strawberry(standard):
    state = position(standard, {}, strawberries=[], resting=BARBARIAN, done=[SORCERESS])
    apply(state, "activate bard", "end")
    assert state.is_terminal() and state.to_dict()["phase"] == "rest"


def test_deposit(standard):
    state = position(standard, {MONK: (2, 9)}, active=MONK, carried={MONK: 2}, ap=2)
    apply(state, "deposit")
    d = state.to_dict()
    assert d["deposited"] == [2, 0] and state.vp(0) == 2 + 4 and d["activation"]["ap"] == 0
