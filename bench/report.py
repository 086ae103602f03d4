#!/usr/bin/env python
"""Runs the pytest-benchmark suite in bench/ once and prints plies/s, sims/s and the ratios that matter.

    python bench/report.py                  # run `pytest bench` (~1.5 min), then print the table
    python bench/report.py --write          # ... and write bench/REPORT.md and bench/report.png
    python bench/report.py --markdown       # the same as a markdown table
    python bench/report.py --json run.json  # read an existing (merged) pytest-benchmark JSON instead
    python bench/report.py --save run.json  # keep the JSON of this run
    python bench/report.py --breakdown      # also time each part of the Python per-move loop

All numbers in one table come from the same run: one pytest process per meeple game (so that a crash
in one engine loses only that game's rows, noted in the report) and one for OpenSpiel, one after the
other. Rate = extra_info["plies"] (plies, or MCTS simulations when extra_info["unit"] is "sims", per
round, counted exactly; see bench/conftest.py) / the round time statistic (--stat, default the
median). The tables are rendered by `meeple.bench`, the same code as `meeple bench`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent

try:
    import meeple
except ImportError:  # running from a checkout without PYTHONPATH=python
    sys.path.insert(0, str(ROOT / "python"))
    import meeple

from meeple import bench as mbench  # noqa: E402


def run_pytest(json_path: Path, pytest_args: list[str], env_extra: dict | None = None) -> tuple[int, list[str]]:
    """Runs `pytest bench` writing `json_path`; returns (exit code, the skip notes from its summary)."""
    env = dict(os.environ)
    package_parent = str(Path(meeple.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    env.update(env_extra or {})
    cmd = [sys.executable, "-m", "pytest", str(BENCH_DIR), "-q", "-rs", "-p", "no:cacheprovider",
           f"--benchmark-json={json_path}", *pytest_args]
    shown = " ".join(f"{k}={v}" for k, v in (env_extra or {}).items())
    print("running:", shown, " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not json_path.exists():
        sys.stderr.write(proc.stdout[-6000:] + proc.stderr[-4000:])
    notes = []
    for line in proc.stdout.splitlines():
        m = re.match(r"SKIPPED \[\d+\] (.*)", line.strip())
        if m and "got empty parameter set" not in m.group(1):  # a test for another group
            notes.append("skipped: " + m.group(1))
    return proc.returncode, notes


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


def run_groups(pytest_args: list[str], env_extra: dict) -> tuple[dict, list[str]]:
    """One pytest per meeple game, then one for OpenSpiel; returns (merged JSON, notes)."""
    groups = [(game, {"MEEPLE_BENCH_GAMES": game, "MEEPLE_BENCH_OPENSPIEL": "0"}) for game in meeple.list_games()]
    groups.append(("OpenSpiel", {"MEEPLE_BENCH_GAMES": "", "MEEPLE_BENCH_OPENSPIEL": "1"}))
    merged: dict = {}
    notes: list[str] = []
    round_trips = []  # each group's, measured as it started: the host may move the cores meanwhile
    tmp = Path(tempfile.mkdtemp(prefix="meeple-bench-"))
    for name, env in groups:
        path = tmp / f"{name}.json"
        code, group_notes = run_pytest(path, pytest_args, {**env_extra, **env})
        notes += group_notes
        if code == 5:  # pytest: no test selected (e.g. -k chose no OpenSpiel benchmark)
            continue
        if not path.exists() or not path.read_text().strip():
            notes.append(f"{name}: pytest bench failed ({_exit_text(code)}); its measurements are missing")
            continue
        if code != 0:
            notes.append(f"{name}: pytest bench failed ({_exit_text(code)}); some measurements may be missing")
        data = json.loads(path.read_text())
        trip = data.get("machine_info", {}).get("meeple", {}).get("cross-core round trip")
        if trip:
            round_trips.append(f"{trip} ({name})")
        if not merged:
            merged = data
        else:
            merged["benchmarks"] += data.get("benchmarks", [])
    if not merged:
        raise SystemExit("pytest bench failed for every group")
    if round_trips:
        merged["machine_info"]["meeple"]["cross-core round trip"] = ", ".join(round_trips)
    return merged, notes


def results_from_json(data: dict, stat: str = "median", source: str = "") -> mbench.Results:
    results = mbench.Results(source=source)
    info = data.get("machine_info", {})
    results.machine = info.get("meeple") or {
        "cpu": info.get("cpu", {}).get("brand_raw", "unknown"),
        "python": f"{info.get('python_implementation', '')} {info.get('python_version', '')}".strip(),
    }
    if data.get("datetime") and "date" not in results.machine:
        results.machine = {**results.machine, "run at": data["datetime"]}
    for b in data.get("benchmarks", []):
        extra = b.get("extra_info", {})
        if "key" not in extra or "plies" not in extra:
            continue
        stats = b["stats"]
        # A paired measurement times a pair of rounds; it carries its VectorGame round time itself.
        seconds = extra.get("seconds", stats[stat])
        results.add(mbench.Measurement(extra["key"], extra.get("label", b["name"]), extra["plies"],
                                       seconds, stats["rounds"], extra.get("games", 0), extra,
                                       extra.get("unit", "plies")))
        if extra.get("kind") == "meeple":
            game = extra["game"]
            if game not in results.games:
                results.games.append(game)
            if extra.get("state_size_bytes") is not None:
                results.state_sizes[game] = extra["state_size_bytes"]
    return results


def write_report(results: mbench.Results, path: Path, figure: Path | None, settings: str,
                 note: str | None = None) -> None:
    """bench/REPORT.md: the targets (met / MISSED), then every ratio and measurement, one run."""
    m = results.machine
    lines = [
        "# meeple benchmark report",
        "",
        f"One run of `python bench/report.py --write` on {m.get('date', '?')}: {settings}. Every number "
        "below comes from this run. Regenerate with the same command; the numbers depend on the machine.",
        "",
        f"**Machine**: {m.get('cpu', '?')}, {m.get('cores', '?')}; {m.get('platform', '?')}; "
        f"Python {m.get('python', '?')}, numpy {m.get('numpy', '?')}, meeple {m.get('meeple', '?')}, "
        f"open_spiel {m.get('open_spiel', '?')}.",
        "",
        f"**Load**: {m.get('load', 'unknown')} when the run started"
        + (f", {m['load at end']} at its end" if "load at end" in m else "") + ".",
        "",
        f"**Cross-core round trip** (a cache line to a second thread and back, as each group started; "
        f"the 2-thread rows depend on it): {m.get('cross-core round trip', 'unknown')}.",
        "",
        *([f"**Note**: {note}", ""] if note else []),
        "## Targets",
        "",
        mbench.render_targets(results, markdown=True),
        "",
    ]
    if figure is not None:
        lines += [f"![plies/s and sims/s of every measurement, log scale]({figure.name})", ""]
    lines += ["## All measurements and ratios", "", mbench.render(results, markdown=True), ""]
    path.write_text("\n".join(lines))


_COLORS = {"native": "#1f77b4", "vector": "#17becf", "vector_noobs": "#9edae5", "python_loop": "#ff7f0e", "reference_loop": "#d62728",
           "mcts": "#2ca02c", "openspiel": "#7f7f7f"}


def _color(key: str) -> str:
    if key.startswith("openspiel/"):
        return _COLORS["openspiel"]
    kind = key.split("/")[-1]
    if kind.startswith("vector") and ("noobs" in kind or "paired" in kind):  # paired: observations=False
        return _COLORS["vector_noobs"]
    for prefix in ("native", "vector", "mcts"):
        if kind.startswith(prefix):
            return _COLORS[prefix]
    return _COLORS.get(kind, "#9467bd")


def _human(rate: float) -> str:
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if rate >= scale:
            return f"{rate / scale:.3g}{suffix}"
    return f"{rate:.3g}"


def write_figure(results: mbench.Results, path: Path) -> None:
    """bench/report.png: log-scale horizontal bars of plies/s (top) and sims/s (bottom)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    ordered = sorted(results.measurements.values(), key=lambda m: mbench._order(results, m.key))
    panels = [(unit, [m for m in ordered if m.unit == unit]) for unit in ("plies", "sims")]
    panels = [(unit, ms) for unit, ms in panels if ms]
    heights = [len(ms) for _, ms in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 0.26 * sum(heights) + 2.2),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, (unit, ms) in zip(axes[:, 0], panels):
        y = list(range(len(ms)))[::-1]
        rates = [m.rate for m in ms]
        ax.barh(y, rates, color=[_color(m.key) for m in ms], height=0.75)
        ax.set_yticks(y)
        ax.set_yticklabels([m.label for m in ms], fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel(f"{unit} per second (log scale)")
        ax.grid(axis="x", which="both", alpha=0.3)
        for yi, rate in zip(y, rates):
            ax.text(rate, yi, " " + _human(rate), va="center", fontsize=6)
        ax.set_xlim(right=max(rates) * 8)
    m = results.machine
    axes[0, 0].set_title(f"meeple benchmark, {m.get('date', '')}: {m.get('cpu', '')}, {m.get('cores', '')} "
                         f"(shared), Python {m.get('python', '')}", fontsize=9)
    legend = [Patch(color=c, label=label) for label, c in (
        ("random_playouts (C++)", _COLORS["native"]), ("VectorGame, observations=False", _COLORS["vector_noobs"]),
        ("VectorGame, with observations", _COLORS["vector"]),
        ("Python protocol loop", _COLORS["python_loop"]), ("pure-Python reference", _COLORS["reference_loop"]),
        ("MCTS (C++)", _COLORS["mcts"]), ("OpenSpiel", _COLORS["openspiel"]))]
    axes[-1, 0].legend(handles=legend, fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1].strip())
    parser.add_argument("--json", type=Path, help="read this pytest-benchmark JSON instead of running")
    parser.add_argument("--save", type=Path, help="keep the JSON of this run here")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--write", action="store_true",
                        help="write bench/REPORT.md and bench/report.png (needs matplotlib)")
    parser.add_argument("--note", help="a remark printed at the top of REPORT.md (e.g. about the machine)")
    parser.add_argument("--target", type=float, default=None,
                        help="seconds per round (default: MEEPLE_BENCH_TARGET or 0.1)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default: MEEPLE_BENCH_ROUNDS or 10)")
    parser.add_argument("--stat", default="median", choices=["median", "mean", "min", "max"],
                        help="round-time statistic turned into a rate (default: median)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time each part of the Python per-move loop (in this process)")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest (after --)")
    args = parser.parse_args(argv)

    target = args.target or float(os.environ.get("MEEPLE_BENCH_TARGET", "0.1"))
    rounds = args.rounds or int(os.environ.get("MEEPLE_BENCH_ROUNDS", "10"))
    notes = []
    start = time.perf_counter()
    if args.json:
        data = json.loads(args.json.read_text())
        source = f"from {args.json}"
    else:
        # numpy's OpenBLAS keeps an idle worker thread spinning in every process that imports it; on
        # a 2-core machine it takes a core from 2-thread measurements. meeple uses no BLAS, so the
        # benchmark processes run with one BLAS thread (unless the caller set it).
        blas = {k: os.environ.get(k, "1") for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
        data, notes = run_groups(args.pytest_args, {"MEEPLE_BENCH_TARGET": str(target),
                                                    "MEEPLE_BENCH_ROUNDS": str(rounds), **blas})
        data.setdefault("machine_info", {}).setdefault("meeple", {})["load at end"] = \
            mbench.machine_info()["load"].removeprefix("load average ")
        if args.save:
            args.save.write_text(json.dumps(data, indent=1))
        source = "pytest bench"
    results = results_from_json(data, args.stat, f"{source}; rates from the {args.stat} round")
    results.notes += notes
    print(mbench.render(results, markdown=args.markdown, width=None if args.markdown else mbench.terminal_width()))
    if args.write:
        figure = BENCH_DIR / "report.png"
        try:
            write_figure(results, figure)
        except ImportError as e:
            print(f"report.png not written: {e} (pip install matplotlib)", file=sys.stderr)
            figure = None
        settings = (f"pytest-benchmark, {rounds} rounds of ~{target:g} s per measurement after calibration, "
                    f"rates from the {args.stat} round; the whole run took {time.perf_counter() - start:.0f} s")
        write_report(results, BENCH_DIR / "REPORT.md", figure, settings, args.note)
        print(f"wrote {BENCH_DIR / 'REPORT.md'}" + (f" and {figure}" if figure else ""), file=sys.stderr)
    if args.breakdown:
        rows = {}
        for name in results.games or meeple.list_games():
            rows[name] = mbench.loop_breakdown(meeple.load(name, **mbench.spec_for(name).params), 400)
        try:
            import pyspiel

            for og in sorted({og for g in rows for og in mbench.spec_for(g).openspiel}):
                rows[f"OpenSpiel {og}"] = mbench.loop_breakdown(pyspiel.load_game(og), 400)
        except ImportError:
            pass
        print()
        print(mbench.render_breakdown(rows, markdown=args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
