"""Rule tests for Abacuachego, one group per numbered point and decision of docs/rules/abacuachego.md.

Every test runs on both implementations: the pure-Python reference (meeple.reference) and the C++
engine (meeple.load); the engine runs are skipped if `meeple._core` cannot be imported.

Positions are hand-built with `state_from_dict` and written as
    P(zipa_pits_1..n, zaque_pits_1..n, [zipa_store, zaque_store], player_to_move, ply)
Tests marked with SIDES are written with Zipa to move and are also played as their mirror image
(rows, stores, players and returns swapped, Zaque to move), which must give the mirrored result.

Geometry used in the hand computations (n = 10):
  counter-clockwise (CCW) ring: Zipa 1..10, [Zaque store], Zaque 1..10, [Zipa store], Zipa 1 ...
  clockwise (CW) from Zipa's pit k: Zipa k-1..1, [Zipa store], Zaque 10..1, [Zaque store], Zipa 10..
  front of own pit k = opponent pit 11-k.
"""
import importlib.util
import pathlib
import pickle
import random
import re
import sys

import pytest

IMPLS = ["reference", "engine"]
SIDES = ["zipa", "zaque"]
TERMINAL = -4
DEFAULTS = {"pits_per_row": 10, "seeds_per_pit": 5, "win_threshold": 51, "max_plies": 1000,
            "parity": "count", "origin_match": "count", "match": "digit",
            "skip_origin_on_lap": False}


