"""Benchmark: why CP-SAT is slow on word rectangles, parameter by parameter.

    python benchmarks/rectangle_cpsat.py [--quick] [--limit 120]

The same table model (cpmodel/models/rectangle.py, encoding table) under:

* defaults: presolve on, the default portfolio of 2 workers, automatic search;
* cpmodel: presolve off, 1 worker, fixed first-fail search (what solve() uses).

For each: time to the first 5×6 on the full lexicon, and counting all 5×6
of --top 3000 (time-limited). CP-SAT's own log is captured to report how
many literals the learned clauses held, the cost that dominates enumeration.
Runs one after the other in the same process; the backtracker's time on the
same cases is the reference for the ratios.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from ortools.sat.python import cp_model
from rich.console import Console
from rich.table import Table

from cpmodel.core.control import Control, Request
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.models.rectangle import build_model
from heuristics import rectangle as backtrack


def run(spec, variant: str, enumerate_all: bool, limit: float) -> dict:
    model, variables = build_model(spec, "table", enumerating=enumerate_all)
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.max_time_in_seconds = limit
    params.log_search_progress = True
    params.log_to_stdout = False
    log: list[str] = []
    solver.log_callback = log.append
    if variant == "cpmodel":
        letters = [v for row in variables.letter for v in row]
        model.add_decision_strategy(letters, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)
        params.num_workers = 1
        params.cp_model_presolve = False
        params.search_branching = cp_model.FIXED_SEARCH
    else:
        params.num_workers = 1 if enumerate_all else 2
    params.enumerate_all_solutions = enumerate_all

    class Count(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.n = 0

        def on_solution_callback(self):
            self.n += 1

    counter = Count()
    started = time.perf_counter()
    status = solver.solve(model, counter)
    seconds = time.perf_counter() - started
    learned = _learned_literals(log)
    return {"variant": variant, "task": "count top 3000" if enumerate_all else "first, full lexicon",
            "status": solver.status_name(status), "solutions": counter.n, "seconds": round(seconds, 2),
            "branches": solver.num_branches, "conflicts": solver.num_conflicts, "learned_literals": learned,
            "literals_per_conflict": round(learned / solver.num_conflicts) if learned and solver.num_conflicts else None}


def _learned_literals(log: list[str]) -> int | None:
    """From the 'SAT stats' table of CP-SAT's log: the LitLearned column."""
    text = "\n".join(log)
    header = re.search(r"SAT stats\s+(.*)\n\s*'main':\s+(.*)", text)
    if not header:
        return None
    names, values = header.group(1).split(), header.group(2).split()
    if "LitLearned" not in names:
        return None
    return int(values[names.index("LitLearned")].replace("'", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: CP-SAT limit 20 s per run; writes results/rectangle_cpsat.quick.json")
    parser.add_argument("--out", default=None, help="JSON results (default: results/rectangle_cpsat.json)")
    args = parser.parse_args()
    if args.quick:
        args.limit = 20.0
    args.out = args.out or str(Path(__file__).parent / "results" / f"rectangle_cpsat{'.quick' if args.quick else ''}.json")
    lexicon = load_default()
    full, top = rectangle_spec(5, 6, lexicon), rectangle_spec(5, 6, lexicon, top=3000)
    reference = {
        "first, full lexicon": backtrack.solve(full).seconds,
        "count top 3000": backtrack.solve(top, Request(limit=None, count_only=True), Control()).seconds,
    }
    rows = [run(spec, variant, enum, args.limit) for enum, spec in ((False, full), (True, top)) for variant in ("defaults", "cpmodel")]
    for r in rows:
        r["x_backtrack"] = round(r["seconds"] / reference[r["task"]], 1)
    table = Table(title=f"CP-SAT on 5×6 rectangles, table encoding (limit {args.limit:g} s)")
    for h in ("task", "variant", "status", "solutions", "seconds", "× backtrack", "branches", "conflicts", "learned literals", "per conflict"):
        table.add_column(h, justify="left" if h in ("task", "variant", "status") else "right")
    for r in rows:
        table.add_row(r["task"], r["variant"], r["status"], str(r["solutions"]), f"{r['seconds']:.2f}", f"{r['x_backtrack']:.1f}",
                      f"{r['branches']:,}", f"{r['conflicts']:,}", f"{r['learned_literals'] or 0:,}", str(r["literals_per_conflict"]))
    table.caption = " · ".join(f"backtracker {k}: {v:.2f} s" for k, v in reference.items())
    Console(width=170).print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "backtrack_seconds": reference, "limit": args.limit}, indent=2))
    Console().print(f"wrote {out}")


if __name__ == "__main__":
    main()
