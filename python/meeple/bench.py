"""A quick, dependency-free benchmark: plies (and MCTS simulations) per second, behind `meeple bench`.

For each game it times, with plain `time.perf_counter` loops:

* ``native``          `meeple.random_playouts` — whole random games in C++ (1 and 2 threads);
* ``python_loop``     the per-move protocol loop a user writes in Python (`protocol_loop`);
* ``vector_N``        `meeple.VectorGame` with N states (1, 64, 1024; 1 and 2 threads; with
                      ``observations=False``, as rollouts use it, and with observations), stepped
                      with ``vec.step(vec.random_actions())`` (N plies per step; `vector_steps`);
* ``vector_paired``   VectorGame n=1024 (observations=False) and random_playouts in alternating
                      rounds: the VectorGame target, as the median ratio of neighbouring rounds;
* ``vector_paired_nomasks`` the same with ``masks=False``: VectorGame as random rollouts use it;
* ``vector_paired_packedmasks`` the same with ``masks="packed"`` (the masks as bits);
* ``interleaved_paired`` 1024 games stepped one ply at a time in turn in C++ with no outputs
                      (`interleaved_playouts`), alternating with random_playouts: the ceiling of
                      the VectorGame ratio (what lockstep stepping costs by itself);
* ``mcts``            the C++ MCTS (`game._mcts`) from the initial state, in simulations (1 and 2
                      threads; `mcts_searches`);
* ``reference_loop``  the same loop over the pure-Python reference (`meeple.reference`), if present;
* OpenSpiel's ``oware`` and ``mancala`` (if `pyspiel` imports): the same Python loop, OpenSpiel's
  C++ uniform random bots through `pyspiel.evaluate_bots`, and OpenSpiel's C++ `MCTSBot`
  (simulations per second of `bot.step` on the initial state; `openspiel_mcts`);

and prints the throughputs and the ratios that matter (`render`). `bench/report.py` turns a
pytest-benchmark run into the same table with the same code (and writes bench/REPORT.md).

>>> import io, meeple.bench
>>> results = meeple.bench.run(quick=True, out=io.StringIO())   # doctest: +SKIP

Every workload returns the number of plies (actions applied) it played, or of MCTS simulations it
ran, counted exactly, so time turns into plies/s or sims/s. Adding a game is one line in
`BENCH_GAMES` (or nothing: unlisted games get the defaults).
"""
from __future__ import annotations

import functools
import os
import platform
import random
import shutil
import statistics
import sys
import textwrap
import time
from dataclasses import dataclass, field
from typing import Callable, Literal

__all__ = ["BenchSpec", "BENCH_GAMES", "VECTOR_SIZES", "Measurement", "Results", "run", "render",
           "machine_info", "native_playouts", "protocol_loop", "vector_steps", "mcts_searches",
           "openspiel_bots", "openspiel_mcts", "interleaved_playouts", "calibrate", "measure", "measure_pair",
           "loop_breakdown", "render_breakdown"]


@dataclass(frozen=True)
class BenchSpec:
    """How one meeple game is benchmarked, and the targets its ratios are held to (None: shown, no
    target)."""

    name: str
    params: dict = field(default_factory=dict)       # parameters passed to meeple.load / reference.load
    openspiel: tuple = ("oware", "mancala")          # OpenSpiel games shown for comparison
    baseline: str = "oware"                          # the OpenSpiel game the target ratios use
    openspiel_targets: bool = False                  # hold the OpenSpiel ratios to their targets
    mcts_simulations: int = 2000                     # simulations per search (per thread)
    playouts_target: float | None = None             # random_playouts, 1 thread, M plies/s
    reference_target: float | None = 100.0           # random_playouts / reference loop
    vector_target: float | None = 0.8                # VectorGame n=1024 (observations=False) / random_playouts
    mcts_target: float | None = None                 # MCTS k sims/s per thread
    mcts_scaling_target: float | None = None         # MCTS 2 threads / 1 thread ("near-linear")


# game name -> BenchSpec. Games not listed here are benchmarked with BenchSpec(name).
BENCH_GAMES = {
    # the mancala: compared with OpenSpiel's oware (and mancala) game for game
    "abacuachego": BenchSpec("abacuachego", openspiel_targets=True, playouts_target=30.0, mcts_target=200.0,
                             mcts_scaling_target=1.8),
    "harmonies": BenchSpec("harmonies", params={"players": 2}, reference_target=200.0),
    "imperial_harvest": BenchSpec("imperial_harvest"),
}

