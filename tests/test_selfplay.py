"""Self-play at scale (`meeple.selfplay`, `meeple selfplay ... --out`): parallel processes give the
same file as one process, byte for byte; an interrupted run resumes to the same file; a file of
another command is refused; MCTS plays; the Ray path gives the same file (if Ray is installed)."""
from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import meeple
from meeple import cli, selfplay
from meeple.bots import Match, derive_seed
from meeple.serialization import Record

MCTS_ARGS = ["selfplay", "abacuachego", "--bots", "mcts:40,random", "--seed", "3"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def games_line(text: str) -> int:
    first = text.splitlines()[0]
    return int(re.match(r".*?: (\d+) games\b", first).group(1))


@pytest.fixture(scope="module")
def reference_file(tmp_path_factory) -> Path:
    """12 games of MCTS (40 simulations) against random, played by one process."""
    path = tmp_path_factory.mktemp("selfplay") / "one.jsonl"
    assert cli.main([*MCTS_ARGS, "--games", "12", "--out", str(path)]) == 0
    return path


# --- parallel == serial -------------------------------------------------------------------------

def test_workers_write_the_same_file_byte_for_byte(capsys, tmp_path, reference_file):
    path = tmp_path / "two.jsonl"
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "12", "--workers", "2", "--out", path)
    assert code == 0 and games_line(out) == 12
    assert path.read_bytes() == reference_file.read_bytes()


@pytest.mark.parametrize("name, params, bots", [
    ("harmonies", {"chance": "explicit"}, ("random", "random")),
    ("imperial_harvest", {}, ("random", "mcts:10")),
    ("abacuachego", {"parity": "pit"}, ("mcts:10", "mcts:20")),
])
def test_workers_and_chunks_do_not_change_the_records(name, params, bots):
    match = Match(meeple.load(name, **params), bots, seed=9)
    serial = [g.line for g in selfplay.play(match, range(7))]
    parallel = [g.line for g in selfplay.play(match, range(7), workers=2, chunk=2)]
    assert parallel == serial
    assert [json.loads(line)["meta"]["index"] for line in serial] == list(range(7))


