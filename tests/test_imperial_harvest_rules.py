"""Rule tests for Imperial Harvest, one group per numbered point and decision of
docs/rules/imperial-harvest.md (points 1-33 and their decisions, D56 included).

Every test runs on both implementations: the pure-Python reference (meeple.reference) and the C++
engine (meeple.load); the engine runs are skipped while `meeple.list_games()` has no
"imperial_harvest". A few tests need a board that boards.json does not offer (two adjacent bridges)
or the reference's internals; they run on the reference only.

Positions are hand-built: `base(impl)` is `new_initial_state().to_dict()`, edited with `place`,
`acting` (a character in the middle of its activation), `picking` (choosing the next activation)...
then loaded with `state_from_dict`. Card numbers (AP, item slots, strawberry bonus, ability costs)
are read from characters.json, never written here.

Standard board (from boards.json; `|` and `---` are hedges, `~` water, `=`/`‖` bridges):

         0   1   2   3   4   5   6   7   8   9
       +---+---+---+---+---+---+---+---+---+---+
     0 |RS  RS   .   .   . | .   .   . |IC  IC |      RS/IS raider/imperial strawberry camp
       +   +   +   +   +   +---+   +   +   +   +      RC/IC raider/imperial character camp
     1 |RS  RS   .   * | . | .   *   .  IC  IC |      *    strawberry
       +   +   +   +   +   +   +   +   +   +   +
     2 | .   .  H1  ~~~ ~~~  ‖  ~~~ ~~~  .   . |
       +   +   +   +---+   +   +   +   +   +---+
     3 | .   *  ===  *   .   .   .  ~~~  *   . |
       +   +   +   +   +   +   +   +   +---+   +
     4 | .   .  ~~~  .   * | *   .  ~~~  .   . |
       +   +   +   +---+---+---+   +   +   +   +
     5 | .   .  ~~~  .   * | *   .  ~~~  .   . |
       +   +---+   +   +   +   +   +   +---+   +
     6 | .   *  ===  *   .   .   .  ~~~  *   . |
       +   +   +   +---+   +   +   +   +   +---+
     7 | .   .  H2  ~~~ ~~~  ‖  ~~~ ~~~  .   . |
       +   +   +   +   +   +   +   +   +   +   +
     8 |IS  IS   .   * | . | .   *   .  RC  RC |
       +   +   +   +   +   +---+   +   +   +   +
     9 |IS  IS   .   .   . | .   .   . |RC  RC |
       +---+---+---+---+---+---+---+---+---+---+

Tokens: 0 monk, 1 imperial guardian, 2 imperial bard (player 0); 3 barbarian, 4 sorceress,
5 raider bard (player 1). Start: monk 8,0 s; guardian 9,0 s; bard 9,1 w; barbarian 9,8 w;
sorceress 8,9 n; bard 9,9 n.
"""
import copy
import importlib
import importlib.util
import json
import pathlib
import random
import sys
import time

import pytest

IMPLS = ["reference", "engine"]
TERMINAL = -4
ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "python" / "meeple" / "data" / "imperial_harvest"

MONK, GUARDIAN, IBARD, BARBARIAN, SORCERESS, RBARD = range(6)
DIRS = "nesw"

# ---------------------------------------------------------------------------- card numbers

_CHARS = json.loads((DATA / "characters.json").read_text())
_BOARDS = json.loads((DATA / "boards.json").read_text())
_TEAM_IDS = _CHARS["first_game_teams"]["imperial"] + _CHARS["first_game_teams"]["raiders"]


def _card(ident):
    entry = next(c for c in _CHARS["characters"] if c["id"] == ident)
    d = _CHARS["defaults"]
    bonus = dict(d["strawberry"], **entry.get("strawberry", {}))["bonus_ap"]
    return entry.get("ap", d["ap"]), entry.get("item_slots", d["item_slots"]), bonus


AP = [_card(i)[0] for i in _TEAM_IDS]
SLOTS = [_card(i)[1] for i in _TEAM_IDS]
BONUS = [_card(i)[2] for i in _TEAM_IDS]
COST = {name: spec.get("ap") for name, spec in _CHARS["abilities"].items()}
USES = {name: spec.get("uses_per_game") for name, spec in _CHARS["abilities"].items()}


# ---------------------------------------------------------------------------- loading