def _reference_load():
    try:
        from meeple.reference import load
    except ImportError:
        # meeple/__init__.py needs the compiled engine; the reference package stands alone.
        path = pathlib.Path(__file__).resolve().parents[1] / "python/meeple/reference/__init__.py"
        spec = importlib.util.spec_from_file_location(
            "meeple_reference_standalone", path, submodule_search_locations=[str(path.parent)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        load = module.load
    return load


def make_game(impl, **params):
    if impl == "reference":
        load = _reference_load()
    else:
        from meeple import load
    return load("abacuachego", **params)


def _engine_available():
    try:
        import meeple._core
        return meeple._core is not None
    except ImportError:
        return False


@pytest.fixture(params=IMPLS)
def impl(request):
    if request.param == "engine" and not _engine_available():
        pytest.skip("meeple._core is not built")
    return request.param


# --------------------------------------------------------------------------- helpers

def P(zipa, zaque, stores, player=0, ply=0):
    return {"pits": [list(zipa), list(zaque)], "stores": list(stores),
            "current_player": player, "ply": ply}


def filled(zipa, zaque, player=0, ply=0, total=100):
    """P(...) with the grains not on the board split between the stores (the extra one to Zaque)."""
    rest = total - sum(zipa) - sum(zaque)
    return P(zipa, zaque, [rest // 2, rest - rest // 2], player, ply)


def mirror(d):
    p = d["current_player"]
    return {"pits": [list(d["pits"][1]), list(d["pits"][0])],
            "stores": [d["stores"][1], d["stores"][0]],
            "current_player": 1 - p if p in (0, 1) else p, "ply": d["ply"]}


def plain(d):
    return {"pits": [[int(v) for v in row] for row in d["pits"]],
            "stores": [int(v) for v in d["stores"]],
            "current_player": int(d["current_player"]), "ply": int(d["ply"])}


def ints(values):
    return [int(v) for v in values]


def floats(values):
    return [float(v) for v in values]


def play(state, *actions):
    for text in actions:
        state.apply_action(state.string_to_action(text))
    return state


def check_state(state, expected, returns=(0.0, 0.0)):
    assert plain(state.to_dict()) == expected
    assert int(state.current_player()) == expected["current_player"]
    assert bool(state.is_terminal()) == (expected["current_player"] == TERMINAL)
    assert int(state.move_number()) == expected["ply"]
    assert floats(state.returns()) == list(returns)


def check_move(impl, side, before, action, after, returns=(0.0, 0.0), **params):
    """Play `action` (e.g. "3cw") from `before`; check the exact resulting position and returns."""
    if side == "zaque":
        before, after, returns = mirror(before), mirror(after), tuple(reversed(returns))
    game = make_game(impl, **params)
    state = game.state_from_dict(before)
    play(state, action)
    check_state(state, after, returns)
    return state


def legal_from(impl, side, before, **params):
    if side == "zaque":
        before = mirror(before)
    return ints(make_game(impl, **params).state_from_dict(before).legal_actions())


# --------------------------------------------------------------------------- 1-4: board and players

@pytest.mark.parametrize("params, n, seeds", [({}, 10, 5), ({"pits_per_row": 3, "seeds_per_pit": 2}, 3, 2),
                                              ({"pits_per_row": 12, "seeds_per_pit": 1}, 12, 1)])
def test_r01_initial_position(impl, params, n, seeds):
    game = make_game(impl, **params)
    state = game.new_initial_state()
    check_state(state, P([seeds] * n, [seeds] * n, [0, 0], 0, 0))
    assert ints(game.new_initial_state(seed=7).to_dict()["pits"][0]) == [seeds] * n


def test_r02_zipa_first_then_turns_alternate(impl):
    state = make_game(impl).new_initial_state()
    assert int(state.current_player()) == 0
    # Zipa 1ccw: h=5 odd -> CCW: Zipa pits 2..6 get one each -> 6. Destination own pit 6 (6
    # grains): origin 6 vs h=5 no; front Zaque pit 5 holds 5, no. No capture; Zaque to move.
    play(state, "1ccw")
    check_state(state, P([0, 6, 6, 6, 6, 6, 5, 5, 5, 5], [5] * 10, [0, 0], 1, 1))
    # Zaque 1ccw, the same move on his side: Zaque pits 2..6 -> 6. Destination his pit 6 (6); its
    # front is Zipa's pit 11-6=5, which holds 6: match -> Zipa's pit 5 (6 grains) to Zaque's store.
    play(state, "1ccw")
    check_state(state, P([0, 6, 6, 6, 0, 6, 5, 5, 5, 5], [0, 6, 6, 6, 6, 6, 5, 5, 5, 5], [0, 6], 0, 2))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("n, k", [(10, k) for k in range(2, 11)] + [(7, k) for k in range(2, 8)])
def test_r03_front_pit_is_opponent_pit_n_plus_1_minus_k(impl, side, n, k):
    # Own pit k-1 holds 1 grain (odd -> CCW) and drops it into own pit k (2 -> 3). All opponent
    # pits hold 5 except pit n+1-k, which holds 3: only the front pit matches, so exactly it is
    # captured (3 grains). Origin: 3 vs h=1, no. Other own pits hold 4.
    zipa = [4] * n
    zipa[k - 2], zipa[k - 1] = 1, 2
    zaque = [5] * n
    zaque[n - k] = 3  # Zaque pit n+1-k
    before = filled(zipa, zaque, total=10 * n)
    after_zipa = list(zipa)
    after_zipa[k - 2], after_zipa[k - 1] = 0, 3
    after_zaque = list(zaque)
    after_zaque[n - k] = 0
    after = P(after_zipa, after_zaque, [before["stores"][0] + 3, before["stores"][1]], 1, 1)
    check_move(impl, side, before, f"{k - 1}ccw", after, pits_per_row=n)


@pytest.mark.parametrize("side", SIDES)
def test_r04_ccw_order_skips_opponent_store_then_opponent_row_then_own_row(impl, side):
    # Zipa 10ccw, h=13 (odd -> CCW): [Zaque store skipped], Zaque 1..10 (10 grains, 3 left),
    # [own store skipped: 3 grains left, not the last], Zipa 1, 2, 3.
    # Destination own pit 3 (1+1=2): origin 2 vs 13 no; front Zaque pit 8 (3) no. No capture.
    # Grains: 22 + 20 + 58 = 100 before; 12 + 30 + 58 after.
    before = P([1] * 9 + [13], [2] * 10, [29, 29])
    after = P([2, 2, 2, 1, 1, 1, 1, 1, 1, 0], [3] * 10, [29, 29], 1, 1)
    check_move(impl, side, before, "10ccw", after)


@pytest.mark.parametrize("side", SIDES)
def test_r04_cw_order_own_row_toward_store_then_opponent_row(impl, side):
    # Zipa 3cw, h=6 (even -> CW): Zipa 2, 1, [own store skipped: 4 left], Zaque 10, 9, 8, 7.
    # Zaque 7..10: 3,4,5,6 -> 4,5,6,7. Destination Zaque pit 7 (4): origin 4 vs 6 no; left/right
    # Zaque 6 (2) and 8 (5) no; front Zipa pit 4 (1) no. No capture.
    # Grains: 15 + 30 + 55 = 100; after 11 + 34 + 55.
    before = P([1, 1, 6, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 3, 4, 5, 6], [27, 28])
    after = P([2, 2, 0, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 4, 5, 6, 7], [27, 28], 1, 1)
    check_move(impl, side, before, "3cw", after)


# --------------------------------------------------------------------------- 5-7: harvest, direction, legality

# Zipa holds only pit 4 (3 grains) and pit 5 (2 grains); 5 + 50 + 45 = 100.
# Neither pit reaches the opponent in the non-parity direction (pit 4: CW needs h>=5, CCW h>=7;
# pit 5: CW needs h>=6, CCW h>=6), so each pit has exactly its parity direction.
#   parity=count: pit 4 h=3 odd -> CCW = 2*3+1 = 7; pit 5 h=2 even -> CW = 2*4+0 = 8.
#   parity=pit:   pit 4 even -> CW = 6;            pit 5 odd -> CCW = 9.
PARITY_POSITION = P([0, 0, 0, 3, 2, 0, 0, 0, 0, 0], [5] * 10, [20, 25])


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("parity, expected", [("count", [7, 8]), ("pit", [6, 9])])
def test_r05_r06_only_nonempty_pits_and_direction_from_parity(impl, side, parity, expected):
    assert legal_from(impl, side, PARITY_POSITION, parity=parity) == expected


@pytest.mark.parametrize("side", SIDES)
def test_r05_r06_harvest_empties_pit_and_parity_pit_direction_is_played(impl, side):
    # parity=pit, Zipa 4cw (pit 4 even -> CW) with h=3: Zipa 3, 2, 1 get one each; destination
    # own pit 1 (1): origin 1 vs 3 no; front Zaque pit 10 (5) no. Pit 4 is empty afterwards.
    after = P([1, 1, 1, 0, 2, 0, 0, 0, 0, 0], [5] * 10, [20, 25], 1, 1)
    check_move(impl, side, PARITY_POSITION, "4cw", after, parity="pit")


# (parity, k, h, legal actions of pit k). Closed form for the non-parity direction:
#   CW iff h >= k+1, CCW iff h >= 11-k (n = 10).
LEGALITY_CASES = [
    ("count", 3, 3, [5]),          # odd -> CCW; CW would need 4 (3 grains end in own store)
    ("count", 3, 5, [4, 5]),       # odd -> CCW; CW: 5 >= 4
    ("count", 3, 4, [4]),          # even -> CW; CCW would need 8
    ("count", 3, 8, [4, 5]),       # even -> CW; CCW: 8 >= 8
    ("count", 1, 1, [1]),          # odd -> CCW; CW would need 2 (1 grain ends in own store)
    ("count", 1, 2, [0]),          # even -> CW; CCW would need 10
    ("count", 1, 10, [0, 1]),      # even -> CW; CCW: 10 >= 10
    ("count", 10, 1, [19]),        # odd -> CCW (into Zaque pit 1); CW would need 11
    ("count", 10, 10, [18, 19]),   # even -> CW; CCW: 10 >= 1
    ("count", 10, 11, [18, 19]),   # odd -> CCW; CW: 11 >= 11 (9 own pits, store skipped, Zaque 10)
    ("pit", 3, 3, [5]),            # pit 3 odd -> CCW; CW needs 4
    ("pit", 3, 4, [4, 5]),         # CW: 4 >= 4
    ("pit", 4, 6, [6]),            # pit 4 even -> CW; CCW needs 7
    ("pit", 4, 7, [6, 7]),         # CCW: 7 >= 7
]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("parity, k, h, expected", LEGALITY_CASES)
def test_r07_opposite_direction_only_if_it_reaches_the_opponent(impl, side, parity, k, h, expected):
    zipa = [0] * 10
    zipa[k - 1] = h
    assert legal_from(impl, side, filled(zipa, [5] * 10), parity=parity) == expected


@pytest.mark.parametrize("side", SIDES)
def test_r07_opposite_cw_move_reaches_opponent(impl, side):
    # parity=pit, Zipa pit 3 (odd -> CCW) holds 4; the opposite 3cw is legal (4 >= 4):
    # Zipa 2, 1, [own store skipped: 2 left], Zaque 10 (5->6), Zaque 9 (5->6).
    # Destination Zaque 9 (6): its right neighbour Zaque 10 holds 6 -> capture 6 into Zipa's store.
    # Grains: 4 + 50 + 46 = 100; after: Zipa 2, Zaque 50+2-6 = 46, stores 52.
    before = P([0, 0, 4, 0, 0, 0, 0, 0, 0, 0], [5] * 10, [23, 23])
    after = P([1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [5, 5, 5, 5, 5, 5, 5, 5, 0, 6], [29, 23], 1, 1)
    check_move(impl, side, before, "3cw", after, parity="pit")


@pytest.mark.parametrize("side", SIDES)
def test_r07_opposite_ccw_move_reaches_opponent(impl, side):
    # parity=pit, Zipa pit 4 (even -> CW) holds 7; the opposite 4ccw is legal (7 >= 7):
    # Zipa 5..10 (6 grains), [Zaque store skipped], Zaque 1 (5->6). Destination Zaque 1 (6):
    # origin 6 vs 7 no; right neighbour Zaque 2 (5) no; front Zipa 10 (1) no. No capture.
    before = P([0, 0, 0, 7, 0, 0, 0, 0, 0, 0], [5] * 10, [21, 22])
    after = P([0, 0, 0, 0, 1, 1, 1, 1, 1, 1], [6, 5, 5, 5, 5, 5, 5, 5, 5, 5], [21, 22], 1, 1)
    check_move(impl, side, before, "4ccw", after, parity="pit")


def test_r07_at_most_2n_legal_actions(impl):
    # seeds_per_pit=6 (120 grains): every Zipa pit holds 11 >= k+1 and >= 11-k, so both
    # directions of all 10 pits are legal: 20 = 2n actions. 110 + 10 = 120.
    game = make_game(impl, seeds_per_pit=6)
    state = game.state_from_dict(P([11] * 10, [1] * 10, [0, 0]))
    assert ints(state.legal_actions()) == list(range(20))
    assert ints(state.legal_actions_mask()) == [1] * 20


# --------------------------------------------------------------------------- 8: sowing

@pytest.mark.parametrize("side", SIDES)
def test_r08_opponent_store_always_skipped(impl, side):
    # Zipa 10ccw, h=1: the next place CCW is Zaque's store, skipped; the grain falls in Zaque 1
    # (3->4). Destination Zaque 1 (4): origin 4 vs 1 no; right Zaque 2 (6) no; front Zipa 10 (0) no.
    before = P([2] * 9 + [1], [3, 6, 2, 2, 2, 2, 2, 2, 2, 2], [28, 28])
    after = P([2] * 9 + [0], [4, 6, 2, 2, 2, 2, 2, 2, 2, 2], [28, 28], 1, 1)
    check_move(impl, side, before, "10ccw", after)


@pytest.mark.parametrize("side", SIDES)
def test_r08_own_store_takes_last_grain_cw_extra_turn_no_capture(impl, side):
    # Zipa 4cw, h=4 (even -> CW): Zipa 3, 2, 1 (1->2 each), then the last grain reaches Zipa's
    # store (17->18): extra turn, Zipa moves again, no capture. (Had a capture been checked at
    # Zipa 1 (2 grains), its front Zaque 10 (2) would have matched.) 13 + 47 + 40 = 100.
    before = P([1, 1, 1, 4, 1, 1, 1, 1, 1, 1], [5] * 9 + [2], [17, 23])
    after = P([2, 2, 2, 0, 1, 1, 1, 1, 1, 1], [5] * 9 + [2], [18, 23], 0, 1)
    check_move(impl, side, before, "4cw", after)


@pytest.mark.parametrize("side", SIDES)
def test_r08_own_store_takes_last_grain_ccw_extra_turn(impl, side):
    # Zipa 10ccw, h=11 (odd -> CCW): [Zaque store skipped], Zaque 1..10 (2->3), last grain into
    # Zipa's store (30->31): extra turn. 20 + 20 + 60 = 100.
    before = P([1] * 9 + [11], [2] * 10, [30, 30])
    after = P([1] * 9 + [0], [3] * 10, [31, 30], 0, 1)
    check_move(impl, side, before, "10ccw", after)


# Lap: Zipa 5cw, h=20 (even -> CW): Zipa 4..1 (4 grains, 16 left), [own store skipped],
# Zaque 10..1 (10, 6 left), [Zaque store skipped], Zipa 10..6 (5, 1 left), then:
#  - default: the origin Zipa 5 gets the last grain (0->1). Destination own pit 5 (1): origin
#    1 vs 20 no; front Zaque 6 (1->2) no. No capture.
#  - skip_origin_on_lap: Zipa 5 is skipped, the last grain falls in Zipa 4 (1+1+1 = 3):
#    origin 3 vs 20 no; front Zaque 7 (2) no. No capture.
# Grains: 29 + 10 + 61 = 100.
LAP_BEFORE = P([1, 1, 1, 1, 20, 1, 1, 1, 1, 1], [1] * 10, [30, 31])


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("skip, after", [
    (False, P([2, 2, 2, 2, 1, 2, 2, 2, 2, 2], [2] * 10, [30, 31], 1, 1)),
    (True, P([2, 2, 2, 3, 0, 2, 2, 2, 2, 2], [2] * 10, [30, 31], 1, 1)),
])
def test_r08_lap_sows_origin_unless_skipped(impl, side, skip, after):
    check_move(impl, side, LAP_BEFORE, "5cw", after, skip_origin_on_lap=skip)


# Lap ending at the own store: Zipa 1cw with h=21 (odd -> CCW; CW legal as 21 >= 2):
#   [own store skipped, 21 left], Zaque 10..1 (2->3, 11 left), [Zaque store skipped],
#   Zipa 10..2 (1->2, 2 left), then
#  - default: origin Zipa 1 (0->1, 1 left), own store takes the last grain (25->26): extra turn.
#  - skip_origin_on_lap: origin skipped, own store skipped (2 left, not the last), Zaque 10 (3->4),
#    Zaque 9 (3->4). Destination Zaque 9 (4): origin 4 vs 21 no; right neighbour Zaque 10 (4)
#    matches -> capture 4 (25->29).
# Grains: 30 + 20 + 50 = 100.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("skip, after", [
    (False, P([1, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3] * 10, [26, 25], 0, 1)),
    (True, P([0, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3] * 8 + [0, 4], [29, 25], 1, 1)),
])
def test_r08_lap_and_own_store(impl, side, skip, after):
    before = P([21] + [1] * 9, [2] * 10, [25, 25])
    check_move(impl, side, before, "1cw", after, skip_origin_on_lap=skip)


# Lap from pit 1 ending at the own store only because the origin is skipped: Zipa 1cw, h=20 (even
# -> CW): [own store skipped, 20 left], Zaque 10..1 (1->2, 10 left), [Zaque store skipped],
# Zipa 10..2 (1->2, 1 left), then
#  - default: the last grain falls in the origin Zipa 1 (0->1): origin 1 vs 20 no; front Zaque 10
#    (2) no. No capture, Zaque to move.
#  - skip_origin_on_lap: the origin is skipped and the next place, Zipa's own store, takes the last
#    grain (30->31): extra turn, no capture.
# Grains: 29 + 10 + 61 = 100.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("skip, after", [
    (False, P([1] + [2] * 9, [2] * 10, [30, 31], 1, 1)),
    (True, P([0] + [2] * 9, [2] * 10, [31, 31], 0, 1)),
])
def test_r08_lap_skipping_the_origin_ends_in_own_store(impl, side, skip, after):
    before = P([20] + [1] * 9, [1] * 10, [30, 31])
    check_move(impl, side, before, "1cw", after, skip_origin_on_lap=skip)


def test_r08_skip_origin_tiny_board(impl):
    # n=2, 8 grains. Zipa 1ccw with h=5: Zipa 2 (1->2), [Zaque store], Zaque 1 (1->2),
    # Zaque 2 (1->2), [own store skipped, 2 left], then
    #  - default: origin Zipa 1 (0->1), Zipa 2 (2->3). Destination own pit 2 (3): origin 3 vs 5
    #    no; front Zaque 1 (2) no.
    #  - skip: origin skipped, Zipa 2 (2->3), [Zaque store], Zaque 1 (2->3). Destination Zaque 1
    #    (3): front Zipa 2 (3) matches -> capture 3.
    before = P([5, 1], [1, 1], [0, 0])
    default = make_game(impl, pits_per_row=2, seeds_per_pit=2).state_from_dict(before)
    check_state(play(default, "1ccw"), P([1, 3], [2, 2], [0, 0], 1, 1))
    skip = make_game(impl, pits_per_row=2, seeds_per_pit=2, skip_origin_on_lap=True)
    check_state(play(skip.state_from_dict(before), "1ccw"), P([0, 3], [0, 2], [3, 0], 1, 1))


# The largest board of 10 pits (seeds_per_pit=3000, 60000 grains): Zipa 1ccw, h=3000 (even -> CW;
# CCW legal as 3000 >= 10). Every pit holds 3000, so all 20 actions are legal.
#  - default: each lap is Zipa 2..10, [Zaque store], Zaque 1..10, [Zipa store], Zipa 1 = 20 pits.
#    2999 = 149*20 + 19: grains 1..2999 give 150 to each of the 19 other pits and 149 to the
#    origin; grain 2999 falls in Zaque 10, so the last one reaches Zipa's store (0->1): extra turn.
#  - skip_origin_on_lap: a lap is the 19 other pits (the origin is skipped on every lap, and the
#    own store never meets the last grain). 3000 = 157*19 + 17: Zipa 2..10 and Zaque 1..8 get 158
#    (3158), Zaque 9, 10 get 157 (3157); the last grain falls in Zaque 8 (3158): origin 8 vs 0 no,
#    but its left neighbour Zaque 7 (3158) matches: 3158 captured, Zipa's store reaches 51 or more
#    and she wins at once (the board stays as it is).
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("skip, after, returns", [
    (False, P([149] + [3150] * 9, [3150] * 10, [1, 0], 0, 1), (0.0, 0.0)),
    (True, P([0] + [3158] * 9, [3158] * 7 + [0, 3157, 3157], [3158, 0], TERMINAL, 1), (1.0, -1.0)),
])
def test_r08_many_laps_on_the_largest_board(impl, side, skip, after, returns):
    before = P([3000] * 10, [3000] * 10, [0, 0])
    assert legal_from(impl, side, before, seeds_per_pit=3000) == list(range(20))
    check_move(impl, side, before, "1ccw", after, returns, seeds_per_pit=3000,
               skip_origin_on_lap=skip)


# Every row length n = 2..12 (5 grains a pit, 10n grains): Zipa's pits 1..n-1 hold 1, her pit n
# holds h = n+1, Zaque's pits hold 1, the stores the rest (7n split).
#  - Legal: pits 1..n-1 (h=1, odd -> CCW; CW needs 2 >= k+1): only kccw; pit n: CW by h >= n+1 and
#    CCW by h >= 1, both.
#  - Zipa nccw: [Zaque store skipped], Zaque 1..n (1->2), and the last grain reaches Zipa's store:
#    extra turn, no capture.
#  - Zipa ncw: Zipa n-1..1 (1->2), [own store skipped: 2 grains left], Zaque n (1->2), Zaque n-1
#    (1->2). Destination Zaque n-1 (2) matches its neighbour Zaque n (2): capture 2.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("n", range(2, 13))
def test_r07_r08_every_row_length(impl, side, n):
    before = filled([1] * (n - 1) + [n + 1], [1] * n, total=10 * n)
    zipa_store, zaque_store = before["stores"]
    expected = [2 * (k - 1) + 1 for k in range(1, n)] + [2 * n - 2, 2 * n - 1]
    assert legal_from(impl, side, before, pits_per_row=n) == expected
    check_move(impl, side, before, f"{n}ccw",
               P([1] * (n - 1) + [0], [2] * n, [zipa_store + 1, zaque_store], 0, 1), pits_per_row=n)
    check_move(impl, side, before, f"{n}cw",
               P([2] * (n - 1) + [0], [1] * (n - 2) + [0, 2], [zipa_store + 2, zaque_store], 1, 1),
               pits_per_row=n)


# --------------------------------------------------------------------------- 9: captures

# Zipa 9ccw, h=3: Zipa 10 (2->3), [Zaque store], Zaque 1 (4->5), Zaque 2 (q2 -> q2+1).
# Destination Zaque 2; neighbours Zaque 1 (5), Zaque 3 (7), front Zipa 9 (0): none ends in 3.
#   q2=2:  Zaque 2 holds 3 = h: origin match for "digit" and "exact" -> capture 3.
#   q2=12: Zaque 2 holds 13: last digit 3 = h's: capture 13 for "digit", nothing for "exact".
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("q2, match, captured", [(2, "digit", 3), (2, "exact", 3),
                                                 (12, "digit", 13), (12, "exact", 0)])
def test_r09_origin_destination_count_match(impl, side, q2, match, captured):
    zaque = [4, q2, 7, 1, 1, 1, 1, 1, 1, 1]
    before = filled([2] * 8 + [3, 2], zaque)  # q2=2: stores [29, 30]; q2=12: [24, 25]
    after_zaque = [5, 0 if captured else q2 + 1, 7, 1, 1, 1, 1, 1, 1, 1]
    after = P([2] * 8 + [0, 3], after_zaque,
              [before["stores"][0] + captured, before["stores"][1]], 1, 1)
    check_move(impl, side, before, "9ccw", after, match=match)


# Zipa 10cw, h=12 (even -> CW): Zipa 9..1 (0->1 each), [Zipa store: not the last grain], Zaque 10
# (5->6), Zaque 9 (5->6), Zaque 8 (1->2). Neighbours Zaque 7 (5), Zaque 9 (6), front Zipa 3 (1): no
# adjacent match. Origin match against h itself, 10 or more: 2 shares 12's last digit, so "digit"
# captures 2; "exact" compares 2 with 12 and captures nothing.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("match, captured", [("digit", 2), ("exact", 0)])
def test_r09_origin_match_with_a_harvest_of_ten_or_more(impl, side, match, captured):
    before = P([0] * 9 + [12], [5] * 7 + [1, 5, 5], [21, 21])
    after = P([1] * 9 + [0], [5] * 7 + [0 if captured else 2, 6, 6], [21 + captured, 21], 1, 1)
    check_move(impl, side, before, "10cw", after, match=match)


# Zipa 9ccw, h=10 (even -> CW; CCW legal as 10 >= 2): Zipa 10 (1->2), [Zaque store],
# Zaque 1..9 (+1). Destination Zaque 9 (5->6). Neighbours Zaque 8 (4), Zaque 10 (8), front Zipa 2
# (2): no adjacent match. Count origin match: 6 vs 10 no.
# Pit origin match: board numbers Zipa 9 -> 9, Zaque 9 -> 10+9 = 19: same last digit, a capture of 6
# under either match (match="exact" compares grain counts only, D5).
# Grains: 20 + 23 + 57 = 100.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("origin_match, match, captured", [
    ("count", "digit", 0), ("count", "exact", 0), ("pit", "digit", 6), ("pit", "exact", 6)])