def _child_env() -> dict[str, str]:
    """The environment of a child Python that imports this meeple (source tree or installed)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(Path(meeple.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")) if p)}

def test_the_command_line_is_spawn_safe(tmp_path, reference_file):
    """`python -m meeple selfplay --workers 2`: worker processes are spawned, not forked."""
    path = tmp_path / "cli.jsonl"
    env = _child_env()
    done = subprocess.run([sys.executable, "-m", "meeple", *MCTS_ARGS, "--games", "12", "--workers", "2",
                           "--out", str(path)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == reference_file.read_bytes()


def test_records_replay_and_carry_their_meta(reference_file):
    lines = reference_file.read_text().splitlines()
    assert len(lines) == 12
    for index, line in enumerate(lines):
        record = Record.from_json(line)
        assert record.meta == {"bots": ["mcts:40", "random"], "index": index, "seed": 3,
                               "plies": len(record.actions)}
        assert record.seed == derive_seed(3, index)
        final = record.replay()
        assert final.is_terminal() and record.returns == [float(r) for r in final.returns()]


def test_mcts_beats_random(capsys, reference_file):
    returns = [Record.from_json(line).returns for line in reference_file.read_text().splitlines()]
    assert sum(r[0] > r[1] for r in returns) >= 10  # 40 simulations already win almost always
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "12", "--out", reference_file)  # nothing to play
    assert code == 0
    assert "seat 0 [mcts:40]: " in out and "seat 1 [random]: " in out
    wins = int(out.split("seat 0 [mcts:40]: ")[1].split(" wins")[0])
    assert wins == sum(r[0] > r[1] for r in returns)


def test_timing_adds_seconds(capsys, tmp_path):
    path = tmp_path / "timed.jsonl"
    assert run(capsys, "selfplay", "abacuachego", "--games", "3", "--timing", "--out", path)[0] == 0
    for line in path.read_text().splitlines():
        meta = json.loads(line)["meta"]
        assert isinstance(meta["seconds"], float) and meta["seconds"] >= 0
    # the games are the same as without --timing
    untimed = tmp_path / "untimed.jsonl"
    assert run(capsys, "selfplay", "abacuachego", "--games", "3", "--out", untimed)[0] == 0
    strip = [{**json.loads(line), "meta": {k: v for k, v in json.loads(line)["meta"].items() if k != "seconds"}}
             for line in path.read_text().splitlines()]
    assert strip == [json.loads(line) for line in untimed.read_text().splitlines()]


# --- seat rotation -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, params, bots", [
    ("abacuachego", {}, ("mcts:20", "random")),
    ("harmonies", {"players": 3, "chance": "explicit"}, ("mcts:10", "random", "meeple.bots:Random")),
])
def test_rotated_seats_move_every_bot_one_seat_on(name, params, bots):
    game = meeple.load(name, **params)
    rotated, fixed = Match(game, bots, seed=5, rotate_seats=True), Match(game, bots, seed=5)
    players = len(bots)
    for index in range(2 * players):
        record = Record.from_json(selfplay.play_one(rotated, index).line)
        specs = record.meta["bots"]
        assert [specs[(b + index) % players] for b in range(players)] == list(bots)
        assert record.meta["rotate_seats"] is True
        # The game is the one the fixed seating plays with these specs in these seats.
        same = Match(game, tuple(specs), seed=5).play(index)
        assert record.actions == same.actions and record.returns == same.returns
        assert record.replay().returns().tolist() == record.returns
    assert "rotate_seats" not in fixed.play(1).meta and fixed.play(1).meta["bots"] == list(bots)


def test_rotated_summary_counts_each_bot_in_every_seat(capsys, tmp_path):
    path = tmp_path / "rotated.jsonl"
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "10", "--rotate-seats", "--out", path)
    assert code == 0 and "seats rotated every game" in out.splitlines()[0]
    records = [Record.from_json(line) for line in path.read_text().splitlines()]
    mcts_seats = [r.meta["bots"].index("mcts:40") for r in records]
    assert mcts_seats == [0, 1] * 5
    mcts_wins = [r.returns[seat] > r.returns[1 - seat] for r, seat in zip(records, mcts_seats)]
    by_seat = [sum(w for w, seat in zip(mcts_wins, mcts_seats) if seat == p) for p in (0, 1)]
    assert (f"bot 0 [mcts:40]: {sum(mcts_wins)} wins ({sum(mcts_wins) / 10:.1%}), mean return "
            f"{sum(r.returns[s] for r, s in zip(records, mcts_seats)) / 10:+.3f}; "
            f"wins by seat: seat 0 {by_seat[0]}/5, seat 1 {by_seat[1]}/5") in out
    first_seat_wins = sum(r.returns[0] > r.returns[1] for r in records)
    assert f"  seat 0: {first_seat_wins} wins ({first_seat_wins / 10:.1%})" in out
    draws = sum(r.returns[0] == r.returns[1] for r in records)
    score = (sum(mcts_wins) + draws / 2) / 10
    assert f"bot 0 against bot 1: score {score:.3f} (win 1, draw 1/2), 95% interval " in out
    # Resuming keeps the rotation, and a file of the other seating is refused.
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "12", "--rotate-seats", "--out", path)
    assert code == 0 and "10 games were already in" in out
    assert [Record.from_json(line).meta["bots"][0] for line in path.read_text().splitlines()[10:]] == \
        ["mcts:40", "random"]
    before = path.read_bytes()
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "14", "--out", path)
    assert code == 2 and "seat rotation on (this command: off, --rotate-seats) at line 1" in err
    assert path.read_bytes() == before


def test_head_to_head_interval_and_elo():
    # Wilson's interval: with every game won, its lower end is n / (n + z^2).
    assert cli.head_to_head(np.ones(10)) == pytest.approx((1.0, 10 / (10 + 1.96 ** 2), 1.0))
    assert cli.head_to_head(np.zeros(10)) == pytest.approx((0.0, 0.0, 1 - 10 / (10 + 1.96 ** 2)))
    score, low, high = cli.head_to_head(np.array([1.0] * 60 + [0.5] * 20 + [0.0] * 20))
    assert score == 0.7 and (low, high) == pytest.approx((0.6041, 0.7811), abs=1e-4)  # worked by hand
    narrow = cli.head_to_head(np.array([1.0] * 600 + [0.5] * 200 + [0.0] * 200))
    assert narrow[2] - narrow[1] < (high - low) / 3  # ten times the games: about a third as wide
    assert cli.elo_difference(0.75) == pytest.approx(400 * np.log10(3))
    assert cli.elo_difference(0.5) == 0 and cli.elo_difference(0.25) == pytest.approx(-400 * np.log10(3))
    assert cli.elo_difference(1.0) == float("inf") and cli.elo_difference(0.0) == float("-inf")
    # Rounding must not leave the interval short of its own estimate (6 of 6 gave 0.9999999999999999).
    for n in range(1, 200):
        assert cli.head_to_head(np.ones(n))[2] == 1.0 and cli.head_to_head(np.zeros(n))[1] == 0.0
        score, low, high = cli.head_to_head(np.random.default_rng(n).choice([0.0, 0.5, 1.0], n))
        assert low <= score <= high


def test_rotated_seats_with_workers_give_the_same_file(capsys, tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    base = ["selfplay", "harmonies", "-p", "players=3", "--bots", "mcts:5,random,random", "--games", "7",
            "--rotate-seats"]
    assert run(capsys, *base, "--out", one)[0] == 0
    assert run(capsys, *base, "--workers", "2", "--out", two)[0] == 0
    assert one.read_bytes() == two.read_bytes()


# --- resuming -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cut", ["mid_line", "line_boundary", "first_line", "empty"])
def test_resume_after_an_interrupted_write(capsys, tmp_path, reference_file, cut):
    full = reference_file.read_bytes()
    newlines = [i for i, b in enumerate(full) if b == ord("\n")]
    size = {"mid_line": (newlines[4] + newlines[5]) // 2, "line_boundary": newlines[6] + 1,
            "first_line": newlines[0] // 3, "empty": 0}[cut]
    path = tmp_path / "games.jsonl"
    path.write_bytes(full[:size])
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "12", "--workers", "2", "--out", path)
    assert code == 0
    assert path.read_bytes() == full
    assert games_line(out) == 12  # the summary covers every game in the file
    kept = full[:size].count(b"\n")
    if kept:
        assert f"({kept} games were already in {path}, {12 - kept} played now)" in out
    assert ("bytes after the last whole game" in out) == (cut in ("mid_line", "first_line"))


@pytest.mark.parametrize("content, message", [
    (b"\n\n", "holds blank lines and no record"), (b" \t\n", "holds blank lines and no record"),
    (b"\x00" * 10, None),  # a crash's NULs before any game: nothing to keep, started afresh
])
def test_resume_without_any_game(capsys, tmp_path, reference_file, content, message):
    path = tmp_path / "games.jsonl"
    path.write_bytes(content)
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    if message:
        assert code == 2 and message in err and path.read_bytes() == content
    else:
        assert code == 0 and path.read_bytes() == reference_file.read_bytes()


def test_resume_refuses_lines_ended_by_a_bare_carriage_return(capsys, tmp_path, reference_file):
    path = tmp_path / "games.jsonl"
    path.write_bytes(reference_file.read_bytes().replace(b"\n", b"\r"))
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 2 and "line 1 holds more than one record" in err


@pytest.mark.parametrize("junk", [b"\n", b"\n \n\t\n", b"\x00" * 100, b'{"schema": "meeple-re' + b"\x00" * 50,
                                  b"\n\x00\x00"])
def test_resume_drops_blank_lines_and_nuls_after_the_last_game(capsys, tmp_path, reference_file, junk):
    """What a crash or an `echo >> FILE` leaves after the last record is dropped, not refused."""
    full = reference_file.read_bytes()
    kept = b"".join(full.splitlines(keepends=True)[:6])
    path = tmp_path / "games.jsonl"
    path.write_bytes(kept + junk)
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 0, err
    assert path.read_bytes() == full
    assert f"dropped {len(junk)} bytes after the last whole game" in out


def test_resume_refusal_says_how_to_keep_the_games_before_a_damaged_line(capsys, tmp_path, reference_file):
    lines = reference_file.read_bytes().splitlines(keepends=True)
    path = tmp_path / "games.jsonl"
    for damage in (b"{not json\n", b"\n"):  # a line of junk, or a blank line followed by more
        path.write_bytes(b"".join(lines[:2]) + damage + lines[3])
        code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
        assert code == 2 and ("line 3 is not a JSON record" in err or "line 4 follows a blank line" in err), err
        assert f"its first 2 lines are games of this command: to keep them, resume into a copy of them (head -n 2 " \
               f"{path} > NEW.jsonl), or use another --out" in " ".join(err.split())


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_second_run_into_the_same_file_is_refused(capsys, tmp_path, reference_file):
    import fcntl
    path = tmp_path / "games.jsonl"
    path.write_bytes(reference_file.read_bytes()[:100])
    with open(path, "rb") as held:  # as a first run holds it while it writes
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 2 and "is being written by another selfplay run" in " ".join(err.split())
    assert path.read_bytes() == reference_file.read_bytes()[:100]
    assert run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)[0] == 0  # free again
    assert path.read_bytes() == reference_file.read_bytes()


class _OutputFile:
    """The file selfplay writes its games to, with ``write(file, data)`` in place of its own
    write (see patch_output_writes)."""

    def __init__(self, file, write):
        self.file, self._write = file, write

    def write(self, data):
        return self._write(self.file, data)

    def __getattr__(self, name):
        return getattr(self.file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()


def patch_output_writes(monkeypatch, write):
    """Makes selfplay's output file write through ``write(file, data)``; returns the real os.fdopen."""
    real_fdopen = os.fdopen
    monkeypatch.setattr(selfplay.os, "fdopen", lambda *a, **k: _OutputFile(real_fdopen(*a, **k), write))
    return real_fdopen


