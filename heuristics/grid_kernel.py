r"""The grid word search compiled with numba: :mod:`heuristics.grid` at C speed.

Same walk, same words, same scores: ``heuristics/grid.py`` is the readable
reference and the test oracle (tests compare totals on thousands of random
boards, and word lists with their paths). This module only makes each step
cheap.

Data structures.

* The trie is two flat arrays built with numpy from the sorted word list:
  ``children[node, letter]`` is the child node (0 means none: the root is
  nobody's child) and ``word_of[node]`` the index of the word ending there
  (-1 for a bare prefix). About 390,000 nodes × 26 for ENABLE2K (40 MB),
  built by a compiled loop over the words' letters in a few milliseconds.
* A board is a row of *tile codes* into a tile table: ``tile_letters[code]``
  spells the tile (one letter, or two for ``qu``). A board read from the
  command line gets a table of its own tiles, multipliers and all
  (:class:`Scorer`, which also lists each word's best path).
* The fast path (:class:`BatchScorer`: ``--score-file``, the best-board
  search) takes boards over the fixed 26 tiles a–z where ``q`` is the Qu
  tile (:data:`ALPHABET`), as danvk's Boggler does. Its trie is spelled in
  tiles and stored compactly (:class:`AlphabetTrie`: a record of child bits
  and a first child per node, breadth-first); without multipliers a word's
  score depends on the word alone, so each node carries its word's points
  and the walk keeps no running length or sum. The current path's last tile
  stays in local variables and its untried neighbours in a bit mask
  (measured: 1.5× danvk's C++ on one core, 200,000 random 4×4 boards).
* The walk is an explicit stack (one frame per tile on the path) with a
  ``used`` flag per cell: no recursion, no allocation per board.
* A word found along several paths counts once, with its best path's
  score: ``stamp[node]`` says whether the word was seen on *this* board
  (each board gets the next stamp number, so nothing is cleared between
  boards) and ``best[node]`` its best score so far.

Scores. One formula covers both tables: a path scores
``letters × word_multiplier + length_points[length]``, where for Boggle the
letter values are 0 and ``length_points`` is the Boggle table, and for
Scramble the letter values are the tiles' values times their letter
multipliers and ``length_points`` is the length bonus.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from cpmodel.core.boards import GridBoard
from cpmodel.core.scoring import ScoreTable, points_for_length

# The best-board search's 26 tiles: a..z, with q standing for the Qu tile.
ALPHABET = tuple("qu" if c == "q" else c for c in "abcdefghijklmnopqrstuvwxyz")
_A = ord("a")


@dataclass(frozen=True)
class KernelTrie:
    """The lexicon as flat arrays (see the module docstring)."""

    children: np.ndarray  # int32 [nodes, 26]
    word_of: np.ndarray  # int32 [nodes]: index into ``words``, or -1
    words: tuple[str, ...]  # a-z, as given


def build_trie(words) -> KernelTrie:
    """The trie of ``words`` (a-z strings), built by the compiled :func:`_insert_all`."""
    ordered = tuple(words)
    lengths = np.fromiter((len(w) for w in ordered), np.int64, len(ordered))
    offsets = np.zeros(len(ordered) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.frombuffer("".join(ordered).encode("ascii"), np.uint8) - np.uint8(_A)
    children, word_of = _insert_all(flat, offsets)
    return KernelTrie(children, word_of, ordered)


@njit(cache=True)
def _insert_all(flat, offsets):
    """Insert every word (letters ``flat[offsets[i]:offsets[i + 1]]``); the table grows by doubling."""
    capacity = max(16, len(flat) // 3)
    children = np.zeros((capacity, 26), np.int32)
    word_of = np.full(capacity, -1, np.int32)
    nodes = 1  # node 0 is the root
    for i in range(len(offsets) - 1):
        node = 0
        for k in range(offsets[i], offsets[i + 1]):
            letter = flat[k]
            child = children[node, letter]
            if child == 0:
                if nodes == capacity:
                    capacity *= 2
                    grown = np.zeros((capacity, 26), np.int32)
                    grown[:nodes] = children[:nodes]
                    children = grown
                    more = np.full(capacity, -1, np.int32)
                    more[:nodes] = word_of[:nodes]
                    word_of = more
                child = nodes
                nodes += 1
                children[node, letter] = child
            node = child
        word_of[node] = i
    return children[:nodes].copy(), word_of[:nodes].copy()


def neighbour_table(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr[cell, k], count[cell])``: each cell's neighbours in the reference's order."""
    cells = rows * cols
    nbr = np.zeros((cells, 8), np.int32)
    count = np.zeros(cells, np.int32)
    for cell in range(cells):
        r, c = divmod(cell, cols)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols:
                    nbr[cell, count[cell]] = (r + dr) * cols + c + dc
                    count[cell] += 1
    return nbr, count