def _reference_load():
    try:
        from meeple.reference import load
    except Exception:  # noqa: BLE001 - an unbuilt or half-built engine must not hide the reference
        # meeple/__init__.py needs the compiled engine; the reference package stands alone.
        path = ROOT / "python/meeple/reference/__init__.py"
        spec = importlib.util.spec_from_file_location(
            "meeple_reference_standalone", path, submodule_search_locations=[str(path.parent)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        load = module.load
    return load


def reference_module():
    load = _reference_load()
    return importlib.import_module(load.__module__ + ".imperial_harvest")


def make_game(impl, **params):
    if impl == "reference":
        return _reference_load()("imperial_harvest", **params)
    from meeple import load
    return load("imperial_harvest", **params)


def _engine_has_game():
    try:
        import meeple
        return "imperial_harvest" in meeple.list_games()
    except Exception:  # noqa: BLE001 - not built (yet): the engine runs are skipped
        return False


@pytest.fixture(params=IMPLS)
def impl(request):
    if request.param == "engine" and not _engine_has_game():
        pytest.skip("the engine has no imperial_harvest yet")
    return request.param


# ---------------------------------------------------------------------------- helpers

def plain(value):
    """A dict from either implementation as plain Python (lists, ints, bools, None, str)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item"):
        value = value.item()
    return int(value) if float(value).is_integer() else float(value)


def ints(values):
    return [int(v) for v in values]


def floats(values):
    return [float(v) for v in values]


def fresh(impl, **params):
    return make_game(impl, **params).new_initial_state()


def base(impl):
    return plain(fresh(impl).to_dict())


# Strawberries that no test uses; `balance` takes them off the board first.
_SPARE_STRAWBERRIES = [[8, 6], [6, 8], [3, 8], [1, 6], [3, 6], [1, 3], [8, 3], [3, 3], [5, 5],
                       [4, 5], [5, 4], [4, 4], [3, 1], [6, 1]]


def balance(d):
    """Makes a hand-built position count its strawberries consistently (a strawberry leaves the
    board only by being plucked): each team's carried + deposited strawberries count as plucked by
    it if its `plucked` is lower, and spare strawberries leave the board until board + plucked <= 14.
    Positions that set these numbers consistently are left unchanged."""
    for team in (0, 1):
        held = sum(c["strawberries"] for c in d["characters"][3 * team:3 * team + 3])
        d["plucked"][team] = max(d["plucked"][team], held + d["deposited"][team])
    total = len(_BOARDS["boards"]["standard"]["strawberries"])
    for cell in _SPARE_STRAWBERRIES:
        if len(d["strawberries"]) + sum(d["plucked"]) <= total:
            break
        if cell in d["strawberries"]:
            d["strawberries"].remove(cell)
    return d


def load(impl, d):
    return make_game(impl).state_from_dict(balance(copy.deepcopy(d)))


def manhattan(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def team_of(t):
    return t // 3


def place(d, t, x=None, y=None, facing=None, strawberries=None, off=False):
    ch = d["characters"][t]
    if off:
        ch["cell"] = None
    elif x is not None:
        ch["cell"] = [x, y]
    if facing is not None:
        ch["facing"] = facing
    if strawberries is not None:
        ch["strawberries"] = strawberries
    return d


def default_activation():
    return {"ap": 0, "face_used": False, "grapple_used": False, "pounce_used": False,
            "throw_used": False, "charm_used": False, "compulsions": 0, "compel_target": None,
            "ballad": [], "war_cry": [], "bonus": False,
            # part 2
            "slither_used": False, "charge_used": False, "charged": False, "lure_used": False,
            "command_used": False, "sentry_used": False, "sprint_used": False,
            "retriever_used": False, "free_moves": 0, "gaze": [], "puppet": None}


def acting(d, t, ap, resting=None, done=(), round=1, **flags):
    """`t` in the middle of its activation with `ap` AP left. Bards already within 2 count as
    applied at the start (so the next action's Bard check adds nothing)."""
    team = team_of(t)
    mates = [u for u in range(3 * team, 3 * team + 3) if u != t and u not in done]
    d.update(team=team, phase="act", resting=mates[0] if resting is None else resting, active=t,
             done=sorted(done), current_player=team, round=round)
    act = default_activation()
    act["ap"] = ap
    act["bonus"] = d["characters"][t]["strawberries"] >= 1
    here = d["characters"][t]["cell"]
    for b in (IBARD, RBARD):
        cell = d["characters"][b]["cell"]
        if b != t and cell is not None and manhattan(cell, here) <= 2:
            act["ballad" if team_of(b) == team else "war_cry"].append(b)
    act.update(flags)
    d["activation"] = act
    return d


def picking(d, team, resting, done=(), round=1):
    d.update(team=team, phase="pick", resting=resting, active=None, done=sorted(done),
             current_player=team, round=round, activation=default_activation())
    return d


def legal(state):
    return {state.action_to_string(a) for a in ints(state.legal_actions())}


def play(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def dict_of(state):
    return plain(state.to_dict())


def char(state, t):
    return dict_of(state)["characters"][t]


def ap_of(state):
    return dict_of(state)["activation"]["ap"]


def moves(state):
    return {s for s in legal(state) if s.startswith("move ")}


def remove_strawberries(d, *cells):
    d["strawberries"] = [c for c in d["strawberries"] if c not in [list(x) for x in cells]]
    return d


def hedge_key(a, b):
    ia, ib = a[1] * 10 + a[0], b[1] * 10 + b[0]
    return (tuple(a), tuple(b)) if ia < ib else (tuple(b), tuple(a))


def add_hedge(d, a, b):
    hedges = {hedge_key(*h) for h in d["hedges"]} | {hedge_key(a, b)}
    d["hedges"] = sorted([list(p), list(q)] for p, q in hedges)
    return d


def hedge_set(d):
    return {hedge_key(*h) for h in d["hedges"]}


# Observation offsets (docs "Observation").
PLANE = {name: i * 100 for i, name in enumerate(
    ["ground", "water", "bridge", "own_char_camp", "own_berry_camp", "enemy_char_camp",
     "enemy_berry_camp", "hedge_e", "hedge_s", "strawberry", "hydra",
     "own0", "own1", "own2", "enemy0", "enemy1", "enemy2", "own_sentries", "enemy_sentries"])}
# Part 2 layout (docs/rules/imperial-harvest.md "Observation"): 28 values per character.
CHAR_BASE = 1900
CHAR_STRIDE = 28
GAME_BASE = 2068
ACT_BASE = 2092


def obs_plane(obs, name):
    return {i for i in range(100) if obs[PLANE[name] + i] == 1.0}


def idx(x, y):
    return y * 10 + x


# ============================================================================ 1-5: board and setup

def test_p01_cell_index_and_cell_strings(impl):
    state = fresh(impl)
    obs = floats(state.observation_tensor(0))
    assert obs_plane(obs, "own0") == {idx(8, 0)}  # monk, cell index y*10+x
    assert obs_plane(obs, "enemy0") == {idx(9, 8)}  # barbarian
    d = acting(place(base(impl), BARBARIAN, 6, 4, "w"), BARBARIAN, 3)
    place(d, MONK, 5, 4)  # 5,4 | 6,4: no hedge
    assert "axe 5,4" in legal(load(impl, d))  # cells are written x,y


def test_p02_terrain_and_camps(impl):
    state = fresh(impl)
    for player, own, enemy in ((0, 0, 1), (1, 1, 0)):
        obs = floats(state.observation_tensor(player))
        assert len(obs_plane(obs, "ground")) == 80
        assert obs_plane(obs, "water") | obs_plane(obs, "bridge") == {
            idx(x, y) for x in range(10) for y in range(10)
            if (x in (2, 7) and 2 <= y <= 7) or (y in (2, 7) and 2 <= x <= 7)}
        assert obs_plane(obs, "bridge") == {idx(2, 3), idx(2, 6), idx(5, 2), idx(5, 7)}
        camps = {"imperial_character": {8, 9, 18, 19}, "raiders_character": {88, 89, 98, 99},
                 "imperial_strawberry": {80, 81, 90, 91}, "raiders_strawberry": {0, 1, 10, 11}}
        keys = ("imperial", "raiders")
        assert obs_plane(obs, "own_char_camp") == camps[f"{keys[own]}_character"]
        assert obs_plane(obs, "own_berry_camp") == camps[f"{keys[own]}_strawberry"]
        assert obs_plane(obs, "enemy_char_camp") == camps[f"{keys[enemy]}_character"]
        assert obs_plane(obs, "enemy_berry_camp") == camps[f"{keys[enemy]}_strawberry"]
        assert idx(3, 1) in obs_plane(obs, "hedge_e")  # 3,1 | 4,1
        assert idx(3, 2) in obs_plane(obs, "hedge_s")  # 3,2 --- 3,3
        assert obs_plane(obs, "hydra") == {idx(2, 2), idx(2, 7)}
    # Water blocks movement: 1,4 -> 2,4 (water) is not a step.
    d = acting(place(base(impl), BARBARIAN, 1, 4), BARBARIAN, 3)
    assert moves(load(impl, d)) == {"move n", "move s", "move w"}


def test_p03_standard_board_from_tiles_equals_hedge_list():
    mod = reference_module()
    tiles = json.loads((DATA / "tiles.json").read_text())
    board = _BOARDS["boards"]["standard"]
    built = mod.hedges_from_tiles(board["tiles"])
    listed = {mod.edge(mod.cell_of(*a), mod.cell_of(*b)) for a, b in board["hedges"]}
    assert built == listed and len(built) == 22
    # A board whose tiles disagree with its hedge list is refused.
    broken = copy.deepcopy(board)
    broken["hedges"] = broken["hedges"][1:]
    with pytest.raises(ValueError, match="tiles"):
        mod.Board("broken", broken)
    assert tiles["faces"]  # the faces the builder read


def test_p03_initial_hedges_of_both_boards(impl):
    standard = {hedge_key(*h) for h in _BOARDS["boards"]["standard"]["hedges"]}
    assert hedge_set(base(impl)) == standard
    symmetric = plain(fresh(impl, board="symmetric").to_dict())
    assert hedge_set(symmetric) == standard | {((1, 3), (1, 4))}


def test_p04_bridge_axis(impl):
    # Bridge 5,2 (y = 2) runs north-south: only n and s; diagonal steps never on or off it.
    d = acting(place(base(impl), RBARD, 5, 2), RBARD, 3)
    assert moves(load(impl, d)) == {"move n", "move s"}
    d = acting(place(base(impl), BARBARIAN, 5, 1), BARBARIAN, 3)
    state = play(load(impl, d), "move s")
    assert char(state, BARBARIAN)["cell"] == [5, 2]


def test_p04_adjacent_bridges_keep_their_axes(impl):
    # boards.json has no two adjacent bridges; the state holds its bridges (interactive setup places
    # them), so a hand-built state can. 4,2 and 5,2 both run north-south: a step east from 4,2 onto
    # 5,2 is illegal.
    d = acting(place(base(impl), BARBARIAN, 4, 2), BARBARIAN, 3)
    d["bridges"] = [[4, 2], [5, 2], [2, 6], [5, 7]]
    assert moves(load(impl, d)) == {"move n", "move s"}


def test_p05_initial_state_and_d1_facings(impl):
    state = fresh(impl)
    d = dict_of(state)
    board = _BOARDS["boards"]["standard"]
    assert [c["id"] for c in d["characters"]] == _TEAM_IDS
    assert [c["cell"] for c in d["characters"]] == board["start_spaces"]["imperial"] + \
        board["start_spaces"]["raiders"]
    # Facing the centre along the larger offset; D1: on a tie (9,0 and 9,9), vertically.
    assert [c["facing"] for c in d["characters"]] == ["s", "s", "w", "w", "n", "n"]
    assert [c["uses_left"] for c in d["characters"]] == [USES["plant"], None, None, USES["chop"],
                                                        None, None]
    assert sorted(map(tuple, d["strawberries"])) == sorted(map(tuple, board["strawberries"]))
    assert d["strawberries"] == sorted(d["strawberries"], key=lambda c: idx(*c))
    assert d["hydras"] == board["hydras"]
    assert {k: d[k] for k in ("plucked", "deposited", "hedges_planted", "hedges_chopped", "round",
                              "team", "phase", "resting", "last_rested", "done", "active",
                              "respawn_queue", "resume_phase", "current_player", "move_number")} == {
        "plucked": [0, 0], "deposited": [0, 0], "hedges_planted": 0, "hedges_chopped": 0,
        "round": 1, "team": 0, "phase": "rest", "resting": None, "last_rested": [None, None],
        "done": [], "active": None, "respawn_queue": [], "resume_phase": None,
        "current_player": 0, "move_number": 0}
    assert d["activation"] == default_activation()
    assert dict_of(make_game(impl).new_initial_state(seed=123)) == d  # deterministic


def test_p06_card_numbers(impl):
    d = picking(place(base(impl), MONK, 6, 5), 0, resting=GUARDIAN)
    state = play(load(impl, d), "activate monk")
    assert ap_of(state) == AP[MONK]
    place(d, MONK, strawberries=1)
    state = play(load(impl, d), "activate monk")
    assert ap_of(state) == AP[MONK] + BONUS[MONK]
    assert dict_of(state)["activation"]["bonus"] is True
    # Item slots: a pass needs that many free slots.
    d = acting(place(base(impl), MONK, 6, 5, strawberries=SLOTS[MONK]), MONK, 3)
    place(d, GUARDIAN, 6, 4, strawberries=SLOTS[GUARDIAN] - 1)
    passes = {s for s in legal(load(impl, d)) if s.startswith("pass")}
    assert passes == {"pass 6,4 1"}


# ============================================================================ 7-8: tokens, names

def test_p07_players_and_token_order(impl):
    state = fresh(impl)
    assert int(state.current_player()) == 0
    play(state, "rest monk", "activate guardian", "end", "activate bard", "end")
    d = dict_of(state)
    assert (int(state.current_player()), d["team"], d["round"], d["last_rested"]) == (1, 1, 1, [0, None])
    assert legal(state) == {"rest barbarian", "rest sorceress", "rest bard"}
    play(state, "rest sorceress", "activate barbarian", "end", "activate bard", "end")
    d = dict_of(state)
    assert (int(state.current_player()), d["team"], d["round"], d["last_rested"]) == (0, 0, 2, [0, 4])


def test_p08_short_and_qualified_names(impl):
    assert legal(fresh(impl)) == {"rest monk", "rest guardian", "rest bard"}
    d = acting(place(base(impl), BARBARIAN, 6, 4, "e", strawberries=1), BARBARIAN, 3)
    for t in (IBARD, RBARD, MONK):
        place(d, t, 6, 3)
    place(d, SORCERESS, 6, 5)
    state = load(impl, d)
    strings = legal(state)
    assert {s for s in strings if s.startswith("axe")} == {"axe 6,3:imperial-bard", "axe 6,3:monk"}
    assert {s for s in strings if s.startswith("pass")} == {"pass 6,3:raider-bard 1", "pass 6,5 1",
                                                            "pass 6,3:imperial-bard 1",
                                                            "pass 6,3:monk 1"}
    assert state.string_to_action("axe 6,3:monk") == 185 + MONK
    # A token off the board is named by its qualified name.
    d = acting(place(base(impl), BARBARIAN, 6, 4), BARBARIAN, 2)
    place(d, MONK, off=True)
    d.update(phase="respawn", respawn_queue=[MONK], resume_phase="act", current_player=0)
    state = load(impl, d)
    assert int(state.current_player()) == 0
    assert state.action_to_string(185 + MONK) == "axe imperial-monk"
    assert state.action_to_string(201 + 4 * MONK + 2) == "charm imperial-monk s"


# ============================================================================ 9-15: movement, LOS

def test_p09_hedges_water_and_edges_block_steps(impl):
    d = acting(place(base(impl), BARBARIAN, 3, 1), BARBARIAN, 3)  # 3,1 | 4,1 and 3,2 is water
    assert moves(load(impl, d)) == {"move n", "move w"}
    d = acting(place(base(impl), BARBARIAN, 0, 0), BARBARIAN, 3)
    assert moves(load(impl, d)) == {"move e", "move s"}
    state = play(load(impl, acting(place(base(impl), BARBARIAN, 3, 0), BARBARIAN, 3)), "move s")
    assert char(state, BARBARIAN)["cell"] == [3, 1] and ap_of(state) == 2


def test_p10_diagonal_needs_an_open_route_and_no_bridge(impl):
    def diagonals(t, x, y, **extra):
        d = acting(place(base(impl), t, x, y), t, 3)
        for u, cell in extra.items():
            place(d, int(u[1:]), *cell)
        state = load(impl, d)
        return {s for s in legal(state) if s in {f"move {k}" for k in ("ne", "se", "sw", "nw")}
                or s.startswith("pounce")}
    # 3,0 -> 4,1: east then south is open (south then east crosses 3,1 | 4,1).
    assert "move se" in diagonals(RBARD, 3, 0)
    assert "move se" in diagonals(RBARD, 3, 0, t0=(4, 0))  # the middle cell may hold a character
    # 4,0 -> 5,1 and 4,1 -> 5,0: both routes hedged.
    assert "move se" not in diagonals(RBARD, 4, 0) and "move sw" in diagonals(RBARD, 4, 0)
    assert "move ne" not in diagonals(RBARD, 4, 1)
    # 6,1 -> 5,0: only via 6,0.
    assert "move nw" in diagonals(RBARD, 6, 1)
    # Never onto or off a bridge (5,2), although the orthogonal routes are open.
    assert "move sw" not in diagonals(RBARD, 6, 1)
    assert diagonals(RBARD, 5, 2) == set()
    # The Monk has no Agility; Dragon Pounce follows the same rules, once per activation.
    assert diagonals(MONK, 3, 0) == {"pounce se", "pounce sw"}
    d = acting(place(base(impl), RBARD, 3, 0), RBARD, 3)
    state = play(load(impl, d), "move se")
    assert char(state, RBARD)["cell"] == [4, 1] and ap_of(state) == 3 - 1
    d = acting(place(base(impl), MONK, 3, 0), MONK, 3)
    state = play(load(impl, d), "pounce se")
    assert char(state, MONK)["cell"] == [4, 1] and ap_of(state) == 3 - COST["dragon_pounce"]
    assert not any(s.startswith("pounce") for s in legal(state))


def test_p11_moving_into_an_occupied_cell_and_d2(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 3), BARBARIAN, 1)
    place(d, MONK, 6, 4)
    state = load(impl, d)
    assert "move s" not in legal(state) and "move w" in legal(state)
    d["activation"]["ap"] = 2
    state = play(load(impl, d), "move s")
    assert char(state, BARBARIAN)["cell"] == [6, 4] and ap_of(state) == 1
    assert "end" in legal(state)  # D2: end is always legal, even sharing a cell
    play(state, "end")
    assert dict_of(state)["phase"] == "pick" and char(state, BARBARIAN)["cell"] == [6, 4]
    # Forced moves may end on a shared cell (Charm at 0 AP).
    d = acting(place(base(impl), SORCERESS, 6, 5, "n"), SORCERESS, 0)
    place(d, MONK, 6, 4)
    place(d, BARBARIAN, 6, 3)
    state = play(load(impl, d), "charm 6,4 n")
    assert char(state, MONK)["cell"] == [6, 3] == char(state, BARBARIAN)["cell"]


def test_p12_adjacency(impl):
    # Pass needs adjacency: not across the hedge 4,4 | 5,4; yes orthogonally or on the same cell.
    def passes(bard_cell):
        d = acting(place(base(impl), BARBARIAN, 4, 4, strawberries=1), BARBARIAN, 3)
        place(d, RBARD, *bard_cell)
        return {s for s in legal(load(impl, d)) if s.startswith("pass")}
    assert passes((5, 4)) == set()
    assert passes((4, 3)) == {"pass 4,3 1"}
    assert passes((4, 4)) == {"pass 4,4:bard 1"}
    # Attacks too: the monk across 4,4 --- 4,5 is not adjacent.
    d = acting(place(base(impl), BARBARIAN, 4, 4), BARBARIAN, 3)
    place(d, MONK, 4, 5)
    assert "axe 4,5" not in legal(load(impl, d))
    place(d, MONK, 3, 4)
    assert "axe 3,4" in legal(load(impl, d))


def test_p13_line_of_sight(impl):
    def throws(barbarian, facing, monk, **extra):
        d = acting(place(base(impl), BARBARIAN, *barbarian, facing), BARBARIAN, 3)
        place(d, MONK, *monk)
        for u, cell in extra.items():
            place(d, int(u[1:]), *cell)
        return {s for s in legal(load(impl, d)) if s.startswith("throw")}
    assert throws((8, 2), "s", (8, 3)) == {"throw 8,3"}
    assert throws((8, 1), "s", (8, 3)) == {"throw 8,3"}
    assert throws((9, 2), "s", (9, 3)) == set()  # hedge 9,2 --- 9,3 stops the ray
    assert throws((1, 4), "e", (3, 4)) == {"throw 3,4"}  # water 2,4 does not
    assert throws((6, 6), "n", (6, 3)) == set()  # 3 spaces: out of range
    assert throws((6, 6), "n", (6, 4)) == {"throw 6,4"}
    assert throws((6, 6), "n", (6, 4), t5=(6, 5)) == set()  # the first character stops the ray
    assert throws((6, 6), "n", (6, 6)) == {"throw 6,6:monk"}  # its own cell is in LOS
    assert throws((6, 6), "e", (6, 4)) == set()  # only in the facing direction


def test_p13_hydras_block_line_of_sight(impl):
    def charms(hydra):
        d = acting(place(base(impl), SORCERESS, 4, 0, "s"), SORCERESS, 3)
        place(d, MONK, 4, 4)
        d["hydras"] = [list(hydra), [2, 7]]
        return {s for s in legal(load(impl, d)) if s.startswith("charm")}
    assert charms((3, 2)) == {"charm 4,4 n", "charm 4,4 w"}  # 4,4: hedges e and s
    assert charms((4, 2)) == set()


def test_p14_face_once_per_activation_free(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 4, "w"), BARBARIAN, 3)
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("face")} == {"face n", "face e", "face s"}
    play(state, "face n")
    assert char(state, BARBARIAN)["facing"] == "n" and ap_of(state) == 3
    assert dict_of(state)["activation"]["face_used"] is True
    assert not any(s.startswith("face") for s in legal(state))


def test_p15_guardian_range_counts_legal_steps(impl):
    def axes(monk, barbarian):
        d = acting(place(base(impl), BARBARIAN, *barbarian), BARBARIAN, 3)
        place(d, GUARDIAN, 4, 4)
        place(d, MONK, *monk)
        return {s for s in legal(load(impl, d)) if s.startswith("axe")}
    assert axes((5, 3), (6, 3)) == set()  # 4,4 -> 4,3 -> 5,3: 2 steps, protected
    assert axes((5, 4), (6, 4)) == {"axe 5,4"}  # 1 space away but 3 steps around 4,4 | 5,4
    assert axes((3, 5), (3, 6)) == {"axe 3,5"}  # 2 spaces, hedged both ways


# ============================================================================ 16-22: turns

def test_p16_seven_rounds_imperial_first(impl):
    state = fresh(impl)
    for turn in range(14):
        rnd, team = turn // 2 + 1, turn % 2
        d = dict_of(state)
        assert (d["round"], d["team"], int(state.current_player())) == (rnd, team, team)
        assert not state.is_terminal()
        names = (["monk", "guardian", "bard"], ["barbarian", "sorceress", "bard"])[team]
        rest = (turn // 2) % 3
        active = [n for i, n in enumerate(names) if i != rest]
        play(state, f"rest {names[rest]}", f"activate {active[0]}", "end",
             f"activate {active[1]}", "end")
    assert state.is_terminal() and int(state.current_player()) == TERMINAL
    assert int(state.move_number()) == 70
    assert floats(state.returns()) == [0.0, 0.0]
    assert ints(state.legal_actions()) == []


def test_p17_the_previous_rester_may_not_rest(impl):
    state = play(fresh(impl), "rest monk", "activate guardian", "end", "activate bard", "end",
                 "rest bard", "activate barbarian", "end", "activate sorceress", "end")
    assert legal(state) == {"rest guardian", "rest bard"}
    play(state, "rest guardian")
    assert "activate monk" in legal(state)
    play(state, "activate monk", "end", "activate bard", "end")
    assert legal(state) == {"rest barbarian", "rest sorceress"}


def test_p18_forfeit_and_hydra_moves(impl):
    state = play(fresh(impl), "rest monk")
    assert legal(state) == {"activate guardian", "activate bard", "forfeit guardian",
                            "forfeit bard"}
    play(state, "forfeit guardian")
    d = dict_of(state)
    assert (d["phase"], d["done"], d["active"]) == ("hydra", [GUARDIAN], None)
    assert legal(state) == {"hydra 1 e", "hydra 1 s", "hydra 2 n", "hydra 2 e"}
    play(state, "hydra 1 s")  # dives under the bridge 2,3
    assert dict_of(state)["hydras"] == [[2, 4], [2, 7]]
    assert legal(state) == {"activate bard", "forfeit bard"}
    play(state, "forfeit bard", "hydra 1 n")  # forfeiting both: one hydra twice
    d = dict_of(state)
    assert d["hydras"] == [[2, 2], [2, 7]]
    assert (d["team"], d["phase"], d["done"], d["last_rested"]) == (1, "rest", [], [MONK, None])


def test_p18_forfeit_needs_a_legal_hydra_step(impl):
    """Point 18: forfeit is legal only if some hydra step is legal: with both hydras removed only
    `activate` is left; with one hydra left that can step, forfeit is back."""
    d = picking(base(impl), 0, resting=IBARD)
    d["hydras"] = [None, None]
    assert legal(load(impl, d)) == {"activate monk", "activate guardian"}
    d["hydras"] = [None, [2, 7]]
    assert legal(load(impl, d)) == {"activate monk", "activate guardian", "forfeit monk",
                                    "forfeit guardian"}


def test_p19_ap_and_strawberry_bonus_mid_activation(impl):
    # Gained with the first strawberry (pluck costs 1, bonus adds at once).
    d = acting(place(base(impl), BARBARIAN, 6, 1), BARBARIAN, 3)
    state = play(load(impl, d), "pluck")
    assert ap_of(state) == 3 - 1 + BONUS[BARBARIAN]
    assert dict_of(state)["activation"]["bonus"] is True
    # Lost with the last one (discard is free; the bonus goes).
    play(state, "discard")
    assert ap_of(state) == 3 - 1 and dict_of(state)["activation"]["bonus"] is False
    # Never below 0.
    d = acting(place(base(impl), BARBARIAN, 6, 1, strawberries=1), BARBARIAN, 0)
    state = play(load(impl, d), "discard")
    assert ap_of(state) == 0
    # Deposit pays its AP, then the bonus goes.
    d = acting(place(base(impl), BARBARIAN, 1, 1, strawberries=2), BARBARIAN, 2)
    state = play(load(impl, d), "deposit")
    assert ap_of(state) == max(0, 2 - 1 - BONUS[BARBARIAN])
    assert dict_of(state)["deposited"] == [0, 2]
    # Passing the last strawberry away loses the bonus too.
    d = acting(place(base(impl), BARBARIAN, 6, 4, strawberries=1), BARBARIAN, 3)
    place(d, SORCERESS, 6, 3)
    state = play(load(impl, d), "pass 6,3 1")
    assert ap_of(state) == 3 - 1 - BONUS[BARBARIAN]
    assert char(state, SORCERESS)["strawberries"] == 1


def test_p20_war_cry_and_ballad_timing(impl):
    # War Cry at the start of the activation (Manhattan 2, through the hedge 3,1 | 4,1).
    d = picking(place(base(impl), BARBARIAN, 3, 1), 1, resting=SORCERESS)
    place(d, IBARD, 4, 1)
    state = play(load(impl, d), "activate barbarian")
    assert ap_of(state) == AP[BARBARIAN] - 1
    assert dict_of(state)["activation"]["war_cry"] == [IBARD]
    # Entering the range during the activation; once per activation.
    d = acting(place(base(impl), BARBARIAN, 6, 1), BARBARIAN, 5)  # 3 from the bard at 9,1
    state = play(load(impl, d), "move e")
    assert ap_of(state) == 5 - 1 - 1
    play(state, "move w", "move e")
    assert ap_of(state) == 1
    # Ballad: allies at the start and on entering; not the Bard itself (D3).
    d = picking(place(base(impl), MONK, 8, 2), 0, resting=GUARDIAN)  # 9,1 is 2 away
    state = play(load(impl, d), "activate monk")
    assert ap_of(state) == AP[MONK] + 1 and dict_of(state)["activation"]["ballad"] == [IBARD]
    d = picking(base(impl), 0, resting=GUARDIAN)
    state = play(load(impl, d), "activate bard")
    assert ap_of(state) == AP[IBARD] and dict_of(state)["activation"]["ballad"] == []
    d = acting(place(base(impl), MONK, 6, 1), MONK, 3)
    state = play(load(impl, d), "move e")
    assert ap_of(state) == 3 - 1 + 1
    # Both at once cancel.
    d = picking(place(base(impl), MONK, 8, 2), 0, resting=GUARDIAN)
    place(d, RBARD, 8, 3)
    state = play(load(impl, d), "activate monk")
    assert ap_of(state) == AP[MONK]
    assert dict_of(state)["activation"]["ballad"] == [IBARD]
    assert dict_of(state)["activation"]["war_cry"] == [RBARD]


def test_p21_pluck_with_full_slots(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 1, strawberries=SLOTS[BARBARIAN]), BARBARIAN, 3)
    d["plucked"] = [0, 2]
    state = load(impl, d)
    vp_before = floats(state.observation_tensor(1))[GAME_BASE + 2]
    play(state, "pluck")
    after = dict_of(state)
    assert after["plucked"] == [0, 3]
    assert after["characters"][BARBARIAN]["strawberries"] == SLOTS[BARBARIAN]
    assert [6, 1] not in after["strawberries"]
    assert ap_of(state) == 2
    assert floats(state.observation_tensor(1))[GAME_BASE + 2] == vp_before + 1
    assert "pluck" not in legal(state)


def test_p21_deposit_adjacency(impl):
    def can_deposit(t, cell, hedge=None):
        d = acting(place(base(impl), t, *cell, strawberries=1), t, 3)
        if hedge:
            add_hedge(d, *hedge)
        return "deposit" in legal(load(impl, d))
    assert can_deposit(BARBARIAN, (1, 1))  # on its own strawberry camp
    assert can_deposit(BARBARIAN, (2, 0))  # next to 1,0
    assert can_deposit(BARBARIAN, (0, 2))  # next to 0,1
    assert not can_deposit(BARBARIAN, (2, 0), hedge=((1, 0), (2, 0)))
    assert not can_deposit(BARBARIAN, (3, 0))
    assert not can_deposit(MONK, (2, 0))  # the raiders' camp, not the monk's
    assert can_deposit(MONK, (2, 9))


_INTERACTIVE_SETUP = ["bridge 5,2", "bridge 2,3", "bridge 7,6", "bridge 2,6",
                      "camp imperial_strawberry top_right", "camp raiders_character bottom_left",
                      "camp raiders_strawberry bottom_right", "camp imperial_character top_left",
                      "place 0,0 s", "place 0,8 n", "place 1,0 e", "place 0,9 e", "place 0,1 s",
                      "place 1,9 e"]


def interactive_play(impl):
    """A game of `setup="interactive"` after its setup: camps imperial_character top_left
    (insignia 1,1), imperial_strawberry top_right, raiders_character bottom_left, raiders_strawberry
    bottom_right; hydras 7,2 and 7,7; monk 0,0, guardian 1,0, bard 0,1; barbarian 0,8, sorceress
    0,9, bard 1,9. Returns the game and the state dict, to edit and load with `load_in`."""
    game = make_game(impl, setup="interactive")
    state = play(game.new_initial_state(), *_INTERACTIVE_SETUP)
    d = dict_of(state)
    assert d["phase"] == "rest" and d["camps"]["imperial_character"] == "top_left"
    return game, d


def load_in(game, d):
    return game.state_from_dict(balance(copy.deepcopy(d)))


def test_p21_deposit_in_the_camp_placed_by_interactive_setup(impl):
    """Point 21 with the state's camps (point 25, 65): the Raiders' strawberry camp is bottom_right;
    neither the Imperial one (top_right) nor the fixed setup's Raider camp (top_left) takes it."""
    game, d = interactive_play(impl)

    def can_deposit(cell):
        e = acting(place(copy.deepcopy(d), BARBARIAN, *cell, strawberries=1), BARBARIAN, 3)
        return "deposit" in legal(load_in(game, e))
    assert can_deposit((8, 8))
    assert not can_deposit((8, 1))   # the Imperial strawberry camp
    assert not can_deposit((1, 1))   # the Raiders' strawberry camp of the fixed setup


def test_p21_pass_and_discard(impl):
    d = acting(place(base(impl), MONK, 6, 5, strawberries=2), MONK, 3)
    place(d, BARBARIAN, 6, 4)  # an enemy may receive strawberries
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("pass")} == {"pass 6,4 1", "pass 6,4 2"}
    play(state, "pass 6,4 2")
    assert (char(state, MONK)["strawberries"], char(state, BARBARIAN)["strawberries"]) == (0, 2)
    assert ap_of(state) == 3 - 1 - BONUS[MONK]
    d = acting(place(base(impl), MONK, 6, 5, strawberries=2), MONK, 0)
    state = play(load(impl, d), "discard")
    assert char(state, MONK)["strawberries"] == 1 and ap_of(state) == 0


