"""Rule tests for Imperial Harvest part 2 (docs/rules/imperial-harvest.md: points 34-65,
D18-D54): the 8 new characters, sentries, card sides, custom and
drafted teams, interactive setup, random boards.

Every test runs on both implementations: the pure-Python reference (meeple.reference) and the C++
engine (meeple.load); the engine runs are skipped until the engine has part 2
(num_distinct_actions() == 491). Positions are hand-built from `new_initial_state().to_dict()` of a
game with custom teams, edited, and loaded with `state_from_dict`. Unless a test says otherwise the
hedges are removed (`open_board`) so that the geometry is plain, and one spare strawberry stays on
0,5. Card numbers (AP, costs, uses, Regent VP, gaze loss) come from characters.json.

Standard board cells used: the central island x, y in 3..6 (no hydra next to it), hydras on 2,2 and
2,7, the Imperial character camp 8..9 x 0..1, the Raiders' 8..9 x 8..9.
"""
import copy
import json
import pathlib
import pickle

import pytest

IMPLS = ["reference", "engine"]
ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "python" / "meeple" / "data" / "imperial_harvest"
_CHARS = json.loads((DATA / "characters.json").read_text())
_TILES = json.loads((DATA / "tiles.json").read_text())
_BOARDS = json.loads((DATA / "boards.json").read_text())
CARD_IDS = [c["id"] for c in _CHARS["characters"]]
DEFAULTS = _CHARS["defaults"]


def ability(name, key="ap"):
    return _CHARS["abilities"][name][key]


def card_ap(ident):
    entry = next(c for c in _CHARS["characters"] if c["id"] == ident)
    return entry.get("ap", DEFAULTS["ap"])


def card_slots(ident):
    entry = next(c for c in _CHARS["characters"] if c["id"] == ident)
    return entry.get("item_slots", DEFAULTS["item_slots"])


def bonus_ap(ident):
    entry = next(c for c in _CHARS["characters"] if c["id"] == ident)
    return dict(DEFAULTS["strawberry"], **entry.get("strawberry", {}))["bonus_ap"]


# ---------------------------------------------------------------------------- loading
# The loaders and the plain-dict helpers are the part-1 rule tests' (one place for both files).
from test_imperial_harvest_rules import (
    default_activation,
    dict_of,
    hedge_set,
    hedge_key,
    ints,
    legal,
    make_game,
    picking,
    plain,
)
from test_imperial_harvest_rules import play as do


@pytest.fixture(params=IMPLS)
def impl(request):
    return request.param


# Team sets (custom `teams`); token numbers per set.
SET_A = "regent,hound,minotaur/basilisk,nymph,skin_changer"       # 0 regent 1 hound 2 minotaur
SET_B = "monk,regent,imperial_bard/barbarian,hound,nymph"         # 3 barbarian 4 hound 5 nymph
SET_C = "puppeteer,ranger,monk/barbarian,nymph,basilisk"          # 0 puppeteer 1 ranger 2 monk
SET_D = "basilisk,monk,regent/skin_changer,hound,nymph"           # 0 basilisk 3 skin-changer
SET_E = "minotaur,monk,regent/hound,basilisk,nymph"               # 0 minotaur 3 hound 4 basilisk
SET_F = "basilisk,monk,regent/imperial_guardian,hound,nymph"      # 3 guardian
SET_G = "ranger,monk,regent/barbarian,hound,nymph"                # 0 ranger 3 barbarian


def base(impl, teams, hedges=False, **params):
    d = dict_of(make_game(impl, teams=teams, **params).new_initial_state())
    if not hedges:
        d["hedges"] = []
    d["strawberries"] = [[0, 5]]
    return d


def put(d, t, x=None, y=None, facing=None, strawberries=None, off=False):
    ch = d["characters"][t]
    if off:
        ch["cell"] = None
    elif x is not None:
        ch["cell"] = [x, y]
    if facing is not None:
        ch["facing"] = facing
    if strawberries is not None:
        ch["strawberries"] = strawberries
        team = t // 3
        held = sum(c["strawberries"] for c in d["characters"][3 * team:3 * team + 3])
        d["plucked"][team] = max(d["plucked"][team], held + d["deposited"][team])
    return d


def acting(d, t, ap, done=(), resting=None, **flags):
    team = t // 3
    mates = [u for u in range(3 * team, 3 * team + 3) if u != t and u not in done]
    d.update(team=team, phase="act", resting=mates[0] if resting is None else resting, active=t,
             done=sorted(done), current_player=team)
    act = default_activation()
    act["ap"] = ap
    act["bonus"] = d["characters"][t]["strawberries"] >= 1
    act.update(flags)
    d["activation"] = act
    return d


def load(impl, d, teams, **params):
    d["strawberries"].sort(key=lambda c: (c[1], c[0]))
    return make_game(impl, teams=teams, **params).state_from_dict(copy.deepcopy(d))


def tile_hedges(tiles):
    """An independent tile builder (point 3 + D27): slot -> [face, transform 0..7]."""
    slots = dict(_TILES["board"]["rect_slots"], **_TILES["board"]["square_slots"])
    sides = "NESW"
    delta = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
    out = set()
    for slot_name, (face_name, t) in tiles.items():
        face, slot = _TILES["faces"][face_name], slots[slot_name]
        for x, y, side in face["hedges"]:
            w, h = face["size"]
            for _ in range(t % 4):
                x, y, side = h - 1 - y, x, sides[(sides.index(side) + 1) % 4]
                w, h = h, w
            if t >= 4:
                y, side = h - 1 - y, {"N": "S", "S": "N"}.get(side, side)
            ax, ay = slot["origin"][0] + x, slot["origin"][1] + y
            bx, by = ax + delta[side][0], ay + delta[side][1]
            if 0 <= bx < 10 and 0 <= by < 10:
                a, b = sorted([(ax, ay), (bx, by)], key=lambda c: (c[1], c[0]))
                out.add((a, b))
    return out


# ============================================================================ parameters

def test_parameters_defaults_and_sizes(impl):
    game = make_game(impl)
    assert plain(game.parameters()) == {"board": "standard", "board_seed": None, "sides": "basic",
                                        "teams": "first_game", "setup": "fixed",
                                        "characters": None}
    assert game.num_distinct_actions() == 491
    assert tuple(game.observation_shape()) == (2131,)
    state = game.new_initial_state()
    assert len(state.observation_tensor()) == 2131
    assert dict_of(state)["regent_vp"] == [0, 0]
    assert dict_of(state)["sentries"] == [None, None]


@pytest.mark.parametrize("params, words", [
    ({"board": "moon"}, ["standard", "random"]),
    ({"sides": "golden"}, ["basic", "advanced"]),
    ({"setup": "later"}, ["fixed", "interactive"]),
    ({"teams": "monk,regent"}, ["first_game", "draft"]),
    ({"teams": "monk,regent,wizard/barbarian,hound,nymph"}, ["wizard"]),
    ({"teams": "monk,regent,monk/barbarian,hound,nymph"}, ["monk"]),
    ({"teams": "imperial_bard,puppeteer,monk/barbarian,hound,nymph"}, ["imperial_bard", "puppeteer"]),
    ({"teams": "monk,regent,imperial_bard/barbarian,minotaur,nymph"}, ["barbarian", "minotaur"]),
    ({"board_seed": -1}, ["board_seed"]),
])
def test_parameter_validation_names_the_problem(impl, params, words):
    with pytest.raises(ValueError) as info:
        make_game(impl, **params)
    for word in words:
        assert word in str(info.value)


def test_custom_teams_token_order_and_fixed_setup(impl):
    d = dict_of(make_game(impl, teams=SET_B).new_initial_state())
    assert [c["id"] for c in d["characters"]] == SET_B.replace("/", ",").split(",")
    # point 5: start spaces in slot order, facing the centre; D19: factions ignored
    assert [c["cell"] for c in d["characters"]] == [[8, 0], [9, 0], [9, 1], [9, 8], [8, 9], [9, 9]]
    assert [c["facing"] for c in d["characters"]] == ["s", "s", "w", "w", "n", "n"]
    assert d["regent_vp"] == [ability("point_of_order", "vp"), 0]
    state = make_game(impl, teams=SET_B).new_initial_state()
    assert state.vp(0) == ability("point_of_order", "vp") and state.vp(1) == 0
    assert legal(state) == {"rest monk", "rest regent", "rest bard"}


def test_sides_advanced_override_from_a_user_table(impl):
    table = copy.deepcopy(_CHARS)
    monk = next(c for c in table["characters"] if c["id"] == "monk")
    monk["advanced"] = {"ap": card_ap("monk") + 2}
    table["abilities"]["plant"]["advanced"] = {"uses_per_game": 1}
    aps = {}
    for sides, uses in (("basic", ability("plant", "uses_per_game")), ("advanced/basic", 1),
                        ("basic/advanced", ability("plant", "uses_per_game"))):
        game = make_game(impl, characters=table, sides=sides)
        state = game.new_initial_state()
        assert dict_of(state)["characters"][0]["uses_left"] == uses
        do(state, "rest bard", "activate monk")   # (the resting Bard's Ballad applies to all)
        aps[sides] = dict_of(state)["activation"]["ap"]
    assert aps["advanced/basic"] == aps["basic"] + 2 and aps["basic/advanced"] == aps["basic"]
    obs = [float(v) for v in make_game(impl, characters=table, sides="advanced/basic")
           .new_initial_state().observation_tensor(1)]
    assert obs[1900 + 168 + 22:1900 + 168 + 24] == [0.0, 1.0]   # own side, enemy side advanced
    assert plain(make_game(impl, sides="basic/basic").parameters())["sides"] == "basic"


def test_random_boards_are_reproducible_from_board_seed(impl):
    a = make_game(impl, board="random", board_seed=12345)
    b = make_game(impl, board="random", board_seed=12345)
    c = make_game(impl, board="random", board_seed=54321)
    assert plain(a.parameters())["board"] == "random" and plain(a.parameters())["board_seed"] == 12345
    da, db, dc = (dict_of(g.new_initial_state()) for g in (a, b, c))
    assert da == db
    assert da["tiles"] != dc["tiles"]
    # the hedges are the tile builder's
    assert hedge_set(da) == tile_hedges(da["tiles"])
    try:
        from meeple.imperial_harvest import Board
    except Exception:  # noqa: BLE001 - the Board class needs the compiled package
        return
    record = Board.random(12345).to_dict()
    assert da["tiles"] == record["tiles"]
    assert da["bridges"] == sorted(record["bridges"], key=lambda c: (c[1], c[0]))
    assert sorted(da["hedges"]) == sorted(record["hedges"])


# ============================================================================ Aura, Changeling

def test_aura_blocks_active_abilities_only(impl):
    d = acting(put(put(base(impl, SET_A), 2, 4, 4, "e"), 4, 4, 5, "n"), 2, 3)
    d["hedges"] = [[[4, 4], [4, 5]]]  # the Aura ignores hedges
    state = load(impl, d, SET_A)
    moves = {"move n", "move e", "move w"}
    assert moves <= legal(state)
    assert not {a for a in legal(state) if a.split()[0] in ("flip", "horns", "charge")}
    put(d, 4, 6, 6)  # Nymph two cells away: no Aura
    assert "flip" in legal(load(impl, d, SET_A))
    put(d, 4, 4, 4)  # on the Minotaur's own cell: under her Aura too
    assert not {a for a in legal(load(impl, d, SET_A)) if a.split()[0] in ("flip", "horns", "charge")}
    put(d, 4, 5, 5)  # diagonal: not orthogonally next to her, no Aura
    assert "flip" in legal(load(impl, d, SET_A))


def test_aura_passives_still_work_and_agility_is_not_blocked(impl):
    # The Puppeteer (Agility) under an enemy Nymph's Aura keeps its diagonal moves.
    d = acting(put(put(base(impl, SET_C), 0, 4, 4, "e"), 4, 4, 5, "n"), 0, 3)
    state = load(impl, d, SET_C)
    assert {"move ne", "move nw"} <= legal(state)
    assert not [a for a in legal(state) if a.split()[0] in ("vent", "puppet")]


def test_changeling_borrows_from_her_cell_team_and_the_lenders_uses(impl):
    d = base(impl, SET_B)
    put(d, 5, 4, 4, "n")        # Nymph (raiders) active
    put(d, 0, 4, 3, "s")        # Monk (imperial) adjacent: grapple, pounce, plant
    put(d, 3, 3, 4, "e")        # Barbarian (ally) adjacent: axe, chop, throw
    acting(d, 5, 3)
    state = load(impl, d, SET_B)
    options = legal(state)
    assert "grapple 4,3 3,3" in options           # offset from the Nymph's cell
    assert "plant s" in options and "pounce se" in options
    assert "axe 4,3" in options                   # the Monk is her enemy
    assert "axe 3,4" not in options               # her ally
    uses = d["characters"][0]["uses_left"]
    do(state, "plant s")
    after = dict_of(state)
    assert after["characters"][0]["uses_left"] == uses - 1 and after["hedges_planted"] == 1
    assert [[4, 4], [4, 5]] in after["hedges"]
    assert after["activation"]["ap"] == 3 - ability("plant")
    do(state, "grapple 4,3 3,3")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [3, 3] and after["activation"]["grapple_used"]
    assert after["activation"]["ap"] == 3 - ability("plant") - ability("grapple")


def test_changeling_cannot_borrow_puppetry(impl):
    d = base(impl, SET_C)
    put(d, 4, 4, 4, "n")        # Nymph (raiders)
    put(d, 0, 4, 3, "s")        # Puppeteer adjacent (under her Aura: does not matter)
    put(d, 2, 5, 4, "w")        # Monk adjacent
    acting(d, 4, 3)
    options = legal(load(impl, d, SET_C))
    assert not [a for a in options if a.startswith("puppet")]
    assert [a for a in options if a.startswith("vent")]   # Ventriloquism is borrowable
    assert "grapple 4,3 3,3" in options


def test_changeling_lends_nothing_across_a_hedge(impl):
    """Point 51: the lender must be adjacent (point 12): the Monk across a hedge lends nothing,
    the same Monk without the hedge lends Grapple, Dragon Pounce and Plant."""
    d = base(impl, SET_B)
    put(d, 5, 4, 4, "n")        # Nymph (raiders)
    put(d, 0, 4, 3, "s")        # Monk north of her
    put(d, 1, 0, 8)             # Regent and imperial Bard far away
    put(d, 2, 0, 9)
    acting(d, 5, 3)
    borrowed = {"grapple", "pounce", "plant"}
    assert {a.split()[0] for a in legal(load(impl, d, SET_B))} >= borrowed
    d["hedges"] = [[[4, 3], [4, 4]]]
    assert not [a for a in legal(load(impl, d, SET_B)) if a.split()[0] in borrowed]


