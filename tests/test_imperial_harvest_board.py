"""meeple.imperial_harvest.Board: load, random, validate, render, to_dict."""
import copy

import meeple
import numpy as np
import pytest
from meeple import _core
from meeple.imperial_harvest import Board, data


def _game_for(board):
    """The C++ engine built from a Board's dict (a cross-check of the Python geometry)."""
    return _core.ImperialHarvestGame(board=board.name, boards={"boards": {board.name: board.to_dict()}},
                                     tiles=data("tiles"), characters=data("characters"))


def _with(board_dict, **changes):
    d = copy.deepcopy(board_dict)
    d.update(changes)
    return Board.from_dict(d, "broken")


@pytest.mark.parametrize("name", ["standard", "symmetric"])
def test_load_round_trip(name):
    board = Board.load(name)
    board.validate()
    assert board.name == name
    assert board.to_dict() == data("boards")["boards"][name]
    assert Board.from_dict(board.to_dict(), name) == board


def test_load_unknown_name():
    with pytest.raises(ValueError, match="unknown board 'nope'.*standard"):
        Board.load("nope")


def test_standard_hedges_match_engine():
    board = Board.load("standard")
    game = meeple.load("imperial_harvest")
    assert game.board_hedges() == board.to_dict()["hedges"]


def test_render_matches_game_str():
    board = Board.load("standard")
    text = str(board)
    assert text == board.render()
    game_lines = str(meeple.load("imperial_harvest").new_initial_state()).splitlines()
    lines = text.splitlines()
    top = game_lines.index(lines[1])  # the column header, after the game's status lines
    # the grid equals the game's once the characters (first two characters of a cell) are blanked
    for mine, theirs in zip(lines[2:23], game_lines[top + 1:top + 22], strict=True):
        assert len(mine) == len(theirs)
        for i in range(len(mine)):
            cell_pos = (i - 5) % 4
            if i >= 5 and cell_pos in (0, 1) and theirs[i] not in "~H=:":
                continue
            if i >= 5 and cell_pos == 2 and mine[i] in "IR" and theirs[i] in "IR":
                continue
            assert mine[i] == theirs[i], (mine, theirs, i)
    assert " 2  |        H1~ ~~~ ~~~ ::: ~~~ ~~~        |" in lines


def test_random_deterministic_and_seed_dependent():
    assert Board.random(5).to_dict() == Board.random(5).to_dict()
    assert Board.random(5).name == "random-5"
    assert len({str(Board.random(s).to_dict()) for s in range(10)}) == 10


def test_random_boards_valid_and_agree_with_engine():
    tiles = data("tiles")
    for seed in range(60):
        board = Board.random(seed)
        board.validate()
        d = board.to_dict()
        assert set(d["tiles"]) == set(tiles["board"]["rect_slots"]) | set(tiles["board"]["square_slots"])
        assert len({face[:-1] for face, _ in d["tiles"].values()}) == 12  # every physical tile once
        assert len(d["bridges"]) == 4
        std = data("boards")["boards"]["standard"]
        for key in ("camps", "insignia", "start_spaces", "hydras", "strawberries"):
            assert d[key] == std[key]
        if seed < 20:
            game = _game_for(board)
            assert game.board_hedges() == d["hedges"]  # the C++ tile builder agrees
            state = game.new_initial_state()
            assert len(state.legal_actions()) == 3


def test_random_seed_is_checked_as_game_seeds_are():
    """An int or numpy integer in 0..2**64-1 (a game seed: board='random' draws Board.random(seed)
    for new_initial_state(seed=seed)); TypeError for another type, ValueError out of range."""
    assert Board.random(np.uint64(2**64 - 1)).to_dict() == Board.random(2**64 - 1).to_dict()
    assert Board.random(np.int32(3)).to_dict() == Board.random(3).to_dict()
    for bad in ("x", 1.5, None, True, np.True_):
        with pytest.raises(TypeError, match="seed must be an int"):
            Board.random(bad)
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="seed must be an int in 0..2\\*\\*64-1"):
            Board.random(bad)


STD = data("boards")["boards"]["standard"]


