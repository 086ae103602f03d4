"""The command line meets bad input and bad luck: a worker process that dies, --out naming a pipe or
a device, a perft depth beyond the game, an absurd --games, SIGTERM, --rotate-seats without --out,
a card table as a parameter. Each ends in a clear one-line error (or works), never a traceback or
a hang. The bots at the top are imported by spec ("test_cli_hardening:ExitsInAWorker"), also in
spawned workers (tests/ is on their sys.path, as on this process's)."""
from __future__ import annotations

import collections.abc
import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import meeple
from meeple import cli, selfplay
from meeple.bots import BaseBot, Match, derive_seed

HERE = Path(__file__).resolve().parent
EXIT_ENV = "MEEPLE_TEST_WORKER_EXIT"  # how ExitsInAWorker ends its worker: os._exit, SystemExit, KeyboardInterrupt
FATAL_GAME = 7
BOT = "test_cli_hardening:ExitsInAWorker"


class ExitsInAWorker(BaseBot):
    """Plays the first legal action; in game FATAL_GAME, in a worker process, when EXIT_ENV is set,
    ends that worker as EXIT_ENV says (os._exit(3), SystemExit(3) or KeyboardInterrupt)."""

    def __init__(self, seed=None):
        fatal = Match("abacuachego", (BOT, "random")).game_seed(FATAL_GAME)
        self.fails = seed == derive_seed(fatal, 0)

    def step(self, state):
        how = self.how()
        if self.fails and how and multiprocessing.parent_process() is not None:
            if how == "os._exit":
                os._exit(3)
            if how == "SystemExit":
                raise SystemExit(3)
            raise KeyboardInterrupt
        return int(state.legal_actions()[0])

    def how(self) -> str | None:
        return os.environ.get(EXIT_ENV)


class AlwaysExitsInAWorker(ExitsInAWorker):
    """ExitsInAWorker with os._exit whatever the environment: a worker forked from a forkserver (the
    default start method from Python 3.14 on) has the environment of the forkserver's start, not
    this process's now."""

    def how(self) -> str | None:
        return "os._exit"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def env(**extra: str) -> dict:
    """The environment of a `python -m meeple` child: this meeple and tests/ importable."""
    path = os.pathsep.join([os.path.dirname(os.path.dirname(meeple.__file__)), str(HERE)])
    return {**os.environ, "PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1", **extra}


def child(argv: list[str], timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """Runs `argv` to its end in a process group of its own, the group killed if it outlives
    `timeout` (a hang fails the test, and leaves no worker process behind holding its pipes)."""
    kwargs.setdefault("env", env())
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          **kwargs) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise AssertionError(f"{argv} did not end in {timeout} s") from None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # what is left of it: orphaned workers
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def one_line_error(err: str, prefix: str = "meeple selfplay: error: ") -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, err
    return lines[0]


# --- 1. a worker process that dies -----------------------------------------------------------

WORKER_ARGS = ["selfplay", "abacuachego", "--bots", f"{BOT},random", "--games", "12"]


