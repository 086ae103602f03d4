"""Harmonies: rule tests, one group per numbered point and decision of docs/rules/harmonies.md.

(a) every final board of bga_final_boards.json scores its official score with the reference scorer;
(b) rule tests from hand-built positions (`state_from_dict`, or explicit chance), run on both
    implementations: the pure-Python reference (meeple.reference) and the C++ engine (meeple.load);
    the engine runs are skipped while "harmonies" is not in meeple.list_games();
(c) invariants over random games of the reference alone.

Geometry used in the hand computations (side A, odd-q, flat-topped hexes; odd columns shifted down):
  columns 0..4 hold 5,4,5,4,5 cells. Neighbours of an even column cell (c,r):
  (c,r-1) (c+1,r-1) (c+1,r) (c,r+1) (c-1,r) (c-1,r-1); of an odd column cell:
  (c,r-1) (c+1,r) (c+1,r+1) (c,r+1) (c-1,r+1) (c-1,r). E.g. the ring around 2,2 is, clockwise from
  north: 2,1  3,1  3,2  2,3  1,2  1,1.
"""
import importlib.util
import json
import math
import pathlib
import pickle
import random
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "python/meeple/data/harmonies"
IMPLS = ["reference", "engine"]
CHANCE, TERMINAL = -1, -4
COLOURS = ("blue", "gray", "brown", "green", "yellow", "red")
POUCH = {"blue": 23, "gray": 23, "brown": 21, "green": 19, "yellow": 19, "red": 15}
COLUMNS = {"A": (5, 4, 5, 4, 5), "B": (4, 3, 4, 3, 4, 3, 4)}
CELLS = {side: [f"{c},{r}" for c, n in enumerate(cols) for r in range(n)] for side, cols in COLUMNS.items()}
RING_2_2 = ["2,1", "3,1", "3,2", "2,3", "1,2", "1,1"]  # neighbours of 2,2 clockwise from north
CARDS = json.loads((DATA / "cards.json").read_text())
CARD = {c["id"]: c for c in CARDS["animal_cards"] + CARDS["spirit_cards"]}
CUBES = {i: (1 if i >= 33 else len(c["points"])) for i, c in CARD.items()}
SPIRITS = list(range(33, 43))


