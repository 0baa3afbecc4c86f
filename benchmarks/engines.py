"""Benchmark: the same model on three engines, side by side.

    python benchmarks/engines.py [--quick] [--cpsat-limit 60] [--limit 300] [--repeats 3]

Engines: the backtracker (Algorithm B, heuristics/), OR-Tools' classic CP
solver (``cp``: depth-first, table propagation, no learning) and CP-SAT
(CDCL with clause learning), through the one registry (cpmodel.run.engines), on
the same specs:

1. rectangles 4×4 --top 2000, 5×6 --top 3000 / 5000 / every word, and one
   Wordscapes board, in the modes first solution, --all or --count, --best;
   each engine runs each case in this process, one after the other;
2. studies beside the engines' own settings:
   * first solutions in rank order (most common word first) against letter
     order (smallest letter first), for cp and CP-SAT;
   * cp --best by its restarts against the direct objective
     (W·max rank + Σ rank in one branch and bound over word variables);
   * (not with --quick) cp enumerating 5×6 --top 3000 under other search
     orders (domain split, column-major ties, row-major, word variables,
     impact-based) and with the lines as layered DAWG tables;
3. the issue's cp-enumeration targets as whole processes: ``python -m cpmodel
   rect 5x6 --top 3000 --all`` and ``--top 5000 --count`` with ``--jobs 1``,
   backtrack and cp alternating, ``--repeats`` times each.

Every row reports seconds (wall) and CPU seconds, the ratio to the
backtracker on the same case, and the effort counts (nodes; branches and
failures; branches and conflicts), which unlike seconds do not drift on a
shared machine. Rich table on stdout, JSON in benchmarks/results/engines.json
(engines.quick.json with --quick, about 2 minutes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cpmodel.core.boards import parse_crossword
from cpmodel.core.control import Control, Request
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import load_default
from cpmodel.core.result import SolveResult
from cpmodel.core.specs import rectangle_spec, wordscapes_spec
from cpmodel.run import engines

FIRST, ALL, COUNT, BEST = Request(), Request(limit=None), Request(limit=None, count_only=True), Request(limit=None, best=True)
MODES = {"first": FIRST, "all": ALL, "count": COUNT, "best": BEST}
ENGINES = ("backtrack", "cp", "cpsat")
RING = "....\n.##.\n...."  # the compare suite's Wordscapes board


@dataclass(frozen=True)
class Case:
    name: str
    puzzle: str
    spec: object
    mode: str
    engines: tuple[str, ...] = ENGINES


def rect_case(lexicon, m: int, n: int, top: int | None, mode: str, chosen=ENGINES, distinct: bool = False) -> Case:
    name = f"{m}x{n}{f' --top {top}' if top else ''} {'first' if mode == 'first' else '--' + mode}"
    return Case(name + (" --distinct" if distinct else ""), "rect",
                rectangle_spec(m, n, lexicon, top=top, distinct=distinct), mode, chosen)


def suite(lexicon, quick: bool) -> list[Case]:
    """The cases. CP-SAT sits out the enumerations it cannot finish in any sensible limit
    (measured before: 5×6 --top 3000 --all about 190 s, --top 5000 a few % in 90 s;
    4×4 --top 2000 has 805,781 rectangles)."""
    board = wordscapes_spec(parse_crossword(RING), "retains", lexicon)
    no_cpsat = ("backtrack", "cp")
    if quick:
        return [rect_case(lexicon, 4, 4, 2000, "first"), rect_case(lexicon, 4, 4, 2000, "count"),
                rect_case(lexicon, 4, 4, 2000, "best", no_cpsat), rect_case(lexicon, 5, 6, 3000, "first"),
                rect_case(lexicon, 5, 6, 3000, "all", no_cpsat),
                *(Case(f"wordscapes ring --{mode}", "wordscapes", board, mode) for mode in ("first", "count", "best"))]
    return [
        rect_case(lexicon, 4, 4, 2000, "first"), rect_case(lexicon, 4, 4, 2000, "count", no_cpsat),
        rect_case(lexicon, 4, 4, 2000, "best"),
        rect_case(lexicon, 5, 6, 3000, "first"), rect_case(lexicon, 5, 6, 3000, "all", no_cpsat),
        rect_case(lexicon, 5, 6, 3000, "all", no_cpsat, distinct=True), rect_case(lexicon, 5, 6, 3000, "best"),
        rect_case(lexicon, 5, 6, 5000, "count", no_cpsat), rect_case(lexicon, 5, 6, 5000, "best", no_cpsat),
        rect_case(lexicon, 5, 6, None, "first"), rect_case(lexicon, 5, 6, None, "best"),
        *(Case(f"wordscapes ring --{mode}", "wordscapes", board, mode) for mode in ("first", "count", "best")),
    ]


def measure(label: str, engine: str, run) -> dict:
    """Run once; wall and CPU seconds, the answer and the effort counts."""
    wall, cpu = time.perf_counter(), time.process_time()
    result: SolveResult = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stats = result.stats
    return {"case": label, "engine": engine, "status": result.status, "complete": result.complete,
            "count": result.count, "objective": list(result.objective) if result.objective else None,
            "seconds": round(wall, 3), "cpu": round(cpu, 3),
            "nodes": stats.get("nodes"), "branches": stats.get("branches"),
            "failures": stats.get("failures"), "conflicts": stats.get("conflicts"),
            "solutions": sorted(result.solutions) if result.solutions and len(result.solutions) <= 2000 else None}


def run_engines(cases: list[Case], limits: dict[str, float], progress) -> list[dict]:
    rows = []
    for case in cases:
        for engine in case.engines:
            progress(f"{case.name} · {engine}")
            job = Job(case.puzzle, case.spec, engine, MODES[case.mode])
            rows.append(measure(case.name, engine, partial(engines.run, job, Control(time_limit=limits[engine]))))
    return rows


# -- studies ----------------------------------------------------------------------------------


def cp_first(spec, order: str, limit: float) -> SolveResult:
    """cp's first rectangle, branching on word variables in rank order or on letters in letter order."""
    from cpmodel.models import rectangle_cp

    solver, variables = rectangle_cp.build_model(spec, words=order == "rank")
    builder = rectangle_cp.decision_builder(solver, variables, by_rank=order == "rank")
    return _cp_run(solver, variables, builder, [], spec, limit, stop_at_first=True)


