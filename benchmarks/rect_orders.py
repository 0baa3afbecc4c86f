"""Benchmark: fill orders and lookahead for word rectangles, by nodes per level.

    python benchmarks/rect_orders.py [--fill FILE --cross FILE [--knuth-output FILE]]
                                     [--cases words1000 top3000 top5000 square] [--seconds 240]
                                     [--quick] [--out FILE]

Issue 13, "fewer nodes": does any order of filling the lines, or lookahead,
take fewer nodes than Algorithm B's "every fill line in order"? Each case is
searched by every variant of the study kernel (heuristics/rectangle_orders.py):

  static        lines 0, 1, …, K-1 of the fill direction (Algorithm B, Knuth's nodes)
  lines         next, the open fill line with the fewest candidates (dynamic ordering)
  both          next, the open row OR column with the fewest candidates (crossword filler)
  … + lookahead a word is a node only if every open slot, both directions, keeps a candidate

and, beside them, by the shipped backtracker (heuristics/rectangle.py, numpy
kernel, in-process) for the cost of a node in product code. Counts of every
finished variant must agree (asserted). Nodes do not drift with machine load,
so they are the evidence; CPU seconds are the study kernel's, a plain
readable search, so compare them between variants, not with the product.

Cases (5×6 unless said):
  words1000  Knuth's WORDS(1000): the first 1000 words of --fill (sgb-words.txt)
             as columns × every six-letter word of --cross (OSPD4's 15,727);
             with --knuth-output (Knuth's out1000.txt) its count is checked too.
  top3000    `rect 5x6 --top 3000` of the project's lexicon.
  top5000    `rect 5x6 --top 5000` (the CLI target's case).
  square     `rect 5x5 --top 1500`, a small square.
--seconds caps each variant's search (a capped run is shown as stopped and
its count is not compared). --quick (about 2 minutes): top3000 and the
square, capped at 15 s. Cases can be run one per invocation (--cases): the
JSON keeps the other cases already there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cpmodel.core.control import Request  # noqa: E402
from cpmodel.core.lexicon import Lexicon, load_default  # noqa: E402
from cpmodel.core.specs import RectangleSpec, rectangle_spec  # noqa: E402
from heuristics import rectangle as backtrack  # noqa: E402
from heuristics.rectangle_orders import ORDERS, search  # noqa: E402

VARIANTS = [(order, lookahead) for lookahead in (False, True) for order in ORDERS]


def variant_name(order: str, lookahead: bool) -> str:
    return order + (" + lookahead" if lookahead else "")


# -- cases -------------------------------------------------------------------------------


def read_words(path: str, length: int) -> list[str]:
    """The a-z words of one length, in file order."""
    words = [w.strip().lower() for w in Path(path).read_text(encoding="utf-8", errors="replace").splitlines()]
    return list(dict.fromkeys(w for w in words if len(w) == length and re.fullmatch(r"[a-z]+", w)))


def knuth_count(path: str) -> int:
    """Rectangles in one of Knuth's output files: one numbered line each."""
    return sum(1 for line in Path(path).read_text().splitlines() if re.match(r"\d+:", line))


def make_case(name: str, args, lexicon: Lexicon) -> tuple[RectangleSpec, int | None]:
    """The spec of a case and the count it must have (None: not known in advance)."""
    if name == "words1000":
        fill = read_words(args.fill, 5)[:1000]
        return RectangleSpec(5, 6, tuple(read_words(args.cross, 6)), tuple(fill)), (
            knuth_count(args.knuth_output) if args.knuth_output else None)
    tops = {"top3000": (5, 6, 3000), "top5000": (5, 6, 5000), "square": (5, 5, 1500)}
    m, n, top = tops[name]
    return rectangle_spec(m, n, lexicon, top=top), None


# -- runs --------------------------------------------------------------------------------------


def product_run(spec: RectangleSpec) -> dict:
    """The shipped backtracker (numpy kernel), in this process."""
    cpu, started = time.process_time(), time.perf_counter()
    result = backtrack.solve(spec, Request(limit=None, count_only=True))
    return {"variant": f"shipped backtracker ({result.stats['kernel']})", "count": result.count, "tried": None,
            "profile": result.stats["profile"], "nodes": result.stats["nodes"], "complete": result.complete,
            "orientation": result.stats["orientation"], "wall": time.perf_counter() - started,
            "cpu": time.process_time() - cpu}


def study_run(spec: RectangleSpec, order: str, lookahead: bool, seconds: float) -> dict:
    result = search(spec, order, lookahead, seconds=seconds)
    return {"variant": variant_name(order, lookahead), "order": order, "lookahead": lookahead,
            "count": result.count, "profile": result.profile, "nodes": result.nodes, "tried": result.tried,
            "complete": result.complete, "orientation": result.orientation, "wall": result.seconds, "cpu": result.cpu}