# ============================================================================ Puppetry

def test_puppetry_acts_from_the_puppet_and_the_puppeteer_pays(impl):
    d = base(impl, SET_C)
    put(d, 0, 4, 4, "n")        # Puppeteer active
    put(d, 3, 5, 5, "w")        # Barbarian (enemy) 2 steps away
    put(d, 2, 6, 5, "n")        # Monk (imperial) next to the Barbarian
    put(d, 1, 1, 4, "s")        # Ranger far away
    acting(d, 0, 3)
    state = load(impl, d, SET_C)
    assert "puppet 5,5" in legal(state)
    do(state, "puppet 5,5")
    mid = dict_of(state)
    assert mid["phase"] == "puppet" and mid["activation"]["puppet"] == 3
    assert mid["activation"]["ap"] == 3
    options = legal(state)
    assert "end" not in options and "axe 6,5" in options
    assert not [a for a in options if a.startswith("move")]
    do(state, "axe 6,5")        # the puppet attacks its own enemies
    after = dict_of(state)
    assert after["characters"][2]["cell"] is None
    assert after["activation"]["ap"] == 3 - ability("battle_axe")
    assert after["activation"]["puppet"] is None
    assert after["phase"] == "respawn" and after["resume_phase"] == "act"


def test_puppetry_targets(impl):
    d = base(impl, SET_C)
    put(d, 0, 4, 4, "n")
    put(d, 3, 6, 6, "w")        # 4 steps away: too far
    put(d, 2, 6, 5, "n")
    acting(d, 0, 3)
    assert not [a for a in legal(load(impl, d, SET_C)) if a.startswith("puppet 6,6")]
    put(d, 3, 5, 5)
    put(d, 4, 5, 6, "n")        # the Nymph next to the Barbarian: under her Aura, not a puppet
    assert "puppet 5,5" not in legal(load(impl, d, SET_C))


SET_P = "puppeteer,monk,regent/skin_changer,hound,nymph"     # 0 puppeteer 3 skin-changer
SET_Q = "puppeteer,monk,regent/barbarian,nymph,hound"        # 0 puppeteer 1 monk 3 barbarian


def test_puppetry_excludes_sprint_and_needs_an_affordable_action(impl):
    """Point 54 / D31: a puppeted Skin-Changer offers Wolf Form only, never Sprint (its free moves
    would fall to the Puppeteer), though the AP would pay for it; `puppet` needs an affordable
    puppet action."""
    assert ability("sprint") <= 3
    d = base(impl, SET_P)
    put(d, 0, 4, 4, "n")
    put(d, 3, 5, 4, "n")
    acting(d, 0, 3)
    state = load(impl, d, SET_P)
    do(state, "puppet 5,4")
    assert legal(state) == {"wolf"}
    acting(d, 0, ability("wolf_form"))
    assert "puppet 5,4" in legal(load(impl, d, SET_P))
    acting(d, 0, ability("wolf_form") - 1)
    assert not [a for a in legal(load(impl, d, SET_P)) if a.startswith("puppet")]


def test_a_puppet_that_defeats_the_puppeteer_ends_its_activation(impl):
    """Point 54: the puppet attacks its own enemies, the Puppeteer included; the Puppeteer's
    activation ends with its defeat (the first of the turn: respawn, then `pick`)."""
    d = base(impl, SET_Q)
    put(d, 0, 4, 4, "n")        # Puppeteer (imperial)
    put(d, 3, 5, 4, "w")        # Barbarian (raiders) next to it
    put(d, 1, 0, 2)
    put(d, 2, 0, 3)
    acting(d, 0, 3, resting=2)
    state = load(impl, d, SET_Q)
    do(state, "puppet 5,4")
    assert "axe 4,4" in legal(state)
    do(state, "axe 4,4")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["respawn_queue"] == [0]
    assert (after["phase"], after["resume_phase"], after["active"], after["done"]) == (
        "respawn", "pick", None, [0])
    assert after["activation"]["puppet"] is None


def test_d20_a_puppets_grapple_uses_up_the_activations_grapple(impl):
    """D20: "once per turn" is a flag of the activation in progress: after a puppet Monk's Grapple,
    puppeting the Monk again offers Plant and Dragon Pounce but no Grapple."""
    d = base(impl, SET_Q)
    put(d, 0, 4, 4, "n")        # Puppeteer
    put(d, 1, 5, 4, "n")        # Monk, its ally, the puppet
    put(d, 3, 5, 5, "n")        # Barbarian next to the Monk
    acting(d, 0, 5)
    state = load(impl, d, SET_Q)
    do(state, "puppet 5,4")
    assert {a.split()[0] for a in legal(state)} == {"grapple", "plant", "pounce"}
    do(state, "grapple 5,5 6,5", "puppet 5,4")
    assert dict_of(state)["activation"]["grapple_used"]
    assert {a.split()[0] for a in legal(state)} == {"plant", "pounce"}


# ============================================================================ Territorial

def test_territorial_steps_and_diagonal_middle_cell(impl):
    d = base(impl, SET_B)
    put(d, 4, 5, 4, "n")        # Hound (raiders)
    put(d, 2, 4, 4, "n")        # imperial Bard (Agility), an enemy of the Hound
    acting(d, 2, 3)
    state = load(impl, d, SET_B)
    assert "move e" not in legal(state)
    assert "move ne" in legal(state)            # via 4,3
    d["hedges"] = [[[4, 3], [4, 4]]]            # only the route through the Hound's cell is left
    assert "move ne" not in legal(load(impl, d, SET_B))
    # allies pass as usual
    d2 = acting(put(put(base(impl, SET_B), 4, 5, 4, "n"), 3, 4, 4, "n"), 3, 3)
    assert "move e" in legal(load(impl, d2, SET_B))


def test_territorial_grapple_landing(impl):
    d = base(impl, SET_B)
    put(d, 4, 5, 4, "n")        # Hound (raiders)
    put(d, 0, 4, 4, "n")        # Monk
    put(d, 2, 4, 3, "n")        # imperial Bard next to the Monk
    put(d, 3, 3, 4, "n")        # Barbarian next to the Monk
    acting(d, 0, 3)
    options = legal(load(impl, d, SET_B))
    assert "grapple 4,3 5,4" not in options      # an enemy of the Hound
    assert "grapple 3,4 5,4" in options          # an ally of the Hound


def test_territorial_charm_and_compulsion(impl):
    """Point 44 / D25: forced steps obey Territorial: the Sorceress may charm or compel an ally of
    the Hound into the Hound's cell (east), never an enemy of it."""
    teams = "sorceress,monk,regent/barbarian,hound,nymph"     # 0 sorceress 3 barbarian 4 hound
    d = base(impl, teams)
    put(d, 0, 4, 6, "n")        # Sorceress looks north at the Barbarian
    put(d, 3, 4, 4, "s")
    put(d, 4, 5, 4, "n")        # Hound east of the Barbarian, its ally
    acting(d, 0, 3)
    forced = {a for a in legal(load(impl, d, teams)) if a.startswith(("charm", "compel"))}
    assert forced == {f"{w} 4,4 {dd}" for w in ("charm", "compel") for dd in "nesw"}
    teams = "barbarian,hound,nymph/sorceress,monk,regent"     # 1 hound 3 sorceress 4 monk
    d = base(impl, teams)
    put(d, 3, 4, 6, "n")
    put(d, 4, 4, 4, "s")        # Monk (raiders), an enemy of the Hound
    put(d, 1, 5, 4, "n")
    acting(d, 3, 3)
    forced = {a for a in legal(load(impl, d, teams)) if a.startswith(("charm", "compel"))}
    assert forced == {f"{w} 4,4 {dd}" for w in ("charm", "compel") for dd in "nsw"}


# ============================================================================ Regent, sentries

def test_sentry_placement_limits(impl):
    d = acting(put(base(impl, SET_A), 0, 4, 4, "n"), 0, 3)
    state = load(impl, d, SET_A)
    options = legal(state)
    assert {f"sentry {dd} {f}" for dd in "nesw" for f in "nesw"} <= options
    do(state, "sentry e n")
    after = dict_of(state)
    assert after["sentries"] == [{"cell": [5, 4], "facing": "n"}, None]
    assert after["activation"]["ap"] == 3 - ability("sentry") and after["activation"]["sentry_used"]
    assert not [a for a in legal(state) if a.startswith("sentry")]   # once per activation
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, {"cell": [3, 4], "facing": "s"}]
    state = load(impl, d, SET_A)
    assert not [a for a in legal(state) if a.startswith("sentry")]   # at most 2 on the board
    assert "move e" in legal(state)      # a sentry is a token: sharing needs AP left
    assert "axe" not in " ".join(legal(state))


def test_sentry_placement_needs_a_free_legal_step_and_takes_the_lowest_token(impl):
    """Point 60: a sentry goes on a neighbour that is a legal step target (not across a hedge, not
    water) holding no token; the lowest off-board sentry token is the one placed."""
    d = base(impl, SET_A)
    put(d, 0, 3, 4, "n")        # Regent: 2,4 (west) is moat water
    put(d, 1, 4, 4, "n")        # Hound on the east neighbour
    d["hedges"] = [[[3, 3], [3, 4]]]     # a hedge on the north edge
    acting(d, 0, 3)
    placements = {a for a in legal(load(impl, d, SET_A)) if a.startswith("sentry")}
    assert placements == {f"sentry s {f}" for f in "nesw"}
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n")
    d["sentries"] = [None, {"cell": [6, 6], "facing": "n"}]
    acting(d, 0, 3)
    state = load(impl, d, SET_A)
    do(state, "sentry e n")
    assert dict_of(state)["sentries"] == [{"cell": [5, 4], "facing": "n"},
                                          {"cell": [6, 6], "facing": "n"}]


def test_a_sentry_is_never_a_pass_target(impl):
    """Points 21/37: sentries never carry: an adjacent sentry is no `pass` target, an adjacent
    character with a free slot is."""
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n", strawberries=1)
    put(d, 1, 3, 4, "n")        # Hound west
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, None]    # sentry east
    acting(d, 0, 3)
    assert {a for a in legal(load(impl, d, SET_A)) if a.startswith("pass")} == {"pass 3,4 1"}


def test_sentry_attack_and_regent_vp(impl):
    vp = ability("point_of_order", "vp")
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n")
    put(d, 5, 5, 3, "w")        # Skin-Changer (enemy) north of the sentry's cell
    acting(d, 0, 3)
    state = load(impl, d, SET_A)
    do(state, "sentry e n")     # placed facing it: attacks at once
    after = dict_of(state)
    assert after["characters"][5]["cell"] is None and after["respawn_queue"] == [5]
    assert after["regent_vp"] == [vp, 0]
    # Facing away: no attack.
    state = load(impl, d, SET_A)
    do(state, "sentry e s")
    assert dict_of(state)["characters"][5]["cell"] == [5, 3]
    # Poison Blood: a sentry defeating the Basilisk is defeated; the Regent loses a VP.
    put(d, 5, 0, 4)
    put(d, 3, 5, 3, "w")
    state = load(impl, d, SET_A)
    do(state, "sentry e n")
    after = dict_of(state)
    assert after["characters"][3]["cell"] is None
    assert after["sentries"] == [None, None]
    assert after["regent_vp"] == [vp - 1, 0]
    assert state.vp(0) == vp - 1


SET_S = "regent,monk,minotaur/barbarian,nymph,hound"        # 0 regent 1 monk 2 minotaur 3 barbarian


def test_sentries_as_targets_cost_regent_vp_and_never_respawn(impl):
    """Points 37/58/60: an attack on a sentry removes it (no respawn, the activation goes on) and
    costs the Regent's team 1 VP; so does a hydra next to a sentry moved there by Command."""
    vp = ability("point_of_order", "vp")
    d = base(impl, SET_S)
    put(d, 3, 4, 4, "e")        # Barbarian
    d["sentries"] = [{"cell": [5, 4], "facing": "s"}, None]
    acting(d, 3, 3)
    state = load(impl, d, SET_S)
    do(state, "axe 5,4")
    after = dict_of(state)
    assert after["sentries"] == [None, None] and after["regent_vp"] == [vp - 1, 0]
    assert after["respawn_queue"] == [] and after["phase"] == "act"
    d = base(impl, SET_S)
    put(d, 0, 4, 4, "n")        # the Regent commands its sentry onto 1,2, next to the hydra on 2,2
    d["sentries"] = [{"cell": [1, 3], "facing": "s"}, None]
    acting(d, 0, 3)
    state = load(impl, d, SET_S)
    do(state, "command 1,3 n")
    after = dict_of(state)
    assert after["sentries"] == [None, None] and after["regent_vp"] == [vp - 1, 0]
    assert after["respawn_queue"] == [] and after["activation"]["ap"] == 3 - ability("command")


def test_sentries_are_protected_like_characters(impl):
    """Points 23/37: a sentry on the Regent team's character camp, or within 2 steps of an allied
    Imperial Guardian, cannot be attacked; beside the camp, or 3 steps from the Guardian, it can."""
    d = base(impl, SET_S)
    put(d, 0, 0, 6)
    put(d, 1, 0, 7)
    put(d, 2, 0, 8)
    put(d, 3, 7, 1, "e")        # Barbarian facing the camp cell 8,1
    d["sentries"] = [{"cell": [8, 1], "facing": "s"}, None]
    acting(d, 3, 3)
    assert not [a for a in legal(load(impl, d, SET_S)) if a.startswith(("axe", "throw"))]
    d["sentries"] = [{"cell": [6, 1], "facing": "s"}, None]
    assert "axe 6,1" in legal(load(impl, d, SET_S))
    teams = "imperial_guardian,regent,monk/barbarian,nymph,hound"
    for guardian, attacks in (((5, 6), set()), ((6, 6), {"axe 5,4", "throw 5,4"})):
        d = base(impl, teams)
        put(d, 0, *guardian, "n")   # 5,6: 2 steps from the sentry; 6,6: 3 steps
        put(d, 3, 4, 4, "e")
        d["sentries"] = [{"cell": [5, 4], "facing": "s"}, None]
        acting(d, 3, 3)
        assert {a for a in legal(load(impl, d, teams)) if a.startswith(("axe", "throw"))} == attacks