def cp_best_direct(spec, limit: float) -> SolveResult:
    """The direct --best: rank variables in the tables, W·max + Σ minimised by one branch and bound."""
    from cpmodel.models import rectangle_cp

    solver, variables = rectangle_cp.build_model(spec, best=True)
    builder = rectangle_cp.decision_builder(solver, variables, by_rank=True)
    return _cp_run(solver, variables, builder, [solver.Minimize(variables.objective, 1)], spec, limit, False)


def _cp_run(solver, variables, builder, monitors, spec, limit: float, stop_at_first: bool) -> SolveResult:
    from cpmodel.core.validate import check_rectangle, rank_objective
    from cpmodel.models.rectangle_cp import StopPoll

    started, poll, best, rows = time.perf_counter(), StopPoll(solver, Control(time_limit=limit)), None, None
    solver.NewSearch(builder, [poll.limit, *monitors])
    while solver.NextSolution():
        rows = tuple("".join(chr(97 + v.Value()) for v in row) for row in variables.letter)
        check_rectangle(spec, rows)
        best = rank_objective(spec, rows)
        if stop_at_first:
            break
    branches, failures = solver.Branches(), solver.Failures()
    solver.EndSearch()
    exhausted = poll.reason is None and not (stop_at_first and rows)
    status = "found" if rows else ("none" if exhausted else "unknown")
    return SolveResult("cp", status, exhausted or (stop_at_first and rows is not None), int(rows is not None),
                       [rows] if rows else [], time.perf_counter() - started, poll.reason, best,
                       {"branches": branches, "failures": failures})


def cpsat_first(spec, order: str, limit: float) -> SolveResult:
    """CP-SAT's first rectangle: its own letter order, or word identities (numbered in rank
    order) branched most common word first, then the letters."""
    from ortools.sat.python import cp_model

    from cpmodel.core.validate import check_rectangle, rank_objective
    from cpmodel.models import rectangle as cpsat

    if order == "letters":
        result = cpsat.solve(spec, FIRST, Control(time_limit=limit))
        result.objective = rank_objective(spec, result.solutions[0]) if result.solutions else None
        return result
    started = time.perf_counter()
    model, variables = cpsat.build_model(spec, "table", enumerating=False)
    cpsat._add_word_ids(model, spec, variables, "table")  # (letters, id) tables; ids in rank order per list
    ids = [variables.word_id[key] for key in sorted(variables.word_id)]
    model.add_decision_strategy(ids, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)
    letters = [v for row in variables.letter for v in row]
    model.add_decision_strategy(letters, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)
    solver = cp_model.CpSolver()
    cpsat.search_parameters(solver, FIRST, Control(time_limit=limit), False)
    solver.parameters.max_time_in_seconds = limit
    status = solver.solve(model)
    rows = None
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        rows = tuple("".join(chr(97 + solver.value(v)) for v in row) for row in variables.letter)
        check_rectangle(spec, rows)
    return SolveResult("cpsat", "found" if rows else ("none" if status == cp_model.INFEASIBLE else "unknown"),
                       rows is not None or status == cp_model.INFEASIBLE, int(rows is not None), [rows] if rows else [],
                       time.perf_counter() - started, None if rows else "time-limit",
                       rank_objective(spec, rows) if rows else None,
                       {"branches": solver.num_branches, "conflicts": solver.num_conflicts})


