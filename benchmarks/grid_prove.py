"""Benchmark: the exact side of best boards (grid --best RxC --prove) against the heuristics.

    flock /tmp/cpmodel-bench.lock python benchmarks/grid_prove.py --dict wordlists/enable2k.txt [--quick]

The word list is taken by path (ENABLE2K: danvk/hybrid-boggle's
wordlists/enable2k.txt, which danvk's 3x3 result, streaedlp = 545, uses).

1. Bounds, side by side on the same seeded sample of canonical 3x3 classes
   (danvk's 4-bucket split, where max/sum is cheap enough to sample):
   max/sum (2009), union (every spellable word once), the smaller of the
   two, and the orderly tree's bound (2025) that --prove uses. Mean bound,
   the share of classes a bound drops at once (at most the optimum), and the
   time per class.
2. Proofs: --prove on each size, on --jobs workers: optimum, wall and CPU
   seconds, classes, subclasses bounded and boards scored.
3. Top-level splits: danvk's 4 buckets against the 3 that --prove uses,
   CPU per class on a seeded sample and the whole proof's estimated CPU.
4. The CP-SAT model (cpmodel/models/grid_best.py) on the sizes it can hold.
5. Heuristic against proof: how long the Python annealing (grid --best) and
   the pool hill climber that seeds the proof take to first reach the proven 3x3 optimum
   (skipped by --quick, which proves no 3x3).
6. The 3x4 proof's cost, estimated: --estimate-3x4 N evenly spaced canonical
   classes (the same ones every run) broken against the score --prove's seed
   search finds, with 3 buckets everywhere and with --prove's split (two on
   the corners); CPU per class times the classes (0: skipped, as by --quick),
   and the tree build's share. ``--estimate-only`` runs this part alone and
   keeps the file's other parts. The cost per class has a heavy tail: 48
   classes estimated 0.44 CPU-s a class where the whole run's first 1,166
   classes took 0.78, so the sample is 256 classes.
7. The whole 3x4 proof: ``--full-3x4 CHECKPOINT`` runs
   ``python -m cpmodel grid --best 3x4 --prove --json --jobs J --checkpoint CHECKPOINT``
   as a user would, resuming from the checkpoint when it holds shards, and
   records each run as a segment of benchmarks/results/grid_prove_3x4.json
   (its wall seconds, the classes done); once the document says the proof is
   complete, the totals: wall (the segments' sum), CPU (every shard's, as the
   document counts them, resumed ones included, and the seed search's),
   classes, subclasses bounded, boards scored, and the ratio to danvk's
   24,290 CPU-seconds. ``--prior-wall`` adds a segment run before, by hand
   with the same command, that the file does not hold.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control
from cpmodel.core.lexicon import load_file
from cpmodel.core.scoring import score_table
from cpmodel.run.grid_prove import SEED_SECONDS, prove, seed_board
from cpmodel.run.sharded import ShardOptions
from heuristics import grid
from heuristics.grid_bound import Bounder
from heuristics.grid_breaker import (
    BUCKETS_DANVK,
    BUCKETS_LARGE,
    BUCKETS_SMALL,
    Breaker,
    canonical_classes,
    class_masks,
    uniform,
)
from heuristics.grid_kernel import build_alphabet_trie
from heuristics.grid_search import BestBoardSpec, hill_climb, objective, warm_up
from heuristics.words import build_trie

BOGGLE = score_table("boggle")
ESTIMATE_CLASSES = 256  # 3x4 classes sampled for the estimate (48 gave half the true cost: a heavy tail)
DANVK_3X4_CPU = 24290  # CPU-seconds of danvk's 3x4 proof (his README: break_all, 3 threads, 2 h 18 min)


def bounds(words, sample: int, seed: int, beat: int) -> list[dict]:
    breaker = Breaker(words, BOGGLE, 3, 3, uniform(BUCKETS_DANVK, 9))  # small classes: max/sum takes seconds on bigger ones
    bounder = Bounder(breaker.tables, 3, 3)
    codes = random.Random(seed).sample(canonical_classes(3, 3, breaker.split), sample)
    classes = [class_masks(code, breaker.split) for code in codes]
    bounder.bounds(classes[0])  # compile outside the clock
    breaker.tree.build(classes[0], breaker.rank, breaker.adj, breaker.deg)
    values = {"max/sum": [], "union": [], "min(max/sum, union)": [], "orderly tree": []}
    seconds = {"max/sum, union (one walk)": 0.0, "orderly tree": 0.0}
    nodes = []
    for masks in classes:
        started = time.perf_counter()
        maxsum, union = bounder.bounds(masks)
        seconds["max/sum, union (one walk)"] += time.perf_counter() - started
        started = time.perf_counter()
        nodes.append(breaker.tree.build(masks, breaker.rank, breaker.adj, breaker.deg))
        seconds["orderly tree"] += time.perf_counter() - started
        for name, value in (("max/sum", maxsum), ("union", union), ("min(max/sum, union)", min(maxsum, union)),
                            ("orderly tree", int(breaker.tree.bound[0]))):
            values[name].append(value)
    rows = []
    for name, vals in values.items():
        walk = "orderly tree" if name == "orderly tree" else "max/sum, union (one walk)"
        rows.append({"bound": name, "classes": sample, "mean": round(statistics.mean(vals)),
                     "median": round(statistics.median(vals)),
                     "dropped_at_once": round(sum(v <= beat for v in vals) / sample, 3),
                     "ms_per_class": round(1000 * seconds[walk] / sample, 2)})
    orderly = rows[-1]["mean"]
    for r in rows:
        r["ratio_to_orderly"] = round(r["mean"] / orderly, 2)
    rows[-1]["mean_tree_nodes"] = round(statistics.mean(nodes))
    return rows


def proofs(words, sizes: list[str], jobs: int, stderr: Console) -> list[dict]:
    rows = []
    for size in sizes:
        r, c = map(int, size.split("x"))
        started = time.perf_counter()
        result = prove(words, BOGGLE, r, c, ShardOptions(jobs=jobs), None, 0, stderr)
        rows.append({"size": size, "jobs": jobs, "optimum": result.best, "board": result.board,
                     "proven": result.optimal, "wall_s": round(time.perf_counter() - started, 1),
                     "cpu_s": result.cpu_seconds, "classes": result.classes, "subclasses": result.nodes,
                     "boards_scored": result.boards, "seed_score": result.seed_score,
                     "seed_s": result.seed_seconds, "found_by": result.found_by})
    return rows


def splits(words, sample: int, seed: int, beat: int) -> list[dict]:
    """CPU per class and the estimated CPU of a whole 3x3 proof, for each top-level split, from a seeded sample."""
    rows = []
    for buckets in (BUCKETS_DANVK, BUCKETS_SMALL):
        breaker = Breaker(words, BOGGLE, 3, 3, uniform(buckets, 9))
        codes = canonical_classes(3, 3, breaker.split)
        picked = random.Random(seed).sample(codes, min(sample, len(codes)))
        flag = np.zeros(1, np.int8)
        breaker.break_masks(class_masks(picked[0], breaker.split), beat, flag)  # compile outside the clock
        started, nodes = time.process_time(), 0
        for code in picked:
            nodes += breaker.break_masks(class_masks(code, breaker.split), beat, flag)[3]
        per_class = (time.process_time() - started) / len(picked)
        rows.append({"buckets": " ".join(buckets), "canonical_classes": len(codes), "sampled": len(picked),
                     "cpu_ms_per_class": round(1000 * per_class, 1), "subclasses_per_class": nodes // len(picked),
                     "estimated_proof_cpu_s": round(per_class * len(codes))})
    for r in rows:
        r["ratio"] = round(r["estimated_proof_cpu_s"] / rows[-1]["estimated_proof_cpu_s"], 2)
    return rows


def estimate_3x4(words, sample: int, stderr) -> list[dict]:
    """CPU per class on an evenly spaced sample of canonical 3x4 classes, and the whole proof's estimate,
    for 3 buckets everywhere and for --prove's split, both against the seed search's score."""
    first = Breaker(words, BOGGLE, 3, 4)
    beat, board = seed_board(first, words, BOGGLE, SEED_SECONDS, 1, threading.Event())
    stderr.print(f"3x4: score to beat {beat} ({board}), from --prove's seed search")
    rows = []
    for name, split in (("3 buckets everywhere", uniform(BUCKETS_LARGE, 12)), ("--prove: 2-bucket corners", None)):
        breaker = first if split is None else Breaker(words, BOGGLE, 3, 4, split)
        codes = canonical_classes(3, 4, breaker.split)
        picked = [codes[k * len(codes) // sample] for k in range(sample)]
        flag = np.zeros(1, np.int8)
        breaker.break_masks(class_masks(picked[0], breaker.split), 10**9, flag)  # compile outside the clock
        per, builds = [], []
        nodes = 0
        for code in picked:
            masks = class_masks(code, breaker.split)
            started = time.process_time()
            breaker.tree.build(masks, breaker.rank, breaker.adj, breaker.deg)  # the build alone, apart
            builds.append(time.process_time() - started)
            started = time.process_time()
            nodes += breaker.break_masks(masks, beat, flag)[3]
            per.append(time.process_time() - started)
        per_class = sum(per) / len(per)
        rows.append({"split": name, "score_to_beat": beat, "canonical_classes": len(codes), "sampled": len(picked),
                     "cpu_s_per_class": round(per_class, 3), "build_s_per_class": round(sum(builds) / len(builds), 3),
                     "slowest_class_s": round(max(per), 1),
                     "subclasses_per_class": nodes // len(picked), "estimated_proof_cpu_s": round(per_class * len(codes)),
                     "x_danvk_24290": round(per_class * len(codes) / DANVK_3X4_CPU, 2)})
        stderr.print(f"3x4, {name}: {per_class:.2f} CPU-s a class")
    return rows


def cpsat(words, sizes: list[str], seconds: float) -> list[dict]:
    """The CP-SAT model (cpmodel.models.grid_best) on the same sizes, 2 workers, capped."""
    from cpmodel.models import grid_best

    rows = []
    for size in sizes:
        r, c = map(int, size.split("x"))
        started = time.perf_counter()
        try:
            status, best, bound, board, wall, pairs = grid_best.solve(r, c, words, BOGGLE, seconds, workers=2)
        except ValueError as exc:  # the model would not fit
            rows.append({"size": size, "status": "not built", "best": None, "bound": None, "wall_s": None,
                         "note": str(exc)})
            continue
        rows.append({"size": size, "status": status, "best": best, "bound": bound, "board": board,
                     "wall_s": round(time.perf_counter() - started, 1), "solve_s": round(wall, 1), "pairs": pairs})
    return rows


def heuristics(words, optimum: int, seconds: float, seeds: int) -> list[dict]:
    """Seconds until each heuristic first reaches the 3x3 optimum (None: not within ``seconds``)."""
    trie = build_trie(words)
    spec = BestBoardSpec(3, 3, build_alphabet_trie(words), BOGGLE)
    warm_up(spec)  # compile outside the clock

    def spec_score(rows) -> int:
        return -objective(spec, rows)[0]

    rows = []
    for seed in range(seeds):
        result = grid.best_board(3, 3, trie, BOGGLE, seed, seconds)
        reached = next((t for t, s in result.history if s >= optimum), None)
        rows.append({"method": "annealing (Python, grid --best)", "seed": seed, "best": result.score,
                     "reached_optimum_s": reached, "budget_s": seconds})
        control = Control(time_limit=seconds, goal=lambda score: score >= optimum)
        climb = hill_climb(spec, seed, control, lambda rows, c=control: setattr(c, "objective", spec_score(rows)))
        score = climb.score
        took = next((t for t, s in climb.history if s >= optimum), None)
        rows.append({"method": "pool hill climber (numba, --prove's seed)", "seed": seed, "best": score,
                     "reached_optimum_s": took, "budget_s": seconds})
    return rows


def table(title: str, rows: list[dict]) -> Table:
    keys = list(dict.fromkeys(k for r in rows for k in r))  # rows may differ (a model not built has a note)
    t = Table(title=title)
    for key in keys:
        t.add_column(key, justify="right" if isinstance(rows[0].get(key), (int, float)) else "left")
    for r in rows:
        t.add_row(*[f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)
                    for v in (r.get(k, "") for k in keys)])
    return t


def full_3x4(dict_path: str, checkpoint: str, jobs: int, prior_wall: float | None, out: Path) -> dict:
    """Run (or resume) the whole 3x4 proof as the CLI does; record this run as a segment, and the totals
    once the proof is complete."""
    doc = json.loads(out.read_text()) if out.exists() else {"command": None, "segments": []}
    command = [sys.executable, "-m", "cpmodel", "grid", "--best", "3x4", "--prove", "--json", "--jobs", str(jobs),
               "--dict", dict_path, "--checkpoint", checkpoint]
    doc["command"] = " ".join(["python", *command[1:]])
    if prior_wall:
        doc["segments"].append({"wall_s": prior_wall, "note": "run by hand with the same command, then stopped"})
    started = time.monotonic()
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)  # its progress goes to stderr
    wall = time.monotonic() - started
    result = json.loads(run.stdout)
    proof = result["prove"]
    doc["segments"].append({"wall_s": round(wall, 1), "exit": run.returncode,
                            "classes_done": proof["classes_done"], "resumed_shards": proof["resumed"],
                            "stopped_by": result["stopped_by"]})
    if result["complete"]:
        wall_total = sum(segment["wall_s"] for segment in doc["segments"])
        cpu = proof["cpu_seconds"] + proof["seed_seconds"]
        doc["total"] = {"board": result["board"], "score": result["total"], "optimal": result["optimal"],
                        "complete": result["complete"], "wall_s": round(wall_total, 1),
                        "wall_h": round(wall_total / 3600, 2), "cpu_s": round(cpu), "classes": proof["classes"],
                        "subclasses": proof["subclasses"], "boards_scored": proof["boards_scored"],
                        "shards": proof["shards"], "seed_score": proof["seed_score"], "found_by": proof["found_by"],
                        "x_danvk_24290": round(cpu / DANVK_3X4_CPU, 2)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict", required=True, help="word list (ENABLE2K for the published figures)")
    parser.add_argument("--quick", action="store_true", help="2x2 and 2x3 proofs and small samples")
    parser.add_argument("--sizes", default=None, help="comma list of sizes to prove (default 2x2,2x3,3x3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=None, help="classes in the bound comparison (default 300)")
    parser.add_argument("--heuristic-seconds", type=float, default=None)
    parser.add_argument("--split-sample", type=int, default=None, help="classes sampled per split (default 150)")
    parser.add_argument("--cpsat-seconds", type=float, default=120.0)
    parser.add_argument("--estimate-3x4", type=int, default=None, help="3x4 classes sampled (default 256, --quick 0)")
    parser.add_argument("--estimate-only", action="store_true",
                        help="the 3x4 estimate alone, into the results file beside its other parts")
    parser.add_argument("--full-3x4", metavar="CHECKPOINT", default=None,
                        help="run or resume the whole 3x4 proof with this checkpoint (hours), and record it")
    parser.add_argument("--prior-wall", type=float, default=None,
                        help="with --full-3x4: wall seconds of a run made before by hand with the same command")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    console, stderr = Console(width=160), Console(stderr=True)
    if args.full_3x4:
        full = full_3x4(args.dict, args.full_3x4, args.jobs, args.prior_wall,
                        Path(args.out or "benchmarks/results/grid_prove_3x4.json"))
        console.print(table("The whole 3x4 proof: runs (segments) so far", full["segments"]))
        if "total" in full:
            console.print(table("The whole 3x4 proof", [full["total"]]))
        return
    words = load_file(args.dict).words
    sizes = (args.sizes or ("2x2,2x3" if args.quick else "2x2,2x3,3x3")).split(",")
    sample = args.sample or (50 if args.quick else 300)
    heuristic_seconds = args.heuristic_seconds or (10.0 if args.quick else 60.0)
    doc = {"dict": Path(args.dict).name, "words": len(words), "jobs": args.jobs, "seed": args.seed,
           "machine_load_1min": round(float(Path("/proc/loadavg").read_text().split()[0]), 2)}
    out = Path(args.out or f"benchmarks/results/grid_prove{'.quick' if args.quick else ''}.json")
    if args.estimate_only:
        doc = {**(json.loads(out.read_text()) if out.exists() else {}), "estimate_machine_load_1min": doc.pop(
            "machine_load_1min"), "estimate_3x4": estimate_3x4(words, args.estimate_3x4 or ESTIMATE_CLASSES, stderr)}
        console.print(table("The 3x4 proof, estimated from evenly spaced classes (one core)", doc["estimate_3x4"]))
        out.write_text(json.dumps(doc, indent=2) + "\n")
        console.print(f"written {out}")
        return
    doc["proofs"] = proofs(words, sizes, args.jobs, stderr)
    console.print(table("--prove: the optimum proven by branch and bound over board classes", doc["proofs"]))
    optimum = next((r["optimum"] for r in doc["proofs"] if r["size"] == "3x3"), None)
    doc["bounds"] = bounds(words, sample, args.seed, optimum or 545)
    console.print(table(f"Bounds on {sample} canonical 3x3 classes of danvk's split (dropped at once: bound <= {optimum or 545})",
                        doc["bounds"]))
    doc["splits"] = splits(words, args.split_sample or (20 if args.quick else 150), args.seed, optimum or 545)
    console.print(table("Top-level splits of 3x3: CPU per class, estimated CPU of the whole proof", doc["splits"]))
    doc["cpsat"] = cpsat(words, [s for s in sizes if s in ("2x2", "2x3")], args.cpsat_seconds)
    console.print(table(f"The CP-SAT model (word-path literals), {args.cpsat_seconds:.0f} s cap", doc["cpsat"]))
    if optimum is not None:
        doc["heuristics"] = heuristics(words, optimum, heuristic_seconds, 3)
        console.print(table(f"Heuristics: seconds to first reach the proven 3x3 optimum {optimum}", doc["heuristics"]))
    estimate = args.estimate_3x4 if args.estimate_3x4 is not None else (0 if args.quick else ESTIMATE_CLASSES)
    if estimate:
        doc["estimate_3x4"] = estimate_3x4(words, estimate, stderr)
        console.print(table(f"The 3x4 proof, estimated from {estimate} evenly spaced classes (one core)",
                            doc["estimate_3x4"]))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    console.print(f"written {out}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