def _reference_module():
    try:
        from meeple.reference import harmonies
        return harmonies
    except ImportError:
        # meeple/__init__.py needs the compiled engine; the reference package stands alone.
        path = ROOT / "python/meeple/reference/__init__.py"
        spec = importlib.util.spec_from_file_location(
            "meeple_reference_standalone", path, submodule_search_locations=[str(path.parent)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return importlib.import_module("meeple_reference_standalone.harmonies")


REF = _reference_module()


def make_game(impl, **params):
    if impl == "reference":
        return REF.HarmoniesGame(**params)
    import meeple
    return meeple.load("harmonies", **params)


def _engine_available():
    try:
        import meeple
        return "harmonies" in meeple.list_games()
    except ImportError:
        return False


@pytest.fixture(params=IMPLS)
def impl(request):
    if request.param == "engine" and not _engine_available():
        pytest.skip("the C++ harmonies engine is not built")
    return request.param


# --------------------------------------------------------------------------- helpers

def ints(values):
    return [int(v) for v in values]


def plain(value):
    """JSON-like copy with numpy scalars turned into Python ones."""
    return json.loads(json.dumps(value, default=lambda v: v.item()))


def tokens(stacks):
    """Colour counts of an iterable of token lists."""
    counts = dict.fromkeys(COLOURS, 0)
    for stack in stacks:
        for colour in stack:
            counts[colour] += 1
    return counts


def position(players=2, side="A", spirits=False, boards=None, cards=None, cubes=None,
             spirit_options=None, central=None, display=None, hand=(), took_tokens=None,
             took_card=False, turn_player=0, turns=3, end_triggered=None, pouch=None, deck=None,
             move_number=20):
    """A consistent state dict (docs/rules/harmonies.md, "State dict") of a position in a turn.

    boards: per player {cell: [colours]} (missing cells empty); cards: per player [(id, cubes)] in
    slot order; cubes: per player [cells] (default: on the first non-empty cells); central default:
    every space blue,gray,yellow except space 0 once tokens were taken; pouch: the rest of the 120
    tokens (solo: may be given, fewer, tokens having left the game).
    """
    cells = CELLS[side]
    spaces = 3 if players == 1 else 5
    boards = boards or [{}] * players
    cards = cards or [[]] * players
    took_tokens = bool(hand) if took_tokens is None else took_tokens
    if central is None:
        central = [[] if (took_tokens and s == 0) else ["blue", "gray", "yellow"] for s in range(spaces)]
    out_players = []
    held = []
    for p in range(players):
        board = {cell: list(boards[p].get(cell, [])) for cell in cells}
        assert set(boards[p]) <= set(cells), set(boards[p]) - set(cells)
        own = [(i, k) for i, k in cards[p]]
        unfinished = [(i, k) for i, k in own if k < CUBES[i]]
        finished = sorted((i, k) for i, k in own if k == CUBES[i])
        placed = sum(k for _, k in own)
        if cubes is None or cubes[p] is None:
            cube_cells = [c for c in cells if board[c]][:placed]
        else:
            cube_cells = sorted(cubes[p], key=cells.index)
        assert len(cube_cells) == placed
        held += [i for i, _ in own]
        t = turns + (1 if p < turn_player else 0)
        out_players.append({"board": board, "cubes": cube_cells,
                            "cards": [{"id": i, "cubes_placed": k} for i, k in unfinished + finished],
                            "spirit_options": list((spirit_options or [[]] * players)[p]),
                            "turns": t})
    animals = [i for i in range(1, 33) if i not in held]
    if display is None:
        display = animals[:spaces]
    if deck is None:
        deck = [i for i in animals if i not in display]
    spirit_deck = list(SPIRITS)  # [R5]: none dealt without the option
    if spirits:
        options = [i for p in out_players for i in p["spirit_options"]]
        left = [i for i in SPIRITS if i not in held and i not in options]
        kept = sum(1 for i in held if i >= 33)
        spirit_deck = left[kept:]  # one discarded per kept spirit
    used = tokens([s for p in out_players for s in p["board"].values()] + list(central) + [list(hand)])
    rest = {c: POUCH[c] - used[c] for c in COLOURS}
    assert min(rest.values()) >= 0, rest
    if pouch is not None:
        assert all(pouch[c] <= rest[c] for c in COLOURS)
        rest = dict(pouch)
    if end_triggered is None:
        end_triggered = any(sum(1 for s in p["board"].values() if not s) <= 2
                            for q, p in enumerate(out_players) if q != turn_player)
    return {"players": out_players, "central": [sorted(s, key=COLOURS.index) for s in central],
            "display": list(display), "deck": sorted(deck), "spirit_deck": spirit_deck,
            "pouch": rest, "turn_player": turn_player, "hand": sorted(hand, key=COLOURS.index),
            "took_tokens": took_tokens, "took_card": took_card, "end_triggered": end_triggered,
            "pending": {"spaces": [], "slots": [], "spirits": []}, "current_player": turn_player,
            "move_number": move_number, "rng": "0x0000000000000000"}


def load(impl, d, **params):
    if "players" not in params:
        params["players"] = len(d["players"])
    return make_game(impl, **params).state_from_dict(d)


def play(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def legal_names(state):
    return {state.action_to_string(a) for a in ints(state.legal_actions())}


def is_legal(state, text):
    return state.string_to_action(text) in ints(state.legal_actions())


def singles(n, colours=COLOURS, side="A", start=0):
    """A board whose first n cells (from cell `start`) hold one token each, colours cycling."""
    return {CELLS[side][start + i]: [colours[i % len(colours)]] for i in range(n)}


def full_turn(state):
    """Takes the first non-empty space, places each token on the first empty cell, ends."""
    s = next(a for a in ints(state.legal_actions()) if a < 5)
    state.apply_action(s)
    while True:
        legal = ints(state.legal_actions())
        places = [a for a in legal if 5 <= a < 155]
        if not places:
            break
        board = state.to_dict()["players"][int(state.current_player())]["board"]
        cells = CELLS[state.game.parameters()["side"]]
        empty = [a for a in places if not board[cells[(a - 5) % 25]]]
        state.apply_action((empty or places)[0])
    state.apply_action(267)


def breakdown(impl, board, side="A", cards=(), spirits=None, cubes=None):
    """Score breakdown of `board` as player 0's board in a 2-player position."""
    spirits = any(i >= 33 for i, _ in cards) if spirits is None else spirits
    other = [(next(i for i in SPIRITS if i not in dict(cards)), 0)] if spirits else []
    d = position(side=side, spirits=spirits, boards=[board, {}], cards=[list(cards), other],
                 cubes=[cubes, None], turn_player=0, end_triggered=True)
    state = load(impl, d, side=side, spirits=spirits)
    result = {k: int(v) for k, v in dict(state.score_breakdown(0)).items()}
    if impl == "reference":
        assert REF.score(board, side, [{"id": i, "cubes_placed": k} for i, k in cards]) == result
    return result


def expect(trees=0, mountains=0, fields=0, buildings=0, water=0, animals=0, spirit=0, cubes=0):
    total = trees + mountains + fields + buildings + water + animals + spirit
    return {"trees": trees, "mountains": mountains, "fields": fields, "buildings": buildings,
            "water": water, "animals": animals, "spirit": spirit, "total": total, "cubes": cubes}


# =========================================================================== (a) official boards

BGA = json.loads((DATA / "bga_final_boards.json").read_text())


@pytest.mark.parametrize("case", BGA["cases"], ids=[c["name"] for c in BGA["cases"]])
def test_bga_final_boards_score_exactly(case):
    assert case["side"] == "A"
    for player in case["players"]:
        assert any(c["id"] >= 33 for c in player["cards"])  # spirits on
        result = REF.score(player["board"], case["side"], player["cards"])
        assert result["total"] == player["expected_score"], result
        assert result["total"] == sum(v for k, v in result.items() if k not in ("total", "cubes"))


@pytest.mark.parametrize("case", BGA["cases"], ids=[c["name"] for c in BGA["cases"]])
def test_bga_final_boards_through_states(impl, case):
    """The same boards loaded into game states (score_breakdown and board())."""
    players = case["players"]
    boards = [p["board"] for p in players]
    cards = [[(c["id"], c["cubes_placed"]) for c in p["cards"]] for p in players]
    cubes = [p["cubes"] for p in players]
    d = position(spirits=True, boards=boards, cards=cards, cubes=cubes, end_triggered=True)
    state = load(impl, d, spirits=True)
    for p, player in enumerate(players):
        assert int(state.score_breakdown(p)["total"]) == player["expected_score"]
        b = plain(state.board(p))
        assert b["board"] == {c: player["board"][c] for c in CELLS["A"]}
        assert sorted(b["cubes"]) == sorted(player["cubes"])
        assert sorted(map(json.dumps, b["cards"])) == sorted(map(json.dumps, player["cards"]))


# =========================================================================== (b) rules

# --------------------------------------------------------------------------- parameters

def test_game_description(impl):
    for params, size in [({}, 2 * 612 + 256 + 2), ({"players": 1}, 612 + 256 + 1),
                         ({"players": 4, "side": "B", "spirits": True, "chance": "explicit"},
                          4 * 612 + 256 + 4)]:
        game = make_game(impl, **params)
        assert game.num_distinct_actions() == 268
        assert game.max_chance_outcomes() == 43
        assert game.max_game_length() == 1000
        assert tuple(game.observation_shape()) == (size,)
        assert game.num_players() == params.get("players", 2)
    assert make_game(impl).parameters() == {"players": 2, "side": "A", "spirits": False,
                                            "chance": "implicit"}


@pytest.mark.parametrize("params", [{"players": 0}, {"players": 5}, {"side": "C"}, {"side": "a"},
                                    {"chance": "random"}, {"colour": 1}, {"players": 1.5}])
def test_bad_parameters(impl, params):
    with pytest.raises(ValueError):
        make_game(impl, **params)


@pytest.mark.parametrize("params", [{"spirits": 1}, {"spirits": "yes"}, {"players": True}])
def test_reference_rejects_wrong_types(params):
    with pytest.raises(ValueError):
        make_game("reference", **params)


# --------------------------------------------------------------------------- 1, 2, 5-8: setup

def test_p01_p05_p06_implicit_setup(impl):
    for players, spaces in [(2, 5), (4, 5), (1, 3)]:
        state = make_game(impl, players=players).new_initial_state(seed=11)
        d = plain(state.to_dict())
        assert int(state.current_player()) == 0 and not state.is_chance_node()
        assert [len(s) for s in d["central"]] == [3] * spaces
        for s in d["central"]:
            assert s == sorted(s, key=COLOURS.index)  # colour-index order
        assert tokens(d["central"]) == {c: POUCH[c] - d["pouch"][c] for c in COLOURS}
        assert sum(d["pouch"].values()) == 120 - 3 * spaces
        assert len(d["display"]) == spaces and None not in d["display"]
        assert sorted(d["deck"] + d["display"]) == list(range(1, 33)) and d["deck"] == sorted(d["deck"])
        assert d["spirit_deck"] == SPIRITS  # [R5]
        assert d["pending"] == {"spaces": [], "slots": [], "spirits": []}
        assert int(state.move_number()) == 0
        again = make_game(impl, players=players).new_initial_state(seed=11).to_dict()
        assert plain(again) == d


def test_p05_p06_p07_explicit_setup_order_and_probabilities(impl):
    game = make_game(impl, players=2, spirits=True, chance="explicit")
    state = game.new_initial_state()
    assert int(state.current_player()) == CHANCE and state.is_chance_node()
    outcomes = [(int(o), p) for o, p in state.chance_outcomes()]
    assert outcomes == [(c, pytest.approx(POUCH[COLOURS[c]] / 120)) for c in range(6)]
    assert state.action_to_string(5) == "draw red"
    assert plain(state.to_dict())["pending"] == {"spaces": [0, 1, 2, 3, 4], "slots": [0, 1, 2, 3, 4],
                                                 "spirits": [0, 0, 1, 1]}
    draws = ["red", "blue", "blue"] + ["gray"] * 3 + ["brown", "green", "yellow"] + ["red"] * 6
    play(state, *(f"draw {c}" for c in draws[:2]))
    d = plain(state.to_dict())
    assert d["central"][0] == ["blue", "red"] and d["pending"]["spaces"] == [0, 1, 2, 3, 4]
    play(state, *(f"draw {c}" for c in draws[2:14]))
    # Before the last token: red 15 - 6 drawn = 9 left out of 106.
    pouch = plain(state.to_dict())["pouch"]
    assert pouch["red"] == 9 and sum(pouch.values()) == 106
    assert {int(o): p for o, p in state.chance_outcomes()} == pytest.approx(
        {c: pouch[COLOURS[c]] / 106 for c in range(6)})
    play(state, "draw red")
    d = plain(state.to_dict())
    assert d["central"] == [["blue", "blue", "red"], ["gray"] * 3, ["brown", "green", "yellow"],
                            ["red"] * 3, ["red"] * 3]
    assert d["pouch"] == dict(POUCH, blue=21, gray=20, brown=20, green=18, yellow=18, red=8)
    # Now the display, slot by slot, uniformly over the deck.
    assert [int(o) for o, _ in state.chance_outcomes()] == list(range(1, 33))
    assert state.chance_outcomes()[0][1] == pytest.approx(1 / 32)
    assert state.action_to_string(5) == "draw card 5 (frog)"
    play(state, "draw card 7 (flamingo)", "draw card 3", "draw card 30 (racoon)", "draw card 12",
         "draw card 1")
    d = plain(state.to_dict())
    assert d["display"] == [7, 3, 30, 12, 1] and len(d["deck"]) == 27
    # Then the spirits: 2 per player, player 0 first.
    assert [int(o) for o, _ in state.chance_outcomes()] == SPIRITS
    assert state.chance_outcomes()[0][1] == pytest.approx(1 / 10)
    assert state.action_to_string(33) == "draw card 33 (spirit-lion)"  # [R6]
    play(state, "draw card 40", "draw card 35")
    assert state.chance_outcomes()[0][1] == pytest.approx(1 / 8)
    play(state, "draw card 33", "draw card 41")
    d = plain(state.to_dict())
    assert [p["spirit_options"] for p in d["players"]] == [[40, 35], [33, 41]]
    assert d["spirit_deck"] == [34, 36, 37, 38, 39, 42]
    assert int(state.current_player()) == 0 and int(state.move_number()) == 24
    assert ints(state.legal_actions()) == [260, 261]


def test_explicit_chance_leaves_the_generator_at_zero(impl):
    """Explicit chance draws nothing from the rng, so the seed a game started from does not make
    an equal position a different state (docs/rules/harmonies.md, "Chance")."""
    game = make_game(impl, players=2, chance="explicit")
    states = [game.new_initial_state(seed=seed) for seed in (None, 1, 2**64 - 1)]
    for state in states:
        while state.is_chance_node():
            state.apply_action(int(state.chance_outcomes()[-1][0]))  # the same outcomes in each
        state.reseed(7)  # changes nothing with explicit chance
        assert plain(state.to_dict())["rng"] == "0x0000000000000000"
    assert states[1] == states[0] and states[2] == states[0]
    if impl == "engine":
        assert len({s.transposition_key() for s in states}) == 1
    # A document's rng is read as 0 there; with implicit chance it is the generator.
    d = plain(states[0].to_dict())
    d["rng"] = "0x5"
    assert plain(game.state_from_dict(d).to_dict())["rng"] == "0x0000000000000000"
    assert game.state_from_dict(d) == states[0]
    implicit = make_game(impl, players=2)
    d = plain(implicit.new_initial_state(seed=3).to_dict())
    d["rng"] = "0x5"
    assert plain(implicit.state_from_dict(d).to_dict())["rng"] == "0x0000000000000005"


def test_p02_cell_index_and_neighbours():
    geometry = REF.GEOMETRY["A"]
    assert geometry.names == CELLS["A"] and len(CELLS["A"]) == 23 and len(CELLS["B"]) == 25
    assert CELLS["A"][:6] == ["0,0", "0,1", "0,2", "0,3", "0,4", "1,0"] and CELLS["A"][22] == "4,4"
    assert CELLS["B"][24] == "6,3"
    nb = lambda name: sorted(geometry.names[y] for y in geometry.neighbours[geometry.index_of_name[name]])
    assert nb("2,2") == sorted(RING_2_2)
    assert nb("1,1") == sorted(["1,0", "2,1", "2,2", "1,2", "0,2", "0,1"])
    assert nb("0,0") == ["0,1", "1,0"]
    assert nb("4,4") == ["3,3", "4,3"]
    assert nb("1,3") == sorted(["1,2", "2,3", "2,4", "0,4", "0,3"])
    b = REF.GEOMETRY["B"]
    assert sorted(b.names[y] for y in b.neighbours[b.index_of_name["6,3"]]) == ["5,2", "6,2"]


def test_p08_player_0_starts_then_in_turn(impl):
    state = make_game(impl, players=3).new_initial_state(seed=5)
    for expected in (0, 1, 2, 0, 1):
        assert int(state.current_player()) == expected
        full_turn(state)
    d = plain(state.to_dict())
    assert [p["turns"] for p in d["players"]] == [2, 2, 1]


# --------------------------------------------------------------------------- 3, 4: stacking

STACKING = [([], set(COLOURS)), (["gray"], {"gray", "red"}), (["gray", "gray"], {"gray"}),
            (["gray", "gray", "gray"], set()), (["brown"], {"brown", "green", "red"}),
            (["brown", "brown"], {"green"}), (["brown", "brown", "green"], set()),
            (["brown", "green"], set()), (["brown", "red"], set()), (["red"], {"red"}),
            (["red", "red"], set()), (["gray", "red"], set()), (["blue"], set()),
            (["yellow"], set()), (["green"], set())]


@pytest.mark.parametrize("stack, receives", STACKING, ids=["-".join(s) or "empty" for s, _ in STACKING])
def test_p04_stacking_table(impl, stack, receives):
    for colour in COLOURS:
        d = position(boards=[{"2,2": stack}, {}], hand=[colour])
        state = load(impl, d)
        assert is_legal(state, f"place {colour} 2,2") == (colour in receives), (stack, colour)
        assert is_legal(state, f"place {colour} 0,0")  # an empty cell takes anything


def test_p04_nothing_on_a_cube(impl):
    d = position(boards=[{"2,2": ["gray"], "2,3": ["brown"]}, {}], cards=[[(21, 1)], []],
                 cubes=[["2,2"], None], hand=["gray", "red", "brown"])
    state = load(impl, d)
    names = legal_names(state)
    assert not any(n.endswith(" 2,2") and n.startswith("place") for n in names)
    assert {"place brown 2,3", "place red 2,3"} <= names


def test_p11_place_puts_the_token_on_top_and_empties_the_hand(impl):
    d = position(boards=[{"2,2": ["brown"]}, {}], hand=["brown", "green", "green"])
    state = load(impl, d)
    assert "end" not in legal_names(state)
    play(state, "place green 2,2")
    assert plain(state.to_dict())["players"][0]["board"]["2,2"] == ["brown", "green"]
    assert plain(state.to_dict())["hand"] == ["brown", "green"]
    assert not is_legal(state, "place green 2,2") and not is_legal(state, "place brown 2,2")
    play(state, "place green 0,0", "place brown 4,4")
    assert plain(state.to_dict())["hand"] == [] and "end" in legal_names(state)
    assert not any(n.startswith("place") for n in legal_names(state))


# --------------------------------------------------------------------------- 3, 13: cubes

def test_p03_p13_two_cell_pattern_all_six_rotations(impl):
    # Frog (5): T1 next to the W cube cell. Each of the 6 neighbours of 2,2 works.
    for cell in RING_2_2:
        d = position(boards=[{"2,2": ["blue"], cell: ["green"]}, {}], cards=[[(5, 0)], []])
        state = load(impl, d)
        assert is_legal(state, "cube frog 2,2"), cell
        assert not is_legal(state, f"cube frog {cell}")  # the cube goes on the W cell only


def test_p03_p13_exact_heights(impl):
    # Frog needs T1 (green alone): a 2-high tree does not do.
    d = position(boards=[{"2,2": ["blue"], "2,1": ["brown", "green"]}, {}], cards=[[(5, 0)], []])
    assert not is_legal(load(impl, d), "cube frog 2,2")
    # Stingray (2): M1 at (-1,0) and (-1,1) of the W cube cell: two consecutive neighbours.
    for i in range(6):
        pair = [RING_2_2[i], RING_2_2[(i + 1) % 6]]
        board = {"2,2": ["blue"], pair[0]: ["gray"], pair[1]: ["gray"]}
        d = position(boards=[board, {}], cards=[[(2, 0)], []])
        assert is_legal(load(impl, d), "cube stingray 2,2"), pair
        board[pair[1]] = ["gray", "gray"]  # M2 is not M1
        d = position(boards=[board, {}], cards=[[(2, 0)], []])
        assert not is_legal(load(impl, d), "cube stingray 2,2"), pair
    # Two opposite neighbours do not make the pattern.
    board = {"2,2": ["blue"], "2,1": ["gray"], "2,3": ["gray"]}
    assert not is_legal(load(impl, position(boards=[board, {}], cards=[[(2, 0)], []])), "cube stingray 2,2")


def test_p03_p13_pattern_on_the_board_edge(impl):
    # Crocodile (1): T3, W, W(cube) in a straight line; along column 0 from the corner it fits.
    board = {"0,0": ["blue"], "0,1": ["blue"], "0,2": ["brown", "brown", "green"]}
    state = load(impl, position(boards=[board, {}], cards=[[(1, 0)], []]))
    assert is_legal(state, "cube crocodile 0,0") and not is_legal(state, "cube crocodile 0,1")
    # Bent line: 0,0 W, 1,0 W, 1,1 T3 is not straight (1,0 -> 1,1 turns).
    board = {"0,0": ["blue"], "1,0": ["blue"], "1,1": ["brown", "brown", "green"]}
    assert not is_legal(load(impl, position(boards=[board, {}], cards=[[(1, 0)], []])), "cube crocodile 0,0")
    # Straight line 0,0 - 1,0 - 2,1 (south-east twice) works.
    board = {"0,0": ["blue"], "1,0": ["blue"], "2,1": ["brown", "brown", "green"]}
    assert is_legal(load(impl, position(boards=[board, {}], cards=[[(1, 0)], []])), "cube crocodile 0,0")


# Stack codes of the cards' patterns as token lists (cards.json "stack_codes"; B: a red on a gray).
PATTERN_STACKS = {"W": ["blue"], "F": ["yellow"], "T1": ["green"], "T2": ["brown", "green"],
                  "T3": ["brown", "brown", "green"], "M1": ["gray"], "M2": ["gray", "gray"],
                  "M3": ["gray", "gray", "gray"], "B": ["gray", "red"]}


def rotated(q, r, turns):
    """Axial (q, r) turned `turns` times 60 degrees clockwise: N -> NE -> SE -> S -> SW -> NW."""
    for _ in range(turns):
        q, r = -r, q + r
    return q, r


def mirrored(q, r):
    """Axial (q, r) reflected left-right (N and S stay, NE <-> NW, SE <-> SW)."""
    return -q, q + r


def orientations(pattern):
    """The 12 orientations of a card pattern (6 rotations, each also mirrored), as sets of
    (q, r, stack, cube)."""
    out = []
    for mirror in (False, True):
        for turns in range(6):
            cells = set()
            for cell in pattern:
                q, r = mirrored(cell["q"], cell["r"]) if mirror else (cell["q"], cell["r"])
                cells.add((*rotated(q, r, turns), cell["stack"], bool(cell.get("cube"))))
            out.append(cells)
    return out


def offset_cell(q, r, side="A"):
    """The board cell name of axial (q, r) (odd-q layout: column q, odd columns shifted down), or
    None off the board."""
    row = r + (q - (q & 1)) // 2
    columns = COLUMNS[side]
    return f"{q},{row}" if 0 <= q < len(columns) and 0 <= row < columns[q] else None


def axial(cell):
    col, row = map(int, cell.split(","))
    return col, row - (col - (col & 1)) // 2


def test_p03_offset_geometry_matches_the_neighbour_table():
    # The helpers above, against the hand geometry of the module docstring.
    q, r = axial("2,2")
    ring = [offset_cell(q + dq, r + dr) for dq, dr in [rotated(0, -1, k) for k in range(6)]]
    assert ring == RING_2_2
    assert all(offset_cell(*axial(cell)) == cell for side in CELLS for cell in CELLS[side] if side == "A")


def test_p03_no_card_is_chiral():
    # cards.json: "no card is chiral, so reflections change nothing": matching the 6 rotations
    # alone (as both implementations do) is then matching every orientation.
    for card in CARDS["animal_cards"] + CARDS["spirit_cards"]:
        shapes = orientations(card["pattern"])
        assert all(shape in shapes[:6] for shape in shapes[6:]), card["name"]


@pytest.mark.parametrize("card_id", sorted(CARD))
def test_p03_p13_every_card_in_every_orientation(impl, card_id):
    """Each card's pattern, built alone on an empty side A board in each of its 12 orientations
    (wherever it first fits), takes the card's cube on its cube cell; without any one of its
    tokens it does not. The cells come from cards.json's axial coordinates through this file's
    own geometry, not the implementations'."""
    card = CARD[card_id]
    spirit = card_id >= 33
    name = ("spirit-" if spirit else "") + card["name"]
    seen = set()
    for shape in orientations(card["pattern"]):
        if frozenset(shape) in seen:
            continue
        seen.add(frozenset(shape))
        for anchor in CELLS["A"]:
            aq, ar = axial(anchor)
            cells = {offset_cell(aq + q, ar + r): (stack, cube) for q, r, stack, cube in shape}
            if None not in cells:
                break
        else:
            raise AssertionError(f"{card['name']}: an orientation fits nowhere on side A")
        board = {cell: PATTERN_STACKS[stack] for cell, (stack, _) in cells.items()}
        cube = next(cell for cell, (_, is_cube) in cells.items() if is_cube)
        other = [(next(i for i in SPIRITS if i != card_id), 0)] if spirit else []
        d = position(spirits=spirit, boards=[board, {}], cards=[[(card_id, 0)], other], cubes=[[], None])
        assert is_legal(load(impl, d, spirits=spirit), f"cube {name} {cube}"), (sorted(shape), anchor)
        for missing in board:
            partial = {cell: stack for cell, stack in board.items() if cell != missing}
            d = position(spirits=spirit, boards=[partial, {}], cards=[[(card_id, 0)], other], cubes=[[], None])
            state = load(impl, d, spirits=spirit)
            assert not any(n.startswith(f"cube {name} ") for n in legal_names(state)), (sorted(shape), missing)
    assert len(seen) in (1, 2, 3, 6)  # the distinct rotations of a hex shape


def test_p03_building_code(impl):
    # Lizard (8): F, F, B(cube) in a line. B = red on exactly one red/brown/gray.
    for base, ok in [(["red"], True), (["brown"], True), (["gray"], True), ([], False)]:
        board = {"0,0": ["yellow"], "0,1": ["yellow"], "0,2": base + ["red"]}
        state = load(impl, position(boards=[board, {}], cards=[[(8, 0)], []]))
        assert is_legal(state, "cube lizard 0,2") == ok, base


def test_p13_cube_cell_must_be_free_other_cells_may_hold_cubes(impl):
    # The T1 cell 2,1 already holds a cube (from the bear, 14): the frog's cube may still use it.
    # Bear (14): M2 at (-1,0) and (-1,1) of its T1 cube cell 2,1: that is 1,0 and 1,1.
    board = {"2,2": ["blue"], "2,1": ["green"], "1,0": ["gray", "gray"], "1,1": ["gray", "gray"]}
    d = position(boards=[board, {}], cards=[[(5, 0), (14, 1)], []], cubes=[["2,1"], None])
    state = load(impl, d)
    assert is_legal(state, "cube frog 2,2")
    # A W cell holding a cube cannot take another.
    d = position(boards=[board, {}], cards=[[(5, 1), (14, 0)], []], cubes=[["2,2"], None])
    state = load(impl, d)
    assert not is_legal(state, "cube frog 2,2")
    assert is_legal(state, "cube bear 2,1")


def test_p13_cubes_bottom_first_and_finished_card_leaves_the_slots(impl):
    # Frog (points 2,4,6,10,15) with 3 cubes placed, one placeable cube left twice (2 W cells).
    board = {"2,2": ["blue"], "2,1": ["green"], "2,0": ["blue"], "0,0": ["blue"], "0,1": ["blue"],
             "0,2": ["blue"], "4,0": ["yellow"], "4,1": ["green"]}
    d = position(boards=[board, {}], cards=[[(5, 3), (31, 0)], []],
                 cubes=[["0,0", "0,1", "0,2"], None])
    state = load(impl, d)
    assert int(state.score_breakdown(0)["animals"]) == 6
    assert state.string_to_action("cube frog 2,2") == 160 + 25 * 0 + CELLS["A"].index("2,2")
    assert state.string_to_action("cube butterfly 4,0") == 160 + 25 * 1 + CELLS["A"].index("4,0")
    play(state, "cube frog 2,2")
    assert int(state.score_breakdown(0)["animals"]) == 10
    play(state, "cube frog 2,0")  # the 5th cube: finished
    d = plain(state.to_dict())
    assert d["players"][0]["cards"] == [{"id": 31, "cubes_placed": 0}, {"id": 5, "cubes_placed": 5}]
    assert int(state.score_breakdown(0)["animals"]) == 15
    # The butterfly is now the card of index 0.
    assert state.string_to_action("cube butterfly 4,0") == 160 + CELLS["A"].index("4,0")
    assert not any(n.startswith("cube frog") for n in legal_names(state))


def test_p13_cube_stays_when_the_habitat_changes(impl):
    # Stingray on 2,2 with grays on 1,1 and 1,2; then a gray goes on 1,1 (M2): the cube stays.
    board = {"2,2": ["blue"], "1,1": ["gray"], "1,2": ["gray"]}
    state = load(impl, position(boards=[board, {}], cards=[[(2, 0)], []], hand=["gray"]))
    play(state, "cube stingray 2,2", "place gray 1,1")
    d = plain(state.to_dict())
    assert d["players"][0]["cubes"] == ["2,2"] and d["players"][0]["board"]["1,1"] == ["gray", "gray"]
    assert int(state.score_breakdown(0)["animals"]) == 4
    assert not any(n.startswith("cube") for n in legal_names(state))


def test_p13_cubes_any_time_in_the_turn(impl):
    board = {"2,2": ["blue"], "2,1": ["green"]}
    state = load(impl, position(boards=[board, {}], cards=[[(5, 0)], []]))
    assert is_legal(state, "cube frog 2,2")  # before taking tokens
    play(state, "take 1")
    assert is_legal(state, "cube frog 2,2")  # between placements
    play(state, "place blue 0,0", "place gray 0,2", "place yellow 4,4")
    assert is_legal(state, "cube frog 2,2") and is_legal(state, "end")  # after
    assert not is_legal(state, "cube frog 0,0")  # 0,0 has no green neighbour
    play(state, "cube frog 2,2")
    assert is_legal(state, "end")


# --------------------------------------------------------------------------- 9, 12: cards, spirits

def test_p12_card_once_per_turn_before_or_after_taking(impl):
    state = load(impl, position(display=[7, 3, 30, 12, 1]))
    assert {f"card {d}" for d in range(5)} <= legal_names(state)
    play(state, "card 2")
    d = plain(state.to_dict())
    assert d["display"] == [7, 3, None, 12, 1] and d["took_card"]
    assert d["players"][0]["cards"] == [{"id": 30, "cubes_placed": 0}]
    assert not any(n.startswith("card") for n in legal_names(state))
    state = load(impl, position(display=[7, 3, 30, 12, 1]))
    play(state, "take 0", "place blue 0,0", "place gray 0,1", "place yellow 0,2", "card 4")
    assert plain(state.to_dict())["players"][0]["cards"] == [{"id": 1, "cubes_placed": 0}]
    play(state, "end")
    # The next player may take a card again (display refilled).
    assert int(state.current_player()) == 1 and is_legal(state, "card 4")


def test_p12_four_card_limit_counts_an_unfinished_spirit(impl):
    # Owl (36): T1 at (-1,0) and (-1,1) of its T3 cube cell: for 2,2 that is 1,1 and 1,2.
    cards = [(36, 0), (5, 1), (6, 0), (7, 2)]
    board = {"2,2": ["brown", "brown", "green"], "1,1": ["green"], "1,2": ["green"],
             "0,0": ["blue"], "0,1": ["blue"], "4,4": ["gray"]}
    d = position(spirits=True, boards=[board, {}], cards=[cards, [(41, 0)]],
                 cubes=[["0,0", "0,1", "4,4"], None])
    state = load(impl, d, spirits=True)
    assert not any(n.startswith("card") for n in legal_names(state))
    play(state, "cube spirit-owl 2,2")
    assert plain(state.to_dict())["players"][0]["cards"][-1] == {"id": 36, "cubes_placed": 1}
    assert {f"card {i}" for i in range(5)} <= legal_names(state)
    # Finished animal cards do not count either (crow, 27, has 2 cubes).
    d = position(boards=[{"0,0": ["blue"], "0,1": ["blue"]}, {}],
                 cards=[[(5, 0), (6, 0), (7, 0), (27, 2)], []])
    assert any(n.startswith("card") for n in legal_names(load(impl, d)))
    d = position(boards=[{"0,0": ["blue"], "0,1": ["blue"]}, {}],
                 cards=[[(5, 0), (6, 0), (7, 0), (8, 0), (27, 2)], []])
    assert not any(n.startswith("card") for n in legal_names(load(impl, d)))


def test_p09_d1_spirit_choice_is_forced_first(impl):
    game = make_game(impl, spirits=True, chance="explicit")
    state = game.new_initial_state()
    setup = [f"draw {c}" for c in ["blue", "gray", "brown"] * 5] + [
        f"draw card {i}" for i in (1, 2, 3, 4, 5)] + [f"draw card {i}" for i in (33, 39, 40, 42)]
    play(state, *setup)
    assert int(state.current_player()) == 0
    assert sorted(legal_names(state)) == ["spirit 0", "spirit 1"]
    play(state, "spirit 1")
    d = plain(state.to_dict())
    assert d["players"][0]["cards"] == [{"id": 39, "cubes_placed": 0}]
    assert d["players"][0]["spirit_options"] == [] and 33 not in d["spirit_deck"]
    assert d["spirit_deck"] == [34, 35, 36, 37, 38, 41] and not d["took_card"]
    names = legal_names(state)
    assert {"take 0", "card 0"} <= names and not any(n.startswith("spirit") for n in names)
    play(state, "card 0", "take 0", "place blue 0,0", "place gray 0,1", "place brown 0,2", "end")
    d = plain(state.to_dict())
    assert d["players"][0]["cards"] == [{"id": 39, "cubes_placed": 0}, {"id": 1, "cubes_placed": 0}]
    play(state, "draw blue", "draw blue", "draw blue", "draw card 20")
    assert int(state.current_player()) == 1
    assert sorted(legal_names(state)) == ["spirit 0", "spirit 1"]
    play(state, "spirit 0")
    assert plain(state.to_dict())["players"][1]["cards"] == [{"id": 40, "cubes_placed": 0}]
    # Spirit cube: the ram (39) needs M3 with M2 next to it.
    d = position(spirits=True, boards=[{"2,2": ["gray"] * 3, "2,3": ["gray"] * 2}, {}],
                 cards=[[(39, 0)], [(40, 0)]])
    state = load(impl, d, spirits=True)
    assert is_legal(state, "cube spirit-ram 2,2")
    assert state.string_to_action("cube spirit-ram 2,2") == 160 + CELLS["A"].index("2,2")


# --------------------------------------------------------------------------- 10, 14, 17: turn end

def test_p10_take_once_and_only_non_empty_spaces(impl):
    # 4 players, player 1's refill was skipped (pouch of 2): space 1 is empty; player 2 to move.
    central = [["blue"] * 3, [], ["gray"] * 3, ["red"] * 3, ["green"] * 3]
    rest = {c: POUCH[c] - tokens(central)[c] for c in COLOURS}
    rest["blue"] -= 2
    d = position(players=4, boards=fill_board(rest, "A", players=4), central=central,
                 turn_player=2, end_triggered=True)
    state = load(impl, d)
    assert sorted(n for n in legal_names(state) if n.startswith("take")) == [
        "take 0", "take 2", "take 3", "take 4"]
    play(state, "take 3")
    d2 = plain(state.to_dict())
    assert d2["hand"] == ["red"] * 3 and d2["central"][3] == [] and d2["took_tokens"]
    assert not any(n.startswith("take") for n in legal_names(state))


def fill_board(counts, side, players=1):
    """Spreads `counts` tokens over `players` boards of `side` as allowed stacks (gray towers,
    trees, singles), round robin; asserts each board keeps >= 3 empty cells."""
    counts = dict(counts)
    stacks = []
    while counts["gray"] >= 3:
        stacks.append(["gray"] * 3)
        counts["gray"] -= 3
    while counts["brown"] >= 2 and counts["green"] >= 1:
        stacks.append(["brown", "brown", "green"])
        counts["brown"] -= 2
        counts["green"] -= 1
    for colour in COLOURS:
        stacks += [[colour]] * counts[colour]
    boards = [{} for _ in range(players)]
    cells = CELLS[side]
    for i, stack in enumerate(stacks):
        board = boards[i % players]
        board[cells[len(board)]] = stack
    assert all(len(b) <= len(cells) - 3 for b in boards), [len(b) for b in boards]
    return boards if players > 1 else boards[0]


def test_p14_end_refills_the_space_then_the_display(impl):
    game_params = {"chance": "explicit"}
    d = position(display=[7, 3, 30, 12, 1])
    state = load(impl, d, **game_params)
    play(state, "take 2", "card 1", "place blue 0,0", "place gray 0,1", "place yellow 0,2")
    play(state, "end")
    assert int(state.current_player()) == CHANCE
    d = plain(state.to_dict())
    assert d["pending"] == {"spaces": [2], "slots": [1], "spirits": []}
    assert d["turn_player"] == 0 and d["took_tokens"] and d["hand"] == []  # [R2]
    assert d["players"][0]["turns"] == 4  # [R1]
    play(state, "draw red", "draw red")
    assert plain(state.to_dict())["central"][2] == ["red", "red"]
    play(state, "draw blue")
    d = plain(state.to_dict())
    assert d["central"][2] == ["blue", "red", "red"] and d["pending"]["slots"] == [1]
    assert [int(o) for o, _ in state.chance_outcomes()] == d["deck"]
    play(state, "draw card 20")
    d = plain(state.to_dict())
    assert d["display"] == [7, 20, 30, 12, 1] and 20 not in d["deck"]
    assert int(state.current_player()) == 1 and d["turn_player"] == 1
    assert not d["took_tokens"] and not d["took_card"] and d["pending"]["slots"] == []


def test_p14_display_refill_stops_when_the_deck_is_empty(impl):
    # Solo (discarded cards leave the game, so the deck can run out): a card was taken.
    for deck, display_after in [([], [None, 3, 30]), ([20], [20, 3, 30])]:
        d = position(players=1, display=[None, 3, 30], deck=deck, took_card=True, took_tokens=True,
                     cards=[[(7, 0)]])
        state = load(impl, d, players=1, chance="explicit")
        play(state, "end")
        assert plain(state.to_dict())["pending"] == {"spaces": [0, 1, 2], "slots": [0] if deck else [],
                                                      "spirits": []}
        play(state, *["draw gray"] * 9)
        if deck:
            play(state, "draw card 20")
        d = plain(state.to_dict())
        assert d["display"] == display_after and d["deck"] == []
        assert int(state.current_player()) == 0


def test_p16_d6_few_empty_cells_trigger_and_the_round_is_finished(impl):
    # 3 players. Player 1 ends with 2 empty cells: triggered, player 2 still plays, then the end.
    board = singles(21)
    d = position(players=3, boards=[{}, board, {}], turn_player=1, hand=[], took_tokens=True)
    state = load(impl, d)
    play(state, "end")
    d = plain(state.to_dict())
    assert d["end_triggered"] and int(state.current_player()) == 2
    assert not state.is_terminal()
    full_turn(state)
    assert state.is_terminal() and int(state.current_player()) == TERMINAL
    d = plain(state.to_dict())
    assert [p["turns"] for p in d["players"]] == [4, 4, 4]
    # D6: the last player's end is final at once: no refill of the space or the display.
    assert d["central"][0] == [] and d["pending"] == {"spaces": [], "slots": [], "spirits": []}
    assert d["turn_player"] == 2 and d["took_tokens"]  # [R2]
    assert ints(state.legal_actions()) == []


def test_p16_three_empty_cells_do_not_trigger(impl):
    d = position(players=2, boards=[singles(20), {}], turn_player=0, took_tokens=True)
    state = load(impl, d)
    play(state, "end")
    assert not plain(state.to_dict())["end_triggered"]


def test_p16_d6_last_player_triggering_ends_at_once(impl):
    d = position(players=2, boards=[{}, singles(21)], turn_player=1, took_tokens=True,
                 took_card=True, display=[None, 3, 4, 5, 6], cards=[[], [(2, 0)]])
    state = load(impl, d, chance="explicit")
    play(state, "end")
    assert state.is_terminal()
    d = plain(state.to_dict())
    assert d["central"][0] == [] and d["display"][0] is None


def test_p16_d3_pouch_short_at_a_refill(impl):
    # 4 players; the pouch holds 2 tokens: player 0's refill is skipped, the space stays empty,
    # the end is triggered; players 1, 2, 3 finish the round; their refills are skipped too.
    central = [[]] + [["blue"] * 3] * 4
    rest = {c: POUCH[c] - tokens(central)[c] for c in COLOURS}
    rest["blue"] -= 2
    boards = fill_board(rest, "A", players=4)
    for chance in ("implicit", "explicit"):
        d = position(players=4, boards=boards, central=central, took_tokens=True)
        assert d["pouch"] == dict(dict.fromkeys(COLOURS, 0), blue=2)
        state = load(impl, d, chance=chance)
        play(state, "end")
        d = plain(state.to_dict())
        assert d["end_triggered"] and d["central"][0] == [] and int(state.current_player()) == 1
        for player in (1, 2, 3):
            assert int(state.current_player()) == player
            full_turn(state)
        assert state.is_terminal()
        assert sum(1 for s in plain(state.to_dict())["central"] if not s) == 4


def test_p16_d3_the_refill_that_empties_the_pouch_does_not_trigger(impl):
    # The pouch always holds a multiple of 3 (105 - 3k in multiplayer): the reachable last refill
    # takes its last 3 tokens and triggers nothing; the next player's refill finds none, triggers
    # the end, and that round is finished (D3: the 36th refill with 4 players is the last). With
    # fewer players the boards fill before the pouch runs out.
    players = 4
    central = [[]] + [["blue"] * 3] * 4
    rest = {c: POUCH[c] - tokens(central)[c] for c in COLOURS}
    rest["yellow"] -= 3
    boards = fill_board(rest, "A", players=players)
    for chance in ("implicit", "explicit"):
        d = position(players=players, boards=boards, central=central, took_tokens=True)
        assert d["pouch"] == dict(dict.fromkeys(COLOURS, 0), yellow=3)
        state = load(impl, d, chance=chance)
        play(state, "end")
        if chance == "explicit":
            play(state, *["draw yellow"] * 3)
            while state.is_chance_node():  # the display slot a card left (none was taken: no draw)
                state.apply_action(int(state.legal_actions()[0]))
        d = plain(state.to_dict())
        assert d["central"][0] == ["yellow"] * 3 and sum(d["pouch"].values()) == 0
        assert not d["end_triggered"] and int(state.current_player()) == 1
        full_turn(state)  # player 1 takes a space; its refill finds the pouch empty
        d = plain(state.to_dict())
        assert d["end_triggered"] and not state.is_terminal()
        for player in range(2, players):
            assert int(state.current_player()) == player
            full_turn(state)
        assert state.is_terminal()
        assert [p["turns"] for p in plain(state.to_dict())["players"]] == [4] * players


def test_p17_d4_solo_refills_and_end(impl):
    # Solo: at the end the 6 other tokens leave, the 3 spaces are refilled in order.
    d = position(players=1, central=[[], ["red"] * 3, ["yellow"] * 3], took_tokens=True,
                 display=[1, 2, 3])
    state = load(impl, d, players=1, chance="explicit")
    before = plain(state.to_dict())["pouch"]
    play(state, "end")
    d = plain(state.to_dict())
    assert d["central"] == [[], [], []] and d["pending"]["spaces"] == [0, 1, 2]
    assert d["pouch"] == before  # the untaken tokens left the game, not back to the pouch
    play(state, *["draw blue"] * 9)
    d = plain(state.to_dict())
    assert d["central"] == [["blue"] * 3] * 3 and int(state.current_player()) == 0
    assert d["players"][0]["turns"] == 4
    # D4 [R4]: a pouch of 8 fills spaces 0 and 1 but not 2: the end is triggered at the `end`,
    # the two refills are still drawn (no display refill: a card was taken), then the game is over.
    d = position(players=1, central=[[], ["red"] * 3, ["yellow"] * 3], took_tokens=True,
                 took_card=True, display=[None, 2, 3], cards=[[(1, 0)]],
                 pouch=dict(dict.fromkeys(COLOURS, 0), blue=8))
    for chance in ("explicit", "implicit"):
        state = load(impl, d, players=1, chance=chance)
        play(state, "end")
        if chance == "explicit":
            after_end = plain(state.to_dict())
            assert after_end["pending"] == {"spaces": [0, 1], "slots": [], "spirits": []}
            assert after_end["end_triggered"] and int(state.current_player()) == CHANCE
            play(state, *["draw blue"] * 6)
        assert state.is_terminal()
        end = plain(state.to_dict())
        assert end["central"] == [["blue"] * 3, ["blue"] * 3, []] and end["end_triggered"]
        assert end["display"] == [None, 2, 3] and end["pouch"]["blue"] == 2
    # Pouch of 2: over at once.
    d = position(players=1, central=[[], ["red"] * 3, ["yellow"] * 3], took_tokens=True,
                 pouch=dict(dict.fromkeys(COLOURS, 0), blue=2))
    state = load(impl, d, players=1, chance="explicit")
    play(state, "end")
    assert state.is_terminal()


@pytest.mark.parametrize("chance", ["implicit", "explicit"])
def test_p17_d4_solo_pouch_of_9_and_of_3(impl, chance):
    # Solo turns take 9 tokens from the pouch (111 - 9k): the reachable ends. 9 tokens refill the
    # three spaces and trigger nothing; 3 refill space 0 and end the game at once (D4).
    for pouch, central, over in ((9, [["blue"] * 3] * 3, False), (3, [["blue"] * 3, [], []], True)):
        d = position(players=1, central=[[], ["red"] * 3, ["yellow"] * 3], took_tokens=True,
                     took_card=True, display=[None, 2, 3], cards=[[(1, 0)]],
                     pouch=dict(dict.fromkeys(COLOURS, 0), blue=pouch))
        state = load(impl, d, players=1, chance=chance)
        play(state, "end")
        if chance == "explicit":
            assert plain(state.to_dict())["pending"]["spaces"] == ([0, 1, 2] if pouch == 9 else [0])
            play(state, *["draw blue"] * pouch)
            if not over:
                play(state, "draw card 4")  # the display slot the card left
        d = plain(state.to_dict())
        assert d["central"] == central and sum(d["pouch"].values()) == 0
        assert d["end_triggered"] == over and state.is_terminal() == over, pouch
        if not over:
            assert int(state.current_player()) == 0 and d["display"][0] is not None


def test_p15_d2_solo_discard(impl):
    d = position(players=1, display=[7, 3, 30], took_tokens=True)
    state = load(impl, d, players=1, chance="explicit")
    names = legal_names(state)
    assert {"discard 0", "discard 1", "discard 2", "end"} <= names
    play(state, "discard 1")
    play(state, *["draw gray"] * 9)
    d = plain(state.to_dict())
    assert d["pending"]["slots"] == [1] and d["display"] == [7, None, 30]
    assert 3 not in d["deck"]
    play(state, "draw card 12")
    d = plain(state.to_dict())
    assert d["display"] == [7, 12, 30] and 3 not in d["deck"] and int(state.current_player()) == 0
    # Not of an empty slot (the deck ran out: nothing refilled it).
    state = load(impl, position(players=1, display=[None, 3, 30], deck=[], took_tokens=True), players=1)
    names = legal_names(state)
    assert "discard 0" not in names and {"discard 1", "discard 2", "end"} <= names
    # Not after taking a card, not before placing, not in multiplayer.
    state = load(impl, position(players=1, display=[7, 3, 30]), players=1)
    play(state, "card 0", "take 0", "place blue 0,0", "place gray 0,1", "place yellow 0,2")
    assert not any(n.startswith("discard") for n in legal_names(state))
    state = load(impl, position(players=1, display=[7, 3, 30], hand=["blue"]), players=1)
    assert not any(n.startswith("discard") for n in legal_names(state))
    state = load(impl, position(players=2, took_tokens=True))
    assert not any(n.startswith("discard") for n in legal_names(state))


# --------------------------------------------------------------------------- 18-20: scoring

def test_p18_trees(impl):
    board = {"0,0": ["green"], "1,0": ["brown", "green"], "2,0": ["brown", "brown", "green"],
             "4,4": ["brown", "brown"], "3,3": ["brown"]}
    assert breakdown(impl, board) == expect(trees=1 + 3 + 7)


def test_p18_mountains_need_a_mountain_neighbour(impl):
    board = {"0,0": ["gray"],                                  # next to 0,1 (a building): isolated
             "0,1": ["gray", "red"],
             "2,2": ["gray", "gray"], "2,3": ["gray", "gray", "gray"],   # neighbours: 3 + 7
             "4,4": ["gray"],                                  # isolated
             "4,0": ["gray"], "4,1": ["gray"]}                 # neighbours: 1 + 1
    assert breakdown(impl, board) == expect(mountains=3 + 7 + 1 + 1)


def test_p18_fields(impl):
    board = {"0,0": ["yellow"], "0,1": ["yellow"],                      # group of 2: 5
             "2,2": ["yellow"], "2,3": ["yellow"], "3,2": ["yellow"],   # group of 3: 5
             "4,4": ["yellow"]}                                         # single: 0
    assert breakdown(impl, board) == expect(fields=10)


def test_p18_buildings_three_colours(impl):
    # 2,2 (brown,red): neighbours 2,1 tree (top green), 3,1 brown, 1,1 blue -> 3 colours: 5.
    board = {"2,2": ["brown", "red"], "2,1": ["brown", "green"], "3,1": ["brown"], "1,1": ["blue"]}
    assert breakdown(impl, board) == expect(buildings=5, trees=3)
    # Tops only: a tree shows green, so green + green + blue = 2 colours: 0.
    board = {"2,2": ["brown", "red"], "2,1": ["brown", "green"], "3,1": ["green"], "1,1": ["blue"]}
    assert breakdown(impl, board) == expect(trees=3 + 1)
    # Another building counts as red; empty cells do not count.
    board = {"2,2": ["red", "red"], "2,1": ["gray", "red"], "3,1": ["yellow"], "2,3": ["blue"]}
    assert breakdown(impl, board) == expect(buildings=5)  # 2,1 sees red and yellow only: 0
    # A lone red is not a building; a corner building with 2 neighbours can never score.
    board = {"4,0": ["gray", "red"], "4,1": ["blue"], "3,0": ["yellow"], "2,2": ["red"]}
    assert breakdown(impl, board) == expect()


def test_p19_river_side_a(impl):
    column = {f"0,{r}": ["blue"] for r in range(5)}
    assert breakdown(impl, column) == expect(water=11)  # 5 tokens
    assert breakdown(impl, {"0,0": ["blue"]}) == expect()
    assert breakdown(impl, {"0,0": ["blue"], "0,1": ["blue"]}) == expect(water=2)
    # A ring of 6 around 2,2: the longest shortest path has 4 tokens (diameter 3): 8, not 15.
    ring = {cell: ["blue"] for cell in RING_2_2}
    assert breakdown(impl, ring) == expect(water=8)
    # 9 tokens: the top row and column 4, but 3,0 touches 4,1, so the longest shortest path is
    # 0,0 1,0 2,0 3,0 4,1 4,2 4,3 4,4: 8 tokens -> 15 + 4 * 2 = 23.
    bent = {c: ["blue"] for c in ["0,0", "1,0", "2,0", "3,0", "4,0", "4,1", "4,2", "4,3", "4,4"]}
    assert breakdown(impl, bent) == expect(water=23)
    # Two groups: the longer one counts (column 0 + a separate pair).
    assert breakdown(impl, dict(column, **{"4,3": ["blue"], "4,4": ["blue"]})) == expect(water=11)
    # Shortcuts: 3,0 touches 4,1, so this 6-token river is only 5 tokens long.
    six = {c: ["blue"] for c in ["0,0", "1,0", "2,0", "3,0", "4,0", "4,1"]}
    assert breakdown(impl, six) == expect(water=11)
    # Row 2 plus 0,1 above its end: no shortcut: 6, then 7 (0,0) and 8 (4,1) tokens.
    six = {c: ["blue"] for c in ["0,1", "0,2", "1,2", "2,2", "3,2", "4,2"]}
    assert breakdown(impl, six) == expect(water=15)
    seven = dict(six, **{"0,0": ["blue"]})
    assert breakdown(impl, seven) == expect(water=19)
    assert breakdown(impl, dict(seven, **{"4,1": ["blue"]})) == expect(water=23)


def test_p19_islands_side_b(impl):
    assert breakdown(impl, {}, side="B") == expect(water=5)  # one island of empty cells
    wall = {f"1,{r}": ["blue"] for r in range(3)}  # column 1 cuts column 0 off
    assert breakdown(impl, wall, side="B") == expect(water=10)
    walls = dict(wall, **{f"5,{r}": ["blue"] for r in range(3)})  # col 0 | cols 2-4 | col 6
    assert breakdown(impl, walls, side="B") == expect(water=15)
    # The river rule does not apply on side B: a river of 4 blues in column 0 leaves 1 island.
    assert breakdown(impl, {f"0,{r}": ["blue"] for r in range(4)}, side="B") == expect(water=5)
    # A single empty cell cut off by blue and the board edge is an island: 0,0 behind 0,1 and 1,0.
    corner = {"0,1": ["blue"], "1,0": ["blue"]}
    assert breakdown(impl, corner, side="B") == expect(water=10)


def test_p20_animal_points(impl):
    board = {f"0,{r}": ["blue"] for r in range(5)}
    for k, points in [(0, 0), (1, 2), (3, 6), (4, 10), (5, 15)]:  # frog 2,4,6,10,15
        cards = [(5, k)]
        assert breakdown(impl, board, cards=cards)["animals"] == points
        assert breakdown(impl, board, cards=cards)["cubes"] == k
    # Several cards add up: bee (13) 8,18 with 1 cube + frog 2 cubes.
    assert breakdown(impl, board, cards=[(13, 1), (5, 2)])["animals"] == 8 + 4


SPIRIT_CASES = [
    # lion: yellow groups of 1-2: 2 each; of >= 3: 10 each. Groups: 1, 2, 3 -> 2 + 2 + 10.
    (33, {"0,0": ["yellow"], "2,0": ["yellow"], "3,0": ["yellow"],
          "2,2": ["yellow"], "2,3": ["yellow"], "3,2": ["yellow"]}, 14, {"fields": 10}),
    # butterfly: 5 per yellow group (singletons too): 3 groups.
    (34, {"0,0": ["yellow"], "2,0": ["yellow"], "3,0": ["yellow"], "4,4": ["yellow"]}, 15,
     {"fields": 5}),
    # deer: trees of height 2 and 3 score 4 each, height 1 nothing.
    (35, {"0,0": ["green"], "1,0": ["brown", "green"], "4,4": ["brown", "brown", "green"]}, 8,
     {"trees": 11}),
    # owl: 3 / 3 / 1.
    (36, {"0,0": ["green"], "1,0": ["brown", "green"], "4,4": ["brown", "brown", "green"]}, 7,
     {"trees": 11}),
    # cat: 4 per group of buildings (no colour condition). Groups: {0,0 0,1}, {4,4}.
    (37, {"0,0": ["gray", "red"], "0,1": ["red", "red"], "4,4": ["brown", "red"]}, 8, {}),
    # stork: 6 per group of >= 2 buildings.
    (38, {"0,0": ["gray", "red"], "0,1": ["red", "red"], "4,4": ["brown", "red"]}, 6, {}),
    # ram: mountains of height 2/3: 4 each, isolated ones included; height 1: 0.
    (39, {"0,0": ["gray", "gray"], "4,4": ["gray", "gray", "gray"], "2,2": ["gray"]}, 8, {}),
    # marmot: 3 / 3 / 1, isolated included.
    (40, {"0,0": ["gray", "gray"], "4,4": ["gray", "gray", "gray"], "2,2": ["gray"]}, 7, {}),
    # dragonfly: 7 per blue group of >= 2: {0,0 0,1}, {4,3 4,4}; 2,2 alone: 0.
    (41, {"0,0": ["blue"], "0,1": ["blue"], "4,3": ["blue"], "4,4": ["blue"], "2,2": ["blue"]}, 14,
     {"water": 2}),
    # tortoise: 2 per blue token.
    (42, {"0,0": ["blue"], "0,1": ["blue"], "4,3": ["blue"], "4,4": ["blue"], "2,2": ["blue"]}, 10,
     {"water": 2}),
]


@pytest.mark.parametrize("spirit, board, points, others", SPIRIT_CASES,
                         ids=[CARD[c[0]]["name"] for c in SPIRIT_CASES])
def test_p20_spirit_scoring(impl, spirit, board, points, others):
    placed = breakdown(impl, board, cards=[(spirit, 1)])
    assert placed == expect(spirit=points, cubes=0, **others)
    # The cube not placed: 0.
    assert breakdown(impl, board, cards=[(spirit, 0)]) == expect(**others)


def test_p21_breakdown_keys(impl):
    state = make_game(impl).new_initial_state()
    keys = list(dict(state.score_breakdown(1)))
    assert keys == ["trees", "mountains", "fields", "buildings", "water", "animals", "spirit", "total",
                    "cubes"]


# --------------------------------------------------------------------------- 22-24: results

def end_position(scores_boards, cards=None, players=None, **kwargs):
    """The last player about to end a turn that ends the game."""
    players = players or len(scores_boards)
    return position(players=players, boards=scores_boards, cards=cards, turn_player=players - 1,
                    took_tokens=True, end_triggered=True, **kwargs)


def test_p22_p23_returns_two_players(impl):
    tree = {"0,0": ["brown", "green"]}
    d = end_position([tree, {"0,0": ["green"]}])
    state = load(impl, d)
    assert [float(r) for r in state.returns()] == [0.0, 0.0]
    play(state, "end")
    assert [float(r) for r in state.returns()] == [1.0, -1.0]
    # Equal points: the one with more animal cubes wins; the spirit cube does not count.
    board = {"0,0": ["blue"], "0,1": ["blue"], "0,2": ["blue"]}
    # otter (4) 1 cube = 5 points; meerkat (26) 2 cubes = 5 points.
    d = end_position([board, board], cards=[[(4, 1)], [(26, 2)]])
    state = play(load(impl, d), "end")
    assert [int(state.score_breakdown(p)["total"]) for p in (0, 1)] == [10, 10]
    assert [float(r) for r in state.returns()] == [-1.0, 1.0]
    # Ram (39) cube placed but no mountain: 0 points; llama (28) 1 cube: 5 points. Animal cubes
    # 1 vs 1 (the spirit cube does not count): shared win.
    d = end_position([board, board], cards=[[(4, 1), (39, 1)], [(40, 0), (28, 1)]], spirits=True)
    state = play(load(impl, d, spirits=True), "end")
    assert [int(state.score_breakdown(p)["total"]) for p in (0, 1)] == [10, 10]
    assert [int(state.score_breakdown(p)["cubes"]) for p in (0, 1)] == [1, 1]
    assert [float(r) for r in state.returns()] == [0.0, 0.0]


def test_p23_returns_four_players(impl):
    t3, t2, t1 = ["brown", "brown", "green"], ["brown", "green"], ["green"]
    boards = [{"0,0": t3, "0,1": t2},                                # 10
              {"0,0": t3, "0,1": t3, "0,2": t2, "0,3": t2},          # 20
              {"0,0": t3, "0,1": t3, "0,2": t2, "0,3": t2},          # 20
              {"0,0": t2, "0,1": t1, "0,2": t1}]                     # 5
    state = play(load(impl, end_position(boards)), "end")
    assert state.is_terminal()
    assert [int(state.score_breakdown(p)["total"]) for p in range(4)] == [10, 20, 20, 5]
    assert [float(r) for r in state.returns()] == pytest.approx([-1 / 3, 2 / 3, 2 / 3, -1.0])
    # 3 players: (beats - beaten) / 2.
    state = play(load(impl, end_position(boards[1:])), "end")
    assert [float(r) for r in state.returns()] == pytest.approx([0.5, 0.5, -1.0])


def solo_board(t3, t2=0, t1=0, reds=None, side="A", filled=None):
    """A solo board worth 7*t3 + 3*t2 + t1 points, filled up to `filled` cells with lone reds."""
    cells = CELLS[side]
    board = {}
    stacks = [["brown", "brown", "green"]] * t3 + [["brown", "green"]] * t2 + [["green"]] * t1
    filled = filled or len(cells) - 2
    reds = min(15, filled - len(stacks))
    stacks += [["red"]] * reds + [["brown"]] * (filled - len(stacks) - reds)
    for cell, stack in zip(cells, stacks):
        board[cell] = stack
    return board


@pytest.mark.parametrize("t3, t2, t1, side, spirits, kept, points, suns", [
    (6, 0, 0, "A", False, None, 42, 1 + 1 + 2),
    (10, 0, 0, "A", False, None, 70, 2 + 1 + 2),
    (5, 1, 1, "A", False, None, 39, 0 + 1 + 2),       # D5: the bonuses count below 40 points too
    (5, 1, 1, "A", True, 35, 39, 0 + 1),              # side A with a "count" spirit, below 40
    (6, 0, 0, "B", False, None, 42 + 5, 1 + 2),       # side B: the board is one island
    (6, 0, 0, "A", True, 33, 42, 1 + 1 + 1),          # lion: a "groups" spirit
    (6, 0, 0, "A", True, 35, 42, 1 + 1),              # deer: a "count" spirit
])
def test_p24_d5_solo_suns(impl, t3, t2, t1, side, spirits, kept, points, suns):
    board = solo_board(t3, t2, t1, side=side)
    cards = [[(kept, 0)]] if kept else None
    d = position(players=1, side=side, spirits=spirits, boards=[board], cards=cards,
                 took_tokens=True, central=[[], ["blue"] * 3, ["blue"] * 3])
    state = load(impl, d, players=1, side=side, spirits=spirits)
    assert int(state.score_breakdown(0)["total"]) == points
    play(state, "end")  # 2 empty cells: the solo game ends at once
    assert state.is_terminal()
    assert [float(r) for r in state.returns()] == [float(suns)]


@pytest.mark.parametrize("players, side, spirits, low, high", [
    (2, "A", False, -1, 1), (4, "B", True, -1, 1),
    (1, "A", False, 1 + 2, 8 + 1 + 2),   # the bonuses at any score (D5): side A +1, no spirits +2
    (1, "A", True, 1, 8 + 1 + 1),         # ... a "groups" spirit kept +1 [R7]
    (1, "B", False, 2, 8 + 2),
    (1, "B", True, 0, 8 + 1),
])
def test_p23_p24_utility_bounds(impl, players, side, spirits, low, high):
    """min_utility/max_utility: the least and greatest returns (points 23, 24); utility_sum 0 with
    2-4 players, None solo (suns)."""
    game = make_game(impl, players=players, side=side, spirits=spirits)
    assert (game.min_utility(), game.max_utility()) == (low, high)
    assert game.utility_sum() == (None if players == 1 else 0)


@pytest.mark.parametrize("move_number, accepted", [(0, True), (60000, True), (60001, False), (65535, False)])
def test_r10_move_number_leaves_room_for_the_rest_of_the_game(impl, move_number, accepted):
    """R10: a state dict's move_number is 0..60000. The engine's 16-bit counter accepted 65535 and
    wrapped to 0 at the next action (the reference counted on to 65536)."""
    d = position(took_tokens=False, move_number=move_number)
    if not accepted:
        with pytest.raises(ValueError, match="move_number"):
            load(impl, d)
        return
    state = load(impl, d)
    play(state, "take 1")
    assert int(state.move_number()) == move_number + 1


def finished_cards_worth(points):
    """Finished animal cards [(id, cubes)] whose points add up to exactly `points` (None if none
    do), fewest cubes first: a depth-first search over the cards' full scores."""
    full = sorted(((c["points"][-1], len(c["points"]), c["id"]) for c in CARDS["animal_cards"]), reverse=True)

    def search(start, left, cubes):
        if left == 0:
            return []
        for k in range(start, len(full)):
            value, count, card_id = full[k]
            if value <= left and cubes + count <= 20:  # a cube a cell of the 21 filled
                rest = search(k + 1, left - value, cubes + count)
                if rest is not None:
                    return [(card_id, count)] + rest
        return None

    return search(0, points, 0)


@pytest.mark.parametrize("points", [89, 90, 109, 110, 129, 130, 139, 140, 149, 150, 159, 160])
def test_p24_sun_thresholds_of_whole_games(impl, points):
    """Point 24's thresholds at each boundary, through a finished solo game (side A, no spirits:
    +1 and +2): ten 3-high trees (70 points), lone trees (1 each) and finished animal cards."""
    cards = next(cards for t1 in range(10) if (cards := finished_cards_worth(points - 70 - t1)) is not None)
    t1 = points - 70 - sum(CARD[i]["points"][-1] for i, _ in cards)
    board = solo_board(10, 0, t1)
    d = position(players=1, boards=[board], cards=[cards], took_tokens=True,
                 central=[[], ["blue"] * 3, ["blue"] * 3])
    state = load(impl, d, players=1)
    assert int(state.score_breakdown(0)["total"]) == points
    play(state, "end")
    assert state.is_terminal()
    thresholds = (40, 70, 90, 110, 130, 140, 150, 160)
    assert [float(r) for r in state.returns()] == [float(sum(points >= t for t in thresholds) + 1 + 2)]


def test_p24_sun_thresholds():
    for points, earned in [(39, 0), (40, 1), (69, 1), (70, 2), (90, 3), (110, 4), (130, 5),
                           (140, 6), (150, 7), (159, 7), (160, 8), (300, 8)]:
        assert REF.suns(points, "B", True, 35) == earned
        assert REF.suns(points, "A", False, None) == earned + 3


# --------------------------------------------------------------------------- actions, strings

def test_action_encoding_and_strings(impl):
    d = position(boards=[{"0,0": ["blue"]}, {}], spirits=True,
                 cards=[[(36, 0), (5, 0), (13, 0), (2, 1)], [(40, 0)]])
    state = load(impl, d, spirits=True)
    table = {"take 0": 0, "take 4": 4, "place blue 0,0": 5, "place blue 4,4": 27,
             "place gray 0,1": 31, "place red 4,4": 5 + 125 + 22, "card 0": 155, "card 4": 159,
             "cube spirit-owl 0,0": 160, "cube frog 0,0": 185, "cube bee 1,0": 210 + 5,
             "cube stingray 4,4": 235 + 22, "spirit 0": 260, "spirit 1": 261, "discard 0": 262,
             "discard 4": 266, "end": 267}
    for text, action in table.items():
        assert state.string_to_action(text) == action, text
        assert state.action_to_string(action) == text
    assert state.string_to_action("  Place  GREEN 2,1 ") == 5 + 75 + CELLS["A"].index("2,1")
    for bad in ["place blue 5,0", "place blue 1,4", "cube fox 0,0", "cube owl 0,0", "take 5",
                "spirit 2", "draw blue", "garbage", "", "end turn", "card", "place pink 0,0"]:
        with pytest.raises(ValueError):
            state.string_to_action(bad)
    for bad in (-1, 268, 2**40):
        with pytest.raises(ValueError):
            state.action_to_string(bad)
    side_b = load(impl, position(side="B"), side="B")
    assert side_b.string_to_action("place red 6,3") == 5 + 125 + 24
    assert side_b.action_to_string(154) == "place red 6,3"


def test_illegal_action_raises_and_leaves_the_state(impl):
    state = load(impl, position())
    before = plain(state.to_dict())
    for bad in (267, 5, 160, 260, 262, -1, 268):
        with pytest.raises(ValueError) as info:
            state.apply_action(bad)
        assert state.action_to_string(0) in str(info.value)  # the message lists the legal actions
    assert plain(state.to_dict()) == before


# --------------------------------------------------------------------------- observation

def test_observation_layout(impl):
    board0 = {"0,0": ["brown", "green"], "4,4": ["gray", "gray", "gray"], "0,1": ["blue"]}
    board1 = {"0,0": ["red"], "0,1": ["blue"], "0,2": ["blue"], "0,3": ["blue"], "0,4": ["blue"]}
    d = position(spirits=True, boards=[board0, board1], cards=[[(38, 0), (5, 1)], [(6, 4), (35, 1)]],
                 cubes=[["0,0"], ["0,0", "0,1", "0,2", "0,3", "0,4"]], hand=["yellow", "red"],
                 took_card=True, display=[None, 3, 4, 7, 9], took_tokens=True,
                 central=[[], ["blue"] * 3, ["gray", "gray", "red"], ["green"] * 3, ["yellow"] * 3])
    assert d["players"][1]["cards"] == [{"id": 6, "cubes_placed": 4}, {"id": 35, "cubes_placed": 1}]
    state = load(impl, d, spirits=True)
    obs = [float(v) for v in state.observation_tensor(0)]
    assert len(obs) == 2 * 612 + 256 + 2
    # Player 0's cells: 0,0 = brown (h1), green (h2), cube.
    assert obs[0:19] == [0, 0, 1, 0, 0, 0] + [0, 0, 0, 1, 0, 0] + [0] * 6 + [1]
    x = CELLS["A"].index("4,4")
    assert obs[19 * x: 19 * x + 19] == [0, 1, 0, 0, 0, 0] * 3 + [0]
    assert obs[19 * 23: 19 * 25] == [0.0] * 38  # side A has no cells 23, 24
    cards = obs[475:601]
    assert cards[3 * 4: 3 * 5] == [1, 0, 1] and cards[3 * 37: 3 * 38] == [1, 0, 0]
    assert sum(cards) == 3
    assert obs[601:611] == [0.0] * 10
    assert int(state.score_breakdown(0)["total"]) == 3 + 2  # a 2-high tree, frog with 1 cube
    assert obs[611] == pytest.approx(0.05)
    # Player 1's block: duck (6) finished with 4 cubes, deer (35) finished with 1.
    p1 = obs[612:1224]
    assert p1[475 + 3 * 5: 475 + 3 * 6] == [0, 1, 4] and p1[475 + 3 * 34: 475 + 3 * 35] == [0, 1, 1]
    assert p1[0:19] == [0] * 5 + [1] + [0] * 12 + [1]
    shared = obs[1224:]
    assert shared[0:6] == [0] * 6 and shared[6:12] == [3, 0, 0, 0, 0, 0]
    assert shared[12:18] == [0, 2, 0, 0, 0, 1]
    display = shared[30:240]
    assert display[0:42] == [0] * 42 and display[42 + 2] == 1 and display[4 * 42 + 8] == 1
    assert sum(display) == 4
    assert shared[240:246] == [float(d["pouch"][c]) for c in COLOURS]
    assert shared[246] == float(len(d["deck"]))
    assert shared[247:253] == [0, 0, 0, 0, 1, 1]       # hand: yellow, red
    assert shared[253:256] == [1, 1, 0]                # took tokens, took a card, not triggered
    assert shared[256:258] == [3, 3]
    # Player 1's view: blocks swapped, shared part the same except the player order of turns.
    view1 = [float(v) for v in state.observation_tensor(1)]
    assert view1[:612] == p1 and view1[612:1224] == obs[:612] and view1[1224:] == shared
    assert [float(v) for v in state.observation_tensor()] == obs
    # Spirit options show before the choice.
    game = make_game(impl, spirits=True, chance="explicit")
    state = game.new_initial_state()
    play(state, *[f"draw {c}" for c in ["blue", "gray", "brown"] * 5],
         *[f"draw card {i}" for i in (1, 2, 3, 4, 5, 40, 35, 33, 41)])
    obs = [float(v) for v in state.observation_tensor(1)]
    assert obs[601:611] == [1, 0, 0, 0, 0, 0, 0, 0, 1, 0]
    assert obs[612 + 601: 612 + 611] == [0, 0, 1, 0, 0, 0, 0, 1, 0, 0]


# --------------------------------------------------------------------------- state dict

def test_state_dict_format_and_round_trip(impl):
    state = make_game(impl, players=3, spirits=True).new_initial_state(seed=3)
    d = plain(state.to_dict())
    assert list(d) == ["players", "central", "display", "deck", "spirit_deck", "pouch", "turn_player",
                       "hand", "took_tokens", "took_card", "end_triggered", "pending",
                       "current_player", "move_number", "rng"]
    assert list(d["players"][0]["board"]) == CELLS["A"]
    assert len(d["spirit_deck"]) == 4 and all(len(p["spirit_options"]) == 2 for p in d["players"])
    assert list(d["pouch"]) == list(COLOURS)
    again = make_game(impl, players=3, spirits=True).state_from_dict(d)
    assert plain(again.to_dict()) == d


def _bad(mutate, rebalance=True):
    """The base position, mutated; by default the deck is then recomputed so that a mutation of
    the players' cards is not also caught as a lost or duplicated card."""
    d = position(boards=[{"0,0": ["blue"], "2,2": ["brown", "green"]}, {}], cards=[[(5, 1)], []],
                 hand=["gray"])
    mutate(d)
    if rebalance and isinstance(d, dict) and d:
        held = {c["id"] for p in d["players"] for c in p["cards"]}
        d["deck"] = [i for i in range(1, 33) if i not in held and i not in d["display"]]
    return d


def _finished_first(d):
    d["players"][1]["board"].update({"4,3": ["blue"], "4,4": ["blue"]})
    d["pouch"]["blue"] -= 2
    d["players"][1]["cubes"] = ["4,3", "4,4"]
    d["players"][1]["cards"] = [{"id": 27, "cubes_placed": 2}, {"id": 20, "cubes_placed": 0}]


BAD_STATES = {
    "missing key": lambda d: d.pop("rng"),
    "extra key": lambda d: d.update(extra=1),
    "bad stack": lambda d: d["players"][0]["board"].update({"2,2": ["green", "brown"]}),
    "stack on yellow": lambda d: (d["players"][0]["board"].update({"0,1": ["yellow", "yellow"]}),
                                  d["pouch"].update(yellow=d["pouch"]["yellow"] - 2)),
    "off-board cell": lambda d: d["players"][0]["board"].update({"1,4": []}),
    "missing cell": lambda d: d["players"][0]["board"].pop("4,4"),
    "cube on empty cell": lambda d: d["players"][0].update(cubes=["4,4"]),
    "cubes do not match cards": lambda d: d["players"][0].update(cubes=[]),
    "too many cubes placed": lambda d: d["players"][0]["cards"][0].update(cubes_placed=6),
    "card twice": lambda d: d["players"][1]["cards"].append({"id": 5, "cubes_placed": 0}),
    "card in display and hand": lambda d: d["players"][1]["cards"].append(
        {"id": d["display"][0], "cubes_placed": 0}),
    "spirit without the option": lambda d: (d["players"][1]["cards"].append({"id": 33, "cubes_placed": 0})),
    "token count": lambda d: d["pouch"].update(blue=d["pouch"]["blue"] + 1),
    "unknown colour": lambda d: d.update(hand=["pink"]),
    "hand not in colour order": lambda d: (d.update(hand=["yellow", "gray"]),
                                           d["pouch"].update(yellow=d["pouch"]["yellow"] - 1)),
    "hand without taking": lambda d: d.update(took_tokens=False),
    "bad current player": lambda d: d.update(current_player=1),
    "chance in implicit game": lambda d: d.update(current_player=-1),
    "terminal without trigger": lambda d: d.update(current_player=-4),
    "turns out of order": lambda d: d["players"][1].update(turns=7),
    "bad rng": lambda d: d.update(rng=12),
    "central wrong size": lambda d: d["central"].pop(),
    "central space of 2": lambda d: (d["central"][1].pop(), d["pouch"].update(
        yellow=d["pouch"]["yellow"] + 1)),
    "five unfinished cards": lambda d: d["players"][1].update(
        cards=[{"id": i, "cubes_placed": 0} for i in (20, 21, 22, 23, 24)]),
    "finished before unfinished": _finished_first,
    "pending work in implicit game": lambda d: d.update(
        pending={"spaces": [], "slots": [], "spirits": [1]}),
    "a card lost": lambda d: d["deck"].pop(),
    "not a dict": lambda d: d.clear(),
}
NOT_REBALANCED = {"card twice", "card in display and hand", "a card lost"}


@pytest.mark.parametrize("name", list(BAD_STATES))
def test_state_from_dict_rejects_inconsistent_states(impl, name):
    d = _bad(BAD_STATES[name], rebalance=name not in NOT_REBALANCED)
    with pytest.raises(ValueError):
        load(impl, d, players=2)


def test_state_from_dict_ok_variants_of_the_bad_ones(impl):
    """The mutations above that have a consistent twin are accepted in that form."""
    d = _bad(_finished_first)
    d["players"][1]["cards"] = d["players"][1]["cards"][::-1]
    assert plain(load(impl, d).to_dict()) == d
    d = _bad(lambda d: d["players"][1].update(cards=[{"id": i, "cubes_placed": 0} for i in (20, 21, 22, 23)]))
    assert plain(load(impl, d).to_dict()) == d


def test_state_from_dict_accepts_the_base_position(impl):
    d = _bad(lambda d: None)
    assert plain(load(impl, d).to_dict()) == d


# =========================================================================== (c) random games

from games import choose_random as random_outcome  # noqa: E402  (the shared random chooser)


CONFIGS = {
    "2p-A": ({"players": 2}, 300),
    "2p-B-spirits": ({"players": 2, "side": "B", "spirits": True}, 300),
    "4p": ({"players": 4}, 100),
    "solo": ({"players": 1}, 300),
    "solo-spirits-B": ({"players": 1, "spirits": True, "side": "B"}, 100),
    "3p-explicit-spirits": ({"players": 3, "chance": "explicit", "spirits": True}, 100),
    "2p-explicit": ({"players": 2, "chance": "explicit"}, 150),
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_random_games_invariants(config):
    params, games = CONFIGS[config]
    game = make_game("reference", **params)
    players = params["players"]
    for seed in range(games):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        kept = None
        ply = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal and legal == sorted(set(legal))
            mask = state.legal_actions_mask()
            assert [a for a, m in enumerate(mask) if m] == legal
            if state.is_chance_node():
                assert len(mask) == 43
                outcomes = state.chance_outcomes()
                assert [o for o, _ in outcomes] == legal
                assert math.isclose(sum(p for _, p in outcomes), 1.0)
            else:
                assert len(mask) == 268 and int(state.current_player()) in range(players)
            if ply % 7 == seed % 7:
                d = state.to_dict()
                again = game.state_from_dict(d)
                assert again.to_dict() == d and again.legal_actions() == legal
                assert len(state.observation_tensor()) == game.observation_shape()[0]
                assert state.returns() == [0.0] * players
            if ply == 20:
                kept = (state.clone(), state.to_dict())
            state.apply_action(random_outcome(state, rng))
            ply += 1
            assert ply <= game.max_game_length()
        assert ply == state.move_number()
        if kept:  # the clone did not move with the state
            assert kept[0].to_dict() == kept[1]
            clone = kept[0]
            while not clone.is_terminal():
                clone.apply_action(random_outcome(clone, rng))
            assert clone.to_dict() != kept[1]
        d = state.to_dict()
        assert game.state_from_dict(d).to_dict() == d and d["end_triggered"]
        returns = state.returns()
        scores = [state.score_breakdown(p) for p in range(players)]
        if players == 1:
            kept_spirit = next((c["id"] for c in d["players"][0]["cards"] if c["id"] >= 33), None)
            assert returns == [float(REF.suns(scores[0]["total"], params.get("side", "A"),
                                              params.get("spirits", False), kept_spirit))]
        else:
            keys = [(s["total"], s["cubes"]) for s in scores]
            for p in range(players):
                beats = sum(keys[p] > k for k in keys)
                beaten = sum(k > keys[p] for k in keys)
                assert returns[p] == pytest.approx((beats - beaten) / (players - 1))
            assert math.isclose(sum(returns), 0.0, abs_tol=1e-9)
        turns = [p["turns"] for p in d["players"]]
        assert len(set(turns)) == 1  # everybody played equally often
        for p in range(players):
            board = state.board(p)
            assert scores[p] == REF.score(board["board"], game.side, board["cards"])


def test_pickle_and_clone_round_trip():
    game = make_game("reference", players=3, spirits=True, chance="explicit")
    state = game.new_initial_state(seed=4)
    rng = random.Random(4)
    for _ in range(60):
        state.apply_action(random_outcome(state, rng))
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and copy.to_dict() == state.to_dict()
    assert str(state) and "harmonies" in repr(state)


def test_reference_speed_report():
    """Not an assertion of speed: prints the reference's rate (pytest -s shows it)."""
    game = make_game("reference", players=2, spirits=True)
    rng = random.Random(0)
    start, actions, games = time.perf_counter(), 0, 0
    while time.perf_counter() - start < 0.5:
        state = game.new_initial_state(seed=games)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    print(f"\nharmonies reference, 2 players with spirits: {games / elapsed:.0f} games/s, "
          f"{actions / elapsed:.0f} actions/s")
    assert games > 0