def test_a_full_disk_ends_the_run_with_a_message_and_a_resumable_file(capsys, tmp_path, reference_file, monkeypatch):
    """Writes fail after 3 games' worth of bytes (one cut short): exit 1 with a message, the file
    holds the whole games only, and a rerun with room completes it."""
    room = len(b"".join(reference_file.read_bytes().splitlines(keepends=True)[:3])) + 50

    def full_disk(file, data):
        if file.tell() + len(data) > room:
            if file.tell() < room:
                file.write(bytes(data)[:room - file.tell()])
            raise OSError(28, "No space left on device")
        return file.write(data)

    real_fdopen = patch_output_writes(monkeypatch, full_disk)
    path = tmp_path / "games.jsonl"
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 1 and "Traceback" not in err
    assert f"meeple selfplay: error: cannot write {path}: No space left on device; its 3 games are kept: make " \
           f"room and run the same command again to resume" in " ".join(err.split())
    assert path.read_bytes() == b"".join(reference_file.read_bytes().splitlines(keepends=True)[:3])
    monkeypatch.setattr(selfplay.os, "fdopen", real_fdopen)
    assert run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)[0] == 0
    assert path.read_bytes() == reference_file.read_bytes()


def test_an_interrupt_as_a_write_returns_counts_the_game_written(tmp_path, reference_file, monkeypatch):
    """SIGTERM or Ctrl-C is raised when the write of a game's line returns, before the writer
    counts it: the note still counts the games in the file (it said one fewer)."""
    writes = itertools.count(1)

    def interrupt_after_the_third(file, data):
        written = file.write(data)
        if next(writes) == 3:
            raise KeyboardInterrupt
        return written

    patch_output_writes(monkeypatch, interrupt_after_the_third)
    path = tmp_path / "games.jsonl"
    with pytest.raises(KeyboardInterrupt) as interrupted:
        selfplay.run(Match(meeple.load("abacuachego"), ("mcts:40", "random"), seed=3), 12, path)
    assert interrupted.value.__notes__ == [f"3 games are in {path}: run the same command again to resume"]
    assert path.read_bytes() == b"".join(reference_file.read_bytes().splitlines(keepends=True)[:3])