VECTOR_SIZES = (1, 64, 1024)   # VectorGame sizes timed
OPENSPIEL_MCTS_SIMULATIONS = 1000


def spec_for(name: str) -> BenchSpec:
    return BENCH_GAMES.get(name) or BenchSpec(name)


# --------------------------------------------------------------------------------------------------
# Workloads. Each returns the number of plies it played; all per-move loops pick actions the same way
# (random.Random.randrange on the legal list), so they are comparable.


def native_playouts(game, n: int, seed: int = 0, threads: int = 1) -> int:
    """`n` whole random games in C++ via `meeple.random_playouts`; returns the total plies."""
    import meeple

    return int(meeple.random_playouts(game, n, seed, threads=threads).lengths.sum())


def protocol_loop(game, n_games: int, seed: int = 0) -> int:
    """`n_games` uniformly random games through the protocol, one Python call per move.

    Written the way a user would; works unchanged on meeple, the reference and pyspiel games.
    Plies are counted exactly with `move_number()` (chance outcomes, if any, count as plies).
    """
    rng = random.Random(seed)
    plies = 0
    for _ in range(n_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        plies += state.move_number()
    return plies


def vector_steps(vec, steps: int) -> int:
    """`steps` steps of a `meeple.VectorGame` with uniformly random actions drawn in C++:
    ``vec.step(vec.random_actions())``; returns the plies, len(vec) per step (finished games are
    reset in the same step, so every slot plays one ply per step)."""
    step, random_actions = vec.step, vec.random_actions
    for _ in range(steps):
        step(random_actions())
    return steps * len(vec)


def mcts_searches(game, state, simulations: int, threads: int, searches: int, c: float = 1.4) -> int:
    """`searches` C++ MCTS searches (`game._mcts`) from `state`, search i seeded i; returns the
    simulations run, counted as the sum of the root's visit counts (`simulations` per thread)."""
    total = 0
    for i in range(searches):
        _, visits, _, _ = game._mcts(state, simulations, threads, i, c)
        total += sum(visits.values())
    return total


def openspiel_mcts(game, simulations: int, searches: int, seed: int = 0) -> int:
    """`searches` calls of OpenSpiel's C++ `MCTSBot.step` on the initial state (UCT c = 2, one random
    rollout per leaf, no solver), each a fresh search of `simulations`; returns the simulations."""
    import pyspiel  # type: ignore[import-not-found]

    if isinstance(game, str):
        game = pyspiel.load_game(game)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations, 256, False, seed,
                          False)
    state = game.new_initial_state()
    for _ in range(searches):
        bot.step(state)
    return searches * simulations


def openspiel_bots(game, n_games: int, seed: int = 0) -> int:
    """`n_games` games between OpenSpiel's C++ uniform random bots (`pyspiel.evaluate_bots`).

    `evaluate_bots` plays the whole game in C++ on the state it is given (it mutates it in place),
    so the plies are counted exactly afterwards with `state.move_number()` (== len(history())); the
    one extra Python call per game (~0.1 µs) is negligible next to a game (tens of µs). Bots are made
    afresh per call from `seed`, so a call is deterministic.
    """
    import pyspiel

    if isinstance(game, str):
        game = pyspiel.load_game(game)
    players = game.num_players()
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(players)]
    plies = 0
    for i in range(n_games):
        state = game.new_initial_state()
        pyspiel.evaluate_bots(state, bots, seed + i)
        plies += state.move_number()
    return plies


# --------------------------------------------------------------------------------------------------
# Timing


@dataclass
class Measurement:
    """`plies` played (or MCTS simulations run, `unit` "sims") in `seconds` (one round, as summarised
    over `rounds` rounds)."""

    key: str            # e.g. "abacuachego/native", "openspiel/oware/bots"
    label: str
    plies: float        # the count of `unit`s per round
    seconds: float
    rounds: int = 1
    n: int = 0          # games (vector: steps; MCTS: searches) per round
    extra: dict = field(default_factory=dict)
    unit: str = "plies"

    @property
    def rate(self) -> float:
        return self.plies / self.seconds if self.seconds > 0 else float("nan")


def _timed(work: Callable[[int], int], n: int) -> tuple[int, float]:
    t0 = time.perf_counter()
    plies = work(n)
    return plies, time.perf_counter() - t0


def calibrate(work: Callable[[int], int], target: float, n: int = 1, max_n: int = 1 << 26) -> int:
    """The number of games `n` for which `work(n)` takes about `target` seconds."""
    work(n)  # warm-up: the first call may pay one-off costs (imports, caches, thread start-up)
    _, dt = _timed(work, n)
    while dt < target and n < max_n:
        factor = 10.0 if dt <= 0 else min(10.0, max(2.0, 1.1 * target / dt))
        n = min(max_n, max(n + 1, int(n * factor)))
        _, dt = _timed(work, n)
    return n


