"""Benchmark: scaling out (issue 9). The planning numbers for sharded runs.

    flock /tmp/cpmodel-bench.lock nice -n 0 python benchmarks/scale.py [--quick] [--slice N]
                                                       [--out benchmarks/results/scale.json]

1. The machine: cores, load average, and how much parallel capacity it has
   right now (a fixed pure-Python loop in one process, then in two at once:
   2·t1/t2 is ≈2 on two idle cores and ≈1 when one of them is busy).
2. --jobs 2 against --jobs 1: ``rect 5x6 --top 5000 --count --solver backtrack``
   (--quick: --top 4000), whole process, timed by wall clock, in ABBA order
   so that drifting load hits both alike; the same count; the shards' own CPU
   seconds (summed in the workers) against the one-process CPU seconds.
3. A Dask LocalCluster (2 worker processes, 1 thread each) against the local
   pool on the same command (--shards 256 on both): wall clock, and the
   cluster's start-up apart.
4. Cutting along the fill line: a 5×6 count of the top 1,000 five-letter
   column words (--quick: 300) against all 16,703 six-letter row words, which
   the backtracker may fill by columns. One job; shards along the line it
   fills (what cpmodel.run.shards does); shards fixing the first row while it
   fills columns (the cut before this benchmark existed). Nodes and CPU.
5. CP-SAT on small shards, ``rect 5x6 --top 3000 --all --solver cpsat``:
   per-shard CPU of the lean shard model against the full model (the same
   40 one-word shards, best of 3), and (not --quick) the whole run with
   --jobs 2: wall clock, the 6 rectangles, and the shards' CPU seconds.
6. Planning the full-lexicon 5×6 count: Knuth's estimate (2,000 probes) and
   sampled shards, in nodes, CPU-hours and workers for one hour; then a real
   slice of N random one-word shards (--slice, default 200, --quick 10) on 2
   local processes, compared with Knuth's estimate of that slice's own tree
   and scaled up to the whole.

Seconds on this shared machine drift; node counts, counts and ratios taken
side by side do not, so those are what the guide quotes.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import wait
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Request
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import Lexicon, load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.models import rectangle as cpsat_rectangle
from cpmodel.run import engines
from cpmodel.run.cuts import first_line_words, restrict, split_line
from cpmodel.run.estimate import knuth_estimate, sample_shards
from cpmodel.run.executors import LocalPool
from cpmodel.run.shards import Merger, split

console = Console(width=110)


# -- the machine -------------------------------------------------------------------


def _spin(_=None) -> float:
    started = time.perf_counter()
    total = 0
    for k in range(6_000_000):
        total += k & 7
    return time.perf_counter() - started


def parallel_capacity() -> dict:
    """2·t1/t2 for a fixed loop: ≈2.0 on two idle cores, ≈1.0 when one is taken."""
    alone = _spin()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        started = time.perf_counter()
        pool.map(_spin, range(2))
        together = time.perf_counter() - started
    return {"loop_alone_s": round(alone, 3), "two_loops_s": round(together, 3),
            "capacity_cores": round(2 * alone / together, 2), "loadavg": [round(x, 2) for x in os.getloadavg()]}


# -- whole-process runs of the CLI ----------------------------------------------------


def cli(*args: str) -> dict:
    """Run ``python -m cpmodel ... --json`` and time it whole: wall, its own CPU, its answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpmodel", *args, "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    doc = json.loads(proc.stdout)
    stats = doc.get("stats") or {}
    return {"args": " ".join(args), "wall_s": round(wall, 2), "count": doc["count"], "complete": doc["complete"],
            "process_cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            "shard_cpu_s": stats.get("cpu_seconds"), "shards": (doc.get("shards") or {}).get("total"),
            "nodes": stats.get("nodes"), "loadavg_1m": round(os.getloadavg()[0], 2)}


def jobs_speedup(top: int, repeats: int) -> dict:
    base = ("rect", "5x6", "--top", str(top), "--count", "--solver", "backtrack")
    runs = {"1": [], "2": []}
    capacity_before = parallel_capacity()
    for _ in range(repeats):
        for jobs in ("1", "2", "2", "1"):  # ABBA: a load change hits both sides alike
            runs[jobs].append(cli(*base, "--jobs", jobs))
    capacity_after = parallel_capacity()
    one, two = runs["1"], runs["2"]
    ratios = [a["wall_s"] / b["wall_s"] for a, b in zip(one, two, strict=True)]
    doc = {"command": " ".join(base), "runs": runs, "speedup_median": round(statistics.median(ratios), 2),
           "speedups": [round(r, 2) for r in ratios], "same_count": len({r["count"] for r in one + two}) == 1,
           "count": one[0]["count"], "capacity_before": capacity_before, "capacity_after": capacity_after}
    # CPU the shards cost against the one-process CPU: is the parallel work the same work?
    doc["shard_cpu_over_one_cpu"] = round(statistics.median(r["shard_cpu_s"] for r in two)
                                          / statistics.median(r["process_cpu_s"] for r in one), 2)
    return doc


