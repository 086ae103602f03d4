"""The Harmonies C++ engine (meeple.harmonies): exact scoring of real final boards, state layout,
random-game invariants for the main configurations in both chance modes, documents, and a few
rules checked on hand-built positions (docs/rules/harmonies.md; the main rule tests are in
tests/test_harmonies_reference.py, run on both implementations)."""
from __future__ import annotations

import copy
import json
import pickle
import random
from importlib import resources

import numpy as np
import pytest

import meeple
from meeple.harmonies import cards_in_play, describe_card, score

COLOURS = ["blue", "gray", "brown", "green", "yellow", "red"]
BGA = json.loads((resources.files("meeple") / "data" / "harmonies" / "bga_final_boards.json").read_text())
CARDS = json.loads((resources.files("meeple") / "data" / "harmonies" / "cards.json").read_text())
CUBES = {c["id"]: len(c["points"]) for c in CARDS["animal_cards"]} | {c["id"]: 1 for c in CARDS["spirit_cards"]}
NAMES = {c["id"]: c["name"] for c in CARDS["animal_cards"]} | {c["id"]: "spirit-" + c["name"] for c in CARDS["spirit_cards"]}

CONFIGS = [
    pytest.param({"players": 2, "side": "A"}, id="2p-A"),
    pytest.param({"players": 2, "side": "B", "spirits": True}, id="2p-B-spirits"),
    pytest.param({"players": 4}, id="4p"),
    pytest.param({"players": 1}, id="solo"),
]


def load(chance="implicit", **params):
    return meeple.load("harmonies", chance=chance, **params)


# ------------------------------------------------------------------------------ helpers


def canonical_cards(cards):
    """A BGA card list in state-dict order: unfinished first (as listed), then finished by id."""
    unfinished = [c for c in cards if c["cubes_placed"] < CUBES[c["id"]]]
    finished = sorted((c for c in cards if c["cubes_placed"] == CUBES[c["id"]]), key=lambda c: c["id"])
    return [dict(c) for c in unfinished + finished]


def take_card(d, card_id):
    """Removes an animal card from the deck or display of state dict `d` (a display slot is
    refilled from the deck so the position stays one the game can show)."""
    if card_id in d["deck"]:
        d["deck"].remove(card_id)
    elif card_id in d["display"]:
        slot = d["display"].index(card_id)
        d["display"][slot] = d["deck"].pop(0) if d["deck"] else None
    else:
        raise AssertionError(f"card {card_id} not available")


def put_board(d, player, board, cubes=(), cards=()):
    """Gives `player` the board (cells -> stacks), cubes and cards, taking tokens from the pouch and
    cards from the deck/display/spirit deck so every total stays right."""
    p = d["players"][player]
    for cell, stack in board.items():
        for colour in p["board"][cell]:
            d["pouch"][colour] += 1
        p["board"][cell] = list(stack)
        for colour in stack:
            d["pouch"][colour] -= 1
            assert d["pouch"][colour] >= 0, f"not enough {colour} tokens"
    p["cubes"] = sorted(cubes, key=lambda c: list(p["board"]).index(c))
    for c in cards:
        if c["id"] <= 32:
            take_card(d, c["id"])
        else:
            if c["id"] in d["spirit_deck"]:
                d["spirit_deck"].remove(c["id"])
            p["spirit_options"] = []
    p["cards"] = canonical_cards(cards)
    return d


def state_with(game, seed=0, boards=(), **fields):
    """A state of `game` at the start of player 0's first turn with the given boards
    [(player, board, cubes, cards), ...] and top-level fields replaced."""
    d = game.new_initial_state(seed=seed).to_dict()
    for player, board, cubes, cards in boards:
        put_board(d, player, board, cubes, cards)
    d.update(fields)
    return game.state_from_dict(d)


def bga_state(case):
    """The two final boards of a BGA case in a 2-player spirits state: each player keeps the
    spirit of the case, the two other dealt spirits are discarded (6 stay in the spirit deck)."""
    game = load(spirits=True, side=case["side"])
    d = game.new_initial_state(seed=1).to_dict()
    for i, player in enumerate(case["players"]):
        put_board(d, i, player["board"], player["cubes"], player["cards"])
    kept = {c["id"] for player in case["players"] for c in player["cards"] if c["id"] > 32}
    d["spirit_deck"] = [s for s in range(33, 43) if s not in kept][:6]
    # the game is over: player 1 has just ended the last turn (the space taken stays empty)
    for colour in d["central"][0]:
        d["pouch"][colour] += 1
    d["central"][0] = []
    for p in d["players"]:
        p["turns"] = 16
    d.update(turn_player=1, took_tokens=True, end_triggered=True, current_player=meeple.TERMINAL)
    return game.state_from_dict(d)


def random_states(game, seed, rng=None):
    """Yields (state, action) along one random game (action None at the end)."""
    rng = rng or random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            legal = state.legal_actions()
            action = int(legal[rng.randrange(len(legal))])
        yield state, action
        state.apply_action(action)
    yield state, None


# ------------------------------------------------------------------------------ scoring


@pytest.mark.parametrize("case", BGA["cases"], ids=[c["name"] for c in BGA["cases"]])
def test_bga_final_boards_score_exactly(case):
    for player in case["players"]:
        assert score(player, side=case["side"])["total"] == player["expected_score"]
        assert score(player["board"], case["side"], player["cards"])["total"] == player["expected_score"]
        # the module-level C++ function gives the same
        direct = meeple._core.harmonies_score_board(player["board"], case["side"], player["cards"], CARDS)
        assert direct == score(player, side=case["side"])


@pytest.mark.parametrize("case", BGA["cases"], ids=[c["name"] for c in BGA["cases"]])
def test_bga_final_boards_through_a_state(case):
    state = bga_state(case)
    for i, player in enumerate(case["players"]):
        breakdown = state.score_breakdown(i)
        assert breakdown["total"] == player["expected_score"]
        assert breakdown["total"] == sum(breakdown[k] for k in
                                         ("trees", "mountains", "fields", "buildings", "water", "animals", "spirit"))
        board = state.board(i)
        assert board["board"] == {k: v for k, v in board["board"].items()} and set(board["board"]) == set(player["board"])
        assert all(board["board"][k] == v for k, v in player["board"].items())
        assert board["cubes"] == sorted(player["cubes"], key=list(board["board"]).index)
        assert board["cards"] == canonical_cards(player["cards"])
        assert score(board, side=case["side"]) == breakdown
    # round trip of such a state, and its result
    assert state.is_terminal() and state.game.state_from_dict(state.to_dict()) == state
    a, b = (state.score_breakdown(i) for i in range(2))
    if (a["total"], a["cubes"]) != (b["total"], b["cubes"]):
        winner = 0 if (a["total"], a["cubes"]) > (b["total"], b["cubes"]) else 1
        assert list(state.returns()) == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])