def measure(key: str, label: str, work: Callable[[int], int], target: float, repeats: int,
            unit: str = "plies", **extra) -> Measurement:
    """Calibrates `work` to ~`target` s per round (this also warms up) and keeps the median round."""
    n = calibrate(work, target)
    rounds = [_timed(work, n) for _ in range(repeats)]
    seconds = statistics.median(dt for _, dt in rounds)
    plies = statistics.median(p for p, _ in rounds)
    return Measurement(key, label, plies, seconds, repeats, n, extra, unit)


# VectorGame's masks settings, as the paired measurements take them: byte masks (the target),
# packed bits, none (random rollouts).
MASK_SETTINGS: tuple[bool | str, ...] = (True, "packed", False)


def _masks_suffix(masks: bool | str) -> str:
    return "" if masks is True else "_packedmasks" if masks == "packed" else "_nomasks"


def _masks_text(masks: bool | str) -> str:
    return "" if masks is True else f", masks={masks!r}"


def paired_key(threads: int, masks: bool | str = True) -> str:
    return "vector_paired" + _masks_suffix(masks) + ("" if threads == 1 else f"_{threads}threads")


def paired_label(name: str, threads: int, masks: bool | str = True) -> str:
    return (f"{name}: VectorGame n={max(VECTOR_SIZES)}, observations=False{_masks_text(masks)}, "
            f"{threads} thread{'s' * (threads > 1)}, rounds alternating with random_playouts")


def native_pair(game, threads: int, target: float, work: Callable[[int], int]):
    """Rounds of `random_playouts` and of `work`, alternating, so that a slow spell of a noisy
    machine falls on both sides of a ratio. Both are calibrated (and so warmed up) to ~`target` s
    a round. Returns (pair, ratios, work's n per round): `pair()` times one round of each and
    appends (work's plies/s over random_playouts' plies/s, work's plies, work's seconds, the
    cross-core round trip in ns just before, measured on 2+ threads only, else None)."""
    from meeple import _core

    native = (lambda n: native_playouts(game, n, 0, threads))
    n_native = calibrate(native, target)
    n_work = calibrate(work, target)
    ratios: list[tuple[float, int, float, float | None]] = []

    def pair() -> None:
        # A few ms: how far apart the host has put the cores for this round.
        trip = _core._cross_core_round_trip_ns(5000, 3) if threads > 1 else None
        native_plies, native_seconds = _timed(native, n_native)
        work_plies, work_seconds = _timed(work, n_work)
        ratios.append(((work_plies / work_seconds) / (native_plies / native_seconds), work_plies,
                       work_seconds, trip))

    return pair, ratios, n_work


def vector_native_pair(game, threads: int, target: float, masks: bool | str = True):
    """The VectorGame target as one measurement: `native_pair` with VectorGame n=1024
    (observations=False; `masks`) stepping with its own random actions."""
    import meeple

    vec = meeple.VectorGame(game, max(VECTOR_SIZES), seed=0, threads=threads, observations=False, masks=masks)
    return native_pair(game, threads, target, lambda n: vector_steps(vec, n))


def interleaved_playouts(game, rounds: int, n: int = max(VECTOR_SIZES), seed: int = 0) -> int:
    """`n` random games played in C++ one ply at a time in turn, `rounds` times (a finished game is
    replaced at once): VectorGame's order of work without its outputs, checks, threads or Python
    calls. Returns the plies."""
    return int(game._interleaved_playouts(n, rounds, seed))


def interleaved_native_pair(game, target: float):
    """`native_pair` (1 thread) with `interleaved_playouts`: what stepping 1024 unrelated games in
    lockstep costs by itself, the ceiling of the VectorGame ratio."""
    return native_pair(game, 1, target, lambda n: interleaved_playouts(game, n))


INTERLEAVED_KEY = "interleaved_paired"


def interleaved_label(name: str) -> str:
    return (f"{name}: C++ n={max(VECTOR_SIZES)} games interleaved one ply at a time, no outputs, 1 thread, "
            "rounds alternating with random_playouts")


