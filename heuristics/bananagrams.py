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
one board letter; the list only shrinks as the hand does, and a hand letter
that no live word contains ends the branch at once.

This is a heuristic: both modes only reach layouts that grow word by word
through anchors, so an exhausted search reports ``unknown``, never ``none``.
"""

from __future__ import annotations

import time
from collections import Counter

from cpmodel.control import Control, SearchStopped
from cpmodel.result import SolveResult, status_of
from cpmodel.specs import BananaSpec
from cpmodel.validate import check_banana

ACROSS, DOWN = (0, 1), (1, 0)


class LayoutSearch:
    def __init__(self, spec: BananaSpec, mode: str, control: Control):
        self.spec, self.mode, self.control = spec, mode, control
        self.word_set = set(spec.words)
        self.needs = {w: Counter(w) for w in spec.words}  # each word's letter counts
        self.board: dict[tuple[int, int], str] = {}
        self.hand = Counter(spec.hand)
        self.profile: list[int] = []  # nodes per depth
        self.calls = 0

    # -- the search -------------------------------------------------------------

    def run(self) -> str | None:
        """Search; return 'found', or why it stopped, or None when exhausted."""
        try:
            if len(self.spec.hand) == 1:  # a single tile is a legal layout
                self.board[(0, 0)] = self.spec.hand
                return "found"
            return "found" if self._first_word() else None
        except SearchStopped as stop:
            return stop.reason

    def _first_word(self) -> bool:
        live = self._live(self.spec.words)
        for word in live or ():
            if not self._fits_hand(word):
                continue
            new = self._place(word, (0, 0), ACROSS)
            if self._descend(1, live):
                return True
            self._undo(new)
        return False

    def _descend(self, depth: int, parent_live: list[str]) -> bool:
        self._poll(depth)
        if not +self.hand:
            return True  # every tile placed
        live = self._live(parent_live)
        if live is None:
            return False
        anchors = self._anchors()
        for word in live:
            for k, letter in enumerate(word):
                for cell, direction in anchors.get(letter, ()):
                    start = (cell[0] - k * direction[0], cell[1] - k * direction[1])
                    new = self._try(word, start, direction)
                    if new is None:
                        continue
                    if self._descend(depth + 1, live):
                        return True
                    self._undo(new)
        return False

    def _live(self, words) -> list[str] | None:
        """Words spellable from the hand plus one board letter, or None when some
        hand letter appears in no such word (that tile could never be placed)."""
        hand = self.hand
        live = [w for w in words if sum(max(0, n - hand[c]) for c, n in self.needs[w].items()) <= 1]
        covered = set().union(*live) if live else set()
        if any(n and c not in covered for c, n in hand.items()):
            return None
        return live

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

    # -- placing and undoing --------------------------------------------------------

    def _fits_hand(self, word: str) -> bool:
        return all(self.hand[c] >= n for c, n in self.needs[word].items())

    def _try(self, word: str, start, direction):
        """Place ``word`` if legal in this mode; return its new cells or None."""
        board, (dr, dc) = self.board, direction
        r0, c0 = start
        if (r0 - dr, c0 - dc) in board or (r0 + len(word) * dr, c0 + len(word) * dc) in board:
            return None  # the run would be longer than the word
        new, need = [], Counter()
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

    def _cross_run_is_word(self, cell, letter: str, side) -> bool:
        """free mode: the perpendicular run through a new tile must be a word."""
        board, (dr, dc) = self.board, side
        r, c = cell
        while (r - dr, c - dc) in board:
            r, c = r - dr, c - dc
        letters = []
        while (r, c) in board or (r, c) == cell:
            letters.append(letter if (r, c) == cell else board[(r, c)])
            r, c = r + dr, c + dc
        return "".join(letters) in self.word_set

    def _place(self, word: str, start, direction):
        cells = [((start[0] + k * direction[0], start[1] + k * direction[1]), ch) for k, ch in enumerate(word)]
        return self._commit(cells)

    def _commit(self, new):
        for cell, letter in new:
            self.board[cell] = letter
            self.hand[letter] -= 1
        return new

    def _undo(self, new) -> None:
        for cell, letter in new:
            del self.board[cell]
            self.hand[letter] += 1

    def _poll(self, depth: int) -> None:
        while len(self.profile) <= depth:
            self.profile.append(0)
        self.profile[depth] += 1
        self.calls += 1
        if self.calls % 64 == 0:
            self.control.nodes = self.calls
            reason = self.control.stop_reason()
            if reason:
                raise SearchStopped(reason)


def solve(spec: BananaSpec, mode: str = "free", control: Control | None = None) -> SolveResult:
    """One layout, or ``unknown``: this search is incomplete, so it never says ``none``."""
    control = control or Control()
    started = time.perf_counter()
    search = LayoutSearch(spec, mode, control)
    outcome = search.run()
    layouts = []
    if outcome == "found":
        check_banana(search.board, spec.hand, search.word_set)
        layouts = [tuple(_rows(search.board))]
    stopped_by = None if outcome == "found" else (outcome or "exhausted")
    return SolveResult(
        solver="backtrack",
        status=status_of(len(layouts), exhausted=False),  # a heuristic proves nothing
        complete=outcome == "found",
        count=len(layouts),
        solutions=layouts,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        stats={"nodes": search.calls, "profile": search.profile, "mode": mode},
    )


def _rows(board: dict) -> list[str]:
    from cpmodel.boards import layout_rows

    return layout_rows(board)