def studies(lexicon, quick: bool, cpsat_limit: float, limit: float, progress) -> list[dict]:
    rows = []
    tops = [(4, 4, 1000), (5, 6, 3000)] if quick else [(3, 3, None), (4, 4, 1000), (5, 6, 3000), (5, 6, None)]
    for m, n, top in tops:
        spec = rectangle_spec(m, n, lexicon, top=top)
        label = f"first {m}x{n}{f' --top {top}' if top else ''}"
        for order in ("rank", "letters"):
            progress(f"{label} · cp {order} order")
            rows.append(measure(label, f"cp, {order} order", partial(cp_first, spec, order, limit)))
        for order in ("letters", "rank"):
            progress(f"{label} · CP-SAT {order} order")
            rows.append(measure(label, f"cpsat, {order} order", partial(cpsat_first, spec, order, cpsat_limit)))
    for m, n, top in [(4, 4, 2000), (5, 6, 3000)] + ([] if quick else [(5, 6, None)]):
        spec = rectangle_spec(m, n, lexicon, top=top)
        label = f"best {m}x{n}{f' --top {top}' if top else ''}"
        progress(f"{label} · cp direct objective")
        rows.append(measure(label, "cp, direct objective", partial(cp_best_direct, spec, cpsat_limit)))
        progress(f"{label} · cp restarts")
        rows.append(measure(label, "cp, restarts (engine)", partial(engines.run, Job("rect", spec, "cp", BEST),
                                                                               Control(time_limit=limit))))
    return rows


def search_orders(lexicon, limit: float, progress) -> list[dict]:
    """cp enumerating 5×6 --top 3000 (6 rectangles) under other search orders and line encodings.

    The tree's size depends on the order only; the seconds also on what a
    branch costs, which the encoding sets."""
    from cpmodel.models import rectangle_cp

    spec = rectangle_spec(5, 6, lexicon, top=3000)
    rows = []

    def enumerate_with(method: str, words=False, choose=None, value=None, order="rows", encoding="table"):
        solver, variables = rectangle_cp.build_model(spec, words=words) if encoding == "table" else _dawg_model(spec, encoding)
        cells = [v for row in variables.letter for v in row]
        if order == "cols":
            cells = [variables.letter[i][j] for j in range(spec.n) for i in range(spec.m)]
        if words:
            builder = rectangle_cp.decision_builder(solver, variables, by_rank=True)
        elif choose == "impact":
            builder = solver.DefaultPhase(cells)  # OR-Tools' impact-based search
        else:
            builder = solver.Phase(cells, getattr(solver, choose), getattr(solver, value))
        progress(f"5x6 --top 3000 --all · cp {method}")
        rows.append(measure("5x6 --top 3000 --all", f"cp, {method}",
                            lambda: _cp_all(solver, variables, builder, spec, limit)))

    enumerate_with("letters first-fail (engine)", choose="CHOOSE_MIN_SIZE_LOWEST_MAX", value="ASSIGN_MIN_VALUE")
    enumerate_with("letters first-fail, domain split", choose="CHOOSE_MIN_SIZE_LOWEST_MAX", value="SPLIT_LOWER_HALF")
    enumerate_with("letters first-fail, column-major ties", choose="CHOOSE_MIN_SIZE_LOWEST_MAX", value="ASSIGN_MIN_VALUE",
                   order="cols")
    enumerate_with("letters in row-major order (a trie walk)", choose="CHOOSE_FIRST_UNBOUND", value="ASSIGN_MIN_VALUE")
    enumerate_with("word variables, fewest words first", words=True)
    enumerate_with("letters, impact-based (DefaultPhase)", choose="impact")
    enumerate_with("letters first-fail, layered DAWG tables", choose="CHOOSE_MIN_SIZE_LOWEST_MAX",
                   value="ASSIGN_MIN_VALUE", encoding="dawg")
    return rows


