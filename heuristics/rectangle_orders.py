r"""Fill orders and lookahead for word rectangles: a study kernel (issue 13).

Not used by the solver: :mod:`heuristics.rectangle` fills one direction's
lines in order (Algorithm B, the same nodes as Knuth's BACK-MXN-WORDS-NEW).
This module asks whether *other orders* or *lookahead* take fewer nodes,
with one small search that can do all of them, so that the variants differ
only in the idea being measured (benchmarks/rect_orders.py compares them).

The grid has K fill lines of width W (the direction
:func:`heuristics.rectangle.choose_orientation` picks; the spec is transposed
so they are the rows) and W crossing lines of length K. A *slot* is any of
the K + W lines. Each slot has a pattern: its letters so far, '.' where free.

Candidates of a slot (the only filter every variant uses):

    cands(s) = ⋂_{p}  ⋃_{c ∈ L(s, p)} LETTER[s's direction][p][c],

where L(s, p) are the letters that the slot t crossing s at p still allows
there: the letters at that place of t's words that match t's pattern. A
placed word therefore never kills a crossing line, and in the static order
cands(row l) is exactly Algorithm B's C_l (π_j prefix ↔ column pattern).

Variants (the two knobs of the study):

* ``order``:  "static"  fill lines 0, 1, …, K-1 (Algorithm B);
  "lines"   next, the unfilled fill line with the fewest candidates
  (dynamic ordering in one direction);  "both"  next, the unfilled row *or
  column* with the fewest candidates (a crossword filler's most constrained
  slot). Ties go to the lowest slot (rows first).
* ``lookahead``: a word counts as a node only if, once placed, every slot
  still open, in both directions, has a candidate (forward checking). Without
  it a node is any word that passes its crossing lines, as in Algorithm B and
  Knuth's program, so a dead end is found one level later, by its child.

A node is a placed word that passed the check; its depth is the number of
words placed before it (Knuth's levels). With every cell filled the
rectangle is complete: the open slots are then determined and are words.
When the slot chosen is the last one with free cells, every candidate
completes a rectangle, so they are counted in one popcount, as Algorithm B
does on its last level.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cpmodel.core.specs import RectangleSpec
from heuristics.rectangle import _bitset, _members, choose_orientation

ORDERS = ("static", "lines", "both")
_CHECK_EVERY = 4096  # nodes between looks at the clock


class Budget(Exception):
    """The search ran out of seconds (the count so far is then incomplete)."""


@dataclass
class OrderResult:
    order: str
    lookahead: bool
    orientation: str
    count: int
    profile: list[int]
    seconds: float
    cpu: float
    complete: bool
    tried: int  # words placed and checked, nodes or not (lookahead rejects some: work without a node)
    solutions: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def nodes(self) -> int:
        return sum(self.profile)


class Direction:
    """The words of one direction and their letter bitsets LETTER[p][c]."""

    def __init__(self, words: tuple[str, ...], length: int):
        self.words = words
        self.length = length
        places: list[dict[str, list[int]]] = [{} for _ in range(length)]
        for index, word in enumerate(words):
            for p, c in enumerate(word):
                places[p].setdefault(c, []).append(index)
        self.letter = [{c: _bitset(ix, len(words)) for c, ix in place.items()} for place in places]
        self.every = (1 << len(words)) - 1
        self.letters_memo: dict[tuple[str, int], str] = {}  # (pattern, place) → letters its words allow there

    def matching(self, pattern: str) -> int:
        """The words that agree with the pattern's fixed letters."""
        bits = self.every
        for p, c in enumerate(pattern):
            if c != ".":
                bits &= self.letter[p].get(c, 0)
        return bits

    def letters_at(self, pattern: str, place: int) -> str:
        """L: the letters that words matching ``pattern`` have at ``place``."""
        key = (pattern, place)
        letters = self.letters_memo.get(key)
        if letters is None:
            bits = self.matching(pattern)
            letters = "".join(c for c, b in sorted(self.letter[place].items()) if bits & b)
            self.letters_memo[key] = letters
        return letters