SENTRY_ATTACK_CASES = {
    # case: (raider team with its token 3, token 3's cell and facing before `move s`, hedges,
    #        token 3 defeated?)
    "into_its_los": (SET_S, (5, 3), "s", [], True),
    "onto_its_cell": (SET_S, (4, 3), "s", [], True),
    "behind_it": (SET_S, (3, 3), "s", [], False),
    "tower_shield_facing_it": ("regent,monk,minotaur/imperial_guardian,nymph,skin_changer", (5, 3),
                               "w", [], False),
    "tower_shield_facing_away": ("regent,monk,minotaur/imperial_guardian,nymph,skin_changer",
                                 (5, 3), "e", [], True),
    "camouflage": ("regent,monk,minotaur/ranger,hound,nymph", (5, 3), "s", [[[5, 4], [6, 4]]], False),
    "no_camouflage": ("regent,monk,minotaur/ranger,hound,nymph", (5, 3), "s", [], True),
}


@pytest.mark.parametrize("case", sorted(SENTRY_ATTACK_CASES))
def test_sentry_attack_adjacent_in_los_unless_protected(impl, case):
    """Point 60: the Regent's sentry on 4,4 facing east defeats, at all times, an enemy that comes
    adjacent to it in its LOS (onto 5,4, or onto its own cell 4,4), not one beside it out of its LOS
    (3,4), nor a Guardian whose Tower Shield faces it, nor a camouflaged Ranger."""
    teams, (x, y), facing, hedges, defeated = SENTRY_ATTACK_CASES[case]
    d = base(impl, teams)
    d["sentries"] = [{"cell": [4, 4], "facing": "e"}, None]
    d["hedges"] = hedges
    put(d, 3, x, y, facing)
    acting(d, 3, 3)
    state = load(impl, d, teams)
    do(state, "move s")
    after = dict_of(state)
    if defeated:
        assert after["characters"][3]["cell"] is None and after["respawn_queue"] == [3]
    else:
        assert after["characters"][3]["cell"] == [x, y + 1] and after["respawn_queue"] == []
    assert after["sentries"][0] == {"cell": [4, 4], "facing": "e"}


def test_sentry_attack_spares_an_enemy_on_its_own_camp(impl):
    """Points 23/60: a sentry placed facing an enemy on the enemy's own character camp does not
    defeat it."""
    d = base(impl, SET_S)
    put(d, 0, 6, 8, "n")        # Regent places a sentry on 7,8 facing east, at the Barbarian on 8,8
    put(d, 3, 8, 8, "w")
    put(d, 4, 0, 6)
    put(d, 5, 0, 4)
    acting(d, 0, 3)
    state = load(impl, d, SET_S)
    do(state, "sentry e e")
    after = dict_of(state)
    assert after["sentries"][0] == {"cell": [7, 8], "facing": "e"}
    assert after["characters"][3]["cell"] == [8, 8] and after["respawn_queue"] == []


def test_regent_vp_not_below_zero_and_regent_defeat(impl):
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n")        # Regent
    put(d, 5, 4, 3, "s")        # Skin-Changer (Feral), enemy, active
    d["regent_vp"] = [1, 0]
    acting(d, 5, 3)
    state = load(impl, d, SET_A)
    do(state, "move s")         # enters the Regent's cell: Feral defeats it
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["regent_vp"] == [0, 0]


def test_regent_vp_one_per_token_defeated_by_one_hydra_step(impl):
    """Point 58 / D9: one hydra step defeating two tokens of the Regent's team costs 2 VP."""
    vp = ability("point_of_order", "vp")
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n")        # Regent
    put(d, 1, 3, 1)             # Hound and Minotaur on both sides of 3,2
    put(d, 2, 3, 3)
    d["hydras"] = [[4, 2], [2, 7]]
    picking(d, 0, resting=1, done=[2])
    d["phase"] = "hydra"        # the Minotaur has just forfeited
    state = load(impl, d, SET_A)
    do(state, "hydra 1 w")
    after = dict_of(state)
    assert after["hydras"][0] == [3, 2] and after["respawn_queue"] == [1, 2]
    assert after["regent_vp"] == [vp - 2, 0]


def test_command(impl):
    d = base(impl, SET_A)
    put(d, 0, 4, 4, "n")
    put(d, 1, 6, 6, "n")        # Hound, an ally anywhere
    acting(d, 0, 3)
    state = load(impl, d, SET_A)
    options = legal(state)
    assert {"command 6,6 n", "command 6,6 w"} <= options
    assert not [a for a in options if a.startswith("command 4,4")]
    do(state, "command 6,6 n")
    after = dict_of(state)
    assert after["characters"][1]["cell"] == [6, 5] and after["activation"]["command_used"]
    assert after["activation"]["ap"] == 3 - ability("command")
    assert not [a for a in legal(state) if a.startswith("command")]


# ============================================================================ Skin-Changer

def test_wolf_form_against_hydras_and_cleared_at_the_end_of_the_activation(impl):
    d = base(impl, SET_A)
    put(d, 5, 1, 3, "n")        # Skin-Changer (raiders) next to 1,2, a hydra's neighbour
    acting(d, 5, 3, done=[3])
    state = load(impl, d, SET_A)
    do(state, "move n")
    assert dict_of(state)["characters"][5]["cell"] is None
    state = load(impl, d, SET_A)
    do(state, "wolf", "move n")
    after = dict_of(state)
    assert after["characters"][5]["cell"] == [1, 2] and after["characters"][5]["wolf_form"]
    assert after["activation"]["ap"] == 3 - ability("wolf_form") - 1
    do(state, "end")            # the activation (here also the turn) ends: Wolf Form ends, the hydra defeats it
    after = dict_of(state)
    assert after["characters"][5]["cell"] is None and not after["characters"][5]["wolf_form"]
    assert after["phase"] == "respawn" and after["resume_phase"] == "rest"
    assert after["team"] == 0 and after["current_player"] == 1


@pytest.mark.parametrize("defence", ["guardian", "tower_shield", "camouflage", "silent_sentinel"])
def test_hydras_ignore_every_defence_but_own_camp_and_wolf_form(impl, defence):
    """Point 26: a character stepping from 1,3 onto 1,2, next to the hydra on 2,2, is defeated
    whatever would protect it from an attack: an allied Guardian 1 step away, its own Tower Shield
    facing the hydra, Camouflage (a hedge on its cell's edge), Silent Sentinel (an allied Ranger on
    1,0 facing south). Wolf Form: test_wolf_form_*. The own-camp exception cannot arise: hydras
    stay on the moat ring (x, y in 2..7) and camps are 2x2 corners (x and y in 0..1 or 8..9), so
    no hydra is ever next to a camp cell."""
    guardian_team = "imperial_guardian,minotaur,monk/basilisk,hound,nymph"
    ranger_team = "ranger,monk,regent/basilisk,hound,nymph"
    teams = guardian_team if defence in ("guardian", "tower_shield") else ranger_team
    d = base(impl, teams)
    mover, facing = 0, "n"
    if defence == "guardian":
        put(d, 0, 0, 3, "n")
        mover = 2               # the Monk
    elif defence == "tower_shield":
        facing = "e"            # the Guardian itself, facing the hydra
    elif defence == "camouflage":
        d["hedges"] = [[[0, 2], [1, 2]]]
    else:
        put(d, 0, 1, 0, "s")
        mover = 1               # the Monk, in the Ranger's LOS before and after the step
    put(d, mover, 1, 3, facing)
    acting(d, mover, 3)
    state = load(impl, d, teams)
    do(state, "move n")
    after = dict_of(state)
    assert after["characters"][mover]["cell"] is None and after["respawn_queue"] == [mover]


def test_a_game_ending_with_wolf_form_cleared_next_to_a_hydra_reads_back(impl):
    """R14: the action that ends the game runs no passes, so a Skin-Changer whose Wolf Form the final
    `end` cleared stays next to the hydra. Found by an adversarial review: that finished state, reached
    in random games, was refused by state_from_dict (pickle and from_json) in both implementations."""
    d = base(impl, SET_A)
    d["round"] = 7              # the raiders' turn of the last round
    put(d, 5, 1, 3, "n")
    acting(d, 5, 3, done=[3])
    state = load(impl, d, SET_A)
    do(state, "wolf", "move n", "end")
    assert state.is_terminal()
    after = dict_of(state)
    assert after["characters"][5]["cell"] == [1, 2] and not after["characters"][5]["wolf_form"]
    again = make_game(impl, teams=SET_A).state_from_dict(after)
    assert dict_of(again) == after and pickle.loads(pickle.dumps(state)).is_terminal()


def test_feral_defeats_enemies_on_its_cell(impl):
    d = base(impl, SET_A)
    put(d, 5, 4, 4, "n")        # Skin-Changer (raiders)
    put(d, 2, 4, 3, "s")        # Minotaur (imperial) active steps onto it
    acting(d, 2, 3)
    state = load(impl, d, SET_A)
    do(state, "move s")
    assert dict_of(state)["characters"][2]["cell"] is None


FERAL_CASES = ["charmed_onto_it", "own_camp", "guardian_near", "guardian_itself", "sentry"]


@pytest.mark.parametrize("case", FERAL_CASES)
def test_feral_branches(impl, case):
    """Point 61: Feral defeats an enemy forced onto the Skin-Changer's cell, an enemy Guardian on
    its cell even facing it (an attacker on its own cell is in no direction), and an enemy sentry
    (1 Regent VP; the sentry, whose own cell is in its LOS, defeats the Skin-Changer in the same
    pass); it spares an enemy on its own character camp and one within 2 steps of its Guardian."""
    vp = ability("point_of_order", "vp")
    teams = {"charmed_onto_it": "sorceress,monk,regent/skin_changer,hound,nymph",
             "own_camp": SET_D, "sentry": SET_D,
             "guardian_near": "imperial_guardian,monk,regent/skin_changer,hound,nymph",
             "guardian_itself": "imperial_guardian,monk,regent/skin_changer,hound,nymph"}[case]
    d = base(impl, teams)       # 3 is the Skin-Changer (raiders), 1 an imperial Monk
    victim, action, spared = 1, "move s", False
    if case == "charmed_onto_it":
        put(d, 0, 4, 6, "n")    # the Sorceress charms her ally, the Monk, onto the Skin-Changer
        put(d, 1, 4, 4, "n")
        put(d, 3, 4, 3, "n")
        acting(d, 0, 3)
        action = "charm 4,4 n"
    elif case == "own_camp":
        put(d, 1, 8, 1, "n")    # the Monk on the Imperial character camp
        put(d, 3, 7, 1, "e")
        acting(d, 3, 3)
        action, spared = "move e", True
    elif case == "guardian_near":
        put(d, 0, 4, 6, "n")    # 2 steps from the Monk's cell
        put(d, 1, 4, 4, "n")
        put(d, 3, 4, 3, "s")
        acting(d, 3, 3)
        spared = True
    elif case == "guardian_itself":
        put(d, 0, 4, 4, "n")    # facing north, where the Skin-Changer comes from
        put(d, 3, 4, 3, "s")
        acting(d, 3, 3)
        victim = 0
    else:
        d["sentries"] = [{"cell": [4, 4], "facing": "w"}, None]
        put(d, 3, 4, 3, "s")
        acting(d, 3, 3)
    before = d["characters"][victim]["cell"]
    state = load(impl, d, teams)
    do(state, action)
    after = dict_of(state)
    if case == "sentry":
        assert after["sentries"] == [None, None] and after["regent_vp"] == [vp - 1, 0]
        # the sentry's own cell is adjacent and in its LOS: both collected in the same pass
        assert after["characters"][3]["cell"] is None and after["respawn_queue"] == [3]
    elif spared:
        assert after["characters"][victim]["cell"] == before and after["respawn_queue"] == []
    else:
        assert after["characters"][victim]["cell"] is None and after["respawn_queue"] == [victim]


def test_sprint_free_moves(impl):
    d = acting(put(base(impl, SET_A), 5, 4, 4, "n"), 5, 3)
    state = load(impl, d, SET_A)
    do(state, "sprint")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 3 and act["ap"] == 3 - ability("sprint")
    assert "sprint" not in legal(state)
    do(state, "move e", "move e", "move s")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 0 and act["ap"] == 3 - ability("sprint")
    do(state, "move w")
    assert dict_of(state)["activation"]["ap"] == 3 - ability("sprint") - 1


# ============================================================================ Basilisk

def test_poison_blood_against_an_adjacent_attacker(impl):
    d = base(impl, SET_E)
    put(d, 0, 4, 4, "e")        # Minotaur
    put(d, 4, 5, 4, "w")        # Basilisk (raiders)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "horns 5,4")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["characters"][4]["cell"] is None
    assert after["respawn_queue"] == [0, 4]


def test_poison_blood_spares_a_distant_attacker_and_own_camp(impl):
    d = base(impl, "basilisk,monk,regent/barbarian,hound,nymph")
    put(d, 3, 4, 4, "e")        # Barbarian
    put(d, 0, 6, 4, "w")        # Basilisk 2 away in its LOS
    acting(d, 3, 3)
    state = load(impl, d, "basilisk,monk,regent/barbarian,hound,nymph")
    do(state, "throw 6,4")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["characters"][3]["cell"] == [4, 4]
    # An adjacent attacker standing on its own character camp is spared (40 / D22).
    d = base(impl, SET_E)
    put(d, 0, 8, 1, "s")        # Minotaur on the Imperial character camp
    put(d, 4, 8, 2, "n")        # Basilisk (raiders) south of it
    put(d, 1, 0, 4)
    put(d, 2, 0, 6)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "horns 8,2")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [8, 1] and after["characters"][4]["cell"] is None
    assert after["respawn_queue"] == [4]