def dask_overhead(top: int) -> dict:
    try:
        from distributed import LocalCluster
    except ImportError:
        return {"skipped": "distributed is not installed (pip install -e '.[cluster]')"}
    base = ("rect", "5x6", "--top", str(top), "--count", "--solver", "backtrack", "--shards", "256")
    started = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    startup = time.perf_counter() - started
    try:
        runs = {"local": [], "dask": []}
        for where in ("local", "dask", "dask", "local"):
            extra = ("--jobs", "2") if where == "local" else ("--scheduler", cluster.scheduler_address)
            runs[where].append(cli(*base, *extra))
    finally:
        cluster.close()
    local = statistics.median(r["wall_s"] for r in runs["local"])
    dask = statistics.median(r["wall_s"] for r in runs["dask"])
    return {"command": " ".join(base), "runs": runs, "cluster_startup_s": round(startup, 2),
            "dask_over_local": round(dask / local, 2), "dask_minus_local_s": round(dask - local, 2),
            "same_count": len({r["count"] for rs in runs.values() for r in rs}) == 1}


# -- in-process measurements -----------------------------------------------------------


def run_serially(plan) -> dict:
    started = time.process_time()
    nodes = count = 0
    for shard in plan:
        result = engines.run(shard.job)
        nodes += result.stats.get("nodes", 0)
        count += result.count
    return {"shards": len(plan), "nodes": nodes, "count": count, "cpu_s": round(time.process_time() - started, 2)}


def orientation_case(lexicon, column_words: int) -> dict:
    """The case where cutting the wrong line hurt. The backtracker fills the columns here
    (--orientation cols, the choice of the rule "fill from the list at most half as long
    as the other" that the backtracker is moving to); the shards must follow it."""
    columns = Lexicon(lexicon.of_length(5, column_words), source=f"top {column_words} five-letter words")
    spec = rectangle_spec(5, 6, lexicon, columns)
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True), options={"orientation": "cols"})
    started = time.process_time()
    whole = engines.run(job)
    one = {"shards": 1, "nodes": whole.stats["nodes"], "count": whole.count,
           "cpu_s": round(time.process_time() - started, 2)}
    along = run_serially(split(job))
    # the old cut: the first row fixed while the backtracker fills columns
    row_cut = [replace(s, job=replace(s.job, options={"orientation": "cols"}))
               for s in split(replace(job, options={"orientation": "rows"}))]
    across = run_serially(row_cut)
    filling_rows = engines.run(replace(job, options={"orientation": "rows"}))
    return {"spec": f"5x6, {len(spec.col_words):,} column words x {len(spec.row_words):,} row words",
            "fills": "cols", "split_line": split_line(job), "one_job": one, "shards_along_fill": along,
            "shards_fixing_row_1": across, "one_job_filling_rows_nodes": filling_rows.stats["nodes"],
            "along_over_one_nodes": round(along["nodes"] / one["nodes"], 3),
            "across_over_one_nodes": round(across["nodes"] / one["nodes"], 2)}


def cpsat_shards(lexicon, sample: int, whole_run: bool) -> dict:
    spec = rectangle_spec(5, 6, lexicon, top=3000)
    job = Job("rect", spec, "cpsat", Request(limit=None))
    plan = split(job)
    chosen = random.Random(1).sample(plan, sample)
    lean_applies = cpsat_rectangle.lean_applies
    best: dict[str, float] = {}
    engines.run(chosen[0].job)  # caches: letter bitsets, word codes
    try:
        for _ in range(3):
            for name, lean in (("full model", False), ("lean model", True)):
                cpsat_rectangle.lean_applies = lean_applies if lean else (lambda spec, encoding: False)
                started = time.process_time()
                for shard in chosen:
                    engines.run(shard.job)
                per_shard = (time.process_time() - started) / sample * 1000
                best[name] = min(best.get(name, math.inf), per_shard)
    finally:
        cpsat_rectangle.lean_applies = lean_applies
    doc = {"spec": "5x6 --top 3000 --all", "shards": len(plan), "split_line": split_line(job), "sampled": sample,
           "ms_cpu_per_shard": {k: round(v, 1) for k, v in best.items()},
           "projected_cpu_s": round(best["lean model"] * len(plan) / 1000, 1)}
    if whole_run:
        doc["run"] = cli("rect", "5x6", "--top", "3000", "--all", "--solver", "cpsat", "--jobs", "2")
        doc["run"]["capacity_after"] = parallel_capacity()
    return doc


