"""Benchmark: the front door and --solver auto (issue 8, parts 2 and 3).

    flock /tmp/cpmodel-bench.lock nice -n 0 python benchmarks/front_door.py [--quick] [--repeats 3]

1. Whole process, side by side (``python -m cpmodel ...`` in a subprocess;
   wall seconds and the CPU seconds of the process and all its children):
   the familiar-words default ``rect 5x6`` beside the one-process branch and
   bound and beside the old default (CP-SAT's first solution, letters in
   alphabetical order); ``--best`` through auto; ``--limit 1`` through auto
   beside the backtracker alone; Bananagrams through auto beside each engine
   alone (``qqq``; 21-tile hands, seeds 0-4). Every answer is read from
   ``--json`` and checked: status, largest word rank, "proven", who answered.
2. How many engines auto should start on this machine's cores: the race of
   one engine per core (``portfolio_plan``) beside all three engines, on
   first-solution cases; and --best as the backtracker in 2 stripes sharing
   the bound, 1 stripe, or backtrack beside cp.
3. Value order of a first solution: CP-SAT on letters (alphabetical) or on
   word ranks (most common word first), cp on letters or words by rank, and
   the backtracker: seconds, branches/nodes, and the largest word rank of the
   rectangle each finds first.

Absolute seconds drift on a shared machine (the load average is recorded);
compare the ratios in the same run, and the node and branch counts.
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
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
OPTIMUM_5X6 = 2730  # largest rank of the proven most familiar 5x6 (SAFARI/ORIGIN/RELIVE/TALLER/ASSERT)


def run_cli(args: list[str], timeout: float = 300) -> dict:
    """One whole process: wall and CPU seconds (its children included) and its JSON answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpmodel", *args, "--json"], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = {"status": f"exit {proc.returncode}: {proc.stderr.strip()[-200:]}"}
    return {"wall": wall, "cpu": cpu, "exit": proc.returncode, "doc": doc}


def answer_of(doc: dict) -> dict:
    """The parts of a JSON answer the tables show."""
    objective = doc.get("objective") or {}
    solvers = doc.get("solvers")
    alone = solvers[0]["solver"] if isinstance(solvers, list) and solvers else doc.get("solver")
    return {"status": doc.get("status"), "max_rank": objective.get("max_rank"),
            "proven": doc.get("proven", doc.get("complete")), "answered_by": doc.get("answered_by", alone),
            "portfolio": doc.get("portfolio", {}).get("engines")}


def measured(label: str, args: list[str], repeats: int) -> dict:
    runs = [run_cli(args) for _ in range(repeats)]
    row = {"case": label, "command": "python -m cpmodel " + " ".join(args), "repeats": repeats,
           "wall_median": statistics.median(r["wall"] for r in runs),
           "cpu_median": statistics.median(r["cpu"] for r in runs),
           "walls": [round(r["wall"], 3) for r in runs], **answer_of(runs[-1]["doc"])}
    return row


def whole_process(repeats: int, seeds: int) -> list[dict]:
    rows = [
        measured("front door, auto (familiar)", ["rect", "5x6"], repeats),
        measured("  one process, backtrack --best", ["rect", "5x6", "--best", "--solver", "backtrack", "--jobs", "1"], repeats),
        measured("  old default: cpsat --limit 1", ["rect", "5x6", "--solver", "cpsat", "--limit", "1"], 1),
        measured("--best, auto", ["rect", "5x6", "--best"], repeats),
        measured("4x4 --top 2000 --best, auto", ["rect", "4x4", "--top", "2000", "--best"], repeats),
        measured("  backtrack alone", ["rect", "4x4", "--top", "2000", "--best", "--solver", "backtrack", "--jobs", "1"], repeats),
        measured("--limit 1, auto", ["rect", "5x6", "--limit", "1"], repeats),
        measured("  backtrack alone", ["rect", "5x6", "--limit", "1", "--solver", "backtrack"], repeats),
        measured("banana qqq, auto", ["banana", "qqq"], repeats),
        measured("  cpsat alone", ["banana", "qqq", "--solver", "cpsat"], repeats),
    ]
    for solver in ("auto", "backtrack"):
        runs = [measured(f"seed {seed}", ["banana", "--draw", "21", "--seed", str(seed), "--solver", solver], 1)
                for seed in range(seeds)]
        rows.append({"case": f"banana 21 tiles, {solver}" if solver == "auto" else "  backtrack alone",
                     "command": f"python -m cpmodel banana --draw 21 --seed 0..{seeds - 1} --solver {solver}",
                     "repeats": seeds, "wall_median": statistics.median(r["wall_median"] for r in runs),
                     "cpu_median": statistics.median(r["cpu_median"] for r in runs),
                     "walls": [round(r["wall_median"], 3) for r in runs],
                     "status": "/".join(sorted({r["status"] for r in runs})), "max_rank": None, "proven": None,
                     "answered_by": "/".join(sorted({str(r["answered_by"]) for r in runs}))})
    return rows