@pytest.mark.parametrize("how", ["os._exit", "SystemExit", "KeyboardInterrupt"])
def test_a_dying_worker_ends_the_run_with_an_error_and_the_file_resumes(tmp_path, how):
    reference = tmp_path / "reference.jsonl"
    assert cli.main([*WORKER_ARGS, "--out", str(reference)]) == 0  # one process: the bot never exits
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "meeple", *WORKER_ARGS, "--out", str(out), "--workers", "2"]
    died = child(command, env=env(**{EXIT_ENV: how}), cwd=tmp_path)
    assert died.returncode == 1, died.stderr
    line = one_line_error(died.stderr)
    if how == "SystemExit":  # the bot's failure (sys.exit in a bot), named as any other; the worker lives
        assert f"game {FATAL_GAME}: bot '{BOT}' (seat 0) failed at move 0: SystemExit: 3" in line
    else:
        assert "a worker process died while playing games " in line
        assert "the games written so far are kept: run the same command again to resume" in line
        if how != "os._exit":
            assert f"a bot raised {how}" in line
        first, last = map(int, line.split("playing games ")[1].split()[0].rstrip(";").split(".."))
        assert first <= FATAL_GAME <= last
    written = out.read_bytes()
    assert reference.read_bytes().startswith(written) and written.count(b"\n") <= FATAL_GAME
    resumed = child(command, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == reference.read_bytes()


def test_a_dying_worker_raises_worker_died_from_the_library(monkeypatch):
    monkeypatch.setenv(EXIT_ENV, "os._exit")
    monkeypatch.syspath_prepend(str(HERE))
    match = Match(meeple.load("abacuachego"), (BOT, "random"))
    with pytest.raises(selfplay.WorkerDied) as raised:
        for _ in selfplay.play(match, range(12), workers=2, chunk=2):
            pass
    assert raised.value.first <= FATAL_GAME <= raised.value.last


def test_a_dying_worker_raises_worker_died_from_play_games(monkeypatch):
    """bots.play_games (the library's own pool) as selfplay.play: it waited for ever on a
    multiprocessing.Pool whose worker had died."""
    from meeple.bots import WorkerDied, play_games

    monkeypatch.syspath_prepend(str(HERE))
    match = Match(meeple.load("abacuachego"), ("test_cli_hardening:AlwaysExitsInAWorker", "random"))
    with pytest.raises(WorkerDied) as raised:
        for _ in play_games(match, range(12), workers=2):
            pass
    assert raised.value.first <= FATAL_GAME <= raised.value.last
    assert [r.meta["index"] for r in play_games(match, range(FATAL_GAME), workers=2)] == list(range(FATAL_GAME))


UNGUARDED_SCRIPT = """
import meeple
from meeple import bots, selfplay
match = bots.Match(meeple.load("abacuachego"), ("random", "random"))
{guard}print("games", selfplay.run(match, 8, workers=2, chunk=2).games)
"""


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "guarded"])
def test_a_script_without_a_main_guard_is_told_to_add_one(tmp_path, guarded):
    """selfplay's workers are spawned and import the main script first: one that plays at import
    time makes each worker start a pool of its own, which multiprocessing refuses there. The
    parent's WorkerDied said only "a worker process died"; it now names the script and the fix."""
    script = tmp_path / "selfplay_script.py"
    script.write_text(UNGUARDED_SCRIPT.format(guard='if __name__ == "__main__":\n    ' if guarded else ""))
    done = child([sys.executable, str(script)], timeout=120, cwd=tmp_path)
    if guarded:
        assert done.returncode == 0 and "games 8" in done.stdout, done.stderr
        return
    assert done.returncode != 0
    # The error's line, not always the last: multiprocessing's resource tracker may warn after it
    # about the semaphores of the pool that failed.
    died = [line for line in done.stderr.splitlines() if line.startswith("meeple.bots.WorkerDied: ")]
    assert died, done.stderr
    assert died[-1].startswith("meeple.bots.WorkerDied: a worker process died while playing games 0..")
    assert str(script) in died[-1] and 'if __name__ == "__main__":' in died[-1] and '"spawn"' in died[-1]


def test_the_main_guard_hint_only_where_it_can_be_the_cause(monkeypatch, tmp_path):
    import types

    from meeple.bots import main_guard_hint

    source = tmp_path / "run.py"
    source.write_text("import meeple\n")
    script = types.ModuleType("__main__")
    script.__file__ = str(source)
    script.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", script)
    assert str(source) in main_guard_hint("spawn") and '"forkserver"' in main_guard_hint("forkserver")
    source.write_text("import meeple\nif __name__ == '__main__':\n    pass\n")  # guarded: some other death
    assert main_guard_hint("spawn") == ""
    source.write_text("import meeple\nif '__main__' == __name__:\n    pass\n")  # the other way round
    assert main_guard_hint("spawn") == ""
    source.write_text("# no if __name__ == '__main__': needed\nimport meeple\n")  # a mention is no guard
    assert main_guard_hint("spawn") != ""
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # a frozen app: freeze_support's business
    assert main_guard_hint("spawn") == ""
    monkeypatch.delattr(sys, "frozen")
    source.unlink()  # unreadable (<stdin>, say): a guard would not help the workers import it
    assert main_guard_hint("spawn") == ""
    source.write_text("import meeple\n")
    assert main_guard_hint("fork") == ""  # forked workers do not import the script again
    script.__spec__ = types.SimpleNamespace(name="tool.__main__")  # python -m tool: not imported again
    assert main_guard_hint("spawn") == ""
    script.__spec__ = types.SimpleNamespace(name="tool.run")  # python -m tool.run: imported again
    assert main_guard_hint("spawn") != ""
    del script.__file__  # python -c, the REPL
    assert main_guard_hint("spawn") == ""


