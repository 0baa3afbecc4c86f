"""Command line: ``python -m cpmodel <puzzle> ...``: the options, and dispatch.

Each command runs in its own module, cpmodel/commands/<puzzle>.py. The CLI
is the only layer that reads files, prints and exits. Flow, one way:
input text → spec → solver → result → validator (inside the solvers, before
anything is streamed) → rich or JSON. Exit codes (docs/json.md): 0 done,
1 the engines disagree, 2 bad input (one line on stderr), 3 an invalid
``banana --check`` layout, 70 an internal error, 129 SIGHUP, 130 Ctrl-C,
131 SIGQUIT, 141 a closed stdout, 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
import time
import traceback
from pathlib import Path

from rich.console import Console

from cpmodel.commands.auto import SOLVER_METAVAR
from cpmodel.commands.common import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED
from cpmodel.core import checks, clock
from cpmodel.core.errors import InputError
from cpmodel.run import interrupts


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the help already says
    what happens without it (defaults that are None or False say nothing)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "%(default)" in text or action.default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad usage in one line with exit code 2, suggests
    the option or command that was probably meant, and takes no abbreviations."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # --solve is not --solver
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        raise InputError(message)

    def _check_value(self, action, value):  # type: ignore[override]
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            what = "unknown command" if isinstance(action, argparse._SubParsersAction) else f"{_name(action)}: invalid choice"
            close = [c for c in choices if c.startswith(str(value))] or difflib.get_close_matches(str(value), choices, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise argparse.ArgumentError(None, f"{what} {value!r}{hint} (choose from {', '.join(choices)})")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(_unrecognized(self, parsed, extras))
        return parsed


def _name(action) -> str:
    return "/".join(action.option_strings) or action.metavar or action.dest


def _unrecognized(parser: argparse.ArgumentParser, parsed, extras: list[str]) -> str:
    """'unrecognized argument --cout for rect; did you mean --count?'"""
    command, options = _chosen_command(parser, parsed)
    notes = []
    for extra in extras:
        if extra.startswith("-"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1)
            notes.append(f"{extra} (did you mean {close[0]}?)" if close else extra)
        else:
            notes.append(repr(extra))
    where = f" for {command}" if command else ""
    return f"unrecognized argument{'s' if len(extras) > 1 else ''}{where}: {', '.join(notes)}"


def _chosen_command(parser: argparse.ArgumentParser, parsed) -> tuple[str, list[str]]:
    """The (sub)command that was chosen, and the option strings it knows."""
    names, current = [], parser
    while True:
        sub = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(parsed, sub.dest, None) if sub else None
        if chosen is None:
            break
        names.append(chosen)
        current = sub.choices[chosen]
    options = [o for a in current._actions for o in a.option_strings if o.startswith("--")]
    return " ".join(names), options


def prog_name() -> str:
    """``cpmodel`` from the console script, ``python -m cpmodel`` from ``-m``."""
    invoked = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return "python -m cpmodel" if invoked in ("", "__main__.py", "-c") else invoked


def seconds(text: str) -> float:
    """argparse type of every --time-limit: a finite number of seconds above 0 (cpmodel.core.checks)."""
    try:
        return checks.seconds_text(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def whole(least: int, most: int | None = None):
    """argparse type: a whole number of at least ``least`` (and at most ``most``),
    for counts, lengths and sizes (cpmodel.core.checks, which the Python API shares)."""

    def parse(text: str) -> int:
        try:
            return checks.whole_text(text, least, most)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


POSITIVE, NON_NEGATIVE = whole(1), whole(0)


def build_parser() -> argparse.ArgumentParser:
    from cpmodel import __version__

    parser = _Parser(prog=prog_name(), description="Word puzzles as constraint programs.",
                     epilog="Run a command with --help for its options. Exit codes: 0 done, 1 the engines "
                            "disagree, 2 bad input, 3 invalid --check layout, 70 internal error, "
                            "129 SIGHUP, 130 Ctrl-C, 131 SIGQUIT, 141 closed stdout, 143 SIGTERM.")
    parser.add_argument("--version", action="version", version=f"cpmodel {__version__}")
    puzzles = parser.add_subparsers(dest="puzzle", required=True, parser_class=_Parser, metavar="COMMAND",
                                    title="commands")
    rect = puzzles.add_parser("rect", help="m×n word rectangles (TAOCP 7.2.2 ex. 24)")
    rect.add_argument("size", help="rows x columns, e.g. 5x6: 5 six-letter rows, 6 five-letter columns")
    _lexicon_options(rect)
    rect.add_argument("--row-dict", metavar="FILE", help="word list for the rows only (default: --dict's)")
    rect.add_argument("--col-dict", metavar="FILE", help="word list for the columns only (default: --dict's)")
    _mode_options(rect, best="most common words: minimise the largest rank, then the sum, searching until proven",
                  limit="stop after K solutions; --limit 1 is the fastest: any first rectangle (default, with no mode "
                        "option: the most familiar rectangle, the first one shown at once, then improved for up to "
                        "15 s or --time-limit, and said whether proven)")
    rect.add_argument("--pattern", help="fixed letters, rows split by '/', '.' free: e.g. 's...../....../....../....../.....s' (default: all free)")
    rect.add_argument("--distinct", action="store_true", help="no word used twice")
    rect.add_argument("--symmetric", action="store_true", help="word square whose rows equal its columns (m = n)")
    rect.add_argument("--encoding", choices=("table", "onehot", "automaton"), help="CP-SAT encoding of the word constraints (default: table)")
    rect.add_argument("--orientation", choices=("auto", "rows", "cols"), help="lines the backtracker fills (default: auto)")
    _solve_options(rect)
    _scale_options(rect)

    words = puzzles.add_parser("words", help="every word spellable from a bag of letters ('?' = blank)")
    words.add_argument("letters", help="the rack, e.g. retains or reta?ns")
    words.add_argument("--min", type=POSITIVE, default=3, help="shortest word, as in Wordscapes")
    words.add_argument("--max", type=POSITIVE, help="longest word (default: the rack's size)")
    _lexicon_options(words)
    words.add_argument("--sort", choices=("length", "common"), default="length",
                       help="length: grouped by length, longest first; common: most common first")
    words.add_argument("--json", action="store_true", help="print one JSON document for scripts")

    scapes = puzzles.add_parser("wordscapes", help="fill a Wordscapes crossword board from the wheel's letters")
    scapes.add_argument("board_file", help="text grid: '.' open, '#' or space blocked, a letter pre-filled")
    scapes.add_argument("letters", help="the wheel's letters")
    scapes.add_argument("--min", type=POSITIVE, default=3, help="shortest slot word")
    _lexicon_options(scapes)
    _mode_options(scapes, best="most familiar fill: minimise the largest word rank, then the sum")
    _solve_options(scapes)
    _scale_options(scapes)

    banana = puzzles.add_parser("banana", help="a Bananagrams layout of every tile in the hand")
    banana.add_argument("hand", nargs="?", help="the tiles, e.g. 'aeinrst lpq' (spaces and commas are fine)")
    banana.add_argument("--draw", type=whole(1, 144), metavar="N", help="draw N tiles from the 144-tile bag instead (21: 2-4 players, 15: 5-6, 11: 7-8)")
    banana.add_argument("--seed", type=int, default=0, help="seed for --draw")
    banana.add_argument("--mode", choices=("free", "crossing"), help="backtracker: allow parallel adjacent words (free) or not (default: free)")
    banana.add_argument("--compact", action="store_true", help="smallest bounding-box area: backtracker in growing boxes, then CP-SAT proves or improves box by box")
    banana.add_argument("--check", metavar="LAYOUT_FILE", help="validate a hand-made layout (rows of letters, '.' or space empty) and say which rule fails, and where")
    banana.add_argument("--peel", metavar="LAYOUT_FILE", help="add the tiles HAND to this layout (text rows, or JSON with a grid), moving few")
    banana.add_argument("--game", action="store_true", help="simulate a solo game from --seed: peel until all 144 tiles are placed")
    banana.add_argument("--players", type=whole(1, 8), default=1, metavar="P", help="--game: opening hand of P players (21, 15 or 11) and P tiles per peel")
    banana.add_argument("--steps", action="store_true", help="--game: show every step in a table")
    banana.add_argument("--svg", metavar="FILE", help="draw the layout as tiles in an SVG file (a game: its final board, peels marked)")
    banana.add_argument("--encoding", choices=("automaton", "table"), help="CP-SAT encoding of the word rule (default: automaton)")
    banana.add_argument("--solver", default="auto", metavar=SOLVER_METAVAR,
                        help="auto races backtrack (finds layouts fast, cannot prove none) and cpsat (can); "
                             "backtrack or cpsat alone; both cross-checks")
    banana.add_argument("--time-limit", type=seconds, default=60.0, metavar="SECONDS", help="per solver; a stopped search ends unknown")
    _lexicon_options(banana)
    banana.add_argument("--param", action="append", metavar="KEY=VALUE", help=PARAM_HELP)
    banana.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    banana.add_argument("--log", action="store_true", help="stream CP-SAT's own search log to stderr")

    explain = puzzles.add_parser("explain", help="build a model without solving it and show its anatomy")
    explain_puzzles = explain.add_subparsers(dest="explained", required=True, parser_class=_Parser, metavar="PUZZLE",
                                             title="puzzles")
    ex_rect = explain_puzzles.add_parser("rect", help="the rectangle model")
    ex_rect.add_argument("size", help="rows x columns, e.g. 5x6")
    _lexicon_options(ex_rect)
    ex_rect.add_argument("--encoding", choices=("table", "onehot", "automaton"), default="table", help="CP-SAT encoding of the word constraints")
    ex_rect.add_argument("--pattern", help="fixed letters, rows split by '/', '.' free (default: all free)")
    ex_rect.add_argument("--distinct", action="store_true", help="no word used twice")
    ex_rect.add_argument("--symmetric", action="store_true", help="word square whose rows equal its columns")
    _explain_outputs(ex_rect)
    ex_banana = explain_puzzles.add_parser("banana", help="the Bananagrams model for one box")
    ex_banana.add_argument("hand", help="the tiles, e.g. 'aeinrst lp'")
    ex_banana.add_argument("--box", default=None, metavar="RxC", help="box size (default: the first box the solver tries)")
    ex_banana.add_argument("--encoding", choices=("automaton", "table"), default="automaton", help="CP-SAT encoding of the word rule")
    _lexicon_options(ex_banana)
    _explain_outputs(ex_banana)
    ex_scapes = explain_puzzles.add_parser("wordscapes", help="the Wordscapes model")
    ex_scapes.add_argument("board_file", help="text grid: '.' open, '#' or space blocked, a letter pre-filled")
    ex_scapes.add_argument("letters", help="the wheel's letters")
    ex_scapes.add_argument("--min", type=POSITIVE, default=3, help="shortest slot word")
    _lexicon_options(ex_scapes)
    _explain_outputs(ex_scapes)

    compare = puzzles.add_parser("compare", help="a fixed, seeded suite on both solvers, in one table")
    compare.add_argument("--time-limit", type=seconds, default=300.0, metavar="SECONDS",
                         help="for the whole suite (default 300; it takes ~75 s): each engine run gets what is "
                              "left, at most 30 s")
    compare.add_argument("--quick", action="store_true", help="one small case per puzzle (seconds, not minutes)")
    compare.add_argument("--dict", metavar="FILE", help=DICT_HELP)
    compare.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    compare.add_argument("--plot", metavar="FILE.png", help="time against size, log axis (needs the plot extra: pip install -e '.[plot]')")

    grid = puzzles.add_parser("grid", help="all words on a Boggle/WordHero/Scramble board, scored")
    grid.add_argument("board", nargs="?", help="tiles row by row, '/' between rows (default 4x4); [qu] or Qu; +2 +3 *2 *3")
    grid.add_argument("--random", action="store_true", help="roll the 16 classic Boggle dice")
    grid.add_argument("--best", metavar="RxC", help="search for a high-scoring RxC board, 2x2 to 5x5 (pool hill climbing beside annealing, every core)")
    grid.add_argument("--score-file", metavar="FILE", help="print the total of each board in FILE (one per line; - for stdin)")
    grid.add_argument("--jobs", type=POSITIVE, metavar="N", help="processes for --best and --prove, threads for --score-file (default: all cores)")
    grid.add_argument("--seed", type=int, default=0, help="seed for --random and --best")
    grid.add_argument("--time-limit", type=seconds, default=None, metavar="SECONDS", help="for --best (default 60 s; none with --prove)")
    grid.add_argument("--target", type=POSITIVE, metavar="POINTS", help="--best: stop as soon as a board scores at least POINTS")
    grid.add_argument("--score", choices=("boggle", "scramble"), default="boggle", help="scoring table")
    grid.add_argument("--score-table", metavar="FILE", help="JSON overriding the scoring tables (see cpmodel/core/scoring.py)")
    grid.add_argument("--min", type=POSITIVE, default=3, help="shortest word")
    grid.add_argument("--max", type=POSITIVE, help="longest word (default: no limit)")
    grid.add_argument("--show", type=NON_NEGATIVE, default=20, help="words drawn with their paths")
    _lexicon_options(grid)
    grid.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    grid.add_argument("--prove", action="store_true", help="with --best (up to 3x4): prove the optimum by branch and bound over board classes")
    grid.add_argument("--scheduler", metavar="ADDRESS", help="--prove: run the shards on a Dask cluster")
    grid.add_argument("--shards", type=POSITIVE, metavar="N", help="--prove: shards to cut the classes into (default 64, or 256 with --checkpoint/--scheduler)")
    grid.add_argument("--checkpoint", metavar="FILE", help="--prove: record finished shards in FILE; rerun with the same FILE to resume")
    grid.add_argument("--quick", action="store_true", help="--prove: only a fixed sample of 8 board classes (seconds; a smoke test, proves nothing about the others)")

    serve = puzzles.add_parser("serve", help="the web app: every puzzle as a page, and a JSON API (pip install -e '.[web]')")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 opens it to the network)")
    serve.add_argument("--port", type=whole(0, 65535), default=8000, help="port (0: any free one)")
    serve.add_argument("--jobs", type=whole(1, 64), default=max(1, os.cpu_count() or 1), metavar="N",
                       help="solves run at once, each in its own process")
    serve.add_argument("--queue", type=whole(0, 1000), default=32, metavar="N",
                       help="solves that may wait for a worker; beyond that the answer is busy (503)")

    lexicon = puzzles.add_parser("lexicon", help="print the dictionary's words, most common first, one per line")
    lexicon.add_argument("--length", type=POSITIVE, metavar="N", help="only words of N letters (default: every length)")
    _lexicon_options(lexicon)
    return parser


DICT_HELP = ("word list: one word per line, most common first, or 'word<TAB>count' / 'word count' lines, "
             "ranked by count (default: kjxqz ranked by wordfreq)")
PARAM_HELP = ("a CP-SAT parameter, e.g. cp_model_presolve=false, num_workers=8, search_branching=FIXED_SEARCH; "
              "repeat for more (default: the model's own settings)")


def _lexicon_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dict", metavar="FILE", help=DICT_HELP)
    parser.add_argument("--top", type=POSITIVE, metavar="N", help="keep only the N most common words of each length (default: all)")


def _mode_options(parser: argparse.ArgumentParser, best: str, limit: str = "stop after K solutions (default: 1)") -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--all", action="store_true", help="stream every solution")
    mode.add_argument("--count", action="store_true", help="count every solution")
    mode.add_argument("--limit", type=POSITIVE, metavar="K", help=limit)
    mode.add_argument("--best", action="store_true", help=best)


def _solve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--solver", default="auto", metavar=SOLVER_METAVAR,
                        help="auto races the engines in parallel processes and reports the first conclusive answer "
                             "(and which engine gave it); an engine (backtrack, cp: OR-Tools' classic CP solver, cpsat); "
                             "both, or a comma list such as backtrack,cpsat, runs each and compares their answers")
    parser.add_argument("--time-limit", type=seconds, metavar="SECONDS", help="stop after this long (result: unknown, never none) (default: none)")
    parser.add_argument("--param", action="append", metavar="KEY=VALUE", help=PARAM_HELP)
    parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    parser.add_argument("--log", action="store_true", help="stream CP-SAT's own search log to stderr")


def _explain_outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--export", metavar="FILE", help="also write the model as CP-SAT proto text")
    parser.add_argument("--json", action="store_true", help="print one JSON document for scripts")


def _scale_options(parser: argparse.ArgumentParser) -> None:
    """Sharded search (--all, --count, --best), streaming and resume; see cpmodel/commands/sharded.py and cpmodel/run/sharded.py."""
    parser.add_argument("--jobs", type=int, metavar="N", help="worker processes for --all/--count/--best (default: all cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run the shards on a Dask cluster, e.g. tcp://host:8786 (pip install -e '.[cluster]')")
    parser.add_argument("--shards", type=int, metavar="N", help="how many shards to cut the search into (default: 256, or one per first-line word for cpsat)")
    parser.add_argument("--checkpoint", metavar="FILE", help="record finished shards in FILE; rerun with the same FILE to resume")
    parser.add_argument("--jsonl", action="store_true", help="one JSON line per solution as it is found, then a summary line")
    parser.add_argument("--estimate", action="store_true", help="estimate the search's size and time without running it")


def main(argv: list[str] | None = None, began: float | None = None) -> int:
    """Run one command; returns its exit code (see docs/json.md, "Exit codes").

    Rich's markup and emoji codes are off: every string printed is the
    user's text or ours, shown as it is (``[qu]`` and ``[/x]`` are not markup).
    Whatever escapes a command ends in one line on stderr and its own exit
    code, never a traceback: bad input 2, a closed stdout 141 (quietly, as
    Unix tools do), a signal 128 + its number (with a document saying nothing was
    found, when JSON was asked for and none was written), a bug 70.

    ``began``: when the process began (``python -m cpmodel``'s first line); a
    ``--time-limit`` counts from it, or from this call."""
    interrupts.install()
    started = time.monotonic()
    clock.begin(began)  # every --time-limit counts from the command's start (cpmodel.core.clock)
    stdout = _Console(markup=False, emoji=False)
    stderr = _Console(stderr=True, markup=False, emoji=False)
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
        command = importlib.import_module(f"cpmodel.commands.{args.puzzle}")
        code = command.run(args, stdout, stderr)
    except InputError as exc:
        code = _report(stderr, f"error: {exc}", EXIT_BAD_INPUT)
    except KeyboardInterrupt as exc:
        interrupts.note(exc)
        code = _interrupted(argv, stdout, stderr, time.monotonic() - started)
    except BrokenPipeError:
        code = _closed_stdout()
    except Exception as exc:  # a bug: say so in one line, the traceback on request
        if os.environ.get("CPMODEL_DEBUG"):
            traceback.print_exc()
        code = _report(stderr, f"internal error: {type(exc).__name__}: {exc} "
                               f"(set CPMODEL_DEBUG=1 for the traceback)", EXIT_INTERNAL)
    finally:
        clock.end()  # in-process callers (the tests, a notebook) run later searches with their whole limit
    return interrupts.exit_code(code)


class _Console(Console):
    """rich's Console, except that a closed stdout is left to :func:`main`
    (rich itself would exit with code 1, the code of "the engines disagree")."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError()


def one_line(text: str) -> str:
    """``text`` with control characters (a newline in a path, say) shown as escapes."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _report(stderr: Console, message: str, code: int) -> int:
    with interrupts.deferred(reraise=False):
        try:
            stderr.print(one_line(message), style="bold red", highlight=False, soft_wrap=True)
        except BrokenPipeError:
            pass
    return code


def _interrupted(argv: list[str], stdout: Console, stderr: Console, seconds: float) -> int:
    """A signal outside any search (imports, lexicon, spec, printing): nothing
    was found, and the result says so; JSON gets one document if none was written."""
    from cpmodel.show.documents import documents_written, write_json

    with interrupts.deferred(reraise=False):
        try:
            if ("--json" in argv or "--jsonl" in argv) and not documents_written():
                write_json(stdout, {**interrupts.NOTHING_FOUND, "seconds": round(seconds, 4)})
            stderr.print("interrupted: stopped here; nothing more will be shown", style="yellow",
                         highlight=False, soft_wrap=True)
        except BrokenPipeError:
            _closed_stdout()
    return EXIT_INTERRUPTED


def _closed_stdout() -> int:
    """The reader of stdout went away (``| head``): stop quietly, as Unix tools do.
    Point stdout at /dev/null so that Python's last flush cannot complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE
