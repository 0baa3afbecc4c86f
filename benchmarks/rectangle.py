"""Benchmark: m×n word rectangles, backtracker against CP-SAT, side by side.

    python benchmarks/rectangle.py [--quick] [--cpsat-limit 120] [--out benchmarks/results/rectangle.json]

1. Time to the first 5×6 on the full default lexicon: the backtracker in both
   orientations and CP-SAT in each encoding (lexicon load reported apart, and
   the whole CLI command timed end to end).
2. Counting all 5×6 rectangles of --top 3000 and --top 5000 with both solvers.

Each case runs every method in the same process, one after the other, and
reports ratios against the backtracker, because absolute seconds drift on a
shared machine; node and branch counts do not. CP-SAT runs with its default
fixed random seed, so runs are repeatable up to timing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control, Request
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.models import rectangle as cpsat
from heuristics import rectangle as backtrack


def timed_load() -> tuple[object, float]:
    started = time.perf_counter()
    lexicon = load_default()
    return lexicon, time.perf_counter() - started


def cli_wall_time(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cpmodel", *args, "--json"], capture_output=True, check=True)
    return time.perf_counter() - started


def row(case, method, result, load=0.0) -> dict:
    effort = result.stats.get("nodes", result.stats.get("branches"))
    return {
        "case": case,
        "method": method,
        "status": result.status,
        "complete": result.complete,
        "count": result.count,
        "seconds": round(result.seconds, 3),
        "with_load": round(result.seconds + load, 3),
        "effort": effort,
        "effort_unit": "nodes" if "nodes" in result.stats else "branches",
    }


def first_solution(lexicon, load: float, cpsat_limit: float) -> list[dict]:
    spec = rectangle_spec(5, 6, lexicon)
    rows = []
    for orientation in ("rows", "cols"):
        rows.append(row("first 5x6 full", f"backtrack/{orientation}", backtrack.solve(spec, Request(), orientation=orientation), load))
    for encoding in cpsat.ENCODINGS:
        result = cpsat.solve(spec, Request(), Control(time_limit=cpsat_limit), encoding=encoding)
        rows.append(row("first 5x6 full", f"cpsat/{encoding}", result, load))
    return rows


def enumeration(lexicon, top: int, cpsat_limit: float) -> list[dict]:
    spec = rectangle_spec(5, 6, lexicon, top=top)
    count_all = Request(limit=None, count_only=True)
    rows = [row(f"count 5x6 top {top}", "backtrack", backtrack.solve(spec, count_all))]
    for encoding in ("table", "automaton"):
        result = cpsat.solve(spec, count_all, Control(time_limit=cpsat_limit), encoding=encoding)
        rows.append(row(f"count 5x6 top {top}", f"cpsat/{encoding}", result))
    return rows


def add_ratios(rows: list[dict]) -> None:
    """seconds / the backtracker's seconds on the same case (rows orientation)."""
    base = {r["case"]: r["seconds"] for r in rows if r["method"] in ("backtrack", "backtrack/rows")}
    for r in rows:
        r["ratio_vs_backtrack"] = round(r["seconds"] / max(base[r["case"]], 1e-6), 1)


def show(rows: list[dict], extras: dict) -> None:
    table = Table(title="5×6 word rectangles: backtracker vs CP-SAT (same run)")
    for header in ("case", "method", "status", "complete", "count", "seconds", "incl. load", "× backtrack", "nodes/branches"):
        table.add_column(header, justify="left" if header in ("case", "method", "status") else "right")
    for r in rows:
        table.add_row(r["case"], r["method"], r["status"], str(r["complete"]), str(r["count"]), f"{r['seconds']:.3f}",
                      f"{r['with_load']:.3f}", f"{r['ratio_vs_backtrack']:.1f}", f"{r['effort']:,} {r['effort_unit']}")
    table.caption = " · ".join(f"{k}: {v}" for k, v in extras.items())
    Console(width=200).print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpsat-limit", type=float, default=120.0, help="time limit per CP-SAT run (s)")
    parser.add_argument("--tops", type=int, nargs="+", default=[3000, 5000])
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: CP-SAT limit 15 s, --tops 1000; writes results/rectangle.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/rectangle.json)")
    args = parser.parse_args()
    if args.quick:
        args.cpsat_limit, args.tops = 15.0, [1000]
    args.out = args.out or str(Path(__file__).parent / "results" / f"rectangle{'.quick' if args.quick else ''}.json")

    lexicon, load = timed_load()
    extras = {
        "lexicon load (cached)": f"{load:.3f} s",
        "CLI `rect 5x6 --solver backtrack` wall": f"{cli_wall_time('rect', '5x6', '--solver', 'backtrack'):.2f} s",
    }
    rows = first_solution(lexicon, load, args.cpsat_limit)
    for top in args.tops:
        rows += enumeration(lexicon, top, args.cpsat_limit)
    add_ratios(rows)
    show(rows, extras)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, **extras, "cpsat_limit": args.cpsat_limit}, indent=2))
    Console().print(f"wrote {out}")


if __name__ == "__main__":
    main()
