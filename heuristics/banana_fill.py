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
  stays only while each of its open cells keeps its letter (one round,
  ``PASSES``, smallest slot first: nine nodes in ten are dead ends, and the
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
(threads: the kernel releases the GIL), about twice as fast on two. They
are enumerated, screened at the root and filled in batches inside numba:
paying Python per placement, the 290,481 of a 5×7 box with five blanks
took 50 s; in batches, 11 s.

A box that holds a layout is decided by the first placement filled, so
the order matters: roomiest first, by Σ log(candidates) after the root's
propagation, less ``VOWEL_COST`` per vowel the slots need there (a
placement that is hungry for vowels is seldom the one that fills).

It decides boxes the CP-SAT cell model could not: 21-tile seed 6's 4×6
(empty), 30-tile seed 1's 4×8 (empty, 0.29 M nodes in 4.6 s on two
threads; the first version of this search took 5.1 M nodes, 230 s on
one) and 30-tile seed 3's 5×7 (a layout, 11 s; CP-SAT: unknown at 105 s).
The number of placements, C(R·C, B), is what limits it: it is used for
boxes with few blanks (``MAX_PLACEMENTS``).
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from cpmodel.core.control import Control
from cpmodel.core.specs import BananaSpec
from heuristics.stop_flag import FlagWatch