def test_resume_after_an_interrupted_run(tmp_path, reference_file):
    """Ctrl-C after 5 games: the file holds whole lines only, and the rerun completes it."""
    match = Match(meeple.load("abacuachego"), ("mcts:40", "random"), seed=3)

    class Interrupt:
        def __init__(self, total, done):
            self.count = done

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def advance(self, count=1):
            self.count += count
            if self.count == 5:
                raise KeyboardInterrupt

    path = tmp_path / "games.jsonl"
    with pytest.raises(KeyboardInterrupt) as interrupted:
        selfplay.run(match, 12, path, workers=2, chunk=1, progress=Interrupt)
    assert interrupted.value.__notes__ == [f"5 games are in {path}: run the same command again to resume"]
    assert path.read_bytes() == b"".join(reference_file.read_bytes().splitlines(keepends=True)[:5])
    summary = selfplay.run(match, 12, path)
    assert (summary.resumed, summary.played, summary.games) == (5, 7, 12)
    assert path.read_bytes() == reference_file.read_bytes()


def test_more_games_extend_the_file_and_fewer_play_none(capsys, tmp_path, reference_file):
    path = tmp_path / "games.jsonl"
    lines = reference_file.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:8]))
    assert run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)[0] == 0
    assert path.read_bytes() == reference_file.read_bytes()
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "5", "--out", path)
    assert code == 0 and games_line(out) == 5 and "no games played" in out
    assert out.splitlines()[0] == "abacuachego: 5 games"  # no time: nothing was played
    assert f"{path} holds 7 more games, after game 4; they are not in this summary (--games 12" in out
    assert path.read_bytes() == reference_file.read_bytes()
    summary = selfplay.run(Match(meeple.load("abacuachego"), ("mcts:40", "random"), seed=3), 5, path)
    assert (summary.games, summary.resumed, summary.played, summary.beyond) == (5, 5, 0, 7)
    first_five = [Record.from_json(line) for line in path.read_text().splitlines()[:5]]
    assert summary.returns.tolist() == [r.returns for r in first_five]


