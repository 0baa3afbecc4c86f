"""Benchmark: grid word search speed, and the search for a high-scoring board.

    python benchmarks/grid.py [--quick] [--boards 500] [--anneal-seconds 300] [--seed 1]

1. Scoring random boards rolled from the classic dice (seeded): the
   score-only walk used by the annealing against the full search that keeps
   every word's best path, side by side on the same boards.
2. ``--best 4x4``: simulated annealing against plain hill climbing (the same
   search with temperature 0), same seed, same time budget, on the default
   lexicon. Reports the best score and when each reached 3,000 points.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.lexicon import load_default
from cpmodel.core.scoring import score_table
from heuristics import grid
from heuristics.words import build_trie


def scoring_speed(trie, boards: int, seed: int) -> list[dict]:
    table = score_table("boggle")
    adjacent, points = grid.neighbours(4, 4), grid.points_by_length(table)
    rolled = [grid.roll_dice(seed + k) for k in range(boards)]
    rows = []
    for name, score in [
        ("score only (annealing objective)", lambda b: grid.boggle_total([t.text for t in b.tiles], adjacent, trie, points)),
        ("all words with paths (grid command)", lambda b: sum(w.score for w in grid.find_words(b, trie, table))),
    ]:
        times, totals = [], []
        for board in rolled:
            started = time.perf_counter()
            totals.append(score(board))
            times.append(time.perf_counter() - started)
        rows.append({"method": name, "boards": boards, "mean_ms": round(1000 * statistics.mean(times), 3),
                     "median_ms": round(1000 * statistics.median(times), 3), "boards_per_s": round(boards / sum(times)),
                     "mean_total": round(statistics.mean(totals), 1), "totals": totals})
    assert rows[0]["totals"] == rows[1]["totals"], "the two scorers disagree"
    for r in rows:
        r["ratio"] = round(r["mean_ms"] / rows[0]["mean_ms"], 2)
        del r["totals"]
    return rows


def annealing(trie, seconds: float, seed: int) -> list[dict]:
    table = score_table("boggle")
    rows = []
    for name, start_temperature in [("simulated annealing (T 40→1)", 40.0), ("hill climbing (T = 0)", 0.0)]:
        result = grid.best_board(4, 4, trie, table, seed, seconds, start_temperature=start_temperature)
        reached = next((t for t, s in result.history if s >= 3000), None)
        rows.append({"method": name, "seed": seed, "seconds": round(result.seconds, 1), "best": result.score,
                     "board": result.board.notation(), "evaluations": result.evaluations,
                     "seconds_to_3000": reached, "history": result.history})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=500)
    parser.add_argument("--anneal-seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: 100 boards, 30 s of annealing per method; writes results/grid.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/grid.json)")
    args = parser.parse_args()
    if args.quick:
        args.boards, args.anneal_seconds = 100, 30.0
    args.out = args.out or str(Path(__file__).parent / "results" / f"grid{'.quick' if args.quick else ''}.json")
    started = time.perf_counter()
    trie = build_trie(load_default().words)
    build_seconds = time.perf_counter() - started
    speed = scoring_speed(trie, args.boards, args.seed)
    search = annealing(trie, args.anneal_seconds, args.seed)
    console = Console(width=160)
    t1 = Table(title=f"scoring {args.boards} random 4×4 boards (trie built in {build_seconds:.2f} s)")
    for h in ("method", "mean ms", "median ms", "boards/s", "× score-only", "mean total"):
        t1.add_column(h, justify="left" if h == "method" else "right")
    for r in speed:
        t1.add_row(r["method"], f"{r['mean_ms']:.3f}", f"{r['median_ms']:.3f}", f"{r['boards_per_s']:,}", f"{r['ratio']:.2f}", f"{r['mean_total']}")
    console.print(t1)
    t2 = Table(title=f"--best 4x4, seed {args.seed}, {args.anneal_seconds:.0f} s each")
    for h in ("method", "best", "s to 3000", "boards tried", "board"):
        t2.add_column(h, justify="left" if h in ("method", "board") else "right")
    for r in search:
        t2.add_row(r["method"], str(r["best"]), str(r["seconds_to_3000"]), f"{r['evaluations']:,}", r["board"])
    console.print(t2)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"trie_build_seconds": round(build_seconds, 2), "scoring": speed, "annealing": search}, indent=2))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