def test_d22_poison_blood_ignores_guardian_tower_shield_and_camouflage(impl):
    """Point 40 / D22: Poison Blood defeats the adjacent attacker whatever would protect it from an
    attack, except its own camp: an allied Guardian within 2 steps, its own Tower Shield facing the
    Basilisk, Camouflage."""
    teams = "imperial_guardian,minotaur,monk/basilisk,hound,nymph"   # 3 basilisk
    d = base(impl, teams)
    put(d, 0, 3, 3, "n")        # Guardian 2 steps from the Minotaur
    put(d, 1, 4, 4, "e")        # Minotaur horns the Basilisk
    put(d, 3, 5, 4, "w")
    acting(d, 1, 3)
    state = load(impl, d, teams)
    do(state, "horns 5,4")
    after = dict_of(state)
    assert after["characters"][1]["cell"] is None and after["characters"][3]["cell"] is None
    assert after["respawn_queue"] == [1, 3]
    d = base(impl, teams)
    put(d, 0, 4, 4, "e")        # Guardian spears the Basilisk in front of its shield
    put(d, 3, 5, 4, "w")
    acting(d, 0, 3)
    state = load(impl, d, teams)
    do(state, "spear 5,4")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["characters"][3]["cell"] is None
    assert after["respawn_queue"] == [0, 3]
    teams = "ranger,monk,regent/basilisk,hound,nymph"
    d = base(impl, teams)
    put(d, 0, 4, 4, "e")        # camouflaged Ranger shoots the adjacent Basilisk
    put(d, 3, 5, 4, "w")
    d["hedges"] = [[[4, 3], [4, 4]]]
    acting(d, 0, 3)
    state = load(impl, d, teams)
    do(state, "archer 5,4")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["characters"][3]["cell"] is None
    assert after["respawn_queue"] == [0, 3]


def test_poison_blood_against_feral(impl):
    d = base(impl, SET_D)
    put(d, 0, 5, 4, "w")        # Basilisk (imperial)
    put(d, 3, 4, 4, "e")        # Skin-Changer steps onto it
    acting(d, 3, 3)
    state = load(impl, d, SET_D)
    do(state, "move e")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["characters"][3]["cell"] is None
    assert after["respawn_queue"] == [0, 3]
    assert after["regent_vp"] == [ability("point_of_order", "vp") - 1, 0]


@pytest.mark.parametrize("attacker", ["feral", "sentry"])
def test_poison_blood_spares_a_passive_attacker_on_its_own_camp(impl, attacker):
    """Point 40 / D22 and the resolution order's step 3: a Skin-Changer (Feral) or a sentry that
    defeats the Basilisk by a passive attack is defeated too, unless it stands on its own
    character camp (off the camp: test_poison_blood_against_feral, test_sentry_attack_and_regent_vp)."""
    if attacker == "feral":
        d = base(impl, SET_D)
        put(d, 3, 8, 8, "n")        # Skin-Changer on the Raiders' character camp
        put(d, 0, 8, 7, "s")        # the Basilisk steps onto its cell
        acting(d, 0, 3)
        state = load(impl, d, SET_D)
        do(state, "move s")
        after = dict_of(state)
        assert after["characters"][0]["cell"] is None and after["respawn_queue"] == [0]
        assert after["characters"][3]["cell"] == [8, 8]
    else:
        d = base(impl, SET_A)
        put(d, 0, 0, 6)
        put(d, 1, 0, 7)
        put(d, 2, 0, 8)
        d["sentries"] = [{"cell": [8, 1], "facing": "s"}, None]   # on the Imperial character camp
        put(d, 3, 8, 3, "n")        # the Basilisk steps into its LOS, next to it
        acting(d, 3, 3)
        state = load(impl, d, SET_A)
        do(state, "move n")
        after = dict_of(state)
        assert after["characters"][3]["cell"] is None and after["respawn_queue"] == [3]
        assert after["sentries"] == [{"cell": [8, 1], "facing": "s"}, None]
        assert after["regent_vp"] == [ability("point_of_order", "vp"), 0]


def test_poison_blood_removes_a_hydra(impl):
    d = base(impl, SET_D)
    put(d, 0, 1, 3, "n")        # Basilisk moves next to hydra 1 (2,2)
    acting(d, 0, 3, done=[1])
    state = load(impl, d, SET_D)
    do(state, "move n")
    after = dict_of(state)
    assert after["hydras"] == [None, [2, 7]] and after["characters"][0]["cell"] is None
    do(state, "respawn 8,0")
    assert not [a for a in legal(state) if a.startswith("hydra 1")]


def test_slither(impl):
    d = acting(put(base(impl, SET_D), 0, 4, 4, "n"), 0, 3)
    d["hedges"] = [[[4, 4], [5, 4]]]
    state = load(impl, d, SET_D)
    assert "slither e" in legal(state) and "slither n" not in legal(state)
    do(state, "slither e")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [5, 4] and after["activation"]["slither_used"]
    assert after["activation"]["ap"] == 3 - ability("slither")
    assert not [a for a in legal(state) if a.startswith("slither")]


def test_petrifying_gaze_once_per_activation(impl):
    loss = ability("petrifying_gaze", "ap_loss")
    d = base(impl, SET_F)
    put(d, 0, 3, 4, "e")        # Basilisk looks east along row 4
    put(d, 1, 4, 3, "n")        # the Monk, its ally (D23: allies too)
    acting(d, 1, 5)
    state = load(impl, d, SET_F)
    do(state, "move s")
    after = dict_of(state)
    assert after["activation"]["ap"] == 5 - 1 - loss and after["activation"]["gaze"] == [0]
    do(state, "move n", "move s")
    assert dict_of(state)["activation"]["ap"] == 5 - 1 - loss - 2


def test_petrifying_gaze_and_tower_shield(impl):
    loss = ability("petrifying_gaze", "ap_loss")
    d = base(impl, SET_F)
    put(d, 0, 3, 4, "e")
    put(d, 3, 4, 3, "w")        # imperial guardian (raiders) facing the Basilisk's column side
    acting(d, 3, 3)
    state = load(impl, d, SET_F)
    do(state, "move s")         # now at 4,4 facing west: the shield faces the Basilisk
    assert dict_of(state)["activation"]["ap"] == 2 and dict_of(state)["activation"]["gaze"] == []
    put(d, 3, facing="e")
    state = load(impl, d, SET_F)
    do(state, "move s")
    assert dict_of(state)["activation"]["ap"] == max(0, 3 - 1 - loss)


GAZE_BARD = "imperial_bard,monk,regent/basilisk,hound,nymph"        # 3 basilisk
GAZE_SPRINT = "skin_changer,monk,regent/basilisk,hound,nymph"
GAZE_PUPPET = "puppeteer,monk,regent/basilisk,hound,nymph"
GAZE_CASES = {
    # case: (teams, [(token, x, y, facing)], active token, its AP, actions, watched token,
    #        its cell after, AP after, activation.gaze after)
    "moves_within_the_los": (SET_F, [(0, 3, 4, "e"), (1, 5, 4, "n")], 1, 5, ["move w"],
                             1, [4, 4], 4, []),
    "onto_the_basilisks_cell": (SET_F, [(0, 3, 4, "e"), (1, 3, 3, "n")], 1, 5, ["move s"],
                                1, [3, 4], 4 - ability("petrifying_gaze", "ap_loss"), [0]),
    "behind_a_blocker": (SET_F, [(0, 3, 4, "e"), (2, 4, 4, "n"), (1, 5, 3, "n")], 1, 5,
                         ["move s"], 1, [5, 4], 4, []),
    "bard_diagonal": (GAZE_BARD, [(3, 3, 6, "n"), (0, 4, 4, "n")], 0, 5, ["move sw"],
                      0, [3, 5], 4 - ability("petrifying_gaze", "ap_loss"), [3]),
    "sprint_free_move": (GAZE_SPRINT, [(3, 3, 6, "n"), (0, 4, 5, "n")], 0, 5, ["sprint", "move w"],
                         0, [3, 5], 5 - ability("sprint") - ability("petrifying_gaze", "ap_loss"),
                         [3]),
    "grappled_by_a_puppet": (GAZE_PUPPET, [(3, 3, 6, "n"), (0, 4, 4, "n"), (1, 4, 3, "n")], 0, 5,
                             ["puppet 4,3", "grapple 4,4 3,4"], 0, [3, 4], 5 - ability("grapple"),
                             []),
    "puppet_pounce": (GAZE_PUPPET, [(3, 3, 6, "n"), (0, 5, 5, "n"), (1, 4, 4, "n")], 0, 5,
                      ["puppet 4,4", "pounce sw"], 1, [3, 5], 5 - ability("dragon_pounce"), []),
}


@pytest.mark.parametrize("case", sorted(GAZE_CASES))
def test_petrifying_gaze_only_for_voluntary_moves_into_the_los(impl, case):
    """Point 42 / D21: the gaze costs AP only when a voluntary move of the active character takes it
    from outside into the Basilisk's LOS: onto the Basilisk's own cell, by a Bard's diagonal, by a
    Sprint free move; not for a move within the LOS, nor behind a token that ends the ray, nor a
    forced move (the Puppeteer grappled by its puppet), nor a puppet's own move."""
    teams, tokens, active, ap, actions, watched, cell, ap_after, gaze = GAZE_CASES[case]
    d = base(impl, teams)
    for t, x, y, facing in tokens:
        put(d, t, x, y, facing)
    acting(d, active, ap)
    state = load(impl, d, teams)
    do(state, *actions)
    after = dict_of(state)
    assert after["characters"][watched]["cell"] == cell
    assert after["activation"]["ap"] == ap_after and after["activation"]["gaze"] == gaze


def test_petrifying_gaze_not_at_the_start_of_an_activation(impl):
    """Point 42: a character already in the Basilisk's LOS when its activation starts loses
    nothing (it did not move into it)."""
    d = base(impl, SET_F)
    put(d, 0, 3, 4, "e")
    put(d, 1, 5, 4, "n")        # the Monk in the Basilisk's ray
    picking(d, 0, resting=2)
    state = load(impl, d, SET_F)
    do(state, "activate monk")
    act = dict_of(state)["activation"]
    assert act["ap"] == card_ap("monk") and act["gaze"] == []


# ============================================================================ Hound

def test_retriever_free_move(impl):
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "n")
    d["strawberries"] = [[0, 5], [4, 4]]
    acting(d, 4, 1)
    state = load(impl, d, SET_B)
    do(state, "pluck")
    act = dict_of(state)["activation"]
    ap = 1 - 1 + bonus_ap("hound")
    assert act["free_moves"] == 1 and act["retriever_used"] and act["ap"] == ap
    do(state, "move e")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 0 and act["ap"] == ap


def test_retriever_with_full_slots(impl):
    """Points 21/43: plucking with full slots discards the strawberry (the VP kept) and still gives
    the Retriever's free move."""
    slots = card_slots("hound")
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "n", strawberries=slots)
    d["strawberries"] = [[0, 5], [4, 4]]
    acting(d, 4, 3)
    state = load(impl, d, SET_B)
    do(state, "pluck")
    after = dict_of(state)
    assert after["activation"]["free_moves"] == 1 and after["activation"]["retriever_used"]
    assert after["activation"]["ap"] == 3 - 1
    assert after["characters"][4]["strawberries"] == slots and after["plucked"] == [0, slots + 1]
    assert after["strawberries"] == [[0, 5]]


def test_free_moves_count_for_the_sharing_rule(impl):
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "n")
    put(d, 5, 5, 4, "n")        # an ally on the east cell
    acting(d, 4, 0, free_moves=1)
    assert "move e" not in legal(load(impl, d, SET_B)) and "move w" in legal(load(impl, d, SET_B))
    d["activation"]["free_moves"] = 2
    assert "move e" in legal(load(impl, d, SET_B))


def test_bite_drop_rules(impl):
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "e")        # Hound (raiders)
    put(d, 0, 5, 4, "n", strawberries=2)   # Monk carrying 2
    acting(d, 4, 3)
    state = load(impl, d, SET_B)
    vp = state.vp(0)
    plucked = dict_of(state)["plucked"]
    do(state, "bite 5,4 e")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [6, 4] and after["characters"][0]["strawberries"] == 1
    assert [5, 4] in after["strawberries"] and after["plucked"] == plucked
    assert state.vp(0) == vp - 1
    assert after["activation"]["ap"] == 3 - ability("bite")
    # a strawberry already there: the dropped one leaves the game
    d["strawberries"] = [[0, 5], [5, 4]]
    state = load(impl, d, SET_B)
    do(state, "bite 5,4 s")
    after = dict_of(state)
    assert after["strawberries"] == [[5, 4], [0, 5]] or after["strawberries"] == [[0, 5], [5, 4]]
    assert after["characters"][0]["strawberries"] == 1 and after["characters"][0]["cell"] == [5, 5]
    # none carried: still legal, only the step
    put(d, 0, strawberries=0)
    state = load(impl, d, SET_B)
    assert "bite 5,4 n" in legal(state)
    assert not [a for a in legal(state) if a.startswith("bite 4,4")]


# ============================================================================ Minotaur

def test_charge_then_free_horns(impl):
    d = base(impl, SET_E)
    put(d, 0, 3, 4, "e")        # Minotaur
    put(d, 3, 6, 4, "w")        # Hound 3 cells east
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [5, 4]
    assert after["activation"]["charged"] and after["activation"]["charge_used"]
    ap = 3 - ability("charge")
    assert after["activation"]["ap"] == ap
    do(state, "horns 6,4")
    after = dict_of(state)
    assert after["activation"]["ap"] == ap - ability("horns", "ap_when_charging")
    assert not after["activation"]["charged"] and after["characters"][3]["cell"] is None


def test_charge_needs_an_enemy_at_distance_two(impl):
    d = base(impl, SET_E)
    put(d, 0, 3, 4, "e")
    put(d, 3, 4, 4, "w")        # adjacent: no charge
    acting(d, 0, 3)
    assert "charge" not in legal(load(impl, d, SET_E))
    put(d, 3, 6, 4)
    put(d, 1, 5, 4, "n")        # an ally first in the ray
    assert "charge" not in legal(load(impl, d, SET_E))


def test_charge_first_step_and_bridges(impl):
    """Point 48: the Charge is legal only if its first step is (1,4 -> 2,4 is moat water, though
    the Hound on 3,4 is 2 away in the LOS); it crosses a bridge along the bridge's axis
    (0,3 -> 3,3 over 2,3; hydra 1 moved off 2,2 so that it does not strike on the way, D53)."""
    d = base(impl, SET_E)
    put(d, 0, 1, 4, "e")
    put(d, 3, 3, 4, "w")
    acting(d, 0, 3)
    assert "charge" not in legal(load(impl, d, SET_E))
    d = base(impl, SET_E)
    put(d, 0, 0, 3, "e")
    put(d, 3, 5, 3, "w")        # 5 away: min(3, 5 - 1) = 3 steps
    d["hydras"] = [[7, 3], [2, 7]]
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [3, 3] and after["activation"]["charged"]