@pytest.mark.parametrize("argv, message", [
    (["abacuachego", "--bots", "mcts:41,random", "--seed", "3"],
     "bots ['mcts:40', 'random'] (this command: ['mcts:41', 'random'])"),
    (["abacuachego", "--bots", "mcts:40,random", "--seed", "4"], "seed 3 (this command: 4)"),
    (["abacuachego", "--bots", "mcts:40,random", "--seed", "3", "-p", "parity=pit"],
     "parameters {'parity': 'count'} (this command: {'parity': 'pit'})"),
    (["imperial_harvest", "--bots", "mcts:40,random", "--seed", "3"],
     "game 'abacuachego' (this command: 'imperial_harvest')"),
])
def test_resume_refuses_a_file_of_another_command(capsys, tmp_path, reference_file, argv, message):
    path = tmp_path / "games.jsonl"
    path.write_bytes(reference_file.read_bytes()[:-20])  # a truncated line is not dropped on error either
    before = path.read_bytes()
    code, out, err = run(capsys, "selfplay", *argv, "--games", "12", "--out", path)
    assert code == 2 and out == ""
    assert f"{path} holds games of another command: {message}" in err
    assert "Traceback" not in err
    assert path.read_bytes() == before


def test_policies_from_the_command_line(capsys, tmp_path):
    path = tmp_path / "searched.jsonl"
    code, out, _ = run(capsys, *MCTS_ARGS, "--games", "3", "--out", path, "--policies", "--workers", "2")
    assert code == 0 and games_line(out) == 3
    data = selfplay.training_examples(str(path))
    records = [Record.from_json(line) for line in path.read_text().splitlines()]
    mcts_moves = sum(state.current_player() == 0 for r in records for state, _ in zip(r.states(), r.actions))
    assert len(data["actions"]) == mcts_moves > 0 and (data["players"] == 0).all()
    whole = path.read_bytes()
    path.write_bytes(whole + b"\n\n" + whole[:len(whole) // 5])  # blank lines, then a run still writing
    with pytest.warns(UserWarning, match="line 6: a last line cut short"):
        cut = selfplay.training_examples(str(path))
    assert all(np.array_equal(cut[key], data[key]) for key in data)
    path.write_bytes(whole.rstrip(b"\n"))  # a whole last record without its newline is read
    assert all(np.array_equal(v, data[key]) for key, v in selfplay.training_examples(str(path)).items())
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "2", "--policies")
    assert code == 2 and "--policies records the searches in the output: give --out FILE.jsonl" in err


@pytest.mark.parametrize("flag, what, meta_key", [("--policies", "searches", "policies"),
                                                   ("--timing", "games", "seconds")])
def test_resume_refuses_a_file_recorded_with_other_flags(capsys, tmp_path, reference_file, flag, what, meta_key):
    """--policies and --timing change what each record holds: a file is resumed only with the flags
    that wrote it."""
    done, not_done = ("recorded", "not recorded") if flag == "--policies" else ("timed", "not timed")
    path = tmp_path / "games.jsonl"
    path.write_bytes(reference_file.read_bytes())
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "13", "--out", path, flag)
    assert code == 2 and f"{what} {not_done} (this command: {done}, {flag})" in err
    flagged = tmp_path / "flagged.jsonl"
    assert run(capsys, *MCTS_ARGS, "--games", "2", "--out", flagged, flag)[0] == 0
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "3", "--out", flagged)
    assert code == 2 and f"{what} {done} (this command: {not_done}, {flag})" in err
    assert run(capsys, *MCTS_ARGS, "--games", "3", "--out", flagged, flag)[0] == 0
    assert all(meta_key in json.loads(line)["meta"] for line in flagged.read_text().splitlines())
    assert len(flagged.read_text().splitlines()) == 3