def test_r09_origin_destination_pit_match(impl, side, origin_match, match, captured):
    before = P([1, 2, 1, 1, 1, 1, 1, 1, 10, 1], [1, 1, 1, 1, 1, 1, 1, 3, 5, 8], [28, 29])
    after = P([1, 2, 1, 1, 1, 1, 1, 1, 0, 2], [2, 2, 2, 2, 2, 2, 2, 4, 0 if captured else 6, 8],
              [28 + captured, 29], 1, 1)
    check_move(impl, side, before, "9ccw", after, origin_match=origin_match, match=match)


# Zipa 10ccw, h=3: [Zaque store], Zaque 1 (1->2), Zaque 2 (q2 -> q2+1), Zaque 3 (q3 -> q3+1).
# Destination Zaque 3; its neighbours: left/right Zaque 2 and Zaque 4, front Zipa 11-3 = 8.
ADJACENT_CASES = [
    # (q2, q3, q4, z8, match, captured)          dest  Zaque2 Zaque4 Zipa8
    (1, 5, 1, 1, "digit", 0),                  # 6     2      1      1     no match
    (5, 5, 1, 1, "digit", 6),                  # 6     6      1      1     Zaque 2 matches
    (1, 5, 6, 1, "digit", 6),                  # 6     2      6      1     Zaque 4 matches
    (1, 5, 1, 6, "digit", 6),                  # 6     2      1      6     front matches
    (1, 5, 16, 1, "digit", 6),                 # 6     2      16     1     last digit 6
    (1, 5, 16, 1, "exact", 0),                 # 6 != 16
    (1, 5, 1, 16, "digit", 6),                 # front 16, last digit 6
    (1, 5, 1, 16, "exact", 0),
    (1, 9, 1, 0, "digit", 10),                 # 10    2      1      0     last digits 0
    (1, 9, 1, 0, "exact", 0),                  # 10 != 0
    (5, 5, 1, 1, "exact", 6),                  # 6     6                   equal
]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("q2, q3, q4, z8, match, captured", ADJACENT_CASES)
def test_r09_adjacent_match_on_opponent_row(impl, side, q2, q3, q4, z8, match, captured):
    zipa = [1] * 7 + [z8, 1, 3]
    zaque = [1, q2, q3, q4, 1, 1, 1, 1, 1, 1]
    before = filled(zipa, zaque)
    after_zaque = [2, q2 + 1, 0 if captured else q3 + 1, q4, 1, 1, 1, 1, 1, 1]
    after = P([1] * 7 + [z8, 1, 0], after_zaque,
              [before["stores"][0] + captured, before["stores"][1]], 1, 1)
    check_move(impl, side, before, "10ccw", after, match=match)