def run_case(name: str, args, lexicon: Lexicon, console: Console) -> dict:
    spec, expected = make_case(name, args, lexicon)
    case = {"case": name, "size": spec.size, "row_words": len(spec.row_words), "col_words": len(spec.col_words),
            "expected_count": expected, "runs": [product_run(spec)]}
    console.print(f"[dim]{name}: shipped backtracker {case['runs'][0]['nodes']:,} nodes[/dim]")
    for order, lookahead in VARIANTS:
        run = study_run(spec, order, lookahead, args.seconds)
        case["runs"].append(run)
        console.print(f"[dim]{name}: {run['variant']}: {run['nodes']:,} nodes, {run['cpu']:.1f} s CPU"
                      f"{'' if run['complete'] else ' (stopped)'}[/dim]")
    counts = {r["count"] for r in case["runs"] if r["complete"]} | ({expected} if expected is not None else set())
    assert len(counts) == 1, f"{name}: the variants disagree on the count: {counts}"
    static = next(r for r in case["runs"] if r["variant"] == "static")
    if static["complete"]:  # the study's static order is Algorithm B: the shipped search's nodes
        assert static["profile"] == case["runs"][0]["profile"][: len(static["profile"])], name
    case["count"] = counts.pop()
    return case


# -- output --------------------------------------------------------------------------------------


def show(cases: list[dict], console: Console) -> None:
    for case in cases:
        static = next(r for r in case["runs"] if r["variant"] == "static")
        table = Table(title=f"{case['case']}: {case['size']}, {case['row_words']:,} row × {case['col_words']:,} "
                            f"column words, {case['count']:,} rectangles — nodes per depth")
        depth = max(len(r["profile"]) for r in case["runs"])
        for header in ["variant", *map(str, range(depth)), "nodes", "÷ static", "words tried", "CPU s", "CPU ÷ static"]:
            table.add_column(header, justify="left" if header == "variant" else "right")
        for run in case["runs"]:
            cells = [f"{run['profile'][k]:,}" if k < len(run["profile"]) else "" for k in range(depth)]
            stopped = "" if run["complete"] else " (stopped)"
            table.add_row(run["variant"] + stopped, *cells, f"{run['nodes']:,}",
                          f"{run['nodes'] / static['nodes']:.2f}" if static["complete"] else "–",
                          f"{run['tried']:,}" if run["tried"] is not None else "–", f"{run['cpu']:.1f}",
                          f"{run['cpu'] / static['cpu']:.2f}" if static["complete"] else "–")
        table.caption = (f"fill direction: {static['orientation']}; depth = words placed before the node "
                         "(Knuth's level − 1); counts agree across finished variants")
        console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fill", help="five-letter words, most common first (sgb-words.txt) for words1000")
    parser.add_argument("--cross", help="six-letter words (OSPD4's) for words1000")
    parser.add_argument("--knuth-output", help="Knuth's output on WORDS(1000) (out1000.txt): its count is checked")
    parser.add_argument("--cases", nargs="+", choices=["words1000", "top3000", "top5000", "square"])
    parser.add_argument("--seconds", type=float, default=240.0, help="cap on each variant's search")
    parser.add_argument("--quick", action="store_true", help="about 2 minutes")
    parser.add_argument("--out", help="JSON results (default: results/rect_orders[.quick].json)")
    args = parser.parse_args()
    if bool(args.fill) != bool(args.cross):
        parser.error("--fill and --cross go together")
    if args.cases is None:
        if args.quick:
            args.cases = ["top3000", "square"]
        else:
            args.cases = (["words1000"] if args.fill else []) + ["top3000", "top5000", "square"]
    if "words1000" in args.cases and not args.fill:
        parser.error("the words1000 case needs --fill and --cross")
    if args.quick:
        args.seconds = min(args.seconds, 15.0)
    out = Path(args.out or ROOT / "benchmarks" / "results" / f"rect_orders{'.quick' if args.quick else ''}.json")
    console = Console(width=160)
    lexicon = load_default()
    cases = [run_case(name, args, lexicon, console) for name in args.cases]
    show(cases, console)
    out.parent.mkdir(parents=True, exist_ok=True)
    for case in cases:
        case.update(seconds_cap=args.seconds, load=os.getloadavg())
    kept = json.loads(out.read_text())["cases"] if out.exists() else []  # cases run separately are merged
    cases = [c for c in kept if c["case"] not in args.cases] + cases
    out.write_text(json.dumps({"fill": args.fill, "cross": args.cross, "cases": cases,
                               "machine": {"cpus": os.cpu_count()}}, indent=2))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