def test_player_arguments_are_checked():
    state = load(players=2).new_initial_state(seed=1)
    for method in (state.score_breakdown, state.board):
        for bad, error in ((2, ValueError), (-1, ValueError), (2**64, ValueError), (True, TypeError),
                           (None, TypeError)):
            with pytest.raises(error, match="player must be an int"):
                method(bad)
        assert method(np.int8(1)) == method(1)


def test_score_breakdown_parts():
    # Two adjacent mountains (1 + 3), a lone one (0); trees 1 + 3 + 7; a field of 2 (5) and a lone
    # yellow (0); a river of 3 in a line (5).
    board = {"0,0": ["gray"], "0,1": ["gray", "gray"], "2,4": ["gray"],
             "4,0": ["green"], "4,1": ["brown", "green"], "4,2": ["brown", "brown", "green"],
             "2,0": ["yellow"], "2,1": ["yellow"], "1,3": ["yellow"],
             "3,0": ["blue"], "3,1": ["blue"], "3,2": ["blue"]}
    s = score(board)
    assert (s["mountains"], s["trees"], s["fields"], s["water"]) == (4, 11, 5, 5)
    assert s["buildings"] == s["animals"] == s["spirit"] == s["cubes"] == 0
    assert s["total"] == 25


def test_water_is_the_longest_shortest_path():
    # A ring of 6 blue around 2,2: every shortest path has at most 4 tokens -> 8 points.
    ring = {c: ["blue"] for c in ("2,1", "3,1", "3,2", "2,3", "1,2", "1,1")}
    assert score(ring)["water"] == 8
    # A straight column of 5 -> 11; two columns of 5 and 2 -> still 11 (longest river only).
    assert score({f"0,{r}": ["blue"] for r in range(5)})["water"] == 11
    column = {f"0,{r}": ["blue"] for r in range(5)} | {"4,0": ["blue"], "4,1": ["blue"]}
    assert score(column)["water"] == 11
    # 8 tokens on the longest shortest path -> 15 + 4 + 4 (4,0 is a leaf beside the path:
    # 3,0 touches 4,1 directly)
    path = {f"{c},0": ["blue"] for c in range(5)} | {f"4,{r}": ["blue"] for r in range(1, 5)}
    assert score(path)["water"] == 23
    # the column 0,0..0,4 with 1,3 2,4 3,3: 0,3 touches 1,3, so 7 tokens -> 19
    branch = {f"0,{r}": ["blue"] for r in range(5)} | {"1,3": ["blue"], "2,4": ["blue"], "3,3": ["blue"]}
    assert score(branch)["water"] == 19
    assert score({"2,2": ["blue"]})["water"] == 0


def test_side_b_islands():
    assert score({}, side="B")["water"] == 5  # the empty board is one island
    # a column of blue splits the board in two
    wall = {f"3,{r}": ["blue"] for r in range(3)}
    assert score(wall, side="B")["water"] == 10
    with pytest.raises(ValueError, match="4,4"):
        score({"4,4": ["blue"]}, side="B")  # not a side B cell


def cells_of(side):
    heights = [5, 4, 5, 4, 5] if side == "A" else [4, 3, 4, 3, 4, 3, 4]
    return [(c, r) for c in range(len(heights)) for r in range(heights[c])]


def neighbours(cell, cells):
    c, r = cell
    steps = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)) if c % 2 == 0 else \
            ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
    return [(c + dc, r + dr) for dc, dr in steps if (c + dc, r + dr) in cells]


def groups(members, cells):
    members, out = set(members), []
    while members:
        todo, group = [members.pop()], set()
        while todo:
            x = todo.pop()
            group.add(x)
            for n in neighbours(x, cells):
                if n in members:
                    members.discard(n)
                    todo.append(n)
        out.append(group)
    return out


def slow_board_score(board, side):
    """Trees, mountains, fields, buildings and water written plainly from the rules (point 18-19)."""
    cells = set(cells_of(side))
    stack = {cell: tuple(board.get(f"{cell[0]},{cell[1]}", ())) for cell in cells}
    trees = {("green",): 1, ("brown", "green"): 3, ("brown", "brown", "green"): 7}
    mountain = {("gray",): 1, ("gray", "gray"): 3, ("gray", "gray", "gray"): 7}
    out = {"trees": sum(trees.get(s, 0) for s in stack.values())}
    out["mountains"] = sum(mountain[s] for x, s in stack.items() if s in mountain
                           and any(stack[n] in mountain for n in neighbours(x, cells)))
    out["fields"] = 5 * sum(len(g) >= 2 for g in groups([x for x, s in stack.items() if s == ("yellow",)], cells))
    buildings = [x for x, s in stack.items() if len(s) == 2 and s[1] == "red"]
    out["buildings"] = 5 * sum(len({stack[n][-1] for n in neighbours(x, cells) if stack[n]}) >= 3 for x in buildings)
    blue = [x for x, s in stack.items() if s == ("blue",)]
    if side == "A":
        longest = 0
        for g in groups(blue, cells):
            for start in g:
                dist, todo = {start: 0}, [start]
                for x in todo:
                    for n in neighbours(x, cells):
                        if n in g and n not in dist:
                            dist[n] = dist[x] + 1
                            todo.append(n)
                longest = max(longest, max(dist.values()) + 1)
        out["water"] = [0, 0, 2, 5, 8, 11, 15][longest] if longest <= 6 else 15 + 4 * (longest - 6)
    else:
        out["water"] = 5 * len(groups([x for x in cells if x not in blue], cells))
    return out


STACKS = [[], ["blue"], ["blue"], ["yellow"], ["yellow"], ["green"], ["brown", "green"], ["brown", "brown", "green"],
          ["gray"], ["gray", "gray"], ["gray", "gray", "gray"], ["gray", "red"], ["brown", "red"], ["red", "red"],
          ["brown"], ["brown", "brown"], ["red"]]


@pytest.mark.parametrize("side", ["A", "B"])
def test_scoring_matches_a_plain_implementation(side):
    rng = random.Random(side)
    for _ in range(3000):
        weights = [rng.random() for _ in STACKS]
        board = {f"{c},{r}": rng.choices(STACKS, weights)[0] for c, r in cells_of(side)}
        got = score(board, side=side)
        want = slow_board_score(board, side)
        assert {k: got[k] for k in want} == want, board


def test_buildings_need_three_colours_around():
    base = {"2,2": ["gray", "red"], "2,1": ["blue"], "3,2": ["yellow"]}
    assert score(base)["buildings"] == 0
    assert score(base | {"1,2": ["brown", "green"]})["buildings"] == 5   # green top
    assert score(base | {"1,2": ["brown", "red"]})["buildings"] == 5     # red top (a building)
    assert score(base | {"1,2": ["yellow"]})["buildings"] == 0           # yellow again


