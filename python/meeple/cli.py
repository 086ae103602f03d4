"""The ``meeple`` command line.

    meeple list                                        games, their parameters and allowed values
    meeple play abacuachego --bot random               you against a bot in the terminal
    meeple selfplay "abacuachego(parity=pit)" --games 1000 --workers 4 --out games.jsonl
    meeple selfplay abacuachego --bots mcts:1000,random --games 100000 --ray local --out games.jsonl
                                                       (rerun to resume; --ray ADDRESS for a cluster)
    meeple perft abacuachego --depth 5 --divide        move-generation node counts
    meeple render abacuachego --moves "3cw 5ccw"       the board after some moves (or --json FILE)
    meeple bench --quick                               throughput benchmarks (meeple.bench)

GAME is a name or ``name(key=value,...)``; ``-p key=value`` adds parameters. Bots are named by
spec: ``random``, ``mcts:ITERATIONS[:c=C][:threads=T][:reuse_tree=1][:evaluator=module.path:function
[:batch=B][:dirichlet_alpha=A[:dirichlet_fraction=F]]]`` or ``module.path:ClassName`` (see `meeple.bots`).

Each subcommand is a function ``_cmd_<name>(args) -> exit code``. Bad arguments raise `UsageError`,
which `main` reports argparse-style on stderr with exit code 2.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import signal
import stat
import sys
import textwrap
import threading
import time
from typing import Any, TextIO

import numpy as np

from . import __version__, list_games, load
from ._arguments import MAX_THREADS
from ._registry import game_spec, parse_game_string
from .bots import (BOT_FAILURES, MCTS, Bot, BotError, Match, bot_failure, choose_action, derive_seed, inform_bots,
                   make_bot, parse_bot_specs, restart_bots, sample_chance)
from .serialization import RECORD_SCHEMA, STATE_SCHEMA, Record, state_from_document

BOT_SPECS = """bot specs: random
  | mcts   (1000 simulations a move)
  | mcts:ITERATIONS[:c=C][:threads=T][:reuse_tree=1]   (ITERATIONS simulations on each thread)
         [:evaluator=module.path:function[:batch=B][:dirichlet_alpha=A[:dirichlet_fraction=F]]]
  | module.path:ClassName
  An evaluator (state -> (priors, values)) makes the search PUCT, AlphaZero style (meeple.bots.MCTS);
  dirichlet_alpha adds noise to its root priors (self-play exploration); reuse_tree=1 keeps the
  search tree from one move to the next.
  Your own bot: a class with step(state) -> action in an importable module, called as
  ClassName(game, seed=...), ClassName(game), ClassName(seed=...) or ClassName(), the first it accepts
  (ClassName(game) for a parameter named game, and none named seed)
  (see `python -c "import meeple.bots; help(meeple.bots)"`)."""

PLAYOUT_CHUNK = 10_000  # games per C++ call in the fast self-play path (one progress step)
MAX_GAMES = 10**9  # --games: more would not fit the summary's arrays in memory, nor finish


class UsageError(Exception):
    """A bad command-line argument: reported with the subcommand's usage, exit code 2."""


class CommandError(Exception):
    """The command failed (not its arguments): reported as ``meeple COMMAND: error: ...``, exit code 1."""


class Terminated(BaseException):
    """SIGTERM reached ``meeple selfplay``: stopped like Ctrl-C (workers stopped, the output file
    left resumable), exit code 143. A BaseException, as KeyboardInterrupt, so that no
    ``except Exception`` in a bot swallows it."""


