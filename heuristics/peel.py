"""Peel: grow a valid Bananagrams layout by new tiles, moving as few placed tiles as possible.

In play, "Peel!" hands every player one more tile, and it must join the
crossword already on the table. Three stages, cheapest first; the first that
succeeds wins:

1. **attach** (moves nothing): the anchored search of heuristics.bananagrams
   continues from the board as it stands, with the new tiles as its hand.
   Its moves are a word through an anchor and a *hook*: one tile on an empty
   cell beside the board whose across and down runs are both words (this is
   how ``cat`` becomes ``cats``). For one new tile the hooks are every
   placement there is, so stage 1 is then complete.
2. **repair** (moves a few): take back the tiles that belong to one word only
   (a word's *own* tiles: no neighbour across its line), for one word and then
   for two, keeping only removals that leave a valid layout, and attach the
   freed tiles together with the new ones. Smallest removals first.
3. **resolve** (last resort): lay out every tile afresh, then translate (and
   maybe transpose) the new layout onto the old one to keep the most tiles
   where they were.

``moved`` counts the tiles of the old layout that are not on the same cell
with the same letter afterwards: what a player would have to pick up. The
peel is a heuristic: when every stage fails it says so (``stuck``), which is
never a proof that the tiles cannot be placed.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass

from cpmodel.core.boards import maximal_runs, runs_of
from cpmodel.core.control import Control
from cpmodel.core.specs import BananaSpec
from cpmodel.core.validate import check_banana
from heuristics.bananagrams import LayoutSearch, WordTable

ATTACH, REPAIR, RESOLVE, STUCK = "attach", "repair", "resolve", "stuck"


@dataclass
class PeelLimits:
    """How hard each stage tries (nodes do not drift with machine load; seconds guard the tail)."""

    attach_nodes: int = 400
    repair_nodes: int = 60  # per removal tried
    repair_candidates: int = 40  # single-word removals tried, then pairs among the first few
    repair_pairs_from: int = 8
    repair_seconds: float = 2.0
    resolve_nodes: int = 50_000  # the re-solve's node budget (its restarts included)
    resolve_seconds: float = 10.0


@dataclass
class PeelResult:
    cells: dict | None  # the new layout in the old layout's coordinates; None when stuck
    moved: int  # old tiles no longer on their cell
    stage: str  # attach | repair | resolve | stuck
    seconds: float
    nodes: int
    stopped_by: str | None = None  # why the last stage stopped, when stuck


def peel(cells: dict, tiles: str, table: WordTable, control: Control | None = None,
         limits: PeelLimits | None = None) -> PeelResult:
    """A valid layout of ``cells``'s letters plus ``tiles``, moving as few as we can."""
    control, limits = control or Control(), limits or PeelLimits()
    started = time.perf_counter()
    everything = "".join(sorted("".join(cells.values()) + tiles))
    nodes = 0
    if not cells:  # nothing on the table yet: a fresh layout moves nothing
        board, n, why = resolve(everything, table, control, limits)
        return _result(board, 0, RESOLVE if board else STUCK, started, n, why)
    board, n = attach(cells, tiles, everything, table, control, limits.attach_nodes)
    nodes += n
    if board is not None:
        return _result(board, 0, ATTACH, started, nodes)
    board, n = repair(cells, tiles, everything, table, control, limits)
    nodes += n
    if board is not None:
        return _result(board, moved_tiles(cells, board), REPAIR, started, nodes)
    board, n, why = resolve(everything, table, control, limits)
    nodes += n
    if board is not None:
        board = align(board, cells)
        return _result(board, moved_tiles(cells, board), RESOLVE, started, nodes)
    return _result(None, 0, STUCK, started, nodes, why)


def _result(board, moved, stage, started, nodes, why=None) -> PeelResult:
    return PeelResult(board, moved, stage, time.perf_counter() - started, nodes, None if board else why)


# -- stage 1: attach ----------------------------------------------------------------


def attach(cells: dict, tiles: str, everything: str, table: WordTable, control: Control, max_nodes: int):
    """Place ``tiles`` around the fixed board; (new layout or None, nodes)."""
    spec = BananaSpec(everything, ())
    search = LayoutSearch(spec, "free", control, board=cells, hand=tiles, table=table, hooks=True, max_nodes=max_nodes)
    outcome = search.run()
    if outcome != "found":
        return None, search.calls
    check_banana(search.board, everything, table.word_set)
    return search.board, search.calls