MAX_PLACEMENTS = 400_000  # boxes with more ways to place the blanks go to CP-SAT (30 tiles: 5x7, C(35, 5) = 324,632)
SCREEN_BATCH = 4096  # placements per call of the root screen
FILL_BATCH = 16  # placements per call of the fill: small, so that the roomiest go first on every thread
PASSES = 1  # rounds of arc consistency per node: a child starts from its parent's propagated state, so one is enough (2: 25% fewer nodes, 20-35% more time)
LETTER_POWER = 1.5  # branch on the scarcest letter's cells when cells ** LETTER_POWER < the best slot's words (1: 1.7x the nodes on seven 21- and 30-tile boxes; at most 8 cells, as before: 3.8x)
DENSE = 8  # a slot with more than this many candidates per 64-word chunk is filtered letter by letter, not word by word
VOWEL_COST = 2.0  # placement order: each vowel its slots need at the root counts as this much less room
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

    Two passes over the placements, each on ``workers`` threads (default: one
    per core; the kernels release the GIL), in batches so that Python is not
    paid per placement (a 5×7 box with five blanks has 290,481 of them):

    1. the *screen* propagates each placement's root (:func:`_looseness`): a
       placement dead there is done with, the others get their room;
    2. the others are filled, roomiest first: an empty box must exhaust them
       all, but a box that holds a layout is decided by the first one filled,
       which stops the others."""
    control = control or Control()
    if rows * cols > 63:
        raise ValueError(f"a {rows}x{cols} box has more cells than the kernel's 63-bit cell sets")
    tables = _Words(spec, max(rows, cols))
    hand = np.zeros(26, np.int64)
    for ch in spec.hand:
        hand[ord(ch) - 97] += 1
    box = (rows, cols, tables.by_length, tables.bits, tables.letters, hand)
    flag = np.zeros(1, np.int8)  # set by the watch (a stop) or by the first layout found
    masks = _placement_masks(rows, cols, rows * cols - spec.size)
    room = np.full(len(masks), -np.inf)
    outcome: dict = {"grid": None, "mask": 0, "cut_short": False, "placements": 0, "nodes": 0}
    lock = threading.Lock()

    def screen(span: tuple[int, int]) -> None:
        done = _screen(masks, span[0], span[1], *box, flag, room)
        if done < span[1]:
            outcome["cut_short"] = True

    def search(order: np.ndarray) -> None:
        status, done, nodes, grid = _fill_each(masks, order, *box, flag)
        with lock:
            outcome["placements"] += done
            outcome["nodes"] += nodes
            if status == FOUND and outcome["grid"] is None:
                outcome["grid"], outcome["mask"] = grid, masks[order[done - 1]]
                flag[0] = 1
            elif status == STOPPED:
                outcome["cut_short"] = True

    with FlagWatch(flag, control.stop_reason), ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        list(pool.map(screen, _spans(len(masks), SCREEN_BATCH)))
        alive = np.flatnonzero(room > -np.inf)
        roomiest_first = alive[np.argsort(-room[alive], kind="stable")]
        dead = len(masks) - len(alive)  # each decided at its root: one node
        outcome["placements"], outcome["nodes"] = dead, dead
        if not outcome["cut_short"]:
            list(pool.map(search, (roomiest_first[i:i + FILL_BATCH] for i in range(0, len(alive), FILL_BATCH))))
    stats = {"placements": outcome["placements"], "nodes": outcome["nodes"]}
    if outcome["grid"] is not None:
        return FOUND, _layout(outcome["grid"], rows, cols, outcome["mask"]), stats
    return (STOPPED if outcome["cut_short"] else EMPTY), None, stats


def _spans(total: int, batch: int) -> list[tuple[int, int]]:
    return [(i, min(i + batch, total)) for i in range(0, total, batch)]


def _layout(grid: np.ndarray, rows: int, cols: int, blank_mask: int) -> tuple[str, ...]:
    return tuple("".join("." if (blank_mask >> (r * cols + c)) & 1 else chr(97 + int(grid[r * cols + c]))
                         for c in range(cols)) for r in range(rows))


class _Words:
    """The hand's words by length, as letter rows and as bitsets for the kernel.

    For length L, with the words of that length numbered 0..n−1:
    ``at[p, a]`` holds the words with letter a at position p, and
    ``over[a, t]`` the words with more than t copies of a (``over[VOWEL, t]``:
    more than t vowels). All of them live in one flat uint64 array; a slot
    finds its length's by the offsets in ``by_length``."""

    def __init__(self, spec: BananaSpec, longest: int):
        parts, letters = [], []
        self.by_length = np.zeros((longest + 1, 5), np.int64)  # row L: offsets of at, every, over; chunks; letters
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
            self.by_length[length] = (flat, flat + at.size, flat + at.size + every.size, chunks, flat_letters)
            parts += [at.ravel(), every, over.ravel()]
            flat += at.size + every.size + over.size
            letters.append(np.array([[ord(ch) - 97 for ch in w] for w in words], np.int8).ravel())
            flat_letters += len(words) * length
        self.bits = np.concatenate(parts)
        self.letters = np.concatenate(letters) if letters else np.zeros(0, np.int8)


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
    over its slots, less ``VOWEL_COST`` per vowel they need (-inf for a dead end).
    In enumeration order 30-tile seed 7's 3×11 layout came after 1,967 of its 5,233
    placements; ordered by room alone the box took 63 s, with the vowels counted 31 s."""
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
    return room - VOWEL_COST * _vowels_needed(length, cells, offsets, bits, grid, filled, cands)


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
    return _vowels_needed(length, cells, offsets, bits, grid, filled, cands) <= left


@njit(cache=True, nogil=True)
def _vowels_needed(length, cells, offsets, bits, grid, filled, cands):
    """The fewest vowels the open slots need: the larger of the sums across and down."""
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
    return max(need_across, need_down)


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
def _placement_masks(rows, cols, blanks):
    """The blank cells (bit r·cols + c) of every placement that can be a tight, connected
    layout, in the order of itertools.combinations."""
    n = rows * cols
    total = 1
    for k in range(blanks):
        total = total * (n - k) // (k + 1)
    kept = np.empty(total, np.int64)
    count = 0
    chosen = np.arange(blanks)
    while True:
        blank = np.int64(0)
        for i in range(blanks):
            blank |= np.int64(1) << chosen[i]
        if _tight_and_connected(blank, rows, cols):
            kept[count] = blank
            count += 1
        i = blanks - 1  # the next combination: raise the last index that can rise
        while i >= 0 and chosen[i] == n - blanks + i:
            i -= 1
        if i < 0:
            return kept[:count]
        chosen[i] += 1
        for j in range(i + 1, blanks):
            chosen[j] = chosen[j - 1] + 1


@njit(cache=True, nogil=True)
def _tight_and_connected(blank, rows, cols):
    """The tiles touch all four sides of the box, and they are one piece (a flood fill over bits)."""
    n = rows * cols
    tiles = ((np.int64(1) << n) - 1) & ~blank
    first_col, last_col = np.int64(0), np.int64(0)
    for r in range(rows):
        first_col |= np.int64(1) << (r * cols)
        last_col |= np.int64(1) << (r * cols + cols - 1)
    top = (np.int64(1) << cols) - 1
    bottom = top << ((rows - 1) * cols)
    if not (tiles & top and tiles & bottom and tiles & first_col and tiles & last_col):
        return False
    reach = tiles & -tiles
    while True:
        grown = (reach | ((reach & ~last_col) << 1) | ((reach & ~first_col) >> 1) | (reach << cols) | (reach >> cols)) & tiles
        if grown == reach:
            return reach == tiles
        reach = grown


@njit(cache=True, nogil=True)
def _slot_arrays(blank, rows, cols, by_length):
    """The kernel's view of one placement: its slots (maximal runs of ≥ 2 cells, across
    then down, as cell numbers), their lengths, and each one's offsets into the word tables."""
    n = rows * cols
    cells = np.zeros((n, max(rows, cols)), np.int64)
    length = np.zeros(n, np.int64)
    slots = 0
    for direction in range(2):  # 0: across, 1: down
        lines, size = (rows, cols) if direction == 0 else (cols, rows)
        for line in range(lines):
            run = 0
            for k in range(size + 1):  # k == size closes the last run
                c = line * cols + k if direction == 0 else k * cols + line
                if k < size and not (blank >> c) & 1:
                    cells[slots, run] = c
                    run += 1
                    continue
                if run >= 2:
                    length[slots] = run
                    slots += 1
                run = 0
    offsets = np.zeros((slots, 5), np.int64)
    for s in range(slots):
        for k in range(5):  # not a row copy: that would compile numba's shape checks (seconds)
            offsets[s, k] = by_length[length[s], k]
    return length[:slots], cells[:slots], offsets