def test_animal_and_spirit_cards():
    frog = {"id": 5, "cubes_placed": 3}  # points 2/4/6/10/15 -> 6
    assert score({}, cards=[frog])["animals"] == 6
    assert score({}, cards=[frog])["cubes"] == 3
    assert score({}, cards=[{"id": 5, "cubes_placed": 0}])["animals"] == 0
    trees = {"4,0": ["green"], "4,1": ["brown", "green"], "4,2": ["brown", "brown", "green"]}
    assert score(trees, cards=[{"id": 36, "cubes_placed": 1}])["spirit"] == 3 + 3 + 1  # owl
    assert score(trees, cards=[{"id": 36, "cubes_placed": 0}])["spirit"] == 0
    assert score(trees, cards=[{"id": 36, "cubes_placed": 1}])["cubes"] == 0  # spirit cube not counted
    yellow = {"0,0": ["yellow"], "0,1": ["yellow"], "0,2": ["yellow"], "4,4": ["yellow"], "2,0": ["yellow"], "3,0": ["yellow"]}
    assert score(yellow, cards=[{"id": 33, "cubes_placed": 1}])["spirit"] == 10 + 2 + 2  # lion: 3, 1, 2


def test_score_rejects_bad_boards():
    with pytest.raises(ValueError, match="stacking"):
        score({"0,0": ["blue", "blue"]})
    with pytest.raises(ValueError, match="colour"):
        score({"0,0": ["purple"]})
    with pytest.raises(ValueError):
        score({"9,9": ["blue"]})
    with pytest.raises(ValueError):
        score({}, cards=[{"id": 99, "cubes_placed": 0}])
    with pytest.raises(ValueError):
        score({}, cards=[{"id": 5, "cubes_placed": 6}])
    with pytest.raises(ValueError):
        score({}, cards=[{"id": 5, "cubes_placed": 1}, {"id": 5, "cubes_placed": 1}])
    with pytest.raises(ValueError):
        score({}, side="C")
    with pytest.raises(ValueError):
        score([])
    with pytest.raises(ValueError, match="cards must be a list"):
        score({}, cards=None)
    with pytest.raises(ValueError, match="cards must be a list"):
        score({"board": {}, "cards": "5"})
    with pytest.raises(ValueError, match="player 'board' must be a dict"):
        score({"board": [["blue"]]})


# ------------------------------------------------------------------------------ layout


def test_state_size():
    size = meeple.harmonies.State.state_size_bytes
    assert size <= 512
    for players in (1, 2, 3, 4):
        assert type(load(players=players).new_initial_state()).state_size_bytes == size


def rendered_cells(text, player=0):
    """{"col,row": cell text} of one player's board in str(state), read by the column numbers on
    top and the row number that starts each line, as a person playing would read them."""
    lines = text.splitlines()
    top = [i for i, line in enumerate(lines) if line.startswith(f"Player {player}")][0] + 1
    columns = {i: int(number) for i, number in enumerate(lines[top]) if number.isdigit()}
    cells = {}
    for line in lines[top + 1:]:
        if not line[:4].strip().isdigit():
            break
        row = int(line[:4])
        for i, char in enumerate(line):
            if char == "[":
                cells[f"{columns[i + 2]},{row}"] = line[i:i + 6]
    return cells


@pytest.mark.parametrize("side", ["A", "B"])
def test_board_string_shows_the_cell_names(side):
    """str(state) labels columns and rows, so each "place ... col,row" of the terminal game
    lands where the board drawing says that cell is."""
    state = load(side=side).new_initial_state(seed=3)
    state.apply_action(state.string_to_action("take 0"))
    places = [a for a in state.legal_actions() if state.action_to_string(a).startswith("place")]
    cells = {state.action_to_string(a).split()[-1] for a in places}
    assert set(rendered_cells(str(state))) == cells and len(cells) == (23 if side == "A" else 25)
    for action in places:
        after = state.clone()
        after.apply_action(action)
        _, colour, cell = after.action_to_string(action).split()
        drawn = rendered_cells(str(after))
        assert drawn[cell] == "[" + "BSTGYR"[COLOURS.index(colour)] + "   ]"
        assert all(text == "[.   ]" for name, text in drawn.items() if name != cell)


def test_a_long_result_line_is_wrapped():
    """Three players sharing a win on cubes among four: an 86-column line before it was wrapped
    (a random game found by a review: about 1 in 216,000)."""
    import random

    state, rng = load(players=4).new_initial_state(seed=216288), random.Random(216288)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.randrange(len(legal))]))
    lines = str(state).splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("Game over: "))
    assert lines[at:at + 2] == ["Game over: players 1 and 2 and 3 share the win on cubes placed (points 18, 18,",
                                "  18, 18)"]
    assert max(map(len, lines)) <= 80


@pytest.mark.parametrize("players", [1, 2, 3])
def test_board_string_names_the_result_and_the_letters(players):
    """A finished game's text names the winner (or the shared win, or the solo points and suns) as
    returns() ranks them, with every player's points; every text ends with the token letters."""
    import random

    seen = set()
    for seed in range(400):
        state, rng = load(players=players).new_initial_state(seed=seed), random.Random(seed)
        text = str(state)
        assert "  cards: none" in text and text.endswith("* a cube\n") and "Tokens: B blue, S gray" in text
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))
        returns, points = state.returns(), [state.score_breakdown(p)["total"] for p in range(players)]
        text = str(state)  # the result's line, joined again where it is wrapped
        line = " ".join(text[text.index("Game over: "):text.index("\nTokens: ")].split())
        if players == 1:
            suns = int(returns[0])
            assert line == f"Game over: {points[0]} points, {suns} sun{'' if suns == 1 else 's'}"
            return
        top = [p for p in range(players) if returns[p] == returns.max()]
        who = f"player {top[0]} wins" if len(top) == 1 else f"players {' and '.join(map(str, top))} share the win"
        on_cubes = " on cubes placed" if len(top) < points.count(max(points)) else ""
        assert line == f"Game over: {who}{on_cubes} (points {', '.join(map(str, points))})"
        seen.add((len(top) > 1, bool(on_cubes)))
        if len(seen) == 3:  # a win, a shared win and a win on cubes
            return
    assert players == 3 and seen, seen


def test_game_description():
    for players in (1, 2, 3, 4):
        for chance in ("implicit", "explicit"):
            game = load(players=players, chance=chance)
            assert game.num_distinct_actions() == 268
            assert game.max_chance_outcomes() == 43
            assert game.observation_shape() == (players * 612 + 256 + players,)
            assert game.max_game_length() == 1000
            assert game.num_players() == players
    with pytest.raises(ValueError):
        load(players=5)
    with pytest.raises(ValueError):
        load(side="C")
    with pytest.raises(ValueError):
        load(chance="sometimes")


# ------------------------------------------------------------------------------ random games