# Last decimal digit, not "equal or ten apart": counts 20 apart. Zipa 10ccw, h=3: [Zaque store],
# Zaque 1 (1->2), Zaque 2 (1->2), Zaque 3 (q3 -> q3+1). Neighbours Zaque 2 (2), Zaque 4 (q4),
# front Zipa 8 (1). Zaque 5..10 hold 5, so the stores stay far from 51.
#   q3=22, q4=1:  destination 23 vs h=3 (origin match by digit) -> "digit" captures 23.
#   q3=5,  q4=26: destination 6 vs neighbour 26 (adjacent match by digit) -> "digit" captures 6.
# "exact" captures nothing in either case.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("q3, q4, match, captured", [(22, 1, "digit", 23), (22, 1, "exact", 0),
                                                     (5, 26, "digit", 6), (5, 26, "exact", 0)])
def test_r09_last_digit_match_for_counts_twenty_apart(impl, side, q3, q4, match, captured):
    zaque = [1, 1, q3, q4] + [5] * 6
    before = filled([1] * 9 + [3], zaque)
    after = P([1] * 9 + [0], [2, 2, 0 if captured else q3 + 1, q4] + [5] * 6,
              [before["stores"][0] + captured, before["stores"][1]], 1, 1)
    check_move(impl, side, before, "10ccw", after, match=match)


@pytest.mark.parametrize("side", SIDES)
def test_r09_adjacent_no_wrap_and_stores_are_not_pits_at_pit_1(impl, side):
    # Zipa 10ccw, h=1 -> Zaque 1 (3->4). Its only same-row neighbour is Zaque 2 (7); Zaque 10 (4)
    # is at the other end (no wrap) and Zaque's store (34) next to it is not a pit; front Zipa 10
    # is now 0; origin 4 vs 1. No capture. 19 + 21 + 60 = 100.
    before = P([2] * 9 + [1], [3, 7, 1, 1, 1, 1, 1, 1, 1, 4], [26, 34])
    after = P([2] * 9 + [0], [4, 7, 1, 1, 1, 1, 1, 1, 1, 4], [26, 34], 1, 1)
    check_move(impl, side, before, "10ccw", after)


@pytest.mark.parametrize("side", SIDES)
def test_r09_adjacent_no_wrap_and_stores_are_not_pits_at_pit_n(impl, side):
    # Zipa 10ccw, h=10 (even -> CW; CCW legal as 10 >= 1): Zaque 1..10 +1. Destination Zaque 10
    # (5->6). Its only same-row neighbour is Zaque 9 (3); Zaque 1 (6) is at the other end and
    # Zipa's store (26) next to it is not a pit; front Zipa 1 (1); origin 6 vs 10 no. No capture.
    # Grains: 27 + 19 + 54 = 100.
    before = P([1, 2, 2, 2, 2, 2, 2, 2, 2, 10], [5, 1, 1, 1, 1, 1, 1, 1, 2, 5], [26, 28])
    after = P([1, 2, 2, 2, 2, 2, 2, 2, 2, 0], [6, 2, 2, 2, 2, 2, 2, 2, 3, 6], [26, 28], 1, 1)
    check_move(impl, side, before, "10ccw", after)


# Zipa 2ccw, h=3: Zipa 3, 4, 5 +1. Destination own pit 5; only its front Zaque 11-5 = 6 counts
# (own-row neighbours Zipa 4 and 6 do not). A capture empties the front pit, not the destination.
OWN_ROW_CASES = [
    # (z5, q6, match, captured)
    (4, 2, "digit", 0),     # dest 5; Zipa 4 = 5 and Zipa 6 = 5 match but are own-row: ignored
    (4, 5, "digit", 5),     # dest 5, front 5 -> capture the front's 5
    (4, 15, "digit", 15),   # front 15, last digit 5 -> capture 15
    (4, 15, "exact", 0),
    (2, 7, "digit", 7),     # dest 3 = h: origin match -> capture the front's 7
    (2, 7, "exact", 7),
]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("z5, q6, match, captured", OWN_ROW_CASES)
def test_r09_own_row_destination_compares_with_front_only(impl, side, z5, q6, match, captured):
    zipa = [1, 3, 1, 4, z5, 5, 1, 1, 1, 1]
    zaque = [2] * 5 + [q6] + [2] * 4
    before = filled(zipa, zaque)
    after = P([1, 0, 2, 5, z5 + 1, 5, 1, 1, 1, 1], [2] * 5 + [0 if captured else q6] + [2] * 4,
              [before["stores"][0] + captured, before["stores"][1]], 1, 1)
    check_move(impl, side, before, "2ccw", after, match=match)


@pytest.mark.parametrize("side", SIDES)
def test_r09_at_most_one_capture(impl, side):
    # Zipa 10ccw, h=3: Zaque 1 (1->2), 2 (1->2), 3 (2->3). Destination Zaque 3 (3) matches h and
    # its neighbour Zaque 4 (3): one capture, of the destination only (3 grains); Zaque 4 stays.
    # 12 + 13 + 75 = 100.
    before = P([1] * 9 + [3], [1, 1, 2, 3, 1, 1, 1, 1, 1, 1], [37, 38])
    after = P([1] * 9 + [0], [2, 2, 0, 3, 1, 1, 1, 1, 1, 1], [40, 38], 1, 1)
    check_move(impl, side, before, "10ccw", after)


# --------------------------------------------------------------------------- 10-13: end of the game

# Zipa 9ccw, h=3: Zipa 10 (2->3), Zaque 1 (4->5), Zaque 2 (2->3 = h): capture 3. 21 + 20 + 59 = 100.
THRESHOLD_ZIPA = [2] * 8 + [3, 2]
THRESHOLD_ZAQUE = [4, 2, 7, 1, 1, 1, 1, 1, 1, 1]
THRESHOLD_AFTER_ZIPA = [2] * 8 + [0, 3]
THRESHOLD_AFTER_ZAQUE = [5, 0, 7, 1, 1, 1, 1, 1, 1, 1]


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("stores, params, after_stores, player, returns", [
    ([48, 11], {}, [51, 11], TERMINAL, (1.0, -1.0)),                    # 48+3 = 51 >= 51
    ([47, 12], {}, [50, 12], 1, (0.0, 0.0)),                           # 50 < 51: play on
    ([47, 12], {"win_threshold": 50}, [50, 12], TERMINAL, (1.0, -1.0)),  # 50 >= 50
    ([48, 11], {"win_threshold": 101}, [51, 11], 1, (0.0, 0.0)),         # never reached
])
def test_r10_store_reaching_threshold_wins_at_once(impl, side, stores, params, after_stores,
                                                   player, returns):
    before = P(THRESHOLD_ZIPA, THRESHOLD_ZAQUE, stores)
    after = P(THRESHOLD_AFTER_ZIPA, THRESHOLD_AFTER_ZAQUE, after_stores, player, 1)
    check_move(impl, side, before, "9ccw", after, returns, **params)


@pytest.mark.parametrize("side", SIDES)
def test_r11_mover_empties_opponent_row_and_takes_the_rest(impl, side):
    # Zipa 10ccw, h=1: Zaque 1 (9->10). Destination 10 vs Zaque 2 (0): last digits match ->
    # capture 10 (30->40 < 51). Zaque's row is empty: Zipa takes all 27 grains left on her own
    # row (40->67). 28 + 9 + 63 = 100.
    before = P([3] * 9 + [1], [9] + [0] * 9, [30, 33])
    after = P([0] * 10, [0] * 10, [67, 33], TERMINAL, 1)
    check_move(impl, side, before, "10ccw", after, (1.0, -1.0))


@pytest.mark.parametrize("side", SIDES)
def test_r11_no_capture_with_exact_match_so_no_empty_row(impl, side):
    # Same move with match="exact": 10 vs 0 (Zaque 2), 0 (front Zipa 10), h=1: no capture.
    before = P([3] * 9 + [1], [9] + [0] * 9, [30, 33])
    after = P([3] * 9 + [0], [10] + [0] * 9, [30, 33], 1, 1)
    check_move(impl, side, before, "10ccw", after, match="exact")