@pytest.mark.parametrize("facing, expected", [("n", ["S1a", 5]), ("s", ["S1a", 5]),
                                              ("e", ["S1a", 7]), ("w", ["S1a", 7])])
def test_flip_square_tile(impl, facing, expected):
    d = base(impl, SET_E, hedges=True)
    assert d["tiles"]["iTR"] == ["S1b", 1]
    put(d, 0, 5, 3, facing)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "flip")
    after = dict_of(state)
    assert after["tiles"]["iTR"] == expected
    assert hedge_set(after) == tile_hedges(after["tiles"])
    assert after["activation"]["ap"] == 3 - ability("master_of_the_labyrinth")


@pytest.mark.parametrize("facing, expected", [("n", ["L6b", 7]), ("e", ["L6b", 5])])
def test_flip_rectangular_tile_and_keeps_other_hedges(impl, facing, expected):
    d = base(impl, SET_E, hedges=True)
    assert d["tiles"]["T1"] == ["L6a", 3]
    d["hedges"].append([[8, 4], [9, 4]])   # a hedge that is no tile's: kept
    d["hedges"].sort()
    put(d, 0, 3, 0, facing)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "flip")
    after = dict_of(state)
    assert after["tiles"]["T1"] == expected
    assert hedge_set(after) == tile_hedges(after["tiles"]) | {((8, 4), (9, 4))}
    assert after["hedges_planted"] == 0


_SLOTS = dict(_TILES["board"]["rect_slots"], **_TILES["board"]["square_slots"])