@pytest.mark.parametrize("name, params, bots", [
    ("abacuachego", {}, ("mcts:30", "random")),
    ("harmonies", {"players": 3, "chance": "explicit"}, ("random", "mcts:12", "mcts:12")),
    ("imperial_harvest", {}, ("random", "mcts:10")),
])
def test_policies_are_each_search_and_become_training_examples(tmp_path, name, params, bots):
    game = meeple.load(name, **params)
    match = Match(game, bots, seed=5, policies=True)
    path = tmp_path / "games.jsonl"
    selfplay.run(match, 2, path)
    records = [Record.from_json(line) for line in path.read_text().splitlines()]
    searched = {seat for seat, spec in enumerate(bots) if spec.startswith("mcts")}
    expected = {k: [] for k in ("observations", "masks", "policies", "values", "players", "actions")}
    for index, record in enumerate(records):
        searches = record.meta["policies"]
        assert len(searches) == len(record.actions)
        # The record is unchanged by recording: the same actions as without policies.
        assert record.actions == Match(game, bots, seed=5).play(index).actions
        bot = {seat: meeple.bots.make_bot(spec, game, derive_seed(match.game_seed(index), seat))
               for seat, spec in enumerate(bots) if seat in searched}
        for state, action, search in zip(record.states(), record.actions, searches):
            mover = state.current_player()
            if state.is_chance_node() or mover not in searched:
                assert search is None
                continue
            # The recorded search is the one the bot makes in this position: a bot seeded as in the
            # game, asked the same positions in the same order, searches the same.
            assert bot[mover].step(state) == action
            assert search == sorted([a, n] for a, n in bot[mover].last_visits.items())
            expected["observations"].append(state.observation_tensor(mover))
            expected["masks"].append(state.legal_actions_mask())
            expected["policies"].append(bot[mover].last_policy())
            expected["values"].append(record.returns[mover])
            expected["players"].append(mover)
            expected["actions"].append(action)
    data = selfplay.training_examples(path)
    assert len(data["actions"]) == len(expected["actions"]) > 0
    for key, rows in expected.items():
        np.testing.assert_allclose(data[key], np.array(rows), rtol=1e-6, err_msg=key)
    assert data["observations"].dtype == np.float32 and data["masks"].dtype == np.uint8
    assert data["players"].dtype == data["actions"].dtype == np.int32
    assert np.allclose(data["policies"].sum(axis=1), 1) and not data["policies"][data["masks"] == 0].any()


def test_training_examples_refuse_records_without_searches(tmp_path, reference_file):
    with pytest.raises(ValueError, match="has no policy for each action .* --policies"):
        selfplay.training_examples(reference_file)
    with pytest.raises(ValueError, match="no records"):
        selfplay.training_examples([])
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(reference_file.read_bytes().splitlines(keepends=True)[0] + b"{not json\n")
    with pytest.raises(ValueError, match=r"damaged.jsonl, line 2: not valid JSON"):
        selfplay.training_examples(damaged)
    record = Match(meeple.load("abacuachego"), ("mcts:10", "random"), policies=True).play(0)
    legal = record.meta["policies"][0][0][0]
    for bad, message in (([[999, 1]], "is not visits of legal actions"),
                         ([[legal, 0]], "is not visits of legal actions"),
                         ([[legal, 2], [legal, 1]], "is not visits of legal actions"),
                         ([], "is not visits of legal actions"),
                         ([["a", 1]], r"a policy is a list of \[action, visits\]"),
                         (7, r"a policy is a list of \[action, visits\]")):
        record.meta["policies"][0] = bad
        with pytest.raises(ValueError, match=f"record 0, move 0: .*{message}"):
            selfplay.training_examples([record])
    record.meta["policies"][0] = [[legal, 3]]
    for bad in ([[float(legal), 3]], [[legal, 0.5]], [[legal, 10**400]], [[legal, True]]):  # ints only
        policies = [bad] + record.meta["policies"][1:]
        with pytest.raises(ValueError, match="record 0, move 0: "):
            selfplay.training_examples([dataclasses.replace(record, meta={**record.meta, "policies": policies})])
    for returns in ([-r for r in record.returns], [1.0]):  # the values come from the replayed game
        with pytest.raises(ValueError, match=r"record 0: its returns .* are not those of its final state"):
            selfplay.training_examples([dataclasses.replace(record, returns=returns)])
    with pytest.raises(TypeError, match="record 0 is a dict, not a meeple.Record"):
        selfplay.training_examples([record.to_document()])
    chance_game = meeple.load("harmonies", chance="explicit")
    searched = Match(chance_game, ("mcts:5", "mcts:5"), policies=True).play(0)
    assert searched.meta["policies"][0] is None  # the game starts with the setup draws
    searched.meta["policies"][0] = [[0, 1]]
    with pytest.raises(ValueError, match="record 0, move 0: a policy at a chance node"):
        selfplay.training_examples([searched])
    other = Match(meeple.load("abacuachego", parity="pit"), ("mcts:10", "random"), policies=True).play(0)
    with pytest.raises(ValueError, match="record 1 is a game of abacuachego .*'parity': 'pit'.*one game"):
        selfplay.training_examples([Match(meeple.load("abacuachego"), ("mcts:10", "random"), policies=True).play(0),
                                    other])
    # Random bots search nothing: no rows, of the game's widths.
    plain = Match(meeple.load("abacuachego"), ("random", "random"), policies=True).play(0)
    assert plain.meta["policies"] == [None] * len(plain.actions)
    data = selfplay.training_examples([plain])
    assert data["observations"].shape == (0, meeple.load("abacuachego").observation_shape()[0])
    assert data["policies"].shape == (0, meeple.load("abacuachego").num_distinct_actions())