def _dawg_model(spec, encoding: str):
    """Each line as the DAWG with explicit state variables, one (state, letter, state) table per layer."""
    from ortools.constraint_solver import pywrapcp

    from cpmodel.core.dawg import build_dawg
    from cpmodel.models.rectangle_cp import CpRectangleVars

    solver = pywrapcp.Solver("dawg")
    letter = [[solver.IntVar(0, 25, "") for _ in range(spec.n)] for _ in range(spec.m)]
    lines = [(letter[i], spec.row_words) for i in range(spec.m)]
    lines += [([letter[i][j] for i in range(spec.m)], spec.col_words) for j in range(spec.n)]
    for cells, words in lines:
        dawg = build_dawg(words)
        layer = dawg.layers()
        states = [solver.IntVar(0, dawg.num_states - 1, "") for _ in range(len(cells) + 1)]
        solver.Add(states[0] == dawg.start)
        for k, cell in enumerate(cells):
            solver.Add(solver.AllowedAssignments([states[k], cell, states[k + 1]],
                                                 [list(arc) for arc in dawg.transitions if layer[arc[0]] == k]))
        solver.Add(solver.MemberCt(states[-1], list(dawg.finals)))
    return solver, CpRectangleVars(letter)


def _cp_all(solver, variables, builder, spec, limit: float) -> SolveResult:
    from cpmodel.core.validate import check_rectangle
    from cpmodel.models.rectangle_cp import StopPoll

    started, poll, found = time.perf_counter(), StopPoll(solver, Control(time_limit=limit)), []
    solver.NewSearch(builder, [poll.limit])
    while solver.NextSolution():
        rows = tuple("".join(chr(97 + v.Value()) for v in row) for row in variables.letter)
        check_rectangle(spec, rows)
        found.append(rows)
    branches, failures = solver.Branches(), solver.Failures()
    solver.EndSearch()
    done = poll.reason is None
    return SolveResult("cp", "found" if found else ("none" if done else "unknown"), done, len(found), found,
                       time.perf_counter() - started, poll.reason, None, {"branches": branches, "failures": failures})


# -- whole processes -----------------------------------------------------------------------------


def whole_process(args: list[str], engine: str) -> dict:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpmodel", *args, "--solver", engine, "--jobs", "1", "--json"],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    doc = json.loads(proc.stdout)
    return {"wall": round(wall, 3), "count": doc["count"], "complete": doc["complete"],
            "solutions": sorted(map(tuple, doc.get("solutions") or [])) or None}


def processes(commands: list[list[str]], repeats: int, progress) -> list[dict]:
    """Each command on backtrack and cp, alternating, so both see the same machine load."""
    rows = []
    for args in commands:
        runs: dict[str, list[dict]] = {"backtrack": [], "cp": []}
        for k in range(repeats):
            for engine in runs:
                progress(f"{' '.join(args)} · {engine} · run {k + 1}/{repeats}")
                runs[engine].append(whole_process(args, engine))
        bt, cp = (statistics.median(r["wall"] for r in runs[e]) for e in ("backtrack", "cp"))
        same = all(r["count"] == runs["backtrack"][0]["count"] and r["solutions"] == runs["backtrack"][0]["solutions"]
                   for e in runs for r in runs[e])
        rows.append({"command": "python -m cpmodel " + " ".join(args) + " --jobs 1", "repeats": repeats,
                     "backtrack_wall": [r["wall"] for r in runs["backtrack"]], "cp_wall": [r["wall"] for r in runs["cp"]],
                     "backtrack_median": bt, "cp_median": cp, "cp_over_backtrack": round(cp / bt, 2),
                     "count": runs["backtrack"][0]["count"], "identical": same})
    return rows


# -- report ---------------------------------------------------------------------------------------


def add_ratios(rows: list[dict]) -> None:
    """seconds and CPU over the backtracker's on the same case (engine rows only)."""
    base = {r["case"]: r for r in rows if r["engine"] == "backtrack"}
    for r in rows:
        if r["case"] in base:
            r["over_backtrack"] = round(r["seconds"] / max(base[r["case"]]["seconds"], 1e-6), 2)
            r["cpu_over_backtrack"] = round(r["cpu"] / max(base[r["case"]]["cpu"], 1e-6), 2)


def agreement(rows: list[dict]) -> dict[str, str]:
    """Per case: do the engines that finished agree on count, optimum and (when kept) solutions?"""
    verdicts = {}
    for case in dict.fromkeys(r["case"] for r in rows):
        done = [r for r in rows if r["case"] == case and r["complete"]]
        if len(done) < 2:
            verdicts[case] = "one engine finished"
            continue
        first_mode = case.endswith(" first") or case.endswith("--first")
        keys = ["objective"] if "--best" in case else ([] if first_mode else ["count", "solutions"])
        same = all(all(r[k] == done[0][k] for k in keys) for r in done)
        verdicts[case] = ("agree" if same else "DISAGREE") + f" ({len(done)} engines)"
    return verdicts


