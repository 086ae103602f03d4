"""The `meeple` command line, run in-process through `meeple.cli.main` (and once as `python -m meeple`)."""
from __future__ import annotations

import collections
import io
import itertools
import json
import os
import random
import re
import subprocess
import sys
import types

import numpy as np
import pytest

import meeple
from meeple import cli, harmonies
from meeple.bots import MCTS
from meeple.serialization import Record

from games import cases

ABACUACHEGO = meeple.load("abacuachego")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def param_args(case) -> list[str]:
    return [arg for k, v in case.params.items() for arg in ("-p", f"{k}={v}")]


# --- the person at the terminal --------------------------------------------------------------

class Person:
    """Stands in for `input()`: answers each prompt with the next of `answers` (a string, or a
    function of the legal moves listed so far as [(string, number)]); EOFError when they run out.
    Keeps the whole transcript, prompts and answers included."""

    def __init__(self, capsys, answers):
        self.capsys = capsys
        self.answers = iter(answers)
        self.transcript: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.transcript.append(self.capsys.readouterr().out + prompt)
        assert len(self.transcript) < 20_000, "10,000 answers and the game goes on: answers refused?"
        answer = next(self.answers, None)
        if answer is None:
            raise EOFError
        if callable(answer):
            answer = answer(self.legal_moves())
        self.transcript.append(answer + "\n")
        return answer

    def legal_moves(self) -> list[tuple[str, int]]:
        text = "".join(self.transcript)
        block = text[text.rindex("Legal moves:"):text.rindex("Your move:")]
        return [(s, int(n)) for s, n in re.findall(r"(\S+) \[(\d+)\]", block)]

    def output(self) -> str:
        return "".join(self.transcript) + self.capsys.readouterr().out


def play(capsys, monkeypatch, answers, *argv: str) -> tuple[int, str, str]:
    person = Person(capsys, answers)
    monkeypatch.setattr("builtins.input", person)
    code = cli.main(["play", *argv])
    output = person.output()
    return code, output, capsys.readouterr().err


def first_by_name(moves):
    return moves[0][0]


def last_by_number(moves):
    return f"[{moves[-1][1]}]"


def position(game, *moves: str):
    """A new state of `game` (seed 1) after `moves`, each an action string."""
    state = game.new_initial_state(seed=1)
    for text in moves:
        state.apply_action(state.string_to_action(text))
    return state


def played_moves(output: str) -> list[str]:
    """The moves announced in a transcript, in order."""
    return re.findall(r"^(?:You play|.*\] plays) (\S+)$", output, re.M)


@pytest.mark.parametrize("seat", [0, 1])
def test_play_a_whole_game_by_move_names(capsys, monkeypatch, seat):
    code, output, _ = play(capsys, monkeypatch, itertools.repeat(first_by_name),
                           "abacuachego", "--seat", str(seat), "--seed", "3")
    assert code == 0
    state = ABACUACHEGO.new_initial_state(seed=3)
    for move in played_moves(output):
        state.apply_action(state.string_to_action(move))
    assert state.is_terminal()
    last = output.rstrip().splitlines()[-1]
    winner = cli.winners(state.returns()[None, :])[0]
    assert last == {seat: "You win.", -1: "Draw."}.get(winner, "You lose.")
    assert str(state) in output
    assert output.startswith(f"You are {cli.player_name(ABACUACHEGO, seat)}.")


def test_play_a_whole_game_by_numbers(capsys, monkeypatch, case):
    code, output, _ = play(capsys, monkeypatch, itertools.repeat(last_by_number), case.name, *param_args(case))
    assert code == 0
    assert "game over" in output.lower()  # the final board says it
    assert re.fullmatch(r"You win\.|You lose.*\.|Draw\.|You share the win.*\.|Your return: .*\.",
                        output.rstrip().splitlines()[-1])


def test_play_harmonies_ends_with_each_players_points(capsys, monkeypatch):
    """The final board gives the totals; the table below it says where they came from."""
    code, output, _ = play(capsys, monkeypatch, itertools.repeat(last_by_number), "harmonies", "--seed", "2")
    assert code == 0
    table = output[output.rindex("Points"):].splitlines()
    assert table[0].split() == ["Points", "player", "0", "player", "1"]
    assert [row.split()[0] for row in table[1:9]] == list(meeple.harmonies._SCORE_ROWS)
    totals = [int(t) for t in re.search(r"Game over: .*\(points (\d+), (\d+)\)", output).groups()]
    for p in (0, 1):
        column = [int(row.split()[1 + p]) for row in table[1:9]]
        assert sum(column[:-1]) == column[-1] == totals[p]  # the categories add up to the board's total


@pytest.mark.parametrize("game, moves, read", [
    ("imperial_harvest(teams=draft)", [], {"draft imperial bard": "draft imperial_bard",
                                          "DRAFT Skin-Changer": "draft skin_changer"}),
    ("imperial_harvest", ["rest monk", "activate guardian"], {"move south": "move s", "Face West": "face w"}),
    ("harmonies", ["take 0"], {"place grey 0,0": None}),
])
def test_play_reads_a_persons_spellings(game, moves, read):
    """Directions as words and ids with spaces or hyphens (Imperial Harvest), 'grey' (Harmonies)."""
    name, params = meeple._registry.parse_game_string(game)
    state = meeple.load(name, **params).new_initial_state(seed=1)
    for move in moves:
        state.apply_action(state.string_to_action(move))
    for text, meant in read.items():
        if meant is None:  # seed 1's first space holds no gray token: the reason names it
            with pytest.raises(cli.MoveError, match="no gray token in your hand"):
                cli.read_move(state, text)
        else:
            assert state.action_to_string(cli.read_move(state, text)) == meant


def test_play_bad_input_reprompts(capsys, monkeypatch):
    code, output, err = play(capsys, monkeypatch, ["xyz", "99", "[99]", "[8]", "", "help", "3cw"], "abacuachego")
    assert code == 1 and err == ""
    assert "'xyz' is not a legal move." in output
    assert ("'99' is no move here: there is no pit 99 (your pits are 1..10); an action's number goes in "
            "brackets, e.g. [99].") in output
    assert "'[99]' is not a legal move." in output
    assert ("'[8]' (5cw) is not legal now: pit 5 sows counter-clockwise (5 grains: odd); the other way only "
            "when its grains reach the opponent's row.") in output
    assert cli.HELP in output
    before_move = output[:output.index("You play 3cw")]
    assert before_move.count("Legal moves:") == 6  # the board, xyz, 99, [99], [8], help
    assert "You play 3cw" in output
    assert output.rstrip().endswith("End of input: game abandoned.")


def test_play_reads_a_bare_number_as_a_pit_in_abacuachego(capsys, monkeypatch):
    """The board numbers the pits, so '5' is pit 5 (its one legal direction), not action 5 (3ccw);
    a pit that may go either way, an empty pit and a pit that does not exist are explained."""
    code, output, _ = play(capsys, monkeypatch, ["3", "5", "3", "quit"], "abacuachego", "--bot", "random")
    assert "'3' is no move here: pit 3 may be sown either way: type 3cw or 3ccw." in output
    assert "You play 5ccw" in output
    code, output, _ = play(capsys, monkeypatch, ["5", "12", "5", "[9]", "quit"], "abacuachego", "--bot", "random")
    assert "You play 5ccw" in output and "'12' is no move here: there is no pit 12 (your pits are 1..10)" in output
    assert "'5' is no move here: pit 5 is empty." in output
    assert "'[9]' (5ccw) is not legal now: pit 5 is empty." in output and code == 0


def test_play_enter_plays_the_only_legal_move(capsys, monkeypatch):
    """Zipa's one grain, in pit 10, may only go counter-clockwise: an empty answer plays it (with
    more moves to choose from, an empty answer asks again)."""
    game = meeple.load("abacuachego")
    terminal = cli.TerminalGame(game, 0, {}, {}, seed=0)
    terminal.state = game.state_from_dict({"pits": [[0] * 9 + [1], [5] * 10], "stores": [49, 0],
                                           "current_player": 0, "ply": 40})
    answers = iter(["", "board", ""])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert terminal._ask() == game.new_initial_state().string_to_action("10ccw")
    assert capsys.readouterr().out.count("(The only legal move: Enter plays 10ccw.)") == 1
    assert terminal._ask() == game.new_initial_state().string_to_action("10ccw")  # after 'board' too
    capsys.readouterr()
    terminal.state = game.new_initial_state()
    answers = iter(["", "1ccw"])
    assert terminal._ask() == 1 and "Enter plays" not in capsys.readouterr().out


def test_play_offers_undo_at_the_end(capsys, monkeypatch):
    """At a terminal, a finished game offers to take back the person's last move: 'undo' goes back
    to it and the game goes on (here to a different end); Enter leaves."""
    game = meeple.load("abacuachego")
    terminal = cli.TerminalGame(game, 0, {1: cli._make_bot("random", game, 7)}, {1: "random"}, seed=3,
                                undo_at_end=True)
    ends: list[list[int]] = []

    def answer(prompt=""):
        if prompt.startswith("Game over. 'undo' takes back your last move; Enter leaves"):
            ends.append(list(terminal.actions))
            return "undo" if len(ends) == 1 else ""
        legal = terminal.state.legal_actions()
        return f"[{legal[-1] if ends else legal[0]}]"  # after the undo, another move

    monkeypatch.setattr("builtins.input", answer)
    assert terminal.run() == 0
    output = capsys.readouterr().out
    assert len(ends) == 2 and ends[0] != ends[1] and output.count("Took back your last move.") == 1
    assert len(re.findall(r"^(You win|You lose|Draw)", output, re.M)) == 2
    monkeypatch.setattr("builtins.input", lambda prompt="": (_ for _ in ()).throw(EOFError))
    assert terminal._answer_at_end() == "" and capsys.readouterr().out == "\n"  # end of input: a new line
    # The games part where the first one's last move of the person was taken back: every move after
    # it was the bot's.
    shared = next(i for i, (a, b) in enumerate(zip(*ends)) if a != b)
    state = game.new_initial_state(seed=3)
    for i, action in enumerate(ends[0]):
        assert state.current_player() == (0 if i == shared else 1) or i < shared
        state.apply_action(action)


def test_play_commands_ignore_case_and_q_quits(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["HELP", "Moves", "Board", "Q"], "abacuachego")
    assert code == 0 and cli.HELP in output and output.rstrip().endswith("Game abandoned.")
    assert output.count("Legal moves:") == 4  # the board, help, moves, board