@pytest.mark.parametrize("side", SIDES)
def test_r11_mover_empties_own_row_and_takes_the_rest(impl, side):
    # Zipa's last grain: 10ccw, h=1 -> Zaque 1 (2->3): origin 3 vs 1, Zaque 2 (5), front Zipa 10
    # (0): no capture. Zipa's row is empty: Zipa, who just moved, takes the 48 grains on Zaque's
    # row (12->60) and wins 60-40. 1 + 47 + 52 = 100.
    before = P([0] * 9 + [1], [2] + [5] * 9, [12, 40])
    after = P([0] * 10, [0] * 10, [60, 40], TERMINAL, 1)
    check_move(impl, side, before, "10ccw", after, (1.0, -1.0))


# The r04 CCW move (Zipa 10ccw, h=13) ends with Zipa [2,2,2,1,1,1,1,1,1,0] (12), Zaque [3]*10
# (30), stores [29, 29]. At the ply limit each player adds their own row: 29+12 = 41, 29+30 = 59.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("params, ply", [({}, 999), ({"max_plies": 7}, 6)])
def test_r12_ply_limit_adds_own_rows(impl, side, params, ply):
    before = P([1] * 9 + [13], [2] * 10, [29, 29], 0, ply)
    after = P([0] * 10, [0] * 10, [41, 59], TERMINAL, ply + 1)
    check_move(impl, side, before, "10ccw", after, (-1.0, 1.0), **params)


@pytest.mark.parametrize("side", SIDES)
def test_r12_before_the_ply_limit_play_goes_on(impl, side):
    before = P([1] * 9 + [13], [2] * 10, [29, 29], 0, 5)
    after = P([2, 2, 2, 1, 1, 1, 1, 1, 1, 0], [3] * 10, [29, 29], 1, 6)
    check_move(impl, side, before, "10ccw", after, max_plies=7)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("params, ply", [({}, 999), ({"max_plies": 7}, 6)])
def test_r10_r12_threshold_is_checked_before_the_ply_limit(impl, side, params, ply):
    # The r10 capture (Zipa 9ccw, 48+3 = 51) on the last ply: the threshold win comes first, so
    # the board stays as it is (the ply limit would have added the rows: 51+19, 11+19).
    before = P(THRESHOLD_ZIPA, THRESHOLD_ZAQUE, [48, 11], 0, ply)
    after = P(THRESHOLD_AFTER_ZIPA, THRESHOLD_AFTER_ZAQUE, [51, 11], TERMINAL, ply + 1)
    check_move(impl, side, before, "9ccw", after, (1.0, -1.0), **params)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("params, ply", [({}, 999), ({"max_plies": 7}, 6)])
def test_r11_r12_empty_row_is_checked_before_the_ply_limit(impl, side, params, ply):
    # The r11 move emptying Zipa's own row (10ccw, h=1, no capture) on the last ply: the sweep
    # comes first, so Zipa takes Zaque's 48 grains (12->60) and wins 60-40 (the ply limit would
    # have given Zaque his own row: 12-88).
    before = P([0] * 9 + [1], [2] + [5] * 9, [12, 40], 0, ply)
    after = P([0] * 10, [0] * 10, [60, 40], TERMINAL, ply + 1)
    check_move(impl, side, before, "10ccw", after, (1.0, -1.0), **params)


@pytest.mark.parametrize("side", SIDES)
def test_r13_equal_stores_draw(impl, side):
    # The r08 move Zipa 10ccw, h=1 -> Zaque 1 (3->4), no capture, at ply 999: Zipa's row 18,
    # Zaque's row 26; stores 32+18 = 50 and 24+26 = 50: draw. 19 + 25 + 56 = 100.
    before = P([2] * 9 + [1], [3, 6, 2, 2, 2, 2, 2, 2, 2, 2], [32, 24], 0, 999)
    after = P([0] * 10, [0] * 10, [50, 50], TERMINAL, 1000)
    check_move(impl, side, before, "10ccw", after, (0.0, 0.0))


def test_r13_returns_zero_before_the_end(impl):
    state = make_game(impl).new_initial_state()
    assert floats(state.returns()) == [0.0, 0.0]


# The player who sweeps is not thereby the winner: the stores decide. Zipa 10ccw, h=1: [Zaque
# store], Zaque 1 (2->3): origin 3 vs 1, Zaque 2 (2), front Zipa 10 (0): no capture. Zipa's row is
# empty, so she takes the grains left on Zaque's row.
#   default: 29 + 21 = 50 vs 50: a draw (Zaque's store was one short of the threshold).
#   win_threshold=101: 10 + 20 = 30 vs 70: Zaque wins.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("zaque, stores, params, after_stores, returns", [
    ([2] * 10, [29, 50], {}, [50, 50], (0.0, 0.0)),
    ([2] * 9 + [1], [10, 70], {"win_threshold": 101}, [30, 70], (-1.0, 1.0)),
])
def test_r11_r13_sweep_does_not_decide_the_winner(impl, side, zaque, stores, params,
                                                  after_stores, returns):
    before = P([0] * 9 + [1], zaque, stores)
    after = P([0] * 10, [0] * 10, after_stores, TERMINAL, 1)
    check_move(impl, side, before, "10ccw", after, returns, **params)


# --------------------------------------------------------------------------- 14-16: conventions

@pytest.mark.parametrize("n", [2, 10, 12])
def test_r14_action_strings_round_trip(impl, n):
    state = make_game(impl, pits_per_row=n).new_initial_state()
    names = [f"{k}{d}" for k in range(1, n + 1) for d in ("cw", "ccw")]
    assert [state.action_to_string(a) for a in range(2 * n)] == names
    for action, name in enumerate(names):
        assert int(state.string_to_action(name)) == action
        assert int(state.string_to_action(name.upper())) == action
        assert int(state.string_to_action(" " + name.replace("c", " C", 1) + " ")) == action


@pytest.mark.parametrize("n", range(2, 13))
def test_board_text_fits_80_columns_for_every_row_length(n):
    """The engine's str(state) in whole random games (docs/protocol.md: lines of at most 80
    columns); 12 pits a row made the pit-number lines 86 columns wide."""
    if not _engine_available():
        pytest.skip("meeple._core is not built")
    game = make_game("engine", pits_per_row=n)
    for seed in range(3):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while True:
            assert max(map(len, str(state).splitlines())) <= 80, str(state)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))


def test_r14_action_encoding_and_lenient_parsing(impl):
    state = make_game(impl).new_initial_state()
    assert state.action_to_string(4) == "3cw"
    assert state.action_to_string(19) == "10ccw"
    assert int(state.string_to_action("3 CW")) == 4
    assert int(state.string_to_action("10CCW")) == 19
    assert int(state.string_to_action(" 10 ccw ")) == 19


@pytest.mark.parametrize("text", ["", "cw", "3", "0cw", "11cw", "3cx", "3ccww", "-1cw", "3 c w x",
                                  "cw3", "three cw", "3\u00a0cw", "\u20033cw", "\uff13cw"])
def test_r14_bad_action_strings(impl, text):
    state = make_game(impl).new_initial_state()
    with pytest.raises(ValueError):
        state.string_to_action(text)


@pytest.mark.parametrize("text, action", [("\t3\ncw", 4), ("3\r\fCCW", 5), ("\v10ccw\n", 19),
                                          ("1\t0 Cw", 18)])
def test_r14_every_ascii_white_space_is_ignored(impl, text, action):
    assert int(make_game(impl).new_initial_state().string_to_action(text)) == action


@pytest.mark.parametrize("text", ["+3cw", "03cw", "0 3cw", "010ccw", "+10ccw", "00cw"])
def test_r14_sign_and_leading_zero_refused(impl, text):
    state = make_game(impl).new_initial_state()
    with pytest.raises(ValueError):
        state.string_to_action(text)


def test_r15_observation(impl):
    game = make_game(impl)
    assert tuple(game.observation_shape()) == (22,)
    # 20 + 55 + 25 = 100, Zaque to move.
    zipa, zaque = [2] * 10, list(range(1, 11))
    state = game.state_from_dict(P(zipa, zaque, [12, 13], 1, 3))
    zipa_view = zipa + zaque + [12, 13]
    zaque_view = zaque + zipa + [13, 12]
    assert floats(state.observation_tensor()) == zaque_view  # default: player to move
    assert floats(state.observation_tensor(1)) == zaque_view
    assert floats(state.observation_tensor(0)) == zipa_view
    assert len(state.observation_tensor()) == 22
    terminal = game.state_from_dict(P([0] * 10, [0] * 10, [41, 59], TERMINAL, 1000))
    assert floats(terminal.observation_tensor()) == [0.0] * 20 + [41.0, 59.0]  # player 0's view
    assert floats(terminal.observation_tensor(1)) == [0.0] * 20 + [59.0, 41.0]


def test_r15_observation_shape_follows_n(impl):
    state = make_game(impl, pits_per_row=4, seeds_per_pit=3).new_initial_state()
    assert floats(state.observation_tensor()) == [3.0] * 8 + [0.0, 0.0]


def test_r16_players_terminal_and_no_chance(impl):
    game = make_game(impl)
    assert game.num_players() == 2
    assert game.max_chance_outcomes() == 0
    state = game.new_initial_state()
    assert not state.is_chance_node()
    assert list(state.chance_outcomes()) == []
    terminal = game.state_from_dict(P([0] * 10, [0] * 10, [41, 59], TERMINAL, 1000))
    assert terminal.current_player() == TERMINAL
    assert terminal.is_terminal()
    assert ints(terminal.legal_actions()) == []
    assert ints(terminal.legal_actions_mask()) == [0] * 20
    assert floats(terminal.returns()) == [-1.0, 1.0]
    with pytest.raises(ValueError):
        terminal.apply_action(0)


# --------------------------------------------------------------------------- 17: parameters

