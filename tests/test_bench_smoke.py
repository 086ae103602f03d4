"""`meeple.bench.run(quick=True)` runs on a tiny budget and prints every expected row.

No speed is asserted: the numbers depend on the machine. See bench/ for the real benchmarks.
"""
import importlib.util
import io
import os
import time

import pytest

import meeple
import meeple.bench as mbench


def test_quick_bench_prints_every_row():
    out = io.StringIO()
    t0 = time.perf_counter()
    results = mbench.run(quick=True, out=out, width=None)  # one line a row: the labels whole
    elapsed = time.perf_counter() - t0
    text = out.getvalue()

    # A guard against a quick run that is not quick (a calibration gone wrong), not a speed test:
    # 5-15 s on a 2-core machine, 37 s once on a CI run sharing its 2 cores with other work.
    assert elapsed < 120, f"quick bench took {elapsed:.1f} s"
    for key in ("cpu", "cores", "python", "numpy", "meeple", "open_spiel"):
        assert key in results.machine
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (usable or 1) > 1:
        assert results.machine["cross-core round trip"].endswith(" ns")  # measured, not "unknown"
    has_reference = importlib.util.find_spec("meeple.reference") is not None
    has_pyspiel = importlib.util.find_spec("pyspiel") is not None
    for game in meeple.list_games():
        spec = mbench.spec_for(game)
        assert f"ratios: {game}" in text
        for label in ("random_playouts, 1 thread", "random_playouts, 2 threads", "Python protocol loop"):
            assert f"{game}: {label}" in text
        for row in ("random_playouts, 1 thread (M plies/s)",
                    f"random_playouts / OpenSpiel C++ random bots ({spec.baseline})",
                    f"Python loop / pyspiel Python loop ({spec.baseline})",
                    "random_playouts / reference loop (whole random games)",
                    "Python loop / reference loop (whole random games)",
                    "sizeof(State) (bytes)"):
            assert row in text
        for kind in ("native", "native_2threads", "python_loop"):
            m = results.measurements[f"{game}/{kind}"]
            assert m.plies > 0 and m.seconds > 0 and m.rate > 0
        for threads in (1, 2):  # the VectorGame target, from alternating rounds
            paired = results.measurements[f"{game}/{mbench.paired_key(threads)}"]
            assert paired.extra["paired_ratio_q1"] <= paired.extra["paired_ratio"] <= paired.extra["paired_ratio_q3"]
            assert paired.extra["paired_ratio"] > 0 and paired.rate > 0
            assert (f"VectorGame n=1024 (observations=False) / random_playouts, {threads} thread"
                    f"{'s' * (threads > 1)}, alternating rounds") in text
            # 2-thread rounds carry the cross-core round trip measured before each round.
            assert ("round_trip_ns_min" in paired.extra) == (threads > 1)
            if threads > 1:
                assert 0 < paired.extra["round_trip_ns_min"] <= paired.extra["round_trip_ns_max"]
        for threads in (1, 2):  # packed masks: no target
            packed = results.measurements[f"{game}/{mbench.paired_key(threads, masks='packed')}"]
            assert packed.extra["paired_ratio"] > 0 and "masks='packed'" in packed.label
            assert (f"VectorGame n=1024 (observations=False, masks='packed': bits) / random_playouts, "
                    f"{threads} thread{'s' * (threads > 1)}, alternating rounds") in text
        for threads in (1, 2):  # VectorGame as random rollouts use it: no target
            rollout = results.measurements[f"{game}/{mbench.paired_key(threads, masks=False)}"]
            assert rollout.extra["paired_ratio"] > 0 and "masks=False" in rollout.label
            assert (f"VectorGame n=1024 (observations=False, masks=False: random rollouts) / random_playouts, "
                    f"{threads} thread{'s' * (threads > 1)}, alternating rounds") in text
        ceiling = results.measurements[f"{game}/{mbench.INTERLEAVED_KEY}"]  # no target: a diagnostic
        assert ceiling.extra["paired_ratio"] > 0 and ceiling.plies == 1024 * ceiling.n
        assert "games interleaved one ply at a time, no outputs / random_playouts" in text
        assert results.state_sizes[game] == type(meeple.load(game).new_initial_state()).state_size_bytes
        assert results.state_sizes[game] > 0
        if has_reference:
            from meeple import reference

            if game in reference.list_games():
                assert f"{game}: pure-Python reference loop" in text
                assert results.measurements[f"{game}/reference_loop"].rate > 0
    if has_pyspiel:
        for og in ("oware", "mancala"):
            assert f"OpenSpiel {og}: pyspiel Python loop" in text
            assert f"OpenSpiel {og}: C++ random bots (evaluate_bots)" in text
            assert results.measurements[f"openspiel/{og}/bots"].rate > 0
    else:
        assert "OpenSpiel skipped" in text
    # What `meeple bench` prints in an 80-column terminal: the same words, wrapped.
    narrow = mbench.render(results, width=80)
    assert max(map(len, narrow.splitlines())) <= 80
    words = [w for w in narrow.split() if w.strip("-")]  # all but the rules under the headers
    for m in results.measurements.values():  # labels on lines of their own, numbers below
        assert " ".join(m.label.split()) in " ".join(words)
    assert sorted(words) == sorted(w for w in mbench.render(results).split() if w.strip("-"))


def _first_column(lines: list[str], width: int) -> list[str]:
    """The first-column texts of a table wrapped in place: a line that starts with two spaces
    continues the row above."""
    texts: list[str] = []
    for line in lines[2:]:
        if line.startswith("  "):
            texts[-1] += " " + line.strip()
        else:
            texts.append(line[:width].strip())
    return texts