def test_p22_early_end_when_the_raiders_end_with_no_strawberry(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 4), BARBARIAN, 2, resting=RBARD, done=[SORCERESS],
               round=3)
    d["strawberries"] = []
    d["plucked"] = [5, 4]
    d["last_rested"] = [MONK, BARBARIAN]
    state = play(load(impl, d), "end")
    assert state.is_terminal() and int(state.current_player()) == TERMINAL
    after = dict_of(state)
    assert (after["round"], after["team"], after["phase"], after["last_rested"]) == (
        3, 1, "rest", [MONK, RBARD])
    assert floats(state.returns()) == [1.0, -1.0]
    # The Imperial Servants ending with no strawberry left does not end the game.
    d = acting(place(base(impl), MONK, 6, 4), MONK, 2, resting=IBARD, done=[GUARDIAN], round=3)
    d["strawberries"] = []
    state = play(load(impl, d), "end")
    assert not state.is_terminal() and int(state.current_player()) == 1


def test_p22_early_end_after_a_raiders_forfeit(impl):
    """Points 18/22: the Raiders' turn may end with the hydra step of a forfeit; with no strawberry
    on the board the game ends there."""
    d = picking(base(impl), 1, resting=RBARD, done=[BARBARIAN], round=3)
    d["strawberries"] = []
    d["plucked"] = [5, 4]
    d["last_rested"] = [MONK, BARBARIAN]
    state = play(load(impl, d), "forfeit sorceress")
    assert not state.is_terminal()
    play(state, "hydra 1 e")
    assert state.is_terminal() and int(state.current_player()) == TERMINAL
    assert floats(state.returns()) == [1.0, -1.0]
    assert dict_of(state)["round"] == 3


