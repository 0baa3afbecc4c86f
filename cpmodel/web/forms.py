"""Request fields → a command line, checked: the one place a web request becomes an argv.

Each puzzle's function reads the fields it knows from a JSON object, checks
them (types, caps) with the CLI's own argparse types and parsers
(cpmodel.commands.cli, cpmodel.core.specs, cpmodel.core.boards), and returns a
:class:`Command`: the argv for ``python -m cpmodel`` (always with ``--json``
and a ``--time-limit`` under the ceiling), the texts the worker writes to its
own files (a Wordscapes board, a layout), and the time limit. Bad input is a
one-line :class:`~cpmodel.core.errors.InputError`, worded as the CLI words it.

Why this is safe: a request never names a file (options that read or write
files, --dict, --svg, --checkpoint, --scheduler, are never produced), every
option is written ``--name=value`` and every positional comes after ``--``,
so no user text can turn into an option.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from cpmodel.commands.cli import build_parser, seconds, whole
from cpmodel.core.errors import InputError
from cpmodel.web.guard import kind

TIME_DEFAULT, TIME_CEILING = 20.0, 60.0  # seconds per job: the default, and the most a request may ask
MAX_TOP = 50_000  # --top
MAX_RECT_SIDE = 8  # rect: each side
MAX_GRID_SIDE = 8  # grid boards; --best up to 6x6
MAX_BEST_SIDE = 6
MAX_TILES = 144  # a hand: the whole bag
MAX_TEXT = 2_000  # characters in any text field
MAX_BOARD = 15  # a Wordscapes board's rows and columns
MAX_WHEEL = 12  # a Wordscapes wheel's letters
MAX_LIMIT = 1_000  # --limit
MAX_NUMBER_TEXT = 40  # characters in a number field sent as text
MAX_SEED = 2**31 - 1  # --seed
MAX_MIN_LENGTH = 16  # grid --min: the shortest word listed
MAX_EXPLAIN_TILES = 30  # explain banana: a hand
MAX_BOARD_OFFSET = 10_000  # a Bananagrams layout's top and left on the page's board (either sign)
RECT_MODES = ("familiar", "first", "limit", "all", "count", "best")


def limits() -> dict:
    """This server's limits as the pages show them (an input's max, a label's range): the
    constants the checks below apply, so a page never promises what the server refuses."""
    return {"rect_side": MAX_RECT_SIDE, "grid_side": MAX_GRID_SIDE, "best_side": MAX_BEST_SIDE, "top": MAX_TOP,
            "limit": MAX_LIMIT, "time": f"{TIME_CEILING:g}", "time_default": f"{TIME_DEFAULT:g}", "seed": MAX_SEED,
            "min_length": MAX_MIN_LENGTH, "board": MAX_BOARD, "wheel": MAX_WHEEL, "tiles": MAX_TILES,
            "explain_tiles": MAX_EXPLAIN_TILES}


@dataclass
class Command:
    argv: list[str]
    time_limit: float
    files: dict = field(default_factory=dict)


def command_for(puzzle: str, body: dict) -> Command:
    """The checked command for ``puzzle`` (rect, grid, wordscapes, banana, words, explain)."""
    builders = {"rect": rect, "grid": grid, "wordscapes": wordscapes, "banana": banana, "words": words,
                "explain": explain}
    if puzzle not in builders:
        raise InputError(f"unknown puzzle {puzzle!r:.40} (choose from {', '.join(builders)})")
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    command = builders[puzzle](Fields(body))
    _parse_like_the_cli(command.argv)
    return command


class Fields:
    """Typed access to the request's fields; each error names the CLI option it stands for."""

    def __init__(self, body: dict):
        self.body = body

    def text(self, key: str, option: str, default: str | None = None, limit: int = MAX_TEXT) -> str | None:
        value = self.body.get(key, default)
        if value is None or value == "":
            return default
        if not isinstance(value, str):
            raise InputError(f"{option}: must be text, got {kind(value)}")
        if len(value) > limit:
            raise InputError(f"{option}: at most {limit} characters, got {len(value)}")
        return value

    def number(self, key: str, option: str, least: int, most: int, default: int | None = None) -> int | None:
        value = self.body.get(key, default)
        if value is None or value == "":
            return default
        return _typed(whole(least, most), _scalar(value, option, "a whole number"), option)

    def flag(self, key: str) -> bool:
        value = self.body.get(key, False)
        if not isinstance(value, bool):
            raise InputError(f"{key}: must be true or false, got {_shown(value)}")
        return value

    def choice(self, key: str, option: str, choices: tuple[str, ...], default: str) -> str:
        value = self.text(key, option, default, limit=40)
        if value not in choices:
            raise InputError(f"argument {option}: invalid choice {value!r} (choose from {', '.join(choices)})")
        return value

    def time_limit(self) -> float:
        value = self.body.get("time_limit")
        if value is None or value == "":
            return TIME_DEFAULT
        limit = _typed(seconds, _scalar(value, "--time-limit", "a number of seconds"), "--time-limit")
        if limit > TIME_CEILING:
            raise InputError(f"argument --time-limit: at most {TIME_CEILING:g} s on this server, got {value}")
        return limit