def main(argv: list[str] | None = None) -> int:
    """Runs the ``meeple`` command with `argv` (default: ``sys.argv[1:]``); returns the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        try:
            code: int = args.run(args)
            return code
        except UsageError as e:
            command: argparse.ArgumentParser = args.parser
            command.error(str(e))  # prints usage and message, raises SystemExit(2)
        except (BotError, CommandError) as e:  # e.g. a bot of the user's failed: say which, where; no traceback
            print(f"{args.parser.prog}: error: {e}", file=sys.stderr)
            return 1
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except (KeyboardInterrupt, Terminated) as e:  # notes: what was kept, and how to go on
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else "terminated"
        print("\n" + "; ".join([what, *getattr(e, "__notes__", [])]), file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 143
    except BrokenPipeError:  # e.g. `meeple selfplay ... --out - | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


# --- arguments -------------------------------------------------------------------------------

def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="meeple", description="Fast board-game engines: play, "
                                     "self-play, perft, benchmarks.")
    parser.add_argument("--version", action="version", version=f"meeple {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, run: Any, help: str, epilog: str | None = None) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, epilog=epilog,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(run=run, parser=sub)
        return sub

    command("list", _cmd_list, "list the games with their parameters")

    play = command("play", _cmd_play, "play against bots in the terminal", BOT_SPECS)
    _game_arguments(play)
    play.add_argument("--seat", type=int, default=0, help="your seat, 0 = first to move (default 0)")
    play.add_argument("--bot", default=None,
                      help="bot spec for the other seats, or one spec per other seat, comma-separated "
                           "(default random)")
    play.add_argument("--seed", type=_seed, default=0, help="seed of the game and the bots (default 0)")

    selfplay = command("selfplay", _cmd_selfplay, "play many games between bots and summarize them", BOT_SPECS)
    _game_arguments(selfplay)
    selfplay.add_argument("--games", type=_games, required=True, metavar="N",
                          help=f"number of games (at most {MAX_GAMES:,})")
    selfplay.add_argument("--bots", default="random",
                          help="one bot spec for every seat, or one per seat, comma-separated (default random)")
    selfplay.add_argument("--seed", type=_seed, default=0,
                          help="base seed (default 0). All-random bots without --out, --rotate-seats or --ray "
                               "are played by C++ random playouts, whose games differ from those recorded "
                               "with --out for the same seed (both are the same on every run)")
    selfplay.add_argument("--rotate-seats", action="store_true",
                          help="move every bot one seat on after each game (two bots swap seats), so each "
                               "plays every seat equally often; the summary is then per bot. A cyclic shift: "
                               "with 3 or 4 bots each keeps its neighbours (bot 1 always moves after bot 0)")
    selfplay.add_argument("--policies", action="store_true",
                          help="record each search's root visit counts (meta.policies of every record; needs "
                               "--out): training data, read with meeple.selfplay.training_examples(FILE)")
    selfplay.add_argument("--workers", type=_workers, metavar="K",
                          help="processes (default 1; threads for all-random bots without --out, "
                               "--rotate-seats or --ray; "
                               "with --ray, about 2K tasks queued, default K = the cluster's CPUs)")
    selfplay.add_argument("--out", metavar="FILE.jsonl",
                          help="write one JSON record per game, in game order ('-': stdout); an existing "
                               "FILE of the same command is resumed: only its missing games are played")
    selfplay.add_argument("--ray", metavar="ADDRESS",
                          help="play on a Ray cluster: 'local' starts one here, else the address of one "
                               '(needs pip install "meeple[ray]")')
    selfplay.add_argument("--timing", action="store_true",
                          help="record each game's wall-clock seconds in meta (the file then differs "
                               "between runs)")

    perft = command("perft", _cmd_perft, "count the action sequences of each depth (games over sooner "
                    "are not counted)")
    _game_arguments(perft)
    perft.add_argument("--depth", type=_positive, required=True, metavar="D",
                       help="count to this depth: 1..the game's max_game_length()")
    perft.add_argument("--seed", type=_seed, default=0, help="seed of the initial state (default 0)")
    perft.add_argument("--divide", action="store_true", help="also count per first action at depth D")

    bench = command("bench", _cmd_bench, "run the throughput benchmarks")
    bench.add_argument("games", nargs="*", metavar="GAME", help="games to time (default: all)")
    bench.add_argument("--quick", action="store_true", help="a few seconds instead of a minute")

    render = command("render", _cmd_render, "print a state: from a JSON document or after some moves")
    _game_arguments(render, optional=True)
    render.add_argument("--json", metavar="FILE", help="a state or record JSON document ('-': stdin)")
    render.add_argument("--seed", type=_seed, help="seed of the initial state (default 0)")
    render.add_argument("--moves", action="append", default=[],
                        help='moves to play, as `meeple play` reads them: strings, or action numbers in brackets '
                             '(bare where the game has no reading of its own; Abacuachego: a pit): "3cw 5ccw", '
                             '"[4] 5", "take 0 place red 4,0"; moves may also be separated by ";"; a second '
                             '--moves goes on from the first')
    render.add_argument("--legal", action="store_true", help="list the legal moves after the board")
    return parser


def _game_arguments(parser: argparse.ArgumentParser, optional: bool = False) -> None:
    parser.add_argument("game", metavar="GAME", nargs="?" if optional else None,
                        help=f"{', '.join(list_games())}, or name(key=value,...) ('meeple list' shows the "
                             "parameters)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a game parameter (repeatable)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _games(text: str) -> int:
    value = _positive(text)
    if value > MAX_GAMES:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_GAMES:,} games, got {text!r}")
    return value


def _workers(text: str) -> int:
    value = _positive(text)
    if value > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_THREADS} workers, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2**64-1, got {text!r}")
    return value


def _parameters(items: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"bad parameter {item!r}; expected KEY=VALUE")
        if key in params:
            raise UsageError(f"parameter {key!r} given twice")
        params[key] = value.strip()
    return params


def _load_game(text: str, items: list[str]) -> Any:
    try:
        return load(text, **_parameters(items))
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None


def _bot_specs(text: str, count: int) -> list[str]:
    try:
        return parse_bot_specs(text, count)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _make_bot(spec: str, game: Any, seed: int) -> Bot:
    try:
        return make_bot(spec, game, seed)
    except ValueError as e:
        raise UsageError(str(e)) from None


# --- shared helpers --------------------------------------------------------------------------

def player_name(game: Any, player: int) -> str:
    names = game_spec(game.name).player_names
    return f"player {player} ({names[player]})" if names else f"player {player}"


def game_label(game: Any) -> str:
    """The game as a GAME argument: 'abacuachego(parity=pit)', non-default parameters only."""
    defaults = {p.name: p.default for p in game_spec(game.name).params}
    changed = [f"{k}={_label_value(v)}" for k, v in game.parameters().items() if defaults.get(k) != v]
    return f"{game.name}({','.join(changed)})" if changed else game.name


def _label_value(value: Any) -> str:
    """A parameter value as `game_label` shows it: a table (e.g. imperial_harvest's characters,
    given as a JSON file) as <custom table>, not its whole contents."""
    if isinstance(value, (dict, list, tuple)):
        return "<custom table>"
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


class MoveError(ValueError):
    """Why `text` names no legal move, in words for the person who typed it: str() is the text
    quoted then `reason` ("'end' is not legal now: place the tokens in your hand first ...").
    `named`: the text names an action of the game, one the position does not allow."""

    def __init__(self, text: str, reason: str, named: bool = False):
        super().__init__(f"{text!r} {reason}")
        self.reason, self.named = reason, named


def read_move(state: Any, text: str) -> int:
    """The legal action `text` names: its string (spaces around commas and runs of spaces do not
    matter; else the game's own spellings, e.g. Harmonies' colour letters), or its number in
    brackets ("[12]"), or bare ("12") where the game reads no bare number its own way
    (Abacuachego: a pit, as its board numbers them). `meeple play` and `meeple render --moves`
    read moves alike. MoveError says why `text` names no legal move."""
    written = text.strip()
    if state.is_terminal():
        raise MoveError(written, "comes after the end of the game.")
    text = re.sub(r"\s*,\s*", ",", " ".join(text.split()))
    spec = game_spec(state.game.name)
    number = re.fullmatch(r"\[([0-9]{1,9})\]|([0-9]{1,9})", text)  # longer: no action's number
    if number and number[2] and spec.read_bare_number is not None:
        try:
            return spec.read_bare_number(state, int(number[2]))
        except ValueError as e:
            raise MoveError(written, f"is no move here: {e}.") from None
    if number:
        action = int(number[1] or number[2])
        if action in state.legal_actions():
            return action
        try:
            name = state.action_to_string(action)
        except ValueError:  # no action of this game (or no outcome of this chance node)
            raise MoveError(written, "is not a legal move.") from None
        raise MoveError(written, f"({name}) is not legal now{_why_illegal(state, action) or '.'}", named=True)
    named = _action_named(state, text, spec)
    if named is None:
        raise MoveError(written, f"is not a legal move.{close_moves_text(state, text)}")
    if named in state.legal_actions():
        return named
    why = _why_illegal(state, named)
    raise MoveError(written, f"is not legal now{why}" if why else f"is not legal now.{close_moves_text(state, text)}",
                    named=True)


def _action_named(state: Any, text: str, spec: Any) -> int | None:
    """The action whose string `text` is, as written or in the game's own spelling; None if none."""
    for spelling in (text, spec.spell_move(state, text) if spec.spell_move is not None else text):
        try:
            return int(state.string_to_action(spelling))
        except ValueError:
            pass
    return None