def race_seconds(job, plan, repeats: int) -> dict:
    """Median wall seconds of an in-process race, with the CPU of its children."""
    from cpmodel.core.control import Control
    from cpmodel.run.portfolio import race

    walls, cpus, result = [], [], None
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = race(job, plan, Control(time_limit=job.time_limit))
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"wall_median": statistics.median(walls), "cpu_median": statistics.median(cpus), "status": result.status,
            "answered_by": result.solver, "complete": result.complete,
            "max_rank": result.objective[0] if result.objective else None}


def cores(repeats: int, quick: bool) -> list[dict]:
    from cpmodel.core.control import Request
    from cpmodel.core.jobs import Job
    from cpmodel.core.lexicon import load_default
    from cpmodel.core.specs import rectangle_spec
    from cpmodel.run.portfolio import Entrant, available_cores, portfolio_plan

    lexicon = load_default()
    first = Request(limit=1)
    cases = [  # the backtracker wins; cp wins (a fixed last row, which the backtracker meets only at its last level)
        ("5x6 --limit 1", rectangle_spec(5, 6, lexicon), first),
        ("5x5 --distinct --limit 1", rectangle_spec(5, 5, lexicon, distinct=True), first),
        ("5x6 --limit 1 --pattern ……/z.....", rectangle_spec(5, 6, lexicon, pattern=("......",) * 4 + ("z.....",)), first),
    ]
    rows = []
    two = portfolio_plan("rect", cores=available_cores())
    three = [Entrant("backtrack"), Entrant("cp"), Entrant("cpsat")]
    for label, spec, request in cases:
        job = Job("rect", spec, "auto", request, time_limit=30.0 if quick else 60.0)
        for name, plan in ((f"{len(two)} engines (one per core)", two), ("3 engines", three)):
            rows.append({"case": label, "plan": name + ": " + " + ".join(map(str, plan)), **race_seconds(job, plan, repeats)})
    best = Job("rect", rectangle_spec(5, 6, lexicon), "auto", Request(limit=None, best=True), time_limit=120.0)
    for name, plan in (("backtrack in 2 stripes, shared bound", [Entrant("backtrack", 2)]),
                       ("backtrack, 1 process", [Entrant("backtrack")]),
                       ("backtrack + cp", [Entrant("backtrack"), Entrant("cp")])):
        rows.append({"case": "5x6 --best", "plan": name, **race_seconds(best, plan, 1 if quick else repeats)})
    return rows