def flipped(entry, facing):
    """D27, written independently: the other face with the mirror toggled; facing E or W also
    turns the tile by 180 degrees."""
    face, t = entry
    k = (t % 4 + (2 if facing in "ew" else 0)) % 4
    return [face[:-1] + {"a": "b", "b": "a"}[face[-1]], k + 4 * (1 - t // 4)]


@pytest.mark.parametrize("slot", sorted(_SLOTS))
def test_flip_every_slot_in_every_facing(impl, slot):
    """Point 47 / D27 / D28 on each of the 12 garden slots: the slot's tile follows D27 (facing S
    flips as N, W as E), the other slots keep theirs, and the hedges are the tile builder's."""
    (ox, oy), (w, h) = _SLOTS[slot]["origin"], _SLOTS[slot]["size"]
    cell = next((x, y) for y in range(oy, oy + h) for x in range(ox, ox + w)
                if min(abs(x - hx) + abs(y - hy) for hx, hy in ((2, 2), (2, 7))) > 1)
    results = {}
    for facing in "nesw":
        d = base(impl, SET_E, hedges=True)
        put(d, 0, *cell, facing)
        acting(d, 0, 3)
        state = load(impl, d, SET_E)
        do(state, "flip")
        after = dict_of(state)
        assert after["tiles"][slot] == flipped(d["tiles"][slot], facing)
        assert {k: v for k, v in after["tiles"].items() if k != slot} == {
            k: v for k, v in d["tiles"].items() if k != slot}
        assert hedge_set(after) == tile_hedges(after["tiles"])
        results[facing] = after["tiles"][slot]
    assert results["s"] == results["n"] != results["e"] == results["w"]


def test_flip_only_on_garden_tiles_with_tiles(impl):
    d = acting(put(base(impl, SET_E, hedges=True), 0, 8, 0, "s"), 0, 3)   # camp cell
    assert "flip" not in legal(load(impl, d, SET_E))
    d2 = acting(put(base(impl, SET_E, board="symmetric"), 0, 5, 3, "n"), 0, 3)
    assert d2["tiles"] is None
    assert "flip" not in legal(load(impl, d2, SET_E, board="symmetric"))


# ============================================================================ Nymph

def test_alluring_gaze(impl):
    d = base(impl, SET_C)
    put(d, 4, 4, 6, "n")        # Nymph looks north
    put(d, 2, 4, 3, "s")        # Monk 3 cells away
    acting(d, 4, 3)
    state = load(impl, d, SET_C)
    assert {"lure 4,3 1", "lure 4,3 2"} <= legal(state)
    do(state, "lure 4,3 2")
    after = dict_of(state)
    assert after["characters"][2]["cell"] == [4, 5] and after["activation"]["lure_used"]
    assert after["activation"]["ap"] == 3 - ability("alluring_gaze")


def test_alluring_gaze_distance_one_and_water(impl):
    """Point 49: n is at most the distance: a target next to her offers only `lure .. 1` (though a
    second step, past her to 4,6, would be legal), which brings it onto her cell; every step must
    be legal: a target across the moat cannot be lured."""
    d = base(impl, SET_C)
    put(d, 4, 4, 5, "n")        # Nymph
    put(d, 2, 4, 4, "s")        # Monk next to her
    acting(d, 4, 3)
    state = load(impl, d, SET_C)
    assert {a for a in legal(state) if a.startswith("lure")} == {"lure 4,4 1"}
    do(state, "lure 4,4 1")
    assert dict_of(state)["characters"][2]["cell"] == [4, 5]
    d = base(impl, SET_C)
    put(d, 4, 1, 4, "e")        # 2,4 between them is moat water
    put(d, 2, 3, 4, "w")
    acting(d, 4, 3)
    assert not [a for a in legal(load(impl, d, SET_C)) if a.startswith("lure")]


# ============================================================================ Ranger

def test_camouflage(impl):
    d = base(impl, SET_G)
    put(d, 0, 4, 4, "n")        # Ranger
    put(d, 3, 5, 4, "w")        # Barbarian
    acting(d, 3, 3)
    assert "axe 4,4" in legal(load(impl, d, SET_G))
    d["hedges"] = [[[4, 4], [4, 5]]]
    assert "axe 4,4" not in legal(load(impl, d, SET_G))


def test_silent_sentinel(impl):
    d = base(impl, SET_G)
    put(d, 0, 3, 4, "e")        # Ranger looks east at the Monk
    put(d, 1, 4, 4, "n")
    put(d, 3, 4, 5, "n")        # Barbarian next to the Monk (not to the Ranger)
    acting(d, 3, 3)
    assert "axe 4,4" not in legal(load(impl, d, SET_G))
    put(d, 0, facing="w")
    assert "axe 4,4" in legal(load(impl, d, SET_G))
    # D32: not the Ranger itself
    put(d, 0, 3, 4, "s")
    put(d, 3, 3, 5, "n")
    assert "axe 3,4" in legal(load(impl, d, SET_G))


def test_silent_sentinel_own_cell_and_first_token(impl):
    """Point 57 / D32 / 13: an ally on the Ranger's own cell is in its LOS and protected, the Ranger
    itself is not; an ally behind the first token of the ray is out of its LOS, unprotected."""
    d = base(impl, SET_G)
    put(d, 0, 4, 4, "s")        # Ranger
    put(d, 1, 4, 4, "n")        # Monk on the Ranger's cell
    put(d, 3, 4, 3, "s")        # Barbarian north of both
    acting(d, 3, 3)
    assert {a for a in legal(load(impl, d, SET_G)) if a.startswith("axe")} == {"axe 4,4:ranger"}
    d = base(impl, SET_G)
    put(d, 0, 3, 5, "e")        # Ranger looks east: the Regent on 4,5 ends its ray
    put(d, 2, 4, 5, "n")
    put(d, 1, 5, 5, "n")        # Monk behind the Regent
    put(d, 3, 5, 6, "n")        # Barbarian next to the Monk only
    acting(d, 3, 3)
    assert {a for a in legal(load(impl, d, SET_G)) if a.startswith("axe")} == {"axe 5,5"}
    put(d, 2, 0, 8)             # the Regent gone: the Monk is in the ray, protected
    assert not [a for a in legal(load(impl, d, SET_G)) if a.startswith("axe")]


def test_archer(impl):
    d = base(impl, SET_G)
    put(d, 0, 4, 4, "e")
    put(d, 3, 6, 4, "w")
    acting(d, 0, 3)
    state = load(impl, d, SET_G)
    assert "archer 6,4" in legal(state)
    do(state, "archer 6,4")
    assert dict_of(state)["activation"]["ap"] == 3 - ability("archer")
    put(d, 0, 3, 5, "e")        # 3 cells away: out of range
    put(d, 3, 6, 5, "w")
    assert "archer 6,5" not in legal(load(impl, d, SET_G))


# ============================================================================ Puppeteer

def test_ventriloquism(impl):
    d = base(impl, SET_C)
    put(d, 0, 4, 4, "n")
    put(d, 3, 6, 5, "n")        # 3 steps away
    acting(d, 0, 3)
    state = load(impl, d, SET_C)
    assert "vent 6,5 n" in legal(state)
    do(state, "vent 6,5 n")
    after = dict_of(state)
    assert after["characters"][3]["cell"] == [6, 4]
    assert after["activation"]["ap"] == 3 - ability("ventriloquism")


# ============================================================================ drafting and setup

def test_drafting_legality(impl):
    game = make_game(impl, teams="draft")
    state = game.new_initial_state()
    d = dict_of(state)
    assert d["phase"] == "draft" and d["setup_step"] == 0 and state.current_player() == 0
    assert [c["id"] for c in d["characters"]] == [None] * 6
    assert legal(state) == {f"draft {i}" for i in CARD_IDS}
    do(state, "draft barbarian")
    assert state.current_player() == 1 and "draft barbarian" not in legal(state)
    do(state, "draft regent")
    assert dict_of(state)["regent_vp"] == [0, ability("point_of_order", "vp")]
    # Imperial has a warrior: no other warrior
    assert not {"draft skin_changer", "draft minotaur"} & legal(state)
    do(state, "draft monk", "draft hound", "draft nymph")
    assert {"draft sorceress", "draft basilisk"} <= legal(state)
    do(state, "draft basilisk")
    d = dict_of(state)
    assert [c["id"] for c in d["characters"]] == ["barbarian", "monk", "nymph", "regent", "hound",
                                                   "basilisk"]
    assert d["phase"] == "rest" and d["setup_step"] == 0 and d["round"] == 1
    assert [c["cell"] for c in d["characters"]] == [[8, 0], [9, 0], [9, 1], [9, 8], [8, 9], [9, 9]]
    assert d["characters"][0]["uses_left"] == ability("chop", "uses_per_game")


def test_interactive_setup_orders_and_automatic_hydras_and_strawberries(impl):
    game = make_game(impl, setup="interactive")
    state = game.new_initial_state()
    d = dict_of(state)
    assert d["phase"] == "bridges" and d["bridges"] == [] and d["camps"] == {}
    assert d["hydras"] == [None, None] and d["strawberries"] == []
    assert "bridge 3,2" not in legal(state)        # hedge 3,2|3,3 closes that spot
    assert "bridge 2,2" not in legal(state)
    players = []
    for text in ("bridge 5,2", "bridge 2,3", "bridge 7,6", "bridge 2,6"):
        players.append(state.current_player())
        do(state, text)
        assert "bridge 6,2" not in legal(state)    # one bridge per moat tile
    assert players == [0, 1, 1, 0]
    d = dict_of(state)
    assert d["phase"] == "camps" and d["bridges"] == [[5, 2], [2, 3], [2, 6], [7, 6]]
    assert legal(state) == {f"camp {k} {c}" for k in ("imperial_character", "imperial_strawberry")
                            for c in ("top_left", "top_right", "bottom_left", "bottom_right")}
    do(state, "camp imperial_strawberry top_right")
    assert state.current_player() == 1
    do(state, "camp raiders_character bottom_left", "camp raiders_strawberry bottom_right")
    assert legal(state) == {"camp imperial_character top_left"}
    do(state, "camp imperial_character top_left")
    d = dict_of(state)
    assert d["phase"] == "placement" and d["setup_step"] == 0
    assert d["hydras"] == [[7, 2], [7, 7]]
    marked = _BOARDS["boards"]["standard"]["strawberries"][:12]
    expected = sorted(marked + [[6, 3], [6, 6]], key=lambda c: (c[1], c[0]))
    assert d["strawberries"] == expected
    # placement: I0, R0, I1, R1, I2, R2; never the insignia (1,1 for top_left)
    order = []
    assert not [a for a in legal(state) if a.startswith("place 1,1")]
    assert len(legal(state)) == 12
    for text in ("place 0,0 s", "place 0,8 n", "place 1,0 e", "place 0,9 e", "place 0,1 s",
                 "place 1,9 e"):
        assert not [a for a in legal(state) if a.startswith("place 1,8")]   # the insignia
        order.append(state.current_player())
        do(state, text)
    assert order == [0, 1, 0, 1, 0, 1]
    d = dict_of(state)
    assert d["phase"] == "rest" and d["team"] == 0 and d["round"] == 1
    assert [c["cell"] for c in d["characters"]] == [[0, 0], [1, 0], [0, 1], [0, 8], [0, 9], [1, 9]]
    assert [c["facing"] for c in d["characters"]] == ["s", "e", "s", "n", "e", "e"]


def test_setup_state_round_trips(impl):
    game = make_game(impl, teams="draft", setup="interactive")
    state = game.new_initial_state()
    for text in ("draft regent", "draft nymph", "draft hound"):
        do(state, text)
        d = dict_of(state)
        assert plain(game.state_from_dict(copy.deepcopy(d)).to_dict()) == d
    d = dict_of(state)
    assert d["characters"][0]["id"] == "regent" and d["characters"][3]["id"] == "nymph"
    assert d["characters"][2] == {"id": None, "cell": None, "facing": "n", "strawberries": 0,
                                  "uses_left": None, "wolf_form": False}


def test_setup_documents_count_the_strawberries(impl):
    """During the setup too, no more strawberries lie on the board than the game has (the engine
    once checked it only in play, so a draft document with 15 was accepted and play from it
    reached states it then refused)."""
    game = make_game(impl, teams="draft")
    d = dict_of(game.new_initial_state())
    assert d["phase"] == "draft" and len(d["strawberries"]) == 14
    free = next([x, y] for y in range(3, 7) for x in range(3, 7) if [x, y] not in d["strawberries"])  # garden
    d["strawberries"] = sorted(d["strawberries"] + [free], key=lambda c: (c[1], c[0]))
    with pytest.raises(ValueError, match="strawberries"):
        game.state_from_dict(d)


def test_d55_documents_from_which_the_setup_gets_stuck_are_refused(impl):
    """D55: camps out of turn order, hedges that close every bridge spot of a moat tile still to be
    bridged: refused (play from them would find no legal action); the real ones are accepted."""
    game = make_game(impl, setup="interactive")
    state = game.new_initial_state()
    do(state, "bridge 5,2", "bridge 2,3", "bridge 7,6", "bridge 2,6", "camp imperial_strawberry top_right",
       "camp raiders_character bottom_left")
    d = dict_of(state)
    assert d["phase"] == "camps" and d["setup_step"] == 2 and d["team"] == 1
    assert dict_of(game.state_from_dict(copy.deepcopy(d))) == d
    for camps in ({"raiders_character": "bottom_left", "raiders_strawberry": "top_right"},  # R, R
                  {"imperial_strawberry": "top_right", "imperial_character": "bottom_left"}):  # I, I
        wrong = copy.deepcopy(d)
        wrong["camps"] = camps
        with pytest.raises(ValueError, match="camps"):
            game.state_from_dict(wrong)

    # Bridges: three moat tiles bridged, the fourth (that of 2,6) open at 2,6 only is fine; with
    # that spot hedged as well the phase could not end.
    state = game.new_initial_state()
    spots = sorted(legal(state))
    do(state, "bridge 5,2", "bridge 2,3", "bridge 7,6")

    def join(text):  # a hedge on one join of a bridge spot (x = 2 or 7: the spot runs east-west)
        x, y = map(int, text.split()[1].split(","))
        return [[x - 1, y], [x, y]] if x in (2, 7) else [[x, y - 1], [x, y]]

    d = dict_of(state)
    others = [join(text) for text in spots if text != "bridge 2,6"]
    d["hedges"] = sorted(d["hedges"] + [h for h in others if h not in d["hedges"]])
    assert legal(game.state_from_dict(copy.deepcopy(d))) == {"bridge 2,6"}
    d["hedges"] = sorted(d["hedges"] + [join("bridge 2,6")])
    with pytest.raises(ValueError, match="bridge spot"):
        game.state_from_dict(copy.deepcopy(d))
    # Once every tile has its bridge, the hedges of the other spots no longer matter.
    do(state, "bridge 2,6")
    done = dict_of(state)
    assert done["phase"] == "camps"
    done["hedges"] = sorted(done["hedges"] + [h for h in d["hedges"] if h not in done["hedges"]])
    assert dict_of(game.state_from_dict(copy.deepcopy(done))) == done


# ============================================================================ observation

def test_observation_layout(impl):
    game = make_game(impl, teams=SET_A)
    state = game.new_initial_state()
    obs = [float(v) for v in state.observation_tensor(0)]
    assert len(obs) == 2131
    char_base = 1900
    card = obs[char_base + 12:char_base + 26]
    assert card == [1.0 if i == "regent" else 0.0 for i in CARD_IDS]
    glob = 1900 + 168
    assert obs[glob + 2] == ability("point_of_order", "vp")          # VP own includes Regent VP
    assert obs[glob + 18:glob + 20] == [ability("point_of_order", "vp"), 0.0]
    assert obs[glob + 20:glob + 22] == [1.0, 1.0]                      # hydras alive
    draft = obs[2131 - 14:]
    assert draft == [0.0 if i in SET_A.replace("/", ",").split(",") else 1.0 for i in CARD_IDS]
    assert obs[glob + 6] == 1.0                                        # phase rest


# ============================================================================ random games

@pytest.mark.parametrize("params", [{"teams": "draft", "setup": "interactive"},
                                    {"teams": "draft", "board": "random", "board_seed": 7},
                                    {"teams": SET_C, "setup": "interactive", "board": "random",
                                     "board_seed": 99}])
def test_random_games_invariants(impl, params):
    import random
    game = make_game(impl, **params)
    rng = random.Random(11)
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            options = ints(state.legal_actions())
            assert options and options == sorted(set(options))
            action = rng.choice(options)
            if rng.random() < 0.15:
                d = dict_of(state)
                assert dict_of(game.state_from_dict(json.loads(json.dumps(d)))) == d
                assert len(state.observation_tensor()) == 2131
                assert int(state.string_to_action(state.action_to_string(action))) == action
            state.apply_action(action)
            assert state.move_number() <= game.max_game_length()
        d = dict_of(state)
        assert dict_of(game.state_from_dict(d)) == d


def test_reference_speed_report(capsys):
    import random
    import time
    game = make_game("reference", teams="draft", setup="interactive")
    rng = random.Random(7)
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < 1.0:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        games += 1
    with capsys.disabled():
        print(f"\n[imperial_harvest reference, draft + interactive] "
              f"{games / (time.perf_counter() - start):,.1f} random games/s")


# ============================================================================ decisions D38+
# (docs/rules/imperial-harvest.md "Decisions of the implementations"; each test names its number)

SET_H = "imperial_guardian,monk,regent/sorceress,hound,puppeteer"   # 0 guardian 3 sorceress
SET_I = "imperial_guardian,monk,regent/nymph,hound,puppeteer"       # 3 nymph 4 hound 5 puppeteer
SET_J = "puppeteer,basilisk,monk/barbarian,nymph,hound"             # 1 basilisk 3 barbarian
SET_K = "puppeteer,ranger,monk/barbarian,hound,nymph"               # 4 hound
GLOB = 1900 + 168


def _table(**defaults):
    table = copy.deepcopy(_CHARS)
    table["defaults"].update(defaults)
    return table


def test_d38_max_game_length_scales_with_the_largest_card(impl):
    """D38: 3000 while every card has at most 4 AP with the strawberry bonus, else 3000 per
    started 4 AP of the largest card."""
    largest = max(card_ap(i) + bonus_ap(i) for i in CARD_IDS)
    assert make_game(impl).max_game_length() == 3000 * max(1, -(-largest // 4))
    for ap, expected in ((4 - DEFAULTS["strawberry"]["bonus_ap"], 3000),
                         (5 - DEFAULTS["strawberry"]["bonus_ap"], 6000),
                         (9 - DEFAULTS["strawberry"]["bonus_ap"], 9000)):
        table = _table(ap=ap)
        for c in table["characters"]:
            c.pop("ap", None)
        assert make_game(impl, characters=table).max_game_length() == expected


def _setup_to_play(impl):
    game = make_game(impl, teams="draft", setup="interactive")
    state = game.new_initial_state()
    script = ["draft regent", "draft nymph", "draft hound", "draft basilisk", "draft minotaur",
              "draft puppeteer", "bridge 5,2", "bridge 2,3", "bridge 7,6", "bridge 2,6",
              "camp imperial_strawberry top_right", "camp raiders_character bottom_left",
              "camp raiders_strawberry bottom_right", "camp imperial_character top_left",
              "place 0,0 s", "place 0,8 n", "place 1,0 e", "place 0,9 e", "place 0,1 s",
              "place 1,9 e"]
    return game, state, script


def test_d39_setup_team_is_the_team_in_turn(impl):
    """D39: during setup `team` = the team in turn = current_player, and the observation's
    "it is o's turn" follows it; afterwards round 1, team 0, phase rest, setup_step 0."""
    _, state, script = _setup_to_play(impl)
    for text in script:
        d = dict_of(state)
        assert d["team"] == state.current_player()
        for o in (0, 1):
            obs = [float(v) for v in state.observation_tensor(o)]
            assert obs[GLOB + 1] == (1.0 if o == d["team"] else 0.0)
        do(state, text)
    d = dict_of(state)
    assert (d["round"], d["team"], d["phase"], d["setup_step"]) == (1, 0, "rest", 0)
    assert state.current_player() == 0


def test_d40_strings_undrafted_sentries_place_and_grapple(impl):
    """D40: undrafted slots are never named by legal actions; sentries `sentry1`/`sentry2` off the
    board, `x,y`, `x,y:sentry`, `x,y:sentry1` on it; `place` names the placing team's camp;
    grapple landings relative to the token that may grapple now, else the first Grapple card."""
    game = make_game(impl, teams="draft", setup="interactive")
    state = game.new_initial_state()
    for text in ("draft regent", "draft nymph", "draft hound", "draft basilisk"):
        assert all(a.startswith("draft ") for a in legal(state))
        do(state, text)
    # place: the camp of the team placing now
    _, state, script = _setup_to_play(impl)
    do(state, *script[:15])
    assert state.current_player() == 1
    assert {a.split()[1] for a in legal(state)} == {"0,8", "0,9", "1,9"}   # raiders, bottom_left
    # sentries
    d = acting(put(base(impl, SET_A), 0, 4, 4, "n"), 0, 3)
    state = load(impl, d, SET_A)
    assert [state.action_to_string(173 + t) for t in (6, 7)] == ["spear sentry1", "spear sentry2"]
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, {"cell": [6, 5], "facing": "s"}]
    state = load(impl, d, SET_A)
    assert {"command 5,4 n", "command 6,5 w"} <= legal(state)
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, {"cell": [5, 4], "facing": "s"}]
    assert {"command 5,4:sentry1 n", "command 5,4:sentry2 n"} <= legal(load(impl, d, SET_A))
    d["sentries"] = [{"cell": [4, 4], "facing": "n"}, None]
    state = load(impl, d, SET_A)
    assert state.action_to_string(173 + 6) == "spear 4,4:sentry"
    # grapple landings: the Regent (no Grapple) is active -> relative to the Monk (token 0)
    d = base(impl, SET_B)
    put(d, 0, 4, 4, "n")
    put(d, 3, 6, 6, "n")
    acting(d, 1, 3)
    state = load(impl, d, SET_B)
    assert state.action_to_string(69 + 12 * 3 + 0) == "grapple 6,6 4,2"
    put(d, 0, off=True)
    d["respawn_queue"] = [0]
    d["resume_phase"], d["phase"] = "act", "respawn"
    state = load(impl, d, SET_B)
    assert state.action_to_string(69 + 12 * 3 + 0) == "grapple 6,6 +0,-2"


def test_d41_ability_numbers_from_the_card_owners_side(impl):
    """D41: an ability's numbers come from the side of the card owner's team: the lender for
    Changeling, the puppet for Puppetry, not the actor."""
    table = copy.deepcopy(_CHARS)
    table["abilities"]["grapple"]["advanced"] = {"ap": ability("grapple") + 1}
    table["abilities"]["battle_axe"]["advanced"] = {"ap": ability("battle_axe") + 1}
    for sides, extra in (("advanced/basic", 1), ("basic/advanced", 0)):
        d = base(impl, SET_B, characters=table, sides=sides)
        put(d, 5, 4, 4, "n")        # Nymph (raiders) borrows the Monk's (imperial) Grapple
        put(d, 0, 4, 3, "s")
        acting(d, 5, 3)
        state = load(impl, d, SET_B, characters=table, sides=sides)
        do(state, "grapple 4,3 3,3")
        assert dict_of(state)["activation"]["ap"] == 3 - ability("grapple") - extra
    for sides, extra in (("basic/advanced", 1), ("advanced/basic", 0)):
        d = base(impl, SET_C, characters=table, sides=sides)
        put(d, 0, 4, 4, "n")        # Puppeteer (imperial) forces the Barbarian (raiders)
        put(d, 3, 5, 5, "w")
        put(d, 2, 6, 5, "n")
        acting(d, 0, 3)
        state = load(impl, d, SET_C, characters=table, sides=sides)
        do(state, "puppet 5,5", "axe 6,5")
        assert dict_of(state)["activation"]["ap"] == 3 - ability("battle_axe") - extra


def test_d42_other_than_the_actor_and_borrowed_sentry_wolf_command(impl):
    """D42: Vent, Command, Grapple, Charm never target their actor; a Nymph borrowing Sentry
    places the Regent team's sentry next to herself; borrowed Wolf Form flags the Nymph; a
    borrowed Command moves an ally of the Nymph."""
    d = base(impl, SET_B)
    put(d, 5, 4, 4, "e")        # Nymph (raiders)
    put(d, 0, 4, 3, "s")        # Monk: Grapple
    put(d, 1, 3, 4, "e")        # Regent: Command, Sentry
    put(d, 4, 6, 6, "n")        # Hound, the Nymph's ally
    acting(d, 5, 4)
    state = load(impl, d, SET_B)
    options = legal(state)
    assert not [a for a in options if a.startswith(("grapple 4,4", "command 4,4"))]
    assert [a for a in options if a.startswith("grapple 4,3 ")]        # the lender is no actor
    commands = {a.split()[1] for a in options if a.startswith("command")}
    assert commands == {"6,6", "9,8"}                                    # her allies only
    do(state, "command 6,6 n")
    assert dict_of(state)["characters"][4]["cell"] == [6, 5]
    vp = dict_of(state)["regent_vp"]
    do(state, "sentry s s")
    after = dict_of(state)
    assert after["sentries"] == [{"cell": [4, 5], "facing": "s"}, None]
    assert after["regent_vp"] == vp and after["activation"]["sentry_used"]
    assert after["activation"]["ap"] == 4 - ability("command") - ability("sentry")
    # the sentry belongs to the Regent's team: the Nymph can attack it... by borrowing nothing here,
    # but her ally the Hound may bite it (an enemy)
    # Ventriloquism: never the Puppeteer itself
    d = acting(put(put(base(impl, SET_C), 0, 4, 4, "n"), 1, 5, 4, "n"), 0, 3)
    options = legal(load(impl, d, SET_C))
    assert "vent 5,4 n" in options and not [a for a in options if a.startswith("vent 4,4")]
    # Charm: never the Sorceress herself (a token on her own cell is in her LOS)
    d = acting(put(put(base(impl, SET_H), 3, 4, 4, "n"), 4, 4, 4, "n"), 3, 3)
    options = legal(load(impl, d, SET_H))
    assert [a for a in options if a.startswith("charm 4,4:hound")]
    assert not [a for a in options if a.startswith("charm 4,4:sorceress")]
    # Wolf Form borrowed: the flag goes on the Nymph
    d = acting(put(put(base(impl, SET_A), 4, 4, 4, "n"), 5, 4, 3, "s"), 4, 3)
    state = load(impl, d, SET_A)
    do(state, "wolf")
    after = dict_of(state)
    assert after["characters"][4]["wolf_form"] and not after["characters"][5]["wolf_form"]


def test_d43_charge_ray_and_free_moves(impl):
    """D43: Charge ignores tokens on the Minotaur's cell; the first occupied cell qualifies if any
    token on it is an enemy; a hydra first means no charge; free moves never pay for
    pounce/shadow/slither/charge."""
    d = base(impl, SET_E)
    put(d, 0, 3, 4, "e")        # Minotaur
    put(d, 1, 3, 4, "n")        # the Monk on its cell: ignored
    put(d, 3, 6, 4, "w")        # Hound
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "charge")
    assert dict_of(state)["characters"][0]["cell"] == [5, 4]
    put(d, 1, 5, 4)             # ally and enemy on the first occupied cell
    put(d, 3, 5, 4)
    state = load(impl, d, SET_E)
    do(state, "charge")
    assert dict_of(state)["characters"][0]["cell"] == [4, 4]
    # a hydra first: no charge; the same ray without the hydra: charge (water does not stop LOS)
    d = base(impl, SET_E)
    put(d, 0, 0, 2, "e")
    put(d, 3, 8, 2, "w")        # beyond the hydra on 2,2 and the moat
    acting(d, 0, 3)
    assert "charge" not in legal(load(impl, d, SET_E))
    d["hydras"] = [None, [2, 7]]
    state = load(impl, d, SET_E)
    do(state, "charge")
    assert dict_of(state)["characters"][0]["cell"] == [1, 2]
    # free moves do not pay for charge or pounce
    d = base(impl, SET_E)
    put(d, 0, 3, 4, "e")
    put(d, 3, 6, 4, "w")
    put(d, 1, 4, 6, "n")
    acting(d, 0, 3, free_moves=2)
    state = load(impl, d, SET_E)
    do(state, "charge")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 2 and act["ap"] == 3 - ability("charge")
    acting(d, 1, 3, free_moves=2)
    state = load(impl, d, SET_E)
    do(state, "pounce ne")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 2 and act["ap"] == 3 - ability("dragon_pounce")


def test_d44_archer_range_includes_its_own_cell(impl):
    """D44: Archer reaches distance 0..2 in its LOS, its own cell included, as the Throwing Axe
    (same card words; the spec puts characters on its own cell in its LOS)."""
    d = acting(put(put(base(impl, SET_G), 0, 4, 4, "e"), 3, 4, 4, "w"), 0, 3)
    assert [a for a in legal(load(impl, d, SET_G)) if a.startswith("archer")] == ["archer 4,4:barbarian"]
    state = load(impl, d, SET_G)
    do(state, "archer 4,4:barbarian")
    assert dict_of(state)["characters"][3]["cell"] is None
    for x, reached in ((5, True), (6, True)):
        put(d, 3, x, 4)
        assert (f"archer {x},4" in legal(load(impl, d, SET_G))) is reached


def test_d45_territorial_does_not_shorten_ranges(impl):
    """D45: Territorial binds token steps only; "within n steps" (Ventriloquism, Puppetry,
    Guardian) counts through the Hound's cell."""
    d = base(impl, SET_K)
    put(d, 0, 4, 4, "n")        # Puppeteer, an enemy of the Hound
    put(d, 4, 5, 4, "n")        # Hound: the only way out of 4,4 is east through its cell
    put(d, 2, 6, 5, "n")        # Monk, 3 steps away through the Hound's cell
    d["hedges"] = [[[3, 4], [4, 4]], [[4, 3], [4, 4]], [[4, 4], [4, 5]]]
    acting(d, 0, 3)
    options = legal(load(impl, d, SET_K))
    assert "move e" not in options                  # the step itself is barred
    assert "vent 6,5 n" in options


def test_d46_retriever_once_and_changeling_borrows_no_passives(impl):
    """D46: Retriever once per activation, on the Hound's own pluck; Changeling never borrows
    passives (Agility included) nor anything from a sentry."""
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "n")
    d["strawberries"] = [[0, 5], [4, 4], [5, 4]]
    acting(d, 4, 3)
    state = load(impl, d, SET_B)
    do(state, "pluck", "move e", "pluck")
    act = dict_of(state)["activation"]
    assert act["free_moves"] == 0 and act["retriever_used"]
    # Nymph next to the imperial Bard (Agility) and a sentry: no diagonal move, nothing borrowed
    d = base(impl, SET_B)
    put(d, 5, 4, 4, "n")
    put(d, 2, 4, 3, "s")
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, None]
    acting(d, 5, 3)
    options = legal(load(impl, d, SET_B))
    assert not [a for a in options if a.split()[0] == "move" and len(a.split()[1]) == 2]
    assert {a.split()[0] for a in options} <= {"move", "face", "end", "lure", "discard", "pass"}


