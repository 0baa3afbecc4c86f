"""An exact search for Bananagrams layouts in a nearly full box (numba).

``--compact`` must rule out boxes of smaller area than the layout it has,
and those boxes are nearly full: 30 tiles in a 4×8 box leave two blanks.
There the blanks can be enumerated, and each *placement* of them is a
crossword to fill: its slots are the maximal runs of ≥ 2 cells across and
down, each must hold a word of the hand's word list, and the letters used
must be exactly the hand. A box is empty when every placement is.

A placement is filled the way crossword compilers do it, not cell by cell:

* each open slot keeps its *candidates* as a bitset over the words of its
  length: those that match its letters so far and that the tiles left can
  complete (a word needing more copies of a letter than the slot holds
  plus the hand has left is out). A node starts from its parent's
  candidates and narrows them by what was just placed, not from scratch;
* arc consistency on the cells: a cell keeps a letter only while a
  candidate of each of its slots has that letter there, and a candidate
  stays only while each of its open cells keeps its letter (``PASSES``
  rounds, smallest slot first: nine nodes in ten are dead ends, and the
  first slot left with no word ends the node);
* every tile left needs a cell that can still take it: a hand with two x's
  and three cells that allow an x is fine, one with room for one x is not;
* branching: the slot with the fewest candidates per open cell, or the
  cells of the letter with the fewest cells left that can take it (a j, a
  q, a second x, but also a third r when the r's are scarce), when those
  are far fewer than the slot's words (``LETTER_POWER``). Either way the
  search fails first, where the placement is tightest.

The placements skip what cannot be a tight layout (``--compact`` tries a
box only after every smaller one is proven empty, so a layout there
touches all four sides) and what cannot be connected, so the first filled
placement is a legal layout (the caller validates it all the same), and a
box whose placements are all exhausted is proven empty for this hand. The
placements are independent, so they are filled on every core at once
(threads: the kernel releases the GIL), about twice as fast on two.

It decides boxes the CP-SAT cell model could not: 21-tile seed 6's 4×6
(empty) and 30-tile seed 1's 4×8 (empty, 0.29 M nodes in 4.6 s on two
threads; the first version of this search took 5.1 M nodes, 230 s on one).
The number of placements, C(R·C, B), is what limits it: it is used for
boxes with few blanks (``MAX_PLACEMENTS``).
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from cpmodel.core.control import Control
from cpmodel.core.specs import BananaSpec
from heuristics.stop_flag import FlagWatch

MAX_PLACEMENTS = 13_000  # boxes with more ways to place the blanks go to CP-SAT (21 tiles: 4x6, C(24, 3) = 2,024; 5x5, C(25, 4) = 12,650)
PASSES = 2  # rounds of arc consistency per node (4 halves the nodes of 30-tile 4x8 and costs more time)
LETTER_POWER = 1.5  # branch on the scarcest letter's cells when cells ** LETTER_POWER < the best slot's words (1: 1.7x the nodes on seven 21- and 30-tile boxes; at most 8 cells, as before: 3.8x)
DENSE = 8  # a slot with more than this many candidates per 64-word chunk is filtered letter by letter, not word by word
FOUND, EMPTY, STOPPED = 1, 0, -1
VOWELS = "aeiou"
VOWEL = 26  # the row of the letter-count tables that counts the vowels together
VOWEL_MASK = sum(1 << (ord(v) - 97) for v in VOWELS)


def blank_placements(rows: int, cols: int, blanks: int) -> int:
    """How many ways to put ``blanks`` blanks in the box (before the skips)."""
    return math.comb(rows * cols, blanks)


def decide_box(spec: BananaSpec, rows: int, cols: int, control: Control | None = None, workers: int | None = None):
    """Fill the rows×cols box with the hand, exactly: ``(status, layout rows or None, stats)``.

    ``status`` is FOUND (a layout touching all four sides), EMPTY (no tight
    layout: every placement exhausted) or STOPPED (the control's stop or time
    limit came first). ``stats``: placements searched and nodes.

    The placements are independent and the kernel releases the GIL, so
    ``workers`` threads (default: one per core) fill them side by side; the
    first layout found stops the others. The roomiest placements go first
    (:func:`_looseness`): an empty box must exhaust them all, but a box that
    holds a layout is decided by the first one filled."""
    control = control or Control()
    if rows * cols > 63:
        raise ValueError(f"a {rows}x{cols} box has more cells than the kernel's 63-bit cell sets")
    tables = _Words(spec, max(rows, cols))
    hand = np.zeros(26, np.int64)
    for ch in spec.hand:
        hand[ord(ch) - 97] += 1
    flag = np.zeros(1, np.int8)  # set by the watch (a stop) or by the first layout found
    stats = {"placements": 0, "nodes": 0}
    outcome: dict = {"layout": None, "cut_short": False}
    lock = threading.Lock()

    def search(blanks: set) -> None:
        if flag[0]:
            outcome["cut_short"] = True
            return
        length, cells, offsets, bits, words = tables.arrays(_slots(rows, cols, blanks))
        status, nodes, grid = fill(length, cells, offsets, bits, words, rows * cols, hand,
                                   _blank_mask(rows, cols, blanks), flag)
        with lock:
            stats["placements"] += 1
            stats["nodes"] += int(nodes)
            if status == FOUND and outcome["layout"] is None:
                outcome["layout"] = _layout(grid, rows, cols, blanks)
                flag[0] = 1
            elif status == STOPPED:
                outcome["cut_short"] = True

    def looseness(blanks: set) -> float:
        if flag[0]:
            return 0.0
        length, cells, offsets, bits, words = tables.arrays(_slots(rows, cols, blanks))
        return _looseness(length, cells, offsets, bits, words, rows * cols, hand, _blank_mask(rows, cols, blanks))

    with FlagWatch(flag, control.stop_reason), ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        placements = list(_placements(rows, cols, rows * cols - spec.size))
        room = list(pool.map(looseness, placements))
        roomiest_first = sorted(range(len(placements)), key=lambda i: -room[i])
        list(pool.map(search, (placements[i] for i in roomiest_first)))
    if outcome["layout"] is not None:
        return FOUND, outcome["layout"], stats
    return (STOPPED if outcome["cut_short"] else EMPTY), None, stats


def _placements(rows: int, cols: int, blanks: int):
    """The blank cells of every placement that can be a tight, connected layout."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    for chosen in itertools.combinations(cells, blanks):
        blank = set(chosen)
        if _touches_all_sides(rows, cols, blank) and _connected(rows, cols, blank):
            yield blank