@pytest.mark.parametrize("changes, message", [
    (dict(hedges=STD["hedges"][1:]), "hedges inconsistent with tiles.*1,5\\|1,6.*lacks it"),
    (dict(hedges=STD["hedges"] + [[[0, 4], [1, 4]]]), "hedges inconsistent with tiles: 0,4\\|1,4 is listed"),
    (dict(hedges=STD["hedges"] + [[[0, 4], [2, 4]]]), "does not join two orthogonal neighbours"),
    (dict(hedges=STD["hedges"] + [STD["hedges"][0]]), "listed twice"),
    (dict(tiles={**STD["tiles"], "T1": ["L9a", 3]}), "slot T1 has unknown tile face 'L9a'"),
    (dict(tiles={**STD["tiles"], "T1": ["L6a", 0]}), "slot T1: rotation 0 of L6a does not fit"),
    (dict(tiles={**STD["tiles"], "T1": ["S1a", 1]}), "slot T1: rotation 1 of S1a does not fit|tile face S1a is 2x2"),
    (dict(tiles={**STD["tiles"], "T2": ["L6b", 3]}), "tile L6 used twice"),
    (dict(tiles={k: v for k, v in STD["tiles"].items() if k != "R2"}), "no tile in slot R2"),
    (dict(bridges=[[2, 2], [2, 6], [5, 2], [5, 7]]), "bridge 2,2 is not on a non-elbow moat cell"),
    (dict(bridges=[[2, 3], [2, 4], [2, 6], [5, 7]]), "moat tile top_left has two bridges"),
    (dict(bridges=[[2, 3], [2, 6], [5, 7]]), "moat tile top_right has no bridge"),
    (dict(bridges=[[3, 2], [2, 6], [5, 2], [5, 7]]), "bridge 3,2 is not a legal spot"),
    (dict(hydras=[[2, 2], [2, 2]]), "two hydras"),
    (dict(hydras=[[2, 2], [0, 0]]), "hydra at 0,0 is not on water"),
    (dict(hydras=[[2, 3], [2, 7]]), "hydra at 2,3 is not on water"),
    (dict(strawberries=STD["strawberries"] + [[3, 1]]), "two strawberries on one cell"),
    (dict(strawberries=[[2, 4]]), "strawberry at 2,4 is in the moat"),
    (dict(start_spaces={"imperial": [[8, 0], [9, 0], [0, 0]], "raiders": STD["start_spaces"]["raiders"]}),
     "imperial start space 0,0 is not in its character camp"),
    (dict(camps={**STD["camps"], "imperial_character": "top_left"}), "two camps share a corner"),
    (dict(camps={**STD["camps"], "imperial_character": "middle"}), "unknown corner 'middle'"),
])
def test_invalid_boards_rejected(changes, message):
    with pytest.raises(ValueError, match=message):
        _with(STD, **changes).validate()


def test_unreachable_garden_cell():
    sym = data("boards")["boards"]["symmetric"]  # no tiles: hedges are free
    walled = sym["hedges"] + [[[3, 0], [4, 0]], [[4, 0], [4, 1]]]  # (4,0): hedges W, S and (E, existing)
    with pytest.raises(ValueError, match="garden cell 4,0 is not reachable from the imperial character camp"):
        _with(sym, hedges=walled).validate()


def test_moat_tile_without_bridge_spot():
    sym = data("boards")["boards"]["symmetric"]
    # close the outer end of every top-left spot: (3,1)|(3,2), (4,1)|(4,2), (1,3)|(2,3), (1,4)|(2,4)
    closed = sym["hedges"] + [[[3, 1], [3, 2]], [[4, 1], [4, 2]], [[1, 3], [2, 3]], [[1, 4], [2, 4]]]
    with pytest.raises(ValueError, match="moat tile top_left has no legal bridge spot"):
        _with(sym, hedges=closed).validate()


def test_malformed_records():
    with pytest.raises(ValueError, match="missing key 'bridges'"):
        Board.from_dict({k: v for k, v in STD.items() if k != "bridges"})
    with pytest.raises(ValueError, match="cell 10,0 is off the board"):
        _with(STD, strawberries=[[10, 0]])
    with pytest.raises(ValueError, match="expected a cell"):
        _with(STD, bridges=[[1, 2, 3]])


def test_board_parameter_takes_names_not_board_objects():
    """D18: `board=` is a name ('random' plus board_seed), never a Board or dict, so that
    parameters() stays plain and a game rebuilds from it."""
    for bad in (Board.load("standard"), Board.load("standard").to_dict(), "moon"):
        with pytest.raises(ValueError, match="'standard' \\| 'symmetric' \\| 'random'"):
            meeple.load("imperial_harvest", board=bad)