def paired_summary(ratios: list[tuple]) -> dict:
    """extra_info of a paired measurement: the median ratio, its quartiles, the VectorGame round,
    and the range of cross-core round trips (ns) if the rounds measured them."""
    values = [r[0] for r in ratios]
    q1, _, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else (values[0],) * 3
    info = {"paired_ratio": statistics.median(values), "paired_ratio_q1": q1, "paired_ratio_q3": q3,
            "plies": ratios[0][1], "seconds": statistics.median(r[2] for r in ratios)}
    trips = [r[3] for r in ratios if len(r) > 3 and r[3] is not None]
    if trips:
        info["round_trip_ns_min"], info["round_trip_ns_max"] = min(trips), max(trips)
    return info


def measure_pair(key: str, label: str, paired, repeats: int) -> Measurement:
    """A measurement from `repeats` alternating rounds of a `native_pair` (pair, ratios, n)."""
    pair, ratios, n = paired
    for _ in range(repeats):
        pair()
    info = paired_summary(ratios)
    return Measurement(key, label, info["plies"], info["seconds"], repeats, n, info)


def openspiel_mcts_label(og: str) -> str:
    return f"OpenSpiel {og}: C++ MCTSBot {OPENSPIEL_MCTS_SIMULATIONS} sims/search, 1 thread"


def vector_key(size: int, threads: int, observations: bool = True) -> str:
    return f"vector_{size}" + ("" if observations else "_noobs") + ("" if threads == 1 else f"_{threads}threads")


def vector_label(name: str, size: int, threads: int, observations: bool = True) -> str:
    return (f"{name}: VectorGame n={size}{'' if observations else ', observations=False'}, "
            f"{threads} thread{'s' * (threads > 1)}")


def mcts_key(threads: int) -> str:
    return "mcts" + ("" if threads == 1 else f"_{threads}threads")


def mcts_label(name: str, simulations: int, threads: int) -> str:
    return f"{name}: MCTS {simulations} sims/search, {threads} thread{'s' * (threads > 1)}"


# --------------------------------------------------------------------------------------------------
# Results and the table shared with bench/report.py


@dataclass
class Results:
    measurements: dict = field(default_factory=dict)   # key -> Measurement
    state_sizes: dict = field(default_factory=dict)    # meeple game -> sizeof(C++ state) in bytes
    games: list = field(default_factory=list)          # meeple games benchmarked
    notes: list = field(default_factory=list)          # skipped measurements and why
    machine: dict = field(default_factory=dict)
    source: str = ""

    def add(self, m: Measurement) -> None:
        self.measurements[m.key] = m

    def rate(self, key: str) -> float | None:
        m = self.measurements.get(key)
        return None if m is None else m.rate