@pytest.mark.parametrize("chance", ["implicit", "explicit"])
@pytest.mark.parametrize("params", CONFIGS)
def test_random_game_invariants(params, chance):
    game = load(chance=chance, **params)
    P = game.num_players()
    for seed in range(12):
        last_move = -1
        for state, action in random_states(game, seed):
            assert state.move_number() == last_move + 1 or last_move == -1
            last_move = state.move_number()
            d = state.to_dict()
            again = game.state_from_dict(d)
            assert again == state and again.to_dict() == d
            obs = state.observation_tensor()
            assert obs.shape == game.observation_shape() and obs.dtype == np.float32
            if state.is_terminal():
                returns = state.returns()
                if P > 1:
                    assert abs(returns.sum()) < 1e-9 and np.all(np.abs(returns) <= 1)
                else:
                    assert 0 <= returns[0] <= 12
                assert d["current_player"] == meeple.TERMINAL and d["end_triggered"]
                break
            assert np.all(state.returns() == 0)
            if state.is_chance_node():
                assert chance == "explicit"
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
                assert [o for o, _ in outcomes] == list(state.legal_actions())
                assert all(0 <= o < 43 for o, _ in outcomes)
                assert state.action_to_string(action).startswith("draw ")
                assert state.string_to_action(state.action_to_string(action)) == action
            else:
                assert chance == "implicit" or not any(d["pending"].values())
                legal = [int(a) for a in state.legal_actions()]
                assert legal == sorted(set(legal)) and legal
                mask = state.legal_actions_mask()
                assert mask.sum() == len(legal) and all(mask[a] for a in legal)
                for a in legal:
                    assert state.string_to_action(state.action_to_string(a)) == a
                # an illegal action is refused and changes nothing
                illegal = next(a for a in range(268) if a not in legal)
                before = state.to_dict()
                with pytest.raises(ValueError):
                    state.apply_action(illegal)
                assert state.to_dict() == before
                # the hand: only while tokens are being placed
                assert d["took_tokens"] or not d["hand"]
                # card limit
                me = d["players"][d["turn_player"]]
                unfinished = [c for c in me["cards"] if c["cubes_placed"] < CUBES[c["id"]]]
                assert len(unfinished) <= 4
            for p in range(P):
                b = state.score_breakdown(p)
                assert b["total"] == sum(b[k] for k in ("trees", "mountains", "fields", "buildings", "water", "animals", "spirit"))
                board = d["players"][p]
                assert len(board["cubes"]) == sum(c["cubes_placed"] for c in board["cards"])


@pytest.mark.parametrize("params", CONFIGS)
def test_pickle_and_json_round_trips(params):
    for chance in ("implicit", "explicit"):
        game = load(chance=chance, **params)
        for i, (state, _) in enumerate(random_states(game, 3)):
            if i % 7:
                continue
            assert pickle.loads(pickle.dumps(state)) == state
            assert meeple.from_json(state.to_json()) == state
            assert game.from_json(state.to_json()).to_dict() == state.to_dict()
            assert copy.deepcopy(state) == state
        assert pickle.loads(pickle.dumps(game)).parameters() == game.parameters()


def test_same_seed_same_game():
    for params in ({}, {"players": 3, "spirits": True}, {"players": 1, "side": "B"}):
        game = load(**params)
        a = [s.to_dict() for s, _ in random_states(game, 5)]
        b = [s.to_dict() for s, _ in random_states(game, 5)]
        assert a == b
        assert game.new_initial_state(seed=1).to_dict() != game.new_initial_state(seed=2).to_dict()
        # a clone replays the same implicit draws
        state = game.new_initial_state(seed=9)
        rng = random.Random(1)
        while not state.is_terminal() and state.move_number() < 30:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))
        clone = state.clone()
        for s in (state, clone):
            r = random.Random(2)
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(int(legal[r.randrange(len(legal))]))
        assert state == clone


def test_explicit_and_implicit_setups_agree():
    """The explicit chance nodes are the implicit draws, in the same order: replaying the draws of
    an implicit setup as outcomes gives the same position (rng aside)."""
    for params in ({"players": 2, "spirits": True}, {"players": 1}):
        implicit = load(**params).new_initial_state(seed=4).to_dict()
        explicit = load(chance="explicit", **params).new_initial_state(seed=4)
        draws = []
        for space in implicit["central"]:
            draws += [COLOURS.index(c) for c in space]
        draws += implicit["display"]
        # spirits: player order, dealt order
        draws += [i for p in implicit["players"] for i in p["spirit_options"]]
        for a in draws:
            assert explicit.is_chance_node()
            explicit.apply_action(a)
        assert not explicit.is_chance_node()
        d = explicit.to_dict()
        for k in ("players", "central", "display", "deck", "spirit_deck", "pouch", "turn_player"):
            assert d[k] == implicit[k], k
        assert d["move_number"] == len(draws)


def test_random_playouts():
    for params in ({}, {"players": 4, "side": "B", "spirits": True}, {"players": 1, "chance": "explicit"}):
        game = load(**params)
        result = meeple.random_playouts(game, 200, seed=1)
        assert result.returns.shape == (200, game.num_players())
        assert np.all(result.lengths > 0) and np.all(result.lengths <= game.max_game_length())
        again = meeple.random_playouts(game, 200, seed=1, threads=2)
        assert np.array_equal(result.returns, again.returns) and np.array_equal(result.lengths, again.lengths)


# ------------------------------------------------------------------------------ hand-built positions


def first_turn(game, seed=0):
    state = game.new_initial_state(seed=seed)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    return state


def take_tokens(state, colours, space=0):
    """Puts exactly `colours` into central space `space` (swapping with the pouch) and takes it."""
    d = state.to_dict()
    for c in d["central"][space]:
        d["pouch"][c] += 1
    d["central"][space] = sorted(colours, key=COLOURS.index)
    for c in colours:
        d["pouch"][c] -= 1
    state = state.game.state_from_dict(d)
    state.apply_action(space)
    return state


def test_stacking_rules():
    game = load()
    state = take_tokens(first_turn(game), ["gray", "gray", "red"])
    place = lambda colour, cell: state.string_to_action(f"place {colour} {cell}")
    state.apply_action(place("gray", "0,0"))
    legal = set(map(int, state.legal_actions()))
    assert place("gray", "0,0") in legal and place("red", "0,0") in legal
    assert 267 not in legal  # tokens left in hand
    state.apply_action(place("gray", "0,0"))
    legal = set(map(int, state.legal_actions()))
    assert place("red", "0,0") not in legal  # red goes on one gray only
    state.apply_action(place("red", "1,0"))
    assert state.board(0)["board"]["0,0"] == ["gray", "gray"]
    d = state.to_dict()
    assert d["hand"] == [] and d["took_tokens"]
    assert 267 in state.legal_actions()