def _scalar(value, option: str, wanted: str) -> str:
    """A number field's value as the text the CLI would have read (a page sends "5", a script 5).
    An array, an object, true or false is refused by its type; an overlong text by its start,
    so the message stays short (the CLI's parsers quote the whole text they refuse)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"argument {option}: must be {wanted}, got {_shown(value)}")
    text = str(value)
    if len(text) > MAX_NUMBER_TEXT:
        raise InputError(f"argument {option}: must be {wanted}, got {len(text):,} characters "
                         f"(at most {MAX_NUMBER_TEXT}) starting {text[:20]!r}")
    return text


def _shown(value) -> str:
    """A field's value for a one-line message: true, false and null as JSON writes them, an array
    or an object by its type, anything else by its repr cut to 40 characters."""
    if isinstance(value, (bool, list, dict)) or value is None:
        return kind(value)
    return f"{value!r:.40}"


def _typed(parse, text: str, option: str):
    try:
        return parse(text)
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"argument {option}: {exc}") from None


def _parse_like_the_cli(argv: list[str]) -> None:
    """What the CLI's parser would refuse, refused here (with its message) before a worker starts."""
    build_parser().parse_args(argv)


def _solver(fields: Fields, puzzle: str, best: bool) -> str:
    from cpmodel.commands.auto import choose_engines

    value = fields.text("solver", "--solver", "auto", limit=40)
    choose_engines(value, puzzle, best)  # a one-line error for a bad name
    return value


def rect(fields: Fields) -> Command:
    from cpmodel.core.specs import parse_pattern, parse_size

    size = fields.text("size", "size", "5x6", limit=40)
    m, n = parse_size(size, MAX_RECT_SIDE)
    mode = fields.choice("mode", "mode", RECT_MODES, "familiar")
    time_limit = fields.time_limit()
    argv = ["rect", "--json", f"--time-limit={time_limit:g}", f"--solver={_solver(fields, 'rect', mode in ('best', 'familiar'))}"]
    top = fields.number("top", "--top", 1, MAX_TOP)
    if top is not None:
        argv.append(f"--top={top}")
    pattern = fields.text("pattern", "--pattern", limit=200)
    if pattern:
        parse_pattern(pattern, m, n)
        argv.append(f"--pattern={pattern}")
    argv += [flag for flag, key in (("--distinct", "distinct"), ("--symmetric", "symmetric")) if fields.flag(key)]
    if mode == "first":
        argv.append("--limit=1")
    elif mode == "limit":
        argv.append(f"--limit={fields.number('limit', '--limit', 1, MAX_LIMIT, 10)}")
    elif mode in ("all", "count", "best"):
        argv.append(f"--{mode}")
    return Command(argv + ["--", size], time_limit)


def grid(fields: Fields) -> Command:
    from cpmodel.core.boards import parse_grid
    from cpmodel.core.specs import parse_size

    time_limit = fields.time_limit()
    argv = ["grid", "--json", f"--score={fields.choice('score', '--score', ('boggle', 'scramble'), 'boggle')}",
            f"--min={fields.number('min', '--min', 1, MAX_MIN_LENGTH, 3)}"]
    longest = fields.number("max", "--max", 1, 64)
    if longest is not None:
        argv.append(f"--max={longest}")
    seed = fields.number("seed", "--seed", 0, MAX_SEED, 0)
    board, best = fields.text("board", "BOARD", limit=400), fields.text("best", "--best", limit=10)
    if sum([bool(board), fields.flag("random"), bool(best)]) != 1:
        raise InputError("give exactly one of BOARD, --random or --best RxC")
    if board:
        parsed = parse_grid(board)
        if max(parsed.rows, parsed.cols) > MAX_GRID_SIDE:
            raise InputError(f"a board side may be at most {MAX_GRID_SIDE} on this server, "
                             f"got {parsed.rows}x{parsed.cols}")
        return Command(argv + ["--", board], time_limit)
    if best:
        parse_size(best, MAX_BEST_SIDE)
        return Command(argv + [f"--best={best}", f"--seed={seed}", f"--time-limit={time_limit:g}"], time_limit)
    return Command(argv + ["--random", f"--seed={seed}"], time_limit)