def test_play_says_why_a_named_move_is_not_legal_now(capsys, monkeypatch):
    """A move the game knows but the position does not allow gets the game's reason; Harmonies takes
    the board's colour letters and 'COL ROW' cells."""
    state = meeple.load("harmonies").new_initial_state()
    state.apply_action(state.string_to_action("take 0"))
    colour = state.to_dict()["hand"][0]
    letter = {"blue": "B", "gray": "S", "brown": "T", "green": "G", "yellow": "Y", "red": "R"}[colour]
    missing = next(c for c in ("blue", "gray", "brown", "green", "yellow", "red") if c not in state.to_dict()["hand"])
    code, output, _ = play(capsys, monkeypatch, ["end", "take 0", "take 1", "end", f"place {missing} 0,0",
                                                 f"place {letter} 0 0", "quit"], "harmonies")
    assert "'end' is not legal now: take tokens from a central space first ('take S')." in output
    assert "'take 1' is not legal now: you took tokens this turn already." in output
    assert "'end' is not legal now: place the tokens in your hand first (hand: " in output
    assert f"'place {missing} 0,0' is not legal now: no {missing} token in your hand (hand: " in output
    assert f"You play place {colour} 0,0" in output
    code, output, _ = play(capsys, monkeypatch, ["5cw", "quit"], "abacuachego")
    assert "'5cw' is not legal now: pit 5 sows counter-clockwise (5 grains: odd); " in output


def test_harmonies_reasons_for_cubes_cells_and_solo():
    """A cell with a cube takes nothing (not a stacking matter), cells past the side's board, and the
    solo game's 3 central spaces and display slots, and its own discard."""
    game = meeple.load("harmonies")
    state = game.new_initial_state(seed=0)
    state.apply_action(state.string_to_action("take 0"))
    d = state.to_dict()
    card = d["deck"].pop(0)  # crocodile, holding one cube on 0,0
    d["players"][0].update(cards=[{"id": card, "cubes_placed": 1}], cubes=["0,0"])
    d["players"][0]["board"]["0,0"] = ["gray"]
    d["hand"] = ["gray", "gray", "red"]
    d["pouch"].update(gray=d["pouch"]["gray"] - 3, blue=d["pouch"]["blue"] + 1, brown=d["pouch"]["brown"] + 1)
    state = game.state_from_dict(d)

    def refused(state, text):
        with pytest.raises(cli.MoveError) as error:
            cli.read_move(state, text)
        return error.value.reason

    assert refused(state, "place gray 0,0") == "is not legal now: 0,0 holds a cube: nothing more goes on it."
    assert refused(state, "cube crocodile 0,0") == "is not legal now: 0,0 holds a cube already."
    assert refused(state, "[28]") == ("(place blue #23 (off the board)) is not legal now: cell #23 is off your "
                                      "board (side A).")
    assert refused(state, "discard 0") == "is not legal now: discarding a display card is for the solo game."
    assert refused(state, "spirit 1") == "is not legal now: this game is played without the spirit cards."
    spirited = meeple.load("harmonies", spirits=True).new_initial_state(seed=0)
    spirited.apply_action(spirited.string_to_action("spirit 0"))
    assert refused(spirited, "spirit 1") == ("is not legal now: you have no spirit cards to choose from: a spirit is "
                                             "kept once, at the start of your first turn.")
    solo = meeple.load("harmonies", players=1).new_initial_state(seed=0)
    assert refused(solo, "take 3") == "is not legal now: there are central spaces 0..2 only."
    assert refused(solo, "card 4") == "is not legal now: there are display slots 0..2 only."
    solo.apply_action(solo.string_to_action("card 0"))
    assert refused(solo, "discard 1") == "is not legal now: you took a card this turn: 'end' ends it."


def test_harmonies_reasons_for_patterns_and_stacking():
    """A refused cube names what its pattern lacks in the rotation that comes closest, or that the
    pattern leaves the board in every rotation (point 3); a refused token names what may go on
    that stack (point 4)."""
    why_illegal = cli.game_spec("harmonies").why_illegal
    game = meeple.load("harmonies")
    state = game.new_initial_state(seed=0)
    state.apply_action(state.string_to_action("take 0"))
    d = state.to_dict()
    crocodile, mouse = d["deck"].pop(0), next(c["id"] for c in harmonies.card_data()["animal_cards"]
                                               if c["name"] == "mouse")
    d["deck"].remove(mouse)
    d["players"][0]["cards"] = [{"id": crocodile, "cubes_placed": 0}, {"id": mouse, "cubes_placed": 0}]
    # The crocodile's line, its cube on 2,1: 0,0 brown-brown-green, 1,0 blue, 2,1 blue; 0,0 lacks its green
    d["players"][0]["board"].update({"0,0": ["brown", "brown"], "1,0": ["blue"], "2,1": ["blue"], "1,1": ["brown"],
                                     "3,3": ["blue"]})
    d["hand"] = ["gray", "gray", "red"]
    state = game.state_from_dict(with_pouch(d))

    def reason(text):
        action = state.string_to_action(text)
        return None if action in state.legal_actions() else why_illegal(state, action)

    assert reason("cube crocodile 2,1") == (
        "the crocodile pattern does not fit with its cube on 2,1 (in any rotation): turned the closest way, 0,0 "
        "should hold brown-brown-green (it holds brown-brown)")
    assert reason("cube mouse 0,0") == ("the mouse pattern does not fit with its cube on 0,0 (in any rotation): "
                                        "in every rotation a cell of it falls off the board")
    assert reason("place gray 1,1") == "1,1 holds brown: only brown, green or red goes on it (stacking, point 4)"
    assert why_illegal(state, 160 + 25 * 2) == "you hold no unfinished card #2; yours are #0 crocodile, #1 mouse"
    assert reason("place red 3,3") == "3,3 holds blue: nothing goes on it (stacking, point 4)"
    d["players"][0]["board"]["0,0"].append("green")
    state = game.state_from_dict(with_pouch(d))
    assert reason("cube crocodile 2,1") is None


def with_pouch(d):
    """`d` (a Harmonies state dict) with the pouch holding the tokens that are nowhere else (point 1)."""
    used = collections.Counter(d["hand"]) + collections.Counter(c for space in d["central"] for c in space)
    for player in d["players"]:
        used += collections.Counter(c for stack in player["board"].values() for c in stack)
    totals = {"blue": 23, "gray": 23, "brown": 21, "green": 19, "yellow": 19, "red": 15}
    return {**d, "pouch": {colour: totals[colour] - used[colour] for colour in totals}}


def test_harmonies_pattern_reasons_agree_with_the_engine():
    """Over random games, the pattern matcher behind the cube reasons finds a fitting rotation
    exactly when the engine accepts the cube (every held card, every cell without a cube)."""
    checked = 0
    for seed in range(4):
        game = meeple.load("harmonies", players=2, side="AB"[seed % 2], spirits=seed >= 2)
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            d, legal = state.to_dict(), set(state.legal_actions().tolist())
            me = d["players"][d["current_player"]]
            held = [c["id"] for c in me["cards"] if c["cubes_placed"] < harmonies._cubes_needed(c["id"])]
            for j, card in enumerate(held):
                for x, cell in enumerate(me["board"]):
                    if cell not in me["cubes"] and not me["spirit_options"]:
                        fits = harmonies._pattern_misfit(harmonies._card(card)[1], me["board"], cell) is None
                        assert fits == (160 + 25 * j + x in legal), (seed, card, cell)
                        checked += 1
            state.apply_action(rng.choice(sorted(legal)))
    assert checked > 5000


def test_imperial_harvest_reasons_follow_the_turn():
    """Imperial Harvest explains a move of another phase of the turn, and which character may not
    rest or act."""
    state = meeple.load("imperial_harvest").new_initial_state(seed=1)

    def refused(text):
        with pytest.raises(cli.MoveError) as error:
            cli.read_move(state, text)
        return error.value.reason

    def play_moves(*texts):
        for text in texts:
            state.apply_action(state.string_to_action(text))

    assert refused("move e") == "is not legal now: first choose the character that rests this turn ('rest NAME')."
    play_moves("rest guardian")
    assert refused("activate guardian") == "is not legal now: the guardian rests this turn."
    assert refused("end").startswith("is not legal now: first choose the character to act next")
    play_moves("activate monk")
    assert refused("rest bard").startswith("is not legal now: a character is acting: its actions, then 'end'")
    play_moves("end")
    assert refused("forfeit monk") == "is not legal now: the monk has had its go this turn."
    play_moves("activate bard", "end")
    while state.current_player() == 1:
        state.apply_action(state.legal_actions()[-1])
    assert refused("rest guardian") == "is not legal now: the guardian rested last turn, so it acts this turn."