def test_d47_bite_needs_a_legal_step_and_bites_sentries(impl):
    """D47 / point 45: Bite is legal only with a legal step of the target; a sentry can be bitten
    (it carries nothing: only the step)."""
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "e")        # Hound (raiders)
    put(d, 0, 5, 4, "n")        # Monk
    acting(d, 4, 3)
    options = legal(load(impl, d, SET_B))
    assert {"bite 5,4 n", "bite 5,4 e", "bite 5,4 s"} <= options
    assert "bite 5,4 w" not in options              # into the Hound's cell: Territorial
    put(d, 0, 6, 4)
    put(d, 4, 5, 4)                                 # the Monk's east step would be moat water
    assert "bite 6,4 e" not in legal(load(impl, d, SET_B))
    d = base(impl, SET_B)
    put(d, 4, 4, 4, "e")
    d["sentries"] = [{"cell": [5, 4], "facing": "s"}, None]
    acting(d, 4, 3)
    state = load(impl, d, SET_B)
    do(state, "bite 5,4 n")
    after = dict_of(state)
    assert after["sentries"][0]["cell"] == [5, 3] and after["strawberries"] == [[0, 5]]
    assert after["activation"]["ap"] == 3 - ability("bite")


def test_d48_wolf_is_legal_with_wolf_form_on(impl):
    """D48: `wolf` is legal whenever affordable, even with Wolf Form already on."""
    d = acting(put(base(impl, SET_A), 5, 4, 4, "n"), 5, 3)
    d["characters"][5]["wolf_form"] = True
    state = load(impl, d, SET_A)
    assert "wolf" in legal(state)
    do(state, "wolf")
    after = dict_of(state)
    assert after["characters"][5]["wolf_form"] and after["activation"]["ap"] == 3 - ability("wolf_form")
    acting(d, 5, ability("wolf_form") - 1)
    if ability("wolf_form") >= 1:
        assert "wolf" not in legal(load(impl, d, SET_A))


def test_d33_wolf_form_lasts_one_activation(impl):
    """D33 / D49: Wolf Form lasts the activation ("Unless stated otherwise, a 'turn' refers to a
    single character activation"): the `end` of the team's first activation clears it and the
    passes run again, so the Skin-Changer next to a hydra is defeated and respawns before the
    team's second activation."""
    d = base(impl, SET_A)
    put(d, 5, 1, 3, "n")        # Skin-Changer (raiders)
    acting(d, 5, 3, resting=3)
    state = load(impl, d, SET_A)
    do(state, "wolf", "move n")
    mid = dict_of(state)
    assert mid["characters"][5]["cell"] == [1, 2] and mid["characters"][5]["wolf_form"]
    do(state, "end")
    after = dict_of(state)
    assert after["characters"][5]["cell"] is None and not any(c["wolf_form"] for c in after["characters"])
    assert after["phase"] == "respawn" and after["resume_phase"] == "pick" and after["respawn_queue"] == [5]
    assert after["team"] == 1 and state.current_player() == 1


def test_d33_a_puppets_wolf_form_ends_with_the_puppeteers_activation(impl):
    """D33: the flag goes on the actor, here the puppet; it lasts the activation in progress (the
    Puppeteer's), not the puppet's own next activation."""
    teams = "basilisk,monk,regent/skin_changer,puppeteer,hound"   # 3 skin-changer 4 puppeteer
    d = base(impl, teams)
    put(d, 3, 5, 5, "n")
    put(d, 4, 5, 6, "n")
    acting(d, 4, 3, resting=5)
    state = load(impl, d, teams)
    do(state, "puppet 5,5", "wolf")
    assert dict_of(state)["characters"][3]["wolf_form"]
    do(state, "end")
    after = dict_of(state)
    assert not any(c["wolf_form"] for c in after["characters"]) and after["phase"] == "pick"


def test_d33_wolf_form_needs_an_activation_in_progress(impl):
    """A state dict with Wolf Form on while nobody acts cannot arise: refused."""
    d = base(impl, SET_A)
    put(d, 5, 1, 3, "n")
    acting(d, 5, 3, resting=3)
    d["characters"][5]["wolf_form"] = True
    load(impl, d, SET_A)
    d.update(phase="pick", active=None, done=[5], activation=default_activation())
    with pytest.raises(ValueError, match="Wolf Form lasts one activation"):
        load(impl, d, SET_A)
    d["characters"][5]["wolf_form"] = False
    load(impl, d, SET_A)


@pytest.mark.parametrize("how", ["end", "forfeit", "defeated"])
def test_d49_wolf_form_of_the_second_activation_ends_with_the_turn(impl, how):
    """D49 / D33: Wolf Form of the team's second activation ends with it, and so with the turn:
    the passes run again after the turn switch and the Skin-Changer next to a hydra respawns
    then. The turn may also end because the second active character is defeated: its activation,
    and so the turn, end within the action, and the passes after it still run (both defeats join
    one respawn queue, in token order). A forfeit ends no activation with Wolf Form on."""
    d = base(impl, SET_A)
    put(d, 5, 1, 3, "n")        # Skin-Changer (raiders), the second activation
    put(d, 4, 3, 1, "w")        # Nymph, one step east of 2,1 (next to the hydra on 2,2)
    if how == "defeated":
        acting(d, 4, 3, resting=3, done=[5])
        d["characters"][5]["wolf_form"] = True
        put(d, 5, 1, 2, "n")
        d["activation"]["ap"] = 3
        state = load(impl, d, SET_A)
        do(state, "move w")     # onto 2,1: the hydra on 2,2 defeats the Nymph, whose activation ends
    else:
        acting(d, 5, 3, resting=3, done=[4])
        state = load(impl, d, SET_A)
        do(state, "wolf", "move n")
        assert dict_of(state)["characters"][5]["wolf_form"]
        do(state, "end")
    after = dict_of(state)
    assert after["characters"][5]["cell"] is None and not after["characters"][5]["wolf_form"]
    assert after["phase"] == "respawn" and after["resume_phase"] == "rest"
    assert after["respawn_queue"] == ([4, 5] if how == "defeated" else [5])
    assert after["team"] == 0 and state.current_player() == 1


def test_d49_nothing_runs_once_the_game_is_over(impl):
    """D49: when the turn end ends the game, no pass runs: the Skin-Changer whose Wolf Form just
    ended stays next to the hydra, with its strawberry (+1 VP at the end)."""
    d = base(impl, SET_A)
    put(d, 5, 1, 3, "n", strawberries=1)
    acting(d, 5, 3, done=[4], resting=3)
    d["round"] = 7
    state = load(impl, d, SET_A)
    do(state, "wolf", "move n", "end")
    assert state.is_terminal()
    after = dict_of(state)
    assert after["characters"][5]["cell"] == [1, 2] and not after["characters"][5]["wolf_form"]
    assert after["characters"][5]["strawberries"] == 1 and after["respawn_queue"] == []
    assert state.vp(1) == 2      # plucked 1 + carried 1


def test_d49_gaze_runs_before_the_passes(impl):
    """D49: the action's effect, then Petrifying Gaze, then the passive attacks: a Skin-Changer
    stepping onto an enemy in a Basilisk's LOS both kills by Feral and loses the gaze AP."""
    loss = ability("petrifying_gaze", "ap_loss")
    d = base(impl, SET_D)
    put(d, 0, 3, 4, "e")        # Basilisk (imperial) looks east along row 4
    put(d, 1, 5, 4, "n")        # Monk (imperial) in the ray
    put(d, 3, 5, 3, "s")        # Skin-Changer (raiders) steps onto the Monk
    acting(d, 3, 5)
    state = load(impl, d, SET_D)
    do(state, "move s")
    after = dict_of(state)
    assert after["characters"][1]["cell"] is None and after["respawn_queue"] == [1]
    assert after["activation"]["ap"] == max(0, 5 - 1 - loss) and after["activation"]["gaze"] == [0]


def test_d50_draft_with_fixed_setup(impl):
    """D50: with teams="draft" + setup="fixed" the board's bridges, camps, hydras and strawberries
    are there during the draft; uses_left and regent_vp are set at the `draft` action."""
    ref = dict_of(make_game(impl).new_initial_state())
    state = make_game(impl, teams="draft").new_initial_state()
    d = dict_of(state)
    for key in ("bridges", "camps", "hydras", "strawberries", "hedges", "tiles"):
        assert d[key] == ref[key], key
    do(state, "draft monk")
    d = dict_of(state)
    assert d["characters"][0]["uses_left"] == ability("plant", "uses_per_game")
    assert d["characters"][0]["cell"] is None
    do(state, "draft regent")
    assert dict_of(state)["regent_vp"] == [0, ability("point_of_order", "vp")]


def test_d51_observation_undrafted_draft_values_and_sentry_planes(impl):
    """D51: an undrafted slot shows facing n; the 14 draft values are 1 for every card on
    neither team; the sentry planes are empty without a Regent."""
    state = make_game(impl, teams="draft").new_initial_state()
    obs = [float(v) for v in state.observation_tensor(0)]
    for slot in range(6):
        assert obs[1900 + 28 * slot:1900 + 28 * slot + 4] == [1.0, 0.0, 0.0, 0.0]
    assert obs[2131 - 14:] == [1.0] * 14
    do(state, "draft monk", "draft hound")
    obs = [float(v) for v in state.observation_tensor(1)]
    assert obs[2131 - 14:] == [0.0 if i in ("monk", "hound") else 1.0 for i in CARD_IDS]
    obs = [float(v) for v in make_game(impl).new_initial_state().observation_tensor(0)]
    assert obs[1700:1900] == [0.0] * 200
    d = acting(put(base(impl, SET_A), 0, 4, 4, "n"), 0, 3)
    d["sentries"] = [{"cell": [5, 4], "facing": "n"}, None]
    state = load(impl, d, SET_A)
    own = [float(v) for v in state.observation_tensor(0)][1700:1900]
    enemy = [float(v) for v in state.observation_tensor(1)][1700:1900]
    assert own[45] == 1.0 and sum(own) == 1.0 and enemy[145] == 1.0 and sum(enemy) == 1.0