def test_tables_fit_a_width():
    """Text tables wider than the width wrap their first column: in place while the other
    columns leave it 30 columns, else on lines of their own above the row's other columns."""
    header = ["ratio", "value", "status"]
    rows = [["a short one", "1.00x", "met"],
            ["VectorGame n=1024 (observations=False) / random_playouts, 2 threads, alternating rounds",
             "0.77x", "MISSED"],
            ["an_unbroken_name_longer_than_any_line_of_the_table_can_hold_at_all", "12.5x", ""]]
    natural = mbench._table(header, rows, False, "lrl")
    assert len(natural) == 2 + len(rows) and natural == mbench._table(header, rows, False, "lrl", 200)
    for width in (45, 60):  # 30 and 45 columns for the names: wrapped in place
        lines = mbench._table(header, rows, False, "lrl", width)
        assert max(map(len, lines)) <= width and len(lines) > len(natural)
        first = width - len("  0.77x  MISSED")
        assert [t.replace(" ", "") for t in _first_column(lines, first)] == [r[0].replace(" ", "") for r in rows]
        assert lines[3].endswith("0.77x  MISSED") and lines[3].startswith("VectorGame n=1024")
    for width in (30, 44):  # 15 and 29 columns for the names: stacked
        stacked = mbench._table(header, rows, False, "lrl", width)
        assert max(map(len, stacked)) <= width
        assert stacked[:5] == ["ratio", "  value  status", "-" * 15, "a short one", "  1.00x  met"]
        assert stacked[-1] == "  12.5x" and stacked[-2] != "  0.77x  MISSED"
        assert "".join(line.strip() for line in stacked[stacked.index("  0.77x  MISSED") + 1:-1]) == rows[2][0]
    tight = mbench._table(header, rows, False, "lrl", 14)  # the numbers' line, 13 wide, indented by 1
    assert max(map(len, tight)) <= 14 and tight[1:3] == [" value  status", "-" * 14] and " 1.00x  met" in tight
    md = mbench._table(header, rows, True, "lrl", 30)  # markdown is never wrapped
    assert md == mbench._table(header, rows, True, "lrl")


def test_workloads_count_plies_exactly():
    game = meeple.load("abacuachego")
    playouts = meeple.random_playouts(game, 5, seed=4)
    assert mbench.native_playouts(game, 5, 4) == int(playouts.lengths.sum())
    # the Python loop is deterministic for a seed and counts every applied action
    assert mbench.protocol_loop(game, 3, seed=1) == mbench.protocol_loop(game, 3, seed=1) > 0
    # one ply per game and round, games replaced as they end (80 rounds outlast a 2x2 game)
    short = meeple.load("abacuachego", pits_per_row=2, seeds_per_pit=1)
    assert mbench.interleaved_playouts(short, 80, n=7) == 7 * 80
    for bad in ({"n": 0, "rounds": 1}, {"n": 1, "rounds": -1}):
        with pytest.raises(ValueError):
            short._interleaved_playouts(**bad)


def test_render_markdown_and_missing_measurements():
    results = mbench.Results(games=["abacuachego"], machine={"cpu": "test"})
    results.add(mbench.Measurement("abacuachego/native", "abacuachego: random_playouts, 1 thread",
                                   plies=1000, seconds=0.001, n=10))
    results.state_sizes["abacuachego"] = 56
    text = mbench.render(results, markdown=True)
    assert "| abacuachego: random_playouts, 1 thread |" in text
    assert "| random_playouts, 1 thread (M plies/s) | 1.00 M | >= 30 M | MISSED |" in text
    assert "| random_playouts / reference loop (whole random games) | n/a |" in text
    assert "| sizeof(State) (bytes) | 56 |" in text


def test_paired_ratio_carries_the_vector_target():
    """With a paired measurement, the VectorGame target is judged on it; the ratio of separate
    runs is still shown, without the target."""
    results = mbench.Results(games=["abacuachego"], machine={"cpu": "test"})
    results.add(mbench.Measurement("abacuachego/native", "native", plies=1000, seconds=0.001, n=10))
    results.add(mbench.Measurement("abacuachego/vector_1024_noobs", "vector", plies=500, seconds=0.001, n=1))
    ratios = [(0.9, 1024, 0.01), (0.7, 1024, 0.02), (0.85, 1024, 0.03), (0.8, 1024, 0.04)]
    info = mbench.paired_summary(ratios)
    assert info["paired_ratio"] == 0.825 and info["plies"] == 1024 and info["seconds"] == 0.025
    results.add(mbench.Measurement("abacuachego/vector_paired", "paired", info["plies"], info["seconds"],
                                   4, 1, info))
    two = mbench.paired_summary([(0.6, 1024, 0.01, 350.0), (0.8, 1024, 0.01, 41.5), (0.7, 1024, 0.01, 60.0)])
    results.add(mbench.Measurement("abacuachego/vector_paired_2threads", "paired", 1024, 0.01, 3, 1, two))
    text = mbench.render(results, markdown=True)
    assert "| VectorGame n=1024 (observations=False) / random_playouts, 1 thread, alternating rounds " in text
    assert ("2 threads, alternating rounds (median; quartiles 0.60-0.80; cross-core round trip 42-350 ns) "
            "| 0.70x |") in text
    assert "| 0.82x | >= 0.8x | met |" in text
    assert ("| VectorGame n=1024 (observations=False) / random_playouts, 1 thread, separate runs | 0.50x |"
            "  |  |") in text