def _touches_all_sides(rows: int, cols: int, blank: set) -> bool:
    edges = ([(0, c) for c in range(cols)], [(rows - 1, c) for c in range(cols)],
             [(r, 0) for r in range(rows)], [(r, cols - 1) for r in range(rows)])
    return all(any(cell not in blank for cell in edge) for edge in edges)


def _connected(rows: int, cols: int, blank: set) -> bool:
    tiles = {(r, c) for r in range(rows) for c in range(cols)} - blank
    start = next(iter(tiles))
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for cell in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if cell in tiles and cell not in seen:
                seen.add(cell)
                todo.append(cell)
    return len(seen) == len(tiles)


def _slots(rows: int, cols: int, blank: set) -> list[list[int]]:
    """The maximal runs of ≥ 2 cells, across then down, as cell numbers (r·cols + c)."""
    lines = [[(r, c) for c in range(cols)] for r in range(rows)] + [[(r, c) for r in range(rows)] for c in range(cols)]
    slots = []
    for line in lines:
        run: list[int] = []
        for cell in [*line, None]:  # None closes the last run
            if cell is not None and cell not in blank:
                run.append(cell[0] * cols + cell[1])
                continue
            if len(run) >= 2:
                slots.append(run)
            run = []
    return slots


def _blank_mask(rows: int, cols: int, blank: set) -> np.ndarray:
    mask = np.zeros(rows * cols, np.bool_)
    for r, c in blank:
        mask[r * cols + c] = True
    return mask