def _why_illegal(state: Any, action: int) -> str:
    """': <the game's reason>.' (GameSpec.why_illegal) for a person, or ''."""
    why_illegal = game_spec(state.game.name).why_illegal
    if why_illegal is None or state.is_chance_node():
        return ""
    why = why_illegal(state, action)
    return f": {why}." if why else ""


def parse_move(state: Any, text: str) -> int | None:
    """`read_move`, or None where it raises MoveError."""
    try:
        return read_move(state, text)
    except MoveError:
        return None


def close_moves_text(state: Any, text: str) -> str:
    """' Did you mean ...?' naming up to three legal moves spelled like `text`, or ''."""
    names = [state.action_to_string(int(a)) for a in state.legal_actions()]
    close = difflib.get_close_matches(" ".join(text.lower().split()), names, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(repr(name) for name in close)}?" if close else ""


def legal_moves_text(state: Any, width: int = 78) -> str:
    """'Legal moves:' then every legal action as 'string [number]', wrapped to `width`. A long list
    (over GROUP_MOVES_ABOVE) is grouped: three or more moves that differ in their last word only (a
    cell, a slot) share a line, 'place blue:  0,0 [5]  0,1 [6] ...'; the others come last."""
    moves = [(state.action_to_string(int(a)), int(a)) for a in state.legal_actions()]
    if len(moves) <= GROUP_MOVES_ABOVE:
        return _wrapped("Legal moves:", [f"{name} [{action}]" for name, action in moves], width)
    groups: dict[str, list[tuple[str, int]]] = {}
    for name, action in moves:
        groups.setdefault(name.rpartition(" ")[0], []).append((name, action))
    lines, others = ["Legal moves:"], []
    for head, members in groups.items():
        if head and len(members) > 2:
            lines.append(_wrapped(f"  {head}:", [f"{name.rpartition(' ')[2]} [{a}]" for name, a in members], width))
        else:
            others += [f"{name} [{action}]" for name, action in members]
    if others:
        lines.append(_wrapped("", others, width))
    return "\n".join(lines)


def _wrapped(first: str, items: list[str], width: int) -> str:
    """`first` then the items two spaces apart, wrapped to `width` (further lines indented)."""
    lines = [first]
    for item in items:
        if len(lines[-1]) + 2 + len(item) > width and lines[-1].strip():
            lines.append("   ")
        lines[-1] += "  " + item
    return "\n".join(lines)


