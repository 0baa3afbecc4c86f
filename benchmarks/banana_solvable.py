"""Benchmark: how many random Bananagrams hands can be laid out at all.

    python benchmarks/banana_solvable.py [--quick] [--hands 200] [--nodes 50000] [--cpsat-limit 60]

Hands of 11, 15, 21, 40, 60 and 144 tiles are drawn from the 144-tile bag
with seeds 0..H-1 (144 tiles is the whole bag: one hand, whatever the seed),
on the default lexicon and on its 20,000 most common words of each length
(``--top 20000``). Each hand gets a verdict, and only an engine's word counts:

* **laid out**: the backtracker (free mode, with its restarts) found a
  layout within a budget of search nodes (nodes, not seconds, so the verdict
  does not drift with the machine's load; a wall-clock guard stops a
  pathological hand). Side by side, how many the longest-first order alone
  lays out in the same budget;
* for the rest, CP-SAT (automaton encoding, growing boxes) with a per-hand
  time limit: **found** (a layout the backtracker missed), **proven none**
  (every box that could hold a connected layout is infeasible), or
  **unknown** (the limit came first). A hand the backtracker gives up on and
  CP-SAT does not settle is unknown, never none.

So the fraction of solvable hands lies between (laid out + found) / hands and
1 − none / hands. Reference: Clement and Kachuck's random-rack study
(colinclement/banangram, docs/paper/paper.tex) found that the share of racks
their DAWG solver (with a branch limit) solved levels off at about 96% for
large racks, with TWL06 and SOWPODS alike (racks of 2–29 tiles, 1000 each);
they attribute the rest to racks without solutions, some checked by hand.
Every layout reported here passed the validator (both engines validate
before they answer).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import BananaSpec, draw_hand
from cpmodel.models import bananagrams as cpsat
from heuristics import bananagrams as backtrack

SIZES = (11, 15, 21, 40, 60, 144)
LEXICONS = (("default", None), ("top 20000", 20000))
ANCHOR_PCT = 96  # Clement and Kachuck: share of large random racks solved (TWL06, SOWPODS)
LAID_OUT, FOUND, NONE, UNKNOWN = "laid out", "cpsat found", "proven none", "unknown"


def verdict(hand: str, table, nodes: int, guard: float, cpsat_limit: float) -> dict:
    """One hand: the backtracker first, CP-SAT only for what it leaves."""
    view = table.restrict(hand)
    spec = BananaSpec(hand, tuple(view.words))
    tried = backtrack.solve(spec, "free", Control(time_limit=guard), table=view, max_nodes=nodes)
    row = {"hand": hand, "words": len(view.words), "backtrack_nodes": tried.stats["nodes"],
           "backtrack_s": round(tried.seconds, 3), "backtrack_stopped_by": tried.stopped_by,
           "backtrack_ran_dry": tried.stats["ran_dry"],
           "longest_first_only": longest_first_only(tried, spec, view, nodes, guard)}
    if tried.status == "found":
        return {**row, "verdict": LAID_OUT}
    exact = cpsat.solve(spec, Control(time_limit=cpsat_limit))
    outcome = {"found": FOUND, "none": NONE, "unknown": UNKNOWN}[exact.status]
    return {**row, "verdict": outcome, "cpsat_s": round(exact.seconds, 2), "cpsat_boxes": len(exact.stats["boxes"]),
            "cpsat_boxes_solved": sum(":inside" not in box for box in exact.stats["boxes"]),
            "cpsat_last_box": exact.stats["boxes"][-1] if exact.stats["boxes"] else None,
            "layout": list(exact.solutions[0]) if exact.solutions else None}


def longest_first_only(tried, spec, view, nodes: int, guard: float) -> bool:
    """Would the longest-first order alone (no restarts) lay the hand out in the
    same node budget? The comparison for the restarts; the search is
    deterministic, so a layout the restarts found in that order needs no rerun."""
    if tried.status == "found" and tried.stats["order"] == backtrack.LONGEST:
        return True
    return backtrack.LayoutSearch(spec, "free", Control(time_limit=guard), table=view, max_nodes=nodes).run() == "found"


def summarise(lexicon: str, tiles: int, rows: list[dict]) -> dict:
    count = {v: sum(r["verdict"] == v for r in rows) for v in (LAID_OUT, FOUND, NONE, UNKNOWN)}
    hands, rest = len(rows), len(rows) - count[LAID_OUT]
    return {"lexicon": lexicon, "tiles": tiles, "hands": hands, **{k.replace(" ", "_"): n for k, n in count.items()},
            "laid_out_pct": round(100 * count[LAID_OUT] / hands, 1),
            "longest_first_only": sum(r["longest_first_only"] for r in rows),
            "rest_proven_none_pct": round(100 * count[NONE] / rest, 1) if rest else None,
            "solvable_pct_bounds": [round(100 * (count[LAID_OUT] + count[FOUND]) / hands, 1),
                                    round(100 * (1 - count[NONE] / hands), 1)],
            "backtrack_median_s": round(sorted(r["backtrack_s"] for r in rows)[hands // 2], 3),
            "not_laid_out": [r for r in rows if r["verdict"] != LAID_OUT]}


def study(hands: int, nodes: int, guard: float, cpsat_limit: float, console: Console) -> list[dict]:
    words = load_default().words
    rows = []
    for name, top in LEXICONS:
        table = backtrack.WordTable.of_lexicon(words, top=top)
        for tiles in SIZES:
            seeds = range(1 if tiles == 144 else hands)
            started = time.perf_counter()
            found = [{"seed": seed, **verdict(draw_hand(tiles, seed), table, nodes, guard, cpsat_limit)} for seed in seeds]
            rows.append(summarise(name, tiles, found))
            console.print(f"[dim]{name}, {tiles} tiles: {len(found)} hands in {time.perf_counter() - started:.0f} s[/dim]")
    return rows


def show(rows: list[dict], doc: dict) -> Table:
    view = Table(title=f"Random hands from the bag: laid out by the backtracker ({doc['backtrack_nodes']:,} nodes), "
                       f"the rest given to CP-SAT ({doc['cpsat_limit_s']:.0f} s per hand)")
    for head in ("lexicon", "tiles", "hands", "longest first only", "laid out", "CP-SAT found", "proven none",
                 "unknown", "none / rest", "solvable"):
        view.add_column(head, justify="left" if head == "lexicon" else "right")
    for r in rows:
        low, high = r["solvable_pct_bounds"]
        view.add_row(r["lexicon"], str(r["tiles"]), str(r["hands"]), str(r["longest_first_only"]),
                     f"{r['laid_out']} ({r['laid_out_pct']}%)",
                     str(r["cpsat_found"]), str(r["proven_none"]), str(r["unknown"]),
                     "–" if r["rest_proven_none_pct"] is None else f"{r['rest_proven_none_pct']}%",
                     f"{low}%" if low == high else f"{low}–{high}%")
    view.caption = (f"solvable = between (laid out + found) and (all − proven none), as a share of hands; "
                    f"Clement and Kachuck: ~{ANCHOR_PCT}% of large racks solved. 144 tiles = the whole bag, one hand.")
    return view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per size (seeds 0..H-1; 144 tiles is one hand)")
    parser.add_argument("--nodes", type=int, default=50_000, help="the backtracker's node budget per hand")
    parser.add_argument("--guard", type=float, default=120.0, help="the backtracker's wall-clock guard per hand, seconds")
    parser.add_argument("--cpsat-limit", type=float, default=60.0, help="CP-SAT's time limit per hand, seconds")
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: 30 hands per size, 20,000 nodes, CP-SAT 10 s; writes results/banana_solvable.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/banana_solvable.json)")
    args = parser.parse_args()
    if args.quick:
        args.hands, args.nodes, args.cpsat_limit = 30, 20_000, 10.0
    out = Path(args.out or Path(__file__).parent / "results" / f"banana_solvable{'.quick' if args.quick else ''}.json")
    console = Console(width=160)
    started = time.perf_counter()
    doc = {"quick": args.quick, "hands_per_size": args.hands, "backtrack_nodes": args.nodes, "backtrack_guard_s": args.guard,
           "cpsat_limit_s": args.cpsat_limit, "anchor_pct": ANCHOR_PCT, "load_average_1min_start": round(os.getloadavg()[0], 2)}
    doc["rows"] = study(args.hands, args.nodes, args.guard, args.cpsat_limit, console)
    doc["seconds"] = round(time.perf_counter() - started, 1)
    console.print(show(doc["rows"], doc))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2))
    console.print(f"wrote {out} in {doc['seconds']:.0f} s")


if __name__ == "__main__":
    main()