@pytest.mark.parametrize("content, message", [
    (b"hello\n", "line 1 is not a JSON record"),
    (b"hello", "does not look like a meeple selfplay file"),
    (b'{"schema": "meeple-state/1"}\n', "line 1 is not a meeple game record"),
    (b"\x00\x01", "does not look like a meeple selfplay file"),
    (b"1" * 5000 + b"\n", "line 1 is not a JSON record"),  # too long an int for Python's json
    (b"[" * 100_000 + b"\n", "line 1 is not a JSON record"),  # too deep for it
])
def test_resume_refuses_other_files(capsys, tmp_path, content, message):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "2", "--out", path)
    assert code == 2 and message in err
    assert path.read_bytes() == content


def test_resume_checks_the_game_numbers(capsys, tmp_path, reference_file):
    lines = reference_file.read_bytes().splitlines(keepends=True)
    path = tmp_path / "games.jsonl"
    path.write_bytes(lines[0] + lines[2])
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 2 and "line 2 is game 2, expected game 1" in err


@pytest.mark.parametrize("edit, message", [
    (lambda doc: doc.update(seed=doc["seed"] + 1), "line 2: game 1 was not seeded from --seed 3"),
    (lambda doc: doc.pop("returns"), "line 2: game 1 has no finite returns (one per player) or no list of actions"),
    (lambda doc: doc.update(actions=None), "line 2: game 1 has no finite returns"),
    (lambda doc: doc.update(returns=["a", 1]), "line 2: game 1 has no finite returns"),
    (lambda doc: doc.update(returns=[float("nan"), 1.0]), "line 2: game 1 has no finite returns"),
    (lambda doc: doc.update(actions=[True]), "line 2: game 1 has no finite returns"),
    (lambda doc: doc["meta"].update(index=True), "line 2 is game True, expected game 1"),
])
def test_resume_checks_each_game(capsys, tmp_path, reference_file, edit, message):
    lines = reference_file.read_bytes().splitlines(keepends=True)
    doc = json.loads(lines[1])
    edit(doc)
    path = tmp_path / "games.jsonl"
    path.write_bytes(lines[0] + json.dumps(doc).encode() + b"\n")
    before = path.read_bytes()
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 2 and message in err, err
    assert path.read_bytes() == before

def test_stdout_output_is_not_resumed(capsys):
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "3", "--out", "-")
    assert code == 0 and len(out.splitlines()) == 3 and games_line(err) == 3


# --- Ray ----------------------------------------------------------------------------------------

def test_importing_meeple_does_not_import_ray():
    code = "import sys, meeple, meeple.selfplay, meeple.cli; assert 'ray' not in sys.modules"
    env = _child_env()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_ray_missing_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, out, err = run(capsys, "selfplay", "abacuachego", "--games", "2", "--ray", "local")
    assert code == 2 and out == ""
    assert 'needs Ray, which is not installed: pip install "meeple[ray]"' in err
    assert "Traceback" not in err


