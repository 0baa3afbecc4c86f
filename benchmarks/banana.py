"""Benchmark: Bananagrams layouts, backtracker modes and CP-SAT encodings.

    python benchmarks/banana.py [--quick] [--hands 100] [--bags 10] [--cpsat-hands 20] [--cpsat-limit 60]

Hands are drawn from the 144-tile bag with seeds 0, 1, 2, ... on the default
lexicon. Every layout is validated. Reported for each method: solve rate
(unsolved = unknown within the limit, never counted as a success), median,
p95 and max seconds. Building the spec (the words spellable from the hand, by
trie walk) is timed apart.

1. Backtracker on 21-tile hands, free and crossing modes side by side.
2. Backtracker on the full 144-tile bag.
3. CP-SAT on 11-, 15- and 21-tile hands (automaton encoding), and both
   encodings side by side on 11-tile hands.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import banana_spec, draw_hand
from cpmodel.models import bananagrams as cpsat
from heuristics import bananagrams as backtrack
from heuristics.words import WordIndex, find_words


def summarise(label: str, tiles: int, results, spec_seconds) -> dict:
    times = sorted(r.seconds for r in results)
    solved = sum(r.status == "found" for r in results)
    return {"case": label, "tiles": tiles, "hands": len(results), "solved": solved,
            "solve_rate": round(solved / len(results), 3), "median_s": round(statistics.median(times), 4),
            "p95_s": round(times[max(0, int(0.95 * len(times)) - 1)], 4), "max_s": round(times[-1], 4),
            "spec_median_s": round(statistics.median(spec_seconds), 4),
            "statuses": {s: sum(r.status == s for r in results) for s in ("found", "none", "unknown")}}


def run(label, tiles, hands, make_spec, solve) -> dict:
    results, spec_seconds = [], []
    for seed in range(hands):
        started = time.perf_counter()
        spec = make_spec(draw_hand(tiles, seed))
        spec_seconds.append(time.perf_counter() - started)
        results.append(solve(spec))
    return summarise(label, tiles, results, spec_seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--bags", type=int, default=10)
    parser.add_argument("--cpsat-hands", type=int, default=20)
    parser.add_argument("--cpsat-limit", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: 20 hands, 2 full bags, 3 CP-SAT hands per size with a 10 s limit; writes results/banana.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/banana.json)")
    args = parser.parse_args()
    if args.quick:
        args.hands, args.bags, args.cpsat_hands, args.cpsat_limit = 20, 2, 3, 10.0
    args.out = args.out or str(Path(__file__).parent / "results" / f"banana{'.quick' if args.quick else ''}.json")
    lexicon = load_default()
    index = WordIndex(lexicon.words)
    index.trie  # noqa: B018 - built before timing
    gc.freeze()

    def make_spec(hand):
        return banana_spec(hand, lexicon, lambda h: [f.word for f in find_words(index, h, min_len=2)])

    rows = []
    for mode in ("free", "crossing"):
        rows.append(run(f"backtrack {mode}", 21, args.hands, make_spec, lambda s, m=mode: backtrack.solve(s, m, Control(time_limit=10))))
    rows.append(run("backtrack free, full bag", 144, args.bags, make_spec, lambda s: backtrack.solve(s, "free", Control(time_limit=60))))
    for tiles in (11, 15, 21):
        rows.append(run("cpsat automaton", tiles, args.cpsat_hands, make_spec,
                        lambda s: cpsat.solve(s, Control(time_limit=args.cpsat_limit), "automaton")))
    rows.append(run("cpsat table", 11, args.cpsat_hands, make_spec,
                    lambda s: cpsat.solve(s, Control(time_limit=args.cpsat_limit), "table")))
    table = Table(title="Bananagrams: hands drawn from the bag, seeds 0..N-1, every layout validated")
    for h in ("case", "tiles", "hands", "solved", "median s", "p95 s", "max s", "spec median s"):
        table.add_column(h, justify="left" if h == "case" else "right")
    for r in rows:
        table.add_row(r["case"], str(r["tiles"]), str(r["hands"]), f"{r['solved']} ({100 * r['solve_rate']:.0f}%)",
                      f"{r['median_s']:.3f}", f"{r['p95_s']:.3f}", f"{r['max_s']:.3f}", f"{r['spec_median_s']:.3f}")
    Console(width=160).print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "cpsat_limit": args.cpsat_limit}, indent=2))
    Console().print(f"wrote {out}")


if __name__ == "__main__":
    main()