def test_imperial_harvest_reasons_for_the_acting_character():
    """The common reasons an acting character's action is refused, each from a hand-built position:
    the board's edge, a hedge, water, a bridge's axis, another token's cell without AP to move on,
    Agility, AP, a strawberry to pluck or carry, the camp to deposit at, facing, abilities the card
    lacks or has used; a target: an ally (attacks, Bite), an enemy (Command) or the actor itself,
    out of line of sight or reach, off the board, or on its own character camp (attacks); a
    grapple's landing cell; a pass of more strawberries than carried."""
    game = meeple.load("imperial_harvest")
    start = position(game, "rest guardian", "activate monk")

    def refused(text, monk=None, activation=None, **fields):
        d = start.to_dict()
        d["characters"][0].update(monk or {})
        d["activation"].update(activation or {})
        d.update(fields)
        with pytest.raises(cli.MoveError) as error:
            cli.read_move(game.state_from_dict(d), text)
        return error.value.reason.removeprefix("is not legal now: ").removesuffix(".")

    assert start.to_dict()["characters"][0]["cell"] == [8, 0]  # the monk, 3 AP, next to the guardian on 9,0
    assert refused("move n") == "8,0 is on the board's edge: there is no cell to the n"
    assert refused("move ne") == "the monk has no Agility: it moves n, e, s or w"
    assert refused("move e", activation={"ap": 1}) == ("9,0 holds another token: the monk may move onto it "
                                                       "only with AP left to move on")
    assert refused("move s", activation={"ap": 0}) == "the monk has no AP left"
    assert refused("move e", monk={"cell": [3, 1]}) == "a hedge stands between 3,1 and 4,1"
    assert refused("move s", monk={"cell": [7, 1]}) == "7,2 is water (the moat is crossed on its bridges)"
    # One bridge a moat tile: the top-left tile's goes from 2,3 to 4,2, beside the top-right's on 5,2
    assert start.to_dict()["bridges"] == [[5, 2], [2, 3], [2, 6], [5, 7]]
    assert refused("move w", monk={"cell": [5, 2]}, bridges=[[4, 2], [5, 2], [2, 6], [5, 7]]) \
        == "the bridge on 5,2 runs north-south: it is entered and left along it"
    assert refused("pluck") == "there is no strawberry on 8,0"
    assert refused("pluck", monk={"cell": [3, 1]}, activation={"ap": 0}) == "the monk has no AP left"
    assert refused("deposit") == refused("discard") == "the monk carries no strawberry"
    carrying = start.to_dict()
    carrying["strawberries"].remove([3, 1])
    assert refused("deposit", monk={"strawberries": 1}, activation={"bonus": True}, plucked=[1, 0],
                   strawberries=carrying["strawberries"]) == \
        "8,0 is not on or next to (across no hedge) your strawberry camp, the 'i' cells"
    assert refused("face s") == "the monk faces s already"
    assert refused("face n", activation={"face_used": True}) == "the monk has turned once this activation already"
    target = start.action_to_string(173 + 3)  # spear the barbarian
    assert refused(target) == "the monk has no Spear ability ('cards' shows each character's abilities)"
    assert refused("pounce se", activation={"pounce_used": True}) == \
        "the monk has used Dragon Pounce this activation (once per activation)"
    assert refused("plant n", monk={"uses_left": 0}) == "the monk has used up its Plant for this game"
    assert refused("grapple 8,0 8,-2") == "the monk cannot grapple itself"
    assert refused("grapple 9,1 8,-1") == "9,1 is not next to the monk (on its cell or beside it, across no hedge)"
    assert refused("grapple 9,0 7,-1") == "the landing cell 7,-1 is off the board"
    assert refused("pass 9,0 2", monk={"strawberries": 1}, activation={"bonus": True}, plucked=[1, 0],
                   strawberries=carrying["strawberries"]) == "the monk carries 1 strawberry"
    # Attacks: the guardian, moved to 9,7 facing south, above the raiders' camp
    guardian = position(game, "rest monk", "activate guardian")
    d = guardian.to_dict()
    d["characters"][1].update(cell=[9, 7], facing="s")
    d["characters"][4]["cell"] = [9, 8]  # the sorceress, on the raiders' camp with the barbarian
    guardian = game.state_from_dict(d)
    why_illegal = cli.game_spec("imperial_harvest").why_illegal

    def spear_reason(target):
        return why_illegal(guardian, 173 + target)

    assert spear_reason(0) == "8,0 is on your team: attacks target enemies"
    assert spear_reason(1) == "the guardian cannot spear itself"
    assert spear_reason(4) == "9,8:sorceress stands on its own character camp, where it cannot be attacked"
    assert spear_reason(5) == "9,9 is not in the guardian's line of sight (facing s, up to 1 cell)"
    assert spear_reason(6) == "sentry1 is not on the board"
    # The barbarian at 6,5 facing north: Throwing Axe reaches the monk 2 cells ahead; Battle Axe the bard beside it
    barbarian = position(game, "rest monk", "activate guardian", "end", "activate bard", "end", "rest sorceress",
                         "activate barbarian")
    d = barbarian.to_dict()
    d["characters"][3].update(cell=[6, 5], facing="n")
    for token, cell in ((0, [6, 3]), (2, [6, 6]), (1, [9, 5])):
        d["characters"][token]["cell"] = cell
    barbarian = game.state_from_dict(d)
    legal = barbarian.legal_actions()
    assert barbarian.string_to_action("throw 6,3") in legal and barbarian.string_to_action("axe 6,6") in legal
    for text, reason in (("throw 6,6", "6,6 is not in the barbarian's line of sight (facing n, up to 2 cells)"),
                         ("axe 9,5", "9,5 is not next to the barbarian (on its cell or beside it, across no hedge)")):
        assert why_illegal(barbarian, barbarian.string_to_action(text)) == reason
    sorceress = position(meeple.load("imperial_harvest", teams="sorceress,monk,imperial_guardian/barbarian,"
                                                                "raider_bard,hound"),
                         "rest guardian", "activate sorceress")
    d = sorceress.to_dict()
    d["activation"]["ap"] = 1
    with pytest.raises(cli.MoveError, match="Shadow Walk costs 2 AP and the sorceress has 1 left"):
        cli.read_move(sorceress.game.state_from_dict(d), "shadow n")


def test_imperial_harvest_reasons_follow_a_user_card_table():
    """A table may give any ability 'uses_per_game': 0 (uses_left counts only plant or chop) and
    Arcane Puppetry an AP cost (the engine charges the puppet's ability instead): neither makes a
    legal move look refused."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    table = meeple.imperial_harvest.data("characters")
    table["abilities"]["battle_axe"]["uses_per_game"] = 0
    table["abilities"]["arcane_puppetry"]["ap"] = 5
    game = meeple.load("imperial_harvest", characters=table, teams="monk,imperial_guardian,puppeteer/"
                                                                  "barbarian,sorceress,raider_bard")
    state = position(game, "rest monk", "activate puppeteer")
    puppet = state.string_to_action("puppet 8,0")
    assert puppet in state.legal_actions() and why_illegal(state, puppet) is None
    for text in ("end", "activate guardian", "end", "rest sorceress", "activate barbarian"):
        state.apply_action(state.string_to_action(text))
    d = state.to_dict()
    d["characters"][3].update(cell=[6, 5], uses_left=0)  # the barbarian, its chops used up
    d["characters"][2].update(cell=[6, 4])  # the puppeteer next to it
    state = game.state_from_dict(d)
    axe = state.string_to_action("axe 6,4")
    assert axe in state.legal_actions() and why_illegal(state, axe) is None
    assert why_illegal(state, state.string_to_action("chop n")) == "the barbarian has used up its Chop for this game"


def test_imperial_harvest_reasons_for_protected_targets():
    """An attack on a protected target is refused with its protection (point 23): an allied
    Guardian within 2 steps (steps, not cells: around hedges), a Tower Shield facing the attacker
    (also against Charm, point 24), Camouflage by a hedge, an allied Ranger's line of sight
    (Silent Sentinel), a sentry on its team's character camp. Each position, with the protection
    taken away, makes the move legal."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal

    def acting(teams, turn, place, sentries=(None, None)):
        game = meeple.load("imperial_harvest", teams=teams)
        state = game.new_initial_state(seed=1)
        for text in turn:
            state.apply_action(state.string_to_action(text))
        d = state.to_dict()
        for token, (cell, facing) in place.items():
            d["characters"][token].update(cell=cell, facing=facing)
        d["sentries"] = list(sentries)
        return game.state_from_dict(d)

    def reason(state, text):
        action = state.string_to_action(text)
        return None if action in state.legal_actions() else why_illegal(state, action)

    raiders_turn = ("rest monk", "activate guardian", "end", "activate bard", "end", "rest sorceress",
                    "activate barbarian")
    first_game = "monk,imperial_guardian,imperial_bard/barbarian,sorceress,raider_bard"
    # The barbarian on 6,5 facing north; the monk 2 cells ahead, the guardian away on 9,5
    place = {3: ([6, 5], "n"), 0: ([6, 3], "s"), 2: ([6, 6], "n"), 1: ([9, 5], "s")}
    assert reason(acting(first_game, raiders_turn, place), "throw 6,3") is None
    assert reason(acting(first_game, raiders_turn, {**place, 1: ([5, 3], "s")}), "throw 6,3") == \
        "6,3 is within 2 steps of its ally the guardian on 5,3, whose Guardian ability protects it from attacks"
    # The monk on 4,4 next to the guardian on 4,5, but hedges make that more than 2 steps
    around = {**place, 3: ([4, 3], "s"), 0: ([4, 4], "n"), 1: ([4, 5], "n")}
    assert reason(acting(first_game, raiders_turn, around), "throw 4,4") is None
    for facing, expected in (("s", "6,4 is the guardian, whose Tower Shield faces s, toward the barbarian: it "
                                   "blocks attacks from that side"), ("e", None)):
        shield = {**place, 1: ([6, 4], facing), 0: ([0, 4], "s")}
        assert reason(acting(first_game, raiders_turn, shield), "axe 6,4") == expected
    sorceress_turn = raiders_turn[:5] + ("rest barbarian", "activate sorceress")
    for facing, expected in (("s", "6,3 is the guardian, whose Tower Shield faces s, toward the sorceress: it "
                                   "blocks Charm from that side"), ("w", None)):
        charmed = acting(first_game, sorceress_turn, {4: ([6, 5], "n"), 1: ([6, 3], facing)})
        assert reason(charmed, "charm 6,3 s") == expected
    # The guardian attacks with its Spear (an enemy beside it, in its line of sight)
    ranger_team = "monk,imperial_guardian,imperial_bard/ranger,sorceress,raider_bard"
    guardian_turn = ("rest bard", "activate guardian")
    hidden = {1: ([3, 3], "s"), 3: ([3, 4], "n")}  # the ranger with a hedge south of 3,4
    assert reason(acting(ranger_team, guardian_turn, hidden), "spear 3,4") == \
        "3,4 is the ranger, beside a hedge (on its cell's south edge): Camouflage protects it from attacks"
    assert reason(acting(ranger_team, guardian_turn, {1: ([3, 3], "s"), 4: ([3, 4], "n"), 3: ([0, 9], "n")}),
                  "spear 3,4") is None  # the sorceress there has no Camouflage
    for facing, expected in (("n", "6,4 is in the line of sight of its ally the ranger on 6,6, whose Silent "
                                   "Sentinel protects it from attacks"), ("w", None)):
        watched = {1: ([5, 4], "e"), 4: ([6, 4], "n"), 3: ([6, 6], facing)}
        assert reason(acting(ranger_team, guardian_turn, watched), "spear 6,4") == expected
    # A Regent's sentry on the imperial character camp (8,1), beside the barbarian on 8,2
    regent_team = "regent,imperial_guardian,monk/barbarian,sorceress,raider_bard"
    regent_raiders_turn = ("rest monk", "activate guardian", "end", "activate regent", "end", "rest sorceress",
                           "activate barbarian")
    for sentry, expected in (([8, 1], "8,1 stands on its own character camp, where it cannot be attacked"),
                             ([8, 3], None)):
        state = acting(regent_team, regent_raiders_turn, {3: ([8, 2], "n")}, [{"cell": sentry, "facing": "e"}, None])
        assert reason(state, f"axe {sentry[0]},{sentry[1]}") == expected