def test_every_stack_transition():
    allowed = {(): set(COLOURS), ("gray",): {"gray", "red"}, ("gray", "gray"): {"gray"},
               ("brown",): {"brown", "green", "red"}, ("brown", "brown"): {"green"}, ("red",): {"red"}}
    game = load()
    for stack in [(), ("blue",), ("gray",), ("gray", "gray"), ("gray", "gray", "gray"), ("brown",),
                  ("brown", "brown"), ("brown", "green"), ("red",), ("red", "red"), ("gray", "red"),
                  ("yellow",), ("green",), ("brown", "brown", "green"), ("brown", "red")]:
        for colour in COLOURS:
            state = first_turn(game)
            d = put_board(state.to_dict(), 0, {"2,2": list(stack)})
            state = take_tokens(game.state_from_dict(d), [colour, "blue", "blue"] if colour != "blue" else ["blue"] * 3)
            a = state.string_to_action(f"place {colour} 2,2")
            assert (a in state.legal_actions()) == (colour in allowed.get(stack, set())), (stack, colour)


def test_cube_needs_the_habitat_in_some_rotation():
    game = load()
    # frog (5): green next to blue, cube on the blue; place it rotated: green north of blue
    state = first_turn(game)
    d = put_board(state.to_dict(), 0, {"2,1": ["green"], "2,2": ["blue"], "0,0": ["blue"]},
                  cards=[{"id": 5, "cubes_placed": 0}])
    state = game.state_from_dict(d)
    cube_22 = state.string_to_action("cube frog 2,2")
    assert cube_22 == 160 + 11  # held card 0, cell 2,2 = index 11
    legal = set(map(int, state.legal_actions()))
    assert cube_22 in legal
    assert state.string_to_action("cube frog 0,0") not in legal  # blue without green
    state.apply_action(cube_22)
    assert cube_22 not in state.legal_actions()  # that cell holds a cube now
    assert state.board(0)["cubes"] == ["2,2"]
    assert state.board(0)["cards"] == [{"id": 5, "cubes_placed": 1}]
    assert state.score_breakdown(0)["animals"] == 2
    # tokens may not go on a cube
    state = take_tokens(state, ["blue", "blue", "gray"])
    assert state.string_to_action("place gray 2,2") not in state.legal_actions()


def test_card_limit_and_one_card_per_turn():
    game = load()
    state = first_turn(game)
    ids = [c for c in range(1, 33) if c not in state.to_dict()["display"]][:4]
    d = put_board(state.to_dict(), 0, {}, cards=[{"id": i, "cubes_placed": 0} for i in ids])
    state = game.state_from_dict(d)
    assert not any(155 <= a < 160 for a in state.legal_actions())  # 4 unfinished cards held
    state = first_turn(game)
    state.apply_action(155)
    assert not any(155 <= a < 160 for a in state.legal_actions())  # one card per turn


def test_spirit_choice_comes_first():
    game = load(spirits=True)
    state = game.new_initial_state(seed=2)
    assert list(state.legal_actions()) == [260, 261]
    options = state.to_dict()["players"][0]["spirit_options"]
    state.apply_action(261)
    d = state.to_dict()
    assert d["players"][0]["cards"] == [{"id": options[1], "cubes_placed": 0}]
    assert d["players"][0]["spirit_options"] == []
    assert options[0] not in d["spirit_deck"]  # the other one is discarded
    assert state.action_to_string(160) == f"cube {NAMES[options[1]]} 0,0"


def test_end_triggers_and_round_is_finished():
    game = load(players=3)
    state = first_turn(game)
    d = state.to_dict()
    colours = ["blue", "gray", "yellow", "green"]
    full = {cell: [colours[i % 4]] for i, cell in enumerate(list(d["players"][1]["board"])[:20])}
    put_board(d, 1, full)  # 3 empty cells left for player 1
    state = game.state_from_dict(d)
    rng = random.Random(0)

    def play_turn(s):
        p = s.current_player()
        while s.current_player() == p and not s.is_terminal():
            legal = [int(a) for a in s.legal_actions() if not 155 <= a < 260]
            s.apply_action(legal[-1] if 267 in legal else legal[rng.randrange(len(legal))])

    play_turn(state)  # player 0
    assert not state.to_dict()["end_triggered"]
    play_turn(state)  # player 1 fills to 0 empty cells: triggered, but the round goes on
    assert state.to_dict()["end_triggered"] and state.current_player() == 2
    play_turn(state)  # player 2 ends the round
    assert state.is_terminal()
    assert [p["turns"] for p in state.to_dict()["players"]] == [1, 1, 1]


def test_solo_discard_and_token_loss():
    game = load(players=1)
    state = take_tokens(first_turn(game), ["blue", "blue", "blue"])
    for _ in range(3):
        state.apply_action([a for a in state.legal_actions() if 5 <= a < 155][0])
    legal = list(state.legal_actions())
    assert 267 in legal and 262 in legal  # no card taken: may discard
    before = state.to_dict()
    discarded = before["display"][0]
    state.apply_action(262)
    after = state.to_dict()
    assert discarded not in after["display"] and discarded not in after["deck"]
    assert sum(after["pouch"].values()) == sum(before["pouch"].values()) - 9  # 3 spaces refilled
    lost = sum(len(s) for s in before["central"])  # the 6 untaken tokens left the game
    assert lost == 6
    assert after["turn_player"] == 0 and not after["took_tokens"]