def test_p22_end_after_round_seven(impl):
    d = acting(place(base(impl), MONK, 6, 4), MONK, 2, resting=IBARD, done=[GUARDIAN], round=7)
    state = play(load(impl, d), "end")
    assert not state.is_terminal() and dict_of(state)["round"] == 7
    d = acting(place(base(impl), BARBARIAN, 6, 4), BARBARIAN, 2, resting=RBARD, done=[SORCERESS],
               round=7)
    state = play(load(impl, d), "end")
    assert state.is_terminal() and dict_of(state)["round"] == 7


# ============================================================================ 23-27: attacks, hydras

def test_p23_d4_attacks_only_enemies_and_own_camp(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 4), BARBARIAN, 3)
    place(d, SORCERESS, 6, 3)
    place(d, MONK, 6, 5)
    assert {s for s in legal(load(impl, d)) if s.startswith("axe")} == {"axe 6,5"}
    # On its own character camp (the Guardian, moved away, does not protect it).
    d = acting(place(base(impl), BARBARIAN, 7, 1), BARBARIAN, 3)
    place(d, GUARDIAN, 0, 5)
    place(d, MONK, 8, 1)
    assert not any(s.startswith("axe") for s in legal(load(impl, d)))
    # An ally within 2 steps of the Guardian is protected.
    d = acting(place(base(impl), BARBARIAN, 7, 1), BARBARIAN, 3)
    place(d, GUARDIAN, 6, 0)
    place(d, MONK, 6, 1)
    place(d, IBARD, 0, 5)
    assert not any(s.startswith("axe") for s in legal(load(impl, d)))