def _version(dist: str, module: str | None = None) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        pass
    if module:
        try:
            return getattr(__import__(module), "__version__", "?")
        except Exception:
            pass
    return "not installed"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            import subprocess

            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=5).stdout.strip()
        except Exception:
            pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info() -> dict:
    """CPU, cores and the versions that matter for these numbers."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    try:
        import meeple
        from meeple import _core

        built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(_core.__file__)))
        meeple_version = f"{meeple.__version__} (compiled engine built {built})"
    except Exception:
        meeple_version = "not importable"
    try:
        load = "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except (AttributeError, OSError):
        load = "unknown"
    round_trip = "n/a (one usable core)"
    if (usable or 1) > 1:
        try:
            from meeple import _core

            round_trip = f"{_core._cross_core_round_trip_ns():.0f} ns"
        except Exception:
            round_trip = "unknown"
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu": _cpu_model(),
        "cores": f"{os.cpu_count()} logical, {usable} usable",
        "load": load,
        # 2-thread rows depend on it: see cross_core_round_trip_ns in cpp/bindings/module.cpp.
        "cross-core round trip": round_trip,
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "numpy": _version("numpy", "numpy"),
        "meeple": meeple_version,
        "open_spiel": _version("open_spiel"),
    }


def _ratio_rows(results: Results, game: str) -> list[tuple[str, str, str, str]]:
    """(ratio, value, target, status) rows for one meeple game."""
    spec = spec_for(game)
    r = results.rate
    native, native2 = r(f"{game}/native"), r(f"{game}/native_2threads")
    loop, ref = r(f"{game}/python_loop"), r(f"{game}/reference_loop")
    mcts, mcts2 = r(f"{game}/mcts"), r(f"{game}/mcts_2threads")
    rows = []

    def row(name, value, target=None, unit="x"):
        if value is None:
            rows.append((name, "n/a", _fmt_target(target, unit), "skipped"))
            return
        digits = 2 if unit != "x" or value < 10 else 1
        text = f"{value:,.{digits}f}{unit}"
        status = "" if target is None else ("met" if value >= target else "MISSED")
        rows.append((name, text, _fmt_target(target, unit), status))

    def div(a, b):
        return None if a is None or b is None or not b else a / b

    row("random_playouts, 1 thread (M plies/s)", div(native, 1e6), spec.playouts_target, " M")
    baseline = spec.baseline if spec.openspiel_targets else None
    for og in spec.openspiel:
        target = 15.0 if og == baseline else None
        row(f"random_playouts / OpenSpiel C++ random bots ({og})", div(native, r(f"openspiel/{og}/bots")),
            target)
    if native2 is not None:
        row("random_playouts 2 threads / 1 thread", div(native2, native))
    for og in spec.openspiel:
        target = 1.5 if og == baseline else None
        row(f"Python loop / pyspiel Python loop ({og})", div(loop, r(f"openspiel/{og}/python_loop")), target)
    row("random_playouts / reference loop (whole random games)", div(native, ref), spec.reference_target)
    row("Python loop / reference loop (whole random games)", div(loop, ref))
    big = max(VECTOR_SIZES)

    def alternating(m):  # how a paired measurement was taken, with its spread
        trips = (f"; cross-core round trip {m.extra['round_trip_ns_min']:.0f}-{m.extra['round_trip_ns_max']:.0f} ns"
                 if "round_trip_ns_min" in m.extra else "")
        return (f"alternating rounds (median; quartiles {m.extra['paired_ratio_q1']:.2f}-"
                f"{m.extra['paired_ratio_q3']:.2f}{trips})")

    # The target is judged with masks; masks=False is VectorGame as random rollouts use it.
    for masks, what, target in ((True, "observations=False", spec.vector_target),
                                ("packed", "observations=False, masks='packed': bits", None),
                                (False, "observations=False, masks=False: random rollouts", None)):
        for threads in (1, 2):
            paired = results.measurements.get(f"{game}/{paired_key(threads, masks)}")
            if paired is not None:
                row(f"VectorGame n={big} ({what}) / random_playouts, {threads} thread{'s' * (threads > 1)}, "
                    f"{alternating(paired)}", paired.extra["paired_ratio"], target)
    ceiling = results.measurements.get(f"{game}/{INTERLEAVED_KEY}")
    if ceiling is not None:
        row(f"C++ n={big} games interleaved one ply at a time, no outputs / random_playouts, 1 thread, "
            f"{alternating(ceiling)}: the ceiling of the VectorGame ratio", ceiling.extra["paired_ratio"])
    for observations in (False, True):
        for threads, base in ((1, native), (2, native2)):
            if base is None and threads > 1:
                continue
            what = "observations=False" if not observations else "with observations"
            has_paired = f"{game}/{paired_key(threads)}" in results.measurements and not observations
            row(f"VectorGame n={big} ({what}) / random_playouts, {threads} thread{'s' * (threads > 1)}"
                + (", separate runs" if has_paired else ""),
                div(r(f"{game}/{vector_key(big, threads, observations)}"), base),
                None if observations or has_paired else spec.vector_target)
    row("MCTS, 1 thread (k sims/s)", div(mcts, 1e3), spec.mcts_target, " k")
    if mcts2 is not None:
        row("MCTS, 2 threads, per thread (k sims/s)", div(mcts2, 2e3), None, " k")
        row("MCTS 2 threads / 1 thread", div(mcts2, mcts), spec.mcts_scaling_target)
    for og in spec.openspiel:
        row(f"MCTS / OpenSpiel MCTSBot ({og}), sims/s, 1 thread", div(mcts, r(f"openspiel/{og}/mcts")))
    size = results.state_sizes.get(game)
    rows.append(("sizeof(State) (bytes)", "n/a" if size is None else str(size), "", ""))
    return rows


def target_rows(results: Results) -> list[list[str]]:
    """[game, ratio, value, target, status] for every ratio with a target, all games, plus the
    OpenSpiel anchors (MCTSBot sims/s, C++ random bots plies/s)."""
    rows = []
    for game in results.games:
        rows += [[game, *row] for row in _ratio_rows(results, game) if row[2]]
    for key, m in sorted(results.measurements.items()):
        if key.startswith("openspiel/") and key.endswith(("/mcts", "/bots")):
            scale, unit = (1e3, " k") if m.unit == "sims" else (1e6, " M")
            rows.append(["OpenSpiel " + key.split("/")[1], f"anchor: {m.label.split(': ', 1)[1]} ({unit.strip()} "
                         f"{m.unit}/s)", f"{m.rate / scale:,.2f}{unit}", "", ""])
    return rows


def render_targets(results: Results, markdown: bool = False, width: int | None = None) -> str:
    """One table of the ratios that have a target (met / MISSED), every game, and the anchors.
    Text wider than `width` columns (None: no limit) is wrapped."""
    return "\n".join(_table(["game", "ratio", "value", "target", "status"], target_rows(results), markdown,
                            "llrll", width))


def _fmt_target(target, unit):
    if target is None:
        return ""
    return f">= {target:g}{unit}"


def _table(header: list[str], rows: list[list[str]], markdown: bool, align: str,
           width: int | None = None) -> list[str]:
    """The rows under `header`, as markdown or as aligned text. Text wider than `width` (None: no
    limit) has its first column wrapped: in place where the other columns leave it room enough,
    else on lines of its own, each row's other columns on the line below."""
    if markdown:
        sep = ["---:" if a == "r" else "---" for a in align]
        lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        return lines
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def fmt(cells, widths=widths, align=align):
        return "  ".join(str(c).rjust(w) if a == "r" else str(c).ljust(w)
                         for c, w, a in zip(cells, widths, align)).rstrip()

    rest = sum(widths[1:]) + 2 * (len(widths) - 1)  # the other columns and the gaps before them
    if width is None or widths[0] + rest <= width:
        return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(row) for row in rows]
    first = width - rest
    if first >= _MIN_WRAPPED_COLUMN:  # wrapped in place: continuation lines hold the first column only
        wrapped = [first, *widths[1:]]
        lines = [fmt(header, wrapped), fmt(["-" * w for w in wrapped], wrapped)]
        for row in rows:
            label, *more = _wrap(str(row[0]), first)
            lines.append(fmt([label, *row[1:]], wrapped))
            lines += [line.rstrip() for line in more]
        return lines
    # Stacked: the first column on lines of its own, the others on the next line, indented by
    # up to 2 columns as the width allows.
    others = [fmt(cells[1:], widths[1:], align[1:]) for cells in (header, ["-" * w for w in widths], *rows)]
    indent = " " * max(0, min(2, width - (rest - 2)))
    lines = [*_wrap(str(header[0]), width), indent + others[0], "-" * (len(indent) + rest - 2)]
    for row, line in zip(rows, others[2:]):
        lines += _wrap(str(row[0]), width)
        lines.append(indent + line)
    return lines


