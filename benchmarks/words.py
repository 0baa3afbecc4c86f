"""Benchmark: words from a bag of letters, four methods side by side.

    python benchmarks/words.py [--quick] [--racks 30] [--seed 1]

Racks of 7 and 15 tiles are drawn (seeded) from the 144-tile Bananagrams bag.
For each rack every method runs on the default lexicon and must return the
same words:

* brute force: every ordering of every sub-multiset, looked up in a set
  (7-tile racks only: 15 tiles have ~3.5·10¹² orderings);
* count-vector scan: compare each word's letter counts with the rack's;
* trie with prefilter: file words by letter set, keep the rack's subsets,
  build a trie of them and walk it (the published method);
* whole-trie walk: walk the whole-lexicon trie carrying the counts;
* find_words: the library's choice between the last two.

Times are after the lexicon and indexes are built; ratios are against the
slowest method measured on that rack size.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.lexicon import load_default
from heuristics import words as W

BAG = "A13 B3 C3 D6 E18 F3 G4 H3 I12 J2 K2 L5 M3 N8 O11 P3 Q2 R9 S6 T9 U6 V3 W3 X2 Y3 Z2"


def bag() -> list[str]:
    return [entry[0].lower() for entry in BAG.split() for _ in range(int(entry[1:]))]


def draw(rng: random.Random, size: int) -> str:
    return "".join(rng.sample(bag(), size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racks", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: 5 racks per size; writes results/words.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/words.json)")
    args = parser.parse_args()
    if args.quick:
        args.racks = 5
    args.out = args.out or str(Path(__file__).parent / "results" / f"words{'.quick' if args.quick else ''}.json")
    lexicon = load_default()
    started = time.perf_counter()
    index = W.WordIndex(lexicon.words)
    index.by_mask, index.trie  # noqa: B018 - build both indexes before timing
    build = time.perf_counter() - started
    gc.freeze()  # the trie's millions of dicts would otherwise make GC passes cost ~0.2 s
    word_set = set(lexicon.words)
    methods = {
        "brute force": lambda rack: W.by_brute_force(word_set, rack),
        "count-vector scan": lambda rack: W.by_count_scan(lexicon.words, rack),
        "trie with prefilter": lambda rack: [f.word for f in W.by_prefiltered_trie(index, rack)],
        "whole-trie walk": lambda rack: [f.word for f in W.walk_whole_trie(index, rack)],
        "find_words (chooses)": lambda rack: [f.word for f in W.find_words(index, rack)],
    }
    rng = random.Random(args.seed)
    rows = []
    for size in (7, 15):
        racks = [draw(rng, size) for _ in range(args.racks)]
        timings: dict[str, list[float]] = {}
        for rack in racks:
            answers = {}
            for name, method in methods.items():
                if name == "brute force" and size > 7:
                    continue
                t0 = time.perf_counter()
                answers[name] = method(rack)
                timings.setdefault(name, []).append(time.perf_counter() - t0)
            assert len({tuple(a) for a in answers.values()}) == 1, f"methods disagree on {rack}"
        slowest = max(statistics.mean(t) for t in timings.values())
        for name, t in timings.items():
            rows.append({"rack": size, "method": name, "racks": len(t), "mean_ms": round(1000 * statistics.mean(t), 3),
                         "median_ms": round(1000 * statistics.median(t), 3), "max_ms": round(1000 * max(t), 3),
                         "speedup_vs_slowest": round(slowest / statistics.mean(t), 1)})
    table = Table(title=f"words from a rack: {args.racks} racks per size, seed {args.seed} (indexes built in {build:.2f} s)")
    for h in ("rack", "method", "mean ms", "median ms", "max ms", "× slowest"):
        table.add_column(h, justify="left" if h == "method" else "right")
    for r in rows:
        table.add_row(str(r["rack"]), r["method"], f"{r['mean_ms']:.2f}", f"{r['median_ms']:.2f}", f"{r['max_ms']:.2f}", f"{r['speedup_vs_slowest']:.1f}")
    Console(width=140).print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"index_build_seconds": round(build, 2), "rows": rows, "seed": args.seed}, indent=2))
    Console().print(f"wrote {out}")


if __name__ == "__main__":
    main()