def test_p23_own_camp_protection_in_the_camp_placed_by_interactive_setup(impl):
    """Point 23 with the state's camps (25, 65): the Monk on the insignia 1,1 of its camp top_left
    cannot be attacked; on 8,1 (the fixed setup's Imperial camp, here a strawberry camp) it can.
    The Guardian stands far away so that its protection plays no part."""
    game, d = interactive_play(impl)
    place(d, GUARDIAN, 5, 5)

    def attacks(monk, barbarian, facing):
        e = acting(place(place(copy.deepcopy(d), MONK, *monk), BARBARIAN, *barbarian, facing),
                   BARBARIAN, 3)
        return {s for s in legal(load_in(game, e)) if s.split()[0] in ("axe", "throw")}
    assert attacks((1, 1), (2, 1), "w") == set()
    assert attacks((8, 1), (9, 1), "w") == {"axe 8,1", "throw 8,1"}


def test_p23_tower_shield_direction_and_d5(impl):
    def attacks(barbarian, facing="w", guardian_facing="e"):
        d = acting(place(base(impl), BARBARIAN, *barbarian, facing), BARBARIAN, 3)
        place(d, GUARDIAN, 5, 1, guardian_facing)
        return {s for s in legal(load(impl, d)) if s.split()[0] in ("axe", "throw")}
    assert attacks((6, 1)) == set()  # in front (east): blocked
    assert attacks((7, 1)) == set()  # throwing from 2 in front: blocked
    assert attacks((7, 1), guardian_facing="w") == {"throw 5,1"}  # from behind: allowed (D5)
    assert attacks((6, 1), guardian_facing="w") == {"axe 5,1", "throw 5,1"}
    assert attacks((5, 2), facing="n") == {"axe 5,1", "throw 5,1"}  # from the side: allowed
    assert attacks((5, 0), facing="s") == set()  # 5,0 --- 5,1 hedge: not adjacent, no LOS
    d = acting(place(base(impl), BARBARIAN, 5, 1, "n"), BARBARIAN, 3)
    place(d, GUARDIAN, 5, 1, "e")  # an attacker on its own cell is not "in a direction"
    assert {s for s in legal(load(impl, d)) if s.startswith("axe")} == {"axe 5,1:guardian"}


def test_p24_tower_shield_blocks_charm_and_compulsion(impl):
    def targets(guardian_facing):
        d = acting(place(base(impl), SORCERESS, 6, 6, "n"), SORCERESS, 3)
        place(d, GUARDIAN, 6, 4, guardian_facing)
        return {s.split()[1] for s in legal(load(impl, d)) if s.split()[0] in ("charm", "compel")}
    assert targets("s") == set()  # the Sorceress stands in its facing direction
    assert targets("n") == {"6,4"}
    assert targets("e") == {"6,4"}


def test_p25_defeat_drops_strawberries_and_the_owner_respawns(impl):
    d = acting(place(base(impl), BARBARIAN, 7, 1, "w"), BARBARIAN, 3)
    place(d, MONK, 6, 1, strawberries=2)
    place(d, GUARDIAN, 0, 5)
    d["plucked"] = [2, 0]
    remove_strawberries(d, (6, 1))
    state = play(load(impl, d), "axe 6,1")
    after = dict_of(state)
    assert after["characters"][MONK]["cell"] is None
    assert after["characters"][MONK]["strawberries"] == 0
    assert after["plucked"] == [2, 0]
    assert (after["phase"], after["respawn_queue"], after["resume_phase"]) == ("respawn", [MONK], "act")
    assert int(state.current_player()) == 0  # the owner decides, in the Raiders' turn
    assert legal(state) == {"respawn 8,0", "respawn 9,0", "respawn 8,1"}  # 9,1: the bard
    play(state, "respawn 9,0")
    after = dict_of(state)
    assert after["characters"][MONK]["cell"] == [9, 0]
    assert (after["phase"], int(state.current_player()), after["active"]) == ("act", 1, BARBARIAN)
    assert ap_of(state) == 3 - COST["battle_axe"]


def test_p25_respawn_anywhere_in_camp_when_full(impl):
    d = acting(place(base(impl), BARBARIAN, 7, 1, "w"), BARBARIAN, 3)
    place(d, MONK, 6, 1)
    place(d, GUARDIAN, 0, 5)
    place(d, SORCERESS, 8, 0)
    place(d, RBARD, 8, 1)
    place(d, IBARD, 9, 0)
    place(d, GUARDIAN, 9, 1)  # the camp is full
    state = play(load(impl, d), "axe 6,1")
    assert legal(state) == {"respawn 8,0", "respawn 9,0", "respawn 8,1", "respawn 9,1"}