class OrderSearch:
    """One search over the K + W slots with a chosen order and check."""

    def __init__(self, spec: RectangleSpec, order: str = "static", lookahead: bool = False,
                 orientation: str = "auto", keep_solutions: bool = False, seconds: float | None = None):
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}")
        self.orientation = choose_orientation(spec) if orientation == "auto" else orientation
        self.transpose = self.orientation == "cols"
        spec = spec.transposed() if self.transpose else spec
        self.order, self.lookahead, self.keep = order, lookahead, keep_solutions
        self.K, self.W = spec.m, spec.n
        # slots 0..K-1 are the fill lines (rows), K..K+W-1 the crossing lines (columns)
        self.dirs = (Direction(spec.row_words, self.W), Direction(spec.col_words, self.K))
        self.patterns = ["." * self.W] * self.K + ["." * self.K] * self.W
        self.open = set(range(self.K + self.W))  # slots with a free cell
        self.union_memo = [[{} for _ in range(self.W)], [{} for _ in range(self.K)]]  # [dir][place][letters]
        self.profile = [0] * (self.K + self.W)
        self.count = 0
        self.tried = 0
        self.solutions: list[tuple[str, ...]] = []
        self.deadline = None if seconds is None else time.perf_counter() + seconds

    # -- slots -------------------------------------------------------------------

    def _slot(self, s: int) -> tuple[int, int]:
        """(direction, index): direction 0 = fill lines, 1 = crossing lines."""
        return (0, s) if s < self.K else (1, s - self.K)

    def _crossing(self, d: int, p: int) -> int:
        """The slot that crosses a slot of direction d at its place p."""
        return self.K + p if d == 0 else p

    def cands(self, s: int) -> int:
        """cands(s): words of s's direction allowed by every crossing slot."""
        d, k = self._slot(s)
        direction, other = self.dirs[d], self.dirs[1 - d]
        bits = direction.every
        for p in range(direction.length):
            letters = other.letters_at(self.patterns[self._crossing(d, p)], k)
            memo = self.union_memo[d][p]
            union = memo.get(letters)
            if union is None:
                union = 0
                for c in letters:
                    union |= direction.letter[p].get(c, 0)
                memo[letters] = union
            bits &= union
            if not bits:
                return 0
        return bits

    def _place(self, s: int, word: str) -> list[tuple[int, str]]:
        """Write the word into slot s and its crossings; return what to undo."""
        d, k = self._slot(s)
        undo = [(s, self.patterns[s])]
        self.patterns[s] = word
        for p, c in enumerate(word):
            t = self._crossing(d, p)
            old = self.patterns[t]
            undo.append((t, old))
            self.patterns[t] = old[:k] + c + old[k + 1:]
        return undo

    def _restore(self, undo) -> None:
        for t, pattern in undo:
            self.patterns[t] = pattern

    def _free_slots(self) -> list[int]:
        return [s for s in range(self.K + self.W) if "." in self.patterns[s]]

    # -- the search ----------------------------------------------------------------

    def _choose(self, free: list[int], known: dict[int, int]) -> tuple[int, int]:
        """The next slot and its candidates, by the order."""
        if self.order == "static":
            s = min(s for s in free if s < self.K)
            return s, known[s] if s in known else self.cands(s)
        pool = [s for s in free if s < self.K] if self.order == "lines" else free
        best, best_bits, best_size = None, 0, None
        for s in pool:
            bits = known[s] if s in known else self.cands(s)
            size = bits.bit_count()
            if best is None or size < best_size:
                best, best_bits, best_size = s, bits, size
                if size == 0:
                    break
        return best, best_bits

    def run(self) -> OrderResult:
        started, cpu = time.perf_counter(), time.process_time()
        complete = True
        try:
            self._descend(0, {})
        except Budget:
            complete = False
        while self.profile and self.profile[-1] == 0:
            self.profile.pop()
        return OrderResult(self.order, self.lookahead, self.orientation, self.count, self.profile,
                           time.perf_counter() - started, time.process_time() - cpu, complete, self.tried,
                           self.solutions)

    def _descend(self, depth: int, known: dict[int, int]) -> None:
        """Choose a slot and try its candidates; ``known`` holds cands already computed here."""
        free = self._free_slots()
        s, bits = self._choose(free, known)
        empty_cells = sum(self.patterns[t].count(".") for t in free if t < self.K)  # every cell is in one row
        if self.patterns[s].count(".") == empty_cells:  # s holds the last free cells: every candidate completes
            self._complete(depth, s, bits)
            return
        words = self.dirs[self._slot(s)[0]].words
        for index in _members(bits):
            undo = self._place(s, words[index])
            self.tried += 1
            child_known: dict[int, int] = {}
            if self.lookahead and not self._every_slot_open(child_known):
                self._restore(undo)
                continue
            self.profile[depth] += 1
            if self.profile[depth] % _CHECK_EVERY == 0 and self.deadline and time.perf_counter() > self.deadline:
                raise Budget()
            self._descend(depth + 1, child_known)
            self._restore(undo)

    def _every_slot_open(self, known: dict[int, int]) -> bool:
        """Forward checking: every slot with a free cell keeps a candidate (kept in ``known``)."""
        for t in self._free_slots():
            bits = self.cands(t)
            if not bits:
                return False
            known[t] = bits
        return True

    def _complete(self, depth: int, s: int, bits: int) -> None:
        found = bits.bit_count()
        self.tried += found
        self.profile[depth] += found
        self.count += found
        if self.keep:
            words = self.dirs[self._slot(s)[0]].words
            for index in _members(bits):
                undo = self._place(s, words[index])
                rows = tuple(self.patterns[: self.K])
                self.solutions.append(tuple("".join(col) for col in zip(*rows, strict=True)) if self.transpose else rows)
                self._restore(undo)


def search(spec: RectangleSpec, order: str = "static", lookahead: bool = False, orientation: str = "auto",
           keep_solutions: bool = False, seconds: float | None = None) -> OrderResult:
    """Count (and optionally list) every rectangle with the given order and check."""
    return OrderSearch(spec, order, lookahead, orientation, keep_solutions, seconds).run()
