"""Benchmark: Bananagrams as played: seeded solo games, the full bag, --compact.

    python benchmarks/banana_game.py [--quick]

1. games: seeds 0..G-1, solo (21-tile opening, one tile per peel); % finished
   (anchor: BGSolver 77.5%), median peel seconds and tiles moved per peel,
   pooled over every peel of every game, and how often each peel stage
   (attach, repair, resolve) and a dump was needed. Every step is validated
   by the game.
2. full bag: seeds 0..B-1, the backtracker's solve and the whole process
   (`python -m cpmodel banana --draw 144 --seed S --json`, timed from outside).
   Drawing 144 tiles takes the whole bag, so every seed holds the same hand:
   the runs are repeats that show the timing's spread, not different hands.
3. compact: seeds 0..K-1, 21-tile hands: bounding-box area after --compact
   over the default layout's, seconds per hand, how many proven smallest.

The machine is shared, so beside wall seconds it records CPU seconds (the
solve's process time; the child's rusage for the whole process) and the load
average: the targets are in wall seconds, the CPU figures show how much of a
miss is the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import BananaSpec, draw_hand
from cpmodel.models import bananagrams as cpsat
from heuristics import bananagrams as backtrack
from heuristics.game import DUMP, PEEL, play


def games(table, count: int) -> dict:
    finished, peel_seconds, moved, stages, unfinished, dumped, game_seconds = 0, [], [], Counter(), [], [], []
    for seed in range(count):
        game = play(table, seed)
        finished += game.finished
        if not game.finished:
            unfinished.append(seed)
        peels = [s for s in game.steps if s.action == PEEL]
        peel_seconds += [s.seconds for s in peels]
        moved += [s.moved for s in peels]
        stages.update(s.stage for s in peels)
        if any(s.action == DUMP for s in game.steps):
            dumped.append(seed)
        game_seconds.append(sum(s.seconds for s in game.steps))
    return {"games": count, "finished": finished, "finished_pct": round(100 * finished / count, 1),
            "unfinished_seeds": unfinished, "seeds_with_dumps": dumped,
            "median_peel_s": round(statistics.median(peel_seconds), 4),
            "p95_peel_s": round(sorted(peel_seconds)[int(0.95 * (len(peel_seconds) - 1))], 4),
            "median_moved": statistics.median(moved), "mean_moved": round(statistics.mean(moved), 3),
            "peels": len(peel_seconds), "peel_stages": dict(stages),
            "median_game_s": round(statistics.median(game_seconds), 2)}


def full_bag(table, count: int) -> dict:
    solve_s, solve_cpu, process_s, process_cpu, nodes, valid = [], [], [], [], [], 0
    for seed in range(count):
        hand = draw_hand(144, seed)
        cpu = time.process_time()
        view = table.restrict(hand)  # part of the solve: the words the hand can spell
        result = backtrack.solve(BananaSpec(hand, tuple(view.words)), "free", Control(time_limit=60), table=view)
        solve_cpu.append(time.process_time() - cpu)
        valid += result.status == "found"  # solve() validates before it reports found
        solve_s.append(result.seconds)
        nodes.append(result.stats["nodes"])
        seconds, cpu_seconds, doc = whole_process(seed)
        process_s.append(seconds)
        process_cpu.append(cpu_seconds)
        assert doc["status"] == "found", doc
    return {"bags": count, "valid": valid, "solve_median_s": round(statistics.median(solve_s), 3),
            "solve_max_s": round(max(solve_s), 3), "solve_median_cpu_s": round(statistics.median(solve_cpu), 3),
            "solve_median_nodes": statistics.median(nodes),
            "process_median_s": round(statistics.median(process_s), 3), "process_max_s": round(max(process_s), 3),
            "process_median_cpu_s": round(statistics.median(process_cpu), 3)}


def whole_process(seed: int) -> tuple[float, float, dict]:
    """Wall and CPU seconds of `python -m cpmodel banana --draw 144 --seed S --json`, and its JSON."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpmodel", "banana", "--draw", "144", "--seed", str(seed), "--json"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, json.loads(proc.stdout)


def compact(table, count: int, limit: float) -> dict:
    ratios, seconds, proven, over = [], [], 0, 0
    for seed in range(count):
        hand = draw_hand(21, seed)
        view = table.restrict(hand)
        spec = BananaSpec(hand, tuple(view.words))
        default = backtrack.solve(spec, "free", Control(time_limit=10), table=view).solutions[0]
        result = cpsat.compact(spec, default, Control(time_limit=limit), table=view)
        ratios.append(result.stats["area"] / (len(default) * len(default[0])))
        seconds.append(result.seconds)
        over += result.seconds > limit + 0.5  # the clock is polled, so allow half a second
        proven += result.stats["optimum_proven"]
    return {"hands": count, "time_limit_s": limit, "median_area_ratio": round(statistics.median(ratios), 3),
            "max_area_ratio": round(max(ratios), 3), "median_s": round(statistics.median(seconds), 2),
            "max_s": round(max(seconds), 2), "hands_over_limit": over, "proven_smallest": proven}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 games, 3 bags, 3 compact hands at 5 s")
    parser.add_argument("--out", default=None, help="JSON results (default: results/banana_game.json, .quick.json with --quick)")
    args = parser.parse_args()
    args.out = args.out or str(Path(__file__).parent / "results" / f"banana_game{'.quick' if args.quick else ''}.json")
    table = backtrack.WordTable.of_lexicon(load_default().words)
    sizes = (10, 3, 3, 5.0) if args.quick else (100, 10, 20, 20.0)
    load_before = os.getloadavg()[0]
    doc = {"quick": args.quick, "games": games(table, sizes[0]), "full_bag": full_bag(table, sizes[1]),
           "compact": compact(table, sizes[2], sizes[3]),
           "load_average_1min": {"start": round(load_before, 2), "end": round(os.getloadavg()[0], 2)}, "cores": os.cpu_count()}
    view = Table(title="Bananagrams as played (seeded; every layout validated)")
    view.add_column("case")
    view.add_column("measured")
    view.add_column("target")
    g, b, c = doc["games"], doc["full_bag"], doc["compact"]
    view.add_row(f"{g['games']} solo games finished", f"{g['finished_pct']}%", "≥ 95% (anchor 77.5%)")
    view.add_row("median peel", f"{1000 * g['median_peel_s']:.1f} ms over {g['peels']} peels", "≤ 50 ms")
    view.add_row("median tiles moved per peel", f"{g['median_moved']} (mean {g['mean_moved']})", "≤ 3")
    view.add_row("peel stages · games with a dump", f"{g['peel_stages']} · {len(g['seeds_with_dumps'])}", "")
    view.add_row(f"full bag, {b['bags']} seeds", f"{b['valid']} valid · solve {b['solve_median_s']} s (CPU {b['solve_median_cpu_s']} s) · "
                 f"process {b['process_median_s']} s (CPU {b['process_median_cpu_s']} s)",
                 "all valid · ≤ 1.0 s · ≤ 2.5 s (Rust 0.76 s)")
    view.add_row(f"--compact, {c['hands']} 21-tile hands", f"area ×{c['median_area_ratio']} (max ×{c['max_area_ratio']}) · "
                 f"median {c['median_s']} s, max {c['max_s']} s · {c['proven_smallest']} proven smallest",
                 f"≤ 0.6× within {c['time_limit_s']:.0f} s")
    view.caption = f"load average {doc['load_average_1min']['start']} → {doc['load_average_1min']['end']} on {doc['cores']} cores"
    Console(width=160).print(view)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2))
    Console().print(f"wrote {out}")


if __name__ == "__main__":
    main()
