"""Command line: ``python -m cpmodel <puzzle> ...``.

The only layer that reads files, prints and exits. Flow, one way:
input text → spec → solver → result → validator (inside the solvers, before
anything is streamed) → rich or JSON. Exit codes: 0 done, 1 the two solvers
disagree, 2 bad input (one line on stderr), 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import argparse
import gc
import json
import re

from rich.console import Console
from rich.text import Text

from cpmodel.control import Control, Request
from cpmodel.errors import InputError
from cpmodel.lexicon import Lexicon, load_default, load_file
from cpmodel.render import board_panel, comparison_table, grid_panel, grid_words_table, summary, words_by_length
from cpmodel.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.specs import RectangleSpec, parse_pattern, parse_size, rectangle_spec
from cpmodel.supervise import Supervisor

EXIT_DISAGREE, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 1, 2, 130


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad usage in one line with exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        raise InputError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m cpmodel", description="Word puzzles as constraint programs.")
    puzzles = parser.add_subparsers(dest="puzzle", required=True, parser_class=_Parser)
    rect = puzzles.add_parser("rect", help="m×n word rectangles (TAOCP 7.2.2 ex. 24)")
    rect.add_argument("size", help="rows x columns, e.g. 5x6: 5 six-letter rows, 6 five-letter columns")
    _lexicon_options(rect)
    rect.add_argument("--row-dict", metavar="FILE", help="word list for the rows only")
    rect.add_argument("--col-dict", metavar="FILE", help="word list for the columns only")
    mode = rect.add_mutually_exclusive_group()
    mode.add_argument("--all", action="store_true", help="stream every solution")
    mode.add_argument("--count", action="store_true", help="count every solution")
    mode.add_argument("--limit", type=int, metavar="K", help="stop after K solutions")
    mode.add_argument("--best", action="store_true", help="most common words: minimise the largest rank, then the sum")
    rect.add_argument("--pattern", help="fixed letters, rows split by '/', '.' free: e.g. 's...../....../....../....../.....s'")
    rect.add_argument("--distinct", action="store_true", help="no word used twice")
    rect.add_argument("--symmetric", action="store_true", help="word square whose rows equal its columns (m = n)")
    rect.add_argument("--encoding", choices=("table", "onehot", "automaton"), default="table", help="CP-SAT encoding of the word constraints")
    rect.add_argument("--orientation", choices=("auto", "rows", "cols"), default="auto", help="lines the backtracker fills")
    _solve_options(rect)

    words = puzzles.add_parser("words", help="every word spellable from a bag of letters ('?' = blank)")
    words.add_argument("letters", help="the rack, e.g. retains or reta?ns")
    words.add_argument("--min", type=int, default=3, help="shortest word (default 3, as in Wordscapes)")
    words.add_argument("--max", type=int, help="longest word")
    words.add_argument("--dict", metavar="FILE", help="word list, one word per line")
    words.add_argument("--json", action="store_true")

    scapes = puzzles.add_parser("wordscapes", help="fill a Wordscapes crossword board from the wheel's letters")
    scapes.add_argument("board_file", help="text grid: '.' open, '#' or space blocked, a letter pre-filled")
    scapes.add_argument("letters", help="the wheel's letters")
    scapes.add_argument("--min", type=int, default=3, help="shortest slot word (default 3)")
    _lexicon_options(scapes)
    scapes_mode = scapes.add_mutually_exclusive_group()
    scapes_mode.add_argument("--all", action="store_true")
    scapes_mode.add_argument("--count", action="store_true")
    scapes_mode.add_argument("--limit", type=int, metavar="K")
    _solve_options(scapes)

    banana = puzzles.add_parser("banana", help="a Bananagrams layout of every tile in the hand")
    banana.add_argument("hand", nargs="?", help="the tiles, e.g. 'aeinrst lpq' (spaces and commas are fine)")
    banana.add_argument("--draw", type=int, metavar="N", help="draw N tiles from the 144-tile bag instead (21: 2-4 players, 15: 5-6, 11: 7-8)")
    banana.add_argument("--seed", type=int, default=0, help="seed for --draw")
    banana.add_argument("--mode", choices=("free", "crossing"), default="free", help="backtracker: allow parallel adjacent words (free) or not")
    banana.add_argument("--compact", action="store_true", help="smallest bounding box (area, then perimeter), by CP-SAT from the heuristic's layout")
    banana.add_argument("--check", metavar="LAYOUT_FILE", help="validate a hand-made layout and say which rule fails, and where")
    banana.add_argument("--encoding", choices=("automaton", "table"), default="automaton", help="CP-SAT encoding of the word rule")
    banana.add_argument("--solver", choices=("cpsat", "backtrack", "both"), default="backtrack")
    banana.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS", help="default 60; a stopped search ends unknown")
    banana.add_argument("--dict", metavar="FILE", help="word list, one word per line")
    banana.add_argument("--json", action="store_true")
    banana.add_argument("--log", action="store_true", help="CP-SAT's search log on stderr")

    explain = puzzles.add_parser("explain", help="build a model without solving it and show its anatomy")
    explain_puzzles = explain.add_subparsers(dest="explained", required=True, parser_class=_Parser)
    ex_rect = explain_puzzles.add_parser("rect")
    ex_rect.add_argument("size")
    _lexicon_options(ex_rect)
    ex_rect.add_argument("--encoding", choices=("table", "onehot", "automaton"), default="table")
    ex_rect.add_argument("--pattern")
    ex_rect.add_argument("--distinct", action="store_true")
    ex_rect.add_argument("--symmetric", action="store_true")
    ex_rect.add_argument("--json", action="store_true")
    ex_banana = explain_puzzles.add_parser("banana")
    ex_banana.add_argument("hand")
    ex_banana.add_argument("--box", default=None, metavar="RxC", help="box size (default: the first box the solver tries)")
    ex_banana.add_argument("--encoding", choices=("automaton", "table"), default="automaton")
    ex_banana.add_argument("--dict", metavar="FILE")
    ex_banana.add_argument("--json", action="store_true")
    ex_scapes = explain_puzzles.add_parser("wordscapes")
    ex_scapes.add_argument("board_file")
    ex_scapes.add_argument("letters")
    ex_scapes.add_argument("--min", type=int, default=3)
    _lexicon_options(ex_scapes)
    ex_scapes.add_argument("--json", action="store_true")

    compare = puzzles.add_parser("compare", help="a fixed, seeded suite on both solvers, in one table")
    compare.add_argument("--time-limit", type=float, default=30.0, metavar="SECONDS", help="per solver and case (default 30)")
    compare.add_argument("--dict", metavar="FILE")
    compare.add_argument("--json", action="store_true")
    compare.add_argument("--plot", metavar="FILE.png", help="time against size, log axis (needs the plot extra: pip install -e '.[plot]')")

    grid = puzzles.add_parser("grid", help="all words on a Boggle/WordHero/Scramble board, scored")
    grid.add_argument("board", nargs="?", help="tiles row by row, '/' between rows (default 4x4); [qu] or Qu; +2 +3 *2 *3")
    grid.add_argument("--random", action="store_true", help="roll the 16 classic Boggle dice")
    grid.add_argument("--best", metavar="RxC", help="search for a high-scoring RxC board (simulated annealing)")
    grid.add_argument("--seed", type=int, default=0)
    grid.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS", help="for --best (default 60)")
    grid.add_argument("--score", choices=("boggle", "scramble"), default="boggle")
    grid.add_argument("--score-table", metavar="FILE", help="JSON overriding the scoring tables (see cpmodel/scoring.py)")
    grid.add_argument("--min", type=int, default=3)
    grid.add_argument("--max", type=int)
    grid.add_argument("--show", type=int, default=20, help="words drawn with their paths (default 20)")
    grid.add_argument("--dict", metavar="FILE", help="word list, one word per line")
    grid.add_argument("--json", action="store_true")
    return parser


def _lexicon_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dict", metavar="FILE", help="word list, one word per line, most common first (default: kjxqz ranked by wordfreq)")
    parser.add_argument("--top", type=int, metavar="N", help="keep only the N most common words of each length")


def _solve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--solver", choices=("cpsat", "backtrack", "both"), default="cpsat")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS", help="stop after this long (result: unknown, never none)")
    parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    parser.add_argument("--log", action="store_true", help="stream CP-SAT's own search log to stderr")


def main(argv: list[str] | None = None) -> int:
    stdout, stderr = Console(), Console(stderr=True)
    try:
        args = build_parser().parse_args(argv)
        runner = {"rect": run_rect, "words": run_words, "wordscapes": run_wordscapes, "grid": run_grid,
                  "banana": run_banana, "explain": run_explain, "compare": run_compare}[args.puzzle]
        return runner(args, stdout, stderr)
    except InputError as exc:
        stderr.print(f"error: {exc}", style="bold red", highlight=False, soft_wrap=True)
        return EXIT_BAD_INPUT


# -- rect -----------------------------------------------------------------------


def rect_spec_from_args(args, stderr: Console) -> RectangleSpec:
    m, n = parse_size(args.size)
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    if args.time_limit is not None and args.time_limit <= 0:
        raise InputError(f"--time-limit must be positive, got {args.time_limit}")
    if args.top is not None and args.top < 1:
        raise InputError(f"--top must be at least 1, got {args.top}")
    default = _load(args.dict, stderr)
    row_lexicon = _load(args.row_dict, stderr) if args.row_dict else default
    col_lexicon = _load(args.col_dict, stderr) if args.col_dict else default
    pattern = parse_pattern(args.pattern, m, n) if args.pattern else None
    return rectangle_spec(m, n, row_lexicon, col_lexicon, args.top, pattern, args.distinct, args.symmetric)


def read_user_file(path: str, what: str) -> str:
    """A text file the user named, or a one-line InputError saying why not."""
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _load(path: str | None, stderr: Console) -> Lexicon:
    if path is None:
        return load_default()
    lexicon = load_file(path)
    if lexicon.skipped:
        stderr.print(f"warning: skipped {lexicon.skipped} lines of {path} that are not a-z words", style="yellow", highlight=False)
    return lexicon


def solve_request(args, on_solution=None) -> Request:
    if getattr(args, "best", False):
        return Request(limit=None, best=True, on_solution=on_solution)
    if args.all or args.count:
        return Request(limit=None, count_only=args.count, on_solution=on_solution)
    return Request(limit=args.limit or 1, on_solution=on_solution)


def run_rect(args, stdout: Console, stderr: Console) -> int:
    spec = rect_spec_from_args(args, stderr)
    return run_solvers(args, spec.size, lambda name, request, control: _solve_rect(name, spec, request, control, args),
                       {"puzzle": "rect", "size": spec.size, "rows": spec.m, "cols": spec.n,
                        "words": {"rows": len(spec.row_words), "cols": len(spec.col_words)}},
                       "rectangle", stdout, stderr)


def run_solvers(args, label: str, solve_with, header: dict, what: str, stdout: Console, stderr: Console) -> int:
    """Run the chosen solver(s) under supervision and print the result(s).

    Shared by every puzzle with a CP-SAT model and a backtracker: streaming,
    Ctrl-C, the --solver both cross-check, JSON and exit codes."""
    solvers = ["backtrack", "cpsat"] if args.solver == "both" else [args.solver]
    best = getattr(args, "best", False)
    stream = not args.json and not args.count and not best and args.solver != "both"
    printed = [0]

    def print_grid(rows) -> None:
        printed[0] += 1
        stdout.print(grid_panel(rows, title=f"#{printed[0]}"))

    results, interrupted = [], False
    for name in solvers:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"{name} {label}", stderr, print_grid if stream else None)
        request = solve_request(args, supervisor.stream)
        results.append(supervisor.run(lambda: solve_with(name, request, control)))
        interrupted = interrupted or supervisor.interrupted
        if interrupted:
            break
    agreement = compare_results(results) if len(results) == 2 else None
    if args.json:
        stdout.print_json(json.dumps(solve_document(header, args, results, agreement)))
    else:
        _print_results(stdout, results, agreement, what, already_printed=stream, count_only=args.count)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement is not None and agreement.startswith("DISAGREE") else 0


def _solve_rect(name: str, spec: RectangleSpec, request: Request, control: Control, args) -> SolveResult:
    if name == "backtrack":
        from heuristics.rectangle import solve

        return solve(spec, request, control, orientation=args.orientation)
    from cpmodel.rectangle import solve

    return solve(spec, request, control, encoding=args.encoding, log=args.log)


def compare_results(results: list[SolveResult]) -> str:
    """Compare two results: solution sets, counts or optima, as far as both finished."""
    a, b = results
    if not (a.complete and b.complete):
        return "undecided (a search did not finish)"
    if a.objective is not None or b.objective is not None:
        return "same optimum" if a.objective == b.objective else f"DISAGREE: optimum {a.objective} vs {b.objective}"
    if a.stopped_by == "limit" or b.stopped_by == "limit":
        same = a.count == b.count
        return "both found the requested solutions" if same else f"DISAGREE: {a.count} vs {b.count} solutions"
    if a.count != b.count:
        return f"DISAGREE: {a.count} vs {b.count} solutions"
    if a.solutions and b.solutions and set(a.solutions) != set(b.solutions):
        return "DISAGREE: different solution sets"
    return "identical solution sets" if a.solutions or a.count == 0 else "same count"


def solve_document(header: dict, args, results: list[SolveResult], agreement: str | None) -> dict:
    """The stable JSON document: status, count, complete, solutions, seconds, ..."""
    with_solutions = not args.count
    main = results[0]
    doc = dict(header)
    doc.update(main.to_json(with_solutions))
    if len(results) > 1:
        doc["status"] = _combined_status(results)
        doc["complete"] = all(r.complete for r in results)
        doc["seconds"] = round(sum(r.seconds for r in results), 4)
        doc["solver"] = "both"
        doc["agreement"] = agreement
        doc["solvers"] = {r.solver: r.to_json(with_solutions) for r in results}
    return doc


def _combined_status(results: list[SolveResult]) -> str:
    statuses = {r.status for r in results}
    if FOUND in statuses:
        return FOUND
    return NONE if statuses == {NONE} else UNKNOWN


def _print_results(stdout: Console, results, agreement, what: str, already_printed: bool, count_only: bool) -> None:
    main = results[0]
    if not already_printed and not count_only:
        for k, rows in enumerate(main.solutions, 1):
            stdout.print(grid_panel(rows, title=f"#{k}"))
    for result in results:
        stdout.print(summary(result, what), highlight=False)
    if agreement is not None:
        stdout.print(comparison_table(results, agreement))


# -- words ----------------------------------------------------------------------


def run_words(args, stdout: Console, stderr: Console) -> int:
    import time

    from heuristics.words import BLANK, WordIndex, find_words

    rack = args.letters.strip().lower()
    if not rack or not all(c == BLANK or ("a" <= c <= "z") for c in rack):
        raise InputError(f"LETTERS must be letters a-z or '?' for a blank, got {args.letters!r}")
    _check_lengths(args.min, args.max)
    index = WordIndex(_load(args.dict, stderr).words)
    started = time.perf_counter()
    found = find_words(index, rack, args.min, args.max)
    seconds = time.perf_counter() - started
    if args.json:
        doc = {"puzzle": "words", "letters": rack, "status": FOUND if found else NONE, "complete": True,
               "count": len(found), "seconds": round(seconds, 5),
               "words": [{"word": f.word, "blanks": list(f.blanks)} for f in found]}
        stdout.print_json(json.dumps(doc))
    elif found:
        stdout.print(words_by_length(found))
        stdout.print(f"{len(found)} words from {rack!r} · {seconds * 1000:.1f} ms", style="green", highlight=False)
    else:
        stdout.print(f"none: no word of {args.min}+ letters can be spelled from {rack!r}", style="yellow", highlight=False)
    return 0


def _check_lengths(shortest: int, longest: int | None) -> None:
    if shortest < 1:
        raise InputError(f"--min must be at least 1, got {shortest}")
    if longest is not None and longest < shortest:
        raise InputError(f"--max ({longest}) must not be below --min ({shortest})")


# -- wordscapes -----------------------------------------------------------------


def run_wordscapes(args, stdout: Console, stderr: Console) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    if args.top is not None and args.top < 1:
        raise InputError(f"--top must be at least 1, got {args.top}")
    spec = _wordscapes_spec_from_args(args, stderr)

    def solve_with(name, request, control):
        if name == "backtrack":
            from heuristics.wordscapes import solve
            return solve(spec, request, control)
        from cpmodel.wordscapes import solve
        return solve(spec, request, control, log=args.log)

    header = {"puzzle": "wordscapes", "letters": spec.wheel, "slots": len(spec.slots),
              "candidates": [len(c) for c in spec.candidates]}
    return run_solvers(args, f"wordscapes {len(spec.slots)} slots", solve_with, header, "fill", stdout, stderr)


def _wordscapes_spec_from_args(args, stderr: Console):
    from cpmodel.boards import parse_crossword
    from cpmodel.specs import wordscapes_spec

    if not re.fullmatch(r"[a-z]+", args.letters.strip().lower()):
        raise InputError(f"LETTERS must be letters a-z only, got {args.letters!r}")
    text = read_user_file(args.board_file, "board file")
    board = parse_crossword(text, source=f"board file {args.board_file}")
    lexicon = _load(args.dict, stderr)
    if args.top:
        lexicon = Lexicon([w for n in sorted({len(w) for w in lexicon.words}) for w in lexicon.of_length(n, args.top)], lexicon.source)
    return wordscapes_spec(board, args.letters, lexicon, args.min)


# -- grid -----------------------------------------------------------------------


def run_grid(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.boards import parse_grid
    from cpmodel.scoring import score_table
    from heuristics import grid
    from heuristics.words import build_trie

    chosen = [bool(args.board), args.random, bool(args.best)]
    if sum(chosen) != 1:
        raise InputError("give exactly one of BOARD, --random or --best RxC")
    _check_lengths(args.min, args.max)
    if args.show < 0:
        raise InputError(f"--show must not be negative, got {args.show}")
    table = score_table(args.score, args.score_table)
    if args.best:
        if args.time_limit <= 0:
            raise InputError(f"--time-limit must be positive, got {args.time_limit}")
        rows, cols = parse_size(args.best)
        if args.score != "boggle":
            raise InputError("--best searches for Boggle score; use --score boggle")
    board = parse_grid(args.board) if args.board else grid.roll_dice(args.seed) if args.random else None
    trie = build_trie(_load(args.dict, stderr).words)
    gc.freeze()  # the trie is millions of dicts; spare them from every GC pass
    search = None
    if args.best:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"annealing {rows}x{cols} (seed {args.seed})", stderr)
        search = supervisor.run(lambda: _anneal(grid, rows, cols, trie, table, args, control))
        board = search.board
    words = grid.find_words(board, trie, table, args.min, args.max)
    total = sum(w.score for w in words)
    if args.json:
        doc = {"puzzle": "grid", "board": board.notation(), "score_kind": args.score, "total": total,
               "count": len(words), "status": FOUND if words else NONE, "complete": True,
               "words": [{"word": w.word, "score": w.score, "path": [list(p) for p in w.path]} for w in words]}
        if search is not None:
            doc.update({"seed": args.seed, "evaluations": search.evaluations, "seconds": round(search.seconds, 2),
                        "history": search.history, "stopped_by": search.stopped_by,
                        "optimal": False})  # annealing proves nothing about optimality
        stdout.print_json(json.dumps(doc))
        return EXIT_INTERRUPTED if search is not None and search.stopped_by == "interrupt" else 0
    stdout.print(board_panel(board, title=board.notation()))
    stdout.print(grid_words_table(board, words, args.show))
    if search is not None:
        stdout.print(f"best board found: {search.score} points after {search.evaluations:,} boards in "
                     f"{search.seconds:.1f} s (seed {args.seed}; a heuristic, not a proven optimum)",
                     style="green", highlight=False)
        return EXIT_INTERRUPTED if search.stopped_by == "interrupt" else 0
    return 0


def _anneal(grid, rows, cols, trie, table, args, control):
    def progress(score, evaluations):
        control.solutions, control.nodes = score, evaluations

    return grid.best_board(rows, cols, trie, table, args.seed, args.time_limit, control.stop, progress)


# -- bananagrams ------------------------------------------------------------------


def run_banana(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.specs import banana_spec, draw_hand, parse_hand

    if args.time_limit <= 0:
        raise InputError(f"--time-limit must be positive, got {args.time_limit}")
    if args.check:
        return check_layout(args, stdout, stderr)
    if (args.hand is None) == (args.draw is None):
        raise InputError("give a HAND or --draw N (not both)")
    hand = draw_hand(args.draw, args.seed) if args.draw is not None else parse_hand(args.hand)
    lexicon = _load(args.dict, stderr)
    spec = banana_spec(hand, lexicon, _hand_finder(lexicon))
    gc.freeze()
    solvers = ["backtrack", "cpsat"] if args.solver == "both" else [args.solver]
    results, interrupted = [], False
    for name in solvers:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"{name} banana {len(hand)} tiles", stderr)
        results.append(supervisor.run(lambda: _solve_banana(name, spec, control, args)))
        interrupted = interrupted or supervisor.interrupted
        if interrupted:
            break
    if args.compact and not interrupted:
        found = next((r for r in results if r.solutions), None)
        if found is not None:
            from cpmodel.bananagrams import compact

            control = Control(time_limit=args.time_limit)
            supervisor = Supervisor(control, "cpsat compacting", stderr)
            results.append(supervisor.run(lambda: compact(spec, found.solutions[0], control, args.encoding, args.log)))
            interrupted = supervisor.interrupted
    agreement = banana_agreement(results[:2]) if len(solvers) == 2 and len(results) >= 2 else None
    final = results[-1] if results[-1].solutions or len(results) == 1 else next((r for r in results if r.solutions), results[-1])
    if args.json:
        doc = {"puzzle": "banana", "hand": hand, "tiles": len(hand), "status": _combined_status(results),
               "complete": final.complete, "seconds": round(sum(r.seconds for r in results), 4),
               "grid": list(final.solutions[0]) if final.solutions else None,
               "solvers": [r.to_json(with_solutions=False) for r in results]}
        if agreement:
            doc["agreement"] = agreement
        stdout.print_json(json.dumps(doc))
    else:
        if final.solutions:
            stdout.print(grid_panel(tuple(row.replace(".", " ") for row in final.solutions[0]), title=f"{len(hand)} tiles"))
        for r in results:
            stdout.print(summary(r, "layout"), highlight=False)
            if r.stats.get("optimum_proven") is not None:
                proven = "proven smallest" if r.stats["optimum_proven"] else "not proven smallest"
                stdout.print(f"bounding box {len(r.solutions[0])}x{len(r.solutions[0][0])} ({proven})", highlight=False)
        if agreement:
            stdout.print(comparison_table(results[:2], agreement))
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement and agreement.startswith("DISAGREE") else 0


def _hand_finder(lexicon: Lexicon):
    from heuristics.words import WordIndex, find_words

    index = WordIndex(lexicon.words)
    return lambda hand: [f.word for f in find_words(index, hand, min_len=2)]


def _solve_banana(name, spec, control, args) -> SolveResult:
    if name == "backtrack":
        from heuristics.bananagrams import solve

        return solve(spec, args.mode, control)
    from cpmodel.bananagrams import solve

    return solve(spec, control, args.encoding, args.log)


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
    problems = banana_problems(cells, hand, set(_load(args.dict, stderr).words))
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


# -- explain ------------------------------------------------------------------------


def run_explain(args, stdout: Console, stderr: Console) -> int:
    from rich.table import Table

    from cpmodel import explain

    lexicon_name = args.dict or "kjxqz ranked by wordfreq"
    if getattr(args, "top", None):
        lexicon_name += f", top {args.top} per length"
    if args.explained == "rect":
        args.row_dict = args.col_dict = None
        args.limit, args.time_limit = None, None
        spec = rect_spec_from_args(args, stderr)
        result = explain.explain_rect(spec, args.encoding, lexicon_name)
    elif args.explained == "banana":
        from cpmodel.bananagrams import candidate_boxes
        from cpmodel.specs import banana_spec, parse_hand

        hand = parse_hand(args.hand)
        lexicon = _load(args.dict, stderr)
        spec = banana_spec(hand, lexicon, _hand_finder(lexicon))
        rows, cols = parse_size(args.box) if args.box else candidate_boxes(len(hand))[0]
        result = explain.explain_banana(spec, rows, cols, args.encoding, lexicon_name)
    else:
        args.count, args.solver = False, "cpsat"
        spec = _wordscapes_spec_from_args(args, stderr)
        result = explain.explain_wordscapes(spec, lexicon_name)
    counts = result.counts()
    if args.json:
        stdout.print_json(json.dumps({"model": result.title, "lexicon": result.lexicon, **counts,
                                      "slots": [{"slot": s, "words": n} for s, n in result.slots],
                                      "families": [{"name": f.name, "math": f.math, "code": f.location()} for f in result.families]}))
        return 0
    stdout.print(Text(f"{result.title} · lexicon: {result.lexicon}", style="bold"))
    stdout.print(f"{counts['variables']:,} variables ({counts['booleans']:,} Boolean, {counts['integers']:,} integer)", highlight=False)
    kinds = Table("constraint kind", "count", title="constraints (from the model proto)")
    for kind, n in sorted(counts["constraints"].items(), key=lambda kv: -kv[1]):
        kinds.add_row(kind, f"{n:,}")
    stdout.print(kinds)
    slots = Table("slot", "allowed words", title="words per slot")
    for slot, n in result.slots:
        slots.add_row(slot, f"{n:,}")
    stdout.print(slots)
    families = Table("constraint family", "mathematics", "added by", title="constraint families")
    for f in result.families:
        families.add_row(Text(f.name), Text(f.math), Text(f.location()))
    stdout.print(families)
    return 0


# -- compare ------------------------------------------------------------------------


def run_compare(args, stdout: Console, stderr: Console) -> int:
    from rich import box
    from rich.table import Table

    from cpmodel import compare

    if args.time_limit <= 0:
        raise InputError(f"--time-limit must be positive, got {args.time_limit}")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install -e '.[plot]'") from None
    lexicon = _load(args.dict, stderr)
    rows = compare.run_suite(lexicon, args.time_limit, lambda puzzle, case: stderr.print(f"{puzzle} {case} …", style="cyan", highlight=False))
    if args.plot:
        compare.plot(rows, args.plot)
    if args.json:
        stdout.print_json(json.dumps({"time_limit": args.time_limit, "rows": compare.to_json(rows)}))
    else:
        table = Table(title=f"backtracking vs CP-SAT (time limit {args.time_limit:g} s per solver and case)", box=box.SIMPLE_HEAVY)
        for header in ("puzzle", "case", "agreement", "bt status", "bt s", "bt nodes", "cp status", "cp s", "cp branches", "cp/bt"):
            table.add_column(header, justify="left" if header in ("puzzle", "case", "agreement") else "right")
        for r in rows:
            table.add_row(r.puzzle, r.case, r.agreement, f"{r.backtrack.status} {r.backtrack.count}", f"{r.backtrack.seconds:.3f}",
                          f"{r.backtrack.stats.get('nodes', 0):,}", f"{r.cpsat.status} {r.cpsat.count}", f"{r.cpsat.seconds:.3f}",
                          f"{r.cpsat.stats.get('branches', 0):,}", f"{r.ratio():.1f}×")
        stdout.print(table)
        if args.plot:
            stdout.print(f"wrote {args.plot}")
    return EXIT_DISAGREE if any(r.agreement == "DISAGREE" for r in rows) else 0