_MIN_WRAPPED_COLUMN = 30  # narrower than this, a wrapped first column takes too many lines


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns (continuations indented by 2); a word longer
    than a line is split."""
    return textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False) or [""]


def terminal_width() -> int:
    """The columns of the terminal `meeple bench` prints to (COLUMNS if set; 80 if unknown; at
    least 40)."""
    return max(shutil.get_terminal_size((80, 24)).columns, 40)  # narrower: wrapped past reading


_KINDS = ("native", "native_2threads", "python_loop",
          *(vector_key(size, t, o) for o in (False, True) for size in VECTOR_SIZES for t in (1, 2)),
          *(paired_key(t, m) for m in MASK_SETTINGS for t in (1, 2)), INTERLEAVED_KEY,
          "mcts", "mcts_2threads", "reference_loop", "bots")


def _order(results: Results, key: str):
    """Table order: meeple games (as benchmarked), then OpenSpiel games; a fixed order of kinds."""
    parts = key.split("/")
    kind = parts[-1]
    rank = _KINDS.index(kind) if kind in _KINDS else len(_KINDS)
    if parts[0] == "openspiel":
        return (1, parts[1], rank, key)
    games = results.games
    return (0, games.index(parts[0]) if parts[0] in games else len(games), rank, key)


def measurement_rows(results: Results) -> list[list[str]]:
    """One row per measurement: n per round (games; VectorGame: steps; MCTS: searches), plies (or
    sims) per n and per round, round time, rate."""
    rows = []
    for meas in sorted(results.measurements.values(), key=lambda m: _order(results, m.key)):
        rate = meas.rate
        per_n = meas.plies / meas.n if meas.n else float("nan")
        rows.append([meas.label, f"{meas.n:,}", f"{per_n:,.1f}", f"{meas.plies:,.0f}", f"{meas.seconds * 1e3:,.2f}",
                     f"{rate:,.0f}", f"{meas.unit}/s", f"{1e9 / rate:,.1f}", str(meas.rounds)])
    return rows


def render(results: Results, markdown: bool = False, width: int | None = None) -> str:
    """The benchmark table: machine header, one row per measurement, then the ratios per game.
    Text wider than `width` columns (None: no limit) is wrapped: `meeple bench` fits the terminal."""
    lines = []
    title = "meeple benchmark" + (f" ({results.source})" if results.source else "")
    m = results.machine or machine_info()
    if markdown:
        lines.append(f"### {title}")
        lines.append("")
        lines += [f"- **{k}**: {v}" for k, v in m.items()]
    else:
        lines.append(title)
        key_width = max(map(len, m), default=0)
        for k, v in m.items():
            lines += _wrap_value(f"  {k:<{key_width}} ", str(v), width)
    lines.append("")

    lines += _table(["measurement", "n/round", "per n", "count/round", "ms/round", "per second", "unit",
                     "ns each", "rounds"], measurement_rows(results), markdown, "lrrrrrlrr", width)
    for game in results.games:
        lines.append("")
        lines.append(f"**ratios: {game}**" if markdown else f"ratios: {game}")
        if markdown:
            lines.append("")
        lines += _table(["ratio", "value", "target", "status"],
                        [list(r) for r in _ratio_rows(results, game)], markdown, "lrll", width)
    if results.notes:
        lines.append("")
        for n in results.notes:
            lines += [f"- {n}"] if markdown else _wrap_value("note: ", n, width)
    return "\n".join(lines)


def _wrap_value(lead: str, text: str, width: int | None) -> list[str]:
    """`lead` then `text`, the text wrapped within `width` columns (None: one line) under itself."""
    if width is None or len(lead) + len(text) <= width:
        return [lead + text]
    return textwrap.wrap(text, max(width, len(lead) + 20), initial_indent=lead, subsequent_indent=" " * len(lead),
                         break_on_hyphens=False)


# --------------------------------------------------------------------------------------------------
# Where the time of the per-move loop goes


def loop_breakdown(game, n_games: int = 200, seed: int = 0, repeats: int = 5) -> list[tuple[str, float, float]]:
    """Per-ply cost (ns) of each part of `protocol_loop`, measured by replaying recorded games.

    Steps, each adding one part to the previous: apply_action(int); apply_action(the object picked
    from legal_actions(), a numpy int32 for meeple); + is_terminal(); + legal_actions(); the full
    loop (+ random.randrange and indexing). Returns [(part, added ns per ply, cumulative ns per ply), ...].
    """
    rng = random.Random(seed)
    games = []
    for _ in range(n_games):
        state = game.new_initial_state()
        picked = []
        while not state.is_terminal():
            legal = state.legal_actions()
            a = legal[rng.randrange(len(legal))]
            picked.append(a)
            state.apply_action(a)
        games.append(picked)
    as_int = [[int(a) for a in g] for g in games]
    plies = sum(len(g) for g in games)

    def replay(seqs):
        for seq in seqs:
            s = game.new_initial_state()
            for a in seq:
                s.apply_action(a)

    def replay_terminal(seqs):
        for seq in seqs:
            s = game.new_initial_state()
            for a in seq:
                s.is_terminal()
                s.apply_action(a)
            s.is_terminal()

    def replay_legal(seqs):
        for seq in seqs:
            s = game.new_initial_state()
            for a in seq:
                s.is_terminal()
                s.legal_actions()
                s.apply_action(a)
            s.is_terminal()

    def best(fn, *args):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn(*args)
            times.append(time.perf_counter() - t0)
        return min(times) / plies * 1e9

    steps = [
        ("new_initial_state + apply_action(int)", best(replay, as_int)),
        ("apply_action(picked element) instead of int", best(replay, games)),
        ("+ is_terminal()", best(replay_terminal, games)),
        ("+ legal_actions()", best(replay_legal, games)),
        ("+ rng.randrange(len(legal)) + legal[i] (= full loop)", best(protocol_loop, game, n_games, seed)),
    ]
    out, previous = [], 0.0
    for name, total in steps:
        out.append((name, total - previous, total))
        previous = total
    return out


def render_breakdown(rows_by_game: dict, markdown: bool = False, width: int | None = None) -> str:
    lines = []
    for name, rows in rows_by_game.items():
        lines.append(f"per-ply cost of the Python loop: {name}")
        if markdown:
            lines.append("")
        lines += _table(["part", "ns/ply (added)", "ns/ply (cumulative)"],
                        [[p, f"{round(d) + 0:,}", f"{round(t):,}"] for p, d, t in rows], markdown, "lrr", width)
        lines.append("")
    return "\n".join(lines).rstrip()


# --------------------------------------------------------------------------------------------------
# The quick benchmark


def run(games=None, quick: bool = False, out=sys.stdout, breakdown: bool = False,
        width: int | None | Literal["terminal"] = "terminal") -> Results:
    """Times every workload for each meeple game (default: all) and prints the table to `out`.

    `quick`: ~0.01 s per round, 3 rounds (a few seconds in all); otherwise ~0.2 s, 5 rounds.
    `width`: the columns the table is wrapped to ("terminal": the terminal's, `terminal_width()`;
    None: not wrapped). Returns the `Results`.
    """
    import meeple

    target, repeats = (0.01, 3) if quick else (0.2, 5)
    games = list(meeple.list_games() if games is None else ([games] if isinstance(games, str) else games))
    results = Results(games=games, machine=machine_info(), source="meeple.bench, quick" if quick
                      else "meeple.bench")
    try:
        from meeple import reference
    except ImportError as exc:
        reference = None  # type: ignore[assignment]
        results.notes.append(f"pure-Python reference skipped: {exc}")
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError as exc:
        pyspiel = None
        results.notes.append(f"OpenSpiel skipped: pyspiel is not importable ({exc})")

    openspiel_games = []
    breakdowns = {}
    for name in games:
        spec = spec_for(name)
        game = meeple.load(name, **spec.params)
        results.state_sizes[name] = _state_size(game)
        for threads in (1, 2):
            key = f"{name}/native" + ("" if threads == 1 else f"_{threads}threads")
            results.add(measure(key, f"{name}: random_playouts, {threads} thread{'s' * (threads > 1)}",
                                functools.partial(native_playouts, game, threads=threads), target, repeats))
        results.add(measure(f"{name}/python_loop", f"{name}: Python protocol loop",
                            lambda n: protocol_loop(game, n), target, repeats))
        for observations in (False, True):
            for size in VECTOR_SIZES:
                for threads in (1, 2):
                    vec = meeple.VectorGame(game, size, seed=0, threads=threads, observations=observations)
                    results.add(measure(f"{name}/{vector_key(size, threads, observations)}",
                                        vector_label(name, size, threads, observations),
                                        functools.partial(vector_steps, vec), target, repeats))
                    del vec
        for masks in MASK_SETTINGS:
            for threads in (1, 2):
                results.add(measure_pair(f"{name}/{paired_key(threads, masks)}", paired_label(name, threads, masks),
                                         vector_native_pair(game, threads, target, masks), repeats))
        results.add(measure_pair(f"{name}/{INTERLEAVED_KEY}", interleaved_label(name),
                                 interleaved_native_pair(game, target), repeats))
        state = game.new_initial_state()
        for threads in (1, 2):
            results.add(measure(f"{name}/{mcts_key(threads)}", mcts_label(name, spec.mcts_simulations, threads),
                                functools.partial(mcts_searches, game, state, spec.mcts_simulations, threads),
                                target, repeats, unit="sims"))
        if reference is not None:
            if name in reference.list_games():
                ref_game = reference.load(name, **spec.params)
                results.add(measure(f"{name}/reference_loop", f"{name}: pure-Python reference loop",
                                    lambda n: protocol_loop(ref_game, n), target, repeats))
            else:
                results.notes.append(f"{name}: no pure-Python reference yet")
        if breakdown:
            breakdowns[name] = loop_breakdown(game, 40 if quick else 400)
        openspiel_games += [og for og in spec.openspiel if og not in openspiel_games]
    if pyspiel is not None:
        for og in openspiel_games:
            os_game = pyspiel.load_game(og)
            results.add(measure(f"openspiel/{og}/python_loop", f"OpenSpiel {og}: pyspiel Python loop",
                                lambda n: protocol_loop(os_game, n), target, repeats))
            results.add(measure(f"openspiel/{og}/bots", f"OpenSpiel {og}: C++ random bots (evaluate_bots)",
                                lambda n: openspiel_bots(os_game, n), target, repeats))
            results.add(measure(f"openspiel/{og}/mcts", openspiel_mcts_label(og),
                                lambda n: openspiel_mcts(os_game, OPENSPIEL_MCTS_SIMULATIONS, n), target, repeats,
                                unit="sims"))
            if breakdown:
                breakdowns[f"OpenSpiel {og}"] = loop_breakdown(os_game, 40 if quick else 400)
    if width == "terminal":
        width = terminal_width()
    print(render(results, width=width), file=out)
    if breakdown:
        print("", file=out)
        print(render_breakdown(breakdowns, width=width), file=out)
    return results


def _state_size(game) -> int | None:
    state = game.new_initial_state()
    size = getattr(type(state), "state_size_bytes", None)
    return size if isinstance(size, int) else getattr(state, "state_size_bytes", None)


if __name__ == "__main__":  # pragma: no cover
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    run(args.games or None, quick=args.quick, breakdown=args.breakdown)