def test_a_pool_broken_between_results_raises_worker_died_on_submit():
    """The pool can break after a result came back and before the next item is submitted (a
    worker died meanwhile): submit itself raises BrokenProcessPool, which must become died(...)
    like a failed result, naming the calls still waited for (seen under load: the raw
    BrokenProcessPool escaped)."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from meeple.bots import results_in_order

    class BreaksAfterTwoResults:
        """Runs calls at once; from the 5th submit on (two results taken) the pool is broken."""
        def __init__(self):
            self.submitted = []

        def submit(self, call, item):
            if len(self.submitted) == 4:
                raise BrokenProcessPool("a child process terminated abruptly")
            future = Future()
            future.set_result(call(item))
            self.submitted.append(future)
            return future

    def died(first, last, error):
        return RuntimeError(f"died {first}..{last}: {type(error).__name__}")

    executor = BreaksAfterTwoResults()
    results = results_in_order(executor, lambda item: item * 10, range(100), 3, died)
    assert next(results) == (0, 0)  # items 0, 1, 2 submitted; taking 0 submits 3
    with pytest.raises(RuntimeError, match=r"^died 1\.\.4: BrokenProcessPool$"):
        next(results)  # taking 1 submits 4: the pool is broken, 1..3 still waited for


# --- 2. --out must be a regular file ---------------------------------------------------------

def test_out_refuses_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in ("/dev/null", str(fifo), str(tmp_path)):
        done = child([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", "2",
                      "--bots", "mcts:5,random", "--out", target])
        assert done.returncode == 2, (target, done.stderr)
        assert one_line_error(done.stderr) == (f"meeple selfplay: error: --out must be a regular file "
                                               f"(resumable), {target} is not; use --out - for standard output")
        assert done.stdout == ""


def test_out_to_a_pipe_is_refused_not_read():
    """`--out /dev/stdout | cat`: resuming would read the pipe (a hang)."""
    done = child(["sh", "-c", f"{sys.executable} -m meeple selfplay abacuachego --games 2 --out /dev/stdout | cat"])
    assert "--out must be a regular file (resumable)" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_the_library_refuses_to_resume_from_a_fifo(tmp_path):
    """In a child process: reading the FIFO, were it not refused, would hang."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code = ("import sys, meeple; from meeple import selfplay; from meeple.bots import Match\n"
            "try:\n"
            "    selfplay.run(Match(meeple.load('abacuachego'), ('random', 'random')), 2, out=sys.argv[1])\n"
            "except selfplay.ResumeError as e:\n"
            "    print(e)\n")
    done = child([sys.executable, "-c", code, str(fifo)])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith(f"{fifo} is not a regular file")


def test_out_still_resumes_a_regular_file_and_writes_stdout(capsys, tmp_path):
    out = tmp_path / "games.jsonl"
    assert run(capsys, "selfplay", "abacuachego", "--games", "3", "--out", out)[0] == 0
    code, stdout, _ = run(capsys, "selfplay", "abacuachego", "--games", "4", "--out", out)
    assert code == 0 and "3 games were already in" in stdout and len(out.read_text().splitlines()) == 4
    code, stdout, _ = run(capsys, "selfplay", "abacuachego", "--games", "2", "--out", "-")
    assert code == 0 and len(stdout.splitlines()) == 2


# --- 3. perft deeper than the game -----------------------------------------------------------