def test_p25_respawn_in_the_camp_placed_by_interactive_setup(impl):
    """Point 25: the owner respawns on a free cell of the character camp of the state's `camps`
    (top_left after this interactive setup), the insignia 1,1 included."""
    game, d = interactive_play(impl)
    place(d, MONK, 5, 4)                  # off its camp: 0,0 and 1,1 are free
    place(d, BARBARIAN, 6, 4, "w")
    state = play(load_in(game, acting(d, BARBARIAN, 3)), "axe 5,4")
    assert dict_of(state)["respawn_queue"] == [MONK]
    assert legal(state) == {"respawn 0,0", "respawn 1,1"}
    play(state, "respawn 1,1")
    assert char(state, MONK)["cell"] == [1, 1]


def test_p25_defeat_ends_the_active_characters_activation(impl):
    d = acting(place(base(impl), BARBARIAN, 1, 3, strawberries=1), BARBARIAN, 3, resting=RBARD)
    d["plucked"] = [0, 1]
    remove_strawberries(d, (1, 3))
    state = play(load(impl, d), "move n")  # 1,2 is next to the hydra on 2,2
    after = dict_of(state)
    assert after["characters"][BARBARIAN]["cell"] is None
    assert after["characters"][BARBARIAN]["strawberries"] == 0
    assert (after["phase"], after["resume_phase"], after["active"], after["done"]) == (
        "respawn", "pick", None, [BARBARIAN])
    assert after["activation"] == default_activation()
    assert after["plucked"] == [0, 1]
    play(state, "respawn 8,8")
    assert legal(state) == {"activate sorceress", "forfeit sorceress"}


def test_p25_several_defeats_in_token_order(impl):
    # Forfeit: hydra 1 steps 4,2 -> 3,2 and defeats the barbarian on 3,1 and, through the hedge
    # 3,2 --- 3,3, the monk on 3,3. The imperial owner decides first (token order).
    d = picking(base(impl), 0, resting=IBARD, done=[GUARDIAN])
    d.update(phase="hydra")
    d["hydras"] = [[4, 2], [2, 7]]
    place(d, BARBARIAN, 3, 1)
    place(d, MONK, 3, 3)
    state = play(load(impl, d), "hydra 1 w")
    after = dict_of(state)
    assert after["respawn_queue"] == [MONK, BARBARIAN] and after["resume_phase"] == "pick"
    assert int(state.current_player()) == 0
    play(state, "respawn 8,1")
    assert int(state.current_player()) == 1
    assert legal(state) == {"respawn 8,8", "respawn 9,8"}  # 8,9 and 9,9 are taken
    play(state, "respawn 9,8")
    after = dict_of(state)
    assert (after["phase"], int(state.current_player())) == ("pick", 0)
    assert legal(state) == {"activate monk", "forfeit monk"}


def test_p26_hydra_kills_through_a_hedge(impl):
    d = acting(place(base(impl), MONK, 4, 3), MONK, 3)
    d["hydras"] = [[3, 2], [2, 7]]
    state = play(load(impl, d), "move w")  # 3,3, behind the hedge 3,2 --- 3,3
    assert char(state, MONK)["cell"] is None
    assert dict_of(state)["respawn_queue"] == [MONK]


def test_p26_hydra_kills_a_character_thrown_next_to_it(impl):
    d = acting(place(base(impl), MONK, 3, 3), MONK, 3)
    place(d, BARBARIAN, 4, 3)
    state = load(impl, d)
    grapples = {s for s in legal(state) if s.startswith("grapple")}
    # Over the water and the hedge to 3,1; onto the bridge 2,3; never onto water or 4,3 itself.
    assert {"grapple 4,3 3,1", "grapple 4,3 2,3", "grapple 4,3 1,3", "grapple 4,3 5,3"} <= grapples
    assert not {"grapple 4,3 3,2", "grapple 4,3 2,2", "grapple 4,3 4,3"} & grapples
    play(state, "grapple 4,3 2,3")  # next to the hydra on 2,2
    after = dict_of(state)
    assert after["characters"][BARBARIAN]["cell"] is None
    assert (after["phase"], after["resume_phase"]) == ("respawn", "act")
    assert int(state.current_player()) == 1  # the Raiders choose, in the Imperial turn
    play(state, "respawn 8,8")
    assert int(state.current_player()) == 0 and dict_of(state)["phase"] == "act"
    assert ap_of(state) == 3 - COST["grapple"]
    assert not any(s.startswith("grapple") for s in legal(state))  # once per activation


def test_p27_hydra_steps(impl):
    def steps(h1, h2=(2, 7)):
        d = picking(base(impl), 0, resting=IBARD, done=[GUARDIAN])
        d.update(phase="hydra", hydras=[list(h1), list(h2)])
        return load(impl, d)
    state = steps((2, 2))
    assert legal(state) == {"hydra 1 e", "hydra 1 s", "hydra 2 n", "hydra 2 e"}
    play(state, "hydra 1 s")
    assert dict_of(state)["hydras"][0] == [2, 4]  # dived under the bridge 2,3
    assert "hydra 1 s" not in legal(steps((2, 2), (2, 4)))  # the other hydra is there
    state = steps((6, 2))
    play(state, "hydra 1 w")
    assert dict_of(state)["hydras"][0] == [4, 2]  # under the bridge 5,2
    assert legal(steps((7, 7), (7, 6))) == {"hydra 1 w", "hydra 2 n"}


def test_p27_hydra_dives_under_two_bridges(impl):
    # Two adjacent bridges (4,2 and 5,2) in a hand-built state: hydra 1 at 3,2 stepping east dives
    # under both and comes up on 6,2.
    d = picking(base(impl), 0, resting=IBARD, done=[GUARDIAN])
    d.update(phase="hydra", hydras=[[3, 2], [2, 7]], bridges=[[4, 2], [5, 2], [2, 6], [5, 7]])
    state = load(impl, d)
    play(state, "hydra 1 e")
    assert dict_of(state)["hydras"][0] == [6, 2]
    # Back west from 6,2 it dives again to 3,2; not if the other hydra is there.
    d.update(hydras=[[6, 2], [3, 2]])
    assert "hydra 1 w" not in legal(load(impl, d))


# ============================================================================ 28-32: abilities

def test_p28_grapple_rules(impl):
    d = acting(place(base(impl), MONK, 3, 4), MONK, 3)
    place(d, BARBARIAN, 3, 5)  # across the hedge 3,4 --- 3,5: not adjacent
    place(d, SORCERESS, 3, 4)  # same cell: adjacent
    state = load(impl, d)
    targets = {s.split()[1] for s in legal(state) if s.startswith("grapple")}
    assert targets == {"3,4:sorceress"}
    play(state, "grapple 3,4:sorceress 5,4")
    assert char(state, SORCERESS)["cell"] == [5, 4] and ap_of(state) == 3 - COST["grapple"]


def test_p28_plant_limits(impl):
    d = acting(place(base(impl), MONK, 0, 4), MONK, 3)
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("plant")} == {"plant n", "plant e", "plant s"}
    play(state, "plant e")
    after = dict_of(state)
    assert ((0, 4), (1, 4)) in hedge_set(after)
    assert (after["characters"][MONK]["uses_left"], after["hedges_planted"]) == (USES["plant"] - 1, 1)
    assert ap_of(state) == 3 - COST["plant"]
    assert "move e" not in legal(state) and "plant e" not in legal(state)
    # No uses left, or the box of 4 hedges used up: no planting.
    d = acting(place(base(impl), MONK, 0, 4), MONK, 3)
    d["characters"][MONK]["uses_left"] = 0
    assert not any(s.startswith("plant") for s in legal(load(impl, d)))
    d["characters"][MONK]["uses_left"] = 1
    d["hedges_planted"] = 4
    assert not any(s.startswith("plant") for s in legal(load(impl, d)))
    # Not where a hedge already is (3,4 --- 3,5).
    d = acting(place(base(impl), MONK, 3, 4), MONK, 3)
    assert "plant s" not in legal(load(impl, d))


def test_p29_spear(impl):
    def spears(barbarian, guardian=(6, 1), facing="e"):
        d = acting(place(base(impl), GUARDIAN, *guardian, facing), GUARDIAN, 3)
        place(d, BARBARIAN, *barbarian)
        return {s for s in legal(load(impl, d)) if s.startswith("spear")}
    assert spears((7, 1)) == {"spear 7,1"}
    assert spears((5, 1)) == set()  # adjacent, not in LOS
    assert spears((6, 0)) == set()
    assert spears((6, 1)) == {"spear 6,1:barbarian"}
    assert spears((4, 1), guardian=(3, 1)) == set()  # in front, across the hedge 3,1 | 4,1
    state = play(load(impl, acting(place(place(base(impl), GUARDIAN, 6, 1, "e"), BARBARIAN, 7, 1),
                                   GUARDIAN, 3)), "spear 7,1")
    assert char(state, BARBARIAN)["cell"] is None and ap_of(state) == 3 - COST["spear"]


def test_p30_bard_agility_costs_one_ap(impl):
    d = acting(place(base(impl), IBARD, 6, 4), IBARD, 2)
    state = play(load(impl, d), "move sw")
    assert char(state, IBARD)["cell"] == [5, 5] and ap_of(state) == 1