def test_r17_game_description(impl):
    game = make_game(impl)
    assert game.name == "abacuachego"
    assert dict(game.parameters()) == DEFAULTS
    assert game.num_distinct_actions() == 20
    assert tuple(game.observation_shape()) == (22,)
    assert game.max_game_length() == 1000
    small = make_game(impl, pits_per_row=7, max_plies=300)
    assert small.num_distinct_actions() == 14
    assert tuple(small.observation_shape()) == (16,)
    assert small.max_game_length() == 300


@pytest.mark.parametrize("params", [
    {"pits_per_row": 2}, {"pits_per_row": 12}, {"seeds_per_pit": 1}, {"seeds_per_pit": 3000},
    {"pits_per_row": 12, "seeds_per_pit": 2500}, {"win_threshold": 1}, {"win_threshold": 1000},
    {"max_plies": 1}, {"max_plies": 65535}, {"parity": "pit"}, {"origin_match": "pit"},
    {"match": "exact"}, {"skip_origin_on_lap": True},
    {"parity": "pit", "origin_match": "pit", "match": "exact", "skip_origin_on_lap": True},
])
def test_r17_valid_parameters(impl, params):
    assert dict(make_game(impl, **params).parameters()) == dict(DEFAULTS, **params)


def test_r17_unknown_parameter_names_the_valid_ones(impl):
    with pytest.raises(ValueError) as info:
        make_game(impl, pits=5)
    message = str(info.value)
    assert "pits" in message
    for name in DEFAULTS:
        assert name in message


@pytest.mark.parametrize("name, value, words", [
    ("pits_per_row", 1, ["2", "12"]),
    ("pits_per_row", 13, ["2", "12"]),
    ("seeds_per_pit", 0, ["1"]),
    ("seeds_per_pit", 3001, ["60000"]),                  # 2*10*3001 = 60020
    ("win_threshold", 0, ["1"]),
    ("win_threshold", 60001, ["1", "60000"]),            # no board holds more grains
    ("max_plies", 0, ["1", "65535"]),
    ("max_plies", 65536, ["1", "65535"]),
    ("parity", "even", ["count", "pit"]),
    ("origin_match", "digit", ["count", "pit"]),
    ("match", "Digit", ["digit", "exact"]),
])
def test_r17_bad_values_name_the_valid_range(impl, name, value, words):
    with pytest.raises(ValueError) as info:
        make_game(impl, **{name: value})
    message = str(info.value)
    assert name in message
    for word in words:
        assert word in message


def test_r17_seeds_limit_depends_on_pits(impl):
    with pytest.raises(ValueError):
        make_game(impl, pits_per_row=12, seeds_per_pit=2501)   # 2*12*2501 = 60024
    make_game(impl, pits_per_row=12, seeds_per_pit=2500)


def test_r17_engine_names_the_largest_seeds_per_pit_for_the_pits():
    if not _engine_available():
        pytest.skip("meeple._core is not built")
    import meeple

    for pits, largest in ((10, 3000), (2, 15000), (12, 2500)):
        meeple.load("abacuachego", pits_per_row=pits, seeds_per_pit=largest)
        with pytest.raises(ValueError, match=f"seeds_per_pit.*\\b{largest}\\b"):
            meeple.load("abacuachego", pits_per_row=pits, seeds_per_pit=largest + 1)
    listed = meeple._registry.game_spec("abacuachego").params[1]
    assert (listed.name, listed.high) == ("seeds_per_pit", 15000)  # 2 pits: the most any board takes


@pytest.mark.parametrize("name, value", [
    ("skip_origin_on_lap", 1), ("skip_origin_on_lap", 0), ("skip_origin_on_lap", None),
    ("skip_origin_on_lap", "maybe"), ("pits_per_row", 10.0), ("pits_per_row", "ten"),
    ("seeds_per_pit", 5.5), ("parity", 1), ("match", None),
])
def test_r17_wrong_types_rejected(impl, name, value):
    with pytest.raises((TypeError, ValueError)):
        make_game(impl, **{name: value})


@pytest.mark.parametrize("name, value", [("skip_origin_on_lap", "true"), ("pits_per_row", "10")])
def test_r17_reference_rejects_text_for_bool_and_int(name, value):
    # Reference only: the engine's meeple.load deliberately parses text ("10", "true", "yes").
    with pytest.raises((TypeError, ValueError)):
        make_game("reference", **{name: value})


# --------------------------------------------------------------------------- decisions D1-D6

@pytest.mark.parametrize("params", [{}, {"parity": "pit", "skip_origin_on_lap": True},
                                    {"origin_match": "pit", "match": "exact"},
                                    {"pits_per_row": 3, "seeds_per_pit": 2, "max_plies": 50}])
def test_d1_player_to_move_always_has_a_legal_move(impl, params):
    # Random games: a state that is not over always has a legal move, the mask agrees with the
    # list, grains are conserved, and the game ends with returns summing to 0.
    game = make_game(impl, **params)
    total = 2 * game.parameters()["pits_per_row"] * game.parameters()["seeds_per_pit"]
    rng = random.Random(12345)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = ints(state.legal_actions())
            assert legal == sorted(legal) and legal
            mask = ints(state.legal_actions_mask())
            assert [a for a, bit in enumerate(mask) if bit] == legal
            state.apply_action(rng.choice(legal))
            d = state.to_dict()
            assert sum(map(sum, d["pits"])) + sum(d["stores"]) == total
        assert sum(floats(state.returns())) == 0.0
        assert state.move_number() <= game.max_game_length()


def test_d1_position_with_an_empty_row_cannot_be_to_move(impl):
    game = make_game(impl)
    with pytest.raises(ValueError):
        game.state_from_dict(P([0] * 10, [5] * 10, [25, 25]))


@pytest.mark.parametrize("side", SIDES)
def test_d2_extra_turn_move_reaching_threshold_ends_the_game(impl, side):
    # Zipa 4cw, h=4: Zipa 3, 2, 1 (+1), last grain in Zipa's store 50->51: game over, no extra
    # turn. 13 + 30 + 57 = 100.
    before = P([1, 1, 1, 4, 1, 1, 1, 1, 1, 1], [3] * 10, [50, 7])
    after = P([2, 2, 2, 0, 1, 1, 1, 1, 1, 1], [3] * 10, [51, 7], TERMINAL, 1)
    check_move(impl, side, before, "4cw", after, (1.0, -1.0))


@pytest.mark.parametrize("side", SIDES)
def test_d2_extra_turn_move_emptying_own_row_ends_the_game(impl, side):
    # Zipa 10ccw, h=11: Zaque 1..10 (3->4), last grain in Zipa's store (20->21): an extra turn,
    # but Zipa's row is now empty, so Zipa takes the 40 grains on Zaque's row (21->61).
    # 11 + 30 + 59 = 100.
    before = P([0] * 9 + [11], [3] * 10, [20, 39])
    after = P([0] * 10, [0] * 10, [61, 39], TERMINAL, 1)
    check_move(impl, side, before, "10ccw", after, (1.0, -1.0))


@pytest.mark.parametrize("side", SIDES)
def test_d3_extra_turn_counts_as_a_ply(impl, side):
    # The r08 store move (Zipa 4cw, h=4) at ply 5: Zipa moves again, at ply 6.
    before = P([1, 1, 1, 4, 1, 1, 1, 1, 1, 1], [5] * 9 + [2], [17, 23], 0, 5)
    after = P([2, 2, 2, 0, 1, 1, 1, 1, 1, 1], [5] * 9 + [2], [18, 23], 0, 6)
    check_move(impl, side, before, "4cw", after)


@pytest.mark.parametrize("side", SIDES)
def test_d3_extra_turn_at_the_ply_limit_ends_the_game(impl, side):
    # Same move at ply 999: ply 1000 = max_plies, so the game ends despite the extra turn.
    # Zipa 18 + row 12 = 30; Zaque 23 + row 47 = 70.
    before = P([1, 1, 1, 4, 1, 1, 1, 1, 1, 1], [5] * 9 + [2], [17, 23], 0, 999)
    after = P([0] * 10, [0] * 10, [30, 70], TERMINAL, 1000)
    check_move(impl, side, before, "4cw", after, (-1.0, 1.0))


@pytest.mark.parametrize("side", SIDES)
def test_d4_threshold_win_ends_before_the_sweep(impl, side):
    # As r11: Zipa 10ccw captures 10 from Zaque 1, emptying Zaque's row; but Zipa's store is now
    # 41+10 = 51: she wins at once and her 27 grains stay on the board. 28 + 9 + 63 = 100.
    before = P([3] * 9 + [1], [9] + [0] * 9, [41, 22])
    after = P([3] * 9 + [0], [0] * 10, [51, 22], TERMINAL, 1)
    check_move(impl, side, before, "10ccw", after, (1.0, -1.0))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("params, captured", [
    ({"origin_match": "pit", "match": "exact"}, 2),
    ({"origin_match": "pit", "match": "digit"}, 2),
    ({"origin_match": "count", "match": "exact"}, 0),
    ({"origin_match": "pit", "match": "exact", "skip_origin_on_lap": True}, None),
])
def test_d5_pit_exact_origin_match_on_a_lap(impl, side, params, captured):
    # The r08 lap: Zipa 5cw, h=20, last grain back in the origin Zipa 5 (0->1), front Zaque 6
    # (1->2). Board numbers 5 = 5: pit origin match (even exact) -> capture the front's 2.
    # Count origin match: 1 vs 20, no. With skip_origin_on_lap the lap ends in Zipa 4 (3):
    # board 4 vs 5, front Zaque 7 (2): no capture.
    if captured is None:
        after = P([2, 2, 2, 3, 0, 2, 2, 2, 2, 2], [2] * 10, [30, 31], 1, 1)
    else:
        after = P([2, 2, 2, 2, 1, 2, 2, 2, 2, 2], [2] * 5 + [2 - captured] + [2] * 4,
                  [30 + captured, 31], 1, 1)
    check_move(impl, side, LAP_BEFORE, "5cw", after, **params)