def test_perft_depth_beyond_the_longest_game_is_a_usage_error(capsys):
    code, out, err = run(capsys, "perft", "abacuachego", "-p", "max_plies=3", "--depth", "4")
    assert code == 2 and out == ""
    assert one_line_error(err, "meeple perft: error: ") == (
        "meeple perft: error: --depth must be in 1..3 for abacuachego(max_plies=3) (its longest game), got 4")
    code, out, _ = run(capsys, "perft", "abacuachego", "-p", "max_plies=3", "--depth", "3")
    game = meeple.load("abacuachego", max_plies=3)
    assert code == 0 and f"{game.perft(game.new_initial_state(), 3):,}" in out.splitlines()[-1]


def test_perft_depth_limit_is_the_max_game_length(capsys):
    limit = meeple.load("abacuachego").max_game_length()
    code, _, err = run(capsys, "perft", "abacuachego", "--depth", str(limit + 1))
    assert code == 2 and f"--depth must be in 1..{limit} for abacuachego" in err


# --- 4. --games bounds and lazy tasks --------------------------------------------------------

@pytest.mark.parametrize("games, message", [
    ("1000000000000", "expected at most 1,000,000,000 games, got '1000000000000'"),
    ("100000000000000000000", "expected at most 1,000,000,000 games"),
    ("1e20", "expected a positive integer, got '1e20'"),
])
def test_games_has_an_upper_bound(tmp_path, games, message):
    """In a child process with 4 GB of address space: were the count not refused, making its tasks
    would run out of memory (or time), not the machine."""
    import resource

    def limit_memory() -> None:
        # Not under AddressSanitizer (preloaded by the sanitize run): its shadow memory alone needs
        # terabytes of address space.
        if "libasan" not in os.environ.get("LD_PRELOAD", ""):
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    done = child([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", games,
                  "--workers", "2", "--out", "x.jsonl"], timeout=30, cwd=tmp_path, preexec_fn=limit_memory)
    assert done.returncode == 2 and done.stdout == ""
    assert f"argument --games: {message}" in one_line_error(done.stderr)
    assert not (tmp_path / "x.jsonl").exists()


def test_tasks_are_made_as_the_workers_need_them(monkeypatch):
    """A billion games in tasks of one: the pool takes a few tasks ahead, not the whole list."""
    made = 0
    real = selfplay._chunks

    def counted(indices, size):
        nonlocal made
        for r in real(indices, size):
            made += 1
            if made > 1000:
                raise AssertionError("the tasks were all made up front")
            yield r

    monkeypatch.setattr(selfplay, "_chunks", counted)
    assert isinstance(real(range(10**12), 1), collections.abc.Iterator)
    match = Match(meeple.load("abacuachego"), ("random", "random"))
    games = selfplay.play(match, range(10**9), workers=2, chunk=1)
    first = [next(games).index for _ in range(3)]
    games.close()
    assert first == [0, 1, 2] and made <= 8 * 2 + 3


# --- 5. SIGTERM, and a parent that is killed -------------------------------------------------

