r"""Algorithm B in batches: the search of :mod:`heuristics.rectangle`, with numpy.

Same tree, same candidates, same order, same answers: the pure-Python search
in ``heuristics/rectangle.py`` is the readable reference, and this module only
makes its nodes cheaper. Tests compare the two on every mode they share
(solutions in order, counts, nodes per level).

Why batches. The reference spends about a microsecond of interpreter time on
each node. Here one numpy call handles thousands of nodes: a *slice* of up to
``SLICE`` nodes of one level moves down together, and the search is still
depth first over slices, so memory stays small and the first solutions come
out in the reference's order.

What a node costs. A node is a pair (parent, fill word). Its crossing lines
are states of an integer trie (``child[state*26 + letter]``), and its
candidate set for the next line is, as in the reference,

    C = ⋂_j ALLOWED_j[sig(state_j)],

where ``sig`` is the set of letters that may follow a crossing prefix and
``ALLOWED_j[sig]`` the fill words whose letter j lies in it. Deep in the tree
these sets are sparse, so the bitsets are cut into *buckets* of
``BUCKET_LIMBS`` 64-bit words over the fill words in alphabetical order,
where one bucket holds words with few distinct first letters. A bucket whose
words cannot agree with every ``sig(state_j)`` (known from a per-bucket
letter summary, ``RELEVANT_j[sig]``) is never read. Only the buckets left
are gathered (one fixed-size row each: numpy's fast path) and ANDed.

The alphabetical order is internal: whenever the order matters (listing,
first solutions) the members of each node's set are sorted back by rank, the
reference's order. Counting skips that sort, and adds the bit counts of the
last level's sets instead of visiting the leaves, as the reference does.

Not covered here (the reference handles them): ``--best``, ``--distinct`` and
``--symmetric``, whose side conditions depend on the chosen words.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from cpmodel.core.control import SearchStopped

BUCKET_LIMBS = 8  # 512 fill words per bucket: small enough to skip, big enough to gather fast
ONE_BUCKET_UP_TO = 32  # limbs (2048 fill words): below this, skipping buckets costs more than it saves
SLICE = 16384  # nodes moved down together (arrays of a few MB)
FIRST_SLICE = 64  # a level's first slice, before its fan-out is known
_ONE = np.uint64(1)
_BYTE_COUNTS = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


def popcount_by_bytes(words: np.ndarray) -> np.ndarray:
    """Set bits of each uint64, by a table of bytes (numpy < 2.0 has no bitwise_count)."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    return _BYTE_COUNTS[words.view(np.uint8)].reshape(words.shape + (8,)).sum(axis=-1, dtype=np.uint8)


popcount = getattr(np, "bitwise_count", popcount_by_bytes)


# -- tables -------------------------------------------------------------------------