def test_imperial_harvest_reasons_for_aura_territorial_and_routes():
    """The Nymph's Aura of Tranquility keeps a character next to her from its active abilities,
    not from moving (point 50); an enemy Hound's cell is closed to a step, to a grapple's landing
    and to a diagonal route through it (Territorial, point 44), and a grapple must move its
    target; a diagonal step needs one of its two routes open (point 10)."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="monk,imperial_guardian,imperial_bard/nymph,hound,barbarian")
    start = position(game, "rest bard", "activate monk")

    def reasons(place, *texts, monk=(6, 4)):  # the monk acts on `monk`; `place`: token -> cell
        d = start.to_dict()
        d["characters"][0].update(cell=list(monk), facing="s")
        d["characters"][3]["cell"] = [0, 5]  # the nymph, away unless placed
        for token, cell in place.items():
            d["characters"][token]["cell"] = cell
        state = game.state_from_dict(d)
        actions = [state.string_to_action(text) for text in texts]
        return [None if a in state.legal_actions() else why_illegal(state, a) for a in actions]

    aura = "the monk stands next to the nymph on 6,5, whose Aura of Tranquility keeps it from using active abilities"
    assert reasons({3: [6, 5]}, "grapple 6,5 6,6", "pounce se", "plant w", "move w") == [aura, aura, aura, None]
    assert reasons({3: [6, 4]}, "plant w") == ["the monk shares its cell 6,4 with the nymph, whose Aura of "
                                                "Tranquility keeps it from using active abilities"]
    assert reasons({3: [0, 5]}, "plant w") == [None]
    hound = "the cell of the enemy hound, whose Territorial keeps its enemies off it"
    assert reasons({4: [6, 5]}, "move s", "grapple 6,5 6,6") == [f"6,5 is {hound}", None]
    assert reasons({4: [5, 5], 1: [6, 5]}, "grapple 6,5 5,5", "grapple 6,5 6,5", "grapple 6,5 6,6") == [
        f"the landing cell 5,5 is {hound}", "the landing cell 6,5 is the target's own cell: a grapple moves it "
        "elsewhere", None]
    # Dragon Pounce: from 4,4 hedges close both routes to 5,5; from 6,4 to 5,5 a hedge closes the
    # route through 5,4 and the hound on 6,5 the one through 6,5
    assert reasons({}, "pounce se", "pounce ne", monk=(4, 4)) == [
        "both routes to 5,5 are closed (point 10): a hedge stands between 4,4 and 5,4; a hedge stands between "
        "4,4 and 4,5", None]
    assert reasons({4: [6, 5]}, "pounce sw") == [f"both routes to 5,5 are closed (point 10): a hedge stands "
                                                 f"between 5,4 and 5,5; 6,5 is {hound}"]
    assert reasons({4: [5, 5]}, "pounce sw") == [f"5,5 is {hound}"]
    assert reasons({4: [0, 6]}, "pounce sw") == [None]


def test_imperial_harvest_reasons_for_the_nymph_borrowing():
    """The Nymph (Changeling, point 51) uses the active abilities of the characters next to her:
    one that no neighbour has gets a reason, and so do Changeling and Arcane Puppetry, which she
    never borrows; a borrowed attack is refused as her own would be."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="monk,imperial_guardian,puppeteer/nymph,hound,barbarian")
    state = position(game, "rest monk", "activate guardian", "end", "activate puppeteer", "end", "rest hound",
                     "activate nymph")
    d = state.to_dict()
    d["characters"][3].update(cell=[6, 5], facing="n")  # the nymph between the monk and the barbarian
    d["characters"][0]["cell"], d["characters"][5]["cell"] = [6, 4], [6, 6]
    d["characters"][2]["cell"] = [9, 4]  # the puppeteer, away
    state = game.state_from_dict(d)

    def reason(text):
        action = state.string_to_action(text)
        return None if action in state.legal_actions() else why_illegal(state, action)

    assert reason("axe 6,4") is None and reason("grapple 6,4 6,3") is None  # the barbarian's, the monk's
    assert reason("spear 6,4") == ("the nymph has no Spear ability, and no character next to it (across no "
                                   "hedge) has it to lend (Changeling)")
    assert reason("axe 6,6") == "6,6 is on your team: attacks target enemies"
    d["characters"][2]["cell"] = [5, 5]  # the puppeteer beside her now: its Puppetry is not lent
    state = game.state_from_dict(d)
    assert reason("puppet 6,4") == "the nymph has no Arcane Puppetry ability, and Changeling does not borrow it"
    # A borrowed ability's limits are its card's: the monk's plants and grapple, the barbarian's chops
    d["characters"][0]["uses_left"], d["activation"]["grapple_used"] = 0, True
    state = game.state_from_dict(d)
    assert reason("plant w") == "the nymph has used up the monk's Plant for this game"
    assert reason("grapple 6,4 6,3") == "the nymph has used Grapple this activation (once per activation)"


def test_imperial_harvest_reasons_for_edges_and_ranges():
    """Planting needs a free edge between two board cells and a hedge token left; chopping and
    Shadow Walk need a hedge on that edge; Ventriloquism and Arcane Puppetry reach 3 steps
    (point 15: around hedges and water), Puppetry only characters, not under an Aura."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="regent,puppeteer,monk/nymph,hound,barbarian")
    start = position(game, "rest regent", "activate puppeteer")

    def reasons(place, *texts, **fields):  # `place`: token -> cell; the nymph away unless placed
        d = start.to_dict()
        d["characters"][3]["cell"] = [0, 5]
        for token, cell in place.items():
            d["characters"][token]["cell"] = cell
        d.update(fields)
        state = game.state_from_dict(d)
        actions = [state.string_to_action(text) for text in texts]
        return [None if a in state.legal_actions() else why_illegal(state, a) for a in actions]

    # The puppeteer on 4,4, hedged in on the east and south: the monk on 4,5 is 1 cell and more than 3 steps away
    far = "{} is more than 3 steps from the puppeteer (steps around hedges and water, point 15)"
    assert reasons({1: [4, 4], 2: [4, 5]}, "puppet 4,5", "vent 4,5 n") == [far.format("4,5")] * 2
    sentry = [{"cell": [5, 4], "facing": "n"}, None]
    assert reasons({1: [5, 3], 2: [6, 3]}, "puppet 6,3", "puppet 5,4", sentries=sentry) == [
        None, "a sentry is no character: Arcane Puppetry works on characters"]
    assert reasons({1: [5, 3], 2: [6, 3], 3: [6, 4]}, "puppet 6,3") == [
        "6,3 stands next to the nymph on 6,4, whose Aura of Tranquility keeps it from using active abilities"]
    monk = position(game, "rest regent", "activate monk")  # the first game's monk, on 4,4
    d = monk.to_dict()
    d["characters"][2]["cell"] = [4, 4]
    planting = game.state_from_dict(d)
    assert [why_illegal(planting, planting.string_to_action(f"plant {side}")) for side in "es"] == [
        "a hedge stands on the east edge of 4,4 already", "a hedge stands on the south edge of 4,4 already"]
    assert planting.string_to_action("plant n") in planting.legal_actions()
    d["hedges_planted"] = 4
    assert why_illegal(game.state_from_dict(d), planting.string_to_action("plant n")) == \
        "4 hedges have been planted in this game, all there are"
    d["characters"][2]["cell"], d["hedges_planted"] = [0, 4], 0
    assert why_illegal(game.state_from_dict(d), planting.string_to_action("plant w")) == \
        "0,4 is on the board's edge: there is no cell to the w"
    chopping = position(meeple.load("imperial_harvest", teams="monk,imperial_guardian,imperial_bard/barbarian,"
                                                               "sorceress,raider_bard"),
                        "rest monk", "activate guardian", "end", "activate bard", "end", "rest sorceress",
                        "activate barbarian")
    d = chopping.to_dict()
    d["characters"][3]["cell"] = [4, 4]
    chopping = chopping.game.state_from_dict(d)
    assert chopping.string_to_action("chop e") in chopping.legal_actions()
    assert why_illegal(chopping, chopping.string_to_action("chop n")) == "there is no hedge on the north edge of 4,4 " \
                                                                         "to chop"
    d["hedges_chopped"] = 4
    assert why_illegal(chopping.game.state_from_dict(d), chopping.string_to_action("chop e")) == \
        "4 hedges have been chopped in this game, all the tokens there are"


def test_imperial_harvest_reasons_for_forced_steps_and_compulsion():
    """A forced move (Charm, Ventriloquism, Command, Bite, Compulsion) is one legal step of its
    target in the direction named (points 9, 44); the first compulsion of an activation picks a
    target in the Sorceress's line of sight, and the later ones move the same one (D6)."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="monk,imperial_guardian,imperial_bard/barbarian,sorceress,raider_bard")
    state = position(game, "rest monk", "activate guardian", "end", "activate bard", "end", "rest barbarian",
                     "activate sorceress")
    d = state.to_dict()
    d["characters"][4].update(cell=[4, 6], facing="n")  # the sorceress, the monk ahead on 4,5 (hedges n and e)
    d["characters"][0]["cell"], d["characters"][2]["cell"] = [4, 5], [4, 3]
    state = game.state_from_dict(d)

    def reasons(*texts):
        actions = [state.string_to_action(text) for text in texts]
        return [None if a in state.legal_actions() else why_illegal(state, a) for a in actions]

    assert reasons("charm 4,5 n", "charm 4,5 e", "charm 4,5 w", "compel 4,5 n", "compel 4,3 n") == [
        "4,5 cannot step n: a hedge stands between 4,5 and 4,4", "4,5 cannot step e: a hedge stands between 4,5 "
        "and 5,5", None, "4,5 cannot step n: a hedge stands between 4,5 and 4,4",
        "4,3 is not in the sorceress's line of sight (facing n)"]
    state.apply_action(state.string_to_action("compel 4,5 w"))  # the monk to 3,5, out of her sight
    assert reasons("compel 4,3 n", "compel 3,5 e", "compel 3,5 n") == [
        "the sorceress's compulsions this activation all move the monk on 3,5 (D6)", None,
        "3,5 cannot step n: a hedge stands between 3,5 and 3,4"]
    d = state.to_dict()
    d["activation"]["compulsions"] = 3
    spent = game.state_from_dict(d)
    assert why_illegal(spent, spent.string_to_action("compel 3,5 e")) == (
        "the sorceress has no compulsion left this activation (at most 3, and none once the token it compels has "
        "been defeated, D56)")
    # Shadow Walk from 1,5 across the hedge to the monk's cell 1,6: with AP left to move on only (point 11)
    d["activation"].update(compulsions=0, compel_target=None, ap=2)
    d["characters"][4]["cell"], d["characters"][0]["cell"] = [1, 5], [1, 6]
    walking = game.state_from_dict(d)
    assert why_illegal(walking, walking.string_to_action("shadow s")) == (
        "1,6 holds another token: the sorceress may move onto it only with AP left to move on")
    d["activation"]["ap"] = 3
    assert walking.string_to_action("shadow s") in game.state_from_dict(d).legal_actions()