def tile_table(texts) -> tuple[np.ndarray, np.ndarray]:
    """``(letters[code, k], length[code])`` for tiles spelled by ``texts``."""
    longest = max(len(t) for t in texts)
    letters = np.zeros((len(texts), longest), np.int8)
    for code, text in enumerate(texts):
        letters[code, :len(text)] = [ord(ch) - _A for ch in text]
    return letters, np.array([len(t) for t in texts], np.int32)


def length_points(table: ScoreTable, longest: int) -> np.ndarray:
    """Points (Boggle) or bonus (Scramble) for each word length 0..longest."""
    source = table.length_points if table.kind == "boggle" else table.length_bonus
    return np.array([points_for_length(source, n) for n in range(longest + 1)], np.int64)


@dataclass
class Geometry:
    """What the kernel needs about a board shape, a tile table and a score table."""

    nbr: np.ndarray
    nbr_count: np.ndarray
    tile_letters: np.ndarray
    tile_len: np.ndarray
    tile_value: np.ndarray  # int64 per tile code (0 under Boggle)
    letter_mult: np.ndarray  # int64 per cell
    word_mult: np.ndarray  # int64 per cell
    points: np.ndarray  # int64 per length
    min_len: int
    max_len: int


def geometry(rows: int, cols: int, texts, table: ScoreTable, min_len: int = 3, max_len: int | None = None,
             letter_mult=None, word_mult=None) -> Geometry:
    """The kernel's view of an RxC board over tiles ``texts`` (codes index them)."""
    nbr, count = neighbour_table(rows, cols)
    letters, lengths = tile_table(texts)
    longest = rows * cols * int(lengths.max())
    values = [table.tile_value(t) if table.kind == "scramble" else 0 for t in texts]
    ones = np.ones(rows * cols, np.int64)
    return Geometry(nbr, count, letters, lengths, np.array(values, np.int64),
                    ones if letter_mult is None else np.array(letter_mult, np.int64),
                    ones if word_mult is None else np.array(word_mult, np.int64),
                    length_points(table, longest), min_len, min(max_len or longest, longest))


def board_geometry(board: GridBoard, table: ScoreTable, min_len: int = 3, max_len: int | None = None) -> Geometry:
    """A command-line board: one tile code per cell, its own multipliers."""
    tiles = board.tiles
    return geometry(board.rows, board.cols, [t.text for t in tiles], table, min_len, max_len,
                    [t.letter_mult for t in tiles], [t.word_mult for t in tiles])


class Scorer:
    """A trie plus the per-board scratch arrays (stamps and best scores)."""

    def __init__(self, trie: KernelTrie):
        self.trie = trie
        self.stamp_of = np.zeros(len(trie.children), np.int32)
        self.best = np.zeros(len(trie.children), np.int64)
        self.stamp = np.zeros(1, np.int64)  # the last stamp used, kept in an array the kernel updates

    def total(self, codes: np.ndarray, geo: Geometry) -> int:
        """One board's total score (``codes`` index the geometry's tiles)."""
        return int(score_boards(codes.reshape(1, -1), geo, self)[0])

    def find(self, board: GridBoard, geo: Geometry):
        """``[(word, score, path cells)]`` for every word on the board (unsorted)."""
        self._renew(1)
        codes = np.arange(len(board.tiles), dtype=np.int32)
        nodes, scores, paths, lengths = _find_words(
            self.trie.children, self.trie.word_of, codes, *_args(geo), self.stamp_of, self.best, self.stamp)
        return [(self.trie.words[self.trie.word_of[n]], int(s), [int(c) for c in p[:k]])
                for n, s, p, k in zip(nodes, scores, paths, lengths, strict=True)]

    def _renew(self, boards: int) -> None:
        """Stamps are int32: start again from 0 before they could overflow."""
        if self.stamp[0] + boards >= 2**31 - 1:
            self.stamp_of[:] = 0
            self.stamp[0] = 0


