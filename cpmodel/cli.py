"""Command line: ``python -m cpmodel <puzzle> ...``: the options, and dispatch.

Each command runs in its own module, cpmodel/commands/<puzzle>.py. The CLI
is the only layer that reads files, prints and exits. Flow, one way:
input text → spec → solver → result → validator (inside the solvers, before
anything is streamed) → rich or JSON. Exit codes: 0 done, 1 the two solvers
disagree, 2 bad input (one line on stderr), 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import math

from rich.console import Console

from cpmodel.commands.common import EXIT_BAD_INPUT
from cpmodel.errors import InputError


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad usage in one line with exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        raise InputError(message)


def seconds(text: str) -> float:
    """argparse type of every --time-limit: a finite number of seconds above 0
    (nan made CP-SAT reject its model and hung the annealer; 0 or less can only stop at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got {text!r}")
    return value


def whole(least: int, most: int | None = None):
    """argparse type: a whole number of at least ``least`` (and at most ``most``),
    for counts, lengths and sizes."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if most is not None and not least <= value <= most:
            raise argparse.ArgumentTypeError(f"must be from {least} to {most}, got {value}")
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    return parse


POSITIVE, NON_NEGATIVE = whole(1), whole(0)


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
    mode.add_argument("--limit", type=POSITIVE, metavar="K", help="stop after K solutions")
    mode.add_argument("--best", action="store_true", help="most common words: minimise the largest rank, then the sum")
    rect.add_argument("--pattern", help="fixed letters, rows split by '/', '.' free: e.g. 's...../....../....../....../.....s'")
    rect.add_argument("--distinct", action="store_true", help="no word used twice")
    rect.add_argument("--symmetric", action="store_true", help="word square whose rows equal its columns (m = n)")
    rect.add_argument("--encoding", choices=("table", "onehot", "automaton"), default="table", help="CP-SAT encoding of the word constraints")
    rect.add_argument("--orientation", choices=("auto", "rows", "cols"), default="auto", help="lines the backtracker fills")
    _solve_options(rect)

    words = puzzles.add_parser("words", help="every word spellable from a bag of letters ('?' = blank)")
    words.add_argument("letters", help="the rack, e.g. retains or reta?ns")
    words.add_argument("--min", type=POSITIVE, default=3, help="shortest word (default 3, as in Wordscapes)")
    words.add_argument("--max", type=POSITIVE, help="longest word")
    words.add_argument("--dict", metavar="FILE", help="word list, one word per line")
    words.add_argument("--json", action="store_true")

    scapes = puzzles.add_parser("wordscapes", help="fill a Wordscapes crossword board from the wheel's letters")
    scapes.add_argument("board_file", help="text grid: '.' open, '#' or space blocked, a letter pre-filled")
    scapes.add_argument("letters", help="the wheel's letters")
    scapes.add_argument("--min", type=POSITIVE, default=3, help="shortest slot word (default 3)")
    _lexicon_options(scapes)
    scapes_mode = scapes.add_mutually_exclusive_group()
    scapes_mode.add_argument("--all", action="store_true")
    scapes_mode.add_argument("--count", action="store_true")
    scapes_mode.add_argument("--limit", type=POSITIVE, metavar="K")
    _solve_options(scapes)

    banana = puzzles.add_parser("banana", help="a Bananagrams layout of every tile in the hand")
    banana.add_argument("hand", nargs="?", help="the tiles, e.g. 'aeinrst lpq' (spaces and commas are fine)")
    banana.add_argument("--draw", type=whole(1, 144), metavar="N", help="draw N tiles from the 144-tile bag instead (21: 2-4 players, 15: 5-6, 11: 7-8)")
    banana.add_argument("--seed", type=int, default=0, help="seed for --draw")
    banana.add_argument("--mode", choices=("free", "crossing"), default="free", help="backtracker: allow parallel adjacent words (free) or not")
    banana.add_argument("--compact", action="store_true", help="smallest bounding box (area, then perimeter), by CP-SAT from the heuristic's layout")
    banana.add_argument("--check", metavar="LAYOUT_FILE", help="validate a hand-made layout and say which rule fails, and where")
    banana.add_argument("--encoding", choices=("automaton", "table"), default="automaton", help="CP-SAT encoding of the word rule")
    banana.add_argument("--solver", choices=("cpsat", "backtrack", "both"), default="backtrack")
    banana.add_argument("--time-limit", type=seconds, default=60.0, metavar="SECONDS", help="default 60; a stopped search ends unknown")
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
    ex_scapes.add_argument("--min", type=POSITIVE, default=3)
    _lexicon_options(ex_scapes)
    ex_scapes.add_argument("--json", action="store_true")

    compare = puzzles.add_parser("compare", help="a fixed, seeded suite on both solvers, in one table")
    compare.add_argument("--time-limit", type=seconds, default=30.0, metavar="SECONDS", help="per solver and case (default 30)")
    compare.add_argument("--dict", metavar="FILE")
    compare.add_argument("--json", action="store_true")
    compare.add_argument("--plot", metavar="FILE.png", help="time against size, log axis (needs the plot extra: pip install -e '.[plot]')")

    grid = puzzles.add_parser("grid", help="all words on a Boggle/WordHero/Scramble board, scored")
    grid.add_argument("board", nargs="?", help="tiles row by row, '/' between rows (default 4x4); [qu] or Qu; +2 +3 *2 *3")
    grid.add_argument("--random", action="store_true", help="roll the 16 classic Boggle dice")
    grid.add_argument("--best", metavar="RxC", help="search for a high-scoring RxC board (simulated annealing)")
    grid.add_argument("--seed", type=int, default=0)
    grid.add_argument("--time-limit", type=seconds, default=60.0, metavar="SECONDS", help="for --best (default 60)")
    grid.add_argument("--score", choices=("boggle", "scramble"), default="boggle")
    grid.add_argument("--score-table", metavar="FILE", help="JSON overriding the scoring tables (see cpmodel/scoring.py)")
    grid.add_argument("--min", type=POSITIVE, default=3)
    grid.add_argument("--max", type=POSITIVE)
    grid.add_argument("--show", type=NON_NEGATIVE, default=20, help="words drawn with their paths (default 20)")
    grid.add_argument("--dict", metavar="FILE", help="word list, one word per line")
    grid.add_argument("--json", action="store_true")
    return parser


def _lexicon_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dict", metavar="FILE", help="word list, one word per line, most common first (default: kjxqz ranked by wordfreq)")
    parser.add_argument("--top", type=POSITIVE, metavar="N", help="keep only the N most common words of each length")


def _solve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--solver", choices=("cpsat", "cp", "backtrack", "both"), default="cpsat", help="cp: OR-Tools classic CP solver; both: every engine, cross-checked")
    parser.add_argument("--time-limit", type=seconds, metavar="SECONDS", help="stop after this long (result: unknown, never none)")
    parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    parser.add_argument("--log", action="store_true", help="stream CP-SAT's own search log to stderr")


def main(argv: list[str] | None = None) -> int:
    stdout, stderr = Console(), Console(stderr=True)
    try:
        args = build_parser().parse_args(argv)
        command = importlib.import_module(f"cpmodel.commands.{args.puzzle}")
        return command.run(args, stdout, stderr)
    except InputError as exc:
        stderr.print(f"error: {exc}", style="bold red", highlight=False, soft_wrap=True)
        return EXIT_BAD_INPUT
