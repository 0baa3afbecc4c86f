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
(over a gigabyte). benchmarks/grid_prove.py measures both splits. On 3x4
the corners (3 neighbours) take two buckets and the other cells three, as in
danvk's 3x4 run: see :func:`split_for`. The split is per cell, so a class
code is a mixed-radix number.

Each class is *broken* (heuristics.grid_bound): its orderly tree gives an
upper bound; cells are forced in order, depth first, and a subclass is
dropped as soon as its bound is at most the best score known. A class is
finished when nothing in it can beat that score; when every class is
finished, the best board known is optimal. The first cells of a subclass
whose bound is far above the score to beat are forced on its word-paths,
with a new tree each (a tighter bound, at a price); the rest in the tree,
which costs nothing new: danvk's hybrid of orderly_force_cell and
orderly_bound.

:func:`break_classes` is one shard's work: a list of class codes, a score to
beat, a stop event and a deadline; it returns what it proved. The run side
(cpmodel.run.grid_prove) shares classes among workers and merges.
"""

from __future__ import annotations

import functools
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
from heuristics.stop_flag import FlagWatch

BUCKETS_SMALL = ("aeiou", "bdfgjqvwxz", "chklmnprsty")  # 3^9 classes on 3x3
BUCKETS_DANVK = ("bdfgjqvwxz", "aeiou", "lnrsy", "chkmpt")  # danvk's 3x3 split: 4^9 classes (the benchmark's comparison)
BUCKETS_LARGE = ("aeijou", "bcdfgmpqvwxz", "hklnrsty")  # danvk's 3x4 split of the cells with 5 or 8 neighbours
BUCKETS_CORNER = ("aeiosuy", "bcdfghjklmnpqrtvwxz")  # and of its corners (3 neighbours): 3^8 * 2^4 classes
MAX_CELLS = 12  # 3x4; danvk's 4x4 proof took about 23,000 CPU-hours
FORCE_ABOVE = 2.5  # a subclass bound above this many times the score to beat: force its next cell by new tree (2 until
# break_class bounded a level's letters at once; 2.5 then cost 0.457 CPU-s a class on 256 classes against 0.539)
FORCE_DEPTH = 4  # for at most this many cells (3x4, shards 0 and 128: 2 and 4 cost 0.72, 0.61 CPU-s a class; 2 and 3, 0.76, 0.64)

Split = tuple[tuple[str, ...], ...]  # each cell's buckets, cell by cell


def split_for(rows: int, cols: int) -> Split:
    """The top-level split of an R×C board.

    Up to 9 cells, three buckets everywhere. On 3x4, danvk's split: a corner
    has only 3 neighbours, few word-paths run through it, and two buckets
    there cost less than three: on a sample of ENABLE2K classes, 27,135
    canonical classes at about 2.2 CPU-s each, against 134,865 at 1.1 s."""
    n = rows * cols
    if n <= 9:
        return (BUCKETS_SMALL,) * n
    _, deg = adjacency(rows, cols)
    return tuple(BUCKETS_CORNER if deg[c] <= 3 else BUCKETS_LARGE for c in range(n))


def uniform(buckets: tuple[str, ...], n: int) -> Split:
    """The same buckets in every cell."""
    return (buckets,) * n


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


@functools.lru_cache(maxsize=8)
def _weights(split: Split) -> np.ndarray:
    """The place value of each cell's digit in a class code (mixed radix, cell 0 most significant)."""
    radix = [len(b) for b in split]
    return np.array([int(np.prod(radix[k + 1:], dtype=np.int64)) for k in range(len(split))], dtype=np.int64)