def head_to_head(scores: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """Mean game score of one bot against another (1 win, 1/2 draw, 0 loss per game) and its 95%
    Wilson interval: sound at 0 and 1 (10 wins of 10 still leave 0.72..1), and a little wide when
    there are draws (they are counted as a win's variance)."""
    n = len(scores)
    mean = float(scores.mean())
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # The Wilson interval always holds the mean; rounding alone can leave 6 wins of 6 an upper
    # bound of 0.9999999999999999 (an Elo of +6261 under an estimate of +inf).
    return mean, min(mean, max(0.0, centre - half)), max(mean, min(1.0, centre + half))


def elo_difference(score: float) -> float:
    """The Elo rating difference that predicts `score` (+inf/-inf for 1 and 0)."""
    if score >= 1:
        return float("inf")
    if score <= 0:
        return float("-inf")
    return float(-400 * np.log10(1 / score - 1))


def winners(returns: np.ndarray) -> np.ndarray:
    """For each row of returns (games x players), the seat with the unique highest return, or -1."""
    top = returns == returns.max(axis=1, keepdims=True)
    return np.where(top.sum(axis=1) == 1, top.argmax(axis=1), -1)


# --- meeple list -----------------------------------------------------------------------------

def _cmd_list(args: argparse.Namespace) -> int:
    for name in list_games():
        spec = game_spec(name)
        print(f"{name}: {spec.description}")
        rows = [(p.name, repr(p.default), p.describe(), p.doc) for p in spec.params]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
            print("  " + "  ".join(cells) + "  " + row[3])
    return 0


# --- meeple play -----------------------------------------------------------------------------

def _cmd_play(args: argparse.Namespace) -> int:
    game = _load_game(args.game, args.param)
    players = game.num_players()
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be in 0..{players - 1} for {game.name}, got {args.seat}")
    others = [p for p in range(players) if p != args.seat]
    if not others and args.bot is not None:
        raise UsageError(f"{game_label(game)} has one player: there is no seat for --bot")
    specs = _bot_specs(args.bot or "random", len(others))
    bots = {p: _make_bot(spec, game, derive_seed(args.seed, p)) for p, spec in zip(others, specs, strict=True)}
    return TerminalGame(game, args.seat, bots, dict(zip(others, specs, strict=True)), args.seed,
                        undo_at_end=sys.stdin.isatty()).run()


class _Abandon(Exception):
    """The person left the game (``quit`` or end of input)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


HELP = """Enter a move by its name or by its number in [brackets]; Enter alone plays the
only legal move when there is one.
Commands: help (or ?), board (show the board), moves (list the legal moves),
undo (take back your last move), quit (or q), hint [N] (the moves MCTS prefers
here after N simulations, default 1000)."""
HINT_SIMULATIONS, MAX_HINT_SIMULATIONS = 1000, 1_000_000
MAX_MOVES_LISTED_AGAIN = 24  # after a mistyped move; longer lists are a command away
GROUP_MOVES_ABOVE = 24  # longer lists of legal moves are grouped by all but their last word


class TerminalGame:
    """One person at `seat` against `bots` ({seat: bot}, named by `specs` {seat: spec}) over
    stdin/stdout. `undo_at_end`: at the end of the game, offer to take back the person's last move
    (`meeple play` does at a terminal; piped moves end with the game)."""

    def __init__(self, game: Any, seat: int, bots: dict[int, Bot], specs: dict[int, str], seed: int,
                 undo_at_end: bool = False):
        self.game, self.seat, self.bots, self.specs, self.seed = game, seat, bots, specs, seed
        self.undo_at_end = undo_at_end
        self.actions: list[int] = []
        self.turns: list[int] = []  # len(self.actions) before each of the person's moves, for undo
        self.state = self._replay([])
        self._cards_text = game_spec(game.name).cards_text
        self._cards_help = game_spec(game.name).cards_help
        self._moves_help = game_spec(game.name).moves_help
        self._board_text = game_spec(game.name).board_text
        self._narrate = game_spec(game.name).narrate

    def run(self) -> int:
        print(f"You are {player_name(self.game, self.seat)}. Type 'help' for help.")
        while True:
            try:
                while not self.state.is_terminal():
                    self._apply(self._next_action())
            except _Abandon as e:
                print(e)
                return e.code
            print(self._board())
            score_text = game_spec(self.game.name).score_text
            if score_text is not None:
                print(score_text(self.state))
            print(self._result())
            if not (self.undo_at_end and self.turns and self._answer_at_end() == "undo"):
                return 0
            self._undo(show=False)  # the person's turn comes next, and shows the board

    def _answer_at_end(self) -> str:
        try:
            return input("Game over. 'undo' takes back your last move; Enter leaves: ").strip().lower()
        except EOFError:
            print()  # the shell's prompt goes on a line of its own
            return ""

    def _next_action(self) -> int:
        player = self.state.current_player()
        if self.state.is_chance_node():
            # Drawn from the seed and the number of actions so far, not from one running generator:
            # after an undo the same position draws the same outcome (no fishing for better draws).
            action = sample_chance(self.state, random.Random(f"{self.seed}:{len(self.actions)}"))
            print(f"Chance: {self.state.action_to_string(action)}")
        elif player == self.seat:
            action = self._ask()  # may undo, replacing self.state
            self.turns.append(len(self.actions))
            print(f"You play {self.state.action_to_string(action)}")
        else:
            try:
                action = choose_action(self.bots[player], self.state)
            except BOT_FAILURES as e:
                raise self._failure(player, self.state.move_number(), e) from e
            name = f"{player_name(self.game, player)} [{self.specs[player]}]"
            print(f"{name} plays {self.state.action_to_string(action)}")
        return action

    def _ask(self) -> int:
        self._show()
        while True:
            try:
                text = input("Your move: ").strip()
            except EOFError:
                raise _Abandon("\nEnd of input: game abandoned.", 1) from None
            command = text.lower()
            if command in ("quit", "exit", "q"):
                raise _Abandon("Game abandoned.", 0)
            if command in ("help", "?"):
                print(HELP)
                if self._moves_help:
                    print(self._moves_help)
                if self._cards_text is not None:
                    print(f"Also: cards ({self._cards_help}).")
                print(legal_moves_text(self.state))
            elif command == "board":
                self._show()
            elif command == "moves":
                print(legal_moves_text(self.state))
            elif command == "cards" and self._cards_text is not None:
                print(_fitted(self._cards_text(self.state)))
            elif command == "undo":
                self._undo()
            elif command.split()[:1] == ["hint"]:
                print(self._hint(text[4:].strip()))
            elif not text and (lone := self._lone_move()) is not None:
                return lone
            elif text:
                try:
                    return read_move(self.state, text)
                except MoveError as e:
                    print(e)
                if len(self.state.legal_actions()) <= MAX_MOVES_LISTED_AGAIN:
                    print(legal_moves_text(self.state))
                else:
                    print("('moves' lists the legal moves, 'board' shows the board with them, 'help' the commands.)")

    def _hint(self, argument: str) -> str:
        """The three moves MCTS visits most from here, with their mean returns for you in its
        random playouts (a search seeded by the game's seed and the number of moves so far, so the
        same position gets the same hint)."""
        if argument and not (re.fullmatch(r"[0-9]+", argument) and 1 <= int(argument) <= MAX_HINT_SIMULATIONS):
            return f"hint takes a number of simulations from 1 to {MAX_HINT_SIMULATIONS:,}, got {argument!r}."
        simulations = int(argument) if argument else HINT_SIMULATIONS
        bot = MCTS(self.game, simulations=simulations, seed=derive_seed(self.seed, len(self.actions)))
        bot.step(self.state.clone())
        total = sum(bot.last_visits.values())
        visited = [(a, n) for a, n in bot.last_visits.items() if n > 0]  # few simulations leave moves unvisited
        ranked = sorted(visited, key=lambda item: (-item[1], item[0]))[:3]
        moves = [f"{self.state.action_to_string(a)} [{a}] ({100 * n / total:.0f}% of visits, "
                 f"mean return {bot.last_values[a]:+.2f})" for a, n in ranked]
        return f"MCTS ({simulations:,} simulation{'s' if simulations > 1 else ''}) prefers {moves[0]}" + \
            (f"; then {', '.join(moves[1:])}." if len(moves) > 1 else ".")

    def _board(self) -> str:
        return str(self.state) if self._board_text is None else self._board_text(self.state, self.seat)

    def _show(self) -> None:
        print()
        print(self._board())
        print(legal_moves_text(self.state))
        if (lone := self._lone_move()) is not None:
            print(f"(The only legal move: Enter plays {self.state.action_to_string(lone)}.)")

    def _lone_move(self) -> int | None:
        """The person's only legal move, which an empty answer plays; None if there are more."""
        legal = self.state.legal_actions()
        return int(legal[0]) if len(legal) == 1 else None

    def _undo(self, show: bool = True) -> None:
        if not self.turns:
            print("Nothing to undo.")
            return
        self.actions = self.actions[:self.turns.pop()]
        self.state = self._replay(self.actions)
        print("Took back your last move.")
        if show:
            self._show()

    def _replay(self, actions: list[int]) -> Any:
        """The state after `actions` from the start, the bots restarted and told every action,
        their own included (they did not choose them since the restart)."""
        for seat, bot in self.bots.items():
            try:
                restart_bots([bot])
            except BOT_FAILURES as e:
                raise self._failure(seat, 0, e) from e
        state = self.game.new_initial_state(seed=self.seed)
        for action in actions:
            self._inform(state, action, mover_too=True)
            state.apply_action(action)
        return state

    def _inform(self, state: Any, action: int, mover_too: bool = False) -> None:
        for seat, bot in self.bots.items():
            try:
                inform_bots({seat: bot}, state, action, mover_too=mover_too)
            except BOT_FAILURES as e:
                raise self._failure(seat, state.move_number(), e) from e

    def _failure(self, seat: int, move: int, error: BaseException) -> BotError:
        failure = bot_failure(self.bots[seat], seat, move, error)
        return BotError(f"bot {self.specs[seat]!r} (seat {seat}) failed at move {move}: {failure.detail}",
                        seat, move, failure.detail)

    def _apply(self, action: int) -> None:
        self._inform(self.state, action)
        before = self.state.clone()
        self.state.apply_action(action)
        self.actions.append(action)
        if self._narrate is not None and (story := self._narrate(before, action, self.state)):
            print(f"  {story}")

    def _result(self) -> str:
        return result_text(np.asarray(self.state.returns(), dtype=float), self.seat)


def _fitted(text: str, width: int = 78) -> str:
    """`text` with each longer line broken at spaces to `width` columns, its continuation
    indented under the line's own indentation (plus 4)."""
    out = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
        out.append(textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)
                   if len(line) > width else line)
    return "\n".join(out)