def wordscapes(fields: Fields) -> Command:
    import re

    from cpmodel.core.boards import parse_crossword

    board = fields.text("board", "BOARD") or ""
    parsed = parse_crossword(board)
    if max(parsed.rows, parsed.cols) > MAX_BOARD:
        raise InputError(f"the board may be at most {MAX_BOARD}x{MAX_BOARD} on this server, got {parsed.rows}x{parsed.cols}")
    letters = (fields.text("letters", "LETTERS", limit=40) or "").strip()
    if not re.fullmatch(r"[a-zA-Z]+", letters):
        raise InputError(f"LETTERS must be letters a-z only, got {letters!r}")
    if len(letters) > MAX_WHEEL:
        raise InputError(f"the wheel may hold at most {MAX_WHEEL} letters on this server, got {len(letters)}")
    mode = fields.choice("mode", "mode", ("first", "best", "count", "all"), "first")
    time_limit = fields.time_limit()
    argv = ["wordscapes", "--json", f"--time-limit={time_limit:g}",
            f"--solver={_solver(fields, 'wordscapes', mode == 'best')}", f"--min={fields.number('min', '--min', 1, 15, 3)}"]
    if mode != "first":
        argv.append(f"--{mode}")
    return Command(argv + ["--", "{board}", letters], time_limit, {"board": board})


def banana(fields: Fields) -> Command:
    from cpmodel.core.boards import parse_layout
    from cpmodel.core.specs import parse_hand

    time_limit = fields.time_limit()
    argv = ["banana", "--json"]
    hand = fields.text("hand", "HAND", limit=400)
    draw = fields.number("draw", "--draw", 1, MAX_TILES)
    layout = fields.text("layout", "layout", limit=8_000)
    action = fields.choice("action", "action", ("solve", "check", "peel"), "solve")
    if draw is not None and action == "solve" and not hand:
        argv += [f"--draw={draw}", f"--seed={fields.number('seed', '--seed', 0, MAX_SEED, 0)}"]
    elif hand:
        if len(parse_hand(hand)) > MAX_TILES:
            raise InputError(f"a hand may hold at most {MAX_TILES} tiles (the whole bag), got {len(parse_hand(hand))}")
    elif action != "check":
        raise InputError("give a HAND or --draw N (not both)")
    if action in ("check", "peel"):
        if not layout:
            raise InputError(f"--{action}: the layout is empty")
        cells = parse_layout(layout)
        if len(cells) > MAX_TILES:
            raise InputError(f"a layout may hold at most {MAX_TILES} tiles, got {len(cells)}")
        argv.append(f"--{action}={{layout}}")
        files = {"layout": layout}
    else:
        files = {}
        argv += [f"--solver={_solver(fields, 'banana', False)}",
                 f"--mode={fields.choice('mode', '--mode', ('free', 'crossing'), 'free')}"]
    if action != "check":
        argv.append(f"--time-limit={time_limit:g}")
    return Command(argv + (["--", hand] if hand else []), time_limit, files)


def words(fields: Fields) -> Command:
    letters = fields.text("letters", "letters", limit=30) or ""
    argv = ["words", "--json", f"--min={fields.number('min', '--min', 1, 30, 3)}",
            f"--sort={fields.choice('sort', '--sort', ('length', 'common'), 'length')}"]
    return Command(argv + ["--", letters], fields.time_limit())


def explain(fields: Fields) -> Command:
    from cpmodel.core.specs import parse_pattern, parse_size

    puzzle = fields.choice("puzzle", "PUZZLE", ("rect", "banana", "wordscapes"), "rect")
    if puzzle == "rect":
        size = fields.text("size", "size", "3x3", limit=40)
        m, n = parse_size(size, MAX_RECT_SIDE)
        argv = ["explain", "rect", "--json",
                f"--encoding={fields.choice('encoding', '--encoding', ('table', 'onehot', 'automaton'), 'table')}",
                f"--top={fields.number('top', '--top', 1, MAX_TOP, 300)}"]
        pattern = fields.text("pattern", "--pattern", limit=200)
        if pattern:
            parse_pattern(pattern, m, n)
            argv.append(f"--pattern={pattern}")
        return Command(argv + ["--", size], fields.time_limit())
    if puzzle == "banana":
        from cpmodel.core.specs import parse_hand

        hand = fields.text("hand", "HAND", "aeinrstlp", limit=60)
        if len(parse_hand(hand)) > MAX_EXPLAIN_TILES:
            raise InputError(f"explain banana: at most {MAX_EXPLAIN_TILES} tiles on this server, got {len(parse_hand(hand))}")
        argv = ["explain", "banana", "--json",
                f"--encoding={fields.choice('encoding', '--encoding', ('automaton', 'table'), 'automaton')}"]
        return Command(argv + ["--", hand], fields.time_limit())
    command = wordscapes(fields)
    board_and_letters = command.argv[command.argv.index("--"):]
    return Command(["explain", "wordscapes", "--json", f"--top={fields.number('top', '--top', 1, MAX_TOP, 3000)}",
                    *board_and_letters], command.time_limit, command.files)