def digits_of(code: int, split: Split) -> list[int]:
    """A class code as each cell's bucket number."""
    return [(code // int(w)) % len(b) for w, b in zip(_weights(split), split, strict=True)]


def canonical_classes(rows: int, cols: int, split: Split) -> list[int]:
    """The canonical top-level classes, as codes: digit k (radix: cell k's bucket count, cell 0 most
    significant) is cell k's bucket. A class is canonical when no mirror image has a smaller code.
    A symmetry maps each cell to one with the same buckets (a corner to a corner)."""
    n = rows * cols
    weights = _weights(split)
    codes = np.arange(int(weights[0]) * len(split[0]), dtype=np.int64)
    digits = np.stack([(codes // weights[k]) % len(split[k]) for k in range(n)], axis=1)
    keep = np.ones(len(codes), dtype=bool)
    for perm in symmetries(rows, cols):
        assert all(split[perm[k]] == split[k] for k in range(n)), "a symmetry must keep each cell's buckets"
        image = np.empty_like(digits)
        image[:, list(perm)] = digits  # the bucket of cell k moves to cell perm[k]
        keep &= image @ weights >= codes
    return codes[keep].tolist()


def class_masks(code: int, split: Split) -> np.ndarray:
    """A class code as letter masks, cell by cell."""
    return np.array([mask_of(b[d]) for b, d in zip(split, digits_of(code, split), strict=True)], dtype=np.int64)


def board_text(letters) -> str:
    """Letter indices as board notation ('q' is the Qu tile)."""
    return "".join("[qu]" if ALPHABET[k] == "q" else ALPHABET[k] for k in letters)


def _atoms(split: Split) -> list[str]:
    """The pieces all the buckets of ``split`` cut the alphabet into: letters in the same bucket of every cell."""
    kinds = list(dict.fromkeys(split))
    pieces: dict = {}
    for ch in ALPHABET:
        pieces.setdefault(tuple(next(k for k, b in enumerate(buckets) if ch in b) for buckets in kinds), []).append(ch)
    return ["".join(p) for p in pieces.values()]


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


@dataclass
class _Tally:
    """What breaking one class has found so far."""

    best: int  # the score to beat, raised by every better board found
    letters: np.ndarray | None = None  # that board
    nodes: int = 0
    boards: int = 0
    stopped: bool = False


class Breaker:
    """The kernels for one lexicon and board shape."""

    def __init__(self, words, table, rows: int, cols: int, split: Split | None = None):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.tables = Tables(words, table, self.n)
        self.tree = Tree(self.tables)
        self.adj, self.deg = adjacency(rows, cols)
        self.order = split_order(rows, cols)
        self.rank = np.empty(self.n, np.int32)
        self.rank[self.order] = np.arange(self.n, dtype=np.int32)
        self.split = split or split_for(rows, cols)
        self._atoms = _atoms(self.split)
        self._word_counts, self._word_points = self._atom_counts(words, table)
        self._count_bounds: dict = {}

    def _atom_counts(self, words, table):
        """Each word's tiles counted in every union of atoms (for :meth:`count_bound`), and its points."""
        atom_of = {ch: k for k, letters in enumerate(self._atoms) for ch in letters}
        counts, points = [], []
        worth_of = length_points(table)
        for word in words:
            tiles = fold_qu(word)
            if tiles is None or len(tiles) > self.n or len(word) < 3:
                continue
            worth = worth_of(len(word))
            if worth > 0:
                per_atom = [0] * len(self._atoms)
                for ch in tiles:
                    per_atom[atom_of[ch]] += 1
                counts.append(per_atom)
                points.append(worth)
        unions = np.arange(1 << len(self._atoms))
        member = (unions[None, :] >> np.arange(len(self._atoms))[:, None]) & 1  # atom k is in union u
        per_word = np.array(counts, dtype=np.int16).reshape(-1, len(self._atoms))
        return (per_word @ member).astype(np.int16), np.array(points, dtype=np.int64)

    def count_bound(self, code: int) -> int:
        """A cheap upper bound for a class never bounded: every word whose tiles the class's cells
        could hold, ignoring adjacency.

        The letters fall into *atoms* (the pieces every cell's buckets cut the
        alphabet into); a cell holds the atoms of its bucket. By Hall's theorem
        the tiles fit in distinct cells exactly when, for every union of
        atoms, the word has no more tiles there than there are cells holding
        some atom of it."""
        cells = tuple(self._cells_meeting(code))
        if cells not in self._count_bounds:
            fits = (self._word_counts <= np.array(cells)).all(axis=1)
            self._count_bounds[cells] = int(self._word_points[fits].sum())
        return self._count_bounds[cells]

    def _cells_meeting(self, code: int) -> list[int]:
        """For each union of atoms (a bit set), how many of the class's cells hold one of them."""
        held = [sum(1 << k for k, atom in enumerate(self._atoms) if atom[0] in bucket[d])
                for bucket, d in zip(self.split, digits_of(code, self.split), strict=True)]
        return [sum(1 for h in held if h & u) for u in range(1 << len(self._atoms))]

    def score(self, board: str) -> int:
        """Exact score of a board of tile letters ('q' for Qu), one per cell."""
        if len(board) != self.n or not (board.isascii() and board.isalpha() and board.islower()):
            raise ValueError(f"a {self.rows}x{self.cols} board needs {self.n} letters a-z, got {board!r:.40}")
        t = self.tables
        return int(board_score(letters_of(board), self.adj, self.deg, t.children, t.points, t.stamp, t.next_mark()))

    def break_masks(self, masks: np.ndarray, best: int, flag: np.ndarray):
        """(root bound, best, best letters or None, nodes, boards, stopped) for one class.

        While a subclass's bound is far above the score to beat (``FORCE_ABOVE``
        times it), its next cell is forced by assembling a new tree from its
        paths (:meth:`Tree.force`): the paths through the cell merge with those
        that miss it, a tighter bound than the old tree gives. Below that, or
        ``FORCE_DEPTH`` cells down, :func:`break_class` forces the rest in the
        tree it has, which costs no new nodes."""
        tree = self.tree
        tree.build(masks, self.rank, self.adj, self.deg)
        root = int(tree.bound[0])
        if root <= best:
            return root, best, None, 1, 0, False
        tally = _Tally(best)
        self._break_tree(masks.copy(), tree.paths, 0, tally, flag)
        return root, tally.best, tally.letters, tally.nodes + 1, tally.boards, tally.stopped

    def _break_tree(self, masks: np.ndarray, paths, depth: int, tally: _Tally, flag: np.ndarray) -> None:
        """Break the subclass ``masks`` (cells ``order[:depth]`` fixed) whose tree, of ``paths``, is in ``self.tree``."""
        tree, t = self.tree, self.tables
        if depth >= FORCE_DEPTH or tree.bound[0] <= FORCE_ABOVE * tally.best:
            letters = np.zeros(self.n, np.int32)
            found, nodes, boards, stopped = break_class(
                masks, self.order, tree.label, tree.end, tree.points, tree.bound, tally.best, self.adj,
                self.deg, t.children, t.points, t.stamp, t.next_mark(), letters, flag)
            t.walks += int(boards) + 1  # break_class used one mark per board scored
            tally.nodes += int(nodes)
            tally.boards += int(boards)
            if found > tally.best:
                tally.best, tally.letters = int(found), letters
            tally.stopped = bool(stopped)
            return
        cell = self.order[depth]
        whole = int(masks[cell])
        for letter in range(26):
            if not (whole >> letter) & 1:
                continue
            if flag[0]:
                tally.stopped = True
                break
            sub = tree.force(paths, depth * 26 + letter + 1, depth)
            tree.assemble(sub, self.rank)
            tally.nodes += 1
            if tree.bound[0] > tally.best:
                masks[cell] = 1 << letter
                self._break_tree(masks, sub, depth + 1, tally, flag)
                if tally.stopped:
                    break
        masks[cell] = whole

    def break_classes(self, codes, best: int, stop=None, deadline: float | None = None) -> Breaking:
        """Break every class of ``codes`` against the score ``best`` until done, ``stop`` is set or the deadline."""
        started = time.monotonic()
        out = Breaking(best)
        flag = np.zeros(1, np.int8)
        with FlagWatch(flag, lambda: _stop_reason(stop, deadline)) as watcher:
            for i, code in enumerate(codes):
                if flag[0]:
                    out.stopped_by = watcher.why
                    out.upper = max(self.count_bound(c) for c in codes[i:])  # classes never bounded
                    break
                root, found, letters, nodes, boards, stopped = self.break_masks(
                    class_masks(code, self.split), out.best, flag)
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
        out.seconds = time.monotonic() - started
        return out


def _stop_reason(stop, deadline: float | None) -> str | None:
    """Why a breaking run must stop now: "interrupt", "time-limit" or None."""
    if stop is not None and stop.is_set():
        return "interrupt"
    if deadline is not None and time.monotonic() >= deadline:
        return "time-limit"
    return None