def result_text(returns: np.ndarray, seat: int) -> str:
    """The outcome for the person at `seat`, shown after the final board (which gives the score)."""
    mine, players = returns[seat], len(returns)
    if players == 1:
        return f"Your return: {mine:g}."
    ahead, level = int((returns > mine).sum()), int((returns == mine).sum())
    if level == players:
        return "Draw."
    if ahead == 0:
        return "You win." if level == 1 else f"You share the win ({level} players)."
    if players == 2:
        return "You lose."
    return f"You lose: place {ahead + 1} of {players}{' (shared)' if level > 1 else ''}."


# --- meeple selfplay -------------------------------------------------------------------------

def _cmd_selfplay(args: argparse.Namespace) -> int:
    for flag, what in (("policies", "the searches"), ("timing", "each game's time")):
        if getattr(args, flag) and args.out is None:
            raise UsageError(f"--{flag} records {what} in the output: give --out FILE.jsonl")
    game = _load_game(args.game, args.param)
    specs = _bot_specs(args.bots, game.num_players())
    for spec in dict.fromkeys(specs):
        _make_bot(spec, game, 0)  # a bad spec fails now, not in a worker
    start = time.perf_counter()
    if args.out is None and args.ray is None and not args.rotate_seats and all(spec == "random" for spec in specs):
        returns, lengths = _random_selfplay(game, args.games, args.seed, args.workers or 1)
        summary = selfplay_summary(game, specs, returns, lengths, time.perf_counter() - start)
    else:
        summary = _bot_selfplay(game, specs, args)
    print(summary, file=sys.stderr if args.out == "-" else sys.stdout)
    return 0


