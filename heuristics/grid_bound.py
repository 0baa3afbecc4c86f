"""Upper bounds on the best Boggle score over a *class* of boards (numba).

A board class gives every cell a set of letters (a 26-bit mask); a board is
in the class when each cell shows one of its cell's letters. The letter
``q`` stands for the Qu tile, as on real dice: the trie is built with "qu"
folded into "q", and words with a bare q cannot be spelled.

The max/sum bound (danvk, "Breaking 3x3 Boggle", 2009). A board's score is
at most the sum, over every path that spells a word, of that word's points
(a word found on two paths counts twice). Walk the trie and the class
together from every cell and take, at each cell of a path, the *best* letter
of its set:

    f(node, cell, used) = max over letters l of cell with child = node[l]:
                          points(child) + sum over unused neighbours n of f(child, n, used + cell)
    maxsum(class) = sum over cells c of f(root, c, {})

For a single board every set holds one letter and f is exactly that
path-sum, and a larger set can only raise each max, so ``maxsum`` bounds
every board of the class. It is loose where different paths pick different
letters for the same cell; splitting cells shrinks the sets until it bites.

The union bound: every word that *some* board of the class can spell, each
counted once. It is tight for classes of rare letters, where the max/sum
bound counts one word many times. The bound is the smaller of the two.

The exact score of one board (each word once) comes from the same walk
with one letter per cell, marking words already found.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros  # count leading zero bits: one instruction

from cpmodel.core.scoring import ScoreTable, points_for_length

ALPHABET = "abcdefghijklmnopqrstuvwxyz"  # index 16, "q", is the Qu tile
Q = ALPHABET.index("q")
ALL_LETTERS = (1 << 26) - 1


class Tables:
    """The lexicon as flat arrays for the kernels.

    ``children[node, letter]`` is the child trie node or -1; ``points[node]``
    the Boggle points of the word ending there (0: no word). Node 0 is the root."""

    def __init__(self, words, table: ScoreTable, max_tiles: int, min_len: int = 3):
        children = [[-1] * 26]
        points = [0]
        worth_of = length_points(table)
        for word in words:
            tiles = fold_qu(word)
            if tiles is None or len(tiles) > max_tiles or len(word) < min_len:
                continue
            worth = worth_of(len(word))
            if worth <= 0:
                continue
            node = 0
            for ch in tiles:
                k = ord(ch) - 97
                if children[node][k] < 0:
                    children[node][k] = len(children)
                    children.append([-1] * 26)
                    points.append(0)
                node = children[node][k]
            points[node] = max(points[node], worth)
        self.children, self.points = breadth_first(np.array(children, dtype=np.int32), np.array(points, dtype=np.int32))
        # the letters that continue a word from each node, as a 26-bit mask: a walk tests a
        # cell's whole letter set against it at once
        self.childmask = ((self.children >= 0).astype(np.int64) << np.arange(26, dtype=np.int64)).sum(axis=1)
        # a node's children are consecutive, in letter order (breadth_first numbers them so): its first
        first = np.where(self.children >= 0, self.children, np.iinfo(np.int32).max).min(axis=1)
        self.first_child = np.where(self.childmask > 0, first, 0).astype(np.int32)
        self.stamp = np.zeros(len(points), dtype=np.int32)  # scratch: the last walk that counted a word
        self.walks = 0

    def next_mark(self) -> int:
        self.walks += 1
        if self.walks >= 2**31 - 1:
            self.stamp[:] = 0
            self.walks = 1
        return self.walks


def breadth_first(children: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The trie renumbered level by level: the short prefixes every walk visits sit together
    in memory (about 1.3x faster walks than insertion order)."""
    levels = [np.zeros(1, dtype=np.int64)]
    frontier = levels[0]
    while frontier.size:
        kids = children[frontier].ravel()
        frontier = kids[kids >= 0].astype(np.int64)
        levels.append(frontier)
    order = np.concatenate(levels)
    index = np.empty(len(order), dtype=np.int32)
    index[order] = np.arange(len(order), dtype=np.int32)
    moved = children[order]
    return np.where(moved >= 0, index[np.maximum(moved, 0)], -1).astype(np.int32), points[order]