def test_d52_conservation_checks(impl):
    """D52: carried + deposited <= plucked; on the board + carried + deposited
    <= max(14, the board's strawberry count)."""
    game = make_game(impl, teams=SET_B)
    d = base(impl, SET_B)
    put(d, 0, 4, 4, "n", strawberries=2)
    game.state_from_dict(copy.deepcopy(d))
    bad = copy.deepcopy(d)
    bad["plucked"][0] = 1
    with pytest.raises(ValueError):
        game.state_from_dict(bad)
    full = copy.deepcopy(d)
    full["strawberries"] = sorted(_BOARDS["boards"]["standard"]["strawberries"][:13],
                                  key=lambda c: (c[1], c[0]))
    with pytest.raises(ValueError):
        game.state_from_dict(full)      # 13 + 2 > 14
    full["strawberries"] = full["strawberries"][:12]
    game.state_from_dict(full)


@pytest.mark.parametrize("where, key", [(None, "setup_step"), (None, "sentries"), (None, "tiles"),
                                        ("characters", "wolf_form"), ("activation", "free_moves")])
def test_d52_every_state_dict_key_is_required(impl, where, key):
    """D52: a dict lacking a part-2 key (a part-1 dict, say) is refused, not completed with defaults."""
    game = make_game(impl)
    d = dict_of(game.new_initial_state())
    game.state_from_dict(copy.deepcopy(d))
    holder = d if where is None else d[where][0] if where == "characters" else d[where]
    del holder[key]
    with pytest.raises(ValueError):
        game.state_from_dict(d)


# ============================================================================ gaps

def test_tower_shield_blocks_lure_and_charm_not_vent_command_bite(impl):
    """Points 24/49 (Tower Shield): Charm and Alluring Gaze from the shield's facing are blocked;
    Ventriloquism, Command and Bite are not LOS effects."""
    for facing, blocked in (("e", True), ("n", False)):
        d = base(impl, SET_H)
        put(d, 0, 4, 4, facing)    # Guardian (imperial)
        put(d, 3, 6, 4, "w")       # Sorceress looks west at it
        acting(d, 3, 3)
        assert bool([a for a in legal(load(impl, d, SET_H)) if a.startswith("charm 4,4")]) != blocked
        d = base(impl, SET_I)
        put(d, 0, 4, 4, facing)
        put(d, 3, 6, 4, "w")       # Nymph
        acting(d, 3, 3)
        assert ("lure 4,4 1" in legal(load(impl, d, SET_I))) != blocked
    d = base(impl, SET_I)
    put(d, 0, 4, 4, "e")
    put(d, 5, 6, 4, "w")           # Puppeteer east of the shield
    put(d, 4, 5, 4, "w")           # Hound next to it, east
    put(d, 2, 6, 3, "s")           # Regent (imperial)
    acting(d, 5, 3)
    assert "vent 4,4 n" in legal(load(impl, d, SET_I))
    acting(d, 4, 3)
    assert "bite 4,4 n" in legal(load(impl, d, SET_I))
    put(d, 2, 6, 4, "w")
    acting(d, 2, 3)
    assert "command 4,4 n" in legal(load(impl, d, SET_I))


def test_poison_blood_defeats_a_puppet_attacking_the_basilisk(impl):
    """Points 40/54: a puppet that attacks an adjacent Basilisk is defeated by Poison Blood."""
    d = base(impl, SET_J)
    put(d, 0, 4, 4, "n")        # Puppeteer (imperial)
    put(d, 1, 5, 5, "e")        # Basilisk (imperial)
    put(d, 3, 6, 5, "w")        # Barbarian (raiders) next to it
    acting(d, 0, 3)
    state = load(impl, d, SET_J)
    do(state, "puppet 6,5", "axe 5,5")
    after = dict_of(state)
    assert after["characters"][1]["cell"] is None and after["characters"][3]["cell"] is None
    assert after["respawn_queue"] == [1, 3] and after["activation"]["puppet"] is None


def test_nymph_borrows_charge(impl):
    """Points 48/51: a Nymph next to the Minotaur charges from her own cell and facing."""
    d = base(impl, SET_A)
    put(d, 4, 3, 4, "e")        # Nymph (raiders)
    put(d, 2, 3, 3, "s")        # Minotaur (imperial), the lender, under her Aura
    put(d, 0, 6, 4, "w")        # Regent, her enemy, 3 cells east
    acting(d, 4, 3)
    state = load(impl, d, SET_A)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][4]["cell"] == [5, 4] and after["characters"][2]["cell"] == [3, 3]
    assert after["activation"]["charge_used"] and after["activation"]["charged"]
    assert after["activation"]["ap"] == 3 - ability("charge")


# ============================================================================ D53: step by step

def test_d53_a_charge_past_a_hydra_is_struck_on_the_way(impl):
    """D53: every step of a Charge is a change, after which the hydras strike (spec: "check after
    every change"): the Minotaur charging 1,1 -> 1,2 -> 1,3 is defeated on 1,2, next to the hydra
    on 2,2, and goes no further."""
    d = base(impl, SET_E)
    put(d, 0, 1, 0, "s")        # Minotaur (imperial), facing the enemy Hound on 1,5
    put(d, 3, 1, 5)
    put(d, 4, 8, 8)
    put(d, 5, 9, 9)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    assert "charge" in legal(state)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][0]["cell"] is None and after["phase"] == "respawn"
    assert after["respawn_queue"] == [0] and after["resume_phase"] == "pick"


def test_d53_a_charge_without_hydra_on_the_way_goes_the_whole_length(impl):
    """The same charge with the hydra away from its path: three steps, to 1,3."""
    d = base(impl, SET_E)
    put(d, 0, 1, 0, "s")
    put(d, 3, 1, 5)
    put(d, 4, 8, 8)
    put(d, 5, 9, 9)
    d["hydras"] = [[7, 7], d["hydras"][1]]
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "charge")
    assert dict_of(state)["characters"][0]["cell"] == [1, 3]


def test_d53_a_lured_token_past_a_hydra_is_struck_on_the_way(impl):
    """D53: Alluring Gaze moves its target step by step: the Monk lured 1,1 -> 2,1 -> 3,1 is
    defeated on 2,1, next to the hydra on 2,2."""
    d = base(impl, SET_E)
    put(d, 5, 4, 1, "w")        # Nymph (raiders), looking west at the Monk on 1,1
    put(d, 1, 1, 1)
    put(d, 0, 8, 0)
    put(d, 2, 9, 0)
    acting(d, 5, 3)
    state = load(impl, d, SET_E)
    do(state, "lure 1,1 2")
    after = dict_of(state)
    assert after["characters"][1]["cell"] is None and after["respawn_queue"] == [1]
    assert after["phase"] == "respawn" and after["resume_phase"] == "act"


def test_d53_a_charge_that_crosses_the_basilisks_gaze_meets_it(impl):
    """D53 / 42: a Charge is a voluntary move, step by step: passing through the Basilisk's LOS
    (4,0, seen from 4,1 facing north) costs the gaze AP even though the Minotaur ends outside it."""
    d = base(impl, SET_E)
    put(d, 0, 3, 0, "e")        # Minotaur charging east toward the Hound on 7,0
    put(d, 3, 7, 0)
    put(d, 4, 4, 1, "n")        # Basilisk, LOS 4,1 and 4,0
    put(d, 5, 9, 9)
    acting(d, 0, 3)
    state = load(impl, d, SET_E)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [6, 0] and after["activation"]["gaze"] == [4]
    assert after["activation"]["ap"] == max(0, 3 - ability("charge") - ability("petrifying_gaze", "ap_loss"))


def test_d53_a_charge_past_a_bard_hears_its_war_cry_on_the_way(impl):
    """D53 / D10: the Bards act on the active character between the steps of a Charge: the
    Minotaur charging 0,0 -> 1,0 -> 2,0 -> 3,0 passes within distance 2 of the Raider Bard on 1,2
    only at 1,0, and loses the War Cry's AP there."""
    teams = "minotaur,monk,regent/raider_bard,hound,nymph"   # 0 minotaur 3 raider bard 4 hound
    d = base(impl, teams)
    put(d, 0, 0, 0, "e")
    put(d, 3, 1, 2)
    put(d, 4, 5, 0)
    put(d, 5, 9, 9)
    d["hydras"] = [[7, 7], d["hydras"][1]]     # away from the Bard
    acting(d, 0, 3)
    state = load(impl, d, teams)
    do(state, "charge")
    after = dict_of(state)
    assert after["characters"][0]["cell"] == [3, 0] and after["activation"]["war_cry"] == [3]
    assert after["activation"]["ap"] == max(0, 3 - ability("charge") - 1)


# ---------------------------------------------------------------------------- D54 hedge tokens
SET_TOKENS = "minotaur,monk,regent/barbarian,hound,nymph"   # 0 minotaur 1 monk 3 barbarian
ITR = [(5, 3), (6, 3), (5, 4), (6, 4)]                      # the square tile slot iTR
ITR_INSIDE = [hedge_key((5, 3), (6, 3)), hedge_key((5, 4), (6, 4)), hedge_key((5, 3), (5, 4)),
              hedge_key((6, 3), (6, 4))]


def edges_field(edges):
    return sorted([list(a), list(b)] for a, b in edges)


def test_flip_keeps_hedge_and_chopped_hedge_tokens_on_their_edges(impl):
    """D54: "All tokens maintain their position on the flipped side of the tile". A planted hedge
    used to vanish in a flip (its token lost for the game) and a chopped printed hedge grew back."""
    d = put(base(impl, SET_TOKENS, hedges=True), 0, 5, 3, "n")
    acting(d, 0, 3)
    before = hedge_set(d)
    flipped = dict_of(do(load(impl, d, SET_TOKENS), "flip"))
    printed_after = hedge_set(flipped)            # no tokens: the faces' hedges
    assert printed_after == tile_hedges(flipped["tiles"])
    planted = next(e for e in ITR_INSIDE if e not in before)          # a hedge token here...
    chopped = next(e for e in ITR_INSIDE if e in printed_after and e != planted)  # ...a chopped one here
    d["hedges"] = edges_field((before | {planted}) - {chopped})
    d.update(planted_hedges=edges_field([planted]), chopped_hedges=edges_field([chopped]),
             hedges_planted=1, hedges_chopped=1)
    after = dict_of(do(load(impl, d, SET_TOKENS), "flip"))
    assert hedge_set(after) == (printed_after - {chopped}) | {planted}
    assert (after["planted_hedges"], after["chopped_hedges"]) == (edges_field([planted]), edges_field([chopped]))
    assert (after["hedges_planted"], after["hedges_chopped"]) == (1, 1)


def test_plant_and_chop_leave_tokens_and_chop_destroys_a_hedge_token(impl):
    d = base(impl, SET_TOKENS)                      # no hedges
    put(d, 1, 5, 3, "s")
    state = do(load(impl, acting(d, 1, 3), SET_TOKENS), "plant e")
    edge = hedge_key((5, 3), (6, 3))
    after = dict_of(state)
    assert hedge_set(after) == {edge} and after["planted_hedges"] == edges_field([edge])
    assert after["chopped_hedges"] == []
    put(after, 1, 0, 9)                             # the monk gone far; the barbarian next to the hedge
    put(after, 3, 6, 3, "w")
    after.update(done=[], activation=default_activation())
    state = do(load(impl, acting(after, 3, 3), SET_TOKENS), "chop w")
    chopped = dict_of(state)
    assert hedge_set(chopped) == set() and chopped["planted_hedges"] == []
    assert chopped["chopped_hedges"] == edges_field([edge])
    assert (chopped["hedges_planted"], chopped["hedges_chopped"]) == (1, 1)
    again = do(load(impl, put(acting(chopped, 1, 3), 1, 5, 3, "s"), SET_TOKENS), "plant e")
    d2 = dict_of(again)                             # a hedge token on an edge with a chopped-hedge token
    assert d2["planted_hedges"] == d2["chopped_hedges"] == edges_field([edge]) and hedge_set(d2) == {edge}


@pytest.mark.parametrize("change, message", [
    (dict(planted_hedges=[[[5, 3], [6, 3]]], hedges_planted=1), "planted_hedges"),      # not a hedge
    (dict(hedges=[[[5, 3], [6, 3]]], chopped_hedges=[[[5, 3], [6, 3]]], hedges_chopped=1), "chopped_hedges"),
    (dict(hedges=[[[5, 3], [6, 3]]], planted_hedges=[[[5, 3], [6, 3]]]), "planted"),  # more than hedges_planted
    (dict(chopped_hedges=[[[5, 3], [6, 3]]]), "chopped"),                             # more than hedges_chopped
    (dict(chopped_hedges=[[[9, 3], [10, 3]]], hedges_chopped=1), "chopped_hedges"),   # off the board
    (dict(planted_hedges=[[[6, 3], [5, 3]]]), "planted_hedges"),                      # higher cell first
])
def test_the_state_dict_checks_the_hedge_tokens(impl, change, message):
    d = base(impl, SET_TOKENS)
    d.update(change)
    with pytest.raises(ValueError, match=message):
        load(impl, d, SET_TOKENS)


def test_hedge_tokens_planted_in_any_order_make_equal_states():
    """The engine keeps the token edges in one canonical order: equal positions compare equal and
    share a transposition key (search tables rely on it)."""
    d = put(base("engine", SET_TOKENS), 1, 5, 3, "s")
    acting(d, 1, 3)
    first = do(load("engine", d, SET_TOKENS), "plant e", "plant s")
    second = do(load("engine", d, SET_TOKENS), "plant s", "plant e")
    assert first == second and first.transposition_key() == second.transposition_key()
    assert dict_of(first)["planted_hedges"] == edges_field([hedge_key((5, 3), (6, 3)), hedge_key((5, 3), (5, 4))])


def test_d56_a_compelled_sentry_that_is_defeated_ends_the_compulsion(impl):
    """D56 (point 32): the compulsion ends with its target, a sentry too (forced moves move
    sentries, point 60): the Sorceress compels the Regent's sentry next to the hydra on 2,2; it
    leaves the board for good, and her compulsions left are gone with it. The engine used to end
    it for characters only (found by a differential run of 4,000 new seeds)."""
    d = base(impl, SET_H)
    put(d, 3, 1, 5, "n")        # the Sorceress, the sentry ahead on 1,3
    d["sentries"] = [{"cell": [1, 3], "facing": "e"}, None]
    acting(d, 3, 3)
    state = load(impl, d, SET_H)
    do(state, "compel 1,3 n")   # onto 1,2, next to the hydra
    after = dict_of(state)
    assert after["sentries"] == [None, None] and after["phase"] == "act"
    assert (after["activation"]["compulsions"], after["activation"]["compel_target"]) == (3, 6)
    assert after["activation"]["ap"] == 3 - 1