def _args(geo: Geometry) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                  np.ndarray, int, int]:
    return (geo.nbr, geo.nbr_count, geo.tile_letters, geo.tile_len, geo.tile_value, geo.letter_mult,
            geo.word_mult, geo.points, geo.min_len, geo.max_len)


def score_boards(codes: np.ndarray, geo: Geometry, scorer: Scorer) -> np.ndarray:
    """Total score of each board (a row of tile codes per board), int64."""
    scorer._renew(len(codes))
    return _score_many(scorer.trie.children, scorer.trie.word_of, np.ascontiguousarray(codes, np.int32),
                       *_args(geo), scorer.stamp_of, scorer.best, scorer.stamp)


# -- the fast path: boards over the 26-tile alphabet -----------------------------------


WORD = 1 << 30  # in a node's record: a word ends at this node


@intrinsic
def _popcount(typingctx, x):
    """The number of bits set in ``x`` (one ``popcnt`` instruction)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@dataclass(frozen=True)
class AlphabetTrie:
    """The trie over :data:`ALPHABET` (``q`` is the Qu tile), laid out for scoring many boards.

    Words are spelled in tiles (``quit`` → q, i, t; a q without u cannot be
    spelled), so each step is one tile. Each node is one record of two int32,
    the nodes in breadth-first order: ``node[v, 0]`` has bit ``c`` set when
    tile ``c`` has a child, and bit 30 (:data:`WORD`) when a word ends at
    ``v``; ``node[v, 1]`` is the index of ``v``'s first child. A node's
    children sit side by side in tile order, so the child for tile ``c`` is
    ``first + popcount(bits below c)``. ENABLE2K's 389,000 nodes take 3 MB
    (a 26-wide table took 40 MB), and the top levels, where a walk spends
    most of its steps, sit together at the front: measured 2.2× faster than
    the 26-wide table (200,000 random 4×4 boards: 1.09 s against 2.4 s)."""

    node: np.ndarray  # int32 [nodes, 2]: child bits | WORD, first child

    @property
    def nodes(self) -> int:
        return len(self.node)


def build_alphabet_trie(words) -> AlphabetTrie:
    """The trie of ``words`` (a-z strings) spelled in tiles, built with numpy, depth by depth.

    Sorted, the words list their prefixes in breadth-first order: the nodes
    at depth d are the d-letter prefixes, each first met at the word that
    shares fewer than d letters with the word before it, and those words
    come in the order of their prefixes. So each depth is a few array
    operations over all the words, and nothing is compiled: on a first run
    after install numba compiles only the walk."""
    tiles = np.array(list(_spelled_in_tiles(words)) or [""], dtype="S")
    if not (tiles[1:] > tiles[:-1]).all():  # a word list usually comes sorted, without repeats
        tiles = np.sort(tiles)
        tiles = tiles[np.concatenate([[True], tiles[1:] != tiles[:-1]])]
    letters = tiles.view(np.uint8).reshape(len(tiles), -1)  # one row per word, zero padded
    lengths = (letters != 0).sum(axis=1)
    same = np.zeros(letters.shape, np.bool_)
    same[1:] = letters[1:] == letters[:-1]
    shared = np.argmin(same, axis=1)  # letters in common with the word before (they differ: no repeats)
    parents, codes, ends = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [np.zeros(1, np.bool_)]
    node_of = np.zeros(len(tiles), np.int64)  # each word's prefix of the depth before → its node
    nodes = 1
    for depth in range(1, letters.shape[1] + 1):
        new = (shared < depth) & (lengths >= depth)  # the words where a depth-d prefix is first met
        first_met = np.flatnonzero(new)
        parents.append(node_of[first_met])
        codes.append(letters[first_met, depth - 1] - _A)
        ends.append(lengths[first_met] == depth)
        owner = np.maximum.accumulate(np.where(new, np.arange(len(tiles)), 0))  # where each word's prefix was met
        node_of = nodes + np.cumsum(new)[owner] - 1
        nodes += len(first_met)
    parent, code, end = np.concatenate(parents)[1:], np.concatenate(codes)[1:], np.concatenate(ends)
    node = np.empty((nodes, 2), np.int32)  # a node's children have distinct tiles: their bits add up
    node[:, 0] = np.bincount(parent, weights=np.left_shift(1, code), minlength=nodes).astype(np.int32)
    node[:, 0] |= np.where(end, WORD, 0).astype(np.int32)
    node[:, 1] = 1 + np.concatenate([[0], np.cumsum(np.bincount(parent, minlength=nodes))[:-1]])
    return AlphabetTrie(node)


def _spelled_in_tiles(words):
    """The words spelled in tiles (``qu`` → ``q``); a q without u cannot be spelled."""
    for word in words:
        if "q" not in word:
            yield word
        elif word.count("q") == word.count("qu"):
            yield word.replace("qu", "q")


def _levels(node: np.ndarray):
    """(start, stop) of each depth's nodes: the children of one depth follow it."""
    start, stop = 0, 1
    while start < stop:
        yield start, stop
        last = node[stop - 1]
        start, stop = stop, int(last[1]) + bin(int(last[0]) & ~WORD).count("1")