def length_points(table: ScoreTable):
    """``length → points`` of ``table``, remembered (a lexicon has a few dozen lengths and 170,000 words)."""
    return functools.lru_cache(maxsize=None)(functools.partial(points_for_length, table.length_points))


def fold_qu(word: str) -> str | None:
    """The word as tile letters ("qu" is one tile, written "q"); None when a tile cannot spell it."""
    if not word.isascii() or not word.isalpha() or not word.islower():
        return None
    if "q" in word.replace("qu", ""):
        return None
    return word.replace("qu", "q")


def adjacency(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(neighbours[cell, k], degree[cell]) of the 8-neighbour grid."""
    n = rows * cols
    adj = np.full((n, 8), -1, dtype=np.int32)
    deg = np.zeros(n, dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols:
                        adj[cell, deg[cell]] = (r + dr) * cols + c + dc
                        deg[cell] += 1
    return adj, deg


_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int32)


@njit(cache=True, nogil=True)
def _letter(low):
    """The index of the single set bit of ``low`` (< 2**32): a de Bruijn multiplication."""
    return _DEBRUIJN[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]


@njit(cache=True, nogil=True)
def class_bound(masks, adj, deg, children, childmask, points, stamp, mark):
    """(maxsum, union) of the class ``masks`` (see the module docstring).

    An explicit stack replaces the recursion of f: frame d holds its cell, the
    trie node above it, the cells used, the letters still to try, the child
    of the letter being tried, the next neighbour, the sum for this letter
    and the best letter's sum so far."""
    n = masks.shape[0]
    cell_ = np.empty(n, np.int32)
    node_ = np.empty(n, np.int32)
    used_ = np.empty(n, np.int64)
    left_ = np.empty(n, np.int64)
    child_ = np.empty(n, np.int32)
    next_ = np.empty(n, np.int32)
    acc_ = np.empty(n, np.int64)
    best_ = np.empty(n, np.int64)
    total = 0
    union = 0
    for start in range(n):
        d = 0
        cell_[0], node_[0], used_[0], left_[0], child_[0], best_[0] = start, 0, 0, masks[start], -1, 0
        while d >= 0:
            if child_[d] < 0:  # choose the next letter of this cell that continues a word
                child = -1
                left = left_[d] & childmask[node_[d]]
                if left:
                    low = left & -left
                    left ^= low
                    child = children[node_[d], _letter(low)]
                left_[d] = left
                if child < 0:  # every letter tried: this frame's value is its best letter's
                    value = best_[d]
                    d -= 1
                    if d < 0:
                        total += value
                    else:
                        acc_[d] += value
                    continue
                child_[d] = child
                acc_[d] = points[child]
                next_[d] = 0
                if points[child] > 0 and stamp[child] != mark:
                    stamp[child] = mark
                    union += points[child]
            cell = cell_[d]
            used = used_[d] | (np.int64(1) << cell)
            k = next_[d]
            while k < deg[cell] and (used >> adj[cell, k]) & 1:
                k += 1
            if k < deg[cell]:  # descend into the next unused neighbour
                next_[d] = k + 1
                nb = adj[cell, k]
                d += 1
                cell_[d], node_[d], used_[d], left_[d], child_[d], best_[d] = nb, child_[d - 1], used, masks[nb], -1, 0
            else:  # this letter is done
                if acc_[d] > best_[d]:
                    best_[d] = acc_[d]
                child_[d] = -1
    return total, union


@njit(cache=True, nogil=True)
def board_score(letters, adj, deg, children, points, stamp, mark):
    """Exact Boggle score of one board (letter indices), each word counted once."""
    n = letters.shape[0]
    cell_ = np.empty(n, np.int32)
    node_ = np.empty(n, np.int32)
    next_ = np.empty(n, np.int32)
    total = 0
    for start in range(n):
        node = children[0, letters[start]]
        if node < 0:
            continue
        d = 0
        cell_[0], node_[0], next_[0] = start, node, 0
        used = np.int64(1) << start
        if points[node] > 0 and stamp[node] != mark:
            stamp[node] = mark
            total += points[node]
        while d >= 0:
            cell = cell_[d]
            k = next_[d]
            moved = False
            while k < deg[cell]:
                nb = adj[cell, k]
                k += 1
                if (used >> nb) & 1:
                    continue
                child = children[node_[d], letters[nb]]
                if child < 0:
                    continue
                next_[d] = k
                d += 1
                cell_[d], node_[d], next_[d] = nb, child, 0
                used |= np.int64(1) << nb
                if points[child] > 0 and stamp[child] != mark:
                    stamp[child] = mark
                    total += points[child]
                moved = True
                break
            if not moved:
                used &= ~(np.int64(1) << cell)
                d -= 1
    return total


class Bounder:
    """The kernels bound to one lexicon and board shape."""

    def __init__(self, tables: Tables, rows: int, cols: int):
        self.tables, self.rows, self.cols = tables, rows, cols
        self.adj, self.deg = adjacency(rows, cols)

    def bound(self, masks: np.ndarray) -> int:
        t = self.tables
        maxsum, union = class_bound(masks, self.adj, self.deg, t.children, t.childmask, t.points, t.stamp, t.next_mark())
        return int(min(maxsum, union))

    def bounds(self, masks: np.ndarray) -> tuple[int, int]:
        """(maxsum, union), for tests and the benchmark."""
        t = self.tables
        maxsum, union = class_bound(masks, self.adj, self.deg, t.children, t.childmask, t.points, t.stamp, t.next_mark())
        return int(maxsum), int(union)

    def score(self, letters: np.ndarray) -> int:
        t = self.tables
        return int(board_score(letters, self.adj, self.deg, t.children, t.points, t.stamp, t.next_mark()))


def letters_of(board: str) -> np.ndarray:
    """A board as tile letters ('q' for Qu), row by row, as letter indices."""
    return np.array([ord(ch) - 97 for ch in board], dtype=np.int32)


def mask_of(letters: str) -> int:
    m = 0
    for ch in letters:
        m |= 1 << (ord(ch) - 97)
    return m


# -- Orderly trees (danvk, 2025): the class's words as a sum/choice tree -------------------
#
# Every word-path of the class (cells c1..cm showing letters l1..lm that spell
# a word) is sorted by a fixed cell *order* and inserted into a tree that
# alternates choice nodes (one cell: which letter?) and sum nodes (that letter
# chosen: points of the words ending here, plus every choice below):
#
#     bound(sum)    = points + sum of bound(choice children)
#     bound(choice) = max over letters of bound(sum child)
#
# Because every path lists its cells in the same order, the first cell of the
# order is chosen once, above all the paths through it: the bound is tighter
# than max/sum, and *forcing* that cell to a letter is cheap. The choice
# nodes of that cell are replaced by the chosen letter's sum node (its
# points, and its choice children join the frontier). The breaker below
# forces the cells in order, depth first, and drops a subclass as soon as
# its bound is at most the score to beat.
#
# The tree is built from the paths sorted, not by inserting them one by one:
# inserting looks up a child at every step, a cache miss in a tree of
# millions of nodes, while sorted paths that share a prefix are neighbours
# (a path's key, one 5-bit slot a cell in the order, sorts them so),
# so one sweep makes each node once, in preorder, and finishes its bound
# when the sweep leaves it. A word counts once at a leaf (equal paths are
# neighbours too).

SLOT_BITS = 5  # a path's key: 5 bits a cell, in rank order, the first cell highest (letter + 1, 0: not on it)
SLOTS = 12  # cells a key holds: 60 bits
WORD_BITS = 32  # a path's word: its points above these bits, its trie node below
KEY_SPARE_BITS = 64 - SLOT_BITS * SLOTS  # the high bits of a key no slot uses


@njit(cache=True, nogil=True)
def _slot(rank, letter):
    return np.int64(letter + 1) << (SLOT_BITS * (SLOTS - 1 - rank))


@njit(cache=True, nogil=True)
def _popcount(x):
    """The set bits of ``x`` (< 2**32), by halves: LLVM makes it one instruction."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(cache=True, nogil=True)
def _child(first_child, childmask, node, low):
    """The child of trie ``node`` by the letter whose bit is ``low``."""
    return first_child[node] + _popcount(childmask[node] & (low - 1))


@njit(cache=True, nogil=True)
def collect_paths(masks, rank, adj, deg, first_child, childmask, points, keys, word):
    """Every word-path of the class ``masks`` as a sort key and its word's trie node;
    returns how many (-1 when the arrays are too small).

    The walk is the trie walk of a board, with a cell's letter set in place of
    its letter. A path's key gives each cell a slot, in the order of the
    cells' ``rank``: the letter it shows there, or 0 off the path. Sorting
    the keys puts the paths that share their first steps side by side, as the
    tree needs (the paths that end, then those whose next cell comes last in
    the order, ... then those whose next cell comes first), and the key grows
    one slot a step, with no sorting of the path's cells. A *fixed* cell
    (one letter in its set) is left out of the key: there is nothing to
    choose there, and leaving it out merges the paths through it with the
    paths that miss it (a tighter bound than a one-letter choice node).

    A node's children are side by side in the trie (``breadth_first``), so a
    child is its node's first plus how many of its letters come before: two
    small arrays instead of a 26-wide table, which misses the cache."""
    n = masks.shape[0]
    path_cell = np.empty(n, np.int32)
    path_node = np.empty(n, np.int32)
    path_key = np.empty(n, np.int64)
    next_ = np.empty(n, np.int32)
    bits_ = np.empty(n, np.int64)
    fixed = np.empty(n, np.bool_)
    for c in range(n):
        fixed[c] = (masks[c] & (masks[c] - 1)) == 0
    count = 0
    for start in range(n):
        first = masks[start] & childmask[0]
        while first:
            low = first & -first
            first ^= low
            letter = _letter(low)
            path_cell[0] = start
            path_node[0] = _child(first_child, childmask, 0, low)
            path_key[0] = 0 if fixed[start] else _slot(rank[start], letter)
            next_[0] = 0
            bits_[0] = 0
            used = np.int64(1) << start
            d = 0
            while d >= 0:
                cell = path_cell[d]
                node = path_node[d]
                bits = bits_[d]
                j = next_[d]
                while bits == 0 and j < deg[cell]:  # the next free neighbour with a letter that continues
                    nb = adj[cell, j]
                    j += 1
                    if not (used >> nb) & 1:
                        bits = masks[nb] & childmask[node]
                if bits == 0:
                    used &= ~(np.int64(1) << cell)
                    d -= 1
                    continue
                low = bits & -bits
                bits_[d] = bits ^ low
                next_[d] = j
                nb = adj[cell, j - 1]
                letter = _letter(low)
                child = _child(first_child, childmask, node, low)
                key = path_key[d] if fixed[nb] else path_key[d] | _slot(rank[nb], letter)
                d += 1
                path_cell[d] = nb
                path_node[d] = child
                path_key[d] = key
                next_[d] = 0
                bits_[d] = 0
                used |= np.int64(1) << nb
                if points[child] > 0:  # a word-path
                    if count >= keys.shape[0]:
                        return -1
                    keys[count] = key
                    word[count] = (np.int64(points[child]) << WORD_BITS) | child
                    count += 1
    return count


@njit(cache=True, nogil=True)
def _close(level, open_, acc, n_end, n_points, bound, count):
    """Close the open node at ``level``: its subtree ends at ``count``, its bound is final and
    goes to its parent (a sum node adds its children's bounds, a choice node takes the largest)."""
    node = open_[level]
    value = n_points[node] + acc[level]
    n_end[node] = count
    bound[node] = value
    if level > 0:
        if level % 2 == 1:  # the parent is a sum node
            acc[level - 1] += value
        elif value > acc[level - 1]:
            acc[level - 1] = value


@njit(cache=True, nogil=True)
def assemble_tree(keys, word, order_cell, n_label, n_end, n_points, bound):
    """The orderly tree of the word-paths, sorted; returns the node count (-1 when the node
    arrays are too small).

    One sweep. Nodes are numbered in *preorder*: a node, then its children's
    subtrees one after another, so a node's first child is the next number
    and ``n_end[node]`` (the number after its subtree) is its next
    sibling. Sorted paths that share a prefix are neighbours, so a node is
    made when the first path through it comes, and it is finished, with its
    bound, when the first path that leaves it comes: the open nodes are the
    current path's, one a level (level 2i + 1: the choice node of step i,
    level 2i + 2: its sum node). A word adds its points to a leaf once:
    the paths that end at a leaf are the paths with its key, neighbours, so
    a word is looked for among them alone (a few), not in a table as big as
    the trie."""
    levels = 2 * SLOTS + 1
    open_ = np.zeros(levels, np.int64)  # the current path's node at each level
    acc = np.zeros(levels, np.int64)  # the bounds of its children closed so far: summed, or their max
    step_rank = np.zeros(SLOTS, np.int64)  # the rank of the cell of each step of the current path
    capacity = n_label.shape[0]
    n_label[0], n_points[0] = 0, 0  # the root
    count = 1
    steps = 0  # of the current path (the root alone: none)
    prev = np.int64(0)
    run = 0  # the first path with this key
    for p in range(keys.shape[0]):
        key = keys[p]
        if key != prev:
            run = p  # the first slot that differs: the path leaves the current one there
            split = (leading_zeros(key ^ prev) - KEY_SPARE_BITS) // SLOT_BITS
            shared = 0
            while shared < steps and step_rank[shared] < split:
                shared += 1
            same_cell = shared < steps and step_rank[shared] == split  # the choice node stays, its letter changes
            top = 2 * steps
            keep = 2 * shared + 1 if same_cell else 2 * shared
            while top > keep:
                _close(top, open_, acc, n_end, n_points, bound, count)
                top -= 1
            if count + 2 * SLOTS > capacity:
                return -1
            rest = key & ((np.int64(1) << (SLOT_BITS * (SLOTS - split))) - 1)  # the new steps' slots
            steps = shared
            while rest:
                rank = (leading_zeros(rest) - KEY_SPARE_BITS) // SLOT_BITS
                shift = SLOT_BITS * (SLOTS - 1 - rank)
                letter = (rest >> shift) - 1
                rest &= (np.int64(1) << shift) - 1
                if steps > shared or not same_cell:
                    n_label[count], n_points[count] = order_cell[rank], 0
                    open_[2 * steps + 1], acc[2 * steps + 1] = count, 0
                    count += 1
                n_label[count], n_points[count] = letter, 0
                open_[2 * steps + 2], acc[2 * steps + 2] = count, 0
                count += 1
                step_rank[steps] = rank
                steps += 1
            prev = key
        w = word[p]
        seen = False
        for q in range(run, p):
            if word[q] == w:
                seen = True
                break
        if not seen:
            n_points[open_[2 * steps]] += w >> WORD_BITS
    top = 2 * steps
    while top >= 0:
        _close(top, open_, acc, n_end, n_points, bound, count)
        top -= 1
    return count


@njit(cache=True, nogil=True)
def force_paths(keys, word, code, out_keys, out_word):
    """The sorted word-paths of the subclass where the first cell of the order still open
    shows one letter (``code``: that step, rank * 26 + letter + 1); returns how many,
    written to ``out_*``.

    Danvk's ``orderly_force_cell``, on paths: the paths through the cell with
    another letter go, the paths through it with this letter lose that step
    (the cell is fixed now), and the paths that miss the cell stay. Both
    kept runs are sorted already, so one merge sorts the result, and the
    tree assembled from it merges what went through the cell with what did
    not: a tighter bound than forcing the old tree, which keeps them apart."""
    shift = SLOT_BITS * (SLOTS - 1 - (code - 1) // 26)
    letter_slot = np.int64((code - 1) % 26 + 1) << shift
    stay_to = np.searchsorted(keys, np.int64(1) << shift)  # no slot above this cell's is set: these miss it
    lose_from = np.searchsorted(keys, letter_slot)
    lose_to = np.searchsorted(keys, letter_slot + (np.int64(1) << shift))
    a, b, out = 0, lose_from, 0
    while a < stay_to or b < lose_to:
        if b >= lose_to or (a < stay_to and keys[a] <= keys[b] - letter_slot):
            out_keys[out], out_word[out] = keys[a], word[a]
            a += 1
        else:
            out_keys[out], out_word[out] = keys[b] - letter_slot, word[b]
            b += 1
        out += 1
    return out


class Tree:
    """Reusable arrays for the orderly tree of a class (grown when a class needs more).

    The tree is built in three passes, as danvk's builder does: collect every
    word-path (a compiled walk), sort their keys (numpy), and assemble the
    tree from the sorted paths in one sweep."""

    def __init__(self, tables: Tables, capacity: int = 1 << 18):
        self.tables = tables
        self.paths: tuple[np.ndarray, np.ndarray] | None = None  # the last build's (keys, words), sorted
        self._forced: list[tuple[np.ndarray, np.ndarray]] = []  # force's output, one pair a depth
        self._allocate_nodes(capacity)
        self._allocate_paths(capacity)

    def _allocate_nodes(self, capacity: int) -> None:
        self.label = np.zeros(capacity, np.int8)  # a choice node's cell, a sum node's letter
        self.end = np.zeros(capacity, np.int32)  # the number after a node's subtree: its next sibling
        self.points = np.zeros(capacity, np.int64)
        self.bound = np.zeros(capacity, np.int64)

    def _allocate_paths(self, capacity: int) -> None:
        self.keys = np.zeros(capacity, np.int64)
        self.word = np.zeros(capacity, np.int64)  # a path's word: its points << WORD_BITS | its trie node

    def build(self, masks, rank, adj, deg) -> int:
        """Build the class's tree; returns its node count."""
        if masks.shape[0] > SLOTS:
            raise ValueError(f"orderly trees take at most {SLOTS} cells")
        t = self.tables
        while True:
            paths = collect_paths(masks, rank, adj, deg, t.first_child, t.childmask, t.points, self.keys, self.word)
            if paths >= 0:
                break
            self._allocate_paths(2 * len(self.keys))
        order = np.argsort(self.keys[:paths])
        self.paths = (self.keys[order], self.word[order])
        return self.assemble(self.paths, rank)

    def assemble(self, paths, rank) -> int:
        """Assemble the tree of sorted ``paths`` (from :meth:`build` or :meth:`force`); its node count."""
        keys, word = paths
        order_cell = np.argsort(rank).astype(np.int32)  # rank -> cell
        while True:
            count = assemble_tree(keys, word, order_cell, self.label, self.end, self.points, self.bound)
            if count >= 0:
                return count
            self._allocate_nodes(2 * len(self.label))

    def force(self, paths, code: int, depth: int):
        """The sorted paths of the subclass whose first open cell takes the step ``code``
        (:func:`force_paths`), in this depth's buffers (reused: a deeper force keeps them)."""
        keys, word = paths
        while len(self._forced) <= depth:
            self._forced.append((np.empty(0, np.int64), np.empty(0, np.int64)))
        if len(self._forced[depth][0]) < len(keys):
            size = max(len(keys), 2 * len(self._forced[depth][0]))
            self._forced[depth] = (np.empty(size, np.int64), np.empty(size, np.int64))
        out = self._forced[depth]
        kept = force_paths(keys, word, code, *out)
        return out[0][:kept], out[1][:kept]


@njit(cache=True, nogil=True)
def _letter_bounds(cell, heads, link, n_label, n_end, bound, tot):
    """``tot[letter]``: what forcing ``cell`` to each letter adds in place of its frontier's choice
    nodes (the bounds of their sum children with that letter), every letter in one walk."""
    tot[:] = 0
    choice = heads[cell]
    while choice >= 0:
        option = choice + 1
        while option < n_end[choice]:
            tot[n_label[option]] += bound[option]
            option = n_end[option]
        choice = link[choice]


@njit(cache=True, nogil=True)
def _above(letters, tot, low):
    """The letters of the mask ``letters`` whose ``tot`` is above ``low``, as a mask."""
    kept = 0
    rest = letters
    while rest:
        bit = rest & -rest
        rest ^= bit
        if tot[_letter(bit)] > low:
            kept |= bit
    return kept


@njit(cache=True, nogil=True)
def _force_cell(cell, letter, heads, sums, link, n_label, n_end, n_points, bound):
    """Force ``cell`` to ``letter`` on the frontier: each of its choice nodes gives way to the
    letter's sum node, whose children join their cells' lists; returns the points it adds."""
    added = 0
    choice = heads[cell]
    while choice >= 0:
        following = link[choice]
        node = -1
        option = choice + 1
        while option < n_end[choice]:  # letters in order
            if n_label[option] >= letter:
                if n_label[option] == letter:
                    node = option
                break
            option = n_end[option]
        if node >= 0:
            added += n_points[node]
            below = node + 1
            while below < n_end[node]:
                c = n_label[below]
                link[below] = heads[c]
                heads[c] = below
                sums[c] += bound[below]
                below = n_end[below]
        choice = following
    heads[cell] = -1
    sums[cell] = 0
    return added


@njit(cache=True, nogil=True)
def break_class(masks, order, n_label, n_end, n_points, bound, low, adj, deg, children, points,
                stamp, mark, best_letters, flag):
    """Force the cells in ``order``, depth first, dropping a subclass once its bound <= ``low``.

    Returns (best score, subclasses bounded, boards scored, stopped): the best
    score is ``low`` unless a board of the class beats it (then ``best_letters``
    holds it). ``flag[0]`` set by another thread stops the search (stopped 1).

    The frontier is one linked list of choice nodes per cell (``heads``,
    ``link``) with the sum of their bounds (``sums``). Forcing a cell only
    pushes nodes at the front of lists, so each level's heads and sums are a
    complete snapshot to restore when the next letter is tried.

    A level's letters are bounded all at once when it opens (one walk over its
    cell's choice nodes, :func:`_letter_bounds`): most subclasses are dropped
    there, and only the letters that survive restore a snapshot and force the
    cell. The last cell's survivors are boards, scored at once."""
    n = masks.shape[0]
    heads = np.full(n, -1, np.int32)
    sums = np.zeros(n, np.int64)
    link = np.empty(n_end[0], np.int32)  # a node's next in its cell's list, written when it is pushed
    choice = 1  # the root's children: its first is the next node, each child's next its end
    while choice < n_end[0]:
        c = n_label[choice]
        link[choice] = heads[c]
        heads[c] = choice
        sums[c] += bound[choice]
        choice = n_end[choice]
    snap_heads = np.empty((n, n), np.int32)
    snap_sums = np.empty((n, n), np.int64)
    snap_acc = np.empty(n, np.int64)
    left = np.zeros(n, np.int64)
    tot = np.zeros(26, np.int64)
    letters = np.zeros(n, np.int32)
    nodes = 0
    leaves = 0
    acc = n_points[0]
    k = -1  # the deepest level forced so far (the root: none)
    opening = True  # the subclass forced down to level k is bounded: open level k + 1
    while True:
        if opening:
            cell = order[k + 1]
            _letter_bounds(cell, heads, link, n_label, n_end, bound, tot)
            base = acc + sums.sum() - sums[cell]
            nodes += _popcount(masks[cell])
            survivors = _above(masks[cell], tot, low - base)
            if k + 1 == n - 1:  # the last cell: each survivor is one board, scored exactly
                while survivors:
                    bit = survivors & -survivors
                    survivors ^= bit
                    letter = _letter(bit)
                    if base + tot[letter] <= low:  # low rose since the level opened
                        continue
                    letters[cell] = letter
                    leaves += 1
                    score = board_score(letters, adj, deg, children, points, stamp, mark + leaves)
                    if score > low:
                        low = score
                        best_letters[:] = letters
            else:
                k += 1
                snap_heads[k] = heads
                snap_sums[k] = sums
                snap_acc[k] = acc
                left[k] = survivors
        while k >= 0 and left[k] == 0:  # back up to the deepest level with a survivor left
            k -= 1
        if k < 0:
            return low, nodes, leaves, 0
        if flag[0]:
            return low, nodes, leaves, 1
        bit = left[k] & -left[k]
        left[k] ^= bit
        letter = _letter(bit)
        heads[:] = snap_heads[k]
        sums[:] = snap_sums[k]
        cell = order[k]
        letters[cell] = letter
        acc = snap_acc[k] + _force_cell(cell, letter, heads, sums, link, n_label, n_end, n_points, bound)
        opening = acc + sums.sum() > low  # else low rose since the level opened


def split_order(rows: int, cols: int) -> np.ndarray:
    """Cells by falling degree (the centre first), then row-major: the order cells are forced in."""
    _, deg = adjacency(rows, cols)
    return np.array(sorted(range(rows * cols), key=lambda c: (-deg[c], c)), dtype=np.int32)
