#!/usr/bin/env python
"""Runs the pytest-benchmark suite in bench/ once and prints plies/s and the ratios that matter.

    python bench/report.py                  # run `pytest bench` (~15-30 s), then print the table
    python bench/report.py --markdown       # the same as a markdown table
    python bench/report.py --json run.json  # read an existing pytest-benchmark JSON instead
    python bench/report.py --save run.json  # keep the JSON of this run
    python bench/report.py --breakdown      # also time each part of the Python per-move loop

All numbers in one table come from the same run. Plies/s = extra_info["plies"] (plies per round,
counted exactly; see bench/conftest.py) / the round time statistic (--stat, default the median).
The table is rendered by `meeple.bench.render`, the same code as `meeple bench`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent

try:
    import meeple
except ImportError:  # running from a checkout without PYTHONPATH=python
    sys.path.insert(0, str(ROOT / "python"))
    import meeple

from meeple import bench as mbench  # noqa: E402


def run_pytest(json_path: Path, pytest_args: list[str]) -> list[str]:
    """Runs `pytest bench` writing `json_path`; returns the skip notes from its summary."""
    env = dict(os.environ)
    package_parent = str(Path(meeple.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "pytest", str(BENCH_DIR), "-q", "-rs", "-p", "no:cacheprovider",
           f"--benchmark-json={json_path}", *pytest_args]
    print("running:", " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not json_path.exists():
        sys.stderr.write(proc.stdout[-6000:] + proc.stderr[-4000:])
        raise SystemExit(f"pytest bench failed (exit {proc.returncode})")
    notes = []
    for line in proc.stdout.splitlines():
        m = re.match(r"SKIPPED \[\d+\] (.*)", line.strip())
        if m:
            notes.append("skipped: " + m.group(1))
    return notes


def results_from_json(data: dict, stat: str = "median", source: str = "") -> mbench.Results:
    results = mbench.Results(source=source)
    info = data.get("machine_info", {})
    results.machine = info.get("meeple") or {
        "cpu": info.get("cpu", {}).get("brand_raw", "unknown"),
        "python": f"{info.get('python_implementation', '')} {info.get('python_version', '')}".strip(),
    }
    if data.get("datetime"):
        results.machine = {**results.machine, "run at": data["datetime"]}
    for b in data.get("benchmarks", []):
        extra = b.get("extra_info", {})
        if "key" not in extra or "plies" not in extra:
            continue
        stats = b["stats"]
        results.add(mbench.Measurement(extra["key"], extra.get("label", b["name"]), extra["plies"],
                                       stats[stat], stats["rounds"], extra.get("games", 0), extra))
        if extra.get("kind") == "meeple":
            game = extra["game"]
            if game not in results.games:
                results.games.append(game)
            if extra.get("state_size_bytes") is not None:
                results.state_sizes[game] = extra["state_size_bytes"]
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1].strip())
    parser.add_argument("--json", type=Path, help="read this pytest-benchmark JSON instead of running")
    parser.add_argument("--save", type=Path, help="keep the JSON of this run here")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--stat", default="median", choices=["median", "mean", "min", "max"],
                        help="round-time statistic turned into plies/s (default: median)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time each part of the Python per-move loop (in this process)")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest (after --)")
    args = parser.parse_args(argv)

    notes = []
    if args.json:
        json_path = args.json
        source = f"from {json_path}"
    else:
        if args.save:
            json_path = args.save
        else:
            json_path = Path(tempfile.mkdtemp(prefix="meeple-bench-")) / "bench.json"
        notes = run_pytest(json_path, args.pytest_args)
        source = "pytest bench"
    data = json.loads(Path(json_path).read_text())
    results = results_from_json(data, args.stat, f"{source}; plies/s from the {args.stat} round")
    results.notes += notes
    print(mbench.render(results, markdown=args.markdown))
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