def _random_selfplay(game: Any, n: int, seed: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniformly random games in C++, in chunks of PLAYOUT_CHUNK seeded derive_seed(seed, chunk)."""
    returns, lengths = [], []
    with Progress(n) as progress:
        for chunk, first in enumerate(range(0, n, PLAYOUT_CHUNK)):
            count = min(PLAYOUT_CHUNK, n - first)
            chunk_returns, chunk_lengths = game.random_playouts(count, derive_seed(seed, chunk), threads)
            returns.append(chunk_returns)
            lengths.append(chunk_lengths)
            progress.advance(count)
    return np.concatenate(returns), np.concatenate(lengths)


def _bot_selfplay(game: Any, specs: list[str], args: argparse.Namespace) -> str:
    """Games 0..N-1 between bots through `meeple.selfplay` (processes or Ray; --out resumed); the
    summary of every game in the output."""
    from . import selfplay

    if args.ray is not None:  # before --out is created: a run that cannot start leaves no file
        try:
            selfplay._import_ray()
        except selfplay.RayUnavailable as e:
            raise UsageError(str(e)) from None
    out: Any = args.out
    if out == "-":
        out = sys.stdout
    elif out is not None:
        try:
            mode = os.stat(out).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as e:
            raise UsageError(f"cannot write {out}: {e.strerror}") from None
        if mode is not None and not stat.S_ISREG(mode):  # /dev/null, a pipe, a directory: not resumable
            raise UsageError(f"--out must be a regular file (resumable), {out} is not; use --out - for "
                             f"standard output")
        try:
            open(out, "ab").close()  # exists and is writable (an existing file is left as it is)
        except OSError as e:
            raise UsageError(f"cannot write {out}: {e.strerror}") from None
    match = Match(game, tuple(specs), args.seed, rotate_seats=args.rotate_seats, policies=args.policies)
    start = time.perf_counter()

    def progress(total: int, done: int) -> Any:
        if out is sys.stdout and sys.stdout.isatty():  # records on the screen: a bar would garble them
            return selfplay._NoProgress()
        return Progress(total, initial=done)

    try:
        with _sigterm_stops():
            result = selfplay.run(match, args.games, out, workers=args.workers or 1, ray=args.ray,
                                  timing=args.timing, progress=progress)
    except (selfplay.ResumeError, selfplay.RayUnavailable) as e:
        raise UsageError(str(e)) from None
    except selfplay.OutputError as e:
        raise CommandError(str(e)) from None
    except selfplay.WorkerDied as e:
        kept = ("; the games written so far are kept: run the same command again to resume"
                if isinstance(out, str) else "")
        raise CommandError(f"{e}{kept}") from None
    wall = time.perf_counter() - start
    notes = []
    if result.resumed:
        notes.append(f"{result.resumed} games were already in {args.out}, {result.played} played now")
    if result.beyond:
        notes.append(f"{args.out} holds {result.beyond} more games, after game {args.games - 1}; "
                     f"they are not in this summary (--games {args.games + result.beyond} covers them)")
    if result.dropped:
        notes.append(f"dropped {result.dropped} bytes after the last whole game in {args.out} (a line cut short, "
                     f"or blank lines)")
    return selfplay_summary(game, specs, result.returns, result.lengths, wall, played=result.played,
                            played_plies=result.played_plies, notes=notes,
                            seats=result.seats if args.rotate_seats else None)


class _sigterm_stops:
    """While in it, SIGTERM raises `Terminated` (in the main thread only: elsewhere signal handlers
    cannot be set), so that the workers are stopped and the output closed as on Ctrl-C."""

    def __enter__(self) -> None:
        self.installed = threading.current_thread() is threading.main_thread()
        if self.installed:
            self.previous = signal.signal(signal.SIGTERM, _raise_terminated)

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous if self.previous is not None else signal.SIG_DFL)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def selfplay_summary(game: Any, specs: list[str], returns: np.ndarray, lengths: np.ndarray,
                     wall: float, played: int | None = None, played_plies: int | None = None,
                     notes: list[str] | None = None, seats: np.ndarray | None = None) -> str:
    """Wins per seat, draws, game lengths and speed of a batch of finished games.

    `played`/`played_plies`: how many of them (and their plies) this run played in `wall` seconds,
    when the others were read back from a file (default: all of them); the speed counts only those.
    `seats` (games x bots: each game's seat of each bot, as `Match.seat_of_bot` gives it) when the
    bots changed seats: then the wins and returns of each bot come first, with its wins per seat.
    """
    n = len(lengths)
    players = len(specs)
    rotated = ", seats rotated every game" if seats is not None and players > 1 else ""
    timed = f" in {wall:.2f} s" if played is None or played else ""  # nothing played: no time to give
    lines = [f"{game_label(game)}: {n} games{timed}{rotated}"]
    lines += [f"  ({note})" for note in notes or []]
    winner_seat = winners(returns)
    seat_wins = np.bincount(winner_seat + 1, minlength=players + 1)  # index 0: no winner
    if seats is not None and players > 1:
        rows = np.arange(n)
        for bot, spec in enumerate(specs):
            bot_seat = seats[:, bot]
            won = winner_seat == bot_seat
            per_seat = ", ".join(f"seat {p} {int(won[bot_seat == p].sum())}/{int((bot_seat == p).sum())}"
                                 for p in range(players))
            lines.append(f"  bot {bot} [{spec}]: {int(won.sum())} wins ({won.sum() / n:.1%}), mean return "
                         f"{returns[rows, bot_seat].mean():+.3f}; wins by seat: {per_seat}")
        if players == 2:
            first, second = returns[rows, seats[:, 0]], returns[rows, seats[:, 1]]
            score, low, high = head_to_head(np.where(first > second, 1.0, np.where(first == second, 0.5, 0.0)))
            lines.append(f"  bot 0 against bot 1: score {score:.3f} (win 1, draw 1/2), 95% interval "
                         f"{low:.3f}..{high:.3f}; Elo difference {elo_difference(score):+.0f} "
                         f"({elo_difference(low):+.0f}..{elo_difference(high):+.0f})")
    for seat, spec in enumerate(specs):
        wins = "" if players == 1 else f"{seat_wins[seat + 1]} wins ({seat_wins[seat + 1] / n:.1%}), "
        label = "" if rotated else f" [{spec}]"
        lines.append(f"  seat {seat}{label}: {wins}mean return {returns[:, seat].mean():+.3f}")
    if players > 1:  # no single winner: for 3 or 4 players, a first place shared by some
        label = "draws" if players == 2 else "shared first places (draws)"
        lines.append(f"  {label}: {seat_wins[0]} ({seat_wins[0] / n:.1%})")
    plies = int(lengths.sum()) if played_plies is None else played_plies
    games = n if played is None else played
    lines.append(f"  game length: mean {lengths.mean():.1f}, min {lengths.min()}, max {lengths.max()}")
    rate = 1 / wall if wall > 0 else float("inf")
    if games:
        lines.append(f"  speed: {plies * rate:,.0f} plies/s, {games * rate:,.0f} games/s")
    else:
        lines.append("  speed: no games played (all were already in the file)")
    return "\n".join(lines)


class Progress:
    """A progress line on stderr: count/total, rate and ETA.

    On a terminal it is redrawn in place ten times a second; otherwise a plain line is printed
    every 30 seconds, so logs of long runs show progress without filling up.
    """

    def __init__(self, total: int, unit: str = "games", stream: TextIO | None = None, initial: int = 0):
        self.total, self.unit, self.count, self.initial = total, unit, initial, initial
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = 0.1 if self.tty else 30.0
        self.start = self.drawn = time.perf_counter()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.tty:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, count: int = 1) -> None:
        self.count += count
        if time.perf_counter() - self.drawn >= self.interval:
            self._draw()

    def _draw(self) -> None:
        self.drawn = time.perf_counter()
        elapsed = self.drawn - self.start
        rate = (self.count - self.initial) / elapsed if elapsed > 0 else 0.0
        eta = _clock((self.total - self.count) / rate) if rate > 0 else "?"
        filled = self.count * 20 // max(self.total, 1)
        line = (f"[{'#' * filled}{'.' * (20 - filled)}] {self.count}/{self.total} {self.unit}  "
                f"{rate:,.1f}/s  ETA {eta}")
        self.stream.write(f"\r{line}\x1b[K" if self.tty else line + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


# --- meeple perft ----------------------------------------------------------------------------

def _cmd_perft(args: argparse.Namespace) -> int:
    game = _load_game(args.game, args.param)
    limit = game.max_game_length()  # game.perft takes depths 0..max_game_length()
    if args.depth > limit:
        raise UsageError(f"--depth must be in 1..{limit} for {game_label(game)} (its longest game), "
                         f"got {args.depth}")
    state = game.new_initial_state(seed=args.seed)
    print(f"{'depth':>5}  {'nodes':>15}  {'time':>9}  {'nodes/s':>13}")
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        nodes = game.perft(state, depth)
        seconds = time.perf_counter() - start
        rate = f"{nodes / seconds:,.0f}" if seconds > 0 else "-"
        print(f"{depth:>5}  {nodes:>15,}  {seconds:>7.3f} s  {rate:>13}")
    if args.divide:
        _divide(game, state, args.depth)
    return 0


def _divide(game: Any, state: Any, depth: int) -> None:
    print(f"\ndivide, depth {depth}:")
    counts = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        counts.append((int(action), game.perft(child, depth - 1)))
    total = sum(nodes for _, nodes in counts)
    width = max(len(f"{state.action_to_string(a)} [{a}]") for a, _ in counts)  # the columns aligned
    digits = len(f"{total:,}")
    for action, nodes in counts:
        print(f"  {f'{state.action_to_string(int(action))} [{action}]':>{width}}  {nodes:>{digits},}")
    print(f"  {'total':>{width}}  {total:>{digits},}")


# --- meeple bench ----------------------------------------------------------------------------

def _cmd_bench(args: argparse.Namespace) -> int:
    unknown = [name for name in args.games if name not in list_games()]
    if unknown:
        try:
            base = parse_game_string(unknown[0])[0] if "(" in unknown[0] else None
        except ValueError:
            base = None
        if base in list_games():  # a game string: the benchmarks have their own parameters
            raise UsageError(f"bench times each game with the parameters its benchmarks use (those of the "
                             f"report): give the name alone, {base!r}, not {unknown[0]!r}")
        raise UsageError(f"unknown game {unknown[0]!r}; available: {', '.join(list_games())}")
    try:
        from . import bench
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.bench":
            raise
        print("meeple bench: error: this installation of meeple has no benchmark module (meeple.bench)",
              file=sys.stderr)
        return 1
    bench.run(args.games or None, quick=args.quick)
    return 0


# --- meeple render ---------------------------------------------------------------------------

def _cmd_render(args: argparse.Namespace) -> int:
    if args.json is not None:
        if args.seed is not None:
            raise UsageError("--seed cannot be used with --json: the document holds the state")
        state = _read_state(args.json)
        _check_same_game(state, args.game, args.param)
    elif args.game is None:
        raise UsageError("give a GAME or --json FILE")
    else:
        state = _load_game(args.game, args.param).new_initial_state(seed=args.seed or 0)
    for moves in args.moves:
        play_moves(state, moves)
    print(state)
    if args.legal and not state.is_terminal():
        print(legal_moves_text(state))
    return 0


_MAX_MOVE_WORDS = 6  # more than any game's legal move strings have (4: "draw card 1 (crocodile)")


def play_moves(state: Any, text: str) -> None:
    """Applies the moves written in `text` to `state`: strings or numbers, separated by ";" if
    there is one, else by spaces. Move strings may hold spaces themselves ("rest monk", "take 0"),
    so each move is the longest run of words that names a legal move; a word that names none may
    hold moves separated by commas ("5ccw,7"; commas inside a move, as in "spear 4,5", are kept).
    UsageError names the first move that is not legal, and its number."""
    if ";" in text:
        for number, move in enumerate((m.strip() for m in text.split(";") if m.strip()), 1):
            action = parse_move(state, move)
            if action is None:
                raise _illegal_move(state, number, [move])
            state.apply_action(action)
        return
    words, number = text.split(), 0
    while words:
        number += 1
        for length in range(min(len(words), _MAX_MOVE_WORDS), 0, -1):
            action = parse_move(state, " ".join(words[:length]))
            if action is not None:
                break
        else:
            if "," in words[0] and len(parts := [w for w in words[0].split(",") if w]) > 1:
                words[:1] = parts  # the "3cw,5ccw" form
                number -= 1
                continue
            raise _illegal_move(state, number, words)
        state.apply_action(action)
        del words[:length]


def _illegal_move(state: Any, number: int, words: list[str]) -> UsageError:
    """Move `number`, the first of `words` that play_moves could not read: named as the longest
    run of words that names an action of the game (with the game's reason it is not legal now),
    else as all the words."""
    errors = []
    for length in [len(words), *range(min(len(words), _MAX_MOVE_WORDS), 0, -1)]:
        try:
            read_move(state, " ".join(words[:length]))
        except MoveError as e:
            errors.append((" ".join(words[:length]), e))
    move, error = next(((m, e) for m, e in errors if e.named), errors[0])
    listed = "" if state.is_terminal() else f" {legal_moves_text(state)}"
    return UsageError(f"move {number} ({move!r}) {error.reason}{listed}")


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def _read_state(path: str) -> Any:
    """The state of a state document, or the final state of a record document, in `path`."""
    source = "standard input" if path == "-" else path  # as messages name it
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {source}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{source} is not UTF-8 text: {e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        hint = " (a .jsonl file: pass one line, e.g. `sed -n 3p FILE | meeple render --json -`)" \
            if e.msg == "Extra data" else ""
        raise UsageError(f"{source} is not one JSON document: {e}{hint}") from None
    except RecursionError:
        raise UsageError(f"{source}: the JSON document is nested too deeply") from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise UsageError(f"{source}: {e}") from None
    try:
        if isinstance(doc, dict) and doc.get("schema") == RECORD_SCHEMA:
            return Record.from_document(doc).replay()
        if not isinstance(doc, dict) or doc.get("schema") != STATE_SCHEMA:  # neither: name both
            found = (f"schema {doc['schema']!r}" if "schema" in doc else "an object with no schema") \
                if isinstance(doc, dict) else f"a JSON {_JSON_KINDS.get(type(doc), 'value')}"
            raise UsageError(f"{source}: expected a state document (schema {STATE_SCHEMA!r}, from "
                             f"state.to_json()) or a record (schema {RECORD_SCHEMA!r}, a line of "
                             f"`meeple selfplay`), got {found}")
        return state_from_document(doc)
    except (ValueError, TypeError) as e:
        raise UsageError(f"{source}: {e}") from None


def _check_same_game(state: Any, game_text: str | None, items: list[str]) -> None:
    """GAME and -p, when given with --json, must agree with the document."""
    if game_text is None:
        if items:
            raise UsageError("-p needs a GAME")
        return
    try:
        name, _ = parse_game_string(game_text)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if name != state.game.name:
        raise UsageError(f"the document is a state of {state.game.name}, not {name}")
    if "(" in game_text or items:
        expected = _load_game(game_text, items).parameters()
        if expected != state.game.parameters():
            raise UsageError(f"the document's parameters differ from {game_text!r} {' '.join(items)}")
