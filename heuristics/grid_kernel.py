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
  tiles, so each step is one table read, and the current path's last tile
  stays in local variables (measured: about 1.6× the general walk).
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

from dataclasses import dataclass

import numpy as np
from numba import njit

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


@dataclass(frozen=True)
class AlphabetTrie:
    """The trie over :data:`ALPHABET` (``q`` is the Qu tile), for scoring many boards.

    Words are spelled in tiles (``quit`` → q, i, t; a q without u cannot be
    spelled), so each step is one table read. A child entry is
    ``node << 1 | is_word``: the word flag comes with the pointer, saving a
    read of a second array at every node (the walk is bound by memory reads)."""

    children: np.ndarray  # int32 [nodes, 26], entries node << 1 | is_word
    nodes: int


def build_alphabet_trie(words) -> AlphabetTrie:
    tiled = [w.replace("qu", "q") for w in words if "q" not in w.replace("qu", "")]
    plain = build_trie(tiled)
    kids = plain.children
    flagged = np.where(kids > 0, kids * 2 + (plain.word_of[kids] >= 0), 0).astype(np.int32)
    return AlphabetTrie(flagged, len(kids))


class BatchScorer:
    """Scores many boards of one shape over :data:`ALPHABET` (codes 0..25), without multipliers."""

    def __init__(self, trie: AlphabetTrie, rows: int, cols: int, table: ScoreTable, min_len: int = 3,
                 max_len: int | None = None):
        if rows * cols > 63:
            raise ValueError("the batch scorer keeps the used cells in one 64-bit word: at most 63 cells")
        self.trie, self.rows, self.cols = trie, rows, cols
        self.geo = geometry(rows, cols, ALPHABET, table, min_len, max_len)
        self.stamp_of = np.zeros(trie.nodes, np.int32)
        self.stamp = np.zeros(1, np.int64)

    def scores(self, codes: np.ndarray) -> np.ndarray:
        """Total of each board (one row of codes per board), int64."""
        if self.stamp[0] + len(codes) >= 2**31 - 10**8:  # the search scores boards without coming back here
            self.stamp_of[:] = 0
            self.stamp[0] = 0
        geo = self.geo
        return _alphabet_many(self.trie.children, np.ascontiguousarray(codes, np.int8), geo.nbr, geo.nbr_count,
                              geo.tile_len, geo.tile_value, geo.points, geo.min_len, geo.max_len,
                              self.stamp_of, self.stamp)

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


@njit(cache=True)
def _alphabet_walk(children, codes, nbr, nbr_count, tile_len, tile_value, points, min_len, max_len,
                   stamp_of, stamp, st_cell, st_node, st_k, st_len, st_sum):
    """One board's total. The current path's last tile lives in local variables,
    the tiles before it on a small stack: the hot loop stays in registers."""
    total = 0
    one = np.int64(1)
    for start in range(len(codes)):
        code = codes[start]
        node = children[0, code]
        length = tile_len[code]
        if node == 0 or length > max_len:
            continue
        cell, k, depth, used, letters = start, 0, 0, one << start, tile_value[code]
        if node & 1 and length >= min_len and stamp_of[node >> 1] != stamp:
            stamp_of[node >> 1] = stamp
            total += letters + points[length]
        while True:
            if k < nbr_count[cell]:
                nxt = nbr[cell, k]
                k += 1
                if (used >> nxt) & 1:
                    continue
                code = codes[nxt]
                child = children[node >> 1, code]
                if child == 0 or length + tile_len[code] > max_len:
                    continue
                st_cell[depth], st_node[depth], st_k[depth], st_len[depth], st_sum[depth] = cell, node, k, length, letters
                depth += 1
                cell, node, k = nxt, child, 0
                length += tile_len[code]
                letters += tile_value[code]
                used |= one << cell
                if node & 1 and length >= min_len and stamp_of[node >> 1] != stamp:
                    stamp_of[node >> 1] = stamp
                    total += letters + points[length]
            else:
                used ^= one << cell
                if depth == 0:
                    break
                depth -= 1
                cell, node, k, length, letters = st_cell[depth], st_node[depth], st_k[depth], st_len[depth], st_sum[depth]
    return total


@njit(cache=True)
def _alphabet_many(children, codes, nbr, nbr_count, tile_len, tile_value, points, min_len, max_len, stamp_of, stamp):
    cells = codes.shape[1]
    st_cell = np.empty(cells, np.int64)
    st_node = np.empty(cells, np.int64)
    st_k = np.empty(cells, np.int64)
    st_len = np.empty(cells, np.int64)
    st_sum = np.empty(cells, np.int64)
    scores = np.empty(len(codes), np.int64)
    for b in range(len(codes)):
        stamp[0] += 1
        scores[b] = _alphabet_walk(children, codes[b], nbr, nbr_count, tile_len, tile_value, points, min_len, max_len,
                                   stamp_of, stamp[0], st_cell, st_node, st_k, st_len, st_sum)
    return scores


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


class FileScorer:
    """Totals of a stream of boards of any shapes and tiles: boards over the 26-tile
    alphabet go through the batch path, one scorer per shape; others (multipliers,
    unusual tiles) through the general walk. Tries are built when first needed."""

    def __init__(self, words, table: ScoreTable, min_len: int = 3, max_len: int | None = None):
        self.words, self.table, self.min_len, self.max_len = words, table, min_len, max_len
        self.batch: dict[tuple[int, int], BatchScorer] = {}
        self._alphabet: AlphabetTrie | None = None
        self._general: Scorer | None = None

    def scores(self, boards: list[GridBoard]) -> list[int]:
        totals = [0] * len(boards)  # each board's total is set below
        by_shape: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
        for k, board in enumerate(boards):
            codes = encode(board) if board.rows * board.cols <= 63 else None
            if codes is None:
                totals[k] = self._one(board)
            else:
                by_shape.setdefault((board.rows, board.cols), []).append((k, codes))
        for shape, items in by_shape.items():
            scores = self._batch(shape).scores(np.array([codes for _, codes in items]))
            for (k, _), score in zip(items, scores, strict=True):
                totals[k] = int(score)
        return totals

    def _batch(self, shape: tuple[int, int]) -> BatchScorer:
        if shape not in self.batch:
            if self._alphabet is None:
                self._alphabet = build_alphabet_trie(self.words)
            self.batch[shape] = BatchScorer(self._alphabet, *shape, self.table, self.min_len, self.max_len)
        return self.batch[shape]

    def _one(self, board: GridBoard) -> int:
        if self._general is None:
            self._general = Scorer(build_trie(self.words))
        geo = board_geometry(board, self.table, self.min_len, self.max_len)
        return self._general.total(np.arange(len(board.tiles)), geo)