def value_order(quick: bool) -> list[dict]:
    from cpmodel.core.control import Control, Request
    from cpmodel.core.jobs import Job
    from cpmodel.core.lexicon import load_default
    from cpmodel.core.specs import rectangle_spec
    from cpmodel.core.validate import rank_objective
    from cpmodel.run import engines

    top = 3000 if quick else None
    spec = rectangle_spec(5, 6, load_default(), top=top)
    limit = 30.0 if quick else 120.0
    rows = []
    for engine, order, label in (("cpsat", "letters", "cpsat, letters a..z"), ("cpsat", "rank", "cpsat, word ranks first"),
                                 ("cp", "letters", "cp, letters first-fail"), ("cp", "rank", "cp, words by rank"),
                                 ("backtrack", None, "backtrack (rank order)")):
        job = Job("rect", spec, engine, Request(limit=1), time_limit=limit, options={"order": order} if order else {})
        started = time.process_time()
        result = engines.run(job, Control(time_limit=limit))
        cpu = time.process_time() - started
        effort = result.stats.get("nodes", result.stats.get("branches"))
        rows.append({"case": f"5x6{f' --top {top}' if top else ''} --limit 1", "method": label, "status": result.status,
                     "cpu_s": cpu, "seconds": result.seconds, "effort": effort,
                     "max_rank": rank_objective(spec, result.solutions[0])[0] if result.solutions else None,
                     "first_row": result.solutions[0][0] if result.solutions else None})
    return rows


def show(console: Console, whole: list[dict], race_rows: list[dict], order_rows: list[dict]) -> None:
    table = Table(title="1. whole process (python -m cpmodel …): median wall and CPU seconds (children included)")
    for header in ("case", "wall s", "CPU s", "status", "max rank", "proven", "answered by"):
        table.add_column(header, justify="left" if header in ("case", "status", "answered by") else "right")
    for r in whole:
        table.add_row(r["case"], f"{r['wall_median']:.2f}", f"{r['cpu_median']:.2f}", str(r["status"]),
                      "" if r["max_rank"] is None else f"{r['max_rank']:,}", "" if r["proven"] is None else str(r["proven"]),
                      str(r["answered_by"]))
    console.print(table)
    table = Table(title="2. engines per core: race wall seconds (median), children's CPU")
    for header in ("case", "plan", "wall s", "CPU s", "status", "answered by"):
        table.add_column(header, justify="right" if header.endswith(" s") else "left")
    for r in race_rows:
        table.add_row(r["case"], r["plan"], f"{r['wall_median']:.2f}", f"{r['cpu_median']:.2f}",
                      f"{r['status']}{'' if r['complete'] else ' (cut)'}", r["answered_by"])
    console.print(table)
    table = Table(title="3. value order of a first solution")
    for header in ("case", "method", "status", "CPU s", "nodes/branches", "max rank", "first row"):
        table.add_column(header, justify="right" if header in ("CPU s", "nodes/branches", "max rank") else "left")
    for r in order_rows:
        table.add_row(r["case"], r["method"], r["status"], f"{r['cpu_s']:.2f}", f"{r['effort']:,}" if r["effort"] else "",
                      "" if r["max_rank"] is None else f"{r['max_rank']:,}", str(r["first_row"] or ""))
    console.print(table)


def ratios(whole: list[dict]) -> dict:
    """Each "X, auto" row over the "  … alone" or "  one process …" rows under it (wall seconds)."""
    out, head = {}, None
    for row in whole:
        if not row["case"].startswith("  "):
            head = row
        elif head is not None:
            out[f"{head['case']} / {row['case'].strip()}"] = round(head["wall_median"] / row["wall_median"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, value order on --top 3000 (about 3 minutes)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default=None, help="JSON results (default: results/front_door[.quick].json)")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 1
    out = Path(args.out or Path(__file__).parent / "results" / f"front_door{'.quick' if args.quick else ''}.json")
    console = Console(width=140)
    load = os.getloadavg()
    whole = whole_process(args.repeats, args.seeds)
    race_rows = cores(args.repeats, args.quick)
    order_rows = value_order(args.quick)
    show(console, whole, race_rows, order_rows)
    summary = ratios(whole)
    front = whole[0]
    summary["front door: largest rank ≤ 2730 and proven"] = bool(front["max_rank"] is not None
                                                               and front["max_rank"] <= OPTIMUM_5X6 and front["proven"])
    for name, value in summary.items():
        console.print(f"{name}: {value}", highlight=False)
    console.print(f"load average at the start: {load[0]:.2f} (cores: {os.cpu_count()})", highlight=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"load_average": load, "cores": os.cpu_count(), "whole_process": whole,
                               "engines_per_core": race_rows, "value_order": order_rows, "ratios": summary}, indent=2))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