def _effort(r: dict) -> str:
    parts = [f"{r[k]:,} {k}" for k in ("nodes", "branches", "failures", "conflicts") if r.get(k) is not None]
    return ", ".join(parts)


def show(console: Console, engine_rows, study_rows, process_rows, verdicts) -> None:
    table = Table(title="the same model, three engines (same run, one after the other)")
    for header in ("case", "engine", "answer", "seconds", "CPU s", "× bt", "CPU × bt", "effort"):
        table.add_column(header, justify="left" if header in ("case", "engine", "answer", "effort") else "right")
    for r in engine_rows:
        answer = f"{r['status']} {r['count']}" + (f" {tuple(r['objective'])}" if r["objective"] else "")
        answer += "" if r["complete"] else " (stopped)"
        table.add_row(r["case"], r["engine"], answer, f"{r['seconds']:.3f}", f"{r['cpu']:.3f}",
                      f"{r.get('over_backtrack', 0):.2f}", f"{r.get('cpu_over_backtrack', 0):.2f}", _effort(r))
    table.caption = " · ".join(f"{case}: {verdict}" for case, verdict in verdicts.items())
    console.print(table)
    studies_table = Table(title="studies: first solutions' value order; cp --best, direct vs restarts; cp search orders")
    for header in ("case", "method", "answer", "(largest, sum) rank", "seconds", "effort"):
        studies_table.add_column(header, justify="right" if header == "seconds" else "left")
    for r in study_rows:
        answer = f"{r['status']}{'' if r['complete'] else ' (stopped)'}"
        studies_table.add_row(r["case"], r["engine"], answer, str(tuple(r["objective"])) if r["objective"] else "-",
                              f"{r['seconds']:.3f}", _effort(r))
    console.print(studies_table)
    whole = Table(title="cp enumeration targets, whole processes with --jobs 1 (median wall, alternating runs)")
    for header in ("command", "count", "backtrack s", "cp s", "cp / backtrack", "identical answers"):
        whole.add_column(header, justify="left" if header == "command" else "right")
    for r in process_rows:
        whole.add_row(r["command"], f"{r['count']:,}", f"{r['backtrack_median']:.2f}", f"{r['cp_median']:.2f}",
                      f"{r['cp_over_backtrack']:.2f}", str(r["identical"]))
    console.print(whole)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="about 2 minutes: smaller cases, CP-SAT limit 10 s, one whole-process pair; "
                             "writes results/engines.quick.json")
    parser.add_argument("--cpsat-limit", type=float, default=60.0, help="time limit per CP-SAT run, and per direct-objective cp run (s)")
    parser.add_argument("--limit", type=float, default=300.0, help="time limit per backtrack or cp run (s)")
    parser.add_argument("--repeats", type=int, default=3, help="whole-process runs per engine and command")
    parser.add_argument("--out", default=None, help="JSON results (default: results/engines.json)")
    args = parser.parse_args()
    if args.quick:
        args.cpsat_limit, args.repeats = 10.0, 1
    args.out = args.out or str(Path(__file__).parent / "results" / f"engines{'.quick' if args.quick else ''}.json")
    console = Console(width=200)
    stderr = Console(stderr=True)

    def progress(text: str) -> None:
        stderr.print(f"… {text}", style="cyan", highlight=False)

    from cpmodel.teach.compare import _warm_up

    _warm_up()  # the libraries and their first solvers, before any clock
    lexicon = load_default()
    limits = {"backtrack": args.limit, "cp": args.limit, "cpsat": args.cpsat_limit}
    engine_rows = run_engines(suite(lexicon, args.quick), limits, progress)
    add_ratios(engine_rows)
    verdicts = agreement(engine_rows)
    study_rows = studies(lexicon, args.quick, args.cpsat_limit, args.limit, progress)
    if not args.quick:
        study_rows += search_orders(lexicon, args.cpsat_limit, progress)
    commands = [["rect", "5x6", "--top", "3000", "--all"]]
    if not args.quick:
        commands.append(["rect", "5x6", "--top", "5000", "--count"])
    process_rows = processes(commands, args.repeats, progress)
    show(console, engine_rows, study_rows, process_rows, verdicts)
    for r in engine_rows + study_rows:
        r.pop("solutions", None)  # compared above; the JSON keeps the numbers
    for r in process_rows:
        r.pop("solutions", None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"engines": engine_rows, "agreement": verdicts, "studies": study_rows,
                               "whole_processes": process_rows, "cpsat_limit": args.cpsat_limit, "limit": args.limit},
                              indent=2))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