# Zipa 3ccw, h=10 (even -> CW; CCW legal as 10 >= 11-3): Zipa 4..10 (+1), [Zaque store], Zaque 1..3
# (+1). Destination Zaque 3 (8->9): no count match with h=10; neighbours Zaque 2 (3->4), Zaque 4 (1)
# and front Zipa 8 (1->2): no adjacent match. Board numbers: origin Zipa 3 -> 3, destination
# Zaque 3 -> 13, same last digit: the pit origin match captures Zaque 3's 9, under either match
# (D5: match="exact" compares grain counts, not pit numbers). Grains: 16 + 14 + 70 = 100.
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("match", ["digit", "exact"])
def test_d5_pit_numbers_compare_by_last_digit_under_exact(impl, side, match):
    before = P([1, 1, 10, 1, 1, 1, 1, 1, 1, 1], [2, 3, 8, 1, 1, 1, 1, 1, 1, 1], [30, 31])
    after = P([1, 1, 0, 2, 2, 2, 2, 2, 2, 2], [3, 4, 0, 1, 1, 1, 1, 1, 1, 1], [39, 31], 1, 1)
    check_move(impl, side, before, "3ccw", after, origin_match="pit", match=match)


# --------------------------------------------------------------------------- tiny games to the end

def test_tiny_game_n2_one_seed(impl):
    # n=2, 4 grains. CCW ring: Zipa 1, Zipa 2, [Zaque store], Zaque 1, Zaque 2, [Zipa store].
    state = make_game(impl, pits_per_row=2, seeds_per_pit=1).new_initial_state()
    # Both pits hold 1 (odd -> CCW); CW would need h >= k+1: only 1ccw (1), 2ccw (3).
    assert ints(state.legal_actions()) == [1, 3]
    # Zipa 1ccw: Zipa 2 (1->2). Own destination 2 vs h=1, front Zaque 2+1-2 = 1 (1): no capture.
    check_state(play(state, "1ccw"), P([0, 2], [1, 1], [0, 0], 1, 1))
    assert ints(state.legal_actions()) == [1, 3]
    # Zaque 2ccw: [Zipa store skipped], Zipa 1 (0->1) = h: capture 1 into Zaque's store.
    check_state(play(state, "2ccw"), P([0, 2], [1, 0], [0, 1], 0, 2))
    # Zipa 2 holds 2 (even -> CW = 2); CCW 2 >= 2+1-2 = 1 also legal (3).
    assert ints(state.legal_actions()) == [2, 3]
    # Zipa 2cw: Zipa 1 (0->1), last grain into Zipa's store (0->1): extra turn.
    check_state(play(state, "2cw"), P([1, 0], [1, 0], [1, 1], 0, 3))
    assert ints(state.legal_actions()) == [1]
    # Zipa 1ccw: Zipa 2 (0->1) = h and = front Zaque 1 (1): capture the front's 1 (1->2).
    # Zaque's row is empty: Zipa takes the 1 grain left on Zipa 2 (2->3). Zipa wins 3-1.
    check_state(play(state, "1ccw"), P([0, 0], [0, 0], [3, 1], TERMINAL, 4), (1.0, -1.0))


def test_tiny_game_n2_two_seeds(impl):
    state = make_game(impl, pits_per_row=2, seeds_per_pit=2).new_initial_state()
    # Both pits hold 2 (even -> CW); CCW from pit 1 needs 2 >= 2, from pit 2 needs 2 >= 1.
    assert ints(state.legal_actions()) == [0, 1, 2, 3]
    # Zipa 1cw: [own store skipped, 2 left], Zaque 2 (2->3), Zaque 1 (2->3). Destination Zaque 1
    # (3) = its neighbour Zaque 2 (3): capture 3.
    check_state(play(state, "1cw"), P([0, 2], [0, 3], [3, 0], 1, 1))
    # Zaque 2 holds 3 (odd -> CCW = 3); CW 3 >= 2+1 also legal (2).
    assert ints(state.legal_actions()) == [2, 3]
    # Zaque 2cw: Zaque 1 (0->1), [Zaque store skipped, 2 left], Zipa 2 (2->3), Zipa 1 (0->1).
    # Destination Zipa 1 (1): h=3, Zipa 2 (3), front Zaque 2 (0): no capture.
    check_state(play(state, "2cw"), P([1, 3], [1, 0], [3, 0], 0, 2))
    # Zipa 1: h=1 -> CCW (1). Zipa 2: h=3 -> CCW (3), CW 3 >= 3 (2).
    assert ints(state.legal_actions()) == [1, 2, 3]
    # Zipa 2ccw: [Zaque store], Zaque 1 (1->2), Zaque 2 (0->1), last grain in Zipa's store (3->4).
    check_state(play(state, "2ccw"), P([1, 0], [2, 1], [4, 0], 0, 3))
    # Zipa 1ccw: Zipa 2 (0->1) = h: own destination, capture its front Zaque 1 (2): 4->6.
    check_state(play(state, "1ccw"), P([0, 1], [0, 1], [6, 0], 1, 4))
    assert ints(state.legal_actions()) == [3]
    # Zaque 2ccw: [Zipa store], Zipa 1 (0->1) = h: capture 1 (0->1). Zaque's row is empty:
    # Zaque takes Zipa 2's 1 grain (1->2). Zipa wins 6-2.
    check_state(play(state, "2ccw"), P([0, 0], [0, 0], [6, 2], TERMINAL, 5), (1.0, -1.0))


def test_tiny_game_ply_limit_draw(impl):
    # The first three moves of test_tiny_game_n2_one_seed with max_plies=3: after Zipa's store
    # move (ply 3) the limit ends the game despite the extra turn; rows go to their owners:
    # Zipa 1+1 = 2, Zaque 1+1 = 2: draw.
    state = make_game(impl, pits_per_row=2, seeds_per_pit=1, max_plies=3).new_initial_state()
    play(state, "1ccw", "2ccw", "2cw")
    check_state(state, P([0, 0], [0, 0], [2, 2], TERMINAL, 3), (0.0, 0.0))


def test_tiny_game_all_variants(impl):
    # n=2, 1 seed, parity=pit, origin_match=pit (board numbers Zipa 1,2 / Zaque 3,4),
    # match=exact, skip_origin_on_lap (never used here: no lap).
    game = make_game(impl, pits_per_row=2, seeds_per_pit=1, parity="pit", origin_match="pit",
                     match="exact", skip_origin_on_lap=True)
    state = game.new_initial_state()
    # Pit 1 odd -> CCW (1), CW needs 2. Pit 2 even -> CW (2), CCW needs 1 (3).
    assert ints(state.legal_actions()) == [1, 2, 3]
    # Zipa 2cw: Zipa 1 (1->2). Board 1 vs 2; front Zaque 2 (1) vs 2: no capture.
    check_state(play(state, "2cw"), P([2, 0], [1, 1], [0, 0], 1, 1))
    assert ints(state.legal_actions()) == [1, 2, 3]
    # Zaque 2ccw: [Zipa store], Zipa 1 (2->3). Board 1 vs 4; Zipa 2 (0), front Zaque 2 (0): none.
    check_state(play(state, "2ccw"), P([3, 0], [1, 0], [0, 0], 0, 2))
    # Zipa 1 holds 3: pit 1 odd -> CCW (1); CW 3 >= 2 (0).
    assert ints(state.legal_actions()) == [0, 1]
    # Zipa 1cw: [own store skipped], Zaque 2 (0->1), Zaque 1 (1->2), [Zaque store], Zipa 2 (0->1).
    # Own destination Zipa 2 (1): board 2 vs 1; front Zaque 1 (2): no capture.
    check_state(play(state, "1cw"), P([0, 1], [2, 1], [0, 0], 1, 3))
    # Zaque 1 (2): pit odd -> CCW (1), CW 2 >= 2 (0). Zaque 2 (1): even -> CW (2), CCW 1 >= 1 (3).
    assert ints(state.legal_actions()) == [0, 1, 2, 3]
    # Zaque 1ccw: Zaque 2 (1->2), [Zipa store], Zipa 1 (0->1). Destination Zipa 1 (1) equals its
    # neighbour Zipa 2 (1): capture 1 into Zaque's store.
    check_state(play(state, "1ccw"), P([0, 1], [0, 2], [0, 1], 0, 4))
    assert ints(state.legal_actions()) == [2, 3]
    # Zipa 2ccw: [Zaque store], Zaque 1 (0->1). Board 2 vs 3; Zaque 2 (2), front Zipa 2 (0): no
    # capture. Zipa's row is empty: Zipa takes 1+2 = 3. Zipa wins 3-1.
    check_state(play(state, "2ccw"), P([0, 0], [0, 0], [3, 1], TERMINAL, 5), (1.0, -1.0))


# --------------------------------------------------------------------------- protocol details

def test_illegal_actions_leave_the_state_unchanged(impl):
    state = make_game(impl).new_initial_state()
    play(state, "1ccw")  # Zaque to move, position of test_r02
    before = plain(state.to_dict())
    legal = ints(state.legal_actions())
    assert 8 not in legal  # 5cw: h=5 odd -> CCW, CW needs 6
    for action in [8, 20, -1, 10**6]:
        with pytest.raises(ValueError) as info:
            state.apply_action(action)
        for a in legal:
            assert re.search(rf"\b{a}\b", str(info.value)), (a, str(info.value))
        assert plain(state.to_dict()) == before
        assert state.move_number() == 1
    for action in [True, False, 1.0, "1ccw", None]:  # bool is not an action (True == 1 is legal)
        with pytest.raises((TypeError, ValueError)):  # reference: ValueError; engine: TypeError
            state.apply_action(action)
        assert plain(state.to_dict()) == before