def test_p31_chop_limits(impl):
    d = acting(place(base(impl), BARBARIAN, 3, 1), BARBARIAN, 3)
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("chop")} == {"chop e"}
    play(state, "chop e")
    after = dict_of(state)
    assert ((3, 1), (4, 1)) not in hedge_set(after)
    assert (after["characters"][BARBARIAN]["uses_left"], after["hedges_chopped"]) == (
        USES["chop"] - 1, 1)
    assert ap_of(state) == 3 - COST["chop"] and "move e" in legal(state)
    d = acting(place(base(impl), BARBARIAN, 3, 1), BARBARIAN, 3)
    d["characters"][BARBARIAN]["uses_left"] = 0
    assert not any(s.startswith("chop") for s in legal(load(impl, d)))
    d["characters"][BARBARIAN]["uses_left"] = 1
    d["hedges_chopped"] = 4
    assert not any(s.startswith("chop") for s in legal(load(impl, d)))


def test_p31_throwing_axe_once_per_activation(impl):
    d = place(place(base(impl), MONK, 6, 4), IBARD, 6, 6)
    acting(place(d, BARBARIAN, 6, 6, "n"), BARBARIAN, 3)  # War Cry (bard on its cell) applied
    state = load(impl, d)
    assert dict_of(state)["activation"]["war_cry"] == [IBARD]
    assert {s for s in legal(state) if s.split()[0] in ("axe", "throw")} == {
        "throw 6,4", "throw 6,6:bard", "axe 6,6:bard"}
    play(state, "throw 6,4", "respawn 8,0")
    assert {s for s in legal(state) if s.split()[0] in ("axe", "throw")} == {"axe 6,6:bard"}
    assert ap_of(state) == 3 - COST["throwing_axe"]


def test_p32_charm(impl):
    d = acting(place(base(impl), SORCERESS, 6, 6, "n"), SORCERESS, 3)
    place(d, MONK, 6, 4)
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("charm")} == {
        "charm 6,4 n", "charm 6,4 s", "charm 6,4 w"}  # 7,4 is water
    play(state, "charm 6,4 w")
    assert char(state, MONK)["cell"] == [5, 4] and ap_of(state) == 3 - COST["charm"]
    assert not any(s.startswith("charm") for s in legal(state))  # once per activation
    # Allies too; not herself.
    d = acting(place(base(impl), SORCERESS, 6, 6, "n"), SORCERESS, 3)
    place(d, BARBARIAN, 6, 6)
    assert {s.split()[1] for s in legal(load(impl, d)) if s.startswith("charm")} == {"6,6:barbarian"}


def test_p32_shadow_walk(impl):
    d = acting(place(base(impl), SORCERESS, 3, 4), SORCERESS, 3)
    state = load(impl, d)
    assert {s for s in legal(state) if s.startswith("shadow")} == {"shadow s"}
    play(state, "shadow s")
    assert char(state, SORCERESS)["cell"] == [3, 5] and ap_of(state) == 3 - COST["shadow_walk"]
    d = acting(place(base(impl), SORCERESS, 3, 4), SORCERESS, COST["shadow_walk"])
    place(d, MONK, 3, 5)
    assert "shadow s" not in legal(load(impl, d))  # would end on a shared cell with 0 AP


def test_p32_compulsion_d6(impl):
    d = acting(place(base(impl), SORCERESS, 6, 6, "n"), SORCERESS, 5)
    place(d, MONK, 6, 4)
    place(d, BARBARIAN, 6, 6)
    state = load(impl, d)
    assert {s.split()[1] for s in legal(state) if s.startswith("compel")} == {"6,4", "6,6:barbarian"}
    play(state, "compel 6,4 w")  # out of her LOS now
    after = dict_of(state)
    assert after["characters"][MONK]["cell"] == [5, 4]
    assert (after["activation"]["compulsions"], after["activation"]["compel_target"]) == (1, MONK)
    assert ap_of(state) == 4
    assert {s for s in legal(state) if s.startswith("compel")} == {"compel 5,4 n", "compel 5,4 e"}
    play(state, "compel 5,4 n", "compel 5,3 e")
    assert char(state, MONK)["cell"] == [6, 3] and ap_of(state) == 2
    assert not any(s.startswith("compel") for s in legal(state))  # at most 3


def test_p32_d56_a_defeated_target_ends_the_compulsion(impl):
    # The Sorceress compels the imperial Bard next to a hydra: it is defeated and respawns on its
    # camp, out of her sight; her 2 compulsions left are gone with it (D56), while her AP stays.
    d = place(base(impl), IBARD, 7, 8)
    d["hydras"] = [[2, 2], [6, 7]]
    acting(place(d, SORCERESS, 7, 1, "s"), SORCERESS, 5)
    state = play(load(impl, d), "compel 7,8 w")
    assert dict_of(state)["phase"] == "respawn"
    assert dict_of(state)["activation"]["compulsions"] == 3
    play(state, "respawn 8,1")
    assert char(state, IBARD)["cell"] == [8, 1] and ap_of(state) > 0
    assert (dict_of(state)["activation"]["compulsions"], dict_of(state)["activation"]["compel_target"]) == (3, IBARD)
    assert not any(s.startswith("compel") for s in legal(state))
    assert dict_of(load(impl, dict_of(state))) == dict_of(state)  # a state the readers accept


# ============================================================================ 33: scoring

def test_p33_vp_and_returns(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 4, strawberries=1), BARBARIAN, 2, resting=RBARD,
               done=[SORCERESS], round=7)
    place(d, MONK, 6, 6, strawberries=2)
    d["strawberries"] = [[3, 1], [6, 1]]
    d.update(plucked=[3, 3], deposited=[0, 2])
    assert balance(copy.deepcopy(d)) == d  # consistent as written
    state = load(impl, d)
    # Imperial: 3 plucked + 2 carried; Raiders: 3 plucked + 1 carried + 2 x 2 deposited.
    obs = floats(state.observation_tensor(0))
    assert obs[GAME_BASE + 2: GAME_BASE + 6] == [5.0, 8.0, 0.0, 2.0]
    if hasattr(state, "vp"):
        assert (state.vp(0), state.vp(1)) == (5, 8)
    assert floats(state.returns()) == [0.0, 0.0]
    play(state, "end")
    assert state.is_terminal() and floats(state.returns()) == [-1.0, 1.0]
    d.update(plucked=[4, 3], deposited=[1, 2])
    assert balance(copy.deepcopy(d)) == d
    state = play(load(impl, d), "end")
    assert floats(state.returns()) == [0.0, 0.0]  # 4 + 2 + 2 = 3 + 1 + 4: a draw


# ============================================================================ readings (R1-R12 of the
# reference's READINGS block: where the rules document is silent; the lead's doc update decides)

def test_r1_game_end_drops_pending_respawns(impl):
    d = acting(place(base(impl), BARBARIAN, 1, 3), BARBARIAN, 3, resting=RBARD, done=[SORCERESS],
               round=7)
    state = play(load(impl, d), "move n")  # next to the hydra on 2,2: its activation, the turn
    after = dict_of(state)                 # and the game end
    assert state.is_terminal()
    assert (after["characters"][BARBARIAN]["cell"], after["respawn_queue"], after["resume_phase"],
            after["phase"]) == (None, [], None, "rest")


def test_r1_turn_end_before_respawn(impl):
    d = acting(place(base(impl), BARBARIAN, 1, 3), BARBARIAN, 3, resting=RBARD, done=[SORCERESS],
               round=2)
    state = play(load(impl, d), "move n")
    after = dict_of(state)
    assert (after["round"], after["team"], after["phase"], after["resume_phase"]) == (
        3, 0, "respawn", "rest")
    assert int(state.current_player()) == 1
    play(state, "respawn 8,8")
    assert int(state.current_player()) == 0
    assert legal(state) == {"rest monk", "rest guardian", "rest bard"}


def test_r4_respawn_keeps_the_facing(impl):
    d = acting(place(base(impl), BARBARIAN, 7, 1, "w"), BARBARIAN, 3)
    place(d, MONK, 6, 1, "e")
    place(d, GUARDIAN, 0, 5)
    state = play(load(impl, d), "axe 6,1", "respawn 8,0")
    assert char(state, MONK)["facing"] == "e"


def test_r5_ballad_and_war_cry_together_then_clamp(impl):
    d = place(place(base(impl), IBARD, 0, 6), RBARD, 1, 5)
    acting(place(d, MONK, 0, 3), MONK, 1)  # 3 from both Bards
    state = play(load(impl, d), "move s")  # 0,4: 2 from both Bards at once
    act = dict_of(state)["activation"]
    assert (act["ap"], act["ballad"], act["war_cry"]) == (0, [IBARD], [RBARD])  # max(0, 0+1-1)


def test_r5_bard_check_after_a_respawn(impl):
    # The Sorceress compels the imperial Bard next to a hydra; it respawns 1 away from her.
    d = place(base(impl), IBARD, 7, 8)
    d["hydras"] = [[2, 2], [6, 7]]
    acting(place(d, SORCERESS, 7, 1, "s"), SORCERESS, 3)
    state = play(load(impl, d), "compel 7,8 w")
    assert ap_of(state) == 2 and dict_of(state)["phase"] == "respawn"
    play(state, "respawn 8,1")
    assert ap_of(state) == 1 and dict_of(state)["activation"]["war_cry"] == [IBARD]