def test_imperial_harvest_reasons_for_sentries_flip_charge_and_lure():
    """A sentry goes on an orthogonal neighbour a legal step away, holding no token, at most
    max_on_board of them (point 60); Flip needs a garden-tile cell (47); Charge needs an enemy first
    in its line of sight, two cells away or more, and a legal first step (48, D43); Alluring Gaze
    takes n legal steps toward the Nymph, from a cell away or more (49)."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="regent,minotaur,nymph/puppeteer,sorceress,hound")

    def reasons(actor, place, *texts, **fields):  # `actor` acts; `place`: token -> [cell, facing]
        state = position(game, f"rest {'nymph' if actor == 'regent' else 'regent'}", f"activate {actor}")
        d = state.to_dict()
        for token, (cell, facing) in place.items():
            d["characters"][token].update(cell=cell, facing=facing)
        d.update(fields)
        state = game.state_from_dict(d)
        actions = [state.string_to_action(text) for text in texts]
        return [None if a in state.legal_actions() else why_illegal(state, a) for a in actions]

    # The regent on 4,4 (hedges east and south), the sorceress on 4,3
    assert reasons("regent", {0: ([4, 4], "n"), 4: ([4, 3], "s")}, "sentry w n", "sentry e n", "sentry n n") == [
        None, "a sentry is placed a step away: a hedge stands between 4,4 and 5,4",
        "4,3 holds a token: a sentry is placed on a cell with none"]
    assert reasons("regent", {0: ([1, 4], "n")}, "sentry e n", "sentry w n") == [
        "a sentry is placed a step away: 2,4 is water (the moat is crossed on its bridges)", None]
    two = [{"cell": [0, 0], "facing": "s"}, {"cell": [9, 5], "facing": "w"}]
    assert reasons("regent", {0: ([1, 4], "n")}, "sentry w n", sentries=two) == [
        "2 sentries are on the board, and at most 2 may be"]
    # The minotaur: on a bridge, no flip; facing north from 6,4, the charge meets what is on 6,1
    assert reasons("minotaur", {1: ([5, 2], "n")}, "flip") == [
        "5,2 is on no garden tile (the moat, a bridge or a camp)"]
    charging = {1: ([6, 4], "n")}
    assert reasons("minotaur", charging, "charge") == [
        "no token stands in the minotaur's line of sight (facing n) to charge at"]
    assert reasons("minotaur", {**charging, 4: ([6, 1], "s")}, "charge", "flip") == [None, None]
    assert reasons("minotaur", {**charging, 2: ([6, 1], "s")}, "charge") == [
        "the first token in the minotaur's line of sight, the nymph on 6,1, is no enemy"]
    assert reasons("minotaur", {**charging, 4: ([6, 3], "s")}, "charge") == [
        "the first token in the minotaur's line of sight, on 6,3, is next to it: a charge needs room"]
    assert reasons("minotaur", {1: ([6, 3], "n"), 4: ([6, 0], "s")}, "charge") == [
        "the minotaur's first step n is blocked: 6,2 is water (the moat is crossed on its bridges)"]
    assert reasons("minotaur", {1: ([0, 2], "e")}, "charge") == [
        "the hydra on 2,2 is the first in the minotaur's line of sight: no charge (D43)"]
    # The nymph on 6,3 facing north, over the moat: the sorceress on 6,0, 6,1 or her own cell
    luring = {2: ([6, 3], "n")}
    assert reasons("nymph", {**luring, 4: ([6, 0], "s")}, "lure 6,0 1", "lure 6,0 2") == [
        None, "6,0 cannot take its second step toward the nymph: 6,2 is water (the moat is crossed on its bridges)"]
    assert reasons("nymph", {**luring, 4: ([6, 1], "s")}, "lure 6,1 1") == [
        "6,1 cannot take its step toward the nymph: 6,2 is water (the moat is crossed on its bridges)"]
    assert reasons("nymph", {2: ([6, 0], "s"), 4: ([6, 1], "s")}, "lure 6,1 1", "lure 6,1 2") == [
        None, "6,1 is next to the nymph: one step brings it to the nymph's cell"]
    assert reasons("nymph", {2: ([6, 0], "s"), 4: ([6, 0], "s")}, "lure 6,0:sorceress 1") == [
        "6,0:sorceress is on the nymph's own cell: Alluring Gaze draws a token from a cell away or more"]
    plain = position(meeple.load("imperial_harvest", board="symmetric",
                                 teams="regent,minotaur,nymph/puppeteer,sorceress,hound"),
                     "rest regent", "activate minotaur")
    d = plain.to_dict()
    d["characters"][1]["cell"] = [4, 4]  # away from the nymph's Aura
    plain = plain.game.state_from_dict(d)
    assert why_illegal(plain, plain.string_to_action("flip")) == "this board has no garden tiles to turn"


def test_imperial_harvest_reasons_in_the_puppet_phase():
    """Arcane Puppetry (point 54, D31): the puppet takes one action by one of its own active
    abilities, but Sprint, Changeling and Puppetry; a character with none it could use now is no
    puppet. Its attacks target its own enemies."""
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    game = meeple.load("imperial_harvest", teams="regent,minotaur,imperial_bard/puppeteer,sorceress,hound")
    state = position(game, "rest regent", "activate minotaur", "end", "activate bard", "end", "rest hound",
                     "activate puppeteer")
    d = state.to_dict()
    d["characters"][3].update(cell=[5, 4])  # the puppeteer, near the minotaur on 6,4 and the bard on 5,5
    d["characters"][1].update(cell=[6, 4], facing="w")
    d["characters"][2].update(cell=[5, 5])
    d["characters"][0].update(cell=[6, 5])
    acting = game.state_from_dict(d)
    assert why_illegal(acting, acting.string_to_action("puppet 5,5")) == (
        "5,5 has no active ability a puppet may use (Changeling, Arcane Puppetry and Sprint are not, D31)")
    d["characters"][4].update(cell=[0, 9], facing="w")  # the sorceress: no one in her sight, no hedge by her
    d["characters"][3]["cell"] = [0, 7]
    cornered = game.state_from_dict(d)
    assert why_illegal(cornered, cornered.string_to_action("puppet 0,9")) == (
        "0,9 could use none of its active abilities (charm, compel, shadow) where it stands now")
    d["characters"][3]["cell"] = [5, 4]
    d["activation"]["ap"] = 0
    idle = game.state_from_dict(d)
    assert why_illegal(idle, idle.string_to_action("puppet 6,4")) == (
        "6,4 could use none of its active abilities: the cheapest costs 1 AP and the puppeteer has 0 left")
    acting.apply_action(acting.string_to_action("puppet 6,4"))
    assert acting.to_dict()["phase"] == "puppet"

    def reasons(*texts):
        actions = [acting.string_to_action(text) for text in texts]
        return [None if a in acting.legal_actions() else why_illegal(acting, a) for a in actions]

    first = "the puppeteer works the minotaur as a puppet: first one action by one of its active abilities " \
            "(charge, flip, horns)"
    assert reasons("move n", "end", "face s") == [first] * 3
    assert reasons("sprint", "spear 5,5", "horns 6,5", "horns 5,4", "charge") == [
        "a puppet does not use Sprint (D31)",
        "the minotaur has no Spear ability: as a puppet it uses its own active abilities (charge, flip, horns)",
        "6,5 is on the minotaur's team: attacks target enemies", None,
        "the first token in the minotaur's line of sight, on 5,4, is next to it: a charge needs room"]


def test_no_reason_is_given_for_a_legal_move(case):
    """A game's reasons (GameSpec.why_illegal) are each enough to rule a move out: none is given
    for a legal move, over random games. Imperial Harvest's acting character, and a puppet, get a
    reason for nearly every illegal action of their own (moves, strawberries, abilities)."""
    why_illegal = cli.game_spec(case.name).why_illegal
    if why_illegal is None:
        pytest.skip(f"{case.name} gives no reasons")
    game = case.load()
    explained, unexplained = 0, 0
    own_actions = [a for a in range(17, 429) if not 65 <= a <= 68]  # move .. sprint, but respawn
    for seed in range(3):
        rng, state = random.Random(seed), game.new_initial_state(seed=seed)
        while not state.is_terminal() and state.move_number() < 300:
            legal = state.legal_actions().tolist()
            if not state.is_chance_node():
                for action in legal:
                    assert why_illegal(state, action) is None, (seed, state.move_number(),
                                                                state.action_to_string(action))
                if case.name == "imperial_harvest" and state.to_dict()["phase"] in ("act", "puppet"):
                    illegal = sorted(set(own_actions) - set(legal))
                    for action in rng.sample(illegal, 24):
                        if why_illegal(state, action) is None:
                            unexplained += 1
                        else:
                            explained += 1
            state.apply_action(rng.choice(legal) if not state.is_chance_node() else sample_outcome(state, rng))
    if case.name == "imperial_harvest":
        assert explained > 100 and unexplained <= explained // 200, (explained, unexplained)


def sample_outcome(state, rng: random.Random) -> int:
    actions, weights = zip(*state.chance_outcomes())
    return rng.choices(actions, weights)[0]


def test_abacuachego_narrates_captures_and_extra_turns(capsys, monkeypatch):
    """Zipa's pit 2 holds 2 grains: sown clockwise, the last lands in her store (another move). Pit
    3's 5 grains sown clockwise end on Zaque's pit 8, making 10, which matches the last digit of its
    front pit (Zipa's pit 3, just emptied): its 10 grains go to her store. 4cw and 1ccw capture
    nothing: no narration."""
    state = meeple.load("abacuachego").state_from_dict(
        {"pits": [[1, 2, 5, 6, 5, 5, 5, 5, 5, 1], [5, 5, 5, 5, 5, 5, 5, 9, 5, 5]], "stores": [6, 0],
         "current_player": 0, "ply": 2})

    def narration(text):
        action = state.string_to_action(text)
        return meeple.abacuachego.narrate(state, action, state.child(action))

    assert narration("2cw") == "The last grain lands in Zipa's store: Zipa moves again."
    assert narration("3cw") == "Zipa captures 10 grains (store 16)."
    assert narration("4cw") is None and narration("1ccw") is None
    code, output, _ = play(capsys, monkeypatch, ["5ccw", "quit"], "abacuachego", "--seed", "3")
    assert re.search(r"^player 1 \(Zaque\) \[random\] plays 7ccw\n  Zaque captures 6 grains \(store 6\)\.$",
                     output, re.M)


def test_imperial_harvest_narrates_defeats():
    """The guardian spears the sorceress, who leaves the board: the narration names her."""
    game = meeple.load("imperial_harvest")
    state = position(game, "rest monk", "activate guardian")
    d = state.to_dict()
    d["characters"][1].update(cell=[9, 3], facing="s")  # the guardian, the sorceress in front of it
    d["characters"][4]["cell"] = [9, 4]
    before = game.state_from_dict(d)
    after = before.clone()
    spear = after.string_to_action("spear 9,4")
    after.apply_action(spear)
    assert meeple.imperial_harvest.narrate(before, spear, after) == "Defeated: raider-sorceress."
    step = before.string_to_action("move w")
    assert meeple.imperial_harvest.narrate(before, step, before.child(step)) is None
    # A sentry placed next to a hydra is defeated at once: it never shows on the board
    game = meeple.load("imperial_harvest", teams="monk,imperial_guardian,regent/barbarian,sorceress,raider_bard")
    state = position(game, "rest monk", "activate regent")
    d = state.to_dict()
    assert d["hydras"][0] == [2, 2] and d["sentries"] == [None, None]
    d["characters"][2]["cell"] = [2, 0]  # the regent two cells north of hydra 1
    before = game.state_from_dict(d)
    sentry = before.string_to_action("sentry s n")
    after = before.child(sentry)
    assert after.to_dict()["sentries"] == [None, None] and after.to_dict()["regent_vp"][0] == d["regent_vp"][0] - 1
    assert meeple.imperial_harvest.narrate(before, sentry, after) == "Defeated: sentry1 (as soon as placed)."


NARRATED = [case for case in cases() if cli.game_spec(case.name).narrate is not None]  # not Harmonies


@pytest.mark.parametrize("case", NARRATED, ids=[case.id for case in NARRATED])
def test_narration_over_random_games(case):
    """A game's narration (GameSpec.narrate) is one line of text or None after any move of random
    games."""
    narrate = cli.game_spec(case.name).narrate
    told = 0
    for seed in range(8):
        rng, state = random.Random(seed), case.load().new_initial_state(seed=seed)
        while not state.is_terminal():
            action = rng.choice(state.legal_actions().tolist())
            after = state.child(action)
            story = narrate(state, action, after)
            assert story is None or (isinstance(story, str) and story.strip() and "\n" not in story)
            told += story is not None
            state = after
    if case.name == "abacuachego":  # random play captures often; defeats are rarer (a hand-built test)
        assert told > 0


def test_harmonies_play_shows_your_board_last():
    """With 4 players the boards fill some 50 lines: the person's board comes last, next to the
    central spaces, display and prompt, marked 'you'; the others follow play order after the seat."""
    state = meeple.load("harmonies", players=4).new_initial_state(seed=2)
    seen = cli.game_spec("harmonies").board_text(state, 1)
    headers = [line for line in seen.split("\n") if line.startswith("Player ") and "points" in line]
    assert headers == ["Player 2: 0 points, 0 turns", "Player 3: 0 points, 0 turns",
                       "Player 0 (to move): 0 points, 0 turns", "Player 1 (you): 0 points, 0 turns"]
    assert sorted(seen.replace(" (you)", "").split("\n")) == sorted(str(state).split("\n"))
    assert seen.index("Player 1 (you)") < seen.index("Central:")
    assert "Player 0 (you, to move):" in cli.game_spec("harmonies").board_text(state, 0)


def test_every_legal_move_reads_back(case):
    """Each legal move's string, its number and [number] read back as that move (a person's
    spellings are only tried for text that is no move string as written: a Harmonies card draw,
    'draw card 1 (crocodile)', keeps its brackets); a bare number too, except in Abacuachego, which
    reads it as a pit (test_render_reads_bare_numbers_as_play_does)."""
    rng = random.Random(5)
    state = case.load().new_initial_state(seed=5)
    bare = cli.game_spec(state.game.name).read_bare_number is None
    for _ in range(60):
        if state.is_terminal():
            break
        for a in state.legal_actions().tolist():
            assert cli.read_move(state, state.action_to_string(a)) == a
            assert cli.read_move(state, f"[{a}]") == a
            if bare:
                assert cli.read_move(state, str(a)) == a
        state.apply_action(rng.choice(state.legal_actions().tolist()))


@pytest.mark.parametrize("typed, move", [
    ("place B 0,0", "place blue 0,0"), ("place s 1 2", "place gray 1,2"), ("Place T (3, 4)", "place brown 3,4"),
    ("place green 0 0", "place green 0,0"), ("cube bee 2 1", "cube bee 2,1"), ("take 3", "take 3"), ("end", "end"),
    ("place Q 0,0", "place q 0,0"),  # no such letter: left for the usual "not a legal move"
])
def test_harmonies_spellings(typed, move):
    assert meeple.harmonies.spell_move(None, typed) == move


@pytest.mark.parametrize("returns, seat, verdict", [
    ([1.0, -1.0], 0, "You win."), ([1.0, -1.0], 1, "You lose."), ([0.0, 0.0], 1, "Draw."),
    ([3.0], 0, "Your return: 3."), ([-1.0, 0.0, 1.0], 1, "You lose: place 2 of 3."),
    ([1.0, 1.0, -1.0], 0, "You share the win (2 players)."), ([0.5, 0.5, -1.0, 0.0], 3, "You lose: place 3 of 4."),
    ([1.0, -1.0, -1.0], 2, "You lose: place 2 of 3 (shared)."),
])
def test_play_result_line(returns, seat, verdict):
    assert cli.result_text(np.array(returns), seat) == verdict


def test_play_quit(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["quit"], "abacuachego")
    assert code == 0
    assert output.rstrip().endswith("Game abandoned.")


def test_play_eof_at_once(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, [], "abacuachego")
    assert code == 1
    assert str(ABACUACHEGO.new_initial_state()) in output
    assert "End of input: game abandoned." in output


def test_play_undo(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["undo", "3cw", "board", "undo"], "abacuachego", "--seed", "2")
    assert code == 1
    assert "Nothing to undo." in output
    assert "Took back your last move." in output
    after_undo = output[output.rindex("Took back your last move."):]
    assert str(ABACUACHEGO.new_initial_state(seed=2)) in after_undo


def test_play_help_explains_the_moves_and_mistypes_get_suggestions(capsys, monkeypatch):
    """`help` says how each game's moves are written; a mistyped move names the close legal ones,
    and the list of legal moves comes again only when it is short; spaces around commas and
    extra spaces are fine."""
    for name in meeple.list_games():
        code, output, _ = play(capsys, monkeypatch, ["help", "quit"], name)
        assert meeple._registry.game_spec(name).moves_help in output and "docs/rules/" in output
    code, output, _ = play(capsys, monkeypatch, ["tak 1", "take 1", "place  blu  0, 0", "quit"], "harmonies")
    assert "'tak 1' is not a legal move. Did you mean 'take 1' or " in output
    assert "'place  blu  0, 0' is not a legal move. Did you mean 'place blue 0,0' or " in output
    after_typo = output[output.index("'place  blu  0, 0' is not"):].split("Your move:")[0]
    assert "Legal moves:" not in after_typo  # dozens of moves: not listed again
    assert "('moves' lists the legal moves, 'board' shows the board with them, 'help' the commands.)" in after_typo
    assert "Legal moves:" in output[output.index("'tak 1' is not"):].split("Your move:")[0]  # 10 are
    state = meeple.load("harmonies").new_initial_state()
    state.apply_action(state.string_to_action("take 1"))
    hand = [a for a in state.legal_actions() if state.action_to_string(a).endswith(" 0,0")]
    spaced = state.action_to_string(hand[0]).replace(",", " ,  ").replace(" ", "  ")
    code, output, _ = play(capsys, monkeypatch, ["take 1", spaced, "quit"], "harmonies")
    assert f"You play {state.action_to_string(hand[0])}" in output
    code, output, _ = play(capsys, monkeypatch, ["3cx", "quit"], "abacuachego")  # 20 moves: listed again
    assert "'3cx' is not a legal move. Did you mean '3cw'" in output and output.count("Legal moves:") == 2
    code, output, _ = play(capsys, monkeypatch, ["quit"], "imperial_harvest")
    assert output.startswith("You are player 0 (Imperial Servants).")


def test_a_failing_bot_ends_the_command_with_a_message(capsys, monkeypatch, tmp_path):
    """No traceback: which bot, which seat, which game and move; the output file keeps whole games."""
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "3", "--bots", "misbehaving_bots:Illegal,random")
    assert code == 1 and "Traceback" not in err
    assert ("meeple selfplay: error: game 0: bot 'misbehaving_bots:Illegal' (seat 0) failed at move 0: chose "
            "illegal action 1000000; legal: ") in err
    path = tmp_path / "games.jsonl"
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "12", "--workers", "2", "--out", str(path),
                       "--bots", "misbehaving_bots:BoomInGameSeven,random")
    assert code == 1 and "Traceback" not in err
    assert "game 7: bot 'misbehaving_bots:BoomInGameSeven' (seat 0) failed at move 0: RuntimeError: game seven" in err
    records = [Record.from_json(line) for line in path.read_text().splitlines()]
    assert [r.meta["index"] for r in records] == list(range(len(records))) and len(records) <= 7
    assert path.read_bytes().endswith(b"\n") or not records
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "2", "--bots",
                       "misbehaving_bots:BrokenConstructor,random")
    assert code == 2 and "could not be made: TypeError: my constructor bug" in err
    monkeypatch.setattr(cli.TerminalGame, "_ask", lambda self: int(self.state.legal_actions()[0]))
    code, _, err = run(capsys, "play", "abacuachego", "--bot", "misbehaving_bots:Boom")  # Boom's 3rd move
    assert code == 1 and "Traceback" not in err
    assert re.search(r"meeple play: error: bot 'misbehaving_bots:Boom' \(seat 1\) failed at move \d+: "
                     r"RuntimeError: boom", err)


def test_play_undo_replays_every_action_to_the_bots(capsys, monkeypatch):
    """After undo the bots restart and hear every action again, their own included, so a bot that
    follows the game through step and inform_action stays in step with it."""
    answers = [first_by_name] * 3 + ["undo", "undo"] + [first_by_name] * 4 + ["quit"]
    code, output, err = play(capsys, monkeypatch, answers, "abacuachego", "--bot", "misbehaving_bots:Tracker")
    assert code == 0 and "failed" not in err and output.count("Took back your last move.") == 2


def test_play_refuses_odd_hints_and_a_bot_without_a_seat(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["hint \u00b2", "hint \u0663", "quit"], "abacuachego")
    assert code == 0 and output.count("hint takes a number of simulations from 1 to 1,000,000") == 2
    code, _, err = run(capsys, "play", "harmonies", "-p", "players=1", "--bot", "random")
    assert code == 2 and "harmonies(players=1) has one player: there is no seat for --bot" in err


def test_play_against_an_imported_bot(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, itertools.repeat(first_by_name),
                           "abacuachego(pits_per_row=4,seeds_per_pit=2)", "--bot", "meeple.bots:Random")
    assert code == 0
    assert "[meeple.bots:Random] plays" in output


@pytest.mark.parametrize("argv, message", [
    (["abacuachego", "--seat", "2"], "--seat must be in 0..1 for abacuachego, got 2"),
    (["abacuachego", "--bot", "mcts:lots"], "bot 'mcts' takes a number of simulations"),
    (["abacuachego", "--bot", "random,random"], "expected 1 bot spec, got 2"),
    (["nochess"], "unknown game 'nochess'"),
    (["abacuachego", "-p", "parity"], "bad parameter 'parity'; expected KEY=VALUE"),
    (["abacuachego", "--seed", "-1"], "argument --seed: expected an integer in 0..2\\*\\*64-1"),
])
def test_play_bad_arguments(capsys, argv, message):
    code, out, err = run(capsys, "play", *argv)
    assert code == 2 and out == ""
    assert re.search(r"meeple play: error: .*" + message, err)
    assert "Traceback" not in err


# --- selfplay --------------------------------------------------------------------------------

def summary_numbers(text: str) -> tuple[list[int], int, int]:
    """(wins per seat, draws, games) read back from a selfplay summary. A one-player game has no
    wins or draws: every game counts as a "draw" here, so wins + draws == games holds."""
    wins = [int(w) for w in re.findall(r"seat \d+ \[.*\]: (\d+) wins", text)]
    games = int(re.search(r": (\d+) games\b", text).group(1))
    draws_line = re.search(r"draws\)?: (\d+)", text)
    draws = int(draws_line.group(1)) if draws_line else games - sum(wins)
    return wins, draws, games


def test_selfplay_random_fast_path(capsys, case):
    code, out, err = run(capsys, "selfplay", case.name, *param_args(case), "--games", "25001", "--seed", "5")
    assert code == 0 and err == ""
    wins, draws, games = summary_numbers(out)
    assert games == 25001 and sum(wins) + draws == games
    length = re.search(r"game length: mean ([\d.]+), min (\d+), max (\d+)", out)
    assert 0 < int(length.group(2)) <= float(length.group(1)) <= int(length.group(3))
    assert re.search(r"speed: [\d,]+ plies/s, [\d,]+ games/s", out)
    threaded = run(capsys, "selfplay", case.name, *param_args(case), "--games", "25001", "--seed", "5",
                   "--workers", "2")[1]
    assert summary_numbers(threaded) == summary_numbers(out)


def test_selfplay_out_writes_replayable_records(capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    code, out, _ = run(capsys, "selfplay", "abacuachego(pits_per_row=6)", "--games", "12", "--seed", "1",
                       "--out", str(path))
    assert code == 0
    records = [Record.from_json(line) for line in path.read_text().splitlines()]
    assert [r.meta["index"] for r in records] == list(range(12))
    for record in records:
        final = record.replay()
        assert final.is_terminal()
        assert record.returns == [float(r) for r in final.returns()]
        assert record.parameters["pits_per_row"] == 6
    wins, draws, games = summary_numbers(out)
    assert games == 12 and sum(wins) + draws == 12
    assert wins == [sum(r.returns[p] > r.returns[1 - p] for r in records) for p in (0, 1)]
    assert out.startswith("abacuachego(pits_per_row=6): 12 games in")


def test_selfplay_workers_give_the_same_records(capsys, tmp_path):
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    base = ["selfplay", "abacuachego", "--games", "9", "--bots", "random,meeple.bots:Random", "--seed", "8"]
    assert run(capsys, *base, "--out", str(serial))[0] == 0
    assert run(capsys, *base, "--out", str(parallel), "--workers", "3")[0] == 0
    assert serial.read_text() == parallel.read_text()
    assert len(serial.read_text().splitlines()) == 9


def test_selfplay_user_bots_without_out(capsys):
    code, out, _ = run(capsys, "selfplay", "abacuachego", "--games", "4", "--bots", "meeple.bots:Random")
    assert code == 0
    assert "seat 1 [meeple.bots:Random]" in out
    assert summary_numbers(out)[2] == 4


def test_selfplay_out_to_stdout(capsys):
    code, out, err = run(capsys, "selfplay", "abacuachego", "--games", "3", "--out", "-")
    assert code == 0
    assert [Record.from_json(line).replay().is_terminal() for line in out.splitlines()] == [True] * 3
    assert summary_numbers(err)[2] == 3


@pytest.mark.parametrize("argv, message", [
    (["--games", "0"], "argument --games: expected a positive integer, got '0'"),
    (["--games", "x"], "argument --games"),
    ([], "the following arguments are required: --games"),
    (["--games", "2", "--bots", "random,nope"], "unknown bot 'nope'"),
    (["--games", "2", "--bots", "random,random,random"],
     "expected 1 bot spec (for every seat) or 2 (one per seat), got 3"),
    (["--games", "2", "--workers", "0"], "argument --workers"),
    (["--games", "2", "--workers", "3000000000"], "argument --workers: expected at most 1024 workers"),
    (["--games", "1", "--bots", "mcts:3000000000,random"], "simulations must be an int in 1..2**31-1"),
    (["--games", "2", "-p", "parity=odd"], "bad value 'odd' for parameter 'parity'"),
    (["--games", "2", "-p", "parity=pit", "-p", "parity=count"], "parameter 'parity' given twice"),
    (["--games", "2", "--out", "/no/such/dir/x.jsonl"], "cannot write /no/such/dir/x.jsonl"),
])
def test_selfplay_bad_arguments(capsys, argv, message):
    code, out, err = run(capsys, "selfplay", "abacuachego", *argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_progress_redraws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    with cli.Progress(10, stream=screen) as progress:
        progress.interval = 0.0
        progress.advance(3)
    assert re.fullmatch(r"(\r\[######\.{14}\] 3/10 games  [\d,.]+/s  ETA (0:00|\?)\x1b\[K)+\n", screen.getvalue())
    log = io.StringIO()
    with cli.Progress(10, stream=log) as progress:
        progress.advance(10)
    assert log.getvalue() == ""
    assert cli._clock(3725) == "1:02:05" and cli._clock(65.4) == "1:05"


# --- perft -----------------------------------------------------------------------------------

def test_perft(capsys, case):
    game = case.load()
    code, out, _ = run(capsys, "perft", case.name, *param_args(case), "--depth", "4", "--divide")
    assert code == 0
    state = game.new_initial_state(seed=0)
    rows = re.findall(r"^\s+(\d)\s+([\d,]+)\s+[\d.]+ s", out, re.M)
    assert [(int(d), int(n.replace(",", ""))) for d, n in rows] == [(d, game.perft(state, d)) for d in range(1, 5)]
    divide = re.findall(r"^\s+\S.*? \[(\d+)\]\s+([\d,]+)$", out, re.M)
    assert [int(a) for a, _ in divide] == [int(a) for a in state.legal_actions()]
    assert sum(int(n.replace(",", "")) for _, n in divide) == game.perft(state, 4)
    assert re.search(rf"total\s+{game.perft(state, 4):,}$", out, re.M)


def test_perft_bad_depth(capsys):
    code, _, err = run(capsys, "perft", "abacuachego", "--depth", "0")
    assert code == 2 and "argument --depth" in err


# --- render ----------------------------------------------------------------------------------

def test_render_initial_state_and_moves(capsys):
    for name in ("abacuachego", "Abacuachego", "ABACUACHEGO(parity=count)"):  # names ignore case
        assert run(capsys, "render", name) == (0, str(ABACUACHEGO.new_initial_state()) + "\n", "")
    state = ABACUACHEGO.new_initial_state()
    for move in ("3cw", "5ccw", "4ccw"):
        state.apply_action(state.string_to_action(move))
    for moves in ("3cw 5ccw 4ccw", "3CW,5ccw, [7]", "[4] 5 [7]"):  # Zaque's pit 5: 5ccw, its one move
        assert run(capsys, "render", "abacuachego", "--moves", moves)[1] == str(state) + "\n"


def test_render_reads_bare_numbers_as_play_does(capsys):
    """A bare number is what `meeple play` takes it for: in Abacuachego a pit (the board's numbers),
    so the same text never plays one move there and another here (play:
    test_play_reads_a_bare_number_as_a_pit_in_abacuachego); an action's number goes in brackets in
    both."""
    state = ABACUACHEGO.new_initial_state()
    state.apply_action(state.string_to_action("5ccw"))
    assert run(capsys, "render", "abacuachego", "--moves", "5")[1] == str(state) + "\n"
    code, _, err = run(capsys, "render", "abacuachego", "--moves", "1")
    assert code == 2 and "move 1 ('1') is no move here: pit 1 may be sown either way: type 1cw or 1ccw" in err
    code, _, err = run(capsys, "render", "abacuachego", "--moves", "11")
    assert code == 2 and "there is no pit 11 (your pits are 1..10); an action's number goes in brackets" in err


@pytest.mark.parametrize("game, moves", [
    ("imperial_harvest", ["rest bard", "activate monk", "grapple 9,0 7,1", "move e", "end"]),
    ("harmonies", ["take 0", "place red 4,0", "place blue 0,1", "card 2"]),
])
def test_render_moves_of_several_words(capsys, game, moves):
    """Move strings with spaces and commas, run together with spaces (each move is the longest run
    of words naming a legal move), separated by ';', or as numbers."""
    state = meeple.load(game).new_initial_state()
    numbers = []
    for move in moves:
        legal = [state.action_to_string(int(a)) for a in state.legal_actions()]
        assert move in legal, legal
        numbers.append(str(state.string_to_action(move)))
        state.apply_action(state.string_to_action(move))
    for text in (" ".join(moves), " ; ".join(moves), " ".join(numbers), " ".join(f"[{n}]" for n in numbers)):
        assert run(capsys, "render", game, "--moves", text) == (0, str(state) + "\n", "")
    two_parts = ("--moves", moves[0], "--moves", "; ".join(moves[1:]))  # the second goes on from the first
    assert run(capsys, "render", game, *two_parts) == (0, str(state) + "\n", "")
    code, _, err = run(capsys, "render", game, "--moves", " ".join(moves[:2] + ["sing loudly"]))
    assert code == 2 and "move 3 ('sing loudly') is not a legal move. Legal moves:" in err
    code, _, err = run(capsys, "render", game, "--moves", "; ".join(moves[:1] + ["sing loudly", moves[1]]))
    assert code == 2 and "move 2 ('sing loudly') is not a legal move." in err


def test_render_json(capsys, tmp_path, monkeypatch):
    game = meeple.load("abacuachego", parity="pit")
    state = game.new_initial_state(seed=4)
    for action in (1, 4, 8):
        state.apply_action(action)
    path = tmp_path / "state.json"
    path.write_text(state.to_json())
    assert run(capsys, "render", "--json", str(path))[1] == str(state) + "\n"
    assert run(capsys, "render", "abacuachego(parity=pit)", "--json", str(path))[1] == str(state) + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(state.to_json()))
    assert run(capsys, "render", "abacuachego", "--json", "-")[1] == str(state) + "\n"
    child = state.clone()
    child.apply_action(int(child.legal_actions()[0]))
    moves = ["--moves", f"[{int(state.legal_actions()[0])}]"]
    assert run(capsys, "render", "--json", str(path), *moves)[1] == str(child) + "\n"
    assert run(capsys, "render", "--json", str(path), "--legal")[1] == f"{state}\n{cli.legal_moves_text(state)}\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert "meeple render: error: standard input is not one JSON document" in run(capsys, "render", "--json", "-")[2]


def test_render_record(capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    run(capsys, "selfplay", "abacuachego", "--games", "2", "--out", str(path))
    first = path.read_text().splitlines()[0]
    (tmp_path / "one.json").write_text(first)
    code, out, _ = run(capsys, "render", "--json", str(tmp_path / "one.json"))
    assert code == 0 and out == str(Record.from_json(first).replay()) + "\n"
    code, _, err = run(capsys, "render", "--json", str(path))
    assert code == 2 and "pass one line" in err
    for moves in ("1cw", "1cw; 2cw"):  # a record's game is over: no move can follow
        code, _, err = run(capsys, "render", "--json", str(tmp_path / "one.json"), "--moves", moves)
        assert code == 2 and "move 1 ('1cw') comes after the end of the game" in err


@pytest.mark.parametrize("argv, message", [
    ([], "give a GAME or --json FILE"),
    (["abacuachego", "--moves", "3cw [8]"], "move 2 ('[8]') (5cw) is not legal now: pit 5 sows counter-clockwise"),
    (["abacuachego", "--moves", "3cw nope"], "move 2 ('nope') is not a legal move. Legal moves:"),
    (["--json", "/no/such/file.json"], "cannot read /no/such/file.json"),
    (["--json", "{doc}", "--seed", "1"], "--seed cannot be used with --json"),
    (["--json", "{doc}", "-p", "parity=pit"], "-p needs a GAME"),
    (["other", "--json", "{doc}"], "the document is a state of abacuachego, not other"),
    (["abacuachego(parity=pit)", "--json", "{doc}"], "the document's parameters differ"),
    (["--json", "{bad}"], "is not one JSON document"),
    (["--json", "{wrong}"], "expected a state document (schema 'meeple-state/1', from state.to_json()) or a "
                            "record (schema 'meeple-record/1', a line of `meeple selfplay`), got schema 'other/1'"),
    (["--json", "{empty}"], "or a record (schema 'meeple-record/1', a line of `meeple selfplay`), got an object "
                            "with no schema"),
    (["--json", "{list}"], "got a JSON array"),
    (["--json", "{null}"], "got a JSON null"),
    (["--json", "{deep}"], "the JSON document is nested too deeply"),
    (["--json", "{long}"], "Exceeds the limit"),
    (["--json", "{binary}"], "is not UTF-8 text"),
])
def test_render_bad_arguments(capsys, tmp_path, argv, message):
    files = {"{doc}": ABACUACHEGO.new_initial_state().to_json(), "{bad}": "{not json",
             "{wrong}": json.dumps({"schema": "other/1"}), "{deep}": "[" * 100_000 + "]" * 100_000,
             "{long}": "9" * 5000, "{binary}": b"\xff\xfe{}", "{empty}": "{}", "{list}": "[1]", "{null}": "null"}
    for key, content in files.items():
        path = tmp_path / key[1:-1]
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    argv = [str(tmp_path / a[1:-1]) if a in files else a for a in argv]
    code, out, err = run(capsys, "render", *argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


# --- list, version, bench, errors ------------------------------------------------------------

def test_version_and_list(capsys):
    assert run(capsys, "--version") == (0, f"meeple {meeple.__version__}\n", "")
    code, out, _ = run(capsys, "list")
    assert code == 0
    for name in meeple.list_games():
        assert out.count(f"{name}: ") == 1
        for param in meeple._registry.game_spec(name).params:
            assert re.search(rf"^  {param.name} +{re.escape(repr(param.default))} +{re.escape(param.describe())}",
                             out, re.M)


def test_bench_delegates(capsys, monkeypatch):
    calls = []
    fake = types.ModuleType("meeple.bench")
    fake.run = lambda games, quick=False: calls.append((games, quick))
    monkeypatch.setitem(sys.modules, "meeple.bench", fake)
    monkeypatch.setattr(meeple, "bench", fake, raising=False)
    assert run(capsys, "bench", "--quick")[0] == 0
    assert run(capsys, "bench", "abacuachego")[0] == 0
    assert calls == [(None, True), (["abacuachego"], False)]
    code, _, err = run(capsys, "bench", "nochess")
    assert code == 2 and "unknown game 'nochess'" in err
    code, _, err = run(capsys, "bench", "abacuachego(pits_per_row=4)")
    assert code == 2 and "give the name alone, 'abacuachego', not 'abacuachego(pits_per_row=4)'" in err
    assert len(calls) == 2


def test_bench_missing_module(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "meeple.bench", None)
    monkeypatch.delattr(meeple, "bench", raising=False)
    code, out, err = run(capsys, "bench")
    assert code == 1 and out == ""
    assert "no benchmark module (meeple.bench)" in err


@pytest.mark.parametrize("argv", [[], ["chess"], ["perft"], ["play", "abacuachego", "--nope"]])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "usage: meeple" in err and "Traceback" not in err


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "selfplay", "--help")
    assert code == 0 and "--games N" in out


# --- as a program ----------------------------------------------------------------------------

def _meeple_env() -> dict:
    """The environment of a `python -m meeple` child: this meeple importable."""
    return dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(meeple.__file__)))


def _python_m_meeple(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "meeple", *argv], input=stdin, capture_output=True,
                          text=True, env=_meeple_env(), timeout=120)


def test_python_m_meeple():
    selfplay = _python_m_meeple("selfplay", "abacuachego", "--games", "50")
    assert selfplay.returncode == 0, selfplay.stderr
    wins, draws, games = summary_numbers(selfplay.stdout)
    assert sum(wins) + draws == games == 50
    piped = _python_m_meeple("play", "abacuachego", stdin="nonsense\n3cw\n")
    assert piped.returncode == 1, piped.stderr
    assert "'nonsense' is not a legal move." in piped.stdout and "You play 3cw" in piped.stdout
    assert piped.stdout.rstrip().endswith("End of input: game abandoned.")
    bad = _python_m_meeple("perft", "abacuachego", "--depth", "-3")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_records_to_a_reader_that_stops_early_end_quietly():
    """`meeple selfplay ... --out - | head -1`: the closed pipe ends the run with exit code 1 and no
    traceback (more records than a pipe buffer holds, so the writer meets the closed pipe)."""
    writer = subprocess.Popen([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", "3000",
                               "--out", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_meeple_env())
    first = writer.stdout.readline()
    writer.stdout.close()
    _, stderr = writer.communicate(timeout=120)
    assert first.startswith(b'{"schema": "meeple-record/1"')
    assert writer.returncode == 1 and b"Traceback" not in stderr and b"BrokenPipe" not in stderr, stderr


def test_ctrl_c_stops_perft():
    """Ctrl-C in a long `meeple perft` (depth 9 takes minutes) ends it at once with "interrupted" and
    exit code 130, as in every command (the count runs in C++, which looks for the signal)."""
    import signal
    perft = subprocess.Popen([sys.executable, "-m", "meeple", "perft", "abacuachego", "--depth", "9"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(_meeple_env(), PYTHONUNBUFFERED="1"))
    try:
        assert perft.stdout.readline().split() == ["depth", "nodes", "time", "nodes/s"]
        perft.send_signal(signal.SIGINT)
        _, stderr = perft.communicate(timeout=30)
    finally:
        perft.kill()
    assert perft.returncode == 130 and stderr == "\ninterrupted\n", stderr


def test_play_hint_shows_what_mcts_prefers(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["help", "hint", "hint 64", "hint 0", "hint many", "3cw", "hint 64",
                                                 "quit"], "abacuachego", "--seed", "5")
    assert code == 0
    assert "hint [N] (the moves MCTS prefers\nhere after N simulations, default 1000)" in output
    game = meeple.load("abacuachego")
    state = game.new_initial_state(seed=5)

    def expected(simulations, moves_so_far):
        # The hint's search: MCTS seeded by the game's seed and the moves so far.
        bot = MCTS(game, simulations=simulations, seed=meeple.bots.derive_seed(5, moves_so_far))
        bot.step(state)
        ranked = sorted(bot.last_visits.items(), key=lambda item: (-item[1], item[0]))
        total = sum(bot.last_visits.values())
        first, second = ((state.action_to_string(a), a, round(100 * n / total), bot.last_values[a])
                         for a, n in ranked[:2])
        return (f"MCTS ({simulations:,} simulations) prefers {first[0]} [{first[1]}] ({first[2]}% of visits, "
                f"mean return {first[3]:+.2f}); then {second[0]} [{second[1]}] ({second[2]}% of visits, "
                f"mean return {second[3]:+.2f})")

    assert expected(1000, 0) in output and expected(64, 0) in output
    assert output.count("hint takes a number of simulations from 1 to 1,000,000") == 2
    state.apply_action(state.string_to_action("3cw"))
    bot_move = output.split("You play 3cw", 1)[1].split(" plays ", 1)[1].split("\n", 1)[0]
    state.apply_action(state.string_to_action(bot_move))
    assert expected(64, 2) in output.split("You play 3cw", 1)[1]


def test_play_hint_with_fewer_simulations_than_moves(capsys, monkeypatch):
    """One simulation visits one move (it crashed on the unvisited ones): the hint names it alone."""
    code, output, _ = play(capsys, monkeypatch, ["hint 1", "hint 2", "quit"], "abacuachego", "--seed", "3")
    assert code == 0
    assert re.search(r"MCTS \(1 simulation\) prefers \S+ \[\d+\] \(100% of visits, mean return [+-]\d\.\d\d\)\.\n",
                     output)
    assert re.search(r"MCTS \(2 simulations\) prefers .*\(50% of visits.*; then .*\(50% of visits", output)


def test_play_cards_command_describes_the_cards_in_play(capsys, monkeypatch):
    code, output, _ = play(capsys, monkeypatch, ["help", "cards", "quit"], "harmonies", "--seed", "4")
    assert code == 0
    assert "Also: cards (what the cards in play ask for and what they score)." in output
    state = meeple.load("harmonies").new_initial_state(seed=4)
    described = meeple.harmonies.cards_in_play(state)
    assert cli._fitted(described) in output and " ".join(described.split()) in " ".join(output.split())
    code, output, _ = play(capsys, monkeypatch, ["help", "cards", "quit"], "imperial_harvest", "-p", "teams=draft")
    assert "Also: cards (each character's numbers and abilities: how each action is written, what it does)." \
        in output
    state = meeple.load("imperial_harvest", teams="draft").new_initial_state()
    described = meeple.imperial_harvest.cards_in_play(state)
    assert code == 0 and cli._fitted(described) in output
    assert max(map(len, cli._fitted(described).splitlines())) <= 78 < max(map(len, described.splitlines()))
    # Only card headings are broken by play: the rules text comes in 78 columns (a paragraph
    # wrapped at 100 and broken again at 78 read as ragged lines).
    assert all(not line.startswith(" ") for line in described.splitlines() if len(line) > 78)
    # A game without cards has no such command: 'cards' is taken for a move name there.
    code, output, _ = play(capsys, monkeypatch, ["help", "cards", "quit"], "abacuachego")
    assert "Also: cards" not in output and "'cards' is not a legal move." in output


def test_play_undo_draws_the_same_chance_outcomes_again(capsys, monkeypatch):
    """With explicit chance the command draws each outcome from the seed and the number of actions
    played, so taking a move back and playing it again meets the same draws (a running generator
    drew new ones: a player could undo until the draws suited them)."""
    first = (lambda moves: str(moves[0][1]))  # by number: harmonies' move names hold spaces
    answers = ["take 1", first, first, first, "end", "undo", "end", "quit"]
    code, output, _ = play(capsys, monkeypatch, answers, "harmonies", "-p", "chance=explicit", "--seed", "4")
    assert code == 0 and "Took back your last move." in output
    first_end, again = output.split("You play end")[1:3]
    draws = [re.findall(r"^Chance: .*$", part.split("Your move:")[0], re.M) for part in (first_end, again)]
    assert draws[0] and draws[0] == draws[1]


def test_a_bot_calling_sys_exit_is_a_failing_bot(capsys, monkeypatch):
    """sys.exit() in a bot is its failure, reported as any other (it used to end selfplay or play
    with no word, exit code 0 when the bot exits 0); with --workers too."""
    for workers in ("1", "2"):
        code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "3", "--workers", workers,
                           "--bots", "misbehaving_bots:Exits,random")
        assert code == 1 and "Traceback" not in err
        assert "game 0: bot 'misbehaving_bots:Exits' (seat 0) failed at move 0: SystemExit: 3" in err
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "2", "--bots", "misbehaving_bots:ExitsWhenMade")
    assert code == 2 and "could not be made: SystemExit: 0" in err
    monkeypatch.setattr(cli.TerminalGame, "_ask", lambda self: int(self.state.legal_actions()[0]))
    code, _, err = run(capsys, "play", "abacuachego", "--bot", "misbehaving_bots:Exits")
    assert code == 1
    assert "meeple play: error: bot 'misbehaving_bots:Exits' (seat 1) failed at move 1: SystemExit: 3" in err
