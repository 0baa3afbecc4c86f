"""Branch and bound over board classes: the exact side of the best-board search.

The space of R×C boards is cut into *top-level classes*: every cell takes
one *bucket* of letters, so a 3×3 board has 3^9 classes. A board and its
mirror images score the same, so only the *canonical* class of each symmetry
orbit is searched (the smallest code among its images): about 8 times fewer
on a square, 4 on a rectangle.

Why 3 buckets and not danvk's 4 ('bdfgjqvwxz aeiou lnrsy chkmpt') on 3×3:
building a class's tree is nearly all the cost, and a word-path that misses
a cell is built again in every class that differs only in that cell. Fewer,
bigger classes build each such path fewer times, and forcing cells inside
one big tree is cheap: on a sample of ENABLE2K classes, 3 buckets cost about
a third of the CPU of 4, and 2 buckets need trees of ~10 million nodes
(over a gigabyte). benchmarks/grid_prove.py measures both splits.

Each class is *broken* (heuristics.grid_bound): its orderly tree gives an
upper bound; cells are forced in order, depth first, and a subclass is
dropped as soon as its bound is at most the best score known. A class is
finished when nothing in it can beat that score; when every class is
finished, the best board known is optimal.

:func:`break_classes` is one shard's work: a list of class codes, a score to
beat, a stop event and a deadline; it returns what it proved. The run side
(cpmodel.run.grid_prove) shares classes among workers and merges.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from heuristics.grid_bound import (
    ALPHABET,
    Tables,
    Tree,
    adjacency,
    board_score,
    break_class,
    fold_qu,
    length_points,
    letters_of,
    mask_of,
    split_order,
)

BUCKETS_SMALL = ("aeiou", "bdfgjqvwxz", "chklmnprsty")  # 3^9 classes on 3x3
BUCKETS_DANVK = ("bdfgjqvwxz", "aeiou", "lnrsy", "chkmpt")  # danvk's 3x3 split: 4^9 classes (the benchmark's comparison)
BUCKETS_LARGE = ("aeijou", "bcdfgmpqvwxz", "hklnrsty")  # danvk's 3x4 split: 3^12 classes
MAX_CELLS = 12  # 3x4; danvk's 4x4 proof took about 23,000 CPU-hours


def buckets_for(cells: int) -> tuple[str, ...]:
    return BUCKETS_SMALL if cells <= 9 else BUCKETS_LARGE


def symmetries(rows: int, cols: int) -> list[tuple[int, ...]]:
    """Each symmetry of the board as a cell permutation (image cell of each cell): 8 on a square, 4 otherwise."""
    def cell(r, c):
        return r * cols + c

    maps = [lambda r, c: (r, c), lambda r, c: (rows - 1 - r, c), lambda r, c: (r, cols - 1 - c),
            lambda r, c: (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [lambda r, c: (c, r), lambda r, c: (cols - 1 - c, r), lambda r, c: (c, rows - 1 - r),
                 lambda r, c: (cols - 1 - c, rows - 1 - r)]
    return [tuple(cell(*f(r, c)) for r in range(rows) for c in range(cols)) for f in maps]


def canonical_classes(rows: int, cols: int, buckets: int) -> list[int]:
    """The canonical top-level classes, as codes: digit k (base ``buckets``, cell 0 most
    significant) is cell k's bucket. A class is canonical when no mirror image has a smaller code."""
    n = rows * cols
    codes = np.arange(buckets ** n, dtype=np.int64)
    digits = np.stack([(codes // buckets ** (n - 1 - k)) % buckets for k in range(n)], axis=1)
    weights = buckets ** np.arange(n - 1, -1, -1, dtype=np.int64)
    keep = np.ones(len(codes), dtype=bool)
    for perm in symmetries(rows, cols):
        image = np.empty_like(digits)
        image[:, list(perm)] = digits  # the bucket of cell k moves to cell perm[k]
        keep &= image @ weights >= codes
    return codes[keep].tolist()


def class_masks(code: int, n: int, buckets: tuple[str, ...]) -> np.ndarray:
    """A class code as letter masks, cell by cell."""
    b = len(buckets)
    digits = [(code // b ** (n - 1 - k)) % b for k in range(n)]
    return np.array([mask_of(buckets[d]) for d in digits], dtype=np.int64)


def board_text(letters) -> str:
    """Letter indices as board notation ('q' is the Qu tile)."""
    return "".join("[qu]" if ALPHABET[k] == "q" else ALPHABET[k] for k in letters)


@dataclass
class Breaking:
    """What one list of classes proved."""

    best: int  # the score to beat, raised by every better board found
    board: str | None = None  # the best board found here (notation), if it beat the score given
    done: int = 0  # classes finished
    upper: int = 0  # no board of the classes *not* finished scores more than this (0: all finished);
    # the bound of the class it stopped in, and for classes never bounded their count_bound
    nodes: int = 0  # subclasses bounded
    boards: int = 0  # single boards scored
    stopped_by: str | None = None
    seconds: float = 0.0
    bounds: list = field(default_factory=list)  # each finished class's root bound (for the benchmark)


class Breaker:
    """The kernels for one lexicon and board shape."""

    def __init__(self, words, table, rows: int, cols: int, buckets: tuple[str, ...] | None = None):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.tables = Tables(words, table, self.n)
        self.tree = Tree(self.tables)
        self.adj, self.deg = adjacency(rows, cols)
        self.order = split_order(rows, cols)
        self.rank = np.empty(self.n, np.int32)
        self.rank[self.order] = np.arange(self.n, dtype=np.int32)
        self.buckets = buckets or buckets_for(self.n)
        self._word_counts, self._word_points = self._bucket_counts(words, table)
        self._count_bounds: dict = {}

    def _bucket_counts(self, words, table):
        """Each word's tiles counted by bucket, and its points (for :meth:`count_bound`)."""
        bucket_of = {ch: b for b, letters in enumerate(self.buckets) for ch in letters}
        counts, points = [], []
        worth_of = length_points(table)
        for word in words:
            tiles = fold_qu(word)
            if tiles is None or len(tiles) > self.n or len(word) < 3:
                continue
            worth = worth_of(len(word))
            if worth > 0:
                row = [0] * len(self.buckets)
                for ch in tiles:
                    row[bucket_of[ch]] += 1
                counts.append(row)
                points.append(worth)
        return np.array(counts, dtype=np.int16).reshape(-1, len(self.buckets)), np.array(points, dtype=np.int64)

    def count_bound(self, code: int) -> int:
        """A cheap upper bound for a class never bounded: every word whose tiles the class's cells
        could hold, ignoring adjacency (a word needs as many cells of each bucket as it has tiles there)."""
        b = len(self.buckets)
        cells = tuple(np.bincount([(code // b ** (self.n - 1 - k)) % b for k in range(self.n)], minlength=b))
        if cells not in self._count_bounds:
            fits = (self._word_counts <= np.array(cells)).all(axis=1)
            self._count_bounds[cells] = int(self._word_points[fits].sum())
        return self._count_bounds[cells]

    def score(self, board: str) -> int:
        """Exact score of a board of tile letters ('q' for Qu), one per cell."""
        if len(board) != self.n or not (board.isascii() and board.isalpha() and board.islower()):
            raise ValueError(f"a {self.rows}x{self.cols} board needs {self.n} letters a-z, got {board!r:.40}")
        t = self.tables
        return int(board_score(letters_of(board), self.adj, self.deg, t.children, t.points, t.stamp, t.next_mark()))

    def break_masks(self, masks: np.ndarray, best: int, flag: np.ndarray):
        """(root bound, best, best letters or None, nodes, boards, stopped) for one class."""
        tree, t = self.tree, self.tables
        tree.build(masks, self.rank, self.adj, self.deg)
        root = int(tree.bound[0])
        if root <= best:
            return root, best, None, 1, 0, False
        letters = np.zeros(self.n, np.int32)
        found, nodes, boards, stopped = break_class(
            masks, self.order, tree.label, tree.first, tree.next, tree.points, tree.slot, tree.bound, best, self.adj,
            self.deg, t.children, t.points, t.stamp, t.next_mark(), letters, flag)
        t.walks += int(boards) + 1  # break_class used one mark per board scored
        return root, int(found), letters if found > best else None, int(nodes) + 1, int(boards), bool(stopped)

    def break_classes(self, codes, best: int, stop=None, deadline: float | None = None) -> Breaking:
        """Break every class of ``codes`` against the score ``best`` until done, ``stop`` is set or the deadline."""
        started = time.monotonic()
        out = Breaking(best)
        flag = np.zeros(1, np.int8)
        watcher = _Watcher(flag, stop, deadline)
        watcher.start()
        try:
            for i, code in enumerate(codes):
                if flag[0]:
                    out.stopped_by = watcher.why
                    out.upper = max(self.count_bound(c) for c in codes[i:])  # classes never bounded
                    break
                root, found, letters, nodes, boards, stopped = self.break_masks(
                    class_masks(code, self.n, self.buckets), out.best, flag)
                out.nodes += nodes
                out.boards += boards
                if letters is not None:
                    out.best, out.board = found, board_text(letters)
                if stopped:
                    out.stopped_by = watcher.why
                    out.upper = max([root, *(self.count_bound(c) for c in codes[i + 1:])])
                    break
                out.done += 1
                out.bounds.append(root)
        finally:
            watcher.finish()
        out.seconds = time.monotonic() - started
        return out


class _Watcher(threading.Thread):
    """Sets ``flag[0]`` when ``stop`` is set or the deadline passes: the kernel polls the flag."""

    def __init__(self, flag, stop, deadline):
        super().__init__(daemon=True)
        self.flag, self.stop, self.deadline = flag, stop, deadline
        self.why = None
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.05):
            if self.stop is not None and self.stop.is_set():
                self.why = "interrupt"
            elif self.deadline is not None and time.monotonic() >= self.deadline:
                self.why = "time-limit"
            else:
                continue
            self.flag[0] = 1
            return

    def finish(self) -> None:
        self.done.set()
        self.join()


PATIENCE = 200  # restarts; see climb


def climb(breaker: Breaker, seconds: float, seed: int, stop=None, patience: int | None = PATIENCE) -> tuple[int, str]:
    """A quick lower bound: steepest-ascent hill climbing over one-letter changes, restarted
    from random boards, for ``seconds``. Returns (score, board letters).

    It also ends once ``patience`` restarts are done and the last three quarters of
    them found nothing better: a small board's best comes within a few restarts of
    thousands, while a 3x3 on every word manages ~250 restarts in 3 s and can still
    improve at the 190th, so only small searches end early. None: always use ``seconds``."""
    rng = random.Random(seed)
    n = breaker.n
    alphabet = "etaoinsrhdlucmwfgypbvkjxqz"[:20]  # rare letters rarely help a best board
    best_score, best_board = -1, ""
    restarts = last_better = 0
    ends = time.monotonic() + seconds
    while time.monotonic() < ends and not (stop is not None and stop.is_set()):
        if patience is not None and restarts >= max(patience, 4 * last_better):
            break
        restarts += 1
        board = [rng.choice(alphabet) for _ in range(n)]
        score = breaker.score("".join(board))
        improved = True
        while improved and time.monotonic() < ends:
            improved = False
            for cell, letter in itertools.product(range(n), alphabet):
                if board[cell] == letter:
                    continue
                trial = board[:cell] + [letter] + board[cell + 1:]
                value = breaker.score("".join(trial))
                if value > score:
                    board, score, improved = trial, value, True
        if score > best_score:
            best_score, best_board, last_better = score, "".join(board), restarts
    return best_score, best_board