def test_ray_gives_the_same_file(capsys, tmp_path, reference_file, monkeypatch):
    if meeple._core.SANITIZED:
        pytest.skip("Ray's native processes cannot start with the sanitizer runtimes preloaded")
    ray = pytest.importorskip("ray")
    # Ray's local workers import meeple from the environment they inherit.
    package_parent = str(Path(meeple.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH"))
                                                     if p))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        path, processes = tmp_path / "ray.jsonl", tmp_path / "processes.jsonl"
        code, out, _ = run(capsys, *MCTS_ARGS, "--games", "12", "--ray", "local", "--out", path)
        assert code == 0 and games_line(out) == 12
        assert run(capsys, *MCTS_ARGS, "--games", "12", "--workers", "2", "--out", processes)[0] == 0
        assert path.read_bytes() == processes.read_bytes() == reference_file.read_bytes()
        # resumable in the same way: cut mid-line, rerun on Ray with small tasks
        full = path.read_bytes()
        path.write_bytes(full[:len(full) // 3])
        match = Match(meeple.load("abacuachego"), ("mcts:40", "random"), seed=3)
        summary = selfplay.run(match, 12, path, ray="local", workers=2, chunk=2)
        assert summary.played > 0 and summary.dropped > 0
        assert path.read_bytes() == full
        assert ray.is_initialized()  # a cluster started by the caller is left running
    finally:
        ray.shutdown()


def test_ray_missing_leaves_no_output_file(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    path = tmp_path / "games.jsonl"
    code, _, err = run(capsys, "selfplay", "abacuachego", "--games", "2", "--ray", "local", "--out", path)
    assert code == 2 and "needs Ray" in err and not path.exists()


def test_resume_checks_a_whole_last_record_that_lost_its_newline(capsys, tmp_path, reference_file):
    """A last line without its newline used to be dropped unread as a write cut short, even a whole
    record of another command: its game was lost. A whole record is now checked and counted like
    the others, its newline restored, also when it lies beyond the games asked for (it used to be
    dropped then, and not played again)."""
    harmonies = tmp_path / "harmonies.jsonl"
    assert run(capsys, "selfplay", "harmonies", "--games", "1", "--out", harmonies)[0] == 0
    path = tmp_path / "saved.jsonl"
    path.write_bytes(harmonies.read_bytes().rstrip(b"\n"))
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "2", "--out", path)
    assert code == 2 and "holds games of another command: game 'harmonies'" in err
    assert path.read_bytes() == harmonies.read_bytes().rstrip(b"\n")  # untouched
    lines = reference_file.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]).rstrip(b"\n"))  # game 2 of this command lost its newline
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 0 and path.read_bytes() == reference_file.read_bytes()
    assert "dropped" not in out + err and games_line(out) == 12
    path.write_bytes(b"".join(lines[:3]).rstrip(b"\n") + b"\x00\x00")  # and NULs after it
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "2", "--out", path)
    assert code == 0 and path.read_bytes() == b"".join(lines[:3])  # game 2, beyond --games 2, kept
    assert "dropped 2 bytes after the last whole game" in out + err
    assert selfplay.read_existing(path, Match(meeple.load("abacuachego"), ("mcts:40", "random"), seed=3)).count == 3


def test_resume_drops_a_cut_last_line_too_deep_for_json(capsys, tmp_path, reference_file):
    """A last line cut short that Python's json cannot even parse (nesting too deep: RecursionError)
    is dropped as any other cut line, not a traceback."""
    lines = reference_file.read_bytes().splitlines(keepends=True)
    path = tmp_path / "saved.jsonl"
    path.write_bytes(b"".join(lines[:2]) + lines[2][:40] + b"[" * 100_000)
    code, out, err = run(capsys, *MCTS_ARGS, "--games", "12", "--out", path)
    assert code == 0 and path.read_bytes() == reference_file.read_bytes()
    assert "bytes after the last whole game" in out + err


def test_timing_needs_out(capsys):
    code, _, err = run(capsys, *MCTS_ARGS, "--games", "2", "--timing")
    assert code == 2 and "--timing records each game's time in the output: give --out FILE.jsonl" in err


def test_spaces_in_bot_specs_do_not_make_another_command(capsys, tmp_path, reference_file):
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"".join(reference_file.read_bytes().splitlines(keepends=True)[:5]))
    args = ["selfplay", "abacuachego", "--bots", " mcts : 40 , random ", "--seed", "3"]
    assert run(capsys, *args, "--games", "12", "--out", path)[0] == 0
    assert path.read_bytes() == reference_file.read_bytes()


def test_selfplay_module_after_a_plain_import():
    """`meeple.selfplay.training_examples`, as the README writes it, works after `import meeple`;
    the module is imported only then (it pulls in multiprocessing)."""
    env = _child_env()
    code = ("import sys, meeple; assert 'meeple.selfplay' not in sys.modules; "
            "print(meeple.selfplay.training_examples.__name__); meeple.no_such_thing")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout == "training_examples\n"
    assert "AttributeError: module 'meeple' has no attribute 'no_such_thing'" in done.stderr