def _layout(grid: np.ndarray, rows: int, cols: int, blank: set) -> tuple[str, ...]:
    return tuple("".join("." if (r, c) in blank else chr(97 + int(grid[r * cols + c])) for c in range(cols))
                 for r in range(rows))


class _Words:
    """The hand's words by length, as letter rows and as bitsets for the kernel.

    For length L, with the words of that length numbered 0..n−1:
    ``at[p, a]`` holds the words with letter a at position p, and
    ``over[a, t]`` the words with more than t copies of a (``over[VOWEL, t]``:
    more than t vowels). All of them live in one flat uint64 array; a slot
    finds its length's by offsets."""

    def __init__(self, spec: BananaSpec, longest: int):
        parts, letters = [], []
        self.offsets: dict[int, tuple[int, int, int, int, int]] = {}  # L -> (at, every, over, chunks, letters)
        flat, flat_letters = 0, 0
        for length in range(2, longest + 1):
            words = [w for w in spec.words if len(w) == length]
            chunks = max(1, (len(words) + 63) // 64)
            at = np.zeros((length, 26, chunks), np.uint64)
            over = np.zeros((VOWEL + 1, length, chunks), np.uint64)  # row VOWEL: the vowels counted as one letter
            every = np.zeros(chunks, np.uint64)
            for i, word in enumerate(words):
                bit = np.uint64(1) << np.uint64(i & 63)
                every[i >> 6] |= bit
                for p, ch in enumerate(word):
                    at[p, ord(ch) - 97, i >> 6] |= bit
                for ch in set(word):
                    over[ord(ch) - 97, :word.count(ch), i >> 6] |= bit
                over[VOWEL, :sum(word.count(v) for v in VOWELS), i >> 6] |= bit
            self.offsets[length] = (flat, flat + at.size, flat + at.size + every.size, chunks, flat_letters)
            parts += [at.ravel(), every, over.ravel()]
            flat += at.size + every.size + over.size
            letters.append(np.array([[ord(ch) - 97 for ch in w] for w in words], np.int8).ravel())
            flat_letters += len(words) * length
        self.bits = np.concatenate(parts)
        self.letters = np.concatenate(letters) if letters else np.zeros(0, np.int8)

    def arrays(self, slots: list[list[int]]):
        """The kernel's view of ``slots``: lengths, cells, and each slot's offsets into the flat arrays."""
        longest = max(len(s) for s in slots)
        cells = np.zeros((len(slots), longest), np.int64)
        for i, slot in enumerate(slots):
            cells[i, :len(slot)] = slot
        length = np.array([len(s) for s in slots], np.int64)
        offsets = np.array([self.offsets[len(s)] for s in slots], np.int64)  # at, every, over, chunks, letters
        return length, cells, offsets, self.bits, self.letters


@njit(cache=True, nogil=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _hand_mask(rem):
    m = 0
    for a in range(26):
        if rem[a] > 0:
            m |= 1 << a
    return m


@njit(cache=True, nogil=True)
def _candidates(s, length, cells, offsets, bits, grid, rem, cands, held):
    """Slot ``s``'s candidates into ``cands[s]``: its letters so far, and what the tiles left can complete."""
    L, chunks = length[s], offsets[s, 3]
    for k in range(chunks):
        cands[s, k] = bits[offsets[s, 1] + k]
    held[:] = 0
    for p in range(L):
        a = grid[cells[s, p]]
        if a >= 0:
            held[a] += 1
            base = offsets[s, 0] + (p * 26 + a) * chunks
            for k in range(chunks):
                cands[s, k] &= bits[base + k]
    for a in range(26):
        most = rem[a] + held[a]  # copies of a this slot can hold
        if most < L:
            base = offsets[s, 2] + (a * L + most) * chunks
            for k in range(chunks):
                cands[s, k] &= ~bits[base + k]


@njit(cache=True, nogil=True)
def _narrow(s, length, cells, offsets, bits, words, grid, cands, allowed, spare):
    """One round of arc consistency on slot ``s``: its candidates keep only letters its
    open cells allow, and its open cells only letters some candidate has there.
    1 if anything changed, 0 if not, -1 when an open cell is left with no letter (a dead end)."""
    L, chunks = length[s], offsets[s, 3]
    count = 0
    for k in range(chunks):
        count += _popcount(cands[s, k])
    changed = False
    if count > DENSE * chunks:  # many words: letter by letter over the bitsets
        for p in range(L):
            c = cells[s, p]
            if grid[c] >= 0:
                continue
            base = offsets[s, 0] + p * 26 * chunks
            seen = 0
            spare[:chunks] = 0
            for a in range(26):
                if (allowed[c] >> a) & 1:
                    for k in range(chunks):
                        if cands[s, k] & bits[base + a * chunks + k]:
                            seen |= 1 << a
                            break
                    if (seen >> a) & 1:
                        for k in range(chunks):
                            spare[k] |= bits[base + a * chunks + k]
            if seen == 0:
                return -1
            if seen != allowed[c]:
                allowed[c] = seen
                changed = True
            for k in range(chunks):
                kept = cands[s, k] & spare[k]
                if kept != cands[s, k]:
                    cands[s, k] = kept
                    changed = True
        return 1 if changed else 0
    seen_at = np.zeros(L, np.int64)  # few words: word by word
    for k in range(chunks):
        left = cands[s, k]
        kept = left
        while left:
            low = left & (~left + np.uint64(1))
            left ^= low
            w = offsets[s, 4] + (k * 64 + _popcount(low - np.uint64(1))) * L
            fits = True
            for p in range(L):
                c = cells[s, p]
                if grid[c] < 0 and not (allowed[c] >> words[w + p]) & 1:
                    fits = False
                    break
            if fits:
                for p in range(L):
                    seen_at[p] |= 1 << words[w + p]
            else:
                kept ^= low
        if kept != cands[s, k]:
            cands[s, k] = kept
            changed = True
    for p in range(L):
        c = cells[s, p]
        if grid[c] < 0 and allowed[c] & seen_at[p] != allowed[c]:
            allowed[c] &= seen_at[p]
            if allowed[c] == 0:
                return -1
            changed = True
    return 1 if changed else 0


@njit(cache=True, nogil=True)
def _analyse(length, cells, offsets, bits, words, grid, rem, filled, is_blank, cands, allowed, spare):
    """Propagate at one node: (status, kind, choice). status 0: dead end, 1: every slot filled,
    2: branch on slot ``choice`` (kind 0, its candidates in cands) or on letter ``choice``'s cell (kind 1).

    Most nodes are dead ends (nine in ten), found when some slot is left with
    no word: the slots are narrowed smallest first, and the first empty one ends the node."""
    slots, n = length.shape[0], grid.shape[0]
    sizes = np.full(slots, 1 << 40, np.int64)
    for s in range(slots):
        if not filled[s]:
            size = 0
            for k in range(offsets[s, 3]):
                size += _popcount(cands[s, k])
            if size == 0:
                return 0, 0, 0
            sizes[s] = size
    order = _smallest_first(sizes)
    for _ in range(PASSES):
        changed = False
        for s in order:
            if not filled[s]:
                outcome = _narrow(s, length, cells, offsets, bits, words, grid, cands, allowed, spare)
                if outcome < 0:
                    return 0, 0, 0
                if outcome:
                    changed = True
        if not changed:
            break
    best, best_rate, best_count = -1, 1e300, 0
    for s in range(slots):
        if filled[s]:
            continue
        count = 0
        for k in range(offsets[s, 3]):
            count += _popcount(cands[s, k])
        if count == 0:
            return 0, 0, 0
        open_cells = 0
        for p in range(length[s]):
            if grid[cells[s, p]] < 0:
                open_cells += 1
        rate = -1.0 if open_cells == 0 else math.log(count) / open_cells  # log-branching per cell it fills
        if rate < best_rate:
            best, best_rate, best_count = s, rate, count
    for c in range(n):
        if grid[c] < 0 and not is_blank[c] and allowed[c] == 0:
            return 0, 0, 0
    if best < 0:
        return 1, 0, 0
    if not _vowels_fit(length, cells, offsets, bits, grid, rem, filled, cands):
        return 0, 0, 0
    letter, fewest = -1, 1 << 30
    for a in range(26):
        if rem[a] > 0:
            room = 0
            for c in range(n):
                room += (allowed[c] >> a) & 1
            if room < rem[a]:  # a tile with nowhere to go
                return 0, 0, 0
            if room < fewest:
                letter, fewest = a, room
    if best_rate > 0 and letter >= 0 and fewest ** LETTER_POWER < best_count:
        return 2, 1, letter
    return 2, 0, best


@njit(cache=True, nogil=True)
def _looseness(length, cells, offsets, bits, words, n, hand, is_blank):
    """How much room a placement leaves after the root's propagation: Σ log(candidates)
    over its slots (-inf for a dead end). 30-tile seed 7's 3×11 layout is the 1,968th of
    5,233 placements in enumeration order and the 104th by this; seed 1's 2,595th and 142nd."""
    slots, widest = length.shape[0], 1
    for s in range(slots):
        widest = max(widest, offsets[s, 3])
    grid = np.full(n, -1, np.int8)
    filled = np.zeros(slots, np.bool_)
    cands = np.zeros((slots, widest), np.uint64)
    allowed = np.zeros(n, np.int64)
    _root_state(length, cells, offsets, bits, grid, hand, filled, np.zeros(n, np.int64), is_blank, cands, allowed,
                np.zeros(26, np.int64))
    status, _, _ = _analyse(length, cells, offsets, bits, words, grid, hand, filled, is_blank, cands, allowed,
                            np.zeros(widest, np.uint64))
    if status == 0:
        return -math.inf
    room = 0.0
    for s in range(slots):
        count = 0
        for k in range(offsets[s, 3]):
            count += _popcount(cands[s, k])
        room += math.log(count)
    return room


@njit(cache=True, nogil=True)
def _vowels_fit(length, cells, offsets, bits, grid, rem, filled, cands):
    """The open slots across are disjoint, and so are those down: together they need at
    least the sum of each one's fewest vowels (over its candidates, in its open cells).
    A hand short of vowels fails here long before any one slot runs dry (30-tile seed
    7's 3×11: 9 M nodes instead of 43 M)."""
    left = 0
    for a in range(26):
        if (VOWEL_MASK >> a) & 1:
            left += rem[a]
    need_across, need_down = 0, 0
    for s in range(length.shape[0]):
        if filled[s]:
            continue
        L, chunks = length[s], offsets[s, 3]
        held = 0
        for p in range(L):
            letter = grid[cells[s, p]]
            if letter >= 0 and (VOWEL_MASK >> letter) & 1:
                held += 1
        fewest = L
        for t in range(held, L):  # the first t with a candidate holding at most t vowels
            base = offsets[s, 2] + (VOWEL * L + t) * chunks
            for k in range(chunks):
                if cands[s, k] & ~bits[base + k]:
                    fewest = t
                    break
            if fewest == t:
                break
        if cells[s, 1] - cells[s, 0] == 1:
            need_across += fewest - held
        else:
            need_down += fewest - held
    return need_across <= left and need_down <= left


@njit(cache=True, nogil=True)
def _smallest_first(sizes):
    """The slots by size, by insertion: a handful of slots, and np.argsort would add a second to the compile."""
    order = np.arange(sizes.shape[0])
    for i in range(1, order.shape[0]):
        j = i
        while j > 0 and sizes[order[j - 1]] > sizes[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    return order


@njit(cache=True, nogil=True)
def fill(length, cells, offsets, bits, words, n, hand, is_blank, flag):
    """Depth-first fill of one placement: (FOUND, nodes, grid), (EMPTY, nodes, _) or (STOPPED, nodes, _).

    A frame is a slot (its remaining candidates) or a letter (its remaining
    cells). Trying a letter in a cell and moving on forbids it there for the
    rest of that frame (``forbid``), so no layout is visited twice. Each depth
    keeps its node's candidates and cell letters after propagation: a child
    starts from them, not from scratch."""
    slots = length.shape[0]
    widest = 1
    for s in range(slots):
        widest = max(widest, offsets[s, 3])
    depth_max = slots + n + 1
    grid = np.full(n, -1, np.int8)
    rem = hand.copy()
    filled = np.zeros(slots, np.bool_)
    forbid = np.zeros(n, np.int64)  # letters ruled out of a cell by earlier siblings of a letter frame
    cands_at = np.zeros((depth_max + 1, slots, widest), np.uint64)  # each node's candidates, after propagation
    allowed_at = np.zeros((depth_max + 1, n), np.int64)  # and its cells' letters
    held = np.zeros(26, np.int64)
    spare = np.zeros(widest, np.uint64)
    kind = np.zeros(depth_max, np.int64)
    chosen = np.zeros(depth_max, np.int64)
    frame_cands = np.zeros((depth_max, widest), np.uint64)
    chunk = np.zeros(depth_max, np.int64)
    cells_left = np.zeros(depth_max, np.int64)
    forbade = np.zeros(depth_max, np.int64)  # cells where this letter frame set a forbid bit
    placed = np.zeros((depth_max, 64), np.int64)
    n_placed = np.zeros(depth_max, np.int64)
    nodes, d, enter, status = 0, np.int64(0), True, 2  # np.int64: a literal 0 compiled _advance twice
    while True:
        if enter:
            nodes += 1
            if flag[0]:
                return STOPPED, nodes, grid
            cands, allowed = cands_at[d], allowed_at[d]
            if d == 0:
                _root_state(length, cells, offsets, bits, grid, rem, filled, forbid, is_blank, cands, allowed, held)
            else:
                _child_state(length, cells, offsets, bits, grid, rem, filled, forbid, cands_at[d - 1], allowed_at[d - 1],
                             cands, allowed, placed[d - 1], n_placed[d - 1])
            status, k, choice = _analyse(length, cells, offsets, bits, words, grid, rem, filled, is_blank, cands,
                                         allowed, spare)
            if status == 1:
                return FOUND, nodes, grid
            if status == 2:
                kind[d], chosen[d], n_placed[d] = k, choice, 0
                if k == 0:
                    chunk[d] = 0
                    for i in range(offsets[choice, 3]):  # a loop: a slice copy would compile numba's shape-mismatch message (4 s)
                        frame_cands[d, i] = cands[choice, i]
                else:
                    cells_left[d], forbade[d] = 0, 0
                    for c in range(n):
                        if (allowed[c] >> choice) & 1:
                            cells_left[d] |= 1 << c
        if not enter or status == 2:
            if _advance(d, kind, chosen, frame_cands, chunk, cells_left, placed, n_placed, length, cells, offsets,
                        words, grid, rem, filled, forbid):
                d, enter = d + 1, True
                continue
            if kind[d] == 1:  # the frame is done: lift its forbids
                for c in range(n):
                    if (forbade[d] >> c) & 1:
                        forbid[c] &= ~(1 << chosen[d])
        d -= 1  # a dead end or an exhausted frame: back to the parent, undo its placement
        if d < 0:
            return EMPTY, nodes, grid
        _undo(d, kind, chosen, placed, n_placed, forbade, grid, rem, filled, forbid)
        enter = False


@njit(cache=True, nogil=True)
def _advance(d, kind, chosen, frame_cands, chunk, cells_left, placed, n_placed, length, cells, offsets, words,
             grid, rem, filled, forbid):
    """Place frame ``d``'s next word (slot) or cell (letter); False when it has none left."""
    if kind[d] == 1:
        a = chosen[d]
        while cells_left[d]:
            low = cells_left[d] & -cells_left[d]
            cells_left[d] ^= low
            c = 0
            while (low >> c) != 1:
                c += 1
            if grid[c] < 0 and not (forbid[c] >> a) & 1 and rem[a] > 0:
                grid[c] = a
                rem[a] -= 1
                placed[d, 0], n_placed[d] = c, 1
                return True
        return False
    s = chosen[d]
    L, chunks = length[s], offsets[s, 3]
    while chunk[d] < chunks:
        k = chunk[d]
        left = frame_cands[d, k]
        if left == 0:
            chunk[d] += 1
            continue
        low = left & (~left + np.uint64(1))
        frame_cands[d, k] = left ^ low
        w = offsets[s, 4] + (k * 64 + _popcount(low - np.uint64(1))) * L
        m = 0
        fits = True
        for p in range(L):
            c = cells[s, p]
            if grid[c] < 0:
                a = words[w + p]
                if rem[a] == 0 or (forbid[c] >> a) & 1:
                    fits = False
                    break
                rem[a] -= 1
                grid[c] = a
                placed[d, m] = c
                m += 1
        if fits:
            n_placed[d] = m
            filled[s] = True
            return True
        for j in range(m):
            rem[grid[placed[d, j]]] += 1
            grid[placed[d, j]] = -1
    return False


@njit(cache=True, nogil=True)
def _undo(d, kind, chosen, placed, n_placed, forbade, grid, rem, filled, forbid):
    """Take back frame ``d``'s placement; a letter frame then forbids its letter in that cell."""
    for j in range(n_placed[d]):
        c = placed[d, j]
        rem[grid[c]] += 1
        grid[c] = -1
    if kind[d] == 0:
        filled[chosen[d]] = False
    else:
        c, a = placed[d, 0], chosen[d]
        if not (forbid[c] >> a) & 1:
            forbid[c] |= 1 << a
            forbade[d] |= 1 << c
    n_placed[d] = 0


@njit(cache=True, nogil=True)
def _root_state(length, cells, offsets, bits, grid, rem, filled, forbid, is_blank, cands, allowed, held):
    """The root's candidates and cell letters, from scratch."""
    for s in range(length.shape[0]):
        if not filled[s]:
            _candidates(s, length, cells, offsets, bits, grid, rem, cands, held)
    hand = _hand_mask(rem)
    for c in range(grid.shape[0]):
        allowed[c] = 0 if grid[c] >= 0 or is_blank[c] else hand & ~forbid[c]


@njit(cache=True, nogil=True)
def _child_state(length, cells, offsets, bits, grid, rem, filled, forbid, parent_cands, parent_allowed,
                 cands, allowed, placed, n_placed):
    """A child's candidates and cell letters: its parent's, after propagation, narrowed
    by what the parent's frame just placed. The pattern changes only in the slots
    through the new cells, and the tiles left only for the letters just used: a
    slot can now hold at most ``rem[a]`` more copies of such a letter ``a``."""
    new_cells, new_letters = 0, 0
    for j in range(n_placed):
        new_cells |= 1 << placed[j]
        new_letters |= 1 << grid[placed[j]]
    hand = _hand_mask(rem)
    for c in range(grid.shape[0]):
        allowed[c] = 0 if grid[c] >= 0 else parent_allowed[c] & hand & ~forbid[c]
    for s in range(length.shape[0]):
        if filled[s]:
            continue
        L, chunks = length[s], offsets[s, 3]
        for k in range(chunks):
            cands[s, k] = parent_cands[s, k]
        for p in range(L):
            c = cells[s, p]
            if (new_cells >> c) & 1:
                base = offsets[s, 0] + (p * 26 + grid[c]) * chunks
                for k in range(chunks):
                    cands[s, k] &= bits[base + k]
        for a in range(26):
            if (new_letters >> a) & 1:
                most = rem[a]  # copies of a this slot can hold: the tiles left and those already in it
                for p in range(L):
                    if grid[cells[s, p]] == a:
                        most += 1
                if most < L:
                    base = offsets[s, 2] + (a * L + most) * chunks
                    for k in range(chunks):
                        cands[s, k] &= ~bits[base + k]
