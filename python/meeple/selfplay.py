"""Self-play at scale: many games between bots, in parallel processes or on a Ray cluster, written
as JSON lines and resumable. This is what ``meeple selfplay ... --out FILE.jsonl`` runs.

Game i of a `Match` is seeded ``derive_seed(seed, i)`` (its bots from that), so its record is the
same whichever process, machine or run plays it. Records are written in game-index order, one
`Record` per line, flushed as they arrive::

    {"schema": "meeple-record/1", "game": ..., "parameters": {...}, "seed": <game seed>,
     "actions": [...], "returns": [...],
     "meta": {"bots": [...], "index": i, "seed": <match seed>, "plies": len(actions)}}

(``meta["bots"]``: the spec of each seat in that game; with ``Match(..., rotate_seats=True)``,
``--rotate-seats``, the bots move one seat on every game and meta also holds ``"rotate_seats": true``.
With ``Match(..., policies=True)``, ``--policies``, meta also holds ``"policies"``: each searching
bot's root visit counts per move, see `meeple.bots.play_game`; `training_examples` reads them.)

With ``timing=True`` (``--timing``) meta also holds ``"seconds"``, the wall-clock time of the game;
the file then differs from run to run, otherwise it is the same byte for byte for any number of
workers, with or without Ray, interrupted and resumed or not.

Resuming: given an existing file, `selfplay` reads the games already in it, checks that they come
from the same game, parameters, bots and seed (else `ResumeError`), drops a truncated last line
(a write cut short; a whole last game that only lost its newline is kept, the newline restored)
and blank lines or NUL bytes after the last game (what a crash may leave), and plays only the
missing indices, appending. A file that holds more games than asked for is left as
it is; the summary covers the games asked for. A run holds an exclusive lock on its file (flock,
where the system has it): a second run into the same file is refused while the first writes. A
write that fails (a full disk) raises `OutputError`, the games before it kept whole.

>>> import io, meeple
>>> from meeple.bots import Match
>>> out = io.StringIO()
>>> summary = run(Match(meeple.load("abacuachego"), ("random", "random"), seed=1), 3, out=out)
>>> summary.games, len(out.getvalue().splitlines())
(3, 3)

Ray is optional (``pip install "meeple[ray]"``, or ``pip install ".[ray]"`` in a source checkout)
and imported only when asked for.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import io
import json
import math
import multiprocessing
import operator
import os
import shlex
import signal
import stat
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from . import _arguments
from .bots import (Match, WorkerDied, dead_worker_check, derive_seed, main_guard_hint, results_in_order, stop_pool,
                   visit_shares)
from .serialization import RECORD_SCHEMA, Record

__all__ = ["Game", "Summary", "Existing", "ResumeError", "OutputError", "RayUnavailable", "WorkerDied", "run", "play",
           "read_existing", "chunk_size", "training_examples"]

RAY_HINT = 'pip install "meeple[ray]" (from a source checkout: pip install ".[ray]")'
_LINE_START = json.dumps({"schema": RECORD_SCHEMA})[:-1]  # '{"schema": "meeple-record/1"': how every line starts


class ResumeError(ValueError):
    """An existing output file cannot be resumed by this command."""


class RayUnavailable(RuntimeError):
    """Ray was asked for but is not installed."""


class _BotEndedWorker(Exception):
    """A bot raised SystemExit or KeyboardInterrupt in a worker: sent back as this, not re-raised
    as such in the parent (where it would look like the parent's own exit or Ctrl-C)."""


@dataclass(frozen=True)
class Game:
    """One finished game as it travels back from a worker: its JSON line, returns and length."""

    index: int
    line: str
    returns: tuple[float, ...]
    plies: int


@dataclass
class Existing:
    """The games already in an output file (indices 0 .. count-1)."""

    count: int = 0
    returns: list = field(default_factory=list)
    lengths: list = field(default_factory=list)
    end: int = 0          # byte offset just past the last record
    dropped: int = 0      # bytes after it (a line cut short, blank lines, NULs), dropped on resume
    unterminated: bool = False  # the last record lost its newline (a write cut short): restored on resume


@dataclass
class Summary:
    """What a self-play run ended with: its games 0 .. N-1, those read back from the output file
    and those played now. Games the file holds beyond them are counted in `beyond`, not summarized."""

    returns: np.ndarray   # (games, players), by seat
    lengths: np.ndarray   # (games,)
    resumed: int          # games read back from the file
    played: int           # games played by this run
    played_plies: int     # plies of the games played by this run
    dropped: int = 0      # bytes after the last record that were dropped (a line cut short, blank lines)
    seats: np.ndarray | None = None  # (games, players): each game's seat of each bot (Match.seat_of_bot)
    beyond: int = 0       # games in the file after game N-1 (a longer run wrote it), left out

    @property
    def games(self) -> int:
        return len(self.lengths)


# --- playing ---------------------------------------------------------------------------------

def play_one(match: Match, index: int, timing: bool = False) -> Game:
    """Game `index` of `match` as a `Game` (the record's meta completed)."""
    start = time.perf_counter()
    record = match.play(index)
    seconds = time.perf_counter() - start
    record.meta.update(seed=match.seed, plies=len(record.actions))
    if timing:
        record.meta["seconds"] = round(seconds, 6)
    assert record.returns is not None  # the game was played to the end
    return Game(index, record.to_json(), tuple(record.returns), len(record.actions))


def _play_chunk(match: Match, start: int, stop: int, timing: bool) -> list[Game]:
    return [play_one(match, i, timing) for i in range(start, stop)]


def _play_chunk_in_worker(match: Match, timing: bool, games: range) -> list[Game]:
    try:
        return _play_chunk(match, games.start, games.stop, timing)
    except (SystemExit, KeyboardInterrupt) as e:
        raise _BotEndedWorker(f"a bot raised {type(e).__name__}" + (f"({e})" if str(e) else "")) from None


PARENT_POLL = 1.0  # seconds between a worker's checks that its parent is still alive


def _init_worker(parent: int) -> None:
    """Workers leave Ctrl-C to the parent, which stops them; they end when the parent is gone
    (killed: it cannot stop them), instead of playing on as orphans."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="meeple-parent-watch", daemon=True).start()


def chunk_size(games: int, workers: int) -> int:
    """Games per task: about 16 tasks per worker (load balance), at most 256 (steady output)."""
    return max(1, min(256, games // (16 * max(1, workers))))


def _chunks(indices: range, size: int) -> Iterator[range]:
    """`indices` in ranges of `size`, made as they are asked for (a run of 10**12 games is fine)."""
    return (indices[i:i + size] for i in range(0, len(indices), size))


def play(match: Match, indices: range, workers: int = 1, ray: str | None = None, timing: bool = False,
         chunk: int | None = None) -> Generator[Game, None, None]:
    """The games `indices` (a range) of `match`, in index order.

    ``workers == 1`` and no `ray`: in this process. ``workers > 1``: a pool of `workers` processes
    started with the "spawn" method, about 8 tasks of `chunk` games per worker queued at once;
    `WorkerDied` if one of them ends (killed, or a bot ended it) and the games it played are lost
    (a script that calls this must do so under ``if __name__ == "__main__":``: each worker imports
    the main script first; WorkerDied's message says so when no worker returned a game).
    Closing the generator (or an exception in the caller) stops the workers at once. ``ray`` =
    "local" (a Ray instance started here, with `workers` CPUs if > 1, else all of them; or the one
    this process already started) or a cluster address: Ray tasks of `chunk` games each (default
    `chunk_size`), about 2 x `workers` (default: the cluster's CPUs) queued at once, their results
    taken in order.
    """
    if not indices:
        return
    if ray is not None:
        yield from _play_ray(match, indices, ray, workers, timing, chunk)
        return
    if workers <= 1 or len(indices) <= 1:
        for i in indices:
            yield play_one(match, i, timing)
        return
    yield from _play_processes(match, indices, workers, timing, chunk or chunk_size(len(indices), workers))


def _play_processes(match: Match, indices: range, workers: int, timing: bool,
                    size: int) -> Generator[Game, None, None]:
    tasks = _chunks(indices, size)
    executor = ProcessPoolExecutor(min(workers, -(-len(indices) // size)),
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(os.getpid(),))
    finished = False

    def died(first: range, last: range, error: BaseException) -> WorkerDied:
        if isinstance(error, _BotEndedWorker):  # the task that failed is known
            return WorkerDied(first.start, first.stop - 1, str(error))
        return WorkerDied(first.start, last.stop - 1, main_guard_hint("spawn") if first.start == indices.start else "")

    results = results_in_order(executor, functools.partial(_play_chunk_in_worker, match, timing), tasks,
                               8 * workers, died, (BrokenProcessPool, _BotEndedWorker), dead_worker_check(executor))
    try:
        for _, games in results:
            yield from games
        finished = True
    finally:
        results.close()  # cancels the queued tasks
        if not finished:  # stop the games being played now: they would be thrown away
            stop_pool(executor)
        executor.shutdown(wait=True, cancel_futures=True)


# --- Ray -------------------------------------------------------------------------------------

def _import_ray() -> Any:
    try:
        import ray  # type: ignore[import-not-found]
    except ImportError:
        raise RayUnavailable(f"--ray needs Ray, which is not installed: {RAY_HINT}") from None
    return ray


def _package_parent() -> str:
    return str(Path(__file__).resolve().parents[1])


def _play_ray(match: Match, indices: range, address: str, workers: int, timing: bool,
              chunk: int | None) -> Generator[Game, None, None]:
    ray = _import_ray()
    started = False
    pending: deque = deque()
    if not ray.is_initialized():
        if address == "local":
            # Local workers must import this meeple even when it is not installed (a checkout on
            # PYTHONPATH or sys.path): they inherit the environment of the processes ray.init starts.
            saved = os.environ.get("PYTHONPATH")
            paths = (saved or "").split(os.pathsep)
            if _package_parent() not in paths:
                os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [_package_parent(), *paths] if p)
            try:
                ray.init(num_cpus=workers if workers > 1 else None, include_dashboard=False, log_to_driver=False)
            finally:
                if saved is None:
                    os.environ.pop("PYTHONPATH", None)
                else:
                    os.environ["PYTHONPATH"] = saved
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        if workers <= 1:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = chunk or chunk_size(len(indices), workers)
        remote = ray.remote(num_cpus=1)(_play_chunk)
        match_ref = ray.put(match)
        chunks = iter(_chunks(indices, size))
        for r in chunks:  # at most 2 tasks per worker in flight; results taken in order
            pending.append(remote.remote(match_ref, r.start, r.stop, timing))
            if len(pending) >= 2 * workers:
                break
        while pending:
            games = ray.get(pending.popleft())
            following = next(chunks, None)
            if following is not None:
                pending.append(remote.remote(match_ref, following.start, following.stop, timing))
            yield from games
        pending.clear()
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


# --- training data ---------------------------------------------------------------------------

def training_examples(records: str | os.PathLike | Iterable[Record]) -> dict[str, np.ndarray]:
    """Arrays for training a policy and value network from self-play records written with
    policies (``--policies``; a JSON-lines path or `Record` objects): one row per move whose mover
    searched (its ``meta["policies"]`` entry is not null), in record and move order.

    - ``observations``: float32 (rows, observation size), `observation_tensor()` before the move,
      from the mover's view;
    - ``masks``: uint8 (rows, actions), `legal_actions_mask()` there;
    - ``policies``: float32 (rows, actions), the search's visit shares (sum 1, 0 off the mask);
    - ``values``: float32 (rows,), the mover's return at the end of the game;
    - ``players``: int32 (rows,), the mover; ``actions``: int32 (rows,), the move played.

    ValueError if there are no records, if they are not all of one game and parameters, if a
    record has no policies, or if its policies do not fit its actions. From a path, blank lines are
    skipped, and a last line cut short (no newline, not a whole record: a run still writing) is
    left out with a warning, as resuming does.

    >>> import io, meeple
    >>> from meeple.bots import Match
    >>> out = io.StringIO()
    >>> _ = run(Match(meeple.load("abacuachego"), ("mcts:20", "random"), policies=True), 2, out=out)
    >>> data = training_examples(Record.from_json(line) for line in out.getvalue().splitlines())
    >>> data["policies"].shape[1] == meeple.load("abacuachego").num_distinct_actions()
    True
    >>> bool((data["players"] == 0).all())  # only the MCTS seat searched
    True
    """
    if isinstance(records, (str, os.PathLike)):
        read = []
        with open(records, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip("\n\r\t \x00"):
                    continue
                if not line.endswith("\n"):  # the last line: whole, or a run's write cut short
                    try:
                        read.append(Record.from_json(line))
                    except ValueError:
                        warnings.warn(f"{records}, line {number}: a last line cut short (no newline, not a "
                                      f"whole record) is left out", stacklevel=2)
                    break
                try:
                    read.append(Record.from_json(line))
                except ValueError as e:
                    raise ValueError(f"{records}, line {number}: {e}") from None
        records = read
    columns: dict[str, list] = {k: [] for k in ("observations", "masks", "policies", "values", "players", "actions")}
    widths = None  # (observation size, actions) of the records' game
    first: tuple[str, dict] | None = None  # the first record's game and parameters: all must share them
    for number, record in enumerate(records):
        if not isinstance(record, Record):
            raise TypeError(f"record {number} is a {type(record).__name__}, not a meeple.Record "
                            "(Record.from_json or Record.from_document makes one)")
        searches = record.meta.get("policies")
        if not isinstance(searches, list) or len(searches) != len(record.actions):
            raise ValueError(f"record {number} has no policy for each action (meta.policies): play it with "
                             "--policies / Match(policies=True)")
        if record.returns is None:
            raise ValueError(f"record {number} has no returns: the game was not finished")
        if first is None:
            first = (record.game, record.parameters)
            game = record.load_game()
            widths = (int(np.prod(game.observation_shape())), game.num_distinct_actions())
        elif (record.game, record.parameters) != first:
            raise ValueError(f"record {number} is a game of {record.game} {record.parameters}, record 0 of "
                             f"{first[0]} {first[1]}: training examples come from one game")
        states = list(record.states())
        final = states[-1]
        if not final.is_terminal() or [float(r) for r in final.returns()] != list(record.returns):
            raise ValueError(f"record {number}: its returns {record.returns} are not those of its final state "
                             f"{final.returns().tolist() if final.is_terminal() else '(the game is not over)'}")
        for move, (state, action, search) in enumerate(zip(states, record.actions, searches)):
            if search is None:
                continue
            if state.is_chance_node():
                raise ValueError(f"record {number}, move {move}: a policy at a chance node (it must be null)")
            player = state.current_player()
            mask = state.legal_actions_mask()
            try:
                pairs = [(operator.index(a), operator.index(n)) for a, n in search]
                if any(isinstance(x, bool) for pair in search for x in pair):
                    raise TypeError("a bool is not an action or a visit count")
            except (TypeError, ValueError):
                raise ValueError(f"record {number}, move {move}: a policy is a list of [action, visits] "
                                 f"(ints), got {search!r}") from None
            visits = dict(pairs)
            if (not visits or len(visits) < len(pairs) or sum(visits.values()) == 0
                    or any(not 0 <= a < len(mask) or not mask[a] or not 0 <= n < 2**63 for a, n in pairs)):
                raise ValueError(f"record {number}, move {move}: policy {search!r} is not visits of legal actions")
            columns["observations"].append(state.observation_tensor(player))
            columns["masks"].append(mask)
            columns["policies"].append(visit_shares(visits, len(mask)))
            columns["values"].append(float(final.returns()[player]))
            columns["players"].append(player)
            columns["actions"].append(action)
    if widths is None:
        raise ValueError("no records")
    observation_size, actions = widths
    return {"observations": np.array(columns["observations"], dtype=np.float32).reshape(-1, observation_size),
            "masks": np.array(columns["masks"], dtype=np.uint8).reshape(-1, actions),
            "policies": np.array(columns["policies"], dtype=np.float32).reshape(-1, actions),
            "values": np.array(columns["values"], dtype=np.float32),
            "players": np.array(columns["players"], dtype=np.int32),
            "actions": np.array(columns["actions"], dtype=np.int32)}


# --- output files ----------------------------------------------------------------------------

def _differences(doc: dict, meta: dict, match: Match, index: int) -> list[str]:
    """How the record `doc` differs from `match`'s game `index`, e.g. ["bots ['random', 'random']
    (this command: ['mcts:100', 'random'])"]."""
    game, out = match.game, []
    found, want = doc.get("parameters"), game.parameters()
    if doc.get("game") != game.name:
        out.append(f"game {doc.get('game')!r} (this command: {game.name!r})")
    elif found != want:
        if isinstance(found, dict):
            keys = [k for k in {**want, **found} if found.get(k, "<missing>") != want.get(k, "<missing>")]
            found = {k: found.get(k, "<missing>") for k in keys}
            want = {k: want.get(k, "<missing>") for k in keys}
        out.append(f"parameters {found!r} (this command: {want!r})")
    rotated = meta.get("rotate_seats", False)
    if rotated != match.rotate_seats:
        out.append(f"seat rotation {'on' if rotated else 'off'} (this command: "
                   f"{'on' if match.rotate_seats else 'off'}, --rotate-seats)")
        return out  # the bots by seat differ too, from game 1 on
    if ("policies" in meta) != match.policies:
        out.append(f"searches {'recorded' if 'policies' in meta else 'not recorded'} (this command: "
                   f"{'recorded' if match.policies else 'not recorded'}, --policies)")
    for name, value, wanted in (("bots", meta.get("bots"), match.seat_specs(index)),
                                ("seed", meta.get("seed", match.seed), match.seed)):
        if value != wanted:
            out.append(f"{name} {value!r} (this command: {wanted!r})")
    return out


def read_existing(path: str | os.PathLike, match: Match, timing: bool | None = None) -> Existing:
    """The games already in `path` (missing: none), checked against `match`.

    Raises `ResumeError` if a line is not a record of `match` (another game, parameters, bots or
    seed; with `timing` True or False, also if its games were timed otherwise), or if the games
    are not numbered 0, 1, 2, ... A last line without its newline (a write cut short) is not
    counted, unless it is a whole record that only lost its newline: that one is checked and
    counted like the others (`Existing.unterminated`; resuming restores its newline); blank lines
    and NUL bytes after the last record (what a crash may leave) are not counted either;
    `Existing.end` is where the records end. The file is read line by line (millions of games
    are not held in memory).
    """
    path = Path(path)
    if not path.exists():
        return Existing()
    _check_regular(path, path.stat().st_mode)
    with open(path, "rb") as file:
        return _read_records(file, path, match, timing)


def _check_regular(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):  # reading a pipe or a device would hang or never end
        raise ResumeError(f"{path} is not a regular file: the output of selfplay must be one (it is "
                          f"resumed); write to a stream instead")


_JUNK = b" \t\r\n\x00"  # blank lines and NULs after the last record: dropped on resume


def _read_records(file: IO[bytes], path: Path, match: Match, timing: bool | None) -> Existing:
    """`read_existing` of the open `file`."""
    existing = Existing()
    offset, junk_from = 0, None  # junk_from: where a run of blank lines began
    blank_lines = False  # whether that run holds more than NUL bytes (a crash leaves NULs only)
    for number, raw in enumerate(file, 1):
        if not raw.strip(_JUNK):
            junk_from = offset if junk_from is None else junk_from
            blank_lines = blank_lines or bool(raw.strip(b"\x00"))
            offset += len(raw)
            continue
        if junk_from is not None:
            raise ResumeError(f"{path}, line {number} follows a blank line; not a meeple selfplay file?"
                              f"{_keep_hint(path, existing)}")
        if not raw.endswith(b"\n"):  # the last line, cut short by a write that was interrupted
            tail = raw.rstrip(_JUNK)
            if not _LINE_START.encode().startswith(tail[:len(_LINE_START)]):
                raise ResumeError(f"{path} does not look like a meeple selfplay file (its last line is not "
                                  f"a record){_keep_hint(path, existing)}")
            try:  # a whole record whose newline was cut off: checked and counted like the others
                json.loads(tail)
            except json.JSONDecodeError as e:
                if e.msg == "Extra data":  # more than a record: lines ended otherwise (a bare CR), not ours
                    raise ResumeError(f"{path}, line {number} holds more than one record; not a meeple "
                                      f"selfplay file?{_keep_hint(path, existing)}") from None
                break
            except (ValueError, RecursionError):  # also too long an int, too deep a nesting
                break
            raw, existing.unterminated = tail, True  # the last line: the loop ends after it
        returns, plies = _check_record(raw, number, path, match, timing, existing)
        existing.returns.append(returns)
        existing.lengths.append(plies)
        existing.count += 1
        offset += len(raw)
    else:  # no line cut short: what follows the last record, if anything, is blank
        offset = junk_from if junk_from is not None else offset
        if not existing.count and blank_lines:  # a crash leaves no text before the first record
            raise ResumeError(f"{path} holds blank lines and no record: not a meeple selfplay file; "
                              f"use another --out")
    existing.end = offset
    existing.dropped = file.seek(0, os.SEEK_END) - offset
    return existing


def _keep_hint(path: Path, existing: Existing) -> str:
    """How to keep the games before a damaged line: a new file of them, resumed instead."""
    if not existing.count:
        return "; use another --out"
    return (f"; its first {existing.count} lines are games of this command: to keep them, resume into a copy "
            f"of them (head -n {existing.count} {shlex.quote(str(path))} > NEW.jsonl), or use another --out")


def _check_record(raw: bytes, number: int, path: Path, match: Match, timing: bool | None,
                  existing: Existing) -> tuple[list[float], int]:
    """The returns and length of the record `raw` on line `number`, which must be game
    `existing.count` of `match`; ResumeError if it is not."""
    game, index, where = match.game, existing.count, f"{path}, line {number}"
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as e:  # JSON and UTF-8 errors are ValueErrors too
        raise ResumeError(f"{where} is not a JSON record ({e}); not a meeple selfplay file?"
                          f"{_keep_hint(path, existing)}") from None
    if not isinstance(doc, dict) or doc.get("schema") != RECORD_SCHEMA:
        raise ResumeError(f"{where} is not a meeple game record; not a meeple selfplay file?"
                          f"{_keep_hint(path, existing)}")
    meta: dict = doc["meta"] if isinstance(doc.get("meta"), dict) else {}
    differences = _differences(doc, meta, match, index)
    if timing is not None and ("seconds" in meta) != timing:
        differences.append(f"games {'timed' if 'seconds' in meta else 'not timed'} (this command: "
                           f"{'timed' if timing else 'not timed'}, --timing)")
    if differences:
        raise ResumeError(f"{path} holds games of another command: {'; '.join(differences)} at line "
                          f"{number}; resume with the same game, parameters, bots, seat rotation and "
                          f"seed, or use another --out")
    if type(meta.get("index")) is not int or meta["index"] != index:
        raise ResumeError(f"{where} is game {meta.get('index')!r}, expected game {index}: "
                          f"the file's games must be numbered 0, 1, 2, ... in order")
    if doc.get("seed") != derive_seed(match.seed, index):
        raise ResumeError(f"{where}: game {index} was not seeded from --seed {match.seed}; "
                          f"resume with the seed that wrote the file, or use another --out")
    returns, actions = doc.get("returns"), doc.get("actions")
    if (not isinstance(returns, list) or len(returns) != game.num_players() or not isinstance(actions, list)
            or any(isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) for r in returns)
            or any(isinstance(a, bool) or not isinstance(a, int) for a in actions)):
        raise ResumeError(f"{where}: game {index} has no finite returns (one per player) or no list of "
                          f"actions; not a finished game of this command")
    return [float(r) for r in returns], len(actions)


def run(match: Match, games: int, out: str | os.PathLike | IO[str] | None = None, workers: int = 1,
        ray: str | None = None, timing: bool = False, chunk: int | None = None,
        progress: Callable[[int, int], Any] | None = None) -> Summary:
    """Plays games 0 .. `games`-1 of `match` and writes their records to `out`.

    `out`: a path (resumed if it exists: only the games it lacks are played, appended), a text
    stream (written, never resumed), or None (nothing written). `progress(total, done)`, if given,
    makes a context manager with an ``advance(count)`` method (e.g. `meeple.cli.Progress`).
    Returns the `Summary` of games 0 .. `games`-1: those read back and those played.
    """
    games = _arguments.int_in_range("games", games, 0, 2**63 - 1)
    played_plies = 0
    bar_factory = progress or (lambda total, done: _NoProgress())
    with _output(out, match, timing) as (existing, write):
        returns = list(existing.returns[:games])
        lengths = list(existing.lengths[:games])
        todo = range(len(lengths), games)
        with bar_factory(games, len(lengths)) as bar, \
                contextlib.closing(play(match, todo, workers, ray, timing, chunk)) as finished:
            for game in finished:  # closing: an exception here stops the workers at once
                write(game.line)
                returns.append(list(game.returns))
                lengths.append(game.plies)
                played_plies += game.plies
                bar.advance()
    players = match.game.num_players()
    seats = np.array([match.seat_of_bot(i) for i in range(len(lengths))], dtype=np.int64).reshape(-1, players)
    return Summary(np.array(returns, dtype=float).reshape(-1, players), np.array(lengths, dtype=np.int64),
                   games - len(todo), len(todo), played_plies, existing.dropped, seats,
                   beyond=max(0, existing.count - games))


class _NoProgress:
    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass


class OutputError(OSError):
    """The output file could not be written (a full disk); the games before are kept in it."""

    def __str__(self) -> str:
        return str(self.strerror)  # the message alone, no "[Errno 28]"


class _Appender:
    """``appender(line)`` appends a line to the output file and flushes it; `count` records are in
    the file, ending at byte `end`. A failed write is cut back to `end` (OutputError)."""

    def __init__(self, file: Any, path: Path, existing: Existing):
        self.file, self.path, self.count, self.end = file, path, existing.count, existing.end

    def __call__(self, line: str) -> None:
        self._write(line.encode("utf-8") + b"\n", 1)

    def end_last_line(self) -> None:
        """Restores the newline a whole last record lost (`Existing.unterminated`)."""
        self._write(b"\n", 0)

    def _write(self, encoded: bytes, records: int) -> None:
        data = memoryview(encoded)
        count, end = self.count + records, self.end + len(encoded)  # once the bytes are in
        try:
            while data:
                written = self.file.write(data)
                if not written:  # a device that takes nothing: as full
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                data = data[written:]
            self.count, self.end = count, end
        except OSError as e:
            with contextlib.suppress(OSError):
                self.file.truncate(self.end)
            raise OutputError(e.errno, f"cannot write {self.path}: {e.strerror}; its {self.count} games are kept: "
                              f"make room and run the same command again to resume") from None
        except BaseException:
            # Ctrl-C or SIGTERM, raised as the write returns (Python runs the handler then): the
            # line is in the file all the same, and the games counted must say so.
            with contextlib.suppress(OSError):
                if self.file.tell() == end:
                    self.count, self.end = count, end
            raise


@contextlib.contextmanager
def _output(out: str | os.PathLike | IO[str] | None, match: Match,
            timing: bool) -> Generator[tuple[Existing, Callable[[str], None]], None, None]:
    """The games already in `out` and ``write(line)``, which appends a line and flushes it. A
    path is held with an exclusive lock while the run writes it: a second run into the same file
    is refused (ResumeError), not interleaved with the first. An exception that ends the run
    (Ctrl-C) gets a note of the games in the file."""
    if out is None:
        yield Existing(), lambda line: None
        return
    if not isinstance(out, (str, os.PathLike)):
        def write_text(line: str) -> None:
            out.write(line + "\n")  # type: ignore[union-attr]
            out.flush()  # type: ignore[union-attr]
        yield Existing(), write_text
        return
    path = Path(out)
    if path.exists():
        _check_regular(path, path.stat().st_mode)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o666)  # O_BINARY: no CRLF on Windows
    with os.fdopen(fd, "r+b", buffering=0) as file:  # unbuffered: a failed write leaves no buffer behind
        _lock(file, path)
        reader = io.BufferedReader(file)  # through the locked handle: closing another would drop a POSIX lock
        existing = _read_records(reader, path, match, timing)
        reader.detach()
        file.truncate(existing.end)  # drops a line cut short, or blank lines after the last record
        file.seek(existing.end)
        appender = _Appender(file, path, existing)
        if existing.unterminated:  # a whole last record that lost its newline: kept, the newline restored
            appender.end_last_line()
        try:
            yield existing, appender
        except BaseException as e:
            if not isinstance(e, Exception):  # Ctrl-C, SIGTERM: say what is kept
                note = f"{appender.count} games are in {path}: run the same command again to resume"
                setattr(e, "__notes__", [*getattr(e, "__notes__", []), note])  # add_note (3.11+) on 3.10 too
            raise


def _lock(file: IO[bytes], path: Path) -> None:
    """An exclusive lock on `file` (where the system has flock), or ResumeError if another process
    holds it. Where the file system takes no locks, the run goes on without."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):  # EACCES: the fcntl-lock fallback
            raise ResumeError(f"{path} is being written by another selfplay run (it holds a lock on the "
                              f"file): wait for it to end, or use another --out") from None
        # ENOLCK, EOPNOTSUPP, ENOSYS...: a file system without locks; written as before locks were taken