@dataclass
class BatchTables:
    """The integer trie of the crossing words and the bucketed fill bitsets."""

    rank_of: np.ndarray  # internal (alphabetical) index → rank of the fill word
    codes: list[np.ndarray]  # codes[j][i]: letter j of internal word i (0..25)
    child: np.ndarray  # child[state*26 + c]: trie state after letter c (0 = dead)
    sig_of: np.ndarray  # trie state → index of its follower set
    roots: tuple[int, ...]  # start state of each crossing line
    allowed: list[np.ndarray]  # per position j: rows (sig, bucket) as void items of a bucket
    relevant: list[np.ndarray] | None  # per position j: (sigs, words of bucket bits) uint64
    buckets: int
    limbs: int  # 64-bit words per bucket
    index_of: dict[str, int]  # fill word → internal index

    @classmethod
    def build(cls, fill_words, cross_words, width: int, first_cross=None) -> BatchTables:
        size = len(fill_words)
        order = sorted(range(size), key=fill_words.__getitem__)
        codes = letter_codes([fill_words[r] for r in order], width)
        child, sigs, roots = _integer_trie(cross_words, width, first_cross)
        follower_sets, sig_of = np.unique(sigs, return_inverse=True)
        total = max(1, -(-size // 64))
        limbs = total if total <= ONE_BUCKET_UP_TO else BUCKET_LIMBS
        buckets = -(-total // limbs)
        member = ((follower_sets[:, None] >> np.arange(26)) & 1).astype(bool)  # (sigs, 26)
        allowed = [_allowed_rows(codes[:, j], member, buckets * limbs, limbs) for j in range(width)]
        relevant = None
        if buckets > 1:
            bucket_of = np.arange(size) // (64 * limbs)
            relevant = [_relevant_buckets(codes[:, j], bucket_of, buckets, follower_sets) for j in range(width)]
        return cls(np.array(order, dtype=np.intp), [np.ascontiguousarray(codes[:, j]) for j in range(width)],
                   child, sig_of.reshape(-1).astype(np.intp), roots, allowed, relevant, buckets, limbs,
                   {fill_words[r]: i for i, r in enumerate(order)})


def letter_codes(words, length: int) -> np.ndarray:
    """(words, length) array of letter numbers 0..25."""
    text = "".join(words).encode("ascii")
    return (np.frombuffer(text, dtype=np.uint8).reshape(len(words), length) - 97).astype(np.intp)


def _integer_trie(cross_words, width: int, first_cross) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """The crossing words as a trie of numbered states: state 0 is dead, 1 the root.

    ``sigs[s]`` is the 26-bit set of letters that may follow state s. The last
    letter of a word only enters its parent's set: the search never needs a
    state for a finished crossing line. A job that restricts crossing line 0
    (``first_cross``) gives that line a root of its own. Built level by level:
    the states at depth k+1 are the distinct (state, letter) pairs at depth k."""
    edges: list[tuple[np.ndarray, np.ndarray]] = []  # (state*26 + letter, child state)
    sig_parts: list[tuple[np.ndarray, np.ndarray]] = []  # (state, letter bit) to OR together
    states = 2  # the dead state and the root

    def add(words, root: int) -> None:
        nonlocal states
        if not words:
            return
        codes = letter_codes(words, len(words[0]))
        at = np.full(len(words), root, dtype=np.intp)
        for k in range(codes.shape[1]):
            sig_parts.append((at, np.left_shift(1, codes[:, k])))
            if k == codes.shape[1] - 1:
                break
            keys, below = np.unique(at * 26 + codes[:, k], return_inverse=True)
            fresh = np.arange(states, states + len(keys))
            edges.append((keys, fresh))
            states += len(keys)
            at = fresh[below.reshape(-1)]

    add(list(cross_words), 1)
    roots = [1] * width
    if first_cross is not None:
        roots[0] = states
        states += 1
        add(sorted(set(first_cross) & set(cross_words)), roots[0])
    child = np.zeros(states * 26, dtype=np.intp)
    for keys, fresh in edges:
        child[keys] = fresh
    sigs = np.zeros(states, dtype=np.int64)
    for at, bits in sig_parts:
        np.bitwise_or.at(sigs, at, bits)
    return child, sigs, tuple(roots)


def _allowed_rows(letters: np.ndarray, member: np.ndarray, words_padded: int, limbs: int) -> np.ndarray:
    """ALLOWED_j[sig] for every follower set, as one void item per (sig, bucket)."""
    by_letter = np.zeros((26, words_padded * 64), dtype=bool)
    by_letter[letters, np.arange(len(letters))] = True
    by_letter = np.packbits(by_letter, axis=1, bitorder="little").view(np.uint64)  # LETTER_j[c]
    table = np.zeros((len(member), words_padded), dtype=np.uint64)
    for c in range(26):
        table[member[:, c]] |= by_letter[c]
    return table.view(f"V{8 * limbs}").reshape(-1)


def _relevant_buckets(letters: np.ndarray, bucket_of: np.ndarray, buckets: int, follower_sets: np.ndarray) -> np.ndarray:
    """RELEVANT_j[sig]: the buckets holding some word whose letter j is in sig."""
    present = np.zeros(buckets, dtype=np.int64)
    np.bitwise_or.at(present, bucket_of, np.left_shift(1, letters.astype(np.int64)))
    hits = (follower_sets[:, None] & present[None, :]) != 0
    padded = np.zeros((len(follower_sets), -(-buckets // 64) * 64), dtype=bool)
    padded[:, :buckets] = hits
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


_TABLES_KEPT = 2
_tables_cache: dict[tuple, BatchTables] = {}


def tables_for(fill_words, cross_words, width: int, first_cross=None) -> BatchTables:
    """Built once per process and word lists (the shards of a parallel run share them)."""
    key = (width, tuple(fill_words), tuple(cross_words), None if first_cross is None else tuple(first_cross))
    tables = _tables_cache.pop(key, None)
    if tables is None:
        tables = BatchTables.build(fill_words, cross_words, width, first_cross)
        while len(_tables_cache) >= _TABLES_KEPT:
            _tables_cache.pop(next(iter(_tables_cache)))
    _tables_cache[key] = tables
    return tables


def set_bits(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, bit index) of every set bit of a (rows, limbs) uint64 array, row by row, ascending.

    Non-zero limbs are found in one pass; their bits are peeled lowest first,
    each limb's k-th bit written to its own slot, so no sort is needed."""
    rows, width = bits.shape
    flat = bits.reshape(-1)
    where = np.flatnonzero(flat != 0)
    limbs = flat[where]
    counts = popcount(limbs).astype(np.intp)
    base = (where % width) * 64
    if len(counts) == 0 or counts.max() == 1:
        return where // width, base + popcount(limbs - _ONE).astype(np.intp)
    slot = np.cumsum(counts) - counts
    index = np.empty(int(counts.sum()), dtype=np.intp)
    while True:
        lowest = limbs & (~limbs + _ONE)
        index[slot] = base + popcount(lowest - _ONE)
        limbs = limbs ^ lowest
        alive = limbs != 0
        if not alive.any():
            break
        limbs, slot, base = limbs[alive], slot[alive] + 1, base[alive]
    return np.repeat(where // width, counts), index


def set_bits_dense(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`set_bits`, by unpacking every bit: faster when many bits are set."""
    rows, width = bits.shape
    flags = np.unpackbits(np.ascontiguousarray(bits).view(np.uint8), axis=1, bitorder="little")
    where = np.flatnonzero(flags)
    return where // (64 * width), where % (64 * width)


def keep_freed_memory() -> None:
    """Ask glibc's malloc to keep freed blocks of up to 32 MB for reuse.

    Each slice allocates arrays of a few MB and frees them. By default glibc
    hands such blocks back to the kernel and takes fresh ones, whose pages
    are then faulted in and zeroed again: on WORDS(1000) that was 167k page
    faults and half a second of system time in a one-second search. With
    these two settings the blocks are reused (18k faults, same peak memory).
    Elsewhere than glibc this does nothing."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks below this come from the reusable heap
        libc.mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD: keep up to this much freed heap
    except (OSError, AttributeError, TypeError):
        pass


# -- the search -----------------------------------------------------------------------


class BatchSearch:
    """Runs the reference's search (a :class:`heuristics.rectangle.RectangleSearch`
    supplies spec, leaves, counts and profile) slice by slice."""

    def __init__(self, search):
        self.search = search
        spec = search.spec
        self.levels, self.width = spec.m, spec.n  # K lines of length W
        self.fill = spec.row_words
        self.tables = tables_for(spec.row_words, spec.col_words, spec.n, spec.first_col)
        self.level_masks = [self._level_mask(i) for i in range(self.levels)]
        self.ordered = search.leaf_checks  # listing or streaming: visit candidates in rank order
        self.trail: list[tuple[np.ndarray, np.ndarray]] = [None] * self.levels  # the slice at each level

    def _level_mask(self, level: int):
        """Fill words allowed on this line by the pattern (and, on line 0, by the job),
        as (bucket bitset rows, buckets with any word); None when every word is."""
        spec, tables = self.search.spec, self.tables
        keep = np.ones(len(self.fill), dtype=bool)
        row = spec.pattern[level] if spec.pattern else "." * self.width
        for j, c in enumerate(row):
            if c != ".":
                keep &= tables.codes[j] == ord(c) - 97
        if level == 0 and spec.first_row is not None:
            chosen = np.zeros(len(self.fill), dtype=bool)
            chosen[[tables.index_of[w] for w in spec.first_row if w in tables.index_of]] = True
            keep &= chosen
        if keep.all():
            return None
        padded = np.zeros(tables.buckets * tables.limbs * 64, dtype=bool)
        padded[: len(keep)] = keep
        bits = np.packbits(padded, bitorder="little").view(np.uint64).reshape(tables.buckets, tables.limbs)
        present = np.asarray(bits.any(axis=1))  # an array (numpy's types also allow a scalar)
        summary = np.packbits(np.pad(present, (0, -len(present) % 64)), bitorder="little").view(np.uint64)
        return bits, summary

    def run(self) -> None:
        """Search the whole tree (raises SearchStopped like the reference)."""
        if not self.fill or not self.search.spec.col_words:
            return
        keep_freed_memory()
        roots = np.array(self.tables.roots, dtype=np.intp).reshape(self.width, 1)
        if self.levels == 1 and not self.ordered:
            self._count_last(roots)
            return
        parents, words = self._candidates(roots, 0)
        self._descend(roots, parents, words, 0)

    def _descend(self, states: np.ndarray, parents: np.ndarray, words: np.ndarray, level: int) -> None:
        """Visit the nodes (parents[i], words[i]) of this level slice by slice, depth first.

        A slice's children are computed at once, so slices near the root, where
        a node has hundreds of candidates, must be short: the slice size adapts
        so that a slice has about SLICE children (bounded memory, and a poll of
        the stop flag every few milliseconds)."""
        search, tables = self.search, self.tables
        last = self.levels - 1
        start, size = 0, SLICE if level + 1 >= last else FIRST_SLICE
        while start < len(words):
            here, chosen = parents[start:start + size], words[start:start + size]
            start += len(chosen)
            self.trail[level] = (here, chosen)
            search.profile[level] += len(chosen)
            search.poll_batch()
            if level == last:
                self._leaves(chosen)
                continue
            after = np.empty((self.width, len(chosen)), dtype=np.intp)  # the crossing states below each node
            for j in range(self.width):
                np.take(tables.child, states[j][here] * 26 + tables.codes[j][chosen], out=after[j])
            if level + 1 == last and not self.ordered:
                self._count_last(after)
                continue
            below = self._candidates(after, level + 1)
            size = max(1, min(SLICE, size * SLICE // max(1, len(below[1]))))
            self._descend(after, *below, level + 1)

    def _buckets(self, sig: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray]:
        """(node, bucket) for every bucket that may hold a candidate of the node."""
        tables = self.tables
        nodes = sig.shape[1]
        if tables.relevant is None:
            return np.arange(nodes), np.zeros(nodes, dtype=np.intp)
        summary = tables.relevant[0][sig[0]]
        for j in range(1, self.width):
            np.bitwise_and(summary, tables.relevant[j][sig[j]], out=summary)
        mask = self.level_masks[level]
        if mask is not None:
            summary &= mask[1]
        return set_bits_dense(summary)

    def _gather(self, states: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The candidate bitsets of each node, bucket by bucket: (node, bucket, bits)."""
        tables = self.tables
        sig = tables.sig_of[states]  # (W, nodes): each crossing line's follower set
        node, bucket = self._buckets(sig, level)
        if tables.relevant is not None:  # several buckets: rows (sig, bucket) of the nodes' buckets
            sig = np.take(sig * tables.buckets, node, axis=1)
            sig += bucket
        bits = None
        for j in range(self.width):
            part = np.take(tables.allowed[j], sig[j]).view(np.uint64).reshape(len(node), tables.limbs)
            bits = part if bits is None else np.bitwise_and(bits, part, out=bits)
        assert bits is not None  # width >= 1: the loop ran
        mask = self.level_masks[level]
        if mask is not None and len(node):
            bits &= mask[0][bucket]
        return node, bucket, bits

    def _candidates(self, states: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray]:
        """(node, internal word index) for every candidate of every node, in visiting order."""
        node, bucket, bits = self._gather(states, level)
        if not len(node):
            return node, node
        item, bit = set_bits(bits)
        parents, words = node[item], bucket[item] * (64 * self.tables.limbs) + bit
        if self.ordered and len(words) > 1:  # the reference's order: by node, then by rank
            order = np.argsort(parents * len(self.fill) + self.tables.rank_of[words], kind="stable")
            parents, words = parents[order], words[order]
        return parents, words

    def _count_last(self, states: np.ndarray) -> None:
        """Counting: the last line's candidates are the completions; add their number."""
        _, _, bits = self._gather(states, self.levels - 1)
        found = int(popcount(bits).sum(dtype=np.int64))
        self.search.profile[-1] += found
        self.search._add_count(found)

    def _leaves(self, chosen: np.ndarray) -> None:
        """Each node of the last level is a rectangle: report them in order."""
        search = self.search
        if not self.ordered:
            search._add_count(len(chosen))
            return
        for i in range(len(chosen)):
            try:
                search._leaf(self._lines(i))
            except SearchStopped as stop:
                if stop.reason == "limit":
                    self._trim_profile(i)
                raise

    def _lines(self, index: int) -> tuple[str, ...]:
        """The K fill words of the leaf at this index of the last slice, found through the trail."""
        ranks = []
        for level in range(self.levels - 1, -1, -1):
            parents, words = self.trail[level]
            ranks.append(int(self.tables.rank_of[words[index]]))
            index = int(parents[index])
        return tuple(self.fill[r] for r in reversed(ranks))

    def _trim_profile(self, index: int) -> None:
        """At the limit, count nodes as the reference does: a slice's nodes after the
        current path were not visited yet (the depth-first order stops on the path)."""
        for level in range(self.levels - 1, -1, -1):
            parents, words = self.trail[level]
            self.search.profile[level] -= len(words) - 1 - index
            index = int(parents[index])