@njit(cache=True, nogil=True)
def _blank_cells(blank, n):
    is_blank = np.zeros(n, np.bool_)
    for c in range(n):
        is_blank[c] = (blank >> c) & 1
    return is_blank


@njit(cache=True, nogil=True)
def _screen(masks, first, last, rows, cols, by_length, bits, words, hand, flag, room):
    """``room[i]`` = :func:`_looseness` of placements first..last−1; returns how far it got before a stop."""
    for i in range(first, last):
        if flag[0]:
            return i
        length, cells, offsets = _slot_arrays(masks[i], rows, cols, by_length)
        room[i] = _looseness(length, cells, offsets, bits, words, rows * cols, hand, _blank_cells(masks[i], rows * cols))
    return last


@njit(cache=True, nogil=True)
def _fill_each(masks, order, rows, cols, by_length, bits, words, hand, flag):
    """Fill the placements ``order`` names, one after another: (status, placements done,
    nodes, grid), stopping at the first layout (FOUND, the last one done holds it) or stop."""
    n, nodes = rows * cols, 0
    grid = np.full(n, -1, np.int8)
    for j in range(order.shape[0]):
        blank = masks[order[j]]
        length, cells, offsets = _slot_arrays(blank, rows, cols, by_length)
        status, more, grid = fill(length, cells, offsets, bits, words, n, hand, _blank_cells(blank, n), flag)
        nodes += more
        if status == FOUND:
            return FOUND, j + 1, nodes, grid
        if status == STOPPED:
            return STOPPED, j, nodes, grid
    return EMPTY, order.shape[0], nodes, grid


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