def test_pouch_exhaustion_ends_the_round():
    """D3: a refill finding fewer than 3 tokens is skipped and triggers the end; the round goes on
    and ends after the last player's turn."""
    game = load(players=4)
    d = game.new_initial_state(seed=0).to_dict()
    tokens = dict(zip(COLOURS, [23, 23, 21, 19, 19, 15]))
    for space in d["central"]:
        for c in space:
            tokens[c] -= 1
    d["pouch"] = {c: 0 for c in COLOURS}
    d["pouch"]["blue"] = 2
    tokens["blue"] -= 2
    pool = []  # every other token on the boards, as tall legal stacks
    for stack in (["gray"] * 3, ["brown", "brown", "green"], ["red", "red"]):
        while all(tokens[c] >= stack.count(c) for c in stack):
            pool.append(stack)
            for c in stack:
                tokens[c] -= 1
    for c in COLOURS:
        pool += [[c]] * tokens[c]
    cells = list(d["players"][0]["board"])
    assert len(pool) <= 4 * (len(cells) - 3)
    for i, stack in enumerate(pool):
        d["players"][i % 4]["board"][cells[i // 4]] = stack
    state = game.state_from_dict(d)

    def play_turn(space):
        state.apply_action(space)
        while 267 not in state.legal_actions():
            state.apply_action([a for a in state.legal_actions() if 5 <= a < 155][0])
        state.apply_action(267)

    play_turn(0)
    d = state.to_dict()
    assert d["end_triggered"] and d["central"][0] == [] and d["pouch"]["blue"] == 2
    assert not state.is_terminal() and d["turn_player"] == 1
    play_turn(1)
    play_turn(2)
    assert not state.is_terminal() and state.current_player() == 3
    play_turn(3)
    assert state.is_terminal()
    d = state.to_dict()
    assert [s == [] for s in d["central"]] == [True, True, True, True, False]


def suns_of(total, side, spirits, groups_spirit):
    """Point 24: the suns of a solo game (D5: the side and spirit bonuses count at any score)."""
    suns = sum(total >= t for t in (40, 70, 90, 110, 130, 140, 150, 160))
    return suns + (side == "A") + 2 * (not spirits) + bool(groups_spirit)


def _solo_end_with_7_tokens_left(game):
    """A solo game's first turn played with 7 tokens left in the pouch, a card taken (its slot
    stays empty at the end), then `end`."""
    d = first_turn(game, seed=3).to_dict()
    drop = sum(d["pouch"].values()) - 7  # solo tokens may have left the game
    for c in COLOURS:
        k = min(drop, d["pouch"][c])
        d["pouch"][c] -= k
        drop -= k
    state = game.state_from_dict(d)
    state.apply_action(0)
    state.apply_action(155)
    while 267 not in state.legal_actions():
        state.apply_action([a for a in state.legal_actions() if 5 <= a < 155][0])
    state.apply_action(267)
    return state


@pytest.mark.parametrize("chance", ["implicit", "explicit"])
def test_solo_pouch_exhaustion_d4(chance):
    """D4: in solo, the refills stop when the pouch cannot fill all three spaces: the spaces it can
    fill are drawn, then the game is over at once (no display refill). The chance state in
    between is a position state_from_dict accepts."""
    game = load(players=1, chance=chance)
    state = _solo_end_with_7_tokens_left(game)
    if chance == "explicit":
        d = state.to_dict()
        assert d["pending"] == {"spaces": [0, 1], "slots": [], "spirits": []} and d["end_triggered"]
        assert game.state_from_dict(d) == state
        while state.is_chance_node():
            state.apply_action(int(state.legal_actions()[0]))
    assert state.is_terminal()
    d = state.to_dict()
    assert [len(s) for s in d["central"]] == [3, 3, 0] and sum(d["pouch"].values()) == 1
    assert d["display"][0] is None and d["turn_player"] == 0
    total = state.score_breakdown(0)["total"]
    assert list(state.returns()) == [suns_of(total, "A", False, False)]


def test_solo_suns():
    """Point 24: suns from points, +1 side A, +2 without spirits, +1 with a groups spirit (D5: the
    bonuses at any score; test_p24_d5_solo_suns has scores below 40)."""
    for side, spirits, kept in (("A", False, None), ("B", True, 33), ("B", True, 35), ("A", True, 37)):
        game = load(players=1, side=side, spirits=spirits)
        d = game.new_initial_state(seed=2).to_dict()
        d["players"][0]["spirit_options"] = []
        cards = []
        if kept:
            d["spirit_deck"] = [s for s in range(33, 43) if s != kept][:8]
            cards.append({"id": kept, "cubes_placed": 0})
        # a rich board: mountains and trees (scores vary with the cells used)
        cells = list(d["players"][0]["board"])
        board = {cells[i]: (["gray"] * 3 if i % 2 else ["brown", "brown", "green"]) for i in range(12)}
        put_board(d, 0, board, cards=cards)
        for colour in d["central"][0]:
            d["pouch"][colour] += 1
        d["central"][0] = []
        d["players"][0]["turns"] = 9
        d.update(took_tokens=True, end_triggered=True, current_player=meeple.TERMINAL)
        state = game.state_from_dict(d)
        total = state.score_breakdown(0)["total"]
        assert total >= 40
        groups = kept in (33, 34, 37, 38, 41)
        assert list(state.returns()) == [suns_of(total, side, spirits, groups)], (side, spirits, kept, total)


def test_ties_break_on_animal_cubes():
    game = load(players=3)
    d = game.new_initial_state(seed=5).to_dict()
    # player 0: a tree (1) and a frog cube (2) = 3 points, 1 animal cube; player 1: trees 1 + 3;
    # player 2: three trees (3), no cube
    put_board(d, 0, {"0,0": ["green"], "0,1": ["blue"]}, cubes=["0,1"], cards=[{"id": 5, "cubes_placed": 1}])
    put_board(d, 1, {"0,0": ["green"], "1,0": ["brown", "green"]}, cards=[])
    put_board(d, 2, {"0,0": ["green"], "1,0": ["green"], "2,0": ["green"]}, cards=[])
    for colour in d["central"][0]:
        d["pouch"][colour] += 1
    d["central"][0] = []
    for p in d["players"]:
        p["turns"] = 5
    d.update(turn_player=2, took_tokens=True, end_triggered=True, current_player=meeple.TERMINAL)
    state = game.state_from_dict(d)
    totals = [state.score_breakdown(i)["total"] for i in range(3)]
    cubes = [state.score_breakdown(i)["cubes"] for i in range(3)]
    assert totals == [3, 4, 3] and cubes == [1, 0, 0]
    # player 1 beats both; player 0 beats player 2 on cubes
    assert list(state.returns()) == [0.0, 1.0, -1.0]


def _first_dict_where(game, found, rng_seed, what):
    """The state dict of the first state, in random games of seeds 0..49 (moves drawn from
    random.Random(rng_seed)), for which found(state, dict) holds; fails if none does."""
    rng = random.Random(rng_seed)
    for seed in range(50):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            d = state.to_dict()
            if found(state, d):
                return d
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(int(outcomes[rng.randrange(len(outcomes))][0]))
            else:
                legal = state.legal_actions()
                state.apply_action(int(legal[rng.randrange(len(legal))]))
    pytest.fail(f"no {what} in 50 games")


def _empty_space(d, space):
    """Puts the tokens of central `space` back into the pouch (tokens stay conserved)."""
    for colour in d["central"][space]:
        d["pouch"][colour] += 1
    d["central"][space] = []


@pytest.mark.parametrize("players", [1, 2])
def test_a_draw_with_empty_central_spaces_is_refused(players):
    """Found by the state-dict fuzzer: at a card draw (a chance node with no central space to refill)
    the central spaces are settled, so at most the space taken this turn is empty. A dict with more
    empty spaces used to be accepted by both implementations and led to a turn with no legal action."""
    import meeple.reference

    params = {"players": players, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    d = _first_dict_where(
        game, lambda state, d: state.is_chance_node() and d["pending"]["slots"] and not d["pending"]["spaces"]
        and d["took_tokens"], 3, "card draw after taking tokens")
    game.state_from_dict(d)  # the real state is fine
    for space in range(len(d["central"])):
        _empty_space(d, space)
    for impl in (game, reference):
        with pytest.raises(ValueError, match="empty central space"):
            impl.state_from_dict(d)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("space", [0, 1, 4])
def test_a_card_draw_after_a_turn_has_the_taken_space_refilled(players, space):
    """Found by an audit (D15): the token refill comes before the card draws, so at a card draw
    with a pouch of 3 or more no central space is empty. One empty space (as if its pending refill
    were dropped from the dict) was accepted by both implementations; the next action then wrote a
    dict that neither read back, and the space stayed empty for the rest of the game."""
    import meeple.reference

    params = {"players": players, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    d = _first_dict_where(
        game, lambda state, d: state.is_chance_node() and d["pending"]["slots"] and not d["pending"]["spaces"]
        and d["took_tokens"] and not d["end_triggered"], 3, "card draw after a turn")
    _empty_space(d, space)
    assert sum(d["pouch"].values()) >= 3
    for impl in (game, reference):
        with pytest.raises(ValueError, match="1 empty central space.* at a draw.* the end not triggered"):
            impl.state_from_dict(d)


@pytest.mark.parametrize("space", [0, 1, 2])
def test_a_solo_draw_has_every_central_space_full(space):
    """Found by the state-dict fuzzer (D15): a solo `end` clears all three central spaces and
    refills them all, or the game is over at once, so a solo card draw finds every space full. A
    dict with the space taken this turn still empty at that draw was accepted by both
    implementations (as for multiplayer) and, once drawn, gave a turn that neither accepted back."""
    import meeple.reference

    params = {"players": 1, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    d = _first_dict_where(
        game, lambda state, d: state.is_chance_node() and d["pending"]["slots"] and not d["pending"]["spaces"]
        and d["took_tokens"], 3, "solo card draw after a turn")
    game.state_from_dict(d)  # the real state is fine
    reference.state_from_dict(d)
    _empty_space(d, space)
    for impl in (game, reference):
        with pytest.raises(ValueError, match="1 empty central space"):
            impl.state_from_dict(d)


def test_a_full_space_cannot_be_pending():
    """Found by the state-dict fuzzer (D15): the space being refilled holds 0 to 2 tokens. A dict
    whose first pending space already holds 3 was accepted by the reference (its next draw would
    have made 4) and refused by the engine."""
    import meeple.reference

    params = {"players": 2, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    d = _first_dict_where(
        game, lambda state, d: state.is_chance_node() and d["pending"]["spaces"] and d["move_number"] > 0,
        5, "space refill after the first turn")
    game.state_from_dict(d)  # the real state is fine
    first = d["pending"]["spaces"][0]
    while len(d["central"][first]) < 3:  # fill it from the pouch: tokens stay conserved
        colour = next(c for c, n in d["pouch"].items() if n)
        d["pouch"][colour] -= 1
        d["central"][first].append(colour)
    d["central"][first].sort(key=list(d["pouch"]).index)
    for impl in (game, reference):
        with pytest.raises(ValueError, match=f"central space {first} is pending but holds 3 tokens"):
            impl.state_from_dict(d)


def _solo_refill_cut_short(d):
    d["pending"]["spaces"] = [1]  # space 2 left empty, though the pouch holds plenty


def _two_spaces_after_a_turn(d):
    k = d["pending"]["spaces"][0]
    _empty_space(d, k + 1)
    d["pending"]["spaces"] = [k, k + 1]


def _empty_space_before_the_pending_one(d):
    k = d["pending"]["spaces"][0]
    _empty_space(d, k + 1)
    d["pending"]["spaces"] = [k + 1]


# name: (players, what the real state is, mutation, the engine's message, the reference's message)
BAD_PENDING_SPACES = {
    "setup leaves a space out": (2, "setup", lambda d: d["pending"].update(spaces=[0, 1, 2, 3]),
                                 "setup refills every central space", "setup fills every central space"),
    "not consecutive": (2, "setup", lambda d: d["pending"].update(spaces=[0, 1, 2, 4]),
                        "not consecutive", "not consecutive"),
    "two spaces after a multiplayer turn": (2, "turn", _two_spaces_after_a_turn,
                                            "fills one central space", "fills the one space taken from"),
    "an empty space before the pending one": (2, "turn", _empty_space_before_the_pending_one,
                                              "comes before the pending ones", "before the pending ones"),
    "solo refill cut short without the end": (1, "solo", _solo_refill_cut_short,
                                              "only when the pouch runs out", "unless the pouch runs out"),
}


@pytest.mark.parametrize("name", list(BAD_PENDING_SPACES))
def test_pending_spaces_are_the_ones_a_refill_leaves(name):
    """Found by the state-dict fuzzer (D16): the refills are drawn space by space, in order. The setup
    refills every space; after a turn, multiplayer refills the one space taken from and solo the
    spaces in order, all three unless the pouch runs out (which triggers the end). Both
    implementations accepted a solo dict whose refill had stopped early with the end not triggered;
    once drawn, it left a state that neither accepted back."""
    import meeple.reference

    players, when, mutate, engine_message, reference_message = BAD_PENDING_SPACES[name]
    params = {"players": players, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    found = {
        "setup": lambda state, d: d["move_number"] == 0,
        # a multiplayer refill not yet started, with a full space after it
        "turn": lambda state, d: d["took_tokens"] and d["pending"]["spaces"][:1] in ([0], [1], [2], [3])
        and not d["central"][d["pending"]["spaces"][0]] and len(d["central"][d["pending"]["spaces"][0] + 1]) == 3,
        # a solo refill after a turn with space 0 done and spaces 1 and 2 to go
        "solo": lambda state, d: d["took_tokens"] and d["pending"]["spaces"] == [1, 2]
        and not d["central"][1] and not d["end_triggered"],
    }[when]
    d = _first_dict_where(game, found, 11, f"{when} refill")
    game.state_from_dict(d)  # the real state is fine
    reference.state_from_dict(d)
    mutate(d)
    with pytest.raises(ValueError, match=engine_message):
        game.state_from_dict(d)
    with pytest.raises(ValueError, match=reference_message):
        reference.state_from_dict(d)


def _solo_refill_cut_short_by_the_pouch(game):
    """The state dict of test_solo_pouch_exhaustion_d4 after the `end`: spaces 0 and 1 are pending,
    space 2 is left out and the end triggered (D9); display slot 0, whose card was taken, stays
    empty (D4)."""
    d = _solo_end_with_7_tokens_left(game).to_dict()
    assert d["pending"] == {"spaces": [0, 1], "slots": [], "spirits": []} and d["end_triggered"]
    assert d["display"][0] is None and d["deck"]
    return d


def _first_dict(found, rng_seed):
    return lambda game: _first_dict_where(game, lambda state, d: found(d), rng_seed, "real state")


# name: (players, spirits, the real state, mutation)
LAST_DRAWS = {
    # player P-1 ended with the end triggered before the refill: the game is over at once (D6)
    "multiplayer refill": (2, False, _first_dict(lambda d: d["turn_player"] == 1 and d["took_tokens"]
                                                 and d["pending"]["spaces"] and not d["end_triggered"], 13),
                           lambda d: d.update(end_triggered=True)),
    # a solo refill cut short by the pouch (D9) draws no display card (D4)
    "solo display refill": (1, False, _solo_refill_cut_short_by_the_pouch,
                            lambda d: d["pending"].update(slots=[0])),
    # spirit deals are made at the setup only
    "spirit deals after taking": (1, True, _first_dict(lambda d: d["move_number"] == 0, 13),
                                  lambda d: d.update(took_tokens=True)),
}


@pytest.mark.parametrize("name", list(LAST_DRAWS))
def test_nothing_is_drawn_after_the_games_last_turn_but_a_cut_short_solo_refill(name):
    """Found by an audit (D17): the last player's `end` with the end triggered ends the game at once
    (D6), but for a solo refill that the pouch cuts short (D9), which draws the spaces before the
    one it cannot fill and no display card (D4). The engine accepted a multiplayer refill, or a
    display refill, pending after the last turn (and then drew them); the reference accepted the
    multiplayer refill, and spirit deals pending after tokens were taken."""
    import meeple.reference

    players, spirits, real, mutate = LAST_DRAWS[name]
    params = {"players": players, "spirits": spirits, "chance": "explicit"}
    game, reference = meeple.load("harmonies", **params), meeple.reference.load("harmonies", **params)
    d = real(game)
    game.state_from_dict(d)  # the real state is fine
    reference.state_from_dict(d)
    mutate(d)
    for impl in (game, reference):
        with pytest.raises(ValueError, match="game is over at once|spirit deals"):
            impl.state_from_dict(d)


# ------------------------------------------------------------------------------ card drawings

def card_drawing(card):
    """{(x, y): text} of describe_card's drawing: x = column (6 characters each), y = line (half
    rows, as on the board drawing); and the drawing's legend lines."""
    header, *lines = describe_card(card).splitlines()
    assert header.startswith(f"{NAMES[card]} (card {card}): {CUBES[card]} cube")
    cells = {}
    for y, line in enumerate(line for line in lines if "[" in line):
        for i, char in enumerate(line):
            if char == "[":
                assert i % 6 == 0 and line[i + 5] == "]"
                cells[(i // 6, y)] = line[i + 1:i + 5].strip()
    return cells, [line for line in lines if "[" not in line]


DRAWN_STACK = {"W": "B", "F": "Y", "T1": "G", "T2": "TG", "T3": "TTG", "M1": "S", "M2": "SS", "M3": "SSS",
               "B": "xR"}


@pytest.mark.parametrize("card", sorted(NAMES))
def test_card_drawings_show_the_patterns(card):
    """Read back in axial coordinates from the cube cell (a column to the right is +1 q; two lines
    down, one cell further south, +1 r), the drawing is the card's pattern."""
    cells, legend = card_drawing(card)
    (x0, y0), = [xy for xy, text in cells.items() if text.endswith("*")]
    drawn = {}
    for (x, y), text in cells.items():
        dq, half_rows = x - x0, y - y0 - (x - x0)
        assert half_rows % 2 == 0, "a cell drawn off the hex grid"
        drawn[(dq, half_rows // 2)] = text
    pattern = next(c["pattern"] for c in CARDS["animal_cards"] + CARDS["spirit_cards"] if c["id"] == card)
    assert drawn == {(c["q"], c["r"]): DRAWN_STACK[c["stack"]] + ("*" if c.get("cube") else "") for c in pattern}
    assert legend == (["xR: a building, red on one red, brown or gray token"]
                      if any(c["stack"] == "B" for c in pattern) else [])


def board_positions(state, player=0):
    """{(column, line): "col,row"} of a player's board in str(state)."""
    text = str(state)
    cells = rendered_cells(text, player)
    lines = text.splitlines()
    top = [i for i, line in enumerate(lines) if line.startswith(f"Player {player}")][0] + 1
    columns = {i: int(number) for i, number in enumerate(lines[top]) if number.isdigit()}
    positions = {}
    for y in range(top + 1, len(lines)):
        line = lines[y]
        if not line[:4].strip().isdigit():
            break
        for i, char in enumerate(line):
            if char == "[":
                name = f"{columns[i + 2]},{int(line[:4])}"
                assert cells[name] == line[i:i + 6]
                positions[(columns[i + 2], y)] = name
    return positions


@pytest.mark.parametrize("card", range(1, 33))
def test_a_card_drawing_copied_onto_the_board_takes_the_cube(card):
    """A person copies a card's drawing onto the board drawing (same letters, same stagger): the
    engine then lets them place the card's cube on the starred cell, and not once a pattern cell
    is left empty."""
    game = load()
    start = game.new_initial_state(seed=0)
    positions = board_positions(start)
    assert len(set(positions.values())) == 23
    cells, _ = card_drawing(card)
    for dx, dy in [(dx, dy) for dx in range(-4, 5) for dy in range(-8, 20)]:
        if all((x + dx, y + dy) in positions for x, y in cells):
            break
    else:
        raise AssertionError("the drawing fits nowhere on the board")
    colour = dict(zip("BSTGYR", COLOURS)) | {"x": "gray"}
    board = {positions[(x + dx, y + dy)]: [colour[letter] for letter in text.rstrip("*")]
             for (x, y), text in cells.items()}
    cube_cell = next(positions[(x + dx, y + dy)] for (x, y), text in cells.items() if text.endswith("*"))
    action = f"cube {NAMES[card]} {cube_cell}"
    state = state_with(game, boards=[(0, board, (), [{"id": card, "cubes_placed": 0}])])
    assert state.string_to_action(action) in state.legal_actions()
    for cell in board:
        if cell != cube_cell:
            state = state_with(game, boards=[(0, {**board, cell: []}, (), [{"id": card, "cubes_placed": 0}])])
            assert action not in [state.action_to_string(a) for a in state.legal_actions()]


def test_describe_card_refuses_what_is_not_a_card():
    with pytest.raises(ValueError, match=r"no Harmonies card 43: ids are 1\.\.42, names .*bear"):
        describe_card(43)
    with pytest.raises(ValueError, match="no Harmonies card 'lion'.*spirit-lion"):
        describe_card("lion")
    with pytest.raises(TypeError, match="card must be an id or a name, got bool"):
        describe_card(True)


def test_cards_in_play_lists_display_held_cards_and_spirit_choices():
    game = load(spirits=True)
    state = game.new_initial_state(seed=4)
    d = state.to_dict()
    text = cards_in_play(state)
    for slot, card in enumerate(d["display"]):
        assert f"Display {slot}: {describe_card(card)}" in text
    for p, player in enumerate(d["players"]):
        for option in player["spirit_options"]:
            assert f"Player {p} may keep: {describe_card(option)}" in text
    state.apply_action(state.string_to_action("spirit 1"))
    state.apply_action(state.string_to_action("card 2"))
    kept, taken = [c["id"] for c in state.to_dict()["players"][0]["cards"]]
    text = cards_in_play(state)
    assert f"Player 0 holds (0 of 1 cubes placed): {describe_card(kept)}" in text
    assert f"Player 0 holds (0 of {CUBES[taken]} cubes placed): {describe_card(taken)}" in text
    assert "Player 0 may keep" not in text and "Display 2:" not in text
