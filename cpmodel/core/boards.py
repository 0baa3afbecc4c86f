"""Board notations: grid-game tiles and Wordscapes crossword boards.

Grid games (Boggle, WordHero, Scramble): tiles row by row, ``/`` between
rows (without ``/`` the board is 4×4). ``[qu]`` or ``Qu`` is one tile that
spells "qu" (any ``[..]`` group is one tile). ``+2``/``+3`` right after a
tile multiply its letter value, ``*2``/``*3`` multiply the word.

Wordscapes boards: a text grid where ``.`` is an open cell, ``#`` or a space
is blocked and a letter is pre-filled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cpmodel.core.checks import ascii_lower
from cpmodel.core.errors import InputError

_MULTIPLIER = re.compile(r"([+*])(\d+)")


@dataclass(frozen=True)
class Tile:
    text: str  # "a", or "qu" for the Qu tile
    letter_mult: int = 1
    word_mult: int = 1


@dataclass(frozen=True)
class GridBoard:
    rows: int
    cols: int
    tiles: tuple[Tile, ...]  # row-major

    def tile(self, r: int, c: int) -> Tile:
        return self.tiles[r * self.cols + c]

    def notation(self) -> str:
        def one(t: Tile) -> str:
            text = t.text if len(t.text) == 1 else f"[{t.text}]"
            return text + (f"+{t.letter_mult}" if t.letter_mult > 1 else "") + (f"*{t.word_mult}" if t.word_mult > 1 else "")

        return "/".join("".join(one(self.tile(r, c)) for c in range(self.cols)) for r in range(self.rows))


def parse_grid(text: str) -> GridBoard:
    """Parse the row-by-row tile notation; one-line InputError on any problem."""
    source = text.strip()
    if not source:
        raise InputError("the board is empty")
    rows = [_parse_row(part, source) for part in source.split("/")]
    if len(rows) == 1:
        tiles = rows[0]
        if len(tiles) != 16:
            raise InputError(f"a board without '/' is 4x4 and needs 16 tiles, got {len(tiles)} in {source!r}")
        rows = [tiles[i:i + 4] for i in range(0, 16, 4)]
    widths = {len(r) for r in rows}
    if len(widths) != 1 or 0 in widths:
        raise InputError(f"board rows must all have the same number of tiles, got {[len(r) for r in rows]} in {source!r}")
    return GridBoard(len(rows), widths.pop(), tuple(t for r in rows for t in r))


def _parse_row(row: str, source: str) -> list[Tile]:
    tiles: list[Tile] = []
    i = 0
    while i < len(row):
        ch = row[i]
        if ch == "[":
            close = row.find("]", i)
            if close < 0:
                raise InputError(f"unbalanced '[' in board {source!r}")
            text = ascii_lower(row[i + 1:close])
            if not text.isalpha() or not text.isascii():
                raise InputError(f"'[{text}]' in board {source!r} must hold letters only")
            tiles.append(Tile(text))
            i = close + 1
        elif ch == "]":
            raise InputError(f"unbalanced ']' in board {source!r}")
        elif ch in "+*":
            match = _MULTIPLIER.match(row, i)
            if not tiles or not match or match.group(2) not in ("2", "3"):
                raise InputError(f"unknown multiplier at {row[i:i + 3]!r} in board {source!r} (use +2 +3 *2 *3 after a tile)")
            kind, value = match.group(1), int(match.group(2))
            last = tiles[-1]
            if (last.letter_mult if kind == "+" else last.word_mult) != 1:  # a*2*3 is not a*3
                raise InputError(f"a tile takes one {kind} multiplier, got a second at {row[i:i + 2]!r} in board {source!r}")
            tiles[-1] = Tile(last.text, value if kind == "+" else last.letter_mult, value if kind == "*" else last.word_mult)
            i = match.end()
        elif ch == "Q" and row[i + 1:i + 2] == "u":
            tiles.append(Tile("qu"))
            i += 2
        elif ch.isascii() and ch.isalpha():
            tiles.append(Tile(ch.lower()))
            i += 1
        else:
            raise InputError(f"unexpected character {ch!r} in board {source!r}")
    return tiles


# -- Wordscapes boards ----------------------------------------------------------


@dataclass(frozen=True)
class CrosswordBoard:
    """Open cells (with pre-filled letters) of a Wordscapes board."""

    rows: int
    cols: int
    cells: dict  # (r, c) → "" for open, or the pre-filled letter

    def slots(self) -> list[tuple[tuple[int, int], ...]]:
        """Every maximal horizontal or vertical run of ≥ 2 open cells."""
        return [run for _, run in runs_of(self.cells)]


def parse_crossword(text: str, source: str = "board") -> CrosswordBoard:
    lines = [line.rstrip("\r\n") for line in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    if not any(line.strip() for line in lines):
        raise InputError(f"{source} is empty")
    cells = {}
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch == ".":
                cells[(r, c)] = ""
            elif ch.isascii() and ch.isalpha():
                cells[(r, c)] = ch.lower()
            elif ch not in "# ":
                raise InputError(f"{source}: unexpected character {ch!r} at row {r + 1}, column {c + 1} (use . # or letters)")
    if not cells:
        raise InputError(f"{source} has no open cells")
    return CrosswordBoard(len(lines), max(len(line) for line in lines), cells)


# -- Bananagrams layouts ----------------------------------------------------------


def parse_layout(text: str, source: str = "layout") -> dict:
    """A layout as rows of letters, '.' or space for an empty cell → {(r, c): letter}."""
    cells = {}
    for r, line in enumerate(text.splitlines()):
        for c, ch in enumerate(line.rstrip("\r\n")):
            if ch.isascii() and ch.isalpha():
                cells[(r, c)] = ch.lower()
            elif ch not in ". ":
                raise InputError(f"{source}: unexpected character {ch!r} at row {r + 1}, column {c + 1} (letters, '.' or space)")
    if not cells:
        raise InputError(f"{source} holds no letters")
    return cells


def layout_rows(cells: dict) -> list[str]:
    """The bounding box of the cells as equal-length strings, '.' for empty."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    top, left = min(rows), min(cols)
    return ["".join(cells.get((r, c), ".") for c in range(left, max(cols) + 1)) for r in range(top, max(rows) + 1)]


def runs_of(cells):
    """('across'|'down', cells of the run) for every maximal run of ≥ 2 cells."""
    for direction, (dr, dc) in (("across", (0, 1)), ("down", (1, 0))):
        for (r, c) in sorted(cells):
            if (r - dr, c - dc) in cells:
                continue  # not the start of a run
            run = []
            while (r, c) in cells:
                run.append((r, c))
                r, c = r + dr, c + dc
            if len(run) >= 2:
                yield direction, tuple(run)


def maximal_runs(cells: dict):
    """(word, start, 'across'|'down') for every maximal run of ≥ 2 letters."""
    for direction, run in runs_of(cells):
        yield "".join(cells[cell] for cell in run), run[0], direction