def planning(lexicon, slice_size: int, probes: int, budget: float) -> dict:
    spec = rectangle_spec(5, 6, lexicon)
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True))
    words = first_line_words(job)
    knuth = knuth_estimate(job, probes)
    sampled = sample_shards(job, words, budget)
    chosen = random.Random(7).sample(words, slice_size)
    slice_job = restrict(job, tuple(chosen))
    knuth_slice = knuth_estimate(slice_job, probes)
    wanted = set(chosen)
    plan = [s for s in split(job, len(words)) if s.job.spec.first_row[0] in wanted]
    real = run_on_pool(job, plan, 2)
    scale = len(words) / slice_size
    node_rate = real["nodes"] / real["cpu_s"]
    cpu_hours = {"knuth": knuth["nodes"] / node_rate / 3600, "sampled_shards": sampled["seconds"] / 3600,
                 "slice_scaled": real["cpu_s"] * scale / 3600}
    return {"spec": f"5x6 full lexicon, {len(spec.row_words):,} x {len(spec.col_words):,} words, --count",
            "first_line_words": len(words), "knuth": _rounded(knuth), "sampled_shards": _rounded(sampled),
            "slice": {"words": slice_size, "seed": 7, **real, "knuth_estimate_nodes": round(knuth_slice["nodes"]),
                      "knuth_estimate_stderr": round(knuth_slice["nodes_stderr"]),
                      "real_over_knuth": round(real["nodes"] / knuth_slice["nodes"], 2)},
            "whole_nodes": {"knuth": round(knuth["nodes"]), "sampled_shards": round(sampled["nodes"]),
                            "slice_scaled": round(real["nodes"] * scale)},
            "node_rate_per_cpu_s": round(node_rate),
            "cpu_hours": {k: round(v, 1) for k, v in cpu_hours.items()},
            "workers_for_one_hour": {k: math.ceil(v) for k, v in cpu_hours.items()}}


def run_on_pool(job: Job, plan, workers: int) -> dict:
    """The slice on the same local pool a sharded run uses, one shard per word."""
    pool = LocalPool(workers)
    merger = Merger(job, len(plan), keep_solutions=False)
    started = time.perf_counter()
    try:
        futures = {pool.submit(shard.job): shard for shard in plan}
        wait(futures)
        for future, shard in futures.items():
            merger.add(shard.id, future.result())
    finally:
        pool.close()
    return {"shards": len(plan), "nodes": merger.nodes, "count": merger.count, "wall_s": round(time.perf_counter() - started, 1),
            "cpu_s": round(merger.cpu_seconds, 1), "complete": merger.finished}


def _rounded(doc: dict) -> dict:
    return {k: (round(v, 3) if isinstance(v, float) and abs(v) < 1000 else round(v) if isinstance(v, float) else v)
            for k, v in doc.items()}


# -- report ----------------------------------------------------------------------------


