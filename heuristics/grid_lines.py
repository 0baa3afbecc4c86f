"""Board files read in bulk: numpy over a block of lines, ``parse_grid`` for the rest.

``grid --score-file`` reads millions of boards, one per line. Parsing each
line with :func:`cpmodel.core.boards.parse_grid` cost 35 µs a board, more
than scoring it. Here a block of lines (about 1 MiB) is parsed at once:

* The bytes are classified with array operations: letters, ``/``, the ``Qu``
  pair (one tile), a lone ``q`` (the tile that spells q alone).
* Per line, prefix sums count the bytes that are none of those, the tiles and
  the slashes; a line is a *plain* board when it holds only letters and
  slashes, and its rows have equal widths (no ``/``: 16 tiles, 4×4), at most
  63 tiles. Its tile codes (a–z as 0–25, ``Qu`` as 16, a lone q as
  :data:`LONE_Q`) are gathered into one matrix per board shape.
* Every other line (blank, spaced, with multipliers or ``[..]`` tiles, not
  ASCII, or simply wrong) goes through ``parse_grid``, the reference, one by
  one: the same board or the same one-line error, now with its line number.

So the checks are the reference's own, and plain lines get exactly the tiles
it would give them (``tests/test_grid_lines.py`` compares both on random
lines). Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (Python's universal
newlines, as the text file read before); a file's byte-order mark is dropped.
A line longer than ``limit`` characters is refused, and so is a stream that
goes on without a newline: memory stays bounded by the block, whatever the
file's length.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from cpmodel.core.boards import GridBoard, parse_grid
from cpmodel.core.errors import InputError

LONE_Q = 26  # the code of a lone q (tile "q", outside the 26-tile alphabet where q is Qu)
MAX_CELLS = 63  # the batch scorer keeps the used cells in one 64-bit word
BOM = b"\xef\xbb\xbf"


@dataclass
class BoardBlock:
    """The boards of a block of lines, in order.

    Board ``b`` is plain when ``shape_of[b] >= 0``: its codes are row
    ``row_of[b]`` of ``codes[shape_of[b]]``, a matrix of boards of shape
    ``shapes[shape_of[b]]`` = (rows, cols, has a lone q). Otherwise it was
    parsed by ``parse_grid`` and is ``others[b]``."""

    shape_of: np.ndarray  # int64 [boards]
    row_of: np.ndarray  # int64 [boards]
    shapes: list[tuple[int, int, bool]] = field(default_factory=list)
    codes: list[np.ndarray] = field(default_factory=list)  # int8 [boards of the shape, rows * cols]
    others: dict[int, GridBoard] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.shape_of)

    @classmethod
    def of(cls, boards: list[GridBoard]) -> BoardBlock:
        """A block of already parsed boards (each goes the general way)."""
        count = len(boards)
        return cls(np.full(count, -1, np.int64), np.zeros(count, np.int64), others=dict(enumerate(boards)))

    def totals(self, start: int, stop: int, plain: Callable, other: Callable) -> np.ndarray:
        """Totals of boards ``start:stop``: ``plain(rows, cols, lone_q, codes)`` scores a
        matrix of plain boards, ``other(boards)`` a list of parsed ones."""
        out = np.zeros(stop - start, np.int64)
        shape_of, row_of = self.shape_of[start:stop], self.row_of[start:stop]
        for s, (rows, cols, lone_q) in enumerate(self.shapes):
            mine = np.flatnonzero(shape_of == s)
            if len(mine):
                out[mine] = plain(rows, cols, lone_q, self.codes[s][row_of[mine]])
        rest = np.flatnonzero(shape_of < 0)
        if len(rest):
            out[rest] = other([self.others[start + int(k)] for k in rest])
        return out


def parse_block(data: bytes, first_line: int = 1, what: str = "board file", limit: int = 64 * 1024,
                last_ends: bool = True) -> tuple[BoardBlock, InputError | None]:
    """The boards of ``data`` (whole lines, each ending with ``\\n``; no ``\\r``), and the
    error of its first bad line if any (the block then holds the boards before it).
    ``last_ends`` is False when the last line had no newline in the file."""
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 10)
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    lower = buf | 0x20
    letter = (lower >= 97) & (lower <= 122)
    qu = np.zeros(len(buf), bool)  # the Q of a "Qu" pair
    qu[:-1] = (buf[:-1] == 81) & (buf[1:] == 117)
    tail = np.zeros(len(buf), bool)  # the u of a "Qu" pair
    tail[1:] = qu[:-1]
    lone_q = (lower == 113) & ~qu
    slash = buf == 47
    tile = letter & ~tail

    def per_line(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        prefix = np.zeros(len(flags) + 1, np.int32)
        np.cumsum(flags, out=prefix[1:])
        return prefix[ends] - prefix[starts], prefix

    strange, _ = per_line(~(letter | slash))  # the newline itself lies outside [start, end)
    tiles, tile_prefix = per_line(tile)
    slashes, slash_prefix = per_line(slash)
    lone, _ = per_line(lone_q)
    rows = np.where(slashes == 0, 4, slashes + 1)
    cols = tiles // rows
    plain = (strange == 0) & (cols > 0) & (rows * cols == tiles) & (tiles <= MAX_CELLS) & ((slashes > 0) | (tiles == 16))
    at = np.flatnonzero(slash)
    if len(at):  # each row as wide as the first: the k-th slash of a line follows k * cols tiles
        line = np.searchsorted(ends, at)
        before = tile_prefix[at] - tile_prefix[starts[line]]
        ordinal = slash_prefix[at] - slash_prefix[starts[line]]
        plain[line[before != (ordinal + 1) * cols[line]]] = False
    lengths = ends - starts
    # the rest: every line that is not plain and not empty, through the reference, in order
    others: dict[int, GridBoard] = {}
    error = None
    slow = np.flatnonzero(~plain & (lengths > 0))
    stop = len(ends)
    for k in slow.tolist():
        number = first_line + k
        text = _text(data[starts[k]:ends[k]])
        if text is None or len(text) + (last_ends or k < len(ends) - 1) > limit:
            error = InputError(f"{what} line {number} is not UTF-8 text" if text is None else
                               f"{what} line {number} is longer than {limit:,} characters; refusing to read it")
        elif text.strip():
            try:
                others[k] = parse_grid(text)
            except InputError as exc:
                error = InputError(f"{what} line {number}: {exc}")
        if error is not None:
            stop = k
            break
    keep = plain[:stop].copy()
    keep[list(others)] = True
    board_lines = np.flatnonzero(keep)
    shape_of = np.full(len(board_lines), -1, np.int64)
    row_of = np.zeros(len(board_lines), np.int64)
    position = np.searchsorted(board_lines, list(others)).tolist()  # each parsed board's place among the boards
    block = BoardBlock(shape_of, row_of, others=dict(zip(position, others.values(), strict=True)))
    is_plain = plain[board_lines]
    if is_plain.any():
        code = (lower - 97).astype(np.int8)
        code[qu] = 16  # the Qu tile: "q" in the 26-tile alphabet
        code[lone_q] = LONE_Q
        flat = code[tile]
        lines = board_lines[is_plain]
        keys = (rows[lines] * 64 + cols[lines]) * 2 + (lone[lines] > 0)  # the shape, one number
        if (keys == keys[0]).all():  # the usual file: one shape
            found, which = keys[:1], np.zeros(len(keys), np.int64)
        else:
            found, which = np.unique(keys, return_inverse=True)
        where = np.flatnonzero(is_plain)
        for s, key in enumerate(found.tolist()):
            mine = np.flatnonzero(which == s)
            shape = (key // 128, key // 2 % 64, bool(key % 2))
            block.shapes.append(shape)
            block.codes.append(flat[tile_prefix[starts[lines[mine]]][:, None] + np.arange(shape[0] * shape[1])])
            shape_of[where[mine]] = s
            row_of[where[mine]] = np.arange(len(mine))
    return block, error


def _text(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_blocks(chunks: Iterable[bytes], what: str = "board file", limit: int = 64 * 1024,
                drop_bom: bool = True) -> Iterator[tuple[BoardBlock, InputError | None]]:
    """Parsed blocks of the stream of bytes ``chunks``, each with the error that ends
    the stream, if any: the caller scores the block's boards, then raises it."""
    pending = b""
    number = 1  # the line number of pending's first line
    started = False
    for piece in itertools.chain(chunks, [None]):  # None: the end
        if piece is not None and not piece:
            continue
        chunk = piece or b""
        data = pending + chunk
        if not started:
            if chunk and len(data) < len(BOM) and BOM.startswith(data):
                pending = data
                continue  # a byte-order mark may still be coming
            started = True
            if drop_bom and data.startswith(BOM):
                data = data[len(BOM):]
        if chunk and data.endswith(b"\r"):  # maybe the first half of \r\n: wait for the next byte
            data, held = data[:-1], b"\r"
        else:
            held = b""
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        cut = data.rfind(b"\n") + 1
        last_ends = True
        if not chunk and cut < len(data):  # the end: a last line without a newline
            data, cut, last_ends = data + b"\n", len(data) + 1, False
        whole, pending = data[:cut], data[cut:] + held
        if whole:
            block, error = parse_block(whole, number, what, limit, last_ends)
            yield block, error
            if error is not None:
                return
            number += whole.count(b"\n")
        if not chunk:
            return
        if len(pending) > 4 * (limit + 1):  # no newline in sight: longer than any line allowed
            yield BoardBlock.of([]), InputError(
                f"{what} line {number} is longer than {limit:,} characters; refusing to read it")
            return


def batches(blocks: Iterator[tuple[BoardBlock, InputError | None]],
            size: int) -> Iterator[list[tuple[BoardBlock, int, int]]]:
    """Batches of ``size`` boards (fewer at the end), each a list of (block, start, stop)
    pieces. At a bad line, the boards before it come as a last batch, then its error."""
    batch: list[tuple[BoardBlock, int, int]] = []
    count = 0
    for block, error in blocks:
        start = 0
        while start < len(block):
            stop = min(len(block), start + size - count)
            batch.append((block, start, stop))
            count += stop - start
            start = stop
            if count == size:
                yield batch
                batch, count = [], 0
        if error is not None:
            if batch:
                yield batch
            raise error
    if batch:
        yield batch