def test_empty_pit_is_not_an_action(impl):
    state = make_game(impl).state_from_dict(PARITY_POSITION)
    for action in (0, 1, 2, 3):  # pits 1 and 2 are empty
        with pytest.raises(ValueError):
            state.apply_action(action)
    assert plain(state.to_dict()) == PARITY_POSITION


def test_clone_is_independent(impl):
    state = make_game(impl).new_initial_state()
    copy = state.clone()
    play(copy, "1ccw")
    check_state(state, P([5] * 10, [5] * 10, [0, 0], 0, 0))
    assert plain(copy.to_dict()) == P([0, 6, 6, 6, 6, 6, 5, 5, 5, 5], [5] * 10, [0, 0], 1, 1)


def test_pickle_round_trip(impl):
    state = play(make_game(impl, parity="pit").new_initial_state(), "1ccw")
    again = pickle.loads(pickle.dumps(state))
    assert plain(again.to_dict()) == plain(state.to_dict())
    assert dict(again.game.parameters())["parity"] == "pit"


def test_dict_round_trip_along_a_game(impl):
    game = make_game(impl)
    state = game.new_initial_state()
    rng = random.Random(7)
    while not state.is_terminal():
        copy = game.state_from_dict(state.to_dict())
        assert plain(copy.to_dict()) == plain(state.to_dict())
        action = rng.choice(ints(state.legal_actions()))
        state.apply_action(action)
        copy.apply_action(action)
        assert plain(copy.to_dict()) == plain(state.to_dict())
    assert game.state_from_dict(state.to_dict()).is_terminal()


GOOD = P([5] * 10, [5] * 10, [0, 0], 0, 0)


def _with(**changes):
    d = {"pits": [list(r) for r in GOOD["pits"]], "stores": list(GOOD["stores"]),
         "current_player": 0, "ply": 0}
    d.update(changes)
    return d


@pytest.mark.parametrize("bad, words", [
    (_with(pits=[[5] * 10]), "pits"),
    (_with(pits=[[5] * 9, [5] * 11]), "pits"),
    (_with(pits=[[-1, 6] + [5] * 8, [5] * 10]), "pits|negative|>= 0"),
    (_with(pits=[["5"] * 10, [5] * 10]), "pits"),
    (_with(pits=[[5.5, 4.5] + [5] * 8, [5] * 10]), "pits"),
    (_with(stores=[0]), "stores"),
    (_with(stores=[0, -1], pits=[[5] * 10, [6] + [5] * 9]), "stores|negative|>= 0"),
    (_with(stores=[1, 0]), "grain|total|sum|100"),
    (_with(pits=[[4] + [5] * 9, [5] * 10]), "grain|total|sum|100"),
    (_with(current_player=2), "current_player|player"),
    (_with(current_player=-1), "current_player|player"),
    (_with(ply=-1), "ply"),
    (_with(ply=1001), "ply"),
    (_with(ply=1000), "ply|max_plies"),
    (P([3] * 10, [2] * 9 + [1], [51, 0]), "threshold|store|51"),
    (P([3] * 10, [2] * 9 + [1], [0, 51]), "threshold|store|51"),
    (P([0] * 10, [5] * 10, [25, 25]), "row|empty"),
    (P([5] * 10, [0] * 10, [25, 25], 1), "row|empty"),
])
def test_state_from_dict_validation(impl, bad, words):
    game = make_game(impl)
    with pytest.raises(ValueError, match=f"(?i){words}"):
        game.state_from_dict(bad)


_EXTRA_KEY = dict(GOOD, rng=0)
_MISSING_PLY = {key: value for key, value in GOOD.items() if key != "ply"}


@pytest.mark.parametrize("bad, words", [
    (P([5] * 10, [0] * 10, [25, 25], 0), "row|empty"),         # the opponent's row, not the mover's
    (P([0] * 10, [5] * 10, [25, 25], 1), "row|empty"),
    (P([5] * 10, [5] * 10, [0, 0], TERMINAL, 5), "win_threshold"),     # over, grains left, no win
    (P([5] * 10, [5] * 10, [0, 0], TERMINAL, 1000), "win_threshold"),  # ply limit sweeps the rows
    (P([3] * 10, [2] * 10, [50, 0], TERMINAL, 7), "win_threshold"),    # 50 < 51
    (_EXTRA_KEY, "rng"),
    (_MISSING_PLY, "ply"),
])
def test_state_from_dict_validation_of_rows_end_and_keys(impl, bad, words):
    with pytest.raises(ValueError, match=f"(?i){words}"):
        make_game(impl).state_from_dict(bad)


# The checks follow the game's parameters: (params, dict, None if accepted else words of the error).
@pytest.mark.parametrize("params, d, words", [
    ({"win_threshold": 60}, P([3] * 10, [2] * 10, [50, 0]), None),          # 50 < 60: play on
    ({"win_threshold": 50}, P([3] * 10, [2] * 10, [50, 0]), "threshold"),
    ({"win_threshold": 50}, P([3] * 10, [2] * 10, [50, 0], TERMINAL, 7), None),  # won at 50
    ({"max_plies": 7}, P([5] * 10, [5] * 10, [0, 0], 0, 6), None),
    ({"max_plies": 7}, P([5] * 10, [5] * 10, [0, 0], 0, 7), "ply|max_plies"),
    ({"max_plies": 7}, P([5] * 10, [5] * 10, [0, 0], 0, 8), "ply|max_plies"),
    ({"max_plies": 7}, P([0] * 10, [0] * 10, [50, 50], TERMINAL, 7), None),
    ({"seeds_per_pit": 6}, P([6] * 10, [6] * 10, [0, 0]), None),
    ({"seeds_per_pit": 6}, P([5] * 10, [5] * 10, [0, 0]), "grain|total|120"),
    ({"pits_per_row": 4}, P([5] * 4, [5] * 4, [0, 0]), None),
    ({"pits_per_row": 4}, P([2] * 10, [2] * 10, [0, 0]), "pits"),
])
def test_state_from_dict_validation_follows_the_parameters(impl, params, d, words):
    game = make_game(impl, **params)
    if words is None:
        assert plain(game.state_from_dict(d).to_dict()) == d
    else:
        with pytest.raises(ValueError, match=f"(?i){words}"):
            game.state_from_dict(d)


def test_state_from_dict_accepts_valid_positions(impl):
    game = make_game(impl)
    for d in (GOOD, P([0] * 10, [0] * 10, [50, 50], TERMINAL, 1000),
              P([3] * 9 + [0], [0] * 10, [51, 22], TERMINAL, 1),
              P([1] * 9 + [13], [2] * 10, [29, 29], 1, 999)):
        assert plain(game.state_from_dict(d).to_dict()) == d


def test_numpy_integer_actions_are_accepted(impl):
    np = pytest.importorskip("numpy")
    state = make_game(impl).new_initial_state()
    state.apply_action(np.int32(1))
    state.apply_action(np.int64(1))
    assert plain(state.to_dict())["ply"] == 2


def test_reference_board_picture():
    # Reference only (the engine's picture may differ): Zaque's row is drawn right to left.
    game = make_game("reference")
    state = game.state_from_dict(P([2] * 10, list(range(1, 11)), [12, 13], 1, 3))
    lines = str(state).splitlines()
    numbers = [[int(x) for x in re.findall(r"\[\s*(\d+)\]", line)] for line in lines]
    assert numbers[1] == list(range(10, 0, -1))          # north: Zaque 10 .. 1 (west to east)
    assert numbers[2] == [12, 13]                         # Zipa's store west, Zaque's east
    assert numbers[3] == [2] * 10                         # south: Zipa 1 .. 10
    assert "Zaque to move" in str(state)
    assert [int(x) for x in lines[0].split()[:10]] == list(range(10, 0, -1))


# D6: origin_match="pit" numbers the origin on the board count too (1..2n from Zipa's pit 1 CCW),
# which differs from its own number 1..n when n != 10. n = 12, 120 grains.
# Zaque 3cw, h=12: Zaque 2, 1 (+1), [Zaque's store], Zipa 12..3 (+1). Destination Zipa 3 (3->4,
# board number 3); origin Zaque 3 is board number 15: no match (its own number, 3, would be).
# Neighbours Zipa 2 (2->3), Zipa 4 (4->5), front Zaque 10 (1): no adjacent match either.
# Zipa 5ccw, h=10 (CCW legal: reaches Zaque's row): Zipa 6..12 (+1), [Zaque's store], Zaque 1, 2,
# 3 (+1). Destination Zaque 3 (7->8, board number 15) matches origin Zipa 5 (own 5, its own
# number 3 would not); neighbours Zaque 2 (6), Zaque 4 (1), front Zipa 10 (2) do not: 8 captured.
@pytest.mark.parametrize("before, action, after", [
    (P([1, 2, 3, 4] + [1] * 8, [1, 1, 12] + [1] * 9, [40, 39], 1),
     "3cw", P([1, 2, 4, 5] + [2] * 8, [2, 2, 0] + [1] * 9, [40, 39], 0, 1)),
    (P([1] * 4 + [10] + [1] * 7, [3, 5, 7] + [1] * 9, [40, 35]),
     "5ccw", P([1] * 4 + [0] + [2] * 7, [4, 6, 0] + [1] * 9, [48, 35], 1, 1)),
])
def test_d6_pit_origin_match_numbers_both_pits_around_the_board(impl, before, action, after):
    check_move(impl, "zipa", before, action, after, pits_per_row=12, origin_match="pit")
