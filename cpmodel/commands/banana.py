"""``banana``: Bananagrams layouts, ``--compact`` and ``--check``."""

from __future__ import annotations

import gc
import json

from rich.console import Console

from cpmodel import engines
from cpmodel.commands.common import (EXIT_DISAGREE, EXIT_INTERRUPTED, combined_status, cpsat_params, engine_names,
                                     hand_finder, load_lexicon, read_user_file, warn_unused)
from cpmodel.control import Control
from cpmodel.errors import InputError
from cpmodel.jobs import Job
from cpmodel.render import Parts, comparison_table, grid_panel, summary
from cpmodel.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.supervise import Supervisor


def run(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.specs import banana_spec, draw_hand, parse_hand

    if args.check:
        return check_layout(args, stdout, stderr)
    if (args.hand is None) == (args.draw is None):
        raise InputError("give a HAND or --draw N (not both)")
    hand = draw_hand(args.draw, args.seed) if args.draw is not None else parse_hand(args.hand)
    solvers = engine_names(args.solver, "banana")
    readers = solvers + ["cpsat"] if args.compact else solvers  # --compact runs CP-SAT too
    warn_unused(stderr, readers, {option: reader for option, reader, value in (
        ("--mode", "backtrack", args.mode), ("--encoding", "cpsat", args.encoding),
        ("--param", "cpsat", args.param), ("--log", "cpsat", args.log)) if value})
    if args.draw is not None and not args.json:
        stdout.print(f"drew {len(hand)} tiles (seed {args.seed}): {hand.upper()}", highlight=False)
    lexicon = load_lexicon(args.dict, stderr, args.top)
    spec = banana_spec(hand, lexicon, hand_finder(lexicon))
    gc.freeze()
    args.encoding = args.encoding or "automaton"
    params = cpsat_params(args.param)
    job = Job("banana", spec, args.solver, time_limit=args.time_limit,
              options={"mode": args.mode or "free", "encoding": args.encoding, "log": args.log, "params": params})
    results, interrupted = [], False
    for name in solvers:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"{name} banana {len(hand)} tiles", stderr)
        engine_job = job.with_engine(name)
        results.append(supervisor.run(lambda: engines.run(engine_job, control)))
        interrupted = interrupted or supervisor.interrupted
        if interrupted:
            break
    if args.compact and not interrupted:
        found = next((r for r in results if r.solutions), None)
        if found is not None:
            from cpmodel.bananagrams import compact

            control = Control(time_limit=args.time_limit)
            supervisor = Supervisor(control, "cpsat compacting", stderr)
            results.append(supervisor.run(lambda: compact(spec, found.solutions[0], control, args.encoding, args.log, params)))
            interrupted = supervisor.interrupted
    agreement = banana_agreement(results[:2]) if len(solvers) == 2 and len(results) >= 2 else None
    final = results[-1] if results[-1].solutions or len(results) == 1 else next((r for r in results if r.solutions), results[-1])
    if args.json:
        doc = {"puzzle": "banana", "hand": hand, "tiles": len(hand), "status": combined_status(results),
               "complete": final.complete, "seconds": round(sum(r.seconds for r in results), 4),
               "grid": list(final.solutions[0]) if final.solutions else None,
               "solvers": [r.to_json(with_solutions=False) for r in results]}
        if agreement:
            doc["agreement"] = agreement
        stdout.print_json(json.dumps(doc))
    else:
        shown = [r for r in results if r.solutions]
        if len(solvers) == 2 and len(shown) == 2 and not args.compact:  # each engine's own layout
            for r in shown:
                stdout.print(grid_panel(tuple(row.replace(".", " ") for row in r.solutions[0]), title=f"{r.solver}"))
        elif final.solutions:
            stdout.print(grid_panel(tuple(row.replace(".", " ") for row in final.solutions[0]), title=f"{len(hand)} tiles"))
        for r in results:
            if "optimum_proven" in r.stats:  # the --compact step
                rows = r.solutions[0]
                proven = "proven smallest" if r.stats["optimum_proven"] else f"not proven smallest: stopped by {r.stopped_by}"
                stdout.print(Parts([f"compacted by cpsat: bounding box {len(rows)}x{len(rows[0])}, area {r.stats['area']}",
                                    proven, f"{r.seconds:.2f} s", f"{r.stats.get('branches', 0):,} branches"],
                                   style="green"), highlight=False)
            else:
                stdout.print(summary(r, "layout"), highlight=False)
        if all(r.status == UNKNOWN for r in results) and "cpsat" not in solvers:
            stdout.print("the backtracker cannot prove that no layout exists; --solver cpsat can "
                         "(it shows every box that could hold the tiles infeasible)", style="yellow", highlight=False)
        if agreement:
            stdout.print(comparison_table(results[:2], agreement))
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement and agreement.startswith("DISAGREE") else 0


def banana_agreement(results: list[SolveResult]) -> str:
    """Layouts are not unique, so the solvers agree when neither contradicts the other."""
    a, b = results
    statuses = {a.status, b.status}
    if statuses == {FOUND}:
        return "both found valid layouts"
    if FOUND in statuses and NONE in statuses:
        return "DISAGREE: one found a layout, the other proved none"
    return f"backtrack {a.status}, cpsat {b.status}"


def check_layout(args, stdout: Console, stderr: Console) -> int:
    """--check: validate a layout file against the rules and, if given, the hand."""
    from cpmodel.boards import parse_layout
    from cpmodel.specs import parse_hand
    from cpmodel.validate import banana_problems

    text = read_user_file(args.check, "layout file")
    cells = parse_layout(text, source=f"layout file {args.check}")
    hand = parse_hand(args.hand) if args.hand else None
    problems = banana_problems(cells, hand, set(load_lexicon(args.dict, stderr).words))
    if args.json:
        stdout.print_json(json.dumps({"puzzle": "banana-check", "valid": not problems, "problems": problems,
                                      "hand_checked": hand is not None}))
    elif problems:
        for problem in problems:
            stdout.print(f"✗ {problem}", style="red", highlight=False)
    else:
        note = "" if hand else " (no HAND given, so the tiles were not compared with a hand)"
        stdout.print(f"✓ valid layout: one connected crossword, every run a word{note}", style="green", highlight=False)
    return 0 if not problems else EXIT_DISAGREE