# -- stage 2: repair ------------------------------------------------------------------


def removable_words(cells: dict) -> list[tuple]:
    """For each word on the board, its own tiles (no neighbour across its line),
    when taking them back leaves a valid layout; fewest tiles first."""
    found = []
    for direction, run in runs_of(cells):
        dr, dc = (0, 1) if direction == "across" else (1, 0)
        own = tuple(cell for cell in run
                    if (cell[0] - dc, cell[1] - dr) not in cells and (cell[0] + dc, cell[1] + dr) not in cells)
        if own and len(own) < len(cells):
            found.append(own)
    found.sort(key=len)
    return found


def still_valid(cells: dict, word_set) -> bool:
    """Connected, and every run a word (what taking tiles back must preserve)."""
    if not cells:
        return False
    if any(word not in word_set for word, _, _ in maximal_runs(cells)):
        return False
    start = next(iter(cells))
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for step in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            cell = (r + step[0], c + step[1])
            if cell in cells and cell not in seen:
                seen.add(cell)
                stack.append(cell)
    return len(seen) == len(cells)


def repair(cells: dict, tiles: str, everything: str, table: WordTable, control: Control, limits: PeelLimits):
    """Take back one word's own tiles (then two words'), attach them with the
    new tiles; the first repair that works, smallest removals first. (layout or None, nodes)."""
    deadline = time.perf_counter() + limits.repair_seconds
    words = removable_words(cells)[:limits.repair_candidates]
    pairs = (tuple(set(a) | set(b)) for a, b in itertools.combinations(words[:limits.repair_pairs_from], 2))
    nodes, tried = 0, set()
    for removal in itertools.chain(words, pairs):
        key = frozenset(removal)
        if key in tried:
            continue
        tried.add(key)
        if time.perf_counter() > deadline or control.stop_reason():
            break
        rest = {cell: letter for cell, letter in cells.items() if cell not in key}
        if not still_valid(rest, table.word_set):
            continue
        freed = "".join(cells[cell] for cell in removal)
        board, n = attach(rest, tiles + freed, everything, table, control, limits.repair_nodes)
        nodes += n
        if board is not None:
            return board, nodes
    return None, nodes


# -- stage 3: resolve -----------------------------------------------------------------


def resolve(everything: str, table: WordTable, control: Control, limits: PeelLimits):
    """Every tile laid out afresh; (layout or None, nodes, why it stopped)."""
    from heuristics.bananagrams import solve

    budget = Control(time_limit=min(limits.resolve_seconds, _remaining(control)), stop=control.stop)
    view = table.restrict(everything)
    result = solve(BananaSpec(everything, tuple(view.words)), "free", budget, table=view, max_nodes=limits.resolve_nodes)
    if not result.solutions:
        return None, result.stats["nodes"], result.stopped_by
    rows = result.solutions[0]
    board = {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
    return board, result.stats["nodes"], None


def _remaining(control: Control) -> float:
    if control.time_limit is None:
        return float("inf")
    return max(0.0, control.time_limit - control.elapsed())


def align(board: dict, old: dict) -> dict:
    """``board`` translated (and maybe transposed) to match ``old`` on the most tiles."""
    best, best_shared = board, -1
    for flip in (False, True):
        placed = {((c, r) if flip else (r, c)): ch for (r, c), ch in board.items()}
        offsets = Counter()
        by_letter: dict[str, list] = {}
        for cell, ch in old.items():
            by_letter.setdefault(ch, []).append(cell)
        for (r, c), ch in placed.items():
            for (r0, c0) in by_letter.get(ch, ()):
                offsets[(r0 - r, c0 - c)] += 1
        if offsets:
            (dr, dc), shared = offsets.most_common(1)[0]
            if shared > best_shared:
                best_shared = shared
                best = {(r + dr, c + dc): ch for (r, c), ch in placed.items()}
    return best


def moved_tiles(old: dict, new: dict) -> int:
    """Tiles of the old layout not on the same cell with the same letter now."""
    return sum(new.get(cell) != letter for cell, letter in old.items())
