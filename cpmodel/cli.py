"""Command line: ``python -m cpmodel <puzzle> ...``.

The only layer that reads files, prints and exits. Flow, one way:
input text → spec → solver → result → validator (inside the solvers, before
anything is streamed) → rich or JSON. Exit codes: 0 done, 1 the two solvers
disagree, 2 bad input (one line on stderr), 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from cpmodel.control import Control, Request
from cpmodel.errors import InputError
from cpmodel.lexicon import Lexicon, load_default, load_file
from cpmodel.render import comparison_table, grid_panel, summary
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
        return run_rect(args, stdout, stderr)
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


def _load(path: str | None, stderr: Console) -> Lexicon:
    if path is None:
        return load_default()
    lexicon = load_file(path)
    if lexicon.skipped:
        stderr.print(f"warning: skipped {lexicon.skipped} lines of {path} that are not a-z words", style="yellow", highlight=False)
    return lexicon


def rect_request(args, on_solution=None) -> Request:
    if args.best:
        return Request(limit=None, best=True, on_solution=on_solution)
    if args.all or args.count:
        return Request(limit=None, count_only=args.count, on_solution=on_solution)
    return Request(limit=args.limit or 1, on_solution=on_solution)


def run_rect(args, stdout: Console, stderr: Console) -> int:
    spec = rect_spec_from_args(args, stderr)
    solvers = ["backtrack", "cpsat"] if args.solver == "both" else [args.solver]
    stream = not args.json and not args.count and not args.best and args.solver != "both"
    printed = [0]

    def print_grid(rows) -> None:
        printed[0] += 1
        stdout.print(grid_panel(rows, title=f"#{printed[0]}"))

    results, interrupted = [], False
    for name in solvers:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"{name} {spec.size}", stderr, print_grid if stream else None)
        request = rect_request(args, supervisor.stream)
        results.append(supervisor.run(lambda: _solve_rect(name, spec, request, control, args)))
        interrupted = interrupted or supervisor.interrupted
        if interrupted:
            break
    agreement = rect_agreement(results) if len(results) == 2 else None
    if args.json:
        stdout.print_json(json.dumps(rect_document(spec, args, results, agreement)))
    else:
        _print_rect(stdout, results, agreement, already_printed=stream, count_only=args.count)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement is not None and agreement.startswith("DISAGREE") else 0


def _solve_rect(name: str, spec: RectangleSpec, request: Request, control: Control, args) -> SolveResult:
    if name == "backtrack":
        from heuristics.rectangle import solve

        return solve(spec, request, control, orientation=args.orientation)
    from cpmodel.rectangle import solve

    return solve(spec, request, control, encoding=args.encoding, log=args.log)


def rect_agreement(results: list[SolveResult]) -> str:
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


def rect_document(spec: RectangleSpec, args, results: list[SolveResult], agreement: str | None) -> dict:
    """The stable JSON document: status, count, complete, solutions, seconds, ..."""
    with_solutions = not args.count
    main = results[0]
    doc = {"puzzle": "rect", "size": spec.size, "rows": spec.m, "cols": spec.n}
    doc.update(main.to_json(with_solutions))
    if len(results) > 1:
        doc["status"] = _combined_status(results)
        doc["complete"] = all(r.complete for r in results)
        doc["seconds"] = round(sum(r.seconds for r in results), 4)
        doc["solver"] = "both"
        doc["agreement"] = agreement
        doc["solvers"] = {r.solver: r.to_json(with_solutions) for r in results}
    doc["words"] = {"rows": len(spec.row_words), "cols": len(spec.col_words)}
    return doc


def _combined_status(results: list[SolveResult]) -> str:
    statuses = {r.status for r in results}
    if FOUND in statuses:
        return FOUND
    return NONE if statuses == {NONE} else UNKNOWN


def _print_rect(stdout: Console, results, agreement, already_printed: bool, count_only: bool) -> None:
    main = results[0]
    if not already_printed and not count_only:
        for k, rows in enumerate(main.solutions, 1):
            stdout.print(grid_panel(rows, title=f"#{k}"))
    for result in results:
        stdout.print(summary(result, "rectangle"), highlight=False)
    if agreement is not None:
        stdout.print(comparison_table(results, agreement))
