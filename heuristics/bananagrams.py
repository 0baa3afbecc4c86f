"""Bananagrams layouts by anchored backtracking (the classic solvers' search).

State: one mutable board {cell: letter}, the hand as letter counts, and an
undo list per placement. A node places one word through an *anchor*: a board
letter whose two neighbours along some direction are empty, so a word may
pass through it in that direction. Words are tried longest first, so the
hand empties in few placements.

Two modes:

* ``crossing`` (the Haskell solver's restriction): a new word's new tiles may
  not touch any tile sideways, so words in the same direction are never
  adjacent and every new constraint stays on the word's own line.
* ``free``: new tiles may touch others sideways; each cross-run they create
  must then be a word (checked incrementally, for the new tiles only).

Pruning: the *live* words at a node are those spellable from the hand plus
``spare`` board letters (1 by default: the anchor); the list only shrinks as
the hand does, and a hand letter that no live word contains ends the branch
at once. The filter is one vectorised pass over a words × 26 matrix of letter
counts (:class:`WordTable`), which is what makes the 144-tile bag cheap: its
search visits a handful of nodes, and the cost was the per-word Python loop.

Word order. By default (``longest``) the live words are tried longest
first. ``hardest`` tries first the words holding the hand's *hardest* letter
(the held letter found in the fewest live words: a fail-first rule, so a
j or a second x is placed while the board still has room for it), longest
first within each group. Both orders search the same tree, so a search that
runs dry in one runs dry in the other. :func:`solve` alternates them with
growing node budgets (restarts): most hands fall in the first few nodes of
the longest-first order, and the rest (40- and 60-tile hands whose rare
letters are stranded once the long words have used the vowels) in the first
few nodes of the fail-first one (``python benchmarks/banana_solvable.py``).

The same search grows a board that is already there (``board=``), which is
how a peel attaches new tiles without moving old ones; ``hooks`` adds the
one-tile move (a hand tile on an empty cell next to the board whose across
and down runs are both words), and ``box`` bounds the layout's height and
width (used by ``--compact``).

This is a heuristic: both modes only reach layouts that grow word by word
through anchors, so an exhausted search reports ``unknown``, never ``none``.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from cpmodel.core.control import Control, SearchStopped
from cpmodel.core.result import GAVE_UP, SolveResult, status_of
from cpmodel.core.specs import BananaSpec
from cpmodel.core.validate import check_banana

ACROSS, DOWN = (0, 1), (1, 0)
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
LONGEST, HARDEST = "longest", "hardest"  # word orders
FIRST_BUDGET = 256  # nodes of the first restart; each round multiplies it by 4


def letter_counts(words) -> np.ndarray:
    """A len(words) × 26 matrix: how many of each letter every word holds.

    One histogram over (word index, letter) pairs of the joined text, not a
    Python loop per word."""
    codes = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).astype(np.int32) - 97
    lengths = np.fromiter(map(len, words), dtype=np.int32, count=len(words))
    rows = np.repeat(np.arange(len(words), dtype=np.int32) * 26, lengths)
    flat = np.bincount(rows + codes, minlength=len(words) * 26)
    return flat.reshape(len(words), 26).astype(_smallest_int(int(flat.max(initial=0))))


def _smallest_int(most: int):
    """int8 (a quarter of the memory) unless a word holds a letter more than 127 times
    (a --dict may): then a type that holds the count instead of wrapping it negative."""
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if most <= np.iinfo(t).max)


def _top_of_each_length(words, top: int) -> list[str]:
    seen: Counter = Counter()
    kept = []
    for word in words:
        seen[len(word)] += 1
        if seen[len(word)] <= top:
            kept.append(word)
    return kept


def count_vector(counts: Counter) -> np.ndarray:
    """The hand's letter counts; int32, since a hand may hold 128 or more of a letter
    (int8 overflowed there), and ``word counts - hand`` then widens to int32 too."""
    return np.array([counts.get(c, 0) for c in ALPHABET], dtype=np.int32)


class WordTable:
    """Words longest first (then by rank), their letters × 26 count matrix,
    their lengths, and a membership set of the whole lexicon (any run of a
    layout is a lexicon word). Built once per lexicon; ``restrict(hand)`` is
    the table of the words spellable from a hand, by one vectorised filter
    instead of a trie walk, and ``spec(hand)`` its BananaSpec."""

    def __init__(self, words, counts: np.ndarray, lengths: np.ndarray, word_set):
        self.words, self.counts, self.lengths, self.word_set = words, counts, lengths, word_set

    @classmethod
    def of_lexicon(cls, words_in_rank_order, top: int | None = None) -> WordTable:
        """``top``: keep only the ``top`` most common words of each length (as ``--top``)."""
        ranked = [w for w in words_in_rank_order if len(w) >= 2]
        if top is not None:
            ranked = _top_of_each_length(ranked, top)
        lengths = np.fromiter(map(len, ranked), dtype=np.int64, count=len(ranked))
        order = np.argsort(-lengths, kind="stable")  # longest first; rank order kept within a length
        words = [ranked[i] for i in order.tolist()]
        return cls(words, letter_counts(words), lengths[order], frozenset(words))

    def shorter_than(self, longest: int) -> int:
        """Index of the first word of at most ``longest`` letters (words run longest first)."""
        return int(np.searchsorted(-self.lengths, -longest, side="left"))

    def fitting(self, hand: Counter, spare: int = 0) -> np.ndarray:
        """Indices of the words spellable from ``hand`` plus ``spare`` other letters."""
        start = self.shorter_than(sum(hand.values()) + spare)
        deficit = np.maximum(self.counts[start:] - count_vector(hand), 0).sum(axis=1)
        return np.flatnonzero(deficit <= spare) + start

    def restrict(self, hand: str) -> WordTable:
        keep = self.fitting(Counter(hand))
        return WordTable([self.words[i] for i in keep.tolist()], self.counts[keep], self.lengths[keep], self.word_set)

    def spec(self, hand: str) -> BananaSpec:
        return BananaSpec(hand, tuple(self.restrict(hand).words))


class LayoutSearch:
    def __init__(self, spec: BananaSpec, mode: str, control: Control, *, board: dict | None = None,
                 hand: str | None = None, table: WordTable | None = None, hooks: bool = False,
                 spare: int = 1, box: tuple[int, int] | None = None, max_nodes: int | None = None,
                 order: str = LONGEST):
        """``spec.hand`` is every tile of the finished layout; ``board`` holds
        those already placed (kept where they are) and ``hand`` the rest."""
        self.spec, self.mode, self.control, self.order = spec, mode, control, order
        self.hooks, self.spare, self.box, self.max_nodes = hooks, spare, box, max_nodes
        if table is None:  # the spec's words; a table also brings the whole lexicon's word set
            table = WordTable(list(spec.words), letter_counts(spec.words),
                              np.fromiter(map(len, spec.words), dtype=np.int64, count=len(spec.words)), set(spec.words))
        self.words, self.counts, self.lengths, self.word_set = table.words, table.counts, table.lengths, table.word_set
        self.board: dict[tuple[int, int], str] = dict(board or {})
        self.hand = Counter(spec.hand if hand is None else hand)
        self.extent = _extent(self.board)  # (top, bottom, left, right) or None
        self._extents: list = []  # the extent before each placement, for undo
        self.profile: list[int] = []  # nodes per depth
        self.calls = 0

    # -- the search -------------------------------------------------------------

    def run(self) -> str | None:
        """Search; return 'found', or why it stopped, or None when exhausted."""
        try:
            if not self.board and sum(self.hand.values()) == 1:  # a single tile is a legal layout
                letter = next(iter(+self.hand))
                self._commit([((0, 0), letter)])
                return "found"
            every = np.arange(self._first_index(), len(self.words))
            if not self.board:
                return "found" if self._first_word(every) else None
            return "found" if self._descend(0, every) else None
        except SearchStopped as stop:
            return stop.reason

    def _first_index(self) -> int:
        longest = sum(self.hand.values()) + (self.spare if self.board else 0)
        if self.box is not None:
            longest = min(longest, max(self.box))
        return int(np.searchsorted(-self.lengths, -longest, side="left"))

    def _first_word(self, every) -> bool:
        live = self._live(every, spare=0)
        if live is None:
            return False
        for word in self._words_of(live):
            if self.box is not None and len(word) > max(self.box):
                continue
            direction = ACROSS if self.box is None or len(word) <= self.box[1] else DOWN
            new = self._commit([((k * direction[0], k * direction[1]), ch) for k, ch in enumerate(word)])
            if self._descend(1, live):
                return True
            self._undo(new)
        return False

    def _descend(self, depth: int, parent_live) -> bool:
        self._poll(depth)
        if not +self.hand:
            return True  # every tile placed
        live = self._live(parent_live, self.spare)
        if live is None:
            return False
        anchors = self._anchors()
        for word in self._words_of(live):
            for k, letter in enumerate(word):
                for cell, direction in anchors.get(letter, ()):
                    start = (cell[0] - k * direction[0], cell[1] - k * direction[1])
                    new = self._try(word, start, direction)
                    if new is None:
                        continue
                    if self._descend(depth + 1, live):
                        return True
                    self._undo(new)
        if self.hooks:
            for new in self._hook_moves():
                self._commit(new)
                if self._descend(depth + 1, live):
                    return True
                self._undo(new)
        return False

    def _live(self, parent_live, spare: int):
        """Words spellable from the hand plus ``spare`` board letters, or None
        when some hand letter appears in no such word and no hook may place it."""
        if len(parent_live) == 0:
            return None if not self.hooks else parent_live
        hand = count_vector(self.hand)
        rows = self.counts[parent_live]
        deficit = np.maximum(rows - hand, 0).sum(axis=1)
        fits = deficit <= spare
        live = parent_live[fits]
        if not self.hooks:
            covered = (rows[fits] > 0).any(axis=0) if len(live) else np.zeros(26, dtype=bool)
            if np.any((hand > 0) & ~covered):
                return None
        return live

    def _words_of(self, live):
        """The live words in this search's order (the table runs longest first)."""
        words = self.words
        if self.order == HARDEST and len(live):
            holds = self.counts[live] > 0  # live × 26: which letters each word holds
            held = np.flatnonzero(count_vector(self.hand) > 0)
            if len(held):
                hardest = held[np.argmin(holds[:, held].sum(axis=0))]
                first = holds[:, hardest]
                live = np.concatenate([live[first], live[~first]])
        return (words[i] for i in live.tolist())

    def _anchors(self) -> dict[str, list]:
        """Board letters a word may cross, by letter: (cell, direction) with both
        neighbours along the direction empty."""
        anchors: dict[str, list] = {}
        board = self.board
        for (r, c), letter in board.items():
            for dr, dc in (ACROSS, DOWN):
                if (r - dr, c - dc) not in board and (r + dr, c + dc) not in board:
                    anchors.setdefault(letter, []).append(((r, c), (dr, dc)))
        return anchors

    def _hook_moves(self):
        """One hand tile on an empty cell beside the board, both of its runs words."""
        board = self.board
        frontier = {(r + dr, c + dc) for (r, c) in board for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
        frontier -= board.keys()
        letters = [c for c, n in sorted(self.hand.items()) if n > 0]
        for cell in sorted(frontier):
            if not self._inside_box([cell]):
                continue
            for letter in letters:
                if all(self._run_ok(cell, letter, step) for step in (ACROSS, DOWN)):
                    yield [(cell, letter)]

    def _run_ok(self, cell, letter: str, step) -> bool:
        board, (dr, dc) = self.board, step
        r, c = cell
        if (r - dr, c - dc) not in board and (r + dr, c + dc) not in board:
            return True  # a lone letter along this line
        return self._cross_run_is_word(cell, letter, step)

    # -- placing and undoing --------------------------------------------------------

    def _try(self, word: str, start, direction):
        """Place ``word`` if legal in this mode; return its new cells or None."""
        board, (dr, dc) = self.board, direction
        r0, c0 = start
        if self.box is not None and not self._inside_box([start, (r0 + (len(word) - 1) * dr, c0 + (len(word) - 1) * dc)]):
            return None  # the word's ends already leave the box
        if (r0 - dr, c0 - dc) in board or (r0 + len(word) * dr, c0 + len(word) * dc) in board:
            return None  # the run would be longer than the word
        new, need = [], Counter[str]()
        for k, letter in enumerate(word):
            cell = (r0 + k * dr, c0 + k * dc)
            placed = board.get(cell)
            if placed is None:
                new.append((cell, letter))
                need[letter] += 1
            elif placed != letter:
                return None
        if not new or any(self.hand[c] < n for c, n in need.items()):
            return None
        side = (dc, dr)  # perpendicular step
        for (r, c), letter in new:
            before, after = (r - side[0], c - side[1]), (r + side[0], c + side[1])
            if before not in board and after not in board:
                continue
            if self.mode == "crossing" or not self._cross_run_is_word((r, c), letter, side):
                return None
        return self._commit(new)

    def _inside_box(self, cells) -> bool:
        if self.box is None or self.extent is None:
            return True
        top, bottom, left, right = self.extent
        for r, c in cells:
            top, bottom, left, right = min(top, r), max(bottom, r), min(left, c), max(right, c)
        return bottom - top < self.box[0] and right - left < self.box[1]

    def _cross_run_is_word(self, cell, letter: str, side) -> bool:
        """The perpendicular run through a new tile must be a word."""
        board, (dr, dc) = self.board, side
        r, c = cell
        while (r - dr, c - dc) in board:
            r, c = r - dr, c - dc
        letters = []
        while (r, c) in board or (r, c) == cell:
            letters.append(letter if (r, c) == cell else board[(r, c)])
            r, c = r + dr, c + dc
        return "".join(letters) in self.word_set

    def _commit(self, new):
        for cell, letter in new:
            self.board[cell] = letter
            self.hand[letter] -= 1
        self._extents.append(self.extent)
        self.extent = _extent(dict(new), self.extent)
        return new

    def _undo(self, new) -> None:
        for cell, letter in new:
            del self.board[cell]
            self.hand[letter] += 1
        self.extent = self._extents.pop()

    def _poll(self, depth: int) -> None:
        while len(self.profile) <= depth:
            self.profile.append(0)
        self.profile[depth] += 1
        self.calls += 1
        if self.max_nodes is not None and self.calls > self.max_nodes:
            raise SearchStopped("limit")
        if self.calls % 64 == 0:
            self.control.nodes = self.calls
            reason = self.control.stop_reason()
            if reason:
                raise SearchStopped(reason)


def _extent(cells: dict, extent=None):
    """(top, bottom, left, right) of the cells, widened from ``extent``."""
    for r, c in cells:
        if extent is None:
            extent = (r, r, c, c)
        else:
            top, bottom, left, right = extent
            extent = (min(top, r), max(bottom, r), min(left, c), max(right, c))
    return extent


def solve(spec: BananaSpec, mode: str = "free", control: Control | None = None, *,
          table: WordTable | None = None, box: tuple[int, int] | None = None,
          max_nodes: int | None = None) -> SolveResult:
    """One layout, or ``unknown``: this search is incomplete, so it never says ``none``.

    Restarts: the longest-first order, then the fail-first one, each with a
    node budget that grows fourfold per round, until a layout is found, the
    tree runs dry (the same tree in both orders), ``max_nodes`` in all are
    spent, or the clock stops it. ``table`` (optional) supplies the
    precomputed letter counts of the spec's words; ``box`` bounds the layout
    to at most box[0] rows and box[1] columns."""
    control = control or Control()
    started = time.perf_counter()
    total, budget = 0, FIRST_BUDGET
    profile: list[int] = []
    search: LayoutSearch | None = None
    outcome: str | None = "limit"
    while outcome == "limit" and (max_nodes is None or total < max_nodes):
        for order in (LONGEST, HARDEST):
            allowed = budget if max_nodes is None else min(budget, max_nodes - total)
            search = LayoutSearch(spec, mode, control, table=table, box=box, max_nodes=allowed, order=order)
            outcome = search.run()
            total += min(search.calls, allowed)
            profile = _add(profile, search.profile)
            if outcome != "limit" or (max_nodes is not None and total >= max_nodes):
                break
        budget *= 4
    layouts = []
    if outcome == "found":
        assert search is not None  # only a search finds a layout
        check_banana(search.board, spec.hand, search.word_set)
        layouts = [tuple(_rows(search.board))]
    # ran dry (None) or spent max_nodes ("limit"): either way the heuristic gave up
    stopped_by = None if outcome == "found" else GAVE_UP if outcome in (None, "limit") else outcome
    return SolveResult(
        solver="backtrack",
        status=status_of(len(layouts), exhausted=False),  # a heuristic proves nothing
        complete=outcome == "found",
        count=len(layouts),
        solutions=layouts,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        stats={"nodes": total, "profile": profile, "mode": mode,
               "order": search.order if search is not None else None,  # None: max_nodes=0 ran no search
               "ran_dry": outcome is None},
    )


def _add(profile: list[int], more: list[int]) -> list[int]:
    """Nodes per depth, summed over restarts."""
    depth = max(len(profile), len(more))
    return [sum(p[k] for p in (profile, more) if k < len(p)) for k in range(depth)]


def boxes_below(n: int, area: int) -> list[tuple[int, int]]:
    """Boxes R ≤ C that can hold a connected layout of n tiles (R·C ≥ n,
    R + C ≤ n + 1) with area below ``area``: smallest area first, then squarest."""
    boxes = [(r, c) for r in range(1, n + 1) for c in range(r, n + 1) if n <= r * c < area and r + c <= n + 1]
    return sorted(boxes, key=lambda b: (b[0] * b[1], b[1] - b[0]))


def smallest_box_layout(spec: BananaSpec, below_area: int, control: Control, table: WordTable | None = None,
                        box_seconds: float = 0.3, box_nodes: int = 3000, densest: float = 1.0):
    """The compactness heuristic: the same search inside ever larger boxes,
    smallest area first, each box with a small budget; the first layout found
    (rows) and the boxes tried, or (None, tried). Finding nothing in a box
    proves nothing about it. Boxes the tiles would fill beyond ``densest``
    are skipped: word by word, the search does not pack that tightly."""
    tried = []
    for box in [b for b in boxes_below(spec.size, below_area) if spec.size <= densest * b[0] * b[1]]:
        if control.stop_reason():
            break
        budget = Control(time_limit=min(box_seconds, max(0.0, control.time_limit - control.elapsed()))
                         if control.time_limit is not None else box_seconds, stop=control.stop)
        result = solve(spec, "free", budget, table=table, box=box, max_nodes=box_nodes)
        tried.append(box)
        if result.solutions:
            return result.solutions[0], tried
    return None, tried


def _rows(board: dict) -> list[str]:
    from cpmodel.core.boards import layout_rows

    return layout_rows(board)
