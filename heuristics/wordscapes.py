"""Wordscapes board fill by backtracking over slots.

Repeatedly take the open slot with the fewest candidate words that still
agree with the letters placed so far (most constrained first), try each of
them that is not used yet, and undo on the way back. A slot with no
candidate left ends the branch at once. Exact: it reports every fill once
and ``none`` only after the whole tree.

``--best`` (the most familiar fill) is branch and bound on (largest rank, sum
of ranks): the placed words' ranks bound any completion from below, so a
branch whose (max, sum) cannot beat the best fill found (or a request's
bound, another shard's best) is cut, and each
slot's candidates are tried most common first.
"""

from __future__ import annotations

import time

from cpmodel.core.control import Control, Request, SearchStopped, SolutionSink
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import WordscapesSpec
from cpmodel.core.validate import check_wordscapes


class SlotFiller:
    def __init__(self, spec: WordscapesSpec, request: Request, control: Control):
        self.spec, self.request, self.control = spec, request, control
        self.letters = {cell: c for cell, c in spec.board.cells.items() if c}  # placed letters
        self.used: set[str] = set()
        self.sink = SolutionSink(request, control)
        self.nodes = 0
        # lone cells (in no slot) keep a pre-filled letter; the others take any wheel letter
        given = spec.board.cells
        self.free_lone = [cell for cell in spec.lone_cells if not given[cell]]
        self.lone_fit = all(given[cell] in spec.wheel for cell in spec.lone_cells if given[cell])
        # ranks may be () (a hand-built spec): only --best reads them
        self.rank_of = {w: r for words, ranks in zip(spec.candidates, spec.ranks, strict=False)
                        for w, r in zip(words, ranks, strict=True)}
        self.placed_ranks: list[int] = []  # ranks of the words placed so far (for --best)
        self.best: tuple[int, int] | None = None
        self.threshold = request.bound if request.best else None  # beat this (another shard's best)

    def fits(self, slot, word: str) -> bool:
        letters = self.letters
        return all(letters.get(cell, ch) == ch for cell, ch in zip(slot, word, strict=True))

    def run(self) -> str | None:
        if not self.lone_fit:
            return None  # a pre-filled lone letter the wheel lacks: no fill at all
        try:
            self._fill(set(range(len(self.spec.slots))))
        except SearchStopped as stop:
            return stop.reason
        return None

    def _fill(self, open_slots: set[int]) -> None:
        self.nodes += 1
        if self.nodes % 256 == 0:
            self.control.nodes = self.nodes
            reason = self.control.stop_reason()
            if reason:
                raise SearchStopped(reason)
        if not open_slots:
            self._complete()
            return
        if (self.best or self.threshold) is not None and not self._may_improve(self.placed_ranks):
            return
        options = {k: [w for w in self.spec.candidates[k] if w not in self.used and self.fits(self.spec.slots[k], w)]
                   for k in open_slots}
        slot_index = min(options, key=lambda k: len(options[k]))  # most constrained slot
        slot = self.spec.slots[slot_index]
        for word in options[slot_index]:
            placed = [cell for cell in slot if cell not in self.letters]
            for cell, ch in zip(slot, word, strict=True):
                self.letters.setdefault(cell, ch)
            self.used.add(word)
            self.placed_ranks.append(self.rank_of.get(word, 0))
            self._fill(open_slots - {slot_index})
            self.placed_ranks.pop()
            self.used.discard(word)
            for cell in placed:
                del self.letters[cell]

    def _may_improve(self, ranks: list[int]) -> bool:
        """Could a fill with these words (and more) beat the best? Ranks only grow."""
        to_beat = self.best or self.threshold
        assert to_beat is not None  # the callers check that there is one
        largest, total = max(ranks, default=0), sum(ranks)
        return largest < to_beat[0] or (largest == to_beat[0] and total < to_beat[1])

    def _complete(self) -> None:
        """All slots hold words; free lone cells take each wheel letter in turn."""
        if self.request.best:
            self._improve()
            return
        lone = self.free_lone
        for choice in _assignments(len(lone), sorted(set(self.spec.wheel))):
            letters = {**self.letters, **dict(zip(lone, choice, strict=True))}
            rows = self.spec.render(letters)
            check_wordscapes(self.spec, rows)
            if self.sink.record(rows):
                raise SearchStopped("limit")


    def _improve(self) -> None:
        """--best: keep this fill if it beats the best (its lone cells take the first wheel letter)."""
        if (self.best or self.threshold) is not None and not self._may_improve(self.placed_ranks):
            return
        first = sorted(set(self.spec.wheel))[0]
        rows = self.spec.render({**self.letters, **{cell: first for cell in self.free_lone}})
        check_wordscapes(self.spec, rows)
        self.best = self.spec.fill_objective(rows)
        self.control.objective = self.best
        self.sink.solutions.clear()
        self.sink.count = 0
        self.sink.record(rows)


def _assignments(n: int, letters: list[str]):
    if n == 0:
        yield ()
        return
    for first in letters:
        for rest in _assignments(n - 1, letters):
            yield (first,) + rest


def solve(spec: WordscapesSpec, request: Request = Request(), control: Control | None = None) -> SolveResult:
    control = control or Control()
    started = time.perf_counter()
    filler = SlotFiller(spec, request, control)
    stopped_by = filler.run()
    exhausted = stopped_by is None
    sink = filler.sink
    return SolveResult("backtrack", status_of(sink.count, exhausted), exhausted or stopped_by == "limit", sink.count,
                       sink.solutions, time.perf_counter() - started, stopped_by, objective=filler.best,
                       stats={"nodes": filler.nodes})
