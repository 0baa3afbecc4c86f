"""``banana``: Bananagrams layouts, ``--compact`` and ``--check``."""

from __future__ import annotations

import gc
import json
from functools import lru_cache, partial

from rich.console import Console

from cpmodel.commands.auto import AUTO, answered_line
from cpmodel.commands.common import (
    EXIT_DISAGREE,
    EXIT_INTERRUPTED,
    EXIT_INVALID_LAYOUT,
    cpsat_params,
    engine_names,
    load_lexicon,
    read_user_file,
    warn_unused,
)
from cpmodel.core import clock
from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job
from cpmodel.core.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.core.specs import BananaSpec
from cpmodel.run import engines, interrupts
from cpmodel.run.portfolio import Race, portfolio_plan
from cpmodel.run.supervise import Supervisor
from cpmodel.show.documents import combined_status, combined_stop, write_json
from cpmodel.show.render import Parts, comparison_table, print_grid, summary


def run(args, stdout: Console, stderr: Console) -> int:
    """Stop signals are held throughout: the supervisors poll them, so a signal stops the
    search and never cuts the answer or the document (the output is a few lines)."""
    with interrupts.deferred(reraise=False):
        return _run(args, stdout, stderr)


def _run(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.core.specs import draw_hand, parse_hand

    if args.check:
        return check_layout(args, stdout, stderr)
    if args.peel:
        return peel_layout(args, stdout, stderr)
    if args.game:
        return play_game(args, stdout, stderr)
    if (args.hand is None) == (args.draw is None):
        raise InputError("give a HAND or --draw N (not both)")
    hand = draw_hand(args.draw, args.seed) if args.draw is not None else parse_hand(args.hand)
    solvers = engine_names(args.solver, "banana")
    auto = solvers == [AUTO]
    if auto:
        plan = portfolio_plan("banana")
        solvers = [entrant.engine for entrant in plan]
    readers = solvers + ["cpsat"] if args.compact else solvers  # --compact runs CP-SAT too
    warn_unused(stderr, readers, {option: reader for option, reader, value in (
        ("--mode", "backtrack", args.mode), ("--encoding", "cpsat", args.encoding),
        ("--param", "cpsat", args.param), ("--log", "cpsat", args.log)) if value})
    if args.draw is not None and not args.json:
        stdout.print(f"drew {len(hand)} tiles (seed {args.seed}): {hand.upper()}", highlight=False)
    table = word_table(args, stderr)
    view = table.restrict(hand)
    spec = BananaSpec(hand, tuple(view.words))  # the words spellable from the hand, by one matrix filter
    gc.freeze()
    chosen_encoding = args.encoding  # --compact picks per box unless told
    args.encoding = args.encoding or "automaton"
    params = cpsat_params(args.param)
    limit = clock.left(args.time_limit)  # what the word table and the hand left of the user's limit
    job = Job("banana", spec, args.solver, time_limit=limit,
              options={"mode": args.mode or "free", "encoding": args.encoding, "log": args.log, "params": params})
    results, interrupted = [], False
    # the searches, then --compact, share the limit (cpmodel.core.clock.Shares)
    shares = clock.Shares(limit, (1 if auto else len(solvers)) + bool(args.compact))
    if auto:  # a race: the first layout, or CP-SAT's proof of none (the backtracker's unknown is not an answer)
        control = Control(time_limit=shares.next())
        supervisor = Supervisor(control, f"auto ({' + '.join(solvers)}) banana {len(hand)} tiles", stderr)
        with Race(job, plan) as running:
            results.append(supervisor.run(lambda: running.wait(control)))
        interrupted = supervisor.interrupted
    for name in [] if auto else solvers:
        control = Control(time_limit=shares.next())
        supervisor = Supervisor(control, f"{name} banana {len(hand)} tiles", stderr, engine=name)
        engine_job = job.with_engine(name)
        results.append(supervisor.run(partial(engines.run, engine_job, control)))
        interrupted = interrupted or supervisor.interrupted
        if interrupted:
            break
    interrupted = interrupted or interrupts.stop_asked()
    if args.compact and not interrupted:
        found = next((r for r in results if r.solutions), None)
        if found is not None:
            from cpmodel.models.bananagrams import compact

            control = Control(time_limit=shares.next())
            stderr.print(Parts(["compacting: the backtracker in growing boxes, then CP-SAT on each smaller box",
                                f"up to {control.time_limit:.1f} s (what --time-limit left)"], style="cyan"),
                         highlight=False)
            supervisor = Supervisor(control, "compacting", stderr, engine="cpsat", start=found.solutions[0])
            results.append(supervisor.run(lambda: compact(spec, found.solutions[0], control, chosen_encoding, args.log, params, view)))
            interrupted = supervisor.interrupted
    # the cross-check compares the engines' own answers: never the race's answer with the --compact step
    searches = results[:1] if auto else results[:len(solvers)]
    agreement = banana_agreement(searches) if not auto and len(searches) == 2 else None
    final = results[-1] if results[-1].solutions or len(results) == 1 else next((r for r in results if r.solutions), results[-1])
    if args.svg and final.solutions:
        write_svg(args.svg, rows_to_cells(final.solutions[0]), {}, f"{len(hand)} tiles", "")
    if args.json:
        complete, stopped_by = banana_complete(results, final, 1 if auto else len(solvers))
        doc = {"puzzle": "banana", "hand": hand, "tiles": len(hand), "status": combined_status(results),
               "complete": complete, "stopped_by": stopped_by,
               "seconds": round(sum(r.seconds for r in results), 4),
               "grid": list(final.solutions[0]) if final.solutions else None,
               "solvers": [r.to_json(with_solutions=False) for r in results]}
        if agreement:
            doc["agreement"] = agreement
        if auto:
            doc.update(solver=AUTO, answered_by=results[0].solver, portfolio=results[0].stats.get("portfolio", {}))
        write_json(stdout, doc)
    else:
        shown = [r for r in results if r.solutions]
        if len(solvers) == 2 and len(shown) == 2 and not args.compact:  # each engine's own layout
            for r in shown:
                print_grid(stdout, tuple(row.replace(".", " ") for row in r.solutions[0]), f"{r.solver}")
        elif final.solutions:
            print_grid(stdout, tuple(row.replace(".", " ") for row in final.solutions[0]), f"{len(hand)} tiles")
        for r in results:
            if "optimum_proven" in r.stats:  # the --compact step
                rows = r.solutions[0]
                proven = "proven smallest" if r.stats["optimum_proven"] else f"smallest found, not proven: stopped by {r.stopped_by}"
                stdout.print(Parts([f"compacted: bounding box {len(rows)}x{len(rows[0])}, area {r.stats['area']:,}", proven,
                                    f"the backtracker's box search reached area {r.stats['heuristic_area']:,}",
                                    f"CP-SAT boxes {', '.join(r.stats['boxes']) or 'none needed'}", f"{r.seconds:.2f} s"],
                                   style="green"), highlight=False)
            else:
                stdout.print(summary(r, "layout"), highlight=False)
                if r.stats.get("conflict"):  # a none by the word counts, and the requirements that clash
                    stdout.print("why: these already conflict: " + "; ".join(r.stats["conflict"]), style="dim",
                                 highlight=False)
                if "portfolio" in r.stats:
                    stdout.print(answered_line(r), style="dim", highlight=False)
        if all(r.status == UNKNOWN for r in results) and "cpsat" not in solvers:
            stdout.print("the backtracker cannot prove that no layout exists; --solver cpsat can "
                         "(it shows every box that could hold the tiles infeasible)", style="yellow", highlight=False)
        if agreement:
            stdout.print(comparison_table(searches, agreement))
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement and agreement.startswith("DISAGREE") else 0



def banana_complete(results: list[SolveResult], final: SolveResult, asked: int) -> tuple[bool, str | None]:
    """``complete`` and ``stopped_by`` of the document: complete only when every engine
    asked for ran and completed (a cross-check whose CP-SAT stopped at its limit is not),
    and the shown answer (a compaction's, say) is complete too; else the first cause."""
    ran = results[:asked]
    all_ran = len(ran) == asked
    complete = all_ran and all(r.complete for r in ran) and final.complete
    if complete:
        return True, None
    return False, combined_stop(ran, all_ran) or final.stopped_by

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
    from cpmodel.core.boards import parse_layout
    from cpmodel.core.specs import parse_hand
    from cpmodel.core.validate import banana_problems

    text = read_user_file(args.check, "layout file")
    cells = parse_layout(text, source=f"layout file {args.check}")
    hand = parse_hand(args.hand) if args.hand else None
    problems = banana_problems(cells, hand, set(load_lexicon(args.dict, stderr).words))
    if args.json:
        write_json(stdout, {"puzzle": "banana-check", "valid": not problems, "problems": problems,
                            "hand_checked": hand is not None})
    elif problems:
        for problem in problems:
            stdout.print(f"✗ {problem}", style="red", highlight=False)
    else:
        note = "" if hand else " (no HAND given, so the tiles were not compared with a hand)"
        stdout.print(f"✓ valid layout: one connected crossword, every run a word{note}", style="green", highlight=False)
    return 0 if not problems else EXIT_INVALID_LAYOUT


# -- shared by the layout commands ---------------------------------------------------


def word_table(args, stderr: Console):
    """The lexicon as the backtracker's word table (``--top``: per length)."""
    return table_of(load_lexicon(args.dict, stderr, args.top).words)


@lru_cache(maxsize=1)
def table_of(words: tuple[str, ...]):
    """The word table of ``words``, kept for the next command in this process (the web app's
    workers fork from a process that built it once, cpmodel/web/worker.py)."""
    from heuristics.bananagrams import WordTable

    return WordTable.of_lexicon(words)


def rows_to_cells(rows) -> dict:
    return {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch not in ". "}


def read_layout_arg(path: str) -> dict:
    """A layout file: rows of letters ('.' or space empty), or a JSON document with a ``grid``
    (what ``banana --json`` and each step of ``--game --json`` print)."""
    from cpmodel.core.boards import parse_layout

    text = read_user_file(path, "layout file")
    if text.lstrip().startswith("{"):
        try:
            grid = json.loads(text)["grid"]
        except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: nested too deeply
            raise InputError(f"layout file {path}: JSON without a \"grid\" list of rows") from None
        if not isinstance(grid, list) or not all(isinstance(row, str) for row in grid):
            raise InputError(f"layout file {path}: \"grid\" must be a list of strings")
        text = "\n".join(grid)
    return parse_layout(text, source=f"layout file {path}")


def write_svg(path: str, cells: dict, marks: dict, title: str, legend: str) -> None:
    from pathlib import Path

    from cpmodel.show.svg import layout_svg

    try:
        Path(path).write_text(layout_svg(cells, marks, title, legend), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


# -- --peel: new tiles into a layout ---------------------------------------------------


def peel_layout(args, stdout: Console, stderr: Console) -> int:
    """--peel LAYOUT_FILE TILES: a valid layout that also holds TILES, moving few tiles."""
    from cpmodel.core.boards import layout_rows
    from cpmodel.core.specs import parse_hand
    from cpmodel.core.validate import banana_problems
    from heuristics.peel import peel

    if args.hand is None:
        raise InputError("--peel needs the new TILES, e.g. banana --peel layout.txt q")
    tiles = parse_hand(args.hand)
    cells = read_layout_arg(args.peel)
    table = word_table(args, stderr)
    problems = banana_problems(cells, None, table.word_set)
    if problems:
        raise InputError(f"layout file {args.peel} is not a valid layout: {problems[0]}")
    control = Control(time_limit=clock.left(args.time_limit))
    supervisor = Supervisor(control, f"peel {len(tiles)} tile(s) into {len(cells)}", stderr)
    result = supervisor.run(lambda: peel(cells, tiles, table, control))
    grid = layout_rows(result.cells) if result.cells else None
    if args.svg and result.cells:
        marks = {cell: 1 for cell, letter in result.cells.items() if cells.get(cell) != letter}
        write_svg(args.svg, result.cells, marks, f"{len(result.cells)} tiles after the peel",
                  "marked: tiles placed or moved by the peel")
    status = FOUND if result.cells else "unknown"
    if args.json:
        write_json(stdout, {"puzzle": "banana-peel", "status": status, "tiles": len(cells) + len(tiles),
                                      "new": tiles, "stage": result.stage, "moved": result.moved,
                                      "stopped_by": result.stopped_by, "seconds": round(result.seconds, 4),
                                      "nodes": result.nodes, "grid": grid})
    elif grid:
        print_grid(stdout, tuple(row.replace(".", " ") for row in grid), f"{len(result.cells)} tiles")
        stdout.print(Parts([f"peeled {tiles!r} by {result.stage}: {result.moved:,} placed tile(s) moved",
                            f"{result.seconds:.3f} s", f"{result.nodes:,} nodes"], style="green"), highlight=False)
    else:
        stdout.print(f"unknown: no layout with {tiles!r} found (attach, repair and re-solve all failed, "
                     f"stopped by {result.stopped_by}); this does not prove that none exists", style="red", highlight=False)
    return EXIT_INTERRUPTED if supervisor.interrupted else 0


# -- --game: a whole solo game -----------------------------------------------------------


def play_game(args, stdout: Console, stderr: Console) -> int:
    """--game --seed S [--players P]: peel until the bag is empty; every step validated."""
    import statistics

    from heuristics.game import PEEL, opening_hand, play

    if args.hand is not None or args.draw is not None:
        raise InputError("--game draws its own tiles: give no HAND and no --draw")
    if not 1 <= args.players <= 8:
        raise InputError(f"--players takes 1 to 8, got {args.players}")
    table = word_table(args, stderr)
    control = Control(time_limit=clock.left(args.time_limit))
    supervisor = Supervisor(control, f"game seed {args.seed}, {args.players} player(s)", stderr)
    game = supervisor.run(lambda: play(table, args.seed, args.players, control))
    if args.svg and game.board:
        marks = {cell: step for cell, step in game.placed_in.items() if step > 0}
        write_svg(args.svg, game.board, marks, f"seed {args.seed}: {len(game.board)} tiles",
                  "cream: opening hand · shaded, numbered: the step that placed the tile")
    if args.json:
        write_json(stdout, game.to_json())
        return EXIT_INTERRUPTED if supervisor.interrupted else 0
    if game.board:
        print_grid(stdout, tuple(row.replace(".", " ") for row in game.steps[-1].grid or ()), f"{len(game.board)} tiles")
    if args.steps:
        stdout.print(steps_table(game))
    peels = [s for s in game.steps if s.action == PEEL]
    doc = game.to_json()
    verdict = ("finished: all 144 tiles placed" if game.finished
               else f"not finished: {doc['tiles_placed']:,} tiles placed, {doc['bag_left']:,} left in the bag, "
                    f"stopped by {game.stopped_by or 'stuck'}")
    median_ms = 1000 * statistics.median(s.seconds for s in peels) if peels else 0.0
    stdout.print(Parts([f"game seed {args.seed}, {args.players} player(s), opening hand {opening_hand(args.players)}",
                        verdict, f"{doc['peels']:,} peels, {doc['dumps']:,} dumps (policy: hardest letter)",
                        f"{doc['moved_total']:,} tiles moved in all", f"median peel {median_ms:.1f} ms",
                        f"{doc['seconds']:.2f} s"], style="green" if game.finished else "yellow"), highlight=False)
    return EXIT_INTERRUPTED if supervisor.interrupted else 0


def steps_table(game):
    from rich.table import Table

    table = Table(title="steps", box=None)
    for header in ("#", "action", "drawn", "dumped", "stage", "moved", "tiles", "rack", "ms"):
        table.add_column(header, justify="right" if header in ("#", "moved", "tiles", "ms") else "left")
    for k, step in enumerate(game.steps):
        tiles = sum(ch != "." for row in step.grid or () for ch in row)
        table.add_row(str(k), step.action, step.drawn, step.dumped, step.stage, str(step.moved), str(tiles),
                      step.rack, f"{1000 * step.seconds:.1f}")
    return table