def _workers_of(pid: int) -> list[int]:
    """The spawned worker processes of `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                command = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if int(fields[1]) == pid and b"spawn_main" in command:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start_long_run(out: Path) -> tuple[subprocess.Popen, list[int]]:
    """`selfplay --workers 2` of many games, once it has written a game and both workers run."""
    process = subprocess.Popen([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", "100000",
                                "--bots", "mcts:30,random", "--workers", "2", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                               start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        workers = _workers_of(process.pid)
        if len(workers) == 2 and out.exists() and out.stat().st_size > 0:
            return process, workers
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError("the run did not start")


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")


@needs_proc
def test_sigterm_stops_the_workers_and_leaves_the_file_resumable(tmp_path):
    out = tmp_path / "games.jsonl"
    process, workers = _start_long_run(out)
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # orphaned workers hold its stderr
        err = ""
    finally:
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        leftover = [w for w in workers if _alive(w)]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # do not leave them running if the test fails
    assert process.returncode == 143 and not leftover, (process.returncode, leftover, err)
    written = out.read_bytes()
    count = written.count(b"\n")
    assert err.strip().splitlines()[-1] == (f"terminated; {count} games are in {out}: run the same command "
                                            f"again to resume") and "Traceback" not in err
    assert written.endswith(b"\n") and count >= 1
    match = Match(meeple.load("abacuachego"), ("mcts:30", "random"))
    assert selfplay.read_existing(out, match).count == count
    reference = tmp_path / "reference.jsonl"
    selfplay.run(match, count, out=reference)
    assert written == reference.read_bytes()


@needs_proc
def test_sigterm_while_a_worker_is_sending_a_result_ends_the_run(tmp_path):
    """A worker stopped part-way through sending a result left the pool's manager thread reading
    the rest of it for ever, and the run never ended."""
    out, marker = tmp_path / "games.jsonl", tmp_path / "half-sent"
    process = subprocess.Popen([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", "4",
                                "--bots", "misbehaving_bots:HalfSentResult,random", "--workers", "2", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env(MEEPLE_TEST_MARKER=str(marker)), start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), process.communicate(timeout=30)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 143, err
    assert err.strip().splitlines()[-1] == (f"terminated; 0 games are in {out}: run the same command again to "
                                            f"resume") and "Traceback" not in err, err


def test_a_worker_dying_while_sending_a_result_ends_the_run(tmp_path):
    """The pool's manager thread then waits for the rest of the message for ever and never finds
    the pool broken: the run found the dead worker itself (it hung for ever before)."""
    out = tmp_path / "games.jsonl"
    died = child([sys.executable, "-m", "meeple", "selfplay", "abacuachego", "--games", "4", "--bots",
                  "misbehaving_bots:HalfSentResultThenDies,random", "--workers", "2", "--out", str(out)],
                 timeout=60, env=env(), cwd=tmp_path)
    assert died.returncode == 1, died.stderr
    line = one_line_error(died.stderr)
    assert "a worker process died while playing games 0..3; the games written so far are kept" in line, line
    assert out.read_bytes() == b""


def test_a_worker_dying_while_sending_a_result_raises_worker_died_from_play_games(tmp_path):
    """bots.play_games (the library's own pool) as selfplay: it waited for ever."""
    script = ("import meeple\n"
              "from meeple.bots import Match, WorkerDied, play_games\n"
              "match = Match(meeple.load('abacuachego'), ('misbehaving_bots:HalfSentResultThenDies', 'random'))\n"
              "try:\n"
              "    list(play_games(match, range(4), workers=2))\n"
              "except WorkerDied as e:\n"
              "    print('WorkerDied', e.first, e.last)\n")
    done = child([sys.executable, "-c", script], timeout=60, env=env(), cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("WorkerDied 0 "), done.stderr
    assert "Traceback" not in done.stderr, done.stderr


@needs_proc
def test_workers_end_when_their_parent_is_killed(tmp_path):
    process, workers = _start_long_run(tmp_path / "games.jsonl")
    process.kill()
    deadline = time.monotonic() + 3 * selfplay.PARENT_POLL + 3
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    leftover = [w for w in workers if _alive(w)]
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # do not leave them running if the test fails
    process.communicate()
    assert not leftover


# --- 6. --rotate-seats without --out ---------------------------------------------------------

def test_rotate_seats_applies_to_all_random_bots_without_out(capsys):
    code, out, _ = run(capsys, "selfplay", "abacuachego", "--games", "10", "--rotate-seats")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("seats rotated every game")
    assert lines[1].startswith("  bot 0 [random]: ") and "wins by seat: seat 0 " in lines[1] and "/5, seat 1 " in lines[1]
    assert lines[2].startswith("  bot 1 [random]: ")
    assert any(line.startswith("  bot 0 against bot 1: score") for line in lines)
    code, plain, _ = run(capsys, "selfplay", "abacuachego", "--games", "10")
    assert code == 0 and "rotated" not in plain and "  seat 0 [random]: " in plain


# --- 7. a card table as a parameter ----------------------------------------------------------

def test_summary_names_a_card_table_briefly(capsys, tmp_path):
    from meeple import imperial_harvest

    table = tmp_path / "characters.json"
    table.write_text(json.dumps(imperial_harvest.data("characters")))
    code, out, _ = run(capsys, "selfplay", "imperial_harvest", "-p", f"characters={table}", "--games", "2")
    assert code == 0
    assert out.splitlines()[0].startswith("imperial_harvest(characters=<custom table>): 2 games")
    assert len(out.splitlines()[0]) < 100