def node_points(trie: AlphabetTrie, geo: Geometry) -> np.ndarray:
    """What each node's word scores (0 for a bare prefix, or a word too short or too long):
    without multipliers a word's score depends on the word alone. Lengths (Qu counts
    two) and letter values are summed down the trie one depth at a time."""
    node = trie.node
    bits = np.unpackbits(node[:, 0].astype("<i4").view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    parent, tile = np.nonzero(bits[:, :26])  # every child, in order: nodes 1, 2, ...
    length, value = np.zeros(len(node), np.int64), np.zeros(len(node), np.int64)
    for start, stop in list(_levels(node))[1:]:
        above, tiles = parent[start - 1:stop - 1], tile[start - 1:stop - 1]
        length[start:stop] = length[above] + geo.tile_len[tiles]
        value[start:stop] = value[above] + geo.tile_value[tiles]
    scored = ((node[:, 0] & WORD) != 0) & (geo.min_len <= length) & (length <= geo.max_len)
    points = geo.points[np.minimum(length, len(geo.points) - 1)]
    return np.where(scored, value + points, 0).astype(np.int32)


def neighbour_masks(rows: int, cols: int) -> np.ndarray:
    """``mask[cell]``: a bit for each neighbour of ``cell`` (int64)."""
    nbr, count = neighbour_table(rows, cols)
    masks = np.zeros(rows * cols, np.int64)
    for cell in range(rows * cols):
        for k in range(count[cell]):
            masks[cell] |= np.int64(1) << int(nbr[cell, k])
    return masks


class BatchScorer:
    """Scores many boards of one shape over :data:`ALPHABET` (codes 0..25), without multipliers.

    ``info[v]`` holds node ``v``'s stamp (the last board that counted its word)
    and its word's points, side by side: one cache line for both."""

    def __init__(self, trie: AlphabetTrie, rows: int, cols: int, table: ScoreTable, min_len: int = 3,
                 max_len: int | None = None):
        if rows * cols > 63:
            raise ValueError("the batch scorer keeps the used cells in one 64-bit word: at most 63 cells")
        self.trie, self.rows, self.cols = trie, rows, cols
        self.geo = geometry(rows, cols, ALPHABET, table, min_len, max_len)
        self.nbr_mask = neighbour_masks(rows, cols)
        self.info = np.zeros((trie.nodes, 2), np.int32)
        self.info[:, 1] = node_points(trie, self.geo)
        self.stamp = np.zeros(1, np.int64)

    def twin(self) -> BatchScorer:
        """A scorer sharing this one's trie and points, with stamps of its own: one per thread."""
        other = object.__new__(BatchScorer)
        other.__dict__.update(self.__dict__)
        other.info = self.info.copy()
        other.info[:, 0] = 0
        other.stamp = np.zeros(1, np.int64)
        return other

    def renew(self, boards: int) -> None:
        """Stamps are int32: start again from 0 long before they could overflow
        (the search scores boards without coming back here)."""
        if self.stamp[0] + boards >= 2**31 - 10**8:
            self.info[:, 0] = 0
            self.stamp[0] = 0

    def scores(self, codes: np.ndarray) -> np.ndarray:
        """Total of each board (one row of codes per board), int64."""
        self.renew(len(codes))
        scores = np.empty(len(codes), np.int64)
        _alphabet_many(self.trie.node, self.info, np.ascontiguousarray(codes, np.int8), self.nbr_mask, self.stamp,
                       scores, np.empty((3, self.rows * self.cols), np.int64))
        return scores

    def score(self, codes) -> int:
        return int(self.scores(np.asarray(codes, np.int8).reshape(1, -1))[0])


def encode(board: GridBoard) -> np.ndarray | None:
    """The board's tile codes over :data:`ALPHABET`, or None if it does not fit
    (a tile outside it, a multiplier)."""
    codes = []
    for tile in board.tiles:
        if tile.letter_mult != 1 or tile.word_mult != 1 or tile.text not in ALPHABET:
            return None
        codes.append(ALPHABET.index(tile.text))
    return np.array(codes, np.int8)


@njit(cache=True, nogil=True, inline="always")  # inlined where called: one compile less on a first run
def _alphabet_walk(node, info, codes, nbr_mask, stamp, st_cell, st_node, st_free):
    """One board's total. The current path's last tile lives in local variables
    (its cell, its node and that node's record, the neighbours not tried yet),
    the tiles before it on a small stack: the hot loop stays in registers.
    ``free`` holds the neighbours still to try as bits; each step takes the
    lowest one (``trailing_zeros``) that the path has not used."""
    total = 0
    one = np.int64(1)
    for start in range(len(codes)):
        code = codes[start]
        bits = node[0, 0]
        if not (bits >> code) & 1:
            continue
        v = node[0, 1] + _popcount(bits & ((np.int32(1) << code) - 1))
        bits = node[v, 0]
        if bits & WORD and info[v, 0] != stamp:
            info[v, 0] = stamp
            total += info[v, 1]
        cell, used, free, depth = start, one << start, nbr_mask[start], 0
        while True:
            free &= ~used
            if free:
                nxt = trailing_zeros(free)
                free &= free - 1
                code = codes[nxt]
                if not (bits >> code) & 1:
                    continue
                st_cell[depth], st_node[depth], st_free[depth] = cell, v, free
                depth += 1
                v = node[v, 1] + _popcount(bits & ((np.int32(1) << code) - 1))
                bits = node[v, 0]
                cell, free = nxt, nbr_mask[nxt]
                used |= one << nxt
                if bits & WORD and info[v, 0] != stamp:
                    info[v, 0] = stamp
                    total += info[v, 1]
            else:
                used ^= one << cell
                if depth == 0:
                    break
                depth -= 1
                cell, v, free = st_cell[depth], st_node[depth], st_free[depth]
                bits = node[v, 0]
    return total


@njit(cache=True, nogil=True)
def _alphabet_many(node, info, codes, nbr_mask, stamp, scores, stack):
    """``scores[b]``: board b's total; ``stack``: the walk's three stacks (cells, nodes, neighbours)."""
    for b in range(len(codes)):
        stamp[0] += 1
        scores[b] = _alphabet_walk(node, info, codes[b], nbr_mask, stamp[0], stack[0], stack[1], stack[2])


# -- the compiled walk --------------------------------------------------------------


@njit(cache=True, inline="always")
def _descend(children, node, tile_letters, tile_len, code):
    """The trie node after spelling tile ``code`` from ``node`` (0: no word goes on)."""
    for k in range(tile_len[code]):
        node = children[node, tile_letters[code, k]]
        if node == 0:
            return 0
    return node


@njit(cache=True)
def _walk(children, word_of, codes, nbr, nbr_count, tile_letters, tile_len, tile_value, letter_mult,
          word_mult, points, min_len, max_len, stamp_of, best, stamp, record, found, found_path):
    """Depth-first walk of one board; the total of each word's best path.

    With ``record``, each word's node goes into ``found[slot]`` (slot kept in
    ``best``'s twin ``found[...]``) and its best path into ``found_path``."""
    cells = len(codes)
    used = np.zeros(cells, np.uint8)
    at_cell = np.empty(cells, np.int32)
    at_node = np.empty(cells, np.int32)
    at_next = np.empty(cells, np.int32)
    at_len = np.empty(cells, np.int32)
    at_sum = np.empty(cells, np.int64)
    at_mult = np.empty(cells, np.int64)
    total = 0
    for start in range(cells):
        node = _descend(children, 0, tile_letters, tile_len, codes[start])
        if node == 0 or tile_len[codes[start]] > max_len:
            continue
        depth = 0
        at_cell[0], at_node[0], at_next[0] = start, node, 0
        at_len[0] = tile_len[codes[start]]
        at_sum[0] = tile_value[codes[start]] * letter_mult[start]
        at_mult[0] = word_mult[start]
        used[start] = 1
        while depth >= 0:
            if at_next[depth] == 0 and word_of[at_node[depth]] >= 0 and at_len[depth] >= min_len:
                node = at_node[depth]
                score = at_sum[depth] * at_mult[depth] + points[at_len[depth]]
                if stamp_of[node] != stamp:
                    stamp_of[node] = stamp
                    best[node] = score
                    total += score
                    if record:
                        _record(found, found_path, node, score, at_cell, depth)
                elif score > best[node]:
                    total += score - best[node]
                    best[node] = score
                    if record:
                        _record(found, found_path, node, score, at_cell, depth)
            cell = at_cell[depth]
            k = at_next[depth]
            if k < nbr_count[cell]:
                at_next[depth] = k + 1
                nxt = nbr[cell, k]
                if used[nxt]:
                    continue
                code = codes[nxt]
                length = at_len[depth] + tile_len[code]
                if length > max_len:
                    continue
                child = _descend(children, at_node[depth], tile_letters, tile_len, code)
                if child == 0:
                    continue
                depth += 1
                at_cell[depth], at_node[depth], at_next[depth], at_len[depth] = nxt, child, 0, length
                at_sum[depth] = at_sum[depth - 1] + tile_value[code] * letter_mult[nxt]
                at_mult[depth] = at_mult[depth - 1] * word_mult[nxt]
                used[nxt] = 1
            else:
                used[cell] = 0
                depth -= 1
    return total


@njit(cache=True)
def _record(found, found_path, node, score, at_cell, depth):
    """Keep the path of a word's best score so far (found: [slot of node..., count])."""
    slots = found[0]
    slot = slots[node]
    if slot < 0:
        slot = found[1][0]
        found[1][0] = slot + 1
        slots[node] = slot
        found[2][slot] = node
    found[3][slot] = score
    found[4][slot] = depth + 1
    for d in range(depth + 1):
        found_path[slot, d] = at_cell[d]


@njit(cache=True)
def _score_many(children, word_of, codes, nbr, nbr_count, tile_letters, tile_len, tile_value, letter_mult,
                word_mult, points, min_len, max_len, stamp_of, best, stamp):
    scores = np.empty(len(codes), np.int64)
    none = np.empty(0, np.int64)
    dummy = (none, none, none, none, none)
    path = np.empty((0, 0), np.int32)
    for b in range(len(codes)):
        stamp[0] += 1
        scores[b] = _walk(children, word_of, codes[b], nbr, nbr_count, tile_letters, tile_len, tile_value,
                          letter_mult, word_mult, points, min_len, max_len, stamp_of, best, stamp[0], False,
                          dummy, path)
    return scores


@njit(cache=True)
def _find_words(children, word_of, codes, nbr, nbr_count, tile_letters, tile_len, tile_value, letter_mult,
                word_mult, points, min_len, max_len, stamp_of, best, stamp):
    """Every word with its best path: (nodes, scores, paths, path lengths)."""
    stamp[0] += 1
    cells = len(codes)
    capacity = len(children)  # at most one slot per trie node
    slots = np.full(len(children), -1, np.int64)
    count = np.zeros(1, np.int64)
    nodes = np.empty(capacity, np.int64)
    scores = np.empty(capacity, np.int64)
    lengths = np.empty(capacity, np.int64)
    found = (slots, count, nodes, scores, lengths)
    paths = np.empty((capacity, cells), np.int32)
    _walk(children, word_of, codes, nbr, nbr_count, tile_letters, tile_len, tile_value, letter_mult,
          word_mult, points, min_len, max_len, stamp_of, best, stamp[0], True, found, paths)
    n = count[0]
    return nodes[:n].copy(), scores[:n].copy(), paths[:n].copy(), lengths[:n].copy()


# -- what the command uses -------------------------------------------------------------


def _load_walk() -> None:
    """Compile (or load from numba's cache) the batch walk on a one-node trie. Run in
    a thread while the caller reads words and builds the trie: LLVM, which does most
    of a first run's compiling, works without the GIL. A call from another thread
    meanwhile waits for this compile rather than starting its own."""
    _alphabet_many(np.zeros((1, 2), np.int32), np.zeros((1, 2), np.int32), np.zeros((1, 1), np.int8),
                   np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros((3, 1), np.int64))


class FileScorer:
    """Totals of a stream of boards of any shapes and tiles. Boards over the 26-tile
    alphabet go through the batch path, one scorer per shape and thread; plain
    boards with a lone q tile (:data:`heuristics.grid_lines.LONE_Q`) and parsed
    boards that fit no batch (multipliers, unusual tiles) through the general
    walk. Tries are built when first needed.

    ``threads``: a large batch is cut in that many parts, scored at once in
    threads (the batch kernel runs without the GIL, with stamps of its own)."""

    def __init__(self, words, table: ScoreTable, min_len: int = 3, max_len: int | None = None, threads: int = 1):
        self.words, self.table, self.min_len, self.max_len = words, table, min_len, max_len
        self.threads = max(1, threads)
        self.batch: dict[tuple[int, int], list[BatchScorer]] = {}
        self._alphabet: AlphabetTrie | None = None
        self._general: Scorer | None = None
        self._lone_q: dict[tuple[int, int], Geometry] = {}
        threading.Thread(target=_load_walk, name="cpmodel-compile", daemon=True).start()

    def scores(self, boards: list[GridBoard]) -> list[int]:
        """Totals of parsed boards, in order."""
        totals = [0] * len(boards)  # each board's total is set below
        by_shape: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
        for k, board in enumerate(boards):
            codes = encode(board) if board.rows * board.cols <= 63 else None
            if codes is None:
                totals[k] = self._one(board)
            else:
                by_shape.setdefault((board.rows, board.cols), []).append((k, codes))
        for (rows, cols), items in by_shape.items():
            scores = self.plain(rows, cols, False, np.array([codes for _, codes in items]))
            for (k, _), score in zip(items, scores, strict=True):
                totals[k] = int(score)
        return totals

    def plain(self, rows: int, cols: int, lone_q: bool, codes: np.ndarray) -> np.ndarray:
        """Totals of boards given as tile codes (a-z, q the Qu tile; with ``lone_q``, also
        code 26, the tile that spells q alone)."""
        if lone_q:
            if (rows, cols) not in self._lone_q:
                self._lone_q[rows, cols] = geometry(rows, cols, (*ALPHABET, "q"), self.table, self.min_len,
                                                    self.max_len)
            return score_boards(codes, self._lone_q[rows, cols], self._general_scorer())
        scorers = self._batch((rows, cols))
        parts = min(len(scorers), len(codes) // 512) or 1  # below 512 boards a thread costs more than it saves
        if parts == 1:
            return scorers[0].scores(codes)
        pieces = np.array_split(codes, parts)
        out: list = [None] * parts

        def work(k: int) -> None:
            try:
                out[k] = scorers[k].scores(pieces[k])
            except BaseException as exc:  # handed to the caller below
                out[k] = exc

        helpers = [threading.Thread(target=work, args=(k,), name="cpmodel-score", daemon=True)
                   for k in range(1, parts)]
        for helper in helpers:
            helper.start()
        work(0)
        for helper in helpers:
            helper.join()
        for result in out:
            if isinstance(result, BaseException):
                raise result
        return np.concatenate(out)

    def _batch(self, shape: tuple[int, int]) -> list[BatchScorer]:
        if shape not in self.batch:
            if self._alphabet is None:
                self._alphabet = build_alphabet_trie(self.words)
            first = BatchScorer(self._alphabet, *shape, self.table, self.min_len, self.max_len)
            self.batch[shape] = [first] + [first.twin() for _ in range(self.threads - 1)]
        return self.batch[shape]

    def _general_scorer(self) -> Scorer:
        if self._general is None:
            self._general = Scorer(build_trie(self.words))
        return self._general

    def _one(self, board: GridBoard) -> int:
        geo = board_geometry(board, self.table, self.min_len, self.max_len)
        return self._general_scorer().total(np.arange(len(board.tiles)), geo)