def report(doc: dict) -> None:
    machine = doc["machine"]
    console.print(f"[bold]machine[/]: {machine['cores']} cores · load {machine['capacity']['loadavg']} · "
                  f"parallel capacity {machine['capacity']['capacity_cores']} cores")
    speed = doc["jobs_speedup"]
    table = Table(title=f"--jobs 2 vs --jobs 1 · {speed['command']}")
    for column in ("run", "jobs 1 wall s", "jobs 2 wall s", "ratio", "count", "shards CPU s", "load 1m"):
        table.add_column(column, justify="right")
    for k, (a, b) in enumerate(zip(speed["runs"]["1"], speed["runs"]["2"], strict=True)):
        table.add_row(str(k + 1), f"{a['wall_s']:.1f}", f"{b['wall_s']:.1f}", f"{a['wall_s'] / b['wall_s']:.2f}×",
                      f"{b['count']:,}", f"{b['shard_cpu_s']}", f"{a['loadavg_1m']}/{b['loadavg_1m']}")
    table.caption = (f"median speedup {speed['speedup_median']}× (target ≥ 1.7×); shards' CPU / one-process CPU "
                     f"{speed['shard_cpu_over_one_cpu']}; capacity {speed['capacity_before']['capacity_cores']} → "
                     f"{speed['capacity_after']['capacity_cores']} cores")
    console.print(table)
    dask = doc["dask"]
    if "skipped" in dask:
        console.print(f"dask: skipped ({dask['skipped']})")
    else:
        console.print(f"[bold]Dask LocalCluster vs local pool[/] ({dask['command']}): "
                      f"{dask['dask_over_local']}× the wall time ({dask['dask_minus_local_s']:+.1f} s), "
                      f"cluster start-up {dask['cluster_startup_s']} s, same count: {dask['same_count']}")
    cut = doc["orientation"]
    table = Table(title=f"where to cut · {cut['spec']} · the backtracker fills {cut['fills']}")
    for column in ("plan", "shards", "nodes", "× one job", "CPU s", "count"):
        table.add_column(column, justify="right")
    for name, key in (("one job", "one_job"), ("shards along the fill line", "shards_along_fill"),
                      ("shards fixing row 1", "shards_fixing_row_1")):
        run = cut[key]
        table.add_row(name, f"{run['shards']:,}", f"{run['nodes']:,}", f"{run['nodes'] / cut['one_job']['nodes']:.2f}",
                      f"{run['cpu_s']}", f"{run['count']:,}")
    table.caption = f"one job filling rows instead: {cut['one_job_filling_rows_nodes']:,} nodes"
    console.print(table)
    cp = doc["cpsat"]
    line = (f"[bold]CP-SAT shards[/] ({cp['spec']}, {cp['shards']:,} one-word shards along the {cp['split_line']}): "
            f"ms CPU per shard {cp['ms_cpu_per_shard']}, projected {cp['projected_cpu_s']} CPU s")
    if "run" in cp:
        run = cp["run"]
        line += (f"; --jobs 2 run: {run['wall_s']} s wall, {run['count']} found, complete {run['complete']}, "
                 f"shards' CPU {run['shard_cpu_s']} s (target: 60 s wall)")
    console.print(line)
    plan = doc["planning"]
    table = Table(title=f"planning · {plan['spec']}")
    for column in ("method", "nodes", "CPU-hours", "workers for 1 h"):
        table.add_column(column, justify="right")
    knuth, sampled = plan["knuth"], plan["sampled_shards"]
    table.add_row(f"Knuth, {knuth['probes']:,} probes", f"{knuth['nodes']:,} ± {knuth['nodes_stderr']:,}",
                  f"{plan['cpu_hours']['knuth']}", f"{plan['workers_for_one_hour']['knuth']}")
    table.add_row(f"{sampled['sampled']} sampled shards", f"{sampled['nodes']:,} ± {sampled['nodes_stderr']:,}",
                  f"{plan['cpu_hours']['sampled_shards']}", f"{plan['workers_for_one_hour']['sampled_shards']}")
    piece = plan["slice"]
    table.add_row(f"slice of {piece['words']} shards, scaled", f"{plan['whole_nodes']['slice_scaled']:,}",
                  f"{plan['cpu_hours']['slice_scaled']}", f"{plan['workers_for_one_hour']['slice_scaled']}")
    table.caption = (f"slice: {piece['nodes']:,} nodes real vs {piece['knuth_estimate_nodes']:,} ± "
                     f"{piece['knuth_estimate_stderr']:,} Knuth ({piece['real_over_knuth']}×), {piece['count']:,} "
                     f"rectangles, {piece['cpu_s']} CPU s in {piece['wall_s']} s on 2 processes; "
                     f"{plan['node_rate_per_cpu_s']:,} nodes per CPU second")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller cases, about two minutes on a quiet machine")
    parser.add_argument("--slice", type=int, default=None, help="random one-word shards in the real slice (default 200, --quick 10)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    quick = args.quick
    out = args.out or Path(__file__).parent / "results" / ("scale.quick.json" if quick else "scale.json")
    lexicon = load_default()
    doc = {"quick": quick, "machine": {"cores": os.cpu_count(), "capacity": parallel_capacity()}}
    console.print("jobs speedup…")
    doc["jobs_speedup"] = jobs_speedup(4000 if quick else 5000, 1 if quick else 2)
    console.print("dask…")
    doc["dask"] = dask_overhead(3000 if quick else 5000)
    console.print("where to cut…")
    doc["orientation"] = orientation_case(lexicon, 300 if quick else 1000)
    console.print("cp-sat shards…")
    doc["cpsat"] = cpsat_shards(lexicon, 15 if quick else 40, whole_run=not quick)
    console.print("planning…")
    doc["planning"] = planning(lexicon, args.slice or (10 if quick else 200), 500 if quick else 2000, 5.0 if quick else 20.0)
    doc["machine"]["capacity_at_end"] = parallel_capacity()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    report(doc)
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