def test_r9_tower_shield_at_every_compulsion(impl):
    d = acting(place(base(impl), SORCERESS, 6, 0, "s"), SORCERESS, 3)
    place(d, GUARDIAN, 6, 0, "n")  # on her cell: not "in a direction"
    state = play(load(impl, d), "compel 6,0:guardian s")
    assert not any(s.split()[0] in ("compel", "charm") for s in legal(state))  # now she is in front


def test_r10_observation_during_a_respawn_in_an_activation(impl):
    d = acting(place(base(impl), BARBARIAN, 7, 1, "w"), BARBARIAN, 3)
    place(d, MONK, 6, 1)
    place(d, GUARDIAN, 0, 5)
    state = play(load(impl, d), "axe 6,1")
    obs = floats(state.observation_tensor(1))
    assert obs[CHAR_BASE + 7:CHAR_BASE + 9] == [1.0, 2.0]  # still active, 2 AP
    assert obs[GAME_BASE + 6:GAME_BASE + 11] == [0, 0, 0, 0, 1]  # phase respawn
    assert obs_plane(obs, "enemy0") == set()


def test_r11_strings_outside_their_phase(impl):
    state = fresh(impl)
    assert [state.action_to_string(a) for a in (65, 68, 173 + 6, 33 + 4 * 7 + 3, 201 + 4 * 6)] == [
        "respawn 8,0", "respawn 9,1", "spear sentry1", "pass sentry2 4", "charm sentry1 n"]
    d = acting(place(base(impl), BARBARIAN, 7, 1), BARBARIAN, 3)
    place(d, MONK, off=True)
    d.update(phase="respawn", respawn_queue=[MONK], resume_phase="act", current_player=0)
    state = load(impl, d)
    assert state.action_to_string(69 + 12 * BARBARIAN + 0) == "grapple 7,1 +0,-2"
    assert state.string_to_action("grapple 7,1 +0,-2") == 69 + 12 * BARBARIAN


def test_r12_guardian_protects_an_ally_on_its_own_cell(impl):
    d = acting(place(base(impl), BARBARIAN, 6, 4), BARBARIAN, 3)
    place(d, GUARDIAN, 6, 5, "w")
    place(d, MONK, 6, 5)
    assert {s for s in legal(load(impl, d)) if s.split()[0] in ("axe", "throw")} == {
        "axe 6,5:guardian"}


# ============================================================================ protocol details

def test_observation_layout(impl):
    game = make_game(impl)
    assert tuple(game.observation_shape()) == (2131,)
    d = acting(place(base(impl), MONK, 6, 5, strawberries=1), MONK, 3, face_used=True)
    state = load(impl, d)
    obs = floats(state.observation_tensor())
    assert len(obs) == 2131
    monk = obs[CHAR_BASE:CHAR_BASE + 12]
    assert monk == [0, 0, 1, 0, 1, 0, 0, 1, 3, 0, USES["plant"], 1]
    guardian = obs[CHAR_BASE + CHAR_STRIDE:CHAR_BASE + CHAR_STRIDE + 12]
    assert guardian == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1]  # resting this turn
    assert obs[GAME_BASE:GAME_BASE + 2] == [1.0, 1.0]
    assert obs[GAME_BASE + 6:GAME_BASE + 11] == [0, 0, 1, 0, 0]  # phase act
    assert obs[ACT_BASE:ACT_BASE + 6] == [1, 0, 0, 0, 0, 0]
    enemy_view = floats(state.observation_tensor(1))
    assert enemy_view[CHAR_BASE + 3 * CHAR_STRIDE:CHAR_BASE + 3 * CHAR_STRIDE + 12] == monk
    assert enemy_view[GAME_BASE + 1] == 0.0


def test_illegal_action_raises_and_leaves_the_state(impl):
    state = fresh(impl)
    before = dict_of(state)
    with pytest.raises(ValueError) as info:
        state.apply_action(17)
    assert "0 (rest monk)" in str(info.value)
    assert dict_of(state) == before
    with pytest.raises(ValueError):
        state.apply_action(491)


def test_string_to_action(impl):
    state = fresh(impl)
    assert state.string_to_action("  REST   Monk ") == 0
    with pytest.raises(ValueError):
        state.string_to_action("rest nobody")
    d = acting(place(base(impl), MONK, 3, 3), MONK, 3)
    place(d, BARBARIAN, 4, 3)
    state = load(impl, d)
    for a in ints(state.legal_actions()):
        assert state.string_to_action(state.action_to_string(a)) == a
    assert state.action_to_string(69 + 12 * BARBARIAN + 0) == "grapple 4,3 3,1"


def test_state_from_dict_round_trip_and_validation(impl):
    d = balance(acting(place(base(impl), MONK, 6, 5, strawberries=1), MONK, 3))
    game = make_game(impl)
    assert dict_of(game.state_from_dict(copy.deepcopy(d))) == d

    def bad(mutate):
        broken = copy.deepcopy(d)
        mutate(broken)
        with pytest.raises(ValueError):
            game.state_from_dict(broken)

    bad(lambda x: x.pop("round"))
    bad(lambda x: x.update(round=8))
    bad(lambda x: x.update(phase="lunch"))
    bad(lambda x: x.update(current_player=1))
    bad(lambda x: x["characters"][MONK].update(cell=[2, 4]))  # water
    bad(lambda x: x["characters"][MONK].update(cell=[2, 1]))  # next to a hydra
    bad(lambda x: x["characters"][MONK].update(strawberries=SLOTS[MONK] + 1))
    bad(lambda x: x["characters"][MONK].update(id="barbarian"))
    bad(lambda x: x.update(hydras=[[2, 2], [2, 2]]))
    bad(lambda x: x.update(hydras=[[2, 3], [2, 7]]))  # a bridge
    bad(lambda x: x.update(hedges=[[[0, 0], [2, 0]]]))
    bad(lambda x: x.update(active=None))
    bad(lambda x: x.update(active=BARBARIAN))
    bad(lambda x: x["activation"].update(ap=-1))
    bad(lambda x: x.update(strawberries=[[2, 4]]))
    bad(lambda x: x.update(respawn_queue=[MONK]))
    bad(lambda x: x.update(last_rested=[BARBARIAN, None]))
    bad(lambda x: x.update(plucked=[0, 0]))  # the monk carries a strawberry nobody plucked
    bad(lambda x: x["strawberries"].append([0, 5]))  # 14 on the board + 1 plucked


# ============================================================================ random games

def _biased_choice(legal_list, rng):
    """Rarely end, forfeit or reface; attack, pluck and deposit often: longer, busier games."""
    weights = [0.02 if a == 32 or 6 <= a <= 8 or 25 <= a <= 28
               else 3.0 if a in (29, 30) or 173 <= a <= 200 else 1.0 for a in legal_list]
    return rng.choices(legal_list, weights)[0]


def _late_game_start(game):
    """Two strawberries left on the board, two carried, one deposited each: early ends and
    deposits happen in random play from here."""
    d = game.new_initial_state().to_dict()
    d["strawberries"] = [[6, 1], [3, 8]]
    d["plucked"] = [6, 6]
    d["deposited"] = [1, 1]
    d["characters"][MONK].update(cell=[3, 9], strawberries=1)
    d["characters"][BARBARIAN].update(cell=[3, 0], strawberries=1)
    return game.state_from_dict(d)


def test_random_games_invariants_reference():
    game = make_game("reference")
    rng = random.Random(2024)
    seen = set()
    for seed in range(200):
        state = game.new_initial_state(seed=seed) if seed % 3 else _late_game_start(game)
        choose = (lambda legal_list: rng.choice(legal_list)) if seed % 2 else \
            (lambda legal_list: _biased_choice(legal_list, rng))
        while not state.is_terminal():
            legal_list = state.legal_actions()
            assert legal_list == sorted(set(legal_list)) and legal_list
            mask = state.legal_actions_mask()
            assert [a for a in range(491) if mask[a]] == legal_list
            assert state.current_player() in (0, 1)
            action = choose(legal_list)
            seen.add(state.action_to_string(action).split()[0])
            if rng.random() < 0.2:
                d = state.to_dict()
                assert game.state_from_dict(json.loads(json.dumps(d))).to_dict() == d
                assert len(state.observation_tensor()) == 2131
                assert state.string_to_action(state.action_to_string(action)) == action
                twin = state.clone()
                twin.apply_action(action)
                assert state.to_dict() == d  # the clone is independent
                state = twin
            else:
                state.apply_action(action)
            assert state.move_number() <= game.max_game_length()
        assert state.current_player() == TERMINAL and state.legal_actions() == []
        vp = (state.vp(0), state.vp(1))
        expected = [0.0, 0.0] if vp[0] == vp[1] else ([1.0, -1.0] if vp[0] > vp[1] else [-1.0, 1.0])
        assert state.returns() == expected
        d = state.to_dict()
        assert game.state_from_dict(d).to_dict() == d
        if state.to_dict()["round"] < 7:
            seen.add("early end")
    assert {"deposit", "respawn", "axe", "pluck", "hydra", "early end"} <= seen


def test_reference_speed_report(capsys):
    game = make_game("reference")
    rng = random.Random(7)
    start, actions, games = time.perf_counter(), 0, 0
    while time.perf_counter() - start < 1.0:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    with capsys.disabled():
        print(f"\n[imperial_harvest reference] {actions / elapsed:,.0f} actions/s, "
              f"{games / elapsed:,.1f} random games/s")
